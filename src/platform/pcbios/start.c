/* SPDX-License-Identifier: MIT */
/* The pcbios platform's C entry: bring up the machine's services, then run ibboot. */
#include "pcbios.h"
#include <arch/x86.h>
#include <ibboot/console.h>
#include "../../arch/x86_64/boot.h"

static const char *boot_path = "unknown loader";

void plat_print_info(void)
{
	kprintf("platform: booted via %s; TSC %llu MHz; %sACPI; %u-bit physical addresses\n",
		boot_path, (unsigned long long)(plat_counter_hz() / 1000000),
		acpi.found ? "" : "no ", paging_phys_bits());
	if (plat_started_by())
		kprintf("platform: started by %s\n", plat_started_by());
}

void arch_main(uint32_t type, uint32_t info);
void arch_main(uint32_t type, uint32_t info)
{
	serial_init();
	vga_init();
	idt_init();
	paging_init();
	bootinfo_parse(type, info);
	boot_path = type == BOOT_TYPE_LINUX ? (bootinfo_real_mode_entry() ?
					       "Linux boot protocol (real-mode entry)" :
					       "Linux boot protocol (32-bit entry)") :
		    type == BOOT_TYPE_MULTIBOOT ? "multiboot" : "unknown loader";
	acpi_init();
	pci_cfg_init();
	tsc_calibrate();
	ibboot_main();
}

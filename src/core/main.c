/* SPDX-License-Identifier: MIT */
/* What ibboot does once the platform is up: banner, memory, PCI, drivers, commands. */
#include <ibboot/ibboot.h>
#include <ibboot/platform.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/pci.h>
#include <ibboot/shell.h>
#include <ibboot/version.h>
#include <ibboot/timer.h>
#include <ibboot/hooks.h>
#include <ibboot/random.h>

void print_memory_summary(void)
{
	const struct plat_mem_region *map;
	unsigned n = plat_memmap(&map), n_ram = 0;
	uint64_t ram = 0;
	struct dma_stats st;

	for (unsigned i = 0; i < n; i++) {
		if (map[i].type == PLAT_MEM_RAM) {
			ram += map[i].len;
			n_ram++;
		}
	}
	dma_get_stats(&st);
	/* Rounded to the nearest MiB: firmware keeps a few KiB below 1 MiB and at the top. */
	kprintf("memory: %llu MiB RAM (%llu KiB, %u regions), %llu MiB free for buffers "
		"(largest %llu)\n", (unsigned long long)((ram + MiB(1) / 2) >> 20),
		(unsigned long long)(ram >> 10), n_ram, (unsigned long long)(st.free >> 20),
		(unsigned long long)(st.largest >> 20));
}

void ibboot_main(void)
{
	int n;

	clock_ms();   /* the monotonic clock counts from here */
	kprintf("\nibboot %s (%s)\n", IBBOOT_VERSION, plat_name());
	plat_print_info();
	if (dma_init())
		kprintf("memory: no usable RAM: no buffers\n");
	print_memory_summary();
	random_init();   /* says which entropy sources the keys and ids come from */

	n = pci_scan();
	kprintf("pci: %d functions (config access: %s)\n", n, plat_pci_cfg_method());
	for (struct pci_device *d = pci_devices(); d; d = d->next)
		pci_print_device(d);
	pci_probe_drivers();
	hooks_start();

	shell_run_cmdline(plat_cmdline());
	shell_loop();
	kprintf("console input closed; powering off\n");
	pci_remove_drivers();
	plat_poweroff(0);
}

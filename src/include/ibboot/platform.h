/* SPDX-License-Identifier: MIT */
/*
 * The platform interface: the only services ibboot's core, buses and drivers get from whatever runs
 * them. Implemented by src/platform/pcbios (bare metal after a BIOS boot loader) and
 * src/platform/hosted (a Linux process with software PCI devices). Nothing above platform/ may
 * include anything else that says where it runs.
 *
 * The platform owns the entry point: it initialises itself, then calls ibboot_main().
 */
#ifndef IBBOOT_PLATFORM_H
#define IBBOOT_PLATFORM_H

#include <ibboot/compiler.h>

struct mmio;

/* The entry into the platform-independent firmware. */
void ibboot_main(void);

/* ---- identity and boot environment ---- */
const char *plat_name(void);              /* "pcbios", "hosted" */
const char *plat_cmdline(void);           /* the boot command line ("" if none) */
__noreturn void plat_poweroff(int status);   /* status 0 = success; non-zero for test failures */
__noreturn void plat_reboot(void);
/* Started by firmware that can take the machine back (a PCI option ROM's boot entry, a PXE
 * ROM that chainloaded us)? Then a name for where plat_exit_to_firmware() returns to, else
 * NULL. plat_exit_to_firmware() gives the machine back so the firmware tries its next boot
 * device; devices must be quiesced first (pci_remove_drivers). It returns only when there is no
 * way back (-ENOTSUP). Platforms without one need not define either (weak defaults). */
const char *plat_firmware_exit(void);
int plat_exit_to_firmware(void);
/* Prints a few lines about the platform (boot path, timer, config access) under the banner. */
void plat_print_info(void);
/* Called from every waiting loop (console idle, udelay, sleep): runs the hosted platform's
 * software devices; a no-op on hardware. Never calls back into ibboot. */
void plat_poll(void);

/* Hands the machine to a 64-bit kernel by the Linux x86 64-bit boot protocol: fills boot_params'
 * e820 table from the firmware memory map, then jumps to `entry` (the kernel's load address +
 * 0x200) with rsi = boot_params (a 4 KiB zero page the caller set up: header, cmd_line_ptr,
 * initrd). Devices must be quiesced first (pci_remove_drivers). Returns only on failure: -EINVAL
 * for addresses the kernel could not reach, -ENOTSUP where there is no machine to give (hosted). */
int plat_boot_linux64(uint64_t entry, void *boot_params);

/* ---- console ---- */
#define PLAT_GETC_NONE (-1)   /* nothing available now */
#define PLAT_GETC_EOF  (-2)   /* input closed for good (hosted stdin at end) */
void plat_putc(char c);
int plat_getc(void);

/* ---- time ---- */
uint64_t plat_counter(void);        /* free-running counter */
uint64_t plat_counter_hz(void);     /* its frequency */
uint64_t plat_counter_mask(void);   /* its width as a mask (it wraps to 0 after mask) */
/* Between polls in a waiting loop: a pause on hardware; the hosted platform dozes briefly when
 * its devices are idle. */
void plat_cpu_relax(void);

/* ---- memory ---- */
enum plat_mem_type {
	PLAT_MEM_RAM = 1, PLAT_MEM_RESERVED = 2, PLAT_MEM_ACPI = 3, PLAT_MEM_NVS = 4,
	PLAT_MEM_UNUSABLE = 5,
};
struct plat_mem_region {
	uint64_t base, len;
	uint32_t type;
};
/* The firmware's memory map as found (e820 or equivalent). */
unsigned plat_memmap(const struct plat_mem_region **map);
/* RAM ibboot may hand out (image, loader data, low memory removed), ready to be accessed.
 * Returns the number of regions written to out (at most max). */
unsigned plat_usable_ram(struct plat_mem_region *out, unsigned max);
/* Memory is being handed out / taken back by the allocator. The hosted platform poisons memory
 * that is not handed out (AddressSanitizer), so a driver touching a freed buffer is caught. */
void plat_mem_handout(void *p, size_t len);
void plat_mem_takeback(void *p, size_t len);
/* Files the boot loader loaded alongside the image (a Linux-protocol initrd, multiboot modules):
 * their memory is never handed out. Returns how many; *mods points at them. */
unsigned plat_boot_modules(const struct plat_mem_region **mods);
uint64_t plat_virt_to_bus(const void *p);
void *plat_bus_to_virt(uint64_t bus);

/* ---- PCI ---- */
/* Devices are named by segment 0 bus/device/function: bdf = bus << 8 | dev << 3 | fn. */
#define PCI_BDF(bus, dev, fn) ((uint32_t)(((bus) << 8) | ((dev) << 3) | (fn)))
#define PCI_BUS(bdf)  (((bdf) >> 8) & 0xff)
#define PCI_DEV(bdf)  (((bdf) >> 3) & 0x1f)
#define PCI_FN(bdf)   ((bdf) & 0x7)
/* Config space: size 1, 2 or 4, naturally aligned. Reads of absent devices or of offsets beyond
 * plat_pci_cfg_size() return all-ones; such writes are dropped. */
uint32_t plat_pci_read(uint32_t bdf, unsigned off, unsigned size);
void plat_pci_write(uint32_t bdf, unsigned off, unsigned size, uint32_t val);
unsigned plat_pci_cfg_size(void);           /* 256, or 4096 with ECAM */
const char *plat_pci_cfg_method(void);      /* human-readable, for the banner */

/* ---- MMIO ---- */
/* Maps [phys, phys+size) of BAR `bar` of device bdf for register access; fills *m.
 * -EINVAL for a bad range, -EBUSY if it overlaps RAM, -ENOSPC if page tables run out. */
int plat_mmio_map(uint32_t bdf, unsigned bar, uint64_t phys, uint64_t size, struct mmio *m);
void plat_mmio_unmap(struct mmio *m);
/* Moves `size` (1, 2, 4, 8) bytes in bus order, as one access. off is checked by the caller. */
void plat_mmio_read(const struct mmio *m, uint64_t off, void *bytes, unsigned size);
void plat_mmio_write(const struct mmio *m, uint64_t off, const void *bytes, unsigned size);

#endif

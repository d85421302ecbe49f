/* SPDX-License-Identifier: MIT */
/* PCI configuration access: ECAM (memory-mapped, 4 KiB per function) when ACPI's MCFG describes
 * it, else configuration mechanism #1 through ports 0xcf8/0xcfc (256 bytes per function). */
#include "pcbios.h"
#include <arch/x86.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>

#define PCI_CONFIG_ADDRESS 0xcf8
#define PCI_CONFIG_DATA    0xcfc

static bool ecam_on;
static char method[64] = "port 0xcf8";

void pci_cfg_init(void)
{
	uint64_t len;
	int rc;

	if (!acpi.ecam_base || acpi.ecam_bus_end < acpi.ecam_bus_start)
		return;
	len = (uint64_t)(acpi.ecam_bus_end - acpi.ecam_bus_start + 1) << 20;
	if (memmap_overlaps_ram(acpi.ecam_base, len)) {
		kprintf("pci: MCFG puts ECAM at %#llx over RAM; using port 0xcf8\n",
			(unsigned long long)acpi.ecam_base);
		return;
	}
	rc = paging_map(acpi.ecam_base, len, true);
	if (rc) {
		kprintf("pci: cannot map ECAM at %#llx: %s; using port 0xcf8\n",
			(unsigned long long)acpi.ecam_base, ib_strerror(rc));
		return;
	}
	ecam_on = true;
	ksnprintf(method, sizeof(method), "ECAM %#llx buses %02x-%02x",
		  (unsigned long long)acpi.ecam_base, acpi.ecam_bus_start, acpi.ecam_bus_end);
}

static volatile uint8_t *ecam_addr(uint32_t bdf, unsigned off)
{
	unsigned bus = PCI_BUS(bdf);

	if (!ecam_on || bus < acpi.ecam_bus_start || bus > acpi.ecam_bus_end)
		return NULL;
	return (volatile uint8_t *)(uintptr_t)(acpi.ecam_base +
		((uint64_t)(bdf - PCI_BDF(acpi.ecam_bus_start, 0, 0)) << 12) + off);
}

/* Port 0xcf8 reaches only the first 256 bytes (its register field is 8 bits wide): an extended
 * offset on a bus outside the ECAM range must fail, not alias a low register. */
static bool access_ok(volatile uint8_t *ecam, unsigned off, unsigned size)
{
	return (size == 1 || size == 2 || size == 4) && off % size == 0 &&
	       off + size <= (ecam ? 4096u : 256u);
}

uint32_t plat_pci_read(uint32_t bdf, unsigned off, unsigned size)
{
	volatile uint8_t *p = ecam_addr(bdf, off);

	if (!access_ok(p, off, size))
		return size == 4 ? 0xffffffffu : (1u << (8 * size)) - 1;
	if (p)
		return size == 1 ? *p : size == 2 ? *(volatile uint16_t *)p : *(volatile uint32_t *)p;
	outl(PCI_CONFIG_ADDRESS, 0x80000000u | bdf << 8 | (off & 0xfc));
	return size == 1 ? inb(PCI_CONFIG_DATA + (off & 3)) :
	       size == 2 ? inw(PCI_CONFIG_DATA + (off & 2)) : inl(PCI_CONFIG_DATA);
}

void plat_pci_write(uint32_t bdf, unsigned off, unsigned size, uint32_t val)
{
	volatile uint8_t *p = ecam_addr(bdf, off);

	if (!access_ok(p, off, size))
		return;
	if (p) {
		if (size == 1)
			*p = (uint8_t)val;
		else if (size == 2)
			*(volatile uint16_t *)p = (uint16_t)val;
		else
			*(volatile uint32_t *)p = val;
		return;
	}
	outl(PCI_CONFIG_ADDRESS, 0x80000000u | bdf << 8 | (off & 0xfc));
	if (size == 1)
		outb(PCI_CONFIG_DATA + (off & 3), (uint8_t)val);
	else if (size == 2)
		outw(PCI_CONFIG_DATA + (off & 2), (uint16_t)val);
	else
		outl(PCI_CONFIG_DATA, val);
}

unsigned plat_pci_cfg_size(void)
{
	return ecam_on ? 4096 : 256;
}

const char *plat_pci_cfg_method(void)
{
	return method;
}

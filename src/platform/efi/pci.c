/* SPDX-License-Identifier: MIT */
/*
 * efi: PCI configuration access through the PCI Root Bridge I/O protocol (UEFI 2.10 §14.2). Every
 * root bridge of segment 0 is found (LocateHandleBuffer), with the bus range its Configuration()
 * descriptors give (ACPI 6.x §6.4.3.5.1 QWORD Address Space Descriptor, resource type 2 = bus
 * number range); an access goes to the bridge whose range holds the bus. The firmware assigned
 * the BARs; the bus code enables memory decoding and bus mastering itself (pci_enable_device), as
 * it does on a BIOS machine, since a UEFI PCI bus driver leaves both off for a device no UEFI
 * driver claimed.
 */
#include "efi_plat.h"
#include <ibboot/console.h>

#define MAX_BRIDGES 8
#define ACPI_QWORD_ADDRESS 0x8a
#define ACPI_END_TAG       0x79
#define ACPI_RES_BUS       2

static const efi_guid rbio_guid = EFI_PCI_ROOT_BRIDGE_IO_PROTOCOL_GUID;

static struct bridge {
	struct efi_pci_root_bridge_io *io;
	uint32_t bus_min, bus_max;
} bridges[MAX_BRIDGES];
static unsigned n_bridges;

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The bus range from a root bridge's resource descriptors; 0-255 if it names none. */
static void bridge_buses(struct bridge *b)
{
	void *res = NULL;

	b->bus_min = 0;
	b->bus_max = 255;
	if (!b->io->configuration || b->io->configuration(b->io, &res) != EFI_SUCCESS || !res)
		return;
	const uint8_t *d = res;
	for (int i = 0; i < 32 && d[0] == ACPI_QWORD_ADDRESS; i++) {
		unsigned len = (unsigned)(d[1] | d[2] << 8);

		if (d[3] == ACPI_RES_BUS) {
			b->bus_min = (uint32_t)rd64(d + 14);
			b->bus_max = (uint32_t)rd64(d + 22);
			return;
		}
		d += 3 + len;
	}
}

void efi_pci_init(void)
{
	efi_handle *h = NULL;
	uint64_t n = 0;
	efi_status s = efi_bs->locate_handle_buffer(EFI_BY_PROTOCOL, &rbio_guid, NULL, &n, &h);

	if (s != EFI_SUCCESS) {
		kprintf("pci: no PCI Root Bridge I/O protocol (%s): no PCI devices\n",
			efi_strerror(s));
		return;
	}
	for (uint64_t i = 0; i < n && n_bridges < MAX_BRIDGES; i++) {
		struct efi_pci_root_bridge_io *io = NULL;

		if (efi_bs->handle_protocol(h[i], &rbio_guid, (void **)&io) != EFI_SUCCESS || !io ||
		    io->segment_number != 0)
			continue;
		bridges[n_bridges].io = io;
		bridge_buses(&bridges[n_bridges]);
		n_bridges++;
	}
	efi_bs->free_pool(h);
}

static struct efi_pci_root_bridge_io *bridge_for(uint32_t bdf)
{
	for (unsigned i = 0; i < n_bridges; i++)
		if (PCI_BUS(bdf) >= bridges[i].bus_min && PCI_BUS(bdf) <= bridges[i].bus_max)
			return bridges[i].io;
	return NULL;
}

static enum efi_pci_width width_of(unsigned size)
{
	return size == 1 ? EFI_PCI_WIDTH_U8 : size == 2 ? EFI_PCI_WIDTH_U16 : EFI_PCI_WIDTH_U32;
}

static bool access_ok(unsigned off, unsigned size)
{
	return (size == 1 || size == 2 || size == 4) && off % size == 0 &&
	       off + size <= plat_pci_cfg_size();
}

uint32_t plat_pci_read(uint32_t bdf, unsigned off, unsigned size)
{
	struct efi_pci_root_bridge_io *io = bridge_for(bdf);
	uint32_t v = 0;

	if (!io || !access_ok(off, size) ||
	    io->pci.read(io, width_of(size), EFI_PCI_ADDRESS(PCI_BUS(bdf), PCI_DEV(bdf),
							   PCI_FN(bdf), off), 1, &v) != EFI_SUCCESS)
		return size == 4 ? 0xffffffffu : (1u << (8 * size)) - 1;
	return v;
}

void plat_pci_write(uint32_t bdf, unsigned off, unsigned size, uint32_t val)
{
	struct efi_pci_root_bridge_io *io = bridge_for(bdf);

	if (!io || !access_ok(off, size))
		return;
	io->pci.write(io, width_of(size), EFI_PCI_ADDRESS(PCI_BUS(bdf), PCI_DEV(bdf), PCI_FN(bdf),
							  off), 1, &val);
}

unsigned plat_pci_cfg_size(void)
{
	/* Extended registers go through ExtendedRegister; root bridges without ECAM refuse
	 * them, which reads as all-ones like an absent capability. */
	return 4096;
}

const char *plat_pci_cfg_method(void)
{
	return n_bridges ? "UEFI PCI Root Bridge I/O" : "none (no root bridge)";
}

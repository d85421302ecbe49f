/* SPDX-License-Identifier: MIT */
/*
 * PCI: enumeration of every bus reachable through bridges, BAR sizing, device enable, BAR mapping
 * and a driver table matched by vendor:device. Config access comes from the platform.
 */
#ifndef IBBOOT_PCI_H
#define IBBOOT_PCI_H

#include <ibboot/compiler.h>
#include <ibboot/platform.h>
#include <ibboot/mmio.h>
#include <ibboot/tables.h>

/* Config space registers (PCI Local Bus 3.0, section 6.2). */
#define PCI_VENDOR_ID      0x00
#define PCI_DEVICE_ID      0x02
#define PCI_COMMAND        0x04
#define  PCI_COMMAND_IO     0x0001
#define  PCI_COMMAND_MEMORY 0x0002
#define  PCI_COMMAND_MASTER 0x0004
#define PCI_STATUS         0x06
#define PCI_CLASS_REVISION 0x08
#define PCI_HEADER_TYPE    0x0e
#define  PCI_HEADER_MULTIFUNCTION 0x80
#define  PCI_HEADER_NORMAL  0
#define  PCI_HEADER_BRIDGE  1
#define PCI_BAR0           0x10
#define PCI_PRIMARY_BUS    0x18
#define PCI_SECONDARY_BUS  0x19
#define PCI_SUBORDINATE_BUS 0x1a
#define PCI_SUBSYS_VENDOR  0x2c
#define PCI_SUBSYS_ID      0x2e

#define PCI_BAR_SPACE_IO   0x1
#define PCI_BAR_MEM_TYPE   0x6
#define  PCI_BAR_MEM_64     0x4
#define PCI_BAR_PREFETCH   0x8

#define PCI_MAX_BARS 6

enum pci_bar_kind { PCI_BAR_NONE = 0, PCI_BAR_IO, PCI_BAR_MEM32, PCI_BAR_MEM64 };

struct pci_bar {
	enum pci_bar_kind kind;
	bool prefetch;
	uint64_t addr;   /* as programmed; 0 = unassigned */
	uint64_t size;
};

struct pci_driver;

struct pci_device {
	uint32_t bdf;
	uint16_t vendor, device;
	uint32_t class_code;   /* base << 16 | sub << 8 | prog-if */
	uint8_t revision;
	uint8_t header_type;   /* without the multifunction bit */
	struct pci_bar bar[PCI_MAX_BARS];
	const struct pci_driver *driver;
	void *priv;
	/* Set by a driver's remove when it could not stop the device (its reset failed): the
	 * device may still DMA into memory it was given. pci_remove_drivers() reports it so that
	 * no OS is started over that memory. */
	bool dma_not_stopped;
	struct pci_device *next;
};

struct pci_device_id {
	uint16_t vendor, device;
	const char *name;
};

struct pci_driver {
	const char *name;
	const struct pci_device_id *ids;
	unsigned n_ids;
	int (*probe)(struct pci_device *pdev, const struct pci_device_id *id);
	void (*remove)(struct pci_device *pdev);
};

/* An entry of the link-time table `pci_drivers` (tables.h): when two drivers claim one device,
 * the first in key order (by name) binds, whatever the link order. */
struct pci_driver_entry {
	int order;
	const char *name;
	const struct pci_driver *driver;
};
_Static_assert(sizeof(struct pci_driver_entry) % 8 == 0, "table entries must tile an array");
TABLE_DECLARE(const struct pci_driver_entry, pci_drivers);

/* Registers a driver in the table the image and the hosted build both collect at link time. */
#define PCI_DRIVER(drv)                                                                   \
	static const struct pci_driver_entry pci_driver_entry_##drv                      \
		TABLE_ENTRY(pci_drivers) = { 0, #drv, &(drv) }

/* Config accessors for a found device. */
static inline uint8_t pci_read8(const struct pci_device *d, unsigned off)
{ return (uint8_t)plat_pci_read(d->bdf, off, 1); }
static inline uint16_t pci_read16(const struct pci_device *d, unsigned off)
{ return (uint16_t)plat_pci_read(d->bdf, off, 2); }
static inline uint32_t pci_read32(const struct pci_device *d, unsigned off)
{ return plat_pci_read(d->bdf, off, 4); }
static inline void pci_write8(const struct pci_device *d, unsigned off, uint8_t v)
{ plat_pci_write(d->bdf, off, 1, v); }
static inline void pci_write16(const struct pci_device *d, unsigned off, uint16_t v)
{ plat_pci_write(d->bdf, off, 2, v); }
static inline void pci_write32(const struct pci_device *d, unsigned off, uint32_t v)
{ plat_pci_write(d->bdf, off, 4, v); }

/* Enumerates bus 0 and the buses behind its bridges, then every other bus number (extra root
 * buses); a re-scan frees the old list. Returns the number of functions found. */
int pci_scan(void);
struct pci_device *pci_devices(void);
void pci_free_devices(void);
struct pci_device *pci_find(uint16_t vendor, uint16_t device);

/* Sizes every BAR of bdf (decoding is switched off while sizing). Returns the number found, or
 * -EINVAL for an impossible BAR (a 64-bit BAR in the last slot, a size that is not a power of 2). */
int pci_size_bars(uint32_t bdf, unsigned n_bars, struct pci_bar *bars);

/* Turns on memory (and I/O if the device has I/O BARs) decoding and bus mastering. */
void pci_enable_device(struct pci_device *pdev);
/* Bus master enable alone (PCI 3.0 6.2.2: with it clear the function may not initiate DMA).
 * Inline so that test rigs that supply their own pci_enable_device link without pci.c. */
static inline void pci_set_bus_master(const struct pci_device *pdev, bool on)
{
	uint16_t cmd = pci_read16(pdev, PCI_COMMAND);
	uint16_t want = on ? (uint16_t)(cmd | PCI_COMMAND_MASTER)
			   : (uint16_t)(cmd & ~PCI_COMMAND_MASTER);

	if (want != cmd)
		pci_write16(pdev, PCI_COMMAND, want);
}
/* Maps a memory BAR for register access. -EINVAL for I/O, absent or unassigned BARs. */
int pci_map_bar(struct pci_device *pdev, unsigned bar, struct mmio *m);

/* The first driver matching vendor:device: of `table` when given, else of the linked-in drivers
 * in table order. */
const struct pci_driver *pci_match_driver(const struct pci_driver *const *table, size_t n,
					  const struct pci_device *pdev,
					  const struct pci_device_id **id);
/* Binds linked-in drivers to found devices; returns how many probed successfully. */
int pci_probe_drivers(void);
/* Unbinds every driver (each quiesces its device) and returns how many devices could not be
 * stopped (dma_not_stopped): bus mastering is cleared on those as a last resort, but only a
 * reset is proof, so a caller about to start an OS must refuse when this is not 0. */
int pci_remove_drivers(void);

/* "bb:dd.f vvvv:dddd class cccccc" + BAR lines, as the banner and the `pci` command print. */
void pci_print_device(const struct pci_device *pdev);
/* kprintf with "pci BB:DD.F: " in front. */
void pci_say(uint32_t bdf, const char *fmt, ...) __printf(2, 3);
const char *pci_class_name(uint32_t class_code);

#endif

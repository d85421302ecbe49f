/* SPDX-License-Identifier: MIT */
/* PCI enumeration, BAR sizing and the driver table (see pci.h). */
#include <ibboot/pci.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>

static struct pci_device *device_list;

struct pci_device *pci_devices(void)
{
	return device_list;
}

void pci_free_devices(void)
{
	pci_remove_drivers();
	while (device_list) {
		struct pci_device *d = device_list;

		device_list = d->next;
		kfree(d);
	}
}

struct pci_device *pci_find(uint16_t vendor, uint16_t device)
{
	for (struct pci_device *d = device_list; d; d = d->next)
		if (d->vendor == vendor && d->device == device)
			return d;
	return NULL;
}

/*
 * BAR sizing (PCI Local Bus 3.0, 6.2.5.1): write all-ones, read back which address bits stick,
 * restore. Decoding is off meanwhile so the half-written BAR never claims cycles. A 64-bit memory
 * BAR takes the next slot for its upper half.
 */
static uint32_t probe_dword(uint32_t bdf, unsigned off, uint32_t *orig)
{
	uint32_t mask;

	*orig = plat_pci_read(bdf, off, 4);
	plat_pci_write(bdf, off, 4, 0xffffffff);
	mask = plat_pci_read(bdf, off, 4);
	plat_pci_write(bdf, off, 4, *orig);
	return mask;
}

static int size_one_bar(uint32_t bdf, unsigned i, unsigned n_bars, struct pci_bar *bar)
{
	unsigned off = PCI_BAR0 + 4 * i;
	uint32_t orig, mask = probe_dword(bdf, off, &orig);
	uint64_t addr_mask;

	*bar = (struct pci_bar){ .kind = PCI_BAR_NONE };
	if (mask == 0 || mask == 0xffffffff)
		return 1;   /* not implemented (or no device answering) */

	if (orig & PCI_BAR_SPACE_IO) {
		addr_mask = mask & ~3u;
		/* Many I/O BARs decode only 16 bits and read the upper half as zero. */
		if (!(addr_mask & 0xffff0000))
			addr_mask |= 0xffff0000;
		bar->kind = PCI_BAR_IO;
		bar->addr = orig & ~3u;
		bar->size = (uint32_t)(~addr_mask + 1);
		return 1;
	}

	bar->prefetch = orig & PCI_BAR_PREFETCH;
	addr_mask = mask & ~0xfu;
	bar->addr = orig & ~0xfu;
	bar->kind = PCI_BAR_MEM32;
	if ((orig & PCI_BAR_MEM_TYPE) == PCI_BAR_MEM_64) {
		uint32_t orig_hi, mask_hi;

		if (i + 1 >= n_bars) {
			pci_say(bdf, "BAR%u: 64-bit, last BAR\n", i);
			*bar = (struct pci_bar){ .kind = PCI_BAR_NONE };
			return -EINVAL;
		}
		mask_hi = probe_dword(bdf, off + 4, &orig_hi);
		addr_mask |= (uint64_t)mask_hi << 32;
		bar->addr |= (uint64_t)orig_hi << 32;
		bar->kind = PCI_BAR_MEM64;
	} else {
		addr_mask |= 0xffffffff00000000ull;
	}
	bar->size = ~addr_mask + 1;
	if (addr_mask == 0 || !IS_POW2(bar->size)) {
		pci_say(bdf, "BAR%u mask %#llx: not a power of 2\n", i,
			(unsigned long long)addr_mask);
		*bar = (struct pci_bar){ .kind = PCI_BAR_NONE };
		return -EINVAL;
	}
	return bar->kind == PCI_BAR_MEM64 ? 2 : 1;
}

int pci_size_bars(uint32_t bdf, unsigned n_bars, struct pci_bar *bars)
{
	uint16_t cmd = (uint16_t)plat_pci_read(bdf, PCI_COMMAND, 2);
	int found = 0, err = 0;

	plat_pci_write(bdf, PCI_COMMAND, 2, cmd & ~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY));
	for (unsigned i = 0; i < n_bars && i < PCI_MAX_BARS;) {
		int step = size_one_bar(bdf, i, n_bars, &bars[i]);

		if (step < 0) {
			err = step;
			step = 1;
		}
		if (bars[i].kind != PCI_BAR_NONE)
			found++;
		if (step == 2)
			bars[i + 1] = (struct pci_bar){ .kind = PCI_BAR_NONE };
		i += (unsigned)step;
	}
	plat_pci_write(bdf, PCI_COMMAND, 2, cmd);
	return err ? err : found;
}

static struct pci_device *add_function(uint32_t bdf, uint32_t id)
{
	struct pci_device *d = kzalloc(sizeof(*d));
	uint32_t class_rev = plat_pci_read(bdf, PCI_CLASS_REVISION, 4);

	if (!d)
		return NULL;
	d->bdf = bdf;
	d->vendor = id & 0xffff;
	d->device = id >> 16;
	d->class_code = class_rev >> 8;
	d->revision = class_rev & 0xff;
	d->header_type = plat_pci_read(bdf, PCI_HEADER_TYPE, 1) & 0x7f;
	/* Type 0 headers have six BARs, bridges two, CardBus none that we size. */
	unsigned n_bars = d->header_type == PCI_HEADER_NORMAL ? 6 :
			  d->header_type == PCI_HEADER_BRIDGE ? 2 : 0;
	pci_size_bars(bdf, n_bars, d->bar);

	/* Keep the list in scan order. */
	struct pci_device **tail = &device_list;
	while (*tail)
		tail = &(*tail)->next;
	*tail = d;
	return d;
}

/* Buses already walked, so a misconfigured bridge cannot make the scan loop. */
static uint8_t bus_seen[256 / 8];

static int scan_bus(unsigned bus, unsigned depth)
{
	int count = 0;

	if (bus_seen[bus / 8] & (1u << (bus % 8)) || depth > 32)
		return 0;
	bus_seen[bus / 8] |= 1u << (bus % 8);

	for (unsigned dev = 0; dev < 32; dev++) {
		for (unsigned fn = 0; fn < 8; fn++) {
			uint32_t bdf = PCI_BDF(bus, dev, fn);
			uint32_t id = plat_pci_read(bdf, PCI_VENDOR_ID, 4);

			if ((id & 0xffff) == 0xffff || (id & 0xffff) == 0) {
				if (fn == 0)
					break;   /* no function 0: no device */
				continue;
			}
			uint8_t hdr = (uint8_t)plat_pci_read(bdf, PCI_HEADER_TYPE, 1);
			struct pci_device *d = add_function(bdf, id);

			if (!d)
				return -ENOMEM;
			count++;
			if (d->header_type == PCI_HEADER_BRIDGE) {
				unsigned sec = plat_pci_read(bdf, PCI_SECONDARY_BUS, 1);

				/* Firmware numbered the buses; an unconfigured bridge (secondary 0)
				 * has nothing we can reach without renumbering. */
				if (sec > bus) {
					int n = scan_bus(sec, depth + 1);
					if (n < 0)
						return n;
					count += n;
				}
			}
			if (fn == 0 && !(hdr & PCI_HEADER_MULTIFUNCTION))
				break;
		}
	}
	return count;
}

int pci_scan(void)
{
	int total = 0;

	pci_free_devices();
	for (unsigned i = 0; i < sizeof(bus_seen); i++)
		bus_seen[i] = 0;
	/* Bus 0 and everything behind its bridges first; then every other bus number, because
	 * machines with several host bridges (multi-socket servers) have root buses such as 0x80
	 * that no bridge leads to. */
	for (unsigned bus = 0; bus < 256; bus++) {
		int n = scan_bus(bus, 0);

		if (n < 0) {
			kprintf("pci: scan stopped: %s\n", ib_strerror(n));
			return n;
		}
		total += n;
	}
	return total;
}

void pci_enable_device(struct pci_device *pdev)
{
	uint16_t cmd = pci_read16(pdev, PCI_COMMAND);

	cmd |= PCI_COMMAND_MASTER;
	for (unsigned i = 0; i < PCI_MAX_BARS; i++) {
		if (pdev->bar[i].kind == PCI_BAR_IO)
			cmd |= PCI_COMMAND_IO;
		else if (pdev->bar[i].kind != PCI_BAR_NONE)
			cmd |= PCI_COMMAND_MEMORY;
	}
	pci_write16(pdev, PCI_COMMAND, cmd);
}

int pci_map_bar(struct pci_device *pdev, unsigned bar, struct mmio *m)
{
	const struct pci_bar *b;

	if (bar >= PCI_MAX_BARS)
		return -EINVAL;
	b = &pdev->bar[bar];
	if (b->kind != PCI_BAR_MEM32 && b->kind != PCI_BAR_MEM64) {
		pci_say(pdev->bdf, "BAR%u not memory\n", bar);
		return -EINVAL;
	}
	if (b->addr == 0) {
		pci_say(pdev->bdf, "BAR%u unassigned\n", bar);
		return -EINVAL;
	}
	int rc = plat_mmio_map(pdev->bdf, bar, b->addr, b->size, m);
	if (rc)
		pci_say(pdev->bdf, "cannot map BAR%u %#llx+%#llx: %s\n", bar,
			(unsigned long long)b->addr, (unsigned long long)b->size, ib_strerror(rc));
	return rc;
}

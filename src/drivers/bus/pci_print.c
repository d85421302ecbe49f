/* SPDX-License-Identifier: MIT */
/* Human-readable PCI listings for the banner and the `pci` command. */
#include <ibboot/pci.h>
#include <ibboot/console.h>

const char *pci_class_name(uint32_t class_code)
{
	static const char *const base_names[] = {
		"unclassified", "storage", "network", "display", "multimedia", "memory",
		"bridge", "communication", "system", "input", "docking", "processor",
		"serial bus", "wireless", "intelligent I/O", "satellite", "crypto",
		"signal processing",
	};
	unsigned base = class_code >> 16;

	if (class_code >> 8 == 0x0207)
		return "InfiniBand";
	return base < ARRAY_SIZE(base_names) ? base_names[base] : "other";
}

static void print_size(uint64_t size)
{
	if (size >= GiB(1) && size % GiB(1) == 0)
		kprintf("%llu GiB", (unsigned long long)(size >> 30));
	else if (size >= MiB(1) && size % MiB(1) == 0)
		kprintf("%llu MiB", (unsigned long long)(size >> 20));
	else if (size >= KiB(1) && size % KiB(1) == 0)
		kprintf("%llu KiB", (unsigned long long)(size >> 10));
	else
		kprintf("%llu B", (unsigned long long)size);
}

void pci_print_device(const struct pci_device *d)
{
	kprintf("%02x:%02x.%x %04x:%04x class %06x (%s)%s%s\n", PCI_BUS(d->bdf), PCI_DEV(d->bdf),
		PCI_FN(d->bdf), d->vendor, d->device, d->class_code, pci_class_name(d->class_code),
		d->driver ? " driver " : "", d->driver ? d->driver->name : "");
	for (unsigned i = 0; i < PCI_MAX_BARS; i++) {
		const struct pci_bar *b = &d->bar[i];
		static const char *const kinds[] = { "", "io", "mem32", "mem64" };

		if (b->kind == PCI_BAR_NONE)
			continue;
		kprintf("    BAR%u %-5s %#llx size ", i, kinds[b->kind], (unsigned long long)b->addr);
		print_size(b->size);
		kprintf("%s%s\n", b->prefetch ? " prefetchable" : "",
			b->addr ? "" : " (unassigned)");
	}
}

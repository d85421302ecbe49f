/* SPDX-License-Identifier: MIT */
/* Human-readable PCI listings for the banner and the `pci` command. */
#include <ibboot/pci.h>
#include <ibboot/console.h>
#include <ibboot/string.h>

const char *pci_class_name(uint32_t class_code)
{
	/* PCI Code and ID Assignment spec, base classes 0x00..0x11, as one string (no pointers). */
	static const char names[] =
		"unclassified\0storage\0network\0display\0multimedia\0memory\0bridge\0"
		"communication\0system\0input\0docking\0processor\0serial bus\0wireless\0"
		"I2O\0satellite\0crypto\0signal processing";
	unsigned base = class_code >> 16;
	const char *n = names;

	if (class_code >> 8 == 0x0207)
		return "InfiniBand";
	if (base > 0x11)
		return "other";
	while (base--)
		n += strlen(n) + 1;
	return n;
}

static void print_size(uint64_t size)
{
	for (unsigned shift = 30; shift; shift -= 10)
		if (size >= 1ull << shift && !(size & ((1ull << shift) - 1))) {
			kprintf("%llu %ciB", (unsigned long long)(size >> shift), "KMG"[shift / 10 - 1]);
			return;
		}
	kprintf("%llu B", (unsigned long long)size);
}

void pci_print_device(const struct pci_device *d)
{
	kprintf("%02x:%02x.%x %04x:%04x class %06x (%s)%s%s\n", PCI_BUS(d->bdf), PCI_DEV(d->bdf),
		PCI_FN(d->bdf), d->vendor, d->device, d->class_code, pci_class_name(d->class_code),
		d->driver ? " driver " : "", d->driver ? d->driver->name : "");
	for (unsigned i = 0; i < PCI_MAX_BARS; i++) {
		const struct pci_bar *b = &d->bar[i];

		if (b->kind == PCI_BAR_NONE)
			continue;
		kprintf("    BAR%u %-5s %#llx size ", i, str_nth("\0io\0mem32\0mem64", b->kind), (unsigned long long)b->addr);
		print_size(b->size);
		kprintf("%s%s\n", b->prefetch ? " prefetchable" : "",
			b->addr ? "" : " (unassigned)");
	}
}

void pci_say(uint32_t bdf, const char *fmt, ...)
{
	va_list ap;

	kprintf("pci %02x:%02x.%x: ", PCI_BUS(bdf), PCI_DEV(bdf), PCI_FN(bdf));
	va_start(ap, fmt);
	kvprintf(fmt, ap);
	va_end(ap);
}

/* SPDX-License-Identifier: MIT */
/* PCI commands: pci (what the start-up scan found), mmio (one register of a BAR). */
#include <ibboot/shell.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/hex.h>
#include <ibboot/mmio.h>
#include <ibboot/pci.h>
#include <ibboot/string.h>

/* Lists what the start-up scan found; it never rescans, since a rescan would unbind drivers. */
static int cmd_pci(int argc __unused, char **argv __unused)
{
	int n = 0;

	for (struct pci_device *d = pci_devices(); d; d = d->next, n++)
		pci_print_device(d);
	kprintf("%d PCI functions\n", n);
	return 0;
}
SHELL_COMMAND(pci, CMD_ORDER_PCI, "PCI functions, BARs, drivers", cmd_pci);

static bool parse_num(const char *s, uint64_t *v)
{
	return shell_parse_num(s, UINT64_MAX, v);
}

/* "bb:dd.f" in hex, as the PCI listing prints it. */
static bool parse_bdf(const char *s, uint32_t *bdf)
{
	static const uint8_t at[5] = { 0, 1, 3, 4, 6 };
	int d[5];

	if (strlen(s) != 7 || s[2] != ':' || s[5] != '.')
		return false;
	for (int i = 0; i < 5; i++)
		if ((d[i] = hex_digit(s[at[i]])) < 0)
			return false;
	if (d[2] * 16 + d[3] > 31 || d[4] > 7)
		return false;
	*bdf = PCI_BDF(d[0] * 16 + d[1], d[2] * 16 + d[3], d[4]);
	return true;
}

static int cmd_mmio(int argc, char **argv)
{
	uint32_t bdf;
	uint64_t bar, off = 0, val = 0;
	struct pci_device *d;
	struct mmio m;

	if (argc < 3 || argc > 5 || !parse_bdf(argv[1], &bdf) || !parse_num(argv[2], &bar) ||
	    (argc > 3 && !parse_num(argv[3], &off)) || (argc > 4 && !parse_num(argv[4], &val))) {
		return shell_usage(argv[0]);
	}
	for (d = pci_devices(); d && d->bdf != bdf; d = d->next)
		;
	if (!d) {
		kprintf("mmio: no PCI function %s\n", argv[1]);
		return -ENODEV;
	}
	int rc = pci_map_bar(d, (unsigned)bar, &m);
	if (rc)
		return rc;
	if (argc > 4)
		writel(&m, off, (uint32_t)val);
	kprintf("mmio %s BAR%u at %#llx +%#llx: %#010x\n", argv[1], (unsigned)bar,
		(unsigned long long)m.phys, (unsigned long long)off, readl(&m, off));
	return 0;
}
SHELL_COMMAND(mmio, CMD_ORDER_PCI,
	      "BB:DD.F BAR [OFF [VAL]]: read/write a BAR dword", cmd_mmio);

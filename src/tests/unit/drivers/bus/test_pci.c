/* SPDX-License-Identifier: MIT */
/* PCI enumeration and BAR sizing on software config spaces, the driver table, MMIO accessors. */
#include "test.h"
#include <ibboot/pci.h>
#include <ibboot/hosted.h>
#include <ibboot/mmio.h>
#include <ibboot/errno.h>

/* A soft_cfg with two hardware quirks to exercise: I/O BARs that decode only 16 bits, and a record
 * of whether a BAR was probed while the device was decoding (which real hardware punishes). */
struct fake_fn {
	struct soft_cfg cfg;
	bool io16;
	bool probed_while_decoding;
	unsigned bar_writes;
};

static uint32_t fake_read(void *ctx, unsigned off, unsigned size)
{
	struct fake_fn *f = ctx;
	uint32_t v = soft_cfg_read(&f->cfg, off, size);

	if (f->io16 && size == 4 && off >= PCI_BAR0 && off < PCI_BAR0 + 24 && (v & 1))
		v &= 0xffff;
	return v;
}

static void fake_write(void *ctx, unsigned off, uint32_t val, unsigned size)
{
	struct fake_fn *f = ctx;

	if (off >= PCI_BAR0 && off < PCI_BAR0 + 24) {
		f->bar_writes++;
		if (val == 0xffffffff && (soft_cfg_read(&f->cfg, PCI_COMMAND, 2) & 3))
			f->probed_while_decoding = true;
	}
	soft_cfg_write(&f->cfg, off, val, size);
}

static const struct soft_pci_ops fake_ops = { .cfg_read = fake_read, .cfg_write = fake_write };

static void reset_bus(void)
{
	pci_free_devices();
	soft_pci_unregister_all();
}

TEST(pci_bar_sizing_kinds)
{
	static struct fake_fn f;

	reset_bus();
	soft_cfg_init(&f.cfg, 0x15b3, 0x1003, 0x020700, PCI_HEADER_NORMAL);
	soft_cfg_set_bar(&f.cfg, 0, 0, 16 * 1024, 0xfe000000);
	soft_cfg_set_bar(&f.cfg, 1, PCI_BAR_SPACE_IO, 256, 0xc000);
	soft_cfg_set_bar(&f.cfg, 2, PCI_BAR_MEM_64 | PCI_BAR_PREFETCH, 8ull << 30, 0x4000000000ull);
	soft_cfg_set_bar(&f.cfg, 4, PCI_BAR_PREFETCH, 1 << 20, 0);   /* unassigned: gets one */
	CHECK_EQ(soft_pci_register(PCI_BDF(0, 4, 0), &fake_ops, &f), 0);
	/* Decoding on, as firmware leaves a device it configured. */
	f.cfg.bytes[PCI_COMMAND] = PCI_COMMAND_MEMORY | PCI_COMMAND_IO;
	f.bar_writes = 0;

	CHECK_EQ(pci_scan(), 1);
	struct pci_device *d = pci_find(0x15b3, 0x1003);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_EQ(d->class_code, 0x020700);
	CHECK_EQ(d->bar[0].kind, PCI_BAR_MEM32);
	CHECK_EQ(d->bar[0].size, 16 * 1024);
	CHECK_EQ(d->bar[0].addr, 0xfe000000);
	CHECK(!d->bar[0].prefetch);
	CHECK_EQ(d->bar[1].kind, PCI_BAR_IO);
	CHECK_EQ(d->bar[1].size, 256);
	CHECK_EQ(d->bar[1].addr, 0xc000);
	CHECK_EQ(d->bar[2].kind, PCI_BAR_MEM64);
	CHECK_EQ(d->bar[2].size, 8ull << 30);
	CHECK_EQ(d->bar[2].addr, 0x4000000000ull);
	CHECK(d->bar[2].prefetch);
	CHECK_EQ(d->bar[3].kind, PCI_BAR_NONE);   /* upper half of BAR2 */
	CHECK_EQ(d->bar[4].kind, PCI_BAR_MEM32);
	CHECK_EQ(d->bar[4].size, 1 << 20);
	CHECK(d->bar[4].addr != 0 && d->bar[4].addr % (1 << 20) == 0);
	CHECK_EQ(d->bar[5].kind, PCI_BAR_NONE);

	/* Sizing put every BAR and the command register back, and never probed while decoding. */
	CHECK_EQ(soft_cfg_read(&f.cfg, PCI_BAR0, 4), 0xfe000000);
	CHECK_EQ(soft_cfg_read(&f.cfg, PCI_BAR0 + 4, 4), 0xc001);
	CHECK_EQ(soft_cfg_read(&f.cfg, PCI_BAR0 + 8, 4), 0x0000000c);
	CHECK_EQ(soft_cfg_read(&f.cfg, PCI_BAR0 + 12, 4), 0x40);
	CHECK_EQ(soft_cfg_read(&f.cfg, PCI_COMMAND, 2), PCI_COMMAND_MEMORY | PCI_COMMAND_IO);
	CHECK(f.bar_writes > 0);
	CHECK(!f.probed_while_decoding);
	reset_bus();
}

TEST(pci_bar_sizing_io16_and_small)
{
	static struct fake_fn f;
	struct pci_bar bars[6];

	reset_bus();
	soft_cfg_init(&f.cfg, 0x8086, 0x100e, 0x020000, PCI_HEADER_NORMAL);
	f.io16 = true;
	soft_cfg_set_bar(&f.cfg, 0, 0, 128 * 1024, 0xfeb80000);
	soft_cfg_set_bar(&f.cfg, 1, PCI_BAR_SPACE_IO, 64, 0xc040);
	soft_cfg_set_bar(&f.cfg, 3, 0, 16, 0xfebd0010);   /* smallest memory BAR there is */
	CHECK_EQ(soft_pci_register(PCI_BDF(0, 3, 0), &fake_ops, &f), 0);
	CHECK_EQ(pci_size_bars(PCI_BDF(0, 3, 0), 6, bars), 3);
	CHECK_EQ(bars[1].kind, PCI_BAR_IO);
	CHECK_EQ(bars[1].size, 64);
	CHECK_EQ(bars[1].addr, 0xc040);
	CHECK_EQ(bars[3].size, 16);
	CHECK_EQ(bars[3].addr, 0xfebd0010);
	CHECK_EQ(bars[2].kind, PCI_BAR_NONE);
	reset_bus();
}

TEST(pci_bar_sizing_rejects_impossible)
{
	static struct fake_fn f;
	struct pci_bar bars[6];

	reset_bus();
	soft_cfg_init(&f.cfg, 0x1111, 0x2222, 0xff0000, PCI_HEADER_NORMAL);
	/* A 64-bit BAR in the last slot has no upper half. */
	f.cfg.bar_size[5] = 4096;
	f.cfg.bytes[PCI_BAR0 + 20] = PCI_BAR_MEM_64;
	CHECK_EQ(soft_pci_register(PCI_BDF(0, 5, 0), &fake_ops, &f), 0);
	CHECK_EQ(pci_size_bars(PCI_BDF(0, 5, 0), 6, bars), -EINVAL);
	CHECK_EQ(bars[5].kind, PCI_BAR_NONE);
	/* No device at all: nothing found, nothing invented. */
	CHECK_EQ(pci_size_bars(PCI_BDF(7, 0, 0), 6, bars), 0);
	reset_bus();
}

TEST(pci_enumerates_behind_bridges)
{
	static struct fake_fn br, a, mf0, mf2, hidden, loop, alias;

	reset_bus();
	soft_cfg_init(&br.cfg, 0x1b36, 0x0001, 0x060400, PCI_HEADER_BRIDGE);
	br.cfg.bytes[PCI_SECONDARY_BUS] = 2;
	br.cfg.bytes[PCI_SUBORDINATE_BUS] = 2;
	soft_cfg_init(&a.cfg, 0xaaaa, 0x0001, 0x020000, PCI_HEADER_NORMAL);
	soft_cfg_init(&mf0.cfg, 0xbbbb, 0x0010, 0x010000, PCI_HEADER_NORMAL | PCI_HEADER_MULTIFUNCTION);
	soft_cfg_init(&mf2.cfg, 0xbbbb, 0x0012, 0x010000, PCI_HEADER_NORMAL);
	soft_cfg_init(&hidden.cfg, 0xdddd, 0x0001, 0x020000, PCI_HEADER_NORMAL);
	/* A bridge on bus 2 pointing back at bus 2 must not make the scan loop. */
	soft_cfg_init(&loop.cfg, 0x1b36, 0x0001, 0x060400, PCI_HEADER_BRIDGE);
	loop.cfg.bytes[PCI_SECONDARY_BUS] = 2;
	CHECK_EQ(soft_pci_register(PCI_BDF(0, 1, 0), &fake_ops, &br), 0);
	CHECK_EQ(soft_pci_register(PCI_BDF(2, 5, 0), &fake_ops, &a), 0);
	CHECK_EQ(soft_pci_register(PCI_BDF(2, 6, 0), &fake_ops, &mf0), 0);
	CHECK_EQ(soft_pci_register(PCI_BDF(2, 6, 2), &fake_ops, &mf2), 0);
	CHECK_EQ(soft_pci_register(PCI_BDF(2, 7, 0), &fake_ops, &loop), 0);
	/* Function 1 of a single-function device is not looked at (it may alias function 0). */
	soft_cfg_init(&alias.cfg, 0xeeee, 0x0001, 0x020000, PCI_HEADER_NORMAL);
	CHECK_EQ(soft_pci_register(PCI_BDF(2, 5, 1), &fake_ops, &alias), 0);
	/* No bridge leads to bus 0x80: a second root bus, as on a two-socket server. */
	CHECK_EQ(soft_pci_register(PCI_BDF(0x80, 0, 0), &fake_ops, &hidden), 0);
	CHECK_EQ(soft_pci_register(PCI_BDF(0, 1, 0), &fake_ops, &a), -EEXIST);

	CHECK_EQ(pci_scan(), 6);
	const uint32_t expect[6] = { PCI_BDF(0, 1, 0), PCI_BDF(2, 5, 0), PCI_BDF(2, 6, 0),
				     PCI_BDF(2, 6, 2), PCI_BDF(2, 7, 0), PCI_BDF(0x80, 0, 0) };
	int i = 0;
	for (struct pci_device *d = pci_devices(); d && i < 6; d = d->next, i++)
		CHECK_EQ(d->bdf, expect[i]);
	CHECK_EQ(i, 6);
	CHECK(pci_find(0xdddd, 0x0001) != NULL);
	CHECK(pci_find(0xeeee, 0x0001) == NULL);
	CHECK(pci_find(0xbbbb, 0x0012) != NULL);
	reset_bus();
}

static int probes, removes;

static int test_probe(struct pci_device *pdev, const struct pci_device_id *id)
{
	probes++;
	pdev->priv = (void *)id->name;
	return 0;
}

static bool remove_fails_to_stop;

static void test_remove(struct pci_device *pdev)
{
	removes++;
	pdev->dma_not_stopped = remove_fails_to_stop;   /* as a driver whose reset failed */
}

static const struct pci_device_id test_ids[] = {
	{ 0x15b3, 0x1003, "ConnectX-3" },
	{ FAKEDEV_VENDOR, FAKEDEV_DEVICE, "ibboot test device" },
};
static const struct pci_driver test_driver = {
	.name = "unit-test", .ids = test_ids, .n_ids = 2, .probe = test_probe, .remove = test_remove,
};
PCI_DRIVER(test_driver);

TEST(pci_driver_table_matches_and_binds)
{
	const struct pci_device_id *id = NULL;
	struct pci_device d = { .vendor = 0x15b3, .device = 0x1003 };
	const struct pci_driver *table[] = { &test_driver };

	CHECK(pci_match_driver(table, 1, &d, &id) == &test_driver);
	CHECK(id == &test_ids[0]);
	d.device = 0x1004;
	CHECK(pci_match_driver(table, 1, &d, &id) == NULL);

	/* Through the link-time table: the fake device gets the driver, enabled for DMA. */
	reset_bus();
	probes = removes = 0;
	CHECK_EQ(fakedev_register(PCI_BDF(0, 2, 0)), 0);
	CHECK_EQ(pci_scan(), 1);
	CHECK_EQ(pci_probe_drivers(), 1);
	CHECK_EQ(probes, 1);
	struct pci_device *fd = pci_find(FAKEDEV_VENDOR, FAKEDEV_DEVICE);
	CHECK(fd && fd->driver == &test_driver);
	if (fd) {
		uint16_t cmd = pci_read16(fd, PCI_COMMAND);
		CHECK(cmd & PCI_COMMAND_MASTER);
		CHECK(cmd & PCI_COMMAND_MEMORY);
		CHECK(cmd & PCI_COMMAND_IO);   /* it has an I/O BAR */
	}
	CHECK_EQ(pci_probe_drivers(), 0);   /* already bound: not probed twice */
	reset_bus();
	CHECK_EQ(removes, 1);
}

/* A driver that could not stop its device: pci_remove_drivers says so (the handoff refuses on
 * it) and clears bus mastering as a last resort; one that could, is not reported. */
TEST(pci_remove_reports_devices_that_could_not_be_stopped)
{
	reset_bus();
	CHECK_EQ(fakedev_register(PCI_BDF(0, 2, 0)), 0);
	CHECK_EQ(pci_scan(), 1);
	CHECK_EQ(pci_probe_drivers(), 1);
	struct pci_device *fd = pci_find(FAKEDEV_VENDOR, FAKEDEV_DEVICE);

	CHECK(fd != NULL);
	if (!fd)
		return;
	CHECK(pci_read16(fd, PCI_COMMAND) & PCI_COMMAND_MASTER);
	remove_fails_to_stop = false;
	CHECK_EQ(pci_remove_drivers(), 0);
	CHECK(fd->driver == NULL);

	CHECK_EQ(pci_probe_drivers(), 1);
	remove_fails_to_stop = true;
	CHECK_EQ(pci_remove_drivers(), 1);
	remove_fails_to_stop = false;
	CHECK(!(pci_read16(fd, PCI_COMMAND) & PCI_COMMAND_MASTER));
	CHECK(pci_read16(fd, PCI_COMMAND) & PCI_COMMAND_MEMORY);   /* decoding stays */
	reset_bus();
}

TEST(pci_mmio_accessors_byte_order_and_bounds)
{
	struct mmio m0, m2, mio;

	reset_bus();
	CHECK_EQ(fakedev_register(PCI_BDF(0, 2, 0)), 0);
	CHECK_EQ(pci_scan(), 1);
	struct pci_device *d = pci_find(FAKEDEV_VENDOR, FAKEDEV_DEVICE);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_EQ(d->bar[2].kind, PCI_BAR_MEM64);
	CHECK(d->bar[2].addr >= (1ull << 32));   /* 64-bit BARs were placed above 4 GiB */
	CHECK_EQ(pci_map_bar(d, 0, &m0), 0);
	CHECK_EQ(pci_map_bar(d, 2, &m2), 0);
	CHECK_EQ(pci_map_bar(d, 4, &mio), -EINVAL);   /* I/O BAR */
	CHECK_EQ(pci_map_bar(d, 1, &mio), -EINVAL);   /* absent */

	/* The ID register holds bytes 01 00 1b 1b on the bus. */
	CHECK_EQ(readl(&m0, 0), FAKEDEV_ID_VALUE);
	CHECK_EQ(readl_be(&m0, 0), __builtin_bswap32(FAKEDEV_ID_VALUE));
	CHECK_EQ(readb(&m0, 0), 0x01);
	CHECK_EQ(readb(&m0, 3), 0x1b);
	writel_be(&m0, 4, 0x11223344);
	CHECK_EQ(readb(&m0, 4), 0x11);   /* big-endian: most significant byte first on the bus */
	CHECK_EQ(readl(&m0, 4), 0x44332211);
	CHECK_EQ(readl_be(&m0, 4), 0x11223344);

	writeq_be(&m2, 0x100, 0x0102030405060708ull);
	CHECK_EQ(readb(&m2, 0x100), 0x01);
	CHECK_EQ(readb(&m2, 0x107), 0x08);
	CHECK_EQ(readq(&m2, 0x100), 0x0807060504030201ull);
	writew(&m2, 0x200, 0xabcd);
	CHECK_EQ(readw_be(&m2, 0x200), 0xcdab);

	/* Outside the window or misaligned: refused, reads float to all-ones, nothing written. */
	CHECK_EQ(readl(&m2, m2.size), 0xffffffffu);
	CHECK_EQ(readl(&m2, 0x102), 0xffffffffu);
	writel(&m2, m2.size - 2, 0);
	CHECK_EQ(readq(&m2, 0x100), 0x0807060504030201ull);
	reset_bus();
}

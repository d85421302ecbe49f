/* SPDX-License-Identifier: MIT */
/*
 * A tiny software PCI device so the hosted build has something on its bus: an ID register and a
 * scratch register in BAR0, 64 KiB of plain memory behind a 64-bit prefetchable BAR2, and an I/O
 * BAR4. The IDs are made up for ibboot; no hardware carries them.
 */
#include <ibboot/hosted.h>
#include <ibboot/pci.h>

#include <stdlib.h>
#include <string.h>

#define FAKEDEV_BAR0_SIZE 4096
#define FAKEDEV_BAR2_SIZE (64 * 1024)

struct fakedev {
	struct soft_cfg cfg;
	uint32_t scratch;
	uint8_t mem[FAKEDEV_BAR2_SIZE];
};

static uint32_t fakedev_cfg_read(void *ctx, unsigned off, unsigned size)
{
	return soft_cfg_read(&((struct fakedev *)ctx)->cfg, off, size);
}

static void fakedev_cfg_write(void *ctx, unsigned off, uint32_t val, unsigned size)
{
	soft_cfg_write(&((struct fakedev *)ctx)->cfg, off, val, size);
}

static void fakedev_bar_read(void *ctx, unsigned bar, uint64_t off, void *data, unsigned size)
{
	struct fakedev *f = ctx;
	uint8_t regs[8] = { 0 };

	if (bar == 2 && off + size <= FAKEDEV_BAR2_SIZE) {
		memcpy(data, &f->mem[off], size);
		return;
	}
	if (bar == 0 && off + size <= sizeof(regs)) {
		uint32_t id = FAKEDEV_ID_VALUE;

		for (unsigned i = 0; i < 4; i++) {
			regs[i] = (uint8_t)(id >> (8 * i));
			regs[4 + i] = (uint8_t)(f->scratch >> (8 * i));
		}
		memcpy(data, &regs[off], size);
		return;
	}
	memset(data, 0, size);
}

static void fakedev_bar_write(void *ctx, unsigned bar, uint64_t off, const void *data, unsigned size)
{
	struct fakedev *f = ctx;

	if (bar == 2 && off + size <= FAKEDEV_BAR2_SIZE) {
		memcpy(&f->mem[off], data, size);
	} else if (bar == 0 && off == 4 && size == 4) {
		const uint8_t *b = data;

		f->scratch = b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
	}
}

static const struct soft_pci_ops fakedev_ops = {
	.cfg_read = fakedev_cfg_read,
	.cfg_write = fakedev_cfg_write,
	.bar_read = fakedev_bar_read,
	.bar_write = fakedev_bar_write,
};

int fakedev_register(uint32_t bdf)
{
	/* Lives as long as the process: the hosted bus has no hot-unplug. */
	static struct fakedev *dev;

	if (!dev && !(dev = calloc(1, sizeof(*dev))))
		return -1;
	soft_cfg_init(&dev->cfg, FAKEDEV_VENDOR, FAKEDEV_DEVICE, 0xff0000, PCI_HEADER_NORMAL);
	soft_cfg_set_bar(&dev->cfg, 0, 0, FAKEDEV_BAR0_SIZE, 0);
	soft_cfg_set_bar(&dev->cfg, 2, PCI_BAR_MEM_64 | PCI_BAR_PREFETCH, FAKEDEV_BAR2_SIZE, 0);
	soft_cfg_set_bar(&dev->cfg, 4, PCI_BAR_SPACE_IO, 32, 0);
	return soft_pci_register(bdf, &fakedev_ops, dev);
}

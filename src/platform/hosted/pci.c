/* SPDX-License-Identifier: MIT */
/* The hosted PCI "bus": a registry of software devices (see hosted.h). */
#include <ibboot/platform.h>
#include <ibboot/hosted.h>
#include <ibboot/mmio.h>
#include <ibboot/pci.h>
#include <ibboot/errno.h>

#define SOFT_PCI_MAX 32

struct soft_pci_slot {
	bool used;
	uint32_t bdf;
	const struct soft_pci_ops *ops;
	void *ctx;
};

static struct soft_pci_slot slots[SOFT_PCI_MAX];

/* Address windows handed out to unassigned BARs, as a BIOS would (64-bit BARs above 4 GiB). */
static uint64_t next_io = 0x1000, next_mem32 = 0xc0000000ull, next_mem64 = 0x8000000000ull;

static struct soft_pci_slot *find(uint32_t bdf)
{
	for (unsigned i = 0; i < SOFT_PCI_MAX; i++)
		if (slots[i].used && slots[i].bdf == bdf)
			return &slots[i];
	return NULL;
}

static uint64_t take(uint64_t *next, uint64_t size)
{
	uint64_t addr = ALIGN_UP(*next, size);

	*next = addr + size;
	return addr;
}

/* Gives every implemented, unassigned BAR of a type-0 function an address. */
static void assign_bars(struct soft_pci_slot *s)
{
	if ((s->ops->cfg_read(s->ctx, PCI_HEADER_TYPE, 1) & 0x7f) != PCI_HEADER_NORMAL)
		return;
	for (unsigned i = 0; i < PCI_MAX_BARS; i++) {
		unsigned off = PCI_BAR0 + 4 * i;
		uint32_t orig = s->ops->cfg_read(s->ctx, off, 4);
		bool is64 = !(orig & PCI_BAR_SPACE_IO) && (orig & PCI_BAR_MEM_TYPE) == PCI_BAR_MEM_64;
		uint32_t orig_hi = is64 && i < 5 ? s->ops->cfg_read(s->ctx, off + 4, 4) : 0;
		uint64_t mask;

		s->ops->cfg_write(s->ctx, off, 0xffffffff, 4);
		mask = s->ops->cfg_read(s->ctx, off, 4);
		if (is64 && i < 5) {
			s->ops->cfg_write(s->ctx, off + 4, 0xffffffff, 4);
			mask |= (uint64_t)s->ops->cfg_read(s->ctx, off + 4, 4) << 32;
		} else {
			mask |= (orig & PCI_BAR_SPACE_IO) ? 0xffffffffffff0000ull : 0xffffffff00000000ull;
		}
		mask &= (orig & PCI_BAR_SPACE_IO) ? ~3ull : ~0xfull;
		uint64_t size = ~mask + 1, addr = ((uint64_t)orig_hi << 32) | (orig & (uint32_t)mask);

		if ((mask & 0xffffffffull) == 0 || !IS_POW2(size)) {
			s->ops->cfg_write(s->ctx, off, orig, 4);
		} else {
			if (addr == 0)
				addr = take((orig & PCI_BAR_SPACE_IO) ? &next_io :
					    is64 ? &next_mem64 : &next_mem32, size);
			s->ops->cfg_write(s->ctx, off, (uint32_t)addr | (orig & ((orig & 1) ? 3 : 0xf)), 4);
		}
		if (is64 && i < 5) {
			s->ops->cfg_write(s->ctx, off + 4, (uint32_t)(addr >> 32), 4);
			i++;
		}
	}
}

int soft_pci_register(uint32_t bdf, const struct soft_pci_ops *ops, void *ctx)
{
	if (!ops || !ops->cfg_read || !ops->cfg_write || bdf > 0xffff)
		return -EINVAL;
	if (find(bdf))
		return -EEXIST;
	for (unsigned i = 0; i < SOFT_PCI_MAX; i++) {
		if (!slots[i].used) {
			slots[i] = (struct soft_pci_slot){ true, bdf, ops, ctx };
			assign_bars(&slots[i]);
			return 0;
		}
	}
	return -ENOSPC;
}

void soft_pci_unregister(uint32_t bdf)
{
	struct soft_pci_slot *s = find(bdf);

	if (s)
		*s = (struct soft_pci_slot){ 0 };
}

void soft_pci_unregister_all(void)
{
	for (unsigned i = 0; i < SOFT_PCI_MAX; i++)
		slots[i] = (struct soft_pci_slot){ 0 };
}

static bool cfg_access_ok(unsigned off, unsigned size)
{
	return (size == 1 || size == 2 || size == 4) && off % size == 0 && off + size <= 4096;
}

uint32_t plat_pci_read(uint32_t bdf, unsigned off, unsigned size)
{
	struct soft_pci_slot *s = find(bdf);
	uint32_t ones = size >= 4 ? 0xffffffffu : (1u << (8 * size)) - 1;

	if (!s || !cfg_access_ok(off, size))
		return ones;
	return s->ops->cfg_read(s->ctx, off, size) & ones;
}

void plat_pci_write(uint32_t bdf, unsigned off, unsigned size, uint32_t val)
{
	struct soft_pci_slot *s = find(bdf);

	if (s && cfg_access_ok(off, size))
		s->ops->cfg_write(s->ctx, off, val, size);
}

unsigned plat_pci_cfg_size(void)
{
	return 4096;
}

const char *plat_pci_cfg_method(void)
{
	return "software devices";
}

int plat_mmio_map(uint32_t bdf, unsigned bar, uint64_t phys, uint64_t size, struct mmio *m)
{
	struct soft_pci_slot *s = find(bdf);

	if (!s)
		return -ENODEV;
	if (!s->ops->bar_read || !s->ops->bar_write || bar >= PCI_MAX_BARS || size == 0)
		return -EINVAL;
	*m = (struct mmio){ .phys = phys, .size = size, .ctx = s, .bar = bar };
	return 0;
}

void plat_mmio_unmap(struct mmio *m)
{
	m->ctx = NULL;
	m->size = 0;
}

void plat_mmio_read(const struct mmio *m, uint64_t off, void *bytes, unsigned size)
{
	struct soft_pci_slot *s = m->ctx;

	if (s && s->used)
		s->ops->bar_read(s->ctx, m->bar, off, bytes, size);
	else
		__builtin_memset(bytes, 0xff, size);   /* device gone: reads float high */
}

void plat_mmio_write(const struct mmio *m, uint64_t off, const void *bytes, unsigned size)
{
	struct soft_pci_slot *s = m->ctx;

	if (s && s->used)
		s->ops->bar_write(s->ctx, m->bar, off, bytes, size);
}

static bool devices_busy;
static bool devices_polling;

int hosted_poll_devices(void)
{
	bool busy = false, any = false;

	/* A device callback that ends up reading the clock must not run the devices again. */
	if (devices_polling)
		return 1;
	devices_polling = true;
	for (unsigned i = 0; i < SOFT_PCI_MAX; i++)
		if (slots[i].used && slots[i].ops->poll) {
			any = true;
			busy |= slots[i].ops->poll(slots[i].ctx);
		}
	devices_polling = false;
	devices_busy = busy;
	return busy ? 1 : any ? 0 : -1;
}

void plat_poll(void)
{
	hosted_poll_devices();
}

bool hosted_devices_busy(void)
{
	return devices_busy;
}

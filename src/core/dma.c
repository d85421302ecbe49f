/* SPDX-License-Identifier: MIT */
/* The system's physical allocator over the platform's usable RAM, and kzalloc/kfree on top. */
#include <ibboot/dma.h>
#include <ibboot/physmem.h>
#include <ibboot/platform.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>

#define DMA_MAX_EXTENTS 512
#define DMA_MAX_REGIONS 64

static struct physmem_extent dma_extents[DMA_MAX_EXTENTS];
static struct physmem dma_pm;
static bool dma_ready;

int dma_init(void)
{
	struct plat_mem_region ram[DMA_MAX_REGIONS];
	unsigned n;

	if (dma_ready)
		return 0;
	physmem_init(&dma_pm, dma_extents, DMA_MAX_EXTENTS);
	n = plat_usable_ram(ram, DMA_MAX_REGIONS);
	for (unsigned i = 0; i < n; i++) {
		int rc = physmem_add(&dma_pm, ram[i].base, ram[i].len);

		if (rc)
			kprintf("memory: ignoring RAM %#llx+%#llx: %s\n",
				(unsigned long long)ram[i].base, (unsigned long long)ram[i].len,
				ib_strerror(rc));
	}
	dma_ready = true;
	return dma_pm.total ? 0 : -ENOMEM;
}

void *dma_alloc(size_t size, size_t align)
{
	uint64_t addr;

	dma_init();
	if (align == 0)
		align = 1;
	if (physmem_alloc(&dma_pm, size, align, &addr))
		return NULL;
	plat_mem_handout(plat_bus_to_virt(addr), size);
	return plat_bus_to_virt(addr);
}

void dma_free(void *p, size_t size)
{
	int rc;

	if (!p)
		return;
	rc = physmem_free(&dma_pm, plat_virt_to_bus(p), size);
	if (rc == 0)
		plat_mem_takeback(p, size);
	if (rc)
		kprintf("dma_free(%p, %zu): %s — double free or wrong size\n", p, size,
			ib_strerror(rc));
}

uint64_t virt_to_bus(const void *p)
{
	return plat_virt_to_bus(p);
}

void *bus_to_virt(uint64_t bus)
{
	return plat_bus_to_virt(bus);
}

/* kzalloc keeps the allocation size in a header just below the object. */
#define KZ_HEADER 16

void *kzalloc(size_t size)
{
	size_t total = size + KZ_HEADER;
	uint8_t *p;

	if (total < size)
		return NULL;
	p = dma_alloc(total, KZ_HEADER);
	if (!p)
		return NULL;
	memset(p, 0, total);
	*(size_t *)p = total;
	return p + KZ_HEADER;
}

void kfree(void *obj)
{
	uint8_t *p;

	if (!obj)
		return;
	p = (uint8_t *)obj - KZ_HEADER;
	dma_free(p, *(size_t *)p);
}

void dma_get_stats(struct dma_stats *st)
{
	dma_init();
	st->total = dma_pm.total;
	st->free = dma_pm.free;
	st->largest = physmem_largest(&dma_pm);
	st->extents = dma_pm.n;
}

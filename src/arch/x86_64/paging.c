/* SPDX-License-Identifier: MIT */
/*
 * Identity mapping. head.S maps the first GiB; everything else (RAM above it, PCI MMIO wherever
 * firmware put it, ECAM) is mapped here on demand with 2 MiB pages from a fixed pool of page-table
 * pages in .bss, since this runs before any allocator exists.
 */
#include <arch/x86.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>

#define PTE_PRESENT  0x001ull
#define PTE_WRITE    0x002ull
#define PTE_PWT      0x008ull
#define PTE_PCD      0x010ull
#define PTE_LARGE    0x080ull
#define PTE_ADDR     0x000ffffffffff000ull
#define PAGE_2M      0x200000ull
#define PT_POOL_PAGES 64   /* each page-directory page covers 1 GiB */

extern uint64_t boot_pml4[512];
static uint64_t pt_pool[PT_POOL_PAGES][512] __aligned(4096);
static unsigned pt_used;
static unsigned phys_bits = 36;

void paging_init(void)
{
	uint32_t a, b, c, d;

	cpuid(0x80000000, &a, &b, &c, &d);
	if (a >= 0x80000008) {
		cpuid(0x80000008, &a, &b, &c, &d);
		phys_bits = a & 0xff;
	}
	/* Identity mapping cannot reach beyond the canonical lower half (47 bits). */
	if (phys_bits > 47)
		phys_bits = 47;
}

unsigned paging_phys_bits(void)
{
	return phys_bits;
}

static uint64_t *next_level(uint64_t *table, unsigned idx)
{
	if (!(table[idx] & PTE_PRESENT)) {
		if (pt_used == PT_POOL_PAGES)
			return NULL;
		uint64_t *page = pt_pool[pt_used++];

		memset(page, 0, 4096);
		table[idx] = (uintptr_t)page | PTE_PRESENT | PTE_WRITE;
	}
	return (uint64_t *)(uintptr_t)(table[idx] & PTE_ADDR);
}

int paging_map(uint64_t phys, uint64_t len, bool uncached)
{
	uint64_t end;

	if (len == 0 || __builtin_add_overflow(phys, len, &end))
		return -EINVAL;
	if (end > (1ull << phys_bits))
		return -ERANGE;
	for (uint64_t a = ALIGN_DOWN(phys, PAGE_2M); a < end; a += PAGE_2M) {
		uint64_t *pdpt = next_level(boot_pml4, (a >> 39) & 511);
		uint64_t *pd = pdpt ? next_level(pdpt, (a >> 30) & 511) : NULL;

		if (!pd)
			return -ENOSPC;
		uint64_t *pde = &pd[(a >> 21) & 511];
		uint64_t want = a | PTE_PRESENT | PTE_WRITE | PTE_LARGE |
				(uncached ? PTE_PCD | PTE_PWT : 0);

		if (*pde == want || (!uncached && (*pde & PTE_PRESENT) && (*pde & PTE_PCD)))
			continue;
		*pde = want;
		invlpg(a);
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Identity mapping. head.S maps the first GiB; everything else (RAM above it, PCI MMIO wherever
 * firmware put it, ECAM) is mapped here on demand from a fixed pool of page-table pages in .bss,
 * since this runs before any allocator exists. 2 MiB pages, and 1 GiB pages for whole gigabytes
 * of RAM when the CPU has them (so the pool covers terabytes of RAM, not 63 GiB).
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
#define PAGE_1G      0x40000000ull
#define PT_POOL_PAGES 64   /* each page-directory page covers 1 GiB */

extern uint64_t boot_pml4[512];
static uint64_t pt_pool[PT_POOL_PAGES][512] __aligned(4096);
static unsigned pt_used;
static unsigned phys_bits = 36;
static bool have_1g_pages;

void paging_init(void)
{
	uint32_t a, b, c, d;

	cpuid(0x80000000, &a, &b, &c, &d);
	if (a >= 0x80000001) {
		cpuid(0x80000001, &a, &b, &c, &d);
		have_1g_pages = d & (1u << 26);   /* Page1GB */
		cpuid(0x80000000, &a, &b, &c, &d);
	}
	if (a >= 0x80000008) {
		cpuid(0x80000008, &a, &b, &c, &d);
		phys_bits = a & 0xff;
	}
	/* Identity mapping cannot reach beyond the canonical lower half (47 bits). */
	if (phys_bits > 47)
		phys_bits = 47;
}

void paging_stats(unsigned *tables_used, unsigned *tables_max, bool *huge)
{
	*tables_used = pt_used;
	*tables_max = PT_POOL_PAGES;
	*huge = have_1g_pages;
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

/* A whole gigabyte of RAM: one 1 GiB page if the CPU has them and nothing maps it yet. */
static bool map_1g(uint64_t *pdpt, uint64_t a)
{
	uint64_t *pdpte = &pdpt[(a >> 30) & 511];

	if (*pdpte & PTE_PRESENT)
		return (*pdpte & PTE_LARGE) != 0;
	*pdpte = a | PTE_PRESENT | PTE_WRITE | PTE_LARGE;
	invlpg(a);
	return true;
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

		if (!pdpt)
			return -ENOSPC;
		uint64_t pdpte = pdpt[(a >> 30) & 511];

		if ((pdpte & PTE_PRESENT) && (pdpte & PTE_LARGE)) {
			/* Only whole gigabytes of RAM get 1 GiB pages; MMIO never lives there. */
			if (uncached)
				return -EBUSY;
			a = ALIGN_DOWN(a, PAGE_1G) + PAGE_1G - PAGE_2M;
			continue;
		}
		if (!uncached && have_1g_pages && a % PAGE_1G == 0 && end - a >= PAGE_1G &&
		    a >= PAGE_1G && map_1g(pdpt, a)) {
			a += PAGE_1G - PAGE_2M;
			continue;
		}
		uint64_t *pd = next_level(pdpt, (a >> 30) & 511);

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

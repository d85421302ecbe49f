/* SPDX-License-Identifier: MIT */
/* The physical-extent allocator on made-up address ranges, then the system DMA allocator. */
#include "test.h"
#include <ibboot/physmem.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/hosted.h>
#include <ibboot/platform.h>

#define MB (1ull << 20)

static struct physmem_extent ext[64];

static void setup(struct physmem *pm, uint64_t base, uint64_t len)
{
	physmem_init(pm, ext, 64);
	CHECK_EQ(physmem_add(pm, base, len), 0);
}

TEST(alloc_alignment)
{
	struct physmem pm;
	uint64_t a;

	setup(&pm, 0x100040, 64 * MB);   /* deliberately not page-aligned */
	for (uint64_t align = 1; align <= 16 * MB; align <<= 1) {
		CHECK_EQ(physmem_alloc(&pm, 100, align, &a), 0);
		CHECK_EQ(a % (align < PHYSMEM_GRANULE ? PHYSMEM_GRANULE : align), 0);
		CHECK(a >= 0x100040 && a + 100 <= 0x100040 + 64 * MB);
	}
	/* A naturally aligned 4 MiB chunk (as ICM needs). */
	CHECK_EQ(physmem_alloc(&pm, 4 * MB, 4 * MB, &a), 0);
	CHECK_EQ(a % (4 * MB), 0);
	CHECK_EQ(physmem_alloc(&pm, 10, 3, &a), -EINVAL);   /* not a power of two */
	CHECK_EQ(physmem_alloc(&pm, 0, 64, &a), -EINVAL);
}

TEST(alloc_no_overlap)
{
	struct physmem pm;
	struct physmem_extent many[128];
	uint64_t got[64], size = 4096 + 64;

	/* Each allocation leaves an alignment gap behind it, so this needs a big table. */
	physmem_init(&pm, many, 128);
	CHECK_EQ(physmem_add(&pm, 0, MB), 0);
	for (int i = 0; i < 64; i++)
		CHECK_EQ(physmem_alloc(&pm, size, 4096, &got[i]), 0);
	for (int i = 0; i < 64; i++)
		for (int j = i + 1; j < 64; j++)
			CHECK(got[i] + size <= got[j] || got[j] + size <= got[i]);
}

TEST(alloc_exhaustion_leaves_state_intact)
{
	struct physmem pm;
	uint64_t a, b;

	setup(&pm, 0x10000, 0x10000);
	CHECK_EQ(physmem_alloc(&pm, 0x20000, 64, &a), -ENOMEM);
	CHECK_EQ(pm.free, 0x10000);
	CHECK_EQ(physmem_alloc(&pm, 0x10000, 64, &a), 0);   /* exactly all of it */
	CHECK_EQ(a, 0x10000);
	CHECK_EQ(pm.free, 0);
	CHECK_EQ(pm.n, 0);
	CHECK_EQ(physmem_alloc(&pm, 64, 64, &b), -ENOMEM);
	/* Alignment that no extent can meet. */
	CHECK_EQ(physmem_free(&pm, a, 0x10000), 0);
	CHECK_EQ(physmem_alloc(&pm, 64, 0x100000, &b), -ENOMEM);
	CHECK_EQ(pm.free, 0x10000);
}

TEST(alloc_free_coalesces)
{
	struct physmem pm;
	uint64_t a[8];

	setup(&pm, 0x200000, 8 * 0x1000);
	for (int i = 0; i < 8; i++)
		CHECK_EQ(physmem_alloc(&pm, 0x1000, 0x1000, &a[i]), 0);
	CHECK_EQ(pm.n, 0);
	/* Free in a scattered order; neighbours must merge back into one extent. */
	static const int order[8] = { 3, 6, 0, 7, 1, 5, 2, 4 };
	for (int i = 0; i < 8; i++)
		CHECK_EQ(physmem_free(&pm, a[order[i]], 0x1000), 0);
	CHECK_EQ(pm.n, 1);
	CHECK_EQ(pm.ext[0].base, 0x200000);
	CHECK_EQ(pm.ext[0].len, 8 * 0x1000);
	CHECK_EQ(physmem_largest(&pm), 8 * 0x1000);
	/* And the whole range is allocatable as one block again. */
	uint64_t all;
	CHECK_EQ(physmem_alloc(&pm, 8 * 0x1000, 0x1000, &all), 0);
	CHECK_EQ(all, 0x200000);
}

TEST(alloc_double_free_rejected)
{
	struct physmem pm;
	uint64_t a, b;

	setup(&pm, 0, MB);
	CHECK_EQ(physmem_alloc(&pm, 256, 64, &a), 0);
	CHECK_EQ(physmem_alloc(&pm, 256, 64, &b), 0);
	CHECK_EQ(physmem_free(&pm, a, 256), 0);
	uint64_t free_before = pm.free;
	CHECK_EQ(physmem_free(&pm, a, 256), -EINVAL);
	CHECK_EQ(physmem_free(&pm, a + 64, 64), -EINVAL);   /* inside a free range */
	CHECK_EQ(physmem_free(&pm, b + 1, 64), -EINVAL);    /* misaligned */
	CHECK_EQ(pm.free, free_before);
}

TEST(alloc_add_rejects_bad_ranges)
{
	struct physmem pm;

	setup(&pm, 0x100000, 0x100000);
	CHECK_EQ(physmem_add(&pm, 0x180000, 0x1000), -EEXIST);
	CHECK_EQ(physmem_add(&pm, UINT64_MAX - 10, 100), -EINVAL);
	CHECK_EQ(physmem_add(&pm, 0x10, 0x20), -EINVAL);   /* nothing left after granule trim */
	CHECK_EQ(physmem_add(&pm, 0x400000, 0), -EINVAL);
	CHECK_EQ(pm.total, 0x100000);
	/* Adjacent regions merge. */
	CHECK_EQ(physmem_add(&pm, 0x200000, 0x100000), 0);
	CHECK_EQ(pm.n, 1);
	CHECK_EQ(pm.ext[0].len, 0x200000);
}

TEST(alloc_table_full_is_reported)
{
	struct physmem pm;
	struct physmem_extent tiny[2];
	uint64_t a, b;

	physmem_init(&pm, tiny, 2);
	CHECK_EQ(physmem_add(&pm, 0x1000, 0x10000), 0);
	CHECK_EQ(physmem_add(&pm, 0x140000, 0x100000), 0);
	CHECK_EQ(physmem_add(&pm, 0x400000, 0x1000), -ENOSPC);
	/* The only 512 KiB-aligned fit (0x180000) is mid-extent and needs a split: no slot... */
	CHECK_EQ(physmem_alloc(&pm, 0x1000, 0x80000, &a), -ENOSPC);
	CHECK_EQ(pm.free, 0x110000);
	CHECK_EQ(pm.n, 2);
	/* ...but one that fits at an extent's start needs no split. */
	CHECK_EQ(physmem_alloc(&pm, 0x1000, 0x40000, &b), 0);
	CHECK_EQ(b, 0x140000);
}

TEST(alloc_random_stress_conserves_bytes)
{
	struct physmem pm;
	struct physmem_extent big[256];
	struct { uint64_t addr, size; } live[100] = { { 0, 0 } };

	physmem_init(&pm, big, 256);
	CHECK_EQ(physmem_add(&pm, 0x1000000, 16 * MB), 0);
	for (int round = 0; round < 5000; round++) {
		int i = (int)(test_rand() % 100);

		if (live[i].size) {
			CHECK_EQ(physmem_free(&pm, live[i].addr, live[i].size), 0);
			live[i].size = 0;
		} else {
			uint64_t size = 1 + test_rand() % 70000, align = 1ull << (test_rand() % 17);

			if (physmem_alloc(&pm, size, align, &live[i].addr) == 0) {
				CHECK_EQ(live[i].addr % align, 0);
				live[i].size = size;
			}
		}
	}
	for (int i = 0; i < 100; i++)
		if (live[i].size)
			CHECK_EQ(physmem_free(&pm, live[i].addr, live[i].size), 0);
	CHECK_EQ(pm.free, 16 * MB);
	CHECK_EQ(pm.n, 1);
}

TEST(alloc_dma_buffers_are_usable)
{
	uint8_t *p = dma_alloc(8192, 4096), *q = dma_alloc(2u << 20, 2u << 20);
	struct dma_stats before, after;

	CHECK(p != NULL);
	CHECK(q != NULL);
	CHECK_EQ(virt_to_bus(p) % 4096, 0);
	CHECK_EQ(virt_to_bus(q) % (2u << 20), 0);
	CHECK(bus_to_virt(virt_to_bus(p)) == p);
	memset(p, 0xa5, 8192);   /* under ASan: the memory really is ours */
	dma_get_stats(&before);
	dma_free(p, 8192);
	dma_free(q, 2u << 20);
	dma_get_stats(&after);
	CHECK_EQ(after.free - before.free, 8192 + (2u << 20));

	uint32_t *z = kzalloc(100 * sizeof(uint32_t));
	CHECK(z != NULL);
	for (int i = 0; i < 100; i++)
		CHECK_EQ(z[i], 0);
	kfree(z);
	CHECK(dma_alloc(1ull << 40, 64) == NULL);   /* more than there is: NULL, not a crash */
}

TEST(alloc_hosted_dma_window)
{
	uint8_t *p = dma_alloc(4096, 4096);
	const struct plat_mem_region *map;

	CHECK(p != NULL);
	CHECK(hosted_dma_ptr(virt_to_bus(p), 4096) == p);
	CHECK_EQ(plat_memmap(&map), 1);
	uint64_t end = map[0].base + map[0].len;
	CHECK(hosted_dma_ptr(end - 8, 8) != NULL);
	CHECK(hosted_dma_ptr(end - 8, 9) == NULL);      /* runs past the arena */
	CHECK(hosted_dma_ptr(map[0].base - 1, 1) == NULL);
	CHECK(hosted_dma_ptr(0, 4) == NULL);
	CHECK(hosted_dma_ptr(UINT64_MAX - 3, 8) == NULL);
	dma_free(p, 4096);
}

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>

TEST(alloc_freed_dma_memory_is_poisoned)
{
	uint8_t *p = dma_alloc(256, 64);

	CHECK(p != NULL);
	if (!p)
		return;
	CHECK(!__asan_region_is_poisoned(p, 256));   /* ours while allocated */
	dma_free(p, 256);
	CHECK(__asan_address_is_poisoned(p));          /* use after free would be reported */
	CHECK(__asan_address_is_poisoned(p + 255));
}
#endif

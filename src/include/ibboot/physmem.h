/* SPDX-License-Identifier: MIT */
/*
 * A physical-extent allocator: hands out contiguous, aligned ranges of address space and takes
 * them back, merging neighbours. It only does arithmetic on addresses (never touches the memory),
 * so tests run it on made-up ranges. Bookkeeping lives in a caller-provided array of free extents,
 * so it works before any heap exists.
 */
#ifndef IBBOOT_PHYSMEM_H
#define IBBOOT_PHYSMEM_H

#include <ibboot/compiler.h>

/* Every size is rounded up to this, so adjacent allocations never share a cache line. */
#define PHYSMEM_GRANULE 64u

struct physmem_extent {
	uint64_t base, len;
};

struct physmem {
	struct physmem_extent *ext;   /* free extents, sorted by base, never adjacent */
	unsigned n, max;
	uint64_t total;               /* bytes ever added */
	uint64_t free;                /* bytes free now */
};

void physmem_init(struct physmem *pm, struct physmem_extent *storage, unsigned max);
/* Adds [base, base+len) as free memory (trimmed inward to the granule). -EEXIST if it overlaps free
 * memory, -ENOSPC if the extent table is full, -EINVAL if empty or wrapping. */
int physmem_add(struct physmem *pm, uint64_t base, uint64_t len);
/* Lowest fitting range of `size` bytes aligned to `align` (a power of two). -ENOMEM if none fits,
 * -ENOSPC if the table cannot hold the split, -EINVAL for a zero size or bad alignment. */
int physmem_alloc(struct physmem *pm, uint64_t size, uint64_t align, uint64_t *addr);
/* Returns a range; -EINVAL if any of it is already free (double free) or it wraps. */
int physmem_free(struct physmem *pm, uint64_t addr, uint64_t size);
uint64_t physmem_largest(const struct physmem *pm);

#endif

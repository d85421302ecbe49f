/* SPDX-License-Identifier: MIT */
/* First-fit allocator over a sorted table of free extents (see physmem.h). */
#include <ibboot/physmem.h>
#include <ibboot/errno.h>

void physmem_init(struct physmem *pm, struct physmem_extent *storage, unsigned max)
{
	pm->ext = storage;
	pm->n = 0;
	pm->max = max;
	pm->total = 0;
	pm->free = 0;
}

static bool overlaps_free(const struct physmem *pm, uint64_t base, uint64_t len)
{
	for (unsigned i = 0; i < pm->n; i++) {
		const struct physmem_extent *e = &pm->ext[i];

		if (base < e->base + e->len && e->base < base + len)
			return true;
	}
	return false;
}

static void remove_at(struct physmem *pm, unsigned i)
{
	for (; i + 1 < pm->n; i++)
		pm->ext[i] = pm->ext[i + 1];
	pm->n--;
}

static int insert_at(struct physmem *pm, unsigned i, uint64_t base, uint64_t len)
{
	if (pm->n == pm->max)
		return -ENOSPC;
	for (unsigned j = pm->n; j > i; j--)
		pm->ext[j] = pm->ext[j - 1];
	pm->ext[i] = (struct physmem_extent){ base, len };
	pm->n++;
	return 0;
}

/* Inserts a range known not to overlap, merging with its neighbours so extents never touch. */
static int insert_free(struct physmem *pm, uint64_t base, uint64_t len)
{
	unsigned i = 0;

	while (i < pm->n && pm->ext[i].base < base)
		i++;
	bool join_prev = i > 0 && pm->ext[i - 1].base + pm->ext[i - 1].len == base;
	bool join_next = i < pm->n && base + len == pm->ext[i].base;

	if (join_prev && join_next) {
		pm->ext[i - 1].len += len + pm->ext[i].len;
		remove_at(pm, i);
	} else if (join_prev) {
		pm->ext[i - 1].len += len;
	} else if (join_next) {
		pm->ext[i].base = base;
		pm->ext[i].len += len;
	} else {
		int rc = insert_at(pm, i, base, len);
		if (rc)
			return rc;
	}
	pm->free += len;
	return 0;
}

/* A range is valid if it is non-empty and does not run past the top of the address space. */
static bool range_ok(uint64_t base, uint64_t len)
{
	uint64_t end;

	return len && !__builtin_add_overflow(base, len, &end);
}

int physmem_add(struct physmem *pm, uint64_t base, uint64_t len)
{
	uint64_t start, end;

	if (!range_ok(base, len) || base > UINT64_MAX - (PHYSMEM_GRANULE - 1))
		return -EINVAL;
	start = ALIGN_UP(base, (uint64_t)PHYSMEM_GRANULE);
	end = ALIGN_DOWN(base + len, (uint64_t)PHYSMEM_GRANULE);
	if (end <= start)
		return -EINVAL;
	if (overlaps_free(pm, start, end - start))
		return -EEXIST;
	int rc = insert_free(pm, start, end - start);
	if (rc == 0)
		pm->total += end - start;
	return rc;
}

int physmem_alloc(struct physmem *pm, uint64_t size, uint64_t align, uint64_t *addr)
{
	int err = -ENOMEM;

	if (size == 0 || !IS_POW2(align) || size > UINT64_MAX - PHYSMEM_GRANULE)
		return -EINVAL;
	if (align < PHYSMEM_GRANULE)
		align = PHYSMEM_GRANULE;
	size = ALIGN_UP(size, (uint64_t)PHYSMEM_GRANULE);

	for (unsigned i = 0; i < pm->n; i++) {
		struct physmem_extent *e = &pm->ext[i];
		uint64_t end = e->base + e->len;
		uint64_t start;

		if (e->base > UINT64_MAX - (align - 1))
			continue;
		start = ALIGN_UP(e->base, align);
		if (start >= end || end - start < size)
			continue;
		uint64_t head = start - e->base, tail = end - (start + size);

		if (head && tail) {
			/* Splitting needs one more table slot; a later extent may fit without. */
			if (pm->n == pm->max) {
				err = -ENOSPC;
				continue;
			}
			insert_at(pm, i + 1, start + size, tail);
			pm->ext[i].len = head;
		} else if (head) {
			e->len = head;
		} else if (tail) {
			e->base = start + size;
			e->len = tail;
		} else {
			remove_at(pm, i);
		}
		pm->free -= size;
		*addr = start;
		return 0;
	}
	return err;
}

int physmem_free(struct physmem *pm, uint64_t addr, uint64_t size)
{
	if (size == 0 || size > UINT64_MAX - PHYSMEM_GRANULE || addr % PHYSMEM_GRANULE)
		return -EINVAL;
	size = ALIGN_UP(size, (uint64_t)PHYSMEM_GRANULE);
	if (!range_ok(addr, size) || overlaps_free(pm, addr, size))
		return -EINVAL;
	return insert_free(pm, addr, size);
}

uint64_t physmem_largest(const struct physmem *pm)
{
	uint64_t best = 0;

	for (unsigned i = 0; i < pm->n; i++)
		if (pm->ext[i].len > best)
			best = pm->ext[i].len;
	return best;
}

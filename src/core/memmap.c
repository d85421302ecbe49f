/* SPDX-License-Identifier: MIT */
/* Sorting, splitting and merging a firmware memory map (see <ibboot/memmap.h>). */
#include <ibboot/memmap.h>

/* Which type wins where two ranges overlap: RAM loses to everything, then the higher number. */
static unsigned memmap_rank(uint32_t type)
{
	return type == PLAT_MEM_RAM ? 0 : type;
}

/* Every start and end, sorted, without duplicates (insertion sort: at most 256 points). */
static unsigned memmap_points(const struct plat_mem_region *map, unsigned n, uint64_t *pt)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		uint64_t end = map[i].base + map[i].len;
		uint64_t v[2] = { map[i].base, end < map[i].base ? UINT64_MAX : end };

		if (map[i].len == 0)
			continue;
		for (unsigned j = 0; j < 2; j++) {
			unsigned at = k;

			while (at > 0 && pt[at - 1] > v[j])
				at--;
			if (at > 0 && pt[at - 1] == v[j])
				continue;
			for (unsigned m = k; m > at; m--)
				pt[m] = pt[m - 1];
			pt[at] = v[j];
			k++;
		}
	}
	return k;
}

static void memmap_drop_smallest_ram(struct plat_mem_region *out, unsigned *k)
{
	unsigned victim = *k;

	for (unsigned i = 0; i < *k; i++)
		if (out[i].type == PLAT_MEM_RAM && (victim == *k || out[i].len < out[victim].len))
			victim = i;
	if (victim == *k) {
		(*k)--;   /* no RAM left: only the highest entry can go (the caller's max is tiny) */
		return;
	}
	for (unsigned i = victim; i + 1 < *k; i++)
		out[i] = out[i + 1];
	(*k)--;
}

unsigned memmap_sanitize(struct plat_mem_region *map, unsigned n, unsigned max)
{
	static uint64_t pt[2 * MEMMAP_SANITIZE_MAX];
	static struct plat_mem_region out[2 * MEMMAP_SANITIZE_MAX];
	unsigned npt, k = 0;

	if (n > MEMMAP_SANITIZE_MAX)
		n = MEMMAP_SANITIZE_MAX;
	if (max > MEMMAP_SANITIZE_MAX)
		max = MEMMAP_SANITIZE_MAX;
	npt = memmap_points(map, n, pt);
	/* Each elementary interval between two neighbouring points takes the winning type of the
	 * ranges covering it; uncovered gaps stay out of the map. */
	for (unsigned p = 0; p + 1 < npt; p++) {
		uint64_t lo = pt[p], hi = pt[p + 1];
		uint32_t type = 0;

		for (unsigned i = 0; i < n; i++) {
			uint64_t end = map[i].base + map[i].len;

			if (end < map[i].base)
				end = UINT64_MAX;
			if (map[i].len && map[i].base <= lo && hi <= end &&
			    (type == 0 || memmap_rank(map[i].type) > memmap_rank(type)))
				type = map[i].type;
		}
		if (type == 0)
			continue;
		if (k && out[k - 1].type == type && out[k - 1].base + out[k - 1].len == lo)
			out[k - 1].len += hi - lo;
		else
			out[k++] = (struct plat_mem_region){ lo, hi - lo, type };
	}
	while (k > max)
		memmap_drop_smallest_ram(out, &k);
	for (unsigned i = 0; i < k; i++)
		map[i] = out[i];
	return k;
}

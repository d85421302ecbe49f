/* SPDX-License-Identifier: MIT */
/*
 * Device-virtual → guest-physical maps, one each for the firmware area (MAP_FA), the ICM
 * auxiliary area (MAP_ICM_AUX) and ICM itself (MAP_ICM). Ranges are kept sorted by virtual
 * address and never overlap; an unmap may split a range.
 */
#include <stdlib.h>
#include <string.h>

#include "hcasim_int.h"

static size_t find_pos(const struct hcasim_vmap *m, uint64_t va)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->r[mid].va + m->r[mid].len <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo; /* first range ending above va */
}

static int insert_at(struct hcasim_vmap *m, size_t pos, struct hcasim_range r)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;
		struct hcasim_range *nr = realloc(m->r, cap * sizeof(*nr));

		if (!nr)
			return -1;
		m->r = nr;
		m->cap = cap;
	}
	memmove(&m->r[pos + 1], &m->r[pos], (m->n - pos) * sizeof(*m->r));
	m->r[pos] = r;
	m->n++;
	return 0;
}

/* Returns -1 if any part of [va, va+len) is already mapped (nothing changes then). */
int hcasim_vmap_add(struct hcasim_vmap *m, uint64_t va, uint64_t pa, uint64_t len)
{
	size_t pos = find_pos(m, va);
	struct hcasim_range r = { va, pa, len };

	if (!len || va + len < va)
		return -1;
	if (pos < m->n && m->r[pos].va < va + len)
		return -1;
	if (insert_at(m, pos, r) < 0)
		return -1;
	m->bytes += len;
	return 0;
}

/* Unmaps [va, va+len); returns the number of bytes that were mapped there. */
uint64_t hcasim_vmap_remove(struct hcasim_vmap *m, uint64_t va, uint64_t len)
{
	uint64_t end = va + len, removed = 0;
	size_t i = find_pos(m, va);

	while (i < m->n && m->r[i].va < end) {
		struct hcasim_range *r = &m->r[i];
		uint64_t rs = r->va, re = r->va + r->len;
		uint64_t cs = rs > va ? rs : va, ce = re < end ? re : end;

		removed += ce - cs;
		if (cs > rs && ce < re) {
			/* split: keep head here, insert the tail after */
			struct hcasim_range tail = { ce, r->pa + (ce - rs), re - ce };

			r->len = cs - rs;
			if (insert_at(m, i + 1, tail) < 0) {
				r->len = re - rs; /* cannot split: leave mapped */
				return removed - (ce - cs);
			}
			break;
		} else if (cs > rs) {
			r->len = cs - rs;
			i++;
		} else if (ce < re) {
			r->pa += ce - rs;
			r->va = ce;
			r->len = re - ce;
			break;
		} else {
			memmove(r, r + 1, (m->n - i - 1) * sizeof(*r));
			m->n--;
		}
	}
	m->bytes -= removed;
	return removed;
}

bool hcasim_vmap_lookup(const struct hcasim_vmap *m, uint64_t va, uint64_t *pa, uint64_t *avail)
{
	size_t pos = find_pos(m, va);

	if (pos >= m->n || m->r[pos].va > va)
		return false;
	*pa = m->r[pos].pa + (va - m->r[pos].va);
	*avail = m->r[pos].va + m->r[pos].len - va;
	return true;
}

void hcasim_vmap_clear(struct hcasim_vmap *m)
{
	free(m->r);
	memset(m, 0, sizeof(*m));
}

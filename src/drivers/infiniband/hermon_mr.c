/* SPDX-License-Identifier: MIT */
/*
 * Memory translation and protection: the one memory region every data segment uses, and the MTT
 * entries that describe queue buffers to the HCA.
 *
 * The region is physical (pa = 1: no translation, so DMA buffers need no registration) and grants
 * LOCAL read and write only. rr = rw = atomic = eb = 0: nothing on the fabric may read or write
 * the booting machine's memory through it (iPXE grants remote read/write/atomic on all memory with
 * a fixed key). Its key is not predictable: both the MPT index (upper 24 bits of the L_Key) and
 * the 8-bit tag come from the random generator (include/ibboot/random.h).
 */
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/hermon_prm.h>
#include <ibboot/random.h>
#include <ibboot/string.h>
#include "hermon.h"

int hermon_bitmap_alloc(uint8_t *map, unsigned max, unsigned count)
{
	for (unsigned first = 0; first + count <= max; first++) {
		unsigned i;

		for (i = 0; i < count; i++)
			if (map[(first + i) / 8] & (1u << ((first + i) % 8)))
				break;
		if (i == count) {
			for (i = 0; i < count; i++)
				map[(first + i) / 8] |= (uint8_t)(1u << ((first + i) % 8));
			return (int)first;
		}
		first += i;   /* skip past the busy entry */
	}
	return -ENOSPC;
}

void hermon_bitmap_free(uint8_t *map, unsigned first, unsigned count)
{
	for (unsigned i = first; i < first + count; i++)
		map[i / 8] &= (uint8_t)~(1u << (i % 8));
}

/* The MPT entry for our region (seed 000: field meanings). mem_key is stored rotated as
 * {key[7:0], key[31:8]}. */
void hermon_fill_mpt(void *mpt, uint32_t mem_key, uint32_t pd)
{
	memset(mpt, 0, HERMONPRM_MPT_ST_BYTES);
	hermonprm_mpt_st_set_r_w(mpt, 1);      /* a region, not a window */
	hermonprm_mpt_st_set_pa(mpt, 1);       /* physical addresses, no MTT walk */
	hermonprm_mpt_st_set_lr(mpt, 1);
	hermonprm_mpt_st_set_lw(mpt, 1);
	hermonprm_mpt_st_set_rr(mpt, 0);
	hermonprm_mpt_st_set_rw(mpt, 0);
	hermonprm_mpt_st_set_atomic(mpt, 0);
	hermonprm_mpt_st_set_eb(mpt, 0);
	hermonprm_mpt_st_set_mem_key(mpt, mem_key);
	hermonprm_mpt_st_set_pd(mpt, pd);
	hermonprm_mpt_st_set_start_addr_h(mpt, 0);
	hermonprm_mpt_st_set_start_addr_l(mpt, 0);
	hermonprm_mpt_st_set_len64(mpt, 1);    /* 2^64 bytes: all of memory */
}

int hermon_setup_mpt(struct hermon *h)
{
	uint8_t mpt[HERMONPRM_MPT_ST_BYTES];
	unsigned first = h->caps.reserved_mrws, span = h->plan.num_mpts - first;
	uint32_t tag = random_below(256), mem_key;
	int rc;

	h->mpt_index = first + random_below(span);
	mem_key = (tag << 24) | h->mpt_index;
	hermon_fill_mpt(mpt, mem_key, HERMON_GLOBAL_PD);
	if ((rc = hermon_cmd_sw2hw_mpt(h, h->mpt_index, mpt)) != 0)
		return rc;
	h->lkey = (h->mpt_index << 8) | tag;
	h->stage = HERMON_STAGE_MPT;
	return 0;
}

void hermon_destroy_mpt(struct hermon *h)
{
	if (h->stage >= HERMON_STAGE_MPT)
		hermon_cmd_hw2sw_mpt(h, h->mpt_index);
	h->lkey = 0;
	if (h->stage > HERMON_STAGE_HCA_INIT)
		h->stage = HERMON_STAGE_HCA_INIT;
}

int hermon_alloc_mtt(struct hermon *h, const void *buf, size_t len, struct hermon_mtt *mtt)
{
	uint64_t start = virt_to_bus(buf), pa[64];
	unsigned offset = (unsigned)(start & (HERMON_PAGE_SIZE - 1));
	unsigned pages = (unsigned)((offset + len + HERMON_PAGE_SIZE - 1) / HERMON_PAGE_SIZE);
	int first, rc = 0;

	first = hermon_bitmap_alloc(h->mtt_inuse, HERMON_MAX_MTTS, pages);
	if (first < 0) {
		hermon_err(h, "out of MTT entries (%u wanted, %u total)",
			   pages, HERMON_MAX_MTTS);
		return first;
	}
	mtt->first = (unsigned)first;
	mtt->num_pages = pages;
	mtt->page_offset = offset;
	mtt->mtt_base_addr = (uint64_t)(h->caps.reserved_mtts + mtt->first) * h->caps.mtt_entry_size;
	start -= offset;
	for (unsigned done = 0; done < pages && rc == 0;) {
		unsigned n = MIN(pages - done, (unsigned)ARRAY_SIZE(pa));

		for (unsigned i = 0; i < n; i++)
			pa[i] = start + (uint64_t)(done + i) * HERMON_PAGE_SIZE;
		rc = hermon_cmd_write_mtt(h, mtt->mtt_base_addr +
					  (uint64_t)done * h->caps.mtt_entry_size, pa, n);
		done += n;
	}
	if (rc) {
		hermon_bitmap_free(h->mtt_inuse, mtt->first, pages);
		memset(mtt, 0, sizeof(*mtt));
	}
	return rc;
}

void hermon_free_mtt(struct hermon *h, struct hermon_mtt *mtt)
{
	if (mtt->num_pages)
		hermon_bitmap_free(h->mtt_inuse, mtt->first, mtt->num_pages);
	memset(mtt, 0, sizeof(*mtt));
}

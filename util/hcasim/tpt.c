/* SPDX-License-Identifier: MIT */
/*
 * Translation and protection on the datapath. A key (L_Key in a WQE, R_Key in a packet) selects
 * dMPT entry key>>8; the entry must be in hardware ownership with status 0, hold the same key
 * (stored rotated: index in the low 24 bits, the key's low byte on top), belong to the QP's PD,
 * grant the access, and cover [va, va+len) unless len64. Then va is either physical (pa) or
 * translated page by page through the MTT entries starting at mtt_adr.
 * Rings (EQ/CQ/SQ/RQ) are translated through MTTs directly (hcasim_mtt_translate).
 */
#include <string.h>

#include "hcasim_int.h"
#include "tpt.h"

/* One MTT entry: the page's physical address, or -1 if the entry is unmapped/not present. */
static int mtt_entry(struct hcasim *h, uint64_t mtt_byte_off, uint64_t *page_pa)
{
	uint8_t e[HERMONPRM_MTT_ST_BYTES];

	if (hcasim_icm_read(h, hcasim_mtt_va(h, mtt_byte_off), e, sizeof(e)) < 0)
		return TPT_ICM;
	if (!PRM_GET(mtt, p, e))
		return TPT_NOT_PRESENT;
	*page_pa = (uint64_t)PRM_GET(mtt, ptag_h, e) << 32 | (uint64_t)PRM_GET(mtt, ptag_l, e) << 3;
	return TPT_OK;
}

int hcasim_mtt_translate(struct hcasim *h, uint64_t mtt_byte_off, unsigned log_page, uint64_t off,
			 uint64_t *pa)
{
	uint64_t page_pa;
	int rc = mtt_entry(h, mtt_byte_off + (off >> log_page) * HCASIM_MTT_SZ, &page_pa);

	if (rc)
		return rc;
	*pa = page_pa + (off & ((1ull << log_page) - 1));
	return TPT_OK;
}

/* EQ and CQ rings: entry `idx` (a running index, wrapped to the 2^log_size ring) of 32 bytes,
 * the ring starting page_offset·32 bytes into the pages its context's MTT entries name. */
int hcasim_ring_write(struct hcasim *h, uint64_t mtt_byte_off, unsigned log_page,
		      uint32_t page_offset, unsigned log_size, uint32_t idx, const uint8_t entry[32])
{
	uint64_t pa, off = (uint64_t)page_offset * 32 + (uint64_t)(idx & ((1u << log_size) - 1)) * 32;

	if (hcasim_mtt_translate(h, mtt_byte_off, log_page, off, &pa) ||
	    hcasim_dma_write(h, pa, entry, 32) < 0)
		return -1;
	return 0;
}

/* Every entry of an EQ/CQ ring (laid out as for hcasim_ring_write) set to the same 32 bytes, written
 * a page (or up to the ring's end) at a time. Returns 0, or -1 with *failed_at the ring byte whose
 * translation or write failed (entries before it are written, the rest are not). */
int hcasim_ring_fill(struct hcasim *h, uint64_t mtt_byte_off, unsigned log_page,
		     uint32_t page_offset, unsigned log_size, const uint8_t entry[32],
		     uint64_t *failed_at)
{
	uint8_t img[HCASIM_PAGE];
	uint64_t start = (uint64_t)page_offset * 32, total = 32ull << log_size;
	uint64_t page = 1ull << log_page, done = 0, pa;

	for (size_t i = 0; i < sizeof(img); i += 32)
		memcpy(img + i, entry, 32);
	while (done < total) {
		uint64_t off = start + done, n = page - (off & (page - 1));

		n = n < total - done ? n : total - done;
		n = n < sizeof(img) ? n : sizeof(img);
		if (hcasim_mtt_translate(h, mtt_byte_off, log_page, off, &pa) ||
		    hcasim_dma_write(h, pa, img, n) < 0) {
			*failed_at = done;
			return -1;
		}
		done += n;
	}
	return 0;
}

static const char *const tpt_why[] = {
	[TPT_OK] = "ok", [TPT_BAD_KEY] = "key does not name a valid MPT",
	[TPT_PD] = "protection domain mismatch", [TPT_ACCESS] = "access right not granted",
	[TPT_BOUNDS] = "outside the region", [TPT_ICM] = "MPT/MTT in unmapped ICM",
	[TPT_NOT_PRESENT] = "MTT entry not present", [TPT_DMA] = "guest memory not backed",
};

const char *hcasim_tpt_why(int rc)
{
	return rc >= 0 && rc < (int)(sizeof(tpt_why) / sizeof(tpt_why[0])) ? tpt_why[rc] : "?";
}

static int check_mpt(struct hcasim *h, uint32_t key, uint32_t pd, uint64_t va, uint64_t len,
		     unsigned access, uint8_t *m)
{
	uint32_t idx = (key >> 8) & ((1u << h->lay.log_num_mpt) - 1);
	uint64_t start, rlen;

	if (!hcasim_bit(h->mpt_hw, idx))
		return TPT_BAD_KEY;
	if (hcasim_icm_read(h, hcasim_dmpt_va(h, idx), m, HERMONPRM_MPT_ST_BYTES) < 0)
		return TPT_ICM;
	if (PRM_GET(mpt, status, m) != 0 || PRM_GET(mpt, mem_key, m) != ((key >> 8) | (key << 24)))
		return TPT_BAD_KEY;
	if (PRM_GET(mpt, pd, m) != (pd & 0xffffff))
		return TPT_PD;
	if (((access & ACC_LR) && !PRM_GET(mpt, lr, m)) || ((access & ACC_LW) && !PRM_GET(mpt, lw, m)) ||
	    ((access & ACC_RR) && !PRM_GET(mpt, rr, m)) || ((access & ACC_RW) && !PRM_GET(mpt, rw, m)) ||
	    ((access & ACC_ATOMIC) && !PRM_GET(mpt, atomic, m)))
		return TPT_ACCESS;
	if (PRM_GET(mpt, len64, m))
		return TPT_OK;
	start = (uint64_t)PRM_GET(mpt, start_addr_h, m) << 32 | PRM_GET(mpt, start_addr_l, m);
	rlen = (uint64_t)PRM_GET(mpt, len_h, m) << 32 | PRM_GET(mpt, len_l, m);
	if (va < start || len > rlen || va - start > rlen - len)
		return TPT_BOUNDS;
	return TPT_OK;
}

/* Only the checks, for the whole of a multi-packet RDMA WRITE before its first byte lands. */
int hcasim_tpt_check(struct hcasim *h, uint32_t key, uint32_t pd, uint64_t va, uint32_t len,
		     unsigned access)
{
	uint8_t m[HERMONPRM_MPT_ST_BYTES];

	return check_mpt(h, key, pd, va, len, access, m);
}

int hcasim_tpt_access(struct hcasim *h, uint32_t key, uint32_t pd, uint64_t va, uint32_t len,
		      unsigned access, bool write, void *buf)
{
	uint8_t m[HERMONPRM_MPT_ST_BYTES];
	uint8_t *p = buf;
	uint64_t start, mtt, rel;
	unsigned shift;
	int rc = check_mpt(h, key, pd, va, len, access, m);

	if (rc)
		return rc;
	if (PRM_GET(mpt, pa, m)) {
		rc = write ? hcasim_dma_write(h, va, buf, len) : hcasim_dma_read(h, va, buf, len);
		return rc < 0 ? TPT_DMA : TPT_OK;
	}
	start = (uint64_t)PRM_GET(mpt, start_addr_h, m) << 32 | PRM_GET(mpt, start_addr_l, m);
	shift = PRM_GET(mpt, entity_size, m);
	mtt = (uint64_t)PRM_GET(mpt, mtt_adr_h, m) << 32 | PRM_GET(mpt, mtt_adr_l, m);
	/* MTT entry 0 maps the page holding start_addr (plus mtt_fbo when fbo_en) */
	rel = va - (start & ~((1ull << shift) - 1));
	if (PRM_GET(mpt, fbo_en, m))
		rel += PRM_GET(mpt, mtt_fbo, m);
	while (len) {
		uint64_t page = rel >> shift, in_page = rel & ((1ull << shift) - 1);
		uint64_t n = (1ull << shift) - in_page, pa;

		if (n > len)
			n = len;
		if (page >= PRM_GET(mpt, mtt_size, m))
			return TPT_BOUNDS;
		rc = hcasim_mtt_translate(h, mtt + page * HCASIM_MTT_SZ, shift, in_page, &pa);
		if (rc)
			return rc;
		if ((write ? hcasim_dma_write(h, pa, p, n) : hcasim_dma_read(h, pa, p, n)) < 0)
			return TPT_DMA;
		p += n;
		rel += n;
		len -= (uint32_t)n;
	}
	return TPT_OK;
}

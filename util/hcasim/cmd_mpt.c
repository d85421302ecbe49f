/* SPDX-License-Identifier: MIT */
/*
 * Memory protection: SW2HW_MPT / HW2SW_MPT / QUERY_MPT move a dMPT entry between software and
 * hardware ownership (the entry itself lives in ICM at dmpt_base + index·64), WRITE_MTT writes
 * translation entries into the MTT table in ICM.
 */
#include <string.h>

#include "hcasim_int.h"

#define MPT_STATUS_HW 0x0
#define MPT_STATUS_SW 0xf

/* HW2SW_MPT and QUERY_MPT need an entry the hardware owns. */
static int mpt_owned(struct hcasim *h, struct hcasim_cmd *c, uint32_t idx)
{
	return hcasim_cmd_ctx(h, c, "MPT", idx, h->lay.log_num_mpt, h->mpt_hw, true);
}

int cmd_sw2hw_mpt(struct hcasim *h, struct hcasim_cmd *c)
{
	uint32_t idx = c->in_mod & 0xffffff;
	uint8_t *m = c->in;
	int st = hcasim_cmd_sw2hw_in(h, c, "MPT", idx, h->lay.log_num_mpt, h->mpt_hw,
				     HERMONPRM_MPT_ST_BYTES);

	if (st)
		return st;
	if ((PRM_GET(mpt, mem_key, m) & ((1u << h->lay.log_num_mpt) - 1)) != idx) {
		hcasim_refuse(h, "SW2HW_MPT: mem_key %#x does not belong to MPT index %#x",
			      PRM_GET(mpt, mem_key, m), idx);
		return ST_BAD_PARAM;
	}
	if (!PRM_GET(mpt, r_w, m)) {
		hcasim_refuse(h, "SW2HW_MPT: MPT %#x is a memory window (not modelled)", idx);
		return ST_BAD_PARAM;
	}
	if (PRM_GET(mpt, lkey, m) != 0) {
		hcasim_refuse(h, "SW2HW_MPT: lkey field must be 0 (is %#x)", PRM_GET(mpt, lkey, m));
		return ST_BAD_PARAM;
	}
	if (!PRM_GET(mpt, pa, m) &&
	    (PRM_GET(mpt, mtt_size, m) == 0 || PRM_GET(mpt, entity_size, m) < 12 ||
	     PRM_GET(mpt, entity_size, m) > 40 || PRM_GET(mpt, mtt_adr_l, m) % HCASIM_MTT_SZ)) {
		hcasim_refuse(h, "SW2HW_MPT: MPT %#x: virtual region needs mtt_size > 0, page size "
			      "2^12..2^40 and an 8-byte aligned mtt_adr", idx);
		return ST_BAD_PARAM;
	}
	PRM_SET(mpt, status, m, MPT_STATUS_HW);
	return hcasim_cmd_sw2hw_store(h, c, -1, idx, h->mpt_hw, hcasim_dmpt_va(h, idx),
				      HERMONPRM_MPT_ST_BYTES);
}

/* op_mod 0 with an output mailbox returns the entry; op_mod 1 (Linux) means no mailbox. */
int cmd_hw2sw_mpt(struct hcasim *h, struct hcasim_cmd *c)
{
	uint32_t idx = c->in_mod & 0xffffff;
	uint8_t m[HERMONPRM_MPT_ST_BYTES];
	int st = mpt_owned(h, c, idx);

	if (st)
		return st;
	if (hcasim_icm_read(h, hcasim_dmpt_va(h, idx), m, sizeof(m)) < 0)
		return ST_ICM_ERROR;
	PRM_SET(mpt, status, m, MPT_STATUS_SW);
	if (hcasim_icm_write(h, hcasim_dmpt_va(h, idx), m, sizeof(m)) < 0)
		return ST_ICM_ERROR;
	hcasim_bit_set(h->mpt_hw, idx, false);
	if (c->op_mod == 0 && c->out_param) {
		memcpy(c->out, m, sizeof(m));
		c->out_len = sizeof(m);
	}
	return ST_OK;
}

int cmd_query_mpt(struct hcasim *h, struct hcasim_cmd *c)
{
	uint32_t idx = c->in_mod & 0xffffff;
	int st = mpt_owned(h, c, idx);

	return st ? st : hcasim_cmd_ctx_out(h, c, hcasim_dmpt_va(h, idx), HERMONPRM_MPT_ST_BYTES);
}

/* Mailbox: 8-byte MTT byte offset (within the MTT table), 8 reserved bytes, then in_mod
 * 8-byte MTT entries. */
int cmd_write_mtt(struct hcasim *h, struct hcasim_cmd *c)
{
	unsigned n = c->in_mod;
	uint64_t off;
	int st;

	if (n == 0 || n > (4096 - 16) / HCASIM_MTT_SZ) {
		hcasim_refuse(h, "WRITE_MTT: %u entries (1..%u per command)", n,
			      (4096 - 16) / HCASIM_MTT_SZ);
		return ST_BAD_PARAM;
	}
	st = hcasim_cmd_mbox_in(h, c, 16 + (size_t)n * HCASIM_MTT_SZ);
	if (st)
		return st;
	off = (uint64_t)PRM_GET(scalar_parameter, value_hi, c->in) << 32 |
	      PRM_GET(scalar_parameter, value, c->in);
	if (off % HCASIM_MTT_SZ) {
		hcasim_refuse(h, "WRITE_MTT: MTT offset %#llx not 8-byte aligned",
			      (unsigned long long)off);
		return ST_BAD_PARAM;
	}
	/* Check the whole destination is mapped before writing any of it. */
	for (uint64_t va = hcasim_mtt_va(h, off); va < hcasim_mtt_va(h, off) + n * HCASIM_MTT_SZ;
	     va = (va | (HCASIM_PAGE - 1)) + 1) {
		uint64_t pa, avail;

		if (!hcasim_vmap_lookup(&h->icm, va, &pa, &avail)) {
			hcasim_refuse(h, "WRITE_MTT: MTT at ICM %#llx not mapped",
				      (unsigned long long)va);
			return ST_ICM_ERROR;
		}
	}
	if (hcasim_icm_write(h, hcasim_mtt_va(h, off), c->in + 16, (size_t)n * HCASIM_MTT_SZ) < 0)
		return ST_ICM_ERROR;
	return ST_OK;
}

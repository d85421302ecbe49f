/* SPDX-License-Identifier: MIT */
/*
 * Multicast groups: MGID_HASH, READ_MCG, WRITE_MCG, and the lookup the receive path uses.
 * The MCG table lives in ICM (mc_base, 2^log_mc_table_sz entries of 2^log_mc_table_entry_sz
 * bytes). The first 2^log_mc_hash_sz entries are hash buckets; a bucket's chain continues
 * through next_mcg (an entry index, 0 = end) into the rest of the table (AMGM), as Linux mlx4
 * manages it. An entry: 32-byte header (next, members_count, protocol, MGID) then one dword per
 * member QP (qpn, blck_lb).
 */
#include <string.h>

#include "hcasim_int.h"

/* Any deterministic hash will do for software; the device only promises a value below the
 * hash table size. This one is a CRC-16 (CCITT polynomial) of the 16 GID bytes. */
uint32_t hcasim_mgid_hash(struct hcasim *h, const uint8_t gid[16])
{
	uint16_t crc = 0xffff;

	for (unsigned i = 0; i < 16; i++) {
		crc ^= (uint16_t)(gid[i] << 8);
		for (unsigned b = 0; b < 8; b++)
			crc = (uint16_t)(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
	}
	return crc & ((1u << h->lay.log_mc_hash_sz) - 1);
}

static unsigned entry_bytes(struct hcasim *h)
{
	return 1u << h->lay.log_mc_entry_sz;
}

static unsigned max_members(struct hcasim *h)
{
	return (entry_bytes(h) - HERMONPRM_MCG_HDR_ST_BYTES) / HERMONPRM_MCG_QP_DW_ST_BYTES;
}

static int index_check(struct hcasim *h, struct hcasim_cmd *c, uint32_t idx)
{
	return hcasim_cmd_ctx(h, c, "MCG", idx, h->lay.log_mc_table_sz, NULL, false);
}

int cmd_mgid_hash(struct hcasim *h, struct hcasim_cmd *c)
{
	uint8_t out[HERMONPRM_MGM_HASH_ST_BYTES] = { 0 };
	int st = hcasim_cmd_mbox_in(h, c, 16);

	if (st)
		return st;
	PRM_SET(mgm_hash, hash, out, hcasim_mgid_hash(h, c->in));
	c->out_imm = true;
	c->out_imm_val = (uint64_t)hermonprm_load_dword(out, 0) << 32 | hermonprm_load_dword(out, 1);
	return ST_OK;
}

int cmd_read_mcg(struct hcasim *h, struct hcasim_cmd *c)
{
	int st = index_check(h, c, c->in_mod);

	return st ? st : hcasim_cmd_ctx_out(h, c, hcasim_mcg_va(h, c->in_mod), entry_bytes(h));
}

int cmd_write_mcg(struct hcasim *h, struct hcasim_cmd *c)
{
	const uint8_t *hdr;
	int st = index_check(h, c, c->in_mod);

	if (!st)
		st = hcasim_cmd_mbox_in(h, c, entry_bytes(h));
	if (st)
		return st;
	hdr = PRM_SUB(mcg_entry, hdr, c->in);
	if (PRM_GET(mcg_hdr, members_count, hdr) > max_members(h) ||
	    PRM_GET(mcg_hdr, next_mcg, hdr) >= (1u << h->lay.log_mc_table_sz)) {
		hcasim_refuse(h, "WRITE_MCG: entry %#x: %u members (max %u) / next %#x invalid",
			      c->in_mod, PRM_GET(mcg_hdr, members_count, hdr), max_members(h),
			      PRM_GET(mcg_hdr, next_mcg, hdr));
		return ST_BAD_PARAM;
	}
	if (hcasim_icm_write(h, hcasim_mcg_va(h, c->in_mod), c->in, entry_bytes(h)) < 0)
		return ST_ICM_ERROR;
	return ST_OK;
}

/* Member QPs of the group `gid`: walks the hash chain. Returns the count (≤ max), or -1. */
int hcasim_mcg_find(struct hcasim *h, const uint8_t gid[16], uint32_t *qpns, unsigned max)
{
	uint8_t e[4096];
	uint32_t idx = hcasim_mgid_hash(h, gid);
	int n = 0;

	for (unsigned hops = 0; hops < (1u << h->lay.log_mc_table_sz); hops++) {
		uint8_t *hdr = PRM_SUB(mcg_entry, hdr, e);
		uint8_t egid[16];
		unsigned members;

		if (hcasim_icm_read(h, hcasim_mcg_va(h, idx), e, entry_bytes(h)) < 0) {
			hcasim_catastrophe(h, "MCG entry in unmapped ICM");
			return -1;
		}
		hermonprm_store_dword(egid, 0, PRM_GET(mcg_hdr, gid3, hdr));
		hermonprm_store_dword(egid, 1, PRM_GET(mcg_hdr, gid2, hdr));
		hermonprm_store_dword(egid, 2, PRM_GET(mcg_hdr, gid1, hdr));
		hermonprm_store_dword(egid, 3, PRM_GET(mcg_hdr, gid0, hdr));
		members = PRM_GET(mcg_hdr, members_count, hdr);
		if (members > max_members(h))
			members = max_members(h);
		if (memcmp(egid, gid, 16) == 0) {
			for (unsigned i = 0; i < members && n < (int)max; i++)
				qpns[n++] = PRM_GET(mcg_qp_dw, qpn, PRM_SUBI(mcg_entry, qp, e, i));
			return n;
		}
		idx = PRM_GET(mcg_hdr, next_mcg, hdr);
		if (!idx)
			break;
	}
	return 0;
}

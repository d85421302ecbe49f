/* SPDX-License-Identifier: MIT */
/* Driver pieces that need no device: ICM sizing, INIT_HCA and MPT contents, mapping blocks. */
#include "test.h"
#include <ibboot/hermon_prm.h>
#include <ibboot/errno.h>
#include "hermon.h"

/* Plausible ConnectX-3 limits (the figures Linux mlx4 prints for a CX-3 with fw 2.4x). */
static void cx3_caps(struct hermon_caps *c)
{
	memset(c, 0, sizeof(*c));
	c->reserved_qps = 64; c->reserved_srqs = 64; c->reserved_cqs = 128; c->reserved_eqs = 32;
	c->reserved_mtts = 16; c->reserved_mrws = 16; c->reserved_uars = 8;
	c->qpc_entry_size = 256; c->altc_entry_size = 128; c->auxc_entry_size = 128;
	c->srqc_entry_size = 128; c->cqc_entry_size = 128; c->eqc_entry_size = 128;
	c->cmpt_entry_size = 64; c->dmpt_entry_size = 64; c->mtt_entry_size = 8;
	c->num_ports = 2; c->log_max_qp_sz = 15; c->log_max_cq_sz = 22;
}

static bool overlaps(const struct hermon_icm_table *a, const struct hermon_icm_table *b)
{
	return a->base < b->base + b->len && b->base < a->base + a->len;
}

TEST(hermon_icm_plan_tables_aligned_and_disjoint)
{
	struct hermon_caps c;
	struct hermon_icm_plan p;

	cx3_caps(&c);
	CHECK_EQ(hermon_icm_plan(&c, &p), 0);
	const struct hermon_icm_table *t[] = { &p.qpc, &p.altc, &p.auxc, &p.srqc, &p.cqc, &p.eqc,
					       &p.mtt, &p.dmpt, &p.mcg };
	uint64_t other_end = p.region[HERMON_ICM_OTHER].base + p.region[HERMON_ICM_OTHER].len;
	uint64_t sum = 0;

	for (unsigned i = 0; i < 9; i++) {
		CHECK(t[i]->len > 0);
		CHECK_EQ(t[i]->base % t[i]->len, 0);          /* each table aligned to its size */
		CHECK(t[i]->base >= p.region[HERMON_ICM_OTHER].base);
		CHECK(t[i]->base + t[i]->len <= other_end);
		sum += t[i]->len;
		for (unsigned j = 0; j < i; j++)
			CHECK(!overlaps(t[i], t[j]));
	}
	/* Largest-first placement wastes nothing but the final page rounding. */
	CHECK(p.region[HERMON_ICM_OTHER].len - sum < HERMON_PAGE_SIZE);
	for (unsigned k = 0; k < HERMON_ICM_NUM_REGIONS; k++)
		CHECK_EQ(p.region[k].len % HERMON_PAGE_SIZE, 0);
	CHECK_EQ(p.region[HERMON_ICM_CQ_CMPT].base, 2ull * (1ull << 24) * 64);
	/* The other tables sit in the QP cMPT stride, past its mapped prefix; ICM ends at EQ cMPT. */
	CHECK(p.region[HERMON_ICM_OTHER].base >= p.region[HERMON_ICM_QP_CMPT].len);
	CHECK(other_end <= p.region[HERMON_ICM_SRQ_CMPT].base);
	CHECK_EQ(p.icm_size, p.region[HERMON_ICM_EQ_CMPT].base + p.region[HERMON_ICM_EQ_CMPT].len);
}

TEST(hermon_icm_plan_counts_cover_what_boot_uses)
{
	struct hermon_caps c;
	struct hermon_icm_plan p;

	cx3_caps(&c);
	CHECK_EQ(hermon_icm_plan(&c, &p), 0);
	CHECK_EQ(p.special_qpn_base, 64);
	CHECK_EQ(p.qpn_base, 72);
	CHECK((1u << p.qpc.log_num) >= p.qpn_base + HERMON_MAX_QPS);
	CHECK((1u << p.cqc.log_num) >= c.reserved_cqs + HERMON_MAX_CQS);
	CHECK_EQ(p.eqn, 32);                       /* max(4 * reserved UARs, reserved EQs) */
	CHECK((1u << p.eqc.log_num) > p.eqn);
	CHECK((1u << p.mtt.log_num) >= c.reserved_mtts + HERMON_MAX_MTTS);
	CHECK((1u << p.dmpt.log_num) > c.reserved_mrws);
	/* Known figure for these caps: 4 cMPT prefixes (8+4+16+4 KiB) + 120 KiB of other tables
	 * (QPC 32, ALTC 16, AUXC 16, SRQC 8, CQC 32, EQC 8, MTT 2, dMPT 4, MCG 2). */
	CHECK_EQ(p.mapped_len, 152 * 1024);

	/* An EQ whose doorbell page would be the CQ/QP page is refused. */
	c.reserved_uars = 128;
	CHECK_EQ(hermon_icm_plan(&c, &p), -ERANGE);
	cx3_caps(&c);
	c.qpc_entry_size = 200;                    /* not a power of two: nonsense caps */
	CHECK_EQ(hermon_icm_plan(&c, &p), -ERANGE);
}

TEST(hermon_init_hca_mailbox_from_plan)
{
	struct hermon_caps c;
	struct hermon_icm_plan p;
	uint8_t buf[HERMONPRM_INIT_HCA_ST_BYTES];

	cx3_caps(&c);
	CHECK_EQ(hermon_icm_plan(&c, &p), 0);
	hermon_icm_fill_init_hca(&p, buf);
	void *q = hermonprm_init_hca_st_qpc_eec_cqc_eqc_rdb_parameters(buf);
	void *tpt = hermonprm_init_hca_st_tpt_parameters(buf);
	void *mc = hermonprm_init_hca_st_multicast_parameters(buf);

	CHECK_EQ(hermonprm_init_hca_st_get_version(buf), 2);
	CHECK_EQ(((uint64_t)hermonprm_qpcbaseaddr_st_get_qpc_base_addr_h(q) << 32) |
		 ((uint64_t)hermonprm_qpcbaseaddr_st_get_qpc_base_addr_l(q) << 5), p.qpc.base);
	CHECK_EQ(hermonprm_qpcbaseaddr_st_get_log_num_of_qp(q), p.qpc.log_num);
	CHECK_EQ(((uint64_t)hermonprm_qpcbaseaddr_st_get_eqc_base_addr_h(q) << 32) |
		 ((uint64_t)hermonprm_qpcbaseaddr_st_get_eqc_base_addr_l(q) << 5), p.eqc.base);
	CHECK_EQ(((uint64_t)hermonprm_tptparams_st_get_dmpt_base_adr_h(tpt) << 32) |
		 hermonprm_tptparams_st_get_dmpt_base_adr_l(tpt), p.dmpt.base);
	CHECK_EQ(hermonprm_tptparams_st_get_log_dmpt_sz(tpt), p.dmpt.log_num);
	CHECK_EQ(hermonprm_multicastparam_st_get_log_mc_table_hash_sz(mc), HERMON_LOG_MCG_HASH);
	CHECK_EQ(hermonprm_multicastparam_st_get_log_mc_table_sz(mc), HERMON_LOG_MCG_TABLE);
	CHECK_EQ(hermonprm_multicastparam_st_get_log_mc_table_entry_sz(mc), 6);
	CHECK_EQ(hermonprm_uar_params_st_get_log_max_uars(hermonprm_init_hca_st_uar_parameters(buf)),
		 HERMON_LOG_MAX_UARS);
}

TEST(hermon_mpt_grants_local_access_only)
{
	uint8_t mpt[HERMONPRM_MPT_ST_BYTES];
	/* dword 0: r_w (bit 8), pa (9), lr (10), lw (11) — and nothing remote (12-15). */
	static const uint8_t expect_dw0[4] = { 0x00, 0x00, 0x0f, 0x00 };

	hermon_fill_mpt(mpt, 0xa5000011u, HERMON_GLOBAL_PD);
	CHECK_MEM(mpt, expect_dw0, 4);
	CHECK_EQ(hermonprm_mpt_st_get_rr(mpt), 0);
	CHECK_EQ(hermonprm_mpt_st_get_rw(mpt), 0);
	CHECK_EQ(hermonprm_mpt_st_get_atomic(mpt), 0);
	CHECK_EQ(hermonprm_mpt_st_get_eb(mpt), 0);
	CHECK_EQ(hermonprm_load_dword(mpt, 2), 0xa5000011u);   /* mem_key, stored rotated */
	CHECK_EQ(hermonprm_load_dword(mpt, 3), HERMON_GLOBAL_PD);
	CHECK_EQ(hermonprm_load_dword(mpt, 10), 0x00400000u);  /* len64: all of memory */
	CHECK_EQ(hermonprm_load_dword(mpt, 8), 0);             /* lkey must be 0 for SW2HW */
}

TEST(hermon_vpm_fill_uses_fewest_aligned_blocks)
{
	uint8_t vpm[16 * 64];
	int n;

	/* 7 pages at a 32 KiB-aligned address: 16 + 8 + 4 KiB. */
	n = hermon_vpm_fill(0x100000000ull, 0x200000, 7 * 4096, vpm, 64);
	CHECK_EQ(n, 3);
	CHECK_EQ(hermonprm_virtual_physical_mapping_st_get_log2size(vpm), 2);
	CHECK_EQ(hermonprm_virtual_physical_mapping_st_get_log2size(vpm + 16), 1);
	CHECK_EQ(hermonprm_virtual_physical_mapping_st_get_log2size(vpm + 32), 0);
	CHECK_EQ(hermonprm_virtual_physical_mapping_st_get_pa_l(vpm + 16), (0x200000 + 0x4000) >> 12);
	CHECK_EQ(hermonprm_virtual_physical_mapping_st_get_va_h(vpm), 1);
	/* Virtual and physical out of phase: every block shrinks to the common alignment. */
	n = hermon_vpm_fill(0, 0x3000, 4 * 4096, vpm, 64);
	CHECK_EQ(n, 4);
	for (int i = 0; i < n; i++)
		CHECK_EQ(hermonprm_virtual_physical_mapping_st_get_log2size(vpm + 16 * i), 0);
	CHECK_EQ(hermon_vpm_fill(0, 0x1000, 4096, vpm, 0), -ENOSPC);
	CHECK_EQ(hermon_vpm_fill(0, 0x1001, 4096, vpm, 4), -EINVAL);
}

TEST(hermon_bitmap_allocates_contiguous_runs)
{
	uint8_t map[4] = { 0 };

	CHECK_EQ(hermon_bitmap_alloc(map, 32, 3), 0);
	CHECK_EQ(hermon_bitmap_alloc(map, 32, 1), 3);
	hermon_bitmap_free(map, 0, 3);
	CHECK_EQ(hermon_bitmap_alloc(map, 32, 4), 4);
	CHECK_EQ(hermon_bitmap_alloc(map, 32, 2), 0);
	CHECK_EQ(hermon_bitmap_alloc(map, 32, 40), -ENOSPC);
}

/* SPDX-License-Identifier: MIT */
/* Tests of the generated PRM accessors (build/include/ibboot/hermon_prm.h). */
#define HERMONPRM_FIELD_TABLE
#include <ibboot/hermon_prm.h>

#include "test.h"

/*
 * The MPT entry ibboot registers, worked out by hand from the seed's field table
 * (shared/seeds/000_*.txt, hermonprm_mpt_st), independently of the generator:
 *
 * dword 0: reserved0 bits 0-7, r_w bit 8, pa 9, lr 10, lw 11, rr 12, rw 13, atomic 14, eb 15,
 *          atc_req 16, atc_xlated 17, reserved1 18, no_snoop 19, reserved2 20-27, status 28-31.
 *          r_w=1, pa=1, lr=1, lw=1, rr=rw=atomic=0, status=0:
 *          (1<<8)|(1<<9)|(1<<10)|(1<<11) = 0x00000f00  → bytes 00 00 0f 00
 * dword 1: reserved3 0-6, bqp 7, qpn 8-31 → all 0
 * dword 2: mem_key = 0x5a3c9e81        → 5a 3c 9e 81
 * dword 3: pd bits 0-23 = 0x123456, en_rinv 24, ei 25, nce 26, fre 27, rae 28, w_dif 29, m_dif 30
 *          → 0x00123456                → 00 12 34 56
 * dword 4/5: start_addr_h = 0x00000001, start_addr_l = 0x80000000 (start 0x1_8000_0000)
 * dword 6/7: len_h = 0, len_l = 0x00200000 (2 MiB)
 * dword 8: lkey = 0 (must be 0 for SW2HW_MPT)
 * dword 9: win_cnt 0-23, reserved5 24-31 → 0
 * dword 10: mtt_rep 0-3, reserved6 4-20, block_mode 21, len64 22, fbo_en 23, reserved7 24-31
 *          len64 = 1 → 1<<22 = 0x00400000  → 00 40 00 00
 * dword 11: mtt_adr_h 0-7 = 0x12, reserved8 8-31 → 00 00 00 12
 * dword 12: mtt_adr_l = 0x00abc000      → 00 ab c0 00
 * dword 13: mtt_size = 0x200            → 00 00 02 00
 * dword 14: entity_size 0-20 = 12 (4 KiB pages), reserved9 21-31 → 00 00 00 0c
 * dword 15: mtt_fbo 0-20 = 0x123, reserved10 21-31 → 00 00 01 23
 */
static const uint8_t mpt_expected[64] = {
	0x00, 0x00, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x5a, 0x3c, 0x9e, 0x81, 0x00, 0x12, 0x34, 0x56,
	0x00, 0x00, 0x00, 0x01, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12,
	0x00, 0xab, 0xc0, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x01, 0x23,
};

/* The fields of the vector above, each with its generated setter and getter. */
static const struct {
	void (*set)(void *buf, uint32_t v);
	uint32_t (*get)(const void *buf);
	uint32_t v;
} mpt_fields[] = {
	{ hermonprm_mpt_st_set_r_w, hermonprm_mpt_st_get_r_w, 1 },
	{ hermonprm_mpt_st_set_pa, hermonprm_mpt_st_get_pa, 1 },
	{ hermonprm_mpt_st_set_lr, hermonprm_mpt_st_get_lr, 1 },
	{ hermonprm_mpt_st_set_lw, hermonprm_mpt_st_get_lw, 1 },
	{ hermonprm_mpt_st_set_rr, hermonprm_mpt_st_get_rr, 0 },
	{ hermonprm_mpt_st_set_rw, hermonprm_mpt_st_get_rw, 0 },
	{ hermonprm_mpt_st_set_atomic, hermonprm_mpt_st_get_atomic, 0 },
	{ hermonprm_mpt_st_set_status, hermonprm_mpt_st_get_status, 0 },
	{ hermonprm_mpt_st_set_mem_key, hermonprm_mpt_st_get_mem_key, 0x5a3c9e81 },
	{ hermonprm_mpt_st_set_pd, hermonprm_mpt_st_get_pd, 0x123456 },
	{ hermonprm_mpt_st_set_start_addr_h, hermonprm_mpt_st_get_start_addr_h, 0x1 },
	{ hermonprm_mpt_st_set_start_addr_l, hermonprm_mpt_st_get_start_addr_l, 0x80000000 },
	{ hermonprm_mpt_st_set_len_h, hermonprm_mpt_st_get_len_h, 0 },
	{ hermonprm_mpt_st_set_len_l, hermonprm_mpt_st_get_len_l, 0x200000 },
	{ hermonprm_mpt_st_set_len64, hermonprm_mpt_st_get_len64, 1 },
	{ hermonprm_mpt_st_set_mtt_adr_h, hermonprm_mpt_st_get_mtt_adr_h, 0x12 },
	{ hermonprm_mpt_st_set_mtt_adr_l, hermonprm_mpt_st_get_mtt_adr_l, 0xabc000 },
	{ hermonprm_mpt_st_set_mtt_size, hermonprm_mpt_st_get_mtt_size, 0x200 },
	{ hermonprm_mpt_st_set_entity_size, hermonprm_mpt_st_get_entity_size, 12 },
	{ hermonprm_mpt_st_set_mtt_fbo, hermonprm_mpt_st_get_mtt_fbo, 0x123 },
};

TEST(mpt_matches_hand_worked_vector)
{
	uint8_t mpt[HERMONPRM_MPT_ST_BYTES];
	size_t n = sizeof(mpt_fields) / sizeof(mpt_fields[0]);

	CHECK_EQ(sizeof(mpt), 64);
	memset(mpt, 0, sizeof(mpt));
	for (size_t i = 0; i < n; i++)
		mpt_fields[i].set(mpt, mpt_fields[i].v);
	CHECK_MEM(mpt, mpt_expected, sizeof(mpt));

	/* And back: every getter reads what the vector holds. */
	for (size_t i = 0; i < n; i++) {
		if (mpt_fields[i].get(mpt_expected) != mpt_fields[i].v)
			fprintf(stderr, "  field %zu reads 0x%x\n", i, mpt_fields[i].get(mpt_expected));
		CHECK_EQ(mpt_fields[i].get(mpt_expected), mpt_fields[i].v);
	}
}

TEST(values_are_masked_to_field_width)
{
	uint8_t mpt[HERMONPRM_MPT_ST_BYTES];

	memset(mpt, 0, sizeof(mpt));
	/* status is 4 bits at 28..31: the excess must not wrap into anything. */
	hermonprm_mpt_st_set_status(mpt, 0xfff);
	CHECK_EQ(hermonprm_load_dword(mpt, 0), 0xf0000000);
	CHECK_EQ(hermonprm_mpt_st_get_status(mpt), 0xf);
	/* pd is 24 bits: bit 24 belongs to en_rinv. */
	hermonprm_mpt_st_set_pd(mpt, 0x1ffffff);
	CHECK_EQ(hermonprm_mpt_st_get_en_rinv(mpt), 0);
	CHECK_EQ(hermonprm_mpt_st_get_pd(mpt), 0xffffff);
}

/* Bit-by-bit reference, written independently of the generated code. */
static int ref_bit(const uint8_t *buf, unsigned long bit)
{
	unsigned long dw = bit / 32, b = bit % 32;

	return (buf[4 * dw + 3 - b / 8] >> (b % 8)) & 1;
}

static uint64_t mask_of(unsigned long bits)
{
	return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

/* For every field of every struct: fill the buffer with noise, write a random value, read it
 * back, and check through the reference that only the field's own bits changed. */
TEST(every_field_round_trips_without_bleeding)
{
	size_t n = sizeof(hermonprm_field_table) / sizeof(hermonprm_field_table[0]);
	static uint8_t before[1024], after[1024];
	unsigned checked = 0;

	CHECK(n > 1000);
	for (size_t i = 0; i < n; i++) {
		const struct hermonprm_field_desc *f = &hermonprm_field_table[i];
		unsigned long elems = f->count ? f->count : 1;

		CHECK(f->struct_bytes <= sizeof(before));
		for (unsigned long e = 0; e < elems && f->struct_bytes <= sizeof(before); e++) {
			unsigned long off = f->offset + e * f->bits;
			uint64_t v = test_rand() & mask_of(f->bits), got;

			for (size_t k = 0; k < f->struct_bytes; k++)
				before[k] = (uint8_t)test_rand();
			memcpy(after, before, f->struct_bytes);
			if (f->seta32) {
				f->seta32(after, (unsigned)e, (uint32_t)v);
				got = f->geta32(after, (unsigned)e);
			} else if (f->set32) {
				f->set32(after, (uint32_t)v);
				got = f->get32(after);
			} else {
				f->set64(after, v);
				got = f->get64(after);
			}
			if (got != v)
				test_fail(__FILE__, __LINE__, "%s.%s[%lu]: wrote 0x%llx read 0x%llx",
					  f->structure, f->field, e, (unsigned long long)v,
					  (unsigned long long)got);
			for (unsigned long bit = 0; bit < f->struct_bytes * 8; bit++) {
				int inside = bit >= off && bit < off + f->bits;
				int want = inside ? (int)((v >> (bit - off)) & 1) : ref_bit(before, bit);

				if (ref_bit(after, bit) != want) {
					test_fail(__FILE__, __LINE__, "%s.%s[%lu]: bit %lu wrong",
						  f->structure, f->field, e, bit);
					break;
				}
			}
			checked++;
		}
	}
	CHECK(checked >= n);
}

TEST(struct_sizes_match_the_layout_file)
{
	CHECK_EQ(HERMONPRM_MPT_ST_BYTES, 64);
	CHECK_EQ(HERMONPRM_HCA_COMMAND_REGISTER_ST_BYTES, 28);
	CHECK_EQ(HERMONPRM_COMPLETION_QUEUE_ENTRY_ST_BYTES, 32);
	CHECK_EQ(HERMONPRM_QUERY_DEV_CAP_ST_BYTES, 256);
	CHECK_EQ(HERMONPRM_INIT_HCA_ST_BYTES, 512);
	CHECK_EQ(HERMONPRM_MTT_ST_BYTES, 8);
	CHECK(sizeof(hermonprm_struct_table) / sizeof(hermonprm_struct_table[0]) == 96);
}

TEST(nested_structs_point_into_the_parent)
{
	uint8_t hca[HERMONPRM_INIT_HCA_ST_BYTES];
	uint8_t mcg[HERMONPRM_MCG_ENTRY_ST_BYTES];
	void *tpt = hermonprm_init_hca_st_tpt_parameters(hca);

	memset(hca, 0, sizeof(hca));
	CHECK_EQ((uint8_t *)tpt - hca, HERMONPRM_INIT_HCA_ST_TPT_PARAMETERS_OFFSET / 8);
	hermonprm_tptparams_st_set_log_dmpt_sz(tpt, 5);
	CHECK_EQ(hermonprm_tptparams_st_get_log_dmpt_sz(hermonprm_init_hca_st_tpt_parameters(hca)), 5);

	/* An array of nested structs: qp[i] of an MCG entry, 4 bytes apart after the 32-byte header. */
	memset(mcg, 0, sizeof(mcg));
	CHECK_EQ(HERMONPRM_MCG_ENTRY_ST_QP_COUNT, 8);
	for (unsigned i = 0; i < 8; i++)
		hermonprm_mcg_qp_dw_st_set_qpn(hermonprm_mcg_entry_st_qp(mcg, i), 0x100 + i);
	CHECK_EQ(hermonprm_load_dword(mcg, 8), 0x100);
	CHECK_EQ(hermonprm_load_dword(mcg, 15), 0x107);
}

TEST(fields_may_cross_dwords)
{
	uint8_t buf[8];

	memset(buf, 0, sizeof(buf));
	/* 16 bits at bit 24: the top byte of dword 0 and the low byte of dword 1. */
	hermonprm_put_bits(buf, 24, 16, 0xabcd);
	CHECK_EQ(hermonprm_load_dword(buf, 0), 0xcd000000);
	CHECK_EQ(hermonprm_load_dword(buf, 1), 0x000000ab);
	CHECK_EQ(hermonprm_get_bits(buf, 24, 16), 0xabcd);
	/* 64 bits at bit 0 span both dwords. */
	hermonprm_put_bits(buf, 0, 64, 0x0123456789abcdefull);
	CHECK_EQ(hermonprm_get_bits(buf, 0, 64), 0x0123456789abcdefull);
}

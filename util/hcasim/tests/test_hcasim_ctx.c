/* SPDX-License-Identifier: MIT */
/* hcasim: contexts live in ICM where INIT_HCA put them; MPT/EQ/CQ/QP command statuses. */
#include <string.h>

#include <ibboot/hermon_prm.h>

#include "rawhost.h"
#include "test.h"

#define G(st, f, b) hermonprm_##st##_st_get_##f(b)
#define S(st, f, b, v) hermonprm_##st##_st_set_##f((b), (v))

static uint8_t *icm(struct rawhost *rh, const struct rawhost_table *t, uint32_t idx)
{
	return rawhost_ptr(rh, t->pa + (uint64_t)idx * t->entry_sz);
}

TEST(hcasim_ctx_cq_lands_in_icm_and_query_reads_it)
{
	struct rawhost rh;
	struct rawhost_cq cq;
	uint8_t out[64], in[64] = { 0 };

	CHECK_EQ(rawhost_up(&rh), 0);
	CHECK_EQ(rawhost_create_cq(&rh, &cq, 200, 4), 0);
	/* the CQC is at cqc_base + 200 * 64, in the guest page MAP_ICM gave */
	CHECK_EQ(G(completion_queue_context, log_cq_size, icm(&rh, &rh.cqc, 200)), 4);
	CHECK_EQ(G(completion_queue_context, c_eqn, icm(&rh, &rh.cqc, 200)), RAWHOST_EQN);
	CHECK_EQ(G(completion_queue_context, log_cq_size, icm(&rh, &rh.cqc, 199)), 0);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x018, 0, 200, NULL, 0, out, sizeof(out), NULL), 0);
	CHECK_MEM(out, icm(&rh, &rh.cqc, 200), 64);
	/* statuses: already owned, out of range, not owned, bad EQ */
	CHECK_EQ(rawhost_create_cq(&rh, &cq, 200, 4), 0x09);
	CHECK_EQ(rawhost_create_cq(&rh, &cq, 256, 4), 0x0a);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x018, 0, 201, NULL, 0, out, sizeof(out), NULL), 0x09);
	CHECK_EQ(rawhost_cmd(&rh, 0x017, 0, 0, 201, 0, NULL), 0x09);
	CHECK_EQ(rawhost_cmd(&rh, 0x017, 0, 0, 999, 0, NULL), 0x0a);
	S(completion_queue_context, log_cq_size, in, 3);
	S(completion_queue_context, c_eqn, in, 100);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x016, 0, 5, in, sizeof(in), NULL, 0, NULL), 0x03);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x017, 0, 200, NULL, 0, out, sizeof(out), NULL), 0);
	CHECK_EQ(G(completion_queue_context, log_cq_size, out), 4);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x018, 0, 200, NULL, 0, out, sizeof(out), NULL), 0x09);
	rawhost_fini(&rh);
}

TEST(hcasim_ctx_unmapped_icm_is_an_icm_error)
{
	struct rawhost rh;
	struct rawhost_cq cq;

	CHECK_EQ(rawhost_up(&rh), 0);
	CHECK_EQ(rawhost_cmd(&rh, 0xff9, 0, rh.cqc.va, (uint32_t)(rh.cqc.bytes / 4096), 0, NULL), 0);
	CHECK_EQ(rawhost_create_cq(&rh, &cq, 130, 3), 0x0c);
	CHECK(strstr(hcasim_refused(rh.h, 0), "not mapped") != NULL);
	/* nothing was taken over: QUERY_CQ says the CQ is not in hardware */
	CHECK_EQ(rawhost_cmd(&rh, 0x018, 0, 0, 130, rh.out_mbox, NULL), 0x09);
	/* an unmapped cMPT is an ICM error too */
	CHECK_EQ(rawhost_cmd(&rh, 0xff9, 0, rh.cmpt[2].va, 1, 0, NULL), 0);
	rawhost_fini(&rh);
}

/* One field of a PRM structure set to a value, through its generated setter. */
struct prm_edit {
	void (*set)(void *buf, uint32_t v);
	uint32_t v;
};

static const struct prm_edit bad_mpt[][3] = {
	/* key does not name the index */
	{ { hermonprm_mpt_st_set_r_w, 1 }, { hermonprm_mpt_st_set_pa, 1 },
	  { hermonprm_mpt_st_set_mem_key, 0x42000011 } },
	/* memory windows are not modelled */
	{ { hermonprm_mpt_st_set_mem_key, 0x42000012 }, { hermonprm_mpt_st_set_r_w, 0 } },
	/* lkey must be 0 */
	{ { hermonprm_mpt_st_set_r_w, 1 }, { hermonprm_mpt_st_set_lkey, 5 } },
	/* a virtual region needs MTTs */
	{ { hermonprm_mpt_st_set_lkey, 0 }, { hermonprm_mpt_st_set_pa, 0 } },
};

TEST(hcasim_ctx_mpt_commands)
{
	struct rawhost rh;
	uint8_t out[64], m[64] = { 0 };
	uint32_t key;

	CHECK_EQ(rawhost_up(&rh), 0);
	/* the bring-up MR is at dmpt_base + 16 * 64, status 0 (hardware) */
	CHECK_EQ(G(mpt, mem_key, icm(&rh, &rh.dmpt, 16)), 0x77000010u);
	CHECK_EQ(G(mpt, status, icm(&rh, &rh.dmpt, 16)), 0);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x00e, 0, 16, NULL, 0, out, sizeof(out), NULL), 0);
	CHECK_EQ(G(mpt, pd, out), RAWHOST_PD);
	CHECK_EQ(rawhost_reg_mr(&rh, 16, 0, 0, 0, 3, true, RAWHOST_PD, &key), 0x09);
	CHECK_EQ(rawhost_reg_mr(&rh, 300, 0, 0, 0, 3, true, RAWHOST_PD, &key), 0x0a);
	/* SW2HW_MPT refuses each of these entries; every row edits the entry the previous row left */
	for (size_t i = 0; i < sizeof(bad_mpt) / sizeof(bad_mpt[0]); i++) {
		for (size_t j = 0; j < 3 && bad_mpt[i][j].set; j++)
			bad_mpt[i][j].set(m, bad_mpt[i][j].v);
		CHECK_EQ(rawhost_cmd_mbox(&rh, 0x00d, 0, 18, m, sizeof(m), NULL, 0, NULL), 0x03);
	}
	/* HW2SW returns it and marks it software-owned in ICM */
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x00f, 0, 16, NULL, 0, out, sizeof(out), NULL), 0);
	CHECK_EQ(G(mpt, mem_key, out), 0x77000010u);
	CHECK_EQ(G(mpt, status, icm(&rh, &rh.dmpt, 16)), 0xf);
	CHECK_EQ(rawhost_cmd(&rh, 0x00f, 1, 0, 16, 0, NULL), 0x09);
	CHECK_EQ(rawhost_cmd(&rh, 0x00e, 0, 0, 16, rh.out_mbox, NULL), 0x09);
	CHECK_EQ(rawhost_cmd(&rh, 0x00e, 0, 0, 4096, rh.out_mbox, NULL), 0x0a);
	rawhost_fini(&rh);
}

TEST(hcasim_ctx_write_mtt_lands_in_icm)
{
	struct rawhost rh;
	uint8_t mb[32] = { 0 };
	uint64_t off;

	CHECK_EQ(rawhost_up(&rh), 0);
	off = rawhost_write_mtt(&rh, 0x12345000, 2);
	CHECK(off != ~0ull);
	CHECK_EQ(G(mtt, ptag_l, rawhost_ptr(&rh, rh.mtt.pa + off)), 0x12345000u >> 3);
	CHECK_EQ(G(mtt, p, rawhost_ptr(&rh, rh.mtt.pa + off)), 1);
	CHECK_EQ(G(mtt, ptag_l, rawhost_ptr(&rh, rh.mtt.pa + off + 8)), 0x12346000u >> 3);
	/* misaligned offset, zero count, beyond the mapped MTT table */
	S(scalar_parameter, value, mb, 4);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x011, 0, 1, mb, sizeof(mb), NULL, 0, NULL), 0x03);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x011, 0, 0, mb, sizeof(mb), NULL, 0, NULL), 0x03);
	S(scalar_parameter, value, mb, (uint32_t)(rh.icm_size - rh.mtt.va + 0x10000));
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x011, 0, 1, mb, sizeof(mb), NULL, 0, NULL), 0x0c);
	rawhost_fini(&rh);
}

TEST(hcasim_ctx_eq_commands_and_map_eq)
{
	struct rawhost rh;
	uint8_t out[64], in[64] = { 0 };

	CHECK_EQ(rawhost_up(&rh), 0);
	CHECK_EQ(G(eqc, log_eq_size, icm(&rh, &rh.eqc, RAWHOST_EQN)), 3);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x015, 0, RAWHOST_EQN, NULL, 0, out, sizeof(out), NULL), 0);
	CHECK_MEM(out, icm(&rh, &rh.eqc, RAWHOST_EQN), 64);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x013, 0, RAWHOST_EQN, in, sizeof(in), NULL, 0, NULL), 0x09);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x013, 0, 64, in, sizeof(in), NULL, 0, NULL), 0x0a);
	S(eqc, log_eq_size, in, 30);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x013, 0, 33, in, sizeof(in), NULL, 0, NULL), 0x03);
	CHECK_EQ(rawhost_cmd(&rh, 0x012, 0, ~0ull, 33, 0, NULL), 0x09); /* map to a missing EQ */
	CHECK_EQ(rawhost_cmd(&rh, 0x015, 0, 0, 33, rh.out_mbox, NULL), 0x09);
	CHECK_EQ(rawhost_cmd(&rh, 0x014, 1, 0, 33, 0, NULL), 0x09);
	CHECK_EQ(rawhost_cmd(&rh, 0x014, 1, 0, 99, 0, NULL), 0x0a);
	rawhost_fini(&rh);
}

TEST(hcasim_ctx_qp_state_machine)
{
	struct rawhost rh;
	struct rawhost_cq cq;
	struct rawhost_qp qp;
	struct rawhost_qp_attr a = { .st = 3, .log_sq = 4, .log_rq = 3, .qkey = 0x1111,
				     .cqn_snd = 130, .cqn_rcv = 130, .to_state = 1 };
	uint8_t mb[512] = { 0 }, out[512];

	CHECK_EQ(rawhost_up_with_qp(&rh, &cq, &qp, &a), 0);
	/* QPC in ICM at qpc_base + qpn * 256, state INIT, Q_Key as given */
	{
		uint8_t *q = icm(&rh, &rh.qpc, 0x100);

		CHECK_EQ(G(queue_pair_ee_context_entry, state, q), 1);
		CHECK_EQ(G(queue_pair_ee_context_entry, q_key, q), 0x1111);
		CHECK_EQ(G(queue_pair_ee_context_entry, local_qpn_een, q), 0x100);
	}
	/* wrong transitions: bad QP state, nothing changes */
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x01b, 0, 0x100, mb, sizeof(mb), NULL, 0, NULL), 0x10);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x019, 0, 0x100, mb, sizeof(mb), NULL, 0, NULL), 0x10);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x01c, 0, 0x100, mb, sizeof(mb), NULL, 0, NULL), 0x10);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x022, 0, 0x100, NULL, 0, out, sizeof(out), NULL), 0);
	CHECK_EQ(G(queue_pair_ee_context_entry, state, hermonprm_qp_ee_state_transitions_st_qpc_eec_data(out)), 1);
	/* INIT2INIT with the Q_Key optional parameter */
	S(queue_pair_ee_context_entry, q_key, hermonprm_qp_ee_state_transitions_st_qpc_eec_data(mb), 0x2222);
	S(qp_ee_state_transitions, opt_param_mask, mb, 1 << 5);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x02d, 0, 0x100, mb, sizeof(mb), NULL, 0, NULL), 0);
	CHECK_EQ(G(queue_pair_ee_context_entry, q_key, icm(&rh, &rh.qpc, 0x100)), 0x2222);
	/* to error, to reset, then RST2INIT again */
	CHECK_EQ(rawhost_cmd(&rh, 0x01e, 0, 0, 0x100, 0, NULL), 0);
	CHECK_EQ(G(queue_pair_ee_context_entry, state, icm(&rh, &rh.qpc, 0x100)), 6);
	CHECK_EQ(rawhost_cmd(&rh, 0x021, 3, 0, 0x100, 0, NULL), 0);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x022, 0, 0x100, NULL, 0, out, sizeof(out), NULL), 0);
	CHECK_EQ(G(queue_pair_ee_context_entry, state, hermonprm_qp_ee_state_transitions_st_qpc_eec_data(out)), 0);
	CHECK_EQ(rawhost_create_qp(&rh, &qp, 0x100, &a), 0);
	/* RST2INIT checks: MLX on an ordinary QP, missing CQ, QPN beyond the table */
	a.st = 7;
	CHECK_EQ(rawhost_create_qp(&rh, &qp, 0x101, &a), 0x03);
	a.st = 3;
	a.cqn_snd = 131;
	CHECK_EQ(rawhost_create_qp(&rh, &qp, 0x101, &a), 0x05);
	a.cqn_snd = 130;
	CHECK_EQ(rawhost_create_qp(&rh, &qp, 0x10000, &a), 0x03); /* index 0: reserved */
	a.st = 5; /* not a transport */
	CHECK_EQ(rawhost_create_qp(&rh, &qp, 0x101, &a), 0x03);
	/* CONF_SPECIAL_QP: base must be aligned, above reserved, and the block unused */
	CHECK_EQ(rawhost_cmd(&rh, 0x023, 0, 0, 0x101, 0, NULL), 0x03);
	CHECK_EQ(rawhost_cmd(&rh, 0x023, 0, 0, 8, 0, NULL), 0x03);
	CHECK_EQ(rawhost_cmd(&rh, 0x023, 0, 0, 0x100, 0, NULL), 0x09);
	CHECK_EQ(rawhost_cmd(&rh, 0x023, 0, 0, 0, 0, NULL), 0);
	/* MLX QPs need the special block configured */
	a.st = 7;
	CHECK_EQ(rawhost_create_qp(&rh, &qp, 64, &a), 0x03);
	CHECK_EQ(rawhost_cmd(&rh, 0x023, 0, 0, 64, 0, NULL), 0);
	CHECK_EQ(rawhost_create_qp(&rh, &qp, 64, &a), 0);
	rawhost_fini(&rh);
}

TEST(hcasim_ctx_port_commands)
{
	struct rawhost rh;
	uint8_t sp[116] = { 0 };

	CHECK_EQ(rawhost_up(&rh), 0);
	S(set_port_ib, mmc, sp, 1);
	S(set_port_ib, mtu_cap, sp, 4);
	S(set_port_ib, mvc, sp, 1);
	S(set_port_ib, vl_cap, sp, 1);
	S(set_port_ib, lss, sp, 1);
	S(set_port_ib, link_speed_supported, sp, 1);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x00c, 0, 1, sp, sizeof(sp), NULL, 0, NULL), 0);
	S(set_port_ib, mtu_cap, sp, 7);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x00c, 0, 1, sp, sizeof(sp), NULL, 0, NULL), 0x03);
	S(set_port_ib, mtu_cap, sp, 4);
	/* vl_cap counts VLs (Linux mlx4_SET_PORT offers 8, 4, 2, 1 and steps down on EXCEED_LIM):
	 * 8 is the port's VL0-7, more exceeds it, a count that is no power of two is invalid */
	S(set_port_ib, vl_cap, sp, 8);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x00c, 0, 1, sp, sizeof(sp), NULL, 0, NULL), 0);
	S(set_port_ib, vl_cap, sp, 9);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x00c, 0, 1, sp, sizeof(sp), NULL, 0, NULL), 0x08);
	S(set_port_ib, vl_cap, sp, 3);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x00c, 0, 1, sp, sizeof(sp), NULL, 0, NULL), 0x03);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x00c, 1, 1, sp, sizeof(sp), NULL, 0, NULL), 0x03);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x00c, 0, 3, sp, sizeof(sp), NULL, 0, NULL), 0x03);
	CHECK_EQ(rawhost_cmd(&rh, 0x009, 0, 0, 0, 0, NULL), 0x03);
	CHECK_EQ(rawhost_cmd(&rh, 0x00a, 0, 0, 5, 0, NULL), 0x03);
	rawhost_fini(&rh);
}

/* SW2HW_CQ gives every CQE of the ring to the hardware (owner 1 on the first pass): Linux
 * mlx4_ib hands over a zeroed ring and would otherwise read each entry as a completion. */
TEST(hcasim_ctx_sw2hw_cq_sets_hardware_ownership)
{
	struct rawhost rh;
	struct rawhost_cq cq;
	uint8_t ctx[64], cqe[32];
	uint8_t *ring;

	CHECK_EQ(rawhost_up(&rh), 0);
	CHECK_EQ(rawhost_create_cq(&rh, &cq, 130, 5), 0);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x017, 0, 130, NULL, 0, ctx, sizeof(ctx), NULL), 0);
	ring = rawhost_ptr(&rh, cq.ring);
	memset(ring, 0, 32u << 5);   /* the zeroed ring Linux hands over */
	CHECK_EQ(rawhost_poll_cq(&rh, &cq, cqe), 1);   /* zeroed: reads as a completion */
	cq.ci = 0;
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x016, 0, 130, ctx, sizeof(ctx), NULL, 0, NULL), 0);
	for (unsigned i = 0; i < 32; i++)
		CHECK_EQ(G(completion_queue_entry, owner, ring + 32 * i), 1);
	CHECK_EQ(rawhost_poll_cq(&rh, &cq, cqe), 0);
	rawhost_fini(&rh);
}

/* DIAG_RPRT op_mod 2 (transport/CI error counters, which Linux mlx4_ib reads while registering
 * the device): 0x200 bytes of counters for the device (0) or a port; other reports refused. */
TEST(hcasim_ctx_diag_rprt_counters)
{
	struct rawhost rh;
	uint8_t out[0x200];

	CHECK_EQ(rawhost_up(&rh), 0);
	memset(out, 0xee, sizeof(out));
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x030, 2, 0, NULL, 0, out, sizeof(out), NULL), 0);
	CHECK_EQ(out[0x1a0], 0);
	CHECK_EQ(out[0x1ff], 0);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x030, 2, 1, NULL, 0, out, sizeof(out), NULL), 0);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x030, 2, 3, NULL, 0, out, sizeof(out), NULL), 0x03);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x030, 0, 1, NULL, 0, out, sizeof(out), NULL), 0x03);
	rawhost_fini(&rh);
}

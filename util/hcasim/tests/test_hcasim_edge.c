/* SPDX-License-Identifier: MIT */
/* hcasim: edge cases — ICM unmap splitting a mapping, QP optional parameters, bad WQEs,
 * doorbells through the wrong UAR, RC responder PSN/opcode/length rules on raw packets. */
#include <string.h>

#include <ibboot/hermon_prm.h>
#include <ibboot/wire/packet.h>

#include "check_helpers.h"
#include "rawhost.h"
#include "test.h"

#define G(st, f, b) hermonprm_##st##_st_get_##f(b)
#define S(st, f, b, v) hermonprm_##st##_st_set_##f((b), (v))
#define MAP_ICM 0xffa

TEST(hcasim_edge_unmap_icm_splits_a_mapping)
{
	struct rawhost rh;
	struct hcasim_mem_usage u0;
	uint64_t pa, va;

	CHECK_EQ(rawhost_up(&rh), 0);
	hcasim_mem_usage(rh.h, &u0);
	va = rh.qpc.va - 0x10000;
	pa = rawhost_alloc(&rh, 0x4000, 0x4000);
	CHECK_EQ(rawhost_map(&rh, MAP_ICM, va, pa, 2), 0);
	CHECK_EQ(rawhost_cmd(&rh, 0xff9, 0, va + 0x1000, 1, 0, NULL), 0);  /* middle page */
	expect_icm_bytes(&rh, u0.icm_bytes + 0x3000);
	CHECK_EQ(rawhost_map(&rh, MAP_ICM, va + 0x1000, pa + 0x1000, 0), 0); /* hole can be refilled */
	CHECK_EQ(rawhost_cmd(&rh, 0xff9, 0, va, 1, 0, NULL), 0);           /* head */
	CHECK_EQ(rawhost_cmd(&rh, 0xff9, 0, va + 0x3000, 1, 0, NULL), 0);  /* tail */
	expect_icm_bytes(&rh, u0.icm_bytes + 0x2000);
	CHECK_EQ(rawhost_cmd(&rh, 0xff9, 0, va - 0x1000, 6, 0, NULL), 0);  /* spans the rest */
	expect_icm_bytes(&rh, u0.icm_bytes);
	rawhost_fini(&rh);
}

TEST(hcasim_edge_qp_optional_parameters_and_states)
{
	struct rawhost rh;
	struct rawhost_cq cq;
	struct rawhost_qp qp;
	uint8_t mb[512] = { 0 }, out[512], *q = hermonprm_qp_ee_state_transitions_st_qpc_eec_data(mb);
	uint8_t *path = hermonprm_queue_pair_ee_context_entry_st_primary_address_path(q);
	uint8_t *icm;

	CHECK_EQ(ud_qp_up(&rh, &cq, &qp), 0);
	{
		/* the RTS2RTS mailbox: the optional-parameter mask and every field it enables */
		const struct prm_edit opt[] = {
			{ mb, hermonprm_qp_ee_state_transitions_st_set_opt_param_mask, 0x1f3ff },
			{ q, hermonprm_queue_pair_ee_context_entry_st_set_rre, 1 },
			{ q, hermonprm_queue_pair_ee_context_entry_st_set_rwe, 1 },
			{ q, hermonprm_queue_pair_ee_context_entry_st_set_rae, 1 },
			{ q, hermonprm_queue_pair_ee_context_entry_st_set_q_key, 0xabcd },
			{ q, hermonprm_queue_pair_ee_context_entry_st_set_min_rnr_nak, 12 },
			{ q, hermonprm_queue_pair_ee_context_entry_st_set_sra_max, 3 },
			{ q, hermonprm_queue_pair_ee_context_entry_st_set_rra_max, 2 },
			{ q, hermonprm_queue_pair_ee_context_entry_st_set_retry_count, 5 },
			{ q, hermonprm_queue_pair_ee_context_entry_st_set_rnr_retry, 6 },
			{ path, hermonprm_address_path_st_set_pkey_index, 1 },
			{ path, hermonprm_address_path_st_set_ack_timeout, 17 },
			{ path, hermonprm_address_path_st_set_sched_queue, 0x83 },
			{ path, hermonprm_address_path_st_set_rlid, 0x77 },
		};

		prm_apply(opt, sizeof(opt) / sizeof(opt[0]));
	}
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x01c, 0, 0x100, mb, sizeof(mb), NULL, 0, NULL), 0);
	icm = rawhost_ptr(&rh, rh.qpc.pa + 0x100 * 256);
	CHECK_EQ(G(queue_pair_ee_context_entry, q_key, icm), 0xabcd);
	CHECK_EQ(G(queue_pair_ee_context_entry, rwe, icm), 1);
	CHECK_EQ(G(queue_pair_ee_context_entry, min_rnr_nak, icm), 12);
	CHECK_EQ(G(queue_pair_ee_context_entry, rnr_retry, icm), 6);
	CHECK_EQ(G(address_path, rlid, hermonprm_queue_pair_ee_context_entry_st_primary_address_path(icm)), 0x77);
	CHECK_EQ(G(address_path, ack_timeout, hermonprm_queue_pair_ee_context_entry_st_primary_address_path(icm)), 17);
	/* SQERR2RTS only from SQER */
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x01d, 0, 0x100, mb, sizeof(mb), NULL, 0, NULL), 0x10);
	/* 2ERR from RST, then back to RST; QUERY_QP of a reset QP reports RST */
	CHECK_EQ(rawhost_cmd(&rh, 0x01e, 0, 0, 0x180, 0, NULL), 0);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x022, 0, 0x180, NULL, 0, out, sizeof(out), NULL), 0);
	CHECK_EQ(G(queue_pair_ee_context_entry, state, hermonprm_qp_ee_state_transitions_st_qpc_eec_data(out)), 6);
	CHECK_EQ(rawhost_cmd(&rh, 0x021, 0, 0, 0x180, 0, NULL), 0);
	rawhost_fini(&rh);
}

TEST(hcasim_edge_bad_wqes_and_doorbells)
{
	struct rawhost rh;
	struct rawhost_cq cq;
	struct rawhost_qp qp;
	uint8_t cqe[32], db[4] = { 0 }, *w;
	unsigned refused;

	CHECK_EQ(ud_qp_up(&rh, &cq, &qp), 0);
	/* doorbell through another UAR page, and for a QP that does not exist */
	refused = hcasim_refused_count(rh.h);
	S(send_db_register, qn, db, 0x100);
	hcasim_bar_write(rh.h, 2, 5 * 4096 + 0x14, db, 4);
	S(send_db_register, qn, db, 0x1ff);
	hcasim_bar_write(rh.h, 2, 128 * 4096 + 0x14, db, 4);
	CHECK_EQ(hcasim_refused_count(rh.h), refused + 2);
	/* a NOP WQE completes */
	w = (uint8_t *)rawhost_ptr(&rh, qp.buf);
	memset(w + 4, 0, 124);
	S(wqe_segment_ctrl_send, ds, w, 1);
	S(wqe_segment_ctrl_send, c, w, 3);
	S(wqe_segment_ctrl_send, opcode, w, 0);
	S(wqe_segment_ctrl_send, owner, w, 0);
	qp.sq_pi = 1;
	S(send_db_register, qn, db, 0x100);
	hcasim_bar_write(rh.h, 2, 128 * 4096 + 0x14, db, 4);
	rawhost_run(&rh, NULL);
	expect_cqe(&rh, &cq, cqe, 0);
	/* an RDMA WRITE on a UD QP: local QP operation error, QP to error */
	rawhost_post_rc(&rh, &qp, 0x08, rawhost_alloc(&rh, 64, 64), 8, 0, 0, 0);
	rawhost_run(&rh, NULL);
	CHECK_EQ(rawhost_poll_cq(&rh, &cq, cqe), 1);
	CHECK_EQ(G(completion_with_error, opcode, cqe), 0x1e);
	CHECK_EQ(G(completion_with_error, syndrome, cqe), 0x02);
	rawhost_fini(&rh);
}

TEST(hcasim_edge_ud_address_vector_in_other_pd)
{
	struct rawhost rh;
	struct rawhost_cq cq;
	struct rawhost_qp qp;
	struct rawhost_ud_dest d = { .dlid = 2, .dqpn = 0x200 };
	uint8_t cqe[32], *w;

	CHECK_EQ(ud_qp_up(&rh, &cq, &qp), 0);
	w = (uint8_t *)rawhost_ptr(&rh, qp.buf);
	rawhost_post_ud(&rh, &qp, &d, rawhost_alloc(&rh, 64, 64), 8, 0);
	/* rewrite the PD in the already-posted WQE before the device runs it */
	S(ud_address_vector, pd, w + 16, 0x999);
	rawhost_run(&rh, NULL);
	expect_cqe_error(&rh, &cq, cqe, 0x04);
	rawhost_fini(&rh);
}

/* RC responder driven by raw packets from a fake requester at LID 1, QP 0x100 */
struct rcraw {
	struct rawhost b;
	struct rawhost_cq cq;
	struct rawhost_qp qp;
	uint32_t rkey;
	uint64_t mem;
};

static int rcraw_up(struct rcraw *r)
{
	struct rawhost_qp_attr a = { .st = 0, .log_sq = 3, .log_rq = 3, .cqn_snd = 130, .cqn_rcv = 130,
				     .remote_qpn = 0x100, .dlid = 1, .rre = true, .rwe = true };
	int st;

	if (rawhost_init(&r->b, NULL))
		return -1;
	if ((st = rawhost_bringup(&r->b)))
		return st;
	hcasim_port_set_link(r->b.h, 1, true);
	if ((st = rawhost_set_port(&r->b, 1, 2, 4)) || (st = rawhost_create_cq(&r->b, &r->cq, 130, 3)) ||
	    (st = rawhost_create_qp(&r->b, &r->qp, 0x200, &a)))
		return st;
	r->mem = rawhost_alloc(&r->b, 8192, 4096);
	return rawhost_reg_mr(&r->b, 20, r->mem, r->mem, 8192, 0xf, false, RAWHOST_PD, &r->rkey);
}

/* Inject one RC request; returns the AETH syndrome of the device's answer (-1: none). */
static int rc_req(struct rcraw *r, uint8_t opcode, uint32_t psn, uint32_t dma_len, const void *payload,
		  size_t len)
{
	struct iblib_pkt p = { 0 }, a;
	uint8_t pkt[4300];
	unsigned before = r->b.npkts;
	int n;

	p.lrh.dlid = 2;
	p.lrh.slid = 1;
	p.bth.opcode = opcode;
	p.bth.pkey = 0xffff;
	p.bth.dest_qp = 0x200;
	p.bth.psn = psn;
	p.reth.va = r->mem;
	p.reth.rkey = r->rkey;
	p.reth.dma_len = dma_len;
	p.imm = 0x1234;
	n = iblib_pkt_build(pkt, sizeof(pkt), &p, payload, len);
	if (n < 0)
		return -2;
	hcasim_packet_in(r->b.h, 1, pkt, (size_t)n);
	rawhost_run(&r->b, NULL);
	if (r->b.npkts == before)
		return -1;
	if (iblib_pkt_parse(r->b.pkts[(r->b.npkts - 1) % RAWHOST_MAX_PKTS].data,
			    r->b.pkts[(r->b.npkts - 1) % RAWHOST_MAX_PKTS].len, &a, 0))
		return -3;
	return a.aeth.syndrome;
}

TEST(hcasim_edge_rc_responder_rules)
{
	struct rcraw r;
	static uint8_t data[4200];
	uint8_t cqe[32];

	CHECK_EQ(rcraw_up(&r), 0);
	memset(data, 0x3c, sizeof(data));
	/* PSN 5 when 0 is expected: NAK sequence error; nothing changes */
	CHECK_EQ(rc_req(&r, IBLIB_OP_RC_RDMA_WRITE_ONLY, 5, 16, data, 16), 0x60);
	CHECK_EQ(((uint8_t *)rawhost_ptr(&r.b, r.mem))[0], 0);
	/* in order: ACK, memory written */
	CHECK_EQ(rc_req(&r, IBLIB_OP_RC_RDMA_WRITE_ONLY, 0, 16, data, 16), 0x1f);
	CHECK_EQ(((uint8_t *)rawhost_ptr(&r.b, r.mem))[0], 0x3c);
	/* a duplicate (old PSN) is ignored */
	CHECK_EQ(rc_req(&r, IBLIB_OP_RC_RDMA_WRITE_ONLY, 0, 16, data, 16), -1);
	/* DMA length disagreeing with the payload: invalid request */
	CHECK_EQ(rc_req(&r, IBLIB_OP_RC_RDMA_WRITE_ONLY, 1, 32, data, 16), 0x61);
	/* a multi-packet SEND with no receive posted: RNR NAK, PSN not consumed */
	CHECK_EQ(rc_req(&r, IBLIB_OP_RC_SEND_FIRST, 2, 0, data, 256) & 0x60, 0x20);
	/* MIDDLE without FIRST: invalid request (PSN not consumed) */
	CHECK_EQ(rc_req(&r, IBLIB_OP_RC_SEND_MIDDLE, 2, 0, data, 256), 0x61);
	/* FIRST / MIDDLE / LAST into one receive: only the last is answered */
	rawhost_post_recv(&r.b, &r.qp, rawhost_alloc(&r.b, 1024, 64), 1024, 0);
	CHECK_EQ(rc_req(&r, IBLIB_OP_RC_SEND_FIRST, 2, 0, data, 256), -1);
	CHECK_EQ(rc_req(&r, IBLIB_OP_RC_SEND_MIDDLE, 3, 0, data, 256), -1);
	CHECK_EQ(rc_req(&r, IBLIB_OP_RC_SEND_LAST, 4, 0, data, 100), 0x1f);
	CHECK_EQ(rawhost_poll_cq(&r.b, &r.cq, cqe), 1);
	CHECK_EQ(G(completion_queue_entry, byte_cnt, cqe), 612);
	/* READ longer than the MTU: two response packets, two PSNs */
	CHECK_EQ(rc_req(&r, IBLIB_OP_RC_RDMA_READ_REQUEST, 5, 5000, NULL, 0), 0x1f);
	/* WRITE FIRST/LAST whose length disagrees with the RETH: invalid request */
	CHECK_EQ(rc_req(&r, IBLIB_OP_RC_RDMA_WRITE_FIRST, 7, 300, data, 256), -1);
	CHECK_EQ(rc_req(&r, IBLIB_OP_RC_RDMA_WRITE_LAST, 8, 0, data, 100), 0x61);
	/* atomics are not modelled */
	CHECK_EQ(rc_req(&r, IBLIB_OP_RC_FETCH_ADD, 9, 0, NULL, 0), 0x61);
	/* WRITE with immediate and no receive posted: RNR NAK */
	CHECK_EQ(rc_req(&r, IBLIB_OP_RC_RDMA_WRITE_ONLY_IMM, 10, 16, data, 16) & 0x60, 0x20);
	/* ... and with one posted: ACK, the receive completes as RDMA_WRITE_IMM */
	rawhost_post_recv(&r.b, &r.qp, rawhost_alloc(&r.b, 256, 64), 256, 0);
	CHECK_EQ(rc_req(&r, IBLIB_OP_RC_RDMA_WRITE_ONLY_IMM, 10, 16, data, 16), 0x1f);
	expect_cqe(&r.b, &r.cq, cqe, 0x00);
	CHECK_EQ(G(completion_queue_entry, immediate_rssvalue_invalidatekey, cqe), 0x1234);
	/* SEND with immediate into a receive */
	rawhost_post_recv(&r.b, &r.qp, rawhost_alloc(&r.b, 256, 64), 256, 0);
	CHECK_EQ(rc_req(&r, IBLIB_OP_RC_SEND_ONLY_IMM, 11, 0, data, 40), 0x1f);
	expect_cqe(&r.b, &r.cq, cqe, 0x03);
	/* a packet for another QP number, and another partition */
	{
		struct hcasim_port_stats st;
		struct iblib_pkt p = { 0 };

		p.lrh.dlid = 2;
		p.bth.opcode = IBLIB_OP_RC_SEND_ONLY;
		p.bth.pkey = 0x8005;
		p.bth.dest_qp = 0x200;
		packet_in(r.b.h, 1, &p, data, 8);
		p.bth.pkey = 0xffff;
		p.bth.dest_qp = 0x201;
		packet_in(r.b.h, 1, &p, data, 8);
		p.lrh.dlid = 7; /* not this port's LID */
		packet_in(r.b.h, 1, &p, data, 8);
		rawhost_run(&r.b, NULL);
		CHECK_EQ(hcasim_port_stats(r.b.h, 1, &st), 0);
		CHECK_EQ(st.rx_bad_pkey, 1);
		CHECK_EQ(st.rx_no_qp, 1);
		CHECK_EQ(st.rx_bad_hdr, 1);
	}
	rawhost_fini(&r.b);
}

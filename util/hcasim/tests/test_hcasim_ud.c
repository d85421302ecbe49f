/* SPDX-License-Identifier: MIT */
/* hcasim: UD between two models cabled back to back — packets bit-exact, receive with the GRH
 * area, Q_Key / P_Key drops, the privileged Q_Key rule, CQE ownership across ring wrap. */
#include <string.h>

#include <ibboot/hermon_prm.h>
#include <ibboot/wire/attrs.h>
#include <ibboot/wire/crc.h>
#include <ibboot/wire/mad.h>
#include <ibboot/wire/packet.h>

#include "check_helpers.h"
#include "rawhost.h"
#include "test.h"

#define G(st, f, b) hermonprm_##st##_st_get_##f(b)

static int pair_up(struct rawhost_pair *p, uint32_t qkey_b)
{
	struct rawhost_qp_attr qa = { .st = 3, .log_sq = 3, .log_rq = 3, .qkey = 0x1111,
				      .cqn_snd = 130, .cqn_rcv = 130 };
	struct rawhost_qp_attr qb = qa;

	qb.qkey = qkey_b;
	return rawhost_pair_up(p, &(struct rawhost_pair_cfg){ .lid_a = 0x11, .lid_b = 0x22,
							      .log_cq = 2, .qa = &qa, .qb = &qb });
}

TEST(hcasim_ud_send_is_bit_exact_and_received_with_grh_area)
{
	struct rawhost_pair p;
	struct rawhost_ud_dest d = { .dlid = 0x22, .dqpn = 0x200, .qkey = 0x5555, .sl = 3 };
	uint8_t cqe[32], *pkt, expect[64];
	uint64_t tx, rx;
	static const char msg[] = "hello over UD";
	struct iblib_pkt parsed;
	size_t n = 0;

	CHECK_EQ(pair_up(&p, 0x5555), 0);
	tx = rawhost_alloc(&p.a, 4096, 64);
	rx = rawhost_alloc(&p.b, 4096, 64);
	memcpy(rawhost_ptr(&p.a, tx), msg, sizeof(msg));
	memset(rawhost_ptr(&p.b, rx), 0xee, 64);
	rawhost_post_recv(&p.b, &p.bqp, rx, 2048, 0);
	rawhost_post_ud(&p.a, &p.aqp, &d, tx, sizeof(msg), 0);
	rawhost_run(&p.a, &p.b);
	CHECK_EQ(p.a.npkts, 1);
	pkt = p.a.pkts[0].data;
	/* LRH: VL0 LVer0 | SL3 LNH=2 | DLID 0x22 | PktLen | SLID 0x11 */
	n = 8 + 12 + 8 + sizeof(msg) + (4 - sizeof(msg) % 4) % 4 + 4;
	expect[0] = 0x00;
	expect[1] = 0x32;
	expect[2] = 0x00;
	expect[3] = 0x22;
	expect[4] = (uint8_t)((n / 4) >> 8);
	expect[5] = (uint8_t)(n / 4);
	expect[6] = 0x00;
	expect[7] = 0x11;
	/* BTH: UD SEND only, pad count, P_Key 0xffff, dest QP 0x200, PSN 0 */
	expect[8] = 0x64;
	expect[9] = (uint8_t)(((4 - sizeof(msg) % 4) % 4) << 4);
	expect[10] = 0xff;
	expect[11] = 0xff;
	memcpy(expect + 12, "\x00\x00\x02\x00\x00\x00\x00\x00", 8);
	/* DETH: Q_Key 0x5555, source QP 0x100 */
	memcpy(expect + 20, "\x00\x00\x55\x55\x00\x00\x01\x00", 8);
	CHECK_MEM(pkt, expect, 28);
	CHECK_MEM(pkt + 28, msg, sizeof(msg));
	CHECK_EQ(p.a.pkts[0].len, n + 2);
	CHECK_EQ(iblib_get_icrc(pkt + n - 4), iblib_icrc(pkt, n - 4, NULL));
	CHECK_EQ(iblib_get_vcrc(pkt + n), iblib_vcrc(pkt, n));
	CHECK_EQ(iblib_pkt_parse(pkt, n + 2, &parsed, 0), 0);
	/* sender completion */
	CHECK_EQ(rawhost_poll_cq(&p.a, &p.acq, cqe), 1);
	CHECK_EQ(G(completion_queue_entry, s_r, cqe), 1);
	CHECK_EQ(G(completion_queue_entry, opcode, cqe), 0x0a);
	CHECK_EQ(G(completion_queue_entry, qpn, cqe), 0x100);
	CHECK_EQ(G(completion_queue_entry, wqe_counter, cqe), 0);
	/* receiver: no GRH came, so the 40-byte area is untouched; payload after it */
	CHECK_EQ(rawhost_poll_cq(&p.b, &p.bcq, cqe), 1);
	CHECK_EQ(G(completion_queue_entry, s_r, cqe), 0);
	CHECK_EQ(G(completion_queue_entry, opcode, cqe), 0x02);
	CHECK_EQ(G(completion_queue_entry, byte_cnt, cqe), 40 + sizeof(msg));
	CHECK_EQ(G(completion_queue_entry, srq_rqpn, cqe), 0x100);
	CHECK_EQ(G(completion_queue_entry, slid_smac47_32, cqe), 0x11);
	CHECK_EQ(G(completion_queue_entry, sl, cqe), 3);
	CHECK_EQ(G(completion_queue_entry, g, cqe), 0);
	CHECK_EQ(((uint8_t *)rawhost_ptr(&p.b, rx))[0], 0xee);
	CHECK_MEM((uint8_t *)rawhost_ptr(&p.b, rx) + 40, msg, sizeof(msg));
	CHECK_EQ(rawhost_poll_cq(&p.b, &p.bcq, cqe), 0);
	rawhost_pair_down(&p);
}

TEST(hcasim_ud_grh_fills_the_grh_area)
{
	struct rawhost_pair p;
	struct rawhost_ud_dest d = { .dlid = 0x22, .dqpn = 0x200, .qkey = 0x1111, .grh = true };
	uint8_t cqe[32], *grh;
	uint64_t tx, rx;

	CHECK_EQ(pair_up(&p, 0x1111), 0);
	for (int i = 0; i < 16; i++)
		d.dgid[i] = (uint8_t)(0xa0 + i);
	tx = rawhost_alloc(&p.a, 4096, 64);
	rx = rawhost_alloc(&p.b, 4096, 64);
	rawhost_post_recv(&p.b, &p.bqp, rx, 2048, 0);
	rawhost_post_ud(&p.a, &p.aqp, &d, tx, 100, 0);
	rawhost_run(&p.a, &p.b);
	CHECK_EQ(p.a.pkts[0].data[1] & 3, 3); /* LNH: GRH follows */
	CHECK_EQ(rawhost_poll_cq(&p.b, &p.bcq, cqe), 1);
	CHECK_EQ(G(completion_queue_entry, g, cqe), 1);
	CHECK_EQ(G(completion_queue_entry, byte_cnt, cqe), 140);
	grh = rawhost_ptr(&p.b, rx);
	CHECK_EQ(grh[0] >> 4, 6);      /* IPVer */
	CHECK_EQ(grh[6], 0x1b);        /* NxtHdr */
	CHECK_MEM(grh + 24, d.dgid, 16);
	CHECK_EQ(grh[8], 0xfe);        /* SGID: default subnet prefix fe80:: */
	rawhost_pair_down(&p);
}

TEST(hcasim_ud_qkey_mismatch_dropped_and_privileged_qkey)
{
	struct rawhost_pair p;
	struct rawhost_ud_dest d = { .dlid = 0x22, .dqpn = 0x200, .qkey = 0x9999 };
	struct hcasim_port_stats st;
	uint8_t cqe[32];
	uint64_t tx, rx;

	CHECK_EQ(pair_up(&p, 0x1111), 0);
	tx = rawhost_alloc(&p.a, 4096, 64);
	rx = rawhost_alloc(&p.b, 4096, 64);
	rawhost_post_recv(&p.b, &p.bqp, rx, 2048, 0);
	rawhost_post_ud(&p.a, &p.aqp, &d, tx, 16, 0);
	rawhost_run(&p.a, &p.b);
	CHECK_EQ(rawhost_poll_cq(&p.a, &p.acq, cqe), 1);   /* the send itself completes */
	CHECK_EQ(rawhost_poll_cq(&p.b, &p.bcq, cqe), 0);   /* dropped at the receiver */
	CHECK_EQ(hcasim_port_stats(p.b.h, 1, &st), 0);
	CHECK_EQ(st.rx_bad_qkey, 1);
	CHECK(strstr(hcasim_refused(p.b.h, 0), "Q_Key") != NULL);
	/* high bit set in the WQE: the sender's own QP Q_Key (0x1111) goes out — accepted */
	d.qkey = 0x80000000;
	rawhost_post_ud(&p.a, &p.aqp, &d, tx, 16, 0);
	rawhost_run(&p.a, &p.b);
	expect_cqe(&p.b, &p.bcq, cqe, 0x02);
	CHECK_EQ(hcasim_port_stats(p.b.h, 3, &st), -1);
	rawhost_pair_down(&p);
}

TEST(hcasim_ud_bad_crc_and_pkey_dropped)
{
	struct rawhost_pair p;
	struct rawhost_ud_dest d = { .dlid = 0x22, .dqpn = 0x200, .qkey = 0x1111 };
	struct hcasim_port_stats st;
	uint8_t cqe[32], bad[128];
	uint64_t tx, rx;
	size_t len;

	CHECK_EQ(pair_up(&p, 0x1111), 0);
	tx = rawhost_alloc(&p.a, 4096, 64);
	rx = rawhost_alloc(&p.b, 4096, 64);
	rawhost_post_recv(&p.b, &p.bqp, rx, 2048, 0);
	rawhost_post_recv(&p.b, &p.bqp, rx + 2048, 2048, 0);
	/* capture one packet without delivering it, then corrupt it on the wire */
	p.a.peer[1] = NULL;
	rawhost_post_ud(&p.a, &p.aqp, &d, tx, 32, 0);
	rawhost_run(&p.a, &p.b);
	len = p.a.pkts[0].len;
	memcpy(bad, p.a.pkts[0].data, len);
	bad[30] ^= 1; /* payload bit: ICRC and VCRC both fail */
	hcasim_packet_in(p.b.h, 1, bad, len);
	rawhost_run(&p.b, NULL);
	CHECK_EQ(hcasim_port_stats(p.b.h, 1, &st), 0);
	CHECK_EQ(st.rx_bad_crc, 1);
	/* the same packet with another partition's P_Key (CRCs made valid again) */
	memcpy(bad, p.a.pkts[0].data, len);
	bad[10] = 0x80;
	bad[11] = 0x05;
	CHECK(iblib_pkt_seal(bad, len - 6, sizeof(bad)) > 0);
	hcasim_packet_in(p.b.h, 1, bad, len);
	rawhost_run(&p.b, NULL);
	CHECK_EQ(hcasim_port_stats(p.b.h, 1, &st), 0);
	CHECK_EQ(st.rx_bad_pkey, 1);
	CHECK_EQ(rawhost_poll_cq(&p.b, &p.bcq, cqe), 0);
	/* the original is delivered */
	hcasim_packet_in(p.b.h, 1, p.a.pkts[0].data, len);
	rawhost_run(&p.b, NULL);
	CHECK_EQ(rawhost_poll_cq(&p.b, &p.bcq, cqe), 1);
	/* a packet for a QP that does not exist, and garbage */
	hcasim_packet_in(p.b.h, 1, bad, 5);
	rawhost_run(&p.b, NULL);
	CHECK_EQ(hcasim_port_stats(p.b.h, 1, &st), 0);
	CHECK_EQ(st.rx_bad_hdr, 1);
	rawhost_pair_down(&p);
}

TEST(hcasim_ud_cqe_ownership_across_wrap)
{
	struct rawhost_pair p;
	struct rawhost_ud_dest d = { .dlid = 0x22, .dqpn = 0x200, .qkey = 0x1111 };
	uint8_t cqe[32];
	uint64_t tx, rx;

	CHECK_EQ(pair_up(&p, 0x1111), 0);
	tx = rawhost_alloc(&p.a, 4096, 64);
	rx = rawhost_alloc(&p.b, 8 * 2048, 64);
	/* CQs have 4 entries, SQ 8: 13 sends wrap the CQ three times and the SQ once */
	for (unsigned i = 0; i < 13; i++) {
		uint8_t *e = (uint8_t *)rawhost_ptr(&p.a, p.acq.ring) + 32 * (i & 3);

		rawhost_post_recv(&p.b, &p.bqp, rx + 2048 * (i % 8), 2048, 0);
		rawhost_post_ud(&p.a, &p.aqp, &d, tx, 8 + i, 0);
		rawhost_run(&p.a, &p.b);
		/* the device wrote owner = pass parity */
		CHECK_EQ(G(completion_queue_entry, owner, e), (i >> 2) & 1);
		CHECK_EQ(rawhost_poll_cq(&p.a, &p.acq, cqe), 1);
		CHECK_EQ(G(completion_queue_entry, wqe_counter, cqe), i);
		CHECK_EQ(rawhost_poll_cq(&p.a, &p.acq, cqe), 0);
		CHECK_EQ(rawhost_poll_cq(&p.b, &p.bcq, cqe), 1);
		CHECK_EQ(G(completion_queue_entry, byte_cnt, cqe), 40 + 8 + i);
	}
	rawhost_pair_down(&p);
}

TEST(hcasim_ud_cq_overrun_raises_cq_error_event)
{
	struct rawhost_pair p;
	struct rawhost_ud_dest d = { .dlid = 0x22, .dqpn = 0x200, .qkey = 0x1111 };
	uint8_t eqe[32];
	uint64_t tx;
	int ev, seen = 0;

	CHECK_EQ(pair_up(&p, 0x1111), 0);
	tx = rawhost_alloc(&p.a, 4096, 64);
	/* five completions into a 4-entry CQ nobody polls */
	for (unsigned i = 0; i < 5; i++)
		rawhost_post_ud(&p.a, &p.aqp, &d, tx, 8, 0);
	rawhost_run(&p.a, &p.b);
	while ((ev = rawhost_poll_eq(&p.a, eqe)) >= 0)
		if (ev == 0x04)
			seen++;
	CHECK_EQ(seen, 1);
	CHECK(strstr(hcasim_refused(p.a.h, 0), "overrun") != NULL);
	rawhost_pair_down(&p);
}

TEST(hcasim_ud_not_active_port_sends_nothing)
{
	struct rawhost a;
	struct rawhost_cq cq;
	struct rawhost_qp qp;
	struct rawhost_qp_attr qa = UD_QP_ATTR;
	struct rawhost_ud_dest d = { .dlid = 0x22, .dqpn = 0x200 };
	uint8_t cqe[32];

	CHECK_EQ(rawhost_init(&a, NULL), 0);
	CHECK_EQ(rawhost_bringup(&a), 0);
	hcasim_port_set_link(a.h, 1, true); /* INIT, no SM */
	CHECK_EQ(rawhost_create_cq(&a, &cq, 130, 2), 0);
	CHECK_EQ(rawhost_create_qp(&a, &qp, 0x100, &qa), 0);
	rawhost_post_ud(&a, &qp, &d, rawhost_alloc(&a, 64, 64), 8, 0);
	rawhost_run(&a, NULL);
	CHECK_EQ(a.npkts, 0);
	CHECK_EQ(rawhost_poll_cq(&a, &cq, cqe), 1); /* completes; the packet is lost */
	rawhost_fini(&a);
}

TEST(hcasim_ud_qpn_with_random_high_bits)
{
	struct rawhost_pair p;
	struct rawhost_qp alias;
	struct rawhost_qp_attr qa = { .st = 3, .log_sq = 3, .log_rq = 3, .qkey = 5,
				      .cqn_snd = 130, .cqn_rcv = 130 };
	struct rawhost_ud_dest d = { .dlid = 2, .dqpn = 0xfb2148, .qkey = 5 };
	struct hcasim_port_stats st;
	uint8_t cqe[32];
	uint64_t tx;

	CHECK_EQ(rawhost_pair_up(&p, &(struct rawhost_pair_cfg){ 0 }), 0);
	/* iPXE ORs random bits above the table size into QPNs (table: 2^10 here) */
	CHECK_EQ(rawhost_create_qp(&p.a, &p.aqp, 0x5a3100, &qa), 0);
	CHECK_EQ(rawhost_create_qp(&p.b, &p.bqp, 0xfb2148, &qa), 0);
	CHECK_EQ(G(queue_pair_ee_context_entry, local_qpn_een,
		   rawhost_ptr(&p.b, p.b.qpc.pa + 0x148 * 256)), 0xfb2148);
	/* an aliasing QPN (same low bits) cannot be created while that context is in use */
	CHECK_EQ(rawhost_create_qp(&p.b, &alias, 0x002148, &qa), 0x10);
	tx = rawhost_alloc(&p.a, 64, 64);
	rawhost_post_recv(&p.b, &p.bqp, rawhost_alloc(&p.b, 2048, 64), 2048, 0);
	rawhost_post_ud(&p.a, &p.aqp, &d, tx, 8, 0);
	rawhost_run(&p.a, &p.b);
	CHECK_EQ(rawhost_poll_cq(&p.a, &p.acq, cqe), 1);
	CHECK_EQ(G(completion_queue_entry, qpn, cqe), 0x5a3100);
	CHECK_EQ(rawhost_poll_cq(&p.b, &p.bcq, cqe), 1);
	CHECK_EQ(G(completion_queue_entry, qpn, cqe), 0xfb2148);
	CHECK_EQ(G(completion_queue_entry, srq_rqpn, cqe), 0x5a3100);
	/* a stale peer's QPN with other high bits does not reach this QP */
	d.dqpn = 0x002148;
	expect_ud_dropped(&p, &d, tx, &st);
	CHECK_EQ(st.rx_no_qp, 1);
	rawhost_pair_down(&p);
}

TEST(hcasim_ud_loopback_cable_between_the_two_ports)
{
	struct rawhost a;
	struct rawhost_cq cq;
	struct rawhost_qp q1, q2;
	struct rawhost_qp_attr qa = { .st = 3, .log_sq = 3, .log_rq = 3, .qkey = 5, .port = 1,
				      .cqn_snd = 130, .cqn_rcv = 130 };
	struct rawhost_ud_dest d = { .dlid = 0x42, .dqpn = 0x300, .qkey = 5 };
	uint8_t cqe[32];
	uint64_t rx;
	unsigned recv = 0, send = 0;

	CHECK_EQ(rawhost_init(&a, NULL), 0);
	CHECK_EQ(rawhost_bringup(&a), 0);
	rawhost_cable(&a, 1, &a, 2);
	CHECK_EQ(rawhost_set_port(&a, 1, 0x41, 4), 0);
	CHECK_EQ(rawhost_set_port(&a, 2, 0x42, 4), 0);
	CHECK_EQ(rawhost_create_cq(&a, &cq, 130, 3), 0);
	CHECK_EQ(rawhost_create_qp(&a, &q1, 0x200, &qa), 0);
	qa.port = 2;
	CHECK_EQ(rawhost_create_qp(&a, &q2, 0x300, &qa), 0);
	rx = rawhost_alloc(&a, 2048, 64);
	rawhost_post_recv(&a, &q2, rx, 2048, 0);
	memcpy(rawhost_ptr(&a, rx + 1024), "port to port", 12);
	rawhost_post_ud(&a, &q1, &d, rx + 1024, 12, 0);
	rawhost_run(&a, NULL);
	CHECK_EQ(a.npkts, 1);
	CHECK_EQ(a.pkts[0].port, 1);
	while (rawhost_poll_cq(&a, &cq, cqe)) {
		if (G(completion_queue_entry, s_r, cqe))
			send++;
		else {
			recv++;
			CHECK_EQ(G(completion_queue_entry, qpn, cqe), 0x300);
			CHECK_EQ(G(completion_queue_entry, slid_smac47_32, cqe), 0x41);
		}
	}
	CHECK_EQ(send, 1);
	CHECK_EQ(recv, 1);
	CHECK_MEM(rawhost_ptr(&a, rx + 40), "port to port", 12);
	rawhost_fini(&a);
}

TEST(hcasim_ud_inline_data_segment)
{
	struct rawhost_pair p;
	uint8_t cqe[32], *w;
	uint64_t rx;
	uint8_t db[4] = { 0 };

	CHECK_EQ(pair_up(&p, 0x1111), 0);
	rx = rawhost_alloc(&p.b, 2048, 64);
	rawhost_post_recv(&p.b, &p.bqp, rx, 2048, 0);
	/* hand-built UD WQE: ctrl, UD segment, one inline segment of 11 bytes */
	{
		struct rawhost_ud_dest d = { .dlid = 0x22, .dqpn = 0x200, .qkey = 0x1111 };

		rawhost_post_ud(&p.a, &p.aqp, &d, 0, 0, 0); /* lays out ctrl + UD segment */
	}
	rawhost_run(&p.a, &p.b); /* that one had no data: completes with 0 bytes */
	CHECK_EQ(rawhost_poll_cq(&p.b, &p.bcq, cqe), 1);
	CHECK_EQ(G(completion_queue_entry, byte_cnt, cqe), 40);
	rawhost_post_recv(&p.b, &p.bqp, rx, 2048, 0);
	w = (uint8_t *)rawhost_ptr(&p.a, p.aqp.buf) + 128;
	memcpy(w + 16, (uint8_t *)rawhost_ptr(&p.a, p.aqp.buf) + 16, 48);
	memset(w + 64, 0, 64);
	hermonprm_store_dword(w + 64, 0, 0x80000000u | 11);
	memcpy(w + 68, "inline data", 11);
	hermonprm_wqe_segment_ctrl_send_st_set_ds(w, 6);
	hermonprm_wqe_segment_ctrl_send_st_set_c(w, 3);
	hermonprm_wqe_segment_ctrl_send_st_set_opcode(w, 0x0a);
	hermonprm_wqe_segment_ctrl_send_st_set_owner(w, 0);
	hermonprm_send_db_register_st_set_qn(db, 0x100);
	hcasim_bar_write(p.a.h, 2, 128 * 4096 + 0x14, db, 4);
	rawhost_run(&p.a, &p.b);
	CHECK_EQ(rawhost_poll_cq(&p.b, &p.bcq, cqe), 1);
	CHECK_EQ(G(completion_queue_entry, byte_cnt, cqe), 40 + 11);
	CHECK_MEM((uint8_t *)rawhost_ptr(&p.b, rx) + 40, "inline data", 11);
	rawhost_pair_down(&p);
}

TEST(hcasim_ud_pma_counters_count_real_traffic)
{
	struct rawhost_pair p;
	struct rawhost_ud_dest d = { .dlid = 0x22, .dqpn = 0x200, .qkey = 0x1111 };
	struct iblib_mad_hdr hd = { .base_version = 1, .mgmt_class = IBLIB_MCLASS_PERF,
				    .class_version = 1, .method = IBLIB_METHOD_GET,
				    .attr_id = IBLIB_PERF_ATTR_PORT_COUNTERS };
	struct iblib_port_counters tx0, tx1, rx1;
	uint8_t mad[256] = { 0 }, resp[256], cqe[32];
	uint64_t buf;

	CHECK_EQ(pair_up(&p, 0x1111), 0);
	iblib_mad_hdr_put(mad, &hd);
	mad[65] = 1; /* PortSelect (PMA data starts at byte 64) */
	CHECK_EQ(rawhost_mad_ifc(&p.a, 1, mad, resp), 0);
	iblib_port_counters_get(resp + 64, &tx0);
	buf = rawhost_alloc(&p.a, 256, 64);
	rawhost_post_recv(&p.b, &p.bqp, rawhost_alloc(&p.b, 2048, 64), 2048, 0);
	rawhost_post_ud(&p.a, &p.aqp, &d, buf, 100, 0);
	rawhost_run(&p.a, &p.b);
	CHECK_EQ(rawhost_poll_cq(&p.b, &p.bcq, cqe), 1);
	CHECK_EQ(rawhost_mad_ifc(&p.a, 1, mad, resp), 0);
	iblib_port_counters_get(resp + 64, &tx1);
	CHECK_EQ(tx1.xmit_pkts, tx0.xmit_pkts + 1);
	CHECK(tx1.xmit_data > tx0.xmit_data);
	CHECK_EQ(rawhost_mad_ifc(&p.b, 1, mad, resp), 0);
	iblib_port_counters_get(resp + 64, &rx1);
	CHECK(rx1.rcv_pkts >= 1);
	rawhost_pair_down(&p);
}

/* A P_Key table block 0 written as the SM does (SubnSet PKeyTable through MAD_IFC). */
static int set_pkeys(struct rawhost *rh, const uint16_t *keys, unsigned n)
{
	struct iblib_mad_hdr hd = { .base_version = 1, .mgmt_class = IBLIB_MCLASS_SUBN_LID,
				    .class_version = 1, .method = IBLIB_METHOD_SET, .tid = 0x99,
				    .attr_id = IBLIB_SM_ATTR_PKEY_TABLE, .attr_mod = 0 };
	uint8_t mad[256] = { 0 }, resp[256];
	int st;

	iblib_mad_hdr_put(mad, &hd);
	for (unsigned i = 0; i < n; i++)
		iblib_pkey_table_set(iblib_smp_data(mad), i, keys[i]);
	if ((st = rawhost_mad_ifc(rh, 1, mad, resp)))
		return st;
	return iblib_smp_status(resp) ? -2 : 0;
}

/* RTS2RTS with only the P_Key index (PRM optparammask bit 4) changed. */
static int set_pkey_index(struct rawhost *rh, uint32_t qpn, unsigned index)
{
	uint8_t mb[512] = { 0 };
	uint8_t *qpc = hermonprm_qp_ee_state_transitions_st_qpc_eec_data(mb);

	hermonprm_qp_ee_state_transitions_st_set_opt_param_mask(mb, 1u << 4);
	hermonprm_address_path_st_set_pkey_index(
		hermonprm_queue_pair_ee_context_entry_st_primary_address_path(qpc), index);
	return rawhost_cmd_mbox(rh, 0x01c, 0, qpn, mb, sizeof(mb), NULL, 0, NULL);
}

/* IBA 10.9.2/10.9.3: a UD send carries the P_Key of its QP's table index (as the SM set the
 * table), the receiver takes it only on a QP whose own P_Key matches (a limited member meets a
 * full one) and drops and counts any other partition, including the default one. */
TEST(hcasim_ud_pkey_index_on_send_and_partition_checked_on_receive)
{
	static const uint16_t keys_a[] = { 0x7fff, 0x8001, 0x0002 };
	static const uint16_t keys_b[] = { 0x7fff, 0x8001 };
	struct rawhost_pair p;
	struct rawhost_ud_dest d = { .dlid = 0x22, .dqpn = 0x200, .qkey = 0x1111 };
	struct hcasim_port_stats st;
	struct iblib_pkt parsed;
	uint8_t cqe[32];
	uint64_t tx, rx;

	CHECK_EQ(pair_up(&p, 0x1111), 0);
	CHECK_EQ(set_pkeys(&p.a, keys_a, 3), 0);
	CHECK_EQ(set_pkeys(&p.b, keys_b, 2), 0);
	CHECK_EQ(set_pkey_index(&p.a, 0x100, 1), 0);
	CHECK_EQ(set_pkey_index(&p.b, 0x200, 1), 0);
	tx = rawhost_alloc(&p.a, 4096, 64);
	rx = rawhost_alloc(&p.b, 8192, 64);
	for (unsigned i = 0; i < 3; i++)
		rawhost_post_recv(&p.b, &p.bqp, rx + 2048 * i, 2048, 0);

	/* index 1 = 0x8001: on the wire and taken by b's QP on 0x8001 */
	rawhost_post_ud(&p.a, &p.aqp, &d, tx, 16, 0);
	rawhost_run(&p.a, &p.b);
	CHECK_EQ(p.a.npkts, 1);
	CHECK_EQ(iblib_pkt_parse(p.a.pkts[0].data, p.a.pkts[0].len, &parsed, 0), 0);
	CHECK_EQ(parsed.bth.pkey, 0x8001);
	CHECK_EQ(rawhost_poll_cq(&p.b, &p.bcq, cqe), 1);

	/* index 2 = 0x0002: b has no such partition: dropped and counted */
	CHECK_EQ(set_pkey_index(&p.a, 0x100, 2), 0);
	rawhost_post_ud(&p.a, &p.aqp, &d, tx, 16, 0);
	rawhost_run(&p.a, &p.b);
	CHECK_EQ(iblib_pkt_parse(p.a.pkts[1].data, p.a.pkts[1].len, &parsed, 0), 0);
	CHECK_EQ(parsed.bth.pkey, 0x0002);
	CHECK_EQ(rawhost_poll_cq(&p.b, &p.bcq, cqe), 0);
	CHECK_EQ(hcasim_port_stats(p.b.h, 1, &st), 0);
	CHECK_EQ(st.rx_bad_pkey, 1);

	/* index 0 = 0x7fff (limited, default partition): b's QP is on 0x8001: dropped too */
	CHECK_EQ(set_pkey_index(&p.a, 0x100, 0), 0);
	rawhost_post_ud(&p.a, &p.aqp, &d, tx, 16, 0);
	rawhost_run(&p.a, &p.b);
	CHECK_EQ(rawhost_poll_cq(&p.b, &p.bcq, cqe), 0);
	CHECK_EQ(hcasim_port_stats(p.b.h, 1, &st), 0);
	CHECK_EQ(st.rx_bad_pkey, 2);
	rawhost_pair_down(&p);
}

/* SPDX-License-Identifier: MIT */
/*
 * The driver against the in-process model (libhcasim), driven as production drives it: the
 * PCI probe's bring-up (hermon_init), registration with the real IB core, and from then on queues,
 * traffic and multicast through the core and its ib_device_ops. Covered: bring-up to INIT_PORT on
 * both ports, the MPT as the device holds it, an injected firmware failure at every bring-up and
 * queue step, error and corrupt CQEs, UD and MLX (QP1) traffic between the two ports cabled to
 * each other, multicast chains, the EQ across wraps, a catastrophic error, and quiesce.
 */
#include <stdio.h>
#include "test.h"
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/hermon_prm.h>
#include <ibboot/ib_mad.h>
#include <ibboot/wire/bytes.h>
#include <ibboot/wire/mad.h>
#include <ibboot/wire/packet.h>
#include "hermon_rig.h"

static bool log_has(const char *s) { return strstr(rig_log(), s) != NULL; }

/* Registered, and the SM (played through the local MAD op) made both ports ACTIVE. */
static int up_active(struct rig *r)
{
	int rc;

	if ((rc = rig_up(r)) != 0 || (rc = rig_sm_set_port(&r->h.ib, 1, 0x11, false)) != 0 ||
	    (rc = rig_sm_set_port(&r->h.ib, 2, 0x22, false)) != 0)
		return rc;
	rig_poll(r, 3);
	return r->h.ib.port[0].attr.state == IB_PORT_ACTIVE &&
	       r->h.ib.port[1].attr.state == IB_PORT_ACTIVE ? 0 : -EIO;
}

/* up_active and a pair of UD QPs (rig_make_pair); false (the rig destroyed) if that failed. */
static bool up_pair(struct rig *r, struct rig_pair *p)
{
	int rc = up_active(r);

	CHECK_EQ(rc, 0);
	if (rc == 0)
		CHECK_EQ(rc = rig_make_pair(&r->h.ib, p), 0);
	if (rc != 0)
		rig_destroy(r);
	return rc == 0;
}

/* What the core's unregister and the driver's quiesce leave: nothing the HCA can reach. */
static void unregister_and_quiesce(struct rig *r)
{
	hermon_ib_unregister(&r->h);
	r->registered = false;
	hermon_quiesce(&r->h);
	CHECK(hcasim_quiesced(r->sim));
	CHECK_EQ(hcasim_dma_after_close(r->sim), 0);
}

/* ---- bring-up ---- */

TEST(hermon_model_bringup_both_ports)
{
	static const uint8_t zero[8];
	struct rig r;
	struct hcasim_mem_usage u;

	CHECK_EQ(rig_up(&r), 0);
	CHECK_EQ(r.h.stage, HERMON_STAGE_RUNNING);
	CHECK_EQ(r.h.num_ports, 2);
	for (unsigned p = 1; p <= 2; p++) {
		CHECK(r.h.port[p - 1].open);
		CHECK(r.h.ib.port[p - 1].open);
		CHECK(r.h.port[p - 1].vl_cap >= 1);
		CHECK(memcmp(r.h.ib.port[p - 1].attr.port_guid, zero, 8) != 0);
	}
	CHECK(memcmp(r.h.ib.port[0].attr.port_guid, r.h.ib.port[1].attr.port_guid, 8) != 0);
	/* Few MAP commands: one MAP_FA, one MAP_ICM_AUX, one MAP_ICM. */
	CHECK(r.h.map_cmds <= 3);
	hcasim_mem_usage(r.sim, &u);
	CHECK_EQ(u.fa_bytes, r.h.fa.len);
	CHECK_EQ(u.aux_bytes, r.h.aux.len);
	CHECK_EQ(u.icm_bytes, r.h.plan.mapped_len);
	printf("INFO: hermon on hcasim: FA %llu KiB, AUX %llu KiB, ICM %llu KiB, total %llu KiB; "
	       "%u map commands carrying %u blocks\n", (unsigned long long)u.fa_bytes / 1024,
	       (unsigned long long)u.aux_bytes / 1024, (unsigned long long)u.icm_bytes / 1024,
	       (unsigned long long)u.total / 1024, r.h.map_cmds, r.h.map_entries);
	unregister_and_quiesce(&r);
	hcasim_mem_usage(r.sim, &u);
	CHECK_EQ(u.total, 0);
	/* Bring-up, both ports, the core's QP1s and the full teardown without a refused operation. */
	if (hcasim_refused_count(r.sim) != 0)
		test_fail(__FILE__, __LINE__, "model refused: %s", hcasim_refused(r.sim, 0));
	rig_destroy(&r);
}

TEST(hermon_model_mpt_is_local_only)
{
	struct rig r;
	uint8_t mpt[HERMONPRM_MPT_ST_BYTES];

	CHECK_EQ(rig_up(&r), 0);
	CHECK_EQ(hermon_cmd_query_mpt(&r.h, r.h.mpt_index, mpt), 0);
	CHECK_EQ(hermonprm_mpt_st_get_lr(mpt), 1);
	CHECK_EQ(hermonprm_mpt_st_get_lw(mpt), 1);
	CHECK_EQ(hermonprm_mpt_st_get_rr(mpt), 0);
	CHECK_EQ(hermonprm_mpt_st_get_rw(mpt), 0);
	CHECK_EQ(hermonprm_mpt_st_get_atomic(mpt), 0);
	CHECK_EQ(hermonprm_mpt_st_get_eb(mpt), 0);
	CHECK_EQ(r.h.lkey >> 8, r.h.mpt_index);
	CHECK(r.h.mpt_index >= r.h.caps.reserved_mrws && r.h.mpt_index < r.h.plan.num_mpts);
	rig_destroy(&r);

	/* Two bring-ups draw different keys. */
	struct rig r2;
	uint32_t k1;

	rig_set_quiet(true);
	CHECK_EQ(rig_create(&r2, 0, true), 0);
	CHECK_EQ(rig_probe(&r2), 0);
	k1 = r2.h.lkey;
	hermon_quiesce(&r2.h);
	CHECK_EQ(hermon_start(&r2.h), 0);
	CHECK(r2.h.lkey != k1);
	rig_destroy(&r2);
}

/* Every command of the bring-up, failed by the firmware in turn. */
TEST(hermon_model_fault_at_each_bringup_step_unwinds)
{
	static const unsigned ops[] = {
		HERMON_CMD_QUERY_FW, HERMON_CMD_MAP_FA, HERMON_CMD_RUN_FW, HERMON_CMD_QUERY_DEV_CAP,
		HERMON_CMD_SET_ICM_SIZE, HERMON_CMD_MAP_ICM_AUX, HERMON_CMD_MAP_ICM,
		HERMON_CMD_INIT_HCA, HERMON_CMD_SW2HW_MPT, HERMON_CMD_WRITE_MTT,
		HERMON_CMD_SW2HW_EQ, HERMON_CMD_MAP_EQ, HERMON_CMD_CONF_SPECIAL_QP,
	};

	for (unsigned i = 0; i < ARRAY_SIZE(ops); i++) {
		struct rig r;
		char want[64];

		rig_set_quiet(true);
		rig_log_clear();
		CHECK_EQ(rig_create(&r, 0, true), 0);
		hcasim_fault_fail_cmd(r.sim, (int)ops[i], 0x03);
		int rc = rig_probe(&r);

		if (rc == 0)
			test_fail(__FILE__, __LINE__, "bring-up succeeded although %s failed",
				  hermon_opcode_name(ops[i]));
		snprintf(want, sizeof(want), "%s failed: status 0x03 (bad parameter)",
			 hermon_opcode_name(ops[i]));
		if (!log_has(want))
			test_fail(__FILE__, __LINE__, "no \"%s\" message", want);
		CHECK(log_has("HCA reset, idle"));
		if (!hcasim_quiesced(r.sim))
			test_fail(__FILE__, __LINE__, "model not quiesced after %s failed",
				  hermon_opcode_name(ops[i]));
		CHECK_EQ(hcasim_dma_after_close(r.sim), 0);
		CHECK_EQ(r.h.stage, HERMON_STAGE_RESET);
		/* The unwinding itself issued nothing the device had to refuse. */
		if (hcasim_refused_count(r.sim) != 1)
			test_fail(__FILE__, __LINE__, "%s: %u refused operations, newest \"%s\"",
				  hermon_opcode_name(ops[i]), hcasim_refused_count(r.sim),
				  hcasim_refused(r.sim, 0));
		rig_destroy(&r);
	}
}

TEST(hermon_model_command_timeout_ends_in_reset)
{
	struct rig r;

	rig_set_quiet(true);
	rig_log_clear();
	CHECK_EQ(rig_create(&r, 0, true), 0);
	hcasim_fault_timeout_cmd(r.sim, HERMON_CMD_INIT_HCA);
	CHECK_EQ(rig_probe(&r), -ETIMEDOUT);
	CHECK(log_has("INIT_HCA timed out"));
	CHECK(hcasim_quiesced(r.sim));
	rig_destroy(&r);
}

/* Ports that will not open: registration fails, the HCA stays up and registers later. */
TEST(hermon_model_port_fault_leaves_device_running)
{
	struct rig r;

	rig_set_quiet(true);
	rig_log_clear();
	CHECK_EQ(rig_create(&r, 0, true), 0);
	CHECK_EQ(rig_probe(&r), 0);
	hcasim_fault_fail_cmd(r.sim, HERMON_CMD_INIT_PORT, 0x09);
	CHECK_EQ(rig_register(&r), -ENODEV);
	CHECK(log_has("INIT_PORT failed: status 0x09 (bad resource state)"));
	CHECK(log_has("no usable port"));
	CHECK(!r.h.port[0].open);
	hcasim_fault_fail_cmd(r.sim, -1, 0);
	CHECK_EQ(r.h.stage, HERMON_STAGE_RUNNING);
	CHECK_EQ(rig_register(&r), 0);
	CHECK(r.h.port[0].open);
	CHECK(r.h.ib.port[0].open);
	rig_destroy(&r);
}

TEST(hermon_model_reset_that_never_finishes)
{
	struct rig r;

	rig_set_quiet(true);
	rig_log_clear();
	CHECK_EQ(rig_create(&r, 0, true), 0);
	hcasim_set_reset_time(r.sim, 60ull * 1000000000ull);   /* a minute: longer than we wait */
	CHECK_EQ(rig_probe(&r), -ETIMEDOUT);
	CHECK(log_has("no PCI answer 3000 ms after reset"));
	rig_destroy(&r);

	/* Within the PRM's second it is fine, however long the vendor ID poll takes. */
	CHECK_EQ(rig_create(&r, 0, true), 0);
	hcasim_set_reset_time(r.sim, 1500ull * 1000000ull);
	CHECK_EQ(rig_probe(&r), 0);
	rig_destroy(&r);
}

/* ---- queues and traffic, through the core ---- */

TEST(hermon_model_ud_loopback_between_ports)
{
	static uint8_t msg[200];
	struct rig r;
	struct rig_pair p;

	if (!up_pair(&r, &p))
		return;
	CHECK_EQ(r.h.ib.port[1].attr.lid, 0x22);
	CHECK_EQ(p.qb->recv.posted - p.qb->recv.completed, p.qb->recv.num_wqes);

	const struct ib_address_vector *av = &p.to_b;

	for (unsigned i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 7 + 1);
	/* More sends than ring slots and CQ entries: both rings wrap more than twice. */
	for (unsigned round = 0; round < 40; round++) {
		msg[0] = (uint8_t)round;
		CHECK_EQ(rig_send(p.qa, av, msg, sizeof(msg)), 0);
		rig_poll(&r, 1);
		if (p.ga.sends != round + 1 || p.gb.recvs != round + 1) {
			test_fail(__FILE__, __LINE__, "round %u: %u sends / %u receives completed",
				  round, p.ga.sends, p.gb.recvs);
			break;
		}
		CHECK_EQ(p.gb.len, sizeof(msg));
		CHECK_EQ(p.gb.src_qpn, p.qa->qpn);
		CHECK_EQ(p.gb.slid, 0x11);
		CHECK(!p.gb.grh);
		CHECK_MEM(p.gb.data, msg, sizeof(msg));
	}
	CHECK_EQ(p.ga.send_errors, 0);
	/* Every receive buffer went straight back to its ring. */
	CHECK_EQ(p.qb->recv.posted - p.qb->recv.completed, p.qb->recv.num_wqes);
	const struct hermon_cq *hcqa = p.cqa->drv_priv, *hcqb = p.cqb->drv_priv;

	CHECK_EQ(hcqa->next, 40);
	CHECK_EQ(hcqb->next, 40);
	CHECK(hcqa->next > 2 * hcqa->num_cqes);
	hermon_dump(&r.h);
	CHECK(log_has("\nFWEND hermon"));
	unregister_and_quiesce(&r);
	rig_destroy(&r);
}

TEST(hermon_model_cqe_error_is_reported)
{
	static uint8_t msg[64];
	struct rig r;
	struct rig_pair p;
	char want[80];

	if (!up_pair(&r, &p))
		return;
	const struct ib_address_vector *av = &p.to_b;
	/* A gather entry with a key that names no MPT: the HCA must fail the WQE. */
	uint32_t good = r.h.lkey;

	r.h.lkey = good ^ 0x00010000u;
	rig_log_clear();
	CHECK_EQ(rig_send(p.qa, av, msg, sizeof(msg)), 0);
	r.h.lkey = good;
	rig_poll(&r, 3);
	CHECK_EQ(p.ga.sends, 1);
	CHECK_EQ(p.ga.send_errors, 1);
	CHECK_EQ(p.gb.recvs, 0);   /* nothing arrived */
	/* Reported once, by the core, with the QPN, the status the syndrome means and the syndrome. */
	snprintf(want, sizeof(want), "QP 0x%06x send WQE 0 failed: local ", p.qa->qpn);
	CHECK(log_has(want));
	CHECK(log_has("(syndrome 0x0"));
	/* The QP is in error now: its posted receives come back flushed (not reported), once, and
	 * are not posted again. */
	const struct hermon_cq *hcqa = p.cqa->drv_priv;
	const struct hermon_qp *hqa = p.qa->drv_priv;

	CHECK_EQ(hcqa->errors, 1 + 4);
	CHECK_EQ(hqa->state, IB_QPS_ERR);
	CHECK(!log_has("receive WQE"));
	CHECK_EQ(p.qa->recv.posted, p.qa->recv.completed);
	CHECK_EQ(rig_send(p.qa, av, msg, sizeof(msg)), -EIO);
	rig_destroy(&r);
}

/* A CQE whose opcode no driver knows (the model's corruption knob) fails the work request. */
TEST(hermon_model_corrupt_cqe_is_an_error)
{
	static uint8_t msg[128];
	struct rig r;
	struct rig_pair p;

	if (!up_pair(&r, &p))
		return;
	const struct ib_address_vector *av = &p.to_b;

	rig_log_clear();
	hcasim_fault_corrupt_next_cqe(r.sim);
	CHECK_EQ(rig_send(p.qa, av, msg, sizeof(msg)), 0);
	rig_poll(&r, 3);
	CHECK_EQ(p.ga.sends, 1);
	/* Exactly one of the two completions (send or receive) came through as a success. */
	CHECK_EQ(p.ga.sends - p.ga.send_errors + p.gb.recvs, 1);
	CHECK(log_has(" opcode 0x1f unexpected, QP 0x"));
	CHECK(log_has("treated as an error"));
	/* The next one is clean again. */
	memset(&p.ga, 0, sizeof(p.ga));
	memset(&p.gb, 0, sizeof(p.gb));
	CHECK_EQ(rig_send(p.qa, av, msg, sizeof(msg)), 0);
	rig_poll(&r, 3);
	CHECK_EQ(p.ga.sends, 1);
	CHECK_EQ(p.ga.send_errors, 0);
	CHECK_EQ(p.gb.recvs, 1);
	rig_destroy(&r);
}

/* QP1 on both ports (the core's MAD agents): an MLX send whose LRH/BTH/DETH the wire builder made
 * goes on the wire as a valid packet and reaches the other port's QP1. */
TEST(hermon_model_gsi_mlx_send_between_ports)
{
	static uint8_t mad[IB_MAD_SIZE];
	struct rig r;
	struct iblib_pkt pkt;

	CHECK_EQ(up_active(&r), 0);
	struct ib_mad_agent *a2 = r.h.ib.port[1].mad;
	const struct hermon_qp *g1 = r.h.ib.port[0].mad->qp->drv_priv;

	CHECK(a2 != NULL);
	if (!a2) {
		rig_destroy(&r);
		return;
	}
	CHECK_EQ(g1->ext_qpn, 1);
	CHECK_EQ(g1->qpn, r.h.plan.special_qpn_base + 2);
	CHECK_EQ(g1->qkey, IB_GSI_QKEY);
	unsigned before = a2->stats.unmatched;

	/* A vendor-class response (class 0x09 is free for us): the firmware passes it to QP1, the
	 * agent counts it as a response nobody asked for. */
	memset(mad, 0, sizeof(mad));
	mad[0] = IBLIB_MAD_BASE_VERSION; mad[1] = 0x09; mad[2] = 1; mad[3] = 0x81;
	for (unsigned i = 24; i < sizeof(mad); i++)
		mad[i] = (uint8_t)i;
	struct ib_address_vector av = { .qpn = 1, .qkey = IB_GSI_QKEY, .lid = 0x22 };

	r.last_len = 0;
	CHECK_EQ(ib_mad_send_once(&r.h.ib.port[0], mad, &av), 0);
	/* The doorbell ran the model: the packet is on the wire, ICRC and VCRC included. */
	CHECK_EQ(iblib_pkt_parse(r.last, r.last_len, &pkt, 0), 0);
	CHECK_EQ(pkt.lrh.vl, 0);
	CHECK_EQ(pkt.lrh.dlid, 0x22);
	CHECK_EQ(pkt.lrh.slid, 0x11);
	CHECK(!pkt.has_grh);
	CHECK_EQ(pkt.bth.opcode, IBLIB_OP_UD_SEND_ONLY);
	CHECK_EQ(pkt.bth.pkey, 0xffff);
	CHECK_EQ(pkt.bth.dest_qp, 1);
	CHECK_EQ(pkt.deth.qkey, IB_GSI_QKEY);
	CHECK_EQ(pkt.deth.src_qp, 1);
	CHECK_EQ(pkt.payload_len, IB_MAD_SIZE);
	CHECK_MEM(r.last + pkt.payload_off + 16, mad + 16, IB_MAD_SIZE - 16);
	rig_poll(&r, 3);
	CHECK_EQ(a2->stats.unmatched, before + 1);
	rig_destroy(&r);
}

/* The driver owns QP0 (CONF_SPECIAL_QP op_mod 0), so the model hands the SM's SMPs to the core's
 * QP0 only, and the core's SMA answers them through MAD_IFC, as iPXE and Linux mlx4 do. The
 * model raises PORT_MGMNT_CHANGE for Sets and says so (PORT_MNG_CHG_EV): the core relies on it. */
TEST(hermon_model_sm_smp_answered_by_the_core_sma)
{
	static uint8_t mad[IB_MAD_SIZE], pkt[512];
	struct iblib_pkt p = { 0 }, out;
	const struct ib_sma_stats *st;
	const struct hermon_qp *q0;
	struct rig r;
	int n;

	CHECK_EQ(up_active(&r), 0);
	CHECK(r.h.caps.port_mgmt_events);
	CHECK(r.h.ib.port_mgmt_events);
	st = ib_sma_stats(&r.h.ib.port[0]);
	CHECK(st != NULL && r.h.ib.port[0].sma != NULL);
	if (!st) {
		rig_destroy(&r);
		return;
	}
	q0 = ib_sma_qp(&r.h.ib.port[0])->drv_priv;
	CHECK_EQ(q0->ext_qpn, 0);
	CHECK_EQ(q0->qpn, r.h.plan.special_qpn_base);
	/* SubnGet(NodeInfo) from the SM at LID 1, LID-routed to port 1 */
	memset(mad, 0, sizeof(mad));
	mad[0] = IBLIB_MAD_BASE_VERSION; mad[1] = IBLIB_MCLASS_SUBN_LID; mad[2] = 1;
	mad[3] = IBLIB_METHOD_GET;
	put_be64(mad + 8, 0x1234);
	put_be16(mad + 16, IBLIB_SM_ATTR_NODE_INFO);
	p.lrh.vl = IBLIB_VL15;
	p.lrh.dlid = 0x11;
	p.lrh.slid = 1;
	p.bth.opcode = IBLIB_OP_UD_SEND_ONLY;
	p.bth.pkey = 0xffff;
	p.deth.src_qp = 0;
	n = iblib_pkt_build(pkt, sizeof(pkt), &p, mad, IB_MAD_SIZE);
	CHECK(n > 0);
	r.last_len = 0;
	hcasim_packet_in(r.sim, 1, pkt, (size_t)n);
	rig_poll(&r, 3);
	CHECK_EQ(st->received, 1);
	CHECK_EQ(st->answered, 1);
	CHECK_EQ(iblib_pkt_parse(r.last, r.last_len, &out, 0), 0);
	CHECK_EQ(out.lrh.vl, IBLIB_VL15);
	CHECK_EQ(out.lrh.dlid, 1);
	CHECK_EQ(out.lrh.slid, 0x11);
	CHECK_EQ(out.bth.dest_qp, 0);
	CHECK_EQ(out.deth.src_qp, 0);
	CHECK_EQ(r.last[out.payload_off + 3], IBLIB_METHOD_GET_RESP);
	CHECK_EQ(get_be64(r.last + out.payload_off + 8), 0x1234);
	CHECK_EQ(iblib_smp_status(r.last + out.payload_off), 0);
	/* The answer also crossed the cable to port 2, which is not LID 1: its only refusal. */
	CHECK_EQ(hcasim_refused_count(r.sim), 1);
	CHECK(strstr(hcasim_refused(r.sim, 0), "port 2: DLID 0x1 is not this port's LID") != NULL);
	rig_destroy(&r);
}

TEST(hermon_model_multicast_chains_past_bucket_collisions)
{
	struct rig r;
	struct rig_pair p;
	union ib_gid mgid = { .raw = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff } };
	unsigned groups = (1u << HERMON_LOG_MCG_HASH) + 8;   /* more groups than buckets */

	CHECK_EQ(rig_up(&r), 0);
	if (rig_make_pair(&r.h.ib, &p) != 0) {
		test_fail(__FILE__, __LINE__, "no QP pair");
		rig_destroy(&r);
		return;
	}
	const struct hermon_qp *ha = p.qa->drv_priv, *hb = p.qb->drv_priv;

	for (unsigned g = 0; g < groups; g++) {
		mgid.raw[15] = (uint8_t)g;
		if (ib_mcast_attach(p.qa, &mgid) != 0) {
			test_fail(__FILE__, __LINE__, "attach of group %u failed", g);
			break;
		}
	}
	CHECK_EQ(ha->mcast_groups, groups);
	/* A second QP joins one group: same entry, two members. */
	mgid.raw[15] = 3;
	CHECK_EQ(ib_mcast_attach(p.qb, &mgid), 0);
	CHECK_EQ(ib_mcast_attach(p.qb, &mgid), 0);   /* idempotent */
	CHECK_EQ(hb->mcast_groups, 1);
	ib_mcast_detach(p.qb, &mgid);
	CHECK_EQ(hb->mcast_groups, 0);
	ib_mcast_detach(p.qb, &mgid);                /* not a member: nothing happens */
	CHECK_EQ(hb->mcast_groups, 0);
	CHECK_EQ(ha->mcast_groups, groups);
	/* Leave every group (heads with chains behind them included), then join again. */
	for (unsigned g = 0; g < groups; g++) {
		mgid.raw[15] = (uint8_t)g;
		ib_mcast_detach(p.qa, &mgid);
	}
	CHECK_EQ(ha->mcast_groups, 0);
	for (unsigned i = 0; i < sizeof(r.h.amgm_inuse); i++)
		CHECK_EQ(r.h.amgm_inuse[i], 0);
	mgid.raw[15] = 1;
	CHECK_EQ(ib_mcast_attach(p.qa, &mgid), 0);
	rig_destroy(&r);
}

/* The MCG chains are the hardware's, not only our bookkeeping: a datagram to every group -
 * bucket heads and overflow entries alike - reaches the attached QP through the model. */
TEST(hermon_model_multicast_delivery_through_chains)
{
	static uint8_t msg[100];
	struct rig r;
	struct rig_pair p;
	union ib_gid mgid = { .raw = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, [14] = 0x12 } };
	unsigned groups = (1u << HERMON_LOG_MCG_HASH) + 4, got = 0;

	if (!up_pair(&r, &p))
		return;
	for (unsigned g = 0; g < groups; g++) {
		mgid.raw[15] = (uint8_t)g;
		CHECK_EQ(ib_mcast_attach(p.qb, &mgid), 0);
	}
	for (unsigned i = 0; i < sizeof(r.h.amgm_inuse); i++)
		got += (unsigned)__builtin_popcount(r.h.amgm_inuse[i]);
	CHECK(got >= 4);   /* pigeonhole: some groups live in overflow entries */
	for (unsigned g = 0; g < groups; g++) {
		struct ib_address_vector av = { .qpn = IB_MCAST_QPN, .qkey = 0x1234,
						.lid = (uint16_t)(IB_MCAST_LID_BASE + g),
						.gid_present = true };

		mgid.raw[15] = (uint8_t)g;
		av.gid = mgid;
		msg[0] = (uint8_t)g;
		p.gb.recvs = 0;
		CHECK_EQ(rig_send(p.qa, &av, msg, sizeof(msg)), 0);
		rig_poll(&r, 1);
		if (p.gb.recvs != 1 || p.gb.data[0] != g || p.gb.len != sizeof(msg)) {
			test_fail(__FILE__, __LINE__, "group %u: %u deliveries", g, p.gb.recvs);
			break;
		}
		CHECK(p.gb.grh);
		CHECK_MEM(p.gb.dgid, mgid.raw, 16);   /* the GRH's DGID is the group */
	}
	/* Detached: no more delivery. */
	mgid.raw[15] = 3;
	ib_mcast_detach(p.qb, &mgid);
	{
		struct ib_address_vector av = { .qpn = IB_MCAST_QPN, .qkey = 0x1234,
						.lid = IB_MCAST_LID_BASE + 3, .gid_present = true,
						.gid = mgid };

		p.gb.recvs = 0;
		CHECK_EQ(rig_send(p.qa, &av, msg, sizeof(msg)), 0);
		rig_poll(&r, 1);
		CHECK_EQ(p.gb.recvs, 0);
	}
	rig_destroy(&r);
}

/* A queue command failing half-way leaves nothing behind: the next attempt gets the same
 * numbers and the same MTT entries, and the device is still usable. */
TEST(hermon_model_queue_command_faults_unwind)
{
	static const unsigned ops[] = {
		HERMON_CMD_WRITE_MTT, HERMON_CMD_SW2HW_CQ, HERMON_CMD_RST2INIT_QP,
		HERMON_CMD_INIT2RTR_QP, HERMON_CMD_RTR2RTS_QP, HERMON_CMD_RTS2RTS_QP,
	};
	struct ib_qp_config cfg = { .type = IB_QPT_UD, .qkey = 1, .send_wqes = 4, .recv_wqes = 4,
				    .recv_payload = 128, .owner = &rig_owner };
	struct rig r;

	CHECK_EQ(rig_up(&r), 0);
	uint8_t mtt_before[sizeof(r.h.mtt_inuse)], cq_before[sizeof(r.h.cq_inuse)];
	const struct hermon_cq *cqs_before = r.h.cqs;

	memcpy(mtt_before, r.h.mtt_inuse, sizeof(mtt_before));
	memcpy(cq_before, r.h.cq_inuse, sizeof(cq_before));
	for (unsigned i = 0; i < ARRAY_SIZE(ops); i++) {
		struct ib_cq *cq;
		struct ib_qp *qp = NULL;

		hcasim_fault_fail_cmd(r.sim, (int)ops[i], 0x03);
		cq = ib_create_cq(&r.h.ib, 8);
		if (cq) {
			cfg.send_cq = cfg.recv_cq = cq;
			qp = ib_create_qp(&r.h.ib.port[0], &cfg);
		}
		if (cq && qp)
			test_fail(__FILE__, __LINE__, "%s failure went unnoticed",
				  hermon_opcode_name(ops[i]));
		hcasim_fault_fail_cmd(r.sim, -1, 0);
		ib_destroy_qp(qp);
		ib_destroy_cq(cq);
		CHECK_MEM(r.h.mtt_inuse, mtt_before, sizeof(mtt_before));
		CHECK_MEM(r.h.cq_inuse, cq_before, sizeof(cq_before));
		CHECK_EQ(r.h.qp_inuse[0], 0);
		CHECK(r.h.cqs == cqs_before);
	}
	/* Still fully usable. */
	struct ib_cq *cq = ib_create_cq(&r.h.ib, 8);
	struct ib_qp *qp;

	CHECK(cq != NULL);
	cfg.send_cq = cfg.recv_cq = cq;
	qp = ib_create_qp(&r.h.ib.port[0], &cfg);
	CHECK(qp != NULL);
	if (qp) {
		CHECK_EQ(qp->state, IB_QPS_RTS);
		CHECK_EQ(((struct hermon_qp *)qp->drv_priv)->state, IB_QPS_RTS);
	}
	unregister_and_quiesce(&r);
	rig_destroy(&r);
}

/* Port events through the EQ, more of them than it has entries: ownership parity across wraps;
 * the core hears of each and reads the port again. */
TEST(hermon_model_eq_wraps_with_port_events)
{
	struct rig r;
	unsigned sets = 3 * HERMON_NUM_EQES, before;

	CHECK_EQ(up_active(&r), 0);
	before = r.h.port[0].mgmt_events;
	for (unsigned i = 0; i < sets; i++) {
		CHECK_EQ(rig_sm_set_port(&r.h.ib, 1, (uint16_t)(0x100 + i), false), 0);
		if (i % 4 == 3)
			rig_poll(&r, 1);
	}
	rig_poll(&r, 2);
	CHECK(r.h.eq.next > 2 * HERMON_NUM_EQES);
	CHECK(r.h.port[0].mgmt_events > before);
	CHECK_EQ(r.h.ib.port[0].attr.lid, 0x100 + sets - 1);
	CHECK_EQ(r.h.eq.unknown_events, 0);
	rig_destroy(&r);
}

/* Two HCAs in one process: no shared state between them. */
TEST(hermon_model_two_hcas_side_by_side)
{
	struct rig a, b;

	CHECK_EQ(rig_up(&a), 0);
	CHECK_EQ(rig_create(&b, 0x673c, false), 0);   /* a ConnectX-2 beside a ConnectX-3 */
	CHECK_EQ(rig_probe(&b), 0);
	CHECK_EQ(rig_register(&b), 0);
	CHECK(a.h.ib.port[0].open && b.h.ib.port[1].open);
	CHECK(a.h.lkey != b.h.lkey || a.h.mpt_index != b.h.mpt_index);
	unregister_and_quiesce(&a);
	CHECK(!hcasim_quiesced(b.sim));
	CHECK_EQ(b.h.stage, HERMON_STAGE_RUNNING);
	CHECK(b.h.ib.registered);
	CHECK_EQ(hermon_cmd_nop(&b.h) == 0 || b.h.last_opcode == HERMON_CMD_NOP, 1);
	rig_destroy(&b);
	rig_destroy(&a);
}

/* A bus error on the receive CQ ring is a catastrophe for the HCA: the event reaches the core,
 * the error buffer shows up in `fwdump`, and the device can still be quiesced and brought back. */
TEST(hermon_model_catastrophic_error_reported_and_dumped)
{
	static uint8_t msg[64];
	struct rig r;
	struct rig_pair p;

	if (!up_pair(&r, &p))
		return;
	const struct hermon_cq *hcqb = p.cqb->drv_priv;
	const struct ib_address_vector *av = &p.to_b;

	r.dma_fail_lo = virt_to_bus(hcqb->cqe);
	r.dma_fail_hi = r.dma_fail_lo + hcqb->cqe_len;
	rig_log_clear();
	CHECK_EQ(rig_send(p.qa, av, msg, sizeof(msg)), 0);
	rig_poll(&r, 3);
	CHECK_EQ(p.gb.recvs, 0);
	CHECK(r.h.catastrophic);
	CHECK(r.h.ib.dead);
	CHECK(log_has("catastrophic error (syndrome"));
	rig_log_clear();
	hermon_dump(&r.h);
	const char *seg = strstr(rig_log(), "catastrophic=1\n+0000: ");   /* word 0 set */
	CHECK(seg && strncmp(seg + 22, "00000000", 8) != 0);
	r.dma_fail_lo = r.dma_fail_hi = 0;
	rig_log_clear();
	hermon_ib_unregister(&r.h);
	r.registered = false;
	hermon_quiesce(&r.h);
	CHECK(log_has("straight to reset"));
	CHECK(!log_has("failed: status"));   /* no commands thrown at a dead firmware */
	CHECK(hcasim_quiesced(r.sim));
	CHECK(r.h.orphan_qps == NULL && r.h.orphan_cqs == NULL);   /* freed after the reset */
	/* And the HCA comes back. */
	CHECK_EQ(hermon_start(&r.h), 0);
	CHECK_EQ(rig_register(&r), 0);
	rig_destroy(&r);
}

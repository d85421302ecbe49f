/* SPDX-License-Identifier: MIT */
/*
 * The driver against the in-process model (libhcasim): bring-up to INIT_PORT on both ports, the
 * MPT as the device holds it, an injected firmware failure at every bring-up step, an error CQE,
 * UD traffic between the two ports cabled to each other, multicast chains, and quiesce.
 */
#include <stdio.h>
#include "test.h"
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/hermon_prm.h>
#include "hermon_rig.h"

static bool log_has(const char *s) { return strstr(rig_log(), s) != NULL; }

static int up(struct rig *r)
{
	int rc;

	rig_set_quiet(true);
	rig_log_clear();
	if ((rc = rig_create(r, 0, true)) != 0)
		return rc;
	return rig_probe(r);
}

TEST(hermon_model_bringup_both_ports)
{
	struct rig r;
	struct hcasim_mem_usage u;

	CHECK_EQ(up(&r), 0);
	CHECK_EQ(r.h.stage, HERMON_STAGE_RUNNING);
	CHECK_EQ(r.h.num_ports, 2);
	for (unsigned p = 1; p <= 2; p++) {
		CHECK_EQ(hermon_open_port(&r.h, p), 0);
		CHECK(r.h.port[p - 1].open);
		CHECK(r.h.port[p - 1].attr_valid);
		CHECK(r.h.port[p - 1].vl_cap >= 1);
		CHECK(r.h.port[p - 1].attr.port_guid != 0);
	}
	CHECK(r.h.port[0].attr.port_guid != r.h.port[1].attr.port_guid);
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
	hermon_quiesce(&r.h);
	CHECK(hcasim_quiesced(r.sim));
	CHECK_EQ(hcasim_dma_after_close(r.sim), 0);
	hcasim_mem_usage(r.sim, &u);
	CHECK_EQ(u.total, 0);
	/* Bring-up, both ports and the full teardown without a single refused operation. */
	if (hcasim_refused_count(r.sim) != 0)
		test_fail(__FILE__, __LINE__, "model refused: %s", hcasim_refused(r.sim, 0));
	rig_destroy(&r);
}

TEST(hermon_model_mpt_is_local_only)
{
	struct rig r;
	uint8_t mpt[HERMONPRM_MPT_ST_BYTES];

	CHECK_EQ(up(&r), 0);
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

	CHECK_EQ(up(&r2), 0);
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
		CHECK(log_has("HCA reset and left idle"));
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

TEST(hermon_model_port_fault_leaves_device_running)
{
	struct rig r;

	CHECK_EQ(up(&r), 0);
	hcasim_fault_fail_cmd(r.sim, HERMON_CMD_INIT_PORT, 0x09);
	CHECK(hermon_open_port(&r.h, 1) < 0);
	CHECK(log_has("INIT_PORT failed: status 0x09 (bad resource state)"));
	CHECK(!r.h.port[0].open);
	hcasim_fault_fail_cmd(r.sim, -1, 0);
	CHECK_EQ(hermon_open_port(&r.h, 1), 0);
	CHECK_EQ(r.h.stage, HERMON_STAGE_RUNNING);
	rig_destroy(&r);
}

/* ---- queues ---- */

struct sink {
	unsigned n;
	struct hermon_completion c[16];
	uint8_t data[16][256];
};

static void collect(void *ctx, const struct hermon_completion *c)
{
	struct sink *s = ctx;

	if (s->n < 16) {
		s->c[s->n] = *c;
		if (!c->is_send && c->status == 0 && c->buf)
			memcpy(s->data[s->n], c->buf, c->len < 256 ? c->len : 256);
		s->n++;
	}
}

/* Plays the SM through MAD_IFC: SubnSet(PortInfo) with a LID, then ARMED, then ACTIVE. */
static int make_active(struct hermon *h, unsigned port, uint16_t lid)
{
	uint8_t mad[256], reply[256];
	int rc;

	for (unsigned step = 0; step < 2; step++) {
		memset(mad, 0, sizeof(mad));
		mad[0] = 1; mad[1] = 0x01; mad[2] = 1; mad[3] = 0x01;   /* SubnGet(PortInfo) */
		mad[17] = 0x15;
		mad[23] = (uint8_t)port;
		if ((rc = hermon_mad(h, port, mad, reply)) != 0)
			return rc;
		memcpy(mad + 64, reply + 64, 64);
		mad[3] = 0x02;                                          /* SubnSet */
		mad[64 + 16] = (uint8_t)(lid >> 8);
		mad[64 + 17] = (uint8_t)lid;
		mad[64 + 18] = 0;
		mad[64 + 19] = 1;                                       /* SM LID 1 */
		mad[64 + 32] = (uint8_t)((mad[64 + 32] & 0xf0) | (step == 0 ? 3 : 4));
		mad[64 + 33] &= 0x0f;   /* PortPhysicalState: no change */
		if ((rc = hermon_forward_smp(h, port, mad, reply)) != 0)
			return rc;
	}
	return 0;
}

struct qpset {
	struct hermon_cq *cq1, *cq2;
	struct hermon_qp *a, *b;
};

static int make_qps(struct hermon *h, struct qpset *s, size_t recv_size)
{
	struct hermon_qp_params p = { .type = HERMON_QPT_UD, .num_send = 4, .num_recv = 4,
				      .qkey = 0x1234, .recv_buf_size = recv_size };
	int rc;

	if ((rc = hermon_create_cq(h, 16, &s->cq1)) || (rc = hermon_create_cq(h, 16, &s->cq2)))
		return rc;
	p.port = 1;
	p.send_cq = p.recv_cq = s->cq1;
	if ((rc = hermon_create_qp(h, &p, &s->a)) != 0)
		return rc;
	p.port = 2;
	p.send_cq = p.recv_cq = s->cq2;
	if ((rc = hermon_create_qp(h, &p, &s->b)) != 0)
		return rc;
	if ((rc = hermon_modify_qp(h, s->a, 0x1234, 0, 0)) != 0)
		return rc;
	return hermon_modify_qp(h, s->b, 0x1234, 0, 0);
}

static void drain(struct rig *r, struct qpset *s, struct sink *k1, struct sink *k2)
{
	for (unsigned i = 0; i < 50; i++) {
		rig_step(r);
		hermon_poll(&r->h);
		hermon_poll_cq(&r->h, s->cq1, 0, collect, k1);
		hermon_poll_cq(&r->h, s->cq2, 0, collect, k2);
	}
}

TEST(hermon_model_ud_loopback_between_ports)
{
	static uint8_t msg[200];
	struct rig r;
	struct qpset s;
	struct sink k1 = { 0 }, k2 = { 0 };

	CHECK_EQ(up(&r), 0);
	CHECK_EQ(hermon_open_port(&r.h, 1), 0);
	CHECK_EQ(hermon_open_port(&r.h, 2), 0);
	CHECK_EQ(make_active(&r.h, 1, 0x11), 0);
	CHECK_EQ(make_active(&r.h, 2, 0x22), 0);
	CHECK_EQ(r.h.port[0].attr.state, 4);
	CHECK_EQ(r.h.port[1].attr.state, 4);
	CHECK_EQ(r.h.port[1].attr.lid, 0x22);
	CHECK_EQ(make_qps(&r.h, &s, 256), 0);
	CHECK_EQ(s.b->recv.outstanding, 4);   /* the driver-owned ring is posted */

	for (unsigned i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 7 + 1);
	/* More sends than ring slots and CQ entries: both rings wrap more than twice. */
	for (unsigned round = 0; round < 40; round++) {
		struct hermon_av av = { .qpn = s.b->qpn, .qkey = 0x1234, .lid = 0x22 };

		msg[0] = (uint8_t)round;
		CHECK_EQ(hermon_post_send(&r.h, s.a, &av, msg, sizeof(msg), msg), 0);
		drain(&r, &s, &k1, &k2);
		if (k1.n != 1 || k2.n != 1) {
			test_fail(__FILE__, __LINE__, "round %u: %u send / %u receive completions",
				  round, k1.n, k2.n);
			break;
		}
		CHECK(k1.c[0].is_send);
		CHECK_EQ(k1.c[0].status, 0);
		CHECK(!k2.c[0].is_send);
		CHECK_EQ(k2.c[0].status, 0);
		CHECK_EQ(k2.c[0].len, sizeof(msg));
		CHECK_EQ(k2.c[0].src_qpn, s.a->qpn);
		CHECK_EQ(k2.c[0].slid, 0x11);
		CHECK_MEM(k2.data[0], msg, sizeof(msg));
		k1.n = k2.n = 0;
	}
	CHECK_EQ(s.b->recv.outstanding, 4);   /* refilled after every receive */
	CHECK_EQ(s.cq1->next, 40);
	CHECK_EQ(s.cq2->next, 40);
	CHECK(s.cq1->next > 2 * s.cq1->num_cqes);
	hermon_dump(&r.h);
	CHECK(log_has("fwdump"));
	hermon_quiesce(&r.h);
	CHECK(hcasim_quiesced(r.sim));
	CHECK_EQ(hcasim_dma_after_close(r.sim), 0);
	rig_destroy(&r);
}

TEST(hermon_model_cqe_error_is_reported)
{
	static uint8_t msg[64];
	struct rig r;
	struct qpset s;
	struct sink k1 = { 0 }, k2 = { 0 };
	struct hermon_av av = { .qkey = 0x1234, .lid = 0x22 };
	char want[80];

	CHECK_EQ(up(&r), 0);
	CHECK_EQ(hermon_open_port(&r.h, 1), 0);
	CHECK_EQ(hermon_open_port(&r.h, 2), 0);
	CHECK_EQ(make_active(&r.h, 1, 0x11), 0);
	CHECK_EQ(make_active(&r.h, 2, 0x22), 0);
	CHECK_EQ(make_qps(&r.h, &s, 256), 0);
	av.qpn = s.b->qpn;
	/* A gather entry with a key that names no MPT: the HCA must fail the WQE. */
	uint32_t good = r.h.lkey;

	r.h.lkey = good ^ 0x00010000u;
	rig_log_clear();
	CHECK_EQ(hermon_post_send(&r.h, s.a, &av, msg, sizeof(msg), msg), 0);
	r.h.lkey = good;
	drain(&r, &s, &k1, &k2);
	CHECK(k1.n >= 1);
	if (k1.n >= 1) {
		CHECK(k1.c[0].is_send);
		CHECK_EQ(k1.c[0].status, -EIO);
		CHECK(k1.c[0].syndrome != 0);
		CHECK_EQ(k1.c[0].cookie, msg);
	}
	CHECK_EQ(k2.n, 0);   /* nothing arrived */
	snprintf(want, sizeof(want), "send completion error on QP 0x%x, WQE 0", s.a->qpn);
	CHECK(log_has(want));
	/* The QP is in error now: its posted receives come back flushed (syndrome 0x05), once. */
	CHECK_EQ(s.cq1->errors, 1 + 4);
	CHECK_EQ(s.a->state, HERMON_QPS_ERR);
	for (unsigned i = 1; i < k1.n; i++) {
		CHECK(!k1.c[i].is_send);
		CHECK_EQ(k1.c[i].status, -EIO);
		CHECK_EQ(k1.c[i].syndrome, 0x05);
	}
	CHECK_EQ(s.a->recv.outstanding, 0);
	CHECK_EQ(hermon_post_send(&r.h, s.a, &av, msg, sizeof(msg), msg), -EIO);
	rig_destroy(&r);
}

TEST(hermon_model_multicast_chains_past_bucket_collisions)
{
	struct rig r;
	struct qpset s;
	uint8_t gid[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff };
	unsigned groups = (1u << HERMON_LOG_MCG_HASH) + 8;   /* more groups than buckets */

	CHECK_EQ(up(&r), 0);
	CHECK_EQ(hermon_open_port(&r.h, 1), 0);
	CHECK_EQ(hermon_open_port(&r.h, 2), 0);
	CHECK_EQ(make_qps(&r.h, &s, 0), 0);
	for (unsigned g = 0; g < groups; g++) {
		gid[15] = (uint8_t)g;
		if (hermon_mcast_attach(&r.h, s.a, gid) != 0) {
			test_fail(__FILE__, __LINE__, "attach of group %u failed", g);
			break;
		}
	}
	CHECK_EQ(s.a->mcast_groups, groups);
	/* A second QP joins one group: same entry, two members. */
	gid[15] = 3;
	CHECK_EQ(hermon_mcast_attach(&r.h, s.b, gid), 0);
	CHECK_EQ(hermon_mcast_attach(&r.h, s.b, gid), 0);   /* idempotent */
	CHECK_EQ(s.b->mcast_groups, 1);
	CHECK_EQ(hermon_mcast_detach(&r.h, s.b, gid), 0);
	CHECK_EQ(hermon_mcast_detach(&r.h, s.b, gid), -ENOENT);
	/* Leave every group (heads with chains behind them included), then join again. */
	for (unsigned g = 0; g < groups; g++) {
		gid[15] = (uint8_t)g;
		if (hermon_mcast_detach(&r.h, s.a, gid) != 0) {
			test_fail(__FILE__, __LINE__, "detach of group %u failed", g);
			break;
		}
	}
	CHECK_EQ(s.a->mcast_groups, 0);
	for (unsigned i = 0; i < sizeof(r.h.amgm_inuse); i++)
		CHECK_EQ(r.h.amgm_inuse[i], 0);
	gid[15] = 1;
	CHECK_EQ(hermon_mcast_attach(&r.h, s.a, gid), 0);
	rig_destroy(&r);
}

/* QP1 on both ports: MLX sends with driver-built LRH/BTH/DETH reach the other port's QP1. */
TEST(hermon_model_gsi_mlx_send_between_ports)
{
	static uint8_t mad[256];
	struct rig r;
	struct hermon_cq *cq1, *cq2;
	struct hermon_qp *g1, *g2;
	struct sink k1 = { 0 }, k2 = { 0 };
	struct hermon_qp_params p = { .type = HERMON_QPT_GSI, .num_send = 4, .num_recv = 4,
				      .recv_buf_size = 256 + 64 };

	CHECK_EQ(up(&r), 0);
	CHECK_EQ(hermon_open_port(&r.h, 1), 0);
	CHECK_EQ(hermon_open_port(&r.h, 2), 0);
	CHECK_EQ(make_active(&r.h, 1, 0x11), 0);
	CHECK_EQ(make_active(&r.h, 2, 0x22), 0);
	CHECK_EQ(hermon_create_cq(&r.h, 8, &cq1), 0);
	CHECK_EQ(hermon_create_cq(&r.h, 8, &cq2), 0);
	p.port = 1;
	p.send_cq = p.recv_cq = cq1;
	CHECK_EQ(hermon_create_qp(&r.h, &p, &g1), 0);
	p.port = 2;
	p.send_cq = p.recv_cq = cq2;
	CHECK_EQ(hermon_create_qp(&r.h, &p, &g2), 0);
	CHECK_EQ(g1->ext_qpn, 1);
	CHECK_EQ(g1->qpn, r.h.plan.special_qpn_base + 2);
	CHECK_EQ(g2->qpn, r.h.plan.special_qpn_base + 3);
	CHECK_EQ(hermon_modify_qp(&r.h, g1, 0, 0, 0), 0);
	CHECK_EQ(hermon_modify_qp(&r.h, g2, 0, 0, 0), 0);
	CHECK_EQ(g1->qkey, HERMON_GSI_QKEY);

	/* A vendor-class MAD (class 0x09 is free for us): the firmware passes it to QP1. */
	memset(mad, 0, sizeof(mad));
	mad[0] = 1; mad[1] = 0x09; mad[2] = 1; mad[3] = 0x01;
	memcpy(mad + 8, "ibboot!", 8);
	struct hermon_av av = { .qpn = 1, .qkey = HERMON_GSI_QKEY, .lid = 0x22, .pkey = 0xffff };

	CHECK_EQ(hermon_post_send(&r.h, g1, &av, mad, sizeof(mad), mad), 0);
	for (unsigned i = 0; i < 50; i++) {
		rig_step(&r);
		hermon_poll_cq(&r.h, cq1, 0, collect, &k1);
		hermon_poll_cq(&r.h, cq2, 0, collect, &k2);
	}
	CHECK_EQ(k1.n, 1);
	CHECK_EQ(k1.c[0].status, 0);
	CHECK_EQ(k2.n, 1);
	if (k2.n == 1) {
		CHECK_EQ(k2.c[0].status, 0);
		CHECK_EQ(k2.c[0].len, 256);
		CHECK_EQ(k2.c[0].src_qpn, 1);
		CHECK_EQ(k2.c[0].slid, 0x11);
		CHECK_MEM(k2.data[0], mad, 256);
	}
	rig_destroy(&r);
}

/* Port events through the EQ, more of them than it has entries: ownership parity across wraps. */
struct evlog {
	unsigned mgmt, state, lid_changes;
};

static void on_event(void *ctx, const struct hermon_event *ev)
{
	struct evlog *l = ctx;

	if (ev->type == HERMON_EV_PORT_MGMNT_CHANGE) {
		l->mgmt++;
		if (ev->info & HERMON_PORT_CHANGED_LID)
			l->lid_changes++;
	} else if (ev->type == HERMON_EV_PORT_STATE_CHANGE) {
		l->state++;
	}
}

TEST(hermon_model_eq_wraps_with_port_events)
{
	struct rig r;
	struct evlog l = { 0 };
	unsigned sets = 3 * HERMON_NUM_EQES;

	CHECK_EQ(up(&r), 0);
	r.h.event = on_event;
	r.h.event_ctx = &l;
	CHECK_EQ(hermon_open_port(&r.h, 1), 0);
	CHECK_EQ(make_active(&r.h, 1, 0x11), 0);
	hermon_poll(&r.h);
	CHECK(l.state >= 1);   /* INIT -> ACTIVE */
	CHECK_EQ(r.h.port[0].attr.state, 4);
	unsigned before = l.lid_changes;

	for (unsigned i = 0; i < sets; i++) {
		CHECK_EQ(make_active(&r.h, 1, (uint16_t)(0x100 + i)), 0);
		if (i % 4 == 3)
			hermon_poll(&r.h);
	}
	hermon_poll(&r.h);
	CHECK(r.h.eq.next > 2 * HERMON_NUM_EQES);
	CHECK(l.lid_changes > before);
	CHECK_EQ(r.h.port[0].attr.lid, 0x100 + sets - 1);
	CHECK_EQ(r.h.eq.unknown_events, 0);
	rig_destroy(&r);
}

/* Two HCAs in one process: no shared state between them. */
TEST(hermon_model_two_hcas_side_by_side)
{
	struct rig a, b;

	CHECK_EQ(up(&a), 0);
	CHECK_EQ(rig_create(&b, 0x673c, false), 0);   /* a ConnectX-2 beside a ConnectX-3 */
	CHECK_EQ(rig_probe(&b), 0);
	CHECK_EQ(hermon_open_port(&a.h, 1), 0);
	CHECK_EQ(hermon_open_port(&b.h, 2), 0);
	CHECK(a.h.lkey != b.h.lkey || a.h.mpt_index != b.h.mpt_index);
	hermon_quiesce(&a.h);
	CHECK(hcasim_quiesced(a.sim));
	CHECK(!hcasim_quiesced(b.sim));
	CHECK_EQ(b.h.stage, HERMON_STAGE_RUNNING);
	CHECK_EQ(hermon_cmd_nop(&b.h) == 0 || b.h.last_opcode == HERMON_CMD_NOP, 1);
	rig_destroy(&b);
	rig_destroy(&a);
}

/* A CQE whose opcode no driver knows (the model's corruption knob) fails the work request. */
TEST(hermon_model_corrupt_cqe_is_an_error)
{
	static uint8_t msg[128];
	struct rig r;
	struct qpset s;
	struct sink k1 = { 0 }, k2 = { 0 };
	struct hermon_av av = { .qkey = 0x1234, .lid = 0x22 };

	CHECK_EQ(up(&r), 0);
	CHECK_EQ(hermon_open_port(&r.h, 1), 0);
	CHECK_EQ(hermon_open_port(&r.h, 2), 0);
	CHECK_EQ(make_active(&r.h, 1, 0x11), 0);
	CHECK_EQ(make_active(&r.h, 2, 0x22), 0);
	CHECK_EQ(make_qps(&r.h, &s, 256), 0);
	av.qpn = s.b->qpn;
	rig_log_clear();
	hcasim_fault_corrupt_next_cqe(r.sim);
	CHECK_EQ(hermon_post_send(&r.h, s.a, &av, msg, sizeof(msg), msg), 0);
	drain(&r, &s, &k1, &k2);
	CHECK_EQ(k1.n + k2.n, 2);
	unsigned bad = 0;

	for (unsigned i = 0; i < k1.n; i++)
		bad += k1.c[i].status != 0;
	for (unsigned i = 0; i < k2.n; i++)
		bad += k2.c[i].status != 0;
	CHECK_EQ(bad, 1);
	CHECK(log_has("unexpected opcode 0x1f"));
	CHECK(log_has("treated as an error"));
	/* The next one is clean again. */
	k1.n = k2.n = 0;
	CHECK_EQ(hermon_post_send(&r.h, s.a, &av, msg, sizeof(msg), msg), 0);
	drain(&r, &s, &k1, &k2);
	CHECK_EQ(k1.n, 1);
	CHECK_EQ(k2.n, 1);
	CHECK_EQ(k1.c[0].status, 0);
	CHECK_EQ(k2.c[0].status, 0);
	rig_destroy(&r);
}

/* A device that stays unreachable after reset: the probe gives up with a message, nothing hangs. */
TEST(hermon_model_reset_that_never_finishes)
{
	struct rig r;

	rig_set_quiet(true);
	rig_log_clear();
	CHECK_EQ(rig_create(&r, 0, true), 0);
	hcasim_set_reset_time(r.sim, 60ull * 1000000000ull);   /* a minute: longer than we wait */
	CHECK_EQ(rig_probe(&r), -ETIMEDOUT);
	CHECK(log_has("no answer on PCI 3000 ms after reset"));
	rig_destroy(&r);

	/* Within the PRM's second it is fine, however long the vendor ID poll takes. */
	CHECK_EQ(rig_create(&r, 0, true), 0);
	hcasim_set_reset_time(r.sim, 1500ull * 1000000ull);
	CHECK_EQ(rig_probe(&r), 0);
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
	struct rig r;

	CHECK_EQ(up(&r), 0);
	CHECK_EQ(hermon_open_port(&r.h, 1), 0);
	uint8_t mtt_before[sizeof(r.h.mtt_inuse)], cq_before[sizeof(r.h.cq_inuse)];

	memcpy(mtt_before, r.h.mtt_inuse, sizeof(mtt_before));
	memcpy(cq_before, r.h.cq_inuse, sizeof(cq_before));
	for (unsigned i = 0; i < ARRAY_SIZE(ops); i++) {
		struct hermon_cq *cq = NULL;
		struct hermon_qp *qp = NULL;
		struct hermon_qp_params p = { .type = HERMON_QPT_UD, .port = 1, .num_send = 4,
					      .num_recv = 4, .qkey = 1, .recv_buf_size = 128 };
		int rc;

		hcasim_fault_fail_cmd(r.sim, (int)ops[i], 0x03);
		rc = hermon_create_cq(&r.h, 8, &cq);
		if (rc == 0) {
			p.send_cq = p.recv_cq = cq;
			rc = hermon_create_qp(&r.h, &p, &qp);
			if (rc == 0)
				rc = hermon_modify_qp(&r.h, qp, 1, 0, 0);
		}
		if (rc == 0)
			test_fail(__FILE__, __LINE__, "%s failure went unnoticed",
				  hermon_opcode_name(ops[i]));
		hcasim_fault_fail_cmd(r.sim, -1, 0);
		if (qp)
			hermon_destroy_qp(&r.h, qp);
		if (cq)
			hermon_destroy_cq(&r.h, cq);
		CHECK_MEM(r.h.mtt_inuse, mtt_before, sizeof(mtt_before));
		CHECK_MEM(r.h.cq_inuse, cq_before, sizeof(cq_before));
		CHECK_EQ(r.h.qp_inuse[0], 0);
		CHECK(r.h.qps == NULL);
		CHECK(r.h.cqs == NULL);
	}
	/* Still fully usable. */
	struct hermon_cq *cq;
	struct hermon_qp *qp;
	struct hermon_qp_params p = { .type = HERMON_QPT_UD, .port = 1, .num_send = 4,
				      .num_recv = 4, .qkey = 1 };

	CHECK_EQ(hermon_create_cq(&r.h, 8, &cq), 0);
	p.send_cq = p.recv_cq = cq;
	CHECK_EQ(hermon_create_qp(&r.h, &p, &qp), 0);
	CHECK_EQ(hermon_modify_qp(&r.h, qp, 1, 0, 0), 0);
	CHECK_EQ(qp->state, HERMON_QPS_RTS);
	hermon_quiesce(&r.h);
	CHECK(hcasim_quiesced(r.sim));
	rig_destroy(&r);
}

/* The MCG chains are the hardware's, not only our bookkeeping: a datagram to every group —
 * bucket heads and overflow entries alike — reaches the attached QP through the model. */
TEST(hermon_model_multicast_delivery_through_chains)
{
	static uint8_t msg[100];
	struct rig r;
	struct qpset s;
	struct sink k1 = { 0 }, k2 = { 0 };
	uint8_t gid[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0x12 };
	unsigned groups = (1u << HERMON_LOG_MCG_HASH) + 4, got = 0;

	CHECK_EQ(up(&r), 0);
	CHECK_EQ(hermon_open_port(&r.h, 1), 0);
	CHECK_EQ(hermon_open_port(&r.h, 2), 0);
	CHECK_EQ(make_active(&r.h, 1, 0x11), 0);
	CHECK_EQ(make_active(&r.h, 2, 0x22), 0);
	CHECK_EQ(make_qps(&r.h, &s, 256), 0);
	for (unsigned g = 0; g < groups; g++) {
		gid[15] = (uint8_t)g;
		CHECK_EQ(hermon_mcast_attach(&r.h, s.b, gid), 0);
	}
	for (unsigned i = 0; i < sizeof(r.h.amgm_inuse); i++)
		got += (unsigned)__builtin_popcount(r.h.amgm_inuse[i]);
	CHECK(got >= 4);   /* pigeonhole: some groups live in overflow entries */
	for (unsigned g = 0; g < groups; g++) {
		struct hermon_av av = { .qpn = 0xffffff, .qkey = 0x1234,
					.lid = (uint16_t)(0xc000 + g), .gid_present = true };

		gid[15] = (uint8_t)g;
		memcpy(av.gid, gid, 16);
		msg[0] = (uint8_t)g;
		k1.n = k2.n = 0;
		CHECK_EQ(hermon_post_send(&r.h, s.a, &av, msg, sizeof(msg), msg), 0);
		drain(&r, &s, &k1, &k2);
		if (k2.n != 1 || k2.c[0].status != 0 || k2.data[0][0] != g) {
			test_fail(__FILE__, __LINE__, "group %u: %u deliveries", g, k2.n);
			break;
		}
		CHECK(k2.c[0].grh_present);
		CHECK_MEM(k2.c[0].grh + 24, gid, 16);   /* the GRH's DGID is the group */
	}
	/* Detached: no more delivery. */
	gid[15] = 3;
	CHECK_EQ(hermon_mcast_detach(&r.h, s.b, gid), 0);
	{
		struct hermon_av av = { .qpn = 0xffffff, .qkey = 0x1234, .lid = 0xc003,
					.gid_present = true };

		memcpy(av.gid, gid, 16);
		k1.n = k2.n = 0;
		CHECK_EQ(hermon_post_send(&r.h, s.a, &av, msg, sizeof(msg), msg), 0);
		drain(&r, &s, &k1, &k2);
		CHECK_EQ(k2.n, 0);
	}
	rig_destroy(&r);
}

/* A bus error on the receive CQ ring is a catastrophe for the HCA: the event is reported, the
 * error buffer shows up in `fwdump`, and the device can still be quiesced. */
static unsigned catas_events;

static void on_catas(void *ctx, const struct hermon_event *ev)
{
	(void)ctx;
	if (ev->type == HERMON_EV_CATAS_ERROR)
		catas_events++;
}

TEST(hermon_model_catastrophic_error_reported_and_dumped)
{
	static uint8_t msg[64];
	struct rig r;
	struct qpset s;
	struct sink k1 = { 0 }, k2 = { 0 };

	CHECK_EQ(up(&r), 0);
	r.h.event = on_catas;
	catas_events = 0;
	CHECK_EQ(hermon_open_port(&r.h, 1), 0);
	CHECK_EQ(hermon_open_port(&r.h, 2), 0);
	CHECK_EQ(make_active(&r.h, 1, 0x11), 0);
	CHECK_EQ(make_active(&r.h, 2, 0x22), 0);
	CHECK_EQ(make_qps(&r.h, &s, 256), 0);
	r.dma_fail_lo = virt_to_bus(s.cq2->cqe);
	r.dma_fail_hi = r.dma_fail_lo + s.cq2->cqe_len;
	struct hermon_av av = { .qpn = s.b->qpn, .qkey = 0x1234, .lid = 0x22 };

	rig_log_clear();
	CHECK_EQ(hermon_post_send(&r.h, s.a, &av, msg, sizeof(msg), msg), 0);
	drain(&r, &s, &k1, &k2);
	CHECK_EQ(k2.n, 0);
	CHECK_EQ(catas_events, 1);
	CHECK(log_has("catastrophic error event"));
	rig_log_clear();
	hermon_dump(&r.h);
	CHECK(log_has("catas[00] 0x"));
	r.dma_fail_lo = r.dma_fail_hi = 0;
	CHECK(r.h.catastrophic);
	rig_log_clear();
	hermon_quiesce(&r.h);
	CHECK(log_has("straight to reset"));
	CHECK(!log_has("failed: status"));   /* no commands thrown at a dead firmware */
	CHECK(hcasim_quiesced(r.sim));
	CHECK(r.h.orphan_qps == NULL && r.h.orphan_cqs == NULL);   /* freed after the reset */
	/* And the HCA comes back. */
	CHECK_EQ(hermon_start(&r.h), 0);
	CHECK_EQ(hermon_open_port(&r.h, 1), 0);
	rig_destroy(&r);
}

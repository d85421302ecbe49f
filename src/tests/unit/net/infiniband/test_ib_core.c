/* SPDX-License-Identifier: MIT */
/* IB core over the fake device: port policy, CQ/QP plumbing, MAD retries, SA join and paths. */
#include "test.h"
#include "ib_fixture.h"

#include <ibboot/errno.h>
#include <ibboot/ib.h>
#include <ibboot/ib_mad.h>
#include <ibboot/ib_sa.h>
#include <ibboot/ib_ulp.h>
#include <ibboot/wire/attrs.h>
#include <ibboot/wire/bytes.h>
#include <ibboot/wire/mad.h>
#include <stdlib.h>

/* ---- helpers ---- */

struct join_log {
	int calls, last_status;
	struct ib_mcast_info info;
};

static void join_cb(void *ctx, struct ib_mcast_group *g, int status)
{
	struct join_log *l = ctx;

	l->calls++;
	l->last_status = status;
	if (status == 0)
		l->info = g->info;
}

struct path_log {
	int calls, last_status;
};

static void path_cb(void *ctx, const union ib_gid *dgid, int status)
{
	struct path_log *l = ctx;

	(void)dgid;
	l->calls++;
	l->last_status = status;
}

struct send_log {
	int calls, last_status;
};

static void ud_sent(struct ib_qp *qp, void *cookie, int status)
{
	struct send_log *l = qp->owner_priv;

	(void)cookie;
	l->calls++;
	l->last_status = status;
}

static const struct ib_qp_owner_ops ud_owner = { .sent = ud_sent };

static struct ib_qp *make_ud_qp(struct ib_port *port, void *priv)
{
	struct ib_cq *cq = ib_create_cq(port->dev, 32);
	struct ib_qp_config cfg = {
		.type = IB_QPT_UD, .qkey = 0, .send_wqes = 8, .recv_wqes = 8,
		.recv_payload = 2048, .send_bufs = 8, .send_buf_size = 2048,
		.send_cq = cq, .recv_cq = cq, .owner = &ud_owner, .owner_priv = priv,
	};

	return cq ? ib_create_qp(port, &cfg) : NULL;
}

static void port2_active(struct fake_ibdev *f)
{
	f->port[1].state = IB_PORT_ACTIVE;
	f->port[1].phys_state = 5;
}

/* ---- port policy ---- */

TEST(ib_port1_active_port2_down_after_register)
{
	struct fake_ibdev *f = fx_setup(NULL);
	struct ib_port *p1, *p2;
	union ib_gid gid;

	CHECK(f != NULL);
	if (!f)
		return;
	p1 = &f->dev.port[0];
	p2 = &f->dev.port[1];
	CHECK_EQ(p1->attr.state, IB_PORT_ACTIVE);
	CHECK_EQ(p1->attr.lid, 0x11);
	CHECK_EQ(p1->attr.sm_lid, 1);
	CHECK_EQ(p1->attr.pkey, 0xffff);
	fake_port_gid(f, 1, &gid);
	CHECK_MEM(p1->gid.raw, gid.raw, 16);
	CHECK_EQ(p2->attr.state, IB_PORT_DOWN);
	CHECK(ib_active_port() == p1);
	CHECK_EQ(get_be64(f->dev.node_guid), 0x0002c90300001000ull);
	CHECK(test_console_has("fake0 port 1: ACTIVE, LID 0x0011, SM LID 0x0001, 4X QDR (40 Gb/s) "
			       "(1000 ms after start)"));
	fx_teardown(f);
	CHECK(ib_active_port() == NULL);
	CHECK(ib_devices() == NULL);
}

TEST(ib_unplugged_port_costs_little)
{
	struct fake_ibdev *f = fx_setup(NULL);
	unsigned before;

	if (!f)
		return;
	before = f->n_mad_ifc_port[1];
	fx_run(60000, 10);   /* 6000 poll passes */
	/* one PortInfo query per IB_QUERY_DOWN_MS, nothing per poll pass */
	CHECK(f->n_mad_ifc_port[1] - before <= 60000 / IB_QUERY_DOWN_MS + 1);
	CHECK(f->n_mad_ifc_port[1] - before >= 60000 / IB_QUERY_DOWN_MS - 1);
	fx_teardown(f);
}

static void no_sm(struct fake_ibdev *f)
{
	f->port[0].state = IB_PORT_INIT;
	f->port[0].sm_lid = 0;
}

TEST(ib_sm_absent_reported_within_30s_then_progress)
{
	struct fake_ibdev *f = fx_setup(no_sm);

	if (!f)
		return;
	CHECK(test_console_has("fake0 port 1: link up, 4X QDR (40 Gb/s); waiting for the subnet manager"));
	fx_run(28000, 100);
	CHECK(!test_console_has("no subnet manager"));
	fx_run(2100, 100);
	CHECK(test_console_has("fake0 port 1: link up but no subnet manager after 30 s (INIT, "
			       "SM LID 0x0000): is OpenSM running?"));
	CHECK(!test_console_has("after 60 s"));
	fx_run(30000, 100);
	CHECK(test_console_has("fake0 port 1: link up but no subnet manager after 60 s (INIT"));
	CHECK(ib_active_port() == NULL);
	/* The SM arrives: the port event makes the core look at once. */
	f->port[0].state = IB_PORT_ACTIVE;
	f->port[0].sm_lid = 1;
	fake_ibdev_port_event(f, 1, IB_EVENT_PORT_CHANGE, 0);
	test_now_ms += 1;
	ib_poll();
	CHECK(ib_active_port() == &f->dev.port[0]);
	fx_teardown(f);
}

struct ulp_log {
	int up, down, rereg;
	struct ib_port *last;
};
static struct ulp_log ulog;
static void ulp_up(struct ib_port *p) { ulog.up++; ulog.last = p; }
static void ulp_down(struct ib_port *p) { ulog.down++; ulog.last = p; }
static void ulp_rereg(struct ib_port *p) { ulog.rereg++; ulog.last = p; }
static struct ib_ulp test_ulp = { .name = "test", .port_up = ulp_up, .port_down = ulp_down,
				  .reregister = ulp_rereg };

TEST(ib_failover_to_the_other_port)
{
	struct fake_ibdev *f = fx_setup(NULL);

	if (!f)
		return;
	memset(&ulog, 0, sizeof(ulog));
	ib_ulp_register(&test_ulp);
	CHECK_EQ(ulog.up, 1);                    /* told about the already-chosen port */
	CHECK(ulog.last == &f->dev.port[0]);
	f->port[1].state = IB_PORT_ACTIVE;       /* port 2 comes up: port 1 stays chosen */
	fake_ibdev_port_event(f, 2, IB_EVENT_PORT_CHANGE, 0);
	fx_run(10, 10);
	CHECK(ib_active_port() == &f->dev.port[0]);
	CHECK_EQ(ulog.up, 1);
	f->port[0].state = IB_PORT_DOWN;         /* cable pulled on port 1 */
	fake_ibdev_port_event(f, 1, IB_EVENT_PORT_CHANGE, 0);
	fx_run(10, 10);
	CHECK_EQ(ulog.down, 1);
	CHECK_EQ(ulog.up, 2);
	CHECK(ib_active_port() == &f->dev.port[1]);
	CHECK(ulog.last == &f->dev.port[1]);
	ib_ulp_unregister(&test_ulp);
	fx_teardown(f);
}

/* ---- CQ/QP plumbing ---- */

TEST(ib_send_error_completion_is_reported_not_success)
{
	struct fake_ibdev *f = fx_setup(port2_active);
	struct send_log log = { 0, 1 };
	struct ib_qp *qp;
	struct ib_buf *buf;
	struct ib_address_vector av = { .qpn = 0x99, .qkey = 1, .lid = 0x12 };

	if (!f)
		return;
	qp = make_ud_qp(&f->dev.port[0], &log);
	CHECK(qp != NULL);
	if (!qp)
		goto out;
	buf = ib_send_buf_get(qp);
	CHECK(buf != NULL);
	f->send_error = IB_WC_LOC_PROT_ERR;
	CHECK_EQ(ib_post_send(qp, &av, buf, 100, NULL), 0);
	ib_poll();
	CHECK_EQ(log.calls, 1);
	CHECK_EQ(log.last_status, -EIO);
	CHECK(test_console_has("send WQE 0 failed: local protection error (syndrome 0x04, "
			       "vendor 0x51)"));
	CHECK_EQ(qp->send_free_mask, 0xffu);     /* the buffer went back to the pool */
	buf = ib_send_buf_get(qp);
	CHECK_EQ(ib_post_send(qp, &av, buf, 100, NULL), 0);
	ib_poll();
	CHECK_EQ(log.calls, 2);
	CHECK_EQ(log.last_status, 0);
out:
	fx_teardown(f);
}

TEST(ib_send_pool_exhaustion_and_oversize)
{
	struct fake_ibdev *f = fx_setup(NULL);
	struct send_log log = { 0, 0 };
	struct ib_address_vector av = { .qpn = 0x99, .qkey = 1, .lid = 0x77 };
	struct ib_buf *b[9];
	struct ib_qp *qp;

	if (!f)
		return;
	qp = make_ud_qp(&f->dev.port[0], &log);
	if (!qp)
		goto out;
	for (int i = 0; i < 8; i++)
		b[i] = ib_send_buf_get(qp);
	b[8] = ib_send_buf_get(qp);
	CHECK(b[7] != NULL);
	CHECK(b[8] == NULL);
	CHECK_EQ(ib_post_send(qp, &av, b[0], 4096, NULL), -EINVAL);   /* larger than the buffer */
	CHECK_EQ(qp->send_free_mask, 1u);
out:
	fx_teardown(f);
}

/* A QP the driver could not move to RESET: its buffers stay allocated (the HCA may still write
 * them) until the driver reports a reset; then they go back to the allocator. */
TEST(ib_destroy_qp_failure_quarantines_buffers_until_reset)
{
	struct fake_ibdev *f = fx_setup(NULL);
	struct send_log log = { 0, 0 };
	uint64_t before;
	struct ib_qp *qp;

	if (!f)
		return;
	qp = make_ud_qp(&f->dev.port[0], &log);
	CHECK(qp != NULL);
	if (!qp)
		goto out;
	before = test_dma_live_bytes();
	f->destroy_qp_error = -EIO;
	ib_destroy_qp(qp);
	f->destroy_qp_error = 0;
	CHECK_EQ(test_dma_live_bytes(), before);           /* nothing went back */
	CHECK(ib_device_quarantined_bytes(&f->dev) >= 16u * 2048);
	CHECK(test_console_has("did not stop; ") && test_console_has(" bytes held until reset"));
	CHECK(f->dev.qps == NULL || f->dev.qps != qp);     /* no longer the core's to poll */
	ib_device_reset_done(&f->dev);
	CHECK_EQ(ib_device_quarantined_bytes(&f->dev), 0);
	CHECK(test_dma_live_bytes() + 16u * 2048 <= before);
out:
	fx_teardown(f);
}

/* ---- SA: multicast join ---- */

TEST(ib_sa_join_takes_qkey_mlid_mtu_from_the_reply)
{
	struct fake_ibdev *f = fx_setup(NULL);
	struct join_log log = { 0 };
	struct send_log slog = { 0 };
	struct ib_mcast_group *g;
	struct iblib_mcmember_record req;
	union ib_gid mgid;
	struct ib_qp *qp;

	if (!f)
		return;
	f->group_qkey = 0x12345678;   /* not OpenSM's 0x0B1B: proves it is read, not assumed */
	f->group_mtu = IB_MTU_4096;
	f->group_sl = 3;
	qp = make_ud_qp(&f->dev.port[0], &slog);
	ib_ipv4_broadcast_mgid(&mgid, f->dev.port[0].attr.pkey);
	g = ib_sa_join(&f->dev.port[0], &mgid, qp, join_cb, &log);
	CHECK(g != NULL);
	CHECK_EQ(g->state, IB_GROUP_JOINING);
	ib_poll();
	CHECK_EQ(log.calls, 1);
	CHECK_EQ(log.last_status, 0);
	CHECK_EQ(g->state, IB_GROUP_JOINED);
	CHECK_EQ(log.info.qkey, 0x12345678);
	CHECK_EQ(log.info.mlid, 0xc000);
	CHECK_EQ(log.info.mtu, IB_MTU_4096);
	CHECK_EQ(log.info.sl, 3);
	CHECK(g->attached);
	CHECK(((struct fake_qp *)qp->drv_priv)->mgid_used[0]);
	/* What went to the SA: Set(MCMemberRecord), mask MGID|PortGID|P_Key|JoinState, full member. */
	CHECK_EQ(f->last_sa_request[3], IBLIB_METHOD_SET);
	CHECK_EQ(iblib_mad_attr_id(f->last_sa_request), IBLIB_SA_ATTR_MCMEMBER_RECORD);
	CHECK_EQ(get_be64(f->last_sa_request + IBLIB_SA_COMP_MASK_OFF), 0x10083);
	iblib_mcmember_record_get(f->last_sa_request + IBLIB_SA_DATA_OFF, &req);
	CHECK_MEM(req.mgid.raw, mgid.raw, 16);
	CHECK_MEM(req.port_gid.raw, f->dev.port[0].gid.raw, 16);
	CHECK_EQ(req.pkey, 0xffff);
	CHECK_EQ(req.join_state, IBLIB_MCR_JOIN_FULL);
	CHECK_EQ(f->n_mc_joins, 1);
	ib_sa_leave(g);
	CHECK_EQ(f->last_sa_request[3], IBLIB_METHOD_DELETE);
	CHECK_EQ(f->n_mc_leaves, 1);
	CHECK(!((struct fake_qp *)qp->drv_priv)->mgid_used[0]);
	fx_teardown(f);
}

TEST(ib_sa_join_denied_is_reported_and_retried)
{
	struct fake_ibdev *f = fx_setup(NULL);
	struct join_log log = { 0 };
	union ib_gid mgid;

	if (!f)
		return;
	f->sa_status_override = IBLIB_SA_STATUS_REQ_DENIED;
	ib_ipv4_broadcast_mgid(&mgid, 0xffff);
	(void)ib_sa_join(&f->dev.port[0], &mgid, NULL, join_cb, &log);
	ib_poll();
	CHECK_EQ(log.calls, 1);
	CHECK(log.last_status < 0);
	CHECK(test_console_has("joining group ff12:401b:ffff:0000:0000:0000:ffff:ffff "
			       "failed: request denied; retry in 5 s"));
	f->sa_status_override = 0;
	fx_run(4800, 100);
	CHECK_EQ(log.calls, 1);
	fx_run(400, 100);
	CHECK_EQ(log.calls, 2);
	CHECK_EQ(log.last_status, 0);
	fx_teardown(f);
}

TEST(ib_mad_retries_then_succeeds)
{
	struct fake_ibdev *f = fx_setup(NULL);
	struct join_log log = { 0 };
	union ib_gid mgid;

	if (!f)
		return;
	f->sa_drop_next = 2;
	ib_ipv4_broadcast_mgid(&mgid, 0xffff);
	(void)ib_sa_join(&f->dev.port[0], &mgid, NULL, join_cb, &log);
	fx_run(400, 100);
	CHECK_EQ(f->n_sa_requests, 1);
	fx_run(200, 100);                          /* 500 ms: first retry */
	CHECK_EQ(f->n_sa_requests, 2);
	CHECK_EQ(log.calls, 0);
	fx_run(1000, 100);                         /* +1 s: second retry, answered */
	CHECK_EQ(f->n_sa_requests, 3);
	CHECK_EQ(log.calls, 1);
	CHECK_EQ(log.last_status, 0);
	CHECK_EQ(f->dev.port[0].mad->stats.retries, 2);
	/* All three sends carried the same TID. */
	fx_teardown(f);
}

TEST(ib_mad_times_out_after_bounded_retries)
{
	struct fake_ibdev *f = fx_setup(NULL);
	struct path_log log = { 0 };
	union ib_gid dgid = { .raw = { 0xfe, 0x80, [15] = 0x42 } };
	struct ib_address_vector av;

	if (!f)
		return;
	f->sa_enabled = false;
	CHECK_EQ(ib_sa_path_lookup(&f->dev.port[0], &dgid, &av, path_cb, &log), IB_SA_PENDING);
	fx_run(15000, 100);
	CHECK_EQ(log.calls, 0);                    /* 0.5+1+2+4+8 = 15.5 s */
	fx_run(1000, 100);
	CHECK_EQ(log.calls, 1);
	CHECK_EQ(log.last_status, -ETIMEDOUT);
	CHECK_EQ(f->dev.port[0].mad->stats.sends, IB_MAD_MAX_SENDS);
	CHECK_EQ(f->dev.port[0].mad->stats.timeouts, 1);
	CHECK(test_console_has("no path to fe80:0000:0000:0000:0000:0000:0000:0042: the SA did "
			       "not answer"));
	fx_teardown(f);
}

TEST(ib_mad_unmatched_tid_is_dropped)
{
	struct fake_ibdev *f = fx_setup(NULL);
	uint8_t mad[256] = { 1, IBLIB_MCLASS_SUBN_ADM, 2, IBLIB_METHOD_GET_RESP };
	struct ib_address_vector to = { .qpn = 1, .qkey = IB_GSI_QKEY, .lid = 0x11 };

	if (!f)
		return;
	put_be64(mad + 8, 0xdeadbeef);
	CHECK_EQ(fake_ibdev_inject(f, &to, 1, 1, NULL, mad, sizeof(mad)), 0);
	mad[0] = 7;   /* bad base version */
	CHECK_EQ(fake_ibdev_inject(f, &to, 1, 1, NULL, mad, sizeof(mad)), 0);
	CHECK_EQ(fake_ibdev_inject(f, &to, 1, 1, NULL, mad, 100), 0);   /* short */
	ib_poll();
	CHECK_EQ(f->dev.port[0].mad->stats.unmatched, 1);
	CHECK_EQ(f->dev.port[0].mad->stats.malformed, 2);
	fx_teardown(f);
}

/* ---- SA: paths ---- */

TEST(ib_path_record_cached_after_first_query)
{
	struct fake_ibdev *f = fx_setup(port2_active);
	struct path_log log = { 0 };
	struct ib_address_vector av;
	union ib_gid dgid;
	struct iblib_path_record req;

	if (!f)
		return;
	fake_port_gid(f, 2, &dgid);
	CHECK_EQ(ib_sa_path_lookup(&f->dev.port[0], &dgid, &av, path_cb, &log), IB_SA_PENDING);
	/* a second caller while resolving waits on the same query */
	CHECK_EQ(ib_sa_path_lookup(&f->dev.port[0], &dgid, &av, path_cb, &log), IB_SA_PENDING);
	CHECK_EQ(f->n_path_queries, 1);
	iblib_path_record_get(f->last_sa_request + IBLIB_SA_DATA_OFF, &req);
	CHECK_MEM(req.dgid.raw, dgid.raw, 16);
	CHECK_MEM(req.sgid.raw, f->dev.port[0].gid.raw, 16);
	ib_poll();
	CHECK_EQ(log.calls, 1);
	CHECK_EQ(log.last_status, 0);
	memset(&av, 0, sizeof(av));
	CHECK_EQ(ib_sa_path_lookup(&f->dev.port[0], &dgid, &av, path_cb, &log), 0);
	CHECK_EQ(av.lid, 0x12);
	CHECK_EQ(av.rate, 3);
	CHECK(!av.gid_present);                  /* same subnet prefix: no GRH */
	CHECK_EQ(ib_sa_path_lookup(&f->dev.port[0], &dgid, &av, path_cb, &log), 0);
	CHECK_EQ(f->n_path_queries, 1);          /* the cache answered */
	CHECK_EQ(f->dev.port[0].sa->stats.path_hits, 2);
	fx_teardown(f);
}

TEST(ib_path_unknown_gid_fails_with_message)
{
	struct fake_ibdev *f = fx_setup(NULL);
	struct path_log log = { 0 };
	struct ib_address_vector av;
	union ib_gid dgid = { .raw = { 0xfe, 0x80, [15] = 0x77 } };

	if (!f)
		return;
	CHECK_EQ(ib_sa_path_lookup(&f->dev.port[0], &dgid, &av, path_cb, &log), IB_SA_PENDING);
	ib_poll();
	CHECK_EQ(log.calls, 1);
	CHECK_EQ(log.last_status, -ENOENT);
	CHECK(test_console_has("no path to fe80:0000:0000:0000:0000:0000:0000:0077: no records"));
	/* not cached as valid: the next lookup asks again */
	CHECK_EQ(ib_sa_path_lookup(&f->dev.port[0], &dgid, &av, path_cb, &log), IB_SA_PENDING);
	CHECK_EQ(f->n_path_queries, 2);
	fx_teardown(f);
}

TEST(ib_path_lookup_needs_an_active_port)
{
	struct fake_ibdev *f = fx_setup(NULL);
	struct ib_address_vector av;
	union ib_gid dgid = { .raw = { 0xfe, 0x80 } };

	if (!f)
		return;
	CHECK_EQ(ib_sa_path_lookup(&f->dev.port[1], &dgid, &av, path_cb, NULL), -ENODEV);
	fx_teardown(f);
}

/* ---- re-registration ---- */

TEST(ib_client_reregister_rejoins_and_flushes_paths)
{
	struct fake_ibdev *f = fx_setup(port2_active);
	struct join_log log = { 0 };
	struct path_log plog = { 0 };
	struct ib_address_vector av;
	union ib_gid mgid, dgid;

	if (!f)
		return;
	memset(&ulog, 0, sizeof(ulog));
	ib_ulp_register(&test_ulp);
	ib_ipv4_broadcast_mgid(&mgid, 0xffff);
	(void)ib_sa_join(&f->dev.port[0], &mgid, NULL, join_cb, &log);
	fake_port_gid(f, 2, &dgid);
	(void)ib_sa_path_lookup(&f->dev.port[0], &dgid, &av, path_cb, &plog);
	ib_poll();
	CHECK_EQ(log.calls, 1);
	CHECK_EQ(f->n_path_queries, 1);
	/* The SM restarts and sets ClientReregister; this SM hands out a different Q_Key. */
	f->group_qkey = 0x0b1c;
	memset(f->groups, 0, sizeof(f->groups));
	fake_ibdev_port_event(f, 1, IB_EVENT_PORT_MGMT, IB_MGMT_CLIENT_REREG);
	ib_poll();
	ib_poll();
	CHECK(test_console_has("SM asked to re-register"));
	CHECK_EQ(f->n_mc_joins, 2);
	CHECK_EQ(log.calls, 2);
	CHECK_EQ(log.info.qkey, 0x0b1c);
	CHECK_EQ(ulog.rereg, 1);
	CHECK_EQ(f->dev.port[0].sa->stats.rejoins, 1);
	CHECK_EQ(ib_sa_path_lookup(&f->dev.port[0], &dgid, &av, path_cb, &plog), IB_SA_PENDING);
	CHECK_EQ(f->n_path_queries, 2);
	ib_ulp_unregister(&test_ulp);
	fx_teardown(f);
}

TEST(ib_port_bounce_rejoins_on_return)
{
	struct fake_ibdev *f = fx_setup(NULL);
	struct join_log log = { 0 };
	union ib_gid mgid;

	if (!f)
		return;
	ib_ipv4_broadcast_mgid(&mgid, 0xffff);
	(void)ib_sa_join(&f->dev.port[0], &mgid, NULL, join_cb, &log);
	ib_poll();
	CHECK_EQ(log.calls, 1);
	f->port[0].state = IB_PORT_DOWN;
	fake_ibdev_port_event(f, 1, IB_EVENT_PORT_CHANGE, 0);
	ib_poll();
	CHECK_EQ(log.calls, 2);
	CHECK_EQ(log.last_status, -ENODEV);        /* membership lost is reported */
	f->port[0].state = IB_PORT_ACTIVE;
	fake_ibdev_port_event(f, 1, IB_EVENT_PORT_CHANGE, 0);
	ib_poll();
	ib_poll();
	CHECK_EQ(log.calls, 3);
	CHECK_EQ(log.last_status, 0);
	CHECK_EQ(f->n_mc_joins, 2);
	fx_teardown(f);
}

TEST(ib_sm_lid_change_rejoins)
{
	struct fake_ibdev *f = fx_setup(NULL);
	struct join_log log = { 0 };
	union ib_gid mgid;

	if (!f)
		return;
	ib_ipv4_broadcast_mgid(&mgid, 0xffff);
	(void)ib_sa_join(&f->dev.port[0], &mgid, NULL, join_cb, &log);
	ib_poll();
	f->port[0].sm_lid = 5;                     /* a standby SM took over */
	fx_run(IB_QUERY_ACTIVE_MS + 100, 100);     /* found by the periodic PortInfo read */
	fx_run(100, 100);
	CHECK(test_console_has("SM changed - joining groups again"));
	CHECK_EQ(f->n_mc_joins, 2);
	CHECK_EQ(log.calls, 2);
	fx_teardown(f);
}

/* A waiter that looks the GID up again from its callback reuses the cache entry; the other
 * waiters of the failed query must still be told. */
static struct ib_port *relookup_port;
static struct path_log relookup_a, relookup_b, relookup_c;

static void relookup_cb_a(void *ctx, const union ib_gid *dgid, int status)
{
	struct ib_address_vector av;

	path_cb(ctx, dgid, status);
	if (status < 0)
		(void)ib_sa_path_lookup(relookup_port, dgid, &av, path_cb, &relookup_c);
}

TEST(ib_path_failure_notifies_every_waiter_even_when_one_retries)
{
	struct fake_ibdev *f = fx_setup(NULL);
	struct ib_address_vector av;
	union ib_gid dgid = { .raw = { 0xfe, 0x80, [15] = 0x99 } };

	if (!f)
		return;
	memset(&relookup_a, 0, sizeof(relookup_a));
	memset(&relookup_b, 0, sizeof(relookup_b));
	memset(&relookup_c, 0, sizeof(relookup_c));
	relookup_port = &f->dev.port[0];
	CHECK_EQ(ib_sa_path_lookup(relookup_port, &dgid, &av, relookup_cb_a, &relookup_a),
		 IB_SA_PENDING);
	CHECK_EQ(ib_sa_path_lookup(relookup_port, &dgid, &av, path_cb, &relookup_b), IB_SA_PENDING);
	ib_poll();                               /* NO_RECORDS for this GID */
	CHECK_EQ(relookup_a.calls, 1);
	CHECK_EQ(relookup_b.calls, 1);
	CHECK_EQ(relookup_b.last_status, -ENOENT);
	CHECK_EQ(relookup_c.calls, 0);           /* its own query is under way */
	CHECK_EQ(f->n_path_queries, 2);
	ib_poll();
	CHECK_EQ(relookup_c.calls, 1);
	fx_teardown(f);
}

static void no_cables(struct fake_ibdev *f)
{
	f->port[0].state = IB_PORT_DOWN;
	f->port[0].phys_state = 2;
}

TEST(ib_no_link_anywhere_is_reported_once)
{
	struct fake_ibdev *f = fx_setup(no_cables);

	if (!f)
		return;
	fx_run(29000, 100);
	CHECK(!test_console_has("no link"));
	fx_run(2000, 100);
	CHECK(test_console_has("fake0 port 1: no link after 30 s (physical state Polling): "
			       "cabled to a switch?"));
	CHECK(test_console_has("fake0 port 2: no link after 30 s"));
	test_console_clear();
	fx_run(60000, 1000);
	CHECK(!test_console_has("no link"));
	fx_teardown(f);
}

TEST(ib_no_link_warning_not_printed_for_a_spare_port)
{
	struct fake_ibdev *f = fx_setup(NULL);   /* port 1 ACTIVE, port 2 empty */

	if (!f)
		return;
	fx_run(40000, 1000);
	CHECK(!test_console_has("no link"));
	fx_teardown(f);
}

static void port2_open_fails(struct fake_ibdev *f)
{
	f->open_error[1] = -EIO;
}

static void both_open_fail(struct fake_ibdev *f)
{
	f->open_error[0] = f->open_error[1] = -EIO;
}

TEST(ib_register_with_a_port_that_cannot_open)
{
	struct fake_ibdev *f = fx_setup(port2_open_fails);

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(test_console_has("fake0 port 2: cannot open: I/O error"));
	CHECK(f->dev.port[0].open);
	CHECK(!f->dev.port[1].open);
	CHECK(f->dev.port[1].mad == NULL);
	CHECK(ib_active_port() == &f->dev.port[0]);
	fx_teardown(f);
	/* no port at all: registration fails cleanly and leaves nothing registered */
	f = fx_setup(both_open_fail);
	CHECK(f == NULL);
	CHECK(test_console_has("fake0: no usable port"));
	CHECK(ib_devices() == NULL);
}

TEST(ib_first_active_port_of_any_adapter_is_chosen)
{
	struct fake_ibdev *a = fx_setup(no_cables);   /* adapter A: no link anywhere */
	struct fake_ibdev *b;

	if (!a)
		return;
	b = calloc(1, sizeof(*b));
	if (!b) {
		fx_teardown(a);
		return;
	}
	fake_ibdev_init(b);
	b->dev.name = "fake1";
	b->port[0].state = IB_PORT_DOWN;
	b->port[1].state = IB_PORT_ACTIVE;            /* adapter B: only port 2 cabled */
	b->port[1].phys_state = 5;
	CHECK_EQ(ib_device_register(&b->dev), 0);
	fx_run(100, 10);
	CHECK(ib_active_port() == &b->dev.port[1]);
	CHECK(test_console_has("fake1 port 2: using this port"));
	/* B goes away: nothing is chosen, A still has no link */
	ib_device_unregister(&b->dev);
	CHECK(ib_active_port() == NULL);
	free(b);
	fx_teardown(a);
}

/* ---- the SMA on QP0: the SM's SMPs answered through the mad op ---- */

static struct {
	unsigned n;
	struct ib_address_vector av;
	uint8_t mad[IB_MAD_SIZE];
} smacap;

static void sma_capture(struct fake_ibdev *f, unsigned port, const struct ib_address_vector *av,
			uint32_t src_qpn, const uint8_t *data, size_t len)
{
	(void)f;
	(void)port;
	if (src_qpn != 0 || len != IB_MAD_SIZE)
		return;
	smacap.n++;
	smacap.av = *av;
	memcpy(smacap.mad, data, IB_MAD_SIZE);
}

static void smp_init(uint8_t *mad, uint8_t mclass, uint8_t method, uint16_t attr, uint32_t mod)
{
	struct iblib_mad_hdr hd = { .base_version = 1, .mgmt_class = mclass, .class_version = 1,
				    .method = method, .tid = 0x5a5a, .attr_id = attr,
				    .attr_mod = mod };

	memset(mad, 0, IB_MAD_SIZE);
	iblib_mad_hdr_put(mad, &hd);
}

/* An SMP from the SM (at slid) arriving on port 1's QP0, then one poll. */
static int smp_inject(struct fake_ibdev *f, const uint8_t *mad, uint16_t slid)
{
	struct ib_address_vector to = { .qpn = 0, .qkey = 0, .lid = f->port[0].lid };
	int rc = fake_ibdev_inject(f, &to, slid, 0, NULL, mad, IB_MAD_SIZE);

	ib_poll();
	return rc;
}

TEST(ib_sma_answers_the_sm_through_the_mad_op)
{
	struct fake_ibdev *f = fx_setup(NULL);
	const struct ib_sma_stats *st;
	uint8_t mad[IB_MAD_SIZE];
	unsigned mad_ifc;

	if (!f)
		return;
	memset(&smacap, 0, sizeof(smacap));
	f->capture = sma_capture;
	st = ib_sma_stats(&f->dev.port[0]);
	CHECK(st != NULL);
	CHECK(ib_sma_stats(&f->dev.port[1]) != NULL);   /* every open port has its QP0 */
	/* LID-routed Get(PortInfo): the firmware (mad op) answers, back to the SM on QP0 */
	mad_ifc = f->n_mad_ifc;
	smp_init(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_PORT_INFO, 1);
	CHECK_EQ(smp_inject(f, mad, 1), 0);
	CHECK_EQ(f->n_mad_ifc, mad_ifc + 1);
	CHECK_EQ(smacap.n, 1);
	CHECK_EQ(smacap.av.lid, 1);
	CHECK_EQ(smacap.av.qpn, 0);
	CHECK_EQ(smacap.mad[3], IBLIB_METHOD_GET_RESP);
	CHECK_EQ(get_be64(smacap.mad + 8), 0x5a5a);
	CHECK_EQ(iblib_portinfo_lid(iblib_smp_data(smacap.mad)), 0x11);
	CHECK_EQ(st->answered, 1);
	/* SMInfo: a CA runs no SM - answered "unsupported" by the agent, the firmware not asked */
	smp_init(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_SM_INFO, 0);
	CHECK_EQ(smp_inject(f, mad, 1), 0);
	CHECK_EQ(f->n_mad_ifc, mad_ifc + 1);
	CHECK_EQ(smacap.n, 2);
	CHECK_EQ(iblib_smp_status(smacap.mad), IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR);
	CHECK_EQ(st->own_answers, 1);
	/* responses and traps are not for an SMA: dropped, unanswered */
	smp_init(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET_RESP, IBLIB_SM_ATTR_PORT_INFO, 1);
	CHECK_EQ(smp_inject(f, mad, 1), 0);
	smp_init(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_TRAP, 2, 0);
	CHECK_EQ(smp_inject(f, mad, 1), 0);
	CHECK_EQ(smacap.n, 2);
	CHECK_EQ(st->dropped, 2);
	/* a failed MAD_IFC (e.g. the firmware refused the M_Key): no answer, the SM times out */
	f->mad_ifc_error = -EIO;
	smp_init(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_INFO, 0);
	CHECK_EQ(smp_inject(f, mad, 1), 0);
	f->mad_ifc_error = 0;
	CHECK_EQ(smacap.n, 2);
	CHECK_EQ(st->mad_ifc_failed, 1);
	CHECK_EQ(st->received, 5);
	fx_teardown(f);
}

TEST(ib_sma_directed_route_sets_d_and_steps_the_hop_pointer_back)
{
	struct fake_ibdev *f = fx_setup(NULL);
	uint8_t mad[IB_MAD_SIZE];

	if (!f)
		return;
	memset(&smacap, 0, sizeof(smacap));
	f->capture = sma_capture;
	/* OpenSM two hops away: hop count 2, the last switch advanced the pointer to 2 (C14-9) */
	smp_init(mad, IBLIB_MCLASS_SUBN_DR, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_INFO, 0);
	mad[6] = 2;
	mad[7] = 2;
	put_be16(mad + IBLIB_SMP_DR_SLID_OFF, IB_LID_PERMISSIVE);
	put_be16(mad + IBLIB_SMP_DR_DLID_OFF, IB_LID_PERMISSIVE);
	mad[IBLIB_SMP_INITIAL_PATH_OFF + 1] = 3;
	mad[IBLIB_SMP_INITIAL_PATH_OFF + 2] = 7;
	CHECK_EQ(smp_inject(f, mad, IB_LID_PERMISSIVE), 0);
	CHECK_EQ(smacap.n, 1);
	CHECK_EQ(smacap.av.lid, IB_LID_PERMISSIVE);
	CHECK_EQ(smacap.mad[1], IBLIB_MCLASS_SUBN_DR);
	CHECK_EQ(smacap.mad[3], IBLIB_METHOD_GET_RESP);
	CHECK(iblib_smp_dr_d(smacap.mad));                     /* D: returning */
	CHECK_EQ(iblib_smp_status(smacap.mad), 0);
	CHECK_EQ(iblib_smp_dr_hop_ptr(smacap.mad), 2);         /* C14-13:1: back to hop count */
	CHECK_EQ(smacap.mad[IBLIB_SMP_RETURN_PATH_OFF + 2], 1); /* we received it on port 1 */
	CHECK_EQ(get_be64(iblib_smp_data(smacap.mad) + 12), 0x0002c90300001000ull);
	/* a hop pointer that does not end here (C14-9:5), or a returning SMP: dropped */
	mad[6] = 1;
	CHECK_EQ(smp_inject(f, mad, IB_LID_PERMISSIVE), 0);
	mad[6] = 2;
	mad[4] = 0x80;
	CHECK_EQ(smp_inject(f, mad, IB_LID_PERMISSIVE), 0);
	CHECK_EQ(smacap.n, 1);
	CHECK_EQ(ib_sma_stats(&f->dev.port[0])->dropped, 2);
	fx_teardown(f);
}

static void set_portinfo(uint8_t *mad, const struct fake_ibdev *f, bool rereg)
{
	uint8_t *pi = iblib_smp_data(mad);

	smp_init(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_SET, IBLIB_SM_ATTR_PORT_INFO, 1);
	iblib_portinfo_set_lid(pi, f->port[0].lid);
	iblib_portinfo_set_master_sm_lid(pi, f->port[0].sm_lid);
	iblib_portinfo_set_client_reregister(pi, rereg);
}

/* ClientReregister changes nothing one can read back: the Set itself is the only news, unless
 * the device reports the Sets as events itself (then the event does, and the Set must not). */
TEST(ib_sma_set_client_reregister_rejoins_once)
{
	struct fake_ibdev *f = fx_setup(NULL);
	struct join_log log = { 0 };
	uint8_t mad[IB_MAD_SIZE];
	union ib_gid mgid;

	if (!f)
		return;
	ib_ipv4_broadcast_mgid(&mgid, 0xffff);
	(void)ib_sa_join(&f->dev.port[0], &mgid, NULL, join_cb, &log);
	ib_poll();
	CHECK_EQ(f->n_mc_joins, 1);
	/* a Set without ClientReregister and nothing changed: no rejoin */
	set_portinfo(mad, f, false);
	CHECK_EQ(smp_inject(f, mad, 1), 0);
	ib_poll();
	CHECK_EQ(f->n_mc_joins, 1);
	CHECK_EQ(ib_sma_stats(&f->dev.port[0])->sets, 1);
	/* ClientReregister: the groups are joined again, once */
	set_portinfo(mad, f, true);
	CHECK_EQ(smp_inject(f, mad, 1), 0);
	ib_poll();
	ib_poll();
	CHECK(test_console_has("SM asked to re-register"));
	CHECK_EQ(f->n_mc_joins, 2);
	/* a device that raises PORT_MGMT for Sets: the event rejoins, the Set adds nothing */
	f->dev.port_mgmt_events = true;
	CHECK_EQ(smp_inject(f, mad, 1), 0);
	ib_poll();
	ib_poll();
	CHECK_EQ(f->n_mc_joins, 2);
	fake_ibdev_port_event(f, 1, IB_EVENT_PORT_MGMT, IB_MGMT_CLIENT_REREG);
	ib_poll();
	ib_poll();
	CHECK_EQ(f->n_mc_joins, 3);
	CHECK_EQ(ib_sma_stats(&f->dev.port[0])->sets, 3);
	fx_teardown(f);
}

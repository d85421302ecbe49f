/* SPDX-License-Identifier: MIT */
/*
 * The driver as the PCI probe and the IB core see it: hermon_ib_probe registers the HCA, the core
 * reads both ports by local MAD (PortInfo decoded once, in the core), port events from the EQ make
 * the core read them again (a LID change, a ClientReregister nothing else shows), core-level UD
 * QPs carry datagrams from port 1 to port 2, `fwdump` shows the queues, and removal quiesces.
 */
#include <stdio.h>
#include "test.h"
#include <ibboot/errno.h>
#include <ibboot/ib.h>
#include <ibboot/timer.h>
#include "hermon_rig.h"
#include "hermon_ib.h"

static bool log_has(const char *s) { return strstr(rig_log(), s) != NULL; }

struct got {
	unsigned recvs, sends, send_errors;
	uint32_t src_qpn;
	uint16_t slid;
	size_t len;
	uint8_t data[512];
};

static void on_recv(struct ib_qp *qp, const struct ib_wc *wc, const uint8_t *grh, uint8_t *data,
		    size_t len)
{
	struct got *g = qp->owner_priv;

	(void)grh;
	g->recvs++;
	g->src_qpn = wc->src_qpn;
	g->slid = wc->slid;
	g->len = len;
	memcpy(g->data, data, len < sizeof(g->data) ? len : sizeof(g->data));
}

static void on_sent(struct ib_qp *qp, void *cookie, int status)
{
	struct got *g = qp->owner_priv;

	(void)cookie;
	g->sends++;
	if (status)
		g->send_errors++;
}

static const struct ib_qp_owner_ops owner = { .recv = on_recv, .sent = on_sent };

TEST(hermon_ibcore_ports_read_by_local_mad_and_port_events)
{
	static const uint8_t zero[8];
	struct rig r;
	struct ib_device *dev = &r.h.ib;

	CHECK_EQ(rig_up(&r), 0);
	rig_poll(&r, 3);
	/* Link up, no SM yet. */
	CHECK_EQ(dev->port[0].attr.state, IB_PORT_INIT);
	CHECK_EQ(dev->port[1].attr.state, IB_PORT_INIT);
	CHECK(memcmp(dev->node_guid, zero, 8) != 0);
	CHECK(log_has("port 1: link up"));

	CHECK_EQ(rig_sm_set_port(&r, 1, 0x11, false), 0);
	CHECK_EQ(rig_sm_set_port(&r, 2, 0x22, false), 0);
	rig_poll(&r, 3);
	CHECK_EQ(dev->port[0].attr.state, IB_PORT_ACTIVE);
	CHECK_EQ(dev->port[0].attr.lid, 0x11);
	CHECK_EQ(dev->port[1].attr.lid, 0x22);
	CHECK_EQ(dev->port[1].attr.sm_lid, 1);
	CHECK(dev->port[1].attr.mtu_cap >= IB_MTU_2048);
	CHECK_EQ(dev->port[0].gid.raw[0], 0xfe);
	CHECK_EQ(dev->port[0].gid.raw[1], 0x80);
	CHECK(log_has("port 1: ACTIVE, LID 0x0011"));

	/* The SM gives port 1 a new LID: the EQ's management event makes the core read it. */
	unsigned mgmt = r.h.port[0].mgmt_events;

	rig_log_clear();
	CHECK_EQ(rig_sm_set_port(&r, 1, 0x33, false), 0);
	rig_poll(&r, 2);
	CHECK(r.h.port[0].mgmt_events > mgmt);
	CHECK_EQ(dev->port[0].attr.lid, 0x33);
	CHECK(log_has("port 1: the port's address changed - joining groups again"));
	CHECK(!log_has("re-registration"));

	/* ClientReregister: an event, and nothing one can read changed - the core rejoins. */
	rig_log_clear();
	CHECK_EQ(rig_sm_set_port(&r, 1, 0x33, true), 0);
	rig_poll(&r, 2);
	CHECK(log_has("port 1: the subnet manager asked for re-registration - joining groups again"));
	CHECK(!log_has("address changed"));
	CHECK(!log_has("port 2:"));
	rig_destroy(&r);
}

TEST(hermon_ibcore_probe_send_receive_fwdump_remove)
{
	struct rig r;
	struct ib_device *dev = NULL;
	struct got ga = { 0 }, gb = { 0 };
	struct ib_cq *cqa, *cqb;
	struct ib_qp *qa, *qb;

	rig_set_quiet(true);
	rig_log_clear();
	CHECK_EQ(rig_create(&r, 0, true), 0);
	/* The PCI driver's probe: bring-up and registration in one. */
	CHECK_EQ(hermon_ib_probe(&r.pdev, &dev), 0);
	if (!dev) {
		rig_destroy(&r);
		return;
	}
	hcasim_port_set_link(r.sim, 1, true);
	hcasim_port_set_link(r.sim, 2, true);
	rig_step(&r);
	CHECK(dev->registered);
	CHECK(dev->port[0].open);
	CHECK(dev->port[1].open);

	for (unsigned p = 1; p <= 2; p++) {
		uint8_t mad[256] = { 1, 0x01, 1, 0x01 }, reply[256];

		/* SubnSet(PortInfo) by the local MAD op: LID, then ACTIVE (the SM's job). */
		mad[17] = 0x15;
		mad[23] = (uint8_t)p;
		for (unsigned step = 0; step < 2; step++) {
			mad[3] = 0x01;
			CHECK_EQ(dev->ops->mad(dev, p, mad, reply), 0);
			memcpy(mad + 64, reply + 64, 64);
			mad[3] = 0x02;
			mad[64 + 17] = (uint8_t)(0x11 * p);
			mad[64 + 19] = 1;
			mad[64 + 32] = (uint8_t)((mad[64 + 32] & 0xf0) | (step == 0 ? 3 : 4));
			mad[64 + 33] &= 0x0f;
			CHECK_EQ(dev->ops->mad(dev, p, mad, reply), 0);
		}
	}
	for (unsigned i = 0; i < 20; i++) {
		ib_poll();
		udelay(100);
	}
	CHECK_EQ(dev->port[0].attr.state, IB_PORT_ACTIVE);
	CHECK_EQ(dev->port[1].attr.lid, 0x22);

	cqa = ib_create_cq(dev, 16);
	cqb = ib_create_cq(dev, 16);
	CHECK(cqa && cqb);
	struct ib_qp_config cfg = { .type = IB_QPT_UD, .qkey = 0x4321, .send_wqes = 4,
				    .recv_wqes = 8, .recv_payload = 512, .send_bufs = 4,
				    .send_buf_size = 512, .owner = &owner };

	cfg.send_cq = cfg.recv_cq = cqa;
	cfg.owner_priv = &ga;
	qa = ib_create_qp(&dev->port[0], &cfg);
	cfg.send_cq = cfg.recv_cq = cqb;
	cfg.owner_priv = &gb;
	qb = ib_create_qp(&dev->port[1], &cfg);
	CHECK(qa && qb);
	if (!qa || !qb)
		goto out;
	CHECK_EQ(qa->state, IB_QPS_RTS);

	for (unsigned n = 0; n < 20; n++) {   /* more than either ring: wraps and refills */
		struct ib_address_vector av = { .qpn = qb->qpn, .qkey = 0x4321, .lid = 0x22 };
		struct ib_buf *b = ib_send_buf_get(qa);

		CHECK(b != NULL);
		if (!b)
			break;
		snprintf(b->va, b->len, "datagram %u through the hermon fastpath", n);
		CHECK_EQ(ib_post_send(qa, &av, b, 300, NULL), 0);
		for (unsigned i = 0; i < 10; i++)
			ib_poll();
		if (gb.recvs != n + 1) {
			test_fail(__FILE__, __LINE__, "datagram %u: %u received", n, gb.recvs);
			break;
		}
		char want[64];

		snprintf(want, sizeof(want), "datagram %u through the hermon fastpath", n);
		CHECK_EQ(gb.len, 300);
		CHECK(strcmp((char *)gb.data, want) == 0);
		CHECK_EQ(gb.src_qpn, qa->qpn);
		CHECK_EQ(gb.slid, 0x11);
	}
	CHECK_EQ(ga.sends, 20);
	CHECK_EQ(ga.send_errors, 0);

	/* Multicast through the core: attach, then detach. */
	union ib_gid mgid = { .raw = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0,
				       0xff, 0xff, 0xff, 0xff } };

	CHECK_EQ(ib_mcast_attach(qb, &mgid), 0);
	ib_mcast_detach(qb, &mgid);

	rig_log_clear();
	CHECK_EQ(hermon_fwdump_all(), 0);
	CHECK(log_has("fwdump: firmware"));
	CHECK(log_has("catastrophic error buffer"));
	char qline[48];

	snprintf(qline, sizeof(qline), "QP 0x%x (UD, port 1)", ((struct hermon_qp *)qa->drv_priv)->qpn);
	CHECK(log_has(qline));
	CHECK(log_has("port 2: open, state 4, LID 0x22"));
out:
	hermon_ib_remove(&r.pdev);
	CHECK(hcasim_quiesced(r.sim));
	CHECK_EQ(hermon_fwdump_all(), -ENODEV);   /* nothing registered any more */
	CHECK_EQ(hcasim_dma_after_close(r.sim), 0);
	rig_destroy(&r);
}

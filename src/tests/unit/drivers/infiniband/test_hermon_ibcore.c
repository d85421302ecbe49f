/* SPDX-License-Identifier: MIT */
/*
 * The driver under the real IB core (src/net/infiniband) on the model: registration opens both
 * ports, the core reads them by local MAD, core-level UD QPs carry a datagram from port 1 to
 * port 2 through the driver's fastpath, and unregistering quiesces the HCA.
 */
#include <stdio.h>
#include "test.h"
#include <ibboot/errno.h>
#include <ibboot/ib.h>
#include <ibboot/timer.h>
#include "hermon_rig.h"
#include "hermon_ib.h"

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

/* SubnSet(PortInfo) through the local MAD path: LID, then ARMED, then ACTIVE (the SM's job). */
static int sm_activate(struct hermon *h, unsigned port, uint16_t lid)
{
	uint8_t mad[256], reply[256];
	int rc;

	for (unsigned step = 0; step < 2; step++) {
		memset(mad, 0, sizeof(mad));
		mad[0] = 1; mad[1] = 0x01; mad[2] = 1; mad[3] = 0x01;
		mad[17] = 0x15;
		mad[23] = (uint8_t)port;
		if ((rc = hermon_mad(h, port, mad, reply)) != 0)
			return rc;
		memcpy(mad + 64, reply + 64, 64);
		mad[3] = 0x02;
		mad[64 + 16] = (uint8_t)(lid >> 8);
		mad[64 + 17] = (uint8_t)lid;
		mad[64 + 19] = 1;
		mad[64 + 32] = (uint8_t)((mad[64 + 32] & 0xf0) | (step == 0 ? 3 : 4));
		mad[64 + 33] &= 0x0f;
		if ((rc = hermon_forward_smp(h, port, mad, reply)) != 0)
			return rc;
	}
	return 0;
}

TEST(hermon_ibcore_register_send_receive_unregister)
{
	struct rig r;
	struct ib_device *dev = NULL;
	struct got ga = { 0 }, gb = { 0 };
	struct ib_cq *cqa, *cqb;
	struct ib_qp *qa, *qb;

	rig_set_quiet(true);
	rig_log_clear();
	CHECK_EQ(rig_create(&r, 0, true), 0);
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

	struct hermon *h = hermon_from_ib(dev);

	CHECK_EQ(sm_activate(h, 1, 0x11), 0);
	CHECK_EQ(sm_activate(h, 2, 0x22), 0);
	for (unsigned i = 0; i < 20; i++) {
		ib_poll();
		udelay(100);
	}
	CHECK_EQ(ib_port_query(&dev->port[0]), 0);
	CHECK_EQ(ib_port_query(&dev->port[1]), 0);
	CHECK_EQ(dev->port[0].attr.state, IB_PORT_ACTIVE);
	CHECK_EQ(dev->port[1].attr.lid, 0x22);
	CHECK(dev->port[1].attr.neighbor_mtu >= IB_MTU_2048 || dev->port[1].attr.mtu_cap >= 4);

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

	/* The SM gives port 1 a new LID: the core hears of it as a management event naming LID. */
	struct ib_event ev[8];
	int nev;
	bool lid_event = false;

	CHECK_EQ(sm_activate(h, 1, 0x33), 0);
	nev = dev->ops->poll_eq(dev, ev, 8);
	for (int i = 0; i < nev; i++)
		if (ev[i].type == IB_EVENT_PORT_MGMT && ev[i].port == 1 && (ev[i].flags & IB_MGMT_LID))
			lid_event = true;
	CHECK(lid_event);

	/* Multicast through the core: attach, then detach. */
	union ib_gid mgid = { .raw = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0,
				       0xff, 0xff, 0xff, 0xff } };

	CHECK_EQ(ib_mcast_attach(qb, &mgid), 0);
	ib_mcast_detach(qb, &mgid);

	rig_log_clear();
	CHECK_EQ(hermon_fwdump_all(), 0);
	CHECK(strstr(rig_log(), "fwdump: firmware") != NULL);
	CHECK(strstr(rig_log(), "catastrophic error buffer") != NULL);
	char qline[48];

	snprintf(qline, sizeof(qline), "QP 0x%x (UD, port 1)", ((struct hermon_qp *)qa->drv_priv)->qpn);
	CHECK(strstr(rig_log(), qline) != NULL);
out:
	hermon_ib_remove(&r.pdev);
	CHECK(hcasim_quiesced(r.sim));
	CHECK_EQ(hermon_fwdump_all(), -ENODEV);   /* nothing registered any more */
	CHECK_EQ(hcasim_dma_after_close(r.sim), 0);
	rig_destroy(&r);
}

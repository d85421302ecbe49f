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

	CHECK_EQ(rig_sm_set_port(dev, 1, 0x11, false), 0);
	CHECK_EQ(rig_sm_set_port(dev, 2, 0x22, false), 0);
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
	CHECK_EQ(rig_sm_set_port(dev, 1, 0x33, false), 0);
	rig_poll(&r, 2);
	CHECK(r.h.port[0].mgmt_events > mgmt);
	CHECK_EQ(dev->port[0].attr.lid, 0x33);
	CHECK(log_has("port 1: address changed - joining groups again"));
	CHECK(!log_has("re-register"));

	/* ClientReregister: an event, and nothing one can read changed - the core rejoins. */
	rig_log_clear();
	CHECK_EQ(rig_sm_set_port(dev, 1, 0x33, true), 0);
	rig_poll(&r, 2);
	CHECK(log_has("port 1: SM asked to re-register - joining groups again"));
	CHECK(!log_has("address changed"));
	CHECK(!log_has("port 2:"));
	rig_destroy(&r);
}

TEST(hermon_ibcore_probe_send_receive_fwdump_remove)
{
	struct rig r;
	struct ib_device *dev = NULL;
	struct rig_pair p;

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
	CHECK_EQ(rig_sm_set_port(dev, 1, 0x11, false), 0);
	CHECK_EQ(rig_sm_set_port(dev, 2, 0x22, false), 0);
	for (unsigned i = 0; i < 20; i++) {
		ib_poll();
		udelay(100);
	}
	CHECK_EQ(dev->port[0].attr.state, IB_PORT_ACTIVE);
	CHECK_EQ(dev->port[1].attr.lid, 0x22);
	CHECK_EQ(rig_make_pair(dev, &p), 0);
	if (!p.qa || !p.qb)
		goto out;
	CHECK_EQ(p.qa->state, IB_QPS_RTS);

	for (unsigned n = 0; n < 20; n++) {   /* more than either ring: wraps and refills */
		char msg[300] = { 0 };

		snprintf(msg, sizeof(msg), "datagram %u through the hermon fastpath", n);
		CHECK_EQ(rig_send(p.qa, &p.to_b, msg, sizeof(msg)), 0);
		for (unsigned i = 0; i < 10; i++)
			ib_poll();
		if (p.gb.recvs != n + 1) {
			test_fail(__FILE__, __LINE__, "datagram %u: %u received", n, p.gb.recvs);
			break;
		}
		CHECK_EQ(p.gb.len, sizeof(msg));
		CHECK(strcmp((char *)p.gb.data, msg) == 0);
		CHECK_EQ(p.gb.src_qpn, p.qa->qpn);
		CHECK_EQ(p.gb.slid, 0x11);
	}
	CHECK_EQ(p.ga.sends, 20);
	CHECK_EQ(p.ga.send_errors, 0);

	/* Multicast through the core: attach, then detach. */
	union ib_gid mgid = { .raw = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0,
				       0xff, 0xff, 0xff, 0xff } };

	CHECK_EQ(ib_mcast_attach(p.qb, &mgid), 0);
	ib_mcast_detach(p.qb, &mgid);

	rig_log_clear();
	CHECK_EQ(hermon_fwdump_all(), 0);
	CHECK(log_has("FWDUMP 1 hermon"));
	CHECK(log_has("SEG catas "));
	char qline[48];

	snprintf(qline, sizeof(qline), "qpn=0x%x type=UD port=1 ",
		 ((struct hermon_qp *)p.qa->drv_priv)->qpn);
	CHECK(log_has(qline));
	CHECK(log_has("num=2 open=1 state=4 lid=0x22 "));
out:
	hermon_ib_remove(&r.pdev);
	CHECK(hcasim_quiesced(r.sim));
	CHECK_EQ(hermon_fwdump_all(), -ENODEV);   /* nothing registered any more */
	CHECK_EQ(hcasim_dma_after_close(r.sim), 0);
	rig_destroy(&r);
}

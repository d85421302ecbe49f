/* SPDX-License-Identifier: MIT */
/* hcasim: MAD_IFC to the firmware SMA, port events on the EQ, SMPs from the wire answered by the
 * firmware or handed to the driver's QP0, MLX sends with driver-built headers, PMA on QP1. */
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

static void mad_init(uint8_t *mad, uint8_t mclass, uint8_t method, uint16_t attr, uint32_t mod)
{
	struct iblib_mad_hdr hd = { .base_version = 1, .mgmt_class = mclass, .class_version = 1,
				    .method = method, .tid = 0xabcdef, .attr_id = attr, .attr_mod = mod };

	memset(mad, 0, 256);
	iblib_mad_hdr_put(mad, &hd);
}

/* An SM's SMP (or a PMA query) arriving at `port` on QP qp from LID 1. */
static void inject_mad(struct rawhost *rh, unsigned port, unsigned qp, const uint8_t *mad)
{
	struct iblib_pkt p = { 0 };
	uint8_t pkt[512];
	int n;

	p.lrh.vl = qp == 0 ? 15 : 0;
	p.lrh.dlid = 0xffff;
	p.lrh.slid = 1;
	p.bth.opcode = IBLIB_OP_UD_SEND_ONLY;
	p.bth.pkey = 0xffff;
	p.bth.dest_qp = qp;
	p.deth.qkey = qp == 0 ? 0 : IBLIB_GSI_QKEY;
	p.deth.src_qp = qp;
	n = iblib_pkt_build(pkt, sizeof(pkt), &p, mad, 256);
	CHECK(n > 0);
	hcasim_packet_in(rh->h, port, pkt, (size_t)n);
	rawhost_run(rh, NULL);
}

TEST(hcasim_smp_mad_ifc_node_info)
{
	struct rawhost rh;
	struct hcasim_config cfg = { .node_guid = 0x0002c90300001230ull };
	uint8_t mad[256], resp[256];

	CHECK_EQ(rawhost_init(&rh, &cfg), 0);
	CHECK_EQ(rawhost_bringup(&rh), 0);
	mad_init(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_INFO, 0);
	CHECK_EQ(rawhost_mad_ifc(&rh, 1, mad, resp), 0);
	CHECK_EQ(resp[3], IBLIB_METHOD_GET_RESP);
	CHECK_EQ(get_be64(iblib_smp_data(resp) + 12), 0x0002c90300001230ull); /* NodeGUID */
	CHECK_EQ(iblib_smp_data(resp)[3], 2); /* NumPorts */
	CHECK_EQ(rawhost_mad_ifc(&rh, 3, mad, resp), 0x03);
	mad[0] = 9; /* bad base version: the SMA refuses the MAD */
	CHECK_EQ(rawhost_mad_ifc(&rh, 1, mad, resp), 0x30);
	rawhost_fini(&rh);
}

TEST(hcasim_smp_port_events_on_the_eq)
{
	struct rawhost rh;
	uint8_t eqe[32];
	int ev;
	unsigned port_change = 0, mgmt = 0;

	CHECK_EQ(rawhost_up(&rh), 0);
	hcasim_port_set_link(rh.h, 2, true);
	CHECK_EQ(rawhost_poll_eq(&rh, eqe), -1); /* reaching INIT makes no event */
	CHECK_EQ(rawhost_set_port(&rh, 2, 0x33, 4), 0);
	while ((ev = rawhost_poll_eq(&rh, eqe)) >= 0) {
		if (ev == 0x09) {
			port_change++;
			CHECK_EQ(G(event_queue_entry, event_sub_type, eqe), 4);
			CHECK_EQ(G(port_state_change, p, hermonprm_port_state_change_event_st_data(eqe)), 2);
		}
		if (ev == 0x1d)
			mgmt++;
	}
	CHECK_EQ(port_change, 1);
	CHECK(mgmt >= 1);
	/* cable pulled: port down event */
	hcasim_port_set_link(rh.h, 2, false);
	CHECK_EQ(rawhost_poll_eq(&rh, eqe), 0x09);
	CHECK_EQ(G(event_queue_entry, event_sub_type, eqe), 1);
	/* and back: ACTIVE again is reported again */
	hcasim_port_set_link(rh.h, 2, true);
	CHECK_EQ(rawhost_set_port(&rh, 2, 0x33, 4), 0);
	port_change = 0;
	while ((ev = rawhost_poll_eq(&rh, eqe)) >= 0)
		if (ev == 0x09 && G(event_queue_entry, event_sub_type, eqe) == 4)
			port_change++;
	CHECK_EQ(port_change, 1);
	/* a port that only reached INIT makes no event when its cable goes */
	hcasim_port_set_link(rh.h, 1, true);
	hcasim_port_set_link(rh.h, 1, false);
	CHECK_EQ(rawhost_poll_eq(&rh, eqe), -1);
	rawhost_fini(&rh);
}

TEST(hcasim_smp_from_wire_answered_by_firmware_sma)
{
	struct rawhost rh;
	uint8_t mad[256];
	struct iblib_pkt p;

	CHECK_EQ(rawhost_up(&rh), 0);
	hcasim_port_set_link(rh.h, 1, true);
	mad_init(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_PORT_INFO, 1);
	inject_mad(&rh, 1, 0, mad);
	CHECK_EQ(rh.npkts, 1);
	CHECK_EQ(rh.pkts[0].port, 1);
	CHECK_EQ(iblib_pkt_parse(rh.pkts[0].data, rh.pkts[0].len, &p, 0), 0);
	CHECK_EQ(p.lrh.vl, 15);
	CHECK_EQ(p.lrh.dlid, 1);
	CHECK_EQ(p.bth.dest_qp, 0);
	CHECK_EQ(p.deth.src_qp, 0);
	CHECK_EQ(rh.pkts[0].data[p.payload_off + 3], IBLIB_METHOD_GET_RESP);
	CHECK_EQ(iblib_portinfo_port_state(rh.pkts[0].data + p.payload_off + IBLIB_SMP_DATA_OFF), 2);
	/* an SMP not on VL15 is dropped */
	{
		struct iblib_pkt q = { 0 };
		uint8_t pkt[512];
		int n;

		q.lrh.dlid = 0xffff;
		q.bth.opcode = IBLIB_OP_UD_SEND_ONLY;
		q.bth.pkey = 0xffff;
		n = iblib_pkt_build(pkt, sizeof(pkt), &q, mad, 256);
		hcasim_packet_in(rh.h, 1, pkt, (size_t)n);
		rawhost_run(&rh, NULL);
		CHECK_EQ(rh.npkts, 1);
	}
	/* PMA PortCounters on QP1 with no driver GSI: the firmware answers on QP1 (data VLs
	 * need the port ARMED/ACTIVE first) */
	inject_mad(&rh, 1, 1, mad);
	CHECK_EQ(rh.npkts, 1);
	CHECK_EQ(rawhost_set_port(&rh, 1, 5, 4), 0);
	mad_init(mad, IBLIB_MCLASS_PERF, IBLIB_METHOD_GET, IBLIB_PERF_ATTR_PORT_COUNTERS, 0);
	mad[64 + 1] = 1; /* PortSelect */
	inject_mad(&rh, 1, 1, mad);
	CHECK_EQ(rh.npkts, 2);
	CHECK_EQ(rh.pkts[1].data[3], 1); /* DLID: the requester */
	CHECK_EQ(iblib_pkt_parse(rh.pkts[1].data, rh.pkts[1].len, &p, 0), 0);
	CHECK_EQ(p.deth.src_qp, 1);
	CHECK_EQ(p.deth.qkey, IBLIB_GSI_QKEY);
	rawhost_fini(&rh);
}

TEST(hcasim_smp_to_driver_qp0_and_mlx_send)
{
	struct rawhost rh;
	struct rawhost_cq cq;
	struct rawhost_qp qp0;
	struct rawhost_qp_attr qa = MLX_QP0_ATTR(2);
	uint8_t mad[256], cqe[32], hdr[28];
	struct iblib_pkt p = { 0 }, parsed;
	uint64_t rx, tx;

	CHECK_EQ(rawhost_up(&rh), 0);
	hcasim_port_set_link(rh.h, 1, true);
	CHECK_EQ(rawhost_create_cq(&rh, &cq, 130, 3), 0);
	CHECK_EQ(rawhost_take_special_qps(&rh), 0);
	CHECK_EQ(rawhost_create_qp(&rh, &qp0, rh.special_base, &qa), 0); /* QP0 of port 1, RTR */
	rx = rawhost_alloc(&rh, 4096, 64);
	rawhost_post_recv(&rh, &qp0, rx, 2048, 0);
	mad_init(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_SM_INFO, 0);
	inject_mad(&rh, 1, 0, mad);
	CHECK_EQ(rh.npkts, 0); /* no firmware answer: the driver owns QP0 */
	CHECK_EQ(rawhost_poll_cq(&rh, &cq, cqe), 1);
	CHECK_EQ(G(completion_queue_entry, qpn, cqe), rh.special_base);
	CHECK_EQ(G(completion_queue_entry, byte_cnt, cqe), 40 + 256);
	CHECK_MEM((uint8_t *)rawhost_ptr(&rh, rx) + 40, mad, 24);
	/* MLX send from the driver's QP0 (to RTS first): headers as the driver built them */
	{
		uint8_t mb[512] = { 0 };

		CHECK_EQ(rawhost_cmd_mbox(&rh, 0x01b, 0, rh.special_base, mb, sizeof(mb), NULL, 0, NULL), 0);
	}
	p.lrh.vl = 0; /* the device forces VL15 from the WQE's v15 bit */
	p.lrh.lnh = IBLIB_LNH_IBA_LOCAL;
	p.lrh.dlid = 1;
	p.lrh.slid = 0;
	p.lrh.pktlen = (8 + 12 + 8 + 256 + 4) / 4;
	p.bth.opcode = IBLIB_OP_UD_SEND_ONLY;
	p.bth.pkey = 0xffff;
	p.bth.dest_qp = 0;
	p.deth.src_qp = 0;
	iblib_lrh_put(hdr, &p.lrh);
	iblib_bth_put(hdr + 8, &p.bth);
	iblib_deth_put(hdr + 20, &p.deth);
	tx = rawhost_alloc(&rh, 512, 64);
	mad[3] = IBLIB_METHOD_GET_RESP;
	memcpy(rawhost_ptr(&rh, tx), mad, 256);
	rawhost_post_mlx(&rh, &qp0, hdr, sizeof(hdr), tx, 256, true);
	rawhost_run(&rh, NULL);
	CHECK_EQ(rh.npkts, 1);
	CHECK_EQ(rh.pkts[0].len, 28 + 256 + 4 + 2);
	CHECK_EQ(iblib_pkt_parse(rh.pkts[0].data, rh.pkts[0].len, &parsed, 0), 0);
	CHECK_EQ(parsed.lrh.vl, 15);
	CHECK_MEM(rh.pkts[0].data + 28, mad, 256);
	CHECK_EQ(rawhost_poll_cq(&rh, &cq, cqe), 1);
	CHECK_EQ(G(completion_queue_entry, s_r, cqe), 1);
	rawhost_fini(&rh);
}

/* Who answers the SM is CONF_SPECIAL_QP's business: before it the firmware SMA; after it (op_mod
 * 0: the driver owns QP0 and QP1) only the driver's QP0, and while that QP cannot receive (not
 * created, or not yet RTR) the SMP is dropped and counted - the firmware does not stand in. */
TEST(hcasim_smp_driver_owned_qp0_below_rtr_drops)
{
	struct rawhost rh;
	struct rawhost_cq cq;
	struct rawhost_qp qp0;
	struct rawhost_qp_attr qa = MLX_QP0_ATTR(1);
	struct hcasim_port_stats st;
	uint8_t mad[256], cqe[32];
	uint64_t rx;

	CHECK_EQ(rawhost_up(&rh), 0);
	hcasim_port_set_link(rh.h, 1, true);
	CHECK_EQ(rawhost_create_cq(&rh, &cq, 130, 3), 0);
	mad_init(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_PORT_INFO, 1);
	/* no CONF_SPECIAL_QP yet: the firmware SMA answers */
	inject_mad(&rh, 1, 0, mad);
	CHECK_EQ(rh.npkts, 1);
	/* an op_mod whose meaning on the chip is not established is refused, nothing changes */
	CHECK_EQ(rawhost_cmd(&rh, 0x023, 1, 0, 64, 0, NULL), 0x03);
	inject_mad(&rh, 1, 0, mad);
	CHECK_EQ(rh.npkts, 2);
	/* op_mod 0: the driver owns QP0/QP1; with no QP0 the SMP is dropped and counted */
	CHECK_EQ(rawhost_take_special_qps(&rh), 0);
	CHECK_EQ(hcasim_port_stats(rh.h, 1, &st), 0);
	uint64_t no_qp = st.rx_no_qp;
	inject_mad(&rh, 1, 0, mad);
	CHECK_EQ(rh.npkts, 2);
	CHECK_EQ(hcasim_port_stats(rh.h, 1, &st), 0);
	CHECK_EQ(st.rx_no_qp, no_qp + 1);
	CHECK(strstr(rh.last_log, "not ready to receive") != NULL);
	/* QP0 in INIT with a receive posted: still dropped (a QP below RTR receives nothing) */
	CHECK_EQ(rawhost_create_qp(&rh, &qp0, rh.special_base, &qa), 0);
	rx = rawhost_alloc(&rh, 4096, 64);
	rawhost_post_recv(&rh, &qp0, rx, 2048, 0);
	inject_mad(&rh, 1, 0, mad);
	CHECK_EQ(rh.npkts, 2);
	CHECK_EQ(rawhost_poll_cq(&rh, &cq, cqe), 0);
	CHECK_EQ(hcasim_port_stats(rh.h, 1, &st), 0);
	CHECK_EQ(st.rx_no_qp, no_qp + 2);
	/* a PMA query for QP1 with no driver QP1: dropped too */
	CHECK_EQ(rawhost_set_port(&rh, 1, 5, 4), 0);
	{
		uint8_t pma[256];

		mad_init(pma, IBLIB_MCLASS_PERF, IBLIB_METHOD_GET, IBLIB_PERF_ATTR_PORT_COUNTERS, 0);
		pma[64 + 1] = 1;
		inject_mad(&rh, 1, 1, pma);
		CHECK_EQ(rh.npkts, 2);
		CHECK_EQ(hcasim_port_stats(rh.h, 1, &st), 0);
		CHECK_EQ(st.rx_no_qp, no_qp + 3);
	}
	/* INIT2RTR: now the driver's QP0 takes it, and the firmware still does not answer */
	{
		uint8_t mb[512] = { 0 };

		CHECK_EQ(rawhost_cmd_mbox(&rh, 0x01a, 0, rh.special_base, mb, sizeof(mb), NULL, 0, NULL), 0);
	}
	inject_mad(&rh, 1, 0, mad);
	CHECK_EQ(rh.npkts, 2);
	CHECK_EQ(rawhost_poll_cq(&rh, &cq, cqe), 1);
	CHECK_EQ(G(completion_queue_entry, qpn, cqe), rh.special_base);
	CHECK_MEM((uint8_t *)rawhost_ptr(&rh, rx) + 40, mad, 24);
	CHECK_EQ(hcasim_refused_count(rh.h), 1); /* the op_mod, nothing else */
	rawhost_fini(&rh);
}

TEST(hcasim_smp_link_trains_only_after_init_port)
{
	struct rawhost rh;
	uint8_t mad[256];

	CHECK_EQ(rawhost_init(&rh, NULL), 0);
	hcasim_port_set_link(rh.h, 1, true); /* cable in before any driver ran */
	CHECK(!rh.link_up[1]);
	mad_init(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_INFO, 0);
	inject_mad(&rh, 1, 0, mad);
	CHECK_EQ(rh.npkts, 0); /* firmware not running: the SM gets no answer */
	CHECK_EQ(rawhost_bringup_hca(&rh), 0);
	CHECK(!rh.link_up[1]);
	CHECK_EQ(rawhost_bringup_rest(&rh), 0); /* INIT_PORT: now it trains */
	CHECK(rh.link_up[1]);
	CHECK(!rh.link_up[2]);                  /* no cable on port 2 */
	inject_mad(&rh, 1, 0, mad);
	CHECK_EQ(rh.npkts, 1);
	CHECK_EQ(rawhost_cmd(&rh, 0x00a, 0, 0, 1, 0, NULL), 0); /* CLOSE_PORT */
	CHECK(!rh.link_up[1]);
	CHECK_EQ(rawhost_cmd(&rh, 0x009, 0, 0, 1, 0, NULL), 0);
	CHECK(rh.link_up[1]);
	CHECK_EQ(rawhost_cmd(&rh, 0x008, 0, 0, 0, 0, NULL), 0); /* CLOSE_HCA */
	CHECK(!rh.link_up[1]);
	CHECK_EQ(rawhost_reset(&rh), 0);
	CHECK_EQ(rawhost_bringup(&rh), 0);
	CHECK(rh.link_up[1]);
	CHECK_EQ(rawhost_set_port(&rh, 1, 0x44, 4), 0);
	CHECK_EQ(rawhost_reset(&rh), 0);        /* a reset drops it */
	CHECK(!rh.link_up[1]);
	/* and the firmware SMA restarted: no LID any more */
	CHECK_EQ(rawhost_bringup(&rh), 0);
	mad_init(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_PORT_INFO, 1);
	{
		uint8_t resp[256];

		CHECK_EQ(rawhost_mad_ifc(&rh, 1, mad, resp), 0);
		CHECK_EQ(iblib_portinfo_lid(iblib_smp_data(resp)), 0);
		CHECK_EQ(iblib_portinfo_port_state(iblib_smp_data(resp)), 2);
	}
	CHECK_EQ(rawhost_reset(&rh), 0);
	CHECK_EQ(rh.link_changes, 8);
	rawhost_fini(&rh);
}

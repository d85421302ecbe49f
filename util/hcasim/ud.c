/* SPDX-License-Identifier: MIT */
/*
 * Unreliable datagram and MLX (QP0/QP1) transport, the receive dispatcher, and the port's wire.
 *
 * Send: a UD WQE (ctrl + 48-byte UD segment + data) becomes LRH [+GRH] + BTH + DETH + payload +
 * ICRC + VCRC, built with iblib. An MLX WQE carries headers the driver built; the device fills in
 * ICRC/VCRC (icrc = 0), forces VL15 when v15 is set, and replaces the SLID with the port's LID
 * unless slr is set or the packet is a directed-route SMP (permissive DLID).
 * Receive: every packet is checked (VCRC, ICRC, headers); bad ones are dropped and counted. UD
 * delivery checks the P_Key (QP's P_Key index) and the Q_Key (QP1: the GSI Q_Key; QP0: none),
 * scatters the 40-byte GRH area first (written only when a GRH came) and then the payload.
 * SMPs to QP0 go to the driver's QP0 when CONF_SPECIAL_QP configured it and it is at least RTR;
 * otherwise the firmware SMA answers them and the reply leaves the same port.
 */
#include <string.h>

#include <ibboot/wire/crc.h>
#include <ibboot/wire/packet.h>

#include "sma.h"
#include "xport.h"

#define QPC_BYTES HERMONPRM_QUEUE_PAIR_EE_CONTEXT_ENTRY_ST_BYTES
#define GRH_AREA 40u
#define MAD_BYTES 256u
#define IBA_ARMED 3
#define IBA_ACTIVE 4

unsigned hcasim_mtu_bytes(unsigned ib_mtu)
{
	return ib_mtu >= 1 && ib_mtu <= 5 ? 128u << ib_mtu : 4096u;
}

uint16_t hcasim_port_lid(struct hcasim *h, unsigned port)
{
	return hcasim_sma_lid(h->sma, port);
}

/* IBA 10.9.3: P_Keys match when their low 15 bits agree and at least one is a full member. */
bool hcasim_pkey_ok(uint16_t a, uint16_t b)
{
	return (a & 0x7fff) == (b & 0x7fff) && (a & 0x7fff) && ((a | b) & 0x8000);
}

static bool lid_is_mine(struct hcasim *h, unsigned port, uint16_t dlid)
{
	uint16_t lid = hcasim_port_lid(h, port);
	uint16_t mask = (uint16_t)~((1u << hcasim_sma_lmc(h->sma, port)) - 1);

	return lid && (dlid & mask) == (lid & mask);
}

static bool is_mcast_lid(uint16_t lid)
{
	return lid >= IBLIB_LID_MCAST_MIN && lid != IBLIB_LID_PERMISSIVE;
}

/* A packet leaves `port`: to our own receive FIFO when it is addressed to this port (loopback,
 * also every multicast: the group may have local members), and to the cable otherwise/too. */
void hcasim_wire_out(struct hcasim *h, unsigned port, uint8_t *pkt, size_t len)
{
	struct hcasim_port *p = &h->port[port - 1];
	struct iblib_lrh lrh;

	if (!p->linked) {
		p->tx_dropped++;
		return; /* no link: the packet is lost, the WQE still completes */
	}
	iblib_lrh_get(pkt, &lrh);
	/* IBA 7.2: only subnet management (VL15) leaves a port that is not ACTIVE */
	if (lrh.vl != IBLIB_VL15 && hcasim_sma_port_state(h->sma, port) != IBA_ACTIVE) {
		p->tx_dropped++;
		hcasim_refuse(h, "port %u: data packet not sent: port state %u is not ACTIVE", port,
			      hcasim_sma_port_state(h->sma, port));
		return;
	}
	p->tx_packets++;
	hcasim_sma_count(h->sma, port, true, len);
	if (lid_is_mine(h, port, lrh.dlid) || is_mcast_lid(lrh.dlid))
		hcasim_packet_in(h, port, pkt, len);
	if (!lid_is_mine(h, port, lrh.dlid) && h->ops.packet_out)
		h->ops.packet_out(h->ops.ctx, port, pkt, len);
}

static void gid_of_port(struct hcasim *h, unsigned port, struct iblib_gid *g)
{
	iblib_gid_make(g, hcasim_sma_gid_prefix(h->sma, port), hcasim_sma_port_guid(h->sma, port));
}

static uint16_t qp_pkey(struct hcasim *h, unsigned port, const uint8_t *qpc)
{
	unsigned idx = PRM_GET(address_path, pkey_index,
			       PRM_SUB(queue_pair_ee_context_entry, primary_address_path, qpc));

	return hcasim_sma_pkey(h->sma, port, idx);
}

int hcasim_ud_send(struct hcasim *h, uint32_t qpn, uint8_t *qpc, const uint8_t *wqe, size_t len)
{
	const uint8_t *ud = wqe + HERMONPRM_WQE_SEGMENT_CTRL_SEND_ST_BYTES;
	const uint8_t *av = PRM_SUB(wqe_segment_ud, ud_address_vector, ud);
	unsigned opcode = PRM_GET(wqe_segment_ctrl_send, opcode, wqe);
	unsigned port = PRM_GET(ud_address_vector, port_number, av);
	uint8_t *payload = h->scratch, pkt[IBLIB_PKT_MAX];
	struct iblib_pkt p = { 0 };
	size_t plen = 0;
	uint32_t qkey, psn;
	int rc, n;

	if (len < 16 + HERMONPRM_WQE_SEGMENT_UD_ST_BYTES || (opcode != WQE_SEND && opcode != WQE_SEND_IMM)) {
		hcasim_refuse(h, "QP %#x: UD WQE opcode %#x / size %zu invalid", qpn, opcode, len);
		hcasim_sq_complete(h, qpn, qpc, wqe, 0, HERMON_SYND_LOCAL_QP_OP);
		hcasim_qp_to_error(h, qpn, qpc, "bad UD WQE");
		return XMIT_ERROR;
	}
	if (port < 1 || port > h->cfg.num_ports)
		port = (unsigned)hcasim_port_of_qp(h, qpc, qpn);
	if (PRM_GET(ud_address_vector, pd, av) != PRM_GET(queue_pair_ee_context_entry, pd, qpc)) {
		hcasim_refuse(h, "QP %#x: address vector PD %#x is not the QP's PD %#x", qpn,
			      PRM_GET(ud_address_vector, pd, av), PRM_GET(queue_pair_ee_context_entry, pd, qpc));
		hcasim_sq_complete(h, qpn, qpc, wqe, 0, HERMON_SYND_LOCAL_PROT);
		hcasim_qp_to_error(h, qpn, qpc, "UD address vector in another PD");
		return XMIT_ERROR;
	}
	rc = hcasim_gather(h, qpc, wqe, 16 + HERMONPRM_WQE_SEGMENT_UD_ST_BYTES, len, payload,
			   hcasim_mtu_bytes(PRM_GET(queue_pair_ee_context_entry, mtu, qpc)), &plen);
	if (rc) {
		hcasim_sq_complete(h, qpn, qpc, wqe, 0, rc == GATHER_LENGTH ? HERMON_SYND_LOCAL_LENGTH : HERMON_SYND_LOCAL_PROT);
		hcasim_qp_to_error(h, qpn, qpc, rc == GATHER_LENGTH ? "UD message longer than the MTU"
								 : "gather protection error");
		if (rc == GATHER_ICM)
			hcasim_catastrophe(h, "MPT/MTT in unmapped ICM");
		return XMIT_ERROR;
	}
	hcasim_faults_ud_payload(h, payload, plen);
	/* IBA 10.2.4: a Q_Key with the high bit set in a WR means "use the QP's own Q_Key" */
	qkey = PRM_GET(wqe_segment_ud, q_key, ud);
	if (qkey & IBLIB_QKEY_PRIVILEGED)
		qkey = PRM_GET(queue_pair_ee_context_entry, q_key, qpc);
	p.lrh.sl = (uint8_t)PRM_GET(ud_address_vector, sl, av);
	p.lrh.dlid = (uint16_t)PRM_GET(ud_address_vector, rlid, av);
	p.lrh.slid = hcasim_port_lid(h, port) |
		     (uint16_t)(PRM_GET(ud_address_vector, my_lid_path_bits, av) &
				((1u << hcasim_sma_lmc(h->sma, port)) - 1));
	if (PRM_GET(ud_address_vector, g, av)) {
		p.has_grh = true;
		p.grh.tclass = (uint8_t)PRM_GET(ud_address_vector, tclass, av);
		p.grh.flow_label = PRM_GET(ud_address_vector, flow_label, av);
		p.grh.hop_limit = (uint8_t)PRM_GET(ud_address_vector, hop_limit, av);
		gid_of_port(h, port, &p.grh.sgid);
		memcpy(p.grh.dgid.raw, (const uint8_t *)av + 16, 16); /* rgid_127_96 .. rgid_31_0 */
	}
	p.bth.opcode = opcode == WQE_SEND_IMM ? IBLIB_OP_UD_SEND_ONLY_IMM : IBLIB_OP_UD_SEND_ONLY;
	p.bth.se = PRM_GET(wqe_segment_ctrl_send, s, wqe);
	p.bth.pkey = qp_pkey(h, port, qpc);
	p.bth.dest_qp = PRM_GET(wqe_segment_ud, destination_qp, ud);
	psn = PRM_GET(queue_pair_ee_context_entry, next_send_psn, qpc);
	p.bth.psn = psn;
	PRM_SET(queue_pair_ee_context_entry, next_send_psn, qpc, (psn + 1) & 0xffffff);
	p.deth.qkey = qkey;
	p.deth.src_qp = qpn;
	p.imm = PRM_GET(wqe_segment_ctrl_send, immediate, wqe);
	n = iblib_pkt_build(pkt, sizeof(pkt), &p, payload, plen);
	if (n < 0) {
		hcasim_refuse(h, "QP %#x: UD packet not buildable: %s", qpn, iblib_strerror(n));
		hcasim_sq_complete(h, qpn, qpc, wqe, 0, HERMON_SYND_LOCAL_LENGTH);
		return XMIT_DONE;
	}
	hcasim_wire_out(h, port, pkt, (size_t)n);
	hcasim_sq_complete(h, qpn, qpc, wqe, (uint32_t)plen, 0);
	return XMIT_DONE;
}

int hcasim_mlx_send(struct hcasim *h, uint32_t qpn, uint8_t *qpc, const uint8_t *wqe, size_t len)
{
	uint8_t *pkt = h->scratch;
	struct iblib_lrh lrh;
	unsigned port = (unsigned)hcasim_port_of_qp(h, qpc, qpn);
	size_t n = 0;
	int rc;

	rc = hcasim_gather(h, qpc, wqe, HERMONPRM_WQE_SEGMENT_CTRL_MLX_ST_BYTES, len, pkt,
			   IBLIB_PKT_MAX - IBLIB_VCRC_BYTES, &n);
	if (rc || n < IBLIB_LRH_BYTES + IBLIB_BTH_BYTES + IBLIB_ICRC_BYTES) {
		hcasim_sq_complete(h, qpn, qpc, wqe, 0, rc == GATHER_PROT ? HERMON_SYND_LOCAL_PROT : HERMON_SYND_LOCAL_LENGTH);
		hcasim_qp_to_error(h, qpn, qpc, "MLX WQE gather failed");
		return XMIT_ERROR;
	}
	iblib_lrh_get(pkt, &lrh);
	if (PRM_GET(wqe_segment_ctrl_mlx, v15, wqe))
		lrh.vl = IBLIB_VL15;
	if (!PRM_GET(wqe_segment_ctrl_mlx, slr, wqe) && lrh.dlid != IBLIB_LID_PERMISSIVE)
		lrh.slid = hcasim_port_lid(h, port) |
			   (uint16_t)(lrh.slid & ((1u << hcasim_sma_lmc(h->sma, port)) - 1));
	iblib_lrh_put(pkt, &lrh);
	/* the last 4 gathered bytes are the ICRC slot the driver reserved */
	if (!PRM_GET(wqe_segment_ctrl_mlx, icrc, wqe)) {
		rc = iblib_pkt_seal(pkt, n - IBLIB_ICRC_BYTES, IBLIB_PKT_MAX);
		if (rc < 0) {
			hcasim_refuse(h, "QP %#x: MLX headers invalid: %s", qpn, iblib_strerror(rc));
			hcasim_sq_complete(h, qpn, qpc, wqe, 0, HERMON_SYND_LOCAL_LENGTH);
			return XMIT_DONE;
		}
		n = (size_t)rc;
	} else {
		iblib_put_vcrc(pkt + n, iblib_vcrc(pkt, n));
		n += IBLIB_VCRC_BYTES;
	}
	hcasim_wire_out(h, port, pkt, n);
	hcasim_sq_complete(h, qpn, qpc, wqe, (uint32_t)(n - IBLIB_VCRC_BYTES), 0);
	return XMIT_DONE;
}

int hcasim_xport_send(struct hcasim *h, uint32_t qpn, uint8_t *qpc, const uint8_t *wqe, size_t len)
{
	unsigned opcode = PRM_GET(wqe_segment_ctrl_send, opcode, wqe);

	if (opcode == WQE_NOP) {
		hcasim_sq_complete(h, qpn, qpc, wqe, 0, 0);
		return XMIT_DONE;
	}
	switch (PRM_GET(queue_pair_ee_context_entry, st, qpc)) {
	case QPST_UD:
		return hcasim_ud_send(h, qpn, qpc, wqe, len);
	case QPST_MLX:
		return hcasim_mlx_send(h, qpn, qpc, wqe, len);
	case QPST_RC:
		return hcasim_rc_send(h, qpn, qpc, wqe, len);
	}
	hcasim_sq_complete(h, qpn, qpc, wqe, 0, HERMON_SYND_LOCAL_QP_OP);
	hcasim_qp_to_error(h, qpn, qpc, "transport not modelled");
	return XMIT_ERROR;
}

/* Deliver a UD/QP0/QP1 packet to local QP `qpn`. ext_qpn is 0/1 for special QPs (what the
 * CQE reports is still the real QPN). */
static void ud_deliver(struct hcasim *h, unsigned port, const struct iblib_pkt *p, const uint8_t *buf,
		       uint32_t qpn, int ext_qpn)
{
	struct hcasim_port *pp = &h->port[port - 1];
	uint8_t qpc[QPC_BYTES], wqe[HCASIM_MAX_WQE];
	uint8_t *data = h->rxdata;
	unsigned st = QP_STATE(h, qpn);
	struct hcasim_cqe_info ci = { .qpn = qpn };
	size_t wlen, written;
	uint16_t counter;
	int rc;

	if (st != QPS_RTR && st != QPS_RTS && st != QPS_SQD && st != QPS_SQER) {
		pp->rx_no_qp++;
		return;
	}
	if (hcasim_qpc_load(h, qpn, qpc) < 0) {
		hcasim_catastrophe(h, "QP context in unmapped ICM");
		return;
	}
	/* the context is found by the QPN's low bits; the full QPN must match too */
	if (PRM_GET(queue_pair_ee_context_entry, local_qpn_een, qpc) != qpn ||
	    (ext_qpn < 0 && PRM_GET(queue_pair_ee_context_entry, st, qpc) != QPST_UD)) {
		pp->rx_no_qp++;
		return;
	}
	if (hcasim_port_of_qp(h, qpc, qpn) != (int)port) {
		pp->rx_no_qp++;
		return;
	}
	if (ext_qpn != 0) {
		bool ok = ext_qpn == 1 ? hcasim_sma_pkey_match(h->sma, port, p->bth.pkey)
				       : hcasim_pkey_ok(p->bth.pkey, qp_pkey(h, port, qpc));
		uint32_t want = ext_qpn == 1 ? IBLIB_GSI_QKEY : PRM_GET(queue_pair_ee_context_entry, q_key, qpc);

		if (!ok) {
			pp->rx_bad_pkey++;
			hcasim_sma_count_pkey_violation(h->sma, port);
			hcasim_refuse(h, "port %u: QP %#x: P_Key %#06x not accepted: dropped", port, qpn,
				      p->bth.pkey);
			return;
		}
		if (p->deth.qkey != want) {
			pp->rx_bad_qkey++;
			hcasim_sma_count_qkey_violation(h->sma, port);
			hcasim_refuse(h, "port %u: QP %#x: Q_Key %#x, QP expects %#x: dropped", port, qpn,
				      p->deth.qkey, want);
			return;
		}
	}
	rc = hcasim_rq_take(h, qpc, &counter, wqe, &wlen);
	if (rc) {
		pp->rx_no_wqe++;
		if (rc < 0)
			hcasim_catastrophe(h, "receive queue not readable");
		return; /* UD: no receive WQE, the datagram is silently dropped */
	}
	/* GRH area: the 40 bytes are written only when the packet carried a GRH */
	if (p->has_grh) {
		memcpy(data, buf + p->grh_off, GRH_AREA);
		memcpy(data + GRH_AREA, buf + p->payload_off, p->payload_len);
		rc = hcasim_scatter(h, qpc, wqe, wlen, data, GRH_AREA + p->payload_len, 0, &written);
	} else {
		rc = hcasim_scatter(h, qpc, wqe, wlen, buf + p->payload_off, p->payload_len, GRH_AREA,
				    &written);
	}
	ci.wqe_counter = counter;
	if (rc) {
		ci.error = true;
		ci.syndrome = rc == GATHER_LENGTH ? HERMON_SYND_LOCAL_LENGTH : HERMON_SYND_LOCAL_PROT;
		hcasim_cq_post(h, PRM_GET(queue_pair_ee_context_entry, cqn_rcv, qpc), &ci);
		hcasim_qp_to_error(h, qpn, qpc, "receive scatter failed");
		return;
	}
	ci.opcode = p->bth.opcode == IBLIB_OP_UD_SEND_ONLY_IMM ? CQE_RECV_SEND_IMM : CQE_RECV_SEND;
	ci.imm = p->imm;
	ci.byte_cnt = (uint32_t)(GRH_AREA + p->payload_len);
	ci.rqpn = p->deth.src_qp;
	ci.slid = p->lrh.slid;
	ci.sl = p->lrh.sl;
	ci.grh = p->has_grh;
	ci.path_bits = p->lrh.dlid & ((1u << hcasim_sma_lmc(h->sma, port)) - 1);
	if (hcasim_qpc_store(h, qpn, qpc) < 0) {
		hcasim_catastrophe(h, "QP context in unmapped ICM");
		return;
	}
	hcasim_cq_post(h, PRM_GET(queue_pair_ee_context_entry, cqn_rcv, qpc), &ci);
}

/* The firmware answers a MAD that reached QP0/QP1 with no driver QP to take it. */
static void firmware_mad(struct hcasim *h, unsigned port, const struct iblib_pkt *p,
			 const uint8_t *buf, unsigned qp)
{
	uint8_t resp[MAD_BYTES], mad[MAD_BYTES] = { 0 }, pkt[IBLIB_PKT_MAX];
	struct iblib_pkt r = { 0 };
	unsigned events = 0;
	int rc, n;

	memcpy(mad, buf + p->payload_off, p->payload_len < MAD_BYTES ? p->payload_len : MAD_BYTES);
	if (qp == 1 && mad[1] != 0x04) {
		h->port[port - 1].rx_no_qp++;
		return; /* GSI classes other than PMA need a driver */
	}
	rc = hcasim_sma_mad(h->sma, port, mad, resp, 0, &events);
	hcasim_sma_events(h, port, events);
	if (rc <= 0) {
		if (rc < 0)
			hcasim_refuse(h, "port %u: firmware SMA dropped a MAD (class %#x): %d", port,
				      mad[1], rc);
		return;
	}
	r.lrh.vl = qp == 0 ? IBLIB_VL15 : 0;
	r.lrh.sl = p->lrh.sl;
	if (qp == 0 && mad[1] == 0x81 && (p->lrh.dlid == IBLIB_LID_PERMISSIVE ||
					  p->lrh.slid == IBLIB_LID_PERMISSIVE)) {
		r.lrh.dlid = IBLIB_LID_PERMISSIVE;
		r.lrh.slid = IBLIB_LID_PERMISSIVE;
	} else {
		r.lrh.dlid = p->lrh.slid;
		r.lrh.slid = hcasim_port_lid(h, port);
	}
	r.bth.opcode = IBLIB_OP_UD_SEND_ONLY;
	r.bth.pkey = p->bth.pkey;
	r.bth.dest_qp = p->deth.src_qp;
	r.deth.qkey = qp == 0 ? 0 : IBLIB_GSI_QKEY;
	r.deth.src_qp = qp;
	n = iblib_pkt_build(pkt, sizeof(pkt), &r, resp, MAD_BYTES);
	if (n > 0)
		hcasim_wire_out(h, port, pkt, (size_t)n);
}

static void special_qp_in(struct hcasim *h, unsigned port, const struct iblib_pkt *p,
			  const uint8_t *buf, unsigned qp)
{
	uint32_t qpn = h->special_qp_base + 2 * qp + (port - 1);

	if (qp == 0 && p->lrh.vl != IBLIB_VL15) {
		h->port[port - 1].rx_bad_hdr++;
		hcasim_refuse(h, "port %u: SMP not on VL15: dropped (IBA 14.2.2.1)", port);
		return;
	}
	/* Before CONF_SPECIAL_QP the firmware's own agents own QP0/QP1. After it the driver does
	 * (cmd_conf_special_qp): its QP takes the packet, and one not ready to receive drops it, as
	 * any QP below RTR does - the firmware does not stand in for a driver that is not ready
	 * (README.md, "Where the model is strict"). */
	if (!h->special_qp_set) {
		firmware_mad(h, port, p, buf, qp);
		return;
	}
	if (QP_STATE(h, qpn) < QPS_RTR || QP_STATE(h, qpn) == QPS_ERR) {
		h->port[port - 1].rx_no_qp++;
		hcasim_log(h, "hcasim: port %u: %s for QP%u dropped: the driver owns QP%u "
			   "(CONF_SPECIAL_QP) and its QP %#x is not ready to receive", port,
			   qp == 0 ? "SMP" : "GMP", qp, qp, qpn);
		return;
	}
	ud_deliver(h, port, p, buf, qpn, (int)qp);
}

static void mcast_in(struct hcasim *h, unsigned port, const struct iblib_pkt *p, const uint8_t *buf)
{
	uint32_t qpns[128];
	int n;

	if (!p->has_grh || !iblib_gid_is_multicast(&p->grh.dgid)) {
		h->port[port - 1].rx_bad_hdr++;
		return;
	}
	n = hcasim_mcg_find(h, p->grh.dgid.raw, qpns, 128);
	if (n <= 0) {
		h->port[port - 1].rx_no_qp++;
		return;
	}
	for (int i = 0; i < n; i++)
		if (qpns[i] <= HCASIM_QPN_MAX)
			ud_deliver(h, port, p, buf, qpns[i], -1);
}

void hcasim_rx_packet(struct hcasim *h, unsigned port, const uint8_t *buf, size_t len)
{
	struct hcasim_port *pp = &h->port[port - 1];
	struct iblib_pkt p;
	int rc = iblib_pkt_parse(buf, len, &p, 0);

	if (rc == IBLIB_E_ICRC || rc == IBLIB_E_VCRC) {
		pp->rx_bad_crc++;
		hcasim_refuse(h, "port %u: %s: packet dropped", port, iblib_strerror(rc));
		return;
	}
	if (rc < 0) {
		pp->rx_bad_hdr++;
		hcasim_refuse(h, "port %u: %s: packet dropped", port, iblib_strerror(rc));
		return;
	}
	if (!pp->up) {
		pp->rx_link_down++;
		return;
	}
	/* IBA 7.2: data packets are accepted from ARMED on, SMPs (VL15) in any state */
	if (p.lrh.vl != IBLIB_VL15 && hcasim_sma_port_state(h->sma, port) < IBA_ARMED) {
		pp->rx_link_down++;
		return;
	}
	pp->rx_packets++;
	hcasim_sma_count(h->sma, port, false, len);
	if (!is_mcast_lid(p.lrh.dlid) && p.lrh.dlid != IBLIB_LID_PERMISSIVE &&
	    !lid_is_mine(h, port, p.lrh.dlid) && hcasim_port_lid(h, port)) {
		pp->rx_bad_hdr++;
		hcasim_refuse(h, "port %u: DLID %#x is not this port's LID %#x: dropped", port,
			      p.lrh.dlid, hcasim_port_lid(h, port));
		return;
	}
	if ((p.bth.opcode & IBLIB_TRANSPORT_MASK) == IBLIB_TRANSPORT_RC) {
		hcasim_rc_receive(h, port, &p, buf);
		return;
	}
	if ((p.bth.opcode & IBLIB_TRANSPORT_MASK) != IBLIB_TRANSPORT_UD) {
		pp->rx_no_qp++;
		return;
	}
	if (p.bth.dest_qp == 0 || p.bth.dest_qp == 1)
		special_qp_in(h, port, &p, buf, p.bth.dest_qp);
	else if (p.bth.dest_qp == 0xffffff)
		mcast_in(h, port, &p, buf);
	else if (p.bth.dest_qp <= HCASIM_QPN_MAX)
		ud_deliver(h, port, &p, buf, p.bth.dest_qp, -1);
	else
		pp->rx_no_qp++;
}

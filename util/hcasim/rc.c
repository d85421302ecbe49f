/* SPDX-License-Identifier: MIT */
/*
 * Reliable connected transport, enough to prove remote access is enforced.
 *
 * Responder: SEND (ONLY / ONLY with immediate), RDMA WRITE (ONLY / ONLY with immediate) and
 * RDMA READ requests, in PSN order. Every remote access goes through the R_Key check of tpt.c
 * with the QP's PD; a WRITE/READ into a region without rw/rr, or while the QP's rwe/rre is
 * clear, is answered with NAK "remote access error" (IBA 9.7.5.1.3) and logged — the memory is
 * never touched. A SEND with no posted receive gets an RNR NAK.
 * Requester: one request in flight per QP (stop and wait), single-packet messages; the WQE
 * completes when the ACK / read response arrives, with an error CQE on a NAK.
 */
#include <string.h>

#include <iblib/packet.h>

#include "sma.h"
#include "tpt.h"
#include "xport.h"

#define QPC_BYTES HERMONPRM_QUEUE_PAIR_EE_CONTEXT_ENTRY_ST_BYTES

static void rc_headers(struct hcasim *h, unsigned port, const uint8_t *qpc, struct iblib_pkt *p,
		       uint8_t opcode, uint32_t psn)
{
	const uint8_t *path = PRM_SUB(queue_pair_ee_context_entry, primary_address_path, qpc);

	memset(p, 0, sizeof(*p));
	/* Hermon keeps the SL in sched_queue bits 5:2 */
	p->lrh.sl = (uint8_t)((PRM_GET(address_path, sched_queue, path) >> 2) & 0xf);
	p->lrh.dlid = (uint16_t)PRM_GET(address_path, rlid, path);
	p->lrh.slid = hcasim_port_lid(h, port) |
		      (uint16_t)(PRM_GET(address_path, my_lid_smac_idx, path) &
				 ((1u << hcasim_sma_lmc(h->sma, port)) - 1));
	p->bth.opcode = opcode;
	p->bth.pkey = hcasim_sma_pkey(h->sma, port, PRM_GET(address_path, pkey_index, path));
	p->bth.dest_qp = PRM_GET(queue_pair_ee_context_entry, remote_qpn_een, qpc);
	p->bth.psn = psn & 0xffffff;
}

static void rc_emit(struct hcasim *h, unsigned port, struct iblib_pkt *p, const void *payload,
		    size_t len)
{
	uint8_t pkt[IBLIB_PKT_MAX];
	int n = iblib_pkt_build(pkt, sizeof(pkt), p, payload, len);

	if (n > 0)
		hcasim_wire_out(h, port, pkt, (size_t)n);
	else
		hcasim_refuse(h, "RC packet not buildable: %s", iblib_strerror(n));
}

static void send_ack(struct hcasim *h, unsigned port, uint8_t *qpc, uint32_t psn, uint8_t syndrome)
{
	struct iblib_pkt a;
	uint32_t msn = PRM_GET(queue_pair_ee_context_entry, rmsn, qpc);

	if (syndrome == IBLIB_AETH_ACK(IBLIB_AETH_CREDITS_INVALID))
		PRM_SET(queue_pair_ee_context_entry, rmsn, qpc, (msn + 1) & 0xffffff);
	rc_headers(h, port, qpc, &a, IBLIB_OP_RC_ACKNOWLEDGE, psn);
	a.aeth.syndrome = syndrome;
	a.aeth.msn = PRM_GET(queue_pair_ee_context_entry, rmsn, qpc);
	rc_emit(h, port, &a, NULL, 0);
}

int hcasim_rc_send(struct hcasim *h, uint32_t qpn, uint8_t *qpc, const uint8_t *wqe, size_t len)
{
	unsigned opcode = PRM_GET(wqe_segment_ctrl_send, opcode, wqe), port;
	unsigned mtu = hcasim_mtu_bytes(PRM_GET(queue_pair_ee_context_entry, mtu, qpc));
	uint32_t psn = PRM_GET(queue_pair_ee_context_entry, next_send_psn, qpc);
	const uint8_t *ra = wqe + HERMONPRM_WQE_SEGMENT_CTRL_SEND_ST_BYTES;
	size_t off = HERMONPRM_WQE_SEGMENT_CTRL_SEND_ST_BYTES, plen = 0;
	struct iblib_pkt p;
	int rc = 0;

	port = (unsigned)hcasim_port_of_qp(h, qpc, qpn);
	switch (opcode) {
	case WQE_SEND: case WQE_SEND_IMM:
		rc_headers(h, port, qpc, &p, opcode == WQE_SEND ? IBLIB_OP_RC_SEND_ONLY
								 : IBLIB_OP_RC_SEND_ONLY_IMM, psn);
		break;
	case WQE_RDMA_WRITE: case WQE_RDMA_WRITE_IMM: case WQE_RDMA_READ:
		rc_headers(h, port, qpc, &p, opcode == WQE_RDMA_WRITE ? IBLIB_OP_RC_RDMA_WRITE_ONLY :
					     opcode == WQE_RDMA_WRITE_IMM ? IBLIB_OP_RC_RDMA_WRITE_ONLY_IMM
									  : IBLIB_OP_RC_RDMA_READ_REQUEST, psn);
		p.reth.va = (uint64_t)PRM_GET(wqe_segment_remote_address, remote_virt_addr_h, ra) << 32 |
			    PRM_GET(wqe_segment_remote_address, remote_virt_addr_l, ra);
		p.reth.rkey = PRM_GET(wqe_segment_remote_address, rkey, ra);
		off += HERMONPRM_WQE_SEGMENT_REMOTE_ADDRESS_ST_BYTES;
		break;
	default:
		hcasim_sq_complete(h, qpn, qpc, wqe, 0, SYND_LOCAL_QP_OP);
		hcasim_qp_to_error(h, qpn, qpc, "RC opcode not modelled");
		return XMIT_ERROR;
	}
	if (opcode == WQE_RDMA_READ) {
		/* the data segments are the local destination: only their total length goes out */
		for (size_t o = off; o + 16 <= len; o += 16)
			plen += PRM_GET(wqe_segment_data_ptr, byte_count, wqe + o);
		p.reth.dma_len = (uint32_t)plen;
		rc = plen > mtu ? GATHER_LENGTH : 0;
		plen = 0;
	} else {
		rc = hcasim_gather(h, qpc, wqe, off, len, h->scratch, mtu, &plen);
		p.reth.dma_len = (uint32_t)plen;
	}
	if (rc) {
		hcasim_sq_complete(h, qpn, qpc, wqe, 0, rc == GATHER_LENGTH ? SYND_LOCAL_LENGTH : SYND_LOCAL_PROT);
		hcasim_qp_to_error(h, qpn, qpc, "RC request gather failed (single-packet messages only)");
		return XMIT_ERROR;
	}
	p.bth.ackreq = true;
	p.imm = PRM_GET(wqe_segment_ctrl_send, immediate, wqe);
	PRM_SET(queue_pair_ee_context_entry, next_send_psn, qpc, (psn + 1) & 0xffffff);
	QP_WAIT(h, qpn) = 1;
	rc_emit(h, port, &p, h->scratch, plen);
	return XMIT_WAIT;
}

/* Requester side: an ACK/NAK or a read response for the request in flight. */
static void rc_response(struct hcasim *h, uint32_t qpn, uint8_t *qpc, const struct iblib_pkt *p,
			const uint8_t *buf)
{
	uint8_t wqe[HCASIM_MAX_WQE];
	struct hcasim_wq w;
	uint16_t counter = (uint16_t)PRM_GET(queue_pair_ee_context_entry, sq_wqe_counter, qpc);
	uint32_t want = (PRM_GET(queue_pair_ee_context_entry, next_send_psn, qpc) - 1) & 0xffffff;
	size_t len;
	unsigned synd = 0;

	if (!QP_WAIT(h, qpn) || p->bth.psn != want)
		return; /* stale or duplicate response */
	hcasim_wq_geom(qpc, true, &w);
	len = w.stride > HCASIM_MAX_WQE ? HCASIM_MAX_WQE : w.stride;
	if (hcasim_wq_read(h, &w, counter, wqe, len) < 0) {
		hcasim_catastrophe(h, "send queue not translatable");
		return;
	}
	QP_WAIT(h, qpn) = 0;
	if (p->ext & IBLIB_EXT_AETH && (p->aeth.syndrome & 0x60) != 0) {
		synd = p->aeth.syndrome == IBLIB_AETH_NAK_REMOTE_ACCESS ? SYND_REMOTE_ACCESS :
		       p->aeth.syndrome == IBLIB_AETH_NAK_INVALID_REQ ? SYND_REMOTE_INVAL_REQ :
		       (p->aeth.syndrome & 0x60) == 0x20 ? 0x16 /* RNR retry exceeded */ : SYND_REMOTE_OP;
	} else if (p->bth.opcode == IBLIB_OP_RC_RDMA_READ_RESP_ONLY) {
		size_t ds = HERMONPRM_WQE_SEGMENT_CTRL_SEND_ST_BYTES + HERMONPRM_WQE_SEGMENT_REMOTE_ADDRESS_ST_BYTES;
		size_t dlen = PRM_GET(wqe_segment_ctrl_send, ds, wqe) * 16u;

		if (hcasim_scatter(h, qpc, wqe + ds, (dlen > ds ? dlen : ds) - ds, buf + p->payload_off,
				   p->payload_len, 0, NULL))
			synd = SYND_LOCAL_PROT;
	}
	hcasim_sq_complete(h, qpn, qpc, wqe, (uint32_t)p->payload_len, synd);
	if (synd) {
		hcasim_qp_to_error(h, qpn, qpc, "RC request failed at the responder");
		return;
	}
	hcasim_sq_doorbell(h, PRM_GET(queue_pair_ee_context_entry, usr_page, qpc), qpn);
}

static int rc_recv_send(struct hcasim *h, uint32_t qpn, uint8_t *qpc, const struct iblib_pkt *p,
			const uint8_t *buf, bool consume_only)
{
	uint8_t wqe[HCASIM_MAX_WQE];
	struct hcasim_cqe_info ci = { .qpn = qpn };
	size_t wlen;
	uint16_t counter;
	int rc = hcasim_rq_take(h, qpc, &counter, wqe, &wlen);

	if (rc)
		return rc < 0 ? -1 : 1; /* 1: receiver not ready */
	ci.wqe_counter = counter;
	if (!consume_only &&
	    hcasim_scatter(h, qpc, wqe, wlen, buf + p->payload_off, p->payload_len, 0, NULL)) {
		ci.error = true;
		ci.syndrome = SYND_LOCAL_PROT;
		hcasim_cq_post(h, PRM_GET(queue_pair_ee_context_entry, cqn_rcv, qpc), &ci);
		return 2;
	}
	ci.opcode = consume_only ? CQE_RECV_RDMA_WRITE_IMM :
		    p->bth.opcode == IBLIB_OP_RC_SEND_ONLY_IMM ? CQE_RECV_SEND_IMM : CQE_RECV_SEND;
	ci.imm = p->imm;
	ci.byte_cnt = (uint32_t)p->payload_len;
	ci.slid = p->lrh.slid;
	ci.sl = p->lrh.sl;
	hcasim_cq_post(h, PRM_GET(queue_pair_ee_context_entry, cqn_rcv, qpc), &ci);
	return 0;
}

static void rc_read(struct hcasim *h, unsigned port, uint32_t qpn, uint8_t *qpc,
		    const struct iblib_pkt *p)
{
	uint32_t pd = PRM_GET(queue_pair_ee_context_entry, pd, qpc);
	unsigned mtu = hcasim_mtu_bytes(PRM_GET(queue_pair_ee_context_entry, mtu, qpc));
	uint8_t *data = h->rxdata;
	struct iblib_pkt r;
	int rc = TPT_ACCESS;

	if (p->reth.dma_len > mtu) {
		send_ack(h, port, qpc, p->bth.psn, IBLIB_AETH_NAK_INVALID_REQ);
		return;
	}
	if (PRM_GET(queue_pair_ee_context_entry, rre, qpc))
		rc = hcasim_tpt_access(h, p->reth.rkey, pd, p->reth.va, p->reth.dma_len, ACC_RR, false, data);
	if (rc) {
		hcasim_refuse(h, "QP %#x: remote READ R_Key %#x va %#llx len %u refused: %s", qpn,
			      p->reth.rkey, (unsigned long long)p->reth.va, p->reth.dma_len,
			      PRM_GET(queue_pair_ee_context_entry, rre, qpc) ? hcasim_tpt_why(rc)
									    : "remote read disabled on the QP");
		send_ack(h, port, qpc, p->bth.psn, IBLIB_AETH_NAK_REMOTE_ACCESS);
		return;
	}
	rc_headers(h, port, qpc, &r, IBLIB_OP_RC_RDMA_READ_RESP_ONLY, p->bth.psn);
	r.aeth.syndrome = IBLIB_AETH_ACK(IBLIB_AETH_CREDITS_INVALID);
	r.aeth.msn = PRM_GET(queue_pair_ee_context_entry, rmsn, qpc);
	rc_emit(h, port, &r, data, p->reth.dma_len);
}

/* Returns false when the request must be retried with the same PSN (RNR). */
static bool rc_write(struct hcasim *h, unsigned port, uint32_t qpn, uint8_t *qpc,
		     const struct iblib_pkt *p, const uint8_t *buf)
{
	uint32_t pd = PRM_GET(queue_pair_ee_context_entry, pd, qpc);
	int rc = TPT_ACCESS;

	if (p->payload_len != p->reth.dma_len) {
		send_ack(h, port, qpc, p->bth.psn, IBLIB_AETH_NAK_INVALID_REQ);
		return true;
	}
	if (p->bth.opcode == IBLIB_OP_RC_RDMA_WRITE_ONLY_IMM && hcasim_rq_posted(h, qpc) <= 0) {
		send_ack(h, port, qpc, p->bth.psn, IBLIB_AETH_RNR_NAK(PRM_GET(queue_pair_ee_context_entry, min_rnr_nak, qpc)));
		return false;
	}
	if (PRM_GET(queue_pair_ee_context_entry, rwe, qpc))
		rc = hcasim_tpt_access(h, p->reth.rkey, pd, p->reth.va, p->reth.dma_len, ACC_RW, true,
				       (void *)(buf + p->payload_off));
	if (rc) {
		hcasim_refuse(h, "QP %#x: remote WRITE R_Key %#x va %#llx len %u refused: %s", qpn,
			      p->reth.rkey, (unsigned long long)p->reth.va, p->reth.dma_len,
			      PRM_GET(queue_pair_ee_context_entry, rwe, qpc) ? hcasim_tpt_why(rc)
									    : "remote write disabled on the QP");
		send_ack(h, port, qpc, p->bth.psn, IBLIB_AETH_NAK_REMOTE_ACCESS);
		return true;
	}
	if (p->bth.opcode == IBLIB_OP_RC_RDMA_WRITE_ONLY_IMM)
		rc_recv_send(h, qpn, qpc, p, buf, true);
	send_ack(h, port, qpc, p->bth.psn, IBLIB_AETH_ACK(IBLIB_AETH_CREDITS_INVALID));
	return true;
}

void hcasim_rc_receive(struct hcasim *h, unsigned port, const struct iblib_pkt *p, const uint8_t *buf)
{
	uint32_t qpn = p->bth.dest_qp;
	uint8_t qpc[QPC_BYTES];
	uint32_t epsn;
	unsigned st;

	if (qpn > HCASIM_QPN_MAX || (st = QP_STATE(h, qpn)) < QPS_RTR || st == QPS_ERR ||
	    hcasim_qpc_load(h, qpn, qpc) < 0 || PRM_GET(queue_pair_ee_context_entry, st, qpc) != QPST_RC ||
	    PRM_GET(queue_pair_ee_context_entry, local_qpn_een, qpc) != qpn ||
	    hcasim_port_of_qp(h, qpc, qpn) != (int)port) {
		h->port[port - 1].rx_no_qp++;
		return;
	}
	if (!hcasim_pkey_ok(p->bth.pkey, hcasim_sma_pkey(h->sma, port, PRM_GET(address_path, pkey_index,
				PRM_SUB(queue_pair_ee_context_entry, primary_address_path, qpc))))) {
		h->port[port - 1].rx_bad_pkey++;
		hcasim_sma_count_pkey_violation(h->sma, port);
		return;
	}
	if (p->bth.opcode >= IBLIB_OP_RC_RDMA_READ_RESP_FIRST && p->bth.opcode <= IBLIB_OP_RC_ACKNOWLEDGE) {
		rc_response(h, qpn, qpc, p, buf);
		goto store;
	}
	epsn = PRM_GET(queue_pair_ee_context_entry, next_rcv_psn, qpc);
	if (p->bth.psn != epsn) {
		/* out of order (no retransmission modelled): NAK sequence error for a future PSN,
		 * ignore a duplicate */
		if (((p->bth.psn - epsn) & 0xffffff) < 0x800000)
			send_ack(h, port, qpc, epsn, IBLIB_AETH_NAK_PSN_SEQ_ERR);
		goto store;
	}
	switch (p->bth.opcode) {
	case IBLIB_OP_RC_SEND_ONLY: case IBLIB_OP_RC_SEND_ONLY_IMM: {
		int rc = rc_recv_send(h, qpn, qpc, p, buf, false);

		if (rc == 1) {
			send_ack(h, port, qpc, p->bth.psn, IBLIB_AETH_RNR_NAK(PRM_GET(queue_pair_ee_context_entry, min_rnr_nak, qpc)));
			goto store;
		}
		send_ack(h, port, qpc, p->bth.psn, rc ? IBLIB_AETH_NAK_REMOTE_OP_ERR
						       : IBLIB_AETH_ACK(IBLIB_AETH_CREDITS_INVALID));
		break;
	}
	case IBLIB_OP_RC_RDMA_WRITE_ONLY: case IBLIB_OP_RC_RDMA_WRITE_ONLY_IMM:
		if (!rc_write(h, port, qpn, qpc, p, buf))
			goto store;
		break;
	case IBLIB_OP_RC_RDMA_READ_REQUEST:
		rc_read(h, port, qpn, qpc, p);
		break;
	default:
		hcasim_refuse(h, "QP %#x: RC opcode %#x (multi-packet/atomic) not modelled: NAK", qpn,
			      p->bth.opcode);
		send_ack(h, port, qpc, p->bth.psn, IBLIB_AETH_NAK_INVALID_REQ);
		break;
	}
	PRM_SET(queue_pair_ee_context_entry, next_rcv_psn, qpc, (epsn + 1) & 0xffffff);
store:
	if (QP_STATE(h, qpn) != QPS_ERR && hcasim_qpc_store(h, qpn, qpc) < 0)
		hcasim_catastrophe(h, "QP context in unmapped ICM");
}

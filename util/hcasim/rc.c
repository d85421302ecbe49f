/* SPDX-License-Identifier: MIT */
/*
 * Reliable connected transport, enough to prove remote access is enforced.
 *
 * Responder: SEND and RDMA WRITE (ONLY, or FIRST/MIDDLE/LAST, with or without immediate) and
 * RDMA READ requests (answered in MTU-sized responses), in PSN order. Every remote access goes
 * through the R_Key check of tpt.c with the QP's PD; a WRITE/READ into a region without rw/rr,
 * or while the QP's rwe/rre is clear, is answered with NAK "remote access error"
 * (IBA 9.7.5.1.3) and logged — the memory is never touched. A SEND with no posted receive gets
 * an RNR NAK. Atomics are NAK'd (invalid request).
 * Requester: one message in flight per QP (stop and wait, no retransmission); the WQE completes
 * when the ACK / last read response arrives, with an error CQE on a NAK.
 */
#include <stdlib.h>
#include <string.h>

#include <ibboot/wire/packet.h>

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

#define RC_MAX_MSG (1u << 20) /* largest RC message the model segments or reassembles */

static unsigned npkts_of(size_t len, unsigned mtu)
{
	return len ? (unsigned)((len + mtu - 1) / mtu) : 1;
}

/* Packet i of n of a SEND or RDMA WRITE message: FIRST / MIDDLE / LAST / ONLY opcodes. */
static uint8_t seg_opcode(unsigned wqe_op, unsigned i, unsigned n)
{
	bool send = wqe_op == WQE_SEND || wqe_op == WQE_SEND_IMM;
	bool imm = wqe_op == WQE_SEND_IMM || wqe_op == WQE_RDMA_WRITE_IMM;

	if (n == 1)
		return send ? (imm ? IBLIB_OP_RC_SEND_ONLY_IMM : IBLIB_OP_RC_SEND_ONLY)
			    : (imm ? IBLIB_OP_RC_RDMA_WRITE_ONLY_IMM : IBLIB_OP_RC_RDMA_WRITE_ONLY);
	if (i == 0)
		return send ? IBLIB_OP_RC_SEND_FIRST : IBLIB_OP_RC_RDMA_WRITE_FIRST;
	if (i + 1 < n)
		return send ? IBLIB_OP_RC_SEND_MIDDLE : IBLIB_OP_RC_RDMA_WRITE_MIDDLE;
	return send ? (imm ? IBLIB_OP_RC_SEND_LAST_IMM : IBLIB_OP_RC_SEND_LAST)
		    : (imm ? IBLIB_OP_RC_RDMA_WRITE_LAST_IMM : IBLIB_OP_RC_RDMA_WRITE_LAST);
}

/* Requester: one message in flight per QP (stop and wait). The message is cut into MTU-sized
 * packets; only the last asks for an ACK. The first PSN of the message is kept in the QPC's
 * last_acked_psn so responses can be placed without other state. */
int hcasim_rc_send(struct hcasim *h, uint32_t qpn, uint8_t *qpc, const uint8_t *wqe, size_t len)
{
	unsigned opcode = PRM_GET(wqe_segment_ctrl_send, opcode, wqe), port, n;
	unsigned mtu = hcasim_mtu_bytes(PRM_GET(queue_pair_ee_context_entry, mtu, qpc));
	uint32_t psn = PRM_GET(queue_pair_ee_context_entry, next_send_psn, qpc);
	const uint8_t *ra = wqe + HERMONPRM_WQE_SEGMENT_CTRL_SEND_ST_BYTES;
	size_t off = HERMONPRM_WQE_SEGMENT_CTRL_SEND_ST_BYTES, plen = 0;
	struct iblib_pkt p;
	uint8_t *msg = NULL;
	int rc = 0;

	port = (unsigned)hcasim_port_of_qp(h, qpc, qpn);
	switch (opcode) {
	case WQE_SEND: case WQE_SEND_IMM:
		break;
	case WQE_RDMA_WRITE: case WQE_RDMA_WRITE_IMM: case WQE_RDMA_READ:
		off += HERMONPRM_WQE_SEGMENT_REMOTE_ADDRESS_ST_BYTES;
		break;
	default:
		hcasim_sq_complete(h, qpn, qpc, wqe, 0, HERMON_SYND_LOCAL_QP_OP);
		hcasim_qp_to_error(h, qpn, qpc, "RC opcode not modelled");
		return XMIT_ERROR;
	}
	if (opcode == WQE_RDMA_READ) {
		/* the data segments are the local destination: only their total length goes out */
		for (size_t o = off; o + 16 <= len; o += 16)
			plen += PRM_GET(wqe_segment_data_ptr, byte_count, wqe + o);
		rc = plen > RC_MAX_MSG ? GATHER_LENGTH : 0;
	} else {
		msg = malloc(RC_MAX_MSG);
		rc = msg ? hcasim_gather(h, qpc, wqe, off, len, msg, RC_MAX_MSG, &plen) : GATHER_LENGTH;
	}
	if (rc) {
		free(msg);
		hcasim_sq_complete(h, qpn, qpc, wqe, 0, rc == GATHER_LENGTH ? HERMON_SYND_LOCAL_LENGTH : HERMON_SYND_LOCAL_PROT);
		hcasim_qp_to_error(h, qpn, qpc, "RC request gather failed");
		return XMIT_ERROR;
	}
	n = npkts_of(plen, mtu);
	for (unsigned i = 0; i < (opcode == WQE_RDMA_READ ? 1 : n); i++) {
		size_t chunk = plen - (size_t)i * mtu < mtu ? plen - (size_t)i * mtu : mtu;

		rc_headers(h, port, qpc, &p, opcode == WQE_RDMA_READ ? IBLIB_OP_RC_RDMA_READ_REQUEST
								    : seg_opcode(opcode, i, n), psn + i);
		p.reth.va = (uint64_t)PRM_GET(wqe_segment_remote_address, remote_virt_addr_h, ra) << 32 |
			    PRM_GET(wqe_segment_remote_address, remote_virt_addr_l, ra);
		p.reth.rkey = PRM_GET(wqe_segment_remote_address, rkey, ra);
		p.reth.dma_len = (uint32_t)plen;
		p.imm = PRM_GET(wqe_segment_ctrl_send, immediate, wqe);
		p.bth.ackreq = i + 1 == n || opcode == WQE_RDMA_READ;
		rc_emit(h, port, &p, msg ? msg + (size_t)i * mtu : NULL, opcode == WQE_RDMA_READ ? 0 : chunk);
	}
	free(msg);
	/* a READ request takes one PSN per response packet (IBA 9.7.1) */
	PRM_SET(queue_pair_ee_context_entry, last_acked_psn, qpc, psn);
	PRM_SET(queue_pair_ee_context_entry, next_send_psn, qpc, (psn + n) & 0xffffff);
	QP_WAIT(h, qpn) = 1;
	return XMIT_WAIT;
}

static bool is_read_response(uint8_t op)
{
	return op >= IBLIB_OP_RC_RDMA_READ_RESP_FIRST && op <= IBLIB_OP_RC_RDMA_READ_RESP_ONLY;
}

/* Requester side: an ACK/NAK or a read response for the message in flight. */
static void rc_response(struct hcasim *h, uint32_t qpn, uint8_t *qpc, const struct iblib_pkt *p,
			const uint8_t *buf)
{
	uint8_t wqe[HCASIM_MAX_WQE];
	struct hcasim_wq w;
	uint16_t counter = (uint16_t)PRM_GET(queue_pair_ee_context_entry, sq_wqe_counter, qpc);
	uint32_t last = (PRM_GET(queue_pair_ee_context_entry, next_send_psn, qpc) - 1) & 0xffffff;
	uint32_t first = PRM_GET(queue_pair_ee_context_entry, last_acked_psn, qpc);
	uint32_t idx = (p->bth.psn - first) & 0xffffff;
	unsigned mtu = hcasim_mtu_bytes(PRM_GET(queue_pair_ee_context_entry, mtu, qpc));
	bool nak = (p->ext & IBLIB_EXT_AETH) && (p->aeth.syndrome & 0x60) != 0;
	size_t len;
	unsigned synd = 0;

	if (!QP_WAIT(h, qpn) || idx > ((last - first) & 0xffffff))
		return; /* stale or duplicate response */
	if (!nak && !is_read_response(p->bth.opcode) && p->bth.psn != last)
		return; /* ACK of an earlier packet of the message: the last one completes it */
	hcasim_wq_geom(qpc, true, &w);
	len = w.stride > HCASIM_MAX_WQE ? HCASIM_MAX_WQE : w.stride;
	if (hcasim_wq_read(h, &w, counter, wqe, len) < 0) {
		hcasim_catastrophe(h, "send queue not translatable");
		return;
	}
	if (nak) {
		synd = p->aeth.syndrome == IBLIB_AETH_NAK_REMOTE_ACCESS ? HERMON_SYND_REMOTE_ACCESS :
		       p->aeth.syndrome == IBLIB_AETH_NAK_INVALID_REQ ? HERMON_SYND_REMOTE_INVAL_REQ :
		       (p->aeth.syndrome & 0x60) == 0x20 ? HERMON_SYND_RNR_RETRY : HERMON_SYND_REMOTE_OP;
	} else if (is_read_response(p->bth.opcode)) {
		size_t ds = HERMONPRM_WQE_SEGMENT_CTRL_SEND_ST_BYTES + HERMONPRM_WQE_SEGMENT_REMOTE_ADDRESS_ST_BYTES;
		size_t dlen = PRM_GET(wqe_segment_ctrl_send, ds, wqe) * 16u;

		if (hcasim_scatter(h, qpc, wqe + ds, (dlen > ds ? dlen : ds) - ds, buf + p->payload_off,
				   p->payload_len, (size_t)idx * mtu, NULL))
			synd = HERMON_SYND_LOCAL_PROT;
		else if (p->bth.psn != last)
			return; /* more response packets to come */
	}
	QP_WAIT(h, qpn) = 0;
	hcasim_sq_complete(h, qpn, qpc, wqe, (uint32_t)p->payload_len, synd);
	if (synd) {
		hcasim_qp_to_error(h, qpn, qpc, "RC request failed at the responder");
		return;
	}
	hcasim_sq_doorbell(h, PRM_GET(queue_pair_ee_context_entry, usr_page, qpc), qpn);
}

static struct hcasim_rc_rx *rx_slot(struct hcasim *h, uint32_t qpn, bool create)
{
	struct hcasim_rc_rx *free_slot = NULL;

	for (unsigned i = 0; i < HCASIM_RC_RX_SLOTS; i++) {
		struct hcasim_rc_rx *r = &h->rc_rx[i];

		if (r->busy && r->qpn == qpn)
			return r;
		if (!r->busy && !free_slot)
			free_slot = r;
	}
	if (!create || !free_slot)
		return NULL;
	memset(free_slot, 0, sizeof(*free_slot));
	free_slot->busy = true;
	free_slot->qpn = qpn;
	return free_slot;
}

static void post_recv_cqe(struct hcasim *h, uint32_t qpn, uint8_t *qpc, const struct iblib_pkt *p,
			  uint16_t counter, unsigned opcode, uint32_t bytes)
{
	struct hcasim_cqe_info ci = { .qpn = qpn, .wqe_counter = counter, .opcode = opcode,
				      .imm = p->imm, .byte_cnt = bytes, .slid = p->lrh.slid,
				      .sl = p->lrh.sl };

	hcasim_cq_post(h, PRM_GET(queue_pair_ee_context_entry, cqn_rcv, qpc), &ci);
}

/* SEND ONLY/FIRST/MIDDLE/LAST (+IMM). Returns the AETH syndrome to answer with, 0xff for "no
 * answer" (a FIRST/MIDDLE without AckReq), and *advance tells whether the PSN was consumed. */
static uint8_t rc_recv_send(struct hcasim *h, uint32_t qpn, uint8_t *qpc, const struct iblib_pkt *p,
			    const uint8_t *buf, bool *advance)
{
	uint8_t op = p->bth.opcode;
	bool first = op == IBLIB_OP_RC_SEND_FIRST || op == IBLIB_OP_RC_SEND_ONLY ||
		     op == IBLIB_OP_RC_SEND_ONLY_IMM;
	bool last = op != IBLIB_OP_RC_SEND_FIRST && op != IBLIB_OP_RC_SEND_MIDDLE;
	uint8_t rnr = IBLIB_AETH_RNR_NAK(PRM_GET(queue_pair_ee_context_entry, min_rnr_nak, qpc));
	struct hcasim_rc_rx *r = rx_slot(h, qpn, first);
	struct hcasim_cqe_info ci = { .qpn = qpn, .error = true, .syndrome = HERMON_SYND_LOCAL_PROT };

	*advance = false;
	if (!r)
		return first ? IBLIB_AETH_NAK_REMOTE_OP_ERR : IBLIB_AETH_NAK_INVALID_REQ;
	if (first) {
		int rc = hcasim_rq_take(h, qpc, &r->counter, r->wqe, &r->wlen);

		if (rc) {
			r->busy = false;
			return rc < 0 ? IBLIB_AETH_NAK_REMOTE_OP_ERR : rnr;
		}
		r->write = false;
		r->done = 0;
	} else if (r->write) {
		r->busy = false;
		return IBLIB_AETH_NAK_INVALID_REQ;
	}
	*advance = true;
	if (hcasim_scatter(h, qpc, r->wqe, r->wlen, buf + p->payload_off, p->payload_len, r->done, NULL)) {
		r->busy = false;
		ci.wqe_counter = r->counter;
		hcasim_cq_post(h, PRM_GET(queue_pair_ee_context_entry, cqn_rcv, qpc), &ci);
		return IBLIB_AETH_NAK_REMOTE_OP_ERR;
	}
	r->done += (uint32_t)p->payload_len;
	if (!last)
		return p->bth.ackreq ? IBLIB_AETH_ACK(IBLIB_AETH_CREDITS_INVALID) : 0xff;
	r->busy = false;
	post_recv_cqe(h, qpn, qpc, p, r->counter,
		      op == IBLIB_OP_RC_SEND_ONLY_IMM || op == IBLIB_OP_RC_SEND_LAST_IMM ? CQE_RECV_SEND_IMM
											 : CQE_RECV_SEND,
		      r->done);
	return IBLIB_AETH_ACK(IBLIB_AETH_CREDITS_INVALID);
}

/* RDMA READ request: up to RC_MAX_MSG, answered with ONLY or FIRST/MIDDLE/LAST responses.
 * Returns the number of PSNs the request consumed (one per response packet). */
static unsigned rc_read(struct hcasim *h, unsigned port, uint32_t qpn, uint8_t *qpc,
			const struct iblib_pkt *p)
{
	uint32_t pd = PRM_GET(queue_pair_ee_context_entry, pd, qpc);
	unsigned mtu = hcasim_mtu_bytes(PRM_GET(queue_pair_ee_context_entry, mtu, qpc));
	unsigned n = npkts_of(p->reth.dma_len, mtu);
	uint8_t *data;
	struct iblib_pkt r;
	int rc = TPT_ACCESS;

	if (p->reth.dma_len > RC_MAX_MSG || !(data = malloc(p->reth.dma_len ? p->reth.dma_len : 1))) {
		send_ack(h, port, qpc, p->bth.psn, IBLIB_AETH_NAK_INVALID_REQ);
		return 1;
	}
	if (PRM_GET(queue_pair_ee_context_entry, rre, qpc))
		rc = hcasim_tpt_access(h, p->reth.rkey, pd, p->reth.va, p->reth.dma_len, ACC_RR, false, data);
	if (rc) {
		hcasim_refuse(h, "QP %#x: remote READ R_Key %#x va %#llx len %u refused: %s", qpn,
			      p->reth.rkey, (unsigned long long)p->reth.va, p->reth.dma_len,
			      PRM_GET(queue_pair_ee_context_entry, rre, qpc) ? hcasim_tpt_why(rc)
									    : "remote read disabled on the QP");
		send_ack(h, port, qpc, p->bth.psn, IBLIB_AETH_NAK_REMOTE_ACCESS);
		free(data);
		return 1;
	}
	for (unsigned i = 0; i < n; i++) {
		size_t off = (size_t)i * mtu, chunk = p->reth.dma_len - off < mtu ? p->reth.dma_len - off : mtu;
		uint8_t op = n == 1 ? IBLIB_OP_RC_RDMA_READ_RESP_ONLY :
			     i == 0 ? IBLIB_OP_RC_RDMA_READ_RESP_FIRST :
			     i + 1 < n ? IBLIB_OP_RC_RDMA_READ_RESP_MIDDLE : IBLIB_OP_RC_RDMA_READ_RESP_LAST;

		rc_headers(h, port, qpc, &r, op, p->bth.psn + i);
		r.aeth.syndrome = IBLIB_AETH_ACK(IBLIB_AETH_CREDITS_INVALID);
		r.aeth.msn = PRM_GET(queue_pair_ee_context_entry, rmsn, qpc);
		rc_emit(h, port, &r, data + off, chunk);
	}
	free(data);
	return n;
}

/* RDMA WRITE ONLY/FIRST/MIDDLE/LAST (+IMM). The whole target range is checked at the first
 * packet, so a refused write never lands a single byte. Same return convention as SEND. */
static uint8_t rc_write(struct hcasim *h, uint32_t qpn, uint8_t *qpc, const struct iblib_pkt *p,
			const uint8_t *buf, bool *advance)
{
	uint8_t op = p->bth.opcode;
	uint32_t pd = PRM_GET(queue_pair_ee_context_entry, pd, qpc);
	bool first = op == IBLIB_OP_RC_RDMA_WRITE_FIRST || op == IBLIB_OP_RC_RDMA_WRITE_ONLY ||
		     op == IBLIB_OP_RC_RDMA_WRITE_ONLY_IMM;
	bool last = op != IBLIB_OP_RC_RDMA_WRITE_FIRST && op != IBLIB_OP_RC_RDMA_WRITE_MIDDLE;
	bool imm = op == IBLIB_OP_RC_RDMA_WRITE_ONLY_IMM || op == IBLIB_OP_RC_RDMA_WRITE_LAST_IMM;
	struct hcasim_rc_rx *r = rx_slot(h, qpn, first);
	int rc = TPT_ACCESS;

	*advance = true;
	if (!r)
		return first ? IBLIB_AETH_NAK_REMOTE_OP_ERR : IBLIB_AETH_NAK_INVALID_REQ;
	if (first) {
		r->write = true;
		r->va = p->reth.va;
		r->rkey = p->reth.rkey;
		r->total = p->reth.dma_len;
		r->done = 0;
		if (PRM_GET(queue_pair_ee_context_entry, rwe, qpc))
			rc = hcasim_tpt_check(h, r->rkey, pd, r->va, r->total, ACC_RW);
		if (rc) {
			hcasim_refuse(h, "QP %#x: remote WRITE R_Key %#x va %#llx len %u refused: %s", qpn,
				      r->rkey, (unsigned long long)r->va, r->total,
				      PRM_GET(queue_pair_ee_context_entry, rwe, qpc) ? hcasim_tpt_why(rc)
										    : "remote write disabled on the QP");
			r->busy = false;
			return IBLIB_AETH_NAK_REMOTE_ACCESS;
		}
	} else if (!r->write) {
		r->busy = false;
		return IBLIB_AETH_NAK_INVALID_REQ;
	}
	if (r->done + p->payload_len > r->total || (last && r->done + p->payload_len != r->total)) {
		r->busy = false;
		return IBLIB_AETH_NAK_INVALID_REQ;
	}
	if (imm && hcasim_rq_posted(h, qpc) <= 0) {
		*advance = false; /* RNR: the requester retries this PSN; keep the slot as it was */
		if (first)
			r->busy = false;
		return IBLIB_AETH_RNR_NAK(PRM_GET(queue_pair_ee_context_entry, min_rnr_nak, qpc));
	}
	rc = hcasim_tpt_access(h, r->rkey, pd, r->va + r->done, (uint32_t)p->payload_len, ACC_RW, true,
			       (void *)(buf + p->payload_off));
	if (rc) {
		r->busy = false;
		return IBLIB_AETH_NAK_REMOTE_ACCESS;
	}
	r->done += (uint32_t)p->payload_len;
	if (!last)
		return p->bth.ackreq ? IBLIB_AETH_ACK(IBLIB_AETH_CREDITS_INVALID) : 0xff;
	r->busy = false;
	if (imm) {
		uint8_t wqe[HCASIM_MAX_WQE];
		size_t wlen;
		uint16_t counter;

		if (hcasim_rq_take(h, qpc, &counter, wqe, &wlen) == 0)
			post_recv_cqe(h, qpn, qpc, p, counter, CQE_RECV_RDMA_WRITE_IMM, r->done);
	}
	return IBLIB_AETH_ACK(IBLIB_AETH_CREDITS_INVALID);
}

void hcasim_rc_receive(struct hcasim *h, unsigned port, const struct iblib_pkt *p, const uint8_t *buf)
{
	uint32_t qpn = p->bth.dest_qp;
	uint8_t qpc[QPC_BYTES], op = p->bth.opcode, ack = 0xff;
	uint32_t epsn;
	unsigned st, consumed = 0;
	bool advance = false;

	if ((st = QP_STATE(h, qpn)) < QPS_RTR || st == QPS_ERR || hcasim_qpc_load(h, qpn, qpc) < 0 ||
	    PRM_GET(queue_pair_ee_context_entry, st, qpc) != QPST_RC ||
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
	if (is_read_response(op) || op == IBLIB_OP_RC_ACKNOWLEDGE) {
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
	if (op <= IBLIB_OP_RC_SEND_ONLY_IMM) {
		ack = rc_recv_send(h, qpn, qpc, p, buf, &advance);
	} else if (op <= IBLIB_OP_RC_RDMA_WRITE_ONLY_IMM) {
		ack = rc_write(h, qpn, qpc, p, buf, &advance);
	} else if (op == IBLIB_OP_RC_RDMA_READ_REQUEST) {
		consumed = rc_read(h, port, qpn, qpc, p);
	} else {
		hcasim_refuse(h, "QP %#x: RC opcode %#x (atomics) not modelled: NAK", qpn, op);
		ack = IBLIB_AETH_NAK_INVALID_REQ;
		advance = true;
	}
	if (ack != 0xff)
		send_ack(h, port, qpc, p->bth.psn, ack);
	if (advance)
		consumed = 1;
	PRM_SET(queue_pair_ee_context_entry, next_rcv_psn, qpc, (epsn + consumed) & 0xffffff);
store:
	if (QP_STATE(h, qpn) != QPS_ERR && hcasim_qpc_store(h, qpn, qpc) < 0)
		hcasim_catastrophe(h, "QP context in unmapped ICM");
}

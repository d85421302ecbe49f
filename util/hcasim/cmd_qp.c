/* SPDX-License-Identifier: MIT */
/*
 * QP state transitions: RST2INIT, INIT2INIT, INIT2RTR, RTR2RTS, RTS2RTS, SQERR2RTS, 2ERR, 2RST,
 * and QUERY_QP. Mailbox = qp_ee_state_transitions (opt_param_mask, reserved dword, QPC).
 *
 * RST2INIT takes the whole context. Later transitions take the fields that transition defines
 * (INIT2RTR: MTU, message size, remote QPN, primary path, receive PSN, responder resources;
 * RTR2RTS: send PSN, retry counts, ACK timeout, initiator depth) plus the optional ones named in
 * opt_param_mask (bit numbers as Linux mlx4 names them). A transition from the wrong state fails
 * with "bad QP state" and changes nothing.
 */
#include <string.h>

#include "hcasim_int.h"

#define QPC_BYTES HERMONPRM_QUEUE_PAIR_EE_CONTEXT_ENTRY_ST_BYTES

enum {
	OPT_ALT_PATH = 1 << 0, OPT_RRE = 1 << 1, OPT_RAE = 1 << 2, OPT_RWE = 1 << 3,
	OPT_PKEY_INDEX = 1 << 4, OPT_Q_KEY = 1 << 5, OPT_RNR_TIMEOUT = 1 << 6,
	OPT_PRIMARY_PATH = 1 << 7, OPT_SRA_MAX = 1 << 8, OPT_RRA_MAX = 1 << 9,
	OPT_RETRY_COUNT = 1 << 12, OPT_RNR_RETRY = 1 << 13, OPT_ACK_TIMEOUT = 1 << 14,
	OPT_SCHED_QUEUE = 1 << 16,
};

static const char *const qps_name[] = { "RST", "INIT", "RTR", "RTS", "SQER", "SQD", "ERR" };

const char *hcasim_qp_state_name(unsigned s)
{
	return s < 7 ? qps_name[s] : "?";
}

int hcasim_qpc_load(struct hcasim *h, uint32_t qpn, uint8_t qpc[QPC_BYTES])
{
	return hcasim_icm_read(h, hcasim_qpc_va(h, qpn), qpc, QPC_BYTES);
}

int hcasim_qpc_store(struct hcasim *h, uint32_t qpn, const uint8_t *qpc)
{
	return hcasim_icm_write(h, hcasim_qpc_va(h, qpn), qpc, QPC_BYTES);
}

/* QP0/QP1 of the special block: returns 0 or 1 (and the port), or 2 for an ordinary QP. */
uint32_t hcasim_qp_special(struct hcasim *h, uint32_t qpn, unsigned *port)
{
	if (!h->special_qp_set || qpn < h->special_qp_base || qpn >= h->special_qp_base + 4)
		return 2;
	*port = (qpn - h->special_qp_base) % 2 + 1;
	return (qpn - h->special_qp_base) / 2;
}

/* The physical port a QP sends on: sched_queue bit 6 of the primary path (Hermon encodes the
 * port there: 0x83 | (port-1) << 6, as iPXE and Linux program it); special QPs by number. */
int hcasim_port_of_qp(struct hcasim *h, const uint8_t *qpc, uint32_t qpn)
{
	unsigned port;

	if (hcasim_qp_special(h, qpn, &port) < 2)
		return (int)port;
	port = ((PRM_GET(address_path, sched_queue,
			 PRM_SUB(queue_pair_ee_context_entry, primary_address_path, qpc)) >> 6) & 1) + 1;
	return port <= h->cfg.num_ports ? (int)port : 1;
}

#define COPY(f) PRM_SET(queue_pair_ee_context_entry, f, cur, PRM_GET(queue_pair_ee_context_entry, f, in))
#define PCOPY(f) PRM_SET(address_path, f, cp, PRM_GET(address_path, f, ip))

static void apply_optional(uint8_t *cur, uint8_t *in, uint32_t mask)
{
	uint8_t *cp = PRM_SUB(queue_pair_ee_context_entry, primary_address_path, cur);
	uint8_t *ip = PRM_SUB(queue_pair_ee_context_entry, primary_address_path, in);

	if (mask & OPT_PRIMARY_PATH)
		memcpy(cp, ip, HERMONPRM_ADDRESS_PATH_ST_BYTES);
	if (mask & OPT_ALT_PATH)
		memcpy(PRM_SUB(queue_pair_ee_context_entry, alternative_address_path, cur),
		       PRM_SUB(queue_pair_ee_context_entry, alternative_address_path, in),
		       HERMONPRM_ADDRESS_PATH_ST_BYTES);
	if (mask & OPT_RRE)
		COPY(rre);
	if (mask & OPT_RWE)
		COPY(rwe);
	if (mask & OPT_RAE)
		COPY(rae);
	if (mask & OPT_PKEY_INDEX)
		PCOPY(pkey_index);
	if (mask & OPT_Q_KEY)
		COPY(q_key);
	if (mask & OPT_RNR_TIMEOUT)
		COPY(min_rnr_nak);
	if (mask & OPT_SRA_MAX)
		COPY(sra_max);
	if (mask & OPT_RRA_MAX)
		COPY(rra_max);
	if (mask & OPT_RETRY_COUNT)
		COPY(retry_count);
	if (mask & OPT_RNR_RETRY)
		COPY(rnr_retry);
	if (mask & OPT_ACK_TIMEOUT)
		PCOPY(ack_timeout);
	if (mask & OPT_SCHED_QUEUE)
		PCOPY(sched_queue);
}

static void init2rtr_fields(uint8_t *cur, uint8_t *in)
{
	COPY(mtu);
	COPY(msg_max);
	COPY(remote_qpn_een);
	COPY(next_rcv_psn);
	COPY(rra_max);
	COPY(min_rnr_nak);
	memcpy(PRM_SUB(queue_pair_ee_context_entry, primary_address_path, cur),
	       PRM_SUB(queue_pair_ee_context_entry, primary_address_path, in),
	       HERMONPRM_ADDRESS_PATH_ST_BYTES);
}

static void rtr2rts_fields(uint8_t *cur, uint8_t *in)
{
	uint8_t *cp = PRM_SUB(queue_pair_ee_context_entry, primary_address_path, cur);
	uint8_t *ip = PRM_SUB(queue_pair_ee_context_entry, primary_address_path, in);

	COPY(next_send_psn);
	COPY(retry_count);
	COPY(rnr_retry);
	COPY(sra_max);
	PCOPY(ack_timeout);
}

/* RST2INIT: validate the whole new context against the device and the other contexts. */
static int check_new_qpc(struct hcasim *h, uint32_t qpn, uint8_t *q)
{
	unsigned st = PRM_GET(queue_pair_ee_context_entry, st, q), port;
	uint32_t scq = PRM_GET(queue_pair_ee_context_entry, cqn_snd, q);
	uint32_t rcq = PRM_GET(queue_pair_ee_context_entry, cqn_rcv, q);
	bool special = hcasim_qp_special(h, qpn, &port) < 2;

	if (st != QPST_RC && st != QPST_UD && st != QPST_MLX && st != QPST_UC) {
		hcasim_refuse(h, "RST2INIT_QP: QP %#x: service type %#x not supported", qpn, st);
		return ST_BAD_PARAM;
	}
	if (!special && hcasim_qp_index(h, qpn) < HCASIM_RSVD_QPS) {
		hcasim_refuse(h, "RST2INIT_QP: QP %#x is one of the firmware's %u reserved QPs", qpn,
			      HCASIM_RSVD_QPS);
		return ST_BAD_PARAM;
	}
	if (PRM_GET(queue_pair_ee_context_entry, srq, q)) {
		hcasim_refuse(h, "RST2INIT_QP: QP %#x: shared receive queues are not modelled", qpn);
		return ST_BAD_PARAM;
	}
	if ((st == QPST_MLX) != special) {
		hcasim_refuse(h, "RST2INIT_QP: QP %#x: MLX transport %s (special QP block at %#x%s)",
			      qpn, special ? "required for QP0/QP1" : "only for QP0/QP1",
			      h->special_qp_base, h->special_qp_set ? "" : ", not configured");
		return ST_BAD_PARAM;
	}
	if (PRM_GET(queue_pair_ee_context_entry, log_sq_size, q) > 14 ||
	    PRM_GET(queue_pair_ee_context_entry, log_rq_size, q) > 14 ||
	    PRM_GET(queue_pair_ee_context_entry, log_sq_stride, q) < 2 ||
	    PRM_GET(queue_pair_ee_context_entry, log2_page_size, q) > 28 ||
	    PRM_GET(queue_pair_ee_context_entry, usr_page, q) >= (1u << h->lay.log_max_uars)) {
		hcasim_refuse(h, "RST2INIT_QP: QP %#x: queue sizes/strides or UAR page invalid", qpn);
		return ST_BAD_PARAM;
	}
	if (scq >= (1u << h->lay.log_num_cq) || !hcasim_bit(h->cq_hw, scq) ||
	    rcq >= (1u << h->lay.log_num_cq) || !hcasim_bit(h->cq_hw, rcq)) {
		hcasim_refuse(h, "RST2INIT_QP: QP %#x: send CQ %#x / receive CQ %#x not in hardware "
			      "ownership", qpn, scq, rcq);
		return ST_BAD_RESOURCE;
	}
	return ST_OK;
}

/* opcode → (allowed source states bitmask, target state) */
static bool transition(unsigned opcode, unsigned from, unsigned *to)
{
	switch (opcode) {
	case OP_RST2INIT_QP: *to = QPS_INIT; return from == QPS_RST;
	case OP_INIT2INIT_QP: *to = QPS_INIT; return from == QPS_INIT;
	case OP_INIT2RTR_QP: *to = QPS_RTR; return from == QPS_INIT;
	case OP_RTR2RTS_QP: *to = QPS_RTS; return from == QPS_RTR;
	case OP_RTS2RTS_QP: *to = QPS_RTS; return from == QPS_RTS;
	case OP_SQERR2RTS_QP: *to = QPS_RTS; return from == QPS_SQER;
	case OP_2ERR_QP: *to = QPS_ERR; return true;
	case OP_2RST_QP: *to = QPS_RST; return true;
	}
	return false;
}

int cmd_qp_modify(struct hcasim *h, struct hcasim_cmd *c)
{
	uint32_t qpn = c->in_mod & 0xffffff;
	unsigned from, to;
	uint8_t cur[QPC_BYTES], *in;
	uint32_t mask;
	int st;

	from = QP_STATE(h, qpn);
	if (!transition(c->opcode, from, &to)) {
		hcasim_refuse(h, "%s: QP %#x is in state %s", hcasim_cmd_name(c->opcode), qpn,
			      hcasim_qp_state_name(from));
		return ST_BAD_QP_STATE;
	}
	if (c->opcode == OP_2RST_QP || c->opcode == OP_2ERR_QP) {
		/* a half-received RC message dies with the connection */
		for (unsigned i = 0; i < HCASIM_RC_RX_SLOTS; i++)
			if (h->rc_rx[i].busy && h->rc_rx[i].qpn == qpn)
				h->rc_rx[i].busy = false;
	}
	if (c->opcode == OP_2RST_QP) {
		QP_STATE(h, qpn) = QPS_RST;
		return ST_OK;
	}
	if (c->opcode == OP_2ERR_QP) {
		if (from == QPS_RST) {
			QP_STATE(h, qpn) = QPS_ERR;
			return ST_OK;
		}
		if (hcasim_qpc_load(h, qpn, cur) < 0)
			return ST_ICM_ERROR;
		hcasim_qp_to_error(h, qpn, cur, "2ERR_QP command");
		return ST_OK;
	}
	st = hcasim_cmd_mbox_in(h, c, HERMONPRM_QP_EE_STATE_TRANSITIONS_ST_BYTES);
	if (st)
		return st;
	mask = PRM_GET(qp_ee_state_transitions, opt_param_mask, c->in);
	in = PRM_SUB(qp_ee_state_transitions, qpc_eec_data, c->in);
	if (c->opcode == OP_RST2INIT_QP) {
		st = check_new_qpc(h, qpn, in);
		if (st)
			return st;
		if (hcasim_cmpt_check(h, 0, hcasim_qp_index(h, qpn)) < 0)
			return ST_ICM_ERROR;
		memcpy(cur, in, QPC_BYTES);
		PRM_SET(queue_pair_ee_context_entry, local_qpn_een, cur, qpn);
		PRM_SET(queue_pair_ee_context_entry, sq_wqe_counter, cur, 0);
		PRM_SET(queue_pair_ee_context_entry, rq_wqe_counter, cur, 0);
	} else {
		if (hcasim_qpc_load(h, qpn, cur) < 0)
			return ST_ICM_ERROR;
		if (c->opcode == OP_INIT2RTR_QP)
			init2rtr_fields(cur, in);
		else if (c->opcode == OP_RTR2RTS_QP)
			rtr2rts_fields(cur, in);
		apply_optional(cur, in, mask);
	}
	PRM_SET(queue_pair_ee_context_entry, state, cur, to);
	if (hcasim_qpc_store(h, qpn, cur) < 0)
		return ST_ICM_ERROR;
	QP_STATE(h, qpn) = (uint8_t)to;
	QP_WAIT(h, qpn) = 0;
	if (to == QPS_RTS)
		hcasim_sq_doorbell(h, PRM_GET(queue_pair_ee_context_entry, usr_page, cur), qpn);
	return ST_OK;
}

int cmd_query_qp(struct hcasim *h, struct hcasim_cmd *c)
{
	uint32_t qpn = c->in_mod & 0xffffff;
	uint8_t *q = PRM_SUB(qp_ee_state_transitions, qpc_eec_data, c->out);

	if (QP_STATE(h, qpn) != QPS_RST && hcasim_qpc_load(h, qpn, q) < 0)
		return ST_ICM_ERROR;
	PRM_SET(queue_pair_ee_context_entry, state, q, QP_STATE(h, qpn));
	c->out_len = HERMONPRM_QP_EE_STATE_TRANSITIONS_ST_BYTES;
	return ST_OK;
}

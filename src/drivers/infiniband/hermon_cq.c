/* SPDX-License-Identifier: MIT */
/*
 * Completion queues and the completion half of the fastpath.
 *
 * A CQE at consumer count c is software's when its owner bit equals (c / size) & 1: the hardware
 * writes the pass parity, so no CQE is mistaken for a new one after the ring wraps. After each CQE
 * the consumer count goes to the CQ doorbell record in host memory (update_ci); the CQ is never
 * armed, so completions raise no events.
 *
 * Error CQEs carry opcode 0x1E in the 5-bit opcode field (Linux MLX4_CQE_OPCODE_ERROR); they are
 * reported with QPN, syndrome and WQE index and handed up as failures — never as success.
 */
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/hermon_prm.h>
#include <ibboot/string.h>
#include "hermon.h"

#define HERMON_CQE_SIZE HERMONPRM_COMPLETION_QUEUE_ENTRY_ST_BYTES
#define HERMON_CQ_ST_FIRED 0xa
#define HERMON_CQ_CI_MASK 0x00ffffffu

static const struct { uint8_t syndrome; const char *name; } hermon_syndromes[] = {
	{ 0x01, "local length error" },
	{ 0x02, "local QP operation error" },
	{ 0x04, "local protection error" },
	{ 0x05, "work request flushed" },
	{ 0x06, "memory window bind error" },
	{ 0x10, "bad response" },
	{ 0x11, "local access error" },
	{ 0x12, "remote invalid request" },
	{ 0x13, "remote access error" },
	{ 0x14, "remote operation error" },
	{ 0x15, "transport retry counter exceeded" },
	{ 0x16, "RNR retry counter exceeded" },
	{ 0x22, "remote aborted" },
};

static const char *hermon_syndrome_name(unsigned syndrome)
{
	for (size_t i = 0; i < ARRAY_SIZE(hermon_syndromes); i++)
		if (hermon_syndromes[i].syndrome == syndrome)
			return hermon_syndromes[i].name;
	return "unknown syndrome";
}

int hermon_create_cq(struct hermon *h, unsigned num_cqes, struct hermon_cq **out)
{
	uint8_t cqc[HERMONPRM_COMPLETION_QUEUE_CONTEXT_ST_BYTES];
	struct hermon_cq *cq;
	int slot, rc;

	if (!IS_POW2(num_cqes) || num_cqes < 2 || num_cqes > (1u << h->caps.log_max_cq_sz))
		return -EINVAL;
	slot = hermon_bitmap_alloc(h->cq_inuse, HERMON_MAX_CQS, 1);
	if (slot < 0) {
		hermon_err(h, "out of completion queues (%u in use)", HERMON_MAX_CQS);
		rc = slot;
		goto err_slot;
	}
	cq = kzalloc(sizeof(*cq));
	if (!cq) {
		rc = -ENOMEM;
		goto err_cq;
	}
	cq->cqn = h->caps.reserved_cqs + (unsigned)slot;
	cq->num_cqes = num_cqes;
	cq->doorbell = dma_alloc(8, 8);
	if (!cq->doorbell) {
		rc = -ENOMEM;
		goto err_doorbell;
	}
	memset(cq->doorbell, 0, 8);
	cq->cqe_len = (size_t)num_cqes * HERMON_CQE_SIZE;
	cq->cqe = dma_alloc(cq->cqe_len, MIN(cq->cqe_len, (size_t)HERMON_PAGE_SIZE));
	if (!cq->cqe) {
		rc = -ENOMEM;
		goto err_cqe;
	}
	memset(cq->cqe, 0, cq->cqe_len);
	for (unsigned i = 0; i < num_cqes; i++)
		hermonprm_completion_queue_entry_st_set_owner((uint8_t *)cq->cqe + i * HERMON_CQE_SIZE,
							      1);
	wmb();
	if ((rc = hermon_alloc_mtt(h, cq->cqe, cq->cqe_len, &cq->mtt)) != 0)
		goto err_mtt;

	memset(cqc, 0, sizeof(cqc));
	hermonprm_completion_queue_context_st_set_st(cqc, HERMON_CQ_ST_FIRED);
	hermonprm_completion_queue_context_st_set_page_offset(cqc, cq->mtt.page_offset >> 5);
	hermonprm_completion_queue_context_st_set_usr_page(cqc, HERMON_UAR_NON_EQ_PAGE);
	hermonprm_completion_queue_context_st_set_log_cq_size(cqc, hermon_log2_roundup(num_cqes));
	hermonprm_completion_queue_context_st_set_c_eqn(cqc, h->eq.eqn);
	hermonprm_completion_queue_context_st_set_mtt_base_addr_h(cqc,
		(uint32_t)(cq->mtt.mtt_base_addr >> 32));
	hermonprm_completion_queue_context_st_set_mtt_base_addr_l(cqc,
		(uint32_t)cq->mtt.mtt_base_addr >> 3);
	uint64_t db = virt_to_bus(cq->doorbell);
	hermonprm_completion_queue_context_st_set_db_record_addr_h(cqc, (uint32_t)(db >> 32));
	hermonprm_completion_queue_context_st_set_db_record_addr_l(cqc, (uint32_t)db >> 3);
	if ((rc = hermon_cmd_sw2hw_cq(h, cq->cqn, cqc)) != 0)
		goto err_sw2hw;

	cq->next_cq = h->cqs;
	h->cqs = cq;
	*out = cq;
	return 0;

err_sw2hw:
	hermon_free_mtt(h, &cq->mtt);
err_mtt:
	dma_free(cq->cqe, cq->cqe_len);
err_cqe:
	dma_free(cq->doorbell, 8);
err_doorbell:
	kfree(cq);
err_cq:
	hermon_bitmap_free(h->cq_inuse, (unsigned)slot, 1);
err_slot:
	if (rc == -ENOMEM)
		hermon_err(h, "cannot allocate a %u-entry completion queue", num_cqes);
	return rc;
}

void hermon_destroy_cq(struct hermon *h, struct hermon_cq *cq)
{
	uint8_t cqc[HERMONPRM_COMPLETION_QUEUE_CONTEXT_ST_BYTES];
	struct hermon_cq **pp;

	for (pp = &h->cqs; *pp && *pp != cq; pp = &(*pp)->next_cq)
		;
	if (*pp)
		*pp = cq->next_cq;
	if (h->catastrophic || hermon_cmd_hw2sw_cq(h, cq->cqn, cqc) != 0) {
		/* Still the hardware's: its ring waits for the reset, never reused before. */
		hermon_err(h, "CQ 0x%x not released by hardware; its memory is kept until reset",
			   cq->cqn);
		cq->next_cq = h->orphan_cqs;
		h->orphan_cqs = cq;
		return;
	}
	hermon_free_mtt(h, &cq->mtt);
	hermon_bitmap_free(h->cq_inuse, cq->cqn - h->caps.reserved_cqs, 1);
	hermon_free_cq_memory(h, cq);
}

void hermon_free_cq_memory(struct hermon *h, struct hermon_cq *cq)
{
	(void)h;
	dma_free(cq->cqe, cq->cqe_len);
	dma_free(cq->doorbell, 8);
	kfree(cq);
}

static void hermon_report_cqe_error(struct hermon *h, const struct hermon_cq *cq,
				    const struct hermon_completion *c)
{
	hermon_err(h, "CQ 0x%x: %s completion error on QP 0x%x, WQE %u: syndrome 0x%02x (%s), "
		   "vendor syndrome 0x%02x", cq->cqn, c->is_send ? "send" : "receive",
		   c->qp ? c->qp->qpn : 0, c->wqe_index, c->syndrome,
		   hermon_syndrome_name(c->syndrome), c->vendor_syndrome);
}

/* Turns one CQE into a completion for the owner of the work request; frees its slot. */
static int hermon_complete(struct hermon *h, struct hermon_cq *cq, const uint8_t *cqe,
			   struct hermon_completion *c)
{
	unsigned opcode = hermonprm_completion_queue_entry_st_get_opcode(cqe);
	uint32_t qpn = hermonprm_completion_queue_entry_st_get_qpn(cqe);
	struct hermon_wq_slot *slot;
	struct hermon_qp *qp;
	unsigned idx;

	memset(c, 0, sizeof(*c));
	c->is_send = hermonprm_completion_queue_entry_st_get_s_r(cqe);
	c->wqe_index = hermonprm_completion_queue_entry_st_get_wqe_counter(cqe);
	qp = hermon_find_qp(h, qpn);
	c->qp = qp;
	if (opcode == HERMON_OPCODE_CQE_ERROR) {
		c->status = -EIO;
		c->syndrome = (uint8_t)hermonprm_completion_with_error_st_get_syndrome(cqe);
		c->vendor_syndrome =
			(uint8_t)hermonprm_completion_with_error_st_get_vendor_error_syndrome(cqe);
		cq->errors++;
		/* The HCA moved the QP to the error state; stop refilling it. */
		if (qp)
			qp->state = HERMON_QPS_ERR;
		hermon_report_cqe_error(h, cq, c);
	} else if (c->is_send ? opcode != HERMON_OPCODE_SEND && opcode != HERMON_OPCODE_NOP
			    : opcode != HERMON_CQE_RECV_SEND && opcode != HERMON_CQE_RECV_SEND_IMM) {
		/* Not a completion we can have asked for: never let it pass as a success. */
		c->status = -EIO;
		cq->errors++;
		hermon_err(h, "CQ 0x%x: %s CQE with unexpected opcode 0x%02x on QP 0x%x, WQE %u — "
			   "treated as an error", cq->cqn, c->is_send ? "send" : "receive", opcode,
			   qpn, c->wqe_index);
	}
	if (!qp) {
		hermon_err(h, "CQ 0x%x: completion for unknown QP 0x%x (opcode 0x%02x) dropped",
			   cq->cqn, qpn, opcode);
		return -ENOENT;
	}
	if (c->is_send) {
		idx = c->wqe_index & (qp->send.num_wqes - 1);
		slot = &qp->send.slot[idx];
	} else {
		idx = c->wqe_index & (qp->recv.num_wqes - 1);
		slot = &qp->recv.slot[idx];
	}
	if (!slot->cookie) {
		hermon_err(h, "CQ 0x%x: QP 0x%x %s WQE %u completed but none is outstanding",
			   cq->cqn, qp->qpn, c->is_send ? "send" : "receive", c->wqe_index);
		return -ENOENT;
	}
	c->cookie = slot->cookie;
	c->buf = slot->buf;
	c->len = slot->len;
	slot->cookie = NULL;
	if (c->is_send) {
		qp->send.outstanding--;
		return 0;
	}
	qp->recv.outstanding--;
	if (c->status == 0) {
		size_t len = hermonprm_completion_queue_entry_st_get_byte_cnt(cqe);

		/* UD/MLX receives start with the 40-byte GRH area (scatter entry 0), present or not. */
		len = len >= HERMON_GRH_SIZE ? len - HERMON_GRH_SIZE : 0;
		if (len > slot->len) {
			hermon_err(h, "QP 0x%x: received %zu bytes into a %zu-byte buffer",
				   qp->qpn, len, slot->len);
			c->status = -ERANGE;
			len = slot->len;
		}
		c->len = len;
		c->src_qpn = hermonprm_completion_queue_entry_st_get_srq_rqpn(cqe);
		c->slid = (uint16_t)hermonprm_completion_queue_entry_st_get_slid_smac47_32(cqe);
		c->sl = (uint8_t)hermonprm_completion_queue_entry_st_get_sl(cqe);
		c->grh_present = hermonprm_completion_queue_entry_st_get_g(cqe);
		c->grh = slot->grh;
	}
	return 0;
}

int hermon_poll_cq(struct hermon *h, struct hermon_cq *cq, unsigned max, hermon_complete_fn fn,
		   void *ctx)
{
	int count = 0;

	while (max == 0 || (unsigned)count < max) {
		uint8_t *cqe = (uint8_t *)cq->cqe + (cq->next & (cq->num_cqes - 1)) * HERMON_CQE_SIZE;
		unsigned sw_parity = (cq->next / cq->num_cqes) & 1;
		struct hermon_completion c;

		if (hermonprm_completion_queue_entry_st_get_owner(cqe) != sw_parity)
			break;
		rmb();   /* the rest of the CQE only after its owner bit */
		int rc = hermon_complete(h, cq, cqe, &c);

		cq->next++;
		count++;
		if (rc == 0) {
			if (fn)
				fn(ctx, &c);
			/* Driver-owned receive ring: the buffer goes straight back. */
			if (!c.is_send && c.qp->recv_pool && c.qp->state != HERMON_QPS_ERR &&
			    c.qp->state != HERMON_QPS_RESET)
				hermon_post_recv(h, c.qp, c.buf, c.qp->recv_buf_size, c.buf);
		}
	}
	/* One consumer-index update per poll: the HCA needs it only to see free CQ slots. */
	if (count)
		hermonprm_cq_db_record_st_set_update_ci(cq->doorbell, cq->next & HERMON_CQ_CI_MASK);
	return count;
}

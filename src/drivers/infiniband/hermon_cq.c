/* SPDX-License-Identifier: MIT */
/*
 * Completion queues and the completion half of the fastpath.
 *
 * A CQE at consumer count c is software's when its owner bit equals (c / size) & 1: the hardware
 * writes the pass parity, so no CQE is mistaken for a new one after the ring wraps. The CQ is
 * never armed, so completions raise no events.
 *
 * hermon_poll_cq is the core's poll_cq op: each CQE is decoded straight into the core's struct
 * ib_wc - the QP it names, which work request (wqe_counter), status and, for a receive, the byte
 * count as the HCA wrote it (the 40-byte GRH slot included: the core strips it) and the sender.
 * Which buffer the work request carried is the core's record, not the driver's.
 *
 * Error CQEs carry opcode 0x1E in the 5-bit opcode field (Linux MLX4_CQE_OPCODE_ERROR): their
 * syndrome becomes the completion's status (the core reports it with the QPN); a CQE with an
 * opcode we never asked for is reported here and handed up as a failure - never as a success.
 */
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/hermon_prm.h>
#include <ibboot/hermon_syndrome.h>
#include <ibboot/string.h>
#include "hermon.h"

#define HERMON_CQE_SIZE HERMONPRM_COMPLETION_QUEUE_ENTRY_ST_BYTES
#define HERMON_CQ_ST_FIRED 0xa
#define HERMON_CQ_CI_MASK 0x00ffffffu

/* What each syndrome means to the IB core (IBA 11.4.2.1 completion statuses). */
static enum ib_wc_status hermon_wc_status(unsigned syndrome)
{
	switch (syndrome) {
	case HERMON_SYND_LOCAL_LENGTH: return IB_WC_LOC_LEN_ERR;
	case HERMON_SYND_LOCAL_QP_OP: return IB_WC_LOC_QP_OP_ERR;
	case HERMON_SYND_LOCAL_PROT: return IB_WC_LOC_PROT_ERR;
	case HERMON_SYND_WR_FLUSH: return IB_WC_WR_FLUSH_ERR;
	case HERMON_SYND_MW_BIND: return IB_WC_MW_BIND_ERR;
	case HERMON_SYND_BAD_RESP: return IB_WC_BAD_RESP_ERR;
	case HERMON_SYND_LOCAL_ACCESS: return IB_WC_LOC_ACCESS_ERR;
	case HERMON_SYND_REMOTE_INVAL_REQ: return IB_WC_REM_INV_REQ_ERR;
	case HERMON_SYND_REMOTE_ACCESS: return IB_WC_REM_ACCESS_ERR;
	case HERMON_SYND_REMOTE_OP: return IB_WC_REM_OP_ERR;
	case HERMON_SYND_TRANSPORT_RETRY: return IB_WC_RETRY_EXC_ERR;
	case HERMON_SYND_RNR_RETRY: return IB_WC_RNR_RETRY_EXC_ERR;
	default: return IB_WC_GENERAL_ERR;
	}
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
		hermon_err(h, "out of CQs (%u)", HERMON_MAX_CQS);
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
		hermon_err(h, "cannot allocate %u-entry CQ", num_cqes);
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
		hermon_kept(h, "CQ", cq->cqn);
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

/* One CQE into *wc. -ENOENT (nothing to hand up) when it names no QP of ours. */
static int hermon_decode_cqe(struct hermon *h, struct hermon_cq *cq, const uint8_t *cqe,
			     struct ib_wc *wc)
{
	unsigned opcode = hermonprm_completion_queue_entry_st_get_opcode(cqe);
	uint32_t qpn = hermonprm_completion_queue_entry_st_get_qpn(cqe);
	bool is_send = hermonprm_completion_queue_entry_st_get_s_r(cqe);
	unsigned counter = hermonprm_completion_queue_entry_st_get_wqe_counter(cqe);
	struct hermon_qp *qp = hermon_find_qp(h, qpn);

	if (!qp) {
		cq->errors++;
		hermon_err(h, "CQ 0x%x: unknown QP 0x%x (opcode 0x%02x) dropped",
			   cq->cqn, qpn, opcode);
		return -ENOENT;
	}
	if (opcode == HERMON_OPCODE_CQE_ERROR) {
		uint8_t synd = (uint8_t)hermonprm_completion_with_error_st_get_syndrome(cqe);

		*wc = (struct ib_wc){
			.qp = qp->ibqp, .is_send = is_send, .wqe_index = counter,
			.status = hermon_wc_status(synd), .syndrome = synd,
			.vendor_syndrome = (uint8_t)
				hermonprm_completion_with_error_st_get_vendor_error_syndrome(cqe),
		};
		cq->errors++;
		qp->state = IB_QPS_ERR;   /* the HCA moved the QP to the error state */
		return 0;
	}
	if (is_send ? opcode != HERMON_OPCODE_SEND && opcode != HERMON_OPCODE_NOP
		    : opcode != HERMON_CQE_RECV_SEND && opcode != HERMON_CQE_RECV_SEND_IMM) {
		cq->errors++;
		hermon_err(h, "CQ 0x%x: %s opcode 0x%02x unexpected, QP 0x%x WQE %u: "
			   "treated as an error", cq->cqn, is_send ? "send" : "receive", opcode, qpn,
			   counter);
		*wc = (struct ib_wc){ .qp = qp->ibqp, .is_send = is_send, .wqe_index = counter,
				      .status = IB_WC_GENERAL_ERR };
		return 0;
	}
	if (is_send) {
		*wc = (struct ib_wc){ .qp = qp->ibqp, .is_send = true, .wqe_index = counter };
		return 0;
	}
	*wc = (struct ib_wc){
		.qp = qp->ibqp, .wqe_index = counter,
		.byte_len = hermonprm_completion_queue_entry_st_get_byte_cnt(cqe),
		.src_qpn = hermonprm_completion_queue_entry_st_get_srq_rqpn(cqe),
		.slid = (uint16_t)hermonprm_completion_queue_entry_st_get_slid_smac47_32(cqe),
		.sl = (uint8_t)hermonprm_completion_queue_entry_st_get_sl(cqe),
		.grh_present = hermonprm_completion_queue_entry_st_get_g(cqe),
	};
	return 0;
}

int hermon_poll_cq(struct ib_device *dev, struct ib_cq *ibcq, struct ib_wc *wc, unsigned max)
{
	struct hermon *h = hermon_of(dev);
	struct hermon_cq *cq = ibcq->drv_priv;
	uint32_t start = cq->next;
	unsigned n = 0;

	while (n < max) {
		uint8_t *cqe = (uint8_t *)cq->cqe + (cq->next & (cq->num_cqes - 1)) * HERMON_CQE_SIZE;

		if (hermonprm_completion_queue_entry_st_get_owner(cqe) !=
		    ((cq->next / cq->num_cqes) & 1))
			break;
		rmb();   /* the rest of the CQE only after its owner bit */
		cq->next++;
		if (hermon_decode_cqe(h, cq, cqe, &wc[n]) == 0)
			n++;
	}
	/* One consumer-index update per poll: the HCA needs it only to see free CQ slots. */
	if (cq->next != start)
		hermonprm_cq_db_record_st_set_update_ci(cq->doorbell, cq->next & HERMON_CQ_CI_MASK);
	return (int)n;
}

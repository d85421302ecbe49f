/* SPDX-License-Identifier: MIT */
/*
 * Completion queues: SW2HW_CQ / HW2SW_CQ / QUERY_CQ, CQE writing, the CQ arm doorbell.
 * The CQC lives in ICM; the ring is found through MTTs + page_offset (units of 32 bytes).
 * Software reports its consumer index in the CQ doorbell record (host memory, update_ci), which
 * the device reads to detect overrun. Ownership as for EQs: owner = bit log_cq_size of the index.
 */
#include <string.h>

#include "hcasim_int.h"
#include "tpt.h"

#define CQE_SIZE 32u
#define CQ_ST_ARMED 0x9
#define CQ_ST_ARMED_SOL 0x6
#define CQ_ST_FIRED 0xa

#define CQC_BYTES HERMONPRM_COMPLETION_QUEUE_CONTEXT_ST_BYTES

/* HW2SW_CQ and QUERY_CQ need a CQ the hardware owns. */
static int cq_owned(struct hcasim *h, struct hcasim_cmd *c, uint32_t cqn)
{
	return hcasim_cmd_ctx(h, c, "CQ", cqn, h->lay.log_num_cq, h->cq_hw, true);
}

/*
 * SW2HW_CQ hands every entry of the ring to the hardware: the device sets each CQE's owner bit to
 * hardware ownership (owner = 1 on the first pass), as SW2HW_EQ does for EQEs. Linux mlx4_ib
 * depends on it: cq.c mlx4_ib_alloc_cq_buf hands over a zeroed buffer (mlx4_buf_alloc) and
 * get_sw_cqe takes an entry whose owner bit equals the pass bit as the software's, so without
 * this the entry after the first completion reads as a valid CQE of QP 0 and mlx4_ib_poll_one
 * dereferences the QP it cannot find. iPXE and ibboot set the bits themselves.
 * Written a page at a time through the MTT (hcasim_ring_fill).
 */
static void cq_init_ownership(struct hcasim *h, uint32_t cqn, const uint8_t *ctx)
{
	uint8_t cqe[CQE_SIZE] = { 0 };
	uint64_t mtt = (uint64_t)PRM_GET(completion_queue_context, mtt_base_addr_h, ctx) << 32 |
		       (uint64_t)PRM_GET(completion_queue_context, mtt_base_addr_l, ctx) << 3;
	uint64_t failed_at;

	PRM_SET(completion_queue_entry, owner, cqe, 1);
	if (hcasim_ring_fill(h, mtt, 12 + PRM_GET(completion_queue_context, log2_page_size, ctx),
			     PRM_GET(completion_queue_context, page_offset, ctx),
			     PRM_GET(completion_queue_context, log_cq_size, ctx), cqe, &failed_at))
		hcasim_refuse(h, "SW2HW_CQ: CQ %#x: ring not translatable/writable at byte %#llx: "
			      "entries left as they are", cqn, (unsigned long long)failed_at);
}

int cmd_sw2hw_cq(struct hcasim *h, struct hcasim_cmd *c)
{
	uint32_t cqn = c->in_mod & 0xffffff;
	uint8_t *x = c->in;
	int st = hcasim_cmd_sw2hw_in(h, c, "CQ", cqn, h->lay.log_num_cq, h->cq_hw, CQC_BYTES);

	if (st)
		return st;
	if (PRM_GET(completion_queue_context, log_cq_size, x) > 22 ||
	    PRM_GET(completion_queue_context, log2_page_size, x) > 28 ||
	    PRM_GET(completion_queue_context, c_eqn, x) >= (1u << h->lay.log_num_eq) ||
	    PRM_GET(completion_queue_context, usr_page, x) >= (1u << h->lay.log_max_uars)) {
		hcasim_refuse(h, "SW2HW_CQ: CQ %#x: log_cq_size %u, EQN %#x or UAR page %#x invalid",
			      cqn, PRM_GET(completion_queue_context, log_cq_size, x),
			      PRM_GET(completion_queue_context, c_eqn, x),
			      PRM_GET(completion_queue_context, usr_page, x));
		return ST_BAD_PARAM;
	}
	st = hcasim_cmd_sw2hw_store(h, c, 2, cqn, h->cq_hw, hcasim_cqc_va(h, cqn), CQC_BYTES);
	if (st)
		return st;
	cq_init_ownership(h, cqn, x);
	hcasim_bit_set(h->cq_armed, cqn, PRM_GET(completion_queue_context, st, x) == CQ_ST_ARMED ||
					       PRM_GET(completion_queue_context, st, x) == CQ_ST_ARMED_SOL);
	return ST_OK;
}

int cmd_hw2sw_cq(struct hcasim *h, struct hcasim_cmd *c)
{
	uint32_t cqn = c->in_mod & 0xffffff;
	int st = cq_owned(h, c, cqn);

	if (!st && c->out_param)
		st = hcasim_cmd_ctx_out(h, c, hcasim_cqc_va(h, cqn), CQC_BYTES);
	if (st)
		return st;
	hcasim_bit_set(h->cq_hw, cqn, false);
	hcasim_bit_set(h->cq_armed, cqn, false);
	return ST_OK;
}

int cmd_query_cq(struct hcasim *h, struct hcasim_cmd *c)
{
	uint32_t cqn = c->in_mod & 0xffffff;
	int st = cq_owned(h, c, cqn);

	return st ? st : hcasim_cmd_ctx_out(h, c, hcasim_cqc_va(h, cqn), CQC_BYTES);
}

static uint64_t db_record_pa(const uint8_t *ctx)
{
	return (uint64_t)PRM_GET(completion_queue_context, db_record_addr_h, ctx) << 32 |
	       (uint64_t)PRM_GET(completion_queue_context, db_record_addr_l, ctx) << 3;
}

/* The completion event goes to the EQ the CQ context names. */
static void completion_event(struct hcasim *h, uint32_t cqn, const uint8_t *ctx)
{
	uint8_t ev[HERMONPRM_COMPLETION_EVENT_ST_BYTES] = { 0 };
	uint32_t data[6];

	PRM_SET(completion_event, cqn, ev, cqn);
	for (unsigned i = 0; i < 6; i++)
		data[i] = hermonprm_load_dword(ev, i);
	hcasim_eq_post(h, PRM_GET(completion_queue_context, c_eqn, ctx), EV_COMPLETION, 0, data);
}

static void fill_cqe(uint8_t *cqe, const struct hcasim_cqe_info *ci)
{
	if (ci->error) {
		PRM_SET(completion_with_error, qpn, cqe, ci->qpn);
		PRM_SET(completion_with_error, syndrome, cqe, ci->syndrome);
		PRM_SET(completion_with_error, vendor_error_syndrome, cqe, 0);
		PRM_SET(completion_with_error, wqe_counter, cqe, ci->wqe_counter);
		PRM_SET(completion_with_error, opcode, cqe, CQE_OPCODE_ERROR);
		PRM_SET(completion_with_error, s_r, cqe, ci->is_send);
		return;
	}
	PRM_SET(completion_queue_entry, qpn, cqe, ci->qpn);
	PRM_SET(completion_queue_entry, immediate_rssvalue_invalidatekey, cqe, ci->imm);
	PRM_SET(completion_queue_entry, srq_rqpn, cqe, ci->rqpn);
	PRM_SET(completion_queue_entry, ml_path_mac_index, cqe, ci->path_bits);
	PRM_SET(completion_queue_entry, g, cqe, ci->grh);
	PRM_SET(completion_queue_entry, slid_smac47_32, cqe, ci->slid);
	PRM_SET(completion_queue_entry, sl, cqe, ci->sl);
	PRM_SET(completion_queue_entry, byte_cnt, cqe, ci->byte_cnt);
	PRM_SET(completion_queue_entry, wqe_counter, cqe, ci->wqe_counter);
	PRM_SET(completion_queue_entry, opcode, cqe, ci->opcode);
	PRM_SET(completion_queue_entry, s_r, cqe, ci->is_send);
}

/* Returns 0, or -1 when the CQE could not be written (CQ missing, overrun, ICM/DMA failure). */
int hcasim_cq_post(struct hcasim *h, uint32_t cqn, const struct hcasim_cqe_info *ci)
{
	uint8_t ctx[HERMONPRM_COMPLETION_QUEUE_CONTEXT_ST_BYTES], cqe[CQE_SIZE] = { 0 };
	uint8_t dbr[HERMONPRM_CQ_DB_RECORD_ST_BYTES];
	uint32_t prod, cons, size;
	uint64_t mtt;
	unsigned lg;

	if (cqn >= (1u << h->lay.log_num_cq) || !hcasim_bit(h->cq_hw, cqn)) {
		hcasim_refuse(h, "QP %#x: completion dropped: CQ %#x not in hardware ownership",
			      ci->qpn, cqn);
		return -1;
	}
	if (hcasim_icm_read(h, hcasim_cqc_va(h, cqn), ctx, sizeof(ctx)) < 0) {
		hcasim_catastrophe(h, "CQ context in unmapped ICM");
		return -1;
	}
	lg = PRM_GET(completion_queue_context, log_cq_size, ctx);
	size = 1u << lg;
	prod = PRM_GET(completion_queue_context, producer_counter, ctx);
	if (hcasim_dma_read(h, db_record_pa(ctx), dbr, sizeof(dbr)) < 0) {
		hcasim_catastrophe(h, "CQ doorbell record not readable");
		return -1;
	}
	cons = PRM_GET(cq_db_record, update_ci, dbr);
	if (((prod - cons) & 0xffffff) >= size) {
		uint8_t err[HERMONPRM_COMPLETION_QUEUE_ERROR_ST_BYTES] = { 0 };
		uint32_t data[6];

		hcasim_refuse(h, "CQ %#x overrun (producer %u, consumer %u): CQ error event", cqn,
			      prod, cons);
		PRM_SET(completion_queue_error, cqn, err, cqn);
		PRM_SET(completion_queue_error, syndrome, err, 1 /* overrun */);
		for (unsigned i = 0; i < 6; i++)
			data[i] = hermonprm_load_dword(err, i);
		hcasim_async_event(h, EV_CQ_ERROR, 0, data);
		return -1;
	}
	fill_cqe(cqe, ci);
	if (h->corrupt_next_cqe) {
		/* fault injection: an opcode no driver knows */
		PRM_SET(completion_queue_entry, opcode, cqe, 0x1f);
		h->corrupt_next_cqe = false;
	}
	PRM_SET(completion_queue_entry, owner, cqe, hcasim_faults_owner(h, true, (prod >> lg) & 1));
	mtt = (uint64_t)PRM_GET(completion_queue_context, mtt_base_addr_h, ctx) << 32 |
	      (uint64_t)PRM_GET(completion_queue_context, mtt_base_addr_l, ctx) << 3;
	if (hcasim_ring_write(h, mtt, 12 + PRM_GET(completion_queue_context, log2_page_size, ctx),
			      PRM_GET(completion_queue_context, page_offset, ctx), lg, prod, cqe) < 0) {
		hcasim_catastrophe(h, "CQ ring not translatable/writable");
		return -1;
	}
	PRM_SET(completion_queue_context, producer_counter, ctx, (prod + 1) & 0xffffff);
	if (hcasim_bit(h->cq_armed, cqn)) {
		hcasim_bit_set(h->cq_armed, cqn, false);
		PRM_SET(completion_queue_context, st, ctx, CQ_ST_FIRED);
		completion_event(h, cqn, ctx);
	}
	if (hcasim_icm_write(h, hcasim_cqc_va(h, cqn), ctx, sizeof(ctx)) < 0) {
		hcasim_catastrophe(h, "CQ context in unmapped ICM");
		return -1;
	}
	return 0;
}

/* CQ doorbell (UAR + 0x20): dword 0 = cmd_sn/cmd/CQN, dword 1 = consumer index. Commands 1
 * (solicited) and 2 (any completion) arm the CQ; if completions are already waiting beyond the
 * given consumer index the event fires at once. */
void hcasim_cq_doorbell(struct hcasim *h, const uint8_t db[8])
{
	uint32_t cqn = PRM_GET(cq_cmd_doorbell, cqn, db), ci = PRM_GET(cq_cmd_doorbell, cq_param, db);
	unsigned cmd = PRM_GET(cq_cmd_doorbell, cmd, db);
	uint8_t ctx[HERMONPRM_COMPLETION_QUEUE_CONTEXT_ST_BYTES];

	if (h->fw != FW_HCA_UP || cqn >= (1u << h->lay.log_num_cq) || !hcasim_bit(h->cq_hw, cqn))
		return;
	if (cmd != 1 && cmd != 2)
		return;
	if (hcasim_icm_read(h, hcasim_cqc_va(h, cqn), ctx, sizeof(ctx)) < 0)
		return;
	if ((PRM_GET(completion_queue_context, producer_counter, ctx) & 0xffffff) != (ci & 0xffffff)) {
		completion_event(h, cqn, ctx);
		return;
	}
	hcasim_bit_set(h->cq_armed, cqn, true);
	PRM_SET(completion_queue_context, st, ctx, cmd == 1 ? CQ_ST_ARMED_SOL : CQ_ST_ARMED);
	hcasim_icm_write(h, hcasim_cqc_va(h, cqn), ctx, sizeof(ctx));
}

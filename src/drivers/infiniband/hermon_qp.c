/* SPDX-License-Identifier: MIT */
/*
 * Queue pairs: QP0/QP1 (MLX transport, software-built headers) and UD, and the posting half of
 * the fastpath.
 *
 * One buffer holds the send ring (128-byte WQEs, plus 2 KiB of headroom because the HCA prefetches
 * past the producer), then the receive ring (16-byte WQEs: one scatter entry, the core's buffer,
 * whose first 40 bytes take the GRH area the HCA always writes for UD/MLX - IBA 11.4.1.2). The
 * queue with the larger stride comes first (PRM; Linux mlx4 qp.c does the same).
 *
 * hermon_post_send and hermon_post_recv are the core's post ops. The core posts at most as many
 * work requests as the QP has slots, in order, and keeps what each carries; the driver needs only
 * its producer counters. MLX (QP0/QP1) headers come from the wire code's builder, with the port's
 * LID, GID and P_Key as the core read them.
 *
 * Posting discipline: fill the WQE except its first dword, barrier, write opcode + owner (the pass
 * parity of the producer count), barrier, ring the doorbell. Nothing is allocated per packet.
 */
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/hermon_prm.h>
#include <ibboot/string.h>
#include <ibboot/wire/packet.h>
#include "hermon.h"

#define DATA_SEG_BYTES HERMONPRM_WQE_SEGMENT_DATA_PTR_ST_BYTES
#define CTRL_BYTES HERMONPRM_WQE_SEGMENT_CTRL_SEND_ST_BYTES
#define UD_SEG_BYTES HERMONPRM_WQE_SEGMENT_UD_ST_BYTES
#define MLX_HDR_SLOT 128   /* LRH 8 + GRH 40 + BTH 12 + DETH 8 = 68 at most */
#define MLX_WQE_BYTES (CTRL_BYTES + 3 * DATA_SEG_BYTES)   /* ctrl, headers, payload, ICRC */

/* QPNs of ours are one block: the special QPs, then the UD QPs (hermon_icm_plan). */
struct hermon_qp *hermon_find_qp(struct hermon *h, uint32_t qpn)
{
	uint32_t i = qpn - h->plan.special_qpn_base;

	return i < ARRAY_SIZE(h->qp_table) ? h->qp_table[i] : NULL;
}

static int hermon_alloc_qpn(struct hermon *h, enum ib_qp_type type, unsigned port, uint32_t *qpn)
{
	unsigned special;
	int slot;

	switch (type) {
	case IB_QPT_SMI:
	case IB_QPT_GSI:
		/* The special block: QP0 of port 1, 2, then QP1 of port 1, 2 (CONF_SPECIAL_QP). */
		special = (type == IB_QPT_GSI ? 2 : 0) + (port - 1);
		if (h->special_qp_used[special])
			return -EBUSY;
		h->special_qp_used[special] = true;
		*qpn = h->plan.special_qpn_base + special;
		return 0;
	case IB_QPT_UD:
		slot = hermon_bitmap_alloc(h->qp_inuse, HERMON_MAX_QPS, 1);
		if (slot < 0) {
			hermon_err(h, "out of UD QPs (%u)", HERMON_MAX_QPS);
			return slot;
		}
		*qpn = h->plan.qpn_base + (unsigned)slot;
		return 0;
	default:
		return -ENOTSUP;
	}
}

static void hermon_free_qpn(struct hermon *h, const struct hermon_qp *qp)
{
	if (qp->type == IB_QPT_UD)
		hermon_bitmap_free(h->qp_inuse, qp->qpn - h->plan.qpn_base, 1);
	else
		h->special_qp_used[qp->qpn - h->plan.special_qpn_base] = false;
}

static unsigned hermon_sched_queue(const struct hermon_qp *qp)
{
	return (qp->type == IB_QPT_SMI ? HERMON_SCHED_QP0 : HERMON_SCHED_DEFAULT) |
	       ((qp->port - 1) << 6);
}

/* IBA StaticRate → the HCA's encoding (iPXE, Linux: rate + 5 for 2.5 .. 120 Gb/s). */
static unsigned hermon_rate(unsigned iba_rate)
{
	return (iba_rate >= 2 && iba_rate <= 10) ? iba_rate + 5 : 0;
}

static int hermon_qp_buffers(struct hermon *h, struct hermon_qp *qp, unsigned num_send,
			     unsigned num_recv)
{
	size_t sq_len, rq_len;

	qp->send.num_wqes = 1u << hermon_log2_roundup(num_send + 1 +
						      HERMON_SQ_HEADROOM / HERMON_SEND_WQE_SIZE);
	qp->recv.num_wqes = num_recv;
	if (qp->send.num_wqes > (1u << h->caps.log_max_qp_sz) ||
	    qp->recv.num_wqes > (1u << h->caps.log_max_qp_sz))
		return -EINVAL;
	sq_len = (size_t)qp->send.num_wqes * HERMON_SEND_WQE_SIZE;
	rq_len = (size_t)qp->recv.num_wqes * HERMON_RECV_WQE_SIZE;
	qp->wqe_len = sq_len + rq_len;
	qp->wqe = dma_alloc(qp->wqe_len, HERMON_PAGE_SIZE);
	if (!qp->wqe)
		return -ENOMEM;
	qp->send.wqe = qp->wqe;
	qp->recv.wqe = (uint8_t *)qp->wqe + sq_len;
	/* Stamp the send ring so prefetched WQEs are invalid; no receive WQE is valid yet. */
	memset(qp->send.wqe, 0xff, sq_len);
	memset(qp->recv.wqe, 0, rq_len);
	for (size_t off = 0; off < rq_len; off += DATA_SEG_BYTES)
		hermonprm_wqe_segment_data_ptr_st_set_l_key(qp->recv.wqe + off, HERMON_INVALID_LKEY);

	qp->recv.doorbell = dma_alloc(4, 4);
	if (!qp->recv.doorbell)
		return -ENOMEM;
	memset(qp->recv.doorbell, 0, 4);
	qp->send.doorbell_off = (uint64_t)HERMON_UAR_NON_EQ_PAGE * HERMON_PAGE_SIZE +
				HERMON_DB_POST_SND_OFFSET;
	if (qp->type != IB_QPT_UD) {
		qp->mlx_hdr = dma_alloc((size_t)qp->send.num_wqes * MLX_HDR_SLOT, MLX_HDR_SLOT);
		if (!qp->mlx_hdr)
			return -ENOMEM;
	}
	return 0;
}

static void hermon_qp_free_buffers(struct hermon_qp *qp)
{
	if (qp->mlx_hdr)
		dma_free(qp->mlx_hdr, (size_t)qp->send.num_wqes * MLX_HDR_SLOT);
	if (qp->recv.doorbell)
		dma_free(qp->recv.doorbell, 4);
	if (qp->wqe)
		dma_free(qp->wqe, qp->wqe_len);
}

static int hermon_rst2init(struct hermon *h, struct hermon_qp *qp)
{
	uint8_t ctx[HERMONPRM_QP_EE_STATE_TRANSITIONS_ST_BYTES] = { 0 };
	void *qpc, *path;
	uint64_t db = virt_to_bus(qp->recv.doorbell);
	int rc;

	qpc = hermonprm_qp_ee_state_transitions_st_qpc_eec_data(ctx);
	path = hermonprm_queue_pair_ee_context_entry_st_primary_address_path(qpc);
	hermonprm_queue_pair_ee_context_entry_st_set_pm_state(qpc, HERMON_PM_STATE_MIGRATED);
	hermonprm_queue_pair_ee_context_entry_st_set_st(qpc, qp->type == IB_QPT_UD ?
							HERMON_ST_UD : HERMON_ST_MLX);
	hermonprm_queue_pair_ee_context_entry_st_set_pd(qpc, HERMON_GLOBAL_PD);
	hermonprm_queue_pair_ee_context_entry_st_set_log_rq_size(qpc,
		hermon_log2_roundup(qp->recv.num_wqes));
	hermonprm_queue_pair_ee_context_entry_st_set_log_rq_stride(qpc,
		hermon_log2_roundup(HERMON_RECV_WQE_SIZE) - 4);
	hermonprm_queue_pair_ee_context_entry_st_set_log_sq_size(qpc,
		hermon_log2_roundup(qp->send.num_wqes));
	hermonprm_queue_pair_ee_context_entry_st_set_log_sq_stride(qpc,
		hermon_log2_roundup(HERMON_SEND_WQE_SIZE) - 4);
	hermonprm_queue_pair_ee_context_entry_st_set_usr_page(qpc, HERMON_UAR_NON_EQ_PAGE);
	hermonprm_address_path_st_set_sched_queue(path, hermon_sched_queue(qp));
	/* UD: the partition of its sends and receives (IBA 10.9.2); QP0/QP1 stay on entry 0. */
	hermonprm_address_path_st_set_pkey_index(path, qp->type == IB_QPT_UD && qp->ibqp ?
						 qp->ibqp->pkey_index : 0);
	hermonprm_queue_pair_ee_context_entry_st_set_cqn_snd(qpc, qp->send_cq->cqn);
	hermonprm_queue_pair_ee_context_entry_st_set_cqn_rcv(qpc, qp->recv_cq->cqn);
	/* No remote read/write/atomic on any QP of ours (rre = rwe = rae = 0). */
	hermonprm_queue_pair_ee_context_entry_st_set_page_offset(qpc, qp->mtt.page_offset >> 6);
	hermonprm_queue_pair_ee_context_entry_st_set_db_record_addr_h(qpc, (uint32_t)(db >> 32));
	hermonprm_queue_pair_ee_context_entry_st_set_db_record_addr_l(qpc, (uint32_t)db >> 2);
	hermonprm_queue_pair_ee_context_entry_st_set_q_key(qpc, qp->qkey);
	hermonprm_queue_pair_ee_context_entry_st_set_mtt_base_addr_h(qpc,
		(uint32_t)(qp->mtt.mtt_base_addr >> 32));
	hermonprm_queue_pair_ee_context_entry_st_set_mtt_base_addr_l(qpc,
		(uint32_t)qp->mtt.mtt_base_addr >> 3);
	rc = hermon_cmd_rst2init_qp(h, qp->qpn, ctx);
	if (rc == 0)
		qp->state = IB_QPS_INIT;
	return rc;
}

int hermon_create_qp(struct hermon *h, struct ib_qp *ibqp, struct hermon_qp **out)
{
	unsigned port = ibqp->port->num;
	struct hermon_qp *qp;
	int rc;

	if (port < 1 || port > h->num_ports || !ibqp->send.cq || !ibqp->recv.cq ||
	    !IS_POW2(ibqp->send.num_wqes) || !IS_POW2(ibqp->recv.num_wqes))
		return -EINVAL;
	qp = kzalloc(sizeof(*qp));
	if (!qp)
		return -ENOMEM;
	qp->type = ibqp->type;
	qp->port = port;
	qp->send_cq = ibqp->send.cq->drv_priv;
	qp->recv_cq = ibqp->recv.cq->drv_priv;
	qp->qkey = qp->type == IB_QPT_GSI ? IB_GSI_QKEY : ibqp->qkey;
	qp->ibqp = ibqp;
	if ((rc = hermon_alloc_qpn(h, qp->type, port, &qp->qpn)) != 0)
		goto err_qpn;
	qp->ext_qpn = qp->type == IB_QPT_SMI ? 0 : qp->type == IB_QPT_GSI ? 1 : qp->qpn;
	if ((rc = hermon_qp_buffers(h, qp, ibqp->send.num_wqes, ibqp->recv.num_wqes)) != 0) {
		if (rc == -ENOMEM)
			hermon_err(h, "cannot allocate QP 0x%x rings", qp->qpn);
		goto err_buffers;
	}
	if ((rc = hermon_alloc_mtt(h, qp->wqe, qp->wqe_len, &qp->mtt)) != 0)
		goto err_mtt;
	if ((rc = hermon_rst2init(h, qp)) != 0)
		goto err_rst2init;
	h->qp_table[qp->qpn - h->plan.special_qpn_base] = qp;
	*out = qp;
	return 0;

err_rst2init:
	hermon_free_mtt(h, &qp->mtt);
err_mtt:
err_buffers:
	hermon_qp_free_buffers(qp);
	hermon_free_qpn(h, qp);
err_qpn:
	kfree(qp);
	return rc;
}

int hermon_modify_qp(struct hermon *h, struct hermon_qp *qp, uint32_t qkey, unsigned mtu,
		     unsigned pkey_index)
{
	uint8_t ctx[HERMONPRM_QP_EE_STATE_TRANSITIONS_ST_BYTES] = { 0 };
	void *qpc, *path;
	int rc = 0;

	qpc = hermonprm_qp_ee_state_transitions_st_qpc_eec_data(ctx);
	path = hermonprm_queue_pair_ee_context_entry_st_primary_address_path(qpc);
	if (qp->type == IB_QPT_GSI)
		qkey = IB_GSI_QKEY;
	if (mtu < 1 || mtu > 5)
		mtu = h->port[qp->port - 1].max_mtu ? h->port[qp->port - 1].max_mtu : 4;
	if (qp->state == IB_QPS_INIT) {
		hermonprm_queue_pair_ee_context_entry_st_set_mtu(qpc, mtu);
		hermonprm_queue_pair_ee_context_entry_st_set_msg_max(qpc, 31);
		hermonprm_address_path_st_set_sched_queue(path, hermon_sched_queue(qp));
		hermonprm_address_path_st_set_pkey_index(path, pkey_index);
		if ((rc = hermon_cmd_init2rtr_qp(h, qp->qpn, ctx)) != 0)
			goto out;
		qp->state = IB_QPS_RTR;
		memset(ctx, 0, HERMONPRM_QP_EE_STATE_TRANSITIONS_ST_BYTES);
	}
	if (qp->state == IB_QPS_RTR) {
		hermonprm_queue_pair_ee_context_entry_st_set_next_send_psn(qpc, 0);
		if ((rc = hermon_cmd_rtr2rts_qp(h, qp->qpn, ctx)) != 0)
			goto out;
		qp->state = IB_QPS_RTS;
		memset(ctx, 0, HERMONPRM_QP_EE_STATE_TRANSITIONS_ST_BYTES);
	}
	if (qp->state != IB_QPS_RTS) {
		hermon_err(h, "QP 0x%x: no transition from state %u", qp->qpn, qp->state);
		rc = -EINVAL;
		goto out;
	}
	hermonprm_qp_ee_state_transitions_st_set_opt_param_mask(ctx, HERMON_QP_OPT_PARAM_QKEY);
	hermonprm_queue_pair_ee_context_entry_st_set_q_key(qpc, qkey);
	if ((rc = hermon_cmd_rts2rts_qp(h, qp->qpn, ctx)) == 0)
		qp->qkey = qkey;
out:
	return rc;
}

int hermon_destroy_qp(struct hermon *h, struct hermon_qp *qp)
{
	/* From now on a late CQE of this QP is reported as one for an unknown QP, never handed to
	 * the core's object, which is about to go. */
	h->qp_table[qp->qpn - h->plan.special_qpn_base] = NULL;
	qp->ibqp = NULL;
	if (h->catastrophic || hermon_cmd_2rst_qp(h, qp->qpn) != 0) {
		/* The HCA may still DMA into the rings: they wait for the reset. */
		hermon_kept(h, "QP", qp->qpn);
		qp->next_qp = h->orphan_qps;
		h->orphan_qps = qp;
		return -EBUSY;
	}
	qp->state = IB_QPS_RESET;
	hermon_free_mtt(h, &qp->mtt);
	hermon_free_qpn(h, qp);
	hermon_free_qp_memory(qp);
	return 0;
}

void hermon_free_qp_memory(struct hermon_qp *qp)
{
	hermon_qp_free_buffers(qp);
	kfree(qp);
}

/* ---- send ---- */

static void hermon_fill_data_seg(void *seg, uint32_t lkey, uint64_t bus, size_t len)
{
	hermonprm_wqe_segment_data_ptr_st_set_byte_count(seg, (uint32_t)len);
	hermonprm_wqe_segment_data_ptr_st_set_l_key(seg, lkey);
	hermonprm_wqe_segment_data_ptr_st_set_local_address_h(seg, (uint32_t)(bus >> 32));
	hermonprm_wqe_segment_data_ptr_st_set_local_address_l(seg, (uint32_t)bus);
}

/* LRH [GRH] BTH DETH of an MLX (QP0/QP1) send, from the wire code's builder (IBA 7.7, 8.3, 9.2,
 * 9.3.3): the HCA sends them as they are, then the payload, and adds ICRC and VCRC. The source
 * LID, GID and P_Key are the port's as the core read them. Returns the length or < 0. */
static int hermon_mlx_headers(const struct hermon_qp *qp, const struct ib_port *port,
			      const struct ib_address_vector *av, size_t len, uint8_t *hdr)
{
	bool smi = qp->type == IB_QPT_SMI;
	struct iblib_pkt pkt = {
		.lrh = {
			.vl = smi ? IBLIB_VL15 : 0, .sl = av->sl, .dlid = av->lid,
			.slid = av->lid == IB_LID_PERMISSIVE ? IB_LID_PERMISSIVE : port->attr.lid,
		},
		.has_grh = av->gid_present && !smi,
		.bth = {
			.opcode = IBLIB_OP_UD_SEND_ONLY, .dest_qp = av->qpn & IB_QPN_MASK,
			.pkey = (smi || !port->attr.pkey) ? IB_DEFAULT_PKEY : port->attr.pkey,
		},
		.deth = { .qkey = smi ? 0 : av->qkey, .src_qp = qp->ext_qpn },
	};

	if (pkt.has_grh) {
		pkt.grh.tclass = av->tclass;
		pkt.grh.flow_label = av->flow_label;
		pkt.grh.hop_limit = av->hop_limit ? av->hop_limit : 0xff;
		memcpy(pkt.grh.sgid.raw, port->gid.raw, IB_GID_LEN);
		memcpy(pkt.grh.dgid.raw, av->gid.raw, IB_GID_LEN);
	}
	return iblib_ud_headers(hdr, MLX_HDR_SLOT, &pkt, len);
}

static void hermon_fill_ud_wqe(struct hermon *h, struct hermon_qp *qp, uint8_t *wqe,
			       const struct ib_address_vector *av, const struct ib_buf *sge)
{
	uint8_t *ud = wqe + CTRL_BYTES;
	void *avec = hermonprm_wqe_segment_ud_st_ud_address_vector(ud);

	hermonprm_wqe_segment_ctrl_send_st_set_ds(wqe, (CTRL_BYTES + UD_SEG_BYTES +
						       DATA_SEG_BYTES) / 16);
	hermonprm_wqe_segment_ctrl_send_st_set_c(wqe, 3);   /* always a CQE */
	hermonprm_ud_address_vector_st_set_pd(avec, HERMON_GLOBAL_PD);
	hermonprm_ud_address_vector_st_set_port_number(avec, qp->port);
	hermonprm_ud_address_vector_st_set_rlid(avec, av->lid);
	hermonprm_ud_address_vector_st_set_g(avec, av->gid_present);
	hermonprm_ud_address_vector_st_set_max_stat_rate(avec, hermon_rate(av->rate));
	hermonprm_ud_address_vector_st_set_sl(avec, av->sl);
	if (av->gid_present) {
		hermonprm_ud_address_vector_st_set_hop_limit(avec, av->hop_limit ? av->hop_limit : 0xff);
		hermonprm_ud_address_vector_st_set_tclass(avec, av->tclass);
		hermonprm_ud_address_vector_st_set_flow_label(avec, av->flow_label);
		hermonprm_ud_address_vector_st_set_rgid_127_96(avec, hermonprm_load_dword(av->gid.raw, 0));
		hermonprm_ud_address_vector_st_set_rgid_95_64(avec, hermonprm_load_dword(av->gid.raw, 1));
		hermonprm_ud_address_vector_st_set_rgid_63_32(avec, hermonprm_load_dword(av->gid.raw, 2));
		hermonprm_ud_address_vector_st_set_rgid_31_0(avec, hermonprm_load_dword(av->gid.raw, 3));
	}
	hermonprm_wqe_segment_ud_st_set_destination_qp(ud, av->qpn);
	hermonprm_wqe_segment_ud_st_set_q_key(ud, av->qkey);
	hermon_fill_data_seg(ud + UD_SEG_BYTES, h->lkey, sge->dma, sge->len);
}

/* MLX: headers from the QP's header ring, the payload, then a 4-byte inline segment for the ICRC
 * the HCA computes (as Linux mlx4 does) - the caller's buffer is never read past its end. */
static int hermon_fill_mlx_wqe(struct hermon *h, struct hermon_qp *qp, uint8_t *wqe,
			       unsigned idx, const struct ib_address_vector *av,
			       const struct ib_buf *sge)
{
	uint8_t *hdr = qp->mlx_hdr + (size_t)idx * MLX_HDR_SLOT;
	int hdr_len = hermon_mlx_headers(qp, qp->ibqp->port, av, sge->len, hdr);
	uint8_t *icrc = wqe + CTRL_BYTES + 2 * DATA_SEG_BYTES;

	if (hdr_len < 0)
		return -EINVAL;
	hermonprm_wqe_segment_ctrl_mlx_st_set_ds(wqe, MLX_WQE_BYTES / 16);
	hermonprm_wqe_segment_ctrl_mlx_st_set_c(wqe, 3);
	hermonprm_wqe_segment_ctrl_mlx_st_set_icrc(wqe, 0);   /* HCA computes the ICRC */
	hermonprm_wqe_segment_ctrl_mlx_st_set_sl(wqe, av->sl);
	hermonprm_wqe_segment_ctrl_mlx_st_set_max_statrate(wqe, hermon_rate(av->rate));
	hermonprm_wqe_segment_ctrl_mlx_st_set_slr(wqe, av->lid == IB_LID_PERMISSIVE);
	hermonprm_wqe_segment_ctrl_mlx_st_set_v15(wqe, qp->type == IB_QPT_SMI);
	hermonprm_wqe_segment_ctrl_mlx_st_set_rlid(wqe, av->lid);
	hermon_fill_data_seg(wqe + CTRL_BYTES, h->lkey, virt_to_bus(hdr), (size_t)hdr_len);
	hermon_fill_data_seg(wqe + CTRL_BYTES + DATA_SEG_BYTES, h->lkey, sge->dma, sge->len);
	hermonprm_wqe_segment_data_inline_st_set_always1(icrc, 1);
	hermonprm_wqe_segment_data_inline_st_set_byte_count(icrc, 4);   /* 4 zero bytes follow */
	return 0;
}

/* The core's post_send op. It never has more sends outstanding than the QP's send slots, so the
 * hardware ring (larger by the prefetch headroom) cannot overflow. */
int hermon_post_send(struct ib_device *dev, struct ib_qp *ibqp, const struct ib_send_wr *wr)
{
	struct hermon *h = hermon_of(dev);
	struct hermon_qp *qp = ibqp->drv_priv;
	unsigned idx = qp->send.next & (qp->send.num_wqes - 1);
	unsigned owner = (qp->send.next & qp->send.num_wqes) ? 1 : 0;
	uint8_t *wqe = qp->send.wqe + (size_t)idx * HERMON_SEND_WQE_SIZE;
	uint8_t db[HERMONPRM_SEND_DB_REGISTER_ST_BYTES] = { 0 };

	if (!wr->av || wr->sge.len > 0x7fffffff)
		return -EINVAL;
	if (qp->state != IB_QPS_RTS)
		return -EIO;
	/* Everything but the first dword (opcode + owner) first. */
	memset(wqe + 4, 0, HERMON_SEND_WQE_SIZE - 4);
	if (qp->type == IB_QPT_UD)
		hermon_fill_ud_wqe(h, qp, wqe, wr->av, &wr->sge);
	else if (hermon_fill_mlx_wqe(h, qp, wqe, idx, wr->av, &wr->sge) != 0)
		return -EINVAL;
	wmb();
	{
		uint8_t dw0[4] = { 0 };   /* not the stamp: its reserved bits must be 0 */

		hermonprm_wqe_segment_ctrl_send_st_set_opcode(dw0, HERMON_OPCODE_SEND);
		hermonprm_wqe_segment_ctrl_send_st_set_owner(dw0, owner);
		memcpy(wqe, dw0, 4);   /* one store of the whole dword */
	}
	qp->send.next++;
	wmb();   /* the WQE is complete in memory before the doorbell */
	hermonprm_send_db_register_st_set_qn(db, qp->qpn);
	writel_be(&h->uar, qp->send.doorbell_off, hermonprm_load_dword(db, 0));
	return 0;
}

/* ---- receive ---- */

/* The core's post_recv op: one scatter entry, the whole buffer - its first 40 bytes take the GRH
 * area the HCA writes for every UD/MLX receive, present or not (IBA 11.4.1.2), the payload follows,
 * so a full-MTU payload fits (iPXE e84c917f3 needed a second entry for that). */
int hermon_post_recv(struct ib_device *dev, struct ib_qp *ibqp, const struct ib_recv_wr *wr)
{
	struct hermon *h = hermon_of(dev);
	struct hermon_qp *qp = ibqp->drv_priv;
	uint8_t *wqe = qp->recv.wqe + (size_t)(qp->recv.next & (qp->recv.num_wqes - 1)) *
				      HERMON_RECV_WQE_SIZE;

	if (wr->sge.len <= IB_GRH_LEN || wr->sge.len > 0x7fffffff)
		return -EINVAL;
	if (qp->state == IB_QPS_ERR || qp->state == IB_QPS_RESET)
		return -EIO;
	hermon_fill_data_seg(wqe, h->lkey, wr->sge.dma, wr->sge.len);
	qp->recv.next++;
	wmb();   /* WQE before the doorbell record that publishes it */
	hermonprm_qp_db_record_st_set_receive_wqe_counter(qp->recv.doorbell, qp->recv.next & 0xffff);
	return 0;
}

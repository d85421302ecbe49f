/* SPDX-License-Identifier: MIT */
/*
 * Queue pairs: QP0/QP1 (MLX transport, software-built headers) and UD, and the posting half of
 * the fastpath.
 *
 * One buffer holds the send ring (128-byte WQEs, plus 2 KiB of headroom because the HCA prefetches
 * past the producer), then the receive ring (32-byte WQEs: GRH scatter entry + packet entry), then
 * the GRH ring. The queue with the larger stride comes first (PRM; Linux mlx4 qp.c does the same).
 *
 * Posting discipline: fill the WQE except its first dword, barrier, write opcode + owner (the pass
 * parity of the producer count), barrier, ring the doorbell. Nothing is allocated per packet.
 */
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/hermon_prm.h>
#include <ibboot/string.h>
#include "hermon.h"

#define DATA_SEG_BYTES HERMONPRM_WQE_SEGMENT_DATA_PTR_ST_BYTES
#define CTRL_BYTES HERMONPRM_WQE_SEGMENT_CTRL_SEND_ST_BYTES
#define UD_SEG_BYTES HERMONPRM_WQE_SEGMENT_UD_ST_BYTES
#define MLX_HDR_SLOT 128   /* LRH 8 + GRH 40 + BTH 12 + DETH 8 = 68 at most */
#define MLX_WQE_BYTES (CTRL_BYTES + 3 * DATA_SEG_BYTES)   /* ctrl, headers, payload, ICRC */

struct hermon_qp *hermon_find_qp(struct hermon *h, uint32_t qpn)
{
	for (struct hermon_qp *qp = h->qps; qp; qp = qp->next_qp)
		if (qp->qpn == qpn)
			return qp;
	return NULL;
}

static int hermon_alloc_qpn(struct hermon *h, const struct hermon_qp_params *p, uint32_t *qpn)
{
	unsigned special;
	int slot;

	switch (p->type) {
	case HERMON_QPT_SMI:
	case HERMON_QPT_GSI:
		/* The special block: QP0 of port 1, 2, then QP1 of port 1, 2 (CONF_SPECIAL_QP). */
		special = (p->type == HERMON_QPT_GSI ? 2 : 0) + (p->port - 1);
		if (h->special_qp_used[special])
			return -EBUSY;
		h->special_qp_used[special] = true;
		*qpn = h->plan.special_qpn_base + special;
		return 0;
	case HERMON_QPT_UD:
		slot = hermon_bitmap_alloc(h->qp_inuse, HERMON_MAX_QPS, 1);
		if (slot < 0) {
			hermon_err(h, "out of queue pairs (%u UD QPs in use)", HERMON_MAX_QPS);
			return slot;
		}
		*qpn = h->plan.qpn_base + (unsigned)slot;
		return 0;
	}
	return -EINVAL;
}

static void hermon_free_qpn(struct hermon *h, const struct hermon_qp *qp)
{
	if (qp->type == HERMON_QPT_UD)
		hermon_bitmap_free(h->qp_inuse, qp->qpn - h->plan.qpn_base, 1);
	else
		h->special_qp_used[qp->qpn - h->plan.special_qpn_base] = false;
}

static unsigned hermon_sched_queue(const struct hermon_qp *qp)
{
	return (qp->type == HERMON_QPT_SMI ? HERMON_SCHED_QP0 : HERMON_SCHED_DEFAULT) |
	       ((qp->port - 1) << 6);
}

/* IBA StaticRate → the HCA's encoding (iPXE, Linux: rate + 5 for 2.5 .. 120 Gb/s). */
static unsigned hermon_rate(unsigned iba_rate)
{
	return (iba_rate >= 2 && iba_rate <= 10) ? iba_rate + 5 : 0;
}

static int hermon_qp_buffers(struct hermon *h, struct hermon_qp *qp,
			     const struct hermon_qp_params *p)
{
	size_t sq_len, rq_len, grh_len;

	qp->send.num_slots = p->num_send;
	qp->send.num_wqes = 1u << hermon_log2_roundup(p->num_send + 1 +
						      HERMON_SQ_HEADROOM / HERMON_SEND_WQE_SIZE);
	qp->recv.num_wqes = p->num_recv;
	if (qp->send.num_wqes > (1u << h->caps.log_max_qp_sz) ||
	    qp->recv.num_wqes > (1u << h->caps.log_max_qp_sz))
		return -EINVAL;
	sq_len = (size_t)qp->send.num_wqes * HERMON_SEND_WQE_SIZE;
	rq_len = (size_t)qp->recv.num_wqes * HERMON_RECV_WQE_SIZE;
	grh_len = (size_t)qp->recv.num_wqes * HERMON_GRH_SIZE;
	qp->wqe_len = sq_len + rq_len + grh_len;
	qp->wqe = dma_alloc(qp->wqe_len, HERMON_PAGE_SIZE);
	if (!qp->wqe)
		return -ENOMEM;
	qp->send.wqe = qp->wqe;
	qp->recv.wqe = (uint8_t *)qp->wqe + sq_len;
	qp->recv.grh = (uint8_t *)qp->wqe + sq_len + rq_len;
	/* Stamp the send ring so prefetched WQEs are invalid; terminate every scatter list. */
	memset(qp->send.wqe, 0xff, sq_len);
	memset(qp->recv.wqe, 0, rq_len + grh_len);
	for (size_t off = 0; off < rq_len; off += DATA_SEG_BYTES)
		hermonprm_wqe_segment_data_ptr_st_set_l_key(qp->recv.wqe + off, HERMON_INVALID_LKEY);

	qp->send.slot = kzalloc(qp->send.num_wqes * sizeof(*qp->send.slot));
	qp->recv.slot = kzalloc(qp->recv.num_wqes * sizeof(*qp->recv.slot));
	qp->recv.doorbell = dma_alloc(4, 4);
	if (!qp->send.slot || !qp->recv.slot || !qp->recv.doorbell)
		return -ENOMEM;
	memset(qp->recv.doorbell, 0, 4);
	qp->send.doorbell_off = (uint64_t)HERMON_UAR_NON_EQ_PAGE * HERMON_PAGE_SIZE +
				HERMON_DB_POST_SND_OFFSET;
	if (p->type != HERMON_QPT_UD) {
		qp->mlx_hdr = dma_alloc((size_t)qp->send.num_wqes * MLX_HDR_SLOT, MLX_HDR_SLOT);
		if (!qp->mlx_hdr)
			return -ENOMEM;
	}
	if (p->recv_buf_size) {
		qp->recv_buf_size = p->recv_buf_size;
		qp->recv_pool_len = p->recv_buf_size * qp->recv.num_wqes;
		qp->recv_pool = dma_alloc(qp->recv_pool_len, 64);
		if (!qp->recv_pool)
			return -ENOMEM;
	}
	return 0;
}

static void hermon_qp_free_buffers(struct hermon_qp *qp)
{
	if (qp->mlx_hdr)
		dma_free(qp->mlx_hdr, (size_t)qp->send.num_wqes * MLX_HDR_SLOT);
	if (qp->recv_pool)
		dma_free(qp->recv_pool, qp->recv_pool_len);
	if (qp->recv.doorbell)
		dma_free(qp->recv.doorbell, 4);
	kfree(qp->recv.slot);
	kfree(qp->send.slot);
	if (qp->wqe)
		dma_free(qp->wqe, qp->wqe_len);
}

static int hermon_rst2init(struct hermon *h, struct hermon_qp *qp)
{
	uint8_t *ctx = kzalloc(HERMONPRM_QP_EE_STATE_TRANSITIONS_ST_BYTES);
	void *qpc, *path;
	uint64_t db = virt_to_bus(qp->recv.doorbell);
	int rc;

	if (!ctx)
		return -ENOMEM;
	qpc = hermonprm_qp_ee_state_transitions_st_qpc_eec_data(ctx);
	path = hermonprm_queue_pair_ee_context_entry_st_primary_address_path(qpc);
	hermonprm_queue_pair_ee_context_entry_st_set_pm_state(qpc, HERMON_PM_STATE_MIGRATED);
	hermonprm_queue_pair_ee_context_entry_st_set_st(qpc, qp->type == HERMON_QPT_UD ?
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
	hermonprm_address_path_st_set_pkey_index(path, 0);
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
	kfree(ctx);
	if (rc == 0)
		qp->state = HERMON_QPS_INIT;
	return rc;
}

int hermon_create_qp(struct hermon *h, const struct hermon_qp_params *p, struct hermon_qp **out)
{
	struct hermon_qp *qp;
	int rc;

	if (p->port < 1 || p->port > h->num_ports || !p->send_cq || !p->recv_cq ||
	    !IS_POW2(p->num_send) || !IS_POW2(p->num_recv))
		return -EINVAL;
	qp = kzalloc(sizeof(*qp));
	if (!qp)
		return -ENOMEM;
	qp->type = p->type;
	qp->port = p->port;
	qp->send_cq = p->send_cq;
	qp->recv_cq = p->recv_cq;
	qp->qkey = p->type == HERMON_QPT_GSI ? HERMON_GSI_QKEY : p->qkey;
	if ((rc = hermon_alloc_qpn(h, p, &qp->qpn)) != 0)
		goto err_qpn;
	qp->ext_qpn = p->type == HERMON_QPT_SMI ? 0 : p->type == HERMON_QPT_GSI ? 1 : qp->qpn;
	if ((rc = hermon_qp_buffers(h, qp, p)) != 0) {
		if (rc == -ENOMEM)
			hermon_err(h, "cannot allocate QP 0x%x rings", qp->qpn);
		goto err_buffers;
	}
	if ((rc = hermon_alloc_mtt(h, qp->wqe, qp->wqe_len, &qp->mtt)) != 0)
		goto err_mtt;
	if ((rc = hermon_rst2init(h, qp)) != 0)
		goto err_rst2init;
	qp->next_qp = h->qps;
	h->qps = qp;
	if (qp->recv_pool) {
		for (unsigned i = 0; i < qp->recv.num_wqes; i++) {
			void *buf = qp->recv_pool + i * qp->recv_buf_size;

			if ((rc = hermon_post_recv(h, qp, buf, qp->recv_buf_size, buf)) != 0)
				goto err_post;
		}
	}
	*out = qp;
	return 0;

err_post:
	h->qps = qp->next_qp;
	hermon_cmd_2rst_qp(h, qp->qpn);
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
	uint8_t *ctx = kzalloc(HERMONPRM_QP_EE_STATE_TRANSITIONS_ST_BYTES);
	void *qpc, *path;
	int rc = 0;

	if (!ctx)
		return -ENOMEM;
	qpc = hermonprm_qp_ee_state_transitions_st_qpc_eec_data(ctx);
	path = hermonprm_queue_pair_ee_context_entry_st_primary_address_path(qpc);
	if (qp->type == HERMON_QPT_GSI)
		qkey = HERMON_GSI_QKEY;
	if (mtu < 1 || mtu > 5)
		mtu = h->port[qp->port - 1].max_mtu ? h->port[qp->port - 1].max_mtu : 4;
	if (qp->state == HERMON_QPS_INIT) {
		hermonprm_queue_pair_ee_context_entry_st_set_mtu(qpc, mtu);
		hermonprm_queue_pair_ee_context_entry_st_set_msg_max(qpc, 31);
		hermonprm_address_path_st_set_sched_queue(path, hermon_sched_queue(qp));
		hermonprm_address_path_st_set_pkey_index(path, pkey_index);
		if ((rc = hermon_cmd_init2rtr_qp(h, qp->qpn, ctx)) != 0)
			goto out;
		qp->state = HERMON_QPS_RTR;
		memset(ctx, 0, HERMONPRM_QP_EE_STATE_TRANSITIONS_ST_BYTES);
	}
	if (qp->state == HERMON_QPS_RTR) {
		hermonprm_queue_pair_ee_context_entry_st_set_next_send_psn(qpc, 0);
		if ((rc = hermon_cmd_rtr2rts_qp(h, qp->qpn, ctx)) != 0)
			goto out;
		qp->state = HERMON_QPS_RTS;
		memset(ctx, 0, HERMONPRM_QP_EE_STATE_TRANSITIONS_ST_BYTES);
	}
	if (qp->state != HERMON_QPS_RTS) {
		hermon_err(h, "QP 0x%x cannot be modified from state %u", qp->qpn, qp->state);
		rc = -EINVAL;
		goto out;
	}
	hermonprm_qp_ee_state_transitions_st_set_opt_param_mask(ctx, HERMON_QP_OPT_PARAM_QKEY);
	hermonprm_queue_pair_ee_context_entry_st_set_q_key(qpc, qkey);
	if ((rc = hermon_cmd_rts2rts_qp(h, qp->qpn, ctx)) == 0)
		qp->qkey = qkey;
out:
	kfree(ctx);
	return rc;
}

void hermon_destroy_qp(struct hermon *h, struct hermon_qp *qp)
{
	struct hermon_qp **pp;

	for (pp = &h->qps; *pp && *pp != qp; pp = &(*pp)->next_qp)
		;
	if (*pp)
		*pp = qp->next_qp;
	if (h->catastrophic || hermon_cmd_2rst_qp(h, qp->qpn) != 0) {
		/* The HCA may still DMA into the rings: they wait for the reset. */
		hermon_err(h, "QP 0x%x not returned to reset; its rings are kept until reset",
			   qp->qpn);
		qp->next_qp = h->orphan_qps;
		h->orphan_qps = qp;
		return;
	}
	qp->state = HERMON_QPS_RESET;
	hermon_free_mtt(h, &qp->mtt);
	hermon_free_qpn(h, qp);
	hermon_free_qp_memory(qp);
}

void hermon_free_qp_memory(struct hermon_qp *qp)
{
	hermon_qp_free_buffers(qp);
	kfree(qp);
}

/* ---- send ---- */

static void hermon_fill_data_seg(void *seg, uint32_t lkey, const void *buf, size_t len)
{
	uint64_t bus = virt_to_bus(buf);

	hermonprm_wqe_segment_data_ptr_st_set_byte_count(seg, (uint32_t)len);
	hermonprm_wqe_segment_data_ptr_st_set_l_key(seg, lkey);
	hermonprm_wqe_segment_data_ptr_st_set_local_address_h(seg, (uint32_t)(bus >> 32));
	hermonprm_wqe_segment_data_ptr_st_set_local_address_l(seg, (uint32_t)bus);
}

static void put_be16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* IBA 9.x/7.7: LRH, optional GRH, BTH (UD SEND only), DETH — the firmware adds ICRC and VCRC. */
size_t hermon_build_mlx_headers(struct hermon *h, const struct hermon_qp *qp,
				const struct hermon_av *av, size_t payload_len, uint8_t *hdr)
{
	const struct hermon_port_attr *attr = &h->port[qp->port - 1].attr;
	bool smi = qp->type == HERMON_QPT_SMI, grh = av->gid_present && !smi;
	size_t len = 8 + (grh ? 40 : 0) + 12 + 8;
	size_t pad = (4 - (payload_len & 3)) & 3;
	uint16_t slid = av->lid == 0xffff ? 0xffff : attr->lid;
	uint8_t *p = hdr;

	/* LRH: VL15 for SMPs, LNH 2 = BTH next, 3 = GRH next; length in words incl. ICRC. */
	p[0] = (uint8_t)((smi ? 15 : 0) << 4);
	p[1] = (uint8_t)((av->sl & 0xf) << 4 | (grh ? 3 : 2));
	put_be16(p + 2, av->lid);
	put_be16(p + 4, (uint16_t)((len + payload_len + pad + 4) / 4));
	put_be16(p + 6, slid);
	p += 8;
	if (grh) {
		put_be32(p, 6u << 28 | (uint32_t)av->tclass << 20 | (av->flow_label & 0xfffff));
		put_be16(p + 4, (uint16_t)(12 + 8 + payload_len + pad + 4));
		p[6] = 0x1b;   /* next header: BTH */
		p[7] = av->hop_limit ? av->hop_limit : 0xff;
		for (unsigned i = 0; i < 8; i++) {
			p[8 + i] = (uint8_t)(attr->gid_prefix >> (56 - 8 * i));
			p[16 + i] = (uint8_t)(attr->port_guid >> (56 - 8 * i));
		}
		memcpy(p + 24, av->gid, 16);
		p += 40;
	}
	/* BTH: opcode 0x64 = UD SEND only; pad count; P_Key; destination QP; PSN 0. */
	p[0] = 0x64;
	p[1] = (uint8_t)(pad << 4);
	put_be16(p + 2, smi ? 0xffff : (av->pkey ? av->pkey : 0xffff));
	put_be32(p + 4, av->qpn & 0x00ffffff);
	put_be32(p + 8, 0);
	p += 12;
	/* DETH: Q_Key, source QP (0 or 1: what the fabric knows the special QPs as). */
	put_be32(p, smi ? 0 : av->qkey);
	put_be32(p + 4, qp->ext_qpn & 0x00ffffff);
	return len;
}

static void hermon_fill_ud_wqe(struct hermon *h, struct hermon_qp *qp, uint8_t *wqe,
			       const struct hermon_av *av, const void *buf, size_t len)
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
		hermonprm_ud_address_vector_st_set_rgid_127_96(avec, hermonprm_load_dword(av->gid, 0));
		hermonprm_ud_address_vector_st_set_rgid_95_64(avec, hermonprm_load_dword(av->gid, 1));
		hermonprm_ud_address_vector_st_set_rgid_63_32(avec, hermonprm_load_dword(av->gid, 2));
		hermonprm_ud_address_vector_st_set_rgid_31_0(avec, hermonprm_load_dword(av->gid, 3));
	}
	hermonprm_wqe_segment_ud_st_set_destination_qp(ud, av->qpn);
	hermonprm_wqe_segment_ud_st_set_q_key(ud, av->qkey);
	hermon_fill_data_seg(ud + UD_SEG_BYTES, h->lkey, buf, len);
}

/* MLX: headers from the QP's header ring, the payload, then a 4-byte inline segment for the ICRC
 * the HCA computes (as Linux mlx4 does) — the caller's buffer is never read past its end. */
static void hermon_fill_mlx_wqe(struct hermon *h, struct hermon_qp *qp, uint8_t *wqe,
				unsigned idx, const struct hermon_av *av, const void *buf, size_t len)
{
	uint8_t *hdr = qp->mlx_hdr + (size_t)idx * MLX_HDR_SLOT;
	size_t hdr_len = hermon_build_mlx_headers(h, qp, av, len, hdr);
	uint8_t *icrc = wqe + CTRL_BYTES + 2 * DATA_SEG_BYTES;

	hermonprm_wqe_segment_ctrl_mlx_st_set_ds(wqe, MLX_WQE_BYTES / 16);
	hermonprm_wqe_segment_ctrl_mlx_st_set_c(wqe, 3);
	hermonprm_wqe_segment_ctrl_mlx_st_set_icrc(wqe, 0);   /* HCA computes the ICRC */
	hermonprm_wqe_segment_ctrl_mlx_st_set_sl(wqe, av->sl);
	hermonprm_wqe_segment_ctrl_mlx_st_set_max_statrate(wqe, hermon_rate(av->rate));
	hermonprm_wqe_segment_ctrl_mlx_st_set_slr(wqe, av->lid == 0xffff);   /* permissive DLID */
	hermonprm_wqe_segment_ctrl_mlx_st_set_v15(wqe, qp->type == HERMON_QPT_SMI);
	hermonprm_wqe_segment_ctrl_mlx_st_set_rlid(wqe, av->lid);
	hermon_fill_data_seg(wqe + CTRL_BYTES, h->lkey, hdr, hdr_len);
	hermon_fill_data_seg(wqe + CTRL_BYTES + DATA_SEG_BYTES, h->lkey, buf, len);
	hermonprm_wqe_segment_data_inline_st_set_always1(icrc, 1);
	hermonprm_wqe_segment_data_inline_st_set_byte_count(icrc, 4);   /* 4 zero bytes follow */
}

int hermon_post_send(struct hermon *h, struct hermon_qp *qp, const struct hermon_av *av,
		     const void *buf, size_t len, void *cookie)
{
	unsigned idx = qp->send.next & (qp->send.num_wqes - 1);
	unsigned owner = (qp->send.next & qp->send.num_wqes) ? 1 : 0;
	uint8_t *wqe = qp->send.wqe + (size_t)idx * HERMON_SEND_WQE_SIZE;
	uint8_t db[HERMONPRM_SEND_DB_REGISTER_ST_BYTES] = { 0 };

	if (!cookie || len > 0x7fffffff)
		return -EINVAL;
	if (qp->state != HERMON_QPS_RTS)
		return -EIO;
	if (qp->send.outstanding >= qp->send.num_slots || qp->send.slot[idx].cookie)
		return -ENOSPC;
	qp->send.slot[idx] = (struct hermon_wq_slot){ cookie, (void *)(uintptr_t)buf, len, NULL };
	qp->send.outstanding++;

	/* Everything but the first dword (opcode + owner) first. */
	memset(wqe + 4, 0, HERMON_SEND_WQE_SIZE - 4);
	if (qp->type == HERMON_QPT_UD)
		hermon_fill_ud_wqe(h, qp, wqe, av, buf, len);
	else
		hermon_fill_mlx_wqe(h, qp, wqe, idx, av, buf, len);
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

static int hermon_post_recv_to(struct hermon *h, struct hermon_qp *qp, uint8_t *grh, void *buf,
				size_t len, void *cookie)
{
	unsigned idx = qp->recv.next & (qp->recv.num_wqes - 1);
	uint8_t *wqe = qp->recv.wqe + (size_t)idx * HERMON_RECV_WQE_SIZE;

	if (!cookie || !buf || len == 0 || len > 0x7fffffff)
		return -EINVAL;
	if (qp->state == HERMON_QPS_ERR || qp->state == HERMON_QPS_RESET)
		return -EIO;
	if (qp->recv.slot[idx].cookie)
		return -ENOSPC;
	qp->recv.slot[idx] = (struct hermon_wq_slot){ cookie, buf, len, grh };
	qp->recv.outstanding++;
	/* Scatter entry 0: the GRH area (always written for UD/MLX, present or not); entry 1: the
	 * packet — so a full-MTU payload fits its buffer (iPXE e84c917f3). */
	hermon_fill_data_seg(wqe, h->lkey, grh, HERMON_GRH_SIZE);
	hermon_fill_data_seg(wqe + DATA_SEG_BYTES, h->lkey, buf, len);
	qp->recv.next++;
	wmb();   /* WQE before the doorbell record that publishes it */
	hermonprm_qp_db_record_st_set_receive_wqe_counter(qp->recv.doorbell, qp->recv.next & 0xffff);
	return 0;
}

int hermon_post_recv(struct hermon *h, struct hermon_qp *qp, void *buf, size_t len, void *cookie)
{
	unsigned idx = qp->recv.next & (qp->recv.num_wqes - 1);

	return hermon_post_recv_to(h, qp, qp->recv.grh + idx * HERMON_GRH_SIZE, buf, len, cookie);
}

int hermon_post_recv_grh(struct hermon *h, struct hermon_qp *qp, void *buf, size_t len,
			 void *cookie)
{
	if (len <= HERMON_GRH_SIZE)
		return -EINVAL;
	return hermon_post_recv_to(h, qp, buf, (uint8_t *)buf + HERMON_GRH_SIZE,
				   len - HERMON_GRH_SIZE, cookie);
}

/* SPDX-License-Identifier: MIT */
/*
 * The event queue: one, polled, never armed (no interrupts in a boot loader). Every event type is
 * mapped to it, so port changes, catastrophic errors and queue errors are all seen and reported.
 *
 * Ownership: an EQE at consumer count c is software's when its owner bit equals (c / size) & 1 —
 * the hardware flips the bit it writes on every pass of the ring (PRM "EQ"; Linux mlx4 eq.c).
 */
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/hermon_prm.h>
#include <ibboot/string.h>
#include "hermon.h"

#define HERMON_EQE_SIZE HERMONPRM_EVENT_QUEUE_ENTRY_ST_BYTES
#define HERMON_EQ_ST_FIRED 0xa
#define HERMON_QN_MASK 0x00ffffffu

int hermon_create_eq(struct hermon *h)
{
	struct hermon_eq *eq = &h->eq;
	uint8_t eqc[HERMONPRM_EQC_ST_BYTES];
	int rc;

	eq->eqn = h->plan.eqn;
	eq->doorbell_off = HERMON_DB_EQ_OFFSET(eq->eqn);
	eq->eqe_len = HERMON_NUM_EQES * HERMON_EQE_SIZE;
	eq->eqe = dma_alloc(eq->eqe_len, eq->eqe_len);
	if (!eq->eqe) {
		rc = -ENOMEM;
		goto err_alloc;
	}
	memset(eq->eqe, 0, eq->eqe_len);
	for (unsigned i = 0; i < HERMON_NUM_EQES; i++)
		hermonprm_event_queue_entry_st_set_owner((uint8_t *)eq->eqe + i * HERMON_EQE_SIZE, 1);
	eq->next = 0;
	wmb();

	if ((rc = hermon_alloc_mtt(h, eq->eqe, eq->eqe_len, &eq->mtt)) != 0)
		goto err_mtt;

	memset(eqc, 0, sizeof(eqc));
	hermonprm_eqc_st_set_st(eqc, HERMON_EQ_ST_FIRED);
	hermonprm_eqc_st_set_oi(eqc, 1);   /* overrun ignore: a slow poller must not kill the HCA */
	hermonprm_eqc_st_set_page_offset(eqc, eq->mtt.page_offset >> 5);
	hermonprm_eqc_st_set_log_eq_size(eqc, hermon_log2_roundup(HERMON_NUM_EQES));
	hermonprm_eqc_st_set_intr(eqc, 0);
	hermonprm_eqc_st_set_mtt_base_addr_h(eqc, (uint32_t)(eq->mtt.mtt_base_addr >> 32));
	hermonprm_eqc_st_set_mtt_base_addr_l(eqc, (uint32_t)eq->mtt.mtt_base_addr >> 3);
	if ((rc = hermon_cmd_sw2hw_eq(h, eq->eqn, eqc)) != 0)
		goto err_sw2hw;
	eq->sw2hw = true;

	if ((rc = hermon_cmd_map_eq(h, eq->eqn, false, ~0ull)) != 0)
		goto err_map;
	eq->mapped = true;
	h->stage = HERMON_STAGE_EQ;
	return 0;

err_map:
	hermon_cmd_hw2sw_eq(h, eq->eqn, eqc);
	eq->sw2hw = false;
err_sw2hw:
	hermon_free_mtt(h, &eq->mtt);
err_mtt:
	dma_free(eq->eqe, eq->eqe_len);
	eq->eqe = NULL;
err_alloc:
	if (rc == -ENOMEM)
		hermon_err(h, "cannot allocate the event queue ring");
	return rc;
}

void hermon_destroy_eq(struct hermon *h)
{
	struct hermon_eq *eq = &h->eq;
	uint8_t eqc[HERMONPRM_EQC_ST_BYTES];

	if (eq->mapped)
		hermon_cmd_map_eq(h, eq->eqn, true, ~0ull);
	eq->mapped = false;
	if (eq->sw2hw && hermon_cmd_hw2sw_eq(h, eq->eqn, eqc) != 0) {
		/* The HCA may still write the ring: keep it until the reset. */
		hermon_err(h, "EQ %u still owned by hardware; its ring is kept until reset", eq->eqn);
		eq->sw2hw = false;
		eq->orphan = true;
		return;
	}
	eq->sw2hw = false;
	hermon_free_mtt(h, &eq->mtt);
	if (eq->eqe)
		dma_free(eq->eqe, eq->eqe_len);
	eq->eqe = NULL;
	if (h->stage > HERMON_STAGE_MPT)
		h->stage = HERMON_STAGE_MPT;
}

static void hermon_emit(struct hermon *h, unsigned type, unsigned port, uint32_t qn, uint32_t info)
{
	struct hermon_event ev = { type, port, qn, info };

	if (h->event)
		h->event(h->event_ctx, &ev);
}

static uint32_t hermon_port_changes(const struct hermon_port_attr *a,
				    const struct hermon_port_attr *b)
{
	uint32_t f = 0;

	if (a->lid != b->lid || a->lmc != b->lmc)
		f |= HERMON_PORT_CHANGED_LID;
	if (a->sm_lid != b->sm_lid || a->sm_sl != b->sm_sl)
		f |= HERMON_PORT_CHANGED_SM;
	if (memcmp(a->pkey, b->pkey, sizeof(a->pkey)) != 0)
		f |= HERMON_PORT_CHANGED_PKEY;
	if (a->gid_prefix != b->gid_prefix || a->port_guid != b->port_guid)
		f |= HERMON_PORT_CHANGED_GID;
	return f ? f : HERMON_PORT_CHANGED_NONE_VISIBLE;
}

static void hermon_event_port(struct hermon *h, unsigned port, unsigned type)
{
	struct hermon_port *p;
	uint32_t changes;

	if (port < 1 || port > h->num_ports) {
		/* Unknown port: refresh them all rather than guess. */
		for (unsigned i = 1; i <= h->num_ports; i++)
			hermon_event_port(h, i, type);
		return;
	}
	p = &h->port[port - 1];
	if (type == HERMON_EV_PORT_STATE_CHANGE)
		p->state_events++;
	else
		p->mgmt_events++;
	if (p->open)
		hermon_query_port_attr(h, port, &p->attr);
	/* Compared with the previous event's view, not the last read: a forwarded Set re-reads the
	 * attributes before its event arrives. */
	changes = hermon_port_changes(&p->ev_attr, &p->attr);
	p->ev_attr = p->attr;
	hermon_emit(h, type, port, 0, type == HERMON_EV_PORT_MGMNT_CHANGE ? changes : 0);
}

static void hermon_handle_event(struct hermon *h, const uint8_t *eqe)
{
	unsigned type = hermonprm_event_queue_entry_st_get_event_type(eqe);
	unsigned sub = hermonprm_event_queue_entry_st_get_event_sub_type(eqe);
	uint32_t data0 = hermonprm_event_queue_entry_st_get_event_data(eqe, 0);
	uint32_t data1 = hermonprm_event_queue_entry_st_get_event_data(eqe, 1);

	h->eq.events++;
	h->eq.last_type = (uint8_t)type;
	h->eq.last_sub_type = (uint8_t)sub;
	switch (type) {
	case HERMON_EV_PORT_STATE_CHANGE: {
		const void *d = hermonprm_port_state_change_event_st_data((void *)(uintptr_t)eqe);

		hermon_event_port(h, hermonprm_port_state_change_st_get_p(d), type);
		break;
	}
	case HERMON_EV_PORT_MGMNT_CHANGE:
		/* iPXE's layout puts the port in EQE byte 7, Linux's in byte 6: trust it only when
		 * it names a port we have; otherwise every port is refreshed. */
		hermon_event_port(h, hermonprm_port_mgmnt_change_event_st_get_port(eqe), type);
		break;
	case HERMON_EV_CATAS_ERROR:
		h->catastrophic = true;
		hermon_err(h, "catastrophic error event (sub-type 0x%02x) — run `fwdump`, then "
			   "reset the HCA", sub);
		hermon_emit(h, type, 0, 0, sub);
		break;
	case HERMON_EV_CQ_ERROR:
		hermon_err(h, "CQ 0x%x error (overrun or access error, syndrome 0x%x)",
			   data0 & HERMON_QN_MASK, data1 & 0xff);
		hermon_emit(h, type, 0, data0 & HERMON_QN_MASK, data1 & 0xff);
		break;
	case HERMON_EV_WQ_CATAS_ERROR:
	case HERMON_EV_WQ_ACCESS_ERROR: {
		struct hermon_qp *qp = hermon_find_qp(h, data0 & HERMON_QN_MASK);

		hermon_err(h, "QP 0x%x work queue %s error event (type 0x%02x)",
			   data0 & HERMON_QN_MASK,
			   type == HERMON_EV_WQ_ACCESS_ERROR ? "access" : "catastrophic", type);
		if (qp)
			qp->state = HERMON_QPS_ERR;
		hermon_emit(h, type, 0, data0 & HERMON_QN_MASK, sub);
		break;
	}
	default:
		h->eq.unknown_events++;
		break;
	}
}

void hermon_poll_eq(struct hermon *h)
{
	struct hermon_eq *eq = &h->eq;
	bool consumed = false;

	if (!eq->sw2hw)
		return;
	for (;;) {
		uint8_t *eqe = (uint8_t *)eq->eqe + (eq->next % HERMON_NUM_EQES) * HERMON_EQE_SIZE;
		unsigned sw_parity = (eq->next / HERMON_NUM_EQES) & 1;

		if (hermonprm_event_queue_entry_st_get_owner(eqe) != sw_parity)
			break;
		rmb();   /* read the entry only after its owner bit */
		hermon_handle_event(h, eqe);
		eq->next++;
		consumed = true;
	}
	if (consumed) {
		/* Consumer index, never armed (bit 31 = 0): a polled EQ raises no interrupt. */
		uint8_t db[HERMONPRM_EVENT_DB_REGISTER_ST_BYTES] = { 0 };

		hermonprm_event_db_register_st_set_ci(db, eq->next & HERMON_QN_MASK);
		hermonprm_event_db_register_st_set_a(db, 0);
		wmb();
		writel_be(&h->uar, eq->doorbell_off, hermonprm_load_dword(db, 0));
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * The event queue: one, polled, never armed (no interrupts in a boot loader). Every event type is
 * mapped to it, so port changes, catastrophic errors and queue errors are all seen and reported.
 *
 * Ownership: an EQE at consumer count c is software's when its owner bit equals (c / size) & 1 —
 * the hardware flips the bit it writes on every pass of the ring (PRM "EQ"; Linux mlx4 eq.c).
 *
 * hermon_poll_eq is the core's poll_eq op: each EQE becomes a struct ib_event. A port event says
 * only which port; what changed the core finds out by reading PortInfo (Hermon's management
 * change event does not say, and a ClientReregister shows in no attribute one can read).
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
		goto err_alloc;

	memset(eqc, 0, sizeof(eqc));
	hermonprm_eqc_st_set_st(eqc, HERMON_EQ_ST_FIRED);
	hermonprm_eqc_st_set_oi(eqc, 1);   /* overrun ignore: a slow poller must not kill the HCA */
	hermonprm_eqc_st_set_page_offset(eqc, eq->mtt.page_offset >> 5);
	hermonprm_eqc_st_set_log_eq_size(eqc, hermon_log2_roundup(HERMON_NUM_EQES));
	hermonprm_eqc_st_set_intr(eqc, 0);
	hermonprm_eqc_st_set_mtt_base_addr_h(eqc, (uint32_t)(eq->mtt.mtt_base_addr >> 32));
	hermonprm_eqc_st_set_mtt_base_addr_l(eqc, (uint32_t)eq->mtt.mtt_base_addr >> 3);
	/* On failure the caller's teardown (hermon_destroy_eq) undoes what was done. */
	if ((rc = hermon_cmd_sw2hw_eq(h, eq->eqn, eqc)) != 0)
		return rc;
	eq->sw2hw = true;
	if ((rc = hermon_cmd_map_eq(h, eq->eqn, false, ~0ull)) != 0)
		return rc;
	eq->mapped = true;
	h->stage = HERMON_STAGE_EQ;
	return 0;

err_alloc:
	if (rc == -ENOMEM)
		hermon_err(h, "cannot allocate EQ");
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
		hermon_kept(h, "EQ", eq->eqn);
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

/* Port events name a port; one the HCA does not have means "look at them all". */
static unsigned hermon_event_ports(struct hermon *h, unsigned port, enum ib_event_type type,
				   struct ib_event *ev, unsigned room)
{
	unsigned first = port, last = port, n = 0;

	if (port < 1 || port > h->num_ports) {
		first = 1;
		last = h->num_ports;
	}
	for (unsigned p = first; p <= last && n < room; p++) {
		if (type == IB_EVENT_PORT_CHANGE)
			h->port[p - 1].state_events++;
		else
			h->port[p - 1].mgmt_events++;
		ev[n++] = (struct ib_event){ .type = type, .port = (uint8_t)p };
	}
	return n;
}

static struct ib_cq *hermon_ibcq(struct hermon *h, uint32_t cqn)
{
	for (struct hermon_cq *cq = h->cqs; cq; cq = cq->next_cq)
		if (cq->cqn == cqn)
			return cq->ibcq;
	return NULL;
}

/* One EQE into ev[] (room >= HERMON_MAX_PORTS); returns how many events it made. */
static unsigned hermon_handle_event(struct hermon *h, const uint8_t *eqe, struct ib_event *ev)
{
	unsigned type = hermonprm_event_queue_entry_st_get_event_type(eqe);
	unsigned sub = hermonprm_event_queue_entry_st_get_event_sub_type(eqe);
	uint32_t data0 = hermonprm_event_queue_entry_st_get_event_data(eqe, 0);
	uint32_t data1 = hermonprm_event_queue_entry_st_get_event_data(eqe, 1);
	uint32_t qn = data0 & HERMON_QN_MASK;

	h->eq.events++;
	h->eq.last_type = (uint8_t)type;
	h->eq.last_sub_type = (uint8_t)sub;
	switch (type) {
	case HERMON_EV_PORT_STATE_CHANGE: {
		const void *d = hermonprm_port_state_change_event_st_data((void *)(uintptr_t)eqe);

		return hermon_event_ports(h, hermonprm_port_state_change_st_get_p(d),
					  IB_EVENT_PORT_CHANGE, ev, HERMON_MAX_PORTS);
	}
	case HERMON_EV_PORT_MGMNT_CHANGE:
		/* iPXE's layout puts the port in EQE byte 7, Linux's in byte 6: trust it only when
		 * it names a port we have; otherwise every port is looked at. */
		return hermon_event_ports(h, hermonprm_port_mgmnt_change_event_st_get_port(eqe),
					  IB_EVENT_PORT_MGMT, ev, HERMON_MAX_PORTS);
	case HERMON_EV_CATAS_ERROR:
		h->catastrophic = true;
		ev[0] = (struct ib_event){ .type = IB_EVENT_CATASTROPHIC, .syndrome = sub };
		return 1;
	case HERMON_EV_CQ_ERROR:
		ev[0] = (struct ib_event){ .type = IB_EVENT_CQ_ERROR, .cq = hermon_ibcq(h, qn),
					   .syndrome = data1 & 0xff };
		return 1;
	case HERMON_EV_WQ_CATAS_ERROR:
	case HERMON_EV_WQ_ACCESS_ERROR: {
		struct hermon_qp *qp = hermon_find_qp(h, qn);

		if (qp)
			qp->state = IB_QPS_ERR;
		/* The event type (work queue catastrophic or access error) is what tells them apart. */
		ev[0] = (struct ib_event){ .type = IB_EVENT_QP_ERROR, .qp = qp ? qp->ibqp : NULL,
					   .syndrome = type };
		return 1;
	}
	default:
		h->eq.unknown_events++;
		return 0;
	}
}

int hermon_poll_eq(struct ib_device *dev, struct ib_event *ev, unsigned max)
{
	struct hermon *h = hermon_of(dev);
	struct hermon_eq *eq = &h->eq;
	uint32_t start = eq->next;
	unsigned n = 0;

	if (!eq->sw2hw)
		return 0;
	/* An EQE can make an event per port: stop while there is room for that many. */
	while (n + HERMON_MAX_PORTS <= max) {
		uint8_t *eqe = (uint8_t *)eq->eqe + (eq->next % HERMON_NUM_EQES) * HERMON_EQE_SIZE;
		unsigned sw_parity = (eq->next / HERMON_NUM_EQES) & 1;

		if (hermonprm_event_queue_entry_st_get_owner(eqe) != sw_parity)
			break;
		rmb();   /* read the entry only after its owner bit */
		n += hermon_handle_event(h, eqe, ev + n);
		eq->next++;
	}
	if (eq->next != start) {
		/* Consumer index, never armed (bit 31 = 0): a polled EQ raises no interrupt. */
		uint8_t db[HERMONPRM_EVENT_DB_REGISTER_ST_BYTES] = { 0 };

		hermonprm_event_db_register_st_set_ci(db, eq->next & HERMON_QN_MASK);
		hermonprm_event_db_register_st_set_a(db, 0);
		wmb();
		writel_be(&h->uar, eq->doorbell_off, hermonprm_load_dword(db, 0));
	}
	return (int)n;
}

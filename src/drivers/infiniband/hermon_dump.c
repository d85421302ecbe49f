/* SPDX-License-Identifier: MIT */
/*
 * `fwdump`: the catastrophic-error buffer (location from QUERY_FW) and the driver's view of every
 * queue beside the hardware's (QUERY_EQ / QUERY_CQ / QUERY_QP), so a stuck queue shows where the
 * two disagree.
 */
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/hermon_prm.h>
#include <ibboot/string.h>
#include "hermon.h"

static const char *const hermon_stage_names[] = {
	"reset", "firmware area mapped", "firmware running", "AUX ICM mapped", "ICM mapped",
	"HCA initialised", "MPT set", "EQ set", "running",
};

static const char *const hermon_qp_type_names[] = { "SMI", "GSI", "UD", "RC" };
static const char *const hermon_qp_state_names[] = { "RESET", "INIT", "RTR", "RTS", "ERR" };

static void hermon_dump_error_buffer(struct hermon *h)
{
	unsigned n = h->err_buf_size;
	bool any = false;

	if (h->stage == HERMON_STAGE_RESET || n == 0) {
		hermon_info(h, "catastrophic error buffer: not available (firmware not running)");
		return;
	}
	if (h->err_buf_bar != 0 || h->err_buf_offset + 4ull * n > h->config.size) {
		hermon_info(h, "catastrophic error buffer: BAR %u offset 0x%llx size %u — outside BAR0",
			    h->err_buf_bar, (unsigned long long)h->err_buf_offset, n);
		return;
	}
	if (n > 64)
		n = 64;
	for (unsigned i = 0; i < n; i++) {
		uint32_t v = readl_be(&h->config, h->err_buf_offset + 4 * i);

		if (v) {
			hermon_info(h, "  catas[%02u] 0x%08x", i, v);
			any = true;
		}
	}
	if (!any)
		hermon_info(h, "catastrophic error buffer (%u dwords at 0x%llx): all zero",
			    h->err_buf_size, (unsigned long long)h->err_buf_offset);
}

void hermon_dump(struct hermon *h)
{
	uint8_t *ctx = kzalloc(HERMONPRM_QP_EE_STATE_TRANSITIONS_ST_BYTES);

	hermon_info(h, "fwdump: firmware %u.%u.%u, stage %s, last failed command %s status 0x%02x",
		    h->fw_major, h->fw_minor, h->fw_subminor,
		    h->stage < ARRAY_SIZE(hermon_stage_names) ? hermon_stage_names[h->stage] : "?",
		    h->last_status ? hermon_opcode_name(h->last_opcode) : "none", h->last_status);
	hermon_info(h, "memory given to the HCA: FA %zu KiB, AUX %zu KiB, ICM %llu KiB; L_Key 0x%08x "
		    "(MPT %u, local read/write only)", h->fa.len / 1024, h->aux.len / 1024,
		    (unsigned long long)h->plan.mapped_len / 1024, h->lkey, h->mpt_index);
	hermon_dump_error_buffer(h);
	if (!ctx || h->stage != HERMON_STAGE_RUNNING) {
		kfree(ctx);
		return;
	}

	if (hermon_cmd_query_eq(h, h->eq.eqn, ctx) == 0)
		hermon_info(h, "EQ %u: %u entries, driver consumer %u | hw producer %u consumer %u; "
			    "%u events (%u unknown), last type 0x%02x", h->eq.eqn, HERMON_NUM_EQES,
			    h->eq.next, hermonprm_eqc_st_get_producer_counter(ctx),
			    hermonprm_eqc_st_get_consumer_counter(ctx), h->eq.events,
			    h->eq.unknown_events, h->eq.last_type);
	for (struct hermon_cq *cq = h->cqs; cq; cq = cq->next_cq) {
		memset(ctx, 0, HERMONPRM_COMPLETION_QUEUE_CONTEXT_ST_BYTES);
		if (hermon_cmd_query_cq(h, cq->cqn, ctx) != 0)
			continue;
		hermon_info(h, "CQ 0x%x: %u entries, driver consumer %u | hw producer %u consumer %u "
			    "state 0x%x; %u error CQEs", cq->cqn, cq->num_cqes, cq->next,
			    hermonprm_completion_queue_context_st_get_producer_counter(ctx),
			    hermonprm_completion_queue_context_st_get_consumer_counter(ctx),
			    hermonprm_completion_queue_context_st_get_st(ctx), cq->errors);
	}
	for (unsigned i = 0; i < ARRAY_SIZE(h->qp_table); i++) {
		const struct hermon_qp *qp = h->qp_table[i];
		unsigned hw_state = 0xf;

		if (!qp)
			continue;
		memset(ctx, 0, HERMONPRM_QP_EE_STATE_TRANSITIONS_ST_BYTES);
		if (hermon_cmd_query_qp(h, qp->qpn, ctx) == 0)
			hw_state = hermonprm_queue_pair_ee_context_entry_st_get_state(
				hermonprm_qp_ee_state_transitions_st_qpc_eec_data(ctx));
		hermon_info(h, "QP 0x%x (%s, port %u): driver %s, hw state %u; send %u posted (ring "
			    "%u), recv %u posted (ring %u); CQs 0x%x/0x%x; %u multicast groups",
			    qp->qpn, hermon_qp_type_names[qp->type], qp->port,
			    hermon_qp_state_names[qp->state], hw_state, qp->send.next,
			    qp->send.num_wqes, qp->recv.next, qp->recv.num_wqes, qp->send_cq->cqn,
			    qp->recv_cq->cqn, qp->mcast_groups);
	}
	for (unsigned i = 0; i < h->num_ports; i++) {
		const struct hermon_port *p = &h->port[i];
		const struct ib_port_attr *a = &h->ib.port[i].attr;

		hermon_info(h, "port %u: %s, state %u, LID 0x%x, SM LID 0x%x, MTU cap %u active %u, "
			    "VL cap %u, %u state / %u management events", p->num,
			    p->open ? "open" : "closed", a->state, a->lid, a->sm_lid, p->max_mtu,
			    a->neighbor_mtu, p->vl_cap, p->state_events, p->mgmt_events);
	}
	kfree(ctx);
}

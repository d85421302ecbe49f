/* SPDX-License-Identifier: MIT */
/* What the pieces of the IB core (ib_core.c, ib_mad.c, ib_sa.c, ib_port.c) tell each other. */
#ifndef IBBOOT_NET_IB_INTERNAL_H
#define IBBOOT_NET_IB_INTERNAL_H

#include <ibboot/ib.h>

/* The core's record of one outstanding work request. */
struct ib_wq_slot {
	struct ib_buf *buf;
	void *cookie;
};

/* ib_sma.c: QP0 of a port and its agent; it shares the GSI agent's CQ (one CQ less to poll). */
#define IB_SMA_SEND_WQES 4
#define IB_SMA_RECV_WQES 8
int ib_sma_create(struct ib_port *port, struct ib_cq *cq);
void ib_sma_destroy(struct ib_port *port);

/* ib_core.c */
uint32_t ib_port_query_changes(struct ib_port *port, const struct ib_port_attr *old);
/* A console message about a port: "<device> port <n>: " and the rest. */
void ib_port_log(const struct ib_port *port, const char *fmt, ...) __printf(2, 3);

/* ib_mad.c: one agent (GSI QP + transactions) per port. */
int ib_mad_agent_create(struct ib_port *port);
void ib_mad_agent_destroy(struct ib_port *port);
void ib_mad_agent_tick(struct ib_port *port, uint64_t now);
void ib_mad_agent_cancel_all(struct ib_port *port, int status);

/* ib_sa.c */
int ib_sa_client_create(struct ib_port *port);
void ib_sa_client_destroy(struct ib_port *port);
void ib_sa_port_up(struct ib_port *port);
void ib_sa_port_down(struct ib_port *port);
void ib_sa_reregister(struct ib_port *port);
void ib_sa_tick(struct ib_port *port, uint64_t now);

/* ib_port.c */
int ib_policy_create(struct ib_port *port);
void ib_policy_destroy(struct ib_port *port);
void ib_policy_tick(struct ib_port *port, uint64_t now);
void ib_policy_event(struct ib_port *port, uint32_t mgmt_flags);
/* The device died: the port is DOWN for good (ULPs and groups are told). */
void ib_policy_port_dead(struct ib_port *port);

#endif

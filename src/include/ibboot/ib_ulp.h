/* SPDX-License-Identifier: MIT */
/*
 * Port policy as upper layers see it. Every port of every device is opened; the first port to
 * reach ACTIVE becomes "the" port, and upper-layer protocols (IPoIB) are told when it comes up,
 * goes down, or must re-register with a (new) subnet manager.
 */
#ifndef IBBOOT_IB_ULP_H
#define IBBOOT_IB_ULP_H

#include <ibboot/config.h>
#include <ibboot/ib.h>

struct ib_ulp {
	const char *name;
	void (*port_up)(struct ib_port *port);     /* this port became the chosen ACTIVE port */
	void (*port_down)(struct ib_port *port);   /* it left ACTIVE or is going away */
	void (*reregister)(struct ib_port *port);  /* SM change / ClientReregister: paths are gone */
	struct ib_ulp *next;
};

void ib_ulp_register(struct ib_ulp *ulp);
void ib_ulp_unregister(struct ib_ulp *ulp);
/* The chosen ACTIVE port, or NULL. */
struct ib_port *ib_active_port(void);

struct ib_port_policy {
	enum ib_port_state last_state;
	uint64_t next_query_ms;
	uint64_t link_up_ms;         /* when the port was first seen INIT in this link-up */
	uint64_t next_sm_report_ms;
	uint64_t created_ms;         /* for "no link" when no port of any device comes up */
	bool nolink_warned;
	struct ib_port_attr event_attr;   /* as read after the last port event */
};

/* PortPhysicalState name (IBA 14.2.5.6): "Polling", "LinkUp", ... */
const char *ib_phys_state_name(unsigned phys_state);

/* `ibstat`: one port's state, LID, SM LID, GID, P_Key, rate and MTU; returns the length. */
int ibstat_format(const struct ib_port *port, char *buf, size_t size);
/* Prints every port of every device. */
void ibstat_print(void);
/* "4X QDR (40 Gb/s)" for the port's active width and speed. */
const char *ib_port_rate_string(const struct ib_port_attr *a, char *buf, size_t size);

#endif

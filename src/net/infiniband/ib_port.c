/* SPDX-License-Identifier: MIT */
/*
 * Port policy: every port is opened, the first to reach ACTIVE is chosen, a port without link
 * costs one local MAD every couple of seconds, and a port stuck in INIT (no SM) is reported
 * within 30 s with progress lines after that, naming the likely cause (no Subnet Manager running).
 * ClientReregister, SM changes and LID changes make the SA client rejoin and the ULPs flush.
 */
#include <ibboot/ib_ulp.h>
#include <ibboot/ib_sa.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>

#include "ib_internal.h"

static struct ib_ulp *ulp_list;
static struct ib_port *chosen_port;

void ib_ulp_register(struct ib_ulp *ulp)
{
	for (struct ib_ulp *u = ulp_list; u; u = u->next)
		if (u == ulp)
			return;
	ulp->next = ulp_list;
	ulp_list = ulp;
	if (chosen_port && ulp->port_up)
		ulp->port_up(chosen_port);
}

void ib_ulp_unregister(struct ib_ulp *ulp)
{
	for (struct ib_ulp **pp = &ulp_list; *pp; pp = &(*pp)->next) {
		if (*pp == ulp) {
			*pp = ulp->next;
			return;
		}
	}
}

struct ib_port *ib_active_port(void)
{
	return chosen_port;
}

const char *ib_port_rate_string(const struct ib_port_attr *a, char *buf, size_t size)
{
	/* PortInfo LinkWidthActive 1/2/4/8 = 1X/4X/8X/12X, LinkSpeedActive 1/2/4 = SDR/DDR/QDR
	 * (2.5/5/10 Gb/s a lane; IBA 14.2.5.6). */
	static const uint8_t lanes_of[] = { [1] = 1, [2] = 4, [4] = 8, [8] = 12 };
	static const char speeds[][4] = { "?DR", "SDR", "DDR", "?DR", "QDR" };
	unsigned wc = a->link_width_active, sc = a->link_speed_active;
	unsigned lanes = wc < sizeof(lanes_of) ? lanes_of[wc] : 0;
	unsigned lane_mbps = sc == 1 || sc == 2 || sc == 4 ? 2500 * sc : 0;
	char w[4] = "?X";

	if (lanes)
		ksnprintf(w, sizeof(w), "%uX", lanes);
	ksnprintf(buf, size, "%s %s (%u Gb/s)", w, speeds[lane_mbps ? sc : 0], lanes * lane_mbps / 1000);
	return buf;
}

const char *ib_phys_state_name(unsigned phys_state)
{
	return str_nth_or("no state change\0Sleep\0Polling\0Disabled\0PortConfigurationTraining\0"
			  "LinkUp\0LinkErrorRecovery\0PhyTest\0", phys_state, "unknown");
}

/* Each ULP's handler at `off` (port_up, port_down or reregister), where it has one. */
typedef void ulp_fn(struct ib_port *port);

static void notify(struct ib_port *port, size_t off)
{
	for (struct ib_ulp *u = ulp_list; u; u = u->next) {
		ulp_fn *fn = *(ulp_fn **)((char *)u + off);

		if (fn)
			fn(port);
	}
}

#define notify_up(port)    notify(port, offsetof(struct ib_ulp, port_up))
#define notify_down(port)  notify(port, offsetof(struct ib_ulp, port_down))
#define notify_rereg(port) notify(port, offsetof(struct ib_ulp, reregister))

/* Chooses the first ACTIVE port of any device when none is chosen. */
static void choose_port(void)
{
	if (chosen_port)
		return;
	for (struct ib_device *dev = ib_devices(); dev; dev = dev->next) {
		if (dev->dead)
			continue;
		for (unsigned p = 0; p < dev->num_ports; p++) {
			struct ib_port *port = &dev->port[p];

			if (port->policy && port->attr.state == IB_PORT_ACTIVE) {
				chosen_port = port;
				ib_port_log(port, "using this port\n");
				notify_up(port);
				return;
			}
		}
	}
}

static void port_rereg(struct ib_port *port, const char *why)
{
	ib_port_log(port, "%s - joining groups again\n", why);
	ib_sa_reregister(port);
	if (port == chosen_port)
		notify_rereg(port);
}

void ib_policy_event(struct ib_port *port, uint32_t flags)
{
	if (!port->policy)
		return;
	port->query_pending = true;
	if ((flags & IB_MGMT_CLIENT_REREG) && port->attr.state == IB_PORT_ACTIVE)
		port_rereg(port, "SM asked to re-register");
}

static void became_active(struct ib_port *port)
{
	char rate[32];

	ib_port_log(port, "ACTIVE, LID 0x%04x, SM LID 0x%04x, %s (%u ms after start)\n",
		    port->attr.lid, port->attr.sm_lid,
		    ib_port_rate_string(&port->attr, rate, sizeof(rate)),
		    (unsigned)ib_now_ms(port->dev));
	ib_sa_port_up(port);
	choose_port();
}

static void left_active(struct ib_port *port)
{
	ib_port_log(port, "no longer ACTIVE (now %s)\n", ib_port_state_name(port->attr.state));
	ib_sa_port_down(port);
	if (port == chosen_port) {
		notify_down(port);
		chosen_port = NULL;
		choose_port();
	}
}

void ib_policy_port_dead(struct ib_port *port)
{
	if (!port->policy)
		return;
	if (port->attr.state == IB_PORT_ACTIVE) {
		port->attr.state = IB_PORT_DOWN;
		left_active(port);
	}
	port->attr.state = IB_PORT_DOWN;
	port->policy->last_state = IB_PORT_DOWN;
}

static void sm_wait_report(struct ib_port *port, uint64_t now)
{
	struct ib_port_policy *pol = port->policy;
	uint64_t waited = now - pol->link_up_ms;

	if ((int64_t)(now - pol->next_sm_report_ms) < 0)
		return;
	ib_port_log(port, "link up but no subnet manager after %u s (%s, SM LID 0x%04x): "
		    "is OpenSM running?\n", (unsigned)(waited / 1000),
		    ib_port_state_name(port->attr.state), port->attr.sm_lid);
	pol->next_sm_report_ms = now + IB_SM_PROGRESS_MS;
}

void ib_policy_tick(struct ib_port *port, uint64_t now)
{
	struct ib_port_policy *pol = port->policy;
	struct ib_port_attr old;
	enum ib_port_state st;
	uint32_t changes;

	if (!pol)
		return;
	if (port->query_pending || (int64_t)(now - pol->next_query_ms) >= 0) {
		bool after_event = port->query_pending;

		old = port->attr;
		port->query_pending = false;
		if (ib_port_query(port) < 0) {
			pol->next_query_ms = now + IB_QUERY_INIT_MS;
			return;
		}
		st = port->attr.state;
		pol->next_query_ms = now + (st == IB_PORT_ACTIVE ? IB_QUERY_ACTIVE_MS :
					    st == IB_PORT_DOWN ? IB_QUERY_DOWN_MS : IB_QUERY_INIT_MS);
		changes = ib_port_query_changes(port, &old);
		if (old.state == IB_PORT_DOWN && st != IB_PORT_DOWN) {
			char rate[32];

			pol->link_up_ms = now;
			pol->next_sm_report_ms = now + IB_SM_WAIT_WARN_MS;
			if (st != IB_PORT_ACTIVE)
				ib_port_log(port, "link up, %s; waiting for the subnet manager\n",
					    ib_port_rate_string(&port->attr, rate, sizeof(rate)));
		}
		if (old.state != IB_PORT_ACTIVE && st == IB_PORT_ACTIVE)
			became_active(port);
		else if (old.state == IB_PORT_ACTIVE && st != IB_PORT_ACTIVE)
			left_active(port);
		else if (st == IB_PORT_ACTIVE && (changes & (IB_MGMT_SM | IB_MGMT_LID |
							     IB_MGMT_GID | IB_MGMT_PKEY)))
			port_rereg(port, (changes & IB_MGMT_SM) ? "SM changed" : "address changed");
		if (st == IB_PORT_DOWN && old.state != IB_PORT_DOWN)
			ib_port_log(port, "link down\n");
		/* A management event that changed nothing one can read since the previous port
		 * event: the SM set ClientReregister (IBA 14.4.11), the usual cause. A needless
		 * rejoin costs one SA round trip, a missed one the multicast groups. */
		if (port->mgmt_pending) {
			port->mgmt_pending = false;
			if (!ib_port_query_changes(port, &pol->event_attr) &&
			    old.state == IB_PORT_ACTIVE && st == IB_PORT_ACTIVE)
				port_rereg(port, "SM asked to re-register");
		}
		if (after_event)
			pol->event_attr = port->attr;
		pol->last_state = st;
	}
	if (port->attr.state == IB_PORT_INIT || port->attr.state == IB_PORT_ARMED)
		sm_wait_report(port, now);
	if (port->attr.state == IB_PORT_DOWN && !pol->nolink_warned && !chosen_port &&
	    now - pol->created_ms >= IB_SM_WAIT_WARN_MS) {
		ib_port_log(port, "no link after %u s (physical state %s): cabled to a switch?\n",
			    IB_SM_WAIT_WARN_MS / 1000,
			    ib_phys_state_name(port->attr.phys_state));
		pol->nolink_warned = true;
	}
	ib_sa_tick(port, now);
}

int ib_policy_create(struct ib_port *port)
{
	struct ib_port_policy *pol = kzalloc(sizeof(*pol));

	if (!pol)
		return -ENOMEM;
	/* Start from DOWN so the first query reports what it finds. */
	port->attr.state = IB_PORT_DOWN;
	pol->last_state = IB_PORT_DOWN;
	pol->created_ms = ib_now_ms(port->dev);
	port->policy = pol;
	return 0;
}

void ib_policy_destroy(struct ib_port *port)
{
	if (!port->policy)
		return;
	if (port == chosen_port) {
		notify_down(port);
		chosen_port = NULL;
	}
	kfree(port->policy);
	port->policy = NULL;
}

/* ---- partitions ---- */

uint16_t ib_port_pkey(const struct ib_port *port)
{
	if (port->ulp_pkey)
		return port->ulp_pkey;
	return port->attr.pkey ? port->attr.pkey : IB_DEFAULT_PKEY;
}

int ib_port_pkey_index(const struct ib_port *port, uint16_t pkey)
{
	const struct ib_port_attr *a = &port->attr;
	int limited = -ENOENT;

	/* Low 15 bits 0 is an invalid entry, never a partition (IBA 10.9.1.2). */
	if ((pkey & 0x7fff) == 0)
		return -ENOENT;
	for (unsigned i = 0; i < a->pkey_table_len && i < IB_PKEY_TABLE_MAX; i++) {
		uint16_t k = a->pkey_table[i];

		if ((k & 0x7fff) != (pkey & 0x7fff))
			continue;
		if (k & IB_PKEY_FULL_MEMBER)
			return (int)i;
		if (limited < 0)
			limited = (int)i;
	}
	return limited;
}

/* ---- ibstat ---- */

int ibstat_format(const struct ib_port *port, char *buf, size_t size)
{
	const struct ib_port_attr *a = &port->attr;
	unsigned mtu = ib_mtu_bytes(a->neighbor_mtu), cap = ib_mtu_bytes(a->mtu_cap);
	char gid[48], rate[32], ulp[32] = "";

	/* The partition IPoIB runs on, when it is not entry 0 (the SM's or the setting's choice). */
	if (port->ulp_pkey && port->ulp_pkey_index != 0)
		ksnprintf(ulp, sizeof(ulp), " (IPoIB 0x%04x, index %u)", port->ulp_pkey,
			  port->ulp_pkey_index);
	return ksnprintf(buf, size,
			 "%s port %u: %s (%s)%s\n"
			 "  LID 0x%04x  LMC %u  SM LID 0x%04x  SM SL %u\n"
			 "  GID %s\n"
			 "  P_Key 0x%04x%s  rate %s  MTU %u (cap %u)\n",
			 port->dev->name, port->num, ib_port_state_name(a->state),
			 ib_phys_state_name(a->phys_state), port == chosen_port ? " (in use)" : "", a->lid, a->lmc, a->sm_lid,
			 a->sm_sl, ib_gid_format(&port->gid, gid, sizeof(gid)), a->pkey, ulp,
			 a->state >= IB_PORT_INIT ? ib_port_rate_string(a, rate, sizeof(rate)) : "-",
			 mtu, cap);
}

void ibstat_print(void)
{
	char buf[320];
	unsigned n = 0;

	for (struct ib_device *dev = ib_devices(); dev; dev = dev->next) {
		for (unsigned p = 0; p < dev->num_ports; p++) {
			ibstat_format(&dev->port[p], buf, sizeof(buf));
			kputs(buf);
			n++;
		}
	}
	if (!n)
		kputs("ibstat: no IB device\n");
}

/* SPDX-License-Identifier: MIT */
/*
 * Ports: QUERY_PORT → SET_PORT → INIT_PORT, and CLOSE_PORT. What the port looks like on the
 * fabric (state, LID, GIDs, P_Keys) the IB core reads itself through the MAD_IFC op.
 *
 * Nothing is forced: the MTU capability is the port's own maximum, the VL capability the largest
 * the firmware accepts (8, 4, 2, 1 — Linux mlx4 retries the same way), link speeds are left as
 * supported (iPXE forces SDR), and the P_Key/GID tables keep their firmware size.
 */
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/hermon_prm.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>
#include "hermon.h"

static int hermon_set_port(struct hermon *h, struct hermon_port *p)
{
	uint8_t sp[HERMONPRM_SET_PORT_IB_ST_BYTES];
	int rc = -EIO;

	/* Start at what QUERY_PORT reports, else 8; each refusal halves it (Linux mlx4 walks
	 * 8, 4, 2, 1 the same way). */
	unsigned start = (p->max_vl >= 1 && p->max_vl <= 8) ? p->max_vl : 8;

	for (unsigned vl = start; vl >= 1; vl /= 2) {
		memset(sp, 0, sizeof(sp));
		hermonprm_set_port_ib_st_set_mmc(sp, 1);
		hermonprm_set_port_ib_st_set_mtu_cap(sp, p->max_mtu);
		hermonprm_set_port_ib_st_set_mvc(sp, 1);
		hermonprm_set_port_ib_st_set_vl_cap(sp, vl);
		h->quiet = vl > 1;   /* only the last refusal is worth a message */
		rc = hermon_cmd_set_port(h, p->num, sp);
		h->quiet = false;
		if (rc == 0) {
			p->vl_cap = (uint8_t)vl;
			return 0;
		}
		if (rc == -ETIMEDOUT)
			break;
	}
	return rc;
}

int hermon_open_port(struct hermon *h, unsigned port)
{
	uint8_t qp[HERMONPRM_QUERY_PORT_CAP_ST_BYTES];
	struct hermon_port *p;
	int rc;

	if (port < 1 || port > h->num_ports)
		return -EINVAL;
	p = &h->port[port - 1];
	if (p->open)
		return 0;
	if ((rc = hermon_cmd_query_port(h, port, qp)) != 0)
		return rc;
	p->ib = hermonprm_query_port_cap_st_get_ib(qp);
	/* A VPI port that can be either: ask the firmware what the cable says (iPXE polls SENSE_PORT
	 * for up to 0.5 s; "unknown" stays IB). */
	if (p->ib && hermonprm_query_port_cap_st_get_eth(qp) && h->caps.dpdp) {
		unsigned type = HERMON_PORT_TYPE_UNKNOWN;

		for (unsigned t = 0; t < HERMON_SENSE_PORT_MS; t += HERMON_SENSE_PORT_POLL_MS) {
			if (hermon_cmd_sense_port(h, port, &type) != 0 ||
			    type != HERMON_PORT_TYPE_UNKNOWN)
				break;
			mdelay(HERMON_SENSE_PORT_POLL_MS);
		}
		if (type == HERMON_PORT_TYPE_ETH)
			p->ib = false;
	}
	p->max_mtu = (uint8_t)hermonprm_query_port_cap_st_get_ib_mtu(qp);
	p->max_vl = (uint8_t)hermonprm_query_port_cap_st_get_max_vl_ib(qp);
	p->log_max_pkey = hermonprm_query_port_cap_st_get_log_max_pkey(qp);
	p->log_max_gid = hermonprm_query_port_cap_st_get_log_max_gid(qp);
	if (!p->ib) {
		hermon_err(h, "port %u is Ethernet; skipped", port);
		return -ENOTSUP;
	}
	if (p->max_mtu < 1 || p->max_mtu > 5)
		p->max_mtu = 4;   /* firmware said nothing usable: 2048 works on every HCA */
	if ((rc = hermon_set_port(h, p)) != 0)
		return rc;
	p->set = true;
	if ((rc = hermon_cmd_init_port(h, port)) != 0)
		return rc;
	p->open = true;
	return 0;
}

void hermon_close_port(struct hermon *h, unsigned port)
{
	struct hermon_port *p = &h->port[port - 1];

	/* After a catastrophic error the firmware refuses everything: the reset closes the port. */
	if (p->open && !h->catastrophic)
		hermon_cmd_close_port(h, port);
	p->open = false;
	p->set = false;
}

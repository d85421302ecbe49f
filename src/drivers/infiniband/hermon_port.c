/* SPDX-License-Identifier: MIT */
/*
 * Ports: QUERY_PORT → SET_PORT → INIT_PORT, CLOSE_PORT, and the firmware SMA through MAD_IFC
 * (port attributes, and the SM's Sets that arrive on QP0).
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

/* IBA 13.4 / 14.2.5: SMP header and attributes. */
#define MAD_SIZE              256
#define MAD_CLASS_SUBN_LID    0x01
#define MAD_METHOD_GET        0x01
#define MAD_ATTR_NODE_INFO    0x0011
#define MAD_ATTR_GUID_INFO    0x0014
#define MAD_ATTR_PORT_INFO    0x0015
#define MAD_ATTR_PKEY_TABLE   0x0016
#define SMP_DATA              64

static uint16_t get_be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint64_t get_be64(const uint8_t *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

int hermon_mad(struct hermon *h, unsigned port, const void *mad_in, void *mad_out)
{
	int rc = hermon_cmd_mad_ifc(h, port, true, mad_in, mad_out);

	if (rc == 0) {
		uint16_t status = get_be16((const uint8_t *)mad_out + 4);

		/* Bit 0 of the status is "busy"; anything in the code bits is a real failure. */
		if (status & 0x7ffe) {
			hermon_err(h, "port %u: MAD attribute 0x%04x answered with status 0x%04x",
				   port, get_be16((const uint8_t *)mad_in + 16), status);
			rc = -EIO;
		}
	}
	return rc;
}

static int hermon_subn_get(struct hermon *h, unsigned port, uint16_t attr, uint32_t attr_mod,
			   uint8_t *out)
{
	uint8_t in[MAD_SIZE];

	memset(in, 0, sizeof(in));
	in[0] = 1;                     /* base version */
	in[1] = MAD_CLASS_SUBN_LID;
	in[2] = 1;                     /* class version */
	in[3] = MAD_METHOD_GET;
	in[12] = 'h'; in[13] = 'r'; in[14] = 'm'; in[15] = (uint8_t)attr;   /* TID */
	in[16] = (uint8_t)(attr >> 8);
	in[17] = (uint8_t)attr;
	in[20] = (uint8_t)(attr_mod >> 24);
	in[21] = (uint8_t)(attr_mod >> 16);
	in[22] = (uint8_t)(attr_mod >> 8);
	in[23] = (uint8_t)attr_mod;
	return hermon_mad(h, port, in, out);
}

int hermon_query_port_attr(struct hermon *h, unsigned port, struct hermon_port_attr *a)
{
	uint8_t *mad = kzalloc(MAD_SIZE);
	const uint8_t *d = mad + SMP_DATA;
	int rc;

	if (!mad)
		return -ENOMEM;
	if ((rc = hermon_subn_get(h, port, MAD_ATTR_PORT_INFO, port, mad)) != 0)
		goto out;
	a->gid_prefix = get_be64(d + 8);
	a->lid = get_be16(d + 16);
	a->sm_lid = get_be16(d + 18);
	a->cap_mask = get_be32(d + 20);
	a->link_width_active = d[31];
	a->state = d[32] & 0xf;
	a->phys_state = d[33] >> 4;
	a->lmc = d[34] & 0x7;
	a->link_speed_active = d[35] >> 4;
	a->active_mtu = d[36] >> 4;
	a->sm_sl = d[36] & 0xf;
	a->mtu_cap = d[41] & 0xf;
	if ((rc = hermon_subn_get(h, port, MAD_ATTR_NODE_INFO, 0, mad)) != 0)
		goto out;
	a->node_guid = get_be64(d + 12);
	if ((rc = hermon_subn_get(h, port, MAD_ATTR_GUID_INFO, 0, mad)) != 0)
		goto out;
	a->port_guid = get_be64(d);
	if ((rc = hermon_subn_get(h, port, MAD_ATTR_PKEY_TABLE, 0, mad)) != 0)
		goto out;
	for (unsigned i = 0; i < ARRAY_SIZE(a->pkey); i++)
		a->pkey[i] = get_be16(d + 2 * i);
	for (unsigned i = 0; i < 8; i++) {
		a->gid[i] = (uint8_t)(a->gid_prefix >> (56 - 8 * i));
		a->gid[8 + i] = (uint8_t)(a->port_guid >> (56 - 8 * i));
	}
	if (port >= 1 && port <= h->num_ports && a == &h->port[port - 1].attr)
		h->port[port - 1].attr_valid = true;
out:
	kfree(mad);
	return rc;
}

int hermon_forward_smp(struct hermon *h, unsigned port, const void *smp, void *reply)
{
	int rc = hermon_cmd_mad_ifc(h, port, false, smp, reply);

	/* Whatever the SM changed (state, LID, P_Keys), re-read it now. */
	if (port >= 1 && port <= h->num_ports && h->port[port - 1].open)
		hermon_query_port_attr(h, port, &h->port[port - 1].attr);
	return rc;
}

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
		hermon_err(h, "port %u is an Ethernet port (not InfiniBand); skipped", port);
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
	p->last_link_poll_ms = clock_ms();
	hermon_query_port_attr(h, port, &p->attr);
	p->ev_attr = p->attr;
	return 0;
}

void hermon_close_port(struct hermon *h, unsigned port)
{
	struct hermon_port *p = &h->port[port - 1];

	if (p->open)
		hermon_cmd_close_port(h, port);
	p->open = false;
	p->set = false;
	p->attr_valid = false;
}

/* No event marks DOWN → INIT, so a port not yet ACTIVE is re-read — at most every 500 ms, since
 * MAD_IFC polling starves the other port's traffic (iPXE PR #242). */
void hermon_port_poll(struct hermon *h)
{
	uint64_t now = clock_ms();

	for (unsigned i = 0; i < h->num_ports; i++) {
		struct hermon_port *p = &h->port[i];

		if (!p->open || (p->attr_valid && p->attr.state >= 4))
			continue;
		if (now - p->last_link_poll_ms < HERMON_LINK_POLL_MS)
			continue;
		p->last_link_poll_ms = now;
		hermon_query_port_attr(h, p->num, &p->attr);
	}
}

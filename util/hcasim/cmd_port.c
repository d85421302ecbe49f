/* SPDX-License-Identifier: MIT */
/*
 * Port commands: INIT_PORT, CLOSE_PORT, SET_PORT (IB), QUERY_PORT, SENSE_PORT, MAD_IFC (to the
 * firmware SMA), CONF_SPECIAL_QP.
 */
#include <string.h>

#include "hcasim_int.h"
#include "sma.h"

#define IBA_PORT_DOWN 1
#define IBA_PORT_ACTIVE 4

static bool port_ok(struct hcasim *h, struct hcasim_cmd *c, unsigned port)
{
	if (port < 1 || port > h->cfg.num_ports) {
		hcasim_refuse(h, "%s: port %u does not exist (1..%u)", hcasim_cmd_name(c->opcode),
			      port, h->cfg.num_ports);
		return false;
	}
	return true;
}

int cmd_init_port(struct hcasim *h, struct hcasim_cmd *c)
{
	unsigned port = c->in_mod;

	if (!port_ok(h, c, port))
		return ST_BAD_PARAM;
	/* With a cable the link trains and the SMA reports INIT; no event for reaching INIT
	 * (iPXE polls PortInfo while DOWN for exactly that reason). */
	h->port[port - 1].up = true;
	hcasim_link_update(h, port);
	return ST_OK;
}

int cmd_close_port(struct hcasim *h, struct hcasim_cmd *c)
{
	unsigned port = c->in_mod;

	if (!port_ok(h, c, port))
		return ST_BAD_PARAM;
	if (!h->port[port - 1].up) {
		hcasim_refuse(h, "CLOSE_PORT: port %u is not open", port);
		return ST_BAD_RES_STATE;
	}
	h->port[port - 1].up = false;
	hcasim_link_update(h, port);
	return ST_OK;
}

/* A SET_PORT capability, taken when its modify bit is set; the modify fails (and the command
 * with it) unless the value lies in 1..max. */
static bool set_port_cap(struct hcasim *h, bool modify, const char *what, unsigned v, unsigned max,
			 unsigned *cap)
{
	if (!modify)
		return true;
	if (v < 1 || v > max) {
		hcasim_refuse(h, "SET_PORT: %s %u invalid (1..%u)", what, v, max);
		return false;
	}
	*cap = v;
	return true;
}

/* SET_PORT for an IB port (op_mod 0): MTU and VL capability, link speed/width enables. */
int cmd_set_port(struct hcasim *h, struct hcasim_cmd *c)
{
	unsigned port = c->in_mod & 0xff;
	uint8_t *in = c->in;
	int st;

	if (!port_ok(h, c, port))
		return ST_BAD_PARAM;
	if (c->op_mod != 0) {
		hcasim_refuse(h, "SET_PORT: op_mod %u (Ethernet contexts) on an IB port", c->op_mod);
		return ST_BAD_PARAM;
	}
	st = hcasim_cmd_mbox_in(h, c, HERMONPRM_SET_PORT_IB_ST_BYTES);
	if (st)
		return st;
	/* mtu_cap is an IB MTU (1..5 = 256..4096). vl_cap is a number of data VLs, not the IB
	 * VLCap enum: Linux mlx4 port.c mlx4_SET_PORT ("IB VL CAP enum isn't used by the firmware,
	 * just numerical values") offers 8, 4, 2, 1 and steps down only on -ENOMEM, the status the
	 * firmware gives when the port has fewer VLs (EXCEED_LIM). The port has 8 (VL0-7); a count
	 * that is not a power of two is a bad parameter. Stored as the VLCap enum (1 VL = 1,
	 * 2 = 2, 4 = 3, 8 = 4) the SMA reports. */
	if (!set_port_cap(h, PRM_GET(set_port_ib, mmc, in), "mtu_cap",
			  PRM_GET(set_port_ib, mtu_cap, in), 5, &h->port[port - 1].mtu_cap))
		return ST_BAD_PARAM;
	if (PRM_GET(set_port_ib, mvc, in)) {
		unsigned n = PRM_GET(set_port_ib, vl_cap, in);

		if (n > 8) {
			hcasim_refuse(h, "SET_PORT: vl_cap %u VLs: the port has 8", n);
			return ST_EXCEED_LIM;
		}
		if (n == 0 || (n & (n - 1))) {
			hcasim_refuse(h, "SET_PORT: vl_cap %u is not a number of VLs (1, 2, 4, 8)", n);
			return ST_BAD_PARAM;
		}
		h->port[port - 1].vl_cap = n == 1 ? 1 : n == 2 ? 2 : n == 4 ? 3 : 4;
	}
	hcasim_sma_set_port_caps(h->sma, port, h->port[port - 1].mtu_cap, h->port[port - 1].vl_cap,
				 PRM_GET(set_port_ib, lss, in) ?
					 PRM_GET(set_port_ib, link_speed_supported, in) : 0);
	return ST_OK;
}

int cmd_query_port(struct hcasim *h, struct hcasim_cmd *c)
{
	unsigned port = c->in_mod & 0xff;
	uint64_t guid;
	uint8_t *o = c->out;

	if (!port_ok(h, c, port))
		return ST_BAD_PARAM;
	guid = h->cfg.port_guid[port - 1];
	PRM_SET(query_port_cap, ib, o, 1);
	PRM_SET(query_port_cap, eth, o, 0);
	PRM_SET(query_port_cap, ib_mtu, o, 5);
	PRM_SET(query_port_cap, eth_mtu, o, 0);
	PRM_SET(query_port_cap, link_state, o, h->port[port - 1].link);
	PRM_SET(query_port_cap, log_max_pkey, o, 7);
	PRM_SET(query_port_cap, log_max_gid, o, 7);
	PRM_SET(query_port_cap, ib_port_width, o, 0x3); /* 1x, 4x */
	PRM_SET(query_port_cap, ib_link_speed, o, 0x7); /* SDR, DDR, QDR */
	PRM_SET(query_port_cap, max_vl_ib, o, 4);       /* VL0..7 */
	/* MAC derived from the port GUID as on ConnectX (GUID bytes 0-2 and 5-7) */
	PRM_SET(query_port_cap, mac_47_32, o, (uint32_t)(guid >> 48));
	PRM_SET(query_port_cap, mac_31_0, o,
		(uint32_t)((guid >> 8 & 0xff000000u) | (guid & 0xffffffu)));
	c->out_len = HERMONPRM_QUERY_PORT_CAP_ST_BYTES;
	return ST_OK;
}

int cmd_sense_port(struct hcasim *h, struct hcasim_cmd *c)
{
	uint8_t imm[HERMONPRM_SENSE_PORT_ST_BYTES] = { 0 };

	if (!port_ok(h, c, c->in_mod))
		return ST_BAD_PARAM;
	PRM_SET(sense_port, port_type, imm, 1); /* InfiniBand */
	c->out_imm = true;
	c->out_imm_val = (uint64_t)hermonprm_load_dword(imm, 0) << 32 | hermonprm_load_dword(imm, 1);
	return ST_OK;
}

/* Turn SMA events into EQEs: PortInfo state changes to/from ACTIVE → port change (0x09) with
 * subtype 4 (active) or 1 (down); LID/SM LID/P_Key/GID/ClientReregister → port management
 * change (0x1d). */
void hcasim_sma_events(struct hcasim *h, unsigned port, unsigned events)
{
	struct hcasim_port *p = &h->port[port - 1];

	if (events & HCASIM_SMA_EV_PORT_STATE) {
		unsigned s = hcasim_sma_port_state(h->sma, port);

		if (s == IBA_PORT_ACTIVE && p->last_state != IBA_PORT_ACTIVE)
			hcasim_port_event(h, port, EV_PORT_CHANGE, 4);
		else if (s != IBA_PORT_ACTIVE && p->last_state == IBA_PORT_ACTIVE)
			hcasim_port_event(h, port, EV_PORT_CHANGE, 1);
		p->last_state = s;
	}
	if (events & HCASIM_SMA_EV_PORT_MGMT)
		hcasim_port_event(h, port, EV_PORT_MGMT_CHANGE, 0x14 /* PortInfo */);
}

int cmd_mad_ifc(struct hcasim *h, struct hcasim_cmd *c)
{
	unsigned port = c->in_mod & 0xff, flags = HCASIM_SMA_FROM_MAD_IFC, events = 0;
	int st, rc;

	if (!port_ok(h, c, port))
		return ST_BAD_PARAM;
	st = hcasim_cmd_mbox_in(h, c, 256);
	if (st)
		return st;
	if (c->op_mod & 1)
		flags |= HCASIM_SMA_SKIP_MKEY;
	if (c->op_mod & 2)
		flags |= HCASIM_SMA_SKIP_BKEY;
	memset(c->out, 0, 256);
	rc = hcasim_sma_mad(h->sma, port, c->in, c->out, flags, &events);
	hcasim_sma_events(h, port, events);
	if (rc < 0) {
		hcasim_refuse(h, "MAD_IFC: port %u: malformed MAD (class %#x attr %#x)", port,
			      c->in[1], (unsigned)c->in[16] << 8 | c->in[17]);
		return ST_BAD_PKT;
	}
	c->out_len = 256;
	return ST_OK;
}

/* in_mod = base of the 8-QP special block: QP0 of port p at base+p-1, QP1 at base+2+p-1; from
 * then on the driver owns QP0 and QP1 of every port (ud.c special_qp_in). op_mod 0 is what both
 * silicon-proven drivers issue before owning QP0/QP1 themselves (iPXE hermon.c
 * hermon_configure_special_qps, "internal_qps" 0; Linux mlx4 qp.c mlx4_CONF_SPECIAL_QP); what
 * another op_mod makes the chip do is not established, so it is refused.
 * in_mod 0 hands QP0/QP1 back to the firmware. */
int cmd_conf_special_qp(struct hcasim *h, struct hcasim_cmd *c)
{
	uint32_t base = c->in_mod & 0xffffff;

	if (c->op_mod != 0) {
		hcasim_refuse(h, "CONF_SPECIAL_QP: op_mod %#x: only 0 (the driver owns QP0 and QP1) "
			      "is established", c->op_mod);
		return ST_BAD_PARAM;
	}
	if (base == 0) {
		h->special_qp_set = false;
		return ST_OK;
	}
	if (base % 8 || base < 64 || base + 8 > (1u << h->lay.log_num_qp)) {
		hcasim_refuse(h, "CONF_SPECIAL_QP: base QPN %#x must be a multiple of 8, above the "
			      "64 reserved QPs and inside the QP table (2^%u)", base, h->lay.log_num_qp);
		return ST_BAD_PARAM;
	}
	for (unsigned i = 0; i < 8; i++)
		if (h->qp_state[base + i] != QPS_RST) {
			hcasim_refuse(h, "CONF_SPECIAL_QP: QP %#x of the block is in use", base + i);
			return ST_BAD_RES_STATE;
		}
	h->special_qp_base = base;
	h->special_qp_set = true;
	return ST_OK;
}

/* DIAG_RPRT op_mod 2: the transport and CI error counters (in_mod 0 the device's, 1..N a
 * port's), 32-bit big-endian at fixed offsets up to 0x1a0 (num_cqovf). Linux mlx4_ib reads them
 * once while registering the device (main.c mlx4_ib_get_hw_stats through mlx4_core
 * mlx4_query_diag_counters; ib_register_device gives up when it fails). The model counts none
 * of these errors: the report is all zeros. Other reports (op_mod) are not established: refused. */
#define DIAG_RPRT_TRANSPORT_CI_ERRORS 2
#define DIAG_RPRT_BYTES 0x200
int cmd_diag_rprt(struct hcasim *h, struct hcasim_cmd *c)
{
	if (c->op_mod != DIAG_RPRT_TRANSPORT_CI_ERRORS) {
		hcasim_refuse(h, "DIAG_RPRT: op_mod %u (only 2, transport/CI error counters)", c->op_mod);
		return ST_BAD_PARAM;
	}
	if (c->in_mod > h->cfg.num_ports) {
		hcasim_refuse(h, "DIAG_RPRT: port %u (0 = device, 1..%u)", c->in_mod, h->cfg.num_ports);
		return ST_BAD_PARAM;
	}
	memset(c->out, 0, DIAG_RPRT_BYTES);
	c->out_len = DIAG_RPRT_BYTES;
	return ST_OK;
}

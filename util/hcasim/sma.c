/* SPDX-License-Identifier: MIT */
/*
 * The HCA model's firmware SMA and PMA: what ConnectX firmware answers for MAD_IFC and for
 * SMPs/GMPs reaching QP0/QP1 while the firmware owns them.
 *
 * Attribute images are kept in wire format (64-byte PortInfo etc.) and edited through
 * iblib/attrs.h, so a Get is a copy and a Set is a field-by-field validation of the request
 * (IBA 14.2.5.6: an invalid component fails the whole Set, nothing is applied).
 *
 * Simplifications (documented in the report): no traps are sent (IsTrapSupported is still
 * advertised as ConnectX does, but the model never originates Trap 128/144/256); the M_Key lease
 * timer never expires (there is no time source here); B_Key is not implemented.
 */
#include "sma.h"

#include <stdlib.h>
#include <string.h>

#include <ibboot/wire/attrs.h>
#include <ibboot/wire/bytes.h>
#include <ibboot/wire/mad.h>

#include "hcasim.h"

#define SMA_MAX_PORTS     2
#define SMA_PKEYS         128          /* PartitionCap: QUERY_PORT log_max_pkey 7 */
#define SMA_GUIDS         128          /* GUIDCap: QUERY_PORT log_max_gid 7 */
/* ConnectX-3 (QDR) CA port capability mask as OpenSM sees it: trap, APM, SL mapping, system
 * image GUID, CM, device management, vendor class, CapabilityMask notice, ClientReregister. */
#define SMA_CAP_MASK      0x02510868u
#define SMA_DEFAULT_GID_PREFIX 0xfe80000000000000ull
#define SMA_REVISION      0x00000000u

struct sma_counters {
	uint64_t xmit_words, rcv_words, xmit_pkts, rcv_pkts;  /* 64-bit: PortCountersExtended */
	uint8_t link_downed;
};

struct sma_port {
	uint8_t pi[IBLIB_SMP_DATA_BYTES];      /* PortInfo image */
	uint16_t pkey[SMA_PKEYS];
	uint64_t guid[SMA_GUIDS];
	uint8_t sl2vl[8];
	uint8_t vlarb[2][IBLIB_SMP_DATA_BYTES]; /* low and high priority tables, 32 entries each */
	uint8_t mlnx_ext[IBLIB_SMP_DATA_BYTES];
	bool cable;                             /* physical link trained (hcasim_sma_set_link) */
	bool disabled;                          /* PortPhysicalState set to DISABLED by the SM */
	struct sma_counters cnt;
};

struct hcasim_sma {
	unsigned num_ports;
	uint16_t device_id;
	uint64_t node_guid;
	char node_desc[IBLIB_NODE_DESC_BYTES];
	struct sma_port port[SMA_MAX_PORTS];
};

static bool port_valid(const struct hcasim_sma *s, unsigned port)
{
	return s && port >= 1 && port <= s->num_ports;
}

static unsigned highest_bit(unsigned v)
{
	unsigned b = 0;

	while (v >>= 1)
		b++;
	return 1u << b;
}

/* Active speed: the fastest the port supports and is enabled for (the peer is assumed to
 * support the same). */
static void update_active_speed(uint8_t *pi)
{
	unsigned sp = iblib_portinfo_link_speed_supported(pi) & iblib_portinfo_link_speed_enabled(pi);

	iblib_portinfo_set_link_speed_active(pi, sp ? highest_bit(sp) : IBLIB_SPEED_SDR);
	unsigned w = iblib_portinfo_link_width_supported(pi) & iblib_portinfo_link_width_enabled(pi);
	iblib_portinfo_set_link_width_active(pi, w ? highest_bit(w) : IBLIB_WIDTH_1X);
}

static void port_defaults(struct hcasim_sma *s, unsigned p, uint64_t guid)
{
	struct sma_port *sp = &s->port[p - 1];
	uint8_t *pi = sp->pi;

	memset(sp, 0, sizeof(*sp));
	iblib_portinfo_set_gid_prefix(pi, SMA_DEFAULT_GID_PREFIX);
	iblib_portinfo_set_capability_mask(pi, SMA_CAP_MASK);
	iblib_portinfo_set_local_port_num(pi, p);
	iblib_portinfo_set_link_width_enabled(pi, IBLIB_WIDTH_1X | IBLIB_WIDTH_4X);
	iblib_portinfo_set_link_width_supported(pi, IBLIB_WIDTH_1X | IBLIB_WIDTH_4X);
	iblib_portinfo_set_link_speed_supported(pi, IBLIB_SPEED_SDR | IBLIB_SPEED_DDR | IBLIB_SPEED_QDR);
	iblib_portinfo_set_link_speed_enabled(pi, IBLIB_SPEED_SDR | IBLIB_SPEED_DDR | IBLIB_SPEED_QDR);
	update_active_speed(pi);
	iblib_portinfo_set_port_state(pi, IBLIB_PORT_STATE_DOWN);
	iblib_portinfo_set_port_phys_state(pi, IBLIB_PHYS_STATE_POLLING);
	iblib_portinfo_set_link_down_default_state(pi, IBLIB_LINKDOWN_DEF_POLLING);
	iblib_portinfo_set_mtu_cap(pi, IBLIB_MTU_4096);
	iblib_portinfo_set_neighbor_mtu(pi, IBLIB_MTU_4096);
	iblib_portinfo_set_vl_cap(pi, IBLIB_VL_CAP_VL0_7);
	iblib_portinfo_set_operational_vls(pi, IBLIB_VL_CAP_VL0);
	iblib_portinfo_set_vl_arb_high_cap(pi, 8);
	iblib_portinfo_set_vl_arb_low_cap(pi, 8);
	iblib_portinfo_set_guid_cap(pi, SMA_GUIDS);
	iblib_portinfo_set_resp_time_value(pi, 16);
	sp->pkey[0] = IBLIB_DEFAULT_PKEY;  /* the default partition, full member (IBA 10.9.1.2) */
	sp->guid[0] = guid;
}

struct hcasim_sma *hcasim_sma_create(const struct hcasim_config *cfg)
{
	struct hcasim_sma *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->num_ports = cfg && cfg->num_ports >= 1 && cfg->num_ports <= SMA_MAX_PORTS ? cfg->num_ports : 2;
	s->device_id = cfg && cfg->device_id ? cfg->device_id : 0x1003;
	s->node_guid = cfg && cfg->node_guid ? cfg->node_guid : 0x0002c90300a0b0c0ull;
	strncpy(s->node_desc, cfg && cfg->node_desc ? cfg->node_desc : "hcasim",
		sizeof(s->node_desc) - 1);
	for (unsigned p = 1; p <= s->num_ports; p++) {
		uint64_t g = cfg && cfg->port_guid[p - 1] ? cfg->port_guid[p - 1] : s->node_guid + p;

		port_defaults(s, p, g);
	}
	return s;
}

void hcasim_sma_destroy(struct hcasim_sma *s)
{
	free(s);
}

void hcasim_sma_reset(struct hcasim_sma *s)
{
	if (!s)
		return;
	for (unsigned p = 1; p <= s->num_ports; p++)
		port_defaults(s, p, s->port[p - 1].guid[0]);
}

/* The link layer's view: the port is physically up when cabled and not disabled by the SM. */
static void link_update(struct sma_port *sp)
{
	uint8_t *pi = sp->pi;
	bool up = sp->cable && !sp->disabled;
	unsigned state = iblib_portinfo_port_state(pi);

	if (up) {
		iblib_portinfo_set_port_phys_state(pi, IBLIB_PHYS_STATE_LINKUP);
		if (state == IBLIB_PORT_STATE_DOWN) {
			update_active_speed(pi);
			iblib_portinfo_set_port_state(pi, IBLIB_PORT_STATE_INIT);
		}
		return;
	}
	if (state != IBLIB_PORT_STATE_DOWN && sp->cnt.link_downed != 0xFF)
		sp->cnt.link_downed++;
	iblib_portinfo_set_port_state(pi, IBLIB_PORT_STATE_DOWN);
	iblib_portinfo_set_port_phys_state(pi, sp->disabled ? IBLIB_PHYS_STATE_DISABLED :
							      IBLIB_PHYS_STATE_POLLING);
}

void hcasim_sma_set_link(struct hcasim_sma *s, unsigned port, bool up)
{
	if (!port_valid(s, port))
		return;
	s->port[port - 1].cable = up;
	link_update(&s->port[port - 1]);
}

void hcasim_sma_set_port_caps(struct hcasim_sma *s, unsigned port, unsigned mtu_cap,
			      unsigned vl_cap, unsigned link_speed_supported)
{
	uint8_t *pi;

	if (!port_valid(s, port))
		return;
	pi = s->port[port - 1].pi;
	if (mtu_cap >= IBLIB_MTU_256 && mtu_cap <= IBLIB_MTU_4096) {
		iblib_portinfo_set_mtu_cap(pi, mtu_cap);
		if (iblib_portinfo_neighbor_mtu(pi) > mtu_cap)
			iblib_portinfo_set_neighbor_mtu(pi, mtu_cap);
	}
	if (vl_cap >= IBLIB_VL_CAP_VL0 && vl_cap <= IBLIB_VL_CAP_VL0_14) {
		iblib_portinfo_set_vl_cap(pi, vl_cap);
		if (iblib_portinfo_operational_vls(pi) > vl_cap)
			iblib_portinfo_set_operational_vls(pi, vl_cap);
	}
	link_speed_supported &= IBLIB_SPEED_SDR | IBLIB_SPEED_DDR | IBLIB_SPEED_QDR;
	if (link_speed_supported) {
		iblib_portinfo_set_link_speed_supported(pi, link_speed_supported);
		iblib_portinfo_set_link_speed_enabled(pi, link_speed_supported);
		update_active_speed(pi);
	}
}

/* ---------------- M_Key (IBA 14.2.4) ---------------- */

enum mkey_result { MKEY_OK, MKEY_OK_HIDE_KEY, MKEY_FAIL };

static enum mkey_result mkey_check(struct sma_port *sp, const uint8_t *mad, uint8_t method)
{
	uint64_t key = iblib_portinfo_mkey(sp->pi);
	unsigned prot = iblib_portinfo_mkey_protect_bits(sp->pi);

	if (key == 0 || iblib_smp_mkey(mad) == key)
		return MKEY_OK;
	/* Mismatch: Get is still allowed at protection level 0 (key visible) and 1 (key reads as
	 * zero); Set and TrapRepress fail at every level; Get fails at 2 and 3. */
	if (method == IBLIB_METHOD_GET && prot == 0)
		return MKEY_OK;
	if (method == IBLIB_METHOD_GET && prot == 1)
		return MKEY_OK_HIDE_KEY;
	uint32_t v = iblib_portinfo_mkey_violations(sp->pi);
	if (v < 0xFFFF)
		iblib_portinfo_set_mkey_violations(sp->pi, v + 1);
	return MKEY_FAIL;
}

/* ---------------- attributes ---------------- */

struct smp_ctx {
	struct hcasim_sma *s;
	unsigned port;          /* receiving port */
	const uint8_t *req;
	const uint8_t *in;      /* request data (64 B) */
	uint8_t *out;           /* response data (64 B) */
	uint8_t method;
	uint32_t mod;
	bool hide_mkey;
	unsigned *events;
};

/* Attribute handlers return a MAD status. */
static uint16_t attr_node_desc(struct smp_ctx *c)
{
	if (c->method != IBLIB_METHOD_GET)
		return IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR;
	memcpy(c->out, c->s->node_desc, IBLIB_NODE_DESC_BYTES);
	return 0;
}

static uint16_t attr_node_info(struct smp_ctx *c)
{
	uint8_t *d = c->out;

	if (c->method != IBLIB_METHOD_GET)
		return IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR;
	iblib_nodeinfo_set_base_version(d, IBLIB_MAD_BASE_VERSION);
	iblib_nodeinfo_set_class_version(d, IBLIB_SMP_CLASS_VERSION);
	iblib_nodeinfo_set_node_type(d, IBLIB_NODE_TYPE_CA);
	iblib_nodeinfo_set_num_ports(d, c->s->num_ports);
	iblib_nodeinfo_set_system_image_guid(d, c->s->node_guid);
	iblib_nodeinfo_set_node_guid(d, c->s->node_guid);
	iblib_nodeinfo_set_port_guid(d, c->s->port[c->port - 1].guid[0]);
	iblib_nodeinfo_set_partition_cap(d, SMA_PKEYS);
	iblib_nodeinfo_set_device_id(d, c->s->device_id);
	iblib_nodeinfo_set_revision(d, SMA_REVISION);
	iblib_nodeinfo_set_local_port_num(d, c->port);
	iblib_nodeinfo_set_vendor_id(d, IBLIB_VENDOR_MELLANOX);
	return 0;
}

/* AttributeModifier 0 = the receiving port; a CA also answers for its other port. */
static struct sma_port *addressed_port(struct smp_ctx *c, unsigned *pnum)
{
	unsigned p = c->mod ? c->mod : c->port;

	if (!port_valid(c->s, p))
		return NULL;
	if (pnum)
		*pnum = p;
	return &c->s->port[p - 1];
}

static bool lid_ok(uint32_t lid)
{
	return lid < IBLIB_LID_MCAST_MIN;  /* 0 = unassigned; multicast/permissive are not port LIDs */
}

/* Validate a PortInfo Set into `n` (a copy of the current image). Returns a MAD status. */
static uint16_t portinfo_apply(struct sma_port *sp, uint8_t *n, const uint8_t *in, bool *state_req,
			       unsigned *new_state)
{
	uint8_t *cur = sp->pi;
	unsigned v;

	if (!lid_ok(iblib_portinfo_lid(in)) || !lid_ok(iblib_portinfo_master_sm_lid(in)))
		return IBLIB_MAD_STATUS_INVALID_FIELD;
	iblib_portinfo_set_mkey(n, iblib_portinfo_mkey(in));
	iblib_portinfo_set_gid_prefix(n, iblib_portinfo_gid_prefix(in));
	iblib_portinfo_set_lid(n, iblib_portinfo_lid(in));
	iblib_portinfo_set_master_sm_lid(n, iblib_portinfo_master_sm_lid(in));
	iblib_portinfo_set_mkey_lease_period(n, iblib_portinfo_mkey_lease_period(in));

	v = iblib_portinfo_link_width_enabled(in);
	if (v == IBLIB_WIDTH_SET_SUPPORTED)
		v = iblib_portinfo_link_width_supported(cur);
	if (v && (v & ~iblib_portinfo_link_width_supported(cur)))
		return IBLIB_MAD_STATUS_INVALID_FIELD;
	if (v)
		iblib_portinfo_set_link_width_enabled(n, v);

	v = iblib_portinfo_link_speed_enabled(in);
	if (v == IBLIB_SPEED_SET_SUPPORTED)
		v = iblib_portinfo_link_speed_supported(cur);
	if (v && (v & ~iblib_portinfo_link_speed_supported(cur)))
		return IBLIB_MAD_STATUS_INVALID_FIELD;
	if (v)
		iblib_portinfo_set_link_speed_enabled(n, v);

	/* PortState: 0 no change; INIT is never a valid request (IBA 14.2.5.6). The transition
	 * itself is checked against the current state by the caller. */
	v = iblib_portinfo_port_state(in);
	if (v == IBLIB_PORT_STATE_INIT || v > IBLIB_PORT_STATE_ACTIVE)
		return IBLIB_MAD_STATUS_INVALID_FIELD;
	*state_req = v != IBLIB_PORT_STATE_NOP;
	*new_state = v;

	/* PortPhysicalState: only POLLING and DISABLED can be requested; 0 and an echo of the
	 * current value (tools that Set what they read) change nothing. */
	v = iblib_portinfo_port_phys_state(in);
	if (v != IBLIB_PHYS_STATE_NOP && v != IBLIB_PHYS_STATE_POLLING &&
	    v != IBLIB_PHYS_STATE_DISABLED && v != iblib_portinfo_port_phys_state(cur))
		return IBLIB_MAD_STATUS_INVALID_FIELD;
	v = iblib_portinfo_link_down_default_state(in);
	if (v > IBLIB_LINKDOWN_DEF_POLLING)
		return IBLIB_MAD_STATUS_INVALID_FIELD;
	if (v)
		iblib_portinfo_set_link_down_default_state(n, v);

	iblib_portinfo_set_mkey_protect_bits(n, iblib_portinfo_mkey_protect_bits(in));
	iblib_portinfo_set_lmc(n, iblib_portinfo_lmc(in));

	/* NeighborMTU: 1..MTUCap (0 is taken as "leave it") */
	v = iblib_portinfo_neighbor_mtu(in);
	if (v > iblib_portinfo_mtu_cap(cur) || (v && v < IBLIB_MTU_256))
		return IBLIB_MAD_STATUS_INVALID_FIELD;
	if (v)
		iblib_portinfo_set_neighbor_mtu(n, v);
	iblib_portinfo_set_master_sm_sl(n, iblib_portinfo_master_sm_sl(in));
	iblib_portinfo_set_vl_high_limit(n, iblib_portinfo_vl_high_limit(in));

	/* OperationalVLs: 0 no change, otherwise at most VLCap */
	v = iblib_portinfo_operational_vls(in);
	if (v > iblib_portinfo_vl_cap(cur))
		return IBLIB_MAD_STATUS_INVALID_FIELD;
	if (v)
		iblib_portinfo_set_operational_vls(n, v);
	iblib_portinfo_set_vl_stall_count(n, iblib_portinfo_vl_stall_count(in));
	iblib_portinfo_set_hoq_life(n, iblib_portinfo_hoq_life(in));
	iblib_portinfo_set_mkey_violations(n, iblib_portinfo_mkey_violations(in));
	iblib_portinfo_set_pkey_violations(n, iblib_portinfo_pkey_violations(in));
	iblib_portinfo_set_qkey_violations(n, iblib_portinfo_qkey_violations(in));
	iblib_portinfo_set_subnet_timeout(n, iblib_portinfo_subnet_timeout(in));
	iblib_portinfo_set_local_phy_errors(n, iblib_portinfo_local_phy_errors(in));
	iblib_portinfo_set_overrun_errors(n, iblib_portinfo_overrun_errors(in));
	/* ClientReregister is an action, not state: it reads back as 0. */
	iblib_portinfo_set_client_reregister(n, 0);
	return 0;
}

static bool state_transition_ok(unsigned from, unsigned to)
{
	switch (to) {
	case IBLIB_PORT_STATE_DOWN:
		return true;
	case IBLIB_PORT_STATE_ARMED:
		return from == IBLIB_PORT_STATE_INIT || from == IBLIB_PORT_STATE_ARMED;
	case IBLIB_PORT_STATE_ACTIVE:
		return from == IBLIB_PORT_STATE_ARMED || from == IBLIB_PORT_STATE_ACTIVE;
	default:
		return false;
	}
}

/* PortInfo Set: validate everything first, then apply all of it (IBA 14.2.5.6: a Set with an
 * invalid component changes nothing). Returns a MAD status. */
static uint16_t portinfo_set(struct smp_ctx *c, struct sma_port *sp)
{
	uint8_t n[IBLIB_SMP_DATA_BYTES];
	bool state_req = false;
	unsigned new_state = 0, cur_state = iblib_portinfo_port_state(sp->pi), phys;
	uint16_t st;

	memcpy(n, sp->pi, sizeof(n));
	st = portinfo_apply(sp, n, c->in, &state_req, &new_state);
	if (!st && state_req && !state_transition_ok(cur_state, new_state))
		st = IBLIB_MAD_STATUS_INVALID_FIELD;
	if (st)
		return st;

	/* What the driver hears about through a port management change EQE (0x1d). */
	if (iblib_portinfo_lid(n) != iblib_portinfo_lid(sp->pi) ||
	    iblib_portinfo_lmc(n) != iblib_portinfo_lmc(sp->pi) ||
	    iblib_portinfo_master_sm_lid(n) != iblib_portinfo_master_sm_lid(sp->pi) ||
	    iblib_portinfo_master_sm_sl(n) != iblib_portinfo_master_sm_sl(sp->pi) ||
	    iblib_portinfo_gid_prefix(n) != iblib_portinfo_gid_prefix(sp->pi))
		*c->events |= HCASIM_SMA_EV_PORT_MGMT;
	if (iblib_portinfo_client_reregister(c->in))
		*c->events |= HCASIM_SMA_EV_PORT_MGMT | HCASIM_SMA_EV_CLIENT_REREG;
	memcpy(sp->pi, n, sizeof(n));
	update_active_speed(sp->pi);

	phys = iblib_portinfo_port_phys_state(c->in);
	if (phys == IBLIB_PHYS_STATE_DISABLED || phys == IBLIB_PHYS_STATE_POLLING)
		sp->disabled = phys == IBLIB_PHYS_STATE_DISABLED;
	/* DOWN means the link layer goes down and retrains: link_update() takes a cabled,
	 * enabled port straight back to INIT. */
	if (state_req)
		iblib_portinfo_set_port_state(sp->pi, new_state);
	link_update(sp);
	if (iblib_portinfo_port_state(sp->pi) != cur_state)
		*c->events |= HCASIM_SMA_EV_PORT_STATE;
	return 0;
}

static uint16_t attr_port_info(struct smp_ctx *c)
{
	struct sma_port *sp = addressed_port(c, NULL);
	uint16_t st = 0;

	if (!sp)
		return IBLIB_MAD_STATUS_INVALID_FIELD;
	if (c->method == IBLIB_METHOD_SET)
		st = portinfo_set(c, sp);
	else if (c->method != IBLIB_METHOD_GET)
		return IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR;
	/* Get, and the answer to a Set (applied or refused): the attribute as it now is. */
	memcpy(c->out, sp->pi, IBLIB_SMP_DATA_BYTES);
	if (c->hide_mkey)
		iblib_portinfo_set_mkey(c->out, 0);
	/* LocalPortNum: the port the SMP came in on (IBA 14.2.5.6) */
	iblib_portinfo_set_local_port_num(c->out, c->port);
	return st;
}

static uint16_t attr_pkey_table(struct smp_ctx *c)
{
	struct sma_port *sp = &c->s->port[c->port - 1];
	unsigned block = c->mod & 0xFFFF;
	bool changed = false;

	if (c->method != IBLIB_METHOD_GET && c->method != IBLIB_METHOD_SET)
		return IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR;
	if (block >= SMA_PKEYS / IBLIB_PKEYS_PER_BLOCK)
		return IBLIB_MAD_STATUS_INVALID_FIELD;
	if (c->method == IBLIB_METHOD_SET) {
		for (unsigned i = 0; i < IBLIB_PKEYS_PER_BLOCK; i++) {
			uint16_t k = iblib_pkey_table_get(c->in, i);

			if (sp->pkey[block * 32 + i] != k)
				changed = true;
			sp->pkey[block * 32 + i] = k;
		}
		if (changed)
			*c->events |= HCASIM_SMA_EV_PORT_MGMT;
	}
	for (unsigned i = 0; i < IBLIB_PKEYS_PER_BLOCK; i++)
		iblib_pkey_table_set(c->out, i, sp->pkey[block * 32 + i]);
	return 0;
}

static uint16_t attr_guid_info(struct smp_ctx *c)
{
	struct sma_port *sp = &c->s->port[c->port - 1];
	unsigned block = c->mod;

	if (c->method != IBLIB_METHOD_GET && c->method != IBLIB_METHOD_SET)
		return IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR;
	if (block >= SMA_GUIDS / IBLIB_GUIDS_PER_BLOCK)
		return IBLIB_MAD_STATUS_INVALID_FIELD;
	if (c->method == IBLIB_METHOD_SET) {
		/* Alias GUIDs are the SM's to assign; index 0 is the burnt-in port GUID (RO). */
		for (unsigned i = 0; i < IBLIB_GUIDS_PER_BLOCK; i++)
			if (block * 8 + i != 0)
				sp->guid[block * 8 + i] = iblib_guid_info_get(c->in, i);
		*c->events |= HCASIM_SMA_EV_PORT_MGMT;
	}
	for (unsigned i = 0; i < IBLIB_GUIDS_PER_BLOCK; i++)
		iblib_guid_info_set(c->out, i, sp->guid[block * 8 + i]);
	return 0;
}

static uint16_t attr_sl2vl(struct smp_ctx *c)
{
	struct sma_port *sp = &c->s->port[c->port - 1];

	if (c->method != IBLIB_METHOD_GET && c->method != IBLIB_METHOD_SET)
		return IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR;
	if (c->method == IBLIB_METHOD_SET)
		memcpy(sp->sl2vl, c->in, sizeof(sp->sl2vl));
	memcpy(c->out, sp->sl2vl, sizeof(sp->sl2vl));
	return 0;
}

static uint16_t attr_vlarb(struct smp_ctx *c)
{
	struct sma_port *sp = &c->s->port[c->port - 1];
	unsigned which = c->mod >> 16;  /* 1 low 0..31, 2 high 0..31 (caps are 8 entries) */

	if (c->method != IBLIB_METHOD_GET && c->method != IBLIB_METHOD_SET)
		return IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR;
	if (which != 1 && which != 2)
		return IBLIB_MAD_STATUS_INVALID_FIELD;
	if (c->method == IBLIB_METHOD_SET)
		memcpy(sp->vlarb[which - 1], c->in, IBLIB_SMP_DATA_BYTES);
	memcpy(c->out, sp->vlarb[which - 1], IBLIB_SMP_DATA_BYTES);
	return 0;
}

static uint16_t attr_mlnx_ext_port_info(struct smp_ctx *c)
{
	struct sma_port *sp = addressed_port(c, NULL);

	if (!sp)
		return IBLIB_MAD_STATUS_INVALID_FIELD;
	if (c->method != IBLIB_METHOD_GET && c->method != IBLIB_METHOD_SET)
		return IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR;
	if (c->method == IBLIB_METHOD_SET) {
		/* No FDR10 on this model: only the enables are stored; supported/active stay 0. */
		iblib_mlnx_ext_portinfo_set_state_change_enable(
			sp->mlnx_ext, iblib_mlnx_ext_portinfo_state_change_enable(c->in));
		iblib_mlnx_ext_portinfo_set_link_speed_enabled(
			sp->mlnx_ext, iblib_mlnx_ext_portinfo_link_speed_enabled(c->in) &
					      iblib_mlnx_ext_portinfo_link_speed_supported(sp->mlnx_ext));
	}
	memcpy(c->out, sp->mlnx_ext, IBLIB_SMP_DATA_BYTES);
	return 0;
}

static uint16_t smp_dispatch(struct smp_ctx *c, uint16_t attr)
{
	switch (attr) {
	case IBLIB_SM_ATTR_NODE_DESC: return attr_node_desc(c);
	case IBLIB_SM_ATTR_NODE_INFO: return attr_node_info(c);
	case IBLIB_SM_ATTR_PORT_INFO: return attr_port_info(c);
	case IBLIB_SM_ATTR_PKEY_TABLE: return attr_pkey_table(c);
	case IBLIB_SM_ATTR_GUID_INFO: return attr_guid_info(c);
	case IBLIB_SM_ATTR_SL2VL_TABLE: return attr_sl2vl(c);
	case IBLIB_SM_ATTR_VLARB_TABLE: return attr_vlarb(c);
	case IBLIB_SM_ATTR_MLNX_EXT_PORT_INFO: return attr_mlnx_ext_port_info(c);
	default:
		/* SMInfo (this CA runs no SM), SwitchInfo/forwarding tables (not a switch), LedInfo,
		 * VendorDiag and anything unknown. */
		return IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR;
	}
}

static int smp_process(struct hcasim_sma *s, unsigned port, const uint8_t *mad, uint8_t *resp,
		       unsigned flags, unsigned *events)
{
	uint8_t req[IBLIB_MAD_BYTES];
	uint8_t method = iblib_mad_method(mad);
	bool from_wire = !(flags & HCASIM_SMA_FROM_MAD_IFC);
	struct smp_ctx c = { .s = s, .port = port, .method = method, .events = events,
			     .mod = iblib_mad_attr_mod(mad) };
	uint16_t st;

	memcpy(req, mad, sizeof(req));
	if (iblib_smp_is_dr(req) && from_wire) {
		/* IBA 14.2.2: a CA is the end of the directed path. */
		if (iblib_smp_dr_d(req))
			return HCASIM_SMA_E_MALFORMED;
		/* Hop count 0: the SM on this very port addressed its own node (C14-9:1). */
		unsigned in_port = iblib_smp_dr_hop_cnt(req) == 0 ? 0 : port;

		if (iblib_smp_dr_recv(req, false, in_port, s->num_ports, NULL) != IBLIB_DR_LOCAL)
			return HCASIM_SMA_E_MALFORMED;
	}
	if (method & IBLIB_METHOD_RESP)
		return 0;            /* a response (to a trap we never sent): nothing to do */
	if (method == IBLIB_METHOD_TRAP || method == IBLIB_METHOD_TRAP_REPRESS)
		return 0;            /* traps go to the SM, not to an SMA */
	if (req[2] != IBLIB_SMP_CLASS_VERSION) {
		iblib_mad_make_response(resp, req, IBLIB_MAD_STATUS_BAD_VERSION);
		goto respond;
	}
	if (method != IBLIB_METHOD_GET && method != IBLIB_METHOD_SET) {
		iblib_mad_make_response(resp, req, IBLIB_MAD_STATUS_UNSUP_METHOD);
		goto respond;
	}
	if (!(flags & HCASIM_SMA_SKIP_MKEY)) {
		enum mkey_result mk = mkey_check(&s->port[port - 1], req, method);

		if (mk == MKEY_FAIL)
			return HCASIM_SMA_E_MKEY;  /* silently dropped (IBA 14.2.4.2) */
		c.hide_mkey = mk == MKEY_OK_HIDE_KEY;
	}
	memcpy(resp, req, IBLIB_MAD_BYTES);
	c.req = req;
	c.in = iblib_smp_cdata(req);
	c.out = iblib_smp_data(resp);
	memset(c.out, 0, IBLIB_SMP_DATA_BYTES);
	st = smp_dispatch(&c, iblib_mad_attr_id(req));
	/* A failed request returns its data as sent - except a refused PortInfo Set, whose
	 * response shows the attribute as it still is (nothing was applied). */
	if (st && !(iblib_mad_attr_id(req) == IBLIB_SM_ATTR_PORT_INFO && method == IBLIB_METHOD_SET &&
		    st == IBLIB_MAD_STATUS_INVALID_FIELD && addressed_port(&c, NULL)))
		memcpy(c.out, c.in, IBLIB_SMP_DATA_BYTES);
	iblib_mad_make_response(resp, resp, st);
respond:
	if (iblib_smp_is_dr(resp) && from_wire &&
	    iblib_smp_dr_respond(resp, false, s->num_ports, NULL) < 0)
		return HCASIM_SMA_E_MALFORMED;
	/* Through MAD_IFC the firmware leaves the D (direction) bit to the driver, as it leaves the
	 * hop fields: Linux mthca/mlx4/mlx5 set it themselves after MAD_IFC, and iPXE's hermon_mad()
	 * treats any non-zero status, D included, as a failed command (found by the iPXE oracle). */
	if (iblib_smp_is_dr(resp) && !from_wire)
		resp[4] &= 0x7f;
	return 1;
}

/* ---------------- PMA (IBA 16.1) ---------------- */

static uint32_t sat32(uint64_t v)
{
	return v > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)v;
}

static uint16_t pma_port_counters(struct hcasim_sma *s, uint8_t method, const uint8_t *in,
				  uint8_t *out)
{
	struct iblib_port_counters pc;
	unsigned p;

	memset(&pc, 0, sizeof(pc));
	p = in[1];  /* PortSelect */
	if (!port_valid(s, p))
		return IBLIB_MAD_STATUS_INVALID_FIELD;
	struct sma_counters *k = &s->port[p - 1].cnt;
	if (method == IBLIB_METHOD_SET) {
		uint16_t sel = get_be16(in + 2);  /* CounterSelect: which counters to clear */

		if (sel & (1u << 2))
			k->link_downed = 0;
		if (sel & (1u << 12))
			k->xmit_words = 0;
		if (sel & (1u << 13))
			k->rcv_words = 0;
		if (sel & (1u << 14))
			k->xmit_pkts = 0;
		if (sel & (1u << 15))
			k->rcv_pkts = 0;
	}
	pc.port_select = (uint8_t)p;
	pc.counter_select = get_be16(in + 2);
	pc.link_downed = k->link_downed;
	pc.xmit_data = sat32(k->xmit_words);
	pc.rcv_data = sat32(k->rcv_words);
	pc.xmit_pkts = sat32(k->xmit_pkts);
	pc.rcv_pkts = sat32(k->rcv_pkts);
	iblib_port_counters_put(out, &pc);
	return 0;
}

static uint16_t pma_port_counters_ext(struct hcasim_sma *s, uint8_t method, const uint8_t *in,
				      uint8_t *out)
{
	struct iblib_port_counters_ext pc;
	unsigned p = in[1];

	memset(&pc, 0, sizeof(pc));
	if (!port_valid(s, p))
		return IBLIB_MAD_STATUS_INVALID_FIELD;
	struct sma_counters *k = &s->port[p - 1].cnt;
	if (method == IBLIB_METHOD_SET) {
		uint16_t sel = get_be16(in + 2);

		if (sel & 1)
			k->xmit_words = 0;
		if (sel & 2)
			k->rcv_words = 0;
		if (sel & 4)
			k->xmit_pkts = 0;
		if (sel & 8)
			k->rcv_pkts = 0;
	}
	pc.port_select = (uint8_t)p;
	pc.counter_select = get_be16(in + 2);
	pc.xmit_data = k->xmit_words;
	pc.rcv_data = k->rcv_words;
	pc.xmit_pkts = k->xmit_pkts;
	pc.rcv_pkts = k->rcv_pkts;
	/* The model does not tell unicast from multicast in its counters: report all as unicast. */
	pc.ucast_xmit_pkts = k->xmit_pkts;
	pc.ucast_rcv_pkts = k->rcv_pkts;
	iblib_port_counters_ext_put(out, &pc);
	return 0;
}

static int pma_process(struct hcasim_sma *s, const uint8_t *mad, uint8_t *resp)
{
	uint8_t method = iblib_mad_method(mad);
	uint8_t req[IBLIB_MAD_BYTES];
	const uint8_t *in = req + IBLIB_PERF_DATA_OFF;
	uint8_t *out = resp + IBLIB_PERF_DATA_OFF;
	uint16_t st = 0;

	if (method & IBLIB_METHOD_RESP)
		return 0;
	memcpy(req, mad, sizeof(req));  /* resp may be the request buffer itself */
	memcpy(resp, req, IBLIB_MAD_BYTES);
	if (req[2] != IBLIB_PERF_CLASS_VERSION) {
		st = IBLIB_MAD_STATUS_BAD_VERSION;
		goto out;
	}
	if (method != IBLIB_METHOD_GET && method != IBLIB_METHOD_SET) {
		st = IBLIB_MAD_STATUS_UNSUP_METHOD;
		goto out;
	}
	memset(out, 0, IBLIB_MAD_BYTES - IBLIB_PERF_DATA_OFF);
	switch (iblib_mad_attr_id(req)) {
	case IBLIB_ATTR_CLASS_PORT_INFO: {
		struct iblib_class_port_info cpi = {
			.base_version = 1, .class_version = IBLIB_PERF_CLASS_VERSION,
			.cap_mask = IBLIB_PERF_CAP_EXT_WIDTH, .resp_time_value = 18,
		};
		if (method != IBLIB_METHOD_GET) {
			st = IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR;
			break;
		}
		iblib_class_port_info_put(out, &cpi);
		break;
	}
	case IBLIB_PERF_ATTR_PORT_COUNTERS:
		st = pma_port_counters(s, method, in, out);
		break;
	case IBLIB_PERF_ATTR_PORT_COUNTERS_EXT:
		st = pma_port_counters_ext(s, method, in, out);
		break;
	default:
		st = IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR;
		break;
	}
	if (st)
		memcpy(out, in, IBLIB_MAD_BYTES - IBLIB_PERF_DATA_OFF);
out:
	iblib_mad_make_response(resp, resp, st);
	return 1;
}

int hcasim_sma_mad(struct hcasim_sma *s, unsigned port, const uint8_t *mad, uint8_t *resp,
		   unsigned flags, unsigned *events)
{
	unsigned dummy = 0;

	if (!events)
		events = &dummy;
	if (!port_valid(s, port))
		return HCASIM_SMA_E_PORT;
	if (!mad || !resp || iblib_mad_check(mad, IBLIB_MAD_BYTES) < 0)
		return HCASIM_SMA_E_MALFORMED;
	switch (iblib_mad_class(mad)) {
	case IBLIB_MCLASS_SUBN_LID:
	case IBLIB_MCLASS_SUBN_DR:
		return smp_process(s, port, mad, resp, flags, events);
	case IBLIB_MCLASS_PERF:
		return pma_process(s, mad, resp);
	default:
		return 0;  /* SA, CM, vendor classes: the driver's business */
	}
}

bool hcasim_sma_for_driver(const uint8_t *mad)
{
	uint8_t cls = iblib_mad_class(mad);

	if (iblib_mad_is_response(mad))
		return true;
	if (cls == IBLIB_MCLASS_SUBN_LID || cls == IBLIB_MCLASS_SUBN_DR) {
		uint8_t m = iblib_mad_method(mad);

		return iblib_mad_attr_id(mad) == IBLIB_SM_ATTR_SM_INFO || m == IBLIB_METHOD_TRAP ||
		       m == IBLIB_METHOD_TRAP_REPRESS;
	}
	return cls != IBLIB_MCLASS_PERF;
}

/* ---------------- accessors ---------------- */

#define PI(s, port) ((s)->port[(port) - 1].pi)

uint8_t hcasim_sma_port_state(const struct hcasim_sma *s, unsigned port)
{
	return port_valid(s, port) ? (uint8_t)iblib_portinfo_port_state(PI(s, port)) : IBLIB_PORT_STATE_DOWN;
}

uint8_t hcasim_sma_phys_state(const struct hcasim_sma *s, unsigned port)
{
	return port_valid(s, port) ? (uint8_t)iblib_portinfo_port_phys_state(PI(s, port)) : 0;
}

uint16_t hcasim_sma_lid(const struct hcasim_sma *s, unsigned port)
{
	return port_valid(s, port) ? (uint16_t)iblib_portinfo_lid(PI(s, port)) : 0;
}

uint8_t hcasim_sma_lmc(const struct hcasim_sma *s, unsigned port)
{
	return port_valid(s, port) ? (uint8_t)iblib_portinfo_lmc(PI(s, port)) : 0;
}

uint16_t hcasim_sma_sm_lid(const struct hcasim_sma *s, unsigned port)
{
	return port_valid(s, port) ? (uint16_t)iblib_portinfo_master_sm_lid(PI(s, port)) : 0;
}

uint8_t hcasim_sma_sm_sl(const struct hcasim_sma *s, unsigned port)
{
	return port_valid(s, port) ? (uint8_t)iblib_portinfo_master_sm_sl(PI(s, port)) : 0;
}

uint64_t hcasim_sma_gid_prefix(const struct hcasim_sma *s, unsigned port)
{
	return port_valid(s, port) ? iblib_portinfo_gid_prefix(PI(s, port)) : 0;
}

uint64_t hcasim_sma_port_guid(const struct hcasim_sma *s, unsigned port)
{
	return port_valid(s, port) ? s->port[port - 1].guid[0] : 0;
}

uint64_t hcasim_sma_node_guid(const struct hcasim_sma *s)
{
	return s ? s->node_guid : 0;
}

unsigned hcasim_sma_num_ports(const struct hcasim_sma *s)
{
	return s ? s->num_ports : 0;
}

uint16_t hcasim_sma_pkey(const struct hcasim_sma *s, unsigned port, unsigned index)
{
	return port_valid(s, port) && index < SMA_PKEYS ? s->port[port - 1].pkey[index] : 0;
}

unsigned hcasim_sma_pkey_table_size(const struct hcasim_sma *s)
{
	(void)s;
	return SMA_PKEYS;
}

unsigned hcasim_sma_mtu(const struct hcasim_sma *s, unsigned port)
{
	return port_valid(s, port) ? iblib_portinfo_neighbor_mtu(PI(s, port)) : 0;
}

unsigned hcasim_sma_mtu_cap(const struct hcasim_sma *s, unsigned port)
{
	return port_valid(s, port) ? iblib_portinfo_mtu_cap(PI(s, port)) : 0;
}

unsigned hcasim_sma_op_vls(const struct hcasim_sma *s, unsigned port)
{
	return port_valid(s, port) ? iblib_portinfo_operational_vls(PI(s, port)) : 0;
}

/* IBA 10.9.3: same partition number (low 15 bits) and not both limited members. The invalid
 * P_Keys 0x0000/0x8000 never match. */
bool hcasim_sma_pkey_match(const struct hcasim_sma *s, unsigned port, uint16_t pkey)
{
	if (!port_valid(s, port) || (pkey & 0x7FFF) == 0)
		return false;
	for (unsigned i = 0; i < SMA_PKEYS; i++) {
		uint16_t k = s->port[port - 1].pkey[i];

		if ((k & 0x7FFF) == 0 || (k & 0x7FFF) != (pkey & 0x7FFF))
			continue;
		if ((k | pkey) & IBLIB_PKEY_MEMBER)
			return true;
	}
	return false;
}

void hcasim_sma_count(struct hcasim_sma *s, unsigned port, bool xmit, size_t bytes)
{
	struct sma_counters *k;
	uint64_t words;

	if (!port_valid(s, port))
		return;
	k = &s->port[port - 1].cnt;
	/* IBA 16.1.3.5: PortXmitData/PortRcvData count the octets from the LRH through the ICRC
	 * (the VCRC excluded), divided by 4. */
	words = bytes > IBLIB_VCRC_BYTES ? (bytes - IBLIB_VCRC_BYTES) / 4 : 0;
	if (xmit) {
		k->xmit_words += words;
		k->xmit_pkts++;
	} else {
		k->rcv_words += words;
		k->rcv_pkts++;
	}
}

static void bump16(uint8_t *pi, uint32_t (*get)(const uint8_t *), void (*set)(uint8_t *, uint32_t))
{
	uint32_t v = get(pi);

	if (v < 0xFFFF)
		set(pi, v + 1);
}

void hcasim_sma_count_pkey_violation(struct hcasim_sma *s, unsigned port)
{
	if (port_valid(s, port))
		bump16(PI(s, port), iblib_portinfo_pkey_violations, iblib_portinfo_set_pkey_violations);
}

void hcasim_sma_count_qkey_violation(struct hcasim_sma *s, unsigned port)
{
	if (port_valid(s, port))
		bump16(PI(s, port), iblib_portinfo_qkey_violations, iblib_portinfo_set_qkey_violations);
}

/* SPDX-License-Identifier: MIT */
/*
 * The subnet management agent of the nodes fabsim itself owns: switches and SM hosts (IBA 14.2.5).
 * HCA ports are never answered here: their SMPs travel to the HCA model's own firmware SMA.
 *
 * Identity: vendor 0x02C9 (Mellanox). A switch reports device 0xC738 (SwitchX), 4X QDR ports with
 * MTUCap 4096 and VL0-7; an SM host reports device 0x1003 (ConnectX-3), as the PoC that OpenSM
 * accepted did.
 */
#include "fabsim.h"
#include "smp.h"

#include <string.h>

#include <ibboot/wire/bytes.h>

#define VENDOR_MELLANOX 0x0002c9
#define DEVID_SWITCH 0xc738
#define DEVID_CA 0x1003
#define REVISION 0xa1

#define WIDTH_1X_4X 3
#define WIDTH_4X 2
#define SPEED_SDR_DDR_QDR 7
#define SPEED_QDR 4
#define MTU_4096 5
#define VLCAP_VL0_7 4
#define LFT_BLOCKS (FABSIM_LFT_SIZE / 64)
#define SWITCH_PORT_PKEYS 32      /* SwitchInfo:PartitionEnforcementCap */

/* CapabilityMask (IBA 14.2.5.6 table 146). Switch port 0: IsTrapSupported | IsSLMappingSupported.
 * CA: as a ConnectX-3 reports (IsTrap, IsAutomaticMigration, IsSLMapping, IsSystemImageGUID,
 * IsCommunicationManagement, IsVendorClass, IsCapabilityMaskNotice, IsClientReregistration). */
#define CAP_IS_SM 0x00000002u
#define CAP_SWITCH_PORT0 0x00000048u
#define CAP_CA 0x02510868u

void node_info_encode(const struct node *n, unsigned local_port, uint8_t out[64])
{
	bool sw = n->kind == NODE_SWITCH;

	memset(out, 0, 64);
	out[0] = 1;                               /* BaseVersion */
	out[1] = 1;                               /* ClassVersion */
	out[2] = sw ? 2 : 1;                      /* NodeType: 1 CA, 2 switch */
	out[3] = (uint8_t)n->nports;
	put_be64(out + 4, n->guid);         /* SystemImageGUID */
	put_be64(out + 12, n->guid);
	put_be64(out + 20, local_port <= n->nports ? n->ports[local_port].guid : n->guid);
	put_be16(out + 28, FABSIM_PKEYS);   /* PartitionCap */
	put_be16(out + 30, sw ? DEVID_SWITCH : DEVID_CA);
	put_be32(out + 32, REVISION);
	out[36] = (uint8_t)local_port;
	put_be24(out + 37, VENDOR_MELLANOX);
}

static uint32_t capability_mask(const struct port *p)
{
	if (p->node->kind == NODE_SWITCH)
		return p->num == 0 ? CAP_SWITCH_PORT0 : 0;
	return CAP_CA | (p->is_sm ? CAP_IS_SM : 0);
}

void port_info_encode(const struct port *p, unsigned local_port, uint8_t out[64])
{
	const struct port_info_state *pi = &p->pi;
	/* Switch external ports have no LID of their own; report port 0's (IBA 14.2.5.6 note). */
	const struct port_info_state *addr = p->node->kind == NODE_SWITCH ? &p->node->ports[0].pi : pi;
	bool sw = p->node->kind == NODE_SWITCH;

	memset(out, 0, 64);
	put_be64(out + 8, addr->gid_prefix);
	put_be16(out + 16, addr->lid);
	put_be16(out + 18, addr->smlid);
	put_be32(out + 20, capability_mask(p));
	put_be16(out + 26, addr->mkey_lease);
	out[28] = (uint8_t)local_port;
	out[29] = pi->width_enabled;
	out[30] = WIDTH_1X_4X;
	out[31] = WIDTH_4X;
	out[32] = (uint8_t)(SPEED_SDR_DDR_QDR << 4 | pi->state);
	out[33] = (uint8_t)(pi->phys << 4 | pi->link_down_default);
	out[34] = addr->lmc & 7;
	out[35] = (uint8_t)(SPEED_QDR << 4 | (pi->speed_enabled & 0xf));
	out[36] = (uint8_t)(pi->neighbor_mtu << 4 | (addr->smsl & 0xf));
	out[37] = VLCAP_VL0_7 << 4;
	out[38] = pi->vl_high_limit;
	out[39] = 8;                              /* VLArbitrationHighCap */
	out[40] = 8;                              /* VLArbitrationLowCap */
	out[41] = MTU_4096;
	out[42] = (uint8_t)(7 << 5 | (pi->hoq_life & 0x1f));
	out[43] = (uint8_t)(pi->oper_vls << 4);
	out[50] = sw ? 1 : 8;                     /* GUIDCap */
	out[51] = addr->subnet_timeout & 0x1f;
	out[52] = pi->resp_time ? pi->resp_time : 8;
}

/* Link-state side of a port fabsim owns: the cable came up (→ Init, LinkUp) or went down. */
void port_set_phys(struct fabric *f, struct port *p, bool up)
{
	uint8_t old = p->pi.state;

	p->pi.phys = up ? PHYS_LINKUP : (p->link && p->link->admin_down &&
					   p->pi.link_down_default == PHYS_DISABLED)
					  ? PHYS_DISABLED : PHYS_POLLING;
	p->pi.state = up ? PORT_INIT : PORT_DOWN;
	if (p->node->kind == NODE_SWITCH && old != p->pi.state) {
		p->node->port_state_change = true;  /* SwitchInfo:PortStateChange (14.2.5.4) */
		switch_send_trap128(f, p->node);
	}
}

static int port_info_set(struct fabric *f, struct port *p, const uint8_t *d)
{
	bool addr_owner = p->node->kind != NODE_SWITCH || p->num == 0;
	uint8_t want = d[32] & 0xf, phys = d[33] >> 4;

	/* Validate the state request before changing anything (IBA 14.2.5.6, C14-24..). */
	if (want > PORT_ACTIVE)
		return MAD_STATUS_BAD_VALUE;
	if (!(p->node->kind == NODE_SWITCH && p->num == 0) && want >= PORT_ARMED) {
		if (p->pi.phys != PHYS_LINKUP)
			return MAD_STATUS_BAD_VALUE;
		if (want == PORT_ARMED && p->pi.state != PORT_INIT && p->pi.state != PORT_ARMED)
			return MAD_STATUS_BAD_VALUE;
		if (want == PORT_ACTIVE && p->pi.state != PORT_ARMED && p->pi.state != PORT_ACTIVE)
			return MAD_STATUS_BAD_VALUE;
	}
	if (phys && phys != PHYS_POLLING && phys != PHYS_DISABLED && phys != PHYS_SLEEP)
		return MAD_STATUS_BAD_VALUE;
	if (addr_owner) {
		p->pi.gid_prefix = get_be64(d + 8);
		p->pi.lid = get_be16(d + 16);
		p->pi.smlid = get_be16(d + 18);
		p->pi.mkey_lease = get_be16(d + 26);
		p->pi.lmc = d[34] & 7;
		p->pi.smsl = d[36] & 0xf;
		p->pi.subnet_timeout = d[51] & 0x1f;
		if (d[51] & 0x80)
			fabsim_log(f, 1, "%s:%u ClientReregister requested", p->node->name, p->num);
	}
	if (d[29])
		p->pi.width_enabled = d[29] == 0xff ? WIDTH_1X_4X : d[29];
	if (d[35] & 0xf)
		p->pi.speed_enabled = (d[35] & 0xf) == 0xf ? SPEED_SDR_DDR_QDR : (d[35] & 0xf);
	if (d[36] >> 4)
		p->pi.neighbor_mtu = d[36] >> 4;
	if (d[43] >> 4)
		p->pi.oper_vls = d[43] >> 4;
	if (d[33] & 0xf)
		p->pi.link_down_default = d[33] & 0xf;
	p->pi.vl_high_limit = d[38];
	p->pi.hoq_life = d[42] & 0x1f;
	if (p->node->kind == NODE_SWITCH && p->num == 0)
		return 0;             /* port 0 has no link: its state stays Active */
	if (phys == PHYS_DISABLED && p->link && !p->link->admin_down) {
		link_set_admin(f, p->link, true);
		p->pi.phys = PHYS_DISABLED;
		return 0;
	}
	if (phys == PHYS_POLLING && p->link && p->link->admin_down) {
		link_set_admin(f, p->link, false);
		return 0;
	}
	if (want == PORT_DOWN) {
		/* The link retrains: back to Init if the cable is still good (IBA 7.2.5). */
		if (p->pi.phys == PHYS_LINKUP) {
			p->pi.state = PORT_INIT;
			if (p->node->kind == NODE_SWITCH)
				p->node->port_state_change = true;
		}
	} else if (want >= PORT_ARMED) {
		p->pi.state = want;
	}
	fabsim_log(f, 2, "%s:%u PortInfo set: LID %u state %u", p->node->name, p->num, p->pi.lid,
		   p->pi.state);
	return 0;
}

static void switch_info_encode(const struct node *sw, uint8_t out[64])
{
	memset(out, 0, 64);
	put_be16(out + 0, FABSIM_LFT_SIZE);    /* LinearFDBCap */
	put_be16(out + 2, 0);                  /* RandomFDBCap */
	put_be16(out + 4, FABSIM_MFT_SIZE);    /* MulticastFDBCap */
	put_be16(out + 6, sw->lft_top);
	out[8] = sw->default_port;
	out[9] = sw->default_mc_primary;
	out[10] = sw->default_mc_not_primary;
	out[11] = (uint8_t)(sw->lifetime << 3 | (sw->port_state_change ? 4 : 0));
	put_be16(out + 12, 1);                 /* LIDsPerPort */
	put_be16(out + 14, SWITCH_PORT_PKEYS); /* PartitionEnforcementCap */
	out[16] = 0x08;                              /* EnhancedPort0 */
	put_be16(out + 18, sw->mft_top);
}

static void switch_info_set(struct node *sw, const uint8_t *d)
{
	sw->lft_top = get_be16(d + 6);
	sw->default_port = d[8];
	sw->default_mc_primary = d[9];
	sw->default_mc_not_primary = d[10];
	sw->lifetime = d[11] >> 3;
	if (d[11] & 4)
		sw->port_state_change = false;           /* write 1 to clear */
	sw->mft_top = get_be16(d + 18);
}

/* The port an attribute modifier names: switches address ports explicitly, a CA answers for the
 * port the SMP arrived at (modifier 0 or that port's number). */
static struct port *addressed_port(struct port *at, unsigned num)
{
	struct node *n = at->node;

	if (n->kind == NODE_SWITCH)
		return num <= n->nports ? &n->ports[num] : NULL;
	if (num == 0 || num == at->num)
		return at;
	return num <= n->nports ? &n->ports[num] : NULL;
}

static int pkey_table(struct port *at, uint32_t mod, bool set, uint8_t *data)
{
	bool sw = at->node->kind == NODE_SWITCH;
	struct port *p = addressed_port(at, sw ? (mod >> 16) & 0xffff : 0);
	unsigned block = mod & 0xffff;
	unsigned cap = (sw && p && p->num) ? SWITCH_PORT_PKEYS : FABSIM_PKEYS;

	if (!p || (block + 1) * 32 > cap)
		return MAD_STATUS_BAD_VALUE;
	for (unsigned i = 0; i < 32; i++) {
		if (set)
			p->pkeys[block * 32 + i] = get_be16(data + 2 * i);
		put_be16(data + 2 * i, p->pkeys[block * 32 + i]);
	}
	return 0;
}

static int guid_info(struct port *at, uint32_t mod, uint8_t *data)
{
	/* One GUID per port (GUIDCap 1 for a switch, a single used entry for the SM host). */
	if (mod != 0)
		return MAD_STATUS_BAD_VALUE;
	memset(data, 0, 64);
	put_be64(data, at->node->kind == NODE_SWITCH ? at->node->guid : at->guid);
	return 0;
}

static int sl2vl_table(struct port *at, uint32_t mod, bool set, uint8_t *data)
{
	struct node *n = at->node;
	uint8_t *t;

	if (n->kind == NODE_SWITCH) {
		unsigned in = (mod >> 8) & 0xff, out = mod & 0xff;

		if (in > n->nports || out > n->nports)
			return MAD_STATUS_BAD_VALUE;
		t = n->sl2vl + ((size_t)in * (n->nports + 1) + out) * 8;
	} else {
		t = at->sl2vl;
	}
	if (set)
		memcpy(t, data, 8);
	memset(data, 0, 64);
	memcpy(data, t, 8);
	return 0;
}

static int vl_arb_table(struct port *at, uint32_t mod, bool set, uint8_t *data)
{
	unsigned block = mod >> 16;
	struct port *p = addressed_port(at, at->node->kind == NODE_SWITCH ? (mod & 0xffff) : 0);

	if (!p || block < 1 || block > 4)
		return MAD_STATUS_BAD_VALUE;
	if (set)
		memcpy(p->vlarb[block - 1], data, 64);
	memcpy(data, p->vlarb[block - 1], 64);
	return 0;
}

static int lft_block(struct node *sw, uint32_t mod, bool set, uint8_t *data)
{
	if (mod >= LFT_BLOCKS)
		return MAD_STATUS_BAD_VALUE;
	if (set)
		memcpy(sw->lft + mod * 64, data, 64);
	memcpy(data, sw->lft + mod * 64, 64);
	return 0;
}

static int mft_block(struct node *sw, uint32_t mod, bool set, uint8_t *data)
{
	unsigned block = mod & 0x1ff, pos = mod >> 28;

	/* Modifier: bits 31..28 port-mask position (16 ports each), bits 8..0 block of 32 MLIDs. */
	if ((block + 1) * 32 > FABSIM_MFT_SIZE || pos >= FABSIM_MFT_POSITIONS)
		return MAD_STATUS_BAD_VALUE;
	for (unsigned i = 0; i < 32; i++) {
		if (set)
			sw->mft[block * 32 + i][pos] = get_be16(data + 2 * i);
		put_be16(data + 2 * i, sw->mft[block * 32 + i][pos]);
	}
	return 0;
}

static int mlnx_ext_port_info(struct port *at, uint32_t mod, bool set, uint8_t *data)
{
	struct port *p = addressed_port(at, mod & 0xff);

	if (!p)
		return MAD_STATUS_BAD_VALUE;
	if (set)
		memcpy(p->mlnx_ext, data, 64);
	memcpy(data, p->mlnx_ext, 64);
	return 0;
}

static int answer(struct fabric *f, struct port *at, uint8_t method, uint16_t attr, uint32_t mod,
		  uint8_t *data)
{
	struct node *n = at->node;
	bool sw = n->kind == NODE_SWITCH, set = method == METHOD_SET;
	struct port *p;
	int st;

	switch (attr) {
	case ATTR_NODE_DESC:
		if (set)
			return MAD_STATUS_BAD_ATTR;
		memset(data, 0, 64);
		memcpy(data, n->desc, strnlen(n->desc, 64));
		return 0;
	case ATTR_NODE_INFO:
		if (set)
			return MAD_STATUS_BAD_ATTR;
		node_info_encode(n, at->num, data);
		return 0;
	case ATTR_PORT_INFO:
		p = addressed_port(at, mod & 0xff);
		if (!p || (mod & ~0xffu))
			return MAD_STATUS_BAD_VALUE;
		if (set && (st = port_info_set(f, p, data)))
			return st;
		port_info_encode(p, at->num, data);
		return 0;
	case ATTR_PKEY_TABLE:
		return pkey_table(at, mod, set, data);
	case ATTR_GUID_INFO:
		return guid_info(at, mod, data);
	case ATTR_SL2VL:
		return sl2vl_table(at, mod, set, data);
	case ATTR_VL_ARB:
		return vl_arb_table(at, mod, set, data);
	case ATTR_MLNX_EXT_PORT_INFO:
		return mlnx_ext_port_info(at, mod, set, data);
	case ATTR_SWITCH_INFO:
		if (!sw)
			return MAD_STATUS_BAD_ATTR;
		if (set)
			switch_info_set(n, data);
		switch_info_encode(n, data);
		return 0;
	case ATTR_LFT:
		return sw ? lft_block(n, mod, set, data) : MAD_STATUS_BAD_ATTR;
	case ATTR_MFT:
		return sw ? mft_block(n, mod, set, data) : MAD_STATUS_BAD_ATTR;
	default:
		return MAD_STATUS_BAD_ATTR;
	}
}

bool sma_process(struct fabric *f, struct port *at, uint8_t *mad)
{
	uint8_t method = mad[MAD_METHOD];
	uint16_t attr = get_be16(mad + MAD_ATTR_ID);
	uint32_t mod = get_be32(mad + MAD_ATTR_MOD);
	uint16_t keep = get_be16(mad + MAD_STATUS) & SMP_DIRECTION;
	int st;

	/* Responses, traps and trap represses are not requests this agent answers. */
	if (method & METHOD_RESP_BIT || method == METHOD_TRAP || method == METHOD_TRAP_REPRESS)
		return false;
	if (mad[MAD_BASE_VERSION] != 1 || mad[MAD_CLASS_VERSION] != 1)
		st = 1 << 2;          /* bad version (13.4.7) */
	else if (method != METHOD_GET && method != METHOD_SET)
		st = MAD_STATUS_BAD_METHOD;
	else
		st = answer(f, at, method, attr, mod, mad + SMP_DATA);
	fabsim_log(f, 2, "%s:%u SMA %s attr 0x%04x mod 0x%x -> status 0x%x", at->node->name,
		   at->num, method == METHOD_SET ? "Set" : "Get", attr, mod, (unsigned)st);
	mad[MAD_METHOD] = METHOD_GET_RESP;
	put_be16(mad + MAD_STATUS, (uint16_t)(keep | st));
	return true;
}

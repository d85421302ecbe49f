/* SPDX-License-Identifier: MIT */
/* The HCA model's firmware SMA/PMA (util/hcasim/sma.c), driven by raw MADs. */
#include "test.h"

#include <ibboot/wire/attrs.h>
#include <ibboot/wire/bytes.h>
#include <ibboot/wire/mad.h>
#include <ibboot/wire/packet.h>

#include "hcasim.h"
#include "sma.h"

#define NODE_GUID 0x0002c90300001230ull
#define IFC (HCASIM_SMA_FROM_MAD_IFC | HCASIM_SMA_SKIP_MKEY | HCASIM_SMA_SKIP_BKEY)

static struct hcasim_sma *new_sma(void)
{
	struct hcasim_config cfg = { .device_id = 0x1003, .node_guid = NODE_GUID, .num_ports = 2,
				     .node_desc = "hcasim-test HCA-1" };
	struct hcasim_sma *s = hcasim_sma_create(&cfg);

	CHECK(s != NULL);
	return s;
}

static void mk(uint8_t *mad, uint8_t mclass, uint8_t method, uint16_t attr, uint32_t mod)
{
	struct iblib_mad_hdr h = { .base_version = 1, .mgmt_class = mclass, .class_version = 1,
				   .method = method, .tid = 0xABCD, .attr_id = attr, .attr_mod = mod };

	memset(mad, 0, IBLIB_MAD_BYTES);
	iblib_mad_hdr_put(mad, &h);
	if (mclass == IBLIB_MCLASS_SUBN_DR) {
		put_be16(mad + IBLIB_SMP_DR_SLID_OFF, 0xFFFF);
		put_be16(mad + IBLIB_SMP_DR_DLID_OFF, 0xFFFF);
	}
}

static uint16_t status(const uint8_t *resp) { return iblib_smp_status(resp); }

/* The SMA's answer to mad (flags as hcasim_sma_mad takes them): its MAD status, or -1 when it
 * gave none. */
static int answer(struct hcasim_sma *s, unsigned port, const uint8_t *mad, uint8_t *resp,
		  unsigned flags, unsigned *ev)
{
	return hcasim_sma_mad(s, port, mad, resp, flags, ev) == 1 ? status(resp) : -1;
}

/* PortInfo Get through MAD_IFC into out (64 B). */
static void get_pi(struct hcasim_sma *s, unsigned port, uint8_t *out)
{
	uint8_t mad[256], resp[256];
	unsigned ev = 0;

	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_PORT_INFO, port);
	CHECK_EQ(answer(s, port, mad, resp, IFC, &ev), 0);
	CHECK_EQ(ev, 0);
	memcpy(out, resp + 64, 64);
}

/* PortInfo Set from the wire (LID-routed SMP on `port`) with the data in pi; returns status,
 * events in *ev. */
static int set_pi(struct hcasim_sma *s, unsigned port, const uint8_t *pi, unsigned *ev, uint8_t *resp)
{
	uint8_t mad[256], r[256];

	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_SET, IBLIB_SM_ATTR_PORT_INFO, port);
	memcpy(mad + 64, pi, 64);
	*ev = 0;
	return answer(s, port, mad, resp ? resp : r, 0, ev);
}

TEST(node_info_and_description)
{
	struct hcasim_sma *s = new_sma();
	uint8_t mad[256], resp[256];
	unsigned ev = 0;

	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_INFO, 0);
	CHECK_EQ(hcasim_sma_mad(s, 2, mad, resp, IFC, &ev), 1);
	const uint8_t *d = resp + 64;
	CHECK_EQ(resp[3], IBLIB_METHOD_GET_RESP);
	CHECK_EQ(status(resp), 0);
	CHECK_EQ(get_be64(resp + 8), 0xABCD);
	CHECK_EQ(iblib_nodeinfo_node_type(d), IBLIB_NODE_TYPE_CA);
	CHECK_EQ(iblib_nodeinfo_num_ports(d), 2);
	CHECK_EQ(iblib_nodeinfo_vendor_id(d), 0x0002C9);
	CHECK_EQ(iblib_nodeinfo_device_id(d), 0x1003);
	CHECK_EQ(iblib_nodeinfo_node_guid(d), NODE_GUID);
	CHECK_EQ(iblib_nodeinfo_port_guid(d), NODE_GUID + 2);
	CHECK_EQ(iblib_nodeinfo_local_port_num(d), 2);
	CHECK_EQ(iblib_nodeinfo_partition_cap(d), 128);
	CHECK_EQ(iblib_nodeinfo_base_version(d), 1);
	CHECK_EQ(hcasim_sma_port_guid(s, 1), NODE_GUID + 1);

	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_DESC, 0);
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, IFC, &ev), 1);
	CHECK_STR((const char *)resp + 64, "hcasim-test HCA-1");

	/* NodeInfo is read-only */
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_SET, IBLIB_SM_ATTR_NODE_INFO, 0);
	CHECK_EQ(answer(s, 1, mad, resp, IFC, &ev), IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR);
	hcasim_sma_destroy(s);
}

TEST(link_trains_to_init_and_drops_to_down)
{
	struct hcasim_sma *s = new_sma();
	uint8_t pi[64];

	CHECK_EQ(hcasim_sma_port_state(s, 1), IBLIB_PORT_STATE_DOWN);
	CHECK_EQ(hcasim_sma_phys_state(s, 1), IBLIB_PHYS_STATE_POLLING);
	hcasim_sma_set_link(s, 1, true);
	CHECK_EQ(hcasim_sma_port_state(s, 1), IBLIB_PORT_STATE_INIT);
	CHECK_EQ(hcasim_sma_phys_state(s, 1), IBLIB_PHYS_STATE_LINKUP);
	CHECK_EQ(hcasim_sma_port_state(s, 2), IBLIB_PORT_STATE_DOWN);  /* uncabled port 2 */
	get_pi(s, 1, pi);
	CHECK_EQ(iblib_portinfo_port_state(pi), IBLIB_PORT_STATE_INIT);
	CHECK_EQ(iblib_portinfo_link_width_active(pi), IBLIB_WIDTH_4X);
	CHECK_EQ(iblib_portinfo_link_speed_active(pi), IBLIB_SPEED_QDR);
	CHECK_EQ(iblib_portinfo_capability_mask(pi) & IBLIB_CAP_IS_CLIENT_REREG_SUPPORTED,
		 IBLIB_CAP_IS_CLIENT_REREG_SUPPORTED);
	CHECK_EQ(iblib_portinfo_mtu_cap(pi), IBLIB_MTU_4096);
	CHECK_EQ(iblib_portinfo_local_port_num(pi), 1);
	CHECK_EQ(iblib_portinfo_gid_prefix(pi), 0xfe80000000000000ull);
	hcasim_sma_set_link(s, 1, false);
	CHECK_EQ(hcasim_sma_port_state(s, 1), IBLIB_PORT_STATE_DOWN);
	CHECK_EQ(hcasim_sma_phys_state(s, 1), IBLIB_PHYS_STATE_POLLING);
	/* out-of-range ports are ignored, not crashes */
	hcasim_sma_set_link(s, 3, true);
	hcasim_sma_set_link(s, 0, true);
	CHECK_EQ(hcasim_sma_port_state(s, 3), IBLIB_PORT_STATE_DOWN);
	hcasim_sma_destroy(s);
}

/* The sequence of PortInfo Sets OpenSM sends a CA (fabric-opensm.md section 2.6). */
TEST(opensm_portinfo_sequence)
{
	struct hcasim_sma *s = new_sma();
	uint8_t pi[64], resp[256];
	unsigned ev;

	hcasim_sma_set_link(s, 1, true);
	get_pi(s, 1, pi);
	iblib_portinfo_set_lid(pi, 3);
	iblib_portinfo_set_master_sm_lid(pi, 1);
	iblib_portinfo_set_port_state(pi, IBLIB_PORT_STATE_NOP);
	iblib_portinfo_set_port_phys_state(pi, IBLIB_PHYS_STATE_NOP);
	iblib_portinfo_set_neighbor_mtu(pi, IBLIB_MTU_2048);
	iblib_portinfo_set_operational_vls(pi, IBLIB_VL_CAP_VL0_7);
	iblib_portinfo_set_subnet_timeout(pi, 18);
	iblib_portinfo_set_client_reregister(pi, 1);
	CHECK_EQ(set_pi(s, 1, pi, &ev, resp), 0);
	CHECK_EQ(ev, HCASIM_SMA_EV_PORT_MGMT | HCASIM_SMA_EV_CLIENT_REREG);
	CHECK_EQ(hcasim_sma_lid(s, 1), 3);
	CHECK_EQ(hcasim_sma_sm_lid(s, 1), 1);
	CHECK_EQ(hcasim_sma_mtu(s, 1), IBLIB_MTU_2048);
	CHECK_EQ(hcasim_sma_op_vls(s, 1), IBLIB_VL_CAP_VL0_7);
	CHECK_EQ(hcasim_sma_port_state(s, 1), IBLIB_PORT_STATE_INIT);
	CHECK_EQ(iblib_portinfo_client_reregister(resp + 64), 0);  /* an action, reads back 0 */
	CHECK_EQ(iblib_portinfo_lid(resp + 64), 3);
	CHECK_EQ(iblib_portinfo_subnet_timeout(resp + 64), 18);

	/* "set to supported" */
	get_pi(s, 1, pi);
	iblib_portinfo_set_port_state(pi, 0);
	iblib_portinfo_set_link_speed_enabled(pi, IBLIB_SPEED_SET_SUPPORTED);
	iblib_portinfo_set_link_width_enabled(pi, IBLIB_WIDTH_SET_SUPPORTED);
	CHECK_EQ(set_pi(s, 1, pi, &ev, resp), 0);
	CHECK_EQ(ev, 0);  /* nothing the driver must hear about */
	CHECK_EQ(iblib_portinfo_link_speed_enabled(resp + 64), 7);
	CHECK_EQ(iblib_portinfo_link_width_enabled(resp + 64), 3);

	get_pi(s, 1, pi);
	iblib_portinfo_set_port_state(pi, IBLIB_PORT_STATE_ARMED);
	iblib_portinfo_set_mkey_lease_period(pi, 4089);
	iblib_portinfo_set_subnet_timeout(pi, 31);
	CHECK_EQ(set_pi(s, 1, pi, &ev, resp), 0);
	CHECK_EQ(ev, HCASIM_SMA_EV_PORT_STATE);
	CHECK_EQ(hcasim_sma_port_state(s, 1), IBLIB_PORT_STATE_ARMED);

	get_pi(s, 1, pi);
	iblib_portinfo_set_port_state(pi, IBLIB_PORT_STATE_ACTIVE);
	CHECK_EQ(set_pi(s, 1, pi, &ev, resp), 0);
	CHECK_EQ(ev, HCASIM_SMA_EV_PORT_STATE);
	CHECK_EQ(hcasim_sma_port_state(s, 1), IBLIB_PORT_STATE_ACTIVE);
	CHECK_EQ(iblib_portinfo_port_state(resp + 64), IBLIB_PORT_STATE_ACTIVE);

	/* LMC and GID prefix changes are management events too */
	get_pi(s, 1, pi);
	iblib_portinfo_set_port_state(pi, 0);
	iblib_portinfo_set_lmc(pi, 2);
	iblib_portinfo_set_master_sm_sl(pi, 3);
	iblib_portinfo_set_gid_prefix(pi, 0xfe80000000001234ull);
	CHECK_EQ(set_pi(s, 1, pi, &ev, resp), 0);
	CHECK_EQ(ev, HCASIM_SMA_EV_PORT_MGMT);
	CHECK_EQ(hcasim_sma_lmc(s, 1), 2);
	CHECK_EQ(hcasim_sma_sm_sl(s, 1), 3);
	CHECK_EQ(hcasim_sma_gid_prefix(s, 1), 0xfe80000000001234ull);
	hcasim_sma_destroy(s);
}

TEST(illegal_state_transitions_refused_atomically)
{
	struct hcasim_sma *s = new_sma();
	uint8_t pi[64], resp[256];
	unsigned ev;

	/* DOWN (no cable) -> ARMED */
	get_pi(s, 1, pi);
	iblib_portinfo_set_port_state(pi, IBLIB_PORT_STATE_ARMED);
	iblib_portinfo_set_lid(pi, 9);
	CHECK_EQ(set_pi(s, 1, pi, &ev, resp), IBLIB_MAD_STATUS_INVALID_FIELD);
	CHECK_EQ(ev, 0);
	CHECK_EQ(hcasim_sma_lid(s, 1), 0);  /* nothing of the refused Set applied */
	CHECK_EQ(iblib_portinfo_lid(resp + 64), 0);
	CHECK_EQ(iblib_portinfo_port_state(resp + 64), IBLIB_PORT_STATE_DOWN);

	hcasim_sma_set_link(s, 1, true);
	/* INIT -> ACTIVE skips ARMED */
	get_pi(s, 1, pi);
	iblib_portinfo_set_port_state(pi, IBLIB_PORT_STATE_ACTIVE);
	iblib_portinfo_set_lid(pi, 9);
	CHECK_EQ(set_pi(s, 1, pi, &ev, NULL), IBLIB_MAD_STATUS_INVALID_FIELD);
	CHECK_EQ(hcasim_sma_port_state(s, 1), IBLIB_PORT_STATE_INIT);
	CHECK_EQ(hcasim_sma_lid(s, 1), 0);
	/* INIT is never requested */
	iblib_portinfo_set_port_state(pi, IBLIB_PORT_STATE_INIT);
	CHECK_EQ(set_pi(s, 1, pi, &ev, NULL), IBLIB_MAD_STATUS_INVALID_FIELD);
	iblib_portinfo_set_port_state(pi, 5);
	CHECK_EQ(set_pi(s, 1, pi, &ev, NULL), IBLIB_MAD_STATUS_INVALID_FIELD);

	/* other invalid components */
	get_pi(s, 1, pi);
	iblib_portinfo_set_port_state(pi, 0);
	iblib_portinfo_set_operational_vls(pi, IBLIB_VL_CAP_VL0_14);  /* > VLCap (VL0-7) */
	CHECK_EQ(set_pi(s, 1, pi, &ev, NULL), IBLIB_MAD_STATUS_INVALID_FIELD);
	get_pi(s, 1, pi);
	iblib_portinfo_set_port_state(pi, 0);
	iblib_portinfo_set_lid(pi, 0xC001);  /* multicast LID */
	CHECK_EQ(set_pi(s, 1, pi, &ev, NULL), IBLIB_MAD_STATUS_INVALID_FIELD);
	get_pi(s, 1, pi);
	iblib_portinfo_set_port_state(pi, 0);
	iblib_portinfo_set_link_width_enabled(pi, IBLIB_WIDTH_12X);
	CHECK_EQ(set_pi(s, 1, pi, &ev, NULL), IBLIB_MAD_STATUS_INVALID_FIELD);
	get_pi(s, 1, pi);
	iblib_portinfo_set_port_state(pi, 0);
	iblib_portinfo_set_port_phys_state(pi, IBLIB_PHYS_STATE_TRAINING);  /* not settable */
	CHECK_EQ(set_pi(s, 1, pi, &ev, NULL), IBLIB_MAD_STATUS_INVALID_FIELD);
	hcasim_sma_set_port_caps(s, 1, IBLIB_MTU_2048, 0, 0);
	get_pi(s, 1, pi);
	iblib_portinfo_set_port_state(pi, 0);
	iblib_portinfo_set_neighbor_mtu(pi, IBLIB_MTU_4096);  /* > MTUCap */
	CHECK_EQ(set_pi(s, 1, pi, &ev, NULL), IBLIB_MAD_STATUS_INVALID_FIELD);

	/* ACTIVE -> ARMED */
	get_pi(s, 1, pi);
	iblib_portinfo_set_port_state(pi, IBLIB_PORT_STATE_ARMED);
	CHECK_EQ(set_pi(s, 1, pi, &ev, NULL), 0);
	iblib_portinfo_set_port_state(pi, IBLIB_PORT_STATE_ACTIVE);
	CHECK_EQ(set_pi(s, 1, pi, &ev, NULL), 0);
	iblib_portinfo_set_port_state(pi, IBLIB_PORT_STATE_ARMED);
	CHECK_EQ(set_pi(s, 1, pi, &ev, NULL), IBLIB_MAD_STATUS_INVALID_FIELD);
	CHECK_EQ(hcasim_sma_port_state(s, 1), IBLIB_PORT_STATE_ACTIVE);
	hcasim_sma_destroy(s);
}

TEST(set_down_retrains_and_disable)
{
	struct hcasim_sma *s = new_sma();
	uint8_t pi[64];
	unsigned ev;

	hcasim_sma_set_link(s, 2, true);
	get_pi(s, 2, pi);
	iblib_portinfo_set_port_state(pi, IBLIB_PORT_STATE_ARMED);
	CHECK_EQ(set_pi(s, 2, pi, &ev, NULL), 0);
	iblib_portinfo_set_port_state(pi, IBLIB_PORT_STATE_ACTIVE);
	CHECK_EQ(set_pi(s, 2, pi, &ev, NULL), 0);
	iblib_portinfo_set_port_state(pi, IBLIB_PORT_STATE_DOWN);
	CHECK_EQ(set_pi(s, 2, pi, &ev, NULL), 0);
	CHECK_EQ(ev, HCASIM_SMA_EV_PORT_STATE);
	CHECK_EQ(hcasim_sma_port_state(s, 2), IBLIB_PORT_STATE_INIT);  /* retrained */

	get_pi(s, 2, pi);
	iblib_portinfo_set_port_state(pi, 0);
	iblib_portinfo_set_port_phys_state(pi, IBLIB_PHYS_STATE_DISABLED);
	CHECK_EQ(set_pi(s, 2, pi, &ev, NULL), 0);
	CHECK_EQ(hcasim_sma_port_state(s, 2), IBLIB_PORT_STATE_DOWN);
	CHECK_EQ(hcasim_sma_phys_state(s, 2), IBLIB_PHYS_STATE_DISABLED);
	CHECK_EQ(ev, HCASIM_SMA_EV_PORT_STATE);
	hcasim_sma_set_link(s, 2, true);  /* cable still there, port stays disabled */
	CHECK_EQ(hcasim_sma_port_state(s, 2), IBLIB_PORT_STATE_DOWN);
	iblib_portinfo_set_port_phys_state(pi, IBLIB_PHYS_STATE_POLLING);
	CHECK_EQ(set_pi(s, 2, pi, &ev, NULL), 0);
	CHECK_EQ(hcasim_sma_port_state(s, 2), IBLIB_PORT_STATE_INIT);
	hcasim_sma_destroy(s);
}

TEST(pkey_table)
{
	struct hcasim_sma *s = new_sma();
	uint8_t mad[256], resp[256];
	unsigned ev = 0;

	CHECK_EQ(hcasim_sma_pkey(s, 1, 0), 0xFFFF);
	CHECK_EQ(hcasim_sma_pkey(s, 1, 1), 0);
	CHECK_EQ(hcasim_sma_pkey_table_size(s), 128);
	mk(mad, IBLIB_MCLASS_SUBN_DR, IBLIB_METHOD_GET, IBLIB_SM_ATTR_PKEY_TABLE, 0);
	CHECK_EQ(answer(s, 1, mad, resp, IFC, &ev), 0);
	CHECK_EQ(iblib_pkey_table_get(resp + 64, 0), 0xFFFF);

	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_SET, IBLIB_SM_ATTR_PKEY_TABLE, 1);
	iblib_pkey_table_set(mad + 64, 0, 0x8001);
	iblib_pkey_table_set(mad + 64, 5, 0x0002);
	CHECK_EQ(answer(s, 1, mad, resp, 0, &ev), 0);
	CHECK_EQ(ev, HCASIM_SMA_EV_PORT_MGMT);
	CHECK_EQ(hcasim_sma_pkey(s, 1, 32), 0x8001);
	CHECK_EQ(hcasim_sma_pkey(s, 1, 37), 0x0002);
	CHECK_EQ(hcasim_sma_pkey(s, 2, 32), 0);  /* per port */
	CHECK_EQ(iblib_pkey_table_get(resp + 64, 5), 0x0002);

	CHECK(hcasim_sma_pkey_match(s, 1, 0xFFFF));
	CHECK(hcasim_sma_pkey_match(s, 1, 0x7FFF));   /* limited sender, full-member entry */
	CHECK(hcasim_sma_pkey_match(s, 1, 0x8002));   /* full sender, limited entry */
	CHECK(!hcasim_sma_pkey_match(s, 1, 0x0002));  /* both limited */
	CHECK(!hcasim_sma_pkey_match(s, 1, 0x1234));
	CHECK(!hcasim_sma_pkey_match(s, 1, 0x8000));

	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_PKEY_TABLE, 4);
	CHECK_EQ(answer(s, 1, mad, resp, IFC, &ev), IBLIB_MAD_STATUS_INVALID_FIELD);
	hcasim_sma_destroy(s);
}

TEST(guid_info_mlnx_ext_sl2vl_vlarb)
{
	struct hcasim_sma *s = new_sma();
	uint8_t mad[256], resp[256];
	unsigned ev = 0;

	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_GUID_INFO, 0);
	CHECK_EQ(hcasim_sma_mad(s, 2, mad, resp, IFC, &ev), 1);
	CHECK_EQ(iblib_guid_info_get(resp + 64, 0), NODE_GUID + 2);
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_SET, IBLIB_SM_ATTR_GUID_INFO, 0);
	iblib_guid_info_set(mad + 64, 0, 0x1111);  /* port GUID is read-only */
	iblib_guid_info_set(mad + 64, 1, 0x2222);
	CHECK_EQ(hcasim_sma_mad(s, 2, mad, resp, IFC, &ev), 1);
	CHECK_EQ(iblib_guid_info_get(resp + 64, 0), NODE_GUID + 2);
	CHECK_EQ(iblib_guid_info_get(resp + 64, 1), 0x2222);
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_GUID_INFO, 16);
	CHECK_EQ(answer(s, 2, mad, resp, IFC, &ev), IBLIB_MAD_STATUS_INVALID_FIELD);

	/* OpenSM asks MlnxExtPortInfo of Mellanox vendor ids; all zero = no FDR10 */
	mk(mad, IBLIB_MCLASS_SUBN_DR, IBLIB_METHOD_GET, IBLIB_SM_ATTR_MLNX_EXT_PORT_INFO, 1);
	CHECK_EQ(answer(s, 1, mad, resp, IFC, &ev), 0);
	CHECK_EQ(iblib_mlnx_ext_portinfo_link_speed_supported(resp + 64), 0);
	mk(mad, IBLIB_MCLASS_SUBN_DR, IBLIB_METHOD_SET, IBLIB_SM_ATTR_MLNX_EXT_PORT_INFO, 1);
	iblib_mlnx_ext_portinfo_set_state_change_enable(mad + 64, 1);
	CHECK_EQ(answer(s, 1, mad, resp, IFC, &ev), 0);
	CHECK_EQ(iblib_mlnx_ext_portinfo_state_change_enable(resp + 64), 1);

	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_SET, IBLIB_SM_ATTR_SL2VL_TABLE, 0);
	iblib_sl2vl_set(mad + 64, 3, 2);
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, IFC, &ev), 1);
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_SL2VL_TABLE, 0);
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, IFC, &ev), 1);
	CHECK_EQ(iblib_sl2vl_get(resp + 64, 3), 2);
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_SET, IBLIB_SM_ATTR_VLARB_TABLE, 2u << 16);
	iblib_vlarb_set(mad + 64, 0, 1, 0x40);
	CHECK_EQ(answer(s, 1, mad, resp, IFC, &ev), 0);
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_VLARB_TABLE, 2u << 16);
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, IFC, &ev), 1);
	CHECK_EQ(iblib_vlarb_weight(resp + 64, 0), 0x40);
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_VLARB_TABLE, 3u << 16);
	CHECK_EQ(answer(s, 1, mad, resp, IFC, &ev), IBLIB_MAD_STATUS_INVALID_FIELD);
	hcasim_sma_destroy(s);
}

TEST(unsupported_attributes_methods_versions)
{
	struct hcasim_sma *s = new_sma();
	uint8_t mad[256], resp[256];
	unsigned ev = 0;

	/* SMInfo: a CA runs no SM; the firmware passes it up, and answers 0x0C if asked itself */
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_SM_INFO, 0);
	CHECK(hcasim_sma_for_driver(mad));
	CHECK_EQ(answer(s, 1, mad, resp, IFC, &ev), IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR);
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_PORT_INFO, 0);
	CHECK(!hcasim_sma_for_driver(mad));
	mk(mad, IBLIB_MCLASS_SUBN_ADM, IBLIB_METHOD_GET, 0x35, 0);
	CHECK(hcasim_sma_for_driver(mad));
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, IFC, &ev), 0);  /* SA: not the firmware's */

	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_SWITCH_INFO, 0);
	CHECK_EQ(answer(s, 1, mad, resp, IFC, &ev), IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR);
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, 0x1234, 0);
	mad[70] = 0x77;
	CHECK_EQ(answer(s, 1, mad, resp, IFC, &ev), IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR);
	CHECK_EQ(resp[70], 0x77);  /* failed Get returns the data as sent */
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_SEND, IBLIB_SM_ATTR_NODE_INFO, 0);
	CHECK_EQ(answer(s, 1, mad, resp, IFC, &ev), IBLIB_MAD_STATUS_UNSUP_METHOD);
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_INFO, 0);
	mad[2] = 2;  /* class version */
	CHECK_EQ(answer(s, 1, mad, resp, IFC, &ev), IBLIB_MAD_STATUS_BAD_VERSION);
	/* a response or a trap repress: nothing to answer */
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET_RESP, IBLIB_SM_ATTR_NODE_INFO, 0);
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, IFC, &ev), 0);
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_TRAP_REPRESS, 0x0002, 0);
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, IFC, &ev), 0);
	/* PortInfo of a port the CA does not have */
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_PORT_INFO, 3);
	CHECK_EQ(answer(s, 1, mad, resp, IFC, &ev), IBLIB_MAD_STATUS_INVALID_FIELD);
	hcasim_sma_destroy(s);
}

TEST(malformed_mads_rejected)
{
	struct hcasim_sma *s = new_sma();
	uint8_t mad[256], resp[256];
	unsigned ev = 0;

	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_INFO, 0);
	CHECK_EQ(hcasim_sma_mad(s, 0, mad, resp, IFC, &ev), HCASIM_SMA_E_PORT);
	CHECK_EQ(hcasim_sma_mad(s, 3, mad, resp, IFC, &ev), HCASIM_SMA_E_PORT);
	CHECK_EQ(hcasim_sma_mad(s, 1, NULL, resp, IFC, &ev), HCASIM_SMA_E_MALFORMED);
	CHECK_EQ(hcasim_sma_mad(NULL, 1, mad, resp, IFC, &ev), HCASIM_SMA_E_PORT);
	mad[0] = 2;  /* base version */
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, IFC, &ev), HCASIM_SMA_E_MALFORMED);
	mk(mad, IBLIB_MCLASS_SUBN_DR, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_INFO, 0);
	mad[7] = 64;  /* hop count */
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, IFC, &ev), HCASIM_SMA_E_MALFORMED);
	/* from the wire, a DR SMP whose directed path does not end at this CA */
	mk(mad, IBLIB_MCLASS_SUBN_DR, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_INFO, 0);
	mad[7] = 3;
	mad[6] = 2;
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, 0, &ev), HCASIM_SMA_E_MALFORMED);
	mad[6] = 3;
	mad[4] = 0x80;  /* a request with the return-direction bit set */
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, 0, &ev), HCASIM_SMA_E_MALFORMED);
	CHECK_EQ(ev, 0);
	hcasim_sma_destroy(s);
}

TEST(directed_route_at_end_port)
{
	struct hcasim_sma *s = new_sma();
	uint8_t mad[256], resp[256];
	unsigned ev = 0;

	/* SM -> switch -> this CA's port 2: hop count 2, pointer 2 as the switch forwarded it */
	mk(mad, IBLIB_MCLASS_SUBN_DR, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_INFO, 0);
	mad[7] = 2;
	mad[6] = 2;
	mad[IBLIB_SMP_INITIAL_PATH_OFF + 1] = 1;
	mad[IBLIB_SMP_INITIAL_PATH_OFF + 2] = 4;
	mad[IBLIB_SMP_RETURN_PATH_OFF + 1] = 1;
	CHECK_EQ(hcasim_sma_mad(s, 2, mad, resp, 0, &ev), 1);
	CHECK(iblib_smp_dr_d(resp));
	CHECK_EQ(status(resp), 0);
	CHECK_EQ(resp[3], IBLIB_METHOD_GET_RESP);
	CHECK_EQ(resp[6], 2);  /* stepped back for the way home (C14-13:1) */
	CHECK_EQ(resp[7], 2);
	CHECK_EQ(resp[IBLIB_SMP_RETURN_PATH_OFF + 2], 2);  /* arrival port recorded */
	CHECK_EQ(resp[IBLIB_SMP_RETURN_PATH_OFF + 1], 1);
	CHECK_EQ(iblib_nodeinfo_local_port_num(resp + 64), 2);

	/* through MAD_IFC the driver owns the hop fields and the D bit: the status stays 0 */
	CHECK_EQ(hcasim_sma_mad(s, 2, mad, resp, IFC, &ev), 1);
	CHECK(!iblib_smp_dr_d(resp));
	CHECK_EQ(resp[4], 0);
	CHECK_EQ(resp[5], 0);
	CHECK_EQ(resp[6], 2);
	CHECK_EQ(resp[IBLIB_SMP_RETURN_PATH_OFF + 2], 0);

	/* hop count 0: the SM on this very port */
	mk(mad, IBLIB_MCLASS_SUBN_DR, IBLIB_METHOD_GET, IBLIB_SM_ATTR_PORT_INFO, 0);
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, 0, &ev), 1);
	CHECK_EQ(resp[6], 0);
	CHECK(iblib_smp_dr_d(resp));
	hcasim_sma_destroy(s);
}

TEST(mkey_protection)
{
	struct hcasim_sma *s = new_sma();
	uint8_t pi[64], mad[256], resp[256];
	unsigned ev;
	const uint64_t key = 0x1122334455667788ull;

	hcasim_sma_set_link(s, 1, true);
	get_pi(s, 1, pi);
	iblib_portinfo_set_port_state(pi, 0);
	iblib_portinfo_set_mkey(pi, key);
	iblib_portinfo_set_mkey_protect_bits(pi, 1);
	CHECK_EQ(set_pi(s, 1, pi, &ev, NULL), 0);

	/* protect 1, wrong key: Get answered with the M_Key hidden */
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_PORT_INFO, 1);
	iblib_smp_set_mkey(mad, 0x999);
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, 0, &ev), 1);
	CHECK_EQ(iblib_portinfo_mkey(resp + 64), 0);
	/* right key: visible */
	iblib_smp_set_mkey(mad, key);
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, 0, &ev), 1);
	CHECK_EQ(iblib_portinfo_mkey(resp + 64), key);
	/* wrong key Set: dropped without an answer, counted, nothing applied */
	memcpy(pi, resp + 64, 64);
	iblib_portinfo_set_port_state(pi, 0);
	iblib_portinfo_set_lid(pi, 77);
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_SET, IBLIB_SM_ATTR_PORT_INFO, 1);
	memcpy(mad + 64, pi, 64);
	iblib_smp_set_mkey(mad, 0x999);
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, 0, &ev), HCASIM_SMA_E_MKEY);
	CHECK_EQ(hcasim_sma_lid(s, 1), 0);
	uint8_t now[64];
	get_pi(s, 1, now);
	CHECK_EQ(iblib_portinfo_mkey_violations(now), 1);
	/* MAD_IFC with op_mod bit 0 skips the check (the driver is trusted) */
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, HCASIM_SMA_FROM_MAD_IFC | HCASIM_SMA_SKIP_MKEY, &ev), 1);
	CHECK_EQ(hcasim_sma_lid(s, 1), 77);
	get_pi(s, 1, pi);
	CHECK_EQ(iblib_portinfo_mkey_violations(pi), 0);  /* the Set wrote the counter back (RW) */
	/* MAD_IFC without the skip bit is checked like the wire */
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_SET, IBLIB_SM_ATTR_PKEY_TABLE, 0);
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, HCASIM_SMA_FROM_MAD_IFC, &ev), HCASIM_SMA_E_MKEY);

	/* protect 2: even Get fails with the wrong key */
	iblib_portinfo_set_port_state(pi, 0);
	iblib_portinfo_set_mkey_protect_bits(pi, 2);
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_SET, IBLIB_SM_ATTR_PORT_INFO, 1);
	memcpy(mad + 64, pi, 64);
	iblib_smp_set_mkey(mad, key);
	CHECK_EQ(answer(s, 1, mad, resp, 0, &ev), 0);
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_INFO, 0);
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, 0, &ev), HCASIM_SMA_E_MKEY);
	iblib_smp_set_mkey(mad, key);
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, 0, &ev), 1);
	/* port 2 has its own (zero) M_Key */
	iblib_smp_set_mkey(mad, 0);
	CHECK_EQ(hcasim_sma_mad(s, 2, mad, resp, 0, &ev), 1);
	hcasim_sma_destroy(s);
}

static void pma_get(struct hcasim_sma *s, uint16_t attr, uint8_t port_select, uint8_t method,
		    uint16_t counter_select, uint8_t *resp)
{
	uint8_t mad[256];
	unsigned ev = 0;

	mk(mad, IBLIB_MCLASS_PERF, method, attr, 0);
	mad[64 + 1] = port_select;
	put_be16(mad + 64 + 2, counter_select);
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, 0, &ev), 1);
	CHECK(iblib_mad_is_response(resp));
}

TEST(pma_counts_traffic)
{
	struct hcasim_sma *s = new_sma();
	uint8_t resp[256];
	struct iblib_port_counters pc;
	struct iblib_port_counters_ext px;
	struct iblib_class_port_info cpi;

	hcasim_sma_set_link(s, 1, true);
	for (int i = 0; i < 3; i++)
		hcasim_sma_count(s, 1, true, 42);   /* LRH..VCRC: 40 bytes counted = 10 words */
	hcasim_sma_count(s, 1, false, 290);
	hcasim_sma_count(s, 2, false, 1000);
	hcasim_sma_count(s, 9, false, 1000);    /* no such port: ignored */
	hcasim_sma_set_link(s, 1, false);       /* LinkDowned */

	pma_get(s, IBLIB_PERF_ATTR_PORT_COUNTERS, 1, IBLIB_METHOD_GET, 0, resp);
	CHECK_EQ(resp[3], IBLIB_METHOD_GET_RESP);
	CHECK_EQ(get_be16(resp + 4), 0);
	iblib_port_counters_get(resp + 64, &pc);
	CHECK_EQ(pc.port_select, 1);
	CHECK_EQ(pc.xmit_pkts, 3);
	CHECK_EQ(pc.xmit_data, 30);
	CHECK_EQ(pc.rcv_pkts, 1);
	CHECK_EQ(pc.rcv_data, 72);
	CHECK_EQ(pc.link_downed, 1);

	pma_get(s, IBLIB_PERF_ATTR_PORT_COUNTERS, 2, IBLIB_METHOD_GET, 0, resp);
	iblib_port_counters_get(resp + 64, &pc);
	CHECK_EQ(pc.rcv_pkts, 1);
	CHECK_EQ(pc.xmit_pkts, 0);

	pma_get(s, IBLIB_PERF_ATTR_PORT_COUNTERS_EXT, 1, IBLIB_METHOD_GET, 0, resp);
	iblib_port_counters_ext_get(resp + 64, &px);
	CHECK_EQ(px.xmit_data, 30);
	CHECK_EQ(px.rcv_pkts, 1);

	/* Set with CounterSelect clears only what it selects (perfquery -r) */
	pma_get(s, IBLIB_PERF_ATTR_PORT_COUNTERS, 1, IBLIB_METHOD_SET, 1u << 12 | 1u << 14, resp);
	iblib_port_counters_get(resp + 64, &pc);
	CHECK_EQ(pc.xmit_data, 0);
	CHECK_EQ(pc.xmit_pkts, 0);
	CHECK_EQ(pc.rcv_pkts, 1);

	/* port 0 / 0xFF on a CA: invalid field, as ibsim and OpenSM's perfmgr expect */
	pma_get(s, IBLIB_PERF_ATTR_PORT_COUNTERS, 0, IBLIB_METHOD_GET, 0, resp);
	CHECK_EQ(get_be16(resp + 4), IBLIB_MAD_STATUS_INVALID_FIELD);
	pma_get(s, IBLIB_ATTR_CLASS_PORT_INFO, 0, IBLIB_METHOD_GET, 0, resp);
	iblib_class_port_info_get(resp + 64, &cpi);
	CHECK_EQ(cpi.class_version, 1);
	CHECK_EQ(cpi.cap_mask, IBLIB_PERF_CAP_EXT_WIDTH);
	pma_get(s, 0x0013, 1, IBLIB_METHOD_GET, 0, resp);  /* PortRcvErrorDetails: unsupported */
	CHECK_EQ(get_be16(resp + 4), IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR);
	pma_get(s, IBLIB_PERF_ATTR_PORT_COUNTERS, 1, IBLIB_METHOD_GET_TABLE, 0, resp);
	CHECK_EQ(get_be16(resp + 4), IBLIB_MAD_STATUS_UNSUP_METHOD);

	/* PortCountersExtended Set clears by its own CounterSelect bits */
	pma_get(s, IBLIB_PERF_ATTR_PORT_COUNTERS_EXT, 1, IBLIB_METHOD_SET, 0x2, resp);
	iblib_port_counters_ext_get(resp + 64, &px);
	CHECK_EQ(px.rcv_data, 0);
	CHECK_EQ(px.rcv_pkts, 1);
	pma_get(s, IBLIB_PERF_ATTR_PORT_COUNTERS_EXT, 7, IBLIB_METHOD_GET, 0, resp);
	CHECK_EQ(get_be16(resp + 4), IBLIB_MAD_STATUS_INVALID_FIELD);
	pma_get(s, IBLIB_ATTR_CLASS_PORT_INFO, 0, IBLIB_METHOD_SET, 0, resp);
	CHECK_EQ(get_be16(resp + 4), IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR);
	{
		uint8_t mad[256];
		unsigned ev = 0;

		mk(mad, IBLIB_MCLASS_PERF, IBLIB_METHOD_GET, IBLIB_PERF_ATTR_PORT_COUNTERS, 0);
		mad[2] = 2;  /* PMA class version 2 does not exist for this PMA */
		CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, 0, &ev), 1);
		CHECK_EQ(get_be16(resp + 4), IBLIB_MAD_STATUS_BAD_VERSION);
		mk(mad, IBLIB_MCLASS_PERF, IBLIB_METHOD_GET_RESP, IBLIB_PERF_ATTR_PORT_COUNTERS, 0);
		CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, 0, NULL), 0);
		CHECK(hcasim_sma_for_driver(mad));  /* responses go to the driver */
	}

	/* 32-bit counters saturate instead of wrapping */
	for (int i = 0; i < 5; i++)
		hcasim_sma_count(s, 2, true, (size_t)1 << 34);
	pma_get(s, IBLIB_PERF_ATTR_PORT_COUNTERS, 2, IBLIB_METHOD_GET, 0, resp);
	iblib_port_counters_get(resp + 64, &pc);
	CHECK_EQ(pc.xmit_data, 0xFFFFFFFFu);
	hcasim_sma_destroy(s);
}

TEST(driver_port_caps_and_violations_and_reset)
{
	struct hcasim_sma *s = new_sma();
	uint8_t pi[64];
	unsigned ev;

	/* iPXE's SET_PORT: MTU 2048, VL0 only, SDR only */
	hcasim_sma_set_port_caps(s, 1, IBLIB_MTU_2048, IBLIB_VL_CAP_VL0, IBLIB_SPEED_SDR);
	hcasim_sma_set_link(s, 1, true);
	get_pi(s, 1, pi);
	CHECK_EQ(iblib_portinfo_mtu_cap(pi), IBLIB_MTU_2048);
	CHECK_EQ(iblib_portinfo_neighbor_mtu(pi), IBLIB_MTU_2048);
	CHECK_EQ(iblib_portinfo_vl_cap(pi), IBLIB_VL_CAP_VL0);
	CHECK_EQ(iblib_portinfo_link_speed_supported(pi), IBLIB_SPEED_SDR);
	CHECK_EQ(iblib_portinfo_link_speed_active(pi), IBLIB_SPEED_SDR);
	CHECK_EQ(hcasim_sma_mtu_cap(s, 1), IBLIB_MTU_2048);
	iblib_portinfo_set_port_state(pi, 0);
	iblib_portinfo_set_operational_vls(pi, IBLIB_VL_CAP_VL0_1);
	CHECK_EQ(set_pi(s, 1, pi, &ev, NULL), IBLIB_MAD_STATUS_INVALID_FIELD);

	hcasim_sma_count_pkey_violation(s, 1);
	hcasim_sma_count_pkey_violation(s, 1);
	hcasim_sma_count_qkey_violation(s, 1);
	get_pi(s, 1, pi);
	CHECK_EQ(iblib_portinfo_pkey_violations(pi), 2);
	CHECK_EQ(iblib_portinfo_qkey_violations(pi), 1);

	iblib_portinfo_set_port_state(pi, 0);
	iblib_portinfo_set_lid(pi, 12);
	CHECK_EQ(set_pi(s, 1, pi, &ev, NULL), 0);
	hcasim_sma_reset(s);
	CHECK_EQ(hcasim_sma_lid(s, 1), 0);
	CHECK_EQ(hcasim_sma_port_state(s, 1), IBLIB_PORT_STATE_DOWN);
	CHECK_EQ(hcasim_sma_mtu_cap(s, 1), IBLIB_MTU_4096);
	CHECK_EQ(hcasim_sma_port_guid(s, 1), NODE_GUID + 1);
	CHECK_EQ(hcasim_sma_num_ports(s), 2);
	CHECK_EQ(hcasim_sma_node_guid(s), NODE_GUID);
	hcasim_sma_destroy(s);
}

TEST(single_port_config_and_defaults)
{
	struct hcasim_config cfg = { .num_ports = 1 };
	struct hcasim_sma *s = hcasim_sma_create(&cfg);
	uint8_t mad[256], resp[256];
	unsigned ev = 0;

	CHECK(s != NULL);
	CHECK_EQ(hcasim_sma_num_ports(s), 1);
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_INFO, 0);
	CHECK_EQ(hcasim_sma_mad(s, 2, mad, resp, IFC, &ev), HCASIM_SMA_E_PORT);
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, IFC, &ev), 1);
	CHECK_EQ(iblib_nodeinfo_num_ports(resp + 64), 1);
	CHECK_EQ(iblib_nodeinfo_device_id(resp + 64), 0x1003);
	mk(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_DESC, 0);
	CHECK_EQ(hcasim_sma_mad(s, 1, mad, resp, IFC, &ev), 1);
	CHECK_STR((const char *)resp + 64, "hcasim");
	hcasim_sma_destroy(s);
	hcasim_sma_destroy(NULL);
}

/* The whole path the model takes for an SMP from the wire: a VL15 UD packet to QP0 is parsed
 * with iblib, its MAD answered by the SMA, the answer sent back as a packet (IBA 14.2.2: the SM
 * sits one hop away, cabled straight to port 1). */
TEST(smp_packet_roundtrip_through_sma)
{
	struct hcasim_sma *s = new_sma();
	uint8_t mad[256], resp[256], pkt[IBLIB_PKT_MAX];
	struct iblib_lrh lrh = { .vl = IBLIB_VL15, .dlid = IBLIB_LID_PERMISSIVE,
				 .slid = IBLIB_LID_PERMISSIVE };
	struct iblib_bth bth = { .opcode = IBLIB_OP_UD_SEND_ONLY, .pkey = IBLIB_DEFAULT_PKEY };
	struct iblib_deth deth = { .qkey = 0, .src_qp = 0 };
	struct iblib_pkt p;
	unsigned ev = 0;

	hcasim_sma_set_link(s, 1, true);
	mk(mad, IBLIB_MCLASS_SUBN_DR, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_INFO, 0);
	mad[7] = 1;  /* hop count */
	mad[6] = 1;  /* the SM's node already stepped past its own hop */
	mad[IBLIB_SMP_INITIAL_PATH_OFF + 1] = 1;
	int n = iblib_ud_build(pkt, sizeof(pkt), &lrh, NULL, &bth, &deth, mad, sizeof(mad));
	CHECK_EQ(n, 8 + 12 + 8 + 256 + 6);

	CHECK_EQ(iblib_pkt_parse(pkt, (size_t)n, &p, 0), 0);
	CHECK_EQ(p.lrh.vl, IBLIB_VL15);
	CHECK_EQ(p.bth.dest_qp, 0);
	CHECK_EQ(p.payload_len, 256);
	CHECK(!hcasim_sma_for_driver(pkt + p.payload_off));
	CHECK_EQ(hcasim_sma_mad(s, 1, pkt + p.payload_off, resp, 0, &ev), 1);
	hcasim_sma_count(s, 1, false, (size_t)n);

	/* the answer goes back the same way, permissive LIDs, to the requester's QP0 */
	lrh.dlid = p.lrh.slid;
	deth.src_qp = 0;
	n = iblib_ud_build(pkt, sizeof(pkt), &lrh, NULL, &bth, &deth, resp, sizeof(resp));
	CHECK(n > 0);
	hcasim_sma_count(s, 1, true, (size_t)n);
	CHECK_EQ(iblib_pkt_parse(pkt, (size_t)n, &p, 0), 0);
	const uint8_t *r = pkt + p.payload_off;
	CHECK(iblib_smp_dr_d(r));
	CHECK_EQ(iblib_smp_status(r), 0);
	CHECK_EQ(r[6], 1);                                  /* hop pointer back at 1 */
	CHECK_EQ(r[IBLIB_SMP_RETURN_PATH_OFF + 1], 1);      /* arrived on port 1 */
	CHECK_EQ(iblib_nodeinfo_node_guid(r + 64), NODE_GUID);
	CHECK_EQ(iblib_nodeinfo_local_port_num(r + 64), 1);

	/* the SM's node accepts it as the end of the return path (C14-13:3) */
	uint8_t back[256];
	memcpy(back, r, sizeof(back));
	CHECK_EQ(iblib_smp_dr_recv(back, false, 1, 1, NULL), IBLIB_DR_LOCAL);

	/* and both packets were counted */
	uint8_t pm[256], pr[256];
	struct iblib_port_counters pc;
	mk(pm, IBLIB_MCLASS_PERF, IBLIB_METHOD_GET, IBLIB_PERF_ATTR_PORT_COUNTERS, 0);
	pm[65] = 1;
	CHECK_EQ(hcasim_sma_mad(s, 1, pm, pr, 0, &ev), 1);
	iblib_port_counters_get(pr + 64, &pc);
	CHECK_EQ(pc.rcv_pkts, 1);
	CHECK_EQ(pc.xmit_pkts, 1);
	CHECK_EQ(pc.rcv_data, (8 + 12 + 8 + 256 + 4) / 4);
	hcasim_sma_destroy(s);
}

/* MAD_IFC may answer into the buffer the request came in. */
TEST(answer_in_place)
{
	struct hcasim_sma *s = new_sma();
	uint8_t buf[256];
	unsigned ev = 0;

	mk(buf, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_INFO, 0);
	CHECK_EQ(hcasim_sma_mad(s, 1, buf, buf, IFC, &ev), 1);
	CHECK_EQ(buf[3], IBLIB_METHOD_GET_RESP);
	CHECK_EQ(iblib_nodeinfo_node_guid(buf + 64), NODE_GUID);
	mk(buf, IBLIB_MCLASS_PERF, IBLIB_METHOD_GET, IBLIB_PERF_ATTR_PORT_COUNTERS, 0);
	buf[65] = 2;
	CHECK_EQ(hcasim_sma_mad(s, 1, buf, buf, IFC, &ev), 1);
	CHECK_EQ(buf[3], IBLIB_METHOD_GET_RESP);
	CHECK_EQ(get_be16(buf + 4), 0);
	CHECK_EQ(buf[65], 2);
	hcasim_sma_destroy(s);
}

/* SPDX-License-Identifier: MIT */
/*
 * Subnet-management attributes (IBA 14.2.5) as field accessors over the 64-byte SMP data area
 * (iblib_smp_data(mad)). Each field is declared once with its IBA (bit offset, bit length) -
 * bit 0 = most significant bit of byte 0, as the spec tables number them - which expands to
 *     uint32_t iblib_<attr>_<field>(const uint8_t *d);
 *     void     iblib_<attr>_set_<field>(uint8_t *d, uint32_t v);      (value masked to length)
 * 64-bit fields (keys, GUIDs, prefixes) get uint64_t versions.
 *
 * Freestanding: only <stdint.h>/<stddef.h>/<stdbool.h>.
 */
#ifndef IBLIB_ATTRS_H
#define IBLIB_ATTRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ibboot/wire/bytes.h>

#define IBLIB_FIELD(attr, name, off, len)                                              \
	static inline uint32_t iblib_##attr##_##name(const uint8_t *d)                  \
	{                                                                               \
		return iblib_get_bits(d, (off), (len));                                 \
	}                                                                               \
	static inline void iblib_##attr##_set_##name(uint8_t *d, uint32_t v)            \
	{                                                                               \
		iblib_set_bits(d, (off), (len), v);                                     \
	}

#define IBLIB_FIELD64(attr, name, off)                                                 \
	static inline uint64_t iblib_##attr##_##name(const uint8_t *d)                  \
	{                                                                               \
		return get_be64(d + (off) / 8);                                   \
	}                                                                               \
	static inline void iblib_##attr##_set_##name(uint8_t *d, uint64_t v)            \
	{                                                                               \
		put_be64(d + (off) / 8, v);                                       \
	}

/* ---------------- NodeInfo (IBA 14.2.5.3), 40 bytes ---------------- */
#define IBLIB_NODE_TYPE_CA     1
#define IBLIB_NODE_TYPE_SWITCH 2
#define IBLIB_NODE_TYPE_ROUTER 3
#define IBLIB_VENDOR_MELLANOX  0x0002C9
IBLIB_FIELD(nodeinfo, base_version, 0, 8)
IBLIB_FIELD(nodeinfo, class_version, 8, 8)
IBLIB_FIELD(nodeinfo, node_type, 16, 8)
IBLIB_FIELD(nodeinfo, num_ports, 24, 8)
IBLIB_FIELD64(nodeinfo, system_image_guid, 32)
IBLIB_FIELD64(nodeinfo, node_guid, 96)
IBLIB_FIELD64(nodeinfo, port_guid, 160)
IBLIB_FIELD(nodeinfo, partition_cap, 224, 16)
IBLIB_FIELD(nodeinfo, device_id, 240, 16)
IBLIB_FIELD(nodeinfo, revision, 256, 32)
IBLIB_FIELD(nodeinfo, local_port_num, 288, 8)
IBLIB_FIELD(nodeinfo, vendor_id, 296, 24)

/* ---------------- NodeDescription (IBA 14.2.5.2), 64 bytes of UTF-8, NUL padded ---------------- */
#define IBLIB_NODE_DESC_BYTES 64

/* ---------------- SwitchInfo (IBA 14.2.5.4) ---------------- */
IBLIB_FIELD(switchinfo, linear_fdb_cap, 0, 16)
IBLIB_FIELD(switchinfo, random_fdb_cap, 16, 16)
IBLIB_FIELD(switchinfo, mcast_fdb_cap, 32, 16)
IBLIB_FIELD(switchinfo, linear_fdb_top, 48, 16)
IBLIB_FIELD(switchinfo, default_port, 64, 8)
IBLIB_FIELD(switchinfo, default_mcast_primary_port, 72, 8)
IBLIB_FIELD(switchinfo, default_mcast_not_primary_port, 80, 8)
IBLIB_FIELD(switchinfo, life_time_value, 88, 5)
IBLIB_FIELD(switchinfo, port_state_change, 93, 1)   /* write 1 to clear */
IBLIB_FIELD(switchinfo, optimized_sl2vl_programming, 94, 2)
IBLIB_FIELD(switchinfo, lids_per_port, 96, 16)
IBLIB_FIELD(switchinfo, partition_enforcement_cap, 112, 16)
IBLIB_FIELD(switchinfo, inbound_enforcement_cap, 128, 1)
IBLIB_FIELD(switchinfo, outbound_enforcement_cap, 129, 1)
IBLIB_FIELD(switchinfo, filter_raw_inbound_cap, 130, 1)
IBLIB_FIELD(switchinfo, filter_raw_outbound_cap, 131, 1)
IBLIB_FIELD(switchinfo, enhanced_port0, 132, 1)
IBLIB_FIELD(switchinfo, mcast_fdb_top, 144, 16)

/* ---------------- PortInfo (IBA 14.2.5.6), 64 bytes ---------------- */
/* PortState */
#define IBLIB_PORT_STATE_NOP    0
#define IBLIB_PORT_STATE_DOWN   1
#define IBLIB_PORT_STATE_INIT   2
#define IBLIB_PORT_STATE_ARMED  3
#define IBLIB_PORT_STATE_ACTIVE 4
/* PortPhysicalState */
#define IBLIB_PHYS_STATE_NOP        0
#define IBLIB_PHYS_STATE_SLEEP      1
#define IBLIB_PHYS_STATE_POLLING    2
#define IBLIB_PHYS_STATE_DISABLED   3
#define IBLIB_PHYS_STATE_TRAINING   4
#define IBLIB_PHYS_STATE_LINKUP     5
#define IBLIB_PHYS_STATE_ERROR_RECOVERY 6
/* LinkDownDefaultState */
#define IBLIB_LINKDOWN_DEF_NOP      0
#define IBLIB_LINKDOWN_DEF_SLEEP    1
#define IBLIB_LINKDOWN_DEF_POLLING  2
/* LinkWidth* bit masks; LinkWidthEnabled 0 = no change, 255 = set to LinkWidthSupported */
#define IBLIB_WIDTH_1X  0x01
#define IBLIB_WIDTH_4X  0x02
#define IBLIB_WIDTH_8X  0x04
#define IBLIB_WIDTH_12X 0x08
#define IBLIB_WIDTH_2X  0x10
#define IBLIB_WIDTH_SET_SUPPORTED 0xFF
/* LinkSpeed* (4-bit masks); LinkSpeedEnabled 0 = no change, 15 = set to LinkSpeedSupported */
#define IBLIB_SPEED_SDR 0x1   /* 2.5 Gb/s */
#define IBLIB_SPEED_DDR 0x2   /* 5 Gb/s */
#define IBLIB_SPEED_QDR 0x4   /* 10 Gb/s */
#define IBLIB_SPEED_SET_SUPPORTED 0xF
/* MTU codes (NeighborMTU, MTUCap, PathRecord/MCMemberRecord MTU) */
#define IBLIB_MTU_256  1
#define IBLIB_MTU_512  2
#define IBLIB_MTU_1024 3
#define IBLIB_MTU_2048 4
#define IBLIB_MTU_4096 5
/* VLCap / OperationalVLs */
#define IBLIB_VL_CAP_VL0      1
#define IBLIB_VL_CAP_VL0_1    2
#define IBLIB_VL_CAP_VL0_3    3
#define IBLIB_VL_CAP_VL0_7    4
#define IBLIB_VL_CAP_VL0_14   5
/* CapabilityMask bits (IBA 14.2.5.6, Table 146) */
#define IBLIB_CAP_IS_SM                        (1u << 1)
#define IBLIB_CAP_IS_NOTICE_SUPPORTED          (1u << 2)
#define IBLIB_CAP_IS_TRAP_SUPPORTED            (1u << 3)
#define IBLIB_CAP_IS_OPTIONAL_IPD_SUPPORTED    (1u << 4)
#define IBLIB_CAP_IS_AUTO_MIGRATION_SUPPORTED  (1u << 5)
#define IBLIB_CAP_IS_SL_MAPPING_SUPPORTED      (1u << 6)
#define IBLIB_CAP_IS_MKEY_NVRAM                (1u << 7)
#define IBLIB_CAP_IS_PKEY_NVRAM                (1u << 8)
#define IBLIB_CAP_IS_LED_INFO_SUPPORTED        (1u << 9)
#define IBLIB_CAP_IS_SM_DISABLED               (1u << 10)
#define IBLIB_CAP_IS_SYSTEM_IMAGE_GUID_SUPPORTED (1u << 11)
#define IBLIB_CAP_IS_PKEY_SW_EXT_PORT_TRAP     (1u << 12)
#define IBLIB_CAP_IS_EXTENDED_SPEEDS_SUPPORTED (1u << 14)
#define IBLIB_CAP_IS_CAP_MASK2_SUPPORTED       (1u << 15)
#define IBLIB_CAP_IS_CM_SUPPORTED              (1u << 16)
#define IBLIB_CAP_IS_SNMP_TUNNELING_SUPPORTED  (1u << 17)
#define IBLIB_CAP_IS_REINIT_SUPPORTED          (1u << 18)
#define IBLIB_CAP_IS_DEVICE_MGMT_SUPPORTED     (1u << 19)
#define IBLIB_CAP_IS_VENDOR_CLASS_SUPPORTED    (1u << 20)
#define IBLIB_CAP_IS_DR_NOTICE_SUPPORTED       (1u << 21)
#define IBLIB_CAP_IS_CAP_MASK_NOTICE_SUPPORTED (1u << 22)
#define IBLIB_CAP_IS_BOOT_MGMT_SUPPORTED       (1u << 23)
#define IBLIB_CAP_IS_LINK_RTT_SUPPORTED        (1u << 24)
#define IBLIB_CAP_IS_CLIENT_REREG_SUPPORTED    (1u << 25)
#define IBLIB_CAP_IS_OTHER_LOCAL_CHANGES_NOTICE (1u << 26)
#define IBLIB_CAP_IS_LINK_SPEED_WIDTH_PAIRS    (1u << 27)

IBLIB_FIELD64(portinfo, mkey, 0)
IBLIB_FIELD64(portinfo, gid_prefix, 64)
IBLIB_FIELD(portinfo, lid, 128, 16)
IBLIB_FIELD(portinfo, master_sm_lid, 144, 16)
IBLIB_FIELD(portinfo, capability_mask, 160, 32)
IBLIB_FIELD(portinfo, diag_code, 192, 16)
IBLIB_FIELD(portinfo, mkey_lease_period, 208, 16)
IBLIB_FIELD(portinfo, local_port_num, 224, 8)
IBLIB_FIELD(portinfo, link_width_enabled, 232, 8)
IBLIB_FIELD(portinfo, link_width_supported, 240, 8)
IBLIB_FIELD(portinfo, link_width_active, 248, 8)
IBLIB_FIELD(portinfo, link_speed_supported, 256, 4)
IBLIB_FIELD(portinfo, port_state, 260, 4)
IBLIB_FIELD(portinfo, port_phys_state, 264, 4)
IBLIB_FIELD(portinfo, link_down_default_state, 268, 4)
IBLIB_FIELD(portinfo, mkey_protect_bits, 272, 2)
IBLIB_FIELD(portinfo, lmc, 277, 3)
IBLIB_FIELD(portinfo, link_speed_active, 280, 4)
IBLIB_FIELD(portinfo, link_speed_enabled, 284, 4)
IBLIB_FIELD(portinfo, neighbor_mtu, 288, 4)
IBLIB_FIELD(portinfo, master_sm_sl, 292, 4)
IBLIB_FIELD(portinfo, vl_cap, 296, 4)
IBLIB_FIELD(portinfo, init_type, 300, 4)
IBLIB_FIELD(portinfo, vl_high_limit, 304, 8)
IBLIB_FIELD(portinfo, vl_arb_high_cap, 312, 8)
IBLIB_FIELD(portinfo, vl_arb_low_cap, 320, 8)
IBLIB_FIELD(portinfo, init_type_reply, 328, 4)
IBLIB_FIELD(portinfo, mtu_cap, 332, 4)
IBLIB_FIELD(portinfo, vl_stall_count, 336, 3)
IBLIB_FIELD(portinfo, hoq_life, 339, 5)
IBLIB_FIELD(portinfo, operational_vls, 344, 4)
IBLIB_FIELD(portinfo, partition_enforcement_inbound, 348, 1)
IBLIB_FIELD(portinfo, partition_enforcement_outbound, 349, 1)
IBLIB_FIELD(portinfo, filter_raw_inbound, 350, 1)
IBLIB_FIELD(portinfo, filter_raw_outbound, 351, 1)
IBLIB_FIELD(portinfo, mkey_violations, 352, 16)
IBLIB_FIELD(portinfo, pkey_violations, 368, 16)
IBLIB_FIELD(portinfo, qkey_violations, 384, 16)
IBLIB_FIELD(portinfo, guid_cap, 400, 8)
IBLIB_FIELD(portinfo, client_reregister, 408, 1)
IBLIB_FIELD(portinfo, mcast_pkey_trap_suppression, 409, 2)
IBLIB_FIELD(portinfo, subnet_timeout, 411, 5)
IBLIB_FIELD(portinfo, resp_time_value, 419, 5)
IBLIB_FIELD(portinfo, local_phy_errors, 424, 4)
IBLIB_FIELD(portinfo, overrun_errors, 428, 4)
IBLIB_FIELD(portinfo, max_credit_hint, 432, 16)
IBLIB_FIELD(portinfo, link_round_trip_latency, 456, 24)
IBLIB_FIELD(portinfo, capability_mask2, 480, 16)
IBLIB_FIELD(portinfo, link_speed_ext_active, 496, 4)
IBLIB_FIELD(portinfo, link_speed_ext_supported, 500, 4)
IBLIB_FIELD(portinfo, link_speed_ext_enabled, 507, 5)

/* ---------------- P_KeyTable (IBA 14.2.5.7): 32 P_Keys per block ---------------- */
/* AttributeModifier: block number (bits 15:0); on a switch, port number in bits 31:16. */
#define IBLIB_PKEYS_PER_BLOCK 32
static inline uint16_t iblib_pkey_table_get(const uint8_t *d, unsigned i)
{
	return get_be16(d + 2 * (i % IBLIB_PKEYS_PER_BLOCK));
}
static inline void iblib_pkey_table_set(uint8_t *d, unsigned i, uint16_t pkey)
{
	put_be16(d + 2 * (i % IBLIB_PKEYS_PER_BLOCK), pkey);
}

/* ---------------- GUIDInfo (IBA 14.2.5.5): 8 GUIDs per block ---------------- */
#define IBLIB_GUIDS_PER_BLOCK 8
static inline uint64_t iblib_guid_info_get(const uint8_t *d, unsigned i)
{
	return get_be64(d + 8 * (i % IBLIB_GUIDS_PER_BLOCK));
}
static inline void iblib_guid_info_set(uint8_t *d, unsigned i, uint64_t guid)
{
	put_be64(d + 8 * (i % IBLIB_GUIDS_PER_BLOCK), guid);
}

/* ---------------- SLtoVLMappingTable (IBA 14.2.5.8): 16 x 4 bits ---------------- */
/* AttributeModifier on a switch: input port bits 15:8, output port bits 7:0. */
static inline uint8_t iblib_sl2vl_get(const uint8_t *d, unsigned sl)
{
	return (uint8_t)iblib_get_bits(d, 4 * (sl & 15), 4);
}
static inline void iblib_sl2vl_set(uint8_t *d, unsigned sl, uint8_t vl)
{
	iblib_set_bits(d, 4 * (sl & 15), 4, vl);
}

/* ---------------- VLArbitrationTable (IBA 14.2.5.9): 32 entries {VL:4 (low nibble of byte 0),
 * Weight:8} ---------------- */
/* AttributeModifier: 1 = low priority 0..31, 2 = high 0..31, 3 = low 32..63, 4 = high 32..63
 * (bits 31:16); on a switch the output port in bits 15:0. */
#define IBLIB_VLARB_ENTRIES_PER_BLOCK 32
static inline uint8_t iblib_vlarb_vl(const uint8_t *d, unsigned i)
{
	return (uint8_t)iblib_get_bits(d, 16 * (i % 32) + 4, 4);
}
static inline uint8_t iblib_vlarb_weight(const uint8_t *d, unsigned i)
{
	return (uint8_t)iblib_get_bits(d, 16 * (i % 32) + 8, 8);
}
static inline void iblib_vlarb_set(uint8_t *d, unsigned i, uint8_t vl, uint8_t weight)
{
	iblib_set_bits(d, 16 * (i % 32), 8, vl & 0xF);
	iblib_set_bits(d, 16 * (i % 32) + 8, 8, weight);
}

/* ---------------- LinearForwardingTable (IBA 14.2.5.10): 64 ports, one per LID ---------------- */
/* AttributeModifier: block number; block b covers LIDs 64*b .. 64*b+63. */
#define IBLIB_LFT_LIDS_PER_BLOCK 64
#define IBLIB_LFT_NO_PORT        0xFF  /* unreachable */
static inline uint8_t iblib_lft_get(const uint8_t *d, unsigned i) { return d[i % 64]; }
static inline void iblib_lft_set(uint8_t *d, unsigned i, uint8_t port) { d[i % 64] = port; }

/* ---------------- MulticastForwardingTable (IBA 14.2.5.12): 32 PortMask entries ---------------- */
/* AttributeModifier: bits 31:28 PortMask position (ports 16*pos .. 16*pos+15), bits 8:0 block
 * (MLIDs 0xC000 + 32*block .. +31). Bit p of an entry = port 16*pos + p. */
#define IBLIB_MFT_ENTRIES_PER_BLOCK 32
static inline uint16_t iblib_mft_get(const uint8_t *d, unsigned i)
{
	return get_be16(d + 2 * (i % 32));
}
static inline void iblib_mft_set(uint8_t *d, unsigned i, uint16_t mask)
{
	put_be16(d + 2 * (i % 32), mask);
}
static inline unsigned iblib_mft_attr_position(uint32_t attr_mod) { return attr_mod >> 28; }
static inline unsigned iblib_mft_attr_block(uint32_t attr_mod) { return attr_mod & 0x1FF; }

/* ---------------- MlnxExtPortInfo (Mellanox vendor attribute 0xFF90), 64 bytes ----------------
 * Layout as OpenSM reads it: StateChangeEnable byte 3, LinkSpeedSupported byte 7,
 * LinkSpeedEnabled byte 11, LinkSpeedActive byte 15; speed bit 0 = FDR10. All zero = no FDR10. */
#define IBLIB_MLNX_SPEED_FDR10 0x01
IBLIB_FIELD(mlnx_ext_portinfo, state_change_enable, 24, 8)
IBLIB_FIELD(mlnx_ext_portinfo, link_speed_supported, 56, 8)
IBLIB_FIELD(mlnx_ext_portinfo, link_speed_enabled, 88, 8)
IBLIB_FIELD(mlnx_ext_portinfo, link_speed_active, 120, 8)

#endif

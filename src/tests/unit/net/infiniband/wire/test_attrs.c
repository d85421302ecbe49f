/* SPDX-License-Identifier: MIT */
/* SM attribute accessors land on the byte/bit positions of IBA 14.2.5 and touch nothing else. */
#include "test.h"

#include <ibboot/wire/attrs.h>

TEST(bits_roundtrip_and_isolation)
{
	uint8_t d[64];

	test_srand(3);
	for (int i = 0; i < 2000; i++) {
		unsigned len = 1 + (unsigned)(test_rand() % 32);
		unsigned off = (unsigned)(test_rand() % (512 - len));
		uint32_t v = (uint32_t)test_rand() & (len == 32 ? 0xFFFFFFFFu : (1u << len) - 1);
		uint8_t before[64];

		for (int k = 0; k < 64; k++)
			d[k] = (uint8_t)test_rand();
		memcpy(before, d, 64);
		iblib_set_bits(d, off, len, v);
		CHECK_EQ(iblib_get_bits(d, off, len), v);
		/* every bit outside [off, off+len) unchanged */
		for (unsigned b = 0; b < 512; b++) {
			if (b >= off && b < off + len)
				continue;
			if (((d[b / 8] ^ before[b / 8]) >> (7 - b % 8)) & 1) {
				CHECK(!"bit outside the field changed");
				break;
			}
		}
	}
}

TEST(portinfo_positions)
{
	uint8_t d[64];

	memset(d, 0, sizeof(d));
	iblib_portinfo_set_mkey(d, 0x0102030405060708ull);
	CHECK_EQ(d[0], 1);
	CHECK_EQ(d[7], 8);
	iblib_portinfo_set_gid_prefix(d, 0xfe80000000000000ull);
	CHECK_EQ(d[8], 0xfe);
	CHECK_EQ(d[9], 0x80);
	iblib_portinfo_set_lid(d, 0x1234);
	CHECK_EQ(d[16], 0x12);
	CHECK_EQ(d[17], 0x34);
	iblib_portinfo_set_master_sm_lid(d, 1);
	CHECK_EQ(d[19], 1);
	iblib_portinfo_set_capability_mask(d, 0x02510868);
	CHECK_EQ(d[20], 0x02);
	CHECK_EQ(d[23], 0x68);
	iblib_portinfo_set_local_port_num(d, 2);
	CHECK_EQ(d[28], 2);
	iblib_portinfo_set_link_width_active(d, IBLIB_WIDTH_4X);
	CHECK_EQ(d[31], 2);
	iblib_portinfo_set_link_speed_supported(d, 7);
	iblib_portinfo_set_port_state(d, IBLIB_PORT_STATE_ACTIVE);
	CHECK_EQ(d[32], 0x74);
	iblib_portinfo_set_port_phys_state(d, IBLIB_PHYS_STATE_LINKUP);
	iblib_portinfo_set_link_down_default_state(d, IBLIB_LINKDOWN_DEF_POLLING);
	CHECK_EQ(d[33], 0x52);
	iblib_portinfo_set_mkey_protect_bits(d, 3);
	iblib_portinfo_set_lmc(d, 7);
	CHECK_EQ(d[34], 0xC7);
	iblib_portinfo_set_link_speed_active(d, IBLIB_SPEED_QDR);
	iblib_portinfo_set_link_speed_enabled(d, 7);
	CHECK_EQ(d[35], 0x47);
	iblib_portinfo_set_neighbor_mtu(d, IBLIB_MTU_2048);
	iblib_portinfo_set_master_sm_sl(d, 1);
	CHECK_EQ(d[36], 0x41);
	iblib_portinfo_set_vl_cap(d, IBLIB_VL_CAP_VL0_7);
	CHECK_EQ(d[37], 0x40);
	iblib_portinfo_set_mtu_cap(d, IBLIB_MTU_4096);
	CHECK_EQ(d[41], 0x05);
	iblib_portinfo_set_vl_stall_count(d, 7);
	iblib_portinfo_set_hoq_life(d, 0x13);
	CHECK_EQ(d[42], 0xF3);
	iblib_portinfo_set_operational_vls(d, IBLIB_VL_CAP_VL0_3);
	iblib_portinfo_set_partition_enforcement_inbound(d, 1);
	CHECK_EQ(d[43], 0x38);
	iblib_portinfo_set_pkey_violations(d, 0xBEEF);
	CHECK_EQ(d[46], 0xBE);
	iblib_portinfo_set_guid_cap(d, 32);
	CHECK_EQ(d[50], 32);
	iblib_portinfo_set_client_reregister(d, 1);
	iblib_portinfo_set_subnet_timeout(d, 18);
	CHECK_EQ(d[51], 0x80 | 18);
	iblib_portinfo_set_resp_time_value(d, 0x10);
	CHECK_EQ(d[52], 0x10);
	iblib_portinfo_set_link_round_trip_latency(d, 0xABCDEF);
	CHECK_EQ(d[57], 0xAB);
	CHECK_EQ(d[59], 0xEF);
	iblib_portinfo_set_capability_mask2(d, 0x1234);
	CHECK_EQ(d[60], 0x12);
	iblib_portinfo_set_link_speed_ext_active(d, 1);
	iblib_portinfo_set_link_speed_ext_supported(d, 3);
	CHECK_EQ(d[62], 0x13);
	iblib_portinfo_set_link_speed_ext_enabled(d, 0x1F);
	CHECK_EQ(d[63], 0x1F);
	CHECK_EQ(iblib_portinfo_lmc(d), 7);
	CHECK_EQ(iblib_portinfo_subnet_timeout(d), 18);
	CHECK_EQ(iblib_portinfo_client_reregister(d), 1);
}

TEST(nodeinfo_positions)
{
	uint8_t d[64];

	memset(d, 0, sizeof(d));
	iblib_nodeinfo_set_base_version(d, 1);
	iblib_nodeinfo_set_class_version(d, 1);
	iblib_nodeinfo_set_node_type(d, IBLIB_NODE_TYPE_CA);
	iblib_nodeinfo_set_num_ports(d, 2);
	iblib_nodeinfo_set_system_image_guid(d, 0x0002c90300003000ull);
	iblib_nodeinfo_set_node_guid(d, 0x0002c90300003001ull);
	iblib_nodeinfo_set_port_guid(d, 0x0002c90300003002ull);
	iblib_nodeinfo_set_partition_cap(d, 128);
	iblib_nodeinfo_set_device_id(d, 0x1003);
	iblib_nodeinfo_set_revision(d, 0xA0);
	iblib_nodeinfo_set_local_port_num(d, 2);
	iblib_nodeinfo_set_vendor_id(d, IBLIB_VENDOR_MELLANOX);
	const uint8_t expect[40] = {
		1, 1, 1, 2, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x30, 0x00,
		0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x30, 0x01, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x30, 0x02,
		0x00, 0x80, 0x10, 0x03, 0x00, 0x00, 0x00, 0xA0, 2, 0x00, 0x02, 0xc9,
	};
	CHECK_MEM(d, expect, 40);
	CHECK_EQ(iblib_nodeinfo_vendor_id(d), 0x2c9);
}

TEST(switchinfo_tables_positions)
{
	uint8_t d[64];

	memset(d, 0, sizeof(d));
	iblib_switchinfo_set_linear_fdb_cap(d, 30720);
	iblib_switchinfo_set_linear_fdb_top(d, 5);
	iblib_switchinfo_set_life_time_value(d, 0x1F);
	iblib_switchinfo_set_port_state_change(d, 1);
	iblib_switchinfo_set_enhanced_port0(d, 1);
	iblib_switchinfo_set_mcast_fdb_top(d, 0xC000);
	CHECK_EQ(d[0], 0x78);
	CHECK_EQ(d[7], 5);
	CHECK_EQ(d[11], 0xFC);
	CHECK_EQ(d[16], 0x08);
	CHECK_EQ(d[18], 0xC0);

	memset(d, 0, sizeof(d));
	iblib_pkey_table_set(d, 33, 0xFFFF);  /* index 33 = entry 1 of block 1 */
	CHECK_EQ(d[2], 0xFF);
	CHECK_EQ(iblib_pkey_table_get(d, 1), 0xFFFF);
	iblib_guid_info_set(d, 7, 0x1122334455667788ull);
	CHECK_EQ(d[56], 0x11);
	iblib_sl2vl_set(d, 0, 0xA);
	iblib_sl2vl_set(d, 15, 0xB);
	CHECK_EQ(d[0] >> 4, 0xA);
	CHECK_EQ(d[7] & 0xF, 0xB);
	CHECK_EQ(iblib_sl2vl_get(d, 15), 0xB);
	memset(d, 0xFF, sizeof(d));
	iblib_vlarb_set(d, 1, 3, 0x40);
	CHECK_EQ(d[2], 0x03);
	CHECK_EQ(d[3], 0x40);
	CHECK_EQ(iblib_vlarb_vl(d, 1), 3);
	CHECK_EQ(iblib_vlarb_weight(d, 1), 0x40);
	iblib_mft_set(d, 31, 0x0006);
	CHECK_EQ(d[62], 0x00);
	CHECK_EQ(d[63], 0x06);
	CHECK_EQ(iblib_mft_attr_position(0x10000003), 1);
	CHECK_EQ(iblib_mft_attr_block(0x10000003), 3);
	iblib_lft_set(d, 65, 4);
	CHECK_EQ(d[1], 4);

	memset(d, 0, sizeof(d));
	iblib_mlnx_ext_portinfo_set_state_change_enable(d, 1);
	iblib_mlnx_ext_portinfo_set_link_speed_supported(d, 1);
	iblib_mlnx_ext_portinfo_set_link_speed_enabled(d, 1);
	iblib_mlnx_ext_portinfo_set_link_speed_active(d, 1);
	CHECK_EQ(d[3] + d[7] + d[11] + d[15], 4);
}

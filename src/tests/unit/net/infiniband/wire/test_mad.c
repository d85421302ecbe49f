/* SPDX-License-Identifier: MIT */
/* MAD header, responses, directed-route processing, SA records, PMA counters. */
#include "test.h"

#include <ibboot/wire/bytes.h>
#include <ibboot/wire/mad.h>

static void make_smp(uint8_t *mad, uint8_t mclass, uint8_t method, uint16_t attr, uint32_t mod)
{
	struct iblib_mad_hdr h = {
		.base_version = 1, .mgmt_class = mclass, .class_version = 1, .method = method,
		.tid = 0x0102030405060708ull, .attr_id = attr, .attr_mod = mod,
	};
	memset(mad, 0, IBLIB_MAD_BYTES);
	iblib_mad_hdr_put(mad, &h);
}

TEST(mad_header_layout)
{
	uint8_t mad[256];
	struct iblib_mad_hdr h;

	make_smp(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_PORT_INFO, 0x12345678);
	CHECK_EQ(mad[0], 1);
	CHECK_EQ(mad[1], 0x01);
	CHECK_EQ(mad[3], 0x01);
	CHECK_EQ(mad[8], 0x01);
	CHECK_EQ(mad[15], 0x08);
	CHECK_EQ(mad[16], 0x00);
	CHECK_EQ(mad[17], 0x15);
	CHECK_EQ(mad[20], 0x12);
	CHECK_EQ(mad[23], 0x78);
	iblib_mad_hdr_get(mad, &h);
	CHECK_EQ(h.tid, 0x0102030405060708ull);
	CHECK_EQ(h.attr_mod, 0x12345678);
	CHECK_EQ(iblib_mad_attr_id(mad), 0x15);
	CHECK_EQ(iblib_mad_attr_mod(mad), 0x12345678);
	CHECK(!iblib_mad_is_response(mad));
	iblib_smp_set_mkey(mad, 0xAABBCCDDEEFF0011ull);
	CHECK_EQ(mad[24], 0xAA);
	CHECK_EQ(iblib_smp_mkey(mad), 0xAABBCCDDEEFF0011ull);
}

TEST(mad_check_rejects_malformed)
{
	uint8_t mad[256];

	make_smp(mad, IBLIB_MCLASS_SUBN_DR, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_INFO, 0);
	CHECK_EQ(iblib_mad_check(mad, 256), 0);
	CHECK_EQ(iblib_mad_check(mad, 255), IBLIB_E_MAD);
	CHECK_EQ(iblib_mad_check(NULL, 256), IBLIB_E_MAD);
	mad[7] = 64;  /* hop count > 63 */
	CHECK_EQ(iblib_mad_check(mad, 256), IBLIB_E_MAD);
	mad[7] = 2;
	mad[6] = 4;   /* hop pointer beyond count + 1 */
	CHECK_EQ(iblib_mad_check(mad, 256), IBLIB_E_MAD);
	mad[6] = 3;
	CHECK_EQ(iblib_mad_check(mad, 256), 0);
	mad[0] = 2;
	CHECK_EQ(iblib_mad_check(mad, 256), IBLIB_E_MAD);
}

TEST(mad_response_methods_and_d_bit)
{
	uint8_t req[256], resp[256];

	make_smp(req, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_SET, IBLIB_SM_ATTR_PORT_INFO, 1);
	req[70] = 0x5A;
	iblib_mad_make_response(resp, req, IBLIB_MAD_STATUS_INVALID_FIELD);
	CHECK_EQ(resp[3], IBLIB_METHOD_GET_RESP);
	CHECK_EQ(get_be16(resp + 4), 0x001C);
	CHECK_EQ(resp[70], 0x5A);
	CHECK_MEM(resp + 8, req + 8, 8);  /* same TID */

	make_smp(req, IBLIB_MCLASS_SUBN_DR, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_INFO, 0);
	iblib_mad_make_response(resp, req, IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR);
	CHECK(iblib_smp_dr_d(resp));
	CHECK_EQ(iblib_smp_status(resp), 0x000C);
	CHECK_EQ(get_be16(resp + 4), 0x800C);

	req[3] = IBLIB_METHOD_TRAP;
	iblib_mad_make_response(resp, req, 0);
	CHECK_EQ(resp[3], IBLIB_METHOD_TRAP_REPRESS);
	req[3] = IBLIB_METHOD_GET_TABLE;
	iblib_mad_make_response(resp, req, 0);
	CHECK_EQ(resp[3], 0x92);
	req[3] = IBLIB_METHOD_DELETE;
	iblib_mad_make_response(resp, req, 0);
	CHECK_EQ(resp[3], 0x95);
	req[3] = IBLIB_METHOD_REPORT;
	iblib_mad_make_response(resp, req, 0);
	CHECK_EQ(resp[3], 0x86);
}

/* SM (a CA port) -> switch port 1 .. switch port 3 -> CA port 1, and back (IBA 14.2.2). */
TEST(dr_path_out_and_back)
{
	uint8_t mad[256];
	unsigned out;

	make_smp(mad, IBLIB_MCLASS_SUBN_DR, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_INFO, 0);
	put_be16(mad + IBLIB_SMP_DR_SLID_OFF, 0xFFFF);
	put_be16(mad + IBLIB_SMP_DR_DLID_OFF, 0xFFFF);
	mad[7] = 2;                                  /* hop count */
	mad[IBLIB_SMP_INITIAL_PATH_OFF + 1] = 1;     /* leave the SM's CA by its port 1 */
	mad[IBLIB_SMP_INITIAL_PATH_OFF + 2] = 3;     /* leave the switch by port 3 */

	CHECK_EQ(iblib_smp_dr_recv(mad, false, 0, 2, &out), IBLIB_DR_SEND);
	CHECK_EQ(out, 1);
	CHECK_EQ(mad[6], 1);
	/* switch, arriving on its port 2 */
	CHECK_EQ(iblib_smp_dr_recv(mad, true, 2, 8, &out), IBLIB_DR_FORWARD);
	CHECK_EQ(out, 3);
	CHECK_EQ(mad[6], 2);
	CHECK_EQ(mad[IBLIB_SMP_RETURN_PATH_OFF + 1], 2);
	/* the target CA, arriving on its port 1 */
	CHECK_EQ(iblib_smp_dr_recv(mad, false, 1, 2, &out), IBLIB_DR_LOCAL);
	CHECK_EQ(mad[6], 3);
	CHECK_EQ(mad[IBLIB_SMP_RETURN_PATH_OFF + 2], 1);
	/* its SMA answers */
	iblib_mad_make_response(mad, mad, 0);
	CHECK_EQ(iblib_smp_dr_respond(mad, false, 2, &out), IBLIB_DR_SEND);
	CHECK_EQ(mad[6], 2);
	/* back through the switch (arrives on port 3), out by ReturnPath[1] = 2 */
	CHECK_EQ(iblib_smp_dr_recv(mad, true, 3, 8, &out), IBLIB_DR_FORWARD);
	CHECK_EQ(out, 2);
	CHECK_EQ(mad[6], 1);
	/* the SM's node */
	CHECK_EQ(iblib_smp_dr_recv(mad, false, 1, 2, &out), IBLIB_DR_LOCAL);
	CHECK_EQ(mad[6], 0);
}

TEST(dr_path_switch_answers_and_errors)
{
	uint8_t mad[256], copy[256];
	unsigned out;

	make_smp(mad, IBLIB_MCLASS_SUBN_DR, IBLIB_METHOD_GET, IBLIB_SM_ATTR_SWITCH_INFO, 0);
	put_be16(mad + IBLIB_SMP_DR_SLID_OFF, 0xFFFF);
	put_be16(mad + IBLIB_SMP_DR_DLID_OFF, 0xFFFF);
	mad[7] = 1;
	mad[6] = 1;  /* as the SM's node sent it */
	memcpy(copy, mad, sizeof(mad));
	CHECK_EQ(iblib_smp_dr_recv(mad, true, 5, 8, &out), IBLIB_DR_LOCAL);
	CHECK_EQ(mad[IBLIB_SMP_RETURN_PATH_OFF + 1], 5);
	iblib_mad_make_response(mad, mad, 0);
	uint8_t bad[256];
	memcpy(bad, mad, sizeof(bad));
	bad[IBLIB_SMP_RETURN_PATH_OFF + 1] = 9;  /* a port this switch does not have */
	CHECK_EQ(iblib_smp_dr_respond(bad, true, 8, &out), IBLIB_E_DR_PATH);
	CHECK_EQ(bad[6], 2);                     /* untouched when refused */
	CHECK_EQ(iblib_smp_dr_respond(mad, true, 8, &out), IBLIB_DR_SEND);
	CHECK_EQ(out, 5);

	/* a CA never relays */
	memcpy(mad, copy, sizeof(mad));
	mad[7] = 3;
	CHECK_EQ(iblib_smp_dr_recv(mad, false, 1, 2, &out), IBLIB_E_DR_PATH);
	/* a switch refuses an egress port it does not have */
	memcpy(mad, copy, sizeof(mad));
	mad[7] = 2;
	mad[IBLIB_SMP_INITIAL_PATH_OFF + 2] = 9;
	CHECK_EQ(iblib_smp_dr_recv(mad, true, 1, 8, &out), IBLIB_E_DR_PATH);
	/* a request arriving with the direction bit set where no return is pending */
	memcpy(mad, copy, sizeof(mad));
	mad[4] = 0x80;
	mad[6] = 0;
	mad[7] = 0;
	CHECK_EQ(iblib_smp_dr_recv(mad, false, 1, 2, &out), IBLIB_DR_LOCAL); /* LID-routed back */
	mad[6] = 5;
	mad[7] = 2;
	CHECK_EQ(iblib_smp_dr_recv(mad, false, 1, 2, &out), IBLIB_E_DR_PATH);
	/* not a DR SMP at all */
	make_smp(mad, IBLIB_MCLASS_SUBN_LID, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_INFO, 0);
	CHECK_EQ(iblib_smp_dr_recv(mad, false, 1, 2, &out), IBLIB_E_DR_PATH);
	/* local (hop count 0) */
	make_smp(mad, IBLIB_MCLASS_SUBN_DR, IBLIB_METHOD_GET, IBLIB_SM_ATTR_NODE_INFO, 0);
	put_be16(mad + IBLIB_SMP_DR_DLID_OFF, 0xFFFF);
	CHECK_EQ(iblib_smp_dr_recv(mad, false, 0, 2, &out), IBLIB_DR_LOCAL);
	iblib_mad_make_response(mad, mad, 0);
	CHECK_EQ(iblib_smp_dr_respond(mad, false, 2, &out), IBLIB_DR_LOCAL);
}

/* OpenSM's IPoIB broadcast group as a join reply carries it (fabric-opensm.md section 4). */
TEST(mcmember_record_layout)
{
	struct iblib_mcmember_record r, g;
	uint8_t buf[IBLIB_MCMEMBER_RECORD_BYTES];

	memset(&r, 0, sizeof(r));
	iblib_gid_make(&r.mgid, 0xff12401bffff0000ull, 0x00000000ffffffffull);
	iblib_gid_make(&r.port_gid, 0xfe80000000000000ull, 0x0002c90300003001ull);
	r.qkey = 0x00000B1B;
	r.mlid = 0xC000;
	r.mtu_selector = IBLIB_SEL_EXACTLY;
	r.mtu = 4;
	r.pkey = 0xFFFF;
	r.rate_selector = IBLIB_SEL_EXACTLY;
	r.rate = 3;
	r.pkt_life_selector = IBLIB_SEL_EXACTLY;
	r.pkt_life = 0x12;
	r.sl = 0xA;
	r.flow_label = 0xBCDEF;
	r.hop_limit = 0x11;
	r.scope = 2;
	r.join_state = IBLIB_MCR_JOIN_FULL;
	r.proxy_join = true;
	iblib_mcmember_record_put(buf, &r);
	CHECK_EQ(buf[0], 0xFF);
	CHECK_EQ(buf[1], 0x12);
	CHECK_EQ(buf[2], 0x40);
	CHECK_EQ(buf[3], 0x1B);
	CHECK_EQ(buf[16], 0xFE);
	CHECK_EQ(get_be32(buf + 32), 0xB1B);
	CHECK_EQ(get_be16(buf + 36), 0xC000);
	CHECK_EQ(buf[38], 0x84);
	CHECK_EQ(get_be16(buf + 40), 0xFFFF);
	CHECK_EQ(buf[42], 0x83);
	CHECK_EQ(buf[43], 0x92);
	CHECK_EQ(get_be32(buf + 44), 0xABCDEF11u);
	CHECK_EQ(buf[48], 0x21);
	CHECK_EQ(buf[49], 0x80);
	iblib_mcmember_record_get(buf, &g);
	CHECK_MEM(&g.mgid, &r.mgid, 16);
	CHECK_EQ(g.qkey, r.qkey);
	CHECK_EQ(g.mtu, 4);
	CHECK_EQ(g.mtu_selector, 2);
	CHECK_EQ(g.sl, 0xA);
	CHECK_EQ(g.flow_label, 0xBCDEF);
	CHECK_EQ(g.hop_limit, 0x11);
	CHECK_EQ(g.scope, 2);
	CHECK_EQ(g.join_state, 1);
	CHECK(g.proxy_join);
}

TEST(path_record_layout)
{
	struct iblib_path_record r, g;
	uint8_t buf[IBLIB_PATH_RECORD_BYTES];

	memset(&r, 0, sizeof(r));
	iblib_gid_make(&r.dgid, 0xfe80000000000000ull, 0x0002c90300003003ull);
	iblib_gid_make(&r.sgid, 0xfe80000000000000ull, 0x0002c90300003001ull);
	r.dlid = 4;
	r.slid = 3;
	r.raw_traffic = true;
	r.flow_label = 0x12345;
	r.hop_limit = 0x67;
	r.tclass = 0x89;
	r.reversible = true;
	r.numb_path = 0x7F;
	r.pkey = 0xFFFF;
	r.qos_class = 0xABC;
	r.sl = 5;
	r.mtu_selector = 2;
	r.mtu = 4;
	r.rate_selector = 2;
	r.rate = 3;
	r.pkt_life_selector = 2;
	r.pkt_life = 0x12;
	r.preference = 1;
	iblib_path_record_put(buf, &r);
	CHECK_EQ(buf[8], 0xFE);
	CHECK_EQ(buf[23], 0x03);
	CHECK_EQ(buf[39], 0x01);
	CHECK_EQ(get_be16(buf + 40), 4);
	CHECK_EQ(get_be16(buf + 42), 3);
	CHECK_EQ(get_be32(buf + 44), 0x81234567u);
	CHECK_EQ(buf[48], 0x89);
	CHECK_EQ(buf[49], 0xFF);
	CHECK_EQ(get_be16(buf + 52), 0xABC5);
	CHECK_EQ(buf[54], 0x84);
	CHECK_EQ(buf[55], 0x83);
	CHECK_EQ(buf[56], 0x92);
	CHECK_EQ(buf[57], 1);
	iblib_path_record_get(buf, &g);
	CHECK_EQ(g.dlid, 4);
	CHECK_EQ(g.flow_label, 0x12345);
	CHECK_EQ(g.qos_class, 0xABC);
	CHECK_EQ(g.sl, 5);
	CHECK(g.reversible);
	CHECK(g.raw_traffic);
	CHECK_EQ(g.numb_path, 0x7F);
	CHECK_EQ(g.pkt_life, 0x12);
}

TEST(sa_header_layout)
{
	uint8_t mad[256];
	struct iblib_sa_hdr h = { .rmpp_version = 1, .rmpp_type = IBLIB_RMPP_TYPE_DATA,
				  .rmpp_resp_time = 0x1F, .rmpp_flags = 7, .rmpp_status = 0,
				  .rmpp_data1 = 1, .rmpp_data2 = 200, .sm_key = 1,
				  .attr_offset = 8, .comp_mask = 0x10083 }, g;

	memset(mad, 0, sizeof(mad));
	iblib_sa_hdr_put(mad, &h);
	CHECK_EQ(mad[24], 1);
	CHECK_EQ(mad[26], 0xFF);
	CHECK_EQ(get_be32(mad + 28), 1);
	CHECK_EQ(get_be32(mad + 32), 200);
	CHECK_EQ(get_be64(mad + 36), 1);
	CHECK_EQ(get_be16(mad + 44), 8);
	CHECK_EQ(get_be64(mad + 48), 0x10083);
	iblib_sa_hdr_get(mad, &g);
	CHECK_EQ(g.rmpp_flags, 7);
	CHECK_EQ(g.rmpp_resp_time, 0x1F);
	CHECK_EQ(g.comp_mask, 0x10083);
}

TEST(class_port_info_sminfo_counters)
{
	uint8_t buf[128];
	struct iblib_class_port_info c = { .base_version = 1, .class_version = 2, .cap_mask = 0x2602,
					   .cap_mask2 = 0xB5E8, .resp_time_value = 0x10,
					   .trap_lid = 1, .trap_hl = 0xFF, .trap_qp = 1,
					   .trap_qkey = 0x80010000, .redirect_qp = 0xABCDEF }, cg;
	struct iblib_sminfo s = { .guid = 0x0002c90300001001ull, .sm_key = 0, .act_count = 82,
				  .priority = 0, .state = IBLIB_SMINFO_STATE_MASTER }, sg;
	struct iblib_port_counters pc = { .port_select = 1, .xmit_data = 0x11223344,
					  .rcv_pkts = 7, .local_link_integrity_errors = 3,
					  .excessive_buffer_overrun = 4 }, pg;

	iblib_class_port_info_put(buf, &c);
	CHECK_EQ(get_be16(buf + 2), 0x2602);
	CHECK_EQ(get_be32(buf + 4), 0xB5E8u << 5 | 0x10);
	CHECK_EQ(get_be16(buf + 60), 1);
	CHECK_EQ(buf[64], 0xFF);
	CHECK_EQ(get_be24(buf + 33), 0xABCDEF);
	iblib_class_port_info_get(buf, &cg);
	CHECK_EQ(cg.cap_mask2, 0xB5E8);
	CHECK_EQ(cg.resp_time_value, 0x10);
	CHECK_EQ(cg.trap_qkey, 0x80010000u);

	iblib_sminfo_put(buf, &s);
	CHECK_EQ(buf[20], 0x03);
	CHECK_EQ(get_be32(buf + 16), 82);
	iblib_sminfo_get(buf, &sg);
	CHECK_EQ(sg.guid, s.guid);
	CHECK_EQ(sg.state, 3);

	iblib_port_counters_put(buf, &pc);
	CHECK_EQ(buf[1], 1);
	CHECK_EQ(get_be32(buf + 24), 0x11223344);
	CHECK_EQ(get_be32(buf + 36), 7);
	CHECK_EQ(buf[19], 0x34);
	iblib_port_counters_get(buf, &pg);
	CHECK_EQ(pg.xmit_data, 0x11223344);
	CHECK_EQ(pg.local_link_integrity_errors, 3);
}

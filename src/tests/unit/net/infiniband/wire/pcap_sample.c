/* SPDX-License-Identifier: MIT */
/*
 * Writes a pcap (LINKTYPE_INFINIBAND, 247) of packets built with iblib, for an independent
 * decoder (tshark, tshark-check.sh) to read back: a local UD datagram, a global (GRH) multicast
 * datagram, a directed-route SMP, a LID-routed PortInfo GetResp and an SA MCMemberRecord join.
 * Usage: pcap-sample OUT.pcap
 */
#include <stdio.h>
#include <string.h>

#include <ibboot/wire/attrs.h>
#include <ibboot/wire/bytes.h>
#include <ibboot/wire/mad.h>
#include <ibboot/wire/packet.h>

static FILE *out;

static void put32le(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static int write_pkt(const uint8_t *pkt, int len, uint32_t sec)
{
	uint8_t rec[16];

	if (len < 0) {
		fprintf(stderr, "pcap-sample: build failed: %s\n", iblib_strerror(len));
		return -1;
	}
	put32le(rec, sec);
	put32le(rec + 4, 0);
	put32le(rec + 8, (uint32_t)len);
	put32le(rec + 12, (uint32_t)len);
	return fwrite(rec, 16, 1, out) == 1 && fwrite(pkt, (size_t)len, 1, out) == 1 ? 0 : -1;
}

static int mad_pkt(uint8_t *buf, uint16_t dlid, uint16_t slid, uint32_t qp, const uint8_t *mad)
{
	struct iblib_lrh lrh = { .vl = qp == 0 ? 15 : 0, .dlid = dlid, .slid = slid };
	struct iblib_bth bth = { .opcode = IBLIB_OP_UD_SEND_ONLY, .pkey = 0xFFFF, .dest_qp = qp };
	struct iblib_deth deth = { .qkey = qp == 0 ? 0 : IBLIB_GSI_QKEY, .src_qp = qp };

	return iblib_ud_build(buf, IBLIB_PKT_MAX, &lrh, NULL, &bth, &deth, mad, IBLIB_MAD_BYTES);
}

int main(int argc, char **argv)
{
	static uint8_t buf[IBLIB_PKT_MAX], mad[IBLIB_MAD_BYTES];
	uint8_t hdr[24];
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: pcap-sample OUT.pcap\n");
		return 2;
	}
	out = fopen(argv[1], "wb");
	if (!out) {
		perror(argv[1]);
		return 1;
	}
	put32le(hdr, 0xa1b2c3d4);
	hdr[4] = 2; hdr[5] = 0; hdr[6] = 4; hdr[7] = 0;
	put32le(hdr + 8, 0);
	put32le(hdr + 12, 0);
	put32le(hdr + 16, 65535);
	put32le(hdr + 20, 247);
	fwrite(hdr, 24, 1, out);

	/* 1: local UD */
	struct iblib_lrh lrh = { .sl = 0, .dlid = 3, .slid = 5 };
	struct iblib_bth bth = { .opcode = IBLIB_OP_UD_SEND_ONLY, .pkey = 0xFFFF, .dest_qp = 0x48,
				 .psn = 0x123456 };
	struct iblib_deth deth = { .qkey = 0xB1B, .src_qp = 0x49 };
	rc |= write_pkt(buf, iblib_ud_build(buf, sizeof(buf), &lrh, NULL, &bth, &deth, "ibboot!!", 8), 1);

	/* 2: global multicast UD (the IPoIB broadcast group) */
	struct iblib_grh grh = { .tclass = 0, .flow_label = 0x12345, .hop_limit = 0 };
	iblib_gid_make(&grh.sgid, 0xfe80000000000000ull, 0x0002c90300003001ull);
	iblib_gid_make(&grh.dgid, 0xff12401bffff0000ull, 0x00000000ffffffffull);
	lrh.dlid = 0xC000;
	bth.dest_qp = 0xFFFFFF;
	rc |= write_pkt(buf, iblib_ud_build(buf, sizeof(buf), &lrh, &grh, &bth, &deth, "ipoib-bc", 8), 2);

	/* 3: directed-route SubnGet(NodeInfo), hop count 2 */
	struct iblib_mad_hdr mh = { .base_version = 1, .mgmt_class = IBLIB_MCLASS_SUBN_DR,
				    .class_version = 1, .method = IBLIB_METHOD_GET,
				    .class_specific = 0x0102, .tid = 0x1234, .attr_id = IBLIB_SM_ATTR_NODE_INFO };
	memset(mad, 0, sizeof(mad));
	iblib_mad_hdr_put(mad, &mh);
	put_be16(mad + IBLIB_SMP_DR_SLID_OFF, 0xFFFF);
	put_be16(mad + IBLIB_SMP_DR_DLID_OFF, 0xFFFF);
	mad[IBLIB_SMP_INITIAL_PATH_OFF + 1] = 1;
	mad[IBLIB_SMP_INITIAL_PATH_OFF + 2] = 3;
	rc |= write_pkt(buf, mad_pkt(buf, 0xFFFF, 0xFFFF, 0, mad), 3);

	/* 4: LID-routed SubnGetResp(PortInfo) */
	mh.mgmt_class = IBLIB_MCLASS_SUBN_LID;
	mh.method = IBLIB_METHOD_GET_RESP;
	mh.class_specific = 0;
	mh.attr_id = IBLIB_SM_ATTR_PORT_INFO;
	mh.attr_mod = 1;
	memset(mad, 0, sizeof(mad));
	iblib_mad_hdr_put(mad, &mh);
	uint8_t *pi = iblib_smp_data(mad);
	iblib_portinfo_set_gid_prefix(pi, 0xfe80000000000000ull);
	iblib_portinfo_set_lid(pi, 3);
	iblib_portinfo_set_master_sm_lid(pi, 1);
	iblib_portinfo_set_capability_mask(pi, 0x02510868);
	iblib_portinfo_set_local_port_num(pi, 1);
	iblib_portinfo_set_port_state(pi, IBLIB_PORT_STATE_ACTIVE);
	iblib_portinfo_set_port_phys_state(pi, IBLIB_PHYS_STATE_LINKUP);
	iblib_portinfo_set_lmc(pi, 2);
	iblib_portinfo_set_neighbor_mtu(pi, IBLIB_MTU_2048);
	iblib_portinfo_set_mtu_cap(pi, IBLIB_MTU_4096);
	iblib_portinfo_set_vl_cap(pi, IBLIB_VL_CAP_VL0_7);
	iblib_portinfo_set_operational_vls(pi, IBLIB_VL_CAP_VL0_3);
	iblib_portinfo_set_client_reregister(pi, 1);
	iblib_portinfo_set_subnet_timeout(pi, 18);
	rc |= write_pkt(buf, mad_pkt(buf, 1, 3, 0, mad), 4);

	/* 5: SA SubnAdmSet(MCMemberRecord) join */
	mh.mgmt_class = IBLIB_MCLASS_SUBN_ADM;
	mh.class_version = 2;
	mh.method = IBLIB_METHOD_SET;
	mh.attr_id = IBLIB_SA_ATTR_MCMEMBER_RECORD;
	mh.attr_mod = 0;
	memset(mad, 0, sizeof(mad));
	iblib_mad_hdr_put(mad, &mh);
	struct iblib_sa_hdr sa = { .comp_mask = IBLIB_MCR_COMP_MGID | IBLIB_MCR_COMP_PORT_GID |
					       IBLIB_MCR_COMP_PKEY | IBLIB_MCR_COMP_JOIN_STATE };
	iblib_sa_hdr_put(mad, &sa);
	struct iblib_mcmember_record mr = { .qkey = 0xB1B, .mlid = 0xC000, .mtu_selector = 2,
					    .mtu = 4, .pkey = 0xFFFF, .scope = 2, .join_state = 1 };
	mr.mgid = grh.dgid;
	mr.port_gid = grh.sgid;
	iblib_mcmember_record_put(mad + IBLIB_SA_DATA_OFF, &mr);
	rc |= write_pkt(buf, mad_pkt(buf, 1, 3, 1, mad), 5);

	if (fclose(out) != 0 || rc) {
		fprintf(stderr, "pcap-sample: writing %s failed\n", argv[1]);
		return 1;
	}
	return 0;
}

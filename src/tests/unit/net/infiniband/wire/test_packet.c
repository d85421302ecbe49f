/* SPDX-License-Identifier: MIT */
/* Packet headers, whole-packet build/parse and the link CRCs. */
#include "test.h"

#include <ibboot/wire/bytes.h>
#include <ibboot/wire/crc.h>
#include <ibboot/wire/packet.h>

/* The CRC-32 check value of "123456789" (the standard CRC catalogue entry for CRC-32/ISO-HDLC). */
TEST(crc32_check_value)
{
	const uint8_t s[] = "123456789";

	CHECK_EQ(~iblib_crc32_update(0xFFFFFFFFu, s, 9), 0xCBF43926u);
	/* Linux rxe seeds its RoCE ICRC with this constant: the register after 8 bytes of ones
	 * (the masked LRH). Our masking of a global packet's LRH must produce the same state. */
	uint8_t ones[8];
	memset(ones, 0xFF, sizeof(ones));
	CHECK_EQ(iblib_crc32_update(0xFFFFFFFFu, ones, 8), 0xDEBB20E3u);
}

/*
 * Real hardware: a RoCEv2 CNP captured on a ConnectX-4 Lx (published with scapy's RoCE tests).
 * RoCE computes the ICRC exactly like IBA 7.8.1 for a global packet - the absent LRH counts as
 * eight bytes of ones - with the IPv4/UDP variant fields (TOS, TTL, header checksum, UDP
 * checksum) masked like the GRH's, and BTH:Resv8a masked. The CRC must match the captured one
 * byte for byte, which pins down both the CRC and the byte order iblib_put_icrc() uses.
 */
TEST(icrc_matches_connectx_capture)
{
	static const uint8_t ipv4_udp_bth_pad[] = {
		0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61,
		0x0a, 0x00, 0x11, 0x01, 0x0a, 0x00, 0x12, 0x01,                         /* IPv4 */
		0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00,                         /* UDP 4791 */
		0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00, /* BTH (CNP) */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,                         /* padding */
	};
	static const uint8_t captured_icrc[4] = { 0x82, 0xfd, 0x00, 0x2a };
	uint8_t m[sizeof(ipv4_udp_bth_pad)], ones[8], out[4];

	memcpy(m, ipv4_udp_bth_pad, sizeof(m));
	m[1] = 0xff;                 /* TOS */
	m[8] = 0xff;                 /* TTL */
	m[10] = m[11] = 0xff;        /* IPv4 header checksum */
	m[26] = m[27] = 0xff;        /* UDP checksum */
	m[28 + 4] = 0xff;            /* BTH:Resv8a (here the BECN bit) */
	memset(ones, 0xff, sizeof(ones));
	uint32_t crc = iblib_crc32_update(0xFFFFFFFFu, ones, sizeof(ones));
	crc = iblib_crc32_update(crc, m, sizeof(m));
	iblib_put_icrc(out, ~crc);
	CHECK_MEM(out, captured_icrc, 4);
	CHECK_EQ(iblib_get_icrc(captured_icrc), ~crc);
}

/* VCRC against an independent formulation: MSB-first polynomial division by 0x100B on
 * bit-reversed bytes, result bit-reversed. */
static uint16_t rev16(uint16_t v)
{
	uint16_t r = 0;
	for (int i = 0; i < 16; i++)
		r = (uint16_t)(r << 1 | ((v >> i) & 1));
	return r;
}

static uint8_t rev8(uint8_t v)
{
	uint8_t r = 0;
	for (int i = 0; i < 8; i++)
		r = (uint8_t)(r << 1 | ((v >> i) & 1));
	return r;
}

static uint16_t vcrc_msb_first(const uint8_t *p, size_t n)
{
	uint16_t c = 0xFFFF;
	for (size_t i = 0; i < n; i++) {
		c ^= (uint16_t)(rev8(p[i]) << 8);
		for (int k = 0; k < 8; k++)
			c = (uint16_t)((c & 0x8000) ? (c << 1) ^ 0x100B : c << 1);
	}
	return (uint16_t)(rev16(c) ^ 0xFFFF);
}

TEST(vcrc_matches_msb_first_division)
{
	uint8_t buf[300];
	test_srand(7);
	for (int round = 0; round < 50; round++) {
		size_t n = (size_t)(test_rand() % sizeof(buf));
		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t)test_rand();
		CHECK_EQ(iblib_vcrc(buf, n), vcrc_msb_first(buf, n));
	}
}

static const uint8_t payload8[8] = { 'i', 'b', 'b', 'o', 'o', 't', '!', '!' };

/* A local UD packet whose bytes and ICRC were computed independently (Python zlib.crc32 over the
 * masked headers; VCRC by the MSB-first division above). */
static const uint8_t ud_local_expected[] = {
	0x00, 0x02, 0x00, 0x03, 0x00, 0x0a, 0x00, 0x05,             /* LRH */
	0x64, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x48, 0x00, 0x12, 0x34, 0x56, /* BTH */
	0x00, 0x00, 0x0b, 0x1b, 0x00, 0x00, 0x00, 0x49,             /* DETH */
	0x69, 0x62, 0x62, 0x6f, 0x6f, 0x74, 0x21, 0x21,             /* payload */
	0xc6, 0x1f, 0xf6, 0xc1,                                     /* ICRC 0xc1f61fc6, LSB first */
	0xeb, 0x04,                                                 /* VCRC 0x04eb */
};

static void ud_local_headers(struct iblib_lrh *lrh, struct iblib_bth *bth, struct iblib_deth *deth)
{
	memset(lrh, 0, sizeof(*lrh));
	memset(bth, 0, sizeof(*bth));
	memset(deth, 0, sizeof(*deth));
	lrh->dlid = 3;
	lrh->slid = 5;
	bth->opcode = IBLIB_OP_UD_SEND_ONLY;
	bth->pkey = 0xFFFF;
	bth->dest_qp = 0x48;
	bth->psn = 0x123456;
	deth->qkey = 0xB1B;
	deth->src_qp = 0x49;
}

TEST(ud_build_local_matches_known_bytes)
{
	struct iblib_lrh lrh;
	struct iblib_bth bth;
	struct iblib_deth deth;
	uint8_t buf[IBLIB_PKT_MAX];

	ud_local_headers(&lrh, &bth, &deth);
	int n = iblib_ud_build(buf, sizeof(buf), &lrh, NULL, &bth, &deth, payload8, 8);
	CHECK_EQ(n, sizeof(ud_local_expected));
	CHECK_MEM(buf, ud_local_expected, sizeof(ud_local_expected));
}

TEST(ud_build_global_icrc_known_value)
{
	struct iblib_lrh lrh;
	struct iblib_bth bth;
	struct iblib_deth deth;
	struct iblib_grh grh;
	uint8_t buf[IBLIB_PKT_MAX];
	struct iblib_pkt p;

	ud_local_headers(&lrh, &bth, &deth);
	lrh.dlid = 0xC000;
	bth.dest_qp = 0xFFFFFF;
	bth.psn = 7;
	memset(&grh, 0, sizeof(grh));
	grh.tclass = 0x12;
	grh.flow_label = 0x34567;
	grh.hop_limit = 0x40;
	iblib_gid_make(&grh.sgid, 0xfe80000000000000ull, 0x0002c90300003001ull);
	iblib_gid_make(&grh.dgid, 0xff12401bffff0000ull, 0x00000000ffffffffull);
	int n = iblib_ud_build(buf, sizeof(buf), &lrh, &grh, &bth, &deth, payload8, 8);
	CHECK_EQ(n, 8 + 40 + 12 + 8 + 8 + 4 + 2);
	CHECK_EQ(buf[1] & 3, IBLIB_LNH_IBA_GLOBAL);
	CHECK_EQ(get_be16(buf + 4), 20);          /* PktLen */
	CHECK_EQ(get_be16(buf + 8 + 4), 32);      /* GRH PayLen */
	CHECK_EQ(buf[8 + 6], 0x1B);
	CHECK_EQ(iblib_get_icrc(buf + n - 6), 0xc2074c87u);  /* independent zlib value */
	CHECK_EQ(iblib_pkt_parse(buf, (size_t)n, &p, 0), 0);
	CHECK(p.has_grh);
	CHECK_EQ(p.grh.flow_label, 0x34567);
	CHECK_EQ(p.grh.tclass, 0x12);
	CHECK_EQ(p.grh.hop_limit, 0x40);
	CHECK_EQ(iblib_gid_guid(&p.grh.sgid), 0x0002c90300003001ull);
	CHECK(iblib_gid_is_multicast(&p.grh.dgid));
	CHECK_EQ(p.bth_off, 48);
	CHECK_EQ(p.payload_off, 68);
}

/* The UD-only header builder writes what the general one does (with and without a GRH, any
 * payload length's pad), and refuses another opcode. */
TEST(ud_headers_match_pkt_headers)
{
	struct iblib_pkt h;
	uint8_t a[128], b[128];

	for (unsigned g = 0; g < 2; g++) {
		for (size_t len = 0; len < 6; len++) {
			memset(&h, 0, sizeof(h));
			ud_local_headers(&h.lrh, &h.bth, &h.deth);
			h.has_grh = g;
			h.grh.hop_limit = 0x40;
			iblib_gid_make(&h.grh.dgid, 0xff12401bffff0000ull, 0xffffffffull);
			memset(a, 0xa5, sizeof(a));
			memset(b, 0xa5, sizeof(b));
			int n = iblib_pkt_headers(a, sizeof(a), &h, 256 + len);

			CHECK_EQ(n, g ? 68 : 28);
			CHECK_EQ(iblib_ud_headers(b, sizeof(b), &h, 256 + len), n);
			CHECK_MEM(a, b, sizeof(a));
		}
	}
	CHECK_EQ(iblib_ud_headers(b, 27, &h, 0), IBLIB_E_NOSPACE);
	h.bth.opcode = IBLIB_OP_RC_SEND_ONLY;
	CHECK_EQ(iblib_ud_headers(b, sizeof(b), &h, 0), IBLIB_E_OPCODE);
}

TEST(parse_roundtrip_and_offsets)
{
	struct iblib_pkt p;

	CHECK_EQ(iblib_pkt_parse(ud_local_expected, sizeof(ud_local_expected), &p, 0), 0);
	CHECK(!p.has_grh);
	CHECK_EQ(p.lrh.dlid, 3);
	CHECK_EQ(p.lrh.slid, 5);
	CHECK_EQ(p.lrh.pktlen, 10);
	CHECK_EQ(p.bth.opcode, 0x64);
	CHECK_EQ(p.bth.pkey, 0xFFFF);
	CHECK_EQ(p.bth.dest_qp, 0x48);
	CHECK_EQ(p.bth.psn, 0x123456);
	CHECK_EQ(p.deth.qkey, 0xB1B);
	CHECK_EQ(p.deth.src_qp, 0x49);
	CHECK_EQ(p.ext, IBLIB_EXT_DETH);
	CHECK_EQ(p.bth_off, 8);
	CHECK_EQ(p.payload_off, 28);
	CHECK_EQ(p.payload_len, 8);
	CHECK_EQ(p.icrc_off, 36);
	CHECK_EQ(p.vcrc_off, 40);
	CHECK_EQ(p.len, 42);
}

TEST(padding_and_padcnt)
{
	struct iblib_lrh lrh;
	struct iblib_bth bth;
	struct iblib_deth deth;
	uint8_t buf[IBLIB_PKT_MAX];
	struct iblib_pkt p;

	ud_local_headers(&lrh, &bth, &deth);
	for (size_t len = 0; len < 9; len++) {
		int n = iblib_ud_build(buf, sizeof(buf), &lrh, NULL, &bth, &deth, payload8, len);
		CHECK(n > 0);
		CHECK_EQ((n - 2) % 4, 0);
		CHECK_EQ(iblib_pkt_parse(buf, (size_t)n, &p, 0), 0);
		CHECK_EQ(p.payload_len, len);
		CHECK_EQ(p.bth.padcnt, (4 - len % 4) % 4);
		CHECK_MEM(buf + p.payload_off, payload8, len);
	}
}

/* Rewrite both CRCs after a test edits the headers. */
static void reseal(uint8_t *buf, size_t len)
{
	iblib_put_icrc(buf + len - 6, iblib_icrc(buf, len - 6, NULL));
	iblib_pkt_update_vcrc(buf, len);
}

TEST(parse_errors_are_distinct)
{
	uint8_t buf[64];
	struct iblib_pkt p;
	const size_t n = sizeof(ud_local_expected);

	memcpy(buf, ud_local_expected, n);
	CHECK_EQ(iblib_pkt_parse(buf, 4, &p, 0), IBLIB_E_SHORT);
	CHECK_EQ(iblib_pkt_parse(buf, n - 4, &p, 0), IBLIB_E_PKTLEN);

	buf[30] ^= 0x01;  /* payload bit: the link CRC catches it first */
	CHECK_EQ(iblib_pkt_parse(buf, n, &p, 0), IBLIB_E_VCRC);
	iblib_pkt_update_vcrc(buf, n);  /* a switch that recomputes the VCRC: end to end catches it */
	CHECK_EQ(iblib_pkt_parse(buf, n, &p, 0), IBLIB_E_ICRC);
	CHECK_EQ(iblib_pkt_parse(buf, n, &p, IBLIB_PARSE_NO_ICRC), 0);

	memcpy(buf, ud_local_expected, n);
	buf[0] = (uint8_t)(buf[0] | 0x01);  /* LVer 1 */
	reseal(buf, n);
	CHECK_EQ(iblib_pkt_parse(buf, n, &p, 0), IBLIB_E_LVER);

	memcpy(buf, ud_local_expected, n);
	buf[1] = (uint8_t)(buf[1] & ~3);  /* LNH raw */
	iblib_pkt_update_vcrc(buf, n);
	CHECK_EQ(iblib_pkt_parse(buf, n, &p, 0), IBLIB_E_LNH);

	memcpy(buf, ud_local_expected, n);
	buf[8] = 0x70;  /* an opcode iblib does not know */
	reseal(buf, n);
	CHECK_EQ(iblib_pkt_parse(buf, n, &p, 0), IBLIB_E_OPCODE);

	memcpy(buf, ud_local_expected, n);
	buf[9] |= 0x01;  /* TVer 1 */
	reseal(buf, n);
	CHECK_EQ(iblib_pkt_parse(buf, n, &p, 0), IBLIB_E_TVER);

	memcpy(buf, ud_local_expected, n);
	buf[8] = IBLIB_OP_RC_ACKNOWLEDGE;  /* an ACK has no payload; 12 bytes follow its AETH */
	reseal(buf, n);
	CHECK_EQ(iblib_pkt_parse(buf, n, &p, 0), IBLIB_E_PAD);

	for (int e = -1; e >= -14; e--)
		CHECK(strcmp(iblib_strerror(e), "unknown iblib error") != 0);
}

TEST(variant_fields_do_not_change_icrc)
{
	uint8_t buf[64];
	struct iblib_pkt p;
	const size_t n = sizeof(ud_local_expected);
	uint32_t icrc = iblib_icrc(ud_local_expected, n - 6, NULL);

	memcpy(buf, ud_local_expected, n);
	buf[0] = (uint8_t)(buf[0] | 0xF0);  /* VL 15: a switch may change it */
	buf[12] = 0x5A;                     /* BTH resv8a */
	CHECK_EQ(iblib_icrc(buf, n - 6, NULL), icrc);
	iblib_pkt_update_vcrc(buf, n);
	CHECK_EQ(iblib_pkt_parse(buf, n, &p, 0), 0);
	CHECK_EQ(p.lrh.vl, 15);

	memcpy(buf, ud_local_expected, n);
	buf[1] = (uint8_t)(buf[1] | 0x30);  /* SL: invariant in a local packet */
	CHECK(iblib_icrc(buf, n - 6, NULL) != icrc);
	memcpy(buf, ud_local_expected, n);
	buf[3] ^= 1;                        /* DLID */
	CHECK(iblib_icrc(buf, n - 6, NULL) != icrc);
	CHECK(iblib_vcrc(buf, n - 2) != iblib_get_vcrc(ud_local_expected + n - 2));
}

TEST(global_packet_masks_lrh_and_grh_variants)
{
	struct iblib_pkt h, p;
	uint8_t buf[256];

	memset(&h, 0, sizeof(h));
	h.lrh.dlid = 7;
	h.lrh.slid = 9;
	h.has_grh = true;
	h.grh.hop_limit = 1;
	iblib_gid_make(&h.grh.dgid, 0xfe80000000000000ull, 42);
	h.bth.opcode = IBLIB_OP_UD_SEND_ONLY;
	h.bth.pkey = 0xFFFF;
	int n = iblib_pkt_build(buf, sizeof(buf), &h, payload8, 8);
	CHECK(n > 0);
	uint32_t icrc = iblib_get_icrc(buf + n - 6);
	buf[2] = 0x12;   /* DLID changed by a router */
	buf[7] = 0x34;   /* SLID */
	buf[1] = (uint8_t)(buf[1] | 0xF0);   /* SL */
	buf[8] = (uint8_t)(buf[8] | 0x0F);   /* TClass high nibble */
	buf[10] = 0xAB;  /* FlowLabel */
	buf[15] = 0x99;  /* HopLmt */
	CHECK_EQ(iblib_icrc(buf, (size_t)n - 6, NULL), icrc);
	iblib_pkt_update_vcrc(buf, (size_t)n);
	CHECK_EQ(iblib_pkt_parse(buf, (size_t)n, &p, 0), 0);
	buf[8 + 24 + 15] ^= 1;   /* DGID is invariant */
	CHECK(iblib_icrc(buf, (size_t)n - 6, NULL) != icrc);
	buf[8 + 24 + 15] ^= 1;
	buf[8 + 6] = 0x11;       /* NxtHdr wrong */
	reseal(buf, (size_t)n);
	CHECK_EQ(iblib_pkt_parse(buf, (size_t)n, &p, 0), IBLIB_E_GRH);
}

TEST(rc_opcodes_roundtrip)
{
	struct iblib_pkt h, p;
	uint8_t buf[512], data[100];

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	memset(&h, 0, sizeof(h));
	h.lrh.dlid = 4;
	h.lrh.slid = 3;
	h.bth.pkey = 0xFFFF;
	h.bth.dest_qp = 0x123;
	h.bth.psn = 0xFFFFFF;
	h.bth.ackreq = true;
	h.reth.va = 0x1122334455667788ull;
	h.reth.rkey = 0xCAFEBABE;
	h.reth.dma_len = 100;
	h.imm = 0xA5A5A5A5;

	h.bth.opcode = IBLIB_OP_RC_RDMA_WRITE_ONLY_IMM;
	int n = iblib_pkt_build(buf, sizeof(buf), &h, data, sizeof(data));
	CHECK_EQ(n, 8 + 12 + 16 + 4 + 100 + 4 + 2);
	CHECK_EQ(iblib_pkt_parse(buf, (size_t)n, &p, 0), 0);
	CHECK_EQ(p.ext, IBLIB_EXT_RETH | IBLIB_EXT_IMM);
	CHECK_EQ(p.reth.va, 0x1122334455667788ull);
	CHECK_EQ(p.reth.rkey, 0xCAFEBABE);
	CHECK_EQ(p.reth.dma_len, 100);
	CHECK_EQ(p.imm, 0xA5A5A5A5);
	CHECK(p.bth.ackreq);
	CHECK_EQ(p.bth.psn, 0xFFFFFF);
	CHECK_EQ(p.payload_len, 100);
	CHECK_MEM(buf + p.payload_off, data, 100);

	h.bth.opcode = IBLIB_OP_RC_RDMA_READ_REQUEST;
	CHECK_EQ(iblib_pkt_build(buf, sizeof(buf), &h, data, 4), IBLIB_E_INVAL); /* no payload */
	n = iblib_pkt_build(buf, sizeof(buf), &h, NULL, 0);
	CHECK_EQ(n, 8 + 12 + 16 + 6);
	CHECK_EQ(iblib_pkt_parse(buf, (size_t)n, &p, 0), 0);
	CHECK_EQ(p.payload_len, 0);

	h.bth.opcode = IBLIB_OP_RC_ACKNOWLEDGE;
	h.aeth.syndrome = IBLIB_AETH_NAK_REMOTE_ACCESS;
	h.aeth.msn = 0x000102;
	n = iblib_pkt_build(buf, sizeof(buf), &h, NULL, 0);
	CHECK_EQ(iblib_pkt_parse(buf, (size_t)n, &p, 0), 0);
	CHECK_EQ(p.aeth.syndrome, 0x62);
	CHECK_EQ(p.aeth.msn, 0x102);

	h.bth.opcode = IBLIB_OP_RC_RDMA_READ_RESP_FIRST;
	n = iblib_pkt_build(buf, sizeof(buf), &h, data, 64);
	CHECK_EQ(iblib_pkt_parse(buf, (size_t)n, &p, 0), 0);
	CHECK_EQ(p.ext, IBLIB_EXT_AETH);
	CHECK_EQ(p.payload_len, 64);

	h.bth.opcode = IBLIB_OP_RC_FETCH_ADD;
	h.atomiceth.swap_add = 5;
	h.atomiceth.compare = 6;
	n = iblib_pkt_build(buf, sizeof(buf), &h, NULL, 0);
	CHECK_EQ(n, 8 + 12 + 28 + 6);
	CHECK_EQ(iblib_pkt_parse(buf, (size_t)n, &p, 0), 0);
	CHECK_EQ(p.atomiceth.swap_add, 5);
	CHECK_EQ(p.atomiceth.compare, 6);

	CHECK_EQ(iblib_opcode_ext(0x40), IBLIB_E_OPCODE);  /* RD */
	CHECK(strcmp(iblib_opcode_name(0x64), "UD SEND_ONLY") == 0);
	CHECK(strcmp(iblib_opcode_name(0x0A), "RC RDMA_WRITE_ONLY") == 0);
}

TEST(build_limits)
{
	struct iblib_lrh lrh;
	struct iblib_bth bth;
	struct iblib_deth deth;
	static uint8_t big[4200], buf[IBLIB_PKT_MAX + 64];

	ud_local_headers(&lrh, &bth, &deth);
	CHECK_EQ(iblib_ud_build(buf, 20, &lrh, NULL, &bth, &deth, payload8, 8), IBLIB_E_NOSPACE);
	CHECK_EQ(iblib_ud_build(buf, sizeof(buf), &lrh, NULL, &bth, &deth, big, sizeof(big)),
		 IBLIB_E_INVAL);
	int n = iblib_ud_build(buf, sizeof(buf), &lrh, NULL, &bth, &deth, big, 4096);
	CHECK_EQ(n, 8 + 12 + 8 + 4096 + 6);
	bth.opcode = IBLIB_OP_UD_SEND_ONLY_IMM;
	CHECK_EQ(iblib_ud_build(buf, sizeof(buf), &lrh, NULL, &bth, &deth, payload8, 8), IBLIB_E_INVAL);
}

/* A driver-built MLX header (as QP0/QP1 WQEs carry) sealed by the "hardware". */
TEST(seal_matches_build)
{
	uint8_t buf[64];
	const size_t hdr = sizeof(ud_local_expected) - 6;

	memcpy(buf, ud_local_expected, hdr);
	put_be16(buf + 4, 0);  /* PktLen left for the hardware */
	CHECK_EQ(iblib_pkt_seal(buf, hdr, sizeof(buf)), sizeof(ud_local_expected));
	CHECK_MEM(buf, ud_local_expected, sizeof(ud_local_expected));
	CHECK_EQ(iblib_pkt_seal(buf, hdr - 1, sizeof(buf)), IBLIB_E_PAD);
	CHECK_EQ(iblib_pkt_seal(buf, hdr, hdr + 2), IBLIB_E_NOSPACE);
	CHECK_EQ(iblib_pkt_seal(buf, 8, sizeof(buf)), IBLIB_E_SHORT);
}

/* Random corruption never crashes the parser and never passes silently with both CRCs on. */
TEST(random_corruption_is_detected)
{
	uint8_t buf[64];
	struct iblib_pkt p;
	const size_t n = sizeof(ud_local_expected);

	test_srand(99);
	for (int i = 0; i < 2000; i++) {
		memcpy(buf, ud_local_expected, n);
		size_t at = (size_t)(test_rand() % n);
		uint8_t flip = (uint8_t)(1u << (test_rand() % 8));
		buf[at] ^= flip;
		/* A single-bit error is always within the VCRC's reach (VL bits included). */
		CHECK(iblib_pkt_parse(buf, n, &p, 0) < 0);
	}
}

TEST(icrc_refuses_what_it_cannot_cover)
{
	uint8_t buf[64];
	int err = 1;

	memcpy(buf, ud_local_expected, sizeof(ud_local_expected));
	CHECK_EQ(iblib_icrc(buf, 4, &err), 0);
	CHECK_EQ(err, IBLIB_E_SHORT);
	CHECK_EQ(iblib_icrc(buf, 12, &err), 0);       /* LRH but not the whole BTH */
	CHECK_EQ(err, IBLIB_E_SHORT);
	buf[1] = (uint8_t)((buf[1] & ~3) | IBLIB_LNH_IBA_GLOBAL);
	CHECK_EQ(iblib_icrc(buf, 30, &err), 0);       /* a GRH would not fit */
	CHECK_EQ(err, IBLIB_E_SHORT);
	buf[1] = (uint8_t)(buf[1] & ~3);               /* raw: no ICRC at all */
	CHECK_EQ(iblib_icrc(buf, 36, &err), 0);
	CHECK_EQ(err, IBLIB_E_LNH);
	(void)iblib_icrc(buf, 36, NULL);               /* err is optional */
	CHECK_EQ(iblib_icrc(ud_local_expected, 36, &err), 0xc1f61fc6u);
	CHECK_EQ(err, 0);
	CHECK_EQ(iblib_pkt_update_vcrc(buf, 3), IBLIB_E_SHORT);
}

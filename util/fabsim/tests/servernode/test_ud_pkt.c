/* SPDX-License-Identifier: MIT */
/* Unit tests: UD packets built and parsed through iblib, CRC and length checks on receive. */
#include "test.h"
#include "ud_pkt.h"

#include <ibboot/wire/packet.h>

#include <errno.h>

static const uint8_t mgid[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
static const uint8_t sgid[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0, 0xc0, 0, 1 };

static size_t sample(uint8_t *buf, size_t cap, bool grh, size_t plen)
{
	static uint8_t payload[300];
	for (size_t i = 0; i < sizeof payload; i++)
		payload[i] = (uint8_t)(i * 7 + 1);
	struct ud_pkt p = { .sl = 0, .dlid = grh ? 0xC000 : 5, .slid = 3, .grh = grh, .hop_limit = 0,
			    .pkey = 0xFFFF, .dqpn = grh ? 0xFFFFFF : 0x48, .psn = 77, .qkey = 0xB1B,
			    .sqpn = 0x49, .payload = payload, .payload_len = plen };
	memcpy(p.sgid, sgid, 16);
	memcpy(p.dgid, mgid, 16);
	return ud_pkt_build(buf, cap, &p);
}

TEST(ud_roundtrip_local_and_global)
{
	uint8_t buf[600];
	struct ud_pkt q;
	const char *why = NULL;

	for (int grh = 0; grh < 2; grh++) {
		for (size_t plen = 0; plen < 9; plen++) {   /* every pad count */
			size_t n = sample(buf, sizeof buf, grh, plen);
			CHECK_EQ(n, 8 + (grh ? 40 : 0) + 12 + 8 + ((plen + 3) & ~3u) + 4 + 2);
			CHECK_EQ(ud_pkt_parse(buf, n, &q, &why), 0);
			CHECK_EQ(q.payload_len, plen);
			CHECK_EQ(q.grh, grh);
			CHECK_EQ(q.dqpn, grh ? 0xFFFFFFu : 0x48u);
			CHECK_EQ(q.sqpn, 0x49);
			CHECK_EQ(q.qkey, 0xB1B);
			CHECK_EQ(q.pkey, 0xFFFF);
			CHECK_EQ(q.slid, 3);
			if (grh)
				CHECK_MEM(q.dgid, mgid, 16);
			for (size_t i = 0; i < plen; i++)
				CHECK_EQ(q.payload[i], (uint8_t)(i * 7 + 1));
		}
	}
}

TEST(ud_build_refuses_too_small_buffer)
{
	uint8_t buf[64];
	CHECK_EQ(sample(buf, sizeof buf, true, 100), 0);
}

TEST(ud_parse_rejects_corruption_and_truncation)
{
	uint8_t buf[600], bad[600];
	struct ud_pkt q;
	const char *why;
	size_t n = sample(buf, sizeof buf, true, 57);

	/* Every single-bit flip is caught (VCRC covers all, ICRC the invariant part). */
	for (size_t i = 0; i < n * 8; i += 3) {
		memcpy(bad, buf, n);
		bad[i / 8] ^= (uint8_t)(1u << (i % 8));
		why = NULL;
		CHECK(ud_pkt_parse(bad, n, &q, &why) < 0);
		CHECK(why != NULL);
	}
	for (size_t len = 0; len < n; len++)
		CHECK(ud_pkt_parse(buf, len, &q, &why) < 0);
	CHECK_EQ(ud_pkt_parse(buf, n, &q, &why), 0);
}

TEST(ud_parse_random_garbage_never_crashes)
{
	uint8_t bad[200];
	struct ud_pkt q;
	const char *why;

	for (int i = 0; i < 5000; i++) {
		size_t len = (size_t)(test_rand() % sizeof bad);
		for (size_t j = 0; j < len; j++)
			bad[j] = (uint8_t)test_rand();
		if (ud_pkt_parse(bad, len, &q, &why) == 0)
			CHECK(q.payload + q.payload_len <= bad + len);
	}
}

/* ud_pkt_build lays the packet out itself (headers from iblib, payload by memcpy, pad, then
 * iblib's seal): byte for byte what iblib_ud_build gives, local and global, for every pad. */
TEST(ud_build_matches_iblib_ud_build)
{
	static uint8_t payload[2100], a[UD_MAX_PKT], b[UD_MAX_PKT];

	test_srand(5);
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)test_rand();
	for (unsigned round = 0; round < 200; round++) {
		struct ud_pkt p = {
			.vl = (uint8_t)(test_rand() % 16), .sl = (uint8_t)(test_rand() % 16),
			.dlid = (uint16_t)test_rand(), .slid = (uint16_t)test_rand(),
			.pkey = (uint16_t)test_rand(), .dqpn = (uint32_t)test_rand() & 0xFFFFFF,
			.psn = (uint32_t)test_rand(), .qkey = (uint32_t)test_rand(),
			.sqpn = (uint32_t)test_rand() & 0xFFFFFF, .solicited = test_rand() & 1,
			.grh = test_rand() & 1, .tclass = (uint8_t)test_rand(),
			.flow_label = (uint32_t)test_rand() & 0xFFFFF, .hop_limit = (uint8_t)test_rand(),
			.payload = payload, .payload_len = round < 8 ? round : test_rand() % sizeof(payload),
		};
		for (int i = 0; i < 16; i++) {
			p.sgid[i] = (uint8_t)test_rand();
			p.dgid[i] = (uint8_t)test_rand();
		}
		struct iblib_lrh lrh = { .vl = p.vl, .sl = p.sl, .dlid = p.dlid, .slid = p.slid };
		struct iblib_grh grh = { .tclass = p.tclass, .flow_label = p.flow_label,
					 .hop_limit = p.hop_limit };
		struct iblib_bth bth = { .opcode = UD_OP_SEND_ONLY, .se = p.solicited, .pkey = p.pkey,
					 .dest_qp = p.dqpn, .psn = p.psn & 0xFFFFFF };
		struct iblib_deth deth = { .qkey = p.qkey, .src_qp = p.sqpn };

		memcpy(grh.sgid.raw, p.sgid, 16);
		memcpy(grh.dgid.raw, p.dgid, 16);
		int want = iblib_ud_build(b, sizeof(b), &lrh, p.grh ? &grh : NULL, &bth, &deth,
					  payload, p.payload_len);
		size_t got = ud_pkt_build(a, sizeof(a), &p);

		CHECK(want > 0);
		CHECK_EQ(got, (size_t)want);
		CHECK_MEM(a, b, got);
	}
}

/* SPDX-License-Identifier: MIT */
/* Unit tests: IPoIB header, link address, ARP (RFC 4391) and IPv4 classification. */
#include "test.h"
#include "ipoib_wire.h"

#include <errno.h>

static const uint8_t guid_gid[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				      0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x10, 0x01 };

TEST(ipoib_hdr_roundtrip_and_short)
{
	uint8_t b[4];
	const char *why = NULL;

	ipoib_hdr_build(b, IPOIB_ETHERTYPE_ARP);
	CHECK_EQ(b[0], 0x08);
	CHECK_EQ(b[1], 0x06);
	CHECK_EQ(b[2] | b[3], 0);
	CHECK_EQ(ipoib_hdr_parse(b, 4, &why), IPOIB_ETHERTYPE_ARP);
	CHECK_EQ(ipoib_hdr_parse(b, 3, &why), -EINVAL);
	CHECK(why != NULL);
	CHECK_EQ(ipoib_hdr_parse(NULL, 0, &why), -EINVAL);
}

TEST(ipoib_hwaddr_layout)
{
	struct ipoib_hwaddr a = { .flags = 0, .qpn = 0x000048 }, b;
	uint8_t raw[20];

	memcpy(a.gid, guid_gid, 16);
	ipoib_hwaddr_encode(raw, &a);
	CHECK_EQ(raw[0], 0);
	CHECK_EQ(raw[1], 0);
	CHECK_EQ(raw[2], 0);
	CHECK_EQ(raw[3], 0x48);
	CHECK_MEM(raw + 4, guid_gid, 16);
	ipoib_hwaddr_decode(raw, &b);
	CHECK(ipoib_hwaddr_equal(&a, &b));
	/* A QPN wider than 24 bits must not leak into the flags byte. */
	a.qpn = 0xAB123456;
	ipoib_hwaddr_encode(raw, &a);
	CHECK_EQ(raw[0], 0);
	ipoib_hwaddr_decode(raw, &b);
	CHECK_EQ(b.qpn, 0x123456);
	/* Flags (RFC 4755 capability bits) do not change identity. */
	raw[0] = 0x80;
	ipoib_hwaddr_decode(raw, &b);
	CHECK_EQ(b.flags, 0x80);
	a.qpn = 0x123456;
	CHECK(ipoib_hwaddr_equal(&a, &b));
}

TEST(ipoib_broadcast_address)
{
	static const uint8_t want[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
					  0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	uint8_t mgid[16];
	struct ipoib_hwaddr a;

	ipoib_broadcast_mgid(mgid, 0xffff);
	CHECK_MEM(mgid, want, 16);
	/* A limited-member P_Key still names the full-member group (RFC 4391 §4). */
	ipoib_broadcast_mgid(mgid, 0x7fff);
	CHECK_MEM(mgid, want, 16);
	ipoib_broadcast_mgid(mgid, 0x1234);
	CHECK_EQ(mgid[4], 0x92);
	CHECK_EQ(mgid[5], 0x34);
	ipoib_broadcast_hwaddr(&a, 0xffff);
	CHECK_EQ(a.qpn, IPOIB_QPN_MULTICAST);
	CHECK_MEM(a.gid, want, 16);
}

static void sample_arp(struct ipoib_arp *a)
{
	memset(a, 0, sizeof(*a));
	a->op = IPOIB_ARP_REQUEST;
	a->sha.qpn = 0x49;
	memcpy(a->sha.gid, guid_gid, 16);
	a->spa = 0xC6120032;   /* 198.18.0.50 */
	a->tpa = 0xC6120001;   /* 198.18.0.1 */
}

TEST(ipoib_arp_roundtrip)
{
	struct ipoib_arp a, b;
	uint8_t raw[IPOIB_ARP_LEN];
	const char *why = NULL;

	sample_arp(&a);
	ipoib_arp_build(raw, &a);
	CHECK_EQ(raw[0] << 8 | raw[1], 32);
	CHECK_EQ(raw[4], 20);
	CHECK_EQ(raw[5], 4);
	CHECK_EQ(raw[28], 198);
	CHECK_EQ(raw[55], 1);
	CHECK_EQ(ipoib_arp_parse(raw, sizeof raw, &b, &why), 0);
	CHECK_EQ(b.op, IPOIB_ARP_REQUEST);
	CHECK(ipoib_hwaddr_equal(&a.sha, &b.sha));
	CHECK_EQ(b.spa, a.spa);
	CHECK_EQ(b.tpa, a.tpa);
}

TEST(ipoib_arp_malformed)
{
	struct ipoib_arp a, out;
	uint8_t raw[IPOIB_ARP_LEN], bad[IPOIB_ARP_LEN];
	const char *why;

	sample_arp(&a);
	ipoib_arp_build(raw, &a);
	for (size_t n = 0; n < IPOIB_ARP_LEN; n++) {
		why = NULL;
		CHECK_EQ(ipoib_arp_parse(raw, n, &out, &why), -EINVAL);
		CHECK(why != NULL);
	}
	memcpy(bad, raw, sizeof bad);
	bad[1] = 1;   /* Ethernet ARP */
	CHECK_EQ(ipoib_arp_parse(bad, sizeof bad, &out, &why), -EPROTONOSUPPORT);
	memcpy(bad, raw, sizeof bad);
	bad[3] = 0xdd;   /* ptype 0x08dd */
	CHECK_EQ(ipoib_arp_parse(bad, sizeof bad, &out, &why), -EPROTONOSUPPORT);
	memcpy(bad, raw, sizeof bad);
	bad[4] = 6;
	CHECK_EQ(ipoib_arp_parse(bad, sizeof bad, &out, &why), -EINVAL);
	memcpy(bad, raw, sizeof bad);
	bad[7] = 3;   /* RARP request */
	CHECK_EQ(ipoib_arp_parse(bad, sizeof bad, &out, &why), -EOPNOTSUPP);
	/* Random garbage never crashes and only ever parses with the fixed fields right. */
	for (int i = 0; i < 2000; i++) {
		for (size_t j = 0; j < sizeof bad; j++)
			bad[j] = (uint8_t)test_rand();
		if (i & 1)
			memcpy(bad, raw, 6);
		int r = ipoib_arp_parse(bad, (size_t)(test_rand() % (sizeof bad + 1)), &out, &why);
		if (r == 0)
			CHECK(out.op == 1 || out.op == 2);
	}
}

TEST(ipv4_peek_checks_lengths)
{
	uint8_t ip[28] = { 0x45, 0, 0, 28, 0, 0, 0, 0, 64, 17, 0, 0,
			   198, 18, 0, 1, 255, 255, 255, 255 };
	uint32_t s = 0, d = 0;
	const char *why;

	CHECK_EQ(ipv4_peek(ip, sizeof ip, &s, &d, &why), 0);
	CHECK_EQ(s, 0xC6120001);
	CHECK_EQ(d, 0xFFFFFFFF);
	CHECK_EQ(ipv4_peek(ip, 19, &s, &d, &why), -EINVAL);
	CHECK_EQ(ipv4_peek(ip, 27, &s, &d, &why), -EINVAL);   /* total 28 > 27 */
	ip[0] = 0x60;
	CHECK_EQ(ipv4_peek(ip, sizeof ip, &s, &d, &why), -EPROTONOSUPPORT);
	ip[0] = 0x44;   /* IHL 16 bytes */
	CHECK_EQ(ipv4_peek(ip, sizeof ip, &s, &d, &why), -EINVAL);
	ip[0] = 0x4f;   /* IHL 60 > total 28 */
	CHECK_EQ(ipv4_peek(ip, sizeof ip, &s, &d, &why), -EINVAL);
}

TEST(ipv4_destination_classes)
{
	uint32_t me = 0xC6120001;

	CHECK_EQ(ipv4_dest_classify(0xFFFFFFFF, me, 24), IPV4_DEST_BROADCAST);
	CHECK_EQ(ipv4_dest_classify(0xC61200FF, me, 24), IPV4_DEST_BROADCAST);
	CHECK_EQ(ipv4_dest_classify(0xC61201FF, me, 24), IPV4_DEST_UNICAST);
	CHECK_EQ(ipv4_dest_classify(0xE0000001, me, 24), IPV4_DEST_MULTICAST);
	CHECK_EQ(ipv4_dest_classify(0xC6120032, me, 24), IPV4_DEST_UNICAST);
}

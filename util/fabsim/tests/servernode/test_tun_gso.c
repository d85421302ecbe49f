/* SPDX-License-Identifier: MIT */
/* tun_gso: TCP super-segments cut like a NIC's TSO, partial checksums completed, bad reads refused. */
#include "test.h"
#include "tun_gso.h"

#include <string.h>

#include <ibboot/wire/bytes.h>

struct seen {
	unsigned n;
	size_t len[64];
	uint8_t dgram[64][4096];
};

static void collect(void *ctx, const uint8_t *d, size_t len)
{
	struct seen *s = ctx;

	if (s->n < 64 && len <= sizeof(s->dgram[0])) {
		memcpy(s->dgram[s->n], d, len);
		s->len[s->n] = len;
	}
	s->n++;
}

/* RFC 1071, 16 bits at a time: the independent check. */
static uint32_t sum16(uint32_t s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)s;
}

static bool l4_ok(const uint8_t *ip, size_t len, uint8_t proto)
{
	size_t ihl = (ip[0] & 15u) * 4u;
	uint32_t s = sum16(0, ip + 12, 8) + proto + (uint32_t)(len - ihl);

	return fold(sum16(s, ip + ihl, len - ihl)) == 0xFFFF;
}

/* A TSO read: vnet header, IPv4 (ID 0x1234, DF) + TCP (seq 1000, ACK|PSH|FIN|CWR) + payload. */
static size_t super_segment(uint8_t *buf, size_t payload, uint16_t mss, uint8_t *data)
{
	uint8_t *ip = buf + TUN_VNET_HDR_LEN, *tcp = ip + 20;

	memset(buf, 0, TUN_VNET_HDR_LEN + 40);
	buf[0] = TUN_VNET_F_NEEDS_CSUM;
	buf[1] = TUN_VNET_GSO_TCPV4;
	buf[2] = 40;                        /* hdr_len, little-endian */
	buf[4] = (uint8_t)mss;
	buf[5] = (uint8_t)(mss >> 8);
	buf[6] = 20;                        /* csum_start */
	buf[8] = 16;                        /* csum_offset */
	ip[0] = 0x45;
	put_be16(ip + 2, (uint16_t)(40 + payload > 0xFFFF ? 0xFFFF : 40 + payload));
	put_be16(ip + 4, 0x1234);
	put_be16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 6;
	put_be32(ip + 12, 0xC6120001);
	put_be32(ip + 16, 0xC6120032);
	put_be16(tcp, 80);
	put_be16(tcp + 2, 49152);
	put_be32(tcp + 4, 1000);
	put_be32(tcp + 8, 77);
	tcp[12] = 5 << 4;
	tcp[13] = 0x80 | 0x10 | 0x08 | 0x01;   /* CWR ACK PSH FIN */
	put_be16(tcp + 14, 65535);
	put_be16(tcp + 16, 0xBEEF);             /* a partial sum the split must not trust */
	memcpy(tcp + 20, data, payload);
	return TUN_VNET_HDR_LEN + 40 + payload;
}

TEST(tso_read_is_cut_at_gso_size)
{
	static uint8_t buf[TUN_VNET_HDR_LEN + 65536], data[20000], joined[20000];
	static struct seen s;
	const char *why = "";
	size_t n = super_segment(buf, sizeof(data), 2004, data), got = 0;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 3);
	n = super_segment(buf, sizeof(data), 2004, data);
	memset(&s, 0, sizeof(s));
	CHECK_EQ(tun_gso_split(buf, n, collect, &s, &why), 10);
	CHECK_EQ(s.n, 10u);
	for (unsigned i = 0; i < s.n; i++) {
		const uint8_t *ip = s.dgram[i], *tcp = ip + 20;
		size_t dlen = i < 9 ? 2004 : sizeof(data) - 9 * 2004;

		CHECK_EQ(s.len[i], 40 + dlen);
		CHECK_EQ(get_be16(ip + 2), 40 + dlen);
		CHECK_EQ(get_be16(ip + 4), 0x1234 + i);
		CHECK_EQ(fold(sum16(0, ip, 20)), 0xFFFF);
		CHECK(l4_ok(ip, s.len[i], 6));
		CHECK_EQ(get_be32(tcp + 4), 1000 + i * 2004);
		CHECK_EQ(get_be32(tcp + 8), 77u);
		CHECK_EQ(tcp[13] & 0x09, i == 9 ? 0x09 : 0);      /* FIN, PSH: the last only */
		CHECK_EQ(tcp[13] & 0x80, i == 0 ? 0x80 : 0);      /* CWR: the first only */
		CHECK_EQ(tcp[13] & 0x10, 0x10);                   /* ACK: all */
		memcpy(joined + got, tcp + 20, dlen);
		got += dlen;
	}
	CHECK_EQ(got, sizeof(data));
	CHECK_MEM(joined, data, sizeof(data));
}

TEST(partial_checksums_are_completed)
{
	static uint8_t buf[TUN_VNET_HDR_LEN + 300];
	static struct seen s;
	uint8_t *ip = buf + TUN_VNET_HDR_LEN, *udp = ip + 20;
	const char *why = "";

	for (unsigned round = 0; round < 50; round++) {
		size_t plen = 1 + round * 5;

		memset(buf, 0, sizeof(buf));
		buf[0] = TUN_VNET_F_NEEDS_CSUM;
		buf[6] = 20;
		buf[8] = 6;
		ip[0] = 0x45;
		put_be16(ip + 2, (uint16_t)(28 + plen));
		ip[8] = 64;
		ip[9] = 17;
		put_be32(ip + 12, 0xC6120001);
		put_be32(ip + 16, 0xC6120000 + round);
		put_be16(ip + 10, (uint16_t)~fold(sum16(0, ip, 20)));
		put_be16(udp, 69);
		put_be16(udp + 2, (uint16_t)(1024 + round));
		put_be16(udp + 4, (uint16_t)(8 + plen));
		for (size_t i = 0; i < plen; i++)
			udp[8 + i] = (uint8_t)(round + i * 31);
		/* What the kernel leaves: the pseudo-header sum, folded, not inverted. */
		put_be16(udp + 6, fold(sum16(0, ip + 12, 8) + 17 + (uint32_t)(8 + plen)));
		memset(&s, 0, sizeof(s));
		/* trailing bytes after the datagram are not part of it */
		CHECK_EQ(tun_gso_split(buf, TUN_VNET_HDR_LEN + 28 + plen + 3, collect, &s, &why), 1);
		CHECK_EQ(s.len[0], 28 + plen);
		CHECK(l4_ok(s.dgram[0], s.len[0], 17));
		CHECK(get_be16(s.dgram[0] + 26) != 0);
	}
	/* No offload flags: passed as it is. */
	buf[0] = 0;
	memset(&s, 0, sizeof(s));
	CHECK_EQ(tun_gso_split(buf, TUN_VNET_HDR_LEN + get_be16(ip + 2), collect, &s, &why), 1);
	CHECK_MEM(s.dgram[0], ip, s.len[0]);
}

TEST(bad_reads_are_refused_whole)
{
	static uint8_t buf[TUN_VNET_HDR_LEN + 6000], data[6000];
	static struct seen s;
	const char *why = "";
	size_t n = super_segment(buf, 5000, 2004, data);

	memset(&s, 0, sizeof(s));
	CHECK_EQ(tun_gso_split(buf, 15, collect, &s, &why), -1);            /* too short */
	buf[TUN_VNET_HDR_LEN + 9] = 17;                                      /* TSO of UDP */
	CHECK_EQ(tun_gso_split(buf, n, collect, &s, &why), -1);
	buf[TUN_VNET_HDR_LEN + 9] = 6;
	buf[4] = buf[5] = 0;                                                 /* gso_size 0 */
	CHECK_EQ(tun_gso_split(buf, n, collect, &s, &why), -1);
	buf[4] = 0xD4;
	buf[5] = 0x07;
	buf[1] = 4;                                                          /* TCPv6 */
	CHECK_EQ(tun_gso_split(buf, n, collect, &s, &why), -1);
	buf[1] = TUN_VNET_GSO_TCPV4;
	put_be16(buf + TUN_VNET_HDR_LEN + 2, 6000);                          /* beyond the read */
	CHECK_EQ(tun_gso_split(buf, n, collect, &s, &why), -1);
	CHECK_EQ(s.n, 0u);
	CHECK(why[0] != 0);
	/* random reads never crash and never emit more than fits */
	test_srand(3);
	for (unsigned r = 0; r < 2000; r++) {
		size_t len = test_rand() % 200;

		for (size_t i = 0; i < len; i++)
			buf[i] = (uint8_t)test_rand();
		tun_gso_split(buf, len, collect, &s, &why);
	}
}

/* SPDX-License-Identifier: MIT */
/* Unit tests: the test client's UDP/DHCP/TFTP code (RFC 4390 request shape, parsers' bounds). */
#include "test.h"
#include "netboot_proto.h"

#include <errno.h>

TEST(udp_roundtrip_and_checksums)
{
	uint8_t d[100], payload[13] = "hello, world";
	struct udp_dgram u;
	const char *why;
	size_t n = udp_build(d, sizeof d, 0, 0xFFFFFFFF, 68, 67, payload, sizeof payload, 1);

	CHECK_EQ(n, 20 + 8 + 13);
	CHECK_EQ(udp_parse(d, n, &u, &why), 0);
	CHECK_EQ(u.sport, 68);
	CHECK_EQ(u.dport, 67);
	CHECK_EQ(u.len, 13);
	CHECK_MEM(u.data, payload, 13);
	d[30] ^= 1;
	CHECK_EQ(udp_parse(d, n, &u, &why), -EBADMSG);   /* UDP checksum */
	d[30] ^= 1;
	d[8] ^= 1;
	CHECK_EQ(udp_parse(d, n, &u, &why), -EBADMSG);   /* IPv4 header checksum */
	d[8] ^= 1;
	for (size_t l = 0; l < n; l++)
		CHECK(udp_parse(d, l, &u, &why) < 0);
}

TEST(dhcp_request_is_rfc4390_shaped)
{
	uint8_t b[600], clid[20];
	struct dhcp_msg m;
	const char *why;
	size_t cl = dhcp_ib_client_id(clid, 0x0002c90300d00011ull);
	size_t n = dhcp_build(b, sizeof b, DHCP_REQUEST, 0xabcdef01, clid, cl, 0xC6120032, 0xC6120001);

	CHECK_EQ(cl, 20);
	CHECK_EQ(clid[0], 0xff);
	CHECK_EQ(clid[19], 0x11);
	CHECK(n > 240);
	CHECK_EQ(dhcp_parse(b, n, &m, &why), 0);
	CHECK_EQ(m.htype, 32);
	CHECK_EQ(m.hlen, 0);
	CHECK_EQ(m.flags, 0x8000);
	CHECK_EQ(m.xid, 0xabcdef01);
	CHECK_EQ(m.msg_type, DHCP_REQUEST);
	CHECK_EQ(m.server_id, 0xC6120001);
	CHECK_EQ(m.client_id_len, 20);
	CHECK_MEM(m.client_id, clid, 20);
	for (size_t i = 28; i < 44; i++)
		CHECK_EQ(b[i], 0);   /* chaddr empty */
}

TEST(dhcp_parse_malformed)
{
	uint8_t b[600], clid[20];
	struct dhcp_msg m;
	const char *why;
	size_t n = dhcp_build(b, sizeof b, DHCP_DISCOVER, 1, clid, dhcp_ib_client_id(clid, 1), 0, 0);

	for (size_t l = 0; l < 244; l++)
		CHECK_EQ(dhcp_parse(b, l, &m, &why), -EINVAL);
	CHECK_EQ(dhcp_parse(b, n - 1, &m, &why), -EINVAL);   /* END missing */
	b[241] = 250;                                         /* option 53 length runs off the end */
	CHECK_EQ(dhcp_parse(b, n, &m, &why), -EINVAL);
	for (int i = 0; i < 3000; i++) {
		size_t l = 240 + (size_t)(test_rand() % 60);
		for (size_t j = 240; j < l; j++)
			b[j] = (uint8_t)test_rand();
		(void)dhcp_parse(b, l, &m, &why);
	}
}

TEST(tftp_messages)
{
	uint8_t b[100];
	struct tftp_msg m;
	const char *why;
	size_t n = tftp_build_rrq(b, sizeof b, "boot.bin", 2012);
	static const uint8_t want[] = "\0\1boot.bin\0octet\0blksize\0" "2012\0tsize\0" "0";

	CHECK_EQ(n, sizeof want);
	CHECK_MEM(b, want, sizeof want);
	static const uint8_t oack[] = "\0\6blksize\0" "2012\0tsize\0" "300000";
	CHECK_EQ(tftp_parse(oack, sizeof oack, &m, &why), 0);
	CHECK_EQ(m.opcode, TFTP_OACK);
	CHECK_EQ(m.blksize, 2012);
	CHECK_EQ(m.tsize, 300000);
	CHECK(tftp_parse(oack, sizeof oack - 1, &m, &why) < 0);   /* value not terminated */
	static const uint8_t err[] = "\0\5\0\1file not found";
	CHECK_EQ(tftp_parse(err, sizeof err, &m, &why), 0);
	CHECK_EQ(m.error_code, 1);
	CHECK_STR(m.error_msg, "file not found");
	CHECK(tftp_parse(err, sizeof err - 1, &m, &why) < 0);
	static const uint8_t data[] = { 0, 3, 0, 7, 'x' };
	CHECK_EQ(tftp_parse(data, sizeof data, &m, &why), 0);
	CHECK_EQ(m.block, 7);
	CHECK_EQ(m.len, 1);
	CHECK(tftp_parse(data, 3, &m, &why) < 0);
	CHECK_EQ(tftp_build_ack(b, 3, 1), 0);
}

TEST(tcp_roundtrip_mss_and_malformed)
{
	uint8_t d[200], payload[7] = "GET /\r";
	struct tcp_seg s = { .src = 0xC6120032, .dst = 0xC6120001, .sport = 50000, .dport = 80,
			     .seq = 0xfffffff0u, .ack = 7, .flags = TCP_SYN, .window = 65535, .mss = 2004 }, r;
	const char *why;
	size_t n = tcp_build(d, sizeof d, &s, 9);

	CHECK_EQ(n, 20 + 24);
	CHECK_EQ(tcp_parse(d, n, &r, &why), 0);
	CHECK_EQ(r.mss, 2004);
	CHECK_EQ(r.seq, 0xfffffff0u);
	CHECK_EQ(r.flags, TCP_SYN);
	CHECK_EQ(r.len, 0);
	s.mss = 0;
	s.flags = TCP_ACK | TCP_PSH;
	s.data = payload;
	s.len = sizeof payload;
	n = tcp_build(d, sizeof d, &s, 10);
	CHECK_EQ(tcp_parse(d, n, &r, &why), 0);
	CHECK_EQ(r.len, sizeof payload);
	CHECK_MEM(r.data, payload, sizeof payload);
	d[n - 1] ^= 0x40;
	CHECK_EQ(tcp_parse(d, n, &r, &why), -EBADMSG);
	d[n - 1] ^= 0x40;
	d[32] = 0xF0;   /* data offset 60 > segment */
	CHECK(tcp_parse(d, n, &r, &why) < 0);
	for (size_t l = 0; l < 40; l++)
		CHECK(tcp_parse(d, l, &r, &why) < 0);
	d[9] = 17;
	CHECK(tcp_parse(d, n, &r, &why) < 0);
}

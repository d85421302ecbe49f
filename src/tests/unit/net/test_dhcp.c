/* SPDX-License-Identifier: MIT */
/* UDP and the DHCP client against scripted servers on the software net device. */
#include "apps_test.h"

#include <ibboot/dns.h>
#include <ibboot/errno.h>

/* ---- helpers (declared in apps_test.h) ---- */

void dr_init(struct dhcp_reply *r, uint8_t type, uint32_t xid, uint32_t yiaddr, uint32_t siaddr,
	     uint32_t server_id)
{
	memset(r, 0, sizeof(*r));
	r->buf[0] = 2;
	r->buf[1] = 32;
	put_be32(r->buf + 4, xid);
	put_be16(r->buf + 10, 0x8000);
	put_be32(r->buf + 16, yiaddr);
	put_be32(r->buf + 20, siaddr);
	put_be32(r->buf + 236, DHCP_MAGIC);
	r->len = 240;
	if (type)
		dr_opt(r, 53, &type, 1);
	if (server_id)
		dr_opt32(r, 54, server_id);
}

void dr_opt(struct dhcp_reply *r, uint8_t code, const void *v, size_t len)
{
	r->buf[r->len++] = code;
	r->buf[r->len++] = (uint8_t)len;
	memcpy(r->buf + r->len, v, len);
	r->len += len;
}

void dr_opt32(struct dhcp_reply *r, uint8_t code, uint32_t v)
{
	uint8_t b[4];

	put_be32(b, v);
	dr_opt(r, code, b, 4);
}

void dr_end(struct dhcp_reply *r)
{
	r->buf[r->len++] = 255;
}

const uint8_t *dhcp_find_opt(const uint8_t *msg, size_t msg_len, uint8_t code, size_t *len)
{
	size_t i = 240;

	while (i + 1 < msg_len && msg[i] != 255) {
		if (msg[i] == 0) {
			i++;
			continue;
		}
		if (msg[i] == code && i + 2 + msg[i + 1] <= msg_len) {
			*len = msg[i + 1];
			return msg + i + 2;
		}
		i += 2u + msg[i + 1];
	}
	return NULL;
}

/* ---- UDP ---- */

static unsigned udp_rx_count;
static uint16_t udp_rx_sport;
static uint8_t udp_rx_data[64];

static void count_rx(struct udp_socket *s, uint32_t src, uint16_t sport, const uint8_t *d,
		     size_t len)
{
	(void)s;
	(void)src;
	udp_rx_count++;
	udp_rx_sport = sport;
	memcpy(udp_rx_data, d, len < sizeof(udp_rx_data) ? len : sizeof(udp_rx_data));
}

TEST(udp_checksum_known_vector)
{
	/* 10.0.0.1:1234 -> 10.0.0.2:80, "hi": pseudo header sums to 0x141e, the datagram to 0x6d95;
	 * ~(0x141e + 0x6d95) = 0x7e4c (RFC 768 + RFC 1071). */
	uint8_t d[10] = { 0x04, 0xd2, 0x00, 0x50, 0x00, 0x0a, 0, 0, 'h', 'i' };
	struct udp_datagram u;
	const char *why;

	put_be16(d + 6, udp_checksum(IP(10, 0, 0, 1), IP(10, 0, 0, 2), d, sizeof(d)));
	CHECK_EQ(get_be16(d + 6), 0x7e4c);
	CHECK_EQ(udp_parse(d, sizeof(d), IP(10, 0, 0, 1), IP(10, 0, 0, 2), &u, &why), 0);
	CHECK_EQ(u.payload_len, 2);
	d[9] ^= 1;
	CHECK_EQ(udp_parse(d, sizeof(d), IP(10, 0, 0, 1), IP(10, 0, 0, 2), &u, &why), -EINVAL);
	CHECK_STR(why, "bad UDP checksum");
	/* zero = no checksum (RFC 768) is accepted as is */
	put_be16(d + 6, 0);
	CHECK_EQ(udp_parse(d, sizeof(d), IP(10, 0, 0, 1), IP(10, 0, 0, 2), &u, &why), 0);
	CHECK(!u.had_checksum);
	/* a length field longer than the IP payload */
	put_be16(d + 4, 11);
	CHECK_EQ(udp_parse(d, sizeof(d), IP(10, 0, 0, 1), IP(10, 0, 0, 2), &u, &why), -EINVAL);
	CHECK_EQ(udp_parse(d, 7, 0, 0, &u, &why), -EINVAL);
	/* bytes after the UDP length (link padding) are not payload */
	{
		uint8_t pad[14] = { 0x04, 0xd2, 0x00, 0x50, 0x00, 0x0a, 0, 0, 'h', 'i', 0, 0, 0, 0 };

		CHECK_EQ(udp_parse(pad, sizeof(pad), 0, 0, &u, &why), 0);
		CHECK_EQ(u.payload_len, 2);
	}
}

TEST(udp_demux_ports_and_checksums)
{
	struct udp_socket a = { 0 }, b = { 0 }, c = { 0 };
	const struct udp_stats *st = udp_get_stats(&fake_nd);
	unsigned bad0 = st->rx_bad, noport0 = st->rx_no_port;

	fake_net_setup(NULL, NULL);
	fake_nd.ip_addr = IP(198, 18, 0, 60);
	CHECK_EQ(udp_open(&a, &fake_nd, 4000, count_rx, NULL), 0);
	CHECK_EQ(udp_open(&b, &fake_nd, 4000, count_rx, NULL), -EBUSY);
	CHECK_EQ(udp_open(&b, &fake_nd, 0, count_rx, NULL), 0);
	CHECK_EQ(udp_open(&c, &fake_nd, 0, count_rx, NULL), 0);
	CHECK(b.local_port >= UDP_EPHEMERAL_FIRST && c.local_port >= UDP_EPHEMERAL_FIRST);
	CHECK(b.local_port != c.local_port);

	udp_rx_count = 0;
	fake_net_inject_udp(SRV, 777, fake_nd.ip_addr, 4000, "ok", 2, false);
	CHECK_EQ(udp_rx_count, 1);
	CHECK_EQ(udp_rx_sport, 777);
	CHECK_MEM(udp_rx_data, "ok", 2);
	fake_net_inject_udp(SRV, 777, fake_nd.ip_addr, 4000, "ok", 2, true);
	CHECK_EQ(udp_rx_count, 1);
	CHECK_EQ(st->rx_bad, bad0 + 1);
	fake_net_inject_udp(SRV, 777, fake_nd.ip_addr, 4001, "ok", 2, false);
	CHECK_EQ(udp_rx_count, 1);
	CHECK_EQ(st->rx_no_port, noport0 + 1);

	/* sending: checksummed (fake_net counts bad ones), too big refused */
	CHECK_EQ(udp_sendto(&a, SRV, 9, "x", 1), 0);
	{
		static uint8_t big[2100];

		CHECK_EQ(udp_sendto(&a, SRV, 9, big, 2044 - 28 + 1), -ERANGE);
		CHECK_EQ(udp_sendto(&a, SRV, 9, big, 2044 - 28), 0);
	}
	net_poll();
	CHECK_EQ(fake_tx_bad, 0);
	CHECK_EQ(fake_log_count, 2);
	CHECK_EQ(fake_log[0].sport, 4000);
	CHECK_EQ(fake_log[0].src, IP(198, 18, 0, 60));
	udp_close(&a);
	udp_close(&b);
	udp_close(&c);
	udp_rx_count = 0;
	fake_net_inject_udp(SRV, 777, fake_nd.ip_addr, 4000, "ok", 2, false);
	CHECK_EQ(udp_rx_count, 0);
	fake_net_teardown();
}

/* ---- DHCP parser ---- */

TEST(dhcp_parse_good_reply)
{
	struct dhcp_reply r;
	struct dhcp_msg m;
	const char *why = NULL;
	uint8_t dns[8];

	dr_init(&r, DHCPACK, 0x1234, IP(198, 18, 0, 60), SRV, SRV);
	dr_opt32(&r, 1, 0xffffff00);
	dr_opt32(&r, 3, SRV);
	put_be32(dns, SRV);
	put_be32(dns + 4, SRV2);
	dr_opt(&r, 6, dns, 8);
	dr_opt(&r, 12, "node1", 5);
	dr_opt(&r, 67, "boot.bin\0", 9);   /* NUL-terminated */
	dr_opt32(&r, 51, 3600);
	dr_end(&r);
	CHECK_EQ(dhcp_parse(r.buf, r.len, &m, &why), 0);
	CHECK_EQ(m.msg_type, DHCPACK);
	CHECK_EQ(m.xid, 0x1234);
	CHECK_EQ(m.yiaddr, IP(198, 18, 0, 60));
	CHECK_EQ(m.netmask, 0xffffff00);
	CHECK_EQ(m.router, SRV);
	CHECK_EQ(m.n_dns, 2);
	CHECK_EQ(m.dns[1], SRV2);
	CHECK_STR(m.hostname, "node1");
	CHECK_STR(m.bootfile, "boot.bin");
	CHECK_EQ(m.lease_s, 3600);
}

TEST(dhcp_parse_bootfile_forms)
{
	struct dhcp_reply r;
	struct dhcp_msg m;

	/* option 67 without a NUL wins over the file field */
	dr_init(&r, DHCPOFFER, 1, IP(198, 18, 0, 60), 0, SRV);
	memcpy(r.buf + 108, "from-file-field", 15);
	dr_opt(&r, 67, "pxelinux.0", 10);
	dr_end(&r);
	CHECK_EQ(dhcp_parse(r.buf, r.len, &m, NULL), 0);
	CHECK_STR(m.bootfile, "pxelinux.0");
	/* only the file field */
	dr_init(&r, DHCPOFFER, 1, IP(198, 18, 0, 60), 0, SRV);
	memcpy(r.buf + 108, "from-file-field", 15);
	dr_end(&r);
	CHECK_EQ(dhcp_parse(r.buf, r.len, &m, NULL), 0);
	CHECK_STR(m.bootfile, "from-file-field");
	/* a file field filled to the last byte without NUL */
	memset(r.buf + 108, 'a', 128);
	CHECK_EQ(dhcp_parse(r.buf, r.len, &m, NULL), 0);
	CHECK_EQ(strlen(m.bootfile), 128);
}

/* Option 175 sub-option 112, the boot file's SHA-256 (hex text or 32 bytes), reaches the
 * setting filename-sha256 next to filename; any other form fails closed ("bad"). */
TEST(dhcp_parse_boot_file_pin)
{
	static const char hex[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
	struct dhcp_reply r;
	struct dhcp_msg m;
	struct dhcp_lease l;
	uint8_t enc[2 + 64 + 3], bin[2 + 32];
	char v[80];

	enc[0] = 1, enc[1] = 1, enc[2] = 0;   /* iPXE's priority first: skipped */
	enc[3] = 112, enc[4] = 64;
	memcpy(enc + 5, hex, 64);
	dr_init(&r, DHCPACK, 1, IP(198, 18, 0, 60), SRV, SRV);
	dr_opt(&r, 67, "boot.ipxe", 9);
	dr_opt(&r, 175, enc, 69);
	dr_end(&r);
	CHECK_EQ(dhcp_parse(r.buf, r.len, &m, NULL), 0);
	CHECK_STR(m.file_sha256, hex);
	bin[0] = 112, bin[1] = 32;
	for (int i = 0; i < 32; i++)
		bin[2 + i] = (uint8_t)(i % 16 * 0x11);
	dr_init(&r, DHCPACK, 1, IP(198, 18, 0, 60), SRV, SRV);
	dr_opt(&r, 175, bin, 34);
	dr_end(&r);
	CHECK_EQ(dhcp_parse(r.buf, r.len, &m, NULL), 0);
	CHECK_STR(m.file_sha256, "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff");
	bin[1] = 31;   /* neither form */
	dr_init(&r, DHCPACK, 1, IP(198, 18, 0, 60), SRV, SRV);
	dr_opt(&r, 175, bin, 33);
	dr_end(&r);
	CHECK_EQ(dhcp_parse(r.buf, r.len, &m, NULL), 0);
	CHECK_STR(m.file_sha256, "bad");
	bin[1] = 40;   /* runs past the option: ignored, the message still parses */
	dr_init(&r, DHCPACK, 1, IP(198, 18, 0, 60), SRV, SRV);
	dr_opt(&r, 175, bin, 34);
	dr_end(&r);
	CHECK_EQ(dhcp_parse(r.buf, r.len, &m, NULL), 0);
	CHECK_STR(m.file_sha256, "");

	memset(&l, 0, sizeof(l));
	memcpy(l.filename, "boot.ipxe", 10);
	memcpy(l.filename_sha256, hex, 65);
	dhcp_lease_to_settings(&fake_nd, &l);
	CHECK(setting_get("filename-sha256", v, sizeof(v)) == 64 && !strcmp(v, hex));
	l.filename_sha256[0] = '\0';   /* a later lease without a pin clears it */
	dhcp_lease_to_settings(&fake_nd, &l);
	CHECK_EQ(setting_get("filename-sha256", v, sizeof(v)), -ENOENT);
}

TEST(dhcp_parse_overload)
{
	struct dhcp_reply r;
	struct dhcp_msg m;
	uint8_t *file, *sname, ov = 3;

	dr_init(&r, DHCPOFFER, 1, IP(198, 18, 0, 60), 0, SRV);
	dr_opt(&r, 52, &ov, 1);
	dr_end(&r);
	file = r.buf + 108;
	sname = r.buf + 44;
	/* RFC 2132 §9.3: the file field holds options (boot file), sname too (host name) */
	file[0] = 67; file[1] = 6; memcpy(file + 2, "k.efi\0", 6); file[8] = 255;
	sname[0] = 12; sname[1] = 4; memcpy(sname + 2, "node", 4); sname[6] = 255;
	CHECK_EQ(dhcp_parse(r.buf, r.len, &m, NULL), 0);
	CHECK_EQ(m.overload, 3);
	CHECK_STR(m.bootfile, "k.efi");
	CHECK_STR(m.hostname, "node");
	/* an overload option inside the file field is ignored: no loop, no re-parse */
	memset(file, 0, 128);
	file[0] = 52; file[1] = 1; file[2] = 1; file[3] = 255;
	CHECK_EQ(dhcp_parse(r.buf, r.len, &m, NULL), 0);
	CHECK_STR(m.bootfile, "");   /* the file field held options, so it is not a name */
	/* a lying length inside the file field is reported with its place */
	file[0] = 67; file[1] = 200;
	{
		const char *why = NULL;

		CHECK_EQ(dhcp_parse(r.buf, r.len, &m, &why), -EINVAL);
		CHECK(why && strstr(why, "option 67 at byte 0 of file"));
		CHECK(why && strstr(why, "left"));
	}
}

TEST(dhcp_parse_concatenates_split_options)
{
	struct dhcp_reply r;
	struct dhcp_msg m;
	uint8_t ov = 1, *file;

	/* RFC 3396: option 67 in two parts, the second in the overloaded file field; DNS servers
	 * in two instances; a second netmask instance is not believed */
	dr_init(&r, DHCPOFFER, 1, IP(198, 18, 0, 60), 0, SRV);
	dr_opt(&r, 52, &ov, 1);
	dr_opt(&r, 67, "images/", 7);
	dr_opt32(&r, 6, SRV);
	dr_opt32(&r, 1, 0xffffff00);
	dr_opt32(&r, 1, 0xffff0000);
	dr_opt32(&r, 6, SRV2);
	dr_end(&r);
	file = r.buf + 108;
	file[0] = 67; file[1] = 9; memcpy(file + 2, "boot.bin\0", 9); file[11] = 255;
	CHECK_EQ(dhcp_parse(r.buf, r.len, &m, NULL), 0);
	CHECK_STR(m.bootfile, "images/boot.bin");
	CHECK_EQ(m.n_dns, 2);
	CHECK_EQ(m.dns[1], SRV2);
	CHECK_EQ(m.netmask, 0xffffff00);
}

TEST(dhcp_parse_malformed)
{
	struct dhcp_reply r;
	struct dhcp_msg m;
	const char *why = NULL;

	dr_init(&r, DHCPOFFER, 1, IP(198, 18, 0, 60), 0, SRV);
	dr_end(&r);
	CHECK_EQ(dhcp_parse(r.buf, 239, &m, &why), -EINVAL);          /* no cookie room */
	CHECK(why && strstr(why, "shorter"));
	r.buf[236] ^= 1;
	CHECK_EQ(dhcp_parse(r.buf, r.len, &m, &why), -EINVAL);        /* bad cookie */
	CHECK(why && strstr(why, "cookie"));
	r.buf[236] ^= 1;

	/* truncated: option code as the last byte, no length */
	dr_init(&r, DHCPOFFER, 1, IP(198, 18, 0, 60), 0, SRV);
	r.buf[r.len++] = 3;
	CHECK_EQ(dhcp_parse(r.buf, r.len, &m, &why), -EINVAL);
	CHECK(why && strstr(why, "no length byte"));
	/* lying length */
	dr_init(&r, DHCPOFFER, 1, IP(198, 18, 0, 60), 0, SRV);
	r.buf[r.len++] = 12;
	r.buf[r.len++] = 50;
	memcpy(r.buf + r.len, "abc", 3);
	r.len += 3;
	CHECK_EQ(dhcp_parse(r.buf, r.len, &m, &why), -EINVAL);
	CHECK(why && strstr(why, "option 12") && strstr(why, "length 50 > 3 left"));
	/* wrong sizes for fixed-size options */
	dr_init(&r, DHCPOFFER, 1, IP(198, 18, 0, 60), 0, SRV);
	dr_opt(&r, 3, "abcdef", 6);
	dr_end(&r);
	CHECK_EQ(dhcp_parse(r.buf, r.len, &m, &why), -EINVAL);
	CHECK(why && strstr(why, "multiple of 4"));
	dr_init(&r, 0, 1, IP(198, 18, 0, 60), 0, SRV);
	dr_opt(&r, 53, "\x02\x02", 2);
	dr_end(&r);
	CHECK_EQ(dhcp_parse(r.buf, r.len, &m, &why), -EINVAL);
	dr_init(&r, 0, 1, IP(198, 18, 0, 60), 0, SRV);
	dr_opt(&r, 52, "\x07", 1);
	dr_end(&r);
	CHECK_EQ(dhcp_parse(r.buf, r.len, &m, &why), -EINVAL);
	CHECK(why && strstr(why, "overload"));
	r.buf[0] = 9;
	CHECK_EQ(dhcp_parse(r.buf, r.len, &m, &why), -EINVAL);
}

/* ---- DHCP client against a scripted server ---- */

struct dhcp_srv {
	unsigned discovers, requests;
	uint32_t last_xid, xids[16];
	uint8_t client_id[64];
	size_t client_id_len;
	uint32_t req_ip, req_server;
	bool bad_request;
	/* behaviour */
	uint32_t offer_ip;
	unsigned drop_discovers;     /* ignore the first n DISCOVERs */
	unsigned nak_requests;       /* NAK the first n REQUESTs */
	bool second_server;          /* SRV2 also offers (after SRV), and ACKs too */
	bool proxy_first;            /* a proxy offer (yiaddr 0) arrives first */
	bool wrong_xid_first;        /* a reply with another xid arrives first */
	bool malformed_first;        /* a truncated reply arrives first */
	bool silent;                 /* never answers */
	bool no_siaddr, opt66, no_bootfile;
};

static void srv_reply(struct dhcp_srv *s, uint8_t type, uint32_t xid, uint32_t server)
{
	struct dhcp_reply r;

	dr_init(&r, type, xid, type == DHCPNAK ? 0 : s->offer_ip + (server == SRV2 ? 1 : 0),
		s->no_siaddr ? 0 : server, server);
	if (type != DHCPNAK) {
		dr_opt32(&r, 1, 0xffffff00);
		dr_opt32(&r, 3, SRV);
		dr_opt32(&r, 6, SRV);
		dr_opt32(&r, 51, 3600);
		if (!s->no_bootfile)
			dr_opt(&r, 67, "boot.bin", 8);
		if (s->opt66)
			dr_opt(&r, 66, "198.18.0.9", 10);
	} else {
		dr_opt(&r, 56, "address in use", 14);
	}
	dr_end(&r);
	fake_net_inject_udp(server, 67, IPV4_BROADCAST, 68, r.buf, r.len, false);
}

static void dhcp_server(const struct fake_pkt *p, void *ctx)
{
	struct dhcp_srv *s = ctx;
	const uint8_t *o;
	size_t ol;
	uint8_t type;
	static const uint8_t zero[16];

	if (p->dport != 67)
		return;
	/* RFC 4390 / 2131 request shape */
	if (p->sport != 68 || p->src != 0 || p->dst != IPV4_BROADCAST ||
	    !(p->flags & NET_TX_BROADCAST) || p->len < 300 || p->payload[0] != 1 ||
	    p->payload[1] != 32 || p->payload[2] != 0 ||
	    get_be16(p->payload + 10) != 0x8000 || memcmp(p->payload + 28, zero, 16))
		s->bad_request = true;
	o = dhcp_find_opt(p->payload, p->len, 61, &ol);
	if (!o) {
		s->bad_request = true;
		return;
	}
	memcpy(s->client_id, o, ol);
	s->client_id_len = ol;
	o = dhcp_find_opt(p->payload, p->len, 53, &ol);
	if (!o || ol != 1)
		return;
	type = o[0];
	s->last_xid = get_be32(p->payload + 4);
	if (type == DHCPDISCOVER) {
		s->xids[s->discovers % 16] = s->last_xid;
		if (s->discovers++ < s->drop_discovers || s->silent)
			return;
		if (s->malformed_first) {
			struct dhcp_reply r;

			dr_init(&r, DHCPOFFER, s->last_xid, s->offer_ip, SRV, SRV);
			r.buf[r.len++] = 67;
			r.buf[r.len++] = 200;   /* lies */
			fake_net_inject_udp(SRV, 67, IPV4_BROADCAST, 68, r.buf, r.len, false);
		}
		if (s->wrong_xid_first)
			srv_reply(s, DHCPOFFER, s->last_xid ^ 1, SRV);
		if (s->proxy_first) {
			struct dhcp_reply r;

			dr_init(&r, DHCPOFFER, s->last_xid, 0, SRV2, SRV2);
			dr_opt(&r, 60, "PXEClient", 9);
			dr_opt(&r, 67, "proxy.efi", 9);
			dr_end(&r);
			fake_net_inject_udp(SRV2, 67, IPV4_BROADCAST, 68, r.buf, r.len, false);
		}
		srv_reply(s, DHCPOFFER, s->last_xid, SRV);
		if (s->second_server)
			srv_reply(s, DHCPOFFER, s->last_xid, SRV2);
	} else if (type == DHCPREQUEST) {
		s->requests++;
		o = dhcp_find_opt(p->payload, p->len, 50, &ol);
		s->req_ip = o && ol == 4 ? get_be32(o) : 0;
		o = dhcp_find_opt(p->payload, p->len, 54, &ol);
		s->req_server = o && ol == 4 ? get_be32(o) : 0;
		if (s->nak_requests) {
			s->nak_requests--;
			srv_reply(s, DHCPNAK, s->last_xid, SRV);
			return;
		}
		if (s->second_server)   /* the server not chosen must not be believed */
			srv_reply(s, DHCPACK, s->last_xid, SRV2);
		srv_reply(s, DHCPACK, s->last_xid, s->req_server);
	}
}

static int run_dhcp(struct dhcp_srv *s, enum dhcp_client_id_form form, struct dhcp_lease *l)
{
	struct dhcp_config cfg;
	int rc;

	dhcp_config_default(&cfg);
	cfg.client_id_form = form;
	if (!s->offer_ip)
		s->offer_ip = IP(198, 18, 0, 60);
	fake_net_setup(dhcp_server, s);
	test_console_clear();
	rc = dhcp_run(&fake_nd, &cfg, l);
	fake_net_teardown();
	return rc;
}

static const uint8_t guid[8] = { 0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x10, 0x01 };

TEST(dhcp_lease_flexboot_client_id)
{
	static const uint8_t want[20] = { 0xff, 0, 0, 0, 0, 0, 2, 0, 0, 2, 0xc9, 0,
					  0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x10, 0x01 };
	struct dhcp_srv s = { 0 };
	struct dhcp_lease l;
	char buf[64];

	CHECK_EQ(run_dhcp(&s, DHCP_CLIENT_ID_FLEXBOOT, &l), 0);
	CHECK(!s.bad_request);
	CHECK_EQ(s.client_id_len, 20);
	CHECK_MEM(s.client_id, want, 20);
	CHECK_EQ(s.discovers, 1);
	CHECK_EQ(s.requests, 1);
	CHECK_EQ(s.req_ip, IP(198, 18, 0, 60));
	CHECK_EQ(s.req_server, SRV);
	CHECK_EQ(l.ip, IP(198, 18, 0, 60));
	CHECK_EQ(l.netmask, 0xffffff00);
	CHECK_EQ(l.gateway, SRV);
	CHECK_EQ(l.next_server, SRV);
	CHECK_STR(l.filename, "boot.bin");
	CHECK_EQ(fake_nd.ip_addr, IP(198, 18, 0, 60));
	CHECK_EQ(fake_nd.gateway, SRV);
	CHECK(setting_get("ip", buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "198.18.0.60");
	CHECK(setting_get("filename", buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "boot.bin");
	CHECK(setting_get("next-server", buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "198.18.0.1");
	CHECK(test_console_has("DHCP lease 198.18.0.60"));
}

TEST(dhcp_lease_ib_hwtype_client_id)
{
	struct dhcp_srv s = { 0 };
	struct dhcp_lease l;

	CHECK_EQ(run_dhcp(&s, DHCP_CLIENT_ID_HWTYPE_IB, &l), 0);
	CHECK_EQ(s.client_id_len, 9);
	CHECK_EQ(s.client_id[0], 0x20);
	CHECK_MEM(s.client_id + 1, guid, 8);
}

TEST(dhcp_next_server_sources)
{
	struct dhcp_srv s = { 0 };
	struct dhcp_lease l;

	s.no_siaddr = true;
	s.opt66 = true;
	CHECK_EQ(run_dhcp(&s, DHCP_CLIENT_ID_FLEXBOOT, &l), 0);
	CHECK_EQ(l.next_server, IP(198, 18, 0, 9));
	memset(&s, 0, sizeof(s));
	s.no_siaddr = true;
	CHECK_EQ(run_dhcp(&s, DHCP_CLIENT_ID_FLEXBOOT, &l), 0);
	CHECK_EQ(l.next_server, SRV);   /* option 54 */
}

TEST(dhcp_retransmits_with_backoff)
{
	struct dhcp_srv s = { 0 };
	struct dhcp_lease l;
	uint64_t t[4];

	s.drop_discovers = 3;
	CHECK_EQ(run_dhcp(&s, DHCP_CLIENT_ID_FLEXBOOT, &l), 0);
	CHECK_EQ(s.discovers, 4);
	for (unsigned i = 0; i < 4; i++)
		t[i] = fake_log[i].when_ms;
	/* 1 s, 2 s, 4 s, each ±25 % (RFC 2131 §4.1 randomisation), on the hand-moved clock (it
	 * steps 1 ms per reading, hence the 100 ms of slack; the ranges still cannot overlap) */
	CHECK(t[1] - t[0] >= 750 && t[1] - t[0] <= 1350);
	CHECK(t[2] - t[1] >= 1500 && t[2] - t[1] <= 2600);
	CHECK(t[3] - t[2] >= 3000 && t[3] - t[2] <= 5100);
	/* one transaction: the same xid throughout */
	CHECK_EQ(s.xids[0], s.xids[3]);
}

TEST(dhcp_gives_up_with_a_clear_message)
{
	struct dhcp_srv s = { 0 };
	struct dhcp_lease l;

	s.silent = true;
	CHECK_EQ(run_dhcp(&s, DHCP_CLIENT_ID_FLEXBOOT, &l), -ETIMEDOUT);
	CHECK(test_console_has("no DHCP offer on ib0 after 30 s"));
	CHECK(test_console_has("no DHCP offer yet (1"));   /* progress at ~15 s */
	/* 1+2+4+8+8+8 s fits 30 s: the total is bounded, retransmissions are not endless */
	CHECK(s.discovers >= 5 && s.discovers <= 8);
	if (s.discovers < 5 || s.discovers > 8)
		fprintf(stderr, "  %u DISCOVERs\n", s.discovers);
	CHECK_EQ(fake_nd.ip_addr, 0);
}

TEST(dhcp_first_offer_wins_duplicates_ignored)
{
	struct dhcp_srv s = { 0 };
	struct dhcp_lease l;

	s.second_server = true;
	CHECK_EQ(run_dhcp(&s, DHCP_CLIENT_ID_FLEXBOOT, &l), 0);
	CHECK_EQ(s.requests, 1);
	CHECK_EQ(s.req_server, SRV);
	CHECK_EQ(l.ip, IP(198, 18, 0, 60));   /* not SRV2's .61 ACK */
	CHECK_EQ(l.server_id, SRV);
}

TEST(dhcp_proxy_and_foreign_replies_ignored)
{
	struct dhcp_srv s = { 0 };
	struct dhcp_lease l;

	s.proxy_first = true;
	s.wrong_xid_first = true;
	s.malformed_first = true;
	CHECK_EQ(run_dhcp(&s, DHCP_CLIENT_ID_FLEXBOOT, &l), 0);
	CHECK_EQ(l.ip, IP(198, 18, 0, 60));
	CHECK_EQ(s.requests, 1);
	CHECK(test_console_has("no address, boot file"));
	CHECK_STR(l.filename, "boot.bin");   /* the lease's own file wins over the proxy's */
	CHECK(test_console_has("bad DHCP reply from 198.18.0.1 ignored: option 67"));
}

TEST(dhcp_nak_restarts_discovery)
{
	struct dhcp_srv s = { 0 };
	struct dhcp_lease l;

	s.nak_requests = 1;
	CHECK_EQ(run_dhcp(&s, DHCP_CLIENT_ID_FLEXBOOT, &l), 0);
	CHECK_EQ(s.discovers, 2);
	CHECK_EQ(s.requests, 2);
	CHECK(s.xids[0] != s.xids[1]);   /* a new transaction after NAK */
	CHECK(test_console_has("DHCPNAK from 198.18.0.1: address in use"));
	memset(&s, 0, sizeof(s));
	s.nak_requests = 100;
	CHECK_EQ(run_dhcp(&s, DHCP_CLIENT_ID_FLEXBOOT, &l), -EPERM);
	CHECK(test_console_has("DHCPNAK 4 times: check"));
	CHECK_EQ(s.requests, 4);   /* max_naks 3 restarts, then stop */
}

TEST(settings_table)
{
	char buf[8];

	CHECK_EQ(setting_set("test-key", "v1"), 0);
	CHECK_EQ(setting_get("test-key", buf, sizeof(buf)), 2);
	CHECK_STR(buf, "v1");
	CHECK_EQ(setting_set("test-key", "longer value"), 0);
	CHECK_EQ(setting_get("test-key", buf, sizeof(buf)), -ERANGE);
	CHECK_EQ(setting_set("test-key", NULL), 0);
	CHECK_EQ(setting_get("test-key", buf, sizeof(buf)), -ENOENT);
	CHECK_EQ(setting_set("a-name-that-is-far-too-long-for-the-table", "x"), -ERANGE);
}

TEST(dhcp_console_command)
{
	struct dhcp_srv s = { 0 };

	s.offer_ip = IP(198, 18, 0, 70);
	fake_net_setup(dhcp_server, &s);
	test_console_clear();
	CHECK_EQ(run_apps_command("dhcp client-id=ib"), 0);
	CHECK_EQ(s.client_id_len, 9);
	CHECK_EQ(fake_nd.ip_addr, IP(198, 18, 0, 70));
	CHECK(test_console_has("client-id 20:00:02:c9:03:00:00:10:01"));
	CHECK_EQ(run_apps_command("dhcp client-id=01:02:03"), 0);
	CHECK_EQ(s.client_id_len, 3);
	CHECK_MEM(s.client_id, "\x01\x02\x03", 3);
	CHECK_EQ(run_apps_command("dhcp client-id=zz"), -EINVAL);
	CHECK_EQ(run_apps_command("dhcp ib7"), -ENODEV);
	fake_nd.link_up = false;
	CHECK_EQ(run_apps_command("dhcp"), -EIO);   /* after waiting for the link (30 s) */
	CHECK(test_console_has("no link after 30 s"));
	CHECK(test_console_has("ib0 has no link"));
	fake_net_teardown();
}

TEST(dhcp_proxy_offer_supplies_a_missing_boot_file)
{
	struct dhcp_srv s = { 0 };
	struct dhcp_lease l;
	char buf[32];

	s.proxy_first = true;
	s.no_bootfile = true;
	CHECK_EQ(run_dhcp(&s, DHCP_CLIENT_ID_FLEXBOOT, &l), 0);
	CHECK_EQ(l.ip, IP(198, 18, 0, 60));
	CHECK_STR(l.filename, "proxy.efi");
	CHECK_EQ(l.next_server, SRV2);
	CHECK(setting_get("hwaddr", buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "00:02:c9:03:00:00:10:01");
}

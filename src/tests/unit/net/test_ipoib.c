/* SPDX-License-Identifier: MIT */
/*
 * IPoIB, ARP, IPv4 and ICMP over the fake device. ib0 runs on port 1; a test "peer" (a raw UD QP
 * on port 2, member of the broadcast group, 198.18.0.1) answers ARP and records what it gets.
 */
#include "test.h"
#include "ib_fixture.h"

#include <ibboot/errno.h>
#include <ibboot/dhcp.h>
#include <ibboot/net_commands.h>
#include <ibboot/ib_sa.h>
#include <ibboot/ib_ulp.h>
#include <ibboot/ipoib.h>
#include <ibboot/ipv4.h>
#include <ibboot/byteorder.h>
#include <stdlib.h>

#define PEER_IP  0xc6120001u   /* 198.18.0.1 */
#define OUR_IP   0xc6120002u   /* 198.18.0.2 */
#define MAX_LOG  32

struct peer {
	struct ib_qp *qp;
	struct ib_cq *cq;
	struct ib_mcast_group *g;
	bool answer_arp, answer_ping;
	unsigned n;
	struct {
		uint8_t data[4096];
		size_t len;
		uint32_t src_qpn;
		uint16_t slid;
	} log[MAX_LOG];
};
static struct peer peer;

static void peer_send(const uint8_t *data, size_t len, uint32_t qpn, uint16_t lid)
{
	struct ib_address_vector av = { .qpn = qpn, .qkey = peer.qp->qkey, .lid = lid };
	struct ib_buf *b = ib_send_buf_get(peer.qp);

	if (!b)
		return;
	memcpy(b->va, data, len);
	(void)ib_post_send(peer.qp, &av, b, len, NULL);
}

static size_t peer_arp(uint8_t *pkt, uint16_t op, uint32_t tpa, const uint8_t *tha)
{
	struct ipoib_arp arp = { .op = op, .spa = PEER_IP, .tpa = tpa };

	ipoib_addr_make(arp.sha, peer.qp->qpn, &peer.qp->port->gid);
	if (tha)
		memcpy(arp.tha, tha, IPOIB_ALEN);
	put_be16(pkt, ETHERTYPE_ARP);
	put_be16(pkt + 2, 0);
	ipoib_arp_build(pkt + 4, IPOIB_ARP_LEN, &arp);
	return 4 + IPOIB_ARP_LEN;
}

static void peer_recv(struct ib_qp *qp, const struct ib_wc *wc, const uint8_t *grh, uint8_t *data,
		      size_t len)
{
	struct ipoib_arp arp;

	(void)qp;
	(void)grh;
	if (peer.n < MAX_LOG && len <= sizeof(peer.log[0].data)) {
		memcpy(peer.log[peer.n].data, data, len);
		peer.log[peer.n].len = len;
		peer.log[peer.n].src_qpn = wc->src_qpn;
		peer.log[peer.n].slid = wc->slid;
		peer.n++;
	}
	if (peer.answer_arp && len >= 4 && get_be16(data) == ETHERTYPE_ARP &&
	    ipoib_arp_parse(data + 4, len - 4, &arp, NULL) == 0 && arp.op == ARP_OP_REQUEST &&
	    arp.tpa == PEER_IP) {
		uint8_t pkt[64];
		size_t n = peer_arp(pkt, ARP_OP_REPLY, arp.spa, arp.sha);

		peer_send(pkt, n, ipoib_addr_qpn(arp.sha), wc->slid);
	}
	if (peer.answer_ping && len >= 4 + 28 && len <= 2048 && get_be16(data) == ETHERTYPE_IPV4 &&
	    data[4 + 9] == IP_PROTO_ICMP && data[4 + 20] == ICMP_ECHO_REQUEST &&
	    get_be32(data + 4 + 16) == PEER_IP) {
		/* an independent little responder: swap addresses, type 0, fix both checksums */
		uint8_t r[2048];
		uint8_t *h = r + 4, *icmp = r + 24;
		size_t total = get_be16(data + 4 + 2);

		memcpy(r, data, len);
		memcpy(h + 12, data + 4 + 16, 4);
		memcpy(h + 16, data + 4 + 12, 4);
		h[10] = h[11] = 0;
		put_be16(h + 10, ip_checksum(h, 20));
		icmp[0] = ICMP_ECHO_REPLY;
		icmp[2] = icmp[3] = 0;
		put_be16(icmp + 2, ip_checksum(icmp, total - 20));
		peer_send(r, 4 + total, wc->src_qpn, wc->slid);
	}
}

static const struct ib_qp_owner_ops peer_owner = { .recv = peer_recv };

static void both_ports(struct fake_ibdev *f)
{
	f->port[1].state = IB_PORT_ACTIVE;
	f->port[1].phys_state = 5;
}

static struct net_device *ib0(void);

static struct fake_ibdev *setup(void (*tweak)(struct fake_ibdev *f))
{
	struct fake_ibdev *f = fx_setup(tweak ? tweak : both_ports);
	struct ib_qp_config cfg = {
		.type = IB_QPT_UD, .qkey = 0x0b1b, .send_wqes = 16, .recv_wqes = 16,
		.recv_payload = 4096, .send_bufs = 16, .send_buf_size = 4096,
		.owner = &peer_owner,
	};
	union ib_gid mgid;

	if (!f)
		return NULL;
	memset(&peer, 0, sizeof(peer));
	peer.answer_arp = true;
	ipoib_init();
	ib_poll();
	peer.cq = ib_create_cq(&f->dev, 64);
	cfg.send_cq = cfg.recv_cq = peer.cq;
	peer.qp = ib_create_qp(&f->dev.port[1], &cfg);
	ib_ipv4_broadcast_mgid(&mgid, 0xffff);
	peer.g = ib_sa_join(&f->dev.port[1], &mgid, peer.qp, NULL, NULL);
	ib_poll();
	icmp_reset_stats(ib0());
	return f;
}

static void teardown(struct fake_ibdev *f)
{
	ipoib_exit();
	fx_teardown(f);
}

static struct net_device *ib0(void)
{
	return netdev_find("ib0");
}

/* Finds the n-th logged packet with this ethertype; NULL if none. */
static const uint8_t *peer_find(uint16_t type, unsigned nth, size_t *len)
{
	for (unsigned i = 0; i < peer.n; i++) {
		if (peer.log[i].len >= 4 && get_be16(peer.log[i].data) == type && nth-- == 0) {
			*len = peer.log[i].len;
			return peer.log[i].data;
		}
	}
	return NULL;
}

/* ---- tests ---- */

TEST(ipoib_link_up_after_broadcast_join)
{
	struct fake_ibdev *f = setup(NULL);
	struct ipoib *ip = ipoib_instance();
	uint8_t expect[IPOIB_ALEN];

	if (!f)
		return;
	CHECK(ib0() != NULL);
	CHECK(ip->port == &f->dev.port[0]);
	CHECK(ib0()->link_up);
	CHECK_EQ(ib0()->mtu, 2044);
	CHECK_EQ(ip->qp->qkey, 0x0b1b);
	CHECK_EQ(ip->bcast_av.lid, 0xc000);
	CHECK_EQ(ip->bcast_av.qpn, IB_MCAST_QPN);
	ipoib_addr_make(expect, ip->qp->qpn, &f->dev.port[0].gid);
	CHECK_MEM(ib0()->ll_addr, expect, IPOIB_ALEN);
	CHECK_EQ(expect[0], 0);
	CHECK_EQ(ipoib_addr_qpn(expect), ip->qp->qpn);
	CHECK(test_console_has("ib0: link up on fake0 port 1, 4X QDR (40 Gb/s): MTU 2044, "
			       "broadcast MLID 0xc000, Q_Key 0x00000b1b (1000 ms after start)"));
	teardown(f);
}

static void group_4k(struct fake_ibdev *f)
{
	both_ports(f);
	f->group_mtu = IB_MTU_4096;
}

TEST(ipoib_mtu_4092_when_the_group_allows_4k)
{
	struct fake_ibdev *f = setup(group_4k);

	if (!f)
		return;
	CHECK_EQ(ib0()->mtu, 4092);
	teardown(f);
}

TEST(ipoib_arp_request_bytes_and_first_packet_is_queued)
{
	struct fake_ibdev *f = setup(NULL);
	const uint8_t *p;
	size_t len = 0;

	if (!f)
		return;
	peer.answer_arp = false;
	CHECK_EQ(ipv4_configure(ib0(), OUR_IP, 0xffffff00u, 0), 0);
	CHECK_EQ(icmp_send_echo(ib0(), PEER_IP, 7, 1, 32), 0);
	ib_poll();
	p = peer_find(ETHERTYPE_ARP, 0, &len);
	CHECK(p != NULL);
	if (!p)
		goto out;
	CHECK_EQ(len, 4 + 56);
	/* IPoIB header: type 0x0806, reserved 0 */
	CHECK_EQ(get_be16(p), 0x0806);
	CHECK_EQ(get_be16(p + 2), 0);
	p += 4;
	CHECK_EQ(get_be16(p), 32);       /* htype InfiniBand */
	CHECK_EQ(get_be16(p + 2), 0x0800);
	CHECK_EQ(p[4], 20);                    /* hlen */
	CHECK_EQ(p[5], 4);
	CHECK_EQ(get_be16(p + 6), 1);    /* request */
	CHECK_MEM(p + 8, ib0()->ll_addr, 20);
	CHECK_EQ(get_be32(p + 28), OUR_IP);
	CHECK_EQ(get_be32(p + 52), PEER_IP);
	CHECK_EQ(ipoib_instance()->stats.queued, 1);   /* the echo request waits, not dropped */
	CHECK(peer_find(ETHERTYPE_IPV4, 0, &len) == NULL);
	/* no reply: five more requests 500 ms apart, then the queued packet is dropped */
	fx_run(450, 50);
	CHECK(peer_find(ETHERTYPE_ARP, 1, &len) == NULL);
	fx_run(100, 50);
	CHECK(peer_find(ETHERTYPE_ARP, 1, &len) != NULL);
	fx_run(2000, 50);
	CHECK(peer_find(ETHERTYPE_ARP, 5, &len) != NULL);
	CHECK(!test_console_has("cannot reach"));
	fx_run(500, 50);
	CHECK(test_console_has("ib0: cannot reach 198.18.0.1: no ARP reply (6 requests, 3 s)"));
	CHECK(peer_find(ETHERTYPE_ARP, 6, &len) == NULL);
	CHECK_EQ(ib0()->stats.tx_dropped, 1);
	CHECK_EQ(ipoib_instance()->qp->send_free_mask, 0xffffu);   /* every buffer came back */
out:
	teardown(f);
}

TEST(ipoib_arp_reply_then_path_then_queued_echo_goes_out)
{
	struct fake_ibdev *f = setup(NULL);
	const uint8_t *p;
	size_t len = 0;
	struct ipv4_packet ip;
	struct icmp_echo e;

	if (!f)
		return;
	ipv4_configure(ib0(), OUR_IP, 0xffffff00u, 0);
	CHECK_EQ(icmp_send_echo(ib0(), PEER_IP, 7, 1, 32), 0);
	ib_poll();   /* ARP request out, peer's reply in */
	ib_poll();   /* reply processed: PathRecord query out and answered */
	ib_poll();   /* path known: the queued echo request goes out */
	ib_poll();
	CHECK_EQ(f->n_path_queries, 1);
	p = peer_find(ETHERTYPE_IPV4, 0, &len);
	CHECK(p != NULL);
	if (!p)
		goto out;
	CHECK_EQ(ipv4_parse(p + 4, len - 4, &ip, NULL), 0);
	CHECK_EQ(ip.src, OUR_IP);
	CHECK_EQ(ip.dst, PEER_IP);
	CHECK_EQ(ip.proto, IP_PROTO_ICMP);
	CHECK_EQ(icmp_parse(ip.payload, ip.payload_len, &e, NULL), 0);
	CHECK_EQ(e.type, ICMP_ECHO_REQUEST);
	CHECK_EQ(e.id, 7);
	CHECK_EQ(e.seq, 1);
	CHECK_EQ(e.data_len, 32);
	/* the second echo uses the cached neighbour and path: no new ARP or SA query */
	CHECK_EQ(icmp_send_echo(ib0(), PEER_IP, 7, 2, 32), 0);
	ib_poll();
	CHECK(peer_find(ETHERTYPE_IPV4, 1, &len) != NULL);
	CHECK(peer_find(ETHERTYPE_ARP, 1, &len) == NULL);
	CHECK_EQ(f->n_path_queries, 1);
out:
	teardown(f);
}

/* The peer pings us; we must answer with a correct echo reply. */
TEST(ipoib_icmp_echo_reply_bytes_and_checksums)
{
	struct fake_ibdev *f = setup(NULL);
	struct ipoib *ipo = ipoib_instance();
	uint8_t pkt[4 + 20 + 8 + 40];
	uint8_t *iph = pkt + 4, *icmp = pkt + 24;
	const uint8_t *p;
	size_t len = 0;
	struct ipv4_packet ip;
	struct icmp_echo e;

	if (!f)
		return;
	ipv4_configure(ib0(), OUR_IP, 0xffffff00u, 0);
	memset(pkt, 0, sizeof(pkt));
	test_ipoib_ipv4(pkt, 20 + 8 + 40, 0, IP_PROTO_ICMP, PEER_IP, OUR_IP);
	icmp[0] = ICMP_ECHO_REQUEST;
	put_be16(icmp + 4, 0x1234);
	put_be16(icmp + 6, 0x0042);
	for (int i = 0; i < 40; i++)
		icmp[8 + i] = (uint8_t)(i * 7);
	put_be16(icmp + 2, ip_checksum(icmp, 48));
	peer_send(pkt, sizeof(pkt), ipo->qp->qpn, 0x11);
	for (int i = 0; i < 6; i++)
		ib_poll();
	CHECK_EQ(icmp_get_stats(ib0())->echo_requests_in, 1);
	CHECK_EQ(icmp_get_stats(ib0())->echo_replies_out, 1);
	p = peer_find(ETHERTYPE_IPV4, 0, &len);
	CHECK(p != NULL);
	if (!p)
		goto out;
	CHECK_EQ(len, sizeof(pkt));
	CHECK_EQ(ip_checksum(p + 4, 20), 0);           /* IPv4 header checksum verifies */
	CHECK_EQ(ipv4_parse(p + 4, len - 4, &ip, NULL), 0);
	CHECK_EQ(ip.src, OUR_IP);
	CHECK_EQ(ip.dst, PEER_IP);
	CHECK_EQ(ip_checksum(ip.payload, ip.payload_len), 0);   /* ICMP checksum verifies */
	CHECK_EQ(icmp_parse(ip.payload, ip.payload_len, &e, NULL), 0);
	CHECK_EQ(e.type, ICMP_ECHO_REPLY);
	CHECK_EQ(e.code, 0);
	CHECK_EQ(e.id, 0x1234);
	CHECK_EQ(e.seq, 0x0042);
	CHECK_MEM(e.data, icmp + 8, 40);
	/* a reply to our own request is counted */
	iph[0] = 0x45;
	icmp[0] = ICMP_ECHO_REPLY;
	put_be16(icmp + 2, 0);
	put_be16(icmp + 2, ip_checksum(icmp, 48));
	peer_send(pkt, sizeof(pkt), ipo->qp->qpn, 0x11);
	ib_poll();
	ib_poll();
	CHECK_EQ(icmp_get_stats(ib0())->echo_replies_in, 1);
	CHECK_EQ(icmp_get_stats(ib0())->last_reply_seq, 0x42);
out:
	teardown(f);
}

TEST(ipoib_answers_arp_request_for_its_address)
{
	struct fake_ibdev *f = setup(NULL);
	struct ipoib_arp arp;
	uint8_t pkt[64];
	const uint8_t *p;
	size_t n, len = 0;

	if (!f)
		return;
	ipv4_configure(ib0(), OUR_IP, 0xffffff00u, 0);
	n = peer_arp(pkt, ARP_OP_REQUEST, OUR_IP, NULL);
	peer_send(pkt, n, IB_MCAST_QPN, 0xc000);
	for (int i = 0; i < 5; i++)
		ib_poll();
	p = peer_find(ETHERTYPE_ARP, 0, &len);
	CHECK(p != NULL);
	if (!p)
		goto out;
	CHECK_EQ(ipoib_arp_parse(p + 4, len - 4, &arp, NULL), 0);
	CHECK_EQ(arp.op, ARP_OP_REPLY);
	CHECK_MEM(arp.sha, ib0()->ll_addr, 20);
	CHECK_EQ(arp.spa, OUR_IP);
	CHECK_EQ(arp.tpa, PEER_IP);
	CHECK_EQ(ipoib_addr_qpn(arp.tha), peer.qp->qpn);
	CHECK_MEM(arp.tha + 4, f->dev.port[1].gid.raw, 16);
	/* a request for someone else is not answered */
	peer.n = 0;
	n = peer_arp(pkt, ARP_OP_REQUEST, 0xc6120063u, NULL);
	peer_send(pkt, n, IB_MCAST_QPN, 0xc000);
	for (int i = 0; i < 5; i++)
		ib_poll();
	CHECK(peer_find(ETHERTYPE_ARP, 0, &len) == NULL);
out:
	teardown(f);
}

TEST(ipoib_rereg_flushes_neighbours_and_traffic_resumes)
{
	struct fake_ibdev *f = setup(NULL);
	size_t len;

	if (!f)
		return;
	ipv4_configure(ib0(), OUR_IP, 0xffffff00u, 0);
	icmp_send_echo(ib0(), PEER_IP, 1, 1, 8);
	for (int i = 0; i < 5; i++)
		ib_poll();
	CHECK(peer_find(ETHERTYPE_IPV4, 0, &len) != NULL);
	fake_ibdev_port_event(f, 1, IB_EVENT_PORT_MGMT, IB_MGMT_CLIENT_REREG);
	for (int i = 0; i < 3; i++)
		ib_poll();
	CHECK(ib0()->link_up);                 /* rejoined */
	CHECK_EQ(f->n_mc_joins, 3);            /* ib0 twice + the peer once */
	peer.n = 0;
	icmp_send_echo(ib0(), PEER_IP, 1, 2, 8);
	for (int i = 0; i < 5; i++)
		ib_poll();
	CHECK(peer_find(ETHERTYPE_ARP, 0, &len) != NULL);   /* neighbour was forgotten */
	CHECK(peer_find(ETHERTYPE_IPV4, 0, &len) != NULL);
	CHECK_EQ(f->n_path_queries, 2);
	teardown(f);
}

TEST(ipoib_link_down_when_port_goes_down)
{
	struct fake_ibdev *f = setup(NULL);

	if (!f)
		return;
	CHECK(ib0()->link_up);
	f->port[0].state = IB_PORT_DOWN;
	fake_ibdev_port_event(f, 1, IB_EVENT_PORT_CHANGE, 0);
	ib_poll();
	/* port 2 is ACTIVE too: IPoIB moves there */
	ib_poll();
	CHECK(ipoib_instance()->port == &f->dev.port[1]);
	CHECK(ib0()->link_up);
	CHECK(test_console_has("ib0: link up on fake0 port 2"));
	teardown(f);
}

TEST(ipoib_drops_malformed_and_own_packets)
{
	struct fake_ibdev *f = setup(NULL);
	struct ipoib *ipo = ipoib_instance();
	uint8_t pkt[64] = { 0x08, 0x06 };

	if (!f)
		return;
	peer_send(pkt, 2, ipo->qp->qpn, 0x11);                 /* shorter than the header */
	peer_send(pkt, 30, ipo->qp->qpn, 0x11);                /* truncated ARP */
	ib_poll();
	ib_poll();
	CHECK_EQ(ipo->stats.rx_bad, 1);
	CHECK_EQ(ipo->stats.arp_bad, 1);
	teardown(f);
}

/* ---- parsers ---- */

TEST(ipoib_parsers_reject_malformed_input)
{
	uint8_t a[64] = { 0 };
	struct ipoib_arp arp = { .op = ARP_OP_REQUEST, .spa = 1, .tpa = 2 };
	const char *why = NULL;
	uint16_t type;

	CHECK_EQ(ipoib_parse_header(a, 3, &type, &why), -EINVAL);
	CHECK(why != NULL);
	CHECK_EQ(ipoib_arp_build(a, 55, &arp), -ERANGE);
	CHECK_EQ(ipoib_arp_build(a, sizeof(a), &arp), 56);
	CHECK_EQ(ipoib_arp_parse(a, 56, &arp, &why), 0);
	CHECK_EQ(ipoib_arp_parse(a, 55, &arp, &why), -EINVAL);
	CHECK_STR(why, "shorter than an IPoIB ARP packet (56 bytes)");
	a[1] = 1;                                  /* Ethernet htype */
	CHECK_EQ(ipoib_arp_parse(a, 56, &arp, &why), -EINVAL);
	CHECK_STR(why, "ARP hardware type is not InfiniBand (32)");
	a[1] = 32;
	a[4] = 6;                                  /* Ethernet hlen */
	CHECK_EQ(ipoib_arp_parse(a, 56, &arp, &why), -EINVAL);
	CHECK_STR(why, "ARP hardware address length is not 20");
	a[4] = 20;
	a[7] = 3;                                  /* RARP op */
	CHECK_EQ(ipoib_arp_parse(a, 56, &arp, &why), -EINVAL);
	a[7] = 1;
	a[3] = 0xdd;                               /* IPv6 ethertype */
	CHECK_EQ(ipoib_arp_parse(a, 56, &arp, &why), -EINVAL);
}

TEST(ipv4_parser_rejects_malformed_input)
{
	uint8_t h[28] = { 0x45, 0, 0, 28, 0, 1, 0, 0, 64, 1 };
	struct ipv4_packet ip;
	const char *why;

	put_be32(h + 12, PEER_IP);
	put_be32(h + 16, OUR_IP);
	put_be16(h + 10, ip_checksum(h, 20));
	CHECK_EQ(ipv4_parse(h, 28, &ip, &why), 0);
	CHECK_EQ(ip.payload_len, 8);
	CHECK_EQ(ipv4_parse(h, 19, &ip, &why), -EINVAL);
	CHECK_EQ(ipv4_parse(h, 27, &ip, &why), -EINVAL);        /* total length beyond the buffer */
	CHECK_STR(why, "bad total length");
	h[0] = 0x46;                                            /* IHL 6, checksum now wrong */
	CHECK_EQ(ipv4_parse(h, 28, &ip, &why), -EINVAL);
	h[0] = 0x4f;                                            /* IHL 60 > buffer */
	CHECK_EQ(ipv4_parse(h, 28, &ip, &why), -EINVAL);
	CHECK_STR(why, "bad header length");
	h[0] = 0x65;
	CHECK_EQ(ipv4_parse(h, 28, &ip, &why), -EINVAL);
	CHECK_STR(why, "not IPv4");
	h[0] = 0x45;
	h[6] = 0x20;                                            /* MF */
	put_be16(h + 10, 0);
	put_be16(h + 10, ip_checksum(h, 20));
	CHECK_EQ(ipv4_parse(h, 28, &ip, &why), -ENOTSUP);
	h[6] = 0x40;                                            /* DF only: fine */
	put_be16(h + 10, 0);
	put_be16(h + 10, ip_checksum(h, 20));
	CHECK_EQ(ipv4_parse(h, 28, &ip, &why), 0);
	h[8] ^= 1;                                              /* corrupt: checksum fails */
	CHECK_EQ(ipv4_parse(h, 28, &ip, &why), -EINVAL);
	CHECK_STR(why, "bad header checksum");
}

TEST(icmp_parser_and_checksum)
{
	/* RFC 1071 example: 0001 f203 f4f5 f6f7 sums to ddf2, checksum 220d */
	static const uint8_t rfc[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
	uint8_t m[9] = { 8, 0, 0, 0, 0, 1, 0, 2, 0xab };
	struct icmp_echo e;
	const char *why;

	CHECK_EQ(ip_checksum(rfc, sizeof(rfc)), 0x220d);
	put_be16(m + 2, ip_checksum(m, sizeof(m)));   /* odd length */
	CHECK_EQ(icmp_parse(m, sizeof(m), &e, &why), 0);
	CHECK_EQ(e.seq, 2);
	CHECK_EQ(e.data_len, 1);
	CHECK_EQ(icmp_parse(m, 7, &e, &why), -EINVAL);
	m[8] ^= 0x10;
	CHECK_EQ(icmp_parse(m, sizeof(m), &e, &why), -EINVAL);
	CHECK_STR(why, "bad ICMP checksum");
}

TEST(ipv4_address_text)
{
	uint32_t a = 0;
	char buf[16];

	CHECK_EQ(ipv4_aton("198.18.0.2", &a), 0);
	CHECK_EQ(a, OUR_IP);
	CHECK_STR(ipv4_ntoa(a, buf), "198.18.0.2");
	CHECK_EQ(ipv4_aton("198.18.0", &a), -EINVAL);
	CHECK_EQ(ipv4_aton("198.18.0.256", &a), -EINVAL);
	CHECK_EQ(ipv4_aton("198.18.0.2x", &a), -EINVAL);
	CHECK_EQ(ipv4_aton("1..2.3", &a), -EINVAL);
}

TEST(ib_broadcast_mgid_from_pkey)
{
	static const uint8_t expect[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
					    0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	union ib_gid g;

	ib_ipv4_broadcast_mgid(&g, 0xffff);
	CHECK_MEM(g.raw, expect, 16);
	ib_ipv4_broadcast_mgid(&g, 0x7fff);       /* limited member: full bit is set anyway */
	CHECK_MEM(g.raw, expect, 16);
	ib_ipv4_broadcast_mgid(&g, 0x8001);
	CHECK_EQ(g.raw[4], 0x80);
	CHECK_EQ(g.raw[5], 0x01);
}

/* ---- console commands ---- */

#include <ibboot/net_commands.h>
#include <ibboot/shell.h>

/* Linked in from the firmware library (src/cmd/net_cmd.c, ib_cmd.c). */
SHELL_REQUIRE_COMMAND(ipconfig);
SHELL_REQUIRE_COMMAND(ping);
SHELL_REQUIRE_COMMAND(ibstat);

static int run_cmd(const char *name, int argc, char **argv)
{
	const struct shell_command *c = shell_find_command(name);

	return c ? c->run(argc, argv) : -ENOENT;
}

TEST(net_commands_ipconfig_ping_ibstat)
{
	struct fake_ibdev *f = setup(NULL);
	char a0[] = "ipconfig", a1[] = "198.18.0.2/24", a2[] = "198.18.0.1";
	char p0[] = "ping", p1[] = "198.18.0.1", p2[] = "2";
	char bad[] = "198.18.0.2/33";
	char *ipc[] = { a0, a1, a2 }, *ping[] = { p0, p1, p2 }, *ipbad[] = { a0, bad };

	if (!f)
		return;
	CHECK_EQ(run_cmd("ipconfig", 2, ipbad), -EINVAL);
	CHECK_EQ(run_cmd("ipconfig", 3, ipc), 0);
	CHECK_EQ(ib0()->ip_addr, OUR_IP);
	CHECK_EQ(ib0()->netmask, 0xffffff00u);
	CHECK_EQ(ib0()->gateway, PEER_IP);
	test_clock_autostep = 1;
	test_console_clear();
	/* a silent peer: ping times out after ARP + path + two requests */
	CHECK_EQ(run_cmd("ping", 3, ping), -ETIMEDOUT);
	CHECK(test_console_has("ping 198.18.0.1: 2 sent, 0 received"));
	CHECK(peer_find(ETHERTYPE_IPV4, 1, &(size_t){ 0 }) != NULL);
	/* a peer that answers */
	peer.answer_ping = true;
	test_console_clear();
	CHECK_EQ(run_cmd("ping", 3, ping), 0);
	CHECK(test_console_has("ping 198.18.0.1: 64 bytes, icmp_seq=1 time="));
	CHECK(test_console_has("ping 198.18.0.1: 2 sent, 2 received"));
	test_clock_autostep = 0;
	test_console_clear();
	CHECK_EQ(run_cmd("ibstat", 1, ping), 0);
	CHECK(test_console_has("fake0 port 1: ACTIVE (LinkUp) (in use)\n"
			       "  LID 0x0011  LMC 0  SM LID 0x0001  SM SL 0\n"
			       "  GID fe80:0000:0000:0000:0002:c903:0000:1001\n"
			       "  P_Key 0xffff  rate 4X QDR (40 Gb/s)  MTU 2048 (cap 4096)\n"));
	CHECK(test_console_has("fake0 port 2: ACTIVE (LinkUp)\n"));
	teardown(f);
}

TEST(ib_catastrophic_error_stops_the_device_and_takes_ib0_down)
{
	struct fake_ibdev *f = setup(NULL);
	unsigned mads;

	if (!f)
		return;
	CHECK(ib0()->link_up);
	f->events[f->n_events++] = (struct ib_event){ .type = IB_EVENT_CATASTROPHIC,
						       .syndrome = 0x3 };
	ib_poll();
	CHECK(test_console_has("fake0: catastrophic error (syndrome 0x3): run fwdump, then reset the HCA"));
	CHECK(f->dev.dead);
	CHECK(!ib0()->link_up);
	CHECK(ib_active_port() == NULL);       /* port 2 of a dead device is not chosen either */
	CHECK(!test_console_has("ib0: link up on fake0 port 2"));
	mads = f->n_mad_ifc;
	fx_run(10000, 100);
	CHECK_EQ(f->n_mad_ifc, mads);          /* nothing touches the dead adapter any more */
	teardown(f);
}

/* The peer "reboots" with a new QPN: the periodic probe learns it and traffic follows. */
TEST(ipoib_neighbour_follows_a_peer_that_changed_qpn)
{
	struct fake_ibdev *f = setup(NULL);
	struct ib_qp_config cfg = {
		.type = IB_QPT_UD, .qkey = 0x0b1b, .send_wqes = 16, .recv_wqes = 16,
		.recv_payload = 4096, .send_bufs = 16, .send_buf_size = 4096,
		.owner = &peer_owner,
	};
	struct ipoib_neigh *n;
	uint32_t old_qpn;
	size_t len;

	if (!f)
		return;
	ipv4_configure(ib0(), OUR_IP, 0xffffff00u, 0);
	icmp_send_echo(ib0(), PEER_IP, 1, 1, 8);
	for (int i = 0; i < 5; i++)
		ib_poll();
	n = &ipoib_instance()->neigh[0];
	CHECK_EQ(n->state, NEIGH_VALID);
	old_qpn = ipoib_addr_qpn(n->hwaddr);
	CHECK_EQ(old_qpn, peer.qp->qpn);
	/* new QP for the peer (same port, same GID), the old one is gone */
	ib_sa_leave(peer.g);
	ib_destroy_qp(peer.qp);
	cfg.send_cq = cfg.recv_cq = peer.cq;
	peer.qp = ib_create_qp(&f->dev.port[1], &cfg);
	{
		union ib_gid mgid;

		ib_ipv4_broadcast_mgid(&mgid, 0xffff);
		peer.g = ib_sa_join(&f->dev.port[1], &mgid, peer.qp, NULL, NULL);
	}
	ib_poll();
	CHECK(peer.qp->qpn != old_qpn);
	fx_run(IPOIB_NEIGH_PROBE_MS + 500, 500);   /* the probe goes out and is answered */
	for (int i = 0; i < 4; i++)
		ib_poll();
	CHECK_EQ(ipoib_addr_qpn(n->hwaddr), peer.qp->qpn);
	peer.n = 0;
	icmp_send_echo(ib0(), PEER_IP, 1, 2, 8);
	for (int i = 0; i < 4; i++)
		ib_poll();
	CHECK(peer_find(ETHERTYPE_IPV4, 0, &len) != NULL);
	teardown(f);
}

TEST(ipoib_send_error_rebuilds_the_qp_and_traffic_resumes)
{
	struct fake_ibdev *f = setup(NULL);
	uint32_t old_qpn;
	size_t len;

	if (!f)
		return;
	ipv4_configure(ib0(), OUR_IP, 0xffffff00u, 0);
	icmp_send_echo(ib0(), PEER_IP, 1, 1, 8);
	for (int i = 0; i < 5; i++)
		net_poll();
	CHECK(peer_find(ETHERTYPE_IPV4, 0, &len) != NULL);
	old_qpn = ipoib_instance()->qp->qpn;
	f->send_error = IB_WC_LOC_QP_OP_ERR;     /* the next WQE fails */
	icmp_send_echo(ib0(), PEER_IP, 1, 2, 8);
	for (int i = 0; i < 4; i++)
		net_poll();
	CHECK(test_console_has("send WQE"));
	CHECK(test_console_has("ib0: a send failed; restarting on fake0 port 1"));
	CHECK_EQ(ipoib_instance()->stats.restarts, 1);
	CHECK(ipoib_instance()->qp->qpn != old_qpn);
	CHECK(ib0()->link_up);
	peer.n = 0;
	icmp_send_echo(ib0(), PEER_IP, 1, 3, 8);
	for (int i = 0; i < 6; i++)
		net_poll();
	CHECK(peer_find(ETHERTYPE_IPV4, 0, &len) != NULL);   /* re-resolved and delivered */
	teardown(f);
}

TEST(ipv4_configure_rejects_nonsense)
{
	struct fake_ibdev *f = setup(NULL);

	if (!f)
		return;
	CHECK_EQ(ipv4_configure(ib0(), 0, 0xffffff00u, 0), -EINVAL);
	CHECK_EQ(ipv4_configure(ib0(), IPV4_BROADCAST, 0xffffff00u, 0), -EINVAL);
	CHECK_EQ(ipv4_configure(ib0(), OUR_IP, 0xff00ff00u, 0), -EINVAL);   /* not contiguous */
	CHECK_EQ(ib0()->ip_addr, 0);                                          /* state intact */
	CHECK_EQ(ipv4_configure(ib0(), OUR_IP, 0xfffffffcu, 0), 0);
	/* off-subnet without a gateway: a clear error, the buffer goes back */
	CHECK_EQ(icmp_send_echo(ib0(), 0x08080808u, 1, 1, 8), -ENOENT);
	CHECK(test_console_has("ib0: no route to 8.8.8.8 (no gateway)"));
	CHECK_EQ(ipoib_instance()->qp->send_free_mask, 0xffffu);
	/* larger than the MTU: refused, not fragmented */
	CHECK_EQ(icmp_send_echo(ib0(), 0xc6120001u, 1, 1, 3000), -ERANGE);
	CHECK_EQ(ipoib_instance()->qp->send_free_mask, 0xffffu);
	teardown(f);
}

/* ---- partitions ---- */

TEST(ib_port_pkey_index_prefers_the_full_member)
{
	struct ib_port port;

	memset(&port, 0, sizeof(port));
	port.attr.pkey_table_len = 4;
	port.attr.pkey = 0x7fff;
	port.attr.pkey_table[0] = 0x7fff;
	port.attr.pkey_table[1] = 0x0002;
	port.attr.pkey_table[2] = 0x8002;
	port.attr.pkey_table[3] = 0x0003;
	CHECK_EQ(ib_port_pkey_index(&port, 0xffff), 0);    /* only a limited entry: taken */
	CHECK_EQ(ib_port_pkey_index(&port, 0x8002), 2);    /* the full member, not entry 1 */
	CHECK_EQ(ib_port_pkey_index(&port, 0x8003), 3);
	CHECK_EQ(ib_port_pkey_index(&port, 0x8005), -ENOENT);
	CHECK_EQ(ib_port_pkey_index(&port, 0x8000), -ENOENT);   /* the invalid P_Key */
	port.attr.pkey_table_len = 2;                            /* beyond the table: not there */
	CHECK_EQ(ib_port_pkey_index(&port, 0x8003), -ENOENT);
	CHECK_EQ(ib_port_pkey(&port), 0x7fff);                   /* nothing chosen: entry 0 */
	port.ulp_pkey = 0x8002;
	CHECK_EQ(ib_port_pkey(&port), 0x8002);
}

/* The SM's table: limited in the default partition, full member of 0x8001, whose IPoIB group
 * exists; the default partition's does not. */
static void partition_8001(struct fake_ibdev *f)
{
	both_ports(f);
	f->port[0].pkeys[0] = 0x7fff;
	f->port[0].pkeys[1] = 0x8001;
	f->groups[3].used = true;
	ib_ipv4_broadcast_mgid(&f->groups[3].mgid, 0x8001);
	f->groups[3].mlid = 0xc003;
	f->groups[3].qkey = 0x0b1b;
}

TEST(ipoib_default_pkey_is_the_first_with_a_broadcast_group)
{
	struct fake_ibdev *f = setup(partition_8001);
	struct ipoib *ip = ipoib_instance();
	union ib_gid mgid;

	if (!f)
		return;
	for (unsigned i = 0; i < 4; i++)   /* the SA's answer to the Get, then the join's */
		ib_poll();
	CHECK(test_console_has("ib0: P_Key 0x8001 (index 1): IPoIB broadcast group found; "
			       "0xffff has none"));
	CHECK(ib0()->link_up);
	CHECK_EQ(ip->qp->pkey_index, 1);
	ib_ipv4_broadcast_mgid(&mgid, 0x8001);
	CHECK_MEM(ip->bcast_mgid.raw, mgid.raw, 16);
	CHECK_EQ(ip->bcast_av.lid, 0xc003);
	CHECK_EQ(ib_port_pkey(&f->dev.port[0]), 0x8001);   /* SA PathRecords ask in 0x8001 */
	{
		char st[320];

		ibstat_format(&f->dev.port[0], st, sizeof(st));
		CHECK(strstr(st, "P_Key 0x7fff (IPoIB 0x8001, index 1)  rate") != NULL);
	}
	teardown(f);
}

TEST(ipoib_one_pkey_needs_no_sa_question)
{
	struct fake_ibdev *f = setup(NULL);
	struct ipoib *ip = ipoib_instance();

	if (!f)
		return;
	CHECK(test_console_has("ib0: P_Key 0xffff (index 0): the only P_Key\n"));
	CHECK(ib0()->link_up);
	CHECK_EQ(ip->qp->pkey_index, 0);
	teardown(f);
}

TEST(ipoib_ib_pkey_not_in_table_fails_at_once_and_a_new_setting_restarts)
{
	struct fake_ibdev *f;
	struct ipoib *ip;

	CHECK_EQ(setting_set("ib-pkey", "0x8005"), 0);
	f = setup(partition_8001);
	ip = ipoib_instance();
	if (!f) {
		(void)setting_set("ib-pkey", NULL);
		return;
	}
	CHECK(test_console_has("ib0: P_Key 0x8005 (setting ib-pkey) is not in fake0 port 1's "
			       "P_Key table (0x7fff@0 0x8001@1)\n"));
	CHECK(!ib0()->link_up);
	CHECK(ip->qp == NULL);
	CHECK(ib0()->link_error != NULL);
	CHECK_EQ(net_wait_link(ib0(), 60000), -ENOENT);
	CHECK(test_console_has("ib0: no link: ib-pkey not in P_Key table"));
	/* the full member of 0x8001 by setting (no SA question needed) */
	CHECK_EQ(setting_set("ib-pkey", "0x0001"), 0);
	net_poll();
	ib_poll();
	CHECK(test_console_has("ib0: P_Key 0x8001 (index 1): setting ib-pkey"));
	CHECK(ib0()->link_up);
	CHECK(ib0()->link_error == NULL);
	CHECK_EQ(ip->qp->pkey_index, 1);
	/* nonsense is refused with the reason, not taken as entry 0 */
	CHECK_EQ(setting_set("ib-pkey", "0x8000"), 0);
	net_poll();
	CHECK(test_console_has("ib0: ib-pkey '0x8000' is not a P_Key (0x0001..0xffff)"));
	CHECK(!ib0()->link_up);
	CHECK_EQ(setting_set("ib-pkey", NULL), 0);
	teardown(f);
}

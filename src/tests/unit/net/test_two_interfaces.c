/* SPDX-License-Identifier: MIT */
/*
 * Two IPoIB interfaces on the two ports of the fake device, each pinned to its port: ib0 on port 1
 * (LID 0x11) in 198.18.0.0/24, ib1 on port 2 (LID 0x12) in 198.19.0.0/24. Two remote hosts, A
 * (198.18.0.1, LID 0x40) and B (198.19.0.1, LID 0x41), sit behind the fabric: what they send is
 * injected into one interface's QP, what the interfaces send reaches them through the device's
 * peer hook, which records the source LID, i.e. the port it left from. Each interface must answer
 * ARP, ICMP and UDP for its own address only, keep its own neighbours and counters, and send out
 * of its own port; ipv4_route() picks the interface for a destination.
 */
#include "test.h"
#include "ib_fixture.h"

#include <ibboot/byteorder.h>
#include <ibboot/errno.h>
#include <ibboot/ipoib.h>
#include <ibboot/ipv4.h>
#include <ibboot/udp.h>

#define IP0     0xc6120002u   /* ib0: 198.18.0.2/24 */
#define IP1     0xc6130002u   /* ib1: 198.19.0.2/24 */
#define IP_A    0xc6120001u   /* host A on ib0's subnet */
#define IP_B    0xc6130001u   /* host B on ib1's subnet */
#define LID_A   0x40
#define LID_B   0x41
#define QPN_A   0x000a01u
#define QPN_B   0x000b01u
#define LID0    0x11          /* port 1 */
#define LID1    0x12          /* port 2 */
#define MAX_OUT 64

struct host {
	uint32_t ip;
	uint16_t lid;
	uint32_t qpn;
	union ib_gid gid;
};

static struct host host_a = { IP_A, LID_A, QPN_A, { .raw = { 0xfe, 0x80, [8] = 0x00, 0x02, 0xc9,
							    0x03, 0x00, 0x00, 0x40, 0x00 } } };
static struct host host_b = { IP_B, LID_B, QPN_B, { .raw = { 0xfe, 0x80, [8] = 0x00, 0x02, 0xc9,
							    0x03, 0x00, 0x00, 0x41, 0x00 } } };

/* What left the ports towards the remote hosts (unicast to their LIDs, and multicast). */
static struct {
	uint16_t slid, dlid;
	uint32_t dqpn;
	uint16_t type;
	uint8_t data[2048];
	size_t len;
} out[MAX_OUT];
static unsigned n_out;

/* ARP replies the hosts owe, sent after the poll that carried the request. */
static struct {
	struct host *from;
	uint16_t to_lid;
	uint8_t to_hw[IPOIB_ALEN];
	uint32_t to_ip;
} owed[8];
static unsigned n_owed;

static struct fake_ibdev *f;
static struct ipoib *ib0, *ib1;

static void hosts_rx(struct fake_ibdev *fd, const struct ib_address_vector *av, uint32_t src_qpn,
		     uint16_t slid, const uint8_t *data, size_t len)
{
	struct ipoib_arp arp;

	(void)fd;
	(void)src_qpn;
	if (n_out < MAX_OUT && len >= IPOIB_HDR_LEN && len <= sizeof(out[0].data)) {
		out[n_out].slid = slid;
		out[n_out].dlid = av->lid;
		out[n_out].dqpn = av->qpn;
		out[n_out].type = get_be16(data);
		memcpy(out[n_out].data, data, len);
		out[n_out].len = len;
		n_out++;
	}
	if (len >= IPOIB_HDR_LEN + IPOIB_ARP_LEN && get_be16(data) == ETHERTYPE_ARP &&
	    ipoib_arp_parse(data + IPOIB_HDR_LEN, len - IPOIB_HDR_LEN, &arp, NULL) == 0 &&
	    arp.op == ARP_OP_REQUEST && n_owed < 8) {
		struct host *h = arp.tpa == IP_A ? &host_a : arp.tpa == IP_B ? &host_b : NULL;

		if (h) {
			owed[n_owed].from = h;
			owed[n_owed].to_lid = slid;
			memcpy(owed[n_owed].to_hw, arp.sha, IPOIB_ALEN);
			owed[n_owed].to_ip = arp.spa;
			n_owed++;
		}
	}
}

/* A datagram from host h into interface ip's QP (as if the fabric delivered it there). */
static void inject(struct ipoib *ip, struct host *h, const uint8_t *pkt, size_t len)
{
	struct ib_address_vector to = { .qpn = ip->qp->qpn, .qkey = ip->qp->qkey,
					.lid = ip->port->attr.lid };

	CHECK_EQ(fake_ibdev_inject(f, &to, h->lid, h->qpn, NULL, pkt, len), 0);
}

static size_t build_arp(uint8_t *pkt, struct host *h, uint16_t op, uint32_t tpa,
			const uint8_t *tha)
{
	struct ipoib_arp arp = { .op = op, .spa = h->ip, .tpa = tpa };

	ipoib_addr_make(arp.sha, h->qpn, &h->gid);
	if (tha)
		memcpy(arp.tha, tha, IPOIB_ALEN);
	put_be16(pkt, ETHERTYPE_ARP);
	put_be16(pkt + 2, 0);
	ipoib_arp_build(pkt + IPOIB_HDR_LEN, IPOIB_ARP_LEN, &arp);
	return IPOIB_HDR_LEN + IPOIB_ARP_LEN;
}

/* The IPoIB header in front of an IPv4 datagram at pkt + 4 of len bytes. */
static size_t ipoib_frame(uint8_t *pkt, size_t len)
{
	put_be16(pkt, ETHERTYPE_IPV4);
	put_be16(pkt + 2, 0);
	return IPOIB_HDR_LEN + len;
}

static size_t build_ping(uint8_t *pkt, uint32_t src, uint32_t dst, uint16_t seq)
{
	uint8_t *icmp = pkt + IPOIB_HDR_LEN + IPV4_HDR_LEN;

	memset(icmp, 0, 16);
	icmp[0] = ICMP_ECHO_REQUEST;
	put_be16(icmp + 4, 0x7777);
	put_be16(icmp + 6, seq);
	memcpy(icmp + 8, "two-port", 8);
	put_be16(icmp + 2, ip_checksum(icmp, 16));
	test_ipv4_header(pkt + IPOIB_HDR_LEN, src, dst, IP_PROTO_ICMP, 16);
	return ipoib_frame(pkt, IPV4_HDR_LEN + 16);
}

static size_t build_udp(uint8_t *pkt, uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport,
			const char *text)
{
	return ipoib_frame(pkt, test_udp_datagram(pkt + IPOIB_HDR_LEN, src, sport, dst, dport, text,
						  strlen(text)));
}

/* Polls, paying the hosts' ARP debts between polls, for ms milliseconds. */
static void run(unsigned ms)
{
	for (unsigned t = 0; t < ms; t += 10) {
		fx_run(10, 10);
		while (n_owed) {
			uint8_t pkt[64];
			struct host *h;
			struct ipoib *to;

			n_owed--;
			h = owed[n_owed].from;
			to = owed[n_owed].to_lid == LID0 ? ib0 : ib1;
			build_arp(pkt, h, ARP_OP_REPLY, owed[n_owed].to_ip, owed[n_owed].to_hw);
			inject(to, h, pkt, IPOIB_HDR_LEN + IPOIB_ARP_LEN);
		}
	}
}

/* The n-th recorded packet of this ethertype sent unicast to dlid (any LID when 0). */
static const uint8_t *sent(uint16_t type, uint16_t dlid, unsigned nth, uint16_t *slid,
			   size_t *len)
{
	for (unsigned i = 0; i < n_out; i++) {
		if (out[i].type != type || out[i].dqpn == IB_MCAST_QPN ||
		    (dlid && out[i].dlid != dlid) || nth-- != 0)
			continue;
		*slid = out[i].slid;
		*len = out[i].len;
		return out[i].data;
	}
	return NULL;
}

/* The first IPv4 datagram sent to dlid must exist, leave from want_slid and carry want_src;
 * parsed into *ip. False (the test already failed) when there is none to look at further. */
static bool check_sent_ipv4(uint16_t dlid, uint16_t want_slid, uint32_t want_src,
			    struct ipv4_packet *ip)
{
	const uint8_t *r;
	uint16_t slid;
	size_t len;

	r = sent(ETHERTYPE_IPV4, dlid, 0, &slid, &len);
	CHECK(r != NULL);
	if (!r)
		return false;
	CHECK_EQ(slid, want_slid);
	CHECK_EQ(ipv4_parse(r + 4, len - 4, ip, NULL), 0);
	CHECK_EQ(ip->src, want_src);
	return true;
}

static unsigned count_sent(uint16_t type, uint16_t slid)
{
	unsigned n = 0;

	for (unsigned i = 0; i < n_out; i++)
		n += out[i].type == type && out[i].slid == slid && out[i].dqpn != IB_MCAST_QPN;
	return n;
}

static void both_ports_active(struct fake_ibdev *fd)
{
	fd->port[1].state = IB_PORT_ACTIVE;
	fd->port[1].phys_state = 5;
	fd->peer_rx = hosts_rx;
	fake_ibdev_add_peer(fd, &host_a.gid, LID_A);
	fake_ibdev_add_peer(fd, &host_b.gid, LID_B);
}

static bool setup(void)
{
	n_out = n_owed = 0;
	f = fx_setup(both_ports_active);
	if (!f)
		return false;
	ib0 = ipoib_create("ib0", &f->dev.port[0]);
	ib1 = ipoib_create("ib1", &f->dev.port[1]);
	run(50);
	if (!ib0 || !ib1 || !ib0->nd.link_up || !ib1->nd.link_up)
		return false;
	ipv4_configure(&ib0->nd, IP0, 0xffffff00u, 0);
	ipv4_configure(&ib1->nd, IP1, 0xffffff00u, IP_B);
	n_out = 0;
	return true;
}

static void teardown(void)
{
	ipoib_exit();
	fx_teardown(f);
	f = NULL;
}

/* ---- tests ---- */

TEST(two_interfaces_come_up_each_on_its_own_port)
{
	CHECK(setup());
	CHECK(ib0->port == &f->dev.port[0]);
	CHECK(ib1->port == &f->dev.port[1]);
	CHECK(ib0->qp != ib1->qp);
	CHECK(memcmp(ib0->nd.ll_addr + 4, ib1->nd.ll_addr + 4, IB_GID_LEN) != 0);   /* GIDs */
	CHECK(netdev_first() == &ib0->nd);                    /* listed in creation order */
	CHECK(netdev_find("ib1") == &ib1->nd);
	CHECK(ipoib_from_netdev(&ib1->nd) == ib1);
	CHECK_EQ(ib0->nd.ip_addr, IP0);
	CHECK_EQ(ib1->nd.ip_addr, IP1);
	/* a port leaving ACTIVE takes only its own interface down, and back up after */
	f->port[1].state = IB_PORT_INIT;
	fake_ibdev_port_event(f, 2, IB_EVENT_PORT_CHANGE, 0);
	run(100);
	CHECK(ib0->nd.link_up);
	CHECK(!ib1->nd.link_up);
	f->port[1].state = IB_PORT_ACTIVE;
	fake_ibdev_port_event(f, 2, IB_EVENT_PORT_CHANGE, 0);
	run(100);
	CHECK(ib1->nd.link_up);
	CHECK(ib1->port == &f->dev.port[1]);
	teardown();
}

/* Host h asks for `ip` by broadcast, which reaches both interfaces: exactly one ARP reply goes back
 * to h, from `slid` (the owner's port), naming `ip` and the owner's hardware address. */
static void expect_one_arp_reply(struct host *h, uint32_t ip, uint16_t slid_want,
				 const struct ipoib *owner)
{
	uint8_t pkt[64];
	uint16_t slid;
	size_t len;
	const uint8_t *r;
	struct ipoib_arp arp;

	build_arp(pkt, h, ARP_OP_REQUEST, ip, NULL);
	inject(ib0, h, pkt, IPOIB_HDR_LEN + IPOIB_ARP_LEN);
	inject(ib1, h, pkt, IPOIB_HDR_LEN + IPOIB_ARP_LEN);
	run(100);
	r = sent(ETHERTYPE_ARP, h->lid, 0, &slid, &len);
	CHECK(r != NULL);
	if (r) {
		CHECK_EQ(slid, slid_want);
		CHECK_EQ(ipoib_arp_parse(r + 4, len - 4, &arp, NULL), 0);
		CHECK_EQ(arp.op, ARP_OP_REPLY);
		CHECK_EQ(arp.spa, ip);
		CHECK(memcmp(arp.sha, owner->nd.ll_addr, IPOIB_ALEN) == 0);
	}
	CHECK(sent(ETHERTYPE_ARP, h->lid, 1, &slid, &len) == NULL);   /* the other stayed silent */
}

TEST(two_interfaces_answer_arp_for_their_own_address_only)
{
	CHECK(setup());
	/* A asks for ib0's address: the answer leaves port 1 */
	expect_one_arp_reply(&host_a, IP0, LID0, ib0);
	CHECK_EQ(ib0->stats.arp_replies_out, 1);
	CHECK_EQ(ib1->stats.arp_replies_out, 0);
	CHECK_EQ(ib1->stats.arp_in, 1);
	/* neighbour tables are per interface: A is known to ib0 only */
	CHECK_EQ(ib0->neigh[0].state, NEIGH_VALID);
	CHECK_EQ(ib0->neigh[0].ip, IP_A);
	for (unsigned i = 0; i < IPOIB_NEIGHBOURS; i++)
		CHECK_EQ(ib1->neigh[i].state, NEIGH_FREE);

	/* B asks for ib1's address: the answer leaves port 2 */
	n_out = 0;
	expect_one_arp_reply(&host_b, IP1, LID1, ib1);
	teardown();
}

TEST(two_interfaces_answer_icmp_for_their_own_address_only)
{
	uint8_t pkt[128];
	struct ipv4_packet ip;
	uint16_t slid;
	size_t len, n;

	CHECK(setup());
	/* A pings ib0, through ib0 and (wrongly routed) through ib1 */
	n = build_ping(pkt, IP_A, IP0, 1);
	inject(ib0, &host_a, pkt, n);
	inject(ib1, &host_a, pkt, n);
	run(200);
	if (check_sent_ipv4(LID_A, LID0, IP0, &ip)) {
		CHECK_EQ(ip.dst, IP_A);
		CHECK_EQ(ip.payload[0], ICMP_ECHO_REPLY);
	}
	CHECK(sent(ETHERTYPE_IPV4, 0, 1, &slid, &len) == NULL);   /* one reply in all */
	CHECK_EQ(icmp_get_stats(&ib0->nd)->echo_replies_out, 1);
	CHECK_EQ(icmp_get_stats(&ib1->nd)->echo_requests_in, 0);
	CHECK_EQ(ib1->nd.stats.rx_dropped, 1);   /* not ib1's address */

	/* B pings ib1: the reply leaves port 2, from ib1's address */
	n_out = 0;
	n = build_ping(pkt, IP_B, IP1, 2);
	inject(ib1, &host_b, pkt, n);
	run(200);
	check_sent_ipv4(LID_B, LID1, IP1, &ip);
	CHECK_EQ(icmp_get_stats(&ib1->nd)->echo_replies_out, 1);
	CHECK_EQ(icmp_get_stats(&ib0->nd)->echo_replies_out, 1);
	teardown();
}

struct echo_sock {
	struct udp_socket s;
	unsigned got;
	uint32_t last_src;
};

static void echo_rx(struct udp_socket *s, uint32_t src, uint16_t sport, const uint8_t *data,
		    size_t len)
{
	struct echo_sock *e = s->priv;

	e->got++;
	e->last_src = src;
	(void)udp_sendto(s, src, sport, data, len);
}

TEST(two_interfaces_each_deliver_udp_for_their_own_address_and_reply_through_it)
{
	struct echo_sock e0 = { 0 }, e1 = { 0 }, any = { 0 };
	struct ipv4_packet ip;
	uint8_t pkt[128];
	size_t n;

	CHECK(setup());
	/* one port number on each interface: as a DHCP client per interface needs */
	CHECK_EQ(udp_open(&e0.s, &ib0->nd, 7000, echo_rx, &e0), 0);
	CHECK_EQ(udp_open(&e1.s, &ib1->nd, 7000, echo_rx, &e1), 0);
	CHECK_EQ(udp_open(&any.s, NULL, 7000, echo_rx, &any), -EBUSY);   /* taken on both */

	n = build_udp(pkt, IP_A, IP0, 5000, 7000, "to-ib0");
	inject(ib0, &host_a, pkt, n);
	run(100);
	CHECK_EQ(e0.got, 1);
	CHECK_EQ(e1.got, 0);
	if (check_sent_ipv4(LID_A, LID0, IP0, &ip)) {
		CHECK_EQ(ip.proto, IP_PROTO_UDP);
	}

	/* ib1's address arriving on ib0 is not ib0's to deliver */
	n = build_udp(pkt, IP_B, IP1, 5000, 7000, "to-ib1-on-ib0");
	inject(ib0, &host_b, pkt, n);
	run(100);
	CHECK_EQ(e0.got, 1);
	CHECK_EQ(e1.got, 0);

	n_out = 0;
	n = build_udp(pkt, IP_B, IP1, 5001, 7000, "to-ib1");
	inject(ib1, &host_b, pkt, n);
	run(100);
	CHECK_EQ(e1.got, 1);
	CHECK_EQ(e1.last_src, IP_B);
	check_sent_ipv4(LID_B, LID1, IP1, &ip);
	CHECK_EQ(udp_get_stats(&ib0->nd)->rx, 1);
	CHECK_EQ(udp_get_stats(&ib1->nd)->rx, 1);
	CHECK_EQ(udp_get_stats(&ib0->nd)->tx, 1);
	CHECK_EQ(udp_get_stats(&ib1->nd)->tx, 1);
	udp_close(&e0.s);
	udp_close(&e1.s);
	teardown();
}

TEST(two_interfaces_route_by_subnet_then_gateway)
{
	struct echo_sock any = { 0 };
	struct ipv4_packet ip;

	CHECK(setup());
	CHECK(ipv4_route(IP_A) == &ib0->nd);
	CHECK(ipv4_route(0xc6120063u) == &ib0->nd);
	CHECK(ipv4_route(IP_B) == &ib1->nd);
	CHECK(ipv4_route(0x0a010203u) == &ib1->nd);   /* off both subnets: ib1 has the gateway */
	ib1->nd.gateway = 0;
	CHECK(ipv4_route(0x0a010203u) == &ib0->nd);   /* no gateway anywhere: the first */
	ib1->nd.gateway = IP_B;

	/* an unbound socket sends through the routed interface, ARP included */
	CHECK_EQ(udp_open(&any.s, NULL, 0, echo_rx, &any), 0);
	CHECK_EQ(udp_sendto(&any.s, IP_B, 9, "hello-b", 7), 0);
	CHECK_EQ(udp_sendto(&any.s, IP_A, 9, "hello-a", 7), 0);
	run(200);
	CHECK_EQ(count_sent(ETHERTYPE_IPV4, LID1), 1);
	CHECK_EQ(count_sent(ETHERTYPE_IPV4, LID0), 1);
	if (check_sent_ipv4(LID_B, LID1, IP1, &ip)) {
		CHECK_EQ(ip.dst, IP_B);
	}
	check_sent_ipv4(LID_A, LID0, IP0, &ip);
	/* each interface resolved only its own neighbour */
	CHECK_EQ(ib0->stats.arp_requests_out, 1);
	CHECK_EQ(ib1->stats.arp_requests_out, 1);
	udp_close(&any.s);
	teardown();
}

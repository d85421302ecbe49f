/* SPDX-License-Identifier: MIT */
/*
 * Per-packet cost of the IB core + IPoIB + IPv4 + ICMP, measured under callgrind over the fake
 * device (src/tests/bench/bench.sh): bench_tx_one() sends one ICMP echo request to a resolved
 * neighbour and reaps its send completion; bench_rx_one() polls one received 84-byte UDP datagram
 * up the stack to a counting protocol handler and reposts its buffer (an echo reply would measure
 * the console line ping prints). The fake device's own work inside those calls is small (a WC
 * pushed/popped); nothing is allocated.  Usage: ibcore-bench tx|rx COUNT
 */
#include "fake_ibdev.h"
#include "net_test_env.h"

#include <ibboot/ipoib.h>
#include <ibboot/ipv4.h>
#include <ibboot/wire/bytes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PEER_IP 0xc6120001u
#define OUR_IP  0xc6120002u
#define PEER_LID 0x40
#define PEER_QPN 0x123

__attribute__((noinline)) void bench_tx_one(struct net_device *nd, uint16_t seq);
__attribute__((noinline)) void bench_rx_one(void);

__attribute__((noinline)) void bench_tx_one(struct net_device *nd, uint16_t seq)
{
	if (icmp_send_echo(nd, PEER_IP, 1, seq, 56) < 0)
		abort();
	ib_poll();
}

__attribute__((noinline)) void bench_rx_one(void)
{
	ib_poll();
}

static unsigned udp_seen;

static void count_udp(struct net_device *nd, const struct ipv4_packet *ip)
{
	(void)nd;
	udp_seen += ip->payload_len == 64;
}

static size_t build_udp(uint8_t *p, uint16_t seq)
{
	uint8_t *udp;

	memset(p, 0, 4 + 20 + 64);
	udp = test_ipoib_ipv4(p, 84, seq, IP_PROTO_UDP, PEER_IP, OUR_IP);
	put_be16(udp, 4000);
	put_be16(udp + 2, 4001);
	put_be16(udp + 4, 64);
	return 4 + 84;
}

int main(int argc, char **argv)
{
	static struct fake_ibdev f;
	union ib_gid peer_gid = { .raw = { 0xfe, 0x80, [8] = 0x00, 0x02, 0xc9, 0x03, 0, 0, 0x77, 0x77 } };
	struct ipoib_arp arp = { .op = ARP_OP_REQUEST, .spa = PEER_IP, .tpa = OUR_IP };
	struct ib_address_vector to;
	struct net_device *nd;
	struct ipoib *ip;
	uint8_t pkt[128];
	unsigned n;

	if (argc != 3 || (strcmp(argv[1], "tx") && strcmp(argv[1], "rx"))) {
		fprintf(stderr, "usage: %s tx|rx COUNT\n", argv[0]);
		return 2;
	}
	n = (unsigned)strtoul(argv[2], NULL, 10);
	test_now_ms = 1000;
	fake_ibdev_init(&f);
	if (!(ip = fake_ibdev_ipoib_up(&f, &peer_gid, PEER_LID, OUR_IP)))
		return 1;
	nd = &ip->nd;
	/* The peer asks for us: ib0 learns it (ARP merge + PathRecord) and answers. */
	ipoib_addr_make(arp.sha, PEER_QPN, &peer_gid);
	put_be16(pkt, ETHERTYPE_ARP);
	put_be16(pkt + 2, 0);
	ipoib_arp_build(pkt + 4, IPOIB_ARP_LEN, &arp);
	to = (struct ib_address_vector){ .qpn = ip->qp->qpn, .qkey = ip->qp->qkey, .lid = 0x11 };
	fake_ibdev_inject(&f, &to, PEER_LID, PEER_QPN, NULL, pkt, 4 + IPOIB_ARP_LEN);
	for (int i = 0; i < 4; i++)
		net_poll();
	if (ip->neigh[0].state != NEIGH_VALID) {
		fprintf(stderr, "neighbour not resolved\n");
		return 1;
	}
	ipv4_register_proto(IP_PROTO_UDP, count_udp);
	for (unsigned i = 0; i < n; i++) {
		if (!strcmp(argv[1], "tx")) {
			bench_tx_one(nd, (uint16_t)i);
		} else {
			size_t len = build_udp(pkt, (uint16_t)i);

			fake_ibdev_inject(&f, &to, PEER_LID, PEER_QPN, NULL, pkt, len);
			bench_rx_one();
		}
	}
	if (!strcmp(argv[1], "rx") && udp_seen != n) {
		fprintf(stderr, "only %u of %u datagrams arrived\n", udp_seen, n);
		return 1;
	}
	if (!strcmp(argv[1], "tx") && nd->stats.tx_packets < n) {
		fprintf(stderr, "only %u of %u packets sent\n", nd->stats.tx_packets, n);
		return 1;
	}
	ipoib_exit();
	ib_device_unregister(&f.dev);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Writes what ib0 puts on the wire during a short scenario as a pcap (LINKTYPE_INFINIBAND) for an
 * independent decoder (tshark, tshark-check.sh): the SA join of the broadcast group and its
 * answer, a peer's ARP request and ib0's ARP reply (htype 32, hlen 20), the PathRecord query,
 * ib0's ICMP echo request, and its echo reply to the peer's request. Each datagram is wrapped in
 * LRH [+GRH] + BTH + DETH by iblib as the HCA would.  Usage: ipoib-pcap OUT.pcap
 */
#include "fake_ibdev.h"
#include "net_test_env.h"

#include <ibboot/ipoib.h>
#include <ibboot/ipv4.h>
#include <ibboot/wire/bytes.h>
#include <ibboot/wire/packet.h>
#include <stdio.h>
#include <string.h>

#define PEER_IP  0xc6120001u
#define OUR_IP   0xc6120002u
#define PEER_LID 0x40
#define PEER_QPN 0x123

static FILE *out;
static unsigned n_written;
static const union ib_gid peer_gid = { .raw = { 0xfe, 0x80, [8] = 0x00, 0x02, 0xc9, 0x03, 0, 0,
						0x77, 0x77 } };

static void put32le(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void capture(struct fake_ibdev *f, unsigned port, const struct ib_address_vector *av,
		    uint32_t src_qpn, const uint8_t *data, size_t len)
{
	static uint8_t pkt[IBLIB_PKT_MAX];
	uint16_t slid = port ? f->port[port - 1].lid : f->port[0].sm_lid;
	struct iblib_lrh lrh = { .dlid = av->lid, .slid = slid };
	struct iblib_grh grh = { .hop_limit = av->hop_limit };
	struct iblib_bth bth = { .opcode = IBLIB_OP_UD_SEND_ONLY, .pkey = 0xffff, .dest_qp = av->qpn };
	struct iblib_deth deth = { .qkey = av->qkey, .src_qp = src_qpn };
	uint8_t rec[16];
	int n;

	if (port)
		fake_port_gid(f, port, (union ib_gid *)grh.sgid.raw);
	memcpy(grh.dgid.raw, av->gid.raw, 16);
	n = iblib_ud_build(pkt, sizeof(pkt), &lrh, av->gid_present ? &grh : NULL, &bth, &deth,
			   data, len);
	if (n < 0) {
		fprintf(stderr, "ipoib-pcap: build failed: %s\n", iblib_strerror(n));
		return;
	}
	put32le(rec, 1000 + n_written);
	put32le(rec + 4, 0);
	put32le(rec + 8, (uint32_t)n);
	put32le(rec + 12, (uint32_t)n);
	fwrite(rec, 16, 1, out);
	fwrite(pkt, (size_t)n, 1, out);
	n_written++;
}

static void inject(struct fake_ibdev *f, struct ipoib *ip, const uint8_t *pkt, size_t len)
{
	struct ib_address_vector to = { .qpn = ip->qp->qpn, .qkey = ip->qp->qkey, .lid = 0x11 };

	fake_ibdev_inject(f, &to, PEER_LID, PEER_QPN, NULL, pkt, len);
	for (int i = 0; i < 4; i++)
		net_poll();
}

int main(int argc, char **argv)
{
	static struct fake_ibdev f;
	struct ipoib_arp arp = { .op = ARP_OP_REQUEST, .spa = PEER_IP, .tpa = OUR_IP };
	uint8_t hdr[24] = { 0 }, pkt[128];
	uint8_t *icmp;
	struct ipoib *ip;

	if (argc != 2 || !(out = fopen(argv[1], "wb"))) {
		fprintf(stderr, "usage: ipoib-pcap OUT.pcap\n");
		return 2;
	}
	put32le(hdr, 0xa1b2c3d4);
	hdr[4] = 2;
	hdr[6] = 4;
	put32le(hdr + 16, 65535);
	put32le(hdr + 20, 247);   /* LINKTYPE_INFINIBAND */
	fwrite(hdr, 24, 1, out);

	test_now_ms = 1000;
	fake_ibdev_init(&f);
	f.capture = capture;
	if (!(ip = fake_ibdev_ipoib_up(&f, &peer_gid, PEER_LID, OUR_IP)))
		return 1;
	/* the peer asks for us; ib0 resolves the peer's path and answers */
	ipoib_addr_make(arp.sha, PEER_QPN, &peer_gid);
	put_be16(pkt, ETHERTYPE_ARP);
	put_be16(pkt + 2, 0);
	ipoib_arp_build(pkt + 4, IPOIB_ARP_LEN, &arp);
	inject(&f, ip, pkt, 4 + IPOIB_ARP_LEN);
	/* ib0 pings the peer */
	icmp_send_echo(&ip->nd, PEER_IP, 0x6962, 1, 56);
	net_poll();
	/* the peer pings ib0 */
	memset(pkt, 0, sizeof(pkt));
	icmp = test_ipoib_ipv4(pkt, 84, 0, IP_PROTO_ICMP, PEER_IP, OUR_IP);
	icmp[0] = ICMP_ECHO_REQUEST;
	put_be16(icmp + 4, 0x4242);
	put_be16(icmp + 6, 7);
	for (int i = 8; i < 64; i++)
		icmp[i] = (uint8_t)i;
	put_be16(icmp + 2, ip_checksum(icmp, 64));
	inject(&f, ip, pkt, 4 + 84);
	ipoib_exit();
	ib_device_unregister(&f.dev);
	fclose(out);
	printf("ipoib-pcap: %u packets\n", n_written);
	return n_written >= 6 ? 0 : 1;
}

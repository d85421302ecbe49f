/* SPDX-License-Identifier: MIT */
/*
 * Instructions per received TCP segment and per ACK sent, on the production receive path, for
 * callgrind (make bench-fastpath). Everything that runs is the firmware's own code over the
 * in-process model (hermon_rig): the Hermon driver (hermon_poll_cq, hermon_post_recv,
 * hermon_post_send), the IB core (ib_poll_cq, completions, refill), IPoIB (pinned "ib0" on port 1),
 * IPv4 and TCP. The bench plays the rest of the fabric at the wire: it answers ib0's SA join
 * (MCMemberRecord, with the group MTU given: 2048 as OpenSM's default broadcast group has, which
 * makes the IPoIB MTU 2044, or 4096 for 4092), its ARP request, its PathRecord query and its SYN,
 * then feeds N in-order, full-sized data segments (the MSS ib0 announced less the timestamp option,
 * as Linux/nginx send them) into port 1 of the model,
 * one at a time, each followed by one call of
 *   bench_rx   ib_poll_cq(ib0's CQ): what ib_poll_device runs per CQ on every poll - the CQE
 *              decode, ib_complete_recv -> ipoib_recv -> net_rx -> ipv4_rx -> tcp_rx (parse with
 *              the checksum over the payload, sequence checks, delivery) and, every second
 *              segment, the ACK (xmit -> ipv4_tx -> ipoib_transmit -> ib_post_send ->
 *              hermon_post_send) and the previous ACK's send completion; the receive buffer is
 *              reposted (hermon_post_recv).
 * callgrind collects only inside bench_rx (--toggle-collect=bench_rx).
 *
 * The payload copy is excluded: the connection's rx callback is this bench's count_rx, which only
 * adds up the length (production's HTTP/TFTP sink copies the bytes to the image: one memcpy per
 * byte, not part of these figures). The model's work behind the send doorbell (the rig's
 * writel_be runs the model synchronously) is subtracted by the make recipe, as for bench-driver.
 * The per-poll work that is not per segment (ib_poll_device's EQ poll and port ticks, the net
 * devices' poll, tcp_step) is not included.
 *
 * Prints the segment count, the payload per segment and the ACKs TCP sent, so the recipe can
 * divide; exits non-zero if the set-up failed or not every byte arrived.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ibboot/ipoib.h>
#include <ibboot/ipv4.h>
#include <ibboot/string.h>
#include <ibboot/tcp.h>
#include <ibboot/timer.h>
#include <ibboot/wire/bytes.h>
#include <ibboot/wire/mad.h>
#include <ibboot/wire/packet.h>
#include "hermon_rig.h"

#define MY_LID        0x11
#define SM_LID        0x01          /* the SM LID rig_sm_set_port gives the port */
#define SERVER_LID    0x22
#define SERVER_QPN    0x000048
#define SERVER_GUID   0x0002c90300002222ull
#define MLID          0xc001
#define IPOIB_QKEY    0x00000b1bu
#define GSI_QKEY      0x80010000u
#define CLIENT_ADDR   0xc612004du   /* 198.18.0.77 */
#define SERVER_ADDR   0xc6120001u   /* 198.18.0.1 */
#define SERVER_PORT   80
#define SERVER_ISS    1000000u
/* IBA MTU codes (PathRecord, MCMemberRecord): 4 = 2048 bytes, 5 = 4096. */
#define IB_MTU_2048   4
#define IB_MTU_4096   5

static struct rig r;
static struct ipoib *ib0;
static struct tcp_conn conn;
static uint64_t seen_out;
static uint64_t rx_bytes;
static uint8_t out_pkt[4200];
static size_t out_len;
static union ib_gid server_gid;
static uint32_t server_tsval = 1;
static uint8_t mtu_code = IB_MTU_4096;   /* the broadcast group's and the path's */

/* ---- the bench's side of the wire ---- */

/* The oldest packet port 1 sent since the last call (the rig keeps the last one). */
static bool take_packet(void)
{
	if (r.packets_out == seen_out)
		return false;
	seen_out = r.packets_out;
	out_len = r.last_len;
	memcpy(out_pkt, r.last, out_len);
	return true;
}

/* A UD packet from the server's side into port 1 (LRH, BTH, DETH, payload, ICRC, VCRC). */
static void inject(uint16_t slid, uint32_t src_qp, uint32_t dest_qp, uint32_t qkey,
		   const void *payload, size_t len)
{
	static uint8_t pkt[4200];
	static uint32_t psn;
	struct iblib_lrh lrh = { .dlid = MY_LID, .slid = slid };
	struct iblib_bth bth = { .opcode = 0x64, .pkey = 0xffff, .dest_qp = dest_qp,
				 .psn = psn++ & 0xffffff };
	struct iblib_deth deth = { .qkey = qkey, .src_qp = src_qp };
	int n = iblib_ud_build(pkt, sizeof(pkt), &lrh, NULL, &bth, &deth, payload, len);

	if (n < 0) {
		fprintf(stderr, "bench-fastpath: cannot build a packet: %s\n", iblib_strerror(n));
		exit(1);
	}
	hcasim_packet_in(r.sim, 1, pkt, (size_t)n);
	rig_step(&r);
}

static void answer_sa(const struct iblib_pkt *p)
{
	const uint8_t *req = out_pkt + p->payload_off;
	uint8_t resp[IBLIB_MAD_BYTES];

	iblib_mad_make_response(resp, req, 0);
	resp[3] = IBLIB_METHOD_GET_RESP;   /* IBA 15.2.5.17 / 15.4: a Set and a Get both answer GetResp */
	if (iblib_mad_attr_id(req) == IBLIB_SA_ATTR_MCMEMBER_RECORD) {
		struct iblib_mcmember_record mr;

		iblib_mcmember_record_get(req + IBLIB_SA_DATA_OFF, &mr);
		mr.qkey = IPOIB_QKEY;
		mr.mlid = MLID;
		mr.mtu = mtu_code;
		mr.mtu_selector = 2;
		mr.rate = 3;
		mr.rate_selector = 2;
		mr.pkey = 0xffff;
		mr.sl = 0;
		mr.hop_limit = 0;
		mr.scope = 2;
		iblib_mcmember_record_put(resp + IBLIB_SA_DATA_OFF, &mr);
	} else if (iblib_mad_attr_id(req) == IBLIB_SA_ATTR_PATH_RECORD) {
		struct iblib_path_record pr;

		iblib_path_record_get(req + IBLIB_SA_DATA_OFF, &pr);
		pr.dlid = SERVER_LID;
		pr.slid = MY_LID;
		pr.mtu = mtu_code;
		pr.mtu_selector = 2;
		pr.rate = 3;
		pr.rate_selector = 2;
		pr.pkey = 0xffff;
		pr.sl = 0;
		pr.reversible = true;
		pr.numb_path = 1;
		pr.pkt_life = 18;
		iblib_path_record_put(resp + IBLIB_SA_DATA_OFF, &pr);
	} else {
		return;
	}
	inject(SM_LID, 1, 1, GSI_QKEY, resp, sizeof(resp));
}

static void answer_arp(const uint8_t *data, size_t len)
{
	struct ipoib_arp req, rep;
	uint8_t buf[IPOIB_HDR_LEN + IPOIB_ARP_LEN];

	if (ipoib_arp_parse(data, len, &req, NULL) < 0 || req.op != ARP_OP_REQUEST ||
	    req.tpa != SERVER_ADDR)
		return;
	memset(&rep, 0, sizeof(rep));
	rep.op = ARP_OP_REPLY;
	ipoib_addr_make(rep.sha, SERVER_QPN, &server_gid);
	rep.spa = SERVER_ADDR;
	memcpy(rep.tha, req.sha, IPOIB_ALEN);
	rep.tpa = req.spa;
	put_be16(buf, ETHERTYPE_ARP);
	put_be16(buf + 2, 0);
	ipoib_arp_build(buf + IPOIB_HDR_LEN, sizeof(buf) - IPOIB_HDR_LEN, &rep);
	inject(SERVER_LID, SERVER_QPN, ipoib_addr_qpn(req.sha), IPOIB_QKEY, buf, sizeof(buf));
}

/* IPoIB header + IPv4 + TCP (options, payload) from the server to ib0. */
static size_t build_segment(uint8_t *buf, uint32_t seq, uint32_t ack, uint8_t flags,
			    const uint8_t *opt, size_t opt_len, const uint8_t *data, size_t len)
{
	static uint16_t ip_id;
	uint8_t *ip = buf + IPOIB_HDR_LEN, *t = ip + IPV4_HDR_LEN;
	size_t tcp_len = TCP_HDR_LEN + opt_len + len;

	put_be16(buf, ETHERTYPE_IPV4);
	put_be16(buf + 2, 0);
	memset(ip, 0, IPV4_HDR_LEN);
	ip[0] = 0x45;
	put_be16(ip + 2, (uint16_t)(IPV4_HDR_LEN + tcp_len));
	put_be16(ip + 4, ip_id++);
	put_be16(ip + 6, 0x4000);   /* DF */
	ip[8] = 64;
	ip[9] = IP_PROTO_TCP;
	put_be32(ip + 12, SERVER_ADDR);
	put_be32(ip + 16, CLIENT_ADDR);
	put_be16(ip + 10, ip_checksum(ip, IPV4_HDR_LEN));
	put_be16(t, SERVER_PORT);
	put_be16(t + 2, conn.local_port);
	put_be32(t + 4, seq);
	put_be32(t + 8, ack);
	t[12] = (uint8_t)((TCP_HDR_LEN + opt_len) / 4 << 4);
	t[13] = flags;
	put_be16(t + 14, 0xffff);
	put_be32(t + 16, 0);
	memcpy(t + TCP_HDR_LEN, opt, opt_len);
	if (len)
		memcpy(t + TCP_HDR_LEN + opt_len, data, len);
	put_be16(t + 16, tcp_checksum(SERVER_ADDR, CLIENT_ADDR, t, tcp_len));
	return IPOIB_HDR_LEN + IPV4_HDR_LEN + tcp_len;
}

/* NOP NOP TS(tsval, tsecr): what Linux puts on every segment once timestamps are agreed. */
static size_t ts_option(uint8_t *o, uint32_t tsecr)
{
	o[0] = o[1] = 1;
	o[2] = 8;
	o[3] = 10;
	put_be32(o + 4, server_tsval++);
	put_be32(o + 8, tsecr);
	return 12;
}

static void answer_syn(const uint8_t *t, size_t len)
{
	static uint8_t buf[256];
	uint8_t opt[40];
	size_t o = 0;
	uint32_t tsval = 0;

	/* The SYN's timestamp (RFC 7323 §3.2): the option kind 8 somewhere in its options. */
	for (size_t i = TCP_HDR_LEN; i + 10 <= len && i < (size_t)(t[12] >> 4) * 4;) {
		if (t[i] == 1) {
			i++;
		} else if (t[i] == 8) {
			tsval = get_be32(t + i + 2);
			break;
		} else {
			if (t[i] == 0 || t[i + 1] < 2)
				break;
			i += t[i + 1];
		}
	}
	opt[o++] = 2;               /* MSS: the IPoIB MTU - 40, RFC 9293 §3.7.1 */
	opt[o++] = 4;
	put_be16(opt + o, (uint16_t)(ib0->nd.mtu - 40));
	o += 2;
	opt[o++] = 1;               /* NOP, window scale 7 (RFC 7323 §2) */
	opt[o++] = 3;
	opt[o++] = 3;
	opt[o++] = 7;
	opt[o++] = 4;               /* SACK permitted, then NOP NOP TS */
	opt[o++] = 2;
	o += ts_option(opt + o, tsval);
	while (o % 4)
		opt[o++] = 1;
	size_t n = build_segment(buf, SERVER_ISS, get_be32(t + 4) + 1, TCP_SYN | TCP_ACK, opt, o,
				 NULL, 0);
	inject(SERVER_LID, SERVER_QPN, ib0->qp->qpn, IPOIB_QKEY, buf, n);
}

/* What port 1 sent: the SA requests, ARP and the SYN are answered; the rest is ignored. */
static void answer(void)
{
	struct iblib_pkt p;
	const uint8_t *pl;
	uint16_t type;

	if (iblib_pkt_parse(out_pkt, out_len, &p, 0) < 0 || !(p.ext & IBLIB_EXT_DETH))
		return;
	pl = out_pkt + p.payload_off;
	if (p.bth.dest_qp == 1 && p.payload_len >= IBLIB_MAD_BYTES &&
	    pl[1] == IBLIB_MCLASS_SUBN_ADM && !iblib_mad_is_response(pl)) {
		answer_sa(&p);
		return;
	}
	if (p.payload_len < IPOIB_HDR_LEN || ipoib_parse_header(pl, p.payload_len, &type, NULL) < 0)
		return;
	pl += IPOIB_HDR_LEN;
	if (type == ETHERTYPE_ARP) {
		answer_arp(pl, p.payload_len - IPOIB_HDR_LEN);
	} else if (type == ETHERTYPE_IPV4 && p.payload_len >= IPOIB_HDR_LEN + 40 &&
		   pl[9] == IP_PROTO_TCP) {
		const uint8_t *t = pl + (pl[0] & 15) * 4;

		if ((t[13] & (TCP_SYN | TCP_ACK)) == TCP_SYN)
			answer_syn(t, p.payload_len - IPOIB_HDR_LEN - (size_t)(pl[0] & 15) * 4);
	}
}

/* The firmware's poll loop, 1 ms of virtual time per round, answering what port 1 sends,
 * until done() or the bound. */
static bool run_until(bool (*done)(void), unsigned max_ms, const char *what)
{
	for (unsigned ms = 0; ms < max_ms; ms++) {
		net_poll();
		if (conn.nd)
			tcp_step(&conn, clock_ms());
		while (take_packet())
			answer();
		if (done())
			return true;
		mdelay(1);
	}
	fprintf(stderr, "bench-fastpath: %s: not done after %u ms of virtual time\n%s", what,
		max_ms, rig_log());
	return false;
}

static bool link_is_up(void) { return ib0->nd.link_up; }
static bool established(void) { return conn.state == TCP_ESTABLISHED; }

static int count_rx(struct tcp_conn *c, const uint8_t *data, size_t len)
{
	(void)c;
	(void)data;
	rx_bytes += len;
	return 0;
}

__attribute__((noinline)) void bench_rx(struct ib_cq *cq);
__attribute__((noinline)) void bench_rx(struct ib_cq *cq)
{
	ib_poll_cq(cq);
}

int main(int argc, char **argv)
{
	static uint8_t seg[4200], payload[4096];
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 2000;
	unsigned group_mtu = argc > 2 ? (unsigned)atoi(argv[2]) : 4096;
	uint32_t seq = SERVER_ISS + 1;
	size_t mss, data_len;
	uint8_t opt[12];

	if (group_mtu != 2048 && group_mtu != 4096) {
		fprintf(stderr, "usage: bench-fastpath [SEGMENTS [2048|4096 (the broadcast group's MTU)]]\n");
		return 2;
	}
	mtu_code = group_mtu == 2048 ? IB_MTU_2048 : IB_MTU_4096;
	rig_set_quiet(true);
	if (rig_up(&r) || rig_sm_set_port(&r.h.ib, 1, MY_LID, false)) {
		fprintf(stderr, "bench-fastpath: bring-up failed:\n%s", rig_log());
		return 1;
	}
	/* Port 1's cable is the bench from now on: what it sends stays in r.last. */
	r.cabled = false;
	memcpy(server_gid.raw, r.h.ib.port[0].gid.raw, 8);
	put_be64(server_gid.raw + 8, SERVER_GUID);
	seen_out = r.packets_out;
	ib0 = ipoib_create("ib0", &r.h.ib.port[0]);
	if (!ib0 || !run_until(link_is_up, 10000, "the IPoIB broadcast join"))
		return 1;
	ipv4_configure(&ib0->nd, CLIENT_ADDR, 0xffffff00u, 0);
	if (tcp_connect(&conn, &ib0->nd, SERVER_ADDR, SERVER_PORT, NULL, count_rx, NULL) < 0 ||
	    !run_until(established, 20000, "the TCP connection (ARP, PathRecord, SYN)"))
		return 1;
	/* Full-sized segments: the MSS ib0 announced, less the timestamp option. */
	mss = conn.rcv_mss;
	data_len = mss - 12;
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7);
	while (take_packet())
		;
	unsigned acks0 = conn.stats.acks_out;
	for (unsigned i = 0; i < n; i++) {
		size_t len;

		ts_option(opt, conn.last_ack_sent ? (uint32_t)clock_ms() : 0);
		len = build_segment(seg, seq, conn.snd_nxt, TCP_ACK, opt, sizeof(opt), payload,
				    data_len);
		seq += (uint32_t)data_len;
		inject(SERVER_LID, SERVER_QPN, ib0->qp->qpn, IPOIB_QKEY, seg, len);
		bench_rx(ib0->cq);
	}
	bench_rx(ib0->cq);   /* the last ACK's send completion */
	printf("segments %u payload %zu acks %u bytes %llu mss %zu mtu %u\n", n, data_len,
	       conn.stats.acks_out - acks0, (unsigned long long)rx_bytes, mss, ib0->nd.mtu);
	if (rx_bytes != (uint64_t)n * data_len) {
		fprintf(stderr, "bench-fastpath: %llu bytes delivered of %llu (tcp: in %u, bad %u, "
			"ooo %u, dup %u)\n%s", (unsigned long long)rx_bytes,
			(unsigned long long)n * data_len, conn.stats.segs_in, conn.stats.bad_in,
			conn.stats.ooo_stored, conn.stats.dup_segs, rig_log());
		return 1;
	}
	tcp_abort(&conn, 0, "bench done");
	tcp_release(&conn);
	ipoib_destroy(ib0);
	rig_destroy(&r);
	return 0;
}

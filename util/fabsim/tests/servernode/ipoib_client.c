/* SPDX-License-Identifier: MIT */
/*
 * ipoib-client — a raw IPoIB endpoint for the integration test: a second CA port attached to
 * fabsim (the same ipoib_node core and firmware SMA library as the server node, no hcasim QP),
 * which
 *   1. waits for OpenSM to make its port ACTIVE and joins the broadcast group through the SA;
 *   2. runs DHCP as RFC 4390 describes (htype 32, hlen 0, broadcast flag, client-identifier)
 *      against the real dnsmasq behind the server node: DISCOVER, OFFER, REQUEST, ACK;
 *   3. fetches a file by TFTP (blksize option) from the server: ARP + PathRecord + unicast;
 *   4. writes the file to --out for the caller to compare (SHA-256);
 *   5. optionally GETs a file from nginx over a minimal TCP (--http, --http-out).
 * Prints one line per step; exits 0 only when every step did what RFC 4390/2131/1350 say.
 * Timeouts only bound the wait (retries, then failure); nothing asserts on time.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fabsim_client.h"
#include "ipoib_node.h"
#include "netboot_proto.h"

#define RXQ 64
#define CLIENT_QPN 0x000049u

struct rx_dgram {
	size_t len;
	uint8_t data[4096];
};

struct client {
	struct fabsim_client *fab;
	struct ipoib_node *node;
	struct rx_dgram rxq[RXQ];
	unsigned rx_head, rx_count;
	uint32_t ip;
	uint16_t ip_id;
	bool verbose;
};

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static const char *ipstr(uint32_t a)
{
	static char b[4][16];
	static unsigned i;
	char *s = b[i++ % 4];
	snprintf(s, 16, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255);
	return s;
}

static void log_line(void *ctx, const char *line)
{
	struct client *c = ctx;
	if (c->verbose)
		fprintf(stderr, "client node: %s\n", line);
}

static void send_packet(void *ctx, const uint8_t *pkt, size_t len)
{
	struct client *c = ctx;
	int r = fabsim_client_send_packet(c->fab, pkt, len);
	if (r < 0)
		fprintf(stderr, "client: send to fabsim failed: %s\n", strerror(-r));
}

static void deliver_ipv4(void *ctx, const uint8_t *dgram, size_t len)
{
	struct client *c = ctx;
	if (c->rx_count == RXQ || len > sizeof c->rxq[0].data)
		return;   /* a full queue drops, as a NIC ring would */
	struct rx_dgram *d = &c->rxq[(c->rx_head + c->rx_count++) % RXQ];
	memcpy(d->data, dgram, len);
	d->len = len;
}

/* Move packets and timers for at most `ms`; returns early when a datagram is queued or the
 * predicate holds. -1 when fabsim went away. */
static int pump(struct client *c, uint64_t ms, bool (*done)(struct client *))
{
	static struct fabsim_msg msg;
	uint64_t end = now_ms() + ms;

	for (;;) {
		if (c->rx_count || (done && done(c)))
			return 0;
		uint64_t t = now_ms();
		if (t >= end)
			return 0;
		int tick = ipoib_node_tick(c->node, t);
		uint64_t wait = end - t;
		if (tick >= 0 && (uint64_t)tick < wait)
			wait = (uint64_t)tick;
		struct pollfd p = { .fd = fabsim_client_fd(c->fab), .events = POLLIN };
		if (poll(&p, 1, (int)wait) < 0 && errno != EINTR)
			return -1;
		int r;
		while ((r = fabsim_client_recv(c->fab, &msg)) == 1) {
			if (msg.type == FABSIM_MSG_LINK)
				ipoib_node_link(c->node, msg.flags == FABSIM_LINK_UP, now_ms());
			else if (msg.type == FABSIM_MSG_PACKET)
				ipoib_node_packet_in(c->node, msg.data, msg.len, now_ms());
		}
		if (r < 0) {
			fprintf(stderr, "client: fabsim connection: %s\n", strerror(-r));
			return -1;
		}
	}
}

static bool is_joined(struct client *c) { return ipoib_node_joined(c->node); }

/* The next datagram received by `end` (copied to store): 1, 0 on timeout, -1 fabsim gone. */
static int next_dgram(struct client *c, uint64_t end, struct rx_dgram *store)
{
	while (!c->rx_count) {
		uint64_t t = now_ms();
		if (t >= end)
			return 0;
		if (pump(c, end - t, NULL) < 0)
			return -1;
	}
	*store = c->rxq[c->rx_head];
	c->rx_head = (c->rx_head + 1) % RXQ;
	c->rx_count--;
	return 1;
}

/* Next UDP datagram for `port` within `ms`: 1, 0 on timeout, -1 fabsim gone. Other datagrams
 * are dropped. */
static int recv_udp(struct client *c, uint16_t port, uint64_t ms, struct udp_dgram *u, struct rx_dgram *store)
{
	uint64_t end = now_ms() + ms;
	int r;

	while ((r = next_dgram(c, end, store)) == 1) {
		const char *why = "";
		if (udp_parse(store->data, store->len, u, &why) < 0) {
			if (c->verbose)
				fprintf(stderr, "client: dropped a datagram: %s\n", why);
			continue;
		}
		if (u->dport == port)
			return 1;
	}
	return r;
}

static void send_udp(struct client *c, uint32_t dst, uint16_t sport, uint16_t dport,
		     const uint8_t *data, size_t len)
{
	uint8_t dgram[4096];
	size_t n = udp_build(dgram, sizeof dgram, c->ip, dst, sport, dport, data, len, ++c->ip_id);
	if (n)
		ipoib_node_send_ipv4(c->node, dgram, n, now_ms());
}

static int fail(const char *fmt, const char *a)
{
	fprintf(stdout, "client: FAILED: ");
	fprintf(stdout, fmt, a);
	fprintf(stdout, "\n");
	return 1;
}

/* One DHCP exchange step: send `msg_type`, wait for a reply of `want` with our xid. */
static int dhcp_step(struct client *c, int msg_type, uint32_t xid, const uint8_t *clid, size_t clid_len,
		     uint32_t req_ip, uint32_t server_id, int want, struct dhcp_msg *reply)
{
	uint8_t buf[600];
	size_t n = dhcp_build(buf, sizeof buf, msg_type, xid, clid, clid_len, req_ip, server_id);
	for (int attempt = 0; attempt < 8; attempt++) {
		send_udp(c, 0xFFFFFFFFu, 68, 67, buf, n);
		uint64_t end = now_ms() + 2000;
		for (;;) {
			struct udp_dgram u;
			static struct rx_dgram store;
			uint64_t t = now_ms();
			if (t >= end)
				break;
			int r = recv_udp(c, 68, end - t, &u, &store);
			if (r < 0)
				return -1;
			if (r == 0)
				break;
			const char *why = "";
			if (dhcp_parse(u.data, u.len, reply, &why) < 0) {
				fprintf(stderr, "client: bad DHCP reply: %s\n", why);
				continue;
			}
			/* RFC 4390: chaddr is empty, so the xid alone matches a reply to us. */
			if (reply->op != 2 || reply->xid != xid)
				continue;
			if (reply->msg_type == DHCP_NAK)
				return -2;
			if (reply->msg_type == want)
				return 0;
		}
	}
	return -1;
}

static int do_tftp(struct client *c, uint32_t server, const char *file, unsigned blksize, FILE *out,
		   long *got_blksize, long *got_tsize, size_t *total)
{
	uint8_t buf[600];
	static uint8_t ack[8];
	const uint16_t myport = 40000 + (uint16_t)(now_ms() % 20000);
	size_t n = tftp_build_rrq(buf, sizeof buf, file, blksize);
	uint16_t srv_port = 0, expect = 1;
	size_t blk = 512;
	int attempts = 0;
	size_t ack_len = 0;

	*total = 0;
	*got_blksize = *got_tsize = -1;
	send_udp(c, server, myport, 69, buf, n);
	for (;;) {
		struct udp_dgram u;
		static struct rx_dgram store;
		int r = recv_udp(c, myport, 1000, &u, &store);
		if (r < 0)
			return -1;
		if (r == 0) {
			if (++attempts > 10) {
				fprintf(stdout, "client: TFTP: no answer from %s after %d retransmissions\n",
					ipstr(server), attempts - 1);
				return -1;
			}
			if (!srv_port)   /* RRQ lost or still waiting for ARP/path: ask again */
				send_udp(c, server, myport, 69, buf, n);
			else
				send_udp(c, server, myport, srv_port, ack, ack_len);
			continue;
		}
		if (u.src != server || (srv_port && u.sport != srv_port))
			continue;
		struct tftp_msg m;
		const char *why = "";
		if (tftp_parse(u.data, u.len, &m, &why) < 0) {
			fprintf(stderr, "client: bad TFTP packet: %s\n", why);
			continue;
		}
		attempts = 0;
		/* RFC 1350: the server answers from a new port (its transfer ID). */
		srv_port = u.sport;
		if (m.opcode == TFTP_ERROR) {
			fprintf(stdout, "client: TFTP error %u: %s\n", m.error_code, m.error_msg);
			return -1;
		}
		if (m.opcode == TFTP_OACK) {
			*got_blksize = m.blksize;
			*got_tsize = m.tsize;
			if (m.blksize > 0)
				blk = (size_t)m.blksize;
			ack_len = tftp_build_ack(ack, sizeof ack, 0);
			send_udp(c, server, myport, srv_port, ack, ack_len);
			continue;
		}
		if (m.opcode != TFTP_DATA)
			continue;
		if (m.block == expect) {
			if (m.len && fwrite(m.data, 1, m.len, out) != m.len)
				return -1;
			*total += m.len;
			expect++;
		}
		ack_len = tftp_build_ack(ack, sizeof ack, m.block);
		send_udp(c, server, myport, srv_port, ack, ack_len);
		if (m.block == (uint16_t)(expect - 1) && m.len < blk)
			return 0;
	}
}

/* Next TCP segment for local `port` within `ms`: 1, 0 on timeout, -1 fabsim gone. */
static int recv_tcp(struct client *c, uint16_t port, uint64_t ms, struct tcp_seg *t, struct rx_dgram *store)
{
	uint64_t end = now_ms() + ms;
	int r;

	while ((r = next_dgram(c, end, store)) == 1)
		if (tcp_parse(store->data, store->len, t, NULL) == 0 && t->dport == port)
			return 1;
	return r;
}

static void send_tcp(struct client *c, struct tcp_seg *s)
{
	uint8_t dgram[4096];
	size_t n = tcp_build(dgram, sizeof dgram, s, ++c->ip_id);
	if (n)
		ipoib_node_send_ipv4(c->node, dgram, n, now_ms());
}

/* Segment s with len bytes of data (ACK|PSH); s carries no data again afterwards. */
static void send_tcp_data(struct client *c, struct tcp_seg *s, const void *data, size_t len)
{
	s->flags = TCP_ACK | TCP_PSH;
	s->data = data;
	s->len = len;
	send_tcp(c, s);
	s->data = NULL;
	s->len = 0;
}

/* HTTP/1.0 GET over a minimal TCP (in-order receive; duplicate ACKs ask for what is missing,
 * the server's retransmission timer does the rest). The whole response goes to *resp. */
static int do_http(struct client *c, uint32_t server, const char *path, uint8_t **resp, size_t *resp_len,
		   size_t *max_seg)
{
	static struct rx_dgram store;
	struct tcp_seg in, out = { .src = c->ip, .dst = server, .sport = (uint16_t)(50000 + now_ms() % 10000),
				   .dport = 80, .seq = (uint32_t)now_ms() * 2654435761u, .window = 65535 };
	char req[512];
	int reqlen = snprintf(req, sizeof req, "GET /%s HTTP/1.0\r\nHost: %s\r\nUser-Agent: ipoib-client\r\n\r\n",
			      path, ipstr(server));
	size_t cap = 1 << 20, len = 0;
	uint8_t *buf = malloc(cap);
	uint32_t iss = out.seq, rcv_nxt = 0;
	int tries = 0;

	*max_seg = 0;
	if (!buf || reqlen < 0 || (size_t)reqlen >= sizeof req)
		goto fail;
	/* Handshake; MSS = the TUN MTU 2044 - 40, as the far side offers too (RFC 879). */
	for (;;) {
		out.flags = TCP_SYN;
		out.mss = 2004;
		out.seq = iss;
		send_tcp(c, &out);
		int r = recv_tcp(c, out.sport, 1000, &in, &store);
		if (r < 0)
			goto fail;
		if (r == 1 && (in.flags & (TCP_SYN | TCP_ACK)) == (TCP_SYN | TCP_ACK) && in.ack == iss + 1)
			break;
		if (++tries > 8)
			goto fail;
	}
	rcv_nxt = in.seq + 1;
	out.mss = 0;
	out.seq = iss + 1;
	out.ack = rcv_nxt;
	out.flags = TCP_ACK;
	send_tcp(c, &out);
	send_tcp_data(c, &out, req, (size_t)reqlen);
	bool request_acked = false;
	tries = 0;
	for (;;) {
		int r = recv_tcp(c, out.sport, 1000, &in, &store);
		if (r < 0)
			goto fail;
		if (r == 0) {
			if (++tries > 10)
				goto fail;
			if (!request_acked) {   /* the request may have been lost: send it again */
				send_tcp_data(c, &out, req, (size_t)reqlen);
			}
			continue;
		}
		tries = 0;
		if (in.flags & TCP_RST)
			goto fail;
		if ((in.flags & TCP_ACK) && in.ack == iss + 1 + (uint32_t)reqlen)
			request_acked = true;
		if (in.len > *max_seg)
			*max_seg = in.len;
		if (in.seq == rcv_nxt) {
			if (len + in.len > cap) {
				uint8_t *nb = realloc(buf, 2 * (len + in.len));
				if (!nb)
					goto fail;
				buf = nb;
				cap = 2 * (len + in.len);
			}
			memcpy(buf + len, in.data, in.len);
			len += in.len;
			rcv_nxt += (uint32_t)in.len;
			if (in.flags & TCP_FIN) {
				rcv_nxt++;
				out.seq = iss + 1 + (uint32_t)reqlen;
				out.ack = rcv_nxt;
				out.flags = TCP_ACK | TCP_FIN;
				send_tcp(c, &out);
				recv_tcp(c, out.sport, 500, &in, &store);   /* the last ACK; nothing depends on it */
				*resp = buf;
				*resp_len = len;
				return 0;
			}
		}
		if (in.len || (in.flags & TCP_FIN)) {
			out.seq = iss + 1 + (uint32_t)reqlen;
			out.ack = rcv_nxt;   /* a duplicate ACK when something was missing */
			out.flags = TCP_ACK;
			send_tcp(c, &out);
		}
	}
fail:
	free(buf);
	return -1;
}

static void usage(void)
{
	fprintf(stderr, "usage: ipoib-client --socket PATH --guid PORT_GUID [--port-num N] --fetch FILE --out PATH\n"
			"                    [--blksize N] [--expect-ip A.B.C.D] [--server A.B.C.D]\n"
			"                    [--on-joined SHELL-COMMAND] [--http PATH --http-out FILE] [-v]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' }, { "guid", required_argument, NULL, 'g' },
		{ "port-num", required_argument, NULL, 'p' }, { "fetch", required_argument, NULL, 'f' },
		{ "out", required_argument, NULL, 'o' }, { "blksize", required_argument, NULL, 'b' },
		{ "expect-ip", required_argument, NULL, 'e' }, { "server", required_argument, NULL, 'S' },
		{ "on-joined", required_argument, NULL, 'J' }, { "http", required_argument, NULL, 'H' },
		{ "http-out", required_argument, NULL, 'O' }, { "verbose", no_argument, NULL, 'v' },
		{ 0, 0, 0, 0 },
	};
	const char *sock = NULL, *fetch = NULL, *outpath = NULL, *expect_ip = NULL, *server_s = "198.18.0.1";
	const char *on_joined = NULL, *http = NULL, *http_out = NULL;
	uint64_t guid = 0;
	unsigned port_num = 1, blksize = 2048;
	static struct client c;
	char err[256];
	int o;

	while ((o = getopt_long(argc, argv, "v", opts, NULL)) != -1) {
		switch (o) {
		case 's': sock = optarg; break;
		case 'g': guid = strtoull(optarg, NULL, 0); break;
		case 'p': port_num = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'f': fetch = optarg; break;
		case 'o': outpath = optarg; break;
		case 'b': blksize = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'e': expect_ip = optarg; break;
		case 'S': server_s = optarg; break;
		case 'J': on_joined = optarg; break;
		case 'H': http = optarg; break;
		case 'O': http_out = optarg; break;
		case 'v': c.verbose = true; break;
		default: usage(); return 2;
		}
	}
	struct in_addr sa;
	if (!sock || !guid || !fetch || !outpath || inet_pton(AF_INET, server_s, &sa) != 1) {
		usage();
		return 2;
	}
	uint32_t server = ntohl(sa.s_addr);

	struct ipoib_node_cfg cfg = {
		.node_guid = guid - port_num, .port_guid = guid, .node_desc = "ipoib-client",
		.qpn = CLIENT_QPN, .ipv4 = 0, .prefix_len = 24, .ctx = &c,
		.send_packet = send_packet, .deliver_ipv4 = deliver_ipv4, .log = log_line,
	};
	c.node = ipoib_node_create(&cfg, err, sizeof err);
	if (!c.node)
		return fail("%s", err);
	c.fab = fabsim_client_connect(sock, guid, port_num, "ipoib-client", err, sizeof err);
	if (!c.fab)
		return fail("attach to fabsim: %s", err);
	printf("client: attached to fabsim as port GUID 0x%016" PRIx64 " (port %u), QPN 0x%06x\n", guid,
	       port_num, CLIENT_QPN);

	/* 1. ACTIVE under OpenSM and a member of the broadcast group. */
	if (pump(&c, 60000, is_joined) < 0 || !ipoib_node_joined(c.node))
		return fail("%s", "port did not become ACTIVE and join the broadcast group within 60 s");
	printf("client: port ACTIVE, LID %u, joined the IPoIB broadcast group\n", ipoib_node_lid(c.node));
	/* A test hook: e.g. switch on fault injection once the SM is done with this port. */
	if (on_joined) {
		fflush(stdout);
		int r = system(on_joined);
		if (r != 0)
			return fail("--on-joined command failed: %s", on_joined);
	}

	/* 2. DHCP (RFC 4390). */
	uint8_t clid[20];
	size_t clid_len = dhcp_ib_client_id(clid, guid);
	uint32_t xid = (uint32_t)(guid * 2654435761u) ^ (uint32_t)now_ms();
	struct dhcp_msg offer, ack;
	if (dhcp_step(&c, DHCP_DISCOVER, xid, clid, clid_len, 0, 0, DHCP_OFFER, &offer) < 0)
		return fail("%s", "no DHCPOFFER");
	printf("client: DHCPOFFER %s from server-id %s (htype %u hlen %u flags 0x%04x)\n", ipstr(offer.yiaddr),
	       ipstr(offer.server_id), offer.htype, offer.hlen, offer.flags);
	if (dhcp_step(&c, DHCP_REQUEST, xid, clid, clid_len, offer.yiaddr, offer.server_id, DHCP_ACK, &ack) < 0)
		return fail("%s", "no DHCPACK");
	printf("client: DHCPACK %s mask %s siaddr %s server-id %s htype %u hlen %u flags 0x%04x boot '%s%s'\n",
	       ipstr(ack.yiaddr), ipstr(ack.subnet_mask), ipstr(ack.siaddr), ipstr(ack.server_id), ack.htype,
	       ack.hlen, ack.flags, ack.bootfile, ack.file);
	int bad = 0;
	if (ack.htype != DHCP_HTYPE_INFINIBAND || ack.hlen != 0) {
		printf("client: FAILED: reply is not htype 32 / hlen 0 (RFC 4390 §2.1)\n");
		bad = 1;
	}
	if (!(ack.flags & DHCP_FLAG_BROADCAST)) {
		printf("client: FAILED: reply lost the broadcast flag\n");
		bad = 1;
	}
	if (ack.yiaddr != offer.yiaddr || ack.server_id != server) {
		printf("client: FAILED: ACK address/server-id differ from the OFFER / expected server\n");
		bad = 1;
	}
	if (expect_ip) {
		struct in_addr e;
		if (inet_pton(AF_INET, expect_ip, &e) != 1 || ntohl(e.s_addr) != ack.yiaddr) {
			printf("client: FAILED: leased %s, expected the reservation %s\n", ipstr(ack.yiaddr), expect_ip);
			bad = 1;
		}
	}
	if (bad)
		return 1;
	c.ip = ack.yiaddr;
	ipoib_node_set_ipv4(c.node, c.ip, 24);

	/* 3. TFTP from the server (unicast: ARP for it, PathRecord, then lock-step DATA/ACK). */
	FILE *out = fopen(outpath, "wb");
	if (!out)
		return fail("cannot create %s", outpath);
	long got_blk, got_tsize;
	size_t total;
	int r = do_tftp(&c, server, fetch, blksize, out, &got_blk, &got_tsize, &total);
	if (fclose(out) != 0 || r < 0)
		return fail("TFTP transfer of %s failed", fetch);
	printf("client: TFTP %s: %zu bytes, OACK blksize %ld tsize %ld\n", fetch, total, got_blk, got_tsize);
	if (got_tsize >= 0 && (size_t)got_tsize != total)
		return fail("%s", "received length differs from the OACK tsize");
	/* 4. Optionally the same over HTTP from nginx (TCP through the fabric and the TUN). */
	if (http && http_out) {
		uint8_t *resp = NULL;
		size_t rlen = 0, max_seg = 0;
		if (do_http(&c, server, http, &resp, &rlen, &max_seg) < 0)
			return fail("HTTP GET /%s failed", http);
		uint8_t *body = memmem(resp, rlen, "\r\n\r\n", 4);
		char status[64] = "";
		sscanf((const char *)resp, "%63[^\r\n]", status);
		if (!body) {
			free(resp);
			return fail("%s", "HTTP response without a header end");
		}
		body += 4;
		FILE *hf = fopen(http_out, "wb");
		size_t blen = rlen - (size_t)(body - resp);
		if (!hf || fwrite(body, 1, blen, hf) != blen || fclose(hf) != 0) {
			free(resp);
			return fail("cannot write %s", http_out);
		}
		printf("client: HTTP GET /%s: '%s', %zu body bytes, largest TCP segment %zu\n", http, status, blen,
		       max_seg);
		free(resp);
		if (strncmp(status, "HTTP/1.1 200", 12) != 0)
			return fail("%s", "HTTP status is not 200");
	}
	const struct ipoib_node_stats *s = ipoib_node_stats(c.node);
	printf("client: stats rx %" PRIu64 " ipv4 %" PRIu64 " arp %" PRIu64 " tx %" PRIu64 " path queries %" PRIu64
	       " dropped(bad %" PRIu64 " pkey %" PRIu64 " qkey %" PRIu64 ")\n", s->rx_packets, s->rx_ipv4, s->rx_arp,
	       s->tx_packets, s->path_queries, s->rx_bad_packet, s->rx_bad_pkey, s->rx_bad_qkey);
	fabsim_client_close(c.fab);
	ipoib_node_destroy(c.node);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * fabsim-servernode — the fabric's IPoIB server host. Attaches to fabsim as a CA port, answers
 * the SM through the firmware SMA library, joins the IPoIB broadcast group and bridges IPv4
 * between the fabric and a TUN device, behind which the real dnsmasq and nginx run.
 *
 * Run it inside the network namespace that holds the TUN device (ip netns exec NS ...): the TUN
 * is opened in the caller's namespace, while fabsim's Unix socket is reached by path from any
 * namespace.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "fabsim_client_ref.h"
#include "fabsim_wire.h"
#include "ipoib_node.h"
#include "tun.h"
#include "tun_gso.h"

/* Packets to fabsim leave in batches: one sendmmsg per turn of the loop (or per TX_BATCH). */
#define TX_BATCH 64

struct tx_slot {
	struct fabsim_wire_hdr h;
	uint8_t data[FABSIM_WIRE_MAX_DATA];
};

struct servernode {
	struct fabsim_client *fab;
	struct ipoib_node *node;
	int tun_fd;
	bool offload;              /* the TUN has a virtio-net header and TSO (tun_gso.h) */
	bool verbose;
	uint64_t tun_split_errors;
	uint64_t tun_write_errors;
	unsigned ntx;
	struct tx_slot tx[TX_BATCH];
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) { stop_signal = sig; }

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void log_line(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "servernode: %s\n", line);
	fflush(stderr);
}

/* Sends what is queued (fabsim_wire.h PACKET messages). A full socket means fabsim is behind: the
 * rest is dropped like a congested link would (as fabsim_client_send_packet does). */
static void flush_packets(struct servernode *sn)
{
	struct mmsghdr mm[TX_BATCH];
	struct iovec iov[TX_BATCH][2];
	unsigned sent = 0;

	for (unsigned i = 0; i < sn->ntx; i++) {
		iov[i][0] = (struct iovec){ &sn->tx[i].h, sizeof(sn->tx[i].h) };
		iov[i][1] = (struct iovec){ sn->tx[i].data, sn->tx[i].h.len };
		mm[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = iov[i], .msg_iovlen = 2 } };
	}
	while (sent < sn->ntx) {
		int r = sendmmsg(fabsim_client_fd(sn->fab), mm + sent, sn->ntx - sent,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			fprintf(stderr, "servernode: sending %u packets to fabsim failed: %s\n",
				sn->ntx - sent, strerror(errno));
		if (r <= 0)
			break;
		sent += (unsigned)r;
	}
	sn->ntx = 0;
}

static void send_packet(void *ctx, const uint8_t *pkt, size_t len)
{
	struct servernode *sn = ctx;

	if (len > FABSIM_WIRE_MAX_DATA) {
		fprintf(stderr, "servernode: a %zu-byte packet does not fit a fabsim message\n", len);
		return;
	}
	sn->tx[sn->ntx].h = (struct fabsim_wire_hdr){ .type = FABSIM_MSG_PACKET, .len = (uint32_t)len };
	memcpy(sn->tx[sn->ntx].data, pkt, len);
	if (++sn->ntx == TX_BATCH)
		flush_packets(sn);
}

/* -v: one line per IPv4 datagram crossing the bridge ("fabric->tun" or "tun->fabric"). */
static void trace_ipv4(const char *dir, const uint8_t *d, size_t len)
{
	char src[16], dst[16];
	if (len < 20)
		return;
	inet_ntop(AF_INET, d + 12, src, sizeof src);
	inet_ntop(AF_INET, d + 16, dst, sizeof dst);
	unsigned ihl = (d[0] & 15u) * 4u;
	if ((d[9] == 6 || d[9] == 17) && len >= ihl + 4)
		fprintf(stderr, "servernode: %s %s:%u -> %s:%u %s %zu bytes\n", dir, src,
			(unsigned)(d[ihl] << 8 | d[ihl + 1]), dst, (unsigned)(d[ihl + 2] << 8 | d[ihl + 3]),
			d[9] == 6 ? "TCP" : "UDP", len);
	else
		fprintf(stderr, "servernode: %s %s -> %s proto %u %zu bytes\n", dir, src, dst, d[9], len);
}

static void deliver_ipv4(void *ctx, const uint8_t *dgram, size_t len)
{
	struct servernode *sn = ctx;
	if (sn->verbose)
		trace_ipv4("fabric->tun", dgram, len);
	/* With offloads a zeroed virtio-net header goes first: no offload asked, the kernel checks
	 * every checksum the client computed. */
	static const uint8_t vnet[TUN_VNET_HDR_LEN];
	struct iovec iov[2] = { { (void *)vnet, sizeof vnet }, { (void *)dgram, len } };
	size_t want = len + (sn->offload ? sizeof vnet : 0);
	if (writev(sn->tun_fd, iov + !sn->offload, 1 + sn->offload) != (ssize_t)want &&
	    sn->tun_write_errors++ == 0)
		fprintf(stderr, "servernode: write to TUN failed: %s (further errors counted)\n", strerror(errno));
}

/* One IPv4 datagram from the TUN onto the fabric. */
static void from_tun(void *ctx, const uint8_t *dgram, size_t len)
{
	struct servernode *sn = ctx;
	if (sn->verbose)
		trace_ipv4("tun->fabric", dgram, len);
	ipoib_node_send_ipv4(sn->node, dgram, len, now_ms());
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || !*s || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_cidr(const char *s, uint32_t *addr, unsigned *prefix)
{
	char buf[32];
	struct in_addr a;
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);

	if (n >= sizeof buf)
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (inet_pton(AF_INET, buf, &a) != 1)
		return -EINVAL;
	*addr = ntohl(a.s_addr);
	*prefix = 24;
	if (slash) {
		uint64_t p;
		if (parse_u64(slash + 1, &p) < 0 || p > 32)
			return -EINVAL;
		*prefix = (unsigned)p;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fabsim-servernode --socket PATH --guid PORT_GUID [--node-guid GUID] [--name NAME]\n"
		"                         [--tun DEV] [--ip A.B.C.D/N] [--qpn QPN] [--pkey P_KEY] [-v]\n"
		"  --socket PATH    fabsim's HCA socket (fabsim --hca-socket PATH)\n"
		"  --guid GUID      this port's GUID, as the topology file lists it\n"
		"  --node-guid GUID node GUID (default: port GUID - 1)\n"
		"  --name NAME      node name for fabsim's logs and NodeDescription (default servernode)\n"
		"  --tun DEV        TUN device to bridge to (default ibsim0), opened in this namespace\n"
		"  --ip A.B.C.D/N   the address ARP answers for (default 198.18.0.1/24)\n"
		"  --qpn QPN        IPoIB UD QPN (default 0x%06x)\n"
		"  --pkey P_KEY     IPoIB partition: its broadcast group is joined and its P_Key used once\n"
		"                   the SM put it in the port's P_Key table (default: table entry 0)\n"
		"  -v, --verbose    one log line per IPv4 datagram bridged\n", IPOIB_NODE_DEFAULT_QPN);
}

static void print_stats(const struct ipoib_node *n)
{
	const struct ipoib_node_stats *s = ipoib_node_stats(n);
	fprintf(stderr,
		"servernode: stats rx %" PRIu64 " (ipv4 %" PRIu64 ", arp %" PRIu64 ", smp %" PRIu64
		", gsi %" PRIu64 "; dropped: bad %" PRIu64 ", pkey %" PRIu64 ", qkey %" PRIu64
		", group %" PRIu64 ", qp %" PRIu64 ", ipoib %" PRIu64 ") tx %" PRIu64 " (ipv4 %" PRIu64
		", arp %" PRIu64 "; dropped: not joined %" PRIu64 ", unresolved %" PRIu64 ", bad %" PRIu64
		") joins %" PRIu64 " path queries %" PRIu64 "\n",
		s->rx_packets, s->rx_ipv4, s->rx_arp, s->rx_smp, s->rx_gsi, s->rx_bad_packet,
		s->rx_bad_pkey, s->rx_bad_qkey, s->rx_wrong_group, s->rx_unknown_qp, s->rx_bad_ipoib,
		s->tx_packets, s->tx_ipv4, s->tx_arp, s->tx_dropped_not_joined,
		s->tx_dropped_unresolved, s->tx_dropped_bad, s->joins, s->path_queries);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' }, { "guid", required_argument, NULL, 'g' },
		{ "node-guid", required_argument, NULL, 'N' }, { "name", required_argument, NULL, 'n' },
		{ "tun", required_argument, NULL, 't' }, { "ip", required_argument, NULL, 'i' },
		{ "qpn", required_argument, NULL, 'q' }, { "verbose", no_argument, NULL, 'v' },
		{ "pkey", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' }, { 0, 0, 0, 0 },
	};
	const char *sock = NULL, *name = "servernode", *tun = "ibsim0", *ip = "198.18.0.1/24";
	uint64_t guid = 0, node_guid = 0, qpn = IPOIB_NODE_DEFAULT_QPN, pkey = 0;
	static struct servernode sn = { .tun_fd = -1 };
	char err[256];
	int c;

	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case 's': sock = optarg; break;
		case 'g': if (parse_u64(optarg, &guid) < 0) goto bad; break;
		case 'N': if (parse_u64(optarg, &node_guid) < 0) goto bad; break;
		case 'n': name = optarg; break;
		case 't': tun = optarg; break;
		case 'i': ip = optarg; break;
		case 'q': if (parse_u64(optarg, &qpn) < 0) goto bad; break;
		case 'p':
			if (parse_u64(optarg, &pkey) < 0 || pkey > 0xFFFF || !(pkey & 0x7FFF))
				goto bad;
			pkey |= 0x8000;   /* RFC 4391 §4: IPoIB runs as a full member */
			break;
		case 'v': sn.verbose = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!sock || !guid || optind != argc) {
		usage(stderr);
		return 2;
	}
	uint32_t addr;
	unsigned prefix;
	if (parse_cidr(ip, &addr, &prefix) < 0) {
		fprintf(stderr, "servernode: --ip '%s' is not A.B.C.D/N\n", ip);
		return 2;
	}

	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	sn.offload = !getenv("SERVERNODE_NO_OFFLOAD");
	sn.tun_fd = tun_open(tun, &sn.offload, err, sizeof err);
	if (sn.tun_fd < 0) {
		fprintf(stderr, "servernode: %s\n", err);
		return 1;
	}
	struct ipoib_node_cfg cfg = {
		.node_guid = node_guid ? node_guid : guid - 1, .port_guid = guid, .node_desc = name,
		.qpn = (uint32_t)qpn, .pkey = (uint16_t)pkey, .ipv4 = addr, .prefix_len = prefix, .ctx = &sn,
		.send_packet = send_packet, .deliver_ipv4 = deliver_ipv4, .log = log_line,
	};
	sn.node = ipoib_node_create(&cfg, err, sizeof err);
	if (!sn.node) {
		fprintf(stderr, "servernode: %s\n", err);
		close(sn.tun_fd);
		return 1;
	}
	sn.fab = fabsim_client_connect(sock, guid, 1, name, err, sizeof err);
	if (!sn.fab) {
		fprintf(stderr, "servernode: cannot attach to fabsim at %s: %s\n", sock, err);
		ipoib_node_destroy(sn.node);
		close(sn.tun_fd);
		return 1;
	}
	fprintf(stderr, "servernode: attached to fabsim at %s as port GUID 0x%016" PRIx64
		", QPN 0x%06" PRIx64 ", %s on TUN %s%s\n", sock, guid, qpn, ip, tun,
		sn.offload ? " (TCP segmentation offload)" : "");

	static uint8_t dgram[TUN_VNET_HDR_LEN + 65536];
	int rc = 0;
	while (!stop_signal) {
		struct pollfd pfd[2] = {
			{ .fd = fabsim_client_fd(sn.fab), .events = POLLIN },
			{ .fd = sn.tun_fd, .events = POLLIN },
		};
		int timeout = ipoib_node_tick(sn.node, now_ms());
		flush_packets(&sn);
		if (poll(pfd, 2, timeout < 0 ? 1000 : timeout) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "servernode: poll: %s\n", strerror(errno));
			rc = 1;
			break;
		}
		if (pfd[0].revents) {
			struct fabsim_msg_ref msg;
			int r;
			while ((r = fabsim_client_recv_ref(sn.fab, &msg)) == 1) {
				if (msg.type == FABSIM_MSG_LINK)
					ipoib_node_link(sn.node, msg.flags == FABSIM_LINK_UP, now_ms());
				else if (msg.type == FABSIM_MSG_PACKET)
					ipoib_node_packet_in(sn.node, msg.data, msg.len, now_ms());
			}
			if (r < 0) {
				fprintf(stderr, "servernode: fabsim connection: %s; exiting\n", strerror(-r));
				rc = 1;
				break;
			}
		}
		/* One TUN read per turn: the next poll() says whether another waits (reading on
		 * until EAGAIN costs a system call per wakeup), and this one's packets leave first. */
		if (pfd[1].revents & POLLIN) {
			do {
				ssize_t n = read(sn.tun_fd, dgram, sizeof dgram);
				if (n <= 0)
					break;
				const uint8_t *ip = dgram + (sn.offload ? TUN_VNET_HDR_LEN : 0);
				if ((size_t)n <= (size_t)(ip - dgram))
					continue;
				/* IPv6 from the kernel (RS, MLD) has no place on this IPv4-only link. */
				if ((ip[0] >> 4) != 4)
					continue;
				if (!sn.offload) {
					from_tun(&sn, dgram, (size_t)n);
					continue;
				}
				const char *why = "";
				if (tun_gso_split(dgram, (size_t)n, from_tun, &sn, &why) < 0 &&
				    sn.tun_split_errors++ == 0)
					fprintf(stderr, "servernode: dropped a %zd-byte TUN read: %s (further drops counted)\n",
						n, why);
			} while (0);
		}
	}
	if (stop_signal)
		fprintf(stderr, "servernode: signal %d: detaching\n", (int)stop_signal);
	flush_packets(&sn);
	print_stats(sn.node);
	fabsim_client_close(sn.fab);
	ipoib_node_destroy(sn.node);
	close(sn.tun_fd);
	return rc;
bad:
	fprintf(stderr, "servernode: bad number '%s'\n", optarg);
	return 2;
}

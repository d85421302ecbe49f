/* SPDX-License-Identifier: MIT */
/*
 * The server node's bridge between its IPoIB port (ipoib_node) and a TUN device, behind which the
 * real dnsmasq and nginx run. Its IB packets go wherever the embedding program sends them
 * (sn_bridge.h).
 */
#include "sn_bridge.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "ipoib_node.h"
#include "tun.h"
#include "tun_gso.h"

struct sn_bridge {
	struct ipoib_node *node;
	int tun_fd;
	bool offload;              /* the TUN has a virtio-net header and TSO (tun_gso.h) */
	bool verbose;
	char ip[32];
	char tun[32];
	uint64_t guid, qpn;
	uint64_t tun_split_errors;
	uint64_t tun_write_errors;
	void (*send)(void *ctx, const uint8_t *pkt, size_t len);
	void *send_ctx;
	uint8_t dgram[TUN_VNET_HDR_LEN + 65536];
};

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

static void usage(FILE *f, bool with_socket)
{
	fprintf(f, "%s",
		with_socket ?
		"usage: fabsim-servernode --socket PATH --guid PORT_GUID [--node-guid GUID] [--name NAME]\n"
		"                         [--tun DEV] [--ip A.B.C.D/N] [--qpn QPN] [--pkey P_KEY] [-v]\n"
		"  --socket PATH    fabsim's HCA socket (fabsim --hca-socket PATH)\n" :
		"usage: fabsim [fabsim options] --servernode --guid PORT_GUID [--node-guid GUID] [--name NAME]\n"
		"              [--tun DEV] [--ip A.B.C.D/N] [--qpn QPN] [--pkey P_KEY] [-v]\n");
	fprintf(f,
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

int sn_bridge_parse(int argc, char **argv, bool with_socket, struct sn_bridge_opts *o)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' }, { "guid", required_argument, NULL, 'g' },
		{ "node-guid", required_argument, NULL, 'N' }, { "name", required_argument, NULL, 'n' },
		{ "tun", required_argument, NULL, 't' }, { "ip", required_argument, NULL, 'i' },
		{ "qpn", required_argument, NULL, 'q' }, { "verbose", no_argument, NULL, 'v' },
		{ "pkey", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' }, { 0, 0, 0, 0 },
	};
	uint32_t addr;
	unsigned prefix;
	int c;

	*o = (struct sn_bridge_opts){ .name = "servernode", .tun = "ibsim0", .ip = "198.18.0.1/24",
				      .qpn = IPOIB_NODE_DEFAULT_QPN };
	optind = 0;   /* GNU getopt: start over (fabsim parsed its own options first) */
	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (!with_socket)
				goto usage;
			o->socket = optarg;
			break;
		case 'g': if (parse_u64(optarg, &o->guid) < 0) goto bad; break;
		case 'N': if (parse_u64(optarg, &o->node_guid) < 0) goto bad; break;
		case 'n': o->name = optarg; break;
		case 't': o->tun = optarg; break;
		case 'i': o->ip = optarg; break;
		case 'q': if (parse_u64(optarg, &o->qpn) < 0) goto bad; break;
		case 'p':
			if (parse_u64(optarg, &o->pkey) < 0 || o->pkey > 0xFFFF || !(o->pkey & 0x7FFF))
				goto bad;
			o->pkey |= 0x8000;   /* RFC 4391 §4: IPoIB runs as a full member */
			break;
		case 'v': o->verbose = true; break;
		case 'h': usage(stdout, with_socket); return 1;
		default: goto usage;
		}
	}
	if ((with_socket && !o->socket) || !o->guid || optind != argc)
		goto usage;
	if (parse_cidr(o->ip, &addr, &prefix) < 0) {
		fprintf(stderr, "servernode: --ip '%s' is not A.B.C.D/N\n", o->ip);
		return 2;
	}
	return 0;
usage:
	usage(stderr, with_socket);
	return 2;
bad:
	fprintf(stderr, "servernode: bad number '%s'\n", optarg);
	return 2;
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
	struct sn_bridge *b = ctx;
	if (b->verbose)
		trace_ipv4("fabric->tun", dgram, len);
	/* With offloads a zeroed virtio-net header goes first: no offload asked, the kernel checks
	 * every checksum the client computed. */
	static const uint8_t vnet[TUN_VNET_HDR_LEN];
	struct iovec iov[2] = { { (void *)vnet, sizeof vnet }, { (void *)dgram, len } };
	size_t want = len + (b->offload ? sizeof vnet : 0);
	if (writev(b->tun_fd, iov + !b->offload, 1 + b->offload) != (ssize_t)want &&
	    b->tun_write_errors++ == 0)
		fprintf(stderr, "servernode: write to TUN failed: %s (further errors counted)\n", strerror(errno));
}

/* One IPv4 datagram from the TUN onto the fabric. */
static void from_tun(void *ctx, const uint8_t *dgram, size_t len)
{
	struct sn_bridge *b = ctx;
	if (b->verbose)
		trace_ipv4("tun->fabric", dgram, len);
	ipoib_node_send_ipv4(b->node, dgram, len, now_ms());
}

/* The node's packets, to the embedder. */
static void send_packet(void *ctx, const uint8_t *pkt, size_t len)
{
	struct sn_bridge *b = ctx;
	b->send(b->send_ctx, pkt, len);
}

struct sn_bridge *sn_bridge_open(const struct sn_bridge_opts *o,
				 void (*send)(void *ctx, const uint8_t *pkt, size_t len),
				 void *ctx, char *err, size_t errlen)
{
	struct sn_bridge *b = calloc(1, sizeof(*b));
	uint32_t addr;
	unsigned prefix;

	if (!b) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (parse_cidr(o->ip, &addr, &prefix) < 0) {
		snprintf(err, errlen, "--ip '%s' is not A.B.C.D/N", o->ip);
		free(b);
		return NULL;
	}
	b->send = send;
	b->send_ctx = ctx;
	b->verbose = o->verbose;
	b->guid = o->guid;
	b->qpn = o->qpn;
	snprintf(b->ip, sizeof b->ip, "%s", o->ip);
	snprintf(b->tun, sizeof b->tun, "%s", o->tun);
	b->offload = !getenv("SERVERNODE_NO_OFFLOAD");
	b->tun_fd = tun_open(o->tun, &b->offload, err, errlen);
	if (b->tun_fd < 0) {
		free(b);
		return NULL;
	}
	struct ipoib_node_cfg cfg = {
		.node_guid = o->node_guid ? o->node_guid : o->guid - 1, .port_guid = o->guid,
		.node_desc = o->name, .qpn = (uint32_t)o->qpn, .pkey = (uint16_t)o->pkey, .ipv4 = addr,
		.prefix_len = prefix, .ctx = b, .send_packet = send_packet, .deliver_ipv4 = deliver_ipv4,
		.log = log_line,
	};
	b->node = ipoib_node_create(&cfg, err, errlen);
	if (!b->node) {
		close(b->tun_fd);
		free(b);
		return NULL;
	}
	return b;
}

void sn_bridge_log_attached(const struct sn_bridge *b, const char *where)
{
	fprintf(stderr, "servernode: attached to %s as port GUID 0x%016" PRIx64
		", QPN 0x%06" PRIx64 ", %s on TUN %s%s\n", where, b->guid, b->qpn, b->ip, b->tun,
		b->offload ? " (TCP segmentation offload)" : "");
	fflush(stderr);
}

int sn_bridge_tun_fd(const struct sn_bridge *b)
{
	return b->tun_fd;
}

void sn_bridge_tun_read(struct sn_bridge *b)
{
	ssize_t n = read(b->tun_fd, b->dgram, sizeof b->dgram);
	if (n <= 0)
		return;
	const uint8_t *ip = b->dgram + (b->offload ? TUN_VNET_HDR_LEN : 0);
	if ((size_t)n <= (size_t)(ip - b->dgram))
		return;
	/* IPv6 from the kernel (RS, MLD) has no place on this IPv4-only link. */
	if ((ip[0] >> 4) != 4)
		return;
	if (!b->offload) {
		from_tun(b, b->dgram, (size_t)n);
		return;
	}
	const char *why = "";
	if (tun_gso_split(b->dgram, (size_t)n, from_tun, b, &why) < 0 && b->tun_split_errors++ == 0)
		fprintf(stderr, "servernode: dropped a %zd-byte TUN read: %s (further drops counted)\n",
			n, why);
}

void sn_bridge_packet_in(struct sn_bridge *b, const uint8_t *pkt, size_t len)
{
	ipoib_node_packet_in(b->node, pkt, len, now_ms());
}

void sn_bridge_link(struct sn_bridge *b, bool up)
{
	ipoib_node_link(b->node, up, now_ms());
}

int sn_bridge_tick(struct sn_bridge *b)
{
	return ipoib_node_tick(b->node, now_ms());
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

void sn_bridge_close(struct sn_bridge *b)
{
	if (!b)
		return;
	print_stats(b->node);
	ipoib_node_destroy(b->node);
	close(b->tun_fd);
	free(b);
}

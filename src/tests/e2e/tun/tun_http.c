/* SPDX-License-Identifier: MIT */
/*
 * ibboot's TCP and HTTP client on a Linux TUN device (IFF_TUN|IFF_NO_PI, plain IPv4), for the
 * integration test against the real nginx (nginx-e2e.sh): the image's code, with a net_device
 * whose wire is the TUN fd instead of IPoIB. Optionally impairs what it receives (loss,
 * reordering, duplicates) with a seeded generator, for when the kernel has no netem.
 *
 * Usage: tun-http TUN [--loss PCT] [--reorder PCT] [--dup PCT] [--dns IP] STEP...
 *   get URL OUT        download URL, write the body to OUT
 *   get-fail URL       download URL, expecting an error
 * Prints "RESULT ..." lines the script checks; exits 1 on the first step that does not do what
 * it should.
 */
#include "net_test_env.h"

#include <ibboot/dns.h>
#include <ibboot/errno.h>
#include <ibboot/http.h>
#include <ibboot/timer.h>

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define TUN_MTU 2044
#define POOL 16
#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

static int tun_fd = -1;
static struct net_device tun_nd;
static struct net_buf pool[POOL];
static uint8_t pool_mem[POOL][TUN_MTU + 64];
static bool pool_busy[POOL];
static unsigned loss_pct, reorder_pct, dup_pct;
static uint64_t rng = 0x2545f4914f6cdd1dull;
static unsigned impaired_drops, impaired_reorders, impaired_dups;

static bool trace;

/* TUN_HTTP_TRACE=1: one line per TCP segment either way (what was dropped too). */
static void trace_seg(const char *dir, const uint8_t *ip, size_t n)
{
	size_t hl = (size_t)(ip[0] & 15) * 4;
	const uint8_t *t = ip + hl;

	if (!trace || n < hl + 20 || ip[9] != 6)
		return;
	fprintf(stderr, "%s %u seq=%u ack=%u len=%zu flags=%02x win=%u\n", dir,
		(unsigned)(test_now_ms % 100000), (unsigned)t[4] << 24 | (unsigned)t[5] << 16 | (unsigned)t[6] << 8 | t[7],
		(unsigned)t[8] << 24 | (unsigned)t[9] << 16 | (unsigned)t[10] << 8 | t[11],
		n - hl - (size_t)(t[12] >> 4) * 4, t[13], (unsigned)(t[14] << 8 | t[15]));
}

static uint64_t real_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static unsigned roll(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % 100);
}

static struct net_buf *tun_alloc_tx(struct net_device *nd)
{
	(void)nd;
	for (unsigned i = 0; i < POOL; i++) {
		if (!pool_busy[i]) {
			pool_busy[i] = true;
			pool[i] = (struct net_buf){ pool_mem[i], pool_mem[i] + 4, 0,
						    sizeof(pool_mem[i]), (void *)(uintptr_t)i, NULL };
			return &pool[i];
		}
	}
	return NULL;
}

static void tun_free_tx(struct net_device *nd, struct net_buf *nb)
{
	(void)nd;
	pool_busy[(uintptr_t)nb->ll_priv] = false;
}

static int tun_transmit(struct net_device *nd, struct net_buf *nb, uint16_t ethertype,
			uint32_t next_hop, unsigned flags)
{
	ssize_t n = -1;

	(void)next_hop;
	(void)flags;   /* a TUN is layer 3: the kernel routes by destination address */
	if (ethertype == ETHERTYPE_IPV4) {
		trace_seg("tx", nb->data, nb->len);
		n = write(tun_fd, nb->data, nb->len);
	}
	tun_free_tx(nd, nb);
	if (n != (ssize_t)nb->len) {
		nd->stats.tx_errors++;
		return -EIO;
	}
	nd->stats.tx_packets++;
	return 0;
}

/* One received datagram, through the optional impairment. */
static void receive(struct net_device *nd, const uint8_t *buf, size_t n)
{
	static uint8_t held[65536];
	static size_t held_len;

	if ((buf[0] >> 4) != 4)
		return;
	if (loss_pct && roll() < loss_pct) {
		trace_seg("DROP", buf, n);
		impaired_drops++;
		return;
	}
	if (reorder_pct && !held_len && roll() < reorder_pct) {
		memcpy(held, buf, n);   /* delivered after the next datagram */
		held_len = n;
		impaired_reorders++;
		return;
	}
	trace_seg("rx", buf, n);
	net_rx(nd, ETHERTYPE_IPV4, buf, n);
	if (dup_pct && roll() < dup_pct) {
		impaired_dups++;
		net_rx(nd, ETHERTYPE_IPV4, buf, n);
	}
	if (held_len) {
		size_t l = held_len;

		held_len = 0;
		net_rx(nd, ETHERTYPE_IPV4, held, l);
	}
}

static void tun_poll(struct net_device *nd, uint64_t now)
{
	static uint8_t buf[65536];
	struct pollfd p = { tun_fd, POLLIN, 0 };

	(void)now;
	/* Sleep up to 1 ms when idle: the machine is shared, spinning would steal a core. */
	if (poll(&p, 1, 1) > 0) {
		for (int i = 0; i < 256; i++) {
			ssize_t n = read(tun_fd, buf, sizeof(buf));

			if (n <= 0)
				break;
			receive(nd, buf, (size_t)n);
		}
	}
	test_now_ms = real_ms();
}

static const struct net_device_ops tun_ops = {
	.alloc_tx = tun_alloc_tx, .free_tx = tun_free_tx, .transmit = tun_transmit,
	.poll = tun_poll,
};

static int tun_open(const char *name)
{
	struct ifreq ifr;

	tun_fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK);
	if (tun_fd < 0) {
		perror("/dev/net/tun");
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (ioctl(tun_fd, TUNSETIFF, &ifr) < 0) {
		perror("TUNSETIFF");
		return -1;
	}
	return 0;
}

static struct progress_state {
	uint64_t calls, last, total;
	bool monotonic;
} prog;

static void progress(void *ctx, uint64_t bytes, uint64_t total)
{
	struct progress_state *p = ctx;

	if (bytes < p->last)
		p->monotonic = false;
	p->last = bytes;
	p->total = total;
	p->calls++;
}

static int step_get(const char *url, const char *out, bool expect_fail)
{
	struct http_sink sink = { 0 };
	struct http_options opts = { 0 };
	struct http_result res;
	uint64_t t0, ms;
	long n;

	sink.grow = true;
	sink.progress = progress;
	sink.ctx = &prog;
	prog = (struct progress_state){ 0, 0, 0, true };
	opts.idle_timeout_ms = 10000;
	t0 = real_ms();
	n = http_get(&tun_nd, url, &opts, &sink, &res);
	ms = real_ms() - t0;
	if (expect_fail) {
		printf("RESULT get-fail %s rc=%ld error=%s\n", url, n, res.error);
		http_sink_free(&sink);
		return n < 0 ? 0 : -1;
	}
	if (n < 0) {
		printf("RESULT get %s failed rc=%ld error=%s\n", url, n, res.error);
		http_sink_free(&sink);
		return -1;
	}
	printf("RESULT get %s bytes=%ld status=%u chunked=%d redirects=%u total=%llu "
	       "monotonic=%d ms=%llu MBps=%.1f\n", url, n, res.status, res.chunked, res.redirects,
	       (unsigned long long)prog.total, prog.monotonic, (unsigned long long)ms,
	       ms ? (double)n / 1e3 / (double)ms : 0.0);
	printf("RESULT tcp segs_in=%u segs_out=%u acks=%u ooo_stored=%u ooo_dropped=%u dups=%u "
	       "retransmits=%u fast_retransmits=%u impaired drops=%u reorders=%u dups=%u\n",
	       res.tcp.segs_in, res.tcp.segs_out, res.tcp.acks_out, res.tcp.ooo_stored,
	       res.tcp.ooo_dropped, res.tcp.dup_segs, res.tcp.retransmits,
	       res.tcp.fast_retransmits, impaired_drops, impaired_reorders, impaired_dups);
	FILE *f = fopen(out, "wb");

	if (!f || fwrite(sink.buf, 1, (size_t)n, f) != (size_t)n) {
		perror(out);
		if (f)
			fclose(f);
		http_sink_free(&sink);
		return -1;
	}
	fclose(f);
	http_sink_free(&sink);
	return 0;
}

int main(int argc, char **argv)
{
	int i = 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	test_console_echo = true;
	test_now_ms = real_ms();
	trace = getenv("TUN_HTTP_TRACE") != NULL;
	if (argc < 2) {
		fprintf(stderr, "usage: %s TUN [--loss PCT] [--reorder PCT] [--dup PCT] STEP...\n",
			argv[0]);
		return 2;
	}
	for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
		unsigned v = (unsigned)atoi(argv[i + 1]);

		if (!strcmp(argv[i], "--loss"))
			loss_pct = v;
		else if (!strcmp(argv[i], "--reorder"))
			reorder_pct = v;
		else if (!strcmp(argv[i], "--dup"))
			dup_pct = v;
		else if (!strcmp(argv[i], "--dns")) {
			uint32_t a;

			if (ipv4_aton(argv[i + 1], &a) == 0)
				dns_set_servers(&a, 1);
		}
	}
	if (tun_open(argv[1]) < 0)
		return 1;
	memcpy(tun_nd.name, "ib0", 4);
	tun_nd.ops = &tun_ops;
	tun_nd.mtu = TUN_MTU;
	tun_nd.ll_addr_len = 20;
	tun_nd.ll_type = 32;
	tun_nd.link_up = true;
	netdev_register(&tun_nd);
	ipv4_configure(&tun_nd, IP(198, 18, 0, 2), 0xffffff00u, 0);

	for (; i < argc; i++) {
		int rc;

		if (!strcmp(argv[i], "get") && i + 2 < argc) {
			rc = step_get(argv[i + 1], argv[i + 2], false);
			i += 2;
		} else if (!strcmp(argv[i], "get-fail") && i + 1 < argc) {
			rc = step_get(argv[i + 1], NULL, true);
			i += 1;
		} else {
			fprintf(stderr, "unknown step %s\n", argv[i]);
			return 2;
		}
		if (rc < 0) {
			printf("step %s failed\n", argv[i]);
			return 1;
		}
	}
	close(tun_fd);
	return 0;
}

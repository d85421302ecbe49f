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
#include "tun_netdev.h"

#include <ibboot/dns.h>
#include <ibboot/errno.h>
#include <ibboot/http.h>
#include <ibboot/timer.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

static struct tun_netdev tun;
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

static unsigned roll(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % 100);
}

static void trace_tx(const uint8_t *ip, size_t n)
{
	trace_seg("tx", ip, n);
}

/* One received datagram, through the optional impairment. */
static void receive(struct tun_netdev *t, const uint8_t *buf, size_t n)
{
	static uint8_t held[65536];
	static size_t held_len;

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
	tun_netdev_deliver(t, buf, n);
	if (dup_pct && roll() < dup_pct) {
		impaired_dups++;
		tun_netdev_deliver(t, buf, n);
	}
	if (held_len) {
		size_t l = held_len;

		held_len = 0;
		tun_netdev_deliver(t, held, l);
	}
}

static struct tun_progress prog;

static int step_get(const char *url, const char *out, bool expect_fail)
{
	struct http_sink sink = { 0 };
	struct http_options opts = { 0 };
	struct http_result res;
	uint64_t t0, ms;
	long n;

	sink.grow = true;
	sink.progress = tun_progress;
	sink.ctx = &prog;
	prog = (struct tun_progress){ 0, 0, 0, true };
	opts.idle_timeout_ms = 10000;
	t0 = tun_real_ms();
	n = http_get(&tun.nd, url, &opts, &sink, &res);
	ms = tun_real_ms() - t0;
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
	uint32_t dns[1];
	unsigned n_dns = 0;
	int i = 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	test_console_echo = true;
	test_now_ms = tun_real_ms();
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

			if (ipv4_aton(argv[i + 1], &a) == 0) {
				dns[0] = a;
				n_dns = 1;
			}
		}
	}
	if (tun_netdev_open(&tun, argv[1], NULL) < 0)
		return 1;
	tun.rx = receive;
	tun.tx_trace = trace_tx;
	dns_set_servers(&tun.nd, dns, n_dns);
	ipv4_configure(&tun.nd, IP(198, 18, 0, 2), 0xffffff00u, 0);

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
	tun_netdev_close(&tun);
	return 0;
}

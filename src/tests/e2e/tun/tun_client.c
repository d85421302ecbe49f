/* SPDX-License-Identifier: MIT */
/*
 * ibboot's UDP applications on a Linux TUN device (IFF_TUN|IFF_NO_PI, plain IPv4), for the
 * integration test against the real dnsmasq (dnsmasq-e2e.sh): the same DHCP/DNS/TFTP code as in
 * the image, with a net_device whose wire is the TUN fd instead of IPoIB.
 *
 * Usage: tun-client TUN GUID STEP...
 *   dhcp flexboot|ib[-nofile67] get a lease with that client-id form (-nofile67: option 55
 *                              without 67, so dnsmasq puts the name in the file field)
 *   nslookup NAME              resolve with the DHCP-given server
 *   tftp FILE OUT WINDOWSIZE   fetch FILE from next-server into OUT
 *   tftp-fail FILE             fetch, expecting the server's error
 *   rx-loss N                  from now on drop every N-th received packet
 * Prints "RESULT ..." lines the script checks; exits 1 on the first failed step.
 */
#include "net_test_env.h"
#include "tun_netdev.h"

#include <ibboot/dhcp.h>
#include <ibboot/dns.h>
#include <ibboot/errno.h>
#include <ibboot/tftp.h>
#include <ibboot/timer.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct tun_netdev tun;
static unsigned drop_every, rx_seen, rx_dropped;

/* Deterministic receive loss for the lossy step: every drop_every-th datagram. */
static void lossy_rx(struct tun_netdev *t, const uint8_t *ip, size_t len)
{
	if (drop_every && ++rx_seen % drop_every == 0) {
		rx_dropped++;
		return;
	}
	tun_netdev_deliver(t, ip, len);
}

static int parse_guid(const char *s, uint8_t *guid)
{
	for (int i = 0; i < 8; i++) {
		unsigned v;

		if (sscanf(s, "%2x", &v) != 1)
			return -1;
		guid[i] = (uint8_t)v;
		s += 2;
		if (*s == ':')
			s++;
	}
	return *s ? -1 : 0;
}

static struct tun_progress prog;

static int step_tftp(const char *file, const char *out, unsigned windowsize, bool expect_fail)
{
	static uint8_t *buf;
	const size_t size = 32u << 20;
	struct tftp_sink sink = { 0 };
	struct tftp_opts opts = { 0 };
	char ns[32];
	uint32_t server;
	uint64_t t0;
	long n;

	if (setting_get("next-server", ns, sizeof(ns)) < 0 || ipv4_aton(ns, &server) < 0) {
		printf("tftp: no next-server\n");
		return -1;
	}
	if (!buf && !(buf = malloc(size)))
		return -1;
	sink.buf = buf;
	sink.size = size;
	sink.progress = tun_progress;
	sink.ctx = &prog;
	prog = (struct tun_progress){ 0, 0, 0, true };
	opts.windowsize = windowsize;
	if (drop_every)
		opts.timeout_ms = 200;   /* recover from each loss quickly */
	t0 = tun_real_ms();
	n = tftp_fetch(&tun.nd, server, file, &opts, &sink);
	if (expect_fail) {
		printf("RESULT tftp-fail %s rc=%ld\n", file, n);
		return n < 0 ? 0 : -1;
	}
	if (n < 0)
		return -1;
	printf("RESULT tftp %s bytes=%ld tsize=%llu progress-calls=%llu monotonic=%d ms=%llu "
	       "rx-dropped=%u\n", file, n, (unsigned long long)prog.total,
	       (unsigned long long)prog.calls, prog.monotonic,
	       (unsigned long long)(tun_real_ms() - t0), rx_dropped);
	FILE *f = fopen(out, "wb");

	if (!f || fwrite(buf, 1, (size_t)n, f) != (size_t)n) {
		perror(out);
		return -1;
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	uint8_t guid[8];
	char a[16], b[16];

	setvbuf(stdout, NULL, _IOLBF, 0);
	test_console_echo = true;
	test_now_ms = tun_real_ms();
	if (argc < 3 || parse_guid(argv[2], guid) < 0) {
		fprintf(stderr, "usage: %s TUN GUID STEP...\n", argv[0]);
		return 2;
	}
	if (tun_netdev_open(&tun, argv[1], guid) < 0)
		return 1;
	tun.rx = lossy_rx;

	for (int i = 3; i < argc; i++) {
		int rc = 0;

		if (!strcmp(argv[i], "dhcp") && i + 1 < argc) {
			struct dhcp_config cfg;
			struct dhcp_lease l;

			dhcp_config_default(&cfg);
			i++;
			cfg.client_id_form = strstr(argv[i], "ib") ? DHCP_CLIENT_ID_HWTYPE_IB
								    : DHCP_CLIENT_ID_FLEXBOOT;
			/* "ib-nofile67": do not ask for option 67, so the name comes in `file` */
			cfg.no_bootfile_option = strstr(argv[i], "nofile67") != NULL;
			rc = dhcp_run(&tun.nd, &cfg, &l);
			if (rc == 0)
				printf("RESULT dhcp ip=%s next-server=%s filename=%s dns=%u\n",
				       ipv4_ntoa(l.ip, a), ipv4_ntoa(l.next_server, b), l.filename,
				       l.n_dns);
		} else if (!strcmp(argv[i], "nslookup") && i + 1 < argc) {
			uint32_t addr;

			rc = dns_resolve(&tun.nd, argv[++i], NULL, &addr);
			if (rc == 0)
				printf("RESULT dns %s %s\n", argv[i], ipv4_ntoa(addr, a));
		} else if (!strcmp(argv[i], "tftp") && i + 3 < argc) {
			rc = step_tftp(argv[i + 1], argv[i + 2], (unsigned)atoi(argv[i + 3]), false);
			i += 3;
		} else if (!strcmp(argv[i], "rx-loss") && i + 1 < argc) {
			drop_every = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "tftp-fail") && i + 1 < argc) {
			rc = step_tftp(argv[i + 1], NULL, 0, true);
			i += 1;
		} else {
			fprintf(stderr, "unknown step %s\n", argv[i]);
			return 2;
		}
		if (rc < 0) {
			printf("step %s failed: %d\n", argv[i], rc);
			return 1;
		}
	}
	tun_netdev_close(&tun);
	return 0;
}

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

#include <ibboot/dhcp.h>
#include <ibboot/dns.h>
#include <ibboot/errno.h>
#include <ibboot/tftp.h>
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
#define POOL 8

static int tun_fd = -1;
static struct net_device tun_nd;
static struct net_buf pool[POOL];
static uint8_t pool_mem[POOL][TUN_MTU + 64];
static bool pool_busy[POOL];
static unsigned drop_every, rx_seen, rx_dropped;

static uint64_t real_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
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
	if (ethertype == ETHERTYPE_IPV4)
		n = write(tun_fd, nb->data, nb->len);
	tun_free_tx(nd, nb);
	if (n != (ssize_t)nb->len) {
		nd->stats.tx_errors++;
		return -EIO;
	}
	nd->stats.tx_packets++;
	return 0;
}

static void tun_poll(struct net_device *nd, uint64_t now)
{
	static uint8_t buf[65536];
	struct pollfd p = { tun_fd, POLLIN, 0 };

	(void)now;
	/* Sleep up to 1 ms when idle: the machine is shared, spinning would steal a core. */
	if (poll(&p, 1, 1) <= 0)
		goto out;
	for (;;) {
		ssize_t n = read(tun_fd, buf, sizeof(buf));

		if (n <= 0)
			break;
		/* deterministic receive loss for the lossy step: every drop_every-th packet */
		if (drop_every && ++rx_seen % drop_every == 0) {
			rx_dropped++;
			continue;
		}
		if ((buf[0] >> 4) == 4)
			net_rx(nd, ETHERTYPE_IPV4, buf, (size_t)n);
	}
out:
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
	sink.progress = progress;
	sink.ctx = &prog;
	prog = (struct progress_state){ 0, 0, 0, true };
	opts.windowsize = windowsize;
	if (drop_every)
		opts.timeout_ms = 200;   /* recover from each loss quickly */
	t0 = real_ms();
	n = tftp_fetch(&tun_nd, server, file, &opts, &sink);
	if (expect_fail) {
		printf("RESULT tftp-fail %s rc=%ld\n", file, n);
		return n < 0 ? 0 : -1;
	}
	if (n < 0)
		return -1;
	printf("RESULT tftp %s bytes=%ld tsize=%llu progress-calls=%llu monotonic=%d ms=%llu "
	       "rx-dropped=%u\n", file, n, (unsigned long long)prog.total,
	       (unsigned long long)prog.calls, prog.monotonic,
	       (unsigned long long)(real_ms() - t0), rx_dropped);
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
	test_now_ms = real_ms();
	if (argc < 3 || parse_guid(argv[2], guid) < 0) {
		fprintf(stderr, "usage: %s TUN GUID STEP...\n", argv[0]);
		return 2;
	}
	if (tun_open(argv[1]) < 0)
		return 1;
	memcpy(tun_nd.name, "ib0", 4);
	tun_nd.ops = &tun_ops;
	tun_nd.mtu = TUN_MTU;
	/* An IPoIB-shaped link address: QPN 0x48, GID fe80::GUID (RFC 4391 §9.1.1). */
	tun_nd.ll_addr[3] = 0x48;
	tun_nd.ll_addr[4] = 0xfe;
	tun_nd.ll_addr[5] = 0x80;
	memcpy(tun_nd.ll_addr + 12, guid, 8);
	tun_nd.ll_addr_len = 20;
	tun_nd.ll_type = 32;
	tun_nd.link_up = true;
	netdev_register(&tun_nd);

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
			rc = dhcp_run(&tun_nd, &cfg, &l);
			if (rc == 0)
				printf("RESULT dhcp ip=%s next-server=%s filename=%s dns=%u\n",
				       ipv4_ntoa(l.ip, a), ipv4_ntoa(l.next_server, b), l.filename,
				       l.n_dns);
		} else if (!strcmp(argv[i], "nslookup") && i + 1 < argc) {
			uint32_t addr;

			rc = dns_resolve(&tun_nd, argv[++i], NULL, &addr);
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
	close(tun_fd);
	return 0;
}

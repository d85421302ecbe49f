/* SPDX-License-Identifier: MIT */
/* Commands over the UDP applications: dhcp, tftp, nslookup. */
#include <ibboot/dhcp.h>
#include <ibboot/dns.h>
#include <ibboot/tftp.h>
#include <ibboot/config.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/hex.h>
#include <ibboot/net_commands.h>
#include <ibboot/sha256.h>
#include <ibboot/shell.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>
#include "progress.h"

#define TFTP_BUF_MAX  (256u << 20)
#define TFTP_BUF_MIN  (1u << 20)

struct net_device *pick_netdev(const char *name)
{
	struct net_device *nd = name ? netdev_find(name) : netdev_find("ib0");

	if (!nd && !name)
		nd = netdev_first();
	if (!nd)
		kprintf("no network device%s%s (no InfiniBand adapter?)\n",
			name ? " named " : "", name ? name : "");
	return nd;
}

static int cmd_dhcp(int argc, char **argv)
{
	struct dhcp_config cfg;
	const char *dev = NULL;
	struct net_device *nd;

	dhcp_config_default(&cfg);
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "client-id=", 10)) {
			const char *v = argv[i] + 10;
			int n;

			if (!strcmp(v, "flexboot")) {
				cfg.client_id_form = DHCP_CLIENT_ID_FLEXBOOT;
			} else if (!strcmp(v, "ib")) {
				cfg.client_id_form = DHCP_CLIENT_ID_HWTYPE_IB;
			} else if ((n = hex_decode(v, cfg.client_id, sizeof(cfg.client_id),
						   HEX_SEPARATORS)) > 0) {
				cfg.client_id_form = DHCP_CLIENT_ID_RAW;
				cfg.client_id_len = (size_t)n;
			} else {
				return shell_usage(argv[0]);
			}
		} else {
			dev = argv[i];
		}
	}
	nd = pick_netdev(dev);
	if (!nd)
		return -ENODEV;
	/* Right after power-on the port may still be training or waiting for the SM. */
	if (!nd->link_up && net_wait_link(nd, DHCP_LINK_WAIT_MS) < 0) {
		kprintf("%s: %s has no link (see ibstat)\n", "dhcp", nd->name);
		return -EIO;
	}
	return dhcp_run(nd, &cfg, NULL);
}
SHELL_COMMAND(dhcp, CMD_ORDER_DHCP, "[DEV] [client-id=flexboot|ib|HEX]: get an address",
	      cmd_dhcp);

void cmd_progress_start(struct cmd_progress *p, const char *proto)
{
	p->proto = proto;
	p->start_ms = p->last_ms = clock_ms();
}

void cmd_progress(void *ctx, uint64_t bytes, uint64_t total)
{
	struct cmd_progress *p = ctx;
	uint64_t now = clock_ms(), ms = now - p->start_ms;
	unsigned long long rate = ms ? bytes / ms : 0;

	if (now - p->last_ms < 1000 && (!total || bytes != total))
		return;
	p->last_ms = now;
	if (total)
		kprintf("%s: %llu / %llu KiB (%u%%) %llu KB/s\n", p->proto,
			(unsigned long long)(bytes >> 10), (unsigned long long)(total >> 10),
			(unsigned)(bytes * 100 / total), rate);
	else
		kprintf("%s: %llu KiB %llu KB/s\n", p->proto, (unsigned long long)(bytes >> 10),
			rate);
}

static int cmd_tftp(int argc, char **argv)
{
	struct tftp_opts opts = { 0 };
	struct tftp_sink sink = { 0 };
	struct cmd_progress prog;
	char host[256];   /* a DNS name: at most 255 octets (RFC 1035 §2.3.4) */
	const char *file = NULL;
	struct net_device *nd = pick_netdev(NULL);
	uint32_t server;
	uint8_t *buf;
	size_t size;
	long n;
	int rc;

	if (!nd)
		return -ENODEV;
	if (argc == 2 && !strncmp(argv[1], "tftp://", 7)) {
		rc = tftp_url_split(argv[1], host, sizeof(host), &file);
		if (rc < 0) {
			kputs("tftp: expected tftp://HOST/PATH (port 69)\n");
			return rc;
		}
	} else if (argc == 3 && strlen(argv[1]) < sizeof(host)) {
		memcpy(host, argv[1], strlen(argv[1]) + 1);
		file = argv[2];
	} else if (argc == 2) {
		if (setting_get("next-server", host, sizeof(host)) < 0) {
			kputs("tftp: no SERVER, no DHCP next-server\n");
			return -EINVAL;
		}
		file = argv[1];
	} else {
		return shell_usage(argv[0]);
	}
	rc = dns_resolve(nd, host, NULL, &server);
	if (rc < 0)
		return rc;
	for (size = TFTP_BUF_MAX; size >= TFTP_BUF_MIN && !(buf = dma_alloc(size, 4096)); size /= 2)
		;
	if (!buf) {
		kputs("tftp: no memory\n");
		return -ENOMEM;
	}
	sink.buf = buf;
	sink.size = size;
	sink.progress = cmd_progress;
	sink.ctx = &prog;
	opts.windowsize = 8;
	cmd_progress_start(&prog, "tftp");
	kprintf("tftp: %s from %'u\n", file, server);
	n = tftp_fetch(nd, server, file, &opts, &sink);
	if (n >= 0) {
		uint8_t d[SHA256_DIGEST_LEN];
		char hex[2 * SHA256_DIGEST_LEN + 1];

		sha256(buf, (size_t)n, d);
		sha256_to_hex(d, hex);
		kprintf("tftp: %s: %ld bytes in %llu ms, sha256 %s\n", file, n,
			(unsigned long long)(clock_ms() - prog.start_ms), hex);
	}
	/* A diagnostic download: the memory goes back at once, for the images to come. */
	dma_free(buf, size);
	return n < 0 ? (int)n : 0;
}
SHELL_COMMAND(tftp, CMD_ORDER_DHCP, "tftp://HOST/FILE | [SERVER] FILE: download to memory",
	      cmd_tftp);

static int cmd_nslookup(int argc, char **argv)
{
	struct net_device *nd = pick_netdev(NULL);
	uint32_t addr;
	int rc;

	if (argc != 2) {
		return shell_usage(argv[0]);
	}
	if (!nd)
		return -ENODEV;
	rc = dns_resolve(nd, argv[1], NULL, &addr);
	if (rc < 0)
		return rc;
	kprintf("%s has address %'u\n", argv[1], addr);
	return 0;
}
SHELL_COMMAND(nslookup, CMD_ORDER_DHCP, "NAME: resolve by DNS",
	      cmd_nslookup);

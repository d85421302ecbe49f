/* SPDX-License-Identifier: MIT */
/* `http URL [DEV]`: downloads into memory over the HTTP client, reports size, time and rate. */
#include <ibboot/http.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/shell.h>
#include <ibboot/sha256.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>
#include "progress.h"

static int cmd_http(int argc, char **argv)
{
	struct net_device *nd;
	struct cmd_progress prog;
	struct http_sink sink;
	struct http_result res;
	uint64_t ms;
	long n;

	if (argc < 2 || argc > 3) {
		return shell_usage(argv[0]);
	}
	nd = pick_netdev(argc == 3 ? argv[2] : NULL);
	if (!nd)
		return -ENODEV;
	memset(&sink, 0, sizeof(sink));
	sink.grow = true;
	sink.progress = cmd_progress;
	sink.ctx = &prog;
	cmd_progress_start(&prog, "http");
	n = http_get(nd, argv[1], NULL, &sink, &res);
	ms = clock_ms() - prog.start_ms;
	if (n >= 0)
		kprintf("http: %s: %ld bytes%s in %llu ms (%llu KB/s), %u redirect(s)\n", res.url, n,
			res.chunked ? " (chunked)" : "", (unsigned long long)ms,
			(unsigned long long)(ms ? (uint64_t)n / ms : 0), res.redirects);
	if (n >= 0) {
		uint8_t d[SHA256_DIGEST_LEN];
		char hex[2 * SHA256_DIGEST_LEN + 1];

		sha256(sink.buf, (size_t)n, d);
		sha256_to_hex(d, hex);
		kprintf("http: sha256 %s\n", hex);
	}
	http_sink_free(&sink);
	return n < 0 ? (int)n : 0;
}
SHELL_COMMAND(http, CMD_ORDER_HTTP,
	      "URL [DEV]: HTTP GET into memory", cmd_http);

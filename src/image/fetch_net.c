/* SPDX-License-Identifier: MIT */
/*
 * The network's URL schemes for fetch.c: tftp:// (the dhcp helper's TFTP client) and http://
 * (the HTTP client), plus bare names relative to the DHCP next-server, as iPXE resolves a boot
 * file name like "boot.ipxe". Registered from the start hook, so fetch.c stays network-free.
 */
#include <ibboot/fetch.h>
#include <ibboot/console.h>
#include <ibboot/dhcp.h>
#include <ibboot/dns.h>
#include <ibboot/errno.h>
#include <ibboot/hooks.h>
#include <ibboot/http.h>
#include <ibboot/net.h>
#include <ibboot/string.h>
#include <ibboot/tftp.h>

static struct net_device *boot_netdev(const char *uri)
{
	struct net_device *nd = netdev_find("ib0");

	if (!nd)
		nd = netdev_first();
	if (!nd)
		kprintf("%s: no network device (see ibstat)\n", uri);
	return nd;
}

/* tftp://HOST[:69]/PATH (RFC 3617: the path without its leading '/'). */
static long fetch_tftp(const char *uri, uint8_t *buf, size_t size, fetch_progress_fn progress,
		       void *ctx)
{
	char host[DHCP_NAME_MAX];
	const char *path;
	struct tftp_opts opts = { 0 };
	struct tftp_sink sink = { buf, size, 0, progress, ctx };
	struct net_device *nd = boot_netdev(uri);
	uint32_t server;
	int rc;

	if (!nd)
		return -ENODEV;
	rc = tftp_url_split(uri, host, sizeof(host), &path);
	if (rc == -ENOTSUP)
		kprintf("%s: TFTP takes port 69 only\n", uri);
	else if (rc < 0)
		kprintf("%s: expected tftp://HOST/PATH\n", uri);
	if (rc < 0)
		return rc;
	rc = dns_resolve(nd, host, NULL, &server);
	if (rc < 0)
		return rc;
	opts.windowsize = 8;   /* RFC 7440; servers that refuse it fall back to lock-step */
	return tftp_fetch(nd, server, path, &opts, &sink);
}

static long fetch_http(const char *uri, uint8_t *buf, size_t size, fetch_progress_fn progress,
		       void *ctx)
{
	struct http_sink sink = { 0 };
	struct net_device *nd = boot_netdev(uri);

	if (!nd)
		return -ENODEV;
	sink.buf = buf;
	sink.size = size;
	sink.progress = progress;
	sink.ctx = ctx;
	return http_get(nd, uri, NULL, &sink, NULL);
}

static const struct fetch_scheme tftp_scheme = { "tftp", fetch_tftp };
static const struct fetch_scheme http_scheme = { "http", fetch_http };

/* A bare name ("boot.ipxe", "/pxe/vmlinuz") is a file on the DHCP next-server, over TFTP. */
static int relative_to_next_server(const char *name, char *out, size_t size)
{
	char server[DHCP_NAME_MAX];

	if (setting_get("next-server", server, sizeof(server)) <= 0) {
		kprintf("%s: not a URL and no DHCP next-server: use tftp://HOST/%s\n", name,
			name);
		return -EINVAL;
	}
	while (*name == '/')
		name++;
	if (ksnprintf(out, size, "tftp://%s/%s", server, name) >= (int)size)
		return -ERANGE;
	return 0;
}

static void fetch_net_start(void)
{
	fetch_register(&tftp_scheme);
	fetch_register(&http_scheme);
	fetch_resolve_relative = relative_to_next_server;
}

IBBOOT_HOOK(fetch_net, HOOK_ORDER_IMAGE, fetch_net_start, NULL);

/* SPDX-License-Identifier: MIT */
/* The boot report (report.h): built into one bounded buffer, sent by HTTP POST or TFTP WRQ. */
#include <ibboot/report.h>
#include <ibboot/console.h>
#include <ibboot/console_log.h>
#include <ibboot/dhcp.h>
#include <ibboot/errno.h>
#include <ibboot/fwdump.h>
#include <ibboot/hex.h>
#include <ibboot/http.h>
#include <ibboot/ib.h>
#include <ibboot/net.h>
#include <ibboot/string.h>
#include <ibboot/tftp_put.h>
#include <ibboot/timer.h>
#include <ibboot/version.h>
#include "../drivers/infiniband/hermon_ib.h"
#include "../drivers/infiniband/hermon_selftest.h"

#define TRAILER_RESERVE 64   /* "=== truncated: N bytes left out ===" + "=== end ===" */

/* The report under construction: whole lines only; once one does not fit, it and everything
 * after it is counted as left out, so what was sent is a prefix of complete lines. */
struct rbuf {
	char *buf;
	size_t size, len;
	size_t dropped;
	bool cut;
};

static void rb_put(struct rbuf *b, const char *prefix, const char *s, size_t n)
{
	size_t pl = strlen(prefix), need = pl + n + 1;

	if (b->cut || b->len + need + TRAILER_RESERVE >= b->size) {
		b->cut = true;
		b->dropped += need;
		return;
	}
	memcpy(b->buf + b->len, prefix, pl);
	memcpy(b->buf + b->len + pl, s, n);
	b->len += need;
	b->buf[b->len - 1] = '\n';
}

static void rb_line(void *ctx, const char *line)
{
	rb_put(ctx, "", line, strlen(line));
}

static void rb_printf(struct rbuf *b, const char *fmt, ...) __printf(2, 3);
static void rb_printf(struct rbuf *b, const char *fmt, ...)
{
	char line[SETTING_VALUE_MAX + 64];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	rb_line(b, line);
}

static void rb_setting(struct rbuf *b, const char *name)
{
	char v[SETTING_VALUE_MAX];

	if (setting_get(name, v, sizeof(v)) >= 0)
		rb_printf(b, "%s: %s", name, v);
}

/* Every line of text, each prefixed. */
static void rb_lines(struct rbuf *b, const char *prefix, const char *text)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);

		rb_put(b, prefix, text, n);
		text += n + (nl ? 1 : 0);
	}
}

/* The HCA self-test, run now (under a second on a healthy HCA, at most ~1.5 s more when no SA
 * answers): its summary as a key line, its text as a section. */
static void report_selftest(struct rbuf *b, char *text, size_t size)
{
	static struct hermon_selftest_result res;
	int rc = hermon_selftest_first(0, &res);

	text[0] = '\0';
	if (rc == -ENODEV) {
		rb_line(b, "selftest: not run (no Hermon HCA)");
		return;
	}
	rb_printf(b, "selftest: %u passed, %u failed, %u skipped on %s port %u%s", res.passed,
		  res.failed, res.skipped, res.device, res.port, res.leaked ? " (leaked)" : "");
	hermon_selftest_format(&res, text, size);
}

static struct net_device *report_netdev(void)
{
	for (struct net_device *nd = netdev_first(); nd; nd = nd->next)
		if (nd->ip_addr && nd->link_up)
			return nd;
	return NULL;
}

size_t report_build(char *buf, size_t size, const char *reason)
{
	static char console[CONSOLE_LOG_BYTES + 2];
	static char selftest[2048];
	struct rbuf b = { buf, size, 0, 0, false };
	struct fwdump_out out = { rb_line, &b };
	char a[16];

	/* First, before the report's own work prints anything. */
	console_log_lines(console, sizeof(console), REPORT_CONSOLE_LINES);
	rb_printf(&b, "ibboot-report: %u", REPORT_FORMAT_VERSION);
	rb_printf(&b, "version: %s", IBBOOT_VERSION);
	rb_printf(&b, "reason: %s", reason && reason[0] ? reason : "requested");
	rb_printf(&b, "uptime-ms: %llu", (unsigned long long)clock_ms());
	for (struct net_device *nd = netdev_first(); nd; nd = nd->next)
		rb_printf(&b, "interface: %s link %s ip %s", nd->name, nd->link_up ? "up" : "down",
			  nd->ip_addr ? ipv4_ntoa(nd->ip_addr, a) : "none");
	for (const char *s = "ip\0next-server\0filename\0" REPORT_URL_SETTING "\0"; *s;
	     s += strlen(s) + 1)
		rb_setting(&b, s);
	if (hermon_identity_write(&out) == 0)
		rb_line(&b, "hca: none registered");
	report_selftest(&b, selftest, sizeof(selftest));
	if (selftest[0]) {
		rb_line(&b, "=== selftest ===");
		rb_lines(&b, "", selftest);
	}
	rb_line(&b, "=== console ===");
	rb_lines(&b, "| ", console);
	rb_line(&b, "=== fwdump ===");
	hermon_fwdump_write(&out);
	/* TRAILER_RESERVE is always left free for these two lines. */
	if (b.cut)
		b.len += (size_t)ksnprintf(b.buf + b.len, b.size - b.len,
					   "=== truncated: %zu bytes left out ===\n", b.dropped);
	b.len += (size_t)ksnprintf(b.buf + b.len, b.size - b.len, "=== end ===\n");
	return b.len;
}

/* With no URL: tftp://<next-server>/ibboot-report-<node GUID of the first HCA, else our IP>.txt */
static int default_url(const struct net_device *nd, char *url, size_t size)
{
	const struct ib_device *dev = ib_devices();
	char a[16], g[17], ns[SETTING_VALUE_MAX];
	uint32_t server;

	if (setting_get("next-server", ns, sizeof(ns)) < 0 || ipv4_aton(ns, &server) < 0)
		return -ENOENT;
	ksnprintf(url, size, "tftp://%s/ibboot-report-%s.txt", ns,
		  dev ? hex_encode(dev->node_guid, 8, 0, g) : ipv4_ntoa(nd->ip_addr, a));
	return 0;
}

static long send_http(struct net_device *nd, const char *url, const char *buf, size_t len)
{
	static uint8_t answer[1024];   /* the server's reply body is not kept */
	struct tcp_config tcp;
	struct http_options opts;
	struct http_sink sink;

	tcp_config_default(&tcp);
	tcp.syn_retries = 1;           /* SYN, one retry: about 3 s when nobody listens */
	memset(&opts, 0, sizeof(opts));
	opts.idle_timeout_ms = REPORT_HTTP_IDLE_MS;
	opts.tcp = &tcp;
	opts.post_body = buf;
	opts.post_len = len;
	opts.post_type = "text/plain; charset=utf-8";
	memset(&sink, 0, sizeof(sink));
	sink.buf = answer;
	sink.size = sizeof(answer);
	return http_get(nd, url, &opts, &sink, NULL);
}

int report_send(const char *url, const char *reason)
{
	static char buf[REPORT_MAX_BYTES];
	char setting[SETTING_VALUE_MAX], host[64];
	struct net_device *nd = report_netdev();
	const char *path, *how = "HTTP POST";
	uint32_t server;
	size_t len;
	long rc;

	if (!nd) {
		kprintf("report: not sent: no address\n");
		return -ENODEV;
	}
	if (!url && setting_get(REPORT_URL_SETTING, setting, sizeof(setting)) > 0)
		url = setting;
	if (!url) {
		if (default_url(nd, setting, sizeof(setting)) < 0) {
			kprintf("report: not sent: no %s, no DHCP next-server\n",
				REPORT_URL_SETTING);
			return -ENOENT;
		}
		url = setting;
		how = "TFTP write; no " REPORT_URL_SETTING " set";
	} else if (strncmp(url, "tftp://", 7) == 0) {
		how = "TFTP write";
	}
	if (how[0] == 'T') {   /* a TFTP write */
		rc = tftp_url_split(url, host, sizeof(host), &path);
		if (rc == 0 && ipv4_aton(host, &server) < 0)
			rc = -ENOTSUP;
		if (rc < 0) {
			kprintf("report: not sent: %s is not tftp://ADDRESS/NAME\n", url);
			return -EINVAL;
		}
	}
	len = report_build(buf, sizeof(buf), reason);
	kprintf("report: %zu bytes to %s (%s)\n", len, url, how);
	if (how[0] == 'T') {
		struct tftp_put_opts opts = { 0, 0, REPORT_TFTP_TOTAL_MS };

		rc = tftp_put(nd, server, path, buf, len, &opts);
	} else {
		rc = send_http(nd, url, buf, len);
	}
	if (rc < 0)
		kprintf("report: not sent (%s)\n", ib_strerror((int)rc));
	else
		kprintf("report: sent\n");
	return rc < 0 ? (int)rc : 0;
}

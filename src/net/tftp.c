/* SPDX-License-Identifier: MIT */
/* TFTP client: RFC 1350 read requests with RFC 2347/2348/2349/7440 options. */
#include <ibboot/tftp.h>
#include <ibboot/byteorder.h>
#include <ibboot/config.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>

/* RFC 1350 §5 error codes we send. */
#define TFTP_ERR_DISK_FULL   3
#define TFTP_ERR_UNKNOWN_TID 5
#define TFTP_ERR_OPTIONS     8   /* RFC 2347: option negotiation refused */

#define TFTP_MIN_BLKSIZE     8   /* RFC 2348 */
#define TFTP_MAX_WINDOWSIZE  65535u

static char why_buf[128];
static const char too_large[] = "file too large";

static bool name_is(const char *a, const char *b)
{
	/* RFC 2347: option names are case-insensitive. */
	for (; *a && *b; a++, b++) {
		char x = *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a;

		if (x != *b)
			return false;
	}
	return *a == *b;
}

static int parse_decimal(const char *s, uint64_t *v)
{
	uint64_t n = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || n > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	*v = n;
	return 0;
}

static int oack_fail(const char **why, const char *fmt, const char *name)
{
	ksnprintf(why_buf, sizeof(why_buf), fmt, name);
	*why = why_buf;
	return -EINVAL;
}

int tftp_parse_oack(const uint8_t *p, size_t len, unsigned asked_blksize,
		    unsigned asked_windowsize, bool asked_tsize, struct tftp_oack *out,
		    const char **why)
{
	const char *dummy;
	size_t i = 0;
	unsigned k, seen = 0;

	if (!why)
		why = &dummy;
	memset(out, 0, sizeof(*out));
	while (i < len) {
		const char *name = (const char *)p + i, *value;
		size_t nlen = strnlen(name, len - i), vlen;
		uint64_t v;

		if (!nlen || nlen == len - i)
			return oack_fail(why, "bad option name%s", "");
		i += nlen + 1;
		value = (const char *)p + i;
		vlen = strnlen(value, len - i);   /* 0 == 0 when nothing follows the name */
		if (vlen == len - i)
			return oack_fail(why, "option '%.32s' value unterminated", name);
		i += vlen + 1;
		if (parse_decimal(value, &v) < 0)
			return oack_fail(why, "option '%.32s' not a number", name);
		/* Only what we asked for, once each (RFC 2347); a value only as low or lower. */
		k = name_is(name, "blksize") ? 0 : name_is(name, "windowsize") ? 1
		    : name_is(name, "tsize") ? 2 : 3;
		if (k == 3 || !(k == 0 ? asked_blksize : k == 1 ? asked_windowsize : asked_tsize))
			return oack_fail(why, "option '%.32s' not asked for", name);
		if (seen & (1u << k))
			return oack_fail(why, "option '%.32s' repeated", name);
		seen |= 1u << k;
		if (k == 0) {
			if (v < TFTP_MIN_BLKSIZE || v > asked_blksize)
				return oack_fail(why, "blksize outside 8..asked%s", "");
			out->blksize = (unsigned)v;
			out->has_blksize = true;
		} else if (k == 1) {
			if (v < 1 || v > asked_windowsize)
				return oack_fail(why, "windowsize outside 1..asked%s", "");
			out->windowsize = (unsigned)v;
			out->has_windowsize = true;
		} else {
			out->tsize = v;
			out->has_tsize = true;
		}
	}
	return 0;
}

int tftp_parse_error(const uint8_t *p, size_t len, uint16_t *code, char *msg, size_t msg_size)
{
	size_t n = 0;

	if (len < 2 || !msg_size)
		return -EINVAL;
	*code = get_be16(p);
	p += 2;
	len -= 2;
	/* Shown verbatim, but only printable ASCII reaches the console. */
	while (n < len && n + 1 < msg_size && p[n]) {
		msg[n] = p[n] >= 0x20 && p[n] < 0x7f ? (char)p[n] : '?';
		n++;
	}
	msg[n] = '\0';
	return 0;
}

/* ---- client ---- */

static int send_to_server(struct udp_socket *s, uint32_t server, uint16_t port,
			  const uint8_t *pkt, size_t len)
{
	int rc = udp_sendto(s, server, port, pkt, len);

	if (rc < 0 && rc != -EBUSY)
		kprintf("tftp: cannot send: %s\n", ib_strerror(rc));
	return rc;
}

static void send_to(struct tftp_client *c, uint16_t port, const uint8_t *pkt, size_t len)
{
	send_to_server(&c->sock, c->server, port, pkt, len);
}

void tftp_send_error(struct udp_socket *s, uint32_t server, uint16_t port, uint16_t code,
		     const char *msg)
{
	uint8_t pkt[TFTP_HDR_LEN + 64];
	size_t n = strnlen(msg, 63);

	put_be16(pkt, TFTP_ERROR);
	put_be16(pkt + 2, code);
	memcpy(pkt + 4, msg, n);
	pkt[4 + n] = 0;
	send_to_server(s, server, port, pkt, TFTP_HDR_LEN + n + 1);
}

static void send_error(struct tftp_client *c, uint16_t port, uint16_t code, const char *msg)
{
	tftp_send_error(&c->sock, c->server, port, code, msg);
}

static void send_ack(struct tftp_client *c)
{
	uint8_t pkt[TFTP_HDR_LEN];

	put_be16(pkt, TFTP_ACK);
	put_be16(pkt + 2, (uint16_t)c->blocks);
	send_to(c, c->server_port, pkt, sizeof(pkt));
	c->since_ack = 0;
	c->ack_sent_ms = clock_ms();
}

static size_t append_str(uint8_t *buf, size_t pos, size_t size, const char *s)
{
	size_t n = strlen(s) + 1;

	if (pos + n > size)
		return size + 1;
	memcpy(buf + pos, s, n);
	return pos + n;
}

static int send_rrq(struct tftp_client *c)
{
	uint8_t pkt[TFTP_FILENAME_MAX + 96];
	size_t pos = 2;
	char num[12];

	put_be16(pkt, TFTP_RRQ);
	pos = append_str(pkt, pos, sizeof(pkt), c->filename);
	pos = append_str(pkt, pos, sizeof(pkt), "octet");
	if (!c->opts.no_options) {
		ksnprintf(num, sizeof(num), "%u", c->asked_blksize);
		pos = append_str(pkt, pos, sizeof(pkt), "blksize");
		pos = append_str(pkt, pos, sizeof(pkt), num);
		pos = append_str(pkt, pos, sizeof(pkt), "tsize");
		pos = append_str(pkt, pos, sizeof(pkt), "0");
		if (c->asked_windowsize) {
			ksnprintf(num, sizeof(num), "%u", c->asked_windowsize);
			pos = append_str(pkt, pos, sizeof(pkt), "windowsize");
			pos = append_str(pkt, pos, sizeof(pkt), num);
		}
	}
	if (pos > sizeof(pkt))
		return -ERANGE;
	send_to(c, TFTP_PORT, pkt, pos);
	return 0;
}

/* Ends the transfer: the reason is kept and printed; with `text` the server first gets an
 * ERROR packet with that code (RFC 1350 §5). */
static void tftp_fail(struct tftp_client *c, int rc, int code, const char *text,
		      const char *fmt, ...) __printf(5, 6);
static void tftp_fail(struct tftp_client *c, int rc, int code, const char *text,
		      const char *fmt, ...)
{
	char msg[240];
	va_list ap;

	if (text)
		send_error(c, c->server_port, (uint16_t)code, text);
	va_start(ap, fmt);
	kvsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->state = TFTP_FAILED;
	c->result = rc;
	memcpy(c->error, msg, sizeof(c->error) - 1);
	c->error[sizeof(c->error) - 1] = '\0';
	/* After a progress bar (drawn with \r), the reason starts a line of its own. */
	kprintf("%stftp: %s\n", c->sink && c->sink->progress && c->sink->len ? "\n" : "", msg);
	udp_close(&c->sock);
}

static void arm_timer(struct tftp_client *c)
{
	c->retries = 0;
	c->timeout_ms = c->opts.timeout_ms;
	c->next_timeout_ms = clock_ms() + c->timeout_ms;
}

/* Progress while transferring: the short ACK-resend timer starts again and the no-progress
 * clock restarts. */
static void arm_ack_timer(struct tftp_client *c)
{
	uint64_t now = clock_ms();

	c->retries = 0;
	c->progress_ms = now;
	c->timeout_ms = c->opts.ack_ms;
	c->next_timeout_ms = now + c->timeout_ms;
}

static void handle_oack(struct tftp_client *c, uint16_t sport, const uint8_t *p, size_t len)
{
	struct tftp_oack o;
	const char *why;

	if (c->state == TFTP_TRANSFER) {
		if (sport == c->server_port && c->blocks == 0)
			send_ack(c);   /* our ACK 0 was lost: the server repeats its OACK */
		return;
	}
	if (tftp_parse_oack(p, len, c->opts.no_options ? 0 : c->asked_blksize,
			    c->asked_windowsize, !c->opts.no_options, &o, &why) < 0) {
		c->server_port = sport;
		tftp_fail(c, -EINVAL, TFTP_ERR_OPTIONS, "bad OACK",
			  "bad OACK for %s: %s", c->filename, why);
		return;
	}
	/* RFC 2347: an option the OACK leaves out is refused; its default applies. */
	c->blksize = o.has_blksize ? o.blksize : TFTP_DEFAULT_BLKSIZE;
	c->windowsize = o.has_windowsize ? o.windowsize : 1;
	c->tsize = o.has_tsize ? o.tsize : 0;
	c->server_port = sport;
	if (o.has_tsize && o.tsize > c->sink->size) {
		tftp_fail(c, -ERANGE, TFTP_ERR_DISK_FULL, too_large, "%s needs %llu bytes, buffer %llu",
			  c->filename, (unsigned long long)o.tsize,
			  (unsigned long long)c->sink->size);
		return;
	}
	c->state = TFTP_TRANSFER;
	kprintf("tftp: %s: blksize %u, windowsize %u%s, size %llu\n", c->filename, c->blksize,
		c->windowsize, c->asked_windowsize > c->windowsize ? " (server declined more)" : "",
		(unsigned long long)c->tsize);
	send_ack(c);
	arm_ack_timer(c);
}

static void handle_data(struct tftp_client *c, const uint8_t *p, size_t len)
{
	uint16_t block, expected = (uint16_t)(c->blocks + 1);
	size_t dlen;

	if (len < 2)
		return;
	block = get_be16(p);
	dlen = len - 2;
	if (block != expected) {
		if ((uint16_t)(expected - block) < 0x8000u) {
			/* Behind: a copy of a block we have. A copy of the last in-order block means
			 * the server timed out (our ACK was lost): ACK it again so the sender resumes
			 * after it (RFC 1350 §6). Not a copy that follows our ACK within the short
			 * timer: that one was duplicated on the way, and with windowsize the repeated
			 * ACK would make the server send the next window twice (RFC 7440 §4: an ACK
			 * restarts the window after the block it names). */
			c->dup_blocks++;
			if (block == (uint16_t)c->blocks && clock_ms() - c->ack_sent_ms >= c->opts.ack_ms)
				send_ack(c);
		} else {
			/* Ahead: the block after the last in-order one was lost (or is late). RFC 7440
			 * §4: ACK the last in-order block at once, once per hole and pass, so the
			 * sender resends from there now rather than on its timer. A block below the
			 * last one seen past the hole starts a new pass (the resent window lost the
			 * hole's block again). */
			uint16_t below = (uint16_t)(c->gap_high - block);

			c->ooo_blocks++;
			if (!c->gap_acked || (below && below < 0x8000u)) {
				c->gap_acked = true;
				send_ack(c);
			}
			c->gap_high = block;
		}
		return;
	}
	if (dlen > c->blksize) {
		tftp_fail(c, -EINVAL, 4, "block over blksize", "block %u of %s: %u bytes > blksize %u",
			  block, c->filename,
			  (unsigned)dlen, c->blksize);
		return;
	}
	if (dlen > c->sink->size - c->sink->len) {
		tftp_fail(c, -ERANGE, TFTP_ERR_DISK_FULL, too_large, "%s exceeds %llu-byte buffer",
			  c->filename, (unsigned long long)c->sink->size);
		return;
	}
	memcpy(c->sink->buf + c->sink->len, p + 2, dlen);
	c->sink->len += dlen;
	c->blocks++;
	c->gap_acked = false;
	c->since_ack++;
	if (c->sink->progress)
		c->sink->progress(c->sink->ctx, c->sink->len, c->tsize);
	if (dlen < c->blksize) {
		send_ack(c);
		c->state = TFTP_DONE;
		c->result = 0;
		udp_close(&c->sock);
		return;
	}
	if (c->since_ack >= c->windowsize)
		send_ack(c);
	arm_ack_timer(c);
}

void tftp_handle(struct tftp_client *c, uint32_t src, uint16_t sport, const uint8_t *data,
		 size_t len)
{
	uint16_t op, code;
	char text[128];

	if (c->state != TFTP_WAIT_FIRST && c->state != TFTP_TRANSFER)
		return;
	if (src != c->server || len < 2)
		return;
	if (c->state == TFTP_TRANSFER && sport != c->server_port) {
		/* RFC 1350 §4: a packet from another transfer id gets an error, ours goes on. */
		send_error(c, sport, TFTP_ERR_UNKNOWN_TID, "Unknown transfer ID");
		return;
	}
	op = get_be16(data);
	switch (op) {
	case TFTP_ERROR:
		if (tftp_parse_error(data + 2, len - 2, &code, text, sizeof(text)) < 0) {
			code = 0;
			text[0] = '\0';
		}
		tftp_fail(c, code == 1 ? -ENOENT : code == 2 ? -EPERM : -EIO, 0, NULL,
			  "server %'u: error %u: %s", src, code, text);
		break;
	case TFTP_OACK:
		handle_oack(c, sport, data + 2, len - 2);
		break;
	case TFTP_DATA:
		if (c->state == TFTP_WAIT_FIRST) {
			/* No OACK: the server ignored every option (RFC 2347 §"not supported"). */
			c->blksize = TFTP_DEFAULT_BLKSIZE;
			c->windowsize = 1;
			c->server_port = sport;
			c->state = TFTP_TRANSFER;
			arm_ack_timer(c);
		}
		handle_data(c, data + 2, len - 2);
		break;
	default:
		break;
	}
}

static void tftp_sock_rx(struct udp_socket *s, uint32_t src, uint16_t sport,
			 const uint8_t *data, size_t len)
{
	tftp_handle(s->priv, src, sport, data, len);
}

int tftp_start(struct tftp_client *c, struct net_device *nd, uint32_t server,
	       const char *filename, const struct tftp_opts *opts, struct tftp_sink *sink)
{
	size_t fl = strnlen(filename, TFTP_FILENAME_MAX);
	unsigned path_max;
	int rc;

	udp_close(&c->sock);   /* a client reused without stop must leave the socket list intact */
	memset(c, 0, sizeof(*c));
	if (!fl || fl >= TFTP_FILENAME_MAX || !sink || (!sink->buf && sink->size))
		return -EINVAL;
	rc = net_ready_for_unicast(nd, "tftp");
	if (rc < 0)
		return rc;
	c->nd = nd;
	c->server = server;
	c->server_port = TFTP_PORT;
	c->sink = sink;
	sink->len = 0;
	memcpy(c->filename, filename, fl + 1);
	if (opts)
		c->opts = *opts;
	if (!c->opts.timeout_ms)
		c->opts.timeout_ms = TFTP_TIMEOUT_MS;
	if (!c->opts.max_retries)
		c->opts.max_retries = TFTP_MAX_RETRIES;
	if (!c->opts.ack_ms)
		c->opts.ack_ms = TFTP_ACK_RESEND_MS;
	if (!c->opts.stall_ms)
		c->opts.stall_ms = TFTP_STALL_MS;
	/* RFC 2348: the block plus IP, UDP and TFTP headers must fit one packet of the path. */
	path_max = nd->mtu > IPV4_HDR_LEN + UDP_HDR_LEN + TFTP_HDR_LEN + TFTP_MIN_BLKSIZE
		? nd->mtu - IPV4_HDR_LEN - UDP_HDR_LEN - TFTP_HDR_LEN : TFTP_MIN_BLKSIZE;
	if (path_max > TFTP_MAX_BLKSIZE)
		path_max = TFTP_MAX_BLKSIZE;
	c->asked_blksize = c->opts.blksize && c->opts.blksize < path_max ? c->opts.blksize
									 : path_max;
	if (c->asked_blksize < TFTP_MIN_BLKSIZE)
		c->asked_blksize = TFTP_MIN_BLKSIZE;
	if (c->opts.windowsize > 1 && !c->opts.no_options)
		c->asked_windowsize = c->opts.windowsize > TFTP_MAX_WINDOWSIZE
			? TFTP_MAX_WINDOWSIZE : c->opts.windowsize;
	c->blksize = TFTP_DEFAULT_BLKSIZE;
	c->windowsize = 1;
	rc = udp_open(&c->sock, nd, 0, tftp_sock_rx, c);
	if (rc < 0)
		return rc;
	c->state = TFTP_WAIT_FIRST;
	c->start_ms = clock_ms();
	c->status_ms = c->start_ms + TFTP_STATUS_MS;
	rc = send_rrq(c);
	if (rc < 0) {
		udp_close(&c->sock);
		c->state = TFTP_FAILED;
		return rc;
	}
	arm_timer(c);
	return 0;
}

void tftp_stop(struct tftp_client *c)
{
	udp_close(&c->sock);
	if (c->state == TFTP_WAIT_FIRST || c->state == TFTP_TRANSFER) {
		c->state = TFTP_FAILED;
		c->result = -ECANCELED;
	}
}

bool tftp_step(struct tftp_client *c, uint64_t now)
{
	char of[32] = "";

	if (c->state != TFTP_WAIT_FIRST && c->state != TFTP_TRANSFER)
		return false;
	if (c->state == TFTP_TRANSFER && (now - c->progress_ms >= c->opts.stall_ms ||
					  (int64_t)(now - c->status_ms) >= 0)) {
		if (c->tsize)
			ksnprintf(of, sizeof(of), " of %llu", (unsigned long long)c->tsize);
		if (now - c->progress_ms >= c->opts.stall_ms) {
			/* The overall bound: whatever keeps arriving (duplicates, blocks past a
			 * hole, a server retransmitting with ever longer pauses), no new block for
			 * this long ends the transfer with the place it stopped. */
			tftp_fail(c, -ETIMEDOUT, 0, "no data", "%s from %'u: no new "
				  "data for %u ms after block %u (%llu%s bytes, %u ACKs resent)",
				  c->filename, c->server, c->opts.stall_ms,
				  (unsigned)c->blocks, (unsigned long long)c->sink->len, of,
				  c->retries);
			return false;
		}
		kprintf("%stftp: %s: %llu%s bytes after %u s, %u ACKs resent, %u dup blocks%s\n",
			c->sink->progress && c->sink->len ? "\n" : "", c->filename,
			(unsigned long long)c->sink->len, of, (unsigned)((now - c->start_ms) / 1000),
			c->retransmits, c->dup_blocks, c->windowsize == 1 && c->retransmits ?
			" (lock-step: losses wait for server timeout)" : "");
		c->status_ms = now + TFTP_STATUS_MS;
	}
	if ((int64_t)(now - c->next_timeout_ms) < 0)
		return true;
	if (c->state == TFTP_TRANSFER) {
		/* RFC 1350 §6 / RFC 7440 §4: the last in-order block's ACK again, soon — a lost
		 * ACK (or a lost window's tail) costs this short timer, not the server's. */
		c->retries++;
		c->retransmits++;
		send_ack(c);
		if (c->timeout_ms < TFTP_ACK_RESEND_MAX_MS)
			c->timeout_ms *= 2;
		c->next_timeout_ms = now + c->timeout_ms;
		return true;
	}
	if (++c->retries > c->opts.max_retries) {
		tftp_fail(c, -ETIMEDOUT, 0, NULL, "no answer from %'u for %s after %u tries: no TFTP "
			  "server?", c->server, c->filename,
			  c->retries);
		return false;
	}
	c->retransmits++;
	send_rrq(c);
	if (c->timeout_ms < 8 * c->opts.timeout_ms)
		c->timeout_ms *= 2;
	c->next_timeout_ms = now + c->timeout_ms;
	return true;
}

long tftp_fetch(struct net_device *nd, uint32_t server, const char *filename,
		const struct tftp_opts *opts, struct tftp_sink *sink)
{
	static struct tftp_client c;
	int rc = tftp_start(&c, nd, server, filename, opts, sink);

	if (rc < 0) {
		kprintf("tftp: cannot start %s: %s\n", filename, ib_strerror(rc));
		return rc;
	}
	while (tftp_step(&c, clock_ms()))
		net_poll();
	tftp_stop(&c);
	if (c.state != TFTP_DONE)
		return c.result ? c.result : -EIO;
	return (long)sink->len;
}

int tftp_url_split(const char *url, char *host, size_t size, const char **path)
{
	const char *h = url + 7, *slash, *colon = NULL;
	size_t len;

	if (strncmp(url, "tftp://", 7) != 0)
		return -EINVAL;
	slash = strchr(h, '/');
	if (!slash || slash == h || !slash[1])
		return -EINVAL;
	for (const char *p = h; p < slash && !colon; p++)
		if (*p == ':')
			colon = p;
	len = (size_t)((colon ? colon : slash) - h);
	if (colon && (slash - colon != 3 || strncmp(colon + 1, "69", 2) != 0))
		return -ENOTSUP;
	if (len >= size)
		return -EINVAL;
	memcpy(host, h, len);
	host[len] = '\0';
	*path = slash + 1;
	return 0;
}

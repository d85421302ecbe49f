/* SPDX-License-Identifier: MIT */
/* HTTP/1.1 GET over ibboot's TCP: request, response framing, redirects, sinks, clear errors. */
#include <ibboot/http.h>
#include <ibboot/config.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/dns.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>
#include <ibboot/version.h>

#define HTTP_GROW_FIRST   (1u << 20)
#define HTTP_GROW_MAX     (1ull << 30)

enum body_mode { BODY_NONE, BODY_LENGTH, BODY_CHUNKED, BODY_UNTIL_CLOSE };

/* Scalars first, large buffers last: short field offsets make smaller code. */
struct http_client {
	struct http_sink *sink;
	size_t head_len;
	bool head_done, body_done, failed;
	enum body_mode mode;
	uint64_t body_len;
	int error;
	const uint8_t *post;       /* POST body bytes not yet queued */
	size_t post_left;
	struct http_response resp;
	struct http_chunked chunked;
	char msg[256];
	char url[URI_MAX];
	uint8_t head[HTTP_HEAD_MAX];
	struct tcp_conn conn;
};

void http_sink_free(struct http_sink *s)
{
	if (s->grow && s->buf)
		dma_free(s->buf, s->size);
	s->buf = NULL;
	s->size = s->len = 0;
}

static int fail(struct http_client *h, int err, const char *fmt, ...) __printf(3, 4);
static int fail(struct http_client *h, int err, const char *fmt, ...)
{
	va_list ap;

	if (!h->failed) {
		h->failed = true;
		h->error = err;
		va_start(ap, fmt);
		kvsnprintf(h->msg, sizeof(h->msg), fmt, ap);
		va_end(ap);
	}
	return err;
}

/* Makes room for `need` more bytes in a growing sink: doubling, or exactly the announced size. */
static int sink_reserve(struct http_client *h, uint64_t need_total)
{
	struct http_sink *s = h->sink;
	uint64_t max = s->max ? s->max : HTTP_GROW_MAX, size;
	uint8_t *nbuf;

	if (need_total <= s->size)
		return 0;
	if (!s->grow || need_total > max)
		return fail(h, -ENOSPC, "%s needs %llu bytes, buffer %llu", h->url,
			    (unsigned long long)need_total,
			    (unsigned long long)(s->grow ? max : s->size));
	size = h->mode == BODY_LENGTH ? need_total : MAX((uint64_t)HTTP_GROW_FIRST, need_total);
	if (h->mode != BODY_LENGTH)
		while (size < need_total * 2 && size * 2 <= max)
			size *= 2;
	nbuf = dma_alloc((size_t)size, 4096);
	if (!nbuf)
		return fail(h, -ENOMEM, "no memory for %llu bytes of %s",
			    (unsigned long long)size, h->url);
	if (s->buf) {
		memcpy(nbuf, s->buf, s->len);
		dma_free(s->buf, s->size);
	}
	s->buf = nbuf;
	s->size = (size_t)size;
	return 0;
}

static int body_write(void *ctx, const uint8_t *data, size_t len)
{
	struct http_client *h = ctx;
	struct http_sink *s = h->sink;
	int rc;

	if (!len)
		return 0;
	if ((rc = sink_reserve(h, (uint64_t)s->len + len)) < 0)
		return rc;
	memcpy(s->buf + s->len, data, len);
	s->len += len;
	h->body_len += len;
	if (s->progress)
		s->progress(s->ctx, h->body_len, h->mode == BODY_LENGTH ? h->resp.content_length : 0);
	return 0;
}

static bool is_redirect(unsigned status)
{
	return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

/* The header block is complete: decide what the body is. */
static int head_complete(struct http_client *h)
{
	const struct http_response *r = &h->resp;

	if (h->post && r->status >= 200 && r->status < 300) {
		h->body_done = true;   /* the POST was taken; what the server says is not kept */
		return 0;
	}
	if (r->status >= 400)
		return fail(h, r->status == 404 ? -ENOENT : r->status == 403 ? -EPERM : -EIO,
			    "HTTP %u %s for %s", r->status, r->reason, h->url);
	if (r->status >= 300) {
		/* Redirects are not followed for a POST. */
		if (h->post || !is_redirect(r->status))
			return fail(h, -ENOTSUP, "HTTP %u %s for %s%s: not followed", r->status,
				    r->reason, h->post ? "a POST to " : "", h->url);
		if (!r->has_location)
			return fail(h, -EINVAL, "HTTP %u without Location for %s",
				    r->status, h->url);
		h->body_done = true;   /* the redirect's body is not wanted */
		return 0;
	}
	if (r->status != 200 && r->status != 203)
		return fail(h, -ENOTSUP, "HTTP %u %s for %s", r->status, r->reason, h->url);
	h->sink->len = 0;
	if (r->chunked) {
		h->mode = BODY_CHUNKED;
		http_chunked_init(&h->chunked);
	} else if (r->has_length) {
		h->mode = BODY_LENGTH;
		if (sink_reserve(h, r->content_length) < 0)
			return h->error;
		if (!r->content_length)
			h->body_done = true;
	} else {
		h->mode = BODY_UNTIL_CLOSE;   /* RFC 9112 §6.3 rule 8 */
	}
	return 0;
}

static int body_bytes(struct http_client *h, const uint8_t *data, size_t len)
{
	const char *why = "";
	long n;
	int rc;

	if (h->body_done || !len)
		return 0;
	switch (h->mode) {
	case BODY_LENGTH: {
		uint64_t left = h->resp.content_length - h->body_len;

		/* Bytes past Content-Length are not part of this response: ignore them. */
		if ((rc = body_write(h, data, (size_t)MIN((uint64_t)len, left))) < 0)
			return rc;
		if (h->body_len == h->resp.content_length)
			h->body_done = true;
		return 0;
	}
	case BODY_CHUNKED:
		n = http_chunked_feed(&h->chunked, data, len, body_write, h, &why);
		if (n < 0)
			return h->failed ? h->error : fail(h, (int)n, "bad chunked body from %s after "
							   "%llu bytes: %s", h->url,
							   (unsigned long long)h->body_len, why);
		if (h->chunked.state == HC_DONE)
			h->body_done = true;
		return 0;
	case BODY_UNTIL_CLOSE:
		return body_write(h, data, len);
	default:
		return 0;
	}
}

static int http_rx(struct tcp_conn *c, const uint8_t *data, size_t len)
{
	struct http_client *h = c->priv;
	const char *why = "";
	size_t end, take;
	int rc;

	if (h->failed)
		return h->error;
	while (!h->head_done && len) {
		size_t from = h->head_len > 3 ? h->head_len - 3 : 0;

		take = MIN(len, sizeof(h->head) - h->head_len);
		memcpy(h->head + h->head_len, data, take);
		h->head_len += take;
		end = http_head_end(h->head + from, h->head_len - from);
		if (!end) {
			if (h->head_len == sizeof(h->head))
				return fail(h, -EINVAL, "response header from %s over %u bytes",
					    h->url, HTTP_HEAD_MAX);
			return 0;
		}
		end += from;
		/* What followed the blank line is the body (or the next response after a 1xx). */
		data += take - (h->head_len - end);
		len -= take - (h->head_len - end);
		if ((rc = http_parse_head(h->head, end, &h->resp, &why)) < 0)
			return fail(h, rc, "bad response from %s: %s", h->url, why);
		h->head_len = 0;
		if (h->resp.status < 200)
			continue;   /* RFC 9110 §15.2: interim responses precede the final one */
		h->head_done = true;
		if ((rc = head_complete(h)) < 0)
			return rc;
	}
	return h->head_done ? body_bytes(h, data, len) : 0;
}

static int send_request(struct http_client *h, const struct http_url *u,
			const struct http_options *opts)
{
	char req[URI_MAX + URI_HOST_MAX + 288];
	char port[8] = "", post[96] = "";
	int n;

	/* RFC 9110 §7.2: Host carries the port when it is not the scheme's default. */
	if (u->port_given && u->port != 80)
		ksnprintf(port, sizeof(port), ":%u", u->port);
	if (opts && opts->post_body) {
		ksnprintf(post, sizeof(post), "Content-Type: %.40s\r\nContent-Length: %zu\r\n",
			  opts->post_type ? opts->post_type : "application/octet-stream",
			  opts->post_len);
		h->post = opts->post_body;
		h->post_left = opts->post_len;
	}
	n = ksnprintf(req, sizeof(req),
		      "%s %s HTTP/1.1\r\nHost: %s%s\r\nUser-Agent: ibboot/%s\r\n"
		      "Accept: */*\r\n%sConnection: close\r\n\r\n", h->post ? "POST" : "GET",
		      u->path, u->host, port, IBBOOT_VERSION, post);
	/* Too long for req[] or for the send buffer. */
	if (n < 0 || (size_t)n >= sizeof(req) || tcp_send(&h->conn, req, (size_t)n) != n)
		return fail(h, -ERANGE, "request for %s too long", h->url);
	return 0;
}

/* Why the transfer cannot finish, from the connection's state; 0 while it can. */
static int check_conn(struct http_client *h, uint64_t now, uint64_t last_rx,
		      unsigned idle_ms)
{
	struct tcp_conn *c = &h->conn;

	if (h->failed || h->body_done)
		return 0;
	if (c->state == TCP_CLOSED && c->error && !h->head_done)
		return fail(h, c->error, "%s: %s", h->url, c->error_msg);
	if (c->state == TCP_CLOSED && c->error)
		return fail(h, c->error, "%s: %s after %llu body bytes", h->url, c->error_msg,
			    (unsigned long long)h->body_len);
	if (tcp_peer_closed(c) || c->state == TCP_CLOSED) {
		char of[32] = "";

		if (h->mode == BODY_UNTIL_CLOSE) {
			h->body_done = true;
			return 0;
		}
		/* Where it stopped: the bytes of the header, or of the body (of its length). */
		if (h->mode == BODY_LENGTH)
			ksnprintf(of, sizeof(of), " of %llu", (unsigned long long)h->resp.content_length);
		return fail(h, -EIO, "server closed after %llu%s bytes of %s%s",
			    (unsigned long long)(h->head_done ? h->body_len : h->head_len), of, h->url,
			    !h->head_done ? " (in header)" :
			    h->mode == BODY_CHUNKED ? " (chunked body)" : "");
	}
	if (now - last_rx >= idle_ms)
		return fail(h, -ETIMEDOUT, "no data from %s for %u s (%s, %llu body bytes)",
			    h->url, idle_ms / 1000, tcp_state_name(c->state),
			    (unsigned long long)h->body_len);
	return 0;
}

/* One request/response on its own connection. */
static int fetch_once(struct http_client *h, struct net_device *nd, const struct http_url *u,
		      const struct http_options *opts)
{
	unsigned idle_ms = opts && opts->idle_timeout_ms ? opts->idle_timeout_ms : HTTP_IDLE_TIMEOUT_MS;
	uint64_t now, last_rx, last_bytes = 0, linger_end;
	uint32_t addr;
	int rc;

	/* A dotted quad needs no DNS; dns_resolve said why it failed. */
	if (dns_resolve(nd, u->host, NULL, &addr) < 0)
		return fail(h, -ENOENT, "cannot resolve %s (for %s)", u->host, h->url);
	rc = tcp_connect(&h->conn, nd, addr, u->port, opts ? opts->tcp : NULL, http_rx, h);
	if (rc < 0)
		return fail(h, rc, "cannot connect to %s: %s", h->url,
			    h->conn.error_msg[0] ? h->conn.error_msg : ib_strerror(rc));
	if ((rc = send_request(h, u, opts)) == 0) {
		last_rx = clock_ms();
		while (!h->failed && !h->body_done) {
			/* A POST body goes out as the send buffer drains. */
			long sent = h->post_left ? tcp_send(&h->conn, h->post, h->post_left) : 0;

			if (sent > 0) {
				h->post += sent;
				h->post_left -= (size_t)sent;
			}
			net_poll();
			now = clock_ms();
			tcp_step(&h->conn, now);
			if (h->conn.stats.bytes_in != last_bytes) {
				last_bytes = h->conn.stats.bytes_in;
				last_rx = now;
			}
			check_conn(h, now, last_rx, idle_ms);
		}
	}
	if (h->failed) {
		if (h->conn.state != TCP_CLOSED)
			tcp_abort(&h->conn, h->error, NULL);
	} else {
		/* Orderly close; a TIME-WAIT need not be waited out (the port is not reused). */
		tcp_close(&h->conn);
		linger_end = clock_ms() + HTTP_LINGER_MS;
		while (h->conn.state != TCP_CLOSED && h->conn.state != TCP_TIME_WAIT &&
		       (int64_t)(clock_ms() - linger_end) < 0) {
			net_poll();
			tcp_step(&h->conn, clock_ms());
		}
		if (h->conn.state != TCP_CLOSED && h->conn.state != TCP_TIME_WAIT)
			tcp_abort(&h->conn, 0, NULL);
	}
	tcp_release(&h->conn);
	return h->failed ? h->error : 0;
}

long http_get(struct net_device *nd, const char *url, const struct http_options *opts,
	      struct http_sink *sink, struct http_result *res)
{
	static struct http_client h;
	unsigned max_redirects = opts && opts->max_redirects ? opts->max_redirects
							    : HTTP_MAX_REDIRECTS;
	char next[URI_MAX];
	struct http_url u;
	const char *why;
	unsigned hops = 0;
	int rc;

	if (res)
		memset(res, 0, sizeof(*res));
	if (strnlen(url, URI_MAX) >= URI_MAX)
		return -ERANGE;
	memcpy(next, url, strlen(url) + 1);
	for (;;) {
		memset(&h, 0, sizeof(h));
		h.sink = sink;
		memcpy(h.url, next, strlen(next) + 1);
		if ((rc = uri_parse_http(h.url, &u, &why)) < 0) {
			fail(&h, rc, "%s: %s", h.url, why);
			break;
		}
		if (!nd) {
			fail(&h, -ENODEV, "no network device for %s", h.url);
			break;
		}
		rc = fetch_once(&h, nd, &u, opts);
		if (res)
			res->tcp = h.conn.stats;
		if (rc < 0 || !is_redirect(h.resp.status))
			break;
		if (++hops > max_redirects) {
			fail(&h, -EIO, "too many redirects (more than %u) from %s, last to %s",
			     max_redirects, url, h.resp.location);
			break;
		}
		if (uri_resolve(h.url, h.resp.location, next, sizeof(next)) < 0) {
			fail(&h, -EINVAL, "cannot follow redirect from %s to '%s'", h.url,
			     h.resp.location);
			break;
		}
		kprintf("http: %u %s -> %s\n", h.resp.status, h.url, next);
	}
	if (res) {
		res->status = h.resp.status;
		res->redirects = hops;
		res->chunked = h.mode == BODY_CHUNKED;
		res->length = h.body_len;
		memcpy(res->url, h.url, sizeof(res->url));
		memcpy(res->error, h.msg, sizeof(h.msg));
	}
	if (h.failed) {
		kprintf("http: %s\n", h.msg);
		return h.error;
	}
	return (long)h.body_len;
}

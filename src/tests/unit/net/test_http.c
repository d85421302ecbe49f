/* SPDX-License-Identifier: MIT */
/* HTTP: parsers (status line, fields, chunked, URLs) and http_get() against a scripted server
 * that can lose, reorder and duplicate segments, lie about lengths, stall or reset. */
#include "tcp_peer.h"
#include "net_test_env.h"
#include "test.h"

#include <ibboot/dns.h>
#include <ibboot/errno.h>
#include <ibboot/http.h>
#include <stdlib.h>

/* ---- a scripted HTTP server on 198.18.0.1:80 ---- */

#define SRV_MSS 1400
#define SRV_FLIGHT 16

static struct srv {
	const char *resp[8];          /* one per connection; the last repeats */
	size_t resp_len[8];
	unsigned n_resp;
	uint32_t isn;
	unsigned drop_every;          /* drop every Nth new data segment */
	bool reorder, dup, no_fin, rst_storm;
	size_t stop_after, rst_after; /* 0: off */
	/* state */
	unsigned conns;
	uint16_t port;
	uint32_t rcv;
	char req[8][2048];
	size_t req_len;
	const char *r;
	size_t r_len, una, nxt, max_sent;
	bool fin_sent, open, held_valid;
	unsigned idle, segs;
	size_t held_off, held_n;
} srv;

static void srv_send(size_t off, size_t n, uint8_t flags)
{
	peer_send_raw(80, srv.port, srv.isn + 1 + (uint32_t)off, srv.rcv, TCP_ACK | flags, 65535,
		      srv.r + off, n, NULL, 0, false);
}

/* The DNS server on 198.18.0.1:53: boot.ibboot.test is 198.18.0.1, nothing else exists. */
static unsigned dns_queries;

static void dns_answer(void)
{
	uint8_t q[512], r[600];
	uint16_t sport, dport;
	size_t len, qend = 12;

	if (!peer_pop_udp(&sport, &dport, q, &len) || dport != 53 || len < 17)
		return;
	dns_queries++;
	while (qend < len && q[qend])
		qend += q[qend] + 1u;
	qend += 5;   /* root label, type, class */
	if (qend > len)
		return;
	memcpy(r, q, qend);
	r[2] = 0x81;
	r[3] = 0x80;
	r[6] = r[7] = r[8] = r[9] = r[10] = r[11] = 0;
	if (len > 13 + 4 && !memcmp(q + 13, "boot", 4)) {
		static const uint8_t an[] = { 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 198, 18, 0, 1 };

		r[7] = 1;
		memcpy(r + qend, an, sizeof(an));
		qend += sizeof(an);
	} else {
		r[3] = 0x83;   /* NXDOMAIN */
	}
	peer_send_udp(53, sport, r, qend);
}

static void srv_tick(void)
{
	struct peer_seg s;

	dns_answer();

	while (peer_pop(&s)) {
		if (s.flags & TCP_RST) {
			srv.open = false;
			continue;
		}
		if (s.flags & TCP_SYN) {
			uint8_t o[20];
			size_t n = peer_syn_opts(o, 2004, 7, false, 0, 0);
			unsigned i = MIN(srv.conns, srv.n_resp - 1);

			srv.port = s.sport;
			srv.rcv = s.seq + 1;
			srv.r = srv.resp[i];
			srv.r_len = srv.resp_len[i] ? srv.resp_len[i] : strlen(srv.resp[i]);
			srv.una = srv.nxt = srv.max_sent = srv.req_len = 0;
			srv.fin_sent = srv.held_valid = false;
			srv.open = true;
			srv.idle = srv.segs = 0;
			if (srv.conns < 8)
				memset(srv.req[srv.conns], 0, sizeof(srv.req[0]));
			srv.conns++;
			peer_send_raw(80, srv.port, srv.isn, srv.rcv, TCP_SYN | TCP_ACK, 65535, NULL, 0,
				      o, n, false);
			continue;
		}
		if (!srv.open || s.sport != srv.port)
			continue;
		if (s.len && s.seq == srv.rcv) {
			if (srv.conns <= 8 && srv.req_len + s.len < sizeof(srv.req[0])) {
				memcpy(srv.req[srv.conns - 1] + srv.req_len, s.data, s.len);
				srv.req_len += s.len;
			}
			srv.rcv += (uint32_t)s.len;
		}
		if ((s.flags & TCP_FIN) && s.seq + s.len == srv.rcv)
			srv.rcv++;
		if (s.len || (s.flags & TCP_FIN))
			peer_send_raw(80, srv.port, srv.isn + 1 + (uint32_t)srv.nxt +
				      (srv.fin_sent ? 1 : 0), srv.rcv, TCP_ACK, 65535, NULL, 0, NULL,
				      0, false);
		if (s.flags & TCP_ACK) {
			size_t off = s.ack - (srv.isn + 1);

			if (off > srv.una && off <= srv.r_len + 1) {
				srv.una = off;
				srv.idle = 0;
			}
		}
	}
	if (!srv.open || !strstr(srv.req[MIN(srv.conns, 8u) - 1], "\r\n\r\n"))
		return;
	if (srv.rst_after && srv.nxt >= srv.rst_after) {
		peer_send_raw(80, srv.port, srv.isn + 1 + (uint32_t)srv.nxt, srv.rcv, TCP_RST, 0, NULL,
			      0, NULL, 0, false);
		srv.open = false;
		return;
	}
	while (srv.nxt < srv.r_len && srv.nxt < srv.una + SRV_FLIGHT * SRV_MSS &&
	       (!srv.stop_after || srv.nxt < srv.stop_after)) {
		size_t n = MIN((size_t)SRV_MSS, srv.r_len - srv.nxt);
		bool fresh = srv.nxt >= srv.max_sent;

		srv.segs += fresh;
		if (fresh && srv.drop_every && srv.segs % srv.drop_every == 0) {
			/* lost */
		} else if (fresh && srv.reorder && !srv.held_valid && srv.segs % 5 == 1) {
			srv.held_off = srv.nxt;   /* sent after the next one */
			srv.held_n = n;
			srv.held_valid = true;
		} else {
			if (srv.rst_storm) {
				/* Blind resets around the client's window, never at exactly RCV.NXT. */
				uint32_t base = srv.isn + 1 + (uint32_t)srv.una;

				for (uint32_t k = 1; k <= 4; k++)
					peer_send_raw(80, srv.port, base + k * 7919u, 0, TCP_RST, 0, NULL,
						      0, NULL, 0, false);
				peer_send_raw(80, srv.port, base - 1000000u, 0, TCP_RST, 0, NULL, 0,
					      NULL, 0, false);
			}
			srv_send(srv.nxt, n, 0);
			if (fresh && srv.dup && srv.segs % 4 == 0)
				srv_send(srv.nxt, n, 0);
			if (srv.held_valid && srv.held_off != srv.nxt) {
				srv_send(srv.held_off, srv.held_n, 0);
				srv.held_valid = false;
			}
		}
		srv.nxt += n;
		srv.max_sent = MAX(srv.max_sent, srv.nxt);
	}
	if (srv.nxt == srv.r_len && !srv.fin_sent && !srv.no_fin && !srv.stop_after) {
		peer_send_raw(80, srv.port, srv.isn + 1 + (uint32_t)srv.r_len, srv.rcv,
			      TCP_ACK | TCP_FIN, 65535, NULL, 0, NULL, 0, false);
		srv.fin_sent = true;
	}
	/* The server's own retransmission timer: go back to the oldest unacknowledged byte. */
	if (++srv.idle > 300 && srv.una < srv.nxt) {
		srv.idle = 0;
		srv.nxt = srv.una;
		srv.held_valid = false;
		if (srv.una <= srv.r_len)
			srv.fin_sent = false;
	}
}

static void srv_reset(void)
{
	memset(&srv, 0, sizeof(srv));
	srv.isn = 0x12345678;
	peer_setup();
	peer_tick = srv_tick;
	test_clock_autostep = 1;
	test_now_ms = 1000;
	test_console_clear();
}

static void srv_add(const char *resp, size_t len)
{
	srv.resp[srv.n_resp] = resp;
	srv.resp_len[srv.n_resp++] = len;
}

static uint8_t sinkbuf[1 << 20];

static long get(const char *url, struct http_result *res, struct http_sink *sink)
{
	static struct http_sink fixed;
	struct http_options opts = { 0 };

	opts.idle_timeout_ms = 3000;
	if (!sink) {
		memset(&fixed, 0, sizeof(fixed));
		fixed.buf = sinkbuf;
		fixed.size = sizeof(sinkbuf);
		sink = &fixed;
	}
	return http_get(&peer_nd, url, &opts, sink, res);
}

/* A 200 response with Content-Length and a patterned body of n bytes. */
static char *make_body_response(size_t n, size_t *len)
{
	char *r = malloc(n + 100);
	int h = snprintf(r, 100, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n", n);

	for (size_t i = 0; i < n; i++)
		r[h + i] = (char)(i * 13 + (i >> 8));
	*len = (size_t)h + n;
	return r;
}

static bool body_ok(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != (uint8_t)(i * 13 + (i >> 8)))
			return false;
	return true;
}

/* One canned response (NUL-terminated) on a fresh connection: what get() of url returned. */
static long get_one(const char *resp, const char *url, struct http_result *res)
{
	srv_reset();
	srv_add(resp, 0);
	return get(url, res, NULL);
}

TEST(http_get_with_loss_reordering_duplicates_and_wrap)
{
	struct http_result res;
	size_t len;
	char *r = make_body_response(300000, &len);

	srv_reset();
	srv.isn = 0xfffff000u;   /* the body crosses 2^32 */
	srv.drop_every = 7;
	srv.reorder = true;
	srv.dup = true;
	srv_add(r, len);
	CHECK_EQ(get("http://198.18.0.1/dir/file.bin", &res, NULL), 300000);
	CHECK(body_ok(sinkbuf, 300000));
	CHECK_EQ(res.status, 200);
	CHECK(!res.chunked);
	CHECK(res.tcp.ooo_stored > 0);
	CHECK(res.tcp.dup_segs > 0);
	CHECK(strncmp(srv.req[0], "GET /dir/file.bin HTTP/1.1\r\nHost: 198.18.0.1\r\n"
		      "User-Agent: ibboot/", 64) == 0);
	CHECK(strstr(srv.req[0], "\r\nConnection: close\r\n\r\n") != NULL);
	CHECK_EQ(peer_bad_tx, 0);
	free(r);
	peer_teardown();
}

TEST(http_chunked_body_into_growing_sink)
{
	static const char resp[] =
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n"
		"5;name=value\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n";
	struct http_sink sink = { 0 };
	struct http_result res;

	srv_reset();
	srv_add(resp, 0);
	sink.grow = true;
	CHECK_EQ(get("http://198.18.0.1:80/c", &res, &sink), 16);
	CHECK(res.chunked);
	CHECK_MEM(sink.buf, "hello 0123456789", 16);
	CHECK(sink.size >= 16);
	http_sink_free(&sink);
	CHECK(sink.buf == NULL);
	peer_teardown();
}

TEST(http_lying_content_length)
{
	static const char resp[] = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nonly this";
	struct http_result res;

	CHECK(get_one(resp, "http://198.18.0.1/f", &res) < 0);
	CHECK_STR(res.error, "server closed after 9 of 1000 bytes of "
		  "http://198.18.0.1/f");
	peer_teardown();
}

TEST(http_oversized_header_aborts)
{
	static char resp[12000];
	struct http_result res;

	srv_reset();
	strcpy(resp, "HTTP/1.1 200 OK\r\n");
	while (strlen(resp) < 10000)
		strcat(resp, "X-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n");
	strcat(resp, "\r\n");
	srv_add(resp, 0);
	CHECK_EQ(get("http://198.18.0.1/h", &res, NULL), -EINVAL);
	CHECK_STR(res.error, "response header from http://198.18.0.1/h over 8192 bytes");
	srv_tick();         /* let the server read what the client sent last */
	CHECK(!srv.open);   /* the client reset the connection */
	peer_teardown();
}

TEST(http_chunk_size_overflow)
{
	static const char resp[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
				   "fffffffffffffffffff\r\nxx";
	struct http_result res;

	CHECK(get_one(resp, "http://198.18.0.1/o", &res) < 0);
	CHECK(strstr(res.error, "bad chunked body from http://198.18.0.1/o after 0 bytes: chunk "
		     "size overflows") != NULL);
	peer_teardown();
}

/* A 100000-byte body the server breaks off after some bytes: stop_after goes silent, rst_after
 * resets (0: off). Returns what get() returned; res holds the error. */
static long get_broken_body(const char *url, size_t stop_after, size_t rst_after,
			    struct http_result *res)
{
	size_t len;
	char *r = make_body_response(100000, &len);
	long rc;

	srv_reset();
	srv.stop_after = stop_after;
	srv.rst_after = rst_after;
	srv_add(r, len);
	rc = get(url, res, NULL);
	free(r);
	return rc;
}

TEST(http_server_stops_mid_body)
{
	struct http_result res;

	CHECK_EQ(get_broken_body("http://198.18.0.1/s", 50000, 0, &res), -ETIMEDOUT);
	CHECK(strstr(res.error, "no data from http://198.18.0.1/s for 3 s (ESTABLISHED, ") != NULL);
	peer_teardown();
}

TEST(http_reset_mid_body)
{
	struct http_result res;

	CHECK(get_broken_body("http://198.18.0.1/r", 0, 30000, &res) < 0);
	CHECK(strstr(res.error, "connection reset by server after ") != NULL);
	peer_teardown();
}

TEST(http_relative_redirect_then_body)
{
	static const char r302[] = "HTTP/1.1 302 Found\r\nLocation: ../b/file?x=1\r\n"
				   "Content-Length: 4\r\n\r\nnope";
	static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
	struct http_result res;

	srv_reset();
	srv_add(r302, 0);
	srv_add(ok, 0);
	CHECK_EQ(get("http://198.18.0.1/a/x/y", &res, NULL), 2);
	CHECK_EQ(res.redirects, 1);
	CHECK_STR(res.url, "http://198.18.0.1/a/b/file?x=1");
	CHECK(strncmp(srv.req[1], "GET /a/b/file?x=1 HTTP/1.1\r\n", 28) == 0);
	CHECK_MEM(sinkbuf, "ok", 2);
	peer_teardown();
}

TEST(http_redirect_loop_bounded)
{
	static const char loop[] = "HTTP/1.1 301 Moved\r\nLocation: /again\r\nContent-Length: 0\r\n\r\n";
	struct http_result res;

	CHECK(get_one(loop, "http://198.18.0.1/again", &res) < 0);
	CHECK_EQ(srv.conns, 6);   /* the first request and five redirects */
	CHECK(strstr(res.error, "too many redirects (more than 5)") != NULL);
	peer_teardown();
}

TEST(http_errors_name_status_and_url)
{
	static const char e500[] = "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n";
	static const char e404[] = "HTTP/1.0 404 Not Found\r\n\r\n";
	struct http_result res;

	CHECK_EQ(get_one(e500, "http://198.18.0.1/boom", &res), -EIO);
	CHECK_STR(res.error, "HTTP 500 Internal Server Error for http://198.18.0.1/boom");
	CHECK(test_console_has("http: HTTP 500 Internal Server Error for http://198.18.0.1/boom"));
	peer_teardown();
	CHECK_EQ(get_one(e404, "http://198.18.0.1/x", &res), -ENOENT);
	CHECK_STR(res.error, "HTTP 404 Not Found for http://198.18.0.1/x");
	peer_teardown();
}

TEST(http_body_larger_than_caller_buffer)
{
	struct http_sink sink = { 0 };
	struct http_result res;
	static uint8_t small[1000];
	size_t len;
	char *r = make_body_response(5000, &len);

	srv_reset();
	srv_add(r, len);
	sink.buf = small;
	sink.size = sizeof(small);
	CHECK_EQ(get("http://198.18.0.1/big", &res, &sink), -ENOSPC);
	CHECK_STR(res.error, "http://198.18.0.1/big needs 5000 bytes, buffer 1000");
	free(r);
	peer_teardown();
}

TEST(http_interim_100_then_200_and_until_close)
{
	static const char resp[] = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"
				   "Connection: close\r\n\r\nbody until the end";
	struct http_result res;

	CHECK_EQ(get_one(resp, "http://198.18.0.1/u", &res), 18);
	CHECK_MEM(sinkbuf, "body until the end", 18);
	peer_teardown();
}

TEST(http_head_parser)
{
	struct http_response r;
	const char *why = "";
#define HEAD(s) http_parse_head((const uint8_t *)(s), sizeof(s) - 1, &r, &why)

	CHECK_EQ(HEAD("HTTP/1.1 200 OK\r\nContent-Length:  42 \r\nLocation: /x\r\n\r\n"), 0);
	CHECK_EQ(r.status, 200);
	CHECK_STR(r.reason, "OK");
	CHECK(r.has_length);
	CHECK_EQ(r.content_length, 42);
	CHECK_STR(r.location, "/x");
	CHECK_EQ(HEAD("HTTP/1.1 204\n\n"), 0);   /* LF alone, no reason */
	CHECK_EQ(r.status, 204);
	CHECK_EQ(HEAD("HTTP/1.1 200 OK\r\ncontent-length: 5\r\nContent-Length: 6\r\n\r\n"), -EINVAL);
	CHECK_STR(why, "conflicting Content-Length");
	CHECK_EQ(HEAD("HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\n"), -EINVAL);
	CHECK_EQ(HEAD("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n"), -EINVAL);
	CHECK_STR(why, "Content-Length too large");
	CHECK_EQ(HEAD("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"), -ENOTSUP);
	CHECK_EQ(HEAD("HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\nContent-Length: 4\r\n\r\n"),
		 0);
	CHECK(r.chunked && !r.has_length);
	CHECK_EQ(HEAD("HTTP/1.1 200 OK\r\nX: a\r\n folded\r\n\r\n"), -EINVAL);
	CHECK(strstr(why, "folding") != NULL);
	CHECK_EQ(HEAD("HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n"), -EINVAL);
	CHECK(strstr(why, "bare CR") != NULL);
	CHECK_EQ(HEAD("HTTP/2 200 OK\r\n\r\n"), -EINVAL);
	CHECK_EQ(HEAD("HTTP/1.1 20x OK\r\n\r\n"), -EINVAL);
	CHECK_EQ(HEAD("HTTP/1.1 200 OK\r\nNoColon\r\n\r\n"), -EINVAL);
	CHECK_EQ(HEAD("HTTP/1.1 200 OK\r\n: empty\r\n\r\n"), -EINVAL);
	CHECK_EQ(HEAD("HTTP/1.1 200 OK\r\nX: 1\r\n"), -EINVAL);   /* no blank line */
	CHECK_EQ(http_head_end((const uint8_t *)"HTTP/1.1 200 OK\r\n\r\nbody", 23), 19);
	CHECK_EQ(http_head_end((const uint8_t *)"HTTP/1.1 200 OK\r\nX: 1\r\n", 23), 0);
#undef HEAD
}

struct collect {
	char buf[256];
	size_t n;
};

static int collect(void *ctx, const uint8_t *d, size_t n)
{
	struct collect *c = ctx;

	if (c->n + n > sizeof(c->buf))
		return -ENOSPC;
	memcpy(c->buf + c->n, d, n);
	c->n += n;
	return 0;
}

TEST(http_chunked_decoder_any_split)
{
	static const char body[] = "4\r\nWiki\r\n5;ext=\"x\"\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n"
				   "0\r\nTrailer: yes\r\n\r\nEXTRA";
	static struct http_chunked st;
	const size_t len = sizeof(body) - 1;

	for (size_t piece = 1; piece <= len; piece++) {
		struct collect c = { .n = 0 };
		size_t off = 0;

		http_chunked_init(&st);
		while (off < len && st.state != HC_DONE) {
			long r = http_chunked_feed(&st, (const uint8_t *)body + off,
						   MIN(piece, len - off), collect, &c, NULL);

			CHECK(r >= 0);
			if (r < 0)
				break;
			off += (size_t)r;
		}
		CHECK_EQ(st.state, HC_DONE);
		CHECK_EQ(off, len - 5);   /* "EXTRA" is not part of the body */
		CHECK_EQ(c.n, 23);
		CHECK_MEM(c.buf, "Wikipedia in\r\n\r\nchunks.", 23);
	}
}

TEST(http_chunked_decoder_rejects)
{
	static struct http_chunked st;
	struct collect c = { .n = 0 };
	const char *why = "";
	static char longline[2000];
#define FEED(s) (http_chunked_init(&st), \
		 http_chunked_feed(&st, (const uint8_t *)(s), strlen(s), collect, &c, &why))

	CHECK(FEED("zz\r\n") < 0);
	CHECK_STR(why, "chunk size not hex");
	CHECK(FEED("10000000000000000\r\n") < 0);
	CHECK_STR(why, "chunk size overflows");
	CHECK(FEED("3\r\nabcdef") < 0);
	CHECK_STR(why, "no CRLF after chunk data");
	CHECK(FEED("3 x\r\n") < 0);
	memset(longline, 'a', sizeof(longline) - 1);
	longline[0] = '1';
	longline[1] = ';';
	CHECK(FEED(longline) < 0);
	CHECK_STR(why, "chunk line over 1024 bytes");
#undef FEED
}

TEST(uri_parse_and_resolve)
{
	struct http_url u;
	const char *why = "";
	char out[URI_MAX];
	static const struct { const char *ref, *want; } cases[] = {
		/* RFC 3986 §5.4.1, with base http://a/b/c/d;p?q */
		{ "g", "http://a/b/c/g" }, { "./g", "http://a/b/c/g" }, { "g/", "http://a/b/c/g/" },
		{ "/g", "http://a/g" }, { "//g", "http://g" }, { "?y", "http://a/b/c/d;p?y" },
		{ "g?y", "http://a/b/c/g?y" }, { "#s", "http://a/b/c/d;p?q" },
		{ ".", "http://a/b/c/" }, { "./", "http://a/b/c/" }, { "..", "http://a/b/" },
		{ "../", "http://a/b/" }, { "../g", "http://a/b/g" }, { "../..", "http://a/" },
		{ "../../g", "http://a/g" }, { "../../../g", "http://a/g" },
		{ "/./g", "http://a/g" }, { "/../g", "http://a/g" }, { "g.", "http://a/b/c/g." },
		{ "..g", "http://a/b/c/..g" }, { "./../g", "http://a/b/g" },
		{ "g/./h", "http://a/b/c/g/h" }, { "g/../h", "http://a/b/c/h" },
		{ "http://x:81/y", "http://x:81/y" }, { "", "http://a/b/c/d;p?q" },
	};

	CHECK_EQ(uri_parse_http("http://Boot.Example:8080/a/b?c#frag", &u, &why), 0);
	CHECK_STR(u.host, "boot.example");
	CHECK_EQ(u.port, 8080);
	CHECK_STR(u.path, "/a/b?c");
	CHECK_EQ(uri_parse_http("http://198.18.0.1", &u, &why), 0);
	CHECK_STR(u.path, "/");
	CHECK_EQ(u.port, 80);
	CHECK_EQ(uri_parse_http("http://h?q", &u, &why), 0);
	CHECK_STR(u.path, "/?q");
	CHECK_EQ(uri_parse_http("https://h/", &u, &why), -ENOTSUP);
	CHECK_EQ(uri_parse_http("http://user@h/", &u, &why), -ENOTSUP);
	CHECK_EQ(uri_parse_http("http://[::1]/", &u, &why), -ENOTSUP);
	CHECK_EQ(uri_parse_http("http://h:0/", &u, &why), -EINVAL);
	CHECK_EQ(uri_parse_http("http://h:65536/", &u, &why), -EINVAL);
	CHECK_EQ(uri_parse_http("http:///x", &u, &why), -EINVAL);
	CHECK_EQ(uri_parse_http("http://h/a b", &u, &why), -EINVAL);
	CHECK_EQ(uri_parse_http("ftp:/x", &u, &why), -ENOTSUP);
	CHECK_EQ(uri_parse_http("h/x", &u, &why), -EINVAL);
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		CHECK_EQ(uri_resolve("http://a/b/c/d;p?q", cases[i].ref, out, sizeof(out)), 0);
		if (strcmp(out, cases[i].want))
			test_fail(__FILE__, __LINE__, "resolve '%s': '%s' != '%s'", cases[i].ref,
				  out, cases[i].want);
	}
	CHECK_EQ(uri_resolve("http://a/b", "../../x", out, 10), -ERANGE);
}

TEST(http_host_name_through_dns)
{
	static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nname";
	const uint32_t server = PEER_IP;
	struct http_result res;

	srv_reset();
	srv_add(ok, 0);
	dns_cache_flush();
	dns_queries = 0;
	dns_set_servers(&peer_nd, &server, 1);
	CHECK_EQ(get("http://boot.ibboot.test/n", &res, NULL), 4);
	CHECK_EQ(dns_queries, 1);
	CHECK(strncmp(srv.req[0], "GET /n HTTP/1.1\r\nHost: boot.ibboot.test\r\n", 41) == 0);
	CHECK(get("http://nowhere.ibboot.test/n", &res, NULL) < 0);
	CHECK_STR(res.error, "cannot resolve nowhere.ibboot.test (for http://nowhere.ibboot.test/n)");
	dns_set_servers(&peer_nd, NULL, 0);
	dns_cache_flush();
	peer_teardown();
}

TEST(http_survives_rst_storm_and_sizes_sink_once)
{
	struct http_sink sink = { 0 };
	struct http_result res;
	size_t len;
	char *r = make_body_response(200000, &len);

	srv_reset();
	srv.rst_storm = true;
	srv_add(r, len);
	sink.grow = true;
	CHECK_EQ(get("http://198.18.0.1/storm", &res, &sink), 200000);
	CHECK(body_ok(sink.buf, 200000));
	CHECK_EQ(sink.size, 200000);   /* allocated once at Content-Length: no copy, no slack */
	CHECK(res.tcp.rst_ignored > 100);
	CHECK(res.tcp.challenge_acks > 0);
	http_sink_free(&sink);
	free(r);
	peer_teardown();
}

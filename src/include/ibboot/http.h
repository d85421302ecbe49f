/* SPDX-License-Identifier: MIT */
/*
 * HTTP/1.1 GET client (RFC 9110, 9112) over ibboot's TCP: Host, User-Agent "ibboot/<version>",
 * Connection: close; status line and header fields within a bounded header block; bodies framed
 * by Content-Length, by the chunked transfer coding (RFC 9112 §7.1) or by the connection's end;
 * redirects (301, 302, 303, 307, 308; relative Location resolved per RFC 3986 §5.2), at most
 * max_redirects; 4xx/5xx become errors that name the status and the URL.
 *
 * The body goes into a sink: a caller buffer, or a buffer from the platform's allocator that
 * grows as needed (allocated once at the announced Content-Length, so then nothing is copied but
 * the one copy out of the receive ring).
 */
#ifndef IBBOOT_HTTP_H
#define IBBOOT_HTTP_H

#include <ibboot/tcp.h>
#include <ibboot/uri.h>

#define HTTP_HEAD_MAX        8192    /* status line + header fields + blank line */
#define HTTP_CHUNK_LINE_MAX  1024    /* chunk-size line with extensions, or one trailer field */
#define HTTP_TRAILER_MAX     8192
#define HTTP_MAX_REDIRECTS   5

struct http_response {
	unsigned status;
	bool has_length, chunked, has_location;
	uint64_t content_length;
	char reason[64];
	char location[URI_MAX];
};

/* Offset just past the blank line ending the header block in buf[0..len), or 0 when it is not
 * complete yet. Lines may end in CRLF or LF (RFC 9112 §2.2). */
size_t http_head_end(const uint8_t *buf, size_t len);
/* Parses a complete header block (status line, fields, blank line). 0, or -EINVAL / -ENOTSUP
 * (a transfer coding other than chunked) with *why. */
int http_parse_head(const uint8_t *buf, size_t len, struct http_response *out, const char **why);

/* Chunked transfer coding decoder, fed in pieces. */
enum http_chunk_state { HC_SIZE, HC_DATA, HC_DATA_CR, HC_DATA_LF, HC_TRAILER, HC_DONE };
struct http_chunked {
	enum http_chunk_state state;
	uint64_t remaining;        /* of the current chunk */
	uint64_t body;             /* decoded bytes so far */
	size_t line_len, trailer_len;
	char line[HTTP_CHUNK_LINE_MAX];
};
typedef int (*http_body_fn)(void *ctx, const uint8_t *data, size_t len);
void http_chunked_init(struct http_chunked *st);
/* Decodes in[0..len), passing body bytes to out. Returns bytes consumed (less than len only when
 * the last chunk and trailer ended before), or a negative error (with *why) — from out too. */
long http_chunked_feed(struct http_chunked *st, const uint8_t *in, size_t len, http_body_fn out,
		       void *ctx, const char **why);

struct http_sink {
	uint8_t *buf;
	size_t size, len;
	bool grow;                 /* buf comes from dma_alloc (or is NULL) and may be replaced */
	size_t max;                /* growth limit; 0 = 1 GiB */
	/* After each piece of body: bytes so far, total (0 when unknown). */
	void (*progress)(void *ctx, uint64_t bytes, uint64_t total);
	void *ctx;
};
/* Frees a growing sink's buffer. */
void http_sink_free(struct http_sink *s);

struct http_options {
	unsigned max_redirects;    /* HTTP_MAX_REDIRECTS when 0 */
	unsigned idle_timeout_ms;  /* no byte for this long = the server stalled; 30 s when 0 */
	const struct tcp_config *tcp;
	/* POST instead of GET: post_body[0..post_len) sent as post_type (RFC 9110 §9.3.3); any 2xx
	 * answers it, and no redirect is followed (a 303 would turn it into a GET). */
	const void *post_body;
	size_t post_len;
	const char *post_type;
};

struct http_result {
	unsigned status, redirects;
	bool chunked;
	uint64_t length;
	char url[URI_MAX];         /* the URL the body came from */
	char error[320];
	struct tcp_stats tcp;
};

/* Downloads url into sink (or POSTs, see http_options), polling the network. Returns the body length or a negative error;
 * errors are printed and kept in res->error (res may be NULL). */
long http_get(struct net_device *nd, const char *url, const struct http_options *opts,
	      struct http_sink *sink, struct http_result *res);

#endif

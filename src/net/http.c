/* SPDX-License-Identifier: MIT */
/* HTTP/1.1 response parsing (RFC 9112): status line, header fields, chunked transfer coding. */
#include <ibboot/http.h>
#include <ibboot/errno.h>
#include <ibboot/hex.h>
#include <ibboot/string.h>

#define HTTP_LENGTH_MAX (1ull << 53)   /* any larger Content-Length or chunk total is nonsense */

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool is_tchar(char c)
{
	/* RFC 9110 §5.6.2 token characters */
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	return c && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static bool name_is(const uint8_t *name, size_t len, const char *want)
{
	size_t n = strlen(want);

	if (len != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (lower((char)name[i]) != want[i])
			return false;
	return true;
}

size_t http_head_end(const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (buf[i + 1] == '\n')
			return i + 2;
		if (buf[i + 1] == '\r' && i + 2 < len && buf[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

/* The next line of buf[*pos..len) without its CRLF/LF; false at the end or for a bare CR. */
static int next_line(const uint8_t *buf, size_t len, size_t *pos, const uint8_t **line,
		     size_t *line_len, const char **why)
{
	size_t start = *pos, i;

	for (i = start; i < len && buf[i] != '\n'; i++) {
		if (buf[i] == '\r' && (i + 1 >= len || buf[i + 1] != '\n')) {
			*why = "bare CR";
			return -EINVAL;
		}
		if (buf[i] == '\0') {
			*why = "NUL in header";
			return -EINVAL;
		}
	}
	if (i >= len) {
		*why = "header unterminated";
		return -EINVAL;
	}
	*line = buf + start;
	*line_len = i - start;
	if (*line_len && buf[i - 1] == '\r')
		(*line_len)--;
	*pos = i + 1;
	return 0;
}

static int parse_status_line(const uint8_t *l, size_t n, struct http_response *out,
			     const char **why)
{
	size_t rl;

	/* RFC 9112 §4: HTTP-version SP 3DIGIT SP [reason-phrase] */
	if (n < 12 || memcmp(l, "HTTP/", 5) || l[6] != '.' || l[8] != ' ') {
		*why = "not an HTTP status line";
		return -EINVAL;
	}
	if (l[5] != '1' || l[7] < '0' || l[7] > '9') {
		*why = "not an HTTP/1.x response";
		return -EINVAL;
	}
	for (int i = 9; i < 12; i++) {
		if (l[i] < '0' || l[i] > '9') {
			*why = "status code not 3 digits";
			return -EINVAL;
		}
	}
	out->status = (unsigned)((l[9] - '0') * 100 + (l[10] - '0') * 10 + (l[11] - '0'));
	if (out->status < 100) {
		*why = "status code below 100";
		return -EINVAL;
	}
	if (n > 12 && l[12] != ' ') {
		*why = "no space after status";
		return -EINVAL;
	}
	rl = n > 13 ? MIN(n - 13, sizeof(out->reason) - 1) : 0;
	for (size_t i = 0; i < rl; i++)
		out->reason[i] = (l[13 + i] >= 0x20 && l[13 + i] < 0x7f) ? (char)l[13 + i] : '?';
	out->reason[rl] = '\0';
	return 0;
}

static int parse_length(const uint8_t *v, size_t n, uint64_t *out, const char **why)
{
	uint64_t x = 0;

	if (!n) {
		*why = "empty Content-Length";
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9') {
			*why = "Content-Length not a number";
			return -EINVAL;
		}
		x = x * 10 + (uint64_t)(v[i] - '0');
		if (x > HTTP_LENGTH_MAX) {
			*why = "Content-Length too large";
			return -EINVAL;
		}
	}
	*out = x;
	return 0;
}

static int parse_field(const uint8_t *l, size_t n, struct http_response *out, const char **why)
{
	size_t colon, vs, ve;

	if (l[0] == ' ' || l[0] == '\t') {
		*why = "obsolete line folding";
		return -EINVAL;
	}
	for (colon = 0; colon < n && l[colon] != ':'; colon++) {
		if (!is_tchar((char)l[colon])) {
			*why = "bad char in field name";
			return -EINVAL;
		}
	}
	if (colon == n || !colon) {
		*why = colon ? "header line without colon" : "empty field name";
		return -EINVAL;
	}
	for (vs = colon + 1; vs < n && (l[vs] == ' ' || l[vs] == '\t'); vs++)
		;
	for (ve = n; ve > vs && (l[ve - 1] == ' ' || l[ve - 1] == '\t'); ve--)
		;
	if (name_is(l, colon, "content-length")) {
		uint64_t v;

		if (parse_length(l + vs, ve - vs, &v, why) < 0)
			return -EINVAL;
		/* RFC 9110 §8.6: differing lengths make the message unusable. */
		if (out->has_length && v != out->content_length) {
			*why = "conflicting Content-Length";
			return -EINVAL;
		}
		out->has_length = true;
		out->content_length = v;
	} else if (name_is(l, colon, "transfer-encoding")) {
		if (!name_is(l + vs, ve - vs, "chunked")) {
			*why = "transfer coding not chunked";
			return -ENOTSUP;
		}
		out->chunked = true;
	} else if (name_is(l, colon, "location")) {
		if (ve - vs >= sizeof(out->location) || ve == vs) {
			*why = ve == vs ? "empty Location" : "Location over 1023 chars";
			return -EINVAL;
		}
		memcpy(out->location, l + vs, ve - vs);
		out->location[ve - vs] = '\0';
		out->has_location = true;
	}
	return 0;
}

int http_parse_head(const uint8_t *buf, size_t len, struct http_response *out, const char **why)
{
	const char *dummy;
	const uint8_t *l;
	size_t pos = 0, n;
	int rc;

	if (!why)
		why = &dummy;
	memset(out, 0, sizeof(*out));
	if (!buf || !len) {
		*why = "empty response";
		return -EINVAL;
	}
	if (len > HTTP_HEAD_MAX) {
		*why = "response header over 8192 bytes";
		return -EINVAL;
	}
	if ((rc = next_line(buf, len, &pos, &l, &n, why)) < 0 ||
	    (rc = parse_status_line(l, n, out, why)) < 0)
		return rc;
	for (;;) {
		if ((rc = next_line(buf, len, &pos, &l, &n, why)) < 0)
			return rc;
		if (!n)
			break;
		if ((rc = parse_field(l, n, out, why)) < 0)
			return rc;
	}
	/* RFC 9112 §6.3: chunked wins over Content-Length. */
	if (out->chunked)
		out->has_length = false;
	return 0;
}

/* ---- chunked ---- */

void http_chunked_init(struct http_chunked *st)
{
	memset(st, 0, sizeof(*st));
	st->state = HC_SIZE;
}

/* chunk = chunk-size [ chunk-ext ] CRLF (RFC 9112 §7.1); st->line holds it without the LF. */
static int parse_chunk_size(struct http_chunked *st, const char **why)
{
	size_t n = st->line_len, i = 0;
	uint64_t v = 0;

	if (n && st->line[n - 1] == '\r')
		n--;
	for (; i < n && hex_digit(st->line[i]) >= 0; i++) {
		if (v >> 56) {
			*why = "chunk size overflows";
			return -EINVAL;
		}
		v = v << 4 | (uint64_t)hex_digit(st->line[i]);
	}
	if (!i) {
		*why = "chunk size not hex";
		return -EINVAL;
	}
	while (i < n && (st->line[i] == ' ' || st->line[i] == '\t'))
		i++;
	if (i < n && st->line[i] != ';') {
		*why = "garbage after chunk size";
		return -EINVAL;
	}
	if (v > HTTP_LENGTH_MAX || st->body + v > HTTP_LENGTH_MAX) {
		*why = "chunk size too large";
		return -EINVAL;
	}
	st->remaining = v;
	st->state = v ? HC_DATA : HC_TRAILER;
	return 0;
}

long http_chunked_feed(struct http_chunked *st, const uint8_t *in, size_t len, http_body_fn out,
		       void *ctx, const char **why)
{
	const char *dummy;
	size_t i = 0;
	int rc;

	if (!why)
		why = &dummy;
	while (i < len && st->state != HC_DONE) {
		uint8_t c = in[i];

		switch (st->state) {
		case HC_DATA: {
			size_t n = (size_t)MIN((uint64_t)(len - i), st->remaining);

			if ((rc = out(ctx, in + i, n)) < 0) {
				*why = "sink refused data";
				return rc;
			}
			st->remaining -= n;
			st->body += n;
			i += n;
			if (!st->remaining)
				st->state = HC_DATA_CR;
			continue;
		}
		case HC_DATA_CR:
			/* The CRLF after chunk data; a lone LF is tolerated (RFC 9112 §2.2). */
			if (c == '\r') {
				st->state = HC_DATA_LF;
			} else if (c == '\n') {
				st->state = HC_SIZE;
			} else {
				*why = "no CRLF after chunk data";
				return -EINVAL;
			}
			break;
		case HC_DATA_LF:
			if (c != '\n') {
				*why = "CR without LF after chunk data";
				return -EINVAL;
			}
			st->state = HC_SIZE;
			break;
		case HC_SIZE:
		case HC_TRAILER:
			if (c != '\n') {
				if (st->line_len >= sizeof(st->line)) {
					*why = "chunk line over 1024 bytes";
					return -EINVAL;
				}
				st->line[st->line_len++] = (char)c;
				break;
			}
			if (st->state == HC_SIZE) {
				if ((rc = parse_chunk_size(st, why)) < 0)
					return rc;
			} else if (st->line_len == 0 ||
				   (st->line_len == 1 && st->line[0] == '\r')) {
				st->state = HC_DONE;   /* the blank line after the trailer */
			} else if ((st->trailer_len += st->line_len) > HTTP_TRAILER_MAX) {
				*why = "trailer over 8192 bytes";
				return -EINVAL;
			}
			st->line_len = 0;
			break;
		case HC_DONE:
			break;
		}
		i++;
	}
	return (long)i;
}

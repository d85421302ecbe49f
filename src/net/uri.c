/* SPDX-License-Identifier: MIT */
/* http:// URL parsing and RFC 3986 §5.2 reference resolution, bounded by URI_MAX. */
#include <ibboot/uri.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) followed by ':'. */
static size_t scheme_len(const char *s)
{
	size_t i = 0;

	if (!is_alpha(s[0]))
		return 0;
	while (is_alpha(s[i]) || is_digit(s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.')
		i++;
	return s[i] == ':' ? i : 0;
}

static bool is_http(const char *s)
{
	static const char h[] = "http://";

	for (size_t i = 0; i < sizeof(h) - 1; i++)
		if (lower(s[i]) != h[i])
			return false;
	return true;
}

int uri_parse_http(const char *s, struct http_url *out, const char **why)
{
	const char *dummy, *auth, *end, *colon = NULL, *p;
	size_t hlen, plen = 0;

	if (!why)
		why = &dummy;
	memset(out, 0, sizeof(*out));
	if (!s || strnlen(s, URI_MAX) >= URI_MAX) {
		*why = "URL empty or over 1023 chars";
		return -EINVAL;
	}
	for (p = s; *p; p++) {
		if ((unsigned char)*p <= 0x20 || *p == 0x7f) {
			*why = "space or control char in URL";
			return -EINVAL;
		}
	}
	if (!is_http(s)) {
		*why = scheme_len(s) ? "only http:// (no TLS)"
				     : "not an http:// URL";
		return scheme_len(s) ? -ENOTSUP : -EINVAL;
	}
	auth = s + 7;
	for (end = auth; *end && *end != '/' && *end != '?' && *end != '#'; end++) {
		if (*end == '@') {
			*why = "no user names";
			return -ENOTSUP;
		}
		if (*end == ':')
			colon = end;
	}
	if (*auth == '[') {
		*why = "no IPv6 addresses";
		return -ENOTSUP;
	}
	hlen = (size_t)((colon ? colon : end) - auth);
	if (!hlen || hlen >= URI_HOST_MAX) {
		*why = hlen ? "host name too long" : "no host";
		return -EINVAL;
	}
	for (size_t i = 0; i < hlen; i++) {
		char c = auth[i];

		if (!is_alpha(c) && !is_digit(c) && c != '-' && c != '.' && c != '_') {
			*why = "host name char not in a-z A-Z 0-9 -._";
			return -EINVAL;
		}
		out->host[i] = lower(c);
	}
	out->port = 80;
	if (colon && colon + 1 < end) {
		unsigned long v = 0;

		for (p = colon + 1; p < end && v <= 65535; p++)
			v = is_digit(*p) ? v * 10 + (unsigned long)(*p - '0') : 65536;
		if (!v || v > 65535) {
			*why = "port not in 1..65535";
			return -EINVAL;
		}
		out->port = (uint16_t)v;
		out->port_given = true;
	}
	/* RFC 9112 §3.2.1: an empty path is sent as "/". */
	if (*end != '/')
		out->path[plen++] = '/';
	for (p = end; *p && *p != '#'; p++)
		out->path[plen++] = *p;   /* fits: the whole URL is shorter than URI_MAX */
	out->path[plen] = '\0';
	return 0;
}

int uri_format(const struct http_url *u, char *out, size_t size)
{
	int n = u->port != 80 ? ksnprintf(out, size, "http://%s:%u%s", u->host, u->port, u->path)
			      : ksnprintf(out, size, "http://%s%s", u->host, u->path);

	return n < 0 || (size_t)n >= size ? -ERANGE : 0;
}

/* The string under construction: once a piece does not fit (with the NUL), `over` stays set and
 * nothing more is written. */
struct sbuf {
	char *out;
	size_t size, len;
	bool over;
};

static void append(struct sbuf *b, const char *src, size_t n)
{
	if (b->over || n >= b->size - b->len) {
		b->over = true;
		return;
	}
	memcpy(b->out + b->len, src, n);
	b->len += n;
	b->out[b->len] = '\0';
}

/*
 * RFC 3986 §5.2.4 for a path that starts with '/': "." segments go, ".." removes the segment
 * before it (never above the root), a final "." or ".." leaves a trailing '/'. Appends to b.
 */
static void remove_dot_segments(const char *in, size_t in_len, struct sbuf *b)
{
	size_t i = 0, root = b->len;

	while (i < in_len) {
		size_t start, seg;

		if (in[i] == '/')
			i++;
		start = i;
		while (i < in_len && in[i] != '/')
			i++;
		seg = i - start;
		if (seg == 2 && in[start] == '.' && in[start + 1] == '.' && !b->over) {
			while (b->len > root && b->out[b->len - 1] != '/')
				b->len--;
			if (b->len > root)
				b->len--;   /* the '/' before the removed segment */
			b->out[b->len] = '\0';
		}
		if (seg <= 2 && in[start] == '.' && (seg == 1 || in[start + 1] == '.')) {
			if (i >= in_len)
				append(b, "/", 1);
		} else {
			append(b, "/", 1);
			append(b, in + start, seg);
		}
	}
	if (b->len == root)
		append(b, "/", 1);
}

/* Length of a path+query string up to a fragment. */
static size_t until_fragment(const char *s)
{
	size_t n = 0;

	while (s[n] && s[n] != '#')
		n++;
	return n;
}

int uri_resolve(const char *base, const char *ref, char *out, size_t size)
{
	char merged[URI_MAX];
	struct sbuf b = { out, size, 0, false }, m = { merged, sizeof(merged), 0, false };
	const char *auth_end, *bpath, *q;
	size_t blen, rlen;

	if (!base || !ref || !out || size < 2 || !is_http(base))
		return -EINVAL;
	if (strnlen(ref, URI_MAX) >= URI_MAX || strnlen(base, URI_MAX) >= URI_MAX)
		return -ERANGE;
	out[0] = '\0';
	merged[0] = '\0';
	rlen = until_fragment(ref);
	if (scheme_len(ref)) {   /* already absolute */
		append(&b, ref, rlen);
	} else if (ref[0] == '/' && ref[1] == '/') {   /* network-path reference: keep the scheme */
		append(&b, "http:", 5);
		append(&b, ref, rlen);
	} else {
		for (auth_end = base + 7; *auth_end && *auth_end != '/' && *auth_end != '?' &&
		     *auth_end != '#'; auth_end++)
			;
		append(&b, base, (size_t)(auth_end - base));
		bpath = auth_end;
		blen = until_fragment(bpath);
		if (!rlen) {   /* same document */
			append(&b, bpath, blen);
		} else if (ref[0] == '?') {
			for (q = bpath; q < bpath + blen && *q != '?'; q++)
				;
			append(&b, bpath, (size_t)(q - bpath));
			append(&b, ref, rlen);
		} else {
			if (ref[0] != '/') {
				/* §5.2.3 merge: the base path up to its last '/', then the
				 * reference. */
				size_t upto = 0;

				for (size_t i = 0; i < blen && bpath[i] != '?'; i++)
					if (bpath[i] == '/')
						upto = i + 1;
				if (!upto)
					append(&m, "/", 1);
				append(&m, bpath, upto);
			}
			append(&m, ref, rlen);
			for (q = merged; *q && *q != '?'; q++)
				;
			remove_dot_segments(merged, (size_t)(q - merged), &b);
			append(&b, q, strlen(q));
			b.over |= m.over;
		}
	}
	return b.over ? -ERANGE : 0;
}

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
		*why = "URL missing or longer than 1023 characters";
		return -EINVAL;
	}
	for (p = s; *p; p++) {
		if ((unsigned char)*p <= 0x20 || *p == 0x7f) {
			*why = "URL contains a space or a control character";
			return -EINVAL;
		}
	}
	if (!is_http(s)) {
		*why = scheme_len(s) ? "only http:// is supported (no TLS)"
				     : "not an http:// URL";
		return scheme_len(s) ? -ENOTSUP : -EINVAL;
	}
	auth = s + 7;
	for (end = auth; *end && *end != '/' && *end != '?' && *end != '#'; end++) {
		if (*end == '@') {
			*why = "user names are not supported";
			return -ENOTSUP;
		}
		if (*end == ':')
			colon = end;
	}
	if (*auth == '[') {
		*why = "IPv6 addresses are not supported";
		return -ENOTSUP;
	}
	hlen = (size_t)((colon ? colon : end) - auth);
	if (!hlen || hlen >= URI_HOST_MAX) {
		*why = hlen ? "host name too long" : "URL has no host";
		return -EINVAL;
	}
	for (size_t i = 0; i < hlen; i++) {
		char c = auth[i];

		if (!is_alpha(c) && !is_digit(c) && c != '-' && c != '.' && c != '_') {
			*why = "host name has a character other than letters, digits, -._";
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
			*why = "port is not a number from 1 to 65535";
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

/* Appends src[0..n) to out at *len; false if it does not fit (with the NUL). */
static bool append(char *out, size_t size, size_t *len, const char *src, size_t n)
{
	if (n >= size - *len)
		return false;
	memcpy(out + *len, src, n);
	*len += n;
	out[*len] = '\0';
	return true;
}

/*
 * RFC 3986 §5.2.4 for a path that starts with '/': "." segments go, ".." removes the segment
 * before it (never above the root), a final "." or ".." leaves a trailing '/'. Writes to out.
 */
static bool remove_dot_segments(const char *in, size_t in_len, char *out, size_t size)
{
	size_t len = 0, i = 0;

	out[0] = '\0';
	while (i < in_len) {
		size_t start, seg;

		if (in[i] == '/')
			i++;
		start = i;
		while (i < in_len && in[i] != '/')
			i++;
		seg = i - start;
		if (seg == 1 && in[start] == '.') {
			if (i >= in_len && !append(out, size, &len, "/", 1))
				return false;
		} else if (seg == 2 && in[start] == '.' && in[start + 1] == '.') {
			while (len && out[len - 1] != '/')
				len--;
			if (len)
				len--;   /* the '/' before the removed segment */
			out[len] = '\0';
			if (i >= in_len && !append(out, size, &len, "/", 1))
				return false;
		} else if (!append(out, size, &len, "/", 1) ||
			   !append(out, size, &len, in + start, seg)) {
			return false;
		}
	}
	if (!len)
		return append(out, size, &len, "/", 1);
	return true;
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
	char merged[URI_MAX], path[URI_MAX];
	const char *auth_end, *bpath, *q;
	size_t len = 0, blen, mlen = 0, rlen;

	if (!base || !ref || !out || size < 2 || !is_http(base))
		return -EINVAL;
	if (strnlen(ref, URI_MAX) >= URI_MAX || strnlen(base, URI_MAX) >= URI_MAX)
		return -ERANGE;
	out[0] = '\0';
	rlen = until_fragment(ref);
	if (scheme_len(ref))   /* already absolute */
		return append(out, size, &len, ref, rlen) ? 0 : -ERANGE;
	if (ref[0] == '/' && ref[1] == '/')   /* network-path reference: keep the scheme */
		return append(out, size, &len, "http:", 5) && append(out, size, &len, ref, rlen)
		       ? 0 : -ERANGE;
	for (auth_end = base + 7; *auth_end && *auth_end != '/' && *auth_end != '?' &&
	     *auth_end != '#'; auth_end++)
		;
	if (!append(out, size, &len, base, (size_t)(auth_end - base)))
		return -ERANGE;
	bpath = auth_end;
	blen = until_fragment(bpath);
	if (!rlen)   /* same document */
		return append(out, size, &len, bpath, blen) ? 0 : -ERANGE;
	if (ref[0] == '?') {
		for (q = bpath; q < bpath + blen && *q != '?'; q++)
			;
		return append(out, size, &len, bpath, (size_t)(q - bpath)) &&
		       append(out, size, &len, ref, rlen) ? 0 : -ERANGE;
	}
	if (ref[0] != '/') {
		/* §5.2.3 merge: the base path up to its last '/', then the reference. */
		size_t upto = 0;

		for (size_t i = 0; i < blen && bpath[i] != '?'; i++)
			if (bpath[i] == '/')
				upto = i + 1;
		if (!upto && !append(merged, sizeof(merged), &mlen, "/", 1))
			return -ERANGE;
		merged[mlen] = '\0';
		if (!append(merged, sizeof(merged), &mlen, bpath, upto))
			return -ERANGE;
	} else {
		merged[0] = '\0';
	}
	if (!append(merged, sizeof(merged), &mlen, ref, rlen))
		return -ERANGE;
	for (q = merged; *q && *q != '?'; q++)
		;
	if (!remove_dot_segments(merged, (size_t)(q - merged), path, sizeof(path)))
		return -ERANGE;
	return append(out, size, &len, path, strlen(path)) &&
	       append(out, size, &len, q, strlen(q)) ? 0 : -ERANGE;
}

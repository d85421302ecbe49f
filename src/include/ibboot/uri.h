/* SPDX-License-Identifier: MIT */
/*
 * http:// URLs (RFC 3986 §3, RFC 9110 §4.2.1) and reference resolution (RFC 3986 §5.2) for
 * redirects with relative Location values. Bounded: a URL longer than URI_MAX is refused.
 */
#ifndef IBBOOT_URI_H
#define IBBOOT_URI_H

#include <ibboot/compiler.h>

#define URI_MAX       1024
#define URI_HOST_MAX  256

struct http_url {
	char host[URI_HOST_MAX];   /* a name or a dotted IPv4 literal, lower case as given */
	uint16_t port;             /* 80 unless given */
	bool port_given;
	char path[URI_MAX];        /* origin-form request target: "/" + path [+ "?" query] */
};

/* Parses "http://host[:port][/path][?query][#fragment]" (the fragment is dropped). 0 or -EINVAL
 * / -ENOTSUP (another scheme, userinfo, IPv6 literal) with *why. */
int uri_parse_http(const char *s, struct http_url *out, const char **why);
/* Resolves reference `ref` (absolute, "//authority...", "/path", "relative/path", "?query")
 * against absolute `base` (RFC 3986 §5.2, dot segments removed). 0, -ERANGE, -EINVAL. */
int uri_resolve(const char *base, const char *ref, char *out, size_t size);
/* Writes "http://host[:port]path" for messages. */
int uri_format(const struct http_url *u, char *out, size_t size);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: HTTP responses and URLs. The input is used as a response header block, as a
 * chunked body fed in pieces of a size taken from the first byte (the result must not depend on
 * the split), and as a URL plus a Location to resolve against it.
 */
#include <ibboot/http.h>
#include <ibboot/string.h>
#include <stdlib.h>

struct acc {
	uint64_t n;
	uint32_t sum;
};

static int body(void *ctx, const uint8_t *d, size_t n)
{
	struct acc *a = ctx;

	for (size_t i = 0; i < n; i++)
		a->sum = a->sum * 31 + d[i];
	a->n += n;
	return 0;
}

static long feed_all(const uint8_t *d, size_t size, size_t piece, struct acc *a,
		     enum http_chunk_state *end)
{
	static struct http_chunked st;
	size_t off = 0;

	http_chunked_init(&st);
	while (off < size) {
		size_t n = MIN(piece, size - off);
		long r = http_chunked_feed(&st, d + off, n, body, a, NULL);

		if (r < 0)
			return r;
		if ((size_t)r > n)
			__builtin_trap();
		off += (size_t)r;
		if ((size_t)r < n)
			break;   /* done before the input ended */
	}
	*end = st.state;
	return (long)off;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http_response r;
	struct http_url u;
	struct acc a1 = { 0, 0 }, a2 = { 0, 0 };
	enum http_chunk_state e1 = HC_SIZE, e2 = HC_SIZE;
	char *s, out[URI_MAX];
	size_t end;
	long r1, r2;

	if (!size)
		return 0;
	end = http_head_end(data, size);
	if (end > size)
		__builtin_trap();
	if (end)
		http_parse_head(data, end, &r, NULL);
	http_parse_head(data, size, &r, NULL);

	r1 = feed_all(data + 1, size - 1, size, &a1, &e1);
	r2 = feed_all(data + 1, size - 1, 1 + data[0] % 7, &a2, &e2);
	if ((r1 < 0) != (r2 < 0) || (r1 >= 0 && (r1 != r2 || a1.n != a2.n || a1.sum != a2.sum ||
						 e1 != e2)))
		__builtin_trap();   /* the decoder must not depend on how the bytes were split */

	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	{
		char *nl = memchr(s, '\n', size);
		const char *ref = nl ? nl + 1 : "";

		if (nl)
			*nl = '\0';
		if (uri_parse_http(s, &u, NULL) == 0 && uri_format(&u, out, sizeof(out)) == 0 &&
		    strncmp(out, "http://", 7))
			__builtin_trap();
		if (uri_resolve(s, ref, out, sizeof(out)) == 0 && strlen(out) >= sizeof(out))
			__builtin_trap();
	}
	free(s);
	return 0;
}

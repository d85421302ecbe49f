/* SPDX-License-Identifier: MIT */
/*
 * The compressed image's decoder (src/arch/x86_64/unlzma.c) against xz itself: round trips of
 * code-like, text and random data through `xz --format=raw` (with and without --x86, several
 * lc/lp/pb), every truncation of a stream, single-bit flips anywhere, hand-made streams whose
 * match reaches before the output or past its end, and the IBZ1 header's checks. Under ASan a
 * read or write outside the buffers fails the program even where the decoder's answer is right.
 * With IBZ_FILE and IBZ_BODY set (check-zimage), the image's own packed body must unpack to the
 * body byte for byte.
 */
#include "test.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "unlzma.h"

static uint16_t probs[UNLZMA_PROBS_MAX];

/* xz --format=raw [--x86] --lzma1=...: the compressed bytes, malloc'd; *zlen its length. */
static uint8_t *xz_raw(const uint8_t *in, size_t len, int x86, unsigned lc, unsigned lp,
		       unsigned pb, size_t *zlen)
{
	char tmpl[] = "/tmp/unlzma-test-XXXXXX", cmd[256];
	int fd = mkstemp(tmpl);
	uint8_t *out = NULL;
	size_t cap = 0, n = 0;
	FILE *p;

	if (fd < 0 || write(fd, in, len) != (ssize_t)len) {
		test_fail(__FILE__, __LINE__, "temporary file");
		return NULL;
	}
	close(fd);
	snprintf(cmd, sizeof(cmd), "xz --format=raw %s --lzma1=preset=6,lc=%u,lp=%u,pb=%u -c %s",
		 x86 ? "--x86" : "", lc, lp, pb, tmpl);
	p = popen(cmd, "r");
	if (!p) {
		test_fail(__FILE__, __LINE__, "popen xz");
		unlink(tmpl);
		return NULL;
	}
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			out = realloc(out, cap);
		}
		size_t got = fread(out + n, 1, cap - n, p);
		if (!got)
			break;
		n += got;
	}
	if (pclose(p) != 0)
		test_fail(__FILE__, __LINE__, "xz failed: %s", cmd);
	unlink(tmpl);
	*zlen = n;
	return out;
}

static uint32_t crc_ref(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0xedb88320u : c >> 1;
	}
	return ~c;
}

/* An IBZ1 container around a raw stream (malloc'd). */
static uint8_t *ibz_wrap(const uint8_t *z, size_t zlen, const uint8_t *body, size_t blen,
			 unsigned props, int x86, size_t *len)
{
	uint8_t *c = malloc(IBZ_HEADER_LEN + zlen);
	uint32_t w[4] = { (uint32_t)blen, (uint32_t)zlen, crc_ref(body, blen), 0 };

	memcpy(c, "IBZ1", 4);
	c[4] = (uint8_t)props;
	c[5] = x86 ? IBZ_FILTER_X86 : 0;
	c[6] = c[7] = 0;
	for (int i = 0; i < 3; i++)
		for (int b = 0; b < 4; b++)
			c[8 + 4 * i + b] = (uint8_t)(w[i] >> (8 * b));
	memcpy(c + IBZ_HEADER_LEN, z, zlen);
	*len = IBZ_HEADER_LEN + zlen;
	return c;
}

/* Something like machine code: short opcodes, E8/E9 calls with near targets, repeats. */
static void fill_codeish(uint8_t *b, size_t n)
{
	static const uint8_t ops[] = { 0x48, 0x89, 0xc7, 0x8b, 0x45, 0xf8, 0x31, 0xc0, 0xc3, 0x55 };
	size_t i = 0;

	while (i < n) {
		uint64_t r = test_rand();
		if (r % 7 == 0 && i + 5 <= n) {
			int32_t rel = (int32_t)(r >> 8) % 40000 - 20000;
			b[i++] = (r & 8) ? 0xe8 : 0xe9;
			for (int k = 0; k < 4; k++)
				b[i++] = (uint8_t)((uint32_t)rel >> (8 * k));
		} else {
			b[i++] = ops[(r >> 16) % sizeof(ops)];
		}
	}
}

static void fill_text(uint8_t *b, size_t n)
{
	static const char *words[] = { "ibboot ", "hermon ", "port ", "ACTIVE ", "dhcp: ",
				       "lease ", "0x", "\n", "timeout ", "tftp " };
	size_t i = 0;

	while (i < n) {
		const char *w = words[test_rand() % 10];
		while (*w && i < n)
			b[i++] = (uint8_t)*w++;
	}
}

TEST(round_trips_match_xz)
{
	static const unsigned lclppb[][3] = { { 3, 0, 2 }, { 0, 0, 0 }, { 1, 0, 0 }, { 3, 1, 2 },
					      { 0, 4, 4 }, { 4, 0, 0 } };
	size_t sizes[] = { 0, 1, 4, 5, 6, 300, 70000 };

	test_srand(1);
	for (unsigned kind = 0; kind < 3; kind++) {
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			for (unsigned v = 0; v < sizeof(lclppb) / sizeof(lclppb[0]); v++) {
				size_t n = sizes[s], zlen, clen, got;
				uint8_t *body = malloc(n + 1), *out = malloc(n + 1), *z, *c;
				int x86 = kind != 1;
				unsigned props = (lclppb[v][2] * 5 + lclppb[v][1]) * 9 + lclppb[v][0];

				if (kind == 0)
					fill_codeish(body, n);
				else if (kind == 1)
					fill_text(body, n);
				else
					for (size_t i = 0; i < n; i++)
						body[i] = (uint8_t)test_rand();
				z = xz_raw(body, n, x86, lclppb[v][0], lclppb[v][1], lclppb[v][2],
					   &zlen);
				if (!z)
					return;
				c = ibz_wrap(z, zlen, body, n, props, x86, &clen);
				int rc = ibz_unpack(c, clen, out, n, probs, &got);
				CHECK_EQ(rc, UNLZMA_OK);
				CHECK_EQ(got, n);
				if (rc == UNLZMA_OK && n)
					CHECK_MEM(out, body, n);
				/* one byte less room than the body needs: refused before decoding */
				if (n)
					CHECK_EQ(ibz_unpack(c, clen, out, n - 1, probs, &got),
						 UNLZMA_E_SPACE);
				free(body);
				free(out);
				free(z);
				free(c);
			}
		}
	}
}

TEST(bcj_decoder_inverts_xz_x86_filter)
{
	/* the filter alone: LZMA1 round trip is checked above, so compare with and without it */
	size_t n = 50000, z1len, z2len;
	uint8_t *body = malloc(n), *a = malloc(n), *b = malloc(n), *z1, *z2;

	test_srand(7);
	fill_codeish(body, n);
	z1 = xz_raw(body, n, 1, 3, 0, 0, &z1len);
	z2 = xz_raw(body, n, 0, 3, 0, 0, &z2len);
	if (!z1 || !z2)
		return;
	CHECK_EQ(unlzma(z1, z1len, a, n, 3, probs), UNLZMA_OK);
	CHECK_EQ(unlzma(z2, z2len, b, n, 3, probs), UNLZMA_OK);
	CHECK_MEM(b, body, n);
	CHECK(memcmp(a, body, n) != 0);	/* the filter did change something... */
	unbcj_x86(a, n);
	CHECK_MEM(a, body, n);		/* ...and its inverse restores it */
	free(body);
	free(a);
	free(b);
	free(z1);
	free(z2);
}

TEST(crc32_is_zlibs)
{
	CHECK_EQ(unlzma_crc32((const uint8_t *)"123456789", 9), 0xcbf43926u);
	CHECK_EQ(unlzma_crc32(NULL, 0), 0);
}

/* A stream whose every prefix must be refused as truncated, and whose every bit flip must be
 * refused (or decode to something the CRC refuses), never read or write outside the buffers. */
TEST(truncations_and_bit_flips_are_refused)
{
	size_t n = 6000, zlen, clen, got;
	uint8_t *body = malloc(n), *z, *c, *out;
	unsigned flips = 0, refused = 0;

	test_srand(3);
	fill_codeish(body, n / 2);
	fill_text(body + n / 2, n - n / 2);
	z = xz_raw(body, n, 1, 3, 0, 0, &zlen);
	if (!z)
		return;
	c = ibz_wrap(z, zlen, body, n, 3, 1, &clen);
	for (size_t cut = 0; cut < clen; cut++) {
		/* an exact-size heap copy: ASan sees any read past the cut */
		uint8_t *t = malloc(cut ? cut : 1);
		memcpy(t, c, cut);
		out = malloc(n);
		int rc = ibz_unpack(t, cut, out, n, probs, &got);
		if (rc == UNLZMA_OK)
			test_fail(__FILE__, __LINE__, "a stream cut at %zu of %zu was accepted", cut,
				  clen);
		free(t);
		free(out);
	}
	/* the lengths in the header claiming more input than there is */
	{
		uint8_t *t = malloc(clen);
		memcpy(t, c, clen);
		t[12]++;
		out = malloc(n);
		CHECK_EQ(ibz_unpack(t, clen, out, n, probs, &got), UNLZMA_E_HEADER);
		free(t);
		free(out);
	}
	for (size_t bit = IBZ_HEADER_LEN * 8; bit < clen * 8; bit += 7) {
		uint8_t *t = malloc(clen);
		memcpy(t, c, clen);
		t[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		out = malloc(n);
		int rc = ibz_unpack(t, clen, out, n, probs, &got);
		flips++;
		if (rc != UNLZMA_OK)
			refused++;
		else
			CHECK_MEM(out, body, n);	/* a flip the range coder absorbs */
		free(t);
		free(out);
	}
	CHECK(refused > flips * 9 / 10);
	printf("  %u bit flips: %u refused\n", flips, refused);
	free(body);
	free(z);
	free(c);
}

TEST(header_checks)
{
	uint8_t z[64] = "IBZ1", out[16];
	size_t got = 99;

	CHECK_EQ(ibz_unpack(z, IBZ_HEADER_LEN - 1, out, sizeof(out), probs, &got), UNLZMA_E_HEADER);
	CHECK_EQ(got, 0);
	z[0] = 'X';
	CHECK_EQ(ibz_unpack(z, sizeof(z), out, sizeof(out), probs, &got), UNLZMA_E_MAGIC);
	z[0] = 'I';
	z[5] = 2;	/* unknown filter */
	CHECK_EQ(ibz_unpack(z, sizeof(z), out, sizeof(out), probs, &got), UNLZMA_E_PROPS);
	z[5] = 0;
	z[4] = 225;	/* props out of range */
	CHECK_EQ(ibz_unpack(z, sizeof(z), out, sizeof(out), probs, &got), UNLZMA_E_PROPS);
	z[4] = 4 + 9 * 1;	/* lc 4 + lp 1: more literal state than the decoder holds */
	CHECK_EQ(ibz_unpack(z, sizeof(z), out, sizeof(out), probs, &got), UNLZMA_E_PROPS);
	z[4] = 3;
	z[8] = 17;	/* output bigger than the room */
	CHECK_EQ(ibz_unpack(z, sizeof(z), out, sizeof(out), probs, &got), UNLZMA_E_SPACE);
	z[8] = 4;
	z[12] = 5;
	z[IBZ_HEADER_LEN] = 1;	/* range coder must start with a zero byte */
	CHECK_EQ(ibz_unpack(z, sizeof(z), out, sizeof(out), probs, &got), UNLZMA_E_START);
	CHECK(strcmp(unlzma_strerror(UNLZMA_E_CRC), "unknown error") != 0);
	CHECK_STR(unlzma_strerror(1234), "unknown error");
}

/*
 * Streams that ask for a match the output cannot hold: "aaaa..." packed by xz is one literal and
 * then matches at distance 1. Decoded into a buffer shorter than the stream says, the match must
 * stop at the end (E_LENGTH), not run on; decoded from offset 0 with the literal's bits replaced
 * so the first symbol is a match, it must be refused as reaching before the output.
 */
TEST(matches_outside_the_output_are_refused)
{
	uint8_t body[4000], out[4000];
	size_t zlen;
	uint8_t *z;

	memset(body, 'a', sizeof(body));
	z = xz_raw(body, sizeof(body), 0, 3, 0, 0, &zlen);
	if (!z)
		return;
	CHECK_EQ(unlzma(z, zlen, out, sizeof(body), 3, probs), UNLZMA_OK);
	CHECK_MEM(out, body, sizeof(body));
	/* the long match ends past a 100-byte buffer (malloc'd: ASan watches its end) */
	{
		uint8_t *small = malloc(100);
		int rc = unlzma(z, zlen, small, 100, 3, probs);
		CHECK(rc == UNLZMA_E_LENGTH || rc == UNLZMA_OK);
		if (rc == UNLZMA_OK)
			CHECK_MEM(small, body, 100);
		free(small);
	}
	/* a code value at the top of the range makes the very first decision "match" */
	{
		uint8_t bad[16] = { 0, 0xff, 0xff, 0xff, 0xf0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				    0xff, 0xff, 0xff, 0xff };
		int rc = unlzma(bad, sizeof(bad), out, sizeof(out), 3, probs);
		CHECK(rc == UNLZMA_E_DISTANCE || rc == UNLZMA_E_EARLY_END);
	}
	free(z);
}

/* check-zimage: the image's packed body (util/zimage/pack) against the body it was made from. */
TEST(image_body_round_trip)
{
	const char *zf = getenv("IBZ_FILE"), *bf = getenv("IBZ_BODY");
	static uint8_t z[1 << 20], body[1 << 21], out[1 << 21];
	size_t zlen, blen, got;
	FILE *f;

	if (!zf || !bf) {
		printf("  (IBZ_FILE/IBZ_BODY not set: the image's body is checked by check-zimage)\n");
		return;
	}
	f = fopen(zf, "rb");
	CHECK(f != NULL);
	if (!f)
		return;
	zlen = fread(z, 1, sizeof(z), f);
	fclose(f);
	f = fopen(bf, "rb");
	CHECK(f != NULL);
	if (!f)
		return;
	blen = fread(body, 1, sizeof(body), f);
	fclose(f);
	CHECK_EQ(ibz_unpack(z, zlen, out, sizeof(out), probs, &got), UNLZMA_OK);
	CHECK_EQ(got, blen);
	CHECK_MEM(out, body, blen);
	printf("  %s: %zu -> %zu bytes, identical to %s\n", zf, zlen, got, bf);
}

/* SPDX-License-Identifier: MIT */
/*
 * The compressed image's coder (src/arch/x86_64/zcm.c): round trips of empty, one-byte, all-zero,
 * random, code-like and text inputs through the IBZ2 container, the x86 transform's inverse,
 * every truncation and a sample of single-byte changes of a stream refused (an error or a CRC
 * mismatch, never a read or write outside the buffers: the buffers are malloc'd at their exact
 * size, so ASan fails the program on any stray access), the header's checks, and a model primed
 * with other bytes first (as the stub primes it with its own image). With IBZ_FILE, IBZ_BODY and
 * IBZ_PRIME set (check-zimage), the image's own packed body must unpack to the body byte for
 * byte, and the body must pack again to the same bytes.
 */
#include "test.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include "zcm.h"

static uint8_t *arena;

static void need_arena(void)
{
	if (!arena)
		arena = malloc(ZCM_ARENA_BYTES);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* An IBZ2 container of body (malloc'd, exactly its length), as util/zimage/zpack writes it. */
static uint8_t *pack(const uint8_t *body, size_t n, int x86, const uint8_t *prime,
		     size_t prime_len, size_t *len)
{
	size_t cap = n + n / 2 + 64, zlen;
	uint8_t *work = malloc(n + 1), *z = malloc(IBZ_HEADER_LEN + cap), *c;

	need_arena();
	memcpy(work, body, n);
	if (x86)
		zcm_x86_encode(work, n);
	zlen = zcm_encode(work, n, z + IBZ_HEADER_LEN, cap, arena, prime, prime_len);
	CHECK(zlen >= 4);
	ibz_put_header(z, (uint32_t)n, (uint32_t)zlen, zcm_crc32(body, n), x86,
		       (uint32_t)prime_len);
	*len = IBZ_HEADER_LEN + zlen;
	c = malloc(*len);
	memcpy(c, z, *len);
	free(z);
	free(work);
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

static void fill(uint8_t *b, size_t n, unsigned kind)
{
	if (kind == 0)
		fill_codeish(b, n);
	else if (kind == 1)
		fill_text(b, n);
	else if (kind == 2)
		for (size_t i = 0; i < n; i++)
			b[i] = (uint8_t)test_rand();
	else
		memset(b, kind == 3 ? 0 : 0xe8, n);
}

TEST(round_trips)
{
	static const size_t sizes[] = { 0, 1, 4, 5, 6, 300, 20000 };

	test_srand(1);
	for (unsigned kind = 0; kind < 5; kind++) {
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			for (int x86 = 0; x86 < 2; x86++) {
				size_t n = sizes[s], clen, got = 99;
				uint8_t *body = malloc(n + 1), *out = malloc(n ? n : 1), *c;

				fill(body, n, kind);
				c = pack(body, n, x86, NULL, 0, &clen);
				int rc = ibz_unpack(c, clen, out, n, arena, NULL, 0, &got);
				CHECK_EQ(rc, ZCM_OK);
				CHECK_EQ(got, n);
				if (rc == ZCM_OK && n)
					CHECK_MEM(out, body, n);
				/* one byte less room than the body needs: refused before decoding */
				if (n)
					CHECK_EQ(ibz_unpack(c, clen, out, n - 1, arena, NULL, 0, &got),
						 ZCM_E_SPACE);
				free(body);
				free(out);
				free(c);
			}
		}
	}
}

TEST(random_data_grows_little)
{
	size_t n = 20000, clen;
	uint8_t *body = malloc(n), *c;

	test_srand(5);
	fill(body, n, 2);
	c = pack(body, n, 0, NULL, 0, &clen);
	CHECK(clen < n + n / 50 + IBZ_HEADER_LEN + 8);
	printf("  20000 random bytes -> %zu\n", clen);
	free(body);
	free(c);
}

TEST(x86_transform_inverts)
{
	size_t n = 50000;
	uint8_t *body = malloc(n), *a = malloc(n);

	test_srand(7);
	for (unsigned kind = 0; kind < 5; kind++) {
		fill(body, n, kind);
		/* runs of E8 with near and far "targets": overlapping candidates */
		for (size_t i = 0; kind == 2 && i + 8 < n; i += 97) {
			body[i] = 0xe8;
			body[i + 2] = 0xe9;
			body[i + 6] = (i & 1) ? 0xff : 0x00;
		}
		memcpy(a, body, n);
		zcm_x86_encode(a, n);
		if (kind == 0)
			CHECK(memcmp(a, body, n) != 0);	/* the transform did change something... */
		zcm_x86_decode(a, n);
		CHECK_MEM(a, body, n);		/* ...and its inverse restores it */
	}
	/* every length below 5 is left alone */
	memset(a, 0xe8, 4);
	zcm_x86_encode(a, 4);
	CHECK_EQ(a[3], 0xe8);
	free(body);
	free(a);
}

TEST(crc32_is_zlibs)
{
	CHECK_EQ(zcm_crc32((const uint8_t *)"123456789", 9), 0xcbf43926u);
	CHECK_EQ(zcm_crc32(NULL, 0), 0);
}

/* Every prefix of a container refused; a sample of single-byte changes of the stream refused
 * (a decoding error, or the CRC), never a read or write outside the exact-size buffers. */
TEST(truncations_and_changes_are_refused)
{
	size_t n = 3000, clen, got;
	uint8_t *body = malloc(n), *c;
	unsigned changes = 0, refused = 0, by_crc = 0;

	test_srand(3);
	fill_codeish(body, n / 2);
	fill_text(body + n / 2, n - n / 2);
	c = pack(body, n, 1, NULL, 0, &clen);
	for (size_t cut = 0; cut < clen; cut += cut < IBZ_HEADER_LEN + 8 ? 1 : 7) {
		uint8_t *t = malloc(cut ? cut : 1), *out = malloc(n);

		memcpy(t, c, cut);
		int rc = ibz_unpack(t, cut, out, n, arena, NULL, 0, &got);
		if (rc == ZCM_OK)
			test_fail(__FILE__, __LINE__, "a stream cut at %zu of %zu was accepted", cut,
				  clen);
		CHECK_EQ(got, 0);
		free(t);
		free(out);
	}
	/* the stream cut inside, its header saying so: the decoder runs out of input */
	if (clen > IBZ_HEADER_LEN + 8) {
		size_t cut = clen - 3;
		uint8_t *t = malloc(cut), *out = malloc(n);

		memcpy(t, c, cut);
		put32(t + 12, (uint32_t)(cut - IBZ_HEADER_LEN));
		CHECK_EQ(ibz_unpack(t, cut, out, n, arena, NULL, 0, &got), ZCM_E_TRUNCATED);
		free(t);
		free(out);
	}
	/* the header claiming more input than there is, or less */
	{
		uint8_t *t = malloc(clen), *out = malloc(n);

		memcpy(t, c, clen);
		t[12]++;
		CHECK_EQ(ibz_unpack(t, clen, out, n, arena, NULL, 0, &got), ZCM_E_HEADER);
		t[12] -= 2;
		CHECK_EQ(ibz_unpack(t, clen, out, n, arena, NULL, 0, &got), ZCM_E_HEADER);
		free(t);
		free(out);
	}
	for (size_t at = IBZ_HEADER_LEN; at < clen; at += 5) {
		for (unsigned v = 0; v < 3; v++) {
			uint8_t *t = malloc(clen), *out = malloc(n);
			static const uint8_t x[3] = { 0x01, 0x80, 0xff };

			memcpy(t, c, clen);
			t[at] ^= x[v];
			int rc = ibz_unpack(t, clen, out, n, arena, NULL, 0, &got);
			changes++;
			if (rc != ZCM_OK) {
				refused++;
				by_crc += rc == ZCM_E_CRC;
				CHECK_EQ(got, 0);
			} else {
				test_fail(__FILE__, __LINE__, "byte %zu ^ %#x was accepted", at,
					  x[v]);
			}
			free(t);
			free(out);
		}
	}
	CHECK_EQ(refused, changes);
	printf("  %u changed streams: %u refused (%u by the CRC)\n", changes, refused, by_crc);
	free(body);
	free(c);
}

TEST(header_checks)
{
	uint8_t z[64] = "IBZ2", out[16];
	size_t got = 99;

	need_arena();
	z[4] = ZCM_VERSION;
	put32(z + 12, sizeof(z) - IBZ_HEADER_LEN);
	CHECK_EQ(ibz_unpack(z, IBZ_HEADER_LEN - 1, out, sizeof(out), arena, NULL, 0, &got), ZCM_E_HEADER);
	CHECK_EQ(got, 0);
	z[0] = 'X';
	CHECK_EQ(ibz_unpack(z, sizeof(z), out, sizeof(out), arena, NULL, 0, &got), ZCM_E_MAGIC);
	z[0] = 'I';
	z[5] = 2;	/* unknown filter */
	CHECK_EQ(ibz_unpack(z, sizeof(z), out, sizeof(out), arena, NULL, 0, &got), ZCM_E_PROPS);
	z[5] = 0;
	z[7] = 1;	/* primed with 256 bytes: the decoder holds 255, or none */
	CHECK_EQ(ibz_unpack(z, sizeof(z), out, sizeof(out), arena, z, 255, &got), ZCM_E_PRIME);
	CHECK_EQ(ibz_unpack(z, sizeof(z), out, sizeof(out), arena, NULL, 0, &got), ZCM_E_PRIME);
	CHECK_EQ(got, 0);
	z[7] = 0;	/* primed with none: the decoder holds 4 */
	CHECK_EQ(ibz_unpack(z, sizeof(z), out, sizeof(out), arena, out, 4, &got), ZCM_E_PRIME);
	z[4] = ZCM_VERSION + 1;	/* another model */
	CHECK_EQ(ibz_unpack(z, sizeof(z), out, sizeof(out), arena, NULL, 0, &got), ZCM_E_PROPS);
	z[4] = ZCM_VERSION;
	z[8] = 17;	/* output bigger than the room */
	CHECK_EQ(ibz_unpack(z, sizeof(z), out, sizeof(out), arena, NULL, 0, &got), ZCM_E_SPACE);
	/* a stream too short to start the coder */
	z[8] = 4;
	put32(z + 12, 3);
	CHECK_EQ(ibz_unpack(z, IBZ_HEADER_LEN + 3, out, sizeof(out), arena, NULL, 0, &got),
		 ZCM_E_TRUNCATED);
	CHECK(strcmp(zcm_strerror(ZCM_E_CRC), "error") != 0);
	CHECK_STR(zcm_strerror(1234), "error");
}

/* A model primed with code-like bytes codes other code-like bytes smaller, and only a decoder
 * primed with the same bytes gets them back. */
TEST(primed_round_trip)
{
	size_t n = 20000, pn = 6000, clen, plain_len, got = 99;
	uint8_t *body = malloc(n), *prime = malloc(pn), *other = malloc(pn), *out = malloc(n), *c;

	test_srand(7);
	fill_codeish(prime, pn);
	fill_codeish(body, n);
	memcpy(other, prime, pn);
	other[pn / 2] ^= 0x40;
	free(pack(body, n, 1, NULL, 0, &plain_len));
	c = pack(body, n, 1, prime, pn, &clen);
	printf("  %zu code-like bytes: %zu unprimed, %zu primed with %zu others\n", n, plain_len,
	       clen, pn);
	CHECK(clen < plain_len);
	CHECK_EQ(c[6] | c[7] << 8, pn);
	CHECK_EQ(ibz_unpack(c, clen, out, n, arena, prime, pn, &got), ZCM_OK);
	CHECK_EQ(got, n);
	CHECK_MEM(out, body, n);
	/* the same length, one byte differs: the stream decodes to something else, refused */
	CHECK(ibz_unpack(c, clen, out, n, arena, other, pn, &got) != ZCM_OK);
	CHECK_EQ(got, 0);
	CHECK_EQ(ibz_unpack(c, clen, out, n, arena, prime, pn - 1, &got), ZCM_E_PRIME);
	free(body);
	free(prime);
	free(other);
	free(out);
	free(c);
}

/* Reads the file at path into buf[0, cap); a file that cannot be opened fails the test. */
static bool read_whole(const char *path, uint8_t *buf, size_t cap, size_t *len)
{
	FILE *f = fopen(path, "rb");

	CHECK(f != NULL);
	if (!f)
		return false;
	*len = fread(buf, 1, cap, f);
	fclose(f);
	return true;
}

/* check-zimage: the image's packed body (build/zimage/zpack) against the body it was made from. */
TEST(image_body_round_trip)
{
	const char *zf = getenv("IBZ_FILE"), *bf = getenv("IBZ_BODY"), *pf = getenv("IBZ_PRIME");
	static uint8_t z[1 << 20], body[1 << 21], out[1 << 21], prime[ZCM_PRIME_MAX];
	size_t zlen, blen, got, clen, plen;
	uint8_t *c;

	if (!zf || !bf || !pf) {
		printf("  (IBZ_FILE/IBZ_BODY/IBZ_PRIME not set: the image's body is checked by "
		       "check-zimage)\n");
		return;
	}
	need_arena();
	if (!read_whole(zf, z, sizeof(z), &zlen) || !read_whole(bf, body, sizeof(body), &blen) ||
	    !read_whole(pf, prime, sizeof(prime), &plen))
		return;
	CHECK_EQ(ibz_unpack(z, zlen, out, sizeof(out), arena, prime, plen, &got), ZCM_OK);
	CHECK_EQ(got, blen);
	CHECK_MEM(out, body, blen);
	/* this build's encoder writes the very same container */
	c = pack(body, blen, 1, prime, plen, &clen);
	CHECK_EQ(clen, zlen);
	if (clen == zlen)
		CHECK_MEM(c, z, zlen);
	free(c);
	printf("  %s: %zu -> %zu bytes (primed with %s, %zu bytes), identical to %s\n", zf, zlen,
	       got, pf, plen, bf);
}

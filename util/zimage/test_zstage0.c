/* SPDX-License-Identifier: MIT */
/*
 * Stage 0's coder (src/arch/x86_64/zstage0.h, the model zstage0.S computes): the tables the
 * decoder builds are in range and monotone, round trips of one-byte, all-zero, random, code-like
 * and text inputs, a sample of truncations and of single-byte changes of a stream refused (the
 * output's hash differs), and the header's checks. With ZS0_STUB set (check-zimage), the image's
 * own stub (build/zimage/zstub.bin) and its packed stream (ZS0_FILE) must decode to each other.
 */
#include "test.h"
#include <stdio.h>
#include <stdlib.h>
#include "zstage0.h"

static struct zs0 *model;
static const uint8_t masks[] = { 0x01, 0x02, 0x00, 0x04, 0x03, 0x09, 0x05, 0x12, 0x11, 0x06 };

static void need_model(void)
{
	if (!model)
		model = malloc(sizeof(*model));
}

/* A stream of in[0, n) (malloc'd, exactly its length). */
static uint8_t *pack(const uint8_t *in, uint32_t n, uint32_t *len)
{
	uint32_t cap = n + n / 2 + 64;
	uint8_t *z = malloc(cap), *c;

	need_model();
	*len = zs0_encode(model, in, n, masks, sizeof(masks), z, cap);
	CHECK(*len >= ZS0_HDR + sizeof(masks));
	c = malloc(*len ? *len : 1);
	memcpy(c, z, *len);
	free(z);
	return c;
}

static int unpack(const uint8_t *z, uint32_t zlen, const uint8_t *want, uint32_t n)
{
	uint8_t *out = malloc(n);
	int rc;

	need_model();
	rc = zs0_decode(model, z, zlen, out, n);
	if (!rc && memcmp(out, want, n))
		rc = -2;
	free(out);
	return rc;
}

static void round_trip(const uint8_t *in, uint32_t n)
{
	uint32_t zlen;
	uint8_t *z = pack(in, n, &zlen);

	CHECK_EQ(unpack(z, zlen, in, n), 0);
	free(z);
}

TEST(tables_in_range_and_monotone)
{
	need_model();
	zs0_init(model, 1, masks);
	for (int i = 0; i < 4096; i++) {
		CHECK(model->sq[i] >= 1 && model->sq[i] <= 4095);
		CHECK(model->st[i] >= -2047 && model->st[i] <= 2047);
		if (i) {
			CHECK(model->sq[i] >= model->sq[i - 1]);
			CHECK(model->st[i] >= model->st[i - 1]);
		}
	}
	CHECK(model->sq[2048] > 1900 && model->sq[2048] < 2200);	/* about 1/2 at 0 */
}

TEST(round_trips)
{
	static uint8_t b[20000];
	static const char text[] = "ibboot: cannot unpack the compressed image: the stream ends early";

	b[0] = 0x5a;
	round_trip(b, 1);
	memset(b, 0, sizeof(b));
	round_trip(b, sizeof(b));
	for (uint32_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)test_rand();
	round_trip(b, sizeof(b));
	for (uint32_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)text[i % (sizeof(text) - 1)];
	round_trip(b, sizeof(b));
	for (uint32_t i = 0; i < sizeof(b); i++) {
		static const uint8_t ops[] = { 0x8b, 0x45, 0xf8, 0x89, 0xc7, 0x31, 0xc0, 0xc3, 0x55, 0xe8 };
		uint64_t r = test_rand();

		b[i] = r % 5 ? ops[r % sizeof(ops)] : (uint8_t)(r >> 8);
	}
	round_trip(b, sizeof(b));
}

TEST(random_data_grows_little)
{
	static uint8_t b[8192];
	uint32_t zlen;

	for (uint32_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)test_rand();
	free(pack(b, sizeof(b), &zlen));
	CHECK(zlen < sizeof(b) + sizeof(b) / 50 + 64);
}

TEST(truncations_and_changes_are_refused)
{
	static uint8_t b[3000];
	uint32_t zlen;
	uint8_t *z;

	for (uint32_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)(i * 7 + (i >> 5));
	z = pack(b, sizeof(b), &zlen);
	for (uint32_t cut = 0; cut + 1 < zlen; cut += 1 + cut / 16) {
		uint8_t *t = malloc(cut ? cut : 1);

		memcpy(t, z, cut);
		if (unpack(t, cut, b, sizeof(b)) == 0)
			CHECK_EQ(cut, zlen);	/* names the length that was accepted */
		free(t);
	}
	for (uint32_t i = 0; i < zlen; i += 1 + i / 8) {
		z[i] ^= 0x5a;
		if (unpack(z, zlen, b, sizeof(b)) == 0)
			CHECK_EQ(i, zlen);
		z[i] ^= 0x5a;
	}
	CHECK_EQ(unpack(z, zlen, b, sizeof(b)), 0);
	free(z);
}

TEST(header_checks)
{
	static uint8_t b[100];
	uint32_t zlen;
	uint8_t *z = pack(b, sizeof(b), &zlen), *out = malloc(sizeof(b));

	need_model();
	z[4] = 0;
	CHECK(zs0_decode(model, z, zlen, out, sizeof(b)) != 0);
	z[4] = ZS0_MAXM + 1;
	CHECK(zs0_decode(model, z, zlen, out, sizeof(b)) != 0);
	CHECK(zs0_decode(model, z, 4, out, sizeof(b)) != 0);
	CHECK_EQ(zs0_encode(model, b, sizeof(b), masks, 0, out, sizeof(b)), 0);
	CHECK_EQ(zs0_encode(model, b, sizeof(b), masks, ZS0_MAXM + 1, out, sizeof(b)), 0);
	CHECK_EQ(zs0_encode(model, b, sizeof(b), masks, sizeof(masks), out, 8), 0);	/* no room */
	free(out);
	free(z);
}

static uint8_t *slurp(const char *path, uint32_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = malloc(1 << 20);

	*len = f ? (uint32_t)fread(b, 1, 1 << 20, f) : 0;
	if (f)
		fclose(f);
	return b;
}

TEST(image_stub_round_trip)
{
	const char *stub = getenv("ZS0_STUB"), *file = getenv("ZS0_FILE");
	uint32_t n, zlen, zlen2;
	uint8_t *b, *z, *z2;

	if (!stub || !file) {
		printf("  (ZS0_STUB/ZS0_FILE not set: the image's stub not checked)\n");
		return;
	}
	b = slurp(stub, &n);
	z = slurp(file, &zlen);
	CHECK(n > 0 && zlen > ZS0_HDR);
	CHECK_EQ(unpack(z, zlen, b, n), 0);
	/* packed again with the stream's own masks: the same bytes */
	z2 = malloc(zlen + 64);
	zlen2 = z[4] <= ZS0_MAXM ? zs0_encode(model, b, n, z + ZS0_HDR, z[4], z2, zlen + 64) : 0;
	CHECK_EQ(zlen2, zlen);
	CHECK(zlen2 == zlen && !memcmp(z, z2, zlen));
	free(b);
	free(z);
	free(z2);
}

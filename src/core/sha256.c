/* SPDX-License-Identifier: MIT */
/* SHA-256 per FIPS 180-4: constants §4.2.2, initial hash §5.3.3, padding §5.1.1, rounds §6.2.2. */
#include <ibboot/sha256.h>
#include <ibboot/byteorder.h>
#include <ibboot/errno.h>
#include <ibboot/hex.h>
#include <ibboot/string.h>

/*
 * §4.2.2 K: the first 32 bits of the fractional parts of the cube roots of the first 64 primes;
 * §5.3.3 the initial hash: the same of the square roots of the first 8. Computed once, not
 * stored: the 288 bytes of table are as good as random to the image's compressor.
 */
static uint32_t K[64], iv[8];

/* The low 32 bits of floor(root_k(p * 2^(32k))) = floor(root_k(p) * 2^32): the fraction's first
 * 32 bits (below 2^36 for the primes used here; the cube of 2^36 fits 128 bits). */
static uint32_t root_fraction(unsigned p, unsigned k)
{
	__extension__ typedef unsigned __int128 u128;
	u128 n = (u128)p << (32 * k);
	uint64_t r = 0;

	for (int bit = 35; bit >= 0; bit--) {
		uint64_t t = r | 1ull << bit;
		u128 v = (u128)t * t;

		if (k == 3)
			v *= t;
		if (v <= n)
			r = t;
	}
	return (uint32_t)r;
}

static void sha256_constants(void)
{
	unsigned n = 0;

	for (unsigned p = 2; n < 64; p++) {
		unsigned d = 2;

		while (p % d)
			d++;
		if (d != p)
			continue;	/* not prime */
		if (n < 8)
			iv[n] = root_fraction(p, 2);
		K[n++] = root_fraction(p, 3);
	}
}

static inline uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void sha256_block(uint32_t h[8], const uint8_t *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, hh;

	for (int t = 0; t < 16; t++)
		w[t] = get_be32(p + 4 * t);
	for (int t = 16; t < 64; t++) {
		uint32_t s0 = ror(w[t - 15], 7) ^ ror(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t s1 = ror(w[t - 2], 17) ^ ror(w[t - 2], 19) ^ (w[t - 2] >> 10);

		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
	for (int t = 0; t < 64; t++) {
		uint32_t t1 = hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) +
			      K[t] + w[t];
		uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));

		hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

void sha256_init(struct sha256_ctx *c)
{
	if (!K[0])
		sha256_constants();
	memcpy(c->h, iv, sizeof(iv));
	c->bytes = 0;
	c->fill = 0;
}

void sha256_update(struct sha256_ctx *c, const void *data, size_t len)
{
	const uint8_t *p = data;

	c->bytes += len;
	if (c->fill) {
		size_t n = MIN(len, SHA256_BLOCK_LEN - c->fill);

		memcpy(c->block + c->fill, p, n);
		c->fill += n, p += n, len -= n;
		if (c->fill < SHA256_BLOCK_LEN)
			return;
		sha256_block(c->h, c->block);
		c->fill = 0;
	}
	for (; len >= SHA256_BLOCK_LEN; p += SHA256_BLOCK_LEN, len -= SHA256_BLOCK_LEN)
		sha256_block(c->h, p);
	if (len)
		memcpy(c->block, p, len);
	c->fill = len;
}

void sha256_final(struct sha256_ctx *c, uint8_t digest[SHA256_DIGEST_LEN])
{
	uint64_t bits = c->bytes * 8;

	/* §5.1.1: a 1 bit, zeros to 56 mod 64 bytes, then the length in bits, big-endian. */
	c->block[c->fill++] = 0x80;
	if (c->fill > 56) {
		memset(c->block + c->fill, 0, SHA256_BLOCK_LEN - c->fill);
		sha256_block(c->h, c->block);
		c->fill = 0;
	}
	memset(c->block + c->fill, 0, 56 - c->fill);
	put_be64(c->block + 56, bits);
	sha256_block(c->h, c->block);
	for (int i = 0; i < 8; i++)
		put_be32(digest + 4 * i, c->h[i]);
}

void sha256(const void *data, size_t len, uint8_t digest[SHA256_DIGEST_LEN])
{
	struct sha256_ctx c;

	sha256_init(&c);
	sha256_update(&c, data, len);
	sha256_final(&c, digest);
}

void sha256_to_hex(const uint8_t digest[SHA256_DIGEST_LEN], char hex[2 * SHA256_DIGEST_LEN + 1])
{
	hex_encode(digest, SHA256_DIGEST_LEN, 0, hex);
}

int sha256_from_hex(const char *hex, uint8_t digest[SHA256_DIGEST_LEN])
{
	if (strlen(hex) != 2 * SHA256_DIGEST_LEN)
		return -EINVAL;
	return hex_decode(hex, digest, SHA256_DIGEST_LEN, 0) == SHA256_DIGEST_LEN ? 0 : -EINVAL;
}

/* SPDX-License-Identifier: MIT */
/* SHA-256 per FIPS 180-4: constants §4.2.2, initial hash §5.3.3, padding §5.1.1, rounds §6.2.2. */
#include <ibboot/sha256.h>
#include <ibboot/byteorder.h>
#include <ibboot/errno.h>
#include <ibboot/hex.h>
#include <ibboot/string.h>

/* §4.2.2: first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

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
	static const uint32_t iv[8] = {   /* §5.3.3 */
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

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

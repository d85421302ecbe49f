/* SPDX-License-Identifier: MIT */
/*
 * The stage-0 coder's model in C: the host packer (zs0pack.c) encodes with it and decodes its own
 * output again, and it states exactly what the 32-bit decoder src/arch/x86_64/zstage0.S computes
 * (same tables, same integer arithmetic, same wrap-around), so a change here is a change there.
 *
 * Stream: u32 hash of the output (zs0_hash), u8 model count n (1..ZS0_MAXM), n context masks,
 * then the arithmetic-coded bits. Each model's context is the partial byte and the previous bytes
 * its mask selects (bit j: the byte j+1 back; 0 before the output's start); it indexes a table of
 * 2^ZS0_TBITS adaptive probabilities (16-bit p << 16 | use count, rate 1/(n+1.5) up to
 * ZS0_LIM uses). One logistic mixer (weights 16.16, wrapping 32-bit sums) combines the models'
 * stretched probabilities; the coder is the carryless 32-bit binary arithmetic coder of the PAQ
 * family, bytes beyond the stream read as zero. Changing anything here changes the stream format:
 * zstage0.S must follow.
 */
#ifndef IBBOOT_ZSTAGE0_H
#define IBBOOT_ZSTAGE0_H

#define ZS0_MAXM 12
#define ZS0_TBITS 16
#define ZS0_LIM 4
#define ZS0_LRS 13
#define ZS0_W0 16384
#define ZS0_K1 0x2c1b3c6d	/* byte-context hash */
#define ZS0_K2 0x9e3779b1	/* with the partial byte, to the table index */
#define ZS0_SQ0 0x16800		/* squash(-2048) in 1/2^28 */
#define ZS0_HDR 5		/* hash, model count; the masks follow */
/* The decoder's RAM (zstage0.S): squash and stretch tables (16 KiB each), then its state and
 * stack up to 64 KiB, then each model's table of 2^ZS0_TBITS words. */
#define ZS0_RAM_T 0x10000
#define ZS0_RAM_BYTES (ZS0_RAM_T + (ZS0_MAXM << (ZS0_TBITS + 2)))

#ifndef __ASSEMBLER__
#include <stdint.h>
#include <string.h>

struct zs0 {
	int32_t sq[4096];	/* squash: stretched value + 2048 -> 12-bit probability */
	int32_t st[4096];	/* stretch: its inverse */
	int32_t w[ZS0_MAXM];
	uint32_t h[ZS0_MAXM], ix[ZS0_MAXM];
	int32_t s[ZS0_MAXM];
	uint32_t n;
	uint8_t mask[ZS0_MAXM];
	uint32_t t[ZS0_MAXM][1u << ZS0_TBITS];
};

static inline uint32_t zs0_hash(const uint8_t *p, uint32_t len)
{
	uint32_t h = 0;

	for (uint32_t i = 0; i < len; i++)
		h = (h + p[i]) * ZS0_K1;
	return h;
}

/* The tables as the decoder builds them: squash at x = -2048..2047 by integer Euler steps of
 * s' = s(1 - s)/256 (s in 1/2^28) from ZS0_SQ0 (about its value at -2048); s stays below 1, so
 * every entry is 1..4095. Stretch is squash's least preimage. */
static inline void zs0_init(struct zs0 *m, uint32_t n, const uint8_t *mask)
{
	uint32_t s = ZS0_SQ0;

	for (int x = 0; x < 4096; x++) {
		m->sq[x] = (int32_t)(s >> 16);
		s += (uint32_t)(((uint64_t)(s >> 4) * ((1u << 24) - (s >> 4))) >> 28);
	}
	int x = -2047;

	for (int j = 0; j < 4096; j++) {
		while (x < 2047 && m->sq[x + 2048] < j)
			x++;
		m->st[j] = x;
	}
	m->n = n;
	for (uint32_t k = 0; k < n; k++) {
		m->mask[k] = mask[k];
		m->w[k] = ZS0_W0;
		for (uint32_t i = 0; i < (1u << ZS0_TBITS); i++)
			m->t[k][i] = 0x80000000u;
	}
}

/* At a byte boundary: each model's context from the bytes before out[i]. */
static inline void zs0_byte(struct zs0 *m, const uint8_t *out, uint32_t i)
{
	for (uint32_t k = 0; k < m->n; k++) {
		uint32_t h = m->mask[k];

		for (uint32_t j = 0; j < 8; j++)
			if (m->mask[k] >> j & 1)
				h = (h + (i > j ? out[i - 1 - j] : 0)) * ZS0_K1;
		m->h[k] = h;
	}
}

/* The 12-bit probability (1..4095) that the next bit is 1, c0 the partial byte with a leading 1. */
static inline uint32_t zs0_p(struct zs0 *m, uint32_t c0)
{
	uint32_t dot = 0;

	for (uint32_t k = 0; k < m->n; k++) {
		m->ix[k] = (m->h[k] + c0) * ZS0_K2 >> (32 - ZS0_TBITS);
		m->s[k] = m->st[m->t[k][m->ix[k]] >> 20];
		dot += (uint32_t)m->w[k] * (uint32_t)m->s[k];
	}
	int32_t d = (int32_t)dot >> 16;

	if (d > 2047)
		d = 2047;
	if (d < -2047)
		d = -2047;
	return (uint32_t)m->sq[d + 2048];
}

static inline void zs0_update(struct zs0 *m, uint32_t p, uint32_t y)
{
	int32_t err = (int32_t)(y << 12) - (int32_t)p;

	for (uint32_t k = 0; k < m->n; k++) {
		m->w[k] = (int32_t)((uint32_t)m->w[k] +
				    (uint32_t)((int32_t)((uint32_t)m->s[k] * (uint32_t)err) >> ZS0_LRS));
		uint32_t t = m->t[k][m->ix[k]], c = t & 255;
		int32_t q = (int32_t)(t >> 16);

		q += ((int32_t)(y ? 65535 : 0) - q) * 2 / (int32_t)(2 * c + 3);
		if (c < ZS0_LIM)
			c++;
		m->t[k][m->ix[k]] = (uint32_t)q << 16 | c;
	}
}

/* Decode out_len bytes of in[0, in_len) into out; 0 if the hash matches, else -1. Bounded: one
 * pass over the output; input bytes past the end read as 0. */
static inline int zs0_decode(struct zs0 *m, const uint8_t *in, uint32_t in_len, uint8_t *out,
			     uint32_t out_len)
{
	uint32_t pos, x1 = 0, x2 = 0xffffffffu, x = 0, n;

	if (in_len < ZS0_HDR || in[4] < 1 || in[4] > ZS0_MAXM || in_len < ZS0_HDR + (uint32_t)in[4])
		return -1;
	n = in[4];
	zs0_init(m, n, in + ZS0_HDR);
	pos = ZS0_HDR + n;
	for (int b = 0; b < 4; b++)
		x = x << 8 | (pos < in_len ? in[pos++] : 0);
	for (uint32_t i = 0; i < out_len; i++) {
		uint32_t c0 = 1;

		zs0_byte(m, out, i);
		while (c0 < 256) {
			uint32_t p = zs0_p(m, c0), xm = x1 + ((x2 - x1) >> 12) * p, y = x <= xm;

			if (y)
				x2 = xm;
			else
				x1 = xm + 1;
			zs0_update(m, p, y);
			c0 = c0 * 2 + y;
			while (((x1 ^ x2) & 0xff000000u) == 0) {
				x1 <<= 8;
				x2 = x2 << 8 | 255;
				x = x << 8 | (pos < in_len ? in[pos] : 0);
				pos++;
			}
		}
		out[i] = (uint8_t)c0;
	}
	uint32_t want = (uint32_t)in[0] | (uint32_t)in[1] << 8 | (uint32_t)in[2] << 16 |
		(uint32_t)in[3] << 24;

	return zs0_hash(out, out_len) == want ? 0 : -1;
}

/* Encode in[0, len) with the given masks into out[0, cap); returns the length, 0 if it does not fit. */
static inline uint32_t zs0_encode(struct zs0 *m, const uint8_t *in, uint32_t len, const uint8_t *mask,
				  uint32_t n, uint8_t *out, uint32_t cap)
{
	uint32_t x1 = 0, x2 = 0xffffffffu, o, h = zs0_hash(in, len);

	if (cap < ZS0_HDR + n || n < 1 || n > ZS0_MAXM)
		return 0;
	for (int b = 0; b < 4; b++)
		out[b] = (uint8_t)(h >> 8 * b);
	out[4] = (uint8_t)n;
	memcpy(out + ZS0_HDR, mask, n);
	o = ZS0_HDR + n;
	zs0_init(m, n, mask);
	for (uint32_t i = 0; i < len; i++) {
		uint32_t c0 = 1;

		zs0_byte(m, in, i);
		for (int b = 7; b >= 0; b--) {
			uint32_t y = in[i] >> b & 1, p = zs0_p(m, c0), xm = x1 + ((x2 - x1) >> 12) * p;

			if (y)
				x2 = xm;
			else
				x1 = xm + 1;
			zs0_update(m, p, y);
			c0 = c0 * 2 + y;
			while (((x1 ^ x2) & 0xff000000u) == 0) {
				if (o >= cap)
					return 0;
				out[o++] = (uint8_t)(x1 >> 24);
				x1 <<= 8;
				x2 = x2 << 8 | 255;
			}
		}
	}
	/* The shortest tail that, followed by zeros, lies in [x1, x2]: x1 rounded up to 2^24 (x1's
	 * top byte is below x2's), then the stream's trailing zeros dropped. */
	if (o >= cap)
		return 0;
	out[o++] = (uint8_t)((x1 + 0xffffffu) >> 24);
	while (o > ZS0_HDR + n && out[o - 1] == 0)
		o--;
	return o;
}

#endif /* __ASSEMBLER__ */
#endif

/* SPDX-License-Identifier: MIT */
/*
 * ZCM, a context-mixing coder (zcm.h): the model, the arithmetic coder in both directions, the
 * x86 call/jump transform, CRC-32 and the IBZ2 container. The host packer and the stub compile
 * this same file; the stub's link drops the encoder.
 *
 * Per bit: each model looks its context up (hashed with the bits of the current byte seen so
 * far) in a table of slots: an adaptive probability and a bit-history state, which the model maps
 * to a second probability; three logistic mixers, whose weight sets are chosen
 * by small contexts (the x86 role of the byte with the partial byte; the role with the match
 * length and bit position; the byte before with the top of the one before it), add their
 * predictions in the stretched (log-odds) domain and learn online from their errors; a final
 * mixer weighs the three by the x86 role; two SSE stages (secondary estimation: a probability
 * interpolated from a table indexed by a small context and the quantised input probability)
 * refine the result. The coder is the carryless binary arithmetic coder of the PAQ family: a
 * 32-bit interval [x1, x2] split in proportion to the 12-bit probability, the common top bytes
 * shifted out.
 */
#include "zcm.h"

#define NIN (ZCM_NHASH + 4)	/* hashed models, order 0, match (two), bias */
#define TN ZCM_TN
#define NSLOTS (65536 + (ZCM_NHASH - 1) * TN)	/* order 1's, then TN per hashed model (slot) */
#define WS 2048			/* slots per window: one byte context's bits share one (slot) */
#define MMASK ((1u << ZCM_MBITS) - 1)
#define SSE2_BITS 14
#define SSE1_CTX (m->sse1c & 8191)
#define MATCH_MIN 4		/* bytes hashed to find a match (x86 code repeats in short runs) */
#define MATCH_MAX_CHECK 48	/* bytes compared backwards to measure a new match */

#ifndef ZCM_LR
#define ZCM_LR 5		/* the mixers' learning rate, final */
#endif
#ifndef ZCM_LRS
#define ZCM_LRS 12
#endif
#ifndef ZCM_LIMIT_LO
#define ZCM_LIMIT_LO 6	/* adaptation limits of the counters (see counter_update) */
#endif
#ifndef ZCM_LIMIT_HI
#define ZCM_LIMIT_HI 15
#endif
#ifndef ZCM_LRA
#define ZCM_LRA 8		/* added to the mixers' rate over the first 4 KiB */
#endif
#ifndef ZCM_LRB
#define ZCM_LRB 3		/* ... and up to 32 KiB */
#endif
#ifndef ZCM_SMR
#define ZCM_SMR 7		/* the state maps' rate (a shift) */
#endif
#define NMIX 3			/* mixers, each with its weight set chosen by another context */
#define NSETS (8192 + 512 + 8192)
#define ERRMIN 600		/* a mixer whose error (x rate) is below this learns nothing: time */
#define FLRS 14			/* the final mixer's learning rate (a shift) */

/* What the next byte is in the x86 instruction walk (x86_walk): prefix or opcode (of one of the
 * four maps), ModRM, SIB, displacement, immediate. */
enum { R_OP, R_OP0F, R_OP38, R_OP3A, R_MODRM, R_SIB, R_DISP, R_IMM };

#define HOT static inline __attribute__((always_inline))

/* The x86 instruction walk's state (x86_walk). */
struct x86_state {
	uint32_t role, left, op, prev_op, pfx, modrm, ops;
};

/* A context's slot: its counter (counter_update), its state (state_next), the check of its
 * context (slot). */
struct zslot {
	uint16_t c;
	uint8_t st, chk;
};

struct zcm {
	struct zslot t[NSLOTS];			/* order 1's (indexed directly), the hashed models' */
	uint16_t sm[ZCM_NHASH][64];		/* each model's p by state (state_next) */
	uint16_t o0[256];
	uint16_t mm[64];			/* match model: length bucket and expected bit */
	uint32_t mt[1u << ZCM_MBITS];		/* position after a MATCH_MIN-byte context */
	int32_t w[NSETS][NIN];			/* mixer weights (16.16), see zcm_p */
	int32_t wf[8][NMIX];			/* the final mixer's, by x86 role */
	uint16_t sse1[8192][33];
	uint16_t sse2[1u << SSE2_BITS][33];
	int16_t stretch[4096];
	int16_t sq[4095];			/* squash at -2047..2047 (zcm_p clamps to it) */
	uint8_t nex[128];			/* state_next by state and bit */
	uint16_t rec[256];			/* 32768 * 2 / (2n + 3): counter learning rates */

	/* state */
	const uint8_t *buf;			/* the bytes coded so far */
	uint32_t pos, c0, c4, c8, bitn, word;
	uint32_t h[ZCM_NHASH], w0[ZCM_NHASH], idx[ZCM_NHASH];	/* byte context, window, slot */
	uint32_t mptr, mlen, mbit, mctx;
	struct x86_state iw;			/* the x86 instruction walk */
	uint32_t ins_start, ref;		/* this instruction's start, the last one's of its opcode */
	uint32_t last_of_op[1024];		/* where each opcode's last instruction started */
	int32_t x[NIN];
	uint32_t set[NMIX], sse1c, sse1i, sse2i, sse1w, sse2w;
	int32_t st[NMIX], pk[NMIX];		/* each mixer's output, stretched and as p */
	int32_t pmix, ps1, ps2;
};
_Static_assert(sizeof(struct zcm) <= ZCM_ARENA_BYTES, "ZCM_ARENA_BYTES too small");
_Static_assert(sizeof(struct zcm) % 4 == 0, "zcm_init clears 32-bit words");
_Static_assert(TN % WS == 0, "ZCM_TN must be a multiple of the window");

/* 4096 / (1 + e^(-x/256)) at x = -2048, -1920, ..., 2048 */
static const uint16_t squash_pts[33] = {
	1, 2, 4, 6, 10, 17, 27, 45, 74, 120, 194, 311, 488, 747, 1102, 1546, 2048, 2550, 2994,
	3349, 3608, 3785, 3902, 3976, 4022, 4051, 4069, 4079, 4086, 4090, 4092, 4094, 4095,
};

/* The logistic function on the stretched domain (x / 256 log-odds) to a 12-bit probability. */
HOT int32_t squash(int32_t x)
{
	if (x > 2047)
		x = 2047;
	if (x < -2047)
		x = -2047;
	int32_t i = (x + 2048) >> 7, w = x & 127;

	return (squash_pts[i] * (128 - w) + squash_pts[i + 1] * w + 64) >> 7;
}

/* x * w / 1024 with the product wrapping in 32 bits, identically on every compiler and target
 * (two's complement, as GCC and Clang define the conversion), where a signed overflow would be
 * undefined: a weight that grew past 2^20 only costs prediction. */
HOT int32_t mul_shift(int32_t x, int32_t w)
{
	return (int32_t)((uint32_t)x * (uint32_t)w) >> 10;
}

static uint32_t hash2(uint32_t a, uint32_t b)
{
	uint32_t h = a * 0x9e3779b1u ^ b * 0x85ebca77u;

	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	return h ^ h >> 13;
}

/* The first slot of each hashed model's window for its byte context (see slot). */
static void windows(struct zcm *m)
{
	for (uint32_t i = 1; i < ZCM_NHASH; i++)
		m->w0[i] = 65536 + (i - 1) * TN + (uint32_t)((uint64_t)(m->h[i] >> 8) * (TN / WS) >> 24) * WS;
}

/*
 * A context's state (its bit history, as in PAQ's indirect models): the last bit it saw (bit
 * 5), how many times in a row (bits 1-4, up to 15; a change of bit starts the run at 1, or at 2
 * if the new value came before), and whether it saw the other value (bit 0). Each model maps
 * the state to a probability (sm, adapting at 1/2^ZCM_SMR), which its input averages with its
 * counter's. j = state << 1 | bit.
 */
static uint32_t state_next(uint32_t j)
{
	uint32_t st = j >> 1, run = st >> 1 & 15;

	if ((j & 1) == st >> 5)
		return st + (run < 15 ? 2 : 0);
	return (j & 1) << 5 | ((st & 1) + 1) << 1 | (run != 0);
}

static void zcm_init(struct zcm *m, const uint8_t *buf)
{
	uint32_t *p = (uint32_t *)(void *)m;

	/* the slots' counters p = 1/2 with no uses (state 0, check 0x80), the state maps', o0's
	 * and the match model's likewise, then the rest (all 32-bit words) zeroed */
	for (; p < (uint32_t *)(void *)m->mt; p++)
		*p = 0x80008000u;
	for (; p < (uint32_t *)(m + 1); p++)
		*p = 0;
	for (uint32_t s = 0; s < NSETS; s++)
		for (uint32_t i = 0; i < NIN; i++)
			m->w[s][i] = (1 << 16) / 4;
	for (uint32_t s = 0; s < 8; s++)
		for (uint32_t i = 0; i < NMIX; i++)
			m->wf[s][i] = (1 << 16) / NMIX;
	for (uint32_t j = 0; j < 33; j++) {
		uint16_t v = (uint16_t)(squash((int32_t)(j - 16) * 128) * 16);

		for (uint32_t c = 0; c < 8192; c++)
			m->sse1[c][j] = v;
		for (uint32_t c = 0; c < (1u << SSE2_BITS); c++)
			m->sse2[c][j] = v;
	}
	/* stretch = squash's inverse, as a table over the 12-bit probabilities */
	{
		int32_t pi = 0;

		for (int32_t x = -2047; x <= 2047; x++) {
			int32_t v = squash(x);

			m->sq[x + 2047] = (int16_t)v;
			for (int32_t j = pi; j <= v; j++)
				m->stretch[j] = (int16_t)x;
			pi = v + 1;
		}
		for (int32_t j = pi; j < 4096; j++)
			m->stretch[j] = 2047;
	}
	for (uint32_t n = 0; n < 256; n++)
		m->rec[n] = (uint16_t)(131072u / (2 * n + 3));
	for (uint32_t j = 0; j < 128; j++)
		m->nex[j] = (uint8_t)state_next(j);
	windows(m);
	m->buf = buf;
	m->c0 = 1;
}

HOT int32_t counter_p(uint32_t t)
{
	return (int32_t)(t >> 4);
}

/* A counter: a 12-bit probability that the bit is 1 << 4 | n, the times it was seen (counted up
 * to limit, at most 15). The probability moves toward the bit by 1/(n + 1.5) of the gap; the
 * rate then stays at 1/(limit + 1.5). */
HOT uint16_t counter_update(const struct zcm *m, uint32_t t, uint32_t y, uint32_t limit)
{
	uint32_t n = t & 15;
	int32_t p = (int32_t)(t | 15) - 7, err = (int32_t)(y ? 65535u : 0u) - p;

	p += ((err >> 1) * (int32_t)m->rec[n]) >> 15;
	if (n < limit)
		n++;
	return (uint16_t)(((uint32_t)p & 0xfff0) | n);
}

/*
 * The slot of a hashed context for the partial byte (c0k, its hash): the byte context's hash h
 * picks a window of WS slots (w: its top 24 bits scaled to the model's windows once a byte by
 * windows(), so inside the table whatever the hash; the 8 bits of a byte touch 8 KiB of slots,
 * not 8 places across the table, which spares an emulator's TLB), both hashes mixed pick a pair
 * of neighbours in it (WS is even), the top byte is a check kept in each slot. A slot whose check differs belongs to another context; if neither
 * neighbour is the context's, the less used one starts afresh for it. Returns its index in t.
 */
HOT uint32_t slot(struct zslot *t, uint32_t w, uint32_t h, uint32_t c0k)
{
	uint32_t hh = (h ^ c0k) * 0x2c1b3c6du;
	uint32_t ix = w + (hh >> 8) % WS;
	uint32_t chk = hh >> 24;

	if (t[ix].chk == chk)
		return ix;
	if (t[ix ^ 1].chk == chk)
		return ix ^ 1;
	if ((t[ix ^ 1].c & 15) < (t[ix].c & 15))
		ix ^= 1;
	t[ix].c = 0x8000;
	t[ix].chk = (uint8_t)chk;
	t[ix].st = 0;
	return ix;
}

/* Model i's slot (idx[i]: an index into t, bounded). */
HOT struct zslot *slot_at(struct zcm *m, uint32_t i)
{
	uint32_t ix = m->idx[i];

	return &m->t[ix < NSLOTS ? ix : 0];
}

/* The 12-bit probability that the next bit is 1. */
static int32_t zcm_p(struct zcm *m)
{
	uint32_t c0 = m->c0, c0k = c0 * 0x6f4f2a35u;
	int32_t dotf = 0;

	for (uint32_t i = 0; i < ZCM_NHASH; i++) {
		const struct zslot *c;

		if (i == 0)
			m->idx[0] = (m->c4 & 0xff) << 8 | c0;
		else
			m->idx[i] = slot(m->t, m->w0[i], m->h[i], c0k);
		c = slot_at(m, i);
		m->x[i] = (m->stretch[counter_p(c->c)] + m->stretch[m->sm[i][c->st & 63] >> 4]) >> 1;
	}
	m->x[ZCM_NHASH] = m->stretch[counter_p(m->o0[c0 & 255])];
	/* the match model: the bit the byte after the longest recent match of the context holds */
	if (m->mlen) {
		uint32_t e = m->mptr < m->pos ? m->buf[m->mptr] | 256u : 0;	/* (always below) */

		if (e >> (8 - m->bitn) != c0) {
			m->mlen = 0;
		} else {
			uint32_t l = m->mlen > 15 ? 15 : m->mlen;

			m->mbit = e >> (7 - m->bitn) & 1;
			m->mctx = (l << 1 | m->mbit) & 63;
		}
	}
	if (m->mlen) {
		int32_t l = m->mlen > 32 ? 32 : (int32_t)m->mlen;	/* 1/4 log-odds per byte */

		m->x[ZCM_NHASH + 1] = m->stretch[counter_p(m->mm[m->mctx & 63])];
		m->x[ZCM_NHASH + 2] = m->mbit ? l * 64 : -l * 64;
	} else {
		m->x[ZCM_NHASH + 1] = 0;
		m->x[ZCM_NHASH + 2] = 0;
	}
	m->x[ZCM_NHASH + 3] = 256;
	/* Three mixers see the same inputs with weights chosen by: the x86 role, REX and REX.W
	 * and the partial byte; the role, match length and bit position; the byte before with the
	 * top three bits of the one before it, and whether an operand or an immediate byte comes. A
	 * final mixer (weights by role) combines their
	 * stretched outputs. */
	m->set[0] = (m->iw.pfx >> 2 << 11 | m->iw.role << 8 | c0) & 8191;
	{
		uint32_t lb = m->mlen == 0 ? 0 : m->mlen < 16 ? 1 + (m->mlen >> 2) : m->mlen < 32 ? 5 : 6;

		m->set[1] = 8192 + ((m->iw.role * 56 + (lb > 6 ? 6 : lb) * 8 + m->bitn) & 511);
	}
	m->set[2] = 8192 + 512 + ((m->c4 & 0xff) | (m->c4 >> 5 & 0x700) |
				  (m->iw.role >= R_MODRM) << 11 | (m->iw.role == R_IMM) << 12);
	for (uint32_t k = 0; k < NMIX; k++) {
		int32_t dot = 0;

		for (uint32_t i = 0; i < NIN; i++)
			dot += mul_shift(m->x[i], m->w[m->set[k] % NSETS][i]);
		dot >>= 6;
		if (dot > 2047)
			dot = 2047;
		if (dot < -2047)
			dot = -2047;
		m->st[k] = dot;
		m->pk[k] = m->sq[dot + 2047];
		dotf += mul_shift(dot, m->wf[m->iw.role & 7][k]) >> 6;
	}
	m->pmix = m->sq[(dotf > 2047 ? 2047 : dotf < -2047 ? -2047 : dotf) + 2047];
	/* SSE: by partial byte with the x86 role and the match model's state (none, or its bit),
	 * then by partial byte and the byte before (hashed); their average is coded */
	{
		int32_t s = m->stretch[m->pmix] + 2048, j = s >> 7;

		if (j > 31)
			j = 31;
		m->sse1w = (uint32_t)(s - (j << 7)) & 127;
		m->sse1c = m->iw.role << 8 | c0 | (m->mlen ? 2048 | m->mbit << 12 : 0);
		m->sse1i = (uint32_t)j;
		m->ps1 = (m->sse1[SSE1_CTX][j] * (int32_t)(128 - m->sse1w) +
			  m->sse1[SSE1_CTX][j + 1] * (int32_t)m->sse1w) >> 11;
		m->sse2i = (hash2(m->c4 & 0xff, c0) >> (32 - SSE2_BITS)) & ((1u << SSE2_BITS) - 1);
		m->ps2 = (m->sse2[m->sse2i][j] * (int32_t)(128 - m->sse1w) +
			  m->sse2[m->sse2i][j + 1] * (int32_t)m->sse1w) >> 11;
	}
	{
		int32_t p = (m->ps1 + m->ps2 + 1) >> 1;

		if (p < 1)
			p = 1;
		if (p > 4095)
			p = 4095;
		return p;
	}
}

HOT void sse_update(uint16_t *t, uint32_t w, uint32_t y)
{
	int32_t target = y ? 65535 : 0;

	t[0] = (uint16_t)(t[0] + (((target - t[0]) * (int32_t)(128 - w)) >> 12));
	t[1] = (uint16_t)(t[1] + (((target - t[1]) * (int32_t)w) >> 12));
}

HOT void mixer_update(int32_t *w, const int32_t *x, int32_t err)
{
	if (err < ERRMIN && err > -ERRMIN)
		return;
	for (uint32_t i = 0; i < NIN; i++) {
		w[i] = (int32_t)((uint32_t)w[i] + (uint32_t)((x[i] * err) >> ZCM_LRS));
	}
}

/* Learn from the bit y just coded (after zcm_p). */
static void zcm_bit(struct zcm *m, uint32_t y)
{
	int32_t lr = ZCM_LR + (int32_t)(m->pos < 4096 ? ZCM_LRA : m->pos < 32768 ? ZCM_LRB : 0);

	for (uint32_t i = 0; i < ZCM_NHASH; i++) {
		struct zslot *c = slot_at(m, i);
		uint16_t *q = &m->sm[i][c->st & 63];

		*q = (uint16_t)(*q + (((int32_t)(y ? 65535u : 0u) - *q) >> ZCM_SMR));
		c->st = m->nex[(c->st << 1 | y) & 127];
		c->c = counter_update(m, c->c, y, i < 2 ? ZCM_LIMIT_LO : ZCM_LIMIT_HI);
	}
	m->o0[m->c0 & 255] = counter_update(m, m->o0[m->c0 & 255], y, ZCM_LIMIT_LO);
	if (m->mlen)
		m->mm[m->mctx & 63] = counter_update(m, m->mm[m->mctx & 63], y, ZCM_LIMIT_HI);
	for (uint32_t k = 0; k < NMIX; k++) {
		mixer_update(m->w[m->set[k] % NSETS], m->x, ((int32_t)(y << 12) - m->pk[k]) * lr);
		int32_t *wf = &m->wf[m->iw.role & 7][k], e = (int32_t)(y << 12) - m->pmix;

		*wf = (int32_t)((uint32_t)*wf + (uint32_t)((m->st[k] * e) >> FLRS));
	}
	sse_update(&m->sse1[m->sse1c & 8191][m->sse1i & 31], m->sse1w, y);
	sse_update(&m->sse2[m->sse2i & ((1u << SSE2_BITS) - 1)][m->sse1i & 31], m->sse1w, y);
	m->c0 = m->c0 << 1 | y;
	m->bitn++;
}

static uint32_t is_word_byte(uint32_t b)
{
	b |= 0x20;
	return (b >= 'a' && b <= 'z');
}

/*
 * A light x86-64 instruction walk (Intel SDM vol. 2, opcode maps A-2..A-4): what the next byte
 * is (prefix or opcode, ModRM, SIB, displacement, immediate) and which opcode it belongs to.
 * Data decodes as nonsense instructions; that only costs prediction, never correctness, since
 * both ends walk the same bytes.
 */

/*
 * What follows each opcode of the one-byte map and of the 0F map, 4 bits per opcode (even
 * opcodes in the low nibble): bit 3, a ModRM byte; bits 0-2, the immediate: 0 none, 1 one byte,
 * 2 two, 3 z (two with a 66h prefix, else four), 4 v (z, or eight with REX.W: MOV r64, imm64),
 * 5 three (ENTER), 6 eight (MOV with a 64-bit moffs), 7 four (Jcc rel32).
 */
static const uint8_t x86_maps[2][128] = {
	{
		0x88, 0x88, 0x31, 0x00, 0x88, 0x88, 0x31, 0x00, 0x88, 0x88, 0x31, 0x00,
		0x88, 0x88, 0x31, 0x00, 0x88, 0x88, 0x31, 0x00, 0x88, 0x88, 0x31, 0x00,
		0x88, 0x88, 0x31, 0x00, 0x88, 0x88, 0x31, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x88, 0x00, 0x00, 0xb3, 0x91, 0x00, 0x00, 0x11, 0x11, 0x11, 0x11,
		0x11, 0x11, 0x11, 0x11, 0xb9, 0x99, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x66, 0x66, 0x00, 0x00,
		0x31, 0x00, 0x00, 0x00, 0x11, 0x11, 0x11, 0x11, 0x44, 0x44, 0x44, 0x44,
		0x99, 0x02, 0x88, 0xb9, 0x05, 0x02, 0x10, 0x00, 0x88, 0x88, 0x11, 0x00,
		0x88, 0x88, 0x88, 0x88, 0x11, 0x11, 0x11, 0x11, 0x33, 0x10, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x88, 0x00, 0x00, 0x00, 0x88,
	}, {
		0x88, 0x88, 0x08, 0x00, 0x00, 0x00, 0x88, 0x80, 0x88, 0x88, 0x88, 0x88,
		0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88,
		0x00, 0x00, 0x00, 0x00, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88,
		0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88,
		0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x99, 0x99, 0x88, 0x08,
		0x88, 0x88, 0x88, 0x88, 0x77, 0x77, 0x77, 0x77, 0x77, 0x77, 0x77, 0x77,
		0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x00, 0x80, 0x89, 0x88,
		0x00, 0x80, 0x89, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x89, 0x88, 0x88,
		0x88, 0x89, 0x99, 0x89, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	},
};

/* The immediate's length after an opcode of map 0 or 1, plus 0x80 when a ModRM follows. */
static uint32_t x86_op(uint32_t map, uint32_t op, uint32_t pfx)
{
	uint32_t c = x86_maps[map & 1][op >> 1 & 127] >> (op & 1) * 4 & 15, t = c & 7;
	uint32_t z = (pfx & 1) ? 2 : 4;
	uint32_t n = t == 3 ? z : t == 4 ? ((pfx & 8) ? 8 : z) : 0x48300210u >> t * 4 & 15;

	return (c & 8) << 4 | n;
}

static void x86_walk(struct x86_state *m, uint32_t b)
{
	uint32_t d;

	switch (m->role) {
	case R_OP:
		if (b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3 || b == 0x2e ||
		    b == 0x3e || b == 0x26 || b == 0x36 || b == 0x64 || b == 0x65) {
			m->pfx |= b == 0x66 ? 1 : 2;
			return;
		}
		if ((b & 0xf0) == 0x40) {
			m->pfx |= 4 | ((b & 8) ? 8 : 0);
			return;
		}
		m->prev_op = m->op;
		m->ops = m->ops << 8 | (m->op & 0xff);
		m->op = b;
		if (b == 0x0f) {
			m->role = R_OP0F;
			return;
		}
		d = x86_op(0, b, m->pfx);
		break;
	case R_OP0F:
		m->op = 0x100 | b;
		if (b == 0x38 || b == 0x3a) {
			m->role = b == 0x38 ? R_OP38 : R_OP3A;
			return;
		}
		d = x86_op(1, b, m->pfx);
		break;
	case R_OP38:
	case R_OP3A:
		d = m->role == R_OP38 ? 0x80 : 0x81;
		m->op = (m->role == R_OP38 ? 0x200 : 0x300) | b;
		break;
	case R_MODRM:
		m->modrm = b;
		d = m->left;	/* the immediate's length, waiting behind the ModRM operand */
		if ((m->op == 0xf6 || m->op == 0xf7) && (b & 0x38) < 0x10)
			d = m->op == 0xf6 ? 1 : (m->pfx & 1) ? 2 : 4;
		if ((b >> 6) != 3 && (b & 7) == 4) {
			m->role = R_SIB;
			m->left = d;
			return;
		}
		m->left = d;
		if ((b >> 6) == 1 || (b >> 6) == 2 || ((b >> 6) == 0 && (b & 7) == 5)) {
			m->role = R_DISP;
			m->left = d | ((b >> 6) == 1 ? 1 : 4) << 8;
			return;
		}
		goto imm;
	case R_SIB:
		d = m->left;
		if ((m->modrm >> 6) == 1 || (m->modrm >> 6) == 2 ||
		    ((m->modrm >> 6) == 0 && (b & 7) == 5)) {
			m->role = R_DISP;
			m->left = d | ((m->modrm >> 6) == 1 ? 1 : 4) << 8;
			return;
		}
		m->left = d;
		goto imm;
	case R_DISP:
		m->left -= 1u << 8;
		if (m->left >> 8)
			return;
		goto imm;
	default:	/* R_IMM */
		if (--m->left)
			return;
		m->role = R_OP;
		m->pfx = 0;
		return;
	}
	/* after an opcode: d = immediate bytes, bit 7 = a ModRM follows */
	if (d & 0x80) {
		m->role = R_MODRM;
		m->left = d & 0x7f;
		return;
	}
	m->left = d;
imm:
	m->left &= 0xff;
	if (m->left) {
		m->role = R_IMM;
	} else {
		m->role = R_OP;
		m->pfx = 0;
	}
}

/* A byte is complete and stored at buf[pos]: new contexts for the next one. */
static void zcm_byte(struct zcm *m)
{
	uint32_t b = m->c0 & 255, pos;

	m->c0 = 1;
	m->bitn = 0;
	pos = ++m->pos;
	m->c8 = m->c8 << 8 | m->c4 >> 24;
	m->c4 = m->c4 << 8 | b;
	if (m->mlen && m->buf[m->mptr] == b) {
		m->mptr++;
		if (m->mlen < 65535)
			m->mlen++;
	} else {
		m->mlen = 0;
	}
	if (pos >= MATCH_MIN) {
		uint32_t hm = hash2(m->c4, 0) >> (32 - ZCM_MBITS) & MMASK;

		if (!m->mlen) {
			uint32_t cand = m->mt[hm], l = 0;

			if (cand && cand < pos) {
				while (l < MATCH_MAX_CHECK && l < cand &&
				       m->buf[cand - 1 - l] == m->buf[pos - 1 - l])
					l++;
				if (l >= MATCH_MIN) {
					m->mlen = l;
					m->mptr = cand;
				}
			}
		}
		m->mt[hm] = pos;
	}
	if (is_word_byte(b))
		m->word = (m->word + (b | 0x20) + 1) * 0x2f0b4c3du;
	else
		m->word = 0;
	{
		uint32_t was = m->iw.role;

		x86_walk(&m->iw, b);
		if (was < R_MODRM && m->iw.role >= R_MODRM) {
			m->ref = m->last_of_op[m->iw.op & 1023];
			m->last_of_op[m->iw.op & 1023] = m->ins_start;
		}
		if (m->iw.role == R_OP && !m->iw.pfx)
			m->ins_start = pos;
	}
	/* h[0] is order 1, indexed directly; order 2 (and h[11] order 3); bytes 1 and 3 back; order 5; byte 3 back
	 * with the byte's x86 role and the operand bytes left; the current word (letters) with the
	 * byte before, or outside words the byte before with the role and bytes left; byte 2 back
	 * with the role and bytes left. (The sparse contexts skip what
	 * varies between instances of one instruction shape: a register field, a displacement or
	 * immediate byte; they measured better than orders 3, 4 and 6.) Then the x86 contexts:
	 * the opcode with the one before it, or an operand byte's field and opcode with the byte
	 * before; the last three opcodes, or the field with the opcode and ModRM; the opcode with
	 * the byte before, or the field with the opcode and two bytes before; the last opcode and
	 * ModRM, or the byte at the same place in the last instruction of the same opcode (an
	 * operand column: displacements and immediates repeat per opcode). The prefixes (REX and
	 * REX.W: the operand size) join the opcode history, and the operand contexts with the byte
	 * before and with the operand column. */
	m->h[1] = hash2(1, m->c4 & 0xffff);
	m->h[11] = hash2(11, m->c4 & 0xffffff);
	m->h[2] = hash2(2, m->c4 & 0xff00ff);
	m->h[3] = hash2(m->c4, m->c8 & 0xff);
	m->h[4] = hash2(4 + (m->iw.role << 4) + (m->iw.left << 8), m->c4 & 0xff0000);
	m->h[5] = hash2(m->word + 5 + (m->word ? 0 : (m->iw.role << 4) + (m->iw.left << 8)), m->c4 & 0xff);
	m->h[6] = hash2(6 + (m->iw.role << 4) + (m->iw.left << 8), m->c4 & 0xff00);
	if (m->iw.role == R_OP)
		m->h[7] = hash2(7 + (m->iw.pfx << 4), m->iw.op << 12 | m->iw.prev_op);
	else
		m->h[7] = hash2(7 + (m->iw.role << 4) + (m->iw.left << 8) + (m->iw.pfx >> 2 << 24),
				m->iw.op << 8 | (m->c4 & 0xff));
	if (m->iw.role < R_MODRM) {
		m->h[10] = hash2(10 + (m->iw.pfx << 4), m->iw.op << 8 | m->iw.modrm);
	} else {
		uint32_t off = pos - m->ins_start, r = m->ref + off, pred = 0x100;

		if (m->ref < m->ins_start && r < m->ins_start)
			pred = m->buf[r];
		m->h[10] = hash2(10 + (off << 4) + (m->iw.role << 8) + (m->iw.pfx >> 2 << 16),
				 m->iw.op << 12 | pred);
	}
	if (m->iw.role == R_OP) {
		m->h[8] = hash2(8 + (m->iw.pfx << 4), m->iw.ops & 0xffffff);
		m->h[9] = hash2(9 + (m->iw.pfx << 4), m->iw.op << 8 | (m->c4 & 0xff));
	} else {
		m->h[8] = hash2(8 + (m->iw.role << 4) + (m->iw.left << 8) + (m->iw.pfx << 20),
				m->iw.op << 8 | m->iw.modrm);
		m->h[9] = hash2(9 + (m->iw.role << 4) + (m->iw.left << 8), m->iw.op << 16 | (m->c4 & 0xffff));
	}
	windows(m);
}

/*
 * Priming: the model first learns prime[0, prime_len) (the decoder's own image: x86 code as well),
 * bit by bit as if coding it; then the coded bytes start afresh at position 0, with no match and
 * no instruction under way. What the counters, mixers and SSE learnt stays; so do the positions
 * the match model and the operand column keep, which only ever read below the current position
 * (a stale one costs prediction, never a read outside the bytes coded).
 */
static void zcm_start(struct zcm *m, const uint8_t *prime, size_t prime_len, const uint8_t *buf)
{
	zcm_init(m, prime);
	for (size_t i = 0; i < prime_len; i++) {
		for (int k = 7; k >= 0; k--) {
			zcm_p(m);
			zcm_bit(m, prime[i] >> k & 1);
		}
		zcm_byte(m);
	}
	m->buf = buf;
	m->pos = m->mlen = m->ins_start = 0;
}

/* ---- the arithmetic coder: [x1, x2] split at x1 + (x2 - x1) * p / 4096, p = P(bit is 1) ---- */

size_t zcm_encode(const uint8_t *in, size_t len, uint8_t *out, size_t cap, void *arena,
		  const uint8_t *prime, size_t prime_len)
{
	struct zcm *m = arena;
	uint32_t x1 = 0, x2 = 0xffffffffu;
	size_t n = 0;

	zcm_start(m, prime, prime_len, in);
	for (size_t i = 0; i < len; i++) {
		for (int k = 7; k >= 0; k--) {
			uint32_t y = in[i] >> k & 1;
			uint32_t xmid = x1 + ((x2 - x1) >> 12) * (uint32_t)zcm_p(m);

			if (y)
				x2 = xmid;
			else
				x1 = xmid + 1;
			zcm_bit(m, y);
			while (!((x1 ^ x2) & 0xff000000u)) {
				if (n == cap)
					return 0;
				out[n++] = (uint8_t)(x2 >> 24);
				x1 <<= 8;
				x2 = x2 << 8 | 255;
			}
		}
		zcm_byte(m);
	}
	/* x1 itself, whole: the decoder then reads exactly the bytes written */
	for (int k = 0; k < 4; k++) {
		if (n == cap)
			return 0;
		out[n++] = (uint8_t)(x1 >> 24);
		x1 <<= 8;
	}
	return n;
}

int zcm_decode(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len, void *arena,
	       const uint8_t *prime, size_t prime_len)
{
	struct zcm *m = arena;
	uint32_t x1 = 0, x2 = 0xffffffffu, x = 0;
	size_t n = 0;

	zcm_start(m, prime, prime_len, out);
	if (in_len < 4)
		return ZCM_E_TRUNCATED;
	for (; n < 4; n++)
		x = x << 8 | in[n];
	for (size_t i = 0; i < out_len; i++) {
		for (int k = 0; k < 8; k++) {
			uint32_t xmid = x1 + ((x2 - x1) >> 12) * (uint32_t)zcm_p(m);
			uint32_t y = x <= xmid;

			if (y)
				x2 = xmid;
			else
				x1 = xmid + 1;
			zcm_bit(m, y);
			while (!((x1 ^ x2) & 0xff000000u)) {
				if (n == in_len)
					return ZCM_E_TRUNCATED;
				x1 <<= 8;
				x2 = x2 << 8 | 255;
				x = x << 8 | in[n++];
			}
		}
		out[i] = (uint8_t)m->c0;
		zcm_byte(m);
	}
	/* the encoder ended with x1 itself: all of the input read, and exactly that value */
	return n == in_len && x == x1 ? ZCM_OK : ZCM_E_TRAILING;
}

/* ---- the x86 transform ----
 * E8 (CALL rel32) and E9 (JMP rel32) whose displacement's top byte is 00 or FF (a near target)
 * get the target's absolute position (offset + 5 + rel32) instead, kept to 25 bits with the top
 * byte again 00 or FF; calls to one function then repeat the same bytes. The opcode and whether
 * the top byte is 00/FF survive the conversion, so the inverse makes the same choices. */
static int x86_near(uint8_t top)
{
	return top == 0x00 || top == 0xff;
}

/* A near rel32 at p, relative to at, to the absolute target (encode) or back; the top byte stays
 * 00 or FF (bit 24 of the result: 25 bits kept), so the inverse finds the same rel32s. */
static void x86_rel32(uint8_t *p, uint32_t at, int encode)
{
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;

	v = encode ? v + at : v - at;
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (v >> 24 & 1) ? 0xff : 0x00;
}

static void x86_convert(uint8_t *buf, size_t len, int encode)
{
	size_t i = 0, free_from = 0;

	while (len >= 5 && i <= len - 5) {
		if (buf[i] != 0xe8 && buf[i] != 0xe9) {
			i++;
		} else if (i >= free_from && x86_near(buf[i + 4])) {
			x86_rel32(buf + i + 1, (uint32_t)i + 5, encode);
			i += 5;
		} else {
			/* left as it is, on the strength of buf[i + 4]: no conversion may
			 * rewrite that byte, or the inverse would decide otherwise */
			i++;
			free_from = i + 3;
		}
	}
}

/*
 * RIP-relative operands (64-bit mode: ModRM mod 00, r/m 101, then disp32 relative to the next
 * instruction; Intel SDM vol. 2, 2.2.1.6) whose displacement's top byte is 00 or FF likewise get
 * the target's absolute position, found by the instruction walk the model uses (x86_walk: the
 * ModRM, and the immediate's length after the displacement). The walk reads only opcodes,
 * prefixes and ModRM bytes, which no conversion changes, so both directions walk alike.
 */
static void rip_convert(uint8_t *buf, size_t len, int encode)
{
	struct x86_state w = { 0 };

	for (size_t i = 0; i + 5 <= len; i++) {
		uint32_t was = w.role;

		x86_walk(&w, buf[i]);
		if (was == R_MODRM && (buf[i] & 0xc7) == 0x05 && x86_near(buf[i + 4]))
			x86_rel32(buf + i + 1, (uint32_t)i + 5 + (w.left & 0xff), encode);
	}
}

void zcm_x86_encode(uint8_t *buf, size_t len)
{
	x86_convert(buf, len, 1);
	rip_convert(buf, len, 1);
}

void zcm_x86_decode(uint8_t *buf, size_t len)
{
	rip_convert(buf, len, 0);
	x86_convert(buf, len, 0);
}

uint32_t zcm_crc32(const uint8_t *p, size_t len)
{
	uint32_t crc = 0xffffffffu;

	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc >> 1 ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void ibz_put_header(uint8_t *z, uint32_t out_len, uint32_t in_len, uint32_t crc, int x86,
		    uint32_t prime_len)
{
	const uint32_t w[5] = { IBZ2_MAGIC, ZCM_VERSION | (x86 ? IBZ_FILTER_X86 : 0u) << 8 |
				prime_len << 16, out_len, in_len, crc };

	for (int i = 0; i < IBZ_HEADER_LEN; i++)
		z[i] = (uint8_t)(w[i / 4] >> (8 * (i % 4)));
}

int ibz_unpack(const uint8_t *z, size_t z_len, uint8_t *out, size_t out_cap, void *arena,
	       const uint8_t *prime, size_t prime_len, size_t *out_len)
{
	uint32_t olen, ilen, plen;
	int rc;

	*out_len = 0;
	if (z_len < IBZ_HEADER_LEN)
		return ZCM_E_HEADER;
	if (le32(z) != IBZ2_MAGIC)
		return ZCM_E_MAGIC;
	if (z[4] != ZCM_VERSION || (z[5] & ~IBZ_FILTER_X86))
		return ZCM_E_PROPS;
	plen = le32(z + 4) >> 16;
	if (plen != prime_len)
		return ZCM_E_PRIME;
	olen = le32(z + 8);
	ilen = le32(z + 12);
	if (ilen != z_len - IBZ_HEADER_LEN)
		return ZCM_E_HEADER;
	if (olen > out_cap)
		return ZCM_E_SPACE;
	rc = zcm_decode(z + IBZ_HEADER_LEN, ilen, out, olen, arena, prime, plen);
	if (rc)
		return rc;
	if (z[5] & IBZ_FILTER_X86)
		zcm_x86_decode(out, olen);
	if (zcm_crc32(out, olen) != le32(z + 16))
		return ZCM_E_CRC;
	*out_len = olen;
	return ZCM_OK;
}

const char *zcm_strerror(int status)
{
	switch (status) {
	case ZCM_OK: return "ok";
	case ZCM_E_HEADER: return "bad header";
	case ZCM_E_MAGIC: return "not IBZ2";
	case ZCM_E_PROPS: return "unknown model or filter";
	case ZCM_E_SPACE: return "output too large";
	case ZCM_E_TRUNCATED: return "stream truncated";
	case ZCM_E_TRAILING: return "stream overruns output";
	case ZCM_E_CRC: return "CRC-32 mismatch";
	case ZCM_E_PRIME: return "primed with another image";
	}
	return "error";
}

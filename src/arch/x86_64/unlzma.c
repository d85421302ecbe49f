/* SPDX-License-Identifier: MIT */
/*
 * Raw LZMA1 decoder (the format of `xz --format=raw --lzma1=...`: a range coder over adaptive
 * binary probabilities, literals coded with the previous byte as context, matches with a length
 * coder, a distance slot plus reverse-coded low bits, and four repeated distances), the x86 BCJ
 * filter's decoder, CRC-32, and the IBZ1 container that ties them together (unlzma.h).
 *
 * The output buffer is the dictionary: every distance is checked against the bytes written so
 * far, every length against the room left, every input byte against the end of the input.
 * A loop iteration writes at least one byte or returns, so decoding ends after out_len
 * iterations at most.
 */
#include "unlzma.h"

/* Where each group of probability counters starts (the sizes follow the format's definition). */
enum {
	P_IS_MATCH = 0,				/* [state][pos_state]: 12 x 16 */
	P_IS_REP = P_IS_MATCH + 192,		/* [state] */
	P_IS_REP_G0 = P_IS_REP + 12,
	P_IS_REP_G1 = P_IS_REP_G0 + 12,
	P_IS_REP_G2 = P_IS_REP_G1 + 12,
	P_IS_REP0_LONG = P_IS_REP_G2 + 12,	/* [state][pos_state] */
	P_DIST_SLOT = P_IS_REP0_LONG + 192,	/* 4 six-bit trees, by match length */
	P_DIST_SPECIAL = P_DIST_SLOT + 256,	/* reverse trees of slots 4..13 (114 counters) */
	P_ALIGN = P_DIST_SPECIAL + 114,		/* the four low bits of long distances */
	P_LEN = P_ALIGN + 16,			/* match lengths: LEN_SIZE */
	P_REP_LEN = P_LEN + 514,		/* repeated-match lengths */
	P_LITERAL = P_REP_LEN + 514,		/* 0x300 per literal context */
};
/* A length coder: choice, choice2, 16 low and 16 mid three-bit trees, one eight-bit tree. */
#define LEN_LOW 2
#define LEN_MID (LEN_LOW + 16 * 8)
#define LEN_HIGH (LEN_MID + 16 * 8)

_Static_assert(P_LITERAL == UNLZMA_PROBS_FIXED, "probability layout");

#define STATES 12
#define LIT_STATES 7	/* states below this follow a literal */
#define MATCH_MIN 2
#define PROB_BITS 11
#define MOVE_BITS 5
#define TOP (1u << 24)

struct rc {
	const uint8_t *p, *end;
	uint32_t range, code;
	int truncated;
};

/* The next input byte; past the end it reads zero and marks the stream truncated. */
static uint8_t rc_byte(struct rc *rc)
{
	if (rc->p == rc->end) {
		rc->truncated = 1;
		return 0;
	}
	return *rc->p++;
}

static void rc_normalize(struct rc *rc)
{
	if (rc->range < TOP) {
		rc->range <<= 8;
		rc->code = rc->code << 8 | rc_byte(rc);
	}
}

static unsigned rc_bit(struct rc *rc, uint16_t *prob)
{
	uint32_t bound = (rc->range >> PROB_BITS) * *prob;
	unsigned bit;

	if (rc->code < bound) {
		rc->range = bound;
		*prob = (uint16_t)(*prob + (((1u << PROB_BITS) - *prob) >> MOVE_BITS));
		bit = 0;
	} else {
		rc->range -= bound;
		rc->code -= bound;
		*prob = (uint16_t)(*prob - (*prob >> MOVE_BITS));
		bit = 1;
	}
	rc_normalize(rc);
	return bit;
}

/* A bit tree of `bits` levels, most significant bit first; returns the symbol. */
static unsigned rc_tree(struct rc *rc, uint16_t *probs, unsigned bits)
{
	unsigned m = 1;

	for (unsigned i = 0; i < bits; i++)
		m = m << 1 | rc_bit(rc, probs + m);
	return m - (1u << bits);
}

/* The same tree read least significant bit first. */
static unsigned rc_tree_reverse(struct rc *rc, uint16_t *probs, unsigned bits)
{
	unsigned m = 1, sym = 0;

	for (unsigned i = 0; i < bits; i++) {
		unsigned bit = rc_bit(rc, probs + m);

		m = m << 1 | bit;
		sym |= bit << i;
	}
	return sym;
}

/* Bits with probability one half. */
static uint32_t rc_direct(struct rc *rc, unsigned bits)
{
	uint32_t sym = 0;

	while (bits--) {
		uint32_t mask;

		rc->range >>= 1;
		rc->code -= rc->range;
		mask = 0u - (rc->code >> 31);	/* all ones when the bit is 0 */
		rc->code += rc->range & mask;
		rc_normalize(rc);
		sym = sym << 1 | (mask + 1);
	}
	return sym;
}

static unsigned len_decode(struct rc *rc, uint16_t *probs, unsigned pos_state)
{
	if (!rc_bit(rc, probs + 0))
		return rc_tree(rc, probs + LEN_LOW + pos_state * 8, 3);
	if (!rc_bit(rc, probs + 1))
		return 8 + rc_tree(rc, probs + LEN_MID + pos_state * 8, 3);
	return 16 + rc_tree(rc, probs + LEN_HIGH, 8);
}

/* A match distance minus one; 0xffffffff is the end marker. len: the match length minus 2. */
static uint32_t dist_decode(struct rc *rc, uint16_t *probs, unsigned len)
{
	unsigned slot = rc_tree(rc, probs + P_DIST_SLOT + (len < 3 ? len : 3) * 64, 6);
	unsigned nbits;
	uint32_t dist;

	if (slot < 4)
		return slot;
	nbits = (slot >> 1) - 1;
	dist = (2u | (slot & 1)) << nbits;
	if (slot < 14)	/* distance below 128: every low bit modelled */
		return dist + rc_tree_reverse(rc, probs + P_DIST_SPECIAL + dist - slot, nbits);
	dist += rc_direct(rc, nbits - 4) << 4;
	return dist + rc_tree_reverse(rc, probs + P_ALIGN, 4);
}

int unlzma(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len, unsigned props,
	   uint16_t *probs)
{
	unsigned lc = props % 9, lp = props / 9 % 5, pb = props / 45;
	uint32_t rep0 = 0, rep1 = 0, rep2 = 0, rep3 = 0;
	unsigned state = 0;
	size_t pos = 0, nprobs;
	struct rc rc;

	if (props >= 9 * 5 * 5 || lc + lp > UNLZMA_LCLP_MAX)
		return UNLZMA_E_PROPS;
	nprobs = P_LITERAL + ((size_t)0x300 << (lc + lp));
	for (size_t i = 0; i < nprobs; i++)
		probs[i] = 1u << (PROB_BITS - 1);
	if (in_len < 5)
		return UNLZMA_E_TRUNCATED;
	if (in[0] != 0)
		return UNLZMA_E_START;
	rc.p = in + 5;
	rc.end = in + in_len;
	rc.range = 0xffffffffu;
	rc.code = (uint32_t)in[1] << 24 | (uint32_t)in[2] << 16 | (uint32_t)in[3] << 8 | in[4];
	rc.truncated = 0;

	while (pos < out_len) {
		unsigned pos_state = (unsigned)pos & ((1u << pb) - 1);
		unsigned len;

		if (rc.truncated)
			return UNLZMA_E_TRUNCATED;
		if (!rc_bit(&rc, probs + P_IS_MATCH + state * 16 + pos_state)) {
			unsigned prev = pos ? out[pos - 1] : 0;
			unsigned ctx = (((unsigned)pos & ((1u << lp) - 1)) << lc) + (prev >> (8 - lc));
			uint16_t *lit = probs + P_LITERAL + 0x300 * ctx;
			unsigned sym = 1;

			if (state >= LIT_STATES) {
				/* after a match: the byte at rep0 steers the first bits */
				unsigned match = out[pos - rep0 - 1];

				do {
					unsigned mbit = match >> 7 & 1, bit;

					match <<= 1;
					bit = rc_bit(&rc, lit + ((1 + mbit) << 8) + sym);
					sym = sym << 1 | bit;
					if (bit != mbit)
						break;
				} while (sym < 0x100);
			}
			while (sym < 0x100)
				sym = sym << 1 | rc_bit(&rc, lit + sym);
			out[pos++] = (uint8_t)sym;
			state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
			continue;
		}
		if (rc_bit(&rc, probs + P_IS_REP + state)) {
			if (pos == 0)
				return UNLZMA_E_DISTANCE;
			if (!rc_bit(&rc, probs + P_IS_REP_G0 + state)) {
				if (!rc_bit(&rc, probs + P_IS_REP0_LONG + state * 16 + pos_state)) {
					/* one byte at rep0 */
					if (rep0 >= pos)
						return UNLZMA_E_DISTANCE;
					state = state < LIT_STATES ? 9 : 11;
					out[pos] = out[pos - rep0 - 1];
					pos++;
					continue;
				}
			} else {
				uint32_t dist;

				if (!rc_bit(&rc, probs + P_IS_REP_G1 + state)) {
					dist = rep1;
				} else {
					if (!rc_bit(&rc, probs + P_IS_REP_G2 + state)) {
						dist = rep2;
					} else {
						dist = rep3;
						rep3 = rep2;
					}
					rep2 = rep1;
				}
				rep1 = rep0;
				rep0 = dist;
			}
			len = len_decode(&rc, probs + P_REP_LEN, pos_state);
			state = state < LIT_STATES ? 8 : 11;
		} else {
			rep3 = rep2;
			rep2 = rep1;
			rep1 = rep0;
			len = len_decode(&rc, probs + P_LEN, pos_state);
			state = state < LIT_STATES ? 7 : 10;
			rep0 = dist_decode(&rc, probs, len);
			if (rep0 == 0xffffffffu)
				return rc.truncated ? UNLZMA_E_TRUNCATED : UNLZMA_E_EARLY_END;
		}
		if (rep0 >= pos)
			return UNLZMA_E_DISTANCE;
		len += MATCH_MIN;
		if (len > out_len - pos)
			return UNLZMA_E_LENGTH;
		for (; len; len--, pos++)
			out[pos] = out[pos - rep0 - 1];
	}
	return rc.truncated ? UNLZMA_E_TRUNCATED : UNLZMA_OK;
}

/* 0x00 and 0xff: the top byte of a near relative (or converted absolute) CALL/JMP target. */
static int bcj_top(uint8_t b)
{
	return b == 0 || b == 0xff;
}

/*
 * The x86 BCJ filter turned the rel32 of E8 (CALL) and E9 (JMP) into absolute positions where
 * the displacement looked like a near one; `mask` remembers which of the four bytes before the
 * current opcode were themselves E8/E9 candidates (bit 0: the previous byte), whose rel32 would
 * overlap, and the conversion is skipped or repeated exactly as the encoder did.
 */
void unbcj_x86(uint8_t *buf, size_t len)
{
	static const uint8_t byte_of_mask[8] = { 0, 1, 2, 2, 3, 3, 3, 3 };
	const unsigned allowed = 0x17;	/* masks 0, 1, 2 and 4 permit a conversion */
	uint32_t mask = 0, prev = 0u - 5;
	size_t i = 0;

	if (len < 5)
		return;
	while (i <= len - 5) {
		uint32_t gap;
		uint8_t top;

		if (buf[i] != 0xe8 && buf[i] != 0xe9) {
			i++;
			continue;
		}
		gap = (uint32_t)i - prev;
		prev = (uint32_t)i;
		if (gap > 5) {
			mask = 0;
		} else {
			for (uint32_t k = 0; k < gap; k++)
				mask = (mask & 0x77) << 1;
		}
		top = buf[i + 4];
		if (bcj_top(top) && (allowed >> (mask >> 1 & 7) & 1) && (mask >> 1) < 0x10) {
			uint32_t src = (uint32_t)top << 24 | (uint32_t)buf[i + 3] << 16 |
				       (uint32_t)buf[i + 2] << 8 | buf[i + 1];
			uint32_t dest;

			for (;;) {
				unsigned shift;

				dest = src - ((uint32_t)i + 5);
				if (mask == 0)
					break;
				shift = 24 - byte_of_mask[mask >> 1 & 7] * 8u;
				if (!bcj_top((uint8_t)(dest >> shift)))
					break;
				src = dest ^ ((1u << shift << 8) - 1);
			}
			buf[i + 4] = (dest >> 24 & 1) ? 0xff : 0x00;
			buf[i + 3] = (uint8_t)(dest >> 16);
			buf[i + 2] = (uint8_t)(dest >> 8);
			buf[i + 1] = (uint8_t)dest;
			i += 5;
			mask = 0;
		} else {
			i++;
			mask |= 1;
			if (bcj_top(top))
				mask |= 0x10;
		}
	}
}

uint32_t unlzma_crc32(const uint8_t *p, size_t len)
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

int ibz_unpack(const uint8_t *z, size_t z_len, uint8_t *out, size_t out_cap, uint16_t *probs,
	       size_t *out_len)
{
	uint32_t olen, ilen;
	int rc;

	*out_len = 0;
	if (z_len < IBZ_HEADER_LEN)
		return UNLZMA_E_HEADER;
	if (le32(z) != IBZ_MAGIC)
		return UNLZMA_E_MAGIC;
	if ((z[5] & ~IBZ_FILTER_X86) || z[6] || z[7])
		return UNLZMA_E_PROPS;
	olen = le32(z + 8);
	ilen = le32(z + 12);
	if (ilen > z_len - IBZ_HEADER_LEN)
		return UNLZMA_E_HEADER;
	if (olen > out_cap)
		return UNLZMA_E_SPACE;
	rc = unlzma(z + IBZ_HEADER_LEN, ilen, out, olen, z[4], probs);
	if (rc)
		return rc;
	if (z[5] & IBZ_FILTER_X86)
		unbcj_x86(out, olen);
	if (unlzma_crc32(out, olen) != le32(z + 16))
		return UNLZMA_E_CRC;
	*out_len = olen;
	return UNLZMA_OK;
}

const char *unlzma_strerror(int status)
{
	switch (status) {
	case UNLZMA_OK: return "ok";
	case UNLZMA_E_HEADER: return "container header truncated or inconsistent";
	case UNLZMA_E_MAGIC: return "not an IBZ1 container";
	case UNLZMA_E_PROPS: return "unsupported LZMA properties or filter";
	case UNLZMA_E_SPACE: return "output larger than the space for it";
	case UNLZMA_E_START: return "range coder does not start with a zero byte";
	case UNLZMA_E_TRUNCATED: return "compressed stream truncated";
	case UNLZMA_E_DISTANCE: return "match distance before the start of the output";
	case UNLZMA_E_LENGTH: return "match runs past the end of the output";
	case UNLZMA_E_EARLY_END: return "end marker before the end of the output";
	case UNLZMA_E_CRC: return "CRC-32 of the output does not match";
	}
	return "unknown error";
}

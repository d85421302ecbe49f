/* SPDX-License-Identifier: MIT */
/*
 * The decoder behind bin/ibboot.lkrn's compressed body: raw LZMA1 (as `xz --format=raw --lzma1`
 * writes it) into one flat output buffer, optionally followed by the x86 BCJ filter's inverse,
 * inside a small container of ours (the "IBZ1" header below) that carries the LZMA properties,
 * both lengths and the CRC-32 of the output.
 *
 * Freestanding and bounded: it reads only in[0, in_len) and writes only out[0, out_len); a stream
 * that would leave either is refused with an error code, never followed. The same file is compiled
 * into the 32-bit decompressor stub, the hosted unit test and the fuzz target.
 */
#ifndef IBBOOT_ARCH_UNLZMA_H
#define IBBOOT_ARCH_UNLZMA_H

#include <stddef.h>
#include <stdint.h>

/* lc + lp above this is refused: it bounds the literal probabilities (0x300 << (lc + lp)). */
#define UNLZMA_LCLP_MAX 4
/* Probability counters the decoder needs (uint16_t each): 1846 fixed + the literal coder's. */
#define UNLZMA_PROBS_FIXED 1846u
#define UNLZMA_PROBS_MAX (UNLZMA_PROBS_FIXED + (0x300u << UNLZMA_LCLP_MAX))

enum unlzma_status {
	UNLZMA_OK = 0,
	UNLZMA_E_HEADER,	/* container shorter than its header or lengths inconsistent */
	UNLZMA_E_MAGIC,		/* not an IBZ1 container */
	UNLZMA_E_PROPS,		/* lc/lp/pb out of range or an unknown filter */
	UNLZMA_E_SPACE,		/* the output does not fit the space given */
	UNLZMA_E_START,		/* the range coder's first byte is not zero */
	UNLZMA_E_TRUNCATED,	/* the stream ends before the output is complete */
	UNLZMA_E_DISTANCE,	/* a match reaches before the start of the output */
	UNLZMA_E_LENGTH,	/* a match runs past the end of the output */
	UNLZMA_E_EARLY_END,	/* an end marker before the output is complete */
	UNLZMA_E_CRC,		/* the output's CRC-32 differs from the header's */
};

/*
 * IBZ1 container, little-endian, then in_len bytes of raw LZMA1:
 *   0  "IBZ1"   4  props = (pb * 5 + lp) * 9 + lc   5  filters (bit 0: x86 BCJ)   6  two zero bytes
 *   8  out_len  12 in_len  16 CRC-32 (IEEE, as zlib) of the output
 */
#define IBZ_HEADER_LEN 20
#define IBZ_MAGIC 0x315a4249u	/* "IBZ1" */
#define IBZ_FILTER_X86 0x01u

/* Raw LZMA1: exactly out_len bytes from in[0, in_len). probs: UNLZMA_PROBS_MAX counters. */
int unlzma(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len, unsigned props,
	   uint16_t *probs);
/* The x86 BCJ filter's decoder over buf[0, len) (positions relative to buf[0]). */
void unbcj_x86(uint8_t *buf, size_t len);
/* CRC-32 (reflected 0xedb88320, initial and final inversion: the zlib/xz value). */
uint32_t unlzma_crc32(const uint8_t *p, size_t len);
/* An IBZ1 container into out[0, out_cap): header checks, LZMA1, the filter, the CRC. */
int ibz_unpack(const uint8_t *z, size_t z_len, uint8_t *out, size_t out_cap, uint16_t *probs,
	       size_t *out_len);
const char *unlzma_strerror(int status);

#endif

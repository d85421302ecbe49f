/* SPDX-License-Identifier: MIT */
/*
 * ZCM: the context-mixing coder behind bin/ibboot.lkrn's compressed body. One model (zcm.c) is
 * compiled into both the host packer (util/zimage/zpack.c) and the 32-bit stub, so encoder and
 * decoder predict every bit alike by construction.
 *
 * Each bit of the body (after the x86 transform below) is coded by a carryless 32-bit
 * binary arithmetic coder with the probability logistic mixers make of several models'
 * predictions: order 0, 1, 2, 3 and 5 byte contexts, sparse and x86 contexts, a word context for
 * strings and a match model, refined by two SSE stages. The model may first be primed with bytes
 * both ends hold (the decoder's own image): that costs no stream bytes.
 *
 * Freestanding and bounded: the decoder reads only in[0, in_len) and writes only out[0, out_len);
 * every table index is masked; a stream that runs out before the output is complete is refused.
 * The model's tables live in a caller-given arena of ZCM_ARENA_BYTES.
 */
#ifndef IBBOOT_ARCH_ZCM_H
#define IBBOOT_ARCH_ZCM_H

#include <stddef.h>
#include <stdint.h>

#ifndef ZCM_TN
#define ZCM_TN 268288u		/* slots per hashed model (131 windows of 2048): 4 bytes each */
#endif
#define ZCM_NHASH 12		/* hashed context models (zcm_byte sets h[0..11]) */
#ifndef ZCM_MBITS
#define ZCM_MBITS 16		/* log2 of the match model's position table */
#endif

/* The arena: slots (16-bit counter, 8-bit check, 8-bit state) of the order-1 model (64 Ki) and
 * the hashed ones, state maps, match positions, mixer weights, SSE and lookup tables: 14.4 MiB. */
#define ZCM_ARENA_BYTES (((size_t)4 * (65536 + (ZCM_NHASH - 1) * ZCM_TN)) + \
	((size_t)4 << ZCM_MBITS) + (size_t)2667 * 1024)

enum zcm_status {
	ZCM_OK = 0,
	ZCM_E_HEADER,		/* container shorter than its header or lengths inconsistent */
	ZCM_E_MAGIC,		/* not an IBZ2 container */
	ZCM_E_PROPS,		/* an unknown filter or model version */
	ZCM_E_SPACE,		/* the output does not fit the space given */
	ZCM_E_TRUNCATED,	/* the stream ends before the output is complete */
	ZCM_E_TRAILING,		/* the stream does not end where the output does */
	ZCM_E_CRC,		/* the output's CRC-32 differs from the header's */
	ZCM_E_PRIME,		/* primed with another length of bytes than the decoder holds */
};

/*
 * IBZ2 container, little-endian, then in_len bytes of ZCM stream:
 *   0  "IBZ2"   4  model version (ZCM_VERSION)   5  filters (bit 0: the x86 transform)
 *   6  the length of the bytes the model was primed with (16 bits; 0: none)   8  out_len
 *   12 in_len   16 CRC-32 (IEEE, as zlib) of the output
 */
#define IBZ_HEADER_LEN 20
#define IBZ2_MAGIC 0x325a4249u	/* "IBZ2" */
#define ZCM_VERSION 15
#define IBZ_FILTER_X86 0x01u
#define ZCM_PRIME_MAX 0xffffu

/* Encode in[0, len) into out[0, cap), the model first primed with prime[0, prime_len) (none if
 * prime_len is 0); returns the stream's length, 0 if it does not fit. */
size_t zcm_encode(const uint8_t *in, size_t len, uint8_t *out, size_t cap, void *arena,
		  const uint8_t *prime, size_t prime_len);
/* Decode exactly out_len bytes from in[0, in_len), primed alike; every input byte must be used. */
int zcm_decode(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len, void *arena,
	       const uint8_t *prime, size_t prime_len);

/* The x86 transform: E8/E9 (call/jmp rel32) and RIP-relative disp32 operands whose top byte is
 * 00 or FF get an absolute target. */
void zcm_x86_encode(uint8_t *buf, size_t len);
void zcm_x86_decode(uint8_t *buf, size_t len);

/* CRC-32 (reflected 0xedb88320, initial and final inversion: the zlib value). */
uint32_t zcm_crc32(const uint8_t *p, size_t len);
/* The 20-byte IBZ2 header above, as the packer writes it (the reader is ibz_unpack). */
void ibz_put_header(uint8_t *z, uint32_t out_len, uint32_t in_len, uint32_t crc, int x86,
		    uint32_t prime_len);
/* An IBZ2 container into out[0, out_cap): header checks, ZCM (primed with prime[0, prime_len)
 * if the header says so, which must give that length), the transform, the CRC. */
int ibz_unpack(const uint8_t *z, size_t z_len, uint8_t *out, size_t out_cap, void *arena,
	       const uint8_t *prime, size_t prime_len, size_t *out_len);
const char *zcm_strerror(int status);

#endif

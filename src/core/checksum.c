/* SPDX-License-Identifier: MIT */
/*
 * RFC 1071 Internet checksum, word at a time. The one's-complement sum does not depend on byte
 * order (RFC 1071 §2(B)): summing the buffer as little-endian 64-bit words with end-around carry
 * and swapping the folded result gives the big-endian sum. 2^64 - 1 is a multiple of 2^16 - 1, so
 * folding 64 bits to 16 keeps the sum's value modulo 0xffff, and a non-zero sum never folds to 0
 * (the result matches a byte-at-a-time sum exactly, 0xffff and 0 included).
 */
#include <ibboot/checksum.h>
#include <ibboot/byteorder.h>

/* One's-complement addition of 64-bit words (RFC 1071 §4.1: the carry goes around). */
static inline uint64_t add_carry(uint64_t a, uint64_t b)
{
	a += b;
	return a + (a < b);
}

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	__builtin_memcpy(&v, p, sizeof(v));   /* an unaligned load; x86 needs no alignment */
	return v;
}

#ifdef __x86_64__
/* 64 bytes per iteration as one add-with-carry chain: each 8-byte word costs one instruction,
 * the carry of one add goes into the next (lea and dec leave CF alone), the last one around.
 * The same end-around-carry sum as add_carry() below, in a quarter of the instructions. */
static inline uint64_t sum_blocks64(const uint8_t *p, size_t blocks, uint64_t acc)
{
	__asm__("clc\n"
		"1:\n\t"
		"adcq 0(%[p]), %[acc]\n\t"
		"adcq 8(%[p]), %[acc]\n\t"
		"adcq 16(%[p]), %[acc]\n\t"
		"adcq 24(%[p]), %[acc]\n\t"
		"adcq 32(%[p]), %[acc]\n\t"
		"adcq 40(%[p]), %[acc]\n\t"
		"adcq 48(%[p]), %[acc]\n\t"
		"adcq 56(%[p]), %[acc]\n\t"
		"leaq 64(%[p]), %[p]\n\t"
		"decq %[n]\n\t"
		"jnz 1b\n\t"
		"adcq $0, %[acc]"
		: [acc] "+r"(acc), [p] "+r"(p), [n] "+r"(blocks)
		:
		: "cc", "memory");   /* it reads blocks * 64 bytes at p */
	return acc;
}
#endif

uint16_t csum_partial(const void *data, size_t len, uint16_t sum)
{
	const uint8_t *p = data;
	uint64_t acc = be16_to_cpu(sum);   /* the running sum, in the little-endian lanes */
	uint64_t a = 0, b = 0;

#ifdef __x86_64__
	if (len >= 64) {
		acc = sum_blocks64(p, len / 64, acc);
		p += len & ~(size_t)63;
		len &= 63;
	}
#endif
	/* Two accumulators let the adds of a 32-byte block overlap. */
	for (; len >= 32; p += 32, len -= 32) {
		a = add_carry(a, load64(p));
		b = add_carry(b, load64(p + 8));
		a = add_carry(a, load64(p + 16));
		b = add_carry(b, load64(p + 24));
	}
	acc = add_carry(acc, add_carry(a, b));
	for (; len >= 8; p += 8, len -= 8)
		acc = add_carry(acc, load64(p));
	if (len) {
		uint64_t tail = 0;

		/* The last 1-7 bytes as a zero-padded word: a final odd byte is the high byte of
		 * its big-endian word, i.e. the low byte of the little-endian lane it sits in. */
		for (size_t i = 0; i < len; i++)
			tail |= (uint64_t)p[i] << (8 * i);
		acc = add_carry(acc, tail);
	}
	acc = (acc & 0xffffffffu) + (acc >> 32);   /* < 2^33 */
	acc = (acc & 0xffffu) + (acc >> 16);       /* <= 0x2fffe */
	acc = (acc & 0xffffu) + (acc >> 16);       /* <= 0x10000 */
	acc = (acc & 0xffffu) + (acc >> 16);       /* 1..0xffff unless every word was 0 */
	return cpu_to_be16((uint16_t)acc);
}

uint16_t ip_checksum(const void *data, size_t len)
{
	return csum_finish(csum_partial(data, len, 0));
}

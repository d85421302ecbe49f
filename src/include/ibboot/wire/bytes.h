/* SPDX-License-Identifier: MIT */
/*
 * Big-endian loads and stores, and bit fields numbered the way the IBA tables number them.
 *
 * Everything on an InfiniBand wire is big-endian ("network order"), and every attribute layout in
 * IBA chapters 13-16 gives a field as (bit offset, length) where bit 0 is the most significant bit
 * of byte 0. iblib_get_bits()/iblib_set_bits() take exactly those numbers, so accessors can be
 * checked against the spec tables by eye.
 *
 * Freestanding: only <stdint.h>/<stddef.h>/<stdbool.h>; usable in the firmware image.
 */
#ifndef IBLIB_BYTES_H
#define IBLIB_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ibboot/byteorder.h>

/* Big-endian loads and stores are <ibboot/byteorder.h>'s get_be16/32/64, put_be16/32/64. */

/*
 * Bit field of `len` bits (1..32) starting at IBA bit offset `off` (bit 0 = MSB of byte 0).
 * A field may straddle bytes (e.g. PortInfo:LMC at 277/3 does not, MCMemberRecord:FlowLabel
 * at 356/20 does); it is read byte by byte, so no alignment is assumed.
 */
static inline uint32_t iblib_get_bits(const uint8_t *buf, unsigned off, unsigned len)
{
	uint64_t acc = 0;
	unsigned first = off / 8, last = (off + len - 1) / 8;

	for (unsigned i = first; i <= last; i++)
		acc = acc << 8 | buf[i];
	acc >>= (7 - (off + len - 1) % 8);
	return (uint32_t)(acc & ((len >= 32) ? 0xffffffffu : ((1u << len) - 1)));
}

static inline void iblib_set_bits(uint8_t *buf, unsigned off, unsigned len, uint32_t val)
{
	unsigned first = off / 8, last = (off + len - 1) / 8;
	unsigned shift = 7 - (off + len - 1) % 8;
	uint64_t mask = ((len >= 32) ? 0xffffffffull : ((1ull << len) - 1)) << shift;
	uint64_t acc = 0;

	for (unsigned i = first; i <= last; i++)
		acc = acc << 8 | buf[i];
	acc = (acc & ~mask) | (((uint64_t)val << shift) & mask);
	for (unsigned i = last + 1; i-- > first;) {
		buf[i] = (uint8_t)acc;
		acc >>= 8;
	}
}

/* Freestanding replacements for the three mem* routines iblib needs. */
static inline void iblib_memcpy(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	while (n--)
		*d++ = *s++;
}

static inline void iblib_memset(void *dst, int c, size_t n)
{
	uint8_t *d = dst;

	while (n--)
		*d++ = (uint8_t)c;
}

static inline bool iblib_memeq(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;

	while (n--)
		if (*x++ != *y++)
			return false;
	return true;
}

#endif

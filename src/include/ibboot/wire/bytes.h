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

static inline uint16_t iblib_get_be16(const uint8_t *p)
{
	return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

static inline uint32_t iblib_get_be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t iblib_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t iblib_get_be64(const uint8_t *p)
{
	return (uint64_t)iblib_get_be32(p) << 32 | iblib_get_be32(p + 4);
}

static inline void iblib_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void iblib_put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void iblib_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void iblib_put_be64(uint8_t *p, uint64_t v)
{
	iblib_put_be32(p, (uint32_t)(v >> 32));
	iblib_put_be32(p + 4, (uint32_t)v);
}

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

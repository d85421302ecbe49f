/* SPDX-License-Identifier: MIT */
/*
 * Byte order, the one place for it: value conversions (cpu_to_be32 for a DMA descriptor word or a
 * doorbell) and unaligned loads/stores of big-endian ("network order": every InfiniBand, IPv4,
 * UDP, TCP, DHCP, DNS and TFTP field) and little-endian (boot protocols, ACPI) fields in a byte
 * buffer. The loads and stores go byte by byte, so a field at any offset of a packet is fine and
 * the compiler still turns them into one load plus a bswap on x86.
 *
 * Freestanding: only <stdint.h>; usable in the image, the hosted build and util/.
 */
#ifndef IBBOOT_BYTEORDER_H
#define IBBOOT_BYTEORDER_H

#include <stdint.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "ibboot is built for little-endian CPUs (x86_64); cpu_to_be*() would need no swap here"
#endif

static inline uint16_t cpu_to_be16(uint16_t v) { return __builtin_bswap16(v); }
static inline uint32_t cpu_to_be32(uint32_t v) { return __builtin_bswap32(v); }
static inline uint64_t cpu_to_be64(uint64_t v) { return __builtin_bswap64(v); }
static inline uint16_t be16_to_cpu(uint16_t v) { return __builtin_bswap16(v); }
static inline uint32_t be32_to_cpu(uint32_t v) { return __builtin_bswap32(v); }
static inline uint64_t be64_to_cpu(uint64_t v) { return __builtin_bswap64(v); }

/* ---- big-endian fields at any alignment ---- */

static inline uint16_t get_be16(const void *buf)
{
	const uint8_t *p = buf;

	return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

/* 24-bit fields: QPNs (IBA 9.2, 9.3) and the IPoIB link address's QPN (RFC 4391 §9.1.1). */
static inline uint32_t get_be24(const void *buf)
{
	const uint8_t *p = buf;

	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t get_be32(const void *buf)
{
	const uint8_t *p = buf;

	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t get_be64(const void *buf)
{
	const uint8_t *p = buf;

	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

static inline void put_be16(void *buf, uint16_t v)
{
	uint8_t *p = buf;

	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void put_be24(void *buf, uint32_t v)
{
	uint8_t *p = buf;

	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void put_be32(void *buf, uint32_t v)
{
	uint8_t *p = buf;

	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void put_be64(void *buf, uint64_t v)
{
	uint8_t *p = buf;

	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

/* ---- little-endian fields at any alignment (Linux boot protocol, multiboot, ACPI) ---- */

static inline uint16_t get_le16(const void *buf)
{
	const uint8_t *p = buf;

	return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

static inline uint32_t get_le32(const void *buf)
{
	const uint8_t *p = buf;

	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get_le64(const void *buf)
{
	const uint8_t *p = buf;

	return get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

static inline void put_le16(void *buf, uint16_t v)
{
	uint8_t *p = buf;

	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void put_le32(void *buf, uint32_t v)
{
	uint8_t *p = buf;

	put_le16(p, (uint16_t)v);
	put_le16(p + 2, (uint16_t)(v >> 16));
}

static inline void put_le64(void *buf, uint64_t v)
{
	uint8_t *p = buf;

	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

#endif

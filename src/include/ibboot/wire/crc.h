/* SPDX-License-Identifier: MIT */
/*
 * The two link-layer CRCs of an InfiniBand packet (IBA 7.8).
 *
 * ICRC (7.8.1), 32 bits: the CRC-32 of IEEE 802.3 (polynomial 0x04C11DB7, bit-reflected, seed
 * all ones, result inverted) over the packet from the first byte of the LRH to the last byte of
 * the payload (pad included), with the *variant* fields - those a switch or router may rewrite -
 * replaced by ones:
 *   - local packet (LNH = 2, BTH follows LRH): LRH:VL (the top nibble of byte 0);
 *   - global packet (LNH = 3, GRH present): the whole 8-byte LRH (a router rebuilds it), and
 *     GRH:TClass, GRH:FlowLabel, GRH:HopLmt;
 *   - always: BTH:Resv8a (BTH byte 4).
 * It is carried least significant byte first (like the Ethernet FCS of the same CRC).
 *
 * VCRC (7.8.2), 16 bits: polynomial 0x100B (x^16+x^12+x^3+x+1), bit-reflected (0xD008), seed
 * 0xFFFF, result inverted, over every byte from the LRH through the ICRC; recomputed on each
 * link. Carried least significant byte first as well.
 *
 * Raw packets (LNH 0/1) have no ICRC; the VCRC still covers them.
 */
#ifndef IBLIB_CRC_H
#define IBLIB_CRC_H

#include <stddef.h>
#include <stdint.h>

/* Plain CRC-32 (IEEE) and VCRC primitives, for incremental use and tests. `crc` is the running
 * register: start with 0xFFFFFFFF / 0xFFFF, invert at the end. */
uint32_t iblib_crc32_update(uint32_t crc, const uint8_t *p, size_t n);
uint16_t iblib_crc16_vcrc_update(uint16_t crc, const uint8_t *p, size_t n);

/*
 * ICRC of the packet `pkt` whose headers-plus-payload (LRH .. last payload/pad byte, *without*
 * the ICRC/VCRC) are `len` bytes. Returns the 32-bit value that goes on the wire (store it with
 * iblib_put_le32-style byte order: value & 0xff first). `pkt` is not modified.
 * Returns 0 and sets *err < 0 when the packet is too short to hold the headers its LNH claims
 * (err may be NULL).
 */
uint32_t iblib_icrc(const uint8_t *pkt, size_t len, int *err);

/* VCRC over `len` bytes (LRH .. ICRC inclusive). */
uint16_t iblib_vcrc(const uint8_t *pkt, size_t len);

/* Store/load a CRC in wire order (least significant byte first). */
static inline void iblib_put_icrc(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t iblib_get_icrc(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void iblib_put_vcrc(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline uint16_t iblib_get_vcrc(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

#endif

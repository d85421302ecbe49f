/* SPDX-License-Identifier: MIT */
/*
 * The Internet checksum (RFC 1071): IPv4 headers, ICMP, and UDP/TCP with their pseudo header.
 * One implementation for all of them, summing eight bytes at a time (RFC 1071 §4.1's "sum in
 * larger words, fold at the end"): a receive path verifies every byte of every datagram, so this
 * is the one loop over payload bytes that the stack runs per packet.
 */
#ifndef IBBOOT_CHECKSUM_H
#define IBBOOT_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/*
 * Adds len bytes to a running one's-complement sum and returns it folded to 16 bits, as the
 * value of the sum of big-endian 16-bit words (host order). Start with sum 0; a block may be
 * continued only after a block of even length (a 12-byte pseudo header, say), since the words
 * are counted from the start of each block. Any alignment of data is fine.
 */
uint16_t csum_partial(const void *data, size_t len, uint16_t sum);

/* The value to store (big-endian) in a checksum field that was zero while summing: the
 * complement of the sum. Over a block holding a correct checksum the result is 0. */
static inline uint16_t csum_finish(uint16_t sum)
{
	return (uint16_t)~sum;
}

/* csum_finish(csum_partial(data, len, 0)): the IPv4 header and ICMP checksum. */
uint16_t ip_checksum(const void *data, size_t len);

#endif

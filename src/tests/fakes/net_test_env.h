/* SPDX-License-Identifier: MIT */
/* Test-side view of net_test_env.c: the hand-moved clock, the captured console, and the
 * packet builders the fakes and tests inject with. */
#ifndef NET_TEST_ENV_H
#define NET_TEST_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern uint64_t test_now_ms;
extern unsigned test_clock_autostep;   /* each clock_ms() call advances the clock this much */
extern bool test_console_echo;   /* also print console output (set by IBCORE_TEST_VERBOSE) */
const char *test_console(void);
void test_console_clear(void);
/* Bytes dma_alloc handed out and dma_free has not taken back. */
uint64_t test_dma_live_bytes(void);
/* Fuzz targets set it: a large freed DMA block is reused by the next allocation of its size. */
extern bool test_dma_reuse;
bool test_console_has(const char *needle);
/* Writes the 4-byte IPoIB header for IPv4 and a 20-byte IPv4 header (TTL 64, no options, its
 * checksum) at pkt, as a peer on the wire would send; returns where the IPv4 payload starts. */
uint8_t *test_ipoib_ipv4(uint8_t *pkt, uint16_t total_len, uint16_t id, uint8_t proto,
			 uint32_t src, uint32_t dst);

/* A 20-byte IPv4 header (TTL 64, no options) for plen bytes of protocol proto, checksummed;
 * addresses in host order. */
void test_ipv4_header(uint8_t *h, uint32_t src, uint32_t dst, uint8_t proto, size_t plen);
/* An IPv4 + UDP datagram carrying len bytes of payload, both checksums filled in, at pkt (room
 * for 28 + len bytes). Returns its length. */
size_t test_udp_datagram(uint8_t *pkt, uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport,
			 const void *payload, size_t len);

#endif

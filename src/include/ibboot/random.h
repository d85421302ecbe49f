/* SPDX-License-Identifier: MIT */
/*
 * Unpredictable numbers for everything a machine on the fabric must not guess: DHCP xids, DNS ids,
 * UDP ports, TCP initial sequence numbers, the memory key, MAD transaction IDs.
 *
 * A ChaCha20 generator (RFC 8439 §2.3 block function) with fast key erasure: every block's first
 * 32 bytes replace the key, the other 32 are handed out, so a later look at memory does not reveal
 * earlier output. It is seeded from RDSEED and RDRAND where CPUID says the CPU has them, always
 * mixed with TSC jitter, and reseeded from the same sources after every RANDOM_RESEED_BLOCKS
 * blocks. random_init() says once on the console which sources are in use:
 *   "random: RDSEED+TSC", "random: RDRAND+TSC", "random: TSC jitter only (no RDRAND)" or
 *   "random: TSC jitter only (RDRAND failed)" (advertised, but no good value within the retries).
 */
#ifndef IBBOOT_RANDOM_H
#define IBBOOT_RANDOM_H

#include <ibboot/compiler.h>

#define RANDOM_RESEED_BLOCKS 1024u   /* 32 KiB of output between reseeds */

/* Gathers the seed and prints the source line; later calls do nothing. Every draw below calls it
 * first, so it need not be called explicitly (core main calls it early so that the line appears
 * under the banner). */
void random_init(void);
/* "RDSEED+TSC", ... as printed (after random_init). */
const char *random_source(void);

void random_bytes(void *buf, size_t len);
uint32_t random_u32(void);
uint64_t random_u64(void);
/* Uniform in [0, n) without modulo bias; n = 0 gives 0. */
uint32_t random_below(uint32_t n);

/* The ChaCha20 block function (RFC 8439 §2.3): 64 bytes of key stream (also the TCP ISN's keyed
 * function, RFC 6528 §3). */
void random_chacha20_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3],
			   uint8_t out[64]);

/* ---- the entropy sources, replaceable for tests ---- */
struct random_hw {
	bool (*has_rdseed)(void);            /* CPUID.(EAX=7,ECX=0):EBX[18] */
	bool (*has_rdrand)(void);            /* CPUID.1:ECX[30] */
	bool (*rdseed64)(uint64_t *v);       /* one attempt; false when the CPU set CF = 0 */
	bool (*rdrand64)(uint64_t *v);
	uint64_t (*cycles)(void);            /* a fast counter for jitter (the TSC on x86) */
};
struct random_stats {
	unsigned reseeds;                    /* after the initial seed */
	unsigned hw_failures;                /* attempts that came back with CF = 0 */
	unsigned hw_rejected;                /* values refused as stuck (repeated, all ones/zeros) */
	uint64_t blocks;                     /* ChaCha20 blocks generated */
};
/* Replaces the sources (NULL: the CPU's) and forgets all state: the next draw seeds afresh and
 * prints the source line again. */
void random_use_hw(const struct random_hw *hw);
void random_get_stats(struct random_stats *st);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * SHA-256 (FIPS 180-4 §6.2), incremental, for pinning downloaded images (`sha256 NAME HEX`).
 */
#ifndef IBBOOT_SHA256_H
#define IBBOOT_SHA256_H

#include <ibboot/compiler.h>

#define SHA256_DIGEST_LEN 32
#define SHA256_BLOCK_LEN  64

struct sha256_ctx {
	uint32_t h[8];
	uint64_t bytes;                    /* message length so far */
	uint8_t block[SHA256_BLOCK_LEN];   /* partial block */
	size_t fill;
};

void sha256_init(struct sha256_ctx *c);
void sha256_update(struct sha256_ctx *c, const void *data, size_t len);
void sha256_final(struct sha256_ctx *c, uint8_t digest[SHA256_DIGEST_LEN]);
void sha256(const void *data, size_t len, uint8_t digest[SHA256_DIGEST_LEN]);
/* 64 lowercase hex digits + NUL. */
void sha256_to_hex(const uint8_t digest[SHA256_DIGEST_LEN], char hex[2 * SHA256_DIGEST_LEN + 1]);
/* Parses 64 hex digits (either case); -EINVAL for any other length or a non-hex character. */
int sha256_from_hex(const char *hex, uint8_t digest[SHA256_DIGEST_LEN]);

#endif

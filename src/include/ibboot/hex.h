/* SPDX-License-Identifier: MIT */
/* Hexadecimal digits and byte strings: SHA-256 pins, DHCP client identifiers, HTTP chunk sizes. */
#ifndef IBBOOT_HEX_H
#define IBBOOT_HEX_H

#include <stddef.h>
#include <stdint.h>

/* The value of one hex digit (either case), or -1. */
int hex_digit(char c);

#define HEX_SEPARATORS 0x1u   /* accept one ':' or '-' after each byte ("ff:00:12") */

/*
 * Decodes a whole string of byte pairs ("ff0012", or with HEX_SEPARATORS "ff:00-12") into out.
 * Returns the number of bytes, or -EINVAL for an empty string, an odd digit count, a non-hex
 * character or more than size bytes.
 */
int hex_decode(const char *s, uint8_t *out, size_t size, unsigned flags);

/* Lowercase hex of n bytes, sep between bytes when non-zero, NUL-terminated: out needs
 * 2 * n + 1 bytes (3 * n with a separator). Returns out. */
char *hex_encode(const uint8_t *in, size_t n, char sep, char *out);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The few C string/memory functions ibboot uses. The image provides them (src/core/string.c); the
 * hosted build takes the host libc's, so sanitizers see every access.
 */
#ifndef IBBOOT_STRING_H
#define IBBOOT_STRING_H

#if __STDC_HOSTED__
#include <string.h>
#else
#include <stddef.h>
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
/* -ffreestanding keeps gcc from treating these as the standard functions: through the builtins
 * a copy or fill of a small constant size becomes a move or two instead of a call (string.c
 * defines the functions themselves, which the builtins still call for the rest). A copy of a
 * size known only at run time goes to string.c's memcpy in any case: at -Os gcc expands the
 * builtin inline as `rep movsb`, one pass of TCG's loop per byte, where memcpy moves quad
 * words (a 64 MiB HTTP fetch: 4.25 M guest instructions per MiB instead of ~3.1 M). */
#ifndef IBBOOT_STRING_C
#define memcpy(d, s, n) (__builtin_constant_p(n) ? __builtin_memcpy(d, s, n) : (memcpy)(d, s, n))
#define memset(d, c, n) __builtin_memset(d, c, n)
#define memcmp(a, b, n) __builtin_memcmp(a, b, n)
#define strlen(s) __builtin_strlen(s)
#define strcmp(a, b) __builtin_strcmp(a, b)
#endif
#endif

#endif

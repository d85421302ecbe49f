/* SPDX-License-Identifier: MIT */
/* Memory and string functions for the freestanding image (gcc may also emit calls to these).
 * Each is noinline: with LTO gcc otherwise copies their bodies into hundreds of callers
 * (4.5 KB of the image; 430 B packed). */
#define IBBOOT_STRING_C
#include <ibboot/string.h>

/* rep movsb/stosb: fast on every x86-64 since Ivy Bridge (ERMS), and tiny. */
/* Eight bytes per iteration, then the tail: on silicon rep movsb is as fast, but under QEMU's
 * TCG every iteration of a rep string instruction is one more pass through its loop, so the
 * quad-word form moves a received payload into the image in an eighth of the passes. */
__attribute__((noinline)) void *memcpy(void *dst, const void *src, size_t n)
{
	void *d = dst;
	size_t q = n / 8, r = n % 8;

	__asm__ volatile("rep movsq\n\t"
			 "mov %[r], %%rcx\n\t"
			 "rep movsb"
			 : "+D"(d), "+S"(src), "+c"(q) : [r] "r"(r) : "memory");
	return dst;
}

__attribute__((noinline)) void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d < s) {
		while (n--)
			*d++ = *s++;
	} else {
		while (n--)
			d[n] = s[n];
	}
	return dst;
}

__attribute__((noinline)) void *memset(void *dst, int c, size_t n)
{
	void *d = dst;

	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return dst;
}

__attribute__((noinline)) int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

__attribute__((noinline)) size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

__attribute__((noinline)) size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

__attribute__((noinline)) int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

__attribute__((noinline)) int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			break;
	}
	return 0;
}

__attribute__((noinline)) char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

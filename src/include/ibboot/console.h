/* SPDX-License-Identifier: MIT */
/*
 * Console output and formatting. Names carry a k prefix so the hosted build never shadows the host
 * libc's printf family.
 *
 * Formats: %d %i %u %x %X %o %c %s %p %% with flags '-' (left-justify), '0' (zero-pad), a width
 * (number or '*'), a precision for %s (".N" or ".*"), and length modifiers hh h l ll z t j.
 * %'u prints an IPv4 address, the uint32_t ipv4_ntoa takes (host byte order), as a dotted quad
 * (no width): gcc and clang check its argument as %u's, so no buffer and no ipv4_ntoa call.
 */
#ifndef IBBOOT_CONSOLE_H
#define IBBOOT_CONSOLE_H

#include <ibboot/compiler.h>

/* Formats into buf (always NUL-terminated when size > 0); returns the length the full output has. */
int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int ksnprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

/* Formats through a character sink; returns the number of characters produced. */
int kvformat(void (*sink)(void *ctx, char c), void *ctx, const char *fmt, va_list ap);

int kprintf(const char *fmt, ...) __printf(1, 2);
int kvprintf(const char *fmt, va_list ap);
/* The string at index n of a list of NUL-separated strings ("a\0b\0c"); n must be below their
 * number. A name table as one string: no table of pointers in the image. */
const char *str_nth(const char *list, unsigned n);
/* The same for an n that may be out of range: the list ends with an empty string, and past it
 * the answer is dflt. */
const char *str_nth_or(const char *list, unsigned n, const char *dflt);
void kputs(const char *s);   /* no newline added */
void kputc(char c);

/* Reads one line from the console, echoing it; returns its length, or -1 when input has ended. */
int console_getline(char *buf, size_t size);
/* True once console input has ended: the consoles (core shell, script console) then stop
 * prompting, so one end of input never yields two prompts. */
bool console_input_closed(void);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The console's recent output, kept for the boot report: a fixed ring of the last
 * CONSOLE_LOG_BYTES characters written through kputc (carriage returns left out). Recording a
 * character is a store and an index update: nothing is allocated and nothing can fail in the
 * print path. Reading copies the last lines out, oldest first.
 */
#ifndef IBBOOT_CONSOLE_LOG_H
#define IBBOOT_CONSOLE_LOG_H

#include <ibboot/compiler.h>

#define CONSOLE_LOG_BYTES 4096u   /* ~50 lines of 80 columns */

/* Records one character (kputc calls it). */
void console_log_char(char c);
/* Copies the last max_lines lines (at most; fewer when the ring holds fewer, a line cut by the
 * ring's start counts as one) into buf, each ending in '\n', NUL-terminated. Returns the length,
 * or 0 when nothing was printed yet. size 0 copies nothing. */
size_t console_log_lines(char *buf, size_t size, unsigned max_lines);
/* Forgets everything recorded (tests). */
void console_log_reset(void);

#endif

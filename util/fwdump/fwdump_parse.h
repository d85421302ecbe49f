/* SPDX-License-Identifier: MIT */
/*
 * Parser of the FWDUMP text format (src/include/ibboot/fwdump.h) for the host decoder. Input may
 * be a bare dump, a boot report or a whole console log: lines before a FWDUMP header (and between
 * dumps) are skipped, but inside a dump every line must follow the format, or the parse fails
 * with the line number and what is wrong. Nothing is allocated; the caller gets each segment
 * through a callback.
 */
#ifndef FWDUMP_PARSE_H
#define FWDUMP_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <ibboot/fwdump.h>

#define FWDUMP_NAME_MAX 48

struct fwdump_segment {
	char name[FWDUMP_NAME_MAX];
	unsigned ndwords;
	uint32_t w[FWDUMP_MAX_SEG_DWORDS];
	char attrs[FWDUMP_LINE_MAX + 1];   /* "key=value key=value" as written */
	unsigned line;                     /* where its SEG line was */
};

struct fwdump_callbacks {
	void (*begin)(void *ctx, const char *device, const char *attrs);
	void (*segment)(void *ctx, const struct fwdump_segment *seg);
	void (*end)(void *ctx, const char *device, unsigned segments);
	void *ctx;
};

/* Parses text[0..len). Returns the number of complete dumps (>= 1), or -1 with a message in err
 * ("line 7: segment 'qp': 61 words, its SEG line says 62"); "no FWDUMP header" when there is
 * none. */
int fwdump_parse(const char *text, size_t len, const struct fwdump_callbacks *cb, char *err,
		 size_t err_size);

/* The value of attribute `key` in a segment's or header's attributes, copied into buf; 0, or -1
 * when absent. */
int fwdump_attr(const char *attrs, const char *key, char *buf, size_t size);

#endif

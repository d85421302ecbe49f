/* SPDX-License-Identifier: MIT */
/*
 * The firmware-dump text format ("FWDUMP", after the segment-list shape of firmware dumps): what
 * the `fwdump` command prints, what the boot report carries, and what util/fwdump decodes.
 * Line-oriented and self-delimiting, so a dump survives being cut out of a console log:
 *
 *   FWDUMP 1 <device> key=value...            a device's dump begins (format version 1)
 *   # free text                                a comment for the reader; decoders skip it
 *   SEG <name> <dwords> key=value...           a segment: name, length in 32-bit words, the
 *   +0000: 0123abcd 00000000 ...               driver's view as attributes, then the words,
 *   ...                                        FWDUMP_WORDS_PER_LINE a line, each line led by
 *   END <name>                                 its byte offset; END repeats the name
 *   FWEND <device> segments=<n>                the device's dump ends; n counts its SEGs
 *
 * Words are hexadecimal, exactly eight digits. Values of attributes contain no blanks; numbers
 * are decimal or 0x-prefixed hexadecimal. Context words are the big-endian dwords of the
 * firmware's output mailbox, in order, so a decoder rebuilds the bytes and reads PRM fields with
 * the generated accessors. Segments (the driver's README lists their attributes): pci (config
 * header), hcr (the command register), catas (the catastrophic-error buffer), memory, eq, cq, qp
 * (the queue's driver view + QUERY_EQ/QUERY_CQ/QUERY_QP context when the device answers), port.
 */
#ifndef IBBOOT_FWDUMP_H
#define IBBOOT_FWDUMP_H

#include <ibboot/compiler.h>

#define FWDUMP_FORMAT_VERSION  1
#define FWDUMP_WORDS_PER_LINE  8
#define FWDUMP_MAX_SEG_DWORDS  1024   /* a decoder refuses longer segments */
#define FWDUMP_LINE_MAX        320    /* longest line a writer produces, newline excluded */

/* Where dump lines go: the console, or a report buffer. `line` has no trailing newline. */
struct fwdump_out {
	void (*line)(void *ctx, const char *line);
	void *ctx;
};

#endif

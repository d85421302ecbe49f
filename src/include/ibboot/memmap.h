/* SPDX-License-Identifier: MIT */
/*
 * Memory maps as firmware hands them over (e820 and its kin) are allowed to be messy: unsorted,
 * overlapping, a reserved range inside a RAM one. memmap_sanitize() turns one into what a kernel
 * and our allocator may trust: sorted, no overlaps, adjacent ranges of one type merged, and where
 * ranges overlap the more restrictive type wins (any non-RAM type over RAM; among the others the
 * higher type number, as Linux's e820 sanitizer does). Memory is never made RAM by it.
 */
#ifndef IBBOOT_MEMMAP_H
#define IBBOOT_MEMMAP_H

#include <ibboot/platform.h>

/* The largest map handled (the e820 table of the Linux zero page holds 128 entries). */
#define MEMMAP_SANITIZE_MAX 128

/* Rewrites map[0..n) in place; returns the new count (<= max). When the clean map needs more than
 * max entries, the smallest RAM ranges are left out (RAM not used is safe; reserved memory
 * reported as RAM is not). n and max are capped at MEMMAP_SANITIZE_MAX. */
unsigned memmap_sanitize(struct plat_mem_region *map, unsigned n, unsigned max);

#endif

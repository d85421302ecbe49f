/* SPDX-License-Identifier: MIT */
/*
 * Ordered link-time tables, after iPXE's __table_entry: a file puts an entry into a table, and
 * whatever is linked in takes part, without a central list naming it. Hooks (hooks.h) and console
 * commands (shell.h) are such tables; a program that links none of a table's entries sees an
 * empty table.
 *
 * How: every entry of table T goes into the ELF section "ibboot_tbl_T" (a C identifier, so GNU ld
 * defines __start_ibboot_tbl_T / __stop_ibboot_tbl_T for the hosted program and the tests; the
 * image's linker script defines them itself and KEEPs the sections against --gc-sections). The
 * linker places entries in link order, which must not matter, so each entry carries its order
 * key and iteration walks the entries in key order: by `order`, then by `name` (so entries
 * sharing an order come alphabetically), then by address (only for exact duplicates). The walk
 * looks for the next entry on every step — quadratic, but tables hold tens of entries, and it
 * needs no sorting pass, no writable copy and no linker-script support in the test builds.
 *
 * An entry type starts with the key:  struct x { int order; const char *name; ... };
 * Entries are 8-byte aligned and their size is a multiple of 8, so a section is an array.
 *
 *   TABLE_DECLARE(const struct x, xs);                        in the table's header
 *   const struct x x_foo TABLE_ENTRY(xs) = { 10, "foo", ... }; anywhere
 *   const struct x *e;  table_for_each(e, xs) use(e);           in key order
 *
 * Everything here is in the header, so walking a table needs no particular object linked.
 * A program that takes the firmware from a static archive (the unit tests) holds only the entries
 * of the archive members it pulls in for other reasons; it names the entries it wants (e.g.
 * SHELL_REQUIRE_COMMAND in shell.h).
 */
#ifndef IBBOOT_TABLES_H
#define IBBOOT_TABLES_H

#include <ibboot/compiler.h>
#include <ibboot/string.h>

#define TABLE_START(table) __start_ibboot_tbl_##table
#define TABLE_END(table)   __stop_ibboot_tbl_##table

/* Weak: a program without entries has no section, and then both bounds are NULL. */
#define TABLE_DECLARE(type, table)                                                        \
	extern type TABLE_START(table)[] __attribute__((weak));                           \
	extern type TABLE_END(table)[] __attribute__((weak))

/* `used` keeps an entry nobody names; the image's linker script KEEPs the section. The explicit
 * alignment also stops the compiler from aligning big objects further (which would leave gaps
 * in the array). */
#define TABLE_ENTRY(table) __attribute__((used, section("ibboot_tbl_" #table), aligned(8)))

/* Compares the keys of two entries of one table (key layout at the given offsets). */
static inline int table_key_cmp(const char *a, const char *b, size_t order_off, size_t name_off)
{
	int oa = *(const int *)(const void *)(a + order_off);
	int ob = *(const int *)(const void *)(b + order_off);
	int c;

	if (oa != ob)
		return oa < ob ? -1 : 1;
	c = strcmp(*(const char *const *)(const void *)(a + name_off),
		   *(const char *const *)(const void *)(b + name_off));
	if (c)
		return c;
	return a < b ? -1 : a > b;
}

/* The entry after `cur` in key order (the first when cur is NULL), or NULL at the end. */
static inline const void *table_next(const void *start, const void *end, size_t size,
				     size_t order_off, size_t name_off, const void *cur)
{
	const char *best = NULL;

	if (!start || !end)
		return NULL;
	for (const char *p = start; p < (const char *)end; p += size) {
		if (cur && table_key_cmp(p, cur, order_off, name_off) <= 0)
			continue;
		if (!best || table_key_cmp(p, best, order_off, name_off) < 0)
			best = p;
	}
	return best;
}

/* Walks table `table` in key order; e is a pointer to the entry type. */
#define table_for_each(e, table)                                                          \
	for ((e) = table_next(TABLE_START(table), TABLE_END(table), sizeof(*(e)),        \
			      offsetof(__typeof__(*(e)), order),                          \
			      offsetof(__typeof__(*(e)), name), NULL);                    \
	     (e);                                                                         \
	     (e) = table_next(TABLE_START(table), TABLE_END(table), sizeof(*(e)),        \
			      offsetof(__typeof__(*(e)), order),                          \
			      offsetof(__typeof__(*(e)), name), (e)))

/* How many entries the table holds. */
#define table_count(table)                                                                \
	(TABLE_START(table) ? (size_t)(TABLE_END(table) - TABLE_START(table)) : 0)

#endif

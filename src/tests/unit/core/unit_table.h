/* SPDX-License-Identifier: MIT */
/* A table only the unit tests fill, from two translation units (test_tables.c, tables_other.c),
 * and one nobody fills. */
#ifndef UNIT_TABLE_H
#define UNIT_TABLE_H

#include <ibboot/tables.h>

struct unit_entry {
	int order;
	const char *name;
	int value;
};

TABLE_DECLARE(const struct unit_entry, unit_order);
TABLE_DECLARE(const struct unit_entry, unit_empty);

#define UNIT_ENTRY(id, order_, value_)                                                    \
	static const struct unit_entry unit_entry_##id TABLE_ENTRY(unit_order) =          \
		{ (order_), #id, (value_) }

#endif

/* SPDX-License-Identifier: MIT */
/* The second translation unit of the table-order test: entries that sort between and around
 * test_tables.c's, whichever of the two files the linker places first. */
#include "unit_table.h"

UNIT_ENTRY(twenty, 20, 2);
UNIT_ENTRY(thirty, 30, 3);
UNIT_ENTRY(b_tie, 25, 26);   /* same order as test_tables.c's a_tie: the name decides */

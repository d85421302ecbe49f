/* SPDX-License-Identifier: MIT */
/* Cleaning a firmware memory map: overlapping, nested, adjacent and unsorted ranges. */
#include "test.h"
#include <ibboot/memmap.h>

#define RAM PLAT_MEM_RAM
#define RSV PLAT_MEM_RESERVED
#define ACPI PLAT_MEM_ACPI
#define NVS PLAT_MEM_NVS

static bool map_is(const struct plat_mem_region *m, unsigned n,
		   const struct plat_mem_region *want, unsigned nwant)
{
	if (n != nwant)
		return false;
	for (unsigned i = 0; i < n; i++)
		if (m[i].base != want[i].base || m[i].len != want[i].len || m[i].type != want[i].type)
			return false;
	return true;
}

/* A reserved range inside RAM splits it: the reserved bytes are never RAM afterwards. */
TEST(memmap_reserved_inside_ram_splits_it)
{
	struct plat_mem_region m[8] = {
		{ 0x100000, 0x7ff00000, RAM },
		{ 0x20000000, 0x1000000, RSV },
	};
	static const struct plat_mem_region want[] = {
		{ 0x100000, 0x1ff00000, RAM },
		{ 0x20000000, 0x1000000, RSV },
		{ 0x21000000, 0x5f000000, RAM },
	};

	CHECK(map_is(m, memmap_sanitize(m, 2, 8), want, 3));
}

/* Partial overlaps on either side, unsorted input: reserved wins, order is by address. */
TEST(memmap_partial_overlaps_unsorted)
{
	struct plat_mem_region m[8] = {
		{ 0xf0000, 0x20000, RSV },         /* straddles the end of low RAM and beyond */
		{ 0x0, 0xa0000, RAM },
		{ 0x100000, 0x100000, RAM },
		{ 0x80000, 0x30000, ACPI },        /* covers the top of low RAM */
	};
	unsigned n = memmap_sanitize(m, 4, 8);

	CHECK_EQ(n, 4);
	CHECK(m[0].base == 0 && m[0].len == 0x80000 && m[0].type == RAM);
	CHECK(m[1].base == 0x80000 && m[1].len == 0x30000 && m[1].type == ACPI);
	/* 0xb0000..0xf0000 was covered by nothing: left out. */
	CHECK(m[2].base == 0xf0000 && m[2].len == 0x20000 && m[2].type == RSV);
	CHECK(m[3].base == 0x110000 && m[3].len == 0xf0000 && m[3].type == RAM);
}

/* Nested non-RAM types: the higher type number wins where they overlap (as Linux's sanitizer). */
TEST(memmap_nested_types_higher_wins)
{
	struct plat_mem_region m[8] = {
		{ 0x1000, 0x9000, RSV },
		{ 0x3000, 0x2000, NVS },
		{ 0x0, 0x10000, RAM },
	};
	static const struct plat_mem_region want[] = {
		{ 0x0, 0x1000, RAM },
		{ 0x1000, 0x2000, RSV },
		{ 0x3000, 0x2000, NVS },
		{ 0x5000, 0x5000, RSV },
		{ 0xa000, 0x6000, RAM },
	};

	CHECK(map_is(m, memmap_sanitize(m, 3, 8), want, 5));
}

/* Adjacent and duplicated ranges of one type merge; adjacent ones of different types do not. */
TEST(memmap_adjacent_merge_and_duplicates)
{
	struct plat_mem_region m[8] = {
		{ 0x0, 0x1000, RAM },
		{ 0x1000, 0x1000, RAM },
		{ 0x1000, 0x1000, RAM },           /* duplicate */
		{ 0x2000, 0x1000, RSV },
		{ 0x3000, 0x1000, RSV },
		{ 0x4000, 0x0, RSV },              /* empty: dropped */
	};
	static const struct plat_mem_region want[] = {
		{ 0x0, 0x2000, RAM },
		{ 0x2000, 0x2000, RSV },
	};

	CHECK(map_is(m, memmap_sanitize(m, 6, 8), want, 2));
}

/* A clean map comes out as it went in; a range reaching the top of the address space is kept. */
TEST(memmap_clean_map_unchanged_and_top_of_memory)
{
	struct plat_mem_region m[8] = {
		{ 0x0, 0x9fc00, RAM },
		{ 0x9fc00, 0x400, RSV },
		{ 0x100000, 0x3ff00000, RAM },
		{ 0xfffffffffffff000ull, 0x2000, RSV },   /* wraps: clamped at the top */
	};

	CHECK_EQ(memmap_sanitize(m, 4, 8), 4);
	CHECK(m[0].len == 0x9fc00 && m[1].type == RSV && m[2].len == 0x3ff00000);
	CHECK_EQ(m[3].base, 0xfffffffffffff000ull);
	CHECK_EQ(m[3].len, 0xfffull);
}

/* Too many pieces for the table: RAM is given up (smallest first), reserved ranges never. */
TEST(memmap_out_of_room_drops_ram_not_reserved)
{
	struct plat_mem_region m[8] = {
		{ 0x0, 0x100000, RAM },
		{ 0x10000, 0x1000, RSV },
		{ 0x30000, 0x1000, RSV },
	};
	/* clean: RAM 0-0x10000, RSV, RAM 0x11000-0x30000, RSV, RAM 0x31000-0x100000 (5); room 4 */
	unsigned n = memmap_sanitize(m, 3, 4);
	unsigned rsv = 0;

	CHECK_EQ(n, 4);
	for (unsigned i = 0; i < n; i++)
		rsv += m[i].type == RSV;
	CHECK_EQ(rsv, 2);
	CHECK(m[0].base == 0x10000 && m[0].type == RSV);  /* the smallest RAM piece (64 KiB) went */
	CHECK(m[1].base == 0x11000 && m[1].type == RAM);
	CHECK(m[3].base == 0x31000 && m[3].type == RAM);
}

/* SPDX-License-Identifier: MIT */
/*
 * Link-time tables (tables.h), the hooks and the shell commands built on them: entries from
 * different translation units come out in key order whatever the link order, an empty table
 * walks zero times, hooks start in their order and commands are found and listed by key.
 */
#include "test.h"
#include "unit_table.h"
#include <ibboot/hooks.h>
#include <ibboot/shell.h>
#include <ibboot/errno.h>

/* Defined out of order on purpose; tables_other.c holds 20, 25 (b_tie) and 30. */
UNIT_ENTRY(forty, 40, 4);
UNIT_ENTRY(ten, 10, 1);
UNIT_ENTRY(a_tie, 25, 25);

TEST(tables_walk_in_key_order_across_translation_units)
{
	static const int want[] = { 1, 2, 25, 26, 3, 4 };
	const struct unit_entry *e, *prev = NULL;
	unsigned n = 0, inversions = 0;

	CHECK_EQ(table_count(unit_order), 6);
	table_for_each(e, unit_order) {
		if (n < 6)
			CHECK_EQ(e->value, want[n]);
		n++;
	}
	CHECK_EQ(n, 6);
	/* Each file's entries lie together in the section, so the linker's order has at least one
	 * pair out of key order: the walk, not the link, put them in order. */
	for (e = TABLE_START(unit_order); e < TABLE_END(unit_order); prev = e, e++)
		if (prev && prev->order > e->order)
			inversions++;
	CHECK(inversions > 0);
}

TEST(tables_empty_table_walks_zero_times)
{
	const struct unit_entry *e;
	unsigned n = 0;

	CHECK_EQ(table_count(unit_empty), 0);
	table_for_each(e, unit_empty)
		n++;
	CHECK_EQ(n, 0);
}

static char started[8];
static unsigned n_started, polls;

static void start_late(void) { started[n_started++] = 'L'; }
static void start_early(void) { started[n_started++] = 'E'; }
static void poll_count(void) { polls++; }
/* Declared late-first; the order key, not the declaration or link order, decides. */
IBBOOT_HOOK(unit_late, HOOK_ORDER_AUTOBOOT, start_late, NULL);
IBBOOT_HOOK(unit_early, HOOK_ORDER_NET, start_early, poll_count);
IBBOOT_HOOK(unit_poll_only, HOOK_ORDER_IMAGE, NULL, poll_count);

TEST(hooks_start_in_order_and_poll_every_subsystem)
{
	n_started = polls = 0;
	hooks_start();
	CHECK_EQ(n_started, 2);   /* the NULL start was skipped */
	CHECK_EQ(started[0], 'E');
	CHECK_EQ(started[1], 'L');
	hooks_poll();
	hooks_poll();
	CHECK_EQ(polls, 4);       /* two hooks poll, twice each */
}

static int runs, last_argc;

static int cmd_unit_probe(int argc, char **argv __attribute__((unused)))
{
	runs++;
	last_argc = argc;
	return 42;
}
SHELL_COMMAND(unit_probe, 9999, "a command only the unit tests link", cmd_unit_probe);
SHELL_REQUIRE_COMMAND(help);
SHELL_REQUIRE_COMMAND(echo);

TEST(shell_commands_are_found_by_name)
{
	char line[] = "unit_probe a b";

	runs = 0;
	CHECK(shell_find_command("unit_probe") == &shell_command_unit_probe);
	CHECK(shell_find_command("unit_prob") == NULL);
	CHECK_EQ(shell_run_line(line), 42);
	CHECK_EQ(runs, 1);
	CHECK_EQ(last_argc, 3);
}

/* `help` lists this walk: help first, then by group and name, the test's command last. */
TEST(shell_commands_walk_in_group_then_name_order)
{
	const struct shell_command *c, *prev = NULL;
	unsigned n = 0;

	table_for_each(c, shell_commands) {
		if (n == 0)
			CHECK_STR(c->name, "help");
		if (prev)
			CHECK(prev->order < c->order ||
			      (prev->order == c->order && strcmp(prev->name, c->name) < 0));
		prev = c;
		n++;
	}
	CHECK_EQ(n, table_count(shell_commands));
	CHECK(prev && strcmp(prev->name, "unit_probe") == 0);
}

/* SPDX-License-Identifier: MIT */
/* The link-time tables of hooks.h: a subsystem registered here is started, polled and reachable
 * from the shell without core code naming it. */
#include "test.h"
#include <ibboot/hooks.h>
#include <ibboot/shell.h>
#include <ibboot/errno.h>

static int starts, polls, runs, last_argc;

static void test_subsys_start(void) { starts++; }
static void test_subsys_poll(void) { polls++; }
IBBOOT_HOOK(unit_test_subsys, test_subsys_start, test_subsys_poll);
IBBOOT_HOOK(unit_test_poll_only, NULL, test_subsys_poll);

static int cmd_unit_probe(int argc, char **argv __attribute__((unused)))
{
	runs++;
	last_argc = argc;
	return 42;
}

static const struct shell_command unit_cmds[] = {
	{ "unit-probe", "a command only the unit tests link", cmd_unit_probe },
};
static const unsigned unit_cmds_count = 1;
SHELL_COMMAND_SET(unit_test, unit_cmds, unit_cmds_count);

static unsigned listed;
static void count_listed(const struct shell_command *c)
{
	if (strcmp(c->name, "unit-probe") == 0)
		listed++;
}

TEST(hooks_start_and_poll_every_registered_subsystem)
{
	starts = polls = 0;
	hooks_start();
	CHECK_EQ(starts, 1);
	hooks_poll();
	hooks_poll();
	CHECK_EQ(polls, 4);   /* two hooks poll, twice each; the NULL start was skipped */
}

TEST(hooks_extra_commands_reach_the_shell)
{
	char line[] = "unit-probe a b";

	runs = 0;
	CHECK(shell_find_extra("unit-probe") == &unit_cmds[0]);
	CHECK(shell_find_extra("unit-prob") == NULL);
	CHECK_EQ(shell_run_line(line), 42);
	CHECK_EQ(runs, 1);
	CHECK_EQ(last_argc, 3);
	listed = 0;
	shell_for_each_extra(count_listed);
	CHECK_EQ(listed, 1);
}

/* SPDX-License-Identifier: MIT */
/* Boot command-line parsing and command dispatch. */
#include "test.h"
#include <ibboot/shell.h>
#include <ibboot/errno.h>

/* The commands these tests type (src/cmd/core_cmd.c). */
SHELL_REQUIRE_COMMAND(echo);
SHELL_REQUIRE_COMMAND(help);

TEST(shell_cmdline_get)
{
	char v[32];

	CHECK_EQ(cmdline_get("quiet ibboot.cmd=pci;mem console=ttyS0", "ibboot.cmd", v, sizeof(v)), 7);
	CHECK_STR(v, "pci;mem");
	CHECK_EQ(cmdline_get("ibboot.cmdx=1 ibboot.cmd=", "ibboot.cmd", v, sizeof(v)), 0);
	CHECK_STR(v, "");
	CHECK_EQ(cmdline_get("xibboot.cmd=pci", "ibboot.cmd", v, sizeof(v)), -ENOENT);
	CHECK_EQ(cmdline_get("", "ibboot.cmd", v, sizeof(v)), -ENOENT);
	CHECK_EQ(cmdline_get(NULL, "ibboot.cmd", v, sizeof(v)), -ENOENT);
	CHECK_EQ(cmdline_get("  a=1   b=22  ", "b", v, sizeof(v)), 2);
	CHECK_STR(v, "22");
	CHECK_EQ(cmdline_get("a=0123456789", "a", v, 5), -ERANGE);
}

TEST(shell_runs_commands)
{
	char line1[] = "echo unit test", line2[] = "no-such-command", line3[] = "   ";

	CHECK_EQ(shell_run_line(line1), 0);
	CHECK_EQ(shell_run_line(line2), -ENOENT);
	CHECK_EQ(shell_run_line(line3), 0);
	CHECK_EQ(shell_run_cmdline("ibboot.cmd=echo+a,echo+b;help"), 3);
	CHECK_EQ(shell_run_cmdline("root=/dev/sda"), 0);
}

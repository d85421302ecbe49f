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

/* The one number parser of the commands: decimal or 0x-hex, bounded, nothing else accepted. */
TEST(shell_parse_num_bounds)
{
	uint64_t v = 77;

	CHECK(shell_parse_num("0", 9, &v) && v == 0);
	CHECK(shell_parse_num("3600000", 3600000, &v) && v == 3600000);
	CHECK(shell_parse_num("0x9f000", 0xa0000, &v) && v == 0x9f000);
	CHECK(shell_parse_num("0XfF", 255, &v) && v == 255);
	CHECK(shell_parse_num("18446744073709551615", UINT64_MAX, &v) && v == UINT64_MAX);
	v = 77;
	CHECK(!shell_parse_num("3600001", 3600000, &v));
	CHECK(!shell_parse_num("18446744073709551616", UINT64_MAX, &v));
	CHECK(!shell_parse_num("0xa", 9, &v));       /* one digit above max */
	CHECK(!shell_parse_num("", 9, &v));
	CHECK(!shell_parse_num("0x", 9, &v));
	CHECK(!shell_parse_num("12a", 1000, &v));
	CHECK(!shell_parse_num("-1", 1000, &v));
	CHECK(!shell_parse_num("ff", 1000, &v));     /* hex only after 0x */
	CHECK_EQ(v, 77);                             /* untouched on failure */
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

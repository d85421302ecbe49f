/* SPDX-License-Identifier: MIT */
/* The HCA self-test over the Hermon driver: selftest [--port N]. */
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/shell.h>
#include <ibboot/string.h>
#include "../drivers/infiniband/hermon_selftest.h"

/* "N" with N in 1..9; 0 when it is not such a number. */
static unsigned selftest_port_arg(const char *s)
{
	uint64_t n = 0;

	shell_parse_num(s, 9, &n);
	return (unsigned)n;
}

static int cmd_selftest(int argc, char **argv)
{
	unsigned port = 0;

	if (argc == 3 && !strcmp(argv[1], "--port"))
		port = selftest_port_arg(argv[2]);
	else if (argc == 2 && !strncmp(argv[1], "--port=", 7))
		port = selftest_port_arg(argv[1] + 7);
	if (argc != 1 && port == 0)
		return shell_usage(argv[0]);
	return hermon_selftest_all(port);
}
SHELL_COMMAND(selftest, CMD_ORDER_IB,
	      "[--port N]: HCA self-test (default: first ACTIVE port, or 1)",
	      cmd_selftest);

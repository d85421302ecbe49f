/* SPDX-License-Identifier: MIT */
/* `report [URL]`: sends the boot report now (report.h says where it goes when URL is left out). */
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/report.h>
#include <ibboot/shell.h>

static int cmd_report(int argc, char **argv)
{
	if (argc > 2)
		return shell_usage(argv[0]);
	return report_send(argc == 2 ? argv[1] : NULL, "requested");
}
SHELL_COMMAND(report, CMD_ORDER_HTTP,
	      "[URL]: send boot report (http:// POST, tftp:// write; default ${"
	      REPORT_URL_SETTING "}, else next-server)",
	      cmd_report);

/* SPDX-License-Identifier: MIT */
/*
 * `set NAME VALUE` / `set NAME` (clears) for the plain shell, i.e. the boot command line's
 * ibboot.cmd=set+ib-pkey+0x8001 (scripts and the script console have their own `set`, which
 * also joins several words). Settings are the table src/net/dhcp_settings.c keeps.
 */
#include <ibboot/shell.h>
#include <ibboot/console.h>
#include <ibboot/dhcp.h>
#include <ibboot/errno.h>

static int cmd_set(int argc, char **argv)
{
	int rc;

	if (argc != 2 && argc != 3) {
		return shell_usage(argv[0]);
	}
	rc = setting_set(argv[1], argc == 3 ? argv[2] : NULL);
	if (rc)
		kprintf("set %s: %s\n", argv[1], rc == -ERANGE ? "name or value too long" :
			"settings table full");
	return rc;
}
SHELL_COMMAND(set, CMD_ORDER_CORE, "NAME [VALUE]: set/clear a setting, e.g. ib-pkey", cmd_set);

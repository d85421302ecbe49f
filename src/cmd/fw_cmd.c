/* SPDX-License-Identifier: MIT */
/* HCA firmware commands over the Hermon driver: fwdump. */
#include <ibboot/shell.h>
#include "../drivers/infiniband/hermon_ib.h"

static int cmd_fwdump(int argc __unused, char **argv __unused)
{
	return hermon_fwdump_all();
}
SHELL_COMMAND(fwdump, CMD_ORDER_IB,
	      "dump HCA error buffer, queues", cmd_fwdump);

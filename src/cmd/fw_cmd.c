/* SPDX-License-Identifier: MIT */
/* HCA firmware commands over the Hermon driver: fwdump. */
#include <ibboot/shell.h>
#include "../drivers/infiniband/hermon_ib.h"

static int cmd_fwdump(int argc __unused, char **argv __unused)
{
	return hermon_fwdump_all();
}
SHELL_COMMAND(fwdump, CMD_ORDER_IB,
	      "HCA catastrophic-error buffer and the driver's view of every queue", cmd_fwdump);

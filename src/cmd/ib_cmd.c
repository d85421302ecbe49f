/* SPDX-License-Identifier: MIT */
/* InfiniBand commands over the IB core: ibstat. */
#include <ibboot/shell.h>
#include <ibboot/ib_ulp.h>

static int cmd_ibstat(int argc __unused, char **argv __unused)
{
	ibstat_print();
	return 0;
}
SHELL_COMMAND(ibstat, CMD_ORDER_IB, "InfiniBand port state, LID, SM LID, GID, P_Key, rate, MTU",
	      cmd_ibstat);

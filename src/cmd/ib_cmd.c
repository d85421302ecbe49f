/* SPDX-License-Identifier: MIT */
/* InfiniBand commands over the IB core: ibstat. */
#include <ibboot/shell.h>
#include <ibboot/console.h>
#include <ibboot/ib_mad.h>
#include <ibboot/ib_ulp.h>

static int cmd_ibstat(int argc __unused, char **argv __unused)
{
	ibstat_print();
	/* The GSI agent's answers: accepted, and dropped as forged (an outstanding TID from the
	 * wrong LID/QP, method or attribute) or unmatched (no such TID outstanding). */
	for (struct ib_device *dev = ib_devices(); dev; dev = dev->next) {
		for (unsigned p = 0; p < dev->num_ports; p++) {
			const struct ib_mad_agent *a = dev->port[p].mad;

			if (a)
				kprintf("%s port %u: MAD answers %u accepted, %u forged dropped, "
					"%u unmatched\n", dev->name, dev->port[p].num, a->stats.responses,
					a->stats.forged, a->stats.unmatched);
		}
	}
	return 0;
}
SHELL_COMMAND(ibstat, CMD_ORDER_IB, "IB ports: state, LIDs, GID, P_Key, rate, MTU",
	      cmd_ibstat);

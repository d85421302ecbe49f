/* SPDX-License-Identifier: MIT */
/*
 * The network stack's place in the firmware: IPoIB starts once the drivers have probed (it binds
 * to every IB device they registered), the stack is polled from every idle loop, and its commands
 * (ibstat, ifstat, ipconfig, ping) join the shell. Linked into the image and the hosted program,
 * not into core's unit tests.
 */
#include <ibboot/hooks.h>
#include <ibboot/ipoib.h>
#include <ibboot/net.h>
#include <ibboot/net_commands.h>

IBBOOT_HOOK(net, ipoib_init, net_poll);
SHELL_COMMAND_SET(net, net_commands, net_commands_count);

/* SPDX-License-Identifier: MIT */
/*
 * The network stack's place in the firmware: IPoIB starts once the drivers have probed (it binds
 * to every IB port they registered), and the stack is polled from every idle loop.
 */
#include <ibboot/hooks.h>
#include <ibboot/ipoib.h>
#include <ibboot/net.h>

IBBOOT_HOOK(net, HOOK_ORDER_NET, ipoib_init, net_poll);

/* SPDX-License-Identifier: MIT */
/* Link wait and ping over a network device, for the console commands (src/cmd). */
#ifndef IBBOOT_NET_COMMANDS_H
#define IBBOOT_NET_COMMANDS_H

#include <ibboot/net.h>

/* Polls until nd's link is up (progress every 10 s); -ETIMEDOUT after timeout_ms. */
int net_wait_link(struct net_device *nd, unsigned timeout_ms);
/* Sends count echo requests, one every timeout_ms, counting replies as they come (late ones
 * too); returns replies (> 0) or -ETIMEDOUT when none came back. */
int net_ping(struct net_device *nd, uint32_t dst, unsigned count, unsigned timeout_ms);

#endif

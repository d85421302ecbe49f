/* SPDX-License-Identifier: MIT */
/* The progress line the download commands (tftp, http) print: bytes so far, of how many when the
 * server said, and the rate since the start. */
#ifndef IBBOOT_CMD_PROGRESS_H
#define IBBOOT_CMD_PROGRESS_H

#include <ibboot/compiler.h>
#include <stdint.h>

struct net_device;
/* The device called `name`, or (no name) ib0, else the first; NULL, and says so, when none. */
struct net_device *pick_netdev(const char *name);

/* The download commands' progress (their sinks' callback): "PROTO: N / T KiB (P%) R KB/s", or
 * without the total when the server gave none, at most once a second and at the end. */
struct cmd_progress {
	const char *proto;
	uint64_t start_ms, last_ms;
};
void cmd_progress_start(struct cmd_progress *p, const char *proto);
void cmd_progress(void *ctx, uint64_t bytes, uint64_t total);

#endif

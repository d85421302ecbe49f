/* SPDX-License-Identifier: MIT */
/* The progress line the download commands (tftp, http) print: bytes so far, of how many when the
 * server said, and the rate since the start. */
#ifndef IBBOOT_CMD_PROGRESS_H
#define IBBOOT_CMD_PROGRESS_H

#include <ibboot/console.h>
#include <ibboot/compiler.h>

struct net_device;
/* The device called `name`, or (no name) ib0, else the first; NULL, and says so, when none. */
struct net_device *pick_netdev(const char *name);

static inline void cmd_print_progress(const char *proto, uint64_t bytes, uint64_t total, uint64_t ms)
{
	unsigned long long rate = ms ? bytes / ms : 0;

	if (total)
		kprintf("%s: %llu / %llu KiB (%u%%) %llu KB/s\n", proto,
			(unsigned long long)(bytes >> 10), (unsigned long long)(total >> 10),
			(unsigned)(bytes * 100 / total), rate);
	else
		kprintf("%s: %llu KiB %llu KB/s\n", proto, (unsigned long long)(bytes >> 10), rate);
}

#endif

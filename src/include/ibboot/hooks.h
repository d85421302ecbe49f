/* SPDX-License-Identifier: MIT */
/*
 * Start-up and idle hooks: a subsystem (the network stack, the image fetchers, the autoboot) joins
 * the firmware by putting an entry into the link-time table `hooks` (tables.h), without core code
 * naming it. Whatever is linked in takes part; core's unit tests link none and get an empty table.
 */
#ifndef IBBOOT_HOOKS_H
#define IBBOOT_HOOKS_H

#include <ibboot/compiler.h>
#include <ibboot/tables.h>

struct ibboot_hook {
	int order;             /* table key: when it starts, see below */
	const char *name;
	void (*start)(void);   /* once, in order; may be NULL */
	void (*poll)(void);    /* from every idle loop (console input, delays), in order; may be NULL */
};
_Static_assert(sizeof(struct ibboot_hook) % 8 == 0, "table entries must tile an array");

TABLE_DECLARE(const struct ibboot_hook, hooks);

/* Start order. Before the first hook, main has scanned PCI and bound the drivers, so every
 * device (and every IB port a driver registered) exists. */
enum hook_order {
	HOOK_ORDER_NET = 300,        /* IPoIB binds to the registered IB ports; the stack polls */
	HOOK_ORDER_IMAGE = 400,      /* image fetchers and loaders register */
	HOOK_ORDER_AUTOBOOT = 900,   /* the default script: needs everything above */
};

/* The symbol is global, so two hooks of one name in one program fail to link. */
#define IBBOOT_HOOK(id, order_, start_fn, poll_fn)                                        \
	extern const struct ibboot_hook ibboot_hook_##id;                                 \
	const struct ibboot_hook ibboot_hook_##id TABLE_ENTRY(hooks) =                    \
		{ (order_), #id, (start_fn), (poll_fn) }

/* Runs every start hook in order. */
void hooks_start(void);
/* Runs every poll hook in order. */
void hooks_poll(void);
/* One turn of an idle loop: the platform's devices, the poll hooks, a CPU pause. */
void hooks_idle(void);
/* Waits ms milliseconds in such a loop (devices and the network keep running). */
void hooks_idle_ms(uint64_t ms);

#endif

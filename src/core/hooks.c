/* SPDX-License-Identifier: MIT */
/* Running the hooks of hooks.h in their order. */
#include <ibboot/hooks.h>
#include <ibboot/platform.h>
#include <ibboot/timer.h>

void hooks_start(void)
{
	const struct ibboot_hook *h;

	table_for_each(h, hooks)
		if (h->start)
			h->start();
}

/*
 * hooks_poll runs from every idle loop, on the download's hot path, while the ordered walk is
 * quadratic in the table's size. The table is fixed at link time, so the poll functions are put
 * in key order once and called from that list; a table with more of them than the list holds is
 * walked every time instead (same order, only slower).
 */
#define HOOKS_POLL_MAX 16

static void (*poll_fns[HOOKS_POLL_MAX])(void);
static unsigned num_poll_fns;
static enum { POLL_LIST_UNBUILT, POLL_LIST_BUILT, POLL_LIST_TOO_SMALL } poll_list;

static void hooks_poll_walk(void)
{
	const struct ibboot_hook *h;

	table_for_each(h, hooks)
		if (h->poll)
			h->poll();
}

static void hooks_poll_build(void)
{
	const struct ibboot_hook *h;

	poll_list = POLL_LIST_BUILT;
	table_for_each(h, hooks) {
		if (!h->poll)
			continue;
		if (num_poll_fns == HOOKS_POLL_MAX) {
			poll_list = POLL_LIST_TOO_SMALL;
			return;
		}
		poll_fns[num_poll_fns++] = h->poll;
	}
}

void hooks_idle(void)
{
	plat_poll();
	hooks_poll();
	plat_cpu_relax();
}

void hooks_idle_ms(uint64_t ms)
{
	for (uint64_t end = clock_ms() + ms; clock_ms() < end;)
		hooks_idle();
}

void hooks_poll(void)
{
	if (poll_list == POLL_LIST_UNBUILT)
		hooks_poll_build();
	if (poll_list == POLL_LIST_TOO_SMALL) {
		hooks_poll_walk();
		return;
	}
	for (unsigned i = 0; i < num_poll_fns; i++)
		poll_fns[i]();
}

/* SPDX-License-Identifier: MIT */
/* Running the hooks of hooks.h in their order. */
#include <ibboot/hooks.h>

void hooks_start(void)
{
	const struct ibboot_hook *h;

	table_for_each(h, hooks)
		if (h->start)
			h->start();
}

void hooks_poll(void)
{
	const struct ibboot_hook *h;

	table_for_each(h, hooks)
		if (h->poll)
			h->poll();
}

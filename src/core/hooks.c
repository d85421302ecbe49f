/* SPDX-License-Identifier: MIT */
/* Walking the link-time tables of hooks.h. */
#include <ibboot/hooks.h>
#include <ibboot/string.h>

/* Bounds of the tables: the image's linker script defines them; in hosted programs GNU ld does
 * for any section with a C name, and leaves them 0 (weak) when nothing was linked in. */
extern const struct ibboot_hook __start_ibboot_hooks[] __attribute__((weak));
extern const struct ibboot_hook __stop_ibboot_hooks[] __attribute__((weak));
extern const struct shell_command_set __start_ibboot_shell_sets[] __attribute__((weak));
extern const struct shell_command_set __stop_ibboot_shell_sets[] __attribute__((weak));

void hooks_start(void)
{
	for (const struct ibboot_hook *h = __start_ibboot_hooks; h && h < __stop_ibboot_hooks; h++)
		if (h->start)
			h->start();
}

void hooks_poll(void)
{
	for (const struct ibboot_hook *h = __start_ibboot_hooks; h && h < __stop_ibboot_hooks; h++)
		if (h->poll)
			h->poll();
}

const struct shell_command *shell_find_extra(const char *name)
{
	for (const struct shell_command_set *s = __start_ibboot_shell_sets;
	     s && s < __stop_ibboot_shell_sets; s++)
		for (unsigned i = 0; i < *s->count; i++)
			if (strcmp(s->cmds[i].name, name) == 0)
				return &s->cmds[i];
	return NULL;
}

void shell_for_each_extra(void (*fn)(const struct shell_command *c))
{
	for (const struct shell_command_set *s = __start_ibboot_shell_sets;
	     s && s < __stop_ibboot_shell_sets; s++)
		for (unsigned i = 0; i < *s->count; i++)
			fn(&s->cmds[i]);
}

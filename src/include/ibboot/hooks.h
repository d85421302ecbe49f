/* SPDX-License-Identifier: MIT */
/*
 * Link-time tables that let a subsystem (the network stack, later the image loaders) join the
 * firmware without core code naming it: start-up/idle hooks and sets of shell commands. Whatever
 * is linked in takes part; the unit tests link core alone and get empty tables.
 */
#ifndef IBBOOT_HOOKS_H
#define IBBOOT_HOOKS_H

#include <ibboot/compiler.h>
#include <ibboot/shell.h>

struct ibboot_hook {
	const char *name;
	void (*start)(void);   /* once, after PCI drivers have probed; may be NULL */
	void (*poll)(void);    /* from every idle loop (console input, delays); may be NULL */
};

#define IBBOOT_HOOK(id, start_fn, poll_fn)                                                \
	static const struct ibboot_hook ibboot_hook_##id                                  \
		__attribute__((used, section("ibboot_hooks"), aligned(8))) =              \
		{ #id, start_fn, poll_fn }

struct shell_command_set {
	const struct shell_command *cmds;
	const unsigned *count;
};

#define SHELL_COMMAND_SET(id, cmds_array, count_var)                                      \
	static const struct shell_command_set shell_command_set_##id                      \
		__attribute__((used, section("ibboot_shell_sets"), aligned(8))) =         \
		{ cmds_array, &(count_var) }

void hooks_start(void);
void hooks_poll(void);
/* The command named `name` among the linked-in command sets, or NULL. */
const struct shell_command *shell_find_extra(const char *name);
/* Calls fn for every linked-in extra command (for `help`). */
void shell_for_each_extra(void (*fn)(const struct shell_command *c));

#endif

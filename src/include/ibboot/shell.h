/* SPDX-License-Identifier: MIT */
/*
 * The command loop on the console — the seed of the boot script language. Commands come from the
 * console, or non-interactively from the boot command line: `ibboot.cmd=pci;mem;poweroff` runs those
 * commands in order (';' or ',' separates them) before the interactive loop.
 */
#ifndef IBBOOT_SHELL_H
#define IBBOOT_SHELL_H

#include <ibboot/compiler.h>

struct shell_command {
	const char *name;
	const char *help;
	int (*run)(int argc, char **argv);
};

/* Runs one command line ("pci", "mem"); returns the command's result, -ENOENT if unknown. */
int shell_run_line(char *line);
/* Runs the commands of the ibboot.cmd= option of `cmdline`, if any; returns how many ran. */
int shell_run_cmdline(const char *cmdline);
/* The value of option `key` (e.g. "ibboot.cmd") in a space-separated command line, copied to
 * buf; returns its length, or -ENOENT when absent, -ERANGE if it does not fit. */
int cmdline_get(const char *cmdline, const char *key, char *buf, size_t size);
/* Reads and runs commands until input ends. */
void shell_loop(void);

#endif

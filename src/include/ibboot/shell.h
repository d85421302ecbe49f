/* SPDX-License-Identifier: MIT */
/*
 * The command loop on the console — the seed of the boot script language. Commands come from the
 * console, or non-interactively from the boot command line: `ibboot.cmd=pci;mem;poweroff` runs
 * those commands in order (';' or ',' separates them) before the interactive loop.
 *
 * Commands are entries of the link-time table `shell_commands` (tables.h): a file under src/cmd
 * says SHELL_COMMAND(name, order, help, fn) and the command exists wherever that file is linked.
 */
#ifndef IBBOOT_SHELL_H
#define IBBOOT_SHELL_H

#include <ibboot/compiler.h>
#include <ibboot/tables.h>

struct shell_command {
	int order;              /* table key: the command's group, see below */
	const char *name;       /* "NAME\0HELP": the help text follows the name's NUL (shell_help) */
	int (*run)(int argc, char **argv);
};
_Static_assert(sizeof(struct shell_command) % 8 == 0, "table entries must tile an array");

TABLE_DECLARE(const struct shell_command, shell_commands);

/* Where a group of commands comes in `help`; within a group, commands come by name. */
enum shell_command_order {
	CMD_ORDER_HELP = 0,
	CMD_ORDER_CORE = 100,         /* console and machine: echo, sleep, uptime, reboot, ... */
	CMD_ORDER_MEMORY = 200,       /* mem, memcheck, modules, exec64 */
	CMD_ORDER_PCI = 300,          /* pci, mmio */
	CMD_ORDER_IB = 400,           /* ibstat, fwdump */
	CMD_ORDER_NET = 500,          /* ifstat, ipconfig, ping */
	CMD_ORDER_DHCP = 600,         /* dhcp, nslookup, tftp */
	CMD_ORDER_HTTP = 700,         /* http */
	CMD_ORDER_IMAGE = 800,        /* kernel, initrd, chain, boot, ... */
	CMD_ORDER_IMAGE_ALIAS = 810,  /* iPXE's other names for image commands */
};

/* A command's one-line help ("SYNTAX: what it does"), stored after its name. */
const char *shell_help(const struct shell_command *c);

/* Defines command `id` (its name as typed). The symbol is global, so two commands of one name
 * in one program fail to link. */
#define SHELL_COMMAND(id, order_, help_, fn)                                               \
	extern const struct shell_command shell_command_##id;                              \
	const struct shell_command shell_command_##id TABLE_ENTRY(shell_commands) =        \
		{ (order_), #id "\0" help_, (fn) }

/* Links command `id` into a program that takes the firmware from a static library (the unit
 * tests): the linker pulls an archive member only for a symbol someone names, and nothing names
 * a table entry. The program that names it gets it; the image and the hosted program link every
 * object and need no such line. */
#define SHELL_REQUIRE_COMMAND(id)                                                          \
	extern const struct shell_command shell_command_##id;                              \
	__attribute__((used)) static const struct shell_command *const                     \
		shell_require_##id = &shell_command_##id

/* The command called `name` among those linked in, or NULL. */
const struct shell_command *shell_find_command(const char *name);
/* Runs command argv[0] with its words; -ENOENT (and says so) if there is no such command. */
int shell_run(int argc, char **argv);
/* argv[0..argc) joined by single spaces into buf; -ERANGE when they do not fit (buf then holds
 * the words that did). */
int shell_join(int argc, char **argv, char *buf, size_t size);
/* Prints "usage: NAME SYNTAX", SYNTAX being the command's help up to its ": "; returns -EINVAL. */
int shell_usage(const char *name);
/* A number, decimal or 0x-hex, of one or more digits and at most max: true and *v set;
 * otherwise false and *v untouched. */
bool shell_parse_num(const char *s, uint64_t max, uint64_t *v);

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

/* SPDX-License-Identifier: MIT */
/*
 * Scripts in iPXE's syntax (a subset, so existing scripts work): a "#!ipxe" first line, one
 * command per line, ${name} expanded from the settings (${ip}, ${next-server}, ${filename}, ...),
 * "..." and '...' quoting and \ escapes, `a || b` (b when a failed) and `a && b` (b when a
 * succeeded), `:label` lines with `goto label`, `exit [N]`, `#` comments. As in iPXE a line that
 * still fails after its || alternatives ends the script with that error.
 */
#ifndef IBBOOT_SCRIPT_H
#define IBBOOT_SCRIPT_H

#include <ibboot/compiler.h>
#include <ibboot/config.h>   /* SCRIPT_DEFAULT, the script run at start */

#define SCRIPT_LINE_MAX  512
#define SCRIPT_MAX_ARGS  32
#define SCRIPT_MAX_DEPTH 4      /* chain to a script from a script, at most this deep */
#define SCRIPT_MAGIC     "#!ipxe"

struct script_ops {
	/* Runs one command (argv expanded and unquoted); 0 or a negative error. */
	int (*run)(void *ctx, int argc, char **argv);
	/* The value of a setting into buf: its length, or negative when unset. */
	int (*getvar)(void *ctx, const char *name, char *buf, size_t size);
};

struct script_limits {
	unsigned max_steps;     /* lines executed before giving up (0 = no limit: goto loops) */
	bool interactive;       /* a console line: a failure is the command's own message only */
};

/* True when data starts with "#!ipxe" (then a newline, space or the end). */
bool script_is_script(const uint8_t *data, size_t len);
/* Runs a script held in text[0..len). 0 when it ran to its end or `exit 0`; otherwise the error
 * of the line that failed (printed with its line number) or the `exit N` status as -N. */
int script_exec(const char *text, size_t len, const struct script_ops *ops, void *ctx,
		const struct script_limits *lim);
/* Prints "[   3.214] <message>" — seconds since ibboot started — on its own line. */
void boot_phase(const char *fmt, ...) __printf(1, 2);

/* Runs a script through the firmware's commands and settings (image build only). */
int script_run_firmware(const char *text, size_t len);
/* The console in script syntax (${...}, ||, &&, quotes) until input ends. */
void script_console(void);

#endif

/* SPDX-License-Identifier: MIT */
/* Command-line parsing and the command loop (see shell.h). */
#include <ibboot/shell.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/hex.h>
#include <ibboot/string.h>

#define SHELL_MAX_ARGS 16
#define SHELL_LINE 256

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static int split_args(char *line, char **argv, int max)
{
	int argc = 0;

	for (char *p = line; *p;) {
		while (is_space(*p))
			*p++ = '\0';
		if (!*p)
			break;
		if (argc == max)
			return -ERANGE;
		argv[argc++] = p;
		while (*p && !is_space(*p))
			p++;
	}
	return argc;
}

int shell_run_line(char *line)
{
	char *argv[SHELL_MAX_ARGS];
	int argc = split_args(line, argv, SHELL_MAX_ARGS);

	if (argc < 0) {
		kprintf("too many arguments (max %d)\n", SHELL_MAX_ARGS);
		return argc;
	}
	return argc ? shell_run(argc, argv) : 0;
}

const struct shell_command *shell_find_command(const char *name)
{
	const struct shell_command *c;

	table_for_each(c, shell_commands)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

int shell_run(int argc, char **argv)
{
	const struct shell_command *c = shell_find_command(argv[0]);

	if (c)
		return c->run(argc, argv);
	kprintf("%s: unknown command (try 'help')\n", argv[0]);
	return -ENOENT;
}

int shell_join(int argc, char **argv, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < argc; i++) {
		size_t l = strlen(argv[i]);

		if (len + (len ? 1 : 0) + l >= size)
			return -ERANGE;
		if (len)
			buf[len++] = ' ';
		memcpy(buf + len, argv[i], l + 1);
		len += l;
	}
	return 0;
}

const char *shell_help(const struct shell_command *c)
{
	return c->name + strlen(c->name) + 1;
}

int shell_usage(const char *name)
{
	const struct shell_command *c = shell_find_command(name);
	const char *h = c ? shell_help(c) : "";
	int n = 0;

	while (h[n] && !(h[n] == ':' && h[n + 1] == ' '))
		n++;
	kprintf("usage: %s %.*s\n", name, n, h);
	return -EINVAL;
}

bool shell_parse_num(const char *s, uint64_t max, uint64_t *v)
{
	unsigned base = 10;
	uint64_t n = 0;

	if (s[0] == '0' && (s[1] | 0x20) == 'x') {
		base = 16;
		s += 2;
	}
	if (!*s)
		return false;
	for (; *s; s++) {
		int d = hex_digit(*s);

		if (d < 0 || (unsigned)d >= base || (unsigned)d > max ||
		    n > (max - (unsigned)d) / base)
			return false;
		n = n * base + (unsigned)d;
	}
	*v = n;
	return true;
}

int cmdline_get(const char *cmdline, const char *key, char *buf, size_t size)
{
	size_t klen = strlen(key);

	for (const char *p = cmdline; p && *p;) {
		while (is_space(*p))
			p++;
		const char *tok = p;
		while (*p && !is_space(*p))
			p++;
		if ((size_t)(p - tok) > klen && strncmp(tok, key, klen) == 0 && tok[klen] == '=') {
			size_t vlen = (size_t)(p - tok) - klen - 1;

			if (vlen + 1 > size)
				return -ERANGE;
			memcpy(buf, tok + klen + 1, vlen);
			buf[vlen] = '\0';
			return (int)vlen;
		}
	}
	return -ENOENT;
}

int shell_run_cmdline(const char *cmdline)
{
	char cmds[SHELL_LINE];
	int ran = 0, len = cmdline_get(cmdline, "ibboot.cmd", cmds, sizeof(cmds));

	if (len == -ERANGE)
		kprintf("ibboot.cmd= over %d chars; ignored\n", SHELL_LINE - 1);
	if (len <= 0)
		return 0;
	for (char *p = cmds; *p;) {
		char *cmd = p;

		while (*p && *p != ';' && *p != ',')
			p++;
		if (*p)
			*p++ = '\0';
		/* The command line cannot carry spaces, so '+' separates a command's arguments. */
		for (char *q = cmd; *q; q++)
			if (*q == '+')
				*q = ' ';
		kprintf("ibboot> %s\n", cmd);
		shell_run_line(cmd);
		ran++;
	}
	return ran;
}

void shell_loop(void)
{
	char line[SHELL_LINE];

	while (!console_input_closed()) {
		kputs("ibboot> ");
		if (console_getline(line, sizeof(line)) < 0)
			return;
		shell_run_line(line);
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * The script interpreter (see script.h). Syntax facts follow iPXE's documentation of its
 * scripting language (commands, settings expansion, || and &&, goto/labels, exit); the code is
 * our own. Every line is bounded (SCRIPT_LINE_MAX, SCRIPT_MAX_ARGS) and every step counted, so an
 * untrusted script can fail but never overrun or (with a step limit) loop forever.
 */
#include <ibboot/script.h>
#include <ibboot/console.h>
#include <ibboot/shell.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>

bool script_is_script(const uint8_t *data, size_t len)
{
	size_t m = sizeof(SCRIPT_MAGIC) - 1;

	if (len < m || memcmp(data, SCRIPT_MAGIC, m) != 0)
		return false;
	return len == m || data[m] == '\n' || data[m] == '\r' || data[m] == ' ' || data[m] == '\t';
}

struct parser {
	char *out;
	size_t used, size;
	const char *why;
};

static bool put(struct parser *p, char c)
{
	if (p->used + 1 >= p->size) {
		p->why = "line too long after ${...} expansion";
		return false;
	}
	p->out[p->used++] = c;
	return true;
}

/* ${name}: the setting's value, or nothing when it is unset (as iPXE). */
static const char *expand(struct parser *p, const char *s, const struct script_ops *ops,
			  void *ctx)
{
	char name[64], val[SCRIPT_LINE_MAX];
	size_t n = 0;

	for (s += 2; *s && *s != '}'; s++) {
		if (n + 1 >= sizeof(name)) {
			p->why = "setting name in ${...} longer than 63 characters";
			return NULL;
		}
		name[n++] = *s;
	}
	if (*s != '}') {
		p->why = "unterminated ${";
		return NULL;
	}
	name[n] = '\0';
	int len = ops && ops->getvar ? ops->getvar(ctx, name, val, sizeof(val)) : -ENOENT;
	for (int i = 0; i < len; i++)
		if (!put(p, val[i]))
			return NULL;
	return s + 1;
}

/* The words of one command (split_commands has cut the line at its || and &&), ${...} expanded,
 * quotes and backslashes taken off, into argv (pointing into `store`). Returns argc (0 for an
 * empty command) or -EINVAL with *why. */
static int parse_words(const char *s, char *store, size_t store_size, char **argv,
		       const struct script_ops *ops, void *ctx, const char **why)
{
	struct parser p = { store, 0, store_size, NULL };
	int nargs = 0;
	bool in_word = false;
	char quote = 0;

#define FAIL(msg) do { p.why = (msg); goto fail; } while (0)
	while (*s) {
		char c = *s;

		if (!quote && (c == ' ' || c == '\t')) {
			if (in_word && !put(&p, '\0'))
				goto fail;
			in_word = false;
			s++;
			continue;
		}
		if (!in_word) {
			if (nargs == SCRIPT_MAX_ARGS)
				FAIL("too many words on one line");
			argv[nargs++] = p.out + p.used;
			in_word = true;
		}
		if (quote != '\'' && c == '$' && s[1] == '{') {
			s = expand(&p, s, ops, ctx);
			if (!s)
				goto fail;
			continue;
		}
		if (!quote && (c == '"' || c == '\'')) {
			quote = c;
		} else if (quote && c == quote) {
			quote = 0;
		} else if (c == '\\' && quote != '\'') {
			if (!s[1])
				FAIL("'\\' at the end of the line");
			if (!put(&p, *++s))
				goto fail;
		} else if (!put(&p, c)) {
			goto fail;
		}
		s++;
	}
	if (quote)
		FAIL(quote == '"' ? "unterminated \"" : "unterminated '");
	if (in_word && !put(&p, '\0'))
		goto fail;
	return nargs;
fail:
	*why = p.why;
	return -EINVAL;
#undef FAIL
}

/*
 * Cuts a line at the || and && outside quotes, without expanding anything: each command is
 * expanded only when it runs, so `dhcp && chain ${filename}` sees the file name dhcp just set
 * (as in iPXE). Returns the number of commands, or -EINVAL with *why.
 */
static int split_commands(char *line, char **cmds, char *ops_after, int max, const char **why)
{
	int n = 0;
	char quote = 0;

	cmds[n] = line;
	for (char *p = line; *p; p++) {
		if (*p == '\\' && quote != '\'' && p[1]) {
			p++;
		} else if (!quote && (*p == '"' || *p == '\'')) {
			quote = *p;
		} else if (quote && *p == quote) {
			quote = 0;
		} else if (!quote && ((p[0] == '|' && p[1] == '|') || (p[0] == '&' && p[1] == '&'))) {
			if (n + 1 == max) {
				*why = "too many || and && on one line";
				return -EINVAL;
			}
			ops_after[n] = *p;
			*p++ = '\0';
			cmds[++n] = p + 1;
		}
	}
	ops_after[n++] = 0;
	for (int i = 0; i < n; i++) {
		const char *c = cmds[i];

		while (*c == ' ' || *c == '\t')
			c++;
		if (!*c && n > 1) {
			*why = i == 0 ? "'||' or '&&' without a command before it" :
					"'||' or '&&' without a command after it";
			return -EINVAL;
		}
	}
	return n;
}

/* One line of the script as [start, end) in the text. */
static bool next_line(const char *text, size_t len, size_t *pos, size_t *start, size_t *end)
{
	if (*pos >= len)
		return false;
	*start = *pos;
	while (*pos < len && text[*pos] != '\n')
		(*pos)++;
	*end = *pos;
	if (*pos < len)
		(*pos)++;
	if (*end > *start && text[*end - 1] == '\r')
		(*end)--;
	return true;
}

/* Position just after the line ":label", or -ENOENT. */
static long find_label(const char *text, size_t len, const char *label)
{
	size_t pos = 0, a, b, n = strlen(label);

	while (next_line(text, len, &pos, &a, &b))
		if (b - a == n + 1 && text[a] == ':' && memcmp(text + a + 1, label, n) == 0)
			return (long)pos;
	return -ENOENT;
}

static bool parse_exit_code(const char *s, int *code)
{
	uint64_t v;

	if (!shell_parse_num(s, 100000, &v))
		return false;
	*code = (int)v;
	return true;
}

int script_exec(const char *text, size_t len, const struct script_ops *ops, void *ctx,
		const struct script_limits *lim)
{
	enum { MAX_CMDS = 8 };
	char line[SCRIPT_LINE_MAX + 1], store[2 * SCRIPT_LINE_MAX];
	char *argv[SCRIPT_MAX_ARGS], ops_after[MAX_CMDS];
	size_t pos = 0, a, b;
	unsigned lineno = 0, steps = 0;

	/* Reject what cannot be a text script before running any of it. */
	for (size_t i = 0; i < len; i++)
		if (text[i] == '\0') {
			kprintf("script: NUL byte at offset %zu — not a text script\n", i);
			return -EINVAL;
		}
	while (next_line(text, len, &pos, &a, &b)) {
		const char *why;
		int rc = 0;

		lineno = 0;   /* recomputed below: gotos move around */
		for (size_t i = 0; i < a; i++)
			lineno += text[i] == '\n';
		lineno++;
		if (lim && lim->max_steps && ++steps > lim->max_steps) {
			kprintf("script: stopped after %u lines (a goto loop?)\n", lim->max_steps);
			return -ECANCELED;
		}
		if (b - a > SCRIPT_LINE_MAX) {
			kprintf("script line %u: longer than %d characters\n", lineno,
				SCRIPT_LINE_MAX);
			return -ERANGE;
		}
		memcpy(line, text + a, b - a);
		line[b - a] = '\0';
		if (line[0] == '#' || line[0] == ':')
			continue;   /* comment, "#!ipxe", label */
		char *cmds[MAX_CMDS], shown[SCRIPT_LINE_MAX + 1];
		memcpy(shown, line, b - a + 1);   /* for the error message: split cuts `line` */
		int ncmd = split_commands(line, cmds, ops_after, MAX_CMDS, &why);
		if (ncmd < 0) {
			kprintf("script line %u: %s\n", lineno, why);
			return ncmd;
		}
		bool jumped = false;
		for (int i = 0; i < ncmd; i++) {
			/* a || b runs b only after a failure; a && b only after a success. */
			if (i > 0 && ((ops_after[i - 1] == '|' && rc == 0) ||
				      (ops_after[i - 1] == '&' && rc != 0)))
				continue;
			int argc = parse_words(cmds[i], store, sizeof(store), argv, ops, ctx, &why);

			if (argc < 0) {
				kprintf("script line %u: %s\n", lineno, why);
				return argc;
			}
			if (argc == 0)
				continue;   /* an empty line */
			char **cmd = argv;
			if (strcmp(cmd[0], "goto") == 0) {
				long to = argc == 2 ? find_label(text, len, cmd[1]) : -EINVAL;

				if (to < 0) {
					kprintf("script line %u: goto %s: no such label\n", lineno,
						argc == 2 ? cmd[1] : "(needs one label)");
					return (int)to;
				}
				pos = (size_t)to;
				jumped = true;
				break;
			}
			if (strcmp(cmd[0], "exit") == 0) {
				int code = 0;

				if (argc > 2 || (argc == 2 && !parse_exit_code(cmd[1], &code))) {
					kprintf("script line %u: usage: exit [N]\n", lineno);
					return -EINVAL;
				}
				return -code;
			}
			rc = ops->run(ctx, argc, cmd);
		}
		if (!jumped && rc != 0) {
			if (lim && lim->interactive)
				return rc;
			kprintf("script line %u: '%s' failed (%s); script stopped\n", lineno, shown,
				ib_strerror(rc));
			return rc;
		}
	}
	return 0;
}

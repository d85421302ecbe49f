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
		p->why = "expanded line too long";
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
			p->why = "${} name over 63 chars";
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

/* The words of one command, up to the first || or && outside quotes (*end: there, or the
 * line's end), ${...} expanded (to nothing when ops is NULL), quotes and backslashes taken off,
 * into argv (pointing into `store`). Returns argc (0 for an empty command) or -EINVAL with *why. */
static int parse_words(const char *s, const char **end, char *store, size_t store_size,
		       char **argv, const struct script_ops *ops, void *ctx, const char **why)
{
	struct parser p = { store, 0, store_size, NULL };
	int nargs = 0;
	bool in_word = false;
	char quote = 0;

#define FAIL(msg) do { p.why = (msg); goto fail; } while (0)
	for (; *s; s++) {
		char c = *s;

		if (!quote && (c == '|' || c == '&') && s[1] == c)
			break;
		if (!quote && (c == ' ' || c == '\t')) {
			if (in_word && !put(&p, '\0'))
				goto fail;
			in_word = false;
			continue;
		}
		if (!in_word) {
			if (nargs == SCRIPT_MAX_ARGS)
				FAIL("too many words");
			argv[nargs++] = p.out + p.used;
			in_word = true;
		}
		if (quote != '\'' && c == '$' && s[1] == '{') {
			s = expand(&p, s, ops, ctx);
			if (!s)
				goto fail;
			s--;
			continue;
		}
		if (!quote && (c == '"' || c == '\'')) {
			quote = c;
		} else if (quote && c == quote) {
			quote = 0;
		} else if (c == '\\' && quote != '\'') {
			if (!s[1])
				FAIL("'\\' at end of line");
			if (!put(&p, *++s))
				goto fail;
		} else if (!put(&p, c)) {
			goto fail;
		}
	}
	if (quote)
		FAIL(quote == '"' ? "unterminated \"" : "unterminated '");
	if (in_word && !put(&p, '\0'))
		goto fail;
	*end = s;
	return nargs;
fail:
	*why = p.why;
	return -EINVAL;
#undef FAIL
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

int script_exec(const char *text, size_t len, const struct script_ops *ops, void *ctx,
		const struct script_limits *lim)
{
	enum { MAX_CMDS = 8 };
	char line[SCRIPT_LINE_MAX + 1], store[2 * SCRIPT_LINE_MAX];
	char *argv[SCRIPT_MAX_ARGS];
	size_t pos = 0, a, b;
	unsigned lineno = 0, steps = 0;

	/* Reject what cannot be a text script before running any of it. */
	for (size_t i = 0; i < len; i++)
		if (text[i] == '\0') {
			kprintf("script: NUL at offset %zu: not text\n", i);
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
			kprintf("script line %u: over %d chars\n", lineno,
				SCRIPT_LINE_MAX);
			return -ERANGE;
		}
		memcpy(line, text + a, b - a);
		line[b - a] = '\0';
		if (line[0] == '#' || line[0] == ':')
			continue;   /* comment, "#!ipxe", label */
		/* The whole line's syntax first, cut at its || and && without expanding anything:
		 * each command is expanded only when it runs, so `dhcp && chain ${filename}` sees
		 * the file name dhcp just set (as in iPXE). */
		const char *cmds[MAX_CMDS], *end;
		int ncmd = 0;
		for (const char *c = line;; c = end + 2) {
			int argc = parse_words(c, &end, store, sizeof(store), argv, NULL, NULL, &why);

			if (argc == 0 && (ncmd || *end))
				why = ncmd ? "'||'/'&&' with no command after" :
					     "'||'/'&&' with no command before";
			else if (ncmd == MAX_CMDS)
				why = "too many || and &&";
			else if (argc >= 0)
				why = NULL;
			if (argc < 0 || why) {
				kprintf("script line %u: %s\n", lineno, why);
				return -EINVAL;
			}
			cmds[ncmd++] = c;
			if (!*end)
				break;
		}
		bool jumped = false;
		for (int i = 0; i < ncmd; i++) {
			/* a || b runs b only after a failure; a && b only after a success. */
			if (i > 0 && (cmds[i][-2] == '|') == (rc == 0))
				continue;
			int argc = parse_words(cmds[i], &end, store, sizeof(store), argv, ops, ctx,
					       &why);

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
				uint64_t code = 0;

				if (argc > 2 || (argc == 2 && !shell_parse_num(cmd[1], 100000, &code))) {
					kprintf("script line %u: usage: exit [N]\n", lineno);
					return -EINVAL;
				}
				return -(int)code;
			}
			rc = ops->run(ctx, argc, cmd);
		}
		if (!jumped && rc != 0) {
			if (lim && lim->interactive)
				return rc;
			kprintf("script line %u: '%s' failed (%s); stopped\n", lineno, line,
				ib_strerror(rc));
			return rc;
		}
	}
	return 0;
}

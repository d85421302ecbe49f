/* SPDX-License-Identifier: MIT */
/* FWDUMP text parser (fwdump_parse.h). */
#include "fwdump_parse.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const char *p, *end;
	unsigned lineno;
	char line[FWDUMP_LINE_MAX + 2];
	char *err;
	size_t err_size;
};

static int perr(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(ps->err, ps->err_size, "line %u: ", ps->lineno);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < ps->err_size)
		vsnprintf(ps->err + n, ps->err_size - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Next line without its end (LF or CRLF). 1, 0 at the end of input, -1 when too long or not
 * text. */
static int next_line(struct parser *ps)
{
	const char *nl;
	size_t n;

	if (ps->p >= ps->end)
		return 0;
	nl = memchr(ps->p, '\n', (size_t)(ps->end - ps->p));
	n = nl ? (size_t)(nl - ps->p) : (size_t)(ps->end - ps->p);
	ps->lineno++;
	if (n && ps->p[n - 1] == '\r')
		n--;
	if (n > FWDUMP_LINE_MAX) {
		ps->p = nl ? nl + 1 : ps->end;
		ps->line[0] = '\0';
		return -1;
	}
	memcpy(ps->line, ps->p, n);
	ps->line[n] = '\0';
	ps->p = nl ? nl + 1 : ps->end;
	if (memchr(ps->line, '\0', n))
		return -2;
	return 1;
}

static bool starts(const char *s, const char *word)
{
	size_t n = strlen(word);

	return strncmp(s, word, n) == 0 && (s[n] == ' ' || s[n] == '\0');
}

/* A token of up to size-1 non-blank characters; returns what follows it (blanks skipped). */
static const char *token(const char *s, char *out, size_t size, bool *too_long)
{
	size_t n = 0;

	*too_long = false;
	while (*s == ' ')
		s++;
	while (*s && *s != ' ') {
		if (n + 1 < size)
			out[n++] = *s;
		else
			*too_long = true;
		s++;
	}
	out[n] = '\0';
	while (*s == ' ')
		s++;
	return s;
}

static int parse_uint(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	*v = strtoul(s, &end, 10);
	return *end || *v > max ? -1 : 0;
}

/* Attributes: blank-separated key=value, no '=' missing, keys non-empty. */
static int check_attrs(struct parser *ps, const char *attrs)
{
	char tok[FWDUMP_LINE_MAX + 1];
	bool tl;

	while (*attrs) {
		attrs = token(attrs, tok, sizeof(tok), &tl);
		char *eq = strchr(tok, '=');

		if (!eq || eq == tok)
			return perr(ps, "attribute '%.40s' is not key=value", tok);
	}
	return 0;
}

int fwdump_attr(const char *attrs, const char *key, char *buf, size_t size)
{
	size_t kl = strlen(key);

	while (*attrs) {
		while (*attrs == ' ')
			attrs++;
		const char *e = attrs;

		while (*e && *e != ' ')
			e++;
		if ((size_t)(e - attrs) > kl && strncmp(attrs, key, kl) == 0 && attrs[kl] == '=') {
			size_t n = (size_t)(e - attrs) - kl - 1;

			if (n >= size)
				n = size - 1;
			memcpy(buf, attrs + kl + 1, n);
			buf[n] = '\0';
			return 0;
		}
		attrs = e;
	}
	return -1;
}

static int hex_word(const char *s, uint32_t *v)
{
	uint32_t x = 0;

	for (int i = 0; i < 8; i++) {
		char c = s[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -1;
		x = x << 4 | d;
	}
	*v = x;
	return 0;
}

/* "+OOOO: w w w" for words [first, first + n) of seg. */
static int parse_words(struct parser *ps, struct fwdump_segment *seg, unsigned first)
{
	const char *s = ps->line;
	unsigned long off;
	unsigned n = 0;
	char *end;

	if (s[0] != '+')
		return perr(ps, "segment '%s': expected a '+OFFSET:' word line after %u of %u "
			    "words, got '%.40s'", seg->name, first, seg->ndwords, s);
	off = strtoul(s + 1, &end, 16);
	if (end == s + 1 || *end != ':')
		return perr(ps, "segment '%s': bad offset in '%.40s'", seg->name, s);
	if (off != 4ul * first)
		return perr(ps, "segment '%s': word line at offset 0x%lx, expected 0x%x (a line "
			    "missing or repeated?)", seg->name, off, 4 * first);
	s = end + 1;
	while (*s) {
		if (*s != ' ')
			return perr(ps, "segment '%s': words must be separated by a blank",
				    seg->name);
		s++;
		if (first + n >= seg->ndwords)
			return perr(ps, "segment '%s': more words than the %u its SEG line says",
				    seg->name, seg->ndwords);
		if (n == FWDUMP_WORDS_PER_LINE)
			return perr(ps, "segment '%s': more than %u words on a line", seg->name,
				    FWDUMP_WORDS_PER_LINE);
		if (hex_word(s, &seg->w[first + n]) < 0 || (s[8] && s[8] != ' '))
			return perr(ps, "segment '%s': '%.12s' is not an 8-digit hex word",
				    seg->name, s);
		s += 8;
		n++;
	}
	if (n == 0)
		return perr(ps, "segment '%s': a word line without words", seg->name);
	if (n < FWDUMP_WORDS_PER_LINE && first + n < seg->ndwords)
		return perr(ps, "segment '%s': short word line (%u words) before the last",
			    seg->name, n);
	return (int)n;
}

/* One segment from its SEG line to END. */
static int parse_segment(struct parser *ps, struct fwdump_segment *seg)
{
	char tok[FWDUMP_LINE_MAX + 1];
	unsigned long n;
	const char *s;
	bool tl;
	int rc;

	memset(seg, 0, offsetof(struct fwdump_segment, w));
	seg->line = ps->lineno;
	s = token(ps->line + 3, seg->name, sizeof(seg->name), &tl);
	if (!seg->name[0])
		return perr(ps, "SEG without a name");
	if (tl)
		return perr(ps, "segment name longer than %d characters", FWDUMP_NAME_MAX - 1);
	s = token(s, tok, sizeof(tok), &tl);
	if (parse_uint(tok, FWDUMP_MAX_SEG_DWORDS, &n) < 0)
		return perr(ps, "segment '%s': length '%.20s' is not a number of words up to %u",
			    seg->name, tok, FWDUMP_MAX_SEG_DWORDS);
	seg->ndwords = (unsigned)n;
	if (check_attrs(ps, s) < 0)
		return -1;
	snprintf(seg->attrs, sizeof(seg->attrs), "%s", s);
	for (unsigned have = 0; have < seg->ndwords;) {
		rc = next_line(ps);
		if (rc <= 0)
			return rc == 0 ? perr(ps, "input ends inside segment '%s' (SEG at line %u)",
					      seg->name, seg->line)
				       : perr(ps, "line too long or not text");
		if (ps->line[0] == '#')
			continue;
		if ((rc = parse_words(ps, seg, have)) < 0)
			return -1;
		have += (unsigned)rc;
	}
	for (;;) {
		rc = next_line(ps);
		if (rc <= 0)
			return rc == 0 ? perr(ps, "input ends before END %s (SEG at line %u)",
					      seg->name, seg->line)
				       : perr(ps, "line too long or not text");
		if (ps->line[0] != '#')
			break;
	}
	if (ps->line[0] == '+')
		return perr(ps, "segment '%s': more words than the %u its SEG line says",
			    seg->name, seg->ndwords);
	if (!starts(ps->line, "END"))
		return perr(ps, "expected END %s, got '%.40s'", seg->name, ps->line);
	token(ps->line + 3, tok, sizeof(tok), &tl);
	if (strcmp(tok, seg->name) != 0)
		return perr(ps, "END %.40s does not close segment '%s' (SEG at line %u)", tok,
			    seg->name, seg->line);
	return 0;
}

/* From after a FWDUMP line to its FWEND. */
static int parse_dump(struct parser *ps, const struct fwdump_callbacks *cb,
		      struct fwdump_segment *seg)
{
	char device[FWDUMP_NAME_MAX], tok[FWDUMP_LINE_MAX + 1], v[16];
	unsigned long version, count;
	unsigned segments = 0, start = ps->lineno;
	const char *s;
	bool tl;
	int rc;

	s = token(ps->line + 6, tok, sizeof(tok), &tl);
	if (parse_uint(tok, 1000, &version) < 0)
		return perr(ps, "FWDUMP without a format version");
	if (version != FWDUMP_FORMAT_VERSION)
		return perr(ps, "format version %lu; this decoder reads version %d", version,
			    FWDUMP_FORMAT_VERSION);
	s = token(s, device, sizeof(device), &tl);
	if (!device[0] || tl || strchr(device, '='))
		return perr(ps, "FWDUMP without a device name");
	if (check_attrs(ps, s) < 0)
		return -1;
	if (cb->begin)
		cb->begin(cb->ctx, device, s);
	for (;;) {
		rc = next_line(ps);
		if (rc == 0)
			return perr(ps, "input ends inside the dump of %s (FWDUMP at line %u, no "
				    "FWEND)", device, start);
		if (rc < 0)
			return perr(ps, "line too long or not text");
		if (ps->line[0] == '#')
			continue;
		if (starts(ps->line, "SEG")) {
			if (parse_segment(ps, seg) < 0)
				return -1;
			segments++;
			if (cb->segment)
				cb->segment(cb->ctx, seg);
			continue;
		}
		if (starts(ps->line, "FWEND"))
			break;
		return perr(ps, "expected SEG, FWEND or a '#' comment inside the dump of %s, got "
			    "'%.40s'", device, ps->line);
	}
	s = token(ps->line + 5, tok, sizeof(tok), &tl);
	if (strcmp(tok, device) != 0)
		return perr(ps, "FWEND %.40s does not close the dump of %s", tok, device);
	if (fwdump_attr(s, "segments", v, sizeof(v)) < 0 || parse_uint(v, 1u << 20, &count) < 0)
		return perr(ps, "FWEND without segments=N");
	if (count != segments)
		return perr(ps, "FWEND says %lu segments, the dump has %u (segments lost?)", count,
			    segments);
	if (cb->end)
		cb->end(cb->ctx, device, segments);
	return 0;
}

int fwdump_parse(const char *text, size_t len, const struct fwdump_callbacks *cb, char *err,
		 size_t err_size)
{
	static struct fwdump_segment seg;
	struct parser ps = { text, text + len, 0, "", err, err_size };
	int dumps = 0, rc;

	if (err_size)
		err[0] = '\0';
	while ((rc = next_line(&ps)) != 0) {
		if (rc < 0)
			continue;   /* outside a dump anything goes: console noise */
		if (!starts(ps.line, "FWDUMP"))
			continue;
		if (parse_dump(&ps, cb, &seg) < 0)
			return -1;
		dumps++;
	}
	if (!dumps) {
		snprintf(err, err_size, "no FWDUMP header in the input (is this a dump?)");
		return -1;
	}
	return dumps;
}

/* SPDX-License-Identifier: MIT */
/* printf-style formatting without libc (see console.h for the supported formats). */
#include <ibboot/console.h>
#include <ibboot/string.h>

struct spec {
	bool left, zero, alt, quote;
	int width, prec;   /* prec < 0: none */
	int len;           /* 0 int, 1 long, 2 long long, -1 short, -2 char, 3 size_t/ptrdiff/intmax */
};

struct out {
	void (*sink)(void *ctx, char c);
	void *ctx;
	int count;
};

static void emit(struct out *o, char c)
{
	o->sink(o->ctx, c);
	o->count++;
}

static void pad(struct out *o, char c, int n)
{
	while (n-- > 0)
		emit(o, c);
}

/* prefix, then n characters of body, within the width: spaces before (or, with '0', zeros
 * between prefix and body), or spaces after with '-'. */
static void emit_field(struct out *o, const struct spec *s, const char *prefix, const char *body,
		       int n)
{
	int plen = 0;

	while (prefix[plen])
		plen++;
	int fill = s->width - n - plen;
	if (!s->left && !s->zero)
		pad(o, ' ', fill);
	for (int i = 0; i < plen; i++)
		emit(o, prefix[i]);
	if (!s->left && s->zero)
		pad(o, '0', fill);
	for (int i = 0; i < n; i++)
		emit(o, body[i]);
	if (s->left)
		pad(o, ' ', fill);
}

static void emit_str(struct out *o, struct spec *s, const char *str)
{
	int n = 0;

	if (!str)
		str = "(null)";
	while (str[n] && (s->prec < 0 || n < s->prec))
		n++;
	s->zero = false;
	emit_field(o, s, "", str, n);
}

/* Unsigned magnitude with an optional sign/prefix, honouring width, '0' and '-'. */
static void emit_num(struct out *o, const struct spec *s, uint64_t v, unsigned base, bool upper,
		     const char *prefix)
{
	char buf[24], *p = buf + sizeof(buf);

	do {
		char c = "0123456789abcdef"[v % base];

		*--p = upper && c >= 'a' ? c - 32 : c;
		v /= base;
	} while (v);
	emit_field(o, s, prefix, p, (int)(buf + sizeof(buf) - p));
}

/* %'u: an IPv4 address (host byte order, as ipv4_ntoa takes it) as a dotted quad; no width. */
static void emit_ipv4(struct out *o, uint32_t a)
{
	struct spec d = { .prec = -1 };

	for (int sh = 24;; sh -= 8) {
		emit_num(o, &d, (a >> sh) & 255, 10, false, "");
		if (!sh)
			break;
		emit(o, '.');
	}
}

/* The integer argument for `s`, as 64 bits: sign-extended for a signed conversion, else
 * zero-extended. One va_arg per argument width (int, long, long long); char and short arrive
 * promoted to int (C11 6.5.2.2) and are cut down here. On the LP64 targets ibboot is built for,
 * size_t, ptrdiff_t and intmax_t are long, and a signed value read as its unsigned type keeps its
 * bits (C11 7.16.1.1). */
static uint64_t arg_int(const struct spec *s, va_list *ap, bool is_signed)
{
	unsigned bits = 64;
	uint64_t v;

	if (s->len == 2)
		v = va_arg(*ap, unsigned long long);
	else if (s->len > 0)
		v = va_arg(*ap, unsigned long);
	else {
		v = va_arg(*ap, unsigned int);
		bits = s->len == -2 ? 8 : s->len == -1 ? 16 : 32;
	}
	if (bits < 64) {
		v &= (1ull << bits) - 1;
		if (is_signed && (v >> (bits - 1)))
			v |= ~0ull << bits;
	}
	return v;
}

static const char *parse_spec(const char *p, struct spec *s, va_list *ap)
{
	*s = (struct spec){ .prec = -1 };
	for (;; p++) {
		if (*p == '-') s->left = true;
		else if (*p == '0') s->zero = true;
		else if (*p == '#') s->alt = true;
		else if (*p == '\'') s->quote = true;
		else break;
	}
	if (*p == '*') {
		s->width = va_arg(*ap, int);
		if (s->width < 0) {
			s->left = true;
			s->width = -s->width;
		}
		p++;
	} else {
		while (*p >= '0' && *p <= '9')
			s->width = s->width * 10 + (*p++ - '0');
	}
	if (*p == '.') {
		p++;
		s->prec = 0;
		if (*p == '*') {
			s->prec = va_arg(*ap, int);
			p++;
		} else {
			while (*p >= '0' && *p <= '9')
				s->prec = s->prec * 10 + (*p++ - '0');
		}
	}
	if (*p == 'h') {
		s->len = -1;
		if (*++p == 'h') { s->len = -2; p++; }
	} else if (*p == 'l') {
		s->len = 1;
		if (*++p == 'l') { s->len = 2; p++; }
	} else if (*p == 'z' || *p == 't' || *p == 'j') {
		s->len = 3;
		p++;
	}
	return p;
}

int kvformat(void (*sink)(void *ctx, char c), void *ctx, const char *fmt, va_list ap_in)
{
	struct out o = { sink, ctx, 0 };
	struct spec s;
	va_list ap;

	va_copy(ap, ap_in);
	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			emit(&o, *p);
			continue;
		}
		p = parse_spec(p + 1, &s, &ap);
		if (s.left)
			s.zero = false;
		switch (*p) {
		case 'd':
		case 'i': {
			int64_t v = (int64_t)arg_int(&s, &ap, true);
			uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
			emit_num(&o, &s, mag, 10, false, v < 0 ? "-" : "");
			break;
		}
		case 'u':
			if (s.quote)
				emit_ipv4(&o, (uint32_t)arg_int(&s, &ap, false));
			else
				emit_num(&o, &s, arg_int(&s, &ap, false), 10, false, "");
			break;
		case 'x':
		case 'X':
			emit_num(&o, &s, arg_int(&s, &ap, false), 16, *p == 'X',
				 s.alt ? (*p == 'X' ? "0X" : "0x") : "");
			break;
		case 'o':
			emit_num(&o, &s, arg_int(&s, &ap, false), 8, false, s.alt ? "0" : "");
			break;
		case 'p':
			emit_num(&o, &s, (uintptr_t)va_arg(ap, void *), 16, false, "0x");
			break;
		case 'c': {
			char c[2] = { (char)va_arg(ap, int), 0 };
			emit_str(&o, &s, c);
			break;
		}
		case 's':
			emit_str(&o, &s, va_arg(ap, const char *));
			break;
		case '%':
			emit(&o, '%');
			break;
		case '\0':
			p--;   /* a lone '%' at the end: stop at the terminator */
			break;
		default:   /* unknown conversion: show it rather than guess its argument */
			emit(&o, '%');
			emit(&o, *p);
			break;
		}
	}
	va_end(ap);
	return o.count;
}

struct buf_ctx {
	char *buf;
	size_t size, pos;
};

static void buf_sink(void *ctx, char c)
{
	struct buf_ctx *b = ctx;

	if (b->pos + 1 < b->size)
		b->buf[b->pos] = c;
	b->pos++;
}

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct buf_ctx b = { buf, size, 0 };
	int n = kvformat(buf_sink, &b, fmt, ap);

	if (size)
		buf[b.pos < size ? b.pos : size - 1] = '\0';
	return n;
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kvsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

const char *str_nth(const char *list, unsigned n)
{
	while (n--)
		while (*list++)
			;
	return list;
}

const char *str_nth_or(const char *list, unsigned n, const char *dflt)
{
	for (; *list; list += strlen(list) + 1)
		if (!n--)
			return list;
	return dflt;
}

/* Here rather than in console.c so that the hosted test fakes, which capture the console through
 * their own kvprintf, take this one and the ksnprintf above from the library instead of copies. */
int kprintf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kvprintf(fmt, ap);
	va_end(ap);
	return n;
}

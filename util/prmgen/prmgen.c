/* SPDX-License-Identifier: MIT */
/*
 * prmgen — turns util/prm/hermon-prm.txt into build/include/ibboot/hermon_prm.h.
 *
 * Input format (see the header of hermon-prm.txt):
 *   struct NAME  /" N bits, M bytes "/
 *     field[0xW]              a W-bit field at the next bit offset
 *     field[0xN][0xW]         an array of N W-bit fields
 *     struct OTHER name       a nested structure
 *     struct OTHER name[N]    an array of N nested structures
 * Bit offset b lives in big-endian dword b/32 at bit b%32 from its least significant bit.
 *
 * Output: for each struct a BYTES constant, typed get/set accessors per non-reserved field, a
 * pointer accessor per nested struct, OFFSET/BITS constants, and (under HERMONPRM_FIELD_TABLE) a
 * table of every accessor for tests. The declared size in each struct's comment is checked against
 * the sum of its fields, so a typo in the layout file fails the build instead of shifting fields.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STRUCTS 256
#define MAX_FIELDS 256
#define NAME_LEN 96

struct field {
	char name[NAME_LEN];
	char type[NAME_LEN];    /* nested struct type, "" for a bit field */
	unsigned long width;    /* bits of one element (bit field) */
	unsigned long count;    /* array length; 0 when not an array */
	unsigned long offset;   /* bit offset in the struct, filled by layout() */
	int line;
};

struct prm_struct {
	char name[NAME_LEN];
	unsigned long declared_bits;
	unsigned long bits;     /* computed by layout(); 0 = not yet */
	int in_progress;
	struct field fields[MAX_FIELDS];
	unsigned n_fields;
	int line;
};

static struct prm_struct structs[MAX_STRUCTS];
static unsigned n_structs;
static const char *input_path;

static void die(int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "prmgen: %s:%d: ", input_path, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static struct prm_struct *find_struct(const char *name)
{
	for (unsigned i = 0; i < n_structs; i++)
		if (!strcmp(structs[i].name, name))
			return &structs[i];
	return NULL;
}

static int is_reserved(const char *name)
{
	return !strncmp(name, "reserved", 8);
}

/* Parses "[0xW]" or "[N]" at *p; returns the number, advances *p. */
static unsigned long parse_bracket(const char **p, int line)
{
	char *end;
	unsigned long v;

	if (**p != '[')
		die(line, "expected '['");
	errno = 0;
	v = strtoul(*p + 1, &end, 0);
	if (errno || end == *p + 1 || *end != ']')
		die(line, "bad number in brackets");
	*p = end + 1;
	return v;
}

static void parse_name(const char **p, char *out, int line)
{
	size_t n = 0;

	while (isalnum((unsigned char)**p) || **p == '_') {
		if (n + 1 >= NAME_LEN)
			die(line, "name too long");
		out[n++] = *(*p)++;
	}
	out[n] = '\0';
	if (!n)
		die(line, "expected a name");
}

static void parse(FILE *in)
{
	char buf[512];
	int line = 0;
	struct prm_struct *cur = NULL;

	while (fgets(buf, sizeof(buf), in)) {
		const char *p = buf;

		line++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\n' || *p == '\0') {
			if (*p != '#')
				cur = NULL;
			continue;
		}
		if (p == buf) { /* "struct NAME  / * N bits, M bytes * /" starts a struct */
			if (strncmp(p, "struct ", 7))
				die(line, "expected 'struct NAME' at column 1");
			if (n_structs == MAX_STRUCTS)
				die(line, "too many structs");
			cur = &structs[n_structs++];
			memset(cur, 0, sizeof(*cur));
			cur->line = line;
			p += 7;
			parse_name(&p, cur->name, line);
			if (find_struct(cur->name) != cur)
				die(line, "struct %s defined twice", cur->name);
			const char *c = strstr(p, "/*");
			if (!c || sscanf(c, "/* %lu bits", &cur->declared_bits) != 1)
				die(line, "struct %s: missing '/* N bits' size comment", cur->name);
			continue;
		}
		if (!cur)
			die(line, "field outside a struct");
		if (cur->n_fields == MAX_FIELDS)
			die(line, "too many fields in %s", cur->name);
		struct field *f = &cur->fields[cur->n_fields++];
		memset(f, 0, sizeof(*f));
		f->line = line;
		if (!strncmp(p, "struct ", 7)) {
			p += 7;
			parse_name(&p, f->type, line);
			while (*p == ' ')
				p++;
			parse_name(&p, f->name, line);
			if (*p == '[')
				f->count = parse_bracket(&p, line);
		} else {
			parse_name(&p, f->name, line);
			unsigned long a = parse_bracket(&p, line);
			if (*p == '[') {
				f->count = a;
				f->width = parse_bracket(&p, line);
			} else {
				f->width = a;
			}
			if (!f->width)
				die(line, "zero-width field %s", f->name);
		}
		if (f->count == 0 && strchr(p, '['))
			die(line, "unexpected text after field");
		for (unsigned i = 0; i + 1 < cur->n_fields; i++)
			if (!strcmp(cur->fields[i].name, f->name))
				die(line, "field %s repeated in %s", f->name, cur->name);
	}
}

static unsigned long layout(struct prm_struct *s)
{
	unsigned long off = 0;

	if (s->bits)
		return s->bits;
	if (s->in_progress)
		die(s->line, "struct %s contains itself", s->name);
	s->in_progress = 1;
	for (unsigned i = 0; i < s->n_fields; i++) {
		struct field *f = &s->fields[i];
		unsigned long n = f->count ? f->count : 1;

		f->offset = off;
		if (f->type[0]) {
			struct prm_struct *t = find_struct(f->type);
			if (!t)
				die(f->line, "unknown struct %s", f->type);
			f->width = layout(t);
			/* Nested structs are handed out as pointers into the dword buffer. */
			if (off % 32)
				die(f->line, "nested struct %s not dword aligned", f->name);
		}
		off += n * f->width;
	}
	if (off != s->declared_bits)
		die(s->line, "struct %s: fields add up to %lu bits, comment says %lu", s->name, off,
		    s->declared_bits);
	s->in_progress = 0;
	s->bits = off;
	return off;
}

static void upper(char *dst, const char *src)
{
	while (*src)
		*dst++ = (char)toupper((unsigned char)*src++);
	*dst = '\0';
}

static void emit_prologue(FILE *out)
{
	fputs("/* Generated by util/prmgen from util/prm/hermon-prm.txt. Do not edit: edit the layout file. */\n"
	      "#ifndef IBBOOT_HERMON_PRM_H\n"
	      "#define IBBOOT_HERMON_PRM_H\n\n"
	      "#include <stdint.h>\n\n"
	      "/* PRM buffers are arrays of big-endian dwords; bit b is bit b%32 of dword b/32. */\n"
	      "static inline uint32_t hermonprm_load_dword(const void *buf, unsigned long dw)\n"
	      "{\n"
	      "\tconst uint8_t *p = (const uint8_t *)buf + 4 * dw;\n\n"
	      "\treturn (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];\n"
	      "}\n\n"
	      "static inline void hermonprm_store_dword(void *buf, unsigned long dw, uint32_t v)\n"
	      "{\n"
	      "\tuint8_t *p = (uint8_t *)buf + 4 * dw;\n\n"
	      "\tp[0] = (uint8_t)(v >> 24);\n\tp[1] = (uint8_t)(v >> 16);\n"
	      "\tp[2] = (uint8_t)(v >> 8);\n\tp[3] = (uint8_t)v;\n"
	      "}\n\n"
	      "/* Reads `width` (1..64) bits starting at bit `bit`; value bit i is buffer bit bit+i, so a\n"
	      " * field may cross dwords. */\n"
	      "static inline uint64_t hermonprm_get_bits(const void *buf, unsigned long bit, unsigned width)\n"
	      "{\n"
	      "\tuint64_t v = 0;\n"
	      "\tunsigned done = 0;\n\n"
	      "\twhile (done < width) {\n"
	      "\t\tunsigned long b = bit + done;\n"
	      "\t\tunsigned shift = (unsigned)(b % 32), n = 32 - shift;\n\n"
	      "\t\tif (n > width - done)\n\t\t\tn = width - done;\n"
	      "\t\tuint32_t mask = n == 32 ? 0xffffffffu : ((1u << n) - 1);\n"
	      "\t\tv |= (uint64_t)((hermonprm_load_dword(buf, b / 32) >> shift) & mask) << done;\n"
	      "\t\tdone += n;\n"
	      "\t}\n"
	      "\treturn v;\n"
	      "}\n\n"
	      "static inline void hermonprm_put_bits(void *buf, unsigned long bit, unsigned width, uint64_t v)\n"
	      "{\n"
	      "\tunsigned done = 0;\n\n"
	      "\twhile (done < width) {\n"
	      "\t\tunsigned long b = bit + done;\n"
	      "\t\tunsigned shift = (unsigned)(b % 32), n = 32 - shift;\n\n"
	      "\t\tif (n > width - done)\n\t\t\tn = width - done;\n"
	      "\t\tuint32_t mask = n == 32 ? 0xffffffffu : ((1u << n) - 1);\n"
	      "\t\tuint32_t dw = hermonprm_load_dword(buf, b / 32);\n\n"
	      "\t\tdw &= ~(mask << shift);\n"
	      "\t\tdw |= ((uint32_t)(v >> done) & mask) << shift;\n"
	      "\t\thermonprm_store_dword(buf, b / 32, dw);\n"
	      "\t\tdone += n;\n"
	      "\t}\n"
	      "}\n\n", out);
}

static void emit_field(FILE *out, const struct prm_struct *s, const struct field *f)
{
	char S[NAME_LEN], F[NAME_LEN];
	const char *t;

	upper(S, s->name);
	upper(F, f->name);
	fprintf(out, "#define %s_%s_OFFSET %lu\n", S, F, f->offset);
	fprintf(out, "#define %s_%s_BITS %lu\n", S, F, f->width);
	if (f->count)
		fprintf(out, "#define %s_%s_COUNT %lu\n", S, F, f->count);
	if (f->type[0]) {
		if (f->count)
			fprintf(out, "static inline void *%s_%s(void *buf, unsigned i)\n"
				"{\n\treturn (uint8_t *)buf + %luu / 8 + (unsigned long)i * %luu;\n}\n",
				s->name, f->name, f->offset, f->width / 8);
		else
			fprintf(out, "static inline void *%s_%s(void *buf)\n"
				"{\n\treturn (uint8_t *)buf + %luu;\n}\n",
				s->name, f->name, f->offset / 8);
		return;
	}
	if (f->width > 64)
		return;
	t = f->width > 32 ? "uint64_t" : "uint32_t";
	if (f->count) {
		fprintf(out, "static inline void %s_set_%s(void *buf, unsigned i, %s v)\n"
			"{\n\thermonprm_put_bits(buf, %luu + (unsigned long)i * %luu, %lu, v);\n}\n",
			s->name, f->name, t, f->offset, f->width, f->width);
		fprintf(out, "static inline %s %s_get_%s(const void *buf, unsigned i)\n"
			"{\n\treturn (%s)hermonprm_get_bits(buf, %luu + (unsigned long)i * %luu, %lu);\n}\n",
			t, s->name, f->name, t, f->offset, f->width, f->width);
	} else {
		fprintf(out, "static inline void %s_set_%s(void *buf, %s v)\n"
			"{\n\thermonprm_put_bits(buf, %luu, %lu, v);\n}\n",
			s->name, f->name, t, f->offset, f->width);
		fprintf(out, "static inline %s %s_get_%s(const void *buf)\n"
			"{\n\treturn (%s)hermonprm_get_bits(buf, %luu, %lu);\n}\n",
			t, s->name, f->name, t, f->offset, f->width);
	}
}

/* A table of every generated accessor, so tests can round-trip all fields of all structs. */
static void emit_table(FILE *out)
{
	fputs("#ifdef HERMONPRM_FIELD_TABLE\n"
	      "struct hermonprm_field_desc {\n"
	      "\tconst char *structure, *field;\n"
	      "\tunsigned long offset, bits, count, struct_bytes;\n"
	      "\tvoid (*set32)(void *, uint32_t);\n\tuint32_t (*get32)(const void *);\n"
	      "\tvoid (*set64)(void *, uint64_t);\n\tuint64_t (*get64)(const void *);\n"
	      "\tvoid (*seta32)(void *, unsigned, uint32_t);\n"
	      "\tuint32_t (*geta32)(const void *, unsigned);\n"
	      "};\n\n"
	      "static const struct hermonprm_field_desc hermonprm_field_table[] = {\n", out);
	for (unsigned i = 0; i < n_structs; i++) {
		const struct prm_struct *s = &structs[i];
		for (unsigned j = 0; j < s->n_fields; j++) {
			const struct field *f = &s->fields[j];
			const char *n = s->name, *m = f->name;

			if (f->type[0] || is_reserved(m) || f->width > 64)
				continue;
			fprintf(out, "\t{ \"%s\", \"%s\", %lu, %lu, %lu, %lu, ", n, m, f->offset, f->width,
				f->count, s->bits / 8);
			if (f->count && f->width <= 32)
				fprintf(out, "0, 0, 0, 0, %s_set_%s, %s_get_%s },\n", n, m, n, m);
			else if (f->count)
				die(f->line, "arrays of fields wider than 32 bits are not supported");
			else if (f->width <= 32)
				fprintf(out, "%s_set_%s, %s_get_%s, 0, 0, 0, 0 },\n", n, m, n, m);
			else
				fprintf(out, "0, 0, %s_set_%s, %s_get_%s, 0, 0 },\n", n, m, n, m);
		}
	}
	fputs("};\n\n"
	      "struct hermonprm_struct_desc {\n\tconst char *name;\n\tunsigned long bytes;\n};\n\n"
	      "static const struct hermonprm_struct_desc hermonprm_struct_table[] = {\n", out);
	for (unsigned i = 0; i < n_structs; i++)
		fprintf(out, "\t{ \"%s\", %lu },\n", structs[i].name, structs[i].bits / 8);
	fputs("};\n#endif /* HERMONPRM_FIELD_TABLE */\n\n", out);
}

int main(int argc, char **argv)
{
	FILE *in, *out;

	if (argc != 3) {
		fprintf(stderr, "usage: prmgen LAYOUT.txt OUTPUT.h\n");
		return 2;
	}
	input_path = argv[1];
	in = fopen(argv[1], "r");
	if (!in) {
		fprintf(stderr, "prmgen: cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	parse(in);
	fclose(in);
	for (unsigned i = 0; i < n_structs; i++) {
		layout(&structs[i]);
		if (structs[i].bits % 8)
			die(structs[i].line, "struct %s is not a whole number of bytes", structs[i].name);
	}
	out = fopen(argv[2], "w");
	if (!out) {
		fprintf(stderr, "prmgen: cannot write %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	emit_prologue(out);
	for (unsigned i = 0; i < n_structs; i++) {
		const struct prm_struct *s = &structs[i];
		char S[NAME_LEN];

		upper(S, s->name);
		fprintf(out, "/* %s: %lu bits */\n#define %s_BYTES %lu\n", s->name, s->bits, S, s->bits / 8);
		for (unsigned j = 0; j < s->n_fields; j++)
			if (!is_reserved(s->fields[j].name))
				emit_field(out, s, &s->fields[j]);
		fputc('\n', out);
	}
	emit_table(out);
	fputs("#endif /* IBBOOT_HERMON_PRM_H */\n", out);
	if (fclose(out)) {
		fprintf(stderr, "prmgen: writing %s failed\n", argv[2]);
		return 1;
	}
	return 0;
}

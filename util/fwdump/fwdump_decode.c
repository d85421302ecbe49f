/* SPDX-License-Identifier: MIT */
/*
 * ibboot-fwdump-decode [--all] [FILE]: reads a saved dump (a bare `fwdump`, a boot report or a
 * console log holding one) and prints it as text: the PCI header and the HCR field by field, the
 * catastrophic-error buffer's non-zero words, and each queue's driver view beside its hardware
 * context, whose fields are named through the accessors generated from the PRM layouts
 * (util/prm/hermon-prm.txt). A malformed dump is refused with the line and the reason (exit 1).
 */
#include "fwdump_parse.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ibboot/byteorder.h>
#define HERMONPRM_FIELD_TABLE
#include <ibboot/hermon_prm.h>

static bool show_all;   /* --all: zero fields of contexts too */

static const struct { unsigned opcode; const char *name; } opcodes[] = {
	{ 0x003, "QUERY_DEV_CAP" }, { 0x004, "QUERY_FW" }, { 0x006, "QUERY_ADAPTER" },
	{ 0x007, "INIT_HCA" }, { 0x008, "CLOSE_HCA" }, { 0x009, "INIT_PORT" },
	{ 0x00a, "CLOSE_PORT" }, { 0x00c, "SET_PORT" }, { 0x00d, "SW2HW_MPT" },
	{ 0x00e, "QUERY_MPT" }, { 0x00f, "HW2SW_MPT" }, { 0x011, "WRITE_MTT" },
	{ 0x012, "MAP_EQ" }, { 0x013, "SW2HW_EQ" }, { 0x014, "HW2SW_EQ" }, { 0x015, "QUERY_EQ" },
	{ 0x016, "SW2HW_CQ" }, { 0x017, "HW2SW_CQ" }, { 0x018, "QUERY_CQ" },
	{ 0x019, "RST2INIT_QP" }, { 0x01a, "INIT2RTR_QP" }, { 0x01b, "RTR2RTS_QP" },
	{ 0x01c, "RTS2RTS_QP" }, { 0x01e, "2ERR_QP" }, { 0x021, "2RST_QP" },
	{ 0x022, "QUERY_QP" }, { 0x023, "CONF_SPECIAL_QP" }, { 0x024, "MAD_IFC" },
	{ 0x025, "READ_MCG" }, { 0x026, "WRITE_MCG" }, { 0x027, "MGID_HASH" }, { 0x031, "NOP" },
	{ 0x043, "QUERY_PORT" }, { 0x04d, "SENSE_PORT" }, { 0xff6, "RUN_FW" },
	{ 0xff9, "UNMAP_ICM" }, { 0xffa, "MAP_ICM" }, { 0xffb, "UNMAP_ICM_AUX" },
	{ 0xffc, "MAP_ICM_AUX" }, { 0xffd, "SET_ICM_SIZE" }, { 0xffe, "UNMAP_FA" },
	{ 0xfff, "MAP_FA" },
};

static const char *opcode_name(unsigned op)
{
	for (size_t i = 0; i < sizeof(opcodes) / sizeof(opcodes[0]); i++)
		if (opcodes[i].opcode == op)
			return opcodes[i].name;
	return "?";
}

/* The segment's words back into the mailbox bytes they were read from. */
static void words_to_bytes(const struct fwdump_segment *seg, uint8_t *buf, size_t size)
{
	memset(buf, 0, size);
	for (unsigned i = 0; i < seg->ndwords && 4 * i + 4 <= size; i++)
		put_be32(buf + 4 * i, seg->w[i]);
}

static int field_cmp(const void *a, const void *b)
{
	const struct hermonprm_field_desc *x = *(const struct hermonprm_field_desc *const *)a;
	const struct hermonprm_field_desc *y = *(const struct hermonprm_field_desc *const *)b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Every field of PRM structure `st` read from buf, in layout order. */
static void print_fields(const char *st, const uint8_t *buf, size_t len)
{
	const size_t n_table = sizeof(hermonprm_field_table) / sizeof(hermonprm_field_table[0]);
	const struct hermonprm_field_desc *f[512];
	size_t n = 0;
	unsigned zero = 0;

	for (size_t i = 0; i < n_table && n < 512; i++)
		if (strcmp(hermonprm_field_table[i].structure, st) == 0 &&
		    hermonprm_field_table[i].struct_bytes <= len)
			f[n++] = &hermonprm_field_table[i];
	qsort(f, n, sizeof(f[0]), field_cmp);
	printf("    %s (%zu fields):\n", st + strlen("hermonprm_"), n);
	for (size_t i = 0; i < n; i++) {
		const struct hermonprm_field_desc *d = f[i];

		if (d->count && d->geta32) {
			for (unsigned k = 0; k < d->count; k++) {
				uint32_t v = d->geta32(buf, k);

				if (!v && !show_all) {
					zero++;
					continue;
				}
				printf("      %-28s[%u] = 0x%x\n", d->field, k, v);
			}
		} else if (d->get32 || d->get64) {
			uint64_t v = d->get64 ? d->get64(buf) : d->get32(buf);

			if (!v && !show_all) {
				zero++;
				continue;
			}
			printf("      %-31s = 0x%llx (%llu)\n", d->field, (unsigned long long)v,
			       (unsigned long long)v);
		}
	}
	if (zero)
		printf("      (%u zero fields not shown; --all shows them)\n", zero);
}

static void print_attrs(const char *attrs)
{
	printf("    driver view: %s\n", attrs);
}

static void show_pci(const struct fwdump_segment *s)
{
	if (s->ndwords < 16) {
		printf("  pci config: %u words (short)\n", s->ndwords);
		return;
	}
	/* PCI Local Bus Spec 3.0 §6.1: little-endian config header as 32-bit reads. */
	printf("  pci config: vendor 0x%04x device 0x%04x command 0x%04x status 0x%04x revision "
	       "0x%02x class 0x%06x\n", s->w[0] & 0xffff, s->w[0] >> 16, s->w[1] & 0xffff,
	       s->w[1] >> 16, s->w[2] & 0xff, s->w[2] >> 8);
	for (unsigned b = 0; b < 6; b++)
		if (s->w[4 + b])
			printf("    BAR%u 0x%08x\n", b, s->w[4 + b]);
	printf("    subsystem %04x:%04x\n", s->w[11] & 0xffff, s->w[11] >> 16);
}

static void show_hcr(const struct fwdump_segment *s)
{
	uint8_t b[HERMONPRM_HCA_COMMAND_REGISTER_ST_BYTES];

	words_to_bytes(s, b, sizeof(b));
	printf("  command interface (HCR, %s):\n", s->attrs);
	if (s->ndwords < HERMONPRM_HCA_COMMAND_REGISTER_ST_BYTES / 4) {
		printf("    %u words: too short for the HCR\n", s->ndwords);
		return;
	}
	printf("    opcode 0x%03x (%s) modifier %u, go %u, e %u, t %u, status 0x%02x, token "
	       "0x%04x\n", hermonprm_hca_command_register_st_get_opcode(b),
	       opcode_name(hermonprm_hca_command_register_st_get_opcode(b)),
	       hermonprm_hca_command_register_st_get_opcode_modifier(b),
	       hermonprm_hca_command_register_st_get_go(b),
	       hermonprm_hca_command_register_st_get_e(b),
	       hermonprm_hca_command_register_st_get_t(b),
	       hermonprm_hca_command_register_st_get_status(b),
	       hermonprm_hca_command_register_st_get_token(b));
	printf("    in_param 0x%08x%08x input_modifier 0x%08x out_param 0x%08x%08x\n",
	       hermonprm_hca_command_register_st_get_in_param_h(b),
	       hermonprm_hca_command_register_st_get_in_param_l(b),
	       hermonprm_hca_command_register_st_get_input_modifier(b),
	       hermonprm_hca_command_register_st_get_out_param_h(b),
	       hermonprm_hca_command_register_st_get_out_param_l(b));
}

static void show_catas(const struct fwdump_segment *s)
{
	unsigned nz = 0;

	printf("  catastrophic-error buffer (%s): %u words\n", s->attrs, s->ndwords);
	for (unsigned i = 0; i < s->ndwords; i++)
		if (s->w[i]) {
			printf("    [%02u] 0x%08x\n", i, s->w[i]);
			nz++;
		}
	if (s->ndwords && !nz)
		printf("    all zero: no catastrophic error recorded\n");
}

static void show_context(const struct fwdump_segment *s, const char *what, const char *st,
			 size_t bytes)
{
	static uint8_t buf[4096];
	char id[32] = "";

	fwdump_attr(s->attrs, what, id, sizeof(id));
	printf("  %s %s\n", s->name, id);
	print_attrs(s->attrs);
	if (!s->ndwords) {
		printf("    no hardware context (the device was not queried or refused)\n");
		return;
	}
	if (4 * s->ndwords < bytes) {
		printf("    context: %u words, shorter than %s (%zu bytes)\n", s->ndwords, st, bytes);
		return;
	}
	words_to_bytes(s, buf, sizeof(buf));
	print_fields(st, buf, 4 * s->ndwords);
}

static void on_begin(void *ctx, const char *device, const char *attrs)
{
	(void)ctx;
	printf("device %s\n  %s\n", device, attrs);
}

static void on_segment(void *ctx, const struct fwdump_segment *s)
{
	(void)ctx;
	if (!strcmp(s->name, "pci"))
		show_pci(s);
	else if (!strcmp(s->name, "hcr"))
		show_hcr(s);
	else if (!strcmp(s->name, "catas"))
		show_catas(s);
	else if (!strcmp(s->name, "eq"))
		show_context(s, "eqn", "hermonprm_eqc_st", HERMONPRM_EQC_ST_BYTES);
	else if (!strcmp(s->name, "cq"))
		show_context(s, "cqn", "hermonprm_completion_queue_context_st",
			     HERMONPRM_COMPLETION_QUEUE_CONTEXT_ST_BYTES);
	else if (!strcmp(s->name, "qp"))
		show_context(s, "qpn", "hermonprm_queue_pair_ee_context_entry_st",
			     HERMONPRM_QUEUE_PAIR_EE_CONTEXT_ENTRY_ST_BYTES);
	else {
		printf("  %s: %s\n", s->name, s->attrs);
		for (unsigned i = 0; i < s->ndwords; i++)
			printf("%s%08x%s", i % 8 ? " " : "    ", s->w[i],
			       i % 8 == 7 || i + 1 == s->ndwords ? "\n" : "");
	}
}

static void on_end(void *ctx, const char *device, unsigned segments)
{
	(void)ctx;
	printf("end of %s: %u segments\n", device, segments);
}

int main(int argc, char **argv)
{
	const struct fwdump_callbacks cb = { on_begin, on_segment, on_end, NULL };
	const char *path = NULL;
	static char err[256];
	char *text = NULL;
	size_t len = 0, cap = 0;
	FILE *f;
	int n;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--all"))
			show_all = true;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") || path) {
			fprintf(stderr, "usage: ibboot-fwdump-decode [--all] [FILE|-]\n");
			return 2;
		} else
			path = argv[i];
	}
	f = !path || !strcmp(path, "-") ? stdin : fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "ibboot-fwdump-decode: cannot open %s\n", path);
		return 2;
	}
	for (;;) {
		if (len == cap) {
			if (cap >= (64u << 20)) {
				fprintf(stderr, "ibboot-fwdump-decode: input larger than 64 MiB\n");
				return 1;
			}
			cap = cap ? 2 * cap : 65536;
			text = realloc(text, cap);
			if (!text)
				return 1;
		}
		size_t got = fread(text + len, 1, cap - len, f);

		if (!got)
			break;
		len += got;
	}
	if (f != stdin)
		fclose(f);
	n = fwdump_parse(text, len, &cb, err, sizeof(err));
	free(text);
	if (n < 0) {
		fflush(stdout);
		fprintf(stderr, "ibboot-fwdump-decode: %s: %s\n", path ? path : "stdin", err);
		return 1;
	}
	return 0;
}

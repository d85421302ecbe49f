/* SPDX-License-Identifier: MIT */
/*
 * hcr-trace — turn the hermon device's log (-device hermon,log=FILE) into one line per HCR
 * command and per completion, so tests and people can see how far a driver got.
 *
 *   hcr-trace < device.log
 *
 * The device logs BAR0 accesses as bus-order bytes ("bar0 write 0x80698 00800004"); this tool
 * keeps an image of the HCA command register (28 bytes at BAR0 0x80680) and decodes it with the
 * generated PRM accessors when the driver writes the go dword (a command) and when a read of the go
 * dword shows go clear again (a completion, with its status). Writes to the reset register are
 * reported too. Model log lines ("model: ...") are passed through.
 */
#include <ibboot/hermon_prm.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HCR_OFFSET 0x80680u              /* BAR0 offset of the HCA command register */
#define RESET_OFFSET 0xf0010u            /* BAR0 offset of the software reset register */
#define GO_DWORD_OFFSET (HCR_OFFSET + 24u) /* the dword holding opcode, go and status */

struct opcode_name {
	unsigned opcode;
	const char *name;
};

static const struct opcode_name opcode_names[] = {
	{ 0x003, "QUERY_DEV_CAP" }, { 0x004, "QUERY_FW" }, { 0x007, "INIT_HCA" },
	{ 0x008, "CLOSE_HCA" }, { 0x009, "INIT_PORT" }, { 0x00a, "CLOSE_PORT" },
	{ 0x00c, "SET_PORT" }, { 0x00d, "SW2HW_MPT" }, { 0x00f, "HW2SW_MPT" },
	{ 0x011, "WRITE_MTT" }, { 0x012, "MAP_EQ" }, { 0x013, "SW2HW_EQ" }, { 0x014, "HW2SW_EQ" },
	{ 0x015, "QUERY_EQ" }, { 0x016, "SW2HW_CQ" }, { 0x017, "HW2SW_CQ" }, { 0x018, "QUERY_CQ" },
	{ 0x019, "RST2INIT_QP" }, { 0x01a, "INIT2RTR_QP" }, { 0x01b, "RTR2RTS_QP" },
	{ 0x01c, "RTS2RTS_QP" }, { 0x021, "2RST_QP" }, { 0x022, "QUERY_QP" },
	{ 0x023, "CONF_SPECIAL_QP" }, { 0x024, "MAD_IFC" }, { 0x025, "READ_MCG" },
	{ 0x026, "WRITE_MCG" }, { 0x027, "MGID_HASH" }, { 0x034, "MOD_STAT_CFG" },
	{ 0x043, "QUERY_PORT" }, { 0x04d, "SENSE_PORT" }, { 0xff6, "RUN_FW" },
	{ 0xff9, "UNMAP_ICM" }, { 0xffa, "MAP_ICM" }, { 0xffb, "UNMAP_ICM_AUX" },
	{ 0xffc, "MAP_ICM_AUX" }, { 0xffd, "SET_ICM_SIZE" }, { 0xffe, "UNMAP_FA" },
	{ 0xfff, "MAP_FA" },
};

static const char *opcode_name(unsigned opcode)
{
	size_t i;

	for (i = 0; i < sizeof(opcode_names) / sizeof(opcode_names[0]); i++) {
		if (opcode_names[i].opcode == opcode)
			return opcode_names[i].name;
	}
	return "?";
}

static int parse_hex_bytes(const char *hex, uint8_t *out, size_t max)
{
	size_t n = 0;

	while (hex[0] && hex[1] && hex[0] != '\n' && n < max) {
		unsigned v;

		if (sscanf(hex, "%2x", &v) != 1)
			return -1;
		out[n++] = (uint8_t)v;
		hex += 2;
	}
	return (int)n;
}

int main(void)
{
	uint8_t hcr[HERMONPRM_HCA_COMMAND_REGISTER_ST_BYTES];
	char line[1024];
	unsigned pending = 0;            /* opcode of the command in flight, 0 = none */
	unsigned commands = 0;

	memset(hcr, 0, sizeof(hcr));
	while (fgets(line, sizeof(line), stdin)) {
		char dir[8], hexbuf[64];
		unsigned long off;
		uint8_t bytes[8];
		const char *p = strstr(line, "] ");
		int n;

		p = p ? p + 2 : line;
		if (strncmp(p, "model: ", 7) == 0 || strncmp(p, "fabric ", 7) == 0 ||
		    strncmp(p, "PCI reset", 9) == 0 || strncmp(p, "memory: ", 8) == 0 || strncmp(p, "port ", 5) == 0) {
			fputs(p, stdout);
			continue;
		}
		if (sscanf(p, "bar0 %7s 0x%lx %63s", dir, &off, hexbuf) != 3)
			continue;
		n = parse_hex_bytes(hexbuf, bytes, sizeof(bytes));
		if (n <= 0)
			continue;
		if (strcmp(dir, "write") == 0 && off == RESET_OFFSET) {
			printf("reset: write %s to 0x%05lx\n", hexbuf, off);
			pending = 0;
			continue;
		}
		if (off < HCR_OFFSET || off + (unsigned)n > HCR_OFFSET + sizeof(hcr))
			continue;
		memcpy(hcr + (off - HCR_OFFSET), bytes, (size_t)n);
		if (off + (unsigned)n <= GO_DWORD_OFFSET)
			continue;
		if (strcmp(dir, "write") == 0 && hermonprm_hca_command_register_st_get_go(hcr)) {
			unsigned op = hermonprm_hca_command_register_st_get_opcode(hcr);

			commands++;
			pending = op;
			printf("command %u: opcode 0x%03x %s opmod %" PRIu32 " in_param 0x%08" PRIx32
			       "%08" PRIx32 " modifier 0x%08" PRIx32 " out_param 0x%08" PRIx32 "%08" PRIx32
			       " token 0x%04" PRIx32 "\n", commands, op, opcode_name(op),
			       hermonprm_hca_command_register_st_get_opcode_modifier(hcr),
			       hermonprm_hca_command_register_st_get_in_param_h(hcr),
			       hermonprm_hca_command_register_st_get_in_param_l(hcr),
			       hermonprm_hca_command_register_st_get_input_modifier(hcr),
			       hermonprm_hca_command_register_st_get_out_param_h(hcr),
			       hermonprm_hca_command_register_st_get_out_param_l(hcr),
			       hermonprm_hca_command_register_st_get_token(hcr));
		} else if (strcmp(dir, "read") == 0 && pending &&
			   !hermonprm_hca_command_register_st_get_go(hcr)) {
			printf("completion: opcode 0x%03x %s status 0x%02" PRIx32 "\n", pending,
			       opcode_name(pending), hermonprm_hca_command_register_st_get_status(hcr));
			pending = 0;
		}
	}
	if (pending)
		printf("unfinished: opcode 0x%03x %s never completed (go stayed set)\n", pending,
		       opcode_name(pending));
	return 0;
}

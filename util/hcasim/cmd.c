/* SPDX-License-Identifier: MIT */
/*
 * The HCA command register (HCR) and the command dispatcher.
 *
 * Protocol (PRM "HCR"): software writes in_param, input_modifier, out_param, token, then the last
 * dword with opcode/op_mod, t (toggle) and go=1. The device runs the command, writes the status
 * and any immediate output, and clears go; t is left as software wrote it (iPXE waits for
 * t == its new toggle, Linux for t != its next toggle — both hold). With e=1 (event mode, Linux
 * after its EQs are up) completion is also reported by a command-done EQE carrying the token.
 *
 * Every command checks the firmware state first: out of order → bad system state, and nothing
 * is changed. Each handler validates all of its input before touching any state.
 */
#include <stdlib.h>
#include <string.h>

#include "hcasim_int.h"

enum need { ANY, OFF, RUN, RUN_OR_UP, UP };

struct cmd_desc {
	unsigned opcode;
	const char *name;
	hcasim_cmd_fn fn;
	enum need need;
};

static const struct cmd_desc cmds[] = {
	{ OP_QUERY_FW, "QUERY_FW", cmd_query_fw, ANY },
	{ OP_MAP_FA, "MAP_FA", cmd_map_fa, OFF },
	{ OP_UNMAP_FA, "UNMAP_FA", cmd_unmap_fa, ANY },
	{ OP_RUN_FW, "RUN_FW", cmd_run_fw, OFF },
	{ OP_QUERY_DEV_CAP, "QUERY_DEV_CAP", cmd_query_dev_cap, RUN_OR_UP },
	{ OP_QUERY_ADAPTER, "QUERY_ADAPTER", cmd_query_adapter, RUN_OR_UP },
	{ OP_MOD_STAT_CFG, "MOD_STAT_CFG", cmd_mod_stat_cfg, RUN },
	{ OP_NOP, "NOP", cmd_nop, RUN_OR_UP },
	{ OP_SET_ICM_SIZE, "SET_ICM_SIZE", cmd_set_icm_size, RUN },
	{ OP_MAP_ICM_AUX, "MAP_ICM_AUX", cmd_map_icm_aux, RUN },
	{ OP_UNMAP_ICM_AUX, "UNMAP_ICM_AUX", cmd_unmap_icm_aux, RUN },
	{ OP_MAP_ICM, "MAP_ICM", cmd_map_icm, RUN_OR_UP },
	{ OP_UNMAP_ICM, "UNMAP_ICM", cmd_unmap_icm, RUN_OR_UP },
	{ OP_INIT_HCA, "INIT_HCA", cmd_init_hca, RUN },
	{ OP_CLOSE_HCA, "CLOSE_HCA", cmd_close_hca, UP },
	{ OP_QUERY_PORT, "QUERY_PORT", cmd_query_port, RUN_OR_UP },
	{ OP_SENSE_PORT, "SENSE_PORT", cmd_sense_port, RUN_OR_UP },
	{ OP_INIT_PORT, "INIT_PORT", cmd_init_port, UP },
	{ OP_CLOSE_PORT, "CLOSE_PORT", cmd_close_port, UP },
	{ OP_SET_PORT, "SET_PORT", cmd_set_port, UP },
	{ OP_MAD_IFC, "MAD_IFC", cmd_mad_ifc, UP },
	{ OP_CONF_SPECIAL_QP, "CONF_SPECIAL_QP", cmd_conf_special_qp, UP },
	{ OP_SW2HW_MPT, "SW2HW_MPT", cmd_sw2hw_mpt, UP },
	{ OP_HW2SW_MPT, "HW2SW_MPT", cmd_hw2sw_mpt, UP },
	{ OP_QUERY_MPT, "QUERY_MPT", cmd_query_mpt, UP },
	{ OP_WRITE_MTT, "WRITE_MTT", cmd_write_mtt, UP },
	{ OP_SW2HW_EQ, "SW2HW_EQ", cmd_sw2hw_eq, UP },
	{ OP_HW2SW_EQ, "HW2SW_EQ", cmd_hw2sw_eq, UP },
	{ OP_QUERY_EQ, "QUERY_EQ", cmd_query_eq, UP },
	{ OP_MAP_EQ, "MAP_EQ", cmd_map_eq, UP },
	{ OP_SW2HW_CQ, "SW2HW_CQ", cmd_sw2hw_cq, UP },
	{ OP_HW2SW_CQ, "HW2SW_CQ", cmd_hw2sw_cq, UP },
	{ OP_QUERY_CQ, "QUERY_CQ", cmd_query_cq, UP },
	{ OP_RST2INIT_QP, "RST2INIT_QP", cmd_qp_modify, UP },
	{ OP_INIT2INIT_QP, "INIT2INIT_QP", cmd_qp_modify, UP },
	{ OP_INIT2RTR_QP, "INIT2RTR_QP", cmd_qp_modify, UP },
	{ OP_RTR2RTS_QP, "RTR2RTS_QP", cmd_qp_modify, UP },
	{ OP_RTS2RTS_QP, "RTS2RTS_QP", cmd_qp_modify, UP },
	{ OP_SQERR2RTS_QP, "SQERR2RTS_QP", cmd_qp_modify, UP },
	{ OP_2ERR_QP, "2ERR_QP", cmd_qp_modify, UP },
	{ OP_2RST_QP, "2RST_QP", cmd_qp_modify, UP },
	{ OP_QUERY_QP, "QUERY_QP", cmd_query_qp, UP },
	{ OP_READ_MCG, "READ_MCG", cmd_read_mcg, UP },
	{ OP_WRITE_MCG, "WRITE_MCG", cmd_write_mcg, UP },
	{ OP_MGID_HASH, "MGID_HASH", cmd_mgid_hash, UP },
	{ OP_DIAG_RPRT, "DIAG_RPRT", cmd_diag_rprt, UP },
};

static const struct cmd_desc *cmd_lookup(unsigned opcode)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (cmds[i].opcode == opcode)
			return &cmds[i];
	return NULL;
}

const char *hcasim_cmd_name(unsigned opcode)
{
	const struct cmd_desc *d = cmd_lookup(opcode);

	return d ? d->name : "unknown";
}

static const char *state_name(enum hcasim_fw_state s)
{
	return s == FW_OFF ? "firmware not running" : s == FW_RUNNING ? "firmware running, HCA not initialised"
								      : "HCA initialised";
}

static bool state_ok(enum need need, enum hcasim_fw_state s)
{
	switch (need) {
	case ANY: return true;
	case OFF: return s == FW_OFF;
	case RUN: return s == FW_RUNNING;
	case RUN_OR_UP: return s != FW_OFF;
	case UP: return s == FW_HCA_UP;
	}
	return false;
}

/* Mailboxes are DMA'd by the command engine, not the datapath: they do not count as DMA after
 * close. A mailbox must be 4 KiB aligned (PRM); an unbacked address is a bad parameter. */
int hcasim_cmd_mbox_in(struct hcasim *h, struct hcasim_cmd *c, size_t len)
{
	if (len > sizeof(c->in))
		return ST_BAD_PARAM;
	if (c->in_param & 0xfff) {
		hcasim_refuse(h, "%s: input mailbox %#llx not 4 KiB aligned",
			      hcasim_cmd_name(c->opcode), (unsigned long long)c->in_param);
		return ST_BAD_PARAM;
	}
	if (!hcasim_dma_guard(h, c->in_param, len, false) || !h->ops.dma_read ||
	    h->ops.dma_read(h->ops.ctx, c->in_param, c->in, len) < 0) {
		hcasim_refuse(h, "%s: input mailbox %#llx not readable", hcasim_cmd_name(c->opcode),
			      (unsigned long long)c->in_param);
		return ST_BAD_PARAM;
	}
	return ST_OK;
}

/* The checks every command on a context table makes before touching an entry: the index lies
 * within the 2^log_num entries INIT_HCA gave the table, and (when `hw` is the table's ownership
 * bitmap) the entry is in hardware ownership exactly when the command needs it there: SW2HW_x
 * takes an entry from software, HW2SW_x and QUERY_x need one the hardware owns. */
int hcasim_cmd_ctx(struct hcasim *h, struct hcasim_cmd *c, const char *what, uint32_t idx,
		   unsigned log_num, const uint8_t *hw, bool want_hw)
{
	if (idx >= (1u << log_num)) {
		hcasim_refuse(h, "%s: %s %#x beyond its table (2^%u entries)",
			      hcasim_cmd_name(c->opcode), what, idx, log_num);
		return ST_BAD_INDEX;
	}
	if (hw && hcasim_bit(hw, idx) != want_hw) {
		hcasim_refuse(h, "%s: %s %#x %s hardware ownership", hcasim_cmd_name(c->opcode),
			      what, idx, want_hw ? "not in" : "already in");
		return ST_BAD_RES_STATE;
	}
	return ST_OK;
}

/* SW2HW_x, first half: the entry must be the software's; the new context comes in the mailbox. */
int hcasim_cmd_sw2hw_in(struct hcasim *h, struct hcasim_cmd *c, const char *what, uint32_t idx,
			unsigned log_num, const uint8_t *hw, size_t len)
{
	int st = hcasim_cmd_ctx(h, c, what, idx, log_num, hw, false);

	return st ? st : hcasim_cmd_mbox_in(h, c, len);
}

/* SW2HW_x, second half, once the context passed its checks: it is stored at ICM `va` and the
 * entry becomes the hardware's. Queues (cmpt_type >= 0) also need their cMPT entry mapped. */
int hcasim_cmd_sw2hw_store(struct hcasim *h, struct hcasim_cmd *c, int cmpt_type, uint32_t idx,
			   uint8_t *hw, uint64_t va, size_t len)
{
	if ((cmpt_type >= 0 && hcasim_cmpt_check(h, (unsigned)cmpt_type, idx) < 0) ||
	    hcasim_icm_write(h, va, c->in, len) < 0)
		return ST_ICM_ERROR;
	hcasim_bit_set(hw, idx, true);
	return ST_OK;
}

/* QUERY_x (and HW2SW_x with an output mailbox): the context entry at ICM `va` as the output. */
int hcasim_cmd_ctx_out(struct hcasim *h, struct hcasim_cmd *c, uint64_t va, size_t len)
{
	if (hcasim_icm_read(h, va, c->out, len) < 0)
		return ST_ICM_ERROR;
	c->out_len = len;
	return ST_OK;
}

static int mbox_out(struct hcasim *h, struct hcasim_cmd *c)
{
	if (c->out_param & 0xfff) {
		hcasim_refuse(h, "%s: output mailbox %#llx not 4 KiB aligned",
			      hcasim_cmd_name(c->opcode), (unsigned long long)c->out_param);
		return ST_BAD_PARAM;
	}
	if (!hcasim_dma_guard(h, c->out_param, c->out_len, true) || !h->ops.dma_write ||
	    h->ops.dma_write(h->ops.ctx, c->out_param, c->out, c->out_len) < 0) {
		hcasim_refuse(h, "%s: output mailbox %#llx not writable", hcasim_cmd_name(c->opcode),
			      (unsigned long long)c->out_param);
		return ST_BAD_PARAM;
	}
	return ST_OK;
}

static void command_done_event(struct hcasim *h, uint16_t token, int status, uint64_t out)
{
	uint8_t ev[HERMONPRM_HCR_COMPLETION_EVENT_ST_BYTES] = { 0 };
	uint32_t data[6];

	PRM_SET(hcr_completion_event, token, ev, token);
	PRM_SET(hcr_completion_event, status, ev, (uint32_t)status);
	PRM_SET(hcr_completion_event, out_param_h, ev, (uint32_t)(out >> 32));
	PRM_SET(hcr_completion_event, out_param_l, ev, (uint32_t)out);
	for (unsigned i = 0; i < 6; i++)
		data[i] = hermonprm_load_dword(ev, i);
	hcasim_async_event(h, 0x0a /* command done */, 0, data);
}

static int run(struct hcasim *h, struct hcasim_cmd *c)
{
	const struct cmd_desc *d = cmd_lookup(c->opcode);

	if (!d) {
		hcasim_refuse(h, "opcode %#x: no such command", c->opcode);
		return ST_BAD_OP;
	}
	if (h->fail_opcode == (int)c->opcode) {
		hcasim_refuse(h, "%s: failed by fault injection (status %#x)", d->name,
			      h->fail_status);
		return h->fail_status;
	}
	if (h->catastrophic && c->opcode != OP_QUERY_FW) {
		hcasim_refuse(h, "%s: device in catastrophic error, reset required", d->name);
		return ST_INTERNAL_ERR;
	}
	if (!state_ok(d->need, h->fw)) {
		hcasim_refuse(h, "%s: not allowed now (%s)", d->name, state_name(h->fw));
		return ST_BAD_SYS_STATE;
	}
	return d->fn(h, c);
}

void hcasim_hcr_go(struct hcasim *h)
{
	struct hcasim_cmd *c;
	uint8_t *r = h->hcr;
	int status;

	h->hcr_pending = true;
	if (h->stall_hcr)
		return;
	if (h->timeout_opcode >= 0 &&
	    PRM_GET(hca_command_register, opcode, r) == (uint32_t)h->timeout_opcode)
		return; /* never completes: the driver's timeout path is under test */
	h->hcr_pending = false;
	c = calloc(1, sizeof(*c));
	if (!c) {
		status = ST_INTERNAL_ERR;
		goto done;
	}
	c->in_param = (uint64_t)PRM_GET(hca_command_register, in_param_h, r) << 32 |
		      PRM_GET(hca_command_register, in_param_l, r);
	c->out_param = (uint64_t)PRM_GET(hca_command_register, out_param_h, r) << 32 |
		       PRM_GET(hca_command_register, out_param_l, r);
	c->in_mod = PRM_GET(hca_command_register, input_modifier, r);
	c->opcode = PRM_GET(hca_command_register, opcode, r);
	c->op_mod = PRM_GET(hca_command_register, opcode_modifier, r);
	h->cmd_count++;
	hcasim_faults_cmd_run(h, c->opcode);
	status = run(h, c);
	if (status == ST_OK)
		hcasim_faults_cmd_out(h, c);
	if (status == ST_OK && c->out_len)
		status = mbox_out(h, c);
	if (status == ST_OK && c->out_imm) {
		PRM_SET(hca_command_register, out_param_h, r, (uint32_t)(c->out_imm_val >> 32));
		PRM_SET(hca_command_register, out_param_l, r, (uint32_t)c->out_imm_val);
	}
done:
	h->last_status = (uint8_t)status;
	PRM_SET(hca_command_register, status, r, (uint32_t)status);
	PRM_SET(hca_command_register, go, r, 0);
	if (PRM_GET(hca_command_register, e, r) && h->fw == FW_HCA_UP)
		command_done_event(h, (uint16_t)PRM_GET(hca_command_register, token, r), status,
				   c && c->out_imm ? c->out_imm_val : 0);
	free(c);
}

int cmd_nop(struct hcasim *h, struct hcasim_cmd *c)
{
	(void)h;
	(void)c;
	return ST_OK;
}

/* SPDX-License-Identifier: MIT */
/*
 * The HCA command register (HCR, BAR0 + 0x80680) and one small wrapper per firmware command.
 *
 * Protocol (PRM "HCA Command Register"): wait until go = 0 and the
 * toggle bit matches ours, flip our toggle, write dwords 0..6 with dword 6 last (go = 1, t = new
 * toggle), poll every 10 µs until go = 0 and t = toggle (10 s timeout, the PRM's figure), then read
 * the status. Outputs of up to 8 bytes come back in dwords 3-4, larger ones in the out mailbox.
 */
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/hermon_prm.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>
#include "hermon.h"

/* Names by code: one list of codes, one string of names in the same order (no pointer table). */
static const char *hermon_name_of(const uint16_t *codes, size_t n, const char *names,
				  unsigned code, const char *none)
{
	for (size_t i = 0; i < n; i++, names += strlen(names) + 1)
		if (codes[i] == code)
			return names;
	return none;
}

static const uint16_t hermon_status_codes[] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x10, 0x20, 0x21,
	0x22, 0x30, 0x40, 0x50,
};

const char *hermon_status_name(unsigned status)
{
	return hermon_name_of(hermon_status_codes, ARRAY_SIZE(hermon_status_codes),
		"ok\0internal error\0bad operation\0bad parameter\0bad system state\0"
		"bad resource\0resource busy\0exceeds limit\0bad resource state\0bad index\0"
		"bad NVMEM\0ICM error\0bad QP state\0bad segment parameter\0register bound\0"
		"LAM not pre-allocated\0bad packet\0bad size\0multi-function request",
		status, "unknown status");
}

static const uint16_t hermon_opcode_codes[] = {
	HERMON_CMD_QUERY_DEV_CAP, HERMON_CMD_QUERY_FW, HERMON_CMD_INIT_HCA, HERMON_CMD_CLOSE_HCA,
	HERMON_CMD_INIT_PORT, HERMON_CMD_CLOSE_PORT, HERMON_CMD_SET_PORT, HERMON_CMD_SW2HW_MPT, HERMON_CMD_QUERY_MPT, HERMON_CMD_HW2SW_MPT,
	HERMON_CMD_WRITE_MTT, HERMON_CMD_MAP_EQ, HERMON_CMD_SW2HW_EQ, HERMON_CMD_HW2SW_EQ,
	HERMON_CMD_QUERY_EQ, HERMON_CMD_SW2HW_CQ, HERMON_CMD_HW2SW_CQ, HERMON_CMD_QUERY_CQ,
	HERMON_CMD_RST2INIT_QP, HERMON_CMD_INIT2RTR_QP, HERMON_CMD_RTR2RTS_QP,
	HERMON_CMD_RTS2RTS_QP, HERMON_CMD_2ERR_QP, HERMON_CMD_2RST_QP, HERMON_CMD_QUERY_QP,
	HERMON_CMD_CONF_SPECIAL_QP, HERMON_CMD_MAD_IFC, HERMON_CMD_READ_MCG, HERMON_CMD_WRITE_MCG,
	HERMON_CMD_MGID_HASH, HERMON_CMD_NOP, HERMON_CMD_QUERY_PORT, HERMON_CMD_SENSE_PORT,
	HERMON_CMD_RUN_FW, HERMON_CMD_UNMAP_ICM, HERMON_CMD_MAP_ICM, HERMON_CMD_UNMAP_ICM_AUX,
	HERMON_CMD_MAP_ICM_AUX, HERMON_CMD_SET_ICM_SIZE, HERMON_CMD_UNMAP_FA, HERMON_CMD_MAP_FA,
};

const char *hermon_opcode_name(unsigned opcode)
{
	return hermon_name_of(hermon_opcode_codes, ARRAY_SIZE(hermon_opcode_codes),
		"QUERY_DEV_CAP\0QUERY_FW\0INIT_HCA\0CLOSE_HCA\0INIT_PORT\0"
		"CLOSE_PORT\0SET_PORT\0SW2HW_MPT\0QUERY_MPT\0HW2SW_MPT\0WRITE_MTT\0MAP_EQ\0"
		"SW2HW_EQ\0HW2SW_EQ\0QUERY_EQ\0SW2HW_CQ\0HW2SW_CQ\0QUERY_CQ\0RST2INIT_QP\0"
		"INIT2RTR_QP\0RTR2RTS_QP\0RTS2RTS_QP\0" "2ERR_QP\0" "2RST_QP\0QUERY_QP\0"
		"CONF_SPECIAL_QP\0MAD_IFC\0READ_MCG\0WRITE_MCG\0MGID_HASH\0NOP\0QUERY_PORT\0"
		"SENSE_PORT\0RUN_FW\0UNMAP_ICM\0MAP_ICM\0UNMAP_ICM_AUX\0MAP_ICM_AUX\0"
		"SET_ICM_SIZE\0UNMAP_FA\0MAP_FA", opcode, "command");
}

/* Firmware status → our error code. */
static int hermon_status_errno(unsigned status)
{
	switch (status) {
	case 0x02: return -ENOTSUP;
	case 0x03: case 0x0a: case 0x20: case 0x30: return -EINVAL;
	case 0x06: case 0x21: return -EBUSY;
	case 0x08: case 0x40: return -ENOSPC;
	default: return -EIO;
	}
}

static void hermon_hcr_read(struct hermon *h, uint8_t hcr[HERMON_HCR_DWORDS * 4])
{
	for (unsigned i = 0; i < HERMON_HCR_DWORDS; i++)
		hermonprm_store_dword(hcr, i, readl_be(&h->config, HERMON_HCR_BASE + 4 * i));
}

void hermon_cmd_why(const struct hermon *h, int rc, char *buf, size_t len)
{
	const char *op = hermon_opcode_name(h->last_opcode);

	if (rc == -ETIMEDOUT)
		ksnprintf(buf, len, "%s timed out (%u s): reset HCA", op,
			  HERMON_HCR_TIMEOUT_MS / 1000);
	else if (h->last_status && h->last_status != 0xff)
		ksnprintf(buf, len, "%s failed: status 0x%02x (%s)", op, h->last_status,
			  hermon_status_name(h->last_status));
	else
		ksnprintf(buf, len, "%s", ib_strerror(rc));
}

/* Records and reports a failed command: a PRM status (said unless quiet), or an HCR whose go bit
 * never cleared (status 0xff; always said, and no command gets through until the reset). */
static int hermon_cmd_failed(struct hermon *h, unsigned opcode, unsigned status,
			     const char *pre, int rc)
{
	char why[80];

	h->last_opcode = (uint16_t)opcode;
	h->last_status = (uint8_t)status;
	if (status == 0xff)
		h->hcr_stuck = true;
	else if (h->quiet)
		return rc;
	hermon_cmd_why(h, rc, why, sizeof(why));
	hermon_err(h, "%s%s", pre, why);
	return rc;
}

/* Waits until software owns the HCR: go clear and the toggle bit equal to ours. */
static int hermon_hcr_wait(struct hermon *h, uint8_t hcr[HERMON_HCR_DWORDS * 4])
{
	uint64_t start = clock_ms();

	for (;;) {
		uint32_t dw6 = readl_be(&h->config, HERMON_HCR_BASE + 24);

		hermonprm_store_dword(hcr, 6, dw6);
		if (!hermonprm_hca_command_register_st_get_go(hcr) &&
		    hermonprm_hca_command_register_st_get_t(hcr) == h->toggle)
			return 0;
		if (clock_ms() - start >= HERMON_HCR_TIMEOUT_MS)
			return -ETIMEDOUT;
		udelay(HERMON_HCR_POLL_US);
	}
}

/* A command's fixed shape in one word (each call site passes a constant): opcode, op_mod,
 * whether input and output travel in mailboxes, and the output's length. */
#define CMD_OP_MOD(m)    ((uint32_t)(m) << 12)
#define CMD_IN_MBOX      (1u << 14)
#define CMD_OUT_MBOX     (1u << 15)
#define CMD_OUT_LEN(n)   ((uint32_t)(n) << 16)
#define CMD_OUT(n)       (CMD_OUT_MBOX | CMD_OUT_LEN(n))

/* The generic HCR call. in/out: immediate (up to 8 bytes) or mailbox (copied). */
static int hermon_cmd(struct hermon *h, uint32_t spec, uint32_t in_mod, const void *in,
		      size_t in_len, void *out)
{
	uint8_t hcr[HERMON_HCR_DWORDS * 4];
	unsigned opcode = spec & 0xfff, op_mod = (spec >> 12) & 3, status;
	bool in_mbox = spec & CMD_IN_MBOX, out_mbox = spec & CMD_OUT_MBOX;
	size_t out_len = spec >> 16;
	int rc;

	if ((in_mbox && in_len > HERMON_MBOX_SIZE) || (!in_mbox && in_len > 8) ||
	    (out_mbox && out_len > HERMON_MBOX_SIZE) || (!out_mbox && out_len > 8))
		return -EINVAL;

	if (h->hcr_stuck)
		return -EIO;   /* said once already: nothing gets through until the reset */
	if ((rc = hermon_hcr_wait(h, hcr)) != 0)
		return hermon_cmd_failed(h, opcode, 0xff, "HCR busy: ", rc);
	h->toggle ^= 1;

	memset(hcr, 0, sizeof(hcr));
	if (in_mbox) {
		uint64_t bus = virt_to_bus(h->mbox_in);

		memset(h->mbox_in, 0, HERMON_MBOX_SIZE);
		if (in_len)
			memcpy(h->mbox_in, in, in_len);
		hermonprm_hca_command_register_st_set_in_param_h(hcr, (uint32_t)(bus >> 32));
		hermonprm_hca_command_register_st_set_in_param_l(hcr, (uint32_t)bus);
	} else if (in_len) {
		/* Immediate input: 64-bit big-endian value in dwords 0-1, as the caller laid it out. */
		uint8_t imm[8] = { 0 };

		memcpy(imm, in, in_len);
		hermonprm_hca_command_register_st_set_in_param_h(hcr, hermonprm_load_dword(imm, 0));
		hermonprm_hca_command_register_st_set_in_param_l(hcr, hermonprm_load_dword(imm, 1));
	}
	hermonprm_hca_command_register_st_set_input_modifier(hcr, in_mod);
	if (out_mbox) {
		uint64_t bus = virt_to_bus(h->mbox_out);

		memset(h->mbox_out, 0, HERMON_MBOX_SIZE);
		hermonprm_hca_command_register_st_set_out_param_h(hcr, (uint32_t)(bus >> 32));
		hermonprm_hca_command_register_st_set_out_param_l(hcr, (uint32_t)bus);
	}
	hermonprm_hca_command_register_st_set_opcode(hcr, opcode);
	hermonprm_hca_command_register_st_set_opcode_modifier(hcr, op_mod);
	hermonprm_hca_command_register_st_set_go(hcr, 1);
	hermonprm_hca_command_register_st_set_t(hcr, h->toggle);
	hermonprm_hca_command_register_st_set_e(hcr, h->cmd_event);

	/* Mailbox contents must be visible before the device sees go. */
	wmb();
	for (unsigned i = 0; i < HERMON_HCR_DWORDS; i++) {
		writel_be(&h->config, HERMON_HCR_BASE + 4 * i, hermonprm_load_dword(hcr, i));
		wmb();   /* dword 6 (go) strictly last */
	}

	if ((rc = hermon_hcr_wait(h, hcr)) != 0)
		return hermon_cmd_failed(h, opcode, 0xff, "", rc);
	hermon_hcr_read(h, hcr);
	status = hermonprm_hca_command_register_st_get_status(hcr);
	if (status != 0)
		return hermon_cmd_failed(h, opcode, status, "", hermon_status_errno(status));
	rmb();
	if (out_len) {
		if (out_mbox) {
			memcpy(out, h->mbox_out, out_len);
		} else {
			uint8_t imm[8];

			hermonprm_store_dword(imm, 0,
					      hermonprm_hca_command_register_st_get_out_param_h(hcr));
			hermonprm_store_dword(imm, 1,
					      hermonprm_hca_command_register_st_get_out_param_l(hcr));
			memcpy(out, imm, out_len);
		}
	}
	return 0;
}

/* ---- one wrapper per command: its name says what it does, its body says how ---- */

int hermon_cmd_query_fw(struct hermon *h, void *query_fw)
{
	return hermon_cmd(h, HERMON_CMD_QUERY_FW | CMD_OUT(HERMONPRM_QUERY_FW_ST_BYTES),
			  0, NULL, 0, query_fw);
}

int hermon_cmd_query_dev_cap(struct hermon *h, void *dev_cap)
{
	return hermon_cmd(h, HERMON_CMD_QUERY_DEV_CAP | CMD_OUT(HERMONPRM_QUERY_DEV_CAP_ST_BYTES),
			  0, NULL, 0, dev_cap);
}

/* MAP_FA / MAP_ICM_AUX / MAP_ICM take `count` 16-byte mapping entries in one mailbox. */
int hermon_cmd_map_fa(struct hermon *h, const void *vpm, unsigned count)
{
	return hermon_cmd(h, HERMON_CMD_MAP_FA | CMD_IN_MBOX,
			  count, vpm, count * HERMONPRM_VIRTUAL_PHYSICAL_MAPPING_ST_BYTES, NULL);
}

int hermon_cmd_unmap_fa(struct hermon *h)
{
	return hermon_cmd(h, HERMON_CMD_UNMAP_FA, 0, NULL, 0, NULL);
}

int hermon_cmd_run_fw(struct hermon *h)
{
	return hermon_cmd(h, HERMON_CMD_RUN_FW, 0, NULL, 0, NULL);
}

int hermon_cmd_set_icm_size(struct hermon *h, uint64_t icm_size, uint64_t *aux_pages)
{
	uint8_t in[HERMONPRM_SCALAR_PARAMETER_ST_BYTES] = { 0 };
	uint8_t out[HERMONPRM_SCALAR_PARAMETER_ST_BYTES] = { 0 };
	int rc;

	hermonprm_scalar_parameter_st_set_value_hi(in, (uint32_t)(icm_size >> 32));
	hermonprm_scalar_parameter_st_set_value(in, (uint32_t)icm_size);
	rc = hermon_cmd(h, HERMON_CMD_SET_ICM_SIZE | CMD_OUT_LEN(sizeof(out)),
			0, in, sizeof(in), out);
	if (rc == 0)
		*aux_pages = (uint64_t)hermonprm_scalar_parameter_st_get_value_hi(out) << 32 |
			     hermonprm_scalar_parameter_st_get_value(out);
	return rc;
}

int hermon_cmd_map_icm_aux(struct hermon *h, const void *vpm, unsigned count)
{
	return hermon_cmd(h, HERMON_CMD_MAP_ICM_AUX | CMD_IN_MBOX,
			  count, vpm, count * HERMONPRM_VIRTUAL_PHYSICAL_MAPPING_ST_BYTES, NULL);
}

int hermon_cmd_unmap_icm_aux(struct hermon *h)
{
	return hermon_cmd(h, HERMON_CMD_UNMAP_ICM_AUX, 0, NULL, 0, NULL);
}

int hermon_cmd_map_icm(struct hermon *h, const void *vpm, unsigned count)
{
	return hermon_cmd(h, HERMON_CMD_MAP_ICM | CMD_IN_MBOX,
			  count, vpm, count * HERMONPRM_VIRTUAL_PHYSICAL_MAPPING_ST_BYTES, NULL);
}

/* in_param = ICM virtual address, in_mod = number of 4 KiB pages. */
int hermon_cmd_unmap_icm(struct hermon *h, uint64_t icm_offset, uint32_t pages)
{
	uint8_t in[HERMONPRM_SCALAR_PARAMETER_ST_BYTES] = { 0 };

	hermonprm_scalar_parameter_st_set_value_hi(in, (uint32_t)(icm_offset >> 32));
	hermonprm_scalar_parameter_st_set_value(in, (uint32_t)icm_offset);
	return hermon_cmd(h, HERMON_CMD_UNMAP_ICM, pages, in, sizeof(in), NULL);
}

int hermon_cmd_init_hca(struct hermon *h, const void *init_hca)
{
	return hermon_cmd(h, HERMON_CMD_INIT_HCA | CMD_IN_MBOX,
			  0, init_hca, HERMONPRM_INIT_HCA_ST_BYTES, NULL);
}

int hermon_cmd_close_hca(struct hermon *h)
{
	return hermon_cmd(h, HERMON_CMD_CLOSE_HCA, 0, NULL, 0, NULL);
}

int hermon_cmd_sw2hw_mpt(struct hermon *h, unsigned index, const void *mpt)
{
	return hermon_cmd(h, HERMON_CMD_SW2HW_MPT | CMD_IN_MBOX,
			  index, mpt, HERMONPRM_MPT_ST_BYTES, NULL);
}

int hermon_cmd_hw2sw_mpt(struct hermon *h, unsigned index)
{
	return hermon_cmd(h, HERMON_CMD_HW2SW_MPT, index, NULL, 0, NULL);
}

int hermon_cmd_query_mpt(struct hermon *h, unsigned index, void *mpt)
{
	return hermon_cmd(h, HERMON_CMD_QUERY_MPT | CMD_OUT(HERMONPRM_MPT_ST_BYTES),
			  index, NULL, 0, mpt);
}

/* Mailbox: MTT table offset (8 bytes), 8 reserved bytes, then `count` MTT entries. */
int hermon_cmd_write_mtt(struct hermon *h, uint64_t mtt_base_addr, const uint64_t *pa,
			 unsigned count)
{
	uint8_t buf[16 + 8 * 64];

	if (count == 0 || count > 64)
		return -EINVAL;
	memset(buf, 0, sizeof(buf));
	hermonprm_scalar_parameter_st_set_value_hi(buf, (uint32_t)(mtt_base_addr >> 32));
	hermonprm_scalar_parameter_st_set_value(buf, (uint32_t)mtt_base_addr);
	for (unsigned i = 0; i < count; i++) {
		uint8_t *mtt = buf + 16 + i * HERMONPRM_MTT_ST_BYTES;

		hermonprm_mtt_st_set_ptag_h(mtt, (uint32_t)(pa[i] >> 32));
		hermonprm_mtt_st_set_ptag_l(mtt, (uint32_t)pa[i] >> 3);
		hermonprm_mtt_st_set_p(mtt, 1);
	}
	return hermon_cmd(h, HERMON_CMD_WRITE_MTT | CMD_IN_MBOX, count, buf, 16 + 8 * count, NULL);
}

int hermon_cmd_sw2hw_eq(struct hermon *h, unsigned eqn, const void *eqc)
{
	return hermon_cmd(h, HERMON_CMD_SW2HW_EQ | CMD_IN_MBOX,
			  eqn, eqc, HERMONPRM_EQC_ST_BYTES, NULL);
}

/* op_mod 1: return the EQ context (PRM; iPXE and Linux both ask for it). */
int hermon_cmd_hw2sw_eq(struct hermon *h, unsigned eqn, void *eqc)
{
	return hermon_cmd(h, HERMON_CMD_HW2SW_EQ | CMD_OP_MOD(1) | CMD_OUT(HERMONPRM_EQC_ST_BYTES),
			  eqn, NULL, 0, eqc);
}

int hermon_cmd_query_eq(struct hermon *h, unsigned eqn, void *eqc)
{
	return hermon_cmd(h, HERMON_CMD_QUERY_EQ | CMD_OUT(HERMONPRM_EQC_ST_BYTES),
			  eqn, NULL, 0, eqc);
}

/* in_param = event mask; in_mod bit 31 = unmap, low bits = EQN. */
int hermon_cmd_map_eq(struct hermon *h, unsigned eqn, bool unmap, uint64_t event_mask)
{
	uint8_t in[8];

	hermonprm_store_dword(in, 0, (uint32_t)(event_mask >> 32));
	hermonprm_store_dword(in, 1, (uint32_t)event_mask);
	return hermon_cmd(h, HERMON_CMD_MAP_EQ, (unmap ? 0x80000000u : 0) | eqn, in, 8, NULL);
}

int hermon_cmd_sw2hw_cq(struct hermon *h, unsigned cqn, const void *cqc)
{
	return hermon_cmd(h, HERMON_CMD_SW2HW_CQ | CMD_IN_MBOX,
			  cqn, cqc, HERMONPRM_COMPLETION_QUEUE_CONTEXT_ST_BYTES, NULL);
}

int hermon_cmd_hw2sw_cq(struct hermon *h, unsigned cqn, void *cqc)
{
	return hermon_cmd(h, HERMON_CMD_HW2SW_CQ |
			  CMD_OUT(HERMONPRM_COMPLETION_QUEUE_CONTEXT_ST_BYTES),
			  cqn, NULL, 0, cqc);
}

int hermon_cmd_query_cq(struct hermon *h, unsigned cqn, void *cqc)
{
	return hermon_cmd(h, HERMON_CMD_QUERY_CQ |
			  CMD_OUT(HERMONPRM_COMPLETION_QUEUE_CONTEXT_ST_BYTES),
			  cqn, NULL, 0, cqc);
}

static int hermon_cmd_qp_transition(struct hermon *h, unsigned opcode, uint32_t qpn,
				    const void *qpctx)
{
	return hermon_cmd(h, opcode | CMD_IN_MBOX,
			  qpn, qpctx, HERMONPRM_QP_EE_STATE_TRANSITIONS_ST_BYTES, NULL);
}

int hermon_cmd_rst2init_qp(struct hermon *h, uint32_t qpn, const void *qpctx)
{
	return hermon_cmd_qp_transition(h, HERMON_CMD_RST2INIT_QP, qpn, qpctx);
}

int hermon_cmd_init2rtr_qp(struct hermon *h, uint32_t qpn, const void *qpctx)
{
	return hermon_cmd_qp_transition(h, HERMON_CMD_INIT2RTR_QP, qpn, qpctx);
}

int hermon_cmd_rtr2rts_qp(struct hermon *h, uint32_t qpn, const void *qpctx)
{
	return hermon_cmd_qp_transition(h, HERMON_CMD_RTR2RTS_QP, qpn, qpctx);
}

int hermon_cmd_rts2rts_qp(struct hermon *h, uint32_t qpn, const void *qpctx)
{
	return hermon_cmd_qp_transition(h, HERMON_CMD_RTS2RTS_QP, qpn, qpctx);
}

/* op_mod 3: no context returned (iPXE, Linux MLX4_CMD_2RST_QP with no mailbox). */
int hermon_cmd_2rst_qp(struct hermon *h, uint32_t qpn)
{
	return hermon_cmd(h, HERMON_CMD_2RST_QP | CMD_OP_MOD(0x3), qpn, NULL, 0, NULL);
}

int hermon_cmd_2err_qp(struct hermon *h, uint32_t qpn)
{
	return hermon_cmd(h, HERMON_CMD_2ERR_QP, qpn, NULL, 0, NULL);
}

int hermon_cmd_query_qp(struct hermon *h, uint32_t qpn, void *qpctx)
{
	return hermon_cmd(h, HERMON_CMD_QUERY_QP |
			  CMD_OUT(HERMONPRM_QP_EE_STATE_TRANSITIONS_ST_BYTES),
			  qpn, NULL, 0, qpctx);
}

int hermon_cmd_conf_special_qp(struct hermon *h, uint32_t base_qpn)
{
	return hermon_cmd(h, HERMON_CMD_CONF_SPECIAL_QP, base_qpn, NULL, 0, NULL);
}

/* op_mod bit 0 / bit 1: skip the M_Key / B_Key check — only for MADs we issue ourselves; an SM's
 * Set forwarded from the wire keeps the firmware's M_Key protection. */
int hermon_cmd_mad_ifc(struct hermon *h, unsigned port, bool skip_keys, const void *mad_in,
		       void *mad_out)
{
	return hermon_cmd(h, HERMON_CMD_MAD_IFC | CMD_OP_MOD(skip_keys ? 0x3 : 0x0) | CMD_IN_MBOX |
			  CMD_OUT(256),
			  port, mad_in, 256, mad_out);
}

int hermon_cmd_read_mcg(struct hermon *h, unsigned index, void *mcg)
{
	return hermon_cmd(h, HERMON_CMD_READ_MCG | CMD_OUT(HERMONPRM_MCG_ENTRY_ST_BYTES),
			  index, NULL, 0, mcg);
}

int hermon_cmd_write_mcg(struct hermon *h, unsigned index, const void *mcg)
{
	return hermon_cmd(h, HERMON_CMD_WRITE_MCG | CMD_IN_MBOX,
			  index, mcg, HERMONPRM_MCG_ENTRY_ST_BYTES, NULL);
}

int hermon_cmd_mgid_hash(struct hermon *h, const uint8_t gid[16], unsigned *hash)
{
	uint8_t out[HERMONPRM_MGM_HASH_ST_BYTES] = { 0 };
	int rc;

	rc = hermon_cmd(h, HERMON_CMD_MGID_HASH | CMD_IN_MBOX | CMD_OUT_LEN(sizeof(out)),
			0, gid, 16, out);
	if (rc == 0)
		*hash = hermonprm_mgm_hash_st_get_hash(out);
	return rc;
}

int hermon_cmd_init_port(struct hermon *h, unsigned port)
{
	return hermon_cmd(h, HERMON_CMD_INIT_PORT, port, NULL, 0, NULL);
}

int hermon_cmd_close_port(struct hermon *h, unsigned port)
{
	return hermon_cmd(h, HERMON_CMD_CLOSE_PORT, port, NULL, 0, NULL);
}

/* op_mod 0 = IB port parameters (set_port_ib). */
int hermon_cmd_set_port(struct hermon *h, unsigned port, const void *set_port_ib)
{
	return hermon_cmd(h, HERMON_CMD_SET_PORT | CMD_IN_MBOX,
			  port, set_port_ib, HERMONPRM_SET_PORT_IB_ST_BYTES, NULL);
}

int hermon_cmd_query_port(struct hermon *h, unsigned port, void *query_port)
{
	return hermon_cmd(h, HERMON_CMD_QUERY_PORT | CMD_OUT(HERMONPRM_QUERY_PORT_CAP_ST_BYTES),
			  port, NULL, 0, query_port);
}

int hermon_cmd_sense_port(struct hermon *h, unsigned port, unsigned *type)
{
	uint8_t out[HERMONPRM_SENSE_PORT_ST_BYTES] = { 0 };
	int rc;

	rc = hermon_cmd(h, HERMON_CMD_SENSE_PORT | CMD_OUT_LEN(sizeof(out)), port, NULL, 0, out);
	if (rc == 0)
		*type = hermonprm_sense_port_st_get_port_type(out);
	return rc;
}

int hermon_cmd_nop(struct hermon *h)
{
	return hermon_cmd(h, HERMON_CMD_NOP, 0, NULL, 0, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * Firmware bring-up commands: QUERY_FW, MAP_FA / UNMAP_FA, RUN_FW, QUERY_DEV_CAP, QUERY_ADAPTER,
 * MOD_STAT_CFG. The capabilities are those of a plausible ConnectX-3 (two IB ports, 4 KiB MTU).
 */
#include <string.h>

#include "hcasim_int.h"

int cmd_query_fw(struct hcasim *h, struct hcasim_cmd *c)
{
	uint8_t *o = c->out;

	(void)h;
	PRM_SET(query_fw, fw_rev_major, o, HCASIM_FW_MAJOR);
	PRM_SET(query_fw, fw_rev_minor, o, HCASIM_FW_MINOR);
	PRM_SET(query_fw, fw_rev_subminor, o, HCASIM_FW_SUBMINOR);
	PRM_SET(query_fw, fw_pages, o, HCASIM_FW_PAGES);
	PRM_SET(query_fw, cmd_interface_rev, o, 3);
	PRM_SET(query_fw, log_max_outstanding_cmd, o, 0);
	PRM_SET(query_fw, fw_year, o, 0x2026);
	PRM_SET(query_fw, fw_month, o, 0x11);
	PRM_SET(query_fw, fw_day, o, 0x22);
	PRM_SET(query_fw, clr_int_base_offset_l, o, HCASIM_CLR_INT_OFF);
	PRM_SET(query_fw, clr_int_bar, o, 0);
	PRM_SET(query_fw, error_buf_offset_l, o, HCASIM_ERRBUF_OFF);
	PRM_SET(query_fw, error_buf_size, o, HCASIM_ERRBUF_DWORDS);
	PRM_SET(query_fw, error_buf_bar, o, 0);
	c->out_len = HERMONPRM_QUERY_FW_ST_BYTES;
	return ST_OK;
}

/* Parse in_mod virtual_physical_mapping entries (MAP_FA, MAP_ICM_AUX, MAP_ICM). Every block must
 * be naturally aligned to its own size (log2size in 4 KiB pages). With sequential_va the va field
 * is ignored and blocks follow each other from *next_va (firmware area, AUX area). All entries
 * are checked before any is applied, and a failure undoes the ones already applied. */
int hcasim_map_entries(struct hcasim *h, struct hcasim_cmd *c, struct hcasim_vmap *m,
		       bool sequential_va, uint64_t next_va)
{
	unsigned n = c->in_mod;
	uint64_t first_va = next_va;
	int st;

	if (n == 0 || n > 4096 / HERMONPRM_VIRTUAL_PHYSICAL_MAPPING_ST_BYTES) {
		hcasim_refuse(h, "%s: %u mapping entries (1..256 allowed)",
			      hcasim_cmd_name(c->opcode), n);
		return ST_BAD_PARAM;
	}
	st = hcasim_cmd_mbox_in(h, c, n * HERMONPRM_VIRTUAL_PHYSICAL_MAPPING_ST_BYTES);
	if (st)
		return st;
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *e = c->in + i * HERMONPRM_VIRTUAL_PHYSICAL_MAPPING_ST_BYTES;
		unsigned lg = PRM_GET(virtual_physical_mapping, log2size, e);
		uint64_t pa = (uint64_t)PRM_GET(virtual_physical_mapping, pa_h, e) << 32 |
			      (uint64_t)PRM_GET(virtual_physical_mapping, pa_l, e) * HCASIM_PAGE;
		uint64_t va = (uint64_t)PRM_GET(virtual_physical_mapping, va_h, e) << 32 |
			      (uint64_t)PRM_GET(virtual_physical_mapping, va_l, e) * HCASIM_PAGE;
		uint64_t len = (uint64_t)HCASIM_PAGE << (lg > 40 ? 40 : lg);

		if (sequential_va)
			va = next_va;
		/* The PRM wants each block naturally aligned. For FA/AUX the firmware places blocks
		 * itself (one after the other), so only the physical side is checked there. */
		if (lg > 30 || (pa & (len - 1)) || (!sequential_va && (va & (len - 1))) ||
		    hcasim_vmap_add(m, va, pa, len) < 0) {
			hcasim_refuse(h, "%s: entry %u (va %#llx pa %#llx log2size %u) misaligned or "
				      "overlaps a mapping", hcasim_cmd_name(c->opcode), i,
				      (unsigned long long)va, (unsigned long long)pa, lg);
			if (sequential_va)
				hcasim_vmap_remove(m, first_va, next_va - first_va);
			for (unsigned j = 0; !sequential_va && j < i; j++) {
				const uint8_t *u = c->in + j * HERMONPRM_VIRTUAL_PHYSICAL_MAPPING_ST_BYTES;

				hcasim_vmap_remove(m,
					(uint64_t)PRM_GET(virtual_physical_mapping, va_h, u) << 32 |
					(uint64_t)PRM_GET(virtual_physical_mapping, va_l, u) * HCASIM_PAGE,
					(uint64_t)HCASIM_PAGE << PRM_GET(virtual_physical_mapping, log2size, u));
			}
			return ST_BAD_PARAM;
		}
		next_va += len;
	}
	return ST_OK;
}

int cmd_map_fa(struct hcasim *h, struct hcasim_cmd *c)
{
	return hcasim_map_entries(h, c, &h->fa, true, h->fa.bytes);
}

int cmd_unmap_fa(struct hcasim *h, struct hcasim_cmd *c)
{
	(void)c;
	if (h->fw == FW_HCA_UP) {
		hcasim_refuse(h, "UNMAP_FA: HCA still initialised (CLOSE_HCA first)");
		return ST_BAD_SYS_STATE;
	}
	/* The firmware stops: whatever it had mapped is forgotten with it. */
	hcasim_vmap_clear(&h->fa);
	hcasim_vmap_clear(&h->aux);
	hcasim_vmap_clear(&h->icm);
	h->icm_size_set = false;
	h->fw = FW_OFF;
	return ST_OK;
}

int cmd_run_fw(struct hcasim *h, struct hcasim_cmd *c)
{
	static const char sig[16] = "hcasim fw image";
	uint64_t pa, avail;

	(void)c;
	if (h->fa.bytes < (uint64_t)HCASIM_FW_PAGES * HCASIM_PAGE) {
		hcasim_refuse(h, "RUN_FW: firmware area has %llu pages, QUERY_FW asked for %u",
			      (unsigned long long)(h->fa.bytes / HCASIM_PAGE), HCASIM_FW_PAGES);
		return ST_BAD_RES_STATE;
	}
	/* The firmware really lives in those pages: stamp the first one, so a driver that hands
	 * out memory it also uses sees it clobbered, as it would on silicon. */
	h->fw = FW_RUNNING;
	if (hcasim_vmap_lookup(&h->fa, 0, &pa, &avail))
		hcasim_dma_write(h, pa, sig, sizeof(sig));
	return ST_OK;
}

int cmd_query_dev_cap(struct hcasim *h, struct hcasim_cmd *c)
{
	uint8_t *o = c->out;

	PRM_SET(query_dev_cap, log_max_qp, o, 18);
	PRM_SET(query_dev_cap, log2_rsvd_qps, o, 6);
	PRM_SET(query_dev_cap, log_max_qp_sz, o, 14);
	PRM_SET(query_dev_cap, log_max_srq_sz, o, 14);
	PRM_SET(query_dev_cap, log_max_srqs, o, 16);
	PRM_SET(query_dev_cap, log2_rsvd_srqs, o, 6);
	PRM_SET(query_dev_cap, log_max_cq, o, 16);
	PRM_SET(query_dev_cap, log2_rsvd_cqs, o, 7);
	PRM_SET(query_dev_cap, log_max_cq_sz, o, 22);
	PRM_SET(query_dev_cap, num_rsvd_eqs, o, 32);
	PRM_SET(query_dev_cap, log_max_eq, o, 9);
	PRM_SET(query_dev_cap, log2_rsvd_eqs, o, 5);
	PRM_SET(query_dev_cap, log_max_d_mpts, o, 20);
	PRM_SET(query_dev_cap, log_max_eq_sz, o, 22);
	PRM_SET(query_dev_cap, log_max_mtts, o, 24);
	PRM_SET(query_dev_cap, log2_rsvd_mrws, o, 4);
	PRM_SET(query_dev_cap, log_max_mrw_sz, o, 64);
	PRM_SET(query_dev_cap, log2_rsvd_mtts, o, 4);
	PRM_SET(query_dev_cap, log_max_ra_res_qp, o, 4);
	PRM_SET(query_dev_cap, log_max_ra_req_qp, o, 4);
	PRM_SET(query_dev_cap, log_max_ra_res_global, o, 20);
	PRM_SET(query_dev_cap, num_ports, o, h->cfg.num_ports);
	PRM_SET(query_dev_cap, local_ca_ack_delay, o, 15);
	PRM_SET(query_dev_cap, log_max_gid, o, 7);
	PRM_SET(query_dev_cap, log_max_msg, o, 30);
	PRM_SET(query_dev_cap, log_max_pkey, o, 7);
	PRM_SET(query_dev_cap, stat_rate_support, o, 0x100f);
	PRM_SET(query_dev_cap, rc, o, 1);
	PRM_SET(query_dev_cap, ud, o, 1);
	/* The model raises PORT_MGMNT_CHANGE (0x1d) for the SM's Sets, MAD_IFC ones included, so it
	 * says so: Linux mlx4 maps that event and stops deriving it from the Sets it forwards only
	 * when this bit is set (eq.c get_async_ev_mask, mlx4_ib mad.c smp_snoop). */
	PRM_SET(query_dev_cap, port_mng_chg_ev, o, 1);
	PRM_SET(query_dev_cap, pkv, o, 1);
	PRM_SET(query_dev_cap, qkv, o, 1);
	PRM_SET(query_dev_cap, log_pg_sz, o, 12);
	PRM_SET(query_dev_cap, uar_sz, o, 3); /* 8 MiB UAR BAR: log2(size) - 20 */
	PRM_SET(query_dev_cap, num_rsvd_uars, o, 8);
	PRM_SET(query_dev_cap, max_desc_sz_sq, o, 1008);
	PRM_SET(query_dev_cap, max_sg_sq, o, 32);
	PRM_SET(query_dev_cap, max_desc_sz_rq, o, 512);
	PRM_SET(query_dev_cap, max_sg_rq, o, 32);
	PRM_SET(query_dev_cap, log_max_mcg, o, 13);
	PRM_SET(query_dev_cap, log_max_qp_mcg, o, 7);
	PRM_SET(query_dev_cap, log_max_pd, o, 23);
	PRM_SET(query_dev_cap, qpc_entry_sz, o, HCASIM_QPC_SZ);
	PRM_SET(query_dev_cap, rdmardc_entry_sz, o, HCASIM_RDMARC_SZ);
	PRM_SET(query_dev_cap, altc_entry_sz, o, HCASIM_ALTC_SZ);
	PRM_SET(query_dev_cap, aux_entry_sz, o, HCASIM_AUXC_SZ);
	PRM_SET(query_dev_cap, cqc_entry_sz, o, HCASIM_CQC_SZ);
	PRM_SET(query_dev_cap, eqc_entry_sz, o, HCASIM_EQC_SZ);
	PRM_SET(query_dev_cap, c_mpt_entry_sz, o, HCASIM_CMPT_SZ);
	PRM_SET(query_dev_cap, srq_entry_sz, o, HCASIM_SRQC_SZ);
	PRM_SET(query_dev_cap, d_mpt_entry_sz, o, HCASIM_DMPT_SZ);
	PRM_SET(query_dev_cap, mtt_entry_sz, o, HCASIM_MTT_SZ);
	PRM_SET(query_dev_cap, max_icm_size_h, o, 0x100);
	PRM_SET(query_dev_cap, max_icm_size_l, o, 0);
	c->out_len = HERMONPRM_QUERY_DEV_CAP_ST_BYTES;
	return ST_OK;
}

int cmd_query_adapter(struct hcasim *h, struct hcasim_cmd *c)
{
	static const char psid[16] = "MT_1090120019";
	uint8_t *vsd = PRM_SUB(query_adapter, vsd, c->out);

	(void)h;
	PRM_SET(query_adapter, intapin, c->out, HCASIM_INTA_PIN);
	/* VSD: vendor tag 0x15b3 in dword 7 and the board's PSID at byte 0xd0, where Linux
	 * mlx4 looks for the board id. */
	PRM_SET(vsd, vsd_dw7, vsd, 0x15b3);
	PRM_SET(vsd, vsd_dw52, vsd, hermonprm_load_dword(psid, 0));
	PRM_SET(vsd, vsd_dw53, vsd, hermonprm_load_dword(psid, 1));
	PRM_SET(vsd, vsd_dw54, vsd, hermonprm_load_dword(psid, 2));
	PRM_SET(vsd, vsd_dw55, vsd, hermonprm_load_dword(psid, 3));
	c->out_len = HERMONPRM_QUERY_ADAPTER_ST_BYTES;
	return ST_OK;
}

/* MOD_STAT_CFG: the model has no static configuration to change; it accepts only the page size
 * it has (4 KiB) and otherwise leaves everything as it is. log_pg_sz counts in 4 KiB units
 * (log2(page size) - 12), so 4 KiB is 0: Linux mlx4 main.c mlx4_init_fw sets log_pg_sz 0 with
 * log_pg_sz_m 1 and gives up on the HCA when the command fails. */
int cmd_mod_stat_cfg(struct hcasim *h, struct hcasim_cmd *c)
{
	int st = hcasim_cmd_mbox_in(h, c, HERMONPRM_MOD_STAT_CFG_ST_BYTES);

	if (st)
		return st;
	if (PRM_GET(mod_stat_cfg, log_pg_sz_m, c->in) && PRM_GET(mod_stat_cfg, log_pg_sz, c->in) != 0) {
		hcasim_refuse(h, "MOD_STAT_CFG: page size 2^%u x 4 KiB (only log_pg_sz 0, 4 KiB)",
			      PRM_GET(mod_stat_cfg, log_pg_sz, c->in));
		return ST_BAD_PARAM;
	}
	return ST_OK;
}

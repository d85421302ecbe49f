/* SPDX-License-Identifier: MIT */
/*
 * ICM commands: SET_ICM_SIZE, MAP_ICM_AUX / UNMAP_ICM_AUX, MAP_ICM / UNMAP_ICM, INIT_HCA,
 * CLOSE_HCA. INIT_HCA fixes where each context table lives in ICM virtual space; contexts are
 * then read and written there (icm.c).
 */
#include <stdlib.h>
#include <string.h>

#include "hcasim_int.h"
#include "sma.h"

#define MAX_ICM_SIZE (1ull << 40)

int cmd_set_icm_size(struct hcasim *h, struct hcasim_cmd *c)
{
	uint64_t pages;

	if (c->in_param == 0 || c->in_param > MAX_ICM_SIZE) {
		hcasim_refuse(h, "SET_ICM_SIZE: %#llx bytes (1 .. 2^40 allowed)",
			      (unsigned long long)c->in_param);
		return ST_BAD_PARAM;
	}
	if (h->aux.n) {
		hcasim_refuse(h, "SET_ICM_SIZE: AUX ICM already mapped (UNMAP_ICM_AUX first)");
		return ST_BAD_RES_STATE;
	}
	/* The auxiliary area holds the firmware's ICM bookkeeping; the model asks one page per
	 * 64 MiB of ICM virtual space (sparse cMPT layouts reach several GiB). */
	pages = (c->in_param + HCASIM_PAGE - 1) / HCASIM_PAGE;
	h->aux_pages = (pages + 16383) / 16384;
	h->icm_size = c->in_param;
	h->icm_size_set = true;
	c->out_imm = true;
	c->out_imm_val = h->aux_pages;
	return ST_OK;
}

int cmd_map_icm_aux(struct hcasim *h, struct hcasim_cmd *c)
{
	if (!h->icm_size_set) {
		hcasim_refuse(h, "MAP_ICM_AUX: SET_ICM_SIZE not done");
		return ST_BAD_SYS_STATE;
	}
	return hcasim_map_entries(h, c, &h->aux, true, h->aux.bytes);
}

int cmd_unmap_icm_aux(struct hcasim *h, struct hcasim_cmd *c)
{
	(void)c;
	hcasim_vmap_clear(&h->aux);
	return ST_OK;
}

int cmd_map_icm(struct hcasim *h, struct hcasim_cmd *c)
{
	int st;

	if (!h->icm_size_set || h->aux.bytes < h->aux_pages * HCASIM_PAGE) {
		hcasim_refuse(h, "MAP_ICM: %s", !h->icm_size_set ? "SET_ICM_SIZE not done"
								 : "AUX ICM not fully mapped");
		return ST_BAD_SYS_STATE;
	}
	/* The ICM virtual space is 2^40 bytes; a mapping may end beyond the size SET_ICM_SIZE
	 * declared (that size only decides the AUX area): Linux mlx4 main.c mlx4_init_icm maps the
	 * EQC table for phys_caps.num_phys_eqs (MLX4_MAX_EQ_NUM, 1024) EQs at eqc_base, while
	 * profile.c mlx4_make_profile sized that table, the last and smallest of its layout, for
	 * min(max_eqs, MAX_MSIX) EQs, so its end lies past the ICM size it set. */
	st = hcasim_map_entries(h, c, &h->icm, false, 0);
	if (st == ST_OK && h->icm.n &&
	    h->icm.r[h->icm.n - 1].va + h->icm.r[h->icm.n - 1].len > MAX_ICM_SIZE) {
		uint64_t va = h->icm.r[h->icm.n - 1].va, len = h->icm.r[h->icm.n - 1].len;

		/* beyond the ICM virtual space: undo the whole command */
		for (unsigned i = 0; i < c->in_mod; i++) {
			const uint8_t *u = c->in + i * HERMONPRM_VIRTUAL_PHYSICAL_MAPPING_ST_BYTES;

			hcasim_vmap_remove(&h->icm,
				(uint64_t)PRM_GET(virtual_physical_mapping, va_h, u) << 32 |
				(uint64_t)PRM_GET(virtual_physical_mapping, va_l, u) * HCASIM_PAGE,
				(uint64_t)HCASIM_PAGE << PRM_GET(virtual_physical_mapping, log2size, u));
		}
		hcasim_refuse(h, "MAP_ICM: %#llx bytes at %#llx: beyond the 2^40-byte ICM space",
			      (unsigned long long)len, (unsigned long long)va);
		return ST_BAD_PARAM;
	}
	return st;
}

/* in_param = ICM virtual address, in_mod = number of 4 KiB pages */
int cmd_unmap_icm(struct hcasim *h, struct hcasim_cmd *c)
{
	if (c->in_param & (HCASIM_PAGE - 1) || !c->in_mod) {
		hcasim_refuse(h, "UNMAP_ICM: va %#llx / %u pages invalid",
			      (unsigned long long)c->in_param, c->in_mod);
		return ST_BAD_PARAM;
	}
	hcasim_vmap_remove(&h->icm, c->in_param, (uint64_t)c->in_mod * HCASIM_PAGE);
	return ST_OK;
}

static uint64_t base5(uint32_t hi, uint32_t lo27)
{
	/* context-table base: high dword + bits 31..5 of the low dword (log_num in bits 4..0) */
	return (uint64_t)hi << 32 | (uint64_t)lo27 << 5;
}

/* A table of 2^lg entries of sz bytes must start aligned to its own size (PRM; Linux and iPXE
 * both lay ICM out that way). */
static bool table_ok(struct hcasim *h, const char *name, uint64_t base, unsigned lg, unsigned max,
		     unsigned sz)
{
	uint64_t bytes = (uint64_t)sz << lg;

	if (lg > max) {
		hcasim_refuse(h, "INIT_HCA: %s: 2^%u entries exceeds the device's 2^%u", name, lg, max);
		return false;
	}
	if (base & (bytes - 1)) {
		hcasim_refuse(h, "INIT_HCA: %s base %#llx not aligned to the table size %#llx", name,
			      (unsigned long long)base, (unsigned long long)bytes);
		return false;
	}
	return true;
}

static int alloc_tables(struct hcasim *h)
{
	h->qp_state = calloc((size_t)1 << h->lay.log_num_qp, 1);
	h->qp_rc_wait = calloc((size_t)1 << h->lay.log_num_qp, 1);
	h->cq_hw = calloc(((size_t)1 << h->lay.log_num_cq) / 8 + 1, 1);
	h->cq_armed = calloc(((size_t)1 << h->lay.log_num_cq) / 8 + 1, 1);
	h->eq_hw = calloc(((size_t)1 << h->lay.log_num_eq) / 8 + 1, 1);
	h->eq_armed = calloc(((size_t)1 << h->lay.log_num_eq) / 8 + 1, 1);
	h->mpt_hw = calloc(((size_t)1 << h->lay.log_num_mpt) / 8 + 1, 1);
	return h->qp_state && h->qp_rc_wait && h->cq_hw && h->cq_armed && h->eq_hw && h->eq_armed && h->mpt_hw ? 0 : -1;
}

int cmd_init_hca(struct hcasim *h, struct hcasim_cmd *c)
{
	struct hcasim_layout l = { 0 };
	uint8_t *in = c->in, *q, *mc, *tpt, *uar;
	int st;

	if (!h->icm_size_set || h->aux.bytes < h->aux_pages * HCASIM_PAGE) {
		hcasim_refuse(h, "INIT_HCA: %s", !h->icm_size_set ? "SET_ICM_SIZE not done"
								  : "AUX ICM not fully mapped");
		return ST_BAD_SYS_STATE;
	}
	st = hcasim_cmd_mbox_in(h, c, HERMONPRM_INIT_HCA_ST_BYTES);
	if (st)
		return st;
	if (PRM_GET(init_hca, version, in) != 2) {
		hcasim_refuse(h, "INIT_HCA: version %u (2 expected)", PRM_GET(init_hca, version, in));
		return ST_BAD_PARAM;
	}
	q = PRM_SUB(init_hca, qpc_eec_cqc_eqc_rdb_parameters, in);
	mc = PRM_SUB(init_hca, multicast_parameters, in);
	tpt = PRM_SUB(init_hca, tpt_parameters, in);
	uar = PRM_SUB(init_hca, uar_parameters, in);
	l.qpc_base = base5(PRM_GET(qpcbaseaddr, qpc_base_addr_h, q), PRM_GET(qpcbaseaddr, qpc_base_addr_l, q));
	l.log_num_qp = PRM_GET(qpcbaseaddr, log_num_of_qp, q);
	l.srqc_base = base5(PRM_GET(qpcbaseaddr, srqc_base_addr_h, q), PRM_GET(qpcbaseaddr, srqc_base_addr_l, q));
	l.log_num_srq = PRM_GET(qpcbaseaddr, log_num_of_srq, q);
	l.cqc_base = base5(PRM_GET(qpcbaseaddr, cqc_base_addr_h, q), PRM_GET(qpcbaseaddr, cqc_base_addr_l, q));
	l.log_num_cq = PRM_GET(qpcbaseaddr, log_num_of_cq, q);
	l.eqc_base = base5(PRM_GET(qpcbaseaddr, eqc_base_addr_h, q), PRM_GET(qpcbaseaddr, eqc_base_addr_l, q));
	l.log_num_eq = PRM_GET(qpcbaseaddr, log_num_of_eq, q);
	l.altc_base = (uint64_t)PRM_GET(qpcbaseaddr, altc_base_addr_h, q) << 32 | PRM_GET(qpcbaseaddr, altc_base_addr_l, q);
	l.auxc_base = (uint64_t)PRM_GET(qpcbaseaddr, auxc_base_addr_h, q) << 32 | PRM_GET(qpcbaseaddr, auxc_base_addr_l, q);
	l.rdmarc_base = base5(PRM_GET(qpcbaseaddr, rdmardc_base_addr_h, q), PRM_GET(qpcbaseaddr, rdmardc_base_addr_l, q));
	l.dmpt_base = (uint64_t)PRM_GET(tptparams, dmpt_base_adr_h, tpt) << 32 | PRM_GET(tptparams, dmpt_base_adr_l, tpt);
	l.log_num_mpt = PRM_GET(tptparams, log_dmpt_sz, tpt);
	l.mtt_base = (uint64_t)PRM_GET(tptparams, mtt_base_addr_h, tpt) << 32 | PRM_GET(tptparams, mtt_base_addr_l, tpt);
	l.cmpt_base = (uint64_t)PRM_GET(tptparams, cmpt_base_adr_h, tpt) << 32 | PRM_GET(tptparams, cmpt_base_adr_l, tpt);
	l.mc_base = (uint64_t)PRM_GET(multicastparam, mc_base_addr_h, mc) << 32 | PRM_GET(multicastparam, mc_base_addr_l, mc);
	l.log_mc_entry_sz = PRM_GET(multicastparam, log_mc_table_entry_sz, mc);
	l.log_mc_hash_sz = PRM_GET(multicastparam, log_mc_table_hash_sz, mc);
	l.log_mc_table_sz = PRM_GET(multicastparam, log_mc_table_sz, mc);
	l.log_max_uars = PRM_GET(uar_params, log_max_uars, uar);

	if (!table_ok(h, "QPC", l.qpc_base, l.log_num_qp, 18, HCASIM_QPC_SZ) ||
	    !table_ok(h, "CQC", l.cqc_base, l.log_num_cq, 16, HCASIM_CQC_SZ) ||
	    !table_ok(h, "EQC", l.eqc_base, l.log_num_eq, 9, HCASIM_EQC_SZ) ||
	    !table_ok(h, "SRQC", l.srqc_base, l.log_num_srq, 16, HCASIM_SRQC_SZ) ||
	    !table_ok(h, "dMPT", l.dmpt_base, l.log_num_mpt, 20, HCASIM_DMPT_SZ))
		return ST_BAD_PARAM;
	if (l.log_mc_entry_sz < 6 || l.log_mc_entry_sz > 12 || l.log_mc_table_sz > 13 ||
	    l.log_mc_hash_sz > l.log_mc_table_sz) {
		hcasim_refuse(h, "INIT_HCA: multicast table (entry 2^%u, hash 2^%u, table 2^%u) invalid",
			      l.log_mc_entry_sz, l.log_mc_hash_sz, l.log_mc_table_sz);
		return ST_BAD_PARAM;
	}
	if (PRM_GET(uar_params, uar_page_sz, uar) != 0) {
		hcasim_refuse(h, "INIT_HCA: UAR page size 2^(12+%u): only 4 KiB pages are modelled",
			      PRM_GET(uar_params, uar_page_sz, uar));
		return ST_BAD_PARAM;
	}
	h->lay = l;
	if (alloc_tables(h) < 0) {
		hcasim_free_tables(h);
		return ST_INTERNAL_ERR;
	}
	h->fw = FW_HCA_UP;
	return ST_OK;
}

int cmd_close_hca(struct hcasim *h, struct hcasim_cmd *c)
{
	(void)c;
	hcasim_free_tables(h);
	h->fw = FW_RUNNING;
	for (unsigned p = 0; p < h->cfg.num_ports; p++) {
		h->port[p].up = false;
		hcasim_link_update(h, p + 1);
	}
	return ST_OK;
}

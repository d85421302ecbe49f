/* SPDX-License-Identifier: MIT */
/*
 * Host memory for the HCA: the firmware area (QUERY_FW → MAP_FA → RUN_FW), the device limits
 * (QUERY_DEV_CAP), and the ICM — sized from those limits for what a boot needs and no more,
 * then handed over with one MAP_ICM_AUX and one MAP_ICM command carrying naturally aligned
 * power-of-two blocks.
 *
 * ICM virtual layout (PRM "ICM"; as Linux mlx4 and iPXE): the four cMPT tables (QP, SRQ, CQ, EQ)
 * sit at k * 2^24 * cmpt_entry_size and only their used prefix is mapped. The other tables go into
 * the QP stride's unused tail (iPXE puts them past all four strides, which makes the virtual size,
 * and so the AUX ICM, larger). Each table must be aligned to its own size; we place them largest
 * first, so that alignment costs no padding at all.
 */
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/hermon_prm.h>
#include <ibboot/string.h>
#include "hermon.h"

#define HERMON_VPM_PER_MBOX (HERMON_MBOX_SIZE / HERMONPRM_VIRTUAL_PHYSICAL_MAPPING_ST_BYTES)

int hermon_read_caps(struct hermon *h)
{
	uint8_t cap[HERMONPRM_QUERY_DEV_CAP_ST_BYTES];
	struct hermon_caps *c = &h->caps;
	int rc;

	if ((rc = hermon_cmd_query_dev_cap(h, cap)) != 0)
		return rc;
	c->reserved_qps = 1u << hermonprm_query_dev_cap_st_get_log2_rsvd_qps(cap);
	c->reserved_srqs = 1u << hermonprm_query_dev_cap_st_get_log2_rsvd_srqs(cap);
	c->reserved_cqs = 1u << hermonprm_query_dev_cap_st_get_log2_rsvd_cqs(cap);
	c->reserved_eqs = hermonprm_query_dev_cap_st_get_num_rsvd_eqs(cap);
	if (c->reserved_eqs == 0)   /* older firmware reports only the log2 form */
		c->reserved_eqs = 1u << hermonprm_query_dev_cap_st_get_log2_rsvd_eqs(cap);
	c->reserved_mtts = 1u << hermonprm_query_dev_cap_st_get_log2_rsvd_mtts(cap);
	c->reserved_mrws = 1u << hermonprm_query_dev_cap_st_get_log2_rsvd_mrws(cap);
	c->reserved_uars = hermonprm_query_dev_cap_st_get_num_rsvd_uars(cap);
	c->qpc_entry_size = hermonprm_query_dev_cap_st_get_qpc_entry_sz(cap);
	c->altc_entry_size = hermonprm_query_dev_cap_st_get_altc_entry_sz(cap);
	c->auxc_entry_size = hermonprm_query_dev_cap_st_get_aux_entry_sz(cap);
	c->srqc_entry_size = hermonprm_query_dev_cap_st_get_srq_entry_sz(cap);
	c->cqc_entry_size = hermonprm_query_dev_cap_st_get_cqc_entry_sz(cap);
	c->eqc_entry_size = hermonprm_query_dev_cap_st_get_eqc_entry_sz(cap);
	c->cmpt_entry_size = hermonprm_query_dev_cap_st_get_c_mpt_entry_sz(cap);
	c->dmpt_entry_size = hermonprm_query_dev_cap_st_get_d_mpt_entry_sz(cap);
	c->mtt_entry_size = hermonprm_query_dev_cap_st_get_mtt_entry_sz(cap);
	c->num_ports = hermonprm_query_dev_cap_st_get_num_ports(cap);
	/* Clamped: these only bound our ring sizes, and a shift must stay defined. */
	c->log_max_qp_sz = MIN(hermonprm_query_dev_cap_st_get_log_max_qp_sz(cap), 16u);
	c->log_max_cq_sz = MIN(hermonprm_query_dev_cap_st_get_log_max_cq_sz(cap), 22u);
	c->dpdp = hermonprm_query_dev_cap_st_get_dpdp(cap);
	c->port_mgmt_events = hermonprm_query_dev_cap_st_get_port_mng_chg_ev(cap);

	if (c->num_ports == 0) {
		hermon_err(h, "QUERY_DEV_CAP: no ports (firmware not for IB?)");
		return -ENODEV;
	}
	if (c->num_ports > HERMON_MAX_PORTS) {
		hermon_info(h, "%u ports, using first %u", c->num_ports,
			    HERMON_MAX_PORTS);
		c->num_ports = HERMON_MAX_PORTS;
	}
	return 0;
}

/* ---- sizing (pure) ---- */

struct icm_item {
	struct hermon_icm_table *t;
	uint64_t len;
};

static bool icm_entry_ok(unsigned size)
{
	return IS_POW2(size) && size <= 4096;
}

int hermon_icm_plan(const struct hermon_caps *c, struct hermon_icm_plan *p)
{
	/* The tables besides the cMPTs, each with its entry size and how many entries it needs
	 * (a power of two is taken). */
	struct hermon_icm_table *tables[] = { &p->qpc, &p->altc, &p->auxc, &p->srqc, &p->cqc,
					      &p->eqc, &p->mtt, &p->dmpt, &p->mcg };
	const unsigned sizes[] = { c->qpc_entry_size, c->altc_entry_size, c->auxc_entry_size,
				   c->srqc_entry_size, c->cqc_entry_size, c->eqc_entry_size,
				   c->mtt_entry_size, c->dmpt_entry_size, HERMON_MCG_ENTRY_SIZE,
				   c->cmpt_entry_size };
	unsigned counts[ARRAY_SIZE(tables)];
	struct icm_item items[ARRAY_SIZE(tables)];
	uint64_t cmpt_stride, off, other_len = 0;

	memset(p, 0, sizeof(*p));
	for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++)
		if (!icm_entry_ok(sizes[i]))
			return -ERANGE;

	/* QP numbers: reserved ones, the 8-aligned special block (QP0/QP1 of both ports), ours. */
	p->special_qpn_base = ALIGN_UP(c->reserved_qps, HERMON_NUM_SPECIAL_QPS);
	p->qpn_base = p->special_qpn_base + HERMON_NUM_SPECIAL_QPS;
	/* The EQ's number fixes its doorbell page (EQN / 4), which must be past the reserved UARs. */
	p->eqn = MAX(4 * c->reserved_uars, c->reserved_eqs);
	if (p->eqn / 4 >= HERMON_UAR_NON_EQ_PAGE)
		return -ERANGE;
	p->num_mtts = c->reserved_mtts + HERMON_MAX_MTTS;
	/* One usable MPT, but a page worth of slots so its index (part of the key) is random. */
	p->num_mpts = MAX(c->reserved_mrws + 1, HERMON_PAGE_SIZE / c->dmpt_entry_size);
	p->log_mcg_hash = HERMON_LOG_MCG_HASH;
	p->log_mcg_table = HERMON_LOG_MCG_TABLE;

	/* QPC, ALTC and AUXC have an entry per QP number. */
	counts[0] = counts[1] = counts[2] = p->qpn_base + HERMON_MAX_QPS;
	counts[3] = MAX(c->reserved_srqs, 1u);
	counts[4] = c->reserved_cqs + HERMON_MAX_CQS;
	counts[5] = p->eqn + 1;
	counts[6] = p->num_mtts;
	counts[7] = p->num_mpts;
	counts[8] = 1u << p->log_mcg_table;
	/* Everything but the cMPTs, largest first: each table then starts aligned to its own size. */
	for (unsigned i = 0; i < ARRAY_SIZE(tables); i++) {
		struct hermon_icm_table *t = tables[i];
		unsigned j = i;

		t->log_num = hermon_log2_roundup(counts[i]);
		t->len = (uint64_t)sizes[i] << t->log_num;
		other_len += t->len;
		while (j > 0 && items[j - 1].len < t->len) {
			items[j] = items[j - 1];
			j--;
		}
		items[j].t = t;
		items[j].len = t->len;
	}

	/* cMPT: sparse, one 2^24-entry stride per type; map the prefix our numbers reach. */
	cmpt_stride = HERMON_CMPT_MAX_ENTRIES * c->cmpt_entry_size;
	const unsigned cmpt_log[4] = { p->qpc.log_num, p->srqc.log_num, p->cqc.log_num,
				       p->eqc.log_num };
	for (unsigned k = 0; k < 4; k++) {
		p->region[k].base = k * cmpt_stride;
		p->region[k].len = ALIGN_UP((uint64_t)c->cmpt_entry_size << cmpt_log[k],
					    (uint64_t)HERMON_PAGE_SIZE);
	}

	/* The other tables go into the unused tail of the QP cMPT stride (only the prefix our QP
	 * numbers reach is ever touched), so the ICM virtual size — and with it the AUX ICM the
	 * firmware wants for its page tables — ends at the EQ cMPT prefix instead of past 4 strides. */
	off = ALIGN_UP(p->region[HERMON_ICM_QP_CMPT].len, items[0].len);
	if (off + other_len > cmpt_stride)
		off = 4 * cmpt_stride;
	p->region[HERMON_ICM_OTHER].base = off;
	for (unsigned i = 0; i < ARRAY_SIZE(items); i++) {
		off = ALIGN_UP(off, items[i].len);
		items[i].t->base = off;
		off += items[i].len;
	}
	p->region[HERMON_ICM_OTHER].len = ALIGN_UP(off - p->region[HERMON_ICM_OTHER].base,
						   (uint64_t)HERMON_PAGE_SIZE);
	for (unsigned k = 0; k < HERMON_ICM_NUM_REGIONS; k++) {
		p->mapped_len += p->region[k].len;
		p->icm_size = MAX(p->icm_size, p->region[k].base + p->region[k].len);
	}
	return 0;
}

void hermon_icm_fill_init_hca(const struct hermon_icm_plan *p, void *init_hca)
{
	void *q = hermonprm_init_hca_st_qpc_eec_cqc_eqc_rdb_parameters(init_hca);
	void *mc = hermonprm_init_hca_st_multicast_parameters(init_hca);
	void *tpt = hermonprm_init_hca_st_tpt_parameters(init_hca);
	void *uar = hermonprm_init_hca_st_uar_parameters(init_hca);

	memset(init_hca, 0, HERMONPRM_INIT_HCA_ST_BYTES);
	hermonprm_init_hca_st_set_version(init_hca, 2);   /* PRM: must be 2 */
	hermonprm_init_hca_st_set_udp(init_hca, 1);       /* UD port check */

	/* Context bases: the low fields hold address bits 31..5 (tables are 32-byte aligned). */
	hermonprm_qpcbaseaddr_st_set_qpc_base_addr_h(q, (uint32_t)(p->qpc.base >> 32));
	hermonprm_qpcbaseaddr_st_set_qpc_base_addr_l(q, (uint32_t)p->qpc.base >> 5);
	hermonprm_qpcbaseaddr_st_set_log_num_of_qp(q, p->qpc.log_num);
	hermonprm_qpcbaseaddr_st_set_srqc_base_addr_h(q, (uint32_t)(p->srqc.base >> 32));
	hermonprm_qpcbaseaddr_st_set_srqc_base_addr_l(q, (uint32_t)p->srqc.base >> 5);
	hermonprm_qpcbaseaddr_st_set_log_num_of_srq(q, p->srqc.log_num);
	hermonprm_qpcbaseaddr_st_set_cqc_base_addr_h(q, (uint32_t)(p->cqc.base >> 32));
	hermonprm_qpcbaseaddr_st_set_cqc_base_addr_l(q, (uint32_t)p->cqc.base >> 5);
	hermonprm_qpcbaseaddr_st_set_log_num_of_cq(q, p->cqc.log_num);
	hermonprm_qpcbaseaddr_st_set_altc_base_addr_h(q, (uint32_t)(p->altc.base >> 32));
	hermonprm_qpcbaseaddr_st_set_altc_base_addr_l(q, (uint32_t)p->altc.base);
	hermonprm_qpcbaseaddr_st_set_auxc_base_addr_h(q, (uint32_t)(p->auxc.base >> 32));
	hermonprm_qpcbaseaddr_st_set_auxc_base_addr_l(q, (uint32_t)p->auxc.base);
	hermonprm_qpcbaseaddr_st_set_eqc_base_addr_h(q, (uint32_t)(p->eqc.base >> 32));
	hermonprm_qpcbaseaddr_st_set_eqc_base_addr_l(q, (uint32_t)p->eqc.base >> 5);
	hermonprm_qpcbaseaddr_st_set_log_num_of_eq(q, p->eqc.log_num);

	hermonprm_multicastparam_st_set_mc_base_addr_h(mc, (uint32_t)(p->mcg.base >> 32));
	hermonprm_multicastparam_st_set_mc_base_addr_l(mc, (uint32_t)p->mcg.base);
	hermonprm_multicastparam_st_set_log_mc_table_entry_sz(mc,
		hermon_log2_roundup(HERMON_MCG_ENTRY_SIZE));
	hermonprm_multicastparam_st_set_log_mc_table_hash_sz(mc, p->log_mcg_hash);
	hermonprm_multicastparam_st_set_log_mc_table_sz(mc, p->log_mcg_table);

	hermonprm_tptparams_st_set_dmpt_base_adr_h(tpt, (uint32_t)(p->dmpt.base >> 32));
	hermonprm_tptparams_st_set_dmpt_base_adr_l(tpt, (uint32_t)p->dmpt.base);
	hermonprm_tptparams_st_set_log_dmpt_sz(tpt, p->dmpt.log_num);
	hermonprm_tptparams_st_set_mtt_base_addr_h(tpt, (uint32_t)(p->mtt.base >> 32));
	hermonprm_tptparams_st_set_mtt_base_addr_l(tpt, (uint32_t)p->mtt.base);
	hermonprm_tptparams_st_set_cmpt_base_adr_h(tpt, (uint32_t)(p->region[0].base >> 32));
	hermonprm_tptparams_st_set_cmpt_base_adr_l(tpt, (uint32_t)p->region[0].base);

	hermonprm_uar_params_st_set_uar_page_sz(uar, 0);   /* 4 KiB UAR pages */
	hermonprm_uar_params_st_set_log_max_uars(uar, HERMON_LOG_MAX_UARS);
}

/* ---- mapping host memory ---- */

/* log2 of the largest block at (va, pa) that both are aligned to and that fits in len. */
static unsigned hermon_vpm_block_log(uint64_t va, uint64_t pa, uint64_t len)
{
	unsigned log = hermon_fls(len) - 1;
	uint64_t both = va | pa;

	if (both) {
		unsigned align_log = hermon_fls(both & (~both + 1)) - 1;

		if (align_log < log)
			log = align_log;
	}
	return log;
}

static void hermon_vpm_entry(void *e, uint64_t va, uint64_t pa, unsigned log)
{
	memset(e, 0, HERMONPRM_VIRTUAL_PHYSICAL_MAPPING_ST_BYTES);
	hermonprm_virtual_physical_mapping_st_set_va_h(e, (uint32_t)(va >> 32));
	hermonprm_virtual_physical_mapping_st_set_va_l(e, (uint32_t)va >> HERMON_PAGE_SHIFT);
	hermonprm_virtual_physical_mapping_st_set_pa_h(e, (uint32_t)(pa >> 32));
	hermonprm_virtual_physical_mapping_st_set_pa_l(e, (uint32_t)pa >> HERMON_PAGE_SHIFT);
	hermonprm_virtual_physical_mapping_st_set_log2size(e, log - HERMON_PAGE_SHIFT);
}

int hermon_vpm_fill(uint64_t va, uint64_t pa, uint64_t len, void *vpm, unsigned max)
{
	unsigned n = 0;

	if ((va | pa | len) & (HERMON_PAGE_SIZE - 1))
		return -EINVAL;
	while (len) {
		unsigned log = hermon_vpm_block_log(va, pa, len);

		if (n == max)
			return -ENOSPC;
		hermon_vpm_entry((uint8_t *)vpm + n * HERMONPRM_VIRTUAL_PHYSICAL_MAPPING_ST_BYTES,
				 va, pa, log);
		n++;
		va += 1ull << log;
		pa += 1ull << log;
		len -= 1ull << log;
	}
	return (int)n;
}

/* Allocates len bytes aligned as well as the allocator allows (ideally to the largest power of
 * two ≤ len), so the mapping needs as few blocks as the length's binary digits. */
static int hermon_area_alloc(struct hermon *h, struct hermon_area *a, size_t len,
			     const char *what)
{
	size_t align = (size_t)1 << (hermon_fls(len) - 1);

	if (align > MiB(4))
		align = MiB(4);
	for (; align >= HERMON_PAGE_SIZE; align >>= 1) {
		a->virt = dma_alloc(len, align);
		if (a->virt) {
			memset(a->virt, 0, len);
			a->len = len;
			a->bus = virt_to_bus(a->virt);
			return 0;
		}
	}
	hermon_err(h, "cannot allocate %zu KiB for %s", len / 1024, what);
	return -ENOMEM;
}

static void hermon_area_free(struct hermon_area *a)
{
	if (a->virt)
		dma_free(a->virt, a->len);
	memset(a, 0, sizeof(*a));
}

typedef int (*hermon_map_cmd_fn)(struct hermon *h, const void *vpm, unsigned count);

/* Maps areas (va[i] → area[i]) with as few commands as the mailbox allows. */
static int hermon_map_areas(struct hermon *h, hermon_map_cmd_fn map, const uint64_t *va,
			    const struct hermon_area *areas, unsigned num)
{
	uint8_t *vpm = kzalloc(HERMON_MBOX_SIZE);
	unsigned n = 0;
	int rc = 0;

	if (!vpm)
		return -ENOMEM;
	for (unsigned i = 0; i < num && rc == 0; i++) {
		uint64_t v = va[i], pa = areas[i].bus, len = areas[i].len;

		if ((v | pa | len) & (HERMON_PAGE_SIZE - 1)) {
			rc = -EINVAL;
			break;
		}
		while (len && rc == 0) {
			unsigned log = hermon_vpm_block_log(v, pa, len);

			hermon_vpm_entry(vpm + n * HERMONPRM_VIRTUAL_PHYSICAL_MAPPING_ST_BYTES, v, pa,
					 log);
			n++;
			v += 1ull << log;
			pa += 1ull << log;
			len -= 1ull << log;
			if (n == HERMON_VPM_PER_MBOX) {   /* mailbox full: flush */
				rc = map(h, vpm, n);
				h->map_cmds++;
				h->map_entries += n;
				n = 0;
			}
		}
	}
	if (rc == 0 && n) {
		rc = map(h, vpm, n);
		h->map_cmds++;
		h->map_entries += n;
	}
	kfree(vpm);
	return rc;
}

int hermon_start_firmware(struct hermon *h)
{
	uint8_t fw[HERMONPRM_QUERY_FW_ST_BYTES];
	uint64_t va0 = 0;
	int rc;

	if ((rc = hermon_cmd_query_fw(h, fw)) != 0)
		return rc;
	h->fw_major = (uint16_t)hermonprm_query_fw_st_get_fw_rev_major(fw);
	h->fw_minor = (uint16_t)hermonprm_query_fw_st_get_fw_rev_minor(fw);
	h->fw_subminor = (uint16_t)hermonprm_query_fw_st_get_fw_rev_subminor(fw);
	h->cmd_if_rev = (uint16_t)hermonprm_query_fw_st_get_cmd_interface_rev(fw);
	h->fw_pages = hermonprm_query_fw_st_get_fw_pages(fw);
	h->err_buf_offset = (uint64_t)hermonprm_query_fw_st_get_error_buf_offset_h(fw) << 32 |
			    hermonprm_query_fw_st_get_error_buf_offset_l(fw);
	h->err_buf_size = hermonprm_query_fw_st_get_error_buf_size(fw);
	h->err_buf_bar = hermonprm_query_fw_st_get_error_buf_bar(fw);
	hermon_info(h, "firmware %u.%u.%u, cmd interface %u", h->fw_major, h->fw_minor,
		    h->fw_subminor, h->cmd_if_rev);
	if (h->fw_pages == 0) {
		hermon_err(h, "QUERY_FW: 0 pages (firmware broken?)");
		return -EIO;
	}
	/* The FA mapping's virtual address is ignored by the firmware: use 0 ... */
	if ((rc = hermon_area_alloc(h, &h->fa, (size_t)h->fw_pages * HERMON_PAGE_SIZE, "FA")) ||
	    (rc = hermon_map_areas(h, hermon_cmd_map_fa, &va0, &h->fa, 1)) != 0)
		return rc;
	h->stage = HERMON_STAGE_FA_MAPPED;
	if ((rc = hermon_cmd_run_fw(h)) == 0)
		h->stage = HERMON_STAGE_FW_RUNNING;
	/* On failure the caller's teardown unmaps what is mapped (hermon_stop_firmware); memory
	 * is freed only after the device reset that follows every failure. */
	return rc;
}

void hermon_stop_firmware(struct hermon *h)
{
	if (h->stage >= HERMON_STAGE_FA_MAPPED)
		hermon_cmd_unmap_fa(h);   /* on failure the reset that follows stops it anyway */
	h->stage = HERMON_STAGE_RESET;
}

int hermon_map_icm(struct hermon *h)
{
	struct hermon_icm_plan *p = &h->plan;
	uint64_t aux_pages, va[HERMON_ICM_NUM_REGIONS], va0 = 0;
	unsigned i;
	int rc;

	if ((rc = hermon_icm_plan(&h->caps, p)) != 0) {
		hermon_err(h, "QUERY_DEV_CAP limits: no ICM layout");
		return rc;
	}
	if ((rc = hermon_cmd_set_icm_size(h, p->icm_size, &aux_pages)) != 0)
		return rc;
	if (aux_pages > (1ull << 20)) {   /* 4 GiB: firmware nonsense */
		hermon_err(h, "SET_ICM_SIZE: %llu AUX pages, refused",
			   (unsigned long long)aux_pages);
		return -ERANGE;
	}

	if (aux_pages) {
		if ((rc = hermon_area_alloc(h, &h->aux, aux_pages * HERMON_PAGE_SIZE, "AUX ICM")))
			return rc;
		if ((rc = hermon_map_areas(h, hermon_cmd_map_icm_aux, &va0, &h->aux, 1)) != 0)
			return rc;
	}
	h->stage = HERMON_STAGE_ICM_AUX_MAPPED;

	for (i = 0; i < HERMON_ICM_NUM_REGIONS; i++) {
		if ((rc = hermon_area_alloc(h, &h->icm[i], p->region[i].len, "ICM")))
			return rc;
		va[i] = p->region[i].base;
	}
	if ((rc = hermon_map_areas(h, hermon_cmd_map_icm, va, h->icm, HERMON_ICM_NUM_REGIONS)) != 0)
		return rc;
	h->stage = HERMON_STAGE_ICM_MAPPED;
	hermon_info(h, "memory: FA %zu KiB, ICM %llu KiB, AUX %zu KiB "
		    "(%u maps, %u blocks)", h->fa.len / 1024,
		    (unsigned long long)p->mapped_len / 1024, h->aux.len / 1024, h->map_cmds,
		    h->map_entries);
	return 0;
}

/* Undoes hermon_map_icm from whatever stage it reached. Memory is kept until after the reset. */
void hermon_unmap_icm(struct hermon *h)
{
	if (h->stage >= HERMON_STAGE_ICM_MAPPED) {
		for (int i = HERMON_ICM_NUM_REGIONS - 1; i >= 0; i--)
			hermon_cmd_unmap_icm(h, h->plan.region[i].base,
					     (uint32_t)(h->plan.region[i].len / HERMON_PAGE_SIZE));
	}
	if (h->stage >= HERMON_STAGE_ICM_AUX_MAPPED && h->aux.len)
		hermon_cmd_unmap_icm_aux(h);
	if (h->stage > HERMON_STAGE_FW_RUNNING)
		h->stage = HERMON_STAGE_FW_RUNNING;
}

/* After a reset nothing of ours is reachable by the device: give the memory back. */
void hermon_free_host_memory(struct hermon *h)
{
	for (unsigned i = 0; i < HERMON_ICM_NUM_REGIONS; i++)
		hermon_area_free(&h->icm[i]);
	hermon_area_free(&h->aux);
	hermon_area_free(&h->fa);
}

/* SPDX-License-Identifier: MIT */
/*
 * rawhost: the raw test host for hcasim (see rawhost.h). Every PRM structure it writes goes
 * through the generated accessors, like a driver's would.
 */
#include <stdlib.h>
#include <string.h>

#include <ibboot/hermon_prm.h>

#include <ibboot/wire/attrs.h>
#include <ibboot/wire/mad.h>

#include "rawhost.h"

#define G(st, f, b) hermonprm_##st##_st_get_##f(b)
#define S(st, f, b, v) hermonprm_##st##_st_set_##f((b), (v))
#define SUB(st, f, b) hermonprm_##st##_st_##f((void *)(b))

#define PAGE 4096ull
#define HCR 0x80680u

static int dma_read(void *ctx, uint64_t gpa, void *buf, size_t len)
{
	struct rawhost *rh = ctx;

	if (gpa < RAWHOST_MEM_BASE || gpa + len > RAWHOST_MEM_BASE + RAWHOST_MEM_SIZE || gpa + len < gpa)
		return -1;
	memcpy(buf, rh->mem + (gpa - RAWHOST_MEM_BASE), len);
	return 0;
}

static int dma_write(void *ctx, uint64_t gpa, const void *buf, size_t len)
{
	struct rawhost *rh = ctx;

	if (gpa < RAWHOST_MEM_BASE || gpa + len > RAWHOST_MEM_BASE + RAWHOST_MEM_SIZE || gpa + len < gpa)
		return -1;
	memcpy(rh->mem + (gpa - RAWHOST_MEM_BASE), buf, len);
	return 0;
}

static void packet_out(void *ctx, unsigned port, const void *pkt, size_t len)
{
	struct rawhost *rh = ctx;
	struct rawhost_pkt *p = &rh->pkts[rh->npkts % RAWHOST_MAX_PKTS];

	p->port = port;
	p->len = len < sizeof(p->data) ? len : sizeof(p->data);
	memcpy(p->data, pkt, p->len);
	rh->npkts++;
	if (port < 3 && rh->peer[port])
		hcasim_packet_in(rh->peer[port]->h, rh->peer_port[port], pkt, len);
}

static uint64_t now_ns(void *ctx)
{
	return ((struct rawhost *)ctx)->now;
}

static void log_line(void *ctx, const char *line)
{
	struct rawhost *rh = ctx;

	rh->log_lines++;
	strncpy(rh->last_log, line, sizeof(rh->last_log) - 1);
	rh->last_log[sizeof(rh->last_log) - 1] = 0;
}

static void link_change(void *ctx, unsigned port, bool up)
{
	struct rawhost *rh = ctx;

	if (port < 3)
		rh->link_up[port] = up;
	rh->link_changes++;
}

int rawhost_init(struct rawhost *rh, const struct hcasim_config *cfg)
{
	struct hcasim_host_ops ops = { rh, dma_read, dma_write, packet_out, now_ns, log_line,
				       link_change };

	memset(rh, 0, sizeof(*rh));
	rh->mem = calloc(1, RAWHOST_MEM_SIZE);
	rh->brk = RAWHOST_MEM_BASE;
	rh->now = 1000000;
	if (!rh->mem)
		return -1;
	rh->h = hcasim_create(cfg, &ops);
	if (!rh->h) {
		free(rh->mem);
		return -1;
	}
	rh->in_mbox = rawhost_alloc(rh, PAGE, PAGE);
	rh->out_mbox = rawhost_alloc(rh, PAGE, PAGE);
	rawhost_bus_master(rh);
	return 0;
}

/* What every driver does before the HCA may touch memory: memory decode and bus mastering on
 * (PCI command register; the model refuses DMA without bus mastering). */
void rawhost_bus_master(struct rawhost *rh)
{
	hcasim_cfg_write(rh->h, 0x04, hcasim_cfg_read(rh->h, 0x04, 2) | 0x6, 2);
}

void rawhost_fini(struct rawhost *rh)
{
	hcasim_destroy(rh->h);
	free(rh->mem);
	rh->h = NULL;
	rh->mem = NULL;
}

uint64_t rawhost_alloc(struct rawhost *rh, uint64_t size, uint64_t align)
{
	uint64_t a = (rh->brk + align - 1) & ~(align - 1);

	if (a + size > RAWHOST_MEM_BASE + RAWHOST_MEM_SIZE)
		abort(); /* a test asked for more than the arena: fix the test */
	rh->brk = a + size;
	memset(rh->mem + (a - RAWHOST_MEM_BASE), 0, size);
	return a;
}

void *rawhost_ptr(struct rawhost *rh, uint64_t gpa)
{
	return rh->mem + (gpa - RAWHOST_MEM_BASE);
}

int rawhost_cmd(struct rawhost *rh, unsigned opcode, unsigned op_mod, uint64_t in_param,
		uint32_t in_mod, uint64_t out_param, uint64_t *out_imm)
{
	uint8_t r[28] = { 0 }, d[28];

	S(hca_command_register, in_param_h, r, (uint32_t)(in_param >> 32));
	S(hca_command_register, in_param_l, r, (uint32_t)in_param);
	S(hca_command_register, input_modifier, r, in_mod);
	S(hca_command_register, out_param_h, r, (uint32_t)(out_param >> 32));
	S(hca_command_register, out_param_l, r, (uint32_t)out_param);
	S(hca_command_register, opcode, r, opcode);
	S(hca_command_register, opcode_modifier, r, op_mod);
	S(hca_command_register, t, r, rh->toggle);
	S(hca_command_register, go, r, 1);
	rh->toggle ^= 1;
	for (unsigned i = 0; i < 7; i++)
		hcasim_bar_write(rh->h, 0, HCR + 4 * i, r + 4 * i, 4);
	for (unsigned n = 0; n < 100; n++) {
		for (unsigned i = 0; i < 7; i++)
			hcasim_bar_read(rh->h, 0, HCR + 4 * i, d + 4 * i, 4);
		if (!G(hca_command_register, go, d)) {
			if (out_imm)
				*out_imm = (uint64_t)G(hca_command_register, out_param_h, d) << 32 |
					   G(hca_command_register, out_param_l, d);
			return (int)G(hca_command_register, status, d);
		}
		hcasim_step(rh->h);
		rh->now += 10000;
	}
	return -1;
}

int rawhost_cmd_mbox(struct rawhost *rh, unsigned opcode, unsigned op_mod, uint32_t in_mod,
		     const void *in, size_t in_len, void *out, size_t out_len, uint64_t *imm)
{
	int st;

	memset(rawhost_ptr(rh, rh->in_mbox), 0, PAGE);
	memset(rawhost_ptr(rh, rh->out_mbox), 0, PAGE);
	if (in)
		memcpy(rawhost_ptr(rh, rh->in_mbox), in, in_len);
	st = rawhost_cmd(rh, opcode, op_mod, in ? rh->in_mbox : 0, in_mod, out ? rh->out_mbox : 0, imm);
	if (out)
		memcpy(out, rawhost_ptr(rh, rh->out_mbox), out_len);
	return st;
}

static unsigned log2u(uint64_t v)
{
	unsigned l = 0;

	while ((1ull << l) < v)
		l++;
	return l;
}

int rawhost_map(struct rawhost *rh, unsigned opcode, uint64_t va, uint64_t pa, unsigned log2pages)
{
	uint8_t e[16] = { 0 };

	S(virtual_physical_mapping, va_h, e, (uint32_t)(va >> 32));
	S(virtual_physical_mapping, va_l, e, (uint32_t)va >> 12);
	S(virtual_physical_mapping, pa_h, e, (uint32_t)(pa >> 32));
	S(virtual_physical_mapping, pa_l, e, (uint32_t)pa >> 12);
	S(virtual_physical_mapping, log2size, e, log2pages);
	return rawhost_cmd_mbox(rh, opcode, 0, 1, e, sizeof(e), NULL, 0, NULL);
}

/* A naturally aligned power-of-two block in one entry. */
static int map_block(struct rawhost *rh, unsigned opcode, uint64_t va, uint64_t pa, uint64_t bytes)
{
	return rawhost_map(rh, opcode, va, pa, log2u(bytes / PAGE));
}

static void table(struct rawhost_table *t, uint64_t *next_va, unsigned log_num, unsigned entry_sz)
{
	t->log_num = log_num;
	t->entry_sz = entry_sz;
	t->bytes = (uint64_t)entry_sz << log_num;
	if (t->bytes < PAGE)
		t->bytes = PAGE;
	t->va = (*next_va + t->bytes - 1) & ~(t->bytes - 1);
	*next_va = t->va + t->bytes;
}

static int map_table(struct rawhost *rh, struct rawhost_table *t)
{
	t->pa = rawhost_alloc(rh, t->bytes, t->bytes);
	return map_block(rh, 0xffa /* MAP_ICM */, t->va, t->pa, t->bytes);
}

int rawhost_reset(struct rawhost *rh)
{
	uint8_t v[4] = { 0, 0, 0, 1 };

	hcasim_bar_write(rh->h, 0, 0xf0010, v, 4);
	for (unsigned ms = 0; ms < 2000; ms++) {
		if (hcasim_cfg_read(rh->h, 0, 2) == 0x15b3)
			break;
		rh->now += 1000000;
	}
	rh->toggle = 0;
	if (hcasim_cfg_read(rh->h, 0, 2) != 0x15b3)
		return -1;
	rawhost_bus_master(rh);   /* the reset cleared the command register */
	return 0;
}

int rawhost_bringup_hca(struct rawhost *rh)
{
	uint8_t fw[256], cap[256], init[512] = { 0 };
	uint64_t next = 0, aux_pages = 0, fa_bytes;
	static const unsigned cmpt_log[4] = { 10, 6, 8, 6 };
	int st;

	if ((st = rawhost_cmd_mbox(rh, 0x004, 0, 0, NULL, 0, fw, sizeof(fw), NULL)))
		return st;
	fa_bytes = (uint64_t)G(query_fw, fw_pages, fw) * PAGE;
	if ((st = map_block(rh, 0xfff, 0, rawhost_alloc(rh, fa_bytes, fa_bytes), fa_bytes)))
		return st;
	if ((st = rawhost_cmd(rh, 0xff6, 0, 0, 0, 0, NULL)))
		return st;
	if ((st = rawhost_cmd_mbox(rh, 0x003, 0, 0, NULL, 0, cap, sizeof(cap), NULL)))
		return st;
	/* Layout as iPXE does it: four cMPT tables 2^24 entries apart, the rest after them,
	 * each table aligned to its own size. */
	for (unsigned t = 0; t < 4; t++) {
		uint64_t va = ((uint64_t)t << 24) * 64;

		table(&rh->cmpt[t], &va, cmpt_log[t], 64);
	}
	next = 4ull << 24 << 6;
	table(&rh->qpc, &next, 10, G(query_dev_cap, qpc_entry_sz, cap));
	table(&rh->altc, &next, 10, G(query_dev_cap, altc_entry_sz, cap));
	table(&rh->auxc, &next, 10, G(query_dev_cap, aux_entry_sz, cap));
	table(&rh->srqc, &next, 6, G(query_dev_cap, srq_entry_sz, cap));
	table(&rh->cqc, &next, 8, G(query_dev_cap, cqc_entry_sz, cap));
	table(&rh->eqc, &next, 6, G(query_dev_cap, eqc_entry_sz, cap));
	table(&rh->mtt, &next, 10, G(query_dev_cap, mtt_entry_sz, cap));
	table(&rh->dmpt, &next, 8, G(query_dev_cap, d_mpt_entry_sz, cap));
	table(&rh->mcg, &next, 6, 64);
	rh->icm_size = next;
	if ((st = rawhost_cmd(rh, 0xffd, 0, rh->icm_size, 0, 0, &aux_pages)))
		return st;
	aux_pages = 1ull << log2u(aux_pages);
	if ((st = map_block(rh, 0xffc, 0, rawhost_alloc(rh, aux_pages * PAGE, aux_pages * PAGE),
			    aux_pages * PAGE)))
		return st;
	for (unsigned t = 0; t < 4; t++)
		if ((st = map_table(rh, &rh->cmpt[t])))
			return st;
	struct rawhost_table *tabs[] = { &rh->qpc, &rh->altc, &rh->auxc, &rh->srqc, &rh->cqc,
					 &rh->eqc, &rh->mtt, &rh->dmpt, &rh->mcg };
	for (unsigned i = 0; i < sizeof(tabs) / sizeof(tabs[0]); i++)
		if ((st = map_table(rh, tabs[i])))
			return st;

	void *q = SUB(init_hca, qpc_eec_cqc_eqc_rdb_parameters, init);
	void *mc = SUB(init_hca, multicast_parameters, init);
	void *tpt = SUB(init_hca, tpt_parameters, init);
	void *uar = SUB(init_hca, uar_parameters, init);

	S(init_hca, version, init, 2);
	S(init_hca, udp, init, 1);
	S(qpcbaseaddr, qpc_base_addr_h, q, (uint32_t)(rh->qpc.va >> 32));
	S(qpcbaseaddr, qpc_base_addr_l, q, (uint32_t)rh->qpc.va >> 5);
	S(qpcbaseaddr, log_num_of_qp, q, rh->qpc.log_num);
	S(qpcbaseaddr, altc_base_addr_h, q, (uint32_t)(rh->altc.va >> 32));
	S(qpcbaseaddr, altc_base_addr_l, q, (uint32_t)rh->altc.va);
	S(qpcbaseaddr, auxc_base_addr_h, q, (uint32_t)(rh->auxc.va >> 32));
	S(qpcbaseaddr, auxc_base_addr_l, q, (uint32_t)rh->auxc.va);
	S(qpcbaseaddr, srqc_base_addr_h, q, (uint32_t)(rh->srqc.va >> 32));
	S(qpcbaseaddr, srqc_base_addr_l, q, (uint32_t)rh->srqc.va >> 5);
	S(qpcbaseaddr, log_num_of_srq, q, rh->srqc.log_num);
	S(qpcbaseaddr, cqc_base_addr_h, q, (uint32_t)(rh->cqc.va >> 32));
	S(qpcbaseaddr, cqc_base_addr_l, q, (uint32_t)rh->cqc.va >> 5);
	S(qpcbaseaddr, log_num_of_cq, q, rh->cqc.log_num);
	S(qpcbaseaddr, eqc_base_addr_h, q, (uint32_t)(rh->eqc.va >> 32));
	S(qpcbaseaddr, eqc_base_addr_l, q, (uint32_t)rh->eqc.va >> 5);
	S(qpcbaseaddr, log_num_of_eq, q, rh->eqc.log_num);
	S(multicastparam, mc_base_addr_h, mc, (uint32_t)(rh->mcg.va >> 32));
	S(multicastparam, mc_base_addr_l, mc, (uint32_t)rh->mcg.va);
	S(multicastparam, log_mc_table_entry_sz, mc, 6);
	S(multicastparam, log_mc_table_hash_sz, mc, 5);
	S(multicastparam, log_mc_table_sz, mc, rh->mcg.log_num);
	S(tptparams, dmpt_base_adr_h, tpt, (uint32_t)(rh->dmpt.va >> 32));
	S(tptparams, dmpt_base_adr_l, tpt, (uint32_t)rh->dmpt.va);
	S(tptparams, log_dmpt_sz, tpt, rh->dmpt.log_num);
	S(tptparams, mtt_base_addr_h, tpt, (uint32_t)(rh->mtt.va >> 32));
	S(tptparams, mtt_base_addr_l, tpt, (uint32_t)rh->mtt.va);
	S(tptparams, cmpt_base_adr_h, tpt, 0);
	S(tptparams, cmpt_base_adr_l, tpt, 0);
	S(uar_params, log_max_uars, uar, 8);
	if ((st = rawhost_cmd_mbox(rh, 0x007, 0, 0, init, sizeof(init), NULL, 0, NULL)))
		return st;
	rh->mtt_next = 16; /* log2_rsvd_mtts = 4 */
	return 0;
}

uint64_t rawhost_write_mtt(struct rawhost *rh, uint64_t gpa, unsigned pages)
{
	uint8_t mb[16 + 8 * 64] = { 0 };
	uint64_t off = (uint64_t)rh->mtt_next * 8;

	S(scalar_parameter, value_hi, mb, (uint32_t)(off >> 32));
	S(scalar_parameter, value, mb, (uint32_t)off);
	for (unsigned i = 0; i < pages && i < 64; i++) {
		uint8_t *e = mb + 16 + 8 * i;
		uint64_t pa = gpa + i * PAGE;

		S(mtt, ptag_h, e, (uint32_t)(pa >> 32));
		S(mtt, ptag_l, e, (uint32_t)pa >> 3);
		S(mtt, p, e, 1);
	}
	if (rawhost_cmd_mbox(rh, 0x011, 0, pages, mb, 16 + 8 * pages, NULL, 0, NULL))
		return ~0ull;
	rh->mtt_next += pages;
	return off;
}

int rawhost_reg_mr(struct rawhost *rh, uint32_t idx, uint64_t gpa, uint64_t va, uint64_t len,
		   unsigned access, bool pa, uint32_t pd, uint32_t *key)
{
	uint8_t m[64] = { 0 };
	uint32_t k = idx << 8 | 0x42;

	if (idx == RAWHOST_MPT_INDEX)
		k = idx << 8 | 0x77;
	S(mpt, r_w, m, 1);
	S(mpt, pa, m, pa);
	S(mpt, lr, m, access & 1);
	S(mpt, lw, m, (access >> 1) & 1);
	S(mpt, rr, m, (access >> 2) & 1);
	S(mpt, rw, m, (access >> 3) & 1);
	S(mpt, mem_key, m, (k >> 8) | (k << 24));
	S(mpt, pd, m, pd);
	S(mpt, start_addr_h, m, (uint32_t)(va >> 32));
	S(mpt, start_addr_l, m, (uint32_t)va);
	if (len == 0) {
		S(mpt, len64, m, 1);
	} else {
		S(mpt, len_h, m, (uint32_t)(len >> 32));
		S(mpt, len_l, m, (uint32_t)len);
	}
	if (!pa) {
		unsigned pages = (unsigned)(((gpa & (PAGE - 1)) + len + PAGE - 1) / PAGE);
		uint64_t off = rawhost_write_mtt(rh, gpa & ~(PAGE - 1), pages);

		S(mpt, mtt_adr_h, m, (uint32_t)(off >> 32));
		S(mpt, mtt_adr_l, m, (uint32_t)off);
		S(mpt, mtt_size, m, pages);
		S(mpt, entity_size, m, 12);
	}
	if (key)
		*key = k;
	return rawhost_cmd_mbox(rh, 0x00d, 0, idx, m, sizeof(m), NULL, 0, NULL);
}

int rawhost_bringup_rest(struct rawhost *rh)
{
	uint8_t eqc[64] = { 0 };
	unsigned size;
	uint64_t mtt;
	int st;

	/* the boot driver's MR: physical, all memory, local read/write only */
	if ((st = rawhost_reg_mr(rh, RAWHOST_MPT_INDEX, 0, 0, 0, 3, true, RAWHOST_PD, &rh->lkey)))
		return st;
	rh->eq_log = 3;
	size = 1u << rh->eq_log;
	rh->eq_ring = rawhost_alloc(rh, PAGE, PAGE);
	for (unsigned i = 0; i < size; i++)
		S(event_queue_entry, owner, (uint8_t *)rawhost_ptr(rh, rh->eq_ring) + 32 * i, 1);
	mtt = rawhost_write_mtt(rh, rh->eq_ring, 1);
	S(eqc, st, eqc, 0xa);
	S(eqc, log_eq_size, eqc, rh->eq_log);
	S(eqc, mtt_base_addr_h, eqc, (uint32_t)(mtt >> 32));
	S(eqc, mtt_base_addr_l, eqc, (uint32_t)mtt >> 3);
	if ((st = rawhost_cmd_mbox(rh, 0x013, 0, RAWHOST_EQN, eqc, sizeof(eqc), NULL, 0, NULL)))
		return st;
	if ((st = rawhost_cmd(rh, 0x012, 0, ~0ull, RAWHOST_EQN, 0, NULL)))
		return st;
	for (unsigned p = 1; p <= 2; p++) {
		st = rawhost_cmd(rh, 0x009, 0, 0, p, 0, NULL);
		if (st && p == 1)
			return st;
	}
	return 0;
}

int rawhost_take_special_qps(struct rawhost *rh)
{
	rh->special_base = 64;
	return rawhost_cmd(rh, 0x023, 0, 0, rh->special_base, 0, NULL);
}

int rawhost_bringup(struct rawhost *rh)
{
	int st = rawhost_bringup_hca(rh);

	return st ? st : rawhost_bringup_rest(rh);
}

void rawhost_cable(struct rawhost *a, unsigned pa, struct rawhost *b, unsigned pb)
{
	a->peer[pa] = b;
	a->peer_port[pa] = pb;
	b->peer[pb] = a;
	b->peer_port[pb] = pa;
	hcasim_port_set_link(a->h, pa, true);
	hcasim_port_set_link(b->h, pb, true);
}

int rawhost_up(struct rawhost *rh)
{
	return rawhost_init(rh, NULL) ? -1 : rawhost_bringup(rh);
}

int rawhost_up_with_qp(struct rawhost *rh, struct rawhost_cq *cq, struct rawhost_qp *qp,
		       const struct rawhost_qp_attr *a)
{
	int st = rawhost_up(rh);

	if (st || (st = rawhost_create_cq(rh, cq, 130, 3)))
		return st;
	return rawhost_create_qp(rh, qp, 0x100, a);
}

int rawhost_pair_up(struct rawhost_pair *p, const struct rawhost_pair_cfg *c)
{
	unsigned log_cq = c->log_cq ? c->log_cq : 3;
	int st;

	if ((st = rawhost_up(&p->a)) || (st = rawhost_up(&p->b)))
		return st;
	rawhost_cable(&p->a, 1, &p->b, 1);
	if ((st = rawhost_set_port(&p->a, 1, c->lid_a ? c->lid_a : 1, 4)) ||
	    (st = rawhost_set_port(&p->b, 1, c->lid_b ? c->lid_b : 2, 4)))
		return st;
	if ((st = rawhost_create_cq(&p->a, &p->acq, 130, log_cq)) ||
	    (st = rawhost_create_cq(&p->b, &p->bcq, 130, log_cq)))
		return st;
	if (!c->qa)
		return 0;
	if ((st = rawhost_create_qp(&p->a, &p->aqp, 0x100, c->qa)))
		return st;
	return rawhost_create_qp(&p->b, &p->bqp, 0x200, c->qb ? c->qb : c->qa);
}

void rawhost_pair_down(struct rawhost_pair *p)
{
	rawhost_fini(&p->a);
	rawhost_fini(&p->b);
}

void rawhost_run(struct rawhost *a, struct rawhost *b)
{
	for (unsigned i = 0; i < 1000; i++) {
		bool w = hcasim_step(a->h);

		if (b && b != a)
			w |= hcasim_step(b->h);
		if (!w)
			break;
	}
}

int rawhost_create_cq(struct rawhost *rh, struct rawhost_cq *cq, uint32_t cqn, unsigned log_size)
{
	uint8_t c[64] = { 0 };
	unsigned n = 1u << log_size, pages = (unsigned)((n * 32 + PAGE - 1) / PAGE);
	uint64_t mtt;

	memset(cq, 0, sizeof(*cq));
	cq->cqn = cqn;
	cq->log_size = log_size;
	cq->ring = rawhost_alloc(rh, pages * PAGE, PAGE);
	cq->dbrec = rawhost_alloc(rh, 8, 8);
	for (unsigned i = 0; i < n; i++)
		S(completion_queue_entry, owner, (uint8_t *)rawhost_ptr(rh, cq->ring) + 32 * i, 1);
	mtt = rawhost_write_mtt(rh, cq->ring, pages);
	S(completion_queue_context, st, c, 0xa);
	S(completion_queue_context, log_cq_size, c, log_size);
	S(completion_queue_context, usr_page, c, RAWHOST_UAR_PAGE);
	S(completion_queue_context, c_eqn, c, RAWHOST_EQN);
	S(completion_queue_context, mtt_base_addr_h, c, (uint32_t)(mtt >> 32));
	S(completion_queue_context, mtt_base_addr_l, c, (uint32_t)mtt >> 3);
	S(completion_queue_context, db_record_addr_h, c, (uint32_t)(cq->dbrec >> 32));
	S(completion_queue_context, db_record_addr_l, c, (uint32_t)cq->dbrec >> 3);
	return rawhost_cmd_mbox(rh, 0x016, 0, cqn, c, sizeof(c), NULL, 0, NULL);
}

int rawhost_poll_cq(struct rawhost *rh, struct rawhost_cq *cq, uint8_t cqe[32])
{
	unsigned n = 1u << cq->log_size;
	uint8_t *e = (uint8_t *)rawhost_ptr(rh, cq->ring) + 32 * (cq->ci & (n - 1));

	if (G(completion_queue_entry, owner, e) != ((cq->ci & n) ? 1u : 0u))
		return 0;
	memcpy(cqe, e, 32);
	cq->ci++;
	S(cq_db_record, update_ci, rawhost_ptr(rh, cq->dbrec), cq->ci & 0xffffff);
	return 1;
}

int rawhost_poll_eq(struct rawhost *rh, uint8_t eqe[32])
{
	unsigned n = 1u << rh->eq_log;
	uint8_t *e = (uint8_t *)rawhost_ptr(rh, rh->eq_ring) + 32 * (rh->eq_ci & (n - 1));
	uint8_t db[4];

	if (G(event_queue_entry, owner, e) != ((rh->eq_ci & n) ? 1u : 0u))
		return -1;
	memcpy(eqe, e, 32);
	rh->eq_ci++;
	hermonprm_store_dword(db, 0, rh->eq_ci & 0xffffff);
	hcasim_bar_write(rh->h, 2, (RAWHOST_EQN / 4) * PAGE + 0x800 + 8 * (RAWHOST_EQN % 4), db, 4);
	return (int)G(event_queue_entry, event_type, eqe);
}

static int modify_qp(struct rawhost *rh, unsigned opcode, uint32_t qpn, uint32_t mask, const uint8_t *qpc)
{
	uint8_t mb[512] = { 0 };

	S(qp_ee_state_transitions, opt_param_mask, mb, mask);
	memcpy(SUB(qp_ee_state_transitions, qpc_eec_data, mb), qpc, 248);
	return rawhost_cmd_mbox(rh, opcode, 0, qpn, mb, sizeof(mb), NULL, 0, NULL);
}

int rawhost_create_qp(struct rawhost *rh, struct rawhost_qp *qp, uint32_t qpn,
		      const struct rawhost_qp_attr *a)
{
	uint8_t c[248] = { 0 };
	void *path = SUB(queue_pair_ee_context_entry, primary_address_path, c);
	uint64_t bytes, mtt;
	unsigned pages;
	int st;

	memset(qp, 0, sizeof(*qp));
	qp->qpn = qpn;
	qp->st = a->st;
	qp->port = a->port ? a->port : 1;
	qp->log_sq = a->log_sq;
	qp->log_rq = a->log_rq;
	qp->sq_stride = 128;
	qp->rq_stride = 32;
	qp->sq_off = 0;
	qp->rq_off = (uint64_t)qp->sq_stride << a->log_sq;
	bytes = qp->rq_off + ((uint64_t)qp->rq_stride << a->log_rq);
	pages = (unsigned)((bytes + PAGE - 1) / PAGE);
	qp->buf = rawhost_alloc(rh, pages * PAGE, PAGE);
	memset(rawhost_ptr(rh, qp->buf), 0xff, (size_t)qp->rq_off); /* unposted: wrong owner */
	qp->dbrec = rawhost_alloc(rh, 4, 4);
	mtt = rawhost_write_mtt(rh, qp->buf, pages);

	S(queue_pair_ee_context_entry, st, c, a->st);
	S(queue_pair_ee_context_entry, pm_state, c, 3);
	S(queue_pair_ee_context_entry, pd, c, RAWHOST_PD);
	S(queue_pair_ee_context_entry, log_sq_size, c, a->log_sq);
	S(queue_pair_ee_context_entry, log_sq_stride, c, 3);
	S(queue_pair_ee_context_entry, log_rq_size, c, a->log_rq);
	S(queue_pair_ee_context_entry, log_rq_stride, c, 1);
	S(queue_pair_ee_context_entry, usr_page, c, RAWHOST_UAR_PAGE);
	S(queue_pair_ee_context_entry, cqn_snd, c, a->cqn_snd);
	S(queue_pair_ee_context_entry, cqn_rcv, c, a->cqn_rcv);
	S(queue_pair_ee_context_entry, rre, c, a->rre);
	S(queue_pair_ee_context_entry, rwe, c, a->rwe);
	S(queue_pair_ee_context_entry, q_key, c, a->qkey);
	S(queue_pair_ee_context_entry, db_record_addr_h, c, (uint32_t)(qp->dbrec >> 32));
	S(queue_pair_ee_context_entry, db_record_addr_l, c, (uint32_t)qp->dbrec >> 2);
	S(queue_pair_ee_context_entry, mtt_base_addr_h, c, (uint32_t)(mtt >> 32));
	S(queue_pair_ee_context_entry, mtt_base_addr_l, c, (uint32_t)mtt >> 3);
	S(address_path, sched_queue, path, 0x83 | (qp->port - 1) << 6);
	if ((st = modify_qp(rh, 0x019, qpn, 0, c)))
		return st;
	if (a->to_state == 1)
		return 0;
	S(queue_pair_ee_context_entry, mtu, c, 5);
	S(queue_pair_ee_context_entry, msg_max, c, 31);
	S(queue_pair_ee_context_entry, remote_qpn_een, c, a->remote_qpn);
	S(address_path, rlid, path, a->dlid);
	if ((st = modify_qp(rh, 0x01a, qpn, 0, c)))
		return st;
	if (a->to_state == 2)
		return 0;
	S(queue_pair_ee_context_entry, retry_count, c, 7);
	S(queue_pair_ee_context_entry, rnr_retry, c, 7);
	return modify_qp(rh, 0x01b, qpn, 0, c);
}

static void data_seg(void *seg, uint32_t len, uint32_t lkey, uint64_t addr)
{
	S(wqe_segment_data_ptr, byte_count, seg, len);
	S(wqe_segment_data_ptr, l_key, seg, lkey);
	S(wqe_segment_data_ptr, local_address_h, seg, (uint32_t)(addr >> 32));
	S(wqe_segment_data_ptr, local_address_l, seg, (uint32_t)addr);
}

void rawhost_post_recv(struct rawhost *rh, struct rawhost_qp *qp, uint64_t gpa, uint32_t len,
		       uint32_t lkey)
{
	uint8_t *w = (uint8_t *)rawhost_ptr(rh, qp->buf + qp->rq_off) +
		     qp->rq_stride * (qp->rq_pi & ((1u << qp->log_rq) - 1));

	if (!lkey)
		lkey = rh->lkey;
	memset(w, 0, qp->rq_stride);
	if (qp->st == 3 || qp->st == 7) {
		data_seg(w, 40, rh->lkey, gpa);
		data_seg(w + 16, len, lkey, gpa + 40);
	} else {
		data_seg(w, len, lkey, gpa);
		data_seg(w + 16, 0, 0x100, 0);
	}
	qp->rq_pi++;
	S(qp_db_record, receive_wqe_counter, rawhost_ptr(rh, qp->dbrec), qp->rq_pi & 0xffff);
}

static uint8_t *sq_slot(struct rawhost *rh, struct rawhost_qp *qp)
{
	uint8_t *w = (uint8_t *)rawhost_ptr(rh, qp->buf + qp->sq_off) +
		     qp->sq_stride * (qp->sq_pi & ((1u << qp->log_sq) - 1));

	memset(w + 4, 0, qp->sq_stride - 4);
	return w;
}

static void ring(struct rawhost *rh, struct rawhost_qp *qp, uint8_t *w, unsigned opcode)
{
	uint8_t db[4] = { 0 };

	S(wqe_segment_ctrl_send, opcode, w, opcode);
	S(wqe_segment_ctrl_send, owner, w, (qp->sq_pi & (1u << qp->log_sq)) ? 1 : 0);
	qp->sq_pi++;
	S(send_db_register, qn, db, qp->qpn);
	hcasim_bar_write(rh->h, 2, RAWHOST_UAR_PAGE * PAGE + 0x14, db, 4);
}

void rawhost_post_ud(struct rawhost *rh, struct rawhost_qp *qp, const struct rawhost_ud_dest *d,
		     uint64_t gpa, uint32_t len, uint32_t lkey)
{
	uint8_t *w = sq_slot(rh, qp), *ud = w + 16;
	void *av = SUB(wqe_segment_ud, ud_address_vector, ud);

	S(wqe_segment_ctrl_send, ds, w, 5);
	S(wqe_segment_ctrl_send, c, w, 3);
	S(ud_address_vector, pd, av, RAWHOST_PD);
	S(ud_address_vector, port_number, av, qp->port);
	S(ud_address_vector, rlid, av, d->dlid);
	S(ud_address_vector, g, av, d->grh);
	S(ud_address_vector, hop_limit, av, 1);
	S(ud_address_vector, sl, av, d->sl);
	memcpy((uint8_t *)av + 16, d->dgid, 16);
	S(wqe_segment_ud, destination_qp, ud, d->dqpn);
	S(wqe_segment_ud, q_key, ud, d->qkey);
	data_seg(w + 64, len, lkey ? lkey : rh->lkey, gpa);
	ring(rh, qp, w, 0x0a);
}

void rawhost_post_rc(struct rawhost *rh, struct rawhost_qp *qp, unsigned opcode, uint64_t gpa,
		     uint32_t len, uint32_t lkey, uint64_t rva, uint32_t rkey)
{
	uint8_t *w = sq_slot(rh, qp), *seg = w + 16;

	S(wqe_segment_ctrl_send, c, w, 3);
	if (opcode != 0x0a) {
		S(wqe_segment_remote_address, remote_virt_addr_h, seg, (uint32_t)(rva >> 32));
		S(wqe_segment_remote_address, remote_virt_addr_l, seg, (uint32_t)rva);
		S(wqe_segment_remote_address, rkey, seg, rkey);
		seg += 16;
	}
	data_seg(seg, len, lkey ? lkey : rh->lkey, gpa);
	S(wqe_segment_ctrl_send, ds, w, (unsigned)((seg + 16 - w) / 16));
	ring(rh, qp, w, opcode);
}

void rawhost_post_mlx(struct rawhost *rh, struct rawhost_qp *qp, const void *hdr, size_t hdr_len,
		      uint64_t gpa, uint32_t len, bool vl15)
{
	uint8_t *w = sq_slot(rh, qp);
	uint64_t h = rawhost_alloc(rh, 128, 16);

	memcpy(rawhost_ptr(rh, h), hdr, hdr_len);
	S(wqe_segment_ctrl_mlx, ds, w, 3);
	S(wqe_segment_ctrl_mlx, c, w, 3);
	S(wqe_segment_ctrl_mlx, v15, w, vl15);
	data_seg(w + 16, (uint32_t)hdr_len, rh->lkey, h);
	data_seg(w + 32, len + 4 /* ICRC slot */, rh->lkey, gpa);
	ring(rh, qp, w, 0x0a);
}

int rawhost_mad_ifc(struct rawhost *rh, unsigned port, const uint8_t *mad, uint8_t *resp)
{
	return rawhost_cmd_mbox(rh, 0x024, 3, port, mad, 256, resp, 256, NULL);
}

static void smp_init(uint8_t *mad, uint8_t method, unsigned port)
{
	struct iblib_mad_hdr hd = { .base_version = 1, .mgmt_class = IBLIB_MCLASS_SUBN_LID,
				    .class_version = 1, .method = method, .tid = 0x1234,
				    .attr_id = IBLIB_SM_ATTR_PORT_INFO, .attr_mod = port };

	memset(mad, 0, 256);
	iblib_mad_hdr_put(mad, &hd);
}

int rawhost_set_port(struct rawhost *rh, unsigned port, uint16_t lid, unsigned state)
{
	uint8_t mad[256], resp[256];
	int st;

	smp_init(mad, IBLIB_METHOD_GET, port);
	if ((st = rawhost_mad_ifc(rh, port, mad, resp)))
		return st;
	for (unsigned s = 2; s <= state; s += 2) {
		smp_init(mad, IBLIB_METHOD_SET, port);
		memcpy(iblib_smp_data(mad), iblib_smp_data(resp), 64);
		iblib_portinfo_set_lid(iblib_smp_data(mad), lid);
		iblib_portinfo_set_master_sm_lid(iblib_smp_data(mad), 1);
		iblib_portinfo_set_port_state(iblib_smp_data(mad), s == 2 ? 3 : 4);
		iblib_portinfo_set_port_phys_state(iblib_smp_data(mad), 0);
		iblib_portinfo_set_link_speed_enabled(iblib_smp_data(mad), 0);
		iblib_portinfo_set_link_width_enabled(iblib_smp_data(mad), 0);
		if ((st = rawhost_mad_ifc(rh, port, mad, resp)))
			return st;
		if (iblib_smp_status(resp))
			return -2;
	}
	return 0;
}

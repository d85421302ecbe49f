/* SPDX-License-Identifier: MIT */
/*
 * Diagnostics snapshot: a readable dump of what a firmware dump would hold — the HCR, firmware
 * state, the host memory the device holds (FA/AUX/ICM maps), the INIT_HCA layout, ports, the
 * event map, every context in hardware ownership (read back from ICM), and the latest refused
 * operations. (In the spirit of the mlx5 FWDUMP register snapshot.)
 */
#include <stdio.h>
#include <string.h>

#include "hcasim_int.h"
#include "sma.h"

struct out {
	char *buf;
	size_t len, used;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->used < o->len ? o->buf + o->used : NULL,
		      o->used < o->len ? o->len - o->used : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->used += (size_t)n;
}

static void dump_map(struct out *o, const char *name, const struct hcasim_vmap *m)
{
	put(o, "%s: %llu bytes in %zu ranges\n", name, (unsigned long long)m->bytes, m->n);
	for (size_t i = 0; i < m->n && i < 16; i++)
		put(o, "  va %#llx -> pa %#llx len %#llx\n", (unsigned long long)m->r[i].va,
		    (unsigned long long)m->r[i].pa, (unsigned long long)m->r[i].len);
}

static void dump_contexts(struct hcasim *h, struct out *o)
{
	uint8_t b[HERMONPRM_QUEUE_PAIR_EE_CONTEXT_ENTRY_ST_BYTES];
	const struct hcasim_layout *l = &h->lay;

	put(o, "layout: qpc %#llx (2^%u) cqc %#llx (2^%u) eqc %#llx (2^%u) dmpt %#llx (2^%u) "
	       "mtt %#llx cmpt %#llx mcg %#llx (2^%u x %u B, hash 2^%u)\n",
	    (unsigned long long)l->qpc_base, l->log_num_qp, (unsigned long long)l->cqc_base,
	    l->log_num_cq, (unsigned long long)l->eqc_base, l->log_num_eq,
	    (unsigned long long)l->dmpt_base, l->log_num_mpt, (unsigned long long)l->mtt_base,
	    (unsigned long long)l->cmpt_base, (unsigned long long)l->mc_base, l->log_mc_table_sz,
	    1u << l->log_mc_entry_sz, l->log_mc_hash_sz);
	for (uint32_t i = 0; i < (1u << l->log_num_eq); i++)
		if (hcasim_bit(h->eq_hw, i) && hcasim_icm_read(h, hcasim_eqc_va(h, i), b, 64) == 0)
			put(o, "EQ %#x: size 2^%u producer %u consumer %u\n", i,
			    PRM_GET(eqc, log_eq_size, b), PRM_GET(eqc, producer_counter, b),
			    PRM_GET(eqc, consumer_counter, b));
	for (uint32_t i = 0; i < (1u << l->log_num_eq); i++) {
		uint64_t mask = 0;

		for (unsigned t = 0; t < 64; t++)
			if (h->eq_of_event[t] == (int)i)
				mask |= 1ull << t;
		if (mask)
			put(o, "events mapped to EQ %#x: mask %#018llx\n", i, (unsigned long long)mask);
	}
	for (uint32_t i = 0; i < (1u << l->log_num_cq); i++)
		if (hcasim_bit(h->cq_hw, i) && hcasim_icm_read(h, hcasim_cqc_va(h, i), b, 64) == 0)
			put(o, "CQ %#x: size 2^%u producer %u eqn %#x%s\n", i,
			    PRM_GET(completion_queue_context, log_cq_size, b),
			    PRM_GET(completion_queue_context, producer_counter, b),
			    PRM_GET(completion_queue_context, c_eqn, b),
			    hcasim_bit(h->cq_armed, i) ? " armed" : "");
	for (uint32_t i = 0; i < (1u << l->log_num_qp); i++)
		if (h->qp_state[i] != QPS_RST && hcasim_qpc_load(h, i, b) == 0)
			put(o, "QP %#x: %s st %#x pd %#x sq %u rq %u cq %#x/%#x qkey %#x\n",
			    PRM_GET(queue_pair_ee_context_entry, local_qpn_een, b),
			    hcasim_qp_state_name(h->qp_state[i]),
			    PRM_GET(queue_pair_ee_context_entry, st, b),
			    PRM_GET(queue_pair_ee_context_entry, pd, b),
			    PRM_GET(queue_pair_ee_context_entry, sq_wqe_counter, b),
			    PRM_GET(queue_pair_ee_context_entry, rq_wqe_counter, b),
			    PRM_GET(queue_pair_ee_context_entry, cqn_snd, b),
			    PRM_GET(queue_pair_ee_context_entry, cqn_rcv, b),
			    PRM_GET(queue_pair_ee_context_entry, q_key, b));
	for (uint32_t i = 0; i < (1u << l->log_num_mpt); i++)
		if (hcasim_bit(h->mpt_hw, i) && hcasim_icm_read(h, hcasim_dmpt_va(h, i), b, 64) == 0)
			put(o, "MPT %#x: key %#x pd %#x %s%s%s%s%s%s\n", i, PRM_GET(mpt, mem_key, b),
			    PRM_GET(mpt, pd, b), PRM_GET(mpt, pa, b) ? "pa " : "",
			    PRM_GET(mpt, lr, b) ? "lr " : "", PRM_GET(mpt, lw, b) ? "lw " : "",
			    PRM_GET(mpt, rr, b) ? "rr " : "", PRM_GET(mpt, rw, b) ? "rw " : "",
			    PRM_GET(mpt, atomic, b) ? "atomic" : "");
}

size_t hcasim_diag_snapshot(struct hcasim *h, char *buf, size_t len)
{
	static const char *const fw[] = { "off", "running", "HCA initialised" };
	struct out o = { buf, len, 0 };
	uint64_t saved = h->dma_after_close;

	if (buf && len)
		buf[0] = 0;
	put(&o, "hcasim %04x:%04x  firmware %d.%d.%d: %s%s\n", 0x15b3, h->cfg.device_id,
	    HCASIM_FW_MAJOR, HCASIM_FW_MINOR, HCASIM_FW_SUBMINOR, fw[h->fw],
	    h->catastrophic ? "  CATASTROPHIC ERROR" : "");
	put(&o, "HCR:");
	for (unsigned i = 0; i < 7; i++)
		put(&o, " %08x", hermonprm_load_dword(h->hcr, i));
	put(&o, "%s  commands %llu  last status %#x\n", h->hcr_pending ? " (held)" : "",
	    (unsigned long long)h->cmd_count, h->last_status);
	put(&o, "error buffer: %08x %08x\n", hermonprm_load_dword(h->errbuf, 0),
	    hermonprm_load_dword(h->errbuf, 1));
	dump_map(&o, "FA", &h->fa);
	dump_map(&o, "AUX", &h->aux);
	dump_map(&o, "ICM", &h->icm);
	for (unsigned p = 1; p <= h->cfg.num_ports; p++) {
		const struct hcasim_port *pp = &h->port[p - 1];

		put(&o, "port %u: link %s, %s, state %u, LID %#x, MTU cap %u; tx %llu rx %llu "
		       "bad-crc %llu bad-hdr %llu no-qp %llu bad-qkey %llu bad-pkey %llu no-wqe %llu\n",
		    p, pp->link ? "up" : "down", pp->up ? "open" : "closed",
		    hcasim_sma_port_state(h->sma, p), hcasim_sma_lid(h->sma, p), pp->mtu_cap,
		    (unsigned long long)pp->tx_packets, (unsigned long long)pp->rx_packets,
		    (unsigned long long)pp->rx_bad_crc, (unsigned long long)pp->rx_bad_hdr,
		    (unsigned long long)pp->rx_no_qp, (unsigned long long)pp->rx_bad_qkey,
		    (unsigned long long)pp->rx_bad_pkey, (unsigned long long)pp->rx_no_wqe);
	}
	if (h->fw == FW_HCA_UP)
		dump_contexts(h, &o);
	put(&o, "refused operations: %u\n", h->refused_count);
	for (unsigned i = 0; i < h->refused_count && i < 8; i++)
		put(&o, "  %s\n", hcasim_refused(h, i));
	h->dma_after_close = saved; /* a dump is not the device doing DMA */
	return o.used;
}

/* SPDX-License-Identifier: MIT */
/*
 * `fwdump` in the FWDUMP text format (<ibboot/fwdump.h>): the PCI config header, the command
 * register (HCR), the catastrophic-error buffer (location from QUERY_FW), the memory handed to
 * the HCA, and every queue's driver view beside the hardware's context (QUERY_EQ / QUERY_CQ /
 * QUERY_QP), so a stuck queue shows where the two disagree. The same lines go to the console and
 * into the boot report; util/fwdump decodes them (and names every field and word).
 */
#include <ibboot/byteorder.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/fwdump.h>
#include <ibboot/hermon_prm.h>
#include <ibboot/ib_ulp.h>
#include <ibboot/pci.h>
#include <ibboot/string.h>
#include "hermon.h"
#include "hermon_ib.h"

/* Token forms (no blanks: they are attribute values). */
/* One per enum hermon_stage, in its order (HERMON_STAGE_RESET .. HERMON_STAGE_RUNNING). */
#define HERMON_STAGE_TOKENS \
	"reset\0fa-mapped\0fw-running\0aux-mapped\0icm-mapped\0hca-init\0mpt-set\0eq-set\0running"
#define HERMON_QP_TYPE_NAMES  "SMI\0GSI\0UD\0RC"
#define HERMON_QP_STATE_NAMES "RESET\0INIT\0RTR\0RTS\0ERR"

#define CATAS_MAX_DWORDS 64   /* QUERY_FW reports tens of dwords; more would be a bad answer */

struct dump {
	const struct fwdump_out *out;
	unsigned segments;
};

static void emit(struct dump *d, const char *fmt, ...) __printf(2, 3);
static void emit(struct dump *d, const char *fmt, ...)
{
	char line[FWDUMP_LINE_MAX + 1];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	d->out->line(d->out->ctx, line);
}

/* SEG header (its attributes from fmt), the words, END. */
static void segment(struct dump *d, const char *name, const uint32_t *w, unsigned n,
		    const char *fmt, ...) __printf(5, 6);
static void segment(struct dump *d, const char *name, const uint32_t *w, unsigned n,
		    const char *fmt, ...)
{
	char line[FWDUMP_LINE_MAX + 1], attrs[FWDUMP_LINE_MAX - 32];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(attrs, sizeof(attrs), fmt, ap);
	va_end(ap);
	emit(d, "SEG %s %u%s%s", name, n, attrs[0] ? " " : "", attrs);
	for (unsigned i = 0; i < n; i += FWDUMP_WORDS_PER_LINE) {
		size_t len = (size_t)ksnprintf(line, sizeof(line), "+%04x:", 4 * i);

		for (unsigned j = i; j < n && j < i + FWDUMP_WORDS_PER_LINE; j++)
			len += (size_t)ksnprintf(line + len, sizeof(line) - len, " %08x", w[j]);
		d->out->line(d->out->ctx, line);
	}
	emit(d, "END %s", name);
	d->segments++;
}

/* A context from a mailbox: its big-endian dwords as values. */
static void context_words(const uint8_t *ctx, uint32_t *w, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		w[i] = get_be32(ctx + 4 * i);
}

static void dump_pci(struct hermon *h, struct dump *d)
{
	uint32_t w[16];

	if (!h->pci)
		return;
	for (unsigned i = 0; i < ARRAY_SIZE(w); i++)
		w[i] = pci_read32(h->pci, 4 * i);
	segment(d, "pci", w, ARRAY_SIZE(w), "%s", "");
}

static void dump_hcr(struct hermon *h, struct dump *d)
{
	uint32_t w[HERMON_HCR_DWORDS];

	if (h->config.size < HERMON_HCR_BASE + 4 * HERMON_HCR_DWORDS)
		return;   /* BAR0 not mapped (probe failed early) */
	for (unsigned i = 0; i < HERMON_HCR_DWORDS; i++)
		w[i] = readl_be(&h->config, HERMON_HCR_BASE + 4 * i);
	segment(d, "hcr", w, HERMON_HCR_DWORDS, "offset=0x%x stuck=%u", HERMON_HCR_BASE,
		h->hcr_stuck);
}

static void dump_catas(struct hermon *h, struct dump *d)
{
	uint32_t w[CATAS_MAX_DWORDS];
	unsigned n = h->err_buf_size;

	if (h->stage == HERMON_STAGE_RESET || n == 0) {
		segment(d, "catas", NULL, 0, "available=no");
		return;
	}
	if (h->err_buf_bar != 0 || h->err_buf_offset + 4ull * n > h->config.size) {
		segment(d, "catas", NULL, 0, "available=no bar=%u offset=0x%llx size=%u",
			h->err_buf_bar, (unsigned long long)h->err_buf_offset, n);
		return;
	}
	if (n > CATAS_MAX_DWORDS)
		n = CATAS_MAX_DWORDS;
	for (unsigned i = 0; i < n; i++)
		w[i] = readl_be(&h->config, h->err_buf_offset + 4 * i);
	segment(d, "catas", w, n, "available=yes bar=0 offset=0x%llx size=%u catastrophic=%u",
		(unsigned long long)h->err_buf_offset, h->err_buf_size, h->catastrophic);
}

static void dump_queues(struct hermon *h, struct dump *d, uint8_t *ctx)
{
	uint32_t w[HERMONPRM_QUEUE_PAIR_EE_CONTEXT_ENTRY_ST_BYTES / 4];
	bool ok;

	ok = hermon_cmd_query_eq(h, h->eq.eqn, ctx) == 0;
	context_words(ctx, w, HERMONPRM_EQC_ST_BYTES / 4);
	segment(d, "eq", w, ok ? HERMONPRM_EQC_ST_BYTES / 4 : 0, "eqn=%u entries=%u consumer=%u "
		"events=%u unknown=%u last_type=0x%02x context=%s", h->eq.eqn, HERMON_NUM_EQES,
		h->eq.next, h->eq.events, h->eq.unknown_events, h->eq.last_type,
		ok ? "QUERY_EQ" : "none");

	for (struct hermon_cq *cq = h->cqs; cq; cq = cq->next_cq) {
		memset(ctx, 0, HERMONPRM_COMPLETION_QUEUE_CONTEXT_ST_BYTES);
		ok = hermon_cmd_query_cq(h, cq->cqn, ctx) == 0;
		context_words(ctx, w, HERMONPRM_COMPLETION_QUEUE_CONTEXT_ST_BYTES / 4);
		segment(d, "cq", w, ok ? HERMONPRM_COMPLETION_QUEUE_CONTEXT_ST_BYTES / 4 : 0,
			"cqn=0x%x entries=%u consumer=%u errors=%u context=%s", cq->cqn,
			cq->num_cqes, cq->next, cq->errors, ok ? "QUERY_CQ" : "none");
	}
	for (unsigned i = 0; i < ARRAY_SIZE(h->qp_table); i++) {
		const struct hermon_qp *qp = h->qp_table[i];
		const uint8_t *qpc;

		if (!qp)
			continue;
		memset(ctx, 0, HERMONPRM_QP_EE_STATE_TRANSITIONS_ST_BYTES);
		ok = hermon_cmd_query_qp(h, qp->qpn, ctx) == 0;
		/* QUERY_QP's mailbox is the QP state-transition layout: the QPC sits inside it. */
		qpc = hermonprm_qp_ee_state_transitions_st_qpc_eec_data(ctx);
		context_words(qpc, w, ARRAY_SIZE(w));
		segment(d, "qp", w, ok ? ARRAY_SIZE(w) : 0, "qpn=0x%x type=%s port=%u state=%s "
			"sq_producer=%u sq_entries=%u rq_producer=%u rq_entries=%u send_cq=0x%x "
			"recv_cq=0x%x mcast_groups=%u context=%s", qp->qpn,
			str_nth(HERMON_QP_TYPE_NAMES, qp->type), qp->port,
			str_nth(HERMON_QP_STATE_NAMES, qp->state), qp->send.next, qp->send.num_wqes,
			qp->recv.next, qp->recv.num_wqes, qp->send_cq->cqn, qp->recv_cq->cqn,
			qp->mcast_groups, ok ? "QUERY_QP" : "none");
	}
}

void hermon_dump_to(struct hermon *h, const struct fwdump_out *out)
{
	struct dump d = { out, 0 };
	uint8_t ctx[HERMONPRM_QP_EE_STATE_TRANSITIONS_ST_BYTES];
	const char *stage = h->stage <= HERMON_STAGE_RUNNING
		? str_nth(HERMON_STAGE_TOKENS, h->stage) : "?";
	const char *name = h->ibname[0] ? h->ibname : "hermon";

	emit(&d, "FWDUMP %u %s id=%04x:%04x fw=%u.%u.%u cmd_if_rev=%u stage=%s catastrophic=%u "
	     "last_cmd=%s last_status=0x%02x", FWDUMP_FORMAT_VERSION, name,
	     h->pci ? h->pci->vendor : 0, h->pci ? h->pci->device : 0, h->fw_major, h->fw_minor,
	     h->fw_subminor, h->cmd_if_rev, stage, h->catastrophic,
	     h->last_status ? hermon_opcode_name(h->last_opcode) : "none", h->last_status);
	dump_pci(h, &d);
	dump_hcr(h, &d);
	dump_catas(h, &d);
	segment(&d, "memory", NULL, 0, "fa_kib=%zu aux_kib=%zu icm_kib=%llu lkey=0x%08x mpt=%u "
		"access=lr,lw", h->fa.len / 1024, h->aux.len / 1024,
		(unsigned long long)h->plan.mapped_len / 1024, h->lkey, h->mpt_index);
	if (h->stage == HERMON_STAGE_RUNNING && !h->hcr_stuck)
		dump_queues(h, &d, ctx);
	else
		emit(&d, "# queues not queried: %s", h->hcr_stuck ? "HCR stuck" : "HCA not running");
	for (unsigned i = 0; i < h->num_ports; i++) {
		const struct hermon_port *p = &h->port[i];
		const struct ib_port_attr *a = &h->ib.port[i].attr;

		segment(&d, "port", NULL, 0, "num=%u open=%u state=%u lid=0x%x sm_lid=0x%x "
			"width=%u speed=%u mtu_cap=%u mtu_active=%u vl_cap=%u state_events=%u "
			"mgmt_events=%u", p->num, p->open, a->state, a->lid, a->sm_lid,
			a->link_width_active, a->link_speed_active, p->max_mtu, a->neighbor_mtu,
			p->vl_cap, p->state_events, p->mgmt_events);
	}
	emit(&d, "FWEND %s segments=%u", name, d.segments);
}

static void console_line(void *ctx __unused, const char *line)
{
	kprintf("%s\n", line);
}

void hermon_dump(struct hermon *h)
{
	static const struct fwdump_out console = { console_line, NULL };

	hermon_dump_to(h, &console);
}

/* ---- what the boot report asks of the driver ---- */

static void dump_one(struct hermon *h, void *ctx)
{
	hermon_dump_to(h, ctx);
}

int hermon_fwdump_write(const struct fwdump_out *out)
{
	return hermon_for_each(dump_one, (void *)out);
}

static void identity_one(struct hermon *h, void *ctx)
{
	const struct fwdump_out *out = ctx;
	const uint8_t *g = h->ib.node_guid;
	char line[FWDUMP_LINE_MAX + 1], rate[32];

	ksnprintf(line, sizeof(line), "hca: %s pci %04x:%04x fw %u.%u.%u node-guid "
		  "%04x:%04x:%04x:%04x ports %u%s", h->ibname,
		  h->pci ? h->pci->vendor : 0, h->pci ? h->pci->device : 0, h->fw_major,
		  h->fw_minor, h->fw_subminor, get_be16(g), get_be16(g + 2), get_be16(g + 4),
		  get_be16(g + 6), h->num_ports, h->catastrophic ? " CATASTROPHIC-ERROR" : "");
	out->line(out->ctx, line);
	for (unsigned i = 0; i < h->num_ports; i++) {
		const struct ib_port_attr *a = &h->ib.port[i].attr;

		/* Width and speed mean something only once the link trained (as ibstat says it). */
		ksnprintf(line, sizeof(line), "port: %s/%u %s lid 0x%x sm-lid 0x%x rate %s mtu %u",
			  h->ibname, h->port[i].num, ib_port_state_name(a->state), a->lid, a->sm_lid,
			  a->state >= IB_PORT_INIT ? ib_port_rate_string(a, rate, sizeof(rate)) : "-",
			  a->neighbor_mtu ? 128u << a->neighbor_mtu : 0);
		out->line(out->ctx, line);
	}
}

int hermon_identity_write(const struct fwdump_out *out)
{
	return hermon_for_each(identity_one, (void *)out);
}

/* SPDX-License-Identifier: MIT */
/*
 * hcasim: instance life cycle, the host callbacks, the step() loop and the small public knobs
 * (fault injection, accounting). No global state: everything hangs off struct hcasim.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcasim_int.h"
#include "sma.h"

void hcasim_log(struct hcasim *h, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	if (!h->ops.log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	h->ops.log(h->ops.ctx, line);
}

/* A refused operation: kept in a small ring for tests/diagnostics and passed to ops->log. */
void hcasim_refuse(struct hcasim *h, const char *fmt, ...)
{
	char *slot = h->refused[h->refused_count % HCASIM_REFUSED_LOG];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(slot, HCASIM_REFUSED_LEN, fmt, ap);
	va_end(ap);
	h->refused_count++;
	hcasim_log(h, "hcasim: refused: %s", slot);
}

/* Every device-initiated DMA goes through here, so "no DMA after close" can be checked. */
int hcasim_dma_read(struct hcasim *h, uint64_t gpa, void *buf, size_t len)
{
	if (h->fw == FW_OFF)
		h->dma_after_close++;
	if (!hcasim_dma_guard(h, gpa, len, false) || !h->ops.dma_read ||
	    h->ops.dma_read(h->ops.ctx, gpa, buf, len) < 0) {
		memset(buf, 0xff, len);
		return -1;
	}
	return 0;
}

int hcasim_dma_write(struct hcasim *h, uint64_t gpa, const void *buf, size_t len)
{
	if (h->fw == FW_OFF)
		h->dma_after_close++;
	if (!hcasim_dma_guard(h, gpa, len, true) || !h->ops.dma_write ||
	    h->ops.dma_write(h->ops.ctx, gpa, buf, len) < 0)
		return -1;
	return 0;
}

uint64_t hcasim_now(struct hcasim *h)
{
	return h->ops.now_ns ? h->ops.now_ns(h->ops.ctx) : 0;
}

void hcasim_free_tables(struct hcasim *h)
{
	free(h->qp_state);
	free(h->qp_rc_wait);
	h->qp_rc_wait = NULL;
	free(h->cq_hw);
	free(h->cq_armed);
	free(h->eq_hw);
	free(h->eq_armed);
	h->eq_armed = NULL;
	memset(h->irq_pending, 0, sizeof(h->irq_pending));
	free(h->mpt_hw);
	h->qp_state = NULL;
	h->cq_hw = h->cq_armed = h->eq_hw = h->mpt_hw = NULL;
	memset(&h->lay, 0, sizeof(h->lay));
	memset(h->rc_rx, 0, sizeof(h->rc_rx));
	for (unsigned i = 0; i < 64; i++)
		h->eq_of_event[i] = -1;
	h->special_qp_set = false;
	h->sq_head = h->sq_count = 0;
}

/* The power-on state (also what a reset returns to): firmware off, nothing mapped, HCR idle with
 * toggle 0, ports closed. The cable stays as it is; the SMA keeps node identity. */
void hcasim_power_on(struct hcasim *h)
{
	hcasim_free_tables(h);
	hcasim_vmap_clear(&h->fa);
	hcasim_vmap_clear(&h->aux);
	hcasim_vmap_clear(&h->icm);
	memset(h->hcr, 0, sizeof(h->hcr));
	memset(h->errbuf, 0, sizeof(h->errbuf));
	memset(h->msix, 0, sizeof(h->msix));
	h->hcr_pending = false;
	h->hw_sem = 0;
	h->catastrophic = false;
	h->fw = FW_OFF;
	h->icm_size_set = false;
	h->icm_size = h->aux_pages = 0;
	h->rx_head = h->rx_count = 0;
	for (unsigned p = 0; p < HCASIM_MAX_PORTS; p++) {
		h->port[p].up = false;
		h->port[p].mtu_cap = 5;
		h->port[p].vl_cap = 1;
		if (h->sma && p < h->cfg.num_ports)
			hcasim_link_update(h, p + 1);
	}
}

struct hcasim *hcasim_create(const struct hcasim_config *cfg, const struct hcasim_host_ops *ops)
{
	struct hcasim *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	if (cfg)
		h->cfg = *cfg;
	if (ops)
		h->ops = *ops;
	if (!h->cfg.device_id)
		h->cfg.device_id = 0x1003;
	if (!h->cfg.num_ports || h->cfg.num_ports > HCASIM_MAX_PORTS)
		h->cfg.num_ports = 2;
	if (!h->cfg.node_guid)
		h->cfg.node_guid = 0x0002c90300a0b0c0ull;
	for (unsigned p = 0; p < 2; p++)
		if (!h->cfg.port_guid[p])
			h->cfg.port_guid[p] = h->cfg.node_guid + 1 + p;
	snprintf(h->node_desc, sizeof(h->node_desc), "%s",
		 cfg && cfg->node_desc ? cfg->node_desc : "hcasim");
	h->cfg.node_desc = h->node_desc;
	h->reset_ns = HCASIM_RESET_NS_DEFAULT;
	h->fail_opcode = h->timeout_opcode = -1;
	h->sq_cap = 1024;
	h->sq_ring = calloc(h->sq_cap, sizeof(*h->sq_ring));
	h->rxq = calloc(HCASIM_RXQ_LEN, sizeof(*h->rxq));
	h->sma = hcasim_sma_create(&h->cfg);
	if (!h->sq_ring || !h->rxq || !h->sma) {
		hcasim_destroy(h);
		return NULL;
	}
	hcasim_pci_init(h);
	hcasim_power_on(h);
	if (hcasim_faults_from_env(h) != 0) {
		hcasim_destroy(h);
		return NULL;
	}
	return h;
}

void hcasim_destroy(struct hcasim *h)
{
	if (!h)
		return;
	hcasim_free_tables(h);
	hcasim_vmap_clear(&h->fa);
	hcasim_vmap_clear(&h->aux);
	hcasim_vmap_clear(&h->icm);
	if (h->sma)
		hcasim_sma_destroy(h->sma);
	free(h->sq_ring);
	free(h->rxq);
	free(h);
}

uint64_t hcasim_bar_size(struct hcasim *h, unsigned bar)
{
	(void)h;
	return bar == 0 ? HCASIM_BAR0_SIZE : bar == 2 ? HCASIM_BAR2_SIZE : 0;
}

/* The physical link trains only with a cable, an open port (INIT_PORT) and an initialised HCA;
 * every change is told to the SMA (PortState DOWN <-> INIT) and to the host (far end). Leaving
 * ACTIVE is a port state change event (subtype 1, down); INIT -> DOWN is not. */
void hcasim_link_update(struct hcasim *h, unsigned port)
{
	struct hcasim_port *p = &h->port[port - 1];
	bool up = p->link && p->up && h->fw == FW_HCA_UP && !h->reset_active;

	if (up == p->linked)
		return;
	p->linked = up;
	hcasim_sma_set_link(h->sma, port, up);
	if (!up) {
		if (p->last_state == 4 /* ACTIVE */ && h->fw == FW_HCA_UP)
			hcasim_port_event(h, port, EV_PORT_CHANGE, 1);
		p->last_state = 1; /* DOWN */
	}
	if (h->ops.link_change)
		h->ops.link_change(h->ops.ctx, port, up);
}

void hcasim_port_set_link(struct hcasim *h, unsigned port, bool up)
{
	if (port < 1 || port > h->cfg.num_ports)
		return;
	h->port[port - 1].link = up;
	hcasim_link_update(h, port);
}

void hcasim_packet_in(struct hcasim *h, unsigned port, const void *pkt, size_t len)
{
	struct hcasim_rxpkt *slot;

	if (port < 1 || port > h->cfg.num_ports)
		return;
	if (!h->port[port - 1].linked) {
		h->port[port - 1].rx_link_down++;
		return; /* no trained link: nothing arrives (the SM sees a timeout) */
	}
	if (len > HCASIM_MAX_PKT || h->rx_count == HCASIM_RXQ_LEN) {
		h->port[port - 1].rx_bad_hdr++;
		hcasim_refuse(h, "port %u: packet of %zu bytes dropped (%s)", port, len,
			      len > HCASIM_MAX_PKT ? "too long" : "receive FIFO full");
		return;
	}
	slot = &h->rxq[(h->rx_head + h->rx_count) % HCASIM_RXQ_LEN];
	slot->port = port;
	slot->len = len;
	memcpy(slot->data, pkt, len);
	h->rx_count++;
}

bool hcasim_step(struct hcasim *h)
{
	bool work = false;

	if (h->reset_active) {
		if (!hcasim_reachable(h))
			return false;
		work = true;
	}
	if (h->hcr_pending && !h->stall_hcr) {
		hcasim_hcr_go(h);
		work |= !h->hcr_pending; /* a command held by a fault knob is not progress */
	}
	if (h->fw != FW_HCA_UP || h->catastrophic) {
		h->sq_count = 0;
		h->rx_count = 0;
		return work;
	}
	/* Send queues first (in doorbell order), then what arrived on the wire. A packet sent
	 * here may be looped back into our own FIFO; it is handled in this same call. */
	while (h->sq_count) {
		uint32_t qpn = h->sq_ring[h->sq_head];

		h->sq_head = (h->sq_head + 1) % h->sq_cap;
		h->sq_count--;
		hcasim_sq_run(h, qpn);
		work = true;
	}
	for (unsigned budget = 4 * HCASIM_RXQ_LEN; h->rx_count && budget; budget--) {
		struct hcasim_rxpkt *p = &h->rxq[h->rx_head];

		/* Handled where it lies in the FIFO: the slot stays taken until then, so a packet that
		 * handling loops back into the FIFO lands behind it (one copy, from the wire into the
		 * FIFO, before the DMA write of the payload). */
		hcasim_rx_packet(h, p->port, p->data, p->len);
		if (h->rx_count) {   /* a reset while handling emptied the FIFO */
			h->rx_head = (h->rx_head + 1) % HCASIM_RXQ_LEN;
			h->rx_count--;
		}
		work = true;
		if (h->sq_count)
			return work;
	}
	return work;
}

void hcasim_fault_fail_cmd(struct hcasim *h, int opcode, uint8_t status)
{
	h->fail_opcode = opcode;
	h->fail_status = status ? status : ST_INTERNAL_ERR;
}

void hcasim_fault_timeout_cmd(struct hcasim *h, int opcode)
{
	h->timeout_opcode = opcode;
}

void hcasim_fault_stall_hcr(struct hcasim *h, bool stall)
{
	h->stall_hcr = stall;
}

void hcasim_fault_corrupt_next_cqe(struct hcasim *h)
{
	h->corrupt_next_cqe = true;
}

void hcasim_set_reset_time(struct hcasim *h, uint64_t ns)
{
	h->reset_ns = ns;
}

void hcasim_mem_usage(const struct hcasim *h, struct hcasim_mem_usage *u)
{
	u->fa_bytes = h->fa.bytes;
	u->aux_bytes = h->aux.bytes;
	u->icm_bytes = h->icm.bytes;
	u->total = u->fa_bytes + u->aux_bytes + u->icm_bytes;
}

int hcasim_port_stats(const struct hcasim *h, unsigned port, struct hcasim_port_stats *st)
{
	const struct hcasim_port *p;

	if (port < 1 || port > h->cfg.num_ports)
		return -1;
	p = &h->port[port - 1];
	st->tx_packets = p->tx_packets;
	st->rx_packets = p->rx_packets;
	st->rx_bad_crc = p->rx_bad_crc;
	st->rx_bad_hdr = p->rx_bad_hdr;
	st->rx_no_qp = p->rx_no_qp;
	st->rx_bad_qkey = p->rx_bad_qkey;
	st->rx_bad_pkey = p->rx_bad_pkey;
	st->rx_no_wqe = p->rx_no_wqe;
	st->rx_link_down = p->rx_link_down;
	return 0;
}

unsigned hcasim_refused_count(const struct hcasim *h)
{
	return h->refused_count;
}

const char *hcasim_refused(const struct hcasim *h, unsigned newest_index)
{
	if (newest_index >= h->refused_count || newest_index >= HCASIM_REFUSED_LOG)
		return NULL;
	return h->refused[(h->refused_count - 1 - newest_index) % HCASIM_REFUSED_LOG];
}

bool hcasim_quiesced(const struct hcasim *h)
{
	return h->fw == FW_OFF && !h->fa.n && !h->aux.n && !h->icm.n && !h->qp_state;
}

uint64_t hcasim_dma_after_close(const struct hcasim *h)
{
	return h->dma_after_close;
}

uint8_t hcasim_last_status(const struct hcasim *h)
{
	return h->last_status;
}

int hcasim_irq_next(struct hcasim *h)
{
	for (unsigned v = 0; v < 1024; v++)
		if (hcasim_bit(h->irq_pending, v)) {
			hcasim_bit_set(h->irq_pending, v, false);
			return (int)v;
		}
	return -1;
}

/* SPDX-License-Identifier: MIT */
/*
 * Links and packet movement: a packet put on a cable meets the link's faults (loss, duplication,
 * reordering, corruption, delay — decided by a per-link generator seeded from --seed, so a run is
 * repeatable), is queued, then delivered to the far port, which checks VCRC and ICRC like every
 * receiver in IBA 7.8 and drops what fails.
 */
#include "fabsim.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long a packet picked for reordering waits for a later one to overtake it. */
#define REORDER_HOLD_MS 5

uint64_t fabsim_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void fabsim_log(struct fabric *f, unsigned level, const char *fmt, ...)
{
	va_list ap;

	if (level > f->verbose)
		return;
	fputs("fabsim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

struct port *port_peer(const struct port *p)
{
	if (!p->link)
		return NULL;
	return p->link->end[0] == p ? p->link->end[1] : p->link->end[0];
}

bool port_present(const struct port *p)
{
	if (p->node->kind != NODE_HCAPORT)
		return true;
	if (p->node->local)
		return true;
	return p->node->hca && (!p->node->hca_reports_link || p->node->hca_trained);
}

bool cable_ok(const struct port *p)
{
	struct port *peer = port_peer(p);

	return peer && !p->link->admin_down && port_present(peer);
}

void link_update(struct fabric *f, struct link *l)
{
	bool up = !l->admin_down && port_present(l->end[0]) && port_present(l->end[1]);

	if (up != l->phys_up) {
		l->phys_up = up;
		fabsim_log(f, 1, "link %s:%u <-> %s:%u %s", l->end[0]->node->name, l->end[0]->num,
			   l->end[1]->node->name, l->end[1]->num, up ? "up" : "down");
		if (!up && l->held) {
			event_free(f, l->held);
			l->held = NULL;
			l->cnt.lost++;
		}
		for (int i = 0; i < 2; i++)
			if (l->end[i]->node->kind != NODE_HCAPORT)
				port_set_phys(f, l->end[i], up);
	}
	/* An HCA port hears about the cable, not about its own training: tell it on any change. */
	for (int i = 0; i < 2; i++)
		if (l->end[i]->node->kind == NODE_HCAPORT)
			hca_server_link_changed(f, l->end[i]->node);
}

void link_set_admin(struct fabric *f, struct link *l, bool down)
{
	l->admin_down = down;
	link_update(f, l);
}

/* splitmix64: small, good enough, and the same sequence on every machine. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static bool chance(struct link *l, double p)
{
	if (p <= 0)
		return false;
	return (double)(rng_next(&l->rng) >> 11) * (1.0 / 9007199254740992.0) < p;
}

void fault_set(struct fabric *f, struct link *l, const struct fault_cfg *c)
{
	if (l) {
		l->fault = *c;
		return;
	}
	f->global_fault = *c;
	for (unsigned i = 0; i < f->nlinks; i++)
		f->links[i]->fault = *c;
}

/* Events are recycled rather than freed: a malloc/free of a packet-sized block per hop made glibc
 * trim and grow the heap (brk, a TLB flush on every CPU) at packet rate. */
#define SPARE_EVENTS_MAX 1024

static struct pkt_event *event_new(struct fabric *f, struct port *dst, const uint8_t *pkt,
				   size_t len)
{
	struct pkt_event *e = f->spare;

	if (e) {
		f->spare = e->next;
		f->nspare--;
	} else if (!(e = malloc(sizeof(*e) + FABSIM_MAX_PKT))) {
		return NULL;
	}
	e->next = NULL;
	e->dst = dst;
	e->wire = true;
	e->checked = false;
	e->len = len;
	memcpy(e->data, pkt, len);
	return e;
}

void event_free(struct fabric *f, struct pkt_event *e)
{
	if (!e)
		return;
	if (f->nspare >= SPARE_EVENTS_MAX) {
		free(e);
		return;
	}
	e->next = f->spare;
	f->spare = e;
	f->nspare++;
}

/* More packets than this in flight means a forwarding loop or a multicast storm (IB has no TTL):
 * drop rather than eat the machine's memory. */
#define MAX_QUEUED 100000

static void queue_insert(struct fabric *f, struct pkt_event *e, uint64_t due)
{
	struct pkt_event **pp = &f->queue;

	if (f->queued >= MAX_QUEUED) {
		event_free(f, e);
		f->dropped_total++;
		f->overflow++;
		return;
	}
	f->queued++;
	e->due_ns = due;
	e->seq = f->queue_seq++;
	/* Most packets are due "now", later than everything queued: they go at the tail. */
	if (f->queue && f->queue_tail->due_ns <= due)
		pp = &f->queue_tail->next;
	else
		while (*pp && (*pp)->due_ns <= due)
			pp = &(*pp)->next;
	e->next = *pp;
	*pp = e;
	if (!e->next)
		f->queue_tail = e;
}

/* An event for dst holding pkt: the one fabric_run_queue is delivering, if pkt is its bytes,
 * taken over (the queue run then leaves it alone) instead of copied; else a copy (event_new). */
struct pkt_event *fabric_keep_packet(struct fabric *f, struct port *dst, const uint8_t *pkt,
				     size_t len)
{
	struct pkt_event *e = f->current;

	if (!e || e->data != pkt || e->len != len)
		return event_new(f, dst, pkt, len);
	f->current = NULL;
	e->next = NULL;
	e->dst = dst;
	e->wire = true;
	e->checked = false;
	return e;
}

static void transmit(struct fabric *f, struct port *from, const uint8_t *pkt, size_t len,
		     bool take)
{
	struct link *l = from->link;
	struct port *dst;
	struct pkt_event *e = NULL, *dup = NULL;
	uint64_t due = fabsim_now_ns();

	from->cnt.tx++;
	if (!l || !l->phys_up || len > FABSIM_MAX_PKT) {
		f->dropped_total++;
		return;
	}
	dst = port_peer(from);
	l->cnt.sent++;
	if (chance(l, l->fault.loss)) {
		l->cnt.lost++;
		f->dropped_total++;
		return;
	}
	/* The packet is copied once, into the event that carries it across the cable; a forwarded
	 * one (port_forward) moves on in the event it arrived in. */
	e = take ? fabric_keep_packet(f, dst, pkt, len) : event_new(f, dst, pkt, len);
	if (!e) {
		f->dropped_total++;
		return;
	}
	if (chance(l, l->fault.corrupt)) {
		/* One flipped bit anywhere: the receiver's VCRC (or ICRC, or PktLen) check catches it. */
		uint64_t r = rng_next(&l->rng);

		e->data[r % len] ^= (uint8_t)(1u << ((r >> 32) % 8));
		l->cnt.corrupted++;
	} else {
		/* A switch forwards only what passed its ingress check (or what it built and sealed
		 * itself): the same bytes pass again, so an HCA port's check may be skipped. */
		e->checked = from->node->kind == NODE_SWITCH;
	}
	if (l->fault.delay_ms) {
		due += (uint64_t)l->fault.delay_ms * 1000000ull;
		l->cnt.delayed++;
	}
	if (!l->held && chance(l, l->fault.reorder)) {
		l->held = e;
		l->held->due_ns = due + REORDER_HOLD_MS * 1000000ull;
		return;
	}
	if (chance(l, l->fault.dup)) {
		/* Copied before the original is queued (an overflowing queue frees what it refuses). */
		dup = event_new(f, dst, e->data, len);
		if (dup)
			dup->checked = e->checked;
		l->cnt.duplicated++;
		if (!dup)
			f->dropped_total++;
	}
	queue_insert(f, e, due);
	if (l->held) {
		/* The held packet goes after this one: that is the reordering. */
		queue_insert(f, l->held, due);
		l->held = NULL;
		l->cnt.reordered++;
	}
	if (dup)
		queue_insert(f, dup, due);
}

void port_transmit(struct fabric *f, struct port *from, const uint8_t *pkt, size_t len)
{
	transmit(f, from, pkt, len, false);
}

void port_forward(struct fabric *f, struct port *from, const uint8_t *pkt, size_t len)
{
	transmit(f, from, pkt, len, true);
}

void port_deliver_local(struct fabric *f, struct port *to, const uint8_t *pkt, size_t len)
{
	struct pkt_event *e = len <= FABSIM_MAX_PKT ? event_new(f, to, pkt, len) : NULL;

	if (!e) {
		f->dropped_total++;
		return;
	}
	e->wire = false;
	queue_insert(f, e, fabsim_now_ns());
}

static void port_receive(struct fabric *f, struct port *p, uint8_t *pkt, size_t len, bool checked)
{
	struct pkt_hdrs h;
	enum pkt_status st;

	p->cnt.rx++;
	/* Every receiver checks both CRCs (IBA 7.8). An HCA port only hands the packet to its model
	 * (which checks them again): for bytes a switch checked and the cable left alone, the
	 * verdict is known. */
	if (checked && p->node->kind == NODE_HCAPORT) {
		hca_server_deliver(f, p->node, pkt, len);
		return;
	}
	st = pkt_parse(pkt, len, &h);
	if (st != PKT_OK) {
		if (st == PKT_MALFORMED)
			p->cnt.malformed++;
		else
			p->cnt.bad_crc++;
		f->dropped_total++;
		fabsim_log(f, 1, "%s:%u dropped a packet: %s", p->node->name, p->num,
			   pkt_status_str(st));
		return;
	}
	switch (p->node->kind) {
	case NODE_SWITCH:
		switch_receive(f, p, pkt, len, &h);
		break;
	case NODE_SMHOST:
		ibsim_server_receive(f, p, pkt, len, &h);
		break;
	case NODE_HCAPORT:
		hca_server_deliver(f, p->node, pkt, len);
		break;
	}
}

int fabric_run_queue(struct fabric *f)
{
	uint64_t now = fabsim_now_ns(), next = UINT64_MAX;
	uint64_t horizon = f->queue_seq;
	bool released;

	/* Only what was queued before this call: packets a forwarding loop keeps re-queueing wait for
	 * the next turn of the poll loop, so the control socket still answers. */
	do {
		while (f->queue && f->queue->due_ns <= now && f->queue->seq < horizon) {
			struct pkt_event *e = f->queue;
			struct link *l = e->dst->link;

			f->queue = e->next;
			if (!f->queue)
				f->queue_tail = NULL;
			f->queued--;
			/* A packet still on a cable that went down meanwhile is lost with it. */
			if (e->wire && (!l || !l->phys_up)) {
				if (l)
					l->cnt.lost++;
				f->dropped_total++;
			} else {
				if (e->wire) {
					l->cnt.delivered++;
					if (f->pcap)
						pcap_write(f, e->data, e->len);
				}
				f->current = e;
				port_receive(f, e->dst, e->data, e->len, e->wire && e->checked);
				if (f->current != e)
					e = NULL;   /* a port took it over (fabric_keep_packet) */
				f->current = NULL;
			}
			event_free(f, e);
		}
		/* A held packet that nothing overtook in time goes on unreordered. */
		released = false;
		for (unsigned i = 0; i < f->nlinks; i++) {
			struct link *l = f->links[i];

			if (l->held && l->held->due_ns <= now) {
				queue_insert(f, l->held, now);
				l->held = NULL;
				released = true;
			}
		}
		horizon = f->queue_seq;
	} while (released);
	/* What this run delivered to HCA ports leaves in one batch per connection. */
	hca_server_flush(f);
	/* Packets forwarded during this call are due "now" too: look at the clock again, or every
	 * hop would wait for the next millisecond tick of poll(). */
	now = fabsim_now_ns();
	if (f->queue)
		next = f->queue->due_ns;
	for (unsigned i = 0; i < f->nlinks; i++)
		if (f->links[i]->held && f->links[i]->held->due_ns < next)
			next = f->links[i]->held->due_ns;
	if (next == UINT64_MAX)
		return -1;
	if (next <= now || (f->queue && f->queue->seq >= horizon))
		return 0;
	return (int)((next - now + 999999) / 1000000);
}

/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: arbitrary packets arriving at any port of a small fabric (SM host - sw1 -
 * sw2, LIDs and routes as OpenSM would set them). Input: one byte choosing the arrival port, then
 * the packet from the LRH to the last payload byte; the harness fills in LRH:PktLen, ICRC and
 * VCRC so the fuzzer gets past the CRC checks into the switch (LFT, MFT, directed route), the
 * SMAs and the SM host.
 *
 * The fabric is built once; every input starts from that same state, restored by copying back
 * the bytes of everything an input can change (the fabric, each node, its ports, LFT, MFT and
 * SL2VL tables, each link). Pointers inside those objects point at the same objects before and
 * after, so a byte copy is an exact restore, and runs repeat as when the fabric was rebuilt per
 * input (topo_load, a 48 KiB LFT calloc'd and filled per switch, fabric_free: most of the time
 * under ASan). After each input the harness checks the queue invariants (count matches the list,
 * (due, seq) order, every destination a port of this fabric) and frees what is still in flight.
 * FABSIM_FUZZ_VERIFY_RESET=1 also builds a fresh fabric after every input and compares it with
 * the restored one (slow: a check of the restore itself).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabsim.h"

#include <ibboot/wire/bytes.h>
#include <ibboot/wire/crc.h>

static char topo_path[64];

static const char topo[] =
	"switch sw1 0x0002c90300002000 4\n"
	"switch sw2 0x0002c90300002100 4\n"
	"sm-host smhost 0x0002c90300001000\n"
	"cable sw1:1 smhost\n"
	"cable sw1:2 sw2:1\n"
	"cable sw2:2 sw2:3\n";   /* a loop cable: a DR path may go round it */

static void setup(struct fabric *f)
{
	char err[256];
	struct node *sw1, *sw2;

	if (!topo_path[0]) {
		int fd;

		snprintf(topo_path, sizeof(topo_path), "/tmp/fabsim-fuzz-XXXXXX");
		fd = mkstemp(topo_path);
		if (fd < 0 || write(fd, topo, sizeof(topo) - 1) != (ssize_t)(sizeof(topo) - 1))
			abort();
		/* libFuzzer may leave with _Exit: keep the file only as an open descriptor. */
		unlink(topo_path);
		snprintf(topo_path, sizeof(topo_path), "/proc/self/fd/%d", fd);
	}
	memset(f, 0, sizeof(*f));
	f->seed = 1;
	if (topo_load(f, topo_path, err, sizeof(err)) < 0)
		abort();
	for (unsigned i = 0; i < f->nlinks; i++)
		link_update(f, f->links[i]);
	sw1 = fabric_find_node(f, "sw1");
	sw2 = fabric_find_node(f, "sw2");
	fabric_find_port(f, "smhost")->pi.lid = 1;
	fabric_find_port(f, "smhost")->pi.state = PORT_ACTIVE;
	sw1->ports[0].pi.lid = 2;
	sw2->ports[0].pi.lid = 3;
	sw1->ports[0].pi.smlid = sw2->ports[0].pi.smlid = 1;
	sw1->lft[1] = 1, sw1->lft[2] = 0, sw1->lft[3] = 2;
	sw2->lft[1] = 1, sw2->lft[2] = 1, sw2->lft[3] = 0, sw2->lft[4] = 2;
	for (unsigned p = 1; p <= 3; p++)
		sw1->ports[p].pi.state = sw2->ports[p].pi.state = PORT_ACTIVE;
	sw1->mft[0][0] = 0x0006;
	sw2->mft[0][0] = 0x000e;
}

/* Sizes of a node's tables as topo.c allocates them (switches only). */
static size_t lft_bytes(const struct node *n)
{
	return n->lft ? FABSIM_LFT_SIZE : 0;
}

static size_t mft_bytes(const struct node *n)
{
	return n->mft ? sizeof(*n->mft) * FABSIM_MFT_SIZE : 0;
}

static size_t sl2vl_bytes(const struct node *n)
{
	return n->sl2vl ? (size_t)(n->nports + 1) * (n->nports + 1) * 8 : 0;
}

/* Copy every changeable byte of `f` to `buf` (or back from it when `restore`); NULL buf: size
 * only. On restore each object comes back before its size or table pointers are read. */
static size_t walk(struct fabric *f, uint8_t *buf, bool restore)
{
	size_t off = 0;

#define PART(ptr, n) do { \
		size_t n_ = (n); \
		if (buf && restore && n_) \
			memcpy((ptr), buf + off, n_); \
		else if (buf && n_) \
			memcpy(buf + off, (ptr), n_); \
		off += n_; \
	} while (0)
	PART(f, sizeof(*f));
	for (unsigned i = 0; i < f->nnodes; i++) {
		struct node *n = f->nodes[i];

		PART(n, sizeof(*n));
		PART(n->ports, sizeof(*n->ports) * (n->nports + 1));
		PART(n->lft, lft_bytes(n));
		PART(n->mft, mft_bytes(n));
		PART(n->sl2vl, sl2vl_bytes(n));
	}
	for (unsigned i = 0; i < f->nlinks; i++)
		PART(f->links[i], sizeof(*f->links[i]));
#undef PART
	return off;
}

static bool is_port_of(struct fabric *f, const struct port *p)
{
	for (unsigned i = 0; i < f->nnodes; i++) {
		const struct node *n = f->nodes[i];

		if (p >= n->ports && p <= n->ports + n->nports)
			return true;
	}
	return false;
}

/* What a fabric between two inputs must hold; then free whatever is still in flight (a packet in
 * a forwarding loop, one held back for reordering). */
static void check_and_drain(struct fabric *f)
{
	unsigned count = 0;

	for (struct pkt_event *e = f->queue; e; e = e->next) {
		if (e->next && (e->next->due_ns < e->due_ns ||
				(e->next->due_ns == e->due_ns && e->next->seq < e->seq)))
			abort();   /* queue out of (due, seq) order */
		if (!is_port_of(f, e->dst) || e->len > FABSIM_MAX_PKT || e->seq >= f->queue_seq)
			abort();
		count++;
	}
	if (count != f->queued)
		abort();
	while (f->queue) {
		struct pkt_event *e = f->queue;

		f->queue = e->next;
		free(e);
	}
	f->queued = 0;
	for (unsigned i = 0; i < f->nlinks; i++) {
		free(f->links[i]->held);
		f->links[i]->held = NULL;
	}
	/* The spare events are not part of the snapshot either. */
	while (f->spare) {
		struct pkt_event *e = f->spare;

		f->spare = e->next;
		free(e);
	}
	f->nspare = 0;
	f->queue_tail = NULL;
}

/* A freshly built fabric must equal the restored one byte for byte, pointers aside. */
static void verify_reset(struct fabric *f)
{
	struct fabric g;

	setup(&g);
	if (g.nnodes != f->nnodes || g.nlinks != f->nlinks || g.seed != f->seed || f->queue ||
	    f->queued || g.queue_seq != f->queue_seq || g.dropped_total != f->dropped_total)
		abort();
	for (unsigned i = 0; i < f->nnodes; i++) {
		struct node a, b;

		memcpy(&a, f->nodes[i], sizeof(a));
		memcpy(&b, g.nodes[i], sizeof(b));
		if (a.nports != b.nports || memcmp(a.lft, b.lft, lft_bytes(&a)) ||
		    memcmp(a.mft, b.mft, mft_bytes(&a)) || memcmp(a.sl2vl, b.sl2vl, sl2vl_bytes(&a)))
			abort();
		for (unsigned p = 0; p <= a.nports; p++) {
			struct port pa, pb;

			memcpy(&pa, &a.ports[p], sizeof(pa));
			memcpy(&pb, &b.ports[p], sizeof(pb));
			pa.node = pb.node = NULL;
			pa.link = pb.link = NULL;
			if (memcmp(&pa, &pb, sizeof(pa)))
				abort();
		}
		a.ports = b.ports = NULL;
		a.lft = b.lft = NULL;
		a.mft = b.mft = NULL;
		a.sl2vl = b.sl2vl = NULL;
		if (memcmp(&a, &b, sizeof(a)))
			abort();
	}
	for (unsigned i = 0; i < f->nlinks; i++) {
		struct link la, lb;

		memcpy(&la, f->links[i], sizeof(la));
		memcpy(&lb, g.links[i], sizeof(lb));
		memset(la.end, 0, sizeof(la.end));
		memset(lb.end, 0, sizeof(lb.end));
		if (memcmp(&la, &lb, sizeof(la)))
			abort();
	}
	fabric_free(&g);
}

/* FNV-1a over what is in flight: each queued packet's destination and bytes, in queue order. */
static uint64_t in_flight_hash(const struct fabric *f)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const struct pkt_event *e = f->queue; e; e = e->next) {
		uintptr_t d = (uintptr_t)e->dst;

		for (unsigned i = 0; i < sizeof(d); i++)
			h = (h ^ (uint8_t)(d >> (8 * i))) * 0x100000001b3ull;
		for (size_t i = 0; i < e->len; i++)
			h = (h ^ e->data[i]) * 0x100000001b3ull;
		h = (h ^ 0xff) * 0x100000001b3ull;
	}
	return h;
}

/* Run the fabric turn by turn (one hop per turn) up to 1000 turns, as before, but stop once a
 * turn leaves exactly what an earlier turn (of the last 16) left in flight: IB has no TTL, and a
 * packet caught in a forwarding loop (an LFT pointing round the loop cable, a multicast copy
 * circling it) then repeats the same hops on the same bytes for the remaining turns, changing
 * only counters. That repetition was ~99% of the harness's time; the first laps of every loop,
 * and directed routes of up to 63 hops out and back, still run in full. */
static void run_turns(struct fabric *f)
{
	uint64_t seen[16];
	unsigned nseen = 0;

	for (int i = 0; i < 1000 && fabric_run_queue(f) == 0; i++) {
		uint64_t h = in_flight_hash(f);

		for (unsigned k = 0; k < nseen && k < 16; k++)
			if (seen[k] == h)
				return;
		seen[nseen++ % 16] = h;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const ports[] = { "sw1:1", "sw1:2", "sw2:1", "sw2:2", "sw2:3", "smhost" };
	static struct fabric f;
	static uint8_t *snap;
	static size_t snap_len;
	static bool verify;
	uint8_t pkt[FABSIM_MAX_PKT];
	size_t len;
	struct port *at;

	if (size < 1 + 8 || size - 1 > sizeof(pkt) - 6)
		return 0;
	len = size - 1;
	memcpy(pkt, data + 1, len);
	/* Whole words, as PktLen counts them; then ICRC (for IBA transport packets) and VCRC. */
	len &= ~(size_t)3;
	if ((pkt[1] & 3) >= 2) {
		int err = 0;
		uint32_t icrc = iblib_icrc(pkt, len, &err);

		if (err < 0)
			return 0;
		iblib_put_icrc(pkt + len, icrc);
		len += 4;
	}
	put_be16(pkt + 4, (uint16_t)((get_be16(pkt + 4) & 0xf800) | (len / 4)));
	if ((pkt[1] & 3) >= 2)   /* PktLen is inside the ICRC: recompute it over the final header */
		iblib_put_icrc(pkt + len - 4, iblib_icrc(pkt, len - 4, NULL));
	iblib_put_vcrc(pkt + len, iblib_vcrc(pkt, len));
	len += 2;

	if (!snap) {
		setup(&f);
		snap_len = walk(&f, NULL, false);
		snap = malloc(snap_len);
		if (!snap)
			abort();
		walk(&f, snap, false);
		verify = getenv("FABSIM_FUZZ_VERIFY_RESET") != NULL;
	}
	at = fabric_find_port(&f, ports[data[0] % 6]);
	port_deliver_local(&f, at, pkt, len);
	run_turns(&f);
	check_and_drain(&f);
	walk(&f, snap, true);
	if (verify)
		verify_reset(&f);
	return 0;
}

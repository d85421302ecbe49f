/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: TCP reassembly. The input is a sequence of segments the server sends on an
 * established connection at IPoIB's 4092-byte MTU (MSS 4052, SACK and timestamps agreed), each
 * 7 bytes of description:
 *   flags (bit 0 FIN, bit 1 PSH, bit 2 RST, bit 3 a stray ACK value, bit 4 no timestamps,
 *          bits 5..7 how far the segment's data is cut short), offset (16 bits, from the first
 *          byte of the stream), length (16 bits, modulo 4053), TSval step (signed 8 bits),
 *          ACK step (8 bits)
 * so the fuzzer reaches the out-of-order store (holes, overlaps, duplicates, a full store),
 * FIN inside the store, SACK merging and trimming, PAWS and the RFC 5961 ACK bounds. Byte i of
 * the stream is always pattern(i), so reassembly can be checked exactly. After every segment:
 *   - the bytes delivered are the stream's prefix, nothing else, and rcv_nxt counts them (+1
 *     for a FIN); nothing is delivered past a FIN;
 *   - every stored segment lies beyond rcv_nxt, fits its slot, and the slots in use are counted;
 *   - at most 4 SACK blocks, each non-empty, beyond rcv_nxt, not overlapping another;
 *   - whatever ibboot sends parses.
 */
#include "tcp_peer.h"
#include "net_test_env.h"

#include <ibboot/string.h>
#include <ibboot/byteorder.h>

#define MSS 4052u
#define MAX_SEGS 64   /* segments per input */

static struct tcp_conn conn;
static uint64_t delivered;
static bool bad_data;

/* Byte i of the stream; the period is a prime (251), so a segment delivered at the wrong place
 * shows unless it is off by a multiple of 251 bytes. */
#define PERIOD 251u
static uint8_t stream[PERIOD + MSS];

static uint8_t pattern(uint64_t i)
{
	return (uint8_t)((i % PERIOD) * 131u + 1u);
}

static int rx(struct tcp_conn *c, const uint8_t *d, size_t n)
{
	(void)c;
	for (size_t i = 0; i < n; i++)
		if (d[i] != pattern(delivered + i))
			bad_data = true;
	delivered += n;
	return 0;
}

static void check(bool ok)
{
	if (!ok)
		__builtin_trap();
}

static void check_invariants(uint32_t irs, bool fin_seen, uint32_t fin_off)
{
	uint32_t base = irs + 1;
	unsigned used = 0;

	check(!bad_data);
	check(peer_bad_tx == 0);
	if (conn.state == TCP_CLOSED)
		return;
	check(conn.rcv_nxt - base == (uint32_t)delivered + (conn.fin_received ? 1u : 0u));
	if (conn.fin_received)
		check(fin_seen && (uint32_t)delivered == fin_off);
	check(conn.ooo_slots <= TCP_OOO_SLOTS && conn.ooo_slot_size >= MSS);
	check((uint64_t)conn.ooo_slots * conn.ooo_slot_size <= TCP_OOO_BYTES_MAX);
	for (unsigned i = 0; i < conn.ooo_slots; i++) {
		const struct tcp_ooo_slot *s = &conn.ooo[i];

		if (!s->used)
			continue;
		used++;
		check(s->len <= conn.ooo_slot_size);
		check(TCP_SEQ_GT(s->seq, conn.rcv_nxt));
	}
	for (unsigned i = conn.ooo_slots; i < TCP_OOO_SLOTS; i++)
		check(!conn.ooo[i].used);
	check(used == conn.n_ooo);
	check(conn.n_sack <= 4);
	for (unsigned i = 0; i < conn.n_sack; i++) {
		check(TCP_SEQ_LT(conn.sack[i].start, conn.sack[i].end));
		check(TCP_SEQ_GT(conn.sack[i].start, conn.rcv_nxt));
		for (unsigned j = i + 1; j < conn.n_sack; j++)
			check(TCP_SEQ_LT(conn.sack[i].end, conn.sack[j].start) ||
			      TCP_SEQ_LT(conn.sack[j].end, conn.sack[i].start));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint32_t irs = 0xfffe0000u;   /* the stream crosses 2^32 */
	struct peer_seg syn, a;
	uint8_t o[40];
	uint32_t tsval = 1000, ack, fin_off = 0;
	bool fin_seen = false;
	size_t n;

	if (size > 7 * MAX_SEGS)
		return 0;
	if (!stream[0])
		for (uint32_t i = 0; i < sizeof(stream); i++)
			stream[i] = pattern(i);
	test_dma_reuse = true;
	peer_setup();
	peer_nd.mtu = 4092;
	test_now_ms = 5000;
	delivered = 0;
	bad_data = false;
	memset(&conn, 0, sizeof(conn));
	if (tcp_connect(&conn, &peer_nd, PEER_IP, 80, NULL, rx, NULL) < 0 || !peer_pop(&syn))
		return 0;
	/* SYN-ACK: MSS, window scale 7, SACK permitted, timestamps. */
	n = peer_syn_opts(o, MSS, 7, true, tsval, syn.tsval);
	o[n++] = 1;
	o[n++] = 1;
	o[n++] = 4;
	o[n++] = 2;
	peer_send_raw(80, syn.sport, irs, syn.seq + 1, TCP_SYN | TCP_ACK, 65535, NULL, 0, o,
		      (n + 3) & ~(size_t)3, false);
	tcp_send(&conn, "GET / HTTP/1.1\r\n\r\n", 18);
	ack = syn.seq + 1;
	for (size_t p = 0; p + 7 <= size && conn.state != TCP_CLOSED; p += 7) {
		uint8_t f = data[p];
		uint32_t off = get_be16(data + p + 1), len = get_be16(data + p + 3) % (MSS + 1);
		uint8_t flags = TCP_ACK, opt[12] = { 1, 1, 8, 10 };
		uint32_t seg_ack = ack + (data[p + 6] & 0x1f);

		len -= len * ((f >> 5) & 7u) / 8u;
		tsval += (uint32_t)(int32_t)(int8_t)data[p + 5];
		if (f & 1) {
			flags |= TCP_FIN;
			if (!fin_seen || off + len == fin_off) {
				/* one FIN position per stream, as a real peer has */
				fin_seen = true;
				fin_off = off + len;
			} else {
				flags &= (uint8_t)~TCP_FIN;
			}
		}
		if (fin_seen && off + len > fin_off)
			len = off < fin_off ? fin_off - off : 0;   /* no data past the FIN */
		if (f & 2)
			flags |= TCP_PSH;
		if (f & 4)
			flags |= TCP_RST;
		if (f & 8)
			seg_ack = get_be32(data + p + 1) ^ ((uint32_t)data[p + 6] << 24);
		put_be32(opt + 4, tsval);
		put_be32(opt + 8, syn.tsval);
		peer_send_raw(80, syn.sport, irs + 1 + off, seg_ack, flags, 4096,
			      stream + off % PERIOD, len,
			      (f & 0x10) ? NULL : opt, (f & 0x10) ? 0 : sizeof(opt), false);
		test_now_ms += 7;
		tcp_step(&conn, test_now_ms);
		while (peer_pop(&a))
			;
		check_invariants(irs, fin_seen, fin_off);
	}
	for (int i = 0; i < 10 && conn.state != TCP_CLOSED; i++) {
		test_now_ms += 300;
		tcp_step(&conn, test_now_ms);
	}
	while (peer_pop(&a))
		;
	check(peer_bad_tx == 0 && !bad_data);
	tcp_release(&conn);
	peer_teardown();
	return 0;
}

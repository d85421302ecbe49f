/* SPDX-License-Identifier: MIT */
/* TCP against a peer driven segment by segment: handshake, ACK policy, loss/reordering/duplicates,
 * sequence wrap, RST handling, RTO back-off, fast retransmit, zero window, close. */
#include "tcp_peer.h"
#include "net_test_env.h"
#include "test.h"

#include <ibboot/byteorder.h>
#include <ibboot/errno.h>
#include <stdlib.h>

#define SPORT 80

static struct tcp_conn conn;
static uint8_t rxbuf[1 << 20];
static size_t rxlen;
static int rx_result;

static int rx(struct tcp_conn *c, const uint8_t *d, size_t n)
{
	(void)c;
	if (rxlen + n > sizeof(rxbuf))
		return -ENOSPC;
	memcpy(rxbuf + rxlen, d, n);
	rxlen += n;
	return rx_result;
}

/* Opens a connection and completes the handshake; the server's ISN is irs. */
static struct peer_seg syn;
static uint32_t irs;

static void start(const struct tcp_config *cfg)
{
	peer_setup();
	test_now_ms = 1000000;
	rxlen = 0;
	rx_result = 0;
	tcp_release(&conn);
	memset(&conn, 0, sizeof(conn));
	CHECK_EQ(tcp_connect(&conn, &peer_nd, PEER_IP, SPORT, cfg, rx, NULL), 0);
	CHECK(peer_pop(&syn));
	CHECK_EQ(syn.flags, TCP_SYN);
}

static void establish(const struct tcp_config *cfg, uint32_t server_isn, bool ts)
{
	uint8_t o[40];
	struct peer_seg a;
	size_t n;

	start(cfg);
	irs = server_isn;
	n = peer_syn_opts(o, 2004, 7, ts, 5000, syn.tsval);
	peer_send_raw(SPORT, syn.sport, irs, syn.seq + 1, TCP_SYN | TCP_ACK, 65535, NULL, 0, o,
		      (n + 3) & ~(size_t)3, false);
	CHECK_EQ(conn.state, TCP_ESTABLISHED);
	CHECK(peer_pop(&a));
	CHECK_EQ(a.flags, TCP_ACK);
	CHECK_EQ(a.ack, irs + 1);
}

/* Server data at offset off (from irs + 1). */
static void data(uint32_t off, size_t len, uint8_t flags)
{
	static uint8_t buf[4096];

	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)((off + i) * 7 + 3);
	peer_send_raw(SPORT, syn.sport, irs + 1 + off, syn.seq + 1, TCP_ACK | flags, 4096, buf,
		      len, NULL, 0, false);
}

static bool stream_ok(size_t len)
{
	if (rxlen != len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (rxbuf[i] != (uint8_t)(i * 7 + 3))
			return false;
	return true;
}

TEST(tcp_syn_options_and_handshake)
{
	uint8_t o[40];
	struct peer_seg a;

	start(NULL);
	CHECK(syn.has_mss);
	CHECK_EQ(syn.mss, 2004);          /* 2044 - 20 - 20 */
	CHECK(syn.has_wscale);
	CHECK_EQ(syn.wscale, TCP_RCV_WSCALE);
	CHECK(syn.has_ts);
	CHECK(syn.sack_permitted);
	CHECK_EQ(syn.win, 65535);         /* a SYN's window is never scaled */
	CHECK(syn.sport >= 49152);
	/* A SYN-ACK acknowledging something else gets a RST and changes nothing. */
	peer_send_raw(SPORT, syn.sport, 777, syn.seq + 5, TCP_SYN | TCP_ACK, 1000, NULL, 0, NULL,
		      0, false);
	CHECK(peer_pop(&a));
	CHECK_EQ(a.flags, TCP_RST);
	CHECK_EQ(a.seq, syn.seq + 5);
	CHECK_EQ(conn.state, TCP_SYN_SENT);
	/* The real one: MSS 1460, no window scaling, no timestamps. */
	size_t n = peer_syn_opts(o, 1460, -1, false, 0, 0);
	peer_send_raw(SPORT, syn.sport, 777, syn.seq + 1, TCP_SYN | TCP_ACK, 1000, NULL, 0, o, n,
		      false);
	CHECK_EQ(conn.state, TCP_ESTABLISHED);
	CHECK_EQ(conn.smss, 1460);
	CHECK_EQ(conn.rcv_wscale, 0);     /* the peer did not agree: no scaling either way */
	CHECK(peer_pop(&a));
	CHECK_EQ(a.ack, 778);
	CHECK_EQ(a.win, 65535);
	CHECK(!a.has_ts);
	CHECK_EQ(peer_bad_tx, 0);
	tcp_release(&conn);
	peer_teardown();
}

TEST(tcp_isn_differs_between_connections)
{
	uint32_t first;

	start(NULL);
	first = syn.seq;
	tcp_release(&conn);
	test_now_ms += 1;
	CHECK_EQ(tcp_connect(&conn, &peer_nd, PEER_IP, SPORT, NULL, rx, NULL), 0);
	CHECK(peer_pop(&syn));
	CHECK(syn.seq != first);
	tcp_release(&conn);
	peer_teardown();
}

TEST(tcp_refused_by_rst)
{
	start(NULL);
	peer_send_raw(SPORT, syn.sport, 0, syn.seq + 1, TCP_RST | TCP_ACK, 0, NULL, 0, NULL, 0,
		      false);
	CHECK_EQ(conn.state, TCP_CLOSED);
	CHECK_EQ(conn.error, -ECANCELED);
	CHECK(strstr(conn.error_msg, "connection refused") != NULL);
	tcp_release(&conn);
	peer_teardown();
}

TEST(tcp_syn_backoff_bounded)
{
	struct tcp_config cfg;
	uint64_t last = 0, prev_gap = 0;
	unsigned syns = 1;
	struct peer_seg s;

	tcp_config_default(&cfg);
	cfg.syn_retries = 4;
	start(&cfg);
	last = test_now_ms;
	for (int i = 0; i < 100000 && tcp_step(&conn, test_now_ms); i++, test_now_ms++) {
		while (peer_pop(&s)) {
			CHECK_EQ(s.flags, TCP_SYN);
			CHECK_EQ(s.seq, syn.seq);   /* the same SYN again */
			if (prev_gap)
				CHECK_EQ(test_now_ms - last, prev_gap * 2);   /* RFC 6298 §5.5 */
			prev_gap = test_now_ms - last;
			last = test_now_ms;
			syns++;
		}
	}
	CHECK_EQ(syns, 5);
	CHECK_EQ(conn.state, TCP_CLOSED);
	CHECK_EQ(conn.error, -ETIMEDOUT);
	CHECK(strstr(conn.error_msg, "no answer to 5 connection requests") != NULL);
	tcp_release(&conn);
	peer_teardown();
}

TEST(tcp_delayed_ack_every_second_segment)
{
	struct peer_seg a;

	establish(NULL, 1000, true);
	data(0, 1992, 0);
	CHECK_EQ(peer_queued(), 0);          /* the first full segment waits */
	data(1992, 1992, 0);
	CHECK(peer_pop(&a));                 /* the second is acknowledged at once */
	CHECK_EQ(a.ack, irs + 1 + 2 * 1992);
	CHECK(a.has_ts);
	CHECK_EQ(a.tsecr, 5000);
	data(2 * 1992, 1992, 0);
	CHECK_EQ(peer_queued(), 0);
	tcp_step(&conn, test_now_ms + conn.cfg.delack_ms - 1);
	CHECK_EQ(peer_queued(), 0);
	tcp_step(&conn, test_now_ms + conn.cfg.delack_ms);
	CHECK(peer_pop(&a));                 /* ... or when the delayed-ACK timer runs out */
	CHECK_EQ(a.ack, irs + 1 + 3 * 1992);
	CHECK(stream_ok(3 * 1992));
	tcp_release(&conn);
	peer_teardown();
}

TEST(tcp_reordering_loss_and_duplicates)
{
	struct peer_seg a;
	const size_t seg = 1000;
	int order[] = { 0, 2, 3, 1, 5, 4, 4, 2, 6, 8, 7, 9 };

	establish(NULL, 50000, false);
	for (unsigned i = 0; i < ARRAY_SIZE(order); i++) {
		data((uint32_t)(order[i] * seg), seg, 0);
		while (peer_pop(&a))
			CHECK(TCP_SEQ_LEQ(a.ack, irs + 1 + 10 * seg));
	}
	CHECK(stream_ok(10 * seg));
	CHECK(conn.stats.ooo_stored >= 4);
	CHECK(conn.stats.dup_segs >= 2);
	/* A segment beyond a hole is acknowledged at once with the hole's start (dup ACK). */
	data(11 * seg, seg, 0);
	CHECK(peer_pop(&a));
	CHECK_EQ(a.ack, irs + 1 + 10 * seg);
	/* The hole, retransmitted, releases both and is acknowledged at once. */
	data(10 * seg, seg, 0);
	CHECK(peer_pop(&a));
	CHECK_EQ(a.ack, irs + 1 + 12 * seg);
	CHECK(stream_ok(12 * seg));
	tcp_release(&conn);
	peer_teardown();
}

/* The ACK after the next segment; its SACK blocks as offsets from irs + 1. */
static void expect_ack(uint32_t ack_off, unsigned n, const uint32_t (*blocks)[2])
{
	struct peer_seg a;

	CHECK(peer_pop(&a));
	CHECK_EQ(a.ack, irs + 1 + ack_off);
	CHECK_EQ(a.n_sack, n);
	for (unsigned i = 0; i < n && i < a.n_sack; i++) {
		CHECK_EQ(a.sack[i][0], irs + 1 + blocks[i][0]);
		CHECK_EQ(a.sack[i][1], irs + 1 + blocks[i][1]);
	}
}

TEST(tcp_sack_blocks_report_stored_ranges)
{
	static const uint8_t opts[8] = { 2, 4, 0x07, 0xd4, 1, 1, 4, 2 };   /* MSS 2004, SACK ok */
	static const uint32_t b1[][2] = { { 2000, 3000 } };
	static const uint32_t b2[][2] = { { 5000, 6000 }, { 2000, 3000 } };
	static const uint32_t b3[][2] = { { 2000, 4000 }, { 5000, 6000 } };
	static const uint32_t b4[][2] = { { 5000, 6000 } };

	start(NULL);
	irs = 0xffffff00u;   /* blocks across the wrap too */
	peer_send_raw(SPORT, syn.sport, irs, syn.seq + 1, TCP_SYN | TCP_ACK, 65535, NULL, 0, opts,
		      sizeof(opts), false);
	CHECK(conn.sack_ok);
	peer_flush();
	data(0, 1000, 0);
	peer_flush();
	data(2000, 1000, 0);
	expect_ack(1000, 1, b1);
	data(5000, 1000, 0);
	expect_ack(1000, 2, b2);      /* the newest block first (RFC 2018 §4) */
	data(3000, 1000, 0);
	expect_ack(1000, 2, b3);      /* merged with its neighbour */
	data(1000, 1000, 0);
	expect_ack(4000, 1, b4);      /* the hole filled: that range is no longer reported */
	data(4000, 1000, 0);
	expect_ack(6000, 0, NULL);
	CHECK(stream_ok(6000));
	tcp_release(&conn);
	peer_teardown();
}

TEST(tcp_receive_across_sequence_wrap)
{
	struct peer_seg a;

	establish(NULL, 0xfffff000u, false);
	/* Out of order across 2^32: the later segments first. */
	data(6000, 2000, 0);
	data(2000, 2000, 0);
	data(4000, 2000, 0);
	data(0, 2000, 0);
	CHECK(stream_ok(8000));
	while (peer_pop(&a))
		;
	CHECK_EQ(a.ack, 0xfffff000u + 1 + 8000);   /* wrapped */
	CHECK(a.ack < 0x2000);
	tcp_release(&conn);
	peer_teardown();
}

TEST(tcp_send_across_sequence_wrap_and_retransmit)
{
	struct tcp_config cfg;
	struct peer_seg s, r;
	char req[300];
	uint64_t t0;
	unsigned rto;

	tcp_config_default(&cfg);
	cfg.fixed_iss_set = true;
	cfg.fixed_iss = 0xffffffffu - 100;
	establish(&cfg, 1, false);
	rto = conn.rto_ms;   /* from the handshake's RTT sample */
	CHECK_EQ(rto, conn.cfg.rto_min_ms);
	memset(req, 'G', sizeof(req));
	CHECK_EQ(tcp_send(&conn, req, sizeof(req)), (long)sizeof(req));
	CHECK(peer_pop(&s));
	CHECK_EQ(s.seq, 0xffffffffu - 99);
	CHECK_EQ(s.len, sizeof(req));
	/* No ACK: retransmitted after the RTO, then after twice that. */
	t0 = test_now_ms;
	while (!peer_queued())
		tcp_step(&conn, ++test_now_ms);
	CHECK(peer_pop(&r));
	CHECK_EQ(r.seq, s.seq);
	CHECK_EQ(r.len, s.len);
	CHECK_EQ(test_now_ms - t0, rto);
	t0 = test_now_ms;
	while (!peer_queued())
		tcp_step(&conn, ++test_now_ms);
	CHECK(peer_pop(&r));
	CHECK_EQ(test_now_ms - t0, 2 * rto);
	CHECK_EQ(conn.stats.retransmits, 2);
	/* Three duplicate ACKs (after one that updates the window): fast retransmit at once. */
	for (int i = 0; i < 4; i++)
		peer_send_raw(SPORT, syn.sport, irs + 1, s.seq, TCP_ACK, 4096, NULL, 0, NULL, 0,
			      false);
	CHECK(peer_pop(&r));
	CHECK_EQ(r.seq, s.seq);
	CHECK_EQ(conn.stats.fast_retransmits, 1);
	/* The ACK across the wrap empties the send buffer and stops the timer. */
	peer_send_raw(SPORT, syn.sport, irs + 1, s.seq + sizeof(req), TCP_ACK, 4096, NULL, 0, NULL,
		      0, false);
	CHECK_EQ(conn.snd_len, 0);
	CHECK_EQ(conn.snd_una, (uint32_t)(0xffffffffu - 99 + sizeof(req)));
	CHECK_EQ(conn.rto_at_ms, 0);
	tcp_release(&conn);
	peer_teardown();
}

/* Server data at offset off with a timestamps option (NOP NOP TS tsval tsecr) and ack. */
static void data_ts(uint32_t off, size_t len, uint32_t ack, uint32_t tsval)
{
	static uint8_t buf[4096];
	uint8_t o[12] = { 1, 1, 8, 10 };

	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)((off + i) * 7 + 3);
	put_be32(o + 4, tsval);
	put_be32(o + 8, syn.tsval);
	peer_send_raw(SPORT, syn.sport, irs + 1 + off, ack, TCP_ACK, 4096, buf, len, o, sizeof(o),
		      false);
}

/* At IPoIB's 4092-byte MTU segments carry 4052 bytes: the out-of-order store keeps them (it
 * is sized by the MSS), and the segment that fills the hole releases all of them at once. */
TEST(tcp_ooo_store_keeps_mss_sized_segments)
{
	uint8_t o[40];
	struct peer_seg a;
	const uint32_t seg = 4052;
	size_t n;

	peer_setup();
	peer_nd.mtu = 4092;
	test_now_ms = 1000000;
	rxlen = 0;
	rx_result = 0;
	tcp_release(&conn);
	memset(&conn, 0, sizeof(conn));
	CHECK_EQ(tcp_connect(&conn, &peer_nd, PEER_IP, SPORT, NULL, rx, NULL), 0);
	CHECK(peer_pop(&syn));
	CHECK_EQ(syn.mss, 4052);
	irs = 7000;
	n = peer_syn_opts(o, 4052, 7, false, 0, 0);
	peer_send_raw(SPORT, syn.sport, irs, syn.seq + 1, TCP_SYN | TCP_ACK, 65535, NULL, 0, o,
		      (n + 3) & ~(size_t)3, false);
	CHECK_EQ(conn.state, TCP_ESTABLISHED);
	peer_flush();
	data(0, seg, 0);
	data(2 * seg, seg, 0);
	data(3 * seg, seg, 0);
	data(5 * seg, seg, 0);
	CHECK_EQ(conn.stats.ooo_stored, 3);
	CHECK_EQ(conn.stats.ooo_dropped, 0);
	peer_flush();
	data(seg, seg, 0);                /* the first hole: 1..3 delivered, 5 stays stored */
	CHECK(peer_pop(&a));
	CHECK_EQ(a.ack, irs + 1 + 4 * seg);
	data(4 * seg, seg, 0);
	while (peer_pop(&a))
		;
	CHECK_EQ(a.ack, irs + 1 + 6 * seg);
	CHECK(stream_ok(6 * seg));
	tcp_release(&conn);
	peer_teardown();
}

/* The store's memory is bounded whatever the MTU: every slot holds a full segment of the MSS we
 * announce, and all of them together at most one receive window plus one slot. */
TEST(tcp_ooo_store_sized_by_mss_and_bounded)
{
	static const unsigned mtus[] = { 576, 1500, 2044, 4092, 9000, 65520 };

	for (unsigned i = 0; i < ARRAY_SIZE(mtus); i++) {
		peer_setup();
		peer_nd.mtu = mtus[i];
		tcp_release(&conn);
		memset(&conn, 0, sizeof(conn));
		CHECK_EQ(tcp_connect(&conn, &peer_nd, PEER_IP, SPORT, NULL, rx, NULL), 0);
		CHECK(conn.ooo_slot_size >= conn.rcv_mss);
		CHECK(conn.ooo_slots >= 1 && conn.ooo_slots <= TCP_OOO_SLOTS);
		CHECK((uint64_t)conn.ooo_slots * conn.ooo_slot_size <= TCP_OOO_BYTES_MAX);
		CHECK(conn.ooo_slots == TCP_OOO_SLOTS ||
		      (uint64_t)conn.ooo_slots * conn.ooo_slot_size >= TCP_RCV_WND);
		tcp_release(&conn);
		peer_teardown();
	}
}

/* RFC 5961 §5.2: an ACK below SND.UNA - MAX.SND.WND (or above what was sent) makes the whole
 * segment unacceptable — its data is not delivered — and is answered with an ACK. */
TEST(tcp_ack_outside_rfc5961_bounds_drops_the_segment)
{
	struct peer_seg a;

	establish(NULL, 90000, false);
	data(0, 1000, 0);
	CHECK(stream_ok(1000));
	peer_flush();
	/* The peer's window is 4096 << 7 = 512 KiB: an ACK 600000 below SND.UNA is too old. */
	peer_send_raw(SPORT, syn.sport, irs + 1 + 1000, syn.seq + 1 - 600000u, TCP_ACK, 4096,
		      "forged", 6, NULL, 0, false);
	CHECK(stream_ok(1000));           /* nothing delivered */
	CHECK(peer_pop(&a));              /* answered: the ACK says where the stream really is */
	CHECK_EQ(a.ack, irs + 1 + 1000);
	/* ... and one beyond anything we sent is refused the same way. */
	peer_send_raw(SPORT, syn.sport, irs + 1 + 1000, syn.seq + 1 + 5000, TCP_ACK, 4096,
		      "forged", 6, NULL, 0, false);
	CHECK(stream_ok(1000));
	/* Within the bounds (an old but plausible duplicate ACK) the data is taken. */
	peer_flush();
	peer_send_raw(SPORT, syn.sport, irs + 1 + 1000, syn.seq + 1 - 1000u, TCP_ACK, 4096,
		      (const uint8_t[]){ (uint8_t)(1000 * 7 + 3) }, 1, NULL, 0, false);
	CHECK(stream_ok(1001));
	tcp_release(&conn);
	peer_teardown();
}

/* RFC 7323 §5.3: with timestamps, a segment whose TSval is older than TS.Recent is dropped (an
 * old duplicate from a previous trip around the sequence space) and answered with an ACK. */
TEST(tcp_paws_drops_segments_with_old_timestamps)
{
	struct peer_seg a;

	establish(NULL, 120000, true);
	CHECK(conn.ts_ok);
	CHECK_EQ(conn.ts_recent, 5000);
	data_ts(0, 1000, syn.seq + 1, 6000);
	CHECK(stream_ok(1000));
	CHECK_EQ(conn.ts_recent, 6000);
	peer_flush();
	data_ts(1000, 1000, syn.seq + 1, 5999);   /* in-window, in order, but older */
	CHECK(stream_ok(1000));
	CHECK(peer_pop(&a));
	CHECK_EQ(a.ack, irs + 1 + 1000);
	CHECK(a.has_ts);
	CHECK_EQ(a.tsecr, 6000);
	data_ts(1000, 1000, syn.seq + 1, 6000);   /* equal is not older */
	CHECK(stream_ok(2000));
	/* TSval wraps like sequence numbers: 0x80000000 past TS.Recent is still newer. */
	data_ts(2000, 1000, syn.seq + 1, 6000 + 0x7fffffffu);
	CHECK(stream_ok(3000));
	tcp_release(&conn);
	peer_teardown();
}

TEST(tcp_data_retries_bounded)
{
	struct tcp_config cfg;
	struct peer_seg s;

	tcp_config_default(&cfg);
	cfg.data_retries = 3;
	establish(&cfg, 1, false);
	tcp_send(&conn, "x", 1);
	for (int i = 0; i < 200000 && tcp_step(&conn, test_now_ms); i++)
		test_now_ms += 5;
	CHECK_EQ(conn.state, TCP_CLOSED);
	CHECK_EQ(conn.error, -ETIMEDOUT);
	CHECK(strstr(conn.error_msg, "no ACK after 3 retransmissions") != NULL);
	unsigned sent = 0;
	while (peer_pop(&s))
		sent += s.len == 1;
	CHECK_EQ(sent, 4);
	tcp_release(&conn);
	peer_teardown();
}

TEST(tcp_zero_window_probes_while_answered)
{
	struct tcp_config cfg;
	struct peer_seg s;
	uint8_t o[40];
	unsigned probes = 0;
	size_t n;

	tcp_config_default(&cfg);
	cfg.data_retries = 2;
	start(&cfg);
	n = peer_syn_opts(o, 2004, -1, false, 0, 0);
	peer_send_raw(SPORT, syn.sport, 9, syn.seq + 1, TCP_SYN | TCP_ACK, 0, NULL, 0, o, n, false);
	peer_flush();
	tcp_send(&conn, "hello", 5);
	CHECK_EQ(peer_queued(), 0);          /* nothing goes into a zero window */
	/* Ten probes, each answered with the window still shut: the connection stays. */
	for (int i = 0; i < 400000 && probes < 10; i++) {
		tcp_step(&conn, ++test_now_ms);
		while (peer_pop(&s)) {
			CHECK_EQ(s.len, 1);
			CHECK_EQ(s.seq, syn.seq + 1);
			probes++;
			peer_send_raw(SPORT, syn.sport, 10, syn.seq + 1, TCP_ACK, 0, NULL, 0, NULL, 0,
				      false);
		}
	}
	CHECK_EQ(probes, 10);
	CHECK_EQ(conn.state, TCP_ESTABLISHED);
	CHECK(conn.stats.zero_window_probes >= 10);
	/* The window opens: the data goes out. */
	peer_send_raw(SPORT, syn.sport, 10, syn.seq + 1, TCP_ACK, 1000, NULL, 0, NULL, 0, false);
	CHECK(peer_pop(&s));
	CHECK_EQ(s.len, 5);
	CHECK_MEM(s.data, "hello", 5);
	tcp_release(&conn);
	peer_teardown();
}

TEST(tcp_rst_storm_only_exact_rst_resets)
{
	struct peer_seg a;
	unsigned acks = 0;

	establish(NULL, 3000, false);
	data(0, 500, 0);
	peer_flush();
	srand(7);
	for (int i = 0; i < 2000; i++) {
		uint32_t seq = (uint32_t)rand() * 2654435761u;

		if (seq == irs + 1 + 500)
			seq++;
		peer_send_raw(SPORT, syn.sport, seq, 0, TCP_RST, 0, NULL, 0, NULL, 0, false);
		/* In-window but not exact: RFC 5961 challenge ACK, rate-limited. */
		peer_send_raw(SPORT, syn.sport, irs + 1 + 500 + 1 + (uint32_t)(rand() % 1000), 0,
			      TCP_RST, 0, NULL, 0, NULL, 0, false);
		/* A SYN in a synchronized state: challenge ACK too, never a reset. */
		peer_send_raw(SPORT, syn.sport, seq, 0, TCP_SYN, 0, NULL, 0, NULL, 0, false);
	}
	while (peer_pop(&a)) {
		CHECK_EQ(a.flags, TCP_ACK);
		acks++;
	}
	CHECK_EQ(conn.state, TCP_ESTABLISHED);
	CHECK(acks >= 1 && acks <= 10);      /* 10 per second at most, the clock did not move */
	CHECK(stream_ok(500));
	/* Bad checksums are dropped before anything else. */
	peer_send_raw(SPORT, syn.sport, irs + 1 + 500, 0, TCP_RST, 0, NULL, 0, NULL, 0, true);
	CHECK_EQ(conn.state, TCP_ESTABLISHED);
	peer_send_raw(SPORT, syn.sport, irs + 1 + 500, 0, TCP_RST, 0, NULL, 0, NULL, 0, false);
	CHECK_EQ(conn.state, TCP_CLOSED);
	CHECK_EQ(conn.error, -ECANCELED);
	CHECK(strstr(conn.error_msg, "reset by server") != NULL);
	tcp_release(&conn);
	peer_teardown();
}

TEST(tcp_passive_side_close)
{
	struct peer_seg a;

	establish(NULL, 100, false);
	data(0, 300, TCP_FIN | TCP_PSH);
	CHECK(stream_ok(300));
	CHECK_EQ(conn.state, TCP_CLOSE_WAIT);
	CHECK(tcp_peer_closed(&conn));
	CHECK(peer_pop(&a));
	CHECK_EQ(a.ack, irs + 1 + 301);      /* the FIN counts */
	tcp_close(&conn);
	CHECK(peer_pop(&a));
	CHECK_EQ(a.flags, TCP_ACK | TCP_FIN);
	CHECK_EQ(conn.state, TCP_LAST_ACK);
	peer_send_raw(SPORT, syn.sport, irs + 1 + 301, a.seq + 1, TCP_ACK, 4096, NULL, 0, NULL, 0,
		      false);
	CHECK_EQ(conn.state, TCP_CLOSED);
	CHECK_EQ(conn.error, 0);
	tcp_release(&conn);
	peer_teardown();
}

TEST(tcp_active_close_and_short_time_wait)
{
	struct peer_seg a;

	establish(NULL, 100, false);
	tcp_close(&conn);
	CHECK(peer_pop(&a));
	CHECK_EQ(a.flags, TCP_ACK | TCP_FIN);
	CHECK_EQ(conn.state, TCP_FIN_WAIT_1);
	peer_send_raw(SPORT, syn.sport, irs + 1, a.seq + 1, TCP_ACK, 4096, NULL, 0, NULL, 0, false);
	CHECK_EQ(conn.state, TCP_FIN_WAIT_2);
	data(0, 10, TCP_FIN);
	CHECK_EQ(conn.state, TCP_TIME_WAIT);
	CHECK(peer_pop(&a));
	CHECK_EQ(a.ack, irs + 1 + 11);
	/* A retransmitted FIN in TIME-WAIT is acknowledged again. */
	data(0, 10, TCP_FIN);
	CHECK(peer_pop(&a));
	CHECK_EQ(a.ack, irs + 1 + 11);
	CHECK(tcp_step(&conn, test_now_ms + conn.cfg.time_wait_ms - 1));
	CHECK(!tcp_step(&conn, test_now_ms + conn.cfg.time_wait_ms));
	CHECK_EQ(conn.state, TCP_CLOSED);
	CHECK_EQ(conn.error, 0);
	tcp_release(&conn);
	peer_teardown();
}

TEST(tcp_abort_sends_rst_and_receiver_error_aborts)
{
	struct peer_seg a;

	establish(NULL, 100, false);
	rx_result = -ENOSPC;
	data(0, 100, 0);
	CHECK(peer_pop(&a));
	CHECK(a.flags & TCP_RST);
	CHECK_EQ(conn.state, TCP_CLOSED);
	CHECK_EQ(conn.error, -ENOSPC);
	/* Segments for a closed connection get a RST. */
	tcp_release(&conn);
	data(100, 100, 0);
	CHECK(peer_pop(&a));
	CHECK_EQ(a.flags, TCP_RST);
	CHECK_EQ(a.seq, syn.seq + 1);
	peer_teardown();
}

TEST(tcp_parse_rejects_malformed)
{
	uint8_t seg[64] = { 0 };
	struct tcp_segment s;
	const char *why = NULL;

	CHECK_EQ(tcp_parse(seg, 19, PEER_IP, CLIENT_IP, &s, &why), -EINVAL);
	CHECK(strstr(why, "shorter") != NULL);
	seg[12] = 0x40;   /* 16-byte header: too short */
	CHECK_EQ(tcp_parse(seg, 20, PEER_IP, CLIENT_IP, &s, &why), -EINVAL);
	CHECK(strstr(why, "data offset") != NULL);
	seg[12] = 0xf0;   /* 60 bytes in a 40-byte segment */
	CHECK_EQ(tcp_parse(seg, 40, PEER_IP, CLIENT_IP, &s, &why), -EINVAL);
	seg[12] = 0x60;   /* 24-byte header whose option runs out */
	seg[20] = 2;
	seg[21] = 8;
	seg[16] = seg[17] = 0;
	{
		uint16_t c = tcp_checksum(PEER_IP, CLIENT_IP, seg, 24);

		seg[16] = (uint8_t)(c >> 8);
		seg[17] = (uint8_t)c;
	}
	CHECK_EQ(tcp_parse(seg, 24, PEER_IP, CLIENT_IP, &s, &why), -EINVAL);
	CHECK(strstr(why, "option length") != NULL);
	seg[21] = 4;      /* now a well-formed MSS, but the checksum is stale */
	CHECK_EQ(tcp_parse(seg, 24, PEER_IP, CLIENT_IP, &s, &why), -EINVAL);
	CHECK(strstr(why, "checksum") != NULL);
}

TEST(tcp_no_route_fails_at_once)
{
	peer_setup();
	tcp_release(&conn);
	memset(&conn, 0, sizeof(conn));
	CHECK_EQ(tcp_connect(&conn, &peer_nd, 0x0a000001u, 80, NULL, rx, NULL), -ENOENT);
	CHECK_STR(conn.error_msg, "cannot send to 10.0.0.1: no route");
	CHECK(!conn.listed && conn.ooo_buf == NULL);
	CHECK_EQ(peer_queued(), 0);
	/* And without an address at all. */
	peer_nd.ip_addr = 0;
	CHECK_EQ(tcp_connect(&conn, &peer_nd, PEER_IP, 80, NULL, rx, NULL), -EINVAL);
	CHECK_STR(conn.error_msg, "ib0 has no IPv4 address (run dhcp first)");
	peer_teardown();
}

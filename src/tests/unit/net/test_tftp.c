/* SPDX-License-Identifier: MIT */
/* The TFTP client against a scripted server: negotiation, loss, reordering, errors, limits. */
#include "apps_test.h"

#include <ibboot/errno.h>
#include <ibboot/sha256.h>
#include <ibboot/tftp.h>
#include <ibboot/timer.h>
#include <stdlib.h>

#define CLIENT_IP IP(198, 18, 0, 60)
#define SRV_TID   50000

struct tftp_srv {
	/* the file */
	const uint8_t *data;
	size_t size;
	/* behaviour */
	bool no_options;            /* ignore every option: DATA 1 at 512 */
	unsigned grant_windowsize;  /* 0: leave windowsize out of the OACK */
	unsigned grant_blksize;     /* 0: what was asked */
	bool grant_tsize;
	const char *extra_option;   /* an option we never asked for ("timeout") */
	uint16_t error_code;        /* answer the RRQ with ERROR */
	const char *error_msg;
	unsigned drop_every;        /* drop the first send of every n-th block (0: none) */
	bool swap_pairs;            /* first send of a window: blocks 1 and 2 swapped */
	bool duplicate;             /* every DATA sent twice */
	bool stranger;              /* a packet from another port in the middle */
	bool silent;
	unsigned rto_ms;            /* the server's retransmission timer (0: 1500 ms) */
	unsigned lose_ack_every;    /* the first ACK of every n-th block is lost on the way */
	uint32_t stall_after;       /* after this block is acked: only stale copies of it */
	bool rewind;                /* RFC 7440 §4 sender (atftpd): an ACK of the last acked
				     * block again restarts the window after it */
	unsigned timer_resends;     /* windows the server's own timer had to resend */
	/* what was seen */
	unsigned rrqs, acks, errors_seen, data_sent;
	uint16_t client_port, last_error_code, stranger_error_code;
	char rrq_mode[16], asked_blksize[8], asked_tsize[8], asked_windowsize[8];
	/* transfer */
	unsigned blksize, window;
	uint32_t acked;             /* highest block acked (32-bit count) */
	uint32_t nblocks;
	bool started, oack_pending;
	uint64_t last_send_ms;
	uint8_t *sent_once;         /* per block: sent at least once */
};

static void srv_send(struct tftp_srv *s, uint16_t sport, const uint8_t *p, size_t len)
{
	fake_net_inject_udp(SRV, sport, CLIENT_IP, s->client_port, p, len, false);
}

static void srv_send_block(struct tftp_srv *s, uint32_t b)
{
	static uint8_t pkt[4 + 65536];
	size_t off = (size_t)(b - 1) * s->blksize;
	size_t n = off >= s->size ? 0 : s->size - off < s->blksize ? s->size - off : s->blksize;

	pkt[0] = 0;
	pkt[1] = TFTP_DATA;
	put_be16(pkt + 2, (uint16_t)b);
	memcpy(pkt + 4, s->data + off, n);
	s->data_sent++;
	srv_send(s, SRV_TID, pkt, 4 + n);
	if (s->duplicate)
		srv_send(s, SRV_TID, pkt, 4 + n);
}

static void srv_send_window(struct tftp_srv *s)
{
	uint32_t first = s->acked + 1, last = s->acked + s->window;
	bool swap = false;

	if (last > s->nblocks)
		last = s->nblocks;
	s->last_send_ms = test_now_ms;
	for (uint32_t b = first; b <= last; b++) {
		bool first_time = !s->sent_once[b];

		s->sent_once[b] = 1;
		if (first_time && s->drop_every && b % s->drop_every == 0)
			continue;
		if (first_time && s->swap_pairs && b == first && b + 1 <= last && !s->sent_once[b + 1]) {
			swap = true;
			s->sent_once[b + 1] = 1;
			srv_send_block(s, b + 1);
			srv_send_block(s, b);
			b++;
			continue;
		}
		srv_send_block(s, b);
	}
	(void)swap;
}

/* Reads "name\0value\0" pairs after the mode. */
static void srv_read_rrq(struct tftp_srv *s, const uint8_t *p, size_t len)
{
	size_t i = 2;
	const char *file = (const char *)p + i;

	i += strnlen(file, len - i) + 1;
	if (i < len)
		snprintf(s->rrq_mode, sizeof(s->rrq_mode), "%s", (const char *)p + i);
	i += strnlen((const char *)p + i, len - i) + 1;
	while (i < len) {
		const char *name = (const char *)p + i, *value;

		i += strnlen(name, len - i) + 1;
		if (i >= len)
			break;
		value = (const char *)p + i;
		i += strnlen(value, len - i) + 1;
		if (!strcmp(name, "blksize"))
			snprintf(s->asked_blksize, sizeof(s->asked_blksize), "%s", value);
		else if (!strcmp(name, "tsize"))
			snprintf(s->asked_tsize, sizeof(s->asked_tsize), "%s", value);
		else if (!strcmp(name, "windowsize"))
			snprintf(s->asked_windowsize, sizeof(s->asked_windowsize), "%s", value);
	}
}

static size_t put_pair(uint8_t *p, const char *name, unsigned long long v)
{
	return (size_t)sprintf((char *)p, "%s", name) + 1 +
	       (size_t)sprintf((char *)p + strlen(name) + 1, "%llu", v) + 1;
}

static void srv_start(struct tftp_srv *s)
{
	uint8_t pkt[256];
	size_t n = 2;

	s->nblocks = (uint32_t)(s->size / s->blksize + 1);
	s->sent_once = calloc(s->nblocks + 2, 1);
	s->started = true;
	s->acked = 0;
	if (s->no_options) {
		srv_send_window(s);
		return;
	}
	pkt[0] = 0;
	pkt[1] = TFTP_OACK;
	n += put_pair(pkt + n, "blksize", s->blksize);
	if (s->grant_tsize)
		n += put_pair(pkt + n, "tsize", s->size);
	if (s->grant_windowsize)
		n += put_pair(pkt + n, "windowsize", s->window);
	if (s->extra_option)
		n += put_pair(pkt + n, s->extra_option, 5);
	s->oack_pending = true;
	s->last_send_ms = test_now_ms;
	srv_send(s, SRV_TID, pkt, n);
}

static void tftp_server(const struct fake_pkt *p, void *ctx)
{
	struct tftp_srv *s = ctx;
	uint16_t op;

	if (p->len < 2)
		return;
	op = get_be16(p->payload);
	if (p->dport == TFTP_PORT && op == TFTP_RRQ) {
		s->rrqs++;
		s->client_port = p->sport;
		srv_read_rrq(s, p->payload, p->len);
		if (s->silent || s->started)
			return;
		if (s->error_code) {
			uint8_t pkt[128];
			size_t n = (size_t)sprintf((char *)pkt + 4, "%s", s->error_msg) + 5;

			pkt[0] = 0;
			pkt[1] = TFTP_ERROR;
			put_be16(pkt + 2, s->error_code);
			srv_send(s, SRV_TID, pkt, n);
			return;
		}
		s->blksize = s->no_options ? 512 : s->grant_blksize ? s->grant_blksize
					       : (unsigned)atoi(s->asked_blksize);
		s->window = s->no_options || !s->grant_windowsize ? 1 : s->grant_windowsize;
		srv_start(s);
		return;
	}
	if (op == TFTP_ERROR) {
		if (p->dport == s->client_port || p->sport == s->client_port) {
			if (p->dport == SRV_TID)
				s->last_error_code = get_be16(p->payload + 2);
			else
				s->stranger_error_code = get_be16(p->payload + 2);
		}
		s->errors_seen++;
		return;
	}
	if (p->dport != SRV_TID || op != TFTP_ACK || p->len < 4)
		return;
	s->acks++;
	{
		uint16_t b = get_be16(p->payload + 2);
		uint32_t full = (s->acked & ~0xffffu) | b;
		static uint32_t lost_ack_of;

		if (s->lose_ack_every && b && b % s->lose_ack_every == 0 && lost_ack_of != b) {
			lost_ack_of = b;   /* this ACK never arrived */
			return;
		}
		if (s->stall_after && s->acked >= s->stall_after)
			return;

		if (full < s->acked && s->acked - full > 0x8000)
			full += 0x10000;   /* the 16-bit block number wrapped */
		if (s->oack_pending && b == 0) {
			s->oack_pending = false;
			srv_send_window(s);
			return;
		}
		/* RFC 1123 §4.2.3.1: a duplicate ACK is not a reason to resend (Sorcerer's
		 * Apprentice); only progress moves the window. */
		if (s->rewind && full == s->acked && s->acked < s->nblocks) {
			srv_send_window(s);
			return;
		}
		if (full <= s->acked || full > s->nblocks)
			return;
		s->acked = full;
		if (s->acked == s->nblocks)
			return;   /* complete */
		if (s->stranger && s->acked == 3) {
			static const uint8_t junk[] = { 0, TFTP_DATA, 0, 4, 'x' };

			fake_net_inject_udp(SRV, SRV_TID + 7, CLIENT_IP, s->client_port, junk,
					    sizeof(junk), false);
		}
		/* lock-step: each ACK releases the next window */
		srv_send_window(s);
	}
}

/* The server's own retransmission timer (the client's ACK may have been lost or ignored). */
static void tftp_server_tick(void *ctx)
{
	struct tftp_srv *s = ctx;

	if (!s->started || s->acked >= s->nblocks ||
	    test_now_ms - s->last_send_ms < (s->rto_ms ? s->rto_ms : 1500))
		return;
	if (s->oack_pending) {
		s->last_send_ms = test_now_ms;
		return;
	}
	if (s->stall_after && s->acked >= s->stall_after) {
		/* stuck: the last acknowledged block again and again, never the next */
		s->last_send_ms = test_now_ms;
		srv_send_block(s, s->acked);
		return;
	}
	s->timer_resends++;
	srv_send_window(s);
}

static uint8_t sink_buf[1 << 20];
static uint64_t prog_last, prog_total;
static unsigned prog_calls;
static bool prog_monotonic;

static void progress(void *ctx, uint64_t bytes, uint64_t total)
{
	(void)ctx;
	if (bytes < prog_last)
		prog_monotonic = false;
	prog_last = bytes;
	prog_total = total;
	prog_calls++;
}

static uint8_t *make_file(size_t size, uint64_t seed)
{
	uint8_t *f = malloc(size ? size : 1);

	test_srand(seed);
	for (size_t i = 0; i < size; i++)
		f[i] = (uint8_t)test_rand();
	return f;
}

static long run_tftp(struct tftp_srv *s, const struct tftp_opts *opts, size_t sink_size)
{
	struct tftp_sink sink = { sink_buf, sink_size, 0, progress, NULL };
	long n;

	fake_net_setup(tftp_server, s);
	fake_tick = tftp_server_tick;
	fake_nd.ip_addr = CLIENT_IP;
	fake_nd.netmask = 0xffffff00;
	test_console_clear();
	prog_last = prog_total = 0;
	prog_calls = 0;
	prog_monotonic = true;
	memset(sink_buf, 0, sizeof(sink_buf));
	n = tftp_fetch(&fake_nd, SRV, "boot.bin", opts, &sink);
	net_poll();   /* the fake transmits on poll: deliver the final ACK or ERROR */
	fake_net_teardown();
	free(s->sent_once);
	s->sent_once = NULL;
	return n;
}

/* The polled API directly, so the client's counters can be checked. */
static struct tftp_client polled;

static int run_polled(struct tftp_srv *s, const struct tftp_opts *opts)
{
	struct tftp_sink sink = { sink_buf, sizeof(sink_buf), 0, NULL, NULL };
	int rc;

	fake_net_setup(tftp_server, s);
	fake_tick = tftp_server_tick;
	fake_nd.ip_addr = CLIENT_IP;
	rc = tftp_start(&polled, &fake_nd, SRV, "boot.bin", opts, &sink);
	while (rc == 0 && tftp_step(&polled, clock_ms()))
		net_poll();
	net_poll();
	fake_net_teardown();
	free(s->sent_once);
	s->sent_once = NULL;
	return rc < 0 ? rc : polled.state == TFTP_DONE ? (int)sink.len : polled.result;
}

/* A fresh server serving size bytes; the client asks for boot.bin. */
static void serve_file(struct tftp_srv *s, const uint8_t *f, size_t size)
{
	memset(s, 0, sizeof(*s));
	s->data = f;
	s->size = size;
}

/* A fresh server serving a new pseudo-random file (free it after). */
static uint8_t *serve_new_file(struct tftp_srv *s, size_t size, uint64_t seed)
{
	uint8_t *f = make_file(size, seed);

	serve_file(s, f, size);
	return f;
}

/* run_tftp fetches all size bytes of f, intact. */
static void expect_whole_file(struct tftp_srv *s, const struct tftp_opts *opts, const uint8_t *f,
			      size_t size)
{
	CHECK_EQ(run_tftp(s, opts, sizeof(sink_buf)), (long)size);
	CHECK_MEM(sink_buf, f, size);
}

TEST(tftp_negotiates_blksize_tsize_windowsize)
{
	struct tftp_srv s = { 0 };
	struct tftp_opts o = { 0 };
	uint8_t *f = serve_new_file(&s, 100000, 1);

	s.grant_tsize = true;
	s.grant_windowsize = 4;
	o.windowsize = 8;
	expect_whole_file(&s, &o, f, 100000);
	CHECK_STR(s.rrq_mode, "octet");
	CHECK_STR(s.asked_blksize, "2012");   /* MTU 2044 - 20 - 8 - 4 (RFC 2348) */
	CHECK_STR(s.asked_tsize, "0");
	CHECK_STR(s.asked_windowsize, "8");
	CHECK_EQ(s.blksize, 2012);
	CHECK(prog_monotonic);
	CHECK_EQ(prog_total, 100000);
	CHECK_EQ(prog_calls, 50);             /* 49 full blocks + the short last one */
	/* one ACK for the OACK, then one per window of 4 (the last block is ACKed alone) */
	CHECK_EQ(s.acks, 1 + 13);
	CHECK(test_console_has("blksize 2012, windowsize 4 (server declined more), size 100000"));
	free(f);
}

TEST(tftp_windowsize_declined_falls_back_to_lockstep)
{
	struct tftp_srv s = { 0 };
	struct tftp_opts o = { 0 };
	/* exactly 10 blocks: an empty block 11 ends the file (RFC 1350) */
	uint8_t *f = serve_new_file(&s, 20120, 2);

	o.windowsize = 8;
	expect_whole_file(&s, &o, f, 20120);
	CHECK_EQ(s.acks, 1 + 11);
	CHECK_EQ(prog_total, 0);   /* tsize not granted */
	free(f);
}

TEST(tftp_server_without_options)
{
	struct tftp_srv s = { 0 };
	uint8_t *f = serve_new_file(&s, 1500, 3);

	s.no_options = true;
	expect_whole_file(&s, NULL, f, 1500);
	CHECK_EQ(s.acks, 3);   /* 512 + 512 + 476 */
	free(f);
}

/* Windows of 4 with every 7th block dropped, pairs swapped and blocks sent twice. */
static void serve_lossy_windows(struct tftp_srv *s, const uint8_t *f, size_t size)
{
	serve_file(s, f, size);
	s->grant_windowsize = 4;
	s->drop_every = 7;
	s->swap_pairs = true;
	s->duplicate = true;
}

TEST(tftp_survives_loss_reordering_and_duplicates)
{
	struct tftp_srv s = { 0 };
	struct tftp_opts o = { 0 };
	uint8_t *f = make_file(300000, 4);

	serve_lossy_windows(&s, f, 300000);
	s.grant_tsize = true;
	o.windowsize = 4;
	expect_whole_file(&s, &o, f, 300000);
	CHECK(prog_monotonic);
	CHECK(s.data_sent > 149 + 149 / 7);   /* every dropped block was sent again */
	/* the same through the polled API: the client saw and discarded both kinds */
	serve_lossy_windows(&s, f, 300000);
	memset(sink_buf, 0, sizeof(sink_buf));
	CHECK_EQ(run_polled(&s, &o), 300000);
	CHECK_MEM(sink_buf, f, 300000);
	CHECK(polled.dup_blocks > 0);
	CHECK(polled.ooo_blocks > 0);
	CHECK(polled.retransmits > 0 || s.data_sent > 149);
	free(f);
}

/* RFC 7440 §4: a block past a hole is answered at once with the last in-order block's ACK, also
 * when the hole is the first block of a window (our previous ACK closed the last one), so a
 * sender that restarts on it (atftpd) needs neither its timer nor ours. */
TEST(tftp_window_hole_acked_at_once)
{
	struct tftp_srv s = { 0 };
	struct tftp_opts o = { 0 };
	uint8_t *f = serve_new_file(&s, 196000, 11);   /* 98 blocks: the last one is not dropped */

	s.grant_windowsize = 4;
	s.grant_tsize = true;
	s.rewind = true;
	s.drop_every = 5;   /* 5, 10, 15, ...: first of a window, then inside one */
	o.windowsize = 4;
	memset(sink_buf, 0, sizeof(sink_buf));
	CHECK_EQ(run_polled(&s, &o), 196000);
	CHECK_MEM(sink_buf, f, 196000);
	CHECK(polled.ooo_blocks > 0);
	CHECK_EQ(polled.retransmits, 0);   /* no ACK had to wait for our timer */
	CHECK_EQ(s.timer_resends, 0);      /* nor for the server's */
	free(f);
}

/* A DATA copied on the way right after our ACK is not ACKed again: with windowsize that ACK
 * would restart the window and every window would be sent twice. */
TEST(tftp_window_duplicate_not_reacked)
{
	struct tftp_srv s = { 0 };
	struct tftp_opts o = { 0 };
	uint8_t *f = serve_new_file(&s, 200000, 12);

	s.grant_windowsize = 4;
	s.rewind = true;
	s.duplicate = true;
	o.windowsize = 4;
	memset(sink_buf, 0, sizeof(sink_buf));
	CHECK_EQ(run_polled(&s, &o), 200000);
	CHECK_MEM(sink_buf, f, 200000);
	CHECK(polled.dup_blocks > 0);
	CHECK_EQ(s.data_sent, (200000 + 2011) / 2012);   /* each block sent once (twice on the wire) */
	free(f);
}

TEST(tftp_lockstep_with_loss_uses_client_timeouts)
{
	struct tftp_srv s = { 0 };
	uint8_t *f = serve_new_file(&s, 50000, 5);

	s.drop_every = 3;
	s.duplicate = true;
	expect_whole_file(&s, NULL, f, 50000);
	free(f);
}

/* A lost ACK is resent on the client's short timer, before the server's own retransmission
 * timer (here 800 ms, as quick as stock servers get) would have to recover it. */
TEST(tftp_lost_acks_recovered_by_the_client_before_the_server_times_out)
{
	struct tftp_srv s = { 0 };
	uint8_t *f = serve_new_file(&s, 100000, 12);

	s.rto_ms = 800;
	s.lose_ack_every = 4;
	s.grant_tsize = true;
	memset(sink_buf, 0, sizeof(sink_buf));
	CHECK_EQ(run_polled(&s, NULL), 100000);
	CHECK_MEM(sink_buf, f, 100000);
	CHECK(polled.retransmits >= 100000 / 2012 / 4);   /* one resend per lost ACK at least */
	CHECK_EQ(s.timer_resends, 0);                       /* the server never had to */
	free(f);
}

/* A server that only repeats an old block: the transfer ends within the no-progress bound with
 * the file and the last good block named, and the server is told. */
TEST(tftp_no_progress_fails_naming_file_and_block)
{
	struct tftp_srv s = { 0 };
	struct tftp_opts o = { 0 };
	uint8_t *f = serve_new_file(&s, 100000, 13);
	uint64_t t0;

	s.stall_after = 5;
	s.rto_ms = 500;
	s.grant_tsize = true;
	o.stall_ms = 20000;
	t0 = test_now_ms;
	test_console_clear();
	CHECK_EQ(run_polled(&s, &o), -ETIMEDOUT);
	CHECK(test_now_ms - t0 >= 20000 && test_now_ms - t0 < 25000);
	CHECK(test_console_has("boot.bin from 198.18.0.1: no new data for 20000 ms after block 6 "
			       "(12072 of 100000 bytes"));
	CHECK(polled.dup_blocks > 10);   /* the stale copies kept coming all along */
	/* and it was not silent meanwhile: a status line every 10 s */
	CHECK(test_console_has("tftp: boot.bin: 12072 of 100000 bytes after 10 s, "));
	CHECK(s.errors_seen >= 1);       /* ERROR to the server: it stops too */
	/* with the default bound (the block after the last ACK the server took is the last) */
	serve_file(&s, f, 100000);
	s.stall_after = 2;
	s.rto_ms = 300;
	t0 = test_now_ms;
	CHECK_EQ(run_polled(&s, NULL), -ETIMEDOUT);
	CHECK(test_now_ms - t0 >= TFTP_STALL_MS && test_now_ms - t0 < TFTP_STALL_MS + 5000);
	CHECK(test_console_has("no new data for 30000 ms after block 3"));
	free(f);
}

TEST(tftp_server_error_shown_verbatim)
{
	struct tftp_srv s = { 0 };

	s.error_code = 1;
	s.error_msg = "File boot.bin not found for 198.18.0.60";
	CHECK_EQ(run_tftp(&s, NULL, sizeof(sink_buf)), -ENOENT);
	CHECK(test_console_has("server 198.18.0.1: error 1: File boot.bin not found for 198.18.0.60"));
	s.error_code = 2;
	s.error_msg = "Access violation";
	CHECK_EQ(run_tftp(&s, NULL, sizeof(sink_buf)), -EPERM);
}

TEST(tftp_refuses_oack_with_unasked_or_larger_options)
{
	struct tftp_srv s = { 0 };
	uint8_t *f = serve_new_file(&s, 5000, 6);

	s.extra_option = "timeout";
	CHECK_EQ(run_tftp(&s, NULL, sizeof(sink_buf)), -EINVAL);
	CHECK(test_console_has("option 'timeout' not asked for"));
	CHECK_EQ(s.last_error_code, 8);   /* RFC 2347: terminate with ERROR 8 */
	serve_file(&s, f, 5000);
	s.grant_blksize = 4000;           /* more than the 2012 we asked */
	CHECK_EQ(run_tftp(&s, NULL, sizeof(sink_buf)), -EINVAL);
	CHECK(test_console_has("blksize outside"));
	serve_file(&s, f, 5000);
	s.grant_windowsize = 4;           /* windowsize we did not ask for */
	CHECK_EQ(run_tftp(&s, NULL, sizeof(sink_buf)), -EINVAL);
	free(f);
}

TEST(tftp_file_larger_than_buffer)
{
	struct tftp_srv s = { 0 };
	uint8_t *f = serve_new_file(&s, 10000, 7);

	s.grant_tsize = true;
	CHECK_EQ(run_tftp(&s, NULL, 4096), -ERANGE);   /* known from tsize, before any data */
	CHECK_EQ(s.last_error_code, 3);
	CHECK(test_console_has("boot.bin needs 10000 bytes, buffer 4096"));
	serve_file(&s, f, 10000);
	s.no_options = true;                       /* found out block by block */
	CHECK_EQ(run_tftp(&s, NULL, 4096), -ERANGE);
	CHECK_EQ(s.last_error_code, 3);
	free(f);
}

TEST(tftp_packet_from_another_tid_gets_error_5)
{
	struct tftp_srv s = { 0 };
	uint8_t *f = serve_new_file(&s, 20000, 8);

	s.stranger = true;
	expect_whole_file(&s, NULL, f, 20000);
	CHECK_EQ(s.stranger_error_code, 5);
	free(f);
}

TEST(tftp_gives_up_on_a_silent_server)
{
	struct tftp_srv s = { 0 };
	struct tftp_opts o = { 0 };

	s.silent = true;
	o.max_retries = 4;
	CHECK_EQ(run_tftp(&s, &o, sizeof(sink_buf)), -ETIMEDOUT);
	CHECK_EQ(s.rrqs, 5);
	CHECK(test_console_has("no answer from 198.18.0.1 for boot.bin after 5 tries"));
}

TEST(tftp_block_numbers_wrap_past_65535)
{
	struct tftp_srv s = { 0 };
	struct tftp_opts o = { 0 };
	size_t size = 8 * 70000 + 3;
	uint8_t *f = serve_new_file(&s, size, 9);

	s.grant_windowsize = 64;
	o.blksize = 8;
	o.windowsize = 64;
	expect_whole_file(&s, &o, f, size);
	free(f);
}

TEST(tftp_oack_parser_refusals)
{
	struct tftp_oack o;
	const char *why;

	CHECK_EQ(tftp_parse_oack((const uint8_t *)"blksize\0" "1024\0tsize\0" "99\0", 22, 2012, 0,
				 true, &o, &why), 0);
	CHECK_EQ(o.blksize, 1024);
	CHECK_EQ(o.tsize, 99);
	CHECK_EQ(tftp_parse_oack((const uint8_t *)"BlkSize\0" "512\0", 12, 2012, 0, false, &o,
				 &why), 0);   /* names are case-insensitive (RFC 2347) */
	CHECK_EQ(tftp_parse_oack((const uint8_t *)"blksize", 7, 2012, 0, false, &o, &why), -EINVAL);
	CHECK_STR(why, "bad option name");
	CHECK_EQ(tftp_parse_oack((const uint8_t *)"blksize\0", 8, 2012, 0, false, &o, &why), -EINVAL);
	CHECK(strstr(why, "value unterminated"));
	CHECK_EQ(tftp_parse_oack((const uint8_t *)"blksize\0" "12a\0", 12, 2012, 0, false, &o, &why),
		 -EINVAL);
	CHECK(strstr(why, "not a number"));
	CHECK_EQ(tftp_parse_oack((const uint8_t *)"blksize\0" "7\0", 10, 2012, 0, false, &o, &why),
		 -EINVAL);
	CHECK_EQ(tftp_parse_oack((const uint8_t *)"tsize\0" "1\0tsize\0" "2\0", 16, 2012, 0, true,
				 &o, &why), -EINVAL);
	CHECK(strstr(why, "repeated"));
	CHECK_EQ(tftp_parse_oack((const uint8_t *)"tsize\0" "99999999999999999999999\0", 30, 2012, 0,
				 true, &o, &why), -EINVAL);
}

TEST(tftp_console_command)
{
	struct tftp_srv s = { 0 };
	uint8_t *f = serve_new_file(&s, 3000, 10);

	s.grant_tsize = true;
	fake_net_setup(tftp_server, &s);
	fake_tick = tftp_server_tick;
	fake_nd.ip_addr = CLIENT_IP;
	test_console_clear();
	CHECK_EQ(run_apps_command("tftp tftp://198.18.0.1/boot.bin"), 0);
	CHECK(test_console_has("tftp: boot.bin: 3000 bytes"));
	{
		uint8_t d[SHA256_DIGEST_LEN];
		char want[80] = "sha256 ";

		sha256(f, 3000, d);
		sha256_to_hex(d, want + 7);
		CHECK(test_console_has(want));
	}
	free(s.sent_once);
	serve_file(&s, f, 3000);
	CHECK_EQ(setting_set("next-server", "198.18.0.1"), 0);
	CHECK_EQ(run_apps_command("tftp boot.bin"), 0);   /* next-server from DHCP */
	CHECK_EQ(s.rrqs, 1);
	free(s.sent_once);
	CHECK_EQ(run_apps_command("tftp tftp://198.18.0.1:70/boot.bin"), -ENOTSUP);
	CHECK_EQ(run_apps_command("tftp tftp:///boot.bin"), -EINVAL);
	CHECK_EQ(run_apps_command("tftp a b c"), -EINVAL);
	net_poll();
	fake_net_teardown();
	free(f);
}

TEST(tftp_refuses_without_link_or_address)
{
	struct tftp_sink sink = { sink_buf, sizeof(sink_buf), 0, NULL, NULL };

	fake_net_setup(NULL, NULL);
	test_console_clear();
	CHECK_EQ(tftp_fetch(&fake_nd, SRV, "boot.bin", NULL, &sink), -EINVAL);
	CHECK(test_console_has("tftp: ib0 has no IPv4 address (run dhcp first)"));
	fake_nd.ip_addr = CLIENT_IP;
	fake_nd.link_up = false;
	CHECK_EQ(tftp_fetch(&fake_nd, SRV, "boot.bin", NULL, &sink), -EIO);
	CHECK(test_console_has("tftp: ib0 has no link"));
	CHECK_EQ(fake_tx_count, 0);
	fake_net_teardown();
}

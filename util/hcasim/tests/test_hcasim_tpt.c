/* SPDX-License-Identifier: MIT */
/* hcasim: L_Key translation through dMPT and MTT — non-pa regions across pages, bounds, each
 * access bit, PD, invalid keys; violations give error CQEs (opcode 0x1E) and the QP goes to ERR. */
#include <string.h>

#include <ibboot/hermon_prm.h>

#include "check_helpers.h"
#include "rawhost.h"
#include "test.h"

#define G(st, f, b) hermonprm_##st##_st_get_##f(b)

static int loop_up(struct rawhost_pair *l)
{
	struct rawhost_qp_attr qa = { .st = 3, .log_sq = 3, .log_rq = 3, .qkey = 7,
				      .cqn_snd = 130, .cqn_rcv = 130 };

	return rawhost_pair_up(l, &(struct rawhost_pair_cfg){ .qa = &qa });
}

static const struct rawhost_ud_dest to_b = { .dlid = 2, .dqpn = 0x200, .qkey = 7 };

/* Send `len` bytes from va under key; return the sender's CQE opcode (0x0a ok, 0x1e error). */
static unsigned send_with(struct rawhost_pair *l, uint64_t va, uint32_t len, uint32_t key, uint8_t cqe[32])
{
	rawhost_post_ud(&l->a, &l->aqp, &to_b, va, len, key);
	rawhost_run(&l->a, &l->b);
	if (!rawhost_poll_cq(&l->a, &l->acq, cqe))
		return 0xff;
	return G(completion_queue_entry, opcode, cqe);
}

TEST(hcasim_tpt_virtual_region_spanning_pages)
{
	struct rawhost_pair l;
	uint8_t cqe[32], *src;
	uint64_t pages, rx;
	uint32_t key;

	CHECK_EQ(loop_up(&l), 0);
	/* three guest pages, registered at an unrelated virtual address, 0x123 into the page */
	pages = rawhost_alloc(&l.a, 3 * 4096, 4096);
	src = rawhost_ptr(&l.a, pages);
	for (unsigned i = 0; i < 3 * 4096; i++)
		src[i] = (uint8_t)(i * 7 + 3);
	CHECK_EQ(rawhost_reg_mr(&l.a, 20, pages + 0x123, 0x7000000123ull, 8000, 1, false, RAWHOST_PD, &key), 0);
	rx = rawhost_alloc(&l.b, 8192, 64);
	rawhost_post_recv(&l.b, &l.bqp, rx, 4096, 0);
	/* 3000 bytes starting 3000 bytes into the region: crosses from page 0 into page 1 */
	CHECK_EQ(send_with(&l, 0x7000000123ull + 3000, 3000, key, cqe), 0x0a);
	CHECK_EQ(rawhost_poll_cq(&l.b, &l.bcq, cqe), 1);
	CHECK_EQ(G(completion_queue_entry, byte_cnt, cqe), 40 + 3000);
	CHECK_MEM((uint8_t *)rawhost_ptr(&l.b, rx) + 40, src + 0x123 + 3000, 3000);
	rawhost_pair_down(&l);
}

TEST(hcasim_tpt_bounds_pd_key_and_local_read_bit)
{
	struct rawhost_pair l;
	uint8_t cqe[32];
	uint64_t buf;
	uint32_t key_ok, key_nolr, key_pd;

	CHECK_EQ(loop_up(&l), 0);
	buf = rawhost_alloc(&l.a, 8192, 4096);
	CHECK_EQ(rawhost_reg_mr(&l.a, 20, buf, buf, 4096, 1, false, RAWHOST_PD, &key_ok), 0);
	CHECK_EQ(rawhost_reg_mr(&l.a, 21, buf, buf, 4096, 2, false, RAWHOST_PD, &key_nolr), 0);
	CHECK_EQ(rawhost_reg_mr(&l.a, 22, buf, buf, 4096, 1, true, 0x654321, &key_pd), 0);
	CHECK_EQ(send_with(&l, buf + 100, 64, key_ok, cqe), 0x0a);
	/* one byte past the end of the region */
	CHECK_EQ(send_with(&l, buf + 4096 - 63, 64, key_ok, cqe), 0x1e);
	CHECK_EQ(G(completion_with_error, syndrome, cqe), 0x04);
	CHECK_EQ(G(completion_with_error, s_r, cqe), 1);
	CHECK(strstr(l.a.last_log, "QP 0x100 to error") != NULL);
	/* the QP is in error now: further WQEs are flushed */
	CHECK_EQ(send_with(&l, buf, 8, key_ok, cqe), 0x1e);
	CHECK_EQ(G(completion_with_error, syndrome, cqe), 0x05);
	rawhost_pair_down(&l);

	CHECK_EQ(loop_up(&l), 0);
	buf = rawhost_alloc(&l.a, 8192, 4096);
	CHECK_EQ(rawhost_reg_mr(&l.a, 21, buf, buf, 4096, 2, false, RAWHOST_PD, &key_nolr), 0);
	CHECK_EQ(send_with(&l, buf, 64, key_nolr, cqe), 0x1e); /* no local read */
	CHECK_EQ(G(completion_with_error, syndrome, cqe), 0x04);
	CHECK(strstr(hcasim_refused(l.a.h, 1), "access right") != NULL);
	rawhost_pair_down(&l);

	CHECK_EQ(loop_up(&l), 0);
	buf = rawhost_alloc(&l.a, 8192, 4096);
	CHECK_EQ(rawhost_reg_mr(&l.a, 22, buf, buf, 4096, 1, true, 0x654321, &key_pd), 0);
	CHECK_EQ(send_with(&l, buf, 64, key_pd, cqe), 0x1e); /* another PD */
	CHECK(strstr(hcasim_refused(l.a.h, 1), "protection domain") != NULL);
	rawhost_pair_down(&l);

	CHECK_EQ(loop_up(&l), 0);
	buf = rawhost_alloc(&l.a, 8192, 4096);
	CHECK_EQ(send_with(&l, buf, 64, 0x4242, cqe), 0x1e); /* no such MPT */
	CHECK(strstr(hcasim_refused(l.a.h, 1), "valid MPT") != NULL);
	rawhost_pair_down(&l);

	CHECK_EQ(loop_up(&l), 0);
	buf = rawhost_alloc(&l.a, 8192, 4096);
	CHECK_EQ(send_with(&l, buf, 64, l.a.lkey ^ 0x01, cqe), 0x1e); /* right index, wrong tag */
	rawhost_pair_down(&l);
}

TEST(hcasim_tpt_receive_needs_local_write)
{
	struct rawhost_pair l;
	uint8_t cqe[32];
	uint64_t rx;
	uint32_t key_ro;

	CHECK_EQ(loop_up(&l), 0);
	rx = rawhost_alloc(&l.b, 8192, 4096);
	memset(rawhost_ptr(&l.b, rx), 0x5a, 8192);
	CHECK_EQ(rawhost_reg_mr(&l.b, 20, rx, rx, 8192, 1, false, RAWHOST_PD, &key_ro), 0);
	rawhost_post_recv(&l.b, &l.bqp, rx, 2048, key_ro);
	CHECK_EQ(send_with(&l, rawhost_alloc(&l.a, 64, 64), 32, 0, cqe), 0x0a);
	CHECK_EQ(rawhost_poll_cq(&l.b, &l.bcq, cqe), 1);
	CHECK_EQ(G(completion_with_error, opcode, cqe), 0x1e);
	CHECK_EQ(G(completion_with_error, syndrome, cqe), 0x04);
	CHECK_EQ(G(completion_with_error, s_r, cqe), 0);
	CHECK_EQ(((uint8_t *)rawhost_ptr(&l.b, rx))[40], 0x5a); /* nothing written */
	rawhost_pair_down(&l);
}

TEST(hcasim_tpt_receive_too_small_is_a_length_error)
{
	struct rawhost_pair l;
	uint8_t cqe[32];
	uint64_t rx;

	CHECK_EQ(loop_up(&l), 0);
	rx = rawhost_alloc(&l.b, 8192, 4096);
	rawhost_post_recv(&l.b, &l.bqp, rx, 16, 0);
	rawhost_post_recv(&l.b, &l.bqp, rx + 64, 16, 0);
	CHECK_EQ(send_with(&l, rawhost_alloc(&l.a, 64, 64), 32, 0, cqe), 0x0a);
	expect_cqe_error(&l.b, &l.bcq, cqe, 0x01);
	/* the receive QP went to error: its other posted receive is flushed */
	expect_cqe_error(&l.b, &l.bcq, cqe, 0x05);
	CHECK_EQ(G(completion_with_error, wqe_counter, cqe), 1);
	rawhost_pair_down(&l);
}

TEST(hcasim_tpt_message_longer_than_mtu)
{
	struct rawhost_pair l;
	uint8_t cqe[32];

	CHECK_EQ(loop_up(&l), 0);
	CHECK_EQ(send_with(&l, rawhost_alloc(&l.a, 8192, 64), 5000, 0, cqe), 0x1e);
	CHECK_EQ(G(completion_with_error, syndrome, cqe), 0x01);
	rawhost_pair_down(&l);
}

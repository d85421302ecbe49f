/* SPDX-License-Identifier: MIT */
/* hcasim: RC responder — SEND, RDMA WRITE, RDMA READ with R_Key checks. A remote write into a
 * local-only region is NAK'd (remote access error), logged, and the memory stays unchanged. */
#include <string.h>

#include <ibboot/hermon_prm.h>

#include "check_helpers.h"
#include "rawhost.h"
#include "test.h"

#define G(st, f, b) hermonprm_##st##_st_get_##f(b)

static int rc_up(struct rawhost_pair *r, bool rwe)
{
	struct rawhost_qp_attr qa = { .st = 0, .log_sq = 3, .log_rq = 3, .cqn_snd = 130,
				      .cqn_rcv = 130, .remote_qpn = 0x200, .dlid = 2, .rre = true,
				      .rwe = rwe };
	struct rawhost_qp_attr qb = qa;

	qb.remote_qpn = 0x100;
	qb.dlid = 1;
	return rawhost_pair_up(r, &(struct rawhost_pair_cfg){ .qa = &qa, .qb = &qb });
}

TEST(hcasim_rc_send_and_rdma_write_read)
{
	struct rawhost_pair r;
	uint8_t cqe[32];
	uint64_t src, dst, back;
	uint32_t rkey;

	CHECK_EQ(rc_up(&r, true), 0);
	src = rawhost_alloc(&r.a, 4096, 4096);
	back = rawhost_alloc(&r.a, 4096, 4096);
	dst = rawhost_alloc(&r.b, 4096, 4096);
	memcpy(rawhost_ptr(&r.a, src), "remote write payload", 20);
	/* SEND into a posted receive */
	rawhost_post_recv(&r.b, &r.bqp, dst + 2048, 1024, 0);
	rawhost_post_rc(&r.a, &r.aqp, 0x0a, src, 20, 0, 0, 0);
	rawhost_run(&r.a, &r.b);
	expect_cqe(&r.a, &r.acq, cqe, 0x0a);
	CHECK_EQ(rawhost_poll_cq(&r.b, &r.bcq, cqe), 1);
	CHECK_EQ(G(completion_queue_entry, byte_cnt, cqe), 20);
	CHECK_MEM(rawhost_ptr(&r.b, dst + 2048), "remote write payload", 20);
	/* RDMA WRITE into a region that grants remote write */
	CHECK_EQ(rawhost_reg_mr(&r.b, 20, dst, dst, 1024, 0xf, false, RAWHOST_PD, &rkey), 0);
	rawhost_post_rc(&r.a, &r.aqp, 0x08, src, 20, 0, dst + 100, rkey);
	rawhost_run(&r.a, &r.b);
	expect_cqe(&r.a, &r.acq, cqe, 0x08);
	CHECK_MEM(rawhost_ptr(&r.b, dst + 100), "remote write payload", 20);
	/* RDMA READ it back */
	rawhost_post_rc(&r.a, &r.aqp, 0x10, back, 20, 0, dst + 100, rkey);
	rawhost_run(&r.a, &r.b);
	expect_cqe(&r.a, &r.acq, cqe, 0x10);
	CHECK_MEM(rawhost_ptr(&r.a, back), "remote write payload", 20);
	rawhost_pair_down(&r);
}

TEST(hcasim_rc_remote_write_to_local_only_region_refused)
{
	struct rawhost_pair r;
	uint8_t cqe[32], before[64];
	uint64_t src, dst;

	CHECK_EQ(rc_up(&r, true), 0);
	src = rawhost_alloc(&r.a, 4096, 4096);
	dst = rawhost_alloc(&r.b, 4096, 4096);
	memset(rawhost_ptr(&r.a, src), 0x66, 64);
	memset(rawhost_ptr(&r.b, dst), 0x11, 64);
	memcpy(before, rawhost_ptr(&r.b, dst), 64);
	/* the boot driver's key: physical, all memory, lr/lw only */
	rawhost_post_rc(&r.a, &r.aqp, 0x08, src, 64, 0, dst, r.b.lkey);
	rawhost_run(&r.a, &r.b);
	CHECK_EQ(rawhost_poll_cq(&r.a, &r.acq, cqe), 1);
	CHECK_EQ(G(completion_with_error, opcode, cqe), 0x1e);
	CHECK_EQ(G(completion_with_error, syndrome, cqe), 0x13); /* remote access error */
	CHECK_MEM(rawhost_ptr(&r.b, dst), before, 64);
	CHECK(strstr(hcasim_refused(r.b.h, 0), "remote WRITE") != NULL);
	CHECK(strstr(hcasim_refused(r.b.h, 0), "access right") != NULL);
	/* a remote read of it is refused the same way */
	rawhost_pair_down(&r);

	CHECK_EQ(rc_up(&r, true), 0);
	src = rawhost_alloc(&r.a, 4096, 4096);
	dst = rawhost_alloc(&r.b, 4096, 4096);
	memset(rawhost_ptr(&r.a, src), 0x77, 64);
	rawhost_post_rc(&r.a, &r.aqp, 0x10, src, 64, 0, dst, r.b.lkey);
	rawhost_run(&r.a, &r.b);
	expect_cqe_error(&r.a, &r.acq, cqe, 0x13);
	CHECK_EQ(((uint8_t *)rawhost_ptr(&r.a, src))[0], 0x77);
	rawhost_pair_down(&r);
}

TEST(hcasim_rc_qp_without_remote_write_refuses)
{
	struct rawhost_pair r;
	uint8_t cqe[32];
	uint64_t src, dst;
	uint32_t rkey;

	CHECK_EQ(rc_up(&r, false), 0);
	src = rawhost_alloc(&r.a, 4096, 4096);
	dst = rawhost_alloc(&r.b, 4096, 4096);
	CHECK_EQ(rawhost_reg_mr(&r.b, 20, dst, dst, 1024, 0xf, false, RAWHOST_PD, &rkey), 0);
	rawhost_post_rc(&r.a, &r.aqp, 0x08, src, 16, 0, dst, rkey);
	rawhost_run(&r.a, &r.b);
	expect_cqe_error(&r.a, &r.acq, cqe, 0x13);
	CHECK(strstr(hcasim_refused(r.b.h, 0), "remote write disabled") != NULL);
	rawhost_pair_down(&r);
}

TEST(hcasim_rc_send_without_receive_gets_rnr)
{
	struct rawhost_pair r;
	uint8_t cqe[32];

	CHECK_EQ(rc_up(&r, true), 0);
	rawhost_post_rc(&r.a, &r.aqp, 0x0a, rawhost_alloc(&r.a, 64, 64), 16, 0, 0, 0);
	rawhost_run(&r.a, &r.b);
	CHECK_EQ(rawhost_poll_cq(&r.a, &r.acq, cqe), 1);
	CHECK_EQ(G(completion_with_error, opcode, cqe), 0x1e);
	CHECK_EQ(G(completion_with_error, syndrome, cqe), 0x16);
	rawhost_pair_down(&r);
}

TEST(hcasim_rc_multi_packet_send_write_read)
{
	struct rawhost_pair r;
	uint8_t cqe[32];
	uint64_t src, dst, back, rcv;
	uint32_t rkey;
	uint8_t *s;

	CHECK_EQ(rc_up(&r, true), 0);
	src = rawhost_alloc(&r.a, 3 * 4096 + 4096, 4096);
	back = rawhost_alloc(&r.a, 3 * 4096, 4096);
	dst = rawhost_alloc(&r.b, 3 * 4096, 4096);
	rcv = rawhost_alloc(&r.b, 3 * 4096, 4096);
	s = rawhost_ptr(&r.a, src);
	for (unsigned i = 0; i < 10000; i++)
		s[i] = (uint8_t)(i * 13 + 1);
	/* a 10000-byte SEND: three packets at MTU 4096 */
	rawhost_post_recv(&r.b, &r.bqp, rcv, 12000, 0);
	rawhost_post_rc(&r.a, &r.aqp, 0x0a, src, 10000, 0, 0, 0);
	rawhost_run(&r.a, &r.b);
	expect_cqe(&r.a, &r.acq, cqe, 0x0a);
	CHECK_EQ(rawhost_poll_cq(&r.b, &r.bcq, cqe), 1);
	CHECK_EQ(G(completion_queue_entry, byte_cnt, cqe), 10000);
	CHECK_MEM(rawhost_ptr(&r.b, rcv), s, 10000);
	/* RDMA WRITE of 9000 bytes, then READ them back */
	CHECK_EQ(rawhost_reg_mr(&r.b, 20, dst, dst, 3 * 4096, 0xf, false, RAWHOST_PD, &rkey), 0);
	rawhost_post_rc(&r.a, &r.aqp, 0x08, src + 7, 9000, 0, dst + 5, rkey);
	rawhost_run(&r.a, &r.b);
	expect_cqe(&r.a, &r.acq, cqe, 0x08);
	CHECK_MEM(rawhost_ptr(&r.b, dst + 5), s + 7, 9000);
	rawhost_post_rc(&r.a, &r.aqp, 0x10, back, 9000, 0, dst + 5, rkey);
	rawhost_run(&r.a, &r.b);
	expect_cqe(&r.a, &r.acq, cqe, 0x10);
	CHECK_MEM(rawhost_ptr(&r.a, back), s + 7, 9000);
	/* a multi-packet WRITE into a local-only region: refused at the first packet, nothing lands */
	memset(rawhost_ptr(&r.b, rcv), 0x44, 9000);
	rawhost_post_rc(&r.a, &r.aqp, 0x08, src, 9000, 0, rcv, r.b.lkey);
	rawhost_run(&r.a, &r.b);
	expect_cqe_error(&r.a, &r.acq, cqe, 0x13);
	CHECK_EQ(((uint8_t *)rawhost_ptr(&r.b, rcv))[0], 0x44);
	CHECK_EQ(((uint8_t *)rawhost_ptr(&r.b, rcv))[8999], 0x44);
	rawhost_pair_down(&r);
}

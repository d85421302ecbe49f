/* SPDX-License-Identifier: MIT */
/* hcasim: multicast — MGID_HASH, READ/WRITE_MCG, chained entries, delivery to every attached QP,
 * loopback to the sender's own HCA. */
#include <string.h>

#include <ibboot/hermon_prm.h>

#include "rawhost.h"
#include "test.h"

#define G(st, f, b) hermonprm_##st##_st_get_##f(b)
#define S(st, f, b, v) hermonprm_##st##_st_set_##f((b), (v))

static const uint8_t mgid[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };

static uint32_t hash_of(struct rawhost *rh, const uint8_t *gid)
{
	uint64_t imm = 0;

	CHECK_EQ(rawhost_cmd_mbox(rh, 0x027, 0, 0, gid, 16, NULL, 0, &imm), 0);
	return (uint32_t)(imm & 0xffff);
}

static void entry(uint8_t *e, const uint8_t *gid, const uint32_t *qpns, unsigned n, uint32_t next)
{
	uint8_t *hdr = hermonprm_mcg_entry_st_hdr(e);

	memset(e, 0, 64);
	S(mcg_hdr, next_mcg, hdr, next);
	S(mcg_hdr, members_count, hdr, n);
	S(mcg_hdr, gid3, hdr, hermonprm_load_dword(gid, 0));
	S(mcg_hdr, gid2, hdr, hermonprm_load_dword(gid, 1));
	S(mcg_hdr, gid1, hdr, hermonprm_load_dword(gid, 2));
	S(mcg_hdr, gid0, hdr, hermonprm_load_dword(gid, 3));
	for (unsigned i = 0; i < n; i++)
		S(mcg_qp_dw, qpn, hermonprm_mcg_entry_st_qp(e, i), qpns[i]);
}

TEST(hcasim_mcast_delivery_to_every_attached_qp_with_chaining)
{
	struct rawhost_pair p;
	struct rawhost_qp bqp[3];
	struct rawhost_qp_attr qa = { .st = 3, .log_sq = 3, .log_rq = 3, .qkey = 0x0b1b,
				      .cqn_snd = 130, .cqn_rcv = 130 };
	struct rawhost_ud_dest d = { .dlid = 0xc001, .dqpn = 0xffffff, .qkey = 0x0b1b, .grh = true };
	uint32_t members[3] = { 0x200, 0x201, 0x202 }, self = 0x100, h;
	uint8_t e[64], other[16], out[64], cqe[32];
	uint64_t tx;
	unsigned got = 0, seen = 0;

	CHECK_EQ(rawhost_pair_up(&p, &(struct rawhost_pair_cfg){ .log_cq = 4 }), 0);
	CHECK_EQ(rawhost_create_qp(&p.a, &p.aqp, 0x100, &qa), 0);
	for (unsigned i = 0; i < 3; i++) {
		CHECK_EQ(rawhost_create_qp(&p.b, &bqp[i], members[i], &qa), 0);
		rawhost_post_recv(&p.b, &bqp[i], rawhost_alloc(&p.b, 2048, 64), 2048, 0);
	}
	rawhost_post_recv(&p.a, &p.aqp, rawhost_alloc(&p.a, 2048, 64), 2048, 0);
	/* B: the bucket holds another group whose chain leads to ours at index 40 */
	h = hash_of(&p.b, mgid);
	CHECK(h < 32);
	CHECK_EQ(hash_of(&p.b, mgid), h); /* deterministic */
	memcpy(other, mgid, 16);
	other[15] ^= 0x55;
	entry(e, other, members, 1, 40);
	CHECK_EQ(rawhost_cmd_mbox(&p.b, 0x026, 0, h, e, 64, NULL, 0, NULL), 0);
	entry(e, mgid, members, 3, 0);
	CHECK_EQ(rawhost_cmd_mbox(&p.b, 0x026, 0, 40, e, 64, NULL, 0, NULL), 0);
	CHECK_EQ(rawhost_cmd_mbox(&p.b, 0x025, 0, 40, NULL, 0, out, 64, NULL), 0);
	CHECK_MEM(out, e, 64);
	/* the entry is in ICM at mc_base + 40 * 64 */
	CHECK_MEM(rawhost_ptr(&p.b, p.b.mcg.pa + 40 * 64), e, 64);
	/* A: its own QP is a member (loopback) */
	entry(e, mgid, &self, 1, 0);
	CHECK_EQ(rawhost_cmd_mbox(&p.a, 0x026, 0, hash_of(&p.a, mgid), e, 64, NULL, 0, NULL), 0);
	memcpy(d.dgid, mgid, 16);
	tx = rawhost_alloc(&p.a, 256, 64);
	memcpy(rawhost_ptr(&p.a, tx), "to the group", 12);
	rawhost_post_ud(&p.a, &p.aqp, &d, tx, 12, 0);
	rawhost_run(&p.a, &p.b);
	while (rawhost_poll_cq(&p.b, &p.bcq, cqe)) {
		CHECK_EQ(G(completion_queue_entry, opcode, cqe), 0x02);
		CHECK_EQ(G(completion_queue_entry, g, cqe), 1);
		got |= 1u << (G(completion_queue_entry, qpn, cqe) - 0x200);
	}
	CHECK_EQ(got, 7);
	while (rawhost_poll_cq(&p.a, &p.acq, cqe))
		seen |= G(completion_queue_entry, s_r, cqe) ? 1 : 2;
	CHECK_EQ(seen, 3); /* the send completion and the looped-back receive */
	rawhost_pair_down(&p);
}

TEST(hcasim_mcast_command_checks)
{
	struct rawhost rh;
	uint8_t e[64];
	uint32_t q[1] = { 0x200 };

	CHECK_EQ(rawhost_up(&rh), 0);
	entry(e, mgid, q, 1, 0);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x026, 0, 64, e, 64, NULL, 0, NULL), 0x0a);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x025, 0, 64, NULL, 0, e, 64, NULL), 0x0a);
	S(mcg_hdr, members_count, hermonprm_mcg_entry_st_hdr(e), 9); /* 64-byte entry: 8 QPs */
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x026, 0, 3, e, 64, NULL, 0, NULL), 0x03);
	S(mcg_hdr, members_count, hermonprm_mcg_entry_st_hdr(e), 1);
	S(mcg_hdr, next_mcg, hermonprm_mcg_entry_st_hdr(e), 64);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x026, 0, 3, e, 64, NULL, 0, NULL), 0x03);
	rawhost_fini(&rh);
}

TEST(hcasim_mcast_member_qpn_with_random_high_bits)
{
	struct rawhost_pair p;
	struct rawhost_qp_attr qa = { .st = 3, .log_sq = 3, .log_rq = 3, .qkey = 0x0b1b,
				      .cqn_snd = 130, .cqn_rcv = 130 };
	struct rawhost_ud_dest d = { .dlid = 0xc000, .dqpn = 0xffffff, .qkey = 0x0b1b, .grh = true };
	uint32_t member = 0xabc248;
	uint8_t e[64], cqe[32];

	CHECK_EQ(rawhost_pair_up(&p, &(struct rawhost_pair_cfg){ 0 }), 0);
	CHECK_EQ(rawhost_create_qp(&p.a, &p.aqp, 0x5a1100, &qa), 0);
	CHECK_EQ(rawhost_create_qp(&p.b, &p.bqp, member, &qa), 0);
	rawhost_post_recv(&p.b, &p.bqp, rawhost_alloc(&p.b, 2048, 64), 2048, 0);
	entry(e, mgid, &member, 1, 0);
	CHECK_EQ(rawhost_cmd_mbox(&p.b, 0x026, 0, hash_of(&p.b, mgid), e, 64, NULL, 0, NULL), 0);
	memcpy(d.dgid, mgid, 16);
	rawhost_post_ud(&p.a, &p.aqp, &d, rawhost_alloc(&p.a, 64, 64), 32, 0);
	rawhost_run(&p.a, &p.b);
	CHECK_EQ(rawhost_poll_cq(&p.b, &p.bcq, cqe), 1);
	CHECK_EQ(G(completion_queue_entry, qpn, cqe), member);
	CHECK_EQ(G(completion_queue_entry, srq_rqpn, cqe), 0x5a1100);
	rawhost_pair_down(&p);
}

/* SPDX-License-Identifier: MIT */
/* Checks the rawhost model tests repeat: the next completion, ICM in use, a UD send that B drops.
 * Each CHECK reports this file's line; the test's name in the PASS/FAIL line says which test. */
#ifndef HCASIM_CHECK_HELPERS_H
#define HCASIM_CHECK_HELPERS_H

#include <ibboot/hermon_prm.h>
#include <ibboot/wire/packet.h>

#include "rawhost.h"
#include "test.h"

/* The next CQE on cq is a good completion of opcode (PRM CQE format). */
static inline void expect_cqe(struct rawhost *rh, struct rawhost_cq *cq, uint8_t cqe[32],
			      unsigned opcode)
{
	CHECK_EQ(rawhost_poll_cq(rh, cq, cqe), 1);
	CHECK_EQ(hermonprm_completion_queue_entry_st_get_opcode(cqe), opcode);
}

/* The next CQE on cq is an error completion with this syndrome. */
static inline void expect_cqe_error(struct rawhost *rh, struct rawhost_cq *cq, uint8_t cqe[32],
				    unsigned syndrome)
{
	CHECK_EQ(rawhost_poll_cq(rh, cq, cqe), 1);
	CHECK_EQ(hermonprm_completion_with_error_st_get_syndrome(cqe), syndrome);
}

/* One UD QP of a single host: send CQ and receive CQ both 130 (what rawhost_up_with_qp creates). */
#define UD_QP_ATTR { .st = 3, .log_sq = 3, .log_rq = 3, .cqn_snd = 130, .cqn_rcv = 130 }
/* An MLX QP (service type 7) on port 1 over CQ 130, as a driver's QP0 is, taken to `state`. */
#define MLX_QP0_ATTR(state) { .st = 7, .log_sq = 3, .log_rq = 3, .cqn_snd = 130, .cqn_rcv = 130, \
			      .port = 1, .to_state = (state) }

/* rawhost_up with one UD QP of UD_QP_ATTR. */
static inline int ud_qp_up(struct rawhost *rh, struct rawhost_cq *cq, struct rawhost_qp *qp)
{
	const struct rawhost_qp_attr a = UD_QP_ATTR;

	return rawhost_up_with_qp(rh, cq, qp, &a);
}

/* Build the packet p with payload and hand it to the model as if it arrived on port. */
static inline void packet_in(struct hcasim *h, unsigned port, const struct iblib_pkt *p,
			     const void *payload, size_t len)
{
	uint8_t pkt[512];
	int n = iblib_pkt_build(pkt, sizeof(pkt), p, payload, len);

	CHECK(n > 0);
	if (n > 0)
		hcasim_packet_in(h, port, pkt, (size_t)n);
}

/* One field of a PRM structure at buf set to v through its generated setter. */
struct prm_edit {
	void *buf;
	void (*set)(void *buf, uint32_t v);
	uint32_t v;
};

static inline void prm_apply(const struct prm_edit *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		e[i].set(e[i].buf, e[i].v);
}

/* The model holds exactly this much ICM. */
static inline void expect_icm_bytes(struct rawhost *rh, uint64_t bytes)
{
	struct hcasim_mem_usage u;

	hcasim_mem_usage(rh->h, &u);
	CHECK_EQ(u.icm_bytes, bytes);
}

/* A posts one 8-byte UD send to d with a receive ready on B, and B completes nothing: the packet
 * was dropped. st: B's port 1 counters afterwards, for the caller to name the reason. */
static inline void expect_ud_dropped(struct rawhost_pair *p, const struct rawhost_ud_dest *d,
				     uint64_t tx, struct hcasim_port_stats *st)
{
	uint8_t cqe[32];

	rawhost_post_recv(&p->b, &p->bqp, rawhost_alloc(&p->b, 2048, 64), 2048, 0);
	rawhost_post_ud(&p->a, &p->aqp, d, tx, 8, 0);
	rawhost_run(&p->a, &p->b);
	CHECK_EQ(rawhost_poll_cq(&p->b, &p->bcq, cqe), 0);
	CHECK_EQ(hcasim_port_stats(p->b.h, 1, st), 0);
}

#endif

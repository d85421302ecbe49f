/* SPDX-License-Identifier: MIT */
/*
 * rawhost — a minimal, driver-independent "host" for the HCA model, for tests: a flat guest
 * memory arena serving the model's DMA, a fake clock, an HCR command helper, a bring-up helper
 * (reset → QUERY_FW → MAP_FA → RUN_FW → ICM → INIT_HCA → MPT → EQ → INIT_PORT)
 * and small helpers for CQs, QPs, WQEs and CQEs written with the PRM accessors.
 * It knows nothing of any real driver; fabsim's tests reuse it to attach models to a fabric.
 */
#ifndef HCASIM_RAWHOST_H
#define HCASIM_RAWHOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hcasim.h"

#define RAWHOST_MEM_BASE 0x10000000ull
#define RAWHOST_MEM_SIZE (32ull << 20)
#define RAWHOST_MAX_PKTS 32
#define RAWHOST_PD 0x123456u
#define RAWHOST_UAR_PAGE 128u
#define RAWHOST_MPT_INDEX 16u  /* first non-reserved MPT */
#define RAWHOST_EQN 32u        /* first non-reserved EQ */

/* One ICM table: where INIT_HCA put it (ICM virtual) and the guest memory behind it. */
struct rawhost_table {
	uint64_t va, pa, bytes;
	unsigned log_num, entry_sz;
};

struct rawhost_pkt {
	unsigned port;
	size_t len;
	uint8_t data[4224];
};

struct rawhost {
	struct hcasim *h;
	uint8_t *mem;
	uint64_t brk;           /* next free guest-physical byte */
	uint64_t now;           /* fake clock, ns */
	uint64_t in_mbox, out_mbox;
	unsigned toggle;
	uint64_t icm_size;
	struct rawhost_table qpc, cqc, eqc, srqc, altc, auxc, dmpt, mtt, mcg, cmpt[4];
	uint32_t mtt_next;      /* next free MTT entry index */
	uint32_t lkey;          /* the all-memory physical MR (lr/lw only) */
	uint32_t special_base;
	/* the EQ every async event is mapped to */
	uint64_t eq_ring;
	unsigned eq_log, eq_ci;
	/* packets the model sent (ring of the latest), and where each port is cabled */
	struct rawhost_pkt pkts[RAWHOST_MAX_PKTS];
	unsigned npkts;
	struct rawhost *peer[3];
	unsigned peer_port[3];
	unsigned log_lines;
	char last_log[256];
	bool link_up[3];        /* as ops->link_change last reported it */
	unsigned link_changes;
};

struct rawhost_cq {
	uint32_t cqn;
	unsigned log_size;
	uint64_t ring, dbrec;
	uint32_t ci;
};

struct rawhost_qp {
	uint32_t qpn;
	unsigned st, port;
	unsigned log_sq, log_rq, sq_stride, rq_stride;
	uint64_t buf, dbrec, grh;
	uint64_t sq_off, rq_off;
	uint32_t sq_pi, rq_pi;
};

/* Life cycle. cfg may be NULL (defaults). Returns 0 or -1. */
int rawhost_init(struct rawhost *rh, const struct hcasim_config *cfg);
void rawhost_fini(struct rawhost *rh);

/* Guest memory: allocate (zeroed), and address it. */
uint64_t rawhost_alloc(struct rawhost *rh, uint64_t size, uint64_t align);
void *rawhost_ptr(struct rawhost *rh, uint64_t gpa);

/* Raw HCR command. Returns the HCR status (0 success), or -1 if go never cleared. */
int rawhost_cmd(struct rawhost *rh, unsigned opcode, unsigned op_mod, uint64_t in_param,
		uint32_t in_mod, uint64_t out_param, uint64_t *out_imm);
/* Command with mailboxes: `in` (in_len bytes) copied to the input mailbox, output mailbox copied
 * to `out` (out_len bytes). imm receives the immediate output (may be NULL). */
int rawhost_cmd_mbox(struct rawhost *rh, unsigned opcode, unsigned op_mod, uint32_t in_mod,
		     const void *in, size_t in_len, void *out, size_t out_len, uint64_t *imm);

/* One virtual_physical_mapping entry (MAP_FA 0xfff, MAP_ICM_AUX 0xffc, MAP_ICM 0xffa): 2^log2pages
 * 4 KiB pages at pa, at ICM address va. Returns the HCR status. */
int rawhost_map(struct rawhost *rh, unsigned opcode, uint64_t va, uint64_t pa, unsigned log2pages);

/* The stock bring-up to INIT_HCA (fw, ICM, layout); then rawhost_bringup_rest() for MPT, EQ
 * and INIT_PORT on every port. rawhost_bringup() does both. Return 0 or the first failing HCR
 * status. QP0/QP1 stay with the firmware's agents: a driver-less host answers the SM with them. */
int rawhost_bringup_hca(struct rawhost *rh);
int rawhost_bringup_rest(struct rawhost *rh);
int rawhost_bringup(struct rawhost *rh);
/* CONF_SPECIAL_QP (op_mod 0) with the block at special_base = 64: from now on the host owns
 * QP0/QP1 and SMPs/GMPs reach only its MLX QPs there. Returns the HCR status. */
int rawhost_take_special_qps(struct rawhost *rh);
/* Software reset through BAR0 + 0xF0010, waiting (fake clock) until config space answers. */
/* Memory decode + bus mastering on, as a driver does (done by rawhost_init and rawhost_reset). */
void rawhost_bus_master(struct rawhost *rh);
int rawhost_reset(struct rawhost *rh);

/* Cable port pa of a to port pb of b (both links up) — or to itself (a == b, a loop). */
void rawhost_cable(struct rawhost *a, unsigned pa, struct rawhost *b, unsigned pb);
/* Run the model(s) until nothing is left to do. */
void rawhost_run(struct rawhost *a, struct rawhost *b);

/* Describe `pages` 4 KiB pages at gpa with fresh MTT entries; returns the MTT byte offset. */
uint64_t rawhost_write_mtt(struct rawhost *rh, uint64_t gpa, unsigned pages);

int rawhost_create_cq(struct rawhost *rh, struct rawhost_cq *cq, uint32_t cqn, unsigned log_size);
/* CQE at the consumer index if software owns it (copies 32 bytes, advances ci, updates the
 * doorbell record); 0 if none. */
int rawhost_poll_cq(struct rawhost *rh, struct rawhost_cq *cq, uint8_t cqe[32]);

/* Create a QP and move it RST → INIT → RTR → RTS (to_state stops earlier: 1 INIT, 2 RTR).
 * st: 3 UD, 7 MLX, 0 RC. For RC: remote_qpn/dlid name the peer. */
struct rawhost_qp_attr {
	unsigned st, port, log_sq, log_rq, to_state;
	uint32_t qkey, cqn_snd, cqn_rcv, remote_qpn;
	uint16_t dlid;
	bool rre, rwe;
};
int rawhost_create_qp(struct rawhost *rh, struct rawhost_qp *qp, uint32_t qpn,
		      const struct rawhost_qp_attr *a);
/* Post a receive: for UD/MLX the first scatter entry is a 40-byte GRH slot. lkey 0 → rh->lkey. */
void rawhost_post_recv(struct rawhost *rh, struct rawhost_qp *qp, uint64_t gpa, uint32_t len,
		       uint32_t lkey);
/* Post a UD send of len bytes at gpa (lkey 0 → rh->lkey) and ring the doorbell. */
struct rawhost_ud_dest {
	uint16_t dlid;
	uint32_t dqpn, qkey;
	bool grh;
	uint8_t dgid[16];
	unsigned sl;
};
void rawhost_post_ud(struct rawhost *rh, struct rawhost_qp *qp, const struct rawhost_ud_dest *d,
		     uint64_t gpa, uint32_t len, uint32_t lkey);
/* Post an RC request: opcode 0x0a SEND, 0x08 RDMA WRITE, 0x10 RDMA READ. */
void rawhost_post_rc(struct rawhost *rh, struct rawhost_qp *qp, unsigned opcode, uint64_t gpa,
		     uint32_t len, uint32_t lkey, uint64_t rva, uint32_t rkey);
/* Post an MLX (QP0/QP1) send: `hdr` holds driver-built LRH..DETH, payload at gpa. */
void rawhost_post_mlx(struct rawhost *rh, struct rawhost_qp *qp, const void *hdr, size_t hdr_len,
		      uint64_t gpa, uint32_t len, bool vl15);

/* Register a memory region (SW2HW_MPT) at MPT index idx: virtual (MTT) unless pa.
 * access: bit0 lr, bit1 lw, bit2 rr, bit3 rw. Returns the HCR status; *key gets the L/R_Key. */
int rawhost_reg_mr(struct rawhost *rh, uint32_t idx, uint64_t gpa, uint64_t va, uint64_t len,
		   unsigned access, bool pa, uint32_t pd, uint32_t *key);

/* SM stand-in through MAD_IFC: SubnSet PortInfo LID (and SM LID) and walk the port to
 * `state` (2 ARMED, 4 ACTIVE: INIT → ARMED → ACTIVE). Returns 0, an HCR status, or -2 if the
 * SMA refused (MAD status != 0). */
int rawhost_mad_ifc(struct rawhost *rh, unsigned port, const uint8_t *mad, uint8_t *resp);
int rawhost_set_port(struct rawhost *rh, unsigned port, uint16_t lid, unsigned state);

/* rawhost_init (default configuration) and rawhost_bringup: 0, -1 or the failing HCR status. */
int rawhost_up(struct rawhost *rh);
/* One model brought up with CQ 130 (2^3 entries) and QP 0x100 (attributes a). Returns 0, -1
 * when the model could not be made, or the first failing HCR status. */
int rawhost_up_with_qp(struct rawhost *rh, struct rawhost_cq *cq, struct rawhost_qp *qp,
		       const struct rawhost_qp_attr *a);

/* Two models cabled port 1 to port 1 and brought up: both ports ACTIVE (LIDs lid_a and lid_b,
 * default 1 and 2), CQ 130 of 2^log_cq entries (log_cq default 3) on each, and with qa QP 0x100
 * on a and QP 0x200 on b (with qb, or qa again). rawhost_pair_up returns 0, -1 when a model could
 * not be made, or the first failing HCR status. */
struct rawhost_pair {
	struct rawhost a, b;
	struct rawhost_cq acq, bcq;
	struct rawhost_qp aqp, bqp;
};
struct rawhost_pair_cfg {
	uint16_t lid_a, lid_b;
	unsigned log_cq;
	const struct rawhost_qp_attr *qa, *qb;
};
int rawhost_pair_up(struct rawhost_pair *p, const struct rawhost_pair_cfg *c);
void rawhost_pair_down(struct rawhost_pair *p);

/* Consume the next EQE if software owns it: returns its event type, -1 if none. */
int rawhost_poll_eq(struct rawhost *rh, uint8_t eqe[32]);

#endif

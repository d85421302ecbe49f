/* SPDX-License-Identifier: MIT */
/* hcasim: diagnostics snapshot, refused-operation log, fault injection on the datapath,
 * catastrophic errors (error buffer at the QUERY_FW offset), CQ arming, event-mode commands. */
#include <stdlib.h>
#include <string.h>

#include <ibboot/hermon_prm.h>

#include "check_helpers.h"
#include "rawhost.h"
#include "test.h"

#define G(st, f, b) hermonprm_##st##_st_get_##f(b)
#define S(st, f, b, v) hermonprm_##st##_st_set_##f((b), (v))

static int one_up(struct rawhost_pair *o)
{
	struct rawhost_qp_attr qa = { .st = 3, .log_sq = 3, .log_rq = 3, .qkey = 9,
				      .cqn_snd = 130, .cqn_rcv = 130 };
	uint8_t eqe[32];
	int st = rawhost_pair_up(o, &(struct rawhost_pair_cfg){ .qa = &qa });

	while (!st && rawhost_poll_eq(&o->a, eqe) >= 0) /* port events of the bring-up */
		;
	return st;
}

static const struct rawhost_ud_dest to_b = { .dlid = 2, .dqpn = 0x200, .qkey = 9 };

TEST(hcasim_diag_snapshot_shows_state_and_contexts)
{
	struct rawhost_pair o;
	size_t need;
	char *buf;

	CHECK_EQ(one_up(&o), 0);
	need = hcasim_diag_snapshot(o.a.h, NULL, 0);
	CHECK(need > 200);
	buf = malloc(need + 1);
	CHECK_EQ(hcasim_diag_snapshot(o.a.h, buf, need + 1), need);
	CHECK(strstr(buf, "HCA initialised") != NULL);
	CHECK(strstr(buf, "HCR:") != NULL);
	CHECK(strstr(buf, "QP 0x100: RTS") != NULL);
	CHECK(strstr(buf, "CQ 0x82") != NULL);
	CHECK(strstr(buf, "MPT 0x10: key 0x77000010") != NULL);
	CHECK(strstr(buf, "port 1: link up, open, state 4, LID 0x1") != NULL);
	CHECK(strstr(buf, "EQ 0x20") != NULL);
	free(buf);
	{
		char small[16];

		CHECK_EQ(hcasim_diag_snapshot(o.a.h, small, sizeof(small)), need);
		CHECK_EQ(strlen(small), 15);
	}
	CHECK_EQ(hcasim_dma_after_close(o.a.h), 0);
	rawhost_pair_down(&o);
}

TEST(hcasim_diag_refused_log_is_newest_first_and_bounded)
{
	struct rawhost rh;

	CHECK_EQ(rawhost_init(&rh, NULL), 0);
	CHECK(hcasim_refused(rh.h, 0) == NULL);
	for (unsigned i = 0; i < 40; i++)
		rawhost_cmd(&rh, 0x7f0 + (i % 8), 0, 0, 0, 0, NULL);
	CHECK_EQ(hcasim_refused_count(rh.h), 40);
	CHECK(strstr(hcasim_refused(rh.h, 0), "0x7f7") != NULL);
	CHECK(strstr(hcasim_refused(rh.h, 1), "0x7f6") != NULL);
	CHECK(hcasim_refused(rh.h, 31) != NULL);
	CHECK(hcasim_refused(rh.h, 32) == NULL);
	CHECK(strstr(rh.last_log, "0x7f7") != NULL);
	rawhost_fini(&rh);
}

TEST(hcasim_diag_corrupt_next_cqe)
{
	struct rawhost_pair o;
	uint8_t cqe[32];
	uint64_t tx;

	CHECK_EQ(one_up(&o), 0);
	tx = rawhost_alloc(&o.a, 64, 64);
	hcasim_fault_corrupt_next_cqe(o.a.h);
	rawhost_post_ud(&o.a, &o.aqp, &to_b, tx, 8, 0);
	rawhost_post_ud(&o.a, &o.aqp, &to_b, tx, 8, 0);
	rawhost_run(&o.a, &o.b);
	expect_cqe(&o.a, &o.acq, cqe, 0x1f);
	expect_cqe(&o.a, &o.acq, cqe, 0x0a);
	rawhost_pair_down(&o);
}

TEST(hcasim_diag_link_drop_and_no_receive_wqe)
{
	struct rawhost_pair o;
	struct hcasim_port_stats st;
	uint64_t tx;

	CHECK_EQ(one_up(&o), 0);
	tx = rawhost_alloc(&o.a, 64, 64);
	/* no receive posted at B: the datagram is dropped and counted */
	rawhost_post_ud(&o.a, &o.aqp, &to_b, tx, 8, 0);
	rawhost_run(&o.a, &o.b);
	CHECK_EQ(hcasim_port_stats(o.b.h, 1, &st), 0);
	CHECK_EQ(st.rx_no_wqe, 1);
	CHECK_EQ(st.rx_packets, 1);
	/* link dropped under traffic: B's port goes DOWN, arriving packets are lost */
	hcasim_port_set_link(o.b.h, 1, false);
	expect_ud_dropped(&o, &to_b, tx, &st);
	CHECK_EQ(st.rx_link_down, 1);
	rawhost_pair_down(&o);
}

TEST(hcasim_diag_catastrophic_error_on_unmapped_icm)
{
	struct rawhost_pair o;
	uint8_t fw[256], d[4];
	uint64_t tx;

	CHECK_EQ(one_up(&o), 0);
	CHECK_EQ(rawhost_cmd_mbox(&o.a, 0x004, 0, 0, NULL, 0, fw, sizeof(fw), NULL), 0);
	hcasim_bar_read(o.a.h, 0, G(query_fw, error_buf_offset_l, fw), d, 4);
	CHECK_EQ(hermonprm_load_dword(d, 0), 0);
	/* the driver pulls the CQC table out from under a live CQ */
	CHECK_EQ(rawhost_cmd(&o.a, 0xff9, 0, o.a.cqc.va, (uint32_t)(o.a.cqc.bytes / 4096), 0, NULL), 0);
	tx = rawhost_alloc(&o.a, 64, 64);
	rawhost_post_ud(&o.a, &o.aqp, &to_b, tx, 8, 0);
	rawhost_run(&o.a, &o.b);
	hcasim_bar_read(o.a.h, 0, G(query_fw, error_buf_offset_l, fw), d, 4);
	CHECK(hermonprm_load_dword(d, 0) != 0);
	{
		uint8_t eqe[32];

		CHECK_EQ(rawhost_poll_eq(&o.a, eqe), 0x08); /* local catastrophic error */
	}
	CHECK_EQ(rawhost_cmd(&o.a, 0x031, 0, 0, 0, 0, NULL), 0x01);
	CHECK_EQ(rawhost_cmd_mbox(&o.a, 0x004, 0, 0, NULL, 0, fw, sizeof(fw), NULL), 0);
	CHECK_EQ(rawhost_reset(&o.a), 0);
	CHECK_EQ(rawhost_bringup(&o.a), 0);
	rawhost_pair_down(&o);
}

TEST(hcasim_diag_cq_arm_gives_completion_event)
{
	struct rawhost_pair o;
	uint8_t db[8], eqe[32], cqe[32];
	uint64_t tx;

	CHECK_EQ(one_up(&o), 0);
	tx = rawhost_alloc(&o.a, 64, 64);
	/* arm (request notification, any completion) at consumer index 0 */
	S(cq_cmd_doorbell, cqn, db, 130);
	S(cq_cmd_doorbell, cmd, db, 2);
	S(cq_cmd_doorbell, cq_param, db, 0);
	hcasim_bar_write(o.a.h, 2, 128 * 4096 + 0x20, db, 8);
	CHECK_EQ(rawhost_poll_eq(&o.a, eqe), -1);
	rawhost_post_ud(&o.a, &o.aqp, &to_b, tx, 8, 0);
	rawhost_run(&o.a, &o.b);
	CHECK_EQ(rawhost_poll_eq(&o.a, eqe), 0x00);
	CHECK_EQ(G(completion_event, cqn, eqe + 4), 130);
	/* fired: the next completion makes no event until re-armed */
	rawhost_post_ud(&o.a, &o.aqp, &to_b, tx, 8, 0);
	rawhost_run(&o.a, &o.b);
	CHECK_EQ(rawhost_poll_eq(&o.a, eqe), -1);
	/* re-arm with completions outstanding (ci 0, two CQEs): fires at once; two dword writes */
	hcasim_bar_write(o.a.h, 2, 128 * 4096 + 0x20, db, 4);
	hcasim_bar_write(o.a.h, 2, 128 * 4096 + 0x24, db + 4, 4);
	CHECK_EQ(rawhost_poll_eq(&o.a, eqe), 0x00);
	CHECK_EQ(rawhost_poll_cq(&o.a, &o.acq, cqe), 1);
	rawhost_pair_down(&o);
}

TEST(hcasim_diag_event_mode_command_completion)
{
	struct rawhost rh;
	uint8_t r[28] = { 0 }, eqe[32];

	CHECK_EQ(rawhost_up(&rh), 0);
	S(hca_command_register, opcode, r, 0x031);
	S(hca_command_register, token, r, 0xbeef);
	S(hca_command_register, e, r, 1);
	S(hca_command_register, go, r, 1);
	for (unsigned i = 0; i < 7; i++)
		hcasim_bar_write(rh.h, 0, 0x80680 + 4 * i, r + 4 * i, 4);
	CHECK_EQ(rawhost_poll_eq(&rh, eqe), 0x0a);
	CHECK_EQ(G(hcr_completion_event, token, eqe + 4), 0xbeef);
	CHECK_EQ(G(hcr_completion_event, status, eqe + 4), 0);
	rawhost_fini(&rh);
}

TEST(hcasim_diag_eq_overrun_drops_events)
{
	struct rawhost rh;
	uint8_t eqe[32];
	unsigned n = 0;

	CHECK_EQ(rawhost_up(&rh), 0);
	/* ten port up/down events into an 8-entry EQ nobody consumes */
	for (unsigned i = 0; i < 5; i++) {
		hcasim_port_set_link(rh.h, 1, true);
		CHECK_EQ(rawhost_set_port(&rh, 1, 3, 4), 0);
		hcasim_port_set_link(rh.h, 1, false);
	}
	while (rawhost_poll_eq(&rh, eqe) >= 0)
		n++;
	CHECK_EQ(n, 8);
	CHECK(strstr(hcasim_refused(rh.h, 0), "overrun") != NULL);
	rawhost_fini(&rh);
}

TEST(hcasim_diag_receive_fifo_limits)
{
	struct rawhost rh;
	struct hcasim_port_stats st;
	static uint8_t big[5000];

	CHECK_EQ(rawhost_up(&rh), 0);
	hcasim_packet_in(rh.h, 1, big, 100); /* no link yet */
	hcasim_port_set_link(rh.h, 1, true);
	hcasim_packet_in(rh.h, 1, big, sizeof(big));
	for (unsigned i = 0; i < 300; i++)
		hcasim_packet_in(rh.h, 1, big, 64);
	hcasim_packet_in(rh.h, 9, big, 64);
	CHECK_EQ(hcasim_port_stats(rh.h, 1, &st), 0);
	CHECK_EQ(st.rx_link_down, 1);
	CHECK_EQ(st.rx_bad_hdr, 1 + 300 - 256);
	rawhost_run(&rh, NULL);
	CHECK_EQ(hcasim_port_stats(rh.h, 1, &st), 0);
	CHECK_EQ(st.rx_bad_hdr, 1 + 300 - 256 + 256); /* all-zero packets fail to parse */
	rawhost_fini(&rh);
}

TEST(hcasim_diag_armed_eq_raises_its_vector_once)
{
	struct rawhost rh;
	uint8_t db[4], eqe[32];

	CHECK_EQ(rawhost_up(&rh), 0);
	CHECK_EQ(hcasim_irq_next(rh.h), -1);
	/* arm EQ 32 (consumer index 0, a = 1); its EQC says vector 0 */
	hermonprm_store_dword(db, 0, 0);
	S(event_db_register, a, db, 1);
	hcasim_bar_write(rh.h, 2, (RAWHOST_EQN / 4) * 4096 + 0x800 + 8 * (RAWHOST_EQN % 4), db, 4);
	CHECK_EQ(hcasim_irq_next(rh.h), -1);
	hcasim_port_set_link(rh.h, 1, true);
	CHECK_EQ(rawhost_set_port(&rh, 1, 3, 4), 0); /* port events */
	CHECK_EQ(hcasim_irq_next(rh.h), 0);
	CHECK_EQ(hcasim_irq_next(rh.h), -1);           /* once: not re-armed */
	CHECK(rawhost_poll_eq(&rh, eqe) >= 0);         /* consumes one, doorbell without a */
	/* re-arm while EQEs are still waiting: fires at once */
	hermonprm_store_dword(db, 0, rh.eq_ci);
	S(event_db_register, a, db, 1);
	hcasim_bar_write(rh.h, 2, (RAWHOST_EQN / 4) * 4096 + 0x800 + 8 * (RAWHOST_EQN % 4), db, 4);
	CHECK_EQ(hcasim_irq_next(rh.h), 0);
	rawhost_fini(&rh);
}

/* SPDX-License-Identifier: MIT */
/*
 * The HCA self-test (hermon_selftest.c) on the model: every step passes on a healthy HCA whose
 * ports an SM activated and whose SA answers, leaving the driver's allocators and the model's
 * memory as they were; and each step FAILS, with its reason, under a model fault aimed at it
 * (util/hcasim/faults.c and the older knobs), while the steps before it still pass.
 *
 * The SA: port 2 gets LID 1, the SM LID both ports are told, and its GSI QP is handed to a tiny
 * SA here that answers PathRecord Gets - so port 1's query crosses the rig's cable, and the
 * answer comes back from LID 1 QP 1 as the real SA's does.
 */
#include <stdio.h>
#include "test.h"
#include <ibboot/byteorder.h>
#include <ibboot/errno.h>
#include <ibboot/hermon_prm.h>
#include <ibboot/ib.h>
#include <ibboot/ib_mad.h>
#include <ibboot/shell.h>
#include <ibboot/wire/mad.h>
#include "hermon_rig.h"
#include "hermon_selftest.h"

SHELL_REQUIRE_COMMAND(selftest);

enum { STEP_FW, STEP_CMD, STEP_MPT, STEP_WRAP, STEP_LOOP, STEP_MCAST, STEP_SM };

/* PRM opcodes the faults aim at (hermon.h names them the driver's way). */
#define OP(x) ((int)HERMON_CMD_##x)

static unsigned sa_answered;

/* The SA: a PathRecord Get gets a GetResp with a path to the DGID it asked for. */
static void fake_sa_recv(struct ib_qp *qp, const struct ib_wc *wc, const uint8_t *grh,
			 uint8_t *data, size_t len)
{
	struct iblib_path_record pr;
	struct ib_address_vector av = { .qpn = wc->src_qpn, .qkey = IB_GSI_QKEY,
					.lid = wc->slid };
	struct ib_buf *b;

	(void)grh;
	if (len < IB_MAD_SIZE || data[1] != IBLIB_MCLASS_SUBN_ADM || data[3] != IBLIB_METHOD_GET ||
	    get_be16(data + 16) != IBLIB_SA_ATTR_PATH_RECORD || !(b = ib_send_buf_get(qp)))
		return;
	memcpy(b->va, data, IB_MAD_SIZE);
	((uint8_t *)b->va)[3] = IBLIB_METHOD_GET_RESP;
	iblib_path_record_get(data + IBLIB_SA_DATA_OFF, &pr);
	pr.dlid = wc->slid;
	pr.slid = wc->slid;
	pr.mtu = IB_MTU_2048;
	pr.rate = 3;
	pr.hop_limit = 0;
	iblib_path_record_put((uint8_t *)b->va + IBLIB_SA_DATA_OFF, &pr);
	if (ib_post_send(qp, &av, b, IB_MAD_SIZE, NULL) == 0)
		sa_answered++;
}

static const struct ib_qp_owner_ops fake_sa = { .recv = fake_sa_recv };

/* Rig up, both ports ACTIVE (port 1 LID 0x11, port 2 LID 1 = the SM's), the SA on port 2. */
static int setup(struct rig *r, bool with_sa)
{
	struct ib_device *dev = &r->h.ib;

	if (rig_up(r) != 0)
		return -EIO;
	rig_poll(r, 3);
	if (rig_sm_set_port(dev, 1, 0x11, false) || rig_sm_set_port(dev, 2, 0x01, false))
		return -EIO;
	rig_poll(r, 3);
	if (dev->port[0].attr.state != IB_PORT_ACTIVE || !dev->port[1].mad)
		return -EIO;
	if (with_sa)
		dev->port[1].mad->qp->owner = &fake_sa;
	sa_answered = 0;
	rig_log_clear();
	return 0;
}

/* The byte of a PRM structure's field (the lowest-order byte of its value), found with the
 * generated setter: no hand-computed offsets. */
#define FIELD_BYTE(st, field, bytes) ({                                                  \
	uint8_t z_[bytes] = { 0 };                                                       \
	unsigned b_ = 0;                                                                 \
	hermonprm_##st##_st_set_##field(z_, 1);                                          \
	while (b_ < (bytes) && !z_[b_])                                                  \
		b_++;                                                                    \
	b_; })

static bool has(const struct hermon_selftest_result *res, unsigned step, const char *s)
{
	return strstr(res->step[step].detail, s) != NULL;
}

/* Steps before `step` passed, `step` failed with `why` in its reason. */
static void check_fails_at(const struct hermon_selftest_result *res, unsigned step,
			   const char *why)
{
	for (unsigned i = 0; i < step; i++)
		CHECK_EQ(res->step[i].verdict, HERMON_SELFTEST_OK);
	CHECK_EQ(res->step[step].verdict, HERMON_SELFTEST_FAIL);
	if (!has(res, step, why))
		test_fail(__FILE__, __LINE__, "step %u says \"%s\", expected \"%s\"", step + 1,
			  res->step[step].detail, why);
	CHECK(res->failed >= 1);
}

static unsigned count_cqs(const struct ib_device *dev)
{
	unsigned n = 0;

	for (const struct ib_cq *cq = dev->cqs; cq; cq = cq->next)
		n++;
	return n;
}

/* Contexts the model holds in hardware ownership (its diagnostics snapshot: one line each). */
static unsigned hw_contexts(struct hcasim *sim, const char *prefix)
{
	static char snap[1 << 16];
	unsigned n = 0;

	hcasim_diag_snapshot(sim, snap, sizeof(snap));
	for (const char *l = snap; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		n += strncmp(l, prefix, strlen(prefix)) == 0;
	return n;
}

static void print_result(const struct hermon_selftest_result *res)
{
	char text[2048];

	hermon_selftest_format(res, text, sizeof(text));
	printf("%s", text);
}

TEST(hermon_selftest_healthy_every_step_ok_nothing_leaked)
{
	struct hermon_selftest_result res;
	struct hcasim_mem_usage mem0, mem1;
	struct rig r;
	uint8_t mtt0[sizeof(r.h.mtt_inuse)], cq0[sizeof(r.h.cq_inuse)], qp0[sizeof(r.h.qp_inuse)];
	unsigned hw_events0, cqs0;

	CHECK_EQ(setup(&r, true), 0);
	hcasim_mem_usage(r.sim, &mem0);
	memcpy(mtt0, r.h.mtt_inuse, sizeof(mtt0));
	memcpy(cq0, r.h.cq_inuse, sizeof(cq0));
	memcpy(qp0, r.h.qp_inuse, sizeof(qp0));
	hw_events0 = r.h.eq.events;
	cqs0 = count_cqs(&r.h.ib);
	unsigned hw_cqs0 = hw_contexts(r.sim, "CQ 0x"), hw_qps0 = hw_contexts(r.sim, "QP 0x");
	unsigned hw_mpts0 = hw_contexts(r.sim, "MPT 0x"), refused0 = hcasim_refused_count(r.sim);

	CHECK(hw_cqs0 > 0 && hw_qps0 > 0 && hw_mpts0 == 1);

	CHECK_EQ(hermon_selftest_run(&r.h, 1, &res), 0);
	print_result(&res);
	for (unsigned i = 0; i < HERMON_SELFTEST_STEPS; i++)
		if (res.step[i].verdict != HERMON_SELFTEST_OK)
			test_fail(__FILE__, __LINE__, "step %u (%s): %s", i + 1, res.step[i].name,
				  res.step[i].detail);
	CHECK_EQ(res.passed, 7);
	CHECK_EQ(res.failed, 0);
	CHECK(!res.leaked);
	CHECK(has(&res, STEP_FW, "2.42.5000, command interface 3, error buffer clear"));
	CHECK(has(&res, STEP_WRAP, "34 events over 16-entry EQ, 9 completions over 4-entry CQ"));
	CHECK(has(&res, STEP_LOOP, "256 bytes LID 0x0011"));
	CHECK(has(&res, STEP_SM, "LID 0x0011; SM LID 0x0001 answered PathRecord in "));
	CHECK_EQ(sa_answered, 1);
	CHECK(r.h.eq.events - hw_events0 >= 34);
	CHECK(!strstr(rig_log(), "failed"));   /* nothing else complained */

	/* As it found it: the driver's allocators, the core's objects, the model's memory. */
	hcasim_mem_usage(r.sim, &mem1);
	CHECK_EQ(mem1.total, mem0.total);
	CHECK_MEM(r.h.mtt_inuse, mtt0, sizeof(mtt0));
	CHECK_MEM(r.h.cq_inuse, cq0, sizeof(cq0));
	CHECK_MEM(r.h.qp_inuse, qp0, sizeof(qp0));
	CHECK_EQ(count_cqs(&r.h.ib), cqs0);
	/* ... and the model's own counters: contexts in hardware ownership, refused operations. */
	CHECK_EQ(hw_contexts(r.sim, "CQ 0x"), hw_cqs0);
	CHECK_EQ(hw_contexts(r.sim, "QP 0x"), hw_qps0);
	CHECK_EQ(hw_contexts(r.sim, "MPT 0x"), hw_mpts0);
	CHECK_EQ(hcasim_refused_count(r.sim), refused0);

	/* ... so it runs again, the same. */
	CHECK_EQ(hermon_selftest_run(&r.h, 1, &res), 0);
	CHECK_EQ(res.passed, 7);
	CHECK_EQ(sa_answered, 2);
	rig_destroy(&r);
}

TEST(hermon_selftest_console_command)
{
	const struct shell_command *c = shell_find_command("selftest");
	char a0[] = "selftest", a1[] = "--port", a2[] = "1", bad[] = "3", eq[] = "--port=2";
	char *argv[] = { a0, a1, a2 }, *argv_bad[] = { a0, a1, bad }, *argv_eq[] = { a0, eq };
	struct rig r;

	CHECK(c != NULL);
	if (!c)
		return;
	rig_set_quiet(true);
	rig_log_clear();
	CHECK_EQ(c->run(1, argv), -ENODEV);   /* no HCA registered */
	CHECK(strstr(rig_log(), "selftest: no Hermon HCA registered") != NULL);

	CHECK_EQ(setup(&r, true), 0);
	CHECK_EQ(c->run(3, argv), 0);
	CHECK(strstr(rig_log(), "selftest hermon 0000:01:00.0 port 1\n") != NULL);
	CHECK(strstr(rig_log(), "  1 firmware           ok (2.42.5000, command interface 3") != NULL);
	CHECK(strstr(rig_log(), "selftest: 7 passed, 0 failed in ") != NULL);
	CHECK(strstr(rig_log(), " ms; nothing leaked\n") != NULL);
	rig_log_clear();
	CHECK_EQ(c->run(3, argv_bad), -EINVAL);
	CHECK(strstr(rig_log(), "usage: selftest [--port N]") == NULL);   /* a number, no port */
	CHECK(strstr(rig_log(), "has no port 3 (2 ports)") != NULL);
	rig_log_clear();
	c->run(2, argv_eq);   /* port 2 holds the fake SA's QP1: only which port ran matters */
	CHECK(strstr(rig_log(), "selftest hermon 0000:01:00.0 port 2\n") != NULL);
	rig_log_clear();
	CHECK_EQ(c->run(2, (char *[]){ a0, a1 }), -EINVAL);
	CHECK(strstr(rig_log(), "usage: selftest [--port N]") != NULL);
	rig_destroy(&r);
}

TEST(hermon_selftest_step1_firmware_faults)
{
	struct hermon_selftest_result res;
	struct rig r;

	CHECK_EQ(setup(&r, true), 0);
	hcasim_fault_fail_cmd(r.sim, OP(QUERY_FW), 0x01);
	CHECK_EQ(hermon_selftest_run(&r.h, 1, &res), -EIO);
	hcasim_fault_fail_cmd(r.sim, -1, 0);
	check_fails_at(&res, STEP_FW, "QUERY_FW failed: status 0x01 (internal error)");
	CHECK_EQ(res.step[STEP_CMD].verdict, HERMON_SELFTEST_OK);   /* the rest still runs */
	CHECK_EQ(res.passed, 6);

	/* QUERY_FW answers, with a command interface revision the driver does not speak. */
	hcasim_fault_corrupt_output(r.sim, OP(QUERY_FW), 0,
				    FIELD_BYTE(query_fw, cmd_interface_rev, HERMONPRM_QUERY_FW_ST_BYTES),
				    0x04);
	CHECK_EQ(hermon_selftest_run(&r.h, 1, &res), -EIO);
	print_result(&res);
	check_fails_at(&res, STEP_FW, "command interface 7 (expected 3, supported 2..3)");
	rig_destroy(&r);
}

TEST(hermon_selftest_step1_catastrophic_error_buffer)
{
	struct hermon_selftest_result res;
	struct rig_pair p;
	struct rig r;

	/* A CQ ring the HCA cannot write: the model declares a catastrophic error and fills its
	 * error buffer. The EQ is not polled before the run, so only the buffer tells. */
	CHECK_EQ(setup(&r, true), 0);
	CHECK_EQ(rig_make_pair(&r.h.ib, &p), 0);
	if (!p.qb) {
		rig_destroy(&r);
		return;
	}
	struct hermon_cq *hcqb = p.cqb->drv_priv;

	r.dma_fail_lo = (uint64_t)(uintptr_t)hcqb->cqe;
	r.dma_fail_hi = r.dma_fail_lo + hcqb->cqe_len;
	CHECK_EQ(rig_send(p.qa, &p.to_b, "x", 1), 0);
	rig_step(&r);
	CHECK(!r.h.catastrophic);
	CHECK_EQ(hermon_selftest_run(&r.h, 1, &res), -EIO);
	print_result(&res);
	check_fails_at(&res, STEP_FW, "error buffer dword 0 = 0x");
	CHECK(has(&res, STEP_FW, ": fwdump, then reset HCA"));
	CHECK_EQ(res.passed, 0);
	CHECK_EQ(res.skipped, 6);   /* nothing more is asked of a dead HCA */
	CHECK(has(&res, STEP_SM, "catastrophic error: fwdump, then reset HCA"));
	r.dma_fail_lo = r.dma_fail_hi = 0;
	rig_destroy(&r);
}

TEST(hermon_selftest_step2_command_timeout)
{
	struct hermon_selftest_result res;
	struct rig r;

	CHECK_EQ(setup(&r, true), 0);
	/* Step 1's NOP and three of step 2's complete; the fourth never does. */
	hcasim_fault_timeout_after(r.sim, OP(NOP), 4);
	CHECK_EQ(hermon_selftest_run(&r.h, 1, &res), -EIO);
	hcasim_fault_timeout_after(r.sim, -1, 0);
	print_result(&res);
	check_fails_at(&res, STEP_CMD, "NOP 4 of 16: NOP timed out (10 s): reset HCA");
	for (unsigned i = STEP_MPT; i < HERMON_SELFTEST_STEPS; i++) {
		CHECK_EQ(res.step[i].verdict, HERMON_SELFTEST_SKIP);
		CHECK(has(&res, i, "HCR stuck: reset HCA"));
	}
	CHECK_EQ(res.skipped, 5);
	CHECK(r.h.hcr_stuck);
	rig_destroy(&r);   /* the reset brings it back */
}

TEST(hermon_selftest_step3_mpt_faults)
{
	struct hermon_selftest_result res;
	struct rig r;

	CHECK_EQ(setup(&r, true), 0);
	/* What QUERY_MPT reads back is not what SW2HW_MPT wrote (the start address's low byte). */
	hcasim_fault_corrupt_output(r.sim, OP(QUERY_MPT), 0,
				    FIELD_BYTE(mpt, start_addr_l, HERMONPRM_MPT_ST_BYTES), 0x80);
	CHECK_EQ(hermon_selftest_run(&r.h, 1, &res), -EIO);
	print_result(&res);
	check_fails_at(&res, STEP_MPT, "dword 5: wrote 0x");
	CHECK(!res.leaked);
	CHECK_EQ(res.passed, 6);

	hcasim_fault_fail_cmd(r.sim, OP(SW2HW_MPT), 0x0a);
	CHECK_EQ(hermon_selftest_run(&r.h, 1, &res), -EIO);
	hcasim_fault_fail_cmd(r.sim, -1, 0);
	check_fails_at(&res, STEP_MPT, "SW2HW_MPT failed: status 0x0a (bad index)");
	CHECK(!res.leaked);

	/* The hardware keeps the MPT: its MTT entry must stay allocated, and the run says so. */
	hcasim_fault_fail_cmd(r.sim, OP(HW2SW_MPT), 0x09);
	CHECK_EQ(hermon_selftest_run(&r.h, 1, &res), -EIO);
	hcasim_fault_fail_cmd(r.sim, -1, 0);
	check_fails_at(&res, STEP_MPT, "HW2SW_MPT failed: status 0x09");
	CHECK(res.leaked);
	CHECK_STR(res.leak, "MTT");
	rig_destroy(&r);
}

TEST(hermon_selftest_step4_owner_bit_stuck)
{
	struct hermon_selftest_result res;
	struct rig r;

	CHECK_EQ(setup(&r, true), 0);
	hcasim_fault_owner_stuck(r.sim, true, false);
	CHECK_EQ(hermon_selftest_run(&r.h, 1, &res), -EIO);
	print_result(&res);
	check_fails_at(&res, STEP_WRAP, " of 34 not seen in 100 ms (entry ");
	CHECK(has(&res, STEP_WRAP, "of 16, lap "));
	CHECK(has(&res, STEP_WRAP, "owner bit not flipped"));
	rig_destroy(&r);

	CHECK_EQ(setup(&r, true), 0);
	hcasim_fault_owner_stuck(r.sim, false, true);
	CHECK_EQ(hermon_selftest_run(&r.h, 1, &res), -EIO);
	print_result(&res);
	check_fails_at(&res, STEP_WRAP, "completion 5 of 9 not seen");
	CHECK(has(&res, STEP_WRAP, "(entry 0 of 4, lap 2): owner bit not flipped"));
	rig_destroy(&r);

	/* A CQE the driver cannot read as a send completion is a failure with its opcode. */
	CHECK_EQ(setup(&r, true), 0);
	hcasim_fault_corrupt_next_cqe(r.sim);
	CHECK_EQ(hermon_selftest_run(&r.h, 1, &res), -EIO);
	check_fails_at(&res, STEP_WRAP, "send 1 of 9 failed: CQE opcode 0x1f");
	rig_destroy(&r);
}

TEST(hermon_selftest_step5_loopback_payload_damaged)
{
	struct hermon_selftest_result res;
	struct rig r;

	CHECK_EQ(setup(&r, true), 0);
	hcasim_fault_corrupt_ud_payload(r.sim, true);
	CHECK_EQ(hermon_selftest_run(&r.h, 1, &res), -EIO);
	hcasim_fault_corrupt_ud_payload(r.sim, false);
	print_result(&res);
	check_fails_at(&res, STEP_LOOP, "byte 128: sent 0x");
	CHECK_EQ(res.step[STEP_SM].verdict, HERMON_SELFTEST_OK);
	CHECK(!res.leaked);
	rig_destroy(&r);
}

TEST(hermon_selftest_step6_multicast_faults)
{
	struct hermon_selftest_result res;
	struct rig r;

	CHECK_EQ(setup(&r, true), 0);
	hcasim_fault_fail_cmd(r.sim, OP(WRITE_MCG), 0x05);
	CHECK_EQ(hermon_selftest_run(&r.h, 1, &res), -EIO);
	hcasim_fault_fail_cmd(r.sim, -1, 0);
	print_result(&res);
	check_fails_at(&res, STEP_MCAST, "attach: WRITE_MCG failed: status 0x05 (bad resource)");
	CHECK_EQ(res.step[STEP_SM].verdict, HERMON_SELFTEST_OK);

	/* The entry read back (the attach read the bucket once) names another QP. */
	hcasim_fault_corrupt_output(r.sim, OP(READ_MCG), 1,
				    HERMONPRM_MCG_HDR_ST_BYTES +
				    FIELD_BYTE(mcg_qp_dw, qpn, HERMONPRM_MCG_QP_DW_ST_BYTES), 0x01);
	CHECK_EQ(hermon_selftest_run(&r.h, 1, &res), -EIO);
	print_result(&res);
	check_fails_at(&res, STEP_MCAST, "not in MCG after attach");
	CHECK(!res.leaked);
	rig_destroy(&r);
}

TEST(hermon_selftest_step7_no_sm_no_sa)
{
	struct hermon_selftest_result res;
	struct rig r;

	/* Port ACTIVE, nobody answers at the SM's LID: the SA query times out. */
	CHECK_EQ(setup(&r, false), 0);
	CHECK_EQ(hermon_selftest_run(&r.h, 1, &res), -EIO);
	print_result(&res);
	check_fails_at(&res, STEP_SM, "no PathRecord from SM LID 0x0001 in 1500 ms");
	CHECK(!res.leaked);
	rig_destroy(&r);

	/* No SM at all: the port stays INIT (link up), and the run says so. */
	CHECK_EQ(rig_up(&r), 0);
	rig_poll(&r, 3);
	CHECK_EQ(hermon_selftest_run(&r.h, 1, &res), -EIO);
	print_result(&res);
	CHECK_EQ(res.step[STEP_SM].verdict, HERMON_SELFTEST_FAIL);
	CHECK(has(&res, STEP_SM, "port 1 is INIT (LinkUp): no SM: is one running?"));
	CHECK(has(&res, STEP_LOOP, "port 1 is INIT (LID 0x0000), not ACTIVE"));
	CHECK_EQ(res.passed, 5);
	rig_destroy(&r);
}

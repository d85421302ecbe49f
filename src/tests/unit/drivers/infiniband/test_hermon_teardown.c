/* SPDX-License-Identifier: MIT */
/*
 * Teardown when the HCA does not let go, against the in-process model: a QP the firmware will not
 * move to RESET, a CQ or EQ it will not give back, a final reset that never completes. Whatever
 * the HCA may still write must stay allocated (the rig's DMA accounting says so) and must not be
 * handed out again until a reset works; bus mastering is off after every reset; the PCI remove
 * reports a device it could not stop.
 */
#include <stdio.h>
#include <stdlib.h>
#include "test.h"
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/timer.h>
#include "hermon_ib.h"
#include "hermon_rig.h"

static bool log_has(const char *s) { return strstr(rig_log(), s) != NULL; }

static bool bus_master_on(struct rig *r)
{
	return hcasim_cfg_read(r->sim, PCI_COMMAND, 2) & PCI_COMMAND_MASTER;
}

/* n allocations of size bytes: none may land in [p, p+len). Frees them again. */
static bool fresh_allocations_avoid(const void *p, size_t len, size_t size, unsigned n)
{
	const uint8_t *lo = p, *hi = lo + len;
	void *got[64];
	bool ok = true;

	if (n > 64)
		n = 64;
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *b = got[i] = dma_alloc(size, 64);

		if (b && b < hi && b + size > lo)
			ok = false;
	}
	for (unsigned i = 0; i < n; i++)
		dma_free(got[i], size);
	return ok;
}

static const struct ib_qp_config ud_cfg = {
	.type = IB_QPT_UD, .qkey = 0x1234, .send_wqes = 4, .recv_wqes = 4, .recv_payload = 512,
	.send_bufs = 4, .send_buf_size = 512, .owner = &rig_owner,
};

/* 2RST refused: the core keeps the receive ring and the send pool (the HCA may still write
 * them), the driver keeps the WQE ring; none of it comes back from the allocator; a reset that
 * works releases all of it. */
TEST(hermon_teardown_failed_2rst_keeps_qp_buffers_until_reset)
{
	struct ib_qp_config cfg = ud_cfg;
	struct rig r;

	CHECK_EQ(rig_up(&r), 0);
	struct ib_cq *cq = ib_create_cq(&r.h.ib, 16);

	CHECK(cq != NULL);
	cfg.send_cq = cfg.recv_cq = cq;
	struct ib_qp *qp = ib_create_qp(&r.h.ib.port[0], &cfg);

	CHECK(qp != NULL);
	if (!qp) {
		rig_destroy(&r);
		return;
	}
	struct hermon_qp *hqp = qp->drv_priv;
	void *recv = qp->recv_bufs[0].va, *send = qp->send_bufs[0].va, *ring = hqp->wqe;
	size_t recv_len = qp->recv.num_wqes * 512, ring_len = hqp->wqe_len;
	uint64_t live_before = rig_dma_live_bytes();

	rig_log_clear();
	hcasim_fault_fail_cmd(r.sim, HERMON_CMD_2RST_QP, 0x03);
	ib_destroy_qp(qp);
	hcasim_fault_fail_cmd(r.sim, -1, 0);
	CHECK(log_has("did not stop"));
	CHECK(rig_dma_live(recv, recv_len));
	CHECK(rig_dma_live(send, 512));
	CHECK(rig_dma_live(ring, ring_len));
	CHECK_EQ(rig_dma_live_bytes(), live_before);
	CHECK(ib_device_quarantined_bytes(&r.h.ib) >= recv_len + 4 * 512);
	CHECK(r.h.orphan_qps == hqp);
	CHECK(fresh_allocations_avoid(recv, recv_len, 512, 32));

	/* The reset that works gives it all back. */
	hermon_ib_unregister(&r.h);
	r.registered = false;
	hermon_quiesce(&r.h);
	CHECK(hcasim_quiesced(r.sim));
	CHECK_EQ(ib_device_quarantined_bytes(&r.h.ib), 0);
	CHECK(r.h.orphan_qps == NULL);
	CHECK(rig_dma_live_bytes() < live_before);
	rig_destroy(&r);
}

/* The HCA still owns the QP after the refused 2RST: a datagram to it lands in the receive ring,
 * which must still be the core's memory (without the quarantine, freed memory). */
TEST(hermon_teardown_hca_writes_into_a_quarantined_ring)
{
	static const char msg[] = "late datagram for a QP that did not stop";
	struct rig r;
	struct rig_pair p;

	CHECK_EQ(rig_up(&r), 0);
	CHECK_EQ(rig_sm_set_port(&r.h.ib, 1, 0x11, false), 0);
	CHECK_EQ(rig_sm_set_port(&r.h.ib, 2, 0x22, false), 0);
	rig_poll(&r, 3);
	if (rig_make_pair(&r.h.ib, &p) != 0) {
		test_fail(__FILE__, __LINE__, "no QP pair");
		rig_destroy(&r);
		return;
	}
	uint8_t *ring = p.qb->recv_bufs[0].va;
	size_t ring_len = p.qb->recv.num_wqes * (size_t)ALIGN_UP(p.qb->recv_bufs[0].len, 64);

	memset(ring, 0, ring_len);
	hcasim_fault_fail_cmd(r.sim, HERMON_CMD_2RST_QP, 0x03);
	ib_destroy_qp(p.qb);
	hcasim_fault_fail_cmd(r.sim, -1, 0);
	if (!rig_dma_live(ring, ring_len)) {
		/* Sending now would have the model write into freed memory. */
		test_fail(__FILE__, __LINE__, "the receive ring of a QP not in RESET was freed");
		rig_destroy(&r);
		return;
	}
	CHECK_EQ(rig_send(p.qa, &p.to_b, msg, sizeof(msg)), 0);
	rig_poll(&r, 3);
	CHECK(memmem(ring, ring_len, msg, sizeof(msg)) != NULL);   /* the HCA did write it */
	CHECK_EQ(p.gb.recvs, 0);                                  /* nobody was told */
	rig_destroy(&r);
}

/* HW2SW_CQ refused: the CQE ring and doorbell record stay allocated until the reset. */
TEST(hermon_teardown_failed_hw2sw_cq_keeps_the_ring)
{
	struct rig r;

	CHECK_EQ(rig_up(&r), 0);
	struct ib_cq *cq = ib_create_cq(&r.h.ib, 16);

	CHECK(cq != NULL);
	if (!cq) {
		rig_destroy(&r);
		return;
	}
	struct hermon_cq *hcq = cq->drv_priv;
	void *cqe = hcq->cqe, *db = hcq->doorbell;
	size_t cqe_len = hcq->cqe_len;

	hcasim_fault_fail_cmd(r.sim, HERMON_CMD_HW2SW_CQ, 0x03);
	ib_destroy_cq(cq);
	hcasim_fault_fail_cmd(r.sim, -1, 0);
	CHECK(rig_dma_live(cqe, cqe_len));
	CHECK(rig_dma_live(db, 8));
	CHECK(r.h.orphan_cqs == hcq);
	CHECK(fresh_allocations_avoid(cqe, cqe_len, cqe_len, 16));
	hermon_ib_unregister(&r.h);
	r.registered = false;
	hermon_quiesce(&r.h);
	CHECK(r.h.orphan_cqs == NULL);
	CHECK(hcasim_quiesced(r.sim));
	rig_destroy(&r);
}

/* HW2SW_EQ refused at quiesce: the EQ ring waits for the reset, which frees it. */
TEST(hermon_teardown_failed_hw2sw_eq_keeps_the_ring_until_reset)
{
	struct rig r;

	CHECK_EQ(rig_up(&r), 0);
	void *eqe = r.h.eq.eqe;
	size_t eqe_len = r.h.eq.eqe_len;
	uint64_t live_before = rig_dma_live_bytes();

	hermon_ib_unregister(&r.h);
	r.registered = false;
	hcasim_fault_fail_cmd(r.sim, HERMON_CMD_HW2SW_EQ, 0x03);
	rig_log_clear();
	hermon_quiesce(&r.h);
	hcasim_fault_fail_cmd(r.sim, -1, 0);
	CHECK(log_has("still HW-owned: kept until reset"));
	/* The reset at the end of quiesce worked, so the ring went with it (and nothing leaked). */
	CHECK(hcasim_quiesced(r.sim));
	CHECK(!r.h.eq.orphan);
	CHECK(rig_dma_live_bytes() < live_before);
	(void)eqe;
	(void)eqe_len;
	rig_destroy(&r);
}

/* The final reset never completes: every queue, the firmware area, ICM and the mailboxes stay
 * allocated; bus mastering is cleared; the PCI remove says the device was not stopped; the HCA
 * cannot be started again; the next quiesce retries the reset and then releases everything. */
TEST(hermon_teardown_failed_final_reset_keeps_everything_and_reports)
{
	struct ib_qp_config cfg = ud_cfg;
	struct rig r;

	CHECK_EQ(rig_up(&r), 0);
	struct ib_cq *cq = ib_create_cq(&r.h.ib, 16);

	cfg.send_cq = cfg.recv_cq = cq;
	struct ib_qp *qp = cq ? ib_create_qp(&r.h.ib.port[0], &cfg) : NULL;

	CHECK(qp != NULL);
	if (!qp) {
		rig_destroy(&r);
		return;
	}
	void *recv = qp->recv_bufs[0].va, *fa = r.h.fa.virt, *mbox = r.h.mbox_out;
	size_t fa_len = r.h.fa.len;

	CHECK(bus_master_on(&r));
	/* The QP will not go to RESET, and the reset after it never completes. */
	hcasim_fault_fail_cmd(r.sim, HERMON_CMD_2RST_QP, 0x03);
	hcasim_set_reset_time(r.sim, 60ull * 1000000000ull);
	rig_set_quiet(true);
	rig_log_clear();
	r.pdev.priv = &r.h;
	r.pdev.dma_not_stopped = false;
	hermon_ib_unregister(&r.h);
	r.registered = false;
	hermon_quiesce(&r.h);
	hcasim_fault_fail_cmd(r.sim, -1, 0);
	CHECK(log_has("HCA did not reset"));
	CHECK(r.h.reset_failed);
	CHECK(rig_dma_live(recv, 512));
	CHECK(rig_dma_live(fa, fa_len));
	CHECK(rig_dma_live(mbox, HERMON_MBOX_SIZE));
	CHECK(ib_device_quarantined_bytes(&r.h.ib) > 0);
	CHECK_EQ(hermon_start(&r.h), -EIO);   /* no bring-up over memory the HCA may hold */
	CHECK(log_has("cannot start again"));

	/* The reset completes after all (the device answers again): quiesce retries it. */
	hcasim_set_reset_time(r.sim, HCASIM_RESET_NS_DEFAULT);
	for (unsigned i = 0; i < 61; i++)
		mdelay(1000);
	hermon_quiesce(&r.h);
	CHECK(!r.h.reset_failed);
	CHECK_EQ(ib_device_quarantined_bytes(&r.h.ib), 0);
	CHECK(r.h.orphan_qps == NULL);
	CHECK(!bus_master_on(&r));
	CHECK(hcasim_quiesced(r.sim));
	rig_destroy(&r);
}

/* Through the PCI remove, as `boot` does it: a reset that fails marks the device as not stopped
 * and leaves bus mastering off; one that works leaves bus mastering off too (an OS driver turns
 * it on again). */
TEST(hermon_teardown_remove_reports_a_device_it_could_not_stop)
{
	struct rig r;

	CHECK_EQ(rig_create(&r, 0, true), 0);
	rig_set_quiet(true);
	CHECK_EQ(hermon_ib_probe(&r.pdev, NULL), 0);
	CHECK(bus_master_on(&r));
	hermon_ib_remove(&r.pdev);
	CHECK(!r.pdev.dma_not_stopped);
	CHECK(r.pdev.priv == NULL);
	CHECK(!bus_master_on(&r));   /* the config restore after the final reset left it off */
	CHECK(hcasim_quiesced(r.sim));

	CHECK_EQ(hermon_ib_probe(&r.pdev, NULL), 0);
	CHECK(bus_master_on(&r));
	hcasim_set_reset_time(r.sim, 60ull * 1000000000ull);
	rig_log_clear();
	hermon_ib_remove(&r.pdev);
	CHECK(r.pdev.dma_not_stopped);
	CHECK(r.pdev.priv != NULL);   /* the driver's state, which owns the held memory, is kept */
	CHECK(!bus_master_on(&r) || log_has("no PCI answer"));
	if (r.pdev.priv) {
		/* Power cycle, for the test's own cleanup: the reset works again. */
		struct hermon *h = r.pdev.priv;

		hcasim_set_reset_time(r.sim, HCASIM_RESET_NS_DEFAULT);
		for (unsigned i = 0; i < 61; i++)
			mdelay(1000);
		CHECK_EQ(pci_map_bar(&r.pdev, 0, &h->config), 0);   /* the remove let go of it */
		hermon_fini(h);
		CHECK(!h->reset_failed);
		free(h);
	}
	rig_destroy(&r);
}

/* SPDX-License-Identifier: MIT */
/*
 * The HCA self-test: what a driver's own diagnostics run (as the ecore driver core's register,
 * memory, interrupt/event and loopback tests do), in order, on one HCA and port:
 *
 *   1 firmware                catastrophic-error buffer clear; NOP; QUERY_FW: version non-zero
 *                             and as at bring-up, a command interface revision Linux supports
 *   2 command timing          NOP round trips timed; fails only when one times out (the
 *                             driver's HCR timeout, the PRM's 10 s)
 *   3 MPT/MTT round trip      an MTT entry (WRITE_MTT) and a dMPT over it (SW2HW_MPT), read
 *                             back with QUERY_MPT and compared, HW2SW_MPT, freed
 *   4 EQ/CQ wrap              more than two laps of the EQ (command-done events: NOPs with the
 *                             HCR's e bit) and of a 4-entry CQ (send completions): every entry
 *                             seen, so the owner bit flips on every lap (PRM ownership)
 *   5 UD loopback             a datagram to our own LID and QPN through the port, received and
 *                             compared byte for byte
 *   6 multicast               attach a QP to a test MGID, find it with MGID_HASH/READ_MCG,
 *                             detach, find it gone
 *   7 port and SM             port ACTIVE, and the SA answers a PathRecord Get
 *
 * Everything goes through the production paths (the driver's command wrappers, the IB core's QP,
 * CQ, MAD and SA code); nothing here touches a register. Every object created is destroyed, and
 * the driver's allocators are compared before and after. Waits are bounded: completions and
 * events 100 ms, the SA the first MAD timeout and one retransmission.
 */
#include <ibboot/byteorder.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/hermon_prm.h>
#include <ibboot/ib_mad.h>
#include <ibboot/ib_sa.h>
#include <ibboot/ib_ulp.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>
#include <ibboot/wire/mad.h>
#include "hermon.h"
#include "hermon_selftest.h"

#define ST_NOPS            16     /* timed in step 2 */
#define ST_EQ_EVENTS       (2 * HERMON_NUM_EQES + 2)   /* more than two laps of the EQ */
#define ST_CQ_SIZE         4
#define ST_CQ_SENDS        (2 * ST_CQ_SIZE + 1)        /* more than two laps of the CQ */
#define ST_WAIT_MS         100    /* a completion or event on an idle HCA takes microseconds */
/* Constants inside the messages' text (one argument fewer each). */
#define ST_STR_(x)         #x
#define ST_STR(x)          ST_STR_(x)
#define ST_POLL_US         10
#define ST_SA_WAIT_MS      (3 * IB_MAD_FIRST_TIMEOUT)  /* first send + one retransmission */
#define ST_QKEY            0x5e1f7e57u                 /* not privileged (IBA 10.2.4) */
#define ST_PAYLOAD         256
#define ST_TAG_WRAP        0x57
#define ST_TAG_LOOP        0x4c
#define HERMON_EV_CMD_DONE 0x0a   /* PRM event type: command completion (HCR e bit) */
/* Linux mlx4 fw.c accepts command interface revisions 2..3 (MLX4_COMMAND_INTERFACE_MIN/MAX_REV) */
#define ST_CMD_IF_MIN      2
#define ST_CMD_IF_MAX      3

/* A link-local, transient MGID no ULP uses: ff12::5e1f:7e57 */
static const uint8_t st_mgid[16] = { 0xff, 0x12, 0, 0, 0, 0, 0, 0,
				     0, 0, 0, 0, 0x5e, 0x1f, 0x7e, 0x57 };

/* The steps' names, in order (HERMON_SELFTEST_STEPS of them). */
#define ST_NAMES "firmware\0command timing\0MPT/MTT round trip\0EQ/CQ wrap\0UD loopback\0" \
	"multicast\0port and SM"

/* What the driver's allocators hold: equal before and after, or something leaked. */
struct st_snapshot {
	uint8_t mtt[HERMON_MAX_MTTS / 8];
	uint8_t cq[(HERMON_MAX_CQS + 7) / 8];
	uint8_t qp[(HERMON_MAX_QPS + 7) / 8];
	uint8_t amgm[(1u << HERMON_LOG_MCG_TABLE) / 8];
	unsigned core_cqs, core_qps;
};

struct selftest {
	struct hermon *h;
	struct ib_port *port;
	struct ib_cq *scq, *rcq;
	struct ib_qp *qp;
	const char *qp_error;        /* why there is no QP */
	bool catas;                  /* step 1 found the catastrophic-error buffer not clear */
	/* what the QP's owner saw */
	unsigned sends, send_errors, recvs;
	unsigned looped;             /* loopback datagrams received */
	size_t rx_len;
	uint32_t rx_src_qpn;
	uint16_t rx_slid;
	uint8_t rx[ST_PAYLOAD];
	/* the SA query */
	unsigned sa_done;
	int sa_status;
	uint8_t sa_resp[IB_MAD_SIZE];
};

static void st_snapshot(const struct hermon *h, struct st_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	memcpy(s->mtt, h->mtt_inuse, sizeof(s->mtt));
	memcpy(s->cq, h->cq_inuse, sizeof(s->cq));
	memcpy(s->qp, h->qp_inuse, sizeof(s->qp));
	memcpy(s->amgm, h->amgm_inuse, sizeof(s->amgm));
	for (struct ib_cq *cq = h->ib.cqs; cq; cq = cq->next)
		s->core_cqs++;
	for (struct ib_qp *qp = h->ib.qps; qp; qp = qp->next)
		s->core_qps++;
}

static void st_set(struct hermon_selftest_step *s, enum hermon_selftest_verdict v,
		   const char *fmt, ...) __printf(3, 4);
static void st_set(struct hermon_selftest_step *s, enum hermon_selftest_verdict v,
		   const char *fmt, ...)
{
	va_list ap;

	s->verdict = v;
	va_start(ap, fmt);
	kvsnprintf(s->detail, sizeof(s->detail), fmt, ap);
	va_end(ap);
}

/* A failed command in words (the driver's: timeout, PRM status or error), after what, if any. */
static void st_fail_cmd(struct selftest *t, struct hermon_selftest_step *s, const char *what,
			int rc)
{
	char why[80];

	hermon_cmd_why(t->h, rc, why, sizeof(why));
	st_set(s, HERMON_SELFTEST_FAIL, "%s%s%s", what ? what : "", what ? ": " : "", why);
}

/* Polls the device (the core's loop: EQ, CQs, timers) until *counter reaches target. */
static bool st_wait(struct selftest *t, const unsigned *counter, unsigned target, unsigned ms)
{
	uint64_t start = clock_ms();

	for (;;) {
		ib_poll_device(&t->h->ib);
		if (*counter >= target)
			return true;
		if (clock_ms() - start >= ms)
			return false;
		udelay(ST_POLL_US);
	}
}

/* The CQE the driver consumed last on cq, in words (one outstanding request at a time, so it is
 * the one that failed). */
static void st_last_cqe(struct ib_cq *ibcq, char *buf, size_t len)
{
	struct hermon_cq *cq = ibcq->drv_priv;
	const uint8_t *cqe = (const uint8_t *)cq->cqe +
		((cq->next - 1) & (cq->num_cqes - 1)) * HERMONPRM_COMPLETION_QUEUE_ENTRY_ST_BYTES;
	unsigned opcode = hermonprm_completion_queue_entry_st_get_opcode(cqe);

	if (opcode == HERMON_OPCODE_CQE_ERROR)
		ksnprintf(buf, len, "error CQE, syndrome 0x%02x, vendor 0x%02x",
			  hermonprm_completion_with_error_st_get_syndrome(cqe),
			  hermonprm_completion_with_error_st_get_vendor_error_syndrome(cqe));
	else
		ksnprintf(buf, len, "CQE opcode 0x%02x unexpected", opcode);
}

/* ---- the test QP's owner ---- */

static void st_recv(struct ib_qp *qp, const struct ib_wc *wc, const uint8_t *grh, uint8_t *data,
		    size_t len)
{
	struct selftest *t = qp->owner_priv;

	(void)grh;
	t->recvs++;
	if (len && data[0] == ST_TAG_LOOP) {
		t->looped++;
		t->rx_len = len;
		t->rx_src_qpn = wc->src_qpn;
		t->rx_slid = wc->slid;
		memcpy(t->rx, data, MIN(len, sizeof(t->rx)));
	}
}

static void st_sent(struct ib_qp *qp, void *cookie, int status)
{
	struct selftest *t = qp->owner_priv;

	(void)cookie;
	t->sends++;
	if (status)
		t->send_errors++;
}

static const struct ib_qp_owner_ops st_owner = { .recv = st_recv, .sent = st_sent };

static int st_queues_create(struct selftest *t)
{
	struct ib_device *dev = &t->h->ib;
	struct ib_qp_config cfg = {
		.type = IB_QPT_UD, .qkey = ST_QKEY, .send_wqes = ST_CQ_SIZE,
		.recv_wqes = ST_CQ_SIZE, .recv_payload = ST_PAYLOAD, .send_bufs = ST_CQ_SIZE,
		.send_buf_size = ST_PAYLOAD, .owner = &st_owner, .owner_priv = t,
	};

	if (!t->port->open) {
		t->qp_error = "port not open";
		return -ENODEV;
	}
	t->scq = ib_create_cq(dev, ST_CQ_SIZE);
	t->rcq = ib_create_cq(dev, ST_CQ_SIZE);
	if (!t->scq || !t->rcq) {
		t->qp_error = "no CQ";
		return -ENOMEM;
	}
	cfg.send_cq = t->scq;
	cfg.recv_cq = t->rcq;
	t->qp = ib_create_qp(t->port, &cfg);
	if (!t->qp) {
		t->qp_error = "no QP";
		return -EIO;
	}
	return 0;
}

static void st_queues_destroy(struct selftest *t)
{
	if (t->qp)
		ib_destroy_qp(t->qp);
	if (t->rcq)
		ib_destroy_cq(t->rcq);
	if (t->scq)
		ib_destroy_cq(t->scq);
	t->qp = NULL;
	t->rcq = t->scq = NULL;
}

/* A datagram of len bytes to our own LID and QPN (loopback through the port). */
static int st_send_self(struct selftest *t, const uint8_t *msg, size_t len)
{
	struct ib_address_vector av = { .qpn = t->qp->qpn, .qkey = ST_QKEY,
					.lid = t->port->attr.lid };
	struct ib_buf *b = ib_send_buf_get(t->qp);

	if (!b)
		return -ENOSPC;
	memcpy(b->va, msg, len);
	return ib_post_send(t->qp, &av, b, len, NULL);
}

/* ---- 1: firmware alive ---- */

/* The catastrophic-error buffer QUERY_FW located (BAR0): all zero on a healthy HCA. Read first,
 * so an internal error shows even when its event was lost. 0, or -EIO with the first non-zero
 * dword in *index / *value. */
static int st_catas_buffer(struct hermon *h, unsigned *index, uint32_t *value)
{
	if (h->err_buf_bar != 0 || h->err_buf_offset + 4ull * h->err_buf_size > h->config.size)
		return 0;   /* not where we can read it: fwdump says so */
	for (unsigned i = 0; i < h->err_buf_size; i++) {
		*value = readl_be(&h->config, h->err_buf_offset + 4ull * i);
		if (*value) {
			*index = i;
			return -EIO;
		}
	}
	return 0;
}

static void st_firmware(struct selftest *t, struct hermon_selftest_step *s)
{
	struct hermon *h = t->h;
	uint8_t fw[HERMONPRM_QUERY_FW_ST_BYTES];
	unsigned major, minor, sub, rev;
	int rc;

	if (st_catas_buffer(h, &major, &rev) != 0) {
		st_set(s, HERMON_SELFTEST_FAIL, "error buffer dword %u = 0x%08x: fwdump, then reset HCA", major, rev);
		t->catas = true;
		return;
	}
	if ((rc = hermon_cmd_nop(h)) != 0 || (rc = hermon_cmd_query_fw(h, fw)) != 0) {
		st_fail_cmd(t, s, NULL, rc);
		return;
	}
	major = hermonprm_query_fw_st_get_fw_rev_major(fw);
	minor = hermonprm_query_fw_st_get_fw_rev_minor(fw);
	sub = hermonprm_query_fw_st_get_fw_rev_subminor(fw);
	rev = hermonprm_query_fw_st_get_cmd_interface_rev(fw);
	if (major == 0 && minor == 0 && sub == 0) {
		st_set(s, HERMON_SELFTEST_FAIL, "firmware 0.0.0");
	} else if (major != h->fw_major || minor != h->fw_minor || sub != h->fw_subminor) {
		st_set(s, HERMON_SELFTEST_FAIL, "firmware %u.%u.%u, was %u.%u.%u", major, minor, sub, h->fw_major, h->fw_minor,
		       h->fw_subminor);
	} else if (rev < ST_CMD_IF_MIN || rev > ST_CMD_IF_MAX || rev != h->cmd_if_rev) {
		st_set(s, HERMON_SELFTEST_FAIL, "command interface %u (expected %u, supported "
		       ST_STR(ST_CMD_IF_MIN) ".." ST_STR(ST_CMD_IF_MAX) ")", rev, h->cmd_if_rev);
	} else {
		st_set(s, HERMON_SELFTEST_OK, "%u.%u.%u, command interface %u, error buffer clear", major, minor, sub, rev);
	}
}

/* ---- 2: command interface timing ---- */

static void st_cmd_timing(struct selftest *t, struct hermon_selftest_step *s)
{
	uint64_t total = 0, max = 0, min = ~0ull;

	for (unsigned i = 0; i < ST_NOPS; i++) {
		uint64_t start = clock_us(), us;
		int rc = hermon_cmd_nop(t->h);

		us = clock_us() - start;
		if (rc) {
			char what[32];

			ksnprintf(what, sizeof(what), "NOP %u of " ST_STR(ST_NOPS), i + 1);
			st_fail_cmd(t, s, what, rc);
			return;
		}
		total += us;
		max = MAX(max, us);
		min = MIN(min, us);
	}
	st_set(s, HERMON_SELFTEST_OK, "NOP avg %llu us, %llu..%llu over " ST_STR(ST_NOPS),
	       (unsigned long long)(total / ST_NOPS), (unsigned long long)min, (unsigned long long)max);
}

/* ---- 3: ICM/MPT/MTT round trip ---- */

/* A virtual region over one page: the HCA translates through its MTT entry (local read only;
 * the key's index part is the MPT index, as SW2HW_MPT requires; seed 000 for the fields). */
static void st_fill_mpt(uint8_t mpt[HERMONPRM_MPT_ST_BYTES], uint32_t mem_key, const void *page,
			const struct hermon_mtt *mtt)
{
	memset(mpt, 0, HERMONPRM_MPT_ST_BYTES);
	hermonprm_mpt_st_set_r_w(mpt, 1);
	hermonprm_mpt_st_set_lr(mpt, 1);
	hermonprm_mpt_st_set_mem_key(mpt, mem_key);
	hermonprm_mpt_st_set_pd(mpt, HERMON_GLOBAL_PD);
	hermonprm_mpt_st_set_start_addr_h(mpt, (uint32_t)(virt_to_bus(page) >> 32));
	hermonprm_mpt_st_set_start_addr_l(mpt, (uint32_t)virt_to_bus(page));
	hermonprm_mpt_st_set_len_l(mpt, HERMON_PAGE_SIZE);
	hermonprm_mpt_st_set_mtt_adr_h(mpt, (uint32_t)(mtt->mtt_base_addr >> 32));
	hermonprm_mpt_st_set_mtt_adr_l(mpt, (uint32_t)mtt->mtt_base_addr);
	hermonprm_mpt_st_set_mtt_size(mpt, 1);
	hermonprm_mpt_st_set_entity_size(mpt, HERMON_PAGE_SHIFT);
}

static void st_mpt(struct selftest *t, struct hermon_selftest_step *s)
{
	struct hermon *h = t->h;
	uint8_t mpt[HERMONPRM_MPT_ST_BYTES], back[HERMONPRM_MPT_ST_BYTES];
	unsigned first = h->caps.reserved_mrws, span = h->plan.num_mpts - first, index;
	struct hermon_mtt mtt = { 0 };
	uint32_t tag = 0x5e;   /* the region lives for two commands, is never used for access */
	void *page;
	int rc;

	if (span < 2) {
		st_set(s, HERMON_SELFTEST_FAIL, "no free MPT index");
		return;
	}
	index = first + (h->mpt_index - first + 1) % span;
	page = dma_alloc(HERMON_PAGE_SIZE, HERMON_PAGE_SIZE);
	if (!page) {
		st_set(s, HERMON_SELFTEST_FAIL, "out of memory");
		return;
	}
	if ((rc = hermon_alloc_mtt(h, page, HERMON_PAGE_SIZE, &mtt)) != 0) {
		st_fail_cmd(t, s, "MTT", rc);
		goto out_page;
	}
	st_fill_mpt(mpt, (tag << 24) | index, page, &mtt);
	if ((rc = hermon_cmd_sw2hw_mpt(h, index, mpt)) != 0) {
		st_fail_cmd(t, s, NULL, rc);
		goto out_mtt;
	}
	rc = hermon_cmd_query_mpt(h, index, back);
	if (rc) {
		st_fail_cmd(t, s, NULL, rc);
	} else {
		/* The status field is the hardware's to set (software/hardware ownership). */
		hermonprm_mpt_st_set_status(back, hermonprm_mpt_st_get_status(mpt));
		unsigned dw;

		for (dw = 0; dw < HERMONPRM_MPT_ST_BYTES / 4; dw++)
			if (hermonprm_load_dword(mpt, dw) != hermonprm_load_dword(back, dw))
				break;
		if (dw < HERMONPRM_MPT_ST_BYTES / 4)
			st_set(s, HERMON_SELFTEST_FAIL, "MPT 0x%x dword %u: wrote 0x%08x, read 0x%08x", index, dw, hermonprm_load_dword(mpt, dw),
			       hermonprm_load_dword(back, dw));
		else
			st_set(s, HERMON_SELFTEST_OK, "MPT 0x%x over MTT 0x%llx read back equal", index, (unsigned long long)mtt.mtt_base_addr);
	}
	if ((rc = hermon_cmd_hw2sw_mpt(h, index)) != 0) {
		/* Still the hardware's: its page stays allocated (it may translate through it). */
		if (s->verdict == HERMON_SELFTEST_OK)
			st_fail_cmd(t, s, NULL, rc);
		return;
	}
out_mtt:
	hermon_free_mtt(h, &mtt);
out_page:
	dma_free(page, HERMON_PAGE_SIZE);
}

/* ---- 4: EQ and CQ wrap ---- */

/* Entry `at` of a ring of `size` not seen, the i-th of `of`: entries seen up to a lap boundary and
 * none after it mean the owner bit kept its old parity (PRM ownership). */
static void st_lost(struct hermon_selftest_step *s, const char *ring, unsigned num,
		    const char *what, unsigned i, unsigned of, uint32_t at, unsigned size)
{
	st_set(s, HERMON_SELFTEST_FAIL, "%s 0x%x: %s %u of %u not seen in " ST_STR(ST_WAIT_MS)
	       " ms (entry %u of %u, lap %u): %s", ring, num, what, i + 1, of, at % size, size,
	       at / size + 1, i > 0 && at % size == 0 ? "owner bit not flipped" : "none written");
}

static bool st_eq_wrap(struct selftest *t, struct hermon_selftest_step *s)
{
	struct hermon *h = t->h;
	unsigned events0 = h->eq.events;
	uint32_t next0 = h->eq.next;
	int rc;

	for (unsigned i = 0; i < ST_EQ_EVENTS; i++) {
		/* e bit: the firmware posts a command-done EQE besides clearing go (PRM "HCR") */
		h->cmd_event = true;
		rc = hermon_cmd_nop(h);
		h->cmd_event = false;
		if (rc) {
			st_fail_cmd(t, s, "e bit", rc);
			return false;
		}
		if (!st_wait(t, &h->eq.events, events0 + i + 1, ST_WAIT_MS)) {
			st_lost(s, "EQ", h->eq.eqn, "event", i, ST_EQ_EVENTS, next0 + i,
				HERMON_NUM_EQES);
			return false;
		}
	}
	/* Nothing else came meanwhile: then the last event must be ours. */
	if (h->eq.events - events0 == ST_EQ_EVENTS && h->eq.last_type != HERMON_EV_CMD_DONE) {
		st_set(s, HERMON_SELFTEST_FAIL, "EQ %u: last event type 0x%02x, not " ST_STR(HERMON_EV_CMD_DONE), h->eq.eqn, h->eq.last_type);
		return false;
	}
	return true;
}

static void st_wrap(struct selftest *t, struct hermon_selftest_step *s)
{
	struct hermon_cq *cq;
	uint8_t msg[16];
	uint32_t next0;
	char why[80];

	if (!st_eq_wrap(t, s))
		return;
	if (!t->qp) {
		st_set(s, HERMON_SELFTEST_FAIL, "no test QP: %s", t->qp_error);
		return;
	}
	cq = t->scq->drv_priv;
	next0 = cq->next;
	for (unsigned i = 0; i < ST_CQ_SENDS; i++) {
		unsigned sends = t->sends + 1;
		int rc;

		memset(msg, 0, sizeof(msg));
		msg[0] = ST_TAG_WRAP;
		msg[1] = (uint8_t)i;
		if ((rc = st_send_self(t, msg, sizeof(msg))) != 0) {
			st_set(s, HERMON_SELFTEST_FAIL, "send %u of %u not posted: %s", i + 1,
			       ST_CQ_SENDS, ib_strerror(rc));
			return;
		}
		if (!st_wait(t, &t->sends, sends, ST_WAIT_MS)) {
			st_lost(s, "CQ", cq->cqn, "completion", i, ST_CQ_SENDS, next0 + i,
				cq->num_cqes);
			return;
		}
		if (t->send_errors) {
			st_last_cqe(t->scq, why, sizeof(why));
			st_set(s, HERMON_SELFTEST_FAIL, "send %u of %u failed: %s", i + 1,
			       ST_CQ_SENDS, why);
			return;
		}
	}
	st_set(s, HERMON_SELFTEST_OK, "%u events over %u-entry EQ, %u completions over "
	       "%u-entry CQ", ST_EQ_EVENTS, HERMON_NUM_EQES, cq->next - next0, cq->num_cqes);
}

/* ---- 5: UD loopback ---- */

/* Sends msg to ourselves and waits for it: true when it came back (t->rx), else *s says why. */
static bool st_loop_one(struct selftest *t, struct hermon_selftest_step *s, const uint8_t *msg,
			size_t len)
{
	struct hermon_cq *rcq = t->rcq->drv_priv;
	unsigned sends = t->sends + 1, errors0 = rcq->errors, looped = t->looped + 1;
	char why[80];
	int rc;

	if ((rc = st_send_self(t, msg, len)) != 0) {
		st_set(s, HERMON_SELFTEST_FAIL, "not posted: %s", ib_strerror(rc));
		return false;
	}
	if (!st_wait(t, &t->sends, sends, ST_WAIT_MS)) {
		st_set(s, HERMON_SELFTEST_FAIL, "no send completion in " ST_STR(ST_WAIT_MS) " ms");
		return false;
	}
	if (t->send_errors) {
		st_last_cqe(t->scq, why, sizeof(why));
		st_set(s, HERMON_SELFTEST_FAIL, "send failed: %s", why);
		return false;
	}
	if (st_wait(t, &t->looped, looped, ST_WAIT_MS))
		return true;
	if (rcq->errors != errors0) {
		st_last_cqe(t->rcq, why, sizeof(why));
		st_set(s, HERMON_SELFTEST_FAIL, "receive failed: %s", why);
	} else {
		st_set(s, HERMON_SELFTEST_FAIL, "not received in " ST_STR(ST_WAIT_MS) " ms");
	}
	return false;
}

static void st_loopback(struct selftest *t, struct hermon_selftest_step *s)
{
	uint8_t msg[ST_PAYLOAD];

	if (!t->qp) {
		st_set(s, HERMON_SELFTEST_FAIL, "no test QP: %s", t->qp_error);
		return;
	}
	if (t->port->attr.state != IB_PORT_ACTIVE || !t->port->attr.lid) {
		st_set(s, HERMON_SELFTEST_FAIL, "port %u is %s (LID 0x%04x), not ACTIVE",
		       t->port->num, ib_port_state_name(t->port->attr.state), t->port->attr.lid);
		return;
	}
	for (unsigned i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 7 + 3);
	msg[0] = ST_TAG_LOOP;
	if (!st_loop_one(t, s, msg, sizeof(msg)))
		return;
	if (t->rx_len != sizeof(msg)) {
		st_set(s, HERMON_SELFTEST_FAIL, "received %zu bytes, not " ST_STR(ST_PAYLOAD), t->rx_len);
		return;
	}
	for (unsigned i = 0; i < sizeof(msg); i++) {
		if (t->rx[i] != msg[i]) {
			st_set(s, HERMON_SELFTEST_FAIL, "byte %u: sent 0x%02x, got 0x%02x", i, msg[i], t->rx[i]);
			return;
		}
	}
	if (t->rx_src_qpn != t->qp->qpn || t->rx_slid != t->port->attr.lid) {
		st_set(s, HERMON_SELFTEST_FAIL, "from LID 0x%04x QP 0x%x, not 0x%04x 0x%x", t->rx_slid, t->rx_src_qpn, t->port->attr.lid, t->qp->qpn);
		return;
	}
	st_set(s, HERMON_SELFTEST_OK, ST_STR(ST_PAYLOAD) " bytes LID 0x%04x QP 0x%x to itself, equal",
	       t->port->attr.lid, t->qp->qpn);
}

/* ---- 6: multicast attach/detach ---- */

static void st_mcast(struct selftest *t, struct hermon_selftest_step *s)
{
	struct hermon *h = t->h;
	struct hermon_qp *qp;
	uint8_t mcg[HERMONPRM_MCG_ENTRY_ST_BYTES];
	unsigned index = 0;
	int rc, found;

	if (!t->qp) {
		st_set(s, HERMON_SELFTEST_FAIL, "no test QP: %s", t->qp_error);
		return;
	}
	qp = t->qp->drv_priv;
	if ((rc = hermon_mcast_attach(h, qp, st_mgid)) != 0) {
		st_fail_cmd(t, s, "attach", rc);
		return;
	}
	found = hermon_mcg_lookup(h, st_mgid, qp->qpn, mcg, &index);
	if (found == -ENOENT)
		st_set(s, HERMON_SELFTEST_FAIL, "QP 0x%x not in MCG after attach",
		       qp->qpn);
	else if (found)
		st_fail_cmd(t, s, "lookup", found);
	rc = hermon_mcast_detach(h, qp, st_mgid);   /* detached whatever the lookup said */
	if (found)
		return;   /* the first failure is the one reported */
	if (rc) {
		st_fail_cmd(t, s, "detach", rc);
		return;
	}
	found = hermon_mcg_lookup(h, st_mgid, qp->qpn, mcg, &index);
	if (found == 0)
		st_set(s, HERMON_SELFTEST_FAIL, "QP 0x%x still in MCG entry %u after detach",
		       qp->qpn, index);
	else if (found != -ENOENT)
		st_fail_cmd(t, s, "lookup after detach", found);
	else
		st_set(s, HERMON_SELFTEST_OK, "QP 0x%x in MCG entry %u, gone after detach",
		       qp->qpn, index);
}

/* ---- 7: port state and SM ---- */

static void st_sa_done(void *ctx, int status, const uint8_t *resp)
{
	struct selftest *t = ctx;

	t->sa_done = 1;
	t->sa_status = status;
	if (status == 0 && resp)
		memcpy(t->sa_resp, resp, IB_MAD_SIZE);
}

static void st_port_sm(struct selftest *t, struct hermon_selftest_step *s)
{
	struct ib_port *port = t->port;
	struct ib_path_info info;
	const char *why = "";
	uint64_t start;
	int handle;

	if (!port->open) {
		st_set(s, HERMON_SELFTEST_FAIL, "port %u not open", port->num);
		return;
	}
	if (port->attr.state != IB_PORT_ACTIVE) {
		st_set(s, HERMON_SELFTEST_FAIL, "port %u is %s (%s): %s", port->num,
		       ib_port_state_name(port->attr.state),
		       ib_phys_state_name(port->attr.phys_state),
		       port->attr.state <= IB_PORT_DOWN ?
		       "no link: check cable" : "no SM: is one running?");
		return;
	}
	/* A PathRecord for the port's own GID: any SA answers it; the path cache is left alone. */
	t->sa_done = 0;
	start = clock_ms();
	handle = ib_sa_path_get(port, &port->gid, st_sa_done, t);
	if (handle < 0) {
		st_set(s, HERMON_SELFTEST_FAIL, "not sent: %s", ib_strerror(handle));
		return;
	}
	if (!st_wait(t, &t->sa_done, 1, ST_SA_WAIT_MS)) {
		ib_mad_cancel(port, handle);
		st_set(s, HERMON_SELFTEST_FAIL, "no PathRecord from SM LID 0x%04x in %u ms", port->attr.sm_lid, ST_SA_WAIT_MS);
		return;
	}
	if (t->sa_status) {
		st_set(s, HERMON_SELFTEST_FAIL, "SA query: %s", ib_strerror(t->sa_status));
		return;
	}
	if (ib_sa_parse_path_response(t->sa_resp, IB_MAD_SIZE, &port->gid, &info, &why) != 0) {
		st_set(s, HERMON_SELFTEST_FAIL, "unusable PathRecord: %s", why);
		return;
	}
	st_set(s, HERMON_SELFTEST_OK, "LID 0x%04x; SM LID 0x%04x answered PathRecord in %llu ms", port->attr.lid, port->attr.sm_lid,
	       (unsigned long long)(clock_ms() - start));
}

/* ---- the run ---- */

static void st_leak_check(const struct hermon *h, const struct st_snapshot *before,
			  struct hermon_selftest_result *res)
{
	struct st_snapshot after;
	const char *what = NULL;

	st_snapshot(h, &after);
	if (memcmp(before->mtt, after.mtt, sizeof(after.mtt)))
		what = "MTT";
	else if (memcmp(before->cq, after.cq, sizeof(after.cq)) ||
		 before->core_cqs != after.core_cqs)
		what = "CQ";
	else if (memcmp(before->qp, after.qp, sizeof(after.qp)) ||
		 before->core_qps != after.core_qps)
		what = "QP";
	else if (memcmp(before->amgm, after.amgm, sizeof(after.amgm)))
		what = "MCG";
	res->leaked = what != NULL;
	res->leak = what ? what : "";
}

int hermon_selftest_run(struct hermon *h, unsigned port, struct hermon_selftest_result *res)
{
	static void (*const steps[HERMON_SELFTEST_STEPS])(struct selftest *,
							  struct hermon_selftest_step *) = {
		st_firmware, st_cmd_timing, st_mpt, st_wrap, st_loopback, st_mcast, st_port_sm,
	};
	struct selftest *t;
	struct st_snapshot before;
	uint64_t start = clock_us();
	bool quiet = h->quiet;

	memset(res, 0, sizeof(*res));
	_Static_assert(sizeof(res->device) == sizeof(h->name), "device is the HCA's name");
	memcpy(res->device, h->name, sizeof(res->device));   /* terminated: ksnprintf wrote it */
	res->port = port;
	for (unsigned i = 0; i < HERMON_SELFTEST_STEPS; i++)
		res->step[i].name = str_nth(ST_NAMES, i);
	if (port < 1 || port > h->num_ports)
		return -EINVAL;
	t = kzalloc(sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->h = h;
	t->port = &h->ib.port[port - 1];
	st_snapshot(h, &before);
	h->quiet = true;   /* each failure is reported once, in its step's line */

	for (unsigned i = 0; i < HERMON_SELFTEST_STEPS; i++) {
		struct hermon_selftest_step *s = &res->step[i];

		if (h->hcr_stuck || h->catastrophic || h->ib.dead || t->catas) {
			st_set(s, i == 0 ? HERMON_SELFTEST_FAIL : HERMON_SELFTEST_SKIP,
			       h->catastrophic || h->ib.dead || t->catas ?
			       "catastrophic error: fwdump, then reset HCA" :
			       "HCR stuck: reset HCA");
			continue;
		}
		if (i == 3)   /* steps 4-6 share one UD QP and its two CQs */
			st_queues_create(t);
		h->last_status = 0;
		steps[i](t, s);
		if (i == 5)
			st_queues_destroy(t);
	}
	st_queues_destroy(t);
	h->quiet = quiet;
	kfree(t);
	st_leak_check(h, &before, res);

	for (unsigned i = 0; i < HERMON_SELFTEST_STEPS; i++) {
		switch (res->step[i].verdict) {
		case HERMON_SELFTEST_FAIL: res->failed++; break;
		case HERMON_SELFTEST_OK: res->passed++; break;
		case HERMON_SELFTEST_SKIP: res->skipped++; break;
		}
	}
	res->elapsed_us = clock_us() - start;
	return res->failed || res->skipped || res->leaked ? -EIO : 0;
}

/* ---- devices, and the text ---- */

static unsigned st_default_port(const struct hermon *h)
{
	for (unsigned p = 1; p <= h->num_ports; p++)
		if (h->ib.port[p - 1].attr.state == IB_PORT_ACTIVE)
			return p;
	return 1;
}

/* Runs the test on each registered Hermon (hermon_for_each), or on the first one only. */
struct st_each {
	struct hermon_selftest_result *res;
	unsigned port;
	bool all, done;              /* all: print each result; done: the first one ran */
	int rc;
};

static void st_each_one(struct hermon *h, void *ctx)
{
	struct st_each *e = ctx;
	unsigned port = e->port ? e->port : st_default_port(h);
	int r;

	if (e->done)
		return;
	r = hermon_selftest_run(h, port, e->res);
	e->done = !e->all;
	if (e->all && r == -EINVAL)
		kprintf("selftest: %s has no port %u (%u ports)\n", h->name, port, h->num_ports);
	else if (e->all && r == -ENOMEM)
		kprintf("selftest: %s: out of memory\n", h->name);
	else if (e->all)
		hermon_selftest_print(e->res);
	if (r && !e->rc)
		e->rc = r;
}

int hermon_selftest_first(unsigned port, struct hermon_selftest_result *res)
{
	struct st_each e = { res, port, false, false, 0 };

	return hermon_for_each(st_each_one, &e) ? e.rc : -ENODEV;
}

int hermon_selftest_all(unsigned port)
{
	struct st_each e = { kzalloc(sizeof(*e.res)), port, true, false, 0 };
	int n;

	if (!e.res)
		return -ENOMEM;
	n = hermon_for_each(st_each_one, &e);
	kfree(e.res);
	return n ? e.rc : hermon_none("selftest");
}

size_t hermon_selftest_format(const struct hermon_selftest_result *res, char *buf, size_t len)
{
	size_t n = 0;
	char dummy[1];

	if (!buf || !len) {
		buf = dummy;
		len = sizeof(dummy);
	}
#define ST_PUT(...) (n += (size_t)ksnprintf(buf + MIN(n, len - 1), len - MIN(n, len - 1), \
					    __VA_ARGS__))
	ST_PUT("selftest %s port %u\n", res->device, res->port);
	for (unsigned i = 0; i < HERMON_SELFTEST_STEPS; i++) {
		const struct hermon_selftest_step *s = &res->step[i];

		ST_PUT("  %u %-18s %s%s%s%s\n", i + 1, s->name, str_nth("FAIL\0ok\0skipped", s->verdict),
		       s->verdict == HERMON_SELFTEST_OK ? " (" : ": ", s->detail,
		       s->verdict == HERMON_SELFTEST_OK ? ")" : "");
	}
	ST_PUT("selftest: %u passed, %u failed", res->passed, res->failed);
	if (res->skipped)
		ST_PUT(", %u skipped", res->skipped);
	ST_PUT(" in %llu ms; %s%s\n", (unsigned long long)(res->elapsed_us / 1000),
	       res->leaked ? "LEAK: " : "nothing leaked",
	       res->leaked ? res->leak : "");
#undef ST_PUT
	return n;
}

void hermon_selftest_print(const struct hermon_selftest_result *res)
{
	char buf[2048];

	hermon_selftest_format(res, buf, sizeof(buf));
	kputs(buf);
}

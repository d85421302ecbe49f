/* SPDX-License-Identifier: MIT */
/*
 * Instructions per packet of the production fastpath - the IB core over the Hermon driver, the
 * calls IPoIB makes - on the in-process model: N 2044-byte UD datagrams from a QP on port 1 to a
 * QP on port 2 (cabled to each other). Run under callgrind with --toggle-collect on one of the two
 * entry points below; the model's cost behind the doorbell (inclusive cost of the rig's
 * writel_be) is subtracted by the make recipe:
 *   bench_tx   take a send buffer, ib_post_send (→ hermon_post_send: WQE, ownership, doorbell),
 *              ib_poll_cq on the send CQ (→ hermon_poll_cq, ib_complete_send, owner->sent)
 *   bench_rx   ib_poll_cq on the receive CQ (→ hermon_poll_cq, ib_complete_recv, owner->recv,
 *              the buffer reposted through hermon_post_recv)
 * ib_poll_cq is what ib_poll() runs for every CQ. The owner's callbacks only count. Prints the
 * packet count, so the script can divide.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hermon_rig.h"

#define PAYLOAD 2044

static unsigned sent, received;

static void on_recv(struct ib_qp *qp, const struct ib_wc *wc, const uint8_t *grh, uint8_t *data,
		    size_t len)
{
	(void)qp;
	(void)wc;
	(void)grh;
	(void)data;
	received += len == PAYLOAD;
}

static void on_sent(struct ib_qp *qp, void *cookie, int status)
{
	(void)qp;
	(void)cookie;
	sent += status == 0;
}

static const struct ib_qp_owner_ops owner = { .recv = on_recv, .sent = on_sent };

__attribute__((noinline)) void bench_tx(struct ib_qp *qp, struct ib_cq *cq,
					const struct ib_address_vector *av);
__attribute__((noinline)) void bench_tx(struct ib_qp *qp, struct ib_cq *cq,
					const struct ib_address_vector *av)
{
	struct ib_buf *buf = ib_send_buf_get(qp);

	if (!buf || ib_post_send(qp, av, buf, PAYLOAD, NULL) != 0)
		abort();
	ib_poll_cq(cq);
}

__attribute__((noinline)) void bench_rx(struct ib_cq *cq);
__attribute__((noinline)) void bench_rx(struct ib_cq *cq)
{
	ib_poll_cq(cq);
}

int main(int argc, char **argv)
{
	static struct rig r;
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 1000;
	struct ib_qp_config cfg = { .type = IB_QPT_UD, .qkey = 0x0b1b, .send_wqes = 16,
				    .recv_wqes = 16, .recv_payload = 2048, .send_bufs = 16,
				    .send_buf_size = 2048, .owner = &owner };
	struct ib_cq *cq1, *cq2;
	struct ib_qp *a, *b;

	if (rig_up(&r) || rig_sm_set_port(&r.h.ib, 1, 0x11, false) ||
	    rig_sm_set_port(&r.h.ib, 2, 0x22, false)) {
		fprintf(stderr, "bench-hermon: bring-up failed:\n%s", rig_log());
		return 1;
	}
	rig_poll(&r, 3);
	cq1 = ib_create_cq(&r.h.ib, 64);
	cq2 = ib_create_cq(&r.h.ib, 64);
	if (!cq1 || !cq2)
		return 1;
	cfg.send_cq = cfg.recv_cq = cq1;
	a = ib_create_qp(&r.h.ib.port[0], &cfg);
	cfg.send_cq = cfg.recv_cq = cq2;
	b = ib_create_qp(&r.h.ib.port[1], &cfg);
	if (!a || !b || r.h.ib.port[1].attr.state != IB_PORT_ACTIVE) {
		fprintf(stderr, "bench-hermon: set-up failed:\n%s", rig_log());
		return 1;
	}
	for (unsigned i = 0; i < PAYLOAD; i++)
		((uint8_t *)a->send_bufs[0].va)[i] = (uint8_t)i;
	struct ib_address_vector av = { .qpn = b->qpn, .qkey = 0x0b1b, .lid = 0x22 };

	/* The rig runs the model on every doorbell, so each send and its receive have completed
	 * by the time bench_tx polls its CQ. */
	for (unsigned i = 0; i < n; i++) {
		bench_tx(a, cq1, &av);
		rig_step(&r);
		bench_rx(cq2);
	}
	printf("packets %u completions %u\n", n, sent + received);
	rig_destroy(&r);
	return sent + received == 2 * n ? 0 : 1;
}

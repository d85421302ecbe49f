/* SPDX-License-Identifier: MIT */
/*
 * Instructions per packet of the driver's fastpath, on the in-process model: N UD datagrams from
 * port 1 to port 2 (cabled to each other). Run under callgrind with --toggle-collect on one of
 * the two entry points below; the model's cost behind the doorbell (inclusive cost of the rig's
 * writel_be) is subtracted by the make recipe:
 *   bench_tx         post one send (WQE, ownership, doorbell) and reap its send completion
 *   bench_rx         reap one receive completion and repost its buffer
 * See infiniband.mk (bench-driver). Prints the packet count, so the script can divide.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hermon_rig.h"

static unsigned completions;

static void count(void *ctx, const struct hermon_completion *c)
{
	(void)ctx;
	if (c->status == 0)
		completions++;
}

__attribute__((noinline)) void bench_tx(struct hermon *h, struct hermon_qp *qp, struct hermon_cq *cq,
					const struct hermon_av *av, const void *buf, size_t len);
__attribute__((noinline)) void bench_tx(struct hermon *h, struct hermon_qp *qp, struct hermon_cq *cq,
					const struct hermon_av *av, const void *buf, size_t len)
{
	hermon_post_send(h, qp, av, buf, len, (void *)buf);
	hermon_poll_cq(h, cq, 0, count, NULL);
}

__attribute__((noinline)) void bench_rx(struct hermon *h, struct hermon_cq *cq);
__attribute__((noinline)) void bench_rx(struct hermon *h, struct hermon_cq *cq)
{
	hermon_poll_cq(h, cq, 0, count, NULL);
}

static int activate(struct hermon *h, unsigned port, uint16_t lid)
{
	uint8_t mad[256], reply[256];

	for (unsigned step = 0; step < 2; step++) {
		memset(mad, 0, sizeof(mad));
		mad[0] = 1; mad[1] = 0x01; mad[2] = 1; mad[3] = 0x01;
		mad[17] = 0x15;
		mad[23] = (uint8_t)port;
		if (hermon_mad(h, port, mad, reply))
			return -1;
		memcpy(mad + 64, reply + 64, 64);
		mad[3] = 0x02;
		mad[64 + 16] = (uint8_t)(lid >> 8);
		mad[64 + 17] = (uint8_t)lid;
		mad[64 + 19] = 1;
		mad[64 + 32] = (uint8_t)((mad[64 + 32] & 0xf0) | (step == 0 ? 3 : 4));
		mad[64 + 33] &= 0x0f;
		if (hermon_forward_smp(h, port, mad, reply))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct rig r;
	static uint8_t payload[2044];
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 1000;
	struct hermon_cq *cq1, *cq2;
	struct hermon_qp *a, *b;
	struct hermon_qp_params p = { .type = HERMON_QPT_UD, .num_send = 16, .num_recv = 16,
				      .qkey = 0x0b1b, .recv_buf_size = 2048 };

	rig_set_quiet(true);
	if (rig_create(&r, 0, true) || rig_probe(&r) || hermon_open_port(&r.h, 1) ||
	    hermon_open_port(&r.h, 2) || activate(&r.h, 1, 0x11) || activate(&r.h, 2, 0x22) ||
	    hermon_create_cq(&r.h, 64, &cq1) || hermon_create_cq(&r.h, 64, &cq2)) {
		fprintf(stderr, "bench-hermon: bring-up failed:\n%s", rig_log());
		return 1;
	}
	p.port = 1;
	p.send_cq = p.recv_cq = cq1;
	if (hermon_create_qp(&r.h, &p, &a))
		return 1;
	p.port = 2;
	p.send_cq = p.recv_cq = cq2;
	if (hermon_create_qp(&r.h, &p, &b) || hermon_modify_qp(&r.h, a, 0x0b1b, 0, 0) ||
	    hermon_modify_qp(&r.h, b, 0x0b1b, 0, 0))
		return 1;
	struct hermon_av av = { .qpn = b->qpn, .qkey = 0x0b1b, .lid = 0x22 };

	/* The rig runs the model on every doorbell, so each send and its receive have completed
	 * by the time bench_tx polls its CQ. */
	for (unsigned i = 0; i < n; i++) {
		bench_tx(&r.h, a, cq1, &av, payload, sizeof(payload));
		rig_step(&r);
		bench_rx(&r.h, cq2);
	}
	printf("packets %u completions %u\n", n, completions);
	rig_destroy(&r);
	return completions == 2 * n ? 0 : 1;
}

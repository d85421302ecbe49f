/* SPDX-License-Identifier: MIT */
/*
 * fwdump-rig healthy|catastrophic: brings the real Hermon driver up over the in-process model
 * (src/tests/fakes/hermon_rig), registered with the IB core, both ports ACTIVE, a pair of UD QPs
 * with traffic through them, and writes the driver's FWDUMP to stdout. `catastrophic` first
 * makes a device write fail (bus error on the receive CQ ring), so the error buffer is not zero.
 * The decoder's check (fwdump-check.sh) reads what this writes.
 */
#include <stdio.h>
#include <string.h>
#include <ibboot/dma.h>
#include <ibboot/fwdump.h>
#include "hermon_rig.h"

static void out_line(void *ctx, const char *line)
{
	fprintf(ctx, "%s\n", line);
}

int main(int argc, char **argv)
{
	static uint8_t msg[64];
	static struct rig r;
	static struct rig_pair p;
	const struct fwdump_out out = { out_line, stdout };
	bool catas = argc == 2 && !strcmp(argv[1], "catastrophic");

	if (argc != 2 || (!catas && strcmp(argv[1], "healthy"))) {
		fprintf(stderr, "usage: fwdump-rig healthy|catastrophic\n");
		return 2;
	}
	if (rig_up(&r) || rig_sm_set_port(&r.h.ib, 1, 0x11, false) ||
	    rig_sm_set_port(&r.h.ib, 2, 0x22, false)) {
		fprintf(stderr, "fwdump-rig: bring-up failed:\n%s\n", rig_log());
		return 1;
	}
	rig_poll(&r, 3);
	if (rig_make_pair(&r.h.ib, &p)) {
		fprintf(stderr, "fwdump-rig: no QP pair:\n%s\n", rig_log());
		return 1;
	}
	if (catas) {
		const struct hermon_cq *cqb = p.cqb->drv_priv;

		r.dma_fail_lo = virt_to_bus(cqb->cqe);
		r.dma_fail_hi = r.dma_fail_lo + cqb->cqe_len;
	}
	for (unsigned i = 0; i < (catas ? 1 : 20); i++) {
		msg[0] = (uint8_t)i;
		rig_send(p.qa, &p.to_b, msg, sizeof(msg));
		rig_poll(&r, 3);
	}
	hermon_dump_to(&r.h, &out);
	r.dma_fail_lo = r.dma_fail_hi = 0;
	rig_destroy(&r);
	return 0;
}

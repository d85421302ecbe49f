/* SPDX-License-Identifier: MIT */
/* make bench-iblib: throughput of the link CRCs and of a whole-packet parse (4 KiB payload).
 * Figures only - nothing is asserted. */
#include <stdio.h>
#include <time.h>

#include <ibboot/wire/crc.h>
#include <ibboot/wire/packet.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(void)
{
	static uint8_t payload[4096], pkt[IBLIB_PKT_MAX];
	struct iblib_lrh lrh = { .dlid = 3, .slid = 5 };
	struct iblib_bth bth = { .opcode = IBLIB_OP_UD_SEND_ONLY, .pkey = 0xFFFF, .dest_qp = 0x48 };
	struct iblib_deth deth = { .qkey = 0xB1B, .src_qp = 0x49 };
	struct iblib_pkt p;
	const int rounds = 5000;
	unsigned sink = 0;
	double t0, t1;

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 13);
	int n = iblib_ud_build(pkt, sizeof(pkt), &lrh, NULL, &bth, &deth, payload, sizeof(payload));
	if (n < 0)
		return 1;
	t0 = now();
	for (int i = 0; i < rounds; i++)
		sink += iblib_icrc(pkt, (size_t)n - 6, NULL);
	t1 = now();
	printf("iblib ICRC:  %7.1f MB/s\n", rounds * (n - 6) / (t1 - t0) / 1e6);
	t0 = now();
	for (int i = 0; i < rounds; i++)
		sink += iblib_vcrc(pkt, (size_t)n - 2);
	t1 = now();
	printf("iblib VCRC:  %7.1f MB/s\n", rounds * (n - 2) / (t1 - t0) / 1e6);
	t0 = now();
	for (int i = 0; i < rounds; i++)
		sink += (unsigned)iblib_pkt_parse(pkt, (size_t)n, &p, 0);
	t1 = now();
	printf("iblib parse: %7.0f packets/s (%d-byte packets, both CRCs checked)\n",
	       rounds / (t1 - t0), n);
	return sink == 12345u;  /* keeps the loops; never true in practice */
}

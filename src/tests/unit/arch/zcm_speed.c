/* SPDX-License-Identifier: MIT */
/*
 * bench-size's native figure: how much CPU time this host takes to unpack the image's packed body
 * (build/zimage/body.ibz, primed with the stub's image build/zimage/zstub.bin as the stub is),
 * best of three. usage: zcm-speed BODY.IBZ PRIME
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "zcm.h"

int main(int argc, char **argv)
{
	static uint8_t z[1 << 20], out[1 << 21], prime[ZCM_PRIME_MAX];
	double best = 1e9;
	size_t zlen, plen, got = 0;
	void *arena = malloc(ZCM_ARENA_BYTES);
	FILE *f = argc == 3 ? fopen(argv[1], "rb") : NULL;
	FILE *p = argc == 3 ? fopen(argv[2], "rb") : NULL;

	if (!f || !p || !arena) {
		fprintf(stderr, "usage: zcm-speed BODY.IBZ PRIME\n");
		return 2;
	}
	zlen = fread(z, 1, sizeof(z), f);
	fclose(f);
	plen = fread(prime, 1, sizeof(prime), p);
	fclose(p);
	for (int i = 0; i < 3; i++) {
		struct timespec t0, t1;
		int rc;

		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
		rc = ibz_unpack(z, zlen, out, sizeof(out), arena, prime, plen, &got);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
		if (rc) {
			fprintf(stderr, "zcm-speed: %s: %s\n", argv[1], zcm_strerror(rc));
			return 1;
		}
		double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
		if (ms < best)
			best = ms;
	}
	printf("%.0f ms for %zu -> %zu bytes\n", best, zlen, got);
	return 0;
}

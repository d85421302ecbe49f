/* SPDX-License-Identifier: MIT */
/*
 * zs0pack IN OUT: packs the compressed image's stub (IN, as objcopy writes it) for the stage-0
 * decoder (src/arch/x86_64/zstage0.S) with the model zstage0.h states, then decodes the result
 * again with the same model and refuses to write OUT unless that reproduces IN byte for byte.
 * The context masks are the ones given after OUT (hex), else ZS0_MASKS below.
 */
#include <stdio.h>
#include <stdlib.h>
#include "zstage0.h"

/* Measured on the stub (greedy choice among all 256 masks, 10 models). */
static const uint8_t ZS0_MASKS[] = { 0x01, 0x02, 0x00, 0x04, 0x03, 0x09, 0x05, 0x12, 0x11, 0x06 };

static struct zs0 model;

int main(int argc, char **argv)
{
	static uint8_t in[1 << 16], out[1 << 17], back[1 << 16];
	uint8_t mask[ZS0_MAXM];
	uint32_t n = 0, len, olen;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: zs0pack IN OUT [MASK...]\n");
		return 2;
	}
	for (int a = 3; a < argc && n < ZS0_MAXM; a++)
		mask[n++] = (uint8_t)strtoul(argv[a], NULL, 16);
	if (!n)
		for (; n < sizeof(ZS0_MASKS); n++)
			mask[n] = ZS0_MASKS[n];
	f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	len = (uint32_t)fread(in, 1, sizeof(in), f);
	if (!feof(f) || ferror(f) || !len) {
		fprintf(stderr, "zs0pack: %s: empty, unreadable or over %zu bytes\n", argv[1], sizeof(in));
		return 1;
	}
	fclose(f);
	olen = zs0_encode(&model, in, len, mask, n, out, sizeof(out));
	if (!olen) {
		fprintf(stderr, "zs0pack: %s: the packed stream does not fit %zu bytes\n", argv[1],
			sizeof(out));
		return 1;
	}
	if (zs0_decode(&model, out, olen, back, len) || memcmp(back, in, len)) {
		fprintf(stderr, "zs0pack: %s: decoding the packed stream does not give the input back; "
			"nothing written\n", argv[1]);
		return 1;
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(out, 1, olen, f) != olen || fclose(f)) {
		perror(argv[2]);
		return 1;
	}
	printf("zs0pack: %s: %u -> %u bytes (%u models), decoded again and compared\n", argv[1], len,
	       olen, n);
	return 0;
}

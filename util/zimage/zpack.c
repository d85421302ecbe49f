/* SPDX-License-Identifier: MIT */
/*
 * zpack: the image body into an IBZ2 container (src/arch/x86_64/zcm.h): the x86 call/jump
 * transform, then the ZCM context-mixing coder, behind a 20-byte header with the model version,
 * both lengths and the CRC-32 of the body. The model is src/arch/x86_64/zcm.c, the very file the
 * stub decodes with; --prime gives the bytes the model learns first (the stub's own image, which
 * it holds when it decodes: build/zimage/zstub.bin). The container is decoded again before it is
 * written.
 *
 * usage: zpack [--no-x86] [--prime FILE] BODY OUT
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "zcm.h"

/* The whole file into a malloc'd buffer (NULL on error, said); *len its length. */
static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 20;
	uint8_t *buf = malloc(cap);

	*len = 0;
	if (!f || !buf) {
		perror(path);
		return NULL;
	}
	for (size_t n; (n = fread(buf + *len, 1, cap - *len, f)) > 0;) {
		*len += n;
		if (*len == cap && !(buf = realloc(buf, cap *= 2))) {
			perror(path);
			return NULL;
		}
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	int x86 = 1, a = 1;
	FILE *f;
	uint8_t *body, *work, *z, *back, *prime = NULL;
	size_t len = 0, zlen, got, prime_len = 0;
	void *arena;
	struct timespec t0, t1;

	if (argc > a && !strcmp(argv[a], "--no-x86")) {
		x86 = 0;
		a++;
	}
	if (argc - a > 2 && !strcmp(argv[a], "--prime")) {
		prime = read_file(argv[a + 1], &prime_len);
		if (!prime)
			return 1;
		if (!prime_len || prime_len > ZCM_PRIME_MAX) {
			fprintf(stderr, "zpack: %s: %zu bytes to prime with; 1 to %u allowed\n",
				argv[a + 1], prime_len, ZCM_PRIME_MAX);
			return 1;
		}
		a += 2;
	}
	if (argc - a != 2) {
		fprintf(stderr, "usage: zpack [--no-x86] [--prime FILE] BODY OUT\n");
		return 2;
	}
	body = read_file(argv[a], &len);
	if (!body)
		return 1;
	work = malloc(len + 1);
	memcpy(work, body, len);
	if (x86)
		zcm_x86_encode(work, len);
	zlen = len + len / 2 + 64;
	z = malloc(IBZ_HEADER_LEN + zlen);
	arena = malloc(ZCM_ARENA_BYTES);
	back = malloc(len + 1);
	if (!work || !z || !arena || !back) {
		fprintf(stderr, "zpack: out of memory\n");
		return 1;
	}
	zlen = zcm_encode(work, len, z + IBZ_HEADER_LEN, zlen, arena, prime, prime_len);
	if (!zlen && len) {
		fprintf(stderr, "zpack: output buffer too small\n");
		return 1;
	}
	ibz_put_header(z, (uint32_t)len, (uint32_t)zlen, zcm_crc32(body, len), x86,
		       (uint32_t)prime_len);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = ibz_unpack(z, IBZ_HEADER_LEN + zlen, back, len, arena, prime, prime_len, &got);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc || got != len || memcmp(back, body, len)) {
		fprintf(stderr, "zpack: the container does not decode to the body: %s\n",
			zcm_strerror(rc));
		return 1;
	}
	f = fopen(argv[a + 1], "wb");
	if (!f || fwrite(z, 1, IBZ_HEADER_LEN + zlen, f) != IBZ_HEADER_LEN + zlen || fclose(f)) {
		perror(argv[a + 1]);
		return 1;
	}
	printf("%s: %zu -> %zu bytes (ZCM v%d%s%s; decoded again in %.0f ms)\n", argv[a + 1], len,
	       IBZ_HEADER_LEN + zlen, ZCM_VERSION, x86 ? ", x86 transform" : "",
	       prime ? ", primed" : "",
	       (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
	return 0;
}

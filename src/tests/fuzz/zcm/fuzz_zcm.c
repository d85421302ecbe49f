/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: any bytes as the compressed image's payload. First byte even: the rest is an IBZ2
 * container (header checks, ZCM, the x86 transform's inverse, CRC) unpacked into a buffer of the
 * size bytes 2-3 give; odd: the rest is a bare ZCM stream decoded to that length (and the x86
 * inverse run over it when bit 1 is set). Either way the model is primed with the first
 * byte 1 bytes of the rest (at most all of it), in a buffer of their own. Buffers are malloc'd at their exact size, so ASan
 * catches any access outside them; the decoder must answer with a status it can name.
 */
#include <stdlib.h>
#include <string.h>
#include "zcm.h"

static void *arena;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	size_t cap, got, plen;
	uint8_t *in, *out, *prime;
	int rc;

	if (len < 4)
		return 0;
	if (!arena)
		arena = malloc(ZCM_ARENA_BYTES);
	cap = (size_t)data[2] << 8 | data[3];
	in = malloc(len - 4 ? len - 4 : 1);
	out = malloc(cap ? cap : 1);
	memcpy(in, data + 4, len - 4);
	plen = data[1] < len - 4 ? data[1] : len - 4;
	prime = malloc(plen ? plen : 1);
	memcpy(prime, data + 4, plen);
	if (!(data[0] & 1)) {
		rc = ibz_unpack(in, len - 4, out, cap, arena, prime, plen, &got);
		if (rc == ZCM_OK ? got > cap : got != 0)
			__builtin_trap();
	} else {
		rc = zcm_decode(in, len - 4, out, cap, arena, prime, plen);
		if (rc == ZCM_OK && data[0] & 2)
			zcm_x86_decode(out, cap);
	}
	if (!strcmp(zcm_strerror(rc), "unknown error"))
		__builtin_trap();
	free(in);
	free(out);
	free(prime);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: any bytes as the compressed image's payload. First byte even: the bytes are an IBZ1
 * container (header checks, LZMA1, BCJ, CRC) unpacked into a buffer of the size the second and
 * third bytes give; odd: byte 1 is the LZMA properties, bytes 2-3 the output length, the rest a
 * raw LZMA1 stream. Buffers are malloc'd at their exact size, so ASan catches any access outside
 * them; the decoder must answer with a status it can name.
 */
#include <stdlib.h>
#include <string.h>
#include "unlzma.h"

static uint16_t probs[UNLZMA_PROBS_MAX];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	size_t cap, got;
	uint8_t *in, *out;
	int rc;

	if (len < 4)
		return 0;
	cap = (size_t)data[2] << 8 | data[3];
	in = malloc(len - 4 ? len - 4 : 1);
	out = malloc(cap ? cap : 1);
	memcpy(in, data + 4, len - 4);
	if (!(data[0] & 1)) {
		rc = ibz_unpack(in, len - 4, out, cap, probs, &got);
		if (rc == UNLZMA_OK ? got > cap : got != 0)
			__builtin_trap();
	} else {
		rc = unlzma(in, len - 4, out, cap, data[1], probs);
		if (rc == UNLZMA_OK && data[0] & 2)
			unbcj_x86(out, cap);
	}
	if (!strcmp(unlzma_strerror(rc), "unknown error"))
		__builtin_trap();
	free(in);
	free(out);
	return 0;
}

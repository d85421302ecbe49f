/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the FWDUMP parser on arbitrary input (it reads files people hand it). */
#include <stddef.h>
#include <stdint.h>
#include "fwdump_parse.h"

static unsigned segments;

static void on_segment(void *ctx, const struct fwdump_segment *seg)
{
	(void)ctx;
	/* Touch what the decoder would read: every word the header promised. */
	for (unsigned i = 0; i < seg->ndwords; i++)
		segments += seg->w[i] & 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct fwdump_callbacks cb = { NULL, on_segment, NULL, NULL };
	char err[200], attr[32];

	if (fwdump_parse((const char *)data, size, &cb, err, sizeof(err)) < 0 && !err[0])
		__builtin_trap();   /* a refusal always says why */
	fwdump_attr("a=1 bb=22 c", "bb", attr, sizeof(attr));
	return 0;
}

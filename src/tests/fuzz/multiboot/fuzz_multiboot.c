/* libFuzzer: any bytes as a multiboot kernel — every accepted segment lies inside the file. */
#include <ibboot/image.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct multiboot_info_parsed mb;
	const char *why = NULL;

	if (multiboot_parse(data, len, &mb, &why) != 0)
		return 0;
	if (mb.n_segments == 0 || mb.n_segments > MB_MAX_SEGMENTS)
		__builtin_trap();
	for (unsigned i = 0; i < mb.n_segments; i++) {
		const struct mb_segment *s = &mb.seg[i];

		if (s->file_off > len || s->file_len > len - s->file_off || s->file_len > s->mem_len ||
		    (uint64_t)s->paddr + s->mem_len > 0x100000000ull)
			__builtin_trap();
	}
	return 0;
}

/* libFuzzer: any bytes as a bzImage — the setup-header parser must accept or refuse cleanly. */
#include <ibboot/image.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct bzimage_info bz;
	const char *why = NULL;

	if (bzimage_parse(data, len, &bz, &why) == 0) {
		/* Whatever it accepted must describe this file. */
		if (bz.setup_len + bz.kernel_len != len || bz.header_end > bz.setup_len ||
		    bz.kernel_len <= 0x200 || bz.version < 0x020c)
			__builtin_trap();
	} else if (!why) {
		__builtin_trap();
	}
	return 0;
}

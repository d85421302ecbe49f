/* SPDX-License-Identifier: MIT */
/* Hexadecimal digits and byte strings, for everything that reads or prints hex bytes. */
#include <ibboot/hex.h>
#include <ibboot/errno.h>

int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int hex_decode(const char *s, uint8_t *out, size_t size, unsigned flags)
{
	size_t n = 0;

	while (*s) {
		int hi = hex_digit(s[0]), lo = hi >= 0 ? hex_digit(s[1]) : -1;

		if (hi < 0 || lo < 0 || n == size)
			return -EINVAL;
		out[n++] = (uint8_t)(hi << 4 | lo);
		s += 2;
		if ((flags & HEX_SEPARATORS) && (*s == ':' || *s == '-'))
			s++;
	}
	return n ? (int)n : -EINVAL;
}

char *hex_encode(const uint8_t *in, size_t n, char sep, char *out)
{
	static const char digits[] = "0123456789abcdef";
	char *o = out;

	for (size_t i = 0; i < n; i++) {
		if (i && sep)
			*o++ = sep;
		*o++ = digits[in[i] >> 4];
		*o++ = digits[in[i] & 15];
	}
	*o = '\0';
	return out;
}

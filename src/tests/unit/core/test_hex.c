/* SPDX-License-Identifier: MIT */
/* The one hex parser: digits, byte strings with and without separators, limits, round trips. */
#include "test.h"
#include <ibboot/errno.h>
#include <ibboot/hex.h>

TEST(hex_digits)
{
	CHECK_EQ(hex_digit('0'), 0);
	CHECK_EQ(hex_digit('9'), 9);
	CHECK_EQ(hex_digit('a'), 10);
	CHECK_EQ(hex_digit('F'), 15);
	CHECK_EQ(hex_digit('g'), -1);
	CHECK_EQ(hex_digit(':'), -1);
	CHECK_EQ(hex_digit('\0'), -1);
}

TEST(hex_decode_plain_and_separated)
{
	uint8_t b[8];

	CHECK_EQ(hex_decode("ff0012", b, sizeof(b), 0), 3);
	CHECK_EQ(b[0], 0xff);
	CHECK_EQ(b[1], 0x00);
	CHECK_EQ(b[2], 0x12);
	CHECK_EQ(hex_decode("FF:00-1a", b, sizeof(b), HEX_SEPARATORS), 3);
	CHECK_EQ(b[2], 0x1a);
	CHECK_EQ(hex_decode("ff:00", b, sizeof(b), 0), -EINVAL);        /* no separators asked */
	CHECK_EQ(hex_decode("", b, sizeof(b), HEX_SEPARATORS), -EINVAL);
	CHECK_EQ(hex_decode("abc", b, sizeof(b), 0), -EINVAL);          /* odd digit count */
	CHECK_EQ(hex_decode("a:bc", b, sizeof(b), HEX_SEPARATORS), -EINVAL);
	CHECK_EQ(hex_decode("0g", b, sizeof(b), 0), -EINVAL);
	CHECK_EQ(hex_decode("0011223344556677", b, 8, 0), 8);           /* exactly full */
	CHECK_EQ(hex_decode("001122334455667788", b, 8, 0), -EINVAL);   /* one too many */
}

TEST(hex_encode_round_trip)
{
	uint8_t in[256], back[256];
	char s[3 * 256 + 1];

	for (unsigned i = 0; i < 256; i++)
		in[i] = (uint8_t)(i * 7 + 3);
	CHECK_EQ(strlen(hex_encode(in, 256, 0, s)), 512);
	CHECK_EQ(hex_decode(s, back, sizeof(back), 0), 256);
	CHECK_MEM(in, back, 256);
	CHECK_STR(hex_encode(in, 3, ':', s), "03:0a:11");
	CHECK_EQ(hex_decode(s, back, sizeof(back), HEX_SEPARATORS), 3);
	CHECK_STR(hex_encode(in, 0, ':', s), "");
}

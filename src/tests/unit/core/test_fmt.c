/* SPDX-License-Identifier: MIT */
/* ksnprintf: every conversion, flag and length the firmware uses, checked against exact text. */
#include "test.h"
#include <ibboot/console.h>

#include <sys/types.h>

/* The tests pass formats gcc would warn about on purpose (odd flags, mismatched lengths), straight
 * to ksnprintf, the function the firmware calls. */
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
#pragma GCC diagnostic ignored "-Wformat-overflow"

#define FMT_CHECK(expect, ...)                                          \
	do {                                                            \
		char b_[128];                                           \
		int n_ = ksnprintf(b_, sizeof(b_), __VA_ARGS__);    \
		CHECK_STR(b_, expect);                                  \
		CHECK_EQ(n_, strlen(expect));                           \
	} while (0)

TEST(fmt_integers)
{
	FMT_CHECK("0 -1 2147483647 -2147483648", "%d %d %d %d", 0, -1, 2147483647, (int)-2147483648);
	FMT_CHECK("4294967295", "%u", 4294967295u);
	FMT_CHECK("ff FF 0xff 17", "%x %X %#x %o", 255, 255, 255, 15);
	FMT_CHECK("9A0F 0X1B", "%X %#X", 0x9a0f, 0x1b);
	FMT_CHECK("ffffffffffffffff", "%lx", 0xffffffffffffffffUL);
	FMT_CHECK("123456789abcdef0", "%llx", 0x123456789abcdef0ULL);
	FMT_CHECK("-9223372036854775808", "%lld", (long long)(-9223372036854775807LL - 1));
	FMT_CHECK("18446744073709551615", "%llu", 18446744073709551615ULL);
	FMT_CHECK("-5 250", "%hhd %hhu", (signed char)-5, (unsigned char)250);
	FMT_CHECK("65535 -1", "%hu %hd", 65535, (short)-1);
	FMT_CHECK("4096 -3", "%zu %zd", (size_t)4096, (ssize_t)-3);
}

TEST(fmt_width_and_padding)
{
	FMT_CHECK("   42", "%5d", 42);
	FMT_CHECK("00042", "%05d", 42);
	FMT_CHECK("42   |", "%-5d|", 42);
	FMT_CHECK("-0042", "%05d", -42);
	FMT_CHECK("  -42", "%5d", -42);
	FMT_CHECK("0x00ff", "%#06x", 255);
	FMT_CHECK("000000000000beef", "%016llx", 0xbeefULL);
	FMT_CHECK("42", "%1d", 42);   /* width smaller than the number */
	FMT_CHECK("   7|7   |", "%*d|%-*d|", 4, 7, 4, 7);
	FMT_CHECK("7   |", "%*d|", -4, 7);   /* negative * width means left-justify */
	FMT_CHECK("42   |", "%-05d|", 42);   /* '-' overrides '0' */
	FMT_CHECK("00:1f.3", "%02x:%02x.%x", 0, 0x1f, 3);
}

TEST(fmt_strings_chars_pointers)
{
	FMT_CHECK("hello", "%s", "hello");
	FMT_CHECK("  abc|abc  |", "%5s|%-5s|", "abc", "abc");
	FMT_CHECK("ab", "%.2s", "abcdef");
	FMT_CHECK("abc", "%.*s", 3, "abcdef");
	FMT_CHECK("(null)", "%s", (char *)NULL);
	FMT_CHECK("x  y", "%c%3c", 'x', 'y');
	FMT_CHECK("0x1000", "%p", (void *)0x1000);
	FMT_CHECK("100% sure", "%d%% sure", 100);
	FMT_CHECK("%q", "%q");   /* unknown conversions are shown, not guessed */
}

/* %'u: the uint32_t ipv4_ntoa takes (host byte order) as a dotted quad; the compilers check its
 * argument as they check %u's. */
TEST(fmt_ipv4_address)
{
	FMT_CHECK("198.18.0.2", "%'u", 0xc6120002u);
	FMT_CHECK("0.0.0.0 255.255.255.255", "%'u %'u", 0u, 0xffffffffu);
	FMT_CHECK("[10.0.0.1]:80", "[%'u]:%u", 0x0a000001u, 80u);
	FMT_CHECK("127.0.0.1", "%'u", (uint32_t)0x7f000001);
}

TEST(fmt_truncation)
{
	char b[8];

	memset(b, 'Z', sizeof(b));
	CHECK_EQ(ksnprintf(b, sizeof(b), "%s", "0123456789"), 10);   /* full length returned */
	CHECK_STR(b, "0123456");
	CHECK_EQ(ksnprintf(b, 1, "abc"), 3);
	CHECK_EQ(b[0], '\0');
	b[0] = 'Q';
	CHECK_EQ(ksnprintf(b, 0, "abc"), 3);   /* size 0: nothing written */
	CHECK_EQ(b[0], 'Q');
}

/* SPDX-License-Identifier: MIT */
/* The console's line ring (console_log.c): last N lines, oldest first, bounded by the ring. */
#include "test.h"
#include <ibboot/console_log.h>

static void feed(const char *s)
{
	while (*s)
		console_log_char(*s++);
}

TEST(console_log_last_lines_in_order)
{
	char buf[256];

	console_log_reset();
	CHECK_EQ(console_log_lines(buf, sizeof(buf), 3), 0);
	CHECK_EQ(buf[0], '\0');
	feed("one\r\ntwo\nthree\nfour\n");
	CHECK_EQ(console_log_lines(buf, sizeof(buf), 2), 11);
	CHECK(strcmp(buf, "three\nfour\n") == 0);
	CHECK_EQ(console_log_lines(buf, sizeof(buf), 10), 19);
	CHECK(strcmp(buf, "one\ntwo\nthree\nfour\n") == 0);   /* CR left out */
	/* A line still being written counts, and gets its newline in the copy. */
	feed("fiv");
	CHECK_EQ(console_log_lines(buf, sizeof(buf), 2), 9);
	CHECK(strcmp(buf, "four\nfiv\n") == 0);
}

TEST(console_log_bounded_by_ring_and_buffer)
{
	static char big[CONSOLE_LOG_BYTES + 8];
	char small[8];
	size_t n;

	console_log_reset();
	for (unsigned i = 0; i < 3 * CONSOLE_LOG_BYTES / 10; i++)
		feed("123456789\n");
	feed("last\n");
	/* More lines asked than the ring holds: what it holds, the oldest possibly cut. */
	n = console_log_lines(big, sizeof(big), 100000);
	CHECK(n <= CONSOLE_LOG_BYTES + 1);
	CHECK(n >= CONSOLE_LOG_BYTES - 10);
	CHECK(strcmp(big + n - 5, "last\n") == 0);
	/* A small buffer gets the newest characters, NUL-terminated. */
	n = console_log_lines(small, sizeof(small), 1);
	CHECK_EQ(n, 5);
	CHECK(strcmp(small, "last\n") == 0);
	n = console_log_lines(small, 4, 1);   /* room for 2 characters + newline/NUL */
	CHECK_EQ(n, 2);
	CHECK(strcmp(small, "t\n") == 0);
	CHECK_EQ(console_log_lines(small, 0, 1), 0);
}

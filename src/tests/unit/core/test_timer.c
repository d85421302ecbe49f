/* SPDX-License-Identifier: MIT */
/* Counter arithmetic: tick/µs/ms conversions at awkward frequencies, saturation, and wrap. */
#include "test.h"
#include <ibboot/timer.h>

TEST(timer_conversions)
{
	CHECK_EQ(ticks_to_us(1000000000ull, 1000000000ull), 1000000);
	CHECK_EQ(ticks_to_us(2596, 2597000000ull), 0);          /* 0.9996 µs rounds down */
	CHECK_EQ(ticks_to_us(2597, 2597000000ull), 1);
	CHECK_EQ(ticks_to_us(2597000, 2597000000ull), 1000);
	CHECK_EQ(ticks_to_ms(3 * 1193182ull, 1193182ull), 3000);
	CHECK_EQ(ticks_to_ms(1193181, 1193182ull), 999);
	/* Big values stay exact: a year of a 3 GHz TSC. */
	uint64_t year = 365ull * 24 * 3600;
	CHECK_EQ(ticks_to_us(year * 3000000000ull + 1500, 3000000000ull), year * 1000000 + 0);
	CHECK_EQ(ticks_to_us(year * 3000000000ull + 3000, 3000000000ull), year * 1000000 + 1);
	/* Results that cannot fit saturate rather than wrap. */
	CHECK_EQ(ticks_to_us(UINT64_MAX, 1), UINT64_MAX);
}

TEST(timer_us_to_ticks_rounds_up)
{
	CHECK_EQ(us_to_ticks(1, 1000000000ull), 1000);
	CHECK_EQ(us_to_ticks(1, 3), 1);              /* 3e-6 ticks: never wait zero */
	CHECK_EQ(us_to_ticks(0, 3000000000ull), 0);
	CHECK_EQ(us_to_ticks(1000001, 2597000000ull), 2597002597ull);
	CHECK_EQ(us_to_ticks(UINT64_MAX, 3000000000ull), UINT64_MAX);
	/* Round trip never loses time the caller asked for. */
	for (uint64_t us = 0; us < 5000; us += 7)
		CHECK(ticks_to_us(us_to_ticks(us, 1193182), 1193182) >= us);
}

TEST(timer_elapsed_wraps)
{
	CHECK_EQ(ticks_elapsed(10, 25, UINT64_MAX), 15);
	CHECK_EQ(ticks_elapsed(UINT64_MAX - 4, 5, UINT64_MAX), 10);
	CHECK_EQ(ticks_elapsed(0xfffffff0u, 0x10, 0xffffffffu), 0x20);   /* 32-bit counter */
}

TEST(timer_mono_clock_across_wrap)
{
	struct mono_clock c;
	const uint64_t mask = 0xffffff;   /* a 24-bit counter at 1 MHz wraps every ~16.7 s */
	uint64_t raw = mask - 500000;     /* start half a second before the wrap */

	mono_clock_init(&c, 1000000, mask, raw);
	CHECK_EQ(mono_clock_update(&c, raw), 0);
	for (int i = 0; i < 100; i++) {   /* 100 steps of 0.25 s = 25 s, wrapping once */
		raw = (raw + 250000) & mask;
		mono_clock_update(&c, raw);
	}
	CHECK_EQ(c.ticks, 25000000);
	CHECK_EQ(ticks_to_ms(c.ticks, c.hz), 25000);
	/* Sampling a value above the mask must not corrupt the clock. */
	mono_clock_update(&c, raw | ~mask);
	CHECK_EQ(c.ticks, 25000000);
}

TEST(timer_system_clock_advances)
{
	uint64_t t0 = clock_us();

	udelay(2000);
	CHECK(clock_us() - t0 >= 2000);   /* a lower bound only: never a timing assertion */
	uint64_t m0 = clock_ms();
	mdelay(3);
	CHECK(clock_ms() - m0 >= 3);
}

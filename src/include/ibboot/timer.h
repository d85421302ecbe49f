/* SPDX-License-Identifier: MIT */
/*
 * Time: a free-running platform counter (TSC on pcbios, clock_gettime on hosted) turned into
 * microseconds and a monotonic millisecond clock. The conversion helpers are pure so tests can
 * check them with any frequency and counter width.
 */
#ifndef IBBOOT_TIMER_H
#define IBBOOT_TIMER_H

#include <ibboot/compiler.h>

/* ticks → µs / ms (rounded down, saturating) and back, without 128-bit division. hz must be
 * between 1 and 2^44 (16 THz). */
uint64_t ticks_to_us(uint64_t ticks, uint64_t hz);
uint64_t ticks_to_ms(uint64_t ticks, uint64_t hz);
uint64_t us_to_ticks(uint64_t us, uint64_t hz);   /* rounds up, saturates at UINT64_MAX */

/* Elapsed ticks between two counter samples of a counter `mask` wide (wraps once at most). */
static inline uint64_t ticks_elapsed(uint64_t from, uint64_t to, uint64_t mask)
{
	return (to - from) & mask;
}

/*
 * A monotonic clock fed with raw counter samples; survives counter wrap as long as it is sampled
 * at least once per wrap period. It accumulates whole ticks, so no time is lost to rounding.
 */
struct mono_clock {
	uint64_t hz, mask;
	uint64_t last;    /* last raw sample */
	uint64_t ticks;   /* ticks since init */
};

void mono_clock_init(struct mono_clock *c, uint64_t hz, uint64_t mask, uint64_t now);
/* Feeds a sample; returns ticks since init. */
uint64_t mono_clock_update(struct mono_clock *c, uint64_t now);

/* The system clock (over the platform counter). */
uint64_t clock_ms(void);
uint64_t clock_us(void);   /* µs since start; wraps after ~584000 years */
/* Busy-wait at least us / ms. Software devices keep running (plat_poll), the network stack does
 * not: a driver waiting for its device must not re-enter the stack. */
void udelay(uint64_t us);
void mdelay(uint64_t ms);

#endif

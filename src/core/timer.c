/* SPDX-License-Identifier: MIT */
/* Counter arithmetic and the system clock. */
#include <ibboot/timer.h>
#include <ibboot/platform.h>

/* ticks * unit / hz, rounded down, saturating. Splitting ticks into whole seconds and a remainder
 * keeps every product within 64 bits for hz <= 2^44 and unit <= 10^6. */
static uint64_t scale_down(uint64_t ticks, uint64_t hz, uint64_t unit)
{
	uint64_t whole, part;

	if (__builtin_mul_overflow(ticks / hz, unit, &whole))
		return UINT64_MAX;
	part = (ticks % hz) * unit / hz;
	if (__builtin_add_overflow(whole, part, &whole))
		return UINT64_MAX;
	return whole;
}

uint64_t ticks_to_us(uint64_t ticks, uint64_t hz)
{
	return scale_down(ticks, hz, 1000000);
}

uint64_t ticks_to_ms(uint64_t ticks, uint64_t hz)
{
	return scale_down(ticks, hz, 1000);
}

uint64_t us_to_ticks(uint64_t us, uint64_t hz)
{
	uint64_t whole, part;

	if (__builtin_mul_overflow(us / 1000000, hz, &whole))
		return UINT64_MAX;
	part = ((us % 1000000) * hz + 999999) / 1000000;   /* round up: never wait too little */
	if (__builtin_add_overflow(whole, part, &whole))
		return UINT64_MAX;
	return whole;
}

void mono_clock_init(struct mono_clock *c, uint64_t hz, uint64_t mask, uint64_t now)
{
	c->hz = hz;
	c->mask = mask;
	c->last = now & mask;
	c->ticks = 0;
}

uint64_t mono_clock_update(struct mono_clock *c, uint64_t now)
{
	now &= c->mask;
	c->ticks += ticks_elapsed(c->last, now, c->mask);
	c->last = now;
	return c->ticks;
}

static struct mono_clock sys_clock;
static bool sys_clock_ready;

static uint64_t sys_ticks(void)
{
	if (!sys_clock_ready) {
		mono_clock_init(&sys_clock, plat_counter_hz(), plat_counter_mask(), plat_counter());
		sys_clock_ready = true;
	}
	return mono_clock_update(&sys_clock, plat_counter());
}

uint64_t clock_ms(void)
{
	uint64_t t = sys_ticks();

	return ticks_to_ms(t, sys_clock.hz);
}

uint64_t clock_us(void)
{
	uint64_t t = sys_ticks();

	return ticks_to_us(t, sys_clock.hz);
}

void udelay(uint64_t us)
{
	uint64_t start = sys_ticks();
	uint64_t need = us_to_ticks(us, sys_clock.hz);

	/* Keep software devices (hosted) running while a driver waits for them. */
	while (sys_ticks() - start < need) {
		plat_poll();
		plat_cpu_relax();
	}
}

void mdelay(uint64_t ms)
{
	while (ms--)
		udelay(1000);
}

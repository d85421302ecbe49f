/* SPDX-License-Identifier: MIT */
/* Time from the TSC, its rate measured against PIT channel 2 (whose gate and output are visible
 * in port 0x61, so no interrupts are needed). */
#include "pcbios.h"
#include <arch/x86.h>
#include <ibboot/console.h>
#include <ibboot/tsc_rate.h>

#define PIT_HZ        1193182ull
#define PIT_CH2       0x42
#define PIT_MODE      0x43
#define PORT_B        0x61
#define  PORTB_GATE2   0x01
#define  PORTB_SPEAKER 0x02
#define  PORTB_OUT2    0x20
#define CALIBRATE_MS  50

static uint64_t tsc_hz = TSC_HZ_UPPER_BOUND;   /* until calibrated: waits only get longer */

static void tsc_read_cpuid(struct tsc_cpuid *c)
{
	uint32_t b, cx, d;

	cpuid(0, &c->max_leaf, &b, &cx, &d);
	if (c->max_leaf >= 0x15)
		cpuid(0x15, &c->l15_eax, &c->l15_ebx, &c->l15_ecx, &d);
	if (c->max_leaf >= 0x16)
		cpuid(0x16, &c->l16_eax, &b, &cx, &d);
}

void tsc_calibrate(void)
{
	uint16_t latch = (uint16_t)(PIT_HZ * CALIBRATE_MS / 1000);
	uint8_t portb = inb(PORT_B);
	uint64_t start, end;
	unsigned long spins = 0;

	outb(PORT_B, (portb & ~PORTB_SPEAKER) | PORTB_GATE2);
	outb(PIT_MODE, 0xb0);   /* channel 2, lobyte/hibyte, mode 0 (interrupt on terminal count) */
	outb(PIT_CH2, latch & 0xff);
	outb(PIT_CH2, latch >> 8);
	start = rdtsc();
	while (!(inb(PORT_B) & PORTB_OUT2) && ++spins < 100000000ul)
		;
	end = rdtsc();
	outb(PORT_B, portb);

	if (spins >= 100000000ul || end <= start) {
		struct tsc_cpuid c = { 0 };
		const char *source;

		tsc_read_cpuid(&c);
		tsc_hz = tsc_choose_hz(0, &c, &source);
		kprintf("timer: TSC at %llu MHz, %s\n", (unsigned long long)(tsc_hz / 1000000),
			source);
		return;
	}
	tsc_hz = (end - start) * PIT_HZ / latch;
}

uint64_t plat_counter_hz(void)
{
	return tsc_hz;
}

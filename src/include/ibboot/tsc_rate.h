/* SPDX-License-Identifier: MIT */
/*
 * The TSC's rate when it cannot be measured. The pcbios platform measures the TSC against PIT
 * channel 2; where the PIT does not count (no legacy PIT, a broken emulation) the rate comes from
 * CPUID, and failing that from a bound chosen so that every timeout lasts at least as long as
 * asked: timeouts count TSC ticks, so assuming a rate above the real one only makes waits longer.
 */
#ifndef IBBOOT_TSC_RATE_H
#define IBBOOT_TSC_RATE_H

#include <ibboot/compiler.h>

/* No x86 TSC runs this fast: with it, a timeout lasts up to (this / real rate) times longer than
 * asked, never shorter. */
#define TSC_HZ_UPPER_BOUND 10000000000ull

/* What CPUID says about the TSC (Intel SDM vol. 2A, CPUID): leaf 0x15 EAX/EBX is the TSC to core
 * crystal clock ratio (denominator/numerator) and ECX the crystal's Hz (0: not enumerated); leaf
 * 0x16 EAX the processor base frequency in MHz. Leaves above max_leaf are not read. */
struct tsc_cpuid {
	uint32_t max_leaf;
	uint32_t l15_eax, l15_ebx, l15_ecx;
	uint32_t l16_eax;
};

/* The TSC rate in Hz from CPUID, or 0 if CPUID does not tell. */
uint64_t tsc_hz_from_cpuid(const struct tsc_cpuid *c);

/* The rate to use: the PIT measurement when pit_hz != 0, else CPUID's, else TSC_HZ_UPPER_BOUND.
 * *source says which, for the console. */
uint64_t tsc_choose_hz(uint64_t pit_hz, const struct tsc_cpuid *c, const char **source);

#endif

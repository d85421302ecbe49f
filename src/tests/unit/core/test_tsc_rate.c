/* SPDX-License-Identifier: MIT */
/* The TSC rate when the PIT does not count: CPUID leaves 0x15/0x16, else a bound that only makes
 * timeouts longer. */
#include "test.h"
#include <ibboot/tsc_rate.h>

TEST(tsc_rate_from_cpuid_leaf_15_with_crystal)
{
	/* 24 MHz crystal, ratio 2/250: 3 GHz */
	struct tsc_cpuid c = { .max_leaf = 0x16, .l15_eax = 2, .l15_ebx = 250, .l15_ecx = 24000000,
			       .l16_eax = 2900 };

	CHECK_EQ(tsc_hz_from_cpuid(&c), 3000000000ull);
}

TEST(tsc_rate_from_cpuid_leaf_16_when_crystal_unknown)
{
	struct tsc_cpuid c = { .max_leaf = 0x16, .l15_eax = 2, .l15_ebx = 200, .l16_eax = 2100 };

	CHECK_EQ(tsc_hz_from_cpuid(&c), 2100000000ull);
	c.l15_eax = c.l15_ebx = 0;   /* no ratio either: still the base frequency */
	CHECK_EQ(tsc_hz_from_cpuid(&c), 2100000000ull);
}

TEST(tsc_rate_cpuid_leaves_beyond_max_are_ignored)
{
	struct tsc_cpuid c = { .max_leaf = 0x0d, .l15_eax = 2, .l15_ebx = 250, .l15_ecx = 24000000,
			       .l16_eax = 2900 };

	CHECK_EQ(tsc_hz_from_cpuid(&c), 0);
	c.max_leaf = 0x15;
	c.l15_ecx = 0;   /* leaf 0x15 without a crystal and no leaf 0x16 */
	CHECK_EQ(tsc_hz_from_cpuid(&c), 0);
}

/* No PIT and no CPUID answer: not a guess of 1 GHz (a 3 GHz CPU would time out 3x too early)
 * but the upper bound, so every timeout lasts at least as long as asked. */
TEST(tsc_rate_no_pit_no_cpuid_uses_the_upper_bound)
{
	struct tsc_cpuid none = { .max_leaf = 0x0d };
	struct tsc_cpuid cpuid = { .max_leaf = 0x16, .l16_eax = 3000 };
	const char *src = NULL;

	CHECK_EQ(tsc_choose_hz(2400000000ull, &none, &src), 2400000000ull);
	CHECK(strstr(src, "PIT") != NULL);
	CHECK_EQ(tsc_choose_hz(0, &cpuid, &src), 3000000000ull);
	CHECK(strstr(src, "CPUID") != NULL);
	CHECK_EQ(tsc_choose_hz(0, &none, &src), TSC_HZ_UPPER_BOUND);
	CHECK(strstr(src, "upper bound (longer timeouts)") != NULL);
	/* The bound is above any real TSC: a 5 GHz part waits at least as long as asked. */
	CHECK(TSC_HZ_UPPER_BOUND >= 5000000000ull);
}

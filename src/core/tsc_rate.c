/* SPDX-License-Identifier: MIT */
/* The TSC rate from CPUID, and the choice between measurement, CPUID and a safe bound. */
#include <ibboot/tsc_rate.h>

uint64_t tsc_hz_from_cpuid(const struct tsc_cpuid *c)
{
	if (c->max_leaf >= 0x15 && c->l15_eax && c->l15_ebx) {
		/* TSC = crystal * EBX / EAX (SDM: "Time Stamp Counter and Core Crystal Clock"). */
		if (c->l15_ecx)
			return (uint64_t)c->l15_ecx * c->l15_ebx / c->l15_eax;
		/* Crystal not enumerated: the base frequency is the TSC's nominal rate (Linux
		 * native_calibrate_tsc derives the crystal from leaf 0x16 the same way). */
		if (c->max_leaf >= 0x16 && c->l16_eax)
			return (uint64_t)c->l16_eax * 1000000u;
		return 0;
	}
	if (c->max_leaf >= 0x16 && c->l16_eax)
		return (uint64_t)c->l16_eax * 1000000u;
	return 0;
}

uint64_t tsc_choose_hz(uint64_t pit_hz, const struct tsc_cpuid *c, const char **source)
{
	uint64_t hz;

	if (pit_hz) {
		*source = "measured by PIT";
		return pit_hz;
	}
	hz = tsc_hz_from_cpuid(c);
	if (hz && hz <= TSC_HZ_UPPER_BOUND) {
		*source = "from CPUID 0x15/0x16 (no PIT)";
		return hz;
	}
	*source = "unknown (no PIT, no CPUID): upper bound (longer timeouts)";
	return TSC_HZ_UPPER_BOUND;
}

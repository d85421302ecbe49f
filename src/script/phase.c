/* SPDX-License-Identifier: MIT */
/* Phase lines with the time since start: "[   3.214] port 1 ACTIVE". */
#include <ibboot/script.h>
#include <ibboot/console.h>
#include <ibboot/timer.h>

void boot_phase(const char *fmt, ...)
{
	uint64_t ms = clock_ms();
	va_list ap;

	kprintf("[%4llu.%03llu] ", (unsigned long long)(ms / 1000), (unsigned long long)(ms % 1000));
	va_start(ap, fmt);
	kvprintf(fmt, ap);
	va_end(ap);
	kputc('\n');
}

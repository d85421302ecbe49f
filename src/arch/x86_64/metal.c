/* What an x86_64 CPU on the metal gives every platform that runs there (pcbios and efi alike;
 * the hosted build has its own): register accesses of the register's width, and the TSC as the
 * free-running counter. Each platform calibrates the TSC its own way and answers plat_counter_hz. */
#include <arch/x86.h>
#include <ibboot/mmio.h>
#include <ibboot/platform.h>
#include <ibboot/string.h>

void plat_mmio_read(const struct mmio *m, uint64_t off, void *bytes, unsigned size)
{
	volatile uint8_t *p = (volatile uint8_t *)m->base + off;

	/* One access of the register's width; a little-endian CPU stores it in bus order. */
	switch (size) {
	case 1: { uint8_t v = *p; memcpy(bytes, &v, 1); break; }
	case 2: { uint16_t v = *(volatile uint16_t *)p; memcpy(bytes, &v, 2); break; }
	case 4: { uint32_t v = *(volatile uint32_t *)p; memcpy(bytes, &v, 4); break; }
	case 8: { uint64_t v = *(volatile uint64_t *)p; memcpy(bytes, &v, 8); break; }
	}
}

void plat_mmio_write(const struct mmio *m, uint64_t off, const void *bytes, unsigned size)
{
	volatile uint8_t *p = (volatile uint8_t *)m->base + off;

	switch (size) {
	case 1: { uint8_t v; memcpy(&v, bytes, 1); *p = v; break; }
	case 2: { uint16_t v; memcpy(&v, bytes, 2); *(volatile uint16_t *)p = v; break; }
	case 4: { uint32_t v; memcpy(&v, bytes, 4); *(volatile uint32_t *)p = v; break; }
	case 8: { uint64_t v; memcpy(&v, bytes, 8); *(volatile uint64_t *)p = v; break; }
	}
}

uint64_t plat_counter(void)
{
	return rdtsc();
}

uint64_t plat_counter_mask(void)
{
	return UINT64_MAX;
}

void plat_cpu_relax(void)
{
	cpu_pause();
}

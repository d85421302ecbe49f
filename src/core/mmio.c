/* SPDX-License-Identifier: MIT */
/* Register accessors over the platform's byte movers (see mmio.h). */
#include <ibboot/mmio.h>
#include <ibboot/platform.h>
#include <ibboot/console.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "accessors assume a little-endian CPU");

static bool mmio_ok(const struct mmio *m, uint64_t off, unsigned size, const char *op)
{
	if (m && m->size >= size && off <= m->size - size && off % size == 0)
		return true;
	kprintf("mmio: %s of %u bytes at +%#llx: outside or misaligned in %#llx at %#llx\n",
		op, size, (unsigned long long)off,
		m ? (unsigned long long)m->size : 0ull, m ? (unsigned long long)m->phys : 0ull);
	return false;
}

#define MMIO_READ(name, type)                                           \
	type name(const struct mmio *m, uint64_t off)                   \
	{                                                               \
		type v;                                                 \
		if (!mmio_ok(m, off, sizeof(type), "read"))             \
			return (type)~(type)0;                          \
		plat_mmio_read(m, off, &v, sizeof(type));               \
		return v;                                               \
	}
#define MMIO_WRITE(name, type)                                          \
	void name(const struct mmio *m, uint64_t off, type v)           \
	{                                                               \
		if (mmio_ok(m, off, sizeof(type), "write"))             \
			plat_mmio_write(m, off, &v, sizeof(type));      \
	}

MMIO_READ(readb, uint8_t)
MMIO_READ(readw, uint16_t)
MMIO_READ(readl, uint32_t)
MMIO_READ(readq, uint64_t)
MMIO_WRITE(writeb, uint8_t)
MMIO_WRITE(writew, uint16_t)
MMIO_WRITE(writel, uint32_t)
MMIO_WRITE(writeq, uint64_t)

uint16_t readw_be(const struct mmio *m, uint64_t off) { return be16_to_cpu(readw(m, off)); }
uint32_t readl_be(const struct mmio *m, uint64_t off) { return be32_to_cpu(readl(m, off)); }
uint64_t readq_be(const struct mmio *m, uint64_t off) { return be64_to_cpu(readq(m, off)); }
void writew_be(const struct mmio *m, uint64_t off, uint16_t v) { writew(m, off, cpu_to_be16(v)); }
void writel_be(const struct mmio *m, uint64_t off, uint32_t v) { writel(m, off, cpu_to_be32(v)); }
void writeq_be(const struct mmio *m, uint64_t off, uint64_t v) { writeq(m, off, cpu_to_be64(v)); }

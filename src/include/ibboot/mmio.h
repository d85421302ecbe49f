/* SPDX-License-Identifier: MIT */
/*
 * Device register access. Every MMIO access goes through these accessors on a struct mmio handle
 * (obtained from pci_map_bar), never through a raw pointer: the hosted platform routes them to
 * software devices, pcbios to uncached mappings. The _be variants are for big-endian registers
 * (the Hermon PRM's); the plain ones are little-endian as PCI defines. Offsets are bounds-checked:
 * an access outside the mapping is refused with a console message (reads return all-ones).
 */
#ifndef IBBOOT_MMIO_H
#define IBBOOT_MMIO_H

#include <ibboot/byteorder.h>   /* cpu_to_be32() and friends for DMA structures */
#include <ibboot/compiler.h>

struct mmio {
	uint64_t phys;      /* bus address of the window */
	uint64_t size;
	/* Owned by the platform: */
	volatile void *base;
	void *ctx;
	unsigned bar;
};

uint8_t readb(const struct mmio *m, uint64_t off);
uint16_t readw(const struct mmio *m, uint64_t off);
uint32_t readl(const struct mmio *m, uint64_t off);
uint64_t readq(const struct mmio *m, uint64_t off);
void writeb(const struct mmio *m, uint64_t off, uint8_t v);
void writew(const struct mmio *m, uint64_t off, uint16_t v);
void writel(const struct mmio *m, uint64_t off, uint32_t v);
void writeq(const struct mmio *m, uint64_t off, uint64_t v);

uint16_t readw_be(const struct mmio *m, uint64_t off);
uint32_t readl_be(const struct mmio *m, uint64_t off);
uint64_t readq_be(const struct mmio *m, uint64_t off);
void writew_be(const struct mmio *m, uint64_t off, uint16_t v);
void writel_be(const struct mmio *m, uint64_t off, uint32_t v);
void writeq_be(const struct mmio *m, uint64_t off, uint64_t v);

/* Ordering between memory (descriptors, ownership bits) and MMIO (doorbells). */
static inline void mb(void)  { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void wmb(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void rmb(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

#endif

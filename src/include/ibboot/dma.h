/* SPDX-License-Identifier: MIT */
/*
 * Memory for ibboot and for devices: physically contiguous, aligned, DMA-able buffers from the
 * platform's usable RAM, and a small zeroing allocator for ordinary objects on top.
 */
#ifndef IBBOOT_DMA_H
#define IBBOOT_DMA_H

#include <ibboot/compiler.h>

/* size bytes aligned to align (power of two, up to MiBs). NULL if none fits. Not zeroed. */
void *dma_alloc(size_t size, size_t align);
/* Frees what dma_alloc returned; size must be the one allocated. */
void dma_free(void *p, size_t size);
uint64_t virt_to_bus(const void *p);
void *bus_to_virt(uint64_t bus);

/* Zeroed object memory; kfree takes no size. */
void *kzalloc(size_t size);
void kfree(void *p);

struct dma_stats {
	uint64_t total, free, largest;
	unsigned extents;
};
int dma_init(void);   /* idempotent; called on first use */
void dma_get_stats(struct dma_stats *st);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * efi: memory and MMIO. The allocator (core/dma.c) gets one pool of pages taken from the firmware
 * with AllocatePages below 4 GiB (UEFI 2.10 §7.2: AllocateMaxAddress), so every buffer the HCA
 * touches has a 32-bit bus address whatever the driver asks. UEFI identity-maps memory and MMIO
 * (§2.3.4.1), so virtual = physical = bus (no IOMMU is set up by OVMF for us) and a BAR as the
 * firmware assigned it is used where it is.
 */
#include "efi_plat.h"
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/mmio.h>
#include <ibboot/string.h>

#define MAP_MAX     256
#define POOL_MAX    MiB(512)
#define POOL_MIN    MiB(16)
#define PAGE        4096ull

static struct plat_mem_region map[MAP_MAX];
static unsigned n_map;
static efi_phys_addr pool_base;
static uint64_t pool_len;

static uint32_t plat_type(uint32_t efi_type)
{
	switch (efi_type) {
	case EFI_LOADER_CODE: case EFI_LOADER_DATA: case EFI_BOOT_SERVICES_CODE:
	case EFI_BOOT_SERVICES_DATA: case EFI_CONVENTIONAL_MEMORY: case EFI_PERSISTENT_MEMORY:
		return PLAT_MEM_RAM;
	case EFI_ACPI_RECLAIM_MEMORY:
		return PLAT_MEM_ACPI;
	case EFI_ACPI_MEMORY_NVS:
		return PLAT_MEM_NVS;
	case EFI_UNUSABLE_MEMORY:
		return PLAT_MEM_UNUSABLE;
	default:
		return PLAT_MEM_RESERVED;
	}
}

/* GetMemoryMap (§7.2.3) into map[], neighbours of one kind merged. Returns the free conventional
 * memory below 4 GiB (what the pool may take). */
static uint64_t read_memory_map(void)
{
	uint64_t size = 0, key, dsize = 0, free_low = 0;
	uint32_t dver;
	void *buf = NULL;
	efi_status s = efi_bs->get_memory_map(&size, NULL, &key, &dsize, &dver);

	n_map = 0;
	for (int tries = 0; s == EFI_BUFFER_TOO_SMALL && tries < 4; tries++) {
		if (buf)
			efi_bs->free_pool(buf);
		size += 4 * dsize;   /* the pool allocation itself may add descriptors */
		if (efi_bs->allocate_pool(EFI_LOADER_DATA, size, &buf) != EFI_SUCCESS)
			return 0;
		s = efi_bs->get_memory_map(&size, buf, &key, &dsize, &dver);
	}
	if (s != EFI_SUCCESS || !dsize) {
		kprintf("memory: GetMemoryMap failed (%s)\n", efi_strerror(s));
		if (buf)
			efi_bs->free_pool(buf);
		return 0;
	}
	for (uint64_t off = 0; off + dsize <= size; off += dsize) {
		const struct efi_memory_descriptor *d = (const void *)((uint8_t *)buf + off);
		uint64_t base = d->physical_start, len = d->number_of_pages * PAGE;
		uint32_t t = plat_type(d->type);

		if (d->type == EFI_CONVENTIONAL_MEMORY && base < GiB(4))
			free_low += MIN(len, GiB(4) - base);
		if (n_map && map[n_map - 1].type == t && map[n_map - 1].base + map[n_map - 1].len == base)
			map[n_map - 1].len += len;
		else if (n_map < MAP_MAX)
			map[n_map++] = (struct plat_mem_region){ base, len, t };
	}
	efi_bs->free_pool(buf);
	return free_low;
}

void efi_memory_init(void)
{
	uint64_t free_low = read_memory_map();
	/* Half of what is free below 4 GiB (at most 512 MiB): the rest stays with the firmware,
	 * which needs room of its own to load and start the kernel's EFI stub. */
	uint64_t want = MIN(ALIGN_DOWN(free_low / 2, MiB(1)), POOL_MAX);

	for (; want >= POOL_MIN; want /= 2) {
		efi_phys_addr a = 0xffffffffull;

		if (efi_bs->allocate_pages(EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, want / PAGE,
					   &a) == EFI_SUCCESS) {
			pool_base = a;
			pool_len = want;
			break;
		}
	}
	if (!pool_len)
		kprintf("memory: AllocatePages found no %llu MiB below 4 GiB for buffers\n",
			(unsigned long long)(POOL_MIN >> 20));
	read_memory_map();
}

void efi_memory_release(void)
{
	if (pool_len)
		efi_bs->free_pages(pool_base, pool_len / PAGE);
	pool_len = 0;
}

unsigned plat_memmap(const struct plat_mem_region **out)
{
	*out = map;
	return n_map;
}

unsigned plat_usable_ram(struct plat_mem_region *out, unsigned max)
{
	if (!pool_len || max == 0)
		return 0;
	out[0] = (struct plat_mem_region){ pool_base, pool_len, PLAT_MEM_RAM };
	kprintf("memory: %llu MiB pool at %#llx from AllocatePages (below 4 GiB)\n",
		(unsigned long long)(pool_len >> 20), (unsigned long long)pool_base);
	return 1;
}

void plat_mem_handout(void *p __unused, size_t len __unused)
{
}

void plat_mem_takeback(void *p __unused, size_t len __unused)
{
}

unsigned plat_boot_modules(const struct plat_mem_region **mods)
{
	*mods = NULL;
	return 0;
}

uint64_t plat_virt_to_bus(const void *p)
{
	return (uintptr_t)p;
}

void *plat_bus_to_virt(uint64_t bus)
{
	return (void *)(uintptr_t)bus;
}

int plat_mmio_map(uint32_t bdf __unused, unsigned bar, uint64_t phys, uint64_t size, struct mmio *m)
{
	uint64_t end;

	if (size == 0 || __builtin_add_overflow(phys, size, &end))
		return -EINVAL;
	/* A BAR over RAM the memory map lists is a misprogrammed device: never map it. */
	for (unsigned i = 0; i < n_map; i++)
		if (map[i].type == PLAT_MEM_RAM && phys < map[i].base + map[i].len &&
		    map[i].base < end)
			return -EBUSY;
	*m = (struct mmio){ .phys = phys, .size = size, .base = (volatile void *)(uintptr_t)phys,
			    .bar = bar };
	return 0;
}

void plat_mmio_unmap(struct mmio *m)
{
	m->base = NULL;
	m->size = 0;
}

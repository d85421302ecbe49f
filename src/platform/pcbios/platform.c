/* SPDX-License-Identifier: MIT */
/* pcbios: memory handed to the allocator, MMIO mappings, and leaving (power off, reset). */
#include "pcbios.h"
#include "../../arch/x86_64/boot.h"
#include <arch/x86.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/mmio.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>

extern char _end[];

const char *plat_name(void)
{
	return "pcbios";
}

void plat_poll(void)
{
}

/* Maps [start, end) and reports it as usable, minus every boot module from index m on. */
static void emit_ram(struct plat_mem_region *out, unsigned *k, unsigned max, uint64_t start,
		     uint64_t end, unsigned m)
{
	const struct plat_mem_region *mods;
	unsigned n_mods = plat_boot_modules(&mods);

	for (; m < n_mods; m++) {
		uint64_t ms = ALIGN_DOWN(mods[m].base, 4096);
		uint64_t me = ALIGN_UP(mods[m].base + mods[m].len, 4096);

		if (ms < end && start < me) {
			if (start < ms)
				emit_ram(out, k, max, start, ms, m + 1);
			if (me < end)
				emit_ram(out, k, max, me, end, m + 1);
			return;
		}
	}
	if (end <= start || *k >= max)
		return;
	int rc = paging_map(start, end - start, false);
	if (rc) {
		kprintf("memory: cannot map RAM %#llx-%#llx: %s; not used\n",
			(unsigned long long)start, (unsigned long long)end, ib_strerror(rc));
		return;
	}
	out[(*k)++] = (struct plat_mem_region){ start, end - start, PLAT_MEM_RAM };
}

/* Everything below the end of the image (real-mode area, BIOS, loader data, us) stays out, and
 * so do the files the loader brought (initrd, modules). */
unsigned plat_usable_ram(struct plat_mem_region *out, unsigned max)
{
	const struct plat_mem_region *map, *mods;
	unsigned n = plat_memmap(&map), k = 0, n_mods = plat_boot_modules(&mods);
	uint64_t floor = ALIGN_UP((uint64_t)(uintptr_t)_end, 4096);

	for (unsigned i = 0; i < n_mods; i++)
		if (paging_map(mods[i].base, mods[i].len, false))
			kprintf("boot: module %u at %#llx cannot be mapped\n", i,
				(unsigned long long)mods[i].base);
	for (unsigned i = 0; i < n && k < max; i++) {
		if (map[i].type != PLAT_MEM_RAM)
			continue;
		emit_ram(out, &k, max, ALIGN_UP(MAX(map[i].base, floor), 4096),
			 ALIGN_DOWN(map[i].base + map[i].len, 4096), 0);
	}
	unsigned tables_used, tables_max;
	bool huge;
	paging_stats(&tables_used, &tables_max, &huge);
	kprintf("paging: RAM identity-mapped with %s pages; %u of %u page tables\n",
		huge ? "1 GiB and 2 MiB" : "2 MiB", tables_used, tables_max);
	return k;
}

void plat_mem_handout(void *p __unused, size_t len __unused)
{
}

void plat_mem_takeback(void *p __unused, size_t len __unused)
{
}

uint64_t plat_virt_to_bus(const void *p)
{
	return (uintptr_t)p;   /* identity-mapped, no IOMMU */
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
	if (memmap_overlaps_ram(phys, size))
		return -EBUSY;
	int rc = paging_map(phys, size, true);
	if (rc)
		return rc;
	*m = (struct mmio){ .phys = phys, .size = size, .base = (volatile void *)(uintptr_t)phys,
			    .bar = bar };
	return 0;
}

void plat_mmio_unmap(struct mmio *m)
{
	/* Mappings are identity and kept; only the handle dies. */
	m->base = NULL;
	m->size = 0;
}

/* QEMU's isa-debug-exit device turns a write of v into process exit status (v << 1) | 1. It sits
 * at 0x501 by default; test setups often move it to 0xf4. Only touched under QEMU (TCG or KVM),
 * since on real hardware those ports may belong to something else. */
static bool running_under_qemu(void)
{
	uint32_t a, b, c, d;
	char sig[13];

	cpuid(1, &a, &b, &c, &d);
	if (!(c & (1u << 31)))
		return false;
	cpuid(0x40000000, &a, &b, &c, &d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = '\0';
	return memcmp(sig, "TCGTCGTCGTCG", 12) == 0 || memcmp(sig, "KVMKVMKVM\0\0\0", 12) == 0;
}

int plat_boot_linux64(uint64_t entry, void *boot_params)
{
	uint8_t *bp = boot_params;
	const struct plat_mem_region *map;
	unsigned n = plat_memmap(&map);
	uint8_t count = 0;

	/* Both must be identity-mapped and canonical; boot_params is read through 32-bit fields
	 * by some kernels' early code, so keep it below 4 GiB. */
	if (!bp || (uintptr_t)bp >= (1ull << 32) || entry >= (1ull << paging_phys_bits()))
		return -EINVAL;
	for (unsigned i = 0; i < n && count < E820_MAX; i++, count++) {
		uint8_t *e = bp + BP_E820_TABLE + 20 * count;

		memcpy(e, &map[i].base, 8);
		memcpy(e + 8, &map[i].len, 8);
		memcpy(e + 16, &map[i].type, 4);
	}
	bp[BP_E820_ENTRIES] = count;
	arch_linux64_enter(entry, (uintptr_t)bp);
}

void plat_poweroff(int status)
{
	if (running_under_qemu()) {
		outl(0xf4, (uint32_t)status);
		outb(0x501, (uint8_t)status);
	}
	acpi_poweroff();
	kprintf("poweroff: not supported; halted\n");
	cpu_halt_forever();
}

void plat_reboot(void)
{
	acpi_reset();
	/* The keyboard controller's reset line, once its input buffer is empty. */
	for (int i = 0; i < 100000 && (inb(0x64) & 0x02); i++)
		cpu_pause();
	outb(0x64, 0xfe);
	mdelay(100);
	arch_triple_fault();
}

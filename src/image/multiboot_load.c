/* SPDX-License-Identifier: MIT */
/*
 * Multiboot v1 loading (Multiboot Specification 0.6.96 §3.2 machine state, §3.3 boot
 * information). A multiboot kernel names fixed physical addresses, often 1 MiB, where ibboot
 * itself runs, so nothing is copied there while ibboot lives: the segments stay in the image, and
 * a trampoline in a page of its own leaves long mode, copies them into place, zeroes their bss
 * and jumps. Everything the trampoline and the kernel read afterwards (image data, modules, the
 * information block, the trampoline page) is placed where no segment will land.
 */
#include <ibboot/image.h>
#include <ibboot/script.h>
#include "mb_trampoline.h"
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/platform.h>
#include <ibboot/string.h>

int (*image_multiboot_handoff)(void *param_page);

#define MBI_FLAG_MEM      (1u << 0)
#define MBI_FLAG_CMDLINE  (1u << 2)
#define MBI_FLAG_MODS     (1u << 3)
#define MBI_FLAG_MMAP     (1u << 6)
#define MBI_FLAG_LOADER   (1u << 9)
#define MBI_LEN           88
#define MB_AREA_SIZE      (32u << 10)   /* information block, strings, memory map, modules */
#define MAX_HELD          32
#define LOADER_NAME       "ibboot"

/* The end of the highest segment overlapping [a, a+len); a when none does. */
static uint64_t overlap_end(const struct multiboot_info_parsed *mb, uint64_t a, uint64_t len)
{
	uint64_t end = a;

	for (unsigned i = 0; i < mb->n_segments; i++) {
		uint64_t s = mb->seg[i].paddr, e = s + mb->seg[i].mem_len;

		if (a < e && s < a + len)
			end = MAX(end, e);
	}
	return end;
}

/* A buffer below 4 GiB that no segment will overwrite. The allocator hands out the lowest fit,
 * so when a block lands on a segment, the stretch up to that segment's end is held and the
 * allocation retried; the held blocks are released once a clear one is found. */
static void *alloc_clear(const struct multiboot_info_parsed *mb, size_t size, size_t align)
{
	void *held[MAX_HELD], *p = NULL;
	size_t held_size[MAX_HELD];
	unsigned n = 0;

	while (n < MAX_HELD) {
		p = dma_alloc(size, align);
		if (!p)
			break;
		uint64_t a = virt_to_bus(p);
		if (a >= GiB(4) || size > GiB(4) - a) {
			dma_free(p, size);
			p = NULL;
			break;   /* lowest first: nothing lower is left */
		}
		if (overlap_end(mb, a, size) == a)
			break;
		/* Hold the rest of the segment's stretch if it is free in one piece, else just
		 * this block (a small hole below the segment's end gets filled that way). The
		 * stretch may land below `a` (a free extent that starts unaligned, just under
		 * the aligned block): that is the same piece, held a little lower. */
		size_t hold = (size_t)(overlap_end(mb, a, size) - a);
		dma_free(p, size);
		p = NULL;
		held[n] = dma_alloc(hold, 64);
		if (held[n] && virt_to_bus(held[n]) > a) {
			dma_free(held[n], hold);
			held[n] = NULL;
		}
		if (!held[n]) {
			hold = size;
			held[n] = dma_alloc(size, align);
			if (!held[n])
				break;
		}
		held_size[n++] = hold;
	}
	while (n) {
		n--;
		dma_free(held[n], held_size[n]);
	}
	return p;
}

static void wr32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* Every segment must land in RAM the firmware map lists (not on ROM, MMIO or ACPI tables). */
static int check_targets_in_ram(const struct multiboot_info_parsed *mb)
{
	const struct plat_mem_region *map;
	unsigned n = plat_memmap(&map);

	for (unsigned i = 0; i < mb->n_segments; i++) {
		uint64_t s = mb->seg[i].paddr, e = s + mb->seg[i].mem_len;
		bool ok = false;

		for (unsigned j = 0; j < n && !ok; j++)
			ok = map[j].type == PLAT_MEM_RAM && s >= map[j].base &&
			     e <= map[j].base + map[j].len;
		if (!ok) {
			kprintf("multiboot: segment %#llx..%#llx not in RAM (see 'mem')\n",
				(unsigned long long)s, (unsigned long long)e);
			return -ERANGE;
		}
	}
	return 0;
}

/* mem_lower / mem_upper (§3.3): KiB from 0 and from 1 MiB in the RAM regions holding them. */
static void basic_memory(uint32_t *lower, uint32_t *upper)
{
	const struct plat_mem_region *map;
	unsigned n = plat_memmap(&map);

	*lower = *upper = 0;
	for (unsigned i = 0; i < n; i++) {
		if (map[i].type != PLAT_MEM_RAM)
			continue;
		uint64_t end = map[i].base + map[i].len;
		if (map[i].base == 0)
			*lower = (uint32_t)(MIN(end, KiB(640)) >> 10);
		if (map[i].base <= MiB(1) && end > MiB(1))
			*upper = (uint32_t)(MIN(end - MiB(1), GiB(4) - MiB(1)) >> 10);
	}
}

/* Copies the image's data elsewhere when it sits where a segment goes. */
static int move_clear(const struct multiboot_info_parsed *mb, struct image *img, bool page)
{
	uint64_t a = virt_to_bus(img->data);

	if (a < GiB(4) && img->len <= GiB(4) - a && overlap_end(mb, a, img->alloc) == a)
		return 0;
	uint8_t *p = alloc_clear(mb, img->alloc, page ? 4096 : 16);
	if (!p) {
		kprintf("multiboot: no memory below 4 GiB clear of kernel for %s\n", img->name);
		return -ENOMEM;
	}
	memcpy(p, img->data, img->len);
	dma_free(img->data, img->alloc);
	img->data = p;
	return 0;
}

/* Writes "a b" (or "a") at *p and its address into field. */
static void put_str(uint8_t *field, uint8_t **p, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	wr32(field, (uint32_t)virt_to_bus(*p));
	memcpy(*p, a, la);
	*p += la;
	if (lb) {
		*(*p)++ = ' ';
		memcpy(*p, b, lb);
		*p += lb;
	}
	*(*p)++ = '\0';
}

static bool is_module(const struct image *i, const struct image *kernel)
{
	return i != kernel && i->role != IMAGE_ROLE_KERNEL && !script_is_script(i->data, i->len);
}

/* The information block (§3.3): memory, command line, memory map, modules, loader name. */
static int build_mbi(struct multiboot_plan *plan, const struct image *kernel, unsigned n_mods)
{
	const struct plat_mem_region *map;
	unsigned n_map = MIN(plat_memmap(&map), 128u);
	uint8_t *mbi = plan->area, *p = mbi + MBI_LEN, *end = mbi + MB_AREA_SIZE;
	uint32_t lower, upper, flags = MBI_FLAG_MEM | MBI_FLAG_CMDLINE | MBI_FLAG_MMAP |
				       MBI_FLAG_LOADER;

	memset(mbi, 0, MB_AREA_SIZE);
	basic_memory(&lower, &upper);
	wr32(mbi + 4, lower);
	wr32(mbi + 8, upper);
	/* The command line as GRUB passes it: the kernel's name, then its arguments. */
	put_str(mbi + 16, &p, kernel->name, kernel->cmdline);
	put_str(mbi + 64, &p, LOADER_NAME, "");
	p = mbi + ALIGN_UP((size_t)(p - mbi), 8);
	wr32(mbi + 44, n_map * 24);
	wr32(mbi + 48, (uint32_t)virt_to_bus(p));
	for (unsigned i = 0; i < n_map; i++, p += 24) {
		wr32(p, 20);   /* the entry's size, not counting this field */
		memcpy(p + 4, &map[i].base, 8);
		memcpy(p + 12, &map[i].len, 8);
		wr32(p + 20, map[i].type);
	}
	if (n_mods) {
		uint8_t *mod = p;

		flags |= MBI_FLAG_MODS;
		p += 16 * n_mods;
		wr32(mbi + 20, n_mods);
		wr32(mbi + 24, (uint32_t)virt_to_bus(mod));
		for (struct image *i = image_first(); i; i = i->next) {
			if (!is_module(i, kernel))
				continue;
			if ((size_t)(end - p) < strlen(i->name) + strlen(i->cmdline) + 2) {
				kprintf("multiboot: module names overflow boot info\n");
				return -ENOSPC;
			}
			/* start, end (exclusive), string, reserved */
			wr32(mod, (uint32_t)virt_to_bus(i->data));
			wr32(mod + 4, (uint32_t)(virt_to_bus(i->data) + i->len));
			put_str(mod + 8, &p, i->name, i->cmdline);
			mod += 16;
		}
	}
	wr32(mbi, flags);
	plan->mbi_addr = (uint32_t)virt_to_bus(mbi);
	return 0;
}

/* What the trampoline copies: each segment from the image to its physical address. */
static void fill_param(struct multiboot_plan *plan, const struct image *kernel)
{
	const struct multiboot_info_parsed *mb = &plan->mb;
	uint8_t *t = plan->param;

	memset(t, 0, 4096);
	wr32(t + MBT_ENTRY, mb->entry);
	wr32(t + MBT_MBI, plan->mbi_addr);
	wr32(t + MBT_NSEG, mb->n_segments);
	for (unsigned i = 0; i < mb->n_segments; i++) {
		uint8_t *s = t + MBT_SEGS + MBT_SEG_SIZE * i;

		wr32(s, mb->seg[i].paddr);
		wr32(s + 4, (uint32_t)virt_to_bus(kernel->data + mb->seg[i].file_off));
		wr32(s + 8, (uint32_t)mb->seg[i].file_len);
		wr32(s + 12, mb->seg[i].mem_len - (uint32_t)mb->seg[i].file_len);
	}
}

int multiboot_check_pins(const struct image *kernel, bool hash)
{
	for (struct image *i = image_first(); i; i = i->next) {
		if (i != kernel && !is_module(i, kernel))
			continue;
		int rc = hash ? image_trust_check_data(i) : image_trust_allowed(i);
		if (rc)
			return rc;
	}
	return 0;
}

int multiboot_load(struct image *kernel, struct multiboot_plan *plan)
{
	struct multiboot_info_parsed *mb = &plan->mb;   /* image_boot parsed it */
	unsigned n_mods = 0;
	int rc;

	plan->area = plan->param = NULL;
	rc = multiboot_check_pins(kernel, false);   /* the policy first, before anything moves */
	if (!rc)
		rc = check_targets_in_ram(mb);
	if (rc)
		return rc;
	for (struct image *i = image_first(); i; i = i->next) {
		if (i != kernel && !is_module(i, kernel))
			continue;
		rc = move_clear(mb, i, mb->flags & MB_FLAG_PAGE_ALIGN);
		if (rc)
			return rc;
		n_mods += is_module(i, kernel);
	}
	plan->area = alloc_clear(mb, MB_AREA_SIZE, 4096);
	plan->param = alloc_clear(mb, 4096, 4096);
	if (!plan->area || !plan->param) {
		kprintf("multiboot: no memory below 4 GiB clear of kernel for %s\n",
			"boot info");
		rc = -ENOMEM;
		goto fail;
	}
	rc = build_mbi(plan, kernel, n_mods);
	if (rc)
		goto fail;
	/* The pins, on the buffers the kernel gets: its segments are copied from kernel->data at
	 * the handoff, and each module is passed where move_clear left it. */
	rc = multiboot_check_pins(kernel, true);
	if (rc)
		goto fail;
	fill_param(plan, kernel);
	kprintf("multiboot: %s: %s, entry %#x, %u segment(s) from %#x, %u module(s), info at %#x\n",
		kernel->name, mb->elf ? "ELF32" : "a.out kludge", mb->entry,
		mb->n_segments, mb->seg[0].paddr, n_mods, plan->mbi_addr);
	return 0;
fail:
	multiboot_unload(plan);
	return rc;
}

void multiboot_unload(struct multiboot_plan *plan)
{
	if (plan->area)
		dma_free(plan->area, MB_AREA_SIZE);
	if (plan->param)
		dma_free(plan->param, 4096);
	plan->area = plan->param = NULL;
}

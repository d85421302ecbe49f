/* SPDX-License-Identifier: MIT */
/*
 * What the boot loader told us: the memory map and the command line, from a Linux boot_params page
 * (filled by our setup code, or by a 32-bit boot-protocol loader) or a multiboot v1 info block.
 * Both are copied here at once, before any memory is handed out.
 */
#include "pcbios.h"
#include "../../arch/x86_64/boot.h"
#include <ibboot/console.h>
#include <ibboot/memmap.h>
#include <ibboot/string.h>

#define MEMMAP_MAX E820_MAX
#define LOW_MAPPED_LIMIT 0x40000000ull   /* head.S maps the first GiB */

static struct plat_mem_region memmap[MEMMAP_MAX];
static unsigned memmap_n;
#define MODULES_MAX 8
static struct plat_mem_region modules[MODULES_MAX];
static unsigned modules_n;

static void module_add(uint64_t base, uint64_t len)
{
	if (len && modules_n < MODULES_MAX)
		modules[modules_n++] = (struct plat_mem_region){ base, len, PLAT_MEM_RESERVED };
}
static char cmdline[BOOT_CMDLINE_MAX];

static void memmap_add(uint64_t base, uint64_t len, uint32_t type)
{
	if (len == 0 || memmap_n == MEMMAP_MAX)
		return;
	if (type < PLAT_MEM_RAM || type > PLAT_MEM_UNUSABLE)
		type = PLAT_MEM_RESERVED;
	memmap[memmap_n++] = (struct plat_mem_region){ base, len, type };
}

static bool readable(uint64_t addr, uint64_t len)
{
	return addr && addr < LOW_MAPPED_LIMIT && len <= LOW_MAPPED_LIMIT - addr;
}

static void copy_cmdline(uint64_t addr)
{
	if (!readable(addr, 1)) {
		if (addr)
			kprintf("boot: command line at %#llx out of reach; ignored\n",
				(unsigned long long)addr);
		return;
	}
	const char *src = (const char *)(uintptr_t)addr;
	size_t n = strnlen(src, sizeof(cmdline) - 1);

	memcpy(cmdline, src, n);
	cmdline[n] = '\0';
}

static bool via_setup_code;

bool bootinfo_real_mode_entry(void)
{
	return via_setup_code;
}

/* Memory map entries of base, length and type (20 bytes) in `bytes` at t; each after a 4-byte
 * size of the rest when `sized` (multiboot's mmap: the next entry is size + 4 further on). */
static void add_entries(const uint8_t *t, uint64_t bytes, bool sized)
{
	uint64_t hdr = sized ? 4 : 0;

	for (uint64_t off = 0; off + hdr + 20 <= bytes;) {
		const uint8_t *e = t + off + hdr;
		uint64_t base, len;
		uint32_t type, size = 20;

		memcpy(&base, e, 8);
		memcpy(&len, e + 8, 8);
		memcpy(&type, e + 16, 4);
		memmap_add(base, len, type);
		if (sized)
			memcpy(&size, t + off, 4);
		off += hdr + size;
	}
}

static void parse_boot_params(const uint8_t *bp)
{
	uint32_t cmd, mark;

	memcpy(&mark, bp + BP_SETUP_MARK_OFF, 4);
	via_setup_code = mark == BP_SETUP_MARK;
	add_entries(bp + BP_E820_TABLE, 20 * (uint64_t)MIN(bp[BP_E820_ENTRIES], E820_MAX), false);
	memcpy(&cmd, bp + BP_CMD_LINE_PTR, 4);
	copy_cmdline(cmd);

	uint32_t rd_image, rd_size;
	memcpy(&rd_image, bp + BP_RAMDISK_IMAGE, 4);
	memcpy(&rd_size, bp + BP_RAMDISK_SIZE, 4);
	if (rd_image)
		module_add(rd_image, rd_size);
}

/* Multiboot v1 information structure (Multiboot Specification 0.6.96, section 3.3). */
#define MBI_FLAG_MEM     (1u << 0)
#define MBI_FLAG_CMDLINE (1u << 2)
#define MBI_FLAG_MODS    (1u << 3)
#define MBI_FLAG_MMAP    (1u << 6)

static void parse_multiboot(const uint8_t *mbi)
{
	uint32_t flags, cmd, mmap_len, mmap_addr;

	memcpy(&flags, mbi, 4);
	if (flags & MBI_FLAG_MMAP) {
		memcpy(&mmap_len, mbi + 44, 4);
		memcpy(&mmap_addr, mbi + 48, 4);
		/* Each entry: size (not counting itself), base, length, type. */
		if (readable(mmap_addr, mmap_len))
			add_entries((const uint8_t *)(uintptr_t)mmap_addr, mmap_len, true);
	} else if (flags & MBI_FLAG_MEM) {
		uint32_t lower, upper;

		memcpy(&lower, mbi + 4, 4);
		memcpy(&upper, mbi + 8, 4);
		memmap_add(0, (uint64_t)lower << 10, PLAT_MEM_RAM);
		memmap_add(0x100000, (uint64_t)upper << 10, PLAT_MEM_RAM);
	}
	if (flags & MBI_FLAG_CMDLINE) {
		memcpy(&cmd, mbi + 16, 4);
		copy_cmdline(cmd);
	}
	if (flags & MBI_FLAG_MODS) {
		uint32_t count, addr;

		memcpy(&count, mbi + 20, 4);
		memcpy(&addr, mbi + 24, 4);
		/* Each module: start, end (exclusive), string, reserved. */
		for (uint32_t i = 0; i < count && readable(addr + 16ull * i, 16); i++) {
			uint32_t start, end;

			memcpy(&start, (const uint8_t *)(uintptr_t)addr + 16 * i, 4);
			memcpy(&end, (const uint8_t *)(uintptr_t)addr + 16 * i + 4, 4);
			if (end > start)
				module_add(start, end - start);
		}
	}
}

void bootinfo_parse(uint32_t type, uint32_t info)
{
	if (!readable(info, 4096)) {
		kprintf("boot: boot info at %#x out of reach\n", info);
		return;
	}
	if (type == BOOT_TYPE_LINUX)
		parse_boot_params((const uint8_t *)(uintptr_t)info);
	else if (type == BOOT_TYPE_MULTIBOOT)
		parse_multiboot((const uint8_t *)(uintptr_t)info);
	if (memmap_n == 0) {
		kprintf("boot: loader passed no memory map\n");
		return;
	}
	/* Loaders pass maps with overlaps (a reserved hole inside RAM): clean it once, so that
	 * neither our allocator nor the kernel's e820 ever sees reserved memory as RAM. */
	unsigned raw = memmap_n;

	memmap_n = memmap_sanitize(memmap, memmap_n, MEMMAP_MAX);
	if (memmap_n != raw)
		kprintf("boot: memory map: %u entries merged to %u\n", raw,
			memmap_n);
}

const char *plat_cmdline(void)
{
	return cmdline;
}

unsigned plat_boot_modules(const struct plat_mem_region **mods)
{
	*mods = modules;
	return modules_n;
}

unsigned plat_memmap(const struct plat_mem_region **map)
{
	*map = memmap;
	return memmap_n;
}

bool memmap_overlaps_ram(uint64_t base, uint64_t len)
{
	for (unsigned i = 0; i < memmap_n; i++)
		if (memmap[i].type == PLAT_MEM_RAM && base < memmap[i].base + memmap[i].len &&
		    memmap[i].base < base + len)
			return true;
	return false;
}

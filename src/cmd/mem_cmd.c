/* SPDX-License-Identifier: MIT */
/* Memory and boot-module commands: mem, memcheck, modules, exec64. */
#include <ibboot/shell.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/ibboot.h>
#include <ibboot/platform.h>
#include <ibboot/string.h>

static const char *mem_type_name(uint32_t type)
{
	switch (type) {
	case PLAT_MEM_RAM: return "RAM";
	case PLAT_MEM_RESERVED: return "reserved";
	case PLAT_MEM_ACPI: return "ACPI";
	case PLAT_MEM_NVS: return "ACPI NVS";
	case PLAT_MEM_UNUSABLE: return "unusable";
	default: return "other";
	}
}

static int cmd_mem(int argc __unused, char **argv __unused)
{
	const struct plat_mem_region *map;
	unsigned n = plat_memmap(&map);

	for (unsigned i = 0; i < n; i++)
		kprintf("  %016llx-%016llx %s\n", (unsigned long long)map[i].base,
			(unsigned long long)(map[i].base + map[i].len - 1), mem_type_name(map[i].type));
	print_memory_summary();
	return 0;
}
SHELL_COMMAND(mem, CMD_ORDER_MEMORY, "memory map, free buffer memory",
	      cmd_mem);

static int cmd_memcheck(int argc __unused, char **argv __unused)
{
	return memcheck();
}
SHELL_COMMAND(memcheck, CMD_ORDER_MEMORY,
	      "write and verify all buffer memory", cmd_memcheck);

/* What the boot loader brought along, with a byte sum so tests can see it was left intact. */
static int cmd_modules(int argc __unused, char **argv __unused)
{
	const struct plat_mem_region *mods;
	unsigned n = plat_boot_modules(&mods);

	for (unsigned i = 0; i < n; i++) {
		const uint8_t *p = bus_to_virt(mods[i].base);
		uint32_t sum = 0;

		for (uint64_t j = 0; j < mods[i].len; j++)
			sum += p[j];
		kprintf("module %u: %#llx, %llu bytes, byte sum %u\n", i,
			(unsigned long long)mods[i].base, (unsigned long long)mods[i].len, sum);
	}
	if (n == 0)
		kprintf("no boot modules\n");
	return 0;
}
SHELL_COMMAND(modules, CMD_ORDER_MEMORY,
	      "boot modules, with byte sums", cmd_modules);

/* exec64 N [ARGS...]: the remaining words, joined by spaces, become the command line (cut at
 * what the zero page's command line holds). */
static int cmd_exec64(int argc, char **argv)
{
	static char cmdline[2048];
	uint64_t n;

	if (argc < 2 || !shell_parse_num(argv[1], 9, &n))
		return shell_usage(argv[0]);
	shell_join(argc - 2, argv + 2, cmdline, sizeof(cmdline));   /* cut if too long */
	return exec64_module((unsigned)n, cmdline);
}
SHELL_COMMAND(exec64, CMD_ORDER_MEMORY,
	      "N [ARGS]: enter module N as Linux 64-bit kernel", cmd_exec64);

/* SPDX-License-Identifier: MIT */
/* The built-in commands. */
#include <ibboot/shell.h>
#include <ibboot/console.h>
#include <ibboot/platform.h>
#include <ibboot/pci.h>
#include <ibboot/dma.h>
#include <ibboot/timer.h>
#include <ibboot/string.h>
#include <ibboot/version.h>
#include <ibboot/ibboot.h>
#include <ibboot/hooks.h>
#include <ibboot/errno.h>

extern const struct shell_command shell_commands[];
extern const size_t shell_n_commands;

static void print_help(const struct shell_command *c)
{
	kprintf("  %-10s %s\n", c->name, c->help);
}

static int cmd_help(int argc __unused, char **argv __unused)
{
	for (size_t i = 0; i < shell_n_commands; i++)
		print_help(&shell_commands[i]);
	shell_for_each_extra(print_help);
	return 0;
}

/* Lists what the start-up scan found; it never rescans, since a rescan would unbind drivers. */
static int cmd_pci(int argc __unused, char **argv __unused)
{
	int n = 0;

	for (struct pci_device *d = pci_devices(); d; d = d->next, n++)
		pci_print_device(d);
	kprintf("%d PCI functions\n", n);
	return 0;
}

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

static int cmd_echo(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		kprintf("%s%s", argv[i], i + 1 < argc ? " " : "");
	kputc('\n');
	return 0;
}

/* Waits while everything keeps running (devices, the network stack): for scripts that give a
 * subnet manager time, say. */
static int cmd_sleep(int argc, char **argv)
{
	uint64_t ms = 0;
	const char *p = argc == 2 ? argv[1] : "";

	for (; *p >= '0' && *p <= '9'; p++)
		ms = ms * 10 + (uint64_t)(*p - '0');
	if (argc != 2 || *p || ms > 3600000) {
		kprintf("usage: sleep MILLISECONDS (at most an hour)\n");
		return -EINVAL;
	}
	for (uint64_t end = clock_ms() + ms; clock_ms() < end;) {
		plat_poll();
		hooks_poll();
		plat_cpu_relax();
	}
	return 0;
}

static int cmd_uptime(int argc __unused, char **argv __unused)
{
	kprintf("up %llu ms\n", (unsigned long long)clock_ms());
	return 0;
}

/* Touches an address no platform maps, so the exception path can be tested end to end. */
static int cmd_fault(int argc __unused, char **argv __unused)
{
	volatile uint32_t *p = (volatile uint32_t *)(uintptr_t)0x400000000000ull;

	kprintf("reading %p, which is not mapped\n", (void *)(uintptr_t)p);
	return (int)*p;
}

static int cmd_reboot(int argc __unused, char **argv __unused)
{
	kprintf("rebooting\n");
	pci_remove_drivers();
	plat_reboot();
}

static int cmd_poweroff(int argc, char **argv)
{
	int status = 0;

	/* An optional status lets tests report a result through QEMU's exit code. */
	if (argc > 1)
		for (const char *p = argv[1]; *p >= '0' && *p <= '9'; p++)
			status = status * 10 + (*p - '0');
	kprintf("powering off\n");
	pci_remove_drivers();
	plat_poweroff(status);
}

int cmd_memcheck(int argc, char **argv);
int cmd_mmio(int argc, char **argv);
int cmd_modules(int argc, char **argv);
int cmd_exec64(int argc, char **argv);

const struct shell_command shell_commands[] = {
	{ "help", "list commands", cmd_help },
	{ "pci", "list PCI functions with their BARs and drivers", cmd_pci },
	{ "mem", "show the firmware memory map and free buffer memory", cmd_mem },
	{ "memcheck", "write and verify every chunk of buffer memory, then free it", cmd_memcheck },
	{ "mmio", "BB:DD.F BAR [OFF [VAL]]: read (or write) a 32-bit register in a BAR", cmd_mmio },
	{ "modules", "files the boot loader loaded alongside (initrd), with a byte sum", cmd_modules },
	{ "exec64", "N [ARGS]: enter boot module N by the Linux 64-bit boot protocol", cmd_exec64 },
	{ "echo", "print the arguments", cmd_echo },
	{ "uptime", "milliseconds since start", cmd_uptime },
	{ "sleep", "MS: wait, keeping devices and the network running", cmd_sleep },
	{ "fault", "touch an unmapped address (tests the CPU exception report)", cmd_fault },
	{ "reboot", "reset the machine", cmd_reboot },
	{ "poweroff", "switch off (optional exit status for tests)", cmd_poweroff },
};
const size_t shell_n_commands = ARRAY_SIZE(shell_commands);

/* SPDX-License-Identifier: MIT */
/* Console and machine commands: help, echo, uptime, sleep, fault, reboot, poweroff. */
#include <ibboot/shell.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/hooks.h>
#include <ibboot/pci.h>
#include <ibboot/platform.h>
#include <ibboot/timer.h>

/* Every command linked into this program, in table order. */
static int cmd_help(int argc __unused, char **argv __unused)
{
	const struct shell_command *c;

	table_for_each(c, shell_commands)
		kprintf("  %-10s %s\n", c->name, shell_help(c));
	return 0;
}
SHELL_COMMAND(help, CMD_ORDER_HELP, "list commands", cmd_help);

static int cmd_echo(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		kprintf("%s%s", argv[i], i + 1 < argc ? " " : "");
	kputc('\n');
	return 0;
}
SHELL_COMMAND(echo, CMD_ORDER_CORE, "print arguments", cmd_echo);

static int cmd_uptime(int argc __unused, char **argv __unused)
{
	kprintf("up %llu ms\n", (unsigned long long)clock_ms());
	return 0;
}
SHELL_COMMAND(uptime, CMD_ORDER_CORE, "ms since start", cmd_uptime);

/* Waits while everything keeps running (devices, the network stack): for scripts that give a
 * subnet manager time, say. */
static int cmd_sleep(int argc, char **argv)
{
	uint64_t ms;

	if (argc != 2 || !shell_parse_num(argv[1], 3600000, &ms))
		return shell_usage(argv[0]);
	hooks_idle_ms(ms);
	return 0;
}
SHELL_COMMAND(sleep, CMD_ORDER_CORE, "MS (max 3600000): wait, network running",
	      cmd_sleep);

/* Touches an address no platform maps, so the exception path can be tested end to end. */
static int cmd_fault(int argc __unused, char **argv __unused)
{
	volatile uint32_t *p = (volatile uint32_t *)(uintptr_t)0x400000000000ull;

	kprintf("reading unmapped %p\n", (void *)(uintptr_t)p);
	return (int)*p;
}
SHELL_COMMAND(fault, CMD_ORDER_CORE, "read unmapped address (exception test)",
	      cmd_fault);

static int cmd_reboot(int argc __unused, char **argv __unused)
{
	kprintf("rebooting\n");
	pci_remove_drivers();
	plat_reboot();
}
SHELL_COMMAND(reboot, CMD_ORDER_CORE, "reset machine", cmd_reboot);

static int cmd_poweroff(int argc, char **argv)
{
	uint64_t status = 0;

	/* An optional status lets tests report a result through QEMU's exit code. */
	if (argc > 1)
		shell_parse_num(argv[1], 0xffff, &status);
	kprintf("powering off\n");
	pci_remove_drivers();
	plat_poweroff((int)status);
}
SHELL_COMMAND(poweroff, CMD_ORDER_CORE, "[STATUS]: switch off (STATUS for tests)",
	      cmd_poweroff);

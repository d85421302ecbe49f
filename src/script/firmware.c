/* SPDX-License-Identifier: MIT */
/*
 * Scripts in the firmware: commands come from the shell's command table (whatever is linked in),
 * ${name} from the settings the DHCP client fills, plus the script-only forms of iPXE: `set NAME
 * VALUE...`, `clear NAME`, `sleep SECONDS`. Also the start-up: the embedded default script
 * unless a key is pressed within AUTOBOOT_WAIT_MS or ibboot.cmd= names commands instead.
 */
#include <ibboot/script.h>
#include <ibboot/image.h>
#include <ibboot/config.h>
#include <ibboot/console.h>
#include <ibboot/dhcp.h>
#include <ibboot/errno.h>
#include <ibboot/hooks.h>
#include <ibboot/ib_ulp.h>
#include <ibboot/net.h>
#include <ibboot/pci.h>
#include <ibboot/platform.h>
#include <ibboot/report.h>
#include <ibboot/shell.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>

static unsigned depth;

static int script_set(int argc, char **argv)
{
	char value[SETTING_VALUE_MAX];
	int rc;

	if (argc < 2) {
		kprintf("usage: set NAME [VALUE...]\n");
		return -EINVAL;
	}
	rc = shell_join(argc - 2, argv + 2, value, sizeof(value));
	if (!rc)
		rc = setting_set(argv[1], argc > 2 ? value : NULL);
	if (rc)
		kprintf("set %s: %s\n", argv[1], rc == -ERANGE ? "name or value too long" :
			"settings table full");
	return rc;
}

/* iPXE's sleep counts seconds; the console's `sleep` takes milliseconds. */
static int script_sleep(int argc, char **argv)
{
	uint64_t s;

	if (argc != 2 || !shell_parse_num(argv[1], 86400, &s)) {
		kprintf("usage: sleep SECONDS (max 86400)\n");
		return -EINVAL;
	}
	hooks_idle_ms(s * 1000);
	return 0;
}

/* iPXE's echo -n: no newline. */
static int script_echo(int argc, char **argv)
{
	bool newline = !(argc > 1 && strcmp(argv[1], "-n") == 0);

	for (int i = newline ? 1 : 2; i < argc; i++)
		kprintf("%s%s", argv[i], i + 1 < argc ? " " : "");
	if (newline)
		kputc('\n');
	return 0;
}

/* isset VALUE: success when VALUE is not empty (`isset ${filename} || goto manual`);
 * iseq A B: success when equal. Failure is an ordinary error code, as iPXE's. */
static int script_test(int argc, char **argv)
{
	if (strcmp(argv[0], "isset") == 0)
		return argc >= 2 && argv[1][0] ? 0 : -ENOENT;
	if (argc != 3) {
		kprintf("usage: iseq A B\n");
		return -EINVAL;
	}
	return strcmp(argv[1], argv[2]) == 0 ? 0 : -EINVAL;
}

static int fw_run(void *ctx __unused, int argc, char **argv)
{
	if (strcmp(argv[0], "echo") == 0)
		return script_echo(argc, argv);
	if (strcmp(argv[0], "isset") == 0 || strcmp(argv[0], "iseq") == 0)
		return script_test(argc, argv);
	if (strcmp(argv[0], "set") == 0)
		return script_set(argc, argv);
	if (strcmp(argv[0], "clear") == 0)
		return argc == 2 ? setting_set(argv[1], NULL) : -EINVAL;
	if (strcmp(argv[0], "sleep") == 0)
		return script_sleep(argc, argv);
	return shell_run(argc, argv);
}

static int fw_getvar(void *ctx __unused, const char *name, char *buf, size_t size)
{
	return setting_get(name, buf, size);
}

static const struct script_ops fw_ops = { fw_run, fw_getvar };

int script_run_firmware(const char *text, size_t len)
{
	int rc;

	if (depth >= SCRIPT_MAX_DEPTH) {
		kprintf("script: chained %d deep (a loop?)\n",
			SCRIPT_MAX_DEPTH);
		return -ERANGE;
	}
	depth++;
	rc = script_exec(text, len, &fw_ops, NULL, NULL);
	depth--;
	return rc;
}

void script_console(void)
{
	static const struct script_limits console = { 0, true };
	char line[SCRIPT_LINE_MAX + 1];
	int n;

	for (;;) {
		kputs("ibboot> ");
		n = console_getline(line, sizeof(line));
		if (n < 0)
			return;
		script_exec(line, (size_t)n, &fw_ops, NULL, &console);
	}
}

static int run_script_image(struct image *img)
{
	boot_phase("running script %s (%zu bytes)", img->name, img->len);
	return script_run_firmware((const char *)img->data, img->len);
}

/* Waits for a key; true if one came. Keeps the network running meanwhile. */
static bool key_pressed(uint64_t ms)
{
	for (uint64_t end = clock_ms() + ms; clock_ms() < end;) {
		int c = plat_getc();

		if (c >= 0)
			return true;
		if (c == PLAT_GETC_EOF)
			return false;
		hooks_idle();
	}
	return false;
}

/*
 * Before the script: can any port get a link at all? A port with a cable leaves Polling within a
 * fraction of a second of the far end answering (IBA 5.6.4's training sequence; PortPhysicalState
 * then reads LinkUp, IBA 14.2.5.6), so one still Polling (or Disabled, or asleep) this long after
 * its device came up has nothing at the other end.
 */
#define AUTOBOOT_LINK_TRAIN_MS 5000u
#define AUTOBOOT_QUERY_WAIT_MS 1000u

enum port_link { LINK_YES, LINK_NO, LINK_UNKNOWN };

static enum port_link port_link(const struct ib_port *p)
{
	if (!p->open || p->dev->dead)
		return LINK_NO;
	if (p->attr.state != IB_PORT_DOWN)
		return LINK_YES;
	switch (p->attr.phys_state) {
	case 1: case 2: case 3:   /* Sleep, Polling, Disabled */
		return LINK_NO;
	case 0:                   /* not read yet */
		return LINK_UNKNOWN;
	default:                  /* training, LinkUp, error recovery: a cable is there */
		return LINK_YES;
	}
}

/* 0 when some port has (or may still get) a link; otherwise the reason is printed, each port
 * named, and -ENODEV returned at once instead of letting dhcp wait for a link that cannot come. */
static int autoboot_preflight(void)
{
	uint64_t start = clock_ms(), settled_ms = 0;
	bool settled = false;

	if (!ib_devices()) {
		boot_phase("autoboot failed: no InfiniBand HCA found on PCI (see 'pci'); console");
		return -ENODEV;
	}
	for (;;) {
		bool young = false, pending = false;

		for (struct ib_device *d = ib_devices(); d; d = d->next) {
			for (unsigned i = 0; i < d->num_ports; i++) {
				struct ib_port *p = &d->port[i];

				if (port_link(p) == LINK_YES)
					return 0;
				if (p->policy && !d->dead && ib_now_ms(d) - p->policy->created_ms <
				    AUTOBOOT_LINK_TRAIN_MS)
					young = true;
				pending |= p->query_pending;
			}
		}
		if (!settled) {
			if (young && clock_ms() - start < AUTOBOOT_LINK_TRAIN_MS) {
				hooks_idle();
				continue;
			}
			/* Training time is over: read every port once more (the policy reads a
			 * DOWN port only every few seconds), then decide. */
			settled = true;
			settled_ms = clock_ms();
			for (struct ib_device *d = ib_devices(); d; d = d->next)
				for (unsigned i = 0; i < d->num_ports; i++)
					d->port[i].query_pending = true;
			continue;
		}
		if (!pending || clock_ms() - settled_ms >= AUTOBOOT_QUERY_WAIT_MS)
			break;
		hooks_idle();
	}
	for (struct ib_device *d = ib_devices(); d; d = d->next) {
		for (unsigned i = 0; i < d->num_ports; i++) {
			const struct ib_port *p = &d->port[i];

			if (d->dead)
				kprintf("%s port %u: HCA failed\n", d->name,
					p->num);
			else if (!p->open)
				kprintf("%s port %u: not opened\n", d->name,
					p->num);
			else
				kprintf("%s port %u: no cable (physical state %s %u s after start)\n",
					d->name, p->num,
					ib_phys_state_name(p->attr.phys_state),
					AUTOBOOT_LINK_TRAIN_MS / 1000);
		}
	}
	boot_phase("autoboot failed: no InfiniBand port has a link; console");
	return -ENODEV;
}

/* Platforms without a firmware to return to (hosted; pcbios started by a boot loader). */
__attribute__((weak)) const char *plat_firmware_exit(void)
{
	return NULL;
}

__attribute__((weak)) int plat_exit_to_firmware(void)
{
	return -ENOTSUP;
}

/*
 * Started from an option ROM's boot entry or chainloaded by a PXE ROM: a failed autoboot gives the
 * machine back, HCA quiesced, so the firmware tries its next boot device (BIOS Boot Specification
 * 1.01, 6.5: a BEV that cannot boot returns or INT 18h) — unless a key asks for the console.
 */
static void autoboot_give_back(void)
{
	const char *to = plat_firmware_exit();

	if (!to)
		return;
	kprintf("Press any key within %u s for the ibboot console; otherwise back to %s\n",
		AUTOBOOT_WAIT_MS / 1000, to);
	if (key_pressed(AUTOBOOT_WAIT_MS))
		return;
	boot_phase("autoboot: returning to %s", to);
	/* Only a device proven stopped may be left to the next boot program (pci.h). */
	int busy = pci_remove_drivers();
	if (busy) {
		kprintf("autoboot: %d device(s) may still DMA: no return to firmware; "
			"console\n", busy);
		return;
	}
	int rc = plat_exit_to_firmware();
	kprintf("autoboot: no return to firmware (%s); console\n", ib_strerror(rc));
}

static void autoboot_start(void)
{
	char cmds[8];

	image_run_script = run_script_image;
	/* ibboot.cmd= names what to do instead (tests and hand-driven boots). */
	if (cmdline_get(plat_cmdline(), "ibboot.cmd", cmds, sizeof(cmds)) != -ENOENT)
		return;
	if (!netdev_first()) {
		boot_phase("autoboot: no network device (no InfiniBand HCA?); console");
		autoboot_give_back();
		return;
	}
	kprintf("Press any key within %u s for the ibboot console; otherwise: %s",
		AUTOBOOT_WAIT_MS / 1000, &SCRIPT_DEFAULT[sizeof(SCRIPT_MAGIC)]);
	if (key_pressed(AUTOBOOT_WAIT_MS)) {
		kprintf("console: 'help' lists the commands; chain URL boots\n");
		script_console();
		return;
	}
	if (autoboot_preflight() < 0) {
		autoboot_give_back();
		script_console();
		return;
	}
	boot_phase("autoboot: running the embedded script");
	int rc = script_run_firmware(SCRIPT_DEFAULT, sizeof(SCRIPT_DEFAULT) - 1);
	boot_phase("autoboot failed (%s): check ibstat, DHCP boot file, server; console",
		   ib_strerror(rc));
	/* Tell the boot server (bounded: a few seconds at most; report.h). */
	report_send(NULL, "autoboot failed");
	autoboot_give_back();
	script_console();
}

/* Last of the start hooks: the network stack and the image fetchers are up when it runs. */
IBBOOT_HOOK(autoboot, HOOK_ORDER_AUTOBOOT, autoboot_start, NULL);

/* SPDX-License-Identifier: MIT */
/*
 * bin/ibboot-hosted: ibboot as a Linux program. Options first, then the boot command line:
 *   bin/ibboot-hosted [--hca] [--hca-guid=N] [--hca-ports=N] [--hca-device=ID] [--hca-log]
 *                     [--fabric=SOCKET] [--ram=MIB] [--busy-poll] [ibboot.cmd=pci,mem,poweroff ...]
 * --hca puts the Hermon model (libhcasim) at 00:04.0 (node GUID --hca-guid, port p = GUID + p);
 * --fabric cables its ports to fabsim.
 * A test device (1234:0b1b) always sits at 00:01.0. Commands are then read from stdin until it
 * ends.
 */
#include <ibboot/platform.h>
#include <ibboot/hosted.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOSTED_HCA_BDF PCI_BDF(0, 4, 0)

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--hca] [--hca-guid=N] [--hca-ports=1|2] [--hca-device=ID] "
		"[--hca-log] [--fabric=SOCKET] [--ram=MIB] [--busy-poll] [BOOT-COMMAND-LINE...]\n", prog);
	exit(2);
}

/* "--name=value" → value, else NULL. */
static const char *opt_value(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return strncmp(arg, name, n) == 0 && arg[n] == '=' ? arg + n + 1 : NULL;
}

static uint64_t opt_number(const char *prog, const char *arg, const char *v)
{
	char *end;
	unsigned long long n = strtoull(v, &end, 0);

	if (!*v || *end) {
		fprintf(stderr, "%s: %s: not a number\n", prog, arg);
		usage(prog);
	}
	return n;
}

int main(int argc, char **argv)
{
	struct hosted_hca_options hca = { 0 };
	bool want_hca = false;
	char cmdline[1024] = "", err[256];
	size_t len = 0;
	const char *v;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strncmp(a, "--", 2) != 0) {
			int n = snprintf(cmdline + len, sizeof(cmdline) - len, "%s%s",
					 len ? " " : "", a);
			if (n < 0 || (size_t)n >= sizeof(cmdline) - len) {
				fprintf(stderr, "%s: command line longer than %zu bytes\n", argv[0],
					sizeof(cmdline) - 1);
				return 2;
			}
			len += (size_t)n;
		} else if (!strcmp(a, "--help")) {
			usage(argv[0]);
		} else if (!strcmp(a, "--hca")) {
			want_hca = true;
		} else if (!strcmp(a, "--hca-log")) {
			hca.log = true;
		} else if ((v = opt_value(a, "--hca-guid"))) {
			hca.node_guid = opt_number(argv[0], a, v);
			want_hca = true;
		} else if ((v = opt_value(a, "--hca-ports"))) {
			hca.num_ports = (unsigned)opt_number(argv[0], a, v);
			want_hca = true;
		} else if ((v = opt_value(a, "--hca-device"))) {
			hca.device_id = (uint16_t)opt_number(argv[0], a, v);
			want_hca = true;
		} else if ((v = opt_value(a, "--fabric"))) {
			hca.fabric = v;
			want_hca = true;
		} else if (!strcmp(a, "--busy-poll")) {
			hosted_set_busy_poll(true);
		} else if ((v = opt_value(a, "--ram"))) {
			hosted_set_ram_size(opt_number(argv[0], a, v) << 20);
		} else {
			fprintf(stderr, "%s: unknown option %s\n", argv[0], a);
			usage(argv[0]);
		}
	}
	hosted_set_cmdline(cmdline);
	if (fakedev_register(PCI_BDF(0, 1, 0))) {
		fprintf(stderr, "%s: cannot register the test device\n", argv[0]);
		return 1;
	}
	if (want_hca && hosted_hca_add(HOSTED_HCA_BDF, &hca, err, sizeof(err))) {
		fprintf(stderr, "%s: cannot add the HCA model: %s\n", argv[0], err);
		return 1;
	}
	ibboot_main();
	return 0;
}

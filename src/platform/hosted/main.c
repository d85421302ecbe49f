/* SPDX-License-Identifier: MIT */
/*
 * bin/ibboot-hosted: ibboot as a Linux program. Its arguments form the boot command line, e.g.
 *   bin/ibboot-hosted ibboot.cmd=pci,mem,poweroff
 * Commands are then read from stdin until it ends.
 */
#include <ibboot/platform.h>
#include <ibboot/hosted.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	char cmdline[1024] = "";
	size_t len = 0;

	for (int i = 1; i < argc; i++) {
		int n = snprintf(cmdline + len, sizeof(cmdline) - len, "%s%s", i > 1 ? " " : "", argv[i]);

		if (n < 0 || (size_t)n >= sizeof(cmdline) - len) {
			fprintf(stderr, "%s: command line longer than %zu bytes\n", argv[0],
				sizeof(cmdline) - 1);
			return 2;
		}
		len += (size_t)n;
	}
	hosted_set_cmdline(cmdline);
	if (fakedev_register(PCI_BDF(0, 1, 0))) {
		fprintf(stderr, "%s: cannot register the test device\n", argv[0]);
		return 1;
	}
	ibboot_main();
	return 0;
}

/* SPDX-License-Identifier: MIT */
#include "tun.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int tun_open(const char *name, char *err, size_t errlen)
{
	struct ifreq ifr;

	if (strlen(name) >= IFNAMSIZ) {
		snprintf(err, errlen, "TUN device name '%s' is longer than %d characters", name, IFNAMSIZ - 1);
		return -EINVAL;
	}
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "open /dev/net/tun: %s (needs root or CAP_NET_ADMIN in this namespace)",
			 strerror(e));
		return -e;
	}
	memset(&ifr, 0, sizeof ifr);
	/* No offloads and no virtio header: the kernel then hands over complete checksums. */
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	memcpy(ifr.ifr_name, name, strlen(name));
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		int e = errno;
		snprintf(err, errlen, "TUNSETIFF %s: %s (is it a TUN device owned by someone else?)", name,
			 strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}

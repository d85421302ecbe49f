/* SPDX-License-Identifier: MIT */
#include "tun.h"
#include "tun_gso.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int tun_open(const char *name, bool *offload, char *err, size_t errlen)
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
	/* With *offload: a virtio-net header on every read and write, so that TCP segmentation and
	 * checksums can be left to us (tun_gso.c). Without: bare datagrams, complete checksums. */
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI | (*offload ? IFF_VNET_HDR : 0);
	memcpy(ifr.ifr_name, name, strlen(name));
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		int e = errno;
		snprintf(err, errlen, "TUNSETIFF %s: %s (is it a TUN device owned by someone else?)", name,
			 strerror(e));
		close(fd);
		return -e;
	}
	if (*offload) {
		int hdr = TUN_VNET_HDR_LEN;

		if (ioctl(fd, TUNSETVNETHDRSZ, &hdr) < 0 ||
		    ioctl(fd, TUNSETOFFLOAD, (unsigned long)(TUN_F_CSUM | TUN_F_TSO4)) < 0) {
			/* Without the offloads the header stays but carries nothing: drop it too. */
			close(fd);
			*offload = false;
			return tun_open(name, offload, err, errlen);
		}
	}
	return fd;
}

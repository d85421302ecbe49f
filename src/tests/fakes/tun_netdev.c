/* SPDX-License-Identifier: MIT */
/* The one TUN net_device of the e2e/tun programs (see tun_netdev.h). */
#include "tun_netdev.h"
#include "net_test_env.h"

#include <ibboot/errno.h>

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define POOL 16   /* transmit buffers, as many as IPoIB's send pool */

static struct net_buf pool[POOL];
static uint8_t pool_mem[POOL][TUN_NETDEV_MTU + 64];
static bool pool_busy[POOL];

void tun_progress(void *ctx, uint64_t bytes, uint64_t total)
{
	struct tun_progress *p = ctx;

	if (bytes < p->last)
		p->monotonic = false;
	p->last = bytes;
	p->total = total;
	p->calls++;
}

uint64_t tun_real_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct net_buf *tun_alloc_tx(struct net_device *nd)
{
	(void)nd;
	for (unsigned i = 0; i < POOL; i++) {
		if (!pool_busy[i]) {
			pool_busy[i] = true;
			/* 4 bytes of headroom, as IPoIB reserves for its header */
			pool[i] = (struct net_buf){ pool_mem[i], pool_mem[i] + 4, 0,
						    sizeof(pool_mem[i]), (void *)(uintptr_t)i, NULL };
			return &pool[i];
		}
	}
	return NULL;
}

static void tun_free_tx(struct net_device *nd, struct net_buf *nb)
{
	(void)nd;
	pool_busy[(uintptr_t)nb->ll_priv] = false;
}

static int tun_transmit(struct net_device *nd, struct net_buf *nb, uint16_t ethertype,
			uint32_t next_hop, unsigned flags)
{
	struct tun_netdev *t = nd->priv;
	ssize_t n = -1;

	(void)next_hop;
	(void)flags;   /* a TUN is layer 3: the kernel routes by destination address */
	if (ethertype == ETHERTYPE_IPV4) {
		if (t->tx_trace)
			t->tx_trace(nb->data, nb->len);
		n = write(t->fd, nb->data, nb->len);
	}
	tun_free_tx(nd, nb);
	if (n != (ssize_t)nb->len) {
		nd->stats.tx_errors++;
		return -EIO;
	}
	nd->stats.tx_packets++;
	return 0;
}

void tun_netdev_deliver(struct tun_netdev *t, const uint8_t *ip, size_t len)
{
	net_rx(&t->nd, ETHERTYPE_IPV4, ip, len);
}

static void tun_poll(struct net_device *nd, uint64_t now)
{
	static uint8_t buf[65536];
	struct tun_netdev *t = nd->priv;
	struct pollfd p = { t->fd, POLLIN, 0 };

	(void)now;
	/* Sleep up to 1 ms when idle: the machine is shared, spinning would steal a core. */
	if (poll(&p, 1, 1) > 0) {
		for (int i = 0; i < 256; i++) {
			ssize_t n = read(t->fd, buf, sizeof(buf));

			if (n <= 0)
				break;
			if ((buf[0] >> 4) != 4)
				continue;   /* IPv6 the kernel sends on its own */
			if (t->rx)
				t->rx(t, buf, (size_t)n);
			else
				tun_netdev_deliver(t, buf, (size_t)n);
		}
	}
	test_now_ms = tun_real_ms();
}

static const struct net_device_ops tun_ops = {
	.alloc_tx = tun_alloc_tx, .free_tx = tun_free_tx, .transmit = tun_transmit,
	.poll = tun_poll,
};

int tun_netdev_open(struct tun_netdev *t, const char *ifname, const uint8_t *guid)
{
	struct ifreq ifr;

	t->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK);
	if (t->fd < 0) {
		perror("/dev/net/tun");
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", ifname);
	if (ioctl(t->fd, TUNSETIFF, &ifr) < 0) {
		perror("TUNSETIFF");
		close(t->fd);
		t->fd = -1;
		return -1;
	}
	memcpy(t->nd.name, "ib0", 4);
	t->nd.ops = &tun_ops;
	t->nd.priv = t;
	t->nd.mtu = TUN_NETDEV_MTU;
	if (guid) {
		/* An IPoIB-shaped link address: QPN 0x48, GID fe80::GUID (RFC 4391 §9.1.1). */
		t->nd.ll_addr[3] = 0x48;
		t->nd.ll_addr[4] = 0xfe;
		t->nd.ll_addr[5] = 0x80;
		memcpy(t->nd.ll_addr + 12, guid, 8);
	}
	t->nd.ll_addr_len = 20;
	t->nd.ll_type = 32;
	t->nd.link_up = true;
	netdev_register(&t->nd);
	return 0;
}

void tun_netdev_close(struct tun_netdev *t)
{
	netdev_unregister(&t->nd);
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

/* SPDX-License-Identifier: MIT */
/*
 * A net_device whose wire is a Linux TUN (IFF_TUN|IFF_NO_PI: plain IPv4 datagrams), for running
 * the image's protocol code against real servers (dnsmasq, nginx) on the host: the e2e/tun
 * programs tun-client and tun-http. It looks like IPoIB to the stack (MTU 2044, hardware type 32,
 * a 20-byte link address built from a GUID) and lends transmit buffers from a fixed pool as the
 * IPoIB device does. The kernel routes by destination address, so next hops are ignored.
 */
#ifndef TUN_NETDEV_H
#define TUN_NETDEV_H

#include <ibboot/net.h>

#define TUN_NETDEV_MTU 2044   /* IPoIB's datagram MTU with a 2048-byte group */

struct tun_netdev;
/* Called for each IPv4 datagram read from the TUN; the default hands it to net_rx(). Tests
 * that impair the wire (loss, reordering) put their own here. */
typedef void (*tun_rx_fn)(struct tun_netdev *t, const uint8_t *ip, size_t len);

struct tun_netdev {
	struct net_device nd;
	int fd;
	tun_rx_fn rx;
	/* Called with each datagram written (tracing), when set. */
	void (*tx_trace)(const uint8_t *ip, size_t len);
};

/* Opens TUN interface ifname and registers t->nd as "ib0", link up; guid (8 bytes, may be NULL)
 * goes into the link address as an IPoIB port GID would. 0, or -1 with a message on stderr. */
int tun_netdev_open(struct tun_netdev *t, const char *ifname, const uint8_t *guid);
void tun_netdev_close(struct tun_netdev *t);
/* Hands one datagram to the stack (what the default rx does). */
void tun_netdev_deliver(struct tun_netdev *t, const uint8_t *ip, size_t len);
/* CLOCK_MONOTONIC in ms: the TUN programs run the stack on real time. */
uint64_t tun_real_ms(void);

/* What a transfer's progress callback saw, for the programs' RESULT lines: tun_progress is the
 * callback, with ctx a struct tun_progress that starts as { 0, 0, 0, true }. */
struct tun_progress {
	uint64_t calls, last, total;
	bool monotonic;   /* no call reported fewer bytes than the one before */
};
void tun_progress(void *ctx, uint64_t bytes, uint64_t total);

#endif

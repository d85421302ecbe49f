/* SPDX-License-Identifier: MIT */
/*
 * A software net_device for the UDP application tests: what the stack transmits is queued and,
 * on the next net_poll(), handed to a scripted server in the test, which answers by injecting
 * IPv4 packets that go up through net_rx() like received ones.
 */
#ifndef APPS_FAKE_NET_H
#define APPS_FAKE_NET_H

#include <ibboot/net.h>
#include <ibboot/ipv4.h>
#include <ibboot/udp.h>

struct fake_pkt {
	uint32_t src, dst;
	uint16_t sport, dport;
	const uint8_t *payload;
	size_t len;
	unsigned flags;      /* NET_TX_* given to transmit */
	uint32_t next_hop;
	const uint8_t *ip;   /* the whole IPv4 datagram */
	size_t ip_len;
};

/* Called for every UDP datagram the stack sent (valid during the call). */
typedef void (*fake_server_fn)(const struct fake_pkt *p, void *ctx);

/* Called on every poll of the device (server-side timers); may be NULL. */
typedef void (*fake_tick_fn)(void *ctx);
extern fake_tick_fn fake_tick;

extern struct net_device fake_nd;
extern unsigned fake_tx_count, fake_tx_bad;

/* Registers fake_nd ("ib0", MTU 2044, link address with GUID 00:02:c9:03:00:00:10:01), clears
 * its address and the queue, and installs the server. */
void fake_net_setup(fake_server_fn server, void *ctx);
void fake_net_teardown(void);
/* Sends a UDP datagram to the stack as if received (checksum computed unless bad_csum). */
void fake_net_inject_udp(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport,
			 const void *payload, size_t len, bool bad_csum);
/* Sends raw IPv4 bytes up the stack. */
void fake_net_inject_ip(const uint8_t *ip, size_t len);
/* Copies of the last n transmitted UDP payloads are kept for assertions. */
#define FAKE_LOG_MAX 64
struct fake_log_entry {
	uint32_t src, dst;
	uint16_t sport, dport;
	uint8_t data[2100];
	size_t len;
	unsigned flags;
	uint64_t when_ms;
};
extern struct fake_log_entry fake_log[FAKE_LOG_MAX];
extern unsigned fake_log_count;   /* total ever; entry i lives at fake_log[i % FAKE_LOG_MAX] */

#endif

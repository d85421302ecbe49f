/* SPDX-License-Identifier: MIT */
/*
 * UDP (RFC 768) for polled clients. A socket is a caller-owned struct: open it on a device with a
 * local port (0 picks an ephemeral one), send datagrams with udp_sendto(), and receive through a
 * callback that runs from the poll loop with a pointer into the device's receive ring (valid only
 * during the call). Nothing is allocated per packet.
 */
#ifndef IBBOOT_UDP_H
#define IBBOOT_UDP_H

#include <ibboot/ipv4.h>

#define UDP_HDR_LEN          8
#define UDP_EPHEMERAL_FIRST  49152u   /* RFC 6335 §6: dynamic ports */
#define UDP_EPHEMERAL_LAST   65535u

struct udp_socket;

/* src/sport: the sender (host order); data/len: the UDP payload. */
typedef void (*udp_rx_fn)(struct udp_socket *s, uint32_t src, uint16_t sport,
			  const uint8_t *data, size_t len);

struct udp_socket {
	struct net_device *nd;
	uint16_t local_port;
	udp_rx_fn rx;
	void *priv;
	struct udp_socket *next;
	bool open;
};

struct udp_datagram {
	uint16_t sport, dport;
	const uint8_t *payload;
	size_t payload_len;
	bool had_checksum;
};

/* A socket bound to nd receives only what arrives on nd and sends through it; with nd NULL it
 * receives on every interface and sends through ipv4_route(dst). A port is taken on an interface
 * by a socket bound to it or to every interface, so each interface can have its own DHCP client
 * on port 68. 0, -EBUSY if the port is taken, -ENOSPC when no ephemeral port is free, -EINVAL. */
int udp_open(struct udp_socket *s, struct net_device *nd, uint16_t local_port, udp_rx_fn rx,
	     void *priv);
void udp_close(struct udp_socket *s);
/* An ephemeral port (UDP_EPHEMERAL_FIRST..LAST) that in_use(port, nd) does not report taken, for
 * UDP sockets and TCP connections; -ENOSPC when none is free. */
int net_pick_port(bool (*in_use)(uint16_t port, const struct net_device *nd),
		  const struct net_device *nd, uint16_t *port);
/* Sends len bytes to dst:dport from the socket's port (source address: the device's, or 0.0.0.0
 * before it has one). 0 or a negative error (-ERANGE when it does not fit the MTU). */
int udp_sendto(struct udp_socket *s, uint32_t dst, uint16_t dport, const void *data, size_t len);
/* The largest payload udp_sendto() can carry on nd. */
size_t udp_max_payload(const struct net_device *nd);

/* Checks the header's length field and, when non-zero, the checksum over the RFC 768 pseudo
 * header (src/dst host order). 0 or -EINVAL with *why. */
int udp_parse(const uint8_t *buf, size_t len, uint32_t src, uint32_t dst,
	      struct udp_datagram *out, const char **why);
/* The checksum to store for a UDP datagram (header with checksum 0 + payload). */
uint16_t udp_checksum(uint32_t src, uint32_t dst, const uint8_t *udp, size_t len);
/* IPv4's handler for protocol 17 (registered by the first udp_open). */
void udp_rx(struct net_device *nd, const struct ipv4_packet *ip);

/* The interface's UDP counters (struct udp_stats in net.h). */
const struct udp_stats *udp_get_stats(const struct net_device *nd);

/* 0 when nd can carry unicast (link up, an address); else says why, as `who`, and returns
 * -EIO (no link) or -EINVAL (no address). */
int net_ready_for_unicast(const struct net_device *nd, const char *who);

#endif

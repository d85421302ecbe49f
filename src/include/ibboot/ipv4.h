/* SPDX-License-Identifier: MIT */
/*
 * IPv4 (RFC 791) and ICMP echo (RFC 792) per interface: each net_device has its own address,
 * netmask and gateway; ipv4_route() picks the interface for a destination. Fragments are refused
 * with a message (reassembly is not needed for boot). Addresses are in host byte order everywhere
 * in this API.
 */
#ifndef IBBOOT_IPV4_H
#define IBBOOT_IPV4_H

#include <ibboot/checksum.h>
#include <ibboot/net.h>

#define IPV4_HDR_LEN      20
#define IPV4_DEFAULT_TTL  64
#define IP_PROTO_ICMP     1
#define IP_PROTO_TCP      6
#define IP_PROTO_UDP      17
#define IPV4_BROADCAST    0xffffffffu

struct ipv4_packet {
	uint32_t src, dst;
	uint8_t proto, ttl, tos;
	uint16_t id;
	size_t hdr_len;
	const uint8_t *payload;
	size_t payload_len;            /* from the total length field, trailing link padding cut */
};

/* Checks version, IHL, lengths, header checksum and fragmentation. 0 or -EINVAL with *why. */
int ipv4_parse(const uint8_t *buf, size_t len, struct ipv4_packet *out, const char **why);
void ipv4_rx(struct net_device *nd, const uint8_t *data, size_t len);

/* Static configuration of one interface: address, netmask, gateway (0 for none). */
int ipv4_configure(struct net_device *nd, uint32_t addr, uint32_t netmask, uint32_t gateway);
/*
 * The interface to send to dst through: one with an address whose subnet holds dst, else the
 * first with a gateway, else the first with an address; NULL when no interface has an address.
 */
struct net_device *ipv4_route(uint32_t dst);
/* A transmit buffer whose data points at the IPv4 payload. */
struct net_buf *ipv4_alloc(struct net_device *nd);
/* Adds the header and sends nb (nb->data/len = payload) to dst; the device owns nb afterwards. */
int ipv4_tx(struct net_device *nd, struct net_buf *nb, uint32_t dst, uint8_t proto);

/* Upper protocols (UDP, TCP): called for every valid packet to the interface with that protocol. */
typedef void (*ipv4_proto_fn)(struct net_device *nd, const struct ipv4_packet *ip);
int ipv4_register_proto(uint8_t proto, ipv4_proto_fn fn);

/* The one's-complement sum of the pseudo header UDP (RFC 768) and TCP (RFC 9293 §3.1) put in
 * front of their checksum: continue it with csum_partial() over the segment. */
uint16_t ipv4_pseudo_sum(uint32_t src, uint32_t dst, uint8_t proto, size_t len);
/* "198.18.0.2" <-> host-order address. */
int ipv4_aton(const char *s, uint32_t *addr);
char *ipv4_ntoa(uint32_t addr, char buf[16]);

/* ---- ICMP ---- */
#define ICMP_ECHO_REPLY    0
#define ICMP_ECHO_REQUEST  8
#define ICMP_HDR_LEN       8

struct icmp_echo {
	uint8_t type, code;
	uint16_t id, seq;
	const uint8_t *data;
	size_t data_len;
};

/* Checks length (>= 8) and checksum; fills *out for any type (id/seq only meaningful for echo). */
int icmp_parse(const uint8_t *buf, size_t len, struct icmp_echo *out, const char **why);
void icmp_rx(struct net_device *nd, const struct ipv4_packet *ip);
/* Sends an echo request with `data_len` bytes of pattern data (nd NULL: ipv4_route(dst)). */
int icmp_send_echo(struct net_device *nd, uint32_t dst, uint16_t id, uint16_t seq,
		   size_t data_len);

/* The interface's ICMP counters (struct icmp_stats in net.h). */
const struct icmp_stats *icmp_get_stats(const struct net_device *nd);
void icmp_reset_stats(struct net_device *nd);
/* fn is called for every valid echo reply to nd (ping); NULL to remove. */
void icmp_set_reply_handler(struct net_device *nd, icmp_reply_fn fn, void *ctx);

#endif

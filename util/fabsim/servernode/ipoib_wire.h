/* SPDX-License-Identifier: MIT */
/*
 * ipoib_wire — IPoIB frame formats (RFC 4391): the 4-byte encapsulation header, the 20-byte
 * link-layer address and IPoIB ARP. Parsers take a buffer and a length (wire data is untrusted)
 * and return 0 or a negative errno with *why set to a short reason.
 */
#ifndef SERVERNODE_IPOIB_WIRE_H
#define SERVERNODE_IPOIB_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* RFC 4391 §6: ethertype (2) + reserved (2). */
#define IPOIB_HDR_LEN 4u
#define IPOIB_ETHERTYPE_IPV4 0x0800u
#define IPOIB_ETHERTYPE_ARP 0x0806u

/* RFC 4391 §9.1: flags/reserved (1) | QPN (3) | GID (16). */
#define IPOIB_HWADDR_LEN 20u
#define IPOIB_QPN_MULTICAST 0xFFFFFFu

/* RFC 4391 §9 (address resolution): ARP with hardware type 32 (ARPHRD_INFINIBAND), hlen 20,
 * plen 4. */
#define IPOIB_ARP_HTYPE 32u
#define IPOIB_ARP_LEN 56u
#define IPOIB_ARP_REQUEST 1u
#define IPOIB_ARP_REPLY 2u

/* IPv4 broadcast group signature (RFC 4391 §4): ff1<scope>:401b:<P_Key>::ffff:ffff. */
#define IPOIB_MGID_SIGNATURE 0x401Bu

struct ipoib_hwaddr {
	uint8_t flags;   /* RFC 4755 puts the connected-mode bits here; UD mode sends 0 */
	uint32_t qpn;    /* 24 bits */
	uint8_t gid[16];
};

struct ipoib_arp {
	uint16_t op;
	struct ipoib_hwaddr sha, tha;
	uint32_t spa, tpa;   /* IPv4 addresses in host byte order */
};

/* Header: returns the ethertype (>= 0) and leaves the payload at buf + IPOIB_HDR_LEN. The
 * reserved field is ignored on receive (RFC 4391 §6). */
int ipoib_hdr_parse(const uint8_t *buf, size_t len, const char **why);
void ipoib_hdr_build(uint8_t *buf, uint16_t ethertype);

void ipoib_hwaddr_encode(uint8_t out[IPOIB_HWADDR_LEN], const struct ipoib_hwaddr *a);
void ipoib_hwaddr_decode(const uint8_t in[IPOIB_HWADDR_LEN], struct ipoib_hwaddr *a);
bool ipoib_hwaddr_equal(const struct ipoib_hwaddr *a, const struct ipoib_hwaddr *b);

/* The broadcast group's MGID for P_Key `pkey` at link-local scope (2), full-membership bit set
 * as RFC 4391 §4 requires. */
void ipoib_broadcast_mgid(uint8_t mgid[16], uint16_t pkey);
/* Broadcast link address: QPN 0xFFFFFF + the broadcast MGID. */
void ipoib_broadcast_hwaddr(struct ipoib_hwaddr *a, uint16_t pkey);

int ipoib_arp_parse(const uint8_t *buf, size_t len, struct ipoib_arp *arp, const char **why);
/* Writes IPOIB_ARP_LEN bytes. */
void ipoib_arp_build(uint8_t *buf, const struct ipoib_arp *arp);

/* Minimal IPv4 checks a bridge needs: version 4, IHL >= 5, header and total length within len.
 * Fills the destination and source (host byte order). */
int ipv4_peek(const uint8_t *buf, size_t len, uint32_t *src, uint32_t *dst, const char **why);

/* Where an IPv4 destination goes on an IPoIB link. */
enum ipv4_dest_kind { IPV4_DEST_UNICAST, IPV4_DEST_BROADCAST, IPV4_DEST_MULTICAST };
enum ipv4_dest_kind ipv4_dest_classify(uint32_t dst, uint32_t my_addr, unsigned prefix_len);

#endif

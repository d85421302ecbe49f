/* SPDX-License-Identifier: MIT */
/*
 * tun_gso — what a TUN device with a virtio-net header (IFF_VNET_HDR) and TCP segmentation offload
 * (TUNSETOFFLOAD TUN_F_CSUM | TUN_F_TSO4) hands over, turned back into the IPv4 datagrams the link
 * carries: a checksum the kernel left partial (VIRTIO_NET_HDR_F_NEEDS_CSUM) is completed, and a TCP
 * super-segment (VIRTIO_NET_HDR_GSO_TCPV4, up to 64 KiB) is cut at gso_size into segments, as a
 * NIC's TSO engine does: each with the headers copied, IPv4 total length, identification (+1 per
 * segment) and header checksum, TCP sequence number, FIN/PSH only on the last segment and CWR
 * only on the first, and a full TCP checksum (RFC 791, RFC 793, RFC 3168 §6.1.1 for CWR).
 * One read from the TUN then moves what took dozens, and the kernel's TCP output runs once per
 * super-segment.
 */
#ifndef SERVERNODE_TUN_GSO_H
#define SERVERNODE_TUN_GSO_H

#include <stddef.h>
#include <stdint.h>

/* struct virtio_net_hdr (the legacy 10-byte header TUN uses by default), in host byte order. */
#define TUN_VNET_HDR_LEN 10
#define TUN_VNET_F_NEEDS_CSUM 1
#define TUN_VNET_GSO_NONE 0
#define TUN_VNET_GSO_TCPV4 1
#define TUN_VNET_GSO_ECN 0x80

/*
 * buf: one TUN read (the virtio-net header, then the packet), n bytes. Calls emit once per IPv4
 * datagram, each with complete checksums, from a buffer valid during the call. Returns the number
 * of datagrams, or -1 with *why set when the packet cannot be split (nothing was emitted).
 */
int tun_gso_split(const uint8_t *buf, size_t n, void (*emit)(void *ctx, const uint8_t *dgram,
							     size_t len),
		  void *ctx, const char **why);

/* RFC 1071 ones'-complement sum of len bytes folded into 16 bits (not inverted), added to sum. */
uint16_t tun_csum_add(uint32_t sum, const uint8_t *p, size_t len);

#endif

/* SPDX-License-Identifier: MIT */
/* Completing checksums and cutting TCP super-segments from a TUN with offloads. See tun_gso.h. */
#include "tun_gso.h"

#include <stdbool.h>
#include <string.h>

#include <ibboot/wire/bytes.h>

#define IPV4_MIN_HDR 20
#define TCP_MIN_HDR 20
#define PROTO_TCP 6
#define PROTO_UDP 17
#define TCP_FIN 0x01
#define TCP_PSH 0x08
#define TCP_CWR 0x80
/* The largest datagram that leaves: the IPoIB link's 4 KiB MTU at most (IPv4 total length). */
#define SEG_MAX 4096

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

uint16_t tun_csum_add(uint32_t sum32, const uint8_t *p, size_t len)
{
	uint64_t acc = 0, sum;

	/* RFC 1071 §2(B): the one's complement sum does not depend on byte order, so the data is
	 * summed as the host's native 32-bit words (8 bytes a load, the carries wait in the upper
	 * half of a 64-bit accumulator) and the folded result swapped to network order once. */
	for (; len >= 8; p += 8, len -= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		acc += (uint32_t)v;
		acc += v >> 32;
	}
	if (len) {   /* the last 1-7 bytes, padded with zeros to a word (an odd byte is a high half) */
		uint8_t tail[8] = { 0 };
		uint64_t v;

		memcpy(tail, p, len);
		memcpy(&v, tail, 8);
		acc += (uint32_t)v;
		acc += v >> 32;
	}
	while (acc >> 16)
		acc = (acc & 0xFFFF) + (acc >> 16);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	acc = (acc >> 8 | acc << 8) & 0xFFFF;
#endif
	sum = (uint64_t)sum32 + acc;
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)sum;
}

static void put_csum(uint8_t *at, uint16_t folded)
{
	put_be16(at, (uint16_t)~folded);
}

/* TCP checksum over the pseudo-header (RFC 793 §3.1) and the segment, field taken as zero. */
static void tcp_csum(uint8_t *ip, size_t ihl, size_t tcp_len)
{
	uint8_t *tcp = ip + ihl;
	uint32_t pseudo = (uint32_t)get_be16(ip + 12) + get_be16(ip + 14) + get_be16(ip + 16) +
			  get_be16(ip + 18) + PROTO_TCP + (uint32_t)tcp_len;

	put_be16(tcp + 16, 0);
	put_csum(tcp + 16, tun_csum_add(pseudo, tcp, tcp_len));
}

int tun_gso_split(const uint8_t *buf, size_t n, void (*emit)(void *ctx, const uint8_t *dgram,
							     size_t len),
		  void *ctx, const char **why)
{
	static uint8_t seg[SEG_MAX];
	const uint8_t *pkt = buf + TUN_VNET_HDR_LEN;
	size_t len, ihl, thl, hdr, mss, total;
	unsigned flags, gso, segs;
	uint32_t seq;
	uint16_t id;

	if (n < TUN_VNET_HDR_LEN + IPV4_MIN_HDR) {
		*why = "shorter than a virtio-net header and an IPv4 header";
		return -1;
	}
	flags = buf[0];
	gso = buf[1] & ~TUN_VNET_GSO_ECN;
	mss = le16(buf + 4);
	len = n - TUN_VNET_HDR_LEN;
	if ((pkt[0] >> 4) != 4 || (ihl = (pkt[0] & 15u) * 4u) < IPV4_MIN_HDR || ihl > len) {
		*why = "not an IPv4 header";
		return -1;
	}
	total = get_be16(pkt + 2);
	if (total > len || total < ihl) {
		*why = "IPv4 total length beyond the read";
		return -1;
	}
	len = total;   /* anything after the datagram is not part of it */
	if (gso == TUN_VNET_GSO_NONE) {
		size_t start = le16(buf + 6), off = le16(buf + 8);

		if (!(flags & TUN_VNET_F_NEEDS_CSUM)) {
			emit(ctx, pkt, len);
			return 1;
		}
		/* The field holds the pseudo-header sum; the rest of the packet is summed into it. */
		if (start + off + 2 > len || start < ihl || len > SEG_MAX) {
			*why = "partial checksum outside the datagram";
			return -1;
		}
		memcpy(seg, pkt, len);
		put_csum(seg + start + off, tun_csum_add(0, seg + start, len - start));
		/* UDP sends a computed 0 as all ones: 0 means "no checksum" (RFC 768). */
		if (pkt[9] == PROTO_UDP && get_be16(seg + start + off) == 0)
			put_be16(seg + start + off, 0xFFFF);
		emit(ctx, seg, len);
		return 1;
	}
	if (gso != TUN_VNET_GSO_TCPV4) {
		*why = "a segmentation offload other than TCPv4";
		return -1;
	}
	if (pkt[9] != PROTO_TCP || len < ihl + TCP_MIN_HDR ||
	    (thl = (pkt[ihl + 12] >> 4) * 4u) < TCP_MIN_HDR || ihl + thl > len) {
		*why = "TCPv4 offload without a TCP header";
		return -1;
	}
	hdr = ihl + thl;
	if (mss == 0 || hdr + mss > SEG_MAX) {
		*why = "segment size 0 or beyond the link";
		return -1;
	}
	id = get_be16(pkt + 4);
	seq = get_be32(pkt + ihl + 4);
	segs = 0;
	for (size_t off = hdr; off < len || segs == 0; off += mss) {
		size_t dlen = len - off < mss ? len - off : mss;
		bool last = off + dlen >= len, first = segs == 0;
		uint8_t *tcp = seg + ihl;

		memcpy(seg, pkt, hdr);
		memcpy(seg + hdr, pkt + off, dlen);
		put_be16(seg + 2, (uint16_t)(hdr + dlen));
		put_be16(seg + 4, (uint16_t)(id + segs));
		put_be16(seg + 10, 0);
		put_csum(seg + 10, tun_csum_add(0, seg, ihl));
		put_be32(tcp + 4, seq + (uint32_t)(off - hdr));
		if (!last)
			tcp[13] &= (uint8_t)~(TCP_FIN | TCP_PSH);
		if (!first)
			tcp[13] &= (uint8_t)~TCP_CWR;
		tcp_csum(seg, ihl, thl + dlen);
		emit(ctx, seg, hdr + dlen);
		segs++;
		if (last)
			break;
	}
	return (int)segs;
}

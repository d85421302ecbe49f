/* SPDX-License-Identifier: MIT */
/* IPoIB frame formats, RFC 4391. */
#include "ipoib_wire.h"

#include <errno.h>
#include <string.h>

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static void wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

static int fail(const char **why, const char *msg, int err)
{
	if (why)
		*why = msg;
	return err;
}

int ipoib_hdr_parse(const uint8_t *buf, size_t len, const char **why)
{
	if (len < IPOIB_HDR_LEN)
		return fail(why, "IPoIB frame shorter than its 4-byte header", -EINVAL);
	return rd16(buf);
}

void ipoib_hdr_build(uint8_t *buf, uint16_t ethertype)
{
	wr16(buf, ethertype);
	wr16(buf + 2, 0);   /* reserved: zero on send (RFC 4391 §6) */
}

void ipoib_hwaddr_encode(uint8_t out[IPOIB_HWADDR_LEN], const struct ipoib_hwaddr *a)
{
	wr32(out, (uint32_t)a->flags << 24 | (a->qpn & 0xFFFFFFu));
	memcpy(out + 4, a->gid, 16);
}

void ipoib_hwaddr_decode(const uint8_t in[IPOIB_HWADDR_LEN], struct ipoib_hwaddr *a)
{
	uint32_t w = rd32(in);
	a->flags = (uint8_t)(w >> 24);
	a->qpn = w & 0xFFFFFFu;
	memcpy(a->gid, in + 4, 16);
}

bool ipoib_hwaddr_equal(const struct ipoib_hwaddr *a, const struct ipoib_hwaddr *b)
{
	/* The flags byte describes capabilities (RFC 4755 connected mode), not identity. */
	return a->qpn == b->qpn && memcmp(a->gid, b->gid, 16) == 0;
}

void ipoib_broadcast_mgid(uint8_t mgid[16], uint16_t pkey)
{
	memset(mgid, 0, 16);
	mgid[0] = 0xFF;
	mgid[1] = 0x12;   /* flags 1 (transient), scope 2 (link-local) */
	wr16(mgid + 2, IPOIB_MGID_SIGNATURE);
	wr16(mgid + 4, (uint16_t)(pkey | 0x8000u));
	wr32(mgid + 12, 0xFFFFFFFFu);
}

void ipoib_broadcast_hwaddr(struct ipoib_hwaddr *a, uint16_t pkey)
{
	a->flags = 0;
	a->qpn = IPOIB_QPN_MULTICAST;
	ipoib_broadcast_mgid(a->gid, pkey);
}

int ipoib_arp_parse(const uint8_t *buf, size_t len, struct ipoib_arp *arp, const char **why)
{
	if (len < IPOIB_ARP_LEN)
		return fail(why, "IPoIB ARP shorter than 56 bytes", -EINVAL);
	if (rd16(buf) != IPOIB_ARP_HTYPE)
		return fail(why, "ARP hardware type is not 32 (InfiniBand)", -EPROTONOSUPPORT);
	if (rd16(buf + 2) != IPOIB_ETHERTYPE_IPV4)
		return fail(why, "ARP protocol type is not IPv4", -EPROTONOSUPPORT);
	if (buf[4] != IPOIB_HWADDR_LEN || buf[5] != 4)
		return fail(why, "ARP address lengths are not 20/4", -EINVAL);
	arp->op = rd16(buf + 6);
	if (arp->op != IPOIB_ARP_REQUEST && arp->op != IPOIB_ARP_REPLY)
		return fail(why, "ARP opcode is neither request nor reply", -EOPNOTSUPP);
	ipoib_hwaddr_decode(buf + 8, &arp->sha);
	arp->spa = rd32(buf + 28);
	ipoib_hwaddr_decode(buf + 32, &arp->tha);
	arp->tpa = rd32(buf + 52);
	return 0;
}

void ipoib_arp_build(uint8_t *buf, const struct ipoib_arp *arp)
{
	wr16(buf, IPOIB_ARP_HTYPE);
	wr16(buf + 2, IPOIB_ETHERTYPE_IPV4);
	buf[4] = IPOIB_HWADDR_LEN;
	buf[5] = 4;
	wr16(buf + 6, arp->op);
	ipoib_hwaddr_encode(buf + 8, &arp->sha);
	wr32(buf + 28, arp->spa);
	ipoib_hwaddr_encode(buf + 32, &arp->tha);
	wr32(buf + 52, arp->tpa);
}

int ipv4_peek(const uint8_t *buf, size_t len, uint32_t *src, uint32_t *dst, const char **why)
{
	if (len < 20)
		return fail(why, "IPv4 datagram shorter than 20 bytes", -EINVAL);
	if (buf[0] >> 4 != 4)
		return fail(why, "not IPv4 (version nibble)", -EPROTONOSUPPORT);
	size_t ihl = (size_t)(buf[0] & 15) * 4;
	size_t total = rd16(buf + 2);
	if (ihl < 20 || total < ihl || total > len)
		return fail(why, "IPv4 header/total length inconsistent with the frame", -EINVAL);
	*src = rd32(buf + 12);
	*dst = rd32(buf + 16);
	return 0;
}

enum ipv4_dest_kind ipv4_dest_classify(uint32_t dst, uint32_t my_addr, unsigned prefix_len)
{
	if (dst == 0xFFFFFFFFu)
		return IPV4_DEST_BROADCAST;
	if ((dst >> 28) == 0xE)
		return IPV4_DEST_MULTICAST;
	if (prefix_len > 0 && prefix_len < 31) {
		uint32_t host_mask = 0xFFFFFFFFu >> prefix_len;
		if ((dst & ~host_mask) == (my_addr & ~host_mask) && (dst & host_mask) == host_mask)
			return IPV4_DEST_BROADCAST;
	}
	return IPV4_DEST_UNICAST;
}

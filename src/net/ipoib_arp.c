/* SPDX-License-Identifier: MIT */
/* IPoIB wire formats: the encapsulation header (RFC 4391 §6) and ARP (RFC 826, RFC 4391 §8). */
#include <ibboot/ipoib.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>
#include <ibboot/byteorder.h>

void ipoib_addr_make(uint8_t out[IPOIB_ALEN], uint32_t qpn, const union ib_gid *gid)
{
	out[0] = 0;   /* flags: no connected mode (RFC 4755 bits stay clear in UD mode) */
	put_be24(out + 1, qpn & IB_QPN_MASK);
	memcpy(out + 4, gid->raw, IB_GID_LEN);
}

int ipoib_parse_header(const uint8_t *buf, size_t len, uint16_t *ethertype, const char **why)
{
	const char *dummy;

	if (!why)
		why = &dummy;
	if (!buf || len < IPOIB_HDR_LEN) {
		*why = "shorter than the IPoIB header";
		return -EINVAL;
	}
	/* The reserved half is ignored on receive (RFC 4391 §6). */
	*ethertype = get_be16(buf);
	return 0;
}

int ipoib_arp_parse(const uint8_t *buf, size_t len, struct ipoib_arp *out, const char **why)
{
	const char *dummy;
	uint16_t op;

	if (!why)
		why = &dummy;
	if (!buf || len < IPOIB_ARP_LEN) {
		*why = "shorter than an IPoIB ARP packet (56 bytes)";
		return -EINVAL;
	}
	if (get_be16(buf) != IPOIB_ARPHRD) {
		*why = "ARP hardware type is not InfiniBand (32)";
		return -EINVAL;
	}
	if (get_be16(buf + 2) != ETHERTYPE_IPV4 || buf[5] != 4) {
		*why = "ARP for a protocol other than IPv4";
		return -EINVAL;
	}
	if (buf[4] != IPOIB_ALEN) {
		*why = "ARP hardware address length is not 20";
		return -EINVAL;
	}
	op = get_be16(buf + 6);
	if (op != ARP_OP_REQUEST && op != ARP_OP_REPLY) {
		*why = "ARP operation is neither request nor reply";
		return -EINVAL;
	}
	out->op = op;
	memcpy(out->sha, buf + 8, IPOIB_ALEN);
	out->spa = get_be32(buf + 28);
	memcpy(out->tha, buf + 32, IPOIB_ALEN);
	out->tpa = get_be32(buf + 52);
	return 0;
}

int ipoib_arp_build(uint8_t *buf, size_t size, const struct ipoib_arp *arp)
{
	if (size < IPOIB_ARP_LEN)
		return -ERANGE;
	put_be16(buf, IPOIB_ARPHRD);
	put_be16(buf + 2, ETHERTYPE_IPV4);
	buf[4] = IPOIB_ALEN;
	buf[5] = 4;
	put_be16(buf + 6, arp->op);
	memcpy(buf + 8, arp->sha, IPOIB_ALEN);
	put_be32(buf + 28, arp->spa);
	memcpy(buf + 32, arp->tha, IPOIB_ALEN);
	put_be32(buf + 52, arp->tpa);
	return IPOIB_ARP_LEN;
}

/* SPDX-License-Identifier: MIT */
/* IPv4 (RFC 791): parse and check, deliver to the protocol handlers, route and send. */
#include <ibboot/ipv4.h>
#include <ibboot/byteorder.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>

#define IPV4_MAX_PROTOS 4

/* The handlers of the protocols above IPv4 (a registry of code, the same for every interface). */
static struct {
	uint8_t proto;
	ipv4_proto_fn fn;
} protos[IPV4_MAX_PROTOS];

uint16_t ipv4_pseudo_sum(uint32_t src, uint32_t dst, uint8_t proto, size_t len)
{
	uint8_t ph[12];

	put_be32(ph, src);
	put_be32(ph + 4, dst);
	ph[8] = 0;
	ph[9] = proto;
	put_be16(ph + 10, (uint16_t)len);
	return csum_partial(ph, sizeof(ph), 0);
}

char *ipv4_ntoa(uint32_t a, char buf[16])
{
	ksnprintf(buf, 16, "%'u", a);
	return buf;
}

int ipv4_aton(const char *s, uint32_t *addr)
{
	uint32_t a = 0;

	for (int part = 0; part < 4; part++) {
		unsigned v = 0, digits = 0;

		while (*s >= '0' && *s <= '9' && digits < 4) {
			v = v * 10 + (unsigned)(*s++ - '0');
			digits++;
		}
		if (!digits || v > 255 || digits > 3)
			return -EINVAL;
		a = a << 8 | v;
		if (part < 3 && *s++ != '.')
			return -EINVAL;
	}
	if (*s)
		return -EINVAL;
	*addr = a;
	return 0;
}

int ipv4_parse(const uint8_t *buf, size_t len, struct ipv4_packet *out, const char **why)
{
	const char *dummy;
	size_t ihl, total;
	uint16_t frag;

	if (!why)
		why = &dummy;
	if (!buf || len < IPV4_HDR_LEN) {
		*why = "too short";
		return -EINVAL;
	}
	if (buf[0] >> 4 != 4) {
		*why = "not IPv4";
		return -EINVAL;
	}
	ihl = (size_t)(buf[0] & 15) * 4;
	total = get_be16(buf + 2);
	if (ihl < IPV4_HDR_LEN || ihl > len) {
		*why = "bad header length";
		return -EINVAL;
	}
	if (total < ihl || total > len) {
		*why = "bad total length";
		return -EINVAL;
	}
	if (ip_checksum(buf, ihl) != 0) {
		*why = "bad header checksum";
		return -EINVAL;
	}
	frag = get_be16(buf + 6);
	if (frag & 0x3fff) {   /* MF set or a non-zero offset (RFC 791 §3.1) */
		*why = "fragmented (no reassembly)";
		return -ENOTSUP;
	}
	out->tos = buf[1];
	out->id = get_be16(buf + 4);
	out->ttl = buf[8];
	out->proto = buf[9];
	out->src = get_be32(buf + 12);
	out->dst = get_be32(buf + 16);
	out->hdr_len = ihl;
	out->payload = buf + ihl;
	out->payload_len = total - ihl;
	return 0;
}

static bool is_for_us(const struct net_device *nd, uint32_t dst)
{
	if (dst == IPV4_BROADCAST || (nd->ip_addr && dst == nd->ip_addr))
		return true;
	/* the directed broadcast of our subnet */
	return nd->ip_addr && nd->netmask && dst == (nd->ip_addr | ~nd->netmask);
}

void ipv4_rx(struct net_device *nd, const uint8_t *data, size_t len)
{
	struct ipv4_packet ip;
	const char *why;
	int rc = ipv4_parse(data, len, &ip, &why);

	if (rc < 0) {
		nd->stats.rx_dropped++;
		if (rc == -ENOTSUP && len >= IPV4_HDR_LEN)
			kprintf("%s: IPv4 packet from %'u dropped: %s\n", nd->name,
				get_be32(data + 12), why);
		return;
	}
	if (!is_for_us(nd, ip.dst)) {
		nd->stats.rx_dropped++;
		return;
	}
	if (ip.proto == IP_PROTO_ICMP) {
		icmp_rx(nd, &ip);
		return;
	}
	for (unsigned i = 0; i < IPV4_MAX_PROTOS; i++) {
		if (protos[i].fn && protos[i].proto == ip.proto) {
			protos[i].fn(nd, &ip);
			return;
		}
	}
	nd->stats.rx_dropped++;
}

int ipv4_register_proto(uint8_t proto, ipv4_proto_fn fn)
{
	for (unsigned i = 0; i < IPV4_MAX_PROTOS; i++) {
		if (!protos[i].fn || protos[i].proto == proto) {
			protos[i].proto = proto;
			protos[i].fn = fn;
			return 0;
		}
	}
	return -ENOSPC;
}

int ipv4_configure(struct net_device *nd, uint32_t addr, uint32_t netmask, uint32_t gateway)
{
	char g[16];

	if (addr == 0 || addr == IPV4_BROADCAST || (netmask && (~netmask & (~netmask + 1)))) {
		kprintf("%s: invalid IPv4 configuration\n", nd->name);
		return -EINVAL;
	}
	nd->ip_addr = addr;
	nd->netmask = netmask;
	nd->gateway = gateway;
	kprintf("%s: IPv4 %'u netmask %'u gateway %s\n", nd->name, addr, netmask,
		gateway ? ipv4_ntoa(gateway, g) : "none");
	return 0;
}

struct net_device *ipv4_route(uint32_t dst)
{
	struct net_device *gw = NULL, *any = NULL;

	for (struct net_device *nd = netdev_first(); nd; nd = nd->next) {
		if (!nd->ip_addr)
			continue;
		if (nd->netmask && (dst & nd->netmask) == (nd->ip_addr & nd->netmask))
			return nd;
		if (nd->gateway && !gw)
			gw = nd;
		if (!any)
			any = nd;
	}
	return gw ? gw : any;
}

struct net_buf *ipv4_alloc(struct net_device *nd)
{
	struct net_buf *nb = nd->ops->alloc_tx(nd);

	if (!nb)
		return NULL;
	if (!nb_reserve(nb, IPV4_HDR_LEN)) {
		nd->ops->free_tx(nd, nb);
		return NULL;
	}
	return nb;
}

int ipv4_tx(struct net_device *nd, struct net_buf *nb, uint32_t dst, uint8_t proto)
{
	uint32_t next_hop = dst;
	unsigned flags = 0;
	uint8_t *h;

	if (!nd->ip_addr && dst != IPV4_BROADCAST) {
		nd->ops->free_tx(nd, nb);
		return -EINVAL;
	}
	if (nb->len + IPV4_HDR_LEN > nd->mtu || !(h = nb_push(nb, IPV4_HDR_LEN))) {
		nd->ops->free_tx(nd, nb);
		return -ERANGE;
	}
	if (dst == IPV4_BROADCAST || (nd->netmask && dst == (nd->ip_addr | ~nd->netmask))) {
		flags |= NET_TX_BROADCAST;
	} else if (nd->netmask && (dst & nd->netmask) != (nd->ip_addr & nd->netmask)) {
		if (!nd->gateway) {
			kprintf("%s: no route to %'u (no gateway)\n", nd->name, dst);
			nd->ops->free_tx(nd, nb);
			return -ENOENT;
		}
		next_hop = nd->gateway;
	}
	h[0] = 0x45;
	h[1] = 0;
	put_be16(h + 2, (uint16_t)nb->len);
	put_be16(h + 4, nd->ip_id++);
	put_be16(h + 6, 0x4000);   /* DF: we never fragment */
	h[8] = IPV4_DEFAULT_TTL;
	h[9] = proto;
	put_be16(h + 10, 0);
	put_be32(h + 12, nd->ip_addr);
	put_be32(h + 16, dst);
	put_be16(h + 10, ip_checksum(h, IPV4_HDR_LEN));
	return nd->ops->transmit(nd, nb, ETHERTYPE_IPV4, next_hop, flags);
}

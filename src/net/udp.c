/* SPDX-License-Identifier: MIT */
/* UDP (RFC 768): checksums, port demultiplexing, ephemeral ports, sending from caller sockets. */
#include <ibboot/udp.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/random.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>
#include <ibboot/byteorder.h>

/* Open sockets of every interface, each bound to its interface (or to all of them). */
static struct udp_socket *sockets;
static bool registered;

uint16_t udp_checksum(uint32_t src, uint32_t dst, const uint8_t *udp, size_t len)
{
	uint16_t c = csum_finish(csum_partial(udp, len, ipv4_pseudo_sum(src, dst, IP_PROTO_UDP,
								    len)));

	/* RFC 768: a computed zero is sent as all ones (zero means "no checksum"). */
	return c ? c : 0xffff;
}

int udp_parse(const uint8_t *buf, size_t len, uint32_t src, uint32_t dst,
	      struct udp_datagram *out, const char **why)
{
	const char *dummy;
	size_t ulen;

	if (!why)
		why = &dummy;
	if (!buf || len < UDP_HDR_LEN) {
		*why = "shorter than a UDP header";
		return -EINVAL;
	}
	ulen = get_be16(buf + 4);
	if (ulen < UDP_HDR_LEN || ulen > len) {
		*why = "bad UDP length";
		return -EINVAL;
	}
	out->had_checksum = get_be16(buf + 6) != 0;
	if (out->had_checksum &&
	    csum_finish(csum_partial(buf, ulen, ipv4_pseudo_sum(src, dst, IP_PROTO_UDP, ulen)))) {
		*why = "bad UDP checksum";
		return -EINVAL;
	}
	out->sport = get_be16(buf);
	out->dport = get_be16(buf + 2);
	out->payload = buf + UDP_HDR_LEN;
	out->payload_len = ulen - UDP_HDR_LEN;
	return 0;
}

void udp_rx(struct net_device *nd, const struct ipv4_packet *ip)
{
	struct udp_datagram d;
	const char *why;

	if (udp_parse(ip->payload, ip->payload_len, ip->src, ip->dst, &d, &why) < 0) {
		nd->udp.rx_bad++;
		return;
	}
	nd->udp.rx++;
	for (struct udp_socket *s = sockets; s; s = s->next) {
		if (s->local_port == d.dport && (!s->nd || s->nd == nd)) {
			s->rx(s, ip->src, d.sport, d.payload, d.payload_len);
			return;
		}
	}
	nd->udp.rx_no_port++;
}

static bool port_in_use(uint16_t port, const struct net_device *nd)
{
	for (struct udp_socket *s = sockets; s; s = s->next)
		if (s->local_port == port && (!s->nd || !nd || s->nd == nd))
			return true;
	return false;
}

int net_pick_port(bool (*in_use)(uint16_t port, const struct net_device *nd),
		  const struct net_device *nd, uint16_t *port)
{
	const unsigned span = UDP_EPHEMERAL_LAST - UDP_EPHEMERAL_FIRST + 1;
	/* RFC 6056 §3.3.1 (Algorithm 1): a random port for every socket or connection, the next
	 * free one up from there if it is taken. One draw per socket, none per packet. */
	unsigned start = random_below(span);

	for (unsigned i = 0; i < span; i++) {
		uint16_t p = (uint16_t)(UDP_EPHEMERAL_FIRST + (start + i) % span);

		if (!in_use(p, nd)) {
			*port = p;
			return 0;
		}
	}
	return -ENOSPC;
}

int udp_open(struct udp_socket *s, struct net_device *nd, uint16_t local_port, udp_rx_fn rx,
	     void *priv)
{
	int rc;

	if (!s || !rx || s->open)
		return -EINVAL;
	if (!registered) {
		rc = ipv4_register_proto(IP_PROTO_UDP, udp_rx);
		if (rc < 0)
			return rc;
		registered = true;
	}
	if (local_port) {
		if (port_in_use(local_port, nd))
			return -EBUSY;
	} else if ((rc = net_pick_port(port_in_use, nd, &local_port)) < 0) {
		return rc;
	}
	s->nd = nd;
	s->local_port = local_port;
	s->rx = rx;
	s->next = sockets;
	s->open = true;
	s->priv = priv;
	sockets = s;
	return 0;
}

void udp_close(struct udp_socket *s)
{
	if (!s || !s->open)
		return;
	for (struct udp_socket **pp = &sockets; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	s->open = false;
	s->next = NULL;
}

size_t udp_max_payload(const struct net_device *nd)
{
	return nd->mtu > IPV4_HDR_LEN + UDP_HDR_LEN ? nd->mtu - IPV4_HDR_LEN - UDP_HDR_LEN : 0;
}

int udp_sendto(struct udp_socket *s, uint32_t dst, uint16_t dport, const void *data, size_t len)
{
	struct net_device *nd = s->nd ? s->nd : ipv4_route(dst);
	struct net_buf *nb;
	uint8_t *h;
	int rc;

	if (!nd)
		nd = netdev_first();   /* no interface has an address yet: a broadcast, say */
	if (!s->open || !nd)
		return -EINVAL;
	if (len > udp_max_payload(nd)) {
		nd->udp.tx_errors++;
		return -ERANGE;
	}
	nb = ipv4_alloc(nd);
	if (!nb) {
		nd->udp.tx_errors++;
		return -EBUSY;
	}
	h = nb_put(nb, UDP_HDR_LEN + len);
	if (!h) {
		nd->ops->free_tx(nd, nb);
		nd->udp.tx_errors++;
		return -ERANGE;
	}
	put_be16(h, s->local_port);
	put_be16(h + 2, dport);
	put_be16(h + 4, (uint16_t)(UDP_HDR_LEN + len));
	put_be16(h + 6, 0);
	if (len)
		memcpy(h + UDP_HDR_LEN, data, len);
	/* ipv4_tx puts the device's address (0.0.0.0 while unconfigured) in the source field. */
	put_be16(h + 6, udp_checksum(nd->ip_addr, dst, h, UDP_HDR_LEN + len));
	rc = ipv4_tx(nd, nb, dst, IP_PROTO_UDP);
	if (rc < 0)
		nd->udp.tx_errors++;
	else
		nd->udp.tx++;
	return rc;
}

const struct udp_stats *udp_get_stats(const struct net_device *nd)
{
	return &nd->udp;
}

int net_ready_for_unicast(const struct net_device *nd, const char *who)
{
	if (!nd->link_up) {
		kprintf("%s: %s has no link (see ibstat)\n", who, nd->name);
		return -EIO;
	}
	if (!nd->ip_addr) {
		kprintf("%s: %s has no IPv4 address (run dhcp first)\n", who, nd->name);
		return -EINVAL;
	}
	return 0;
}

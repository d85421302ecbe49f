/* SPDX-License-Identifier: MIT */
/* The scripted peer's software net_device (see tcp_peer.h). */
#include "tcp_peer.h"
#include "net_test_env.h"

#include <ibboot/dma.h>
#include <ibboot/string.h>
#include <ibboot/udp.h>
#include <ibboot/byteorder.h>

#define POOL 16
#define BUF_SIZE 4096

struct net_device peer_nd;
void (*peer_tick)(void);
unsigned peer_bad_tx;

static struct net_buf pool[POOL];
static uint8_t pool_mem[POOL][BUF_SIZE];
static bool pool_busy[POOL];
static struct peer_seg queue[PEER_QUEUE];
static struct {
	uint16_t sport, dport;
	uint8_t data[512];
	size_t len;
	bool valid;
} udp_last;
static unsigned q_head, q_tail;

static struct net_buf *peer_alloc_tx(struct net_device *nd)
{
	(void)nd;
	for (unsigned i = 0; i < POOL; i++) {
		if (!pool_busy[i]) {
			pool_busy[i] = true;
			pool[i] = (struct net_buf){ pool_mem[i], pool_mem[i] + 4, 0, BUF_SIZE,
						    (void *)(uintptr_t)i, NULL };
			return &pool[i];
		}
	}
	return NULL;
}

static void peer_free_tx(struct net_device *nd, struct net_buf *nb)
{
	(void)nd;
	pool_busy[(uintptr_t)nb->ll_priv] = false;
}

/* Reads the client's segment with a parser of its own (not tcp_parse). */
static bool decode(const uint8_t *ip, size_t len, struct peer_seg *s)
{
	size_t ihl, thl, i;
	const uint8_t *t;

	if (len < 40 || (ip[0] >> 4) != 4 || ip[9] != IP_PROTO_TCP)
		return false;
	ihl = (size_t)(ip[0] & 15) * 4;
	if (get_be16(ip + 2) != len || ihl + 20 > len)
		return false;
	t = ip + ihl;
	thl = (size_t)(t[12] >> 4) * 4;
	if (thl < 20 || ihl + thl > len || len - ihl - thl > sizeof(s->data))
		return false;
	if (tcp_checksum(get_be32(ip + 12), get_be32(ip + 16), t, len - ihl) != 0)
		return false;
	memset(s, 0, sizeof(*s));
	s->sport = get_be16(t);
	s->dport = get_be16(t + 2);
	s->seq = get_be32(t + 4);
	s->ack = get_be32(t + 8);
	s->flags = t[13];
	s->win = get_be16(t + 14);
	for (i = 20; i < thl;) {
		uint8_t k = t[i];

		if (k == 0)
			break;
		if (k == 1) {
			i++;
			continue;
		}
		if (i + 1 >= thl || t[i + 1] < 2 || i + t[i + 1] > thl)
			return false;
		if (k == 2 && t[i + 1] == 4) {
			s->has_mss = true;
			s->mss = get_be16(t + i + 2);
		} else if (k == 3 && t[i + 1] == 3) {
			s->has_wscale = true;
			s->wscale = t[i + 2];
		} else if (k == 4 && t[i + 1] == 2) {
			s->sack_permitted = true;
		} else if (k == 5 && t[i + 1] >= 10 && (t[i + 1] - 2) % 8 == 0) {
			s->n_sack = MIN((unsigned)(t[i + 1] - 2) / 8, 4u);
			for (unsigned b = 0; b < s->n_sack; b++) {
				s->sack[b][0] = get_be32(t + i + 2 + 8 * b);
				s->sack[b][1] = get_be32(t + i + 6 + 8 * b);
			}
		} else if (k == 8 && t[i + 1] == 10) {
			s->has_ts = true;
			s->tsval = get_be32(t + i + 2);
			s->tsecr = get_be32(t + i + 6);
		}
		i += t[i + 1];
	}
	s->len = len - ihl - thl;
	memcpy(s->data, t + thl, s->len);
	return true;
}

static int peer_transmit(struct net_device *nd, struct net_buf *nb, uint16_t ethertype,
			 uint32_t next_hop, unsigned flags)
{
	(void)next_hop;
	(void)flags;
	if (ethertype == ETHERTYPE_IPV4 && nb->len >= 28 && nb->data[9] == IP_PROTO_UDP &&
	    nb->len - 28 <= sizeof(udp_last.data)) {
		udp_last.sport = get_be16(nb->data + 20);
		udp_last.dport = get_be16(nb->data + 22);
		udp_last.len = nb->len - 28;
		memcpy(udp_last.data, nb->data + 28, udp_last.len);
		udp_last.valid = true;
		peer_free_tx(nd, nb);
		return 0;
	}
	if (ethertype != ETHERTYPE_IPV4 || q_tail - q_head == PEER_QUEUE ||
	    !decode(nb->data, nb->len, &queue[q_tail % PEER_QUEUE])) {
		peer_bad_tx++;
		peer_free_tx(nd, nb);
		return -1;
	}
	q_tail++;
	peer_free_tx(nd, nb);
	return 0;
}

static void peer_poll(struct net_device *nd, uint64_t now)
{
	(void)nd;
	(void)now;
	if (peer_tick)
		peer_tick();
}

static const struct net_device_ops peer_ops = {
	.alloc_tx = peer_alloc_tx, .free_tx = peer_free_tx, .transmit = peer_transmit,
	.poll = peer_poll,
};

void peer_setup(void)
{
	netdev_unregister(&peer_nd);
	kfree(peer_nd.lease);
	memset(&peer_nd, 0, sizeof(peer_nd));
	memcpy(peer_nd.name, "ib0", 4);
	peer_nd.ops = &peer_ops;
	peer_nd.mtu = 2044;
	peer_nd.ll_addr_len = 20;
	peer_nd.ll_type = 32;
	peer_nd.link_up = true;
	memset(pool_busy, 0, sizeof(pool_busy));
	q_head = q_tail = 0;
	udp_last.valid = false;
	peer_bad_tx = 0;
	peer_tick = NULL;
	netdev_register(&peer_nd);
	ipv4_configure(&peer_nd, CLIENT_IP, 0xffffff00u, 0);
	test_clock_autostep = 0;
}

void peer_teardown(void)
{
	netdev_unregister(&peer_nd);
	peer_tick = NULL;
	test_clock_autostep = 0;
}

bool peer_pop_udp(uint16_t *sport, uint16_t *dport, uint8_t *buf, size_t *len)
{
	if (!udp_last.valid)
		return false;
	udp_last.valid = false;
	*sport = udp_last.sport;
	*dport = udp_last.dport;
	memcpy(buf, udp_last.data, udp_last.len);
	*len = udp_last.len;
	return true;
}

void peer_send_udp(uint16_t sport, uint16_t dport, const void *data, size_t len)
{
	static uint8_t pkt[IPV4_HDR_LEN + UDP_HDR_LEN + 512];
	size_t total;

	if (len > 512)
		return;
	total = test_udp_datagram(pkt, PEER_IP, sport, CLIENT_IP, dport, data, len);
	net_rx(&peer_nd, ETHERTYPE_IPV4, pkt, total);
}

bool peer_pop(struct peer_seg *out)
{
	if (q_head == q_tail)
		return false;
	*out = queue[q_head++ % PEER_QUEUE];
	return true;
}

unsigned peer_queued(void)
{
	return q_tail - q_head;
}

void peer_flush(void)
{
	q_head = q_tail;
}

size_t peer_syn_opts(uint8_t *o, uint16_t mss, int wscale, bool ts, uint32_t tsval,
		     uint32_t tsecr)
{
	size_t n = 0;

	o[n++] = 2;
	o[n++] = 4;
	put_be16(o + n, mss);
	n += 2;
	if (wscale >= 0) {
		o[n++] = 1;
		o[n++] = 3;
		o[n++] = 3;
		o[n++] = (uint8_t)wscale;
	}
	if (ts) {
		o[n++] = 1;
		o[n++] = 1;
		o[n++] = 8;
		o[n++] = 10;
		put_be32(o + n, tsval);
		put_be32(o + n + 4, tsecr);
		n += 8;
	}
	return n;
}

void peer_send_raw(uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack, uint8_t flags,
		   uint16_t win, const void *data, size_t len, const uint8_t *opts, size_t opt_len,
		   bool bad_csum)
{
	static uint8_t pkt[IPV4_HDR_LEN + TCP_MAX_HDR_LEN + 4096];
	uint8_t *t = pkt + IPV4_HDR_LEN;
	size_t thl = TCP_HDR_LEN + opt_len, total = IPV4_HDR_LEN + thl + len;

	if (opt_len % 4 || opt_len > 40 || len > 4096)
		return;
	memset(pkt, 0, IPV4_HDR_LEN + thl);
	test_ipv4_header(pkt, PEER_IP, CLIENT_IP, IP_PROTO_TCP, thl + len);
	put_be16(t, sport);
	put_be16(t + 2, dport);
	put_be32(t + 4, seq);
	put_be32(t + 8, ack);
	t[12] = (uint8_t)(thl / 4) << 4;
	t[13] = flags;
	put_be16(t + 14, win);
	if (opt_len)
		memcpy(t + TCP_HDR_LEN, opts, opt_len);
	if (len)
		memcpy(t + thl, data, len);
	put_be16(t + 16, tcp_checksum(PEER_IP, CLIENT_IP, t, thl + len));
	if (bad_csum)
		t[16] ^= 0x40;
	net_rx(&peer_nd, ETHERTYPE_IPV4, pkt, total);
}

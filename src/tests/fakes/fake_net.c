/* SPDX-License-Identifier: MIT */
/* The scripted software net_device of the UDP application tests (see fake_net.h). */
#include "fake_net.h"
#include "net_test_env.h"

#include <ibboot/dma.h>
#include <ibboot/string.h>
#include <ibboot/wire/bytes.h>

#define POOL 16
#define BUF_SIZE 4096
#define HEADROOM 4
#define QUEUE 64

struct net_device fake_nd;
fake_tick_fn fake_tick;
unsigned fake_tx_count, fake_tx_bad;
struct fake_log_entry fake_log[FAKE_LOG_MAX];
unsigned fake_log_count;

static struct net_buf pool[POOL];
static uint8_t pool_mem[POOL][BUF_SIZE];
static bool pool_busy[POOL];
static struct {
	uint8_t data[BUF_SIZE];
	size_t len;
	unsigned flags;
	uint32_t next_hop;
} queue[QUEUE];
static unsigned q_head, q_tail;
static fake_server_fn server;
static void *server_ctx;

static struct net_buf *fake_alloc_tx(struct net_device *nd)
{
	(void)nd;
	for (unsigned i = 0; i < POOL; i++) {
		if (!pool_busy[i]) {
			pool_busy[i] = true;
			pool[i].head = pool_mem[i];
			pool[i].data = pool_mem[i] + HEADROOM;
			pool[i].len = 0;
			pool[i].size = BUF_SIZE;
			pool[i].ll_priv = (void *)(uintptr_t)i;
			return &pool[i];
		}
	}
	return NULL;
}

static void fake_free_tx(struct net_device *nd, struct net_buf *nb)
{
	(void)nd;
	pool_busy[(uintptr_t)nb->ll_priv] = false;
}

static int fake_transmit(struct net_device *nd, struct net_buf *nb, uint16_t ethertype,
			 uint32_t next_hop, unsigned flags)
{
	if (ethertype != ETHERTYPE_IPV4 || q_tail - q_head == QUEUE) {
		fake_tx_bad++;
		fake_free_tx(nd, nb);
		return -1;
	}
	memcpy(queue[q_tail % QUEUE].data, nb->data, nb->len);
	queue[q_tail % QUEUE].len = nb->len;
	queue[q_tail % QUEUE].flags = flags;
	queue[q_tail % QUEUE].next_hop = next_hop;
	q_tail++;
	fake_tx_count++;
	fake_free_tx(nd, nb);
	return 0;
}

static void deliver(const uint8_t *ip_bytes, size_t len, unsigned flags, uint32_t next_hop)
{
	struct ipv4_packet ip;
	struct udp_datagram d;
	struct fake_pkt p;
	struct fake_log_entry *e;

	if (ipv4_parse(ip_bytes, len, &ip, NULL) < 0 || ip.proto != IP_PROTO_UDP ||
	    udp_parse(ip.payload, ip.payload_len, ip.src, ip.dst, &d, NULL) < 0 ||
	    !d.had_checksum) {
		fake_tx_bad++;   /* the stack must only send well-formed, checksummed UDP */
		return;
	}
	e = &fake_log[fake_log_count++ % FAKE_LOG_MAX];
	e->src = ip.src;
	e->dst = ip.dst;
	e->sport = d.sport;
	e->dport = d.dport;
	e->len = d.payload_len < sizeof(e->data) ? d.payload_len : sizeof(e->data);
	memcpy(e->data, d.payload, e->len);
	e->flags = flags;
	e->when_ms = test_now_ms;
	p = (struct fake_pkt){ ip.src, ip.dst, d.sport, d.dport, d.payload, d.payload_len,
			       flags, next_hop, ip_bytes, len };
	if (server)
		server(&p, server_ctx);
}

static void fake_poll(struct net_device *nd, uint64_t now)
{
	unsigned end = q_tail;
	static uint8_t copy[BUF_SIZE];

	(void)nd;
	(void)now;
	while (q_head != end) {
		size_t len = queue[q_head % QUEUE].len;
		unsigned flags = queue[q_head % QUEUE].flags;
		uint32_t hop = queue[q_head % QUEUE].next_hop;

		memcpy(copy, queue[q_head % QUEUE].data, len);
		q_head++;
		deliver(copy, len, flags, hop);
	}
	if (fake_tick)
		fake_tick(server_ctx);
}

static const struct net_device_ops fake_ops = {
	.alloc_tx = fake_alloc_tx,
	.free_tx = fake_free_tx,
	.transmit = fake_transmit,
	.poll = fake_poll,
};

void fake_net_setup(fake_server_fn fn, void *ctx)
{
	static const uint8_t ll[20] = { 0x00, 0x00, 0x00, 0x48, 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
					0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x10, 0x01 };

	netdev_unregister(&fake_nd);
	kfree(fake_nd.lease);   /* a DHCP test's lease */
	memset(&fake_nd, 0, sizeof(fake_nd));
	memcpy(fake_nd.name, "ib0", 4);
	fake_nd.ops = &fake_ops;
	fake_nd.mtu = 2044;
	memcpy(fake_nd.ll_addr, ll, sizeof(ll));
	fake_nd.ll_addr_len = 20;
	fake_nd.ll_type = 32;
	fake_nd.link_up = true;
	memset(pool_busy, 0, sizeof(pool_busy));
	q_head = q_tail = 0;
	fake_tx_count = fake_tx_bad = 0;
	fake_log_count = 0;
	server = fn;
	server_ctx = ctx;
	fake_tick = NULL;
	test_clock_autostep = 1;
	netdev_register(&fake_nd);
}

void fake_net_teardown(void)
{
	netdev_unregister(&fake_nd);
	server = NULL;
	fake_tick = NULL;
	test_clock_autostep = 0;
}

void fake_net_inject_ip(const uint8_t *ip, size_t len)
{
	net_rx(&fake_nd, ETHERTYPE_IPV4, ip, len);
}

void fake_net_inject_udp(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport,
			 const void *payload, size_t len, bool bad_csum)
{
	static uint8_t pkt[IPV4_HDR_LEN + UDP_HDR_LEN + 4096];
	size_t total;

	if (len > sizeof(pkt) - IPV4_HDR_LEN - UDP_HDR_LEN)
		return;
	total = test_udp_datagram(pkt, src, sport, dst, dport, payload, len);
	if (bad_csum)
		pkt[IPV4_HDR_LEN + 6] ^= 0x5a;
	fake_net_inject_ip(pkt, total);
}

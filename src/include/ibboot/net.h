/* SPDX-License-Identifier: MIT */
/*
 * Network devices and packet buffers. A net_device is what IPv4 sends through and receives from;
 * it knows its own link layer (neighbour resolution included - IPoIB ARP is not Ethernet ARP), so
 * IPv4 hands it a packet and a next-hop address and knows nothing of InfiniBand.
 *
 * Buffers are never allocated per packet: a device lends transmit buffers from a pool it allocated
 * when it opened (alloc_tx), with headroom for its link header; received packets are passed up as
 * (pointer, length) into the device's receive ring and are only valid during the call.
 */
#ifndef IBBOOT_NET_H
#define IBBOOT_NET_H

#include <ibboot/compiler.h>

#define NET_LL_ADDR_MAX    20
#define ETHERTYPE_IPV4     0x0800
#define ETHERTYPE_ARP      0x0806

struct net_buf {
	uint8_t *head;      /* start of the buffer */
	uint8_t *data;      /* start of the packet */
	size_t len;         /* bytes from data */
	size_t size;        /* bytes from head */
	void *ll_priv;      /* the link layer's handle for the buffer */
	struct net_buf *next;
};

static inline size_t nb_headroom(const struct net_buf *nb)
{
	return (size_t)(nb->data - nb->head);
}

static inline size_t nb_tailroom(const struct net_buf *nb)
{
	return nb->size - nb_headroom(nb) - nb->len;
}

/* Appends n bytes at the tail; NULL if they do not fit. */
static inline uint8_t *nb_put(struct net_buf *nb, size_t n)
{
	uint8_t *p = nb->data + nb->len;

	if (n > nb_tailroom(nb))
		return NULL;
	nb->len += n;
	return p;
}

/* Prepends n bytes (a header); NULL if the headroom is too small. */
static inline uint8_t *nb_push(struct net_buf *nb, size_t n)
{
	if (n > nb_headroom(nb))
		return NULL;
	nb->data -= n;
	nb->len += n;
	return nb->data;
}

/* Moves data forward by n bytes (reserve room for headers before filling a payload). */
static inline bool nb_reserve(struct net_buf *nb, size_t n)
{
	if (nb->len || n > nb_tailroom(nb))
		return false;
	nb->data += n;
	return true;
}

#define NET_TX_BROADCAST 0x1u

struct net_device;

struct net_device_ops {
	/* A transmit buffer with the link header's headroom reserved; NULL if all are in flight. */
	struct net_buf *(*alloc_tx)(struct net_device *nd);
	/* Returns a buffer that will not be transmitted. */
	void (*free_tx)(struct net_device *nd, struct net_buf *nb);
	/*
	 * Sends nb (the device owns it from now on, whatever the result) to next_hop (IPv4, host
	 * order) or to the link's broadcast address with NET_TX_BROADCAST. A packet to a neighbour
	 * being resolved is queued, not dropped. Returns 0 or a negative error.
	 */
	int (*transmit)(struct net_device *nd, struct net_buf *nb, uint16_t ethertype,
			uint32_t next_hop, unsigned flags);
	/* Timers (ARP retries, ...). */
	void (*poll)(struct net_device *nd, uint64_t now_ms);
};

struct net_stats {
	unsigned rx_packets, tx_packets, rx_dropped, tx_dropped, tx_errors;
};

/* What the protocols above the link count per interface (icmp.c, udp.c). */
struct icmp_stats {
	unsigned echo_requests_in, echo_replies_out, echo_replies_in, bad;
	uint32_t last_reply_from;
	uint16_t last_reply_id, last_reply_seq;
};

struct udp_stats {
	unsigned rx, rx_bad, rx_no_port, tx, tx_errors;
};

/* Called for every valid ICMP echo reply to the interface (ping). */
typedef void (*icmp_reply_fn)(void *ctx, uint32_t from, uint16_t id, uint16_t seq, size_t len);

#define NET_MAX_DNS 3

struct dhcp_lease;

/*
 * One network interface and everything the stack keeps for it: link (ops, MTU, link address),
 * IPv4 configuration, name servers and lease, counters. Nothing of this lives in a global, so
 * two interfaces (two IB ports, two HCAs) each have their own address, neighbours and lease.
 */
struct net_device {
	char name[8];
	const struct net_device_ops *ops;
	void *priv;
	unsigned mtu;                       /* largest network-layer packet */
	uint8_t ll_addr[NET_LL_ADDR_MAX];
	uint8_t ll_addr_len;
	uint16_t ll_type;                   /* ARP hardware type: 32 for IPoIB (RFC 4391) */
	bool link_up;
	const char *link_error;             /* why the link cannot come up (static text), or NULL */
	/* IPv4 configuration (host byte order; 0 = unset). */
	uint32_t ip_addr, netmask, gateway;
	uint16_t ip_id;                     /* Identification of the next datagram (RFC 791) */
	/* Name servers for names resolved through this interface (DHCP option 6). */
	uint32_t dns[NET_MAX_DNS];
	unsigned n_dns;
	struct dhcp_lease *lease;           /* the lease DHCP last got here (dhcp.c), or NULL */
	icmp_reply_fn icmp_reply;           /* set while a ping runs on this interface */
	void *icmp_reply_ctx;
	struct net_stats stats;
	struct icmp_stats icmp;
	struct udp_stats udp;
	struct net_device *next;
	bool registered;
};

/* Interfaces are listed in the order they were registered (ib0 before ib1). */
void netdev_register(struct net_device *nd);
void netdev_unregister(struct net_device *nd);
struct net_device *netdev_first(void);
struct net_device *netdev_find(const char *name);

/* A link layer hands a received network-layer packet up (valid only during the call). */
void net_rx(struct net_device *nd, uint16_t ethertype, const uint8_t *data, size_t len);
/* One pass of everything network: IB devices, then every net_device's timers. */
void net_poll(void);

#endif

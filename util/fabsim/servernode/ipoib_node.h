/* SPDX-License-Identifier: MIT */
/*
 * ipoib_node — one CA port that behaves as a Linux IPoIB host in UD mode (RFC 4391):
 *  - answers the SM's SMPs through the firmware SMA library (port state, LID, ClientReregister);
 *  - once ACTIVE, joins the IPv4 broadcast group through the SA (MCMemberRecord Set, full
 *    member) and takes Q_Key, MLID, SL and MTU from the reply; rejoins on ClientReregister or a
 *    new SM LID;
 *  - answers IPoIB ARP for its address, resolves neighbours by ARP and their GIDs to LIDs by SA
 *    PathRecord (cached), queues datagrams while that happens;
 *  - checks P_Key, Q_Key, MGID and both CRCs of everything it receives.
 * The embedding program moves packets (send callback, ipoib_node_packet_in) and IPv4 datagrams
 * (deliver callback, ipoib_node_send_ipv4) and calls ipoib_node_tick with a millisecond clock.
 * No threads, no global state, deterministic for a given input sequence and clock.
 */
#ifndef SERVERNODE_IPOIB_NODE_H
#define SERVERNODE_IPOIB_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipoib_wire.h"

/* The QPN this node's IPoIB UD QP uses. Any value >= 2 works; 0x48 is what a freshly started
 * Linux mlx4 host typically shows for ib0, which makes captures look familiar. */
#define IPOIB_NODE_DEFAULT_QPN 0x000048u

struct ipoib_node;

struct ipoib_node_cfg {
	uint64_t node_guid, port_guid;
	const char *node_desc;
	uint32_t qpn;                  /* 0 → IPOIB_NODE_DEFAULT_QPN */
	uint16_t pkey;                 /* IPoIB partition (RFC 4391 §4); 0 → P_Key table entry 0 */
	uint32_t ipv4;                 /* host byte order; 0 = none yet (a DHCP client) */
	unsigned prefix_len;           /* e.g. 24 */
	void *ctx;
	/* A whole IB packet to put on the wire. */
	void (*send_packet)(void *ctx, const uint8_t *pkt, size_t len);
	/* An IPv4 datagram received for this host (or broadcast/multicast). */
	void (*deliver_ipv4)(void *ctx, const uint8_t *dgram, size_t len);
	/* One line of log; NULL = quiet. */
	void (*log)(void *ctx, const char *line);
};

struct ipoib_node_stats {
	uint64_t rx_packets, rx_bad_packet, rx_bad_pkey, rx_bad_qkey, rx_wrong_group,
		rx_unknown_qp, rx_ipv4, rx_arp, rx_bad_ipoib, rx_smp, rx_gsi;
	uint64_t tx_packets, tx_ipv4, tx_arp, tx_dropped_not_joined, tx_dropped_unresolved,
		tx_dropped_bad;
	uint64_t joins, path_queries, arp_requests;
};

struct ipoib_node *ipoib_node_create(const struct ipoib_node_cfg *cfg, char *err, size_t errlen);
void ipoib_node_destroy(struct ipoib_node *n);

/* The physical link came up (the port trains to INIT) or went down. */
void ipoib_node_link(struct ipoib_node *n, bool up, uint64_t now_ms);
/* One whole IB packet arrived at the port. Malformed input is counted, logged and dropped. */
void ipoib_node_packet_in(struct ipoib_node *n, const uint8_t *pkt, size_t len, uint64_t now_ms);
/* Send one IPv4 datagram: broadcast/multicast → the broadcast group; unicast → ARP + path. */
void ipoib_node_send_ipv4(struct ipoib_node *n, const uint8_t *dgram, size_t len, uint64_t now_ms);
/* Retransmissions and timeouts. Returns ms until it wants to be called again (-1 = idle). */
int ipoib_node_tick(struct ipoib_node *n, uint64_t now_ms);

void ipoib_node_set_ipv4(struct ipoib_node *n, uint32_t addr, unsigned prefix_len);
bool ipoib_node_joined(const struct ipoib_node *n);
bool ipoib_node_active(const struct ipoib_node *n);
uint16_t ipoib_node_lid(const struct ipoib_node *n);
void ipoib_node_hwaddr(const struct ipoib_node *n, struct ipoib_hwaddr *out);
const struct ipoib_node_stats *ipoib_node_stats(const struct ipoib_node *n);

#endif

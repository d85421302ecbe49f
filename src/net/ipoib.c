/* SPDX-License-Identifier: MIT */
/*
 * IPoIB over UD (RFC 4391) as net_devices on IB ports: per interface one UD QP, the IPv4
 * broadcast group joined through the SA client (Q_Key, MLID, MTU taken from the join reply), ARP
 * with 20-byte addresses, and a neighbour cache that resolves IPv4 -> link address (ARP) -> path
 * (PathRecord) while holding the packets that wait for it. "ib0" follows the port the policy
 * chooses (ULP events); an interface pinned to a port follows that port's state from its poll.
 */
#include <ibboot/ipoib.h>
#include <ibboot/ib_sa.h>
#include <ibboot/ib_mad.h>
#include <ibboot/dhcp.h>
#include <ibboot/ib_ulp.h>
#include <ibboot/ipv4.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/shell.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>
#include <ibboot/byteorder.h>

/* Every IPoIB interface, in creation order. */
static struct ipoib *ipoib_list;
static bool ulp_registered;

struct ipoib *ipoib_instance(void)
{
	return ipoib_list;
}

/* ---- transmit buffers (the UD QP's send pool) ---- */

static struct net_buf *ipoib_alloc_tx(struct net_device *nd)
{
	struct ipoib *ip = nd->priv;
	struct ib_buf *b;
	struct net_buf *nb;

	if (!ip->qp || !(b = ib_send_buf_get(ip->qp)))
		return NULL;
	nb = &ip->tx[b - ip->qp->send_bufs];
	nb->head = b->va;
	nb->size = b->len;
	nb->data = nb->head + IPOIB_HDR_LEN;
	nb->len = 0;
	nb->ll_priv = b;
	nb->next = NULL;
	return nb;
}

static void ipoib_free_tx(struct net_device *nd, struct net_buf *nb)
{
	struct ipoib *ip = nd->priv;

	if (ip->qp)
		ib_send_buf_put(ip->qp, nb->ll_priv);
}

static int ipoib_post(struct ipoib *ip, struct net_buf *nb, const struct ib_address_vector *path,
		      uint32_t qpn)
{
	struct ib_address_vector av = *path;
	int rc;

	if (nb->data != nb->head) {   /* the send WQE gathers from the buffer's start */
		memmove(nb->head, nb->data, nb->len);
		nb->data = nb->head;
	}
	av.qpn = qpn;
	av.qkey = ip->bcast_av.qkey;   /* RFC 4391 §5: every member uses the group's Q_Key */
	rc = ib_post_send(ip->qp, &av, nb->ll_priv, nb->len, nb);
	if (rc < 0)
		ip->nd.stats.tx_errors++;
	else
		ip->nd.stats.tx_packets++;
	return rc;
}

static uint8_t *ipoib_push_header(struct net_buf *nb, uint16_t ethertype)
{
	uint8_t *h = nb_push(nb, IPOIB_HDR_LEN);

	if (h) {
		put_be16(h, ethertype);
		put_be16(h + 2, 0);
	}
	return h;
}

/* ---- neighbours ---- */

static struct ipoib_neigh *neigh_find(struct ipoib *ip, uint32_t addr)
{
	for (unsigned i = 0; i < IPOIB_NEIGHBOURS; i++)
		if (ip->neigh[i].state != NEIGH_FREE && ip->neigh[i].ip == addr)
			return &ip->neigh[i];
	return NULL;
}

static struct ipoib_neigh *neigh_alloc(struct ipoib *ip, uint32_t addr)
{
	struct ipoib_neigh *victim = NULL;

	for (unsigned i = 0; i < IPOIB_NEIGHBOURS; i++) {
		struct ipoib_neigh *n = &ip->neigh[i];

		if (n->state == NEIGH_FREE) {
			victim = n;
			break;
		}
		if (n->state == NEIGH_VALID && !n->qlen && (!victim || n->used_ms < victim->used_ms))
			victim = n;
	}
	if (!victim)
		return NULL;
	memset(victim, 0, sizeof(*victim));
	victim->owner = ip;
	victim->ip = addr;
	victim->used_ms = clock_ms();
	return victim;
}

static void neigh_drop_queue(struct ipoib *ip, struct ipoib_neigh *n)
{
	while (n->queue) {
		struct net_buf *nb = n->queue;

		n->queue = nb->next;
		ipoib_free_tx(&ip->nd, nb);
		ip->nd.stats.tx_dropped++;
	}
	n->qlen = 0;
}

static void neigh_free(struct ipoib *ip, struct ipoib_neigh *n)
{
	neigh_drop_queue(ip, n);
	if (ip->port)
		ib_sa_path_cancel_waiter(ip->port, n);
	n->state = NEIGH_FREE;
}

static void neigh_fail(struct ipoib *ip, struct ipoib_neigh *n, const char *why)
{
	kprintf("%s: cannot reach %'u: %s\n", ip->nd.name, n->ip, why);
	neigh_free(ip, n);
}

static void neigh_flush_queue(struct ipoib *ip, struct ipoib_neigh *n)
{
	uint32_t qpn = ipoib_addr_qpn(n->hwaddr);

	while (n->queue) {
		struct net_buf *nb = n->queue;

		n->queue = nb->next;
		n->qlen--;
		(void)ipoib_post(ip, nb, &n->av, qpn);
	}
}

static void neigh_enqueue(struct ipoib *ip, struct ipoib_neigh *n, struct net_buf *nb)
{
	struct net_buf **pp = &n->queue;

	if (n->qlen >= IPOIB_NEIGH_QUEUE) {   /* keep the newest: drop the oldest */
		struct net_buf *old = n->queue;

		n->queue = old->next;
		n->qlen--;
		ipoib_free_tx(&ip->nd, old);
		ip->nd.stats.tx_dropped++;
		ip->stats.queue_drops++;
	}
	while (*pp)
		pp = &(*pp)->next;
	nb->next = NULL;
	*pp = nb;
	n->qlen++;
	ip->stats.queued++;
}

static void neigh_resolve_path(struct ipoib *ip, struct ipoib_neigh *n);

static void neigh_path_done(void *ctx, const union ib_gid *dgid, int status)
{
	struct ipoib_neigh *n = ctx;
	struct ipoib *ip = n->owner;

	if (n->state != NEIGH_PATH || memcmp(dgid->raw, n->hwaddr + 4, IB_GID_LEN))
		return;
	if (status < 0) {
		neigh_fail(ip, n, status == -ETIMEDOUT ? "the SA did not answer"
						       : "no path record");
		return;
	}
	neigh_resolve_path(ip, n);
}

static void neigh_resolve_path(struct ipoib *ip, struct ipoib_neigh *n)
{
	union ib_gid dgid;
	int rc;

	memcpy(dgid.raw, n->hwaddr + 4, IB_GID_LEN);
	n->state = NEIGH_PATH;
	rc = ib_sa_path_lookup(ip->port, &dgid, &n->av, neigh_path_done, n);
	if (rc == 0) {
		n->state = NEIGH_VALID;
		neigh_flush_queue(ip, n);
	} else if (rc < 0) {
		neigh_fail(ip, n, "path lookup failed");
	}
}

/* RFC 826 "merge": a sender's address is learnt, replacing an older one. */
static void neigh_learn(struct ipoib *ip, struct ipoib_neigh *n, const uint8_t *hw)
{
	n->confirmed_ms = clock_ms();
	if (n->state == NEIGH_VALID && !memcmp(n->hwaddr, hw, IPOIB_ALEN))
		return;
	if (n->state == NEIGH_PATH && !memcmp(n->hwaddr, hw, IPOIB_ALEN))
		return;   /* already resolving this very address */
	memcpy(n->hwaddr, hw, IPOIB_ALEN);
	neigh_resolve_path(ip, n);
}

static void neigh_output(struct ipoib *ip, struct ipoib_neigh *n, struct net_buf *nb)
{
	n->used_ms = clock_ms();
	if (n->state == NEIGH_VALID)
		(void)ipoib_post(ip, nb, &n->av, ipoib_addr_qpn(n->hwaddr));
	else
		neigh_enqueue(ip, n, nb);
}

static void neigh_flush_all(struct ipoib *ip)
{
	for (unsigned i = 0; i < IPOIB_NEIGHBOURS; i++)
		if (ip->neigh[i].state != NEIGH_FREE)
			neigh_free(ip, &ip->neigh[i]);
}

/* ---- ARP ---- */

static int arp_send(struct ipoib *ip, uint16_t op, uint32_t tpa, const uint8_t *tha,
		    struct ipoib_neigh *to)
{
	struct ipoib_arp arp;
	struct net_buf *nb = ipoib_alloc_tx(&ip->nd);
	uint8_t *p;

	if (!nb)
		return -ENOSPC;
	memset(&arp, 0, sizeof(arp));
	arp.op = op;
	memcpy(arp.sha, ip->nd.ll_addr, IPOIB_ALEN);
	arp.spa = ip->nd.ip_addr;
	if (tha)
		memcpy(arp.tha, tha, IPOIB_ALEN);
	arp.tpa = tpa;
	p = nb_put(nb, IPOIB_ARP_LEN);
	ipoib_arp_build(p, IPOIB_ARP_LEN, &arp);
	ipoib_push_header(nb, ETHERTYPE_ARP);
	if (to) {
		ip->stats.arp_replies_out++;
		neigh_output(ip, to, nb);
		return 0;
	}
	ip->stats.arp_requests_out++;
	return ipoib_post(ip, nb, &ip->bcast_av, IB_MCAST_QPN);
}

static void arp_rx(struct ipoib *ip, const uint8_t *data, size_t len)
{
	struct ipoib_arp arp;
	struct ipoib_neigh *n;
	const char *why;
	bool for_us;

	if (ipoib_arp_parse(data, len, &arp, &why) < 0) {
		ip->stats.arp_bad++;
		return;
	}
	ip->stats.arp_in++;
	if (!ip->nd.ip_addr || arp.spa == 0 || arp.spa == IPV4_BROADCAST)
		return;
	for_us = arp.tpa == ip->nd.ip_addr;
	n = neigh_find(ip, arp.spa);
	if (!n && for_us)
		n = neigh_alloc(ip, arp.spa);
	if (n)
		neigh_learn(ip, n, arp.sha);
	if (for_us && arp.op == ARP_OP_REQUEST && n)
		(void)arp_send(ip, ARP_OP_REPLY, arp.spa, arp.sha, n);
}

/* ---- the net_device ---- */

static int ipoib_transmit(struct net_device *nd, struct net_buf *nb, uint16_t ethertype,
			  uint32_t next_hop, unsigned flags)
{
	struct ipoib *ip = nd->priv;
	struct ipoib_neigh *n;

	if (!nd->link_up || !ip->qp) {
		ipoib_free_tx(nd, nb);
		nd->stats.tx_dropped++;
		return -ENODEV;
	}
	if (!ipoib_push_header(nb, ethertype)) {
		ipoib_free_tx(nd, nb);
		return -ERANGE;
	}
	if (flags & NET_TX_BROADCAST)
		return ipoib_post(ip, nb, &ip->bcast_av, IB_MCAST_QPN);
	n = neigh_find(ip, next_hop);
	if (!n) {
		n = neigh_alloc(ip, next_hop);
		if (!n) {
			ipoib_free_tx(nd, nb);
			nd->stats.tx_dropped++;
			return -ENOSPC;
		}
	}
	if (n->state == NEIGH_FREE) {
		n->state = NEIGH_ARP;
		n->arp_tries = 1;
		n->arp_sent_ms = clock_ms();
		neigh_enqueue(ip, n, nb);
		(void)arp_send(ip, ARP_OP_REQUEST, next_hop, NULL, NULL);
		return 0;
	}
	neigh_output(ip, n, nb);
	return 0;
}

static void ipoib_detach(struct ipoib *ip);
static int ipoib_attach(struct ipoib *ip, struct ib_port *port);

/* A pinned interface is up exactly while its port is ACTIVE (the ULP events only concern the
 * chosen port; a dead device's ports are set DOWN by the policy). */
static void ipoib_follow_pin(struct ipoib *ip)
{
	bool active = ip->pin->attr.state == IB_PORT_ACTIVE;

	if (active && !ip->port) {
		(void)ipoib_attach(ip, ip->pin);
	} else if (!active && ip->port) {
		if (ip->nd.link_up)
			kprintf("%s: link down\n", ip->nd.name);
		ipoib_detach(ip);
	}
}

static void ipoib_restart(struct ipoib *ip, struct ib_port *port, const char *why)
{
	kprintf("%s: %s; restarting on %s port %u\n", ip->nd.name, why, port->dev->name,
		port->num);
	ipoib_detach(ip);
	(void)ipoib_attach(ip, port);
}

/* A new ib-pkey takes effect at once: the interface restarts on its port. The name is looked up
 * only after some setting changed (this runs on every poll). */
static void ipoib_pkey_setting_poll(struct ipoib *ip)
{
	char v[SETTING_VALUE_MAX];
	struct ib_port *port = ip->port;
	uint32_t gen = setting_generation();

	if (!port || gen == ip->pkey_setting_gen)
		return;
	ip->pkey_setting_gen = gen;
	if (setting_get("ib-pkey", v, sizeof(v)) < 0)
		v[0] = 0;
	v[sizeof(ip->pkey_setting) - 1] = 0;
	if (!strcmp(v, ip->pkey_setting))
		return;
	ipoib_restart(ip, port, "ib-pkey changed");
}

static void ipoib_poll(struct net_device *nd, uint64_t now)
{
	struct ipoib *ip = nd->priv;

	if (ip->pin)
		ipoib_follow_pin(ip);
	if (ip->restart && ip->port) {
		ip->stats.restarts++;
		ipoib_restart(ip, ip->port, "a send failed");
	}
	ip->restart = false;
	ipoib_pkey_setting_poll(ip);

	/* The neighbour timers count milliseconds: once per millisecond is enough (this runs on
	 * every poll). */
	if (now == ip->neigh_scan_ms)
		return;
	ip->neigh_scan_ms = now;
	for (unsigned i = 0; i < IPOIB_NEIGHBOURS; i++) {
		struct ipoib_neigh *n = &ip->neigh[i];

		/* A known neighbour is asked again now and then: a rebooted peer has a new QPN,
		 * and its answer (or any ARP from it) replaces the old address (RFC 826 merge). */
		if (n->state == NEIGH_VALID && now - n->confirmed_ms >= IPOIB_NEIGH_PROBE_MS &&
		    ip->nd.link_up) {
			n->confirmed_ms = now;
			(void)arp_send(ip, ARP_OP_REQUEST, n->ip, NULL, NULL);
			continue;
		}
		if (n->state != NEIGH_ARP || now - n->arp_sent_ms < IPOIB_ARP_RETRY_MS)
			continue;
		if (n->arp_tries >= IPOIB_ARP_TRIES) {
			char why[48];

			ip->stats.arp_failed++;
			ksnprintf(why, sizeof(why), "no ARP reply (%u requests, %u s)",
				  IPOIB_ARP_TRIES, IPOIB_ARP_TRIES * IPOIB_ARP_RETRY_MS / 1000);
			neigh_fail(ip, n, why);
			continue;
		}
		n->arp_tries++;
		n->arp_sent_ms = now;
		(void)arp_send(ip, ARP_OP_REQUEST, n->ip, NULL, NULL);
	}
}

static const struct net_device_ops ipoib_netdev_ops = {
	.alloc_tx = ipoib_alloc_tx,
	.free_tx = ipoib_free_tx,
	.transmit = ipoib_transmit,
	.poll = ipoib_poll,
};

/* ---- receive ---- */

static void ipoib_recv(struct ib_qp *qp, const struct ib_wc *wc, const uint8_t *grh,
		       uint8_t *data, size_t len)
{
	struct ipoib *ip = qp->owner_priv;
	uint16_t type;

	(void)grh;
	if (wc->src_qpn == qp->qpn && wc->slid == qp->port->attr.lid) {
		ip->stats.rx_own++;   /* our own broadcast, looped back by the fabric */
		return;
	}
	if (ipoib_parse_header(data, len, &type, NULL) < 0) {
		ip->stats.rx_bad++;
		return;
	}
	data += IPOIB_HDR_LEN;
	len -= IPOIB_HDR_LEN;
	if (type == ETHERTYPE_ARP)
		arp_rx(ip, data, len);
	else if (ip->nd.link_up)
		net_rx(&ip->nd, type, data, len);
}

/* A failed send leaves the UD QP in the error state (IBA 10.3.1): every later WQE would be
 * flushed. Rebuild it from the poll loop, not from inside the CQ walk. */
static void ipoib_sent(struct ib_qp *qp, void *cookie, int status)
{
	struct ipoib *ip = qp->owner_priv;

	(void)cookie;
	if (status < 0 && !ip->restart) {
		ip->restart = true;
		ip->nd.stats.tx_errors++;
	}
}

static const struct ib_qp_owner_ops ipoib_qp_owner = {
	.recv = ipoib_recv,
	.sent = ipoib_sent,
};

/* ---- the broadcast group and the port ---- */

static void ipoib_bcast_joined(void *ctx, struct ib_mcast_group *g, int status)
{
	struct ipoib *ip = ctx;
	const struct ib_mcast_info *info = &g->info;
	unsigned group_mtu, port_mtu;
	char rate[32];

	/* Joined again while joined: the SA client rejoined after a re-registration. Paths may
	 * have changed with the SM; the chosen port's ULP event flushed the neighbours already. */
	if (status == 0 && ip->joined && ip->pin && ip->pin != ib_active_port())
		neigh_flush_all(ip);
	if (status < 0) {
		if (ip->nd.link_up)
			kprintf("%s: link down\n", ip->nd.name);
		ip->nd.link_up = false;
		ip->joined = false;
		return;
	}
	if (ib_modify_qkey(ip->qp, info->qkey) < 0)
		return;
	memset(&ip->bcast_av, 0, sizeof(ip->bcast_av));
	ip->bcast_av.qpn = IB_MCAST_QPN;
	ip->bcast_av.qkey = info->qkey;
	ip->bcast_av.lid = info->mlid;
	ip->bcast_av.sl = info->sl;
	ip->bcast_av.rate = info->rate;
	ip->bcast_av.gid_present = true;   /* multicast carries the MGID in a GRH (IBA 8.3) */
	ip->bcast_av.gid = info->mgid;
	ip->bcast_av.hop_limit = info->hop_limit;
	ip->bcast_av.tclass = info->tclass;
	ip->bcast_av.flow_label = info->flow_label;
	/* RFC 4391 §5: the group's MTU, less the 4-byte header, is the link MTU. */
	group_mtu = ib_mtu_bytes(info->mtu);
	port_mtu = ib_mtu_bytes(ip->port->attr.mtu_cap);
	ip->nd.mtu = (port_mtu && port_mtu < group_mtu ? port_mtu : group_mtu) - IPOIB_HDR_LEN;
	ip->joined = true;
	ip->nd.link_up = true;
	kprintf("%s: link up on %s port %u, %s: MTU %u, broadcast MLID 0x%04x, Q_Key 0x%08x "
		"(%u ms after start)\n", ip->nd.name, ip->port->dev->name, ip->port->num,
		ib_port_rate_string(&ip->port->attr, rate, sizeof(rate)), ip->nd.mtu, info->mlid,
		info->qkey, (unsigned)clock_ms());
}

static void ipoib_detach(struct ipoib *ip)
{
	if (!ip->port)
		return;
	if (ip->pkey_txn >= 0)
		ib_mad_cancel(ip->port, ip->pkey_txn);
	ip->pkey_txn = -1;
	ip->nd.link_error = NULL;
	ip->nd.link_up = false;
	ip->joined = false;
	neigh_flush_all(ip);
	ib_sa_leave(ip->bcast);
	ip->bcast = NULL;
	ib_destroy_qp(ip->qp);
	ib_destroy_cq(ip->cq);
	ip->qp = NULL;
	ip->cq = NULL;
	ip->port = NULL;
}

/* The UD QP on P_Key table entry `index` and the join of that partition's broadcast group. */
static int ipoib_start(struct ipoib *ip, unsigned index)
{
	struct ib_port *port = ip->port;
	struct ib_qp_config cfg = {
		.type = IB_QPT_UD,
		.qkey = 0,                /* set from the join reply */
		.pkey_index = (uint16_t)index,
		.send_wqes = IPOIB_TX_BUFS,
		.recv_wqes = IPOIB_RX_BUFS,
		.recv_payload = IPOIB_BUF_PAYLOAD,
		.send_bufs = IPOIB_TX_BUFS,
		.send_buf_size = IPOIB_BUF_PAYLOAD,
		.owner = &ipoib_qp_owner,
		.owner_priv = ip,
	};

	ip->cq = ib_create_cq(port->dev, IPOIB_TX_BUFS + IPOIB_RX_BUFS);
	if (!ip->cq)
		goto err;
	cfg.send_cq = cfg.recv_cq = ip->cq;
	ip->qp = ib_create_qp(port, &cfg);
	if (!ip->qp)
		goto err;
	ipoib_addr_make(ip->nd.ll_addr, ip->qp->qpn, &port->gid);
	/* RFC 4391 §4: the MGID carries the P_Key with the full-member bit set. */
	ib_ipv4_broadcast_mgid(&ip->bcast_mgid, ib_port_pkey(port));
	ip->bcast = ib_sa_join(port, &ip->bcast_mgid, ip->qp, ipoib_bcast_joined, ip);
	if (!ip->bcast)
		goto err;
	return 0;
err:
	kprintf("%s: cannot start IPoIB on %s port %u\n", ip->nd.name, port->dev->name, port->num);
	ipoib_detach(ip);
	return -ENOMEM;
}

/* "0x8001", "32769" -> 0x8001; -EINVAL for anything else or a value outside 1..0xffff. */
static int ipoib_parse_pkey(const char *s)
{
	uint64_t v;

	return shell_parse_num(s, 0xffff, &v) && (v & 0x7fff) ? (int)v : -EINVAL;
}

/* The valid entries of the port's table, "0x7fff@0 0x8001@1", for messages. */
static void ipoib_format_table(const struct ib_port *port, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < port->attr.pkey_table_len && len + 16 < size; i++) {
		uint16_t k = port->attr.pkey_table[i];

		if (k & 0x7fff)
			len += (size_t)ksnprintf(buf + len, size - len, "%s0x%04x@%u", len ? " " : "",
						 k, i);
	}
	if (!len)
		ksnprintf(buf, size, "empty");
}

static void ipoib_pkey_chosen(struct ipoib *ip, unsigned index, const char *why)
{
	struct ib_port *port = ip->port;

	/* An invalid entry (an empty table): ib_port_pkey() falls back to entry 0 or 0xffff. */
	port->ulp_pkey = index < IB_PKEY_TABLE_MAX ? port->attr.pkey_table[index] : 0;
	port->ulp_pkey_index = (uint16_t)index;
	kprintf("%s: P_Key 0x%04x (index %u): %s%s%s\n", ip->nd.name, ib_port_pkey(port), index,
		why, ip->pkey_none[0] ? "; " : "", ip->pkey_none);
	(void)ipoib_start(ip, index);
}

/* The next entry to ask about at or after `from`: a valid P_Key whose partition (low 15 bits)
 * no earlier entry had. -1 when there is none left. */
static int ipoib_next_candidate(const struct ib_port *port, unsigned from)
{
	for (unsigned i = from; i < port->attr.pkey_table_len; i++) {
		uint16_t k = port->attr.pkey_table[i];
		bool seen = false;

		if (!(k & 0x7fff))
			continue;
		for (unsigned j = 0; j < i && !seen; j++)
			seen = (port->attr.pkey_table[j] & 0x7fff) == (k & 0x7fff);
		if (!seen)
			return (int)i;
	}
	return -1;
}

static void ipoib_probe(struct ipoib *ip, int index);

static void ipoib_probe_done(void *ctx, int status, const uint8_t *resp)
{
	struct ipoib *ip = ctx;
	struct ib_port *port = ip->port;
	struct ib_mcast_info info;
	union ib_gid mgid;
	const char *why = "the SA did not answer";
	uint16_t k;
	size_t len;
	int rc = status;

	ip->pkey_txn = -1;
	if (!port || status == -ECANCELED)
		return;
	k = port->attr.pkey_table[ip->pkey_probe];
	ib_ipv4_broadcast_mgid(&mgid, k);
	if (status == 0)
		rc = ib_sa_parse_mcmember_response(resp, IB_MAD_SIZE, &mgid, &info, &why);
	if (rc == 0) {
		ipoib_pkey_chosen(ip, ip->pkey_probe, "IPoIB broadcast group found");
		return;
	}
	len = strnlen(ip->pkey_none, sizeof(ip->pkey_none));
	if (len + 24 < sizeof(ip->pkey_none))
		ksnprintf(ip->pkey_none + len, sizeof(ip->pkey_none) - len, "%s0x%04x has none",
			  len ? ", " : "", k | IB_PKEY_FULL_MEMBER);   /* as the MGID names it */
	if (status != 0 || rc != -ENOENT)
		kprintf("%s: P_Key 0x%04x: group not confirmed: %s\n", ip->nd.name,
			k, why);
	ipoib_probe(ip, ipoib_next_candidate(port, ip->pkey_probe + 1));
}

/* Asks the SA about the broadcast group of entry `index`; with none left (or after
 * IPOIB_PKEY_PROBES Gets) the first valid entry is used and its group joined as before. */
static void ipoib_probe(struct ipoib *ip, int index)
{
	struct ib_port *port = ip->port;
	union ib_gid mgid;
	int first = ipoib_next_candidate(port, 0), rc;

	if (index >= 0 && ip->pkey_probes < IPOIB_PKEY_PROBES) {
		uint16_t k = port->attr.pkey_table[index];

		ib_ipv4_broadcast_mgid(&mgid, k);
		ip->pkey_probe = (unsigned)index;
		ip->pkey_probes++;
		rc = ib_sa_group_get(port, &mgid, k, ipoib_probe_done, ip);
		if (rc >= 0) {
			ip->pkey_txn = rc;
			return;
		}
		kprintf("%s: P_Key 0x%04x: SA query error %d\n", ip->nd.name, k, rc);
	}
	ipoib_pkey_chosen(ip, first < 0 ? 0 : (unsigned)first,
			  "no IPoIB group; joining this one");
}

static int ipoib_attach(struct ipoib *ip, struct ib_port *port)
{
	char v[SETTING_VALUE_MAX], table[160];
	int pkey, index, first, second;

	ip->port = port;
	ip->pkey_txn = -1;
	ip->pkey_probes = 0;
	ip->pkey_none[0] = 0;
	ip->nd.link_error = NULL;
	/* The setting (embedded script, console or ibboot.cmd= `set ib-pkey ...`; not DHCP). */
	ip->pkey_setting_gen = setting_generation();
	if (setting_get("ib-pkey", v, sizeof(v)) < 0)
		v[0] = 0;
	memcpy(ip->pkey_setting, v, sizeof(ip->pkey_setting));
	ip->pkey_setting[sizeof(ip->pkey_setting) - 1] = 0;
	if (v[0]) {
		/* IBA 10.9.1.2: the full member of that partition, else a limited entry. */
		pkey = ipoib_parse_pkey(v);
		index = pkey < 0 ? -ENOENT : ib_port_pkey_index(port, (uint16_t)(pkey | 0x8000));
		if (pkey < 0 || index < 0) {
			ipoib_format_table(port, table, sizeof(table));
			if (pkey < 0)
				kprintf("%s: ib-pkey '%s' is not a P_Key (0x0001..0xffff)\n",
					ip->nd.name, v);
			else
				kprintf("%s: P_Key 0x%04x (setting ib-pkey) is not in %s port %u's "
					"P_Key table (%s)\n", ip->nd.name,
					pkey | 0x8000, port->dev->name, port->num, table);
			ip->nd.link_error = "ib-pkey not in P_Key table";
			return -ENOENT;   /* ip->port stays: no retry until the port changes */
		}
		ipoib_pkey_chosen(ip, (unsigned)index, "setting ib-pkey");
		return ip->qp ? 0 : -ENOMEM;
	}
	first = ipoib_next_candidate(port, 0);
	second = first < 0 ? -1 : ipoib_next_candidate(port, (unsigned)first + 1);
	if (first < 0 || second < 0) {
		/* One partition (or an empty table: entry 0 as it is): nothing to choose from. */
		ipoib_pkey_chosen(ip, first < 0 ? 0 : (unsigned)first,
				  "the only P_Key");
		return ip->qp ? 0 : -ENOMEM;
	}
	ipoib_probe(ip, first);
	return 0;
}

static void ipoib_port_up(struct ib_port *port)
{
	for (struct ipoib *ip = ipoib_list; ip; ip = ip->next) {
		if (ip->pin)
			continue;
		if (ip->port && ip->port != port)
			ipoib_detach(ip);
		if (!ip->port)
			(void)ipoib_attach(ip, port);
	}
}

static void ipoib_port_down(struct ib_port *port)
{
	for (struct ipoib *ip = ipoib_list; ip; ip = ip->next) {
		if (ip->pin || ip->port != port)
			continue;
		if (ip->nd.link_up)
			kprintf("%s: link down\n", ip->nd.name);
		ipoib_detach(ip);
	}
}

static void ipoib_reregister(struct ib_port *port)
{
	/* Paths may have changed with the SM: resolve every neighbour again on demand. */
	for (struct ipoib *ip = ipoib_list; ip; ip = ip->next)
		if (ip->port == port)
			neigh_flush_all(ip);
}

static struct ib_ulp ipoib_ulp = {
	.name = "ipoib",
	.port_up = ipoib_port_up,
	.port_down = ipoib_port_down,
	.reregister = ipoib_reregister,
};

struct ipoib *ipoib_from_netdev(struct net_device *nd)
{
	return nd && nd->ops == &ipoib_netdev_ops ? nd->priv : NULL;
}

struct ipoib *ipoib_create(const char *name, struct ib_port *port)
{
	struct ipoib *ip = kzalloc(sizeof(*ip));
	struct ipoib **pp = &ipoib_list;
	size_t n = strnlen(name, sizeof(ip->nd.name) - 1);

	if (!ip) {
		kprintf("ipoib: out of memory\n");
		return NULL;
	}
	memcpy(ip->nd.name, name, n);
	ip->nd.ops = &ipoib_netdev_ops;
	ip->nd.priv = ip;
	ip->nd.ll_addr_len = IPOIB_ALEN;
	ip->nd.ll_type = IPOIB_ARPHRD;
	ip->nd.mtu = 2048 - IPOIB_HDR_LEN;
	ip->pin = port;
	while (*pp)
		pp = &(*pp)->next;
	*pp = ip;
	netdev_register(&ip->nd);
	if (port) {
		ipoib_follow_pin(ip);
	} else if (ulp_registered) {
		if (ib_active_port())
			(void)ipoib_attach(ip, ib_active_port());
	}
	/* The ULP hears about the chosen port (and reports one that is chosen already). */
	if (!ulp_registered) {
		ulp_registered = true;
		ib_ulp_register(&ipoib_ulp);
	}
	return ip;
}

void ipoib_destroy(struct ipoib *ip)
{
	if (!ip)
		return;
	for (struct ipoib **pp = &ipoib_list; *pp; pp = &(*pp)->next) {
		if (*pp == ip) {
			*pp = ip->next;
			break;
		}
	}
	if (!ipoib_list && ulp_registered) {
		ib_ulp_unregister(&ipoib_ulp);
		ulp_registered = false;
	}
	ipoib_detach(ip);
	netdev_unregister(&ip->nd);
	kfree(ip->nd.lease);
	kfree(ip);
}

void ipoib_init(void)
{
	for (struct ipoib *ip = ipoib_list; ip; ip = ip->next)
		if (!ip->pin)
			return;
	(void)ipoib_create("ib0", NULL);
}

void ipoib_exit(void)
{
	while (ipoib_list)
		ipoib_destroy(ipoib_list);
}

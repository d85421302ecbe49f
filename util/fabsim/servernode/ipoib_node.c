/* SPDX-License-Identifier: MIT */
/* An IPoIB host on one CA port (RFC 4391, UD mode). See ipoib_node.h. */
#include "ipoib_node.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibboot/wire/bytes.h>
#include <ibboot/wire/mad.h>

#include "sa_msg.h"
#include "sn_sma.h"
#include "ud_pkt.h"

#define NEIGH_MAX 64
#define PATH_MAX_ENTRIES 64
#define PENDING_MAX 32
#define IPOIB_MAX_FRAME 4096u      /* 4-byte header + up to a 4092-byte datagram (4K IB MTU) */
#define RETRY_MS 1000u
#define ARP_TRIES 3u
#define PATH_TRIES 5u
#define PENDING_LIFETIME_MS 5000u
#define DATA_VL 0u                 /* CA SL2VL is identity for SL 0; data rides VL0 */

struct neigh {
	bool used, resolved;
	uint32_t ip;
	struct ipoib_hwaddr hw;
	uint64_t next_ms;
	unsigned tries;
};

struct path {
	bool used, resolved, failed;
	uint8_t gid[16];
	uint16_t dlid;
	uint8_t sl;
	uint64_t tid, next_ms;
	unsigned tries;
};

/* A frame waiting for ARP (have_hw false: waits for `ip`) or for a path (waits for hw.gid). */
struct pending {
	bool used, have_hw;
	uint32_t ip;
	struct ipoib_hwaddr hw;
	uint16_t ethertype;
	uint64_t expires_ms;
	size_t len;
	uint8_t data[IPOIB_MAX_FRAME];
};

struct bcast_group {
	bool joined, pending;
	uint8_t mgid[16];
	uint32_t qkey;
	uint16_t mlid, pkey;
	uint8_t sl, mtu, rate, tclass, hop_limit;
	uint32_t flow_label;
	uint64_t tid, next_ms;
	unsigned tries;
	uint16_t joined_sm_lid;
};

struct ipoib_node {
	struct ipoib_node_cfg cfg;
	struct sn_sma *sma;
	struct sn_port_state port;
	uint16_t ipoib_pkey;           /* the table's entry for cfg.pkey (or entry 0); 0 = not there */
	bool pkey_missing_logged;
	bool link_up;
	uint8_t gid[16];
	struct bcast_group bc;
	struct neigh neigh[NEIGH_MAX];
	struct path paths[PATH_MAX_ENTRIES];
	struct pending pending[PENDING_MAX];
	uint32_t psn;
	uint64_t tid_seq;
	struct ipoib_node_stats st;
	uint8_t txbuf[UD_MAX_PKT];
};

static void nlog(struct ipoib_node *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void nlog(struct ipoib_node *n, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!n->cfg.log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	n->cfg.log(n->cfg.ctx, line);
}

static const char *gid_str(const uint8_t g[16], char buf[48])
{
	snprintf(buf, 48, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12],
		 g[13], g[14], g[15]);
	return buf;
}

static const char *ip_str(uint32_t a, char buf[16])
{
	snprintf(buf, 16, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255);
	return buf;
}

/* IBA 10.9.3: two P_Keys match when their low 15 bits are equal (and not zero) and at least one
 * of them is a full member. */
static bool pkey_match(uint16_t a, uint16_t b)
{
	return (a & 0x7FFF) == (b & 0x7FFF) && (a & 0x7FFF) != 0 && ((a | b) & 0x8000);
}

static void refresh_gid(struct ipoib_node *n)
{
	put_be64(n->gid, n->port.gid_prefix);
	put_be64(n->gid + 8, n->cfg.port_guid);
}

/* ---------------------------------------------------------------- sending */

static void send_ud(struct ipoib_node *n, uint8_t vl, uint8_t sl, uint16_t dlid, uint16_t slid,
		    const uint8_t *dgid, uint16_t pkey, uint32_t dqpn, uint32_t qkey, uint32_t sqpn,
		    const uint8_t *payload, size_t len)
{
	struct ud_pkt p = {
		.vl = vl, .sl = sl, .dlid = dlid, .slid = slid, .pkey = pkey, .dqpn = dqpn,
		.psn = n->psn++ & 0xFFFFFF, .qkey = qkey, .sqpn = sqpn, .payload = payload,
		.payload_len = len,
	};
	if (dgid) {
		p.grh = true;
		p.tclass = n->bc.tclass;
		p.flow_label = n->bc.flow_label;
		p.hop_limit = n->bc.hop_limit;
		memcpy(p.sgid, n->gid, 16);
		memcpy(p.dgid, dgid, 16);
	}
	size_t plen = ud_pkt_build(n->txbuf, sizeof n->txbuf, &p);
	if (!plen) {
		n->st.tx_dropped_bad++;
		nlog(n, "dropped a %zu-byte payload: does not fit in an IB packet", len);
		return;
	}
	n->st.tx_packets++;
	sn_sma_count(n->sma, true, plen);
	n->cfg.send_packet(n->cfg.ctx, n->txbuf, plen);
}

static void send_gsi(struct ipoib_node *n, const uint8_t mad[SA_MAD_LEN])
{
	send_ud(n, DATA_VL, n->port.sm_sl, n->port.sm_lid, n->port.lid, NULL, n->port.pkey, 1,
		UD_QP1_QKEY, 1, mad, SA_MAD_LEN);
}

static uint64_t next_tid(struct ipoib_node *n)
{
	return (uint64_t)n->cfg.port_guid << 32 ^ ++n->tid_seq;
}

/* One IPoIB frame (4-byte header + payload) to the broadcast group (RFC 4391 §4). */
static void xmit_broadcast(struct ipoib_node *n, uint16_t ethertype, const uint8_t *data, size_t len)
{
	uint8_t frame[IPOIB_MAX_FRAME];

	if (len + IPOIB_HDR_LEN > sizeof frame) {
		n->st.tx_dropped_bad++;
		return;
	}
	ipoib_hdr_build(frame, ethertype);
	memcpy(frame + IPOIB_HDR_LEN, data, len);
	send_ud(n, DATA_VL, n->bc.sl, n->bc.mlid, n->port.lid, n->bc.mgid, n->bc.pkey,
		IPOIB_QPN_MULTICAST, n->bc.qkey, n->cfg.qpn, frame, len + IPOIB_HDR_LEN);
}

static struct path *path_find(struct ipoib_node *n, const uint8_t gid[16])
{
	for (unsigned i = 0; i < PATH_MAX_ENTRIES; i++)
		if (n->paths[i].used && !memcmp(n->paths[i].gid, gid, 16))
			return &n->paths[i];
	return NULL;
}

static void path_send_query(struct ipoib_node *n, struct path *p, uint64_t now_ms)
{
	uint8_t mad[SA_MAD_LEN];

	p->tid = next_tid(n);
	p->tries++;
	p->next_ms = now_ms + RETRY_MS;
	sa_build_path_get(mad, p->tid, n->gid, p->gid, n->bc.pkey);
	n->st.path_queries++;
	send_gsi(n, mad);
}

static struct path *path_lookup_or_query(struct ipoib_node *n, const uint8_t gid[16], uint64_t now_ms)
{
	struct path *p = path_find(n, gid), *victim = &n->paths[0];

	if (p) {
		if (p->failed) {   /* a later request tries again from scratch */
			p->failed = false;
			p->tries = 0;
			path_send_query(n, p, now_ms);
		}
		return p;
	}
	for (unsigned i = 0; i < PATH_MAX_ENTRIES; i++) {
		if (!n->paths[i].used) {
			victim = &n->paths[i];
			break;
		}
	}
	memset(victim, 0, sizeof(*victim));
	victim->used = true;
	memcpy(victim->gid, gid, 16);
	path_send_query(n, victim, now_ms);
	return victim;
}

static void xmit_unicast_frame(struct ipoib_node *n, const struct path *p, const struct ipoib_hwaddr *hw,
			       const uint8_t *frame, size_t len)
{
	send_ud(n, DATA_VL, p->sl, p->dlid, n->port.lid, NULL, n->bc.pkey, hw->qpn, n->bc.qkey,
		n->cfg.qpn, frame, len);
}

static struct pending *pending_add(struct ipoib_node *n, uint16_t ethertype, const uint8_t *data,
				   size_t len, uint64_t now_ms)
{
	if (len + IPOIB_HDR_LEN > IPOIB_MAX_FRAME) {
		n->st.tx_dropped_bad++;
		return NULL;
	}
	for (unsigned i = 0; i < PENDING_MAX; i++) {
		struct pending *q = &n->pending[i];
		if (q->used)
			continue;
		memset(q, 0, offsetof(struct pending, data));
		q->used = true;
		q->ethertype = ethertype;
		q->expires_ms = now_ms + PENDING_LIFETIME_MS;
		ipoib_hdr_build(q->data, ethertype);
		memcpy(q->data + IPOIB_HDR_LEN, data, len);
		q->len = len + IPOIB_HDR_LEN;
		return q;
	}
	n->st.tx_dropped_unresolved++;
	nlog(n, "transmit queue full (%d frames waiting for ARP/path): dropping", PENDING_MAX);
	return NULL;
}

/* Send to a known link address: straight away when the path is known, else queue for it. */
static void xmit_to_hw(struct ipoib_node *n, const struct ipoib_hwaddr *hw, uint16_t ethertype,
		       const uint8_t *data, size_t len, uint64_t now_ms)
{
	struct path *p = path_lookup_or_query(n, hw->gid, now_ms);

	if (p->resolved) {
		uint8_t frame[IPOIB_MAX_FRAME];
		if (len + IPOIB_HDR_LEN > sizeof frame) {
			n->st.tx_dropped_bad++;
			return;
		}
		ipoib_hdr_build(frame, ethertype);
		memcpy(frame + IPOIB_HDR_LEN, data, len);
		xmit_unicast_frame(n, p, hw, frame, len + IPOIB_HDR_LEN);
		return;
	}
	struct pending *q = pending_add(n, ethertype, data, len, now_ms);
	if (q) {
		q->have_hw = true;
		q->hw = *hw;
	}
}

static struct neigh *neigh_find(struct ipoib_node *n, uint32_t ip)
{
	for (unsigned i = 0; i < NEIGH_MAX; i++)
		if (n->neigh[i].used && n->neigh[i].ip == ip)
			return &n->neigh[i];
	return NULL;
}

static struct neigh *neigh_alloc(struct ipoib_node *n, uint32_t ip)
{
	struct neigh *victim = &n->neigh[ip % NEIGH_MAX];

	for (unsigned i = 0; i < NEIGH_MAX; i++) {
		if (!n->neigh[i].used) {
			victim = &n->neigh[i];
			break;
		}
	}
	memset(victim, 0, sizeof(*victim));
	victim->used = true;
	victim->ip = ip;
	return victim;
}

static void arp_send_request(struct ipoib_node *n, struct neigh *e, uint64_t now_ms)
{
	struct ipoib_arp a = { .op = IPOIB_ARP_REQUEST, .spa = n->cfg.ipv4, .tpa = e->ip };
	uint8_t raw[IPOIB_ARP_LEN];

	ipoib_node_hwaddr(n, &a.sha);
	ipoib_arp_build(raw, &a);
	e->tries++;
	e->next_ms = now_ms + RETRY_MS;
	n->st.arp_requests++;
	n->st.tx_arp++;
	xmit_broadcast(n, IPOIB_ETHERTYPE_ARP, raw, sizeof raw);
}

/* ---------------------------------------------------------------- the broadcast group */

static void join_send(struct ipoib_node *n, uint64_t now_ms)
{
	uint8_t mad[SA_MAD_LEN];

	n->bc.pending = true;
	n->bc.tid = next_tid(n);
	n->bc.tries++;
	n->bc.next_ms = now_ms + RETRY_MS;
	ipoib_broadcast_mgid(n->bc.mgid, n->ipoib_pkey);
	sa_build_mcmember_join(mad, n->bc.tid, n->bc.mgid, n->gid, n->ipoib_pkey);
	n->st.joins++;
	if (n->bc.tries == 1 || n->bc.tries % 10 == 0)
		nlog(n, "joining broadcast group (try %u) via SA at LID %u", n->bc.tries, n->port.sm_lid);
	send_gsi(n, mad);
}

/* Forget everything learnt from the SA: a new SM or a reregistration request means the group
 * and the paths must be asked for again (IBA 14.4.11, client reregistration). */
static void forget_sa_state(struct ipoib_node *n)
{
	n->bc.joined = false;
	n->bc.pending = false;
	n->bc.tries = 0;
	for (unsigned i = 0; i < PATH_MAX_ENTRIES; i++)
		n->paths[i].used = false;
}

static void port_changed(struct ipoib_node *n, bool rereg, uint64_t now_ms)
{
	struct sn_port_state old = n->port;
	uint16_t old_pkey = n->ipoib_pkey;

	sn_sma_state(n->sma, &n->port);
	refresh_gid(n);
	n->ipoib_pkey = n->cfg.pkey ? sn_sma_pkey_entry(n->sma, n->cfg.pkey) : n->port.pkey;
	if (n->port.port_state != old.port_state)
		nlog(n, "port state %u -> %u, LID %u, SM LID %u", old.port_state, n->port.port_state,
		     n->port.lid, n->port.sm_lid);
	bool active = n->port.port_state == SN_PORT_ACTIVE;
	if (!active) {
		if (n->bc.joined || n->bc.pending)
			forget_sa_state(n);
		return;
	}
	if (rereg)
		nlog(n, "ClientReregister from the SM: joining again");
	if (rereg || (n->bc.joined && n->port.sm_lid != n->bc.joined_sm_lid) ||
	    n->port.lid != old.lid || n->port.gid_prefix != old.gid_prefix ||
	    n->ipoib_pkey != old_pkey)
		forget_sa_state(n);
	if (!n->ipoib_pkey) {   /* --pkey's partition is not (yet) in the SM's table for us */
		if (!n->pkey_missing_logged)
			nlog(n, "P_Key 0x%04x is not in the port's P_Key table: not joining",
			     n->cfg.pkey);
		n->pkey_missing_logged = true;
		return;
	}
	n->pkey_missing_logged = false;
	if (!n->bc.joined && !n->bc.pending)
		join_send(n, now_ms);
}

/* ---------------------------------------------------------------- receiving */

static void handle_smp(struct ipoib_node *n, const struct ud_pkt *p, uint64_t now_ms)
{
	uint8_t resp[SA_MAD_LEN];
	bool rereg = false;

	n->st.rx_smp++;
	if (sn_sma_mad(n->sma, p->payload, p->payload_len, resp, &rereg)) {
		/* Back the way it came: swap the LIDs (permissive stays permissive for DR, IBA 14.2.2). */
		uint16_t slid = p->dlid == UD_LID_PERMISSIVE ? UD_LID_PERMISSIVE : n->port.lid;
		send_ud(n, 15, p->sl, p->slid, slid, NULL, 0xFFFF, p->sqpn, 0, 0, resp, sizeof resp);
	}
	port_changed(n, rereg, now_ms);
}

static void flush_pending_for_path(struct ipoib_node *n, const struct path *p)
{
	for (unsigned i = 0; i < PENDING_MAX; i++) {
		struct pending *q = &n->pending[i];
		if (q->used && q->have_hw && !memcmp(q->hw.gid, p->gid, 16)) {
			xmit_unicast_frame(n, p, &q->hw, q->data, q->len);
			q->used = false;
		}
	}
}

static void handle_sa_response(struct ipoib_node *n, const struct ud_pkt *p, uint64_t now_ms)
{
	struct sa_resp r;
	const char *why = "";
	char g[48];

	if (sa_parse_response(p->payload, p->payload_len, &r, &why) < 0) {
		nlog(n, "QP1: ignoring MAD: %s", why);
		return;
	}
	if (n->bc.pending && r.tid == n->bc.tid && r.attr_id == IBLIB_SA_ATTR_MCMEMBER_RECORD) {
		struct iblib_mcmember_record m;
		n->bc.pending = false;
		if (r.status != 0 || sa_decode_mcmember(r.record, r.record_len, &m, &why) < 0 ||
		    memcmp(m.mgid.raw, n->bc.mgid, 16) != 0) {
			nlog(n, "broadcast group join refused (MAD status 0x%04x%s%s); retrying", r.status,
			     r.status ? "" : ": ", r.status ? "" : why);
			n->bc.pending = true;   /* the tick resends */
			return;
		}
		n->bc.joined = true;
		n->bc.joined_sm_lid = n->port.sm_lid;
		n->bc.qkey = m.qkey;
		n->bc.mlid = m.mlid;
		n->bc.pkey = m.pkey;
		n->bc.sl = m.sl;
		n->bc.mtu = m.mtu;
		n->bc.rate = m.rate;
		n->bc.tclass = m.tclass;
		n->bc.flow_label = m.flow_label;
		n->bc.hop_limit = m.hop_limit;
		nlog(n, "joined broadcast group %s Q_Key 0x%08" PRIx32 " MLID 0x%04x MTU code %u SL %u rate %u P_Key 0x%04x",
		     gid_str(m.mgid.raw, g), m.qkey, m.mlid, m.mtu, m.sl, m.rate, m.pkey);
		return;
	}
	for (unsigned i = 0; i < PATH_MAX_ENTRIES; i++) {
		struct path *e = &n->paths[i];
		if (!e->used || e->resolved || e->tid != r.tid || r.attr_id != IBLIB_SA_ATTR_PATH_RECORD)
			continue;
		struct iblib_path_record pr;
		if (r.status != 0 || sa_decode_path(r.record, r.record_len, &pr, &why) < 0 ||
		    memcmp(pr.dgid.raw, e->gid, 16) != 0) {
			nlog(n, "PathRecord for %s refused (MAD status 0x%04x)", gid_str(e->gid, g), r.status);
			e->next_ms = now_ms;   /* retried by the tick until PATH_TRIES */
			return;
		}
		e->resolved = true;
		e->dlid = pr.dlid;
		e->sl = pr.sl;
		nlog(n, "path to %s: LID %u SL %u MTU code %u", gid_str(e->gid, g), pr.dlid, pr.sl, pr.mtu);
		flush_pending_for_path(n, e);
		return;
	}
}

static void handle_gsi(struct ipoib_node *n, const struct ud_pkt *p, uint64_t now_ms)
{
	n->st.rx_gsi++;
	if (p->qkey != UD_QP1_QKEY) {
		n->st.rx_bad_qkey++;
		return;
	}
	if (p->payload_len >= IBLIB_MAD_HDR_BYTES && p->payload[1] == IBLIB_MCLASS_SUBN_ADM &&
	    iblib_mad_is_response(p->payload)) {
		handle_sa_response(n, p, now_ms);
		return;
	}
	/* PerfMgt (perfquery, OpenSM's PerfMgr): the port's PMA in the firmware library. */
	if (p->payload_len >= IBLIB_MAD_HDR_BYTES && p->payload[1] == IBLIB_MCLASS_PERF) {
		uint8_t resp[SA_MAD_LEN];
		bool rereg;
		if (sn_sma_mad(n->sma, p->payload, p->payload_len, resp, &rereg))
			send_ud(n, DATA_VL, p->sl, p->slid, n->port.lid, NULL, n->port.pkey, p->sqpn,
				UD_QP1_QKEY, 1, resp, sizeof resp);
		return;
	}
	/* Other unsolicited GMPs (CM, SA reports...): this host has no agents for them. */
	if (p->payload_len >= IBLIB_MAD_HDR_BYTES && !iblib_mad_is_response(p->payload) &&
	    (p->payload[3] == IBLIB_METHOD_GET || p->payload[3] == IBLIB_METHOD_SET)) {
		uint8_t resp[SA_MAD_LEN] = { 0 };
		memcpy(resp, p->payload, p->payload_len < sizeof resp ? p->payload_len : sizeof resp);
		iblib_mad_make_response(resp, resp, IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR);
		send_ud(n, DATA_VL, p->sl, p->slid, n->port.lid, NULL, n->port.pkey, p->sqpn,
			UD_QP1_QKEY, 1, resp, sizeof resp);
	}
}

static void learn_neighbour(struct ipoib_node *n, uint32_t ip, const struct ipoib_hwaddr *hw, uint64_t now_ms)
{
	struct neigh *e = neigh_find(n, ip);
	char a[16];

	if (!e)
		e = neigh_alloc(n, ip);
	if (!e->resolved || !ipoib_hwaddr_equal(&e->hw, hw))
		nlog(n, "neighbour %s is QPN 0x%06x", ip_str(ip, a), hw->qpn);
	e->resolved = true;
	e->hw = *hw;
	for (unsigned i = 0; i < PENDING_MAX; i++) {
		struct pending *q = &n->pending[i];
		if (!q->used || q->have_hw || q->ip != ip)
			continue;
		q->have_hw = true;
		q->hw = *hw;
		struct path *p = path_lookup_or_query(n, hw->gid, now_ms);
		if (p->resolved) {
			xmit_unicast_frame(n, p, hw, q->data, q->len);
			q->used = false;
		}
	}
}

static void handle_arp(struct ipoib_node *n, const uint8_t *buf, size_t len, uint64_t now_ms)
{
	struct ipoib_arp a;
	struct ipoib_hwaddr me;
	const char *why = "";

	n->st.rx_arp++;
	if (ipoib_arp_parse(buf, len, &a, &why) < 0) {
		n->st.rx_bad_ipoib++;
		nlog(n, "dropped an ARP packet: %s", why);
		return;
	}
	ipoib_node_hwaddr(n, &me);
	if (ipoib_hwaddr_equal(&a.sha, &me))
		return;
	if (a.sha.qpn == IPOIB_QPN_MULTICAST || a.sha.qpn < 2 || a.sha.gid[0] == 0xFF) {
		n->st.rx_bad_ipoib++;
		nlog(n, "dropped an ARP packet: sender address is not a unicast UD QP");
		return;
	}
	if (a.spa != 0)
		learn_neighbour(n, a.spa, &a.sha, now_ms);
	if (a.op == IPOIB_ARP_REQUEST && n->cfg.ipv4 != 0 && a.tpa == n->cfg.ipv4) {
		struct ipoib_arp r = { .op = IPOIB_ARP_REPLY, .sha = me, .spa = n->cfg.ipv4,
				       .tha = a.sha, .tpa = a.spa };
		uint8_t raw[IPOIB_ARP_LEN];
		ipoib_arp_build(raw, &r);
		n->st.tx_arp++;
		xmit_to_hw(n, &a.sha, IPOIB_ETHERTYPE_ARP, raw, sizeof raw, now_ms);
	}
}

static void handle_ipoib(struct ipoib_node *n, const struct ud_pkt *p, uint64_t now_ms)
{
	const char *why = "";
	int et = ipoib_hdr_parse(p->payload, p->payload_len, &why);

	if (et < 0) {
		n->st.rx_bad_ipoib++;
		return;
	}
	const uint8_t *body = p->payload + IPOIB_HDR_LEN;
	size_t blen = p->payload_len - IPOIB_HDR_LEN;
	if (et == IPOIB_ETHERTYPE_ARP) {
		handle_arp(n, body, blen, now_ms);
		return;
	}
	if (et != IPOIB_ETHERTYPE_IPV4) {
		n->st.rx_bad_ipoib++;
		return;
	}
	uint32_t src, dst;
	if (ipv4_peek(body, blen, &src, &dst, &why) < 0) {
		n->st.rx_bad_ipoib++;
		nlog(n, "dropped an IPv4 frame: %s", why);
		return;
	}
	n->st.rx_ipv4++;
	/* The IPv4 total length, not the IB payload length: nothing after the datagram goes up. */
	n->cfg.deliver_ipv4(n->cfg.ctx, body, get_be16(body + 2));
}

void ipoib_node_packet_in(struct ipoib_node *n, const uint8_t *pkt, size_t len, uint64_t now_ms)
{
	struct ud_pkt p;
	const char *why = "";

	n->st.rx_packets++;
	if (ud_pkt_parse(pkt, len, &p, &why) < 0) {
		n->st.rx_bad_packet++;
		nlog(n, "dropped a %zu-byte packet: %s", len, why);
		return;
	}
	sn_sma_count(n->sma, false, len);
	if (p.dqpn == 0) {
		if (p.vl != 15) {   /* subnet management packets travel on VL15 only */
			n->st.rx_bad_packet++;
			return;
		}
		handle_smp(n, &p, now_ms);
		return;
	}
	if (!n->link_up || n->port.port_state != SN_PORT_ACTIVE) {
		n->st.rx_unknown_qp++;   /* before ACTIVE only SMPs matter here (IBA 7.2 port states) */
		return;
	}
	if (!pkey_match(p.pkey, p.dqpn == 1 ? n->port.pkey : (n->bc.joined ? n->bc.pkey : n->ipoib_pkey))) {
		n->st.rx_bad_pkey++;
		return;
	}
	if (p.dqpn == 1) {
		handle_gsi(n, &p, now_ms);
		return;
	}
	bool mcast = p.dqpn == IPOIB_QPN_MULTICAST;
	if (!mcast && (p.dqpn != n->cfg.qpn || p.dlid != n->port.lid)) {
		n->st.rx_unknown_qp++;
		return;
	}
	if (!n->bc.joined) {
		n->st.rx_wrong_group++;
		return;
	}
	if (mcast && (p.dlid < UD_LID_MCAST_FIRST || !p.grh || memcmp(p.dgid, n->bc.mgid, 16) != 0)) {
		n->st.rx_wrong_group++;
		return;
	}
	if (p.qkey != n->bc.qkey) {   /* RFC 4391 §4.1: the broadcast group's Q_Key is the link's */
		n->st.rx_bad_qkey++;
		return;
	}
	if (p.slid == n->port.lid && p.sqpn == n->cfg.qpn)
		return;   /* our own broadcast coming back */
	handle_ipoib(n, &p, now_ms);
}

void ipoib_node_send_ipv4(struct ipoib_node *n, const uint8_t *dgram, size_t len, uint64_t now_ms)
{
	uint32_t src, dst;
	const char *why = "";

	if (ipv4_peek(dgram, len, &src, &dst, &why) < 0) {
		n->st.tx_dropped_bad++;
		return;
	}
	if (!n->bc.joined) {
		n->st.tx_dropped_not_joined++;
		return;
	}
	n->st.tx_ipv4++;
	enum ipv4_dest_kind k = ipv4_dest_classify(dst, n->cfg.ipv4, n->cfg.prefix_len);
	if (k != IPV4_DEST_UNICAST) {
		/* Multicast groups other than the broadcast group are not joined: like a Linux host
		 * whose only multicast member is the broadcast group, send through that. */
		xmit_broadcast(n, IPOIB_ETHERTYPE_IPV4, dgram, len);
		return;
	}
	struct neigh *e = neigh_find(n, dst);
	if (e && e->resolved) {
		xmit_to_hw(n, &e->hw, IPOIB_ETHERTYPE_IPV4, dgram, len, now_ms);
		return;
	}
	struct pending *q = pending_add(n, IPOIB_ETHERTYPE_IPV4, dgram, len, now_ms);
	if (!q)
		return;
	q->ip = dst;
	if (!e) {
		e = neigh_alloc(n, dst);
		arp_send_request(n, e, now_ms);
	}
}

int ipoib_node_tick(struct ipoib_node *n, uint64_t now_ms)
{
	uint64_t next = UINT64_MAX;
	char a[16], g[48];

	if (n->port.port_state == SN_PORT_ACTIVE && n->bc.pending) {
		if (now_ms >= n->bc.next_ms)
			join_send(n, now_ms);
		next = n->bc.next_ms;
	}
	for (unsigned i = 0; i < NEIGH_MAX; i++) {
		struct neigh *e = &n->neigh[i];
		if (!e->used || e->resolved)
			continue;
		if (now_ms >= e->next_ms) {
			if (e->tries >= ARP_TRIES) {
				nlog(n, "no ARP reply from %s after %u tries", ip_str(e->ip, a), e->tries);
				e->used = false;
				continue;
			}
			arp_send_request(n, e, now_ms);
		}
		if (e->next_ms < next)
			next = e->next_ms;
	}
	for (unsigned i = 0; i < PATH_MAX_ENTRIES; i++) {
		struct path *p = &n->paths[i];
		if (!p->used || p->resolved || p->failed)
			continue;
		if (now_ms >= p->next_ms) {
			if (p->tries >= PATH_TRIES) {
				nlog(n, "no PathRecord for %s after %u tries", gid_str(p->gid, g), p->tries);
				p->failed = true;
				continue;
			}
			path_send_query(n, p, now_ms);
		}
		if (p->next_ms < next)
			next = p->next_ms;
	}
	for (unsigned i = 0; i < PENDING_MAX; i++) {
		struct pending *q = &n->pending[i];
		if (!q->used)
			continue;
		if (now_ms >= q->expires_ms) {
			q->used = false;
			n->st.tx_dropped_unresolved++;
			continue;
		}
		if (q->expires_ms < next)
			next = q->expires_ms;
	}
	if (next == UINT64_MAX)
		return -1;
	return next <= now_ms ? 0 : (int)(next - now_ms > 60000 ? 60000 : next - now_ms);
}

void ipoib_node_link(struct ipoib_node *n, bool up, uint64_t now_ms)
{
	n->link_up = up;
	sn_sma_link(n->sma, up);
	nlog(n, "physical link %s", up ? "up" : "down");
	port_changed(n, false, now_ms);
}

struct ipoib_node *ipoib_node_create(const struct ipoib_node_cfg *cfg, char *err, size_t errlen)
{
	if (!cfg->send_packet || !cfg->deliver_ipv4) {
		snprintf(err, errlen, "ipoib_node: send_packet and deliver_ipv4 callbacks are required");
		return NULL;
	}
	struct ipoib_node *n = calloc(1, sizeof(*n));
	if (!n) {
		snprintf(err, errlen, "ipoib_node: out of memory");
		return NULL;
	}
	n->cfg = *cfg;
	if (!n->cfg.qpn)
		n->cfg.qpn = IPOIB_NODE_DEFAULT_QPN;
	if (n->cfg.qpn < 2 || n->cfg.qpn >= IPOIB_QPN_MULTICAST) {
		snprintf(err, errlen, "ipoib_node: QPN 0x%x is reserved (0, 1 and 0xFFFFFF)", n->cfg.qpn);
		free(n);
		return NULL;
	}
	n->sma = sn_sma_create(cfg->node_guid, cfg->port_guid, cfg->node_desc, err, errlen);
	if (!n->sma) {
		free(n);
		return NULL;
	}
	sn_sma_state(n->sma, &n->port);
	refresh_gid(n);
	n->psn = (uint32_t)cfg->port_guid & 0xFFFFFF;
	return n;
}

void ipoib_node_destroy(struct ipoib_node *n)
{
	if (!n)
		return;
	sn_sma_destroy(n->sma);
	free(n);
}

void ipoib_node_set_ipv4(struct ipoib_node *n, uint32_t addr, unsigned prefix_len)
{
	n->cfg.ipv4 = addr;
	n->cfg.prefix_len = prefix_len;
}

bool ipoib_node_joined(const struct ipoib_node *n) { return n->bc.joined; }
bool ipoib_node_active(const struct ipoib_node *n) { return n->port.port_state == SN_PORT_ACTIVE; }
uint16_t ipoib_node_lid(const struct ipoib_node *n) { return n->port.lid; }
const struct ipoib_node_stats *ipoib_node_stats(const struct ipoib_node *n) { return &n->st; }

void ipoib_node_hwaddr(const struct ipoib_node *n, struct ipoib_hwaddr *out)
{
	out->flags = 0;
	out->qpn = n->cfg.qpn;
	memcpy(out->gid, n->gid, 16);
}

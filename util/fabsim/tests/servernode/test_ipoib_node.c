/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: the IPoIB host core driven packet by packet, with this test playing the SM (DR
 * PortInfo SMPs to the firmware SMA library), the SA (join and PathRecord answers) and a peer
 * host (ARP, unicast IPv4). Every packet the node emits is parsed back and checked.
 */
#include "test.h"
#include "ipoib_node.h"
#include "sa_msg.h"
#include "ud_pkt.h"
#include "netboot_proto.h"

#include <stdlib.h>
#include <ibboot/wire/attrs.h>
#include <ibboot/wire/bytes.h>
#include <ibboot/wire/mad.h>

#define SERVER_GUID 0x0002c90300c00001ull
#define PEER_GUID 0x0002c90300d00011ull
#define SERVER_IP 0xC6120001u
#define PEER_IP 0xC6120032u
#define SM_LID 1
#define SERVER_LID 5
#define PEER_LID 7
#define PEER_QPN 0x49

struct harness {
	struct ipoib_node *n;
	uint8_t out[32][UD_MAX_PKT];
	size_t out_len[32];
	unsigned nout;
	uint8_t in[4096];
	size_t in_len;
	unsigned delivered;
	uint64_t now;
	uint64_t tid;
};

static void h_send(void *ctx, const uint8_t *pkt, size_t len)
{
	struct harness *h = ctx;
	if (h->nout < 32) {
		memcpy(h->out[h->nout], pkt, len);
		h->out_len[h->nout++] = len;
	}
}

static void h_deliver(void *ctx, const uint8_t *d, size_t len)
{
	struct harness *h = ctx;
	memcpy(h->in, d, len < sizeof h->in ? len : sizeof h->in);
	h->in_len = len;
	h->delivered++;
}

static struct harness *h_new(void)
{
	struct harness *h = calloc(1, sizeof(*h));
	char err[128];
	struct ipoib_node_cfg cfg = {
		.node_guid = SERVER_GUID - 1, .port_guid = SERVER_GUID, .node_desc = "servernode",
		.qpn = 0x48, .ipv4 = SERVER_IP, .prefix_len = 24, .ctx = h, .send_packet = h_send,
		.deliver_ipv4 = h_deliver,
	};
	h->n = ipoib_node_create(&cfg, err, sizeof err);
	h->now = 1000;
	return h;
}

static void h_free(struct harness *h)
{
	ipoib_node_destroy(h->n);
	free(h);
}

/* Parse the i-th emitted packet (must be valid) */
static int h_pkt(struct harness *h, unsigned i, struct ud_pkt *p)
{
	const char *why = "";
	if (i >= h->nout)
		return -1;
	return ud_pkt_parse(h->out[i], h->out_len[i], p, &why);
}

static void inject(struct harness *h, const struct ud_pkt *p)
{
	uint8_t buf[UD_MAX_PKT];
	size_t n = ud_pkt_build(buf, sizeof buf, p);
	CHECK(n > 0);
	ipoib_node_packet_in(h->n, buf, n, h->now);
}

/* A directed-route SMP one hop away from the SM, as it arrives at the CA (IBA 14.2.2: hop
 * pointer == hop count). */
static void smp(struct harness *h, uint8_t method, const uint8_t *data)
{
	uint8_t mad[256] = { 0 };
	struct iblib_mad_hdr mh = { .base_version = 1, .mgmt_class = IBLIB_MCLASS_SUBN_DR,
				    .class_version = 1, .method = method, .class_specific = 0x0101,
				    .tid = ++h->tid, .attr_id = IBLIB_SM_ATTR_PORT_INFO, .attr_mod = 0 };
	iblib_mad_hdr_put(mad, &mh);
	put_be16(mad + IBLIB_SMP_DR_SLID_OFF, 0xFFFF);
	put_be16(mad + IBLIB_SMP_DR_DLID_OFF, 0xFFFF);
	mad[IBLIB_SMP_INITIAL_PATH_OFF + 1] = 1;
	if (data)
		memcpy(mad + IBLIB_SMP_DATA_OFF, data, 64);
	struct ud_pkt p = { .vl = 15, .dlid = 0xFFFF, .slid = 0xFFFF, .pkey = 0xFFFF, .dqpn = 0,
			    .sqpn = 0, .payload = mad, .payload_len = sizeof mad };
	inject(h, &p);
}

/* PortInfo Get, modify, Set: what OpenSM does for each state step. */
static void set_port(struct harness *h, uint16_t lid, unsigned state, bool rereg)
{
	struct ud_pkt r;
	uint8_t pi[64];

	h->nout = 0;
	smp(h, IBLIB_METHOD_GET, NULL);
	CHECK_EQ(h->nout, 1);
	if (h_pkt(h, 0, &r) != 0)
		return;
	CHECK_EQ(r.vl, 15);
	CHECK_EQ(r.payload[3], 0x81);
	memcpy(pi, r.payload + IBLIB_SMP_DATA_OFF, 64);
	iblib_portinfo_set_lid(pi, lid);
	iblib_portinfo_set_master_sm_lid(pi, SM_LID);
	iblib_portinfo_set_port_state(pi, state);
	iblib_portinfo_set_port_phys_state(pi, 0);
	iblib_portinfo_set_link_width_enabled(pi, 0);
	iblib_portinfo_set_link_speed_enabled(pi, 0);
	iblib_portinfo_set_client_reregister(pi, rereg);
	h->nout = 0;
	smp(h, IBLIB_METHOD_SET, pi);
}

/* Find the last emitted SA request of attribute `attr`; returns its index or -1. */
static int find_sa(struct harness *h, uint16_t attr, struct ud_pkt *p)
{
	for (int i = (int)h->nout - 1; i >= 0; i--) {
		if (h_pkt(h, (unsigned)i, p) == 0 && p->dqpn == 1 && p->payload_len >= 56 &&
		    p->payload[1] == 3 && get_be16(p->payload + 16) == attr)
			return i;
	}
	return -1;
}

static void answer_sa(struct harness *h, const struct ud_pkt *req, void (*fill)(uint8_t *rec))
{
	uint8_t mad[256];
	memcpy(mad, req->payload, 256);
	mad[3] = 0x81;
	fill(mad + 56);
	struct ud_pkt p = { .dlid = SERVER_LID, .slid = SM_LID, .pkey = 0xFFFF, .dqpn = 1, .sqpn = 1,
			    .qkey = UD_QP1_QKEY, .payload = mad, .payload_len = sizeof mad };
	inject(h, &p);
}

static void fill_join(uint8_t *rec)
{
	put_be32(rec + 32, 0x00000B1B);
	put_be16(rec + 36, 0xC000);
	rec[38] = 0x84;
	rec[42] = 0x83;
}

static void fill_path(uint8_t *rec)
{
	put_be16(rec + 40, PEER_LID);
	put_be16(rec + 42, SERVER_LID);
	rec[54] = 0x84;
}

static void peer_gid(uint8_t g[16])
{
	put_be64(g, 0xfe80000000000000ull);
	put_be64(g + 8, PEER_GUID);
}

static void bring_up(struct harness *h)
{
	struct ud_pkt p;

	ipoib_node_link(h->n, true, h->now);
	set_port(h, SERVER_LID, IBLIB_PORT_STATE_ARMED, false);
	CHECK(!ipoib_node_active(h->n));
	set_port(h, SERVER_LID, IBLIB_PORT_STATE_ACTIVE, false);
	CHECK(ipoib_node_active(h->n));
	CHECK_EQ(ipoib_node_lid(h->n), SERVER_LID);
	int i = find_sa(h, 0x0038, &p);
	CHECK(i >= 0);
	if (i < 0)
		return;
	CHECK_EQ(p.dlid, SM_LID);
	CHECK_EQ(p.qkey, UD_QP1_QKEY);
	CHECK_EQ(p.payload[3], 0x02);
	h->nout = 0;
	answer_sa(h, &p, fill_join);
	CHECK(ipoib_node_joined(h->n));
}

/* An IPoIB frame from the peer (ethertype + body), unicast to the server or to the group. */
static void from_peer(struct harness *h, bool mcast, uint16_t et, const uint8_t *body, size_t len,
		      uint32_t qkey, uint16_t pkey)
{
	uint8_t frame[4096];
	ipoib_hdr_build(frame, et);
	memcpy(frame + 4, body, len);
	struct ud_pkt p = { .dlid = mcast ? 0xC000 : SERVER_LID, .slid = PEER_LID, .pkey = pkey,
			    .dqpn = mcast ? 0xFFFFFF : 0x48, .sqpn = PEER_QPN, .qkey = qkey,
			    .payload = frame, .payload_len = len + 4, .grh = mcast };
	if (mcast) {
		peer_gid(p.sgid);
		ipoib_broadcast_mgid(p.dgid, 0xffff);
	}
	inject(h, &p);
}

TEST(node_joins_after_active_and_broadcasts)
{
	struct harness *h = h_new();
	struct ud_pkt p;
	uint8_t dg[100], pl[4] = "abc";

	CHECK(h->n != NULL);
	bring_up(h);
	size_t n = udp_build(dg, sizeof dg, SERVER_IP, 0xFFFFFFFF, 67, 68, pl, 4, 1);
	h->nout = 0;
	ipoib_node_send_ipv4(h->n, dg, n, h->now);
	CHECK_EQ(h->nout, 1);
	CHECK_EQ(h_pkt(h, 0, &p), 0);
	CHECK_EQ(p.dlid, 0xC000);
	CHECK(p.grh);
	CHECK_EQ(p.dqpn, 0xFFFFFF);
	CHECK_EQ(p.sqpn, 0x48);
	CHECK_EQ(p.qkey, 0xB1B);
	CHECK_EQ(p.payload_len, n + 4);
	CHECK_EQ(p.payload[0] << 8 | p.payload[1], 0x0800);
	CHECK_MEM(p.payload + 4, dg, n);
	uint8_t mgid[16];
	ipoib_broadcast_mgid(mgid, 0xffff);
	CHECK_MEM(p.dgid, mgid, 16);
	h_free(h);
}

TEST(node_drops_ipv4_before_join)
{
	struct harness *h = h_new();
	uint8_t dg[60], pl[1] = { 0 };
	size_t n = udp_build(dg, sizeof dg, SERVER_IP, 0xFFFFFFFF, 67, 68, pl, 1, 1);

	ipoib_node_send_ipv4(h->n, dg, n, h->now);
	CHECK_EQ(h->nout, 0);
	CHECK_EQ(ipoib_node_stats(h->n)->tx_dropped_not_joined, 1);
	h_free(h);
}

TEST(node_answers_arp_after_path_query_then_unicasts)
{
	struct harness *h = h_new();
	struct ud_pkt p;
	struct ipoib_arp a = { .op = IPOIB_ARP_REQUEST, .spa = PEER_IP, .tpa = SERVER_IP }, r;
	uint8_t raw[IPOIB_ARP_LEN];
	const char *why;

	bring_up(h);
	a.sha.qpn = PEER_QPN;
	peer_gid(a.sha.gid);
	ipoib_arp_build(raw, &a);
	h->nout = 0;
	from_peer(h, true, IPOIB_ETHERTYPE_ARP, raw, sizeof raw, 0xB1B, 0xFFFF);
	/* The reply is unicast: the node must ask the SA for the path first. */
	int i = find_sa(h, 0x0035, &p);
	CHECK(i >= 0);
	if (i < 0)
		goto out;
	uint8_t g[16];
	peer_gid(g);
	CHECK_MEM(p.payload + 56 + 8, g, 16);
	h->nout = 0;
	answer_sa(h, &p, fill_path);
	CHECK_EQ(h->nout, 1);
	CHECK_EQ(h_pkt(h, 0, &p), 0);
	CHECK_EQ(p.dlid, PEER_LID);
	CHECK(!p.grh);
	CHECK_EQ(p.dqpn, PEER_QPN);
	CHECK_EQ(p.qkey, 0xB1B);
	CHECK_EQ(p.payload[0] << 8 | p.payload[1], 0x0806);
	CHECK_EQ(ipoib_arp_parse(p.payload + 4, p.payload_len - 4, &r, &why), 0);
	CHECK_EQ(r.op, IPOIB_ARP_REPLY);
	CHECK_EQ(r.spa, SERVER_IP);
	CHECK_EQ(r.tpa, PEER_IP);
	CHECK_EQ(r.sha.qpn, 0x48);
	CHECK_EQ(get_be64(r.sha.gid + 8), SERVER_GUID);
	CHECK(ipoib_hwaddr_equal(&r.tha, &a.sha));

	/* Now unicast IPv4 to the peer goes straight out on the cached path. */
	uint8_t dg[100], pl[5] = "data";
	size_t n = udp_build(dg, sizeof dg, SERVER_IP, PEER_IP, 69, 4000, pl, 5, 2);
	h->nout = 0;
	ipoib_node_send_ipv4(h->n, dg, n, h->now);
	CHECK_EQ(h->nout, 1);
	CHECK_EQ(h_pkt(h, 0, &p), 0);
	CHECK_EQ(p.dlid, PEER_LID);
	CHECK_EQ(p.dqpn, PEER_QPN);
	CHECK_MEM(p.payload + 4, dg, n);
	CHECK_EQ(ipoib_node_stats(h->n)->path_queries, 1);

	/* And unicast IPv4 from the peer is delivered, trailing pad not included. */
	from_peer(h, false, IPOIB_ETHERTYPE_IPV4, dg, n, 0xB1B, 0xFFFF);
	CHECK_EQ(h->delivered, 1);
	CHECK_EQ(h->in_len, n);
out:
	h_free(h);
}

TEST(node_checks_keys_group_and_crc_on_receive)
{
	struct harness *h = h_new();
	uint8_t dg[100], pl[5] = "data";
	const struct ipoib_node_stats *s = ipoib_node_stats(h->n);

	bring_up(h);
	size_t n = udp_build(dg, sizeof dg, PEER_IP, SERVER_IP, 4000, 69, pl, 5, 2);
	from_peer(h, false, IPOIB_ETHERTYPE_IPV4, dg, n, 0xB1C, 0xFFFF);
	CHECK_EQ(s->rx_bad_qkey, 1);
	from_peer(h, false, IPOIB_ETHERTYPE_IPV4, dg, n, 0xB1B, 0x1234);
	CHECK_EQ(s->rx_bad_pkey, 1);
	from_peer(h, false, IPOIB_ETHERTYPE_IPV4, dg, n, 0xB1B, 0x7FFF);   /* limited member: ok */
	CHECK_EQ(h->delivered, 1);
	from_peer(h, false, 0x86DD, dg, n, 0xB1B, 0xFFFF);                   /* IPv6: not here */
	from_peer(h, false, IPOIB_ETHERTYPE_IPV4, dg, 10, 0xB1B, 0xFFFF);    /* truncated IPv4 */
	CHECK_EQ(s->rx_bad_ipoib, 2);
	CHECK_EQ(h->delivered, 1);

	/* A multicast frame for some other group is not ours. */
	uint8_t frame[200];
	ipoib_hdr_build(frame, IPOIB_ETHERTYPE_IPV4);
	memcpy(frame + 4, dg, n);
	struct ud_pkt p = { .dlid = 0xC001, .slid = PEER_LID, .pkey = 0xFFFF, .dqpn = 0xFFFFFF,
			    .sqpn = PEER_QPN, .qkey = 0xB1B, .payload = frame, .payload_len = n + 4,
			    .grh = true };
	ipoib_broadcast_mgid(p.dgid, 0x1234);
	inject(h, &p);
	CHECK_EQ(s->rx_wrong_group, 1);

	/* Corruption and garbage: counted and dropped, nothing delivered. */
	uint8_t buf[400];
	p.dlid = SERVER_LID;
	p.dqpn = 0x48;
	p.grh = false;
	size_t len = ud_pkt_build(buf, sizeof buf, &p);
	buf[len / 2] ^= 0x10;
	ipoib_node_packet_in(h->n, buf, len, h->now);
	for (int i = 0; i < 500; i++) {
		size_t l = (size_t)(test_rand() % sizeof buf);
		for (size_t j = 0; j < l; j++)
			buf[j] = (uint8_t)test_rand();
		ipoib_node_packet_in(h->n, buf, l, h->now);
	}
	CHECK(s->rx_bad_packet >= 501);
	CHECK_EQ(h->delivered, 1);
	h_free(h);
}

TEST(node_rejoins_on_client_reregister)
{
	struct harness *h = h_new();
	struct ud_pkt p;

	bring_up(h);
	uint64_t joins = ipoib_node_stats(h->n)->joins;
	set_port(h, SERVER_LID, IBLIB_PORT_STATE_NOP, true);
	CHECK(!ipoib_node_joined(h->n));
	CHECK(find_sa(h, 0x0038, &p) >= 0);
	CHECK_EQ(ipoib_node_stats(h->n)->joins, joins + 1);
	answer_sa(h, &p, fill_join);
	CHECK(ipoib_node_joined(h->n));
	h_free(h);
}

TEST(node_retries_join_and_arp_then_gives_up)
{
	struct harness *h = h_new();
	struct ud_pkt p;

	ipoib_node_link(h->n, true, h->now);
	set_port(h, SERVER_LID, IBLIB_PORT_STATE_ARMED, false);
	set_port(h, SERVER_LID, IBLIB_PORT_STATE_ACTIVE, false);
	/* The SA does not answer: the join is sent again each second. */
	h->nout = 0;
	h->now += 1000;
	ipoib_node_tick(h->n, h->now);
	CHECK(find_sa(h, 0x0038, &p) >= 0);
	answer_sa(h, &p, fill_join);
	CHECK(ipoib_node_joined(h->n));

	/* Unicast to an unknown neighbour: ARP request on the group, 3 tries, then dropped. */
	uint8_t dg[60], pl[1] = { 1 };
	size_t n = udp_build(dg, sizeof dg, SERVER_IP, 0xC612004D, 69, 4000, pl, 1, 3);
	h->nout = 0;
	ipoib_node_send_ipv4(h->n, dg, n, h->now);
	for (int i = 0; i < 6; i++) {
		h->now += 1000;
		ipoib_node_tick(h->n, h->now);
	}
	unsigned arps = 0;
	for (unsigned i = 0; i < h->nout; i++) {
		if (h_pkt(h, i, &p) == 0 && p.dqpn == 0xFFFFFF && p.payload[1] == 0x06)
			arps++;
	}
	CHECK_EQ(arps, 3);
	CHECK_EQ(ipoib_node_stats(h->n)->tx_dropped_unresolved, 1);
	h_free(h);
}

TEST(node_answers_perfmgt_on_qp1_and_counts_packets)
{
	struct harness *h = h_new();
	struct ud_pkt p;
	uint8_t mad[256] = { 0 };
	struct iblib_mad_hdr mh = { .base_version = 1, .mgmt_class = IBLIB_MCLASS_PERF,
				    .class_version = 1, .method = IBLIB_METHOD_GET, .tid = 99,
				    .attr_id = IBLIB_PERF_ATTR_PORT_COUNTERS };

	bring_up(h);
	iblib_mad_hdr_put(mad, &mh);
	mad[IBLIB_PERF_DATA_OFF + 1] = 1;   /* PortSelect */
	struct ud_pkt q = { .dlid = SERVER_LID, .slid = SM_LID, .pkey = 0xFFFF, .dqpn = 1, .sqpn = 1,
			    .qkey = UD_QP1_QKEY, .payload = mad, .payload_len = sizeof mad };
	h->nout = 0;
	inject(h, &q);
	CHECK_EQ(h->nout, 1);
	CHECK_EQ(h_pkt(h, 0, &p), 0);
	CHECK_EQ(p.dlid, SM_LID);
	CHECK_EQ(p.dqpn, 1);
	CHECK_EQ(p.qkey, UD_QP1_QKEY);
	CHECK_EQ(p.payload[1], IBLIB_MCLASS_PERF);
	CHECK_EQ(p.payload[3], IBLIB_METHOD_GET_RESP);
	CHECK_EQ(get_be16(p.payload + 4), 0);
	struct iblib_port_counters pc;
	iblib_port_counters_get(p.payload + IBLIB_PERF_DATA_OFF, &pc);
	CHECK(pc.rcv_pkts > 0);    /* the SMPs and the join answer bring_up() sent */
	CHECK(pc.xmit_pkts > 0);
	h_free(h);
}

TEST(node_bounds_its_queue_and_gives_up_on_paths)
{
	struct harness *h = h_new();
	uint8_t dg[60], pl[1] = { 1 };
	const struct ipoib_node_stats *s = ipoib_node_stats(h->n);

	bring_up(h);
	/* More unresolved destinations than queue slots: the excess is dropped and counted, not
	 * queued without bound. */
	for (uint32_t i = 0; i < 40; i++) {
		size_t n = udp_build(dg, sizeof dg, SERVER_IP, 0xC6120040 + i, 69, 4000, pl, 1, 3);
		ipoib_node_send_ipv4(h->n, dg, n, h->now);
	}
	CHECK_EQ(s->tx_dropped_unresolved, 8);
	CHECK(s->arp_requests >= 32);

	/* A neighbour whose path the SA never answers: 5 PathRecord tries, then its frames expire. */
	struct ipoib_arp a = { .op = IPOIB_ARP_REPLY, .spa = PEER_IP, .tpa = SERVER_IP };
	uint8_t raw[IPOIB_ARP_LEN];
	a.sha.qpn = PEER_QPN;
	peer_gid(a.sha.gid);
	ipoib_arp_build(raw, &a);
	from_peer(h, true, IPOIB_ETHERTYPE_ARP, raw, sizeof raw, 0xB1B, 0xFFFF);
	for (int i = 0; i < 10; i++) {
		h->now += 1000;
		ipoib_node_tick(h->n, h->now);
	}
	size_t n = udp_build(dg, sizeof dg, SERVER_IP, PEER_IP, 69, 4000, pl, 1, 4);
	uint64_t q0 = s->path_queries, d0 = s->tx_dropped_unresolved;
	ipoib_node_send_ipv4(h->n, dg, n, h->now);
	for (int i = 0; i < 8; i++) {
		h->now += 1000;
		ipoib_node_tick(h->n, h->now);
	}
	CHECK_EQ(s->path_queries - q0, 5);
	CHECK_EQ(s->tx_dropped_unresolved - d0, 1);
	h_free(h);
}

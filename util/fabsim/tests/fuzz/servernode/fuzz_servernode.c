/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: everything the server node parses from the wire. The first input byte picks
 * where the rest goes:
 *   0  raw bytes as a whole IB packet (CRC/length checks);
 *   1  an IPoIB frame multicast to the broadcast group, wrapped in a valid packet (so the fuzzer
 *      gets past the CRCs and exercises ARP/IPv4 handling);
 *   2  the same, unicast to the node's QPN;
 *   3  a MAD on QP1 from the SM (SA responses);
 *   4  a MAD on QP0 (the SMA library behind the node);
 *   5  an IPv4 datagram from the TUN side (ipoib_node_send_ipv4);
 *   6  the test client's UDP/TCP/DHCP/TFTP parsers.
 * Each input starts from a node brought to ACTIVE and joined with SMPs and an SA answer as
 * OpenSM sends them, so an input's effect does not depend on the ones before it. The node is
 * brought up once: the heap blocks it owns afterwards (the node, its SMA adapter and the SMA
 * library's state; flat structures, recorded through the sanitizer's malloc hooks while it comes
 * up) are saved, and copied back byte for byte before every input, with the harness's own clock
 * and last-sent packet. Building a fresh node per input (a 140 KiB calloc that ASan maps and
 * unmaps every time, six SMPs and a join) was ~85% of the time. An input that frees one of those
 * blocks, or leaves a new block allocated, aborts: the restore would no longer be exact.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>
#include <sanitizer/allocator_interface.h>

#include <ibboot/wire/attrs.h>
#include <ibboot/wire/bytes.h>
#include <ibboot/wire/mad.h>

#include "tun_gso.h"
#include "ipoib_node.h"
#include "netboot_proto.h"
#include "sa_msg.h"
#include "ud_pkt.h"

static struct ipoib_node *node;
static uint8_t last_out[UD_MAX_PKT];
static size_t last_len;
static uint64_t now = 1000;

static void on_send(void *ctx, const uint8_t *pkt, size_t len)
{
	(void)ctx;
	memcpy(last_out, pkt, len);
	last_len = len;
}

static void on_deliver(void *ctx, const uint8_t *d, size_t len)
{
	(void)ctx;
	volatile uint8_t sink = 0;
	for (size_t i = 0; i < len; i++)
		sink ^= d[i];   /* touch every byte: ASan catches a bad length */
	(void)sink;
}

static void inject(const struct ud_pkt *p)
{
	uint8_t buf[UD_MAX_PKT];
	size_t n = ud_pkt_build(buf, sizeof buf, p);
	if (n)
		ipoib_node_packet_in(node, buf, n, now);
}

static void smp_portinfo(uint8_t method, uint16_t lid, unsigned state)
{
	uint8_t mad[256] = { 0 };
	struct iblib_mad_hdr h = { .base_version = 1, .mgmt_class = IBLIB_MCLASS_SUBN_DR,
				   .class_version = 1, .method = method, .class_specific = 0x0101,
				   .tid = now, .attr_id = IBLIB_SM_ATTR_PORT_INFO };
	iblib_mad_hdr_put(mad, &h);
	put_be16(mad + IBLIB_SMP_DR_SLID_OFF, 0xFFFF);
	put_be16(mad + IBLIB_SMP_DR_DLID_OFF, 0xFFFF);
	mad[IBLIB_SMP_INITIAL_PATH_OFF + 1] = 1;
	if (method == IBLIB_METHOD_SET) {
		/* Start from what the SMA reports (the last Get's response). */
		struct ud_pkt r;
		if (ud_pkt_parse(last_out, last_len, &r, NULL) == 0 && r.payload_len == 256)
			memcpy(mad + IBLIB_SMP_DATA_OFF, r.payload + IBLIB_SMP_DATA_OFF, 64);
		uint8_t *pi = mad + IBLIB_SMP_DATA_OFF;
		iblib_portinfo_set_lid(pi, lid);
		iblib_portinfo_set_master_sm_lid(pi, 1);
		iblib_portinfo_set_port_state(pi, state);
		iblib_portinfo_set_port_phys_state(pi, 0);
		iblib_portinfo_set_link_width_enabled(pi, 0);
		iblib_portinfo_set_link_speed_enabled(pi, 0);
	}
	struct ud_pkt p = { .vl = 15, .dlid = 0xFFFF, .slid = 0xFFFF, .pkey = 0xFFFF,
			    .payload = mad, .payload_len = sizeof mad };
	inject(&p);
}

static void bring_up(void)
{
	char err[128];
	struct ipoib_node_cfg cfg = {
		.node_guid = 0x0002c90300c00000ull, .port_guid = 0x0002c90300c00001ull, .qpn = 0x48,
		.ipv4 = 0xC6120001, .prefix_len = 24, .send_packet = on_send, .deliver_ipv4 = on_deliver,
	};
	node = ipoib_node_create(&cfg, err, sizeof err);
	if (!node)
		abort();
	ipoib_node_link(node, true, now);
	for (unsigned state = 3; state <= 4; state++) {
		smp_portinfo(IBLIB_METHOD_GET, 0, 0);
		smp_portinfo(IBLIB_METHOD_SET, 5, state);
	}
	/* The join went out last: answer it as OpenSM does. */
	struct ud_pkt req;
	if (ud_pkt_parse(last_out, last_len, &req, NULL) != 0 || req.dqpn != 1)
		abort();
	uint8_t mad[256];
	memcpy(mad, req.payload, 256);
	mad[3] = IBLIB_METHOD_GET_RESP;
	put_be32(mad + 56 + 32, 0xB1B);
	put_be16(mad + 56 + 36, 0xC000);
	struct ud_pkt p = { .dlid = 5, .slid = 1, .pkey = 0xFFFF, .dqpn = 1, .sqpn = 1,
			    .qkey = UD_QP1_QKEY, .payload = mad, .payload_len = sizeof mad };
	inject(&p);
	if (!ipoib_node_joined(node))
		abort();
}

/* Where modes 1..4 send the input as a UD payload: the IPoIB broadcast group (with its GRH), the
 * node's own QP, QP1 (as if from the SA) and QP0 on VL15. */
static const struct ud_pkt targets[] = {
	{ .dlid = 0xC000, .slid = 7, .dqpn = 0xFFFFFF, .sqpn = 0x49, .qkey = 0xB1B, .grh = true },
	{ .dlid = 5, .slid = 7, .dqpn = 0x48, .sqpn = 0x49, .qkey = 0xB1B },
	{ .dlid = 5, .slid = 1, .dqpn = 1, .sqpn = 1, .qkey = UD_QP1_QKEY },
	{ .vl = 15, .dlid = 0xFFFF, .slid = 0xFFFF, .dqpn = 0, .sqpn = 0, .qkey = 0xB1B },
};

/* The node's heap state after bring_up (see the comment at the top). */
#define SNAP_BLOCKS 8
static struct snap_block {
	void *p;
	size_t n;
	uint8_t *saved;
} snap[SNAP_BLOCKS];
static unsigned n_snap;
static bool recording;
static long live_delta;   /* allocations minus frees during one input */
static uint64_t snap_now;
static uint8_t snap_out[UD_MAX_PKT];
static size_t snap_len;

static pthread_t fuzz_thread;   /* libFuzzer's other threads (timeouts, RSS) are not counted */

static void on_malloc(const volatile void *p, size_t n)
{
	if (!pthread_equal(pthread_self(), fuzz_thread))
		return;
	if (recording) {
		if (n_snap == SNAP_BLOCKS)
			abort();
		snap[n_snap].p = (void *)p;
		snap[n_snap++].n = n;
	} else {
		live_delta++;
	}
}

static void on_free(const volatile void *p)
{
	if (!pthread_equal(pthread_self(), fuzz_thread))
		return;
	if (recording) {
		for (unsigned i = 0; i < n_snap; i++)
			if (snap[i].p == p)
				snap[i] = snap[--n_snap];
		return;
	}
	live_delta--;
	for (unsigned i = 0; i < n_snap; i++)
		if (snap[i].p == p)
			abort();   /* the node's own state freed: the restore would not be exact */
}

static void snapshot(void)
{
	fuzz_thread = pthread_self();
	recording = true;
	__sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
	bring_up();
	recording = false;
	for (unsigned i = 0; i < n_snap; i++) {
		snap[i].saved = malloc(snap[i].n);
		if (!snap[i].saved)
			abort();
		memcpy(snap[i].saved, snap[i].p, snap[i].n);
	}
	snap_now = now;
	memcpy(snap_out, last_out, sizeof(snap_out));
	snap_len = last_len;
}

static void restore(void)
{
	for (unsigned i = 0; i < n_snap; i++)
		memcpy(snap[i].p, snap[i].saved, snap[i].n);
	now = snap_now;
	memcpy(last_out, snap_out, sizeof(last_out));
	last_len = snap_len;
}

static void send_from_tun(void *ctx, const uint8_t *dgram, size_t len)
{
	(void)ctx;
	ipoib_node_send_ipv4(node, dgram, len, now);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (!node)
		snapshot();
	else
		restore();
	live_delta = 0;
	uint8_t mode = data[0] % 7;
	const uint8_t *d = data + 1;
	size_t n = size - 1;
	now += 10;
	switch (mode) {
	case 0:
		ipoib_node_packet_in(node, d, n, now);
		break;
	case 1:
	case 2:
	case 3:
	case 4: {
		struct ud_pkt p = targets[mode - 1];

		p.pkey = 0xFFFF;
		p.payload = d;
		p.payload_len = n;
		if (p.grh)
			ipoib_broadcast_mgid(p.dgid, 0xFFFF);
		inject(&p);
		break;
	}
	case 5:
		/* What the TUN gives: a bare datagram, and the same bytes as a read with a virtio-net
		 * header (checksum completion, TCP segmentation) whose datagrams go the same way. */
		ipoib_node_send_ipv4(node, d, n, now);
		{
			const char *why = "";
			(void)tun_gso_split(d, n, send_from_tun, NULL, &why);
		}
		break;
	case 6: {
		struct udp_dgram u;
		struct dhcp_msg m;
		struct tftp_msg t;
		struct tcp_seg seg;
		(void)tcp_parse(d, n, &seg, NULL);
		if (udp_parse(d, n, &u, NULL) == 0) {
			(void)dhcp_parse(u.data, u.len, &m, NULL);
			(void)tftp_parse(u.data, u.len, &t, NULL);
		}
		(void)dhcp_parse(d, n, &m, NULL);
		(void)tftp_parse(d, n, &t, NULL);
		break;
	}
	}
	ipoib_node_tick(node, now);
	if (live_delta != 0)
		abort();   /* the node kept (or lost) a heap block: the next restore would not be exact */
	return 0;
}

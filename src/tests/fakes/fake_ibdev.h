/* SPDX-License-Identifier: MIT */
/*
 * A software ib_device for testing the IB core and everything above it without a driver: two
 * ports on one in-memory "fabric", unicast and multicast delivery between the QPs of both ports,
 * local MADs answered from a per-port configuration, a small scripted SA (PathRecord,
 * MCMemberRecord Set/Delete) at the SM LID, injected events and faults, and a hook for a remote
 * peer that is not one of the two ports.
 */
#ifndef FAKE_IBDEV_H
#define FAKE_IBDEV_H

#include <ibboot/ib.h>

#define FAKE_MAX_QPS    16
#define FAKE_MAX_CQS    16
#define FAKE_CQ_RING    256
#define FAKE_RQ_RING    512     /* IPoIB's receive ring (IPOIB_RX_BUFS) fits */
#define FAKE_MAX_GROUPS 4
#define FAKE_MAX_PEERS  4

struct fake_port_cfg {
	enum ib_port_state state;
	uint8_t phys_state;
	uint16_t lid, sm_lid;
	uint8_t sm_sl;
	uint64_t gid_prefix, port_guid;
	uint16_t pkey;
	uint16_t pkeys[32];            /* P_Key table block 0 when pkeys[0] is set, else pkey alone */
	uint8_t width, speed, mtu_cap, neighbor_mtu;
};

struct fake_qp {
	struct ib_qp *qp;
	struct ib_buf rq[FAKE_RQ_RING];
	uint32_t rq_posted, rq_used;
	uint32_t sq_posted;
	union ib_gid mgid[FAKE_MAX_GROUPS];
	bool mgid_used[FAKE_MAX_GROUPS];
};

struct fake_cq {
	struct ib_cq *cq;
	struct ib_wc wc[FAKE_CQ_RING];
	uint32_t head, tail;
};

struct fake_sa_group {
	bool used;
	union ib_gid mgid;
	uint16_t mlid;
	uint32_t qkey;
	unsigned members;
};

struct fake_peer {
	bool used;
	union ib_gid gid;
	uint16_t lid;
};

struct fake_ibdev;
/* Called for every packet addressed to a LID that is no port's (unicast) and for every multicast
 * packet, with the payload as posted. */
typedef void (*fake_peer_rx_fn)(struct fake_ibdev *f, const struct ib_address_vector *av,
				uint32_t src_qpn, uint16_t slid, const uint8_t *data, size_t len);

struct fake_ibdev {
	struct ib_device dev;
	struct fake_port_cfg port[IB_MAX_PORTS];
	uint8_t node_guid[8];
	struct fake_qp qps[FAKE_MAX_QPS];
	struct fake_cq cqs[FAKE_MAX_CQS];
	struct ib_event events[16];
	unsigned n_events;
	uint32_t next_qpn;

	/* SA script */
	bool sa_enabled;
	unsigned sa_drop_next;           /* silently drop this many SA requests */
	uint16_t sa_status_override;     /* answer every SA request with this status (0 = off) */
	uint32_t group_qkey;             /* Q_Key of groups the SA creates (0x0B1B like OpenSM) */
	uint8_t group_mtu, group_rate, group_sl;
	struct fake_sa_group groups[FAKE_MAX_GROUPS];
	struct fake_peer peers[FAKE_MAX_PEERS];
	unsigned n_sa_requests, n_path_queries, n_mc_joins, n_mc_leaves;
	uint8_t last_sa_request[IB_MAD_SIZE];

	/* Faults */
	int mad_ifc_error;               /* local MADs fail with this (0 = off) */
	int open_error[IB_MAX_PORTS];    /* open(port) fails with this (0 = off) */
	int destroy_qp_error;            /* destroy_qp fails with this (0 = off): QP not in RESET */
	enum ib_wc_status send_error;    /* next send completes with this status */
	unsigned n_mad_ifc, n_dropped_no_rq, n_dropped_qkey;
	unsigned n_mad_ifc_port[IB_MAX_PORTS];

	fake_peer_rx_fn peer_rx;
	void *peer_priv;
	/* Sees every datagram that leaves a port (what a wire capture would show). */
	void (*capture)(struct fake_ibdev *f, unsigned port, const struct ib_address_vector *av,
			uint32_t src_qpn, const uint8_t *data, size_t len);
};

/* Two ports: port 1 ACTIVE at LID 0x11, port 2 DOWN; SM/SA at LID 1; prefix fe80::, GUIDs
 * 0002:c903:0000:1001 / 1002; SA groups Q_Key 0x0B1B, MTU 2048, rate 10 Gb/s. */
void fake_ibdev_init(struct fake_ibdev *f);
struct fake_ibdev *fake_of(struct ib_device *dev);
void fake_ibdev_port_event(struct fake_ibdev *f, unsigned port, enum ib_event_type type,
			   uint32_t flags);
/* Sends a datagram from "outside" (a remote peer at slid/src_qpn) to a LID:QPN of one of the two
 * ports; returns 0 if it was delivered into a receive buffer. */
int fake_ibdev_inject(struct fake_ibdev *f, const struct ib_address_vector *to, uint16_t slid,
		      uint32_t src_qpn, const union ib_gid *sgid, const uint8_t *data,
		      size_t len);
void fake_ibdev_add_peer(struct fake_ibdev *f, const union ib_gid *gid, uint16_t lid);
/* For the IPoIB programs (pcap-ipoib, bench-ibcore): adds the peer, registers f (already
 * initialised), brings ib0 up and gives it addr/24; ib0's ipoib, or NULL if any step failed. */
struct ipoib *fake_ibdev_ipoib_up(struct fake_ibdev *f, const union ib_gid *peer_gid,
				  uint16_t peer_lid, uint32_t addr);
void fake_port_gid(const struct fake_ibdev *f, unsigned port, union ib_gid *gid);
struct fake_sa_group *fake_ibdev_group(struct fake_ibdev *f, const union ib_gid *mgid);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The InfiniBand device abstraction: what an HCA driver (src/drivers/infiniband) provides to the
 * driver-independent IB core (src/net/infiniband), and the queue-pair API the core offers to the
 * upper layers (IPoIB, the MAD/SA client).
 *
 * Division of labour:
 *  - The driver owns hardware resources: it turns the core's requests (create a CQ of N entries, a
 *    UD QP with these rings, post this buffer) into firmware commands and WQEs, and decodes
 *    completions and events straight into the core's structs (struct ib_wc, struct ib_event). It
 *    knows nothing of MADs above MAD_IFC, of IPoIB or of port policy, and keeps no record of what
 *    a work request carries (the core does: struct ib_wq_slot).
 *  - The core owns objects and policy: struct ib_device / ib_port / ib_cq / ib_qp are allocated and
 *    freed by the core (the driver hangs its shadow state on drv_priv), it reads port attributes
 *    through the driver's local MAD (MAD_IFC), decides which port to use, runs the GSI MAD/SA
 *    client, refills receive rings and dispatches completions to the QP's owner.
 *  - Everything is polled: ib_poll() walks each device's EQ, then its CQs, then runs timers.
 *    Nothing is allocated per packet: receive buffers are a ring the core allocates when the QP is
 *    created and reposts as soon as the owner's callback returns; send buffers come from a per-QP
 *    pool allocated with the QP.
 *
 * A received packet: driver poll_cq (CQE → struct ib_wc) → ib_complete_recv (the WR's buffer,
 * minus the 40-byte GRH slot) → owner->recv (IPoIB, the MAD agent) → the protocol.
 *
 * Driver contract, in short:
 *   1. Allocate/prepare the HCA (reset, firmware, ICM, INIT_HCA, one memory key covering every
 *      buffer the core will post). Fill a struct ib_device (ib_device_init()), set ops, name,
 *      num_ports, drv_priv, and call ib_device_register().
 *   2. Implement the ops below. Every op returns 0 or a negative ibboot errno (<ibboot/errno.h>)
 *      and prints nothing on the fastpath (post/poll); slow-path errors may print.
 *   3. Before an OS handoff (or on remove) call ib_device_unregister(): the core destroys every QP
 *      and CQ through the ops and closes every port, after which the driver may CLOSE_HCA/reset.
 */
#ifndef IBBOOT_IB_H
#define IBBOOT_IB_H

#include <ibboot/compiler.h>

#define IB_MAX_PORTS   2
#define IB_MAD_SIZE    256     /* every MAD is exactly 256 bytes (IBA 13.4.1) */
#define IB_GRH_LEN     40      /* IBA 8.3: Global Route Header */
#define IB_GID_LEN     16
#define IB_QPN_MASK    0xffffffu
#define IB_MCAST_QPN   0xffffffu   /* IBA 10.8.1: destination QPN of every multicast packet */
#define IB_LID_PERMISSIVE 0xffffu
#define IB_MCAST_LID_BASE 0xc000u  /* IBA 4.1.3: LIDs 0xC000..0xFFFE are multicast */
#define IB_GSI_QKEY    0x80010000u /* IBA 13.4.6.1: the well-known Q_Key of QP1 */
#define IB_DEFAULT_PKEY 0xffffu
#define IB_PKEY_FULL_MEMBER 0x8000u  /* IBA 10.9.1.2: the membership bit of a P_Key */
#define IB_PKEY_TABLE_MAX 128        /* entries the core reads (ConnectX-3: 128) */

/* A buffer the HCA may read or write: CPU pointer, bus address, length (from dma_alloc()). */
struct ib_buf {
	void *va;
	uint64_t dma;
	size_t len;
};

/* A GID (IBA 4.1.1): 64-bit subnet prefix + 64-bit interface ID, big-endian as on the wire. */
union ib_gid {
	uint8_t raw[IB_GID_LEN];
	struct {
		uint8_t prefix[8];
		uint8_t guid[8];
	} s;
};

/* ---------------------------------------------------------------------------------------------- */
/* Ports                                                                                          */

/* PortInfo:PortState (IBA 14.2.5.6, table 146). */
enum ib_port_state {
	IB_PORT_NOP = 0,
	IB_PORT_DOWN = 1,
	IB_PORT_INIT = 2,
	IB_PORT_ARMED = 3,
	IB_PORT_ACTIVE = 4,
};

/* MTU codes (IBA 14.2.5.6 NeighborMTU/MTUCap, and PathRecord/MCMemberRecord MTU). */
enum ib_mtu {
	IB_MTU_256 = 1,
	IB_MTU_512 = 2,
	IB_MTU_1024 = 3,
	IB_MTU_2048 = 4,
	IB_MTU_4096 = 5,
};

/* What the core knows about one port; refreshed from PortInfo/PKeyTable/NodeInfo by local MAD. */
struct ib_port_attr {
	enum ib_port_state state;
	uint8_t phys_state;          /* PortPhysicalState: 2 = Polling, 3 = Disabled, 5 = LinkUp */
	uint16_t lid;
	uint8_t lmc;
	uint16_t sm_lid;
	uint8_t sm_sl;
	uint8_t subnet_timeout;      /* 4.096 µs * 2^n */
	uint8_t link_width_active;   /* 1 = 1X, 2 = 4X, 4 = 8X, 8 = 12X */
	uint8_t link_speed_active;   /* 1 = SDR 2.5, 2 = DDR 5, 4 = QDR 10 Gb/s per lane */
	uint8_t mtu_cap;             /* enum ib_mtu */
	uint8_t neighbor_mtu;        /* enum ib_mtu */
	uint32_t cap_mask;
	uint8_t gid_prefix[8];
	uint8_t port_guid[8];        /* from NodeInfo:PortGUID queried on this port */
	uint16_t pkey;               /* P_Key table entry 0 (full-member bit included) */
	/* The port's P_Key table (IBA 14.2.5.7) as read by PKeyTable Gets, block by block up to
	 * NodeInfo:PartitionCap (at most IB_PKEY_TABLE_MAX entries); 0 = an invalid entry. */
	uint16_t pkey_table[IB_PKEY_TABLE_MAX];
	uint16_t pkey_table_len;
};

struct ib_device;
struct ib_sa_client;
struct ib_mad_agent;
struct ib_port_policy;
struct ib_sma;

struct ib_port {
	struct ib_device *dev;
	uint8_t num;                 /* 1-based, as every IB attribute numbers ports */
	bool open;                   /* driver's open() succeeded */
	struct ib_port_attr attr;
	union ib_gid gid;            /* gid_prefix + port_guid, GID index 0 */
	/* Core state for this port (the driver must not touch these). */
	struct ib_mad_agent *mad;    /* GSI QP + transactions (ib_mad.c) */
	struct ib_sma *sma;          /* QP0: the SM's SMPs, answered through the mad op (ib_sma.c) */
	struct ib_sa_client *sa;     /* PathRecord cache, multicast groups (ib_sa.c) */
	struct ib_port_policy *policy;
	bool query_pending;          /* an event asked for PortInfo to be re-read */
	/* The partition the ULP (IPoIB) chose on this port: its P_Key as the table holds it and the
	 * table index; ulp_pkey 0 = none chosen, entry 0 is used (ib_port_pkey()). */
	uint16_t ulp_pkey;
	uint16_t ulp_pkey_index;
	bool mgmt_pending;           /* a management event that did not say what changed */
};

/* ---------------------------------------------------------------------------------------------- */
/* Completion queues                                                                              */

struct ib_cq {
	struct ib_device *dev;
	unsigned num_cqes;           /* chosen by the core; the driver may round up internally */
	uint32_t cqn;                /* set by the driver (for error messages) */
	void *drv_priv;
	struct ib_cq *next;          /* core: the device's list */
};

/* ---------------------------------------------------------------------------------------------- */
/* Queue pairs                                                                                    */

enum ib_qp_type {
	IB_QPT_SMI,   /* QP0 of a port: subnet management (the core's SMA, ib_sma.c) */
	IB_QPT_GSI,   /* QP1 of a port: general services (SA client), Q_Key 0x80010000 */
	IB_QPT_UD,    /* unreliable datagram (IPoIB) */
	IB_QPT_RC,    /* reserved for later: not created by the core today */
};

enum ib_qp_state {
	IB_QPS_RESET = 0,
	IB_QPS_INIT,
	IB_QPS_RTR,
	IB_QPS_RTS,
	IB_QPS_ERR,
};

struct ib_qp;
struct ib_wc;
struct ib_wq_slot;

/* Where a UD/GSI/SMI send goes (IBA 11.2.4.1 Address Handle + the datagram's QPN/Q_Key). */
struct ib_address_vector {
	uint32_t qpn;                /* destination QPN (IB_MCAST_QPN for multicast) */
	uint32_t qkey;               /* Q_Key to put in the DETH */
	uint16_t lid;                /* DLID (a multicast LID for groups) */
	uint8_t sl;
	uint8_t rate;                /* IBA static rate code as in PathRecord:Rate; 0 = port rate */
	bool gid_present;            /* send a GRH */
	union ib_gid gid;            /* DGID when gid_present */
	uint8_t hop_limit;
	uint8_t tclass;
	uint32_t flow_label;
	uint16_t pkey_index;         /* always 0 today */
};

/*
 * One work queue (send or receive) of a QP. num_wqes is a power of two chosen by the core; the core
 * posts at most num_wqes outstanding WRs, strictly in order, one WQE per WR, so a driver's ring of
 * at least num_wqes entries never overflows. A completion names its WR by wqe_index = the ordinal
 * of the WR on this queue modulo any multiple of num_wqes (the core masks it): for Hermon the CQE's
 * wqe_counter as it is, whatever size the driver's hardware ring has.
 */
struct ib_work_queue {
	unsigned num_wqes;
	struct ib_cq *cq;
	/* Core bookkeeping: */
	uint32_t posted;             /* WRs posted so far (wraps) */
	uint32_t completed;          /* WRs completed so far (wraps) */
	struct ib_wq_slot *slot;     /* [num_wqes]: what each outstanding WR carries (core-private) */
};

/* What the core tells the QP's owner (IPoIB, the MAD agent). Called from ib_poll(). */
struct ib_qp_owner_ops {
	/*
	 * A datagram arrived. data/len are the payload after the 40-byte GRH slot; grh is that slot
	 * when the packet carried a GRH, else NULL. The buffer belongs to the core again when this
	 * returns (it is reposted), so copy what must outlive the call.
	 */
	void (*recv)(struct ib_qp *qp, const struct ib_wc *wc, const uint8_t *grh,
		     uint8_t *data, size_t len);
	/* A send completed (status 0) or failed; buf returns to the QP's send pool after this. */
	void (*sent)(struct ib_qp *qp, void *cookie, int status);
};

struct ib_qp {
	struct ib_device *dev;
	struct ib_port *port;
	enum ib_qp_type type;
	enum ib_qp_state state;
	uint32_t qpn;                /* set by the driver: 0/1 for SMI/GSI, the hardware QPN for UD */
	uint32_t qkey;               /* current Q_Key (modify_qp IB_QP_MOD_QKEY changes it) */
	uint16_t pkey_index;         /* UD: the P_Key table index in the QP context (IBA 10.9.2) */
	struct ib_work_queue send;
	struct ib_work_queue recv;
	void *drv_priv;
	/* Core: buffers and owner. */
	struct ib_buf *recv_bufs;    /* [recv.num_wqes], each IB_GRH_LEN + recv_payload bytes */
	size_t recv_payload;
	struct ib_buf *send_bufs;    /* pool of send buffers */
	unsigned n_send_bufs;
	uint32_t send_free_mask;     /* bit i = send_bufs[i] is free (n_send_bufs <= 32) */
	const struct ib_qp_owner_ops *owner;
	void *owner_priv;
	struct ib_qp *next;          /* the device's list */
};

/* A send work request: one gather entry; UD/GSI/SMI need an address vector. Always signalled. */
struct ib_send_wr {
	const struct ib_address_vector *av;
	struct ib_buf sge;           /* sge.len = bytes to send */
};

/* A receive work request: one scatter entry. For UD/GSI/SMI the first IB_GRH_LEN bytes receive
 * the GRH whether or not the packet has one (IBA 11.4.1.2), the payload follows. */
struct ib_recv_wr {
	struct ib_buf sge;
};

/* Completion status. Anything but IB_WC_SUCCESS is an error; vendor_syndrome carries the
 * hardware's own code for the message (for Hermon: the error CQE's syndrome and vendor syndrome). */
enum ib_wc_status {
	IB_WC_SUCCESS = 0,
	IB_WC_LOC_LEN_ERR,
	IB_WC_LOC_QP_OP_ERR,
	IB_WC_LOC_PROT_ERR,
	IB_WC_WR_FLUSH_ERR,
	IB_WC_MW_BIND_ERR,
	IB_WC_BAD_RESP_ERR,
	IB_WC_LOC_ACCESS_ERR,
	IB_WC_REM_INV_REQ_ERR,
	IB_WC_REM_ACCESS_ERR,
	IB_WC_REM_OP_ERR,
	IB_WC_RETRY_EXC_ERR,
	IB_WC_RNR_RETRY_EXC_ERR,
	IB_WC_GENERAL_ERR,
};

struct ib_wc {
	struct ib_qp *qp;            /* the driver maps the CQE's QPN to its struct ib_qp */
	bool is_send;
	unsigned wqe_index;          /* see struct ib_work_queue */
	enum ib_wc_status status;
	uint8_t syndrome;            /* raw hardware syndrome (errors only) */
	uint8_t vendor_syndrome;
	uint32_t byte_len;           /* receive: bytes written, including the 40-byte GRH slot
				      * (the core strips it, nobody else) */
	uint32_t src_qpn;            /* receive (UD/GSI): the sender's QPN */
	uint16_t slid;
	uint8_t sl;
	bool grh_present;
	uint16_t pkey_index;
};

/* ---------------------------------------------------------------------------------------------- */
/* Events                                                                                         */

enum ib_event_type {
	IB_EVENT_PORT_CHANGE = 1,    /* port state changed: the core re-reads PortInfo */
	IB_EVENT_PORT_MGMT,          /* PortInfo attributes set by the SM (flags below; 0 = the
				      * driver cannot tell: the core compares PortInfo with what it
				      * read after the previous port event, and nothing changed
				      * means ClientReregister) */
	IB_EVENT_CQ_ERROR,           /* overrun or access error on a CQ */
	IB_EVENT_QP_ERROR,           /* a QP entered the error state asynchronously */
	IB_EVENT_CATASTROPHIC,       /* the HCA is dead; syndrome says why */
};

/* IB_EVENT_PORT_MGMT flags (what changed). */
#define IB_MGMT_CLIENT_REREG  0x01u   /* PortInfo:ClientReregister set: rejoin everything (IBA 14.4.11) */
#define IB_MGMT_LID           0x02u
#define IB_MGMT_SM            0x04u   /* MasterSMLID / SMSL */
#define IB_MGMT_PKEY          0x08u
#define IB_MGMT_GID           0x10u

struct ib_event {
	enum ib_event_type type;
	uint8_t port;                /* 1-based; PORT_* events */
	uint32_t flags;              /* PORT_MGMT */
	struct ib_cq *cq;            /* CQ_ERROR */
	struct ib_qp *qp;            /* QP_ERROR */
	uint32_t syndrome;           /* CQ/QP errors, CATASTROPHIC */
};

/* ---------------------------------------------------------------------------------------------- */
/* The driver's operations                                                                        */

#define IB_QP_MOD_QKEY   0x1u    /* take qp->qkey */
#define IB_QP_MOD_STATE  0x2u    /* move to qp->state (RESET or ERR on teardown) */

struct ib_device_ops {
	/* Per port: INIT_PORT (and SET_PORT) / CLOSE_PORT. An unplugged port must open quickly and
	 * cost nothing afterwards; the core reads its state by local MAD. */
	int (*open)(struct ib_device *dev, unsigned port);
	void (*close)(struct ib_device *dev, unsigned port);

	/* cq->num_cqes is set; allocate the hardware CQ, set cq->cqn and cq->drv_priv. */
	int (*create_cq)(struct ib_device *dev, struct ib_cq *cq);
	void (*destroy_cq)(struct ib_device *dev, struct ib_cq *cq);

	/* type, port, qkey, send/recv num_wqes and CQs are set. Allocate the hardware QP, set qp->qpn
	 * and drv_priv, and bring it to RTS (UD/GSI/SMI need no peer). qp->state = IB_QPS_RTS. */
	int (*create_qp)(struct ib_device *dev, struct ib_qp *qp);
	int (*modify_qp)(struct ib_device *dev, struct ib_qp *qp, unsigned mod_mask);
	/* Moves the QP to RESET and frees it; outstanding WRs are dropped without completions.
	 * Non-zero when the QP could not be moved to RESET: the HCA may still write the QP's
	 * buffers, so the core keeps them (never reused) until the driver reports a device reset
	 * with ib_device_reset_done(). */
	int (*destroy_qp)(struct ib_device *dev, struct ib_qp *qp);

	/* Fastpath. -ENOSPC if the ring is full (the core never lets that happen). */
	int (*post_send)(struct ib_device *dev, struct ib_qp *qp, const struct ib_send_wr *wr);
	int (*post_recv)(struct ib_device *dev, struct ib_qp *qp, const struct ib_recv_wr *wr);
	/* Up to max completions into wc[]; returns how many (>= 0) or a negative error if the CQ is
	 * unusable. Error CQEs come back as completions with status != IB_WC_SUCCESS. */
	int (*poll_cq)(struct ib_device *dev, struct ib_cq *cq, struct ib_wc *wc, unsigned max);
	/* Up to max asynchronous events into ev[]; returns how many. The core calls it again until
	 * it returns 0. */
	int (*poll_eq)(struct ib_device *dev, struct ib_event *ev, unsigned max);

	/* Attach/detach a UD QP to a multicast group by MGID (the MLID is the SM's business). */
	int (*mcast_attach)(struct ib_device *dev, struct ib_qp *qp, const union ib_gid *mgid);
	void (*mcast_detach)(struct ib_device *dev, struct ib_qp *qp, const union ib_gid *mgid);

	/*
	 * Local MAD (MAD_IFC): hand the 256-byte MAD `in` to the port's firmware agents and copy the
	 * 256-byte response to `out`. Returns -EIO if the command failed; the MAD status in `out` is
	 * the core's business. Used for Get(NodeInfo/PortInfo/PKeyTable) and by the core's SMA, which
	 * hands the firmware every Get/Set the SM sends to QP0 (ib_sma.c). The driver owns QP0 and QP1
	 * (create_qp of IB_QPT_SMI/GSI), so the firmware sees the SM's SMPs only this way.
	 */
	int (*mad)(struct ib_device *dev, unsigned port, const void *in, void *out);
};

/* ---------------------------------------------------------------------------------------------- */
/* The device                                                                                     */

struct ib_device {
	const char *name;            /* "hermon0", for messages */
	const struct ib_device_ops *ops;
	void *drv_priv;
	unsigned num_ports;          /* 1..IB_MAX_PORTS */
	uint8_t node_guid[8];        /* filled by the core from NodeInfo if left zero */
	/* Driver, before ib_device_register: the device raises IB_EVENT_PORT_MGMT for every SM Set,
	 * those the SMA forwards through the mad op included (Hermon: QUERY_DEV_CAP PORT_MNG_CHG_EV).
	 * false: the core's SMA derives the events from the Sets it forwards (ib_smp_snoop). */
	bool port_mgmt_events;
	uint64_t (*clock_ms)(void);  /* core: time source; defaults to clock_ms() */
	struct ib_port port[IB_MAX_PORTS];
	/* Core: */
	bool registered;
	bool dead;                   /* catastrophic error reported: no longer polled */
	struct ib_cq *cqs;
	struct ib_qp *qps;
	/* QPs whose destroy failed: the HCA may still DMA into their buffers, so they are kept
	 * (not freed, not reused) until ib_device_reset_done(). */
	struct ib_qp *quarantine;
	struct ib_device *next;
};

/* -- What the driver calls -- */

/* Zeroes dev and links the ports back to it. */
void ib_device_init(struct ib_device *dev, const char *name, const struct ib_device_ops *ops,
		    unsigned num_ports, void *drv_priv);
/* Reads NodeInfo, opens every port, starts the port policy. 0 even when no port is up yet. */
int ib_device_register(struct ib_device *dev);
/* Leaves groups (best effort), destroys every QP and CQ, closes every port. Idempotent. */
void ib_device_unregister(struct ib_device *dev);
/* Driver, after a device reset that worked: nothing the core gave the HCA is reachable by it any
 * more, so the buffers of QPs whose destroy failed are freed. Without that reset they stay
 * allocated for good (an HCA that still holds them may write into them). */
void ib_device_reset_done(struct ib_device *dev);
/* Bytes of DMA memory held back by failed QP destroys (for diagnostics and tests). */
size_t ib_device_quarantined_bytes(const struct ib_device *dev);
/*
 * A SubnSet (PortInfo, P_KeyTable) the firmware accepted, as the core's SMA forwarded it: turns
 * ClientReregister and LID/SM/P_Key changes into port events (IBA 14.2.5.6). Returns the IB_MGMT_*
 * flags found (>= 0) or -EINVAL for a malformed SMP.
 */
int ib_smp_snoop(struct ib_device *dev, unsigned port, const uint8_t *smp, size_t len);

/* -- What the upper layers call (ib_core.c) -- */

struct ib_device *ib_devices(void);
/* One pass over every registered device: EQ, CQs, receive refill, MAD/SA/port timers. */
void ib_poll(void);
void ib_poll_device(struct ib_device *dev);
uint64_t ib_now_ms(const struct ib_device *dev);

struct ib_cq *ib_create_cq(struct ib_device *dev, unsigned num_cqes);
void ib_destroy_cq(struct ib_cq *cq);
/* Reaps one CQ (ib_poll_device does it for every CQ): each completion goes to its QP's owner,
 * each receive buffer straight back to its ring. */
void ib_poll_cq(struct ib_cq *cq);

struct ib_qp_config {
	enum ib_qp_type type;
	uint32_t qkey;
	uint16_t pkey_index;             /* UD: P_Key table index its sends use and receives match */
	unsigned send_wqes, recv_wqes;   /* rounded up to powers of two */
	size_t recv_payload;             /* bytes per receive buffer after the GRH slot */
	unsigned send_bufs;              /* send pool size (<= 32) */
	size_t send_buf_size;
	struct ib_cq *send_cq, *recv_cq;
	const struct ib_qp_owner_ops *owner;
	void *owner_priv;
};
/* Creates, fills and posts the receive ring. NULL (with a console message) on failure. */
struct ib_qp *ib_create_qp(struct ib_port *port, const struct ib_qp_config *cfg);
void ib_destroy_qp(struct ib_qp *qp);
int ib_modify_qkey(struct ib_qp *qp, uint32_t qkey);
/* Takes a free buffer from the QP's send pool (NULL if all are in flight). */
struct ib_buf *ib_send_buf_get(struct ib_qp *qp);
void ib_send_buf_put(struct ib_qp *qp, struct ib_buf *buf);
/* Posts len bytes of a pool buffer; the buffer returns to the pool on completion (after
 * owner->sent). On error the buffer is returned at once. */
int ib_post_send(struct ib_qp *qp, const struct ib_address_vector *av, struct ib_buf *buf,
		 size_t len, void *cookie);
int ib_mcast_attach(struct ib_qp *qp, const union ib_gid *mgid);
void ib_mcast_detach(struct ib_qp *qp, const union ib_gid *mgid);

/* Re-reads PortInfo/PKeyTable/NodeInfo of a port by local MAD. */
int ib_port_query(struct ib_port *port);
/* The P_Key SA requests and ULPs use on a port: the ULP's choice, else table entry 0. */
uint16_t ib_port_pkey(const struct ib_port *port);
/*
 * Index of pkey in the port's table: the first full-member entry with the same low 15 bits, else
 * the first limited one (IBA 10.9.1.2); -ENOENT if none. The caller reads the entry's membership.
 */
int ib_port_pkey_index(const struct ib_port *port, uint16_t pkey);

/* Names for messages. */
const char *ib_port_state_name(enum ib_port_state st);
const char *ib_wc_status_name(enum ib_wc_status st);
/* "fe80:0000:0000:0000:0002:c903:0000:1234" into buf (>= 40 bytes). */
char *ib_gid_format(const union ib_gid *gid, char *buf, size_t size);
/* MTU code -> bytes (0 for an invalid code); static rate code -> Mb/s (0 for unknown). */
unsigned ib_mtu_bytes(unsigned mtu_code);
unsigned ib_rate_mbps(unsigned rate_code);

#endif

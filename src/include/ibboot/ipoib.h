/* SPDX-License-Identifier: MIT */
/*
 * IPoIB over UD (RFC 4391): the 4-byte encapsulation header, 20-byte link addresses, ARP with
 * hardware type 32, the IPv4 broadcast group, and net_devices over IB ports: "ib0" on the port the
 * port policy chooses, and any number of interfaces pinned to ports of their own, each with its
 * own QP, broadcast membership and neighbour table.
 */
#ifndef IBBOOT_IPOIB_H
#define IBBOOT_IPOIB_H

#include <ibboot/config.h>
#include <ibboot/ib.h>
#include <ibboot/net.h>

#define IPOIB_HDR_LEN       4      /* RFC 4391 §6: type (2) + reserved (2) */
#define IPOIB_ALEN          20     /* RFC 4391 §9.1.1: flags/QPN (4) + GID (16) */
#define IPOIB_ARPHRD        32     /* ARPHRD_INFINIBAND */
#define IPOIB_ARP_LEN       56     /* 8 + 2 * (20 + 4) */
#define ARP_OP_REQUEST      1
#define ARP_OP_REPLY        2

/* Ring sizes, ARP retries and neighbour table size: config.h. */
#define IPOIB_PKEY_PROBES   16     /* P_Key table entries asked about per attach, at most */
#define IPOIB_BUF_PAYLOAD   4096   /* header + the largest datagram MTU (4092) */

/* Link address helpers: flags/QPN in the first 4 bytes (QPN is the low 24 bits), then the GID. */
static inline uint32_t ipoib_addr_qpn(const uint8_t *a)
{
	return (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
}
void ipoib_addr_make(uint8_t out[IPOIB_ALEN], uint32_t qpn, const union ib_gid *gid);

/* Header: returns 0 and the ethertype, or -EINVAL for a packet shorter than the header. */
int ipoib_parse_header(const uint8_t *buf, size_t len, uint16_t *ethertype, const char **why);

struct ipoib_arp {
	uint16_t op;
	uint8_t sha[IPOIB_ALEN];
	uint32_t spa;                  /* host order */
	uint8_t tha[IPOIB_ALEN];
	uint32_t tpa;
};
/* RFC 826 with RFC 4391 §8's values: hrd 32, pro 0x0800, hln 20, pln 4, op 1 or 2. */
int ipoib_arp_parse(const uint8_t *buf, size_t len, struct ipoib_arp *out, const char **why);
/* Writes IPOIB_ARP_LEN bytes; returns that or -ERANGE if size is too small. */
int ipoib_arp_build(uint8_t *buf, size_t size, const struct ipoib_arp *arp);

enum ipoib_neigh_state { NEIGH_FREE, NEIGH_ARP, NEIGH_PATH, NEIGH_VALID };

struct ipoib_neigh {
	enum ipoib_neigh_state state;
	uint32_t ip;
	uint8_t hwaddr[IPOIB_ALEN];
	struct ib_address_vector av;
	uint64_t used_ms, arp_sent_ms;
	uint64_t confirmed_ms;         /* last time its link address was (re)learnt or probed */
	unsigned arp_tries;
	struct net_buf *queue;         /* FIFO of packets waiting for resolution */
	unsigned qlen;
	struct ipoib *owner;
};

struct ipoib_stats {
	unsigned arp_requests_out, arp_replies_out, arp_in, arp_bad, arp_failed;
	unsigned queued, queue_drops, rx_own, rx_bad, restarts;
};

struct ipoib {
	struct net_device nd;
	struct ib_port *pin;           /* the port this interface stays on; NULL: the chosen port */
	struct ib_port *port;          /* the port it runs on now (NULL while down) */
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_mcast_group *bcast;
	union ib_gid bcast_mgid;
	struct ib_address_vector bcast_av;
	bool joined;
	bool restart;                  /* a send failed: the QP is in error, rebuild it */
	/* The partition (RFC 4391 §4): the setting ib-pkey, or the first table entry whose IPoIB
	 * broadcast group the SA knows (one MCMemberRecord Get per candidate, in table order). */
	int pkey_txn;                  /* the Get in flight (MAD handle), -1 none */
	unsigned pkey_probe;           /* table index it asks about */
	unsigned pkey_probes;          /* Gets sent for this attach (at most IPOIB_PKEY_PROBES) */
	uint32_t pkey_setting_gen;     /* setting_generation() when pkey_setting was last compared */
	uint64_t neigh_scan_ms;        /* the millisecond the neighbour timers were last looked at */
	struct ipoib_stats stats;
	struct ipoib *next;
	/* Arrays last: the fields above keep short offsets (smaller code). */
	char pkey_none[48];            /* "0xffff, 0x8002": P_Keys asked about that have no group */
	char pkey_setting[24];         /* ib-pkey as the last attach saw it ("" unset) */
	struct net_buf tx[IPOIB_TX_BUFS];   /* one header per send-pool buffer */
	struct ipoib_neigh neigh[IPOIB_NEIGHBOURS];
};

/*
 * A new IPoIB interface called name: on port (it comes up whenever that port is ACTIVE and goes
 * down with it), or with port NULL on the port the port policy chooses (ib_active_port()),
 * following it when the policy moves on. Its net_device is registered; NULL without memory.
 * Destroy it before the device its port belongs to goes away.
 */
struct ipoib *ipoib_create(const char *name, struct ib_port *port);
void ipoib_destroy(struct ipoib *ip);
/* The IPoIB interface a net_device is, or NULL. */
struct ipoib *ipoib_from_netdev(struct net_device *nd);

/* Start-up: "ib0" on the chosen port (once). */
void ipoib_init(void);
/* Destroys every IPoIB interface. */
void ipoib_exit(void);
/* The first IPoIB interface created (ib0 after ipoib_init), or NULL. */
struct ipoib *ipoib_instance(void);

#endif

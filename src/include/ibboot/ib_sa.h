/* SPDX-License-Identifier: MIT */
/*
 * SA client (IBA 15): PathRecord resolution with a per-port cache, and multicast group membership
 * by MCMemberRecord Set/Delete. Groups are standing requests: the client joins while the port is
 * ACTIVE, forgets the membership when the port goes down, and joins again when the port comes
 * back, after ClientReregister (IBA 14.4.11) or when the SM changes.
 */
#ifndef IBBOOT_IB_SA_H
#define IBBOOT_IB_SA_H

#include <ibboot/ib.h>
#include <ibboot/ib_mad.h>

#define IB_SA_PATH_CACHE     8
#define IB_SA_PATH_WAITERS   4
#define IB_SA_MAX_GROUPS     4
#define IB_SA_PENDING        1      /* ib_sa_path_lookup(): a query is in flight */

/* A resolved path (from a PathRecord, IBA 15.2.5.16). */
struct ib_path_info {
	union ib_gid dgid;
	uint16_t dlid;
	uint8_t sl;
	uint8_t rate;
	uint8_t mtu;
	uint8_t hop_limit;
	uint8_t tclass;
	uint32_t flow_label;
	uint16_t pkey;
};

/* The membership the SA granted (from the MCMemberRecord in the join response, IBA 15.2.5.17). */
struct ib_mcast_info {
	union ib_gid mgid;
	uint32_t qkey;
	uint16_t mlid;
	uint8_t mtu;
	uint8_t rate;
	uint8_t sl;
	uint8_t hop_limit;
	uint8_t tclass;
	uint32_t flow_label;
	uint16_t pkey;
};

typedef void (*ib_path_cb)(void *ctx, const union ib_gid *dgid, int status);

enum ib_group_state { IB_GROUP_IDLE, IB_GROUP_JOINING, IB_GROUP_JOINED, IB_GROUP_FAILED };

struct ib_mcast_group;
/* status 0: joined (g->info valid, the QP is attached); < 0: the join failed or was lost. */
typedef void (*ib_group_cb)(void *ctx, struct ib_mcast_group *g, int status);

struct ib_mcast_group {
	bool used;
	struct ib_port *port;
	enum ib_group_state state;
	struct ib_mcast_info info;   /* mgid always; the rest once joined */
	struct ib_qp *qp;            /* attached on join, detached on leave */
	bool attached;
	int txn;                     /* MAD handle while joining */
	unsigned joins;              /* successful joins so far (rejoins included) */
	uint64_t retry_at;           /* after a failure: when to try again */
	ib_group_cb cb;
	void *ctx;
};

struct ib_sa_client;

struct ib_path_entry {
	struct ib_sa_client *sa;
	enum { IB_PATH_FREE, IB_PATH_RESOLVING, IB_PATH_VALID } state;
	struct ib_path_info info;
	uint64_t used_ms;
	int txn;
	unsigned n_waiters;
	struct { ib_path_cb cb; void *ctx; } waiter[IB_SA_PATH_WAITERS];
};

struct ib_sa_stats {
	unsigned path_queries, path_hits, path_failures, joins, join_failures, leaves, rejoins;
};

struct ib_sa_client {
	struct ib_port *port;
	struct ib_path_entry path[IB_SA_PATH_CACHE];
	struct ib_mcast_group group[IB_SA_MAX_GROUPS];
	struct ib_sa_stats stats;
};

/*
 * Path to dgid. Returns 0 and fills *av (LID, SL, rate, GRH; qpn/qkey are the caller's) when the
 * path is cached; IB_SA_PENDING when a PathRecord query is under way (cb(ctx, dgid, status) is
 * called when it ends, then look up again); or a negative error (-ENODEV: port not active,
 * -ENOSPC: too many waiters).
 */
int ib_sa_path_lookup(struct ib_port *port, const union ib_gid *dgid,
		      struct ib_address_vector *av, ib_path_cb cb, void *ctx);
/* Forgets a waiter (its owner is going away). */
void ib_sa_path_cancel_waiter(struct ib_port *port, void *ctx);
void ib_sa_path_flush(struct ib_port *port);
/* Turns cached path info into an address vector (GRH when the DGID is off-subnet or hop > 1). */
void ib_sa_path_to_av(const struct ib_port *port, const struct ib_path_info *p,
		      struct ib_address_vector *av);

/*
 * Registers a group as full member (JoinState 1) for the port's P_Key. Joining starts at once if
 * the port is ACTIVE. cb is called after each join attempt, and with -ENETDOWN-like errors when the
 * membership is lost. NULL if the table is full.
 */
struct ib_mcast_group *ib_sa_join(struct ib_port *port, const union ib_gid *mgid,
				  struct ib_qp *qp, ib_group_cb cb, void *ctx);
/* Detaches, sends the Delete (best effort) and frees the slot. */
void ib_sa_leave(struct ib_mcast_group *g);
/* Asks the SA whether the group mgid exists in partition pkey (MCMemberRecord Get, no join).
 * done gets the response (parse it with ib_sa_parse_mcmember_response) or an error. Returns the
 * MAD handle (ib_mad_cancel) or a negative error. */
int ib_sa_group_get(struct ib_port *port, const union ib_gid *mgid, uint16_t pkey,
		    ib_mad_done_fn done, void *ctx);

/* A PathRecord Get from the port's GID to dgid (IBA 15.2.5.16), past the cache: done gets the
 * response (ib_sa_parse_path_response) or an error. Returns the MAD handle or a negative error. */
int ib_sa_path_get(struct ib_port *port, const union ib_gid *dgid, ib_mad_done_fn done,
		   void *ctx);

/* Wire parsers (also the fuzz targets' entry points). The MAD must be a GetResp/DeleteResp for
 * the right attribute with status 0 and a sane record. Return 0 or negative with *why set. */
int ib_sa_parse_path_response(const uint8_t *mad, size_t len, const union ib_gid *dgid,
			      struct ib_path_info *out, const char **why);
int ib_sa_parse_mcmember_response(const uint8_t *mad, size_t len, const union ib_gid *mgid,
				  struct ib_mcast_info *out, const char **why);
/* "no records", "request denied", ... for an SA/MAD status word. */
const char *ib_sa_status_name(uint16_t status);

/* The broadcast group MGID of IPoIB over IPv4 for a P_Key (RFC 4391 §4): ff12:401b:PPPP::ffff:ffff,
 * PPPP = P_Key with the full-membership bit set. */
void ib_ipv4_broadcast_mgid(union ib_gid *mgid, uint16_t pkey);

#endif

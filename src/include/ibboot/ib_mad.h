/* SPDX-License-Identifier: MIT */
/*
 * GSI MAD transactions (IBA 13.4): one agent per port owns the port's QP1, numbers requests with
 * random transaction IDs, retransmits on a doubling timeout and accepts a response only with an
 * outstanding TID, from the LID and QP the request went to, answering its method and attribute.
 */
#ifndef IBBOOT_IB_MAD_H
#define IBBOOT_IB_MAD_H

#include <ibboot/config.h>
#include <ibboot/ib.h>

#define IB_MAD_MAX_TXN        8
#define IB_MAD_FORGED_LOG     4   /* console lines about dropped forged responses, per agent */

/* status: 0 with the 256-byte response, or negative (-ETIMEDOUT, -ECANCELED, -EIO) and NULL. */
typedef void (*ib_mad_done_fn)(void *ctx, int status, const uint8_t *resp);

struct ib_mad_txn {
	bool busy;
	uint64_t tid;
	uint8_t req[IB_MAD_SIZE];
	struct ib_address_vector av;
	unsigned sends;
	unsigned timeout_ms;
	uint64_t deadline;
	ib_mad_done_fn done;
	void *ctx;
};

struct ib_mad_stats {
	unsigned requests, sends, retries, timeouts, responses, unmatched, malformed;
	unsigned forged;             /* an outstanding TID, but the wrong source, method or attribute */
};

struct ib_mad_agent {
	struct ib_port *port;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_mad_txn txn[IB_MAD_MAX_TXN];
	struct ib_mad_stats stats;
};

/*
 * Sends the request in `mad` (256 bytes, header filled; the TID is assigned here) to `av` and
 * calls done exactly once: with the matching response, or with an error after the retries.
 * Returns a handle (>= 0) for ib_mad_cancel(), or -ENOSPC (all transactions busy), -ENODEV.
 */
int ib_mad_request(struct ib_port *port, const uint8_t *mad, const struct ib_address_vector *av,
		   ib_mad_done_fn done, void *ctx);
/* Forgets a transaction without calling its done function. */
void ib_mad_cancel(struct ib_port *port, int handle);
/* Sends a MAD that expects no response (e.g. an SA Delete we do not wait for). */
int ib_mad_send_once(struct ib_port *port, const uint8_t *mad, const struct ib_address_vector *av);

/*
 * Checks a received GSI datagram before anything reads it: at least 256 bytes, BaseVersion 1,
 * a response method. Returns 0 or -EINVAL; *why gets a reason.
 */
int ib_mad_check_response(const uint8_t *buf, size_t len, const char **why);
/* The firmware's answer to a local SubnGet (MAD_IFC): GetResp for attr_id with status 0. */
int ib_smp_check_response(const uint8_t *resp, size_t len, uint16_t attr_id);

/* The address of the port's SA (SM LID, SM SL, QP1, the GSI Q_Key). */
void ib_sa_address(const struct ib_port *port, struct ib_address_vector *av);

/* What the port's SMA (QP0, ib_sma.c) did: SMPs received, answered (by the firmware through the
 * mad op, or by the agent itself: own_answers), Sets the firmware accepted, dropped ones and
 * failed MAD_IFC commands. */
struct ib_sma_stats {
	unsigned received, answered, own_answers, sets, dropped, mad_ifc_failed;
};
/* NULL when the port has no SMA (not open). */
const struct ib_sma_stats *ib_sma_stats(const struct ib_port *port);
/* The SMA's QP0 (NULL likewise). */
struct ib_qp *ib_sma_qp(const struct ib_port *port);

#endif

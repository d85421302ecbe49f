/* SPDX-License-Identifier: MIT */
/*
 * GSI MAD transactions. Each port has one agent: QP1 with a small receive ring, a fixed table of
 * outstanding requests, random 64-bit TIDs (nobody on the fabric can guess the TID of a request
 * it did not see), retransmission on a doubling timeout (IBA 13.4.6.4 leaves the policy to the
 * requester; iPXE's ~16 s total is the yardstick).
 *
 * A response completes a request only if all of these hold; otherwise it is counted and dropped
 * and the request keeps waiting for the real answer:
 *   - its TID is that of an outstanding request, and its class and class version are the request's;
 *   - it came from where the request went: SLID = the request's DLID and source QP = the
 *     request's destination QP (for the SA: the port's SM LID from PortInfo, QP1);
 *   - its method answers the request's (IBA 13.4.5: the R bit set; Set is answered by GetResp)
 *     and its AttributeID is the request's.
 * The Q_Key needs no check here: the HCA delivers to QP1 only datagrams carrying QP1's Q_Key
 * 0x80010000 (IBA 10.2.4, 13.4.6.1), and the completion does not carry it.
 */
#include <ibboot/ib_mad.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/random.h>
#include <ibboot/string.h>
#include <ibboot/wire/bytes.h>
#include <ibboot/wire/mad.h>

#include "ib_internal.h"


static struct ib_mad_agent *agent_of(const struct ib_port *port)
{
	return port->mad;
}

int ib_mad_check_response(const uint8_t *buf, size_t len, const char **why)
{
	const char *dummy;

	if (!why)
		why = &dummy;
	if (!buf || len < IB_MAD_SIZE) {
		*why = "shorter than a MAD";
		return -EINVAL;
	}
	if (buf[0] != IBLIB_MAD_BASE_VERSION) {
		*why = "bad MAD base version";
		return -EINVAL;
	}
	if (!iblib_mad_is_response(buf)) {
		*why = "not a response";
		return -EINVAL;
	}
	return 0;
}

void ib_sa_address(const struct ib_port *port, struct ib_address_vector *av)
{
	memset(av, 0, sizeof(*av));
	av->qpn = 1;
	av->qkey = IB_GSI_QKEY;
	av->lid = port->attr.sm_lid;
	av->sl = port->attr.sm_sl;
}

static void mad_finish(struct ib_mad_txn *t, int status, const uint8_t *resp)
{
	ib_mad_done_fn done = t->done;
	void *ctx = t->ctx;

	t->busy = false;
	if (done)
		done(ctx, status, resp);
}

/* IBA 13.4.5: a response carries the request's method with the R bit; Set is answered by GetResp. */
static uint8_t response_method(uint8_t req_method)
{
	return req_method == IBLIB_METHOD_SET ? IBLIB_METHOD_GET_RESP
					      : (uint8_t)(req_method | IBLIB_METHOD_RESP);
}

/* NULL if the response (TID already matched) may complete t, else what is wrong with it. */
static const char *response_mismatch(const struct ib_mad_txn *t, const struct ib_wc *wc,
				     const uint8_t *data)
{
	if (wc->slid != t->av.lid)
		return "wrong LID";
	if (wc->src_qpn != t->av.qpn)
		return "wrong QP";
	if (data[1] != t->req[1] || data[2] != t->req[2])
		return "wrong class/version";
	if (data[3] != response_method(t->req[3]))
		return "wrong method";
	if (get_be16(data + 16) != get_be16(t->req + 16))
		return "wrong attribute";
	return NULL;
}

static void drop_forged(struct ib_mad_agent *a, const struct ib_mad_txn *t,
			const struct ib_wc *wc, const uint8_t *data, const char *why)
{
	struct ib_port *port = a->port;

	a->stats.forged++;
	if (a->stats.forged > IB_MAD_FORGED_LOG)
		return;
	ib_port_log(port, "dropped MAD reply TID %#llx from LID %#06x QP %u (method %#04x "
		    "attr %#06x): %s; expected LID %#06x QP %u%s\n",
		    (unsigned long long)t->tid, wc->slid, wc->src_qpn, data[3],
		    get_be16(data + 16), why, t->av.lid, t->av.qpn,
		    a->stats.forged == IB_MAD_FORGED_LOG ? " (further drops counted)" : "");
}

static void mad_recv(struct ib_qp *qp, const struct ib_wc *wc, const uint8_t *grh, uint8_t *data,
		     size_t len)
{
	struct ib_mad_agent *a = qp->owner_priv;
	const char *why;
	uint64_t tid;

	(void)grh;
	if (ib_mad_check_response(data, len, &why) < 0) {
		/* Requests to us (e.g. an SA Report) are not answered: we subscribe to nothing. */
		a->stats.malformed++;
		return;
	}
	tid = get_be64(data + 8);
	for (unsigned i = 0; i < IB_MAD_MAX_TXN; i++) {
		struct ib_mad_txn *t = &a->txn[i];

		if (!t->busy || t->tid != tid)
			continue;
		why = response_mismatch(t, wc, data);
		if (why) {
			drop_forged(a, t, wc, data, why);
			return;
		}
		a->stats.responses++;
		mad_finish(t, 0, data);
		return;
	}
	a->stats.unmatched++;
}

static const struct ib_qp_owner_ops mad_owner = {
	.recv = mad_recv,
};

static int mad_transmit(struct ib_mad_agent *a, const uint8_t *mad, const struct ib_address_vector *av)
{
	struct ib_buf *buf = ib_send_buf_get(a->qp);

	if (!buf)
		return -ENOSPC;
	memcpy(buf->va, mad, IB_MAD_SIZE);
	a->stats.sends++;
	return ib_post_send(a->qp, av, buf, IB_MAD_SIZE, NULL);
}

/* A random TID (IBA 13.4.6.4 asks only that it be unique among the requester's outstanding
 * requests): one draw per request, retransmissions reuse it. */
static uint64_t new_tid(const struct ib_mad_agent *a)
{
	for (;;) {
		uint64_t tid = random_u64();
		bool taken = tid == 0;

		for (unsigned i = 0; i < IB_MAD_MAX_TXN && !taken; i++)
			taken = a->txn[i].busy && a->txn[i].tid == tid;
		if (!taken)
			return tid;
	}
}

int ib_mad_request(struct ib_port *port, const uint8_t *mad, const struct ib_address_vector *av,
		   ib_mad_done_fn done, void *ctx)
{
	struct ib_mad_agent *a = agent_of(port);
	struct ib_mad_txn *t = NULL;
	int handle = -1;

	if (!a)
		return -ENODEV;
	for (unsigned i = 0; i < IB_MAD_MAX_TXN; i++) {
		if (!a->txn[i].busy) {
			t = &a->txn[i];
			handle = (int)i;
			break;
		}
	}
	if (!t)
		return -ENOSPC;
	memset(t, 0, sizeof(*t));
	memcpy(t->req, mad, IB_MAD_SIZE);
	t->tid = new_tid(a);
	put_be64(t->req + 8, t->tid);
	t->av = *av;
	t->done = done;
	t->ctx = ctx;
	t->busy = true;
	t->timeout_ms = IB_MAD_FIRST_TIMEOUT;
	t->deadline = ib_now_ms(port->dev) + t->timeout_ms;
	t->sends = 1;
	a->stats.requests++;
	/* A failed first post is retried by the timer like a lost packet. */
	(void)mad_transmit(a, t->req, &t->av);
	return handle;
}

void ib_mad_cancel(struct ib_port *port, int handle)
{
	struct ib_mad_agent *a = agent_of(port);

	if (a && handle >= 0 && handle < IB_MAD_MAX_TXN)
		a->txn[handle].busy = false;
}

int ib_mad_send_once(struct ib_port *port, const uint8_t *mad, const struct ib_address_vector *av)
{
	struct ib_mad_agent *a = agent_of(port);
	uint8_t copy[IB_MAD_SIZE];

	if (!a)
		return -ENODEV;
	memcpy(copy, mad, IB_MAD_SIZE);
	put_be64(copy + 8, new_tid(a));
	return mad_transmit(a, copy, av);
}

void ib_mad_agent_tick(struct ib_port *port, uint64_t now)
{
	struct ib_mad_agent *a = agent_of(port);

	if (!a)
		return;
	for (unsigned i = 0; i < IB_MAD_MAX_TXN; i++) {
		struct ib_mad_txn *t = &a->txn[i];

		if (!t->busy || (int64_t)(now - t->deadline) < 0)
			continue;
		if (t->sends >= IB_MAD_MAX_SENDS) {
			a->stats.timeouts++;
			mad_finish(t, -ETIMEDOUT, NULL);
			continue;
		}
		t->sends++;
		t->timeout_ms *= 2;
		t->deadline = now + t->timeout_ms;
		a->stats.retries++;
		(void)mad_transmit(a, t->req, &t->av);
	}
}

void ib_mad_agent_cancel_all(struct ib_port *port, int status)
{
	struct ib_mad_agent *a = agent_of(port);

	if (!a)
		return;
	for (unsigned i = 0; i < IB_MAD_MAX_TXN; i++)
		if (a->txn[i].busy)
			mad_finish(&a->txn[i], status, NULL);
}

int ib_mad_agent_create(struct ib_port *port)
{
	struct ib_device *dev = port->dev;
	struct ib_mad_agent *a = kzalloc(sizeof(*a));
	struct ib_qp_config cfg = {
		.type = IB_QPT_GSI,
		.qkey = IB_GSI_QKEY,
		.send_wqes = IB_MAD_SEND_WQES,
		.recv_wqes = IB_MAD_RECV_WQES,
		.recv_payload = IB_MAD_SIZE,
		.send_bufs = IB_MAD_SEND_BUFS,
		.send_buf_size = IB_MAD_SIZE,
		.owner = &mad_owner,
	};

	if (!a)
		return -ENOMEM;
	a->port = port;
	/* The port's SMA (QP0) completes on this CQ too: room for both QPs' work requests. */
	a->cq = ib_create_cq(dev, IB_MAD_SEND_WQES + IB_MAD_RECV_WQES + IB_SMA_SEND_WQES +
				  IB_SMA_RECV_WQES);
	if (!a->cq)
		goto err;
	cfg.send_cq = cfg.recv_cq = a->cq;
	cfg.owner_priv = a;
	a->qp = ib_create_qp(port, &cfg);
	if (!a->qp)
		goto err_cq;
	port->mad = a;
	return 0;

err_cq:
	ib_destroy_cq(a->cq);
err:
	kfree(a);
	return -ENOMEM;
}

void ib_mad_agent_destroy(struct ib_port *port)
{
	struct ib_mad_agent *a = agent_of(port);

	if (!a)
		return;
	ib_mad_agent_cancel_all(port, -ECANCELED);
	ib_destroy_qp(a->qp);
	ib_destroy_cq(a->cq);
	kfree(a);
	port->mad = NULL;
}

/* SPDX-License-Identifier: MIT */
/*
 * The driver-independent IB core: device registry, CQ/QP objects with their preallocated buffer
 * rings, the poll loop (EQ, CQs, receive refill, timers) and port attribute queries through the
 * driver's local MAD. See <ibboot/ib.h> for the contract with the driver.
 */
#include <ibboot/ib.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>
#include <ibboot/wire/attrs.h>
#include <ibboot/wire/mad.h>
#include <ibboot/ib_mad.h>

#include "ib_internal.h"

#define IB_POLL_BATCH 8
#define IB_BUF_ALIGN  64

static struct ib_device *ib_dev_list;

struct ib_device *ib_devices(void)
{
	return ib_dev_list;
}

uint64_t ib_now_ms(const struct ib_device *dev)
{
	return (dev && dev->clock_ms) ? dev->clock_ms() : clock_ms();
}

/* ---- names and formatting ---- */

const char *ib_port_state_name(enum ib_port_state st)
{
	return str_nth_or("NOP\0DOWN\0INIT\0ARMED\0ACTIVE\0", (unsigned)st, "invalid");
}

const char *ib_wc_status_name(enum ib_wc_status st)
{
	/* A table, not str_nth_or: the completion paths that name a failed WQE stay as lean
	 * (bench-fastpath: the loop cost 7 instructions per received segment). */
	static const char *const names[] = {
		"success", "local length error", "local QP operation error",
		"local protection error", "work request flushed", "memory window bind error",
		"bad response", "local access error", "remote invalid request",
		"remote access error", "remote operation error", "transport retry exceeded",
		"RNR retry exceeded", "general error",
	};

	return (unsigned)st < ARRAY_SIZE(names) ? names[st] : "unknown status";
}

char *ib_gid_format(const union ib_gid *gid, char *buf, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	for (unsigned i = 0; i < IB_GID_LEN && o + 3 < size; i += 2) {
		if (i)
			buf[o++] = ':';
		for (unsigned j = i; j < i + 2 && o + 2 < size; j++) {
			buf[o++] = hex[gid->raw[j] >> 4];
			buf[o++] = hex[gid->raw[j] & 15];
		}
	}
	if (size)
		buf[o < size ? o : size - 1] = '\0';
	return buf;
}

unsigned ib_mtu_bytes(unsigned mtu_code)
{
	return (mtu_code >= IB_MTU_256 && mtu_code <= IB_MTU_4096) ? 128u << mtu_code : 0;
}

/* IBA 15.2.5.16 Table 205 rate codes (PathRecord/MCMemberRecord Rate). */
unsigned ib_rate_mbps(unsigned rate_code)
{
	static const unsigned mbps[] = {
		[2] = 2500, [3] = 10000, [4] = 30000, [5] = 5000, [6] = 20000, [7] = 40000,
		[8] = 60000, [9] = 80000, [10] = 120000, [11] = 14000, [12] = 56000,
		[13] = 112000, [14] = 168000, [15] = 25000, [16] = 100000, [17] = 200000,
		[18] = 300000,
	};

	return rate_code < ARRAY_SIZE(mbps) ? mbps[rate_code] : 0;
}

/* ---- local MADs (MAD_IFC) ---- */

/*
 * Checks the firmware's answer to a local SubnGet: a LID-routed SMP GetResp for the attribute we
 * asked, status 0. The firmware is trusted less than the spec: every field is verified.
 */
int ib_smp_check_response(const uint8_t *resp, size_t len, uint16_t attr_id)
{
	if (len < IBLIB_MAD_BYTES)
		return -EINVAL;
	if (resp[0] != IBLIB_MAD_BASE_VERSION || resp[1] != IBLIB_MCLASS_SUBN_LID ||
	    resp[2] != IBLIB_SMP_CLASS_VERSION)
		return -EINVAL;
	if (iblib_mad_method(resp) != IBLIB_METHOD_GET_RESP || iblib_mad_attr_id(resp) != attr_id)
		return -EINVAL;
	if (get_be16(resp + 4) != IBLIB_MAD_STATUS_OK)
		return -EIO;
	return 0;
}

static int ib_local_get(struct ib_port *port, uint16_t attr_id, uint32_t attr_mod,
			uint8_t data[IBLIB_SMP_DATA_BYTES])
{
	struct ib_device *dev = port->dev;
	uint8_t in[IB_MAD_SIZE], out[IB_MAD_SIZE];
	int rc;

	memset(in, 0, sizeof(in));
	memset(out, 0, sizeof(out));
	in[0] = IBLIB_MAD_BASE_VERSION;
	in[1] = IBLIB_MCLASS_SUBN_LID;
	in[2] = IBLIB_SMP_CLASS_VERSION;
	in[3] = IBLIB_METHOD_GET;
	put_be64(in + 8, 0x69626c6f63616c00ull | attr_id);   /* "iblocal": never on a wire */
	put_be16(in + 16, attr_id);
	put_be32(in + 20, attr_mod);
	rc = dev->ops->mad(dev, port->num, in, out);
	if (rc < 0) {
		ib_port_log(port, "local MAD attr 0x%04x: %s\n", attr_id, ib_strerror(rc));
		return rc;
	}
	rc = ib_smp_check_response(out, sizeof(out), attr_id);
	if (rc < 0) {
		ib_port_log(port, "bad local MAD reply: attr 0x%04x method 0x%02x status 0x%04x\n",
			    attr_id, out[3], get_be16(out + 4));
		return rc;
	}
	memcpy(data, out + IBLIB_SMP_DATA_OFF, IBLIB_SMP_DATA_BYTES);
	return 0;
}

/* Fills attr from a PortInfo attribute (IBA 14.2.5.6). */
static void ib_portinfo_decode(const uint8_t *pi, struct ib_port_attr *a)
{
	a->state = (enum ib_port_state)iblib_portinfo_port_state(pi);
	a->phys_state = (uint8_t)iblib_portinfo_port_phys_state(pi);
	a->lid = (uint16_t)iblib_portinfo_lid(pi);
	a->lmc = (uint8_t)iblib_portinfo_lmc(pi);
	a->sm_lid = (uint16_t)iblib_portinfo_master_sm_lid(pi);
	a->sm_sl = (uint8_t)iblib_portinfo_master_sm_sl(pi);
	a->subnet_timeout = (uint8_t)iblib_portinfo_subnet_timeout(pi);
	a->link_width_active = (uint8_t)iblib_portinfo_link_width_active(pi);
	a->link_speed_active = (uint8_t)iblib_portinfo_link_speed_active(pi);
	a->mtu_cap = (uint8_t)iblib_portinfo_mtu_cap(pi);
	a->neighbor_mtu = (uint8_t)iblib_portinfo_neighbor_mtu(pi);
	a->cap_mask = iblib_portinfo_capability_mask(pi);
	put_be64(a->gid_prefix, iblib_portinfo_gid_prefix(pi));
}

/* What differs between two snapshots, as IB_MGMT_* flags. */
void ib_port_log(const struct ib_port *port, const char *fmt, ...)
{
	va_list ap;

	kprintf("%s port %u: ", port->dev->name, port->num);
	va_start(ap, fmt);
	kvprintf(fmt, ap);
	va_end(ap);
}

uint32_t ib_port_query_changes(struct ib_port *port, const struct ib_port_attr *old)
{
	const struct ib_port_attr *a = &port->attr;
	uint32_t flags = 0;

	if (a->lid != old->lid || a->lmc != old->lmc)
		flags |= IB_MGMT_LID;
	if (a->sm_lid != old->sm_lid || a->sm_sl != old->sm_sl)
		flags |= IB_MGMT_SM;
	if (a->pkey != old->pkey || a->pkey_table_len != old->pkey_table_len ||
	    memcmp(a->pkey_table, old->pkey_table, sizeof(a->pkey_table)))
		flags |= IB_MGMT_PKEY;
	if (memcmp(a->gid_prefix, old->gid_prefix, 8) || memcmp(a->port_guid, old->port_guid, 8))
		flags |= IB_MGMT_GID;
	return flags;
}

int ib_port_query(struct ib_port *port)
{
	uint8_t data[IBLIB_SMP_DATA_BYTES];
	struct ib_port_attr a = port->attr;
	unsigned cap;
	int rc;

	rc = ib_local_get(port, IBLIB_SM_ATTR_PORT_INFO, port->num, data);
	if (rc < 0)
		return rc;
	ib_portinfo_decode(data, &a);
	if (a.state < IB_PORT_DOWN || a.state > IB_PORT_ACTIVE)
		a.state = IB_PORT_DOWN;   /* "no state change" (0) or junk: treat as down */

	/* The port GUID and P_Key only matter (and are only stable) once the link trained. */
	if (a.state >= IB_PORT_INIT) {
		rc = ib_local_get(port, IBLIB_SM_ATTR_NODE_INFO, 0, data);
		if (rc < 0)
			return rc;
		put_be64(a.port_guid, iblib_nodeinfo_port_guid(data));
		cap = iblib_nodeinfo_partition_cap(data);
		if (cap == 0)
			cap = 32;   /* no PartitionCap given: the one block every port has */
		if (cap > IB_PKEY_TABLE_MAX)
			cap = IB_PKEY_TABLE_MAX;
		memset(a.pkey_table, 0, sizeof(a.pkey_table));
		a.pkey_table_len = 0;
		/* 32 entries a block (IBA 14.2.5.7); a block after the first that the firmware will
		 * not read ends the table rather than the query. */
		for (unsigned blk = 0; blk * 32 < cap; blk++) {
			rc = ib_local_get(port, IBLIB_SM_ATTR_PKEY_TABLE, blk, data);
			if (rc < 0 && blk == 0)
				return rc;
			if (rc < 0)
				break;
			for (unsigned i = 0; i < 32 && blk * 32 + i < cap; i++)
				a.pkey_table[blk * 32 + i] = get_be16(data + 2 * i);
			a.pkey_table_len = (uint16_t)(blk * 32 + 32 < cap ? blk * 32 + 32 : cap);
		}
		a.pkey = a.pkey_table[0];
	}
	port->attr = a;
	memcpy(port->gid.s.prefix, a.gid_prefix, 8);
	memcpy(port->gid.s.guid, a.port_guid, 8);
	return 0;
}

/* NodeInfo on every open port: the node GUID (unless the driver set it) and each PortGUID, which
 * is known even on a port without link. */
static int ib_query_node_guid(struct ib_device *dev)
{
	static const uint8_t zero[8];
	uint8_t data[IBLIB_SMP_DATA_BYTES];
	int rc = -ENODEV;

	for (unsigned p = 0; p < dev->num_ports; p++) {
		struct ib_port *port = &dev->port[p];

		if (!port->open)
			continue;
		rc = ib_local_get(port, IBLIB_SM_ATTR_NODE_INFO, 0, data);
		if (rc < 0)
			return rc;
		if (!memcmp(dev->node_guid, zero, 8))
			put_be64(dev->node_guid, iblib_nodeinfo_node_guid(data));
		put_be64(port->attr.port_guid, iblib_nodeinfo_port_guid(data));
		memcpy(port->gid.s.guid, port->attr.port_guid, 8);
	}
	return rc;
}

/* ---- what the SM's Sets change (the SMA's QP0, ib_sma.c) ---- */

int ib_smp_snoop(struct ib_device *dev, unsigned port_num, const uint8_t *smp, size_t len)
{
	struct ib_port *port;
	const uint8_t *pi;
	uint32_t flags = 0;

	if (!dev || port_num < 1 || port_num > dev->num_ports)
		return -EINVAL;
	if (!smp || len < IBLIB_MAD_BYTES)
		return -EINVAL;
	if (smp[0] != IBLIB_MAD_BASE_VERSION || smp[2] != IBLIB_SMP_CLASS_VERSION ||
	    (smp[1] != IBLIB_MCLASS_SUBN_LID && smp[1] != IBLIB_MCLASS_SUBN_DR))
		return -EINVAL;
	if (iblib_mad_method(smp) != IBLIB_METHOD_SET)
		return 0;
	port = &dev->port[port_num - 1];
	pi = iblib_smp_cdata(smp);
	switch (iblib_mad_attr_id(smp)) {
	case IBLIB_SM_ATTR_PORT_INFO:
		if (iblib_portinfo_client_reregister(pi))
			flags |= IB_MGMT_CLIENT_REREG;
		if (iblib_portinfo_lid(pi) != port->attr.lid)
			flags |= IB_MGMT_LID;
		if (iblib_portinfo_master_sm_lid(pi) != port->attr.sm_lid)
			flags |= IB_MGMT_SM;
		break;
	case IBLIB_SM_ATTR_PKEY_TABLE:
		flags |= IB_MGMT_PKEY;
		break;
	default:
		return 0;
	}
	port->query_pending = true;
	if (flags && dev->registered)
		ib_policy_event(port, flags);
	return (int)flags;
}

/* ---- CQs ---- */

struct ib_cq *ib_create_cq(struct ib_device *dev, unsigned num_cqes)
{
	struct ib_cq *cq = kzalloc(sizeof(*cq));
	int rc;

	if (!cq)
		return NULL;
	cq->dev = dev;
	cq->num_cqes = num_cqes;
	rc = dev->ops->create_cq(dev, cq);
	if (rc < 0) {
		kprintf("%s: cannot create %u-entry CQ: %s\n", dev->name,
			num_cqes, ib_strerror(rc));
		kfree(cq);
		return NULL;
	}
	cq->next = dev->cqs;
	dev->cqs = cq;
	return cq;
}

void ib_destroy_cq(struct ib_cq *cq)
{
	struct ib_device *dev;

	if (!cq)
		return;
	dev = cq->dev;
	for (struct ib_cq **pp = &dev->cqs; *pp; pp = &(*pp)->next) {
		if (*pp == cq) {
			*pp = cq->next;
			break;
		}
	}
	dev->ops->destroy_cq(dev, cq);
	kfree(cq);
}

/* ---- QPs ---- */

static unsigned round_pow2(unsigned n)
{
	unsigned p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/* One DMA allocation sliced into n buffers of `size` bytes each. */
static struct ib_buf *ib_buf_array_alloc(unsigned n, size_t size)
{
	size_t stride = ALIGN_UP(size, (size_t)IB_BUF_ALIGN);
	struct ib_buf *bufs = kzalloc(n * sizeof(*bufs));
	uint8_t *mem;

	if (!bufs)
		return NULL;
	mem = dma_alloc(n * stride, IB_BUF_ALIGN);
	if (!mem) {
		kfree(bufs);
		return NULL;
	}
	for (unsigned i = 0; i < n; i++) {
		bufs[i].va = mem + i * stride;
		bufs[i].dma = virt_to_bus(mem + i * stride);
		bufs[i].len = size;
	}
	return bufs;
}

static void ib_buf_array_free(struct ib_buf *bufs, unsigned n)
{
	if (!bufs)
		return;
	if (n)
		dma_free(bufs[0].va, n * ALIGN_UP(bufs[0].len, (size_t)IB_BUF_ALIGN));
	kfree(bufs);
}

static size_t ib_buf_array_bytes(const struct ib_buf *bufs, unsigned n)
{
	return (bufs && n) ? n * ALIGN_UP(bufs[0].len, (size_t)IB_BUF_ALIGN) : 0;
}

/* The DMA memory of a QP's receive ring and send pool. */
static size_t ib_qp_buf_bytes(const struct ib_qp *qp)
{
	return ib_buf_array_bytes(qp->recv_bufs, qp->recv.num_wqes) +
	       ib_buf_array_bytes(qp->send_bufs, qp->n_send_bufs);
}

static void ib_qp_free_memory(struct ib_qp *qp)
{
	ib_buf_array_free(qp->recv_bufs, qp->recv.num_wqes);
	ib_buf_array_free(qp->send_bufs, qp->n_send_bufs);
	kfree(qp->send.slot);
	kfree(qp->recv.slot);
	kfree(qp);
}

static int ib_post_one_recv(struct ib_qp *qp)
{
	unsigned idx = qp->recv.posted & (qp->recv.num_wqes - 1);
	struct ib_recv_wr wr = { .sge = qp->recv_bufs[idx] };
	int rc;

	rc = qp->dev->ops->post_recv(qp->dev, qp, &wr);
	if (rc < 0)
		return rc;
	qp->recv.slot[idx].buf = &qp->recv_bufs[idx];
	qp->recv.posted++;
	return 0;
}

static void ib_refill_recv(struct ib_qp *qp)
{
	while (qp->recv.posted - qp->recv.completed < qp->recv.num_wqes) {
		if (ib_post_one_recv(qp) < 0)
			break;
	}
}

struct ib_qp *ib_create_qp(struct ib_port *port, const struct ib_qp_config *cfg)
{
	struct ib_device *dev = port->dev;
	struct ib_qp *qp = NULL;
	int rc = -EINVAL;

	if (cfg->send_bufs > 32 || !cfg->send_wqes || !cfg->recv_wqes || !cfg->send_cq ||
	    !cfg->recv_cq || cfg->type == IB_QPT_RC)
		goto err;
	rc = -ENOMEM;
	qp = kzalloc(sizeof(*qp));
	if (!qp)
		goto err;
	qp->dev = dev;
	qp->port = port;
	qp->type = cfg->type;
	qp->qkey = cfg->qkey;
	qp->pkey_index = cfg->pkey_index;
	qp->send.num_wqes = round_pow2(cfg->send_wqes);
	qp->recv.num_wqes = round_pow2(cfg->recv_wqes);
	qp->send.cq = cfg->send_cq;
	qp->recv.cq = cfg->recv_cq;
	qp->owner = cfg->owner;
	qp->owner_priv = cfg->owner_priv;
	qp->recv_payload = cfg->recv_payload;
	qp->send.slot = kzalloc(qp->send.num_wqes * sizeof(struct ib_wq_slot));
	qp->recv.slot = kzalloc(qp->recv.num_wqes * sizeof(struct ib_wq_slot));
	if (!qp->send.slot || !qp->recv.slot)
		goto err;
	qp->recv_bufs = ib_buf_array_alloc(qp->recv.num_wqes, IB_GRH_LEN + cfg->recv_payload);
	if (!qp->recv_bufs)
		goto err;
	if (cfg->send_bufs) {
		qp->send_bufs = ib_buf_array_alloc(cfg->send_bufs, cfg->send_buf_size);
		if (!qp->send_bufs)
			goto err;
		qp->n_send_bufs = cfg->send_bufs;
		qp->send_free_mask = cfg->send_bufs == 32 ? 0xffffffffu
							  : (1u << cfg->send_bufs) - 1;
	}
	rc = dev->ops->create_qp(dev, qp);
	if (rc < 0)
		goto err;
	qp->next = dev->qps;
	dev->qps = qp;
	ib_refill_recv(qp);
	return qp;

err:
	if (qp)
		ib_qp_free_memory(qp);
	ib_port_log(port, "cannot create QP: %s\n", ib_strerror(rc));
	return NULL;
}

void ib_destroy_qp(struct ib_qp *qp)
{
	struct ib_device *dev;

	if (!qp)
		return;
	dev = qp->dev;
	for (struct ib_qp **pp = &dev->qps; *pp; pp = &(*pp)->next) {
		if (*pp == qp) {
			*pp = qp->next;
			break;
		}
	}
	if (dev->ops->destroy_qp(dev, qp) != 0) {
		/* Not in RESET: the HCA may still write the receive ring or read the send pool, so
		 * that memory must not be handed out again (a downloaded image could land there).
		 * It waits, never reused, for a device reset (ib_device_reset_done). */
		kprintf("%s port %u: QP 0x%x did not stop; %zu bytes held until reset\n",
			dev->name, qp->port ? qp->port->num : 0, qp->qpn, ib_qp_buf_bytes(qp));
		qp->state = IB_QPS_ERR;
		qp->next = dev->quarantine;
		dev->quarantine = qp;
		return;
	}
	ib_qp_free_memory(qp);
}

void ib_device_reset_done(struct ib_device *dev)
{
	while (dev->quarantine) {
		struct ib_qp *qp = dev->quarantine;

		dev->quarantine = qp->next;
		ib_qp_free_memory(qp);
	}
}

size_t ib_device_quarantined_bytes(const struct ib_device *dev)
{
	size_t n = 0;

	for (const struct ib_qp *qp = dev->quarantine; qp; qp = qp->next)
		n += ib_qp_buf_bytes(qp);
	return n;
}

int ib_modify_qkey(struct ib_qp *qp, uint32_t qkey)
{
	uint32_t old = qp->qkey;
	int rc;

	if (qkey == old)
		return 0;
	qp->qkey = qkey;
	rc = qp->dev->ops->modify_qp(qp->dev, qp, IB_QP_MOD_QKEY);
	if (rc < 0) {
		qp->qkey = old;
		ib_port_log(qp->port, "cannot set Q_Key 0x%08x on QP 0x%06x: %s\n", qkey, qp->qpn,
			    ib_strerror(rc));
	}
	return rc;
}

struct ib_buf *ib_send_buf_get(struct ib_qp *qp)
{
	if (!qp->send_free_mask)
		return NULL;
	unsigned i = (unsigned)__builtin_ctz(qp->send_free_mask);

	qp->send_free_mask &= ~(1u << i);
	return &qp->send_bufs[i];
}

void ib_send_buf_put(struct ib_qp *qp, struct ib_buf *buf)
{
	if (!buf || buf < qp->send_bufs || buf >= qp->send_bufs + qp->n_send_bufs)
		return;
	qp->send_free_mask |= 1u << (unsigned)(buf - qp->send_bufs);
}

int ib_post_send(struct ib_qp *qp, const struct ib_address_vector *av, struct ib_buf *buf,
		 size_t len, void *cookie)
{
	unsigned idx;
	struct ib_send_wr wr;
	int rc;

	if (len > buf->len) {
		ib_send_buf_put(qp, buf);
		return -EINVAL;
	}
	if (qp->send.posted - qp->send.completed >= qp->send.num_wqes) {
		ib_send_buf_put(qp, buf);
		return -ENOSPC;
	}
	idx = qp->send.posted & (qp->send.num_wqes - 1);
	wr.av = av;
	wr.sge.va = buf->va;
	wr.sge.dma = buf->dma;
	wr.sge.len = len;
	qp->send.slot[idx].buf = buf;
	qp->send.slot[idx].cookie = cookie;
	rc = qp->dev->ops->post_send(qp->dev, qp, &wr);
	if (rc < 0) {
		qp->send.slot[idx].buf = NULL;
		ib_send_buf_put(qp, buf);
		return rc;
	}
	qp->send.posted++;
	return 0;
}

int ib_mcast_attach(struct ib_qp *qp, const union ib_gid *mgid)
{
	int rc = qp->dev->ops->mcast_attach(qp->dev, qp, mgid);
	char g[48];

	if (rc < 0)
		ib_port_log(qp->port, "cannot attach QP 0x%06x to group %s: %s\n", qp->qpn,
			    ib_gid_format(mgid, g, sizeof(g)), ib_strerror(rc));
	return rc;
}

void ib_mcast_detach(struct ib_qp *qp, const union ib_gid *mgid)
{
	qp->dev->ops->mcast_detach(qp->dev, qp, mgid);
}

/* ---- completions ---- */

/* The two completion lines the send and receive paths share: one the core cannot take (not the
 * WQE it waited for) and one that completed in error. */
#define IB_WC_STRAY "QP 0x%06x: stray %s WQE %u, expected %u\n"
#define IB_WC_FAILED "QP 0x%06x %s WQE %u failed: %s (syndrome 0x%02x, vendor 0x%02x)\n"

/*
 * The driver decoded the CQE into *wc; what the work request carried is the core's record (the
 * slot its ordinal names). A send gives its buffer back to the pool, a receive hands the owner the
 * payload after the 40-byte GRH slot - the one place that slot is stripped.
 */
static void ib_complete_send(struct ib_qp *qp, const struct ib_wc *wc)
{
	unsigned idx = wc->wqe_index & (qp->send.num_wqes - 1);
	unsigned expect = qp->send.completed & (qp->send.num_wqes - 1);
	struct ib_wq_slot *slot = &qp->send.slot[idx];
	struct ib_buf *buf = slot->buf;
	int status = 0;

	if (qp->send.posted == qp->send.completed || !buf || idx != expect) {
		ib_port_log(qp->port, IB_WC_STRAY, qp->qpn, "send", idx, expect);
		return;
	}
	if (wc->status != IB_WC_SUCCESS) {
		ib_port_log(qp->port, IB_WC_FAILED, qp->qpn, "send", idx,
			    ib_wc_status_name(wc->status), wc->syndrome, wc->vendor_syndrome);
		status = -EIO;
	}
	slot->buf = NULL;
	qp->send.completed++;
	if (qp->owner && qp->owner->sent)
		qp->owner->sent(qp, slot->cookie, status);
	ib_send_buf_put(qp, buf);
}

static void ib_complete_recv(struct ib_qp *qp, const struct ib_wc *wc)
{
	unsigned idx = wc->wqe_index & (qp->recv.num_wqes - 1);
	unsigned expect = qp->recv.completed & (qp->recv.num_wqes - 1);
	struct ib_buf *buf = qp->recv.slot[idx].buf;
	uint8_t *va;

	if (qp->recv.posted == qp->recv.completed || !buf || idx != expect) {
		ib_port_log(qp->port, IB_WC_STRAY, qp->qpn, "receive", idx, expect);
		return;
	}
	qp->recv.slot[idx].buf = NULL;
	qp->recv.completed++;
	va = buf->va;
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			ib_port_log(qp->port, IB_WC_FAILED, qp->qpn, "receive", idx,
				    ib_wc_status_name(wc->status), wc->syndrome,
				    wc->vendor_syndrome);
	} else if (wc->byte_len < IB_GRH_LEN || wc->byte_len > buf->len) {
		ib_port_log(qp->port, "QP 0x%06x: dropped %u-byte receive (buffer %zu)\n", qp->qpn,
			    (unsigned)wc->byte_len, buf->len);
	} else if (qp->owner && qp->owner->recv) {
		qp->owner->recv(qp, wc, wc->grh_present ? va : NULL, va + IB_GRH_LEN,
				wc->byte_len - IB_GRH_LEN);
	}
	/* The buffer goes straight back: the ring was full, so the next post is this very slot. */
	ib_refill_recv(qp);
}

static void ib_handle_event(struct ib_device *dev, const struct ib_event *ev)
{
	struct ib_port *port = NULL;

	if (ev->port >= 1 && ev->port <= dev->num_ports)
		port = &dev->port[ev->port - 1];
	switch (ev->type) {
	case IB_EVENT_PORT_CHANGE:
		if (port)
			port->query_pending = true;
		break;
	case IB_EVENT_PORT_MGMT:
		if (!port)
			break;
		port->query_pending = true;
		if (ev->flags)
			ib_policy_event(port, ev->flags);
		else
			port->mgmt_pending = true;   /* the next PortInfo read says what changed */
		break;
	case IB_EVENT_CQ_ERROR:
		kprintf("%s: CQ 0x%x error (syndrome 0x%x)\n", dev->name,
			ev->cq ? ev->cq->cqn : 0, ev->syndrome);
		break;
	case IB_EVENT_QP_ERROR:
		kprintf("%s: QP 0x%06x in error (syndrome 0x%x)\n",
			dev->name, ev->qp ? ev->qp->qpn : 0, ev->syndrome);
		if (ev->qp)
			ev->qp->state = IB_QPS_ERR;
		break;
	case IB_EVENT_CATASTROPHIC:
		kprintf("%s: catastrophic error (syndrome 0x%x): run fwdump, then reset the "
			"HCA; ports unused\n", dev->name, ev->syndrome);
		dev->dead = true;
		for (unsigned p = 0; p < dev->num_ports; p++)
			ib_policy_port_dead(&dev->port[p]);
		break;
	}
}

/* Completions go straight from the driver's decoder to the QP's owner. Inlined into the poll
 * loop: it runs for every CQ on every poll. */
static inline __attribute__((always_inline)) void ib_reap_cq(struct ib_device *dev,
							     struct ib_cq *cq)
{
	struct ib_wc wc[IB_POLL_BATCH];
	int n;

	do {
		n = dev->ops->poll_cq(dev, cq, wc, IB_POLL_BATCH);
		for (int i = 0; i < n; i++) {
			if (wc[i].is_send)
				ib_complete_send(wc[i].qp, &wc[i]);
			else
				ib_complete_recv(wc[i].qp, &wc[i]);
		}
	} while (n == IB_POLL_BATCH);
}

void ib_poll_cq(struct ib_cq *cq)
{
	ib_reap_cq(cq->dev, cq);
}

void ib_poll_device(struct ib_device *dev)
{
	struct ib_event ev[IB_POLL_BATCH];
	uint64_t now;
	int n;

	if (!dev->registered || dev->dead)
		return;
	do {
		n = dev->ops->poll_eq(dev, ev, IB_POLL_BATCH);
		for (int i = 0; i < n && !dev->dead; i++)
			ib_handle_event(dev, &ev[i]);
	} while (n > 0 && !dev->dead);
	if (dev->dead)
		return;
	for (struct ib_cq *cq = dev->cqs; cq; cq = cq->next)
		ib_reap_cq(dev, cq);
	/* Receives are reposted as they complete; this only catches a ring a failed post left
	 * short. */
	for (struct ib_qp *qp = dev->qps; qp; qp = qp->next)
		if (qp->recv.posted - qp->recv.completed < qp->recv.num_wqes)
			ib_refill_recv(qp);
	now = ib_now_ms(dev);
	for (unsigned p = 0; p < dev->num_ports; p++) {
		ib_policy_tick(&dev->port[p], now);
		ib_mad_agent_tick(&dev->port[p], now);
	}
}

void ib_poll(void)
{
	for (struct ib_device *dev = ib_dev_list; dev; dev = dev->next)
		ib_poll_device(dev);
}

/* ---- registration ---- */

void ib_device_init(struct ib_device *dev, const char *name, const struct ib_device_ops *ops,
		    unsigned num_ports, void *drv_priv)
{
	memset(dev, 0, sizeof(*dev));
	dev->name = name;
	dev->ops = ops;
	dev->drv_priv = drv_priv;
	dev->num_ports = num_ports > IB_MAX_PORTS ? IB_MAX_PORTS : num_ports;
	for (unsigned p = 0; p < IB_MAX_PORTS; p++) {
		dev->port[p].dev = dev;
		dev->port[p].num = (uint8_t)(p + 1);
		dev->port[p].attr.state = IB_PORT_DOWN;
		dev->port[p].attr.pkey = IB_DEFAULT_PKEY;
	}
}

static void ib_port_teardown(struct ib_port *port)
{
	ib_policy_destroy(port);
	ib_sa_client_destroy(port);
	ib_sma_destroy(port);         /* before the agent: its QP uses the agent's CQ */
	ib_mad_agent_destroy(port);
	if (port->open) {
		port->dev->ops->close(port->dev, port->num);
		port->open = false;
	}
}

int ib_device_register(struct ib_device *dev)
{
	int rc, usable = 0;

	if (!dev->ops || !dev->num_ports) {
		kprintf("ib: no ops or ports\n");
		return -EINVAL;
	}
	/* Ports are opened (INIT_PORT) before the first local MAD, as the firmware expects. */
	for (unsigned p = 0; p < dev->num_ports; p++) {
		struct ib_port *port = &dev->port[p];

		rc = dev->ops->open(dev, port->num);
		if (rc < 0) {
			ib_port_log(port, "cannot open: %s\n", ib_strerror(rc));
			continue;
		}
		port->open = true;
	}
	rc = ib_query_node_guid(dev);
	if (rc < 0)
		kprintf("%s: NodeInfo: %s; retried at port up\n",
			dev->name, ib_strerror(rc));
	dev->registered = true;
	dev->next = ib_dev_list;
	ib_dev_list = dev;
	for (unsigned p = 0; p < dev->num_ports; p++) {
		struct ib_port *port = &dev->port[p];

		if (!port->open)
			continue;
		/* QP0 right after QP1: once the driver owns them the SM gets no answer until the
		 * SMA's QP is ready to receive (its first SMPs are retried by the SM). */
		if (ib_mad_agent_create(port) < 0 || ib_sma_create(port, port->mad->cq) < 0 ||
		    ib_sa_client_create(port) < 0 || ib_policy_create(port) < 0) {
			ib_port_log(port, "out of memory\n");
			ib_port_teardown(port);
			continue;
		}
		port->query_pending = true;
		usable++;
	}
	if (!usable) {
		kprintf("%s: no usable port\n", dev->name);
		ib_device_unregister(dev);
		return -ENODEV;
	}
	return 0;
}

void ib_device_unregister(struct ib_device *dev)
{
	if (!dev->registered)
		return;
	/* ULPs are told first (ib_policy_destroy) so they leave groups while the QPs exist. */
	for (unsigned p = 0; p < dev->num_ports; p++)
		ib_port_teardown(&dev->port[p]);
	while (dev->qps)
		ib_destroy_qp(dev->qps);
	while (dev->cqs)
		ib_destroy_cq(dev->cqs);
	for (struct ib_device **pp = &ib_dev_list; *pp; pp = &(*pp)->next) {
		if (*pp == dev) {
			*pp = dev->next;
			break;
		}
	}
	dev->registered = false;
}

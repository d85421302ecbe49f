/* SPDX-License-Identifier: MIT */
/*
 * Work queues. The QP buffer holds both rings, described by the QPC's MTT base, page size and
 * page_offset (64-byte units); the ring with the larger stride comes first (equal strides: the
 * send queue first), as Linux mlx4 and iPXE lay them out. Strides are 16 << log_*_stride.
 *
 * Send queue: a WQE is valid when its ctrl owner bit equals bit log_sq_size of the device's
 * send counter (kept in QPC sq_wqe_counter), so stamped/unposted slots stop the engine. The
 * doorbell only names the QP; step() then runs every valid WQE.
 * Receive queue: software posts by bumping the doorbell record's counter (host memory); the
 * device consumes from QPC rq_wqe_counter. Receive WQEs are data segments only, ending at the
 * stride or at L_Key 0x100 (the invalid key drivers put in unused entries).
 */
#include <string.h>

#include "hcasim_int.h"
#include "tpt.h"
#include "xport.h"

#define QPC_BYTES HERMONPRM_QUEUE_PAIR_EE_CONTEXT_ENTRY_ST_BYTES
#define INVALID_LKEY 0x100u

void hcasim_wq_geom(const uint8_t *qpc, bool sq, struct hcasim_wq *w)
{
	unsigned sq_size = 1u << PRM_GET(queue_pair_ee_context_entry, log_sq_size, qpc);
	unsigned sq_stride = 16u << PRM_GET(queue_pair_ee_context_entry, log_sq_stride, qpc);
	unsigned rq_size = 1u << PRM_GET(queue_pair_ee_context_entry, log_rq_size, qpc);
	unsigned rq_stride = 16u << PRM_GET(queue_pair_ee_context_entry, log_rq_stride, qpc);
	bool rq_first = rq_stride > sq_stride;

	w->mtt = (uint64_t)PRM_GET(queue_pair_ee_context_entry, mtt_base_addr_h, qpc) << 32 |
		 (uint64_t)PRM_GET(queue_pair_ee_context_entry, mtt_base_addr_l, qpc) << 3;
	w->log_page = 12 + PRM_GET(queue_pair_ee_context_entry, log2_page_size, qpc);
	w->base = (uint64_t)PRM_GET(queue_pair_ee_context_entry, page_offset, qpc) * 64;
	if (sq) {
		w->size = sq_size;
		w->stride = sq_stride;
		w->base += rq_first ? (uint64_t)rq_size * rq_stride : 0;
	} else {
		w->size = rq_size;
		w->stride = rq_stride;
		w->base += rq_first ? 0 : (uint64_t)sq_size * sq_stride;
	}
}

/* Read len bytes of WQE `idx` (any running index) through the MTT, page by page. */
int hcasim_wq_read(struct hcasim *h, const struct hcasim_wq *w, uint32_t idx, void *buf, size_t len)
{
	uint64_t off = w->base + (uint64_t)(idx & (w->size - 1)) * w->stride;
	uint8_t *p = buf;

	while (len) {
		uint64_t pa, room = (1ull << w->log_page) - (off & ((1ull << w->log_page) - 1));
		size_t n = room < len ? (size_t)room : len;

		if (hcasim_mtt_translate(h, w->mtt, w->log_page, off, &pa) ||
		    hcasim_dma_read(h, pa, p, n) < 0)
			return -1;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

static uint64_t seg_va(const uint8_t *seg)
{
	return (uint64_t)PRM_GET(wqe_segment_data_ptr, local_address_h, seg) << 32 |
	       PRM_GET(wqe_segment_data_ptr, local_address_l, seg);
}

/* Moves len bytes between buf and the memory a data pointer segment's L_Key names at va, as the
 * TPT allows it under the QP's PD (local write to scatter, local read to gather). Returns 0, or
 * GATHER_ICM / GATHER_PROT for the completion. */
static int seg_access(struct hcasim *h, const uint8_t *qpc, const uint8_t *seg, uint64_t va,
		      size_t len, bool write, void *buf)
{
	uint32_t key = PRM_GET(wqe_segment_data_ptr, l_key, seg);
	int rc = hcasim_tpt_access(h, key, PRM_GET(queue_pair_ee_context_entry, pd, qpc), va,
				   (uint32_t)len, write ? ACC_LW : ACC_LR, write, buf);

	if (!rc)
		return 0;
	hcasim_refuse(h, "QP %#x: %s L_Key %#x va %#llx len %zu: %s",
		      PRM_GET(queue_pair_ee_context_entry, local_qpn_een, qpc),
		      write ? "scatter" : "gather", key, (unsigned long long)va, len,
		      hcasim_tpt_why(rc));
	return rc == TPT_ICM ? GATHER_ICM : GATHER_PROT;
}

/* Gather the data of a send WQE's segments [off, end): pointer segments through the TPT
 * (local read), inline segments (bit 31 of the first dword) from the WQE itself. */
int hcasim_gather(struct hcasim *h, const uint8_t *qpc, const uint8_t *wqe, size_t off, size_t end,
		  uint8_t *out, size_t cap, size_t *len)
{
	size_t n = 0;

	while (off + 4 <= end) {
		const uint8_t *seg = wqe + off;

		if (PRM_GET(wqe_segment_data_inline, always1, seg)) {
			size_t l = PRM_GET(wqe_segment_data_inline, byte_count, seg);

			if (off + 4 + l > end || n + l > cap)
				return GATHER_LENGTH;
			memcpy(out + n, seg + 4, l);
			n += l;
			off = (off + 4 + l + 15) & ~(size_t)15;
			continue;
		}
		if (off + 16 > end)
			break;
		size_t l = PRM_GET(wqe_segment_data_ptr, byte_count, seg);
		int rc;

		off += 16;
		if (!l)
			continue;
		if (n + l > cap)
			return GATHER_LENGTH;
		rc = seg_access(h, qpc, seg, seg_va(seg), l, false, out + n);
		if (rc)
			return rc;
		n += l;
	}
	*len = n;
	return 0;
}

/* Scatter `len` bytes of data into a receive WQE's segments, after skipping `skip` bytes of
 * the buffer space without writing (the GRH area of a packet that had no GRH). */
int hcasim_scatter(struct hcasim *h, const uint8_t *qpc, const uint8_t *wqe, size_t wqe_len,
		   const uint8_t *data, size_t len, size_t skip, size_t *written)
{
	size_t done = 0;

	for (size_t off = 0; off + 16 <= wqe_len && (done < len || skip); off += 16) {
		const uint8_t *seg = wqe + off;
		size_t room = PRM_GET(wqe_segment_data_ptr, byte_count, seg), n;
		uint64_t va = seg_va(seg);
		int rc;

		if (PRM_GET(wqe_segment_data_ptr, l_key, seg) == INVALID_LKEY)
			break;
		if (skip) {
			size_t s = skip < room ? skip : room;

			skip -= s;
			room -= s;
			va += s;
		}
		n = len - done < room ? len - done : room;
		if (!n)
			continue;
		rc = seg_access(h, qpc, seg, va, n, true, (void *)(data + done));
		if (rc)
			return rc;
		done += n;
	}
	if (written)
		*written = done;
	return done < len || skip ? GATHER_LENGTH : 0;
}

static uint64_t rq_db_pa(const uint8_t *qpc)
{
	return (uint64_t)PRM_GET(queue_pair_ee_context_entry, db_record_addr_h, qpc) << 32 |
	       (uint64_t)PRM_GET(queue_pair_ee_context_entry, db_record_addr_l, qpc) << 2;
}

/* Posted receive WQEs not yet consumed (doorbell record counter − device counter), or -1 when
 * the doorbell record cannot be read. */
int hcasim_rq_posted(struct hcasim *h, const uint8_t *qpc)
{
	uint8_t db[HERMONPRM_QP_DB_RECORD_ST_BYTES];

	if (hcasim_dma_read(h, rq_db_pa(qpc), db, sizeof(db)) < 0)
		return -1;
	return (uint16_t)(PRM_GET(qp_db_record, receive_wqe_counter, db) -
			  PRM_GET(queue_pair_ee_context_entry, rq_wqe_counter, qpc));
}

/* Take the next receive WQE: fills wqe (one stride) and *counter; advances the device counter
 * in qpc (the caller stores the context). Returns 0, 1 when none is posted, -1 on a bus error. */
int hcasim_rq_take(struct hcasim *h, uint8_t *qpc, uint16_t *counter, uint8_t *wqe, size_t *wqe_len)
{
	struct hcasim_wq w;
	int posted = hcasim_rq_posted(h, qpc);

	if (posted < 0)
		return -1;
	if (posted == 0)
		return 1;
	hcasim_wq_geom(qpc, false, &w);
	*counter = (uint16_t)PRM_GET(queue_pair_ee_context_entry, rq_wqe_counter, qpc);
	*wqe_len = w.stride > HCASIM_MAX_WQE ? HCASIM_MAX_WQE : w.stride;
	if (hcasim_wq_read(h, &w, *counter, wqe, *wqe_len) < 0)
		return -1;
	PRM_SET(queue_pair_ee_context_entry, rq_wqe_counter, qpc, (uint16_t)(*counter + 1));
	return 0;
}

/* Error state: every posted receive completes with a flush error (IBA 10.3.1: WR flushed),
 * sends are flushed as the engine reaches them. */
void hcasim_qp_to_error(struct hcasim *h, uint32_t qpn, uint8_t *qpc, const char *why)
{
	uint32_t rcq = PRM_GET(queue_pair_ee_context_entry, cqn_rcv, qpc);
	int posted;

	hcasim_refuse(h, "QP %#x to error: %s", qpn, why);
	QP_STATE(h, qpn) = QPS_ERR;
	QP_WAIT(h, qpn) = 0;
	PRM_SET(queue_pair_ee_context_entry, state, qpc, QPS_ERR);
	posted = hcasim_rq_posted(h, qpc);
	for (int i = 0; i < posted; i++) {
		struct hcasim_cqe_info ci = { .qpn = qpn, .error = true, .syndrome = HERMON_SYND_WR_FLUSH };

		ci.wqe_counter = (uint16_t)PRM_GET(queue_pair_ee_context_entry, rq_wqe_counter, qpc);
		PRM_SET(queue_pair_ee_context_entry, rq_wqe_counter, qpc, (uint16_t)(ci.wqe_counter + 1));
		hcasim_cq_post(h, rcq, &ci);
	}
	if (hcasim_qpc_store(h, qpn, qpc) < 0)
		hcasim_catastrophe(h, "QP context in unmapped ICM");
	hcasim_sq_doorbell(h, PRM_GET(queue_pair_ee_context_entry, usr_page, qpc), qpn);
}

void hcasim_sq_doorbell(struct hcasim *h, uint32_t uar_page, uint32_t qpn)
{
	uint8_t qpc[QPC_BYTES];

	if (h->fw != FW_HCA_UP || qpn > HCASIM_QPN_MAX || QP_STATE(h, qpn) == QPS_RST) {
		hcasim_refuse(h, "send doorbell for QP %#x ignored: no such QP in hardware", qpn);
		return;
	}
	if (hcasim_qpc_load(h, qpn, qpc) < 0)
		return;
	if (PRM_GET(queue_pair_ee_context_entry, local_qpn_een, qpc) != qpn) {
		hcasim_refuse(h, "send doorbell for QP %#x ignored: that context holds QP %#x", qpn,
			      PRM_GET(queue_pair_ee_context_entry, local_qpn_een, qpc));
		return;
	}
	/* A QP's doorbell must come through its own UAR page (the isolation UARs exist for). */
	if (PRM_GET(queue_pair_ee_context_entry, usr_page, qpc) != uar_page) {
		hcasim_refuse(h, "send doorbell for QP %#x through UAR page %u, QP owns page %u", qpn,
			      uar_page, PRM_GET(queue_pair_ee_context_entry, usr_page, qpc));
		return;
	}
	if (h->sq_count == h->sq_cap) {
		hcasim_refuse(h, "send doorbell for QP %#x dropped: doorbell FIFO full", qpn);
		return;
	}
	h->sq_ring[(h->sq_head + h->sq_count) % h->sq_cap] = qpn;
	h->sq_count++;
}

/* Complete the WQE at the send counter (success or error) and advance the counter. */
void hcasim_sq_complete(struct hcasim *h, uint32_t qpn, uint8_t *qpc, const uint8_t *ctrl,
			uint32_t bytes, unsigned syndrome)
{
	uint16_t counter = (uint16_t)PRM_GET(queue_pair_ee_context_entry, sq_wqe_counter, qpc);
	struct hcasim_cqe_info ci = { .qpn = qpn, .is_send = true, .wqe_counter = counter,
				      .opcode = PRM_GET(wqe_segment_ctrl_send, opcode, ctrl),
				      .byte_cnt = bytes };

	PRM_SET(queue_pair_ee_context_entry, sq_wqe_counter, qpc, (uint16_t)(counter + 1));
	if (syndrome) {
		ci.error = true;
		ci.syndrome = syndrome;
	}
	/* Unsignalled WQEs (c = 0) complete silently unless they fail (IBA 10.7.2.4). */
	if (syndrome || PRM_GET(wqe_segment_ctrl_send, c, ctrl))
		hcasim_cq_post(h, PRM_GET(queue_pair_ee_context_entry, cqn_snd, qpc), &ci);
}

void hcasim_sq_run(struct hcasim *h, uint32_t qpn)
{
	uint8_t qpc[QPC_BYTES], wqe[HCASIM_MAX_WQE];
	struct hcasim_wq w;
	unsigned state = QP_STATE(h, qpn);

	if (state != QPS_RTS && state != QPS_SQD && state != QPS_ERR)
		return; /* held until the QP reaches RTS */
	if (QP_WAIT(h, qpn) || hcasim_qpc_load(h, qpn, qpc) < 0)
		return;
	hcasim_wq_geom(qpc, true, &w);
	for (unsigned n = 0; n < w.size && QP_STATE(h, qpn) == state && !QP_WAIT(h, qpn); n++) {
		uint16_t counter = (uint16_t)PRM_GET(queue_pair_ee_context_entry, sq_wqe_counter, qpc);
		size_t len;
		int rc;

		if (hcasim_wq_read(h, &w, counter, wqe, 16) < 0) {
			hcasim_catastrophe(h, "send queue not translatable");
			return;
		}
		if (PRM_GET(wqe_segment_ctrl_send, owner, wqe) != ((counter & w.size) ? 1u : 0u))
			break; /* not posted (or stamped): the engine stops here */
		len = PRM_GET(wqe_segment_ctrl_send, ds, wqe) * 16u;
		if (len < 16)
			len = 16;
		if (len > w.stride)
			len = w.stride;
		if (hcasim_wq_read(h, &w, counter, wqe, len) < 0) {
			hcasim_catastrophe(h, "send queue not translatable");
			return;
		}
		if (state == QPS_ERR) {
			hcasim_sq_complete(h, qpn, qpc, wqe, 0, HERMON_SYND_WR_FLUSH);
			continue;
		}
		rc = hcasim_xport_send(h, qpn, qpc, wqe, len);
		if (rc == XMIT_WAIT)
			break;
	}
	if (hcasim_qpc_store(h, qpn, qpc) < 0)
		hcasim_catastrophe(h, "QP context in unmapped ICM");
}

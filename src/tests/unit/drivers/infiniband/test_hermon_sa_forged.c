/* SPDX-License-Identifier: MIT */
/*
 * Forged SA replies on the wire, through the whole receive path: the HCA model checks the Q_Key
 * and writes the CQE (SLID, source QP), the Hermon driver decodes it, the IB core hands the MAD
 * to the GSI agent. A rogue port that knows the TID of our PathRecord query answers from its own
 * LID, from a UD QP behind the SM's LID, with another attribute, and with the wrong Q_Key; none of
 * it resolves the path, and the SA's reply (SM LID, QP1) does.
 */
#include "test.h"
#include "hermon_rig.h"

#include <ibboot/errno.h>
#include <ibboot/ib.h>
#include <ibboot/ib_mad.h>
#include <ibboot/ib_sa.h>
#include <ibboot/wire/attrs.h>
#include <ibboot/wire/bytes.h>
#include <ibboot/wire/mad.h>
#include <ibboot/wire/packet.h>

#define ROGUE_LID 0x0033
#define SM_LID    0x0001   /* rig_sm_set_port's SM */

static int up_active(struct rig *r)
{
	int rc;

	if ((rc = rig_up(r)) != 0 || (rc = rig_sm_set_port(&r->h.ib, 1, 0x11, false)) != 0 ||
	    (rc = rig_sm_set_port(&r->h.ib, 2, 0x22, false)) != 0)
		return rc;
	rig_poll(r, 3);
	return r->h.ib.port[0].attr.state == IB_PORT_ACTIVE &&
	       r->h.ib.port[1].attr.state == IB_PORT_ACTIVE ? 0 : -EIO;
}

struct path_log {
	int calls, last_status;
};

static void path_cb(void *ctx, const union ib_gid *dgid, int status)
{
	struct path_log *l = ctx;

	(void)dgid;
	l->calls++;
	l->last_status = status;
}

/* A GetResp(PathRecord) for the request `req` saying dgid is at dlid, as a packet on the wire from
 * slid:src_qp with qkey, delivered to port 1 (LID 0x11, QP1); then a few poll rounds. */
static void answer(struct rig *r, const uint8_t *req, const union ib_gid *dgid, uint16_t dlid,
		   uint16_t slid, uint32_t src_qp, uint32_t qkey, uint16_t attr)
{
	static uint8_t mad[IB_MAD_SIZE], pkt[512];
	struct iblib_path_record pr;
	struct iblib_pkt p = { 0 };
	int n;

	memcpy(mad, req, IB_MAD_SIZE);
	mad[3] = IBLIB_METHOD_GET_RESP;
	put_be16(mad + 4, 0);
	put_be16(mad + 16, attr);
	memset(&pr, 0, sizeof(pr));
	memcpy(pr.dgid.raw, dgid->raw, 16);
	memcpy(pr.sgid.raw, r->h.ib.port[0].gid.raw, 16);
	pr.dlid = dlid;
	pr.slid = 0x11;
	pr.mtu = IB_MTU_2048;
	pr.rate = 3;
	pr.pkey = 0xffff;
	memset(mad + IBLIB_SA_DATA_OFF, 0, IBLIB_SA_DATA_BYTES);
	iblib_path_record_put(mad + IBLIB_SA_DATA_OFF, &pr);
	p.lrh.dlid = 0x11;
	p.lrh.slid = slid;
	p.bth.opcode = IBLIB_OP_UD_SEND_ONLY;
	p.bth.pkey = 0xffff;
	p.bth.dest_qp = 1;
	p.deth.qkey = qkey;
	p.deth.src_qp = src_qp;
	n = iblib_pkt_build(pkt, sizeof(pkt), &p, mad, IB_MAD_SIZE);
	CHECK(n > 0);
	if (n > 0)
		hcasim_packet_in(r->sim, 1, pkt, (size_t)n);
	rig_poll(r, 3);
}

TEST(hermon_forged_path_record_on_the_wire_is_ignored)
{
	static uint8_t req[IB_MAD_SIZE];
	struct rig r;
	struct path_log log = { 0 };
	struct ib_address_vector av;
	struct hcasim_port_stats ps;
	struct iblib_pkt out;
	struct ib_mad_agent *a;
	union ib_gid dgid;
	uint64_t bad_qkey;

	CHECK_EQ(up_active(&r), 0);
	a = r.h.ib.port[0].mad;
	dgid = r.h.ib.port[1].gid;   /* the path to port 2 (LID 0x22) */
	r.last_len = 0;
	CHECK_EQ(ib_sa_path_lookup(&r.h.ib.port[0], &dgid, &av, path_cb, &log), IB_SA_PENDING);
	rig_poll(&r, 1);
	/* the query on the wire: to the SM's LID, QP1; its TID is what a sniffer would learn */
	CHECK_EQ(iblib_pkt_parse(r.last, r.last_len, &out, 0), 0);
	CHECK_EQ(out.lrh.dlid, SM_LID);
	CHECK_EQ(out.bth.dest_qp, 1);
	memcpy(req, r.last + out.payload_off, IB_MAD_SIZE);
	CHECK_EQ(req[1], IBLIB_MCLASS_SUBN_ADM);

	/* the rogue's LID */
	answer(&r, req, &dgid, ROGUE_LID, ROGUE_LID, 1, IB_GSI_QKEY, IBLIB_SA_ATTR_PATH_RECORD);
	CHECK_EQ(a->stats.forged, 1);
	/* the SM's LID, from a UD QP */
	answer(&r, req, &dgid, ROGUE_LID, SM_LID, 0x4a, IB_GSI_QKEY, IBLIB_SA_ATTR_PATH_RECORD);
	CHECK_EQ(a->stats.forged, 2);
	/* SM LID and QP1, but another attribute */
	answer(&r, req, &dgid, ROGUE_LID, SM_LID, 1, IB_GSI_QKEY, IBLIB_SA_ATTR_MCMEMBER_RECORD);
	CHECK_EQ(a->stats.forged, 3);
	/* all right but the Q_Key: the HCA drops it before any CQE */
	CHECK_EQ(hcasim_port_stats(r.sim, 1, &ps), 0);
	bad_qkey = ps.rx_bad_qkey;
	answer(&r, req, &dgid, ROGUE_LID, SM_LID, 1, 0x0b1b, IBLIB_SA_ATTR_PATH_RECORD);
	CHECK_EQ(hcasim_port_stats(r.sim, 1, &ps), 0);
	CHECK_EQ(ps.rx_bad_qkey, bad_qkey + 1);
	CHECK_EQ(a->stats.forged, 3);
	CHECK_EQ(log.calls, 0);

	/* the SA's answer */
	answer(&r, req, &dgid, 0x22, SM_LID, 1, IB_GSI_QKEY, IBLIB_SA_ATTR_PATH_RECORD);
	CHECK_EQ(log.calls, 1);
	CHECK_EQ(log.last_status, 0);
	CHECK_EQ(a->stats.responses, 1);
	memset(&av, 0, sizeof(av));
	CHECK_EQ(ib_sa_path_lookup(&r.h.ib.port[0], &dgid, &av, path_cb, &log), 0);
	CHECK_EQ(av.lid, 0x22);
	rig_destroy(&r);
}

/* SPDX-License-Identifier: MIT */
/*
 * SA replies forged by a rogue port on the fabric: it has seen (or guessed) the TID of our
 * PathRecord or MCMemberRecord request and answers first, from its own LID, from a QP that is not
 * QP1, with another attribute or method, or with the wrong Q_Key. Each forgery is dropped by the
 * production receive path (fake device -> ib_poll -> MAD agent) and the real SA's answer, which
 * arrives later, is the one taken. Also: MAD TIDs are random, not a counter.
 */
#include "test.h"
#include "ib_fixture.h"

#include <ibboot/errno.h>
#include <ibboot/ib.h>
#include <ibboot/ib_mad.h>
#include <ibboot/ib_sa.h>
#include <ibboot/wire/attrs.h>
#include <ibboot/wire/bytes.h>
#include <ibboot/wire/mad.h>

#define ROGUE_LID 0x0005
#define SM_LID    0x0001   /* the fake fabric's SM (fake_ibdev_init) */

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

struct join_log {
	int calls, last_status;
	struct ib_mcast_info info;
};

static void join_cb(void *ctx, struct ib_mcast_group *g, int status)
{
	struct join_log *l = ctx;

	l->calls++;
	l->last_status = status;
	if (status == 0)
		l->info = g->info;
}

static void port2_active(struct fake_ibdev *f)
{
	f->port[1].state = IB_PORT_ACTIVE;
	f->port[1].phys_state = 5;
}

/* The reply a forger builds from our request (as seen on the wire): same TID, GetResp, status 0. */
static void forge_from_request(const struct fake_ibdev *f, uint8_t *mad, uint8_t method,
			       uint16_t attr)
{
	memcpy(mad, f->last_sa_request, IB_MAD_SIZE);
	mad[3] = method;
	put_be16(mad + 4, 0);
	put_be16(mad + 16, attr);
}

/* Delivers mad to port 1's QP1 as if sent by slid:src_qpn with Q_Key qkey, then polls. */
static int inject(struct fake_ibdev *f, const uint8_t *mad, uint16_t slid, uint32_t src_qpn,
		  uint32_t qkey)
{
	struct ib_address_vector to = { .qpn = 1, .qkey = qkey, .lid = f->port[0].lid };
	int rc = fake_ibdev_inject(f, &to, slid, src_qpn, NULL, mad, IB_MAD_SIZE);

	ib_poll();
	return rc;
}

TEST(ib_sa_forged_path_records_are_ignored_and_the_real_one_taken)
{
	struct fake_ibdev *f = fx_setup(port2_active);
	struct path_log log = { 0 };
	struct ib_address_vector av;
	struct iblib_path_record pr;
	struct ib_mad_agent *a;
	union ib_gid dgid;
	uint8_t mad[IB_MAD_SIZE];
	unsigned qkey_drops;

	if (!f)
		return;
	a = f->dev.port[0].mad;
	fake_port_gid(f, 2, &dgid);
	f->sa_drop_next = 1;   /* the real SA misses the first send: the forger is first */
	test_console_clear();
	CHECK_EQ(ib_sa_path_lookup(&f->dev.port[0], &dgid, &av, path_cb, &log), IB_SA_PENDING);
	CHECK_EQ(f->n_sa_requests, 1);

	/* the forgery: the victim's GID now at the rogue's LID */
	forge_from_request(f, mad, IBLIB_METHOD_GET_RESP, IBLIB_SA_ATTR_PATH_RECORD);
	iblib_path_record_get(mad + IBLIB_SA_DATA_OFF, &pr);
	pr.dlid = ROGUE_LID;
	pr.slid = f->port[0].lid;
	pr.mtu = IB_MTU_2048;
	pr.rate = 3;
	pr.pkey = 0xffff;
	iblib_path_record_put(mad + IBLIB_SA_DATA_OFF, &pr);

	/* 1. right TID, from the rogue's own LID */
	CHECK_EQ(inject(f, mad, ROGUE_LID, 1, IB_GSI_QKEY), 0);
	CHECK_EQ(a->stats.forged, 1);
	CHECK(test_console_has("fake0 port 1: dropped MAD reply TID"));
	CHECK(test_console_has("from LID 0x0005 QP 1 (method 0x81 attr 0x0035): wrong LID; "
			       "expected LID 0x0001 QP 1"));
	/* 2. the SM's LID in the LRH, but sent from an ordinary UD QP */
	CHECK_EQ(inject(f, mad, SM_LID, 0x48, IB_GSI_QKEY), 0);
	CHECK_EQ(a->stats.forged, 2);
	CHECK(test_console_has("from LID 0x0001 QP 72 (method 0x81 attr 0x0035): wrong QP; expected LID 0x0001 QP 1"));
	/* 3. from the SM's LID and QP1 but for another attribute, or a method that does not answer */
	mad[3] = IBLIB_METHOD_GET_TABLE_RESP;
	CHECK_EQ(inject(f, mad, SM_LID, 1, IB_GSI_QKEY), 0);
	mad[3] = IBLIB_METHOD_GET_RESP;
	put_be16(mad + 16, IBLIB_SA_ATTR_MCMEMBER_RECORD);
	CHECK_EQ(inject(f, mad, SM_LID, 1, IB_GSI_QKEY), 0);
	put_be16(mad + 16, IBLIB_SA_ATTR_PATH_RECORD);
	CHECK_EQ(a->stats.forged, 4);
	CHECK(test_console_has("(further drops counted)"));
	/* 4. everything right but the Q_Key: the HCA does not deliver it to QP1 at all */
	qkey_drops = f->n_dropped_qkey;
	CHECK(inject(f, mad, SM_LID, 1, 0x0b1b) != 0);
	CHECK_EQ(f->n_dropped_qkey, qkey_drops + 1);
	/* none of them completed the request */
	CHECK_EQ(log.calls, 0);
	CHECK_EQ(a->stats.responses, 0);
	CHECK_EQ(a->stats.unmatched, 0);

	/* the retry reaches the real SA, whose answer is taken */
	fx_run(600, 100);
	CHECK_EQ(f->n_sa_requests, 2);
	CHECK_EQ(log.calls, 1);
	CHECK_EQ(log.last_status, 0);
	CHECK_EQ(a->stats.responses, 1);
	memset(&av, 0, sizeof(av));
	CHECK_EQ(ib_sa_path_lookup(&f->dev.port[0], &dgid, &av, path_cb, &log), 0);
	CHECK_EQ(av.lid, f->port[1].lid);   /* port 2's real LID, not the rogue's */
	/* a late forgery with the now-finished TID is merely unmatched */
	CHECK_EQ(inject(f, mad, ROGUE_LID, 1, IB_GSI_QKEY), 0);
	CHECK_EQ(a->stats.unmatched, 1);
	fx_teardown(f);
}

TEST(ib_sa_forged_mcmember_records_are_ignored_and_the_real_one_taken)
{
	struct fake_ibdev *f = fx_setup(NULL);
	struct join_log log = { 0 };
	struct iblib_mcmember_record mr;
	struct ib_mad_agent *a;
	struct fake_sa_group *g;
	union ib_gid mgid;
	uint8_t mad[IB_MAD_SIZE];

	if (!f)
		return;
	a = f->dev.port[0].mad;
	ib_ipv4_broadcast_mgid(&mgid, 0xffff);
	f->sa_drop_next = 1;
	(void)ib_sa_join(&f->dev.port[0], &mgid, NULL, join_cb, &log);
	CHECK_EQ(f->n_sa_requests, 1);

	/* the forgery: the broadcast group on the rogue's MLID, with the rogue's Q_Key */
	forge_from_request(f, mad, IBLIB_METHOD_GET_RESP, IBLIB_SA_ATTR_MCMEMBER_RECORD);
	iblib_mcmember_record_get(mad + IBLIB_SA_DATA_OFF, &mr);
	mr.mlid = 0xc0de;
	mr.qkey = 0x0badcafe;
	mr.mtu = IB_MTU_2048;
	mr.rate = 3;
	iblib_mcmember_record_put(mad + IBLIB_SA_DATA_OFF, &mr);
	CHECK_EQ(inject(f, mad, ROGUE_LID, 1, IB_GSI_QKEY), 0);     /* wrong SLID */
	CHECK_EQ(inject(f, mad, SM_LID, 0x48, IB_GSI_QKEY), 0);     /* wrong source QP */
	CHECK_EQ(a->stats.forged, 2);
	CHECK_EQ(log.calls, 0);

	fx_run(600, 100);
	CHECK_EQ(log.calls, 1);
	CHECK_EQ(log.last_status, 0);
	g = fake_ibdev_group(f, &mgid);
	CHECK(g != NULL);
	if (g) {
		CHECK_EQ(log.info.mlid, g->mlid);
		CHECK_EQ(log.info.qkey, g->qkey);
	}
	CHECK(log.info.mlid != 0xc0de);
	fx_teardown(f);
}

/* What leaves port 1's QP1. */
static struct {
	unsigned n;
	uint64_t tid[256];
} gsi;

static void gsi_capture(struct fake_ibdev *f, unsigned port, const struct ib_address_vector *av,
			uint32_t src_qpn, const uint8_t *data, size_t len)
{
	(void)f;
	(void)av;
	if (port != 1 || src_qpn != 1 || len != IB_MAD_SIZE || gsi.n >= 256)
		return;
	gsi.tid[gsi.n++] = get_be64(data + 8);
}

TEST(ib_mad_tids_are_random)
{
	struct fake_ibdev *f = fx_setup(NULL);
	struct ib_address_vector sa;
	uint8_t mad[IB_MAD_SIZE] = { IBLIB_MAD_BASE_VERSION, IBLIB_MCLASS_SUBN_ADM,
				     IBLIB_SA_CLASS_VERSION, IBLIB_METHOD_GET };
	unsigned same = 0, counting = 0, same_high = 0;

	if (!f)
		return;
	memset(&gsi, 0, sizeof(gsi));
	f->capture = gsi_capture;
	f->sa_enabled = false;
	ib_sa_address(&f->dev.port[0], &sa);
	for (unsigned i = 0; i < 256; i++) {
		CHECK_EQ(ib_mad_send_once(&f->dev.port[0], mad, &sa), 0);
		ib_poll();   /* the send completes, its buffer returns */
	}
	CHECK_EQ(gsi.n, 256);
	for (unsigned i = 1; i < gsi.n; i++) {
		same += gsi.tid[i] == gsi.tid[i - 1];
		counting += gsi.tid[i] == gsi.tid[i - 1] + 1;
		same_high += gsi.tid[i] >> 32 == gsi.tid[i - 1] >> 32;   /* no fixed GUID half */
	}
	CHECK_EQ(same, 0);
	CHECK_EQ(counting, 0);
	CHECK_EQ(same_high, 0);
	fx_teardown(f);
}

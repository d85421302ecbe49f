/* SPDX-License-Identifier: MIT */
/* Malformed input for the IB core's parsers: SA responses, local SMP answers, SM Set snooping. */
#include "test.h"
#include "ib_fixture.h"

#include <ibboot/errno.h>
#include <ibboot/ib_mad.h>
#include <ibboot/ib_sa.h>
#include <ibboot/ib_ulp.h>
#include <ibboot/wire/attrs.h>
#include <ibboot/wire/bytes.h>
#include <ibboot/wire/mad.h>

static const union ib_gid dgid = { .raw = { 0xfe, 0x80, [8] = 0x00, 0x02, 0xc9, 0x03, 0, 0, 0x10, 0x02 } };

static void sa_resp(uint8_t *mad, uint8_t method, uint16_t attr, uint16_t status)
{
	memset(mad, 0, IB_MAD_SIZE);
	mad[0] = 1;
	mad[1] = IBLIB_MCLASS_SUBN_ADM;
	mad[2] = IBLIB_SA_CLASS_VERSION;
	mad[3] = method;
	put_be16(mad + 4, status);
	put_be16(mad + 16, attr);
}

static void good_path(uint8_t *mad)
{
	struct iblib_path_record pr = { 0 };

	sa_resp(mad, IBLIB_METHOD_GET_RESP, IBLIB_SA_ATTR_PATH_RECORD, 0);
	memcpy(pr.dgid.raw, dgid.raw, 16);
	pr.dlid = 0x12;
	pr.mtu = IB_MTU_2048;
	pr.rate = 7;
	pr.sl = 2;
	iblib_path_record_put(mad + IBLIB_SA_DATA_OFF, &pr);
}

TEST(sa_path_response_parser)
{
	uint8_t mad[IB_MAD_SIZE];
	struct ib_path_info p;
	struct iblib_path_record pr;
	union ib_gid other = dgid;
	const char *why = NULL;

	good_path(mad);
	CHECK_EQ(ib_sa_parse_path_response(mad, sizeof(mad), &dgid, &p, &why), 0);
	CHECK_EQ(p.dlid, 0x12);
	CHECK_EQ(p.rate, 7);
	CHECK_EQ(p.sl, 2);
	CHECK_EQ(ib_sa_parse_path_response(mad, 255, &dgid, &p, &why), -EINVAL);
	CHECK_STR(why, "shorter than a MAD");
	other.raw[15] ^= 1;
	CHECK_EQ(ib_sa_parse_path_response(mad, sizeof(mad), &other, &p, &why), -EINVAL);
	CHECK_STR(why, "PathRecord for another GID");
	mad[1] = IBLIB_MCLASS_SUBN_LID;
	CHECK_EQ(ib_sa_parse_path_response(mad, sizeof(mad), &dgid, &p, &why), -EINVAL);
	CHECK_STR(why, "not an SA response");
	good_path(mad);
	mad[3] = IBLIB_METHOD_GET;   /* a request, not a response */
	CHECK_EQ(ib_sa_parse_path_response(mad, sizeof(mad), &dgid, &p, &why), -EINVAL);
	CHECK_STR(why, "not a response");
	good_path(mad);
	put_be16(mad + 16, IBLIB_SA_ATTR_MCMEMBER_RECORD);
	CHECK_EQ(ib_sa_parse_path_response(mad, sizeof(mad), &dgid, &p, &why), -EINVAL);
	CHECK_STR(why, "unexpected SA attribute");
	good_path(mad);
	put_be16(mad + 4, IBLIB_SA_STATUS_NO_RECORDS);
	CHECK_EQ(ib_sa_parse_path_response(mad, sizeof(mad), &dgid, &p, &why), -ENOENT);
	CHECK_STR(why, "no records");
	put_be16(mad + 4, IBLIB_MAD_STATUS_BUSY);
	CHECK_EQ(ib_sa_parse_path_response(mad, sizeof(mad), &dgid, &p, &why), -EIO);
	CHECK_STR(why, "SA busy");
	good_path(mad);
	iblib_path_record_get(mad + IBLIB_SA_DATA_OFF, &pr);
	pr.dlid = 0xc001;            /* multicast LID in a path */
	iblib_path_record_put(mad + IBLIB_SA_DATA_OFF, &pr);
	CHECK_EQ(ib_sa_parse_path_response(mad, sizeof(mad), &dgid, &p, &why), -EINVAL);
	pr.dlid = 0x12;
	pr.mtu = 9;
	iblib_path_record_put(mad + IBLIB_SA_DATA_OFF, &pr);
	CHECK_EQ(ib_sa_parse_path_response(mad, sizeof(mad), &dgid, &p, &why), -EINVAL);
	CHECK_STR(why, "PathRecord MTU invalid");
}

TEST(sa_mcmember_response_parser)
{
	uint8_t mad[IB_MAD_SIZE];
	struct iblib_mcmember_record mr = { 0 };
	struct ib_mcast_info m;
	union ib_gid mgid;
	const char *why = NULL;

	ib_ipv4_broadcast_mgid(&mgid, 0xffff);
	sa_resp(mad, IBLIB_METHOD_GET_RESP, IBLIB_SA_ATTR_MCMEMBER_RECORD, 0);
	memcpy(mr.mgid.raw, mgid.raw, 16);
	mr.qkey = 0xb1b;
	mr.mlid = 0xc000;
	mr.mtu = IB_MTU_2048;
	mr.rate = 3;
	iblib_mcmember_record_put(mad + IBLIB_SA_DATA_OFF, &mr);
	CHECK_EQ(ib_sa_parse_mcmember_response(mad, sizeof(mad), &mgid, &m, &why), 0);
	CHECK_EQ(m.qkey, 0xb1b);
	CHECK_EQ(m.mlid, 0xc000);
	mr.mlid = 0x0042;            /* unicast LID for a group */
	iblib_mcmember_record_put(mad + IBLIB_SA_DATA_OFF, &mr);
	CHECK_EQ(ib_sa_parse_mcmember_response(mad, sizeof(mad), &mgid, &m, &why), -EINVAL);
	CHECK_STR(why, "MCMemberRecord MLID not multicast");
	mr.mlid = 0xffff;            /* the permissive LID */
	iblib_mcmember_record_put(mad + IBLIB_SA_DATA_OFF, &mr);
	CHECK_EQ(ib_sa_parse_mcmember_response(mad, sizeof(mad), &mgid, &m, &why), -EINVAL);
	mr.mlid = 0xc000;
	mr.mtu = 0;
	iblib_mcmember_record_put(mad + IBLIB_SA_DATA_OFF, &mr);
	CHECK_EQ(ib_sa_parse_mcmember_response(mad, sizeof(mad), &mgid, &m, &why), -EINVAL);
	mr.mtu = IB_MTU_2048;
	mr.mgid.raw[15] = 0;         /* a different group */
	iblib_mcmember_record_put(mad + IBLIB_SA_DATA_OFF, &mr);
	CHECK_EQ(ib_sa_parse_mcmember_response(mad, sizeof(mad), &mgid, &m, &why), -EINVAL);
	CHECK_STR(why, "MCMemberRecord for another MGID");
	CHECK_EQ(ib_sa_parse_mcmember_response(mad, 10, &mgid, &m, &why), -EINVAL);
	CHECK_STR(ib_sa_status_name(IBLIB_SA_STATUS_REQ_DENIED), "request denied");
	CHECK_STR(ib_sa_status_name(IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR),
		  "method/attribute not supported");
}

TEST(smp_local_response_checks)
{
	uint8_t r[IB_MAD_SIZE] = { 1, IBLIB_MCLASS_SUBN_LID, 1, IBLIB_METHOD_GET_RESP };

	put_be16(r + 16, IBLIB_SM_ATTR_PORT_INFO);
	CHECK_EQ(ib_smp_check_response(r, sizeof(r), IBLIB_SM_ATTR_PORT_INFO), 0);
	CHECK_EQ(ib_smp_check_response(r, 100, IBLIB_SM_ATTR_PORT_INFO), -EINVAL);
	CHECK_EQ(ib_smp_check_response(r, sizeof(r), IBLIB_SM_ATTR_NODE_INFO), -EINVAL);
	put_be16(r + 4, IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR);
	CHECK_EQ(ib_smp_check_response(r, sizeof(r), IBLIB_SM_ATTR_PORT_INFO), -EIO);
	put_be16(r + 4, 0);
	r[3] = IBLIB_METHOD_GET;
	CHECK_EQ(ib_smp_check_response(r, sizeof(r), IBLIB_SM_ATTR_PORT_INFO), -EINVAL);
}

struct rejoin_log {
	int calls;
};

static void rejoin_cb(void *ctx, struct ib_mcast_group *g, int status)
{
	(void)g;
	if (status == 0)
		((struct rejoin_log *)ctx)->calls++;
}

TEST(smp_snoop_client_reregister_triggers_rejoin)
{
	struct fake_ibdev *f = fx_setup(NULL);
	uint8_t smp[IB_MAD_SIZE] = { 1, IBLIB_MCLASS_SUBN_DR, 1, IBLIB_METHOD_SET };
	struct rejoin_log log = { 0 };
	union ib_gid mgid;
	uint8_t *pi = smp + IBLIB_SMP_DATA_OFF;

	if (!f)
		return;
	ib_ipv4_broadcast_mgid(&mgid, 0xffff);
	(void)ib_sa_join(&f->dev.port[0], &mgid, NULL, rejoin_cb, &log);
	ib_poll();
	CHECK_EQ(log.calls, 1);
	put_be16(smp + 16, IBLIB_SM_ATTR_PORT_INFO);
	iblib_portinfo_set_lid(pi, 0x11);
	iblib_portinfo_set_master_sm_lid(pi, 1);
	CHECK_EQ(ib_smp_snoop(&f->dev, 1, smp, sizeof(smp)), 0);   /* nothing changed */
	iblib_portinfo_set_client_reregister(pi, 1);
	CHECK_EQ(ib_smp_snoop(&f->dev, 1, smp, sizeof(smp)), (int)IB_MGMT_CLIENT_REREG);
	ib_poll();
	CHECK_EQ(log.calls, 2);
	iblib_portinfo_set_lid(pi, 0x99);
	iblib_portinfo_set_client_reregister(pi, 0);
	CHECK_EQ(ib_smp_snoop(&f->dev, 1, smp, sizeof(smp)), (int)IB_MGMT_LID);
	/* malformed */
	CHECK_EQ(ib_smp_snoop(&f->dev, 1, smp, 64), -EINVAL);
	CHECK_EQ(ib_smp_snoop(&f->dev, 3, smp, sizeof(smp)), -EINVAL);
	smp[1] = IBLIB_MCLASS_SUBN_ADM;
	CHECK_EQ(ib_smp_snoop(&f->dev, 1, smp, sizeof(smp)), -EINVAL);
	smp[1] = IBLIB_MCLASS_SUBN_LID;
	smp[3] = IBLIB_METHOD_GET;       /* Gets are not our business */
	CHECK_EQ(ib_smp_snoop(&f->dev, 1, smp, sizeof(smp)), 0);
	fx_teardown(f);
}

static void mad_ifc_broken(struct fake_ibdev *f)
{
	f->mad_ifc_error = -EIO;
}

TEST(ib_register_survives_failing_local_mads_and_reports_them)
{
	struct fake_ibdev *f = fx_setup(mad_ifc_broken);

	if (!f)
		return;
	CHECK(test_console_has("fake0: NodeInfo: I/O error; retried at port up"));
	CHECK(test_console_has("fake0 port 1: local MAD attr 0x0011: I/O error"));
	CHECK(ib_active_port() == NULL);
	f->mad_ifc_error = 0;                 /* the firmware recovers: the next poll finds it */
	fx_run(2000, 100);
	CHECK(ib_active_port() == &f->dev.port[0]);
	CHECK_EQ(f->dev.port[0].attr.port_guid[7], 0x01);
	fx_teardown(f);
}

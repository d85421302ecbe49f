/* SPDX-License-Identifier: MIT */
/* Unit tests: SA MCMemberRecord join / PathRecord query builders and response parsing. */
#include "test.h"
#include "sa_msg.h"
#include "ipoib_wire.h"

#include <errno.h>
#include <ibboot/wire/bytes.h>

static const uint8_t pgid[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0, 0xc0, 0, 1 };

TEST(sa_join_request_layout)
{
	uint8_t mad[256], mgid[16];

	ipoib_broadcast_mgid(mgid, 0xffff);
	sa_build_mcmember_join(mad, 0x1122334455667788ull, mgid, pgid, 0xffff);
	CHECK_EQ(mad[0], 1);
	CHECK_EQ(mad[1], 0x03);
	CHECK_EQ(mad[2], 2);
	CHECK_EQ(mad[3], 0x02);                      /* SubnAdmSet */
	CHECK_EQ(get_be64(mad + 8), 0x1122334455667788ull);
	CHECK_EQ(get_be16(mad + 16), 0x0038);
	CHECK_EQ(get_be64(mad + 48), 0x10083);   /* MGID|PortGID|P_Key|JoinState */
	CHECK_MEM(mad + 56, mgid, 16);
	CHECK_MEM(mad + 72, pgid, 16);
	CHECK_EQ(get_be16(mad + 96), 0xffff);
	CHECK_EQ(mad[104] & 0x0f, 1);                /* JoinState: full member */
}

TEST(sa_path_request_layout)
{
	uint8_t mad[256], dgid[16];

	memcpy(dgid, pgid, 16);
	dgid[15] = 9;
	sa_build_path_get(mad, 7, pgid, dgid, 0xffff);
	CHECK_EQ(mad[3], 0x01);
	CHECK_EQ(get_be16(mad + 16), 0x0035);
	CHECK_EQ(get_be64(mad + 48), (1u << 2) | (1u << 3) | (1u << 12) | (1u << 13));
	CHECK_MEM(mad + 56 + 8, dgid, 16);
	CHECK_MEM(mad + 56 + 24, pgid, 16);
	CHECK_EQ(mad[56 + 49], 0x81);                /* Reversible, NumbPath 1 */
}

TEST(sa_response_parse_and_decode)
{
	uint8_t mad[256], mgid[16];
	struct sa_resp r;
	struct iblib_mcmember_record m;
	const char *why = NULL;

	ipoib_broadcast_mgid(mgid, 0xffff);
	sa_build_mcmember_join(mad, 42, mgid, pgid, 0xffff);
	/* What OpenSM answers (shared/reference/fabric-opensm.md §4). */
	mad[3] = 0x81;
	put_be32(mad + 56 + 32, 0x00000B1B);
	put_be16(mad + 56 + 36, 0xC000);
	mad[56 + 38] = 0x84;
	mad[56 + 42] = 0x83;
	CHECK_EQ(sa_parse_response(mad, sizeof mad, &r, &why), 0);
	CHECK_EQ(r.tid, 42);
	CHECK_EQ(r.status, 0);
	CHECK_EQ(r.attr_id, 0x0038);
	CHECK_EQ(sa_decode_mcmember(r.record, r.record_len, &m, &why), 0);
	CHECK_EQ(m.qkey, 0xB1B);
	CHECK_EQ(m.mlid, 0xC000);
	CHECK_EQ(m.mtu, 4);
	CHECK_EQ(m.mtu_selector, 2);
	CHECK_EQ(m.rate, 3);
	CHECK_MEM(m.mgid.raw, mgid, 16);
}

TEST(sa_response_malformed)
{
	uint8_t mad[256] = { 1, 3, 2, 0x81 };
	struct sa_resp r;
	struct iblib_mcmember_record m;
	struct iblib_path_record p;
	const char *why;

	for (size_t n = 0; n < 56; n++)
		CHECK_EQ(sa_parse_response(mad, n, &r, &why), -EINVAL);
	CHECK_EQ(sa_parse_response(mad, 56, &r, &why), 0);
	CHECK_EQ(sa_decode_mcmember(r.record, r.record_len, &m, &why), -EINVAL);
	CHECK_EQ(sa_decode_path(r.record, r.record_len, &p, &why), -EINVAL);
	CHECK_EQ(sa_parse_response(mad, 56 + 51, &r, &why), 0);
	CHECK_EQ(sa_decode_mcmember(r.record, r.record_len, &m, &why), -EINVAL);
	mad[3] = 0x01;   /* a request */
	CHECK_EQ(sa_parse_response(mad, sizeof mad, &r, &why), -EINVAL);
	mad[3] = 0x81;
	mad[1] = 0x81;   /* an SMP */
	CHECK_EQ(sa_parse_response(mad, sizeof mad, &r, &why), -EPROTONOSUPPORT);
	mad[1] = 3;
	mad[0] = 2;
	CHECK_EQ(sa_parse_response(mad, sizeof mad, &r, &why), -EPROTONOSUPPORT);
}

/* SPDX-License-Identifier: MIT */
/* SA MCMemberRecord join and PathRecord query (IBA 15.2.5.16, 15.2.5.17) for an IPoIB host. */
#include "sa_msg.h"

#include <errno.h>
#include <string.h>

static int fail(const char **why, const char *msg, int err)
{
	if (why)
		*why = msg;
	return err;
}

static void sa_request(uint8_t *mad, uint8_t method, uint64_t tid, uint16_t attr, uint64_t comp)
{
	struct iblib_mad_hdr h = {
		.base_version = IBLIB_MAD_BASE_VERSION, .mgmt_class = IBLIB_MCLASS_SUBN_ADM,
		.class_version = IBLIB_SA_CLASS_VERSION, .method = method, .tid = tid, .attr_id = attr,
	};
	/* No RMPP, SM_Key 0 (not a trusted requester), AttributeOffset 0. */
	struct iblib_sa_hdr s = { .comp_mask = comp };

	memset(mad, 0, SA_MAD_LEN);
	iblib_mad_hdr_put(mad, &h);
	iblib_sa_hdr_put(mad, &s);
}

void sa_build_mcmember_join(uint8_t mad[SA_MAD_LEN], uint64_t tid, const uint8_t mgid[16],
			    const uint8_t port_gid[16], uint16_t pkey)
{
	struct iblib_mcmember_record r = { .pkey = pkey, .join_state = IBLIB_MCR_JOIN_FULL };

	sa_request(mad, IBLIB_METHOD_SET, tid, IBLIB_SA_ATTR_MCMEMBER_RECORD,
		   IBLIB_MCR_COMP_MGID | IBLIB_MCR_COMP_PORT_GID | IBLIB_MCR_COMP_PKEY |
			   IBLIB_MCR_COMP_JOIN_STATE);
	memcpy(r.mgid.raw, mgid, 16);
	memcpy(r.port_gid.raw, port_gid, 16);
	iblib_mcmember_record_put(mad + IBLIB_SA_DATA_OFF, &r);
}

void sa_build_path_get(uint8_t mad[SA_MAD_LEN], uint64_t tid, const uint8_t sgid[16],
		       const uint8_t dgid[16], uint16_t pkey)
{
	struct iblib_path_record r = { .reversible = true, .numb_path = 1, .pkey = pkey };

	sa_request(mad, IBLIB_METHOD_GET, tid, IBLIB_SA_ATTR_PATH_RECORD,
		   IBLIB_PR_COMP_DGID | IBLIB_PR_COMP_SGID | IBLIB_PR_COMP_NUMBPATH | IBLIB_PR_COMP_PKEY);
	memcpy(r.dgid.raw, dgid, 16);
	memcpy(r.sgid.raw, sgid, 16);
	iblib_path_record_put(mad + IBLIB_SA_DATA_OFF, &r);
}

int sa_parse_response(const uint8_t *mad, size_t len, struct sa_resp *r, const char **why)
{
	struct iblib_mad_hdr h;

	if (len < IBLIB_SA_DATA_OFF)
		return fail(why, "SA MAD shorter than its 56-byte header", -EINVAL);
	iblib_mad_hdr_get(mad, &h);
	if (h.base_version != IBLIB_MAD_BASE_VERSION)
		return fail(why, "MAD BaseVersion is not 1", -EPROTONOSUPPORT);
	if (h.mgmt_class != IBLIB_MCLASS_SUBN_ADM || h.class_version != IBLIB_SA_CLASS_VERSION)
		return fail(why, "not an SA class version 2 MAD", -EPROTONOSUPPORT);
	if (!(h.method & IBLIB_METHOD_RESP))
		return fail(why, "SA MAD is a request, not a response", -EINVAL);
	r->method = h.method;
	r->status = h.status;
	r->tid = h.tid;
	r->attr_id = h.attr_id;
	r->record = mad + IBLIB_SA_DATA_OFF;
	r->record_len = len - IBLIB_SA_DATA_OFF;
	return 0;
}

int sa_decode_mcmember(const uint8_t *rec, size_t len, struct iblib_mcmember_record *m,
		       const char **why)
{
	if (len < IBLIB_MCMEMBER_RECORD_BYTES)
		return fail(why, "MCMemberRecord shorter than 52 bytes", -EINVAL);
	iblib_mcmember_record_get(rec, m);
	return 0;
}

int sa_decode_path(const uint8_t *rec, size_t len, struct iblib_path_record *p, const char **why)
{
	if (len < IBLIB_PATH_RECORD_BYTES)
		return fail(why, "PathRecord shorter than 64 bytes", -EINVAL);
	iblib_path_record_get(rec, p);
	return 0;
}

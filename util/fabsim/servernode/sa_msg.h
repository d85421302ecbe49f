/* SPDX-License-Identifier: MIT */
/*
 * sa_msg — the two SA requests an IPoIB host makes and the answers it reads (IBA 15.2):
 * MCMemberRecord SubnAdmSet (join the broadcast group, RFC 4391 §4/§5) and PathRecord SubnAdmGet
 * (a unicast neighbour's GID to LID/SL/MTU). Record layouts come from iblib/mad.h; this file adds
 * the request shapes an IPoIB host uses and length-checked response parsing for wire data.
 */
#ifndef SERVERNODE_SA_MSG_H
#define SERVERNODE_SA_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ibboot/wire/mad.h>

#define SA_MAD_LEN IBLIB_MAD_BYTES

/* The fields of an SA response a client matches on. */
struct sa_resp {
	uint8_t method;
	uint16_t status;         /* MAD status (IBA 13.4.7; SA codes in bits 8..14, 15.2.1.1) */
	uint64_t tid;
	uint16_t attr_id;
	const uint8_t *record;   /* byte 56 of the MAD */
	size_t record_len;
};

/* Join as a full member with component mask MGID|PortGID|P_Key|JoinState: the group exists
 * (OpenSM pre-creates it), so only those identify the request, as Linux IPoIB does. */
void sa_build_mcmember_join(uint8_t mad[SA_MAD_LEN], uint64_t tid, const uint8_t mgid[16],
			    const uint8_t port_gid[16], uint16_t pkey);
/* One reversible path from sgid to dgid in partition pkey. */
void sa_build_path_get(uint8_t mad[SA_MAD_LEN], uint64_t tid, const uint8_t sgid[16],
		       const uint8_t dgid[16], uint16_t pkey);

/* Checks base/class version, class and that this is a response; 0 or negative errno + *why. */
int sa_parse_response(const uint8_t *mad, size_t len, struct sa_resp *r, const char **why);
/* Length-checked record decoders (52 / 64 bytes needed). */
int sa_decode_mcmember(const uint8_t *rec, size_t len, struct iblib_mcmember_record *m,
		       const char **why);
int sa_decode_path(const uint8_t *rec, size_t len, struct iblib_path_record *p, const char **why);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * ud_pkt — whole InfiniBand UD SEND-only packets as a CA port sends and receives them:
 * LRH [+GRH] + BTH + DETH + payload + pad + ICRC + VCRC (IBA 7.7 LRH, 8.3 GRH, 9.2 BTH, 9.3.3
 * DETH, 7.8 CRCs), over iblib/packet.h. Parsing checks lengths and both CRCs before trusting
 * any field.
 */
#ifndef SERVERNODE_UD_PKT_H
#define SERVERNODE_UD_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UD_OP_SEND_ONLY 0x64u          /* IBA 9.2.1: UD SEND Only */
#define UD_OP_SEND_ONLY_IMM 0x65u

#define UD_LID_PERMISSIVE 0xFFFFu
#define UD_LID_MCAST_FIRST 0xC000u
#define UD_QP1_QKEY 0x80010000u        /* IBA 13.5.1: the GSI's well-known Q_Key */
#define UD_MAX_PKT 4608u

struct ud_pkt {
	uint8_t vl, sl;
	uint16_t dlid, slid;
	bool grh;
	uint8_t tclass, hop_limit;
	uint32_t flow_label;
	uint8_t sgid[16], dgid[16];
	uint8_t opcode;                /* parse: as received; build: always SEND Only */
	bool solicited;
	uint16_t pkey;
	uint32_t dqpn, psn;
	uint32_t qkey, sqpn;
	const uint8_t *payload;        /* parse: points into the buffer, pad excluded */
	size_t payload_len;
};

/* Returns 0, or a negative errno with *why: -EINVAL malformed/short/length mismatch,
 * -EBADMSG a CRC is wrong, -EPROTONOSUPPORT not a UD SEND-only packet. */
int ud_pkt_parse(const uint8_t *buf, size_t len, struct ud_pkt *p, const char **why);

/* Builds the packet (pads the payload to 4 bytes, fills PktLen, ICRC and VCRC). Returns its
 * length, or 0 when it does not fit in cap. */
size_t ud_pkt_build(uint8_t *buf, size_t cap, const struct ud_pkt *p);

#endif

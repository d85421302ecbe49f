/* SPDX-License-Identifier: MIT */
/*
 * pkt — the few IB packet shapes fabsim handles itself: parse LRH [+GRH] + BTH [+DETH] with both
 * CRCs checked (IBA 7.7, 7.8, 9.2, 9.3.3), build a UD SEND-only packet around a MAD, and refresh the
 * CRCs after a switch rewrote a directed-route SMP. The CRCs come from iblib.
 */
#ifndef FABSIM_PKT_H
#define FABSIM_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LRH_BYTES 8
#define GRH_BYTES 40
#define BTH_BYTES 12
#define DETH_BYTES 8
#define ICRC_BYTES 4
#define VCRC_BYTES 2
#define MAD_BYTES 256

#define LNH_RAW 0
#define LNH_IPV6 1
#define LNH_LOCAL 2
#define LNH_GLOBAL 3

#define BTH_OP_UD_SEND_ONLY 0x64
#define BTH_OP_UD_SEND_ONLY_IMM 0x65

#define LID_PERMISSIVE 0xFFFF
#define LID_MCAST_FIRST 0xC000
#define QP1_QKEY 0x80010000u      /* IBA 9.6.1.1: the well-known GSI Q_Key */

enum pkt_status {
	PKT_OK = 0,
	PKT_MALFORMED = -1,       /* too short, PktLen disagrees with the length, bad LNH */
	PKT_BAD_VCRC = -2,
	PKT_BAD_ICRC = -3,
};

struct pkt_hdrs {
	uint8_t vl, sl, lnh;
	uint16_t dlid, slid;
	bool has_bth, is_ud;
	size_t bth_off;
	uint8_t opcode;
	uint16_t pkey;
	uint32_t dqpn, psn;
	uint32_t qkey, sqpn;       /* UD only */
	size_t payload_off, payload_len; /* UD only: after DETH (and ImmDt), without pad */
};

/* Parse and check a whole packet (LRH .. VCRC). */
enum pkt_status pkt_parse(const uint8_t *pkt, size_t len, struct pkt_hdrs *h);
const char *pkt_status_str(enum pkt_status s);

/* Build a local (no GRH) UD SEND-only packet carrying `plen` bytes (a multiple of 4). Returns the
 * whole length including ICRC and VCRC, or 0 if it does not fit in `cap`. */
size_t pkt_build_ud(uint8_t *buf, size_t cap, uint8_t vl, uint8_t sl, uint16_t dlid,
		    uint16_t slid, uint16_t pkey, uint32_t dqpn, uint32_t qkey, uint32_t sqpn,
		    uint32_t psn, const uint8_t *payload, size_t plen);

/* Recompute ICRC and VCRC of a packet whose contents changed. */
void pkt_refresh_crcs(uint8_t *pkt, size_t len);

#endif

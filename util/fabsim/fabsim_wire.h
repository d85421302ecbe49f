/* SPDX-License-Identifier: MIT */
/*
 * fabsim_wire.h — the wire protocol between fabsim and the HCA ports that attach to it.
 *
 * Transport: a Unix SOCK_SEQPACKET socket (path given by `fabsim --hca-socket PATH`). One
 * connection per HCA port. SEQPACKET keeps message boundaries, so every message is exactly one
 * send()/recv(): a struct fabsim_wire_hdr followed by hdr.len bytes of data. All header fields are
 * in host byte order (both ends run on the same machine); the data of a PACKET is a whole IB packet
 * in wire order.
 *
 * Conversation:
 *   client → fabsim  HELLO      guid = the port GUID, port = the port's number on its HCA (1-based),
 *                               data = node name text (for logs), no NUL needed; flags:
 *                               FABSIM_HELLO_REPORTS_LINK = the client will say when its own end of
 *                               the link trained (LINK below); without it the port counts as trained
 *                               from the HELLO on.
 *   fabsim → client  HELLO_ACK  flags = FABSIM_ACK_OK or FABSIM_ACK_REFUSED, data = reason text
 *                               (e.g. "no cable for GUID 0x0002c90300001001").
 *   fabsim → client  LINK       flags = 1 physical link up, 0 down: the cable is there and the far
 *                               end can train; sent right after an OK HELLO_ACK and then on every
 *                               change (cable pulled, fault injection).
 *   client → fabsim  LINK       (only after HELLO with FABSIM_HELLO_REPORTS_LINK) flags = 1 the
 *                               HCA's end trained (cable + INIT_PORT), 0 it dropped (CLOSE_PORT,
 *                               reset). Until it trains, the switch port at the far end stays Down.
 *   either way       PACKET     data = one whole IB packet: LRH [+GRH] + BTH + ... + ICRC + VCRC.
 * After a refusal fabsim closes the connection. Closing the connection detaches the port (its
 * link goes down at the far end).
 */
#ifndef FABSIM_WIRE_H
#define FABSIM_WIRE_H

#include <stdint.h>

enum fabsim_wire_type {
	FABSIM_MSG_HELLO = 1,
	FABSIM_MSG_HELLO_ACK = 2,
	FABSIM_MSG_PACKET = 3,
	FABSIM_MSG_LINK = 4,
};

enum {
	FABSIM_ACK_OK = 0,
	FABSIM_ACK_REFUSED = 1,
};

enum {
	FABSIM_LINK_DOWN = 0,
	FABSIM_LINK_UP = 1,
};

enum {
	FABSIM_HELLO_REPORTS_LINK = 1,   /* HELLO flags */
};

struct fabsim_wire_hdr {
	uint32_t type;   /* enum fabsim_wire_type */
	uint32_t port;   /* HELLO: the port's number on its HCA; otherwise 0 */
	uint64_t guid;   /* HELLO: the port GUID; otherwise 0 */
	uint32_t len;    /* bytes of data after the header */
	uint32_t flags;  /* HELLO_ACK: FABSIM_ACK_*; LINK: FABSIM_LINK_* */
};

_Static_assert(sizeof(struct fabsim_wire_hdr) == 24, "fabsim wire header is 24 bytes");

/* Largest data part: a 4096-byte IB payload plus LRH (8) + GRH (40) + BTH (12) + the largest
 * extended transport headers + ICRC (4) + VCRC (2), rounded up generously. */
#define FABSIM_WIRE_MAX_DATA 4608u
#define FABSIM_WIRE_MAX_MSG (sizeof(struct fabsim_wire_hdr) + FABSIM_WIRE_MAX_DATA)

#endif

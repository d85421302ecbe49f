/* SPDX-License-Identifier: MIT */
/*
 * fabsim_client — the HCA-port side of fabsim's attachment protocol (see fabsim_wire.h).
 * One client = one attached HCA port. Non-blocking after connect; no threads, no global state.
 */
#ifndef FABSIM_CLIENT_H
#define FABSIM_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fabsim_wire.h"

struct fabsim_client;

/* One message received from fabsim. data is owned by the struct (no allocation). */
struct fabsim_msg {
	uint32_t type;   /* FABSIM_MSG_PACKET or FABSIM_MSG_LINK (HELLO_ACK is consumed by connect) */
	uint32_t flags;  /* LINK: FABSIM_LINK_UP / FABSIM_LINK_DOWN */
	size_t len;      /* bytes in data */
	uint8_t data[FABSIM_WIRE_MAX_DATA];
};

/* Connect to fabsim's HCA socket at `path`, say HELLO for port `port_num` (1-based) with GUID
 * `port_guid`, and wait for the HELLO_ACK. On failure returns NULL and writes a reason a person can
 * act on into err (e.g. fabsim's refusal text). The LINK message that follows an ACK is left for
 * fabsim_client_recv(). */
struct fabsim_client *fabsim_client_connect(const char *path, uint64_t port_guid, unsigned port_num,
					    const char *name, char *err, size_t errlen);

/* The same, with HELLO flags (FABSIM_HELLO_REPORTS_LINK: the caller will report its end of the
 * link with fabsim_client_send_link(); until it says "trained", the far end stays down). */
struct fabsim_client *fabsim_client_connect_flags(const char *path, uint64_t port_guid,
						  unsigned port_num, const char *name,
						  unsigned hello_flags, char *err, size_t errlen);

/* Report that this port's own end of the link trained (true) or dropped (false). */
int fabsim_client_send_link(struct fabsim_client *c, bool trained);

/* The socket, for poll(): readable when a message waits. */
int fabsim_client_fd(const struct fabsim_client *c);

/* Send one whole IB packet. Returns 0, or a negative errno (-EMSGSIZE if too big, -EPIPE if
 * fabsim went away). */
int fabsim_client_send_packet(struct fabsim_client *c, const void *pkt, size_t len);

/* Receive one message without blocking: 1 = *out filled, 0 = nothing waiting, negative errno on
 * error (-ECONNRESET when fabsim closed the connection, -EPROTO for a malformed message). */
int fabsim_client_recv(struct fabsim_client *c, struct fabsim_msg *out);

void fabsim_client_close(struct fabsim_client *c);

#endif

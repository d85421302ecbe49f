/* SPDX-License-Identifier: MIT */
/* fabsim_client's receive without a copy, for callers linked with the library (hca_attach):
 * the message is returned in place, in the client's receive batch. (fabsim_client.h is the
 * interface QEMU's device is built against and stays as it is.) */
#ifndef FABSIM_CLIENT_REF_H
#define FABSIM_CLIENT_REF_H

#include <stdint.h>

#include "fabsim_client.h"

struct fabsim_msg_ref {
	uint32_t type;        /* FABSIM_MSG_PACKET or FABSIM_MSG_LINK */
	uint32_t flags;
	uint32_t len;
	const uint8_t *data;  /* valid until the next receive call on this client */
};

/* As fabsim_client_recv: 1 = a message in *out, 0 = none, < 0 = -errno; except that when the
 * messages of a batch are used up and that batch was short (the socket was empty when it was
 * read), it returns 0 once without asking the socket again. For callers that read until 0 and
 * then poll() the descriptor (level-triggered: what came meanwhile is seen there) or call again. */
int fabsim_client_recv_ref(struct fabsim_client *c, struct fabsim_msg_ref *out);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * mirror — a test knob, off unless FABSIM_TEST_MIRROR_SA names a switch port: every SA request
 * (a GMP of management class SubnAdm to QP1, IBA 15.2, with the R bit clear) a switch receives
 * on any other port is also sent, unchanged, out of that port. It stands for an attacker who can
 * see the SA traffic of other nodes (a misconfigured mirror port, a compromised switch): the
 * rogue node of util/fabsim/rogue learns the TIDs it needs to forge answers that reach the
 * requester's source checks. A real switch forwards a unicast packet out of one port only.
 */
#ifndef FABSIM_MIRROR_H
#define FABSIM_MIRROR_H

#include "fabsim.h"

void mirror_sa_request(struct fabric *f, struct port *in, const uint8_t *pkt, size_t len,
		       const struct pkt_hdrs *h);

#endif

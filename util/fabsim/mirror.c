/* SPDX-License-Identifier: MIT */
/* The SA-request mirror test knob (see mirror.h). */
#include "mirror.h"

#include <stdlib.h>

#define MAD_CLASS_SUBN_ADM 0x03   /* IBA 13.4.4: the SA's management class */
#define MAD_METHOD_RESP 0x80      /* IBA 13.4.5: the R bit of Method */

void mirror_sa_request(struct fabric *f, struct port *in, const uint8_t *pkt, size_t len,
		       const struct pkt_hdrs *h)
{
	static const char *spec;
	static bool looked;
	struct port *out;

	if (!looked) {
		spec = getenv("FABSIM_TEST_MIRROR_SA");
		if (spec && !*spec)
			spec = NULL;
		if (spec)
			fabsim_log(f, 0, "test knob: SA requests mirrored out of %s", spec);
		looked = true;
	}
	if (!spec || !h->is_ud || h->dqpn != 1 || h->payload_len < MAD_BYTES)
		return;
	if (pkt[h->payload_off + 1] != MAD_CLASS_SUBN_ADM ||
	    (pkt[h->payload_off + 3] & MAD_METHOD_RESP))
		return;
	/* Looked up each time: the port is named, the node pointers may be rebuilt by a topology. */
	out = fabric_find_port(f, spec);
	if (!out || out == in || out->node != in->node || out->num == 0 ||
	    out->pi.state != PORT_ACTIVE)
		return;
	port_transmit(f, out, pkt, len);
}

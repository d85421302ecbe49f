/* SPDX-License-Identifier: MIT */
/* The server node's SMA: the HCA model's firmware SMA library, one port. */
#include "sn_sma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcasim.h"
#include "sma.h"

#define SN_PORT 1u

struct sn_sma {
	struct hcasim_sma *sma;
};

struct sn_sma *sn_sma_create(uint64_t node_guid, uint64_t port_guid, const char *node_desc,
			     char *err, size_t errlen)
{
	/* A one-port ConnectX-3 CA, so OpenSM sees the same device the HCA model shows. */
	struct hcasim_config cfg = {
		.device_id = 0x1003, .node_guid = node_guid, .port_guid = { port_guid, 0 },
		.num_ports = 1, .node_desc = node_desc,
	};
	struct sn_sma *s = calloc(1, sizeof(*s));

	if (s)
		s->sma = hcasim_sma_create(&cfg);
	if (!s || !s->sma) {
		snprintf(err, errlen, "cannot create the SMA (out of memory or bad GUIDs)");
		free(s);
		return NULL;
	}
	return s;
}

void sn_sma_destroy(struct sn_sma *s)
{
	if (!s)
		return;
	hcasim_sma_destroy(s->sma);
	free(s);
}

void sn_sma_link(struct sn_sma *s, bool up)
{
	hcasim_sma_set_link(s->sma, SN_PORT, up);
}

bool sn_sma_mad(struct sn_sma *s, const uint8_t *mad, size_t len, uint8_t resp[256],
		bool *client_rereg)
{
	unsigned events = 0;

	*client_rereg = false;
	/* MADs are exactly 256 bytes (IBA 13.4.1); SMInfo and traps are for an SM, which this node
	 * does not run; the library answers SM and PerfMgt classes. */
	if (len != 256 || hcasim_sma_for_driver(mad))
		return false;
	int r = hcasim_sma_mad(s->sma, SN_PORT, mad, resp, 0, &events);
	*client_rereg = (events & HCASIM_SMA_EV_CLIENT_REREG) != 0;
	return r == 1;
}

void sn_sma_state(const struct sn_sma *s, struct sn_port_state *out)
{
	out->lid = hcasim_sma_lid(s->sma, SN_PORT);
	out->sm_lid = hcasim_sma_sm_lid(s->sma, SN_PORT);
	out->sm_sl = hcasim_sma_sm_sl(s->sma, SN_PORT);
	out->port_state = hcasim_sma_port_state(s->sma, SN_PORT);
	out->gid_prefix = hcasim_sma_gid_prefix(s->sma, SN_PORT);
	out->pkey = hcasim_sma_pkey(s->sma, SN_PORT, 0);
	if (!out->pkey)
		out->pkey = 0xFFFF;   /* empty entry 0: the default partition until the SM sets one */
}

uint16_t sn_sma_pkey_entry(const struct sn_sma *s, uint16_t pkey)
{
	uint16_t limited = 0;

	if ((pkey & 0x7FFF) == 0)
		return 0;
	for (unsigned i = 0; i < hcasim_sma_pkey_table_size(s->sma); i++) {
		uint16_t k = hcasim_sma_pkey(s->sma, SN_PORT, i);

		if ((k & 0x7FFF) != (pkey & 0x7FFF))
			continue;
		if (k & 0x8000)
			return k;
		if (!limited)
			limited = k;
	}
	return limited;
}

void sn_sma_count(struct sn_sma *s, bool xmit, size_t bytes)
{
	hcasim_sma_count(s->sma, SN_PORT, xmit, bytes);
}

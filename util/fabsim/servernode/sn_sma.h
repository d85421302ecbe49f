/* SPDX-License-Identifier: MIT */
/*
 * sn_sma — the server node's port as the subnet manager sees it: a thin adapter over the
 * firmware SMA library of the HCA model (util/hcasim/sma.h), so the server node answers SMPs
 * with the very code an emulated ConnectX port uses instead of a second SMA.
 */
#ifndef SERVERNODE_SN_SMA_H
#define SERVERNODE_SN_SMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sn_sma;

/* What the IPoIB side needs to know about its port (PortInfo, IBA 14.2.5.6; P_Key[0]). */
struct sn_port_state {
	uint16_t lid, sm_lid;
	uint8_t sm_sl;
	uint8_t port_state;            /* 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE */
	uint64_t gid_prefix;
	uint16_t pkey;                 /* P_Key table entry 0 */
};

#define SN_PORT_ACTIVE 4u

struct sn_sma *sn_sma_create(uint64_t node_guid, uint64_t port_guid, const char *node_desc,
			     char *err, size_t errlen);
void sn_sma_destroy(struct sn_sma *s);
void sn_sma_link(struct sn_sma *s, bool up);
/* Process one SMP (256-byte MAD from QP0) or PerfMgt MAD (from QP1). Returns true when `resp`
 * holds a response to send back; *client_rereg is set when a PortInfo Set carried
 * ClientReregister (IBA 14.4.11). */
bool sn_sma_mad(struct sn_sma *s, const uint8_t *mad, size_t len, uint8_t resp[256],
		bool *client_rereg);
void sn_sma_state(const struct sn_sma *s, struct sn_port_state *out);
/* The P_Key table entry of pkey's partition (same low 15 bits): a full member if there is one,
 * else a limited one (IBA 10.9.1.2); 0 if the SM has not put it in the table. */
uint16_t sn_sma_pkey_entry(const struct sn_sma *s, uint16_t pkey);
/* PMA counters (PortCounters, IBA 16.1.3.5): one packet of `bytes` sent or received. */
void sn_sma_count(struct sn_sma *s, bool xmit, size_t bytes);

#endif

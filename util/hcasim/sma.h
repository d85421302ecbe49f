/* SPDX-License-Identifier: MIT */
/*
 * The HCA model's firmware subnet-management agent (SMA) and performance-management agent (PMA).
 *
 * One instance per model: the node (NodeInfo, NodeDescription) and each port's PortInfo,
 * P_Key table, GUIDInfo, MlnxExtPortInfo and counters. It answers MADs handed to it through
 * MAD_IFC or arriving on QP0/QP1 from the wire, and runs the port state machine:
 *
 *   no cable / link down  -> DOWN   (PortPhysicalState POLLING)
 *   link trained          -> INIT   (LINKUP)          hcasim_sma_set_link(port, true)
 *   SM Set PortState=ARMED  from INIT  -> ARMED
 *   SM Set PortState=ACTIVE from ARMED -> ACTIVE
 *   SM Set PortState=DOWN   -> link retrains: back to INIT (IBA 14.2.5.6 note on DOWN)
 * Any other requested transition is refused (the Set answers with status 0x001C and changes
 * nothing), as IBA 14.2.5.6 requires.
 *
 * What it answers (SMP class 0x01/0x81, class version 1; PMA class 0x04, class version 1):
 *   NodeDescription, NodeInfo            Get            (Set -> 0x000C)
 *   PortInfo                             Get, Set       mod 0 = receiving port, 1..N, else 0x001C
 *   P_KeyTable (128 entries, 4 blocks)   Get, Set       index 0 defaults to 0xFFFF
 *   GUIDInfo (128 GUIDs, 16 blocks)      Get, Set       index 0 (the port GUID) is read-only
 *   SLtoVLMappingTable, VLArbitration    Get, Set       stored only
 *   MlnxExtPortInfo (0xFF90)             Get, Set       all zero: no FDR10
 *   SMInfo, SwitchInfo, LFT/MFT, others  -> 0x000C      (a CA running no SM)
 *   methods other than Get/Set           -> 0x0008; wrong class version -> 0x0004
 *   PMA ClassPortInfo, PortCounters, PortCountersExtended (PortSelect 1..N, else 0x001C)
 * M_Key (IBA 14.2.4): checked on every SMP unless HCASIM_SMA_SKIP_MKEY; protection bits 0..3
 * honoured, violations counted in PortInfo:M_KeyViolations, failing MADs dropped unanswered.
 * Directed route: from the wire the CA is the end of the path (C14-9, C14-13:1); through
 * MAD_IFC only the D bit is set - Linux's SMI layer steps the hop pointer around MAD_IFC, and
 * iPXE (ib_mi_send) fills the return path itself.
 */
#ifndef HCASIM_SMA_H
#define HCASIM_SMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hcasim_config;
struct hcasim_sma;

/* hcasim_sma_mad() flags */
#define HCASIM_SMA_FROM_MAD_IFC 0x1  /* came through the MAD_IFC command, not from the wire */
#define HCASIM_SMA_SKIP_MKEY    0x2  /* MAD_IFC op_mod bit 0: no M_Key check */
#define HCASIM_SMA_SKIP_BKEY    0x4  /* MAD_IFC op_mod bit 1: no B_Key check */

/* Events (OR'ed into *events) */
#define HCASIM_SMA_EV_PORT_STATE 0x1 /* PortState changed -> EQE type 0x09 */
#define HCASIM_SMA_EV_PORT_MGMT  0x2 /* LID/SM LID/LMC/P_Key/GID prefix/ClientReregister -> EQE 0x1d */
#define HCASIM_SMA_EV_CLIENT_REREG 0x4 /* ClientReregister set by the SM (also EV_PORT_MGMT) */

/* Negative returns of hcasim_sma_mad() */
#define HCASIM_SMA_E_MALFORMED (-1) /* bad base version, DR SMP whose path does not end here, ... */
#define HCASIM_SMA_E_PORT      (-2) /* port number out of range */
#define HCASIM_SMA_E_MKEY      (-3) /* M_Key violation: silently dropped (IBA 14.2.4.1) */

struct hcasim_sma *hcasim_sma_create(const struct hcasim_config *cfg);
void hcasim_sma_destroy(struct hcasim_sma *s);
/* Device reset: firmware state back to power-on (LIDs, keys, tables, counters; links DOWN). */
void hcasim_sma_reset(struct hcasim_sma *s);

/* Physical link of `port` (1-based) trained (up) or lost (down): port DOWN <-> INIT. */
void hcasim_sma_set_link(struct hcasim_sma *s, unsigned port, bool up);

/*
 * Process one 256-byte MAD for `port`. Returns 1 and fills resp (256 B) when a response is due,
 * 0 when none (a response MAD, a Trap we do not handle), negative on a malformed MAD or an M_Key
 * violation (no response: the requester times out, IBA 14.2.4.1). For a directed-route SMP from
 * the wire, the response's hop pointer is already stepped back (IBA 14.2.2, C14-13:1) and it goes
 * back out on `port`; for MAD_IFC the hop fields are left to the driver, as on the hardware.
 * SMInfo is not answered by the SMA (a CA is not an SM): use hcasim_sma_for_driver() to decide
 * whether a wire MAD belongs to the driver's QP0/QP1; if one reaches hcasim_sma_mad() anyway
 * it is answered with status 0x000C (unsupported method/attribute).
 */
int hcasim_sma_mad(struct hcasim_sma *s, unsigned port, const uint8_t *mad, uint8_t *resp,
		   unsigned flags, unsigned *events);

/* True for MADs the firmware does not answer itself and passes to the driver's special QPs:
 * SMInfo, responses, traps, and classes other than SM/PMA. */
bool hcasim_sma_for_driver(const uint8_t *mad);

uint8_t hcasim_sma_port_state(const struct hcasim_sma *s, unsigned port);   /* 1..4 */
uint8_t hcasim_sma_phys_state(const struct hcasim_sma *s, unsigned port);   /* 2 polling, 5 linkup */
uint16_t hcasim_sma_lid(const struct hcasim_sma *s, unsigned port);
uint8_t hcasim_sma_lmc(const struct hcasim_sma *s, unsigned port);
uint16_t hcasim_sma_sm_lid(const struct hcasim_sma *s, unsigned port);
uint8_t hcasim_sma_sm_sl(const struct hcasim_sma *s, unsigned port);
uint64_t hcasim_sma_gid_prefix(const struct hcasim_sma *s, unsigned port);
uint64_t hcasim_sma_port_guid(const struct hcasim_sma *s, unsigned port);
uint64_t hcasim_sma_node_guid(const struct hcasim_sma *s);
unsigned hcasim_sma_num_ports(const struct hcasim_sma *s);
uint16_t hcasim_sma_pkey(const struct hcasim_sma *s, unsigned port, unsigned index); /* 0 = empty */
unsigned hcasim_sma_pkey_table_size(const struct hcasim_sma *s);
unsigned hcasim_sma_mtu(const struct hcasim_sma *s, unsigned port);   /* NeighborMTU code */
unsigned hcasim_sma_mtu_cap(const struct hcasim_sma *s, unsigned port);
unsigned hcasim_sma_op_vls(const struct hcasim_sma *s, unsigned port);
/* Port P_Key check for received packets: true when `pkey` matches a table entry (IBA 10.9.3:
 * low 15 bits equal and not both limited members). */
bool hcasim_sma_pkey_match(const struct hcasim_sma *s, unsigned port, uint16_t pkey);

/* Driver side (SET_PORT / QUERY_PORT in the model): capabilities the driver restricts. */
void hcasim_sma_set_port_caps(struct hcasim_sma *s, unsigned port, unsigned mtu_cap,
			      unsigned vl_cap, unsigned link_speed_supported);

/* PMA counters: count a packet of `bytes` (LRH .. VCRC) sent (xmit) or received on `port`. */
void hcasim_sma_count(struct hcasim_sma *s, unsigned port, bool xmit, size_t bytes);
/* Count a received packet the port dropped for a bad P_Key / Q_Key (PortInfo violation counters). */
void hcasim_sma_count_pkey_violation(struct hcasim_sma *s, unsigned port);
void hcasim_sma_count_qkey_violation(struct hcasim_sma *s, unsigned port);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Test rig for the Hermon driver: the platform services the driver uses (DMA memory, MMIO, PCI
 * config, time, console), implemented over an in-process hcasim model. Time is virtual: every
 * delay the driver asks for advances the clock and runs the model, so the PRM's 1 s reset wait
 * costs nothing. "Physical" addresses are the process's virtual addresses.
 *
 * The driver is driven as production drives it: hermon_init() (the PCI probe's bring-up), then
 * registration with the real IB core (hermon_ib_register), after which everything goes through
 * the core and its ib_device_ops. Ports 1 and 2 of the model are cabled to each other.
 */
#ifndef HERMON_RIG_H
#define HERMON_RIG_H

#include <hcasim.h>
#include <ibboot/pci.h>
#include "hermon.h"

#define RIG_MAX_PKTS 64

struct rig_pkt {
	unsigned port;
	size_t len;
	uint8_t data[4200];
};

struct rig {
	struct hcasim *sim;
	struct pci_device pdev;
	struct hermon h;
	bool cabled;               /* port 1 <-> port 2 with a cable */
	unsigned npkts;
	struct rig_pkt pkts[RIG_MAX_PKTS];
	uint64_t packets_out;
	bool up;                   /* hermon_init succeeded */
	bool registered;           /* and the IB core has it */
	uint64_t dma_fail_lo, dma_fail_hi;   /* device writes into [lo, hi) fail (bus error) */
	size_t last_len;           /* the last packet the HCA sent, as it went on the wire */
	uint8_t last[4200];
};

/* Creates the model (device_id 0 = ConnectX-3) at bdf 01:00.0 + n. */
int rig_create(struct rig *r, uint16_t device_id, bool cabled);
/* hermon_init() + link up on cabled ports. */
int rig_probe(struct rig *r);
/* hermon_ib_register(): the IB core opens the ports and reads them by local MAD. */
int rig_register(struct rig *r);
/* rig_create (ConnectX-3, cabled) + rig_probe + rig_register, quietly. */
int rig_up(struct rig *r);
/* Unregisters (if registered), quiesces, frees the model. */
void rig_destroy(struct rig *r);
/* Runs the model (and the cable) until idle. */
void rig_step(struct rig *r);
/* n rounds of the model and the core's poll loop (ib_poll_device), 1 ms of virtual time each. */
void rig_poll(struct rig *r, unsigned n);
/* Plays the SM through the core's local MAD op (MAD_IFC): SubnSet(PortInfo) with the LID and SM
 * LID 1, ARMED then ACTIVE; rereg sets ClientReregister (IBA 14.2.5.6). 0 or the MAD's error. */
int rig_sm_set_port(struct ib_device *dev, unsigned port, uint16_t lid, bool rereg);

/* A QP owner (rig_owner) that records what the core hands it. */
struct rig_got {
	unsigned recvs, sends, send_errors;
	uint32_t src_qpn;
	uint16_t slid;
	bool grh;
	uint8_t dgid[16];            /* the GRH's DGID when there was one */
	size_t len;
	uint8_t data[512];
};
extern const struct ib_qp_owner_ops rig_owner;

/* A UD QP on port 1 and one on port 2, each with its own 16-entry CQ, 4 send and 4 receive slots
 * of 512 bytes and Q_Key 0x1234; ga/gb record what rig_owner saw; to_b addresses qb. */
struct rig_pair {
	struct ib_cq *cqa, *cqb;
	struct ib_qp *qa, *qb;
	struct rig_got ga, gb;
	struct ib_address_vector to_b;
};
int rig_make_pair(struct ib_device *dev, struct rig_pair *p);
/* Copies msg into a send buffer of qp and posts it to av (0, or what ib_post_send says). */
int rig_send(struct ib_qp *qp, const struct ib_address_vector *av, const void *msg, size_t len);

/* DMA allocator accounting: is [p, p+len) inside a buffer dma_alloc handed out and nobody has
 * freed; the bytes handed out and not freed. */
bool rig_dma_live(const void *p, size_t len);
uint64_t rig_dma_live_bytes(void);

/* Console capture: everything the driver printed since the last rig_log_clear(). */
const char *rig_log(void);
void rig_log_clear(void);
void rig_set_quiet(bool quiet);
uint64_t rig_now_ns(void);

#endif

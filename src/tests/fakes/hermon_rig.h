/* SPDX-License-Identifier: MIT */
/*
 * Test rig for the Hermon driver: the platform services the driver uses (DMA memory, MMIO, PCI
 * config, time, console), implemented over an in-process hcasim model. Time is virtual: every
 * delay the driver asks for advances the clock and runs the model, so the PRM's 1 s reset wait
 * costs nothing. "Physical" addresses are the process's virtual addresses.
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
	uint64_t dma_fail_lo, dma_fail_hi;   /* device writes into [lo, hi) fail (bus error) */
};

/* Creates the model (device_id 0 = ConnectX-3) at bdf 01:00.0 + n. */
int rig_create(struct rig *r, uint16_t device_id, bool cabled);
/* hermon_init() + link up on cabled ports. */
int rig_probe(struct rig *r);
void rig_destroy(struct rig *r);
/* Runs the model (and the cable) until idle. */
void rig_step(struct rig *r);

/* Console capture: everything the driver printed since the last rig_log_clear(). */
const char *rig_log(void);
void rig_log_clear(void);
void rig_set_quiet(bool quiet);
uint64_t rig_now_ns(void);

#endif

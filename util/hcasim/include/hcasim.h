/* SPDX-License-Identifier: MIT */
/*
 * hcasim — a PRM-level model of a Mellanox Hermon-family HCA (ConnectX / ConnectX-2 / ConnectX-3).
 *
 * This is the host interface: whatever embeds the model (a QEMU device, the hosted ibboot build, a
 * test program, fabsim's test rig) creates an instance, forwards PCI config and BAR accesses to it,
 * provides DMA to guest-physical memory, carries the packets each port emits, delivers packets that
 * arrive at a port, and calls hcasim_step() after doorbells and periodically.
 *
 * Rules the model keeps: no threads, no global state (several instances per process), deterministic
 * (time comes only from ops->now_ns). Register data crosses this interface as bytes in bus order,
 * exactly as they appear on PCIe (the PRM's registers are big-endian dwords).
 *
 * Signatures here are a contract shared by util/qemu, util/fabsim, src/platform/hosted and tests:
 * extend, do not change.
 */
#ifndef HCASIM_H
#define HCASIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hcasim;

/* What the embedding host provides. All callbacks are called synchronously from hcasim_* calls. */
struct hcasim_host_ops {
	void *ctx;
	/* DMA to/from guest-physical memory; return 0, or a negative value for an unbacked address
	 * (the model then treats it as a bus error: command ICM error / catastrophic error). */
	int (*dma_read)(void *ctx, uint64_t gpa, void *buf, size_t len);
	int (*dma_write)(void *ctx, uint64_t gpa, const void *buf, size_t len);
	/* A whole IB packet (LRH [+GRH] + BTH + ... + ICRC + VCRC) leaves physical port `port` (1-based). */
	void (*packet_out)(void *ctx, unsigned port, const void *pkt, size_t len);
	/* Monotonic time in nanoseconds. */
	uint64_t (*now_ns)(void *ctx);
	/* Optional: one line of model log (refused operations, errors). May be NULL. */
	void (*log)(void *ctx, const char *line);
	/* Optional (added): the port's physical link as the far end sees it changed. It trains only
	 * when the cable is plugged (hcasim_port_set_link) AND the driver opened the port
	 * (INIT_PORT); it drops at CLOSE_PORT, CLOSE_HCA, reset and unplug. May be NULL. */
	void (*link_change)(void *ctx, unsigned port, bool up);
};

struct hcasim_config {
	uint16_t device_id;       /* 0x1003 ConnectX-3 (default when 0), 0x673c ConnectX-2, 0x6340 ... */
	uint64_t node_guid;       /* port p GUID = node_guid + p unless set below (the node GUID stays distinct, as on ConnectX); 0 → a fixed default */
	uint64_t port_guid[2];    /* 0 → derived from node_guid */
	unsigned num_ports;       /* 1 or 2; 0 → 2 */
	const char *node_desc;    /* NodeDescription; NULL → "hcasim" */
};

struct hcasim *hcasim_create(const struct hcasim_config *cfg, const struct hcasim_host_ops *ops);
void hcasim_destroy(struct hcasim *h);

/* PCI configuration space (4 KiB, little-endian as PCI defines). size is 1, 2 or 4. */
uint32_t hcasim_cfg_read(struct hcasim *h, unsigned off, unsigned size);
void hcasim_cfg_write(struct hcasim *h, unsigned off, uint32_t val, unsigned size);

/* BAR accesses: bar 0 (1 MiB: HCR at 0x80680, reset at 0xF0010, ...) or bar 2 (UAR pages).
 * data holds `size` bytes (1, 2, 4 or 8) in bus order. */
void hcasim_bar_read(struct hcasim *h, unsigned bar, uint64_t off, void *data, unsigned size);
void hcasim_bar_write(struct hcasim *h, unsigned bar, uint64_t off, const void *data, unsigned size);
uint64_t hcasim_bar_size(struct hcasim *h, unsigned bar);

/* Ports are 1-based. Cable plugged or not; the link trains (port INIT/LinkUp, ops->link_change)
 * once the driver has also opened the port with INIT_PORT. */
void hcasim_port_set_link(struct hcasim *h, unsigned port, bool up);
/* A whole IB packet (as packet_out produces) arrives at `port`. */
void hcasim_packet_in(struct hcasim *h, unsigned port, const void *pkt, size_t len);

/* Run the device: process doorbells, commands, queued packets, timers. Call after every BAR write
 * and periodically (every millisecond or so). Returns true if it did any work. */
bool hcasim_step(struct hcasim *h);

/* ---- Additions for tests, benchmarks and diagnostics (hcasim owns these) ---- */

/* Fault injection. opcode -1 clears the knob. */
void hcasim_fault_fail_cmd(struct hcasim *h, int opcode, uint8_t status); /* complete with status */
void hcasim_fault_timeout_cmd(struct hcasim *h, int opcode);  /* leave go set (until reset) */
void hcasim_fault_stall_hcr(struct hcasim *h, bool stall);     /* hold every command while set */
void hcasim_fault_corrupt_next_cqe(struct hcasim *h);          /* next CQE gets a bad opcode */
/* (faults.c) complete_first commands of opcode, then hold the next one as timeout_cmd does */
void hcasim_fault_timeout_after(struct hcasim *h, int opcode, unsigned complete_first);
/* XOR byte `byte` of the output (mailbox, or the 8-byte immediate) of the command with this opcode
 * that succeeds after `skip` others; once */
void hcasim_fault_corrupt_output(struct hcasim *h, int opcode, unsigned skip, unsigned byte,
				 uint8_t xor_mask);
/* EQEs / CQEs keep the first lap's owner value on every lap (the parity never flips) */
void hcasim_fault_owner_stuck(struct hcasim *h, bool eq, bool cq);
/* every UD send: one payload byte damaged before the ICRC is computed (the receiver accepts it) */
void hcasim_fault_corrupt_ud_payload(struct hcasim *h, bool on);
/* How long a reset keeps the device unreachable (default HCASIM_RESET_NS_DEFAULT). */
#define HCASIM_RESET_NS_DEFAULT 100000000ull
void hcasim_set_reset_time(struct hcasim *h, uint64_t ns);

/* Accounting: host memory the driver has handed to the device right now. */
struct hcasim_mem_usage {
	uint64_t fa_bytes, aux_bytes, icm_bytes, total;
};
void hcasim_mem_usage(const struct hcasim *h, struct hcasim_mem_usage *u);

/* Per-port counters of what the datapath did. */
struct hcasim_port_stats {
	uint64_t tx_packets, rx_packets, rx_bad_crc, rx_bad_hdr, rx_no_qp, rx_bad_qkey,
		rx_bad_pkey, rx_no_wqe, rx_link_down;
};
int hcasim_port_stats(const struct hcasim *h, unsigned port, struct hcasim_port_stats *st);

/* Diagnostics snapshot: registers, firmware state, maps and every hardware-owned context, as text
 * (in the spirit of a firmware dump). Returns the length it wanted (snprintf-like). */
size_t hcasim_diag_snapshot(struct hcasim *h, char *buf, size_t len);
/* Refused operations (commands failed, packets dropped, access violations), newest first. */
unsigned hcasim_refused_count(const struct hcasim *h);
const char *hcasim_refused(const struct hcasim *h, unsigned newest_index);
/* Quiesced: firmware not running, nothing of the host's memory mapped, no context in hardware. */
bool hcasim_quiesced(const struct hcasim *h);
/* DMA attempts made while the firmware was off (should stay 0: no DMA after close). */
uint64_t hcasim_dma_after_close(const struct hcasim *h);
/* (added) DMA attempts refused because bus mastering (PCI command BME) was off: each one is a
 * violation, logged as "... without bus mastering ...". Should stay 0. */
uint64_t hcasim_dma_without_master(const struct hcasim *h);
/* Interrupts: an EQ armed through its doorbell (bit 31) raises its EQC `intr` vector once when an
 * EQE is written. Returns the lowest pending MSI-X vector and clears it, or -1 when none. */
int hcasim_irq_next(struct hcasim *h);
/* (added) The INTx pin: asserted when an armed EQ fires while MSI-X is disabled in config space,
 * deasserted by a write of the INTA pin's bit (QUERY_ADAPTER intapin) to the clear-interrupt
 * register (QUERY_FW clr_int_bar/clr_int_base), by a reset, or when MSI-X gets enabled. */
bool hcasim_intx(const struct hcasim *h);
/* The HCR status of the last completed command (0 success), for test rigs. */
uint8_t hcasim_last_status(const struct hcasim *h);

#ifdef __cplusplus
}
#endif
#endif

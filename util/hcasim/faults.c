/* SPDX-License-Identifier: MIT */
/*
 * Fault knobs for the driver's self-test (and anyone else's negative tests): each one breaks one
 * thing a healthy HCA does, so that the check meant to notice it can be seen failing.
 *
 *   hcasim_fault_timeout_after    a command that completes n times, then never again (go stays
 *                                 set until the reset, as the hcasim_fault_timeout_cmd knob)
 *   hcasim_fault_corrupt_output   one output (mailbox or immediate) of a command with a byte
 *                                 flipped: what a query reads back differs from what was written
 *   hcasim_fault_owner_stuck      EQEs / CQEs carry the first lap's owner value on every lap
 *                                 (PRM ownership: the bit must flip each pass of the ring)
 *   hcasim_fault_corrupt_ud_payload  the HCA's gather of a UD send damages one payload byte
 *                                 before the ICRC is computed, so the receiver accepts it
 *
 * The rest of the model calls the hcasim_faults_* hooks below at the one place each applies.
 *
 * A host that cannot call these (QEMU with the model dlopen'd) sets HCASIM_FAULT, read once at
 * hcasim_create:
 *   reset-stuck-after=N           the first N software resets work, none after them: from the
 *                                 end of the Nth on, the hardware semaphore a driver takes before
 *                                 a reset (0xF03FC) reads as held (a flash update that never ends,
 *                                 until a host writes it free), and a reset written regardless
 *                                 never completes (config reads all ones, BAR accesses ignored).
 *                                 Behind QEMU, which answers the config header itself, the
 *                                 semaphore is what a driver sees fail (its final reset before a
 *                                 handoff, with N = the resets up to then).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcasim_int.h"

void hcasim_fault_timeout_after(struct hcasim *h, int opcode, unsigned complete_first)
{
	struct hcasim_faults *f = &h->faults;

	if (f->timeout_op && h->timeout_opcode == f->timeout_op - 1)
		h->timeout_opcode = -1;   /* ours: cleared with the knob */
	f->timeout_op = opcode < 0 ? 0 : opcode + 1;
	f->timeout_left = complete_first;
	if (opcode >= 0 && complete_first == 0)
		h->timeout_opcode = opcode;
}

void hcasim_fault_corrupt_output(struct hcasim *h, int opcode, unsigned skip, unsigned byte,
				 uint8_t xor_mask)
{
	struct hcasim_faults *f = &h->faults;

	f->corrupt_op = opcode < 0 ? 0 : opcode + 1;
	f->corrupt_skip = skip;
	f->corrupt_byte = byte;
	f->corrupt_xor = xor_mask;
}

void hcasim_fault_owner_stuck(struct hcasim *h, bool eq, bool cq)
{
	h->faults.eq_owner_stuck = eq;
	h->faults.cq_owner_stuck = cq;
}

void hcasim_fault_corrupt_ud_payload(struct hcasim *h, bool on)
{
	h->faults.ud_payload = on;
}

/* A command is about to run: count it towards a pending timeout. */
void hcasim_faults_cmd_run(struct hcasim *h, unsigned opcode)
{
	struct hcasim_faults *f = &h->faults;

	if (!f->timeout_op || opcode != (unsigned)f->timeout_op - 1 || f->timeout_left == 0)
		return;
	if (--f->timeout_left == 0) {
		h->timeout_opcode = (int)opcode;   /* the next one is held */
		hcasim_log(h, "hcasim: fault: the next %s will never complete",
			   hcasim_cmd_name(opcode));
	}
}

/* A command succeeded: damage its output if the knob says so. */
void hcasim_faults_cmd_out(struct hcasim *h, struct hcasim_cmd *c)
{
	struct hcasim_faults *f = &h->faults;

	if (!f->corrupt_op || c->opcode != (unsigned)f->corrupt_op - 1)
		return;
	if (f->corrupt_skip) {
		f->corrupt_skip--;
		return;
	}
	f->corrupt_op = 0;   /* one-shot */
	if (c->out_imm && f->corrupt_byte < 8) {
		c->out_imm_val ^= (uint64_t)f->corrupt_xor << (8 * (7 - f->corrupt_byte));
	} else if (f->corrupt_byte < c->out_len) {
		c->out[f->corrupt_byte] ^= f->corrupt_xor;
	} else {
		return;
	}
	hcasim_refuse(h, "%s: output byte %u corrupted by fault injection",
		      hcasim_cmd_name(c->opcode), f->corrupt_byte);
}

unsigned hcasim_faults_owner(struct hcasim *h, bool cq, unsigned owner)
{
	return (cq ? h->faults.cq_owner_stuck : h->faults.eq_owner_stuck) ? 0 : owner;
}

void hcasim_faults_ud_payload(struct hcasim *h, uint8_t *payload, size_t len)
{
	if (h->faults.ud_payload && len)
		payload[len / 2] ^= 0x40;
}

#define HCASIM_FAULT_KNOWN "reset-stuck-after=N (N = resets that still complete)"

/* One HCASIM_FAULT value: 0 with the knob set and logged, -1 with the reason on stderr (the
 * model is not created: a typo must not pass for a healthy run). */
int hcasim_faults_parse(struct hcasim *h, const char *spec)
{
	static const char key[] = "reset-stuck-after=";
	const char *num;
	char *end;
	unsigned long n;

	if (strncmp(spec, key, sizeof(key) - 1) != 0) {
		fprintf(stderr, "hcasim: HCASIM_FAULT=%s: unknown fault (known: %s)\n", spec,
			HCASIM_FAULT_KNOWN);
		return -1;
	}
	num = spec + sizeof(key) - 1;
	errno = 0;
	n = strtoul(num, &end, 10);
	if (*num < '0' || *num > '9' || *end || errno || n >= UINT_MAX) {
		fprintf(stderr, "hcasim: HCASIM_FAULT=%s: '%s' is not a reset count (known: %s)\n",
			spec, num, HCASIM_FAULT_KNOWN);
		return -1;
	}
	h->faults.reset_stuck_after = (unsigned)n + 1;
	h->faults.resets = 0;
	if (n == 0)
		h->hw_sem = 1;   /* held from power-on */
	hcasim_log(h, "hcasim: fault from HCASIM_FAULT: reset-stuck-after=%lu (software resets "
		   "after the first %lu never complete)", n, n);
	return 0;
}

int hcasim_faults_from_env(struct hcasim *h)
{
	const char *spec = getenv("HCASIM_FAULT");

	return spec && *spec ? hcasim_faults_parse(h, spec) : 0;
}

/* A software reset has started (the device is in its power-on state): the Nth leaves the
 * semaphore held, a later one never completes (the device stays unreachable until destroyed). */
void hcasim_faults_reset(struct hcasim *h)
{
	struct hcasim_faults *f = &h->faults;

	f->resets++;
	if (!f->reset_stuck_after || f->resets < f->reset_stuck_after - 1)
		return;
	if (f->resets == f->reset_stuck_after - 1) {
		h->hw_sem = 1;
		hcasim_log(h, "hcasim: fault: software reset %u is the last that works; the hardware "
			   "semaphore stays held (HCASIM_FAULT reset-stuck-after=%u)", f->resets,
			   f->resets);
		return;
	}
	h->reset_active = true;
	h->reset_done_ns = UINT64_MAX;
	hcasim_log(h, "hcasim: fault: software reset %u never completes (HCASIM_FAULT "
		   "reset-stuck-after=%u)", f->resets, f->reset_stuck_after - 1);
}

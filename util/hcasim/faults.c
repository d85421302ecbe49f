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
 */
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

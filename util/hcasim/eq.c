/* SPDX-License-Identifier: MIT */
/*
 * Event queues: SW2HW_EQ / HW2SW_EQ / QUERY_EQ / MAP_EQ, EQE writing and the EQ consumer-index
 * doorbell. The EQC lives in ICM; the ring is found through its MTT entries + page offset.
 * Ownership: an EQE at running index i is the software's when its owner bit equals bit
 * log_eq_size of i, so the device writes owner = (i >> log_eq_size) & 1.
 */
#include <string.h>

#include "hcasim_int.h"
#include "tpt.h"

#define EQE_SIZE 32u

/* HW2SW_EQ, QUERY_EQ and MAP_EQ need an EQ the hardware owns (unmapping needs only the index). */
static int eq_owned(struct hcasim *h, struct hcasim_cmd *c, uint32_t eqn, bool check_owner)
{
	return hcasim_cmd_ctx(h, c, "EQ", eqn, h->lay.log_num_eq, check_owner ? h->eq_hw : NULL, true);
}

/* The firmware touches a context's cMPT entry when it takes the context over; an unmapped one is
 * an ICM error (iPXE maps exactly the prefixes of the four cMPT tables it needs). */
int hcasim_cmpt_check(struct hcasim *h, unsigned type, uint32_t num)
{
	uint8_t e[8];

	return hcasim_icm_read(h, h->lay.cmpt_base + (((uint64_t)type << 24) + num) * HCASIM_CMPT_SZ,
			       e, sizeof(e));
}

/*
 * SW2HW_EQ hands every entry of the ring to the hardware: the device sets each EQE's owner bit to
 * hardware ownership (owner = 1 on the first pass). Linux mlx4 depends on it: mlx4_create_eq hands
 * over zeroed pages, and next_eqe_sw takes an entry whose owner bit equals the pass bit as the
 * software's, so without this a fresh EQ would read as 2^log_eq_size valid events (iPXE and ibboot
 * set the bits themselves, which this leaves as it is). Written a page at a time through the MTT (hcasim_ring_fill).
 */
static void eq_init_ownership(struct hcasim *h, uint32_t eqn, const uint8_t *ctx)
{
	uint8_t eqe[EQE_SIZE] = { 0 };
	uint64_t mtt = (uint64_t)PRM_GET(eqc, mtt_base_addr_h, ctx) << 32 |
		       (uint64_t)PRM_GET(eqc, mtt_base_addr_l, ctx) << 3;
	uint64_t failed_at;

	PRM_SET(event_queue_entry, owner, eqe, 1);
	if (hcasim_ring_fill(h, mtt, 12 + PRM_GET(eqc, log2_page_size, ctx),
			     PRM_GET(eqc, page_offset, ctx), PRM_GET(eqc, log_eq_size, ctx), eqe,
			     &failed_at))
		hcasim_refuse(h, "SW2HW_EQ: EQ %#x: ring not translatable/writable at byte %#llx: "
			      "entries left as they are", eqn, (unsigned long long)failed_at);
}

int cmd_sw2hw_eq(struct hcasim *h, struct hcasim_cmd *c)
{
	uint32_t eqn = c->in_mod & 0x3ff;
	uint8_t *e = c->in;
	int st = hcasim_cmd_sw2hw_in(h, c, "EQ", eqn, h->lay.log_num_eq, h->eq_hw,
				     HERMONPRM_EQC_ST_BYTES);

	if (st)
		return st;
	if (PRM_GET(eqc, log_eq_size, e) > 22 || PRM_GET(eqc, log2_page_size, e) > 28) {
		hcasim_refuse(h, "SW2HW_EQ: EQ %#x: log_eq_size %u / page size invalid", eqn,
			      PRM_GET(eqc, log_eq_size, e));
		return ST_BAD_PARAM;
	}
	st = hcasim_cmd_sw2hw_store(h, c, 3, eqn, h->eq_hw, hcasim_eqc_va(h, eqn),
				    HERMONPRM_EQC_ST_BYTES);
	if (!st)
		eq_init_ownership(h, eqn, e);
	return st;
}

int cmd_hw2sw_eq(struct hcasim *h, struct hcasim_cmd *c)
{
	uint32_t eqn = c->in_mod & 0x3ff;
	int st = eq_owned(h, c, eqn, true);

	if (!st && c->out_param)
		st = hcasim_cmd_ctx_out(h, c, hcasim_eqc_va(h, eqn), HERMONPRM_EQC_ST_BYTES);
	if (st)
		return st;
	hcasim_bit_set(h->eq_hw, eqn, false);
	for (unsigned t = 0; t < 64; t++)
		if (h->eq_of_event[t] == (int)eqn)
			h->eq_of_event[t] = -1;
	return ST_OK;
}

int cmd_query_eq(struct hcasim *h, struct hcasim_cmd *c)
{
	uint32_t eqn = c->in_mod & 0x3ff;
	int st = eq_owned(h, c, eqn, true);

	return st ? st : hcasim_cmd_ctx_out(h, c, hcasim_eqc_va(h, eqn), HERMONPRM_EQC_ST_BYTES);
}

/* in_param = 64-bit event mask (event_mask_st: bit n of the quadword ↔ event type n);
 * in_mod bit 31 = unmap, low bits = EQN. */
int cmd_map_eq(struct hcasim *h, struct hcasim_cmd *c)
{
	uint32_t eqn = c->in_mod & 0x3ff;
	bool unmap = c->in_mod >> 31;

	int st = eq_owned(h, c, eqn, !unmap);

	if (st)
		return st;
	for (unsigned t = 0; t < 64; t++) {
		if (!((c->in_param >> t) & 1))
			continue;
		if (unmap) {
			if (h->eq_of_event[t] == (int)eqn)
				h->eq_of_event[t] = -1;
		} else {
			h->eq_of_event[t] = (int)eqn;
		}
	}
	return ST_OK;
}

/*
 * An armed EQ fires. With MSI-X enabled in config space the EQC `intr` field is the MSI-X table
 * index the message goes to (Linux mlx4 gives each EQ its vector); with MSI-X off the function
 * asserts its INTx pin, whatever `intr` says (Linux mlx4 then puts 0 there and uses one shared
 * line), and the pin stays asserted until the driver writes the INTA pin's bit to the
 * clear-interrupt register (Linux mlx4_interrupt does so first, then polls every EQ and re-arms it).
 * The vector is recorded in both cases, for hosts that deliver messages themselves.
 */
static void eq_interrupt(struct hcasim *h, const uint8_t *ctx)
{
	hcasim_bit_set(h->irq_pending, PRM_GET(eqc, intr, ctx), true);
	if (!hcasim_msix_on(h))
		h->intx = true;
}

/* The clear-interrupt register (clr_int_st at the offset QUERY_FW reports): clr_int_h holds the
 * bits of pins 32..63, clr_int_l those of 0..31; Linux writes swab32(1 << (inta_pin & 31)) to the
 * half of its pin. A write without the INTA pin's bit leaves the pin as it is. */
void hcasim_clr_int_write(struct hcasim *h, unsigned off, const uint8_t *d, unsigned size)
{
	uint8_t img[HERMONPRM_CLR_INT_ST_BYTES] = { 0 };
	uint64_t mask;

	memcpy(img + off, d, size);
	mask = (uint64_t)PRM_GET(clr_int, clr_int_h, img) << 32 | PRM_GET(clr_int, clr_int_l, img);
	if ((mask >> HCASIM_INTA_PIN) & 1)
		h->intx = false;
	else
		hcasim_refuse(h, "clear-interrupt register written without the INTA pin's bit "
			      "(pin %u, mask %#llx): INTx stays as it is", HCASIM_INTA_PIN,
			      (unsigned long long)mask);
}

void hcasim_eq_post(struct hcasim *h, uint32_t eqn, unsigned type, unsigned sub,
		    const uint32_t data[6])
{
	uint8_t ctx[HERMONPRM_EQC_ST_BYTES], eqe[EQE_SIZE] = { 0 };
	uint32_t prod, cons, size;
	uint64_t mtt;
	unsigned lg;

	if (eqn >= (1u << h->lay.log_num_eq) || !hcasim_bit(h->eq_hw, eqn)) {
		hcasim_refuse(h, "event %#x dropped: EQ %#x not in hardware ownership", type, eqn);
		return;
	}
	if (hcasim_icm_read(h, hcasim_eqc_va(h, eqn), ctx, sizeof(ctx)) < 0) {
		hcasim_catastrophe(h, "EQ context in unmapped ICM");
		return;
	}
	lg = PRM_GET(eqc, log_eq_size, ctx);
	size = 1u << lg;
	prod = PRM_GET(eqc, producer_counter, ctx);
	cons = PRM_GET(eqc, consumer_counter, ctx);
	if (((prod - cons) & 0xffffff) >= size && !PRM_GET(eqc, oi, ctx)) {
		hcasim_refuse(h, "EQ %#x overrun: event %#x dropped", eqn, type);
		return;
	}
	PRM_SET(event_queue_entry, event_type, eqe, type);
	PRM_SET(event_queue_entry, event_sub_type, eqe, sub);
	for (unsigned i = 0; i < 6; i++)
		hermonprm_event_queue_entry_st_set_event_data(eqe, i, data ? data[i] : 0);
	PRM_SET(event_queue_entry, owner, eqe, hcasim_faults_owner(h, false, (prod >> lg) & 1));
	mtt = (uint64_t)PRM_GET(eqc, mtt_base_addr_h, ctx) << 32 |
	      (uint64_t)PRM_GET(eqc, mtt_base_addr_l, ctx) << 3;
	if (hcasim_ring_write(h, mtt, 12 + PRM_GET(eqc, log2_page_size, ctx),
			      PRM_GET(eqc, page_offset, ctx), lg, prod, eqe) < 0) {
		hcasim_catastrophe(h, "EQ ring not translatable/writable");
		return;
	}
	PRM_SET(eqc, producer_counter, ctx, (prod + 1) & 0xffffff);
	if (hcasim_icm_write(h, hcasim_eqc_va(h, eqn), ctx, sizeof(ctx)) < 0)
		hcasim_catastrophe(h, "EQ context in unmapped ICM");
	/* an armed EQ interrupts once, then needs re-arming (PRM EQ doorbell "a") */
	if (hcasim_bit(h->eq_armed, eqn)) {
		hcasim_bit_set(h->eq_armed, eqn, false);
		eq_interrupt(h, ctx);
	}
}

void hcasim_async_event(struct hcasim *h, unsigned type, unsigned sub, const uint32_t data[6])
{
	if (h->fw != FW_HCA_UP || type >= 64 || h->eq_of_event[type] < 0)
		return; /* not mapped by MAP_EQ: silicon drops it */
	hcasim_eq_post(h, (uint32_t)h->eq_of_event[type], type, sub, data);
}

void hcasim_port_event(struct hcasim *h, unsigned port, unsigned type, unsigned sub)
{
	uint8_t img[EQE_SIZE] = { 0 };
	uint32_t data[6];

	if (type == EV_PORT_CHANGE)
		PRM_SET(port_state_change, p, PRM_SUB(port_state_change_event, data, img), port);
	else
		PRM_SET(port_mgmnt_change_event, port, img, port);
	for (unsigned i = 0; i < 6; i++)
		data[i] = hermonprm_load_dword(img, 1 + i);
	hcasim_async_event(h, type, sub, data);
}

/* A fault the device cannot recover from: the error buffer QUERY_FW points at gets a nonzero
 * syndrome, a local catastrophic error event goes out, and commands fail until reset. */
void hcasim_catastrophe(struct hcasim *h, const char *why)
{
	if (h->catastrophic)
		return;
	hcasim_refuse(h, "catastrophic error: %s", why);
	hermonprm_store_dword(h->errbuf, 0, 0x1);
	hermonprm_store_dword(h->errbuf, 1, (uint32_t)h->refused_count);
	h->catastrophic = true;
	if (h->fw == FW_HCA_UP && h->eq_of_event[EV_LOCAL_CATAS] >= 0) {
		h->catastrophic = false; /* let this one event out */
		hcasim_eq_post(h, (uint32_t)h->eq_of_event[EV_LOCAL_CATAS], EV_LOCAL_CATAS, 0, NULL);
		h->catastrophic = true;
	}
}

void hcasim_eq_doorbell(struct hcasim *h, uint32_t eqn, uint32_t val)
{
	uint8_t db[4], ctx[HERMONPRM_EQC_ST_BYTES];

	if (h->fw != FW_HCA_UP || eqn >= (1u << h->lay.log_num_eq) || !hcasim_bit(h->eq_hw, eqn))
		return;
	hermonprm_store_dword(db, 0, val);
	if (hcasim_icm_read(h, hcasim_eqc_va(h, eqn), ctx, sizeof(ctx)) < 0)
		return;
	PRM_SET(eqc, consumer_counter, ctx, PRM_GET(event_db_register, ci, db));
	hcasim_icm_write(h, hcasim_eqc_va(h, eqn), ctx, sizeof(ctx));
	if (PRM_GET(event_db_register, a, db)) {
		/* armed with EQEs still unconsumed: the interrupt comes at once */
		if (PRM_GET(eqc, producer_counter, ctx) != PRM_GET(event_db_register, ci, db))
			eq_interrupt(h, ctx);
		else
			hcasim_bit_set(h->eq_armed, eqn, true);
	}
}

/* SPDX-License-Identifier: MIT */
/* hcasim: how an armed EQ signals. With MSI-X off the INTx pin asserts and stays asserted until the
 * driver writes the INTA pin's bit (QUERY_ADAPTER) to the clear-interrupt register (QUERY_FW), as
 * Linux mlx4_interrupt does; with MSI-X on only the EQ's vector is raised. */
#include <string.h>

#include <ibboot/hermon_prm.h>

#include "rawhost.h"
#include "test.h"

#define G(st, f, b) hermonprm_##st##_st_get_##f(b)
#define S(st, f, b, v) hermonprm_##st##_st_set_##f((b), (v))

#define OP_QUERY_FW 0x004
#define OP_QUERY_ADAPTER 0x006
#define MSIX_CTRL_HI 0x9f /* MSI-X capability (0x9c) message control, high byte: enable = bit 7 */

/* Where the driver finds the clear register and which bit is its pin, as Linux reads them. */
struct clr_int {
	unsigned bar;
	uint64_t off;
	unsigned pin;
};

static int query_clr_int(struct rawhost *rh, struct clr_int *ci)
{
	uint8_t fw[HERMONPRM_QUERY_FW_ST_BYTES], ad[HERMONPRM_QUERY_ADAPTER_ST_BYTES];

	if (rawhost_cmd_mbox(rh, OP_QUERY_FW, 0, 0, NULL, 0, fw, sizeof(fw), NULL) ||
	    rawhost_cmd_mbox(rh, OP_QUERY_ADAPTER, 0, 0, NULL, 0, ad, sizeof(ad), NULL))
		return -1;
	ci->bar = 2 * G(query_fw, clr_int_bar, fw); /* the field counts 64-bit BARs */
	ci->off = (uint64_t)G(query_fw, clr_int_base_offset_h, fw) << 32 |
		  G(query_fw, clr_int_base_offset_l, fw);
	ci->pin = G(query_adapter, intapin, ad);
	return 0;
}

/* Linux mlx4_interrupt: writel(swab32(1 << (pin & 31)), clr_base + (pin < 32 ? 4 : 0)). */
static void clear_int(struct rawhost *rh, const struct clr_int *ci, unsigned pin)
{
	uint8_t d[4];

	hermonprm_store_dword(d, 0, 1u << (pin & 31));
	hcasim_bar_write(rh->h, ci->bar, ci->off + (pin < 32 ? 4 : 0), d, 4);
}

static void arm_eq(struct rawhost *rh)
{
	uint8_t db[4];

	hermonprm_store_dword(db, 0, 0);
	S(event_db_register, ci, db, rh->eq_ci);
	S(event_db_register, a, db, 1);
	hcasim_bar_write(rh->h, 2, (RAWHOST_EQN / 4) * 4096 + 0x800 + 8 * (RAWHOST_EQN % 4), db, 4);
}

/* A port event: the cable is pulled (the active port goes down) and put back, the SM brings the
 * port up again. */
static int port_bounce(struct rawhost *rh, uint16_t lid)
{
	hcasim_port_set_link(rh->h, 1, false);
	hcasim_port_set_link(rh->h, 1, true);
	return rawhost_set_port(rh, 1, lid, 4);
}

static void drain_eq(struct rawhost *rh)
{
	uint8_t eqe[32];

	while (rawhost_poll_eq(rh, eqe) >= 0)
		;
}

TEST(hcasim_irq_intx_until_clear_register)
{
	struct rawhost rh;
	struct clr_int ci;

	CHECK_EQ(rawhost_up(&rh), 0);
	CHECK_EQ(query_clr_int(&rh, &ci), 0);
	CHECK_EQ(ci.bar, 0);
	CHECK(ci.off + 8 <= hcasim_bar_size(rh.h, 0));
	CHECK(ci.pin < 64);
	drain_eq(&rh);
	CHECK(!hcasim_intx(rh.h));
	arm_eq(&rh);
	CHECK(!hcasim_intx(rh.h));                      /* armed, nothing posted yet */
	hcasim_port_set_link(rh.h, 1, true);
	CHECK_EQ(rawhost_set_port(&rh, 1, 3, 4), 0);    /* port events reach the armed EQ */
	CHECK(hcasim_intx(rh.h));
	clear_int(&rh, &ci, ci.pin + 1);                /* another pin's bit: the level stays */
	CHECK(hcasim_intx(rh.h));
	CHECK(hcasim_refused_count(rh.h) > 0);
	clear_int(&rh, &ci, ci.pin);
	CHECK(!hcasim_intx(rh.h));
	/* not re-armed: further events do not assert it again */
	CHECK_EQ(port_bounce(&rh, 5), 0);
	CHECK(!hcasim_intx(rh.h));
	/* re-armed with EQEs still unconsumed (a consumer index behind the producer): at once */
	arm_eq(&rh);
	CHECK(hcasim_intx(rh.h));
	clear_int(&rh, &ci, ci.pin);
	CHECK(!hcasim_intx(rh.h));
	/* a software reset deasserts the pin */
	drain_eq(&rh);
	arm_eq(&rh);
	CHECK_EQ(port_bounce(&rh, 6), 0);
	CHECK(hcasim_intx(rh.h));
	CHECK_EQ(rawhost_reset(&rh), 0);
	CHECK(!hcasim_intx(rh.h));
	rawhost_fini(&rh);
}

TEST(hcasim_irq_msix_raises_the_vector_not_intx)
{
	struct rawhost rh;

	CHECK_EQ(rawhost_up(&rh), 0);
	drain_eq(&rh);
	while (hcasim_irq_next(rh.h) >= 0)
		;
	hcasim_cfg_write(rh.h, MSIX_CTRL_HI, 0x80, 1);
	CHECK_EQ(hcasim_cfg_read(rh.h, MSIX_CTRL_HI, 1) & 0x80, 0x80);
	arm_eq(&rh);
	hcasim_port_set_link(rh.h, 1, true);
	CHECK_EQ(rawhost_set_port(&rh, 1, 3, 4), 0);
	CHECK(!hcasim_intx(rh.h));
	CHECK_EQ(hcasim_irq_next(rh.h), 0);             /* rawhost's EQC names vector 0 */
	CHECK_EQ(hcasim_irq_next(rh.h), -1);
	/* MSI-X off again: the next interrupt takes the pin */
	hcasim_cfg_write(rh.h, MSIX_CTRL_HI, 0x00, 1);
	drain_eq(&rh);
	arm_eq(&rh);
	CHECK_EQ(port_bounce(&rh, 4), 0);
	CHECK(hcasim_intx(rh.h));
	rawhost_fini(&rh);
}

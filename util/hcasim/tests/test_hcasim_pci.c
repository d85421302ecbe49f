/* SPDX-License-Identifier: MIT */
/* hcasim: PCI configuration space, BARs, VPD, reset, HW semaphore. */
#include <string.h>

#include <ibboot/hermon_prm.h>

#include "rawhost.h"
#include "test.h"

static unsigned find_cap(struct hcasim *h, unsigned id)
{
	unsigned p = hcasim_cfg_read(h, 0x34, 1);

	for (unsigned n = 0; p && n < 16; n++) {
		if (hcasim_cfg_read(h, p, 1) == id)
			return p;
		p = hcasim_cfg_read(h, p + 1, 1);
	}
	return 0;
}

TEST(hcasim_pci_ids_class_and_capabilities)
{
	struct hcasim_config cfg = { .device_id = 0x673c };
	struct rawhost rh;

	CHECK_EQ(rawhost_init(&rh, &cfg), 0);
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x00, 4), 0x673c15b3);
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x0a, 2), 0x0c06);
	CHECK(hcasim_cfg_read(rh.h, 0x06, 2) & 0x10);
	CHECK(find_cap(rh.h, 0x10) != 0); /* PCI Express */
	CHECK(find_cap(rh.h, 0x11) != 0); /* MSI-X */
	CHECK(find_cap(rh.h, 0x03) != 0); /* VPD */
	CHECK_EQ(find_cap(rh.h, 0x05), 0); /* no MSI */
	CHECK_EQ(hcasim_bar_size(rh.h, 0), 1u << 20);
	CHECK_EQ(hcasim_bar_size(rh.h, 2), 8u << 20);
	/* config space is read-only where PCI says so */
	hcasim_cfg_write(rh.h, 0x00, 0x12345678, 4);
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x00, 2), 0x15b3);
	rawhost_fini(&rh);
}

TEST(hcasim_pci_default_device_is_connectx3)
{
	struct rawhost rh;

	CHECK_EQ(rawhost_init(&rh, NULL), 0);
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x02, 2), 0x1003);
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x00, 3), 0xffffffffu); /* bad access size */
	rawhost_fini(&rh);
}

TEST(hcasim_pci_bar_sizing)
{
	struct rawhost rh;

	CHECK_EQ(rawhost_init(&rh, NULL), 0);
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x10, 4) & 0xf, 0x4);  /* 64-bit memory */
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x18, 4) & 0xf, 0xc);  /* 64-bit prefetchable */
	hcasim_cfg_write(rh.h, 0x10, 0xffffffff, 4);
	hcasim_cfg_write(rh.h, 0x14, 0xffffffff, 4);
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x10, 4), 0xfff00004u);
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x14, 4), 0xffffffffu);
	hcasim_cfg_write(rh.h, 0x18, 0xffffffff, 4);
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x18, 4), 0xff80000cu);
	hcasim_cfg_write(rh.h, 0x18, 0xe0000000, 4);
	hcasim_cfg_write(rh.h, 0x1c, 0x1, 4);
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x18, 4), 0xe000000cu);
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x1c, 4), 1);
	hcasim_cfg_write(rh.h, 0x20, 0xffffffff, 4); /* BAR4: not implemented */
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x20, 4), 0);
	hcasim_cfg_write(rh.h, 0x04, 0x0006, 2);
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x04, 2), 0x0006);
	rawhost_fini(&rh);
}

TEST(hcasim_pci_vpd_read_write)
{
	struct rawhost rh;
	unsigned vpd;
	uint32_t d;

	CHECK_EQ(rawhost_init(&rh, NULL), 0);
	vpd = find_cap(rh.h, 0x03);
	hcasim_cfg_write(rh.h, vpd + 2, 0x0000, 2); /* read address 0 */
	CHECK(hcasim_cfg_read(rh.h, vpd + 2, 2) & 0x8000);
	d = hcasim_cfg_read(rh.h, vpd + 4, 4);
	CHECK_EQ(d & 0xff, 0x82); /* identifier string tag */
	hcasim_cfg_write(rh.h, vpd + 4, 0xa5a5a5a5, 4);
	hcasim_cfg_write(rh.h, vpd + 2, 0x8000 | 0x80, 2); /* write at 0x80 */
	CHECK_EQ(hcasim_cfg_read(rh.h, vpd + 2, 2) & 0x8000, 0);
	hcasim_cfg_write(rh.h, vpd + 4, 0, 4);
	hcasim_cfg_write(rh.h, vpd + 2, 0x80, 2);
	CHECK_EQ(hcasim_cfg_read(rh.h, vpd + 4, 4), 0xa5a5a5a5u);
	rawhost_fini(&rh);
}

TEST(hcasim_reset_unreachable_then_power_on_state)
{
	struct rawhost rh;
	uint8_t v[4] = { 0x01, 0x00, 0x00, 0x01 }, d[4];
	uint64_t imm;

	CHECK_EQ(rawhost_up(&rh), 0);
	hcasim_cfg_write(rh.h, 0x18, 0xe0000000, 4);
	hcasim_bar_write(rh.h, 0, 0xf0010, v, 4); /* iPXE's value, big-endian as bus bytes */
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x00, 4), 0xffffffffu);
	hcasim_bar_read(rh.h, 0, 0x80698, d, 4);
	CHECK_EQ(hermonprm_load_dword(d, 0), 0xffffffffu);
	rh.now += HCASIM_RESET_NS_DEFAULT / 2;
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x00, 2), 0xffff);
	CHECK(!hcasim_step(rh.h));
	rh.now += HCASIM_RESET_NS_DEFAULT;
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x00, 2), 0x15b3);
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x18, 4), 0xc); /* BARs back to reset value */
	hcasim_bar_read(rh.h, 0, 0x80698, d, 4);
	CHECK_EQ(hermonprm_load_dword(d, 0), 0); /* go 0, toggle 0 */
	CHECK(hcasim_quiesced(rh.h));
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x04, 2) & 0x4, 0); /* bus mastering off after the reset */
	rh.toggle = 0;
	rawhost_bus_master(&rh); /* as the driver's config restore turns it on again */
	/* firmware is off again: QUERY_DEV_CAP is out of order, QUERY_FW works */
	CHECK_EQ(rawhost_cmd(&rh, 0x003, 0, 0, 0, rh.out_mbox, &imm), 0x04);
	CHECK_EQ(rawhost_cmd(&rh, 0x004, 0, 0, 0, rh.out_mbox, &imm), 0);
	/* and the whole bring-up works again */
	CHECK_EQ(rawhost_bringup(&rh), 0);
	rawhost_fini(&rh);
}

TEST(hcasim_reset_linux_value_and_semaphore)
{
	struct rawhost rh;
	uint8_t v[4] = { 0, 0, 0, 1 }, bad[4] = { 0, 0, 0, 2 }, d[4];

	CHECK_EQ(rawhost_init(&rh, NULL), 0);
	/* Linux takes the HW semaphore first: reads 0 (taken), then 1 while held */
	hcasim_bar_read(rh.h, 0, 0xf03fc, d, 4);
	CHECK_EQ(hermonprm_load_dword(d, 0), 0);
	hcasim_bar_read(rh.h, 0, 0xf03fc, d, 4);
	CHECK_EQ(hermonprm_load_dword(d, 0), 1);
	hcasim_bar_write(rh.h, 0, 0xf0010, bad, 4); /* bit 0 clear: no reset */
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x00, 2), 0x15b3);
	CHECK(hcasim_refused_count(rh.h) > 0);
	hcasim_bar_write(rh.h, 0, 0xf0010, v, 4);
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x00, 2), 0xffff);
	CHECK_EQ(rawhost_reset(&rh), 0);
	hcasim_bar_read(rh.h, 0, 0xf03fc, d, 4);
	CHECK_EQ(hermonprm_load_dword(d, 0), 0); /* released by the reset */
	rawhost_fini(&rh);
}

TEST(hcasim_pci_msix_table_is_stored)
{
	struct rawhost rh;
	uint8_t v[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, d[8];
	unsigned cap;

	CHECK_EQ(rawhost_init(&rh, NULL), 0);
	cap = find_cap(rh.h, 0x11);
	CHECK_EQ(hcasim_cfg_read(rh.h, cap + 4, 4), 0x7c000); /* table in BAR0 */
	hcasim_bar_write(rh.h, 0, 0x7c000 + 16 * 3, v, 8);
	hcasim_bar_read(rh.h, 0, 0x7c000 + 16 * 3, d, 8);
	CHECK_MEM(d, v, 8);
	hcasim_bar_read(rh.h, 0, 0x7c000 + 16 * 4, d, 8);
	CHECK_EQ(d[0], 0);
	rawhost_fini(&rh);
}

TEST(hcasim_two_instances_are_independent)
{
	struct rawhost a, b;

	CHECK_EQ(rawhost_init(&a, NULL), 0);
	CHECK_EQ(rawhost_init(&b, NULL), 0);
	CHECK_EQ(rawhost_bringup(&a), 0);
	CHECK(hcasim_quiesced(b.h));
	CHECK(!hcasim_quiesced(a.h));
	CHECK_EQ(rawhost_bringup(&b), 0);
	rawhost_fini(&a);
	rawhost_fini(&b);
}

TEST(hcasim_reset_time_knob_and_hosts_without_clock)
{
	struct hcasim *h = hcasim_create(NULL, NULL);
	uint8_t v[4] = { 0, 0, 0, 1 }, d[4];
	struct rawhost rh;

	CHECK(h != NULL);
	/* no clock: a reset completes at once */
	hcasim_bar_write(h, 0, 0xf0010, v, 4);
	CHECK_EQ(hcasim_cfg_read(h, 0, 2), 0x15b3);
	hcasim_bar_read(h, 1, 0, d, 4); /* BAR1 does not exist: reads zero */
	CHECK_EQ(hermonprm_load_dword(d, 0), 0);
	CHECK_EQ(hcasim_bar_size(h, 1), 0);
	hcasim_destroy(h);
	hcasim_destroy(NULL);

	CHECK_EQ(rawhost_init(&rh, NULL), 0);
	hcasim_set_reset_time(rh.h, 5000000); /* 5 ms */
	hcasim_bar_write(rh.h, 0, 0xf0010, v, 4);
	rh.now += 4000000;
	CHECK_EQ(hcasim_cfg_read(rh.h, 0, 2), 0xffff);
	rh.now += 1000000;
	CHECK_EQ(hcasim_cfg_read(rh.h, 0, 2), 0x15b3);
	rawhost_fini(&rh);
}

/* SPDX-License-Identifier: MIT */
/* hcasim: no DMA without bus mastering (PCI 3.0 6.2.2), refused, counted and logged. */
#include <string.h>

#include "rawhost.h"
#include "test.h"

#define OP_QUERY_FW 0x004

static bool refused_has(struct hcasim *h, const char *s)
{
	for (unsigned i = 0; i < hcasim_refused_count(h) && i < 8; i++)
		if (strstr(hcasim_refused(h, i), s))
			return true;
	return false;
}

/* A command whose output mailbox the device must write: with BME clear the write is refused (the
 * host's memory keeps its bytes), counted and logged; with BME set again all is well. */
TEST(hcasim_dma_without_bus_master_refused_and_counted)
{
	struct hcasim_config cfg = { 0 };
	struct rawhost rh;
	uint8_t fw[256];

	CHECK_EQ(rawhost_init(&rh, &cfg), 0);
	CHECK_EQ(rawhost_cmd_mbox(&rh, OP_QUERY_FW, 0, 0, NULL, 0, fw, sizeof(fw), NULL), 0);
	CHECK_EQ(hcasim_dma_without_master(rh.h), 0);

	hcasim_cfg_write(rh.h, 0x04, 0x0002, 2);   /* memory decode only: bus mastering off */
	CHECK(strstr(rh.last_log, "bus mastering off") != NULL);
	uint8_t *mbox = rawhost_ptr(&rh, rh.out_mbox);

	memset(mbox, 0xa5, 256);
	CHECK(rawhost_cmd(&rh, OP_QUERY_FW, 0, 0, 0, rh.out_mbox, NULL) != 0);
	for (unsigned i = 0; i < 256; i++)
		if (mbox[i] != 0xa5) {
			test_fail(__FILE__, __LINE__, "byte %u of the mailbox was written", i);
			break;
		}
	CHECK_EQ(hcasim_dma_without_master(rh.h), 1);
	CHECK(refused_has(rh.h, "DMA write of 256 bytes"));
	CHECK(refused_has(rh.h, "without bus mastering"));

	hcasim_cfg_write(rh.h, 0x04, 0x0006, 2);
	CHECK(strstr(rh.last_log, "bus mastering on") != NULL);
	CHECK(strstr(rh.last_log, "so far: 1") != NULL);
	CHECK_EQ(rawhost_cmd_mbox(&rh, OP_QUERY_FW, 0, 0, NULL, 0, fw, sizeof(fw), NULL), 0);
	CHECK_EQ(hcasim_dma_without_master(rh.h), 1);   /* with BME set nothing is counted */
	rawhost_fini(&rh);
}

/* A reset clears the command register: the device may not DMA again until the driver turns bus
 * mastering back on, and the log says when that happened. A running HCA's DMA (here a whole
 * bring-up) counts nothing while BME is set. */
TEST(hcasim_reset_turns_bus_mastering_off)
{
	struct hcasim_config cfg = { 0 };
	struct rawhost rh;
	uint8_t v[4] = { 0, 0, 0, 1 };

	CHECK_EQ(rawhost_init(&rh, &cfg), 0);
	CHECK_EQ(rawhost_bringup_hca(&rh), 0);
	CHECK_EQ(hcasim_dma_without_master(rh.h), 0);
	hcasim_bar_write(rh.h, 0, 0xf0010, v, 4);
	CHECK(strstr(rh.last_log, "bus mastering off (reset") != NULL ||
	      strstr(rh.last_log, "software reset") != NULL);
	for (unsigned ms = 0; ms < 2000 && hcasim_cfg_read(rh.h, 0, 2) != 0x15b3; ms++)
		rh.now += 1000000;
	CHECK_EQ(hcasim_cfg_read(rh.h, 0x04, 2) & 0x4, 0);
	CHECK_EQ(hcasim_dma_without_master(rh.h), 0);
	rawhost_fini(&rh);
}

/* SPDX-License-Identifier: MIT */
/* hcasim: bring-up through raw HCR commands, firmware state machine, accounting, teardown. */
#include <stdlib.h>
#include <string.h>

#include <ibboot/hermon_prm.h>

#include "rawhost.h"
#include "test.h"

TEST(hcasim_bringup_full_sequence)
{
	struct rawhost rh;
	struct hcasim_mem_usage mu;

	CHECK_EQ(rawhost_up(&rh), 0);
	hcasim_mem_usage(rh.h, &mu);
	CHECK_EQ(mu.fa_bytes, 64 * 4096);
	CHECK(mu.aux_bytes >= 4096);
	CHECK_EQ(mu.total, mu.fa_bytes + mu.aux_bytes + mu.icm_bytes);
	CHECK(mu.icm_bytes > 256 * 1024);
	CHECK(!hcasim_quiesced(rh.h));
	rawhost_fini(&rh);
}

/* SPDX-License-Identifier: MIT */
/* hcasim: the HCASIM_FAULT environment variable (faults.c), read once by hcasim_create, for hosts
 * that cannot call the fault knobs (QEMU with the model dlopen'd). */
#include <stdlib.h>
#include <string.h>

#include "rawhost.h"
#include "test.h"

static uint32_t sem_read(struct rawhost *rh)
{
	uint8_t d[4];

	hcasim_bar_read(rh->h, 0, 0xf03fc, d, 4);
	return (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3];
}

static char seen[1024];

static void collect(void *ctx, const char *line)
{
	(void)ctx;
	strncat(seen, line, sizeof(seen) - strlen(seen) - 2);
	strcat(seen, "\n");
}

/* The knob is logged when the model is created (QEMU's device log shows it). */
TEST(hcasim_fault_env_logged)
{
	struct hcasim_host_ops ops = { .log = collect };
	struct hcasim *h;

	seen[0] = 0;
	setenv("HCASIM_FAULT", "reset-stuck-after=2", 1);
	h = hcasim_create(NULL, &ops);
	unsetenv("HCASIM_FAULT");
	CHECK(h != NULL);
	CHECK(strstr(seen, "hcasim: fault from HCASIM_FAULT: reset-stuck-after=2 ") != NULL);
	hcasim_destroy(h);
}

/* reset-stuck-after=1: the first reset works and leaves the semaphore held (what a driver behind
 * QEMU sees fail); a reset written regardless never completes, however long the host waits. */
TEST(hcasim_fault_env_reset_stuck_after)
{
	uint8_t v[4] = { 0, 0, 0, 1 };
	struct rawhost rh;

	setenv("HCASIM_FAULT", "reset-stuck-after=1", 1);
	CHECK_EQ(rawhost_init(&rh, NULL), 0);
	unsetenv("HCASIM_FAULT");
	CHECK_EQ(sem_read(&rh), 0);            /* before any reset: free (and now taken by us) */
	CHECK_EQ(rawhost_reset(&rh), 0);       /* reset 1 works ... */
	CHECK_EQ(sem_read(&rh), 1);            /* ... and leaves the semaphore held */
	CHECK_EQ(sem_read(&rh), 1);
	hcasim_bar_write(rh.h, 0, 0xf0010, v, 4);   /* reset 2, written without the semaphore */
	CHECK(strstr(rh.last_log, "software reset 2 never completes") != NULL);
	rh.now += 3600ull * 1000000000ull;
	CHECK_EQ(hcasim_cfg_read(rh.h, 0, 2), 0xffff);
	CHECK_EQ(sem_read(&rh), 0xffffffffu);  /* BAR reads ignored: all ones */
	rawhost_fini(&rh);

	/* N = 0: held from power-on, and the first reset never completes */
	setenv("HCASIM_FAULT", "reset-stuck-after=0", 1);
	CHECK_EQ(rawhost_init(&rh, NULL), 0);
	unsetenv("HCASIM_FAULT");
	CHECK_EQ(sem_read(&rh), 1);
	CHECK_EQ(rawhost_reset(&rh), -1);
	rawhost_fini(&rh);
}

/* Unset or empty: a healthy model, any number of resets. */
TEST(hcasim_fault_env_unset_is_healthy)
{
	struct rawhost rh;

	unsetenv("HCASIM_FAULT");
	CHECK_EQ(rawhost_init(&rh, NULL), 0);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(rawhost_reset(&rh), 0);
	CHECK_EQ(sem_read(&rh), 0);
	rawhost_fini(&rh);
	setenv("HCASIM_FAULT", "", 1);
	CHECK_EQ(rawhost_init(&rh, NULL), 0);
	unsetenv("HCASIM_FAULT");
	CHECK_EQ(rawhost_reset(&rh), 0);
	CHECK_EQ(rawhost_reset(&rh), 0);
	rawhost_fini(&rh);
}

/* A spec the model does not know is not a healthy run: no model (the reason goes to stderr). */
TEST(hcasim_fault_env_unknown_spec_refused)
{
	static const char *const bad[] = {
		"reset-stuck", "reset-stuck-after=", "reset-stuck-after=x", "reset-stuck-after=1x",
		"reset-stuck-after=-1", "reset-stuck-after=99999999999999999999", "nop-timeout=3",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("HCASIM_FAULT", bad[i], 1);
		struct hcasim *h = hcasim_create(NULL, NULL);

		CHECK(h == NULL);
		hcasim_destroy(h);
	}
	unsetenv("HCASIM_FAULT");
}

/* SPDX-License-Identifier: MIT */
/* Shared set-up for the IB core / IPoIB tests: a registered fake device and a hand-moved clock. */
#ifndef IB_FIXTURE_H
#define IB_FIXTURE_H

#include "fake_ibdev.h"
#include "net_test_env.h"

/* Allocates and initialises a fake device, lets `tweak` change its configuration, registers it
 * and polls once. NULL if registration failed. */
struct fake_ibdev *fx_setup(void (*tweak)(struct fake_ibdev *f));
/* Advances the clock by `ms` in `step`-ms increments, running net_poll() (IB devices, then net_device timers) after each. */
void fx_run(unsigned ms, unsigned step);
void fx_teardown(struct fake_ibdev *f);

#endif

/* SPDX-License-Identifier: MIT */
#include "ib_fixture.h"

#include <ibboot/net.h>
#include <stdlib.h>
#include <string.h>

struct fake_ibdev *fx_setup(void (*tweak)(struct fake_ibdev *f))
{
	struct fake_ibdev *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	test_now_ms = 1000;
	test_console_echo = getenv("IBCORE_TEST_VERBOSE") != NULL;
	test_console_clear();
	fake_ibdev_init(f);
	if (tweak)
		tweak(f);
	if (ib_device_register(&f->dev) < 0) {
		free(f);
		return NULL;
	}
	ib_poll();
	return f;
}

void fx_run(unsigned ms, unsigned step)
{
	for (unsigned t = 0; t < ms; t += step) {
		test_now_ms += step;
		net_poll();
	}
}

void fx_teardown(struct fake_ibdev *f)
{
	if (!f)
		return;
	ib_device_unregister(&f->dev);
	free(f);
}

/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the HCA model's firmware SMA/PMA. A sequence of MADs (256 bytes each, the
 * first byte of each chunk picking port and flags) must never crash it, responses must keep the
 * request's TID, and the port state must stay a valid IBA PortState. */
#include <stdlib.h>
#include <string.h>

#include <ibboot/wire/mad.h>

#include "hcasim.h"
#include "sma.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hcasim_config cfg = { .num_ports = 2 };
	struct hcasim_sma *s = hcasim_sma_create(&cfg);
	uint8_t mad[IBLIB_MAD_BYTES], resp[IBLIB_MAD_BYTES];

	if (!s)
		abort();
	hcasim_sma_set_link(s, 1, true);
	while (size > 0) {
		uint8_t ctl = data[0];
		size_t n = size - 1 < sizeof(mad) ? size - 1 : sizeof(mad);
		unsigned ev = 0, port = ctl & 3, flags = (ctl >> 2) & 7;

		memset(mad, 0, sizeof(mad));
		memcpy(mad, data + 1, n);
		mad[0] = 1;  /* base version: reach past the first check most of the time */
		int rc = hcasim_sma_mad(s, port, mad, resp, flags, &ev);
		if (rc > 1)
			abort();
		if (rc == 1 && memcmp(resp + 8, mad + 8, 8) != 0)
			abort();
		if (ctl & 0x20)
			hcasim_sma_set_link(s, 1 + ((ctl >> 6) & 1), (ctl & 0x80) != 0);
		for (unsigned p = 1; p <= 2; p++) {
			uint8_t st = hcasim_sma_port_state(s, p);
			if (st < 1 || st > 4)
				abort();
		}
		hcasim_sma_count(s, 1 + (ctl & 1), ctl & 2, n);
		data += n + 1;
		size -= n + 1;
	}
	hcasim_sma_destroy(s);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Software reset (BAR0 + 0xF0010). The PRM asks for 1 s before the device is touched again; the
 * model goes unreachable (config reads all ones, BAR accesses ignored) for h->reset_ns measured
 * with the host's clock, then is back in its power-on state: firmware off, nothing mapped, HCR
 * toggle 0, config space at its defaults (BARs cleared, as drivers that restore it expect).
 *
 * Any value with bit 0 of the big-endian dword set resets: Linux mlx4 writes swab32(1)
 * (bytes 00 00 00 01), iPXE 0x01000000 / 0x01000001 through writel (bytes 00 00 00 01 / 01 00 00 01).
 */
#include "hcasim_int.h"
#include "sma.h"

void hcasim_reset_start(struct hcasim *h)
{
	hcasim_log(h, "hcasim: software reset (unreachable for %llu ns)",
		   (unsigned long long)h->reset_ns);
	struct hcasim_sma *fresh = hcasim_sma_create(&h->cfg);

	hcasim_power_on(h); /* links drop: the ports are closed */
	hcasim_pci_init(h);
	/* The embedded SMA restarts with the firmware: LID, SM LID, P_Keys, counters are gone. */
	if (fresh) {
		hcasim_sma_destroy(h->sma);
		h->sma = fresh;
	}
	h->reset_active = true;
	h->reset_done_ns = hcasim_now(h) + h->reset_ns;
	if (!h->ops.now_ns)
		h->reset_active = false; /* no clock: nothing to wait for */
	hcasim_faults_reset(h);
}

bool hcasim_reachable(struct hcasim *h)
{
	if (h->reset_active && hcasim_now(h) >= h->reset_done_ns) {
		h->reset_active = false;
		hcasim_log(h, "hcasim: reset complete");
	}
	return !h->reset_active;
}

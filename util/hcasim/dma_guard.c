/* SPDX-License-Identifier: MIT */
/*
 * Bus mastering. PCI 3.0 section 6.2.2 (Command register, bit 2 Bus Master Enable): while it is
 * clear the function must not generate memory or I/O requests. Every DMA the model attempts passes
 * here first (hcasim_dma_read/write); with BME clear it is refused (the host's memory is not
 * touched: reads see all ones, writes are dropped), counted and logged as a violation.
 *
 * This is how tests see that a boot loader's handoff is clean: after its final reset the HCA's
 * bus mastering stays off until the OS's driver turns it on, so any DMA in between is a violation
 * (hcasim_dma_without_master, and "without bus mastering" lines in the log). A DMA with BME set is
 * always fine — Linux's mlx4 sets it (pci_set_master) before it starts the firmware again.
 *
 * Changes of BME are logged too ("bus mastering on/off"), whether by a config write or by a reset
 * (which brings the command register back to 0), so a log shows when the device was allowed to DMA.
 */
#include "hcasim_int.h"

#define PCI_COMMAND_OFF 0x04
#define PCI_COMMAND_BME 0x04
/* The first violations are logged one by one, then every 1024th (a receive ring may try often). */
#define DMA_GUARD_LOG_FIRST 8u
#define DMA_GUARD_LOG_EVERY 1024u

bool hcasim_bus_master(const struct hcasim *h)
{
	return h->cfgsp[PCI_COMMAND_OFF] & PCI_COMMAND_BME;
}

bool hcasim_dma_guard(struct hcasim *h, uint64_t gpa, size_t len, bool write)
{
	uint64_t n;

	if (hcasim_bus_master(h))
		return true;
	n = ++h->dma_no_master;
	if (n <= DMA_GUARD_LOG_FIRST || n % DMA_GUARD_LOG_EVERY == 0)
		hcasim_refuse(h, "DMA %s of %zu bytes at %#llx without bus mastering (PCI command "
			      "BME clear): violation %llu", write ? "write" : "read", len,
			      (unsigned long long)gpa, (unsigned long long)n);
	return false;
}

void hcasim_dma_guard_sync(struct hcasim *h, const char *why)
{
	bool on = hcasim_bus_master(h);

	if (on == h->dma_guard_master)
		return;
	h->dma_guard_master = on;
	hcasim_log(h, "hcasim: bus mastering %s (%s); DMA attempted without it so far: %llu",
		   on ? "on" : "off", why, (unsigned long long)h->dma_no_master);
}

uint64_t hcasim_dma_without_master(const struct hcasim *h)
{
	return h->dma_no_master;
}

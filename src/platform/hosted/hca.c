/* SPDX-License-Identifier: MIT */
/*
 * The Hermon model in-process: an hcasim instance on the hosted PCI bus, its DMA checked against
 * the buffer arena, its ports optionally cabled to fabsim (hca_attach). The driver reaches it
 * through the same config/MMIO accessors it uses on hardware; plat_poll() runs the model.
 */
#include <ibboot/hosted.h>
#include <ibboot/platform.h>
#include <hcasim.h>
#include <hca_attach.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Steps per poll: enough to drain a burst of doorbells, bounded so a busy model cannot starve
 * the firmware. */
#define HCA_STEPS_PER_POLL 64
/* Packets taken from the fabric per poll. The model's receive FIFO holds 256 and a step drains
 * it; taking a socket's whole backlog at once (after the process was descheduled: up to 4 MiB,
 * ~2,000 packets) overflowed it and dropped packets (bench-rig at load 12: 400 of 135,005) where
 * InfiniBand's credit-based link flow control (IBA 7.9) loses none. The rest waits in the socket,
 * as it would wait for credits at the switch port. */
#define HCA_MSGS_PER_POLL 64

struct hosted_hca {
	struct hcasim *h;
	struct hca_attach *fabric;
	bool log;
};

static int hca_dma_read(void *ctx __unused, uint64_t gpa, void *buf, size_t len)
{
	void *p = hosted_dma_ptr(gpa, len);

	if (!p)
		return -1;   /* outside the arena: the model reports a bus error */
	memcpy(buf, p, len);
	return 0;
}

static int hca_dma_write(void *ctx __unused, uint64_t gpa, const void *buf, size_t len)
{
	void *p = hosted_dma_ptr(gpa, len);

	if (!p)
		return -1;
	memcpy(p, buf, len);
	return 0;
}

static void hca_packet_out(void *ctx, unsigned port, const void *pkt, size_t len)
{
	struct hosted_hca *hh = ctx;

	hca_attach_packet_out(hh->fabric, port, pkt, len);   /* NULL fabric: no cable, dropped */
}

/* The model's end of a cable trained (cable + INIT_PORT) or dropped (CLOSE_PORT, CLOSE_HCA,
 * reset): fabsim keeps the switch port Down until then, so the SM sees the port go down at the
 * driver's reset and come up at INIT_PORT, as on silicon. */
static void hca_link_change(void *ctx, unsigned port, bool up)
{
	struct hosted_hca *hh = ctx;

	if (hh->log)
		fprintf(stderr, "hosted: port %u physical link %s\n", port, up ? "up" : "down");
	hca_attach_link_change(hh->fabric, port, up);   /* NULL fabric: nothing to tell */
}

static uint64_t hca_now_ns(void *ctx __unused)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void hca_log(void *ctx, const char *line)
{
	struct hosted_hca *hh = ctx;

	if (hh->log)
		fprintf(stderr, "hcasim: %s\n", line);
}

static uint32_t hca_cfg_read(void *ctx, unsigned off, unsigned size)
{
	return hcasim_cfg_read(((struct hosted_hca *)ctx)->h, off, size);
}

static void hca_cfg_write(void *ctx, unsigned off, uint32_t val, unsigned size)
{
	hcasim_cfg_write(((struct hosted_hca *)ctx)->h, off, val, size);
}

static void hca_bar_read(void *ctx, unsigned bar, uint64_t off, void *data, unsigned size)
{
	hcasim_bar_read(((struct hosted_hca *)ctx)->h, bar, off, data, size);
}

static void hca_bar_write(void *ctx, unsigned bar, uint64_t off, const void *data, unsigned size)
{
	struct hosted_hca *hh = ctx;

	hcasim_bar_write(hh->h, bar, off, data, size);
	hcasim_step(hh->h);   /* a doorbell or HCR go bit starts work at once, as on hardware */
}

static bool hca_poll(void *ctx)
{
	struct hosted_hca *hh = ctx;
	int msgs = 0, steps = 0;

	if (hh->fabric && (msgs = hca_attach_poll_max(hh->fabric, HCA_MSGS_PER_POLL)) < 0) {
		fprintf(stderr, "hosted: fabsim went away; the HCA's ports are down\n");
		hca_attach_close(hh->fabric);
		hh->fabric = NULL;
		msgs = 0;
	}
	while (steps < HCA_STEPS_PER_POLL && hcasim_step(hh->h))
		steps++;
	return msgs > 0 || steps > 0;
}

/* HOSTED_HCA_STATS=1 (bench-rig): at exit, each port's packets the model received and those it
 * dropped (its receive FIFO full or a bad header; no receive WQE posted), on stderr. */
static struct hosted_hca *stats_hca;
static unsigned stats_ports;

static void hca_print_stats(void)
{
	for (unsigned p = 1; p <= stats_ports; p++) {
		struct hcasim_port_stats st;

		if (hcasim_port_stats(stats_hca->h, p, &st) == 0)
			fprintf(stderr, "hosted: HCA port %u: rx %llu packets; dropped: FIFO full or bad header %llu, no receive WQE %llu, bad CRC %llu\n",
				p, (unsigned long long)st.rx_packets, (unsigned long long)st.rx_bad_hdr,
				(unsigned long long)st.rx_no_wqe, (unsigned long long)st.rx_bad_crc);
	}
}

static const struct soft_pci_ops hca_ops = {
	.cfg_read = hca_cfg_read,
	.cfg_write = hca_cfg_write,
	.bar_read = hca_bar_read,
	.bar_write = hca_bar_write,
	.poll = hca_poll,
};

int hosted_hca_add(uint32_t bdf, const struct hosted_hca_options *o, char *err, size_t errlen)
{
	struct hosted_hca *hh = calloc(1, sizeof(*hh));
	unsigned ports = o->num_ports ? o->num_ports : 2;
	uint64_t guid = o->node_guid ? o->node_guid : HOSTED_HCA_DEFAULT_GUID;
	/* Port GUIDs set explicitly (mlx4's convention, and util/netboot-env's: port p is the node
	 * GUID + p): fabsim cables ports by GUID, so the model and the fabric must agree. */
	struct hcasim_config cfg = {
		.device_id = o->device_id, .node_guid = guid, .num_ports = ports,
		.port_guid = { guid + 1, guid + 2 }, .node_desc = "ibboot-hosted",
	};
	struct hcasim_host_ops ops = {
		.dma_read = hca_dma_read, .dma_write = hca_dma_write, .packet_out = hca_packet_out,
		.now_ns = hca_now_ns, .log = hca_log, .link_change = hca_link_change,
	};

	if (!hh || ports > HCA_ATTACH_MAX_PORTS) {
		snprintf(err, errlen, "%s", hh ? "at most 2 ports" : "out of memory");
		free(hh);
		return -1;
	}
	hh->log = o->log;
	ops.ctx = hh;
	hh->h = hcasim_create(&cfg, &ops);
	if (!hh->h) {
		snprintf(err, errlen, "the model refused its configuration");
		free(hh);
		return -1;
	}
	if (o->fabric) {
		hh->fabric = hca_attach_open_flags(hh->h, o->fabric, ports, cfg.port_guid,
						   "ibboot-hosted", HCA_ATTACH_REPORTS_LINK, err,
						   errlen);
		if (!hh->fabric)
			goto fail;
		for (unsigned p = 1; p <= ports; p++) {
			const char *why = NULL;

			if (!hca_attach_port_status(hh->fabric, p, &why))
				fprintf(stderr, "hosted: port %u not cabled: %s\n", p,
					why ? why : "refused by fabsim");
		}
	}
	int rc = soft_pci_register(bdf, &hca_ops, hh);
	if (rc) {
		snprintf(err, errlen, "PCI slot %02x:%02x.%x is taken", PCI_BUS(bdf), PCI_DEV(bdf),
			 PCI_FN(bdf));
		goto fail;
	}
	if (!stats_hca && getenv("HOSTED_HCA_STATS")) {
		stats_hca = hh;
		stats_ports = ports;
		atexit(hca_print_stats);
	}
	return 0;
fail:
	if (hh->fabric)
		hca_attach_close(hh->fabric);
	hcasim_destroy(hh->h);
	free(hh);
	return -1;
}

/* SPDX-License-Identifier: MIT */
/*
 * hca-rig SOCKET NAME NODE_GUID NUM_PORTS
 *
 * One whole HCA model (libhcasim) on fabsim: util/hcasim/tests/rawhost plays a driver-less host
 * (guest memory, HCR commands) and brings the device up by raw commands to INIT_HCA, then attaches
 * its ports to fabsim with hca_attach, then INIT_PORT. From then on the model's own firmware SMA
 * answers the SM. Port p's GUID is NODE_GUID + p. Runs until SIGTERM/SIGINT.
 *
 * rawhost keeps the packets the model emits in a ring (rh.pkts); the rig forwards each new one to
 * fabsim after every call into the model, and counts any it was too slow to see. It also reports
 * the model's own link training (rh.link_up, from ops->link_change) to fabsim, so the switch port
 * stays Down until the model's port is initialised (HCA_ATTACH_REPORTS_LINK).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hca_attach.h"
#include "rawhost.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct rig {
	struct rawhost rh;
	struct hca_attach *att;
	unsigned seen;          /* packets of rh.pkts already forwarded */
	unsigned long missed;
	bool reported[3];       /* link state last reported to fabsim, per port */
	unsigned num_ports;
};

static void forward_new_packets(struct rig *r)
{
	for (unsigned p = 1; p <= r->num_ports; p++)
		if (r->rh.link_up[p] != r->reported[p]) {
			r->reported[p] = r->rh.link_up[p];
			hca_attach_link_change(r->att, p, r->reported[p]);
		}
	if (r->rh.npkts - r->seen > RAWHOST_MAX_PKTS) {
		r->missed += r->rh.npkts - r->seen - RAWHOST_MAX_PKTS;
		r->seen = r->rh.npkts - RAWHOST_MAX_PKTS;
	}
	for (; r->seen != r->rh.npkts; r->seen++) {
		struct rawhost_pkt *p = &r->rh.pkts[r->seen % RAWHOST_MAX_PKTS];

		hca_attach_packet_out(r->att, p->port, p->data, p->len);
	}
}

int main(int argc, char **argv)
{
	static struct rig r;
	struct hcasim_config cfg = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t guids[HCA_ATTACH_MAX_PORTS], last;
	char err[256], *end;
	int st;

	if (argc != 5) {
		fprintf(stderr, "usage: hca-rig SOCKET NAME NODE_GUID NUM_PORTS\n");
		return 2;
	}
	cfg.node_guid = strtoull(argv[3], &end, 0);
	cfg.num_ports = (unsigned)strtoul(argv[4], NULL, 0);
	cfg.node_desc = argv[2];
	if (*end || !cfg.node_guid || cfg.num_ports < 1 || cfg.num_ports > HCA_ATTACH_MAX_PORTS) {
		fprintf(stderr, "hca-rig: bad NODE_GUID or NUM_PORTS (1..%d)\n", HCA_ATTACH_MAX_PORTS);
		return 2;
	}
	for (unsigned i = 0; i < cfg.num_ports; i++)
		guids[i] = cfg.port_guid[i] = cfg.node_guid + i + 1;
	if (rawhost_init(&r.rh, &cfg) < 0) {
		fprintf(stderr, "hca-rig: the model could not be created\n");
		return 1;
	}
	st = rawhost_bringup_hca(&r.rh);
	if (st) {
		fprintf(stderr, "hca-rig: bring-up to INIT_HCA failed, HCR status 0x%x (%s)\n", st,
			r.rh.last_log);
		rawhost_fini(&r.rh);
		return 1;
	}
	r.num_ports = cfg.num_ports;
	r.att = hca_attach_open_flags(r.rh.h, argv[1], cfg.num_ports, guids, argv[2],
				      HCA_ATTACH_REPORTS_LINK, err, sizeof(err));
	if (!r.att) {
		fprintf(stderr, "hca-rig: %s\n", err);
		rawhost_fini(&r.rh);
		return 1;
	}
	for (unsigned p = 1; p <= cfg.num_ports; p++) {
		const char *why;
		bool ok = hca_attach_port_status(r.att, p, &why);

		printf("hca-rig %s port %u GUID 0x%016" PRIx64 ": %s\n", argv[2], p, guids[p - 1],
		       ok ? "attached" : why);
	}
	hca_attach_poll(r.att);           /* the LINK messages that follow the ACKs */
	st = rawhost_bringup_rest(&r.rh);
	if (st) {
		fprintf(stderr, "hca-rig: bring-up to INIT_PORT failed, HCR status 0x%x (%s)\n", st,
			r.rh.last_log);
		hca_attach_close(r.att);
		rawhost_fini(&r.rh);
		return 1;
	}
	forward_new_packets(&r);
	printf("hca-rig %s: INIT_PORT done\n", argv[2]);
	fflush(stdout);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	last = mono_ns();
	while (!stop) {
		struct pollfd pfd[HCA_ATTACH_MAX_PORTS];
		int n = hca_attach_pollfds(r.att, pfd, HCA_ATTACH_MAX_PORTS);
		uint64_t now;

		if (n == 0)
			break;
		if (poll(pfd, (nfds_t)n, 1) < 0 && errno != EINTR)
			break;
		/* One message at a time: whatever the model answers is forwarded before the next. */
		while ((n = hca_attach_poll_max(r.att, 1)) > 0)
			forward_new_packets(&r);
		if (n < 0)
			fprintf(stderr, "hca-rig %s: a port lost fabsim\n", argv[2]);
		/* The model's clock follows real time; it only ever sees it through now_ns. */
		now = mono_ns();
		r.rh.now += now - last;
		last = now;
		while (hcasim_step(r.rh.h))
			forward_new_packets(&r);
		forward_new_packets(&r);
	}
	if (r.missed)
		fprintf(stderr, "hca-rig %s: %lu packets left the model faster than forwarded\n",
			argv[2], r.missed);
	hca_attach_close(r.att);
	rawhost_fini(&r.rh);
	return 0;
}

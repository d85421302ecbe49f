/* SPDX-License-Identifier: MIT */
/*
 * fabsim: command line and the poll loop. One thread; everything happens in reaction to a socket
 * becoming readable or a queued (delayed) packet falling due.
 */
#include "fabsim.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#define MAX_POLLFDS 128

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: fabsim --topology FILE [options]\n"
		"  --topology FILE     switches, SM hosts, HCA ports and cables (see util/fabsim/README.md)\n"
		"  --hca-socket PATH   SOCK_SEQPACKET socket where HCA ports attach (fabsim_wire.h)\n"
		"  --ibsim-name NAME   abstract socket base for umad2sim clients (default: $IBSIM_SOCKNAME,\n"
		"                      else \"sim\"); OpenSM/diags run with IBSIM_SOCKNAME=NAME\n"
		"  --control PATH      run-time control socket (fabsimctl PATH COMMAND...)\n"
		"  --pcap FILE         capture every packet that crosses a cable (LINKTYPE_INFINIBAND)\n"
		"  --seed N            seed of the fault generators (default 1)\n"
		"  --fault \"LINK|all KNOB=V...\"  as the control command 'fault' (repeatable)\n"
		"  --link-down LINK    start with that cable unplugged (repeatable)\n"
		"  -v, --verbose       more log on stderr (repeatable)\n"
		"  --servernode ARGS   the rest of the command line: run the IPoIB server node as a port\n"
		"                      inside fabsim, ARGS as bin/fabsim-servernode's without --socket\n"
		"                      (--guid GUID [--tun DEV] [--ip A.B.C.D/N] [--name N] [--pkey P] [-v])\n");
}

/* --fault ARG is the control command "fault ARG"; --link-down LINK is "link LINK down". */
struct pending_cmd {
	int opt;
	const char *arg;
};

static int run_startup_commands(struct fabric *f, struct pending_cmd *cmds, int n)
{
	char line[1100], reply[4096];

	for (int i = 0; i < n; i++) {
		if (cmds[i].opt == 'd')
			snprintf(line, sizeof(line), "link %s down", cmds[i].arg);
		else
			snprintf(line, sizeof(line), "fault %s", cmds[i].arg);
		if (control_exec(f, line, reply, sizeof(reply)) < 0) {
			fprintf(stderr, "fabsim: %s: %s", line, reply);
			return -EINVAL;
		}
	}
	return 0;
}

/* Queue runs in a row before the sockets are polled again (a packet crosses one switch per run). */
#define QUEUE_TURNS 8

static int poll_loop(struct fabric *f)
{
	struct pollfd pfd[MAX_POLLFDS];

	while (!stop_signal) {
		/* The server node's timers first: what they send crosses the fabric in this turn. */
		int sn_timer = sn_port_tick();
		int timeout = fabric_run_queue(f);
		/* A queue run delivers only what was queued before it (a forwarding loop cannot keep
		 * it from returning); what it forwarded is due now. Give those a few more runs here:
		 * a poll() that would return at once costs a system call per hop. */
		for (int turn = 1; timeout == 0 && turn < QUEUE_TURNS; turn++)
			timeout = fabric_run_queue(f);
		int expiry = ibsim_server_expire(f);
		int nc = control_pollfds(pfd, MAX_POLLFDS);
		int ni = ibsim_server_pollfds(pfd + nc, MAX_POLLFDS - nc);
		int nh = hca_server_pollfds(pfd + nc + ni, MAX_POLLFDS - nc - ni);
		int ns = sn_port_pollfds(pfd + nc + ni + nh, MAX_POLLFDS - nc - ni - nh);
		int r;

		if (expiry >= 0 && (timeout < 0 || expiry < timeout))
			timeout = expiry;
		if (sn_timer >= 0 && (timeout < 0 || sn_timer < timeout))
			timeout = sn_timer;
		r = poll(pfd, (nfds_t)(nc + ni + nh + ns), timeout);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			perror("fabsim: poll");
			return 1;
		}
		if (control_handle(f, pfd, nc))
			return 0;
		ibsim_server_handle(f, pfd + nc, ni);
		hca_server_handle(f, pfd + nc + ni, nh);
		sn_port_handle(pfd + nc + ni + nh, ns);
	}
	fabsim_log(f, 0, "stopped by signal %d", (int)stop_signal);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "hca-socket", required_argument, NULL, 'H' },
		{ "ibsim-name", required_argument, NULL, 'i' },
		{ "control", required_argument, NULL, 'c' },
		{ "pcap", required_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 's' },
		{ "fault", required_argument, NULL, 'f' },
		{ "link-down", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *topo = NULL, *hca_sock = NULL, *ctl = NULL, *pcap = NULL;
	const char *ibsim_name = getenv("IBSIM_SOCKNAME");
	struct pending_cmd cmds[64];
	int ncmds = 0, opt, rc = 1;
	struct fabric f = { .seed = 1 };
	char err[512];
	bool has_smhost = false;
	struct sigaction sa = { .sa_handler = on_signal };

	/* --servernode: everything after it is the server node's (sn_port.c). */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--servernode")) {
			int r = sn_port_parse(argc - i, argv + i);

			if (r)
				return r == 1 ? 0 : 2;
			argc = i;
			optind = 0;
			break;
		}

	while ((opt = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		char *end;

		switch (opt) {
		case 't': topo = optarg; break;
		case 'H': hca_sock = optarg; break;
		case 'i': ibsim_name = optarg; break;
		case 'c': ctl = optarg; break;
		case 'p': pcap = optarg; break;
		case 's':
			errno = 0;
			f.seed = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end) {
				fprintf(stderr, "fabsim: --seed %s: not a number\n", optarg);
				return 2;
			}
			break;
		case 'f':
		case 'd':
			if (ncmds == (int)(sizeof(cmds) / sizeof(cmds[0]))) {
				fprintf(stderr, "fabsim: too many --fault/--link-down options\n");
				return 2;
			}
			cmds[ncmds++] = (struct pending_cmd){ opt, optarg };
			break;
		case 'v': f.verbose++; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!topo || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (topo_load(&f, topo, err, sizeof(err)) < 0) {
		fprintf(stderr, "fabsim: %s\n", err);
		goto out;
	}
	for (unsigned i = 0; i < f.nlinks; i++) {
		/* Each link gets its own generator so faults on one do not shift another's. */
		f.links[i]->rng = f.seed * 0x9e3779b97f4a7c15ull + i + 1;
		link_update(&f, f.links[i]);
	}
	if (run_startup_commands(&f, cmds, ncmds) < 0)
		goto out;
	for (unsigned i = 0; i < f.nnodes; i++)
		has_smhost |= f.nodes[i]->kind == NODE_SMHOST;
	if (has_smhost && ibsim_server_open(&f, ibsim_name ? ibsim_name : "sim", err, sizeof(err)) < 0) {
		fprintf(stderr, "fabsim: %s\n", err);
		goto out;
	}
	if (hca_sock && hca_server_open(&f, hca_sock, err, sizeof(err)) < 0) {
		fprintf(stderr, "fabsim: %s\n", err);
		goto out;
	}
	if (ctl && control_open(ctl, err, sizeof(err)) < 0) {
		fprintf(stderr, "fabsim: %s\n", err);
		goto out;
	}
	if (pcap && pcap_open(&f, pcap, err, sizeof(err)) < 0) {
		fprintf(stderr, "fabsim: %s\n", err);
		goto out;
	}
	if (sn_port_open(&f, err, sizeof(err)) < 0) {
		fprintf(stderr, "fabsim: %s\n", err);
		goto out;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	printf("fabsim: ready: %u nodes, %u cables%s%s%s%s\n", f.nnodes, f.nlinks,
	       has_smhost ? ", ibsim socket @" : "",
	       has_smhost ? (ibsim_name ? ibsim_name : "sim") : "",
	       hca_sock ? ", HCA socket " : "", hca_sock ? hca_sock : "");
	fflush(stdout);
	rc = poll_loop(&f);
out:
	sn_port_close();
	control_close();
	hca_server_close(&f);
	ibsim_server_close();
	fabric_free(&f);
	return rc;
}

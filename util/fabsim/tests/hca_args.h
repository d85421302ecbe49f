/* SPDX-License-Identifier: MIT */
/*
 * The command line of fabsim's two HCA stand-ins (hca-rig: the whole model; hca-standin: the
 * model's SMA alone):  [--join] SOCKET NAME NODE_GUID NUM_PORTS
 * NAME is also the node description.
 */
#ifndef FABSIM_TESTS_HCA_ARGS_H
#define FABSIM_TESTS_HCA_ARGS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcasim.h"

struct hca_args {
	bool join;              /* --join: join the IPoIB broadcast group once ACTIVE */
	const char *socket, *name;
};

/* Fills a and the node part of cfg. Returns 0, or the exit status 2 after saying why. */
static inline int hca_args_parse(int argc, char **argv, const char *prog, unsigned max_ports,
				 struct hca_args *a, struct hcasim_config *cfg)
{
	char *end;

	a->join = argc > 1 && !strcmp(argv[1], "--join");
	if (a->join) {
		argv++;
		argc--;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: %s [--join] SOCKET NAME NODE_GUID NUM_PORTS\n", prog);
		return 2;
	}
	a->socket = argv[1];
	a->name = argv[2];
	cfg->node_guid = strtoull(argv[3], &end, 0);
	cfg->num_ports = (unsigned)strtoul(argv[4], NULL, 0);
	cfg->node_desc = argv[2];
	if (*end || !cfg->node_guid || cfg->num_ports < 1 || cfg->num_ports > max_ports) {
		fprintf(stderr, "%s: bad NODE_GUID or NUM_PORTS (1..%u)\n", prog, max_ports);
		return 2;
	}
	return 0;
}

#endif

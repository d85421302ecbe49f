/* SPDX-License-Identifier: MIT */
/*
 * sn_bridge — the server node's IPoIB <-> TUN bridge, whoever moves its IB packets: the
 * bin/fabsim-servernode program (over fabsim's HCA socket) or fabsim itself (`fabsim ...
 * --servernode ARGS`: the node is a port inside fabsim, no socket hop). Both take the same
 * options (sn_bridge_parse) and log the same lines ("servernode: ...", stderr).
 */
#ifndef SERVERNODE_SN_BRIDGE_H
#define SERVERNODE_SN_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sn_bridge_opts {
	const char *socket;        /* --socket (the separate program only) */
	const char *name, *tun, *ip;
	uint64_t guid, node_guid, qpn, pkey;
	bool verbose;
};

/* getopt_long over argv (argv[0] is skipped). with_socket: --socket is accepted and required.
 * Returns 0 (go on), 1 (--help printed: exit 0), 2 (bad usage, said on stderr: exit 2). */
int sn_bridge_parse(int argc, char **argv, bool with_socket, struct sn_bridge_opts *o);

struct sn_bridge;

/* Opens the TUN (in the caller's network namespace) and creates the IPoIB node; its packets go
 * to send_packet(ctx, ...). NULL with the reason in err. */
struct sn_bridge *sn_bridge_open(const struct sn_bridge_opts *o,
				 void (*send_packet)(void *ctx, const uint8_t *pkt, size_t len),
				 void *ctx, char *err, size_t errlen);
/* "attached ..." once the node's port is on the fabric (where: "fabsim at PATH", "fabsim"). */
void sn_bridge_log_attached(const struct sn_bridge *b, const char *where);
int sn_bridge_tun_fd(const struct sn_bridge *b);
/* One TUN read (a TCP super-segment with offloads), cut and sent onto the fabric. */
void sn_bridge_tun_read(struct sn_bridge *b);
void sn_bridge_packet_in(struct sn_bridge *b, const uint8_t *pkt, size_t len);
void sn_bridge_link(struct sn_bridge *b, bool up);
/* The node's timers; ms until it wants to be called again (-1: idle). */
int sn_bridge_tick(struct sn_bridge *b);
/* Prints the node's counters and frees everything. */
void sn_bridge_close(struct sn_bridge *b);

#endif

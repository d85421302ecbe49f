/* SPDX-License-Identifier: MIT */
/*
 * The IPoIB server node as a port inside fabsim (`fabsim ... --servernode ARGS`): the same node
 * as bin/fabsim-servernode (util/fabsim/servernode/sn_bridge.c, the same options and log lines),
 * attached to its hca-port of the topology without a socket. Its packets enter the fabric through
 * port_transmit like any port's (the cable's faults, the switch's CRC checks, the capture all
 * apply) and what the fabric delivers to its port reaches it through the hca-port's local
 * endpoint (hca_server_deliver); the TUN device is read in fabsim's poll loop. The socket hop
 * between two processes and the separate process's wakeups are what this saves.
 */
#include "fabsim.h"
#include "sn_bridge.h"

#include <inttypes.h>
#include <string.h>

static struct {
	bool wanted;               /* --servernode was given */
	struct sn_bridge_opts opts;
	struct fabric *f;
	struct node *hp;
	struct sn_bridge *b;
	struct local_port lp;
} snp;

static void sn_send(void *ctx, const uint8_t *pkt, size_t len)
{
	(void)ctx;
	if (snp.hp)
		port_transmit(snp.f, &snp.hp->ports[1], pkt, len);
}

static void sn_packet(void *ctx, const uint8_t *pkt, size_t len)
{
	(void)ctx;
	sn_bridge_packet_in(snp.b, pkt, len);
}

static void sn_link(void *ctx, bool up)
{
	(void)ctx;
	sn_bridge_link(snp.b, up);
}

int sn_port_parse(int argc, char **argv)
{
	snp.wanted = true;
	return sn_bridge_parse(argc, argv, false, &snp.opts);
}

int sn_port_open(struct fabric *f, char *err, size_t errlen)
{
	struct node *hp;

	if (!snp.wanted)
		return 0;
	hp = fabric_find_hca_port(f, snp.opts.guid);
	if (!hp || !hp->ports[1].link) {
		snprintf(err, errlen, "--servernode: no cable for GUID 0x%016" PRIx64 " in the topology",
			 snp.opts.guid);
		return -1;
	}
	snp.b = sn_bridge_open(&snp.opts, sn_send, NULL, err, errlen);
	if (!snp.b)
		return -1;
	snp.f = f;
	snp.hp = hp;
	snp.lp = (struct local_port){ .packet = sn_packet, .link = sn_link };
	hp->local = &snp.lp;
	hp->hca_port_num = 1;
	hp->hca_reports_link = false;
	sn_bridge_log_attached(snp.b, "fabsim (a port inside it)");
	fabsim_log(f, 0, "hca-port %s: the server node runs inside fabsim", hp->name);
	link_update(f, hp->ports[1].link);
	return 0;
}

int sn_port_pollfds(struct pollfd *pfd, int max)
{
	if (!snp.b || max < 1)
		return 0;
	pfd[0] = (struct pollfd){ .fd = sn_bridge_tun_fd(snp.b), .events = POLLIN };
	return 1;
}

/* One TUN read per turn of the poll loop: the next poll() says whether another waits, and this
 * one's packets cross the fabric first. */
void sn_port_handle(const struct pollfd *pfd, int n)
{
	if (n == 1 && snp.b && (pfd[0].revents & POLLIN))
		sn_bridge_tun_read(snp.b);
}

/* As bin/fabsim-servernode's loop: an idle node is still called once a second. */
int sn_port_tick(void)
{
	int t;

	if (!snp.b)
		return -1;
	t = sn_bridge_tick(snp.b);
	return t < 0 ? 1000 : t;
}

void sn_port_close(void)
{
	if (!snp.b)
		return;
	if (snp.hp)
		snp.hp->local = NULL;
	sn_bridge_close(snp.b);
	snp.b = NULL;
	snp.hp = NULL;
}

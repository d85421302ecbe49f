/* SPDX-License-Identifier: MIT */
/*
 * fabsim-servernode — the fabric's IPoIB server host. Attaches to fabsim as a CA port, answers
 * the SM through the firmware SMA library, joins the IPoIB broadcast group and bridges IPv4
 * between the fabric and a TUN device, behind which the real dnsmasq and nginx run
 * (sn_bridge.c; `fabsim --servernode ...` runs the same node inside fabsim instead).
 *
 * Run it inside the network namespace that holds the TUN device (ip netns exec NS ...): the TUN
 * is opened in the caller's namespace, while fabsim's Unix socket is reached by path from any
 * namespace.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fabsim_client_ref.h"
#include "fabsim_wire.h"
#include "sn_bridge.h"

/* Packets to fabsim leave in batches: one sendmmsg per turn of the loop (or per TX_BATCH). */
#define TX_BATCH 64

struct tx_slot {
	struct fabsim_wire_hdr h;
	uint8_t data[FABSIM_WIRE_MAX_DATA];
};

struct servernode {
	struct fabsim_client *fab;
	unsigned ntx;
	struct tx_slot tx[TX_BATCH];
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) { stop_signal = sig; }

/* Sends what is queued (fabsim_wire.h PACKET messages). A full socket means fabsim is behind: the
 * rest is dropped like a congested link would (as fabsim_client_send_packet does). */
static void flush_packets(struct servernode *sn)
{
	struct mmsghdr mm[TX_BATCH];
	struct iovec iov[TX_BATCH][2];
	unsigned sent = 0;

	for (unsigned i = 0; i < sn->ntx; i++) {
		iov[i][0] = (struct iovec){ &sn->tx[i].h, sizeof(sn->tx[i].h) };
		iov[i][1] = (struct iovec){ sn->tx[i].data, sn->tx[i].h.len };
		mm[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = iov[i], .msg_iovlen = 2 } };
	}
	while (sent < sn->ntx) {
		int r = sendmmsg(fabsim_client_fd(sn->fab), mm + sent, sn->ntx - sent,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			fprintf(stderr, "servernode: sending %u packets to fabsim failed: %s\n",
				sn->ntx - sent, strerror(errno));
		if (r <= 0)
			break;
		sent += (unsigned)r;
	}
	sn->ntx = 0;
}

static void send_packet(void *ctx, const uint8_t *pkt, size_t len)
{
	struct servernode *sn = ctx;

	if (len > FABSIM_WIRE_MAX_DATA) {
		fprintf(stderr, "servernode: a %zu-byte packet does not fit a fabsim message\n", len);
		return;
	}
	sn->tx[sn->ntx].h = (struct fabsim_wire_hdr){ .type = FABSIM_MSG_PACKET, .len = (uint32_t)len };
	memcpy(sn->tx[sn->ntx].data, pkt, len);
	if (++sn->ntx == TX_BATCH)
		flush_packets(sn);
}

int main(int argc, char **argv)
{
	static struct servernode sn;
	struct sn_bridge_opts o;
	struct sn_bridge *b;
	char err[256], where[200];
	int rc = sn_bridge_parse(argc, argv, true, &o);

	if (rc)
		return rc == 1 ? 0 : 2;
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	b = sn_bridge_open(&o, send_packet, &sn, err, sizeof err);
	if (!b) {
		fprintf(stderr, "servernode: %s\n", err);
		return 1;
	}
	sn.fab = fabsim_client_connect(o.socket, o.guid, 1, o.name, err, sizeof err);
	if (!sn.fab) {
		fprintf(stderr, "servernode: cannot attach to fabsim at %s: %s\n", o.socket, err);
		sn_bridge_close(b);
		return 1;
	}
	snprintf(where, sizeof where, "fabsim at %s", o.socket);
	sn_bridge_log_attached(b, where);

	while (!stop_signal) {
		struct pollfd pfd[2] = {
			{ .fd = fabsim_client_fd(sn.fab), .events = POLLIN },
			{ .fd = sn_bridge_tun_fd(b), .events = POLLIN },
		};
		int timeout = sn_bridge_tick(b);
		flush_packets(&sn);
		if (poll(pfd, 2, timeout < 0 ? 1000 : timeout) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "servernode: poll: %s\n", strerror(errno));
			rc = 1;
			break;
		}
		if (pfd[0].revents) {
			struct fabsim_msg_ref msg;
			int r;
			while ((r = fabsim_client_recv_ref(sn.fab, &msg)) == 1) {
				if (msg.type == FABSIM_MSG_LINK)
					sn_bridge_link(b, msg.flags == FABSIM_LINK_UP);
				else if (msg.type == FABSIM_MSG_PACKET)
					sn_bridge_packet_in(b, msg.data, msg.len);
			}
			if (r < 0) {
				fprintf(stderr, "servernode: fabsim connection: %s; exiting\n", strerror(-r));
				rc = 1;
				break;
			}
		}
		/* One TUN read per turn: the next poll() says whether another waits (reading on
		 * until EAGAIN costs a system call per wakeup), and this one's packets leave first. */
		if (pfd[1].revents & POLLIN)
			sn_bridge_tun_read(b);
	}
	if (stop_signal)
		fprintf(stderr, "servernode: signal %d: detaching\n", (int)stop_signal);
	flush_packets(&sn);
	sn_bridge_close(b);
	fabsim_client_close(sn.fab);
	return rc;
}

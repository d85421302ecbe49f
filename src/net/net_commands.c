/* SPDX-License-Identifier: MIT */
/*
 * Waiting for a link and pinging: what the console's `ping` (src/cmd/net_cmd.c) and the DHCP
 * command do with a network device, through the public APIs.
 */
#include <ibboot/net_commands.h>
#include <ibboot/config.h>
#include <ibboot/ib_ulp.h>
#include <ibboot/ipoib.h>
#include <ibboot/ipv4.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>

int net_wait_link(struct net_device *nd, unsigned timeout_ms)
{
	uint64_t start = clock_ms(), next_report = start + LINK_WAIT_PROGRESS_MS;

	while (!nd->link_up) {
		uint64_t now = clock_ms();

		if (nd->link_error) {   /* waiting cannot help: say why at once */
			kprintf("%s: no link: %s\n", nd->name, nd->link_error);
			return -ENOENT;
		}

		if (now - start >= timeout_ms) {
			kprintf("%s: no link after %u s\n", nd->name, timeout_ms / 1000);
			return -ETIMEDOUT;
		}
		if ((int64_t)(now - next_report) >= 0) {
			kprintf("%s: waiting for link (%u s)\n", nd->name,
				(unsigned)((now - start) / 1000));
			next_report = now + LINK_WAIT_PROGRESS_MS;
		}
		net_poll();
	}
	return 0;
}

#define PING_ID      0x6962
#define PING_MAX     64        /* echo requests one ping command sends at most */

struct ping_state {
	uint32_t dst;
	unsigned count, received;
	uint64_t sent_ms[PING_MAX + 1];
	bool seen[PING_MAX + 1];
};

/* Replies are matched by id and sequence, late ones included (the first request of a run waits
 * for ARP and a PathRecord). */
static void ping_reply(void *ctx, uint32_t from, uint16_t id, uint16_t seq, size_t len)
{
	struct ping_state *p = ctx;

	if (from != p->dst || id != PING_ID || seq == 0 || seq > p->count || p->seen[seq])
		return;
	p->seen[seq] = true;
	p->received++;
	kprintf("ping %'u: %zu bytes, icmp_seq=%u time=%u ms\n", from, len, seq,
		(unsigned)(clock_ms() - p->sent_ms[seq]));
}

int net_ping(struct net_device *nd, uint32_t dst, unsigned count, unsigned timeout_ms)
{
	struct ping_state p;
	int rc = 0;

	memset(&p, 0, sizeof(p));
	p.dst = dst;
	p.count = count > PING_MAX ? PING_MAX : count;
	icmp_set_reply_handler(nd, ping_reply, &p);
	for (unsigned seq = 1; seq <= p.count && rc == 0; seq++) {
		p.sent_ms[seq] = clock_ms();
		rc = icmp_send_echo(nd, dst, PING_ID, (uint16_t)seq, 56);
		if (rc < 0) {
			kprintf("ping %'u: cannot send: %s\n", dst, ib_strerror(rc));
			break;
		}
		/* one request per interval, as ping(8) does, whenever its reply came */
		while (clock_ms() - p.sent_ms[seq] < timeout_ms)
			net_poll();
	}
	/* the last chance for late replies */
	for (uint64_t start = clock_ms(); p.received < p.count && clock_ms() - start < timeout_ms;)
		net_poll();
	icmp_set_reply_handler(nd, NULL, NULL);
	kprintf("ping %'u: %u sent, %u received\n", dst, p.count, p.received);
	if (rc < 0)
		return rc;
	return p.received ? (int)p.received : -ETIMEDOUT;
}

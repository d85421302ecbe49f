/* SPDX-License-Identifier: MIT */
/*
 * Console commands of the network layers: ibstat, ifstat, ipconfig, ping. The shell's command
 * table (src/core) lists net_commands[]; everything here works through the public APIs.
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
	char a[16];

	if (from != p->dst || id != PING_ID || seq == 0 || seq > p->count || p->seen[seq])
		return;
	p->seen[seq] = true;
	p->received++;
	kprintf("ping %s: %zu bytes, icmp_seq=%u time=%u ms\n", ipv4_ntoa(from, a), len, seq,
		(unsigned)(clock_ms() - p->sent_ms[seq]));
}

int net_ping(struct net_device *nd, uint32_t dst, unsigned count, unsigned timeout_ms)
{
	struct ping_state p;
	char a[16];
	int rc = 0;

	memset(&p, 0, sizeof(p));
	p.dst = dst;
	p.count = count > PING_MAX ? PING_MAX : count;
	icmp_set_reply_handler(nd, ping_reply, &p);
	for (unsigned seq = 1; seq <= p.count && rc == 0; seq++) {
		p.sent_ms[seq] = clock_ms();
		rc = icmp_send_echo(nd, dst, PING_ID, (uint16_t)seq, 56);
		if (rc < 0) {
			kprintf("ping %s: cannot send: %s\n", ipv4_ntoa(dst, a), ib_strerror(rc));
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
	kprintf("ping %s: %u sent, %u received\n", ipv4_ntoa(dst, a), p.count, p.received);
	if (rc < 0)
		return rc;
	return p.received ? (int)p.received : -ETIMEDOUT;
}

static struct net_device *default_netdev(void)
{
	struct net_device *nd = netdev_find("ib0");

	if (!nd)
		kputs("no network device (is there an InfiniBand adapter?)\n");
	return nd;
}

static int cmd_ibstat(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ibstat_print();
	return 0;
}

static int cmd_ifstat(int argc, char **argv)
{
	char a[16], m[16];

	(void)argc;
	(void)argv;
	for (struct net_device *nd = netdev_first(); nd; nd = nd->next) {
		kprintf("%s: link %s, MTU %u, IPv4 %s/%s\n", nd->name, nd->link_up ? "up" : "down",
			nd->mtu, ipv4_ntoa(nd->ip_addr, a), ipv4_ntoa(nd->netmask, m));
		kprintf("  rx %u packets (%u dropped), tx %u packets (%u dropped, %u errors)\n",
			nd->stats.rx_packets, nd->stats.rx_dropped, nd->stats.tx_packets,
			nd->stats.tx_dropped, nd->stats.tx_errors);
	}
	return 0;
}

/* ipconfig ADDR/PREFIX [GATEWAY] */
static int cmd_ipconfig(int argc, char **argv)
{
	struct net_device *nd = default_netdev();
	uint32_t addr, gw = 0, mask;
	unsigned prefix = 24;
	char *slash;

	if (!nd)
		return -ENODEV;
	if (argc < 2) {
		kputs("usage: ipconfig ADDRESS[/PREFIX] [GATEWAY]\n");
		return -EINVAL;
	}
	slash = strchr(argv[1], '/');
	if (slash) {
		*slash = '\0';
		prefix = 0;
		for (const char *p = slash + 1; *p; p++) {
			if (*p < '0' || *p > '9' || prefix > 32)
				goto bad;
			prefix = prefix * 10 + (unsigned)(*p - '0');
		}
		if (prefix < 1 || prefix > 32)
			goto bad;
	}
	if (ipv4_aton(argv[1], &addr) < 0 || (argc > 2 && ipv4_aton(argv[2], &gw) < 0))
		goto bad;
	mask = prefix == 32 ? 0xffffffffu : ~(0xffffffffu >> prefix);
	return ipv4_configure(nd, addr, mask, gw);
bad:
	kputs("ipconfig: bad address (expected e.g. 198.18.0.2/24 198.18.0.1)\n");
	return -EINVAL;
}

/* ping ADDR [COUNT] */
static int cmd_ping(int argc, char **argv)
{
	struct net_device *nd = default_netdev();
	unsigned count = 3;
	uint32_t dst;
	int rc;

	if (!nd)
		return -ENODEV;
	if (argc < 2 || ipv4_aton(argv[1], &dst) < 0) {
		kputs("usage: ping ADDRESS [COUNT]\n");
		return -EINVAL;
	}
	if (argc > 2) {
		count = 0;
		for (const char *p = argv[2]; *p >= '0' && *p <= '9' && count < 1000; p++)
			count = count * 10 + (unsigned)(*p - '0');
		if (!count)
			count = 1;
	}
	if (!nd->ip_addr) {
		kputs("ping: no IPv4 address yet (ipconfig ADDRESS/PREFIX)\n");
		return -EINVAL;
	}
	rc = net_wait_link(nd, 60000);
	if (rc < 0)
		return rc;
	rc = net_ping(nd, dst, count, 1000);
	return rc < 0 ? rc : 0;
}

const struct shell_command net_commands[] = {
	{ "ibstat", "InfiniBand port state, LID, SM LID, GID, P_Key, rate, MTU", cmd_ibstat },
	{ "ifstat", "network devices: link, MTU, address, counters", cmd_ifstat },
	{ "ipconfig", "ipconfig ADDRESS[/PREFIX] [GATEWAY]: static IPv4 address on ib0",
	  cmd_ipconfig },
	{ "ping", "ping ADDRESS [COUNT]: ICMP echo over ib0", cmd_ping },
};
const unsigned net_commands_count = ARRAY_SIZE(net_commands);

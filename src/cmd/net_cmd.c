/* SPDX-License-Identifier: MIT */
/* Network device commands over the IP layers: ifstat, ipconfig, ping. */
#include <ibboot/shell.h>
#include <ibboot/net_commands.h>
#include <ibboot/ipv4.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>

static struct net_device *default_netdev(void)
{
	struct net_device *nd = netdev_find("ib0");

	if (!nd)
		kputs("no network device (no InfiniBand adapter?)\n");
	return nd;
}

static int cmd_ifstat(int argc __unused, char **argv __unused)
{
	for (struct net_device *nd = netdev_first(); nd; nd = nd->next) {
		kprintf("%s: link %s, MTU %u, IPv4 %'u/%'u\n", nd->name, nd->link_up ? "up" : "down",
			nd->mtu, nd->ip_addr, nd->netmask);
		kprintf("  rx %u (%u dropped), tx %u (%u dropped, %u errors)\n",
			nd->stats.rx_packets, nd->stats.rx_dropped, nd->stats.tx_packets,
			nd->stats.tx_dropped, nd->stats.tx_errors);
	}
	return 0;
}
SHELL_COMMAND(ifstat, CMD_ORDER_NET, "devices: link, MTU, address, counters", cmd_ifstat);

/* ipconfig ADDR/PREFIX [GATEWAY] */
static int cmd_ipconfig(int argc, char **argv)
{
	struct net_device *nd = default_netdev();
	uint32_t addr, gw = 0, mask;
	uint64_t prefix = 24;
	char *slash;

	if (!nd)
		return -ENODEV;
	if (argc < 2) {
		return shell_usage(argv[0]);
	}
	slash = strchr(argv[1], '/');
	if (slash) {
		*slash = '\0';
		if (!shell_parse_num(slash + 1, 32, &prefix) || !prefix)
			goto bad;
	}
	if (ipv4_aton(argv[1], &addr) < 0 || (argc > 2 && ipv4_aton(argv[2], &gw) < 0))
		goto bad;
	mask = prefix == 32 ? 0xffffffffu : ~(0xffffffffu >> prefix);
	return ipv4_configure(nd, addr, mask, gw);
bad:
	return shell_usage(argv[0]);
}
SHELL_COMMAND(ipconfig, CMD_ORDER_NET,
	      "ADDRESS[/PREFIX] [GATEWAY]: static IPv4 on ib0", cmd_ipconfig);

/* ping ADDR [COUNT] */
static int cmd_ping(int argc, char **argv)
{
	struct net_device *nd = default_netdev();
	uint64_t count = 3;
	uint32_t dst;
	int rc;

	if (!nd)
		return -ENODEV;
	if (argc < 2 || ipv4_aton(argv[1], &dst) < 0 ||
	    (argc > 2 && (!shell_parse_num(argv[2], 9999, &count) || !count)))
		return shell_usage(argv[0]);
	if (!nd->ip_addr) {
		kprintf("%s: %s has no IPv4 address (run dhcp first)\n", "ping", nd->name);
		return -EINVAL;
	}
	rc = net_wait_link(nd, 60000);
	if (rc < 0)
		return rc;
	rc = net_ping(nd, dst, (unsigned)count, 1000);
	return rc < 0 ? rc : 0;
}
SHELL_COMMAND(ping, CMD_ORDER_NET, "ADDRESS [COUNT]: ICMP echo over ib0", cmd_ping);

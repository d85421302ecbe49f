/* SPDX-License-Identifier: MIT */
/* The list of network devices, the receive dispatch by ethertype, and the network poll pass. */
#include <ibboot/net.h>
#include <ibboot/ib.h>
#include <ibboot/ipv4.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>

static struct net_device *netdev_list;

void netdev_register(struct net_device *nd)
{
	struct net_device **pp = &netdev_list;

	if (nd->registered)
		return;
	while (*pp)
		pp = &(*pp)->next;
	nd->next = NULL;
	*pp = nd;
	if (!nd->ip_id)
		nd->ip_id = 1;   /* the first datagram's Identification, as it always was */
	nd->registered = true;
}

void netdev_unregister(struct net_device *nd)
{
	for (struct net_device **pp = &netdev_list; *pp; pp = &(*pp)->next) {
		if (*pp == nd) {
			*pp = nd->next;
			break;
		}
	}
	nd->registered = false;
}

struct net_device *netdev_first(void)
{
	return netdev_list;
}

struct net_device *netdev_find(const char *name)
{
	for (struct net_device *nd = netdev_list; nd; nd = nd->next)
		if (!strcmp(nd->name, name))
			return nd;
	return NULL;
}

void net_rx(struct net_device *nd, uint16_t ethertype, const uint8_t *data, size_t len)
{
	nd->stats.rx_packets++;
	switch (ethertype) {
	case ETHERTYPE_IPV4:
		ipv4_rx(nd, data, len);
		break;
	default:
		nd->stats.rx_dropped++;
		break;
	}
}

void net_poll(void)
{
	uint64_t now;

	ib_poll();
	now = clock_ms();
	for (struct net_device *nd = netdev_list; nd; nd = nd->next)
		if (nd->ops->poll)
			nd->ops->poll(nd, now);
}

/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the whole receive path: a fake device with ib0 up on port 1 (198.18.0.2/24)
 * gets arbitrary datagrams on ib0's UD QP (IPoIB: ARP, IPv4, ICMP ...) and on the GSI QP as
 * answers to an outstanding PathRecord query (the TID is patched in so they reach the parser),
 * plus arbitrary SMPs through ib_smp_snoop(). The stack must stay consistent: no crash, no leak
 * of send buffers beyond what is queued.
 */
#include "fake_ibdev.h"
#include "net_test_env.h"

#include <ibboot/ib_mad.h>
#include <ibboot/ib_sa.h>
#include <ibboot/ipoib.h>
#include <ibboot/ipv4.h>
#include <ibboot/byteorder.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fake_ibdev *fx;

static void path_cb(void *ctx, const union ib_gid *dgid, int status)
{
	(void)ctx;
	(void)dgid;
	(void)status;
}

/* Every send buffer of ib0 is free, queued behind a neighbour, or posted: none leaks. */
static void check_tx_accounting(struct ipoib *ip)
{
	unsigned free_bufs, queued = 0, posted;

	if (!ip || !ip->qp)
		return;
	free_bufs = (unsigned)__builtin_popcount(ip->qp->send_free_mask);
	for (unsigned i = 0; i < IPOIB_NEIGHBOURS; i++)
		if (ip->neigh[i].state != NEIGH_FREE)
			queued += ip->neigh[i].qlen;
	posted = ip->qp->send.posted - ip->qp->send.completed;
	if (free_bufs + queued + posted != IPOIB_TX_BUFS)
		abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fx = calloc(1, sizeof(*fx));
	if (!fx)
		abort();
	test_now_ms = 1000;
	fake_ibdev_init(fx);
	fx->port[1].state = IB_PORT_ACTIVE;
	if (ib_device_register(&fx->dev) < 0)
		abort();
	ipoib_init();
	for (int i = 0; i < 4; i++)
		net_poll();
	if (!ipoib_instance() || !ipoib_instance()->nd.link_up)
		abort();
	ipv4_configure(&ipoib_instance()->nd, 0xc6120002u, 0xffffff00u, 0);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipoib *ip = ipoib_instance();
	struct ib_port *port = &fx->dev.port[0];
	uint8_t buf[4096];
	size_t len;

	if (size < 4 || size - 4 > sizeof(buf))
		return 0;
	len = size - 4;
	memcpy(buf, data + 4, len);
	switch (data[0] % 3) {
	case 0: {
		struct ib_address_vector to = { .qpn = ip->qp->qpn, .qkey = ip->qp->qkey,
						.lid = port->attr.lid };

		(void)fake_ibdev_inject(fx, &to, (uint16_t)(data[1] | 0x20), data[2] | 0x100u, NULL,
					buf, len);
		break;
	}
	case 1: {
		struct ib_address_vector to = { .qpn = 1, .qkey = IB_GSI_QKEY, .lid = port->attr.lid };
		struct ib_address_vector av;
		union ib_gid dgid = { .raw = { 0xfe, 0x80, [14] = data[1], [15] = data[2] } };
		struct ib_mad_agent *a = port->mad;

		fx->sa_enabled = false;   /* the fuzzer is the SA */
		(void)ib_sa_path_lookup(port, &dgid, &av, path_cb, NULL);
		for (unsigned i = 0; i < IB_MAD_MAX_TXN && len >= 16; i++)
			if (a->txn[i].busy && (data[3] & 1))
				put_be64(buf + 8, a->txn[i].tid);
		(void)fake_ibdev_inject(fx, &to, 1, 1, NULL, buf, len);
		break;
	}
	default:
		(void)ib_smp_snoop(&fx->dev, 1 + (data[1] & 1), buf, len);
		break;
	}
	test_now_ms += data[3] >> 1;
	net_poll();
	net_poll();
	fx->sa_enabled = true;
	test_console_clear();
	check_tx_accounting(ipoib_instance());
	return 0;
}

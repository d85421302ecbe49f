/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: arbitrary packets arriving at any port of a small fabric (SM host - sw1 -
 * sw2, LIDs and routes as OpenSM would set them). Input: one byte choosing the arrival port, then
 * the packet from the LRH to the last payload byte; the harness fills in LRH:PktLen, ICRC and
 * VCRC so the fuzzer gets past the CRC checks into the switch (LFT, MFT, directed route), the
 * SMAs and the SM host. The fabric is rebuilt for every input, so runs repeat.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabsim.h"

#include <ibboot/wire/bytes.h>
#include <ibboot/wire/crc.h>

static char topo_path[64];

static const char topo[] =
	"switch sw1 0x0002c90300002000 4\n"
	"switch sw2 0x0002c90300002100 4\n"
	"sm-host smhost 0x0002c90300001000\n"
	"cable sw1:1 smhost\n"
	"cable sw1:2 sw2:1\n"
	"cable sw2:2 sw2:3\n";   /* a loop cable: a DR path may go round it */

static void setup(struct fabric *f)
{
	char err[256];
	struct node *sw1, *sw2;

	if (!topo_path[0]) {
		int fd;

		snprintf(topo_path, sizeof(topo_path), "/tmp/fabsim-fuzz-XXXXXX");
		fd = mkstemp(topo_path);
		if (fd < 0 || write(fd, topo, sizeof(topo) - 1) != (ssize_t)(sizeof(topo) - 1))
			abort();
		/* libFuzzer may leave with _Exit: keep the file only as an open descriptor. */
		unlink(topo_path);
		snprintf(topo_path, sizeof(topo_path), "/proc/self/fd/%d", fd);
	}
	memset(f, 0, sizeof(*f));
	f->seed = 1;
	if (topo_load(f, topo_path, err, sizeof(err)) < 0)
		abort();
	for (unsigned i = 0; i < f->nlinks; i++)
		link_update(f, f->links[i]);
	sw1 = fabric_find_node(f, "sw1");
	sw2 = fabric_find_node(f, "sw2");
	fabric_find_port(f, "smhost")->pi.lid = 1;
	fabric_find_port(f, "smhost")->pi.state = PORT_ACTIVE;
	sw1->ports[0].pi.lid = 2;
	sw2->ports[0].pi.lid = 3;
	sw1->ports[0].pi.smlid = sw2->ports[0].pi.smlid = 1;
	sw1->lft[1] = 1, sw1->lft[2] = 0, sw1->lft[3] = 2;
	sw2->lft[1] = 1, sw2->lft[2] = 1, sw2->lft[3] = 0, sw2->lft[4] = 2;
	for (unsigned p = 1; p <= 3; p++)
		sw1->ports[p].pi.state = sw2->ports[p].pi.state = PORT_ACTIVE;
	sw1->mft[0][0] = 0x0006;
	sw2->mft[0][0] = 0x000e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const ports[] = { "sw1:1", "sw1:2", "sw2:1", "sw2:2", "sw2:3", "smhost" };
	static struct fabric f;
	uint8_t pkt[FABSIM_MAX_PKT];
	size_t len;
	struct port *at;

	if (size < 1 + 8 || size - 1 > sizeof(pkt) - 6)
		return 0;
	len = size - 1;
	memcpy(pkt, data + 1, len);
	/* Whole words, as PktLen counts them; then ICRC (for IBA transport packets) and VCRC. */
	len &= ~(size_t)3;
	if ((pkt[1] & 3) >= 2) {
		int err = 0;
		uint32_t icrc = iblib_icrc(pkt, len, &err);

		if (err < 0)
			return 0;
		iblib_put_icrc(pkt + len, icrc);
		len += 4;
	}
	put_be16(pkt + 4, (uint16_t)((get_be16(pkt + 4) & 0xf800) | (len / 4)));
	if ((pkt[1] & 3) >= 2)   /* PktLen is inside the ICRC: recompute it over the final header */
		iblib_put_icrc(pkt + len - 4, iblib_icrc(pkt, len - 4, NULL));
	iblib_put_vcrc(pkt + len, iblib_vcrc(pkt, len));
	len += 2;

	setup(&f);
	at = fabric_find_port(&f, ports[data[0] % 6]);
	port_deliver_local(&f, at, pkt, len);
	for (int i = 0; i < 1000 && fabric_run_queue(&f) == 0; i++)
		;
	fabric_free(&f);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* libFuzzer: DHCP replies into the parser and into a running client (both states). */
#include "fake_net.h"

#include <ibboot/dhcp.h>
#include <ibboot/byteorder.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dhcp_client c;
	static bool ready;
	struct dhcp_msg m;
	const char *why;
	uint8_t *buf;

	if (!ready) {
		fake_net_setup(NULL, NULL);
		ready = true;
	}
	if (dhcp_parse(data, size, &m, &why) < 0 && !why)
		abort();   /* every refusal must say why */
	if (dhcp_start(&c, &fake_nd, NULL) < 0)
		abort();
	/* Make the input look like an answer to this transaction so the client logic runs. */
	buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	if (size >= 240) {
		buf[0] = 2;
		put_be32(buf + 4, c.xid);
		put_be32(buf + 236, DHCP_MAGIC);
	}
	dhcp_handle(&c, 0xc6120001, buf, size);
	if (size >= 254 && c.state == DHCP_REQUESTING) {
		buf[242] = DHCPACK;   /* the same reply again, as an ACK or NAK if it has room */
		dhcp_handle(&c, 0xc6120001, buf, size);
	}
	dhcp_stop(&c);
	free(buf);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: TFTP packets into the OACK/ERROR parsers and into a running transfer. The input is
 * a sequence of packets, each prefixed by a 2-byte length and a source-port selector byte.
 */
#include "fake_net.h"

#include <ibboot/tftp.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tftp_client c;
	static uint8_t sink_buf[1 << 16];
	static bool ready;
	struct tftp_sink sink = { sink_buf, sizeof(sink_buf), 0, NULL, NULL };
	struct tftp_opts opts = { .windowsize = 8 };
	struct tftp_oack o;
	const char *why = NULL;
	char msg[64];
	uint16_t code;

	if (!ready) {
		fake_net_setup(NULL, NULL);
		fake_nd.ip_addr = 0xc612003c;
		ready = true;
	}
	if (tftp_parse_oack(data, size, 2012, 8, true, &o, &why) < 0 && !why)
		abort();
	tftp_parse_error(data, size, &code, msg, sizeof(msg));
	if (tftp_start(&c, &fake_nd, 0xc6120001, "boot.bin", &opts, &sink) < 0)
		abort();
	while (size >= 3) {
		size_t len = (size_t)(data[0] << 8 | data[1]);
		uint16_t port = data[2] & 1 ? 40000 : 40001;

		data += 3;
		size -= 3;
		if (len > size)
			len = size;
		tftp_handle(&c, 0xc6120001, port, data, len);
		if (sink.len > sink.size)
			abort();
		data += len;
		size -= len;
	}
	tftp_stop(&c);
	net_poll();   /* drain what the client sent */
	return 0;
}

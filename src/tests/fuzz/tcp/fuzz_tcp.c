/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: TCP segments. The input (checksum fixed up by the harness, so the fuzzer reaches
 * past it) goes through tcp_parse() and then into an established connection as the server's
 * next segment: options, RST/SYN/FIN in any state, windows, sequence numbers anywhere.
 */
#include "tcp_peer.h"
#include "net_test_env.h"

#include <ibboot/string.h>
#include <ibboot/byteorder.h>

static struct tcp_conn conn;

static int rx(struct tcp_conn *c, const uint8_t *d, size_t n)
{
	(void)c;
	(void)d;
	(void)n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t seg[4096];
	struct tcp_segment s;
	struct peer_seg syn, a;
	uint8_t o[40];
	size_t n;

	if (size < TCP_HDR_LEN || size > sizeof(seg))
		return 0;
	memcpy(seg, data, size);
	seg[16] = seg[17] = 0;
	put_be16(seg + 16, tcp_checksum(PEER_IP, CLIENT_IP, seg, size));
	tcp_parse(seg, size, PEER_IP, CLIENT_IP, &s, NULL);

	test_dma_reuse = true;
	peer_setup();
	test_now_ms = 5000;
	memset(&conn, 0, sizeof(conn));
	if (tcp_connect(&conn, &peer_nd, PEER_IP, 80, NULL, rx, NULL) < 0 || !peer_pop(&syn))
		return 0;
	n = peer_syn_opts(o, 2004, 7, true, 1, syn.tsval);
	peer_send_raw(80, syn.sport, 1000, syn.seq + 1, TCP_SYN | TCP_ACK, 65535, NULL, 0, o, n,
		      false);
	tcp_send(&conn, "GET / HTTP/1.1\r\n\r\n", 18);
	/* The fuzzed segment, on this connection's ports unless its first byte says otherwise. */
	if (!(data[0] & 0x80)) {
		put_be16(seg, 80);
		put_be16(seg + 2, syn.sport);
	}
	if (data[0] & 0x40)
		put_be32(seg + 4, 1001 + (get_be32(seg + 4) & 0xffff));
	if (data[0] & 0x20)
		put_be32(seg + 8, syn.seq + 1 + (get_be32(seg + 8) & 0x3f));
	seg[16] = seg[17] = 0;
	put_be16(seg + 16, tcp_checksum(PEER_IP, CLIENT_IP, seg, size));
	{
		uint8_t pkt[IPV4_HDR_LEN + sizeof(seg)];

		test_ipv4_header(pkt, PEER_IP, CLIENT_IP, IP_PROTO_TCP, size);
		memcpy(pkt + IPV4_HDR_LEN, seg, size);
		net_rx(&peer_nd, ETHERTYPE_IPV4, pkt, IPV4_HDR_LEN + size);
		net_rx(&peer_nd, ETHERTYPE_IPV4, pkt, IPV4_HDR_LEN + size);
	}
	for (int i = 0; i < 20; i++) {
		test_now_ms += 300;
		tcp_step(&conn, test_now_ms);
	}
	while (peer_pop(&a))
		;
	if (peer_bad_tx)
		__builtin_trap();   /* whatever came in, what we send must be well-formed */
	tcp_release(&conn);
	peer_teardown();
	return 0;
}

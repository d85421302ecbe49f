/* SPDX-License-Identifier: MIT */
/*
 * The software net_device of the TCP/HTTP tests and a scripted TCP peer: what ibboot transmits
 * is parsed and queued for the test (peer_pop), and the test injects segments as the server
 * 198.18.0.1 (peer_send). peer_tick, when set, runs on every poll of the device, so a scripted
 * server can answer while http_get() polls. Nothing here shares code with src/net/tcp.c but the
 * wire format.
 */
#ifndef TCP_PEER_H
#define TCP_PEER_H

#include <ibboot/tcp.h>

#define PEER_IP    0xc6120001u   /* 198.18.0.1 */
#define CLIENT_IP  0xc6120002u   /* 198.18.0.2 */
#define PEER_QUEUE 512

struct peer_seg {
	uint16_t sport, dport, win;
	uint32_t seq, ack;
	uint8_t flags;
	bool has_mss, has_wscale, has_ts, sack_permitted;
	unsigned n_sack;
	uint32_t sack[4][2];       /* SACK blocks as sent: start, end */
	uint16_t mss;
	uint8_t wscale;
	uint32_t tsval, tsecr;
	size_t len;
	uint8_t data[2048];
};

extern struct net_device peer_nd;
extern void (*peer_tick)(void);
extern unsigned peer_bad_tx;   /* segments ibboot sent that did not parse (must stay 0) */

void peer_setup(void);
void peer_teardown(void);
/* The oldest segment ibboot sent that the test has not taken; false if none. */
bool peer_pop(struct peer_seg *out);
unsigned peer_queued(void);
void peer_flush(void);
/* Injects a segment from PEER_IP:sport to CLIENT_IP:dport; opts (whole option bytes, a
 * multiple of 4) may be NULL. bad_csum corrupts the checksum. */
void peer_send_raw(uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack, uint8_t flags,
		   uint16_t win, const void *data, size_t len, const uint8_t *opts, size_t opt_len,
		   bool bad_csum);
/* UDP datagrams ibboot sent (DNS queries): payload copied, source port; false if none. */
bool peer_pop_udp(uint16_t *sport, uint16_t *dport, uint8_t *buf, size_t *len);
void peer_send_udp(uint16_t sport, uint16_t dport, const void *data, size_t len);
/* Options of a SYN-ACK: MSS, then window scale (wscale < 0: none), then timestamps (ts). */
size_t peer_syn_opts(uint8_t *o, uint16_t mss, int wscale, bool ts, uint32_t tsval,
		     uint32_t tsecr);

#endif

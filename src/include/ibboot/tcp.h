/* SPDX-License-Identifier: MIT */
/*
 * TCP client (RFC 9293), polled, for downloads: active open only, MSS from the device MTU, window
 * scaling (RFC 7323 §2) so a large receive window can be advertised, timestamps (RFC 7323 §3) so
 * the peer can time its retransmissions (else Karn's rule leaves its RTO backed off for seconds), RTO per RFC 6298 with
 * exponential back-off and a bounded number of retries, fast retransmit after three duplicate
 * ACKs (RFC 5681 §3.2) for the little we send, orderly close (FIN both ways, a short TIME-WAIT)
 * and abortive close (RST), RST/SYN checks of RFC 5961 against blind resets.
 *
 * A connection is a caller-owned struct. In-order data is handed to the owner's rx callback as a
 * pointer into the device's receive ring (valid only during the call), so the owner copies it
 * once, straight to where it belongs; nothing is allocated per segment. Segments that arrive out
 * of order are kept in a bounded reassembly store (slots of the announced MSS, as many as fill
 * the advertised window but at most TCP_OOO_SLOTS, allocated once at connect: at most
 * TCP_OOO_BYTES_MAX bytes whatever the MTU, so a loss costs one retransmission, not a window)
 * and delivered when the hole is filled; beyond that they are dropped and the peer's
 * retransmission brings them again. The stored ranges are reported in SACK blocks (RFC 2018)
 * when the peer allows, so it resends only the holes. ACKs outside [SND.UNA - MAX.SND.WND,
 * SND.NXT] are refused (RFC 5961 §5) and, with timestamps, segments older than TS.Recent are
 * dropped (PAWS, RFC 7323 §5).
 */
#ifndef IBBOOT_TCP_H
#define IBBOOT_TCP_H

#include <ibboot/ipv4.h>

#define TCP_HDR_LEN        20
#define TCP_MAX_HDR_LEN    60
#define TCP_DEFAULT_MSS    536      /* RFC 9293 §3.7.1: when the peer sends no MSS option */
#define TCP_SNDBUF         4096     /* what a request may queue (HTTP GET lines) */
#define TCP_RCV_WND        (512u << 10)
#define TCP_RCV_WSCALE     4        /* 512 KiB >> 4 fits the 16-bit window field */
#define TCP_OOO_SLOTS      272      /* most segments stored (TCP_RCV_WND / 1992, rounded up) */
/* Slots are the announced MSS (rounded up to 8 bytes) and only as many as cover TCP_RCV_WND, so
 * the store never exceeds one window plus one slot: 512 KiB + 64 KiB at any MTU. */
#define TCP_OOO_BYTES_MAX  (TCP_RCV_WND + 65536u)

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_PSH 0x08
#define TCP_ACK 0x10
#define TCP_URG 0x20

/* Sequence numbers compare modulo 2^32 (RFC 9293 §3.4). */
#define TCP_SEQ_LT(a, b)  ((int32_t)((uint32_t)(a) - (uint32_t)(b)) < 0)
#define TCP_SEQ_LEQ(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) <= 0)
#define TCP_SEQ_GT(a, b)  TCP_SEQ_LT(b, a)
#define TCP_SEQ_GEQ(a, b) TCP_SEQ_LEQ(b, a)

/* A parsed segment: header fields, the options we understand, payload. */
struct tcp_segment {
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t window;           /* as on the wire (unscaled) */
	size_t hdr_len;
	bool has_mss, has_wscale, sack_permitted, has_timestamps;
	uint16_t mss;
	uint8_t wscale;
	uint32_t tsval, tsecr;
	const uint8_t *payload;
	size_t payload_len;
};

/* Checks the header length, the options' framing and the checksum over the RFC 9293 §3.1 pseudo
 * header (src/dst host order). 0 or -EINVAL with *why. */
int tcp_parse(const uint8_t *buf, size_t len, uint32_t src, uint32_t dst,
	      struct tcp_segment *out, const char **why);
/* Parses just the options area (fuzz target, tests). */
int tcp_parse_options(const uint8_t *opt, size_t len, struct tcp_segment *out, const char **why);
/* The checksum to store for a segment (its checksum field zero while summing). */
uint16_t tcp_checksum(uint32_t src, uint32_t dst, const uint8_t *seg, size_t len);

enum tcp_state {
	TCP_CLOSED, TCP_SYN_SENT, TCP_ESTABLISHED, TCP_FIN_WAIT_1, TCP_FIN_WAIT_2, TCP_CLOSING,
	TCP_TIME_WAIT, TCP_CLOSE_WAIT, TCP_LAST_ACK,
};

struct tcp_conn;
/* In-order data (valid during the call). Return 0, or a negative error to abort the connection
 * (a RST is sent). */
typedef int (*tcp_rx_fn)(struct tcp_conn *c, const uint8_t *data, size_t len);

struct tcp_config {
	unsigned syn_retries;      /* SYN retransmissions before giving up */
	unsigned data_retries;     /* retransmissions of one segment before giving up */
	unsigned rto_min_ms, rto_max_ms, rto_initial_ms;
	unsigned time_wait_ms;     /* TIME-WAIT: a boot client needs far less than 2 MSL */
	unsigned delack_ms;        /* longest an ACK is held back (RFC 9293 §3.8.6.3: < 500 ms) */
	bool fixed_iss_set;        /* tests: start from fixed_iss (sequence wrap) */
	uint32_t fixed_iss;
};

struct tcp_ooo_slot {
	uint32_t seq;
	uint16_t len;
	bool used, fin;
};

struct tcp_stats {
	unsigned segs_in, segs_out, bad_in, retransmits, fast_retransmits, rto_expiries;
	unsigned ooo_stored, ooo_dropped, dup_segs, acks_out, challenge_acks, rst_ignored;
	unsigned zero_window_probes, acks_refused, paws_dropped;
	uint64_t bytes_in;
};

struct tcp_conn {
	struct net_device *nd;
	uint32_t local_ip, remote_ip;
	uint16_t local_port, remote_port;
	enum tcp_state state;
	tcp_rx_fn rx;
	void *priv;

	/* Send side (RFC 9293 §3.3.1). sndbuf holds bytes from snd_una on, unacknowledged or not
	 * yet sent; snd_len counts them. */
	uint32_t iss, snd_una, snd_nxt, snd_max, snd_wl1, snd_wl2;
	uint32_t snd_wnd;          /* scaled */
	uint32_t max_snd_wnd;      /* the largest window the peer offered (RFC 5961 §5.2) */
	uint8_t snd_wscale;        /* the peer's shift */
	uint16_t smss;             /* what we may send per segment */
	uint32_t cwnd, ssthresh;   /* RFC 5681 */
	size_t snd_len;
	bool fin_queued, fin_sent;
	unsigned dupacks;

	/* Receive side. */
	uint32_t irs, rcv_nxt;
	uint8_t rcv_wscale;        /* ours, 0 if the peer did not agree */
	uint16_t rcv_mss;          /* what we announced */
	uint16_t rcv_full;         /* payload of a full-sized segment (rcv_mss minus options) */
	bool ts_ok;                /* both sides send timestamps (RFC 7323 §3.2) */
	bool sack_ok;              /* the peer accepts SACK blocks (RFC 2018) */
	struct { uint32_t start, end; } sack[4];   /* stored ranges, most recent first */
	unsigned n_sack;
	uint32_t ts_recent, last_ack_sent;
	unsigned unacked_segs;     /* full segments received since our last ACK */
	bool ack_now;              /* an ACK is owed and could not be sent yet */
	uint64_t delack_at_ms;     /* 0: no delayed ACK pending */
	uint8_t *ooo_buf;          /* ooo_slots * ooo_slot_size, allocated at connect */
	uint32_t ooo_slot_size;    /* the announced MSS rounded up to 8 */
	unsigned ooo_slots;        /* slots in use of ooo[] (<= TCP_OOO_SLOTS) */
	unsigned n_ooo;            /* slots in use */
	bool fin_received;

	/* Timers (ms on clock_ms()). */
	uint64_t rto_at_ms;        /* 0: retransmission timer off */
	unsigned rto_ms, retries;
	bool persist;              /* the timer is probing a zero window */
	uint32_t srtt_x8, rttvar_x4; /* RFC 6298 §2, scaled as in the RFC's fixed-point form */
	bool rtt_valid, rtt_timing;
	uint32_t rtt_seq;
	uint64_t rtt_start_ms;
	uint64_t time_wait_until_ms;
	uint64_t challenge_window_ms;
	unsigned challenge_count;

	int error;                 /* why it ended, 0 after an orderly close */
	struct tcp_stats stats;
	struct tcp_conn *next;
	bool listed;
	/* Large and rarely used last: the fields above stay at short offsets (smaller code). */
	struct tcp_config cfg;
	char error_msg[160];
	struct tcp_ooo_slot ooo[TCP_OOO_SLOTS];
	uint8_t sndbuf[TCP_SNDBUF];
};

void tcp_config_default(struct tcp_config *cfg);
/* Starts an active open from the device's address and an ephemeral port to dst:dport (host
 * order); nd NULL = the interface ipv4_route(dst) picks. The connection stays bound to that
 * interface. cfg NULL = defaults (config.h). 0 or -EINVAL (no address on nd), -ENOMEM, -EBUSY. */
int tcp_connect(struct tcp_conn *c, struct net_device *nd, uint32_t dst, uint16_t dport,
		const struct tcp_config *cfg, tcp_rx_fn rx, void *priv);
/* Queues data (sent as the window allows); returns bytes accepted or a negative error. */
long tcp_send(struct tcp_conn *c, const void *data, size_t len);
/* Orderly close: FIN after the queued data. The connection goes on until the peer's FIN is
 * acknowledged (and the short TIME-WAIT ends). */
void tcp_close(struct tcp_conn *c);
/* Abortive close: RST now, the connection is closed with error (ECANCELED if 0). */
void tcp_abort(struct tcp_conn *c, int error, const char *why);
/* Frees the reassembly store and unlinks the connection (any state; no segment sent). */
void tcp_release(struct tcp_conn *c);
/* Timers: retransmission, persist, delayed ACK, TIME-WAIT. true while the connection is open. */
bool tcp_step(struct tcp_conn *c, uint64_t now_ms);
/* True once the peer has sent FIN (all its data has been delivered). */
static inline bool tcp_peer_closed(const struct tcp_conn *c)
{
	return c->fin_received;
}
const char *tcp_state_name(enum tcp_state s);
/* IPv4's handler for protocol 6. */
void tcp_rx(struct net_device *nd, const struct ipv4_packet *ip);

#endif

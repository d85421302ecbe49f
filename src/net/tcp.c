/* SPDX-License-Identifier: MIT */
/* TCP client (RFC 9293) with RFC 7323 window scaling, RFC 6298 RTO, RFC 5681 fast retransmit. */
#include <ibboot/tcp.h>
#include <ibboot/byteorder.h>
#include <ibboot/config.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/random.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>
#include <ibboot/udp.h>

#define TCP_OPT_EOL     0
#define TCP_OPT_NOP     1
#define TCP_OPT_MSS     2
#define TCP_OPT_WSCALE  3
#define TCP_OPT_SACK_OK 4
#define TCP_OPT_SACK    5
#define TCP_OPT_TS      8
#define TCP_MAX_WSCALE  14           /* RFC 7323 §2.3 */
#define TCP_CHALLENGE_ACKS_PER_S 10  /* RFC 5961 §7: rate-limit challenge ACKs */

/* Connections of every interface, each bound to the one it was opened on. */
static struct tcp_conn *conns;
static bool registered;
static uint32_t iss_secret[8];   /* the ChaCha20 key of choose_iss */
static bool iss_keyed;

const char *tcp_state_name(enum tcp_state s)
{
	/* NUL-separated, not a table of pointers (8 bytes of address each) */
	const char *n = "CLOSED\0SYN-SENT\0ESTABLISHED\0FIN-WAIT-1\0FIN-WAIT-2\0CLOSING\0"
			"TIME-WAIT\0CLOSE-WAIT\0LAST-ACK\0";

	for (unsigned i = (unsigned)s; *n; n += strlen(n) + 1)
		if (!i--)
			return n;
	return "?";
}

void tcp_config_default(struct tcp_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->syn_retries = TCP_SYN_RETRIES;
	cfg->data_retries = TCP_DATA_RETRIES;
	cfg->rto_min_ms = TCP_RTO_MIN_MS;
	cfg->rto_max_ms = TCP_RTO_MAX_MS;
	cfg->rto_initial_ms = TCP_RTO_INITIAL_MS;
	cfg->time_wait_ms = TCP_TIME_WAIT_MS;
	cfg->delack_ms = TCP_DELACK_MS;
}

/* ---- checksums and parsing ---- */

uint16_t tcp_checksum(uint32_t src, uint32_t dst, const uint8_t *seg, size_t len)
{
	return csum_finish(csum_partial(seg, len, ipv4_pseudo_sum(src, dst, IP_PROTO_TCP, len)));
}

int tcp_parse_options(const uint8_t *opt, size_t len, struct tcp_segment *out, const char **why)
{
	size_t i = 0;

	while (i < len) {
		uint8_t kind = opt[i], olen;

		if (kind == TCP_OPT_EOL)
			break;
		if (kind == TCP_OPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= len) {
			*why = "TCP option without a length byte";
			return -EINVAL;
		}
		olen = opt[i + 1];
		if (olen < 2 || olen > len - i) {
			*why = "TCP option length past the options";
			return -EINVAL;
		}
		switch (kind) {
		case TCP_OPT_MSS:
			if (olen != 4) {
				*why = "TCP MSS option is not 4 bytes";
				return -EINVAL;
			}
			out->has_mss = true;
			out->mss = get_be16(opt + i + 2);
			break;
		case TCP_OPT_WSCALE:
			if (olen != 3) {
				*why = "TCP window scale option is not 3 bytes";
				return -EINVAL;
			}
			out->has_wscale = true;
			/* RFC 7323 §2.3: larger shifts are used as 14 (and logged by others). */
			out->wscale = MIN(opt[i + 2], TCP_MAX_WSCALE);
			break;
		case TCP_OPT_SACK_OK:
			out->sack_permitted = olen == 2;
			break;
		case TCP_OPT_TS:
			if (olen != 10) {
				*why = "TCP timestamps option is not 10 bytes";
				return -EINVAL;
			}
			out->has_timestamps = true;
			out->tsval = get_be32(opt + i + 2);
			out->tsecr = get_be32(opt + i + 6);
			break;
		default:
			break;   /* RFC 9293 §3.1: unknown options are skipped by their length */
		}
		i += olen;
	}
	return 0;
}

int tcp_parse(const uint8_t *buf, size_t len, uint32_t src, uint32_t dst,
	      struct tcp_segment *out, const char **why)
{
	const char *dummy;
	size_t hl;

	if (!why)
		why = &dummy;
	memset(out, 0, sizeof(*out));
	if (!buf || len < TCP_HDR_LEN) {
		*why = "shorter than a TCP header";
		return -EINVAL;
	}
	if (len > 0xffff) {
		*why = "TCP segment longer than an IPv4 datagram";
		return -EINVAL;
	}
	hl = (size_t)(buf[12] >> 4) * 4;
	if (hl < TCP_HDR_LEN || hl > len) {
		*why = "TCP data offset outside the segment";
		return -EINVAL;
	}
	if (tcp_checksum(src, dst, buf, len) != 0) {
		*why = "bad TCP checksum";
		return -EINVAL;
	}
	out->sport = get_be16(buf);
	out->dport = get_be16(buf + 2);
	out->seq = get_be32(buf + 4);
	out->ack = get_be32(buf + 8);
	out->flags = buf[13] & 0x3f;
	out->window = get_be16(buf + 14);
	out->hdr_len = hl;
	if (tcp_parse_options(buf + TCP_HDR_LEN, hl - TCP_HDR_LEN, out, why) < 0)
		return -EINVAL;
	out->payload = buf + hl;
	out->payload_len = len - hl;
	return 0;
}

/* ---- connection table ---- */

static struct tcp_conn *find_conn(const struct net_device *nd, uint32_t remote, uint16_t rport,
				  uint16_t lport)
{
	for (struct tcp_conn *c = conns; c; c = c->next)
		if (c->local_port == lport && c->remote_port == rport && c->remote_ip == remote &&
		    c->nd == nd)
			return c;
	return NULL;
}

/* Taken on any interface: the port picker's test for a connection. */
static bool port_in_use(uint16_t port, const struct net_device *nd)
{
	(void)nd;
	for (struct tcp_conn *c = conns; c; c = c->next)
		if (c->local_port == port)
			return true;
	return false;
}

static void unlink_conn(struct tcp_conn *c)
{
	for (struct tcp_conn **pp = &conns; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	c->next = NULL;
	c->listed = false;
}

/*
 * RFC 6528 §3: ISN = M + F(localip, localport, remoteip, remoteport, secretkey), M a 4 µs clock and
 * F a pseudorandom function under a secret drawn once from the random generator: the ChaCha20
 * block function (RFC 8439 §2.3) keyed with a 256-bit secret, the 4-tuple as its 96-bit nonce.
 * Not guessable from outside, and increasing for the next connection to the same peer.
 */
static uint32_t choose_iss(const struct tcp_conn *c)
{
	uint32_t id[3] = { c->local_ip, (uint32_t)c->local_port << 16 | c->remote_port, c->remote_ip };
	uint8_t out[64];

	if (!iss_keyed) {
		random_bytes(iss_secret, sizeof(iss_secret));
		iss_keyed = true;
	}
	random_chacha20_block(iss_secret, 0, id, out);
	return get_be32(out) + (uint32_t)(clock_us() >> 2);
}

/* ---- output ---- */

static uint32_t rcv_window(const struct tcp_conn *c)
{
	return c->rcv_wscale ? TCP_RCV_WND : 65535u;
}

static void acked_now(struct tcp_conn *c)
{
	c->unacked_segs = 0;
	c->delack_at_ms = 0;
	c->ack_now = false;
}

/* Sends one segment; 0 or -EBUSY when the device has no transmit buffer free. */
static int xmit(struct tcp_conn *c, uint32_t seq, uint8_t flags, const uint8_t *data, size_t len)
{
	struct net_buf *nb = ipv4_alloc(c->nd);
	int rc;
	unsigned n_sack = (flags & TCP_ACK) && c->sack_ok ? MIN(c->n_sack, c->ts_ok ? 3u : 4u) : 0;
	size_t sack_len = n_sack ? 4 + 8 * n_sack : 0;
	size_t opt_len = flags & TCP_SYN ? 24 : (c->ts_ok ? 12 : 0) + sack_len;
	uint32_t wnd;
	uint8_t *h;

	if (!nb) {
		if (flags & TCP_ACK)
			c->ack_now = true;
		return -EBUSY;
	}
	h = nb_put(nb, TCP_HDR_LEN + opt_len + len);
	if (!h) {
		c->nd->ops->free_tx(c->nd, nb);
		return -ERANGE;
	}
	/* RFC 7323 §2.2: the window of a SYN is never scaled. */
	wnd = flags & TCP_SYN ? MIN(rcv_window(c), 65535u) : rcv_window(c) >> c->rcv_wscale;
	put_be16(h, c->local_port);
	put_be16(h + 2, c->remote_port);
	put_be32(h + 4, seq);
	put_be32(h + 8, flags & TCP_ACK ? c->rcv_nxt : 0);
	h[12] = (uint8_t)((TCP_HDR_LEN + opt_len) / 4) << 4;
	h[13] = flags;
	put_be16(h + 14, (uint16_t)MIN(wnd, 65535u));
	put_be32(h + 16, 0);   /* checksum, urgent pointer */
	if (flags & TCP_SYN) {
		h[20] = TCP_OPT_MSS;
		h[21] = 4;
		put_be16(h + 22, c->rcv_mss);
		h[24] = TCP_OPT_NOP;
		h[25] = TCP_OPT_WSCALE;
		h[26] = 3;
		h[27] = TCP_RCV_WSCALE;
		h[28] = h[29] = TCP_OPT_NOP;
		h[30] = TCP_OPT_SACK_OK;
		h[31] = 2;
	}
	if (sack_len) {
		/* RFC 2018 §3: NOP NOP, kind 5, 2 + 8n, then the blocks, most recent first. */
		uint8_t *o = h + TCP_HDR_LEN;

		o[0] = o[1] = TCP_OPT_NOP;
		o[2] = TCP_OPT_SACK;
		o[3] = (uint8_t)(2 + 8 * n_sack);
		for (unsigned i = 0; i < n_sack; i++) {
			put_be32(o + 4 + 8 * i, c->sack[i].start);
			put_be32(o + 8 + 8 * i, c->sack[i].end);
		}
	}
	if ((flags & TCP_SYN) || c->ts_ok) {
		/* RFC 7323 §3.2 (and Appendix A's layout): NOP NOP TS, TSecr = TS.Recent. */
		uint8_t *o = h + TCP_HDR_LEN + opt_len - 12;

		o[0] = o[1] = TCP_OPT_NOP;
		o[2] = TCP_OPT_TS;
		o[3] = 10;
		put_be32(o + 4, (uint32_t)clock_ms());
		put_be32(o + 8, flags & TCP_ACK ? c->ts_recent : 0);
	}
	if (len)
		memcpy(h + TCP_HDR_LEN + opt_len, data, len);
	put_be16(h + 16, tcp_checksum(c->local_ip, c->remote_ip, h,
					    TCP_HDR_LEN + opt_len + len));
	rc = ipv4_tx(c->nd, nb, c->remote_ip, IP_PROTO_TCP);
	if (rc < 0)
		return rc == -EBUSY ? -EIO : rc;
	c->stats.segs_out++;
	if (flags & TCP_ACK) {
		c->last_ack_sent = c->rcv_nxt;
		if (!len && !(flags & (TCP_SYN | TCP_FIN)))
			c->stats.acks_out++;
		acked_now(c);
	}
	return 0;
}

static void send_ack(struct tcp_conn *c)
{
	xmit(c, c->snd_nxt, TCP_ACK, NULL, 0);
}

static void arm_rto(struct tcp_conn *c, uint64_t now)
{
	c->rto_at_ms = now + c->rto_ms;
}

/* RFC 9293 §3.10.7.4: a segment that fails the checks still gets an ACK, unless it is a RST. */
static void challenge_ack(struct tcp_conn *c, uint64_t now)
{
	if (now - c->challenge_window_ms >= 1000) {
		c->challenge_window_ms = now;
		c->challenge_count = 0;
	}
	if (c->challenge_count++ < TCP_CHALLENGE_ACKS_PER_S) {
		c->stats.challenge_acks++;
		send_ack(c);
	}
}

static bool fin_in_flight(const struct tcp_conn *c)
{
	return c->fin_sent && c->snd_nxt == c->snd_una + (uint32_t)c->snd_len + 1;
}

/* Sends what the windows allow of sndbuf (from snd_nxt), then the FIN once it is all out. */
static void output(struct tcp_conn *c, uint64_t now)
{
	if (c->state == TCP_CLOSED || c->state == TCP_SYN_SENT || c->state == TCP_TIME_WAIT)
		return;
	for (;;) {
		uint32_t off = c->snd_nxt - c->snd_una;
		uint32_t wnd = MIN(c->snd_wnd, c->cwnd);
		size_t avail = c->snd_len > off ? c->snd_len - off : 0;
		size_t room = wnd > off ? wnd - off : 0;
		size_t n = MIN(MIN(avail, room), c->smss);
		bool fin = c->fin_queued && off + n == c->snd_len && !fin_in_flight(c);
		uint8_t flags = TCP_ACK;

		if (off > c->snd_len)
			break;   /* the FIN is out */
		if (!n && !fin) {
			if (avail && !c->snd_wnd && c->snd_nxt == c->snd_una && !c->rto_at_ms) {
				/* RFC 9293 §3.8.6.1: probe the zero window. */
				c->persist = true;
				arm_rto(c, now);
			}
			break;
		}
		if (n)
			flags |= TCP_PSH;
		if (fin)
			flags |= TCP_FIN;
		if (xmit(c, c->snd_nxt, flags, c->sndbuf + off, n) == -EBUSY)
			break;
		if (!c->rtt_timing && n && c->snd_nxt == c->snd_max) {
			c->rtt_timing = true;   /* Karn: only never-retransmitted data is timed */
			c->rtt_seq = c->snd_nxt + (uint32_t)n;
			c->rtt_start_ms = now;
		}
		c->snd_nxt += (uint32_t)n + fin;
		if (fin)
			c->fin_sent = true;
		if (TCP_SEQ_GT(c->snd_nxt, c->snd_max))
			c->snd_max = c->snd_nxt;
		if (!c->rto_at_ms || c->persist) {
			c->persist = false;
			arm_rto(c, now);
		}
		if (fin)
			break;
	}
}

static int send_syn(struct tcp_conn *c)
{
	return xmit(c, c->iss, TCP_SYN, NULL, 0);
}

static void finish(struct tcp_conn *c, int error, const char *msg)
{
	c->state = TCP_CLOSED;
	c->rto_at_ms = 0;
	c->delack_at_ms = 0;
	if (error && !c->error) {
		c->error = error;
		ksnprintf(c->error_msg, sizeof(c->error_msg), "%'u:%u: %s", c->remote_ip,
			  c->remote_port, msg);
	}
}

static void enter_time_wait(struct tcp_conn *c, uint64_t now)
{
	c->state = TCP_TIME_WAIT;
	c->rto_at_ms = 0;
	c->time_wait_until_ms = now + c->cfg.time_wait_ms;
}

/* ---- API ---- */

int tcp_connect(struct tcp_conn *c, struct net_device *nd, uint32_t dst, uint16_t dport,
		const struct tcp_config *cfg, tcp_rx_fn rx, void *priv)
{
	uint64_t now = clock_ms();
	int rc;

	if (!nd)
		nd = ipv4_route(dst);
	if (!c || !nd || !rx || !dport || c->listed)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	if (!nd->ip_addr) {
		ksnprintf(c->error_msg, sizeof(c->error_msg),
			  "%s has no IPv4 address (run dhcp first)", nd->name);
		return -EINVAL;
	}
	if (nd->mtu < IPV4_HDR_LEN + TCP_HDR_LEN + 64)
		return -EINVAL;
	if (!registered) {
		rc = ipv4_register_proto(IP_PROTO_TCP, tcp_rx);
		if (rc < 0)
			return rc;
		registered = true;
	}
	if (cfg)
		c->cfg = *cfg;
	else
		tcp_config_default(&c->cfg);
	c->nd = nd;
	c->local_ip = nd->ip_addr;
	c->remote_ip = dst;
	c->remote_port = dport;
	if (net_pick_port(port_in_use, nd, &c->local_port) < 0)
		return -EBUSY;
	c->rcv_mss = (uint16_t)MIN(nd->mtu - IPV4_HDR_LEN - TCP_HDR_LEN, 65535u);
	/* The store: slots of the MSS we announce (no segment the peer may send is larger),
	 * enough to cover the receive window, never more than TCP_OOO_SLOTS of them. */
	c->ooo_slot_size = ((uint32_t)c->rcv_mss + 7u) & ~7u;
	c->ooo_slots = MIN((TCP_RCV_WND + c->ooo_slot_size - 1) / c->ooo_slot_size,
			   (uint32_t)TCP_OOO_SLOTS);
	c->ooo_buf = dma_alloc((size_t)c->ooo_slots * c->ooo_slot_size, 64);
	if (!c->ooo_buf)
		return -ENOMEM;
	c->rx = rx;
	c->priv = priv;
	c->smss = TCP_DEFAULT_MSS;
	c->iss = c->cfg.fixed_iss_set ? c->cfg.fixed_iss : choose_iss(c);
	c->snd_una = c->iss;
	c->snd_nxt = c->snd_max = c->iss + 1;
	c->rto_ms = c->cfg.rto_initial_ms;
	c->state = TCP_SYN_SENT;
	c->rtt_start_ms = now;
	c->next = conns;
	conns = c;
	c->listed = true;
	rc = send_syn(c);
	if (rc < 0 && rc != -EBUSY) {
		/* No route, no address: retrying cannot help (ipv4 said why on the console). */

		tcp_release(c);
		c->error = rc;
		ksnprintf(c->error_msg, sizeof(c->error_msg), "cannot send to %'u: %s",
			  dst, rc == -ENOENT ? "no route" : ib_strerror(rc));
		return rc;
	}
	arm_rto(c, now);
	return 0;
}

long tcp_send(struct tcp_conn *c, const void *data, size_t len)
{
	size_t n;

	if (c->state != TCP_SYN_SENT && c->state != TCP_ESTABLISHED && c->state != TCP_CLOSE_WAIT)
		return c->error ? c->error : -EINVAL;
	if (c->fin_queued)
		return -EINVAL;
	n = MIN(len, sizeof(c->sndbuf) - c->snd_len);
	memcpy(c->sndbuf + c->snd_len, data, n);
	c->snd_len += n;
	output(c, clock_ms());
	return (long)n;
}

void tcp_close(struct tcp_conn *c)
{
	switch (c->state) {
	case TCP_SYN_SENT:
		finish(c, 0, "");
		break;
	case TCP_ESTABLISHED:
		c->fin_queued = true;
		c->state = TCP_FIN_WAIT_1;
		output(c, clock_ms());
		break;
	case TCP_CLOSE_WAIT:
		c->fin_queued = true;
		c->state = TCP_LAST_ACK;
		output(c, clock_ms());
		break;
	default:
		break;
	}
}

void tcp_abort(struct tcp_conn *c, int error, const char *why)
{
	if (c->state != TCP_CLOSED && c->state != TCP_SYN_SENT && c->state != TCP_TIME_WAIT)
		xmit(c, c->snd_nxt, TCP_RST | TCP_ACK, NULL, 0);
	finish(c, error ? error : -ECANCELED, why ? why : "connection aborted");
}

void tcp_release(struct tcp_conn *c)
{
	if (c->listed)
		unlink_conn(c);
	if (c->ooo_buf)
		dma_free(c->ooo_buf, (size_t)c->ooo_slots * c->ooo_slot_size);
	c->ooo_buf = NULL;
	if (c->state != TCP_CLOSED)
		finish(c, -ECANCELED, "connection aborted");
}

/* ---- timers ---- */

static void rto_from_estimate(struct tcp_conn *c)
{
	c->rto_ms = (c->srtt_x8 >> 3) + MAX(c->rttvar_x4, 1u);
	c->rto_ms = MAX(c->rto_ms, c->cfg.rto_min_ms);   /* §2.4 */
	c->rto_ms = MIN(c->rto_ms, c->cfg.rto_max_ms);   /* §2.5 */
}

static void update_rto(struct tcp_conn *c, uint32_t r)
{
	/* RFC 6298 §2.2/2.3, SRTT kept x8 and RTTVAR x4 so the gains are shifts. */
	if (!c->rtt_valid) {
		c->srtt_x8 = r << 3;
		c->rttvar_x4 = r << 1;
		c->rtt_valid = true;
	} else {
		int32_t delta = (int32_t)r - (int32_t)(c->srtt_x8 >> 3);
		uint32_t adelta = (uint32_t)(delta < 0 ? -delta : delta);

		c->srtt_x8 = (uint32_t)((int32_t)c->srtt_x8 + delta);
		c->rttvar_x4 = c->rttvar_x4 + adelta - (c->rttvar_x4 >> 2);
	}
	rto_from_estimate(c);
}

static void on_rto(struct tcp_conn *c, uint64_t now)
{
	uint32_t flight = c->snd_max - c->snd_una;
	char msg[96];

	if (c->persist) {
		/* The probe: one byte beyond the window (RFC 9293 §3.8.6.1). Probing goes on while
		 * the peer answers; retries count only unanswered probes. */
		if (++c->retries > c->cfg.data_retries) {
			finish(c, -ETIMEDOUT, "no answer to window probes");
			return;
		}
		c->stats.zero_window_probes++;
		if (c->snd_len) {
			xmit(c, c->snd_una, TCP_ACK, c->sndbuf, 1);
			if (TCP_SEQ_GT(c->snd_una + 1, c->snd_max))
				c->snd_max = c->snd_una + 1;
		}
		c->rto_ms = MIN(c->rto_ms * 2, c->cfg.rto_max_ms);
		arm_rto(c, now);
		return;
	}
	c->stats.rto_expiries++;
	if (++c->retries > (c->state == TCP_SYN_SENT ? c->cfg.syn_retries : c->cfg.data_retries)) {
		if (c->state == TCP_SYN_SENT)
			ksnprintf(msg, sizeof(msg), "no answer to %u connection requests: server "
				  "down?", c->retries);
		else
			ksnprintf(msg, sizeof(msg), "no ACK after %u retransmissions", c->retries - 1);
		finish(c, -ETIMEDOUT, msg);
		return;
	}
	c->stats.retransmits++;
	c->rto_ms = MIN(c->rto_ms * 2, c->cfg.rto_max_ms);   /* RFC 6298 §5.5 */
	c->rtt_timing = false;                                 /* Karn */
	if (c->state == TCP_SYN_SENT) {
		send_syn(c);
		arm_rto(c, now);
		return;
	}
	/* RFC 5681 §3.1 eq. 4 and the loss window; then go back to the oldest unacknowledged byte. */
	c->ssthresh = MAX(flight / 2, 2u * c->smss);
	c->cwnd = c->smss;
	c->dupacks = 0;
	c->snd_nxt = c->snd_una;
	c->fin_sent = false;   /* output() sends it again after the data */
	c->rto_at_ms = 0;
	output(c, now);
	if (!c->rto_at_ms)
		arm_rto(c, now);
}

bool tcp_step(struct tcp_conn *c, uint64_t now)
{
	if (c->state == TCP_CLOSED)
		return false;
	if (c->state == TCP_TIME_WAIT) {
		if ((int64_t)(now - c->time_wait_until_ms) >= 0) {
			finish(c, 0, "");
			return false;
		}
	}
	if (c->ack_now || (c->delack_at_ms && (int64_t)(now - c->delack_at_ms) >= 0))
		send_ack(c);
	if (c->rto_at_ms && (int64_t)(now - c->rto_at_ms) >= 0)
		on_rto(c, now);
	return c->state != TCP_CLOSED;
}

/* ---- input ---- */

/* A RST outside any connection's state (no options, no data). */
static void send_bare_rst(struct net_device *nd, uint32_t src, uint32_t dst, uint16_t sport,
			  uint16_t dport, uint32_t seq, uint32_t ack, uint8_t flags)
{
	struct net_buf *nb = ipv4_alloc(nd);
	uint8_t *h;

	if (!nb)
		return;
	h = nb_put(nb, TCP_HDR_LEN);
	if (!h) {
		nd->ops->free_tx(nd, nb);
		return;
	}
	memset(h, 0, TCP_HDR_LEN);
	put_be16(h, sport);
	put_be16(h + 2, dport);
	put_be32(h + 4, seq);
	put_be32(h + 8, ack);
	h[12] = (TCP_HDR_LEN / 4) << 4;
	h[13] = flags;
	put_be16(h + 16, tcp_checksum(src, dst, h, TCP_HDR_LEN));
	ipv4_tx(nd, nb, dst, IP_PROTO_TCP);
}

static void send_reset_for(struct net_device *nd, const struct ipv4_packet *ip,
			   const struct tcp_segment *s)
{
	/* RFC 9293 §3.10.7.1: a segment for no connection gets a RST that the sender accepts. */
	if (s->flags & TCP_ACK)
		send_bare_rst(nd, ip->dst, ip->src, s->dport, s->sport, s->ack, 0, TCP_RST);
	else
		send_bare_rst(nd, ip->dst, ip->src, s->dport, s->sport, 0,
			      s->seq + (uint32_t)s->payload_len + !!(s->flags & TCP_SYN) +
			      !!(s->flags & TCP_FIN), TCP_RST | TCP_ACK);
}

static void got_fin(struct tcp_conn *c, uint64_t now)
{
	c->rcv_nxt++;
	c->fin_received = true;
	switch (c->state) {
	case TCP_ESTABLISHED:
		c->state = TCP_CLOSE_WAIT;
		break;
	case TCP_FIN_WAIT_1:
		if (c->snd_una == c->snd_max && c->fin_sent)
			enter_time_wait(c, now);
		else
			c->state = TCP_CLOSING;
		break;
	case TCP_FIN_WAIT_2:
		enter_time_wait(c, now);
		break;
	default:
		break;
	}
	send_ack(c);
}

/* Hands in-order bytes to the owner; false if the connection ended meanwhile. */
static bool deliver(struct tcp_conn *c, const uint8_t *data, size_t len)
{
	int rc;

	c->rcv_nxt += (uint32_t)len;
	c->stats.bytes_in += len;
	rc = c->rx(c, data, len);
	if (rc < 0) {
		tcp_abort(c, rc, NULL);
		return false;
	}
	return c->state != TCP_CLOSED;
}

/* Merges [start, end) into the reported ranges and puts it first (RFC 2018 §4). */
static void sack_add(struct tcp_conn *c, uint32_t start, uint32_t end)
{
	unsigned i = 0;

	while (i < c->n_sack) {
		if (TCP_SEQ_LEQ(c->sack[i].start, end) && TCP_SEQ_GEQ(c->sack[i].end, start)) {
			if (TCP_SEQ_LT(c->sack[i].start, start))
				start = c->sack[i].start;
			if (TCP_SEQ_GT(c->sack[i].end, end))
				end = c->sack[i].end;
			memmove(&c->sack[i], &c->sack[i + 1], (c->n_sack - i - 1) * sizeof(c->sack[0]));
			c->n_sack--;
		} else {
			i++;
		}
	}
	if (c->n_sack == ARRAY_SIZE(c->sack))
		c->n_sack--;   /* the oldest is no longer reported (its data stays stored) */
	memmove(&c->sack[1], &c->sack[0], c->n_sack * sizeof(c->sack[0]));
	c->sack[0].start = start;
	c->sack[0].end = end;
	c->n_sack++;
}

/* Drops reported ranges the in-order stream has reached. */
static void sack_trim(struct tcp_conn *c)
{
	unsigned i = 0;

	while (i < c->n_sack) {
		if (TCP_SEQ_LEQ(c->sack[i].end, c->rcv_nxt)) {
			memmove(&c->sack[i], &c->sack[i + 1], (c->n_sack - i - 1) * sizeof(c->sack[0]));
			c->n_sack--;
		} else {
			if (TCP_SEQ_LT(c->sack[i].start, c->rcv_nxt))
				c->sack[i].start = c->rcv_nxt;
			i++;
		}
	}
}

static void ooo_store(struct tcp_conn *c, uint32_t seq, const uint8_t *data, size_t len, bool fin)
{
	int free_slot = -1;

	for (int i = 0; i < (int)c->ooo_slots; i++) {
		if (!c->ooo[i].used) {
			if (free_slot < 0)
				free_slot = i;
		} else if (c->ooo[i].seq == seq && c->ooo[i].len >= len) {
			c->stats.dup_segs++;
			return;
		}
	}
	if (free_slot < 0 || len > c->ooo_slot_size) {
		c->stats.ooo_dropped++;   /* the peer will retransmit it */
		return;
	}
	c->ooo[free_slot] = (struct tcp_ooo_slot){ seq, (uint16_t)len, true, fin };
	c->n_ooo++;
	memcpy(c->ooo_buf + (size_t)free_slot * c->ooo_slot_size, data, len);
	c->stats.ooo_stored++;
	if (len)
		sack_add(c, seq, seq + (uint32_t)len);
}

static void ooo_clear(struct tcp_conn *c);

/* Delivers stored segments that the in-order stream has reached; false if the connection ended. */
static bool ooo_drain(struct tcp_conn *c, uint64_t now, bool *had_any)
{
	bool progress = c->n_ooo != 0;

	while (progress) {
		progress = false;
		for (int i = 0; i < (int)c->ooo_slots; i++) {
			struct tcp_ooo_slot *s = &c->ooo[i];
			uint32_t end = s->seq + s->len;

			if (!s->used)
				continue;
			*had_any = true;
			if (TCP_SEQ_GT(s->seq, c->rcv_nxt))
				continue;
			s->used = false;
			c->n_ooo--;
			progress = c->n_ooo != 0;
			if (TCP_SEQ_GT(end, c->rcv_nxt)) {
				uint32_t skip = c->rcv_nxt - s->seq;

				if (!deliver(c, c->ooo_buf + (size_t)i * c->ooo_slot_size + skip,
					     s->len - skip))
					return false;
			}
			if (s->fin && end == c->rcv_nxt && !c->fin_received) {
				ooo_clear(c);   /* nothing follows a FIN */
				got_fin(c, now);
				return true;
			}
		}
	}
	return true;
}

static void ooo_clear(struct tcp_conn *c)
{
	c->n_sack = 0;
	c->n_ooo = 0;
	for (int i = 0; i < (int)c->ooo_slots; i++)
		c->ooo[i].used = false;
}

static void process_syn_sent(struct tcp_conn *c, const struct tcp_segment *s, uint64_t now)
{
	bool ack_ok = (s->flags & TCP_ACK) && TCP_SEQ_GT(s->ack, c->iss) &&
		      TCP_SEQ_LEQ(s->ack, c->snd_max);

	/* RFC 9293 §3.10.7.3 */
	if ((s->flags & TCP_ACK) && !ack_ok) {
		if (!(s->flags & TCP_RST))
			send_bare_rst(c->nd, c->local_ip, c->remote_ip, c->local_port, c->remote_port,
				      s->ack, 0, TCP_RST);
		return;
	}
	if (s->flags & TCP_RST) {
		if (ack_ok)
			finish(c, -ECANCELED, "connection refused: no server on that port?");
		return;
	}
	if (!(s->flags & TCP_SYN) || !ack_ok)
		return;   /* no simultaneous open for a client that only connects */
	c->irs = s->seq;
	c->rcv_nxt = s->seq + 1;
	c->snd_una = s->ack;
	if (s->has_wscale) {
		c->snd_wscale = s->wscale;
		c->rcv_wscale = TCP_RCV_WSCALE;
	}
	if (s->has_mss && s->mss >= 64)
		c->smss = MIN(s->mss, c->rcv_mss);
	c->rcv_full = c->rcv_mss;
	c->sack_ok = s->sack_permitted;
	if (s->has_timestamps) {
		c->ts_ok = true;
		c->ts_recent = s->tsval;
		c->smss -= 12;       /* RFC 7323 §3.2: options come out of the MSS */
		c->rcv_full -= 12;
	}
	c->snd_wnd = s->window;   /* RFC 7323 §2.2: the SYN's window is not scaled */
	c->max_snd_wnd = c->snd_wnd;
	c->snd_wl1 = s->seq;
	c->snd_wl2 = s->ack;
	/* RFC 5681 §3.1 initial window */
	c->cwnd = c->smss > 2190 ? 2u * c->smss : c->smss > 1095 ? 3u * c->smss : 4u * c->smss;
	c->ssthresh = 0xffffffffu;
	if (c->retries == 0)   /* Karn: a retransmitted SYN gives no sample */
		update_rto(c, (uint32_t)(now - c->rtt_start_ms));
	c->rtt_timing = false;
	c->retries = 0;
	c->rto_at_ms = 0;
	c->state = TCP_ESTABLISHED;
	send_ack(c);
	output(c, now);
}

/* RFC 9293 §3.10.7.4 step 1: does any of the segment fall in the receive window? */
static bool seq_acceptable(const struct tcp_conn *c, uint32_t seq, uint32_t seg_len)
{
	uint32_t wnd = rcv_window(c);

	if (!seg_len)
		return TCP_SEQ_LEQ(c->rcv_nxt, seq) && TCP_SEQ_LT(seq, c->rcv_nxt + wnd);
	return (TCP_SEQ_LEQ(c->rcv_nxt, seq) && TCP_SEQ_LT(seq, c->rcv_nxt + wnd)) ||
	       (TCP_SEQ_LEQ(c->rcv_nxt, seq + seg_len - 1) &&
		TCP_SEQ_LT(seq + seg_len - 1, c->rcv_nxt + wnd));
}

static void process_ack(struct tcp_conn *c, const struct tcp_segment *s, uint64_t now)
{
	uint32_t wnd = (uint32_t)s->window << c->snd_wscale;

	if (TCP_SEQ_GT(s->ack, c->snd_una)) {
		uint32_t acked = s->ack - c->snd_una;
		size_t data = MIN((size_t)acked, c->snd_len);

		memmove(c->sndbuf, c->sndbuf + data, c->snd_len - data);
		c->snd_len -= data;
		c->snd_una = s->ack;
		if (TCP_SEQ_LT(c->snd_nxt, c->snd_una))
			c->snd_nxt = c->snd_una;
		if (c->rtt_timing && TCP_SEQ_GEQ(s->ack, c->rtt_seq)) {
			update_rto(c, (uint32_t)(now - c->rtt_start_ms));
			c->rtt_timing = false;
		} else if (c->rtt_valid) {
			rto_from_estimate(c);   /* new data acked: the back-off ends */
		}
		c->retries = 0;
		if (c->dupacks >= 3)
			c->cwnd = c->ssthresh;   /* RFC 5681 §3.2 step 6 */
		else if (c->cwnd < c->ssthresh)
			c->cwnd += MIN(acked, (uint32_t)c->smss);
		else
			c->cwnd += MAX(1u, (uint32_t)c->smss * c->smss / c->cwnd);
		c->dupacks = 0;
		c->persist = false;
		c->rto_at_ms = 0;
		if (c->snd_una != c->snd_max)
			arm_rto(c, now);
	} else if (s->ack == c->snd_una && c->snd_max != c->snd_una && !s->payload_len &&
		   !(s->flags & (TCP_SYN | TCP_FIN)) && wnd == c->snd_wnd && wnd && !c->persist) {
		/* RFC 5681 §2 duplicate ACK; §3.2 fast retransmit on the third. */
		if (++c->dupacks == 3) {
			uint32_t flight = c->snd_max - c->snd_una;
			size_t n = MIN(c->snd_len, (size_t)c->smss);

			c->ssthresh = MAX(flight / 2, 2u * c->smss);
			c->cwnd = c->ssthresh + 3u * c->smss;
			c->stats.fast_retransmits++;
			c->rtt_timing = false;
			if (n)
				xmit(c, c->snd_una, TCP_ACK | TCP_PSH, c->sndbuf, n);
			else if (c->fin_sent)
				xmit(c, c->snd_una, TCP_ACK | TCP_FIN, NULL, 0);
			arm_rto(c, now);
		} else if (c->dupacks > 3) {
			c->cwnd += c->smss;
		}
	} else if (c->persist) {
		c->retries = 0;   /* the peer answers the probes */
	}
	/* RFC 9293 §3.10.7.4: window update from the newest segment only. */
	if (TCP_SEQ_LT(c->snd_wl1, s->seq) ||
	    (c->snd_wl1 == s->seq && TCP_SEQ_LEQ(c->snd_wl2, s->ack))) {
		c->snd_wnd = wnd;
		if (wnd > c->max_snd_wnd)
			c->max_snd_wnd = wnd;
		c->snd_wl1 = s->seq;
		c->snd_wl2 = s->ack;
		if (wnd && c->persist) {
			c->persist = false;
			c->rto_at_ms = 0;
			c->retries = 0;
		}
	}
	if (c->fin_sent && c->snd_una == c->snd_max) {
		if (c->state == TCP_FIN_WAIT_1)
			c->state = TCP_FIN_WAIT_2;
		else if (c->state == TCP_CLOSING)
			enter_time_wait(c, now);
		else if (c->state == TCP_LAST_ACK)
			finish(c, 0, "");
	}
}

static void process(struct tcp_conn *c, const struct tcp_segment *s, uint64_t now)
{
	uint32_t seq = s->seq, seg_len = (uint32_t)s->payload_len + !!(s->flags & TCP_FIN);
	const uint8_t *data = s->payload;
	size_t len = s->payload_len;
	bool fin = s->flags & TCP_FIN, had_ooo = false;

	if (c->state == TCP_SYN_SENT) {
		process_syn_sent(c, s, now);
		return;
	}
	if ((s->flags & (TCP_SYN | TCP_RST)) == TCP_SYN) {
		challenge_ack(c, now);   /* RFC 5961 §4: whatever its sequence number */
		return;
	}
	/* RFC 7323 §5.3 R1 (PAWS), before the window check: a segment whose TSval is older than
	 * TS.Recent is an old duplicate (perhaps from a wrapped sequence space); it is not
	 * acceptable: an ACK in reply (none for a RST) and dropped. TS.Recent cannot be 24 days
	 * idle in a boot. */
	if (c->ts_ok && s->has_timestamps && (int32_t)(s->tsval - c->ts_recent) < 0) {
		c->stats.paws_dropped++;
		if (!(s->flags & TCP_RST))
			send_ack(c);
		return;
	}
	if (!seq_acceptable(c, seq, seg_len)) {
		if (s->flags & TCP_RST) {
			c->stats.rst_ignored++;
			return;
		}
		if (len)
			c->stats.dup_segs++;
		/* A duplicate (or beyond the window): always answered, it is the peer's ACK clock
		 * (only RFC 5961 challenge ACKs are rate-limited). */
		send_ack(c);
		if (c->state == TCP_TIME_WAIT && fin)
			c->time_wait_until_ms = now + c->cfg.time_wait_ms;
		return;
	}
	if (s->flags & TCP_RST) {
		/* RFC 5961 §3.2: only a RST at exactly RCV.NXT resets; in-window ones get a
		 * challenge ACK, so a blind attacker (or a storm) cannot tear us down. */
		if (seq != c->rcv_nxt) {
			c->stats.rst_ignored++;
			challenge_ack(c, now);
			return;
		}
		if (c->state == TCP_LAST_ACK || c->state == TCP_CLOSING || c->state == TCP_TIME_WAIT)
			finish(c, 0, "");
		else
			finish(c, -ECANCELED, "connection reset by server");
		return;
	}
	if (s->flags & TCP_SYN) {
		challenge_ack(c, now);   /* RFC 5961 §4 */
		return;
	}
	if (!(s->flags & TCP_ACK))
		return;
	/* RFC 5961 §5.2: the ACK is acceptable only in [SND.UNA - MAX.SND.WND, SND.NXT] (SND.NXT
	 * being the highest sequence sent, snd_max, since a timeout moves snd_nxt back); anything
	 * else is discarded — data included — and answered with a (rate-limited) challenge ACK, so
	 * a blind injection must guess the ACK too. */
	if (TCP_SEQ_GT(s->ack, c->snd_max) ||
	    TCP_SEQ_LT(s->ack, c->snd_una - c->max_snd_wnd)) {
		c->stats.acks_refused++;
		challenge_ack(c, now);
		return;
	}
	/* RFC 7323 §4.3: TS.Recent follows the segments at the left edge of the window. */
	if (c->ts_ok && s->has_timestamps && TCP_SEQ_LEQ(s->seq, c->last_ack_sent) &&
	    (int32_t)(s->tsval - c->ts_recent) >= 0)
		c->ts_recent = s->tsval;
	process_ack(c, s, now);
	if (c->state == TCP_CLOSED)
		return;
	if (c->snd_len || (c->fin_queued && !c->fin_sent))
		output(c, now);   /* acknowledged data or an opened window make room */
	if (c->state != TCP_ESTABLISHED && c->state != TCP_FIN_WAIT_1 &&
	    c->state != TCP_FIN_WAIT_2)
		return;   /* the peer has already sent its FIN: nothing more may arrive */

	/* Trim what we already have and what lies beyond the window. */
	if (TCP_SEQ_LT(seq, c->rcv_nxt)) {
		uint32_t skip = c->rcv_nxt - seq;

		if (skip > len) {
			return;   /* only an old FIN */
		}
		data += skip;
		len -= skip;
		seq = c->rcv_nxt;
		c->stats.dup_segs++;
	}
	if (len > rcv_window(c) - (seq - c->rcv_nxt)) {
		len = rcv_window(c) - (seq - c->rcv_nxt);
		fin = false;
	}
	if (seq != c->rcv_nxt) {
		if (!len && !fin)
			return;   /* a bare ACK from beyond a hole: nothing to keep */
		ooo_store(c, seq, data, len, fin);
		send_ack(c);   /* RFC 5681 §4.2: an out-of-order segment is acknowledged at once */
		return;
	}
	if (len && !deliver(c, data, len))
		return;
	if (fin && !c->fin_received) {
		ooo_clear(c);   /* nothing may follow a FIN: whatever was stored beyond it is bogus */
		got_fin(c, now);
		return;
	}
	if (!ooo_drain(c, now, &had_ooo))
		return;
	if (c->n_sack)
		sack_trim(c);
	if (c->fin_received)
		return;   /* got_fin acknowledged it */
	if (len) {
		/* RFC 9293 §3.8.6.3 / RFC 5681 §4.2: ACK at least every second full segment and
		 * at once when a hole was being filled; otherwise within delack_ms. */
		if (len >= c->rcv_full)
			c->unacked_segs++;
		else
			c->unacked_segs += 2;   /* a short segment: a PSH'd tail, answer it now */
		if (c->unacked_segs >= 2 || had_ooo)
			send_ack(c);
		else if (!c->delack_at_ms)
			c->delack_at_ms = now + c->cfg.delack_ms;
	}
}

void tcp_rx(struct net_device *nd, const struct ipv4_packet *ip)
{
	struct tcp_segment s;
	struct tcp_conn *c;

	if (tcp_parse(ip->payload, ip->payload_len, ip->src, ip->dst, &s, NULL) < 0)
		return;
	c = find_conn(nd, ip->src, s.sport, s.dport);
	if (!c || c->state == TCP_CLOSED) {
		if (!(s.flags & TCP_RST))
			send_reset_for(nd, ip, &s);
		return;
	}
	c->stats.segs_in++;
	process(c, &s, clock_ms());
	if (c->state == TCP_CLOSED)
		ooo_clear(c);
}

/* SPDX-License-Identifier: MIT */
/* ICMP (RFC 792): answer echo requests, count echo replies, send echo requests; per interface. */
#include <ibboot/ipv4.h>
#include <ibboot/byteorder.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>

void icmp_set_reply_handler(struct net_device *nd, icmp_reply_fn fn, void *ctx)
{
	nd->icmp_reply = fn;
	nd->icmp_reply_ctx = ctx;
}

const struct icmp_stats *icmp_get_stats(const struct net_device *nd)
{
	return &nd->icmp;
}

void icmp_reset_stats(struct net_device *nd)
{
	memset(&nd->icmp, 0, sizeof(nd->icmp));
}

int icmp_parse(const uint8_t *buf, size_t len, struct icmp_echo *out, const char **why)
{
	const char *dummy;

	if (!why)
		why = &dummy;
	if (!buf || len < ICMP_HDR_LEN) {
		*why = "shorter than an ICMP header";
		return -EINVAL;
	}
	if (ip_checksum(buf, len) != 0) {
		*why = "bad ICMP checksum";
		return -EINVAL;
	}
	out->type = buf[0];
	out->code = buf[1];
	out->id = get_be16(buf + 4);
	out->seq = get_be16(buf + 6);
	out->data = buf + ICMP_HDR_LEN;
	out->data_len = len - ICMP_HDR_LEN;
	return 0;
}

static int icmp_send(struct net_device *nd, uint32_t dst, uint8_t type, uint16_t id, uint16_t seq,
		     const uint8_t *data, size_t data_len)
{
	struct net_buf *nb = ipv4_alloc(nd);
	uint8_t *p;

	if (!nb)
		return -ENOSPC;
	p = nb_put(nb, ICMP_HDR_LEN + data_len);
	if (!p) {
		nd->ops->free_tx(nd, nb);
		return -ERANGE;
	}
	p[0] = type;
	p[1] = 0;
	put_be16(p + 2, 0);
	put_be16(p + 4, id);
	put_be16(p + 6, seq);
	if (data)
		memcpy(p + ICMP_HDR_LEN, data, data_len);
	else
		for (size_t i = 0; i < data_len; i++)
			p[ICMP_HDR_LEN + i] = (uint8_t)(0x20 + i % 64);
	put_be16(p + 2, ip_checksum(p, ICMP_HDR_LEN + data_len));
	return ipv4_tx(nd, nb, dst, IP_PROTO_ICMP);
}

void icmp_rx(struct net_device *nd, const struct ipv4_packet *ip)
{
	struct icmp_stats *stats = &nd->icmp;
	struct icmp_echo e;

	if (icmp_parse(ip->payload, ip->payload_len, &e, NULL) < 0) {
		stats->bad++;
		nd->stats.rx_dropped++;
		return;
	}
	switch (e.type) {
	case ICMP_ECHO_REQUEST:
		stats->echo_requests_in++;
		/* RFC 1122 3.2.2.6: a request to a broadcast address may go unanswered; we do. */
		if (ip->dst != nd->ip_addr || e.code != 0)
			return;
		if (icmp_send(nd, ip->src, ICMP_ECHO_REPLY, e.id, e.seq, e.data, e.data_len) == 0)
			stats->echo_replies_out++;
		break;
	case ICMP_ECHO_REPLY:
		stats->echo_replies_in++;
		stats->last_reply_from = ip->src;
		stats->last_reply_id = e.id;
		stats->last_reply_seq = e.seq;
		if (nd->icmp_reply)
			nd->icmp_reply(nd->icmp_reply_ctx, ip->src, e.id, e.seq, e.data_len + ICMP_HDR_LEN);
		break;
	default:
		break;
	}
}

int icmp_send_echo(struct net_device *nd, uint32_t dst, uint16_t id, uint16_t seq,
		   size_t data_len)
{
	if (!nd)
		nd = ipv4_route(dst);
	if (!nd)
		return -ENODEV;
	return icmp_send(nd, dst, ICMP_ECHO_REQUEST, id, seq, NULL, data_len);
}

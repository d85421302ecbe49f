/* SPDX-License-Identifier: MIT */
/* Minimal IPv4/UDP, DHCP (RFC 2131/4390) and TFTP (RFC 1350/2347/2348/2349) for the test client. */
#include "netboot_proto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ibboot/wire/bytes.h>

static int fail(const char **why, const char *msg, int err)
{
	if (why)
		*why = msg;
	return err;
}

/* RFC 1071 one's-complement sum, folded. */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		sum += (uint32_t)(p[n - 1] << 8);
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

/* The pseudo-header UDP and TCP checksums cover (RFC 768, RFC 793 §3.1). */
static uint32_t l4_pseudo(uint32_t src, uint32_t dst, uint8_t proto, size_t len)
{
	uint8_t ph[12];
	put_be32(ph, src);
	put_be32(ph + 4, dst);
	ph[8] = 0;
	ph[9] = proto;
	put_be16(ph + 10, (uint16_t)len);
	return csum_add(0, ph, sizeof ph);
}

/* A 20-byte IPv4 header (TTL 64, no options) with its checksum. */
static void ipv4_build(uint8_t *buf, size_t total, uint16_t ip_id, bool df, uint8_t proto,
		       uint32_t src, uint32_t dst)
{
	memset(buf, 0, 20);
	buf[0] = 0x45;
	put_be16(buf + 2, (uint16_t)total);
	put_be16(buf + 4, ip_id);
	put_be16(buf + 6, df ? 0x4000 : 0);
	buf[8] = 64;
	buf[9] = proto;
	put_be32(buf + 12, src);
	put_be32(buf + 16, dst);
	put_be16(buf + 10, csum_fold(csum_add(0, buf, 20)));
}

/* An IPv4 datagram carrying `proto`: lengths and header checksum checked; *payload and *plen
 * are what follows the header. -EPROTONOSUPPORT for a valid datagram of another protocol. */
static int ipv4_parse(const uint8_t *buf, size_t len, uint8_t proto, uint32_t *src, uint32_t *dst,
		      const uint8_t **payload, size_t *plen, const char **why)
{
	if (len < 20 || buf[0] >> 4 != 4)
		return fail(why, "not an IPv4 datagram", -EINVAL);
	size_t ihl = (size_t)(buf[0] & 15) * 4, total = get_be16(buf + 2);
	if (ihl < 20 || total < ihl || total > len)
		return fail(why, "IPv4 lengths inconsistent", -EINVAL);
	if (csum_fold(csum_add(0, buf, ihl)) != 0)
		return fail(why, "IPv4 header checksum wrong", -EBADMSG);
	if (get_be16(buf + 6) & 0x3FFF)   /* a TCP fragment would fail its checksum too */
		return fail(why, "IPv4 fragment (not reassembled here)", -EINVAL);
	if (buf[9] != proto)
		return fail(why, proto == 17 ? "not UDP" : "not TCP", -EPROTONOSUPPORT);
	*src = get_be32(buf + 12);
	*dst = get_be32(buf + 16);
	*payload = buf + ihl;
	*plen = total - ihl;
	return 0;
}

size_t udp_build(uint8_t *buf, size_t cap, uint32_t src, uint32_t dst, uint16_t sport,
		 uint16_t dport, const uint8_t *data, size_t len, uint16_t ip_id)
{
	size_t total = 20 + 8 + len;
	if (total > cap || total > 0xFFFF)
		return 0;
	ipv4_build(buf, total, ip_id, false, 17, src, dst);
	uint8_t *u = buf + 20;
	memset(u, 0, 8);
	put_be16(u, sport);
	put_be16(u + 2, dport);
	put_be16(u + 4, (uint16_t)(8 + len));
	memcpy(u + 8, data, len);
	uint16_t c = csum_fold(csum_add(l4_pseudo(src, dst, 17, 8 + len), u, 8 + len));
	put_be16(u + 6, c ? c : 0xFFFF);   /* RFC 768: 0 means "no checksum" */
	return total;
}

int udp_parse(const uint8_t *buf, size_t len, struct udp_dgram *u, const char **why)
{
	const uint8_t *p;
	size_t plen;
	int rc = ipv4_parse(buf, len, 17, &u->src, &u->dst, &p, &plen, why);

	if (rc)
		return rc;
	if (plen < 8 || get_be16(p + 4) < 8 || get_be16(p + 4) > plen)
		return fail(why, "UDP length inconsistent", -EINVAL);
	size_t ulen = get_be16(p + 4);
	if (get_be16(p + 6) != 0 &&
	    csum_fold(csum_add(l4_pseudo(u->src, u->dst, 17, ulen), p, ulen)) != 0)
		return fail(why, "UDP checksum wrong", -EBADMSG);
	u->sport = get_be16(p);
	u->dport = get_be16(p + 2);
	u->data = p + 8;
	u->len = ulen - 8;
	return 0;
}

/* ---------------------------------------------------------------- TCP */

size_t tcp_build(uint8_t *buf, size_t cap, const struct tcp_seg *s, uint16_t ip_id)
{
	size_t hl = s->mss ? 24 : 20, total = 20 + hl + s->len;
	if (total > cap || total > 0xFFFF)
		return 0;
	/* DF: TCP does its own segmentation */
	ipv4_build(buf, total, ip_id, true, 6, s->src, s->dst);
	uint8_t *t = buf + 20;
	memset(t, 0, hl);
	put_be16(t, s->sport);
	put_be16(t + 2, s->dport);
	put_be32(t + 4, s->seq);
	put_be32(t + 8, s->ack);
	t[12] = (uint8_t)((hl / 4) << 4);
	t[13] = s->flags;
	put_be16(t + 14, s->window);
	if (s->mss) {
		t[20] = 2;
		t[21] = 4;
		put_be16(t + 22, s->mss);
	}
	if (s->len)
		memcpy(t + hl, s->data, s->len);
	put_be16(t + 16, csum_fold(csum_add(l4_pseudo(s->src, s->dst, 6, hl + s->len), t, hl + s->len)));
	return total;
}

int tcp_parse(const uint8_t *buf, size_t len, struct tcp_seg *s, const char **why)
{
	const uint8_t *t;
	size_t tlen;
	int rc = ipv4_parse(buf, len, 6, &s->src, &s->dst, &t, &tlen, why);

	if (rc)
		return rc;
	if (tlen < 20 || (size_t)(t[12] >> 4) * 4 < 20 || (size_t)(t[12] >> 4) * 4 > tlen)
		return fail(why, "TCP header length inconsistent", -EINVAL);
	if (csum_fold(csum_add(l4_pseudo(s->src, s->dst, 6, tlen), t, tlen)) != 0)
		return fail(why, "TCP checksum wrong", -EBADMSG);
	size_t hl = (size_t)(t[12] >> 4) * 4;
	s->sport = get_be16(t);
	s->dport = get_be16(t + 2);
	s->seq = get_be32(t + 4);
	s->ack = get_be32(t + 8);
	s->flags = t[13];
	s->window = get_be16(t + 14);
	s->mss = 0;
	for (size_t i = 20; i < hl;) {   /* options: only MSS is read */
		if (t[i] == 0)
			break;
		if (t[i] == 1) {
			i++;
			continue;
		}
		if (i + 1 >= hl || t[i + 1] < 2 || i + t[i + 1] > hl)
			return fail(why, "TCP option runs past the header", -EINVAL);
		if (t[i] == 2 && t[i + 1] == 4)
			s->mss = get_be16(t + i + 2);
		i += t[i + 1];
	}
	s->data = t + hl;
	s->len = tlen - hl;
	return 0;
}

/* ---------------------------------------------------------------- DHCP */

#define DHCP_FIXED 236u
#define DHCP_MAGIC 0x63825363u

size_t dhcp_ib_client_id(uint8_t out[20], uint64_t port_guid)
{
	out[0] = 0xFF;                     /* RFC 4361 §6.1: type 255 = IAID + DUID */
	put_be32(out + 1, 0);        /* IAID */
	put_be16(out + 5, 2);        /* DUID-EN (RFC 3315 §9.3) */
	put_be32(out + 7, 0x000002C9);
	out[11] = 0;
	put_be64(out + 12, port_guid);
	return 20;
}

size_t dhcp_build(uint8_t *buf, size_t cap, int msg_type, uint32_t xid, const uint8_t *clid,
		  size_t clid_len, uint32_t requested_ip, uint32_t server_id)
{
	static const uint8_t prl[] = { 1, 3, 6, 12, 15, 28, 66, 67 };
	size_t need = DHCP_FIXED + 4 + 3 + 2 + clid_len + 2 + sizeof prl + 6 + 6 + 1;
	if (need > cap || clid_len > 255)
		return 0;
	memset(buf, 0, DHCP_FIXED);
	buf[0] = 1;                        /* BOOTREQUEST */
	buf[1] = DHCP_HTYPE_INFINIBAND;
	buf[2] = 0;                        /* RFC 4390 §2.1: hlen 0, chaddr zero */
	put_be32(buf + 4, xid);
	put_be16(buf + 10, DHCP_FLAG_BROADCAST);   /* RFC 4390 §2.2: the client cannot
							   * take unicast before it has an address */
	size_t o = DHCP_FIXED;
	put_be32(buf + o, DHCP_MAGIC);
	o += 4;
	buf[o++] = 53; buf[o++] = 1; buf[o++] = (uint8_t)msg_type;
	buf[o++] = 61; buf[o++] = (uint8_t)clid_len;
	memcpy(buf + o, clid, clid_len);
	o += clid_len;
	buf[o++] = 55; buf[o++] = sizeof prl;
	memcpy(buf + o, prl, sizeof prl);
	o += sizeof prl;
	if (requested_ip) {
		buf[o++] = 50; buf[o++] = 4;
		put_be32(buf + o, requested_ip);
		o += 4;
	}
	if (server_id) {
		buf[o++] = 54; buf[o++] = 4;
		put_be32(buf + o, server_id);
		o += 4;
	}
	buf[o++] = 255;
	return o;
}

int dhcp_parse(const uint8_t *buf, size_t len, struct dhcp_msg *m, const char **why)
{
	memset(m, 0, sizeof(*m));
	m->msg_type = -1;
	if (len < DHCP_FIXED + 4)
		return fail(why, "DHCP message shorter than 240 bytes", -EINVAL);
	if (get_be32(buf + DHCP_FIXED) != DHCP_MAGIC)
		return fail(why, "DHCP magic cookie missing", -EINVAL);
	m->op = buf[0];
	m->htype = buf[1];
	m->hlen = buf[2];
	m->xid = get_be32(buf + 4);
	m->flags = get_be16(buf + 10);
	m->ciaddr = get_be32(buf + 12);
	m->yiaddr = get_be32(buf + 16);
	m->siaddr = get_be32(buf + 20);
	memcpy(m->file, buf + 108, 128);
	m->file[128] = 0;
	for (size_t i = DHCP_FIXED + 4; i < len;) {
		uint8_t code = buf[i];
		if (code == 255)
			return 0;
		if (code == 0) {
			i++;
			continue;
		}
		if (i + 2 > len || i + 2 + buf[i + 1] > len)
			return fail(why, "DHCP option runs past the end of the message", -EINVAL);
		const uint8_t *v = buf + i + 2;
		size_t l = buf[i + 1];
		switch (code) {
		case 53: if (l == 1) m->msg_type = v[0]; break;
		case 54: if (l == 4) m->server_id = get_be32(v); break;
		case 1: if (l == 4) m->subnet_mask = get_be32(v); break;
		case 61:
			memcpy(m->client_id, v, l < sizeof m->client_id ? l : sizeof m->client_id);
			m->client_id_len = l < sizeof m->client_id ? l : sizeof m->client_id;
			break;
		case 67: memcpy(m->bootfile, v, l); m->bootfile[l] = 0; break;
		default: break;
		}
		i += 2 + l;
	}
	return fail(why, "DHCP options not terminated by END", -EINVAL);
}

/* ---------------------------------------------------------------- TFTP */

size_t tftp_build_rrq(uint8_t *buf, size_t cap, const char *file, unsigned blksize)
{
	char opts[64];
	int ol = snprintf(opts, sizeof opts, "octet%cblksize%c%u%ctsize%c0", 0, 0, blksize, 0, 0);
	size_t fl = strlen(file);
	size_t need = 2 + fl + 1 + (size_t)ol + 1;
	if (ol < 0 || need > cap)
		return 0;
	put_be16(buf, TFTP_RRQ);
	memcpy(buf + 2, file, fl + 1);
	memcpy(buf + 2 + fl + 1, opts, (size_t)ol + 1);
	return need;
}

size_t tftp_build_ack(uint8_t *buf, size_t cap, uint16_t block)
{
	if (cap < 4)
		return 0;
	put_be16(buf, TFTP_ACK);
	put_be16(buf + 2, block);
	return 4;
}

int tftp_parse(const uint8_t *buf, size_t len, struct tftp_msg *m, const char **why)
{
	memset(m, 0, sizeof(*m));
	m->blksize = m->tsize = -1;
	if (len < 2)
		return fail(why, "TFTP message shorter than its opcode", -EINVAL);
	m->opcode = get_be16(buf);
	switch (m->opcode) {
	case TFTP_DATA:
	case TFTP_ACK:
		if (len < 4)
			return fail(why, "TFTP DATA/ACK shorter than 4 bytes", -EINVAL);
		m->block = get_be16(buf + 2);
		m->data = buf + 4;
		m->len = len - 4;
		return 0;
	case TFTP_ERROR: {
		if (len < 5 || buf[len - 1] != 0)
			return fail(why, "TFTP ERROR not NUL-terminated", -EINVAL);
		m->error_code = get_be16(buf + 2);
		snprintf(m->error_msg, sizeof m->error_msg, "%s", (const char *)buf + 4);
		return 0;
	}
	case TFTP_OACK: {
		/* name\0value\0 pairs (RFC 2347) */
		size_t i = 2;
		while (i < len) {
			const char *name = (const char *)buf + i;
			const uint8_t *z = memchr(buf + i, 0, len - i);
			if (!z)
				return fail(why, "TFTP OACK option name not terminated", -EINVAL);
			size_t vi = (size_t)(z - buf) + 1;
			const uint8_t *z2 = vi < len ? memchr(buf + vi, 0, len - vi) : NULL;
			if (!z2)
				return fail(why, "TFTP OACK option value not terminated", -EINVAL);
			const char *val = (const char *)buf + vi;
			char *end;
			long v = strtol(val, &end, 10);
			if (*val && !*end && v >= 0) {
				if (!strcasecmp(name, "blksize"))
					m->blksize = v;
				else if (!strcasecmp(name, "tsize"))
					m->tsize = v;
			}
			i = (size_t)(z2 - buf) + 1;
		}
		return 0;
	}
	default:
		return fail(why, "unexpected TFTP opcode", -EPROTONOSUPPORT);
	}
}

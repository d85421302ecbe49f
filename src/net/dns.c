/* SPDX-License-Identifier: MIT */
/* DNS stub resolver (RFC 1035): A records over UDP, a small TTL cache. */
#include <ibboot/dns.h>
#include <ibboot/byteorder.h>
#include <ibboot/config.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/random.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>

#define DNS_HDR_LEN     12
#define DNS_TYPE_A      1
#define DNS_TYPE_CNAME  5
#define DNS_CLASS_IN    1
#define DNS_FLAG_QR     0x8000u
#define DNS_FLAG_TC     0x0200u
#define DNS_FLAG_RD     0x0100u
#define DNS_RCODE_NXDOMAIN 3
#define DNS_MAX_CNAMES  8
#define DNS_CACHE_SIZE  8
#define DNS_CACHE_MAX_TTL 3600u

static char why_buf[128];

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool name_eq(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	/* A trailing dot (fully qualified) does not change the name. */
	if (la && a[la - 1] == '.')
		la--;
	if (lb && b[lb - 1] == '.')
		lb--;
	if (la != lb)
		return false;
	for (size_t i = 0; i < la; i++)
		if (lower(a[i]) != lower(b[i]))
			return false;
	return true;
}

/*
 * Reads a possibly compressed name at *off into out (dotted, no trailing dot) and moves *off past
 * it. A pointer (RFC 1035 §4.1.4) must point before the start of the label run it ends, so each
 * jump goes strictly backwards and a loop is impossible.
 */
static int read_name(const uint8_t *buf, size_t len, size_t *off, char *out, const char **why)
{
	size_t pos = *off, run_start = *off, n = 0, wire = 0;
	bool jumped = false;

	for (;;) {
		uint8_t l;

		if (pos >= len) {
			*why = "name runs past the end";
			return -EINVAL;
		}
		l = buf[pos];
		if ((l & 0xc0) == 0xc0) {
			size_t target;

			if (pos + 1 >= len) {
				*why = "compression pointer truncated";
				return -EINVAL;
			}
			target = (size_t)(l & 0x3f) << 8 | buf[pos + 1];
			if (target >= run_start) {
				*why = "pointer not backwards (loop)";
				return -EINVAL;
			}
			if (!jumped)
				*off = pos + 2;
			jumped = true;
			pos = run_start = target;
			continue;
		}
		if (l & 0xc0) {
			*why = "unknown label type";
			return -EINVAL;
		}
		if (!l) {
			if (!jumped)
				*off = pos + 1;
			out[n] = '\0';
			return 0;
		}
		if (pos + 1 + l > len) {
			*why = "label runs past the end";
			return -EINVAL;
		}
		wire += 1u + l;
		if (wire + 1 > DNS_NAME_MAX) {
			*why = "name over 255 bytes";
			return -EINVAL;
		}
		if (n)
			out[n++] = '.';
		for (unsigned i = 0; i < l; i++) {
			char c = (char)buf[pos + 1 + i];

			/* '.' inside a label or NUL would make the dotted form ambiguous */
			out[n++] = c == '.' || c == '\0' ? '?' : c;
		}
		pos += 1u + l;
	}
}

int dns_build_query(uint8_t *buf, size_t size, uint16_t id, const char *name)
{
	size_t nlen = strnlen(name, DNS_NAME_MAX + 1), pos = DNS_HDR_LEN;
	const char *label = name;

	if (!nlen || nlen > DNS_NAME_MAX - 2)
		return -EINVAL;
	if (size < DNS_HDR_LEN + nlen + 2 + 4)
		return -ERANGE;
	memset(buf, 0, DNS_HDR_LEN);
	put_be16(buf, id);
	put_be16(buf + 2, DNS_FLAG_RD);
	put_be16(buf + 4, 1);
	while (*label) {
		const char *dot = strchr(label, '.');
		size_t l = dot ? (size_t)(dot - label) : strlen(label);

		if (!l || l > 63)
			return -EINVAL;   /* RFC 1035 §2.3.4: labels of 1..63 bytes */
		buf[pos++] = (uint8_t)l;
		memcpy(buf + pos, label, l);
		pos += l;
		label += l;
		if (*label == '.')
			label++;
	}
	buf[pos++] = 0;
	put_be16(buf + pos, DNS_TYPE_A);
	put_be16(buf + pos + 2, DNS_CLASS_IN);
	return (int)(pos + 4);
}

static int fail(const char **why, const char *msg, int rc)
{
	*why = msg;
	return rc;
}

int dns_parse_response(const uint8_t *buf, size_t len, uint16_t id, const char *name,
		       uint32_t *addr, uint32_t *ttl, const char **why)
{
	char target[DNS_NAME_MAX + 1], owner[DNS_NAME_MAX + 1];
	const char *dummy;
	size_t off, answers_off;
	unsigned qd, an;
	uint16_t flags;
	int rc;

	if (!why)
		why = &dummy;
	if (!buf || len < DNS_HDR_LEN)
		return fail(why, "too short", -EINVAL);
	if (get_be16(buf) != id)
		return fail(why, "id mismatch", -EINVAL);
	flags = get_be16(buf + 2);
	if (!(flags & DNS_FLAG_QR))
		return fail(why, "not a response", -EINVAL);
	if (flags & DNS_FLAG_TC)
		return fail(why, "truncated (TC); no TCP fallback", -EINVAL);
	if ((flags & 0xf) == DNS_RCODE_NXDOMAIN)
		return fail(why, "no such name (NXDOMAIN)", -ENOENT);
	if (flags & 0xf) {
		ksnprintf(why_buf, sizeof(why_buf), "server error (rcode %u)", flags & 0xfu);
		return fail(why, why_buf, -EIO);
	}
	qd = get_be16(buf + 4);
	an = get_be16(buf + 6);
	off = DNS_HDR_LEN;
	for (unsigned i = 0; i < qd; i++) {
		rc = read_name(buf, len, &off, owner, why);
		if (rc < 0)
			return rc;
		if (off + 4 > len)
			return fail(why, "question truncated", -EINVAL);
		off += 4;
	}
	answers_off = off;
	if (strnlen(name, DNS_NAME_MAX + 1) > DNS_NAME_MAX)
		return fail(why, "name too long", -EINVAL);
	memcpy(target, name, strlen(name) + 1);
	/* Each pass may move `target` along a CNAME; bounded so a CNAME cycle ends. */
	for (unsigned pass = 0; pass <= DNS_MAX_CNAMES; pass++) {
		bool moved = false;

		off = answers_off;
		for (unsigned i = 0; i < an; i++) {
			uint16_t type, class;
			size_t rdlen;

			rc = read_name(buf, len, &off, owner, why);
			if (rc < 0)
				return rc;
			if (off + 10 > len)
				return fail(why, "answer record truncated", -EINVAL);
			type = get_be16(buf + off);
			class = get_be16(buf + off + 2);
			rdlen = get_be16(buf + off + 8);
			if (rdlen > len - off - 10)
				return fail(why, "answer data runs past the end", -EINVAL);
			if (class == DNS_CLASS_IN && name_eq(owner, target)) {
				if (type == DNS_TYPE_A) {
					if (rdlen != 4)
						return fail(why, "A record not 4 bytes",
							    -EINVAL);
					*addr = get_be32(buf + off + 10);
					*ttl = get_be32(buf + off + 4);
					return 0;
				}
				if (type == DNS_TYPE_CNAME && !moved) {
					size_t roff = off + 10;

					rc = read_name(buf, off + 10 + rdlen, &roff, target, why);
					if (rc < 0)
						return rc;
					moved = true;
				}
			}
			off += 10 + rdlen;
		}
		if (!moved)
			break;
	}
	return fail(why, "no A record", -ENOENT);
}

/* ---- cache and servers ---- */

/* Answers, each remembered with the interface whose servers gave it (two networks may name
 * things differently). */
static struct {
	char name[DNS_NAME_MAX + 1];
	const struct net_device *nd;
	uint32_t addr;
	uint64_t expires_ms;
} cache[DNS_CACHE_SIZE];
static unsigned cache_next;

void dns_set_servers(struct net_device *nd, const uint32_t *s, unsigned n)
{
	nd->n_dns = 0;
	for (unsigned i = 0; i < n && nd->n_dns < NET_MAX_DNS; i++)
		if (s[i])
			nd->dns[nd->n_dns++] = s[i];
}

void dns_cache_flush(void)
{
	memset(cache, 0, sizeof(cache));
}

/* The entry for name on nd (expired or not), else -1. */
static int cache_find(const struct net_device *nd, const char *name)
{
	for (int i = 0; i < DNS_CACHE_SIZE; i++)
		if (cache[i].name[0] && cache[i].nd == nd && name_eq(cache[i].name, name))
			return i;
	return -1;
}

static void cache_add(const struct net_device *nd, const char *name, uint32_t addr, uint32_t ttl,
		      uint64_t now)
{
	int slot = cache_find(nd, name);

	if (slot < 0)
		slot = (int)(cache_next++ % DNS_CACHE_SIZE);
	memcpy(cache[slot].name, name, strlen(name) + 1);
	cache[slot].nd = nd;
	cache[slot].addr = addr;
	cache[slot].expires_ms = now + (uint64_t)(ttl < DNS_CACHE_MAX_TTL ? ttl : DNS_CACHE_MAX_TTL) * 1000;
}

struct dns_query {
	const char *name;
	uint16_t id;
	uint32_t server;
	int rc;            /* 1 while waiting */
	uint32_t addr, ttl;
};

static void dns_sock_rx(struct udp_socket *s, uint32_t src, uint16_t sport,
			const uint8_t *data, size_t len)
{
	struct dns_query *q = s->priv;
	const char *why;
	int rc;

	if (q->rc != 1 || sport != DNS_PORT || src != q->server)
		return;
	rc = dns_parse_response(data, len, q->id, q->name, &q->addr, &q->ttl, &why);
	if (rc == -EINVAL && len >= 2 && get_be16(data) != q->id)
		return;   /* a stale answer to an earlier try */
	if (rc < 0)
		kprintf("dns: %s from %'u: %s%s\n", q->name, src, why,
			rc == -EINVAL ? " (ignored)" : "");
	/* A malformed answer ends nothing (it may be forged or mangled): keep waiting. */
	if (rc != -EINVAL)
		q->rc = rc;
}

int dns_resolve(struct net_device *nd, const char *name, const struct dns_config *cfg,
		uint32_t *addr)
{
	struct dns_config def = { DNS_FIRST_TIMEOUT_MS, DNS_TRIES };
	struct udp_socket sock = { 0 };
	struct dns_query q = { name, 0, 0, 1, 0, 0 };
	uint8_t pkt[DNS_HDR_LEN + DNS_NAME_MAX + 8];
	unsigned timeout;
	int len, rc, i;

	if (!cfg)
		cfg = &def;
	if (ipv4_aton(name, addr) == 0)
		return 0;
	if ((i = cache_find(nd, name)) >= 0 && (int64_t)(cache[i].expires_ms - clock_ms()) > 0) {
		*addr = cache[i].addr;
		return 0;
	}
	rc = net_ready_for_unicast(nd, "dns");
	if (rc < 0)
		return rc;
	if (!nd->n_dns) {
		kprintf("dns: cannot resolve %s: no DNS server (no DHCP option 6)\n", name);
		return -ENOENT;
	}
	rc = udp_open(&sock, nd, 0, dns_sock_rx, &q);
	if (rc < 0)
		return rc;
	timeout = cfg->first_timeout_ms ? cfg->first_timeout_ms : DNS_FIRST_TIMEOUT_MS;
	for (unsigned t = 0; t < cfg->tries && q.rc == 1; t++) {
		uint64_t sent;

		q.id = (uint16_t)random_u32();
		q.server = nd->dns[t % nd->n_dns];
		len = dns_build_query(pkt, sizeof(pkt), q.id, name);
		if (len < 0) {
			kprintf("dns: bad host name \"%s\"\n", name);
			q.rc = len;
			break;
		}
		udp_sendto(&sock, q.server, DNS_PORT, pkt, (size_t)len);
		sent = clock_ms();
		while (q.rc == 1 && clock_ms() - sent < timeout)
			net_poll();
		if (t + 1 >= nd->n_dns)   /* back off once every server had a try */
			timeout = MIN(timeout * 2, DNS_MAX_TIMEOUT_MS);
	}
	udp_close(&sock);
	if (q.rc == 1) {
		kprintf("dns: no answer for %s from %'u (%u tries)\n",
			name, nd->dns[0], cfg->tries);
		return -ETIMEDOUT;
	}
	if (q.rc < 0)
		return q.rc;
	cache_add(nd, name, q.addr, q.ttl, clock_ms());
	*addr = q.addr;
	return 0;
}

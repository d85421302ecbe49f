/* SPDX-License-Identifier: MIT */
/*
 * DHCP client over IPoIB: RFC 2131 exchange, RFC 2132 options, RFC 4390 link rules.
 * The parser checks every length against the area it reads from; the client keeps one
 * transaction (xid) at a time and ignores everything else.
 */
#include <ibboot/dhcp.h>
#include <ibboot/report.h>
#include <ibboot/byteorder.h>
#include <ibboot/config.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/dns.h>
#include <ibboot/errno.h>
#include <ibboot/hex.h>
#include <ibboot/random.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>

/* Fixed-header offsets (RFC 2131 §2, figure 1). */
#define OFF_OP      0
#define OFF_HTYPE   1
#define OFF_HLEN    2
#define OFF_XID     4
#define OFF_SECS    8
#define OFF_FLAGS   10
#define OFF_CIADDR  12
#define OFF_YIADDR  16
#define OFF_SIADDR  20
#define OFF_GIADDR  24
#define OFF_SNAME   44
#define SNAME_LEN   64
#define OFF_FILE    108
#define FILE_LEN    128
#define OFF_COOKIE  236
#define OFF_OPTIONS 240

/* Option codes (RFC 2132). */
#define OPT_PAD          0
#define OPT_NETMASK      1
#define OPT_ROUTER       3
#define OPT_DNS          6
#define OPT_HOSTNAME     12
#define OPT_DOMAIN       15
#define OPT_REQ_IP       50
#define OPT_LEASE        51
#define OPT_OVERLOAD     52
#define OPT_MSG_TYPE     53
#define OPT_SERVER_ID    54
#define OPT_PARAM_LIST   55
#define OPT_MESSAGE      56
#define OPT_MAX_SIZE     57
#define OPT_T1           58
#define OPT_T2           59
#define OPT_CLIENT_ID    61
#define OPT_TFTP_SERVER  66
#define OPT_BOOTFILE     67
#define OPT_REPORT_URL   REPORT_DHCP_OPTION   /* site-specific: where the boot report goes */
/* iPXE's encapsulated options (175, "Etherboot"); sub-option 112 is ibboot's: the SHA-256
 * the boot file must have (dnsmasq: dhcp-option=encap:175,112,"<64 hex digits>"). */
#define OPT_EB_ENCAP     175
#define EB_FILE_SHA256   112
#define OPT_END          255

#define BOOTREQUEST 1
#define BOOTREPLY   2
#define BOOTP_MIN_MSG 300   /* RFC 1542 §2.1: some relays/servers drop shorter requests */
#define DHCP_MAX_REQUESTS 4  /* REQUESTs sent before going back to DISCOVER (RFC 2131 §4.4.1) */

static char why_buf[128];

static int fail_at(const char **why, const char *area, size_t off, unsigned code,
		   const char *what)
{
	ksnprintf(why_buf, sizeof(why_buf), "option %u at byte %u of %s: %s", code,
		  (unsigned)off, area, what);
	*why = why_buf;
	return -EINVAL;
}

static void copy_string(char *dst, size_t size, const uint8_t *src, size_t len)
{
	size_t n = 0;

	/* Strings may or may not be NUL-terminated (RFC 2132 §2): stop at the first NUL. */
	while (n < len && n + 1 < size && src[n])
		n++;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static bool memchr_nul(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!p[i])
			return true;
	return false;
}

/* RFC 3396 §7: a long option split into several instances is their concatenation, in the
 * order options, file, sname. A part after one that held a NUL adds nothing. */
static void append_string(char *dst, size_t size, bool *ended, const uint8_t *src, size_t len)
{
	size_t have = strnlen(dst, size);

	if (*ended || have + 1 >= size)
		return;
	copy_string(dst + have, size - have, src, len);
	if (memchr_nul(src, len))
		*ended = true;
}

/* Parse state shared by the areas of one message. */
struct parse_state {
	uint8_t seen[256 / 8];
	bool ended[6];   /* per string option: a part held its NUL */
};

/* Option 175's sub-options (RFC 2132 §8.4 form: code, length, value). The pin is kept as hex:
 * 64 hex digits as sent, or 32 bytes of binary. Any other form is kept as "bad" so the fetch it
 * pins fails instead of going ahead unpinned; a malformed encapsulation is ignored as a whole. */
static void parse_eb_encap(struct dhcp_msg *m, const uint8_t *v, size_t len)
{
	size_t i = 0;

	while (i < len && v[i] != OPT_END) {
		if (v[i] == OPT_PAD) {
			i++;
			continue;
		}
		if (i + 2 > len || v[i + 1] > len - i - 2)
			return;
		const uint8_t *sv = v + i + 2;
		size_t sl = v[i + 1];

		if (v[i] != EB_FILE_SHA256) {
			i += 2 + sl;
			continue;
		}
		if (sl == 32) {
			hex_encode(sv, 32, 0, m->file_sha256);
		} else if (sl == 64) {
			copy_string(m->file_sha256, sizeof(m->file_sha256), sv, sl);
		} else {
			memcpy(m->file_sha256, "bad", 4);
		}
		return;
	}
}

/* The options kept as one 32-bit value, and the strings (RFC 3396 concatenation), by where
 * they go in struct dhcp_msg. */
static const struct { uint8_t code; uint8_t off; } opt_u32[] = {
	{ OPT_SERVER_ID, offsetof(struct dhcp_msg, server_id) },
	{ OPT_NETMASK, offsetof(struct dhcp_msg, netmask) },
	{ OPT_LEASE, offsetof(struct dhcp_msg, lease_s) },
	{ OPT_T1, offsetof(struct dhcp_msg, t1_s) },
	{ OPT_T2, offsetof(struct dhcp_msg, t2_s) },
};
static const struct { uint8_t code; uint16_t off, size; } opt_str[] = {
	{ OPT_HOSTNAME, offsetof(struct dhcp_msg, hostname), DHCP_NAME_MAX },
	{ OPT_DOMAIN, offsetof(struct dhcp_msg, domain), DHCP_NAME_MAX },
	{ OPT_TFTP_SERVER, offsetof(struct dhcp_msg, tftp_server), DHCP_NAME_MAX },
	{ OPT_BOOTFILE, offsetof(struct dhcp_msg, bootfile), DHCP_FILE_MAX },
	{ OPT_MESSAGE, offsetof(struct dhcp_msg, message), DHCP_NAME_MAX },
	{ OPT_REPORT_URL, offsetof(struct dhcp_msg, report_url), DHCP_FILE_MAX },
};

static int parse_option(struct dhcp_msg *m, struct parse_state *ps, const char *area,
			size_t off, uint8_t code, const uint8_t *v, size_t len, bool main_area,
			const char **why)
{
	for (unsigned i = 0; i < ARRAY_SIZE(opt_u32); i++) {
		if (opt_u32[i].code != code)
			continue;
		if (len != 4)
			return fail_at(why, area, off, code, "length not 4");
		*(uint32_t *)((uint8_t *)m + opt_u32[i].off) = get_be32(v);
		return 0;
	}
	for (unsigned i = 0; i < ARRAY_SIZE(opt_str); i++)
		if (opt_str[i].code == code)
			append_string((char *)m + opt_str[i].off, opt_str[i].size, &ps->ended[i],
				      v, len);
	switch (code) {
	case OPT_MSG_TYPE:
		if (len != 1 || v[0] < DHCPDISCOVER || v[0] > DHCPINFORM)
			return fail_at(why, area, off, code, "bad message type");
		m->msg_type = v[0];
		break;
	case OPT_ROUTER:
	case OPT_DNS:
		if (!len || len % 4)
			return fail_at(why, area, off, code, "length not a multiple of 4");
		if (code == OPT_ROUTER) {
			if (!m->router)
				m->router = get_be32(v);
		} else {
			for (size_t i = 0; i < len && m->n_dns < DHCP_MAX_DNS; i += 4)
				m->dns[m->n_dns++] = get_be32(v + i);
		}
		break;
	case OPT_OVERLOAD:
		if (len != 1 || v[0] < 1 || v[0] > 3)
			return fail_at(why, area, off, code, "bad overload value");
		/* RFC 2132 §9.3: only meaningful in the options field; elsewhere it would loop. */
		if (main_area)
			m->overload = v[0];
		break;
	case OPT_EB_ENCAP:
		parse_eb_encap(m, v, len);
		break;
	default:
		break;
	}
	return 0;
}

static bool is_concatenated(uint8_t code)
{
	for (unsigned i = 0; i < ARRAY_SIZE(opt_str); i++)
		if (opt_str[i].code == code)
			return true;
	return code == OPT_DNS;
}

/* Walks one option area. */
static int parse_area(struct dhcp_msg *m, struct parse_state *ps, const uint8_t *p, size_t len,
		      const char *area, bool main_area, const char **why)
{
	size_t i = 0;

	while (i < len) {
		uint8_t code = p[i];
		size_t olen;
		int rc;

		if (code == OPT_PAD) {
			i++;
			continue;
		}
		if (code == OPT_END)
			return 0;
		if (i + 1 >= len)
			return fail_at(why, area, i, code, "no length byte");
		olen = p[i + 1];
		if (olen > len - i - 2) {
			char what[64];

			ksnprintf(what, sizeof(what), "length %u > %u left",
				  (unsigned)olen, (unsigned)(len - i - 2));
			return fail_at(why, area, i, code, what);
		}
		/* Fixed-size options: the first instance wins. Strings and lists (DNS servers)
		 * concatenate (RFC 3396). */
		if (is_concatenated(code) || !(ps->seen[code / 8] & (1u << (code % 8)))) {
			ps->seen[code / 8] |= (uint8_t)(1u << (code % 8));
			rc = parse_option(m, ps, area, i, code, p + i + 2, olen, main_area, why);
			if (rc < 0)
				return rc;
		}
		i += 2 + olen;
	}
	/* An area without END that ends exactly on an option boundary is accepted. */
	return 0;
}

int dhcp_parse(const uint8_t *buf, size_t len, struct dhcp_msg *out, const char **why)
{
	struct parse_state ps;
	const char *dummy;
	int rc;

	if (!why)
		why = &dummy;
	memset(&ps, 0, sizeof(ps));
	if (!buf || !out) {
		*why = "no buffer";
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	if (len < DHCP_MIN_LEN) {
		*why = "shorter than 240 bytes";
		return -EINVAL;
	}
	if (get_be32(buf + OFF_COOKIE) != DHCP_MAGIC) {
		*why = "no DHCP cookie (BOOTP server?)";
		return -EINVAL;
	}
	out->op = buf[OFF_OP];
	if (out->op != BOOTREQUEST && out->op != BOOTREPLY) {
		*why = "bad op";
		return -EINVAL;
	}
	out->xid = get_be32(buf + OFF_XID);
	out->yiaddr = get_be32(buf + OFF_YIADDR);
	out->siaddr = get_be32(buf + OFF_SIADDR);
	/* RFC 2131 §4.1: options, then file, then sname when option 52 says they hold options. */
	rc = parse_area(out, &ps, buf + OFF_OPTIONS, len - OFF_OPTIONS, "options", true, why);
	if (rc < 0)
		return rc;
	if (out->overload & 1) {
		rc = parse_area(out, &ps, buf + OFF_FILE, FILE_LEN, "file", false, why);
		if (rc < 0)
			return rc;
	}
	if (out->overload & 2) {
		rc = parse_area(out, &ps, buf + OFF_SNAME, SNAME_LEN, "sname", false, why);
		if (rc < 0)
			return rc;
	}
	if (!out->bootfile[0] && !(out->overload & 1))
		copy_string(out->bootfile, sizeof(out->bootfile), buf + OFF_FILE, FILE_LEN);
	return 0;
}

/* ---- client identifier ---- */

void dhcp_config_default(struct dhcp_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->client_id_form = DHCP_CLIENT_ID_FLEXBOOT;
	cfg->first_timeout_ms = DHCP_FIRST_TIMEOUT_MS;
	cfg->max_timeout_ms = DHCP_MAX_TIMEOUT_MS;
	cfg->total_timeout_ms = DHCP_TOTAL_TIMEOUT_MS;
	cfg->max_naks = DHCP_MAX_NAKS;
}

int dhcp_make_client_id(const struct dhcp_config *cfg, const struct net_device *nd,
			uint8_t *out, size_t size)
{
	/* RFC 4361 §6.1: type 255, IAID, DUID. FlexBoot's DUID is DUID-EN (type 2, RFC 3315
	 * §9.3) with Mellanox's enterprise number 713 (0x2c9) and identifier 00 + port GUID. */
	static const uint8_t flexboot_prefix[] = { 0xff, 0, 0, 0, 0, 0x00, 0x02,
						   0x00, 0x00, 0x02, 0xc9, 0x00 };
	const uint8_t *guid;

	if (cfg->client_id_form == DHCP_CLIENT_ID_RAW) {
		if (!cfg->client_id_len || cfg->client_id_len > size ||
		    cfg->client_id_len > DHCP_CLIENT_ID_MAX)
			return -EINVAL;
		memcpy(out, cfg->client_id, cfg->client_id_len);
		return (int)cfg->client_id_len;
	}
	/* The IPoIB link address is QPN(4) | GID(16); the GID's low 8 bytes are the port GUID. */
	if (nd->ll_addr_len < 8)
		return -EINVAL;
	guid = nd->ll_addr + nd->ll_addr_len - 8;
	if (cfg->client_id_form == DHCP_CLIENT_ID_HWTYPE_IB) {
		if (size < 9)
			return -ERANGE;
		out[0] = DHCP_HTYPE_IB;
		memcpy(out + 1, guid, 8);
		return 9;
	}
	if (size < sizeof(flexboot_prefix) + 8)
		return -ERANGE;
	memcpy(out, flexboot_prefix, sizeof(flexboot_prefix));
	memcpy(out + sizeof(flexboot_prefix), guid, 8);
	return (int)sizeof(flexboot_prefix) + 8;
}

/* ---- the client ---- */

static void dhcp_fail(struct dhcp_client *c, int rc, const char *fmt, ...) __printf(3, 4);
static void dhcp_fail(struct dhcp_client *c, int rc, const char *fmt, ...)
{
	va_list ap;

	c->state = DHCP_FAILED;
	c->result = rc;
	va_start(ap, fmt);
	kvsnprintf(c->error, sizeof(c->error), fmt, ap);
	va_end(ap);
	kprintf("%s: %s\n", c->nd->name, c->error);
	udp_close(&c->sock);
}

static uint8_t *put_opt(uint8_t *p, uint8_t code, const void *v, size_t len)
{
	*p++ = code;
	*p++ = (uint8_t)len;
	memcpy(p, v, len);
	return p + len;
}

static uint8_t *put_opt32(uint8_t *p, uint8_t code, uint32_t v)
{
	uint8_t b[4];

	put_be32(b, v);
	return put_opt(p, code, b, 4);
}

static int dhcp_send(struct dhcp_client *c, uint8_t type, uint64_t now)
{
	static const uint8_t params[] = { OPT_NETMASK, OPT_ROUTER, OPT_DNS, OPT_HOSTNAME,
					  OPT_DOMAIN, OPT_LEASE, OPT_SERVER_ID, OPT_T1, OPT_T2,
					  OPT_TFTP_SERVER, OPT_REPORT_URL, OPT_EB_ENCAP, OPT_BOOTFILE };
	uint8_t msg[OFF_OPTIONS + 128], *p;
	uint32_t secs = (uint32_t)((now - c->start_ms) / 1000);
	size_t len, max_size = udp_max_payload(c->nd);

	memset(msg, 0, sizeof(msg));
	msg[OFF_OP] = BOOTREQUEST;
	msg[OFF_HTYPE] = DHCP_HTYPE_IB;   /* RFC 4390 §2.1: htype 32, hlen 0, chaddr zero */
	msg[OFF_HLEN] = 0;
	put_be32(msg + OFF_XID, c->xid);
	put_be16(msg + OFF_SECS, (uint16_t)(secs > 0xffff ? 0xffff : secs));
	/* RFC 4390 §2.3: without a link address the server must broadcast its replies. */
	put_be16(msg + OFF_FLAGS, DHCP_FLAG_BROADCAST);
	put_be32(msg + OFF_COOKIE, DHCP_MAGIC);
	p = msg + OFF_OPTIONS;
	p = put_opt(p, OPT_MSG_TYPE, &type, 1);
	p = put_opt(p, OPT_CLIENT_ID, c->client_id, c->client_id_len);
	if (type == DHCPREQUEST) {
		/* RFC 2131 §4.3.2 SELECTING: requested address and the chosen server. */
		p = put_opt32(p, OPT_REQ_IP, c->offer.yiaddr);
		p = put_opt32(p, OPT_SERVER_ID, c->offer.server_id);
	}
	if (max_size > 0xffff)
		max_size = 0xffff;
	if (max_size >= 576) {
		uint8_t b[2];

		put_be16(b, (uint16_t)max_size);
		p = put_opt(p, OPT_MAX_SIZE, b, 2);
	}
	/* option 67 is last in params: dropping it leaves the file field to the server */
	p = put_opt(p, OPT_PARAM_LIST, params, sizeof(params) - (c->cfg.no_bootfile_option ? 1 : 0));
	*p++ = OPT_END;
	len = (size_t)(p - msg);
	if (len < BOOTP_MIN_MSG)
		len = BOOTP_MIN_MSG < sizeof(msg) ? BOOTP_MIN_MSG : sizeof(msg);
	return udp_sendto(&c->sock, IPV4_BROADCAST, DHCP_SERVER_PORT, msg, len);
}

static void restart_discover(struct dhcp_client *c, uint64_t now)
{
	c->state = DHCP_SELECTING;
	c->xid = random_u32();
	c->timeout_ms = c->cfg.first_timeout_ms;
	c->tx_count = 0;
	c->next_tx_ms = now;
}

static uint32_t classful_mask(uint32_t ip)
{
	if (ip >> 31 == 0)
		return 0xff000000u;
	if (ip >> 30 == 2)
		return 0xffff0000u;
	return 0xffffff00u;
}

/* next-server: siaddr (RFC 2131 §4.3.1), else option 66 when it is an address, else the server. */
static uint32_t pick_next_server(const struct dhcp_msg *m)
{
	uint32_t a;

	if (m->siaddr)
		return m->siaddr;
	if (m->tftp_server[0] && ipv4_aton(m->tftp_server, &a) == 0)
		return a;
	return m->server_id;
}

static void make_lease(struct dhcp_lease *l, const struct dhcp_msg *m)
{
	memset(l, 0, sizeof(*l));
	l->ip = m->yiaddr;
	l->netmask = m->netmask ? m->netmask : classful_mask(m->yiaddr);
	l->gateway = m->router;
	l->server_id = m->server_id;
	l->next_server = pick_next_server(m);
	for (unsigned i = 0; i < m->n_dns; i++)
		l->dns[i] = m->dns[i];
	l->n_dns = m->n_dns;
	l->lease_s = m->lease_s;
	_Static_assert(offsetof(struct dhcp_lease, report_url) - offsetof(struct dhcp_lease, hostname)
		       == offsetof(struct dhcp_msg, report_url) - offsetof(struct dhcp_msg, hostname),
		       "dhcp_msg and dhcp_lease strings differ");
	memcpy(l->hostname, m->hostname, offsetof(struct dhcp_lease, report_url) + sizeof(l->report_url)
	       - offsetof(struct dhcp_lease, hostname));
	if (!m->bootfile[0])   /* a pin is for the file named in the same message */
		l->filename_sha256[0] = 0;
}

static void handle_offer(struct dhcp_client *c, uint32_t src, struct dhcp_msg *m)
{
	if (!m->yiaddr) {
		/* A ProxyDHCP/PXE offer carries boot data but no address: not a lease, but its
		 * boot file is kept for a lease that names none (first such offer wins). */
		c->offers_ignored++;
		if (m->bootfile[0] && !c->proxy_filename[0]) {
			memcpy(c->proxy_filename, m->bootfile, sizeof(c->proxy_filename));
			c->proxy_next_server = pick_next_server(m);
			if (!c->proxy_next_server)
				c->proxy_next_server = src;
		}
		if (!c->cfg.quiet)
			kprintf("%s: DHCP offer from %'u, no address, boot file \"%s\"\n",
				c->nd->name, src, m->bootfile);
		return;
	}
	if (!m->server_id)
		m->server_id = src;   /* RFC 2131 requires option 54; be lenient */
	c->offer = *m;
	c->state = DHCP_REQUESTING;
	c->tx_count = 0;
	c->timeout_ms = c->cfg.first_timeout_ms;
	c->next_tx_ms = 0;   /* send the REQUEST on the next step */
	/* No line here: the lease line, or the failure, names the address and the server. */
}

static void handle_ack(struct dhcp_client *c, struct dhcp_msg *m)
{
	int rc;

	if (m->server_id && m->server_id != c->offer.server_id)
		return;   /* another server's ACK for this xid (RFC 2131 §4.4.1: ignore) */
	if (!m->yiaddr) {
		dhcp_fail(c, -EINVAL, "DHCPACK without an address");
		return;
	}
	make_lease(&c->lease, m);
	if (!c->lease.server_id)
		c->lease.server_id = c->offer.server_id;
	if (!c->lease.filename[0] && c->proxy_filename[0]) {
		memcpy(c->lease.filename, c->proxy_filename, sizeof(c->lease.filename));
		c->lease.next_server = c->proxy_next_server;
	}
	rc = ipv4_configure(c->nd, c->lease.ip, c->lease.netmask, c->lease.gateway);
	if (rc < 0) {
		dhcp_fail(c, rc, "DHCPACK for %'u unusable", c->lease.ip);
		return;
	}
	c->state = DHCP_BOUND;
	c->result = 0;
	udp_close(&c->sock);
}

static void handle_nak(struct dhcp_client *c, uint32_t src, const struct dhcp_msg *m)
{
	if (m->server_id && m->server_id != c->offer.server_id)
		return;
	c->naks++;
	kprintf("%s: DHCPNAK from %'u%s%s\n", c->nd->name, src,
		m->message[0] ? ": " : "", m->message);
	if (c->naks > c->cfg.max_naks) {
		dhcp_fail(c, -EPERM, "DHCPNAK %u times: check server ranges", c->naks);
		return;
	}
	restart_discover(c, clock_ms());
}

void dhcp_handle(struct dhcp_client *c, uint32_t src, const uint8_t *data, size_t len)
{
	struct dhcp_msg m;
	const char *why;

	if (c->state != DHCP_SELECTING && c->state != DHCP_REQUESTING)
		return;
	if (dhcp_parse(data, len, &m, &why) < 0) {
		kprintf("%s: bad DHCP reply from %'u ignored: %s\n", c->nd->name, src, why);
		return;
	}
	if (m.op != BOOTREPLY || m.xid != c->xid)
		return;   /* not an answer to our transaction (option 61 is not echoed: RFC 6842) */
	if (c->state == DHCP_SELECTING && m.msg_type == DHCPOFFER)
		handle_offer(c, src, &m);
	else if (c->state == DHCP_REQUESTING && m.msg_type == DHCPACK)
		handle_ack(c, &m);
	else if (c->state == DHCP_REQUESTING && m.msg_type == DHCPNAK)
		handle_nak(c, src, &m);
	else
		c->offers_ignored++;   /* duplicate or late offers once one was chosen */
}

static void dhcp_sock_rx(struct udp_socket *s, uint32_t src, uint16_t sport,
			 const uint8_t *data, size_t len)
{
	if (sport != DHCP_SERVER_PORT)
		return;
	dhcp_handle(s->priv, src, data, len);
}

int dhcp_start(struct dhcp_client *c, struct net_device *nd, const struct dhcp_config *cfg)
{
	int rc;

	udp_close(&c->sock);   /* a client reused without stop must leave the socket list intact */
	memset(c, 0, sizeof(*c));
	c->nd = nd;
	if (cfg)
		c->cfg = *cfg;
	else
		dhcp_config_default(&c->cfg);
	if (!c->cfg.first_timeout_ms)
		c->cfg.first_timeout_ms = DHCP_FIRST_TIMEOUT_MS;
	if (c->cfg.max_timeout_ms < c->cfg.first_timeout_ms)
		c->cfg.max_timeout_ms = c->cfg.first_timeout_ms;
	rc = dhcp_make_client_id(&c->cfg, nd, c->client_id, sizeof(c->client_id));
	if (rc < 0) {
		kprintf("%s: no DHCP client-id (no port GUID?)\n", nd->name);
		return rc;
	}
	c->client_id_len = (size_t)rc;
	rc = udp_open(&c->sock, nd, DHCP_CLIENT_PORT, dhcp_sock_rx, c);
	if (rc < 0) {
		kprintf("%s: cannot open DHCP port 68: %s\n", nd->name, ib_strerror(rc));
		return rc;
	}
	/* A new DISCOVER comes from 0.0.0.0 (RFC 2131 §4.1): forget any previous address. */
	nd->ip_addr = 0;
	nd->netmask = 0;
	nd->gateway = 0;
	c->start_ms = clock_ms();
	restart_discover(c, c->start_ms);
	return 0;
}

void dhcp_stop(struct dhcp_client *c)
{
	udp_close(&c->sock);
	if (c->state == DHCP_SELECTING || c->state == DHCP_REQUESTING) {
		c->state = DHCP_FAILED;
		c->result = -ECANCELED;
	}
}

bool dhcp_step(struct dhcp_client *c, uint64_t now)
{
	unsigned jitter;
	int rc;

	if (c->state != DHCP_SELECTING && c->state != DHCP_REQUESTING)
		return false;
	if (now - c->start_ms >= c->cfg.total_timeout_ms) {
		if (c->state == DHCP_SELECTING)
			dhcp_fail(c, -ETIMEDOUT, "no DHCP offer on %s after %u s: check DHCP "
				  "server and client-id",
				  c->nd->name, c->cfg.total_timeout_ms / 1000);
		else
			dhcp_fail(c, -ETIMEDOUT, "no DHCPACK from %'u for %'u after %u s",
				  c->offer.server_id, c->offer.yiaddr,
				  c->cfg.total_timeout_ms / 1000);
		return false;
	}
	if ((int64_t)(now - c->next_tx_ms) < 0)
		return true;
	if (c->state == DHCP_REQUESTING && c->tx_count >= DHCP_MAX_REQUESTS) {
		kprintf("%s: no DHCPACK, discovering again\n", c->nd->name);
		restart_discover(c, now);
	}
	if (!c->cfg.quiet && (int64_t)(now - c->next_report_ms) >= 0) {
		/* a line every ~10 s while waiting, so a silent network is visible */
		if (c->next_report_ms)
			kprintf("%s: no %s yet (%u s)\n", c->nd->name, c->state == DHCP_SELECTING
				? "DHCP offer" : "DHCPACK",
				(unsigned)((now - c->start_ms) / 1000));
		c->next_report_ms = now + DHCP_REPORT_MS;
	}
	rc = dhcp_send(c, c->state == DHCP_SELECTING ? DHCPDISCOVER : DHCPREQUEST, now);
	if (rc < 0 && rc != -EBUSY)
		kprintf("%s: cannot send DHCP: %s\n", c->nd->name, ib_strerror(rc));
	c->tx_count++;
	/* RFC 2131 §4.1: exponential back-off, randomised so clients do not synchronise. */
	jitter = c->timeout_ms / 4;
	c->next_tx_ms = now + c->timeout_ms - jitter + random_below(2 * jitter + 1);
	c->timeout_ms = c->timeout_ms * 2 > c->cfg.max_timeout_ms ? c->cfg.max_timeout_ms
								   : c->timeout_ms * 2;
	return true;
}

static void print_client_id(const struct dhcp_client *c)
{
	char hex[3 * DHCP_CLIENT_ID_MAX + 1];

	kprintf("%s: DHCP (client-id %s)\n", c->nd->name,
		hex_encode(c->client_id, c->client_id_len, ':', hex));
}

/* ${hwaddr}: the 8-byte port GUID, as iPXE and FlexBoot expose it. */
static void set_hwaddr_setting(const struct net_device *nd)
{
	char hex[3 * 8];

	if (nd->ll_addr_len < 8)
		return;
	netdev_setting_set(nd, "hwaddr", hex_encode(nd->ll_addr + nd->ll_addr_len - 8, 8, ':', hex));
}

int dhcp_run(struct net_device *nd, const struct dhcp_config *cfg, struct dhcp_lease *out)
{
	static struct dhcp_client c;   /* the socket must outlive no stack frame but this one */
	int rc = dhcp_start(&c, nd, cfg);

	if (rc < 0)
		return rc;
	if (!c.cfg.quiet)
		print_client_id(&c);
	while (dhcp_step(&c, clock_ms()))
		net_poll();
	dhcp_stop(&c);
	if (c.state != DHCP_BOUND)
		return c.result ? c.result : -EIO;
	/* ipv4_configure printed the netmask and gateway. */
	kprintf("%s: DHCP lease %'u in %u ms from %'u\n", nd->name, c.lease.ip,
		(unsigned)(clock_ms() - c.start_ms), c.lease.server_id);
	if (c.lease.filename[0] || c.lease.next_server)
		kprintf("%s: next-server %'u filename \"%s\"\n", nd->name,
			c.lease.next_server, c.lease.filename);
	/* The lease belongs to the interface: its address, name servers and boot data. */
	if (!nd->lease)
		nd->lease = kzalloc(sizeof(*nd->lease));
	if (nd->lease)
		*nd->lease = c.lease;
	dhcp_lease_to_settings(nd, &c.lease);
	set_hwaddr_setting(nd);
	dns_set_servers(nd, c.lease.dns, c.lease.n_dns);
	if (out)
		*out = c.lease;
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* The DNS resolver: response parsing (compression, CNAMEs, hostile pointers) and queries. */
#include "apps_test.h"

#include <ibboot/dns.h>
#include <ibboot/errno.h>

#define CLIENT_IP IP(198, 18, 0, 60)

/* A response being built by hand. */
struct dns_msg {
	uint8_t b[512];
	size_t len;
};

static void dm_header(struct dns_msg *m, uint16_t id, uint16_t flags, unsigned qd, unsigned an)
{
	memset(m, 0, sizeof(*m));
	put_be16(m->b, id);
	put_be16(m->b + 2, flags);
	put_be16(m->b + 4, (uint16_t)qd);
	put_be16(m->b + 6, (uint16_t)an);
	m->len = 12;
}

static void dm_bytes(struct dns_msg *m, const void *p, size_t n)
{
	memcpy(m->b + m->len, p, n);
	m->len += n;
}

/* "\4boot\6ibboot\4test\0" at offset 12, type A class IN */
static void dm_question(struct dns_msg *m)
{
	dm_bytes(m, "\4boot\6ibboot\4test\0\0\1\0\1", 22);
}

static void dm_rr(struct dns_msg *m, const void *name, size_t nlen, uint16_t type, uint32_t ttl,
		  const void *rdata, size_t rdlen)
{
	uint8_t f[10];

	dm_bytes(m, name, nlen);
	put_be16(f, type);
	put_be16(f + 2, 1);
	put_be32(f + 4, ttl);
	put_be16(f + 8, (uint16_t)rdlen);
	dm_bytes(m, f, 10);
	dm_bytes(m, rdata, rdlen);
}

static const uint8_t ptr_q[2] = { 0xc0, 12 };   /* the question's name */
static const uint8_t addr1[4] = { 198, 18, 0, 1 };

TEST(dns_answer_with_compression)
{
	struct dns_msg m;
	uint32_t a = 0, ttl = 0;
	const char *why;

	dm_header(&m, 0x1234, 0x8180, 1, 1);
	dm_question(&m);
	dm_rr(&m, ptr_q, 2, 1, 300, addr1, 4);
	CHECK_EQ(dns_parse_response(m.b, m.len, 0x1234, "boot.ibboot.test", &a, &ttl, &why), 0);
	CHECK_EQ(a, SRV);
	CHECK_EQ(ttl, 300);
	/* case does not matter (RFC 1035 §2.3.3), a trailing dot neither */
	CHECK_EQ(dns_parse_response(m.b, m.len, 0x1234, "BOOT.ibboot.Test.", &a, &ttl, &why), 0);
	/* another id is not our answer */
	CHECK_EQ(dns_parse_response(m.b, m.len, 0x1235, "boot.ibboot.test", &a, &ttl, &why), -EINVAL);
}

TEST(dns_follows_cname_chain)
{
	struct dns_msg m;
	uint32_t a = 0, ttl;
	const char *why;
	/* www.ibboot.test CNAME boot.<ptr to "ibboot.test" at 17> ; boot.ibboot.test A */
	static const uint8_t www[] = { 3, 'w', 'w', 'w', 0xc0, 17 };
	static const uint8_t cname_rd[] = { 4, 'b', 'o', 'o', 't', 0xc0, 17 };

	dm_header(&m, 7, 0x8180, 1, 2);
	dm_bytes(&m, "\3www\6ibboot\4test\0\0\1\0\1", 21);   /* question at 12; "ibboot" at 16 */
	/* fix the pointers: "ibboot.test" starts at offset 16 in this message */
	{
		uint8_t w[6], c[7];

		memcpy(w, www, 6);
		memcpy(c, cname_rd, 7);
		w[5] = 16;
		c[6] = 16;
		dm_rr(&m, w, 6, 5, 60, c, 7);
		/* the A record's owner: a pointer to the CNAME's rdata (offset of "boot" there) */
		{
			uint8_t p[2] = { 0xc0, (uint8_t)(m.len - 7) };

			dm_rr(&m, p, 2, 1, 30, addr1, 4);
		}
	}
	CHECK_EQ(dns_parse_response(m.b, m.len, 7, "www.ibboot.test", &a, &ttl, &why), 0);
	CHECK_EQ(a, SRV);
	CHECK_EQ(ttl, 30);
}

/* The response in m (id 1) is refused for name with rc; the reason, where given, names why. */
static void expect_refused(const struct dns_msg *m, const char *name, int rc, const char *reason)
{
	uint32_t a, ttl;
	const char *why = NULL;

	CHECK_EQ(dns_parse_response(m->b, m->len, 1, name, &a, &ttl, &why), rc);
	if (reason)
		CHECK(why && strstr(why, reason));
}

TEST(dns_nxdomain_and_empty_answers)
{
	struct dns_msg m;

	dm_header(&m, 1, 0x8183, 1, 0);
	dm_question(&m);
	expect_refused(&m, "boot.ibboot.test", -ENOENT, "NXDOMAIN");
	dm_header(&m, 1, 0x8180, 1, 0);
	dm_question(&m);
	expect_refused(&m, "boot.ibboot.test", -ENOENT, "no A record");
	dm_header(&m, 1, 0x8182, 1, 0);
	expect_refused(&m, "boot.ibboot.test", -EIO, "rcode 2");
	dm_header(&m, 1, 0x8380, 1, 0);   /* TC */
	expect_refused(&m, "boot.ibboot.test", -EINVAL, "truncated");
}

TEST(dns_refuses_pointer_loops_and_lying_lengths)
{
	struct dns_msg m;
	uint32_t a, ttl;
	const char *why = NULL;

	/* an answer whose name points at itself */
	dm_header(&m, 1, 0x8180, 1, 1);
	dm_question(&m);
	{
		uint8_t self[2] = { 0xc0, (uint8_t)m.len };

		dm_rr(&m, self, 2, 1, 1, addr1, 4);
	}
	expect_refused(&m, "boot.ibboot.test", -EINVAL, "loop");
	/* a forward pointer */
	dm_header(&m, 1, 0x8180, 1, 1);
	dm_question(&m);
	{
		uint8_t fwd[2] = { 0xc0, (uint8_t)(m.len + 20) };

		dm_rr(&m, fwd, 2, 1, 1, addr1, 4);
	}
	expect_refused(&m, "boot.ibboot.test", -EINVAL, NULL);
	/* two names pointing at each other: label "a" then a pointer back to the label */
	dm_header(&m, 1, 0x8180, 1, 0);
	dm_bytes(&m, "\1a\xc0\x0c\0\1\0\1", 8);
	expect_refused(&m, "a", -EINVAL, "loop");
	/* rdlength longer than the message */
	dm_header(&m, 1, 0x8180, 1, 1);
	dm_question(&m);
	dm_rr(&m, ptr_q, 2, 1, 1, addr1, 4);
	m.b[m.len - 5] = 200;
	expect_refused(&m, "boot.ibboot.test", -EINVAL, "runs past the end");
	/* an A record of 5 bytes */
	dm_header(&m, 1, 0x8180, 1, 1);
	dm_question(&m);
	dm_rr(&m, ptr_q, 2, 1, 1, "\1\2\3\4\5", 5);
	expect_refused(&m, "boot.ibboot.test", -EINVAL, NULL);
	/* truncated question; a label running past the end; unknown label type */
	dm_header(&m, 1, 0x8180, 1, 0);
	dm_bytes(&m, "\4boot\6ibboot\4test\0\0\1", 20);
	expect_refused(&m, "boot.ibboot.test", -EINVAL, NULL);
	dm_header(&m, 1, 0x8180, 1, 0);
	dm_bytes(&m, "\40boot", 5);
	expect_refused(&m, "boot.ibboot.test", -EINVAL, NULL);
	dm_header(&m, 1, 0x8180, 1, 0);
	dm_bytes(&m, "\x80\0", 2);
	expect_refused(&m, "x", -EINVAL, "label type");
	CHECK_EQ(dns_parse_response(m.b, 11, 1, "x", &a, &ttl, &why), -EINVAL);
}

TEST(dns_query_builder)
{
	uint8_t q[300];
	char long_label[70];

	CHECK_EQ(dns_build_query(q, sizeof(q), 0xbeef, "boot.ibboot.test"), 12 + 18 + 4);
	CHECK_MEM(q + 12, "\4boot\6ibboot\4test\0\0\1\0\1", 22);
	CHECK_EQ(get_be16(q + 2), 0x0100);   /* RD */
	CHECK_EQ(dns_build_query(q, sizeof(q), 1, "a..b"), -EINVAL);
	CHECK_EQ(dns_build_query(q, sizeof(q), 1, ""), -EINVAL);
	memset(long_label, 'x', 64);
	long_label[64] = '\0';
	CHECK_EQ(dns_build_query(q, sizeof(q), 1, long_label), -EINVAL);
	CHECK_EQ(dns_build_query(q, 20, 1, "boot.ibboot.test"), -ERANGE);
}

/* A scripted DNS server: drops the first `drop` queries, answers the rest. */
struct dns_srv {
	unsigned queries, drop;
	bool nxdomain, silent, malformed_first;
	uint32_t last_dst;
};

static void dns_server(const struct fake_pkt *p, void *ctx)
{
	struct dns_srv *s = ctx;
	struct dns_msg m;

	if (p->dport != 53 || p->len < 12)
		return;
	s->queries++;
	s->last_dst = p->dst;
	if (s->silent || s->queries <= s->drop)
		return;
	if (s->malformed_first && s->queries == s->drop + 1) {
		/* same id, an answer whose name points at itself */
		dm_header(&m, get_be16(p->payload), 0x8180, 0, 1);
		{
			uint8_t self[2] = { 0xc0, 12 };

			dm_rr(&m, self, 2, 1, 1, addr1, 4);
		}
		fake_net_inject_udp(p->dst, 53, CLIENT_IP, p->sport, m.b, m.len, false);
	}
	dm_header(&m, get_be16(p->payload), s->nxdomain ? 0x8183 : 0x8180, 1,
		  s->nxdomain ? 0 : 1);
	dm_bytes(&m, p->payload + 12, p->len - 12);   /* the question as asked */
	if (!s->nxdomain)
		dm_rr(&m, ptr_q, 2, 1, 600, addr1, 4);
	fake_net_inject_udp(p->dst, 53, CLIENT_IP, p->sport, m.b, m.len, false);
}

/* The name servers the next resolve() gives the interface (set after fake_net_setup). */
static uint32_t test_servers[2];
static unsigned n_test_servers;

static void set_servers(const uint32_t *s, unsigned n)
{
	n_test_servers = n;
	for (unsigned i = 0; i < n; i++)
		test_servers[i] = s[i];
}

static int resolve(struct dns_srv *s, const char *name, uint32_t *a)
{
	int rc;

	fake_net_setup(dns_server, s);
	dns_set_servers(&fake_nd, test_servers, n_test_servers);
	fake_nd.ip_addr = CLIENT_IP;
	fake_nd.netmask = 0xffffff00;
	test_console_clear();
	rc = dns_resolve(&fake_nd, name, NULL, a);
	fake_net_teardown();
	return rc;
}

TEST(dns_resolve_retries_then_caches)
{
	struct dns_srv s = { 0 };
	uint32_t servers[2] = { SRV, SRV2 }, a = 0;

	dns_cache_flush();
	set_servers(servers, 2);
	s.drop = 1;
	CHECK_EQ(resolve(&s, "boot.ibboot.test", &a), 0);
	CHECK_EQ(a, SRV);
	CHECK_EQ(s.queries, 2);
	CHECK_EQ(s.last_dst, SRV2);   /* the retry went to the second server */
	/* cached: no query at all */
	CHECK_EQ(resolve(&s, "BOOT.ibboot.test", &a), 0);
	CHECK_EQ(s.queries, 2);
	/* a dotted address needs no server */
	CHECK_EQ(resolve(&s, "198.18.0.7", &a), 0);
	CHECK_EQ(a, IP(198, 18, 0, 7));
	CHECK_EQ(s.queries, 2);
}

TEST(dns_resolve_failures_say_why)
{
	struct dns_srv s = { 0 };
	uint32_t servers[1] = { SRV }, a;

	dns_cache_flush();
	set_servers(servers, 1);
	s.nxdomain = true;
	CHECK_EQ(resolve(&s, "nothere.ibboot.test", &a), -ENOENT);
	CHECK(test_console_has("NXDOMAIN"));
	memset(&s, 0, sizeof(s));
	s.silent = true;
	CHECK_EQ(resolve(&s, "boot.ibboot.test", &a), -ETIMEDOUT);
	CHECK_EQ(s.queries, 6);
	CHECK(test_console_has("no answer for boot.ibboot.test"));
	set_servers(NULL, 0);
	CHECK_EQ(resolve(&s, "boot.ibboot.test", &a), -ENOENT);
	CHECK(test_console_has("no DNS server"));
}

TEST(dns_nslookup_command)
{
	struct dns_srv s = { 0 };
	uint32_t servers[1] = { SRV };

	dns_cache_flush();
	fake_net_setup(dns_server, &s);
	dns_set_servers(&fake_nd, servers, 1);
	fake_nd.ip_addr = CLIENT_IP;
	test_console_clear();
	CHECK_EQ(run_apps_command("nslookup boot.ibboot.test"), 0);
	CHECK(test_console_has("boot.ibboot.test has address 198.18.0.1"));
	CHECK_EQ(run_apps_command("nslookup"), -EINVAL);
	fake_net_teardown();
}

TEST(dns_malformed_answer_does_not_end_the_query)
{
	struct dns_srv s = { 0 };
	uint32_t servers[1] = { SRV }, a = 0;

	dns_cache_flush();
	set_servers(servers, 1);
	s.malformed_first = true;
	CHECK_EQ(resolve(&s, "boot.ibboot.test", &a), 0);
	CHECK_EQ(a, SRV);
	CHECK_EQ(s.queries, 1);   /* the good answer that followed was taken, no retry needed */
	CHECK(test_console_has("loop) (ignored)"));
}

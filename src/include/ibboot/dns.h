/* SPDX-License-Identifier: MIT */
/*
 * DNS stub resolver (RFC 1035): A queries over UDP to the servers DHCP gave, retransmission with
 * back-off across servers, a small cache honouring TTLs, and an answer parser that follows
 * compression pointers only backwards (so a pointer loop cannot hang it) and CNAME chains.
 */
#ifndef IBBOOT_DNS_H
#define IBBOOT_DNS_H

#include <ibboot/udp.h>

#define DNS_PORT        53
#define DNS_NAME_MAX    255   /* RFC 1035 §2.3.4, wire form */
#define DNS_MAX_SERVERS NET_MAX_DNS

/*
 * Parses a response to query `id` for `name`: header, question section, answers. Returns 0 with
 * the first A record reached from `name` (through CNAMEs) in *addr and its TTL in *ttl;
 * -ENOENT for NXDOMAIN or an answer without such a record (*why says which); -EINVAL for a
 * malformed message (*why says where).
 */
int dns_parse_response(const uint8_t *buf, size_t len, uint16_t id, const char *name,
		       uint32_t *addr, uint32_t *ttl, const char **why);
/* Builds a query (RD set) for name's A record; returns its length or -ERANGE/-EINVAL. */
int dns_build_query(uint8_t *buf, size_t size, uint16_t id, const char *name);

/* The servers names are resolved with through nd (host order, at most NET_MAX_DNS); dhcp fills
 * them from option 6. */
void dns_set_servers(struct net_device *nd, const uint32_t *servers, unsigned n);

struct dns_config {
	unsigned first_timeout_ms;   /* per try, doubling */
	unsigned tries;              /* total queries sent over all servers */
};

/* Resolves name (a dotted address is returned as is) through the cache, then nd's servers,
 * polling the network. cfg NULL = defaults (config.h). 0 or -ENOENT / -ETIMEDOUT / -EINVAL with a console line. */
int dns_resolve(struct net_device *nd, const char *name, const struct dns_config *cfg,
		uint32_t *addr);
void dns_cache_flush(void);

#endif

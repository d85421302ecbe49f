/* SPDX-License-Identifier: MIT */
/* libFuzzer: DNS responses (compression pointers, CNAME chains, lying lengths) and queries. */
#include <ibboot/dns.h>
#include <ibboot/errno.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t q[300];
	char name[80];
	const char *why = NULL;
	uint32_t addr, ttl;
	uint16_t id = size >= 2 ? (uint16_t)(data[0] << 8 | data[1]) : 0;
	size_t n = size < sizeof(name) - 1 ? size : sizeof(name) - 1;
	int rc = dns_parse_response(data, size, id, "boot.ibboot.test", &addr, &ttl, &why);

	if (rc < 0 && !why)
		abort();
	/* Any string as a host name: the query builder refuses or builds a parseable question. */
	memcpy(name, data, n);
	name[n] = '\0';
	rc = dns_build_query(q, sizeof(q), 7, name);
	if (rc > 0 && (size_t)rc > sizeof(q))
		abort();
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* Helpers shared by the UDP application tests: addresses and a DHCP reply builder. */
#ifndef APPS_TEST_H
#define APPS_TEST_H

#include "fake_net.h"
#include "net_test_env.h"
#include "test.h"

#include <ibboot/dhcp.h>
#include <ibboot/shell.h>
#include <ibboot/byteorder.h>

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))
#define SRV   IP(198, 18, 0, 1)
#define SRV2  IP(198, 18, 0, 2)

/* A BOOTREPLY being built: fixed header, cookie, then options appended with dr_opt(). */
struct dhcp_reply {
	uint8_t buf[1024];
	size_t len;
};
void dr_init(struct dhcp_reply *r, uint8_t type, uint32_t xid, uint32_t yiaddr, uint32_t siaddr,
	     uint32_t server_id);
void dr_opt(struct dhcp_reply *r, uint8_t code, const void *v, size_t len);
void dr_opt32(struct dhcp_reply *r, uint8_t code, uint32_t v);
void dr_end(struct dhcp_reply *r);
/* Finds option `code` in a request's options field; its length in *len, or NULL. */
const uint8_t *dhcp_find_opt(const uint8_t *msg, size_t msg_len, uint8_t code, size_t *len);

/* The commands the tests run (src/cmd/dhcp_cmd.c), linked in from the firmware library. */
SHELL_REQUIRE_COMMAND(dhcp);
SHELL_REQUIRE_COMMAND(tftp);
SHELL_REQUIRE_COMMAND(nslookup);

/* Runs a console command with a writable copy of the words. */
static inline int run_apps_command(const char *line)
{
	char buf[256], *argv[8];
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *t = strtok(buf, " "); t && argc < 8; t = strtok(NULL, " "))
		argv[argc++] = t;
	const struct shell_command *c = argc ? shell_find_command(argv[0]) : NULL;

	return c ? c->run(argc, argv) : -1000;
}

#endif

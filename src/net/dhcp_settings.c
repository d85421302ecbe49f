/* SPDX-License-Identifier: MIT */
/*
 * Named settings (ip, netmask, gateway, dns, next-server, filename, hostname, ...) as strings,
 * for the script layer's ${name} expansion. A small fixed table: nothing is allocated.
 */
#include <ibboot/dhcp.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>

#define SETTINGS_MAX 24

static struct {
	char name[SETTING_NAME_MAX];
	char value[SETTING_VALUE_MAX];
	bool used;
} settings[SETTINGS_MAX];

static int find(const char *name)
{
	for (int i = 0; i < SETTINGS_MAX; i++)
		if (settings[i].used && !strcmp(settings[i].name, name))
			return i;
	return -1;
}

int setting_get(const char *name, char *buf, size_t size)
{
	int i = find(name);
	size_t n;

	if (i < 0)
		return -ENOENT;
	n = strlen(settings[i].value);
	if (n + 1 > size)
		return -ERANGE;
	memcpy(buf, settings[i].value, n + 1);
	return (int)n;
}

int setting_set(const char *name, const char *value)
{
	int i = find(name);
	size_t nlen = strnlen(name, SETTING_NAME_MAX), vlen;

	if (!value) {
		if (i >= 0)
			settings[i].used = false;
		return 0;
	}
	vlen = strnlen(value, SETTING_VALUE_MAX);
	if (!nlen || nlen >= SETTING_NAME_MAX || vlen >= SETTING_VALUE_MAX)
		return -ERANGE;
	if (i < 0) {
		for (i = 0; i < SETTINGS_MAX && settings[i].used; i++)
			;
		if (i == SETTINGS_MAX)
			return -ENOSPC;
		memcpy(settings[i].name, name, nlen + 1);
		settings[i].used = true;
	}
	memcpy(settings[i].value, value, vlen + 1);
	return 0;
}

void setting_for_each(void (*fn)(const char *name, const char *value, void *ctx), void *ctx)
{
	for (int i = 0; i < SETTINGS_MAX; i++)
		if (settings[i].used)
			fn(settings[i].name, settings[i].value, ctx);
}

static void set_addr(const char *name, uint32_t a)
{
	char buf[16];

	setting_set(name, a ? ipv4_ntoa(a, buf) : NULL);
}

static void set_string(const char *name, const char *v)
{
	setting_set(name, v[0] ? v : NULL);
}

void dhcp_lease_to_settings(const struct dhcp_lease *l)
{
	set_addr("ip", l->ip);
	set_addr("netmask", l->netmask);
	set_addr("gateway", l->gateway);
	set_addr("dns", l->n_dns ? l->dns[0] : 0);
	set_addr("next-server", l->next_server);
	set_addr("dhcp-server", l->server_id);
	set_string("filename", l->filename);
	set_string("hostname", l->hostname);
	set_string("domain", l->domain);
}

/* SPDX-License-Identifier: MIT */
/*
 * Named settings (ip, netmask, gateway, dns, next-server, filename, hostname, ...) as strings,
 * for the script layer's ${name} expansion. A lease is recorded twice, as iPXE does: under the
 * interface's name ("ib1/ip") and unqualified ("ip", the interface DHCP ran on last). A small
 * fixed table: nothing is allocated.
 */
#include <ibboot/dhcp.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>

/* A lease is 10 names, twice; two interfaces and a script's own names fit. */
#define SETTINGS_MAX 64

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

static uint32_t generation;

uint32_t setting_generation(void)
{
	return generation;
}

int setting_set(const char *name, const char *value)
{
	int i = find(name);
	size_t nlen = strnlen(name, SETTING_NAME_MAX), vlen;

	if (!value) {
		if (i >= 0) {
			settings[i].used = false;
			generation++;
		}
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
	generation++;
	return 0;
}

void setting_for_each(void (*fn)(const char *name, const char *value, void *ctx), void *ctx)
{
	for (int i = 0; i < SETTINGS_MAX; i++)
		if (settings[i].used)
			fn(settings[i].name, settings[i].value, ctx);
}

int netdev_setting_set(const struct net_device *nd, const char *name, const char *value)
{
	char qualified[SETTING_NAME_MAX];
	size_t ifl = strnlen(nd->name, sizeof(nd->name)), nl = strlen(name);

	if (ifl + 1 + nl >= sizeof(qualified))
		return -ERANGE;
	memcpy(qualified, nd->name, ifl);
	qualified[ifl] = '/';
	memcpy(qualified + ifl + 1, name, nl + 1);
	setting_set(qualified, value);
	return setting_set(name, value);
}

static void set_addr(const struct net_device *nd, const char *name, uint32_t a)
{
	char buf[16];

	netdev_setting_set(nd, name, a ? ipv4_ntoa(a, buf) : NULL);
}

static void set_string(const struct net_device *nd, const char *name, const char *v)
{
	netdev_setting_set(nd, name, v[0] ? v : NULL);
}

void dhcp_lease_to_settings(const struct net_device *nd, const struct dhcp_lease *l)
{
	set_addr(nd, "ip", l->ip);
	set_addr(nd, "netmask", l->netmask);
	set_addr(nd, "gateway", l->gateway);
	set_addr(nd, "dns", l->n_dns ? l->dns[0] : 0);
	set_addr(nd, "next-server", l->next_server);
	set_addr(nd, "dhcp-server", l->server_id);
	set_string(nd, "filename", l->filename);
	set_string(nd, "filename-sha256", l->filename_sha256);   /* see image_cmd.c */
	set_string(nd, "hostname", l->hostname);
	set_string(nd, "domain", l->domain);
	if (l->report_url[0])   /* a script's own `set report-url` stays unless DHCP names one */
		set_string(nd, "report-url", l->report_url);
}

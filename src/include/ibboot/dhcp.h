/* SPDX-License-Identifier: MIT */
/*
 * DHCP client for IPoIB (RFC 2131 over RFC 4390): htype 32, hlen 0, chaddr zero, the BROADCAST
 * flag (an IPoIB client cannot receive unicast before it has an address) and a mandatory
 * client-identifier. Replies are matched by xid, since servers such as dnsmasq do not echo
 * option 61 (RFC 6842). The result is a lease, IPv4 configured with it, and key/value settings
 * (ip, netmask, gateway, dns, next-server, filename, hostname, ...) for the script layer.
 */
#ifndef IBBOOT_DHCP_H
#define IBBOOT_DHCP_H

#include <ibboot/udp.h>

#define DHCP_SERVER_PORT   67
#define DHCP_CLIENT_PORT   68
#define DHCP_FIXED_LEN     236          /* op .. file (RFC 2131 §2) */
#define DHCP_MAGIC         0x63825363u  /* RFC 2131 §3 */
#define DHCP_MIN_LEN       (DHCP_FIXED_LEN + 4)
#define DHCP_HTYPE_IB      32           /* RFC 4390 §2.1 */
#define DHCP_FLAG_BROADCAST 0x8000u

enum dhcp_msg_type {
	DHCPDISCOVER = 1, DHCPOFFER, DHCPREQUEST, DHCPDECLINE, DHCPACK, DHCPNAK, DHCPRELEASE,
	DHCPINFORM,
};

#define DHCP_MAX_DNS       3
#define DHCP_NAME_MAX      64
#define DHCP_FILE_MAX      256   /* option 67 carries up to 255 bytes */

/* What a reply says (host byte order; 0 / "" = absent). */
struct dhcp_msg {
	uint8_t op;
	uint32_t xid;
	uint32_t yiaddr, siaddr;
	uint8_t msg_type;             /* option 53; 0 = plain BOOTP */
	uint32_t server_id;           /* option 54 */
	uint32_t netmask;             /* option 1 */
	uint32_t router;              /* option 3 (the first) */
	uint32_t dns[DHCP_MAX_DNS];   /* option 6 */
	unsigned n_dns;
	uint32_t lease_s, t1_s, t2_s; /* options 51, 58, 59 */
	uint8_t overload;             /* option 52 (RFC 2132 §9.3) */
	char message[DHCP_NAME_MAX];  /* option 56 (a NAK's reason) */
	/* hostname to report_url: the same fields in the same order as struct dhcp_lease's. */
	char hostname[DHCP_NAME_MAX]; /* option 12 */
	char domain[DHCP_NAME_MAX];   /* option 15 */
	char tftp_server[DHCP_NAME_MAX]; /* option 66 */
	char bootfile[DHCP_FILE_MAX]; /* option 67, else the file field unless overloaded */
	char file_sha256[2 * 32 + 1];  /* option 175.112: the boot file's SHA-256 pin (hex) */
	char report_url[DHCP_FILE_MAX]; /* option 225 (report.h): where the boot report goes */
};

/*
 * Parses a BOOTREPLY: the fixed header, the magic cookie, and options in the options field and,
 * when option 52 says so, in the file and sname fields (RFC 2131 §4.1 order). Every length is
 * checked against the area it sits in. 0, or -EINVAL with *why ("option 3 at byte 250: length 7
 * is not a multiple of 4").
 */
int dhcp_parse(const uint8_t *buf, size_t len, struct dhcp_msg *out, const char **why);

/* Client identifier forms (FlexBoot/NVIDIA documentation, RFC 4361, RFC 4390 §2.1). */
enum dhcp_client_id_form {
	DHCP_CLIENT_ID_FLEXBOOT,   /* ff:00:00:00:00:00:02:00:00:02:c9:00:<GUID> (default) */
	DHCP_CLIENT_ID_HWTYPE_IB,  /* 20:<GUID> */
	DHCP_CLIENT_ID_RAW,        /* whatever dhcp_config.client_id holds */
};
#define DHCP_CLIENT_ID_MAX 64

struct dhcp_config {
	enum dhcp_client_id_form client_id_form;
	uint8_t client_id[DHCP_CLIENT_ID_MAX];   /* DHCP_CLIENT_ID_RAW only */
	size_t client_id_len;
	unsigned first_timeout_ms;   /* first retransmission; doubles up to max_timeout_ms */
	unsigned max_timeout_ms;
	unsigned total_timeout_ms;   /* give up after this long */
	unsigned max_naks;           /* restarts after NAK before giving up */
	bool quiet;                  /* no progress lines */
	bool no_bootfile_option;     /* leave 67 out of option 55 (dnsmasq then uses `file`) */
};
/* iPXE-like pacing (config.h: 1 s doubling to 8 s, ±25 %) with a 30 s bound. */
void dhcp_config_default(struct dhcp_config *cfg);

/* Builds the client identifier for a device (the GUID is the last 8 bytes of the IPoIB link
 * address). Returns its length or a negative error. */
int dhcp_make_client_id(const struct dhcp_config *cfg, const struct net_device *nd,
			uint8_t *out, size_t size);

struct dhcp_lease {
	uint32_t ip, netmask, gateway, server_id, next_server;
	uint32_t dns[DHCP_MAX_DNS];
	unsigned n_dns;
	uint32_t lease_s;
	/* hostname to report_url: as in struct dhcp_msg (copied as one block). */
	char hostname[DHCP_NAME_MAX], domain[DHCP_NAME_MAX], tftp_server[DHCP_NAME_MAX];
	char filename[DHCP_FILE_MAX];
	char filename_sha256[2 * 32 + 1];   /* its pin, from the same message; "" = none */
	char report_url[DHCP_FILE_MAX];
};

enum dhcp_state { DHCP_IDLE, DHCP_SELECTING, DHCP_REQUESTING, DHCP_BOUND, DHCP_FAILED };

/* A polled client: dhcp_start(), then dhcp_step() from the poll loop until it is not running. */
struct dhcp_client {
	struct net_device *nd;
	enum dhcp_state state;
	uint32_t xid;
	uint64_t start_ms, next_tx_ms, next_report_ms;
	unsigned timeout_ms, tx_count, naks, offers_ignored;
	int result;                   /* 0 while running or bound; negative once failed */
	size_t client_id_len;
	struct dhcp_config cfg;
	struct udp_socket sock;
	uint8_t client_id[DHCP_CLIENT_ID_MAX];
	/* Boot data from an address-less (proxy) offer, used when the lease names no file. */
	uint32_t proxy_next_server;
	char proxy_filename[DHCP_FILE_MAX];
	struct dhcp_msg offer;        /* the offer being requested */
	struct dhcp_lease lease;
	char error[160];
};

int dhcp_start(struct dhcp_client *c, struct net_device *nd, const struct dhcp_config *cfg);
/* Timers: (re)transmits and gives up; returns true while the client still runs. */
bool dhcp_step(struct dhcp_client *c, uint64_t now_ms);
void dhcp_stop(struct dhcp_client *c);
/* Handles one DHCP payload as if it came from the wire (the socket's receive path; tests). */
void dhcp_handle(struct dhcp_client *c, uint32_t src, const uint8_t *data, size_t len);

/* The whole exchange, polling the network until bound or failed: configures nd's IPv4, keeps
 * the lease in nd->lease, sets nd's name servers and the settings on success. 0 or a negative error (the console says what to check). */
int dhcp_run(struct net_device *nd, const struct dhcp_config *cfg, struct dhcp_lease *out);

/* ---- settings for the script layer (dhcp_settings.c) ---- */
#define SETTING_NAME_MAX   24
#define SETTING_VALUE_MAX  DHCP_FILE_MAX
/* Value of `name` copied into buf; its length, -ENOENT if unset, -ERANGE if it does not fit. */
int setting_get(const char *name, char *buf, size_t size);
/* Sets (or with value NULL, clears) a setting: 0, -ENOSPC when the table is full, -ERANGE when
 * the name or value is too long. */
int setting_set(const char *name, const char *value);
/* Changes each time a setting is set or cleared: a poller compares it before looking names up. */
uint32_t setting_generation(void);
/* Calls fn for every set setting, in the order they were first set. */
void setting_for_each(void (*fn)(const char *name, const char *value, void *ctx), void *ctx);
/* Sets name (NULL value: clears it) and its per-interface twin "<nd->name>/name" ("ib1/ip"). */
int netdev_setting_set(const struct net_device *nd, const char *name, const char *value);
/* Records nd's lease: ip, netmask, gateway, dns, next-server, dhcp-server, filename (and
 * filename-sha256, its pin), hostname,
 * domain, report-url, each unqualified and under the interface's name. */
void dhcp_lease_to_settings(const struct net_device *nd, const struct dhcp_lease *l);

#endif

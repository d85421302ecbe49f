/* SPDX-License-Identifier: MIT */
/*
 * netboot_proto — just enough IPv4/UDP, DHCP (RFC 2131 as RFC 4390 shapes it for IPoIB) and
 * TFTP (RFC 1350 + 2347/2348/2349 options) for the raw IPoIB test client. Builders write into
 * caller buffers; parsers take (buffer, length) and reject anything inconsistent.
 */
#ifndef SERVERNODE_NETBOOT_PROTO_H
#define SERVERNODE_NETBOOT_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- IPv4 + UDP ---- */
struct udp_dgram {
	uint32_t src, dst;      /* host byte order */
	uint16_t sport, dport;
	const uint8_t *data;
	size_t len;
};
/* Returns the datagram length, or 0 if it does not fit. */
size_t udp_build(uint8_t *buf, size_t cap, uint32_t src, uint32_t dst, uint16_t sport,
		 uint16_t dport, const uint8_t *data, size_t len, uint16_t ip_id);
/* Checks the IPv4 header checksum and the UDP length and checksum. 0 or negative errno + why;
 * -EPROTONOSUPPORT for a valid IPv4 datagram that is not UDP. */
int udp_parse(const uint8_t *buf, size_t len, struct udp_dgram *u, const char **why);

/* ---- TCP (RFC 793): just segments; the test client keeps the connection state ---- */
#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_PSH 0x08
#define TCP_ACK 0x10

struct tcp_seg {
	uint32_t src, dst;
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t window;
	uint16_t mss;             /* option 2 on a SYN, 0 absent */
	const uint8_t *data;
	size_t len;
};
/* IPv4 + TCP with checksums; mss != 0 adds the MSS option. Returns the length or 0. */
size_t tcp_build(uint8_t *buf, size_t cap, const struct tcp_seg *s, uint16_t ip_id);
/* Checks IPv4 and TCP checksums and lengths; -EPROTONOSUPPORT for non-TCP. */
int tcp_parse(const uint8_t *buf, size_t len, struct tcp_seg *s, const char **why);

/* ---- DHCP ---- */
#define DHCP_DISCOVER 1
#define DHCP_OFFER 2
#define DHCP_REQUEST 3
#define DHCP_ACK 5
#define DHCP_NAK 6
#define DHCP_HTYPE_INFINIBAND 32   /* RFC 4390 §2 */
#define DHCP_FLAG_BROADCAST 0x8000

struct dhcp_msg {
	uint8_t op, htype, hlen;
	uint32_t xid;
	uint16_t flags;
	uint32_t ciaddr, yiaddr, siaddr;
	char file[129];
	int msg_type;              /* option 53, -1 absent */
	uint32_t server_id;        /* option 54, 0 absent */
	uint32_t subnet_mask;      /* option 1, 0 absent */
	uint8_t client_id[64];     /* option 61 */
	size_t client_id_len;
	char bootfile[256];        /* option 67 (dnsmasq puts a trailing NUL in it) */
};

/* RFC 4390 §2.1 client-identifier, RFC 4361 form: 0xff, IAID (4), DUID-EN (type 2, enterprise
 * 0x000002c9 Mellanox, identifier 0x00 + port GUID). 20 bytes. */
size_t dhcp_ib_client_id(uint8_t out[20], uint64_t port_guid);
/* DISCOVER (requested/server 0) or REQUEST. htype 32, hlen 0, chaddr zero, broadcast flag. */
size_t dhcp_build(uint8_t *buf, size_t cap, int msg_type, uint32_t xid, const uint8_t *clid,
		  size_t clid_len, uint32_t requested_ip, uint32_t server_id);
int dhcp_parse(const uint8_t *buf, size_t len, struct dhcp_msg *m, const char **why);

/* ---- TFTP ---- */
#define TFTP_RRQ 1
#define TFTP_DATA 3
#define TFTP_ACK 4
#define TFTP_ERROR 5
#define TFTP_OACK 6

size_t tftp_build_rrq(uint8_t *buf, size_t cap, const char *file, unsigned blksize);
size_t tftp_build_ack(uint8_t *buf, size_t cap, uint16_t block);

struct tftp_msg {
	uint16_t opcode;
	uint16_t block;            /* DATA, ACK */
	const uint8_t *data;       /* DATA payload */
	size_t len;
	uint16_t error_code;       /* ERROR */
	char error_msg[128];
	long blksize, tsize;       /* OACK, -1 absent */
};
int tftp_parse(const uint8_t *buf, size_t len, struct tftp_msg *m, const char **why);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * ibdhcp IFACE [SECONDS] — a DHCPv4 client for an IPoIB interface, for the payload's initramfs
 * (built static on the host by util/payload/build).
 *
 * Why not busybox's udhcpc: it sends its DISCOVER through an AF_PACKET socket with a 6-byte
 * link address (sll_halen 6, the Ethernet broadcast), which the kernel refuses for a device
 * whose address is longer (net/packet/af_packet.c packet_snd: sll_halen < dev->addr_len →
 * EINVAL; IPoIB addresses are 20 bytes), and it puts htype 1 with a 6-byte chaddr in every
 * message, which RFC 4390 forbids. This client uses an ordinary UDP socket bound to the device
 * instead: the kernel sends 0.0.0.0 → 255.255.255.255 out of the bound device to the IPoIB
 * broadcast group and delivers the broadcast replies to it.
 *
 * RFC 4390 §2.1: htype 32, hlen 0, chaddr zero, the broadcast flag set (§2.3: the server cannot
 * unicast to an address it does not know) and a client identifier. The identifier is type 32
 * followed by the port GUID (the last 8 bytes of the 20-byte link address): the form ibboot's
 * `dhcp client-id=ib` sends, so one dnsmasq `dhcp-host=id:` reservation names this node in the
 * firmware and in the OS.
 *
 * On a lease it prints one line `lease ADDR/PREFIX router R server S client-id ID` and exits 0;
 * configuring the address is the caller's. Every wait is bounded by SECONDS (default 20):
 * exit 1 with a message when no ACK came.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { BOOTREQUEST = 1, HTYPE_IB = 32, DISCOVER = 1, OFFER = 2, REQUEST = 3, ACK = 5, NAK = 6 };
enum { OPT_MASK = 1, OPT_ROUTER = 3, OPT_REQ_IP = 50, OPT_TYPE = 53, OPT_SERVER = 54,
       OPT_PARAMS = 55, OPT_CLIENT_ID = 61, OPT_END = 255 };
#define MAGIC 0x63825363u
#define OFF_OPTIONS 240

struct reply {
	int type;
	uint32_t yiaddr, server, mask, router;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The port GUID: the last 8 of the 20 link-address bytes /sys shows as aa:bb:... */
static int read_guid(const char *ifname, uint8_t guid[8])
{
	char path[128], text[128];
	unsigned b[20];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/sys/class/net/%s/address", ifname);
	f = fopen(path, "r");
	if (!f || !fgets(text, sizeof(text), f)) {
		fprintf(stderr, "ibdhcp: cannot read %s\n", path);
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	n = sscanf(text, "%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x", &b[0],
		   &b[1], &b[2], &b[3], &b[4], &b[5], &b[6], &b[7], &b[8], &b[9], &b[10], &b[11],
		   &b[12], &b[13], &b[14], &b[15], &b[16], &b[17], &b[18], &b[19]);
	if (n != 20) {
		fprintf(stderr, "ibdhcp: %s is not a 20-byte IPoIB address: %s", path, text);
		return -1;
	}
	for (int i = 0; i < 8; i++)
		guid[i] = (uint8_t)b[12 + i];
	return 0;
}

static uint8_t *opt(uint8_t *p, uint8_t code, const void *v, size_t len)
{
	*p++ = code;
	*p++ = (uint8_t)len;
	memcpy(p, v, len);
	return p + len;
}

static int send_msg(int s, uint8_t type, uint32_t xid, const uint8_t *cid, size_t cidlen,
		    const struct reply *offer)
{
	static const uint8_t params[] = { OPT_MASK, OPT_ROUTER, OPT_SERVER };
	uint8_t m[548], *p;
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(67),
				  .sin_addr.s_addr = htonl(INADDR_BROADCAST) };
	uint32_t v;

	memset(m, 0, sizeof(m));
	m[0] = BOOTREQUEST;
	m[1] = HTYPE_IB; /* RFC 4390 §2.1: htype 32, hlen 0, chaddr zero */
	m[2] = 0;
	v = htonl(xid);
	memcpy(m + 4, &v, 4);
	m[10] = 0x80; /* broadcast flag (RFC 4390 §2.3) */
	v = htonl(MAGIC);
	memcpy(m + 236, &v, 4);
	p = m + OFF_OPTIONS;
	p = opt(p, OPT_TYPE, &type, 1);
	p = opt(p, OPT_CLIENT_ID, cid, cidlen);
	if (type == REQUEST) { /* RFC 2131 §4.3.2 SELECTING */
		p = opt(p, OPT_REQ_IP, &offer->yiaddr, 4);
		p = opt(p, OPT_SERVER, &offer->server, 4);
	}
	p = opt(p, OPT_PARAMS, params, sizeof(params));
	*p = OPT_END;
	if (sendto(s, m, sizeof(m) - 248, 0, (struct sockaddr *)&to, sizeof(to)) < 0) {
		fprintf(stderr, "ibdhcp: sendto 255.255.255.255:67: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int parse(const uint8_t *m, size_t len, uint32_t xid, struct reply *r)
{
	uint32_t v;
	size_t i = OFF_OPTIONS;

	if (len < OFF_OPTIONS + 1 || m[0] != 2)
		return -1;
	memcpy(&v, m + 4, 4);
	if (ntohl(v) != xid)
		return -1;
	memcpy(&v, m + 236, 4);
	if (ntohl(v) != MAGIC)
		return -1;
	memset(r, 0, sizeof(*r));
	memcpy(&r->yiaddr, m + 16, 4);
	while (i < len && m[i] != OPT_END) {
		uint8_t code = m[i], l;

		if (code == 0) {
			i++;
			continue;
		}
		if (i + 2 > len || i + 2 + m[i + 1] > len)
			return -1;
		l = m[i + 1];
		if (code == OPT_TYPE && l == 1)
			r->type = m[i + 2];
		else if (code == OPT_SERVER && l == 4)
			memcpy(&r->server, m + i + 2, 4);
		else if (code == OPT_MASK && l == 4)
			memcpy(&r->mask, m + i + 2, 4);
		else if (code == OPT_ROUTER && l >= 4)
			memcpy(&r->router, m + i + 2, 4);
		i += 2u + l;
	}
	return r->type ? 0 : -1;
}

/* Send TYPE every 2 s until a reply of type WANT (or a NAK) comes or DEADLINE passes. */
static int exchange(int s, uint8_t type, int want, uint32_t xid, const uint8_t *cid, size_t cidlen,
		    const struct reply *offer, struct reply *r, double deadline)
{
	uint8_t m[1500];

	while (now_s() < deadline) {
		double resend = now_s() + 2;

		if (send_msg(s, type, xid, cid, cidlen, offer) < 0)
			return -1;
		while (now_s() < resend && now_s() < deadline) {
			struct pollfd pfd = { .fd = s, .events = POLLIN };
			ssize_t n;

			if (poll(&pfd, 1, 200) <= 0)
				continue;
			n = recv(s, m, sizeof(m), 0);
			if (n > 0 && parse(m, (size_t)n, xid, r) == 0 &&
			    (r->type == want || r->type == NAK))
				return r->type == want ? 0 : -1;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	const char *ifname = argc > 1 ? argv[1] : "ib0";
	double secs = argc > 2 ? atof(argv[2]) : 20, deadline = now_s() + secs;
	uint8_t cid[9];
	struct reply offer, ack;
	struct sockaddr_in me = { .sin_family = AF_INET, .sin_port = htons(68) };
	int s, one = 1, prefix = 0;
	uint32_t xid;
	char a[3][INET_ADDRSTRLEN];

	cid[0] = HTYPE_IB;
	if (read_guid(ifname, cid + 1) < 0)
		return 1;
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_BROADCAST, &one, sizeof(one)) < 0 ||
	    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, ifname, (socklen_t)strlen(ifname) + 1) < 0 ||
	    bind(s, (struct sockaddr *)&me, sizeof(me)) < 0) {
		fprintf(stderr, "ibdhcp: UDP socket on %s port 68: %s\n", ifname, strerror(errno));
		return 1;
	}
	srand((unsigned)(now_s() * 1e6) ^ (unsigned)getpid());
	xid = (uint32_t)rand() ^ (uint32_t)rand() << 16;
	if (exchange(s, DISCOVER, OFFER, xid, cid, sizeof(cid), NULL, &offer, deadline) < 0) {
		fprintf(stderr, "ibdhcp: no DHCPOFFER on %s within %.0f s\n", ifname, secs);
		return 1;
	}
	if (exchange(s, REQUEST, ACK, xid, cid, sizeof(cid), &offer, &ack, deadline) < 0) {
		fprintf(stderr, "ibdhcp: no DHCPACK on %s within %.0f s (NAK or silence)\n", ifname,
			secs);
		return 1;
	}
	for (uint32_t m = ntohl(ack.mask); m & 0x80000000u; m <<= 1)
		prefix++;
	inet_ntop(AF_INET, &ack.yiaddr, a[0], sizeof(a[0]));
	inet_ntop(AF_INET, &ack.router, a[1], sizeof(a[1]));
	inet_ntop(AF_INET, &ack.server, a[2], sizeof(a[2]));
	printf("lease %s/%d router %s server %s client-id", a[0], prefix ? prefix : 24, a[1], a[2]);
	for (size_t i = 0; i < sizeof(cid); i++)
		printf("%c%02x", i ? ':' : ' ', cid[i]);
	printf("\n");
	return 0;
}

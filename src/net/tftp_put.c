/* SPDX-License-Identifier: MIT */
/* TFTP write requests (RFC 1350): WRQ, then DATA blocks each answered by its ACK. */
#include <ibboot/tftp_put.h>
#include <ibboot/byteorder.h>
#include <ibboot/config.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>

#define TFTP_ERR_UNKNOWN_TID 5   /* RFC 1350 §5 */

struct put {
	struct udp_socket sock;
	uint32_t server;
	uint16_t port;            /* the server's transfer id, once ACK 0 fixed it (§4) */
	bool have_port;
	long acked;               /* last block acknowledged; -1 before ACK 0 */
	bool failed, timed_out;
	char msg[200];
};

long tftp_put_parse_reply(const uint8_t *data, size_t len, char *msg, size_t msg_size)
{
	uint16_t code;
	char text[128];

	if (msg_size)
		msg[0] = '\0';
	if (len < 4)
		return -EINVAL;   /* ACK and ERROR both carry a 2-byte field after the opcode */
	switch (get_be16(data)) {
	case TFTP_ACK:
		return len == 4 ? (long)get_be16(data + 2) : -EINVAL;
	case TFTP_ERROR:
		if (tftp_parse_error(data + 2, len - 2, &code, text, sizeof(text)) < 0) {
			code = 0;
			text[0] = '\0';
		}
		ksnprintf(msg, msg_size, "error %u: %s", code, text);
		return -EIO;
	default:
		return -EINVAL;
	}
}

static void put_rx(struct udp_socket *s, uint32_t src, uint16_t sport, const uint8_t *data,
		   size_t len)
{
	struct put *p = s->priv;
	char msg[140];
	long r;

	if (src != p->server || p->failed)
		return;
	if (p->have_port && sport != p->port) {
		tftp_send_error(&p->sock, p->server, sport, TFTP_ERR_UNKNOWN_TID, "Unknown transfer ID");
		return;
	}
	r = tftp_put_parse_reply(data, len, msg, sizeof(msg));
	if (r == -EIO) {
		ksnprintf(p->msg, sizeof(p->msg), "server %'u: %s", src, msg);
		p->failed = true;
		return;
	}
	if (r < 0)
		return;
	if (!p->have_port) {
		if (r != 0)
			return;   /* the first answer to a WRQ is ACK 0 (§4) */
		p->port = sport;
		p->have_port = true;
	}
	/* Only the block in flight counts: an old ACK must not make us resend (the Sorcerer's
	 * Apprentice bug, RFC 1123 §4.2.3.1). */
	if (r == ((p->acked + 1) & 0xffff))
		p->acked++;
}

long tftp_put(struct net_device *nd, uint32_t server, const char *filename, const void *data,
	      size_t len, const struct tftp_put_opts *opts)
{
	static struct put p;
	static uint8_t pkt[TFTP_HDR_LEN + TFTP_PUT_BLKSIZE];
	unsigned timeout = opts && opts->timeout_ms ? opts->timeout_ms : TFTP_TIMEOUT_MS;
	unsigned retries = opts && opts->max_retries ? opts->max_retries : 3;
	unsigned total = opts && opts->total_ms ? opts->total_ms : 5000;
	size_t fl = strnlen(filename, TFTP_FILENAME_MAX);
	/* Blocks: ceil(len / 512), plus an empty one when len is a multiple of 512 (§6). */
	size_t nblocks = len / TFTP_PUT_BLKSIZE + 1;
	uint64_t start = clock_ms(), deadline = start + total;
	int rc;

	if (!fl || fl >= TFTP_FILENAME_MAX || nblocks > 65535) {
		kprintf("tftp put: %s: %s\n", fl ? filename : "(no name)",
			nblocks > 65535 ? "over 65535 blocks" : "bad file name");
		return -EINVAL;
	}
	if ((rc = net_ready_for_unicast(nd, "tftp put")) < 0)
		return rc;
	memset(&p, 0, sizeof(p));
	p.server = server;
	p.acked = -1;
	if ((rc = udp_open(&p.sock, nd, 0, put_rx, &p)) < 0) {
		kprintf("tftp put: no UDP port: %s\n", ib_strerror(rc));
		return rc;
	}
	/* Packet n (0 = the WRQ) until block nblocks is acknowledged. */
	for (long n = 0; (size_t)n <= nblocks && !p.failed;) {
		size_t plen;
		unsigned tries = 0;

		if (n == 0) {
			put_be16(pkt, TFTP_WRQ);
			memcpy(pkt + 2, filename, fl + 1);
			memcpy(pkt + 3 + fl, "octet", 6);
			plen = 2 + fl + 1 + 6;
		} else {
			size_t off = (size_t)(n - 1) * TFTP_PUT_BLKSIZE;
			size_t dl = MIN((size_t)TFTP_PUT_BLKSIZE, len - off);

			put_be16(pkt, TFTP_DATA);
			put_be16(pkt + 2, (uint16_t)n);
			memcpy(pkt + 4, (const uint8_t *)data + off, dl);
			plen = 4 + dl;
		}
		while (p.acked < n && !p.failed) {
			uint64_t until;

			if (tries++ > retries) {
				/* ACK 0 answers the WRQ (§4). */
				ksnprintf(p.msg, sizeof(p.msg), "no ACK %ld from %'u after %u tries%s", n,
					  server, tries - 1,
					  n ? "" : ": no writable TFTP server?");
				p.timed_out = p.failed = true;
				break;
			}
			udp_sendto(&p.sock, server, p.have_port ? p.port : TFTP_PORT, pkt, plen);
			until = MIN(clock_ms() + timeout, deadline);
			while (p.acked < n && !p.failed && clock_ms() < until)
				net_poll();
			if (p.acked < n && !p.failed && clock_ms() >= deadline) {
				ksnprintf(p.msg, sizeof(p.msg), "gave up after %u ms (block %ld of %zu "
					  "to %'u)", total, n, nblocks, server);
				p.timed_out = p.failed = true;
			}
		}
		n = p.acked + 1;
	}
	udp_close(&p.sock);
	if (p.failed) {
		kprintf("tftp put: %s: %s\n", filename, p.msg);
		return p.timed_out ? -ETIMEDOUT : -EIO;
	}
	kprintf("tftp put: %s: %zu bytes to %'u in %llu ms\n", filename, len, server,
		(unsigned long long)(clock_ms() - start));
	return (long)len;
}

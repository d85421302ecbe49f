/* SPDX-License-Identifier: MIT */
/*
 * TFTP write (RFC 1350 WRQ) of a buffer to a server: the boot report's fallback when no HTTP URL
 * is configured. Plain RFC 1350 (512-byte blocks, no options: servers that accept writes differ
 * in what they negotiate), lock-step, every wait bounded and the whole put bounded by a deadline.
 */
#ifndef IBBOOT_TFTP_PUT_H
#define IBBOOT_TFTP_PUT_H

#include <ibboot/tftp.h>

#define TFTP_PUT_BLKSIZE 512   /* RFC 1350 §2 */

struct tftp_put_opts {
	unsigned timeout_ms;   /* retransmission timeout per packet; TFTP_TIMEOUT_MS when 0 */
	unsigned max_retries;  /* retransmissions of one packet; 3 when 0 */
	unsigned total_ms;     /* the whole put gives up after this long; 5000 when 0 */
};

/* Handles one reply to a put (the socket's receive path; tests and fuzzing): ACK n or ERROR.
 * Returns the acknowledged block (0..65535), -EIO with msg filled for an ERROR, -EINVAL for
 * anything else (too short, another opcode). */
long tftp_put_parse_reply(const uint8_t *data, size_t len, char *msg, size_t msg_size);

/* Writes data[0..len) as `filename` on server:69 (the server must allow writes). Returns len, or
 * a negative error after printing why ("tftp put: server 198.18.0.1: error 2: Access violation",
 * "no ACK for block 3 after 4 tries"). */
long tftp_put(struct net_device *nd, uint32_t server, const char *filename, const void *data,
	      size_t len, const struct tftp_put_opts *opts);

#endif

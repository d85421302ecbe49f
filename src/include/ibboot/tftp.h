/* SPDX-License-Identifier: MIT */
/*
 * TFTP client (RFC 1350) with option negotiation (RFC 2347): blksize (RFC 2348) as large as the
 * path MTU allows, tsize (RFC 2349) and windowsize (RFC 7440) when the server accepts them; a
 * server that ignores options (plain DATA 1) or refuses windowsize gives a lock-step transfer.
 * Data goes into a caller buffer (no per-block allocation); progress is reported as it arrives.
 */
#ifndef IBBOOT_TFTP_H
#define IBBOOT_TFTP_H

#include <ibboot/udp.h>

#define TFTP_PORT          69
#define TFTP_HDR_LEN       4
#define TFTP_DEFAULT_BLKSIZE 512
#define TFTP_MAX_BLKSIZE   65464   /* RFC 2348 */
#define TFTP_FILENAME_MAX  256

enum tftp_opcode {
	TFTP_RRQ = 1, TFTP_WRQ, TFTP_DATA, TFTP_ACK, TFTP_ERROR, TFTP_OACK,
};

/* Where the file goes: buf[0..size); len grows as blocks arrive in order. */
struct tftp_sink {
	uint8_t *buf;
	size_t size;
	size_t len;
	/* Called after each block written: bytes so far, total from tsize (0 if unknown). */
	void (*progress)(void *ctx, uint64_t bytes, uint64_t total);
	void *ctx;
};

struct tftp_opts {
	unsigned blksize;      /* 0: the largest the device's MTU allows */
	unsigned windowsize;   /* 0 or 1: do not ask */
	bool no_options;       /* plain RFC 1350 request */
	unsigned timeout_ms;   /* first RRQ retransmission timeout (doubles to 8x) */
	unsigned max_retries;  /* RRQ retransmissions before giving up */
	unsigned ack_ms;       /* first resend of the last ACK when no DATA comes (doubles up to
				* TFTP_ACK_RESEND_MAX_MS); 0: TFTP_ACK_RESEND_MS */
	unsigned stall_ms;     /* no new in-order block for this long fails the transfer; 0:
				* TFTP_STALL_MS */
};

/* Once the transfer runs, a lost DATA or ACK is recovered by resending our last ACK on a short
 * timer rather than waiting for the server's retransmission timer (a second or more, doubling);
 * with windowsize a block past a hole is answered at once by the last in-order block's ACK
 * (RFC 7440 §4), and a copy that arrives right after our ACK is not ACKed again (that would
 * make the server send the next window twice);
 * whatever else happens, a transfer that gets no new block for TFTP_STALL_MS ends with an error
 * naming the file and the last block. */
#define TFTP_ACK_RESEND_MS      200u
#define TFTP_ACK_RESEND_MAX_MS  1600u
#define TFTP_STALL_MS           30000u
/* A transfer still running prints where it is this often (the progress bar alone redraws one
 * line), so a slow one is visibly slow, not silent. */
#define TFTP_STATUS_MS          10000u

/* What an OACK grants, checked against what we asked (RFC 2347: a server may only lower). */
struct tftp_oack {
	unsigned blksize, windowsize;
	uint64_t tsize;
	bool has_blksize, has_windowsize, has_tsize;
};
/* Parses an OACK's option list (after the opcode). asked_*: what the RRQ carried (0 = not
 * asked). 0 or -EINVAL with *why ("option 'timeout' was never asked for"). */
int tftp_parse_oack(const uint8_t *opts, size_t len, unsigned asked_blksize,
		    unsigned asked_windowsize, bool asked_tsize, struct tftp_oack *out,
		    const char **why);
/* Parses an ERROR packet (after the opcode): code and the NUL-terminated (or not) message. */
int tftp_parse_error(const uint8_t *p, size_t len, uint16_t *code, char *msg, size_t msg_size);
/* An ERROR packet (RFC 1350 §5) with `code` and up to 63 bytes of `msg`, from `s` to the
 * server's `port` (the read and the write client share it). */
void tftp_send_error(struct udp_socket *s, uint32_t server, uint16_t port, uint16_t code,
		     const char *msg);

enum tftp_state { TFTP_IDLE, TFTP_WAIT_FIRST, TFTP_TRANSFER, TFTP_DONE, TFTP_FAILED };

struct tftp_client {
	struct net_device *nd;
	struct udp_socket sock;
	struct tftp_opts opts;
	struct tftp_sink *sink;
	uint32_t server;
	uint16_t server_port;      /* 69 until the first reply fixes the transfer id */
	enum tftp_state state;
	unsigned blksize, windowsize, asked_blksize, asked_windowsize;
	uint64_t tsize;
	uint32_t blocks;           /* blocks written in order (block numbers wrap at 16 bits) */
	unsigned since_ack;        /* blocks since our last ACK (windowsize) */
	bool gap_acked;            /* the hole after the last in-order block has had its ACK */
	uint16_t gap_high;         /* the last block seen past that hole */
	uint64_t ack_sent_ms;      /* when our last ACK went out */
	uint64_t next_timeout_ms;
	uint64_t progress_ms;      /* when the last in-order block (or the OACK) arrived */
	uint64_t start_ms, status_ms;   /* transfer start; next status line */
	unsigned timeout_ms, retries;
	unsigned dup_blocks, ooo_blocks, retransmits;
	int result;
	char error[200];
	char filename[TFTP_FILENAME_MAX];   /* last: the fields above keep short offsets */
};

int tftp_start(struct tftp_client *c, struct net_device *nd, uint32_t server,
	       const char *filename, const struct tftp_opts *opts, struct tftp_sink *sink);
/* Timers; true while the transfer runs. */
bool tftp_step(struct tftp_client *c, uint64_t now_ms);
void tftp_stop(struct tftp_client *c);
/* One packet from src:sport (the socket's receive path; tests). */
void tftp_handle(struct tftp_client *c, uint32_t src, uint16_t sport, const uint8_t *data,
		 size_t len);

/* Splits "tftp://HOST[:69]/PATH" (RFC 3617 §2: PATH without its leading '/'): HOST is copied to
 * host (size bytes with the NUL), *path points into url. -EINVAL when malformed or HOST does not
 * fit, -ENOTSUP for a port other than 69. */
int tftp_url_split(const char *url, char *host, size_t size, const char **path);

/* The whole transfer, polling the network: returns the file's length or a negative error
 * (server errors are printed verbatim). */
long tftp_fetch(struct net_device *nd, uint32_t server, const char *filename,
		const struct tftp_opts *opts, struct tftp_sink *sink);

#endif

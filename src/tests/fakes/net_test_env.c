/* SPDX-License-Identifier: MIT */
/*
 * The platform services src/net uses (console, clock, memory, error names), provided for the
 * hosted tests and fuzz targets without the image's core: the console is captured so tests can
 * assert on what a person would read, and the clock is a variable tests move by hand.
 */
#include "net_test_env.h"

#include <ibboot/byteorder.h>
#include <ibboot/checksum.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/net.h>
#include <ibboot/timer.h>
#include <ibboot/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t test_now_ms;
unsigned test_clock_autostep;
static char console_buf[65536];
static size_t console_len;
bool test_console_echo;

uint64_t clock_ms(void)
{
	test_now_ms += test_clock_autostep;
	return test_now_ms;
}

uint64_t clock_us(void)
{
	return test_now_ms * 1000;
}

void kputs(const char *s)
{
	size_t n = strlen(s);

	if (test_console_echo)
		fputs(s, stdout);
	if (console_len + n >= sizeof(console_buf))
		console_len = 0;   /* tests clear it often; wrap rather than overflow */
	memcpy(console_buf + console_len, s, n);
	console_len += n;
	console_buf[console_len] = '\0';
}

void kputc(char c)
{
	char s[2] = { c, 0 };

	kputs(s);
}

int kvprintf(const char *fmt, va_list ap)
{
	char line[1024];
	int n = kvsnprintf(line, sizeof(line), fmt, ap);

	kputs(line);
	return n;
}

/* kprintf, ksnprintf and kvsnprintf are the library's (src/core/fmt.c), over the kvprintf above. */

/* No console input here (the shell and the script code reference it). */
int console_getline(char *buf, size_t size)
{
	(void)buf;
	(void)size;
	return -1;
}

bool console_input_closed(void)
{
	return true;
}

const char *test_console(void)
{
	return console_buf;
}

void test_console_clear(void)
{
	console_len = 0;
	console_buf[0] = '\0';
}

uint8_t *test_ipoib_ipv4(uint8_t *pkt, uint16_t total_len, uint16_t id, uint8_t proto,
			 uint32_t src, uint32_t dst)
{
	uint8_t *iph = pkt + 4;

	memset(pkt, 0, 4 + 20);
	put_be16(pkt, ETHERTYPE_IPV4);
	iph[0] = 0x45;
	put_be16(iph + 2, total_len);
	put_be16(iph + 4, id);
	iph[8] = 64;
	iph[9] = proto;
	put_be32(iph + 12, src);
	put_be32(iph + 16, dst);
	put_be16(iph + 10, ip_checksum(iph, 20));
	return iph + 20;
}

bool test_console_has(const char *needle)
{
	return strstr(console_buf, needle) != NULL;
}

static uint64_t dma_live_bytes;

uint64_t test_dma_live_bytes(void)
{
	return dma_live_bytes;
}

/* Fuzz targets: one large block (a TCP reassembly store) is kept when freed and handed out again
 * for the same size and alignment, so each input does not pay for mapping half a megabyte under
 * ASan. Off in the unit tests, where every allocation stays separately checked. */
bool test_dma_reuse;
static void *reuse_block;
static size_t reuse_size;

void *dma_alloc(size_t size, size_t align)
{
	void *p = NULL;

	if (align < sizeof(void *))
		align = sizeof(void *);
	if (reuse_block && size == reuse_size && (uintptr_t)reuse_block % align == 0) {
		p = reuse_block;
		reuse_block = NULL;
	} else if (posix_memalign(&p, align, size ? size : 1)) {
		return NULL;
	}
	dma_live_bytes += size;
	return p;
}

void dma_free(void *p, size_t size)
{
	if (p)
		dma_live_bytes -= size;
	if (p && test_dma_reuse && size >= (64u << 10) && !reuse_block) {
		reuse_block = p;
		reuse_size = size;
		return;
	}
	free(p);
}

uint64_t virt_to_bus(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

void *kzalloc(size_t size)
{
	return calloc(1, size ? size : 1);
}

void kfree(void *p)
{
	free(p);
}

const char *ib_strerror(int err)
{
	switch (err < 0 ? -err : err) {
	case 0: return "success";
	case IB_EPERM: return "not permitted";
	case IB_ENOENT: return "not found";
	case IB_EIO: return "I/O error";
	case IB_ENOMEM: return "out of memory";
	case IB_EBUSY: return "busy";
	case IB_EEXIST: return "exists";
	case IB_ENODEV: return "no device";
	case IB_EINVAL: return "invalid argument";
	case IB_ENOSPC: return "no space";
	case IB_ERANGE: return "out of range";
	case IB_ENOTSUP: return "not supported";
	case IB_ETIMEDOUT: return "timed out";
	case IB_EFAULT: return "bad address";
	case IB_ECANCELED: return "cancelled";
	default: return "unknown error";
	}
}

void test_ipv4_header(uint8_t *h, uint32_t src, uint32_t dst, uint8_t proto, size_t plen)
{
	memset(h, 0, IPV4_HDR_LEN);
	h[0] = 0x45;
	put_be16(h + 2, (uint16_t)(IPV4_HDR_LEN + plen));
	h[8] = 64;
	h[9] = proto;
	put_be32(h + 12, src);
	put_be32(h + 16, dst);
	put_be16(h + 10, ip_checksum(h, IPV4_HDR_LEN));
}

size_t test_udp_datagram(uint8_t *pkt, uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport,
			 const void *payload, size_t len)
{
	uint8_t *u = pkt + IPV4_HDR_LEN;

	test_ipv4_header(pkt, src, dst, IP_PROTO_UDP, UDP_HDR_LEN + len);
	put_be16(u, sport);
	put_be16(u + 2, dport);
	put_be16(u + 4, (uint16_t)(UDP_HDR_LEN + len));
	put_be16(u + 6, 0);
	if (len)
		memmove(u + UDP_HDR_LEN, payload, len);
	put_be16(u + 6, udp_checksum(src, dst, u, UDP_HDR_LEN + len));
	return IPV4_HDR_LEN + UDP_HDR_LEN + len;
}

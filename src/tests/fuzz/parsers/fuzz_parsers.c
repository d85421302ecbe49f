/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for every wire parser of src/net, called directly: the first byte picks the
 * parser, the rest is its input. Parsers must never read outside (buf, len) and must either accept
 * with sane output or refuse with a reason.
 */
#include <ibboot/errno.h>
#include <ibboot/ib_mad.h>
#include <ibboot/ib_sa.h>
#include <ibboot/ipoib.h>
#include <ibboot/ipv4.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why = NULL;
	uint8_t *buf;
	size_t len;
	int rc = 0;

	if (size < 1)
		return 0;
	len = size - 1;
	buf = malloc(len ? len : 1);   /* exact size: ASan sees any over-read */
	if (!buf)
		return 0;
	memcpy(buf, data + 1, len);
	switch (data[0] % 8) {
	case 0: {
		struct ib_path_info p;

		rc = ib_sa_parse_path_response(buf, len, NULL, &p, &why);
		if (rc == 0 && (p.dlid == 0 || p.dlid > 0xbfff || !ib_mtu_bytes(p.mtu)))
			abort();
		break;
	}
	case 1: {
		struct ib_mcast_info m;

		rc = ib_sa_parse_mcmember_response(buf, len, NULL, &m, &why);
		if (rc == 0 && (m.mlid < 0xc000 || m.mlid == 0xffff || !ib_mtu_bytes(m.mtu)))
			abort();
		break;
	}
	case 2:
		rc = ib_smp_check_response(buf, len, len > 17 ? (uint16_t)(buf[16] << 8 | buf[17]) : 0);
		break;
	case 3:
		rc = ib_mad_check_response(buf, len, &why);
		break;
	case 4: {
		uint16_t type;
		struct ipoib_arp arp;

		rc = ipoib_parse_header(buf, len, &type, &why);
		if (rc == 0)
			rc = ipoib_arp_parse(buf + IPOIB_HDR_LEN, len - IPOIB_HDR_LEN, &arp, &why);
		if (rc == 0 && arp.op != ARP_OP_REQUEST && arp.op != ARP_OP_REPLY)
			abort();
		break;
	}
	case 5: {
		struct ipv4_packet ip;

		rc = ipv4_parse(buf, len, &ip, &why);
		if (rc == 0 && (ip.payload < buf || ip.payload + ip.payload_len > buf + len))
			abort();
		if (rc == 0) {
			struct icmp_echo e;

			rc = icmp_parse(ip.payload, ip.payload_len, &e, &why);
			if (rc == 0 && e.data + e.data_len != ip.payload + ip.payload_len)
				abort();
		}
		break;
	}
	case 6: {
		struct icmp_echo e;

		rc = icmp_parse(buf, len, &e, &why);
		break;
	}
	default: {
		union ib_gid g;

		memset(&g, 0, sizeof(g));
		memcpy(g.raw, buf, len < 16 ? len : 16);
		ib_ipv4_broadcast_mgid(&g, len >= 2 ? (uint16_t)(buf[0] << 8 | buf[1]) : 0);
		if (g.raw[0] != 0xff || !(g.raw[4] & 0x80))
			abort();
		break;
	}
	}
	if (rc < 0 && !why && data[0] % 8 != 2)
		abort();   /* every refusal says why */
	free(buf);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* ICRC and VCRC (IBA 7.8.1, 7.8.2). Bitwise-per-byte with a small nibble table: no 1 KiB tables,
 * no initialisation, so the firmware can use it as is. */
#include "iblib/crc.h"
#include "iblib/packet.h"

/* CRC-32 (reflected 0x04C11DB7 = 0xEDB88320), one nibble at a time. */
static const uint32_t crc32_nibble[16] = {
	0x00000000, 0x1DB71064, 0x3B6E20C8, 0x26D930AC, 0x76DC4190, 0x6B6B51F4, 0x4DB26158, 0x5005713C,
	0xEDB88320, 0xF00F9344, 0xD6D6A3E8, 0xCB61B38C, 0x9B64C2B0, 0x86D3D2D4, 0xA00AE278, 0xBDBDF21C,
};

uint32_t iblib_crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		crc = (crc >> 4) ^ crc32_nibble[crc & 0xF];
		crc = (crc >> 4) ^ crc32_nibble[crc & 0xF];
	}
	return crc;
}

/* VCRC: polynomial 0x100B reflected = 0xD008. */
uint16_t iblib_crc16_vcrc_update(uint16_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int b = 0; b < 8; b++)
			crc = (uint16_t)((crc & 1) ? (crc >> 1) ^ 0xD008 : crc >> 1);
	}
	return crc;
}

uint32_t iblib_icrc(const uint8_t *pkt, size_t len, int *err)
{
	uint8_t masked[IBLIB_LRH_BYTES + IBLIB_GRH_BYTES + IBLIB_BTH_BYTES];
	size_t hdr, bth;
	unsigned lnh;

	if (err)
		*err = 0;
	if (len < IBLIB_LRH_BYTES)
		goto short_pkt;
	lnh = pkt[1] & 3;
	if (lnh == IBLIB_LNH_IBA_LOCAL)
		bth = IBLIB_LRH_BYTES;
	else if (lnh == IBLIB_LNH_IBA_GLOBAL)
		bth = IBLIB_LRH_BYTES + IBLIB_GRH_BYTES;
	else {
		if (err)
			*err = IBLIB_E_LNH;  /* raw packets carry no ICRC */
		return 0;
	}
	hdr = bth + IBLIB_BTH_BYTES;
	if (len < hdr)
		goto short_pkt;

	for (size_t i = 0; i < hdr; i++)
		masked[i] = pkt[i];
	if (lnh == IBLIB_LNH_IBA_GLOBAL) {
		/* A router rebuilds the LRH: all of it is variant. */
		for (size_t i = 0; i < IBLIB_LRH_BYTES; i++)
			masked[i] = 0xFF;
		/* GRH: TClass (bits 4..11), FlowLabel (12..31), HopLmt (byte 7). IPVer stays. */
		masked[8] |= 0x0F;
		masked[9] = masked[10] = masked[11] = 0xFF;
		masked[8 + 7] = 0xFF;
	} else {
		masked[0] |= 0xF0;  /* LRH:VL */
	}
	masked[bth + 4] = 0xFF;     /* BTH:Resv8a */

	uint32_t crc = iblib_crc32_update(0xFFFFFFFFu, masked, hdr);
	crc = iblib_crc32_update(crc, pkt + hdr, len - hdr);
	return ~crc;

short_pkt:
	if (err)
		*err = IBLIB_E_SHORT;
	return 0;
}

uint16_t iblib_vcrc(const uint8_t *pkt, size_t len)
{
	return (uint16_t)~iblib_crc16_vcrc_update(0xFFFF, pkt, len);
}

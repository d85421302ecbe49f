/* SPDX-License-Identifier: MIT */
/* pkt — fabsim's thin view of iblib's packet parser and builder (iblib/packet.h). */
#include "pkt.h"

#include <string.h>

#include <ibboot/wire/packet.h>

const char *pkt_status_str(enum pkt_status s)
{
	switch (s) {
	case PKT_OK: return "ok";
	case PKT_MALFORMED: return "malformed";
	case PKT_BAD_VCRC: return "bad VCRC";
	case PKT_BAD_ICRC: return "bad ICRC";
	}
	return "?";
}

enum pkt_status pkt_parse(const uint8_t *pkt, size_t len, struct pkt_hdrs *h)
{
	struct iblib_pkt p;
	int r = iblib_pkt_parse(pkt, len, &p, 0);

	memset(h, 0, sizeof(*h));
	if (r == IBLIB_E_VCRC)
		return PKT_BAD_VCRC;
	if (r == IBLIB_E_ICRC)
		return PKT_BAD_ICRC;
	if (r < 0)
		return PKT_MALFORMED;
	h->vl = p.lrh.vl;
	h->sl = p.lrh.sl;
	h->lnh = p.lrh.lnh;
	h->dlid = p.lrh.dlid;
	h->slid = p.lrh.slid;
	h->has_bth = true;
	h->bth_off = p.bth_off;
	h->opcode = p.bth.opcode;
	h->pkey = p.bth.pkey;
	h->dqpn = p.bth.dest_qp;
	h->psn = p.bth.psn;
	if (p.ext & IBLIB_EXT_DETH) {
		h->is_ud = true;
		h->qkey = p.deth.qkey;
		h->sqpn = p.deth.src_qp;
		h->payload_off = p.payload_off;
		h->payload_len = p.payload_len;
	}
	return PKT_OK;
}

size_t pkt_build_ud(uint8_t *buf, size_t cap, uint8_t vl, uint8_t sl, uint16_t dlid,
		    uint16_t slid, uint16_t pkey, uint32_t dqpn, uint32_t qkey, uint32_t sqpn,
		    uint32_t psn, const uint8_t *payload, size_t plen)
{
	struct iblib_lrh lrh = { .vl = vl, .sl = sl, .lnh = IBLIB_LNH_IBA_LOCAL, .dlid = dlid,
				 .slid = slid };
	struct iblib_bth bth = { .opcode = BTH_OP_UD_SEND_ONLY, .pkey = pkey, .dest_qp = dqpn,
				 .psn = psn & 0xffffff };
	struct iblib_deth deth = { .qkey = qkey, .src_qp = sqpn };
	int r = iblib_ud_build(buf, cap, &lrh, NULL, &bth, &deth, payload, plen);

	return r < 0 ? 0 : (size_t)r;
}

void pkt_refresh_crcs(uint8_t *pkt, size_t len)
{
	iblib_pkt_seal(pkt, len - ICRC_BYTES - VCRC_BYTES, len);
}

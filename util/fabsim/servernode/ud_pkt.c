/* SPDX-License-Identifier: MIT */
/* UD SEND-only packets (IBA 7.7, 8.3, 9.2, 9.3.3) through iblib's packet layer, which checks
 * lengths and both CRCs (IBA 7.8). */
#include "ud_pkt.h"

#include <errno.h>
#include <string.h>

#include <ibboot/wire/packet.h>

static int fail(const char **why, const char *msg, int err)
{
	if (why)
		*why = msg;
	return err;
}

int ud_pkt_parse(const uint8_t *buf, size_t len, struct ud_pkt *p, const char **why)
{
	struct iblib_pkt h;

	memset(p, 0, sizeof(*p));
	int err = iblib_pkt_parse(buf, len, &h, 0);
	if (err < 0) {
		int e = (err == IBLIB_E_VCRC || err == IBLIB_E_ICRC) ? -EBADMSG
			: (err == IBLIB_E_LNH || err == IBLIB_E_OPCODE || err == IBLIB_E_TVER) ? -EPROTONOSUPPORT
			: -EINVAL;
		return fail(why, iblib_strerror(err), e);
	}
	if (h.bth.opcode != UD_OP_SEND_ONLY && h.bth.opcode != UD_OP_SEND_ONLY_IMM)
		return fail(why, "not a UD SEND Only packet", -EPROTONOSUPPORT);
	p->vl = h.lrh.vl;
	p->sl = h.lrh.sl;
	p->dlid = h.lrh.dlid;
	p->slid = h.lrh.slid;
	p->grh = h.has_grh;
	if (h.has_grh) {
		p->tclass = h.grh.tclass;
		p->flow_label = h.grh.flow_label;
		p->hop_limit = h.grh.hop_limit;
		memcpy(p->sgid, h.grh.sgid.raw, 16);
		memcpy(p->dgid, h.grh.dgid.raw, 16);
	}
	p->opcode = h.bth.opcode;
	p->solicited = h.bth.se;
	p->pkey = h.bth.pkey;
	p->dqpn = h.bth.dest_qp;
	p->psn = h.bth.psn;
	p->qkey = h.deth.qkey;
	p->sqpn = h.deth.src_qp;
	p->payload = buf + h.payload_off;
	p->payload_len = h.payload_len;
	return 0;
}

size_t ud_pkt_build(uint8_t *buf, size_t cap, const struct ud_pkt *p)
{
	struct iblib_lrh lrh = { .vl = p->vl, .sl = p->sl, .dlid = p->dlid, .slid = p->slid };
	struct iblib_grh grh = { .tclass = p->tclass, .flow_label = p->flow_label,
				 .hop_limit = p->hop_limit };
	struct iblib_bth bth = { .opcode = UD_OP_SEND_ONLY, .se = p->solicited, .pkey = p->pkey,
				 .dest_qp = p->dqpn, .psn = p->psn & 0xFFFFFF };
	struct iblib_deth deth = { .qkey = p->qkey, .src_qp = p->sqpn };

	memcpy(grh.sgid.raw, p->sgid, 16);
	memcpy(grh.dgid.raw, p->dgid, 16);
	struct iblib_pkt h = { .lrh = lrh, .has_grh = p->grh, .grh = grh, .bth = bth, .deth = deth };
	/* iblib_ud_build's layout, with the payload moved by memcpy (iblib's own copy is a byte loop
	 * written for the firmware): headers, payload, pad to 4 bytes, then ICRC and VCRC. */
	int hdr = iblib_pkt_headers(buf, cap, &h, p->payload_len);
	if (hdr < 0)
		return 0;
	size_t pad = (4 - (p->payload_len & 3)) & 3, len = (size_t)hdr + p->payload_len + pad;
	if (len > cap)
		return 0;
	if (p->payload_len)
		memcpy(buf + hdr, p->payload, p->payload_len);
	memset(buf + hdr + p->payload_len, 0, pad);
	int n = iblib_pkt_seal(buf, len, cap);
	return n < 0 ? 0 : (size_t)n;
}

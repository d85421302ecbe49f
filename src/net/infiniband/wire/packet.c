/* SPDX-License-Identifier: MIT */
/* InfiniBand packet headers (IBA 7.7 LRH, 8.3 GRH, 9.2 BTH, 9.3 ETHs) and whole-packet
 * build/parse with the link CRCs (7.8). */
#include <ibboot/wire/packet.h>
#include <ibboot/wire/bytes.h>
#include <ibboot/wire/crc.h>

void iblib_lrh_put(uint8_t *p, const struct iblib_lrh *h)
{
	p[0] = (uint8_t)((h->vl & 0xF) << 4 | (h->lver & 0xF));
	p[1] = (uint8_t)((h->sl & 0xF) << 4 | (h->lnh & 3));
	put_be16(p + 2, h->dlid);
	put_be16(p + 4, h->pktlen & 0x7FF);
	put_be16(p + 6, h->slid);
}

void iblib_lrh_get(const uint8_t *p, struct iblib_lrh *h)
{
	h->vl = p[0] >> 4;
	h->lver = p[0] & 0xF;
	h->sl = p[1] >> 4;
	h->lnh = p[1] & 3;
	h->dlid = get_be16(p + 2);
	h->pktlen = get_be16(p + 4) & 0x7FF;
	h->slid = get_be16(p + 6);
}

void iblib_grh_put(uint8_t *p, const struct iblib_grh *h)
{
	put_be32(p, (uint32_t)(h->ipver & 0xF) << 28 | (uint32_t)h->tclass << 20 |
				  (h->flow_label & 0xFFFFF));
	put_be16(p + 4, h->paylen);
	p[6] = h->nxthdr;
	p[7] = h->hop_limit;
	iblib_memcpy(p + 8, h->sgid.raw, 16);
	iblib_memcpy(p + 24, h->dgid.raw, 16);
}

void iblib_grh_get(const uint8_t *p, struct iblib_grh *h)
{
	uint32_t w = get_be32(p);

	h->ipver = (uint8_t)(w >> 28);
	h->tclass = (uint8_t)(w >> 20);
	h->flow_label = w & 0xFFFFF;
	h->paylen = get_be16(p + 4);
	h->nxthdr = p[6];
	h->hop_limit = p[7];
	iblib_memcpy(h->sgid.raw, p + 8, 16);
	iblib_memcpy(h->dgid.raw, p + 24, 16);
}

void iblib_bth_put(uint8_t *p, const struct iblib_bth *h)
{
	p[0] = h->opcode;
	p[1] = (uint8_t)((h->se ? 0x80 : 0) | (h->migreq ? 0x40 : 0) | (h->padcnt & 3) << 4 |
			 (h->tver & 0xF));
	put_be16(p + 2, h->pkey);
	p[4] = h->resv8a;
	put_be24(p + 5, h->dest_qp);
	p[8] = h->ackreq ? 0x80 : 0;
	put_be24(p + 9, h->psn);
}

void iblib_bth_get(const uint8_t *p, struct iblib_bth *h)
{
	h->opcode = p[0];
	h->se = (p[1] & 0x80) != 0;
	h->migreq = (p[1] & 0x40) != 0;
	h->padcnt = (p[1] >> 4) & 3;
	h->tver = p[1] & 0xF;
	h->pkey = get_be16(p + 2);
	h->resv8a = p[4];
	h->dest_qp = get_be24(p + 5);
	h->ackreq = (p[8] & 0x80) != 0;
	h->psn = get_be24(p + 9);
}

void iblib_deth_put(uint8_t *p, const struct iblib_deth *h)
{
	put_be32(p, h->qkey);
	p[4] = 0;
	put_be24(p + 5, h->src_qp);
}

void iblib_deth_get(const uint8_t *p, struct iblib_deth *h)
{
	h->qkey = get_be32(p);
	h->src_qp = get_be24(p + 5);
}

void iblib_reth_put(uint8_t *p, const struct iblib_reth *h)
{
	put_be64(p, h->va);
	put_be32(p + 8, h->rkey);
	put_be32(p + 12, h->dma_len);
}

void iblib_reth_get(const uint8_t *p, struct iblib_reth *h)
{
	h->va = get_be64(p);
	h->rkey = get_be32(p + 8);
	h->dma_len = get_be32(p + 12);
}

void iblib_aeth_put(uint8_t *p, const struct iblib_aeth *h)
{
	p[0] = h->syndrome;
	put_be24(p + 1, h->msn);
}

void iblib_aeth_get(const uint8_t *p, struct iblib_aeth *h)
{
	h->syndrome = p[0];
	h->msn = get_be24(p + 1);
}

void iblib_atomiceth_put(uint8_t *p, const struct iblib_atomiceth *h)
{
	put_be64(p, h->va);
	put_be32(p + 8, h->rkey);
	put_be64(p + 12, h->swap_add);
	put_be64(p + 20, h->compare);
}

void iblib_atomiceth_get(const uint8_t *p, struct iblib_atomiceth *h)
{
	h->va = get_be64(p);
	h->rkey = get_be32(p + 8);
	h->swap_add = get_be64(p + 12);
	h->compare = get_be64(p + 20);
}

void iblib_gid_make(struct iblib_gid *g, uint64_t prefix, uint64_t guid)
{
	put_be64(g->raw, prefix);
	put_be64(g->raw + 8, guid);
}

uint64_t iblib_gid_prefix(const struct iblib_gid *g) { return get_be64(g->raw); }
uint64_t iblib_gid_guid(const struct iblib_gid *g) { return get_be64(g->raw + 8); }
bool iblib_gid_is_multicast(const struct iblib_gid *g) { return g->raw[0] == 0xFF; }

/* IBA 9.2.1 Table 38 (RC and UD rows iblib needs). */
int iblib_opcode_ext(uint8_t opcode)
{
	switch (opcode) {
	case IBLIB_OP_RC_SEND_FIRST:
	case IBLIB_OP_RC_SEND_MIDDLE:
	case IBLIB_OP_RC_SEND_LAST:
	case IBLIB_OP_RC_SEND_ONLY:
	case IBLIB_OP_RC_RDMA_WRITE_MIDDLE:
	case IBLIB_OP_RC_RDMA_WRITE_LAST:
		return IBLIB_EXT_PAYLOAD;
	case IBLIB_OP_RC_SEND_LAST_IMM:
	case IBLIB_OP_RC_SEND_ONLY_IMM:
	case IBLIB_OP_RC_RDMA_WRITE_LAST_IMM:
		return IBLIB_EXT_IMM | IBLIB_EXT_PAYLOAD;
	case IBLIB_OP_RC_RDMA_WRITE_FIRST:
	case IBLIB_OP_RC_RDMA_WRITE_ONLY:
		return IBLIB_EXT_RETH | IBLIB_EXT_PAYLOAD;
	case IBLIB_OP_RC_RDMA_WRITE_ONLY_IMM:
		return IBLIB_EXT_RETH | IBLIB_EXT_IMM | IBLIB_EXT_PAYLOAD;
	case IBLIB_OP_RC_RDMA_READ_REQUEST:
		return IBLIB_EXT_RETH;
	case IBLIB_OP_RC_RDMA_READ_RESP_FIRST:
	case IBLIB_OP_RC_RDMA_READ_RESP_LAST:
	case IBLIB_OP_RC_RDMA_READ_RESP_ONLY:
		return IBLIB_EXT_AETH | IBLIB_EXT_PAYLOAD;
	case IBLIB_OP_RC_RDMA_READ_RESP_MIDDLE:
		return IBLIB_EXT_PAYLOAD;
	case IBLIB_OP_RC_ACKNOWLEDGE:
		return IBLIB_EXT_AETH;
	case IBLIB_OP_RC_ATOMIC_ACKNOWLEDGE:
		return IBLIB_EXT_AETH | IBLIB_EXT_ATOMICACKETH;
	case IBLIB_OP_RC_COMPARE_SWAP:
	case IBLIB_OP_RC_FETCH_ADD:
		return IBLIB_EXT_ATOMICETH;
	case IBLIB_OP_UD_SEND_ONLY:
		return IBLIB_EXT_DETH | IBLIB_EXT_PAYLOAD;
	case IBLIB_OP_UD_SEND_ONLY_IMM:
		return IBLIB_EXT_DETH | IBLIB_EXT_IMM | IBLIB_EXT_PAYLOAD;
	default:
		return IBLIB_E_OPCODE;
	}
}

const char *iblib_opcode_name(uint8_t opcode)
{
	static const char *const rc[] = {
		"RC SEND_FIRST", "RC SEND_MIDDLE", "RC SEND_LAST", "RC SEND_LAST_IMM",
		"RC SEND_ONLY", "RC SEND_ONLY_IMM", "RC RDMA_WRITE_FIRST", "RC RDMA_WRITE_MIDDLE",
		"RC RDMA_WRITE_LAST", "RC RDMA_WRITE_LAST_IMM", "RC RDMA_WRITE_ONLY",
		"RC RDMA_WRITE_ONLY_IMM", "RC RDMA_READ_REQUEST", "RC RDMA_READ_RESP_FIRST",
		"RC RDMA_READ_RESP_MIDDLE", "RC RDMA_READ_RESP_LAST", "RC RDMA_READ_RESP_ONLY",
		"RC ACKNOWLEDGE", "RC ATOMIC_ACKNOWLEDGE", "RC COMPARE_SWAP", "RC FETCH_ADD",
	};

	if (opcode < sizeof(rc) / sizeof(rc[0]))
		return rc[opcode];
	if (opcode == IBLIB_OP_UD_SEND_ONLY)
		return "UD SEND_ONLY";
	if (opcode == IBLIB_OP_UD_SEND_ONLY_IMM)
		return "UD SEND_ONLY_IMM";
	return "unknown opcode";
}

const char *iblib_strerror(int err)
{
	switch (err) {
	case 0: return "no error";
	case IBLIB_E_SHORT: return "packet shorter than the headers it declares";
	case IBLIB_E_LNH: return "not an IBA transport packet (LRH:LNH raw or IP)";
	case IBLIB_E_PKTLEN: return "LRH:PktLen does not match the packet length";
	case IBLIB_E_VCRC: return "VCRC mismatch (corrupted on the link)";
	case IBLIB_E_ICRC: return "ICRC mismatch (corrupted end to end)";
	case IBLIB_E_LVER: return "unsupported LRH:LVer (must be 0)";
	case IBLIB_E_GRH: return "bad GRH (IPVer 6, NxtHdr 0x1B and PayLen expected)";
	case IBLIB_E_OPCODE: return "unsupported BTH opcode";
	case IBLIB_E_TVER: return "unsupported BTH:TVer (must be 0)";
	case IBLIB_E_PAD: return "BTH:PadCnt exceeds the payload";
	case IBLIB_E_NOSPACE: return "output buffer too small for the packet";
	case IBLIB_E_INVAL: return "invalid packet parameters";
	case IBLIB_E_MAD: return "malformed MAD (base/class version, class or layout)";
	case IBLIB_E_DR_PATH: return "directed-route SMP whose hop pointer does not fit this node";
	default: return "unknown iblib error";
	}
}

/* Bytes of the extension headers for an ext set. */
static size_t ext_bytes(unsigned ext)
{
	size_t n = 0;

	if (ext & IBLIB_EXT_RETH)
		n += IBLIB_RETH_BYTES;
	if (ext & IBLIB_EXT_AETH)
		n += IBLIB_AETH_BYTES;
	if (ext & IBLIB_EXT_DETH)
		n += IBLIB_DETH_BYTES;
	if (ext & IBLIB_EXT_IMM)
		n += IBLIB_IMMDT_BYTES;
	if (ext & IBLIB_EXT_ATOMICETH)
		n += IBLIB_ATOMICETH_BYTES;
	if (ext & IBLIB_EXT_ATOMICACKETH)
		n += IBLIB_ATOMICACKETH_BYTES;
	return n;
}

/* ETHs in the order IBA 9.2 Table 38 lays them out: RDETH, DETH, RETH/AtomicETH, AETH,
 * AtomicAckETH, ImmDt. */
static size_t ext_put(uint8_t *p, unsigned ext, const struct iblib_pkt *h)
{
	size_t off = 0;

	if (ext & IBLIB_EXT_DETH) {
		iblib_deth_put(p + off, &h->deth);
		off += IBLIB_DETH_BYTES;
	}
	if (ext & IBLIB_EXT_RETH) {
		iblib_reth_put(p + off, &h->reth);
		off += IBLIB_RETH_BYTES;
	}
	if (ext & IBLIB_EXT_ATOMICETH) {
		iblib_atomiceth_put(p + off, &h->atomiceth);
		off += IBLIB_ATOMICETH_BYTES;
	}
	if (ext & IBLIB_EXT_AETH) {
		iblib_aeth_put(p + off, &h->aeth);
		off += IBLIB_AETH_BYTES;
	}
	if (ext & IBLIB_EXT_ATOMICACKETH) {
		put_be64(p + off, h->atomic_orig);
		off += IBLIB_ATOMICACKETH_BYTES;
	}
	if (ext & IBLIB_EXT_IMM) {
		put_be32(p + off, h->imm);
		off += IBLIB_IMMDT_BYTES;
	}
	return off;
}

static size_t ext_get(const uint8_t *p, unsigned ext, struct iblib_pkt *h)
{
	size_t off = 0;

	if (ext & IBLIB_EXT_DETH) {
		iblib_deth_get(p + off, &h->deth);
		off += IBLIB_DETH_BYTES;
	}
	if (ext & IBLIB_EXT_RETH) {
		iblib_reth_get(p + off, &h->reth);
		off += IBLIB_RETH_BYTES;
	}
	if (ext & IBLIB_EXT_ATOMICETH) {
		iblib_atomiceth_get(p + off, &h->atomiceth);
		off += IBLIB_ATOMICETH_BYTES;
	}
	if (ext & IBLIB_EXT_AETH) {
		iblib_aeth_get(p + off, &h->aeth);
		off += IBLIB_AETH_BYTES;
	}
	if (ext & IBLIB_EXT_ATOMICACKETH) {
		h->atomic_orig = get_be64(p + off);
		off += IBLIB_ATOMICACKETH_BYTES;
	}
	if (ext & IBLIB_EXT_IMM) {
		h->imm = get_be32(p + off);
		off += IBLIB_IMMDT_BYTES;
	}
	return off;
}

int iblib_pkt_parse(const uint8_t *buf, size_t len, struct iblib_pkt *out, unsigned flags)
{
	size_t off, end, body;
	int ext, err;

	iblib_memset(out, 0, sizeof(*out));
	if (len < IBLIB_LRH_BYTES + IBLIB_VCRC_BYTES)
		return IBLIB_E_SHORT;
	iblib_lrh_get(buf, &out->lrh);
	if (out->lrh.lver != 0)
		return IBLIB_E_LVER;
	if (out->lrh.lnh != IBLIB_LNH_IBA_LOCAL && out->lrh.lnh != IBLIB_LNH_IBA_GLOBAL)
		return IBLIB_E_LNH;
	/* IBA 7.7.8: PktLen counts 4-byte words from the LRH through the ICRC. */
	if ((size_t)out->lrh.pktlen * 4 + IBLIB_VCRC_BYTES != len)
		return IBLIB_E_PKTLEN;
	out->len = len;
	out->vcrc_off = len - IBLIB_VCRC_BYTES;
	if (!(flags & IBLIB_PARSE_NO_VCRC) &&
	    iblib_vcrc(buf, out->vcrc_off) != iblib_get_vcrc(buf + out->vcrc_off))
		return IBLIB_E_VCRC;

	off = IBLIB_LRH_BYTES;
	if (out->lrh.lnh == IBLIB_LNH_IBA_GLOBAL) {
		if (len < off + IBLIB_GRH_BYTES + IBLIB_VCRC_BYTES)
			return IBLIB_E_SHORT;
		out->has_grh = true;
		out->grh_off = off;
		iblib_grh_get(buf + off, &out->grh);
		off += IBLIB_GRH_BYTES;
		/* IBA 8.3.1: PayLen = bytes after the GRH through the ICRC. */
		if (out->grh.ipver != IBLIB_GRH_IPVER || out->grh.nxthdr != IBLIB_GRH_NXTHDR_IBA ||
		    (size_t)out->grh.paylen + off + IBLIB_VCRC_BYTES != len)
			return IBLIB_E_GRH;
	}
	if (len < off + IBLIB_BTH_BYTES + IBLIB_ICRC_BYTES + IBLIB_VCRC_BYTES)
		return IBLIB_E_SHORT;
	out->icrc_off = out->vcrc_off - IBLIB_ICRC_BYTES;
	if (!(flags & IBLIB_PARSE_NO_ICRC)) {
		uint32_t icrc = iblib_icrc(buf, out->icrc_off, &err);

		if (err)
			return err;
		if (icrc != iblib_get_icrc(buf + out->icrc_off))
			return IBLIB_E_ICRC;
	}
	out->bth_off = off;
	iblib_bth_get(buf + off, &out->bth);
	off += IBLIB_BTH_BYTES;
	if (out->bth.tver != 0)
		return IBLIB_E_TVER;
	ext = iblib_opcode_ext(out->bth.opcode);
	if (ext < 0)
		return ext;
	out->ext = (unsigned)ext & ~(unsigned)IBLIB_EXT_PAYLOAD;
	end = out->icrc_off;
	if (off + ext_bytes(out->ext) > end)
		return IBLIB_E_SHORT;
	off += ext_get(buf + off, out->ext, out);
	out->payload_off = off;
	body = end - off;
	if (!(ext & IBLIB_EXT_PAYLOAD) && body != 0)
		return IBLIB_E_PAD;  /* e.g. an ACK or a READ request with trailing bytes */
	if (out->bth.padcnt > body)
		return IBLIB_E_PAD;
	out->payload_len = body - out->bth.padcnt;
	return 0;
}

/* Writes LRH [GRH] BTH and the ETHs ext names (the opcode's, IBA 9.2 Table 38) for a payload of
 * len bytes; returns the header length or an error. *total gets the whole packet's length
 * (headers, payload, pad, ICRC, VCRC). */
static int pkt_headers_ext(uint8_t *buf, size_t cap, const struct iblib_pkt *h, size_t len,
			   size_t *total, int ext)
{
	size_t off = 0, hdr, pad;
	struct iblib_lrh lrh = h->lrh;
	struct iblib_bth bth = h->bth;

	if (ext < 0)
		return ext;
	if (len && !(ext & IBLIB_EXT_PAYLOAD))
		return IBLIB_E_INVAL;
	hdr = IBLIB_LRH_BYTES + (h->has_grh ? IBLIB_GRH_BYTES : 0) + IBLIB_BTH_BYTES +
	      ext_bytes((unsigned)ext);
	pad = (4 - (len & 3)) & 3;
	if (len > IBLIB_PKT_MAX)
		return IBLIB_E_INVAL;
	*total = hdr + len + pad + IBLIB_ICRC_BYTES + IBLIB_VCRC_BYTES;
	if (*total > IBLIB_PKT_MAX || (*total - IBLIB_VCRC_BYTES) / 4 > 0x7FF)
		return IBLIB_E_INVAL;
	if (hdr > cap)
		return IBLIB_E_NOSPACE;

	lrh.lnh = h->has_grh ? IBLIB_LNH_IBA_GLOBAL : IBLIB_LNH_IBA_LOCAL;
	lrh.pktlen = (uint16_t)((*total - IBLIB_VCRC_BYTES) / 4);
	iblib_lrh_put(buf, &lrh);
	off = IBLIB_LRH_BYTES;
	if (h->has_grh) {
		struct iblib_grh grh = h->grh;

		grh.ipver = IBLIB_GRH_IPVER;
		grh.nxthdr = IBLIB_GRH_NXTHDR_IBA;
		grh.paylen = (uint16_t)(*total - IBLIB_VCRC_BYTES - IBLIB_LRH_BYTES - IBLIB_GRH_BYTES);
		iblib_grh_put(buf + off, &grh);
		off += IBLIB_GRH_BYTES;
	}
	bth.padcnt = (uint8_t)pad;
	iblib_bth_put(buf + off, &bth);
	off += IBLIB_BTH_BYTES;
	off += ext_put(buf + off, (unsigned)ext, h);
	return (int)off;
}

static int pkt_headers(uint8_t *buf, size_t cap, const struct iblib_pkt *h, size_t len,
		       size_t *total)
{
	return pkt_headers_ext(buf, cap, h, len, total, iblib_opcode_ext(h->bth.opcode));
}

int iblib_pkt_headers(uint8_t *buf, size_t cap, const struct iblib_pkt *h, size_t len)
{
	size_t total;

	return pkt_headers(buf, cap, h, len, &total);
}

/* The same builder with the ETHs of UD SEND_ONLY (DETH) fixed, so a program that sends nothing
 * else carries no other opcode's layout. */
int iblib_ud_headers(uint8_t *buf, size_t cap, const struct iblib_pkt *h, size_t len)
{
	size_t total;

	if (h->bth.opcode != IBLIB_OP_UD_SEND_ONLY)
		return IBLIB_E_OPCODE;
	return pkt_headers_ext(buf, cap, h, len, &total, IBLIB_EXT_DETH | IBLIB_EXT_PAYLOAD);
}

int iblib_pkt_build(uint8_t *buf, size_t cap, const struct iblib_pkt *h, const void *payload,
		    size_t len)
{
	size_t total, off, pad = (4 - (len & 3)) & 3;
	int hdr = pkt_headers(buf, cap, h, len, &total);

	if (hdr < 0)
		return hdr;
	if (total > cap)
		return IBLIB_E_NOSPACE;
	off = (size_t)hdr;
	if (len)
		iblib_memcpy(buf + off, payload, len);
	off += len;
	iblib_memset(buf + off, 0, pad);
	off += pad;
	iblib_put_icrc(buf + off, iblib_icrc(buf, off, NULL));
	off += IBLIB_ICRC_BYTES;
	iblib_put_vcrc(buf + off, iblib_vcrc(buf, off));
	return (int)total;
}

int iblib_ud_build(uint8_t *buf, size_t cap, const struct iblib_lrh *lrh,
		   const struct iblib_grh *grh, const struct iblib_bth *bth,
		   const struct iblib_deth *deth, const void *payload, size_t len)
{
	struct iblib_pkt h;

	if (bth->opcode != IBLIB_OP_UD_SEND_ONLY)
		return IBLIB_E_INVAL;
	iblib_memset(&h, 0, sizeof(h));
	h.lrh = *lrh;
	if (grh) {
		h.has_grh = true;
		h.grh = *grh;
	}
	h.bth = *bth;
	h.deth = *deth;
	return iblib_pkt_build(buf, cap, &h, payload, len);
}

int iblib_pkt_seal(uint8_t *buf, size_t len, size_t cap)
{
	size_t total = len + IBLIB_ICRC_BYTES + IBLIB_VCRC_BYTES;
	unsigned lnh;

	if (len < IBLIB_LRH_BYTES + IBLIB_BTH_BYTES)
		return IBLIB_E_SHORT;
	if (len & 3)
		return IBLIB_E_PAD;  /* the payload must already be padded to 4 bytes */
	if (total > cap)
		return IBLIB_E_NOSPACE;
	if (total > IBLIB_PKT_MAX)
		return IBLIB_E_INVAL;
	lnh = buf[1] & 3;
	if (lnh != IBLIB_LNH_IBA_LOCAL && lnh != IBLIB_LNH_IBA_GLOBAL)
		return IBLIB_E_LNH;
	if (lnh == IBLIB_LNH_IBA_GLOBAL) {
		if (len < IBLIB_LRH_BYTES + IBLIB_GRH_BYTES + IBLIB_BTH_BYTES)
			return IBLIB_E_SHORT;
		put_be16(buf + IBLIB_LRH_BYTES + 4,
			       (uint16_t)(len + IBLIB_ICRC_BYTES - IBLIB_LRH_BYTES - IBLIB_GRH_BYTES));
	}
	put_be16(buf + 4, (uint16_t)((get_be16(buf + 4) & 0xF800) |
					   ((len + IBLIB_ICRC_BYTES) / 4)));
	iblib_put_icrc(buf + len, iblib_icrc(buf, len, NULL));
	iblib_put_vcrc(buf + len + IBLIB_ICRC_BYTES, iblib_vcrc(buf, len + IBLIB_ICRC_BYTES));
	return (int)total;
}

int iblib_pkt_update_vcrc(uint8_t *buf, size_t len)
{
	if (len < IBLIB_LRH_BYTES + IBLIB_VCRC_BYTES)
		return IBLIB_E_SHORT;
	iblib_put_vcrc(buf + len - IBLIB_VCRC_BYTES, iblib_vcrc(buf, len - IBLIB_VCRC_BYTES));
	return 0;
}

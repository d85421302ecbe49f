/* SPDX-License-Identifier: MIT */
/*
 * InfiniBand packet headers: build into and parse from byte buffers.
 *
 *   LRH  (IBA 7.7)   8 B  always
 *   GRH  (IBA 8.3)  40 B  when LRH:LNH = 3 (IBA global)
 *   BTH  (IBA 9.2)  12 B
 *   ETHs (IBA 9.3)        by opcode: RETH 16, AETH 4, DETH 8, ImmDt 4, AtomicETH 28, AtomicAckETH 8
 *   payload + pad (BTH:PadCnt bytes so the payload ends on a 4-byte boundary)
 *   ICRC (IBA 7.8.1) 4 B, VCRC (IBA 7.8.2) 2 B
 *
 * Header structs hold host-order values; the iblib_*_put()/_get() functions convert. Structs are plain data
 * so they can live on the stack of the firmware as well as in the model and the fabric.
 *
 * Freestanding: only <stdint.h>/<stddef.h>/<stdbool.h>.
 */
#ifndef IBLIB_PACKET_H
#define IBLIB_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IBLIB_LRH_BYTES      8
#define IBLIB_GRH_BYTES      40
#define IBLIB_BTH_BYTES      12
#define IBLIB_DETH_BYTES     8
#define IBLIB_RETH_BYTES     16
#define IBLIB_AETH_BYTES     4
#define IBLIB_IMMDT_BYTES    4
#define IBLIB_ATOMICETH_BYTES    28
#define IBLIB_ATOMICACKETH_BYTES 8
#define IBLIB_ICRC_BYTES     4
#define IBLIB_VCRC_BYTES     2
/* Largest packet: 4096-byte MTU + the 126 header/CRC bytes IBA 7.7.8 allows (PktLen <= 1055). */
#define IBLIB_PKT_MAX        4224

/* LRH:LNH - what follows the LRH (IBA 7.7.3). */
#define IBLIB_LNH_RAW        0
#define IBLIB_LNH_IP         1
#define IBLIB_LNH_IBA_LOCAL  2  /* BTH follows */
#define IBLIB_LNH_IBA_GLOBAL 3  /* GRH, then BTH */

#define IBLIB_LID_PERMISSIVE 0xFFFF
#define IBLIB_LID_MCAST_MIN  0xC000
#define IBLIB_GRH_NXTHDR_IBA 0x1B   /* GRH:NxtHdr for an IBA transport header (IBA 8.3.1) */
#define IBLIB_GRH_IPVER      6
#define IBLIB_VL15           15     /* subnet management VL */
#define IBLIB_DEFAULT_PKEY   0xFFFF
#define IBLIB_PKEY_MEMBER    0x8000 /* full-member bit of a P_Key (IBA 10.9.1.2) */
#define IBLIB_QKEY_PRIVILEGED 0x80000000u
#define IBLIB_GSI_QKEY       0x80010000u /* well-known Q_Key of QP1 (IBA 13.5.1) */

/* BTH:OpCode (IBA 9.2.1, Table 38): transport in bits 7:5, operation in 4:0. */
#define IBLIB_TRANSPORT_RC   0x00
#define IBLIB_TRANSPORT_UC   0x20
#define IBLIB_TRANSPORT_RD   0x40
#define IBLIB_TRANSPORT_UD   0x60
#define IBLIB_TRANSPORT_MASK 0xE0

enum iblib_opcode {
	IBLIB_OP_RC_SEND_FIRST            = 0x00,
	IBLIB_OP_RC_SEND_MIDDLE           = 0x01,
	IBLIB_OP_RC_SEND_LAST             = 0x02,
	IBLIB_OP_RC_SEND_LAST_IMM         = 0x03,
	IBLIB_OP_RC_SEND_ONLY             = 0x04,
	IBLIB_OP_RC_SEND_ONLY_IMM         = 0x05,
	IBLIB_OP_RC_RDMA_WRITE_FIRST      = 0x06,
	IBLIB_OP_RC_RDMA_WRITE_MIDDLE     = 0x07,
	IBLIB_OP_RC_RDMA_WRITE_LAST       = 0x08,
	IBLIB_OP_RC_RDMA_WRITE_LAST_IMM   = 0x09,
	IBLIB_OP_RC_RDMA_WRITE_ONLY       = 0x0A,
	IBLIB_OP_RC_RDMA_WRITE_ONLY_IMM   = 0x0B,
	IBLIB_OP_RC_RDMA_READ_REQUEST     = 0x0C,
	IBLIB_OP_RC_RDMA_READ_RESP_FIRST  = 0x0D,
	IBLIB_OP_RC_RDMA_READ_RESP_MIDDLE = 0x0E,
	IBLIB_OP_RC_RDMA_READ_RESP_LAST   = 0x0F,
	IBLIB_OP_RC_RDMA_READ_RESP_ONLY   = 0x10,
	IBLIB_OP_RC_ACKNOWLEDGE           = 0x11,
	IBLIB_OP_RC_ATOMIC_ACKNOWLEDGE    = 0x12,
	IBLIB_OP_RC_COMPARE_SWAP          = 0x13,
	IBLIB_OP_RC_FETCH_ADD             = 0x14,
	IBLIB_OP_UD_SEND_ONLY             = 0x64,
	IBLIB_OP_UD_SEND_ONLY_IMM         = 0x65,
};

/* Extension headers an opcode carries (iblib_opcode_ext()). */
#define IBLIB_EXT_RETH         0x01
#define IBLIB_EXT_AETH         0x02
#define IBLIB_EXT_DETH         0x04
#define IBLIB_EXT_IMM          0x08
#define IBLIB_EXT_ATOMICETH    0x10
#define IBLIB_EXT_ATOMICACKETH 0x20
#define IBLIB_EXT_PAYLOAD      0x80  /* the opcode may carry payload */

/* Extension-header set of `opcode`, or a negative IBLIB_E_OPCODE for opcodes iblib does not
 * know (RD, UC, CNP, reserved). */
int iblib_opcode_ext(uint8_t opcode);
const char *iblib_opcode_name(uint8_t opcode);

/* AETH:Syndrome (IBA 9.7.5.1.3): bits 6:5 = 0 ACK, 1 RNR NAK, 3 NAK; bits 4:0 credit/timer/code. */
#define IBLIB_AETH_ACK(credits)        ((uint8_t)(0x00 | ((credits) & 0x1F)))
#define IBLIB_AETH_RNR_NAK(timer)      ((uint8_t)(0x20 | ((timer) & 0x1F)))
#define IBLIB_AETH_NAK_PSN_SEQ_ERR     0x60
#define IBLIB_AETH_NAK_INVALID_REQ     0x61
#define IBLIB_AETH_NAK_REMOTE_ACCESS   0x62
#define IBLIB_AETH_NAK_REMOTE_OP_ERR   0x63
#define IBLIB_AETH_NAK_INVALID_RD_REQ  0x64
#define IBLIB_AETH_CREDITS_INVALID     0x1F

struct iblib_gid {
	uint8_t raw[16];  /* network order: prefix (8 B) then interface id / GUID (8 B) */
};

struct iblib_lrh {
	uint8_t vl;       /* 4 bits */
	uint8_t lver;     /* 4 bits, 0 */
	uint8_t sl;       /* 4 bits */
	uint8_t lnh;      /* 2 bits, IBLIB_LNH_* */
	uint16_t dlid;
	uint16_t pktlen;  /* 11 bits: 4-byte words from LRH through ICRC (VCRC excluded) */
	uint16_t slid;
};

struct iblib_grh {
	uint8_t ipver;        /* 4 bits, 6 */
	uint8_t tclass;
	uint32_t flow_label;  /* 20 bits */
	uint16_t paylen;      /* bytes after the GRH through the ICRC */
	uint8_t nxthdr;       /* 0x1B */
	uint8_t hop_limit;
	struct iblib_gid sgid;
	struct iblib_gid dgid;
};

struct iblib_bth {
	uint8_t opcode;
	bool se;            /* solicited event */
	bool migreq;
	uint8_t padcnt;     /* 2 bits */
	uint8_t tver;       /* 4 bits, 0 */
	uint16_t pkey;
	uint8_t resv8a;     /* FECN/BECN in later spec releases; variant (ICRC-masked) */
	uint32_t dest_qp;   /* 24 bits */
	bool ackreq;
	uint32_t psn;       /* 24 bits */
};

struct iblib_deth {
	uint32_t qkey;
	uint32_t src_qp;    /* 24 bits */
};

struct iblib_reth {
	uint64_t va;
	uint32_t rkey;
	uint32_t dma_len;
};

struct iblib_aeth {
	uint8_t syndrome;
	uint32_t msn;       /* 24 bits */
};

struct iblib_atomiceth {
	uint64_t va;
	uint32_t rkey;
	uint64_t swap_add;
	uint64_t compare;
};

void iblib_lrh_put(uint8_t *p, const struct iblib_lrh *h);
void iblib_lrh_get(const uint8_t *p, struct iblib_lrh *h);
void iblib_grh_put(uint8_t *p, const struct iblib_grh *h);
void iblib_grh_get(const uint8_t *p, struct iblib_grh *h);
void iblib_bth_put(uint8_t *p, const struct iblib_bth *h);
void iblib_bth_get(const uint8_t *p, struct iblib_bth *h);
void iblib_deth_put(uint8_t *p, const struct iblib_deth *h);
void iblib_deth_get(const uint8_t *p, struct iblib_deth *h);
void iblib_reth_put(uint8_t *p, const struct iblib_reth *h);
void iblib_reth_get(const uint8_t *p, struct iblib_reth *h);
void iblib_aeth_put(uint8_t *p, const struct iblib_aeth *h);
void iblib_aeth_get(const uint8_t *p, struct iblib_aeth *h);
void iblib_atomiceth_put(uint8_t *p, const struct iblib_atomiceth *h);
void iblib_atomiceth_get(const uint8_t *p, struct iblib_atomiceth *h);

/* GID helpers: prefix/GUID halves in host order. */
void iblib_gid_make(struct iblib_gid *g, uint64_t prefix, uint64_t guid);
uint64_t iblib_gid_prefix(const struct iblib_gid *g);
uint64_t iblib_gid_guid(const struct iblib_gid *g);
bool iblib_gid_is_multicast(const struct iblib_gid *g);  /* first byte 0xFF (IBA 4.1.1) */

/* Error codes (all negative, distinct). iblib_strerror() gives a sentence for logs. */
#define IBLIB_E_SHORT    (-1)   /* buffer shorter than the headers it claims */
#define IBLIB_E_LNH      (-2)   /* raw / IP packet (LNH 0/1): not an IBA transport packet */
#define IBLIB_E_PKTLEN   (-3)   /* LRH:PktLen disagrees with the received length */
#define IBLIB_E_VCRC     (-4)   /* VCRC mismatch: link corruption */
#define IBLIB_E_ICRC     (-5)   /* ICRC mismatch: end-to-end corruption */
#define IBLIB_E_LVER     (-6)   /* LRH:LVer != 0 */
#define IBLIB_E_GRH      (-7)   /* GRH IPVer != 6, NxtHdr != 0x1B, or PayLen inconsistent */
#define IBLIB_E_OPCODE   (-8)   /* BTH opcode iblib does not handle */
#define IBLIB_E_TVER     (-9)   /* BTH:TVer != 0 */
#define IBLIB_E_PAD      (-10)  /* PadCnt larger than the payload, or pad on a no-payload opcode */
#define IBLIB_E_NOSPACE  (-11)  /* build: output buffer too small */
#define IBLIB_E_INVAL    (-12)  /* build: bad argument (payload too big, field out of range) */
#define IBLIB_E_MAD      (-13)  /* MAD: bad base/class version, class, or layout */
#define IBLIB_E_DR_PATH  (-14)  /* directed-route SMP: hop pointer/count inconsistent at this node */
const char *iblib_strerror(int err);

/*
 * A whole packet: parse output, and build input (the header fields; offsets are ignored by the
 * builder, and the builder computes LNH, PktLen, GRH PayLen/NxtHdr/IPVer, PadCnt itself).
 */
struct iblib_pkt {
	struct iblib_lrh lrh;
	bool has_grh;
	struct iblib_grh grh;
	struct iblib_bth bth;
	unsigned ext;              /* IBLIB_EXT_* present (parse), from the opcode */
	struct iblib_deth deth;
	struct iblib_reth reth;
	struct iblib_aeth aeth;
	struct iblib_atomiceth atomiceth;
	uint64_t atomic_orig;      /* AtomicAckETH */
	uint32_t imm;              /* ImmDt, host order of the big-endian wire value */
	/* Parse output: byte offsets into the buffer. */
	size_t grh_off, bth_off, payload_off;
	size_t payload_len;        /* without the pad bytes */
	size_t icrc_off, vcrc_off;
	size_t len;                /* whole packet incl. VCRC */
};

/* Parse flags */
#define IBLIB_PARSE_NO_ICRC 0x1   /* do not verify the ICRC (e.g. an MLX QP's driver-built headers) */
#define IBLIB_PARSE_NO_VCRC 0x2

/*
 * Parse and validate a whole packet (LRH .. VCRC). Checks, in this order, with these errors:
 * length >= LRH (E_SHORT); LVer (E_LVER); LNH is 2 or 3 (E_LNH); PktLen*4 + 2 == len (E_PKTLEN);
 * VCRC (E_VCRC); GRH fields (E_GRH); ICRC (E_ICRC); TVer (E_TVER); opcode (E_OPCODE);
 * extension headers fit (E_SHORT); PadCnt (E_PAD). Returns 0 and fills *out.
 */
int iblib_pkt_parse(const uint8_t *buf, size_t len, struct iblib_pkt *out, unsigned flags);

/*
 * Build a whole packet from h's headers (GRH when h->has_grh; ETHs per h->bth.opcode) and the
 * payload, then the pad, ICRC and VCRC. Returns the total length (incl. ICRC and VCRC) or
 * IBLIB_E_NOSPACE / IBLIB_E_INVAL / IBLIB_E_OPCODE.
 */
int iblib_pkt_build(uint8_t *buf, size_t cap, const struct iblib_pkt *h, const void *payload,
		    size_t len);

/*
 * Only the headers of such a packet (LRH [GRH] BTH ETHs), with LNH, PktLen, GRH PayLen and PadCnt
 * computed for a payload of len bytes that follows elsewhere, then pad, ICRC and VCRC: what an
 * HCA's MLX (raw) send takes before the payload it gathers itself. Returns the header length or
 * IBLIB_E_NOSPACE / IBLIB_E_INVAL / IBLIB_E_OPCODE.
 */
int iblib_pkt_headers(uint8_t *buf, size_t cap, const struct iblib_pkt *h, size_t len);
/* The same for UD SEND_ONLY only (h->bth.opcode; IBLIB_E_OPCODE otherwise): LRH [GRH] BTH DETH. */
int iblib_ud_headers(uint8_t *buf, size_t cap, const struct iblib_pkt *h, size_t len);

/*
 * UD convenience: LRH [+GRH when grh != NULL] + BTH + DETH + payload + ICRC + VCRC.
 * bth->opcode must be a UD opcode (0x64; 0x65 carries `imm` - use iblib_pkt_build for that).
 */
int iblib_ud_build(uint8_t *buf, size_t cap, const struct iblib_lrh *lrh,
		   const struct iblib_grh *grh, const struct iblib_bth *bth,
		   const struct iblib_deth *deth, const void *payload, size_t len);

/*
 * Headers already in buf (LRH .. last payload/pad byte, `len` bytes - e.g. the MLX-QP headers a
 * driver wrote, whose BTH:PadCnt must already match): set LRH:PktLen (and GRH:PayLen when the
 * LNH says a GRH is present), append ICRC and VCRC. Returns the new total length or an error.
 */
int iblib_pkt_seal(uint8_t *buf, size_t len, size_t cap);

/* Recompute only the VCRC of a whole packet of `len` bytes (after a switch changes the VL). */
int iblib_pkt_update_vcrc(uint8_t *buf, size_t len);

#endif

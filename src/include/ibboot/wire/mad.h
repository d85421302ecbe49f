/* SPDX-License-Identifier: MIT */
/*
 * Management datagrams (IBA chapter 13.4), subnet management packets (14.2), subnet
 * administration (15.2) and the performance-management PortCounters (16.1).
 *
 * A MAD is always 256 bytes. Offsets below are byte offsets into it. Records (PathRecord,
 * MCMemberRecord, SMInfo, PortCounters, ClassPortInfo) get host-order structs with encode/decode;
 * the subnet-management attributes of chapter 14.2.5 are field accessors in attrs.h.
 *
 * Freestanding: only <stdint.h>/<stddef.h>/<stdbool.h>.
 */
#ifndef IBLIB_MAD_H
#define IBLIB_MAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ibboot/wire/packet.h>

#define IBLIB_MAD_BYTES        256
#define IBLIB_MAD_HDR_BYTES    24
#define IBLIB_MAD_BASE_VERSION 1

/* Management classes (IBA 13.4.4, Table 118) */
#define IBLIB_MCLASS_SUBN_LID    0x01  /* SMP, LID-routed */
#define IBLIB_MCLASS_SUBN_ADM    0x03  /* SA */
#define IBLIB_MCLASS_PERF        0x04  /* PMA */
#define IBLIB_MCLASS_BM          0x05
#define IBLIB_MCLASS_DEV_MGT     0x06
#define IBLIB_MCLASS_CM          0x07
#define IBLIB_MCLASS_SNMP        0x08
#define IBLIB_MCLASS_SUBN_DR     0x81  /* SMP, directed route */

/* Class versions used here */
#define IBLIB_SMP_CLASS_VERSION  1
#define IBLIB_SA_CLASS_VERSION   2
#define IBLIB_PERF_CLASS_VERSION 1

/* Methods (IBA 13.4.5, 15.2.2). Bit 7 (R) marks a response. */
#define IBLIB_METHOD_GET             0x01
#define IBLIB_METHOD_SET             0x02
#define IBLIB_METHOD_SEND            0x03
#define IBLIB_METHOD_TRAP            0x05
#define IBLIB_METHOD_REPORT          0x06
#define IBLIB_METHOD_TRAP_REPRESS    0x07
#define IBLIB_METHOD_GET_TABLE       0x12
#define IBLIB_METHOD_GET_TRACE_TABLE 0x13
#define IBLIB_METHOD_GET_MULTI       0x14
#define IBLIB_METHOD_DELETE          0x15
#define IBLIB_METHOD_RESP            0x80
#define IBLIB_METHOD_GET_RESP        0x81
#define IBLIB_METHOD_REPORT_RESP     0x86
#define IBLIB_METHOD_GET_TABLE_RESP  0x92
#define IBLIB_METHOD_DELETE_RESP     0x95

/* MAD status (IBA 13.4.7, Table 120): bits 4:2 are the "invalid field" code. */
#define IBLIB_MAD_STATUS_OK                0x0000
#define IBLIB_MAD_STATUS_BUSY              0x0001
#define IBLIB_MAD_STATUS_REDIRECT          0x0002
#define IBLIB_MAD_STATUS_BAD_VERSION       0x0004  /* base or class version unsupported */
#define IBLIB_MAD_STATUS_UNSUP_METHOD      0x0008
#define IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR 0x000C  /* method/attribute combination unsupported */
#define IBLIB_MAD_STATUS_INVALID_FIELD     0x001C  /* invalid attribute or modifier value */
/* SA class-specific status, bits 15:8 (IBA 15.2.1.1, Table 188) */
#define IBLIB_SA_STATUS_NO_RESOURCES       0x0100
#define IBLIB_SA_STATUS_REQ_INVALID        0x0200
#define IBLIB_SA_STATUS_NO_RECORDS         0x0300
#define IBLIB_SA_STATUS_TOO_MANY_RECORDS   0x0400
#define IBLIB_SA_STATUS_INVALID_GID        0x0500
#define IBLIB_SA_STATUS_INSUFFICIENT_COMPS 0x0600
#define IBLIB_SA_STATUS_REQ_DENIED         0x0700

/* Common attribute ids (IBA 13.4.8) */
#define IBLIB_ATTR_CLASS_PORT_INFO   0x0001
#define IBLIB_ATTR_NOTICE            0x0002
#define IBLIB_ATTR_INFORM_INFO       0x0003

/* Subnet management attribute ids (IBA 14.2.5, Table 145) */
#define IBLIB_SM_ATTR_NODE_DESC      0x0010
#define IBLIB_SM_ATTR_NODE_INFO      0x0011
#define IBLIB_SM_ATTR_SWITCH_INFO    0x0012
#define IBLIB_SM_ATTR_GUID_INFO      0x0014
#define IBLIB_SM_ATTR_PORT_INFO      0x0015
#define IBLIB_SM_ATTR_PKEY_TABLE     0x0016
#define IBLIB_SM_ATTR_SL2VL_TABLE    0x0017
#define IBLIB_SM_ATTR_VLARB_TABLE    0x0018
#define IBLIB_SM_ATTR_LFT            0x0019
#define IBLIB_SM_ATTR_RFT            0x001A
#define IBLIB_SM_ATTR_MFT            0x001B
#define IBLIB_SM_ATTR_SM_INFO        0x0020
#define IBLIB_SM_ATTR_VENDOR_DIAG    0x0030
#define IBLIB_SM_ATTR_LED_INFO       0x0031
#define IBLIB_SM_ATTR_MLNX_EXT_PORT_INFO 0xFF90  /* Mellanox vendor attribute OpenSM reads */

/* SA attribute ids (IBA 15.2.5, Table 192) */
#define IBLIB_SA_ATTR_NODE_RECORD      0x0011
#define IBLIB_SA_ATTR_PORT_INFO_RECORD 0x0012
#define IBLIB_SA_ATTR_SERVICE_RECORD   0x0031
#define IBLIB_SA_ATTR_PKEY_TABLE_RECORD 0x0033
#define IBLIB_SA_ATTR_PATH_RECORD      0x0035
#define IBLIB_SA_ATTR_MCMEMBER_RECORD  0x0038
#define IBLIB_SA_ATTR_MULTIPATH_RECORD 0x003A

/* Performance management attribute ids (IBA 16.1.3, Table 207) */
#define IBLIB_PERF_ATTR_PORT_COUNTERS     0x0012
#define IBLIB_PERF_ATTR_PORT_COUNTERS_EXT 0x001D

/* ---- Common MAD header (IBA 13.4.2), bytes 0..23 ---- */
struct iblib_mad_hdr {
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;          /* incl. the R bit */
	uint16_t status;         /* for DR SMPs: bit 15 is the D bit, see below */
	uint16_t class_specific; /* for DR SMPs: HopPointer << 8 | HopCount */
	uint64_t tid;
	uint16_t attr_id;
	uint32_t attr_mod;
};

void iblib_mad_hdr_get(const uint8_t *mad, struct iblib_mad_hdr *h);
void iblib_mad_hdr_put(uint8_t *mad, const struct iblib_mad_hdr *h);

/* Quick field access without a struct */
static inline uint8_t iblib_mad_class(const uint8_t *mad) { return mad[1]; }
static inline uint8_t iblib_mad_method(const uint8_t *mad) { return mad[3]; }
static inline uint16_t iblib_mad_attr_id(const uint8_t *mad)
{
	return (uint16_t)(mad[16] << 8 | mad[17]);
}
static inline uint32_t iblib_mad_attr_mod(const uint8_t *mad)
{
	return (uint32_t)mad[20] << 24 | (uint32_t)mad[21] << 16 | (uint32_t)mad[22] << 8 | mad[23];
}
static inline bool iblib_mad_is_response(const uint8_t *mad) { return (mad[3] & 0x80) != 0; }

/*
 * Sanity check every MAD receiver does first (IBA 13.4.2): BaseVersion 1, and for the SMP
 * classes ClassVersion 1 and (DR) HopCount <= 63 and HopPointer <= HopCount + 1.
 * Returns 0 or IBLIB_E_MAD. (An unsupported *class version* of a known class is a reply with
 * IBLIB_MAD_STATUS_BAD_VERSION, not an error here.)
 */
int iblib_mad_check(const uint8_t *mad, size_t len);

/*
 * Start the response to `req` in `resp` (256 B): the whole request is copied (IBA 13.4.6.3:
 * the responder returns the attribute data area of the request for failed Gets), R bit set,
 * method GetResp for Get/Set (TrapRepress for a Trap, ReportResp for Report, DeleteResp for
 * Delete, GetTableResp for GetTable), status = `status`; for a DR SMP the D bit is set (the
 * hop fields are left alone: see iblib_smp_dr_*).
 */
void iblib_mad_make_response(uint8_t *resp, const uint8_t *req, uint16_t status);

/* ---- SMP (IBA 14.2.1) ---- */
#define IBLIB_SMP_MKEY_OFF        24
#define IBLIB_SMP_DR_SLID_OFF     32
#define IBLIB_SMP_DR_DLID_OFF     34
#define IBLIB_SMP_DATA_OFF        64
#define IBLIB_SMP_DATA_BYTES      64
#define IBLIB_SMP_INITIAL_PATH_OFF 128
#define IBLIB_SMP_RETURN_PATH_OFF 192
#define IBLIB_SMP_MAX_HOPS        63
#define IBLIB_SMP_DR_D_BIT        0x8000  /* in the status word of a DR SMP */

static inline uint8_t *iblib_smp_data(uint8_t *mad) { return mad + IBLIB_SMP_DATA_OFF; }
static inline const uint8_t *iblib_smp_cdata(const uint8_t *mad) { return mad + IBLIB_SMP_DATA_OFF; }
static inline bool iblib_smp_is_dr(const uint8_t *mad) { return mad[1] == IBLIB_MCLASS_SUBN_DR; }
static inline bool iblib_smp_dr_d(const uint8_t *mad) { return (mad[4] & 0x80) != 0; }
static inline uint8_t iblib_smp_dr_hop_ptr(const uint8_t *mad) { return mad[6]; }
static inline uint8_t iblib_smp_dr_hop_cnt(const uint8_t *mad) { return mad[7]; }
uint64_t iblib_smp_mkey(const uint8_t *mad);
void iblib_smp_set_mkey(uint8_t *mad, uint64_t mkey);
/* Status without the D bit for DR SMPs (15 bits), the full 16 bits otherwise. */
uint16_t iblib_smp_status(const uint8_t *mad);

/*
 * Directed-route SMP processing (IBA 14.2.2) at a node, for the SMP `mad` that arrived on
 * `in_port` (0 = generated locally / came in through the management interface).
 * Outcome:
 *   IBLIB_DR_LOCAL   - this node is the destination: hand it to the local SMA/SM;
 *   IBLIB_DR_FORWARD - send it out *out_port (switches only; *out_port may be 0 = the switch's
 *                      own SMA/port 0 when the path returns to itself, never for a CA);
 *   IBLIB_DR_SEND    - a locally originated SMP or a local response, ready to go out *out_port.
 *   IBLIB_DR_LID_ROUTE - the directed part is done and DrDLID/DrSLID is not permissive: route
 *                      the rest by LID (switches; the hop fields are already updated).
 *   IBLIB_E_DR_PATH  - discard (IBA C14-9/C14-13 conditions not met).
 * The hop pointer and the return path are updated in place as the spec requires; when the
 * SMP is refused before any update (bad egress port) it is left unchanged and *out_port is 0.
 * `is_switch` selects the switch rules; num_ports bounds port numbers.
 */
#define IBLIB_DR_LOCAL   1
#define IBLIB_DR_FORWARD 2
#define IBLIB_DR_SEND    3
#define IBLIB_DR_LID_ROUTE 4
int iblib_smp_dr_recv(uint8_t *mad, bool is_switch, unsigned in_port, unsigned num_ports,
		      unsigned *out_port);
/*
 * An SMA's response (D bit set, hop pointer as the request left it) is about to leave the node
 * that answered: step the hop pointer back (C14-13:1). *out_port = the port to send it on
 * (ReturnPath[hop_ptr] for switches, checked against num_ports; for a CA *out_port is 0: send
 * it back on the port the request arrived on). Returns IBLIB_DR_SEND,
 * IBLIB_DR_LOCAL (hop count 0: the response is for this node's own SM) or IBLIB_E_DR_PATH.
 */
int iblib_smp_dr_respond(uint8_t *resp, bool is_switch, unsigned num_ports, unsigned *out_port);

/* ---- SA (IBA 15.2.1.1) ---- */
#define IBLIB_SA_RMPP_OFF        24
#define IBLIB_SA_SMKEY_OFF       36
#define IBLIB_SA_ATTR_OFFSET_OFF 44
#define IBLIB_SA_COMP_MASK_OFF   48
#define IBLIB_SA_DATA_OFF        56
#define IBLIB_SA_DATA_BYTES      200

/* RMPP header (IBA 13.6.2) */
#define IBLIB_RMPP_TYPE_DATA  1
#define IBLIB_RMPP_TYPE_ACK   2
#define IBLIB_RMPP_TYPE_STOP  3
#define IBLIB_RMPP_TYPE_ABORT 4
#define IBLIB_RMPP_FLAG_ACTIVE 0x1
#define IBLIB_RMPP_FLAG_FIRST  0x2
#define IBLIB_RMPP_FLAG_LAST   0x4

struct iblib_sa_hdr {
	uint8_t rmpp_version;
	uint8_t rmpp_type;
	uint8_t rmpp_resp_time;  /* 5 bits */
	uint8_t rmpp_flags;      /* 3 bits */
	uint8_t rmpp_status;
	uint32_t rmpp_data1;     /* SegmentNumber */
	uint32_t rmpp_data2;     /* PayloadLength / NewWindowLast */
	uint64_t sm_key;
	uint16_t attr_offset;    /* record size in 8-byte words (GetTable) */
	uint64_t comp_mask;
};
void iblib_sa_hdr_get(const uint8_t *mad, struct iblib_sa_hdr *h);
void iblib_sa_hdr_put(uint8_t *mad, const struct iblib_sa_hdr *h);

/* PathRecord (IBA 15.2.5.16), 64 bytes */
#define IBLIB_PATH_RECORD_BYTES 64
#define IBLIB_PR_COMP_SERVICEID   (3ull << 0)
#define IBLIB_PR_COMP_DGID        (1ull << 2)
#define IBLIB_PR_COMP_SGID        (1ull << 3)
#define IBLIB_PR_COMP_DLID        (1ull << 4)
#define IBLIB_PR_COMP_SLID        (1ull << 5)
#define IBLIB_PR_COMP_RAWTRAFFIC  (1ull << 6)
#define IBLIB_PR_COMP_FLOWLABEL   (1ull << 8)
#define IBLIB_PR_COMP_HOPLIMIT    (1ull << 9)
#define IBLIB_PR_COMP_TCLASS      (1ull << 10)
#define IBLIB_PR_COMP_REVERSIBLE  (1ull << 11)
#define IBLIB_PR_COMP_NUMBPATH    (1ull << 12)
#define IBLIB_PR_COMP_PKEY        (1ull << 13)
#define IBLIB_PR_COMP_QOS_CLASS   (1ull << 14)
#define IBLIB_PR_COMP_SL          (1ull << 15)
#define IBLIB_PR_COMP_MTU_SEL     (1ull << 16)
#define IBLIB_PR_COMP_MTU         (1ull << 17)
#define IBLIB_PR_COMP_RATE_SEL    (1ull << 18)
#define IBLIB_PR_COMP_RATE        (1ull << 19)
#define IBLIB_PR_COMP_PKTLIFE_SEL (1ull << 20)
#define IBLIB_PR_COMP_PKTLIFE     (1ull << 21)
#define IBLIB_PR_COMP_PREFERENCE  (1ull << 22)

/* Selectors for MTU/Rate/PacketLifeTime (2-bit, IBA 15.2.5.16) */
#define IBLIB_SEL_GT      0
#define IBLIB_SEL_LT      1
#define IBLIB_SEL_EXACTLY 2
#define IBLIB_SEL_BEST    3

struct iblib_path_record {
	uint64_t service_id;
	struct iblib_gid dgid;
	struct iblib_gid sgid;
	uint16_t dlid;
	uint16_t slid;
	bool raw_traffic;
	uint32_t flow_label;    /* 20 bits */
	uint8_t hop_limit;
	uint8_t tclass;
	bool reversible;
	uint8_t numb_path;      /* 7 bits */
	uint16_t pkey;
	uint16_t qos_class;     /* 12 bits */
	uint8_t sl;             /* 4 bits */
	uint8_t mtu_selector;   /* 2 bits */
	uint8_t mtu;            /* 6 bits, IBLIB_MTU_* */
	uint8_t rate_selector;
	uint8_t rate;           /* 6 bits, IBA rate code: 2 = 2.5, 3 = 10, 4 = 30, 5 = 5, 6 = 20, 7 = 40 Gb/s ... */
	uint8_t pkt_life_selector;
	uint8_t pkt_life;       /* 6 bits */
	uint8_t preference;
};
void iblib_path_record_get(const uint8_t *p, struct iblib_path_record *r);
void iblib_path_record_put(uint8_t *p, const struct iblib_path_record *r);

/* MCMemberRecord (IBA 15.2.5.17), 52 bytes */
#define IBLIB_MCMEMBER_RECORD_BYTES 52
#define IBLIB_MCR_COMP_MGID        (1ull << 0)
#define IBLIB_MCR_COMP_PORT_GID    (1ull << 1)
#define IBLIB_MCR_COMP_QKEY        (1ull << 2)
#define IBLIB_MCR_COMP_MLID        (1ull << 3)
#define IBLIB_MCR_COMP_MTU_SEL     (1ull << 4)
#define IBLIB_MCR_COMP_MTU         (1ull << 5)
#define IBLIB_MCR_COMP_TCLASS      (1ull << 6)
#define IBLIB_MCR_COMP_PKEY        (1ull << 7)
#define IBLIB_MCR_COMP_RATE_SEL    (1ull << 8)
#define IBLIB_MCR_COMP_RATE        (1ull << 9)
#define IBLIB_MCR_COMP_PKTLIFE_SEL (1ull << 10)
#define IBLIB_MCR_COMP_PKTLIFE     (1ull << 11)
#define IBLIB_MCR_COMP_SL          (1ull << 12)
#define IBLIB_MCR_COMP_FLOWLABEL   (1ull << 13)
#define IBLIB_MCR_COMP_HOPLIMIT    (1ull << 14)
#define IBLIB_MCR_COMP_SCOPE       (1ull << 15)
#define IBLIB_MCR_COMP_JOIN_STATE  (1ull << 16)
#define IBLIB_MCR_COMP_PROXY_JOIN  (1ull << 17)
/* JoinState bits (IBA 15.2.5.17) */
#define IBLIB_MCR_JOIN_FULL        0x1
#define IBLIB_MCR_JOIN_NON         0x2
#define IBLIB_MCR_JOIN_SENDONLY    0x4

struct iblib_mcmember_record {
	struct iblib_gid mgid;
	struct iblib_gid port_gid;
	uint32_t qkey;
	uint16_t mlid;
	uint8_t mtu_selector;
	uint8_t mtu;
	uint8_t tclass;
	uint16_t pkey;
	uint8_t rate_selector;
	uint8_t rate;
	uint8_t pkt_life_selector;
	uint8_t pkt_life;
	uint8_t sl;             /* 4 bits */
	uint32_t flow_label;    /* 20 bits */
	uint8_t hop_limit;
	uint8_t scope;          /* 4 bits */
	uint8_t join_state;     /* 4 bits */
	bool proxy_join;
};
void iblib_mcmember_record_get(const uint8_t *p, struct iblib_mcmember_record *r);
void iblib_mcmember_record_put(uint8_t *p, const struct iblib_mcmember_record *r);

/* ---- ClassPortInfo (IBA 13.4.8.1), 72 bytes; any class ---- */
#define IBLIB_CLASS_PORT_INFO_BYTES 72
struct iblib_class_port_info {
	uint8_t base_version;
	uint8_t class_version;
	uint16_t cap_mask;
	uint32_t cap_mask2;       /* 27 bits */
	uint8_t resp_time_value;  /* 5 bits */
	struct iblib_gid redirect_gid;
	uint8_t redirect_tc;
	uint8_t redirect_sl;
	uint32_t redirect_fl;
	uint16_t redirect_lid;
	uint16_t redirect_pkey;
	uint32_t redirect_qp;
	uint32_t redirect_qkey;
	struct iblib_gid trap_gid;
	uint8_t trap_tc;
	uint8_t trap_sl;
	uint32_t trap_fl;
	uint16_t trap_lid;
	uint16_t trap_pkey;
	uint8_t trap_hl;
	uint32_t trap_qp;
	uint32_t trap_qkey;
};
void iblib_class_port_info_get(const uint8_t *p, struct iblib_class_port_info *c);
void iblib_class_port_info_put(uint8_t *p, const struct iblib_class_port_info *c);

/* ---- SMInfo (IBA 14.2.5.13), 21 bytes used ---- */
#define IBLIB_SMINFO_STATE_NOTACTIVE   0
#define IBLIB_SMINFO_STATE_DISCOVERING 1
#define IBLIB_SMINFO_STATE_STANDBY     2
#define IBLIB_SMINFO_STATE_MASTER      3
struct iblib_sminfo {
	uint64_t guid;
	uint64_t sm_key;
	uint32_t act_count;
	uint8_t priority;  /* 4 bits */
	uint8_t state;     /* 4 bits */
};
void iblib_sminfo_get(const uint8_t *p, struct iblib_sminfo *s);
void iblib_sminfo_put(uint8_t *p, const struct iblib_sminfo *s);

/* ---- Performance management (IBA 16.1): data at byte 64 of the MAD (40 reserved bytes
 * follow the common header) ---- */
#define IBLIB_PERF_DATA_OFF 64
/* PMA ClassPortInfo CapabilityMask bits (IBA 16.1.1.1 + the Mellanox/OpenFabrics usage) */
#define IBLIB_PERF_CAP_ALL_PORT_SELECT  0x0100
#define IBLIB_PERF_CAP_EXT_WIDTH        0x0200  /* PortCountersExtended supported */
#define IBLIB_PERF_CAP_XMIT_WAIT        0x1000

struct iblib_port_counters {
	uint8_t port_select;
	uint16_t counter_select;
	uint16_t symbol_errors;
	uint8_t link_error_recovery;
	uint8_t link_downed;
	uint16_t rcv_errors;
	uint16_t rcv_remote_phys_errors;
	uint16_t rcv_switch_relay_errors;
	uint16_t xmit_discards;
	uint8_t xmit_constraint_errors;
	uint8_t rcv_constraint_errors;
	uint8_t counter_select2;
	uint8_t local_link_integrity_errors;  /* 4 bits */
	uint8_t excessive_buffer_overrun;     /* 4 bits */
	uint16_t vl15_dropped;
	uint32_t xmit_data;   /* in 4-byte units (IBA 16.1.3.5) */
	uint32_t rcv_data;
	uint32_t xmit_pkts;
	uint32_t rcv_pkts;
	uint32_t xmit_wait;
};
void iblib_port_counters_get(const uint8_t *p, struct iblib_port_counters *c);
void iblib_port_counters_put(uint8_t *p, const struct iblib_port_counters *c);

struct iblib_port_counters_ext {
	uint8_t port_select;
	uint16_t counter_select;
	uint64_t xmit_data;   /* 4-byte units */
	uint64_t rcv_data;
	uint64_t xmit_pkts;
	uint64_t rcv_pkts;
	uint64_t ucast_xmit_pkts;
	uint64_t ucast_rcv_pkts;
	uint64_t mcast_xmit_pkts;
	uint64_t mcast_rcv_pkts;
};
void iblib_port_counters_ext_get(const uint8_t *p, struct iblib_port_counters_ext *c);
void iblib_port_counters_ext_put(uint8_t *p, const struct iblib_port_counters_ext *c);

#endif

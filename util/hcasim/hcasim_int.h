/* SPDX-License-Identifier: MIT */
/*
 * hcasim internals: the device state shared by the model's files. Nothing here is visible to
 * the embedding host (see include/hcasim.h).
 *
 * Where state lives: every context the PRM puts in ICM (QPC, CQC, EQC, dMPT, MTT, MCG) lives in
 * the guest pages the driver handed over with MAP_ICM, at the bases INIT_HCA programmed, and is
 * read and written there by DMA. The model keeps only what firmware keeps in its own memory:
 * the virtual→physical maps, the INIT_HCA layout, which contexts are in hardware ownership, the
 * event→EQ map, port state, and queues of work not yet done.
 */
#ifndef HCASIM_INT_H
#define HCASIM_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ibboot/hermon_prm.h>
#include <ibboot/hermon_syndrome.h>
#include "hcasim.h"

/* Short spellings of the generated accessors: PRM_GET(mpt, lr, buf) is
 * hermonprm_mpt_st_get_lr(buf). Still the generated code, never a hand shift. */
#define PRM_GET(st, f, buf) hermonprm_##st##_st_get_##f(buf)
#define PRM_SET(st, f, buf, v) hermonprm_##st##_st_set_##f((buf), (v))
#define PRM_SUB(st, f, buf) hermonprm_##st##_st_##f((void *)(buf))
#define PRM_SUBI(st, f, buf, i) hermonprm_##st##_st_##f((void *)(buf), (i))

#define HCASIM_PAGE 4096u
#define HCASIM_MAX_PORTS 2
#define HCASIM_BAR0_SIZE (1ull << 20)
#define HCASIM_BAR2_SIZE (8ull << 20)

/* BAR0 registers */
#define HCASIM_HCR_OFF 0x80680u
#define HCASIM_HCR_BYTES 28u
#define HCASIM_RESET_OFF 0xf0010u
#define HCASIM_SEM_OFF 0xf03fcu
#define HCASIM_ERRBUF_OFF 0xf0000u /* catastrophic error buffer, reported by QUERY_FW */
#define HCASIM_ERRBUF_DWORDS 16u
#define HCASIM_CLR_INT_OFF 0xf00d8u /* clear-interrupt register (clr_int_st), reported by QUERY_FW */
#define HCASIM_INTA_PIN 1u         /* QUERY_ADAPTER intapin: its bit in clr_int_st clears INTx */
#define HCASIM_MSIX_OFF 0x7c000u   /* MSI-X table (BIR 0), 128 vectors of 16 bytes */
#define HCASIM_MSIX_BYTES (128u * 16u)

/* UAR page offsets */
#define HCASIM_UAR_SEND_DB 0x14u
#define HCASIM_UAR_CQ_DB 0x20u
#define HCASIM_UAR_EQ_DB 0x800u

/* Firmware: reported revision, pages it needs (QUERY_FW fw_pages) */
#define HCASIM_FW_MAJOR 2
#define HCASIM_FW_MINOR 42
#define HCASIM_FW_SUBMINOR 5000
#define HCASIM_FW_PAGES 64u

/* PRM HCR status codes (Linux mlx4 names them the same way) */
enum hcasim_status {
	ST_OK = 0x00,
	ST_INTERNAL_ERR = 0x01,
	ST_BAD_OP = 0x02,
	ST_BAD_PARAM = 0x03,
	ST_BAD_SYS_STATE = 0x04,
	ST_BAD_RESOURCE = 0x05,
	ST_RESOURCE_BUSY = 0x06,
	ST_EXCEED_LIM = 0x08,
	ST_BAD_RES_STATE = 0x09,
	ST_BAD_INDEX = 0x0a,
	ST_BAD_NVMEM = 0x0b,
	ST_ICM_ERROR = 0x0c,
	ST_BAD_QP_STATE = 0x10,
	ST_BAD_SEG_PARAM = 0x20,
	ST_REG_BOUND = 0x21,
	ST_BAD_PKT = 0x30,
	ST_BAD_SIZE = 0x40,
};

/* Command opcodes (hermon-interface.md §1(b)) */
enum hcasim_opcode {
	OP_QUERY_DEV_CAP = 0x003, OP_QUERY_FW = 0x004, OP_QUERY_ADAPTER = 0x006,
	OP_INIT_HCA = 0x007, OP_CLOSE_HCA = 0x008, OP_INIT_PORT = 0x009, OP_CLOSE_PORT = 0x00a,
	OP_SET_PORT = 0x00c, OP_SW2HW_MPT = 0x00d, OP_QUERY_MPT = 0x00e, OP_HW2SW_MPT = 0x00f,
	OP_WRITE_MTT = 0x011, OP_MAP_EQ = 0x012, OP_SW2HW_EQ = 0x013, OP_HW2SW_EQ = 0x014,
	OP_QUERY_EQ = 0x015, OP_SW2HW_CQ = 0x016, OP_HW2SW_CQ = 0x017, OP_QUERY_CQ = 0x018,
	OP_RST2INIT_QP = 0x019, OP_INIT2RTR_QP = 0x01a, OP_RTR2RTS_QP = 0x01b,
	OP_RTS2RTS_QP = 0x01c, OP_SQERR2RTS_QP = 0x01d, OP_2ERR_QP = 0x01e, OP_2RST_QP = 0x021,
	OP_QUERY_QP = 0x022, OP_CONF_SPECIAL_QP = 0x023, OP_MAD_IFC = 0x024, OP_READ_MCG = 0x025,
	OP_WRITE_MCG = 0x026, OP_MGID_HASH = 0x027, OP_INIT2INIT_QP = 0x02d, OP_DIAG_RPRT = 0x030,
	OP_NOP = 0x031,
	OP_MOD_STAT_CFG = 0x034, OP_QUERY_PORT = 0x043, OP_SENSE_PORT = 0x04d,
	OP_RUN_FW = 0xff6, OP_UNMAP_ICM = 0xff9, OP_MAP_ICM = 0xffa, OP_UNMAP_ICM_AUX = 0xffb,
	OP_MAP_ICM_AUX = 0xffc, OP_SET_ICM_SIZE = 0xffd, OP_UNMAP_FA = 0xffe, OP_MAP_FA = 0xfff,
};

/* Firmware life cycle: reset → (MAP_FA) → RUN_FW → (ICM) → INIT_HCA → ... → CLOSE_HCA */
enum hcasim_fw_state { FW_OFF = 0, FW_RUNNING, FW_HCA_UP };

/* QP states (QPC.state encoding) */
enum hcasim_qp_state {
	QPS_RST = 0, QPS_INIT = 1, QPS_RTR = 2, QPS_RTS = 3, QPS_SQER = 4, QPS_SQD = 5, QPS_ERR = 6,
};

/* QPC service types */
enum { QPST_RC = 0x0, QPST_UC = 0x1, QPST_UD = 0x3, QPST_MLX = 0x7 };

/* Context entry sizes the model reports in QUERY_DEV_CAP and uses for ICM placement */
#define HCASIM_QPC_SZ 256u
#define HCASIM_RDMARC_SZ 32u
#define HCASIM_ALTC_SZ 128u
#define HCASIM_AUXC_SZ 128u
#define HCASIM_SRQC_SZ 64u
#define HCASIM_CQC_SZ 64u
#define HCASIM_EQC_SZ 64u
#define HCASIM_CMPT_SZ 64u
#define HCASIM_DMPT_SZ 64u
#define HCASIM_MTT_SZ 8u

/* Async event types (EQE event_type) */
enum {
	EV_COMPLETION = 0x00, EV_COMM_EST = 0x02, EV_CQ_ERROR = 0x04, EV_WQ_CATAS = 0x05,
	EV_LOCAL_CATAS = 0x08, EV_PORT_CHANGE = 0x09, EV_WQ_INVAL_REQ = 0x10,
	EV_WQ_ACCESS_ERR = 0x11, EV_PORT_MGMT_CHANGE = 0x1d,
};

/* CQE opcodes (the names Linux mlx4 uses); error syndromes: <ibboot/hermon_syndrome.h> */
#define CQE_OPCODE_ERROR 0x1e
#define CQE_RECV_SEND 0x02
#define CQE_RECV_SEND_IMM 0x03
#define CQE_RECV_RDMA_WRITE_IMM 0x00

/* Send WQE opcodes (ctrl segment) */
enum { WQE_NOP = 0x00, WQE_RDMA_WRITE = 0x08, WQE_RDMA_WRITE_IMM = 0x09, WQE_SEND = 0x0a,
       WQE_SEND_IMM = 0x0b, WQE_RDMA_READ = 0x10 };

/* One guest-physical mapping of a device-virtual range (FA, AUX or ICM) */
struct hcasim_range {
	uint64_t va, pa, len;
};
struct hcasim_vmap {
	struct hcasim_range *r;
	size_t n, cap;
	uint64_t bytes;
};

/* What INIT_HCA programmed */
struct hcasim_layout {
	uint64_t qpc_base, srqc_base, cqc_base, eqc_base, altc_base, auxc_base, rdmarc_base;
	unsigned log_num_qp, log_num_srq, log_num_cq, log_num_eq;
	uint64_t dmpt_base, mtt_base, cmpt_base;
	unsigned log_num_mpt;
	uint64_t mc_base;
	unsigned log_mc_entry_sz, log_mc_hash_sz, log_mc_table_sz;
	unsigned log_max_uars;
};

struct hcasim_port {
	bool link;         /* cable plugged (hcasim_port_set_link) */
	bool up;           /* INIT_PORT done */
	bool linked;       /* physical link trained: cable && up && HCA initialised (last reported) */
	unsigned mtu_cap;  /* SET_PORT mtu_cap (IB MTU enum), default 5 (4096) */
	unsigned vl_cap;
	unsigned last_state; /* last IBA PortState reported by an EQE */
	/* counters (also in the diagnostics snapshot) */
	uint64_t tx_packets, tx_dropped, rx_packets, rx_bad_crc, rx_bad_hdr, rx_no_qp, rx_bad_qkey,
		rx_bad_pkey, rx_no_wqe, rx_link_down;
};

/* A packet waiting in a port's receive FIFO (hcasim_packet_in copies; step() consumes) */
#define HCASIM_MAX_PKT 4224u
#define HCASIM_RXQ_LEN 256u /* a TCP window of 2 KiB segments fits with room to spare */
struct hcasim_rxpkt {
	unsigned port;
	size_t len;
	uint8_t data[HCASIM_MAX_PKT];
};

#define HCASIM_REFUSED_LOG 32u
#define HCASIM_REFUSED_LEN 160u

struct hcasim_sma;

/* faults.c: the knobs beyond the four in struct hcasim (all zero = off; opcodes stored + 1) */
struct hcasim_faults {
	int timeout_op, corrupt_op;
	unsigned timeout_left, corrupt_skip, corrupt_byte;
	uint8_t corrupt_xor;
	bool eq_owner_stuck, cq_owner_stuck, ud_payload;
	/* HCASIM_FAULT=reset-stuck-after=N (stored N + 1): the Nth reset leaves the semaphore
	 * held, later ones never complete */
	unsigned reset_stuck_after, resets;
};

/* An RC message arriving in several packets (SEND or RDMA WRITE, FIRST .. LAST). Boot setups
 * have few RC QPs: a small table, and a message that finds no free slot is NAK'd. */
#define HCASIM_RC_RX_SLOTS 8
struct hcasim_rc_rx {
	bool busy, write;
	uint32_t qpn;
	uint8_t wqe[1024];
	size_t wlen;
	uint16_t counter;
	uint64_t va;
	uint32_t rkey, total, done;
};

struct hcasim {
	struct hcasim_config cfg;
	struct hcasim_host_ops ops;
	char node_desc[65];

	/* PCI */
	uint8_t cfgsp[4096];
	uint64_t bar_base[3]; /* BAR0, (unused), BAR2 as programmed, low flag bits stripped */
	bool reset_active;    /* unreachable until reset_done_ns */
	uint64_t reset_done_ns;
	uint64_t reset_ns;    /* how long a reset keeps the device unreachable */

	/* BAR0 */
	uint8_t hcr[HCASIM_HCR_BYTES]; /* bus order, exactly as the driver sees it */
	bool hcr_pending;              /* go set but command held (stall/timeout knob) */
	uint32_t hw_sem;
	uint8_t cq_db_latch[4];
	uint8_t msix[HCASIM_MSIX_BYTES]; /* stored for the host; the model raises no interrupts */
	uint8_t errbuf[HCASIM_ERRBUF_DWORDS * 4];
	bool catastrophic;

	/* firmware */
	enum hcasim_fw_state fw;
	struct hcasim_vmap fa, aux, icm;
	bool icm_size_set;
	uint64_t icm_size, aux_pages;
	struct hcasim_layout lay;
	uint32_t special_qp_base;
	bool special_qp_set;

	/* hardware-ownership tables (firmware-private, sized at INIT_HCA) */
	uint8_t *qp_state;   /* QPS_* per QPN (RST = not in hardware) */
	uint8_t *qp_rc_wait; /* RC requester: a request is in flight, waiting for its ACK */
	uint8_t *cq_hw, *cq_armed, *eq_hw, *eq_armed, *mpt_hw;
	uint8_t irq_pending[1024 / 8]; /* MSI-X vectors raised by armed EQs */
	bool intx;                     /* INTx asserted (MSI-X off): until clr_int or reset */
	int eq_of_event[64]; /* MAP_EQ: async event type → EQN, -1 unmapped */

	struct hcasim_port port[HCASIM_MAX_PORTS];
	struct hcasim_sma *sma;

	/* work not yet done */
	uint32_t *sq_ring;    /* QPNs whose send doorbell rang */
	unsigned sq_head, sq_count, sq_cap;
	struct hcasim_rxpkt *rxq;
	unsigned rx_head, rx_count;

	struct hcasim_rc_rx rc_rx[HCASIM_RC_RX_SLOTS];

	/* fault injection */
	int fail_opcode, timeout_opcode;
	uint8_t fail_status;
	bool stall_hcr, corrupt_next_cqe;
	struct hcasim_faults faults;

	/* diagnostics */
	char refused[HCASIM_REFUSED_LOG][HCASIM_REFUSED_LEN];
	unsigned refused_count;
	uint64_t dma_after_close; /* DMA attempted while the firmware was off */
	uint64_t dma_no_master;   /* DMA attempted (and refused) with bus mastering off */
	bool dma_guard_master;    /* BME as last logged (dma_guard.c) */
	uint64_t cmd_count;
	uint8_t last_status;
	uint8_t scratch[HCASIM_MAX_PKT + 64];  /* send-side gather */
	uint8_t rxdata[HCASIM_MAX_PKT + 64];   /* receive-side assembly (GRH area + payload) */
};

/* QPNs are 24 bits; the QPC table is indexed by the low log_num_qp bits (drivers put random
 * bits above them, as iPXE does), and the full QPN is kept in the context (local_qpn_een). */
static inline uint32_t hcasim_qp_index(const struct hcasim *h, uint32_t qpn)
{
	return qpn & ((1u << h->lay.log_num_qp) - 1);
}
#define QP_STATE(h, qpn) ((h)->qp_state[hcasim_qp_index((h), (qpn))])
#define QP_WAIT(h, qpn) ((h)->qp_rc_wait[hcasim_qp_index((h), (qpn))])
#define HCASIM_QPN_MAX 0xffffffu
#define HCASIM_RSVD_QPS 64u /* QUERY_DEV_CAP log2_rsvd_qps = 6 */

/* hcasim.c */
void hcasim_log(struct hcasim *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hcasim_refuse(struct hcasim *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int hcasim_dma_read(struct hcasim *h, uint64_t gpa, void *buf, size_t len);
int hcasim_dma_write(struct hcasim *h, uint64_t gpa, const void *buf, size_t len);
uint64_t hcasim_now(struct hcasim *h);
void hcasim_power_on(struct hcasim *h);
void hcasim_free_tables(struct hcasim *h);
void hcasim_link_update(struct hcasim *h, unsigned port);

/* pci.c */
void hcasim_pci_init(struct hcasim *h);

/* dma_guard.c: false (counted, logged) when a DMA may not happen because bus mastering is off;
 * _sync logs a change of BME (config write, reset). */
bool hcasim_bus_master(const struct hcasim *h);
bool hcasim_dma_guard(struct hcasim *h, uint64_t gpa, size_t len, bool write);
void hcasim_dma_guard_sync(struct hcasim *h, const char *why);
bool hcasim_msix_on(const struct hcasim *h);

/* reset.c */
void hcasim_reset_start(struct hcasim *h);
bool hcasim_reachable(struct hcasim *h);

/* cmd.c */
struct hcasim_cmd {
	uint64_t in_param, out_param;
	uint32_t in_mod;
	unsigned opcode, op_mod;
	uint8_t in[4096];   /* input mailbox, when the command has one */
	uint8_t out[4096];  /* output mailbox */
	size_t out_len;     /* bytes of out to DMA to out_param; 0 = none */
	bool out_imm;       /* out_param is an immediate result written back to the HCR */
	uint64_t out_imm_val;
};
void hcasim_hcr_go(struct hcasim *h);
int hcasim_cmd_mbox_in(struct hcasim *h, struct hcasim_cmd *c, size_t len);
int hcasim_map_entries(struct hcasim *h, struct hcasim_cmd *c, struct hcasim_vmap *m, bool sequential_va, uint64_t next_va);
const char *hcasim_cmd_name(unsigned opcode);
int hcasim_cmd_ctx(struct hcasim *h, struct hcasim_cmd *c, const char *what, uint32_t idx,
		   unsigned log_num, const uint8_t *hw, bool want_hw);
int hcasim_cmd_ctx_out(struct hcasim *h, struct hcasim_cmd *c, uint64_t va, size_t len);
int hcasim_cmd_sw2hw_in(struct hcasim *h, struct hcasim_cmd *c, const char *what, uint32_t idx,
			unsigned log_num, const uint8_t *hw, size_t len);
int hcasim_cmd_sw2hw_store(struct hcasim *h, struct hcasim_cmd *c, int cmpt_type, uint32_t idx,
			   uint8_t *hw, uint64_t va, size_t len);

/* vmap.c: the FA / AUX / ICM virtual→physical maps */
int hcasim_vmap_add(struct hcasim_vmap *m, uint64_t va, uint64_t pa, uint64_t len);
uint64_t hcasim_vmap_remove(struct hcasim_vmap *m, uint64_t va, uint64_t len);
bool hcasim_vmap_lookup(const struct hcasim_vmap *m, uint64_t va, uint64_t *pa, uint64_t *avail);
void hcasim_vmap_clear(struct hcasim_vmap *m);

/* icm.c: context reads/writes at ICM virtual addresses */
int hcasim_icm_read(struct hcasim *h, uint64_t va, void *buf, size_t len);
int hcasim_icm_write(struct hcasim *h, uint64_t va, const void *buf, size_t len);
uint64_t hcasim_qpc_va(struct hcasim *h, uint32_t qpn);
uint64_t hcasim_cqc_va(struct hcasim *h, uint32_t cqn);
uint64_t hcasim_eqc_va(struct hcasim *h, uint32_t eqn);
uint64_t hcasim_dmpt_va(struct hcasim *h, uint32_t idx);
uint64_t hcasim_mtt_va(struct hcasim *h, uint64_t mtt_byte_off);
uint64_t hcasim_mcg_va(struct hcasim *h, uint32_t idx);
bool hcasim_bit(const uint8_t *map, uint32_t i);
void hcasim_bit_set(uint8_t *map, uint32_t i, bool v);

/* command handlers: each returns an HCR status */
typedef int (*hcasim_cmd_fn)(struct hcasim *h, struct hcasim_cmd *c);
int cmd_query_fw(struct hcasim *h, struct hcasim_cmd *c);
int cmd_map_fa(struct hcasim *h, struct hcasim_cmd *c);
int cmd_unmap_fa(struct hcasim *h, struct hcasim_cmd *c);
int cmd_run_fw(struct hcasim *h, struct hcasim_cmd *c);
int cmd_query_dev_cap(struct hcasim *h, struct hcasim_cmd *c);
int cmd_query_adapter(struct hcasim *h, struct hcasim_cmd *c);
int cmd_mod_stat_cfg(struct hcasim *h, struct hcasim_cmd *c);
int cmd_nop(struct hcasim *h, struct hcasim_cmd *c);
int cmd_diag_rprt(struct hcasim *h, struct hcasim_cmd *c);
int cmd_set_icm_size(struct hcasim *h, struct hcasim_cmd *c);
int cmd_map_icm_aux(struct hcasim *h, struct hcasim_cmd *c);
int cmd_unmap_icm_aux(struct hcasim *h, struct hcasim_cmd *c);
int cmd_map_icm(struct hcasim *h, struct hcasim_cmd *c);
int cmd_unmap_icm(struct hcasim *h, struct hcasim_cmd *c);
int cmd_init_hca(struct hcasim *h, struct hcasim_cmd *c);
int cmd_close_hca(struct hcasim *h, struct hcasim_cmd *c);
int cmd_init_port(struct hcasim *h, struct hcasim_cmd *c);
int cmd_close_port(struct hcasim *h, struct hcasim_cmd *c);
int cmd_set_port(struct hcasim *h, struct hcasim_cmd *c);
int cmd_query_port(struct hcasim *h, struct hcasim_cmd *c);
int cmd_sense_port(struct hcasim *h, struct hcasim_cmd *c);
int cmd_mad_ifc(struct hcasim *h, struct hcasim_cmd *c);
int cmd_conf_special_qp(struct hcasim *h, struct hcasim_cmd *c);
int cmd_sw2hw_mpt(struct hcasim *h, struct hcasim_cmd *c);
int cmd_hw2sw_mpt(struct hcasim *h, struct hcasim_cmd *c);
int cmd_query_mpt(struct hcasim *h, struct hcasim_cmd *c);
int cmd_write_mtt(struct hcasim *h, struct hcasim_cmd *c);
int cmd_sw2hw_eq(struct hcasim *h, struct hcasim_cmd *c);
int cmd_hw2sw_eq(struct hcasim *h, struct hcasim_cmd *c);
int cmd_query_eq(struct hcasim *h, struct hcasim_cmd *c);
int cmd_map_eq(struct hcasim *h, struct hcasim_cmd *c);
int cmd_sw2hw_cq(struct hcasim *h, struct hcasim_cmd *c);
int cmd_hw2sw_cq(struct hcasim *h, struct hcasim_cmd *c);
int cmd_query_cq(struct hcasim *h, struct hcasim_cmd *c);
int cmd_qp_modify(struct hcasim *h, struct hcasim_cmd *c);
int cmd_query_qp(struct hcasim *h, struct hcasim_cmd *c);
int cmd_read_mcg(struct hcasim *h, struct hcasim_cmd *c);
int cmd_write_mcg(struct hcasim *h, struct hcasim_cmd *c);
int cmd_mgid_hash(struct hcasim *h, struct hcasim_cmd *c);

/* tpt.c: rings (EQ/CQ/SQ/RQ) addressed through MTTs */
int hcasim_mtt_translate(struct hcasim *h, uint64_t mtt_byte_off, unsigned log_page,
			 uint64_t off, uint64_t *pa);
int hcasim_ring_write(struct hcasim *h, uint64_t mtt_byte_off, unsigned log_page,
		      uint32_t page_offset, unsigned log_size, uint32_t idx, const uint8_t entry[32]);
int hcasim_ring_fill(struct hcasim *h, uint64_t mtt_byte_off, unsigned log_page,
		     uint32_t page_offset, unsigned log_size, const uint8_t entry[32],
		     uint64_t *failed_at);

/* tpt.c: L_Key / R_Key translation */
enum { ACC_LR = 1, ACC_LW = 2, ACC_RR = 4, ACC_RW = 8, ACC_ATOMIC = 16 };
int hcasim_tpt_access(struct hcasim *h, uint32_t key, uint32_t pd, uint64_t va, uint32_t len,
		      unsigned access, bool write, void *buf);

/* eq.c */
void hcasim_eq_post(struct hcasim *h, uint32_t eqn, unsigned type, unsigned sub,
		    const uint32_t data[6]);
void hcasim_async_event(struct hcasim *h, unsigned type, unsigned sub, const uint32_t data[6]);
void hcasim_port_event(struct hcasim *h, unsigned port, unsigned type, unsigned sub);
void hcasim_catastrophe(struct hcasim *h, const char *why);
void hcasim_eq_doorbell(struct hcasim *h, uint32_t eqn, uint32_t val);
void hcasim_clr_int_write(struct hcasim *h, unsigned off, const uint8_t *d, unsigned size);

/* cq.c */
struct hcasim_cqe_info {
	uint32_t qpn;
	bool is_send, error;
	unsigned opcode, syndrome;
	uint16_t wqe_counter;
	uint32_t byte_cnt, imm, rqpn;
	uint16_t slid;
	unsigned sl, path_bits;
	bool grh;
};
int hcasim_cq_post(struct hcasim *h, uint32_t cqn, const struct hcasim_cqe_info *ci);
void hcasim_cq_doorbell(struct hcasim *h, const uint8_t db[8]);

/* qp.c: QP helpers used by the fastpath */
int hcasim_qpc_load(struct hcasim *h, uint32_t qpn, uint8_t qpc[HERMONPRM_QUEUE_PAIR_EE_CONTEXT_ENTRY_ST_BYTES]);
int hcasim_qpc_store(struct hcasim *h, uint32_t qpn, const uint8_t *qpc);
void hcasim_qp_to_error(struct hcasim *h, uint32_t qpn, uint8_t *qpc, const char *why);
int hcasim_port_of_qp(struct hcasim *h, const uint8_t *qpc, uint32_t qpn);
uint32_t hcasim_qp_special(struct hcasim *h, uint32_t qpn, unsigned *port);
const char *hcasim_qp_state_name(unsigned s);

/* wqe.c: send queue processing */
void hcasim_sq_doorbell(struct hcasim *h, uint32_t uar_page, uint32_t qpn);
void hcasim_sq_run(struct hcasim *h, uint32_t qpn);

/* ud.c / rc.c: transports */
void hcasim_rx_packet(struct hcasim *h, unsigned port, const uint8_t *pkt, size_t len);
void hcasim_wire_out(struct hcasim *h, unsigned port, uint8_t *pkt, size_t len);

void hcasim_sma_events(struct hcasim *h, unsigned port, unsigned events);

int hcasim_cmpt_check(struct hcasim *h, unsigned type, uint32_t num);

/* faults.c: hooks at the one place each knob applies */
void hcasim_faults_cmd_run(struct hcasim *h, unsigned opcode);
void hcasim_faults_cmd_out(struct hcasim *h, struct hcasim_cmd *c);
unsigned hcasim_faults_owner(struct hcasim *h, bool cq, unsigned owner);
void hcasim_faults_ud_payload(struct hcasim *h, uint8_t *payload, size_t len);
/* faults.c: the HCASIM_FAULT environment variable, read once at creation (0, or -1: unknown spec) */
int hcasim_faults_parse(struct hcasim *h, const char *spec);
int hcasim_faults_from_env(struct hcasim *h);
void hcasim_faults_reset(struct hcasim *h);

/* mcg.c */
int hcasim_mcg_find(struct hcasim *h, const uint8_t gid[16], uint32_t *qpns, unsigned max);
uint32_t hcasim_mgid_hash(struct hcasim *h, const uint8_t gid[16]);

#endif

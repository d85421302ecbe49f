/* SPDX-License-Identifier: MIT */
/*
 * Hermon (ConnectX / ConnectX-2 / ConnectX-3, PRM MT25408) InfiniBand driver: the driver's private
 * view of one HCA. Nothing here is global: every function takes the struct hermon it works on, so
 * several HCAs run side by side.
 *
 * Files: hermon_cmd.c (HCR and one wrapper per firmware command), hermon_icm.c (ICM sizing and
 * MAP_FA / MAP_ICM_AUX / MAP_ICM), hermon_mr.c (MPT, MTT), hermon_eq.c, hermon_cq.c, hermon_qp.c
 * (queues and the fastpath ops), hermon_mcast.c (MCG hash chains), hermon_port.c (SET_PORT,
 * INIT_PORT), hermon.c (reset, bring-up, teardown), hermon_dump.c (fwdump), hermon_ib.c (the IB
 * core's ops table, registration, PCI glue, the `fwdump` command).
 *
 * The driver works in the IB core's types (<ibboot/ib.h>): a CQE is decoded straight into a
 * struct ib_wc, a send takes the core's address vector, events are struct ib_event. The core owns
 * the work requests (which buffer each ring slot holds) and decodes port attributes; the driver
 * keeps only what the hardware needs (ring producer counters, QPNs, CQNs).
 *
 * Services used from the platform: dma_alloc/dma_free/virt_to_bus, kzalloc/kfree, readl_be/
 * writel_be on struct mmio, PCI config access, udelay/mdelay/clock_ms, plat_counter, kprintf.
 */
#ifndef IBBOOT_HERMON_H
#define IBBOOT_HERMON_H

#include <ibboot/compiler.h>
#include <ibboot/ib.h>
#include <ibboot/mmio.h>

struct pci_device;

#define HERMON_MAX_PORTS      2
#define HERMON_PAGE_SIZE      4096u
#define HERMON_PAGE_SHIFT     12

/* BAR0 registers (PRM "Initialization" and Linux mlx4 reset.c). */
#define HERMON_HCR_BASE       0x80680
#define HERMON_HCR_DWORDS     7
#define HERMON_RESET_OFFSET   0xf0010
#define HERMON_RESET_MAGIC    0x01000001u
#define HERMON_SEM_OFFSET     0xf03fc   /* hardware semaphore: reads 0 when we got it */

/* Timing (PRM: 10 s command timeout; reset: 1 s before any access). */
#define HERMON_HCR_POLL_US        10
#define HERMON_HCR_TIMEOUT_MS     10000
#define HERMON_RESET_WAIT_MS      1000
#define HERMON_RESET_POLL_MS      2000
#define HERMON_SEM_TIMEOUT_MS     1000
#define HERMON_SENSE_PORT_MS      500
#define HERMON_SENSE_PORT_POLL_MS 50
#define HERMON_PORT_TYPE_UNKNOWN  0
#define HERMON_PORT_TYPE_IB       1
#define HERMON_PORT_TYPE_ETH      2

/* Mailboxes: 4 KiB, page aligned, one for input, one for output. */
#define HERMON_MBOX_SIZE      4096u

/* UAR: pages below 128 carry EQ doorbells; page 128 is the one every CQ and QP uses. */
#define HERMON_UAR_NON_EQ_PAGE    128
#define HERMON_LOG_MAX_UARS       8
#define HERMON_DB_POST_SND_OFFSET 0x14
#define HERMON_DB_EQ_OFFSET(eqn)  (0x800u + HERMON_PAGE_SIZE * ((eqn) / 4) + 8u * ((eqn) % 4))

/* Policy: how many objects a boot needs (not device limits). */
#define HERMON_MAX_QPS        8     /* ordinary (UD) QPs */
#define HERMON_NUM_SPECIAL_QPS 8    /* QP0/QP1 block: aligned on its own size */
#define HERMON_MAX_CQS        16
#define HERMON_MAX_MTTS       128   /* 4 KiB pages of queue memory in total */
#define HERMON_NUM_EQES       16
#define HERMON_LOG_MCG_HASH   4     /* 16 hash buckets ... */
#define HERMON_LOG_MCG_TABLE  5     /* ... + 16 overflow (AMGM) entries for chaining */
#define HERMON_MCG_ENTRY_SIZE 64
#define HERMON_MCG_QPS        8     /* QP slots per MCG entry */
#define HERMON_GLOBAL_PD      0x000c1d
#define HERMON_CMPT_MAX_ENTRIES (1ull << 24)
#define HERMON_SEND_WQE_SIZE  128
#define HERMON_RECV_WQE_SIZE  16    /* one scatter entry: the core's GRH slot + payload */
#define HERMON_SQ_HEADROOM    2048  /* HW prefetches past the producer (PRM "send queue") */
#define HERMON_INVALID_LKEY   0x00000100u

/* Transport service types in the QPC (PRM "QP context"). */
#define HERMON_ST_RC   0x0
#define HERMON_ST_UD   0x3
#define HERMON_ST_MLX  0x7
#define HERMON_PM_STATE_MIGRATED 0x3
#define HERMON_QP_OPT_PARAM_QKEY 0x00000020u
#define HERMON_SCHED_QP0      0x3f
#define HERMON_SCHED_DEFAULT  0x83

/* WQE/CQE opcodes. */
#define HERMON_OPCODE_NOP        0x00
#define HERMON_OPCODE_SEND       0x0a
#define HERMON_OPCODE_CQE_ERROR  0x1e   /* 5-bit field: iPXE's 0xfe/0xff can never match */
#define HERMON_CQE_RECV_SEND     0x01
#define HERMON_CQE_RECV_SEND_IMM 0x02

/* Event types. */
#define HERMON_EV_PORT_STATE_CHANGE 0x09
#define HERMON_EV_PORT_MGMNT_CHANGE 0x1d
#define HERMON_EV_CATAS_ERROR       0x08
#define HERMON_EV_CQ_ERROR          0x04
#define HERMON_EV_WQ_CATAS_ERROR    0x05
#define HERMON_EV_WQ_ACCESS_ERROR   0x11

/* Firmware commands (PRM "Command Interface" opcodes). */
enum hermon_opcode {
	HERMON_CMD_QUERY_DEV_CAP = 0x003, HERMON_CMD_QUERY_FW = 0x004,
	HERMON_CMD_QUERY_ADAPTER = 0x006,
	HERMON_CMD_INIT_HCA = 0x007, HERMON_CMD_CLOSE_HCA = 0x008,
	HERMON_CMD_INIT_PORT = 0x009, HERMON_CMD_CLOSE_PORT = 0x00a,
	HERMON_CMD_SET_PORT = 0x00c, HERMON_CMD_SW2HW_MPT = 0x00d,
	HERMON_CMD_QUERY_MPT = 0x00e, HERMON_CMD_HW2SW_MPT = 0x00f,
	HERMON_CMD_WRITE_MTT = 0x011, HERMON_CMD_MAP_EQ = 0x012,
	HERMON_CMD_SW2HW_EQ = 0x013, HERMON_CMD_HW2SW_EQ = 0x014, HERMON_CMD_QUERY_EQ = 0x015,
	HERMON_CMD_SW2HW_CQ = 0x016, HERMON_CMD_HW2SW_CQ = 0x017, HERMON_CMD_QUERY_CQ = 0x018,
	HERMON_CMD_RST2INIT_QP = 0x019, HERMON_CMD_INIT2RTR_QP = 0x01a,
	HERMON_CMD_RTR2RTS_QP = 0x01b, HERMON_CMD_RTS2RTS_QP = 0x01c,
	HERMON_CMD_2ERR_QP = 0x01e, HERMON_CMD_2RST_QP = 0x021, HERMON_CMD_QUERY_QP = 0x022,
	HERMON_CMD_CONF_SPECIAL_QP = 0x023, HERMON_CMD_MAD_IFC = 0x024,
	HERMON_CMD_READ_MCG = 0x025, HERMON_CMD_WRITE_MCG = 0x026, HERMON_CMD_MGID_HASH = 0x027,
	HERMON_CMD_NOP = 0x031, HERMON_CMD_QUERY_PORT = 0x043, HERMON_CMD_SENSE_PORT = 0x04d,
	HERMON_CMD_RUN_FW = 0xff6, HERMON_CMD_UNMAP_ICM = 0xff9, HERMON_CMD_MAP_ICM = 0xffa,
	HERMON_CMD_UNMAP_ICM_AUX = 0xffb, HERMON_CMD_MAP_ICM_AUX = 0xffc,
	HERMON_CMD_SET_ICM_SIZE = 0xffd, HERMON_CMD_UNMAP_FA = 0xffe, HERMON_CMD_MAP_FA = 0xfff,
};

/* ---- device limits from QUERY_DEV_CAP (only what the driver uses) ---- */
struct hermon_caps {
	unsigned reserved_qps, reserved_srqs, reserved_cqs, reserved_eqs;
	unsigned reserved_mtts, reserved_mrws, reserved_uars;
	unsigned qpc_entry_size, altc_entry_size, auxc_entry_size, srqc_entry_size;
	unsigned cqc_entry_size, eqc_entry_size, cmpt_entry_size, dmpt_entry_size, mtt_entry_size;
	unsigned num_ports;
	unsigned log_max_qp_sz, log_max_cq_sz;
	bool dpdp;
	/* Flags bit 59 (Linux mlx4 MLX4_DEV_CAP_FLAG_PORT_MNG_CHG_EV): the firmware raises
	 * PORT_MGMNT_CHANGE for the SM's Sets, those the driver forwards by MAD_IFC included;
	 * without it nobody learns of a ClientReregister unless the SMA looks at the Sets. */
	bool port_mgmt_events;
};

/* ---- ICM plan: where every context table lives in ICM virtual space ---- */
enum hermon_icm_region {
	HERMON_ICM_QP_CMPT, HERMON_ICM_SRQ_CMPT, HERMON_ICM_CQ_CMPT, HERMON_ICM_EQ_CMPT,
	HERMON_ICM_OTHER, HERMON_ICM_NUM_REGIONS
};

struct hermon_icm_table {
	uint64_t base;     /* ICM virtual offset */
	uint64_t len;      /* bytes */
	unsigned log_num;  /* entries = 1 << log_num */
};

struct hermon_icm_plan {
	struct hermon_icm_table qpc, altc, auxc, srqc, cqc, eqc, mtt, dmpt, mcg;
	struct { uint64_t base, len; } region[HERMON_ICM_NUM_REGIONS];  /* what gets mapped */
	uint64_t icm_size;     /* end of the virtual layout: SET_ICM_SIZE argument */
	uint64_t mapped_len;   /* sum of region lengths: host memory for ICM proper */
	unsigned eqn;          /* the one EQ's number */
	unsigned special_qpn_base, qpn_base;
	unsigned num_mpts, num_mtts;
	unsigned log_mcg_hash, log_mcg_table;
};

/* Sizing from caps alone (pure; unit-tested). -ERANGE if the caps make no sense. */
int hermon_icm_plan(const struct hermon_caps *caps, struct hermon_icm_plan *plan);
/* Fills the INIT_HCA mailbox (512 bytes) from a plan. */
void hermon_icm_fill_init_hca(const struct hermon_icm_plan *plan, void *init_hca);

/* ---- host memory handed to the device with MAP_FA / MAP_ICM_AUX / MAP_ICM ---- */
struct hermon_area {
	void *virt;
	size_t len;
	uint64_t bus;
};

/* ---- MTT range (queue buffers are described to the HCA page by page) ---- */
struct hermon_mtt {
	unsigned first;          /* index in our MTT allocator */
	unsigned num_pages;
	uint64_t mtt_base_addr;  /* byte offset in the MTT table: (reserved + first) * entry size */
	unsigned page_offset;    /* of the buffer start inside its first page */
};

/* ---- event queue (one, polled, never armed) ---- */
struct hermon_eq {
	unsigned eqn;
	void *eqe;              /* HERMON_NUM_EQES x 32 bytes */
	size_t eqe_len;
	struct hermon_mtt mtt;
	uint32_t next;
	uint64_t doorbell_off;  /* in BAR2 */
	bool sw2hw, mapped;
	bool orphan;            /* HW2SW_EQ failed: ring kept until the reset */
	unsigned events, unknown_events;
	uint8_t last_type, last_sub_type;
};

/* ---- completion queue ---- */
struct hermon_cq {
	unsigned cqn;
	unsigned num_cqes;
	void *cqe;
	size_t cqe_len;
	uint32_t *doorbell;     /* 8-byte CQ doorbell record in host memory */
	struct hermon_mtt mtt;
	uint32_t next;          /* consumer counter */
	unsigned errors;
	struct ib_cq *ibcq;     /* the IB core's object for it */
	struct hermon_cq *next_cq;
};

/* ---- queue pair ---- */

/* The hardware side of one of the core's QPs. The core decides what each ring slot carries; the
 * driver keeps the producer counters and where the rings are. */
struct hermon_qp {
	enum ib_qp_type type;
	unsigned port;
	uint32_t qpn;            /* hardware QPN */
	uint32_t ext_qpn;        /* what the fabric sees: 0/1 for SMI/GSI */
	enum ib_qp_state state;  /* the hardware's, as the driver moved it */
	uint32_t qkey;
	struct hermon_cq *send_cq, *recv_cq;
	void *wqe;               /* SQ | RQ ring, one buffer */
	size_t wqe_len;
	struct hermon_mtt mtt;
	struct {
		uint8_t *wqe;
		unsigned num_wqes;       /* hardware ring incl. headroom (power of two) */
		uint32_t next;           /* producer counter */
		uint64_t doorbell_off;   /* in BAR2 */
	} send;
	struct {
		uint8_t *wqe;
		unsigned num_wqes;
		uint32_t next;
		uint32_t *doorbell;      /* receive doorbell record */
	} recv;
	uint8_t *mlx_hdr;        /* MLX QPs: one header slot per send WQE */
	unsigned mcast_groups;
	struct ib_qp *ibqp;      /* the IB core's object for it */
	struct hermon_qp *next_qp;
};

struct hermon_port {
	unsigned num;            /* 1-based */
	bool set, open;          /* SET_PORT done, INIT_PORT done */
	bool ib;                 /* QUERY_PORT says IB */
	uint8_t max_mtu, max_vl, vl_cap;
	unsigned log_max_pkey, log_max_gid;
	unsigned state_events, mgmt_events;
};

/* Bring-up progress: teardown undoes exactly what is set, in reverse order. */
enum hermon_stage {
	HERMON_STAGE_RESET = 0, HERMON_STAGE_FA_MAPPED, HERMON_STAGE_FW_RUNNING,
	HERMON_STAGE_ICM_AUX_MAPPED, HERMON_STAGE_ICM_MAPPED, HERMON_STAGE_HCA_INIT,
	HERMON_STAGE_MPT, HERMON_STAGE_EQ, HERMON_STAGE_RUNNING,
};

struct hermon {
	char name[40];           /* "hermon 0000:01:00.0" */
	struct pci_device *pci;
	struct mmio config;      /* BAR0 */
	struct mmio uar;         /* BAR2 */
	unsigned toggle;
	bool hcr_stuck;          /* a command timed out: the HCR is unusable until reset */
	bool quiet;              /* failures are expected (probing): the caller reports them */
	bool cmd_event;          /* set the HCR's e bit: the firmware also posts a command-done
				  * EQE (the self-test's EQ wrap; PRM "HCR") */
	bool catastrophic;       /* a catastrophic error event came: only a reset helps now */
	/* The last reset did not work: the HCA may still DMA into what it was given (firmware
	 * area, ICM, queues, mailboxes), so that memory is never freed; no OS may be started. */
	bool reset_failed;
	void *mbox_in, *mbox_out;
	uint8_t last_status;     /* of the last failed command */
	uint16_t last_opcode;

	/* firmware */
	uint16_t fw_major, fw_minor, fw_subminor, cmd_if_rev;
	unsigned fw_pages;
	uint64_t err_buf_offset;
	unsigned err_buf_size, err_buf_bar;
	struct hermon_area fa, aux, icm[HERMON_ICM_NUM_REGIONS];
	unsigned map_cmds;       /* MAP_FA + MAP_ICM_AUX + MAP_ICM commands issued */
	unsigned map_entries;    /* mapping entries they carried */

	struct hermon_caps caps;
	struct hermon_icm_plan plan;
	enum hermon_stage stage;

	/* memory protection: one region, local access only */
	unsigned mpt_index;
	uint32_t lkey;

	/* allocators, then the EQ: hermon_after_reset clears mtt_inuse .. eq in one go */
	uint8_t mtt_inuse[HERMON_MAX_MTTS / 8];
	uint8_t cq_inuse[(HERMON_MAX_CQS + 7) / 8];
	uint8_t qp_inuse[(HERMON_MAX_QPS + 7) / 8];
	uint8_t amgm_inuse[(1u << HERMON_LOG_MCG_TABLE) / 8];
	bool special_qp_used[4];

	struct hermon_eq eq;
	struct hermon_cq *cqs;
	struct hermon_qp *qp_table[HERMON_NUM_SPECIAL_QPS + HERMON_MAX_QPS];   /* by QPN - base */
	/* Queues the hardware would not give back (HW2SW/2RST failed): their memory may still be
	 * written by the HCA, so it is freed only after the next successful reset. */
	struct hermon_cq *orphan_cqs;
	struct hermon_qp *orphan_qps;
	struct hermon_port port[HERMON_MAX_PORTS];
	unsigned num_ports;

	/* The device as the IB core knows it (hermon_ib.c registers it; drv_priv points here). */
	struct ib_device ib;
	char ibname[24];
};

static inline struct hermon *hermon_of(struct ib_device *dev)
{
	return dev->drv_priv;
}

/* ---- hermon_cmd.c ---- */
const char *hermon_status_name(unsigned status);
const char *hermon_opcode_name(unsigned opcode);
/* The last failed command in words (timeout, PRM status, or rc): the console's and selftest's. */
void hermon_cmd_why(const struct hermon *h, int rc, char *buf, size_t len);

int hermon_cmd_query_fw(struct hermon *h, void *query_fw);
int hermon_cmd_query_dev_cap(struct hermon *h, void *dev_cap);
int hermon_cmd_map_fa(struct hermon *h, const void *vpm, unsigned count);
int hermon_cmd_unmap_fa(struct hermon *h);
int hermon_cmd_run_fw(struct hermon *h);
int hermon_cmd_set_icm_size(struct hermon *h, uint64_t icm_size, uint64_t *aux_pages);
int hermon_cmd_map_icm_aux(struct hermon *h, const void *vpm, unsigned count);
int hermon_cmd_unmap_icm_aux(struct hermon *h);
int hermon_cmd_map_icm(struct hermon *h, const void *vpm, unsigned count);
int hermon_cmd_unmap_icm(struct hermon *h, uint64_t icm_offset, uint32_t pages);
int hermon_cmd_init_hca(struct hermon *h, const void *init_hca);
int hermon_cmd_close_hca(struct hermon *h);
int hermon_cmd_sw2hw_mpt(struct hermon *h, unsigned index, const void *mpt);
int hermon_cmd_hw2sw_mpt(struct hermon *h, unsigned index);
int hermon_cmd_query_mpt(struct hermon *h, unsigned index, void *mpt);
int hermon_cmd_write_mtt(struct hermon *h, uint64_t mtt_base_addr, const uint64_t *pa,
			 unsigned count);
int hermon_cmd_sw2hw_eq(struct hermon *h, unsigned eqn, const void *eqc);
int hermon_cmd_hw2sw_eq(struct hermon *h, unsigned eqn, void *eqc);
int hermon_cmd_query_eq(struct hermon *h, unsigned eqn, void *eqc);
int hermon_cmd_map_eq(struct hermon *h, unsigned eqn, bool unmap, uint64_t event_mask);
int hermon_cmd_sw2hw_cq(struct hermon *h, unsigned cqn, const void *cqc);
int hermon_cmd_hw2sw_cq(struct hermon *h, unsigned cqn, void *cqc);
int hermon_cmd_query_cq(struct hermon *h, unsigned cqn, void *cqc);
int hermon_cmd_rst2init_qp(struct hermon *h, uint32_t qpn, const void *qpctx);
int hermon_cmd_init2rtr_qp(struct hermon *h, uint32_t qpn, const void *qpctx);
int hermon_cmd_rtr2rts_qp(struct hermon *h, uint32_t qpn, const void *qpctx);
int hermon_cmd_rts2rts_qp(struct hermon *h, uint32_t qpn, const void *qpctx);
int hermon_cmd_2rst_qp(struct hermon *h, uint32_t qpn);
int hermon_cmd_2err_qp(struct hermon *h, uint32_t qpn);
int hermon_cmd_query_qp(struct hermon *h, uint32_t qpn, void *qpctx);
int hermon_cmd_conf_special_qp(struct hermon *h, uint32_t base_qpn);
int hermon_cmd_mad_ifc(struct hermon *h, unsigned port, bool skip_keys, const void *mad_in,
		       void *mad_out);
int hermon_cmd_read_mcg(struct hermon *h, unsigned index, void *mcg);
int hermon_cmd_write_mcg(struct hermon *h, unsigned index, const void *mcg);
int hermon_cmd_mgid_hash(struct hermon *h, const uint8_t gid[16], unsigned *hash);
int hermon_cmd_init_port(struct hermon *h, unsigned port);
int hermon_cmd_close_port(struct hermon *h, unsigned port);
int hermon_cmd_set_port(struct hermon *h, unsigned port, const void *set_port_ib);
int hermon_cmd_query_port(struct hermon *h, unsigned port, void *query_port);
int hermon_cmd_sense_port(struct hermon *h, unsigned port, unsigned *type);
int hermon_cmd_nop(struct hermon *h);

/* ---- hermon_icm.c ---- */
int hermon_read_caps(struct hermon *h);
int hermon_start_firmware(struct hermon *h);
void hermon_stop_firmware(struct hermon *h);
int hermon_map_icm(struct hermon *h);
void hermon_unmap_icm(struct hermon *h);
void hermon_free_host_memory(struct hermon *h);   /* only after a reset */
/* Splits [pa, pa+len) at virtual va into naturally aligned power-of-two blocks and writes one
 * virtual_physical_mapping entry per block into `vpm` (room for max). Returns the count. */
int hermon_vpm_fill(uint64_t va, uint64_t pa, uint64_t len, void *vpm, unsigned max);

/* ---- hermon_mr.c ---- */
int hermon_setup_mpt(struct hermon *h);
void hermon_destroy_mpt(struct hermon *h);
void hermon_fill_mpt(void *mpt, uint32_t mem_key, uint32_t pd);
int hermon_alloc_mtt(struct hermon *h, const void *buf, size_t len, struct hermon_mtt *mtt);
void hermon_free_mtt(struct hermon *h, struct hermon_mtt *mtt);

/* ---- hermon_eq.c ---- */
int hermon_create_eq(struct hermon *h);
void hermon_destroy_eq(struct hermon *h);
/* The core's poll_eq op: up to max events decoded from the EQ into ev[]; returns how many. */
int hermon_poll_eq(struct ib_device *dev, struct ib_event *ev, unsigned max);

/* ---- hermon_cq.c ---- */
int hermon_create_cq(struct hermon *h, unsigned num_cqes, struct hermon_cq **out);
void hermon_destroy_cq(struct hermon *h, struct hermon_cq *cq);
void hermon_free_cq_memory(struct hermon *h, struct hermon_cq *cq);   /* after a reset only */
/* The core's poll_cq op: up to max CQEs decoded into wc[]; returns how many. */
int hermon_poll_cq(struct ib_device *dev, struct ib_cq *cq, struct ib_wc *wc, unsigned max);

/* ---- hermon_qp.c ---- */
/* The hardware QP for the core's ibqp (type, port, ring sizes, CQs, Q_Key), left in INIT. */
int hermon_create_qp(struct hermon *h, struct ib_qp *ibqp, struct hermon_qp **out);
/* INIT → RTR → RTS as needed, then the Q_Key (RTS2RTS). mtu: IBA enum; pkey_index into table. */
int hermon_modify_qp(struct hermon *h, struct hermon_qp *qp, uint32_t qkey, unsigned mtu,
		     unsigned pkey_index);
/* 0, or -EBUSY when the QP could not be moved to RESET (its rings wait for the reset). */
int hermon_destroy_qp(struct hermon *h, struct hermon_qp *qp);
void hermon_free_qp_memory(struct hermon_qp *qp);   /* after a reset only */
/* The core's post ops (fastpath). */
int hermon_post_send(struct ib_device *dev, struct ib_qp *qp, const struct ib_send_wr *wr);
int hermon_post_recv(struct ib_device *dev, struct ib_qp *qp, const struct ib_recv_wr *wr);
struct hermon_qp *hermon_find_qp(struct hermon *h, uint32_t qpn);

/* ---- hermon_mcast.c ---- */
int hermon_mcast_attach(struct hermon *h, struct hermon_qp *qp, const uint8_t gid[16]);
int hermon_mcast_detach(struct hermon *h, struct hermon_qp *qp, const uint8_t gid[16]);
/* Finds gid's entry along its hash chain (MGID_HASH, READ_MCG): 0 with *index when it lists qpn,
 * -ENOENT when it does not (or there is no entry), another error when a command failed. */
int hermon_mcg_lookup(struct hermon *h, const uint8_t gid[16], uint32_t qpn, uint8_t *mcg,
		      unsigned *index);

/* ---- hermon_port.c ---- */
int hermon_open_port(struct hermon *h, unsigned port);
void hermon_close_port(struct hermon *h, unsigned port);

/* ---- hermon.c ---- */
int hermon_reset(struct hermon *h);
int hermon_start(struct hermon *h);
/* Full quiesce: QPs to reset, CQs/EQ back, ports closed, CLOSE_HCA, unmap ICM/AUX/FA, reset.
 * Safe at any stage and idempotent: call it before handing the machine to an OS. */
void hermon_quiesce(struct hermon *h);
int hermon_init(struct hermon *h, struct pci_device *pci);
void hermon_fini(struct hermon *h);

/* ---- hermon_ib.c ---- */
/* Registers a brought-up HCA with the IB core (ports opened, read by local MAD). */
int hermon_ib_register(struct hermon *h);
/* Unregisters (the core destroys its QPs and CQs and closes the ports). */
void hermon_ib_unregister(struct hermon *h);

/* Calls fn for every registered Hermon device; returns how many. */
int hermon_for_each(void (*fn)(struct hermon *h, void *ctx), void *ctx);
/* "<cmd>: no Hermon HCA is registered ..."; returns -ENODEV. */
int hermon_none(const char *cmd);

/* ---- hermon_dump.c ---- */
struct fwdump_out;
/* The FWDUMP-format dump (fwdump.h): config header, HCR, catastrophic-error buffer, memory, every
 * queue's driver view and context, ports; to the console, or line by line to out. */
void hermon_dump(struct hermon *h);
void hermon_dump_to(struct hermon *h, const struct fwdump_out *out);

/* Messages carry the device name; errors say which step and what status. */
#define hermon_err(h, fmt, ...) kprintf("%s: " fmt "\n", (h)->name, ##__VA_ARGS__)
void hermon_kept(struct hermon *h, const char *what, unsigned num);
#define hermon_info(h, fmt, ...) kprintf("%s: " fmt "\n", (h)->name, ##__VA_ARGS__)

/* Small helpers. */
static inline unsigned hermon_fls(uint64_t x)   /* 1-based index of the highest set bit; 0 for 0 */
{
	return x ? 64u - (unsigned)__builtin_clzll(x) : 0;
}
static inline unsigned hermon_log2_roundup(uint64_t x)   /* smallest n with 2^n >= x */
{
	return x <= 1 ? 0 : hermon_fls(x - 1);
}
int hermon_bitmap_alloc(uint8_t *map, unsigned max, unsigned count);
void hermon_bitmap_free(uint8_t *map, unsigned first, unsigned count);

#endif

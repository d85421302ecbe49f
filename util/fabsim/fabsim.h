/* SPDX-License-Identifier: MIT */
/*
 * fabsim — a packet-level InfiniBand fabric in one process.
 *
 * The fabric is nodes (switches and "SM host" CAs hosted here) and HCA-port endpoints that attach
 * over a socket (fabsim_wire.h), joined by cables. Every packet is a whole IB packet
 * (LRH [+GRH] + BTH + DETH + payload + ICRC + VCRC); every hop checks both CRCs. Switches forward by
 * the LFT/MFT the subnet manager programmed, process directed-route SMPs (IBA 14.2.2) and answer
 * SMPs with their own SMA. The stock OpenSM and diags attach at an SM host through umad2sim, which
 * fabsim serves with the ibsim protocol (ibsim_server.c).
 */
#ifndef FABSIM_H
#define FABSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "pkt.h"

#define FABSIM_MAX_PKT 4608u      /* == FABSIM_WIRE_MAX_DATA */
#define FABSIM_MAX_SWITCH_PORTS 64
#define FABSIM_PKEYS 64           /* P_Key entries kept per port (PartitionCap) */
#define FABSIM_LFT_SIZE 0xC000    /* unicast LIDs 0..0xBFFF (IBA 14.2.5.10) */
#define FABSIM_MFT_SIZE 1024      /* multicast LIDs 0xC000..0xC3FF */
#define FABSIM_MFT_POSITIONS 4    /* 16 ports per position → up to 63 ports + port 0 */

/* PortInfo:PortState and PortPhysicalState values (IBA 14.2.5.6). */
enum { PORT_NOP = 0, PORT_DOWN = 1, PORT_INIT = 2, PORT_ARMED = 3, PORT_ACTIVE = 4 };
enum { PHYS_SLEEP = 1, PHYS_POLLING = 2, PHYS_DISABLED = 3, PHYS_LINKUP = 5 };

enum node_kind { NODE_SWITCH, NODE_SMHOST, NODE_HCAPORT };

struct node;
struct link;
struct hca_conn;

/* An endpoint at an hca-port that lives inside fabsim (the server node, sn_port.c) instead of
 * attaching over the HCA socket: what arrives at the port goes to packet(), cable changes to
 * link() (as a LINK message would tell a socket client); it sends with port_transmit. */
struct local_port {
	void *ctx;
	void (*packet)(void *ctx, const uint8_t *pkt, size_t len);
	void (*link)(void *ctx, bool up);
	bool linked;               /* link() was called once */
	bool last_link;            /* what it said last */
};

/* Fault knobs of one link (both directions). Probabilities are 0..1. */
struct fault_cfg {
	double loss, dup, reorder, corrupt;
	unsigned delay_ms;
};

struct link_counters {
	uint64_t sent, delivered, lost, duplicated, reordered, corrupted, delayed;
};

/* Per-port counters (what arrived and what was refused at this port). */
struct port_counters {
	uint64_t rx, tx, bad_crc, malformed, not_active, no_route, dr_dropped, unknown_qp;
	uint64_t host_dropped;     /* hca-port: the attached model's socket was full */
};

/* Everything a PortInfo describes that fabsim keeps for ports it owns (switch ports, SM host). */
struct port_info_state {
	uint64_t gid_prefix;
	uint16_t lid, smlid, mkey_lease;
	uint8_t lmc, smsl, subnet_timeout, state, phys, neighbor_mtu, oper_vls, vl_high_limit,
		hoq_life, link_down_default, width_enabled, speed_enabled, resp_time;
	bool client_rereg;
};

struct port {
	struct node *node;
	unsigned num;              /* 0 = switch management port */
	uint64_t guid;
	struct link *link;         /* the cable, or NULL */
	struct port_info_state pi;
	uint16_t pkeys[FABSIM_PKEYS];
	uint8_t sl2vl[8];          /* CA ports; switches keep theirs per (in, out) in the node */
	uint8_t vlarb[4][64];      /* VLArbitration blocks 1..4 (IBA 14.2.5.9) */
	uint8_t mlnx_ext[64];      /* MlnxExtPortInfo, stored verbatim */
	struct port_counters cnt;
	uint32_t psn;              /* next PSN for packets this port originates */
	bool is_sm;                /* an SM client set IsSM here (PortInfo:CapabilityMask bit 1) */
};

struct node {
	enum node_kind kind;
	char name[64];
	char desc[64];
	uint64_t guid;             /* node GUID (HCA port: the port GUID) */
	unsigned nports;
	struct port *ports;        /* [0..nports]; CA/HCA-port nodes leave [0] unused */
	/* switch */
	uint8_t *lft;              /* FABSIM_LFT_SIZE entries, 0xFF = no route */
	uint16_t (*mft)[FABSIM_MFT_POSITIONS]; /* FABSIM_MFT_SIZE port masks */
	uint8_t *sl2vl;            /* (nports+1)^2 tables of 8 bytes, index in*(nports+1)+out */
	uint16_t lft_top, mft_top;
	uint8_t lifetime, default_port, default_mc_primary, default_mc_not_primary;
	bool port_state_change;
	/* HCA port endpoint */
	struct hca_conn *hca;      /* the attached connection, or NULL */
	struct local_port *local;  /* or the endpoint inside fabsim, or NULL */
	unsigned hca_port_num;     /* the port's number on its HCA (from HELLO) */
	bool hca_reports_link;     /* HELLO said it will report its end's training */
	bool hca_trained;          /* ... and the last report said trained */
};

/* One queued packet on its way to a port (after a link's faults decided its fate). */
struct pkt_event {
	struct pkt_event *next;
	uint64_t due_ns;
	uint64_t seq;              /* FIFO order among equal due times */
	struct port *dst;
	bool wire;                 /* crossed a cable (false: loopback inside an SM host) */
	bool checked;              /* a switch sent these bytes after its own CRC check (or built
				    * them) and the cable did not corrupt them */
	size_t len;
	uint8_t data[];
};

struct link {
	unsigned index;
	struct port *end[2];
	bool admin_down;
	bool phys_up;              /* both ends present and not admin down */
	struct fault_cfg fault;
	struct link_counters cnt;
	uint64_t rng;
	struct pkt_event *held;    /* a packet held back to be reordered behind the next one */
};

struct fabric {
	struct node **nodes;
	unsigned nnodes;
	struct link **links;
	unsigned nlinks;
	uint64_t seed;
	struct fault_cfg global_fault; /* applied to links created later by the topology; see fault_set */
	struct pkt_event *queue;   /* sorted by (due_ns, seq) */
	struct pkt_event *queue_tail; /* its last event (valid while queue is not NULL) */
	struct pkt_event *spare;   /* recycled events (each holds FABSIM_MAX_PKT bytes) */
	struct pkt_event *current; /* the event fabric_run_queue is delivering (until taken) */
	unsigned nspare;
	uint64_t queue_seq;
	unsigned queued;           /* events in the queue */
	uint64_t overflow;         /* packets dropped because too many were in flight */
	FILE *pcap;
	unsigned verbose;
	uint64_t dropped_total;
};

/* ---- topology (topo.c) ---- */
int topo_load(struct fabric *f, const char *path, char *err, size_t errlen);
struct node *fabric_find_node(struct fabric *f, const char *name);
struct node *fabric_find_hca_port(struct fabric *f, uint64_t guid);
/* "sw1:3", "smhost", "smhost:1", "hca1": the port named. NULL if none. */
struct port *fabric_find_port(struct fabric *f, const char *spec);
void fabric_free(struct fabric *f);

/* ---- links and packet movement (fabric.c) ---- */
uint64_t fabsim_now_ns(void);
struct port *port_peer(const struct port *p);
bool port_present(const struct port *p);
/* The cable is there and the far end can train (what a LINK message to an HCA port says). */
bool cable_ok(const struct port *p);
void link_update(struct fabric *f, struct link *l);
void link_set_admin(struct fabric *f, struct link *l, bool down);
/* Transmit a whole packet out of port `from` onto its cable (faults apply); dropped if no cable. */
void port_transmit(struct fabric *f, struct port *from, const uint8_t *pkt, size_t len);
/* The same for bytes that arrived at a port and leave it unchanged (a switch's unicast forward):
 * the event that delivered them carries them on instead of a copy. */
void port_forward(struct fabric *f, struct port *from, const uint8_t *pkt, size_t len);
/* An event holding pkt for dst, owned by the caller (event_free): the event being delivered if
 * pkt is its data, else a copy; NULL when out of memory. */
struct pkt_event *fabric_keep_packet(struct fabric *f, struct port *dst, const uint8_t *pkt,
				     size_t len);
/* Deliver to the port itself without a cable (loopback at an SM host). */
void port_deliver_local(struct fabric *f, struct port *to, const uint8_t *pkt, size_t len);
/* Run due events; returns ms until the next one (-1 = none). */
int fabric_run_queue(struct fabric *f);
void fault_set(struct fabric *f, struct link *l, const struct fault_cfg *c);
/* Return an event to the fabric's spare list (or to the heap). */
void event_free(struct fabric *f, struct pkt_event *e);

/* ---- switch forwarding (switch.c) ---- */
void switch_receive(struct fabric *f, struct port *in, uint8_t *pkt, size_t len,
		    const struct pkt_hdrs *h);
void switch_send_trap128(struct fabric *f, struct node *sw);

/* ---- SMA for nodes fabsim owns (sma.c) ---- */
/* Process the SMP in `mad` (256 bytes, Get/Set) arriving at `at`; writes the response in place
 * (method, status, data) and returns true if a response should be sent. */
bool sma_process(struct fabric *f, struct port *at, uint8_t *mad);
void port_set_phys(struct fabric *f, struct port *p, bool up);
void port_info_encode(const struct port *p, unsigned local_port, uint8_t out[64]);
void node_info_encode(const struct node *n, unsigned local_port, uint8_t out[64]);

/* ---- SM host: ibsim server front end (ibsim_server.c) ---- */
int ibsim_server_open(struct fabric *f, const char *base, char *err, size_t errlen);
/* The abstract AF_UNIX address umad2sim uses: fmt (with base and n) after a leading NUL. */
socklen_t ibsim_abstract_addr(struct sockaddr_un *a, const char *fmt, const char *base, long n);
void ibsim_server_receive(struct fabric *f, struct port *at, uint8_t *pkt, size_t len,
			  const struct pkt_hdrs *h);
int ibsim_server_pollfds(struct pollfd *pfd, int max);
/* Bounce requests that got no response in time; returns ms until the next deadline (-1: none). */
int ibsim_server_expire(struct fabric *f);
void ibsim_server_handle(struct fabric *f, const struct pollfd *pfd, int n);
void ibsim_server_close(void);

/* ---- listening sockets on a path (listener.c) ---- */
struct listener {
	int fd;             /* -1 when not listening */
	char path[108];     /* removed again on close */
};
int listener_open(struct listener *l, const char *path, int backlog, const char *what, char *err,
		  size_t errlen);
void listener_close(struct listener *l);
int listener_pollfds(const struct listener *l, struct pollfd *pfd, int max, unsigned nconn);
int listener_accept(const struct listener *l, const struct pollfd *pfd);

/* ---- HCA port attachment (hca_server.c) ---- */
int hca_server_open(struct fabric *f, const char *path, char *err, size_t errlen);
/* Queues the packet for the port's connection; hca_server_flush sends what is queued. A port with
 * a local endpoint (struct local_port) gets it at once. */
void hca_server_deliver(struct fabric *f, struct node *hp, const uint8_t *pkt, size_t len);
void hca_server_flush(struct fabric *f);
void hca_server_link_changed(struct fabric *f, struct node *hp);
int hca_server_pollfds(struct pollfd *pfd, int max);
void hca_server_handle(struct fabric *f, const struct pollfd *pfd, int n);
void hca_server_close(struct fabric *f);

/* ---- the server node as a port inside fabsim (sn_port.c) ---- */
/* `--servernode ARGS...`: bin/fabsim-servernode's options but --socket (sn_bridge_parse). */
int sn_port_parse(int argc, char **argv);
/* After the topology: attach the node at its hca-port and open its TUN. 0 when not wanted. */
int sn_port_open(struct fabric *f, char *err, size_t errlen);
int sn_port_pollfds(struct pollfd *pfd, int max);
void sn_port_handle(const struct pollfd *pfd, int n);
int sn_port_tick(void);   /* ms until the node's next timer (-1: none) */
void sn_port_close(void);

/* ---- control socket (control.c) ---- */
int control_open(const char *path, char *err, size_t errlen);
/* Execute one command line; the reply (possibly several lines) goes to out. Returns 1 on "quit". */
int control_exec(struct fabric *f, const char *line, char *out, size_t outlen);
int control_pollfds(struct pollfd *pfd, int max);
int control_handle(struct fabric *f, const struct pollfd *pfd, int n);
void control_close(void);

/* ---- capture (pcap.c) ---- */
int pcap_open(struct fabric *f, const char *path, char *err, size_t errlen);
void pcap_write(struct fabric *f, const uint8_t *pkt, size_t len);

void fabsim_log(struct fabric *f, unsigned level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Every tunable of ibboot in one place: timeouts, retry counts, ring sizes, the port policy and the
 * script run at start. Each value says why it is what it is; change them here, not in the code
 * that uses them. Protocol constants (port numbers, header lengths, RFC limits) stay with their
 * protocol's header: they are not choices.
 */
#ifndef IBBOOT_CONFIG_H
#define IBBOOT_CONFIG_H

/* ---- start-up ---- */

/* The script run when no key is pressed and ibboot.cmd= is absent: what iPXE's autoboot does. */
#define SCRIPT_DEFAULT "#!ipxe\ndhcp && chain ${filename}\n"
/* A key within this long opens the console instead: 2 s, iPXE's "Press Ctrl-B" wait, long
 * enough to react to the banner, short enough not to slow an unattended boot. */
#define AUTOBOOT_WAIT_MS          2000
/* Trust policy (src/image/image.c): 1 = enforcing from the start, so nothing boots or runs unless
 * its SHA-256 was pinned before it was fetched; `make TRUST=enforce` sets it. 0 = permissive until
 * a script or the console says `imgtrust`. */
#ifndef TRUST_ENFORCE
#define TRUST_ENFORCE             0
#endif

/* ---- InfiniBand port policy (src/net/infiniband/ib_port.c) ---- */

/* OpenSM brings a fabric up within seconds; 30 s in INIT/ARMED means there is no SM, and the
 * console says so ("is OpenSM running?") rather than looking hung. */
#define IB_SM_WAIT_WARN_MS        30000u
#define IB_SM_PROGRESS_MS         30000u   /* then a "still waiting" line this often */
/* PortInfo re-read periods. ACTIVE: events report changes, this only catches a lost one.
 * INIT: the SM may finish any moment, so look every second. DOWN: a port without a cable costs
 * one local MAD per period and nothing happens until a cable appears. */
#define IB_QUERY_ACTIVE_MS        5000u
#define IB_QUERY_INIT_MS          1000u
#define IB_QUERY_DOWN_MS          2000u

/* ---- MADs and the SA client (src/net/infiniband/ib_mad.c, ib_sa.c) ---- */

/* The SA answers in microseconds when it is there; 0.5 s doubling over 5 sends (0.5 + 1 + 2 +
 * 4 + 8 s = 15.5 s) rides out an SM handover without hammering a busy SA (IBA 13.4.6.4 leaves
 * the policy to the client). */
#define IB_MAD_FIRST_TIMEOUT      500
#define IB_MAD_MAX_SENDS          5
/* A failed multicast join is tried again this often while the port stays ACTIVE (the group may
 * appear once the SM has created it). */
#define IB_SA_GROUP_RETRY_MS      5000
/* QP1 rings: at most IB_MAD_MAX_TXN transactions are outstanding, plus unsolicited traffic. */
#define IB_MAD_RECV_WQES          8
#define IB_MAD_SEND_WQES          8
#define IB_MAD_SEND_BUFS          8

/* ---- IPoIB (src/net/ipoib.c) ---- */

/* Receive buffers of 4 KiB per interface: a UD receive queue without a posted WQE drops the
 * datagram (UD has no receiver-not-ready flow control, unlike RC), so the ring covers the whole
 * TCP receive window (TCP_RCV_WND / 1992-byte segments = 264) plus other traffic: a peer may send
 * all of it in one burst, and the HCA delivers it faster than the CPU reposts. With 16, an HTTP
 * download lost a quarter of its segments to the empty ring (nginx's TcpRetransSegs 9413 of
 * 33693). 2 MiB of DMA memory. Send buffers: 16. */
#define IPOIB_RX_BUFS             512
#define IPOIB_TX_BUFS             16
#define IPOIB_NEIGHBOURS          16      /* a boot talks to a handful of hosts */
#define IPOIB_NEIGH_QUEUE         4       /* packets held per neighbour while ARP/path resolve */
/* Requests sent right after the join are often lost until the SM has programmed the switches'
 * multicast tables (~1-1.5 s under OpenSM in the e2e test): retry often, give up after 3 s. */
#define IPOIB_ARP_TRIES           6
#define IPOIB_ARP_RETRY_MS        500
/* Re-ARP a known neighbour this often: a rebooted peer has a new QPN (RFC 4391 §9.1.1). */
#define IPOIB_NEIGH_PROBE_MS      60000

/* ---- DHCP (src/net/dhcp.c) ---- */

/* iPXE's pacing: the first retransmission after 1 s, doubling to 8 s (RFC 2131 §4.1 asks for
 * 4 s doubling to 64 s, which is too slow for a boot), with ±25 % jitter; give up after 30 s. */
#define DHCP_FIRST_TIMEOUT_MS     1000u
#define DHCP_MAX_TIMEOUT_MS       8000u
#define DHCP_TOTAL_TIMEOUT_MS     30000u
#define DHCP_MAX_NAKS             3       /* restarts after a NAK before giving up */
#define DHCP_REPORT_MS            10000u  /* a progress line this often while waiting */
/* `dhcp` waits this long for the link first: joining the broadcast group takes a few seconds
 * after the port becomes ACTIVE, as long as the SM needs to program the switches. */
#define DHCP_LINK_WAIT_MS         30000u

/* ---- DNS (src/net/dns.c) ---- */

/* RFC 1536 §1: retransmit with back-off; 1 s doubling to 8 s as for DHCP, 6 queries over all
 * servers (about 30 s with one server) before giving up. */
#define DNS_FIRST_TIMEOUT_MS      1000u
#define DNS_MAX_TIMEOUT_MS        8000u
#define DNS_TRIES                 6

/* ---- TFTP (src/net/tftp.c) ---- */

/* RFC 1350 leaves the timeout open; 1 s doubling (to 8x) over 6 tries is what tftp-hpa and iPXE
 * do, and covers a server that is slow to open the file. */
#define TFTP_TIMEOUT_MS           1000u
#define TFTP_MAX_RETRIES          6

/* ---- TCP (src/net/tcp.c) ---- */

#define TCP_SYN_RETRIES           6       /* Linux's tcp_syn_retries */
#define TCP_DATA_RETRIES          10      /* RFC 1122 §4.2.3.5 R2: at least 100 s worth */
/* RFC 6298 §2.4 asks for a 1 s floor; §2.4 also allows less, and on a fabric the RTT is
 * microseconds: 200 ms (as Linux) keeps a lost segment from stalling a boot for seconds. */
#define TCP_RTO_MIN_MS            200u
#define TCP_RTO_MAX_MS            10000u
#define TCP_RTO_INITIAL_MS        1000u   /* RFC 6298 §2.1 */
/* TIME-WAIT: a client that never reuses the port pair right away need not wait 2 MSL. */
#define TCP_TIME_WAIT_MS          500u
/* Delayed ACK: RFC 9293 §3.8.6.3 allows up to 500 ms; 20 ms keeps the sender's window open on a
 * microsecond fabric. */
#define TCP_DELACK_MS             20u

/* ---- HTTP (src/net/http_client.c) ---- */

#define HTTP_IDLE_TIMEOUT_MS      30000u  /* nothing received this long: the server is gone */
#define HTTP_LINGER_MS            2000   /* waiting for the peer to finish the close */

/* ---- console commands ---- */

#define LINK_WAIT_PROGRESS_MS     10000u  /* "waiting for link" this often */

#endif

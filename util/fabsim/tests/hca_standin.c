/* SPDX-License-Identifier: MIT */
/*
 * hca-standin [--join] SOCKET NAME NODE_GUID NUM_PORTS
 *
 * An HCA stand-in for fabsim's tests: nothing but the HCA model's firmware SMA (util/hcasim/sma.c,
 * the same code libhcasim runs) behind fabsim's HCA socket. Each port attaches with the port GUID
 * the SMA reports for it; SMPs and PMA MADs arriving on QP0/QP1 are answered by
 * the SMA, LINK messages drive its port state machine. Everything else is counted and dropped.
 * Used where the whole model is not needed (or not ready): it proves that fabsim carries the SM's
 * packets to the HCA's own SMA and back. Runs until SIGTERM/SIGINT; prints one line per port.
 *
 * --join: once a port is Active, join the IPoIB broadcast group through the SA as Linux IPoIB does
 * (MCMemberRecord SubnAdmSet, ComponentMask MGID|PortGID|P_Key|JoinState, IBA 15.2.5.17) and print
 * the answer: an SA request and its response crossing the switch on QP1 by LID routing.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsim_client.h"
#include "hca_args.h"
#include "hcasim.h"
#include "sma.h"

#include <ibboot/wire/mad.h>

#include <ibboot/wire/packet.h>

#define MAX_PORTS 2
#define MAD_LEN 256

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

#define JOIN_TID 0x4a4f494e00000000ull   /* "JOIN" + port number */
#define JOIN_RETRIES 20

struct standin {
	struct hcasim_sma *sma;
	struct fabsim_client *port[MAX_PORTS];
	unsigned num_ports;
	uint32_t psn;
	bool join;
	unsigned join_sent[MAX_PORTS];
	bool joined[MAX_PORTS];
	const char *name;
	struct fabsim_msg msg;
};

static void send_mad(struct standin *s, unsigned port, uint16_t dlid, uint32_t dqp,
		     const uint8_t *mad)
{
	uint8_t out[512];
	struct iblib_lrh lrh = { .vl = dqp == 0 ? 15 : 0, .lnh = IBLIB_LNH_IBA_LOCAL, .dlid = dlid,
				 .slid = hcasim_sma_lid(s->sma, port) };
	struct iblib_bth bth = { .opcode = 0x64, .pkey = 0xffff, .dest_qp = dqp,
				 .psn = s->psn++ & 0xffffff };
	struct iblib_deth deth = { .qkey = dqp ? 0x80010000u : 0, .src_qp = dqp };
	int n = iblib_ud_build(out, sizeof(out), &lrh, NULL, &bth, &deth, mad, MAD_LEN);

	if (n > 0)
		fabsim_client_send_packet(s->port[port - 1], out, (size_t)n);
}

/* The broadcast-group join Linux IPoIB sends (ff12:401b:<P_Key>::ffff:ffff, full member). */
static void send_join(struct standin *s, unsigned port)
{
	uint8_t mad[MAD_LEN] = { 0 };
	struct iblib_mad_hdr h = { .base_version = 1, .mgmt_class = IBLIB_MCLASS_SUBN_ADM,
				   .class_version = IBLIB_SA_CLASS_VERSION, .method = IBLIB_METHOD_SET,
				   .tid = JOIN_TID | port, .attr_id = IBLIB_SA_ATTR_MCMEMBER_RECORD };
	struct iblib_sa_hdr sa = { .comp_mask = IBLIB_MCR_COMP_MGID | IBLIB_MCR_COMP_PORT_GID |
						IBLIB_MCR_COMP_PKEY | IBLIB_MCR_COMP_JOIN_STATE };
	struct iblib_mcmember_record r = { .pkey = 0xffff, .join_state = IBLIB_MCR_JOIN_FULL };
	static const uint8_t mgid[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
					  0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };

	memcpy(r.mgid.raw, mgid, 16);
	iblib_gid_make(&r.port_gid, hcasim_sma_gid_prefix(s->sma, port),
		       hcasim_sma_port_guid(s->sma, port));
	iblib_mad_hdr_put(mad, &h);
	iblib_sa_hdr_put(mad, &sa);
	iblib_mcmember_record_put(mad + IBLIB_SA_DATA_OFF, &r);
	send_mad(s, port, hcasim_sma_sm_lid(s->sma, port), 1, mad);
	s->join_sent[port - 1]++;
}

static void join_answer(struct standin *s, unsigned port, const uint8_t *mad)
{
	struct iblib_mad_hdr h;
	struct iblib_mcmember_record r;
	char mgid[64];

	iblib_mad_hdr_get(mad, &h);
	if (h.mgmt_class != IBLIB_MCLASS_SUBN_ADM || h.tid != (JOIN_TID | port) ||
	    s->joined[port - 1])
		return;
	iblib_mcmember_record_get(mad + IBLIB_SA_DATA_OFF, &r);
	snprintf(mgid, sizeof(mgid), "%02x%02x:%02x%02x:%02x%02x:...:%02x%02x:%02x%02x",
		 r.mgid.raw[0], r.mgid.raw[1], r.mgid.raw[2], r.mgid.raw[3], r.mgid.raw[4],
		 r.mgid.raw[5], r.mgid.raw[12], r.mgid.raw[13], r.mgid.raw[14], r.mgid.raw[15]);
	printf("hca-standin %s port %u join: status 0x%04x MGID %s Q_Key 0x%08x MLID 0x%04x "
	       "MTU 0x%02x P_Key 0x%04x\n", s->name, port, h.status, mgid, r.qkey, r.mlid,
	       r.mtu_selector << 6 | r.mtu, r.pkey);
	fflush(stdout);
	s->joined[port - 1] = h.status == 0;
}

static void join_step(struct standin *s)
{
	for (unsigned p = 1; p <= s->num_ports; p++)
		if (s->join && s->port[p - 1] && !s->joined[p - 1] &&
		    s->join_sent[p - 1] < JOIN_RETRIES && hcasim_sma_port_state(s->sma, p) == 4 &&
		    hcasim_sma_sm_lid(s->sma, p))
			send_join(s, p);
}

/* Answer one packet that arrived at `port` (1-based). */
static void packet_in(struct standin *s, unsigned port, const uint8_t *buf, size_t len)
{
	struct iblib_pkt p;
	uint8_t resp[MAD_LEN], out[512];
	unsigned events = 0;
	int r = iblib_pkt_parse(buf, len, &p, 0);

	if (r < 0) {
		fprintf(stderr, "hca-standin: port %u: dropped a packet: %s\n", port, iblib_strerror(r));
		return;
	}
	if (!(p.ext & IBLIB_EXT_DETH) || p.bth.dest_qp > 1 || p.payload_len < MAD_LEN)
		return;                                    /* only the special QPs live here */
	if (hcasim_sma_for_driver(buf + p.payload_off)) {
		if (p.bth.dest_qp == 1 && iblib_mad_is_response(buf + p.payload_off))
			join_answer(s, port, buf + p.payload_off);
		return;                                    /* SMInfo, traps: no driver here */
	}
	r = hcasim_sma_mad(s->sma, port, buf + p.payload_off, resp, 0, &events);
	if (r != 1)
		return;
	{
		bool dr = p.lrh.dlid == 0xffff;
		struct iblib_lrh lrh = { .vl = p.lrh.vl, .lnh = IBLIB_LNH_IBA_LOCAL,
					 .dlid = dr ? 0xffff : p.lrh.slid,
					 .slid = dr ? 0xffff : hcasim_sma_lid(s->sma, port) };
		struct iblib_bth bth = { .opcode = 0x64, .pkey = p.bth.pkey,
					 .dest_qp = p.deth.src_qp, .psn = s->psn++ & 0xffffff };
		struct iblib_deth deth = { .qkey = p.bth.dest_qp ? 0x80010000u : 0,
					   .src_qp = p.bth.dest_qp };
		int n = iblib_ud_build(out, sizeof(out), &lrh, NULL, &bth, &deth, resp, MAD_LEN);

		if (n > 0)
			fabsim_client_send_packet(s->port[port - 1], out, (size_t)n);
	}
}

int main(int argc, char **argv)
{
	struct standin s = { 0 };
	struct hcasim_config cfg = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned attached = 0;

	struct hca_args a;
	int st = hca_args_parse(argc, argv, "hca-standin", MAX_PORTS, &a, &cfg);

	if (st)
		return st;
	s.join = a.join;
	s.name = a.name;
	s.num_ports = cfg.num_ports;
	s.sma = hcasim_sma_create(&cfg);
	if (!s.sma) {
		fprintf(stderr, "hca-standin: hcasim_sma_create failed\n");
		return 1;
	}
	for (unsigned i = 0; i < s.num_ports; i++) {
		char err[256];
		uint64_t guid = hcasim_sma_port_guid(s.sma, i + 1);

		s.port[i] = fabsim_client_connect(a.socket, guid, i + 1, a.name, err, sizeof(err));
		printf("hca-standin %s port %u GUID 0x%016" PRIx64 ": %s\n", a.name, i + 1, guid,
		       s.port[i] ? "attached" : err);
		attached += s.port[i] != NULL;
	}
	fflush(stdout);
	if (!attached) {
		hcasim_sma_destroy(s.sma);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!stop) {
		struct pollfd pfd[MAX_PORTS];
		unsigned idx[MAX_PORTS], n = 0;

		for (unsigned i = 0; i < s.num_ports; i++)
			if (s.port[i]) {
				pfd[n] = (struct pollfd){ .fd = fabsim_client_fd(s.port[i]),
							  .events = POLLIN };
				idx[n++] = i;
			}
		/* While a join is outstanding, look again every 200 ms (port state, retries). */
		if (n == 0 || (poll(pfd, n, s.join ? 200 : -1) < 0 && errno != EINTR))
			break;
		join_step(&s);
		for (unsigned k = 0; k < n; k++) {
			unsigned i = idx[k];
			int r;

			if (!pfd[k].revents)
				continue;
			while ((r = fabsim_client_recv(s.port[i], &s.msg)) == 1) {
				if (s.msg.type == FABSIM_MSG_LINK)
					hcasim_sma_set_link(s.sma, i + 1, s.msg.flags == FABSIM_LINK_UP);
				else
					packet_in(&s, i + 1, s.msg.data, s.msg.len);
			}
			if (r < 0) {
				fprintf(stderr, "hca-standin: port %u: fabsim went away (%s)\n", i + 1,
					strerror(-r));
				fabsim_client_close(s.port[i]);
				s.port[i] = NULL;
			}
		}
	}
	for (unsigned i = 0; i < s.num_ports; i++)
		fabsim_client_close(s.port[i]);
	hcasim_sma_destroy(s.sma);
	return 0;
}

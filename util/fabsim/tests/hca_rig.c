/* SPDX-License-Identifier: MIT */
/*
 * hca-rig [--join] SOCKET NAME NODE_GUID NUM_PORTS
 *
 * One whole HCA model (libhcasim) on fabsim: util/hcasim/tests/rawhost plays a driver-less host
 * (guest memory, HCR commands) and brings the device up by raw commands to INIT_HCA, then attaches
 * its ports to fabsim with hca_attach, then INIT_PORT. From then on the model's own firmware SMA
 * answers the SM. Port p's GUID is NODE_GUID + p. Runs until SIGTERM/SIGINT.
 *
 * rawhost keeps the packets the model emits in a ring (rh.pkts); the rig forwards each new one to
 * fabsim after every call into the model, and counts any it was too slow to see. It also reports
 * the model's own link training (rh.link_up, from ops->link_change) to fabsim, so the switch port
 * stays Down until the model's port is initialised (HCA_ATTACH_REPORTS_LINK).
 *
 * --join: once the first cabled port is Active (PortInfo read through MAD_IFC), send the IPoIB
 * broadcast-group join (MCMemberRecord SubnAdmSet) to the SA from a UD QP of the model, and print
 * the answer received on that QP: the model's datapath, fabsim's switch and OpenSM's SA together.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hca_args.h"
#include "hca_attach.h"
#include "rawhost.h"

#include <ibboot/wire/mad.h>
#include <ibboot/wire/bytes.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct rig {
	struct rawhost rh;
	struct hca_attach *att;
	unsigned seen;          /* packets of rh.pkts already forwarded */
	unsigned long missed;
	bool reported[3];       /* link state last reported to fabsim, per port */
	unsigned num_ports;
	/* --join */
	bool join, joined;
	unsigned join_port, join_tries;
	uint64_t join_guid;
	uint64_t next_try;
	struct rawhost_cq cq;
	struct rawhost_qp qp;
	uint64_t sbuf, rbuf;
	const char *name;
};

#define JOIN_QPN 0x100
#define JOIN_CQN 130
#define GSI_QKEY 0x80010000u
#define JOIN_TID 0x4a4f494e00000001ull

static int join_setup(struct rig *r)
{
	struct rawhost_qp_attr a = { .st = 3, .port = r->join_port, .log_sq = 3, .log_rq = 3,
				     .qkey = GSI_QKEY, .cqn_snd = JOIN_CQN, .cqn_rcv = JOIN_CQN };
	int st;

	if ((st = rawhost_create_cq(&r->rh, &r->cq, JOIN_CQN, 4)) ||
	    (st = rawhost_create_qp(&r->rh, &r->qp, JOIN_QPN, &a)))
		return st;
	r->sbuf = rawhost_alloc(&r->rh, 4096, 4096);
	r->rbuf = rawhost_alloc(&r->rh, 4096, 4096);
	rawhost_post_recv(&r->rh, &r->qp, r->rbuf, 40 + 256, 0);
	return 0;
}

/* PortInfo of the join port through MAD_IFC: state, LID, SM LID. */
static bool port_active(struct rig *r, uint16_t *lid, uint16_t *smlid)
{
	uint8_t mad[256] = { 0 }, resp[256];
	struct iblib_mad_hdr h = { .base_version = 1, .mgmt_class = IBLIB_MCLASS_SUBN_LID,
				   .class_version = 1, .method = IBLIB_METHOD_GET, .tid = 1,
				   .attr_id = 0x0015, .attr_mod = r->join_port };

	iblib_mad_hdr_put(mad, &h);
	if (rawhost_mad_ifc(&r->rh, r->join_port, mad, resp))
		return false;
	*lid = get_be16(resp + 64 + 16);
	*smlid = get_be16(resp + 64 + 18);
	return (resp[64 + 32] & 0xf) == 4 && *smlid;
}

static void join_send(struct rig *r, uint16_t smlid)
{
	uint8_t *mad = rawhost_ptr(&r->rh, r->sbuf);
	struct iblib_mad_hdr h = { .base_version = 1, .mgmt_class = IBLIB_MCLASS_SUBN_ADM,
				   .class_version = IBLIB_SA_CLASS_VERSION, .method = IBLIB_METHOD_SET,
				   .tid = JOIN_TID, .attr_id = IBLIB_SA_ATTR_MCMEMBER_RECORD };
	struct iblib_sa_hdr sa = { .comp_mask = IBLIB_MCR_COMP_MGID | IBLIB_MCR_COMP_PORT_GID |
						IBLIB_MCR_COMP_PKEY | IBLIB_MCR_COMP_JOIN_STATE };
	struct iblib_mcmember_record m = { .pkey = 0xffff, .join_state = IBLIB_MCR_JOIN_FULL };
	struct rawhost_ud_dest d = { .dlid = smlid, .dqpn = 1, .qkey = GSI_QKEY };
	static const uint8_t mgid[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
					  0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };

	memset(mad, 0, 256);
	memcpy(m.mgid.raw, mgid, 16);
	iblib_gid_make(&m.port_gid, 0xfe80000000000000ull, r->join_guid);
	iblib_mad_hdr_put(mad, &h);
	iblib_sa_hdr_put(mad, &sa);
	iblib_mcmember_record_put(mad + IBLIB_SA_DATA_OFF, &m);
	rawhost_post_ud(&r->rh, &r->qp, &d, r->sbuf, 256, 0);
	r->join_tries++;
}

/* A completion on the join QP: print the SA's answer when it is one. */
static void join_poll(struct rig *r)
{
	uint8_t cqe[32];

	while (rawhost_poll_cq(&r->rh, &r->cq, cqe) > 0) {
		const uint8_t *mad = (const uint8_t *)rawhost_ptr(&r->rh, r->rbuf) + 40;
		struct iblib_mad_hdr h;
		struct iblib_mcmember_record m;

		(void)cqe;   /* send and receive completions alike: the receive buffer tells */
		iblib_mad_hdr_get(mad, &h);
		if (r->joined || h.mgmt_class != IBLIB_MCLASS_SUBN_ADM || h.tid != JOIN_TID ||
		    !(h.method & IBLIB_METHOD_RESP))
			continue;
		iblib_mcmember_record_get(mad + IBLIB_SA_DATA_OFF, &m);
		printf("hca-rig %s port %u join: status 0x%04x MGID %02x%02x:%02x%02x:%02x%02x:...:"
		       "%02x%02x:%02x%02x Q_Key 0x%08x MLID 0x%04x MTU 0x%02x P_Key 0x%04x\n",
		       r->name, r->join_port, h.status, m.mgid.raw[0], m.mgid.raw[1], m.mgid.raw[2],
		       m.mgid.raw[3], m.mgid.raw[4], m.mgid.raw[5], m.mgid.raw[12], m.mgid.raw[13],
		       m.mgid.raw[14], m.mgid.raw[15], m.qkey, m.mlid, m.mtu_selector << 6 | m.mtu,
		       m.pkey);
		fflush(stdout);
		r->joined = h.status == 0;
		rawhost_post_recv(&r->rh, &r->qp, r->rbuf, 40 + 256, 0);
	}
}

static void join_step(struct rig *r, uint64_t now)
{
	uint16_t lid, smlid;

	if (!r->join || r->joined || r->join_tries >= 20 || now < r->next_try)
		return;
	r->next_try = now + 250000000ull;
	if (port_active(r, &lid, &smlid))
		join_send(r, smlid);
}

static void forward_new_packets(struct rig *r)
{
	for (unsigned p = 1; p <= r->num_ports; p++)
		if (r->rh.link_up[p] != r->reported[p]) {
			r->reported[p] = r->rh.link_up[p];
			hca_attach_link_change(r->att, p, r->reported[p]);
		}
	if (r->rh.npkts - r->seen > RAWHOST_MAX_PKTS) {
		r->missed += r->rh.npkts - r->seen - RAWHOST_MAX_PKTS;
		r->seen = r->rh.npkts - RAWHOST_MAX_PKTS;
	}
	for (; r->seen != r->rh.npkts; r->seen++) {
		struct rawhost_pkt *p = &r->rh.pkts[r->seen % RAWHOST_MAX_PKTS];

		hca_attach_packet_out(r->att, p->port, p->data, p->len);
	}
}

int main(int argc, char **argv)
{
	static struct rig r;
	struct hcasim_config cfg = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t guids[HCA_ATTACH_MAX_PORTS], last;
	char err[256];
	struct hca_args a;
	int st;

	if ((st = hca_args_parse(argc, argv, "hca-rig", HCA_ATTACH_MAX_PORTS, &a, &cfg)))
		return st;
	r.join = a.join;
	r.name = a.name;
	for (unsigned i = 0; i < cfg.num_ports; i++)
		guids[i] = cfg.port_guid[i] = cfg.node_guid + i + 1;
	if (rawhost_init(&r.rh, &cfg) < 0) {
		fprintf(stderr, "hca-rig: the model could not be created\n");
		return 1;
	}
	st = rawhost_bringup_hca(&r.rh);
	if (st) {
		fprintf(stderr, "hca-rig: bring-up to INIT_HCA failed, HCR status 0x%x (%s)\n", st,
			r.rh.last_log);
		rawhost_fini(&r.rh);
		return 1;
	}
	r.num_ports = cfg.num_ports;
	r.att = hca_attach_open_flags(r.rh.h, a.socket, cfg.num_ports, guids, a.name,
				      HCA_ATTACH_REPORTS_LINK, err, sizeof(err));
	if (!r.att) {
		fprintf(stderr, "hca-rig: %s\n", err);
		rawhost_fini(&r.rh);
		return 1;
	}
	for (unsigned p = 1; p <= cfg.num_ports; p++) {
		const char *why;
		bool ok = hca_attach_port_status(r.att, p, &why);

		printf("hca-rig %s port %u GUID 0x%016" PRIx64 ": %s\n", a.name, p, guids[p - 1],
		       ok ? "attached" : why);
	}
	hca_attach_poll(r.att);           /* the LINK messages that follow the ACKs */
	st = rawhost_bringup_rest(&r.rh);
	if (st) {
		fprintf(stderr, "hca-rig: bring-up to INIT_PORT failed, HCR status 0x%x (%s)\n", st,
			r.rh.last_log);
		hca_attach_close(r.att);
		rawhost_fini(&r.rh);
		return 1;
	}
	forward_new_packets(&r);
	for (unsigned p = 1; r.join && p <= cfg.num_ports; p++)
		if (hca_attach_port_status(r.att, p, NULL) && !r.join_port) {
			r.join_port = p;
			r.join_guid = guids[p - 1];
		}
	if (r.join && (!r.join_port || (st = join_setup(&r)))) {
		fprintf(stderr, "hca-rig: no port for the join, or its QP failed (HCR status 0x%x)\n",
			r.join_port ? st : 0);
		r.join = false;
	}
	printf("hca-rig %s: INIT_PORT done\n", a.name);
	fflush(stdout);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	last = mono_ns();
	while (!stop) {
		struct pollfd pfd[HCA_ATTACH_MAX_PORTS];
		int n = hca_attach_pollfds(r.att, pfd, HCA_ATTACH_MAX_PORTS);
		uint64_t now;

		if (n == 0)
			break;
		if (poll(pfd, (nfds_t)n, 1) < 0 && errno != EINTR)
			break;
		/* One message at a time: whatever the model answers is forwarded before the next. */
		while ((n = hca_attach_poll_max(r.att, 1)) > 0)
			forward_new_packets(&r);
		if (n < 0)
			fprintf(stderr, "hca-rig %s: a port lost fabsim\n", a.name);
		/* The model's clock follows real time; it only ever sees it through now_ns. */
		now = mono_ns();
		r.rh.now += now - last;
		last = now;
		while (hcasim_step(r.rh.h))
			forward_new_packets(&r);
		forward_new_packets(&r);
		if (r.join) {
			join_poll(&r);
			join_step(&r, now);
			while (hcasim_step(r.rh.h))
				forward_new_packets(&r);
			forward_new_packets(&r);
		}
	}
	if (r.missed)
		fprintf(stderr, "hca-rig %s: %lu packets left the model faster than forwarded\n",
			a.name, r.missed);
	hca_attach_close(r.att);
	rawhost_fini(&r.rh);
	return 0;
}

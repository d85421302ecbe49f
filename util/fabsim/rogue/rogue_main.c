/* SPDX-License-Identifier: MIT */
/*
 * fabsim-rogue — a hostile CA port on fabsim for tests: it attaches like any node (the SM brings
 * it up through the firmware SMA library, so it has a LID of its own) and floods a victim port's
 * QP1 with forged SA answers (SubnAdmGetResp, IBA 15.2.5) whose PathRecords point at the rogue's
 * LID and whose MCMemberRecords name a multicast group and Q_Key of its choosing.
 *
 * What it forges, for every SA request of the victim it sees (fabsim's FABSIM_TEST_MIRROR_SA
 * knob mirrors SA requests to the rogue's switch port, so it knows the request's TID):
 *   own-lid     the request's TID, SLID = the rogue's LID, source QP 1
 *   spoofed-sm  the request's TID, SLID = the SM's LID (the fabric does not check source LIDs),
 *               source QP ROGUE_SPOOF_QP (not 1)
 *   wrong-tid   TIDs next to the request's (±1..±ROGUE_TID_WINDOW), from the rogue's LID
 * and, every --flood-ms once it knows the victim's LID, one PathRecord and one MCMemberRecord
 * answer with random TIDs (flood). A requester that matches answers by TID only takes own-lid;
 * one that also checks the source LID takes spoofed-sm unless it checks the source QP too.
 * It never forges an answer with SLID = SM LID *and* source QP 1: with the TID known, nothing in
 * the answer would tell it from the SA's own (see util/fabsim/rogue/README.md).
 *
 * The rogue also counts datagrams that reach it on QPs other than 0 and 1 (data a victim sent
 * along a forged path: "misdirected"). Counters are printed when it stops (SIGTERM/SIGINT).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ibboot/byteorder.h>
#include <ibboot/wire/mad.h>

#include "fabsim_client.h"
#include "sn_sma.h"
#include "ud_pkt.h"

#define ROGUE_SPOOF_QP 0x49u
#define ROGUE_TID_WINDOW 8u
#define ROGUE_FORGED_MLID 0xC0DEu
#define ROGUE_FORGED_QKEY 0x0BADF00Du
#define DATA_VL 0u

struct rogue {
	struct fabsim_client *fab;
	struct sn_sma *sma;
	uint64_t victim_guid;
	uint16_t victim_lid;
	uint16_t victim_pkey;
	uint8_t victim_gid[16], mgid[16], path_dgid[16];
	bool have_mgid, have_path;
	bool link_up;
	uint32_t psn;
	uint64_t rng;
	unsigned flood_ms;
	bool announced;
	struct {
		uint64_t mirrored, mirrored_path, mirrored_mcmember, own_lid, spoofed_sm, wrong_tid,
			flood, misdirected, smps, send_errors;
	} st;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) { stop_signal = sig; }

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t rng_next(struct rogue *r)
{
	/* xorshift64*: test traffic, not secrets. */
	r->rng ^= r->rng >> 12;
	r->rng ^= r->rng << 25;
	r->rng ^= r->rng >> 27;
	return r->rng * 0x2545F4914F6CDD1Dull;
}

static void send_ud(struct rogue *r, uint8_t vl, uint8_t sl, uint16_t dlid, uint16_t slid,
		    uint16_t pkey, uint32_t dqpn, uint32_t qkey, uint32_t sqpn, const uint8_t *payload,
		    size_t len)
{
	uint8_t buf[UD_MAX_PKT];
	struct ud_pkt p = {
		.vl = vl, .sl = sl, .dlid = dlid, .slid = slid, .pkey = pkey, .dqpn = dqpn,
		.psn = r->psn++ & 0xFFFFFF, .qkey = qkey, .sqpn = sqpn, .payload = payload,
		.payload_len = len,
	};
	size_t n = ud_pkt_build(buf, sizeof(buf), &p);

	if (!n || fabsim_client_send_packet(r->fab, buf, n) < 0)
		r->st.send_errors++;
}

/* IBA 13.4.5: a response carries the request's method with the R bit; Set is answered by
 * GetResp. */
static uint8_t response_method(uint8_t m)
{
	return m == IBLIB_METHOD_SET ? IBLIB_METHOD_GET_RESP : (uint8_t)(m | IBLIB_METHOD_RESP);
}

/* A plausible answer to `req` (a PathRecord or MCMemberRecord request, 256 bytes) with `tid`:
 * status 0, the request's record with the rogue's values in it. */
static void forge_answer(struct rogue *r, const uint8_t *req, uint64_t tid, uint8_t out[256])
{
	struct sn_port_state ps;
	uint16_t attr = get_be16(req + 16);

	sn_sma_state(r->sma, &ps);
	memcpy(out, req, 256);
	out[3] = response_method(req[3]);
	put_be16(out + 4, 0);                     /* status: success */
	put_be64(out + 8, tid);
	memset(out + IBLIB_SA_DATA_OFF, 0, IBLIB_SA_DATA_BYTES);
	if (attr == IBLIB_SA_ATTR_PATH_RECORD) {
		struct iblib_path_record pr;

		iblib_path_record_get(req + IBLIB_SA_DATA_OFF, &pr);
		pr.dlid = ps.lid;                 /* "the destination is here" */
		pr.slid = r->victim_lid;
		pr.reversible = true;
		pr.numb_path = 1;
		pr.pkey = r->victim_pkey;
		pr.sl = 0;
		pr.mtu_selector = IBLIB_SEL_EXACTLY;
		pr.mtu = 4;                       /* 2048 */
		pr.rate_selector = IBLIB_SEL_EXACTLY;
		pr.rate = 7;
		pr.pkt_life_selector = IBLIB_SEL_EXACTLY;
		pr.pkt_life = 18;
		iblib_path_record_put(out + IBLIB_SA_DATA_OFF, &pr);
	} else {
		struct iblib_mcmember_record mr;

		iblib_mcmember_record_get(req + IBLIB_SA_DATA_OFF, &mr);
		mr.mlid = ROGUE_FORGED_MLID;
		mr.qkey = ROGUE_FORGED_QKEY;
		mr.mtu_selector = IBLIB_SEL_EXACTLY;
		mr.mtu = 4;
		mr.rate_selector = IBLIB_SEL_EXACTLY;
		mr.rate = 7;
		mr.pkt_life_selector = IBLIB_SEL_EXACTLY;
		mr.pkt_life = 18;
		mr.sl = 0;
		mr.scope = 2;
		if (!mr.join_state)
			mr.join_state = IBLIB_MCR_JOIN_FULL;
		if (!mr.pkey)
			mr.pkey = r->victim_pkey;
		iblib_mcmember_record_put(out + IBLIB_SA_DATA_OFF, &mr);
	}
}

static void send_answer(struct rogue *r, const uint8_t *req, uint64_t tid, uint16_t slid,
			uint32_t sqpn)
{
	uint8_t mad[256];

	forge_answer(r, req, tid, mad);
	send_ud(r, DATA_VL, 0, r->victim_lid, slid, r->victim_pkey, 1, UD_QP1_QKEY, sqpn, mad,
		sizeof(mad));
}

/* The port GUID an SA request names as its requester: PathRecord SGID, MCMemberRecord PortGID. */
static uint64_t requester_guid(const uint8_t *mad, uint16_t attr)
{
	const uint8_t *rec = mad + IBLIB_SA_DATA_OFF;

	return get_be64(rec + (attr == IBLIB_SA_ATTR_PATH_RECORD ? 24 + 8 : 16 + 8));
}

static void mirrored_request(struct rogue *r, const struct ud_pkt *p)
{
	struct sn_port_state ps;
	const uint8_t *mad = p->payload;
	uint16_t attr;
	uint64_t tid;

	if (p->payload_len < 256 || mad[1] != IBLIB_MCLASS_SUBN_ADM || iblib_mad_is_response(mad))
		return;
	attr = get_be16(mad + 16);
	if (attr != IBLIB_SA_ATTR_PATH_RECORD && attr != IBLIB_SA_ATTR_MCMEMBER_RECORD)
		return;
	if (requester_guid(mad, attr) != r->victim_guid)
		return;   /* only the victim's requests: the server node must keep working */
	sn_sma_state(r->sma, &ps);
	if (ps.port_state != SN_PORT_ACTIVE)
		return;
	if (!r->victim_lid || r->victim_lid != p->slid)
		fprintf(stderr, "rogue: victim GUID 0x%016" PRIx64 " is LID 0x%04x; SM LID 0x%04x, "
			"rogue LID 0x%04x\n", r->victim_guid, p->slid, ps.sm_lid, ps.lid);
	r->victim_lid = p->slid;
	r->victim_pkey = p->pkey;
	if (attr == IBLIB_SA_ATTR_PATH_RECORD) {
		r->st.mirrored_path++;
		memcpy(r->path_dgid, mad + IBLIB_SA_DATA_OFF + 8, 16);
		r->have_path = true;
	} else {
		r->st.mirrored_mcmember++;
		memcpy(r->mgid, mad + IBLIB_SA_DATA_OFF, 16);
		r->have_mgid = true;
	}
	memcpy(r->victim_gid, mad + IBLIB_SA_DATA_OFF + (attr == IBLIB_SA_ATTR_PATH_RECORD ? 24 : 16),
	       16);
	r->st.mirrored++;
	tid = get_be64(mad + 8);
	fprintf(stderr, "rogue: %s request TID 0x%016" PRIx64 " (method 0x%02x) from LID 0x%04x: "
		"forging answers\n", attr == IBLIB_SA_ATTR_PATH_RECORD ? "PathRecord" : "MCMemberRecord",
		tid, mad[3], p->slid);
	/* Spoofed SM LID first, then the rogue's own: each reaches the victim before the SA's own
	 * answer, which has a round trip through OpenSM to make. */
	send_answer(r, mad, tid, ps.sm_lid, ROGUE_SPOOF_QP);
	r->st.spoofed_sm++;
	send_answer(r, mad, tid, ps.lid, 1);
	r->st.own_lid++;
	for (unsigned d = 1; d <= ROGUE_TID_WINDOW; d++) {
		send_answer(r, mad, tid + d, ps.lid, 1);
		send_answer(r, mad, tid - d, ps.lid, 1);
		r->st.wrong_tid += 2;
	}
}

/* Unsolicited answers with random TIDs: what a rogue that sees nothing can do. */
static void flood(struct rogue *r)
{
	struct sn_port_state ps;
	uint8_t req[256];

	sn_sma_state(r->sma, &ps);
	if (!r->victim_lid || ps.port_state != SN_PORT_ACTIVE)
		return;
	memset(req, 0, sizeof(req));
	req[0] = IBLIB_MAD_BASE_VERSION;
	req[1] = IBLIB_MCLASS_SUBN_ADM;
	req[2] = IBLIB_SA_CLASS_VERSION;
	req[3] = IBLIB_METHOD_GET;
	put_be16(req + 16, IBLIB_SA_ATTR_PATH_RECORD);
	memcpy(req + IBLIB_SA_DATA_OFF + 8, r->path_dgid, 16);
	memcpy(req + IBLIB_SA_DATA_OFF + 24, r->victim_gid, 16);
	send_answer(r, req, rng_next(r), ps.lid, 1);
	put_be16(req + 16, IBLIB_SA_ATTR_MCMEMBER_RECORD);
	req[3] = IBLIB_METHOD_SET;
	memset(req + IBLIB_SA_DATA_OFF, 0, IBLIB_SA_DATA_BYTES);
	memcpy(req + IBLIB_SA_DATA_OFF, r->mgid, 16);
	memcpy(req + IBLIB_SA_DATA_OFF + 16, r->victim_gid, 16);
	send_answer(r, req, rng_next(r), ps.lid, 1);
	r->st.flood += 2;
}

static void packet_in(struct rogue *r, const uint8_t *pkt, size_t len)
{
	struct sn_port_state ps;
	struct ud_pkt p;
	const char *why;
	uint8_t resp[256];
	bool rereg = false;

	if (ud_pkt_parse(pkt, len, &p, &why) < 0)
		return;
	sn_sma_count(r->sma, false, len);
	if (p.dqpn == 0) {
		if (p.vl != 15 || !sn_sma_mad(r->sma, p.payload, p.payload_len, resp, &rereg))
			return;
		r->st.smps++;
		sn_sma_state(r->sma, &ps);
		send_ud(r, 15, p.sl, p.slid, p.dlid == UD_LID_PERMISSIVE ? UD_LID_PERMISSIVE : ps.lid,
			0xFFFF, p.sqpn, 0, 0, resp, sizeof(resp));
		if (!r->announced && ps.port_state == SN_PORT_ACTIVE) {
			fprintf(stderr, "rogue: ACTIVE as LID 0x%04x, SM LID 0x%04x\n", ps.lid, ps.sm_lid);
			r->announced = true;
		}
		return;
	}
	sn_sma_state(r->sma, &ps);
	if (p.dqpn == 1) {
		/* The mirror delivers the victim's SA requests (DLID: the SM's). Our own PMA too. */
		if (p.payload_len >= 256 && p.payload[1] == IBLIB_MCLASS_PERF && p.dlid == ps.lid &&
		    sn_sma_mad(r->sma, p.payload, p.payload_len, resp, &rereg)) {
			send_ud(r, DATA_VL, p.sl, p.slid, ps.lid, ps.pkey, p.sqpn, UD_QP1_QKEY, 1, resp,
				sizeof(resp));
			return;
		}
		mirrored_request(r, &p);
		return;
	}
	if (p.dlid == ps.lid)
		r->st.misdirected++;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || !*s || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fabsim-rogue --socket PATH --guid PORT_GUID --victim-guid GUID\n"
		"                    [--node-guid GUID] [--name NAME] [--flood-ms MS]\n"
		"  --socket PATH       fabsim's HCA socket\n"
		"  --guid GUID         this port's GUID, as the topology lists it\n"
		"  --victim-guid GUID  the port whose SA requests get forged answers\n"
		"  --node-guid GUID    node GUID (default: port GUID - 1)\n"
		"  --flood-ms MS       random-TID answers every MS ms (default 5; 0: none)\n"
		"Run fabsim with FABSIM_TEST_MIRROR_SA=<the rogue's switch port> so that it sees the\n"
		"victim's SA requests.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' }, { "guid", required_argument, NULL, 'g' },
		{ "victim-guid", required_argument, NULL, 'V' },
		{ "node-guid", required_argument, NULL, 'N' }, { "name", required_argument, NULL, 'n' },
		{ "flood-ms", required_argument, NULL, 'f' }, { "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	static struct fabsim_msg msg;
	static struct rogue r;
	const char *sock = NULL, *name = "rogue";
	uint64_t guid = 0, node_guid = 0, flood_ms = 5, next_flood = 0;
	struct sigaction sa = { .sa_handler = on_signal };
	char err[256];
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's': sock = optarg; break;
		case 'g': if (parse_u64(optarg, &guid) < 0) goto bad; break;
		case 'V': if (parse_u64(optarg, &r.victim_guid) < 0) goto bad; break;
		case 'N': if (parse_u64(optarg, &node_guid) < 0) goto bad; break;
		case 'n': name = optarg; break;
		case 'f': if (parse_u64(optarg, &flood_ms) < 0 || flood_ms > 60000) goto bad; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!sock || !guid || !r.victim_guid || optind != argc) {
		usage(stderr);
		return 2;
	}
	r.flood_ms = (unsigned)flood_ms;
	r.rng = guid ^ (uint64_t)now_ms() << 20 ^ 0x9E3779B97F4A7C15ull;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	r.sma = sn_sma_create(node_guid ? node_guid : guid - 1, guid, name, err, sizeof(err));
	if (!r.sma) {
		fprintf(stderr, "rogue: %s\n", err);
		return 1;
	}
	r.fab = fabsim_client_connect(sock, guid, 1, name, err, sizeof(err));
	if (!r.fab) {
		fprintf(stderr, "rogue: cannot attach to fabsim at %s: %s\n", sock, err);
		sn_sma_destroy(r.sma);
		return 1;
	}
	fprintf(stderr, "rogue: attached to fabsim at %s as port GUID 0x%016" PRIx64 "; victim "
		"0x%016" PRIx64 "\n", sock, guid, r.victim_guid);
	while (!stop_signal) {
		struct pollfd pfd = { .fd = fabsim_client_fd(r.fab), .events = POLLIN };
		uint64_t now = now_ms();
		int timeout = 1000, n;

		if (r.flood_ms) {
			if (now >= next_flood) {
				flood(&r);
				next_flood = now + r.flood_ms;
			}
			timeout = (int)(next_flood - now);
		}
		n = poll(&pfd, 1, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "rogue: poll: %s\n", strerror(errno));
			rc = 1;
			break;
		}
		if (n > 0) {
			int got;

			while ((got = fabsim_client_recv(r.fab, &msg)) == 1) {
				if (msg.type == FABSIM_MSG_LINK) {
					r.link_up = msg.flags == FABSIM_LINK_UP;
					sn_sma_link(r.sma, r.link_up);
				} else if (msg.type == FABSIM_MSG_PACKET) {
					packet_in(&r, msg.data, msg.len);
				}
			}
			if (got < 0) {
				fprintf(stderr, "rogue: fabsim connection: %s; exiting\n", strerror(-got));
				rc = 1;
				break;
			}
		}
	}
	fprintf(stderr, "rogue: stats mirrored %" PRIu64 " (path %" PRIu64 ", mcmember %" PRIu64
		") forged own-lid %" PRIu64 " spoofed-sm %" PRIu64 " wrong-tid %" PRIu64 " flood %"
		PRIu64 " misdirected %" PRIu64 " smps %" PRIu64 " send-errors %" PRIu64 "\n",
		r.st.mirrored, r.st.mirrored_path, r.st.mirrored_mcmember, r.st.own_lid,
		r.st.spoofed_sm, r.st.wrong_tid, r.st.flood, r.st.misdirected, r.st.smps,
		r.st.send_errors);
	fabsim_client_close(r.fab);
	sn_sma_destroy(r.sma);
	return rc;
bad:
	fprintf(stderr, "rogue: bad number '%s'\n", optarg);
	return 2;
}

/* SPDX-License-Identifier: MIT */
/*
 * fabsim in one process: topology parsing, the HCA attachment protocol over a real socket, switch
 * forwarding (LFT, MFT, directed route), the switch SMA, CRC checks and the fault knobs. The test
 * plays the HCA ports with fabsim_client and pumps fabsim's loop itself, so every run is the same.
 */
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "fabsim.h"
#include "fabsim_client.h"
#include "smp.h"

#include <ibboot/wire/bytes.h>
#include <ibboot/wire/crc.h>

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static char buf[4][128];
	static int i;

	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/fabsim-test-XXXXXX");
		if (!mkdtemp(tmpdir))
			abort();
	}
	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmpdir, name);
	return buf[i];
}

__attribute__((destructor)) static void remove_tmpdir(void)
{
	static const char *const files[] = { "topo.txt", "hca.sock", "cap.pcap" };
	char p[128];

	if (!tmpdir[0])
		return;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", tmpdir, files[i]);
		unlink(p);
	}
	rmdir(tmpdir);
}

static const char *write_file(const char *name, const char *text)
{
	const char *p = tmp_path(name);
	FILE *fp = fopen(p, "w");

	fputs(text, fp);
	fclose(fp);
	return p;
}

static int load_text(struct fabric *f, const char *text, char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->seed = 1;
	return topo_load(f, write_file("topo.txt", text), err, errlen);
}

TEST(topology_errors_name_the_line)
{
	static const struct {
		const char *text, *expect;
	} bad[] = {
		{ "switch sw 0x10 4\nbogus x\n", "topo.txt:2: unknown statement 'bogus'" },
		{ "switch sw 0x10 4\nswitch sw 0x20 4\n", "node 'sw' defined twice" },
		{ "switch sw 0x10 4\nhca-port a 0x10\n", "GUID 0x10 is already used" },
		{ "switch sw 0x10 4\nhca-port a 0x20\ncable sw:5 a\n", "'sw:5' names no port" },
		{ "switch sw 0x10 4\nhca-port a 0x20\nhca-port b 0x30\ncable sw:1 a\ncable sw:1 b\n",
		  "'sw:1' is already cabled" },
		{ "switch sw 0x10 4 \"unterminated\n", "unterminated quote" },
		{ "switch sw zz 4\n", "bad GUID 'zz'" },
		{ "switch sw 0x10 99\n", "usage: switch" },
		{ "# nothing\n", "no nodes defined" },
		{ "switch sw 0x10 4\ncable sw:0 sw:1\n", "switch port 0 is internal" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fabric f;
		char err[256] = "";

		CHECK(load_text(&f, bad[i].text, err, sizeof(err)) < 0);
		if (!strstr(err, bad[i].expect))
			test_fail(__FILE__, __LINE__, "case %zu: '%s' lacks '%s'", i, err,
				  bad[i].expect);
		fabric_free(&f);
	}
}

static const char *const topo_text =
	"# one switch, an SM host and two HCA ports\n"
	"switch sw 0x0002c90300002000 4 \"test switch\"\n"
	"sm-host smhost 0x0002c90300001000\n"
	"hca-port a 0x0002c90300003001\n"
	"hca-port b 0x0002c90300004002   # port 2 of a 2-port HCA\n"
	"cable sw:1 smhost\n"
	"cable sw:2 a\n"
	"cable sw:3 b\n";

TEST(topology_ok)
{
	struct fabric f;
	char err[256] = "";
	struct port *p;

	CHECK_EQ(load_text(&f, topo_text, err, sizeof(err)), 0);
	CHECK_EQ(f.nnodes, 4);
	CHECK_EQ(f.nlinks, 3);
	p = fabric_find_port(&f, "sw:3");
	CHECK(p && port_peer(p) == fabric_find_port(&f, "b"));
	CHECK(fabric_find_port(&f, "smhost")->guid == 0x0002c90300001001ull);
	CHECK(fabric_find_hca_port(&f, 0x0002c90300004002ull) == fabric_find_node(&f, "b"));
	CHECK(fabric_find_port(&f, "sw") == NULL);       /* a switch port needs its number */
	CHECK(fabric_find_port(&f, "nosuch:1") == NULL);
	CHECK_STR(fabric_find_node(&f, "sw")->desc, "test switch");
	fabric_free(&f);
}

/* ---- a running fabric with test-driven HCA ports ---- */

struct rig {
	struct fabric f;
	struct fabsim_client *a, *b;
	struct fabsim_msg msg;
};

static void pump(struct rig *r)
{
	struct pollfd pfd[64];

	int wait = 0;

	/* Until nothing is queued, held or readable. Bounded: a bug cannot hang the test. */
	for (int round = 0; round < 1000; round++) {
		int n = hca_server_pollfds(pfd, 64);
		int ready = poll(pfd, (nfds_t)n, wait);

		if (ready > 0)
			hca_server_handle(&r->f, pfd, n);
		wait = fabric_run_queue(&r->f);
		if (wait < 0 && ready == 0)
			return;
		if (wait < 0)
			wait = 0;
	}
}

/* Next message of the wanted type for client c (LINK messages skipped unless asked for). */
static int recv_type(struct rig *r, struct fabsim_client *c, uint32_t type)
{
	int got;

	pump(r);
	while ((got = fabsim_client_recv(c, &r->msg)) == 1)
		if (r->msg.type == type)
			return 1;
	return got;
}

/* fabsim_client_connect() waits for the HELLO_ACK, and fabsim runs in this same thread: the
 * connect runs in a helper thread while this one pumps fabsim until it has answered. */
struct connect_job {
	uint64_t guid;
	unsigned port;
	struct fabsim_client *c;
	char err[256];
	atomic_int done;
};

static void *connect_thread(void *arg)
{
	struct connect_job *j = arg;

	j->c = fabsim_client_connect(tmp_path("hca.sock"), j->guid, j->port, "test", j->err,
				     sizeof(j->err));
	atomic_store(&j->done, 1);
	return NULL;
}

static struct fabsim_client *attach(struct rig *r, uint64_t guid, unsigned port, char *err,
				    size_t errlen)
{
	struct connect_job j = { .guid = guid, .port = port };
	pthread_t t;

	if (pthread_create(&t, NULL, connect_thread, &j))
		return NULL;
	while (!atomic_load(&j.done)) {
		struct pollfd pfd[64];
		int n = hca_server_pollfds(pfd, 64);

		if (poll(pfd, (nfds_t)n, 10) > 0)
			hca_server_handle(&r->f, pfd, n);
		fabric_run_queue(&r->f);
	}
	pthread_join(t, NULL);
	snprintf(err, errlen, "%s", j.err);
	return j.c;
}

#define GUID_A 0x0002c90300003001ull
#define GUID_B 0x0002c90300004002ull

static void rig_up(struct rig *r)
{
	char err[256] = "";
	struct node *sw;

	memset(r, 0, sizeof(*r));
	CHECK_EQ(load_text(&r->f, topo_text, err, sizeof(err)), 0);
	for (unsigned i = 0; i < r->f.nlinks; i++) {
		r->f.links[i]->rng = 42 + i;
		link_update(&r->f, r->f.links[i]);
	}
	CHECK_EQ(hca_server_open(&r->f, tmp_path("hca.sock"), err, sizeof(err)), 0);
	r->a = attach(r, GUID_A, 1, err, sizeof(err));
	CHECK(r->a != NULL);
	r->b = attach(r, GUID_B, 2, err, sizeof(err));
	CHECK(r->b != NULL);
	/* As OpenSM would leave it: LIDs smhost 1, sw 2, a 3, b 4; every port Active. */
	sw = fabric_find_node(&r->f, "sw");
	sw->ports[0].pi.lid = 2;
	sw->lft[1] = 1;
	sw->lft[2] = 0;
	sw->lft[3] = 2;
	sw->lft[4] = 3;
	for (unsigned p = 1; p <= 3; p++)
		sw->ports[p].pi.state = PORT_ACTIVE;
	pump(r);
}

static void rig_down(struct rig *r)
{
	fabsim_client_close(r->a);
	fabsim_client_close(r->b);
	hca_server_close(&r->f);
	fabric_free(&r->f);
}

static size_t ud_packet(uint8_t *buf, uint16_t dlid, uint16_t slid, uint8_t vl, uint32_t dqpn,
			uint8_t fill)
{
	uint8_t payload[MAD_BYTES];

	memset(payload, fill, sizeof(payload));
	payload[MAD_BASE_VERSION] = 1;
	return pkt_build_ud(buf, FABSIM_MAX_PKT, vl, 0, dlid, slid, 0xffff, dqpn, 0x11111111, 2,
			    7, payload, sizeof(payload));
}

static int count_packets(struct rig *r, struct fabsim_client *c)
{
	int n = 0;

	pump(r);
	while (fabsim_client_recv(c, &r->msg) == 1)
		n += r->msg.type == FABSIM_MSG_PACKET;
	return n;
}

/* The rig up, with whatever reached port b during bring-up (the SM's traffic) taken off, so a
 * test counts only the packets it sends itself. */
static void rig_up_quiet_b(struct rig *r)
{
	rig_up(r);
	count_packets(r, r->b);
}

TEST(attach_refuses_unknown_and_duplicate_guids)
{
	struct rig r;
	char err[256] = "";
	struct fabsim_client *c;

	rig_up(&r);
	c = attach(&r, 0x1234, 1, err, sizeof(err));
	CHECK(c == NULL);
	CHECK(strstr(err, "no cable for GUID 0x0000000000001234") != NULL);
	c = attach(&r, GUID_A, 1, err, sizeof(err));
	CHECK(c == NULL);
	CHECK(strstr(err, "already attached") != NULL);
	c = fabsim_client_connect(tmp_path("nosuch.sock"), GUID_A, 1, "x", err, sizeof(err));
	CHECK(c == NULL);
	CHECK(strstr(err, "is fabsim running") != NULL);
	rig_down(&r);
}

TEST(link_messages_follow_the_cable)
{
	struct rig r;
	char out[512];

	rig_up(&r);
	/* Right after the ACK: LINK up (the switch end is always there). */
	CHECK_EQ(fabsim_client_recv(r.a, &r.msg), 1);
	CHECK_EQ(r.msg.type, FABSIM_MSG_LINK);
	CHECK_EQ(r.msg.flags, FABSIM_LINK_UP);
	CHECK_EQ(fabric_find_port(&r.f, "sw:2")->pi.state, PORT_ACTIVE);
	CHECK_EQ(control_exec(&r.f, "link a down", out, sizeof(out)), 0);
	CHECK_EQ(recv_type(&r, r.a, FABSIM_MSG_LINK), 1);
	CHECK_EQ(r.msg.flags, FABSIM_LINK_DOWN);
	CHECK_EQ(fabric_find_port(&r.f, "sw:2")->pi.state, PORT_DOWN);
	CHECK(fabric_find_node(&r.f, "sw")->port_state_change);
	CHECK_EQ(control_exec(&r.f, "link sw:2 up", out, sizeof(out)), 0);
	CHECK_EQ(recv_type(&r, r.a, FABSIM_MSG_LINK), 1);
	CHECK_EQ(r.msg.flags, FABSIM_LINK_UP);
	CHECK_EQ(fabric_find_port(&r.f, "sw:2")->pi.state, PORT_INIT);
	/* The HCA going away takes the switch port down. */
	fabsim_client_close(r.b);
	r.b = NULL;
	pump(&r);
	CHECK_EQ(fabric_find_port(&r.f, "sw:3")->pi.state, PORT_DOWN);
	CHECK(!fabric_find_port(&r.f, "sw:3")->link->phys_up);
	rig_down(&r);
}

TEST(lft_forwards_unicast_and_checks_active)
{
	struct rig r;
	uint8_t pkt[FABSIM_MAX_PKT];
	size_t n = ud_packet(pkt, 4, 3, 0, 0x48, 0xab);

	rig_up(&r);
	CHECK_EQ(count_packets(&r, r.b), 0);       /* drain LINK */
	CHECK_EQ(fabsim_client_send_packet(r.a, pkt, n), 0);
	CHECK_EQ(recv_type(&r, r.b, FABSIM_MSG_PACKET), 1);
	CHECK_EQ(r.msg.len, n);
	CHECK_MEM(r.msg.data, pkt, n);              /* switches do not touch data packets */
	/* A DLID nobody routes is dropped and counted. */
	n = ud_packet(pkt, 9, 3, 0, 0x48, 0xab);
	fabsim_client_send_packet(r.a, pkt, n);
	CHECK_EQ(count_packets(&r, r.b), 0);
	CHECK_EQ(fabric_find_port(&r.f, "sw:2")->cnt.no_route, 1);
	/* Data VLs need an Active ingress port; SMPs (VL15) do not. */
	fabric_find_port(&r.f, "sw:2")->pi.state = PORT_INIT;
	n = ud_packet(pkt, 4, 3, 0, 0x48, 0xab);
	fabsim_client_send_packet(r.a, pkt, n);
	CHECK_EQ(count_packets(&r, r.b), 0);
	CHECK_EQ(fabric_find_port(&r.f, "sw:2")->cnt.not_active, 1);
	n = ud_packet(pkt, 4, 3, 15, 0, 0xab);
	fabsim_client_send_packet(r.a, pkt, n);
	CHECK_EQ(count_packets(&r, r.b), 1);
	rig_down(&r);
}

TEST(mft_replicates_to_members_only)
{
	struct rig r;
	uint8_t pkt[FABSIM_MAX_PKT];
	size_t n = ud_packet(pkt, 0xc000, 3, 0, 0xffffff, 0x5a);
	struct node *sw;

	rig_up(&r);
	sw = fabric_find_node(&r.f, "sw");
	count_packets(&r, r.a);
	count_packets(&r, r.b);
	fabsim_client_send_packet(r.a, pkt, n);
	CHECK_EQ(count_packets(&r, r.b), 0);         /* no members yet */
	sw->mft[0][0] = (1u << 2) | (1u << 3);       /* ports 2 (a) and 3 (b) */
	fabsim_client_send_packet(r.a, pkt, n);
	CHECK_EQ(count_packets(&r, r.b), 1);
	CHECK_EQ(count_packets(&r, r.a), 0);         /* never back out the arrival port */
	rig_down(&r);
}

/* A directed-route SMP from HCA port a (its SMI already stepped the hop pointer, C14-9:1). */
static size_t dr_smp(uint8_t *pkt, uint16_t attr, uint32_t mod, const uint8_t *path, unsigned hops)
{
	uint8_t mad[MAD_BYTES] = { 0 };

	mad[MAD_BASE_VERSION] = 1;
	mad[MAD_MGMT_CLASS] = MGMT_CLASS_SUBN_DR;
	mad[MAD_CLASS_VERSION] = 1;
	mad[MAD_METHOD] = METHOD_GET;
	mad[MAD_HOP_PTR] = 1;
	mad[MAD_HOP_CNT] = (uint8_t)hops;
	put_be64(mad + MAD_TID, 0x1122334455667788ull);
	put_be16(mad + MAD_ATTR_ID, attr);
	put_be32(mad + MAD_ATTR_MOD, mod);
	put_be16(mad + SMP_DR_SLID, LID_PERMISSIVE);
	put_be16(mad + SMP_DR_DLID, LID_PERMISSIVE);
	memcpy(mad + SMP_INITIAL_PATH, path, hops + 1);
	return pkt_build_ud(pkt, FABSIM_MAX_PKT, 15, 0, LID_PERMISSIVE, LID_PERMISSIVE, 0xffff, 0,
			    0, 0, 1, mad, sizeof(mad));
}

static const uint8_t *smp_of(struct rig *r)
{
	struct pkt_hdrs h;

	if (pkt_parse(r->msg.data, r->msg.len, &h) != PKT_OK || !h.is_ud)
		return NULL;
	return r->msg.data + h.payload_off;
}

TEST(directed_route_to_the_switch_sma)
{
	struct rig r;
	uint8_t pkt[FABSIM_MAX_PKT];
	const uint8_t path[] = { 0, 1 };
	const uint8_t *mad;
	size_t n;

	rig_up(&r);
	count_packets(&r, r.a);
	n = dr_smp(pkt, ATTR_NODE_INFO, 0, path, 1);
	fabsim_client_send_packet(r.a, pkt, n);
	CHECK_EQ(recv_type(&r, r.a, FABSIM_MSG_PACKET), 1);
	mad = smp_of(&r);
	CHECK(mad != NULL);
	if (!mad)
		goto out;
	CHECK_EQ(mad[MAD_METHOD], METHOD_GET_RESP);
	CHECK_EQ(get_be16(mad + MAD_STATUS), SMP_DIRECTION);   /* D bit, status 0 */
	CHECK_EQ(mad[MAD_HOP_PTR], 1);
	CHECK_EQ(mad[SMP_RETURN_PATH + 1], 2);        /* arrived on switch port 2 */
	CHECK_EQ(get_be64(mad + MAD_TID), 0x1122334455667788ull);
	CHECK_EQ(mad[SMP_DATA + 2], 2);               /* NodeType switch */
	CHECK_EQ(mad[SMP_DATA + 3], 4);               /* NumPorts */
	CHECK_EQ(get_be64(mad + SMP_DATA + 12), 0x0002c90300002000ull);
	CHECK_EQ(mad[SMP_DATA + 36], 2);              /* LocalPortNum */
	/* PortInfo of switch port 3 (b's cable): LinkUp, Active as set by rig_up, 4X. */
	n = dr_smp(pkt, ATTR_PORT_INFO, 3, path, 1);
	fabsim_client_send_packet(r.a, pkt, n);
	CHECK_EQ(recv_type(&r, r.a, FABSIM_MSG_PACKET), 1);
	mad = smp_of(&r);
	CHECK(mad && (mad[SMP_DATA + 32] & 0xf) == PORT_ACTIVE);
	CHECK(mad && mad[SMP_DATA + 33] >> 4 == PHYS_LINKUP);
	CHECK(mad && mad[SMP_DATA + 31] == 2);
	/* An attribute the switch does not have: answered with status 0x0C, not dropped. */
	n = dr_smp(pkt, 0x0099, 0, path, 1);
	fabsim_client_send_packet(r.a, pkt, n);
	CHECK_EQ(recv_type(&r, r.a, FABSIM_MSG_PACKET), 1);
	mad = smp_of(&r);
	CHECK(mad && (get_be16(mad + MAD_STATUS) & 0x7fff) == MAD_STATUS_BAD_ATTR);
out:
	rig_down(&r);
}

TEST(directed_route_through_the_switch_to_a_ca)
{
	struct rig r;
	uint8_t pkt[FABSIM_MAX_PKT];
	const uint8_t path[] = { 0, 1, 3 };
	const uint8_t bad_path[] = { 0, 1, 7 };
	const uint8_t *mad;
	size_t n;

	rig_up_quiet_b(&r);
	/* Switch ports in Init still carry SMPs: that is how OpenSM reaches a fresh fabric. */
	fabric_find_port(&r.f, "sw:3")->pi.state = PORT_INIT;
	n = dr_smp(pkt, ATTR_NODE_INFO, 0, path, 2);
	fabsim_client_send_packet(r.a, pkt, n);
	CHECK_EQ(recv_type(&r, r.b, FABSIM_MSG_PACKET), 1);
	mad = smp_of(&r);
	CHECK(mad && mad[MAD_HOP_PTR] == 2);          /* stepped by the switch */
	CHECK(mad && mad[SMP_RETURN_PATH + 1] == 2);  /* C14-9:2 */
	CHECK(mad && mad[MAD_METHOD] == METHOD_GET);  /* nothing in fabsim answers for a CA */
	/* A path through a port that does not exist is dropped and counted. */
	n = dr_smp(pkt, ATTR_NODE_INFO, 0, bad_path, 2);
	fabsim_client_send_packet(r.a, pkt, n);
	CHECK_EQ(count_packets(&r, r.b), 0);
	CHECK_EQ(fabric_find_port(&r.f, "sw:2")->cnt.dr_dropped, 1);
	rig_down(&r);
}

TEST(corrupted_packets_fail_the_crc_check)
{
	struct rig r;
	uint8_t pkt[FABSIM_MAX_PKT];
	size_t n = ud_packet(pkt, 4, 3, 0, 0x48, 0x11);
	char out[256];

	rig_up_quiet_b(&r);
	/* A packet corrupted by the sender itself: the first switch drops it. */
	pkt[40] ^= 0x01;
	fabsim_client_send_packet(r.a, pkt, n);
	CHECK_EQ(count_packets(&r, r.b), 0);
	CHECK_EQ(fabric_find_port(&r.f, "sw:2")->cnt.bad_crc, 1);
	/* The knob: every packet on cable a gets a bit flipped; none gets through. */
	pkt[40] ^= 0x01;
	CHECK_EQ(control_exec(&r.f, "fault a corrupt=1", out, sizeof(out)), 0);
	for (int i = 0; i < 20; i++)
		fabsim_client_send_packet(r.a, pkt, n);
	CHECK_EQ(count_packets(&r, r.b), 0);
	CHECK_EQ(fabric_find_port(&r.f, "a")->link->cnt.corrupted, 20);
	CHECK_EQ(fabric_find_port(&r.f, "sw:2")->cnt.bad_crc + fabric_find_port(&r.f, "sw:2")->cnt.malformed, 21);
	rig_down(&r);
}

struct fault_counts {
	int received;
	uint64_t lost, duplicated, reordered;
};

static struct fault_counts run_faults(const char *knobs, uint64_t rng)
{
	struct rig r;
	uint8_t pkt[FABSIM_MAX_PKT];
	char out[256], cmd[128];
	struct fault_counts fc = { 0 };
	struct link *l;

	rig_up_quiet_b(&r);
	l = fabric_find_port(&r.f, "a")->link;
	l->rng = rng;
	snprintf(cmd, sizeof(cmd), "fault a %s", knobs);
	CHECK_EQ(control_exec(&r.f, cmd, out, sizeof(out)), 0);
	for (int i = 0; i < 200; i++) {
		size_t n = ud_packet(pkt, 4, 3, 0, 0x48, (uint8_t)i);

		fabsim_client_send_packet(r.a, pkt, n);
		if (i % 10 == 9)
			fc.received += count_packets(&r, r.b);
	}
	fc.received += count_packets(&r, r.b);
	fc.lost = l->cnt.lost;
	fc.duplicated = l->cnt.duplicated;
	fc.reordered = l->cnt.reordered;
	CHECK_EQ(l->cnt.sent, 200);
	rig_down(&r);
	return fc;
}

TEST(fault_knobs_count_and_repeat_with_the_seed)
{
	struct fault_counts x = run_faults("loss=0.3 dup=0.2", 7);
	struct fault_counts y = run_faults("loss=0.3 dup=0.2", 7);
	struct fault_counts z = run_faults("loss=0.3 dup=0.2", 8);
	struct fault_counts all = run_faults("loss=1", 7);
	struct fault_counts dup = run_faults("dup=1", 7);
	struct fault_counts ro = run_faults("reorder=0.5", 7);

	CHECK(x.lost > 20 && x.lost < 100);
	CHECK(x.duplicated > 10);
	CHECK_EQ(x.received, 200 - (int)x.lost + (int)x.duplicated);
	CHECK_EQ(x.lost, y.lost);                     /* same seed, same fate */
	CHECK_EQ(x.duplicated, y.duplicated);
	CHECK(x.lost != z.lost || x.duplicated != z.duplicated);
	CHECK_EQ(all.received, 0);
	CHECK_EQ(all.lost, 200);
	CHECK_EQ(dup.received, 400);
	CHECK_EQ(dup.duplicated, 200);
	CHECK(ro.reordered > 10);
	CHECK_EQ(ro.received, 200);                   /* reordered, never lost */
}

TEST(reorder_swaps_with_the_next_packet)
{
	struct rig r;
	uint8_t pkt[FABSIM_MAX_PKT];
	char out[256];
	uint8_t first[8];
	size_t n;

	rig_up_quiet_b(&r);
	CHECK_EQ(control_exec(&r.f, "fault a reorder=1", out, sizeof(out)), 0);
	n = ud_packet(pkt, 4, 3, 0, 0x48, 0x01);
	fabsim_client_send_packet(r.a, pkt, n);
	n = ud_packet(pkt, 4, 3, 0, 0x48, 0x02);
	fabsim_client_send_packet(r.a, pkt, n);
	CHECK_EQ(recv_type(&r, r.b, FABSIM_MSG_PACKET), 1);
	memcpy(first, r.msg.data + 40, sizeof(first));
	CHECK_EQ(first[0], 0x02);                     /* the second packet came first */
	CHECK_EQ(recv_type(&r, r.b, FABSIM_MSG_PACKET), 1);
	CHECK_EQ(r.msg.data[40], 0x01);
	rig_down(&r);
}

TEST(control_commands_reject_bad_input)
{
	struct fabric f;
	char err[256], out[4096];

	CHECK_EQ(load_text(&f, topo_text, err, sizeof(err)), 0);
	CHECK(control_exec(&f, "fault nosuch loss=0.1", out, sizeof(out)) < 0);
	CHECK(strstr(out, "not a cabled port") != NULL);
	CHECK(control_exec(&f, "fault all loss=2", out, sizeof(out)) < 0);
	CHECK(strstr(out, "between 0 and 1") != NULL);
	CHECK(control_exec(&f, "fault all jitter=1", out, sizeof(out)) < 0);
	CHECK(control_exec(&f, "link a sideways", out, sizeof(out)) < 0);
	CHECK(control_exec(&f, "frobnicate", out, sizeof(out)) < 0);
	CHECK(control_exec(&f, "", out, sizeof(out)) < 0);
	CHECK_EQ(control_exec(&f, "fault all loss=0.25 delay=5", out, sizeof(out)), 0);
	CHECK(f.links[2]->fault.loss == 0.25 && f.links[2]->fault.delay_ms == 5);
	CHECK_EQ(control_exec(&f, "fault all clear", out, sizeof(out)), 0);
	CHECK(f.links[2]->fault.loss == 0);
	CHECK_EQ(control_exec(&f, "counters sw:1", out, sizeof(out)), 0);
	CHECK(strstr(out, "link sw:1 <-> smhost") != NULL);
	CHECK_EQ(control_exec(&f, "quit", out, sizeof(out)), 1);
	fabric_free(&f);
}

TEST(switch_sma_programs_lft_and_mft)
{
	struct fabric f;
	char err[256];
	uint8_t mad[MAD_BYTES] = { 0 };
	struct node *sw;

	CHECK_EQ(load_text(&f, topo_text, err, sizeof(err)), 0);
	sw = fabric_find_node(&f, "sw");
	mad[MAD_BASE_VERSION] = 1;
	mad[MAD_MGMT_CLASS] = MGMT_CLASS_SUBN_LID;
	mad[MAD_CLASS_VERSION] = 1;
	mad[MAD_METHOD] = METHOD_SET;
	put_be16(mad + MAD_ATTR_ID, ATTR_LFT);
	put_be32(mad + MAD_ATTR_MOD, 1);        /* LIDs 64..127 */
	mad[SMP_DATA + 5] = 3;                         /* LID 69 -> port 3 */
	CHECK(sma_process(&f, &sw->ports[0], mad));
	CHECK_EQ(get_be16(mad + MAD_STATUS), 0);
	CHECK_EQ(sw->lft[69], 3);
	memset(mad + SMP_DATA, 0, 64);
	mad[MAD_METHOD] = METHOD_SET;
	put_be16(mad + MAD_ATTR_ID, ATTR_MFT);
	put_be32(mad + MAD_ATTR_MOD, 0);         /* MLIDs 0xC000.., ports 0-15 */
	put_be16(mad + SMP_DATA, 0x000c);
	CHECK(sma_process(&f, &sw->ports[0], mad));
	CHECK_EQ(sw->mft[0][0], 0x000c);
	/* Beyond the tables: invalid attribute modifier, nothing written. */
	mad[MAD_METHOD] = METHOD_SET;
	put_be16(mad + MAD_ATTR_ID, ATTR_LFT);
	put_be32(mad + MAD_ATTR_MOD, 768);
	CHECK(sma_process(&f, &sw->ports[0], mad));
	CHECK_EQ(get_be16(mad + MAD_STATUS), MAD_STATUS_BAD_VALUE);
	/* PortInfo state machine: Armed only from Init. */
	mad[MAD_METHOD] = METHOD_SET;
	put_be16(mad + MAD_ATTR_ID, ATTR_PORT_INFO);
	put_be32(mad + MAD_ATTR_MOD, 2);
	memset(mad + SMP_DATA, 0, 64);
	mad[SMP_DATA + 32] = PORT_ARMED;
	CHECK(sma_process(&f, &sw->ports[0], mad));
	CHECK_EQ(get_be16(mad + MAD_STATUS), MAD_STATUS_BAD_VALUE);  /* port 2 is Down */
	/* A response is never answered. */
	mad[MAD_METHOD] = METHOD_GET_RESP;
	CHECK(!sma_process(&f, &sw->ports[0], mad));
	fabric_free(&f);
}

TEST(pcap_records_every_hop)
{
	struct rig r;
	uint8_t pkt[FABSIM_MAX_PKT], hdr[24];
	char err[256];
	size_t n = ud_packet(pkt, 4, 3, 0, 0x48, 0x33);
	char path[160];
	FILE *fp;
	long size;

	snprintf(path, sizeof(path), "%s", tmp_path("cap.pcap"));
	rig_up(&r);
	CHECK_EQ(pcap_open(&r.f, path, err, sizeof(err)), 0);
	fabsim_client_send_packet(r.a, pkt, n);
	CHECK_EQ(count_packets(&r, r.b), 1);
	rig_down(&r);
	fp = fopen(path, "rb");
	CHECK(fp != NULL);
	if (!fp)
		return;
	CHECK_EQ(fread(hdr, 1, 24, fp), 24);
	CHECK_EQ(hdr[20], 247);                       /* LINKTYPE_INFINIBAND */
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	fclose(fp);
	CHECK_EQ(size, 24 + 2 * (16 + (long)n));      /* a->sw and sw->b */
	unlink(path);
}

TEST(delay_holds_packets_and_counts_them)
{
	struct rig r;
	uint8_t pkt[FABSIM_MAX_PKT];
	size_t n = ud_packet(pkt, 4, 3, 0, 0x48, 0x44);
	char out[256];

	rig_up_quiet_b(&r);
	CHECK_EQ(control_exec(&r.f, "fault a delay=20", out, sizeof(out)), 0);
	for (int i = 0; i < 5; i++)
		fabsim_client_send_packet(r.a, pkt, n);
	CHECK_EQ(count_packets(&r, r.b), 5);          /* pump waits for the due time */
	CHECK_EQ(fabric_find_port(&r.f, "a")->link->cnt.delayed, 5);
	CHECK_EQ(fabric_find_port(&r.f, "a")->link->cnt.lost, 0);
	rig_down(&r);
}

#include <sys/socket.h>
#include <sys/un.h>

/* A raw connection to the HCA socket that says whatever the test wants. */
static int raw_connect(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", tmp_path("hca.sock"));
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool closed_by_fabsim(struct rig *r, int fd)
{
	uint8_t buf[64];

	pump(r);
	return recv(fd, buf, sizeof(buf), MSG_DONTWAIT) == 0;
}

TEST(malformed_hca_messages_close_only_that_connection)
{
	struct rig r;
	struct fabsim_wire_hdr h = { .type = FABSIM_MSG_PACKET, .len = 4 };
	uint8_t msg[sizeof(h) + 8] = { 0 };
	uint8_t pkt[FABSIM_MAX_PKT];
	size_t n;
	int fd;

	rig_up_quiet_b(&r);
	/* Too short for a header. */
	fd = raw_connect();
	CHECK(fd >= 0);
	send(fd, "xy", 2, 0);
	CHECK(closed_by_fabsim(&r, fd));
	close(fd);
	/* A PACKET before HELLO. */
	fd = raw_connect();
	memcpy(msg, &h, sizeof(h));
	send(fd, msg, sizeof(h) + 4, 0);
	CHECK(closed_by_fabsim(&r, fd));
	close(fd);
	/* A length that disagrees with the message. */
	fd = raw_connect();
	h.type = FABSIM_MSG_HELLO;
	h.len = 100;
	memcpy(msg, &h, sizeof(h));
	send(fd, msg, sizeof(h) + 8, 0);
	CHECK(closed_by_fabsim(&r, fd));
	close(fd);
	/* Garbage inside a PACKET from an attached port is just a bad packet: dropped, counted. */
	memset(pkt, 0xee, 64);
	fabsim_client_send_packet(r.a, pkt, 64);
	pump(&r);
	CHECK_EQ(fabric_find_port(&r.f, "sw:2")->cnt.malformed + fabric_find_port(&r.f, "sw:2")->cnt.bad_crc, 1);
	/* The attached ports still work. */
	n = ud_packet(pkt, 4, 3, 0, 0x48, 0x55);
	fabsim_client_send_packet(r.a, pkt, n);
	CHECK_EQ(count_packets(&r, r.b), 1);
	rig_down(&r);
}

TEST(forwarding_loop_does_not_hang_the_loop)
{
	static const char *const two_switches =
		"switch sw1 0x10 4\nswitch sw2 0x20 4\nsm-host h 0x30\n"
		"cable sw1:1 h\ncable sw1:2 sw2:1\ncable sw1:3 sw2:2\n";
	struct fabric f;
	char err[256];
	uint8_t pkt[FABSIM_MAX_PKT];
	struct node *sw1, *sw2;
	size_t n = ud_packet(pkt, 9, 1, 0, 0x48, 0x66);
	int calls;

	CHECK_EQ(load_text(&f, two_switches, err, sizeof(err)), 0);
	for (unsigned i = 0; i < f.nlinks; i++)
		link_update(&f, f.links[i]);
	sw1 = fabric_find_node(&f, "sw1");
	sw2 = fabric_find_node(&f, "sw2");
	for (unsigned p = 1; p <= 3; p++)
		sw1->ports[p].pi.state = sw2->ports[p].pi.state = PORT_ACTIVE;
	/* A routing loop for LID 9: sw1:2 -> sw2:1, out sw2:2 -> sw1:3, out sw1:2 ... */
	sw1->lft[9] = 2;
	sw2->lft[9] = 2;
	sw1->ports[0].pi.lid = 2;
	sw2->ports[0].pi.lid = 3;
	port_transmit(&f, fabric_find_port(&f, "h"), pkt, n);
	/* Every call returns, with the packet still going round. */
	for (calls = 0; calls < 200; calls++)
		CHECK_EQ(fabric_run_queue(&f), 0);
	CHECK(f.links[1]->cnt.delivered + f.links[2]->cnt.delivered >= 199);
	/* Pulling the cable ends it. */
	link_set_admin(&f, f.links[1], true);
	for (calls = 0; calls < 10 && fabric_run_queue(&f) == 0; calls++)
		;
	CHECK_EQ(fabric_run_queue(&f), -1);
	fabric_free(&f);
}

/* A client that reports its own training: the switch port waits for it. */
struct connect_flags_job {
	struct fabsim_client *c;
	char err[256];
	atomic_int done;
};

static void *connect_reporting_thread(void *arg)
{
	struct connect_flags_job *j = arg;

	j->c = fabsim_client_connect_flags(tmp_path("hca.sock"), GUID_A, 1, "t",
					   FABSIM_HELLO_REPORTS_LINK, j->err, sizeof(j->err));
	atomic_store(&j->done, 1);
	return NULL;
}

TEST(switch_port_waits_for_the_hca_end_to_train)
{
	struct rig r;
	struct connect_flags_job j = { 0 };
	pthread_t t;
	struct port *sw2;

	rig_up(&r);
	fabsim_client_close(r.a);     /* re-attach port a as a reporting client */
	r.a = NULL;
	pump(&r);
	sw2 = fabric_find_port(&r.f, "sw:2");
	CHECK_EQ(sw2->pi.state, PORT_DOWN);
	CHECK_EQ(pthread_create(&t, NULL, connect_reporting_thread, &j), 0);
	while (!atomic_load(&j.done))
		pump(&r);
	pthread_join(t, NULL);
	r.a = j.c;
	CHECK(r.a != NULL);
	if (!r.a)
		goto out;
	/* The cable is there (LINK up to the HCA), but its end has not trained: switch port Down. */
	CHECK_EQ(recv_type(&r, r.a, FABSIM_MSG_LINK), 1);
	CHECK_EQ(r.msg.flags, FABSIM_LINK_UP);
	CHECK_EQ(sw2->pi.state, PORT_DOWN);
	CHECK_EQ(fabsim_client_send_link(r.a, true), 0);
	pump(&r);
	CHECK_EQ(sw2->pi.state, PORT_INIT);
	CHECK_EQ(sw2->pi.phys, PHYS_LINKUP);
	/* CLOSE_PORT on the HCA: the switch port drops, the HCA hears nothing new about the cable. */
	CHECK_EQ(fabsim_client_send_link(r.a, false), 0);
	pump(&r);
	CHECK_EQ(sw2->pi.state, PORT_DOWN);
	CHECK_EQ(recv_type(&r, r.a, FABSIM_MSG_LINK), 0);
out:
	rig_down(&r);
}

/* ---- the ibsim front end, spoken to as umad2sim does (abstract AF_UNIX datagrams) ---- */

struct sim_cli {
	char base[64];
	int ctl, data;
	uint32_t slot;
};

static void pump_ibsim(struct fabric *f, int ms)
{
	struct pollfd pfd[16];
	int n = ibsim_server_pollfds(pfd, 16);

	if (poll(pfd, (nfds_t)n, ms) > 0)
		ibsim_server_handle(f, pfd, n);
	for (int i = 0; i < 100 && fabric_run_queue(f) == 0; i++)
		;
	ibsim_server_expire(f);
}

/* One control request; returns the reply type (0 = error) or -1 for no reply. */
static int sim_ctl(struct fabric *f, struct sim_cli *c, uint32_t type, uint8_t data[64])
{
	uint32_t msg[20] = { 0xdeadbeef, c->slot, type, 64 };
	uint32_t reply[20];

	memcpy(msg + 4, data, 64);
	if (send(c->ctl, msg, sizeof(msg), 0) != sizeof(msg))
		return -1;
	for (int i = 0; i < 100; i++) {
		pump_ibsim(f, 10);
		if (recv(c->ctl, reply, sizeof(reply), MSG_DONTWAIT) == sizeof(reply)) {
			memcpy(data, reply + 4, 64);
			return (int)reply[2];
		}
	}
	return -1;
}

/* Wait for one 288-byte record (bounded: 300 pumps of 10 ms covers the 800 ms bounce). */
static bool sim_recv(struct fabric *f, struct sim_cli *c, uint8_t rec[288])
{
	for (int i = 0; i < 300; i++) {
		pump_ibsim(f, 10);
		if (recv(c->data, rec, 288, MSG_DONTWAIT) == 288)
			return true;
	}
	return false;
}

static void sim_record(uint8_t rec[288], uint16_t dlid, uint32_t qp, uint8_t cls, uint16_t attr,
		       unsigned hops, const uint8_t *path)
{
	uint8_t *mad = rec + 32;

	memset(rec, 0, 288);
	put_be16(rec, dlid);
	put_be16(rec + 4, dlid == 0xffff ? 0xffff : 0);
	put_be32(rec + 8, qp);
	put_be32(rec + 12, qp);
	put_be64(rec + 24, 256);
	mad[MAD_BASE_VERSION] = 1;
	mad[MAD_MGMT_CLASS] = cls;
	mad[MAD_CLASS_VERSION] = 1;
	mad[MAD_METHOD] = METHOD_GET;
	mad[MAD_HOP_CNT] = (uint8_t)hops;
	put_be64(mad + MAD_TID, 0x0000abcd00001234ull);
	put_be16(mad + MAD_ATTR_ID, attr);
	put_be16(mad + SMP_DR_SLID, 0xffff);
	put_be16(mad + SMP_DR_DLID, 0xffff);
	if (path)
		memcpy(mad + SMP_INITIAL_PATH, path, hops + 1);
}

TEST(ibsim_front_end_speaks_umad2sims_protocol)
{
	struct fabric f;
	struct sim_cli c = { .slot = 0 };
	struct sockaddr_un a;
	char err[256];
	uint8_t data[64] = { 0 }, rec[288];
	const uint8_t path[] = { 0, 1 };
	uint32_t pid = (uint32_t)getpid();

	CHECK_EQ(load_text(&f, topo_text, err, sizeof(err)), 0);
	for (unsigned i = 0; i < f.nlinks; i++)
		link_update(&f, f.links[i]);
	snprintf(c.base, sizeof(c.base), "fabsim-unit-%u", pid);
	CHECK_EQ(ibsim_server_open(&f, c.base, err, sizeof(err)), 0);
	c.ctl = socket(AF_UNIX, SOCK_DGRAM, 0);
	c.data = socket(AF_UNIX, SOCK_DGRAM, 0);
	CHECK_EQ(bind(c.ctl, (struct sockaddr *)&a, ibsim_abstract_addr(&a, "%s:ctl%ld", c.base, pid)), 0);
	CHECK_EQ(connect(c.ctl, (struct sockaddr *)&a, ibsim_abstract_addr(&a, "%s:ctl", c.base, 0)), 0);
	CHECK_EQ(bind(c.data, (struct sockaddr *)&a, ibsim_abstract_addr(&a, "%s:in%ld", c.base, pid)), 0);
	/* CONNECT as the SM at "smhost" */
	memcpy(data, &pid, 4);
	memcpy(data + 8, &(uint32_t){ 1 }, 4);
	strcpy((char *)data + 12, "smhost");
	CHECK_EQ(sim_ctl(&f, &c, 1, data), 1);
	memcpy(&c.slot, data, 4);
	CHECK_EQ(c.slot, 0);
	CHECK_EQ(connect(c.data, (struct sockaddr *)&a, ibsim_abstract_addr(&a, "%s:out%ld", c.base, 0)), 0);
	/* A second SM on the same port is refused; an unknown node too. */
	{
		struct sim_cli c2 = c;
		uint8_t d2[64] = { 0 };

		memcpy(d2 + 8, &(uint32_t){ 1 }, 4);
		strcpy((char *)d2 + 12, "smhost");
		CHECK_EQ(sim_ctl(&f, &c2, 1, d2), 0);
		memset(d2, 0, sizeof(d2));
		strcpy((char *)d2 + 12, "nosuch");
		CHECK_EQ(sim_ctl(&f, &c2, 1, d2), 0);
	}
	/* GET_PORTINFO: our port, linked to the switch, Init, IsSM set by the CONNECT */
	memset(data, 0, sizeof(data));
	CHECK_EQ(sim_ctl(&f, &c, 8, data), 8);
	CHECK_EQ(data[32] & 0xf, PORT_INIT);
	CHECK_EQ(get_be32(data + 20) & 2, 2);
	/* A 0-hop DR SMP is answered by the SM host's own SMA, with the client's slot in the TID. */
	sim_record(rec, 0xffff, 0, MGMT_CLASS_SUBN_DR, ATTR_NODE_INFO, 0, NULL);
	CHECK_EQ(send(c.data, rec, 288, 0), 288);
	CHECK(sim_recv(&f, &c, rec));
	CHECK_EQ(rec[32 + MAD_METHOD], METHOD_GET_RESP);
	CHECK_EQ(rec[32 + SMP_DATA + 2], 1);                       /* a CA */
	CHECK_EQ(get_be64(rec + 32 + MAD_TID), 0x0000abcd00001234ull);
	/* One hop: the switch answers over the cable. */
	sim_record(rec, 0xffff, 0, MGMT_CLASS_SUBN_DR, ATTR_NODE_INFO, 1, path);
	send(c.data, rec, 288, 0);
	CHECK(sim_recv(&f, &c, rec));
	CHECK_EQ(get_be32(rec + 16), 0);                      /* status: delivered */
	CHECK_EQ(rec[32 + SMP_DATA + 2], 2);                       /* a switch */
	CHECK_EQ(rec[32 + SMP_RETURN_PATH + 1], 1);
	/* A malformed MAD is bounced at once with status 110 (ETIMEDOUT), as ibsim does. */
	sim_record(rec, 0xffff, 0, MGMT_CLASS_SUBN_DR, ATTR_NODE_INFO, 1, path);
	rec[32 + MAD_BASE_VERSION] = 7;
	send(c.data, rec, 288, 0);
	CHECK(sim_recv(&f, &c, rec));
	CHECK_EQ(get_be32(rec + 16), 110);
	/* A request lost in the fabric (nobody routes LID 0x55) comes back as a timeout. */
	sim_record(rec, 0x55, 1, 0x03, 0x0035, 0, NULL);
	send(c.data, rec, 288, 0);
	CHECK(sim_recv(&f, &c, rec));
	CHECK_EQ(get_be32(rec + 16), 110);
	CHECK_EQ(get_be16(rec), 0x55);
	/* A short record is ignored, not fatal. */
	send(c.data, rec, 100, 0);
	pump_ibsim(&f, 10);
	memset(data, 0, sizeof(data));
	CHECK_EQ(sim_ctl(&f, &c, 2, data), 2);                     /* DISCONNECT */
	close(c.ctl);
	close(c.data);
	ibsim_server_close();
	fabric_free(&f);
}

/* The link CRCs every hop computes: the host programs' fast paths (carry-less folding of 16-byte
 * blocks, slicing by 8) against the bit-at-a-time definition (IBA 7.8.1, 7.8.2: reflected
 * polynomials 0x04C11DB7 and 0x100B), for every length a packet can have, any alignment and any
 * register value (a running CRC continues across calls). */
static uint32_t crc32_bitwise(uint32_t c, const uint8_t *p, size_t n)
{
	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
	}
	return c;
}

static uint16_t vcrc_bitwise(uint16_t c, const uint8_t *p, size_t n)
{
	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (uint16_t)((c & 1) ? (c >> 1) ^ 0xD008 : c >> 1);
	}
	return c;
}

TEST(link_crcs_match_the_bitwise_definition)
{
	static uint8_t buf[FABSIM_MAX_PKT + 64];

	test_srand(13);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)test_rand();
	for (unsigned round = 0; round < 3000; round++) {
		size_t off = test_rand() % 64;
		size_t n = round < 300 ? round : test_rand() % (FABSIM_MAX_PKT + 1);
		uint32_t c = (uint32_t)test_rand();
		uint16_t v = (uint16_t)test_rand();

		CHECK_EQ(iblib_crc32_update(c, buf + off, n), crc32_bitwise(c, buf + off, n));
		CHECK_EQ(iblib_crc16_vcrc_update(v, buf + off, n), vcrc_bitwise(v, buf + off, n));
	}
}

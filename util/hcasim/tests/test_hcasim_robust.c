/* SPDX-License-Identifier: MIT */
/* hcasim: robustness — random commands, mailboxes, WQEs, doorbells and packets (deterministic
 * seed) never crash the model (ASan/UBSan watch), and it still answers afterwards. */
#include <string.h>

#include <ibboot/hermon_prm.h>
#include <ibboot/wire/packet.h>

#include "rawhost.h"
#include "test.h"

static const unsigned opcodes[] = {
	0x003, 0x004, 0x006, 0x007, 0x009, 0x00a, 0x00c, 0x00d, 0x00e, 0x00f, 0x011, 0x012,
	0x013, 0x014, 0x015, 0x016, 0x017, 0x018, 0x019, 0x01a, 0x01b, 0x01c, 0x01d, 0x01e,
	0x021, 0x022, 0x023, 0x024, 0x025, 0x026, 0x027, 0x02d, 0x031, 0x034, 0x043, 0x04d,
	0xff9, 0xffa, 0xffb, 0xffc, 0xffd, 0x123,
};

static void random_bytes(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)test_rand();
}

TEST(hcasim_robust_random_commands_keep_the_model_alive)
{
	struct rawhost rh;
	uint8_t mb[512], fw[256];

	test_srand(0x5eed1);
	CHECK_EQ(rawhost_up(&rh), 0);
	for (unsigned i = 0; i < 3000; i++) {
		unsigned op = opcodes[test_rand() % (sizeof(opcodes) / sizeof(opcodes[0]))];
		uint32_t mod = (uint32_t)test_rand();
		int st;

		if (op == 0x008 || op == 0xffe)
			continue;
		random_bytes(mb, sizeof(mb));
		if (test_rand() % 2)
			mod &= 0x3ff; /* small indices reach real objects more often */
		st = rawhost_cmd_mbox(&rh, op, (unsigned)(test_rand() % 4), mod, mb, sizeof(mb), fw,
				      sizeof(fw), NULL);
		CHECK(st >= 0);
		if (i % 16 == 0)
			hcasim_step(rh.h);
	}
	CHECK(hcasim_refused_count(rh.h) > 1000); /* most random commands are refused */
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x004, 0, 0, NULL, 0, fw, sizeof(fw), NULL), 0);
	CHECK_EQ(hermonprm_query_fw_st_get_fw_pages(fw), 64);
	rawhost_fini(&rh);
}

TEST(hcasim_robust_random_wqes_doorbells_and_packets)
{
	struct rawhost rh;
	struct rawhost_cq cq;
	struct rawhost_qp qp[3];
	struct rawhost_qp_attr a = { .log_sq = 3, .log_rq = 3, .cqn_snd = 130, .cqn_rcv = 130,
				     .dlid = 5, .remote_qpn = 0x101, .rre = true, .rwe = true };
	static const unsigned st[3] = { 3, 0, 7 };
	uint8_t pkt[600], fw[256];

	test_srand(0x5eed2);
	CHECK_EQ(rawhost_up(&rh), 0);
	rawhost_cable(&rh, 1, &rh, 2);
	CHECK_EQ(rawhost_set_port(&rh, 1, 5, 4), 0);
	CHECK_EQ(rawhost_set_port(&rh, 2, 6, 4), 0);
	CHECK_EQ(rawhost_create_cq(&rh, &cq, 130, 6), 0);
	CHECK_EQ(rawhost_take_special_qps(&rh), 0);
	for (unsigned i = 0; i < 3; i++) {
		a.st = st[i];
		CHECK_EQ(rawhost_create_qp(&rh, &qp[i], i == 2 ? rh.special_base : 0x100 + i, &a), 0);
	}
	for (unsigned i = 0; i < 400; i++) {
		struct rawhost_qp *q = &qp[test_rand() % 3];
		uint8_t *w = (uint8_t *)rawhost_ptr(&rh, q->buf) + 128 * (q->sq_pi & 7);
		uint8_t db[4] = { 0 };

		/* a random WQE with a valid owner bit, and a random receive */
		random_bytes(w, 128);
		hermonprm_wqe_segment_ctrl_send_st_set_owner(w, (q->sq_pi & 8) ? 1 : 0);
		q->sq_pi++;
		hermonprm_send_db_register_st_set_qn(db, q->qpn);
		hcasim_bar_write(rh.h, 2, 128 * 4096 + 0x14, db, 4);
		random_bytes((uint8_t *)rawhost_ptr(&rh, q->buf + q->rq_off) + 32 * (q->rq_pi & 7), 32);
		q->rq_pi++;
		hermonprm_qp_db_record_st_set_receive_wqe_counter(rawhost_ptr(&rh, q->dbrec), q->rq_pi);
		/* a random packet, sometimes with valid CRCs */
		{
			size_t n = 8 + test_rand() % 500;

			random_bytes(pkt, n);
			if (test_rand() % 2) {
				pkt[0] = (uint8_t)(pkt[0] & 0xf0);
				pkt[1] = (uint8_t)((pkt[1] & 0xf0) | 2);
				pkt[8] = (uint8_t)(test_rand() % 2 ? 0x64 : test_rand() % 0x14);
				pkt[9] &= 0xcf;
				n &= ~(size_t)3;
				if (n < 40)
					n = 40;
				if (iblib_pkt_seal(pkt, n, sizeof(pkt)) > 0)
					n += 6;
			}
			hcasim_packet_in(rh.h, 1 + test_rand() % 2, pkt, n);
		}
		rawhost_run(&rh, NULL);
		{
			uint8_t cqe[32];

			while (rawhost_poll_cq(&rh, &cq, cqe))
				;
		}
	}
	/* whatever happened (QPs in error, catastrophic error), the HCR still answers */
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x004, 0, 0, NULL, 0, fw, sizeof(fw), NULL), 0);
	rawhost_fini(&rh);
}

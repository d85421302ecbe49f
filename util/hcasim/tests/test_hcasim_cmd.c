/* SPDX-License-Identifier: MIT */
/* hcasim: each command's success and its PRM error statuses; misuse changes nothing. */
#include <string.h>

#include <ibboot/hermon_prm.h>

#include "check_helpers.h"
#include "rawhost.h"
#include "test.h"

#define G(st, f, b) hermonprm_##st##_st_get_##f(b)
#define S(st, f, b, v) hermonprm_##st##_st_set_##f((b), (v))

TEST(hcasim_cmd_query_fw_and_firmware_state_machine)
{
	struct rawhost rh;
	uint8_t fw[256];
	uint64_t pa;

	CHECK_EQ(rawhost_init(&rh, NULL), 0);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x004, 0, 0, NULL, 0, fw, sizeof(fw), NULL), 0);
	CHECK_EQ(G(query_fw, fw_rev_major, fw), 2);
	CHECK_EQ(G(query_fw, fw_pages, fw), 64);
	CHECK_EQ(G(query_fw, error_buf_offset_l, fw), 0xf0000);
	CHECK_EQ(G(query_fw, error_buf_size, fw), 16);
	/* out of order: everything that needs running firmware */
	CHECK_EQ(rawhost_cmd(&rh, 0x003, 0, 0, 0, rh.out_mbox, NULL), 0x04);
	CHECK_EQ(rawhost_cmd(&rh, 0x007, 0, rh.in_mbox, 0, 0, NULL), 0x04);
	CHECK_EQ(rawhost_cmd(&rh, 0x016, 0, rh.in_mbox, 0, 0, NULL), 0x04);
	CHECK_EQ(rawhost_cmd(&rh, 0xffd, 0, 1 << 20, 0, 0, NULL), 0x04);
	/* RUN_FW before the firmware area is mapped */
	CHECK_EQ(rawhost_cmd(&rh, 0xff6, 0, 0, 0, 0, NULL), 0x09);
	/* misaligned / too small area */
	pa = rawhost_alloc(&rh, 64 * 4096, 64 * 4096);
	CHECK_EQ(rawhost_map(&rh, 0xfff, 0, pa + 4096, 6), 0x03);
	CHECK_EQ(rawhost_map(&rh, 0xfff, 0, pa, 5), 0);
	CHECK_EQ(rawhost_cmd(&rh, 0xff6, 0, 0, 0, 0, NULL), 0x09);
	CHECK_EQ(rawhost_map(&rh, 0xfff, 0, pa + 32 * 4096, 5), 0);
	CHECK_EQ(rawhost_cmd(&rh, 0xff6, 0, 0, 0, 0, NULL), 0);
	/* the firmware stamped its area */
	CHECK(memcmp(rawhost_ptr(&rh, pa), "hcasim fw image", 15) == 0);
	CHECK_EQ(rawhost_cmd(&rh, 0xfff, 0, rh.in_mbox, 1, 0, NULL), 0x04); /* MAP_FA while running */
	CHECK_EQ(rawhost_cmd(&rh, 0xff6, 0, 0, 0, 0, NULL), 0x04);
	CHECK_EQ(rawhost_cmd(&rh, 0xffe, 0, 0, 0, 0, NULL), 0); /* UNMAP_FA stops it */
	CHECK(hcasim_quiesced(rh.h));
	CHECK_EQ(rawhost_cmd(&rh, 0x003, 0, 0, 0, rh.out_mbox, NULL), 0x04);
	rawhost_fini(&rh);
}

TEST(hcasim_cmd_unknown_opcode_and_fault_injection)
{
	struct rawhost rh;
	uint64_t imm = 0;

	CHECK_EQ(rawhost_init(&rh, NULL), 0);
	CHECK_EQ(rawhost_cmd(&rh, 0x7ff, 0, 0, 0, 0, NULL), 0x02);
	CHECK(strstr(hcasim_refused(rh.h, 0), "no such command") != NULL);
	hcasim_fault_fail_cmd(rh.h, 0x004, 0x01);
	CHECK_EQ(rawhost_cmd(&rh, 0x004, 0, 0, 0, rh.out_mbox, NULL), 0x01);
	hcasim_fault_fail_cmd(rh.h, -1, 0);
	CHECK_EQ(rawhost_cmd(&rh, 0x004, 0, 0, 0, rh.out_mbox, NULL), 0);
	CHECK_EQ(hcasim_last_status(rh.h), 0);
	/* a stalled HCR keeps go set; it completes once released */
	hcasim_fault_stall_hcr(rh.h, true);
	CHECK_EQ(rawhost_cmd(&rh, 0x004, 0, 0, 0, rh.out_mbox, NULL), -1);
	hcasim_fault_stall_hcr(rh.h, false);
	CHECK(hcasim_step(rh.h));
	{
		uint8_t d[28];

		for (unsigned i = 0; i < 7; i++)
			hcasim_bar_read(rh.h, 0, 0x80680 + 4 * i, d + 4 * i, 4);
		CHECK_EQ(G(hca_command_register, go, d), 0);
		CHECK_EQ(G(hca_command_register, status, d), 0);
	}
	/* a timed-out command never completes, until reset */
	hcasim_fault_timeout_cmd(rh.h, 0x004);
	CHECK_EQ(rawhost_cmd(&rh, 0x004, 0, 0, 0, rh.out_mbox, &imm), -1);
	hcasim_fault_timeout_cmd(rh.h, -1);
	CHECK_EQ(rawhost_reset(&rh), 0);
	CHECK_EQ(rawhost_cmd(&rh, 0x004, 0, 0, 0, rh.out_mbox, NULL), 0);
	rawhost_fini(&rh);
}

TEST(hcasim_cmd_mailbox_must_be_aligned_and_backed)
{
	struct rawhost rh;

	CHECK_EQ(rawhost_init(&rh, NULL), 0);
	CHECK_EQ(rawhost_cmd(&rh, 0x004, 0, 0, 0, rh.out_mbox + 8, NULL), 0x03);
	CHECK_EQ(rawhost_cmd(&rh, 0x004, 0, 0, 0, 0x1000, NULL), 0x03);
	CHECK_EQ(rawhost_cmd(&rh, 0xfff, 0, 0x2000, 1, 0, NULL), 0x03);
	CHECK_EQ(rawhost_cmd(&rh, 0xfff, 0, rh.in_mbox, 0, 0, NULL), 0x03); /* zero entries */
	rawhost_fini(&rh);
}

TEST(hcasim_cmd_caps_port_adapter)
{
	struct rawhost rh;
	uint8_t cap[256], port[64], ad[256], msc[256] = { 0 };
	uint64_t imm;

	CHECK_EQ(rawhost_init(&rh, NULL), 0);
	CHECK_EQ(rawhost_bringup_hca(&rh), 0);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x003, 0, 0, NULL, 0, cap, sizeof(cap), NULL), 0);
	CHECK_EQ(G(query_dev_cap, num_ports, cap), 2);
	CHECK_EQ(G(query_dev_cap, log2_rsvd_qps, cap), 6);
	CHECK_EQ(G(query_dev_cap, num_rsvd_eqs, cap), 32);
	CHECK_EQ(G(query_dev_cap, d_mpt_entry_sz, cap), 64);
	CHECK_EQ(G(query_dev_cap, mtt_entry_sz, cap), 8);
	CHECK_EQ(G(query_dev_cap, ud, cap), 1);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x043, 0, 1, NULL, 0, port, sizeof(port), NULL), 0);
	CHECK_EQ(G(query_port_cap, ib, port), 1);
	CHECK_EQ(G(query_port_cap, ib_mtu, port), 5);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x043, 0, 3, NULL, 0, port, sizeof(port), NULL), 0x03);
	CHECK_EQ(rawhost_cmd(&rh, 0x04d, 0, 0, 2, 0, &imm), 0);
	CHECK_EQ(imm & 3, 1); /* InfiniBand */
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x006, 0, 0, NULL, 0, ad, sizeof(ad), NULL), 0);
	CHECK_EQ(G(query_adapter, intapin, ad), 1);
	CHECK_EQ(rawhost_cmd(&rh, 0x031, 0, 0, 0, 0, NULL), 0); /* NOP */
	S(mod_stat_cfg, log_pg_sz_m, msc, 1);
	S(mod_stat_cfg, log_pg_sz, msc, 0);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x034, 0, 0, msc, sizeof(msc), NULL, 0, NULL), 0x04);
	rawhost_fini(&rh);
}

TEST(hcasim_cmd_icm_size_aux_and_init_hca_checks)
{
	struct rawhost rh;
	uint8_t msc[256] = { 0 }, init[512] = { 0 };
	uint64_t fa, imm = 0;

	CHECK_EQ(rawhost_init(&rh, NULL), 0);
	fa = rawhost_alloc(&rh, 64 * 4096, 64 * 4096);
	CHECK_EQ(rawhost_map(&rh, 0xfff, 0, fa, 6), 0);
	CHECK_EQ(rawhost_cmd(&rh, 0xff6, 0, 0, 0, 0, NULL), 0);
	S(mod_stat_cfg, log_pg_sz_m, msc, 1);
	/* log_pg_sz is log2(page) - 12 (Linux mlx4_init_fw sends 0 for 4 KiB pages): 12 would be
	 * 16 MiB pages and is refused like any size but 4 KiB. */
	S(mod_stat_cfg, log_pg_sz, msc, 12);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x034, 0, 0, msc, sizeof(msc), NULL, 0, NULL), 0x03);
	S(mod_stat_cfg, log_pg_sz, msc, 1);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x034, 0, 0, msc, sizeof(msc), NULL, 0, NULL), 0x03);
	S(mod_stat_cfg, log_pg_sz, msc, 0);
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x034, 0, 0, msc, sizeof(msc), NULL, 0, NULL), 0);
	CHECK_EQ(rawhost_cmd(&rh, 0xffc, 0, rh.in_mbox, 1, 0, NULL), 0x04); /* AUX before size */
	CHECK_EQ(rawhost_cmd_mbox(&rh, 0x007, 0, 0, init, sizeof(init), NULL, 0, NULL), 0x04);
	CHECK_EQ(rawhost_cmd(&rh, 0xffd, 0, 0, 0, 0, &imm), 0x03);
	CHECK_EQ(rawhost_cmd(&rh, 0xffd, 0, 1ull << 30, 0, 0, &imm), 0);
	CHECK_EQ(imm, 16);
	CHECK_EQ(rawhost_cmd(&rh, 0xffa, 0, rh.in_mbox, 1, 0, NULL), 0x04); /* ICM before AUX */
	CHECK_EQ(rawhost_map(&rh, 0xffc, 0, rawhost_alloc(&rh, 16 * 4096, 16 * 4096), 4), 0);
	CHECK_EQ(rawhost_cmd(&rh, 0xffd, 0, 1ull << 31, 0, 0, &imm), 0x09); /* AUX mapped */
	/* INIT_HCA: each row edits the mailbox the previous row left, then expects this status */
	{
		void *qpc = hermonprm_init_hca_st_qpc_eec_cqc_eqc_rdb_parameters(init);
		void *mc = hermonprm_init_hca_st_multicast_parameters(init);
		void *uar = hermonprm_init_hca_st_uar_parameters(init);
		const struct {
			struct {
				void *buf;
				void (*set)(void *buf, uint32_t v);
				uint32_t v;
			} edit[3];
			int status;
		} steps[] = {
			/* version must be 2 */
			{ { { 0 } }, 0x03 },
			/* (version 2 now) misaligned QPC base */
			{ { { init, hermonprm_init_hca_st_set_version, 2 },
			    { qpc, hermonprm_qpcbaseaddr_st_set_qpc_base_addr_l, 0x1000 >> 5 },
			    { qpc, hermonprm_qpcbaseaddr_st_set_log_num_of_qp, 10 } }, 0x03 },
			/* QPC table larger than the device */
			{ { { qpc, hermonprm_qpcbaseaddr_st_set_qpc_base_addr_l, 0 },
			    { qpc, hermonprm_qpcbaseaddr_st_set_log_num_of_qp, 20 } }, 0x03 },
			/* bad multicast geometry */
			{ { { qpc, hermonprm_qpcbaseaddr_st_set_log_num_of_qp, 4 },
			    { mc, hermonprm_multicastparam_st_set_log_mc_table_entry_sz, 3 } }, 0x03 },
			/* UAR page size other than 4 KiB */
			{ { { mc, hermonprm_multicastparam_st_set_log_mc_table_entry_sz, 6 },
			    { uar, hermonprm_uar_params_st_set_uar_page_sz, 1 } }, 0x03 },
			/* a good mailbox initialises the HCA */
			{ { { uar, hermonprm_uar_params_st_set_uar_page_sz, 0 },
			    { uar, hermonprm_uar_params_st_set_log_max_uars, 8 } }, 0 },
			/* ... once: INIT_HCA again is a bad state */
			{ { { 0 } }, 0x04 },
		};

		for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
			for (size_t j = 0; j < 3 && steps[i].edit[j].set; j++)
				steps[i].edit[j].set(steps[i].edit[j].buf, steps[i].edit[j].v);
			CHECK_EQ(rawhost_cmd_mbox(&rh, 0x007, 0, 0, init, sizeof(init), NULL, 0, NULL),
				 steps[i].status);
		}
	}
	CHECK_EQ(rawhost_cmd(&rh, 0xffb, 0, 0, 0, 0, NULL), 0x04); /* UNMAP_ICM_AUX while up */
	CHECK_EQ(rawhost_cmd(&rh, 0xffe, 0, 0, 0, 0, NULL), 0x04); /* UNMAP_FA while up */
	CHECK_EQ(rawhost_cmd(&rh, 0x008, 0, 0, 0, 0, NULL), 0);   /* CLOSE_HCA */
	CHECK_EQ(rawhost_cmd(&rh, 0x008, 0, 0, 0, 0, NULL), 0x04);
	CHECK_EQ(rawhost_cmd(&rh, 0xffb, 0, 0, 0, 0, NULL), 0);
	CHECK_EQ(rawhost_cmd(&rh, 0xffe, 0, 0, 0, 0, NULL), 0);
	CHECK(hcasim_quiesced(rh.h));
	rawhost_fini(&rh);
}

TEST(hcasim_cmd_map_icm_limits_and_unmap)
{
	struct rawhost rh;
	struct hcasim_mem_usage before;
	uint64_t pa;

	CHECK_EQ(rawhost_up(&rh), 0);
	hcasim_mem_usage(rh.h, &before);
	pa = rawhost_alloc(&rh, 4096, 4096);
	/* overlapping an existing mapping: refused, nothing changes */
	CHECK_EQ(rawhost_map(&rh, 0xffa, rh.qpc.va, pa, 0), 0x03);
	/* beyond the 2^40-byte ICM virtual space */
	CHECK_EQ(rawhost_map(&rh, 0xffa, 1ull << 40, pa, 0), 0x03);
	expect_icm_bytes(&rh, before.icm_bytes);
	/* beyond SET_ICM_SIZE but inside the ICM space: accepted (Linux mlx4_init_icm maps its
	 * EQC table for 1024 EQs past the end of the layout it sized for 128) */
	CHECK_EQ(rawhost_map(&rh, 0xffa, (rh.icm_size + (1u << 20)) & ~4095ull, pa, 0), 0);
	expect_icm_bytes(&rh, before.icm_bytes + 4096);
	CHECK_EQ(rawhost_cmd(&rh, 0xff9, 0, (rh.icm_size + (1u << 20)) & ~4095ull, 1, 0, NULL), 0);
	expect_icm_bytes(&rh, before.icm_bytes);
	/* MAP_ICM works while the HCA is up (Linux maps ICM on demand) */
	CHECK_EQ(rawhost_map(&rh, 0xffa, rh.qpc.va - 4096, pa, 0), 0);
	expect_icm_bytes(&rh, before.icm_bytes + 4096);
	CHECK_EQ(rawhost_cmd(&rh, 0xff9, 0, rh.qpc.va - 4096, 1, 0, NULL), 0);
	CHECK_EQ(rawhost_cmd(&rh, 0xff9, 0, 123, 1, 0, NULL), 0x03);
	expect_icm_bytes(&rh, before.icm_bytes);
	rawhost_fini(&rh);
}

TEST(hcasim_cmd_teardown_quiesces_and_no_dma_after_close)
{
	struct rawhost rh;
	struct rawhost_cq cq;

	CHECK_EQ(rawhost_up(&rh), 0);
	CHECK_EQ(rawhost_create_cq(&rh, &cq, 128, 3), 0);
	CHECK_EQ(rawhost_cmd(&rh, 0x017, 0, 0, 128, 0, NULL), 0);      /* HW2SW_CQ */
	CHECK_EQ(rawhost_cmd(&rh, 0x012, 0, ~0ull, 1u << 31 | RAWHOST_EQN, 0, NULL), 0);
	CHECK_EQ(rawhost_cmd(&rh, 0x014, 1, 0, RAWHOST_EQN, rh.out_mbox, NULL), 0);
	CHECK_EQ(rawhost_cmd(&rh, 0x00f, 1, 0, RAWHOST_MPT_INDEX, 0, NULL), 0);
	CHECK_EQ(rawhost_cmd(&rh, 0x00a, 0, 0, 1, 0, NULL), 0);        /* CLOSE_PORT */
	CHECK_EQ(rawhost_cmd(&rh, 0x00a, 0, 0, 1, 0, NULL), 0x09);
	CHECK_EQ(rawhost_cmd(&rh, 0x008, 0, 0, 0, 0, NULL), 0);
	for (unsigned t = 0; t < 4; t++)
		CHECK_EQ(rawhost_cmd(&rh, 0xff9, 0, rh.cmpt[t].va, (uint32_t)(rh.cmpt[t].bytes / 4096), 0, NULL), 0);
	CHECK_EQ(rawhost_cmd(&rh, 0xff9, 0, rh.qpc.va, (uint32_t)((rh.icm_size - rh.qpc.va) / 4096), 0, NULL), 0);
	CHECK_EQ(rawhost_cmd(&rh, 0xffb, 0, 0, 0, 0, NULL), 0);
	CHECK_EQ(rawhost_cmd(&rh, 0xffe, 0, 0, 0, 0, NULL), 0);
	CHECK(hcasim_quiesced(rh.h));
	/* doorbells after close do nothing and touch no memory */
	{
		uint8_t db[4] = { 0, 0, 0x48, 0 };

		hcasim_bar_write(rh.h, 2, 128 * 4096 + 0x14, db, 4);
		hcasim_step(rh.h);
	}
	CHECK_EQ(hcasim_dma_after_close(rh.h), 0);
	rawhost_fini(&rh);
}

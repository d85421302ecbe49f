/* SPDX-License-Identifier: MIT */
/*
 * Hermon error-CQE syndromes (PRM "Completion with error"; the codes Linux mlx4 names). One list
 * for the driver, which turns them into IB completion statuses (hermon_cq.c), and for the HCA
 * model, which writes them.
 */
#ifndef IBBOOT_HERMON_SYNDROME_H
#define IBBOOT_HERMON_SYNDROME_H

enum hermon_syndrome {
	HERMON_SYND_LOCAL_LENGTH = 0x01,
	HERMON_SYND_LOCAL_QP_OP = 0x02,
	HERMON_SYND_LOCAL_PROT = 0x04,
	HERMON_SYND_WR_FLUSH = 0x05,
	HERMON_SYND_MW_BIND = 0x06,
	HERMON_SYND_BAD_RESP = 0x10,
	HERMON_SYND_LOCAL_ACCESS = 0x11,
	HERMON_SYND_REMOTE_INVAL_REQ = 0x12,
	HERMON_SYND_REMOTE_ACCESS = 0x13,
	HERMON_SYND_REMOTE_OP = 0x14,
	HERMON_SYND_TRANSPORT_RETRY = 0x15,
	HERMON_SYND_RNR_RETRY = 0x16,
	HERMON_SYND_REMOTE_ABORTED = 0x22,
};

#endif

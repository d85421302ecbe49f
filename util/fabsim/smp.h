/* SPDX-License-Identifier: MIT */
/*
 * Offsets into a 256-byte MAD and a subnet management packet (IBA 13.4.2, 14.2.1), the attribute
 * IDs fabsim's SMA answers (14.2.5) and MAD status codes (13.4.7).
 */
#ifndef FABSIM_SMP_H
#define FABSIM_SMP_H

#define MAD_BASE_VERSION 0
#define MAD_MGMT_CLASS 1
#define MAD_CLASS_VERSION 2
#define MAD_METHOD 3
#define MAD_STATUS 4          /* 16 bits; for DR SMPs bit 15 is the D (direction) bit */
#define MAD_HOP_PTR 6         /* DR SMP */
#define MAD_HOP_CNT 7         /* DR SMP */
#define MAD_TID 8
#define MAD_ATTR_ID 16
#define MAD_ATTR_MOD 20
#define SMP_MKEY 24
#define SMP_DR_SLID 32
#define SMP_DR_DLID 34
#define SMP_DATA 64           /* 64 bytes of attribute data */
#define SMP_INITIAL_PATH 128  /* DR: 64 port numbers, index = hop */
#define SMP_RETURN_PATH 192

#define MGMT_CLASS_SUBN_LID 0x01
#define MGMT_CLASS_SUBN_DR 0x81
#define MGMT_CLASS_SUBN_ADM 0x03

#define METHOD_GET 0x01
#define METHOD_SET 0x02
#define METHOD_GET_RESP 0x81
#define METHOD_TRAP 0x05
#define METHOD_TRAP_REPRESS 0x07
#define METHOD_RESP_BIT 0x80

#define SMP_DIRECTION 0x8000  /* D bit in MAD_STATUS: 1 = returning to the requester */

#define ATTR_NOTICE 0x0002
#define ATTR_NODE_DESC 0x0010
#define ATTR_NODE_INFO 0x0011
#define ATTR_SWITCH_INFO 0x0012
#define ATTR_GUID_INFO 0x0014
#define ATTR_PORT_INFO 0x0015
#define ATTR_PKEY_TABLE 0x0016
#define ATTR_SL2VL 0x0017
#define ATTR_VL_ARB 0x0018
#define ATTR_LFT 0x0019
#define ATTR_MFT 0x001B
#define ATTR_SM_INFO 0x0020
#define ATTR_MLNX_EXT_PORT_INFO 0xFF90

/* MAD status, IBA 13.4.7 table 112 (bits 2-4 of the status field). */
#define MAD_STATUS_BAD_METHOD (2 << 2)
#define MAD_STATUS_BAD_ATTR (3 << 2)
#define MAD_STATUS_BAD_VALUE (7 << 2)

#endif

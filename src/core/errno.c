/* SPDX-License-Identifier: MIT */
#include <ibboot/console.h>
#include <ibboot/errno.h>

/* By code, from 0: IB_EPERM = 1 ... IB_ECANCELED (errno.h's order). */
const char *ib_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err > IB_ECANCELED)
		return "unknown error";
	return str_nth("success\0operation not permitted\0not found\0I/O error\0out of memory\0"
		       "resource busy\0already exists\0no such device\0invalid argument\0"
		       "no space left in table\0out of range\0not supported\0timed out\0"
		       "bad address\0canceled", (unsigned)err);
}

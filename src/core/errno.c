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
	return str_nth("success\0not permitted\0not found\0I/O error\0out of memory\0busy\0"
		       "exists\0no device\0invalid argument\0no space\0out of range\0"
		       "not supported\0timed out\0bad address\0canceled", (unsigned)err);
}

/* SPDX-License-Identifier: MIT */
#include <ibboot/errno.h>

const char *ib_strerror(int err)
{
	static const char *const names[] = {
		[IB_EPERM] = "operation not permitted",
		[IB_ENOENT] = "not found",
		[IB_EIO] = "I/O error",
		[IB_ENOMEM] = "out of memory",
		[IB_EBUSY] = "resource busy",
		[IB_EEXIST] = "already exists",
		[IB_ENODEV] = "no such device",
		[IB_EINVAL] = "invalid argument",
		[IB_ENOSPC] = "no space left in table",
		[IB_ERANGE] = "out of range",
		[IB_ENOTSUP] = "not supported",
		[IB_ETIMEDOUT] = "timed out",
		[IB_EFAULT] = "bad address",
		[IB_ECANCELED] = "canceled",
	};

	if (err < 0)
		err = -err;
	if (err == 0)
		return "success";
	if ((unsigned)err < sizeof(names) / sizeof(names[0]) && names[err])
		return names[err];
	return "unknown error";
}

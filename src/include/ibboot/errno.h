/* SPDX-License-Identifier: MIT */
/*
 * Error codes. Functions return 0 or a negative code (-EINVAL, ...); the values are our own, so the
 * image needs no libc and the hosted build never mixes them with the host's errno.
 */
#ifndef IBBOOT_ERRNO_H
#define IBBOOT_ERRNO_H

enum ibboot_errno {
	IB_EPERM = 1,
	IB_ENOENT,
	IB_EIO,
	IB_ENOMEM,
	IB_EBUSY,
	IB_EEXIST,
	IB_ENODEV,
	IB_EINVAL,
	IB_ENOSPC,
	IB_ERANGE,
	IB_ENOTSUP,
	IB_ETIMEDOUT,
	IB_EFAULT,
	IB_ECANCELED,
};

/* Short names for code inside ibboot (the hosted build includes <errno.h> nowhere in core code). */
#ifndef IBBOOT_NO_SHORT_ERRNO
#define EPERM     IB_EPERM
#define ENOENT    IB_ENOENT
#define EIO       IB_EIO
#define ENOMEM    IB_ENOMEM
#define EBUSY     IB_EBUSY
#define EEXIST    IB_EEXIST
#define ENODEV    IB_ENODEV
#define EINVAL    IB_EINVAL
#define ENOSPC    IB_ENOSPC
#define ERANGE    IB_ERANGE
#define ENOTSUP   IB_ENOTSUP
#define ETIMEDOUT IB_ETIMEDOUT
#define EFAULT    IB_EFAULT
#define ECANCELED IB_ECANCELED
#endif

/* "invalid argument" etc. for a negative or positive code. */
const char *ib_strerror(int err);

#endif

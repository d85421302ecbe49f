/* SPDX-License-Identifier: MIT */
#ifndef IBBOOT_VERSION_H
#define IBBOOT_VERSION_H
/* The build passes -DIBBOOT_VERSION="<git describe>"; this is the fallback. */
#ifndef IBBOOT_VERSION
#define IBBOOT_VERSION "0.1-unknown"
#endif
#endif

/* SPDX-License-Identifier: MIT */
/* Compiler helpers shared by the image and the hosted build. */
#ifndef IBBOOT_COMPILER_H
#define IBBOOT_COMPILER_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdarg.h>

#define __noreturn   __attribute__((noreturn))
#define __unused     __attribute__((unused))
#define __packed     __attribute__((packed))
#define __aligned(n) __attribute__((aligned(n)))
#define __printf(f, a) __attribute__((format(printf, f, a)))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Power-of-two alignment helpers (align must be a power of two). */
#define ALIGN_UP(x, a)   (((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define IS_POW2(x)       ((x) != 0 && ((x) & ((x) - 1)) == 0)

#define KiB(x) ((uint64_t)(x) << 10)
#define MiB(x) ((uint64_t)(x) << 20)
#define GiB(x) ((uint64_t)(x) << 30)

#endif

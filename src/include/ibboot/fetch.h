/* SPDX-License-Identifier: MIT */
/*
 * Fetching a URL into an image: the scheme (tftp://, http://, module:N for a file the boot
 * loader brought) picks a handler; handlers register themselves (the network ones from the
 * image's start hook), so the loaders and scripts never name a protocol.
 */
#ifndef IBBOOT_FETCH_H
#define IBBOOT_FETCH_H

#include <ibboot/compiler.h>

struct image;

/* Bytes so far and the total when known (0 = unknown). */
typedef void (*fetch_progress_fn)(void *ctx, uint64_t bytes, uint64_t total);

struct fetch_scheme {
	const char *scheme;   /* "tftp", without "://" */
	/* Writes the file to buf[0..size); returns its length or a negative error, having said
	 * what went wrong and what to check. */
	long (*fetch)(const char *uri, uint8_t *buf, size_t size, fetch_progress_fn progress,
		      void *ctx);
};

#define FETCH_MAX_SCHEMES 8
/* 0, or -ENOSPC when the table is full; a second registration of a scheme replaces the first. */
int fetch_register(const struct fetch_scheme *s);
/* Downloads `uri` into a new image `name` (replacing one so named), showing a progress bar.
 * NULL on failure with *rc set and the reason printed. */
struct image *fetch_image(const char *uri, const char *name, int *rc);
/* The same with a SHA-256 pin given before the fetch (NULL: none). The pin is checked on the
 * image's own buffer once the download is in it: a mismatch discards the image (-EPERM). In
 * enforcing mode (image.h) a fetch without a pin is refused before anything is downloaded. */
struct image *fetch_image_pinned(const char *uri, const char *name, const uint8_t *pin, int *rc);
/* The progress display fetch_image uses (for handlers' own tests). */
void fetch_progress_show(void *ctx, uint64_t bytes, uint64_t total);
/* Turns a name without a scheme into a URL (the network sets it: tftp://next-server/NAME);
 * NULL leaves such names unresolvable. */
extern int (*fetch_resolve_relative)(const char *name, char *out, size_t size);

/* Largest download accepted; the staging buffer is at most this. */
#define FETCH_STAGING_MAX ((size_t)512 << 20)

#endif

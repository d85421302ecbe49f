/* SPDX-License-Identifier: MIT */
/*
 * A fetch scheme for the image and script tests: "fake://h/PATH" serves what the test put under
 * PATH (fake_fetch_serve) and counts downloads; plus a capture of the console (the hosted
 * platform writes it to stdout), so a test can assert the message of a refusal.
 */
#ifndef FAKE_FETCH_H
#define FAKE_FETCH_H

#include <stddef.h>
#include <stdint.h>

/* Registers the scheme and forgets what was served before. */
void fake_fetch_reset(void);
/* Serves data[0..len) (copied) as fake://h/PATH. */
void fake_fetch_serve(const char *path, const void *data, size_t len);
/* Downloads so far (any path, found or not). */
extern unsigned fake_fetch_calls;

/* SHA-256 of data as 64 lower-case hex digits into hex[65]. */
void fake_sha256_hex(const void *data, size_t len, char hex[65]);

/* A minimal relocatable 64-bit bzImage (protocol 2.15, setup_sects 1) of `len` bytes. */
void fake_bzimage(uint8_t *buf, size_t len);

/* Console capture: everything printed between begin and end; end returns it (valid until the
 * next begin) and also passes it on to the real stdout for the test log. */
void capture_begin(void);
const char *capture_end(void);

#endif

/* SPDX-License-Identifier: MIT */
/* See fake_fetch.h. */
#include "fake_fetch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ibboot/errno.h>
#include <ibboot/fetch.h>
#include <ibboot/sha256.h>

#define FAKE_FILES 8
static struct {
	char path[64];
	uint8_t *data;
	size_t len;
} files[FAKE_FILES];
unsigned fake_fetch_calls;

static long fake_fetch(const char *uri, uint8_t *buf, size_t size, fetch_progress_fn progress,
		       void *ctx)
{
	const char *path = strncmp(uri, "fake://h/", 9) == 0 ? uri + 9 : "";

	fake_fetch_calls++;
	for (unsigned i = 0; i < FAKE_FILES; i++) {
		if (!files[i].data || strcmp(files[i].path, path))
			continue;
		if (files[i].len > size)
			return -ENOSPC;
		memcpy(buf, files[i].data, files[i].len);
		if (progress)
			progress(ctx, files[i].len, files[i].len);
		return (long)files[i].len;
	}
	return -ENOENT;
}

static const struct fetch_scheme fake_scheme = { "fake", fake_fetch };

void fake_fetch_reset(void)
{
	for (unsigned i = 0; i < FAKE_FILES; i++) {
		free(files[i].data);
		files[i].data = NULL;
	}
	fake_fetch_calls = 0;
	fetch_register(&fake_scheme);
}

void fake_fetch_serve(const char *path, const void *data, size_t len)
{
	for (unsigned i = 0; i < FAKE_FILES; i++) {
		if (files[i].data && strcmp(files[i].path, path))
			continue;
		free(files[i].data);
		snprintf(files[i].path, sizeof(files[i].path), "%s", path);
		files[i].data = malloc(len ? len : 1);
		if (files[i].data)
			memcpy(files[i].data, data, len);
		files[i].len = len;
		return;
	}
	fprintf(stderr, "fake_fetch_serve: more than %d files\n", FAKE_FILES);
	abort();
}

void fake_sha256_hex(const void *data, size_t len, char hex[65])
{
	uint8_t d[SHA256_DIGEST_LEN];

	sha256(data, len, d);
	sha256_to_hex(d, hex);
}

static void put32(uint8_t *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, 4);   /* the setup header is little-endian, as the host */
}

/* Documentation/arch/x86/boot.rst: the fields bzimage_parse checks for a 64-bit entry. */
void fake_bzimage(uint8_t *b, size_t len)
{
	memset(b, 0, len);
	b[0x1f1] = 1;                             /* setup_sects: setup is 1024 bytes */
	b[0x1fe] = 0x55, b[0x1ff] = 0xaa;
	b[0x201] = 0x6a;                          /* header ends at 0x26c */
	memcpy(b + 0x202, "HdrS", 4);
	b[0x206] = 0x0f, b[0x207] = 0x02;         /* protocol 2.15 */
	b[0x211] = 0x01;                          /* LOADED_HIGH */
	put32(b, 0x214, 0x100000);
	put32(b, 0x22c, 0x7fffffff);              /* initrd_addr_max */
	put32(b, 0x230, 0x200000);                /* kernel_alignment */
	b[0x234] = 1;                             /* relocatable */
	b[0x235] = 21;                            /* min_alignment */
	b[0x236] = 3;                             /* XLF_KERNEL_64 | CAN_BE_LOADED_ABOVE_4G */
	put32(b, 0x238, 2047);                    /* cmdline_size */
	put32(b, 0x258, 0x1000000);
	put32(b, 0x260, 0x100000);                /* init_size */
	for (size_t i = 1024; i < len; i++)
		b[i] = (uint8_t)(i * 13);
}

static char captured[16384];
static int saved_stdout = -1;
static FILE *capture_file;

void capture_begin(void)
{
	fflush(stdout);
	captured[0] = '\0';
	capture_file = tmpfile();
	if (!capture_file)
		return;
	saved_stdout = dup(STDOUT_FILENO);
	dup2(fileno(capture_file), STDOUT_FILENO);
}

const char *capture_end(void)
{
	size_t n;

	fflush(stdout);
	if (!capture_file)
		return captured;
	dup2(saved_stdout, STDOUT_FILENO);
	close(saved_stdout);
	saved_stdout = -1;
	rewind(capture_file);
	n = fread(captured, 1, sizeof(captured) - 1, capture_file);
	captured[n] = '\0';
	fclose(capture_file);
	capture_file = NULL;
	fputs(captured, stdout);
	fflush(stdout);
	return captured;
}

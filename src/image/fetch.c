/* SPDX-License-Identifier: MIT */
/* URL → image: scheme dispatch, the staging buffer, the progress bar, module:N. */
#include <ibboot/fetch.h>
#include <ibboot/image.h>
#include <ibboot/script.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/platform.h>
#include <ibboot/shell.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>

/* module:N — a file the boot loader loaded next to ibboot (multiboot module / Linux initrd). */
static long fetch_module(const char *uri, uint8_t *buf, size_t size, fetch_progress_fn progress,
			 void *ctx)
{
	const struct plat_mem_region *mods;
	unsigned n = plat_boot_modules(&mods);
	uint64_t idx;

	if (!shell_parse_num(uri + strlen("module:"), 1000, &idx)) {
		kprintf("%s: expected module:N\n", uri);
		return -EINVAL;
	}
	if (idx >= n) {
		kprintf("%s: the boot loader brought %u module(s)\n", uri, n);
		return -ENOENT;
	}
	if (mods[idx].len > size) {
		kprintf("%s: %llu bytes do not fit %zu\n", uri,
			(unsigned long long)mods[idx].len, size);
		return -ENOSPC;
	}
	memcpy(buf, bus_to_virt(mods[idx].base), mods[idx].len);
	if (progress)
		progress(ctx, mods[idx].len, mods[idx].len);
	return (long)mods[idx].len;
}

static const struct fetch_scheme module_scheme = { "module", fetch_module };
static const struct fetch_scheme *schemes[FETCH_MAX_SCHEMES] = { &module_scheme };

int (*fetch_resolve_relative)(const char *name, char *out, size_t size);

int fetch_register(const struct fetch_scheme *s)
{
	for (unsigned i = 0; i < FETCH_MAX_SCHEMES; i++)
		if (!schemes[i] || strcmp(schemes[i]->scheme, s->scheme) == 0) {
			schemes[i] = s;
			return 0;
		}
	return -ENOSPC;
}

static const struct fetch_scheme *find_scheme(const char *uri)
{
	const char *colon = strchr(uri, ':');
	size_t n;

	if (!colon)
		return NULL;
	n = (size_t)(colon - uri);
	for (unsigned i = 0; i < FETCH_MAX_SCHEMES && schemes[i]; i++)
		if (strlen(schemes[i]->scheme) == n && strncmp(schemes[i]->scheme, uri, n) == 0)
			return schemes[i];
	return NULL;
}

struct progress_state {
	const char *name;
	uint64_t start_us, last_us, bytes, total;
	bool drawn;
};

/* Tenths of MB/s (10^6 bytes per second): bytes per µs, times ten. */
static unsigned mbps_tenths(uint64_t bytes, uint64_t us)
{
	return us ? (unsigned)(bytes * 10 / us) : 0;
}

static void draw(struct progress_state *s, uint64_t now)
{
	enum { WIDTH = 24 };
	char bar[WIDTH + 1];
	unsigned fill = s->total ? (unsigned)(s->bytes * WIDTH / MAX(s->total, s->bytes)) : 0;
	unsigned r = mbps_tenths(s->bytes, now - s->start_us);

	for (unsigned i = 0; i < WIDTH; i++)
		bar[i] = i < fill ? '=' : (i == fill && s->total ? '>' : ' ');
	bar[WIDTH] = '\0';
	/* KiB once there are enough of them to matter, bytes before. */
	bool kib = MAX(s->total, s->bytes) >= KiB(64);
	unsigned shift = kib ? 10 : 0;
	const char *unit = kib ? "KiB" : "bytes";
	if (s->total)
		kprintf("\r  %s [%s] %llu/%llu %s %u.%u MB/s ", s->name, bar,
			(unsigned long long)(s->bytes >> shift), (unsigned long long)(s->total >> shift),
			unit, r / 10, r % 10);
	else
		kprintf("\r  %s %llu %s %u.%u MB/s ", s->name, (unsigned long long)(s->bytes >> shift),
			unit, r / 10, r % 10);
	s->drawn = true;
}

void fetch_progress_show(void *ctx, uint64_t bytes, uint64_t total)
{
	struct progress_state *s = ctx;
	uint64_t now = clock_us();

	s->bytes = bytes;
	s->total = total;
	/* A few redraws a second: a serial console at 115200 baud takes ~6 ms per line. */
	if (now - s->last_us >= 250000 || (total && bytes >= total)) {
		s->last_us = now;
		draw(s, now);
	}
}

/* The pin is compared with the image's own buffer (what boots), not with the staging copy. */
static int check_pin(struct image *img, const uint8_t *pin)
{
	if (image_sha256_match(img, pin, true))
		return -EPERM;
	memcpy(img->pin, pin, SHA256_DIGEST_LEN);
	img->pinned = IMAGE_PINNED_BEFORE_FETCH;
	img->verified = 1;
	return 0;
}

struct image *fetch_image(const char *uri, const char *name, int *rc)
{
	return fetch_image_pinned(uri, name, NULL, rc);
}

struct image *fetch_image_pinned(const char *uri, const char *name, const uint8_t *pin, int *rc)
{
	char resolved[IMAGE_URI_MAX];

	if (!pin && image_trust_enforcing()) {
		kprintf("trust: refusing to fetch %s: no SHA-256 pin (enforcing: --sha256 HEX)\n",
			uri);
		*rc = -EPERM;
		return NULL;
	}

	if (!strchr(uri, ':') && fetch_resolve_relative) {
		*rc = fetch_resolve_relative(uri, resolved, sizeof(resolved));
		if (*rc)
			return NULL;
		uri = resolved;
	}
	const struct fetch_scheme *s = find_scheme(uri);
	struct dma_stats st;
	size_t size;
	uint8_t *buf;
	struct progress_state ps = { .name = name };
	long n;

	if (!s) {
		kprintf("%s: unknown URL scheme (have module:, tftp:, http:)\n", uri);
		*rc = -ENOTSUP;
		return NULL;
	}
	if (strlen(uri) >= IMAGE_URI_MAX) {
		kprintf("%s: URL over %d chars\n", name, IMAGE_URI_MAX - 1);
		*rc = -ERANGE;
		return NULL;
	}
	/* Stage into the largest block we can spare, then keep an exact-size copy. */
	dma_get_stats(&st);
	size = (size_t)MIN((uint64_t)FETCH_STAGING_MAX, st.largest / 2);
	size &= ~(size_t)4095;
	buf = size ? dma_alloc(size, 4096) : NULL;
	if (!buf) {
		kprintf("%s: no memory (largest block %llu KiB)\n", uri,
			(unsigned long long)(st.largest >> 10));
		*rc = -ENOMEM;
		return NULL;
	}
	boot_phase("fetching %s", uri);
	ps.start_us = ps.last_us = clock_us();
	n = s->fetch(uri, buf, size, fetch_progress_show, &ps);
	if (ps.drawn)
		kputc('\n');
	if (n < 0) {
		dma_free(buf, size);
		*rc = (int)n;
		boot_phase("%s: download failed (%s)", uri, ib_strerror((int)n));
		return NULL;
	}
	uint64_t us = clock_us() - ps.start_us;
	unsigned r = mbps_tenths((uint64_t)n, us);
	struct image *img = image_add(name, buf, (size_t)n);
	dma_free(buf, size);
	if (!img) {
		*rc = -ENOMEM;
		return NULL;
	}
	memcpy(img->uri, uri, strlen(uri) + 1);
	boot_phase("%s: %ld bytes in %llu.%03llu s (%u.%u MB/s)", name, n,
		   (unsigned long long)(us / 1000000), (unsigned long long)(us / 1000 % 1000),
		   r / 10, r % 10);
	if (pin) {
		*rc = check_pin(img, pin);
		if (*rc) {
			image_free(img);
			return NULL;
		}
	}
	*rc = 0;
	return img;
}

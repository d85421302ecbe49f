/* SPDX-License-Identifier: MIT */
/* The image registry (see image.h): named files in allocator memory, with command lines. */
#include <ibboot/image.h>
#include <ibboot/config.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/shell.h>
#include <ibboot/string.h>

static struct image *images;
/* Enforcing mode: set at build time or by image_trust_enforce(), never cleared. */
static bool trust_enforcing = TRUST_ENFORCE;

/* The parsers' reason for a refusal: one buffer, read by the caller before the next parse. */
static char why_buf[160];

int image_fail(const char **why, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(why_buf, sizeof(why_buf), fmt, ap);
	va_end(ap);
	if (why)
		*why = why_buf;
	return rc;
}

static bool name_ok(const char *name)
{
	size_t n = strlen(name);

	return n > 0 && n < IMAGE_NAME_MAX;
}

static void unlink_image(struct image *img)
{
	for (struct image **pp = &images; *pp; pp = &(*pp)->next)
		if (*pp == img) {
			*pp = img->next;
			return;
		}
}

struct image *image_adopt(const char *name, uint8_t *buf, size_t len, size_t alloc)
{
	struct image *img, *old;

	if (!name_ok(name)) {
		kprintf("image: name '%s' not 1..%d chars\n", name, IMAGE_NAME_MAX - 1);
		return NULL;
	}
	img = kzalloc(sizeof(*img));
	if (!img) {
		kprintf("image: no memory for %s\n", name);
		return NULL;
	}
	old = image_find(name);
	if (old)
		image_free(old);
	memcpy(img->name, name, strlen(name) + 1);
	img->data = buf;
	img->len = len;
	img->alloc = alloc;
	/* Appended: initrds are concatenated in the order they were fetched. */
	struct image **pp = &images;
	while (*pp)
		pp = &(*pp)->next;
	*pp = img;
	return img;
}

struct image *image_add(const char *name, const void *data, size_t len)
{
	size_t alloc = len ? len : 1;
	uint8_t *buf = dma_alloc(alloc, 4096);
	struct image *img;

	if (!buf) {
		kprintf("image: no memory for %s (%zu bytes); imgfree?\n", name, len);
		return NULL;
	}
	memcpy(buf, data, len);
	img = image_adopt(name, buf, len, alloc);
	if (!img)
		dma_free(buf, alloc);
	return img;
}

struct image *image_find(const char *name)
{
	for (struct image *i = images; i; i = i->next)
		if (strcmp(i->name, name) == 0)
			return i;
	return NULL;
}

struct image *image_first(void)
{
	return images;
}

struct image *image_selected(void)
{
	struct image *sel = NULL;

	for (struct image *i = images; i; i = i->next)
		if (i->role == IMAGE_ROLE_KERNEL)
			sel = i;
	return sel;
}

void image_free(struct image *img)
{
	if (!img)
		return;
	unlink_image(img);
	if (img->data)
		dma_free(img->data, img->alloc);
	kfree(img);
}

void image_free_all(void)
{
	while (images)
		image_free(images);
}

int image_set_cmdline(struct image *img, int argc, char **argv)
{
	char buf[IMAGE_CMDLINE_MAX];

	if (shell_join(argc, argv, buf, sizeof(buf))) {
		kprintf("%s: command line over %d chars\n", img->name,
			IMAGE_CMDLINE_MAX - 1);
		return -ERANGE;
	}
	memcpy(img->cmdline, buf, strlen(buf) + 1);
	return 0;
}

void image_name_from_uri(const char *uri, char *name, size_t size)
{
	const char *start = uri, *end;

	for (const char *p = uri; *p && *p != '?' && *p != '#'; p++)
		if (*p == '/')
			start = p + 1;
	for (end = start; *end && *end != '?' && *end != '#'; end++)
		;
	if (end == start) {   /* "http://host/" names nothing: use the whole thing */
		start = uri;
		end = uri + strlen(uri);
	}
	size_t n = MIN((size_t)(end - start), size - 1);
	memcpy(name, start, n);
	name[n] = '\0';
}

int image_pin_parse(const char *who, const char *hex, uint8_t pin[SHA256_DIGEST_LEN])
{
	if (sha256_from_hex(hex, pin)) {
		kprintf("%s: '%s' not a SHA-256 (64 hex)\n", who, hex);
		return -EINVAL;
	}
	return 0;
}

int image_sha256_match(const struct image *img, const uint8_t want[SHA256_DIGEST_LEN],
		       bool before_fetch)
{
	uint8_t got[SHA256_DIGEST_LEN];
	char want_hex[2 * SHA256_DIGEST_LEN + 1], got_hex[2 * SHA256_DIGEST_LEN + 1];

	sha256(img->data, img->len, got);
	sha256_to_hex(got, got_hex);
	if (memcmp(want, got, SHA256_DIGEST_LEN) != 0) {
		sha256_to_hex(want, want_hex);
		kprintf("sha256: %s MISMATCH: %s %s%s\n"
			"sha256:   %zu bytes from %s hash to %s: %s\n", img->name,
			before_fetch ? "pinned" : "expected", want_hex,
			before_fetch ? " before the fetch" : "", img->len,
			img->uri[0] ? img->uri : "-", got_hex, before_fetch ?
			"discarded (corrupt or wrong pin)" : "won't boot");
		return -EPERM;
	}
	kprintf("sha256: %s OK (%s%s)\n", img->name, got_hex,
		before_fetch ? ", pinned before the fetch" : "");
	return 0;
}

int image_verify_sha256(struct image *img, const char *hex)
{
	uint8_t want[SHA256_DIGEST_LEN];

	if (image_pin_parse("sha256", hex, want))
		return -EINVAL;
	if (image_sha256_match(img, want, false)) {
		img->verified = -1;
		return -EPERM;
	}
	/* A pin given before the fetch stays the stronger kind when this line agrees with it. */
	if (img->pinned != IMAGE_PINNED_BEFORE_FETCH || memcmp(img->pin, want, sizeof(want))) {
		memcpy(img->pin, want, sizeof(want));
		img->pinned = IMAGE_PINNED_AFTER_FETCH;
	}
	img->verified = 1;
	if (trust_enforcing && img->pinned != IMAGE_PINNED_BEFORE_FETCH)
		kprintf("sha256: note: enforcing needs %s pinned on fetch\n", img->name);
	return 0;
}

/* ---- trust policy (see image.h) ---- */

bool image_trust_enforcing(void)
{
	return trust_enforcing;
}

void image_trust_enforce(void)
{
	if (!trust_enforcing)
		kprintf("imgtrust: enforcing, for good\n");
	trust_enforcing = true;
}

int image_trust_allowed(const struct image *img)
{
	if (img->verified < 0) {
		kprintf("boot: refusing: %s failed its sha256 check (refetch or fix the pin)\n",
			img->name);
		return -EPERM;
	}
	if (trust_enforcing && img->pinned != IMAGE_PINNED_BEFORE_FETCH) {
		kprintf("trust: refusing %s: %s (enforcing: --sha256 HEX on fetch)\n",
			img->name, img->pinned == IMAGE_UNPINNED ?
			"no SHA-256 pin" : "pinned only after fetch");
		return -EPERM;
	}
	return 0;
}

#if __STDC_HOSTED__
/* Unit tests only (the freestanding image has no such function): back to the build's mode. */
void image_trust_reset_for_tests(void)
{
	trust_enforcing = TRUST_ENFORCE;
}
#endif

int image_trust_check(const struct image *img, const uint8_t digest[SHA256_DIGEST_LEN])
{
	char want[2 * SHA256_DIGEST_LEN + 1], got[2 * SHA256_DIGEST_LEN + 1];
	int rc = image_trust_allowed(img);

	if (rc || img->pinned == IMAGE_UNPINNED)
		return rc;
	if (memcmp(img->pin, digest, SHA256_DIGEST_LEN) != 0) {
		sha256_to_hex(img->pin, want);
		sha256_to_hex(digest, got);
		kprintf("trust: refusing %s: %zu bytes to boot hash to %s, not pinned %s\n",
			img->name, img->len, got, want);
		return -EPERM;
	}
	return 0;
}

int image_trust_check_at(const struct image *img, const void *head, size_t head_len,
			 const void *rest)
{
	struct sha256_ctx c;
	uint8_t d[SHA256_DIGEST_LEN];

	if (img->pinned == IMAGE_UNPINNED)   /* nothing to compare: the policy alone */
		return image_trust_allowed(img);
	sha256_init(&c);
	sha256_update(&c, head, head_len);
	sha256_update(&c, rest, img->len - head_len);
	sha256_final(&c, d);
	return image_trust_check(img, d);
}

int image_trust_check_data(const struct image *img)
{
	return image_trust_check_at(img, img->data, img->len, img->data);
}

/* fetch.c: scheme dispatch, staging into an exact-size image, failures, relative names. */
#include "test.h"
#include <ibboot/fetch.h>
#include <ibboot/image.h>
#include <ibboot/errno.h>

static unsigned progress_calls;
static char last_uri[128];

static long fake_fetch(const char *uri, uint8_t *buf, size_t size, fetch_progress_fn progress,
		       void *ctx)
{
	snprintf(last_uri, sizeof(last_uri), "%s", uri);
	if (strstr(uri, "missing"))
		return -ENOENT;
	for (size_t i = 0; i < 5000 && i < size; i++)
		buf[i] = (uint8_t)(i * 7);
	if (progress) {
		progress(ctx, 2500, 5000);
		progress(ctx, 5000, 5000);
		progress_calls += 2;
	}
	return 5000;
}

static const struct fetch_scheme fake = { "fake", fake_fetch };

static int resolve(const char *name, char *out, size_t size)
{
	snprintf(out, size, "fake://server/%s", name);
	return 0;
}

TEST(fetch_dispatches_and_copies_exactly)
{
	struct image *img;
	int rc;

	image_free_all();
	CHECK_EQ(fetch_register(&fake), 0);
	img = fetch_image("fake://h/dir/file.bin", "file.bin", &rc);
	CHECK_EQ(rc, 0);
	CHECK(img != NULL);
	if (!img)
		return;
	CHECK_EQ(img->len, 5000);
	CHECK_STR(img->uri, "fake://h/dir/file.bin");
	CHECK_EQ(img->data[4999], (uint8_t)(4999 * 7));
	CHECK(progress_calls >= 2);
	image_free_all();
}

TEST(fetch_failures_leave_no_image)
{
	int rc;

	image_free_all();
	fetch_register(&fake);
	CHECK(fetch_image("fake://h/missing", "m", &rc) == NULL);
	CHECK_EQ(rc, -ENOENT);
	CHECK(fetch_image("gopher://h/x", "g", &rc) == NULL);
	CHECK_EQ(rc, -ENOTSUP);
	CHECK(fetch_image("module:99", "m", &rc) == NULL);   /* no such boot module */
	CHECK_EQ(rc, -ENOENT);
	CHECK(fetch_image("module:x", "m", &rc) == NULL);
	CHECK_EQ(rc, -EINVAL);
	CHECK(image_first() == NULL);
}

TEST(fetch_relative_names_use_the_resolver)
{
	int rc;
	struct image *img;

	image_free_all();
	fetch_register(&fake);
	fetch_resolve_relative = NULL;
	CHECK(fetch_image("boot.ipxe", "b", &rc) == NULL);   /* no scheme, no resolver */
	fetch_resolve_relative = resolve;
	img = fetch_image("boot.ipxe", "b", &rc);
	CHECK(img != NULL);
	CHECK_STR(last_uri, "fake://server/boot.ipxe");
	fetch_resolve_relative = NULL;
	image_free_all();
}

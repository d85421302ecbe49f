/*
 * Pins through the firmware's script layer (script_run_firmware: the console's commands and the
 * DHCP settings): the embedded script's `chain ${filename}` under a DHCP pin, a script pinning
 * the script it chains, and `imgtrust` in a script. A refused script's own commands never run.
 */
#include "test.h"
#include "fake_fetch.h"

#include <ibboot/dhcp.h>
#include <ibboot/errno.h>
#include <ibboot/image.h>
#include <ibboot/script.h>

static const char first[] = "#!ipxe\nset ran-first yes\n";
static const char evil[] = "#!ipxe\nset ran-evil yes\n";
static char first_hex[65];

/* What the autoboot installs (src/script/firmware.c): a script image runs in the firmware. */
static int run_image(struct image *img)
{
	return script_run_firmware((const char *)img->data, img->len);
}

static bool is_set(const char *name)
{
	char v[8];

	return setting_get(name, v, sizeof(v)) > 0;
}

static int run(const char *text)
{
	return script_run_firmware(text, strlen(text));
}

static void setup(void)
{
	image_trust_reset_for_tests();
	image_free_all();
	fake_fetch_reset();
	fake_sha256_hex(first, strlen(first), first_hex);
	image_run_script = run_image;
	setting_set("ran-first", NULL);
	setting_set("ran-evil", NULL);
	setting_set("filename", "fake://h/boot.ipxe");
	setting_set("filename-sha256", NULL);
}

static void teardown(void)
{
	image_free_all();
	image_trust_reset_for_tests();
	image_run_script = NULL;
	setting_set("filename", NULL);
	setting_set("filename-sha256", NULL);
}

/* The embedded default script under a DHCP pin: the real first script runs; one the server (or
 * the network) substituted is refused and none of its lines run. */
TEST(trust_embedded_script_with_dhcp_pin)
{
	const char *out;

	setup();
	setting_set("filename-sha256", first_hex);
	fake_fetch_serve("boot.ipxe", first, strlen(first));
	CHECK_EQ(run("#!ipxe\nchain ${filename}\n"), 0);
	CHECK(is_set("ran-first"));

	setting_set("ran-first", NULL);
	fake_fetch_serve("boot.ipxe", evil, strlen(evil));
	capture_begin();
	CHECK_EQ(run("#!ipxe\nchain ${filename}\n"), -EPERM);
	out = capture_end();
	CHECK(strstr(out, "sha256: boot.ipxe MISMATCH") != NULL);
	CHECK(!is_set("ran-evil") && !is_set("ran-first"));
	teardown();
}

/* Without a pin the same substitution goes through (the permissive default): what the pin adds. */
TEST(trust_without_a_pin_the_substitute_runs)
{
	setup();
	fake_fetch_serve("boot.ipxe", evil, strlen(evil));
	CHECK_EQ(run("#!ipxe\nchain ${filename}\n"), 0);
	CHECK(is_set("ran-evil"));
	teardown();
}

/* A pinned script pins the script it chains; enforcing mode from a script. */
TEST(trust_scripts_pin_what_they_chain)
{
	char text[256];
	const char *out;

	setup();
	fake_fetch_serve("second.ipxe", evil, strlen(evil));
	snprintf(text, sizeof(text), "#!ipxe\nchain --sha256 %s fake://h/second.ipxe\n", first_hex);
	capture_begin();
	CHECK_EQ(run(text), -EPERM);
	out = capture_end();
	CHECK(strstr(out, "sha256: second.ipxe MISMATCH") != NULL);
	CHECK(!is_set("ran-evil"));

	/* imgtrust in a script: the unpinned chain after it is refused, --allow fails */
	capture_begin();
	CHECK_EQ(run("#!ipxe\nimgtrust\nchain fake://h/second.ipxe || imgtrust --allow\n"), -EPERM);
	out = capture_end();
	CHECK(strstr(out, "trust: refusing to fetch fake://h/second.ipxe") != NULL);
	CHECK(strstr(out, "enforcing mode cannot be turned off") != NULL);
	CHECK(image_trust_enforcing());
	CHECK(!is_set("ran-evil"));
	teardown();
}

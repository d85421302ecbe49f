/*
 * The trust policy: --sha256 pins given before a fetch (kernel, initrd, imgfetch, chain), the
 * DHCP boot-file pin, pins checked again on the bytes that boot (kernel, initrds, multiboot
 * modules, scripts), and enforcing mode (imgtrust). Each refusal's message is asserted, and that
 * nothing was fetched, booted or run.
 */
#include "test.h"
#include "fake_fetch.h"

#include <ibboot/dhcp.h>
#include <ibboot/errno.h>
#include <ibboot/image.h>
#include <ibboot/shell.h>

static uint8_t kernel[1024 + 0x3000];
static const char script[] = "#!ipxe\necho second\n";
static const char initrd[] = "INITRD-BYTES";
static char k_hex[65], s_hex[65], r_hex[65], other_hex[65];
static unsigned handoffs, mb_handoffs, scripts_run;

static int fake_linux(uint64_t entry, void *bp)
{
	(void)entry, (void)bp;
	handoffs++;
	return -ENOTSUP;
}

static int fake_multiboot(void *param)
{
	(void)param;
	mb_handoffs++;
	return -ENOTSUP;
}

static int fake_script(struct image *img)
{
	(void)img;
	scripts_run++;
	return 0;
}

static void setup(void)
{
	image_trust_reset_for_tests();
	image_free_all();
	fake_fetch_reset();
	fake_bzimage(kernel, sizeof(kernel));
	fake_fetch_serve("vmlinuz", kernel, sizeof(kernel));
	fake_fetch_serve("boot.ipxe", script, strlen(script));
	fake_fetch_serve("initrd.img", initrd, strlen(initrd));
	fake_sha256_hex(kernel, sizeof(kernel), k_hex);
	fake_sha256_hex(script, strlen(script), s_hex);
	fake_sha256_hex(initrd, strlen(initrd), r_hex);
	fake_sha256_hex("something else", 14, other_hex);
	image_linux64_handoff = fake_linux;
	image_multiboot_handoff = fake_multiboot;
	image_run_script = fake_script;
	handoffs = mb_handoffs = scripts_run = 0;
	setting_set("filename", NULL);
	setting_set("filename-sha256", NULL);
}

static void teardown(void)
{
	image_free_all();
	image_trust_reset_for_tests();
	image_linux64_handoff = NULL;
	image_multiboot_handoff = NULL;
	image_run_script = NULL;
}

/* Runs one console command line (words split at spaces), as the shell would. */
static int cmd(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int cmd(const char *fmt, ...)
{
	static char line[512];
	char *argv[16];
	int argc = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	for (char *p = strtok(line, " "); p && argc < 16; p = strtok(NULL, " "))
		argv[argc++] = p;
	const struct shell_command *c = shell_find_command(argv[0]);
	if (!c) {
		test_fail(__FILE__, __LINE__, "no command %s", argv[0]);
		return -ENOENT;
	}
	return c->run(argc, argv);
}

static bool printed(const char *out, const char *needle)
{
	return strstr(out, needle) != NULL;
}

/* `boot` went past every pin check: the fake handoff was reached, or (the hosted program's
 * memory is above 4 GiB) the one step after the loader refused for want of low memory. */
static bool boots(int rc, const char *out)
{
	return !printed(out, "refusing") &&
	       ((rc == -ENOTSUP && handoffs == 1) ||
		(rc == -ERANGE && printed(out, "boot: no zero page below 4 GiB")));
}

TEST(trust_bad_hex_fetches_nothing)
{
	static const char *const cmds[] = { "kernel", "initrd", "imgfetch", "chain" };
	const char *out;

	setup();
	for (unsigned i = 0; i < 4; i++) {
		capture_begin();
		CHECK_EQ(cmd("%s --sha256 12ab fake://h/vmlinuz", cmds[i]), -EINVAL);
		out = capture_end();
		CHECK(printed(out, "'12ab' not a SHA-256 (64 hex)"));
		CHECK(printed(out, "nothing fetched"));
		/* 64 characters, one not hex */
		capture_begin();
		CHECK_EQ(cmd("%s --sha256=%.63sg fake://h/vmlinuz", cmds[i], k_hex), -EINVAL);
		out = capture_end();
		CHECK(printed(out, "not a SHA-256"));
	}
	CHECK_EQ(fake_fetch_calls, 0);
	CHECK(image_first() == NULL);
	CHECK_EQ(cmd("boot"), -ENOENT);
	CHECK_EQ(handoffs + scripts_run, 0);
	teardown();
}

TEST(trust_kernel_pin_mismatch_is_discarded_and_nothing_boots)
{
	const char *out;

	setup();
	capture_begin();
	CHECK_EQ(cmd("kernel --sha256 %s fake://h/vmlinuz console=ttyS0", other_hex), -EPERM);
	out = capture_end();
	CHECK(printed(out, "sha256: vmlinuz MISMATCH: pinned"));
	CHECK(printed(out, k_hex));   /* what the bytes really hash to */
	CHECK_EQ(fake_fetch_calls, 1);
	CHECK(image_find("vmlinuz") == NULL);
	CHECK_EQ(cmd("boot"), -ENOENT);
	CHECK_EQ(handoffs, 0);
	teardown();
}

TEST(trust_pinned_kernel_and_initrd_boot)
{
	int rc;

	setup();
	CHECK_EQ(cmd("kernel --sha256=%s fake://h/vmlinuz", k_hex), 0);
	CHECK_EQ(cmd("initrd --sha256 %s fake://h/initrd.img", r_hex), 0);
	CHECK(image_find("vmlinuz") && image_find("vmlinuz")->pinned == IMAGE_PINNED_BEFORE_FETCH);
	capture_begin();
	rc = cmd("boot");
	CHECK(boots(rc, capture_end()));
	teardown();
}

TEST(trust_chain_pin_mismatch_runs_nothing)
{
	const char *out;

	setup();
	capture_begin();
	CHECK_EQ(cmd("chain --sha256 %s fake://h/boot.ipxe", other_hex), -EPERM);
	out = capture_end();
	CHECK(printed(out, "sha256: boot.ipxe MISMATCH"));
	CHECK(printed(out, "chain: nothing run"));
	CHECK_EQ(scripts_run, 0);
	CHECK(image_find("boot.ipxe") == NULL);
	CHECK_EQ(cmd("chain --sha256 %s fake://h/boot.ipxe", s_hex), 0);
	CHECK_EQ(scripts_run, 1);
	teardown();
}

/* A pin holds for the bytes that boot: bytes changed after the fetch's check (memory written
 * behind the image's back) are refused when the loader has placed them. */
TEST(trust_pins_are_checked_on_the_bytes_that_boot)
{
	const char *out;
	struct image *img;

	setup();
	CHECK_EQ(cmd("kernel --sha256 %s fake://h/vmlinuz", k_hex), 0);
	img = image_find("vmlinuz");
	CHECK(img != NULL);
	if (!img)
		return;
	img->data[2000] ^= 1;
	capture_begin();
	CHECK_EQ(cmd("boot"), -EPERM);
	out = capture_end();
	CHECK(printed(out, "trust: refusing vmlinuz: "));
	CHECK(printed(out, "bytes to boot hash to"));
	CHECK_EQ(handoffs, 0);

	img->data[2000] ^= 1;   /* restored; now the initrd changes after its pinned fetch */
	CHECK_EQ(cmd("initrd --sha256 %s fake://h/initrd.img", r_hex), 0);
	image_find("initrd.img")->data[0] = 'X';
	capture_begin();
	CHECK_EQ(cmd("boot"), -EPERM);
	out = capture_end();
	CHECK(printed(out, "trust: refusing initrd.img"));
	CHECK_EQ(handoffs, 0);

	/* a script fetched with its pin, changed before `boot` runs it */
	CHECK_EQ(cmd("imgfetch --sha256 %s fake://h/boot.ipxe", s_hex), 0);
	image_find("boot.ipxe")->data[8] = 'E';
	capture_begin();
	CHECK_EQ(cmd("boot boot.ipxe"), -EPERM);
	out = capture_end();
	CHECK(printed(out, "trust: refusing boot.ipxe"));
	CHECK_EQ(scripts_run, 0);
	teardown();
}

/* A multiboot v1 a.out-kludge kernel (Multiboot Specification 0.6.96 §3.1). */
static uint8_t mbk[16384];
static void make_multiboot(void)
{
	uint32_t h[8] = { 0x1badb002u, 0x10003u, (uint32_t)-(0x1badb002u + 0x10003u), 0x100040,
			  0x100000, 0x103000, 0x104000, 0x100100 };

	memset(mbk, 0, sizeof(mbk));
	memcpy(mbk + 0x40, h, sizeof(h));
}

/* Modules are pinned like the rest: one that failed its pin stops the multiboot boot (before,
 * only the kernel and initrds were looked at). */
TEST(trust_multiboot_module_that_failed_its_pin_is_refused)
{
	struct image *k, *m;
	const char *out;

	setup();
	make_multiboot();
	k = image_add("mboot", mbk, sizeof(mbk));
	m = image_add("mod.bin", "module bytes", 12);
	CHECK(k && m);
	if (!k || !m)
		return;
	k->role = IMAGE_ROLE_KERNEL;
	capture_begin();
	CHECK_EQ(image_verify_sha256(m, other_hex), -EPERM);
	CHECK_EQ(image_boot(NULL), -EPERM);
	out = capture_end();
	CHECK(printed(out, "boot: refusing: mod.bin failed its sha256 check"));
	CHECK_EQ(mb_handoffs, 0);
	teardown();
}

TEST(trust_multiboot_modules_are_hashed_where_they_are_passed)
{
	struct image *k, *m;
	char hex[65];
	const char *out;

	setup();
	make_multiboot();
	fake_fetch_serve("mod.bin", "module bytes", 12);
	fake_sha256_hex("module bytes", 12, hex);
	k = image_add("mboot", mbk, sizeof(mbk));
	CHECK_EQ(cmd("imgfetch --sha256 %s fake://h/mod.bin", hex), 0);
	m = image_find("mod.bin");
	CHECK(k && m);
	if (!k || !m)
		return;
	k->role = IMAGE_ROLE_KERNEL;
	CHECK_EQ(multiboot_check_pins(k, true), 0);
	m->data[3] ^= 0x20;
	capture_begin();
	CHECK_EQ(multiboot_check_pins(k, true), -EPERM);
	out = capture_end();
	CHECK(printed(out, "trust: refusing mod.bin"));
	teardown();
}

TEST(trust_enforcing_refuses_to_fetch_without_a_pin)
{
	const char *out;
	int rc;

	setup();
	CHECK(!image_trust_enforcing());
	CHECK_EQ(cmd("imgtrust"), 0);
	CHECK(image_trust_enforcing());
	capture_begin();
	CHECK_EQ(cmd("kernel fake://h/vmlinuz"), -EPERM);
	CHECK_EQ(cmd("chain fake://h/boot.ipxe"), -EPERM);
	CHECK_EQ(cmd("imgfetch fake://h/initrd.img"), -EPERM);
	out = capture_end();
	CHECK(printed(out, "trust: refusing to fetch fake://h/vmlinuz: no SHA-256 pin"));
	CHECK(printed(out, "trust: refusing to fetch fake://h/boot.ipxe"));
	CHECK_EQ(fake_fetch_calls, 0);
	CHECK_EQ(scripts_run + handoffs, 0);
	/* it cannot be turned off */
	capture_begin();
	CHECK_EQ(cmd("imgtrust --allow"), -EPERM);
	out = capture_end();
	CHECK(printed(out, "enforcing mode cannot be turned off"));
	CHECK(image_trust_enforcing());
	CHECK_EQ(cmd("imgtrust --bogus"), -EINVAL);
	CHECK(image_trust_enforcing());
	/* pinned before the fetch: boots */
	CHECK_EQ(cmd("imgtrust --permanent"), 0);
	CHECK_EQ(cmd("kernel --sha256 %s fake://h/vmlinuz", k_hex), 0);
	capture_begin();
	rc = cmd("boot");
	CHECK(boots(rc, capture_end()));
	CHECK_EQ(cmd("chain --sha256 %s fake://h/boot.ipxe", s_hex), 0);
	CHECK_EQ(scripts_run, 1);
	teardown();
}

/* Enforcing: what was fetched without a pin (before imgtrust) or pinned only after its fetch
 * does not boot, nor does an unpinned initrd next to a pinned kernel. */
TEST(trust_enforcing_refuses_images_not_pinned_before_their_fetch)
{
	struct image *k, *r;
	const char *out;

	setup();
	k = image_add("vmlinuz", kernel, sizeof(kernel));
	CHECK(k != NULL);
	if (!k)
		return;
	k->role = IMAGE_ROLE_KERNEL;
	CHECK_EQ(image_verify_sha256(k, k_hex), 0);   /* a `sha256` line after the fetch */
	CHECK_EQ(k->pinned, IMAGE_PINNED_AFTER_FETCH);
	CHECK_EQ(cmd("imgtrust"), 0);
	capture_begin();
	CHECK_EQ(cmd("boot"), -EPERM);
	out = capture_end();
	CHECK(printed(out, "trust: refusing vmlinuz: pinned only after fetch"));
	CHECK_EQ(handoffs, 0);

	CHECK_EQ(cmd("kernel --sha256 %s fake://h/vmlinuz", k_hex), 0);
	r = image_add("initrd.img", initrd, strlen(initrd));
	CHECK(r != NULL);
	if (!r)
		return;
	r->role = IMAGE_ROLE_INITRD;
	capture_begin();
	CHECK_EQ(cmd("boot"), -EPERM);
	out = capture_end();
	CHECK(printed(out, "trust: refusing initrd.img: no SHA-256 pin"));
	CHECK_EQ(handoffs, 0);
	teardown();
}

/* DHCP's pin for its boot file (setting filename-sha256) applies to `chain ${filename}`. */
TEST(trust_dhcp_pin_guards_the_first_script)
{
	const char *out;

	setup();
	setting_set("filename", "fake://h/boot.ipxe");
	setting_set("filename-sha256", other_hex);
	capture_begin();
	CHECK_EQ(cmd("chain fake://h/boot.ipxe"), -EPERM);
	out = capture_end();
	CHECK(printed(out, "is pinned by DHCP"));
	CHECK(printed(out, "sha256: boot.ipxe MISMATCH"));
	CHECK_EQ(scripts_run, 0);

	setting_set("filename-sha256", "not-hex");
	capture_begin();
	CHECK_EQ(cmd("chain fake://h/boot.ipxe"), -EINVAL);
	out = capture_end();
	CHECK(printed(out, "DHCP filename-sha256: 'not-hex' not a SHA-256"));
	CHECK_EQ(fake_fetch_calls, 1);   /* only the first attempt fetched */

	/* the right pin: runs, and counts as pinned before the fetch when enforcing */
	setting_set("filename-sha256", s_hex);
	CHECK_EQ(cmd("imgtrust"), 0);
	CHECK_EQ(cmd("chain fake://h/boot.ipxe"), 0);
	CHECK_EQ(scripts_run, 1);
	/* another file is not covered by the boot file's pin */
	CHECK_EQ(cmd("chain fake://h/vmlinuz"), -EPERM);
	teardown();
	setting_set("filename", NULL);
	setting_set("filename-sha256", NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * Image commands over the image registry and fetchers, iPXE-style: kernel/imgfetch/initrd URL
 * [ARGS], chain URL [ARGS] (each with --sha256=HEX: a pin given before the fetch), imgargs NAME
 * ARGS, imgstat, imgfree [NAME], sha256 NAME HEX, imgtrust, boot [NAME], and iPXE's other names
 * imgselect, imgload, module, imgexec.
 */
#include <ibboot/image.h>
#include <ibboot/fetch.h>
#include <ibboot/script.h>
#include <ibboot/console.h>
#include <ibboot/dhcp.h>
#include <ibboot/errno.h>
#include <ibboot/shell.h>
#include <ibboot/string.h>

/* The pin DHCP gave for its boot file (setting filename-sha256, from option 175 sub-option
 * 112: src/net/dhcp.c) applies to a fetch of exactly that file name, as the embedded script's
 * `chain ${filename}` does. 0 and *pin set, 1 when there is none, or -EINVAL. */
static int dhcp_pin(const char *uri, uint8_t *pin)
{
	char file[SETTING_VALUE_MAX], hex[SETTING_VALUE_MAX];

	if (setting_get("filename", file, sizeof(file)) <= 0 || strcmp(file, uri) ||
	    setting_get("filename-sha256", hex, sizeof(hex)) <= 0)
		return 1;
	if (image_pin_parse("DHCP filename-sha256", hex, pin))
		return -EINVAL;
	kprintf("sha256: %s is pinned by DHCP (filename-sha256 %s)\n", uri, hex);
	return 0;
}

/* The value of option --LONG=V, --LONG V or -S V at argv[*i] (advancing *i past V), or NULL. */
static const char *opt_value(int argc, char **argv, int *i, const char *lng, char shrt)
{
	const char *o = argv[*i];
	size_t n = strlen(lng);

	if (o[1] == '-' && !strncmp(o + 2, lng, n)) {
		if (o[2 + n] == '=')
			return o + 3 + n;
		if (o[2 + n])
			return NULL;
	} else if (!shrt || o[1] != shrt || o[2]) {
		return NULL;
	}
	return *i + 1 < argc ? argv[++*i] : NULL;
}

/* Fetches the URL as an image with `role`; the remaining arguments become its command line.
 * Options before the URL, as iPXE's: --name=NAME / -n NAME names it (default: the URL's last
 * path component); --autofree/-a, --replace/-r and --timeout=T/-t T are accepted and ignored
 * (images stay until imgfree; downloads have their own bounded timeouts). --sha256=HEX /
 * --sha256 HEX pins it before the fetch: a download that hashes otherwise is discarded. */
static struct image *fetch_cmd(int argc, char **argv, enum image_role role, int *rc)
{
	char name[IMAGE_NAME_MAX];
	const char *given = NULL, *pin_hex = NULL, *v;
	uint8_t pin[SHA256_DIGEST_LEN];
	bool pinned = false;
	int first = 1;

	*rc = -EINVAL;
	for (; first < argc && argv[first][0] == '-'; first++) {
		const char *o = argv[first];

		if ((v = opt_value(argc, argv, &first, "name", 'n')))
			given = v;
		else if ((v = opt_value(argc, argv, &first, "sha256", 0)))
			pin_hex = v;
		else if (!opt_value(argc, argv, &first, "timeout", 't') &&
			 strcmp(o, "--autofree") && strcmp(o, "-a") && strcmp(o, "--replace") &&
			 strcmp(o, "-r")) {
			kprintf("%s: unknown option %s\n", argv[0], o);
			return NULL;
		}
	}
	if (argc <= first) {
		shell_usage(argv[0]);
		return NULL;
	}
	if (pin_hex) {
		if (image_pin_parse(argv[0], pin_hex, pin)) {
			kprintf("%s: nothing fetched\n", argv[0]);
			return NULL;
		}
		pinned = true;
	} else {
		*rc = dhcp_pin(argv[first], pin);
		if (*rc < 0)
			return NULL;
		pinned = *rc == 0;
	}
	if (given) {
		if (!*given || strlen(given) >= sizeof(name)) {
			kprintf("image: name '%s' not 1..%d chars\n", given,   /* image.c's */
				IMAGE_NAME_MAX - 1);
			*rc = -ERANGE;
			return NULL;
		}
		memcpy(name, given, strlen(given) + 1);
	} else {
		image_name_from_uri(argv[first], name, sizeof(name));
	}
	struct image *img;
	img = fetch_image_pinned(argv[first], name, pinned ? pin : NULL, rc);
	if (!img)
		return NULL;
	*rc = image_set_cmdline(img, argc - first - 1, argv + first + 1);
	if (*rc) {
		image_free(img);
		return NULL;
	}
	if (role == IMAGE_ROLE_KERNEL)   /* one selected kernel at a time */
		for (struct image *i = image_first(); i; i = i->next)
			if (i->role == IMAGE_ROLE_KERNEL)
				i->role = IMAGE_ROLE_NONE;
	img->role = role;
	return img;
}

static int fetch_as(int argc, char **argv, enum image_role role)
{
	int rc;

	fetch_cmd(argc, argv, role, &rc);
	return rc;
}

static int cmd_kernel(int argc, char **argv)
{
	return fetch_as(argc, argv, IMAGE_ROLE_KERNEL);
}
SHELL_COMMAND(kernel, CMD_ORDER_IMAGE, "[--name=N] [--sha256=HEX] URL [ARGS]: fetch kernel",
	      cmd_kernel);

static int cmd_initrd(int argc, char **argv)
{
	return fetch_as(argc, argv, IMAGE_ROLE_INITRD);
}
SHELL_COMMAND(initrd, CMD_ORDER_IMAGE,
	      "[--name=N] [--sha256=HEX] URL: fetch initrd (concatenated)", cmd_initrd);

static int cmd_imgfetch(int argc, char **argv)
{
	return fetch_as(argc, argv, IMAGE_ROLE_NONE);
}
SHELL_COMMAND(imgfetch, CMD_ORDER_IMAGE,
	      "[--name=N] [--sha256=HEX] URL [ARGS]: fetch (tftp://, http://, module:N)",
	      cmd_imgfetch);

/* chain URL: fetch, then run it (a script) or boot it (a kernel). */
static int cmd_chain(int argc, char **argv)
{
	int rc;
	struct image *img = fetch_cmd(argc, argv, IMAGE_ROLE_KERNEL, &rc);

	if (!img) {
		if (rc == -EPERM)   /* the trust policy said why */
			kprintf("chain: nothing run\n");
		else
			kprintf("chain: nothing run: check URL\n");
		return rc;
	}
	/* A script is run, never selected: its own `boot` must find the kernel it fetches. */
	if (script_is_script(img->data, img->len))
		img->role = IMAGE_ROLE_NONE;
	return image_boot(img);
}
SHELL_COMMAND(chain, CMD_ORDER_IMAGE,
	      "[--sha256=HEX] URL [ARGS]: fetch and run/boot", cmd_chain);

/* The image called `name`, or NULL with "<cmd>: no image <name>" said. */
static struct image *find_image(char **argv, const char *name)
{
	struct image *img = image_find(name);

	if (!img)
		kprintf("%s: no image %s\n", argv[0], name);
	return img;
}

static int cmd_imgargs(int argc, char **argv)
{
	struct image *img;

	if (argc < 2)
		return shell_usage(argv[0]);
	if (!(img = find_image(argv, argv[1])))
		return -ENOENT;
	return image_set_cmdline(img, argc - 2, argv + 2);
}
SHELL_COMMAND(imgargs, CMD_ORDER_IMAGE, "NAME [ARGS...]: set image command line", cmd_imgargs);

static int cmd_imgstat(int argc __unused, char **argv __unused)
{
	kprintf("trust: %s\n", image_trust_enforcing() ? "enforcing" : "permissive");
	if (!image_first())
		kprintf("no images\n");
	for (struct image *i = image_first(); i; i = i->next)
		kprintf("%s: %zu%s%s%s \"%s\" from %s\n", i->name, i->len, str_nth("\0 [kernel]\0 [initrd]", i->role),
			i->verified > 0 ? " [sha256 ok]" : "",
			i->verified < 0 ? " [SHA256 MISMATCH]" : "", i->cmdline,
			i->uri[0] ? i->uri : "-");
	return 0;
}
SHELL_COMMAND(imgstat, CMD_ORDER_IMAGE, "list images", cmd_imgstat);

static int cmd_imgfree(int argc, char **argv)
{
	if (argc == 1) {
		image_free_all();
		return 0;
	}
	for (int a = 1; a < argc; a++) {
		struct image *img = find_image(argv, argv[a]);

		if (!img)
			return -ENOENT;
		image_free(img);
	}
	return 0;
}
SHELL_COMMAND(imgfree, CMD_ORDER_IMAGE, "[NAME...]: free images (default all)", cmd_imgfree);

static int cmd_sha256(int argc, char **argv)
{
	struct image *img;

	if (argc != 3)
		return shell_usage(argv[0]);
	if (!(img = find_image(argv, argv[1])))
		return -ENOENT;
	return image_verify_sha256(img, argv[2]);
}
SHELL_COMMAND(sha256, CMD_ORDER_IMAGE,
	      "NAME HEX: verify; a mismatch won't boot", cmd_sha256);

/* imgtrust [--permanent]: enforcing mode for the rest of this boot, as iPXE's `imgtrust
 * --permanent` (there is no way back, so --allow is refused once it is on). */
static int cmd_imgtrust(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--allow")) {
		if (!image_trust_enforcing())
			return 0;   /* already permissive */
		kprintf("imgtrust: enforcing mode cannot be turned off\n");
		return -EPERM;
	}
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "--permanent"))) {
		return shell_usage(argv[0]);
	}
	image_trust_enforce();
	return 0;
}
SHELL_COMMAND(imgtrust, CMD_ORDER_IMAGE,
	      "[--permanent]: only images pinned before fetch, for good",
	      cmd_imgtrust);

static int cmd_boot(int argc, char **argv)
{
	struct image *img = NULL;

	if (argc > 2)
		return shell_usage(argv[0]);
	if (argc == 2 && !(img = find_image(argv, argv[1])))
		return -ENOENT;
	return image_boot(img);
}
SHELL_COMMAND(boot, CMD_ORDER_IMAGE,
	      "[NAME]: boot/run (default: last kernel)", cmd_boot);
/* iPXE's other names for the same things */
SHELL_COMMAND(imgselect, CMD_ORDER_IMAGE_ALIAS, "[--name=N] URL [ARGS]: as kernel", cmd_kernel);
SHELL_COMMAND(imgload, CMD_ORDER_IMAGE_ALIAS, "[--name=N] URL [ARGS]: as kernel", cmd_kernel);
SHELL_COMMAND(module, CMD_ORDER_IMAGE_ALIAS, "[--name=N] URL [ARGS]: as imgfetch", cmd_imgfetch);
SHELL_COMMAND(imgexec, CMD_ORDER_IMAGE_ALIAS, "URL [ARGS]: as chain", cmd_chain);

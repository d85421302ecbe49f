/* libFuzzer: any bytes as a script, over commands that succeed or fail by their name's length
 * and settings that expand to long values — parsing and execution must stay in bounds and end. */
#include <ibboot/script.h>
#include <ibboot/string.h>

static int fz_run(void *ctx, int argc, char **argv)
{
	(void)ctx;
	size_t total = 0;

	for (int i = 0; i < argc; i++)
		total += strlen(argv[i]);   /* touches every byte of every word */
	return (strlen(argv[0]) + total) % 3 ? 0 : -5;
}

static int fz_getvar(void *ctx, const char *name, char *buf, size_t size)
{
	(void)ctx;
	size_t n = strlen(name) * 37 % (size + 8);   /* sometimes more than fits: clipped */

	if (n >= size)
		n = size - 1;
	memset(buf, name[0] ? name[0] : 'x', n);
	buf[n] = '\0';
	return (int)n;
}

static const struct script_ops ops = { fz_run, fz_getvar };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct script_limits lim = { 200, false };

	script_exec((const char *)data, len, &ops, NULL, &lim);
	return 0;
}

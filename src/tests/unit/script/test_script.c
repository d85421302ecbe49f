/* The iPXE-syntax interpreter over fake commands: expansion, quoting, || &&, goto, exit, limits. */
#include "test.h"
#include <stdio.h>
#include <ibboot/script.h>
#include <ibboot/errno.h>

static char trace[2048];

static char late_value[32];   /* ${late}: set by the command "setlate" */

static int fake_run(void *ctx, int argc, char **argv)
{
	(void)ctx;
	size_t n = strlen(trace);

	if (strcmp(argv[0], "setlate") == 0 && argc == 2)
		snprintf(late_value, sizeof(late_value), "%s", argv[1]);

	snprintf(trace + n, sizeof(trace) - n, "%s[", argv[0]);
	for (int i = 1; i < argc; i++) {
		n = strlen(trace);
		snprintf(trace + n, sizeof(trace) - n, "%s%s", i > 1 ? "|" : "", argv[i]);
	}
	n = strlen(trace);
	snprintf(trace + n, sizeof(trace) - n, "]");
	if (strcmp(argv[0], "ok") == 0)
		return 0;
	if (strcmp(argv[0], "bad") == 0)
		return -EIO;
	if (strcmp(argv[0], "unknown") == 0)
		return -ENOENT;
	return 0;
}

static int fake_getvar(void *ctx, const char *name, char *buf, size_t size)
{
	(void)ctx;
	const char *v = strcmp(name, "ip") == 0 ? "198.18.0.50" :
			strcmp(name, "filename") == 0 ? "boot.ipxe" :
			strcmp(name, "next-server") == 0 ? "198.18.0.1" :
			strcmp(name, "spacey") == 0 ? "a b" :
			strcmp(name, "late") == 0 && late_value[0] ? late_value : NULL;
	if (!v)
		return -ENOENT;
	snprintf(buf, size, "%s", v);
	return (int)strlen(buf);
}

static const struct script_ops ops = { fake_run, fake_getvar };

static int run(const char *text)
{
	struct script_limits lim = { 1000, false };

	trace[0] = '\0';
	return script_exec(text, strlen(text), &ops, NULL, &lim);
}

TEST(script_magic)
{
	CHECK(script_is_script((const uint8_t *)"#!ipxe\necho", 11));
	CHECK(script_is_script((const uint8_t *)"#!ipxe", 6));
	CHECK(!script_is_script((const uint8_t *)"#!ipxeX", 7));
	CHECK(!script_is_script((const uint8_t *)"#!ipx", 5));
	CHECK(!script_is_script((const uint8_t *)"MZ\x90", 3));
}

/* One script per row: what run() returns and the commands it ran, in order. */
struct run_case {
	const char *text;
	int rc;
	const char *trace;
};

static void check_runs(const struct run_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int rc = run(c[i].text);

		if (rc != c[i].rc || strcmp(trace, c[i].trace) != 0)
			fprintf(stderr, "  row %zu: \"%s\"\n", i, c[i].text);
		CHECK_EQ(rc, c[i].rc);
		CHECK_STR(trace, c[i].trace);
	}
}

TEST(script_expansion_and_quoting)
{
	static const struct run_case cases[] = {
		{ "#!ipxe\necho ${ip} x${next-server}y ${unset}\n", 0, "echo[198.18.0.50|x198.18.0.1y|]" },
		{ "echo \"${spacey} c\" '${ip}' a\\ b\r\n", 0, "echo[a b c|${ip}|a b]" },
		{ "chain tftp://${next-server}/${filename}", 0, "chain[tftp://198.18.0.1/boot.ipxe]" },
		{ "# comment\n\n   \n:label\nok", 0, "ok[]" },
	};

	check_runs(cases, sizeof(cases) / sizeof(cases[0]));
}

TEST(script_or_and)
{
	static const struct run_case cases[] = {
		{ "bad || ok one", 0, "bad[]ok[one]" },
		{ "ok || ok two", 0, "ok[]" },
		{ "ok && ok three", 0, "ok[]ok[three]" },
		/* a failed && chain ends the script: later lines never run */
		{ "bad && ok four\nok five", -EIO, "bad[]" },
		{ "bad && ok || ok six", 0, "bad[]ok[six]" },
		{ "echo 'a || b' \"&&\"", 0, "echo[a || b|&&]" },
		{ "ok||ok", 0, "ok[]" },   /* operators need no spaces */
	};

	check_runs(cases, sizeof(cases) / sizeof(cases[0]));
}

/* Each command is expanded when it runs: `dhcp && chain ${filename}` needs dhcp's file name. */
TEST(script_expansion_per_command)
{
	late_value[0] = '\0';
	CHECK_EQ(run("setlate boot.ipxe && chain ${late}"), 0);
	CHECK_STR(trace, "setlate[boot.ipxe]chain[boot.ipxe]");
	late_value[0] = '\0';
	CHECK_EQ(run("echo [${late}] || ok\nsetlate x\necho ${late} '&&' \"||\""), 0);
	CHECK_STR(trace, "echo[[]]setlate[x]echo[x|&&|||]");
	late_value[0] = '\0';
}

TEST(script_failure_stops)
{
	CHECK_EQ(run("ok a\nbad\nok b"), -EIO);
	CHECK_STR(trace, "ok[a]bad[]");
	CHECK_EQ(run("unknown"), -ENOENT);
}

TEST(script_goto_and_exit)
{
	CHECK_EQ(run("ok 1\ngoto skip\nok 2\n:skip\nok 3"), 0);
	CHECK_STR(trace, "ok[1]ok[3]");
	CHECK_EQ(run("bad || goto fallback\nok no\n:fallback\nok yes"), 0);
	CHECK_STR(trace, "bad[]ok[yes]");
	CHECK_EQ(run("goto nowhere"), -ENOENT);
	CHECK_EQ(run("ok\nexit 3\nok never"), -3);
	CHECK_STR(trace, "ok[]");
	CHECK_EQ(run("exit"), 0);
	CHECK_EQ(run("exit x"), -EINVAL);
	/* an endless loop is cut by the step limit */
	CHECK_EQ(run(":top\nok\ngoto top"), -ECANCELED);
}

TEST(script_syntax_errors)
{
	CHECK_EQ(run("echo ${ip"), -EINVAL);
	CHECK_EQ(run("echo \"open"), -EINVAL);
	CHECK_EQ(run("echo 'open"), -EINVAL);
	CHECK_EQ(run("echo \\"), -EINVAL);
	CHECK_EQ(run("|| ok"), -EINVAL);
	CHECK_EQ(run("ok ||"), -EINVAL);
	CHECK_EQ(run("ok\nok\0bad"), 0);   /* strlen stops at the NUL: only "ok\nok" */
	CHECK_EQ(script_exec("ok\0ok", 5, &ops, NULL, NULL), -EINVAL);
	char longline[700];
	memset(longline, 'x', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	CHECK_EQ(run(longline), -ERANGE);
	char many[200] = "ok";
	for (int i = 0; i < 40; i++)
		strcat(many, " a");
	CHECK_EQ(run(many), -EINVAL);   /* more than SCRIPT_MAX_ARGS words */
	CHECK_STR(trace, "");
}

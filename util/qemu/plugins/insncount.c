/* SPDX-License-Identifier: MIT */
/*
 * insncount — a QEMU TCG plugin that counts executed guest instructions (make bench-netboot).
 *
 * Each translation block (TB) gets one inline operation when it is translated: "add the TB's
 * instruction count to a 64-bit counter" (qemu_plugin_register_vcpu_tb_exec_inline,
 * QEMU_PLUGIN_INLINE_ADD_U64). TCG emits it as a load/add/store at the start of the block, so
 * the guest runs at nearly full speed and there is no call into the plugin per block. A block the
 * guest leaves early (an exception in its middle) is counted whole; those are rare against the
 * billions counted here.
 *
 * The counter is one for the whole machine: the benches run one vCPU (-smp 1, QEMU's default), and
 * with more vCPUs under MTTCG the adds of two threads could race and lose counts.
 *
 * Arguments (-plugin FILE,arg=value,...):
 *   out=PATH          at exit: "insns N\ntbs-translated M\n" (required)
 *   samples=PATH      a line "REALTIME_NS INSNS" every period_us of host time, from a thread of
 *                     the plugin (the counter is read as it stands: an aligned 64-bit load), so a
 *                     harness that stamps the guest's console lines with the host's
 *                     CLOCK_REALTIME can take the count at each line
 *   period_us=N       the sampling period (default 1000)
 *   hot=PREFIX        count executions per block too (a second inline add per TB, to the
 *                     block's own counter) and write "VADDR NINSNS EXECS" per block to
 *                     PREFIX.N each time the file PREFIX.req appears (the sampling thread looks
 *                     for it every period and deletes it), and to PREFIX.exit at exit
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static uint64_t insns;                 /* the inline counter */
static uint64_t tbs_translated;
static char *out_path, *samples_path, *hot_prefix;
static unsigned period_us = 1000;

/* Per-block counters for hot=: one record per (vaddr, instruction count), found again when the
 * block is translated anew (after a TB flush), so its executions add up. Records never move
 * (the inline op holds the address of exec). */
struct tb_rec {
	uint64_t vaddr;
	uint64_t exec;
	uint32_t ninsns;
	struct tb_rec *next;
};
#define HOT_BUCKETS 65536u
static struct tb_rec *hot_table[HOT_BUCKETS];
static size_t hot_records;
static pthread_mutex_t hot_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_t sampler;
static volatile int sampler_stop;
static int sampler_running;
static FILE *samples_file;
static unsigned hot_snaps;

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t read_insns(void)
{
	return __atomic_load_n(&insns, __ATOMIC_RELAXED);
}

static struct tb_rec *hot_record(uint64_t vaddr, uint32_t ninsns)
{
	unsigned b = (unsigned)((vaddr ^ (vaddr >> 16) ^ ninsns) % HOT_BUCKETS);
	struct tb_rec *r;

	pthread_mutex_lock(&hot_lock);
	for (r = hot_table[b]; r; r = r->next)
		if (r->vaddr == vaddr && r->ninsns == ninsns)
			break;
	if (!r) {
		r = calloc(1, sizeof(*r));
		if (r) {
			r->vaddr = vaddr;
			r->ninsns = ninsns;
			r->next = hot_table[b];
			hot_table[b] = r;
			hot_records++;
		}
	}
	pthread_mutex_unlock(&hot_lock);
	return r;
}

static void hot_dump(const char *suffix)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s.%s", hot_prefix, suffix);
	f = fopen(path, "w");
	if (!f)
		return;
	pthread_mutex_lock(&hot_lock);
	for (unsigned b = 0; b < HOT_BUCKETS; b++)
		for (struct tb_rec *r = hot_table[b]; r; r = r->next) {
			uint64_t e = __atomic_load_n(&r->exec, __ATOMIC_RELAXED);

			if (e)
				fprintf(f, "0x%" PRIx64 " %u %" PRIu64 "\n", r->vaddr, r->ninsns, e);
		}
	pthread_mutex_unlock(&hot_lock);
	fclose(f);
}

static void vcpu_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	tbs_translated++;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insns, n);
	if (hot_prefix) {
		struct tb_rec *r = hot_record(qemu_plugin_tb_vaddr(tb), (uint32_t)n);

		if (r)
			qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
								 &r->exec, 1);
	}
}

static void *sampler_main(void *arg)
{
	char req[4096];
	struct timespec period = { .tv_sec = period_us / 1000000u,
				   .tv_nsec = (long)(period_us % 1000000u) * 1000 };

	(void)arg;
	if (hot_prefix)
		snprintf(req, sizeof(req), "%s.req", hot_prefix);
	while (!sampler_stop) {
		if (samples_file)
			fprintf(samples_file, "%" PRIu64 " %" PRIu64 "\n", realtime_ns(), read_insns());
		if (hot_prefix && access(req, F_OK) == 0) {
			char suffix[16];

			snprintf(suffix, sizeof(suffix), "%u", hot_snaps++);
			hot_dump(suffix);
			unlink(req);
		}
		nanosleep(&period, NULL);
	}
	return NULL;
}

static void plugin_exit(qemu_plugin_id_t id, void *p)
{
	FILE *f;

	(void)id;
	(void)p;
	if (sampler_running) {
		sampler_stop = 1;
		pthread_join(sampler, NULL);
		sampler_running = 0;
	}
	if (samples_file) {
		fprintf(samples_file, "%" PRIu64 " %" PRIu64 "\n", realtime_ns(), read_insns());
		fclose(samples_file);
		samples_file = NULL;
	}
	if (hot_prefix)
		hot_dump("exit");
	f = fopen(out_path, "w");
	if (f) {
		fprintf(f, "insns %" PRIu64 "\ntbs-translated %" PRIu64 "\nhot-records %zu\n",
			read_insns(), tbs_translated, hot_records);
		fclose(f);
	}
}

static char *arg_value(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return strncmp(arg, name, n) == 0 && arg[n] == '=' ? strdup(arg + n + 1) : NULL;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	char *v;

	(void)info;
	for (int i = 0; i < argc; i++) {
		if ((v = arg_value(argv[i], "out"))) {
			out_path = v;
		} else if ((v = arg_value(argv[i], "samples"))) {
			samples_path = v;
		} else if ((v = arg_value(argv[i], "hot"))) {
			hot_prefix = v;
		} else if ((v = arg_value(argv[i], "period_us"))) {
			period_us = (unsigned)strtoul(v, NULL, 10);
			free(v);
			if (period_us == 0 || period_us > 1000000) {
				fprintf(stderr, "insncount: period_us must be 1..1000000\n");
				return -1;
			}
		} else {
			fprintf(stderr, "insncount: unknown argument '%s' (out=, samples=, "
				"period_us=, hot=)\n", argv[i]);
			return -1;
		}
	}
	if (!out_path) {
		fprintf(stderr, "insncount: out=PATH is required\n");
		return -1;
	}
	if (samples_path) {
		samples_file = fopen(samples_path, "w");
		if (!samples_file) {
			fprintf(stderr, "insncount: %s: %s\n", samples_path, strerror(errno));
			return -1;
		}
	}
	if (samples_file || hot_prefix) {
		if (pthread_create(&sampler, NULL, sampler_main, NULL) != 0) {
			fprintf(stderr, "insncount: cannot start the sampling thread\n");
			return -1;
		}
		sampler_running = 1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, vcpu_tb_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
	return 0;
}

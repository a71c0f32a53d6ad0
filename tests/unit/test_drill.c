// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat drill without a fault: its options, the verdict on synthetic
 * records and diagnoses, the JSON report, the cleanup stack (each step
 * of a make made to fail in turn: what was made is still removed), the
 * NVIDIA CPU check over a fake /proc.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "cmd/cmd.h"
#include "engine/diagnose/diagnose_int.h"
#include "engine/drill/drill.h"

#define ARGV(...)	((char *[]){ "gpulat", __VA_ARGS__, NULL })
#define ARGC(...)	((int)(sizeof((char *[]){ "gpulat", __VA_ARGS__ }) / sizeof(char *)))
#define parse(o, ...) \
	parse_quiet(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), o)

static int parse_quiet(int argc, char **argv, struct gpulat_opts *o)
{
	FILE *f = fopen("/dev/null", "w");
	int ret = gpulat_parse_args(argc, argv, o, f);

	fclose(f);
	return ret;
}

TEST(options)
{
	struct gpulat_opts o;

	ASSERT_EQ(0, parse(&o, "drill", "cpu"));
	ASSERT_EQ(GPULAT_CMD_DRILL, o.cmd);
	ASSERT_EQ(DRILL_CPU, o.drill);
	ASSERT_FALSE(o.has_duration);
	ASSERT_EQ(NULL, o.target);
	ASSERT_EQ(0, parse(&o, "drill", "--duration", "10", "--target", "3",
			   "--force", "--json", "cpu"));
	ASSERT_EQ(10.0, o.duration_s);
	ASSERT_STREQ("3", o.target);
	ASSERT_TRUE(o.force && o.json);
	ASSERT_EQ(0, parse(&o, "drill", "net", "-d", "60"));
	ASSERT_EQ(DRILL_NET, o.drill);
	ASSERT_EQ(0, parse(&o, "drill", "disk"));
	ASSERT_EQ(DRILL_DISK, o.drill);
	ASSERT_EQ(0, parse(&o, "drill", "irq"));
	ASSERT_EQ(DRILL_IRQ, o.drill);
	ASSERT_EQ(0, parse(&o, "drill", "cpu", "--help"));
	ASSERT_TRUE(o.help);
	/* usage errors exit 2: 1 is a failed drill */
	ASSERT_EQ(DRILL_EXIT_USAGE, parse(&o, "drill"));
	ASSERT_EQ(DRILL_EXIT_USAGE, parse(&o, "drill", "gpu"));
	ASSERT_EQ(DRILL_EXIT_USAGE, parse(&o, "drill", "cpu", "net"));
	ASSERT_EQ(DRILL_EXIT_USAGE, parse(&o, "drill", "cpu", "-d", "0.5"));
	ASSERT_EQ(DRILL_EXIT_USAGE, parse(&o, "drill", "cpu", "-d", "61"));
	ASSERT_EQ(DRILL_EXIT_USAGE, parse(&o, "drill", "cpu", "-d", "x"));
	ASSERT_EQ(DRILL_EXIT_USAGE, parse(&o, "drill", "net", "--target", "1"));
	ASSERT_EQ(DRILL_EXIT_USAGE, parse(&o, "drill", "cpu", "--target", ""));
	ASSERT_EQ(DRILL_EXIT_USAGE, parse(&o, "drill", "cpu", "--listen", ":1"));
	ASSERT_EQ(DRILL_EXIT_USAGE, parse(&o, "drill", "cpu", "-q"));
	/* the options are the drill's alone */
	ASSERT_EQ(GPULAT_EXIT_ERROR, parse(&o, "hist", "--target", "1"));
	ASSERT_EQ(GPULAT_EXIT_ERROR, parse(&o, "diagnose", "--force"));
}

TEST(names_and_exits)
{
	ASSERT_EQ(DRILL_CPU, drill_kind_lookup("cpu"));
	ASSERT_EQ(-1, drill_kind_lookup("CPU"));
	ASSERT_STREQ("net", drill_kind_name(DRILL_NET));
	ASSERT_EQ(0, drill_exit_of(DRILL_PASS));
	ASSERT_EQ(1, drill_exit_of(DRILL_FAIL));
	ASSERT_EQ(4, drill_exit_of(DRILL_SKIP));
	ASSERT_STREQ("skipped", drill_verdict_name(DRILL_SKIP));
}

/* sched_rec - a wait of @pid behind @culprit at @t */
static struct gl_trace_rec sched_rec(int32_t pid, int32_t culprit, uint64_t t)
{
	struct gl_trace_rec r;

	memset(&r, 0, sizeof(r));
	r.type = GPULAT_REC_SAMPLE;
	r.time_ns = t;
	r.u.sample.family = GPULAT_FAM_SCHED;
	r.u.sample.latency_ns = 3000000;
	r.u.sample.pid = pid;
	r.u.sample.flags = GPULAT_REC_F_CULPRITS;
	r.u.sample.nr_culprits = 2;
	r.u.sample.culprits[0].pid = 7;
	r.u.sample.culprits[1].pid = culprit;
	return r;
}

TEST(match_and_scan)
{
	struct drill_expect e = { .family = GPULAT_FAM_SCHED,
				  .victim_pid = 10, .culprit_pid = 20 };
	struct gl_trace_rec recs[6];
	struct drill_seen s;

	recs[0] = sched_rec(10, 20, 500);	/* before the injection */
	recs[1] = sched_rec(10, 20, 3000);
	recs[2] = sched_rec(11, 20, 1500);	/* not the victim */
	recs[3] = sched_rec(10, 21, 1200);	/* another culprit */
	recs[4] = sched_rec(10, 20, 2000);
	recs[5] = sched_rec(10, 20, 2500);
	recs[5].u.sample.flags = 0;		/* culprits not valid */
	drill_scan(&s, &e, recs, 6, 1000);
	ASSERT_EQ(2, s.nr_match);
	ASSERT_EQ(2000, s.first_ns);
	recs[1].u.sample.family = GPULAT_FAM_BLOCK;
	ASSERT_FALSE(drill_match(&e, &recs[1]));
	/* a key: a disk or an interface, no task */
	e = (struct drill_expect){ .family = GPULAT_FAM_BLOCK, .has_key = true,
				   .key = 42 };
	recs[1].u.sample.key = 42;
	ASSERT_TRUE(drill_match(&e, &recs[1]));
	recs[1].u.sample.key = 43;
	ASSERT_FALSE(drill_match(&e, &recs[1]));
	recs[1].type = GPULAT_REC_LOST;
	recs[1].u.sample.key = 42;
	ASSERT_FALSE(drill_match(&e, &recs[1]));
}

/* fake_result - a verdict with @top ranked first, its culprit and item */
static struct diag_result *fake_result(enum diag_layer top, bool abnormal,
				       int32_t culprit, uint32_t fam,
				       uint64_t key)
{
	struct diag_result *r = calloc(1, sizeof(*r));
	struct diag_layer_res *L = &r->layer[top];
	int l, n = 1;

	r->rank[0] = top;
	for (l = 0; l < DIAG_NR_LAYERS; l++)
		if (l != (int)top)
			r->rank[n++] = l;
	L->abnormal = abnormal;
	if (culprit) {
		L->culprits[0].pid = 5;
		L->culprits[1].pid = culprit;
		snprintf(L->culprits[1].comm, GPULAT_COMM_LEN, "hog");
		L->nr_culprits = 2;
	}
	r->items = calloc(1, sizeof(*r->items));
	r->items[0].family = fam;
	r->items[0].key = key;
	snprintf(r->items[0].name, sizeof(r->items[0].name), "x");
	r->nr_items = 1;
	L->top[0] = 0;
	L->nr_top = 1;
	return r;
}

static void fake_drill(struct drill *d, enum drill_kind k)
{
	memset(d, 0, sizeof(*d));
	d->kind = k;
	d->duration_s = 5;
	d->inject_ns = 1000000;
	d->seen.family_on = d->seen.trace_ok = true;
	snprintf(d->fault, sizeof(d->fault), "a fault");
	if (k == DRILL_CPU) {
		d->expect = (struct drill_expect){ .family = GPULAT_FAM_SCHED,
			.layer = DIAG_SCHED, .victim_pid = 10,
			.culprit_pid = 20 };
	} else {
		d->expect = (struct drill_expect){ .family = GPULAT_FAM_BLOCK,
			.layer = DIAG_STORAGE, .has_key = true, .key = 99 };
		snprintf(d->expect.key_name, sizeof(d->expect.key_name),
			 "nullb9");
	}
}

/* judge - observe @r, one match 5 ms after the injection, judge */
static enum drill_verdict judge(struct drill *d, struct diag_result *r)
{
	drill_observe(&d->seen, &d->expect, r);
	d->seen.nr_match = 1;
	d->seen.first_ns = d->inject_ns + 5000000;
	drill_judge(d);
	diag_free(r);
	return d->verdict;
}

TEST(verdicts)
{
	struct drill d;

	fake_drill(&d, DRILL_CPU);
	ASSERT_EQ(DRILL_PASS, judge(&d, fake_result(DIAG_SCHED, true, 20,
						      GPULAT_FAM_SCHED, 0)));
	ASSERT_NE(NULL, strstr(d.reason, "5.0 ms"));
	ASSERT_TRUE(d.seen.culprit_named);
	fake_drill(&d, DRILL_CPU);
	ASSERT_EQ(DRILL_FAIL, judge(&d, fake_result(DIAG_SCHED, true, 21,
						      GPULAT_FAM_SCHED, 0)));
	ASSERT_NE(NULL, strstr(d.reason, "did not name the hog (pid 20)"));
	fake_drill(&d, DRILL_CPU);
	ASSERT_EQ(DRILL_FAIL, judge(&d, fake_result(DIAG_MEMORY, true, 20,
						      GPULAT_FAM_MM, 0)));
	ASSERT_NE(NULL, strstr(d.reason, "ranked memory first, not scheduler"));
	fake_drill(&d, DRILL_CPU);
	ASSERT_EQ(DRILL_FAIL, judge(&d, fake_result(DIAG_SCHED, false, 20,
						      GPULAT_FAM_SCHED, 0)));
	ASSERT_NE(NULL, strstr(d.reason, "no layer abnormal"));
	fake_drill(&d, DRILL_DISK);
	ASSERT_EQ(DRILL_PASS, judge(&d, fake_result(DIAG_STORAGE, true, 0,
						      GPULAT_FAM_BLOCK, 99)));
	fake_drill(&d, DRILL_DISK);
	ASSERT_EQ(DRILL_FAIL, judge(&d, fake_result(DIAG_STORAGE, true, 0,
						      GPULAT_FAM_BLOCK, 98)));
	ASSERT_NE(NULL, strstr(d.reason, "did not name nullb9"));
	/* no record of the fault */
	fake_drill(&d, DRILL_DISK);
	drill_judge(&d);
	ASSERT_EQ(DRILL_FAIL, d.verdict);
	ASSERT_NE(NULL, strstr(d.reason, "no block outlier record"));
	/* the family off: decided before anything is injected */
	fake_drill(&d, DRILL_CPU);
	d.seen.family_on = false;
	drill_judge(&d);
	ASSERT_EQ(DRILL_FAIL, d.verdict);
	ASSERT_STREQ("family sched is off", d.reason);
	/* all caught, but something made is still there */
	fake_drill(&d, DRILL_DISK);
	drill_push(&d.undo, NULL, NULL, "a device");
	ASSERT_EQ(DRILL_FAIL, judge(&d, fake_result(DIAG_STORAGE, true, 0,
						      GPULAT_FAM_BLOCK, 99)));
	ASSERT_NE(NULL, strstr(d.reason, "not everything"));
}

/* right_with - drill_right() of @d after it observes @r (freed) */
static bool right_with(struct drill *d, struct diag_result *r)
{
	drill_observe(&d->seen, &d->expect, r);
	diag_free(r);
	return drill_right(&d->seen, &d->expect);
}

/* drill_right: the test the drill asks of the diagnosis so far */
TEST(right_so_far)
{
	struct drill d;

	fake_drill(&d, DRILL_CPU);
	EXPECT_TRUE(right_with(&d, fake_result(DIAG_SCHED, true, 20,
					       GPULAT_FAM_SCHED, 0)));
	/* the right layer, another culprit */
	EXPECT_FALSE(right_with(&d, fake_result(DIAG_SCHED, true, 21,
						GPULAT_FAM_SCHED, 0)));
	/* the right layer, not abnormal yet */
	EXPECT_FALSE(right_with(&d, fake_result(DIAG_SCHED, false, 20,
						GPULAT_FAM_SCHED, 0)));
	/* another layer first */
	EXPECT_FALSE(right_with(&d, fake_result(DIAG_MEMORY, true, 20,
						GPULAT_FAM_MM, 0)));
	/* a disk drill: the right key, then another */
	fake_drill(&d, DRILL_DISK);
	EXPECT_TRUE(right_with(&d, fake_result(DIAG_STORAGE, true, 0,
					       GPULAT_FAM_BLOCK, 99)));
	EXPECT_FALSE(right_with(&d, fake_result(DIAG_STORAGE, true, 0,
						GPULAT_FAM_BLOCK, 98)));
}

static int undo_count;

static int undo_ok(struct drill_undo *u)
{
	(void)u;
	undo_count--;
	return 0;
}

static int undo_busy(struct drill_undo *u)
{
	(void)u;
	return -EBUSY;
}

/* make - @n steps, each pushing what it made; step @fail fails */
static int make(struct drill_stack *s, int n, int fail)
{
	int i;

	for (i = 0; i < n; i++) {
		if (i == fail)
			return -EIO;
		undo_count++;
		if (!drill_push(s, undo_ok, "x", "thing %d", i))
			return -ENOSPC;
	}
	return 0;
}

TEST(cleanup_stack)
{
	struct drill_stack s;
	int fail;

	for (fail = 0; fail <= 6; fail++) {
		memset(&s, 0, sizeof(s));
		undo_count = 0;
		ASSERT_EQ(fail < 6 ? -EIO : 0, make(&s, 6, fail));
		ASSERT_EQ(fail < 6 ? fail : 6, (int)s.n);
		drill_unwind(&s, false);
		ASSERT_EQ(0, undo_count);
		ASSERT_TRUE(drill_restored(&s));
		/* undone once only */
		drill_unwind(&s, false);
		ASSERT_EQ(0, undo_count);
	}
	/* bounded: a full stack refuses, the make fails, all is undone */
	memset(&s, 0, sizeof(s));
	undo_count = 0;
	ASSERT_EQ(-ENOSPC, make(&s, DRILL_MAX_UNDO + 1, -1));
	undo_count--;	/* the one that could not be pushed */
	drill_unwind(&s, false);
	ASSERT_EQ(0, undo_count);
	/* a removal that fails is reported */
	memset(&s, 0, sizeof(s));
	drill_push(&s, undo_busy, NULL, "busy");
	drill_unwind(&s, false);
	ASSERT_FALSE(drill_restored(&s));
	ASSERT_EQ(-EBUSY, s.v[0].ret);
}

TEST(children_killed_and_reaped)
{
	struct drill_stack s;
	pid_t a, b;

	memset(&s, 0, sizeof(s));
	a = drill_fork(5, "gldrill-test");
	if (!a)
		for (;;)
			pause();
	b = drill_fork(5, "gldrill-test");
	if (!b)
		for (;;)
			pause();
	ASSERT_GT(a, 0);
	ASSERT_GT(b, 0);
	drill_push(&s, undo_ok, NULL, "a device");
	undo_count = 1;
	drill_push_child(&s, a, true, "workload %d", a);
	drill_push_child(&s, b, false, "holder %d", b);
	/* the workload first, the rest left */
	drill_unwind(&s, true);
	ASSERT_TRUE(s.v[1].done);
	ASSERT_FALSE(s.v[2].done);
	ASSERT_EQ(1, undo_count);
	ASSERT_EQ(-1, waitpid(a, NULL, WNOHANG));
	ASSERT_EQ(ECHILD, errno);
	drill_unwind(&s, false);
	ASSERT_EQ(0, undo_count);
	ASSERT_EQ(-1, waitpid(b, NULL, WNOHANG));
	ASSERT_TRUE(drill_restored(&s));
}

/* put - write @text to @root/@rel, making its folders */
static void put(const char *root, const char *rel, const char *text)
{
	char path[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

TEST(nvidia_cpus)
{
	char root[] = "/tmp/gpulat-drill-XXXXXX", who[96], cmd[600];

	ASSERT_NE(NULL, mkdtemp(root));
	put(root, "sys/devices/system/cpu/online", "0-3\n");
	put(root, "proc/812/comm", "irq/130-nvidia\n");
	put(root, "proc/812/status", "Name:\tirq/130-nvidia\nCpus_allowed_list:\t2\n");
	put(root, "proc/900/comm", "nv_queue\n");
	put(root, "proc/900/status", "Cpus_allowed_list:\t0-3\n");
	put(root, "proc/901/comm", "irq/131-eth0\n");
	put(root, "proc/901/status", "Cpus_allowed_list:\t1\n");
	put(root, "proc/902/comm", "nvidia-modeset/\n");
	put(root, "proc/902/status", "Cpus_allowed_list:\t3\n");
	ASSERT_EQ(0, setenv("GPULAT_SYSROOT", root, 1));
	ASSERT_TRUE(drill_nvidia_cpu(2, who, sizeof(who)));
	ASSERT_STREQ("irq/130-nvidia (pid 812)", who);
	ASSERT_TRUE(drill_nvidia_cpu(3, who, sizeof(who)));
	/* allowed everywhere, or not the driver's: not a reason to refuse */
	ASSERT_FALSE(drill_nvidia_cpu(0, who, sizeof(who)));
	ASSERT_FALSE(drill_nvidia_cpu(1, who, sizeof(who)));
	unsetenv("GPULAT_SYSROOT");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	ASSERT_EQ(0, system(cmd));
}

/* render - the JSON report of @d */
static char *render(const struct drill *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	drill_print_json(f, d);
	fclose(f);
	return buf;
}

/* check_json - @text is one JSON object of the documented schema */
static int check_json(const char *text, const char *verdict)
{
	static const char script[] =
		"import json, sys\n"
		"lines = open(sys.argv[1]).read().splitlines()\n"
		"assert len(lines) == 1\n"
		"d = json.loads(lines[0])\n"
		"assert d['version'] == 1\n"
		"assert d['verdict'] == sys.argv[2], d['verdict']\n"
		"assert d['exit'] == {'pass': 0, 'fail': 1, 'skipped': 4}[d['verdict']]\n"
		"for k in ('drill', 'reason', 'unix_time', 'kernel', 'source',\n"
		"          'duration_s', 'injected', 'fault', 'detection',\n"
		"          'diagnose', 'restored'):\n"
		"    assert k in d, k\n"
		"for k in ('what', 'where', 'seconds', 'family', 'threshold_ns'):\n"
		"    assert k in d['fault'], k\n"
		"for k in ('family_on', 'records', 'first_after_ns'):\n"
		"    assert k in d['detection'], k\n"
		"for k in ('expected_layer', 'top_layer', 'top_abnormal',\n"
		"          'right_layer', 'culprit', 'culprit_named'):\n"
		"    assert k in d['diagnose'], k\n"
		"r = d['restored']\n"
		"assert r['all'] == all(t['removed'] for t in r['things'])\n"
		"for t in r['things']:\n"
		"    assert (t['error'] is None) == t['removed']\n";
	char path[] = "/tmp/gpulat-drill-XXXXXX", cmd[256];
	int fd, ret;

	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return -1;
	close(fd);
	setenv("GPULAT_DRILL_CHECK", script, 1);
	snprintf(cmd, sizeof(cmd), "python3 -c \"$GPULAT_DRILL_CHECK\" %s %s",
		 path, verdict);
	ret = system(cmd);
	unlink(path);
	return ret;
}

TEST(json_report)
{
	struct drill d;
	char *t;

	fake_drill(&d, DRILL_CPU);
	drill_push(&d.undo, undo_ok, NULL, "CPU hog \"x\"\n");
	undo_count = 1;
	drill_unwind(&d.undo, false);
	judge(&d, fake_result(DIAG_SCHED, true, 20, GPULAT_FAM_SCHED, 0));
	t = render(&d);
	ASSERT_EQ(0, check_json(t, "pass"));
	ASSERT_NE(NULL, strstr(t, "\"first_after_ns\":5000000"));
	/* never right while the fault lasted: null, and how often asked */
	ASSERT_NE(NULL, strstr(t, "\"verdict_after_ns\":null,\"verdict_checks\":0"));
	free(t);
	d.seen.right_ns = 1500000000;
	d.seen.nr_steps = 3;
	t = render(&d);
	ASSERT_NE(NULL, strstr(t, "\"verdict_after_ns\":1500000000,\"verdict_checks\":3"));
	ASSERT_NE(NULL, strstr(t, "\"culprit\":\"pid 20\",\"culprit_named\":true"));
	free(t);
	/* skipped before anything: no fault, nothing made */
	memset(&d, 0, sizeof(d));
	d.kind = DRILL_IRQ;
	drill_set(&d, DRILL_SKIP, "no way");
	t = render(&d);
	ASSERT_EQ(0, check_json(t, "skipped"));
	ASSERT_NE(NULL, strstr(t, "\"injected\":false"));
	free(t);
	/* a removal that failed */
	fake_drill(&d, DRILL_DISK);
	drill_push(&d.undo, undo_busy, NULL, "null_blk device");
	drill_unwind(&d.undo, false);
	drill_judge(&d);
	t = render(&d);
	ASSERT_EQ(0, check_json(t, "fail"));
	ASSERT_NE(NULL, strstr(t, "\"all\":false"));
	free(t);
}

/* put_record - a record of drill @pid in @dir, as a drill writes it */
static void put_record(const char *dir, int pid, const char *lines)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d-1", dir, pid);
	f = fopen(path, "w");
	if (!f)
		abort();
	fprintf(f, "gpulat-drill %d net 1796000000\n%s", pid, lines);
	fclose(f);
}

TEST(sweep_of_a_dead_drill)
{
	char dir[] = "/tmp/gl-drill-state.XXXXXX", path[300];
	static struct drill_sweep sw;
	struct drill d;
	size_t k;
	int pid = 999999;	/* past pid_max: never a live process */

	ASSERT_NE(NULL, mkdtemp(dir));
	setenv(DRILL_STATE_ENV, dir, 1);
	/* what is gone already is removed at once; a name not its own refused */
	put_record(dir, pid, "netns gpulat-drill-999999\nlink gldA999999\n"
		   "link eth0\nchild 1 1 init\nnullb /sys/kernel/config/nullb/x\n"
		   "netns gpulat-drill-7\ncut sh");
	ASSERT_EQ(0, drill_sweep(&sw, false));
	ASSERT_EQ(1, (int)sw.n);
	ASSERT_EQ(pid, sw.dead[0].pid);
	ASSERT_STREQ("net", sw.dead[0].kind);
	/* newest first; the last line, cut short by the kill, not read */
	ASSERT_EQ(6, (int)sw.dead[0].n);
	EXPECT_STREQ("network namespace gpulat-drill-7", sw.dead[0].v[0].what);
	EXPECT_EQ(-EPERM, sw.dead[0].v[0].ret);
	EXPECT_EQ(-EPERM, sw.dead[0].v[1].ret);	/* not its nullb */
	EXPECT_FALSE(sw.dead[0].v[2].present);	/* pid 1 is not gldrill-* */
	EXPECT_EQ(-EPERM, sw.dead[0].v[3].ret);	/* eth0 */
	EXPECT_FALSE(sw.dead[0].v[4].present);
	EXPECT_EQ(0, sw.dead[0].v[5].ret);
	/* refused lines keep the record: removed, it is kept, said failed */
	ASSERT_EQ(0, drill_sweep(&sw, true));
	ASSERT_EQ(1, (int)sw.n);
	EXPECT_TRUE(drill_sweep_failed(&sw));
	snprintf(path, sizeof(path), "%s/%d-1", dir, pid);
	EXPECT_EQ(0, access(path, F_OK));
	unlink(path);
	/* all gone: the record goes too */
	put_record(dir, pid, "netns gpulat-drill-999999\nchild 999998 5 gldrill-hog\n");
	ASSERT_EQ(0, drill_sweep(&sw, true));
	ASSERT_EQ(1, (int)sw.n);
	EXPECT_FALSE(drill_sweep_failed(&sw));
	for (k = 0; k < sw.dead[0].n; k++)
		EXPECT_TRUE(sw.dead[0].v[k].removed);
	EXPECT_NE(0, access(path, F_OK));
	/* this process's own record, locked while it runs: never touched */
	memset(&d, 0, sizeof(d));
	d.kind = DRILL_CPU;
	ASSERT_EQ(0, drill_journal(&d, "netns " DRILL_PREFIX "-%d", (int)getpid()));
	ASSERT_EQ(0, drill_sweep(&sw, true));
	EXPECT_EQ(0, (int)sw.n);
	EXPECT_EQ(1, (int)sw.nr_live);
	drill_journal_end(&d);	/* everything restored: the record goes */
	ASSERT_EQ(0, drill_sweep(&sw, false));
	EXPECT_EQ(0, (int)sw.n);
	EXPECT_EQ(0, (int)sw.nr_live);
	EXPECT_EQ(0, rmdir(dir));
	unsetenv(DRILL_STATE_ENV);
}

TEST_HARNESS_MAIN

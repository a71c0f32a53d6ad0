// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat diagnose by cgroup: the containers whose tasks held the CPU
 * while another container's waited, ranked from synthetic records, and
 * the advice quoting the limits of a fake cgroup directory.
 */
#include "diag_cases.h"
#include "lib/cgroup.h"

#define HOG "1111111111111111111111111111111111111111111111111111111111111111"
#define VIC "2222222222222222222222222222222222222222222222222222222222222222"
#define POD_ "1f2e3d4c_5b6a_4978_8695_a4b3c2d1e0f9"
#define HOG_DIR "/system.slice/docker-" HOG ".scope"
#define VIC_DIR "/kubepods.slice/kubepods-pod" POD_ ".slice/cri-containerd-" VIC ".scope"
#define DB_DIR "/system.slice/db.service"

static uint64_t mkcg(const char *root, const char *rel)
{
	char p[PATH_MAX], cmd[PATH_MAX + 16];
	struct stat st;

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s%s'", root, rel);
	if (system(cmd))
		return 0;
	snprintf(p, sizeof(p), "%s%s", root, rel);
	return stat(p, &st) ? 0 : st.st_ino;
}

static void put(const char *root, const char *rel, const char *file,
		const char *value)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s%s/%s", root, rel, file);
	f = fopen(p, "w");
	if (f) {
		fprintf(f, "%s\n", value);
		fclose(f);
	}
}

TEST_F(diag, containers_ranked_with_their_limits)
{
	struct gl_trace_rec recs[14];
	char cg[96], *t;
	uint64_t hog, vic, db, other;
	size_t i;

	snprintf(cg, sizeof(cg), "%s/cg", self->root);
	hog = mkcg(cg, HOG_DIR);
	vic = mkcg(cg, VIC_DIR);
	db = mkcg(cg, DB_DIR);
	other = mkcg(cg, "/user.slice/user-1000.slice/session-2.scope");
	ASSERT_NE(0, hog);
	ASSERT_NE(0, other);
	put(cg, HOG_DIR, "cpuset.cpus", "1");
	put(cg, HOG_DIR, "cpuset.cpus.effective", "1");
	put(cg, HOG_DIR, "cpu.max", "max 100000");
	put(cg, HOG_DIR, "cpu.weight", "100");
	put(cg, DB_DIR, "io.max", "");
	put(cg, DB_DIR, "memory.high", "1073741824");
	put(cg, DB_DIR, "memory.max", "max");
	gl_cg_set_root(cg);

	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	memset(recs, 0, sizeof(recs));
	/* the hog's container held CPU 1 while the pod's container waited */
	for (i = 0; i < 10; i++) {
		struct gpulat_rec_sample *s;

		s = wait_rec(&recs[i], 1, GPULAT_SCHED_WAKEUP, 20 * MS, 777,
			     770, "feeder");
		s->flags |= GPULAT_REC_F_CGROUP;
		s->cgroup_id = vic;
		add_culprit(s, 4242, 4242, 19 * MS, "xmrig");
		s->culprit_cgroup[0] = hog;
		/* and a session's shell, less; the victim's own thread: no pair */
		add_culprit(s, 50, 50, i < 4 ? MS : 0, "bash");
		s->culprit_cgroup[1] = other;
		add_culprit(s, 778, 770, MS / 2, "feeder2");
		s->culprit_cgroup[2] = vic;
	}
	/* an old record without cgroups counts nowhere here */
	wait_rec(&recs[10], 1, GPULAT_SCHED_WAKEUP, 20 * MS, 1, 1, "init");
	/* the database's reads and its memcg reclaim */
	for (i = 11; i < 13; i++) {
		recs[i].type = GPULAT_REC_SAMPLE;
		recs[i].u.sample.family = GPULAT_FAM_BLOCK;
		recs[i].u.sample.series = 1;
		recs[i].u.sample.latency_ns = 30 * MS;
		recs[i].u.sample.pid = 900;
		strcpy(recs[i].u.sample.comm, "postgres");
		recs[i].u.sample.flags = GPULAT_REC_F_CGROUP;
		recs[i].u.sample.cgroup_id = db;
	}
	recs[13].type = GPULAT_REC_SAMPLE;
	recs[13].u.sample.family = GPULAT_FAM_MM;
	recs[13].u.sample.series = GPULAT_MM_MEMCG_RECLAIM;
	recs[13].u.sample.latency_ns = 40 * MS;
	recs[13].u.sample.pid = 901;
	strcpy(recs[13].u.sample.comm, "postgres");
	recs[13].u.sample.flags = GPULAT_REC_F_CGROUP;
	recs[13].u.sample.cgroup_id = db;
	self->w.recs = recs;
	self->w.nr_recs = ARRAY_SIZE(recs);
	self->w.trace_ok = true;
	self->w.thresholds[GPULAT_FAM_SCHED] = 10 * MS;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	gl_cg_set_root(NULL);

	EXPECT_EQ(DIAG_SCHED, diag_ranked(self->r, 1));
	/* 190 ms over 10 waits; the shell 4 ms over 4 */
	t = joined(self->text);
	EXPECT_NE(NULL, strstr(t, "by cgroup (3 cgroups in the records):"));
	EXPECT_NE(NULL, strstr(t, "the tasks of docker 111111111111 held the CPU while tasks of containerd 222222222222 pod 1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9 waited: 190ms over 10 waits held: " HOG_DIR " waited: " VIC_DIR " tasks 4242 (xmrig); cpuset.cpus 1, cpuset.cpus.effective 1, cpu.max max 100000, cpu.weight 100"));
	EXPECT_NE(NULL, strstr(t, "the tasks of user 1000 unit session-2.scope held the CPU"));
	EXPECT_NE(NULL, strstr(t, "waited: 4.00ms over 4 waits"));
	EXPECT_NE(NULL, strstr(t, "cpuset.cpus (absent)"));
	/* the container's own threads taking turns are no pair */
	EXPECT_EQ(NULL, strstr(t, "feeder2)"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "Keep docker 111111111111 off the CPUs of containerd 222222222222"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "its cpuset.cpus is 1 (effective 1), cpu.max max 100000, cpu.weight 100"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, HOG_DIR "/cpuset.cpus"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "its tasks: 4242 (xmrig)."));
	/* JSON: the pair, both cgroups, the limits */
	EXPECT_NE(NULL, strstr(self->json, "\"cgroups\":{\"seen\":3,\"left_out\":0,\"rows\":[{\"waited\":{\"id\":"));
	EXPECT_NE(NULL, strstr(self->json, "\"held\":{\"id\":"));
	EXPECT_NE(NULL, strstr(self->json, "\"kind\":\"docker\",\"id\":\"" HOG "\""));
	EXPECT_NE(NULL, strstr(self->json, "\"ns\":190000000,\"count\":10,\"tasks\":[{\"pid\":4242,\"comm\":\"xmrig\"}],\"limits\":{\"cpuset.cpus\":\"1\",\"cpuset.cpus.effective\":\"1\",\"cpu.max\":\"max 100000\",\"cpu.weight\":\"100\"}}"));
	/* storage and memory: the issuing cgroup, its io.max and memory limits */
	EXPECT_NE(NULL, strstr(self->json, "\"ns\":60000000,\"count\":2,\"tasks\":[{\"pid\":900,\"comm\":\"postgres\"}],\"limits\":{\"io.max\":\"\"}}"));
	EXPECT_NE(NULL, strstr(self->json, "\"limits\":{\"memory.high\":\"1073741824\",\"memory.max\":\"max\"}"));
	EXPECT_TRUE(advice_has(self->r, DIAG_STORAGE, "Cap the I/O of unit db.service"));
	EXPECT_TRUE(advice_has(self->r, DIAG_MEMORY, "unit db.service reclaims at its own memory limit: memory.high 1073741824, memory.max max"));
	EXPECT_EQ(0, check_json(self->json));
}

/* One cgroup alone in the scheduler's records: nothing to rank. */
TEST_F(diag, one_cgroup_ranks_none)
{
	struct gl_trace_rec recs[3];
	struct gpulat_rec_sample *s;
	size_t i;

	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	memset(recs, 0, sizeof(recs));
	for (i = 0; i < 3; i++) {
		s = wait_rec(&recs[i], 1, GPULAT_SCHED_WAKEUP, 20 * MS, 777,
			     770, "feeder");
		s->flags |= GPULAT_REC_F_CGROUP;
		s->cgroup_id = 5;
		add_culprit(s, 4242, 4242, 19 * MS, "xmrig");
		s->culprit_cgroup[0] = 5;
	}
	self->w.recs = recs;
	self->w.nr_recs = ARRAY_SIZE(recs);
	self->w.trace_ok = true;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	EXPECT_EQ(NULL, strstr(self->text, "by cgroup"));
	EXPECT_NE(NULL, strstr(self->json, "\"cgroups\":{\"seen\":1,\"left_out\":0,\"rows\":[]}"));
}

/* put_file - @path (under @root) holding @text, its folders made */
static void put_file(const char *root, const char *path, const char *text)
{
	char p[PATH_MAX], cmd[PATH_MAX + 16], *slash;
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", root, path);
	slash = strrchr(p, '/');
	*slash = '\0';
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", p);
	if (system(cmd))
		abort();
	*slash = '/';
	f = fopen(p, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

static struct gpulat_rec_sample *io_rec(struct gl_trace_rec *r, uint32_t fam,
					uint32_t series, int32_t pid,
					uint64_t cg)
{
	struct gpulat_rec_sample *s = &r->u.sample;

	r->type = GPULAT_REC_SAMPLE;
	s->family = fam;
	s->series = series;
	s->latency_ns = 30 * MS;
	s->pid = pid;
	s->tgid = pid;
	strcpy(s->comm, pid ? "postgres" : "");
	s->flags = GPULAT_REC_F_CGROUP;
	s->cgroup_id = cg;
	return s;
}

/*
 * A hybrid host (v1 controllers, cgroup2 at .../unified): the limits and
 * the advice are those of the tasks' v1 controller directories, never
 * the cgroup2 one; the memory cgroup is the v1 one (the task's cgroup2
 * cgroup is the root); a task at its blkio hierarchy's root gets no
 * advice to cap it there.
 */
TEST_F(diag, hybrid_host_advice_in_v1_directories)
{
	struct gl_trace_rec recs[12];
	char uni[128], v1[128], *t;
	uint64_t hog, vic, top;
	size_t i;

	snprintf(uni, sizeof(uni), "%s/sys/fs/cgroup/unified", self->root);
	snprintf(v1, sizeof(v1), "%s/sys/fs/cgroup", self->root);
	hog = mkcg(uni, HOG_DIR);
	vic = mkcg(uni, VIC_DIR);
	top = mkcg(uni, "");
	ASSERT_NE(0, top);
	put_file(self->root, "/proc/4242/cgroup",
		 "7:memory:/docker/" HOG "\n5:cpuset:/docker/" HOG
		 "\n4:cpu,cpuacct:/docker/" HOG "\n0::" HOG_DIR "\n");
	put_file(v1, "/cpuset/docker/" HOG "/cpuset.cpus", "1\n");
	put_file(v1, "/cpu,cpuacct/docker/" HOG "/cpu.cfs_quota_us", "-1\n");
	put_file(v1, "/cpu,cpuacct/docker/" HOG "/cpu.cfs_period_us",
		 "100000\n");
	put_file(v1, "/cpu,cpuacct/docker/" HOG "/cpu.shares", "1024\n");
	put_file(self->root, "/proc/901/cgroup", "7:memory:/test\n0::/\n");
	put_file(v1, "/memory/test/memory.limit_in_bytes", "268435456\n");
	put_file(self->root, "/proc/900/cgroup", "6:blkio:/\n0::" VIC_DIR "\n");
	gl_cg_set_root(uni);
	ASSERT_TRUE(gl_cg_hybrid());

	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	memset(recs, 0, sizeof(recs));
	for (i = 0; i < 10; i++) {
		struct gpulat_rec_sample *s;

		s = wait_rec(&recs[i], 1, GPULAT_SCHED_WAKEUP, 20 * MS, 777,
			     770, "feeder");
		s->flags |= GPULAT_REC_F_CGROUP;
		s->cgroup_id = vic;
		add_culprit(s, 4242, 4242, 19 * MS, "xmrig");
		s->culprit_cgroup[0] = hog;
	}
	io_rec(&recs[10], GPULAT_FAM_BLOCK, 1, 900, vic);
	io_rec(&recs[11], GPULAT_FAM_MM, GPULAT_MM_MEMCG_RECLAIM, 901, top);
	self->w.recs = recs;
	self->w.nr_recs = ARRAY_SIZE(recs);
	self->w.trace_ok = true;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	gl_cg_set_root(NULL);

	t = joined(self->text);
	EXPECT_NE(NULL, strstr(t, "cpuset.cpus 1 (v1 cpuset.cpus)"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "/sys/fs/cgroup/cpuset/docker/" HOG "/cpuset.cpus"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "/sys/fs/cgroup/cpu,cpuacct/docker/" HOG "/cpu.cfs_quota_us (50000 with a cpu.cfs_period_us of 100000: half a CPU; now max 100000 (v1 cpu.cfs_quota_us, cpu.cfs_period_us))"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "its tasks: 4242 (xmrig)"));
	EXPECT_TRUE(advice_has(self->r, DIAG_MEMORY, "The memory cgroup "));
	EXPECT_TRUE(advice_has(self->r, DIAG_MEMORY, "/sys/fs/cgroup/memory/test reclaims at its own limit, memory.limit_in_bytes 268435456 (v1 memory.limit_in_bytes)"));
	/* nothing written under the cgroup2 mount, no cap at a root */
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "unified"));
	EXPECT_FALSE(advice_has(self->r, DIAG_MEMORY, "unified"));
	EXPECT_FALSE(advice_has(self->r, DIAG_STORAGE, "Cap the I/O"));
}

/*
 * cgroup2 alone: a root cgroup takes no limit (no advice to set one
 * there), and a cgroup whose records named no task says where to list
 * its tasks rather than an empty list.
 */
TEST_F(diag, v2_no_root_advice_no_empty_task_list)
{
	struct gl_trace_rec recs[12];
	uint64_t vic, db, top;
	char cg[96];
	size_t i;

	snprintf(cg, sizeof(cg), "%s/cg", self->root);
	vic = mkcg(cg, VIC_DIR);
	db = mkcg(cg, DB_DIR);
	top = mkcg(cg, "");
	ASSERT_NE(0, top);
	put(cg, DB_DIR, "io.max", "");
	gl_cg_set_root(cg);
	ASSERT_FALSE(gl_cg_hybrid());

	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	memset(recs, 0, sizeof(recs));
	/* the tasks of the root cgroup held the CPU */
	for (i = 0; i < 10; i++) {
		struct gpulat_rec_sample *s;

		s = wait_rec(&recs[i], 1, GPULAT_SCHED_WAKEUP, 20 * MS, 777,
			     770, "feeder");
		s->flags |= GPULAT_REC_F_CGROUP;
		s->cgroup_id = vic;
		add_culprit(s, 4242, 4242, 19 * MS, "xmrig");
		s->culprit_cgroup[0] = top;
	}
	io_rec(&recs[10], GPULAT_FAM_BLOCK, 1, 0, db);
	io_rec(&recs[11], GPULAT_FAM_MM, GPULAT_MM_MEMCG_RECLAIM, 901, top);
	self->w.recs = recs;
	self->w.nr_recs = ARRAY_SIZE(recs);
	self->w.trace_ok = true;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	gl_cg_set_root(NULL);

	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "off the CPUs of containerd"));
	EXPECT_FALSE(advice_has(self->r, DIAG_MEMORY, "reclaims at its own memory limit"));
	EXPECT_TRUE(advice_has(self->r, DIAG_STORAGE, "Cap the I/O of unit db.service"));
	EXPECT_TRUE(advice_has(self->r, DIAG_STORAGE, "list its tasks with cat "));
	EXPECT_TRUE(advice_has(self->r, DIAG_STORAGE, DB_DIR "/cgroup.procs."));
	EXPECT_FALSE(advice_has(self->r, DIAG_STORAGE, "its tasks: ."));
}

/*
 * A container's workers wait behind the root cgroup's tasks a little
 * longer than the root's wait behind them: the root is never advised,
 * the container is (the next row, with half the top's time or more).
 */
TEST_F(diag, container_advised_after_a_root_row)
{
	struct gl_trace_rec recs[19];
	uint64_t hog, top;
	char cg[96];
	size_t i;

	snprintf(cg, sizeof(cg), "%s/cg", self->root);
	hog = mkcg(cg, HOG_DIR);
	top = mkcg(cg, "");
	ASSERT_NE(0, hog);
	ASSERT_NE(0, top);
	put(cg, HOG_DIR, "cpu.max", "max 100000");
	gl_cg_set_root(cg);

	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	memset(recs, 0, sizeof(recs));
	for (i = 0; i < ARRAY_SIZE(recs); i++) {
		struct gpulat_rec_sample *s;
		bool root_holds = i < 10;

		s = wait_rec(&recs[i], 1, GPULAT_SCHED_WAKEUP, 20 * MS,
			     root_holds ? 4242 : 777, root_holds ? 4242 : 770,
			     root_holds ? "worker" : "feeder");
		s->flags |= GPULAT_REC_F_CGROUP;
		s->cgroup_id = root_holds ? hog : top;
		if (root_holds)
			add_culprit(s, 60, 60, 19 * MS, "sh");
		else
			add_culprit(s, 4242, 4242, 19 * MS, "worker");
		s->culprit_cgroup[0] = root_holds ? top : hog;
	}
	self->w.recs = recs;
	self->w.nr_recs = ARRAY_SIZE(recs);
	self->w.trace_ok = true;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	gl_cg_set_root(NULL);

	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED,
			       "Keep docker 111111111111 off the CPUs of /"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "its tasks: 4242 (worker)."));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "Keep / off"));
}

/*
 * A container's workers take turns on one CPU, the root's tasks holding
 * it a little: no pair to advise (its own turns are none, the root takes
 * no cap), but the container held the CPU in 75% of the outlier waits:
 * cap it.
 */
TEST_F(diag, container_holding_its_own_waits_is_capped)
{
	struct gl_trace_rec recs[10];
	uint64_t hog, top;
	char cg[96];
	size_t i;

	snprintf(cg, sizeof(cg), "%s/cg", self->root);
	hog = mkcg(cg, HOG_DIR);
	top = mkcg(cg, "");
	ASSERT_NE(0, hog);
	ASSERT_NE(0, top);
	put(cg, HOG_DIR, "cpu.max", "max 100000");
	gl_cg_set_root(cg);

	blob_record(&self->end, S_WAKE + 1, 20 * MS, 200);
	memset(recs, 0, sizeof(recs));
	for (i = 0; i < ARRAY_SIZE(recs); i++) {
		struct gpulat_rec_sample *s;

		s = wait_rec(&recs[i], 1, GPULAT_SCHED_WAKEUP, 20 * MS, 4242,
			     4242, "worker");
		s->flags |= GPULAT_REC_F_CGROUP;
		s->cgroup_id = hog;
		add_culprit(s, 4243, 4243, 15 * MS, "worker");
		s->culprit_cgroup[0] = hog;
		add_culprit(s, 60, 60, 1 * MS, "sh");
		s->culprit_cgroup[1] = top;
	}
	self->w.recs = recs;
	self->w.nr_recs = ARRAY_SIZE(recs);
	self->w.trace_ok = true;
	ASSERT_EQ(0, run(self, _metadata, NULL));
	gl_cg_set_root(NULL);

	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED,
			       "Cap docker 111111111111: its tasks held the CPU in 75% of the outlier waits (their own waits included): its cpuset.cpus is (absent)"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "cpu.max max 100000"));
	EXPECT_TRUE(advice_has(self->r, DIAG_SCHED, "its tasks: 4243 (worker)."));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "Keep / off"));
	EXPECT_FALSE(advice_has(self->r, DIAG_SCHED, "Cap /"));
}

TEST_HARNESS_MAIN

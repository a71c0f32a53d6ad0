// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroups in the tool (user/lib/cgroup*.c): the mount from mountinfo,
 * container naming (every pattern and near-misses), id -> path on a
 * temporary tree whose inode numbers stand in for ids, with its bounds,
 * and the v1 lines of a hybrid host.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "blob.h"
#include "engine/cgview/cgview.h"
#include "lib/cgroup.h"
#include "lib/source.h"

#define H64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define POD "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9"
#define POD_ "1f2e3d4c_5b6a_4978_8695_a4b3c2d1e0f9"

static const char *named(const char *path)
{
	static char buf[256];
	struct gl_cg_name n;

	gl_cg_name_path(path, &n);
	return gl_cg_name_text(buf, sizeof(buf), &n);
}

TEST(naming_patterns)
{
	struct gl_cg_name n;

	EXPECT_STREQ("docker 0123456789ab",
		     named("/system.slice/docker-" H64 ".scope"));
	EXPECT_EQ(GL_CG_DOCKER, gl_cg_name_path("/docker/" H64, &n));
	EXPECT_STREQ(H64, n.id);
	EXPECT_STREQ("containerd 0123456789ab pod " POD,
		     named("/kubepods.slice/kubepods-burstable.slice/"
			   "kubepods-burstable-pod" POD_ ".slice/"
			   "cri-containerd-" H64 ".scope"));
	EXPECT_STREQ("containerd 0123456789ab pod " POD,
		     named("/kubepods.slice/kubepods-pod" POD_ ".slice/"
			   "cri-containerd-" H64 ".scope"));
	EXPECT_STREQ("containerd 0123456789ab pod " POD,
		     named("/kubepods.slice/kubepods-besteffort.slice/"
			   "kubepods-besteffort-pod" POD_ ".slice/"
			   "cri-containerd-" H64 ".scope"));
	EXPECT_STREQ("kubernetes 0123456789ab pod " POD,
		     named("/kubepods/burstable/pod" POD "/" H64));
	EXPECT_STREQ("kubernetes 0123456789ab pod " POD,
		     named("/kubepods/pod" POD "/" H64));
	EXPECT_STREQ("cri-o 0123456789ab pod " POD,
		     named("/kubepods.slice/kubepods-pod" POD_ ".slice/crio-"
			   H64 ".scope"));
	EXPECT_STREQ("cri-o 0123456789ab", named("/crio-" H64 ".scope"));
	EXPECT_STREQ("podman 0123456789ab",
		     named("/machine.slice/libpod-" H64 ".scope"));
	EXPECT_STREQ("unit sshd.service", named("/system.slice/sshd.service"));
	EXPECT_STREQ("unit init.scope", named("/init.scope"));
	EXPECT_STREQ("user 1000 unit session-3.scope",
		     named("/user.slice/user-1000.slice/session-3.scope"));
	EXPECT_EQ(GL_CG_USER, gl_cg_name_path("/user.slice/user-0.slice", &n));
	EXPECT_EQ(0, n.uid);
	/* a unit above a container: the container names it */
	EXPECT_STREQ("docker 0123456789ab",
		     named("/system.slice/docker-" H64 ".scope/init.scope"));
	EXPECT_STREQ("docker", gl_cg_kind_name(GL_CG_DOCKER));
	EXPECT_TRUE(gl_cg_is_container(GL_CG_KUBE));
	EXPECT_FALSE(gl_cg_is_container(GL_CG_UNIT));
}

TEST(naming_near_misses)
{
	struct gl_cg_name n;

	EXPECT_EQ(GL_CG_NONE, gl_cg_name_path("/", &n));
	EXPECT_EQ(GL_CG_NONE, gl_cg_name_path("", &n));
	EXPECT_EQ(GL_CG_NONE, gl_cg_name_path("/system.slice", &n));
	/* 65 characters, too short, upper case, too long: no container */
	EXPECT_EQ(GL_CG_UNIT, gl_cg_name_path("/docker-" H64 "x.scope", &n));
	EXPECT_EQ(GL_CG_UNIT, gl_cg_name_path("/docker-" "123.scope", &n));
	EXPECT_EQ(GL_CG_NONE, gl_cg_name_path("/docker/0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef", &n));
	EXPECT_EQ(GL_CG_NONE, gl_cg_name_path("/docker/" H64 "0", &n));
	/* an id not under docker or a pod */
	EXPECT_EQ(GL_CG_NONE, gl_cg_name_path("/other/" H64, &n));
	EXPECT_EQ(GL_CG_NONE, gl_cg_name_path("/" H64, &n));
	/* a pod without a kubepods parent; a pod uid cut short */
	EXPECT_EQ(GL_CG_NONE, gl_cg_name_path("/x/pod" POD "/" H64, &n));
	EXPECT_EQ(GL_CG_NONE,
		  gl_cg_name_path("/kubepods/podabc/" H64, &n));
	/* podman's conmon is no container; docker.service is a unit */
	EXPECT_EQ(GL_CG_UNIT,
		  gl_cg_name_path("/machine.slice/libpod-conmon-" H64 ".scope",
				  &n));
	EXPECT_STREQ("unit docker.service", named("/system.slice/docker.service"));
	/* user-X.slice with X not a number; ".service" alone */
	EXPECT_EQ(GL_CG_NONE, gl_cg_name_path("/user.slice/user-x.slice", &n));
	EXPECT_EQ(GL_CG_NONE, gl_cg_name_path("/.service", &n));
	EXPECT_EQ(-1, n.uid);
	EXPECT_STREQ("", named("/a//b/"));
}

TEST(mountinfo)
{
	static const char pure[] =
		"22 27 0:20 / /proc rw,nosuid - proc proc rw\n"
		"26 21 0:23 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n";
	static const char hybrid[] =
		"30 24 0:26 / /sys/fs/cgroup ro shared:9 - tmpfs tmpfs ro,mode=755\n"
		"31 30 0:27 / /sys/fs/cgroup/unified rw shared:10 - cgroup2 cgroup2 rw\n"
		"32 30 0:28 / /sys/fs/cgroup/cpu,cpuacct rw shared:11 - cgroup cgroup rw,cpu,cpuacct\n";
	static const char other[] =
		"40 1 0:30 / /mnt/cg\\040two rw - cgroup2 none rw\n"
		"41 1 0:31 / /mnt/x rw - cgroup2fs none rw\n";
	char buf[PATH_MAX], tiny[8];

	ASSERT_EQ(0, gl_cg_mount_parse(pure, strlen(pure), buf, sizeof(buf)));
	EXPECT_STREQ("/sys/fs/cgroup", buf);
	ASSERT_EQ(0, gl_cg_mount_parse(hybrid, strlen(hybrid), buf,
				       sizeof(buf)));
	EXPECT_STREQ("/sys/fs/cgroup/unified", buf);
	ASSERT_EQ(0, gl_cg_mount_parse(other, strlen(other), buf, sizeof(buf)));
	EXPECT_STREQ("/mnt/cg two", buf);
	EXPECT_EQ(-ENOENT, gl_cg_mount_parse(hybrid, 60, buf, sizeof(buf)));
	EXPECT_EQ(-ENOENT, gl_cg_mount_parse("", 0, buf, sizeof(buf)));
	EXPECT_EQ(-ENAMETOOLONG,
		  gl_cg_mount_parse(pure, strlen(pure), tiny, sizeof(tiny)));
}

static char tree[] = "/tmp/gpulat-cg-XXXXXX";

static uint64_t mk(const char *rel)
{
	char p[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s%s", tree, rel);
	if (mkdir(p, 0755) || stat(p, &st))
		return 0;
	return st.st_ino;
}

TEST(resolve_on_a_tree)
{
	struct gl_cg_stats st0, st;
	struct gl_cgroup_watch w;
	char buf[PATH_MAX], rel[PATH_MAX], err[256], cmd[PATH_MAX + 16];
	uint64_t sys, dock, deep;
	struct stat rs;

	ASSERT_NE(NULL, mkdtemp(tree));
	sys = mk("/system.slice");
	dock = mk("/system.slice/docker-" H64 ".scope");
	mk("/a");
	mk("/a/b");
	deep = mk("/a/b/c");
	ASSERT_NE(0, dock);
	ASSERT_EQ(0, stat(tree, &rs));
	gl_cg_set_root(tree);
	gl_cg_set_bounds(0, 0);
	gl_cg_stats(&st0);
	EXPECT_STREQ(tree, gl_cg_root());
	EXPECT_STREQ("/system.slice/docker-" H64 ".scope",
		     gl_cg_path(dock, buf, sizeof(buf)));
	EXPECT_STREQ("/", gl_cg_path(rs.st_ino, buf, sizeof(buf)));
	EXPECT_STREQ("/system.slice", gl_cg_path(sys, buf, sizeof(buf)));
	gl_cg_stats(&st);
	EXPECT_EQ(st0.walks + 1, st.walks);	/* one walk, then the cache */
	EXPECT_EQ(NULL, gl_cg_path(0, buf, sizeof(buf)));
	/* unknown: no second walk within a second */
	EXPECT_EQ(NULL, gl_cg_path(1, buf, sizeof(buf)));
	gl_cg_stats(&st);
	EXPECT_EQ(st0.walks + 1, st.walks);

	/* depth bound: /a/b/c is 3 levels down */
	gl_cg_set_bounds(0, 2);
	EXPECT_EQ(NULL, gl_cg_path(deep, buf, sizeof(buf)));
	gl_cg_stats(&st);
	EXPECT_EQ(st0.too_deep + 1, st.too_deep);
	/* entry bound: 3 of 6 cgroups cached, directories left out counted */
	gl_cg_set_bounds(3, 0);
	EXPECT_EQ(NULL, gl_cg_path(deep, buf, sizeof(buf)));
	gl_cg_stats(&st);
	EXPECT_LT(st0.entries_full, st.entries_full);
	gl_cg_set_bounds(0, 0);
	EXPECT_STREQ("/a/b/c", gl_cg_path(deep, buf, sizeof(buf)));

	/* opening for the watch set: under the root or relative to it */
	ASSERT_EQ(0, gl_cg_open("/a/b", &w, rel, sizeof(rel), err, sizeof(err)));
	EXPECT_EQ(2, w.level);
	EXPECT_STREQ("/a/b", rel);
	close(w.fd);
	snprintf(buf, sizeof(buf), "%s/a/b/c", tree);
	ASSERT_EQ(0, gl_cg_open(buf, &w, rel, sizeof(rel), err, sizeof(err)));
	EXPECT_EQ(deep, w.id);
	EXPECT_EQ(3, w.level);
	close(w.fd);
	/* "." and empty components and a trailing slash count no level */
	ASSERT_EQ(0, gl_cg_open("./a//b/./", &w, rel, sizeof(rel), err,
				sizeof(err)));
	EXPECT_EQ(2, w.level);
	EXPECT_STREQ("/a/b", rel);
	close(w.fd);
	snprintf(buf, sizeof(buf), "%s//a/./b/c/", tree);
	ASSERT_EQ(0, gl_cg_open(buf, &w, rel, sizeof(rel), err, sizeof(err)));
	EXPECT_EQ(deep, w.id);
	EXPECT_EQ(3, w.level);
	EXPECT_STREQ("/a/b/c", rel);
	close(w.fd);
	ASSERT_EQ(0, gl_cg_open(tree, &w, rel, sizeof(rel), err, sizeof(err)));
	EXPECT_EQ(0, w.level);
	EXPECT_STREQ("/", rel);
	close(w.fd);
	EXPECT_EQ(-ENOENT, gl_cg_open("nope", &w, rel, sizeof(rel), err,
				      sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "No such file"));
	EXPECT_EQ(-EINVAL, gl_cg_open("/a/../..", &w, rel, sizeof(rel), err,
				      sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "not a path under"));

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tree);
	ASSERT_EQ(0, system(cmd));
	gl_cg_set_root(NULL);
}

TEST(hybrid_v1_dirs)
{
	char tree[] = "/tmp/gl-cgv1-XXXXXX", path[PATH_MAX], dir[PATH_MAX];
	FILE *f;

	ASSERT_NE(NULL, mkdtemp(tree));
	snprintf(path, sizeof(path), "%s/42", tree);
	ASSERT_EQ(0, mkdir(path, 0755));
	snprintf(path, sizeof(path), "%s/42/cgroup", tree);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs("12:pids:/system.slice/x.service\n"
	      "4:cpu,cpuacct:/docker/abc\n"
	      "3:cpuset:/\n"
	      "0::/system.slice/docker.service\n", f);
	fclose(f);
	EXPECT_TRUE(gl_cg_v1_dir(tree, "/v1", 42, "cpu", dir, sizeof(dir)));
	EXPECT_STREQ("/v1/cpu,cpuacct/docker/abc", dir);
	EXPECT_TRUE(gl_cg_v1_dir(tree, "/v1", 42, "cpuacct", dir,
				 sizeof(dir)));
	EXPECT_STREQ("/v1/cpu,cpuacct/docker/abc", dir);
	/* the root cgroup: the hierarchy's mount itself */
	EXPECT_TRUE(gl_cg_v1_dir(tree, "/v1", 42, "cpuset", dir, sizeof(dir)));
	EXPECT_STREQ("/v1/cpuset", dir);
	/* a controller not listed, a prefix of one, the v2 line, no task */
	EXPECT_FALSE(gl_cg_v1_dir(tree, "/v1", 42, "memory", dir,
				  sizeof(dir)));
	EXPECT_FALSE(gl_cg_v1_dir(tree, "/v1", 42, "cp", dir, sizeof(dir)));
	EXPECT_FALSE(gl_cg_v1_dir(tree, "/v1", 42, "", dir, sizeof(dir)));
	EXPECT_FALSE(gl_cg_v1_dir(tree, "/v1", 43, "cpu", dir, sizeof(dir)));
	/* too long for @dir: not a cut path */
	EXPECT_FALSE(gl_cg_v1_dir(tree, "/v1", 42, "cpu", dir, 8));
	snprintf(path, sizeof(path), "rm -rf %s", tree);
	ASSERT_EQ(0, system(path));
}

TEST(hybrid_v1_lines)
{
	static const char lines[] =
		"12:pids:/system.slice/foo.service\n"
		"4:cpu,cpuacct:/docker/" H64 "\n"
		"1:name=systemd:/docker/" H64 "\n"
		"0::/system.slice/docker.service\n";
	struct gl_cg_name n;
	char text[8192];
	size_t len = 0;
	int i;

	EXPECT_EQ(GL_CG_DOCKER, gl_cg_name_v1_text(lines, strlen(lines),
						   NULL, &n));
	EXPECT_STREQ(H64, n.id);
	EXPECT_EQ(GL_CG_DOCKER,
		  gl_cg_name_v1_text(lines, strlen(lines),
				     "/system.slice/docker.service", &n));
	/* the task moved since: its v2 line differs */
	EXPECT_EQ(GL_CG_NONE, gl_cg_name_v1_text(lines, strlen(lines),
						 "/other", &n));
	EXPECT_STREQ("", n.id);
	/* no v1 line names one; the v2 line is not read as v1 */
	EXPECT_EQ(GL_CG_NONE, gl_cg_name_v1_text("0::/docker/" H64 "\n", 76,
						 NULL, &n));
	/* bounded: a container past GL_CG_MAX_V1_LINES lines is not seen */
	for (i = 0; i < GL_CG_MAX_V1_LINES; i++)
		len += snprintf(text + len, sizeof(text) - len, "%d:x:/\n", i);
	len += snprintf(text + len, sizeof(text) - len, "99:cpu:/docker/" H64);
	EXPECT_EQ(GL_CG_NONE, gl_cg_name_v1_text(text, len, NULL, &n));
	/* a task that is gone */
	EXPECT_EQ(GL_CG_NONE, gl_cg_name_v1("/nonexistent", 1, NULL, &n));
}

/* watch-cgroup's view: a watched cgroup, one below it, one elsewhere. */
TEST(cgview_lists_below)
{
	char t2[] = "/tmp/gpulat-cgv-XXXXXX", p[PATH_MAX], *out = NULL;
	struct cgview_target tg = { .rel = "/kubepods.slice" };
	uint64_t ids[3];
	struct gl_snapshot *s;
	struct stat st;
	struct blob b;
	size_t len = 0, i;
	FILE *f;
	static const char *const rel[] = { "/kubepods.slice",
		"/kubepods.slice/crio-" H64 ".scope", "/other" };

	ASSERT_NE(NULL, mkdtemp(t2));
	for (i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s%s", t2, rel[i]);
		ASSERT_EQ(0, mkdir(p, 0755));
		ASSERT_EQ(0, stat(p, &st));
		ids[i] = st.st_ino;
	}
	gl_cg_set_root(t2);
	tg.id = ids[0];
	blob_init(&b);
	for (i = 0; i < 3; i++)
		blob_record(&b, blob_add_series(&b, GPULAT_FAM_CGROUP,
						GPULAT_CG_WAKEUP, 0, ids[i],
						NULL, "x"), 2000000, 5 + i);
	blob_record(&b, blob_add_series(&b, GPULAT_FAM_CGROUP, GPULAT_CG_BLOCK,
					1, ids[1], NULL, "x"), 30000000, 2);
	blob_add_counter(&b, GPULAT_FAM_CGROUP, GPULAT_CG_KEYS_FULL, "keys_full", 3);
	s = blob_parse(&b);
	ASSERT_NE(NULL, s);
	f = open_memstream(&out, &len);
	EXPECT_EQ(2, cgview_print_text(f, s, &tg, 1, 1.0));
	fclose(f);
	TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "cgroups over 1.0 s:\n/kubepods.slice\n  wakeup         count 5  p50 "));
	EXPECT_NE(NULL, strstr(out, "\n  /kubepods.slice/crio-" H64 ".scope (cri-o 0123456789ab)\n    wakeup         count 6  p50 "));
	EXPECT_NE(NULL, strstr(out, "\n    block          count 2  p50 "));
	EXPECT_EQ(NULL, strstr(out, "/other"));
	EXPECT_NE(NULL, strstr(out, "samples of cgroups past the module's bound: 3"));
	free(out);
	out = NULL;
	f = open_memstream(&out, &len);
	EXPECT_EQ(2, cgview_print_json(f, s, &tg, 1, -1));
	fclose(f);
	EXPECT_NE(NULL, strstr(out, "{\"interval_s\":null,\"cgroups\":[{\"cgroup\":{\"id\":"));
	EXPECT_NE(NULL, strstr(out, "\"series\":[{\"kind\":\"wakeup\",\"count\":5,"));
	EXPECT_NE(NULL, strstr(out, "\"below\":[{\"cgroup\":{\"id\":"));
	EXPECT_NE(NULL, strstr(out, "{\"kind\":\"block\",\"count\":2,"));
	EXPECT_NE(NULL, strstr(out, "],\"keys_full\":3}\n"));
	free(out);
	gl_snapshot_free(s);
	blob_release(&b);
	gl_cg_set_root(NULL);
	snprintf(p, sizeof(p), "rm -rf %s", t2);
	ASSERT_EQ(0, system(p));
}

TEST_HARNESS_MAIN

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpulat report, the engine: the state of one report, shared by
 * cmd/report.c (the command: options, device), engine/report/report.c (the
 * folder, the watch, the archive) and engine/report/report_files.c (the files
 * from the watch: snapshots, trace, diagnosis, NVML).
 */
#ifndef _GPULAT_USER_REPORT_H
#define _GPULAT_USER_REPORT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/diagnose/diagnose.h"
#include "engine/gpusample/gpusample.h"
#include "engine/report/hostfacts.h"
#include "engine/watch/watch.h"
#include "lib/gpulat_user.h"

struct report {
	/* what the command asked for: */
	const char *output;		/* -o: the archive; NULL: named here */
	bool has_gpu_interval;
	double gpu_interval_s;		/* NVML's period; 0: not sampled */
	uint64_t thresholds[GPULAT_FAM_MAX];	/* ns, by family, 0: off */
	uint64_t thresholds_set;	/* bit per family given */
	double duration_s, interval_s;
	char host[128];
	char top[256];			/* gpulat-report-HOST-YYYYMMDD-HHMMSS */
	char when[64];			/* start time, for people */
	char *out;			/* the archive, absolute path */
	mode_t mode;			/* its mode (outfile.h) */
	char tmp[PATH_MAX];		/* private folder holding top/ */
	const char *root;		/* $GPULAT_SYSROOT or "" */
	char kernel[128];
	struct bundle b;
	struct hostfacts hf;
	struct watch w;
	struct diag_tasks tasks;	/* CPU time of threads at the start */
	struct diag_tasks used;		/* and used during the watch */
	struct gs_timeline gpu;		/* NVML over the window */
	bool watch_tried;		/* watch_run was called: free w */
	bool watched;			/* w holds a finished watch */
	bool interrupted;		/* a signal ended the wait early */
	double waited_s;		/* without the module: time waited */
	char module[512];		/* why the module is absent; "" if read */
	char source[160];	/* the source watched, described; "" if none */
	/* the flight recorder's: what triggered this bundle; "" otherwise */
	char trigger[256];
	/* serve's rolling verdict when it triggered; "" otherwise */
	char verdict[320];
	uint32_t major, minor;
};

/* report_name - host, start time and the top folder's name */
void report_name(struct report *r);
/* report_output - absolute path of the archive in r->out, checked writable */
int report_output(struct report *r);
/*
 * report_sweep - remove the private folders of reports (and flight
 * bundles) whose process died before removing them; how many
 */
int report_sweep(void);
/* report_workdir - the private temporary folder and the bundle in it */
int report_workdir(struct report *r);
/* report_collect - the watch (@src NULL: no source) and the files */
int report_collect(struct report *r, struct gl_source *src);
/*
 * report_write - the files of r->w (watched) or of the wait, the host
 * facts' end and the MANIFEST (report_collect ends with it; the flight
 * recorder fills r->w itself)
 */
int report_write(struct report *r);
/* report_archive - pack the folder into r->out */
int report_archive(struct report *r);
/* report_release - remove the temporary folder, free what @r holds and @r */
void report_release(struct report *r);
/*
 * Each of the above but report_name() and report_release(): 0, or -errno
 * after a message on stderr.
 */

/* The files of a report; each 0, or the bundle's error (r->b.err). */
int report_snapshots(struct report *r);
int report_trace(struct report *r);
int report_diagnosis(struct report *r);
/* report_processes - host/processes.txt and host/cgroups.txt of @d's pids */
int report_processes(struct report *r, const struct diag_result *d);
int report_nvml(struct report *r);
int report_gpu_timeline(struct report *r);

#endif /* _GPULAT_USER_REPORT_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat drill, the command: one drill (user/engine/drill*.c), its
 * report as text or JSON, and the exit status scripts keep.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "engine/drill/drill.h"
#include "lib/json.h"

static const char usage_drill[] =
"usage: gpulat drill cpu|disk|net|irq|clean [-d SECONDS] [--target CPU] [--force] [-j]\n"
"\n"
"Inject one known, bounded, self-cleaning fault and check that gpulat\n"
"catches it end to end: the outlier trace records it, and diagnose ranks\n"
"the right layer first and names the injected culprit.  Everything the\n"
"drill makes is removed after, also on Ctrl-C and on failure.  Needs root.\n"
"\n"
"drills:\n"
"  cpu   a hog (nice 0) and a victim sleeping 1 ms (nice 19) pinned on one\n"
"        CPU: the last CPU no NVIDIA IRQ thread or kthread uses, or --target\n"
"  disk  a null_blk device of its own completing requests after 50 ms,\n"
"        read with O_DIRECT\n"
"  net   a netem delay of 20 ms on a veth pair of its own, the far end in\n"
"        a network namespace of its own, UDP every 10 ms (tbf shaping where netem is missing)\n"
"  irq   what the host allows (nothing without a test module: skipped)\n"
"  clean no fault: remove what drills killed before they cleaned up left\n"
"\n"
"Each drill keeps a record of what it makes in " DRILL_STATE_DIR "\n"
"before it makes it; every drill first removes what a killed one left\n"
"(gpulat status lists it), never a running drill's.\n"
"\n"
"options:\n"
"  -d, --duration SECONDS  how long the fault stays, 1 to 60 (default 5)\n"
"  -x, --target CPU  the CPU of the cpu drill\n"
"  -y, --force       run on a CPU the NVIDIA driver's threads use\n"
"  -j, --json        one JSON object (schema: Documentation/drills.rst)\n"
"  -h, --help        show this help\n"
"\n"
"exit status: 0 pass, 1 fail, 2 usage error, 4 skipped (not possible here)\n"
"\n"
"EXAMPLES:\n"
"    gpulat drill cpu                  # five seconds of a CPU hog\n"
"    gpulat drill net -d 10 -j         # ten seconds of netem, as JSON\n"
"    gpulat drill clean                # what a killed drill left, removed\n";

/* drill_clean - gpulat drill clean: the sweep alone, and its report */
static int drill_clean(const struct gpulat_opts *o, struct drill_sweep *sw,
		       int ret)
{
	bool failed = ret || drill_sweep_failed(sw);
	struct json j;

	if (o->json) {
		json_begin(&j, stdout);
		json_object_begin(&j, NULL);
		json_u64(&j, "version", DRILL_JSON_VERSION);
		json_str(&j, "drill", "clean");
		json_str(&j, "verdict", failed ? "fail" : "pass");
		json_u64(&j, "exit", failed ? DRILL_EXIT_FAIL : DRILL_EXIT_PASS);
		json_u64(&j, "running", sw->nr_live);
		drill_json_swept(&j, sw, true);
		json_object_end(&j);
		json_end(&j);
	} else if (ret) {
		printf("drill clean: fail: %s: %s\n", drill_state_dir(),
		       strerror(-ret));
	} else {
		printf("drill clean: %s\n", failed ? "fail" : "pass");
		if (sw->n)
			drill_sweep_print(stdout, sw, true, "  ");
		else
			printf("  nothing left by a killed drill\n");
		if (sw->nr_live)
			printf("  %zu drill(s) running: theirs left alone\n",
			       sw->nr_live);
	}
	if (fflush(stdout))
		return DRILL_EXIT_FAIL;
	return failed ? DRILL_EXIT_FAIL : DRILL_EXIT_PASS;
}

static int drill_cmd_run(const struct gpulat_opts *o)
{
	static struct drill_sweep sw;
	int swept = -EPERM;

	struct gl_source *src = NULL;
	uint32_t major, minor;
	struct drill d;
	char *msg = NULL, *why;
	size_t len = 0;
	FILE *m;

	memset(&d, 0, sizeof(d));
	d.kind = o->drill;
	d.duration_s = o->has_duration ? o->duration_s : DRILL_DEFAULT_S;
	d.target = o->target;
	d.force = o->force;
	d.json = o->json;
	/* first what drills killed before they cleaned up left */
	if (geteuid() == 0) {
		swept = drill_sweep(&sw, true);
		d.swept = &sw;
	}
	if (d.kind == DRILL_CLEAN) {
		if (swept == -EPERM) {
			fprintf(stderr, "gpulat: drill clean needs root\n");
			return DRILL_EXIT_SKIP;
		}
		return drill_clean(o, &sw, swept);
	}
	if (!drill_check(&d)) {
		m = open_memstream(&msg, &len);
		if (gpulat_source_open(o, &src, &major, &minor,
				       m ? m : stderr)) {
			if (m)
				fclose(m);
			m = NULL;
			/* the reason is its last line, without "gpulat: " */
			why = msg ? msg : "";
			len = strlen(why);
			while (len && why[len - 1] == '\n')
				why[--len] = '\0';
			if (strrchr(why, '\n'))
				why = strrchr(why, '\n') + 1;
			if (!strncmp(why, "gpulat: ", 8))
				why += 8;
			drill_set(&d, DRILL_SKIP, "no source: %s", why);
		}
		if (m) {
			fclose(m);
			fputs(msg ? msg : "", stderr);	/* auto's note */
		}
		free(msg);
	}
	if (src) {
		if (!o->json)
			fprintf(stderr, "gpulat: drill %s for %.3g s...\n",
				drill_kind_name(d.kind), d.duration_s);
		drill_run(&d, src);
		gl_source_close(src);
	}
	if (o->json)
		drill_print_json(stdout, &d);
	else
		drill_print_text(stdout, &d);
	if (fflush(stdout))
		return DRILL_EXIT_FAIL;
	return drill_exit_of(d.verdict);
}

const struct gpulat_command cmd_drill = {
	.name = "drill",
	.summary = "inject a known fault and check that gpulat catches it",
	.usage = usage_drill,
	.optstring = "hjd:x:y",
	.args = GPULAT_ARGS_DRILL,
	.run = drill_cmd_run,
};

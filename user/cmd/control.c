// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat enable, disable and reset: switch families on and off
 * (GPULAT_IOC_FAMILY) and zero the histograms (GPULAT_IOC_RESET).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "lib/units.h"

/*
 * control_reason - why @cmd failed with -@err, in words; the errnos are
 * those of GPULAT_IOC_FAMILY and GPULAT_IOC_RESET (uapi/gpulat.h)
 */
const char *control_reason(char *buf, size_t len, enum gpulat_cmd cmd,
			   int err)
{
	bool family = cmd == GPULAT_CMD_ENABLE || cmd == GPULAT_CMD_DISABLE;
	const char *name = err < 0 && err > -4096 ? strerrorname_np(-err) :
						    NULL;

	switch (err) {
	case -ENODEV:
		if (family)
			return "its tracepoints are missing on this kernel";
		break;
	case -ENOENT:
		if (family)
			return "unknown family: the loaded module does not have it";
		break;
	case -ENOTTY:
		return family ?
			"the loaded module cannot switch families (ABI 1.0)" :
			"the loaded module does not know this request";
	case -EPERM:
	case -EACCES:
		return "permission denied; run gpulat as root";
	case -ENOMEM:
		return "out of memory in the kernel";
	case -EINVAL:
		return "the module refused the request as invalid (EINVAL)";
	default:
		break;
	}
	if (family && err != -ENODEV && err != -ENOENT)
		snprintf(buf, len, "registration failed: %s (%s)",
			 strerror(-err), name ? name : "?");
	else
		snprintf(buf, len, "%s (%s)", strerror(-err), name ? name : "?");
	return buf;
}

/* control_missing - ", missing: tp, tp" of @family from a snapshot */
static void control_missing(struct gl_source *src, uint32_t family, char *buf, size_t len)
{
	char name[48];
	const struct gpulat_probe *p;
	struct gl_snapshot *s = NULL;
	size_t i, off = 0, n = 0;

	buf[0] = '\0';
	if (gl_source_snapshot(src, &s, NULL, 0))
		return;
	for (i = 0; i < gl_snapshot_nr_probes(s) && off < len; i++) {
		p = gl_snapshot_probe(s, i);
		if (p->family != family || p->state != GPULAT_PROBE_MISSING)
			continue;
		off += snprintf(buf + off, len - off, "%s%s",
				n++ ? ", " : " (missing: ",
				units_printable(name, sizeof(name),
						p->tracepoint));
	}
	if (n && off < len)
		snprintf(buf + off, len - off, ")");
	gl_snapshot_free(s);
}

/* control_family - switch each family of @o on or off */
static int control_family(const struct gpulat_opts *o, struct gl_source *src)
{
	bool on = o->cmd == GPULAT_CMD_ENABLE;
	const char *verb = on ? "enable" : "disable";
	char reason[160], missing[256], fam_buf[24];
	int ret, status = GPULAT_EXIT_OK;
	const char *fam;
	size_t i;

	for (i = 0; i < o->nr_family_list; i++) {
		/* the table's name, or "family<N>" written into fam_buf */
		fam = view_family_name(o->family_list[i], fam_buf,
				       sizeof(fam_buf));
		ret = gl_source_family_switch(src, o->family_list[i], on);
		if (!ret) {
			printf("%s: %s\n", fam, on ? "enabled" : "disabled");
			continue;
		}
		missing[0] = '\0';
		if (ret == -ENODEV)
			control_missing(src, o->family_list[i], missing,
					sizeof(missing));
		fprintf(stderr, "gpulat: cannot %s %s: %s%s\n", verb, fam,
			control_reason(reason, sizeof(reason), o->cmd, ret),
			missing);
		status = GPULAT_EXIT_ERROR;
	}
	return status;
}

/* control_run - gpulat enable|disable FAMILY..., gpulat reset */
int control_run(const struct gpulat_opts *o)
{
	uint32_t major = 0, minor = 0;
	char reason[160];
	struct gl_source *src;
	int ret;

	ret = gpulat_source_open(o, &src, &major, &minor, stderr);
	if (ret)
		return gpulat_device_exit(ret);
	/* the programs of this command's own load go with it */
	if (gl_source_fresh(src)) {
		fprintf(stderr, "gpulat: %s: the BPF source is not attached between commands, so there is nothing to %s; run gpulat attach first\n",
			gpulat_command_of(o->cmd)->name,
			gpulat_command_of(o->cmd)->name);
		gl_source_close(src);
		return GPULAT_EXIT_ERROR;
	}
	if (o->cmd != GPULAT_CMD_RESET) {
		ret = control_family(o, src);
		gl_source_close(src);
		return ret;
	}
	ret = gl_source_reset(src);
	gl_source_close(src);
	if (ret) {
		fprintf(stderr, "gpulat: cannot reset: %s\n",
			control_reason(reason, sizeof(reason), o->cmd, ret));
		return GPULAT_EXIT_ERROR;
	}
	printf("reset: histograms and drop counters zeroed\n");
	return GPULAT_EXIT_OK;
}

static const char usage_enable[] =
"usage: gpulat enable FAMILY...\n"
"       gpulat disable FAMILY...\n"
"\n"
"Switch the probes of each FAMILY on (attach its tracepoints) or off.\n"
"A family switched off keeps its histograms; switched on again it goes\n"
"on counting.  gpulat status shows which are on, and why one cannot be.\n"
"Families: " GPULAT_USAGE_FAMILIES ".\n"
"\n"
"options:\n"
"  -h, --help        show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat enable block net    # latency of disks and network devices\n"
"    gpulat disable sched       # stop the sched probes\n"
"    gpulat status              # check what is attached now\n";

static const char usage_reset[] =
"usage: gpulat reset\n"
"\n"
"Zero every histogram and drop counter of the module and start a new\n"
"generation.  Families stay on or off as they are.\n"
"\n"
"options:\n"
"  -h, --help        show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat reset && sleep 60 && gpulat hist   # one minute of data\n";

const struct gpulat_command cmd_enable = {
	.name = "enable",
	.summary = "switch families on (attach their tracepoints)",
	.usage = usage_enable,
	.optstring = "h",
	.args = GPULAT_ARGS_FAMILIES,
	.run = control_run,
};

const struct gpulat_command cmd_disable = {
	.name = "disable",
	.summary = "switch families off (their histograms stay)",
	.usage = usage_enable,
	.optstring = "h",
	.args = GPULAT_ARGS_FAMILIES,
	.run = control_run,
};

const struct gpulat_command cmd_reset = {
	.name = "reset",
	.summary = "zero every histogram and drop counter",
	.usage = usage_reset,
	.optstring = "h",
	.run = control_run,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat command line: option parsing (no device access, so that it can be
 * tested and fuzzed alone), help texts and helpers shared by the views.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "gpulat.h"
#include "units.h"

static const char usage_main[] =
"usage: gpulat [-h] [-V] COMMAND [ARGS]\n"
"\n"
"Latency histograms of the gpulat kernel module (/dev/gpulat).\n"
"\n"
"commands:\n"
"  status     module, ABI, families and why one is off, drops, Xid events\n"
"  hist       latency histograms, totals or per interval\n"
"  enable     switch families on (attach their tracepoints)\n"
"  disable    switch families off (their histograms stay)\n"
"  reset      zero every histogram and drop counter\n"
"  snapshot   save the raw snapshot to a file (bug reports, replay)\n"
"  trace      stream outliers as they happen, with the culprit\n"
"  diagnose   watch every layer a while and name the likely cause\n"
"  report     write a .tar.gz bundle for a vendor bug report\n"
"\n"
"families: sched, block, net, irq, softirq, nvidia, mm\n"
"\n"
"options:\n"
"  -h, --help      show this help (gpulat COMMAND -h: help on COMMAND)\n"
"  -V, --version   show the tool's version and ABI version\n"
"\n"
"exit status: 0 ok, 1 bad usage or error, 2 module not loaded,\n"
"3 module ABI incompatible with this tool\n"
"\n"
"EXAMPLES:\n"
"    gpulat status              # is the module loaded, what is attached\n"
"    gpulat hist                # histograms since load or reset\n"
"    gpulat hist sched 1 10     # sched latency, 10 one-second intervals\n"
"    gpulat hist block -D       # block latency, one histogram per disk\n"
"    gpulat enable irq nvidia   # switch the irq and nvidia probes on\n"
"    gpulat reset               # start counting from zero\n"
"    gpulat snapshot -o s.bin   # save a snapshot for a bug report\n"
"    gpulat trace -t sched=5ms  # every run-queue wait of 5 ms or more\n"
"    gpulat diagnose            # what causes the spikes, ranked\n"
"    gpulat report -o r.tar.gz  # everything a vendor needs, in one file\n";

static const char usage_status[] =
"usage: gpulat status [-j] [-i FILE]\n"
"\n"
"Show whether the module is loaded, its ABI version and this tool's, the\n"
"kernel release, per family whether it is attached, off, or unavailable\n"
"and why (tracepoints missing on this kernel, registration failed), its\n"
"tracepoints with their state and hits, the drop counters, and the last\n"
"NVIDIA Xid events.\n"
"\n"
"options:\n"
"  -j, --json        one JSON object instead of text\n"
"  -i, --input FILE  read a saved snapshot instead of the device\n"
"  -h, --help        show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat status              # state of the running module\n"
"    gpulat status --json       # the same for scripts\n"
"    gpulat status -i s.bin     # state recorded in a saved snapshot\n";

static const char usage_hist[] =
"usage: gpulat hist [FAMILY...] [-D] [-C] [-s | -j] [-i FILE [-f FILE]]\n"
"                   [INTERVAL [COUNT]]\n"
"\n"
"Print latency histograms: without INTERVAL the totals since the module\n"
"was loaded or reset; with INTERVAL (seconds, 0.1 to 86400) what\n"
"happened in each interval, COUNT times (default: until Ctrl-C).\n"
"FAMILY (sched, block, net, irq, softirq, nvidia, mm) limits the output\n"
"to those families; net also shows the NET_RX and NET_TX softirqs.\n"
"Histograms of one kind are merged over disks, devices, IRQs and CPUs\n"
"unless -D or -C split them.  Text skips empty histograms.\n"
"\n"
"options:\n"
"  -D, --per-key     one histogram per disk, device, IRQ handler, thread\n"
"  -C, --per-cpu     also one histogram per CPU (empty CPUs skipped)\n"
"  -s, --summary     one line per histogram: count, p50, p99, max\n"
"  -j, --json        JSON, one object per output (JSON lines)\n"
"  -i, --input FILE  read a saved snapshot instead of the device\n"
"  -f, --from FILE   with --input: show the difference from FILE\n"
"  -h, --help        show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat hist                # all histograms since load or reset\n"
"    gpulat hist sched          # only the sched family\n"
"    gpulat hist block -D       # one histogram per disk\n"
"    gpulat hist irq -D 1 5     # per IRQ handler, five 1 s intervals\n"
"    gpulat hist net            # net devices and the net softirqs\n"
"    gpulat hist 1              # every second, until Ctrl-C\n"
"    gpulat hist -C 0.5 4       # per CPU, four half-second intervals\n"
"    gpulat hist -C -s 2 1      # per CPU, one line each, one 2 s interval\n"
"    gpulat hist -j 10 1        # one 10 s interval as JSON\n"
"    gpulat hist -i b.bin -f a.bin  # what happened between two saves\n";

static const char usage_enable[] =
"usage: gpulat enable FAMILY...\n"
"       gpulat disable FAMILY...\n"
"\n"
"Switch the probes of each FAMILY on (attach its tracepoints) or off.\n"
"A family switched off keeps its histograms; switched on again it goes\n"
"on counting.  Families: sched, block, net, irq, softirq, nvidia, mm.\n"
"gpulat status shows which are on, and why one cannot be.\n"
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

static const char usage_snapshot[] =
"usage: gpulat snapshot -o FILE\n"
"\n"
"Save the raw snapshot blob of the module (for bug reports and replay\n"
"with --input).\n"
"\n"
"options:\n"
"  -o, --output FILE  file to write (- for standard output)\n"
"  -h, --help         show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat snapshot -o s.bin   # save now\n"
"    gpulat hist -i s.bin       # look at it later, on any machine\n";

static const char usage_trace[] =
"usage: gpulat trace [-t FAMILY=DURATION]... [-j] [-d SECONDS]\n"
"\n"
"Stream every sample at or over its family's outlier threshold as it\n"
"happens, one line each: time, CPU, series, latency, the task it\n"
"happened to, the key (disk, device, IRQ) and, for a wait for a CPU, the\n"
"culprit: the tasks that held the CPU meanwhile and the hard IRQ and\n"
"softirq time that landed on it.  NVIDIA Xid events appear on the same\n"
"timeline.  Records lost to a full buffer are reported with their count.\n"
"A threshold given here holds while gpulat runs; the module's own\n"
"(module parameters FAMILY_threshold_us) apply to the rest.\n"
"\n"
"options:\n"
"  -t, --threshold FAMILY=DURATION  e.g. sched=5ms, block=20ms, irq=200us;\n"
"                    units ns, us, ms, s; 0 or off: no trace for FAMILY\n"
"  -j, --json        JSON lines, one object per record\n"
"  -d, --duration SECONDS  stop after SECONDS, 0.1 to 86400 (default:\n"
"                    until Ctrl-C)\n"
"  -h, --help        show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat trace                      # outliers over the default thresholds\n"
"    gpulat trace -t sched=2ms -t nvidia=500us   # lower two thresholds\n"
"    gpulat trace -j -d 60 > out.jsonl # one minute as JSON lines\n";

static const char usage_diagnose[] =
"usage: gpulat diagnose [-d SECONDS] [-t FAMILY=DURATION]... [-j]\n"
"\n"
"Watch every family for SECONDS (default 10), compare each layer's tail\n"
"with its baseline and thresholds, and print a ranked verdict: which\n"
"layer (GPU driver interrupt path, network, storage, scheduler, memory)\n"
"most likely causes the spikes, the evidence (percentiles, counts, top\n"
"culprits by name and pid) and what to do next.  Says so when nothing is\n"
"abnormal.\n"
"\n"
"options:\n"
"  -d, --duration SECONDS  how long to watch, 0.1 to 86400 (default 10)\n"
"  -t, --threshold FAMILY=DURATION  outlier threshold while watching\n"
"  -j, --json        one JSON object\n"
"  -h, --help        show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat diagnose                   # ten seconds, then the verdict\n"
"    gpulat diagnose -d 60 -j          # a minute, as JSON\n";

static const char usage_report[] =
"usage: gpulat report [-o FILE.tar.gz] [-d SECONDS] [--interval SECONDS]\n"
"                     [-t FAMILY=DURATION]...\n"
"\n"
"Watch for SECONDS (default 30) and write one archive to attach to a\n"
"vendor bug report: snapshots at the start, the end and every interval,\n"
"the outlier trace, the diagnosis, and the host facts that\n"
"nvidia-bug-report.sh does not collect (IRQ affinity of the nvidia IRQs,\n"
"irqbalance, /proc/interrupts and /proc/softirqs, cpufreq and idle\n"
"states, THP, PCIe link and AER counters of NVIDIA functions, driver\n"
"version, NVRM/Xid log lines, kernel and gpulat parameters, GPU state\n"
"through NVML when present).  MANIFEST at the top says what is inside.\n"
"\n"
"options:\n"
"  -o, --output FILE  archive to write (default\n"
"                    gpulat-report-HOST-YYYYMMDD-HHMMSS.tar.gz)\n"
"  -d, --duration SECONDS  how long to watch, 0.1 to 86400 (default 30)\n"
"      --interval SECONDS  snapshot every SECONDS, 0.1 to 86400 (default 5)\n"
"  -t, --threshold FAMILY=DURATION  outlier threshold while watching\n"
"  -h, --help        show this help\n"
"\n"
"EXAMPLES:\n"
"    gpulat report                     # 30 s, archive in this folder\n"
"    gpulat report -d 120 -o /tmp/r.tar.gz\n";

/* gpulat_usage - help text of @cmd (GPULAT_CMD_NONE: the tool's) */
void gpulat_usage(FILE *f, enum gpulat_cmd cmd)
{
	switch (cmd) {
	case GPULAT_CMD_STATUS:
		fputs(usage_status, f);
		break;
	case GPULAT_CMD_HIST:
		fputs(usage_hist, f);
		break;
	case GPULAT_CMD_SNAPSHOT:
		fputs(usage_snapshot, f);
		break;
	case GPULAT_CMD_ENABLE:
	case GPULAT_CMD_DISABLE:
		fputs(usage_enable, f);
		break;
	case GPULAT_CMD_RESET:
		fputs(usage_reset, f);
		break;
	case GPULAT_CMD_TRACE:
		fputs(usage_trace, f);
		break;
	case GPULAT_CMD_DIAGNOSE:
		fputs(usage_diagnose, f);
		break;
	case GPULAT_CMD_REPORT:
		fputs(usage_report, f);
		break;
	default:
		fputs(usage_main, f);
	}
}

static const struct {
	const char *name;
	enum gpulat_cmd cmd;
} cli_commands[] = {
	{ "status",	GPULAT_CMD_STATUS },
	{ "hist",	GPULAT_CMD_HIST },
	{ "snapshot",	GPULAT_CMD_SNAPSHOT },
	{ "enable",	GPULAT_CMD_ENABLE },
	{ "disable",	GPULAT_CMD_DISABLE },
	{ "reset",	GPULAT_CMD_RESET },
	{ "trace",	GPULAT_CMD_TRACE },
	{ "diagnose",	GPULAT_CMD_DIAGNOSE },
	{ "report",	GPULAT_CMD_REPORT },
};

/* cli_error - report a usage error; returns GPULAT_EXIT_ERROR */
static int __attribute__((format(printf, 3, 4)))
cli_error(FILE *err, const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("gpulat: ", err);
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fprintf(err, "\nTry 'gpulat %s%s--help'.\n", cmd ? cmd : "",
		cmd ? " " : "");
	return GPULAT_EXIT_ERROR;
}

/* cli_is_number - digits with at most one '.', at least one digit */
static bool cli_is_number(const char *s)
{
	bool digit = false, dot = false;

	for (; *s; s++) {
		if (isdigit((unsigned char)*s))
			digit = true;
		else if (*s == '.' && !dot)
			dot = true;
		else
			return false;
	}
	return digit;
}

/*
 * cli_parse_interval - seconds in [GPULAT_INTERVAL_MIN, GPULAT_INTERVAL_MAX]
 * (hist INTERVAL, --duration, report --interval)
 */
static int cli_parse_interval(const char *s, double *out)
{
	char *end;
	double v;

	if (!cli_is_number(s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < GPULAT_INTERVAL_MIN ||
	    v > GPULAT_INTERVAL_MAX)
		return -ERANGE;
	*out = v;
	return 0;
}

/* cli_bad_seconds - the error for a bad INTERVAL or SECONDS (@what) */
static int cli_bad_seconds(FILE *err, const char *cmd, const char *what,
			   const char *arg)
{
	return cli_error(err, cmd, "bad %s '%s': seconds from %g to %.0f",
			 what, arg, GPULAT_INTERVAL_MIN, GPULAT_INTERVAL_MAX);
}

/* cli_parse_count - a positive decimal integer */
static int cli_parse_count(const char *s, unsigned long *out)
{
	unsigned long v;
	char *end;
	const char *p;

	for (p = s; *p; p++)
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
	if (p == s)
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || !v)
		return -ERANGE;
	*out = v;
	return 0;
}

/* cli_valid_families - "sched, ..." for error messages */
static void cli_valid_families(char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < gl_family_count() && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
				gl_family_name(gl_family_at(i)));
}

/* cli_family_arg - a FAMILY argument of enable or disable */
static int cli_family_arg(struct gpulat_opts *o, const char *arg,
			  const char *cmd, FILE *err)
{
	char valid[128];
	size_t i;
	int fam;

	fam = gl_family_lookup(arg);
	if (fam < 0 || fam >= 64) {
		cli_valid_families(valid, sizeof(valid));
		return cli_error(err, cmd, "unknown family '%s' (families: %s)",
				 arg, valid);
	}
	for (i = 0; i < o->nr_family_list; i++)
		if (o->family_list[i] == (uint32_t)fam)
			return 0;	/* named twice: once is enough */
	/* the table has fewer than 64 families: no overflow */
	if (o->nr_family_list < GPULAT_FAMILY_LIST_MAX)
		o->family_list[o->nr_family_list++] = fam;
	o->families |= 1ULL << fam;
	return 0;
}

/* cli_positional - a FAMILY, INTERVAL or COUNT argument of hist */
static int cli_positional(struct gpulat_opts *o, const char *arg, int *nr_num,
			  FILE *err)
{
	char valid[128];
	int fam;

	if (!cli_is_number(arg) && !*nr_num) {
		fam = gl_family_lookup(arg);
		if (fam < 0 || fam >= 64) {
			cli_valid_families(valid, sizeof(valid));
			return cli_error(err, "hist",
					 "unknown family or bad interval '%s' (families: %s)",
					 arg, valid);
		}
		o->families |= 1ULL << fam;
		return 0;
	}
	switch ((*nr_num)++) {
	case 0:
		if (cli_parse_interval(arg, &o->interval_s))
			return cli_bad_seconds(err, "hist", "interval", arg);
		o->has_interval = true;
		return 0;
	case 1:
		if (cli_parse_count(arg, &o->count))
			return cli_error(err, "hist",
					 "bad count '%s': a whole number above 0",
					 arg);
		return 0;
	default:
		return cli_error(err, "hist", "unexpected argument '%s'", arg);
	}
}

/*
 * cli_threshold - a --threshold FAMILY=DURATION argument; DURATION has a
 * unit (ns, us, ms, s), or is 0 or "off"
 */
static int cli_threshold(struct gpulat_opts *o, const char *arg,
			 const char *cmd, FILE *err)
{
	const char *eq = strchr(arg, '=');
	char name[32], valid[128];
	uint64_t ns;
	int fam;

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(name))
		return cli_error(err, cmd,
				 "bad threshold '%s': FAMILY=DURATION, e.g. sched=5ms",
				 arg);
	memcpy(name, arg, eq - arg);
	name[eq - arg] = '\0';
	fam = gl_family_lookup(name);
	if (fam <= 0 || fam >= GPULAT_FAM_MAX) {
		cli_valid_families(valid, sizeof(valid));
		return cli_error(err, cmd, "unknown family '%s' (families: %s)",
				 name, valid);
	}
	if (!strcmp(eq + 1, "off"))
		ns = 0;
	else if (units_parse_ns(eq + 1, &ns))
		return cli_error(err, cmd,
				 "bad duration '%s': a number with a unit (ns, us, ms, s) up to 1000s, or 0/off",
				 eq + 1);
	o->thresholds[fam] = ns;
	o->thresholds_set |= 1ULL << fam;
	return 0;
}

/* cli_unknown_option - message for the option getopt refused */
static int cli_unknown_option(int argc, char **argv, const char *cmd,
			      const char *optstring, FILE *err)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
	const char *known = optopt && optopt != ':' ?
			    strchr(optstring, optopt) : NULL;

	if (known && known[1] == ':')
		return cli_error(err, cmd, "option -%c needs an argument",
				 optopt);
	if (known)
		return cli_error(err, cmd, "option -%c takes no argument",
				 optopt);
	if ((optopt > 0 && optopt < 128 && isdigit(optopt)) || optopt == '.')
		return cli_error(err, cmd,
				 "intervals and counts must be positive numbers");
	if (optopt)
		return cli_error(err, cmd, "unknown option -%c", optopt);
	return cli_error(err, cmd, "unknown or ambiguous option '%s'", arg);
}

/* cli_parse_cmd - options and arguments after the command word */
static int cli_parse_cmd(int argc, char **argv, struct gpulat_opts *o,
			 const char *cmd, FILE *err)
{
	static const struct option longopts[] = {
		{ "help",	no_argument,		NULL, 'h' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "per-cpu",	no_argument,		NULL, 'C' },
		{ "per-key",	no_argument,		NULL, 'D' },
		{ "summary",	no_argument,		NULL, 's' },
		{ "input",	required_argument,	NULL, 'i' },
		{ "from",	required_argument,	NULL, 'f' },
		{ "output",	required_argument,	NULL, 'o' },
		{ "threshold",	required_argument,	NULL, 't' },
		{ "duration",	required_argument,	NULL, 'd' },
		{ "interval",	required_argument,	NULL, 'I' },
		{ NULL, 0, NULL, 0 }
	};
	const char *optstring;
	int c, nr_num = 0, ret;

	switch (o->cmd) {
	case GPULAT_CMD_STATUS:
		optstring = "hji:";
		break;
	case GPULAT_CMD_HIST:
		optstring = "hjCDsi:f:";
		break;
	case GPULAT_CMD_SNAPSHOT:
		optstring = "ho:";
		break;
	case GPULAT_CMD_TRACE:
	case GPULAT_CMD_DIAGNOSE:
		optstring = "hjt:d:";
		break;
	case GPULAT_CMD_REPORT:
		optstring = "ho:t:d:I:";
		break;
	default:	/* enable, disable, reset */
		optstring = "h";
	}
	optind = 0;	/* full reset of getopt's state */
	opterr = 0;
	for (;;) {
		c = getopt_long(argc, argv, optstring, longopts, NULL);
		if (c == -1)
			break;
		/* a long option not meant for this command */
		if (c != '?' && c != ':' && !strchr(optstring, c))
			return cli_error(err, cmd,
					 "option '%s' does not apply to %s",
					 argv[optind - 1], cmd);
		switch (c) {
		case 'h':
			o->help = true;
			return 0;
		case 'j':
			o->json = true;
			break;
		case 'C':
			o->per_cpu = true;
			break;
		case 'D':
			o->per_key = true;
			break;
		case 's':
			o->summary = true;
			break;
		case 'i':
			o->input = optarg;
			break;
		case 'f':
			o->from = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 't':
			ret = cli_threshold(o, optarg, cmd, err);
			if (ret)
				return ret;
			break;
		case 'd':
			if (cli_parse_interval(optarg, &o->duration_s))
				return cli_bad_seconds(err, cmd, "duration",
						       optarg);
			o->has_duration = true;
			break;
		case 'I':
			if (cli_parse_interval(optarg, &o->report_interval_s))
				return cli_bad_seconds(err, cmd, "interval",
						       optarg);
			o->has_report_interval = true;
			break;
		default:
			return cli_unknown_option(argc, argv, cmd, optstring,
						  err);
		}
	}
	for (; optind < argc; optind++) {
		if (o->cmd == GPULAT_CMD_ENABLE ||
		    o->cmd == GPULAT_CMD_DISABLE)
			ret = cli_family_arg(o, argv[optind], cmd, err);
		else if (o->cmd == GPULAT_CMD_HIST)
			ret = cli_positional(o, argv[optind], &nr_num, err);
		else
			ret = cli_error(err, cmd, "unexpected argument '%s'",
					argv[optind]);
		if (ret)
			return ret;
	}
	if ((o->cmd == GPULAT_CMD_ENABLE || o->cmd == GPULAT_CMD_DISABLE) &&
	    !o->nr_family_list)
		return cli_error(err, cmd, "%s needs at least one FAMILY", cmd);
	if (o->summary && o->json)
		return cli_error(err, cmd,
				 "--summary is a text view; --json has every number");
	if (o->from && !o->input)
		return cli_error(err, cmd, "--from needs --input");
	if (o->input && o->has_interval)
		return cli_error(err, cmd,
				 "INTERVAL needs the device; --input shows a saved snapshot");
	if (o->input && !o->input[0])
		return cli_error(err, cmd, "--input needs a file name");
	if (o->cmd == GPULAT_CMD_SNAPSHOT && (!o->output || !o->output[0]))
		return cli_error(err, cmd, "snapshot needs -o FILE");
	if (o->cmd == GPULAT_CMD_REPORT && o->output && !o->output[0])
		return cli_error(err, cmd, "--output needs a file name");
	if (o->cmd == GPULAT_CMD_REPORT && o->has_report_interval &&
	    o->has_duration && o->report_interval_s > o->duration_s)
		return cli_error(err, cmd,
				 "--interval is longer than --duration");
	return 0;
}

/*
 * gpulat_parse_args - fill @o from the command line; 0, or the exit code
 * after a message on @err.  Opens nothing and prints nothing else.
 */
int gpulat_parse_args(int argc, char **argv, struct gpulat_opts *o, FILE *err)
{
	const char *word;
	size_t i;

	memset(o, 0, sizeof(*o));
	if (argc < 2 || !argv[1])
		return cli_error(err, NULL, "no command given");
	word = argv[1];
	if (!strcmp(word, "-h") || !strcmp(word, "--help") ||
	    !strcmp(word, "help")) {
		o->cmd = GPULAT_CMD_HELP;
		return 0;
	}
	if (!strcmp(word, "-V") || !strcmp(word, "--version")) {
		o->cmd = GPULAT_CMD_VERSION;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(cli_commands); i++)
		if (!strcmp(word, cli_commands[i].name))
			o->cmd = cli_commands[i].cmd;
	if (o->cmd == GPULAT_CMD_NONE)
		return cli_error(err, NULL, "unknown command '%s'", word);
	return cli_parse_cmd(argc - 1, argv + 1, o, word, err);
}

/*
 * gpulat_open_device - gl_open() with the reason on @err; fd, or minus the
 * exit code to use.
 */
int gpulat_open_device(uint32_t *major, uint32_t *minor, FILE *err)
{
	char msg[512];
	int fd, ret;

	fd = gl_open(msg, sizeof(msg));
	if (fd < 0) {
		fprintf(err, "gpulat: %s\n", msg);
		if (gl_no_module(fd))
			return -GPULAT_EXIT_NO_MODULE;
		if (fd == -EPROTONOSUPPORT)
			return -GPULAT_EXIT_INCOMPATIBLE;
		return -GPULAT_EXIT_ERROR;
	}
	ret = gl_version(fd, major, minor);
	if (ret) {
		fprintf(err, "gpulat: version query failed: %s\n",
			strerror(-ret));
		close(fd);
		return -GPULAT_EXIT_ERROR;
	}
	return fd;
}

/*
 * gpulat_load_input - read @input, minus @from when given; 0 or the exit
 * code after a message on @err.
 */
int gpulat_load_input(const char *input, const char *from,
		      struct gl_snapshot **out, FILE *err)
{
	struct gl_snapshot *a = NULL, *b = NULL;
	char msg[512];
	int ret;

	*out = NULL;
	ret = gl_snapshot_read(input, &b, msg, sizeof(msg));
	if (!ret && from)
		ret = gl_snapshot_read(from, &a, msg, sizeof(msg));
	if (ret) {
		fprintf(err, "gpulat: %s\n", msg);
		gl_snapshot_free(b);
		return ret == -EPROTONOSUPPORT ? GPULAT_EXIT_INCOMPATIBLE :
						 GPULAT_EXIT_ERROR;
	}
	if (!from) {
		*out = b;
		return 0;
	}
	ret = gl_snapshot_diff(a, b, out);
	gl_snapshot_free(a);
	gl_snapshot_free(b);
	if (ret) {
		fprintf(err, "gpulat: %s\n", strerror(-ret));
		return GPULAT_EXIT_ERROR;
	}
	return 0;
}

/* gpulat_kernel_release - uname -r */
const char *gpulat_kernel_release(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u))
		return NULL;
	snprintf(buf, len, "%s", u.release);
	return buf;
}

/*
 * view_kernel - kernel release of the data: the one the module recorded
 * in the snapshot, else uname -r of this host (NULL when unknown)
 */
const char *view_kernel(const struct view *v, const struct gl_snapshot *s)
{
	const char *r = gl_snapshot_header(s)->kernel_release;

	return r[0] ? r : v->kernel;
}

/* view_wants_family - whether @family passes the FAMILY filter */
bool view_wants_family(const struct view *v, uint32_t family)
{
	if (!v->families)
		return true;
	return family < 64 && (v->families & (1ULL << family));
}

/*
 * view_wants_series - whether @sr passes the FAMILY filter: its family
 * is named, or its softirq vector belongs to a family that is (NET_RX
 * and NET_TX to net, which has no softirq probes of its own)
 */
bool view_wants_series(const struct view *v, const struct gpulat_series *sr)
{
	const struct gl_family_info *fi = gl_family(sr->family);
	const struct gl_vector_info *vi = gl_vector_info(sr->key);

	if (view_wants_family(v, sr->family))
		return true;
	return fi && fi->key == GL_KEY_VECTOR && vi && vi->also_family &&
	       view_wants_family(v, vi->also_family);
}

/* view_family_name - table name of @family, or "family<N>" */
const char *view_family_name(uint32_t family, char *buf, size_t len)
{
	const char *name = gl_family_name(family);

	if (name)
		return name;
	snprintf(buf, len, "family%u", family);
	return buf;
}

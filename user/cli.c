// SPDX-License-Identifier: GPL-2.0
/*
 * gpulat command line: parsing only (no device access, so that it can be
 * tested and fuzzed alone).  What each command takes is its descriptor's
 * (struct gpulat_command); the long options are this file's one table.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "engine/drill/drill.h"
#include "engine/gpusample/gpusample.h"
#include "lib/units.h"

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

/* cli_positional - a FAMILY, INTERVAL or COUNT argument (of hist) */
static int cli_positional(struct gpulat_opts *o, const char *arg, int *nr_num,
			  const char *cmd, FILE *err)
{
	char valid[128];
	int fam;

	if (!cli_is_number(arg) && !*nr_num) {
		fam = gl_family_lookup(arg);
		if (fam < 0 || fam >= 64) {
			cli_valid_families(valid, sizeof(valid));
			return cli_error(err, cmd,
					 "unknown family or bad interval '%s' (families: %s)",
					 arg, valid);
		}
		o->families |= 1ULL << fam;
		return 0;
	}
	switch ((*nr_num)++) {
	case 0:
		if (cli_parse_interval(arg, &o->interval_s))
			return cli_bad_seconds(err, cmd, "interval", arg);
		o->has_interval = true;
		return 0;
	case 1:
		if (cli_parse_count(arg, &o->count))
			return cli_error(err, cmd,
					 "bad count '%s': a whole number above 0",
					 arg);
		return 0;
	default:
		return cli_error(err, cmd, "unexpected argument '%s'", arg);
	}
}

/*
 * cli_threshold - a --threshold FAMILY=DURATION argument; DURATION has a
 * unit (ns, us, ms, s), or is 0 or "off"
 */
static int cli_family_duration(uint64_t *values, uint64_t *set,
				const char *what, const char *arg,
				const char *cmd, FILE *err)
{
	const char *eq = strchr(arg, '=');
	char name[32], valid[128];
	uint64_t ns;
	int fam;

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(name))
		return cli_error(err, cmd,
				 "bad %s '%s': FAMILY=DURATION, e.g. sched=5ms",
				 what, arg);
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
	values[fam] = ns;
	if (set)
		*set |= 1ULL << fam;
	return 0;
}

static int cli_threshold(struct gpulat_opts *o, const char *arg,
			 const char *cmd, FILE *err)
{
	return cli_family_duration(o->thresholds, &o->thresholds_set,
				   "threshold", arg, cmd, err);
}

/* cli_uint - a whole number in [@lo, @hi] */
static int cli_uint(const char *s, unsigned long lo, unsigned long hi,
		    unsigned long *out)
{
	unsigned long v;
	const char *p;

	for (p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return -EINVAL;
	if (p == s || p - s > 9)
		return -EINVAL;
	v = strtoul(s, NULL, 10);
	if (v < lo || v > hi)
		return -ERANGE;
	*out = v;
	return 0;
}

/* cli_size - bytes, with an optional K, M, G or T (1024s), in [@lo, @hi] */
static int cli_size(const char *s, unsigned long long lo,
		    unsigned long long hi, unsigned long long *out)
{
	static const char units[] = "KMGT";
	unsigned long long v, mul = 1;
	const char *p, *u;

	for (p = s; *p >= '0' && *p <= '9'; p++)
		;
	if (p == s || p - s > 13)
		return -EINVAL;
	if (*p) {
		u = strchr(units, *p);
		if (!u || p[1])
			return -EINVAL;
		mul = 1ULL << (10 * (u - units + 1));
	}
	v = strtoull(s, NULL, 10);
	if (v > hi / mul || v * mul < lo)
		return -ERANGE;
	*out = v * mul;
	return 0;
}

/* cli_dir - a folder argument: not empty */
static int cli_dir(const char **to, const char *arg, const char *opt,
		   const char *cmd, FILE *err)
{
	if (!arg[0])
		return cli_error(err, cmd, "%s needs a folder", opt);
	*to = arg;
	return 0;
}

/*
 * cli_serve - the options of gpulat serve and --gpu-interval: 0,
 * GPULAT_EXIT_ERROR after a message, or -1: not one of them
 */
static int cli_serve(struct gpulat_opts *o, int opt, const char *arg,
		     const char *cmd, FILE *err)
{
	unsigned long v;

	switch (opt) {
	case 'L':
		if (!arg[0] || !strchr(arg, ':'))
			return cli_error(err, cmd,
					 "bad --listen '%s': ADDRESS:PORT, [IPV6]:PORT or :PORT",
					 arg);
		o->listen = arg;
		return 0;
	case 'T':
		return cli_dir(&o->textfile, arg, "--textfile", cmd, err);
	case 'F':
		return cli_dir(&o->flight, arg, "--flight", cmd, err);
	case 'b':
		if (cli_uint(arg, 1, 8, &v) || !(v == 1 || v == 2 || v == 4 ||
						 v == 8))
			return cli_error(err, cmd,
					 "bad --buckets '%s': 8, 4, 2 or 1 per power of two",
					 arg);
		o->serve_buckets = v;
		return 0;
	case 'k':
		if (cli_uint(arg, 1, 4096, &o->serve_max_keys))
			return cli_error(err, cmd,
					 "bad --max-keys '%s': a whole number from 1 to 4096",
					 arg);
		return 0;
	case 'B':
		if (cli_size(arg, GPULAT_FLIGHT_MAX_BYTES_MIN,
			     GPULAT_FLIGHT_MAX_BYTES_MAX, &o->flight_max_bytes))
			return cli_error(err, cmd,
					 "bad --flight-max-bytes '%s': bytes (K, M, G, T: powers of 1024) from 1M to 1T",
					 arg);
		return 0;
	case 'M': {
		char *end;

		errno = 0;
		o->file_mode = strtoul(arg, &end, 8);
		if (errno || !arg[0] || *end || arg[0] == '-' ||
		    o->file_mode > 0777)
			return cli_error(err, cmd,
					 "bad --mode '%s': octal permissions from 0600 to 0777",
					 arg);
		if ((o->file_mode & 0600) != 0600)
			return cli_error(err, cmd,
					 "bad --mode '%s': the owner must read and write",
					 arg);
		o->has_file_mode = true;
		return 0;
	}
	case 'U':
		o->serve_all_buckets = true;
		return 0;
	case 'K':
		if (cli_uint(arg, 1, 1000, &o->flight_keep))
			return cli_error(err, cmd,
					 "bad --flight-keep '%s': a whole number from 1 to 1000",
					 arg);
		return 0;
	case 'W':
	case 'A':
	case 'G': {
		double *d = opt == 'W' ? &o->flight_before_s :
			    opt == 'A' ? &o->flight_after_s : &o->flight_gap_s;

		if (!strcmp(arg, "0") && opt == 'G') {
			*d = 0;
			return 0;
		}
		if (cli_parse_interval(arg, d) || (opt != 'G' && *d > 3600))
			return cli_error(err, cmd,
					 "bad %s '%s': seconds from %g to %.0f",
					 opt == 'W' ? "--flight-window" :
					 opt == 'A' ? "--flight-after" :
					 "--flight-gap", arg,
					 opt == 'G' ? 0 : GPULAT_INTERVAL_MIN,
					 opt == 'G' ? GPULAT_INTERVAL_MAX : 3600.0);
		return 0;
	}
	case 'g':
		return cli_family_duration(o->triggers, NULL, "trigger", arg,
					   cmd, err);
	case 'R':
		if (!strcmp(arg, "0")) {
			o->verdict_s = 0;
			return 0;
		}
		if (cli_parse_interval(arg, &o->verdict_s) ||
		    o->verdict_s < 2 || o->verdict_s > 600)
			return cli_error(err, cmd,
					 "bad --verdict '%s': seconds from 2 to 600, or 0 (off)",
					 arg);
		return 0;
	case 'N': {
		char *end;

		o->gpu_interval_s = strtod(arg, &end);
		if (!arg[0] || *end || !(o->gpu_interval_s == 0 ||
					 (o->gpu_interval_s >= GS_INTERVAL_MIN &&
					  o->gpu_interval_s <= GS_INTERVAL_MAX)))
			return cli_error(err, cmd,
					 "bad --gpu-interval '%s': 0 (NVML not sampled) or seconds from %g to %g",
					 arg, GS_INTERVAL_MIN, GS_INTERVAL_MAX);
		o->has_gpu_interval = true;
		return 0;
	}
	default:
		return -1;
	}
}

/* cli_drill_arg - the one word of gpulat drill */
static int cli_drill_arg(struct gpulat_opts *o, const char *arg, int *nr,
			 const char *cmd, FILE *err)
{
	if ((*nr)++)
		return cli_error(err, cmd, "unexpected argument '%s'", arg);
	o->drill = drill_kind_lookup(arg);
	if (o->drill < 0)
		return cli_error(err, cmd,
				 "unknown drill '%s' (drills: cpu, disk, net, irq; clean removes what killed drills left)",
				 arg);
	return 0;
}

/* cli_cuda_arg - gpulat cuda [status | attach [LIBRARY] | detach] */
static int cli_cuda_arg(struct gpulat_opts *o, const char *arg, int *nr,
			const char *cmd, FILE *err)
{
	static const char *const ops[] = { "status", "attach", "detach" };
	unsigned int i;

	if (*nr == 1 && o->cuda_op == GPULAT_CUDA_ATTACH && arg[0]) {
		o->cuda_lib = arg;
		(*nr)++;
		return 0;
	}
	if ((*nr)++)
		return cli_error(err, cmd, "unexpected argument '%s'", arg);
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (!strcmp(arg, ops[i])) {
			o->cuda_op = i;
			return 0;
		}
	return cli_error(err, cmd,
			 "unknown action '%s' (status, attach [LIBRARY], detach)",
			 arg);
}

/* cli_drill_check - what gpulat drill needs of its options */
static int cli_drill_check(struct gpulat_opts *o, int nr, const char *cmd,
			   FILE *err)
{
	if (!nr)
		return cli_error(err, cmd, "which drill? cpu, disk, net or irq (or clean)");
	if (o->has_duration && (o->duration_s < 1 || o->duration_s > DRILL_MAX_S))
		return cli_error(err, cmd, "bad duration: a drill lasts 1 to %.0f s",
				 DRILL_MAX_S);
	if (o->target && o->drill != DRILL_CPU)
		return cli_error(err, cmd,
				 "--target applies to the cpu drill; the others make their own device");
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
			 const struct gpulat_command *c, FILE *err)
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
		{ "listen",	required_argument,	NULL, 'L' },
		{ "textfile",	required_argument,	NULL, 'T' },
		{ "flight",	required_argument,	NULL, 'F' },
		{ "buckets",	required_argument,	NULL, 'b' },
		{ "max-keys",	required_argument,	NULL, 'k' },
		{ "flight-window", required_argument,	NULL, 'W' },
		{ "flight-after", required_argument,	NULL, 'A' },
		{ "flight-gap",	required_argument,	NULL, 'G' },
		{ "flight-keep", required_argument,	NULL, 'K' },
		{ "flight-max-bytes", required_argument, NULL, 'B' },
		{ "mode",	required_argument,	NULL, 'M' },
		{ "all-buckets", no_argument,		NULL, 'U' },
		{ "verdict",	required_argument,	NULL, 'R' },
		{ "trigger",	required_argument,	NULL, 'g' },
		{ "cgroup",	required_argument,	NULL, 'c' },
		{ "target",	required_argument,	NULL, 'x' },
		{ "force",	no_argument,		NULL, 'y' },
		{ "gpu-interval", required_argument,	NULL, 'N' },
		{ NULL, 0, NULL, 0 }
	};
	const char *optstring = c->optstring, *cmd = c->name;
	int opt, nr_num = 0, ret;

	optind = 0;	/* full reset of getopt's state */
	opterr = 0;
	for (;;) {
		opt = getopt_long(argc, argv, optstring, longopts, NULL);
		if (opt == -1)
			break;
		/* a long option not meant for this command */
		if (opt != '?' && opt != ':' && !strchr(optstring, opt))
			return cli_error(err, cmd,
					 "option '%s' does not apply to %s",
					 /* "--opt ARG": the option, not ARG */
					 argv[optind - 1][0] != '-' && optind >= 2 ?
					 argv[optind - 2] : argv[optind - 1],
					 cmd);
		switch (opt) {
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
			/* watch-cgroup reads no file: -i is its interval */
			if (c->args == GPULAT_ARGS_CGROUPS)
				goto interval;
			o->input = optarg;
			break;
		case 'c':
			if (!optarg[0])
				return cli_error(err, cmd,
						 "--cgroup needs a cgroup path");
			o->cgroup = optarg;
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
			if (c->args == GPULAT_ARGS_CGROUPS)
				goto interval;
			if (cli_parse_interval(optarg, &o->report_interval_s))
				return cli_bad_seconds(err, cmd, "interval",
						       optarg);
			o->has_report_interval = true;
			break;
		interval:
			if (cli_parse_interval(optarg, &o->interval_s))
				return cli_bad_seconds(err, cmd, "interval",
						       optarg);
			o->has_interval = true;
			break;
		case 'x':
			if (!optarg[0])
				return cli_error(err, cmd, "--target needs a CPU");
			o->target = optarg;
			break;
		case 'y':
			o->force = true;
			break;
		default:
			ret = cli_serve(o, opt, optarg, cmd, err);
			if (ret < 0)
				return cli_unknown_option(argc, argv, cmd,
							  optstring, err);
			if (ret)
				return ret;
		}
	}
	for (; optind < argc; optind++) {
		switch (c->args) {
		case GPULAT_ARGS_FAMILIES:
			ret = cli_family_arg(o, argv[optind], cmd, err);
			break;
		case GPULAT_ARGS_HIST:
			ret = cli_positional(o, argv[optind], &nr_num, cmd,
					     err);
			break;
		case GPULAT_ARGS_CGROUPS:
			ret = 0;
			if (!argv[optind][0])
				ret = cli_error(err, cmd, "empty cgroup path");
			else if (o->nr_cgroups >= GPULAT_CG_WATCH_MAX)
				ret = cli_error(err, cmd,
						"more than %d cgroups: the source watches at most %d at once",
						GPULAT_CG_WATCH_MAX,
						GPULAT_CG_WATCH_MAX);
			else
				o->cgroups[o->nr_cgroups++] = argv[optind];
			break;
		case GPULAT_ARGS_DRILL:
			ret = cli_drill_arg(o, argv[optind], &nr_num, cmd, err);
			break;
		case GPULAT_ARGS_CUDA:
			ret = cli_cuda_arg(o, argv[optind], &nr_num, cmd, err);
			break;
		default:
			ret = cli_error(err, cmd, "unexpected argument '%s'",
					argv[optind]);
		}
		if (ret)
			return ret;
	}
	if (c->args == GPULAT_ARGS_DRILL)
		return cli_drill_check(o, nr_num, cmd, err);
	if (c->args == GPULAT_ARGS_FAMILIES && !o->nr_family_list)
		return cli_error(err, cmd, "%s needs at least one FAMILY", cmd);
	if (c->args == GPULAT_ARGS_CGROUPS && !o->nr_cgroups)
		return cli_error(err, cmd, "%s needs at least one cgroup PATH",
				 cmd);
	if (o->cgroup && o->input)
		return cli_error(err, cmd,
				 "--cgroup reads this host's cgroups; --input shows a saved snapshot");
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
	if (c->needs_output && (!o->output || !o->output[0]))
		return cli_error(err, cmd, "%s needs -o FILE", cmd);
	if (o->output && !o->output[0])
		return cli_error(err, cmd, "--output needs a file name");
	if (o->has_report_interval && o->has_duration &&
	    o->report_interval_s > o->duration_s)
		return cli_error(err, cmd,
				 "--interval is longer than --duration");
	return 0;
}

/*
 * gpulat_parse_args - fill @o from the command line; 0, or the exit code
 * after a message on @err.  Opens nothing and prints nothing else.
 */
static int gpulat_parse_words(int argc, char **argv, struct gpulat_opts *o,
			      FILE *err);

int gpulat_parse_args(int argc, char **argv, struct gpulat_opts *o, FILE *err)
{
	int ret = gpulat_parse_words(argc, argv, o, err);

	/* drills exit 2 on bad usage: 1 is a failed drill */
	if (ret && o->cmd == GPULAT_CMD_DRILL)
		return DRILL_EXIT_USAGE;
	return ret;
}

static int gpulat_parse_words(int argc, char **argv, struct gpulat_opts *o,
			      FILE *err)
{
	const char *word, *src;
	int shift;

	memset(o, 0, sizeof(*o));
	o->flight_before_s = GPULAT_FLIGHT_BEFORE_S;
	o->flight_after_s = GPULAT_FLIGHT_AFTER_S;
	o->flight_gap_s = GPULAT_FLIGHT_GAP_S;
	o->flight_keep = GPULAT_FLIGHT_KEEP;
	o->flight_max_bytes = GPULAT_FLIGHT_MAX_BYTES;
	o->verdict_s = GPULAT_VERDICT_S;
	src = getenv(GL_SOURCE_ENV);
	if (src && *src && gl_source_parse(src, &o->source))
		return cli_error(err, NULL,
				 "%s=%s: the source is auto, kmod, bpf or pinned",
				 GL_SOURCE_ENV, src);
	/* gpulat --source SOURCE COMMAND ...: the one option before a command */
	while (argc >= 2 && argv[1] && !strncmp(argv[1], "--source", 8) &&
	       (argv[1][8] == '=' || !argv[1][8])) {
		src = argv[1][8] == '=' ? argv[1] + 9 : argc >= 3 ? argv[2] : NULL;
		if (!src || gl_source_parse(src, &o->source))
			return cli_error(err, NULL,
					 "--source %s: the source is auto, kmod, bpf or pinned",
					 src ? src : "(missing)");
		shift = argv[1][8] == '=' ? 1 : 2;
		argc -= shift;
		argv += shift;
	}
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
	o->cmd = gpulat_command_lookup(word);
	if (o->cmd == GPULAT_CMD_NONE)
		return cli_error(err, NULL, "unknown command '%s'", word);
	return cli_parse_cmd(argc - 1, argv + 1, o,
			     gpulat_command_of(o->cmd), err);
}

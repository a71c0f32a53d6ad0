// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz gl_snapshot_parse; whatever parses is diffed against itself and
 * against a rebuilt copy, and rendered by every view (and for
 * Prometheus) to /dev/null.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "engine/serve/prom.h"

static FILE *devnull;

/* render_prom - the exposition, plain and coarse, per CPU, few keys */
static void render_prom(const struct gl_snapshot *s)
{
	struct prom_state p;

	prom_init(&p);
	prom_count_events(&p, s);
	prom_write(&p, s, devnull);
	p.per_cpu = true;
	p.per_octave = 2;
	p.max_keys = 1;
	prom_write(&p, s, devnull);
	prom_free(&p);
}

/*
 * render_all - every view of @s: totals and interval, merged, per key,
 * per CPU, both, and with the net filter (which adds softirqs)
 */
static void render_all(const struct gl_snapshot *s)
{
	struct view v = { .kernel = "fuzz", .per_cpu = true };
	char key[80];
	size_t i;

	hist_print_text(devnull, s, &v);
	hist_print_json(devnull, s, &v);
	status_print_text(devnull, s, &v);
	status_print_json(devnull, s, &v);
	v.per_key = true;
	hist_print_text(devnull, s, &v);
	hist_print_json(devnull, s, &v);
	v.per_cpu = false;
	v.families = 1ULL << GPULAT_FAM_NET;
	hist_print_text(devnull, s, &v);
	v.per_key = false;
	v.is_interval = true;
	v.interval_s = 1.5;
	v.families = 1ULL << GPULAT_FAM_SCHED;
	hist_print_text(devnull, s, &v);
	hist_print_json(devnull, s, &v);
	for (i = 0; i < gl_snapshot_nr_series(s); i++)
		if (strlen(hist_key_text(key, sizeof(key),
					 gl_snapshot_series(s, i))) >= sizeof(key))
			abort();
}

/* check_events - every event in bounds, its device NUL-terminated */
static void check_events(const struct gl_snapshot *s)
{
	const struct gpulat_event *e;
	size_t i;

	if (gl_snapshot_header(s)->header_size < GPULAT_SNAP_HEADER_SIZE_VER1 &&
	    gl_snapshot_nr_events(s))
		abort();	/* ABI 1.0 has no events section */
	for (i = 0; i < gl_snapshot_nr_events(s); i++) {
		e = gl_snapshot_event(s, i);
		if (!e || !memchr(e->device, '\0', sizeof(e->device)))
			abort();
	}
	if (gl_snapshot_event(s, i))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gl_snapshot *s, *d, *r;
	struct gl_hist h;
	const void *blob;
	char err[256];
	size_t len, i;
	uint64_t v;
	void *copy;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	/* a copy of exactly @size bytes so that ASan sees any over-read */
	copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	if (gl_snapshot_parse(copy, size, &s, err, sizeof(err))) {
		free(copy);
		return 0;
	}
	free(copy);
	check_events(s);
	render_all(s);
	render_prom(s);
	for (i = 0; i < gl_snapshot_nr_series(s); i++) {
		const struct gpulat_series *sr = gl_snapshot_series(s, i);

		gl_hist_merge(s, sr->family, sr->id, sr->cpu, &h);
		gl_hist_quantile(&h, 999000);
		gl_counter(s, sr->family, sr->id, &v);
	}
	if (!gl_snapshot_diff(s, s, &d)) {
		for (i = 0; i < gl_snapshot_nr_series(d); i++)
			if (gl_snapshot_series(d, i)->count)
				abort();	/* self minus self is empty */
		render_all(d);
		blob = gl_snapshot_blob(d, &len);
		if (gl_snapshot_parse(blob, len, &r, err, sizeof(err)))
			abort();	/* a rebuilt blob must parse */
		if (gl_snapshot_nr_series(r) != gl_snapshot_nr_series(s) ||
		    gl_snapshot_nr_events(r) != gl_snapshot_nr_events(s) ||
		    gl_snapshot_nr_events(d) != gl_snapshot_nr_events(s))
			abort();	/* the diff keeps new's events */
		check_events(r);
		gl_snapshot_free(r);
		gl_snapshot_free(d);
	}
	gl_snapshot_free(s);
	return 0;
}

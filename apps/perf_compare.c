/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma-perf --compare (perf_compare.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "perf_compare.h"
#include "perf_report.h"
#include "perf_stats.h"

#define PROG "rpcrdma-perf"

static const struct {
	const char *key, *label;
	bool higher_better;
	bool single; /* judged without the U test too (not a tail) */
	bool stalls; /* moved by the stalls: not judged when the runs' stalls differ */
	bool never;  /* reported only */
} figs[PERF_CMP_FIGS] = {
	{ "calls_per_sec", "calls/s", true, true, true, false },
	{ "bytes_per_sec", "bytes/s", true, true, true, false },
	{ "latency_ns.mean", "mean ns", false, false, true, false },
	{ "latency_ns.p50", "p50 ns", false, true, false, false },
	{ "latency_ns.p90", "p90 ns", false, false, false, false },
	{ "latency_ns.p99", "p99 ns", false, false, false, false },
	{ "latency_ns.p999", "p99.9 ns", false, false, true, false },
	{ "latency_ns.max", "max ns", false, false, true, true },
};

/* Stall shares (percent of the time) further apart than this make the runs' loads differ. */
#define STALL_DIFF_PCT 1.0

static const char *const method_names[] = { "mann-whitney-u", "spread", "threshold" };

static void warn(struct perf_cmp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(struct perf_cmp *c, const char *fmt, ...)
{
	va_list ap;

	if (c->nwarn == PERF_CMP_WARNS)
		return;
	va_start(ap, fmt);
	vsnprintf(c->warn[c->nwarn++], PERF_CMP_MSG_LEN, fmt, ap);
	va_end(ap);
}

/* What the two runs measured in: each difference is a warning. */
static void setups(const struct perf_json *a, const struct perf_json *b, struct perf_cmp *c)
{
	static const char *const strs[] = { "mode",   "op",    "pmd",		"topology",
					    "lcores", "build", "host.hostname", "host.cpu_model" };
	static const char *const nums[] = { "size", "depth", "version", "host.cpus" };
	static const char *const bools[] = { "host.hugepages", "capture" };

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		const char *x = perf_json_str(a, strs[i]), *y = perf_json_str(b, strs[i]);

		if (x && y && strcmp(x, y) != 0)
			warn(c, "the set-ups differ: %s \"%s\" (old) and \"%s\" (new)", strs[i], x,
			     y);
	}
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		double x, y;

		if (perf_json_num(a, nums[i], &x) && perf_json_num(b, nums[i], &y) && x != y)
			warn(c, "the set-ups differ: %s %g (old) and %g (new)", nums[i], x, y);
	}
	for (size_t i = 0; i < sizeof(bools) / sizeof(bools[0]); i++) {
		bool x, y;

		if (perf_json_bool(a, bools[i], &x) && perf_json_bool(b, bools[i], &y) && x != y)
			warn(c, "the set-ups differ: %s %s (old) and %s (new)", bools[i],
			     x ? "on" : "off", y ? "on" : "off");
	}
	if (c->nold != c->nnew)
		warn(c, "the set-ups differ: repeat count %u (old) and %u (new)", c->nold, c->nnew);
	if (perf_report_bool(a, "interrupted"))
		warn(c, "the old run was interrupted: its figures cover part of it");
	if (perf_report_bool(b, "interrupted"))
		warn(c, "the new run was interrupted: its figures cover part of it");
}

/* The spread of one side's repetitions, percent of their median (0 for one run). */
static double rel_spread(const double *v, unsigned int n)
{
	struct perf_stats s;

	if (n < 2)
		return 0;
	perf_stats_summary(v, n, &s);
	return s.median != 0 ? 100 * s.stdev / fabs(s.median) : 0;
}

/*
 * How much of each run the machine's other work took: the median share of
 * the repetitions' time in stalls (no reply for over a millisecond). When
 * the two differ, calls/s, bytes/s, the mean and p99.9 measure the machine
 * as much as the code (a preempted poller stops every call in flight), and
 * p50..p99, which the stalls do not reach, are what is judged.
 */
static bool stalls_differ(const struct perf_json *a, const struct perf_json *b, struct perf_cmp *c)
{
	double x[PERF_REPEAT_MAX], y[PERF_REPEAT_MAX];
	unsigned int nx = perf_report_values(a, "stalled_pct", x);
	unsigned int ny = perf_report_values(b, "stalled_pct", y);
	struct perf_stats sx, sy;

	if (nx == 0 || ny == 0)
		return false; /* results from before stalls were measured */
	perf_stats_summary(x, nx, &sx);
	perf_stats_summary(y, ny, &sy);
	if (fabs(sx.median - sy.median) <= STALL_DIFF_PCT)
		return false;
	warn(c,
	     "the runs stalled (no reply for over 1 ms: a poller off its CPU) for %.1f %% (old) "
	     "and %.1f %% (new) of their time: calls/s, bytes/s, mean and p99.9 not judged",
	     sx.median, sy.median);
	return true;
}

void perf_compare(const struct perf_json *old, const char *old_name, const struct perf_json *cur,
		  const char *new_name, double threshold, double alpha, struct perf_cmp *c)
{
	double x[PERF_REPEAT_MAX], y[PERF_REPEAT_MAX];
	bool stalled;

	memset(c, 0, sizeof(*c));
	c->old_name = old_name;
	c->new_name = new_name;
	c->threshold = threshold;
	c->alpha = alpha;
	c->nold = perf_report_nrep(old);
	c->nnew = perf_report_nrep(cur);
	setups(old, cur, c);
	stalled = stalls_differ(old, cur, c);
	if (c->nold >= 2 && c->nnew >= 2 && perf_stats_mwu_min_p(c->nold, c->nnew) < alpha) {
		c->method = PERF_CMP_UTEST;
	} else if (c->nold >= 2 || c->nnew >= 2) {
		c->method = PERF_CMP_SPREAD;
		snprintf(
			c->note, sizeof(c->note),
			c->nold >= 2 && c->nnew >= 2
				? "%u and %u repetitions cannot reach p < %g: the threshold scaled "
				  "by their spread instead (--repeat 5 on both sides for the U "
				  "test)"
				: "%u and %u repetitions: the threshold scaled by the spread "
				  "measured (--repeat 5 on both sides for the U test)",
			c->nold, c->nnew, alpha);
	} else {
		c->method = PERF_CMP_THRESHOLD;
		snprintf(c->note, sizeof(c->note),
			 "single runs: no spread measured, tails not judged (--repeat 5 on both "
			 "sides for the U test)");
	}
	for (unsigned int i = 0; i < PERF_CMP_FIGS; i++) {
		struct perf_cmp_fig *f = &c->fig[c->nfig];
		unsigned int nx = perf_report_values(old, figs[i].key, x);
		unsigned int ny = perf_report_values(cur, figs[i].key, y);
		struct perf_stats sx, sy;
		double bad, sx_rel, sy_rel;

		if (nx == 0 || ny == 0)
			continue;
		perf_stats_summary(x, nx, &sx);
		perf_stats_summary(y, ny, &sy);
		if (sx.median == 0 && sy.median == 0)
			continue; /* bytes/s of NULL calls */
		c->nfig++;
		f->key = figs[i].key;
		f->label = figs[i].label;
		f->higher_better = figs[i].higher_better;
		f->old_median = sx.median;
		f->new_median = sy.median;
		f->change = sx.median != 0  ? (sy.median - sx.median) / sx.median * 100
			    : sy.median > 0 ? INFINITY
					    : -INFINITY;
		f->p = -1;
		f->limit = threshold;
		bad = f->higher_better ? -f->change : f->change;
		if (c->method == PERF_CMP_UTEST) {
			f->gated = !figs[i].never;
			f->p = perf_stats_mwu(x, nx, y, ny, NULL);
			if (f->p < alpha && bad > threshold)
				f->verdict = PERF_CMP_WORSE;
			else if (f->p < alpha && -bad > threshold)
				f->verdict = PERF_CMP_BETTER;
		} else {
			f->gated = figs[i].single;
			sx_rel = rel_spread(x, nx);
			sy_rel = rel_spread(y, ny);
			if (3 * fmax(sx_rel, sy_rel) > f->limit)
				f->limit = 3 * fmax(sx_rel, sy_rel);
			if (bad > f->limit)
				f->verdict = PERF_CMP_WORSE;
			else if (-bad > f->limit)
				f->verdict = PERF_CMP_BETTER;
		}
		if (stalled && figs[i].stalls)
			f->gated = false;
		if (f->gated && f->verdict == PERF_CMP_WORSE)
			c->regression = true;
	}
}

void perf_compare_warnings(FILE *err, const struct perf_cmp *c)
{
	for (unsigned int i = 0; i < c->nwarn; i++)
		fprintf(err, PROG ": warning: --compare: %s\n", c->warn[i]);
}

void perf_compare_print(FILE *out, const struct perf_cmp *c)
{
	if (c->method == PERF_CMP_UTEST)
		fprintf(out,
			"compare with %s: %u and %u repetitions, Mann-Whitney U test (alpha %g, "
			"threshold %.1f %%)\n",
			c->old_name, c->nold, c->nnew, c->alpha, c->threshold);
	else
		fprintf(out, "compare with %s (threshold %.1f %%): %s\n", c->old_name, c->threshold,
			c->note);
	fprintf(out, "  %-10s %14s %14s %9s %8s %8s  %s\n", "figure", "old", "new", "change",
		c->method == PERF_CMP_UTEST ? "p-value" : "", "limit", "verdict");
	for (unsigned int i = 0; i < c->nfig; i++) {
		const struct perf_cmp_fig *f = &c->fig[i];
		const char *v = "";
		char p[16] = "";

		if (f->verdict == PERF_CMP_WORSE)
			v = f->gated ? "WORSE" : "worse (not gated)";
		else if (f->verdict == PERF_CMP_BETTER)
			v = "better";
		else if (!f->gated)
			v = "not gated";
		if (f->p >= 0)
			snprintf(p, sizeof(p), "%.4f", f->p);
		fprintf(out, "  %-10s %14.1f %14.1f %+8.1f%% %8s %7.1f%%  %s\n", f->label,
			f->old_median, f->new_median, f->change, p, f->limit, v);
	}
	fprintf(out, "%s\n",
		c->regression ? "regression: a figure is worse beyond the noise and the threshold"
			      : "no regression");
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('"', f);
}

static void json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.4f", v);
	else
		fprintf(f, "null");
}

void perf_compare_json(FILE *f, const void *arg)
{
	static const char *const verdicts[] = { "same", "worse", "better" };
	const struct perf_cmp *c = arg;

	fprintf(f, "{\"baseline\": ");
	json_str(f, c->old_name);
	fprintf(f, ", \"method\": \"%s\", \"alpha\": %g, \"threshold_pct\": %g, ",
		method_names[c->method], c->alpha, c->threshold);
	fprintf(f, "\"repetitions\": {\"old\": %u, \"new\": %u},\n    \"note\": ", c->nold,
		c->nnew);
	json_str(f, c->note);
	fprintf(f, ",\n    \"warnings\": [");
	for (unsigned int i = 0; i < c->nwarn; i++) {
		fprintf(f, i ? ", " : "");
		json_str(f, c->warn[i]);
	}
	fprintf(f, "],\n    \"figures\": {");
	for (unsigned int i = 0; i < c->nfig; i++) {
		const struct perf_cmp_fig *x = &c->fig[i];

		fprintf(f, "%s\"%s\": {\"old\": ", i ? ",\n      " : "\n      ", x->key);
		json_num(f, x->old_median);
		fprintf(f, ", \"new\": ");
		json_num(f, x->new_median);
		fprintf(f, ", \"change_pct\": ");
		json_num(f, x->change);
		fprintf(f, ", \"p_value\": ");
		json_num(f, x->p >= 0 ? x->p : NAN);
		fprintf(f, ", \"limit_pct\": ");
		json_num(f, x->limit);
		fprintf(f, ", \"gated\": %s, \"verdict\": \"%s\"}", x->gated ? "true" : "false",
			verdicts[x->verdict]);
	}
	fprintf(f, "},\n    \"regression\": %s}", c->regression ? "true" : "false");
}

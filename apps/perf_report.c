/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma-perf's result: its JSON (scripts/perf_schema.json) and its
 * summary table (perf_report.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "perf_report.h"
#include "perf_stats.h"
#include "perf_version.h"

#define PROG "rpcrdma-perf"

const char *const perf_mode_names[3] = { "lat", "iops", "bw" };
const char *const perf_op_names[PERF_OP_N] = { "null", "read", "write", "getattr", "readdir" };
const char *const perf_role_names[3] = { "inproc", "server", "client" };
const char *const perf_lat_keys[LAT_N] = { "min", "mean", "stdev", "p50",
					   "p90", "p99",  "p999",  "max" };

void perf_rep_fill(struct perf_rep *rep, const struct perf_hist *h, double seconds, double stalled,
		   uint32_t size)
{
	rep->stalled_pct = seconds > 0 ? 100 * stalled / seconds : 0;
	rep->calls = h->count;
	rep->seconds = seconds;
	rep->calls_per_sec = seconds > 0 ? (double)h->count / seconds : 0;
	rep->bytes_per_sec = rep->calls_per_sec * size;
	rep->lat[LAT_MIN] = h->count ? (double)h->min : 0;
	rep->lat[LAT_MEAN] = perf_hist_mean(h);
	rep->lat[LAT_STDEV] = perf_hist_stdev(h);
	rep->lat[LAT_P50] = (double)perf_hist_percentile(h, 50);
	rep->lat[LAT_P90] = (double)perf_hist_percentile(h, 90);
	rep->lat[LAT_P99] = (double)perf_hist_percentile(h, 99);
	rep->lat[LAT_P999] = (double)perf_hist_percentile(h, 99.9);
	rep->lat[LAT_MAX] = (double)h->max;
}

void perf_result_warn(struct perf_result *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nwarn == PERF_WARN_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(r->warn[r->nwarn++], PERF_WARN_LEN, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------ JSON */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(buf, len, "unknown");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) != 0 || colon == NULL)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

/* "key": [v, ...] of one figure across the repetitions */
static void json_rep_array(FILE *f, const char *key, const struct perf_result *r, size_t off,
			   int decimals)
{
	fprintf(f, "\"%s\": [", key);
	for (unsigned int i = 0; i < r->nrep; i++)
		fprintf(f, "%s%.*f", i ? ", " : "", decimals,
			*(const double *)((const char *)&r->rep[i] + off));
	fprintf(f, "]");
}

/* "key": {"median": ..., "min": ..., ...} of one figure across the repetitions */
static void json_rep_stats(FILE *f, const char *key, const struct perf_result *r, size_t off)
{
	double v[PERF_REPEAT_MAX];
	struct perf_stats s;

	for (unsigned int i = 0; i < r->nrep; i++)
		v[i] = *(const double *)((const char *)&r->rep[i] + off);
	perf_stats_summary(v, r->nrep, &s);
	fprintf(f,
		"\"%s\": {\"median\": %.3f, \"min\": %.3f, \"max\": %.3f, \"mean\": %.3f, "
		"\"stdev\": %.3f, \"mad\": %.3f}",
		key, s.median, s.min, s.max, s.mean, s.stdev, s.mad);
}

#define REP_OFF(field) offsetof(struct perf_rep, field)

static void json_repeat(FILE *f, const struct perf_result *r)
{
	double calls[PERF_REPEAT_MAX];
	struct perf_stats s;
	unsigned int i;

	fprintf(f, "  \"repeat\": {\"count\": %u, \"requested\": %u,\n    \"calls\": [", r->nrep,
		r->repeat);
	for (i = 0; i < r->nrep; i++) {
		fprintf(f, "%s%lu", i ? ", " : "", (unsigned long)r->rep[i].calls);
		calls[i] = (double)r->rep[i].calls;
	}
	fprintf(f, "],\n    ");
	json_rep_array(f, "seconds", r, REP_OFF(seconds), 9);
	fprintf(f, ",\n    ");
	json_rep_array(f, "calls_per_sec", r, REP_OFF(calls_per_sec), 3);
	fprintf(f, ",\n    ");
	json_rep_array(f, "bytes_per_sec", r, REP_OFF(bytes_per_sec), 1);
	fprintf(f, ",\n    ");
	json_rep_array(f, "stalled_pct", r, REP_OFF(stalled_pct), 3);
	fprintf(f, ",\n    \"latency_ns\": {");
	for (i = 0; i < LAT_N; i++) {
		fprintf(f, i ? ",\n      " : "\n      ");
		json_rep_array(f, perf_lat_keys[i], r, REP_OFF(lat) + i * sizeof(double), 1);
	}
	perf_stats_summary(calls, r->nrep, &s);
	fprintf(f,
		"},\n    \"stats\": {\"calls\": {\"median\": %.1f, \"min\": %.0f, \"max\": %.0f, "
		"\"mean\": %.3f, \"stdev\": %.3f, \"mad\": %.1f},\n      ",
		s.median, s.min, s.max, s.mean, s.stdev, s.mad);
	json_rep_stats(f, "seconds", r, REP_OFF(seconds));
	fprintf(f, ",\n      ");
	json_rep_stats(f, "calls_per_sec", r, REP_OFF(calls_per_sec));
	fprintf(f, ",\n      ");
	json_rep_stats(f, "bytes_per_sec", r, REP_OFF(bytes_per_sec));
	fprintf(f, ",\n      ");
	json_rep_stats(f, "stalled_pct", r, REP_OFF(stalled_pct));
	fprintf(f, ",\n      \"latency_ns\": {");
	for (i = 0; i < LAT_N; i++) {
		fprintf(f, i ? ",\n        " : "\n        ");
		json_rep_stats(f, perf_lat_keys[i], r, REP_OFF(lat) + i * sizeof(double));
	}
	fprintf(f, "}}},\n");
}

/* HdrHistogram's percentile distribution of every call, for --plot of a saved result */
static void json_distribution(FILE *f, const struct perf_result *r)
{
	static struct perf_hist_tick t[PERF_TICKS_MAX];
	unsigned int n = perf_hist_ticks(&r->all, PERF_HDR_TICKS, t, PERF_TICKS_MAX), i;

	fprintf(f, "  \"latency_distribution\": {\"percentile\": [");
	for (i = 0; i < n; i++)
		fprintf(f, "%s%.12f", i ? ", " : "", t[i].pct / 100);
	fprintf(f, "],\n    \"value_ns\": [");
	for (i = 0; i < n; i++)
		fprintf(f, "%s%lu", i ? ", " : "", (unsigned long)t[i].value);
	fprintf(f, "]},\n");
}

int perf_report_json(FILE *f, const struct perf_result *r,
		     void (*compare_json)(FILE *f, const void *arg), const void *arg)
{
	const struct rpcrdma_xprt_stats *x = &r->xst;
	char host[256] = "unknown", cpu[128];
	uint64_t calls = r->all.count;
	double secs = 0, stalled = 0, cps;
	struct utsname u;
	unsigned int i;

	for (i = 0; i < r->nrep; i++) {
		secs += r->rep[i].seconds;
		stalled += r->rep[i].seconds * r->rep[i].stalled_pct / 100;
	}
	cps = secs > 0 ? (double)calls / secs : 0;
	gethostname(host, sizeof(host) - 1);
	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	cpu_model(cpu, sizeof(cpu));
	fprintf(f, "{\n  \"schema_version\": %d,\n  \"tool\": \"" PROG "\",\n", PERF_SCHEMA);
	fprintf(f, "  \"rpcrdma_version\": \"%s\",\n  \"git_commit\": ", RPCRDMA_PERF_VERSION);
	if (strcmp(RPCRDMA_PERF_GIT, "unknown") == 0)
		fprintf(f, "null");
	else
		json_str(f, RPCRDMA_PERF_GIT);
	fprintf(f, ",\n  \"build\": ");
	json_str(f, RPCRDMA_PERF_BUILD);
	fprintf(f, ",\n  \"host\": {\"hostname\": ");
	json_str(f, host);
	fprintf(f, ", \"kernel\": ");
	json_str(f, u.release);
	fprintf(f, ", \"machine\": ");
	json_str(f, u.machine);
	fprintf(f, ", \"cpu_model\": ");
	json_str(f, cpu);
	fprintf(f, ", \"cpus\": %ld, \"tsc_hz\": %lu, \"hugepages\": %s},\n",
		sysconf(_SC_NPROCESSORS_ONLN), (unsigned long)r->tsc_hz,
		r->hugepages ? "true" : "false");
	fprintf(f,
		"  \"program\": \"%s\",\n  \"mode\": \"%s\",\n  \"op\": \"%s\",\n  \"pmd\": "
		"\"%s\",\n"
		"  \"topology\": \"%s\",\n  \"version\": %u,\n  \"size\": %u,\n"
		"  \"depth\": %u,\n  \"lcores\": ",
		r->program, perf_mode_names[r->mode], perf_op_names[r->op], r->pmd,
		perf_role_names[r->role], r->version, r->size, r->depth);
	json_str(f, r->lcores);
	fprintf(f,
		",\n  \"capture\": %s,\n  \"interrupted\": %s,\n  \"calls\": %lu,\n"
		"  \"errors\": %lu,\n  \"seconds\": %.9f,\n  \"calls_per_sec\": %.3f,\n"
		"  \"bytes_per_sec\": %.1f,\n  \"stalled_pct\": %.3f,\n",
		r->capture ? "true" : "false", r->interrupted ? "true" : "false",
		(unsigned long)calls, (unsigned long)r->errors, secs, cps, cps * r->size,
		secs > 0 ? 100 * stalled / secs : 0);
	fprintf(f,
		"  \"latency_ns\": {\"min\": %lu, \"mean\": %.1f, \"stdev\": %.1f, \"p50\": %lu, "
		"\"p90\": %lu, \"p99\": %lu, \"p999\": %lu, \"max\": %lu},\n",
		(unsigned long)(calls ? r->all.min : 0), perf_hist_mean(&r->all),
		perf_hist_stdev(&r->all), (unsigned long)perf_hist_percentile(&r->all, 50),
		(unsigned long)perf_hist_percentile(&r->all, 90),
		(unsigned long)perf_hist_percentile(&r->all, 99),
		(unsigned long)perf_hist_percentile(&r->all, 99.9), (unsigned long)r->all.max);
	json_repeat(f, r);
	json_distribution(f, r);
	fprintf(f, "  \"warnings\": [");
	for (i = 0; i < r->nwarn; i++) {
		fprintf(f, i ? ", " : "");
		json_str(f, r->warn[i]);
	}
	fprintf(f, "],\n");
	if (compare_json) {
		fprintf(f, "  \"compare\": ");
		compare_json(f, arg);
		fprintf(f, ",\n");
	}
	if (r->nconns > 1) {
		/* --connections: each one's measured calls (their sum is "calls") */
		fprintf(f, "  \"connections\": [");
		for (i = 0; i < r->nconns; i++)
			fprintf(f,
				"%s{\"calls\": %lu, \"p50_ns\": %lu, \"p99_ns\": %lu, "
				"\"max_ns\": %lu}",
				i ? ",\n    " : "", (unsigned long)r->conns[i].calls,
				(unsigned long)r->conns[i].p50, (unsigned long)r->conns[i].p99,
				(unsigned long)r->conns[i].max);
		fprintf(f, "],\n");
	}
	fprintf(f,
		"  \"xprt\": {\"wrs\": %lu, \"doorbells\": %lu, \"short_msgs\": %lu, "
		"\"chunked_msgs\": %lu, \"long_msgs\": %lu, \"credit_stalls\": %lu, "
		"\"reserve_stalls\": %lu, \"max_outstanding\": %lu}\n}\n",
		(unsigned long)x->wrs, (unsigned long)x->doorbells, (unsigned long)x->short_msgs,
		(unsigned long)x->chunked_msgs, (unsigned long)x->long_msgs,
		(unsigned long)x->credit_stalls, (unsigned long)x->reserve_stalls,
		(unsigned long)x->max_outstanding);
	return ferror(f) ? -EIO : 0;
}

/* ------------------------------------------------------------ reading back */

static int check_result(struct perf_json *j, const char *opt, const char *name)
{
	static const char *const need[] = {
		"size",		  "depth",	     "calls",	       "seconds",
		"calls_per_sec",  "bytes_per_sec",   "latency_ns.p50", "latency_ns.p90",
		"latency_ns.p99", "latency_ns.p999", "latency_ns.max", "schema_version",
	};
	double v;

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!perf_json_num(j, need[i], &v)) {
			fprintf(stderr,
				PROG ": %s%s%s: no number \"%s\" (not a result of " PROG ")\n",
				opt ? opt : "", opt ? " " : "", name, need[i]);
			return -EINVAL;
		}
	if (perf_json_num(j, "schema_version", &v) && v != PERF_SCHEMA) {
		fprintf(stderr, PROG ": %s%s%s: schema_version %g, this tool reads %d\n",
			opt ? opt : "", opt ? " " : "", name, v, PERF_SCHEMA);
		return -EINVAL;
	}
	if (!perf_json_str(j, "mode") || !perf_json_str(j, "op") || !perf_json_str(j, "pmd")) {
		fprintf(stderr, PROG ": %s%s%s: no mode, op or pmd (not a result of " PROG ")\n",
			opt ? opt : "", opt ? " " : "", name);
		return -EINVAL;
	}
	return 0;
}

int perf_report_load(struct perf_json *j, const char *file, const char *opt)
{
	char err[128];
	int ret = perf_json_load(j, file, err, sizeof(err));

	if (ret) {
		fprintf(stderr, PROG ": %s%s%s: %s\n", opt ? opt : "", opt ? " " : "", file,
			ret == -EINVAL ? err : strerror(-ret));
		return ret;
	}
	return check_result(j, opt, file);
}

int perf_report_parse(struct perf_json *j, const char *text, size_t len, const char *name)
{
	char err[128];
	int ret = perf_json_parse(j, text, len, err, sizeof(err));

	if (ret) {
		fprintf(stderr, PROG ": %s: %s\n", name, err);
		return ret;
	}
	return check_result(j, NULL, name);
}

double perf_report_num(const struct perf_json *j, const char *path)
{
	double v = 0;

	perf_json_num(j, path, &v);
	return v;
}

bool perf_report_bool(const struct perf_json *j, const char *path)
{
	bool v;

	return perf_json_bool(j, path, &v) && v;
}

unsigned int perf_report_nrep(const struct perf_json *j)
{
	double n;

	if (!perf_json_num(j, "repeat.count", &n) || n < 1)
		return 1;
	return n > PERF_REPEAT_MAX ? PERF_REPEAT_MAX : (unsigned int)n;
}

unsigned int perf_report_values(const struct perf_json *j, const char *key, double *v)
{
	unsigned int n = 0;
	char path[PERF_JSON_PATH];

	if (perf_json_get(j, "repeat.count") != NULL) {
		for (unsigned int i = 0; i < PERF_REPEAT_MAX; i++) {
			double calls;

			snprintf(path, sizeof(path), "repeat.%s.%u", key, i);
			if (!perf_json_num(j, path, &v[n]))
				break;
			/* a repetition without a call (stalled throughout) has no latency */
			snprintf(path, sizeof(path), "repeat.calls.%u", i);
			if (strncmp(key, "latency_ns.", 11) == 0 &&
			    perf_json_num(j, path, &calls) && calls == 0)
				continue;
			n++;
		}
		if (n > 0)
			return n;
	}
	return perf_json_num(j, key, &v[0]) ? 1 : 0;
}

/* ------------------------------------------------------------ table */

void perf_report_table_header(FILE *out)
{
	fprintf(out,
		"%-5s %-5s %8s %5s %2s %10s %7s %11s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n",
		"mode", "op", "size", "depth", "v", "calls", "seconds", "calls/s", "MB/s", "MiB/s",
		"min us", "mean us", "stdev us", "p50 us", "p90 us", "p99 us", "p99.9 us",
		"max us");
}

/* calls, seconds, calls/s, bytes/s, then the latencies (ns) */
static void table_figures(FILE *out, const double *v)
{
	fprintf(out, "%10.0f %7.2f %11.0f %9.1f %9.1f", v[0], v[1], v[2], v[3] / 1e6,
		v[3] / (1 << 20));
	for (int i = 0; i < LAT_N; i++)
		fprintf(out, " %9.2f", v[4 + i] / 1e3);
	fprintf(out, "\n");
}

void perf_report_table_rows(FILE *out, const struct perf_json *j)
{
	static const char *const stats[] = { "median", "min", "max", "stdev" };
	static const char *const keys[4] = { "calls", "seconds", "calls_per_sec", "bytes_per_sec" };
	unsigned int nrep = perf_report_nrep(j);
	char path[PERF_JSON_PATH], label[32];
	double v[4 + LAT_N];
	int i;

	for (i = 0; i < 4; i++)
		v[i] = perf_report_num(j, keys[i]);
	for (i = 0; i < LAT_N; i++) {
		snprintf(path, sizeof(path), "latency_ns.%s", perf_lat_keys[i]);
		v[4 + i] = perf_report_num(j, path);
	}
	fprintf(out, "%-5s %-5s %8.0f %5.0f %2.0f ", perf_json_str(j, "mode"),
		perf_json_str(j, "op"), perf_report_num(j, "size"), perf_report_num(j, "depth"),
		perf_report_num(j, "version"));
	table_figures(out, v);
	for (size_t s = 0; nrep > 1 && s < sizeof(stats) / sizeof(stats[0]); s++) {
		for (i = 0; i < 4; i++) {
			snprintf(path, sizeof(path), "repeat.stats.%s.%s", keys[i], stats[s]);
			v[i] = perf_report_num(j, path);
		}
		for (i = 0; i < LAT_N; i++) {
			snprintf(path, sizeof(path), "repeat.stats.latency_ns.%s.%s",
				 perf_lat_keys[i], stats[s]);
			v[4 + i] = perf_report_num(j, path);
		}
		if (s == 0)
			snprintf(label, sizeof(label), "  %s of %u runs", stats[s], nrep);
		else
			snprintf(label, sizeof(label), "  %s", stats[s]);
		fprintf(out, "%-29s ", label);
		table_figures(out, v);
	}
	if (perf_report_bool(j, "interrupted"))
		fprintf(out, "  * interrupted: %u of %.0f repetition(s), the last cut short\n",
			nrep, perf_report_num(j, "repeat.requested"));
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The log-linear latency histogram of rpcrdma-perf (perf_hist.h).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "perf_hist.h"

void perf_hist_reset(struct perf_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void perf_hist_bucket_range(unsigned int idx, uint64_t *lo, uint64_t *hi)
{
	unsigned int e;

	if (idx < PERF_HIST_SUB) {
		*lo = *hi = idx;
		return;
	}
	e = idx / PERF_HIST_HALF - 1;
	*lo = (uint64_t)(idx - e * PERF_HIST_HALF) << e;
	*hi = *lo + (1ull << e) - 1;
}

uint64_t perf_hist_percentile(const struct perf_hist *h, double pct)
{
	uint64_t want, seen = 0, lo, hi, v;
	unsigned int i;

	if (h->count == 0)
		return 0;
	/* the rank, rounded up; the epsilon keeps 99.9 % of 100000 at 99900 */
	want = (uint64_t)ceil(pct * (double)h->count / 100.0 - 1e-6);
	if (want < 1)
		want = 1;
	if (want > h->count)
		want = h->count;
	for (i = 0; i < PERF_HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= want)
			break;
	}
	if (i == PERF_HIST_BUCKETS)
		return h->max;
	perf_hist_bucket_range(i, &lo, &hi);
	v = lo + (hi - lo) / 2;
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

void perf_hist_merge(struct perf_hist *to, const struct perf_hist *from)
{
	unsigned int i;

	for (i = 0; i < PERF_HIST_BUCKETS; i++)
		to->buckets[i] += from->buckets[i];
	to->count += from->count;
	to->sum += from->sum;
	to->sumsq += from->sumsq;
	if (from->min < to->min)
		to->min = from->min;
	if (from->max > to->max)
		to->max = from->max;
}

double perf_hist_mean(const struct perf_hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0;
}

double perf_hist_stdev(const struct perf_hist *h)
{
	long double n = (long double)h->count, mean, var;

	if (h->count < 2)
		return 0;
	mean = (long double)h->sum / n;
	var = (long double)h->sumsq / n - mean * mean;
	return var > 0 ? (double)sqrtl(var) : 0;
}

/*
 * HdrHistogram's PercentileIterator: from level 0, report the bucket that
 * reaches each level, then step the level by 100 / (ticks * 2^(k + 1)) where
 * k = floor(log2(100 / (100 - level))): ticks lines per halving of the
 * distance to 100 %. After the last bucket's first line, one line at 100 %.
 */
unsigned int perf_hist_ticks(const struct perf_hist *h, unsigned int ticks,
			     struct perf_hist_tick *t, unsigned int max)
{
	double level = 0, total = (double)h->count;
	uint64_t seen = 0, lo, hi;
	unsigned int i, n = 0;

	if (h->count == 0 || max == 0)
		return 0;
	for (i = 0; i < PERF_HIST_BUCKETS && seen < h->count; i++) {
		double cur;

		if (h->buckets[i] == 0)
			continue;
		seen += h->buckets[i];
		cur = 100.0 * (double)seen / total;
		perf_hist_bucket_range(i, &lo, &hi);
		if (hi > h->max)
			hi = h->max;
		while (level <= cur && n < max - 1) {
			double k = floor(log(100.0 / (100.0 - level)) / log(2));

			t[n++] = (struct perf_hist_tick){ level, hi, seen };
			level += 100.0 / (ticks * pow(2, k + 1));
			if (seen == h->count)
				break;
		}
	}
	t[n++] = (struct perf_hist_tick){ 100.0, h->max, h->count };
	return n;
}

int perf_hist_write_hdr(const struct perf_hist *h, FILE *f, double scale, unsigned int ticks)
{
	static struct perf_hist_tick t[4096];
	unsigned int n = perf_hist_ticks(h, ticks, t, 4096), i;

	fprintf(f, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount",
		"1/(1-Percentile)");
	if (n == 0)
		return ferror(f) ? -EIO : 0;
	for (i = 0; i + 1 < n; i++)
		fprintf(f, "%12.3f %2.12f %10lu %14.2f\n", (double)t[i].value / scale,
			t[i].pct / 100, (unsigned long)t[i].count, 1 / (1 - t[i].pct / 100));
	fprintf(f, "%12.3f %2.12f %10lu\n", (double)t[i].value / scale, 1.0,
		(unsigned long)t[i].count);
	fprintf(f, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n", perf_hist_mean(h) / scale,
		perf_hist_stdev(h) / scale);
	fprintf(f, "#[Max     = %12.3f, Total count    = %12lu]\n", (double)h->max / scale,
		(unsigned long)h->count);
	fprintf(f, "#[Buckets = %12d, SubBuckets     = %12d]\n",
		PERF_HIST_MAX_BITS - PERF_HIST_SUB_BITS + 1, PERF_HIST_SUB);
	return ferror(f) ? -EIO : 0;
}

int perf_hist_write_csv(const struct perf_hist *h, FILE *f)
{
	uint64_t lo, hi;
	unsigned int i;

	fprintf(f, "lo_ns,hi_ns,count\n");
	for (i = 0; i < PERF_HIST_BUCKETS; i++) {
		if (h->buckets[i] == 0)
			continue;
		perf_hist_bucket_range(i, &lo, &hi);
		fprintf(f, "%lu,%lu,%lu\n", (unsigned long)lo, (unsigned long)hi,
			(unsigned long)h->buckets[i]);
	}
	return ferror(f) ? -EIO : 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma-perf's latency histogram (apps/perf_hist.c) against exact
 * percentiles of sorted samples, its bucket layout, its exact mean and
 * standard deviation, and its exports read back: HdrHistogram's
 * percentile distribution and CSV of buckets.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_hist.h"

#include "test_check.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Every bucket covers the values right after the previous one's. */
static void test_layout(void)
{
	uint64_t lo, hi, prev_hi = 0;
	unsigned int i;

	for (i = 0; i < PERF_HIST_BUCKETS; i++) {
		perf_hist_bucket_range(i, &lo, &hi);
		if (i > 0)
			CHECK(lo == prev_hi + 1, "bucket %u starts at %lu after %lu", i,
			      (unsigned long)lo, (unsigned long)prev_hi);
		CHECK(perf_hist_index(lo) == i && perf_hist_index(hi) == i, "bucket %u: %lu..%lu",
		      i, (unsigned long)lo, (unsigned long)hi);
		/* relative width at most 1/64 */
		CHECK((hi - lo) * 64 <= lo || lo < PERF_HIST_SUB, "bucket %u width", i);
		prev_hi = hi;
	}
	CHECK(perf_hist_index(UINT64_MAX) == PERF_HIST_BUCKETS - 1, "huge values in the last");
	CHECK(perf_hist_index(0) == 0 && perf_hist_index(127) == 127 && perf_hist_index(128) == 128,
	      "exact below 128");
}

/* The mean and the standard deviation are the exact ones of the values. */
static void test_moments(const char *name, const struct perf_hist *h, const uint64_t *v,
			 unsigned int n)
{
	double mean = 0, sq = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		mean += (double)v[i];
	mean /= n;
	for (i = 0; i < n; i++)
		sq += ((double)v[i] - mean) * ((double)v[i] - mean);
	CHECK(fabs(perf_hist_mean(h) - mean) <= 1e-9 * mean, "%s: mean %f, exact %f", name,
	      perf_hist_mean(h), mean);
	CHECK(fabs(perf_hist_stdev(h) - sqrt(sq / n)) <= 1e-6 * sqrt(sq / n) + 1e-9,
	      "%s: stdev %f, exact %f", name, perf_hist_stdev(h), sqrt(sq / n));
}

/*
 * The exports read back: the percentile distribution's header, lines whose
 * value, percentile and count never go down, a last line at 100 % with the
 * maximum and the count, its footer; the CSV's counts sum to the count.
 */
static void test_export(const char *name, const struct perf_hist *h)
{
	double val, pct, inv, prev_val = -1, prev_pct = -1, mean, sd, max;
	unsigned long cnt, prev_cnt = 0, total, lo, hi, sum = 0;
	unsigned int lines = 0, bad = 0, rows = 0;
	char line[256];
	FILE *f = tmpfile();

	CHECK(f != NULL && perf_hist_write_hdr(h, f, 1000, 5) == 0, "%s: hdr written", name);
	rewind(f);
	CHECK(fgets(line, sizeof(line), f) && strstr(line, "Value") &&
		      strstr(line, "1/(1-Percentile)"),
	      "%s: hdr header", name);
	CHECK(fgets(line, sizeof(line), f) && line[0] == '\n', "%s: a blank line", name);
	while (fgets(line, sizeof(line), f) && line[0] != '#') {
		int k = sscanf(line, "%lf %lf %lu %lf", &val, &pct, &cnt, &inv);

		if (k < 3 || val < prev_val || pct < prev_pct || cnt < prev_cnt || pct > 1 ||
		    (k == 4 && fabs(inv - 1 / (1 - pct)) > 0.01 * inv))
			bad++;
		prev_val = val;
		prev_pct = pct;
		prev_cnt = cnt;
		lines++;
	}
	CHECK(bad == 0 && lines > 20, "%s: %u lines, %u out of order", name, lines, bad);
	CHECK(prev_pct == 1.0 && prev_cnt == h->count &&
		      fabs(prev_val - (double)h->max / 1000) < 0.001,
	      "%s: last line 100 %% %lu %f", name, prev_cnt, prev_val);
	CHECK(sscanf(line, "#[Mean = %lf, StdDeviation = %lf]", &mean, &sd) == 2 &&
		      fabs(mean - perf_hist_mean(h) / 1000) < 0.001,
	      "%s: footer %s", name, line);
	CHECK(fgets(line, sizeof(line), f) &&
		      sscanf(line, "#[Max = %lf, Total count = %lu]", &max, &total) == 2 &&
		      total == h->count,
	      "%s: footer %s", name, line);
	fclose(f);

	f = tmpfile();
	CHECK(f != NULL && perf_hist_write_csv(h, f) == 0, "%s: csv written", name);
	rewind(f);
	CHECK(fgets(line, sizeof(line), f) && strcmp(line, "lo_ns,hi_ns,count\n") == 0,
	      "%s: csv header", name);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lu,%lu,%lu", &lo, &hi, &cnt) != 3 || lo > hi || cnt == 0 ||
		    perf_hist_index(lo) != perf_hist_index(hi))
			bad++;
		sum += cnt;
		rows++;
	}
	CHECK(bad == 0 && sum == h->count && rows > 0, "%s: csv %u rows, %lu calls of %lu", name,
	      rows, sum, (unsigned long)h->count);
	fclose(f);
}

static void test_percentiles(const char *name, uint64_t *v, unsigned int n)
{
	static const double pcts[] = { 1, 50, 90, 99, 99.9, 100 };
	struct perf_hist *h = malloc(sizeof(*h));
	uint64_t sum = 0;
	unsigned int i;

	perf_hist_reset(h);
	for (i = 0; i < n; i++) {
		perf_hist_record(h, v[i]);
		sum += v[i];
	}
	qsort(v, n, sizeof(v[0]), cmp_u64);
	CHECK(h->count == n && h->min == v[0] && h->max == v[n - 1] && h->sum == sum,
	      "%s: count, min, max, sum exact", name);
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		unsigned long rank = (unsigned long)((pcts[i] * n + 99.999) / 100); /* ceil */
		uint64_t exact = v[(rank ? rank : 1) - 1], got = perf_hist_percentile(h, pcts[i]);
		double err = exact ? ((double)got - (double)exact) / (double)exact : (double)got;

		CHECK(err <= 1.0 / 64 && err >= -1.0 / 64, "%s: p%g %lu, exact %lu", name, pcts[i],
		      (unsigned long)got, (unsigned long)exact);
	}
	CHECK(perf_hist_percentile(h, 100) == v[n - 1], "%s: p100 is the max", name);
	test_moments(name, h, v, n);
	test_export(name, h);
	free(h);
}

int main(void)
{
	static uint64_t v[100000];
	struct perf_hist *h = malloc(sizeof(*h));
	unsigned int i;

	test_layout();
	perf_hist_reset(h);
	CHECK(perf_hist_percentile(h, 50) == 0, "empty");
	perf_hist_record(h, 777);
	CHECK(perf_hist_percentile(h, 50) == 777 && perf_hist_percentile(h, 99.9) == 777,
	      "one sample is every percentile");
	free(h);

	/* uniform small values, exact region */
	for (i = 0; i < 1000; i++)
		v[i] = i % 100;
	test_percentiles("small", v, 1000);
	/* log-uniform from 100 ns to 100 ms: every magnitude */
	for (i = 0; i < 100000; i++)
		v[i] = 100ull << (xorshift() % 20) | (xorshift() & 0xff);
	test_percentiles("log-uniform", v, 100000);
	/* a latency shape: most near 2 us, a tail to 5 ms */
	for (i = 0; i < 100000; i++)
		v[i] = i % 1000 == 0 ? 5000000 + xorshift() % 1000 : 1900 + xorshift() % 300;
	test_percentiles("tail", v, 100000);
	return test_summary("test_perf_hist");
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The log-linear latency histogram of rpcrdma-perf (perf_hist.h).
 */
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
	if (from->min < to->min)
		to->min = from->min;
	if (from->max > to->max)
		to->max = from->max;
}

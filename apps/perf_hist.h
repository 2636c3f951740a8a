/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A latency histogram for rpcrdma-perf, log-linear as HdrHistogram: values
 * below 2^PERF_HIST_SUB_BITS are counted exactly, larger ones in buckets
 * whose width is 1/2^(PERF_HIST_SUB_BITS - 1) of their magnitude, so every
 * percentile is within 1/64 (1.6 %) of the true value, and recording is a
 * count-leading-zeros, a shift and an increment. The exact minimum, maximum
 * and sum are kept beside the buckets.
 */
#ifndef PERF_HIST_H
#define PERF_HIST_H

#include <stdint.h>

/** Sub-bucket bits: 128 values exact, then 64 buckets per power of two. */
#define PERF_HIST_SUB_BITS 7
#define PERF_HIST_SUB	   (1u << PERF_HIST_SUB_BITS)
#define PERF_HIST_HALF	   (PERF_HIST_SUB / 2)
/** Largest magnitude: 2^44 ns (about 4.9 hours); larger values count there. */
#define PERF_HIST_MAX_BITS 44
#define PERF_HIST_BUCKETS  ((PERF_HIST_MAX_BITS - PERF_HIST_SUB_BITS + 3) * PERF_HIST_HALF)

struct perf_hist {
	uint64_t count;
	uint64_t min;
	uint64_t max;
	uint64_t sum;
	uint64_t buckets[PERF_HIST_BUCKETS];
};

/** Empty the histogram. */
void perf_hist_reset(struct perf_hist *h);

/** The bucket of a value. */
static inline unsigned int perf_hist_index(uint64_t v)
{
	unsigned int msb, e;

	if (v < PERF_HIST_SUB)
		return (unsigned int)v;
	msb = 63u - (unsigned int)__builtin_clzll(v);
	if (msb > PERF_HIST_MAX_BITS)
		return PERF_HIST_BUCKETS - 1;
	e = msb - PERF_HIST_SUB_BITS + 1; /* v >> e is in [SUB/2, SUB) */
	return e * PERF_HIST_HALF + (unsigned int)(v >> e);
}

/** Count one value. */
static inline void perf_hist_record(struct perf_hist *h, uint64_t v)
{
	h->buckets[perf_hist_index(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/** Lowest and highest value a bucket holds. */
void perf_hist_bucket_range(unsigned int idx, uint64_t *lo, uint64_t *hi);

/**
 * The value at percentile @p pct (0 < pct <= 100): the middle of the bucket
 * that holds the ceil(pct / 100 * count)-th smallest value, clamped to
 * [min, max]. 0 when the histogram is empty.
 */
uint64_t perf_hist_percentile(const struct perf_hist *h, double pct);

/** Add the counts of @p from into @p to. */
void perf_hist_merge(struct perf_hist *to, const struct perf_hist *from);

#endif /* PERF_HIST_H */

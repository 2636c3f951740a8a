/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A latency histogram for rpcrdma-perf, log-linear as HdrHistogram: values
 * below 2^PERF_HIST_SUB_BITS are counted exactly, larger ones in buckets
 * whose width is 1/2^(PERF_HIST_SUB_BITS - 1) of their magnitude, so every
 * percentile is within 1/64 (1.6 %) of the true value, and recording is a
 * count-leading-zeros, a shift and an increment. The exact minimum, maximum,
 * sum and sum of squares are kept beside the buckets, so the mean and the
 * standard deviation are exact.
 *
 * The whole histogram is exported in HdrHistogram's percentile-distribution
 * text (what its outputPercentileDistribution() prints and its plotter
 * reads) or as CSV of buckets.
 */
#ifndef PERF_HIST_H
#define PERF_HIST_H

#include <stdint.h>
#include <stdio.h>

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
	unsigned __int128 sumsq; /* exact up to 2^48 values of up to 2^40 ns (18 minutes) */
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
	h->sumsq += (unsigned __int128)v * v;
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

/** The exact mean; 0 when empty. */
double perf_hist_mean(const struct perf_hist *h);

/** The exact standard deviation of the values (population, n); 0 below two values. */
double perf_hist_stdev(const struct perf_hist *h);

/** A line of the percentile distribution. */
struct perf_hist_tick {
	double pct;	/**< the percentile level, 0..100 */
	uint64_t value; /**< the highest value of the bucket that reaches it */
	uint64_t count; /**< values up to that bucket */
};

/**
 * HdrHistogram's percentile distribution: from level 0, the bucket that
 * reaches each level, @p ticks levels per halving of the distance to 100 %,
 * and a last line at 100 % (the maximum). At most @p max lines.
 *
 * @return the number of lines in @p t (0 when empty).
 */
unsigned int perf_hist_ticks(const struct perf_hist *h, unsigned int ticks,
			     struct perf_hist_tick *t, unsigned int max);

/**
 * Write HdrHistogram's percentile distribution: a "Value Percentile
 * TotalCount 1/(1-Percentile)" line at each of its percentile ticks (@p ticks
 * per half distance to 100 %, HdrHistogram's default 5), values divided by
 * @p scale (1000: nanoseconds written as microseconds), then its "#[Mean",
 * "#[Max" and "#[Buckets" footer. Nothing but the header when empty.
 *
 * @return 0, or -EIO when the stream has an error.
 */
int perf_hist_write_hdr(const struct perf_hist *h, FILE *f, double scale, unsigned int ticks);

/**
 * Write the non-empty buckets as CSV: a "lo_ns,hi_ns,count" header, then one
 * line per bucket (lowest value, highest value, calls). The counts sum to
 * h->count.
 *
 * @return 0, or -EIO when the stream has an error.
 */
int perf_hist_write_csv(const struct perf_hist *h, FILE *f);

#endif /* PERF_HIST_H */

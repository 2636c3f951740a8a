/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Statistics of rpcrdma-perf's repetitions (--repeat) and of --compare:
 * the median and the spread of a figure across repetitions, and the
 * Mann-Whitney U test (Wilcoxon rank-sum) that Google Benchmark's
 * compare.py runs on two sets of repetitions.
 */
#ifndef PERF_STATS_H
#define PERF_STATS_H

#include <stdbool.h>

/** The U test's distribution is counted exactly up to this many values in all. */
#define PERF_STATS_EXACT_MAX 40

/** One figure across repetitions. */
struct perf_stats {
	unsigned int n;
	double min, max;
	double mean;
	double stdev;  /**< sample standard deviation (n - 1); 0 below two values */
	double median; /**< the middle value, or the mean of the two middle ones */
	double mad;    /**< median absolute deviation from the median (unscaled) */
};

/** Summarize @p n values (n >= 1; all zero when n is 0). */
void perf_stats_summary(const double *v, unsigned int n, struct perf_stats *s);

/**
 * The Mann-Whitney U test of @p x (nx values) against @p y (ny values), two
 * sided: the probability of ranks at least this far apart when both come
 * from one distribution. Ties get their mean rank. With nx + ny up to
 * PERF_STATS_EXACT_MAX the distribution of the rank sum is counted over
 * every split of these ranks (exact, ties included); above, the normal
 * approximation with the tie correction and a continuity correction (as
 * scipy.stats.mannwhitneyu). @p u, when not NULL, gets U of x.
 *
 * @return the p-value in [0, 1]; 1 when either side is empty or every value
 *   is equal.
 */
double perf_stats_mwu(const double *x, unsigned int nx, const double *y, unsigned int ny,
		      double *u);

/**
 * The smallest two-sided p-value the test can give with @p nx and @p ny
 * values and no ties, 2 / C(nx + ny, nx): at or above alpha no result can
 * be significant (3 against 3 repetitions: 0.1).
 */
double perf_stats_mwu_min_p(unsigned int nx, unsigned int ny);

#endif /* PERF_STATS_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rpcrdma-perf --compare: judge a result against an older one, against the
 * noise the two measured.
 *
 * With repetitions on both sides (--repeat) each figure's repetitions are
 * compared with the Mann-Whitney U test, as Google Benchmark's compare.py
 * does: a figure is worse when the test says the two differ (p < alpha)
 * and its median moved the wrong way by more than the threshold (the
 * smallest change that matters). With repetitions on one side only, the
 * threshold grows to three standard deviations of that side; with single
 * runs it is the threshold alone. Tail figures (mean, p90, p99, p99.9) are
 * judged only by the U test; max never.
 *
 * Runs measured in different set-ups (mode, size, depth, lcores,
 * hugepages, build, repeat count, ...) are compared with a warning.
 */
#ifndef PERF_COMPARE_H
#define PERF_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "perf_json.h"

#define PERF_CMP_FIGS	 8
#define PERF_CMP_WARNS	 16
#define PERF_CMP_MSG_LEN 192

enum perf_cmp_method {
	PERF_CMP_UTEST,	    /**< Mann-Whitney U on both sides' repetitions */
	PERF_CMP_SPREAD,    /**< the threshold scaled by the repetitions' spread */
	PERF_CMP_THRESHOLD, /**< single runs: the threshold */
};

enum perf_cmp_verdict {
	PERF_CMP_SAME,
	PERF_CMP_WORSE,
	PERF_CMP_BETTER,
};

struct perf_cmp_fig {
	const char *key;   /**< in the result: "calls_per_sec", "latency_ns.p50", ... */
	const char *label; /**< in the report */
	bool higher_better;
	bool gated;		       /**< can fail the comparison */
	double old_median, new_median; /**< across repetitions */
	double change;		       /**< percent, new against old */
	double p;		       /**< the U test's p-value; -1 when not tested */
	double limit;		       /**< percent the figure may get worse by */
	enum perf_cmp_verdict verdict;
};

struct perf_cmp {
	const char *old_name, *new_name;
	enum perf_cmp_method method;
	unsigned int nold, nnew; /**< repetitions */
	double threshold, alpha;
	unsigned int nfig;
	struct perf_cmp_fig fig[PERF_CMP_FIGS];
	unsigned int nwarn;
	char warn[PERF_CMP_WARNS][PERF_CMP_MSG_LEN]; /**< set-ups that differ */
	char note[PERF_CMP_MSG_LEN];		     /**< why the method was chosen */
	bool regression;			     /**< a gated figure is worse */
};

/**
 * Compare result @p cur (named @p new_name) with @p old: the set-up
 * warnings, then each figure. @p threshold: percent; @p alpha: the U test's
 * significance level.
 */
void perf_compare(const struct perf_json *old, const char *old_name, const struct perf_json *cur,
		  const char *new_name, double threshold, double alpha, struct perf_cmp *c);

/** The set-up warnings, one line each, "rpcrdma-perf: warning: ...". */
void perf_compare_warnings(FILE *err, const struct perf_cmp *c);

/** The report: method, a line per figure, the verdict. */
void perf_compare_print(FILE *out, const struct perf_cmp *c);

/** The comparison as a JSON object (the "compare" member of a result). */
void perf_compare_json(FILE *f, const void *c);

#endif /* PERF_COMPARE_H */

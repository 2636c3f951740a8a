/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rpcrdma-perf --plot: the latency distribution of a result (and of the
 * result it is compared with) drawn by gnuplot, as HdrHistogram's plotter
 * draws a percentile distribution: latency against the percentile on a
 * scale of 1/(1 - percentile), so that 90 %, 99 %, 99.9 % are evenly apart.
 */
#ifndef PERF_PLOT_H
#define PERF_PLOT_H

#include <stdbool.h>

#include "perf_json.h"

/** The gnuplot terminal for @p file by its extension (.png, .svg), or NULL. */
const char *perf_plot_terminal(const char *file);

/** Whether gnuplot is on the PATH. */
bool perf_plot_have_gnuplot(void);

/**
 * Draw the "latency_distribution" of @p cur (titled @p cur_name) and, when
 * not NULL, of @p old (@p old_name) into @p file.
 *
 * @return 0; -ENODATA: no distribution in a result; -EIO: gnuplot failed
 *   (its messages are on stderr) or wrote nothing.
 */
int perf_plot(const char *file, const char *title, const struct perf_json *cur,
	      const char *cur_name, const struct perf_json *old, const char *old_name);

#endif /* PERF_PLOT_H */

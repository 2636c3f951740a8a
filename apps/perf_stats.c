/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The statistics of rpcrdma-perf --repeat and --compare (perf_stats.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf_stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of n sorted values. */
static double sorted_median(const double *s, unsigned int n)
{
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

void perf_stats_summary(const double *v, unsigned int n, struct perf_stats *s)
{
	double *t, sum = 0, sq = 0;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	if (n == 0)
		return;
	t = malloc(n * sizeof(*t));
	if (t == NULL)
		return;
	memcpy(t, v, n * sizeof(*t));
	qsort(t, n, sizeof(*t), cmp_double);
	s->n = n;
	s->min = t[0];
	s->max = t[n - 1];
	s->median = sorted_median(t, n);
	for (i = 0; i < n; i++)
		sum += t[i];
	s->mean = sum / n;
	for (i = 0; i < n; i++)
		sq += (t[i] - s->mean) * (t[i] - s->mean);
	s->stdev = n > 1 ? sqrt(sq / (n - 1)) : 0;
	for (i = 0; i < n; i++)
		t[i] = fabs(t[i] - s->median);
	qsort(t, n, sizeof(*t), cmp_double);
	s->mad = sorted_median(t, n);
	free(t);
}

double perf_stats_mwu_min_p(unsigned int nx, unsigned int ny)
{
	double c = 1;

	/* C(nx + ny, nx), one factor at a time */
	for (unsigned int i = 1; i <= nx; i++)
		c = c * (ny + i) / i;
	return c > 2 ? 2 / c : 1;
}

struct ranked {
	double v;
	int side; /* 0: x, 1: y */
};

static int cmp_ranked(const void *a, const void *b)
{
	return cmp_double(&((const struct ranked *)a)->v, &((const struct ranked *)b)->v);
}

/*
 * Exact: how many of the C(n, nx) ways to give nx of these (doubled, so
 * integer) ranks to x have a rank sum <= w and >= w. count[k][s] is the
 * number of ways to choose k of the ranks seen so far with sum s.
 */
static double exact_p(const unsigned int *rank2, unsigned int n, unsigned int nx, unsigned int w)
{
	unsigned int maxsum = 0, i, k, s;
	double *count, le = 0, ge = 0, all = 0, p;

	for (i = 0; i < n; i++)
		maxsum += rank2[i];
	count = calloc((size_t)(nx + 1) * (maxsum + 1), sizeof(*count));
	if (count == NULL)
		return 1;
	count[0] = 1;
	for (i = 0; i < n; i++)
		for (k = (i + 1 < nx ? i + 1 : nx); k >= 1; k--)
			for (s = maxsum; s >= rank2[i]; s--)
				count[k * (maxsum + 1) + s] +=
					count[(k - 1) * (maxsum + 1) + s - rank2[i]];
	for (s = 0; s <= maxsum; s++) {
		double c = count[nx * (maxsum + 1) + s];

		all += c;
		if (s <= w)
			le += c;
		if (s >= w)
			ge += c;
	}
	free(count);
	p = 2 * (le < ge ? le : ge) / all;
	return p < 1 ? p : 1;
}

double perf_stats_mwu(const double *x, unsigned int nx, const double *y, unsigned int ny, double *u)
{
	unsigned int n = nx + ny, i, j, w2 = 0, *rank2;
	double ties = 0, ux, mu, sigma, z, p;
	struct ranked *r;

	if (u)
		*u = 0;
	if (nx == 0 || ny == 0)
		return 1;
	r = malloc(n * sizeof(*r));
	rank2 = malloc(n * sizeof(*rank2));
	if (r == NULL || rank2 == NULL) {
		free(r);
		free(rank2);
		return 1;
	}
	for (i = 0; i < nx; i++)
		r[i] = (struct ranked){ x[i], 0 };
	for (i = 0; i < ny; i++)
		r[nx + i] = (struct ranked){ y[i], 1 };
	qsort(r, n, sizeof(*r), cmp_ranked);
	/* ranks 1..n; a run of t equal values i..j-1 each gets (i + 1 + j) / 2, doubled i + 1 + j */
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && r[j].v == r[i].v; j++)
			;
		for (unsigned int k = i; k < j; k++) {
			rank2[k] = i + 1 + j;
			if (r[k].side == 0)
				w2 += rank2[k];
		}
		ties += (double)(j - i) * (j - i) * (j - i) - (j - i);
	}
	ux = w2 / 2.0 - (double)nx * (nx + 1) / 2;
	if (u)
		*u = ux;
	if (ties == (double)n * n * n - n) {
		p = 1; /* one value everywhere */
	} else if (n <= PERF_STATS_EXACT_MAX) {
		p = exact_p(rank2, n, nx, w2);
	} else {
		mu = (double)nx * ny / 2;
		sigma = sqrt((double)nx * ny / 12 * ((n + 1) - ties / ((double)n * (n - 1))));
		z = (fabs(ux - mu) - 0.5) / sigma;
		p = z > 0 ? erfc(z / sqrt(2)) : 1;
	}
	free(r);
	free(rank2);
	return p;
}

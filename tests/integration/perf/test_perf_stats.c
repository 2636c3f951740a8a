/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma-perf's statistics (apps/perf_stats.c): the summary of a figure
 * across repetitions against values worked by hand, and the Mann-Whitney U
 * test against published values, against every split of the ranks counted
 * by brute force (ties included), and its normal approximation against the
 * exact count where both apply.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "perf_stats.c"

#include "test_check.h"

#define NEAR(a, b, eps) (fabs((a) - (b)) <= (eps))

static uint64_t rng = 88172645463325252ull;

static uint64_t xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void test_summary_values(void)
{
	static const double v[] = { 5, 1, 4, 2, 3, 100 };
	struct perf_stats s;

	perf_stats_summary(v, 6, &s);
	CHECK(s.n == 6 && s.min == 1 && s.max == 100, "n %u min %g max %g", s.n, s.min, s.max);
	CHECK(s.median == 3.5 && NEAR(s.mean, 115.0 / 6, 1e-9), "median %g mean %g", s.median,
	      s.mean);
	/* |v - 3.5|: 1.5 2.5 0.5 1.5 0.5 96.5 -> median 1.5 */
	CHECK(s.mad == 1.5, "mad %g", s.mad);
	/* sample stdev: sum of squares about the mean 8029.5 - 6 * (115/6)^2, over 5 */
	CHECK(NEAR(s.stdev, sqrt((1 + 4 + 9 + 16 + 25 + 10000 - 115.0 * 115 / 6) / 5), 1e-9),
	      "stdev %g", s.stdev);
	perf_stats_summary(v, 1, &s);
	CHECK(s.n == 1 && s.median == 5 && s.stdev == 0 && s.mad == 0, "one value");
}

/* The two-sided p by brute force: every split of the n ranks, nx to x. */
static double brute_p(const double *x, unsigned int nx, const double *y, unsigned int ny)
{
	double all[32], rank[32], w = 0, le = 0, ge = 0, total = 0;
	unsigned int n = nx + ny, i, j;

	for (i = 0; i < nx; i++)
		all[i] = x[i];
	for (i = 0; i < ny; i++)
		all[nx + i] = y[i];
	/* mean ranks: 1 + values below + (equal ones - 1) / 2 */
	for (i = 0; i < n; i++) {
		unsigned int below = 0, equal = 0;

		for (j = 0; j < n; j++) {
			below += all[j] < all[i];
			equal += all[j] == all[i];
		}
		rank[i] = 1 + below + (equal - 1) / 2.0;
	}
	for (i = 0; i < nx; i++)
		w += rank[i];
	for (unsigned long m = 0; m < (1ul << n); m++) {
		double s = 0;

		if ((unsigned int)__builtin_popcountl(m) != nx)
			continue;
		for (i = 0; i < n; i++)
			if (m & (1ul << i))
				s += rank[i];
		total++;
		le += s <= w + 1e-9;
		ge += s >= w - 1e-9;
	}
	return fmin(1, 2 * fmin(le, ge) / total);
}

static void test_mwu(void)
{
	static const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 6, 7, 8, 9, 10 };
	static const double c[] = { 1, 3, 5, 7, 9 }, d[] = { 2, 4, 6, 8, 10 };
	double x[20], y[20], u, p;

	/* apart: U = 0, p = 2 / C(10, 5) = 2 / 252 (scipy: 0.007936507936507936) */
	p = perf_stats_mwu(a, 5, b, 5, &u);
	CHECK(u == 0 && NEAR(p, 2.0 / 252, 1e-12), "apart: U %g p %.12f", u, p);
	p = perf_stats_mwu(b, 5, a, 5, &u);
	CHECK(u == 25 && NEAR(p, 2.0 / 252, 1e-12), "apart, swapped: U %g p %g", u, p);
	/* interleaved: U = 10 of 25; scipy exact: 0.6904761904761905 */
	p = perf_stats_mwu(c, 5, d, 5, &u);
	CHECK(u == 10 && NEAR(p, 0.6904761904761905, 1e-12), "interleaved: U %g p %.16f", u, p);
	/* every value equal: nothing to tell apart */
	p = perf_stats_mwu(a, 1, a, 1, &u);
	CHECK(p == 1, "equal: p %g", p);
	CHECK(perf_stats_mwu(a, 0, b, 5, NULL) == 1, "an empty side");
	CHECK(NEAR(perf_stats_mwu_min_p(3, 3), 0.1, 1e-12) &&
		      NEAR(perf_stats_mwu_min_p(5, 5), 2.0 / 252, 1e-12) &&
		      perf_stats_mwu_min_p(1, 1) == 1,
	      "smallest p: 3+3 %g, 5+5 %g", perf_stats_mwu_min_p(3, 3), perf_stats_mwu_min_p(5, 5));
	/* random samples with many ties, against brute force */
	for (int t = 0; t < 200; t++) {
		unsigned int nx = 1 + xorshift() % 8, ny = 1 + xorshift() % 8, i;

		for (i = 0; i < nx; i++)
			x[i] = (double)(xorshift() % 6);
		for (i = 0; i < ny; i++)
			y[i] = (double)(xorshift() % 6 + (t % 3));
		p = perf_stats_mwu(x, nx, y, ny, NULL);
		CHECK(NEAR(p, brute_p(x, nx, y, ny), 1e-9), "case %d (%u, %u): p %g brute %g", t,
		      nx, ny, p, brute_p(x, nx, y, ny));
	}
	/* 20 against 20: the normal approximation is within 0.01 of the exact count */
	for (int t = 0; t < 20; t++) {
		unsigned int rank2[40], w2 = 0, i;
		double all[40], mu = 200, z, approx, exact;
		struct ranked r[40];

		for (i = 0; i < 40; i++) {
			/* distinct: the fraction tells equal draws apart */
			all[i] = (double)(xorshift() % 1000) + i / 64.0 + (i < 20 ? 0 : 15.0 * t);
			r[i] = (struct ranked){ all[i], i >= 20 };
		}
		qsort(r, 40, sizeof(r[0]), cmp_ranked);
		for (i = 0; i < 40; i++) {
			rank2[i] = 2 * (i + 1);
			w2 += r[i].side == 0 ? rank2[i] : 0;
		}
		exact = exact_p(rank2, 40, 20, w2);
		z = (fabs(w2 / 2.0 - 210 - mu) - 0.5) / sqrt(20.0 * 20 / 12 * 41);
		approx = erfc(z / sqrt(2));
		CHECK(NEAR(exact, fmin(1, approx), 0.01), "20 + 20, shift %d: exact %g normal %g",
		      15 * t, exact, approx);
		CHECK(NEAR(perf_stats_mwu(all, 20, all + 20, 20, NULL), exact, 1e-12),
		      "40 values are counted exactly");
	}
	/* above the exact limit: the normal approximation, apart -> tiny, shuffled -> large */
	for (int i = 0; i < 20; i++) {
		x[i] = i;
		y[i] = 100 + i;
	}
	p = perf_stats_mwu(x, 20, y, 20, NULL);
	CHECK(p < 1e-6, "20 + 20 apart: p %g", p);
	{
		double big_x[30], big_y[30];

		for (int i = 0; i < 30; i++) {
			big_x[i] = 2 * i;
			big_y[i] = 2 * i + 1;
		}
		p = perf_stats_mwu(big_x, 30, big_y, 30, &u);
		CHECK(p > 0.5 && u == 435, "30 + 30 interleaved: U %g p %g", u, p);
	}
}

int main(void)
{
	test_summary_values();
	test_mwu();
	return test_summary("test_perf_stats");
}

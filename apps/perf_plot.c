/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma-perf --plot through gnuplot (perf_plot.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_plot.h"

const char *perf_plot_terminal(const char *file)
{
	size_t n = strlen(file);

	if (n > 4 && strcmp(file + n - 4, ".png") == 0)
		return "pngcairo size 1000,600";
	if (n > 4 && strcmp(file + n - 4, ".svg") == 0)
		return "svg size 1000,600 dynamic";
	return NULL;
}

bool perf_plot_have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char dir[PATH_MAX], exe[PATH_MAX + 16];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(dir, sizeof(dir), "%.*s", (int)n, path);
		snprintf(exe, sizeof(exe), "%s/gnuplot", n ? dir : ".");
		if (access(exe, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

/* A gnuplot string in single quotes: '' stands for a quote. */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* The result's distribution as a data block: 1/(1-p), microseconds; p = 1 left out. */
static int gp_data(FILE *f, const char *name, const struct perf_json *j)
{
	char path[PERF_JSON_PATH];
	unsigned int i, n = 0;
	double p, v;

	fprintf(f, "$%s << EOD\n", name);
	for (i = 0;; i++) {
		snprintf(path, sizeof(path), "latency_distribution.percentile.%u", i);
		if (!perf_json_num(j, path, &p))
			break;
		snprintf(path, sizeof(path), "latency_distribution.value_ns.%u", i);
		if (!perf_json_num(j, path, &v))
			break;
		if (p >= 1)
			continue;
		fprintf(f, "%.6g %.6g\n", 1 / (1 - p), v / 1e3);
		n++;
	}
	fprintf(f, "EOD\n");
	return n ? 0 : -ENODATA;
}

int perf_plot(const char *file, const char *title, const struct perf_json *cur,
	      const char *cur_name, const struct perf_json *old, const char *old_name)
{
	struct stat st;
	FILE *gp;
	int ret;

	gp = popen("gnuplot", "w");
	if (gp == NULL)
		return -errno;
	fprintf(gp, "set terminal %s\nset output ", perf_plot_terminal(file));
	gp_str(gp, file);
	fprintf(gp, "\nset title ");
	gp_str(gp, title);
	fprintf(gp, " noenhanced\n"
		    "set logscale xy\nset grid\nset key top left noenhanced\n"
		    "set xlabel 'percentile'\nset ylabel 'latency (us)'\n"
		    /* tic labels are formats: %% is a percent sign */
		    "set xtics ('0%%%%' 1, '90%%%%' 10, '99%%%%' 100, '99.9%%%%' 1000, "
		    "'99.99%%%%' 10000, '99.999%%%%' 100000, '99.9999%%%%' 1000000)\n");
	ret = gp_data(gp, "new", cur);
	if (ret == 0 && old)
		ret = gp_data(gp, "old", old);
	if (ret == 0) {
		fprintf(gp, "plot $new using 1:2 with steps lw 2 title ");
		gp_str(gp, cur_name);
		if (old) {
			fprintf(gp, ", $old using 1:2 with steps lw 2 dt 2 title ");
			gp_str(gp, old_name);
		}
		fprintf(gp, "\n");
	}
	if (pclose(gp) != 0 && ret == 0)
		ret = -EIO;
	if (ret == 0 && (stat(file, &st) != 0 || st.st_size == 0))
		ret = -EIO;
	return ret;
}

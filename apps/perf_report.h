/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * What rpcrdma-perf reports: the result of a run (every repetition, the
 * histogram of all of them, the set-up it ran in), written as the JSON of
 * scripts/perf_schema.json, and the summary table, printed from a result
 * read back from that JSON, so that a run, --summary and --compare read
 * every result alike.
 */
#ifndef PERF_REPORT_H
#define PERF_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rpcrdma/rpcrdma_xprt.h>

#include "perf_hist.h"
#include "perf_json.h"

#define PERF_SCHEMA	1   /**< schema_version of the JSON result */
#define PERF_REPEAT_MAX 100 /**< --repeat: repetitions of one run */
#define PERF_WARN_MAX	8
#define PERF_WARN_LEN	192
#define PERF_TICKS_MAX	512 /**< lines of the percentile distribution kept in the JSON */
#define PERF_HDR_TICKS	5   /**< HdrHistogram's percentile ticks per half distance */
/**
 * No reply for this long is a stall: the client's or the server's poller
 * off its CPU (a busy-polling loop replies every few microseconds, a 1 MiB
 * call in a few hundred). The share of a window in stalls measures how much
 * the machine's other work took from the run.
 */
#define PERF_STALL_NS 1000000

enum perf_mode {
	MODE_LAT,
	MODE_IOPS,
	MODE_BW
};
enum perf_op {
	OP_NULL,
	OP_READ,
	OP_WRITE,
	OP_GETATTR, /**< NFSv3 only */
	OP_READDIR, /**< NFSv3 only: READDIRPLUS */
	PERF_OP_N
};
/** read and write carry --size bytes; the other ops none. */
static inline bool perf_op_has_payload(enum perf_op op)
{
	return op == OP_READ || op == OP_WRITE;
}

enum perf_role {
	ROLE_BOTH,
	ROLE_SERVER,
	ROLE_CLIENT
};

extern const char *const perf_mode_names[3];
extern const char *const perf_op_names[PERF_OP_N];
extern const char *const perf_role_names[3];

/** The latency figures of a window, in nanoseconds, in the table's order. */
enum perf_lat {
	LAT_MIN,
	LAT_MEAN,
	LAT_STDEV,
	LAT_P50,
	LAT_P90,
	LAT_P99,
	LAT_P999,
	LAT_MAX,
	LAT_N
};

/** The JSON keys of enum perf_lat under latency_ns. */
extern const char *const perf_lat_keys[LAT_N];

/** One repetition: a window of measured calls with its own histogram. */
struct perf_rep {
	uint64_t calls;
	double seconds, calls_per_sec, bytes_per_sec;
	double lat[LAT_N];
	double stalled_pct; /**< of the window, in gaps of over PERF_STALL_NS between replies */
};

/** One connection's measured calls (--connections): in the JSON when there are several. */
struct perf_conn_res {
	uint64_t calls;
	uint64_t p50, p99, max; /**< latency, ns */
};

struct perf_result {
	enum perf_mode mode;
	enum perf_op op;
	const char *program; /**< the RPC program called: "test", "nfs3" */
	const char *pmd;
	enum perf_role role;
	uint32_t version, size, depth;
	uint64_t errors;
	struct rpcrdma_xprt_stats xst;
	bool hugepages;
	bool capture;
	bool interrupted;    /**< SIGINT or SIGTERM ended the run early */
	char lcores[128];    /**< "lcore@cpus,...": where the EAL ran */
	uint64_t tsc_hz;     /**< the clock latencies are measured with */
	unsigned int repeat; /**< repetitions asked (--repeat) */
	unsigned int nrep;   /**< repetitions measured (fewer when interrupted) */
	struct perf_rep rep[PERF_REPEAT_MAX];
	struct perf_hist all; /**< every repetition's calls */
	unsigned int nwarn;
	char warn[PERF_WARN_MAX][PERF_WARN_LEN]; /**< short runs, tiny counts */
	uint32_t nconns;			 /**< --connections */
	struct perf_conn_res *conns;		 /**< each connection's figures, nconns of them */
};

/** Figures of one repetition from its histogram and window (seconds). */
void perf_rep_fill(struct perf_rep *rep, const struct perf_hist *h, double seconds, double stalled,
		   uint32_t size);

/** Add a warning to the result (printed on stderr, kept in the JSON). */
void perf_result_warn(struct perf_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * Write the result as JSON. @p compare_json, when not NULL, writes the
 * members of the "compare" object (--compare's judgement) at the end.
 *
 * @return 0, or -EIO when the stream has an error.
 */
int perf_report_json(FILE *f, const struct perf_result *r,
		     void (*compare_json)(FILE *f, const void *arg), const void *arg);

/**
 * Read a result file and check it has what the table and --compare read.
 * Prints one line on stderr when not, after @p opt (an option name) when
 * not NULL.
 *
 * @return 0; -errno of the read; -EINVAL: not JSON, or not a result of
 *   rpcrdma-perf of this schema.
 */
int perf_report_load(struct perf_json *j, const char *file, const char *opt);

/** The same for a result in memory; @p name names it in messages. */
int perf_report_parse(struct perf_json *j, const char *text, size_t len, const char *name);

/** The table's header. */
void perf_report_table_header(FILE *out);

/**
 * A result's rows: all its calls, then with repetitions their median, min,
 * max and standard deviation, then a line when it was interrupted.
 */
void perf_report_table_rows(FILE *out, const struct perf_json *j);

/** A number of the JSON, 0 when absent. */
double perf_report_num(const struct perf_json *j, const char *path);

/** A boolean of the JSON, false when absent. */
bool perf_report_bool(const struct perf_json *j, const char *path);

/** Repetitions in the result (1 without a "repeat" section). */
unsigned int perf_report_nrep(const struct perf_json *j);

/**
 * Figure @p key ("calls_per_sec", "latency_ns.p50", ...) of each
 * repetition, into @p v (PERF_REPEAT_MAX). Without a "repeat" section, the
 * figure of the whole run. Latencies leave out repetitions without a call.
 * @return how many.
 */
unsigned int perf_report_values(const struct perf_json *j, const char *key, double *v);

#endif /* PERF_REPORT_H */

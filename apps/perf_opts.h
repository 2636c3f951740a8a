/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rpcrdma-perf's command line: the options of a run (or of --compare
 * --input, --summary), their help text, and their parsing, with every
 * combination that cannot run refused in one line before anything starts.
 */
#ifndef PERF_OPTS_H
#define PERF_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "app_common.h"
#include "perf_prog.h"
#include "perf_report.h"

#define PERF_SIZE_MAX  (1u << 20) /**< the engine's largest chunk segment */
#define PERF_DEPTH_MAX 256u
#define PERF_CONN_MAX  1024u /**< --connections, --max-connections */
#define PERF_SRV_CONNS 64u   /**< --max-connections by default */

/** --program: the RPC program called. */
enum perf_program {
	PERF_PROGRAM_TEST, /**< this tool's own, served in this process or by --server */
	PERF_PROGRAM_NFS3  /**< NFSv3, against any NFS/RDMA server */
};

struct perf_opts {
	enum perf_program program;    /* --program */
	const struct perf_prog *prog; /* its calls: set by rpcrdma-perf.c after parsing */
	struct perf_prog_opts popts;  /* --export, --dir, --mount-port */
	bool verify;
	enum perf_mode mode;
	enum perf_op op;
	enum perf_role role;
	uint32_t size;
	uint32_t depth;
	uint32_t version;
	uint32_t inline_size; /* the client's inline thresholds; 0: the version's default */
	struct app_opts com;  /* --pmd, --devargs, --lcores, EAL arguments */
	const char *addr;
	double duration; /* seconds; 0 with --count */
	uint64_t count;	 /* calls; 0 with --duration */
	uint64_t warmup;
	uint32_t timeout;   /* seconds: connect, reply watchdog, close */
	uint32_t reconnect; /* --reconnect N: the client's params.reconnect_max */
	const char *json;
	const char *compare;
	const char *input;
	const char *capture;
	const char *hist; /* --hist FILE: HdrHistogram text, or CSV of buckets (.csv) */
	const char *plot; /* --plot FILE.png|.svg */
	uint32_t repeat;
	double threshold;
	double alpha;
	bool quiet;
	bool summary;
	bool op_set, size_set, depth_set;
	int nfiles;
	char **files;
	uint32_t connections; /* --connections: the client's connections (default 1) */
	bool per_connection;  /* --per-connection: a line per connection */
	uint32_t max_conns;   /* --max-connections: the server's connections at once */
	uint32_t clients;     /* --clients: the server exits once this many have left; 0 never */
	uint32_t pollers;     /* --pollers: the server's poller lcores (1: the main lcore) */
};

/**
 * Parse and check the command line.
 *
 * @return 0: run; -1: --help or --tool-version printed; else the exit
 *   status of a usage error, its line printed.
 */
int perf_opts_parse(struct perf_opts *o, int argc, char **argv);

#endif /* PERF_OPTS_H */

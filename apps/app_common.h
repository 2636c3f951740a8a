/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every rpcrdma command-line program does the same way: split its
 * arguments at "--" (what follows goes to the EAL), parse numbers with
 * k/m/g suffixes, report a bad option in one line and exit 2, start the
 * EAL, and open a device with its protection domain and registered pools.
 * Internal to apps/ (not installed).
 */
#ifndef APP_COMMON_H
#define APP_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_xprt.h>

#define APP_EXIT_FAIL  1 /* the run failed */
#define APP_EXIT_USAGE 2 /* bad options or arguments */

/* A program's name, set by app_init() and used as the prefix of every message. */
extern const char *app_name;

/* Set the program name for messages. */
void app_init(const char *name);

/*
 * Print "NAME: MESSAGE (NAME --help for more)" as one line on stderr.
 * @return APP_EXIT_USAGE.
 */
int app_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Find "--" in argv: *argc_opts is the number of arguments before it (what
 * getopt is to see), *eal_argc and *eal_argv what follows it (0 and NULL
 * without one).
 */
void app_split_eal(int argc, char **argv, int *argc_opts, int *eal_argc, char ***eal_argv);

/*
 * An unsigned integer in [lo, hi], with an optional k, m or g suffix
 * (times 2^10, 2^20, 2^30) when @p suffix.
 * @return 0, or APP_EXIT_USAGE after a one-line error naming @p opt.
 */
int app_parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi, bool suffix,
		  uint64_t *out);

/*
 * Start the EAL: with @p eal_argc arguments after "--" exactly those,
 * otherwise rpcrdma_mempool_eal_init()'s defaults (--in-memory or
 * --no-huge, --no-pci, --no-telemetry) on the lcores @p lcores (an EAL -l
 * list, or an EAL --lcores map such as "(0-3)@(0,1)"; NULL: the first two
 * CPUs this process may run on).
 * @return 0, or a negative errno after a message.
 */
int app_eal_start(const char *argv0, const char *lcores, int eal_argc, char **eal_argv);

/*
 * The first or the last CPU this process may run on, as an EAL -l list in
 * @p buf: a client and a server started on one host then do not busy-poll
 * the same core by default (a server takes the last).
 * @return buf, or NULL when the affinity cannot be read.
 */
const char *app_one_cpu(bool last, char *buf, size_t len);

/* One side of a connection: a device, its protection domain, its registered pools. */
struct app_ep {
	struct rpcrdma_pmd_dev *dev;
	struct rpcrdma_pmd_pd *pd;
	struct rpcrdma_mempool_set *pools;
};

/*
 * Open the device of PMD @p pmd with @p devargs (may be NULL), a PD, and
 * the pool set @p sp registered with it (on 4 KiB pages when hugepages run
 * short).
 * @return 0, or a negative errno after a message; app_ep_close() cleans up
 *   in both cases.
 */
int app_ep_open(struct app_ep *ep, const char *pmd, const char *devargs,
		struct rpcrdma_mempool_set_params *sp);

/* Free what app_ep_open() made; warns when pool buffers are still out. */
void app_ep_close(struct app_ep *ep);

#endif /* APP_COMMON_H */

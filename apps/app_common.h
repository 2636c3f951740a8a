/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every rpcrdma command-line program does the same way: split its
 * arguments at "--" (what follows goes to the EAL), parse numbers with
 * k/m/g suffixes, report a bad option in one line (or with a usage
 * summary) and exit 2, take the options the block store apps and
 * rpcrdma-perf share (--pmd, --devargs, --lcores, --help), start the EAL,
 * open a device with its protection domain and registered pools, and make
 * the registry that serves an RPC program.
 * Internal to apps/ (not installed).
 */
#ifndef APP_COMMON_H
#define APP_COMMON_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_svc.h>
#include <rpcrdma/rpcrdma_xprt.h>

#define APP_EXIT_FAIL  1  /* the run failed */
#define APP_EXIT_USAGE 2  /* bad options or arguments */
#define APP_PEER_LEN   64 /* a client for a log line: rpcrdma_pmd_peer_str() */

/* A program's name, set by app_init() and used as the prefix of every message. */
extern const char *app_name;

/* Set the program name for messages. */
void app_init(const char *name);

/*
 * Print "NAME: MESSAGE (NAME --help for more)" as one line on stderr, or
 * "NAME: MESSAGE" and the lines given to app_usage_lines().
 * @return APP_EXIT_USAGE.
 */
int app_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Make app_usage_error() end its message with a newline and @p usage (a
 * usage summary of whole lines) instead of " (NAME --help for more)":
 * rpcrdma-perf's format, which its tests and users' scripts read. NULL:
 * the one-line format again.
 */
void app_usage_lines(const char *usage);

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
 * An ADDRESS option's value (--connect, --listen): the PMD parses it, so
 * only the empty string is refused here.
 * @return 0 and *out = @p s, or APP_EXIT_USAGE after a one-line error naming @p opt.
 */
int app_parse_address(const char *opt, const char *s, const char **out);

/*
 * The options of a program that parses with app_opts_*() (the block store
 * apps, rpcrdma-perf) besides its own: where it runs, and --help. Their
 * getopt_long() values come first, above any short option's character;
 * the program's own options number from APP_O_NEXT.
 */
enum {
	APP_O_PMD = 256,
	APP_O_DEVARGS,
	APP_O_LCORES,
	APP_O_HELP,
	APP_O_LOG_LEVEL,
	APP_O_NEXT,
};

/*
 * Their getopt_long() entries: the first of a program's long_opts[], at
 * indexes 0-4 (its own options follow them, then the { NULL } end).
 */
#define APP_LONG_OPTS                                                \
	[0] = { "pmd", required_argument, NULL, APP_O_PMD },         \
	[1] = { "devargs", required_argument, NULL, APP_O_DEVARGS }, \
	[2] = { "lcores", required_argument, NULL, APP_O_LCORES },   \
	[3] = { "help", no_argument, NULL, APP_O_HELP },             \
	[4] = { "log-level", required_argument, NULL, APP_O_LOG_LEVEL }

/*
 * The last entries of OPTIONS in such a program's --help. The texts of
 * --pmd, --devargs and --lcores stay the program's: each names its own
 * defaults.
 */
#define APP_HELP_LOG_LEVEL                                                               \
	"    --log-level TYPE:LEVEL\n"                                                   \
	"        The level of the log types matching TYPE (a glob: rpcrdma.pmd,\n"       \
	"        rpcrdma.*, lib.eal), one of emerg alert crit err warning notice info\n" \
	"        debug or 1-8; repeatable. rpcrdma.pmd:info shows what the device\n"     \
	"        chose (send path, inline size) and each connection's set-up.\n"
#define APP_HELP_TAIL          \
	APP_HELP_LOG_LEVEL     \
	"    -h, --help\n"     \
	"        This text.\n" \
	"    -- EAL ARGS\n"    \
	"        Arguments for rte_eal_init(), replacing the defaults.\n"

/* What those options and the arguments after "--" say. */
struct app_opts {
	const char *pmd;     /* --pmd: "shm" (the default) or "verbs" */
	const char *devargs; /* --devargs, or NULL */
	const char *lcores;  /* --lcores, or NULL: the program picks */
	int eal_argc;	     /* after "--": rte_eal_init()'s (app_eal_start()) */
	char **eal_argv;
};

/*
 * Set @p o to the defaults and its EAL arguments from @p argv (app_split_eal()),
 * and rewind getopt_long() with its own messages off: app_opts_common()
 * reports errors in the one-line format of app_usage_error().
 * @return how many arguments getopt_long() is to see (those before "--").
 */
int app_opts_init(struct app_opts *o, int argc, char **argv);

/*
 * Take @p c, a getopt_long() result that is none of the program's own
 * options: --pmd, --devargs, --lcores, -h or --help (prints @p help on
 * stdout; "h" in the program's getopt_long() option string),
 * ':' (an option without its value) or anything else (an unknown option).
 * @return 0, -1 after --help (the program exits 0), or APP_EXIT_USAGE after
 *   a one-line error.
 */
int app_opts_common(struct app_opts *o, int c, char **argv, const char *help);

/*
 * Once getopt_long() has returned -1: the programs take no operands, so an
 * argument left before "--" is an error.
 * @return 0, or APP_EXIT_USAGE after a one-line error.
 */
int app_opts_end(int nopts, char **argv);

/*
 * Start the EAL: with @p eal_argc arguments after "--" exactly those,
 * otherwise rpcrdma_mempool_eal_init()'s defaults (--in-memory or
 * --no-huge, --no-pci, --no-telemetry) on the lcores @p lcores (an EAL -l
 * list, or an EAL --lcores map such as "(0-3)@(0,1)"; NULL: the first two
 * CPUs this process may run on). The EAL's own output (its usage text on
 * a bad argument) is held back: a failure is one line.
 * @return 0, or after that line APP_EXIT_USAGE (the arguments: EINVAL) or
 *   APP_EXIT_FAIL.
 */
int app_eal_start(const char *argv0, const char *lcores, int eal_argc, char **eal_argv);

/*
 * The first or the last CPU this process may run on, as an EAL -l list in
 * @p buf: a client and a server started on one host then do not busy-poll
 * the same core by default (a server takes the last).
 * @return buf, or NULL when the affinity cannot be read.
 */
const char *app_one_cpu(bool last, char *buf, size_t len);

/*
 * EAL lcores 0..@lcores floating over every CPU this process may run on
 * ("(0-2)@(0,1)"), in @buf; NULL if they do not fit.
 */
const char *app_all_cpus(uint32_t lcores, char *buf, size_t len);

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

/*
 * A dispatcher registry serving the one program @p prog, with @p nb_slots
 * counter slots (one for each lcore that dispatches calls) and service
 * times on the TSC (the EAL must be running), in telemetry
 * (/rpcrdma/programs, /rpcrdma/program,<prog>; a warning when it cannot
 * be).
 * @return 0, or a negative errno (rpcrdma_svc_registry_create(),
 *   rpcrdma_svc_register()); *reg, NULL when none was made, is the
 *   caller's to free with app_svc_registry_free() in both cases.
 */
int app_svc_registry(const struct rpcrdma_svc_program *prog, uint32_t nb_slots,
		     struct rpcrdma_svc_registry **reg);

/* Take a registry out of telemetry and free it (NULL is ignored). */
void app_svc_registry_free(struct rpcrdma_svc_registry *reg);

/**
 * On stderr, when @p xprt tried to reconnect by itself: how often it made
 * the connection again, in how many attempts, and the calls it sent again.
 */
void app_xprt_reconnects(const struct rpcrdma_xprt *xprt);
/* The same for @p nconns connections whose counters @p st sums. */
void app_reconnects(const struct rpcrdma_xprt_stats *st, uint32_t nconns);

/*
 * A poll group for up to @p conns connections of @p ep (rpcrdma_xprt.h
 * "Poll groups"): one CQ and one SRQ of @p recvs receives shared by all of
 * them beyond one each, and @p calls call slots its clients share (0:
 * each client keeps its own). @return 0 and *grp, or a negative errno
 * after a message (-E2BIG: more than the device's CQ or SRQ can hold).
 */
int app_ep_group(const struct app_ep *ep, uint32_t conns, uint32_t recvs, uint32_t calls,
		 struct rpcrdma_xprt_group **grp);
/*
 * Inline buffers a poll group of app_ep_group() takes at most: its SRQ's
 * receives, its responder slots' header areas (two a buffer) and their
 * replies, its version 2 control slots (one a connection and 32, two a
 * buffer).
 */
uint32_t app_group_bufs(uint32_t conns, uint32_t recvs);
/*
 * The receives a server's poll group shares: @p share_min a connection of
 * the @p conns it may have, at least @p least (what a client alone may
 * use), at most 4096.
 */
uint32_t app_group_recvs(uint32_t conns, uint32_t share_min, uint32_t least);
/*
 * Destroy the connections left in @p slots (@p max of them, NULL: free),
 * then @p grp (NULL: none), with a warning for each that cannot go.
 */
void app_conns_destroy(struct rpcrdma_xprt **slots, uint32_t max, struct rpcrdma_xprt_group *grp);

/**
 * A server's connect request: accept it (rpcrdma_xprt_accept() with @p p)
 * into the first free one of the @p max slots at @p slots, or refuse it
 * with a reject and one line on stderr, prefixed with @p who: "N clients
 * connected (--max-connections MAX): one more refused" when no slot is
 * free (@p nconns are taken), "a client refused: cannot accept its
 * connection: ..." when the engine could not make it.
 * @return the slot, or -1: refused.
 */
int app_accept_slot(const char *who, struct rpcrdma_xprt **slots, uint32_t max, uint32_t nconns,
		    const struct rpcrdma_xprt_params *p, const struct rpcrdma_pmd_event *ev);

/** No poller to name in app_conn_arrived()'s line: the server polls on one lcore. */
#define APP_NO_POLLER UINT32_MAX

/**
 * A server's line for a connection that arrived, on @p out (flushed),
 * prefixed with @p who: "client N connected from PEER (M connected now)",
 * with "on poller K " before the count unless @p poller is APP_NO_POLLER.
 * N is @p no, the connection's number among those accepted; PEER names
 * @p x's client (rpcrdma_pmd_peer_str()); M is @p now.
 */
void app_conn_arrived(FILE *out, const char *who, uint64_t no, const struct rpcrdma_xprt *x,
		      uint32_t poller, uint32_t now);

/**
 * ... and for one that left: "client N left after C calls (M connected
 * now)", C being the calls it received.
 */
void app_conn_left(FILE *out, const char *who, uint64_t no, uint64_t calls, uint32_t now);

/**
 * What a server's connections cost in resident memory: the process's
 * resident set (/proc/self/statm) with its first connection and with the
 * most it has held at once, and the bytes its poll group's engine
 * accounts to them (rpcrdma_xprt_group_stats() conn_bytes) then. The
 * first connection's figure already holds what a group makes once (its
 * shared slots), so what grows from it is what each further connection
 * costs.
 */
struct app_conn_mem {
	uint64_t rss_first, rss_peak; /* bytes */
	uint64_t engine_peak;	      /* the group's conn_bytes at the peak */
	uint32_t first;		      /* connections open at rss_first; 0: not yet */
	uint32_t peak;		      /* connections at once, at most */
};

/** The process's resident set in bytes (/proc/self/statm), 0 if it says nothing. */
uint64_t app_rss_bytes(void);

/**
 * A connection arrived: @p now are open, in @p grp. Reads the resident
 * set only when @p now is a new peak (a file read: the control path).
 */
void app_conn_mem_arrived(struct app_conn_mem *m, uint32_t now,
			  const struct rpcrdma_xprt_group *grp);

/**
 * As app_conn_mem_arrived(), for a server of @p groups poll groups, each
 * polled by an lcore of its own (rpcrdma-perf --pollers), each making its
 * shared slots at its first connection: the baseline is the resident set
 * once every group has had a connection (@p ready of them have), then its
 * peaks. No engine bytes: the other groups are other lcores'. The caller
 * makes the calls one at a time (a lock).
 */
void app_conn_mem_arrived_groups(struct app_conn_mem *m, uint32_t now, uint32_t ready,
				 uint32_t groups);

/**
 * One line on @p out, prefixed with @p who, once more connections were
 * open at once than at the baseline: "resident memory 296.5 MiB with one
 * connection, 322.4 MiB with 1024 at once: 26.0 KiB per connection more
 * (13504 bytes each in the engine)"; with several groups "... with 2
 * connections (a first on each poller), ...". Nothing otherwise.
 */
void app_conn_mem_report(FILE *out, const char *who, const struct app_conn_mem *m);

/**
 * A duplicate request cache of @p entries replies of at most @p reply_max
 * bytes for @p reg's non-idempotent procedures (RPCRDMA_SVC_PROC_F_
 * NONIDEMPOTENT); none when entries is 0. Free it with
 * rpcrdma_svc_drc_free() after the registry.
 * @return 0 and *drc (NULL without one), or a negative errno, said on stderr.
 */
int app_svc_drc(struct rpcrdma_svc_registry *reg, uint32_t entries, uint32_t reply_max,
		struct rpcrdma_svc_drc **drc);

#endif /* APP_COMMON_H */

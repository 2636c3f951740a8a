/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Telemetry: rpcrdma's state through DPDK's rte_telemetry, readable with
 * DPDK's standard client (dpdk-telemetry.py) from a running process.
 *
 * Commands (all JSON dictionaries unless said otherwise):
 *
 *   /rpcrdma/lcores           per role lcore of every registered runtime:
 *                             role, iterations, busy_cycles, idle_cycles,
 *                             items, returned, inline_runs, ring_full,
 *                             msgs, placed (pollers); and tsc_hz
 *   /rpcrdma/pools            per registered pool: size, in_use, free,
 *                             high_water, mem_bytes, hugepages
 *   /rpcrdma/programs         the dispatcher's counters ("dispatch") and per
 *                             program number: name, low, high, calls,
 *                             prog_mismatch, proc_unavail, auth_tooweak,
 *                             time_ns, mean_ns, max_ns (of its procedures)
 *   /rpcrdma/program,<prog>   per procedure ("v<vers>_<proc>_<NAME>"):
 *                             calls, success, garbage_args, system_err, async,
 *                             time_ns, mean_ns, max_ns: service times of a
 *                             registry with a clock (rpcrdma_svc_params),
 *                             0 without
 *   /rpcrdma/conns            an array of connection ids (every provider)
 *   /rpcrdma/conn,<id>        what the connection's provider reports
 *                             (counters, credit state), and "provider"
 *
 * Objects are registered with the telemetry module and must be removed
 * before they are freed. Registration and the command callbacks (which run
 * on EAL's telemetry thread) share one mutex: the data path never takes it;
 * the callbacks read counters with relaxed loads.
 *
 * The connection engine reports its connections through a provider: a list
 * function and an info function that fills a small generic key/value set
 * (struct rpcrdma_telemetry_kv), so the engine does not depend on
 * rte_telemetry's types.
 *
 * The socket: EAL creates it at <runtime dir>/dpdk_telemetry.v2, where the
 * runtime dir is $RUNTIME_DIRECTORY/dpdk/<file-prefix> (else
 * /var/run/dpdk/<file-prefix> for root, $XDG_RUNTIME_DIR/dpdk/<prefix> or
 * /tmp/dpdk/<prefix> otherwise; the default prefix is "rte"). It exists with
 * --in-memory and with --no-huge, but not with --no-telemetry
 * (rpcrdma_mempool_eal_init() passes it only with RPCRDMA_TELEMETRY=0). The
 * commands are registered when the library is loaded, as DPDK's libraries
 * register theirs. A second process with the same prefix
 * gets dpdk_telemetry.v2:1 (dpdk-telemetry.py -i 1). Example:
 *   echo /rpcrdma/lcores | dpdk-telemetry.py -f <prefix>
 */
#ifndef RPCRDMA_TELEMETRY_H
#define RPCRDMA_TELEMETRY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rpcrdma_rt;
struct rpcrdma_svc_registry;
struct rpcrdma_mempool;

/** Registered objects of each kind. */
#define RPCRDMA_TELEMETRY_OBJS_MAX 32
/** Connection ids a /rpcrdma/conns reply lists. */
#define RPCRDMA_TELEMETRY_CONNS_MAX 512

/**
 * Register the /rpcrdma/ commands of this module (lcores, pools, conns) with
 * rte_telemetry. Done at load already; idempotent; may be called before or
 * after rte_eal_init().
 * @return 0, or rte_telemetry_register_cmd()'s negative errno.
 */
int rpcrdma_telemetry_init(void);

/**
 * Copy a name into a telemetry key (at most len - 1 characters): every
 * character other than a letter or a digit becomes '_'; "" becomes "_".
 */
void rpcrdma_telemetry_key(char *dst, size_t len, const char *src);

/**
 * A command's parameter as a number that fills the whole string (strtoull
 * base 0: decimal, 0x hexadecimal, 0 octal). @return 0, or -EINVAL.
 */
int rpcrdma_telemetry_param_u64(const char *s, uint64_t *v);

/** A set of key/value pairs a provider fills (keys: letters, digits, '_'). */
struct rpcrdma_telemetry_kv;

/** Add a number. @return 0, -EINVAL (bad key), -ENOSPC (full). */
int rpcrdma_telemetry_kv_u64(struct rpcrdma_telemetry_kv *kv, const char *key, uint64_t v);
/** Add a string (at most 127 characters kept). @return as rpcrdma_telemetry_kv_u64(). */
int rpcrdma_telemetry_kv_str(struct rpcrdma_telemetry_kv *kv, const char *key, const char *v);

/** A source of connections (the engine). */
struct rpcrdma_telemetry_conn_provider {
	const char *name; /**< reported as "provider" */
	void *arg;
	/** Write at most max connection ids; return how many. */
	unsigned int (*list)(void *arg, uint64_t *ids, unsigned int max);
	/** Describe connection id. @return 0, or -ENOENT: not this provider's. */
	int (*info)(void *arg, uint64_t id, struct rpcrdma_telemetry_kv *kv);
};

/**
 * Register a provider (copied). Remove it before its arg goes away.
 * @return 0; -ENOSPC; -EINVAL (NULL functions).
 */
int rpcrdma_telemetry_conn_provider_add(const struct rpcrdma_telemetry_conn_provider *p);
/** @return 0, or -ENOENT: no provider with this name and arg. */
int rpcrdma_telemetry_conn_provider_del(const struct rpcrdma_telemetry_conn_provider *p);

/**
 * Register or remove a runtime, a pool, a dispatch registry.
 * @return add: 0, -ENOSPC (RPCRDMA_TELEMETRY_OBJS_MAX), -EEXIST;
 *   del: 0, -ENOENT.
 */
int rpcrdma_telemetry_rt_add(struct rpcrdma_rt *rt);
int rpcrdma_telemetry_rt_del(struct rpcrdma_rt *rt);
int rpcrdma_telemetry_pool_add(struct rpcrdma_mempool *pool);
int rpcrdma_telemetry_pool_del(struct rpcrdma_mempool *pool);
/* The dispatcher's (engine/svc/svc_telemetry.c): /rpcrdma/programs, /rpcrdma/program. */
int rpcrdma_telemetry_svc_add(struct rpcrdma_svc_registry *reg);
int rpcrdma_telemetry_svc_del(struct rpcrdma_svc_registry *reg);

/**
 * Register every pool of a pool set (the inline pool and each chunk class),
 * or none: 0, or the error of the pool that failed. _del removes them all.
 */
struct rpcrdma_mempool_set;
int rpcrdma_telemetry_pool_set_add(struct rpcrdma_mempool_set *set);
void rpcrdma_telemetry_pool_set_del(struct rpcrdma_mempool_set *set);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_TELEMETRY_H */

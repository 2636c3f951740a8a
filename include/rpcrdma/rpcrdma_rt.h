/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The lcore runtime: poller and worker lcores on the DPDK EAL.
 *
 * Roles are given in EAL's terms, as lcore ids or counts (see
 * rpcrdma_rt_roles_parse()). A poller lcore owns connections: it runs its
 * registered poll functions in a busy loop with no interrupts, each
 * returning the work it did (0: idle), and counts busy and idle TSC cycles
 * and iterations. Work that should not run on the poller is handed off as
 * items: rpcrdma_rt_queue() stages an item, the poller's loop flushes the
 * staged items once per iteration with one rte_ring burst to a worker (the
 * one with the fewest of this poller's items in flight, so a worker stuck in
 * a long handler is avoided), the worker dequeues up to
 * RPCRDMA_RT_BURST items at a time, runs item->run, and enqueues the items
 * to a return ring to their owning poller, whose loop calls item->done
 * (which sends the reply). With no workers, rpcrdma_rt_queue() runs run and
 * done at once on the poller (run to completion).
 *
 * Each poller-worker pair has its own two single-producer single-consumer
 * rings, so the data path takes no lock and no atomic read-modify-write.
 *
 * An item is a small struct embedded in the caller's request (reach the
 * request with container_of): the responder's glue (rpcrdma_xprt_svc.h)
 * queues the one in each call's struct rpcrdma_svc_req to run
 * rpcrdma_svc_dispatch() on a worker and send the reply on the poller.
 *
 * Messages and placement (SPDK's spdk_thread_send_msg and poll-group
 * placement): any thread can have a function run on a poller's lcore, in its
 * loop, with rpcrdma_rt_poller_send() (one multi-producer ring of (fn, arg)
 * per poller, no allocation). A server with several pollers accepts on the
 * lcore that polls its listener, picks a poller for each new connection with
 * rpcrdma_rt_place() (the fewest connections placed, ties round robin), and
 * sends that poller a message that takes the connection into its own poll
 * group; rpcrdma_rt_unplace() when the connection goes.
 *
 * Start and stop: rpcrdma_rt_start() launches every role lcore with
 * rte_eal_remote_launch(); rpcrdma_rt_stop() sets the stop flag, lets each
 * poller finish its items in flight (rpcrdma_rt_queue() then refuses new
 * ones) and run the messages left in its ring, waits for the pollers, then
 * the workers (rte_eal_wait_lcore()).
 */
#ifndef RPCRDMA_RT_H
#define RPCRDMA_RT_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Items per ring burst, staging area and worker dequeue. */
#define RPCRDMA_RT_BURST 32
/** Pollers and workers of a runtime. */
#define RPCRDMA_RT_POLLERS_MAX 16
#define RPCRDMA_RT_WORKERS_MAX 16
/** Poll functions per poller. */
#define RPCRDMA_RT_POLLS_MAX 64
/** item->worker of an item run on its poller. */
#define RPCRDMA_RT_INLINE 0xffff

struct rpcrdma_rt;
struct rpcrdma_rt_poller;
struct rpcrdma_rt_item;

/** A poll function: returns the work it did (0: idle). */
typedef int (*rpcrdma_rt_poll_t)(void *arg);

/** A message to a poller: runs fn(arg) on the poller's lcore, in its loop. */
typedef void (*rpcrdma_rt_msg_fn_t)(void *arg);

/** What an item does on a worker (run) and back on its poller (done). */
typedef void (*rpcrdma_rt_item_fn_t)(struct rpcrdma_rt_item *item);

/**
 * A runtime's burst handlers (rpcrdma_rt_params): called once per burst
 * instead of item->run / item->done once per item, with the items of one
 * ring burst (1..RPCRDMA_RT_BURST) in order. arg is params.burst_arg.
 */
typedef void (*rpcrdma_rt_burst_fn_t)(struct rpcrdma_rt_item **items, unsigned int n, void *arg);

/**
 * A unit of handoff. The caller sets run and done (unless the runtime has
 * burst handlers); the runtime the rest.
 */
struct rpcrdma_rt_item {
	rpcrdma_rt_item_fn_t run;  /**< on a worker, or on the poller with no workers */
	rpcrdma_rt_item_fn_t done; /**< on the owning poller, after run */
	uint16_t poller;	   /**< the owning poller's index */
	uint16_t worker;	   /**< the worker that ran it, or RPCRDMA_RT_INLINE */
	uint32_t reserved;
};

/** Lcore roles; rpcrdma_rt_roles_parse() fills it. */
struct rpcrdma_rt_roles {
	/** Counts: lcores taken in order from EAL's worker lcores, pollers first. */
	uint16_t nb_pollers, nb_workers;
	/** Explicit lcore ids, when pollers_explicit / workers_explicit. */
	bool pollers_explicit, workers_explicit;
	uint16_t pollers[RPCRDMA_RT_POLLERS_MAX];
	uint16_t workers[RPCRDMA_RT_WORKERS_MAX];
	/** Neither role given: pollers on every EAL worker lcore, no workers. */
	bool pollers_default;
};

/**
 * Parse a roles string: comma-separated "pollers=X" and "workers=X", where X
 * is a count ("pollers=1,workers=2") or a list of lcore ids in parentheses,
 * with ranges as in EAL's --lcores ("pollers=(1,3-4),workers=(2)"). NULL or
 * "" means the default: pollers on every EAL worker lcore, no workers.
 * "workers=0" gives run-to-completion. Pure: no EAL needed.
 *
 * @return 0, or -EINVAL (syntax, an unknown key, a key twice, an lcore id
 *   at or above 1024, an id twice), -E2BIG (over RPCRDMA_RT_POLLERS_MAX or
 *   RPCRDMA_RT_WORKERS_MAX).
 */
int rpcrdma_rt_roles_parse(const char *spec, struct rpcrdma_rt_roles *roles);

/** Runtime parameters; initialise with rpcrdma_rt_params_init(). */
struct rpcrdma_rt_params {
	const char *name;   /**< for ring names, at most 8 characters (default "rt") */
	const char *roles;  /**< as rpcrdma_rt_roles_parse() (default NULL) */
	uint32_t ring_size; /**< entries of each ring, a power of 2 (default 1024) */
	/**
	 * Burst handlers (default NULL: item->run and item->done per item).
	 * When set, run_burst runs every burst on its worker (or on the poller
	 * with no workers) and done_burst every returned burst on the poller:
	 * one indirect call per burst, and the handler can batch its own work
	 * (one doorbell for the replies of a burst). Set both or neither.
	 * With them the runtime writes no item field (item->poller and
	 * item->worker are left alone, run and done unused): the data path
	 * touches the item pointers only, as a plain rte_ring does; a handler
	 * knows its lcore from rte_lcore_id().
	 */
	rpcrdma_rt_burst_fn_t run_burst;
	rpcrdma_rt_burst_fn_t done_burst;
	void *burst_arg;
};

void rpcrdma_rt_params_init(struct rpcrdma_rt_params *p);

/**
 * Create a runtime: resolve the roles against the EAL's lcores and create
 * the rings. Needs the EAL. Control path.
 *
 * @return 0 and *rt; -EINVAL: bad roles or parameters, or no poller;
 *   -ENODEV: an lcore that is not an enabled EAL worker lcore (the main
 *   lcore stays the control thread), used twice, or not enough worker
 *   lcores for the counts; -ENOMEM; -EEXIST: the ring names are in use
 *   (another runtime with this name). Nothing is left on error.
 */
int rpcrdma_rt_create(const struct rpcrdma_rt_params *p, struct rpcrdma_rt **rt);

/** Free a stopped runtime (NULL is ignored). */
void rpcrdma_rt_free(struct rpcrdma_rt *rt);

unsigned int rpcrdma_rt_nb_pollers(const struct rpcrdma_rt *rt);
unsigned int rpcrdma_rt_nb_workers(const struct rpcrdma_rt *rt);

/** The i-th poller (NULL past the end). */
struct rpcrdma_rt_poller *rpcrdma_rt_poller(struct rpcrdma_rt *rt, unsigned int i);

/** The EAL lcore id of a poller, or of worker i. */
unsigned int rpcrdma_rt_poller_lcore(const struct rpcrdma_rt_poller *p);
unsigned int rpcrdma_rt_worker_lcore(const struct rpcrdma_rt *rt, unsigned int i);

/** The index of a poller (0..nb_pollers-1). */
unsigned int rpcrdma_rt_poller_index(const struct rpcrdma_rt_poller *p);

/**
 * The poller of the calling lcore, or NULL when the caller is not one of
 * rt's pollers (the main lcore, a worker, a non-EAL thread). One table
 * lookup.
 */
struct rpcrdma_rt_poller *rpcrdma_rt_poller_self(struct rpcrdma_rt *rt);

/**
 * Send a message to poller @p p from any thread (another poller, a worker,
 * the main lcore). Each poller has one multi-producer single-consumer ring
 * of (fn, arg) elements (no allocation), of params.ring_size - 1 messages;
 * the poller runs up to RPCRDMA_RT_BURST messages per loop iteration, after
 * its poll functions, in the order each sender sent them. What the sender
 * wrote before the call is visible to fn (the ring's release and acquire).
 * Messages also run in rpcrdma_rt_poller_iterate(); a poller that is
 * stopping runs every message still in its ring before its lcore returns
 * (so a message sent before rpcrdma_rt_stop() is never lost). A message
 * sent while the runtime is stopped waits in the ring for the next start
 * or rpcrdma_rt_poller_iterate(); rpcrdma_rt_free() drops it unrun.
 *
 * @return 0; -ENOBUFS: the ring is full (nothing taken); -EINVAL: fn NULL
 *   (nothing taken).
 */
int rpcrdma_rt_poller_send(struct rpcrdma_rt_poller *p, rpcrdma_rt_msg_fn_t fn, void *arg);

/**
 * Placement (SPDK's poll-group placement): pick the poller for a new
 * connection — the one with the fewest connections placed; ties go round
 * robin (the first one after the last pick) — and count the connection on
 * it. Any thread (atomic counters: two threads placing at once never lose
 * a count, though both may pick the same poller).
 * @return the poller's index.
 */
unsigned int rpcrdma_rt_place(struct rpcrdma_rt *rt);

/** A connection placed on poller @p i left (from any thread). No-op at 0 or past the end. */
void rpcrdma_rt_unplace(struct rpcrdma_rt *rt, unsigned int i);

/** Connections placed on poller @p i now (0 past the end). */
unsigned int rpcrdma_rt_placed(const struct rpcrdma_rt *rt, unsigned int i);

/**
 * Add a poll function to a poller. Control path; also while the runtime
 * runs (one control thread at a time): the entry is written before the
 * count that publishes it (release), which the poller reads with acquire.
 *
 * @return 0, or -ENOSPC: RPCRDMA_RT_POLLS_MAX functions already.
 */
int rpcrdma_rt_poller_add(struct rpcrdma_rt_poller *p, rpcrdma_rt_poll_t fn, void *arg);

/**
 * Hand an item off, from the poller's own lcore (a poll function or a done
 * callback). With workers, the item is staged and sent at the end of the
 * iteration (or at once when RPCRDMA_RT_BURST are staged); without, run and
 * done (or the burst handlers, for this one item) are called before this
 * returns.
 *
 * @return 0, or (the item not taken):
 *   - -ENOBUFS: RPCRDMA_RT_BURST items staged and every worker's ring full;
 *   - -ESHUTDOWN: the runtime is stopping.
 */
int rpcrdma_rt_queue(struct rpcrdma_rt_poller *p, struct rpcrdma_rt_item *item);

/**
 * Hand off n items at once (as rpcrdma_rt_queue() each, one call). With
 * nothing staged, a full burst (n >= RPCRDMA_RT_BURST) goes to a worker's
 * ring at once, from @p items, without staging; with no workers the burst
 * handlers see up to RPCRDMA_RT_BURST items per call.
 * @return how many were taken (0..n; the first ones), or -ESHUTDOWN.
 */
int rpcrdma_rt_queue_burst(struct rpcrdma_rt_poller *p, struct rpcrdma_rt_item **items,
			   unsigned int n);

/** Send the staged items now. @return how many left the staging area. */
unsigned int rpcrdma_rt_flush(struct rpcrdma_rt_poller *p);

/**
 * One iteration of a poller's loop, or of worker i's loop, on the calling
 * thread: for tests and benchmarks that drive a runtime that is not
 * started. @return the work done (0: idle).
 */
int rpcrdma_rt_poller_iterate(struct rpcrdma_rt_poller *p);
int rpcrdma_rt_worker_iterate(struct rpcrdma_rt *rt, unsigned int i);

/**
 * Launch every role lcore.
 * @return 0; -EBUSY: an lcore is not idle (nothing launched... the ones
 *   launched before are stopped again); -EALREADY: started.
 */
int rpcrdma_rt_start(struct rpcrdma_rt *rt);

/**
 * Stop: pollers finish their items in flight and return, then workers.
 * Blocks until every role lcore has returned. @return 0, or -EALREADY:
 * not started.
 */
int rpcrdma_rt_stop(struct rpcrdma_rt *rt);

/** Roles. */
enum rpcrdma_rt_role {
	RPCRDMA_RT_ROLE_POLLER,
	RPCRDMA_RT_ROLE_WORKER,
};

/**
 * Per-lcore counters. Written by their lcore only; read with relaxed loads
 * (placed: the placement counter, rpcrdma_rt_place()).
 */
struct rpcrdma_rt_lcore_stats {
	uint32_t lcore;
	uint32_t role;	      /**< enum rpcrdma_rt_role */
	uint64_t iterations;  /**< loop iterations */
	uint64_t busy_cycles; /**< TSC cycles of iterations that did work */
	uint64_t idle_cycles; /**< TSC cycles of iterations that did none */
	uint64_t items;	      /**< poller: items handed to workers; worker: items run */
	uint64_t returned;    /**< poller: items back and done */
	uint64_t inline_runs; /**< poller: items run to completion (no workers) */
	uint64_t ring_full;   /**< poller: flushes that left items staged */
	uint64_t msgs;	      /**< poller: messages run */
	uint64_t placed;      /**< poller: connections placed on it now */
};

/**
 * Counters of lcore @p i: pollers first (0..nb_pollers-1), then workers.
 * @return 0, or -ENOENT past the end.
 */
int rpcrdma_rt_stats(const struct rpcrdma_rt *rt, unsigned int i,
		     struct rpcrdma_rt_lcore_stats *st);

/** The runtime's name. */
const char *rpcrdma_rt_name(const struct rpcrdma_rt *rt);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_RT_H */

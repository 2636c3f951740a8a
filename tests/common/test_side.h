/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * One end of an engine test or benchmark over a PMD: a device, its
 * protection domain and a registered pool set, opened and closed in the
 * one order that works (a device refuses to close while a PD, CQ or
 * listener of it is open: close those of your own first).
 *
 * The PMD is shm unless the program calls test_side_env(), which takes it
 * from the environment as the PMD conformance suite does:
 *
 *   RPCRDMA_TEST_PMD=shm|verbs          the PMD (default shm)
 *   RPCRDMA_TEST_VERBS_ADDR=IP[:PORT]   verbs: listen and connect there;
 *                                       IPv6 as [ADDR] or [ADDR]:PORT
 *   RPCRDMA_TEST_VERBS_DEVARGS=...      verbs: the device ("dev=rxe0,gid_index=1")
 *
 * On verbs, a program's listeners take ports PORT + 256 * slot and up (the
 * slot is test_side_env()'s, one per program and part), so that parts run
 * in parallel do not clash; PORT defaults to 20049, below the ephemeral
 * ports an iWARP connection binds.
 *
 * And, for the engine tests that run both ends of a connection in one
 * thread, the side as a whole (struct test_side: the above, a listener,
 * the connection and its parameters) with the loop they drive it by: take
 * the device's connection events, poll the connection, until a condition
 * holds or the time runs out.
 */
#ifndef RPCRDMA_TEST_SIDE_H
#define RPCRDMA_TEST_SIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_xprt.h>

/**
 * Choose the PMD from the environment (above) for every side opened after,
 * and probe it: open a device once and keep its dev_info. @p slot numbers
 * the program's range of ports on verbs (0..63).
 * @return 0: go on; 77: the PMD cannot run here (one line printed saying
 *   why: verbs without its variables, not built in, no device); 1: a
 *   malformed variable or a device that fails otherwise (said on stderr).
 */
int test_side_env(unsigned int slot);

/** The PMD the sides open ("shm" until test_side_env() chose another). */
const char *test_side_pmd(void);

/** Whether the sides open the shm PMD. */
bool test_side_shm(void);

/**
 * What the PMD's device can do, from test_side_env()'s probe (the shm
 * device's without it).
 */
const struct rpcrdma_pmd_dev_info *test_side_dev_info(void);

/**
 * A fresh address to listen on, into @p buf: "@rpcrdma-<tag>-<pid>-<n>" on
 * shm, the next port of the program's range on verbs ("192.0.2.1:20305",
 * cycling through 256).
 */
void test_side_addr(char *buf, size_t len, const char *tag);

/**
 * A case that runs only where @p ok holds (a fault only shm injects, a
 * flag of dev_info): when it does not, print "skip <name> (<why>)", count
 * the skip, and return false.
 */
bool test_side_case_runs(bool ok, const char *name, const char *why);

/** The cases skipped so far (test_side_case_runs()). */
unsigned int test_side_skips(void);

/**
 * Print "<name> (<pmd>): N checks, M failed[, K skipped]" and give the
 * exit status: 1 when a check failed, 77 when no check ran but cases were
 * skipped, else 0. The counts are test_check.h's (the benchmarks link
 * test_side without it).
 */
int test_side_summary(const char *name, unsigned long checks, unsigned long failures);

/** The pool set of a side (rpcrdma_mempool_set_params). */
struct test_side_pools {
	const char *name;      /**< unique among the pool sets alive in the process */
	uint32_t inline_count; /**< inline buffers */
	uint32_t chunks_64k;   /**< 64 KiB chunk buffers */
	uint32_t chunks_1m;    /**< 1 MiB chunk buffers */
	uint32_t cache_size;   /**< per-lcore cache; 0 keeps the counters exact at every check */
	bool no_hugepages;
};

/**
 * Open a device of the chosen PMD, a PD and the pool set. @p devargs are
 * the shm device's (NULL: none); on another PMD the environment's are used
 * and @p devargs must be NULL (a case that needs shm's is skipped before:
 * test_side_case_runs()).
 * @return 0, or a negative errno (-EINVAL: shm devargs on another PMD);
 *   test_side_close() frees what was made in both cases.
 */
int test_side_open(const char *devargs, const struct test_side_pools *p,
		   struct rpcrdma_pmd_dev **dev, struct rpcrdma_pmd_pd **pd,
		   struct rpcrdma_mempool_set **pools);

/**
 * Free the pool set, the PD and the device (each skipped when NULL) and
 * clear the pointers.
 * @return how many things were wrong: buffers not back in the pools, a
 *   device that refused to close.
 */
unsigned int test_side_close(struct rpcrdma_pmd_dev **dev, struct rpcrdma_pmd_pd **pd,
			     struct rpcrdma_mempool_set **pools);

/* ------------------------------------------------------------ a whole side */

/** One end of a connection in an engine test; all NULL (zeroed) until test_side_create(). */
struct test_side {
	struct rpcrdma_pmd_dev *dev;
	struct rpcrdma_pmd_pd *pd;
	struct rpcrdma_mempool_set *pools;
	struct rpcrdma_pmd_listener *listener; /**< a server's, when the test listens */
	struct rpcrdma_xprt *xprt;	       /**< created by the test, or accepted */
	struct rpcrdma_xprt_params params;     /**< what xprt is created or accepted with */
	/** a bare PMD endpoint in place of an xprt, for crafted messages (test_xprt) */
	struct rpcrdma_pmd_cq *cq;
	struct rpcrdma_pmd_qp *qp;
};

/**
 * How a server side takes a connect request: accept it into s->xprt with
 * s->params (test_side_accept()), or a test's own that checks the outcome
 * or first retires the connection before.
 * @return 0, or a negative errno; test_side_events() goes on either way
 *   (a test checks it here, or waits for the connection's state).
 */
typedef int (*test_side_accept_fn)(struct test_side *s, const struct rpcrdma_pmd_event *ev);

/**
 * Zero @p s, then test_side_open() its device, PD and pools: zeroed first
 * so that a side closed by test_side_destroy() opens again clean.
 * @return 0, or test_side_open()'s negative errno (test_side_destroy()
 *   frees what was made).
 */
int test_side_create(struct test_side *s, const char *devargs, const struct test_side_pools *p);

/**
 * test_side_create() on the PMD named @p pmd with @p devargs as they are,
 * whatever test_side_env() chose: a driver a test registered itself.
 */
int test_side_create_pmd(struct test_side *s, const char *pmd, const char *devargs,
			 const struct test_side_pools *p);

/**
 * Destroy the bare QP and CQ, close the listener, then test_side_close();
 * @p s is zeroed, so that a pump passes it by. The connection is the
 * test's to destroy first: how it goes is what a test checks.
 * @return test_side_close()'s count of what was wrong.
 */
unsigned int test_side_destroy(struct test_side *s);

/**
 * Start s->params for @p role over the side's device, PD and pools
 * (rpcrdma_xprt_params_init()); the test then sets what it is about.
 */
void test_side_params(struct test_side *s, enum rpcrdma_xprt_role role);

/** rpcrdma_xprt_accept() of @p ev into s->xprt with s->params (a test_side_accept_fn). */
int test_side_accept(struct test_side *s, const struct rpcrdma_pmd_event *ev);

/**
 * Take the connection events of the side's device, a few at a time: a
 * connect request goes to @p accept, every other event to the engine
 * (rpcrdma_xprt_event()). @p accept is NULL on a client, which has no
 * requests to take. A side not open (dev NULL) is passed by.
 * @return the events taken, or rpcrdma_pmd_event_poll()'s negative errno.
 */
int test_side_events(struct test_side *s, test_side_accept_fn accept);

/**
 * One turn of one end: its events (test_side_events()), then its
 * connection when it has one. For a test whose other end is polled by
 * hand (a bare endpoint), or on another lcore.
 * @return what rpcrdma_xprt_poll() did (0 without a connection).
 */
int test_side_poll(struct test_side *s, test_side_accept_fn accept);

/**
 * One turn of both ends of a connection in one thread: the client's and
 * the server's events, then the client's and the server's connection.
 * Always this order, so that every run of a test is the same.
 * @return what the two rpcrdma_xprt_poll() did.
 */
int test_side_pump_pair(struct test_side *cli, struct test_side *srv, test_side_accept_fn accept);

/**
 * Call @p pump until @p cond(@p arg) holds, for @p ms milliseconds at
 * most: a test's wait bounded so that a hang fails instead.
 * @return whether cond holds.
 */
bool test_side_until(void (*pump)(void), bool (*cond)(void *), void *arg, uint64_t ms);

/**
 * Whether the side's connection is in @p state; a side without one
 * counts as CLOSED (a server that has accepted nothing yet).
 */
bool test_side_in(const struct test_side *s, enum rpcrdma_xprt_state state);

#endif /* RPCRDMA_TEST_SIDE_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Registered buffer pools on hugepages, and the EAL start-up they need.
 *
 * A pool is a fixed number of equal buffers carved from one rte_memzone in a
 * private external malloc heap whose memory is a memfd (MFD_HUGETLB when
 * hugepages can be had, 4 KiB pages otherwise), so that the memory has a
 * file descriptor a PMD can pass to a peer process. The buffers are managed
 * by an rte_mempool with per-lcore caches, and the memzone is registered
 * with the PMD once: every buffer of a pool has the pool's lkey and rkey, so
 * the fast path never looks a key up.
 *
 * A pool set groups the pools an engine needs: one inline pool for Send and
 * Receive buffers (buffer size = the largest inline threshold, 4096 by
 * default) and chunk pools for payloads in size classes (64 KiB and 1 MiB
 * by default).
 *
 * Counters per pool: buffers in use, free, the high-water mark of in use, and
 * rpcrdma_mempool_check_all_back() which the tests use to find leaks. The
 * in-use counter costs one relaxed atomic add per get or put call.
 *
 * Threading: get and put are safe from any thread (per-lcore caches for EAL
 * lcores, the shared ring otherwise). Create and free are control path.
 */
#ifndef RPCRDMA_MEMPOOL_H
#define RPCRDMA_MEMPOOL_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#include <rpcrdma/rpcrdma_pmd.h>

/*
 * Under AddressSanitizer (scripts/sanitize.sh) a buffer in the pool is
 * poisoned from its put to its next get, so that a use after it went back
 * is reported: the pool's memory is not malloc's, and ASan would not see it
 * otherwise. The object headers before each buffer stay readable
 * (rpcrdma_mempool_from_buf()). Nothing in other builds.
 */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define RPCRDMA_MEMPOOL_POISON(p, n)   ASAN_POISON_MEMORY_REGION((p), (n))
#define RPCRDMA_MEMPOOL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define RPCRDMA_MEMPOOL_POISON(p, n)   ((void)(p), (void)(n))
#define RPCRDMA_MEMPOOL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Initialise the DPDK EAL once per process for rpcrdma programs and tests:
 * "--in-memory" with hugepages when at least 64 free 2 MiB pages exist and
 * RPCRDMA_NO_HUGE is not set in the environment, otherwise "--no-huge"
 * with a one-line warning on stderr; always "--no-pci", the lcores this
 * thread may run on (at most 2 unless @p lcores says otherwise) and EAL logs
 * at error level.
 *
 * Telemetry is on: the /rpcrdma/ commands are registered
 * (rpcrdma_telemetry_init()) and EAL opens its socket under the default
 * file prefix "rte" ($RUNTIME_DIRECTORY, else /var/run for root, else
 * $XDG_RUNTIME_DIR or /tmp, then /dpdk/rte/dpdk_telemetry.v2, or .v2:N when
 * N other processes hold it), so `dpdk-telemetry.py` reaches a running
 * process with no option. RPCRDMA_TELEMETRY=0 in the environment turns it
 * off ("--no-telemetry").
 *
 * @param prog    argv[0] for the EAL.
 * @param lcores  an EAL "-l" list of CPUs ("0-1"), an EAL "--lcores" map
 *                of lcores to CPUs when it has '@' or '(' ("(0-3)@(0,1)"),
 *                or NULL for the default.
 * @return 0 (also when already initialised by this function), -EALREADY if
 *   the EAL was initialised by someone else, or the EAL's negative errno.
 */
int rpcrdma_mempool_eal_init(const char *prog, const char *lcores);

/** True when the EAL runs on hugepages (after rpcrdma_mempool_eal_init()). */
bool rpcrdma_mempool_eal_hugepages(void);

/** True when the EAL has its telemetry socket (after rpcrdma_mempool_eal_init()). */
bool rpcrdma_mempool_eal_telemetry(void);

/** Pool parameters; initialise with rpcrdma_mempool_params_init(). */
struct rpcrdma_mempool_params {
	const char *name;    /**< unique per process, at most 20 characters */
	uint32_t buf_size;   /**< bytes per buffer (default 4096) */
	uint32_t count;	     /**< buffers (default 1024) */
	uint32_t cache_size; /**< per-lcore cache (default 32; 0: none) */
	uint32_t access;     /**< RPCRDMA_PMD_ACCESS_* for the MR (default all three) */
	bool no_hugepages;   /**< use 4 KiB pages even when hugepages exist */
};

/** Pool counters. */
struct rpcrdma_mempool_stats {
	uint32_t size;	     /**< buffers in the pool */
	uint32_t in_use;     /**< taken and not yet returned */
	uint32_t free;	     /**< in the ring and the lcore caches */
	uint32_t high_water; /**< most buffers ever in use at once */
	uint64_t mem_bytes;  /**< bytes of memory behind the pool */
	bool hugepages;	     /**< memory is on hugepages */
};

/**
 * A pool. The first cache line is what the inline fast-path functions read;
 * the rest belongs to mempool.c.
 */
struct rpcrdma_mempool {
	struct rte_mempool *mp;
	uint32_t lkey; /**< of every buffer; 0 when not registered */
	uint32_t rkey;
	uint32_t buf_size;
	uint32_t count;
	struct rpcrdma_pmd_mr *mr; /**< NULL when created without a PD */
	uint8_t pad0[32];
	/* second cache line: counters written by every get/put */
	uint32_t in_use __attribute__((aligned(64)));
	uint32_t high_water;
	uint8_t pad1[56];
	/* the rest is private to mempool.c */
	const struct rte_memzone *mz;
	void *mem;
	size_t mem_len;
	int memfd;
	bool hugepages;
	char name[32];
	char heap_name[40];
} __attribute__((aligned(64)));
static_assert(offsetof(struct rpcrdma_mempool, in_use) == 64, "pool fast path: one line");

/** Default parameters. */
void rpcrdma_mempool_params_init(struct rpcrdma_mempool_params *p);

/**
 * Create a pool and, when @p pd is not NULL, register its memory with it.
 * Needs the EAL (rpcrdma_mempool_eal_init()).
 *
 * @return 0 and *pool set; -EINVAL: bad parameters (zero size or count,
 *   name too long, cache larger than count / 1.5); -EEXIST: name in use;
 *   -ENOMEM: no memory or no free heap (at most about 30 pools per process);
 *   the PMD's error from registration. Nothing is left allocated on error.
 */
int rpcrdma_mempool_create(const struct rpcrdma_mempool_params *p, struct rpcrdma_pmd_pd *pd,
			   struct rpcrdma_mempool **pool);

/**
 * Free a pool: deregisters the MR, frees the mempool, the memzone and the
 * heap. Buffers still out are lost (call rpcrdma_mempool_check_all_back()
 * first to catch leaks).
 */
void rpcrdma_mempool_free(struct rpcrdma_mempool *pool);

/** Fill @p st. */
void rpcrdma_mempool_stats(const struct rpcrdma_mempool *pool, struct rpcrdma_mempool_stats *st);

/**
 * @return 0 when every buffer is back in the pool, or -EBUSY when some are
 *   still out (the count is in the stats).
 */
int rpcrdma_mempool_check_all_back(const struct rpcrdma_mempool *pool);

/** The file descriptor of the pool's memory and the offset of its memzone in it. */
int rpcrdma_mempool_fd(const struct rpcrdma_mempool *pool, uint64_t *offset);

/** True if @p buf lies in the memory of @p pool. */
bool rpcrdma_mempool_owns(const struct rpcrdma_mempool *pool, const void *buf);

static inline void rpcrdma_mempool_count_get(struct rpcrdma_mempool *pool, uint32_t n)
{
	uint32_t v = __atomic_add_fetch(&pool->in_use, n, __ATOMIC_RELAXED);
	uint32_t hw = __atomic_load_n(&pool->high_water, __ATOMIC_RELAXED);

	/* rare: only when a new maximum is reached */
	while (v > hw && !__atomic_compare_exchange_n(&pool->high_water, &hw, v, true,
						      __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/**
 * Take one buffer.
 * @return the buffer, or NULL when the pool is empty.
 */
static inline void *rpcrdma_mempool_get(struct rpcrdma_mempool *pool)
{
	void *buf;

	if (rte_mempool_get(pool->mp, &buf) != 0)
		return NULL;
	RPCRDMA_MEMPOOL_UNPOISON(buf, pool->buf_size);
	rpcrdma_mempool_count_get(pool, 1);
	return buf;
}

/**
 * Take @p n buffers, all or nothing.
 * @return 0, or -ENOBUFS with nothing taken.
 */
static inline int rpcrdma_mempool_get_bulk(struct rpcrdma_mempool *pool, void **bufs,
					   unsigned int n)
{
	if (rte_mempool_get_bulk(pool->mp, bufs, n) != 0)
		return -ENOBUFS;
	for (unsigned int i = 0; i < n; i++)
		RPCRDMA_MEMPOOL_UNPOISON(bufs[i], pool->buf_size);
	rpcrdma_mempool_count_get(pool, n);
	return 0;
}

/** Return one buffer taken from @p pool. */
static inline void rpcrdma_mempool_put(struct rpcrdma_mempool *pool, void *buf)
{
	RPCRDMA_MEMPOOL_POISON(buf, pool->buf_size);
	__atomic_sub_fetch(&pool->in_use, 1, __ATOMIC_RELAXED);
	rte_mempool_put(pool->mp, buf);
}

/** Return @p n buffers taken from @p pool. */
static inline void rpcrdma_mempool_put_bulk(struct rpcrdma_mempool *pool, void *const *bufs,
					    unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		RPCRDMA_MEMPOOL_POISON(bufs[i], pool->buf_size);
	__atomic_sub_fetch(&pool->in_use, n, __ATOMIC_RELAXED);
	rte_mempool_put_bulk(pool->mp, bufs, n);
}

/** The pool a buffer came from (read from the rte_mempool object header). */
static inline struct rpcrdma_mempool *rpcrdma_mempool_from_buf(void *buf)
{
	return *(struct rpcrdma_mempool **)rte_mempool_get_priv(rte_mempool_from_obj(buf));
}

/* ---------------- pool sets ---------------- */

/** Most chunk size classes in a set. */
#define RPCRDMA_MEMPOOL_CLASSES_MAX 8

/** Pool set parameters; initialise with rpcrdma_mempool_set_params_init(). */
struct rpcrdma_mempool_set_params {
	const char *name;      /**< prefix of the pool names, at most 12 characters */
	uint32_t inline_size;  /**< the largest inline threshold in use (default 4096) */
	uint32_t inline_count; /**< default 1024 */
	unsigned int nb_classes;
	struct {
		uint32_t size;
		uint32_t count;
	} classes
		[RPCRDMA_MEMPOOL_CLASSES_MAX]; /**< increasing sizes (default 64 KiB x 64, 1 MiB x 16) */
	uint32_t cache_size;		       /**< per-lcore cache of each pool (default 32) */
	bool no_hugepages;
};

/** The pools of one engine. */
struct rpcrdma_mempool_set {
	struct rpcrdma_mempool *inline_pool;
	unsigned int nb_classes;
	struct rpcrdma_mempool *chunk[RPCRDMA_MEMPOOL_CLASSES_MAX]; /**< by increasing size */
};

/** Default set parameters. */
void rpcrdma_mempool_set_params_init(struct rpcrdma_mempool_set_params *p);

/**
 * Create the inline pool and every chunk pool, registered with @p pd.
 * @return 0; -EINVAL: bad parameters (classes not increasing, too many);
 *   any error of rpcrdma_mempool_create(). Nothing is left on error.
 */
int rpcrdma_mempool_set_create(const struct rpcrdma_mempool_set_params *p,
			       struct rpcrdma_pmd_pd *pd, struct rpcrdma_mempool_set **set);

/** Free every pool of a set, and the set. */
void rpcrdma_mempool_set_free(struct rpcrdma_mempool_set *set);

/** The smallest chunk pool whose buffers hold @p len bytes, or NULL if none does. */
static inline struct rpcrdma_mempool *
rpcrdma_mempool_set_chunk_pool(struct rpcrdma_mempool_set *set, uint32_t len)
{
	unsigned int i;

	for (i = 0; i < set->nb_classes; i++)
		if (set->chunk[i]->buf_size >= len)
			return set->chunk[i];
	return NULL;
}

/** @return 0 when every pool of the set has all its buffers back, else -EBUSY. */
int rpcrdma_mempool_set_check_all_back(const struct rpcrdma_mempool_set *set);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_MEMPOOL_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Registered buffer pools.
 *
 * Memory of one pool, from the bottom up:
 *
 *   memfd (MFD_HUGETLB, or 4 KiB pages)    one file descriptor, shareable
 *     mmap MAP_SHARED | MAP_POPULATE       resident, like pinned MR memory
 *       external malloc heap "rrh_<name>"  rte_malloc_heap_create + memory_add
 *         rte_memzone "rrz_<name>"         the registered region (one MR)
 *           rte_mempool "rr_<name>"        populated on the memzone only,
 *                                          per-lcore caches, ring_mp_mc
 *
 * One heap per pool keeps each memzone inside the memory of its own fd, so a
 * region is exactly one fd range. The mempool private area holds a pointer
 * back to the struct rpcrdma_mempool, so a buffer finds its pool (and keys)
 * through the object header.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_memzone.h>

#include <rpcrdma/rpcrdma_mempool.h>

#define POOL_NAME_MAX 20
#define HUGE_PAGE_SZ  (2u << 20)
#define SMALL_PAGE_SZ 4096u
/* Slack for the heap's element headers and the per-lcore cache refills. */
#define POOL_SLACK (64u << 10)

void rpcrdma_mempool_params_init(struct rpcrdma_mempool_params *p)
{
	memset(p, 0, sizeof(*p));
	p->buf_size = 4096;
	p->count = 1024;
	p->cache_size = 32;
	p->access = RPCRDMA_PMD_ACCESS_LOCAL_WRITE | RPCRDMA_PMD_ACCESS_REMOTE_WRITE |
		    RPCRDMA_PMD_ACCESS_REMOTE_READ;
}

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

/* Bytes the mempool needs for @count objects of @total bytes each, on 4 KiB pages. */
static size_t objects_bytes(uint32_t count, uint32_t total)
{
	uint32_t per_page;

	if (total > SMALL_PAGE_SZ)
		return (size_t)count * total;
	/* small objects do not cross page boundaries (rte_mempool populate helper) */
	per_page = SMALL_PAGE_SZ / total;
	return (size_t)(count + per_page - 1) / per_page * SMALL_PAGE_SZ;
}

/* Create the memfd and map it; hugepages first when allowed. */
static int pool_memory(struct rpcrdma_mempool *pool, size_t need, bool try_huge, size_t *pg)
{
	char fdname[48];
	unsigned int attempt;

	snprintf(fdname, sizeof(fdname), "rpcrdma_pool_%s", pool->name);
	for (attempt = try_huge ? 0 : 1; attempt < 2; attempt++) {
		bool huge = attempt == 0;
		size_t psz = huge ? HUGE_PAGE_SZ : SMALL_PAGE_SZ;
		size_t len = align_up(need, psz) + psz;
		int fd;
		void *va;

		fd = memfd_create(fdname, MFD_CLOEXEC | (huge ? MFD_HUGETLB : 0));
		if (fd < 0)
			continue;
		if (ftruncate(fd, (off_t)len) != 0) {
			close(fd);
			continue;
		}
		va = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
		if (va == MAP_FAILED) {
			close(fd);
			if (huge)
				fprintf(stderr,
					"rpcrdma: warning: pool %s: no hugepages for %zu bytes, "
					"using 4 KiB pages\n",
					pool->name, len);
			continue;
		}
		pool->memfd = fd;
		pool->mem = va;
		pool->mem_len = len;
		pool->hugepages = huge;
		*pg = psz;
		return 0;
	}
	return -ENOMEM;
}

/* rte_mempool_obj_iter() callback: a buffer in the pool, poisoned (rpcrdma_mempool.h). */
static void obj_poison(struct rte_mempool *mp, void *arg, void *obj, unsigned int idx)
{
	const struct rpcrdma_mempool *pool = arg;

	RPCRDMA_MEMPOOL_POISON(obj, pool->buf_size);
}

int rpcrdma_mempool_create(const struct rpcrdma_mempool_params *p, struct rpcrdma_pmd_pd *pd,
			   struct rpcrdma_mempool **poolp)
{
	struct rte_mempool_objsz objsz;
	struct rpcrdma_mempool *pool;
	char mzname[RTE_MEMZONE_NAMESIZE];
	char mpname[RTE_MEMPOOL_NAMESIZE];
	size_t need, pg = 0;
	uint32_t total;
	int socket, n, ret;

	if (p == NULL || poolp == NULL || p->name == NULL || p->name[0] == '\0' ||
	    strlen(p->name) > POOL_NAME_MAX || p->buf_size == 0 || p->count == 0 ||
	    p->cache_size > RTE_MEMPOOL_CACHE_MAX_SIZE ||
	    (uint64_t)p->cache_size * 3 / 2 > p->count)
		return -EINVAL;

	pool = rte_zmalloc("rpcrdma_mempool", sizeof(*pool), RTE_CACHE_LINE_SIZE);
	if (pool == NULL)
		return -ENOMEM;
	snprintf(pool->name, sizeof(pool->name), "%s", p->name);
	snprintf(pool->heap_name, sizeof(pool->heap_name), "rrh_%s", p->name);
	snprintf(mzname, sizeof(mzname), "rrz_%s", p->name);
	snprintf(mpname, sizeof(mpname), "rr_%s", p->name);
	pool->buf_size = p->buf_size;
	pool->count = p->count;
	pool->memfd = -1;

	if (rte_mempool_lookup(mpname) != NULL) {
		ret = -EEXIST;
		goto err_free;
	}

	total = rte_mempool_calc_obj_size(p->buf_size, 0, &objsz);
	need = objects_bytes(p->count, total) + POOL_SLACK;
	ret = pool_memory(pool, need, !p->no_hugepages && rte_eal_has_hugepages(), &pg);
	if (ret < 0)
		goto err_free;

	if (rte_malloc_heap_create(pool->heap_name) != 0) {
		ret = rte_errno == EEXIST ? -EEXIST : -ENOMEM;
		goto err_unmap;
	}
	if (rte_malloc_heap_memory_add(pool->heap_name, pool->mem, pool->mem_len, NULL,
				       pool->mem_len / pg, pg) != 0) {
		ret = -ENOMEM;
		goto err_heap;
	}
	socket = rte_malloc_heap_get_socket(pool->heap_name);
	if (socket < 0) {
		ret = -ENOMEM;
		goto err_heap_mem;
	}
	/* the heap keeps one element header at the start: leave it one small page */
	pool->mz = rte_memzone_reserve_aligned(mzname, pool->mem_len - SMALL_PAGE_SZ, socket, 0,
					       RTE_CACHE_LINE_SIZE);
	if (pool->mz == NULL) {
		ret = rte_errno == EEXIST ? -EEXIST : -ENOMEM;
		goto err_heap_mem;
	}

	pool->mp = rte_mempool_create_empty(mpname, p->count, p->buf_size, p->cache_size,
					    sizeof(struct rpcrdma_mempool *), SOCKET_ID_ANY,
					    RTE_MEMPOOL_F_NO_IOVA_CONTIG);
	if (pool->mp == NULL) {
		ret = rte_errno == EEXIST ? -EEXIST : -ENOMEM;
		goto err_mz;
	}
	*(struct rpcrdma_mempool **)rte_mempool_get_priv(pool->mp) = pool;
	n = rte_mempool_populate_iova(pool->mp, pool->mz->addr, RTE_BAD_IOVA, pool->mz->len, NULL,
				      NULL);
	if (n < 0 || (uint32_t)n != p->count) {
		ret = -ENOMEM;
		goto err_mp;
	}
	/* every buffer starts in the pool: poisoned under ASan (rpcrdma_mempool.h) */
	rte_mempool_obj_iter(pool->mp, obj_poison, pool);

	if (pd != NULL) {
		uint64_t off = (uint64_t)((char *)pool->mz->addr - (char *)pool->mem);

		ret = rpcrdma_pmd_mr_reg(pd, pool->mz->addr, pool->mz->len, p->access, pool->memfd,
					 off, &pool->mr);
		if (ret < 0)
			goto err_mp;
		pool->lkey = pool->mr->lkey;
		pool->rkey = pool->mr->rkey;
	}
	*poolp = pool;
	return 0;

err_mp:
	/* EAL clears the memzone it frees: nothing poisoned (obj_poison()) */
	RPCRDMA_MEMPOOL_UNPOISON(pool->mem, pool->mem_len);
	rte_mempool_free(pool->mp);
err_mz:
	rte_memzone_free(pool->mz);
err_heap_mem:
	rte_malloc_heap_memory_remove(pool->heap_name, pool->mem, pool->mem_len);
err_heap:
	rte_malloc_heap_destroy(pool->heap_name);
err_unmap:
	munmap(pool->mem, pool->mem_len);
	close(pool->memfd);
err_free:
	rte_free(pool);
	return ret;
}

void rpcrdma_mempool_free(struct rpcrdma_mempool *pool)
{
	if (pool == NULL)
		return;
	if (pool->mr != NULL)
		rpcrdma_pmd_mr_dereg(pool->mr);
	/* EAL clears the memzone it frees, and the addresses may be mapped again */
	RPCRDMA_MEMPOOL_UNPOISON(pool->mem, pool->mem_len);
	rte_mempool_free(pool->mp);
	rte_memzone_free(pool->mz);
	rte_malloc_heap_memory_remove(pool->heap_name, pool->mem, pool->mem_len);
	rte_malloc_heap_destroy(pool->heap_name);
	munmap(pool->mem, pool->mem_len);
	close(pool->memfd);
	rte_free(pool);
}

void rpcrdma_mempool_stats(const struct rpcrdma_mempool *pool, struct rpcrdma_mempool_stats *st)
{
	st->size = pool->count;
	st->in_use = __atomic_load_n(&pool->in_use, __ATOMIC_RELAXED);
	st->free = rte_mempool_avail_count(pool->mp);
	st->high_water = __atomic_load_n(&pool->high_water, __ATOMIC_RELAXED);
	st->mem_bytes = pool->mem_len;
	st->hugepages = pool->hugepages;
}

int rpcrdma_mempool_check_all_back(const struct rpcrdma_mempool *pool)
{
	if (__atomic_load_n(&pool->in_use, __ATOMIC_RELAXED) != 0 ||
	    rte_mempool_avail_count(pool->mp) != pool->count)
		return -EBUSY;
	return 0;
}

int rpcrdma_mempool_fd(const struct rpcrdma_mempool *pool, uint64_t *offset)
{
	if (offset != NULL)
		*offset = (uint64_t)((char *)pool->mz->addr - (char *)pool->mem);
	return pool->memfd;
}

bool rpcrdma_mempool_owns(const struct rpcrdma_mempool *pool, const void *buf)
{
	const char *b = buf, *start = pool->mz->addr;

	return b >= start && b < start + pool->mz->len;
}

/* ---------------- pool sets ---------------- */

void rpcrdma_mempool_set_params_init(struct rpcrdma_mempool_set_params *p)
{
	memset(p, 0, sizeof(*p));
	p->name = "default";
	p->inline_size = 4096;
	p->inline_count = 1024;
	p->nb_classes = 2;
	p->classes[0].size = 64u << 10;
	p->classes[0].count = 64;
	p->classes[1].size = 1u << 20;
	p->classes[1].count = 16;
	p->cache_size = 32;
}

int rpcrdma_mempool_set_create(const struct rpcrdma_mempool_set_params *p,
			       struct rpcrdma_pmd_pd *pd, struct rpcrdma_mempool_set **setp)
{
	struct rpcrdma_mempool_params pp;
	struct rpcrdma_mempool_set *set;
	char name[POOL_NAME_MAX + 1];
	unsigned int i;
	int ret;

	if (p == NULL || setp == NULL || p->name == NULL || strlen(p->name) > 12 ||
	    p->nb_classes > RPCRDMA_MEMPOOL_CLASSES_MAX)
		return -EINVAL;
	for (i = 0; i < p->nb_classes; i++)
		if (p->classes[i].size == 0 || p->classes[i].count == 0 ||
		    (i > 0 && p->classes[i].size <= p->classes[i - 1].size))
			return -EINVAL;

	set = rte_zmalloc("rpcrdma_mempool_set", sizeof(*set), RTE_CACHE_LINE_SIZE);
	if (set == NULL)
		return -ENOMEM;

	rpcrdma_mempool_params_init(&pp);
	pp.no_hugepages = p->no_hugepages;
	snprintf(name, sizeof(name), "%s_inl", p->name);
	pp.name = name;
	pp.buf_size = p->inline_size;
	pp.count = p->inline_count;
	pp.cache_size = p->cache_size;
	if ((uint64_t)pp.cache_size * 3 / 2 > pp.count)
		pp.cache_size = pp.count * 2 / 3;
	ret = rpcrdma_mempool_create(&pp, pd, &set->inline_pool);
	if (ret < 0)
		goto err_free;

	for (i = 0; i < p->nb_classes; i++) {
		snprintf(name, sizeof(name), "%s_c%u", p->name, i);
		pp.buf_size = p->classes[i].size;
		pp.count = p->classes[i].count;
		pp.cache_size = p->cache_size;
		if ((uint64_t)pp.cache_size * 3 / 2 > pp.count)
			pp.cache_size = pp.count * 2 / 3;
		ret = rpcrdma_mempool_create(&pp, pd, &set->chunk[i]);
		if (ret < 0)
			goto err_pools;
		set->nb_classes = i + 1;
	}
	*setp = set;
	return 0;

err_pools:
	for (i = 0; i < set->nb_classes; i++)
		rpcrdma_mempool_free(set->chunk[i]);
	rpcrdma_mempool_free(set->inline_pool);
err_free:
	rte_free(set);
	return ret;
}

void rpcrdma_mempool_set_free(struct rpcrdma_mempool_set *set)
{
	unsigned int i;

	if (set == NULL)
		return;
	for (i = 0; i < set->nb_classes; i++)
		rpcrdma_mempool_free(set->chunk[i]);
	rpcrdma_mempool_free(set->inline_pool);
	rte_free(set);
}

int rpcrdma_mempool_set_check_all_back(const struct rpcrdma_mempool_set *set)
{
	unsigned int i;

	if (rpcrdma_mempool_check_all_back(set->inline_pool) != 0)
		return -EBUSY;
	for (i = 0; i < set->nb_classes; i++)
		if (rpcrdma_mempool_check_all_back(set->chunk[i]) != 0)
			return -EBUSY;
	return 0;
}

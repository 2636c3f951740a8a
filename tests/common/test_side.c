/* SPDX-License-Identifier: BSD-3-Clause */
/* One end of an engine test or benchmark over the shm PMD (test_side.h). */
#include <stddef.h>

#include "test_side.h"

int test_side_open(const char *devargs, const struct test_side_pools *p,
		   struct rpcrdma_pmd_dev **dev, struct rpcrdma_pmd_pd **pd,
		   struct rpcrdma_mempool_set **pools)
{
	struct rpcrdma_mempool_set_params sp;
	int ret;

	*dev = NULL;
	*pd = NULL;
	*pools = NULL;
	ret = rpcrdma_pmd_dev_open("shm", devargs, dev);
	if (ret) {
		*dev = NULL;
		return ret;
	}
	ret = rpcrdma_pmd_pd_alloc(*dev, pd);
	if (ret) {
		*pd = NULL;
		return ret;
	}
	rpcrdma_mempool_set_params_init(&sp);
	sp.name = p->name;
	sp.inline_count = p->inline_count;
	sp.classes[0].count = p->chunks_64k;
	sp.classes[1].count = p->chunks_1m;
	sp.cache_size = p->cache_size;
	sp.no_hugepages = p->no_hugepages;
	ret = rpcrdma_mempool_set_create(&sp, *pd, pools);
	if (ret)
		*pools = NULL;
	return ret;
}

unsigned int test_side_close(struct rpcrdma_pmd_dev **dev, struct rpcrdma_pmd_pd **pd,
			     struct rpcrdma_mempool_set **pools)
{
	unsigned int bad = 0;

	if (*pools != NULL) {
		bad += rpcrdma_mempool_set_check_all_back(*pools) != 0;
		rpcrdma_mempool_set_free(*pools);
		*pools = NULL;
	}
	if (*pd != NULL) {
		bad += rpcrdma_pmd_pd_free(*pd) != 0;
		*pd = NULL;
	}
	if (*dev != NULL) {
		bad += rpcrdma_pmd_dev_close(*dev) != 0;
		*dev = NULL;
	}
	return bad;
}

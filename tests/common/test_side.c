/* SPDX-License-Identifier: BSD-3-Clause */
/* One end of an engine test or benchmark over the shm PMD (test_side.h). */
#include <stddef.h>
#include <string.h>

#include "test_clock.h"
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

int test_side_create(struct test_side *s, const char *devargs, const struct test_side_pools *p)
{
	memset(s, 0, sizeof(*s));
	return test_side_open(devargs, p, &s->dev, &s->pd, &s->pools);
}

unsigned int test_side_destroy(struct test_side *s)
{
	unsigned int bad;

	if (s->qp != NULL)
		rpcrdma_pmd_qp_destroy(s->qp);
	if (s->cq != NULL)
		rpcrdma_pmd_cq_destroy(s->cq);
	if (s->listener != NULL)
		rpcrdma_pmd_listener_close(s->listener);
	bad = test_side_close(&s->dev, &s->pd, &s->pools);
	memset(s, 0, sizeof(*s));
	return bad;
}

void test_side_params(struct test_side *s, enum rpcrdma_xprt_role role)
{
	rpcrdma_xprt_params_init(&s->params, role);
	s->params.dev = s->dev;
	s->params.pd = s->pd;
	s->params.pools = s->pools;
}

int test_side_accept(struct test_side *s, const struct rpcrdma_pmd_event *ev)
{
	return rpcrdma_xprt_accept(&s->params, ev, &s->xprt);
}

int test_side_events(struct test_side *s, test_side_accept_fn accept)
{
	struct rpcrdma_pmd_event ev[4];
	int n;

	if (s->dev == NULL)
		return 0;
	n = rpcrdma_pmd_event_poll(s->dev, ev, 4);
	for (int i = 0; i < n; i++) {
		if (ev[i].type == RPCRDMA_PMD_EVENT_CONNECT_REQUEST && accept != NULL)
			accept(s, &ev[i]);
		else
			rpcrdma_xprt_event(&ev[i]);
	}
	return n;
}

int test_side_poll(struct test_side *s, test_side_accept_fn accept)
{
	test_side_events(s, accept);
	return s->xprt != NULL ? rpcrdma_xprt_poll(s->xprt) : 0;
}

int test_side_pump_pair(struct test_side *cli, struct test_side *srv, test_side_accept_fn accept)
{
	int work = 0;

	test_side_events(cli, NULL);
	test_side_events(srv, accept);
	if (cli->xprt != NULL)
		work += rpcrdma_xprt_poll(cli->xprt);
	if (srv->xprt != NULL)
		work += rpcrdma_xprt_poll(srv->xprt);
	return work;
}

bool test_side_until(void (*pump)(void), bool (*cond)(void *), void *arg, uint64_t ms)
{
	uint64_t end = test_now_ms() + ms;

	while (!cond(arg)) {
		if (test_now_ms() > end)
			return false;
		pump();
	}
	return true;
}

bool test_side_in(const struct test_side *s, enum rpcrdma_xprt_state state)
{
	return (s->xprt != NULL ? rpcrdma_xprt_state(s->xprt) : RPCRDMA_XPRT_CLOSED) == state;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* One end of an engine test or benchmark over a PMD (test_side.h). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_clock.h"
#include "test_side.h"

#define PMD_ENV		  "RPCRDMA_TEST_PMD"
#define VERBS_ADDR_ENV	  "RPCRDMA_TEST_VERBS_ADDR"
#define VERBS_DEVARGS_ENV "RPCRDMA_TEST_VERBS_DEVARGS"
#define VERBS_PORT_DEF	  20049u
#define PORTS_PER_SLOT	  256u
#define SLOTS		  64u

/* The PMD every side opens, and on verbs where the program listens. */
static struct {
	const char *pmd;
	const char *devargs; /* verbs: the environment's */
	char host[48];	     /* verbs: "192.0.2.1" or "[2001:db8::1]" */
	unsigned int port;   /* verbs: the first of the program's range */
	unsigned int seq;    /* addresses handed out */
	unsigned int skips;
	bool probed;
	struct rpcrdma_pmd_dev_info info;
} side_env = { .pmd = "shm" };

/*
 * "IP", "IP:PORT", "[IPv6]", "[IPv6]:PORT" or a bare IPv6 address: the
 * host part as the PMD takes it, and the port (0 when none). -1 when
 * malformed.
 */
static int split_addr(const char *s, char *host, size_t hlen, unsigned long *port)
{
	const char *colon, *p = NULL;
	char *end;
	int n;

	if (s[0] == '[') {
		colon = strchr(s, ']');
		if (colon == NULL || (colon[1] != '\0' && colon[1] != ':'))
			return -1;
		n = snprintf(host, hlen, "%.*s", (int)(colon - s) + 1, s);
		if (colon[1] == ':')
			p = colon + 2;
	} else if ((colon = strchr(s, ':')) != NULL && strchr(colon + 1, ':') == NULL) {
		n = snprintf(host, hlen, "%.*s", (int)(colon - s), s);
		p = colon + 1;
		if (colon == s)
			return -1;
	} else if (colon != NULL) {
		n = snprintf(host, hlen, "[%s]", s);
	} else {
		n = snprintf(host, hlen, "%s", s);
	}
	if (n < 0 || (size_t)n >= hlen)
		return -1;
	*port = 0;
	if (p != NULL) {
		errno = 0;
		*port = strtoul(p, &end, 10);
		if (errno != 0 || end == p || *end != '\0' || *port == 0)
			return -1;
	}
	return 0;
}

int test_side_env(unsigned int slot)
{
	const char *pmd = getenv(PMD_ENV), *addr;
	struct rpcrdma_pmd_dev *dev;
	unsigned long port;
	int ret;

	if (pmd == NULL || pmd[0] == '\0')
		pmd = "shm";
	if (strcmp(pmd, "shm") != 0 && strcmp(pmd, "verbs") != 0) {
		fprintf(stderr, "%s=\"%s\": expected shm or verbs\n", PMD_ENV, pmd);
		return 1;
	}
	side_env.pmd = pmd;
	if (strcmp(pmd, "verbs") == 0) {
		addr = getenv(VERBS_ADDR_ENV);
		side_env.devargs = getenv(VERBS_DEVARGS_ENV);
		if (addr == NULL || addr[0] == '\0') {
			printf("SKIP: the engine tests over verbs need a local address of an RDMA "
			       "device: set %s=IP[:PORT] (and %s=dev=NAME or ip=IP to choose the "
			       "device)\n",
			       VERBS_ADDR_ENV, VERBS_DEVARGS_ENV);
			return 77;
		}
		if (slot >= SLOTS ||
		    split_addr(addr, side_env.host, sizeof(side_env.host), &port) < 0 ||
		    (port != 0 && port + PORTS_PER_SLOT * SLOTS > 65535)) {
			fprintf(stderr,
				"%s=\"%s\": expected IP[:PORT] (IPv6 as [ADDR]:PORT), PORT 1..%u\n",
				VERBS_ADDR_ENV, addr, 65535 - PORTS_PER_SLOT * SLOTS);
			return 1;
		}
		side_env.port =
			(port != 0 ? (unsigned int)port : VERBS_PORT_DEF) + PORTS_PER_SLOT * slot;
	}
	ret = rpcrdma_pmd_dev_open(pmd, side_env.devargs, &dev);
	if (ret == -ENOENT || ret == -ENODEV) {
		if (ret == -ENOENT)
			printf("SKIP: PMD \"%s\" is not built in\n", pmd);
		else
			printf("SKIP: PMD \"%s\" has no device here (%s=\"%s\": set it to dev=NAME "
			       "or ip=IP of an RDMA device)\n",
			       pmd, VERBS_DEVARGS_ENV, side_env.devargs ? side_env.devargs : "");
		return 77;
	}
	if (ret < 0) {
		fprintf(stderr, "dev_open(%s, \"%s\"): %s\n", pmd,
			side_env.devargs ? side_env.devargs : "", strerror(-ret));
		return 1;
	}
	ret = rpcrdma_pmd_dev_info_get(dev, &side_env.info);
	rpcrdma_pmd_dev_close(dev);
	if (ret < 0) {
		fprintf(stderr, "dev_info_get(%s): %s\n", pmd, strerror(-ret));
		return 1;
	}
	side_env.probed = true;
	return 0;
}

const char *test_side_pmd(void)
{
	return side_env.pmd;
}

bool test_side_shm(void)
{
	return strcmp(side_env.pmd, "shm") == 0;
}

const struct rpcrdma_pmd_dev_info *test_side_dev_info(void)
{
	struct rpcrdma_pmd_dev *dev;

	if (!side_env.probed && rpcrdma_pmd_dev_open("shm", NULL, &dev) == 0) {
		rpcrdma_pmd_dev_info_get(dev, &side_env.info);
		rpcrdma_pmd_dev_close(dev);
		side_env.probed = true;
	}
	return &side_env.info;
}

void test_side_addr(char *buf, size_t len, const char *tag)
{
	unsigned int n = side_env.seq++;

	if (test_side_shm())
		snprintf(buf, len, "@rpcrdma-%s-%d-%u", tag, (int)getpid(), n);
	else
		snprintf(buf, len, "%s:%u", side_env.host, side_env.port + n % PORTS_PER_SLOT);
}

bool test_side_case_runs(bool ok, const char *name, const char *why)
{
	if (ok)
		return true;
	printf("skip %s (%s)\n", name, why);
	fflush(stdout);
	side_env.skips++;
	return false;
}

unsigned int test_side_skips(void)
{
	return side_env.skips;
}

int test_side_summary(const char *name, unsigned long checks, unsigned long failures)
{
	printf("%s (%s): %lu checks, %lu failed", name, side_env.pmd, checks, failures);
	if (side_env.skips != 0)
		printf(", %u skipped", side_env.skips);
	printf("\n");
	if (failures != 0)
		return 1;
	return checks == 0 && side_env.skips != 0 ? 77 : 0;
}

static int open_pmd(const char *pmd, const char *devargs, const struct test_side_pools *p,
		    struct rpcrdma_pmd_dev **dev, struct rpcrdma_pmd_pd **pd,
		    struct rpcrdma_mempool_set **pools)
{
	struct rpcrdma_mempool_set_params sp;
	int ret;

	*dev = NULL;
	*pd = NULL;
	*pools = NULL;
	ret = rpcrdma_pmd_dev_open(pmd, devargs, dev);
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

int test_side_open(const char *devargs, const struct test_side_pools *p,
		   struct rpcrdma_pmd_dev **dev, struct rpcrdma_pmd_pd **pd,
		   struct rpcrdma_mempool_set **pools)
{
	*dev = NULL;
	*pd = NULL;
	*pools = NULL;
	if (!test_side_shm()) {
		if (devargs != NULL) {
			fprintf(stderr, "test_side_open: shm devargs \"%s\" on PMD %s\n", devargs,
				side_env.pmd);
			return -EINVAL;
		}
		devargs = side_env.devargs;
	}
	return open_pmd(side_env.pmd, devargs, p, dev, pd, pools);
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

int test_side_create_pmd(struct test_side *s, const char *pmd, const char *devargs,
			 const struct test_side_pools *p)
{
	memset(s, 0, sizeof(*s));
	return open_pmd(pmd, devargs, p, &s->dev, &s->pd, &s->pools);
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

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_scale shim: the C side of the scale benchmarks
 * (bench_scale_shim.h). The client group is polled by the calling lcore,
 * which is what is timed; the server group by the next lcore until
 * stopped. Set-up and tear-down poll both from the main lcore.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_rpc.h>
#include <rpcrdma/rpcrdma_xprt.h>

#include "app_common.h"
#include "bench_pmd_shim.h"
#include "bench_responder.h"
#include "bench_scale_shim.h"
#include "test_side.h"

#define PROG 0x20000300u
/* how many calls ahead the client prefetches a connection */
#define SCALE_PREFETCH 4

struct bench_scale;

/* A client connection's callback argument: the bench and the connection's index. */
struct scale_carg {
	struct bench_scale *b;
	uint32_t i;
};

struct scale_side {
	struct rpcrdma_pmd_dev *dev;
	struct rpcrdma_pmd_pd *pd;
	struct rpcrdma_mempool_set *pools;
	struct rpcrdma_xprt_group *grp;
	struct rpcrdma_xprt_params params;
	struct rpcrdma_xprt **x;
	uint32_t n;
};

/* What each lcore writes sits on its own cache lines. */
struct bench_scale {
	uint32_t conns, inflight;
	unsigned int lcore;
	bool launched;
	struct rpcrdma_pmd_listener *listener;
	uint64_t rss_before, rss_after;
	volatile int stop __attribute__((aligned(64)));
	/* the server lcore's */
	struct scale_side srv __attribute__((aligned(64)));
	uint32_t srv_bad;
	uint64_t srv_busy; /* TSC cycles in the server's polls that found work */
	/* the client lcore's */
	struct scale_side cli __attribute__((aligned(64)));
	uint64_t *calls; /* per connection */
	struct scale_carg *carg;
	uint32_t next, want, done, out, submitted, bad;
	uint64_t cli_busy; /* TSC cycles in the client's polls that found work */
};

static void scale_log(const char *msg, int err)
{
	fprintf(stderr, "bench_scale: %s: %s\n", msg, strerror(err < 0 ? -err : err));
}

int bench_scale_eal_init(const char *prog)
{
	return rpcrdma_mempool_eal_init(prog, NULL);
}

/* ---------------- the server ---------------- */

/* NULL calls answered raw: an accepted, empty reply (the engine's cost). */
static void scale_recv_call(void *ctx, struct rpcrdma_xprt_svc_call *call)
{
	struct bench_scale *b = ctx;

	if (rpcrdma_xprt_svc_call_rpc_status(call) != 0 ||
	    rpcrdma_xprt_svc_call_put_reply_header(call, RPCRDMA_RPC_SUCCESS) != 0) {
		b->srv_bad++;
		rpcrdma_xprt_svc_call_drop(call);
		return;
	}
	if (rpcrdma_xprt_svc_call_reply(call) != 0)
		b->srv_bad++;
}

/*
 * One TSC read a turn: a turn's time counts as busy when its poll found
 * work, so busy time per call is the lcore's cost of a call whether or not
 * the lcore is saturated (its rate if it were).
 */
static int serve(void *arg)
{
	struct bench_scale *b = arg;
	uint64_t prev = rte_rdtsc(), now, busy = 0;

	while (!b->stop) {
		int work = rpcrdma_xprt_group_poll(b->srv.grp);

		now = rte_rdtsc();
		if (work != 0)
			busy += now - prev;
		prev = now;
	}
	b->srv_busy += busy;
	return 0;
}

/* ---------------- set-up ---------------- */

static int side_open(struct scale_side *s, const char *name, uint32_t conns, uint32_t inflight,
		     uint32_t inline_count, uint32_t calls)
{
	const struct test_side_pools p = { name, inline_count, 8, 2, 0, false };
	struct rpcrdma_xprt_group_params gp;
	int ret;

	ret = test_side_open(NULL, &p, &s->dev, &s->pd, &s->pools);
	if (ret)
		return ret;
	s->x = calloc(conns, sizeof(*s->x));
	if (s->x == NULL)
		return -ENOMEM;
	rpcrdma_xprt_group_params_init(&gp);
	gp.dev = s->dev;
	gp.pd = s->pd;
	gp.pools = s->pools;
	gp.max_conns = conns;
	gp.recvs = inflight + 64;
	gp.calls = calls;
	return rpcrdma_xprt_group_create(&gp, &s->grp);
}

static void side_close(struct scale_side *s, uint32_t *bad)
{
	for (uint32_t i = 0; s->x != NULL && i < s->n; i++)
		if (s->x[i] != NULL && rpcrdma_xprt_destroy(s->x[i]) != 0)
			(*bad)++;
	free(s->x);
	s->x = NULL;
	if (s->grp != NULL && rpcrdma_xprt_group_destroy(s->grp) != 0)
		(*bad)++;
	*bad += test_side_close(&s->dev, &s->pd, &s->pools);
}

static void pump(struct bench_scale *b)
{
	struct rpcrdma_pmd_event ev[16];
	int n, i;

	n = rpcrdma_pmd_event_poll(b->srv.dev, ev, 16);
	for (i = 0; i < n; i++) {
		if (ev[i].type != RPCRDMA_PMD_EVENT_CONNECT_REQUEST)
			rpcrdma_xprt_event(&ev[i]);
		else if (b->srv.n == b->conns ||
			 rpcrdma_xprt_accept(&b->srv.params, &ev[i], &b->srv.x[b->srv.n]) != 0)
			b->srv_bad++;
		else
			b->srv.n++;
	}
	n = rpcrdma_pmd_event_poll(b->cli.dev, ev, 16);
	for (i = 0; i < n; i++)
		rpcrdma_xprt_event(&ev[i]);
	rpcrdma_xprt_group_poll(b->cli.grp);
	rpcrdma_xprt_group_poll(b->srv.grp);
}

static bool all_in(const struct scale_side *s, uint32_t n, enum rpcrdma_xprt_state st)
{
	if (s->n != n)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (rpcrdma_xprt_state(s->x[i]) != st)
			return false;
	return true;
}

static bool pump_until_all(struct bench_scale *b, enum rpcrdma_xprt_state st)
{
	uint64_t end = rte_get_tsc_cycles() + 30 * rte_get_tsc_hz();

	while (rte_get_tsc_cycles() < end) {
		if (all_in(&b->cli, b->conns, st) && all_in(&b->srv, b->conns, st))
			return true;
		pump(b);
	}
	return false;
}

struct bench_scale *bench_scale_start(uint32_t conns, uint32_t inflight)
{
	/* several may be up at once (bench_scale_resume()): names of their own */
	static unsigned int instances;
	unsigned int inst = instances++;
	struct bench_scale *b;
	uint32_t per, calls;
	char addr[64], sname[32], cname[32];
	int ret;

	b = rte_zmalloc("bench_scale", sizeof(*b), 64);
	if (b == NULL)
		return NULL;
	b->conns = conns;
	b->inflight = inflight;
	b->lcore = bench_responder_lcore();
	if (b->lcore >= RTE_MAX_LCORE) {
		fprintf(stderr, "bench_scale: needs two lcores\n");
		goto err;
	}
	b->calls = calloc(conns, sizeof(*b->calls));
	b->carg = calloc(conns, sizeof(*b->carg));
	for (uint32_t i = 0; b->carg != NULL && i < conns; i++)
		b->carg[i] = (struct scale_carg){ b, i };
	/*
	 * Inline buffers: the server's SRQ (a floor per connection and the
	 * calls in flight), its slots' header areas; each client's call slots
	 * and their header areas.
	 */
	per = (inflight + conns - 1) / conns + 1;
	calls = RTE_MAX(rte_align32pow2(per), 2u);
	ret = b->calls == NULL || b->carg == NULL ? -ENOMEM : 0;
	snprintf(sname, sizeof(sname), "ssrv%u", inst);
	snprintf(cname, sizeof(cname), "scli%u", inst);
	if (ret == 0)
		ret = side_open(&b->srv, sname, conns, inflight, 4 * (conns + inflight) + 1024, 0);
	if (ret == 0)
		ret = side_open(
			&b->cli, cname, conns, inflight,
			conns * (calls + (calls + 9) / 2 + 1) + 1024,
			/* the clients' call slots, shared: the calls in flight go round them */
			2 * inflight);
	if (ret)
		goto err_log;
	b->rss_before = app_rss_bytes();
	rpcrdma_xprt_params_init(&b->cli.params, RPCRDMA_XPRT_CLIENT);
	b->cli.params.dev = b->cli.dev;
	b->cli.params.pd = b->cli.pd;
	b->cli.params.pools = b->cli.pools;
	b->cli.params.flags = 0;
	b->cli.params.max_calls = calls;
	b->cli.params.max_credits = RTE_MIN(per + 1, 64u);
	b->cli.params.group = b->cli.grp;
	rpcrdma_xprt_params_init(&b->srv.params, RPCRDMA_XPRT_SERVER);
	b->srv.params.dev = b->srv.dev;
	b->srv.params.pd = b->srv.pd;
	b->srv.params.pools = b->srv.pools;
	b->srv.params.flags = RPCRDMA_XPRT_F_REPLY_CHUNK_ALWAYS;
	b->srv.params.max_credits = 64;
	b->srv.params.recv_call = scale_recv_call;
	b->srv.params.ctx = b;
	b->srv.params.group = b->srv.grp;
	snprintf(addr, sizeof(addr), "@rpcrdma-bench-scale-%d-%u", getpid(), inst);
	ret = rpcrdma_pmd_listen(b->srv.dev, addr, &b->listener);
	/* in batches, so that the connect requests do not pile up */
	for (uint32_t i = 0; ret == 0 && i < conns; i++) {
		ret = rpcrdma_xprt_create(&b->cli.params, &b->cli.x[i]);
		if (ret == 0) {
			b->cli.n++;
			ret = rpcrdma_xprt_connect(b->cli.x[i], addr);
		}
		if ((i + 1) % 64 == 0)
			for (int k = 0; k < 200; k++)
				pump(b);
	}
	if (ret == 0 && !pump_until_all(b, RPCRDMA_XPRT_ESTABLISHED))
		ret = -ETIMEDOUT;
	if (ret)
		goto err_log;
	b->rss_after = app_rss_bytes();
	if (bench_responder_launch(serve, b, b->lcore, &b->launched) != 0)
		goto err;
	return b;

err_log:
	scale_log("set-up", ret);
err:
	bench_scale_stop(b);
	return NULL;
}

int bench_scale_stop(struct bench_scale *b)
{
	uint32_t bad = 0;

	if (b == NULL)
		return -1;
	bench_responder_park(b->lcore, &b->launched, &b->stop);
	for (uint32_t i = 0; i < b->cli.n; i++)
		rpcrdma_xprt_disconnect(b->cli.x[i]);
	if (b->cli.n && !pump_until_all(b, RPCRDMA_XPRT_CLOSED))
		bad++;
	if (b->listener != NULL)
		rpcrdma_pmd_listener_close(b->listener);
	side_close(&b->cli, &bad);
	side_close(&b->srv, &bad);
	if (b->bad || b->srv_bad || bad)
		fprintf(stderr,
			"bench_scale: %u bad replies, %u server errors, %u tear-down errors\n",
			b->bad, b->srv_bad, bad);
	bad += b->bad + b->srv_bad;
	free(b->calls);
	free(b->carg);
	rte_free(b);
	return bad ? -1 : 0;
}

void bench_scale_pause(struct bench_scale *b)
{
	bench_responder_park(b->lcore, &b->launched, &b->stop);
}

int bench_scale_resume(struct bench_scale *b)
{
	return bench_responder_launch(serve, b, b->lcore, &b->launched);
}

int bench_scale_server_poll(struct bench_scale *b)
{
	return rpcrdma_xprt_group_poll(b->srv.grp);
}

/* ---------------- the client's calls ---------------- */

static void call_cb(void *arg, struct rpcrdma_xprt_call *call, int status,
		    struct rpcrdma_xdr_dec *d);

/*
 * The next call goes on the next connection in turn that has a free call
 * slot; with one call per connection (inflight == conns), on the
 * connection @self whose call just completed (-1: in turn).
 */
static int submit_one(struct bench_scale *b, int64_t self)
{
	struct rpcrdma_xprt_call *c = NULL;
	uint32_t i = 0, tries;
	int ret = -ENOBUFS;

	for (tries = 0; tries < b->conns && ret != 0; tries++) {
		i = b->next;
		b->next = i + 1 == b->conns ? 0 : i + 1;
		if (self >= 0 && b->inflight == b->conns)
			i = (uint32_t)self;
		ret = rpcrdma_xprt_call_alloc(b->cli.x[i], &c);
	}
	if (ret)
		return ret;
	/* the connections whose turns come a few calls from now: in three steps */
	rpcrdma_xprt_prefetch(b->cli.x[(b->next + 2 * SCALE_PREFETCH) % b->conns]);
	rpcrdma_xprt_prefetch_call(b->cli.x[(b->next + SCALE_PREFETCH) % b->conns]);
	rpcrdma_xprt_prefetch_send(b->cli.x[(b->next + SCALE_PREFETCH / 2) % b->conns]);
	rpcrdma_xprt_call_reply_spec(c)->max_len = 64;
	if (rpcrdma_xprt_call_put_header(c, PROG, 1, 0) != 0) {
		rpcrdma_xprt_call_release(c);
		return -ENOSPC;
	}
	ret = rpcrdma_xprt_call_submit(c, 0, call_cb, &b->carg[i]);
	if (ret == 0) {
		b->out++;
		b->submitted++;
		b->calls[i]++;
	}
	return ret;
}

static void call_cb(void *arg, struct rpcrdma_xprt_call *call, int status,
		    struct rpcrdma_xdr_dec *d)
{
	struct scale_carg *ca = arg;
	struct bench_scale *b = ca->b;
	struct rpcrdma_rpc_msg m;

	if (status != 0 || rpcrdma_xprt_get_rpc(d, &m) != 0 ||
	    m.reply.stat != RPCRDMA_RPC_MSG_ACCEPTED || m.reply.accept_stat != RPCRDMA_RPC_SUCCESS)
		b->bad++;
	rpcrdma_xprt_call_release(call);
	b->out--;
	b->done++;
	/* a failed call (the connections going at the end) sends no other */
	if (status == 0 && b->submitted < b->want && submit_one(b, ca->i) != 0)
		b->bad++;
}

int bench_scale_pipelined(struct bench_scale *b, uint32_t n)
{
	uint64_t hang = BENCH_HANG_S * rte_get_tsc_hz(), prev = rte_rdtsc(), guard = prev + hang,
		 now;

	b->done = 0;
	b->want = b->submitted + n;
	for (uint32_t i = 0; i < b->inflight && b->submitted < b->want; i++)
		if (submit_one(b, -1) != 0)
			return -1;
	while (b->done < n || b->out) {
		int work = rpcrdma_xprt_group_poll(b->cli.grp);

		now = rte_rdtsc();
		if (work != 0) {
			b->cli_busy += now - prev;
			guard = now +
				hang; /* a hang is no progress for that long, not a slow run */
		} else if (now > guard) {
			return -1;
		}
		prev = now;
	}
	return b->bad ? -1 : 0;
}

void bench_scale_memory(struct bench_scale *b, double *engine_per_conn, uint64_t *rss_before,
			uint64_t *rss_after)
{
	struct rpcrdma_xprt_group_stats gs;

	rpcrdma_xprt_group_stats(b->srv.grp, &gs);
	*engine_per_conn = gs.conns ? (double)gs.conn_bytes / gs.conns : 0;
	*rss_before = b->rss_before;
	*rss_after = b->rss_after;
}

void bench_scale_visits(struct bench_scale *b, uint64_t *cli_visits, uint64_t *cli_polls,
			uint64_t *srv_visits, uint64_t *srv_polls)
{
	struct rpcrdma_xprt_group_stats gs;

	rpcrdma_xprt_group_stats(b->cli.grp, &gs);
	*cli_visits = gs.conn_visits;
	*cli_polls = gs.polls;
	rpcrdma_xprt_group_stats(b->srv.grp, &gs);
	*srv_visits = gs.conn_visits;
	*srv_polls = gs.polls;
}

static double wcs_per_busy_poll(const struct rpcrdma_xprt_group *g)
{
	struct rpcrdma_xprt_group_stats gs;

	rpcrdma_xprt_group_stats(g, &gs);
	return gs.polls > gs.idle_polls ? (double)gs.wcs / (double)(gs.polls - gs.idle_polls) : 0;
}

void bench_scale_bursts(struct bench_scale *b, double *cli_wcs, double *srv_wcs)
{
	*cli_wcs = wcs_per_busy_poll(b->cli.grp);
	*srv_wcs = wcs_per_busy_poll(b->srv.grp);
}

void bench_scale_busy(struct bench_scale *b, double *cli_ns, double *srv_ns)
{
	double ns_per_cycle = 1e9 / (double)rte_get_tsc_hz();

	*cli_ns = (double)b->cli_busy * ns_per_cycle;
	*srv_ns = (double)b->srv_busy * ns_per_cycle;
}

void bench_scale_spread(struct bench_scale *b, uint64_t *min_calls, uint64_t *max_calls)
{
	*min_calls = UINT64_MAX;
	*max_calls = 0;
	for (uint32_t i = 0; i < b->conns; i++) {
		*min_calls = RTE_MIN(*min_calls, b->calls[i]);
		*max_calls = RTE_MAX(*max_calls, b->calls[i]);
	}
}

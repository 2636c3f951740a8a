/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine end to end over a PMD: shm, or verbs on a real RDMA device
 * (RPCRDMA_TEST_PMD=verbs, RPCRDMA_TEST_VERBS_ADDR=IP[:PORT],
 * RPCRDMA_TEST_VERBS_DEVARGS=...: test_side.h). Without the verbs
 * variables a verbs run skips (77); cases that need shm (its fault
 * injection devargs) skip on verbs with the reason printed.
 *
 *   test_xprt setup|forms|credits|errors|loss|client   both ends in this thread
 *   test_xprt v2forms       forms and credits again, both ends in version 2
 *   test_xprt v2            version negotiation, version 2 errors
 *   test_xprt xchar         transport characteristics (xcharext) through the engine
 *   test_xprt backward      backward-direction calls (RFC 8167) in versions 1 and 2
 *   test_xprt hostile       mutated messages at a server and at a client: no crash,
 *                           calls complete, pools full
 *                           (HOSTILE_ROUNDS=N HOSTILE_SEED=S: longer, other)
 *   test_xprt xproc                             the server in a second process
 *
 * In-process, one thread polls the two connections (and the two devices'
 * events) in turn: every run is the same. A test program (prog 0x20000099)
 * carries in its arguments the words, the DDP-eligible items and the shape
 * of the reply it wants, so the server checks every argument byte and the
 * client every result byte.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rpcrdma/rpcrdma_errno.h>
#include <rpcrdma/rpcrdma_hdr.h>
#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_pmd_driver.h>
#include <rpcrdma/rpcrdma_xprt.h>

#include "test_check.h"
#include "test_side.h"

#define PROG	   0x20000099u
#define PROC_NULL  0
#define PROC_TEST  1
#define MAXI	   4
#define WAIT_MS	   wait_ms
#define MODE_ASYNC 1u /* the server replies at a later poll */

/*
 * A bounded wait: 5 s on shm; on verbs a minute (an emulated guest's RDMA
 * stack is slow: bounds only catch a hang, they never measure).
 */
static uint64_t wait_ms = 5000;

/*
 * Call timeouts the client tests set, scaled by this: 1 on shm, more on
 * verbs so that a call answered "in time" is answered in time there too.
 */
static uint64_t tmo_scale = 1;

/* ------------------------------------------------------------ endpoints */

/*
 * Both ends of a connection (test_side.h). An end given a bare QP
 * (bare_qp()) sends crafted messages in place of an xprt.
 */
struct env {
	char addr[64];
	struct test_side cli, srv;
	bool srv_bare, cli_bare;
};

/* @pmd NULL: the PMD under test (test_side_env()); else a driver this test registered */
static int side_open(struct test_side *s, const char *name, const char *pmd, const char *devargs)
{
	/* no per-lcore cache: the counters are exact at every check */
	const struct test_side_pools p = { name, 512, 16, 4, 0, false };

	if (pmd != NULL)
		return test_side_create_pmd(s, pmd, devargs, &p);
	return test_side_create(s, devargs, &p);
}

static void side_close(struct test_side *s)
{
	CHECK(test_side_destroy(s) == 0, "every buffer back, closed");
}

/* ---------------- the server's program ---------------- */

struct srv_ctx {
	struct rpcrdma_mempool_set *pools; /* of DDP results; NULL: srv_pools */
	uint32_t calls, bad, async_n;
	struct rpcrdma_xprt_svc_call *async[64];
	uint32_t last_xid;
	uint32_t xid_log[64]; /* the XID of call n at [n % 64] */
	uint32_t max_active;
	uint32_t active;
	bool no_reply; /* drop every call */
};

static struct srv_ctx sctx;

struct res_bufs {
	uint32_t n;
	void *b[MAXI];
	struct rpcrdma_mempool *pool[MAXI];
	bool used;
};
static struct res_bufs resv[128];

static void srv_reply_done(void *ctx, struct rpcrdma_xprt_svc_call *call, int status)
{
	struct res_bufs *r = rpcrdma_xprt_svc_call_priv(call);
	struct srv_ctx *c = ctx;

	if (c != NULL && c->active > 0)
		c->active--;
	if (r == NULL)
		return;
	for (uint32_t i = 0; i < r->n; i++)
		rpcrdma_mempool_put(r->pool[i], r->b[i]);
	r->n = 0;
	r->used = false;
}

static struct rpcrdma_mempool_set *srv_pools;

/* Decode and check the test call, then encode its reply (results from @pools). */
static int srv_answer_from(struct rpcrdma_xprt_svc_call *call, struct rpcrdma_mempool_set *pools)
{
	const struct rpcrdma_rpc_msg *m = rpcrdma_xprt_svc_call_msg(call);
	struct rpcrdma_xdr_dec *d = rpcrdma_xprt_svc_call_args(call);
	uint32_t seed = 0, w, k, r, rw, mode = 0, v, i, lens[MAXI];
	struct rpcrdma_rpc_msg rep;
	struct rpcrdma_xdr_enc *e;
	uint8_t hdr[64];
	struct res_bufs *rb = NULL;
	const void *p;
	uint32_t n;

	if (m->call.proc == PROC_TEST) {
		if (rpcrdma_xdr_get_u32(d, &seed) || rpcrdma_xdr_get_u32(d, &w))
			return -1;
		for (i = 0; i < w; i++)
			if (rpcrdma_xdr_get_u32(d, &v) || v != seed + i)
				return -1;
		if (rpcrdma_xdr_get_u32(d, &k) || k > MAXI)
			return -1;
		for (i = 0; i < k; i++)
			if (rpcrdma_xdr_get_ddp(d, 1u << 20, &p, &n) ||
			    !test_pattern_same(p, n, seed * 16 + i))
				return -1;
		if (rpcrdma_xdr_get_u32(d, &r) || r > MAXI)
			return -1;
		for (i = 0; i < r; i++)
			if (rpcrdma_xdr_get_u32(d, &lens[i]))
				return -1;
		if (rpcrdma_xdr_get_u32(d, &rw) || rpcrdma_xdr_get_u32(d, &mode))
			return -1;
		if (rpcrdma_xdr_dec_left(d) != 0)
			return -1;
	} else {
		r = rw = 0;
	}
	if (rpcrdma_xprt_svc_call_put_reply_header(call, RPCRDMA_RPC_SUCCESS))
		return -1;
	e = rpcrdma_xprt_svc_call_reply_enc(call);
	/* the codec's bytes for the same header */
	memset(&rep, 0, sizeof(rep));
	rep.xid = m->xid;
	rep.type = RPCRDMA_RPC_REPLY;
	rep.reply.stat = RPCRDMA_RPC_MSG_ACCEPTED;
	rep.reply.accept_stat = RPCRDMA_RPC_SUCCESS;
	CHECK(e->len == 24 && rpcrdma_rpc_encode(&rep, hdr, sizeof(hdr)) == 24 &&
		      memcmp(e->mem.addr, hdr, 24) == 0,
	      "reply header as the codec's");
	if (m->call.proc == PROC_NULL)
		return 0;
	rpcrdma_xdr_put_u32(e, rw);
	for (i = 0; i < rw; i++)
		if (rpcrdma_xdr_put_u32(e, ~seed + i))
			return -1;
	for (i = 0; i < 128 && resv[i].used; i++)
		;
	if (i == 128)
		return -1;
	rb = &resv[i];
	rb->used = true;
	rb->n = 0;
	rpcrdma_xprt_svc_call_set_priv(call, rb);
	for (i = 0; i < r; i++) {
		struct rpcrdma_mempool *pool = rpcrdma_mempool_set_chunk_pool(pools, lens[i]);
		struct rpcrdma_xdr_region reg;
		void *b = pool ? rpcrdma_mempool_get(pool) : NULL;

		if (b == NULL)
			return -1;
		rb->b[rb->n] = b;
		rb->pool[rb->n++] = pool;
		test_pattern_fill(b, lens[i], seed * 16 + 8 + i);
		reg = rpcrdma_xdr_region_va(b, lens[i], pool->lkey, pool->rkey);
		if (rpcrdma_xdr_put_ddp(e, &reg))
			return -1;
	}
	return (int)mode;
}

static int srv_answer(struct rpcrdma_xprt_svc_call *call)
{
	return srv_answer_from(call, srv_pools);
}

/*
 * The test program's service: the server's, and a client's backward
 * service (ctx: its struct srv_ctx, whose pools give DDP results).
 */
static void srv_recv_call(void *ctx, struct rpcrdma_xprt_svc_call *call)
{
	struct srv_ctx *c = ctx;
	int mode;

	c->last_xid = rpcrdma_xprt_svc_call_msg(call)->xid;
	c->xid_log[c->calls % 64] = c->last_xid;
	c->calls++;
	c->active++;
	if (c->active > c->max_active)
		c->max_active = c->active;
	if (c->no_reply) {
		c->async[c->async_n++ % 64] = call;
		return;
	}
	mode = srv_answer_from(call, c->pools ? c->pools : srv_pools);
	if (mode < 0) {
		c->bad++;
		rpcrdma_xprt_svc_call_drop(call);
		return;
	}
	if ((mode & MODE_ASYNC) && c->async_n < 64) {
		c->async[c->async_n++] = call;
		return;
	}
	rpcrdma_xprt_svc_call_reply(call);
}

static void srv_flush_async(struct srv_ctx *c)
{
	for (uint32_t i = 0; i < c->async_n && i < 64; i++)
		rpcrdma_xprt_svc_call_reply(c->async[i]);
	c->async_n = 0;
}

/* ---------------- running both ends ---------------- */

/*
 * Server connections replaced by a newer one while still draining: a
 * reconnecting peer can be faster than the drain (verbs: the old QP's
 * flush and rdma_cm's DISCONNECTED come after the new request). Polled
 * until closed, then destroyed (srv_parked_poll()).
 */
static struct rpcrdma_xprt *srv_parked[8];
static unsigned int srv_nparked;
static unsigned int srv_refused; /* connections refused while those drained */

static void srv_parked_poll(void)
{
	for (unsigned int i = 0; i < srv_nparked;) {
		struct rpcrdma_xprt *x = srv_parked[i];
		enum rpcrdma_xprt_state st = rpcrdma_xprt_state(x);

		if (st != RPCRDMA_XPRT_CLOSED && st != RPCRDMA_XPRT_ERROR) {
			rpcrdma_xprt_poll(x);
			i++;
			continue;
		}
		CHECK(rpcrdma_xprt_destroy(x) == 0, "destroy a replaced server connection");
		srv_parked[i] = srv_parked[--srv_nparked];
	}
}

/*
 * The server's connect requests, one connection at a time: the one before
 * must be over (closed, in error or draining), and is destroyed to make
 * room, or parked until it has drained.
 */
static bool srv_refuse; /* reject every connect request (test_reconnect()) */

static int srv_accept(struct test_side *s, const struct rpcrdma_pmd_event *ev)
{
	int ret;

	if (srv_refuse) {
		rpcrdma_pmd_reject(ev->req, NULL, 0);
		return 0;
	}
	if (s->xprt != NULL) {
		enum rpcrdma_xprt_state st = rpcrdma_xprt_state(s->xprt);

		if (st == RPCRDMA_XPRT_DRAINING && srv_nparked < 8) {
			srv_parked[srv_nparked++] = s->xprt;
		} else {
			CHECK(st == RPCRDMA_XPRT_CLOSED || st == RPCRDMA_XPRT_ERROR,
			      "old server connection over, is %s", rpcrdma_xprt_state_name(st));
			CHECK(rpcrdma_xprt_destroy(s->xprt) == 0, "destroy");
		}
		s->xprt = NULL;
	}
	ret = test_side_accept(s, ev);
	if (ret == -ENOBUFS && srv_nparked > 0) {
		/*
		 * The pools are held by replaced connections still draining
		 * (siw flushes late receives only after the PMD's grace time):
		 * the engine refuses, as it must, and the client tries again.
		 */
		srv_refused++;
		return ret;
	}
	CHECK(ret == 0, "accept: %s", strerror(-ret));
	return ret;
}

/* Both ends, in this thread. */
static int pump_once(struct env *e)
{
	int work = test_side_pump_pair(&e->cli, &e->srv, srv_accept);

	srv_parked_poll();
	return work;
}

/* Poll until cond(arg) or the time runs out. */
static bool pump_until(struct env *e, bool (*cond)(struct env *, void *), void *arg)
{
	uint64_t end = test_now_ms() + WAIT_MS;

	while (!cond(e, arg)) {
		if (test_now_ms() > end)
			return false;
		pump_once(e);
	}
	return true;
}

static bool both_established(struct env *e, void *arg)
{
	return test_side_in(&e->cli, RPCRDMA_XPRT_ESTABLISHED) &&
	       test_side_in(&e->srv, RPCRDMA_XPRT_ESTABLISHED);
}

/* A bare client has no connection of its own: only the server's can be waited for. */
static bool srv_established(struct env *e, void *arg)
{
	return test_side_in(&e->srv, RPCRDMA_XPRT_ESTABLISHED);
}

static bool both_closed(struct env *e, void *arg)
{
	enum rpcrdma_xprt_state a =
		e->cli.xprt ? rpcrdma_xprt_state(e->cli.xprt) : RPCRDMA_XPRT_CLOSED;
	enum rpcrdma_xprt_state b =
		e->srv.xprt ? rpcrdma_xprt_state(e->srv.xprt) : RPCRDMA_XPRT_CLOSED;

	return (a == RPCRDMA_XPRT_CLOSED || a == RPCRDMA_XPRT_ERROR) &&
	       (b == RPCRDMA_XPRT_CLOSED || b == RPCRDMA_XPRT_ERROR) && srv_nparked == 0;
}

/* The versions the next connections are configured with (v2forms: 2, 2..2). */
static uint32_t cli_vers = RPCRDMA_VERS_1, srv_vers = RPCRDMA_VERS_1, srv_vers_min = RPCRDMA_VERS_1;

static void cli_params(struct env *e, uint32_t flags)
{
	test_side_params(&e->cli, RPCRDMA_XPRT_CLIENT);
	e->cli.params.vers = cli_vers;
	e->cli.params.flags = flags;
}

static void srv_params(struct env *e, uint32_t credits, uint32_t max)
{
	test_side_params(&e->srv, RPCRDMA_XPRT_SERVER);
	e->srv.params.vers = srv_vers;
	e->srv.params.vers_min = srv_vers_min;
	e->srv.params.max_credits = max;
	e->srv.params.credits = credits;
	e->srv.params.recv_call = srv_recv_call;
	e->srv.params.reply_done = srv_reply_done;
	e->srv.params.ctx = &sctx;
}

#define DEF_FLAGS \
	(RPCRDMA_XPRT_F_PER_CALL_MR | RPCRDMA_XPRT_F_REMOTE_INV | RPCRDMA_XPRT_F_REPLY_CHUNK_ALWAYS)

/*
 * The flags a connection keeps on the device under test: per-call
 * registrations only where they are cheap, remote invalidation only where
 * a peer can invalidate our MRs (rpcrdma_xprt.h), and only with per-call
 * registrations.
 */
static uint32_t flags_kept(const struct rpcrdma_pmd_dev_info *di, uint32_t flags)
{
	if (!(di->flags & RPCRDMA_PMD_DEV_CHEAP_MR_REG))
		flags &= ~RPCRDMA_XPRT_F_PER_CALL_MR;
	if (!(di->flags & RPCRDMA_PMD_DEV_REMOTE_INV) || !(flags & RPCRDMA_XPRT_F_PER_CALL_MR))
		flags &= ~RPCRDMA_XPRT_F_REMOTE_INV;
	return flags;
}

/* Both ends' devices, pools and the server's listener; @cli_pmd, @srv_pmd as side_open()'s. */
static bool env_open_on(struct env *e, const char *cli_pmd, const char *cli_devargs,
			const char *srv_pmd, const char *srv_devargs)
{
	memset(e, 0, sizeof(*e));
	memset(&sctx, 0, sizeof(sctx));
	srv_refused = 0;
	test_side_addr(e->addr, sizeof(e->addr), "xprt");
	if (side_open(&e->cli, "xc", cli_pmd, cli_devargs) ||
	    side_open(&e->srv, "xs", srv_pmd, srv_devargs)) {
		CHECK(0, "open devices and pools");
		return false;
	}
	srv_pools = e->srv.pools;
	CHECK(rpcrdma_pmd_listen(e->srv.dev, e->addr, &e->srv.listener) == 0, "listen");
	cli_params(e, DEF_FLAGS);
	srv_params(e, 32, 32);
	return true;
}

/* Both ends on the PMD under test; devargs: shm's fault injection (NULL: none). */
static bool env_open(struct env *e, const char *cli_devargs, const char *srv_devargs)
{
	return env_open_on(e, NULL, cli_devargs, NULL, srv_devargs);
}

static bool env_connect(struct env *e)
{
	int ret;

	if (e->cli.xprt == NULL) {
		ret = rpcrdma_xprt_create(&e->cli.params, &e->cli.xprt);
		CHECK(ret == 0, "create client: %d", ret);
		if (ret)
			return false;
	}
	ret = rpcrdma_xprt_connect(e->cli.xprt, e->addr);
	CHECK(ret == 0, "connect: %d", ret);
	if (ret)
		return false;
	ret = pump_until(e, both_established, NULL);
	CHECK(ret, "both ends established");
	return ret;
}

/* What a connection that did not close waits for, on stderr. */
static void drain_report(const char *side, struct rpcrdma_xprt *x)
{
	struct rpcrdma_xprt_info in;

	if (x == NULL)
		return;
	rpcrdma_xprt_info(x, &in);
	fprintf(stderr, "%s: %s, sends out %u, receives posted %u, server calls unreleased %u\n",
		side, rpcrdma_xprt_state_name(rpcrdma_xprt_state(x)), in.sends_out, in.recvs_posted,
		in.svc_unreleased);
}

static void env_close(struct env *e)
{
	srv_flush_async(&sctx);
	if (e->cli.xprt && rpcrdma_xprt_state(e->cli.xprt) == RPCRDMA_XPRT_ESTABLISHED)
		rpcrdma_xprt_disconnect(e->cli.xprt);
	if (!pump_until(e, both_closed, NULL)) {
		CHECK(0, "both ends closed");
		drain_report("client", e->cli.xprt);
		drain_report("server", e->srv.xprt);
		for (unsigned int i = 0; i < srv_nparked; i++)
			drain_report("replaced server", srv_parked[i]);
	}
	if (e->cli.xprt)
		CHECK(rpcrdma_xprt_destroy(e->cli.xprt) == 0, "destroy client");
	if (e->srv.xprt)
		CHECK(rpcrdma_xprt_destroy(e->srv.xprt) == 0, "destroy server");
	side_close(&e->cli);
	side_close(&e->srv);
}

/* env_open() and env_connect(); false, and closed, when it does not connect. */
static bool env_up(struct env *e, const char *cli_devargs, const char *srv_devargs)
{
	if (!env_open(e, cli_devargs, srv_devargs))
		return false;
	if (env_connect(e))
		return true;
	env_close(e);
	return false;
}

/*
 * A bare PMD endpoint on @s in place of an xprt, to send crafted messages:
 * one CQ for both queues; RNR retried without end, so that a Send waits for
 * a receive the engine posts late.
 */
static void bare_qp(struct test_side *s)
{
	struct rpcrdma_pmd_qp_attr a;

	CHECK(rpcrdma_pmd_cq_create(s->dev, 256, &s->cq) == 0, "cq");
	rpcrdma_pmd_qp_attr_init(&a);
	a.send_cq = a.recv_cq = s->cq;
	a.rnr_retry = 7;
	CHECK(rpcrdma_pmd_qp_create(s->pd, &a, &s->qp) == 0, "qp");
}

/* ---------------- the client's calls ---------------- */

struct tcall {
	/* the call's shape */
	uint32_t proc;
	uint32_t words;
	uint32_t nitems;
	uint32_t item_len[MAXI];
	uint32_t nres;
	uint32_t res_len[MAXI];
	bool res_chunks; /* the client offers write chunks for the results */
	uint32_t rwords;
	uint32_t mode;
	uint32_t flags;
	uint64_t tmo_us; /* rpcrdma_xprt_call_set_timeout() when not 0 */
	uint32_t order;	 /* completions before this one's (tcall_cb) */
	uint32_t ncb;	 /* times its callback ran: 1 */
	/* its buffers and outcome */
	struct rpcrdma_xprt_call *call;
	uint32_t seed;
	void *bufs[2 * MAXI + 1];
	struct rpcrdma_mempool *bpools[2 * MAXI + 1];
	uint32_t nbufs;
	void *res_buf[MAXI];
	bool done;
	int status;
	bool ok; /* the reply checked out */
};

static void *chunk_buf(struct test_side *s, struct tcall *t, uint32_t len)
{
	struct rpcrdma_mempool *pool = rpcrdma_mempool_set_chunk_pool(s->pools, len);
	void *b = pool ? rpcrdma_mempool_get(pool) : NULL;

	if (b != NULL) {
		t->bufs[t->nbufs] = b;
		t->bpools[t->nbufs++] = pool;
	}
	return b;
}

static void tcall_bufs_put(struct tcall *t)
{
	for (uint32_t i = 0; i < t->nbufs; i++)
		rpcrdma_mempool_put(t->bpools[i], t->bufs[i]);
	t->nbufs = 0;
}

static uint32_t tcall_order;

static void tcall_cb(void *arg, struct rpcrdma_xprt_call *call, int status,
		     struct rpcrdma_xdr_dec *d)
{
	struct tcall *t = arg;
	struct rpcrdma_rpc_msg m;
	uint32_t v, i;
	const void *p;
	uint32_t n;

	t->done = true;
	t->ncb++;
	t->order = tcall_order++;
	t->status = status;
	t->ok = false;
	if (status == 0) {
		t->ok = rpcrdma_xprt_get_rpc(d, &m) == 0 && m.xid == rpcrdma_xprt_call_xid(call) &&
			m.type == RPCRDMA_RPC_REPLY && m.reply.accept_stat == RPCRDMA_RPC_SUCCESS;
		if (t->ok && t->proc == PROC_TEST) {
			t->ok = rpcrdma_xdr_get_u32(d, &v) == 0 && v == t->rwords;
			for (i = 0; t->ok && i < t->rwords; i++)
				t->ok = rpcrdma_xdr_get_u32(d, &v) == 0 && v == ~t->seed + i;
			for (i = 0; t->ok && i < t->nres; i++) {
				t->ok = rpcrdma_xdr_get_ddp(d, 1u << 20, &p, &n) == 0 &&
					n == t->res_len[i] &&
					test_pattern_same(p, n, t->seed * 16 + 8 + i);
				/* zero copy: the result is where the client's write chunk was */
				if (t->ok && t->res_chunks)
					t->ok = p == t->res_buf[i];
			}
		}
		if (t->ok)
			t->ok = rpcrdma_xdr_dec_left(d) == 0;
	}
	tcall_bufs_put(t);
	CHECK(rpcrdma_xprt_call_release(call) == 0, "release");
	t->call = NULL;
}

static uint32_t seed_next = 1;

/* The RPC header of a call to the test program, as the codec takes it. */
static void call_msg(struct rpcrdma_rpc_msg *m, uint32_t xid, uint32_t proc)
{
	memset(m, 0, sizeof(*m));
	m->xid = xid;
	m->type = RPCRDMA_RPC_CALL;
	m->call.rpcvers = RPCRDMA_RPC_VERS;
	m->call.prog = PROG;
	m->call.vers = 1;
	m->call.proc = proc;
}

/* Build and submit a test call. */
static int tcall_submit_on(struct test_side *sd, struct tcall *t)
{
	struct rpcrdma_xprt_call *c;
	struct rpcrdma_xdr_reply_spec *spec;
	struct rpcrdma_xdr_enc *x;
	struct rpcrdma_rpc_msg m;
	uint8_t hdr[64];
	uint32_t i;
	int ret;

	t->done = t->ok = false;
	t->status = 1;
	t->nbufs = 0;
	ret = rpcrdma_xprt_call_alloc(sd->xprt, &c);
	if (ret)
		return ret;
	t->call = c;
	t->seed = seed_next++;
	x = rpcrdma_xprt_call_enc(c);
	CHECK(rpcrdma_xprt_call_put_header(c, PROG, 1, t->proc) == 0, "call header");
	/* the codec's bytes for the same header */
	call_msg(&m, rpcrdma_xprt_call_xid(c), t->proc);
	CHECK(x->len == 40 && x->pos == 40 && rpcrdma_rpc_encode(&m, hdr, sizeof(hdr)) == 40 &&
		      memcmp(x->mem.addr, hdr, 40) == 0,
	      "call header as the codec's");
	spec = rpcrdma_xprt_call_reply_spec(c);
	spec->max_len = 24 + 64;
	if (t->proc == PROC_TEST) {
		rpcrdma_xdr_put_u32(x, t->seed);
		rpcrdma_xdr_put_u32(x, t->words);
		for (i = 0; i < t->words; i++)
			CHECK(rpcrdma_xdr_put_u32(x, t->seed + i) == 0, "word %u", i);
		rpcrdma_xdr_put_u32(x, t->nitems);
		for (i = 0; i < t->nitems; i++) {
			uint8_t *b = chunk_buf(sd, t, t->item_len[i]);
			struct rpcrdma_mempool *pool = t->bpools[t->nbufs - 1];
			struct rpcrdma_xdr_region reg;

			test_pattern_fill(b, t->item_len[i], t->seed * 16 + i);
			reg = rpcrdma_xdr_region_va(b, t->item_len[i], pool->lkey, pool->rkey);
			CHECK(rpcrdma_xdr_put_ddp(x, &reg) == 0, "put_ddp");
		}
		rpcrdma_xdr_put_u32(x, t->nres);
		for (i = 0; i < t->nres; i++)
			rpcrdma_xdr_put_u32(x, t->res_len[i]);
		rpcrdma_xdr_put_u32(x, t->rwords);
		rpcrdma_xdr_put_u32(x, t->mode);
		spec->max_len += 4 + 4 * t->rwords;
		for (i = 0; i < t->nres; i++) {
			spec->max_len += 4 + ((t->res_len[i] + 3) & ~3u);
			if (t->res_chunks) {
				uint8_t *b = chunk_buf(sd, t, t->res_len[i]);
				struct rpcrdma_mempool *pool = t->bpools[t->nbufs - 1];

				memset(b, 0, t->res_len[i]);
				t->res_buf[i] = b;
				spec->ddp[i] = rpcrdma_xdr_region_va(b, t->res_len[i], pool->lkey,
								     pool->rkey);
			}
		}
		if (t->res_chunks)
			spec->nddp = (uint16_t)t->nres;
		if (spec->max_len > 2048) {
			uint8_t *b = chunk_buf(sd, t, spec->max_len);
			struct rpcrdma_mempool *pool = t->bpools[t->nbufs - 1];

			spec->long_buf =
				rpcrdma_xdr_region_va(b, spec->max_len, pool->lkey, pool->rkey);
		}
	}
	if (t->tmo_us)
		CHECK(rpcrdma_xprt_call_set_timeout(c, t->tmo_us) == 0, "set_timeout");
	return rpcrdma_xprt_call_submit(c, t->flags, tcall_cb, t);
}

/* A forward call from the client. */
static int tcall_submit(struct env *e, struct tcall *t)
{
	return tcall_submit_on(&e->cli, t);
}

static bool tcall_done(struct env *e, void *arg)
{
	return ((struct tcall *)arg)->done;
}

/* One call, start to end. */
static bool run_call(struct env *e, struct tcall *t)
{
	int ret = tcall_submit(e, t);

	CHECK(ret == 0, "submit: %d", ret);
	if (ret)
		return false;
	if (!pump_until(e, tcall_done, t)) {
		CHECK(0, "call completes");
		return false;
	}
	return true;
}

/* @s's counters; all 0 when it has no connection (a failed accept) */
static void stats(struct test_side *s, struct rpcrdma_xprt_stats *st)
{
	if (s->xprt == NULL) {
		memset(st, 0, sizeof(*st));
		return;
	}
	rpcrdma_xprt_stats(s->xprt, st);
}

/* ------------------------------------------------------------ setup */

static void test_setup(void)
{
	struct rpcrdma_xprt_info ci, si;
	struct rpcrdma_xprt_stats st;
	struct env e;
	struct tcall t = { .proc = PROC_NULL };
	uint32_t kept = flags_kept(test_side_dev_info(), DEF_FLAGS);
	uint64_t end;
	bool up;
	int n;

	if (!env_open(&e, NULL, NULL))
		return;
	/* bad parameters */
	e.cli.params.max_calls = 3;
	CHECK(rpcrdma_xprt_create(&e.cli.params, &e.cli.xprt) == -EINVAL, "max_calls pow2");
	cli_params(&e, DEF_FLAGS);
	e.cli.params.send_inline = 1u << 20;
	CHECK(rpcrdma_xprt_create(&e.cli.params, &e.cli.xprt) == -EINVAL, "inline > buffer");
	cli_params(&e, DEF_FLAGS);
	e.cli.xprt = NULL;

	/* IDLE -> CONNECTING -> NEGOTIATING -> ESTABLISHED, one step at a time */
	CHECK(rpcrdma_xprt_create(&e.cli.params, &e.cli.xprt) == 0, "create");
	CHECK(rpcrdma_xprt_state(e.cli.xprt) == RPCRDMA_XPRT_IDLE, "IDLE");
	CHECK(rpcrdma_xprt_process(e.cli.xprt) == 0, "IDLE is stable");
	CHECK(rpcrdma_xprt_call_alloc(e.cli.xprt, &t.call) == 0, "alloc while idle");
	CHECK(rpcrdma_xprt_call_submit(t.call, 0, tcall_cb, &t) == 0 && t.done &&
		      t.status == -ENOTCONN,
	      "a call while IDLE fails at once: %d", t.status);
	CHECK(rpcrdma_xprt_connect(e.cli.xprt, e.addr) == 0, "connect");
	CHECK(rpcrdma_xprt_state(e.cli.xprt) == RPCRDMA_XPRT_CONNECTING, "CONNECTING");
	CHECK(rpcrdma_xprt_connect(e.cli.xprt, e.addr) == -EISCONN, "connect twice");
	/* the client's device resolves the address and route first (rdma_cm) */
	for (end = test_now_ms() + WAIT_MS; e.srv.xprt == NULL && test_now_ms() < end;) {
		test_side_events(&e.cli, NULL);
		test_side_events(&e.srv, srv_accept);
	}
	CHECK(e.srv.xprt && rpcrdma_xprt_state(e.srv.xprt) == RPCRDMA_XPRT_CONNECTING,
	      "server CONNECTING after accept");
	/* the client's ESTABLISHED carries the server's private data */
	for (end = test_now_ms() + WAIT_MS; test_now_ms() < end;) {
		struct rpcrdma_pmd_event ev;

		if (rpcrdma_pmd_event_poll(e.cli.dev, &ev, 1) != 1)
			continue;
		CHECK(ev.type == RPCRDMA_PMD_EVENT_ESTABLISHED && ev.private_data_len >= 8,
		      "ESTABLISHED with private data");
		/* walk the transition by hand: event, then process */
		rpcrdma_xprt_event(&ev);
		break;
	}
	CHECK(rpcrdma_xprt_state(e.cli.xprt) == RPCRDMA_XPRT_ESTABLISHED,
	      "client ESTABLISHED after NEGOTIATING: %s",
	      rpcrdma_xprt_state_name(rpcrdma_xprt_state(e.cli.xprt)));
	CHECK(pump_until(&e, both_established, NULL), "server ESTABLISHED");
	rpcrdma_xprt_info(e.cli.xprt, &ci);
	rpcrdma_xprt_info(e.srv.xprt, &si);
	CHECK(ci.peer_pdata && si.peer_pdata, "both sent RFC 8797 data");
	CHECK(ci.send_inline == 4096 && ci.recv_inline == 4096 && si.send_inline == 4096,
	      "4 KiB thresholds negotiated: %u %u", ci.send_inline, ci.recv_inline);
	/* the device decides (rpcrdma_xprt.h): what the params asked, less what it cannot do */
	CHECK(ci.flags == kept && si.flags == kept, "flags in force %#x %#x, want %#x", ci.flags,
	      si.flags, kept);
	CHECK(si.peer_remote_inv == ((kept & RPCRDMA_XPRT_F_REMOTE_INV) != 0) &&
		      !ci.peer_remote_inv,
	      "the client offered SWI where the device allows: %d", si.peer_remote_inv);
	CHECK(ci.grant == 1, "one credit before the first reply: %u", ci.grant);

	/* a null call */
	memset(&t, 0, sizeof(t));
	t.proc = PROC_NULL;
	CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "null call: %d", t.status);
	rpcrdma_xprt_info(e.cli.xprt, &ci);
	/* the reply goes before its receive is reposted: the spare receives keep the target */
	CHECK(ci.grant == 32, "the grant after the first reply: %u", ci.grant);
	stats(&e.cli, &st);
	CHECK(st.calls == 1 && st.replies == 1 && st.short_msgs == 1, "counters");
	CHECK(st.doorbells >= 1 && st.wrs == 1, "one WR, one doorbell: %lu %lu",
	      (unsigned long)st.wrs, (unsigned long)st.doorbells);

	/* ESTABLISHED -> DRAINING -> CLOSED, and a reconnect */
	CHECK(rpcrdma_xprt_disconnect(e.cli.xprt) == 0, "disconnect");
	CHECK(rpcrdma_xprt_state(e.cli.xprt) == RPCRDMA_XPRT_DRAINING, "DRAINING");
	CHECK(rpcrdma_xprt_destroy(e.cli.xprt) == -EBUSY, "no destroy while draining");
	CHECK(pump_until(&e, both_closed, NULL), "CLOSED");
	CHECK(rpcrdma_xprt_disconnect(e.cli.xprt) == -ENOTCONN, "disconnect when closed");
	CHECK(env_connect(&e), "reconnect");
	memset(&t, 0, sizeof(t));
	CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "null call after reconnect");
	env_close(&e);

	/* nobody listening: ERROR at once (shm) or after the event (rdma_cm's REJECTED) */
	if (!env_open(&e, NULL, NULL))
		return;
	rpcrdma_pmd_listener_close(e.srv.listener);
	e.srv.listener = NULL;
	CHECK(rpcrdma_xprt_create(&e.cli.params, &e.cli.xprt) == 0, "create");
	n = rpcrdma_xprt_connect(e.cli.xprt, e.addr);
	if (n == 0)
		pump_until(&e, both_closed, NULL);
	CHECK(rpcrdma_xprt_state(e.cli.xprt) == RPCRDMA_XPRT_ERROR, "refused: %d, state %s", n,
	      rpcrdma_xprt_state_name(rpcrdma_xprt_state(e.cli.xprt)));
	env_close(&e);

	/* a bare client without private data: the server uses 1024 bytes */
	if (!env_open(&e, NULL, NULL))
		return;
	bare_qp(&e.cli);
	CHECK(rpcrdma_pmd_connect(e.cli.qp, e.addr, NULL, 0) == 0, "bare connect");
	/*
	 * Both ends up: the client's ESTABLISHED may come after the server's
	 * (siw), and a QP still connecting cannot be disconnected.
	 */
	up = false;
	for (end = test_now_ms() + WAIT_MS;
	     !(up && e.srv.xprt && rpcrdma_xprt_state(e.srv.xprt) == RPCRDMA_XPRT_ESTABLISHED) &&
	     test_now_ms() < end;) {
		struct rpcrdma_pmd_event ev;

		/* the server's side only: the client's events are read here */
		test_side_poll(&e.srv, srv_accept);
		if (rpcrdma_pmd_event_poll(e.cli.dev, &ev, 1) == 1 &&
		    ev.type == RPCRDMA_PMD_EVENT_ESTABLISHED)
			up = true;
	}
	CHECK(up, "the bare client ESTABLISHED");
	CHECK(e.srv.xprt != NULL, "accepted");
	if (e.srv.xprt) {
		rpcrdma_xprt_info(e.srv.xprt, &si);
		CHECK(!si.peer_pdata && si.send_inline == 1024 && si.recv_inline == 1024 &&
			      !si.peer_remote_inv,
		      "defaults without private data: %u %u", si.send_inline, si.recv_inline);
	}
	CHECK(rpcrdma_pmd_disconnect(e.cli.qp) == 0, "the bare client disconnects");
	env_close(&e);
}

/* ------------------------------------------------------------ forms */

/*
 * Calls whose results go through 1 and through 3 write chunks: forms that
 * the forms tests run and test_capture_xprt.c captures.
 */
#define TCALL_WRITE1                                                                               \
	{                                                                                          \
		.proc = PROC_TEST, .words = 5, .nres = 1, .res_len = { 8191 }, .res_chunks = true, \
		.rwords = 4                                                                        \
	}
#define TCALL_WRITE3                                                                     \
	{                                                                                \
		.proc = PROC_TEST, .words = 2, .nres = 3, .res_len = { 3000, 2, 60000 }, \
		.res_chunks = true, .rwords = 2                                          \
	}

/*
 * "shm-plain": the shm driver under another name, whose dev_info says what
 * a verbs device says: registration is not cheap, a peer cannot
 * invalidate our MRs; and that a Send gathers 2 entries at most, which
 * its QPs then enforce (a QP asked for more is refused, as verbs refuses
 * one beyond the device's max_sge; a WR with more fails). Registered by
 * the test, so that the engine's choices from dev_info are checked on
 * every machine.
 */
#define PLAIN_SGE 2

static struct rpcrdma_pmd_ops plain_ops;
static int (*shm_info_get)(struct rpcrdma_pmd_dev *dev, struct rpcrdma_pmd_dev_info *info);
static int (*shm_qp_create)(struct rpcrdma_pmd_pd *pd, const struct rpcrdma_pmd_qp_attr *attr,
			    struct rpcrdma_pmd_qp **qp);

static int plain_info_get(struct rpcrdma_pmd_dev *dev, struct rpcrdma_pmd_dev_info *info)
{
	int ret = shm_info_get(dev, info);

	info->flags &= ~(RPCRDMA_PMD_DEV_CHEAP_MR_REG | RPCRDMA_PMD_DEV_REMOTE_INV);
	info->max_send_sge = PLAIN_SGE;
	info->max_read_sge = 1;
	return ret;
}

/* RDMA Reads queued on shm-plain QPs, and those with more SGEs than its max_read_sge (1) */
static rpcrdma_pmd_queue_send_burst_t shm_queue_send;
static unsigned long plain_reads, plain_reads_over;

static uint16_t plain_queue_send(struct rpcrdma_pmd_qp *qp, const struct rpcrdma_pmd_send_wr *wrs,
				 uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		if (wrs[i].opcode == RPCRDMA_PMD_WR_RDMA_READ) {
			plain_reads++;
			plain_reads_over += wrs[i].num_sge > 1;
		}
	return shm_queue_send(qp, wrs, n);
}

static int plain_qp_create(struct rpcrdma_pmd_pd *pd, const struct rpcrdma_pmd_qp_attr *attr,
			   struct rpcrdma_pmd_qp **qp)
{
	int ret;

	if (attr->max_send_sge > PLAIN_SGE)
		return -EINVAL;
	ret = shm_qp_create(pd, attr, qp);
	if (ret == 0) {
		shm_queue_send = (*qp)->queue_send_burst;
		(*qp)->queue_send_burst = plain_queue_send;
	}
	return ret;
}

static bool plain_register(void)
{
	struct rpcrdma_pmd_dev *dev;

	if (plain_ops.name != NULL)
		return true;
	if (rpcrdma_pmd_dev_open("shm", NULL, &dev) != 0)
		return false;
	plain_ops = *dev->ops;
	rpcrdma_pmd_dev_close(dev);
	shm_info_get = plain_ops.dev_info_get;
	shm_qp_create = plain_ops.qp_create;
	if (shm_info_get == NULL)
		return false;
	plain_ops.name = "shm-plain";
	plain_ops.dev_info_get = plain_info_get;
	plain_ops.qp_create = plain_qp_create;
	rpcrdma_pmd_register(&plain_ops);
	return true;
}

/*
 * The engine takes its registration and invalidation flags from the
 * device, whatever the params ask (the defaults ask for both): a client on
 * a device without cheap registration registers nothing per call and
 * offers no Send With Invalidate; a server on such a device still sends
 * it when the client offered it (sending is not what the flag is about).
 * And its Sends and Writes gather no more entries than the device's
 * max_send_sge, its RDMA Reads no more than max_read_sge (iWARP: 1): every
 * form goes through, on either end.
 */
static void test_dev_flags(void)
{
	const uint32_t both = RPCRDMA_XPRT_F_PER_CALL_MR | RPCRDMA_XPRT_F_REMOTE_INV;
	struct rpcrdma_xprt_params dflt;
	struct rpcrdma_xprt_stats cs, ss;
	struct rpcrdma_xprt_info ci, si;
	struct env e;

	rpcrdma_xprt_params_init(&dflt, RPCRDMA_XPRT_CLIENT);
	CHECK((dflt.flags & both) == both, "the defaults ask for both: %#x", dflt.flags);
	if (!test_side_case_runs(test_side_shm(), "dev_flags (shm-plain)",
				 "registers a driver over shm's; the device under test's own "
				 "flags are checked by setup"))
		return;
	CHECK(plain_register(), "register shm-plain");
	for (int plain_cli = 1; plain_cli >= 0; plain_cli--) {
		struct tcall t = TCALL_WRITE1;

		if (!env_open_on(&e, plain_cli ? "shm-plain" : NULL, NULL,
				 plain_cli ? NULL : "shm-plain", NULL))
			return;
		if (!env_connect(&e)) {
			env_close(&e);
			return;
		}
		const struct tcall more[] = {
			{ .proc = PROC_TEST, .words = 10, .nitems = 1, .item_len = { 100 } },
			{ .proc = PROC_TEST,
			  .words = 3,
			  .nitems = 3,
			  .item_len = { 40000, 1, 7001 } },
			TCALL_WRITE3,
			{ .proc = PROC_TEST, .words = 800, .rwords = 900 },
			{ .proc = PROC_TEST, .words = 2, .nres = 3, .res_len = { 100, 33, 7 } },
		};

		rpcrdma_xprt_info(e.cli.xprt, &ci);
		rpcrdma_xprt_info(e.srv.xprt, &si);
		CHECK((ci.flags & both) == (plain_cli ? 0 : both) &&
			      (si.flags & both) == (plain_cli ? both : 0),
		      "flags in force: client %#x, server %#x", ci.flags, si.flags);
		CHECK(si.peer_remote_inv == !plain_cli, "SWI offered: %d", si.peer_remote_inv);
		CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "write chunk call: %d", t.status);
		stats(&e.cli, &cs);
		stats(&e.srv, &ss);
		CHECK(cs.mr_regs == (plain_cli ? 0 : 1) && ss.send_inv == (plain_cli ? 0 : 1),
		      "plain %s: %lu registrations, %lu SWI", plain_cli ? "client" : "server",
		      (unsigned long)cs.mr_regs, (unsigned long)ss.send_inv);
		for (unsigned int i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
			t = more[i];
			CHECK(run_call(&e, &t) && t.status == 0 && t.ok && sctx.bad == 0,
			      "plain %s, call %u: %d", plain_cli ? "client" : "server", i,
			      t.status);
		}
		CHECK(plain_cli || (plain_reads >= 3 && plain_reads_over == 0),
		      "a plain server's Reads: %lu, %lu over max_read_sge", plain_reads,
		      plain_reads_over);
		/* the last reply's 3 results inline: 8 entries, copied into one on 2 */
		stats(&e.srv, &ss);
		CHECK(ss.inline_pullups == (plain_cli ? 0 : 1), "results copied inline: %lu",
		      (unsigned long)ss.inline_pullups);
		env_close(&e);
	}
}

/* What a form case expects of its call and reply. */
struct form_want {
	char call, reply; /* the form (RFC 8166 3.5): 'S'hort, 'C'hunked or 'L'ong */
	bool long_reply;  /* the client offered a reply chunk */
	bool swi;	  /* the reply uses Send With Invalidate (per-call MRs only) */
};

struct form_case {
	const char *name;
	struct tcall t;
	uint32_t cli_flags;
	struct form_want want;
};

static bool srv_holds(struct env *e, void *arg)
{
	return sctx.async_n != 0;
}

static void test_forms_with(const char *label, uint32_t base_flags)
{
	const struct form_case cases[] = {
		{ "short",
		  { .proc = PROC_TEST, .words = 10, .nitems = 1, .item_len = { 100 }, .rwords = 5 },
		  DEF_FLAGS,
		  { 'S', 'S', false, false } },
		{ "chunked, read chunks",
		  { .proc = PROC_TEST, .words = 3, .nitems = 3, .item_len = { 40000, 1, 7001 } },
		  DEF_FLAGS,
		  { 'C', 'S', false, false } },
		{ "1 write chunk, SWI", TCALL_WRITE1, DEF_FLAGS, { 'S', 'C', false, true } },
		{ "1 write chunk, no SWI",
		  TCALL_WRITE1,
		  RPCRDMA_XPRT_F_PER_CALL_MR | RPCRDMA_XPRT_F_REPLY_CHUNK_ALWAYS,
		  { 'S', 'C', false, false } },
		{ "3 write chunks", TCALL_WRITE3, DEF_FLAGS, { 'S', 'C', false, false } },
		{ "read and write chunks, async reply",
		  { .proc = PROC_TEST,
		    .words = 3,
		    .nitems = 2,
		    .item_len = { 2000, 3001 },
		    .nres = 2,
		    .res_len = { 1000, 999 },
		    .res_chunks = true,
		    .rwords = 2,
		    .mode = MODE_ASYNC },
		  DEF_FLAGS,
		  { 'C', 'C', false, false } },
		/* one registration, the message: one rkey covers it, so SWI */
		{ "long call, SWI",
		  { .proc = PROC_TEST, .words = 800, .rwords = 2 },
		  DEF_FLAGS,
		  { 'L', 'S', false, true } },
		{ "long reply",
		  { .proc = PROC_TEST, .words = 2, .rwords = 900 },
		  DEF_FLAGS,
		  { 'S', 'L', true, true } },
		/* 48 KiB of results: the server's stream is a chunk buffer, not its 4 KiB inline one */
		{ "long reply over an inline buffer",
		  { .proc = PROC_TEST, .words = 2, .rwords = 12000 },
		  DEF_FLAGS,
		  { 'S', 'L', true, true } },
		{ "long call + long reply",
		  { .proc = PROC_TEST,
		    .words = 800,
		    .nitems = 1,
		    .item_len = { 3 },
		    .rwords = 900 },
		  DEF_FLAGS,
		  { 'L', 'L', true, false } },
		{ "long call + long reply, no SWI",
		  { .proc = PROC_TEST, .words = 800, .rwords = 900 },
		  RPCRDMA_XPRT_F_PER_CALL_MR | RPCRDMA_XPRT_F_REPLY_CHUNK_ALWAYS,
		  { 'L', 'L', true, false } },
		{ "results inline without write chunks",
		  { .proc = PROC_TEST, .words = 2, .nres = 2, .res_len = { 100, 33 }, .rwords = 1 },
		  DEF_FLAGS,
		  { 'S', 'S', false, false } },
	};
	struct rpcrdma_xprt_stats c0, c1, s0, s1;
	unsigned int i;
	struct env e;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct form_case *fc = &cases[i];
		struct tcall t = fc->t;
		uint32_t flags = fc->cli_flags & base_flags;
		uint32_t kept = flags_kept(test_side_dev_info(), flags);
		bool swi = fc->want.swi && (kept & RPCRDMA_XPRT_F_REMOTE_INV);

		if (!env_open(&e, NULL, NULL))
			return;
		cli_params(&e, flags);
		/* 2 KiB Sends, so a Long Call fits the 4 KiB inline buffer */
		e.cli.params.send_inline = 2048;
		e.cli.params.recv_inline = 2048;
		if (!env_connect(&e)) {
			env_close(&e);
			return;
		}
		stats(&e.cli, &c0);
		stats(&e.srv, &s0);
		if (t.mode & MODE_ASYNC) {
			CHECK(tcall_submit(&e, &t) == 0, "%s: submit", fc->name);
			/* the server has the call (its chunks read) and holds the reply */
			CHECK(pump_until(&e, srv_holds, NULL), "%s: call held", fc->name);
			for (int k = 0; k < 50; k++)
				pump_once(&e);
			CHECK(!t.done && sctx.async_n == 1, "%s: reply held", fc->name);
			srv_flush_async(&sctx);
			CHECK(pump_until(&e, tcall_done, &t), "%s: async reply", fc->name);
		} else {
			run_call(&e, &t);
		}
		CHECK(t.status == 0 && t.ok && sctx.bad == 0,
		      "%s (%s): status %d, reply %s, server saw %u bad", fc->name, label, t.status,
		      t.ok ? "ok" : "bad", sctx.bad);
		stats(&e.cli, &c1);
		stats(&e.srv, &s1);
		CHECK(c1.short_msgs - c0.short_msgs == (fc->want.call == 'S') &&
			      c1.chunked_msgs - c0.chunked_msgs == (fc->want.call == 'C') &&
			      c1.long_msgs - c0.long_msgs == (fc->want.call == 'L'),
		      "%s (%s): call form S%lu C%lu L%lu", fc->name, label,
		      (unsigned long)(c1.short_msgs - c0.short_msgs),
		      (unsigned long)(c1.chunked_msgs - c0.chunked_msgs),
		      (unsigned long)(c1.long_msgs - c0.long_msgs));
		CHECK(s1.short_msgs - s0.short_msgs == (fc->want.reply == 'S') &&
			      s1.chunked_msgs - s0.chunked_msgs == (fc->want.reply == 'C') &&
			      s1.long_msgs - s0.long_msgs == (fc->want.reply == 'L'),
		      "%s (%s): reply form S%lu C%lu L%lu", fc->name, label,
		      (unsigned long)(s1.short_msgs - s0.short_msgs),
		      (unsigned long)(s1.chunked_msgs - s0.chunked_msgs),
		      (unsigned long)(s1.long_msgs - s0.long_msgs));
		CHECK(c1.long_replies - c0.long_replies == fc->want.long_reply,
		      "%s: reply chunk offered", fc->name);
		CHECK(s1.send_inv - s0.send_inv == swi && c1.send_inv - c0.send_inv == swi,
		      "%s (%s): SWI %lu/%lu, want %d", fc->name, label,
		      (unsigned long)(s1.send_inv - s0.send_inv),
		      (unsigned long)(c1.send_inv - c0.send_inv), swi);
		if (kept & RPCRDMA_XPRT_F_PER_CALL_MR)
			CHECK(c1.mr_regs - c0.mr_regs ==
				      c1.mr_invalidates - c0.mr_invalidates + (swi ? 1 : 0),
			      "%s: every registration invalidated (%lu regs, %lu inv)", fc->name,
			      (unsigned long)(c1.mr_regs - c0.mr_regs),
			      (unsigned long)(c1.mr_invalidates - c0.mr_invalidates));
		else
			CHECK(c1.mr_regs == 0, "%s: no per-call registration", fc->name);
		env_close(&e);
	}
}

static void test_forms(void)
{
	if (test_side_case_runs(test_side_dev_info()->flags & RPCRDMA_PMD_DEV_CHEAP_MR_REG,
				"forms with per-call MRs",
				"dev_info: registration is not cheap on this device, the engine "
				"uses the pools' keys (the run below)"))
		test_forms_with("per-call MRs", ~0u);
	test_forms_with("pool keys", ~RPCRDMA_XPRT_F_PER_CALL_MR);
}

/* ------------------------------------------------------------ credits */

#define PIPE_CALLS 10000
#define PIPE_DEPTH 16

static void test_credits(void)
{
	static struct tcall ts[PIPE_DEPTH];
	struct rpcrdma_xprt_info ci, si;
	struct rpcrdma_xprt_stats cs, ss;
	uint32_t sent = 0, done = 0, ok = 0, i, max_out = 0, max_out_shrunk = 0;
	uint32_t phase = 0, shrunk_at = 0;
	uint64_t end;
	struct env e;

	if (!env_open(&e, NULL, NULL))
		return;
	srv_params(&e, 4, 8);
	if (!env_connect(&e)) {
		env_close(&e);
		return;
	}
	end = test_now_ms() + 4 * WAIT_MS;
	while (done < PIPE_CALLS && test_now_ms() < end) {
		for (i = 0; i < PIPE_DEPTH && sent < PIPE_CALLS; i++) {
			if (ts[i].call != NULL || (ts[i].done == false && ts[i].status == 1))
				continue;
			if (ts[i].done) {
				done++;
				ok += ts[i].status == 0 && ts[i].ok;
				ts[i].done = false;
			}
			memset(&ts[i], 0, sizeof(ts[i]));
			ts[i].proc = PROC_NULL;
			if (tcall_submit(&e, &ts[i]) == 0)
				sent++;
		}
		pump_once(&e);
		rpcrdma_xprt_info(e.cli.xprt, &ci);
		rpcrdma_xprt_info(e.srv.xprt, &si);
		if (ci.outstanding > max_out)
			max_out = ci.outstanding;
		if (si.outstanding > max_out)
			max_out = si.outstanding;
		/*
		 * Shrink the grant to 2 for a while, then grow it back to 4;
		 * by phase, since sent moves by up to PIPE_DEPTH a turn.
		 */
		if (phase == 0 && sent >= PIPE_CALLS / 3) {
			rpcrdma_xprt_set_credits(e.srv.xprt, 2);
			shrunk_at = sent;
			phase = 1;
		}
		if (phase == 1 && sent > shrunk_at + 200 && ci.outstanding > max_out_shrunk)
			max_out_shrunk = ci.outstanding;
		if (phase == 1 && sent >= 2 * PIPE_CALLS / 3) {
			rpcrdma_xprt_set_credits(e.srv.xprt, 4);
			phase = 2;
		}
		if (sent == PIPE_CALLS) {
			for (i = 0; i < PIPE_DEPTH; i++)
				if (ts[i].done) {
					done++;
					ok += ts[i].status == 0 && ts[i].ok;
					ts[i].done = false;
					ts[i].status = 0;
				}
		}
	}
	CHECK(done == PIPE_CALLS && ok == PIPE_CALLS, "10,000 calls completed: %u, %u ok", done,
	      ok);
	CHECK(max_out <= 4, "never more than 4 outstanding: %u", max_out);
	CHECK(max_out_shrunk <= 2 && max_out_shrunk >= 1, "at most 2 while the grant was 2: %u",
	      max_out_shrunk);
	stats(&e.cli, &cs);
	stats(&e.srv, &ss);
	CHECK(cs.max_outstanding == 4, "the grant of 4 was used: %lu",
	      (unsigned long)cs.max_outstanding);
	CHECK(cs.credit_stalls > 0, "calls waited for credits");
	CHECK(ss.excess_calls == 0, "no call beyond the grant");
	CHECK(cs.doorbells < cs.wrs, "doorbells batch WRs: %lu doorbells for %lu WRs",
	      (unsigned long)cs.doorbells, (unsigned long)cs.wrs);
	printf("credits: %u calls, max %u outstanding (%u under a grant of 2), %lu stalls, "
	       "%lu WRs in %lu doorbells\n",
	       done, max_out, max_out_shrunk, (unsigned long)cs.credit_stalls,
	       (unsigned long)cs.wrs, (unsigned long)cs.doorbells);
	env_close(&e);
}

/*
 * Send-queue WRs are unsignaled but one in 16: each end's CQ sees one Send
 * completion per 16 calls next to one receive completion per call; replies
 * go before their call's receive is reposted and still grant the full
 * target; a disconnect with unsignaled Sends not retired drains (the
 * marker) and gives every buffer back.
 */
static void test_unsignaled(void)
{
	struct rpcrdma_xprt_info ci, si;
	struct rpcrdma_pmd_cq *ccq, *scq;
	uint64_t cw0, sw0, cw, sw;
	uint32_t min_grant = UINT32_MAX;
	struct tcall t;
	struct env e;
	int i;

	if (!env_up(&e, NULL, NULL))
		return;
	rpcrdma_xprt_info(e.cli.xprt, &ci);
	rpcrdma_xprt_info(e.srv.xprt, &si);
	ccq = ci.qp->send_cq;
	scq = si.qp->send_cq;
	cw0 = ccq->stats.wcs;
	sw0 = scq->stats.wcs;
	for (i = 0; i < 20; i++) {
		memset(&t, 0, sizeof(t));
		t.proc = PROC_NULL;
		CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "null call %d: %d", i, t.status);
		rpcrdma_xprt_info(e.cli.xprt, &ci);
		if (ci.grant < min_grant)
			min_grant = ci.grant;
	}
	CHECK(min_grant == 32, "every reply granted the target: lowest %u", min_grant);
	cw = ccq->stats.wcs - cw0;
	sw = scq->stats.wcs - sw0;
	/* version 2: each end's ROPT_INITXCH, a signaled Send and a receive on each side */
	CHECK(cw == 21 + (cli_vers == 2) * 2 && sw == 21 + (cli_vers == 2) * 2,
	      "20 receives and 1 Send completion each: %lu, %lu", (unsigned long)cw,
	      (unsigned long)sw);
	rpcrdma_xprt_info(e.srv.xprt, &si);
	CHECK(si.outstanding == 0, "no call active at the server: %u", si.outstanding);
	/* 4 Sends on each side succeeded unsignaled: the drain must retire them */
	env_close(&e);
}

/* ------------------------------------------------------------ client API: timeouts, polling */

/* Answer (late) or drop every call the no_reply server holds. */
static void srv_held(bool answer)
{
	for (uint32_t i = 0; i < sctx.async_n && i < 64; i++) {
		struct rpcrdma_xprt_svc_call *call = sctx.async[i];

		if (answer && srv_answer(call) >= 0)
			rpcrdma_xprt_svc_call_reply(call);
		else
			rpcrdma_xprt_svc_call_drop(call);
	}
	sctx.async_n = 0;
}

static bool late_counted(struct env *e, void *arg)
{
	struct rpcrdma_xprt_stats st;

	stats(&e->cli, &st);
	return st.late_replies >= *(uint64_t *)arg;
}

static bool both_done(struct env *e, void *arg)
{
	struct tcall *t = arg;

	return t[0].done && t[1].done;
}

static uint32_t nfill;

/* t[from..nfill) done */
static bool calls_done(const struct tcall *t, uint32_t from)
{
	for (uint32_t i = from; i < nfill; i++)
		if (!t[i].done)
			return false;
	return true;
}

/* fill[1..nfill-1] done */
static bool fill_done(struct env *e, void *arg)
{
	return calls_done(arg, 1);
}

/* Submit a test call with its own timeout. */
static int tcall_submit_tmo(struct env *e, struct tcall *t, uint64_t us)
{
	t->tmo_us = us;
	return tcall_submit(e, t);
}

/* t[0..nfill) done */
static bool all_done(struct env *e, void *arg)
{
	return calls_done(arg, 0);
}

/*
 * rfc5666bis 4.3: a requester never has more calls outstanding than
 * granted, and a call that timed out after its Send is still outstanding
 * at the responder. It keeps its credit until its late reply; when such
 * calls hold the whole grant, the client disconnects (tmo_disconnects).
 * Before, a timeout gave the credit back at once: with the server holding
 * every call, the client sent past the grant.
 */
static void test_timeout(void)
{
	struct rpcrdma_xprt_stats st, st0;
	struct rpcrdma_xprt_info ci;
	struct tcall t[2], *fill = NULL, *a = NULL, *b = NULL;
	uint32_t g, half, calls0;
	uint64_t t0, one = 1, late;
	struct env e;

	if (!env_open(&e, NULL, NULL))
		return;
	/* every call of this connection times out after 20 ms unless told otherwise */
	e.cli.params.call_timeout_us = 20000 * tmo_scale;
	if (!env_connect(&e)) {
		env_close(&e);
		return;
	}
	/* a first call answered: the window opens from 1 to the server's grant */
	memset(t, 0, sizeof(t));
	t[0].proc = PROC_NULL;
	CHECK(run_call(&e, &t[0]) && t[0].status == 0, "first call: %d", t[0].status);
	rpcrdma_xprt_info(e.cli.xprt, &ci);
	CHECK(ci.grant >= 4, "grant %u", ci.grant);

	/* a call the server never answers: -ETIMEDOUT after its deadline, not before */
	sctx.no_reply = true;
	memset(t, 0, sizeof(t));
	t[0].proc = PROC_NULL;
	t0 = test_now_ms();
	CHECK(run_call(&e, &t[0]), "the call completes");
	CHECK(t[0].status == -ETIMEDOUT, "status %d", t[0].status);
	CHECK(test_now_ms() - t0 >= 19 * tmo_scale, "not before its deadline: %lu ms",
	      (unsigned long)(test_now_ms() - t0));
	CHECK(sctx.calls == 2, "the server got it: %u", sctx.calls);
	stats(&e.cli, &st);
	CHECK(st.timeouts == 1 && st.failed == 1, "timeouts %lu failed %lu",
	      (unsigned long)st.timeouts, (unsigned long)st.failed);
	rpcrdma_xprt_info(e.cli.xprt, &ci);
	CHECK(ci.outstanding == 1, "the server holds it: its credit stays held (%u outstanding)",
	      ci.outstanding);

	/* its late reply: dropped and counted as late, not as unmatched; the credit back */
	srv_held(true);
	CHECK(pump_until(&e, late_counted, &one), "the late reply arrives");
	stats(&e.cli, &st);
	CHECK(st.late_replies == 1 && st.unmatched == 0 && st.replies == 1,
	      "late %lu unmatched %lu replies %lu", (unsigned long)st.late_replies,
	      (unsigned long)st.unmatched, (unsigned long)st.replies);
	rpcrdma_xprt_info(e.cli.xprt, &ci);
	CHECK(ci.outstanding == 0, "the late reply gave its credit back: %u", ci.outstanding);

	/* the connection goes on: a call answered in time completes normally */
	sctx.no_reply = false;
	memset(t, 0, sizeof(t));
	t[0].proc = PROC_NULL;
	CHECK(run_call(&e, &t[0]) && t[0].status == 0 && t[0].ok, "call after: %d", t[0].status);

	/*
	 * The window: g calls the server holds, half of them timing out. New
	 * calls wait for the credits those keep, and the server never has more
	 * than g calls; their late replies let the new calls go.
	 */
	rpcrdma_xprt_info(e.cli.xprt, &ci);
	g = ci.grant < 32 ? ci.grant : 32;
	half = g / 2;
	a = calloc(g, sizeof(*a));
	b = calloc(half, sizeof(*b));
	sctx.no_reply = true;
	sctx.max_active = sctx.active;
	calls0 = sctx.calls;
	stats(&e.cli, &st0);
	for (uint32_t i = 0; a != NULL && b != NULL && i < g; i++) {
		a[i].proc = PROC_NULL;
		CHECK(tcall_submit_tmo(&e, &a[i], (i < half ? 20000 : 10000000) * tmo_scale) == 0,
		      "submit a%u", i);
	}
	nfill = half;
	CHECK(a != NULL && b != NULL && pump_until(&e, all_done, a), "the first half times out");
	for (uint32_t i = 0; a != NULL && b != NULL && i < half; i++) {
		b[i].proc = PROC_NULL;
		CHECK(tcall_submit_tmo(&e, &b[i], 10000000 * tmo_scale) == 0, "submit b%u", i);
	}
	for (int k = 0; k < 200; k++)
		pump_once(&e);
	stats(&e.cli, &st);
	rpcrdma_xprt_info(e.cli.xprt, &ci);
	CHECK(sctx.calls - calls0 == g && st.calls - st0.calls == g && ci.outstanding == g &&
		      st.credit_stalls > st0.credit_stalls,
	      "%u calls held, %u timed out: the server got %u, the client sent %lu, %u "
	      "outstanding, want %u; the new calls wait for a credit",
	      g, half, sctx.calls - calls0, (unsigned long)(st.calls - st0.calls), ci.outstanding,
	      g);
	sctx.no_reply = false;
	srv_held(true);
	late = st0.late_replies + half;
	CHECK(pump_until(&e, late_counted, &late), "the late replies arrive");
	nfill = half;
	CHECK(b != NULL && pump_until(&e, all_done, b), "the new calls complete");
	nfill = g;
	CHECK(a != NULL && pump_until(&e, all_done, a), "the held calls complete");
	for (uint32_t i = 0; a != NULL && i < g; i++)
		CHECK(a[i].status == (i < half ? -ETIMEDOUT : 0), "a%u: %d", i, a[i].status);
	for (uint32_t i = 0; b != NULL && i < half; i++)
		CHECK(b[i].status == 0 && b[i].ok, "b%u: %d", i, b[i].status);
	CHECK(sctx.max_active <= g, "the server never had more than the grant: %u of %u",
	      sctx.max_active, g);
	rpcrdma_xprt_info(e.cli.xprt, &ci);
	CHECK(ci.outstanding == 0, "every credit back: %u", ci.outstanding);
	free(a);
	free(b);

	/*
	 * Two calls on a full grant... the server answers nothing: the one
	 * sent waits for its reply, the other for a credit. The second has the
	 * earlier deadline and times out first, from the credit wait. Then
	 * every call sent times out: they hold the whole grant, and the client
	 * disconnects.
	 */
	sctx.no_reply = true;
	stats(&e.cli, &st0);
	rpcrdma_xprt_info(e.cli.xprt, &ci);
	memset(t, 0, sizeof(t));
	t[0].proc = PROC_TEST;
	t[0].nres = 1;
	t[0].res_len[0] = 4096;
	t[0].res_chunks = true; /* a write chunk, registered for the call (PER_CALL_MR) */
	t[1].proc = PROC_NULL;
	CHECK(tcall_submit_tmo(&e, &t[0], 60000 * tmo_scale) == 0, "submit 0");
	/* fill the grant so that the second call waits for a credit */
	fill = calloc(ci.grant, sizeof(*fill));
	for (uint32_t i = 1; fill != NULL && i < ci.grant; i++) {
		fill[i].proc = PROC_NULL;
		CHECK(tcall_submit_tmo(&e, &fill[i], 60000 * tmo_scale) == 0, "filler %u", i);
	}
	CHECK(tcall_submit_tmo(&e, &t[1], 10000 * tmo_scale) == 0, "submit 1");
	CHECK(pump_until(&e, both_done, t), "both complete");
	nfill = fill != NULL ? ci.grant : 0;
	CHECK(fill != NULL && pump_until(&e, fill_done, fill), "the others complete");
	CHECK(t[0].status == -ETIMEDOUT && t[1].status == -ETIMEDOUT, "statuses %d %d", t[0].status,
	      t[1].status);
	CHECK(t[1].order < t[0].order, "the earlier deadline first, though submitted last");
	stats(&e.cli, &st);
	CHECK(st.credit_stalls > st0.credit_stalls, "the second call waited for a credit");
	CHECK(st.calls - st0.calls == ci.grant, "the one waiting for a credit was never sent: %lu",
	      (unsigned long)(st.calls - st0.calls));
	CHECK((st.mr_regs > st0.mr_regs || !(ci.flags & RPCRDMA_XPRT_F_PER_CALL_MR)) &&
		      st.mr_invalidates - st0.mr_invalidates == st.mr_regs - st0.mr_regs,
	      "every registration invalidated: %lu of %lu",
	      (unsigned long)(st.mr_invalidates - st0.mr_invalidates),
	      (unsigned long)(st.mr_regs - st0.mr_regs));
	CHECK(st.tmo_disconnects == st0.tmo_disconnects + 1 &&
		      rpcrdma_xprt_state(e.cli.xprt) != RPCRDMA_XPRT_ESTABLISHED,
	      "the whole grant held by timed-out calls: disconnected (%lu, state %d)",
	      (unsigned long)(st.tmo_disconnects - st0.tmo_disconnects),
	      (int)rpcrdma_xprt_state(e.cli.xprt));
	/* the held calls are dropped: a late Write into the invalidated chunk would fail */
	srv_held(false);
	env_close(&e);
	for (uint32_t i = 1; fill != NULL && i < ci.grant; i++)
		CHECK(fill[i].done && fill[i].status == -ETIMEDOUT, "filler %u: %d", i,
		      fill[i].status);
	free(fill);
}

/*
 * A NULL call's header through rpcrdma_xprt_put_rpc() instead of
 * put_header(), and room for its empty reply.
 */
static void put_null_call(struct rpcrdma_xprt_call *c)
{
	struct rpcrdma_rpc_msg m;

	call_msg(&m, rpcrdma_xprt_call_xid(c), PROC_NULL);
	CHECK(rpcrdma_xprt_put_rpc(rpcrdma_xprt_call_enc(c), &m) == 0, "put rpc");
	rpcrdma_xprt_call_reply_spec(c)->max_len = 64;
}

static void test_polling(void)
{
	struct rpcrdma_xprt_call *c;
	struct rpcrdma_xdr_dec *reply;
	struct rpcrdma_rpc_msg m;
	struct rpcrdma_xprt_stats st;
	uint64_t end;
	struct env e;
	int ret;

	if (!env_up(&e, NULL, NULL))
		return;
	/* submitted without a callback; tested until done */
	CHECK(rpcrdma_xprt_call_alloc(e.cli.xprt, &c) == 0, "alloc");
	CHECK(rpcrdma_xprt_call_test(c, NULL) == -EINVAL, "a call not submitted");
	{
		/* no room for the header: nothing written */
		struct rpcrdma_xdr_enc *x = rpcrdma_xprt_call_enc(c);
		uint32_t room = x->mem.len - x->len;

		CHECK(rpcrdma_xdr_reserve(x, room - 36) != NULL, "fill the stream");
		CHECK(rpcrdma_xprt_call_put_header(c, PROG, 1, PROC_NULL) == -ENOSPC &&
			      x->len == room - 36,
		      "call header without room");
		CHECK(rpcrdma_xprt_call_release(c) == 0, "release unsubmitted");
		CHECK(rpcrdma_xprt_call_alloc(e.cli.xprt, &c) == 0, "alloc");
	}
	put_null_call(c);
	CHECK(rpcrdma_xprt_call_submit(c, 0, NULL, NULL) == 0, "submit without a callback");
	CHECK(rpcrdma_xprt_call_test(c, &reply) == -EINPROGRESS, "in progress");
	CHECK(rpcrdma_xprt_call_release(c) == -EBUSY, "not released while out");
	end = test_now_ms() + WAIT_MS;
	while ((ret = rpcrdma_xprt_call_test(c, &reply)) == -EINPROGRESS && test_now_ms() < end)
		pump_once(&e);
	CHECK(ret == 0 && reply != NULL, "done: %d", ret);
	if (ret == 0 && reply != NULL) {
		ret = rpcrdma_xprt_reply_rpc(reply, rpcrdma_xprt_call_xid(c), &m);
		CHECK(ret == 0 && rpcrdma_xdr_dec_left(reply) == 0, "an accepted empty reply: %d",
		      ret);
	}
	CHECK(rpcrdma_xprt_call_test(c, &reply) == 0, "the status stays until release");
	CHECK(rpcrdma_xprt_call_put_header(c, PROG, 1, PROC_NULL) == -EINVAL,
	      "no header into a call done");
	CHECK(rpcrdma_xprt_call_release(c) == 0, "release");

	/* call_wait() polls the connection: with a server that never answers, the timeout ends it */
	sctx.no_reply = true;
	CHECK(rpcrdma_xprt_call_alloc(e.cli.xprt, &c) == 0, "alloc");
	put_null_call(c);
	CHECK(rpcrdma_xprt_call_set_timeout(c, 5000 * tmo_scale) == 0, "timeout");
	CHECK(rpcrdma_xprt_call_submit(c, 0, NULL, NULL) == 0, "submit");
	CHECK(rpcrdma_xprt_call_set_timeout(c, 5000) == -EINVAL, "no timeout change once out");
	/* the server is polled once so that it receives the call */
	pump_once(&e);
	ret = rpcrdma_xprt_call_wait(c, &reply);
	CHECK(ret == -ETIMEDOUT && reply == NULL, "wait: %d", ret);
	CHECK(rpcrdma_xprt_call_release(c) == 0, "release");
	stats(&e.cli, &st);
	CHECK(st.timeouts == 1, "timeouts %lu", (unsigned long)st.timeouts);
	/* a reply header without room in the held call's reply stream: nothing written */
	CHECK(sctx.async_n == 1, "the server holds the call: %u", sctx.async_n);
	if (sctx.async_n == 1) {
		struct rpcrdma_xprt_svc_call *held = sctx.async[0];
		struct rpcrdma_xdr_enc *r = rpcrdma_xprt_svc_call_reply_enc(held);
		uint32_t room = r != NULL ? r->mem.len - r->len : 0;

		CHECK(r != NULL && rpcrdma_xdr_reserve(r, room - 20) != NULL, "fill the reply");
		CHECK(rpcrdma_xprt_svc_call_put_reply_header(held, RPCRDMA_RPC_SUCCESS) ==
				      -ENOSPC &&
			      r != NULL && r->len == room - 20,
		      "reply header without room");
	}
	srv_held(false);
	env_close(&e);
}

/* rpcrdma_xprt_reply_rpc(): every RPC outcome as its code. */
static void test_reply_rpc(void)
{
	static const struct {
		uint32_t stat, astat, rstat;
		int want;
	} cases[] = {
		{ RPCRDMA_RPC_MSG_ACCEPTED, RPCRDMA_RPC_SUCCESS, 0, 0 },
		{ RPCRDMA_RPC_MSG_ACCEPTED, RPCRDMA_RPC_PROG_UNAVAIL, 0,
		  -RPCRDMA_XPRT_E_PROG_UNAVAIL },
		{ RPCRDMA_RPC_MSG_ACCEPTED, RPCRDMA_RPC_PROG_MISMATCH, 0,
		  -RPCRDMA_XPRT_E_PROG_MISMATCH },
		{ RPCRDMA_RPC_MSG_ACCEPTED, RPCRDMA_RPC_PROC_UNAVAIL, 0,
		  -RPCRDMA_XPRT_E_PROC_UNAVAIL },
		{ RPCRDMA_RPC_MSG_ACCEPTED, RPCRDMA_RPC_GARBAGE_ARGS, 0,
		  -RPCRDMA_XPRT_E_GARBAGE_ARGS },
		{ RPCRDMA_RPC_MSG_ACCEPTED, RPCRDMA_RPC_SYSTEM_ERR, 0, -RPCRDMA_XPRT_E_SYSTEM_ERR },
		{ RPCRDMA_RPC_MSG_DENIED, 0, RPCRDMA_RPC_RPC_MISMATCH,
		  -RPCRDMA_XPRT_E_RPC_MISMATCH },
		{ RPCRDMA_RPC_MSG_DENIED, 0, RPCRDMA_RPC_AUTH_ERROR, -RPCRDMA_XPRT_E_AUTH_ERROR },
	};
	uint8_t buf[128];
	struct rpcrdma_rpc_msg m, got;
	struct rpcrdma_xdr_dec d;
	unsigned int i;
	int n, ret;

	CHECK((int)RPCRDMA_E_MAX < (int)RPCRDMA_XPRT_E_RPC_BASE, "codes apart from the codec's");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&m, 0, sizeof(m));
		m.xid = 0x1234 + i;
		m.type = RPCRDMA_RPC_REPLY;
		m.reply.stat = cases[i].stat;
		m.reply.accept_stat = cases[i].astat;
		m.reply.reject_stat = cases[i].rstat;
		m.reply.low = 2;
		m.reply.high = 3;
		m.reply.auth_stat = RPCRDMA_RPC_AUTH_BADCRED;
		n = rpcrdma_rpc_encode(&m, buf, sizeof(buf));
		CHECK(n > 0, "encode case %u: %d", i, n);
		if (n <= 0)
			continue;
		/* rpcrdma_xprt_put_rpc() (a fast path for SUCCESS) writes the codec's bytes */
		{
			uint8_t ebuf[128];
			struct rpcrdma_xdr_region r =
				rpcrdma_xdr_region_va(ebuf, sizeof(ebuf), 0, 0);
			struct rpcrdma_xdr_enc x;

			memset(ebuf, 0xee, sizeof(ebuf));
			rpcrdma_xdr_enc_init(&x, &r);
			CHECK(rpcrdma_xprt_put_rpc(&x, &m) == 0 && x.len == (uint32_t)n &&
				      x.pos == (uint32_t)n && memcmp(ebuf, buf, (size_t)n) == 0,
			      "put_rpc case %u: %u bytes, as the codec's %d", i, x.len, n);
		}
		rpcrdma_xdr_dec_init(&d, buf, (uint32_t)n);
		ret = rpcrdma_xprt_reply_rpc(&d, m.xid, &got);
		CHECK(ret == cases[i].want, "case %u: %d, want %d", i, ret, cases[i].want);
		rpcrdma_xdr_dec_init(&d, buf, (uint32_t)n);
		CHECK(rpcrdma_xprt_reply_rpc(&d, m.xid + 1, &got) == -EBADMSG, "another XID");
	}
	m.type = RPCRDMA_RPC_CALL;
	memset(&m.call, 0, sizeof(m.call));
	m.call.rpcvers = RPCRDMA_RPC_VERS;
	n = rpcrdma_rpc_encode(&m, buf, sizeof(buf));
	rpcrdma_xdr_dec_init(&d, buf, n > 0 ? (uint32_t)n : 0);
	CHECK(rpcrdma_xprt_reply_rpc(&d, m.xid, &got) == -EBADMSG, "a call is no reply");
	rpcrdma_xdr_dec_init(&d, buf, 6);
	CHECK(rpcrdma_xprt_reply_rpc(&d, m.xid, &got) < 0, "truncated");
}

/* ------------------------------------------------------------ errors */

/* Transport headers for craft(): a call in version 1 and in version 2, RDMA_MSG, no chunks. */
static const uint32_t v1call[] = { 0, 1, 8, RPCRDMA_MSG, 0, 0, 0 };
static const uint32_t v2call[] = { 0, 2, 8, RPCRDMA_MSG, RPCRDMA_CALL, 0, 0, 0 };

/* A client's ROPT_INITXCH, a whole message (no RPC follows): a Receive Buffer Size of 2048. */
static const uint32_t initxch[] = { 0,
				    2,
				    8,
				    RPCRDMA_OPTIONAL,
				    RPCRDMA_CALL,
				    RPCRDMA_ROPT_INITXCH,
				    20,
				    1,
				    RPCRDMA_XCHAR_RBSIZ,
				    4,
				    2048,
				    0 };

/* A bare client endpoint: connect to the xprt server with RFC 8797 data. */
static bool bare_client(struct env *e)
{
	/* 1 KiB receives: a reply over 1 KiB needs the reply chunk */
	struct rpcrdma_xprt_pdata pd = { 1, false, 4096, 1024 };
	uint8_t buf[8];
	uint64_t end;

	unsigned int refused = srv_refused;

	rpcrdma_xprt_pdata_encode(&pd, buf, sizeof(buf));
	bare_qp(&e->cli);
	CHECK(rpcrdma_pmd_connect(e->cli.qp, e->addr, buf, sizeof(buf)) == 0, "connect");
	for (end = test_now_ms() + WAIT_MS; test_now_ms() < end;) {
		struct rpcrdma_pmd_event ev;

		test_side_poll(&e->srv, srv_accept);
		srv_parked_poll();
		if (rpcrdma_pmd_event_poll(e->cli.dev, &ev, 1) != 1)
			continue;
		if (ev.type == RPCRDMA_PMD_EVENT_ESTABLISHED)
			return true;
		if (ev.type != RPCRDMA_PMD_EVENT_REJECTED || srv_refused == refused)
			continue;
		/* refused while replaced connections drained: once they have, again on a new QP */
		refused = srv_refused;
		while (srv_nparked > 0 && test_now_ms() < end)
			srv_parked_poll();
		rpcrdma_pmd_qp_destroy(e->cli.qp);
		rpcrdma_pmd_cq_destroy(e->cli.cq);
		bare_qp(&e->cli);
		CHECK(rpcrdma_pmd_connect(e->cli.qp, e->addr, buf, sizeof(buf)) == 0,
		      "connect again");
	}
	return false;
}

/* The tests of crafted calls start alike: a bare client, the server established with it. */
static void bare_client_up(struct env *e)
{
	CHECK(bare_client(e), "bare client connected");
	CHECK(pump_until(e, srv_established, NULL), "server established");
}

/*
 * Queue a signaled Send (wr_id 2) of len bytes of buf, registered in
 * pool, on a bare endpoint's QP and ring its doorbell (the PMD copies the
 * gather entry when it queues the work request).
 */
static int bare_send(struct rpcrdma_pmd_qp *qp, struct rpcrdma_mempool *pool, const void *buf,
		     uint32_t len)
{
	struct rpcrdma_pmd_sge ss = { (uintptr_t)buf, len, pool->lkey };
	struct rpcrdma_pmd_send_wr sw;

	memset(&sw, 0, sizeof(sw));
	sw.wr_id = 2;
	sw.sg_list = &ss;
	sw.num_sge = 1;
	sw.opcode = RPCRDMA_PMD_WR_SEND;
	sw.flags = RPCRDMA_PMD_SEND_SIGNALED;
	if (rpcrdma_pmd_queue_send_burst(qp, &sw, 1) != 1)
		return -ENOBUFS;
	rpcrdma_pmd_flush(qp);
	return 0;
}

/* Post n receives on a bare endpoint (wr_id: the buffer). */
static void bare_post(struct test_side *s, unsigned int n)
{
	struct rpcrdma_mempool *ip = s->pools->inline_pool;

	for (unsigned int i = 0; i < n; i++) {
		void *rb = rpcrdma_mempool_get(ip);
		struct rpcrdma_pmd_sge rs = { (uintptr_t)rb, 4096, ip->lkey };
		struct rpcrdma_pmd_recv_wr rw = { (uintptr_t)rb, &rs, 1 };

		CHECK(rpcrdma_pmd_post_recv_burst(s->qp, &rw, 1) == 1, "post");
	}
}

/*
 * Send a copy of len bytes of msg from the bare client. The Send reads
 * the copy when it executes: its buffer goes back only after that.
 */
static void *bare_cli_send(struct env *e, const void *msg, uint32_t len)
{
	struct rpcrdma_mempool *ip = e->cli.pools->inline_pool;
	void *sb = rpcrdma_mempool_get(ip);

	memcpy(sb, msg, len);
	CHECK(bare_send(e->cli.qp, ip, sb, len) == 0, "queue send");
	return sb;
}

/*
 * Send raw bytes from the bare client and post one receive (wr_id: its
 * buffer); wait for a reply or none. A receive left posted takes a later
 * reply, so the reply is read from the buffer its completion names.
 */
static int bare_exchange(struct env *e, const void *msg, uint32_t len, uint8_t *reply, uint32_t ms)
{
	struct rpcrdma_mempool *ip = e->cli.pools->inline_pool;
	struct rpcrdma_pmd_wc wc[4];
	uint64_t end = test_now_ms() + ms;
	int got = -ETIMEDOUT;
	bool sent = false, recvd = false;
	void *sb;

	bare_post(&e->cli, 1);
	sb = bare_cli_send(e, msg, len);
	while (test_now_ms() < end && !(sent && recvd)) {
		int n = rpcrdma_pmd_poll_cq_burst(e->cli.cq, wc, 4);

		for (int i = 0; i < n; i++) {
			if (wc[i].wr_id == 2) {
				sent = true;
				continue;
			}
			recvd = true;
			if (wc[i].status == RPCRDMA_PMD_WC_SUCCESS) {
				got = (int)wc[i].byte_len;
				memcpy(reply, (void *)(uintptr_t)wc[i].wr_id, wc[i].byte_len);
			}
			rpcrdma_mempool_put(ip, (void *)(uintptr_t)wc[i].wr_id);
		}
		test_side_poll(&e->srv, srv_accept);
	}
	rpcrdma_mempool_put(ip, sb);
	return got;
}

/*
 * Poll the bare client's CQ once and give back the buffers of the
 * receives that completed (or flushed): how many.
 */
static unsigned int bare_reap(struct env *e)
{
	struct rpcrdma_pmd_wc wc[8];
	int n = rpcrdma_pmd_poll_cq_burst(e->cli.cq, wc, 8);
	unsigned int back = 0;

	for (int i = 0; i < n; i++) {
		if (wc[i].wr_id == 2)
			continue;
		rpcrdma_mempool_put(e->cli.pools->inline_pool, (void *)(uintptr_t)wc[i].wr_id);
		back++;
	}
	return back;
}

static void put32(uint8_t *b, unsigned int i, uint32_t v)
{
	rpcrdma_wire_put32(b, i, v);
}

/*
 * Words w[] into b, the first replaced by xid: a transport header or an
 * RPC message, both of which start with the XID. Returns their length.
 */
static uint32_t put_words(uint8_t *b, uint32_t xid, const uint32_t *w, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		put32(b, i, w[i]);
	put32(b, 0, xid);
	return n * 4;
}

/* Send from the bare server and poll the client until the Send completes. */
static void bare_srv_send_wait(struct env *e, const void *buf, uint32_t len)
{
	uint64_t end = test_now_ms() + WAIT_MS;
	struct rpcrdma_pmd_wc wc[4];
	bool sent = false;

	CHECK(bare_send(e->srv.qp, e->srv.pools->inline_pool, buf, len) == 0, "queue send");
	while (!sent && test_now_ms() < end) {
		int n = rpcrdma_pmd_poll_cq_burst(e->srv.cq, wc, 4);

		for (int i = 0; i < n; i++)
			sent = sent || wc[i].wr_id == 2;
		rpcrdma_xprt_poll(e->cli.xprt);
	}
	CHECK(sent, "the Send completed");
}

/* A transport header + a null RPC call; words[] overrides the header. */
static uint32_t craft(uint8_t *b, uint32_t xid, const uint32_t *hw, unsigned int nhw)
{
	/* RPC: xid CALL 2 prog 1 0 AUTH_NONE 0 AUTH_NONE 0 */
	static const uint32_t call[] = { 0, 0, 2, PROG, 1, PROC_NULL, 0, 0, 0, 0 };
	uint32_t len = put_words(b, xid, hw, nhw);

	return len + put_words(b + len, xid, call, 10);
}

/*
 * Send len bytes of msg from the bare client and decode the answer into
 * hs: the decoder's result, or bare_exchange()'s error when none came.
 */
static int bare_ask(struct env *e, const void *msg, uint32_t len, struct rpcrdma_hdr_storage *hs,
		    uint32_t ms)
{
	struct rpcrdma_hdr *h = rpcrdma_hdr_storage_init(hs);
	uint8_t rep[4096];
	int n = bare_exchange(e, msg, len, rep, ms);

	if (n < 0)
		return n;
	return rpcrdma_hdr_decode(h, rep, (uint32_t)n);
}

/* bare_ask() a crafted call: the header words hw[] with xid, then a null call. */
static int bare_ask_call(struct env *e, const uint32_t *hw, unsigned int nhw, uint32_t xid,
			 struct rpcrdma_hdr_storage *hs, uint32_t ms)
{
	uint8_t msg[512];

	return bare_ask(e, msg, craft(msg, xid, hw, nhw), hs, ms);
}

static void test_errors(void)
{
	uint8_t msg[512];
	struct rpcrdma_xprt_stats s0, s1;
	struct rpcrdma_hdr_storage hs;
	struct rpcrdma_hdr *h = &hs.hdr;
	struct env e;
	uint32_t len;
	int n;

	/* ---- responder: crafted calls from a bare PMD client ---- */
	if (!env_open(&e, NULL, NULL))
		return;
	bare_client_up(&e);
	n = bare_ask_call(&e, v1call, 7, 0x100, &hs, WAIT_MS);
	CHECK(n > 0 && h->proc == RPCRDMA_MSG && h->xid == 0x100 && h->credit >= 1,
	      "a good crafted call is answered: %d", n);
	{
		/* versions 2 and 7: ERR_VERS 1..1 */
		const uint32_t v2[] = { 0, 2, 8, RPCRDMA_MSG, 0, 0, 0, 0 };
		const uint32_t v7[] = { 0, 7, 8, RPCRDMA_MSG, 0, 0, 0 };

		n = bare_ask_call(&e, v2, 8, 0x101, &hs, WAIT_MS);
		CHECK(n > 0 && h->proc == RPCRDMA_ERROR && h->error.code == RPCRDMA_ERR_VERS &&
			      h->error.low == 1 && h->error.high == 1 && h->xid == 0x101,
		      "version 2: ERR_VERS (1, 1)");
		n = bare_ask_call(&e, v7, 7, 0x102, &hs, WAIT_MS);
		CHECK(n > 0 && h->proc == RPCRDMA_ERROR && h->error.code == RPCRDMA_ERR_VERS &&
			      h->error.low == 1 && h->error.high == 1,
		      "version 7: ERR_VERS (1, 1)");
	}
	{
		/* ERR_CHUNK: a read position not a multiple of 4; a bad bool; RDMA_MSGP;
		 * RDMA_NOMSG without a chunk; a truncated list */
		const uint32_t badpos[] = { 0, 1, 8, RPCRDMA_MSG, 1, 6, 1, 64, 0, 0, 0, 0, 0 };
		const uint32_t badbool[] = { 0, 1, 8, RPCRDMA_MSG, 2, 0, 0 };
		const uint32_t msgp[] = { 0, 1, 8, RPCRDMA_MSGP, 4, 1024, 0, 0, 0 };
		const uint32_t nomsg[] = { 0, 1, 8, RPCRDMA_NOMSG, 0, 0, 0 };
		const uint32_t trunc[] = { 0, 1, 8, RPCRDMA_MSG, 1 };
		struct {
			const uint32_t *w;
			unsigned int n;
			const char *what;
		} bad[] = {
			{ badpos, 13, "read position 6" },
			{ badbool, 7, "a list discriminator of 2" },
			{ msgp, 9, "RDMA_MSGP" },
			{ nomsg, 7, "RDMA_NOMSG with no chunk" },
			{ trunc, 5, "a truncated read list" },
		};

		for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			stats(&e.srv, &s0);
			if (bad[i].w == trunc)
				len = put_words(msg, 0x200 + i, trunc, 5);
			else
				len = craft(msg, 0x200 + i, bad[i].w, bad[i].n);
			if (bad[i].w == nomsg)
				len = 28; /* nothing inline either */
			n = bare_ask(&e, msg, len, &hs, WAIT_MS);
			CHECK(n > 0 && h->proc == RPCRDMA_ERROR &&
				      h->error.code == RPCRDMA_ERR_CHUNK && h->xid == 0x200 + i,
			      "%s: ERR_CHUNK (%d)", bad[i].what, n);
			stats(&e.srv, &s1);
			CHECK(s1.errors_sent == s0.errors_sent + 1, "%s: counted", bad[i].what);
		}
	}
	{
		/* a reply that does not fit the offered reply chunk: ERR_CHUNK. The
		 * call offers a 64-byte reply chunk and asks for a 6000-byte reply. */
		const uint32_t args[] = { 1, 0, 0, 0, 900, 0 };
		uint32_t w[40], nw = 0;

		w[nw++] = 0x400;
		w[nw++] = 1;
		w[nw++] = 8;
		w[nw++] = RPCRDMA_MSG;
		w[nw++] = 0; /* no read list */
		w[nw++] = 0; /* no write list */
		w[nw++] = 1; /* a reply chunk of one segment */
		w[nw++] = 1;
		w[nw++] = 0x1234; /* handle */
		w[nw++] = 64;	  /* length */
		w[nw++] = 0;
		w[nw++] = 0x1000; /* offset */
		len = craft(msg, 0x400, w, nw);
		put32(msg, nw + 5, PROC_TEST);
		/* args: seed 1, 0 words, 0 items, 0 results, 900 reply words, mode 0 */
		for (unsigned int k = 0; k < 6; k++)
			put32(msg, nw + 10 + k, args[k]);
		len += 24;
		n = bare_ask(&e, msg, len, &hs, WAIT_MS);
		CHECK(n > 0 && h->proc == RPCRDMA_ERROR && h->error.code == RPCRDMA_ERR_CHUNK &&
			      h->xid == 0x400,
		      "a reply too big for its reply chunk: ERR_CHUNK (%d: xid %#x proc %u code "
		      "%u)",
		      n, h->xid, h->proc, h->error.code);
	}
	stats(&e.srv, &s1);
	/* malformed headers: position 6, bool 2, truncated; bad chunks: MSGP, NOMSG, too big */
	CHECK(s1.err_vers == 2 && s1.err_hdr == 3 && s1.err_chunk == 3,
	      "server error counters: vers %lu hdr %lu chunk %lu", (unsigned long)s1.err_vers,
	      (unsigned long)s1.err_hdr, (unsigned long)s1.err_chunk);
	rpcrdma_pmd_disconnect(e.cli.qp);
	{
		/* the receive left posted flushes: its buffer goes back */
		uint64_t end = test_now_ms() + WAIT_MS;

		while (test_now_ms() < end &&
		       rpcrdma_xprt_state(e.srv.xprt) != RPCRDMA_XPRT_CLOSED) {
			bare_reap(&e);
			test_side_poll(&e.srv, srv_accept);
		}
		for (int k = 0; k < 1000; k++)
			bare_reap(&e);
	}
	env_close(&e);

	/* ---- requester: crafted replies from a bare PMD server ---- */
	/* (see test_errors_requester) */
}

/*
 * Send len bytes of msg from the bare client and check the answer word by
 * word: exactly n XDR words, each want[i].
 */
static void bare_expect(struct env *e, const void *msg, uint32_t len, const uint32_t *want,
			unsigned int n, const char *what)
{
	uint8_t rep[4096];
	int got = bare_exchange(e, msg, len, rep, WAIT_MS);

	CHECK(got == (int)(n * 4), "%s: an answer of %u bytes: %d", what, n * 4, got);
	if (got != (int)(n * 4))
		return;
	for (unsigned int i = 0; i < n; i++)
		CHECK(rpcrdma_wire_get32(rep, i) == want[i], "%s: word %u is %#x, not %#x", what, i,
		      rpcrdma_wire_get32(rep, i), want[i]);
}

/* The bare client disconnects; the receives it left posted flush, their buffers back. */
static void bare_client_down(struct env *e)
{
	uint64_t end = test_now_ms() + WAIT_MS;

	rpcrdma_pmd_disconnect(e->cli.qp);
	while (test_now_ms() < end && rpcrdma_xprt_state(e->srv.xprt) != RPCRDMA_XPRT_CLOSED) {
		bare_reap(e);
		test_side_poll(&e->srv, srv_accept);
	}
	for (int k = 0; k < 1000; k++)
		bare_reap(e);
}

/*
 * Responder rules of rfc5666bis 5.5 and 5.6, from a bare client: the
 * exact RDMA_ERROR each offending message gets (every XDR word: rdma_xid,
 * rdma_vers, rdma_credit, rdma_proc, rdma_err and its body), counted, the
 * upper layer never called, and the connection still answering.
 */
static void test_error_rules(void)
{
	/* the server's grant (srv_params(): a target of 32) in every answer */
	const uint32_t grant = 32;
	struct rpcrdma_xprt_stats s0, s1;
	uint8_t msg[512];
	struct env e;
	uint32_t len, calls0;

	if (!env_open(&e, NULL, NULL))
		return;
	bare_client_up(&e);
	{
		/*
		 * rfc5666bis 5.5.1: this server is of version 1 only, and an
		 * RDMA2_OPTIONAL (of no type it could know) is version 2: ERR_VERS
		 * in version 1 with the range 1..1, before anything has settled
		 * the connection's version
		 */
		const uint32_t opt[] = { 0x502, 2, 8, RPCRDMA_OPTIONAL, RPCRDMA_CALL, 0x7777, 0 };
		const uint32_t want[] = { 0x502, 1, grant, RPCRDMA_ERROR, RPCRDMA_ERR_VERS, 1, 1 };

		stats(&e.srv, &s0);
		len = put_words(msg, 0x502, opt, 7);
		bare_expect(&e, msg, len, want, 7, "RDMA2_OPTIONAL first, version 1 server");
		stats(&e.srv, &s1);
		CHECK(s1.err_vers == s0.err_vers + 1 && s1.options_recv == s0.options_recv &&
			      s1.err_option == s0.err_option,
		      "RDMA2_OPTIONAL first: ERR_VERS counted, not taken as an option");
	}
	{
		/*
		 * a good call: answered RDMA_MSG with the grant the errors
		 * carry, the RPC reply (xid REPLY MSG_ACCEPTED AUTH_NONE 0 SUCCESS)
		 */
		const uint32_t want[] = { 0x500, 1, grant, RPCRDMA_MSG, 0, 0, 0,
					  0x500, 1, 0,	   0,		0, 0 };

		len = craft(msg, 0x500, v1call, 7);
		bare_expect(&e, msg, len, want, 13, "a good call");
	}
	{
		/*
		 * rfc5666bis 5.5.2: an rdma_xid that is not the XID of the RPC
		 * message: ERR_CHUNK with the rdma_xid. In a Short call (the
		 * fast path) and in a call offering a reply chunk (decoded, mapped).
		 */
		const uint32_t want[] = { 0x501, 1, grant, RPCRDMA_ERROR, RPCRDMA_ERR_CHUNK };
		const uint32_t rchunk[] = {
			0, 1, 8, RPCRDMA_MSG, 0, 0, 1, 1, 0x1234, 64, 0, 0x1000
		};

		stats(&e.srv, &s0);
		calls0 = sctx.calls;
		len = craft(msg, 0x501, v1call, 7);
		put32(msg, 7, 0x5501); /* the RPC XID */
		bare_expect(&e, msg, len, want, 5, "rdma_xid not the RPC XID, Short");
		len = craft(msg, 0x501, rchunk, 12);
		put32(msg, 12, 0x501 ^ 0x80000000u);
		bare_expect(&e, msg, len, want, 5, "rdma_xid not the RPC XID, with a reply chunk");
		stats(&e.srv, &s1);
		CHECK(s1.err_xid == s0.err_xid + 2 && s1.errors_sent == s0.errors_sent + 2 &&
			      s1.dropped == s0.dropped && sctx.calls == calls0,
		      "XID mismatches: counted %lu, answered %lu, not dispatched (%u calls)",
		      (unsigned long)(s1.err_xid - s0.err_xid),
		      (unsigned long)(s1.errors_sent - s0.errors_sent), sctx.calls - calls0);
	}
	{
		/*
		 * rfc5666bis 5.5.1 once version 1 is settled: RDMA2_OPTIONAL,
		 * without and with an RPC call after it, gets ERR_VERS (1, 1)
		 */
		const uint32_t opt[] = { 0x503, 2, 8, RPCRDMA_OPTIONAL, RPCRDMA_CALL, 0x7777, 0 };
		const uint32_t want[] = { 0x503, 1, grant, RPCRDMA_ERROR, RPCRDMA_ERR_VERS, 1, 1 };

		stats(&e.srv, &s0);
		calls0 = sctx.calls;
		len = put_words(msg, 0x503, opt, 7);
		bare_expect(&e, msg, len, want, 7, "RDMA2_OPTIONAL, version 1 settled");
		len = craft(msg, 0x503, opt, 7);
		bare_expect(&e, msg, len, want, 7, "RDMA2_OPTIONAL with a call, version 1 settled");
		stats(&e.srv, &s1);
		CHECK(s1.err_vers == s0.err_vers + 2 && s1.errors_sent == s0.errors_sent + 2 &&
			      s1.options_recv == s0.options_recv && sctx.calls == calls0,
		      "RDMA2_OPTIONAL after version 1: ERR_VERS counted %lu, sent %lu",
		      (unsigned long)(s1.err_vers - s0.err_vers),
		      (unsigned long)(s1.errors_sent - s0.errors_sent));
	}
	{
		/*
		 * rfc5666bis 5.6.2: RDMA_DONE is no longer sent, and a receiver
		 * SHOULD answer it ERR_CHUNK (with the rdma_xid): the bare header,
		 * and one with bytes after it
		 */
		const uint32_t done[] = { 0x504, 1, 8, RPCRDMA_DONE };
		const uint32_t want[] = { 0x504, 1, grant, RPCRDMA_ERROR, RPCRDMA_ERR_CHUNK };

		stats(&e.srv, &s0);
		calls0 = sctx.calls;
		len = put_words(msg, 0x504, done, 4);
		bare_expect(&e, msg, len, want, 5, "RDMA_DONE");
		len = craft(msg, 0x504, done, 4);
		bare_expect(&e, msg, len, want, 5, "RDMA_DONE with a call after it");
		stats(&e.srv, &s1);
		CHECK(s1.done_recv == s0.done_recv + 2 && s1.errors_sent == s0.errors_sent + 2 &&
			      sctx.calls == calls0,
		      "RDMA_DONE: counted %lu, answered %lu, not dispatched (%u calls)",
		      (unsigned long)(s1.done_recv - s0.done_recv),
		      (unsigned long)(s1.errors_sent - s0.errors_sent), sctx.calls - calls0);
	}
	{
		/* the connection goes on: a good call, answered as the first */
		const uint32_t want[] = { 0x5ff, 1, grant, RPCRDMA_MSG, 0, 0, 0,
					  0x5ff, 1, 0,	   0,		0, 0 };

		len = craft(msg, 0x5ff, v1call, 7);
		bare_expect(&e, msg, len, want, 13, "a good call after the errors");
	}
	bare_client_down(&e);
	env_close(&e);
}

/*
 * Accept the client's connection at the bare server (RFC 8797 data: 4 KiB
 * both ways), polling the client, until it is established or the time
 * runs out at end.
 */
static bool bare_server_wait(struct env *e, uint64_t end)
{
	struct rpcrdma_xprt_pdata pd = { 1, false, 4096, 4096 };
	uint8_t buf[8];

	rpcrdma_xprt_pdata_encode(&pd, buf, sizeof(buf));
	while (test_now_ms() < end) {
		struct rpcrdma_pmd_event ev;

		test_side_poll(&e->cli, NULL);
		if (rpcrdma_pmd_event_poll(e->srv.dev, &ev, 1) == 1 &&
		    ev.type == RPCRDMA_PMD_EVENT_CONNECT_REQUEST)
			CHECK(rpcrdma_pmd_accept(ev.req, e->srv.qp, buf, sizeof(buf)) == 0,
			      "accept");
		if (rpcrdma_xprt_state(e->cli.xprt) == RPCRDMA_XPRT_ESTABLISHED)
			return true;
	}
	return false;
}

/*
 * A bare server endpoint: the client's first connection to it, with
 * @nrecv receives posted before the accept (iWARP has no RNR retry: a
 * Send that finds no receive ends the connection).
 */
static bool bare_server_accept(struct env *e, unsigned int nrecv)
{
	uint64_t end = test_now_ms() + WAIT_MS;

	bare_qp(&e->srv);
	bare_post(&e->srv, nrecv);
	CHECK(rpcrdma_xprt_create(&e->cli.params, &e->cli.xprt) == 0, "create");
	CHECK(rpcrdma_xprt_connect(e->cli.xprt, e->addr) == 0, "connect");
	return bare_server_wait(e, end);
}

static bool cli_call_done(struct env *e, void *arg)
{
	rpcrdma_xprt_poll(e->cli.xprt);
	test_side_events(&e->cli, NULL);
	return ((struct tcall *)arg)->done;
}

/*
 * A call from the client, answered at the bare server with the header
 * words hw[] (the call's XID patched in) and, with_rpc, an accepted RPC
 * reply; then the call is waited for.
 */
static void bare_answer(struct env *e, struct tcall *t, const uint32_t *hw, unsigned int nhw,
			bool with_rpc)
{
	/* xid REPLY MSG_ACCEPTED AUTH_NONE 0 SUCCESS */
	static const uint32_t accepted[] = { 0, 1, 0, 0, 0, 0 };
	struct rpcrdma_mempool *ip = e->srv.pools->inline_pool;
	void *rb = rpcrdma_mempool_get(ip);
	uint8_t *sb = rpcrdma_mempool_get(ip);
	struct rpcrdma_pmd_sge rs = { (uintptr_t)rb, 4096, ip->lkey };
	struct rpcrdma_pmd_recv_wr rw = { 1, &rs, 1 };
	struct rpcrdma_pmd_wc wc[4];
	uint64_t end = test_now_ms() + WAIT_MS;
	bool got = false, sent = false;
	uint32_t xid, len;

	memset(t, 0, sizeof(*t));
	CHECK(rpcrdma_pmd_post_recv_burst(e->srv.qp, &rw, 1) == 1, "post");
	CHECK(tcall_submit(e, t) == 0, "submit");
	while (test_now_ms() < end && !sent) {
		int n = rpcrdma_pmd_poll_cq_burst(e->srv.cq, wc, 4);

		for (int k = 0; k < n; k++) {
			if (wc[k].wr_id == 1 && wc[k].status == 0) {
				xid = rpcrdma_wire_get32(rb, 0);
				got = true;
				len = put_words(sb, xid, hw, nhw);
				if (with_rpc)
					len += put_words(sb + len, xid, accepted, 6);
				bare_send(e->srv.qp, ip, sb, len);
			}
			if (wc[k].wr_id == 2)
				sent = true;
		}
		test_side_poll(&e->cli, NULL);
	}
	rpcrdma_mempool_put(ip, rb);
	rpcrdma_mempool_put(ip, sb);
	CHECK(got && sent, "exchange");
	end = test_now_ms() + WAIT_MS;
	while (!t->done && test_now_ms() < end)
		cli_call_done(e, t);
}

/*
 * The requester against a bare server: the server answers each call with
 * bytes the test writes.
 */
static void test_errors_requester(void)
{
	struct rpcrdma_xprt_stats s0, s1;
	struct tcall t;
	struct env e;
	uint64_t end;

	if (!env_open(&e, NULL, NULL))
		return;
	CHECK(bare_server_accept(&e, 0), "bare server");
	{
		const uint32_t ok[] = { 0, 1, 4, RPCRDMA_MSG, 0, 0, 0 };

		bare_answer(&e, &t, ok, 7, true);
		CHECK(t.done && t.status == 0 && t.ok, "a good crafted reply: %d", t.status);
	}
	{
		const uint32_t ev[] = { 0, 1, 4, RPCRDMA_ERROR, RPCRDMA_ERR_VERS, 1, 1 };
		const uint32_t ec[] = { 0, 1, 4, RPCRDMA_ERROR, RPCRDMA_ERR_CHUNK };
		const uint32_t msgp[] = { 0, 1, 4, RPCRDMA_MSGP, 4, 1024, 0, 0, 0 };
		const uint32_t v2[] = { 0, 2, 4, RPCRDMA_MSG, RPCRDMA_REPLY, 0, 0, 0 };
		const uint32_t wl[] = { 0, 1, 4, RPCRDMA_MSG, 0, 1, 1, 1, 2, 3, 4, 0, 0, 0 };
		struct {
			const uint32_t *w;
			unsigned int n;
			bool rpc;
			int want;
			const char *what;
		} cases[] = {
			{ ev, 7, false, -EPROTONOSUPPORT, "ERR_VERS" },
			{ ec, 5, false, -EREMOTEIO, "ERR_CHUNK" },
			{ msgp, 9, true, -EBADMSG, "RDMA_MSGP reply" },
			{ v2, 8, true, -EBADMSG, "a version 2 reply" },
			{ wl, 14, true, -EBADMSG, "a write list not offered" },
		};

		for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			bare_answer(&e, &t, cases[i].w, cases[i].n, cases[i].rpc);
			CHECK(t.done && t.status == cases[i].want, "%s: status %d, want %d",
			      cases[i].what, t.status, cases[i].want);
		}
	}
	{
		/* an unmatched reply and RDMA_DONE: dropped and counted, never fatal */
		struct rpcrdma_mempool *ip = e.srv.pools->inline_pool;
		uint8_t *sb = rpcrdma_mempool_get(ip);
		const uint32_t w[] = { 0, 1, 4, RPCRDMA_MSG, 0, 0, 0 };

		stats(&e.cli, &s0);
		put_words(sb, 0xdead0001, w, 7);
		/* an RPC reply header after it: xid, REPLY (a CALL would be a backward call) */
		put32(sb, 7, 0xdead0001);
		put32(sb, 8, 1);
		bare_srv_send_wait(&e, sb, 52);
		put32(sb, 3, RPCRDMA_DONE);
		bare_srv_send_wait(&e, sb, 16);
		/*
		 * version 2 messages that answer no call: a backward-direction
		 * call (rdma_direction CALL) and an RDMA2_OPTIONAL
		 */
		put32(sb, 1, RPCRDMA_VERS_2);
		put32(sb, 3, RPCRDMA_MSG);
		put32(sb, 4, RPCRDMA_CALL);
		put32(sb, 5, 0);
		put32(sb, 6, 0);
		put32(sb, 7, 0);
		bare_srv_send_wait(&e, sb, 32);
		put32(sb, 3, RPCRDMA_OPTIONAL);
		put32(sb, 4, RPCRDMA_CALL);
		put32(sb, 5, 0x7777);
		put32(sb, 6, 0);
		bare_srv_send_wait(&e, sb, 28);
		for (int k = 0; k < 100; k++)
			rpcrdma_xprt_poll(e.cli.xprt);
		stats(&e.cli, &s1);
		CHECK(s1.unmatched == s0.unmatched + 2, "unmatched replies counted: %lu",
		      (unsigned long)(s1.unmatched - s0.unmatched));
		CHECK(s1.bad_direction == s0.bad_direction + 1 && s1.err_vers == s0.err_vers + 1,
		      "a v2 backward call (no backward service) and an RDMA2_OPTIONAL on a "
		      "version 1 connection dropped and counted: %lu %lu",
		      (unsigned long)(s1.bad_direction - s0.bad_direction),
		      (unsigned long)(s1.err_vers - s0.err_vers));
		CHECK(rpcrdma_xprt_state(e.cli.xprt) == RPCRDMA_XPRT_ESTABLISHED,
		      "still established");
		rpcrdma_mempool_put(ip, sb);
	}
	stats(&e.cli, &s1);
	CHECK(s1.errors_recv == 2 && s1.failed == 5, "client error counters: %lu recv, %lu failed",
	      (unsigned long)s1.errors_recv, (unsigned long)s1.failed);
	rpcrdma_xprt_disconnect(e.cli.xprt);
	end = test_now_ms() + WAIT_MS;
	while (test_now_ms() < end && rpcrdma_xprt_state(e.cli.xprt) != RPCRDMA_XPRT_CLOSED) {
		struct rpcrdma_pmd_wc wc[8];

		rpcrdma_pmd_poll_cq_burst(e.srv.cq, wc, 8);
		test_side_poll(&e.cli, NULL);
	}
	rpcrdma_pmd_qp_destroy(e.srv.qp);
	e.srv.qp = NULL;
	env_close(&e);
}

/*
 * The bare server of test_grants(): its receives (16 posted, each buffer
 * back in its pool when its completion comes) and the XIDs of the calls
 * that reached it.
 */
struct grant_srv {
	uint32_t xids[16];
	unsigned int n, back;
	void *sb[8]; /* the replies' Send buffers, kept until the end */
	unsigned int nsb;
};

/* Poll both ends once; the calls that reached the bare server. */
static void grant_pump(struct env *e, struct grant_srv *g)
{
	struct rpcrdma_mempool *ip = e->srv.pools->inline_pool;
	struct rpcrdma_pmd_wc wc[8];
	int n = rpcrdma_pmd_poll_cq_burst(e->srv.cq, wc, 8);

	for (int k = 0; k < n; k++) {
		void *b = (void *)(uintptr_t)wc[k].wr_id;

		if (wc[k].wr_id == 2)
			continue; /* a reply's Send */
		if (wc[k].status == 0 && g->n < 16)
			g->xids[g->n++] = rpcrdma_wire_get32(b, 0);
		rpcrdma_mempool_put(ip, b);
		g->back++;
	}
	test_side_poll(&e->cli, NULL);
}

/*
 * Until @p want calls have reached the bare server, then 10 ms more (scaled
 * for slow devices), in which a call over the window would arrive too.
 */
static void grant_wait(struct env *e, struct grant_srv *g, unsigned int want)
{
	uint64_t end = test_now_ms() + WAIT_MS;

	while (g->n < want && test_now_ms() < end)
		grant_pump(e, g);
	end = test_now_ms() + 10 * tmo_scale;
	while (test_now_ms() < end)
		grant_pump(e, g);
}

/* Answer call @p xid from the bare server: RDMA_MSG granting @p credit, an accepted reply. */
static void grant_reply(struct env *e, struct grant_srv *g, uint32_t xid, uint32_t credit)
{
	static const uint32_t accepted[] = { 0, 1, 0, 0, 0, 0 };
	const uint32_t hw[] = { 0, 1, credit, RPCRDMA_MSG, 0, 0, 0 };
	struct rpcrdma_mempool *ip = e->srv.pools->inline_pool;
	uint8_t *sb = rpcrdma_mempool_get(ip);
	uint32_t len = put_words(sb, xid, hw, 7);

	len += put_words(sb + len, xid, accepted, 6);
	CHECK(bare_send(e->srv.qp, ip, sb, len) == 0, "reply to %#x", xid);
	if (g->nsb < 8)
		g->sb[g->nsb++] = sb;
	else
		CHECK(0, "more than 8 replies");
}

/*
 * rfc5666bis 4.3: the requester never has more calls outstanding than the
 * responder granted, one until its first reply, and a grant of 0 is read
 * as 1. Eight calls at once against a bare server that answers one at a
 * time granting 0, then 1, then 3: the calls that reach it between replies
 * are 1, 1, 1, 3 and the last 2; every call completes.
 */
static void test_grants(void)
{
	struct tcall t[8];
	struct grant_srv g;
	unsigned int seen;
	struct env e;
	uint64_t end;

	if (!env_open(&e, NULL, NULL))
		return;
	if (!bare_server_accept(&e, 0)) {
		CHECK(0, "bare server");
		env_close(&e);
		return;
	}
	memset(&g, 0, sizeof(g));
	bare_post(&e.srv, 16);
	memset(t, 0, sizeof(t));
	for (unsigned int i = 0; i < 8; i++)
		CHECK(tcall_submit(&e, &t[i]) == 0, "submit %u", i);
	grant_wait(&e, &g, 1);
	CHECK(g.n == 1, "before any reply: %u call(s) sent, want 1", g.n);
	grant_reply(&e, &g, g.xids[0], 0);
	grant_wait(&e, &g, 2);
	CHECK(g.n == 2, "after a grant of 0: %u call(s) sent in all, want 2 (0 read as 1)", g.n);
	grant_reply(&e, &g, g.xids[1], 1);
	grant_wait(&e, &g, 3);
	CHECK(g.n == 3, "after a grant of 1: %u in all, want 3", g.n);
	grant_reply(&e, &g, g.xids[2], 3);
	grant_wait(&e, &g, 6);
	CHECK(g.n == 6, "after a grant of 3: %u in all, want 6", g.n);
	seen = g.n;
	for (unsigned int i = 3; i < seen && i < 6; i++)
		grant_reply(&e, &g, g.xids[i], 3);
	grant_wait(&e, &g, 8);
	CHECK(g.n == 8, "the last two: %u in all, want 8", g.n);
	for (unsigned int i = 6; i < g.n && i < 8; i++)
		grant_reply(&e, &g, g.xids[i], 3);
	end = test_now_ms() + WAIT_MS;
	while (test_now_ms() < end && !(t[0].done && t[1].done && t[2].done && t[3].done &&
					t[4].done && t[5].done && t[6].done && t[7].done))
		grant_pump(&e, &g);
	for (unsigned int i = 0; i < 8; i++)
		CHECK(t[i].done && t[i].status == 0 && t[i].ok, "call %u: %d", i, t[i].status);
	/* the bare server disconnects: its receives left flush back */
	rpcrdma_pmd_disconnect(e.srv.qp);
	end = test_now_ms() + WAIT_MS;
	while (test_now_ms() < end &&
	       (rpcrdma_xprt_state(e.cli.xprt) != RPCRDMA_XPRT_CLOSED || g.back < 16))
		grant_pump(&e, &g);
	CHECK(g.back == 16, "the bare server's receives back: %u", g.back);
	for (unsigned int i = 0; i < g.nsb; i++)
		rpcrdma_mempool_put(e.srv.pools->inline_pool, g.sb[i]);
	rpcrdma_pmd_qp_destroy(e.srv.qp);
	e.srv.qp = NULL;
	env_close(&e);
}

/* ------------------------------------------------------------ version 2 */

static void set_vers(uint32_t cli, uint32_t srv_min, uint32_t srv)
{
	cli_vers = cli;
	srv_vers_min = srv_min;
	srv_vers = srv;
}

/* Reconnect a client whose connection was closed. */
static bool env_reconnect(struct env *e)
{
	if (rpcrdma_xprt_state(e->cli.xprt) == RPCRDMA_XPRT_ESTABLISHED)
		rpcrdma_xprt_disconnect(e->cli.xprt);
	if (!pump_until(e, both_closed, NULL)) {
		CHECK(0, "closed before reconnecting");
		return false;
	}
	return env_connect(e);
}

static void test_v2_negotiation(void)
{
	struct rpcrdma_xprt_info ci, si;
	struct rpcrdma_xprt_stats c0, c1, s1;
	struct rpcrdma_vers_peers peers;
	struct tcall t;
	struct env e;

	/*
	 * A version 2 requester, a responder of both versions: the first
	 * call is the probe, within 1024 bytes (a call of 2.8 KB goes as a
	 * Long Call), alone until its reply settles version 2; then the same
	 * call goes inline under the 4096-byte threshold.
	 */
	set_vers(RPCRDMA_VERS_2, RPCRDMA_VERS_1, RPCRDMA_VERS_2);
	if (!env_open(&e, NULL, NULL))
		return;
	if (env_connect(&e)) {
		rpcrdma_xprt_info(e.cli.xprt, &ci);
		CHECK(ci.vers == 2 && !ci.vers_settled && ci.send_inline == 1024 && ci.grant == 1,
		      "probing: vers %u settled %d send_inline %u grant %u", ci.vers,
		      ci.vers_settled, ci.send_inline, ci.grant);
		memset(&t, 0, sizeof(t));
		t.proc = PROC_TEST;
		t.words = 700;
		t.rwords = 3;
		CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "the probe: %d", t.status);
		stats(&e.cli, &c0);
		CHECK(c0.vers_probes == 1 && c0.vers_fallbacks == 0 && c0.long_msgs == 1 &&
			      c0.short_msgs == 0,
		      "one probe, a Long Call: %lu %lu %lu", (unsigned long)c0.vers_probes,
		      (unsigned long)c0.vers_fallbacks, (unsigned long)c0.long_msgs);
		rpcrdma_xprt_info(e.cli.xprt, &ci);
		rpcrdma_xprt_info(e.srv.xprt, &si);
		CHECK(ci.vers == 2 && ci.vers_settled && ci.send_inline == 4096 && ci.grant == 32,
		      "client settled in version 2: %u %d %u %u", ci.vers, ci.vers_settled,
		      ci.send_inline, ci.grant);
		CHECK(si.vers == 2 && si.vers_settled && si.send_inline == 4096,
		      "server settled in version 2: %u %d %u", si.vers, si.vers_settled,
		      si.send_inline);
		memset(&t, 0, sizeof(t));
		t.proc = PROC_TEST;
		t.words = 700;
		t.rwords = 3;
		CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "2.8 KB call in version 2");
		stats(&e.cli, &c1);
		CHECK(c1.short_msgs == c0.short_msgs + 1 && c1.long_msgs == c0.long_msgs &&
			      c1.vers_probes == 1,
		      "inline at 4096 bytes, no second probe");
		/* a reconnect probes again: the peer is remembered as version 2 */
		CHECK(env_reconnect(&e), "reconnect");
		memset(&t, 0, sizeof(t));
		CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "null call after reconnect");
		stats(&e.cli, &c1);
		rpcrdma_xprt_info(e.cli.xprt, &ci);
		CHECK(c1.vers_probes == 2 && ci.vers == 2 && ci.vers_settled,
		      "version 2 again after reconnect: %lu probes", (unsigned long)c1.vers_probes);
	}
	env_close(&e);

	/*
	 * A version 2 requester, a version 1 responder: ERR_VERS to the
	 * probe, the call sent again in version 1 with its XID and answered;
	 * no probe on a reconnect, nor on a new connection sharing the peer
	 * memory (no negotiation loop, v2 draft 5.2).
	 */
	set_vers(RPCRDMA_VERS_2, RPCRDMA_VERS_1, RPCRDMA_VERS_1);
	if (!env_open(&e, NULL, NULL))
		return;
	rpcrdma_vers_peers_init(&peers);
	e.cli.params.vers_peers = &peers;
	if (env_connect(&e)) {
		memset(&t, 0, sizeof(t));
		CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "fallback call: %d", t.status);
		stats(&e.cli, &c1);
		stats(&e.srv, &s1);
		CHECK(c1.vers_probes == 1 && c1.vers_fallbacks == 1 && c1.calls == 2 &&
			      c1.replies == 1 && c1.failed == 0,
		      "the probe, then the call in version 1: probes %lu fallbacks %lu calls %lu",
		      (unsigned long)c1.vers_probes, (unsigned long)c1.vers_fallbacks,
		      (unsigned long)c1.calls);
		CHECK(s1.err_vers == 1 && s1.errors_sent == 1 && s1.replies == 1,
		      "the server answered ERR_VERS once: %lu", (unsigned long)s1.err_vers);
		rpcrdma_xprt_info(e.cli.xprt, &ci);
		CHECK(ci.vers == 1 && ci.vers_settled && ci.send_inline == 4096,
		      "client settled in version 1 (private data: 4096)");
		CHECK(rpcrdma_vers_peers_lookup(&peers, e.addr) == RPCRDMA_VERS_1,
		      "the peer remembered as version 1");
		CHECK(env_reconnect(&e), "reconnect");
		rpcrdma_xprt_info(e.cli.xprt, &ci);
		CHECK(ci.vers == 1 && ci.vers_settled, "version 1 from the start after reconnect");
		memset(&t, 0, sizeof(t));
		CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "call after reconnect");
		stats(&e.cli, &c1);
		stats(&e.srv, &s1);
		CHECK(c1.vers_probes == 1 && s1.err_vers == 0, "no second probe: %lu",
		      (unsigned long)c1.vers_probes);
		/* another connection to the same peer, the same memory */
		rpcrdma_xprt_disconnect(e.cli.xprt);
		CHECK(pump_until(&e, both_closed, NULL), "closed");
		CHECK(rpcrdma_xprt_destroy(e.cli.xprt) == 0, "destroy");
		e.cli.xprt = NULL;
		if (env_connect(&e)) {
			rpcrdma_xprt_info(e.cli.xprt, &ci);
			memset(&t, 0, sizeof(t));
			CHECK(run_call(&e, &t) && t.status == 0 && t.ok,
			      "call on the new connection");
			stats(&e.cli, &c1);
			CHECK(ci.vers == 1 && ci.vers_settled && c1.vers_probes == 0,
			      "a new connection starts in version 1: %u %lu", ci.vers,
			      (unsigned long)c1.vers_probes);
		}
	}
	env_close(&e);

	/* a version 1 requester, a responder of both versions: version 1 */
	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_2);
	if (!env_open(&e, NULL, NULL))
		return;
	if (env_connect(&e)) {
		rpcrdma_xprt_info(e.srv.xprt, &si);
		CHECK(!si.vers_settled, "server: not settled before the first call");
		memset(&t, 0, sizeof(t));
		CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "v1 call to a v2 server");
		rpcrdma_xprt_info(e.srv.xprt, &si);
		stats(&e.srv, &s1);
		stats(&e.cli, &c1);
		CHECK(si.vers == 1 && si.vers_settled && s1.err_vers == 0 && c1.vers_probes == 0,
		      "server settled in version 1: %u", si.vers);
	}
	env_close(&e);

	/* a version 1 requester, a version 2 only responder: ERR_VERS (2, 2) */
	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_2, RPCRDMA_VERS_2);
	if (!env_open(&e, NULL, NULL))
		return;
	if (env_connect(&e)) {
		memset(&t, 0, sizeof(t));
		CHECK(run_call(&e, &t) && t.status == -EPROTONOSUPPORT,
		      "v1 call to a v2-only server: %d", t.status);
		stats(&e.srv, &s1);
		stats(&e.cli, &c1);
		CHECK(s1.err_vers == 1 && c1.errors_recv == 1, "ERR_VERS sent and received");
	}
	env_close(&e);
	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_1);
}

static void test_v2_errors(void)
{
	struct rpcrdma_hdr_storage hs;
	struct rpcrdma_xprt_stats s1;
	struct rpcrdma_hdr *h = &hs.hdr;
	struct env e;
	int n;

	/*
	 * ---- a responder of both versions, crafted messages from a bare
	 * client; without the transport characteristics extension, so that
	 * every answer is the one to the message just sent (test_xchar() has
	 * the extension) ----
	 */
	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_2);
	if (!env_open(&e, NULL, NULL))
		return;
	e.srv.params.flags |= RPCRDMA_XPRT_F_NO_XCHAR;
	bare_client_up(&e);
	{
		/* version 7 first: ERR_VERS in version 1 with the range 1..2, nothing settled */
		const uint32_t v7[] = { 0, 7, 8, RPCRDMA_MSG, 0, 0, 0 };

		n = bare_ask_call(&e, v7, 7, 0x201, &hs, WAIT_MS);
		CHECK(n > 0 && h->xid == 0x201 && h->vers == 1 && h->proc == RPCRDMA_ERROR &&
			      h->error.code == RPCRDMA_ERR_VERS && h->error.low == 1 &&
			      h->error.high == 2,
		      "version 7: ERR_VERS (1, 2): %d", n);
	}
	/* a version 2 call settles version 2: answered RDMA2_MSG, direction REPLY */
	n = bare_ask_call(&e, v2call, 8, 0x202, &hs, WAIT_MS);
	CHECK(n == 32 && h->xid == 0x202 && h->vers == 2 && h->proc == RPCRDMA_MSG &&
		      h->chunks.direction == RPCRDMA_REPLY && h->credit >= 1,
	      "a version 2 call is answered in version 2, direction REPLY: %d", n);
	/* version 1 once version 2 is settled: ERR_VERS (2, 2) */
	n = bare_ask_call(&e, v1call, 7, 0x203, &hs, WAIT_MS);
	CHECK(n > 0 && h->xid == 0x203 && h->proc == RPCRDMA_ERROR &&
		      h->error.code == RPCRDMA_ERR_VERS && h->error.low == 2 && h->error.high == 2,
	      "version 1 after version 2: ERR_VERS (2, 2): %d", n);
	{
		/* an optional type nobody defined: RDMA2_ERR_INVAL_OPTION, same XID */
		const uint32_t opt[] = { 0, 2, 8, RPCRDMA_OPTIONAL, RPCRDMA_CALL, 0x7777, 0 };

		n = bare_ask_call(&e, opt, 7, 0x204, &hs, WAIT_MS);
		CHECK(n > 0 && h->xid == 0x204 && h->vers == 2 && h->proc == RPCRDMA_ERROR &&
			      h->error.code == RPCRDMA2_ERR_INVAL_OPTION,
		      "RDMA2_OPTIONAL: RDMA2_ERR_INVAL_OPTION: %d code %u", n, h->error.code);
	}
	{
		/* malformed version 2 headers: RDMA2_ERR_BAD_HEADER */
		const uint32_t p2[] = { 0, 2, 8, 2, 0, 0, 0, 0 };
		const uint32_t dir[] = { 0, 2, 8, RPCRDMA_MSG, 5, 0, 0, 0 };
		const uint32_t *bad[] = { p2, dir };

		for (unsigned int i = 0; i < 2; i++) {
			n = bare_ask_call(&e, bad[i], 8, 0x205 + i, &hs, WAIT_MS);
			CHECK(n > 0 && h->xid == 0x205 + i && h->vers == 2 &&
				      h->proc == RPCRDMA_ERROR &&
				      h->error.code == RPCRDMA2_ERR_BAD_HEADER,
			      "bad version 2 header %u: RDMA2_ERR_BAD_HEADER: %d", i, n);
		}
	}
	{
		/* a backward-direction reply: this server sent no backward call, dropped */
		const uint32_t brep[] = { 0, 2, 8, RPCRDMA_MSG, RPCRDMA_REPLY, 0, 0, 0 };

		n = bare_ask_call(&e, brep, 8, 0x207, &hs, 300);
		CHECK(n == -ETIMEDOUT, "a backward reply is not answered: %d", n);
	}
	/* the connection still works, in version 2 */
	n = bare_ask_call(&e, v2call, 8, 0x208, &hs, WAIT_MS);
	CHECK(n == 32 && h->xid == 0x208 && h->vers == 2, "still answered: %d", n);
	stats(&e.srv, &s1);
	CHECK(s1.err_vers == 2 && s1.err_option == 1 && s1.options_recv == 1 && s1.err_hdr == 2 &&
		      s1.bad_direction == 1 && s1.errors_sent == 5,
	      "server counters: vers %lu option %lu hdr %lu direction %lu errors %lu",
	      (unsigned long)s1.err_vers, (unsigned long)s1.err_option, (unsigned long)s1.err_hdr,
	      (unsigned long)s1.bad_direction, (unsigned long)s1.errors_sent);
	rpcrdma_pmd_disconnect(e.cli.qp);
	{
		/* the receive the unanswered message left posted flushes: its buffer back */
		uint64_t end = test_now_ms() + WAIT_MS;
		unsigned int back = 0;

		while (back == 0 && test_now_ms() < end) {
			back += bare_reap(&e);
			test_side_poll(&e.srv, srv_accept);
		}
		CHECK(back == 1, "the posted receive flushed: %u", back);
	}
	env_close(&e);
	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_1);
}

/*
 * A server of versions 1 and 2 (v2 draft 5) takes RDMA2_OPTIONAL while no
 * version is settled, and answers it ERR_VERS (1, 1) once version 1 is
 * (rfc5666bis 5.5.1), as it answers a version 2 call then. Exact bytes from
 * a bare client.
 */
static void test_v2_optional_v1(void)
{
	const uint32_t grant = 32; /* srv_params(): the target */
	const uint32_t opt[] = { 0, 2, 8, RPCRDMA_OPTIONAL, RPCRDMA_CALL, 0x7777, 0 };
	struct rpcrdma_xprt_stats s0, s1;
	uint8_t msg[512];
	struct env e;
	uint32_t len;

	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_2);
	if (!env_open(&e, NULL, NULL))
		return;
	bare_client_up(&e);
	{
		/* nothing settled: a version 2 message, an unknown type: RDMA2_ERR_INVAL_OPTION */
		const uint32_t want[] = { 0x601, 2, grant, RPCRDMA_ERROR,
					  RPCRDMA2_ERR_INVAL_OPTION };

		len = put_words(msg, 0x601, opt, 7);
		bare_expect(&e, msg, len, want, 5, "RDMA2_OPTIONAL first, server of 1..2");
	}
	{
		/* a version 1 call settles version 1 */
		const uint32_t want[] = { 0x602, 1, grant, RPCRDMA_MSG, 0, 0, 0,
					  0x602, 1, 0,	   0,		0, 0 };

		len = craft(msg, 0x602, v1call, 7);
		bare_expect(&e, msg, len, want, 13, "a version 1 call, server of 1..2");
	}
	{
		/* then every version 2 message: ERR_VERS (1, 1), in version 1 */
		const uint32_t want3[] = { 0x603, 1, grant, RPCRDMA_ERROR, RPCRDMA_ERR_VERS, 1, 1 };
		const uint32_t want4[] = { 0x604, 1, grant, RPCRDMA_ERROR, RPCRDMA_ERR_VERS, 1, 1 };
		const uint32_t want5[] = { 0x605, 1, grant, RPCRDMA_ERROR, RPCRDMA_ERR_VERS, 1, 1 };

		stats(&e.srv, &s0);
		len = put_words(msg, 0x603, opt, 7);
		bare_expect(&e, msg, len, want3, 7,
			    "RDMA2_OPTIONAL after version 1, server of 1..2");
		len = put_words(msg, 0x604, initxch, sizeof(initxch) / 4);
		bare_expect(&e, msg, len, want4, 7, "ROPT_INITXCH after version 1, server of 1..2");
		len = craft(msg, 0x605, v2call, 8);
		bare_expect(&e, msg, len, want5, 7,
			    "a version 2 call after version 1, server of 1..2");
		stats(&e.srv, &s1);
		CHECK(s1.err_vers == s0.err_vers + 3 && s1.options_recv == s0.options_recv &&
			      s1.xchar_recv == s0.xchar_recv,
		      "version 2 after version 1: ERR_VERS counted %lu, options taken %lu",
		      (unsigned long)(s1.err_vers - s0.err_vers),
		      (unsigned long)(s1.options_recv - s0.options_recv));
	}
	bare_client_down(&e);
	env_close(&e);
	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_1);
}

/* ------------------------------------------------------------ transport characteristics */

static void xval(struct rpcrdma_xcharval *v, uint32_t which, uint32_t value)
{
	static const uint8_t data[4] = { 0, 0, 0, 1 }; /* an unknown id's xchv_data */

	memset(v, 0, sizeof(*v));
	v->which = which;
	v->known = which == RPCRDMA_XCHAR_RBSIZ || which == RPCRDMA_XCHAR_REQREMINV ||
		   which == RPCRDMA_XCHAR_BRS;
	v->value = value;
	v->len = 4;
	v->data = v->known ? NULL : data;
}

/* A null call, or a call of @words words inline. */
static bool xcall(struct env *e, uint32_t words)
{
	struct tcall t;

	memset(&t, 0, sizeof(t));
	t.proc = words ? PROC_TEST : PROC_NULL;
	t.words = words;
	return run_call(e, &t) && t.status == 0 && t.ok;
}

static bool xchar_settled(struct env *e, void *arg)
{
	struct rpcrdma_xprt_xchar *xi = arg;

	rpcrdma_xprt_xchar_info(e->srv.xprt, xi);
	return !xi->req_outstanding;
}

static void test_xchar(void)
{
	struct rpcrdma_xprt_xchar cx, sx;
	struct rpcrdma_xprt_stats c0, c1, s0, s1;
	struct rpcrdma_xcharspec want;
	struct env e;
	uint32_t i;
	bool remote_inv = flags_kept(test_side_dev_info(), DEF_FLAGS) & RPCRDMA_XPRT_F_REMOTE_INV;

	set_vers(RPCRDMA_VERS_2, RPCRDMA_VERS_2, RPCRDMA_VERS_2);
	if (!env_open(&e, NULL, NULL))
		return;
	/* the client's receives are 2 KiB: its Receive Buffer Size */
	e.cli.params.recv_inline = 2048;
	if (!env_connect(&e) || !xcall(&e, 0)) {
		CHECK(0, "connected, first call");
		env_close(&e);
		return;
	}
	/* ---- ROPT_INITXCH both ways, before anything else ---- */
	CHECK(rpcrdma_xprt_xchar_info(e.cli.xprt, &cx) == 0 &&
		      rpcrdma_xprt_xchar_info(e.srv.xprt, &sx) == 0,
	      "the exchange runs on both ends");
	CHECK(cx.peer_init && sx.peer_init && !cx.peer_unsupported, "both ROPT_INITXCH arrived");
	CHECK(cx.local.rbsiz == 2048 && sx.peer.rbsiz == 2048 && cx.peer.rbsiz == 4096,
	      "Receive Buffer Sizes: client %u (server sees %u), server %u", cx.local.rbsiz,
	      sx.peer.rbsiz, cx.peer.rbsiz);
	/* where the device lets a peer invalidate our MRs (rpcrdma_xprt.h) */
	CHECK(cx.local.reqreminv == remote_inv && sx.peer.reqreminv == remote_inv &&
		      !cx.peer.reqreminv,
	      "the client asks for Send With Invalidate where its device allows (REQREMINV %d)",
	      remote_inv);
	CHECK(cx.peer.brs == RPCRDMA_BKREQSUP_NONE && sx.peer.brs == RPCRDMA_BKREQSUP_NONE,
	      "no backward requests served (BKREQSUP_NONE)");
	stats(&e.cli, &c1);
	stats(&e.srv, &s1);
	CHECK(c1.xchar_sent == 1 && c1.xchar_recv == 1 && s1.xchar_sent == 1 &&
		      s1.xchar_recv == 1 && c1.xchar_errors == 0 && s1.xchar_errors == 0,
	      "one ROPT_INITXCH each way: %lu %lu %lu %lu", (unsigned long)c1.xchar_sent,
	      (unsigned long)c1.xchar_recv, (unsigned long)s1.xchar_sent,
	      (unsigned long)s1.xchar_recv);
	/* the peer's Receive Buffer Size decides what goes inline */
	CHECK(sx.max_send == 2048 && cx.max_send == 4096, "max send: server %u, client %u",
	      sx.max_send, cx.max_send);

	/* ---- the client asks the server to lower its Receive Buffer Size: done ---- */
	stats(&e.cli, &c0);
	CHECK(xcall(&e, 375), "1.5 KB call inline");
	want.n = 1;
	xval(&want.vals[0], RPCRDMA_XCHAR_RBSIZ, 1024);
	CHECK(rpcrdma_xprt_xchar_request(e.cli.xprt, &want) == 0, "ROPT_REQXCH sent");
	CHECK(rpcrdma_xprt_xchar_request(e.cli.xprt, &want) == -EBUSY, "one request at a time");
	rpcrdma_xprt_xchar_info(e.cli.xprt, &cx);
	CHECK(cx.req_outstanding && cx.max_send == 1024,
	      "while asked, the client sends at most 1024 bytes: %u", cx.max_send);
	for (i = 0; i < 1000 && cx.req_outstanding; i++) {
		pump_once(&e);
		rpcrdma_xprt_xchar_info(e.cli.xprt, &cx);
	}
	rpcrdma_xprt_xchar_info(e.srv.xprt, &sx);
	CHECK(!cx.req_outstanding && cx.peer.rbsiz == 1024 && sx.local.rbsiz == 1024 &&
		      cx.max_send == 1024,
	      "done: the server's Receive Buffer Size is 1024 (%u, %u)", cx.peer.rbsiz,
	      sx.local.rbsiz);
	CHECK(xcall(&e, 375), "1.5 KB call as a Long Call");
	stats(&e.cli, &c1);
	CHECK(c1.short_msgs - c0.short_msgs == 1 && c1.long_msgs - c0.long_msgs == 1,
	      "inline before, Long Call after: short %lu long %lu",
	      (unsigned long)(c1.short_msgs - c0.short_msgs),
	      (unsigned long)(c1.long_msgs - c0.long_msgs));

	/*
	 * ---- the server asks the client: REQREMINV off (done), an
	 * experimental characteristic (rejected), RBSIZ 4096 (pending until
	 * the client's 2 KiB receives are gone), then ROPT_UPDXCH ----
	 */
	want.n = 3;
	xval(&want.vals[0], RPCRDMA_XCHAR_REQREMINV, 0);
	xval(&want.vals[1], RPCRDMA_XCHAR_EXPERIMENTAL_FIRST + 5, 1);
	xval(&want.vals[2], RPCRDMA_XCHAR_RBSIZ, 4096);
	want.vals[1].data = NULL;
	CHECK(rpcrdma_xprt_xchar_request(e.srv.xprt, &want) == -EINVAL,
	      "an unknown id without its data");
	xval(&want.vals[1], RPCRDMA_XCHAR_EXPERIMENTAL_FIRST + 5, 1);
	stats(&e.srv, &s0);
	CHECK(rpcrdma_xprt_xchar_request(e.srv.xprt, &want) == 0, "server ROPT_REQXCH");
	CHECK(pump_until(&e, xchar_settled, &sx), "its ROPT_RESPXCH");
	rpcrdma_xprt_xchar_info(e.cli.xprt, &cx);
	CHECK(!sx.peer.reqreminv && !cx.local.reqreminv, "REQREMINV done: false on both views");
	CHECK(sx.req_pend == RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_RBSIZ) &&
		      cx.peer_pend == RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_RBSIZ) &&
		      sx.peer.rbsiz == 2048,
	      "RBSIZ pending: %#x %#x, still %u", sx.req_pend, cx.peer_pend, sx.peer.rbsiz);
	/* the client's 2 KiB receives are consumed by replies and reposted at 4 KiB */
	for (i = 0; i < 64 && (sx.req_pend != 0); i++) {
		CHECK(xcall(&e, 0), "call %u while the raise waits", i);
		rpcrdma_xprt_xchar_info(e.srv.xprt, &sx);
	}
	rpcrdma_xprt_xchar_info(e.cli.xprt, &cx);
	CHECK(sx.req_pend == 0 && cx.peer_pend == 0 && sx.peer.rbsiz == 4096 &&
		      cx.local.rbsiz == 4096 && sx.max_send == 4096,
	      "ROPT_UPDXCH with pendclr after %u calls: RBSIZ %u, server sends %u", i,
	      sx.peer.rbsiz, sx.max_send);
	/* REQREMINV false: replies to calls with chunks no longer use Send With Invalidate */
	{
		struct tcall t = { .proc = PROC_TEST,
				   .words = 2,
				   .nres = 1,
				   .res_len = { 8000 },
				   .res_chunks = true };

		stats(&e.srv, &s0);
		CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "a reply through a write chunk");
		stats(&e.srv, &s1);
		CHECK(s1.send_inv == s0.send_inv, "no Send With Invalidate after REQREMINV false");
	}
	/* ---- our own change: the client announces BRS (ROPT_UPDXCH) ---- */
	CHECK(rpcrdma_xprt_xchar_set(e.cli.xprt, RPCRDMA_XCHAR_RBSIZ, 1024) == -EPERM,
	      "RBSIZ is lowered only when asked");
	CHECK(rpcrdma_xprt_xchar_set(e.cli.xprt, RPCRDMA_XCHAR_BRS, 7) == -EINVAL, "BRS 7");
	CHECK(rpcrdma_xprt_xchar_set(e.cli.xprt, RPCRDMA_XCHAR_BRS, RPCRDMA_BKREQSUP_INLINE) == 0,
	      "BRS INLINE announced");
	for (i = 0; i < 1000 && sx.peer.brs != RPCRDMA_BKREQSUP_INLINE; i++) {
		pump_once(&e);
		rpcrdma_xprt_xchar_info(e.srv.xprt, &sx);
	}
	CHECK(sx.peer.brs == RPCRDMA_BKREQSUP_INLINE, "the server sees BRS INLINE");
	stats(&e.cli, &c1);
	stats(&e.srv, &s1);
	CHECK(c1.xchar_errors == 0 && s1.xchar_errors == 0 && c1.ctrl_drops == 0 &&
		      s1.ctrl_drops == 0,
	      "no errors, no drops");
	env_close(&e);

	/* ---- a server without the extension: INVAL_OPTION, calls go on ---- */
	if (!env_open(&e, NULL, NULL))
		return;
	e.srv.params.flags |= RPCRDMA_XPRT_F_NO_XCHAR;
	if (env_connect(&e)) {
		CHECK(xcall(&e, 0) && xcall(&e, 0), "calls");
		rpcrdma_xprt_xchar_info(e.cli.xprt, &cx);
		stats(&e.srv, &s1);
		CHECK(cx.peer_unsupported && !cx.peer_init && s1.err_option == 1 &&
			      s1.xchar_sent == 0,
		      "the client's ROPT_INITXCH answered RDMA2_ERR_INVAL_OPTION: %d %lu",
		      cx.peer_unsupported, (unsigned long)s1.err_option);
		CHECK(rpcrdma_xprt_xchar_info(e.srv.xprt, &sx) == -ENOTCONN, "server: off");
	}
	env_close(&e);

	/*
	 * ---- a server that promises to keep REQREMINV and BRS (optixch_nochg):
	 * the client sees the promise, its request for one is rejected, the
	 * server cannot change them itself ----
	 */
	if (!env_open(&e, NULL, NULL))
		return;
	{
		const uint32_t keep = RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_REQREMINV) |
				      RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_BRS);
		struct rpcrdma_xprt_params bad = e.cli.params;
		struct rpcrdma_xprt *x = NULL;

		bad.xchar_nochg = 1u << 9; /* no known id */
		CHECK(rpcrdma_xprt_create(&bad, &x) == -EINVAL && x == NULL,
		      "an unknown id in xchar_nochg");
		e.srv.params.xchar_nochg = keep;
		if (env_connect(&e) && xcall(&e, 0)) {
			rpcrdma_xprt_xchar_info(e.cli.xprt, &cx);
			rpcrdma_xprt_xchar_info(e.srv.xprt, &sx);
			CHECK(cx.peer_nochg == keep && sx.nochg == keep && cx.nochg == 0 &&
				      sx.peer_nochg == 0,
			      "the server's ROPT_INITXCH carries its nochg: %#x %#x", cx.peer_nochg,
			      sx.nochg);
			want.n = 2;
			xval(&want.vals[0], RPCRDMA_XCHAR_BRS, RPCRDMA_BKREQSUP_GENL);
			xval(&want.vals[1], RPCRDMA_XCHAR_RBSIZ, 2048);
			CHECK(rpcrdma_xprt_xchar_request(e.cli.xprt, &want) == 0,
			      "client ROPT_REQXCH");
			rpcrdma_xprt_xchar_info(e.cli.xprt, &cx);
			for (i = 0; i < 1000 && cx.req_outstanding; i++) {
				pump_once(&e);
				rpcrdma_xprt_xchar_info(e.cli.xprt, &cx);
			}
			rpcrdma_xprt_xchar_info(e.srv.xprt, &sx);
			CHECK(!cx.req_outstanding && cx.req_pend == 0 &&
				      cx.peer.brs == RPCRDMA_BKREQSUP_NONE &&
				      sx.local.brs == RPCRDMA_BKREQSUP_NONE &&
				      cx.peer.rbsiz == 2048 && sx.local.rbsiz == 2048,
			      "BRS rejected (%u), RBSIZ lowered (%u)", cx.peer.brs, cx.peer.rbsiz);
			CHECK(rpcrdma_xprt_xchar_set(e.srv.xprt, RPCRDMA_XCHAR_BRS,
						     RPCRDMA_BKREQSUP_INLINE) == -EPERM &&
				      rpcrdma_xprt_xchar_set(e.srv.xprt, RPCRDMA_XCHAR_REQREMINV,
							     1) == -EPERM,
			      "the server keeps its promise");
			CHECK(rpcrdma_xprt_xchar_set(e.srv.xprt, RPCRDMA_XCHAR_BRS,
						     RPCRDMA_BKREQSUP_NONE) == 0,
			      "setting a kept one to its value");
			CHECK(xcall(&e, 0), "calls go on");
			stats(&e.cli, &c1);
			stats(&e.srv, &s1);
			CHECK(c1.xchar_errors == 0 && s1.xchar_errors == 0, "no errors: %lu %lu",
			      (unsigned long)c1.xchar_errors, (unsigned long)s1.xchar_errors);
		} else {
			CHECK(0, "connected, first call");
		}
	}
	env_close(&e);
	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_1);
}

/*
 * Send a message from the bare client and gather what arrives for @ms
 * milliseconds (at most @max messages, each decoded into hs[]; the
 * receives' buffers go back, so optinfo pointers are not to be followed).
 * @return the number of messages.
 */
static unsigned int bare_gather(struct env *e, const void *msg, uint32_t len,
				struct rpcrdma_hdr_storage *hs, unsigned int max, uint32_t ms)
{
	struct rpcrdma_mempool *ip = e->cli.pools->inline_pool;
	struct rpcrdma_pmd_wc wc[4];
	uint64_t end = test_now_ms() + ms;
	unsigned int got = 0;
	void *sb;

	bare_post(&e->cli, max);
	sb = bare_cli_send(e, msg, len);
	while (test_now_ms() < end) {
		int n = rpcrdma_pmd_poll_cq_burst(e->cli.cq, wc, 4);

		for (int i = 0; i < n; i++) {
			if (wc[i].wr_id == 2)
				continue;
			if (wc[i].status == RPCRDMA_PMD_WC_SUCCESS && got < max) {
				int r = rpcrdma_hdr_decode(rpcrdma_hdr_storage_init(&hs[got]),
							   (void *)(uintptr_t)wc[i].wr_id,
							   wc[i].byte_len);

				CHECK(r > 0, "a decodable message: %d", r);
				got++;
			}
			/* only header fields are read afterwards, not optinfo */
			rpcrdma_mempool_put(ip, (void *)(uintptr_t)wc[i].wr_id);
		}
		test_side_poll(&e->srv, srv_accept);
	}
	rpcrdma_mempool_put(ip, sb);
	return got;
}

/* Hostile transport characteristics from a bare version 2 client. */
static void test_xchar_errors(void)
{
	static struct rpcrdma_hdr_storage hs[4];
	uint8_t msg[512];
	struct rpcrdma_xprt_stats s1;
	unsigned int n, i;
	uint32_t len;
	struct env e;

	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_2, RPCRDMA_VERS_2);
	if (!env_open(&e, NULL, NULL))
		return;
	bare_client_up(&e);
	/* the first version 2 call: the server's ROPT_INITXCH, then the reply */
	len = craft(msg, 0x301, v2call, 8);
	n = bare_gather(&e, msg, len, hs, 2, 300);
	CHECK(n == 2 && hs[0].hdr.proc == RPCRDMA_OPTIONAL &&
		      hs[0].hdr.optional.opttype == RPCRDMA_ROPT_INITXCH &&
		      hs[1].hdr.proc == RPCRDMA_MSG && hs[1].hdr.xid == 0x301,
	      "ROPT_INITXCH first, then the reply: %u messages", n);
	{
		/*
		 * xcharext bodies that are malformed or break a rule:
		 * RDMA2_ERR_BAD_HEADER with the same XID, nothing applied
		 */
		const uint32_t bad_len[] = { 0,
					     2,
					     8,
					     RPCRDMA_OPTIONAL,
					     RPCRDMA_CALL,
					     RPCRDMA_ROPT_INITXCH,
					     16,
					     1,
					     RPCRDMA_XCHAR_RBSIZ,
					     8,
					     0,
					     0 }; /* RBSIZ with 8 bytes of data */
		const uint32_t upd_lower[] = { 0,
					       2,
					       8,
					       RPCRDMA_OPTIONAL,
					       RPCRDMA_CALL,
					       RPCRDMA_ROPT_UPDXCH,
					       16,
					       RPCRDMA_XCHAR_RBSIZ,
					       4,
					       1024,
					       0 };
		const uint32_t resp_none[] = {
			0, 2, 8, RPCRDMA_OPTIONAL, RPCRDMA_REPLY, RPCRDMA_ROPT_RESPXCH, 12, 0, 0, 0
		};
		/* RBSIZ 2048, promised never to change (optixch_nochg: element 0) */
		const uint32_t init_keep[] = { 0,
					       2,
					       8,
					       RPCRDMA_OPTIONAL,
					       RPCRDMA_CALL,
					       RPCRDMA_ROPT_INITXCH,
					       24,
					       1,
					       RPCRDMA_XCHAR_RBSIZ,
					       4,
					       2048,
					       1,
					       1 };
		const uint32_t upd_raise[] = { 0,
					       2,
					       8,
					       RPCRDMA_OPTIONAL,
					       RPCRDMA_CALL,
					       RPCRDMA_ROPT_UPDXCH,
					       16,
					       RPCRDMA_XCHAR_RBSIZ,
					       4,
					       4096,
					       0 };
		struct {
			const uint32_t *w;
			unsigned int n;
			uint32_t code; /* 0: applied, nothing sent */
			const char *what;
		} cases[] = {
			{ bad_len, 12, RPCRDMA2_ERR_BAD_HEADER, "RBSIZ with 8 bytes of data" },
			{ init_keep, 13, 0, "the client's ROPT_INITXCH (RBSIZ 2048, kept)" },
			{ initxch, 12, RPCRDMA2_ERR_BAD_HEADER, "a second ROPT_INITXCH" },
			{ upd_lower, 11, RPCRDMA2_ERR_BAD_HEADER, "an unasked RBSIZ lowering" },
			{ upd_raise, 11, RPCRDMA2_ERR_BAD_HEADER, "a change of a kept RBSIZ" },
			{ resp_none, 10, RPCRDMA2_ERR_BAD_HEADER, "a ROPT_RESPXCH to nothing" },
		};

		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			len = put_words(msg, 0x310 + i, cases[i].w, cases[i].n);
			n = bare_gather(&e, msg, len, hs, 1, 200);
			if (cases[i].code == 0)
				CHECK(n == 0, "%s: nothing answered (%u)", cases[i].what, n);
			else
				CHECK(n == 1 && hs[0].hdr.xid == 0x310 + i && hs[0].hdr.vers == 2 &&
					      hs[0].hdr.proc == RPCRDMA_ERROR &&
					      hs[0].hdr.error.code == cases[i].code,
				      "%s: RDMA2_ERROR %u (%u)", cases[i].what, cases[i].code, n);
		}
	}
	{
		struct rpcrdma_xprt_xchar sx;

		rpcrdma_xprt_xchar_info(e.srv.xprt, &sx);
		CHECK(sx.peer_init && sx.peer.rbsiz == 2048 && sx.max_send == 2048 &&
			      sx.peer_nochg == RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_RBSIZ),
		      "only the good ROPT_INITXCH applied: %u, nochg %#x", sx.peer.rbsiz,
		      sx.peer_nochg);
	}
	stats(&e.srv, &s1);
	CHECK(s1.xchar_errors == 5 && s1.xchar_recv == 1 && s1.errors_sent == 5,
	      "server: %lu xcharext errors, %lu applied, %lu RDMA2_ERROR",
	      (unsigned long)s1.xchar_errors, (unsigned long)s1.xchar_recv,
	      (unsigned long)s1.errors_sent);
	rpcrdma_pmd_disconnect(e.cli.qp);
	{
		/* the receives left posted flush: their buffers back */
		uint64_t end = test_now_ms() + 2000;

		while (test_now_ms() < end) {
			bare_reap(&e);
			test_side_poll(&e.srv, srv_accept);
			if (rpcrdma_mempool_set_check_all_back(e.cli.pools) == 0)
				break;
		}
	}
	env_close(&e);
	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_1);
}

/* ------------------------------------------------------------ backward direction */

/* The client's backward service: the test program, results from the client's pools. */
static struct srv_ctx bctx;

/* The client takes @bk backward calls (0: none), served by bctx. */
static void cli_backward(struct env *e, uint32_t bk)
{
	memset(&bctx, 0, sizeof(bctx));
	bctx.pools = e->cli.pools;
	e->cli.params.bk_credits = bk;
	if (bk) {
		e->cli.params.recv_call = srv_recv_call;
		e->cli.params.reply_done = srv_reply_done;
		e->cli.params.ctx = &bctx;
	}
}

/*
 * A client taking @bk backward calls, a server making up to @sbk; both
 * receive at most @recv_inline bytes inline (0: their buffers).
 */
static bool bk_open_inline(struct env *e, uint32_t bk, uint32_t sbk, uint32_t recv_inline)
{
	if (!env_open(e, NULL, NULL))
		return false;
	e->cli.params.recv_inline = recv_inline;
	e->srv.params.recv_inline = recv_inline;
	cli_backward(e, bk);
	e->srv.params.bk_credits = sbk;
	return env_connect(e);
}

static bool bk_open(struct env *e, uint32_t bk, uint32_t sbk)
{
	return bk_open_inline(e, bk, sbk, 0);
}

/* One backward call, start to end. */
static bool run_bcall(struct env *e, struct tcall *t)
{
	int ret = tcall_submit_on(&e->srv, t);

	if (ret) {
		t->status = ret;
		return false;
	}
	if (!pump_until(e, tcall_done, t)) {
		CHECK(0, "backward call completes");
		return false;
	}
	return true;
}

/* One direction's calls of a load: n in flight, want in all. */
struct bk_dir {
	struct tcall t[16];
	uint32_t n, want, sent, done, ok;
	uint32_t words; /* each call's argument words (and words + 1 result words) */
};

struct bk_load {
	struct bk_dir fwd, bwd;
};

/* Count the calls done, send new ones from @sd; true when all are done. */
static bool bk_dir_step(struct test_side *sd, struct bk_dir *d)
{
	for (uint32_t i = 0; i < d->n; i++) {
		struct tcall *t = &d->t[i];

		if (t->call != NULL)
			continue;
		if (t->done) {
			d->done++;
			d->ok += t->status == 0 && t->ok;
			t->done = false;
		}
		if (d->sent < d->want) {
			memset(t, 0, sizeof(*t));
			t->proc = PROC_TEST;
			t->words = d->words;
			t->rwords = d->words + 1;
			if (tcall_submit_on(sd, t) == 0)
				d->sent++;
		}
	}
	return d->done == d->want;
}

/* Forward and backward calls in flight together, each window full. */
static bool bk_load_step(struct env *e, void *arg)
{
	struct bk_load *l = arg;
	bool f = bk_dir_step(&e->cli, &l->fwd);

	return bk_dir_step(&e->srv, &l->bwd) && f;
}

static void bk_load_run(struct env *e, const char *what, uint32_t bk)
{
	static struct bk_load l;
	struct rpcrdma_xprt_stats ss;

	memset(&l, 0, sizeof(l));
	l.fwd.n = 16;
	l.fwd.want = 2000;
	l.fwd.words = 3;
	l.bwd.n = 8; /* more than the client grants: the server's window holds them */
	l.bwd.want = 500;
	l.bwd.words = 5;
	bctx.max_active = 0;
	CHECK(pump_until(e, bk_load_step, &l), "%s: load completes: %u/%u forward, %u/%u backward",
	      what, l.fwd.done, l.fwd.want, l.bwd.done, l.bwd.want);
	CHECK(l.fwd.ok == l.fwd.want && l.bwd.ok == l.bwd.want, "%s: every reply checked: %u %u",
	      what, l.fwd.ok, l.bwd.ok);
	stats(&e->srv, &ss);
	CHECK(ss.max_outstanding <= bk && bctx.max_active <= bk,
	      "%s: at most %u backward calls out (%lu at the server, %u at the client)", what, bk,
	      (unsigned long)ss.max_outstanding, bctx.max_active);
	CHECK(sctx.max_active <= 32, "%s: forward window kept: %u", what, sctx.max_active);
}

static void test_backward_v1(void)
{
	struct rpcrdma_xprt_stats cs, ss, cs0, ss0;
	struct rpcrdma_xprt_info si, ci;
	struct tcall t;
	struct env e;

	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_1);
	if (!bk_open(&e, 4, 8)) {
		env_close(&e);
		return;
	}
	/* refused locally before the client said anything, and before it is ready */
	memset(&t, 0, sizeof(t));
	CHECK(tcall_submit_on(&e.srv, &t) == 0 && t.done && t.status == -ECONNREFUSED,
	      "before any forward call: -ECONNREFUSED at once: %d", t.status);
	memset(&t, 0, sizeof(t));
	CHECK(run_call(&e, &t) && t.status == 0, "a forward call");
	/* forward calls keep their chunks on a connection with a backward channel */
	memset(&t, 0, sizeof(t));
	t.proc = PROC_TEST;
	t.nitems = 1;
	t.item_len[0] = 40000;
	t.nres = 1;
	t.res_len[0] = 9000;
	t.res_chunks = true;
	CHECK(run_call(&e, &t) && t.status == 0 && t.ok, "a forward call with chunks: %d",
	      t.status);
	memset(&t, 0, sizeof(t));
	CHECK(tcall_submit_on(&e.srv, &t) == 0 && t.done && t.status == -ECONNREFUSED,
	      "version 1, not said ready: -ECONNREFUSED: %d", t.status);
	stats(&e.srv, &ss);
	stats(&e.cli, &cs);
	CHECK(ss.bc_refused == 2 && ss.calls == 0 && cs.calls_recv == 0,
	      "refused twice, nothing sent: %lu %lu", (unsigned long)ss.bc_refused,
	      (unsigned long)ss.calls);
	rpcrdma_xprt_info(e.srv.xprt, &si);
	rpcrdma_xprt_info(e.cli.xprt, &ci);
	CHECK(si.backward && !si.bk_ready && si.bk_grant == 1 && ci.backward && ci.bk_grant == 4,
	      "backward state: server ready %d grant %u, client grant %u", si.bk_ready, si.bk_grant,
	      ci.bk_grant);

	CHECK(rpcrdma_xprt_bc_set_ready(e.srv.xprt, true) == 0, "set ready");
	stats(&e.srv, &ss0);
	stats(&e.cli, &cs0);
	memset(&t, 0, sizeof(t));
	CHECK(run_bcall(&e, &t) && t.status == 0 && t.ok, "backward NULL: %d", t.status);
	memset(&t, 0, sizeof(t));
	t.proc = PROC_TEST;
	t.words = 20;
	t.nitems = 1;
	t.item_len[0] = 333;
	t.rwords = 7;
	CHECK(run_bcall(&e, &t) && t.status == 0 && t.ok,
	      "backward call with a DDP item, inline: %d", t.status);
	rpcrdma_xprt_info(e.srv.xprt, &si);
	CHECK(si.bk_ready && si.bk_grant == 4, "the client's backward grant: %u", si.bk_grant);
	/* version 1: inline only (RFC 8167 2.5): a 40 KB item cannot go */
	memset(&t, 0, sizeof(t));
	t.proc = PROC_TEST;
	t.nitems = 1;
	t.item_len[0] = 40000;
	CHECK(run_bcall(&e, &t) && t.status == -EMSGSIZE,
	      "version 1 backward call needing a chunk: -EMSGSIZE: %d", t.status);
	stats(&e.srv, &ss);
	stats(&e.cli, &cs);
	CHECK(ss.chunked_msgs == ss0.chunked_msgs && ss.long_msgs == ss0.long_msgs &&
		      cs.chunked_msgs == cs0.chunked_msgs && cs.long_msgs == cs0.long_msgs &&
		      cs.calls_recv == 2 && cs.replies - cs0.replies == 2,
	      "backward messages all Short: server %lu/%lu, client calls %lu replies %lu",
	      (unsigned long)(ss.chunked_msgs - ss0.chunked_msgs),
	      (unsigned long)(ss.long_msgs - ss0.long_msgs), (unsigned long)cs.calls_recv,
	      (unsigned long)(cs.replies - cs0.replies));
	bk_load_run(&e, "version 1", 4);
	env_close(&e);

	/* a client without backward service: said ready by a careless upper layer */
	if (bk_open(&e, 0, 8)) {
		memset(&t, 0, sizeof(t));
		CHECK(run_call(&e, &t) && t.status == 0, "a forward call");
		rpcrdma_xprt_bc_set_ready(e.srv.xprt, true);
		memset(&t, 0, sizeof(t));
		t.tmo_us = 200000;
		CHECK(run_bcall(&e, &t) && t.status == -ETIMEDOUT, "unanswered, times out: %d",
		      t.status);
		stats(&e.cli, &cs);
		CHECK(cs.bad_direction == 1, "the client dropped and counted it: %lu",
		      (unsigned long)cs.bad_direction);
	}
	env_close(&e);
}

static void test_backward_v2(void)
{
	struct rpcrdma_xprt_stats cs, ss;
	struct rpcrdma_xprt_xchar sx;
	struct tcall t;
	struct env e;

	/*
	 * version 2: the client's BKREQSUP_GENL says ready; chunks both ways
	 * (2 KiB receive buffers, so that 3.6 KB goes as a Long Call or Reply)
	 */
	set_vers(RPCRDMA_VERS_2, RPCRDMA_VERS_2, RPCRDMA_VERS_2);
	if (!bk_open_inline(&e, 4, 8, 2048)) {
		env_close(&e);
		return;
	}
	memset(&t, 0, sizeof(t));
	CHECK(run_call(&e, &t) && t.status == 0, "the forward probe");
	rpcrdma_xprt_xchar_info(e.srv.xprt, &sx);
	CHECK(sx.peer.brs == RPCRDMA_BKREQSUP_GENL && rpcrdma_xprt_bc_may_call(e.srv.xprt) == 0,
	      "the client's BRS GENL: ready without set_ready");
	{
		const struct tcall cases[] = {
			{ .proc = PROC_TEST, .words = 3, .nitems = 2, .item_len = { 40000, 7001 } },
			{ .proc = PROC_TEST,
			  .words = 2,
			  .nres = 2,
			  .res_len = { 8191, 3 },
			  .res_chunks = true,
			  .rwords = 2 },
			{ .proc = PROC_TEST, .words = 900, .rwords = 900 },
		};
		const char *names[] = { "read chunks", "write chunks", "long call, long reply" };

		for (unsigned int i = 0; i < 3; i++) {
			t = cases[i];
			CHECK(run_bcall(&e, &t) && t.status == 0 && t.ok,
			      "version 2 backward call with %s: %d", names[i], t.status);
		}
	}
	stats(&e.srv, &ss);
	stats(&e.cli, &cs);
	CHECK(ss.chunked_msgs >= 1 && ss.long_msgs == 1 && ss.long_replies == 1 &&
		      cs.read_bytes >= 40000 + 7001 + 900 * 4 &&
		      cs.write_bytes >= 8191 + 3 + 900 * 4,
	      "the chunks moved: server chunked %lu long %lu, client read %lu write %lu",
	      (unsigned long)ss.chunked_msgs, (unsigned long)ss.long_msgs,
	      (unsigned long)cs.read_bytes, (unsigned long)cs.write_bytes);
	bk_load_run(&e, "version 2", 4);

	/*
	 * The client lowers its Backward Request Support to BKREQSUP_INLINE
	 * (xcharext 3.3: inline messages only, no explicit RDMA): a backward
	 * call's DDP items then go inline, its results come back inline, and a
	 * call that cannot fit the client's 2 KiB receives fails locally,
	 * never sent.
	 */
	CHECK(rpcrdma_xprt_xchar_set(e.cli.xprt, RPCRDMA_XCHAR_BRS, RPCRDMA_BKREQSUP_INLINE) == 0,
	      "BRS INLINE announced");
	for (unsigned int i = 0; i < 1000 && sx.peer.brs != RPCRDMA_BKREQSUP_INLINE; i++) {
		pump_once(&e);
		rpcrdma_xprt_xchar_info(e.srv.xprt, &sx);
	}
	CHECK(sx.peer.brs == RPCRDMA_BKREQSUP_INLINE, "the server sees BRS INLINE");
	{
		struct rpcrdma_xprt_stats cs0, ss0;
		const struct tcall small = { .proc = PROC_TEST,
					     .words = 3,
					     .nitems = 1,
					     .item_len = { 600 },
					     .nres = 1,
					     .res_len = { 300 },
					     .rwords = 2 };
		const struct tcall big = {
			.proc = PROC_TEST, .words = 3, .nitems = 1, .item_len = { 5000 }
		};

		stats(&e.cli, &cs0);
		stats(&e.srv, &ss0);
		t = small;
		CHECK(run_bcall(&e, &t) && t.status == 0 && t.ok,
		      "BRS INLINE: a backward call with DDP items, inline: %d", t.status);
		t = big;
		CHECK(run_bcall(&e, &t) && t.status == -EMSGSIZE,
		      "BRS INLINE: a backward call over the inline threshold fails -EMSGSIZE: %d",
		      t.status);
		stats(&e.cli, &cs);
		stats(&e.srv, &ss);
		CHECK(cs.read_bytes == cs0.read_bytes && cs.write_bytes == cs0.write_bytes &&
			      ss.chunked_msgs == ss0.chunked_msgs &&
			      ss.long_msgs == ss0.long_msgs && cs.calls_recv == cs0.calls_recv + 1,
		      "no RDMA Read or Write, one call sent: client read %lu write %lu, server "
		      "chunked %lu long %lu, client took %lu",
		      (unsigned long)(cs.read_bytes - cs0.read_bytes),
		      (unsigned long)(cs.write_bytes - cs0.write_bytes),
		      (unsigned long)(ss.chunked_msgs - ss0.chunked_msgs),
		      (unsigned long)(ss.long_msgs - ss0.long_msgs),
		      (unsigned long)(cs.calls_recv - cs0.calls_recv));
	}
	env_close(&e);

	/* a version 2 client without backward service: BKREQSUP_NONE, refused locally */
	if (bk_open(&e, 0, 8)) {
		memset(&t, 0, sizeof(t));
		CHECK(run_call(&e, &t) && t.status == 0, "the forward probe");
		rpcrdma_xprt_bc_set_ready(e.srv.xprt, true); /* BRS rules in version 2 */
		memset(&t, 0, sizeof(t));
		CHECK(tcall_submit_on(&e.srv, &t) == 0 && t.done && t.status == -ECONNREFUSED,
		      "BKREQSUP_NONE: -ECONNREFUSED: %d", t.status);
		stats(&e.cli, &cs);
		CHECK(cs.calls_recv == 0 && cs.bad_direction == 0, "never sent");
	}
	env_close(&e);
	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_1);
}

static bool bctx_has(struct env *e, void *arg)
{
	return bctx.async_n >= *(uint32_t *)arg;
}

static bool bcalls_done(struct env *e, void *arg)
{
	struct tcall *t = arg;

	return t[0].done && t[1].done && t[2].done;
}

/* Backward calls out when the connection is lost: sent again after the reconnect. */
static void test_backward_loss(void)
{
	struct rpcrdma_xprt *old;
	struct tcall t[3];
	uint32_t xids[3], three = 3, i;
	struct env e;

	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_1);
	if (!bk_open(&e, 4, 8)) {
		env_close(&e);
		return;
	}
	memset(t, 0, sizeof(t));
	CHECK(run_call(&e, &t[0]) && t[0].status == 0, "a forward call");
	rpcrdma_xprt_bc_set_ready(e.srv.xprt, true);
	/* one backward call answered: the client's grant (4) replaces the first credit */
	memset(&t[0], 0, sizeof(t[0]));
	CHECK(run_bcall(&e, &t[0]) && t[0].status == 0, "a backward call");
	bctx.calls = 0;
	bctx.no_reply = true; /* the client holds them: out when the connection goes */
	for (i = 0; i < 3; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].proc = PROC_TEST;
		t[i].words = 4;
		t[i].rwords = 3;
		t[i].flags = RPCRDMA_XPRT_CALL_F_RETRANSMIT;
		CHECK(tcall_submit_on(&e.srv, &t[i]) == 0, "submit %u", i);
		xids[i] = rpcrdma_xprt_call_xid(t[i].call);
	}
	CHECK(pump_until(&e, bctx_has, &three), "the client holds 3 backward calls");
	rpcrdma_xprt_disconnect(e.cli.xprt);
	/* the client's held calls: dropped, their connection is gone */
	for (i = 0; i < bctx.async_n; i++)
		rpcrdma_xprt_svc_call_drop(bctx.async[i]);
	bctx.async_n = 0;
	bctx.no_reply = false;
	CHECK(pump_until(&e, both_closed, NULL), "both closed");
	CHECK(!t[0].done && !t[1].done && !t[2].done, "the backward calls wait");
	old = e.srv.xprt;
	CHECK(rpcrdma_xprt_destroy(old) == -EBUSY, "the old connection holds them");
	e.srv.xprt = NULL;
	bctx.calls = 0;
	if (env_connect(&e)) {
		CHECK(rpcrdma_xprt_bc_adopt(e.srv.xprt, old) == 3, "3 calls adopted");
		CHECK(rpcrdma_xprt_destroy(old) == 0, "the old connection is empty");
		old = NULL;
		for (i = 0; i < 50; i++)
			pump_once(&e);
		CHECK(!t[0].done && bctx.calls == 0, "not sent before the client is ready");
		{
			struct tcall f;

			memset(&f, 0, sizeof(f));
			CHECK(run_call(&e, &f) && f.status == 0,
			      "forward call on the new connection");
		}
		rpcrdma_xprt_bc_set_ready(e.srv.xprt, true);
		CHECK(pump_until(&e, bcalls_done, t), "delivered after the reconnect");
		for (i = 0; i < 3; i++)
			CHECK(t[i].status == 0 && t[i].ok, "call %u: %d", i, t[i].status);
		CHECK(bctx.calls == 3, "the client answered 3: %u", bctx.calls);
		/* sent again with their own XIDs (RFC 8167 / bidirection draft 2.3: a retransmission reuses the XID) */
		for (i = 0; i < 3; i++) {
			bool seen = false;

			for (uint32_t k = 0; k < 3; k++)
				seen = seen || bctx.xid_log[k] == xids[i];
			CHECK(seen, "adopted call %u went again with its XID %#x", i, xids[i]);
		}
	}
	if (old != NULL)
		rpcrdma_xprt_destroy(old);
	env_close(&e);
}

/* ------------------------------------------------------------ hostile peers */

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

/* xorshift64*: a fixed sequence, so a failure is found again */
static uint32_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return (uint32_t)((rnd_state * 2685821657736338717ull) >> 32);
}

/* A word a mutation writes: small values (versions, procs, counts) and anything. */
static uint32_t rnd_word(void)
{
	static const uint32_t special[] = { 0, 1, 2,  3,    4,		5,	    6,
					    7, 8, 16, 4096, 0x7fffffff, 0xffffffff, 0xfffffff0 };

	return rnd() % 2 ? special[rnd() % (sizeof(special) / sizeof(special[0]))] : rnd();
}

/*
 * HOSTILE_ROUNDS runs the hostile tests longer (a sanitizer build): @dflt
 * rounds without, a quarter over a real device (the emulated guest): the
 * engine meets the same mutations over shm, and the PMD's error and
 * reconnect paths are still taken hundreds of times.
 */
static unsigned int hostile_rounds(unsigned int dflt)
{
	const char *v = getenv("HOSTILE_ROUNDS");

	if (v != NULL)
		return (unsigned int)strtoul(v, NULL, 0);
	return test_side_shm() ? dflt : dflt / 4;
}

/*
 * The mutation both hostile peers make: 0..3 words of the message
 * overwritten and, one time in 8, the message cut anywhere. Returns its
 * new length.
 */
static uint32_t mutate(uint8_t *b, uint32_t len)
{
	uint32_t nw = len / 4, m = rnd() % 4, k;

	for (k = 0; k < m; k++)
		put32(b, rnd() % nw, rnd_word());
	if (rnd() % 8 == 0)
		len = rnd() % (len + 1); /* cut anywhere */
	return len;
}

/*
 * A hostile test's bare PMD endpoint (the client's against the engine's
 * server, or the server's against its client) and the engine's end it
 * faces. Both tests poll, lose and reconnect it the same way.
 */
#define HOSTILE_RECVS 32 /* receives kept posted on the bare endpoint */

struct hostile {
	struct env *e;
	struct test_side *bare; /* the bare endpoint */
	struct test_side *peer; /* the engine's end */
	unsigned int posted;	/* receives posted on the bare endpoint */
	unsigned int lost;	/* its connection went (a Read of a forged chunk, ...) */
	unsigned int recvd;	/* the messages the engine sent it */
	uint32_t xids[16];	/* the latest XIDs the engine sent */
	unsigned int nxids;
	uint8_t *sb; /* the message the bare endpoint sends */
};

/*
 * Poll the bare endpoint's CQ: count what arrived, notice a connection
 * lost, and keep HOSTILE_RECVS receives posted while it lasts.
 */
static void hostile_poll(struct hostile *h)
{
	struct rpcrdma_mempool *ip = h->bare->pools->inline_pool;
	struct rpcrdma_pmd_wc wc[8];
	int n = rpcrdma_pmd_poll_cq_burst(h->bare->cq, wc, 8);

	for (int i = 0; i < n; i++) {
		if (wc[i].status != RPCRDMA_PMD_WC_SUCCESS)
			h->lost = 1;
		if (wc[i].wr_id == 2)
			continue;
		h->posted--;
		if (wc[i].status == RPCRDMA_PMD_WC_SUCCESS && wc[i].byte_len >= 4) {
			h->xids[h->nxids++ % 16] =
				rpcrdma_wire_get32((void *)(uintptr_t)wc[i].wr_id, 0);
			h->recvd++;
		}
		rpcrdma_mempool_put(ip, (void *)(uintptr_t)wc[i].wr_id);
	}
	if (!h->lost && h->posted < HOSTILE_RECVS) {
		bare_post(h->bare, HOSTILE_RECVS - h->posted);
		h->posted = HOSTILE_RECVS;
	}
}

/*
 * The bare endpoint's connection events, taken so that the PMD acts on
 * them (verbs: rdma_cm's DISCONNECTED moves the QP to error and flushes
 * it); a loss is noted. No connect request comes here: a bare server
 * takes its own in bare_server_wait().
 */
static void hostile_events(struct hostile *h)
{
	struct rpcrdma_pmd_event ev;

	while (rpcrdma_pmd_event_poll(h->bare->dev, &ev, 1) == 1)
		if (ev.type == RPCRDMA_PMD_EVENT_DISCONNECTED ||
		    ev.type == RPCRDMA_PMD_EVENT_CONNECT_ERROR)
			h->lost = 1;
}

/* n times: the engine's end polled, then the bare endpoint. */
static void hostile_pump(struct hostile *h, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		test_side_poll(h->peer, h->peer == &h->e->srv ? srv_accept : NULL);
		srv_parked_poll();
		hostile_events(h);
		hostile_poll(h);
	}
}

/*
 * Drop the bare endpoint, its receives flushed back, and connect a new
 * one when @again. A bare server also waits for the client to see the
 * loss: the client, not the bare server, connects again.
 */
static bool hostile_reconnect(struct hostile *h, bool again)
{
	struct env *e = h->e;
	bool bare_srv = h->bare == &e->srv;
	uint64_t end = test_now_ms() + WAIT_MS;

	rpcrdma_pmd_disconnect(h->bare->qp);
	while ((h->posted > 0 ||
		(bare_srv && rpcrdma_xprt_state(e->cli.xprt) != RPCRDMA_XPRT_CLOSED &&
		 rpcrdma_xprt_state(e->cli.xprt) != RPCRDMA_XPRT_ERROR)) &&
	       test_now_ms() < end)
		hostile_pump(h, 1);
	CHECK(h->posted == 0, "the bare %s's receives flushed: %u left",
	      bare_srv ? "server" : "endpoint", h->posted);
	rpcrdma_pmd_qp_destroy(h->bare->qp);
	rpcrdma_pmd_cq_destroy(h->bare->cq);
	h->bare->qp = NULL;
	h->bare->cq = NULL;
	if (!again)
		return true;
	h->lost = 0;
	if (bare_srv) {
		int ret;

		bare_qp(&e->srv);
		/* receives first: the client sends what waited for it at once */
		bare_post(h->bare, HOSTILE_RECVS);
		h->posted = HOSTILE_RECVS;
		ret = rpcrdma_xprt_connect(e->cli.xprt, e->addr);
		if (ret != 0 || !bare_server_wait(e, test_now_ms() + WAIT_MS)) {
			CHECK(0, "the client connects again to a bare server: %d, %s", ret,
			      rpcrdma_xprt_state_name(rpcrdma_xprt_state(e->cli.xprt)));
			return false;
		}
	} else if (!bare_client(e)) {
		CHECK(0, "a bare client connects again");
		return false;
	}
	hostile_poll(h);
	return true;
}

/*
 * Connect the bare endpoint, the server's when @bare_srv, to the engine's
 * other end and post its receives; false, and the env closed, when it
 * does not connect.
 */
static bool hostile_start(struct hostile *h, struct env *e, bool bare_srv)
{
	memset(h, 0, sizeof(*h));
	h->e = e;
	h->bare = bare_srv ? &e->srv : &e->cli;
	h->peer = bare_srv ? &e->cli : &e->srv;
	h->posted = bare_srv ? HOSTILE_RECVS : 0;
	if (!(bare_srv ? bare_server_accept(e, HOSTILE_RECVS) : bare_client(e))) {
		CHECK(0, "%s", bare_srv ? "bare server accepted" : "bare client connected");
		env_close(e);
		return false;
	}
	hostile_poll(h);
	h->sb = rpcrdma_mempool_get(h->bare->pools->inline_pool);
	return true;
}

/* Send len bytes of h->sb from the bare endpoint. */
static int hostile_send(struct hostile *h, uint32_t len)
{
	return bare_send(h->bare->qp, h->bare->pools->inline_pool, h->sb, len);
}

/* Drop the bare endpoint and close: every buffer of both ends must be back. */
static void hostile_end(struct hostile *h)
{
	rpcrdma_mempool_put(h->bare->pools->inline_pool, h->sb);
	hostile_reconnect(h, false);
	env_close(h->e);
	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_1);
}

/*
 * Tens of thousands of mutated messages at a server of both versions with
 * a backward channel: calls of both versions, transport characteristics,
 * errors, write lists; words overwritten with small and random values,
 * lengths cut. The server answers what it can, errors or drops the rest,
 * and never crashes; a forged chunk it reads takes the connection down
 * (RC semantics), and a new one is made. At the end its pools are full.
 */
static void test_hostile_server(void)
{
	static const uint32_t reqxch[] = { 0,
					   2,
					   8,
					   RPCRDMA_OPTIONAL,
					   RPCRDMA_CALL,
					   RPCRDMA_ROPT_REQXCH,
					   16,
					   1,
					   RPCRDMA_XCHAR_RBSIZ,
					   4,
					   2048 };
	static const uint32_t err[] = { 0, 2, 8, RPCRDMA_ERROR, RPCRDMA_ERR_CHUNK };
	static const uint32_t wlist[] = { 0, 1, 8, RPCRDMA_MSG, 0, 1, 1, 77, 64, 0, 4096, 0, 0 };
	/* Long Calls whose position-zero chunk names memory that is not there */
	static const uint32_t forged[] = { 0, 1, 8, RPCRDMA_NOMSG, 1, 0, 77, 64, 0, 4096, 0, 0, 0 };
	static const uint32_t forged2[] = {
		0, 2, 8, RPCRDMA_NOMSG, RPCRDMA_CALL, 1, 0, 77, 64, 0, 4096, 0, 0, 0
	};
	static const struct {
		const uint32_t *w;
		unsigned int n;
		bool rpc; /* followed by a NULL call */
	} tpl[] = { { v1call, 7, true },   { v2call, 8, true },	  { initxch, 12, false },
		    { reqxch, 11, false }, { err, 5, false },	  { wlist, 13, true },
		    { forged, 13, false }, { forged2, 14, false } };
	/* HOSTILE_ROUNDS and HOSTILE_SEED run it longer or differently (a sanitizer build) */
	const unsigned int rounds = hostile_rounds(20000);
	struct rpcrdma_xprt_stats s1;
	struct hostile h;
	unsigned int i, reconnects = 0, sent = 0;
	uint64_t end;
	struct env e;
	int ret;

	if (getenv("HOSTILE_SEED"))
		rnd_state = strtoull(getenv("HOSTILE_SEED"), NULL, 0) | 1;
	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_2);
	if (!env_open(&e, NULL, NULL))
		return;
	e.srv.params.bk_credits = 4;
	if (!hostile_start(&h, &e, false))
		return;
	for (i = 0; i < rounds; i++) {
		unsigned int t = rnd() % (sizeof(tpl) / sizeof(tpl[0]));
		uint32_t len;

		if (tpl[t].rpc)
			len = craft(h.sb, rnd(), tpl[t].w, tpl[t].n);
		else
			len = put_words(h.sb, rnd(), tpl[t].w, tpl[t].n);
		len = mutate(h.sb, len);
		/*
		 * A send queue full: the connection is going and the bare end
		 * has not seen it yet (verbs learns it from rdma_cm): the
		 * message goes on the next connection.
		 */
		end = test_now_ms() + WAIT_MS;
		while ((ret = hostile_send(&h, len)) != 0 && test_now_ms() < end) {
			hostile_pump(&h, 1);
			if (!h.lost && e.cli.qp->state != RPCRDMA_PMD_QPS_ERROR)
				continue;
			reconnects++;
			if (!hostile_reconnect(&h, true))
				break;
		}
		sent += ret == 0;
		/* the Send is copied when it executes: poll until it has */
		hostile_pump(&h, 8);
		if (h.lost || e.cli.qp->state == RPCRDMA_PMD_QPS_ERROR) {
			reconnects++;
			if (!hostile_reconnect(&h, true)) {
				CHECK(0, "reconnect after a lost connection");
				break;
			}
		}
	}
	/*
	 * Still answering: a good call of each version, one of them settled.
	 * A connection the last mutated message ended may show it only now
	 * (iWARP reports the responder's errors late): then the good call
	 * goes again on a new one.
	 */
	{
		unsigned int answered = 0;
		uint32_t k, len;

		for (k = 0; k < 2; k++) {
			for (int attempt = 0; attempt < 2; attempt++) {
				unsigned int before = h.recvd;

				len = craft(h.sb, 0x5151 + k, k ? v2call : v1call, k ? 8 : 7);
				CHECK(hostile_send(&h, len) == 0, "good call %u", k);
				end = test_now_ms() + WAIT_MS;
				while (h.recvd == before && !h.lost &&
				       e.cli.qp->state != RPCRDMA_PMD_QPS_ERROR &&
				       test_now_ms() < end)
					hostile_pump(&h, 1);
				if (h.recvd > before) {
					answered++;
					break;
				}
				reconnects++;
				if (!hostile_reconnect(&h, true))
					break;
			}
		}
		CHECK(answered == 2, "both good calls answered (one with ERR_VERS): %u", answered);
	}
	stats(&e.srv, &s1);
	CHECK(sent == rounds, "%u of %u messages sent", sent, rounds);
	CHECK(h.recvd > 0 && s1.calls_recv > 0, "the server answered %u messages", h.recvd);
	CHECK(reconnects > 0, "forged chunks took connections down: %u", reconnects);
	printf("hostile server: %u messages, %u answers, %u reconnects, %u refused while others "
	       "drained\n",
	       sent, h.recvd, reconnects, srv_refused);
	hostile_end(&h);
}

static bool tcalls_done(struct env *e, void *arg)
{
	struct tcall *t = arg;

	for (unsigned int i = 0; i < 4; i++)
		if (t[i].call != NULL)
			return false;
	return true;
}

/*
 * Mutated messages at a version 2 client with a backward channel, calls
 * out with short timeouts: replies of both versions (to its XIDs or not),
 * RDMA_ERROR and ERR_VERS, transport characteristics, backward calls. The
 * client completes every call (a reply, an error or its timeout), never
 * crashes, and ends with every buffer of both pools back.
 */
static void test_hostile_client(void)
{
	static const uint32_t r2[] = {
		0, 2, 8, RPCRDMA_MSG, RPCRDMA_REPLY, 0, 0, 0, 0, RPCRDMA_RPC_REPLY, 0, 0, 0, 0
	};
	static const uint32_t r1[] = { 0, 1, 8, RPCRDMA_MSG, 0, 0, 0, 0, RPCRDMA_RPC_REPLY, 0,
				       0, 0, 0 };
	static const uint32_t ev[] = { 0, 1, 8, RPCRDMA_ERROR, RPCRDMA_ERR_VERS, 1, 1 };
	static const uint32_t e2[] = { 0, 2, 8, RPCRDMA_ERROR, RPCRDMA2_ERR_BAD_HEADER };
	static const uint32_t init[] = { 0,
					 2,
					 8,
					 RPCRDMA_OPTIONAL,
					 RPCRDMA_REPLY,
					 RPCRDMA_ROPT_INITXCH,
					 20,
					 1,
					 RPCRDMA_XCHAR_BRS,
					 4,
					 2,
					 0 };
	static const uint32_t resp[] = {
		0, 2, 8, RPCRDMA_OPTIONAL, RPCRDMA_REPLY, RPCRDMA_ROPT_RESPXCH, 12, 1, 1, 0, 0
	};
	static const uint32_t wr2[] = {
		0,    2, 8, RPCRDMA_MSG, RPCRDMA_REPLY,	    0, 1, 1, 77, 64, 0,
		4096, 0, 0, 0,		 RPCRDMA_RPC_REPLY, 0, 0, 0, 0
	};
	static const struct {
		const uint32_t *w;
		unsigned int n;
		bool call;	     /* followed by a NULL call (a backward call) */
		unsigned int xid_at; /* the RPC xid's word (0: none) */
	} tpl[] = { { r2, 14, false, 8 },   { r1, 13, false, 7 },   { ev, 7, false, 0 },
		    { e2, 5, false, 0 },    { init, 12, false, 0 }, { resp, 11, false, 0 },
		    { wr2, 20, false, 15 }, { r2, 8, true, 0 },	    { r1, 7, true, 0 } };
	const unsigned int rounds = hostile_rounds(10000);
	static struct tcall t[4];
	struct hostile h;
	unsigned int i, k, reconnects = 0, completed = 0;
	struct env e;

	set_vers(RPCRDMA_VERS_2, RPCRDMA_VERS_1, RPCRDMA_VERS_1);
	if (!env_open(&e, NULL, NULL))
		return;
	cli_backward(&e, 4);
	memset(t, 0, sizeof(t));
	if (!hostile_start(&h, &e, true))
		return;
	for (i = 0; i < rounds; i++) {
		unsigned int n = rnd() % (sizeof(tpl) / sizeof(tpl[0]));
		uint32_t len, xid;

		/* four calls out, each ending by its reply, an error or a 2 ms timeout */
		for (k = 0; k < 4; k++) {
			if (t[k].call != NULL)
				continue;
			completed += t[k].done;
			memset(&t[k], 0, sizeof(t[k]));
			t[k].tmo_us = 2000;
			tcall_submit(&e, &t[k]);
		}
		xid = h.nxids && rnd() % 2 ? h.xids[rnd() % (h.nxids < 16 ? h.nxids : 16)] : rnd();
		if (tpl[n].call) {
			len = craft(h.sb, xid, tpl[n].w, tpl[n].n);
		} else {
			len = put_words(h.sb, xid, tpl[n].w, tpl[n].n);
			if (tpl[n].xid_at)
				put32(h.sb, tpl[n].xid_at, xid);
		}
		hostile_send(&h, mutate(h.sb, len));
		hostile_pump(&h, 8);
		if (h.lost || e.srv.qp->state == RPCRDMA_PMD_QPS_ERROR ||
		    rpcrdma_xprt_state(e.cli.xprt) != RPCRDMA_XPRT_ESTABLISHED) {
			reconnects++;
			if (!hostile_reconnect(&h, true)) {
				CHECK(0, "reconnect");
				break;
			}
		}
	}
	CHECK(pump_until(&e, tcalls_done, t), "every call completed");
	for (k = 0; k < 4; k++)
		completed += t[k].done;
	CHECK(completed > 0, "%u calls completed in %u rounds", completed, rounds);
	CHECK(h.recvd > 0, "the client sent %u messages", h.recvd);
	printf("hostile client: %u messages, %u calls completed, %u reconnects\n", rounds,
	       completed, reconnects);
	srv_flush_async(&bctx);
	rpcrdma_xprt_disconnect(e.cli.xprt);
	hostile_end(&h);
}

/*
 * A version 2 probe that is never answered: it times out, the connection
 * is dropped (nothing else could be sent on it), the peer is remembered as
 * version 1, and on the next connection a call waiting with RETRANSMIT
 * goes at once, in version 1.
 */
static void test_v2_probe_lost(void)
{
	struct rpcrdma_vers_peers peers;
	struct rpcrdma_xprt_info ci;
	struct hostile h;
	struct tcall a, b;
	uint32_t bxid, recvd;
	uint64_t end;
	struct env e;

	set_vers(RPCRDMA_VERS_2, RPCRDMA_VERS_1, RPCRDMA_VERS_1);
	if (!env_open(&e, NULL, NULL))
		return;
	rpcrdma_vers_peers_init(&peers);
	e.cli.params.vers_peers = &peers;
	if (!hostile_start(&h, &e, true))
		return;
	memset(&a, 0, sizeof(a));
	a.tmo_us = 50000 * tmo_scale;
	memset(&b, 0, sizeof(b));
	/* long enough to outlive the probe, the loss and the reconnect */
	b.tmo_us = 8 * a.tmo_us;
	b.flags = RPCRDMA_XPRT_CALL_F_RETRANSMIT;
	CHECK(tcall_submit(&e, &a) == 0 && tcall_submit(&e, &b) == 0, "two calls");
	bxid = rpcrdma_xprt_call_xid(b.call);
	for (end = test_now_ms() + WAIT_MS; !a.done && test_now_ms() < end;)
		hostile_pump(&h, 1);
	CHECK(a.status == -ETIMEDOUT && h.recvd == 1, "the probe timed out: %d, %u sent", a.status,
	      h.recvd);
	CHECK(rpcrdma_xprt_state(e.cli.xprt) != RPCRDMA_XPRT_ESTABLISHED,
	      "the connection is dropped: %s",
	      rpcrdma_xprt_state_name(rpcrdma_xprt_state(e.cli.xprt)));
	CHECK(rpcrdma_vers_peers_lookup(&peers, e.addr) == RPCRDMA_VERS_1,
	      "the peer remembered as version 1");
	recvd = h.recvd;
	CHECK(hostile_reconnect(&h, true), "connected again");
	rpcrdma_xprt_info(e.cli.xprt, &ci);
	CHECK(ci.vers == 1 && ci.vers_settled, "version 1 at once");
	for (end = test_now_ms() + WAIT_MS; !b.done && h.recvd <= recvd && test_now_ms() < end;)
		hostile_pump(&h, 1);
	CHECK(h.recvd == recvd + 1 && h.xids[(h.nxids - 1) % 16] == bxid,
	      "the waiting call sent again, same XID");
	CHECK(pump_until(&e, tcall_done, &b) && b.status == -ETIMEDOUT, "then it times out: %d",
	      b.status);
	rpcrdma_xprt_disconnect(e.cli.xprt);
	hostile_end(&h);
}

/* ------------------------------------------------------------ loss */

#define SHM_FAULTS "shm devargs inject the fault (fail_wr, drop_after_sends)"

struct loss_case {
	const char *name;
	const char *cli_devargs;
	const char *srv_devargs;
	struct tcall t;
	bool may_succeed; /* the reply may have arrived before the loss */
};

static void test_loss(void)
{
	const struct loss_case cases[] = {
		{ "call sent",
		  "drop_after_sends=1",
		  NULL,
		  { .proc = PROC_TEST, .words = 4, .rwords = 4 },
		  false },
		{ "read chunks being pulled",
		  NULL,
		  "fail_wr=1",
		  { .proc = PROC_TEST, .words = 4, .nitems = 2, .item_len = { 30000, 20000 } },
		  false },
		{ "reply being written",
		  NULL,
		  "fail_wr=1",
		  { .proc = PROC_TEST,
		    .words = 4,
		    .nres = 1,
		    .res_len = { 20000 },
		    .res_chunks = true },
		  false },
		{ "reply chunk being written",
		  NULL,
		  "fail_wr=1",
		  { .proc = PROC_TEST, .words = 4, .rwords = 900 },
		  false },
		{ "reply sent",
		  NULL,
		  "drop_after_sends=1",
		  { .proc = PROC_TEST, .words = 4, .rwords = 4 },
		  true },
	};
	struct rpcrdma_xprt_stats st;
	unsigned int i;
	struct env e;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct loss_case *lc = &cases[i];
		struct tcall t = lc->t, more[4];

		if (!test_side_case_runs(test_side_shm(), lc->name, SHM_FAULTS))
			continue;
		if (!env_up(&e, lc->cli_devargs, lc->srv_devargs))
			return;
		/* the call under test, and calls waiting behind it for credits */
		memset(more, 0, sizeof(more));
		CHECK(tcall_submit(&e, &t) == 0, "%s: submit", lc->name);
		for (int k = 0; k < 4; k++) {
			more[k].proc = PROC_NULL;
			CHECK(tcall_submit(&e, &more[k]) == 0, "%s: submit more", lc->name);
		}
		CHECK(pump_until(&e, both_closed, NULL), "%s: both ends closed", lc->name);
		CHECK(t.done && (t.status == -ECONNRESET || (lc->may_succeed && t.status == 0)),
		      "%s: the call completed: done %d status %d", lc->name, t.done, t.status);
		for (int k = 0; k < 4; k++)
			CHECK(more[k].done && more[k].status != 0 && more[k].status != 1,
			      "%s: waiting call %d failed: %d", lc->name, k, more[k].status);
		stats(&e.cli, &st);
		CHECK(st.mr_regs == st.mr_invalidates, "%s: registrations invalidated %lu/%lu",
		      lc->name, (unsigned long)st.mr_regs, (unsigned long)st.mr_invalidates);
		env_close(&e);
	}

	/*
	 * RETRANSMIT: the call goes again after the reconnect, with the same
	 * XID. The first WR of the client's device fails: the call's Send.
	 */
	if (!test_side_case_runs(test_side_shm(), "retransmit after a lost Send", SHM_FAULTS))
		return;
	if (!env_open(&e, "fail_wr=1", NULL))
		return;
	if (env_connect(&e)) {
		struct tcall t = { .proc = PROC_TEST,
				   .words = 3,
				   .nitems = 1,
				   .item_len = { 10000 },
				   .rwords = 3,
				   .flags = RPCRDMA_XPRT_CALL_F_RETRANSMIT };
		uint32_t xid;

		CHECK(tcall_submit(&e, &t) == 0, "submit");
		xid = rpcrdma_xprt_call_xid(t.call);
		CHECK(pump_until(&e, both_closed, NULL), "lost");
		CHECK(!t.done, "a RETRANSMIT call waits for the reconnect");
		CHECK(rpcrdma_xprt_connect(e.cli.xprt, e.addr) == 0, "reconnect");
		CHECK(pump_until(&e, tcall_done, &t), "the call completes after reconnect");
		CHECK(t.status == 0 && t.ok && sctx.last_xid == xid,
		      "resent with the same XID and answered: %d, xid %#x/%#x", t.status,
		      sctx.last_xid, xid);
		stats(&e.cli, &st);
		CHECK(st.retransmits == 1 && st.reconnects == 1, "retransmit counted");
	}
	env_close(&e);
}

/*
 * Losses every PMD produces: the server ends the connection while it holds
 * a call (read chunk pulled, write chunk offered) and more calls wait for
 * credits. Every call fails -ECONNRESET and every registration is
 * invalidated; a RETRANSMIT call lost the same way goes again once the
 * client reconnects, with the same XID, and is answered; one whose client
 * does not reconnect fails -ETIMEDOUT at its deadline.
 */
static void test_loss_peer(void)
{
	const struct tcall shape = { .proc = PROC_TEST,
				     .words = 4,
				     .nitems = 1,
				     .item_len = { 20000 },
				     .nres = 1,
				     .res_len = { 5000 },
				     .res_chunks = true };
	struct rpcrdma_xprt_stats st;
	struct tcall t, more[4];
	uint32_t xid, c0;
	struct env e;

	/* 0: plain; 1: RETRANSMIT, reconnected; 2: RETRANSMIT with a timeout, not reconnected */
	for (int mode = 0; mode < 3; mode++) {
		int retransmit = mode != 0;
		uint64_t t0 = test_now_ms();

		if (!env_up(&e, NULL, NULL))
			return;
		t = shape;
		t.flags = retransmit ? RPCRDMA_XPRT_CALL_F_RETRANSMIT : 0;
		/* long enough to outlive the loss (verbs: the drain may take seconds) */
		t.tmo_us = mode == 2 ? (tmo_scale == 1 ? 500000 : 8000000) : 0;
		sctx.no_reply = true;
		memset(more, 0, sizeof(more));
		c0 = sctx.calls;
		CHECK(tcall_submit(&e, &t) == 0, "submit");
		xid = rpcrdma_xprt_call_xid(t.call);
		for (int k = 0; k < 4 && !retransmit; k++) {
			more[k].proc = PROC_NULL;
			CHECK(tcall_submit(&e, &more[k]) == 0, "submit more");
		}
		CHECK(pump_until(&e, srv_holds, NULL), "the server holds the call");
		CHECK(rpcrdma_xprt_disconnect(e.srv.xprt) == 0, "server disconnects");
		/* the held call is dropped: its slot would keep the server draining */
		srv_held(false);
		sctx.no_reply = false;
		CHECK(pump_until(&e, both_closed, NULL), "both ends closed");
		if (!retransmit) {
			CHECK(t.done && t.status == -ECONNRESET, "the call failed: %d", t.status);
			for (int k = 0; k < 4; k++)
				CHECK(more[k].done && more[k].status == -ECONNRESET,
				      "waiting call %d failed: %d", k, more[k].status);
		} else if (mode == 1) {
			CHECK(!t.done, "a RETRANSMIT call waits for the reconnect");
			CHECK(rpcrdma_xprt_connect(e.cli.xprt, e.addr) == 0, "reconnect");
			CHECK(pump_until(&e, tcall_done, &t), "the call completes after reconnect");
			CHECK(t.status == 0 && t.ok && sctx.last_xid == xid,
			      "resent with the same XID and answered: %d, xid %#x/%#x", t.status,
			      sctx.last_xid, xid);
			/* the server ran it twice, the same XID each time; the caller saw one reply */
			CHECK(sctx.calls - c0 == 2 && sctx.xid_log[c0 % 64] == xid &&
				      sctx.xid_log[(c0 + 1) % 64] == xid && t.ncb == 1,
			      "the server took it %u times (XIDs %#x %#x, want %#x), the caller "
			      "completed %u times",
			      sctx.calls - c0, sctx.xid_log[c0 % 64], sctx.xid_log[(c0 + 1) % 64],
			      xid, t.ncb);
		} else {
			CHECK(!t.done, "a RETRANSMIT call waits for the reconnect");
			CHECK(pump_until(&e, tcall_done, &t) && t.status == -ETIMEDOUT,
			      "no reconnect: it times out while it waits: %d", t.status);
			CHECK(test_now_ms() - t0 >= t.tmo_us / 1000,
			      "not before its deadline: %lu ms",
			      (unsigned long)(test_now_ms() - t0));
		}
		stats(&e.cli, &st);
		CHECK(st.mr_regs == st.mr_invalidates, "registrations invalidated %lu/%lu",
		      (unsigned long)st.mr_regs, (unsigned long)st.mr_invalidates);
		CHECK(st.retransmits == (uint64_t)(mode == 1) &&
			      st.reconnects == (uint64_t)(mode == 1),
		      "retransmits %lu, reconnects %lu", (unsigned long)st.retransmits,
		      (unsigned long)st.reconnects);
		env_close(&e);
	}
}

/*
 * The client reconnects by itself (params.reconnect_max, issue 17): the
 * server drops the connection while it holds a RETRANSMIT call; the client
 * connects again after reconnect_delay_us, the call goes again with its XID
 * and completes once. Then the server refuses every connection: the
 * three attempts are spent, 1, 2 and 4 delays apart (then 8 before giving up), and a
 * call waiting for the connection fails -ECONNABORTED, with the flag or
 * without (a client that reconnects sends every call again).
 */
static void test_reconnect(void)
{
	const uint32_t d_ms = tmo_scale; /* the first delay: 1 ms, 50 over a device */
	struct rpcrdma_xprt_stats st;
	struct tcall t, plain;
	uint32_t xid, c0;
	uint64_t t0;
	struct env e;

	if (!env_open(&e, NULL, NULL))
		return;
	e.cli.params.reconnect_max = 3;
	e.cli.params.reconnect_delay_us = d_ms * 1000;
	if (!env_connect(&e)) {
		env_close(&e);
		return;
	}
	memset(&t, 0, sizeof(t));
	t.proc = PROC_TEST;
	t.words = 4;
	t.rwords = 2;
	/* no RETRANSMIT flag: a client that reconnects by itself sends every call again */
	sctx.no_reply = true;
	c0 = sctx.calls;
	CHECK(tcall_submit(&e, &t) == 0, "submit");
	xid = rpcrdma_xprt_call_xid(t.call);
	CHECK(pump_until(&e, srv_holds, NULL), "the server holds the call");
	CHECK(rpcrdma_xprt_disconnect(e.srv.xprt) == 0, "the server drops the connection");
	srv_held(false);
	sctx.no_reply = false;
	CHECK(pump_until(&e, tcall_done, &t), "the call completes");
	CHECK(t.status == 0 && t.ok && t.ncb == 1 && sctx.calls - c0 == 2 && sctx.last_xid == xid,
	      "sent again on the connection the client made, with its XID, answered once: %d, "
	      "%u callbacks, the server took it %u times",
	      t.status, t.ncb, sctx.calls - c0);
	stats(&e.cli, &st);
	CHECK(st.reconnect_attempts == 1 && st.reconnects == 1 && st.retransmits == 1 &&
		      rpcrdma_xprt_state(e.cli.xprt) == RPCRDMA_XPRT_ESTABLISHED,
	      "one attempt: %lu attempts, %lu reconnects, %lu retransmits",
	      (unsigned long)st.reconnect_attempts, (unsigned long)st.reconnects,
	      (unsigned long)st.retransmits);

	/* the server refuses every connection now: the attempts are spent */
	memset(&t, 0, sizeof(t));
	t.flags = RPCRDMA_XPRT_CALL_F_RETRANSMIT;
	memset(&plain, 0, sizeof(plain));
	sctx.no_reply = true;
	CHECK(tcall_submit(&e, &t) == 0 && tcall_submit(&e, &plain) == 0, "submit two");
	CHECK(pump_until(&e, srv_holds, NULL), "the server holds them");
	t0 = test_now_ms();
	srv_refuse = true;
	CHECK(rpcrdma_xprt_disconnect(e.srv.xprt) == 0, "the server drops the connection");
	srv_held(false);
	sctx.no_reply = false;
	CHECK(pump_until(&e, tcall_done, &plain) && plain.status == -ECONNABORTED && plain.ncb == 1,
	      "a call without the flag waits for the reconnect too, then fails -ECONNABORTED: %d",
	      plain.status);
	CHECK(pump_until(&e, tcall_done, &t) && t.status == -ECONNABORTED && t.ncb == 1,
	      "the RETRANSMIT call fails -ECONNABORTED once the attempts are spent: %d", t.status);
	CHECK(test_now_ms() - t0 >= 15 * d_ms, "after 1 + 2 + 4 + 8 delays: %lu ms",
	      (unsigned long)(test_now_ms() - t0));
	stats(&e.cli, &st);
	CHECK(st.reconnect_attempts == 4 && st.reconnect_give_ups == 1,
	      "three more attempts, then it gave up: %lu attempts, %lu give-ups",
	      (unsigned long)st.reconnect_attempts, (unsigned long)st.reconnect_give_ups);
	srv_refuse = false;
	env_close(&e);
}

/*
 * Fault injection at every phase of a call (issue 17). A client that
 * reconnects by itself sends a mix of calls at once: Short, read chunks
 * (the server's RDMA Reads), write chunks (its RDMA Writes), a reply chunk,
 * NULL. One fault ends the connection at the Nth work request of one side,
 * for every N up to past the last: the client's Nth Send fails (before the
 * server read it) or each of its connections drops after its Nth Send (the
 * server may have read it); the server's Nth work request fails (an RDMA Read pulling a
 * chunk, an RDMA Write of results, a reply's Send: after the handler ran)
 * or its connection drops after its Nth Send (a reply sent). Every call
 * completes exactly once with its reply checked, the client never has more
 * calls out than granted and the server never holds more, every
 * registration is invalidated, every buffer is back in its pool at the
 * end, and nothing hangs.
 */
static bool ten_done(struct env *e, void *arg)
{
	struct tcall *t = arg;

	for (int i = 0; i < 10; i++)
		if (!t[i].done)
			return false;
	return true;
}

static void test_faults(void)
{
	static const struct {
		const char *name;
		bool srv;	    /* the fault is the server's */
		const char *devarg; /* fail_wr or drop_after_sends */
		uint32_t min, max;  /* N: to past the side's last WR */
	} kinds[] = {
		{ "the client's Nth Send fails", false, "fail_wr", 1, 14 },
		/*
		 * Every connection drops after its Nth Send: with N = 1 none
		 * gets a reply back, and the client reconnects for ever.
		 */
		{ "the connection drops after the client's Nth Send", false, "drop_after_sends", 2,
		  12 },
		{ "the server's Nth work request fails", true, "fail_wr", 1, 24 },
		{ "the connection drops after the server's Nth Send", true, "drop_after_sends", 1,
		  12 },
	};
	const struct tcall shapes[5] = {
		{ .proc = PROC_TEST, .words = 4, .rwords = 4 },
		{ .proc = PROC_TEST, .words = 4, .nitems = 2, .item_len = { 12000, 3000 } },
		{ .proc = PROC_TEST,
		  .words = 4,
		  .nres = 1,
		  .res_len = { 9000 },
		  .res_chunks = true },
		{ .proc = PROC_TEST, .words = 4, .rwords = 900 },
		{ .proc = PROC_NULL },
	};
	uint32_t faults = 0, runs = 0;

	if (!test_side_case_runs(test_side_shm(), "fault injection at every phase", SHM_FAULTS))
		return;
	for (unsigned int k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		for (uint32_t n = kinds[k].min; n <= kinds[k].max; n++) {
			struct rpcrdma_xprt_stats st;
			struct tcall t[10];
			char devargs[48];
			bool closed;
			struct env e;

			snprintf(devargs, sizeof(devargs), "%s=%u", kinds[k].devarg, n);
			if (!env_open(&e, kinds[k].srv ? NULL : devargs,
				      kinds[k].srv ? devargs : NULL))
				return;
			e.cli.params.reconnect_max = 20;
			e.cli.params.reconnect_delay_us = 1000;
			srv_params(&e, 8, 8); /* a grant of 8: the calls queue for credits */
			if (!env_connect(&e)) {
				env_close(&e);
				return;
			}
			for (int i = 0; i < 10; i++) {
				t[i] = shapes[i % 5];
				CHECK(tcall_submit(&e, &t[i]) == 0, "%s, N %u: submit %d",
				      kinds[k].name, n, i);
			}
			CHECK(pump_until(&e, ten_done, t), "%s, N %u: every call completes",
			      kinds[k].name, n);
			for (int i = 0; i < 10; i++)
				CHECK(t[i].done && t[i].ncb == 1 && t[i].status == 0 && t[i].ok,
				      "%s, N %u: call %d completed once, answered: done %d, %u "
				      "callbacks, status %d, reply %s",
				      kinds[k].name, n, i, t[i].done, t[i].ncb, t[i].status,
				      t[i].ok ? "checked" : "wrong");
			stats(&e.cli, &st);
			CHECK(st.max_outstanding <= 8 && sctx.max_active <= 8,
			      "%s, N %u: at most the grant of 8 out: the client %lu, the server "
			      "held %u",
			      kinds[k].name, n, (unsigned long)st.max_outstanding, sctx.max_active);
			/* each Send With Invalidate received invalidated one of them */
			CHECK(st.mr_regs == st.mr_invalidates + st.send_inv,
			      "%s, N %u: registrations %lu, invalidated %lu here and %lu by the "
			      "server",
			      kinds[k].name, n, (unsigned long)st.mr_regs,
			      (unsigned long)st.mr_invalidates, (unsigned long)st.send_inv);
			faults += st.reconnects != 0;
			runs++;
			closed = rpcrdma_xprt_disconnect(e.cli.xprt) == 0;
			CHECK(closed, "%s, N %u: disconnect", kinds[k].name, n);
			/* env_close(): both ends closed, every buffer back in its pool */
			env_close(&e);
		}
	}
	/* the sweep hit something: most values of N end a connection */
	CHECK(faults * 2 > runs, "faults injected in %u of %u runs", faults, runs);
	printf("fault injection: %u runs, %u of them reconnected\n", runs, faults);
}

/* ------------------------------------------------------------ cross-process */

static int xproc_server(const char *addr)
{
	struct env e;
	uint64_t end = test_now_ms() + 6 * WAIT_MS;

	memset(&e, 0, sizeof(e));
	memset(&sctx, 0, sizeof(sctx));
	snprintf(e.addr, sizeof(e.addr), "%s", addr);
	if (side_open(&e.srv, "ps", NULL, NULL))
		return 1;
	srv_pools = e.srv.pools;
	if (rpcrdma_pmd_listen(e.srv.dev, e.addr, &e.srv.listener))
		return 1;
	srv_params(&e, 32, 32);
	/* serve until the client has connected and gone */
	while (test_now_ms() < end) {
		pump_once(&e);
		if (e.srv.xprt && rpcrdma_xprt_state(e.srv.xprt) == RPCRDMA_XPRT_CLOSED)
			break;
	}
	CHECK(e.srv.xprt && rpcrdma_xprt_state(e.srv.xprt) == RPCRDMA_XPRT_CLOSED,
	      "server: the client came and went");
	CHECK(sctx.bad == 0, "server: every call's arguments checked out");
	if (e.srv.xprt)
		CHECK(rpcrdma_xprt_destroy(e.srv.xprt) == 0, "destroy");
	e.srv.xprt = NULL;
	side_close(&e.srv);
	printf("xproc server: %u calls, %lu failures\n", sctx.calls, test_failures);
	return test_failures ? 1 : 0;
}

static int xproc_client(const char *prog)
{
	struct tcall cases[] = {
		{ .proc = PROC_NULL },
		{ .proc = PROC_TEST, .words = 3, .nitems = 2, .item_len = { 40000, 7 } },
		{ .proc = PROC_TEST,
		  .words = 2,
		  .nres = 3,
		  .res_len = { 3000, 2, 60000 },
		  .res_chunks = true },
		{ .proc = PROC_TEST, .words = 800, .rwords = 900 },
	};
	char addr[64];
	int status, ret;
	struct env e;
	pid_t pid;

	test_side_addr(addr, sizeof(addr), "xprt-x");
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", prog, "--xproc-server", addr, (char *)NULL);
		_exit(127);
	}
	ret = rpcrdma_mempool_eal_init(prog, NULL);
	if (ret < 0)
		return 1;
	memset(&e, 0, sizeof(e));
	snprintf(e.addr, sizeof(e.addr), "%s", addr);
	if (side_open(&e.cli, "pc", NULL, NULL))
		return 1;
	cli_params(&e, DEF_FLAGS);
	e.cli.params.send_inline = 2048;
	e.cli.params.recv_inline = 2048;
	CHECK(rpcrdma_xprt_create(&e.cli.params, &e.cli.xprt) == 0, "create");
	{
		uint64_t end = test_now_ms() + 4 * WAIT_MS;

		while (rpcrdma_xprt_connect(e.cli.xprt, e.addr) != 0 && test_now_ms() < end)
			usleep(10000); /* the server process is starting */
		while (rpcrdma_xprt_state(e.cli.xprt) != RPCRDMA_XPRT_ESTABLISHED &&
		       test_now_ms() < end) {
			pump_once(&e);
			if (rpcrdma_xprt_state(e.cli.xprt) == RPCRDMA_XPRT_ERROR)
				rpcrdma_xprt_connect(e.cli.xprt, e.addr);
		}
	}
	CHECK(rpcrdma_xprt_state(e.cli.xprt) == RPCRDMA_XPRT_ESTABLISHED, "xproc: established");
	for (unsigned int rep = 0; rep < 3; rep++)
		for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct tcall t = cases[i];

			if (!run_call(&e, &t))
				break;
			CHECK(t.status == 0 && t.ok, "xproc call %u: %d", i, t.status);
		}
	rpcrdma_xprt_disconnect(e.cli.xprt);
	CHECK(pump_until(&e, both_closed, NULL), "closed");
	CHECK(rpcrdma_xprt_destroy(e.cli.xprt) == 0, "destroy");
	e.cli.xprt = NULL;
	side_close(&e.cli);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "server process failed (status %#x)\n", status);
		test_failures++;
	}
	return test_failures ? 1 : 0;
}

/* The parts, in the order of their port ranges on verbs (test_side_env()'s slot). */
static const char *const parts[] = {
	"setup",   "forms", "credits", "errors",   "loss",    "client",
	"v2forms", "v2",    "xchar",   "backward", "hostile", "xproc"
};

/* The PMD from the environment, for @part: 0 go on, else the exit status (77: skip). */
static int pmd_env(const char *part)
{
	unsigned int slot;
	int ret;

	for (slot = 0; slot < sizeof(parts) / sizeof(parts[0]); slot++)
		if (strcmp(parts[slot], part) == 0)
			break;
	if (slot == sizeof(parts) / sizeof(parts[0])) {
		fprintf(stderr, "unknown part %s\n", part);
		return 1;
	}
	ret = test_side_env(slot);
	if (ret != 0)
		return ret;
	if (!test_side_shm()) {
		wait_ms = 60000;
		tmo_scale = 50;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char name[64];
	int ret;

	if (argc == 3 && strcmp(argv[1], "--xproc-server") == 0) {
		if (rpcrdma_mempool_eal_init(argv[0], NULL) < 0 || pmd_env("xproc") != 0)
			return 1;
		return xproc_server(argv[2]);
	}
	if (argc != 2) {
		fprintf(stderr,
			"usage: %s setup|forms|credits|errors|loss|client|v2forms|v2|xchar|"
			"backward|hostile|xproc\n",
			argv[0]);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	/* lines, so that what was printed survives a test killed by its timeout */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(argv[1], "xproc") == 0) {
		/* the server process is forked before this one starts its EAL */
		ret = pmd_env(argv[1]);
		return ret != 0 ? ret : xproc_client(argv[0]);
	}
	ret = rpcrdma_mempool_eal_init(argv[0], NULL);
	if (ret < 0) {
		fprintf(stderr, "EAL: %s\n", strerror(-ret));
		return 1;
	}
	ret = pmd_env(argv[1]);
	if (ret != 0)
		return ret;
	if (strcmp(argv[1], "setup") == 0) {
		test_setup();
		test_dev_flags();
	} else if (strcmp(argv[1], "forms") == 0)
		test_forms();
	else if (strcmp(argv[1], "credits") == 0) {
		test_credits();
		test_grants();
		test_unsignaled();
	} else if (strcmp(argv[1], "errors") == 0) {
		test_errors();
		test_error_rules();
		test_errors_requester();
	} else if (strcmp(argv[1], "loss") == 0) {
		test_loss();
		test_loss_peer();
		test_reconnect();
		test_faults();
	} else if (strcmp(argv[1], "v2forms") == 0) {
		cli_vers = srv_vers = srv_vers_min = RPCRDMA_VERS_2;
		test_forms();
		test_credits();
		test_unsignaled();
	} else if (strcmp(argv[1], "v2") == 0) {
		test_v2_negotiation();
		test_v2_errors();
		test_v2_optional_v1();
	} else if (strcmp(argv[1], "hostile") == 0) {
		test_hostile_server();
		test_hostile_client();
		test_v2_probe_lost();
	} else if (strcmp(argv[1], "backward") == 0) {
		test_backward_v1();
		test_backward_v2();
		test_backward_loss();
	} else if (strcmp(argv[1], "xchar") == 0) {
		test_xchar();
		test_xchar_errors();
	} else if (strcmp(argv[1], "client") == 0) {
		test_timeout();
		test_polling();
		test_reply_rpc();
	}
	snprintf(name, sizeof(name), "test_xprt %s", argv[1]);
	return test_side_summary(name, test_checks, test_failures);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The harness of test_xprt (test_xprt.h): both ends of a connection over
 * the PMD under test (shm, or verbs: test_side.h), polled in turn by this
 * thread (and the two devices' events), so that every run is the same; the
 * test program's server, which checks every argument byte and answers in
 * the shape the call asks for; the client's test calls, which check every
 * result byte.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "test_xprt.h"

/*
 * A bounded wait: 5 s on shm; on verbs a minute (an emulated guest's RDMA
 * stack is slow: bounds only catch a hang, they never measure).
 */
uint64_t wait_ms = 5000;

/*
 * Call timeouts the client tests set, scaled by this: 1 on shm, more on
 * verbs so that a call answered "in time" is answered in time there too.
 */
uint64_t tmo_scale = 1;

/* ------------------------------------------------------------ endpoints */

/* @pmd NULL: the PMD under test (test_side_env()); else a driver this test registered */
int side_open(struct test_side *s, const char *name, const char *pmd, const char *devargs)
{
	/* no per-lcore cache: the counters are exact at every check */
	const struct test_side_pools p = { name, 512, 16, 4, 0, false };

	if (pmd != NULL)
		return test_side_create_pmd(s, pmd, devargs, &p);
	return test_side_create(s, devargs, &p);
}

void side_close(struct test_side *s)
{
	CHECK(test_side_destroy(s) == 0, "every buffer back, closed");
}

/* ---------------- the server's program ---------------- */

struct srv_ctx sctx;

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

struct rpcrdma_mempool_set *srv_pools;

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

void srv_flush_async(struct srv_ctx *c)
{
	for (uint32_t i = 0; i < c->async_n && i < 64; i++)
		rpcrdma_xprt_svc_call_reply(c->async[i]);
	c->async_n = 0;
}

/* The server holds a call (no_reply, or MODE_ASYNC). */
bool srv_holds(struct env *e, void *arg)
{
	return sctx.async_n != 0;
}

/* Answer (late) or drop every call the no_reply server holds. */
void srv_held(bool answer)
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

/* ---------------- running both ends ---------------- */

/*
 * Server connections replaced by a newer one while still draining: a
 * reconnecting peer can be faster than the drain (verbs: the old QP's
 * flush and rdma_cm's DISCONNECTED come after the new request). Polled
 * until closed, then destroyed (srv_parked_poll()).
 */
static struct rpcrdma_xprt *srv_parked[8];
unsigned int srv_nparked;
unsigned int srv_refused; /* connections refused while those drained */

void srv_parked_poll(void)
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
bool srv_refuse; /* reject every connect request (test_reconnect()) */

int srv_accept(struct test_side *s, const struct rpcrdma_pmd_event *ev)
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
int pump_once(struct env *e)
{
	int work = test_side_pump_pair(&e->cli, &e->srv, srv_accept);

	srv_parked_poll();
	return work;
}

/* Poll until cond(arg) or the time runs out. */
bool pump_until(struct env *e, bool (*cond)(struct env *, void *), void *arg)
{
	uint64_t end = test_now_ms() + WAIT_MS;

	while (!cond(e, arg)) {
		if (test_now_ms() > end)
			return false;
		pump_once(e);
	}
	return true;
}

bool both_established(struct env *e, void *arg)
{
	return test_side_in(&e->cli, RPCRDMA_XPRT_ESTABLISHED) &&
	       test_side_in(&e->srv, RPCRDMA_XPRT_ESTABLISHED);
}

/* A bare client has no connection of its own: only the server's can be waited for. */
bool srv_established(struct env *e, void *arg)
{
	return test_side_in(&e->srv, RPCRDMA_XPRT_ESTABLISHED);
}

bool both_closed(struct env *e, void *arg)
{
	enum rpcrdma_xprt_state a =
		e->cli.xprt ? rpcrdma_xprt_state(e->cli.xprt) : RPCRDMA_XPRT_CLOSED;
	enum rpcrdma_xprt_state b =
		e->srv.xprt ? rpcrdma_xprt_state(e->srv.xprt) : RPCRDMA_XPRT_CLOSED;

	return (a == RPCRDMA_XPRT_CLOSED || a == RPCRDMA_XPRT_ERROR) &&
	       (b == RPCRDMA_XPRT_CLOSED || b == RPCRDMA_XPRT_ERROR) && srv_nparked == 0;
}

/* The versions the next connections are configured with (v2forms: 2, 2..2). */
uint32_t cli_vers = RPCRDMA_VERS_1, srv_vers = RPCRDMA_VERS_1, srv_vers_min = RPCRDMA_VERS_1;

void set_vers(uint32_t cli, uint32_t srv_min, uint32_t srv)
{
	cli_vers = cli;
	srv_vers_min = srv_min;
	srv_vers = srv;
}

void cli_params(struct env *e, uint32_t flags)
{
	test_side_params(&e->cli, RPCRDMA_XPRT_CLIENT);
	e->cli.params.vers = cli_vers;
	e->cli.params.flags = flags;
}

void srv_params(struct env *e, uint32_t credits, uint32_t max)
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

/* The client's backward service: the test program, results from the client's pools. */
struct srv_ctx bctx;

/* The client takes @bk backward calls (0: none), served by bctx. */
void cli_backward(struct env *e, uint32_t bk)
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
 * The flags a connection keeps on the device under test: per-call
 * registrations only where they are cheap, remote invalidation only where
 * a peer can invalidate our MRs (rpcrdma_xprt.h), and only with per-call
 * registrations.
 */
uint32_t flags_kept(const struct rpcrdma_pmd_dev_info *di, uint32_t flags)
{
	if (!(di->flags & RPCRDMA_PMD_DEV_CHEAP_MR_REG))
		flags &= ~RPCRDMA_XPRT_F_PER_CALL_MR;
	if (!(di->flags & RPCRDMA_PMD_DEV_REMOTE_INV) || !(flags & RPCRDMA_XPRT_F_PER_CALL_MR))
		flags &= ~RPCRDMA_XPRT_F_REMOTE_INV;
	return flags;
}

/* Both ends' devices, pools and the server's listener; @cli_pmd, @srv_pmd as side_open()'s. */
bool env_open_on(struct env *e, const char *cli_pmd, const char *cli_devargs, const char *srv_pmd,
		 const char *srv_devargs)
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
bool env_open(struct env *e, const char *cli_devargs, const char *srv_devargs)
{
	return env_open_on(e, NULL, cli_devargs, NULL, srv_devargs);
}

bool env_connect(struct env *e)
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

void env_close(struct env *e)
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
	if (e->grp)
		CHECK(rpcrdma_xprt_group_destroy(e->grp) == 0, "destroy the poll group");
	side_close(&e->cli);
	side_close(&e->srv);
}

/*
 * A poll group of two connections and @recvs receives on @sd's device, as
 * e->grp (env_close() destroys it); its clients share @calls call slots
 * (0: each its own).
 */
bool env_group(struct env *e, const struct test_side *sd, uint32_t recvs, uint32_t calls)
{
	struct rpcrdma_xprt_group_params gp;

	rpcrdma_xprt_group_params_init(&gp);
	gp.dev = sd->dev;
	gp.pd = sd->pd;
	gp.pools = sd->pools;
	gp.max_conns = 2;
	gp.recvs = recvs;
	gp.calls = calls;
	return rpcrdma_xprt_group_create(&gp, &e->grp) == 0;
}

/* env_open() and env_connect(); false, and closed, when it does not connect. */
bool env_up(struct env *e, const char *cli_devargs, const char *srv_devargs)
{
	if (!env_open(e, cli_devargs, srv_devargs))
		return false;
	if (env_connect(e))
		return true;
	env_close(e);
	return false;
}

/* ---------------- the client's calls ---------------- */

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

void tcall_cb(void *arg, struct rpcrdma_xprt_call *call, int status, struct rpcrdma_xdr_dec *d)
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
void call_msg(struct rpcrdma_rpc_msg *m, uint32_t xid, uint32_t proc)
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
int tcall_submit_on(struct test_side *sd, struct tcall *t)
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
int tcall_submit(struct env *e, struct tcall *t)
{
	return tcall_submit_on(&e->cli, t);
}

bool tcall_done(struct env *e, void *arg)
{
	return ((struct tcall *)arg)->done;
}

/* One call, start to end. */
bool run_call(struct env *e, struct tcall *t)
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
void stats(struct test_side *s, struct rpcrdma_xprt_stats *st)
{
	if (s->xprt == NULL) {
		memset(st, 0, sizeof(*st));
		return;
	}
	rpcrdma_xprt_stats(s->xprt, st);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_engine shim: the C side of the engine benchmarks
 * (bench_engine_shim.h). The client connection is polled by the calling
 * lcore, which is what is timed; the server connection is polled by the
 * next lcore until stopped. Set-up and tear-down poll both from the main
 * lcore, as the engine's tests do.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_svc.h>
#include <rpcrdma/rpcrdma_xprt.h>
#include <rpcrdma/rpcrdma_xprt_svc.h>

#include "bench_engine_shim.h"
#include "bench_pmd_shim.h"
#include "bench_responder.h"
#include "test_side.h"

#define PROG	    0x20000200u
#define P_READ	    1
#define P_WRITE	    2
#define CHUNK_OFFER 4096u

struct bench_side {
	struct rpcrdma_pmd_dev *dev;
	struct rpcrdma_pmd_pd *pd;
	struct rpcrdma_mempool_set *pools;
	struct rpcrdma_xprt *xprt;
	struct rpcrdma_xprt_params params;
	struct rpcrdma_mempool *cpool; /* the chunk pool of buf */
	void *buf;		       /* a chunk buffer of size bytes */
};

/* What each lcore writes sits on its own cache lines. */
struct bench_engine {
	/* set-up, then read-only */
	enum bench_engine_mode mode;
	uint32_t size;
	unsigned int lcore;
	bool launched;
	struct rpcrdma_pmd_listener *listener;
	struct rpcrdma_svc_registry *reg;
	/* written once, at the end */
	volatile int stop __attribute__((aligned(64)));
	/* the server lcore's */
	struct bench_side srv __attribute__((aligned(64)));
	struct rpcrdma_xprt_svc glue;
	uint32_t srv_bad;
	/* the client lcore's */
	struct bench_side cli __attribute__((aligned(64)));
	uint32_t want, done, inflight, submitted;
	uint32_t bad;
	bool one_done;
};

static struct bench_engine *srv_ctx; /* the program's context (one bench at a time) */

static void bench_log(const char *msg, int err)
{
	fprintf(stderr, "bench_engine: %s: %s\n", msg, strerror(err < 0 ? -err : err));
}

int bench_engine_eal_init(const char *prog)
{
	return rpcrdma_mempool_eal_init(prog, NULL);
}

/* ---------------- the server's program ---------------- */

/* READ: size bytes, DDP-eligible, from the server's buffer (no copy, no allocation). */
static int h_read(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct rpcrdma_xdr_region reg;
	struct bench_side *s = &srv_ctx->srv;

	reg = rpcrdma_xdr_region_va(s->buf, srv_ctx->size, s->cpool->lkey, s->cpool->rkey);
	return rpcrdma_xdr_put_ddp(req->reply, &reg) ? -ENOSPC : RPCRDMA_SVC_OK;
}

/* WRITE: size bytes, DDP-eligible, landed in a chunk buffer by RDMA Read. */
static int h_write(struct rpcrdma_svc_req *req, void *args, void *res)
{
	const void *p;
	uint32_t n;

	if (rpcrdma_xdr_get_ddp(req->args, 1u << 20, &p, &n) || n != srv_ctx->size)
		return RPCRDMA_SVC_GARBAGE;
	return rpcrdma_xdr_put_u32(req->reply, n) ? -ENOSPC : RPCRDMA_SVC_OK;
}

static const struct rpcrdma_svc_proc procs[] = {
	[P_READ] = { .name = "READ", .handler = h_read, .raw = true },
	[P_WRITE] = { .name = "WRITE", .handler = h_write, .raw = true },
};

static const struct rpcrdma_svc_version prog_vers = { 1, 3, procs };

/* The glue's reply_done, with the glue as its context (params.ctx is the bench). */
static void bench_reply_done(void *ctx, struct rpcrdma_xprt_svc_call *call, int status)
{
	struct bench_engine *b = ctx;

	rpcrdma_xprt_svc_reply_done(&b->glue, call, status);
}

/*
 * The server's recv_call: NULL calls (proc 0) of the NULL modes are
 * answered here, raw (an accepted, empty reply), which is what the engine
 * costs; every other call, and every call of BENCH_ENGINE_NULL_SVC, goes
 * through the dispatch glue (rpcrdma_xprt_svc.h).
 */
static void bench_recv_call(void *ctx, struct rpcrdma_xprt_svc_call *call)
{
	struct bench_engine *b = ctx;
	const struct rpcrdma_rpc_msg *m = rpcrdma_xprt_svc_call_msg(call);

	if (b->mode == BENCH_ENGINE_NULL_SVC || b->mode == BENCH_ENGINE_READ ||
	    b->mode == BENCH_ENGINE_WRITE || rpcrdma_xprt_svc_call_rpc_status(call) != 0 ||
	    m->call.prog != PROG || m->call.proc != 0) {
		rpcrdma_xprt_svc_recv_call(&b->glue, call);
		return;
	}
	if (rpcrdma_xprt_svc_call_put_reply_header(call, RPCRDMA_RPC_SUCCESS) != 0) {
		b->srv_bad++;
		rpcrdma_xprt_svc_call_drop(call);
		return;
	}
	if (rpcrdma_xprt_svc_call_reply(call) != 0)
		b->srv_bad++;
}

static int serve(void *arg)
{
	struct bench_engine *b = arg;

	while (!b->stop)
		rpcrdma_xprt_poll(b->srv.xprt);
	return 0;
}

/* ---------------- set-up ---------------- */

static int side_open(struct bench_side *s, const char *name, uint32_t size)
{
	const struct test_side_pools p = { name, 1024, 64, 8, 32, false };
	int ret;

	ret = test_side_open(NULL, &p, &s->dev, &s->pd, &s->pools);
	if (ret)
		return ret;
	s->cpool = rpcrdma_mempool_set_chunk_pool(s->pools, size ? size : 1);
	s->buf = s->cpool ? rpcrdma_mempool_get(s->cpool) : NULL;
	if (s->buf == NULL)
		return -ENOMEM;
	memset(s->buf, 0x5a, size);
	return 0;
}

static void side_close(struct bench_side *s, uint32_t *bad)
{
	if (s->xprt != NULL && rpcrdma_xprt_destroy(s->xprt) != 0)
		(*bad)++;
	if (s->buf != NULL)
		rpcrdma_mempool_put(s->cpool, s->buf);
	*bad += test_side_close(&s->dev, &s->pd, &s->pools);
}

/* Both ends from this lcore (set-up and tear-down only). */
static void pump(struct bench_engine *b)
{
	struct rpcrdma_pmd_event ev[4];
	int n, i;

	n = rpcrdma_pmd_event_poll(b->srv.dev, ev, 4);
	for (i = 0; i < n; i++)
		if (ev[i].type == RPCRDMA_PMD_EVENT_CONNECT_REQUEST && b->srv.xprt == NULL)
			rpcrdma_xprt_accept(&b->srv.params, &ev[i], &b->srv.xprt);
		else
			rpcrdma_xprt_event(&ev[i]);
	n = rpcrdma_pmd_event_poll(b->cli.dev, ev, 4);
	for (i = 0; i < n; i++)
		rpcrdma_xprt_event(&ev[i]);
	rpcrdma_xprt_poll(b->cli.xprt);
	if (b->srv.xprt != NULL)
		rpcrdma_xprt_poll(b->srv.xprt);
}

static bool pump_until_state(struct bench_engine *b, enum rpcrdma_xprt_state st)
{
	uint64_t end = rte_get_tsc_cycles() + 5 * rte_get_tsc_hz();

	while (rte_get_tsc_cycles() < end) {
		if (b->srv.xprt != NULL && rpcrdma_xprt_state(b->srv.xprt) == st &&
		    rpcrdma_xprt_state(b->cli.xprt) == st)
			return true;
		pump(b);
	}
	return false;
}

static int submit_one(struct bench_engine *b);

/* Version 2: the first call is the probe; answered, the version is settled. */
static int settle(struct bench_engine *b)
{
	uint64_t end = rte_get_tsc_cycles() + 5 * rte_get_tsc_hz();
	struct rpcrdma_xprt_info info;

	b->one_done = false;
	b->want = b->submitted;
	if (submit_one(b) != 0)
		return -EIO;
	while (!b->one_done && rte_get_tsc_cycles() < end)
		pump(b);
	rpcrdma_xprt_info(b->cli.xprt, &info);
	if (!b->one_done || b->bad || info.vers != RPCRDMA_VERS_2 || !info.vers_settled)
		return -EPROTO;
	return 0;
}

struct bench_engine *bench_engine_start(enum bench_engine_mode mode, uint32_t size, uint32_t vers)
{
	struct rpcrdma_svc_program prog = {
		.name = "bench", .prog = PROG, .nvers = 1, .vers = &prog_vers
	};
	struct rpcrdma_svc_params sp;
	struct bench_engine *b;
	char addr[64];
	int ret;

	b = rte_zmalloc("bench_engine", sizeof(*b), 64);
	if (b == NULL)
		return NULL;
	b->mode = mode;
	b->size = size;
	srv_ctx = b;
	b->lcore = bench_responder_lcore();
	if (b->lcore >= RTE_MAX_LCORE) {
		fprintf(stderr, "bench_engine: needs two lcores\n");
		goto err;
	}
	rpcrdma_svc_params_init(&sp);
	ret = rpcrdma_svc_registry_create(&sp, &b->reg);
	if (ret == 0)
		ret = rpcrdma_svc_register(b->reg, &prog);
	if (ret == 0)
		ret = side_open(&b->srv, "esrv", size);
	if (ret == 0)
		ret = side_open(&b->cli, "ecli", size);
	if (ret)
		goto err_log;
	rpcrdma_xprt_svc_init(&b->glue, b->reg, 0);
	rpcrdma_xprt_params_init(&b->cli.params, RPCRDMA_XPRT_CLIENT);
	if (vers != 0) {
		/* the version's default thresholds, sent as RFC 8797 private data */
		b->cli.params.vers = vers;
		b->cli.params.send_inline = b->cli.params.recv_inline =
			vers == RPCRDMA_VERS_2 ? RPCRDMA_V2_INLINE_DEFAULT
					       : RPCRDMA_V1_INLINE_DEFAULT;
	}
	b->cli.params.dev = b->cli.dev;
	b->cli.params.pd = b->cli.pd;
	b->cli.params.pools = b->cli.pools;
	b->cli.params.flags = mode == BENCH_ENGINE_NULL_MR
				      ? RPCRDMA_XPRT_F_PER_CALL_MR | RPCRDMA_XPRT_F_REMOTE_INV
				      : 0;
	rpcrdma_xprt_params_init(&b->srv.params, RPCRDMA_XPRT_SERVER);
	b->srv.params.vers = RPCRDMA_VERS_2;
	b->srv.params.vers_min = RPCRDMA_VERS_1;
	b->srv.params.dev = b->srv.dev;
	b->srv.params.pd = b->srv.pd;
	b->srv.params.pools = b->srv.pools;
	b->srv.params.flags = RPCRDMA_XPRT_F_REPLY_CHUNK_ALWAYS;
	rpcrdma_xprt_svc_bind(&b->glue, &b->srv.params);
	/*
	 * recv_call answers NULL calls raw first; both callbacks then get the
	 * bench as their context, so reply_done hands the glue its own.
	 */
	b->srv.params.recv_call = bench_recv_call;
	b->srv.params.reply_done = bench_reply_done;
	b->srv.params.ctx = b;
	snprintf(addr, sizeof(addr), "@rpcrdma-bench-engine-%d", getpid());
	ret = rpcrdma_pmd_listen(b->srv.dev, addr, &b->listener);
	if (ret == 0)
		ret = rpcrdma_xprt_create(&b->cli.params, &b->cli.xprt);
	if (ret == 0)
		ret = rpcrdma_xprt_connect(b->cli.xprt, addr);
	if (ret == 0 && !pump_until_state(b, RPCRDMA_XPRT_ESTABLISHED))
		ret = -ETIMEDOUT;
	if (ret == 0 && vers == RPCRDMA_VERS_2)
		ret = settle(b);
	if (ret)
		goto err_log;
	if (bench_engine_resume(b) != 0)
		goto err;
	return b;

err_log:
	bench_log("set-up", ret);
err:
	bench_engine_stop(b);
	return NULL;
}

int bench_engine_stop(struct bench_engine *b)
{
	uint32_t bad = 0;

	if (b == NULL)
		return -1;
	bench_responder_park(b->lcore, &b->launched, &b->stop);
	if (b->cli.xprt != NULL && rpcrdma_xprt_disconnect(b->cli.xprt) == 0 &&
	    !pump_until_state(b, RPCRDMA_XPRT_CLOSED))
		bad++;
	/* the listener first: a device with one open refuses to close (-EBUSY) */
	if (b->listener != NULL)
		rpcrdma_pmd_listener_close(b->listener);
	side_close(&b->cli, &bad);
	side_close(&b->srv, &bad);
	rpcrdma_svc_registry_free(b->reg);
	if (b->bad || b->srv_bad || bad)
		fprintf(stderr, "bench_engine: %u bad replies, %u tear-down errors\n", b->bad, bad);
	bad += b->bad + b->srv_bad;
	rte_free(b);
	srv_ctx = NULL;
	return bad ? -1 : 0;
}

int bench_engine_pause(struct bench_engine *b)
{
	bench_responder_park(b->lcore, &b->launched, &b->stop);
	return 0;
}

int bench_engine_resume(struct bench_engine *b)
{
	if (b->mode == BENCH_ENGINE_NULL_1LCORE)
		return 0; /* no server lcore: bench_engine_call() polls both ends */
	return bench_responder_launch(serve, b, b->lcore, &b->launched);
}

/* ---------------- the client's calls ---------------- */

static void call_cb(void *arg, struct rpcrdma_xprt_call *call, int status,
		    struct rpcrdma_xdr_dec *d);

static int submit_one(struct bench_engine *b)
{
	struct bench_side *s = &b->cli;
	struct rpcrdma_xdr_reply_spec *spec;
	struct rpcrdma_xprt_call *c;
	struct rpcrdma_xdr_region reg;
	uint32_t proc = 0;
	int ret;

	ret = rpcrdma_xprt_call_alloc(s->xprt, &c);
	if (ret)
		return ret;
	spec = rpcrdma_xprt_call_reply_spec(c);
	spec->max_len = 64;
	reg = rpcrdma_xdr_region_va(s->buf, b->size, s->cpool->lkey, s->cpool->rkey);
	switch (b->mode) {
	case BENCH_ENGINE_NULL:
	case BENCH_ENGINE_NULL_SVC:
	case BENCH_ENGINE_NULL_1LCORE:
		break;
	case BENCH_ENGINE_NULL_CHUNK:
	case BENCH_ENGINE_NULL_MR:
		reg.len = CHUNK_OFFER;
		spec->ddp[0] = reg;
		spec->nddp = 1;
		spec->max_len += CHUNK_OFFER;
		break;
	case BENCH_ENGINE_READ:
		proc = P_READ;
		spec->ddp[0] = reg;
		spec->nddp = 1;
		spec->max_len += b->size;
		break;
	case BENCH_ENGINE_WRITE:
		proc = P_WRITE;
		break;
	}
	if (rpcrdma_xprt_call_put_header(c, PROG, 1, proc) != 0 ||
	    (b->mode == BENCH_ENGINE_WRITE &&
	     rpcrdma_xdr_put_ddp(rpcrdma_xprt_call_enc(c), &reg) != 0)) {
		rpcrdma_xprt_call_release(c);
		return -ENOSPC;
	}
	ret = rpcrdma_xprt_call_submit(c, 0, call_cb, b);
	if (ret == 0) {
		b->inflight++;
		b->submitted++;
	}
	return ret;
}

static void call_cb(void *arg, struct rpcrdma_xprt_call *call, int status,
		    struct rpcrdma_xdr_dec *d)
{
	struct bench_engine *b = arg;
	struct rpcrdma_rpc_msg m;
	const void *p;
	uint32_t n;
	bool ok;

	ok = status == 0 && rpcrdma_xprt_get_rpc(d, &m) == 0 &&
	     m.reply.stat == RPCRDMA_RPC_MSG_ACCEPTED && m.reply.accept_stat == RPCRDMA_RPC_SUCCESS;
	if (ok && b->mode == BENCH_ENGINE_READ)
		ok = rpcrdma_xdr_get_ddp(d, 1u << 20, &p, &n) == 0 && n == b->size &&
		     p == b->cli.buf;
	else if (ok && b->mode == BENCH_ENGINE_WRITE)
		ok = rpcrdma_xdr_get_u32(d, &n) == 0 && n == b->size;
	if (!ok)
		b->bad++;
	rpcrdma_xprt_call_release(call);
	b->inflight--;
	b->done++;
	b->one_done = true;
	if (b->submitted < b->want && submit_one(b) != 0)
		b->bad++;
}

__attribute__((noinline)) uint64_t bench_engine_call(struct bench_engine *b)
{
	/* a hang, not a slow call: a loaded 2-core machine deschedules the server lcore for seconds */
	uint64_t t0 = rte_rdtsc_precise(), guard = t0 + BENCH_HANG_S * rte_get_tsc_hz();

	b->one_done = false;
	b->want = b->submitted; /* no resubmission from the callback */
	if (submit_one(b) != 0)
		return 0;
	/* on the wire at once, as the PMD's ping-pong sends (rpcrdma_xprt_flush()) */
	rpcrdma_xprt_flush(b->cli.xprt);
	while (!b->one_done) {
		int w = rpcrdma_xprt_poll(b->cli.xprt);

		if (b->mode == BENCH_ENGINE_NULL_1LCORE)
			w += rpcrdma_xprt_poll(b->srv.xprt);
		if (w == 0 && rte_rdtsc() > guard)
			return 0;
	}
	bench_last_rtt.t0 = t0;
	bench_last_rtt.t1 = rte_rdtsc_precise();
	return b->bad ? 0 : bench_last_rtt.t1 - t0;
}

int bench_engine_pipelined(struct bench_engine *b, uint32_t depth, uint32_t n)
{
	uint64_t guard = rte_rdtsc() + BENCH_HANG_S * rte_get_tsc_hz();
	uint32_t i, end;

	b->done = 0;
	b->want = b->submitted + n;
	end = n;
	for (i = 0; i < depth && b->submitted < b->want; i++)
		if (submit_one(b) != 0)
			return -1;
	while (b->done < end || b->inflight) {
		if (rpcrdma_xprt_poll(b->cli.xprt) == 0 && rte_rdtsc() > guard)
			return -1;
	}
	return b->bad ? -1 : 0;
}

void bench_engine_memcpy(struct bench_engine *b)
{
	memcpy(b->srv.buf, b->cli.buf, b->size);
}

void bench_engine_counts(struct bench_engine *b, uint64_t *cli_wrs, uint64_t *cli_doorbells,
			 uint64_t *srv_wrs, uint64_t *srv_doorbells)
{
	struct rpcrdma_xprt_stats st;

	rpcrdma_xprt_stats(b->cli.xprt, &st);
	*cli_wrs = st.wrs;
	*cli_doorbells = st.doorbells;
	rpcrdma_xprt_stats(b->srv.xprt, &st);
	*srv_wrs = st.wrs;
	*srv_doorbells = st.doorbells;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder's glue with the lcore runtime (rpcrdma_xprt_svc_set_rt()),
 * end to end over a PMD (shm, or verbs from the environment: test_side.h),
 * on five EAL lcores mapped onto the CPUs
 * (rt_eal_init()). The clients are always polled by this thread (the main
 * lcore); a server connection is polled by this thread too, or by a
 * runtime's poller lcore while that runtime runs.
 *
 *   modes    one connection; the same 64 calls (results inline and through
 *            a write chunk, pending calls completed on the poller, every
 *            RPC-level error) dispatched in recv_call on this thread, then
 *            with a runtime of no workers, one worker (per-item callbacks)
 *            and two workers (the glue's burst handlers): replies equal
 *            byte for byte to the first mode's and to what each call
 *            expects; every handler ran on the lcore the mode says, with
 *            the counters in that lcore's slot; the glue's, the runtime's
 *            and the dispatcher's counters agree
 *   stall    two connections on two pollers, two workers; a handler spins
 *            on one worker: both connections keep completing calls (at
 *            least 100 each), the spinning worker runs nothing more; then
 *            the slow call and everything else complete
 *   steps    a runtime driven step by step on this thread: pending calls
 *            completed before their items are back from the worker (their
 *            replies go when the items are), items refused when the ring
 *            to the worker is full (answered on the poller at once),
 *            set_rt's errors, and a call in the runtime when its
 *            connection is lost (the late reply refused, nothing leaked)
 *
 * At the end every pool is full again and no pending call is left. Waits
 * are bounded (WAIT_MS) only so that a hang fails; nothing asserts on how
 * long anything takes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_rt.h>
#include <rpcrdma/rpcrdma_svc.h>
#include <rpcrdma/rpcrdma_xprt.h>
#include <rpcrdma/rpcrdma_xprt_svc.h>

#include "rt_common.h"
#include "svc_test_prog.h"
#include "test_check.h"
#include "test_side.h"

#define NB_LCORES  5
#define PROG	   0x20000200u /* versions 1 and 2 */
#define PROG_NONE  0x20000299u /* not registered */
#define WAIT_MS	   30000
#define ROUNDS	   4
#define PER_ROUND  16
#define NCALLS	   (ROUNDS * PER_ROUND)
#define HANDLED	   (ROUNDS * 8) /* calls per mode that reach a handler */
#define PENDS	   (ROUNDS * 2) /* of them, pending */
#define WINDOW	   8		/* stall: calls in flight on each connection */
#define STALL_MIN  100		/* stall: calls each connection completes meanwhile */
#define MANY_CALLS 40		/* steps: calls queued before the runtime moves */

enum {
	P_NULL,
	P_ECHO,
	P_DDP,
	P_ASYNC,
	P_FAIL,
	P_HOLE,
	P_SLOW,
	P_COUNT
};

/* ------------------------------------------------------------ the program */

static struct rpcrdma_mempool_set *srv_pools; /* the first server's: P_DDP buffers */
static struct rte_ring *async_ring;	      /* pending requests, completed on the poller */
static uint32_t ran_on[RTE_MAX_LCORE];	      /* handlers run, per lcore (atomic) */
static uint32_t ddp_out;		      /* P_DDP buffers not back (atomic) */
static volatile int slow_block, slow_running;
static volatile unsigned int slow_lcore;

static uint32_t slot_bad; /* handlers whose counters went to another lcore's slot (atomic) */

/* Count where a handler runs, and that its counters go to this lcore's slot. */
static void ran_here(const struct rpcrdma_svc_req *req)
{
	__atomic_fetch_add(&ran_on[rte_lcore_id() < RTE_MAX_LCORE ? rte_lcore_id() : 0], 1,
			   __ATOMIC_RELAXED);
	if ((int)req->slot != rte_lcore_index(-1))
		__atomic_fetch_add(&slot_bad, 1, __ATOMIC_RELAXED);
}

static int h_echo(struct rpcrdma_svc_req *req, void *a, void *r)
{
	const struct svc_args *x = a;
	struct svc_res *y = r;

	ran_here(req);
	y->seed = x->seed;
	y->len = x->len;
	return RPCRDMA_SVC_OK;
}

/* A chunk buffer taken on whichever lcore runs the handler, put back on the poller. */
static int h_ddp(struct rpcrdma_svc_req *req, void *a, void *r)
{
	ran_here(req);
	if (svc_res_ddp_fill(r, srv_pools, a) != 0)
		return -ENOMEM;
	__atomic_fetch_add(&ddp_out, 1, __ATOMIC_RELAXED);
	return RPCRDMA_SVC_OK;
}

/* Pending: an odd seed completes with an error (SYSTEM_ERR), an even one with ~seed. */
static int h_async(struct rpcrdma_svc_req *req, void *a, void *r)
{
	struct svc_res *y = r;

	ran_here(req);
	y->seed = ~((const struct svc_args *)a)->seed;
	y->status = (((const struct svc_args *)a)->seed & 1) ? -EIO : RPCRDMA_SVC_OK;
	/* multi-producer: the workers; the poller dequeues */
	if (rte_ring_enqueue(async_ring, req) != 0)
		return -EBUSY;
	return RPCRDMA_SVC_PENDING;
}

static int h_fail(struct rpcrdma_svc_req *req, void *a, void *r)
{
	ran_here(req);
	return -EIO;
}

static int h_slow(struct rpcrdma_svc_req *req, void *a, void *r)
{
	ran_here(req);
	slow_lcore = rte_lcore_id();
	__atomic_store_n(&slow_running, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&slow_block, __ATOMIC_ACQUIRE))
		rte_pause();
	__atomic_store_n(&slow_running, 0, __ATOMIC_RELEASE);
	return RPCRDMA_SVC_OK;
}

static const struct rpcrdma_svc_proc procs[P_COUNT] = {
	[P_ECHO] = SVC_PROC("ECHO", svc_dec_args, h_echo, svc_enc_inline),
	[P_DDP] = SVC_PROC("DDP", svc_dec_args, h_ddp, svc_enc_ddp),
	[P_ASYNC] = SVC_PROC("ASYNC", svc_dec_seed, h_async, svc_enc_seed),
	[P_FAIL] = { "FAIL", NULL, h_fail, NULL, 0, 0, false },
	[P_SLOW] = { "SLOW", NULL, h_slow, NULL, 0, 0, false },
};

static const struct rpcrdma_svc_version vers[] = {
	{ 1, P_COUNT, procs },
	{ 2, P_COUNT, procs },
};

/* The poller's side of the pending calls: complete them (rpcrdma_xprt_svc_complete()). */
static int backend_poll(void)
{
	struct rpcrdma_svc_req *reqs[16];
	unsigned int i, n;

	n = rte_ring_dequeue_burst(async_ring, (void **)reqs, 16, NULL);
	for (i = 0; i < n; i++)
		rpcrdma_xprt_svc_complete(reqs[i],
					  ((struct svc_res *)rpcrdma_svc_req_res(reqs[i]))->status);
	return (int)n;
}

static void ddp_reply_done(void *arg, struct rpcrdma_svc_req *req, int status)
{
	if (req->proc != &procs[P_DDP] || !svc_res_ddp_put(rpcrdma_svc_req_res(req)))
		return;
	__atomic_fetch_sub(&ddp_out, 1, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------ the ends */

/* Connection i: cli[i] to srv[i]; srv[i]'s calls go through glue[i]. */
static struct test_side cli[2], srv[2];
static struct rpcrdma_xprt_svc glue[2];
static struct rpcrdma_svc_registry *reg;
static bool srv_on_main = true; /* false while a runtime polls the servers */

/* The clients, and the servers while no runtime runs. */
static void pump(void)
{
	for (int i = 0; i < 2; i++)
		test_side_poll(&cli[i], NULL);
	if (!srv_on_main)
		return;
	for (int i = 0; i < 2; i++)
		test_side_poll(&srv[i], svc_side_accept);
	backend_poll();
}

static bool pump_until(bool (*cond)(void *), void *arg)
{
	return test_side_until(pump, cond, arg, WAIT_MS);
}

/* A runtime's poll function: one server connection (and the pending calls). */
static int srv_poll(void *arg)
{
	struct test_side *s = arg;
	int work = rpcrdma_xprt_poll(s->xprt);

	if (s == &srv[0])
		work += backend_poll();
	return work;
}

static bool ddp_back(void *arg)
{
	return __atomic_load_n(&ddp_out, __ATOMIC_RELAXED) == 0;
}

static bool established(void *arg)
{
	int i = *(int *)arg;

	return test_side_in(&cli[i], RPCRDMA_XPRT_ESTABLISHED) &&
	       test_side_in(&srv[i], RPCRDMA_XPRT_ESTABLISHED);
}

static bool closed(void *arg)
{
	int i = *(int *)arg;

	return test_side_in(&cli[i], RPCRDMA_XPRT_CLOSED) &&
	       test_side_in(&srv[i], RPCRDMA_XPRT_CLOSED);
}

/* Connection i, with a grant of 64 so that 40 calls can be in flight. */
static int conn_open(int i)
{
	char addr[64], name[8];

	snprintf(name, sizeof(name), "rc%d", i);
	if (svc_side_open(&cli[i], name))
		return -1;
	snprintf(name, sizeof(name), "rs%d", i);
	if (svc_side_open(&srv[i], name))
		return -1;
	test_side_addr(addr, sizeof(addr), "xsvcrt");
	if (rpcrdma_pmd_listen(srv[i].dev, addr, &srv[i].listener))
		return -1;
	test_side_params(&cli[i], RPCRDMA_XPRT_CLIENT);
	cli[i].params.max_credits = 64;
	cli[i].params.max_calls = 128;
	test_side_params(&srv[i], RPCRDMA_XPRT_SERVER);
	srv[i].params.max_credits = 64;
	rpcrdma_xprt_svc_init(&glue[i], reg, 0);
	glue[i].reply_done = ddp_reply_done;
	rpcrdma_xprt_svc_bind(&glue[i], &srv[i].params);
	if (rpcrdma_xprt_create(&cli[i].params, &cli[i].xprt) ||
	    rpcrdma_xprt_connect(cli[i].xprt, addr) || !pump_until(established, &i))
		return -1;
	return 0;
}

static void conn_close(int i)
{
	if (rpcrdma_xprt_state(cli[i].xprt) == RPCRDMA_XPRT_ESTABLISHED)
		CHECK(rpcrdma_xprt_disconnect(cli[i].xprt) == 0, "disconnect %d", i);
	CHECK(pump_until(closed, &i), "connection %d closed", i);
	CHECK(rpcrdma_xprt_destroy(cli[i].xprt) == 0 && rpcrdma_xprt_destroy(srv[i].xprt) == 0,
	      "destroy %d", i);
	CHECK(test_side_destroy(&cli[i]) == 0, "every buffer back, closed");
	CHECK(test_side_destroy(&srv[i]) == 0, "every buffer back, closed");
}

/* ------------------------------------------------------------ calls */

/* Send on connection @p conn's client. */
static void tcall_submit(struct svc_tcall *t, int conn)
{
	svc_tcall_submit(t, cli[conn].xprt, cli[conn].pools);
}

/* ------------------------------------------------------------ modes */

static struct svc_tcall *ref_calls, *mode_calls;

/* The calls of a round: every kind of result and error, and what each is answered. */
static const struct kind {
	uint32_t rpcvers, prog, vers, proc, flavor, len;
	bool no_args, chunk;
	int want; /* accept_stat, or 100 + reject_stat */
} kinds[PER_ROUND] = {
	{ .prog = PROG, .vers = 1, .proc = P_NULL, .no_args = true, .want = RPCRDMA_RPC_SUCCESS },
	{ .prog = PROG, .vers = 2, .proc = P_ECHO, .len = 100, .want = RPCRDMA_RPC_SUCCESS },
	{ .prog = PROG, .vers = 1, .proc = P_ECHO, .len = 3001, .want = RPCRDMA_RPC_SUCCESS },
	{ .prog = PROG,
	  .vers = 1,
	  .proc = P_DDP,
	  .len = 4096,
	  .chunk = true,
	  .want = RPCRDMA_RPC_SUCCESS },
	{ .prog = PROG, .vers = 1, .proc = P_DDP, .len = 500, .want = RPCRDMA_RPC_SUCCESS },
	{ .prog = PROG, .vers = 1, .proc = P_ASYNC, .want = RPCRDMA_RPC_SUCCESS },
	/* an odd seed (round_call()): completed with an error */
	{ .prog = PROG, .vers = 2, .proc = P_ASYNC, .want = RPCRDMA_RPC_SYSTEM_ERR },
	{ .prog = PROG, .vers = 1, .proc = P_FAIL, .want = RPCRDMA_RPC_SYSTEM_ERR },
	{ .prog = PROG, .vers = 1, .proc = P_HOLE, .want = RPCRDMA_RPC_PROC_UNAVAIL },
	{ .prog = PROG, .vers = 1, .proc = 200, .want = RPCRDMA_RPC_PROC_UNAVAIL },
	{ .prog = PROG,
	  .vers = 1,
	  .proc = P_ECHO,
	  .no_args = true,
	  .want = RPCRDMA_RPC_GARBAGE_ARGS },
	{ .prog = PROG_NONE, .vers = 1, .proc = 1, .want = RPCRDMA_RPC_PROG_UNAVAIL },
	{ .prog = PROG, .vers = 7, .proc = 1, .want = RPCRDMA_RPC_PROG_MISMATCH },
	{ .prog = PROG,
	  .vers = 1,
	  .proc = P_ECHO,
	  .len = 8,
	  .flavor = 99,
	  .want = 100 + RPCRDMA_RPC_AUTH_ERROR },
	{ .rpcvers = 3,
	  .prog = PROG,
	  .vers = 1,
	  .proc = 1,
	  .want = 100 + RPCRDMA_RPC_RPC_MISMATCH },
	{ .prog = PROG, .vers = 2, .proc = P_ECHO, .len = 0, .want = RPCRDMA_RPC_SUCCESS },
};

/* Call i of a round, its seed fixed by (round, i). */
static void round_call(struct svc_tcall *t, unsigned int round, unsigned int i)
{
	memset(t, 0, sizeof(*t));
	t->rpcvers = kinds[i].rpcvers;
	t->prog = kinds[i].prog;
	t->vers = kinds[i].vers;
	t->proc = kinds[i].proc;
	t->flavor = kinds[i].flavor;
	t->no_args = kinds[i].no_args;
	t->chunk = kinds[i].chunk;
	t->len = kinds[i].len;
	t->seed = (round * PER_ROUND + i) * 2 + (i == 6);
}

static bool round_done(void *arg)
{
	return svc_tcalls_done(arg, PER_ROUND);
}

/* Every call of a mode, a round at a time (16 in flight); each checked against what it wants. */
static void run_calls(const char *mode, struct svc_tcall *calls)
{
	unsigned int r, i;

	for (r = 0; r < ROUNDS; r++) {
		struct svc_tcall *c = calls + r * PER_ROUND;

		for (i = 0; i < PER_ROUND; i++) {
			round_call(&c[i], r, i);
			tcall_submit(&c[i], 0);
		}
		CHECK(pump_until(round_done, c), "%s: round %u answered", mode, r);
		for (i = 0; i < PER_ROUND; i++) {
			int o = svc_tcall_outcome(&c[i]);

			CHECK(o == kinds[i].want && c[i].data_ok, "%s: call %u: %d (want %d)%s",
			      mode, r * PER_ROUND + i, o, kinds[i].want,
			      c[i].data_ok ? "" : ", bad data");
		}
		CHECK(c[12].rep.reply.low == 1 && c[12].rep.reply.high == 2,
		      "%s: PROG_MISMATCH 1..2", mode);
		CHECK(c[13].rep.reply.auth_stat == RPCRDMA_RPC_AUTH_BADCRED, "%s: AUTH_BADCRED",
		      mode);
	}
}

static void compare_calls(const char *mode)
{
	unsigned int i, bad = 0;

	for (i = 0; i < NCALLS; i++)
		if (mode_calls[i].nbytes != ref_calls[i].nbytes || ref_calls[i].nbytes < 16 ||
		    memcmp(mode_calls[i].bytes, ref_calls[i].bytes, ref_calls[i].nbytes) != 0) {
			if (bad++ < 3) {
				fprintf(stderr, "%s: call %u: %u bytes, want %u\n", mode, i,
					mode_calls[i].nbytes, ref_calls[i].nbytes);
				test_hexdump("reply", mode_calls[i].bytes,
					     RTE_MIN(mode_calls[i].nbytes, 64u));
				test_hexdump("first mode's", ref_calls[i].bytes,
					     RTE_MIN(ref_calls[i].nbytes, 64u));
			}
		}
	CHECK(bad == 0, "%s: %u of %u replies differ from the first mode's", mode, bad, NCALLS);
}

struct mode {
	const char *name;
	const char *roles; /* NULL: no runtime, recv_call dispatches on this thread */
	bool burst;	   /* the glue's burst handlers */
	unsigned int workers;
};

static void snapshot_ran(uint32_t *out)
{
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++)
		out[l] = __atomic_load_n(&ran_on[l], __ATOMIC_RELAXED);
}

/* The handlers of this mode ran on @p lcores only, HANDLED of them in all. */
static void check_ran(const char *mode, const uint32_t *before, const unsigned int *lcores,
		      unsigned int n)
{
	uint32_t after[RTE_MAX_LCORE], on = 0, off = 0;

	snapshot_ran(after);
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++) {
		bool mine = false;

		for (unsigned int k = 0; k < n; k++)
			mine = mine || lcores[k] == l;
		if (mine)
			on += after[l] - before[l];
		else
			off += after[l] - before[l];
	}
	CHECK(on == HANDLED && off == 0, "%s: %u handlers on the mode's lcores, %u elsewhere", mode,
	      on, off);
}

static void run_mode(const struct mode *m, struct svc_tcall *calls)
{
	struct rpcrdma_xprt_svc_stats before = glue[0].st, *st = &glue[0].st;
	struct rpcrdma_rt_lcore_stats ls;
	struct rpcrdma_svc_stats sb, sa;
	struct rpcrdma_rt_params prm;
	struct rpcrdma_rt *rt = NULL;
	uint32_t ran[RTE_MAX_LCORE];
	unsigned int lcores[2], nl = 0, i;
	uint64_t witems = 0;
	int ret;

	rpcrdma_svc_stats(reg, &sb);
	snapshot_ran(ran);
	if (m->roles != NULL) {
		rpcrdma_rt_params_init(&prm);
		prm.name = m->name;
		prm.roles = m->roles;
		if (m->burst)
			rpcrdma_xprt_svc_rt_bind(&prm);
		ret = rpcrdma_rt_create(&prm, &rt);
		CHECK(ret == 0, "%s: create: %d", m->name, ret);
		if (ret)
			return;
		CHECK_EQ(rpcrdma_rt_nb_workers(rt), m->workers);
		CHECK(rpcrdma_rt_poller_add(rpcrdma_rt_poller(rt, 0), srv_poll, &srv[0]) == 0,
		      "%s: poller_add", m->name);
		CHECK(rpcrdma_xprt_svc_set_rt(&glue[0], rpcrdma_rt_poller(rt, 0)) == 0,
		      "%s: set_rt", m->name);
		CHECK_EQ(glue[0].slot,
			 rte_lcore_index(rpcrdma_rt_poller_lcore(rpcrdma_rt_poller(rt, 0))));
		srv_on_main = false;
		CHECK(rpcrdma_rt_start(rt) == 0, "%s: start", m->name);
	}

	run_calls(m->name, calls);

	if (rt != NULL) {
		CHECK(rpcrdma_rt_stop(rt) == 0, "%s: stop", m->name);
		srv_on_main = true;
		CHECK(rpcrdma_xprt_svc_set_rt(&glue[0], NULL) == 0, "%s: set_rt NULL", m->name);
		/* where the handlers ran: the workers, or the poller with none */
		if (m->workers == 0)
			lcores[nl++] = rpcrdma_rt_poller_lcore(rpcrdma_rt_poller(rt, 0));
		for (i = 0; i < m->workers; i++)
			lcores[nl++] = rpcrdma_rt_worker_lcore(rt, i);
		check_ran(m->name, ran, lcores, nl);
		/* the runtime's counters: every call handed off and back, or run inline */
		CHECK(rpcrdma_rt_stats(rt, 0, &ls) == 0, "stats");
		if (m->workers == 0)
			CHECK(ls.inline_runs == NCALLS && ls.items == 0 && ls.returned == 0,
			      "%s: poller ran %lu inline, handed off %lu", m->name,
			      (unsigned long)ls.inline_runs, (unsigned long)ls.items);
		else
			CHECK(ls.items == NCALLS && ls.returned == NCALLS && ls.inline_runs == 0,
			      "%s: poller handed off %lu, %lu back", m->name,
			      (unsigned long)ls.items, (unsigned long)ls.returned);
		for (i = 0; i < m->workers; i++) {
			CHECK(rpcrdma_rt_stats(rt, 1 + i, &ls) == 0, "stats");
			witems += ls.items;
		}
		CHECK(witems == (m->workers ? NCALLS : 0), "%s: the workers ran %lu items", m->name,
		      (unsigned long)witems);
		/* the glue's: every call through the runtime, none refused */
		CHECK(st->rt_queued - before.rt_queued == NCALLS &&
			      st->rt_returned - before.rt_returned == NCALLS &&
			      st->rt_refused == before.rt_refused,
		      "%s: glue queued %lu, returned %lu, refused %lu", m->name,
		      (unsigned long)(st->rt_queued - before.rt_queued),
		      (unsigned long)(st->rt_returned - before.rt_returned),
		      (unsigned long)(st->rt_refused - before.rt_refused));
		rpcrdma_rt_free(rt);
	} else {
		lcores[nl++] = rte_lcore_id();
		check_ran(m->name, ran, lcores, nl);
		CHECK(st->rt_queued == before.rt_queued, "%s: nothing queued", m->name);
	}
	CHECK(st->calls - before.calls == NCALLS && st->replies - before.replies == NCALLS &&
		      st->pending - before.pending == PENDS &&
		      st->unanswered == before.unanswered &&
		      st->reply_fails == before.reply_fails && st->no_buffer == before.no_buffer,
	      "%s: glue calls %lu, replies %lu, pending %lu", m->name,
	      (unsigned long)(st->calls - before.calls),
	      (unsigned long)(st->replies - before.replies),
	      (unsigned long)(st->pending - before.pending));
	rpcrdma_svc_stats(reg, &sa);
	CHECK(sa.calls - sb.calls == NCALLS && sa.prog_unavail - sb.prog_unavail == ROUNDS &&
		      sa.auth_badcred - sb.auth_badcred == ROUNDS &&
		      sa.rpc_mismatch - sb.rpc_mismatch == ROUNDS && sa.dropped == sb.dropped,
	      "%s: dispatcher calls %lu", m->name, (unsigned long)(sa.calls - sb.calls));
	/*
	 * A reply's DDP buffers come back when its Send retires, which the
	 * server may see after the client has the reply (iWARP: a completion
	 * says sent, not delivered): the servers are polled until then.
	 */
	CHECK(pump_until(ddp_back, NULL), "%s: DDP buffers back: %u out", m->name,
	      __atomic_load_n(&ddp_out, __ATOMIC_RELAXED));
	CHECK(__atomic_load_n(&slot_bad, __ATOMIC_RELAXED) == 0,
	      "%s: every dispatch counted in its own lcore's slot", m->name);
}

static void test_modes(void)
{
	static const struct mode modes[] = {
		{ "rtc", NULL, false, 0 },
		{ "rt0", "pollers=(1),workers=0", false, 0 },
		{ "w1", "pollers=(1),workers=(2)", false, 1 },
		{ "w2b", "pollers=(1),workers=(2-3)", true, 2 },
	};
	struct rpcrdma_svc_proc_stats ps;

	run_mode(&modes[0], ref_calls);
	for (unsigned int i = 1; i < RTE_DIM(modes); i++) {
		run_mode(&modes[i], mode_calls);
		compare_calls(modes[i].name);
	}
	/* ASYNC v1: one a round, four modes; all pending, all successes */
	CHECK(rpcrdma_svc_proc_stats(reg, PROG, 1, P_ASYNC, &ps) == 0 && ps.calls == 4 * ROUNDS &&
		      ps.async == 4 * ROUNDS && ps.success == 4 * ROUNDS,
	      "ASYNC v1: calls %lu async %lu success %lu", (unsigned long)ps.calls,
	      (unsigned long)ps.async, (unsigned long)ps.success);
}

/* ------------------------------------------------------------ stall */

struct window {
	int conn;
	struct svc_tcall calls[WINDOW];
	unsigned int completed, bad;
	unsigned int limit; /* calls in flight at most */
	bool refill;
};

static struct window win[2];

static void window_start(struct window *w, int conn)
{
	memset(w, 0, sizeof(*w));
	w->conn = conn;
	w->refill = true;
	w->limit = WINDOW;
	for (unsigned int i = 0; i < WINDOW; i++)
		w->calls[i].done = true; /* free */
}

/* Count the answered calls (each checked) and send new ones in their place. */
static void window_turn(struct window *w)
{
	for (unsigned int i = 0; i < WINDOW; i++) {
		struct svc_tcall *t = &w->calls[i];

		if (!t->done)
			continue;
		if (t->xid != 0) {
			w->completed++;
			w->bad += svc_tcall_outcome(t) != RPCRDMA_RPC_SUCCESS || !t->data_ok;
			t->xid = 0;
		}
		if (!w->refill || i >= w->limit)
			continue;
		memset(t, 0, sizeof(*t));
		t->prog = PROG;
		t->vers = 1;
		t->proc = P_ECHO;
		t->len = 64;
		t->seed = w->completed + i;
		tcall_submit(t, w->conn);
	}
}

static bool window_idle(const struct window *w)
{
	return svc_tcalls_done(w->calls, WINDOW);
}

/* The second poller has handed an item to a worker. */
static bool poller_handed(void *arg)
{
	struct rpcrdma_rt_lcore_stats st;

	return rpcrdma_rt_stats(arg, 1, &st) == 0 && st.items > 0;
}

static bool slow_started(void *arg)
{
	return __atomic_load_n(&slow_running, __ATOMIC_ACQUIRE) != 0;
}

static void test_stall(void)
{
	struct rpcrdma_xprt_svc_stats before[2] = { glue[0].st, glue[1].st };
	struct rpcrdma_rt_lcore_stats sa, sb;
	struct rpcrdma_rt_params prm;
	struct rpcrdma_rt *rt;
	struct svc_tcall slow;
	unsigned int sw = 0, i;
	uint64_t end;
	int ret;

	rpcrdma_rt_params_init(&prm);
	prm.name = "stall";
	prm.roles = "pollers=(1-2),workers=(3-4)";
	ret = rpcrdma_rt_create(&prm, &rt);
	CHECK(ret == 0, "stall: create %d", ret);
	if (ret)
		return;
	for (i = 0; i < 2; i++) {
		CHECK(rpcrdma_rt_poller_add(rpcrdma_rt_poller(rt, i), srv_poll, &srv[i]) == 0,
		      "stall: poller_add");
		CHECK(rpcrdma_xprt_svc_set_rt(&glue[i], rpcrdma_rt_poller(rt, i)) == 0,
		      "stall: set_rt %u", i);
	}
	__atomic_store_n(&slow_block, 1, __ATOMIC_RELEASE);
	srv_on_main = false;
	CHECK(rpcrdma_rt_start(rt) == 0, "stall: start");

	/* a SLOW call on connection 0 takes one worker */
	memset(&slow, 0, sizeof(slow));
	slow.prog = PROG;
	slow.vers = 1;
	slow.proc = P_SLOW;
	slow.no_args = true;
	tcall_submit(&slow, 0);
	CHECK(pump_until(slow_started, NULL), "the SLOW call started");
	for (i = 0; i < 2; i++)
		if (rpcrdma_rt_worker_lcore(rt, i) == slow_lcore)
			sw = i;
	CHECK(rpcrdma_rt_worker_lcore(rt, sw) == slow_lcore, "SLOW on worker lcore %u", slow_lcore);
	CHECK(rpcrdma_rt_stats(rt, 2 + sw, &sb) == 0, "stats");

	/*
	 * Meanwhile both connections, on both pollers, keep completing calls.
	 * A poller sends each burst to the worker with the fewest of its own
	 * items in flight: connection 1's poller has none on the stuck worker
	 * yet, so its first burst may go there and wait for the release. One
	 * call first, then the window: later bursts avoid the stuck worker.
	 */
	window_start(&win[0], 0);
	window_start(&win[1], 1);
	win[1].limit = 1;
	window_turn(&win[1]);
	CHECK(pump_until(poller_handed, rt), "connection 1's first call handed to a worker");
	win[1].limit = WINDOW;
	end = test_now_ms() + WAIT_MS;
	while ((win[0].completed < STALL_MIN || win[1].completed < STALL_MIN) &&
	       test_now_ms() < end) {
		window_turn(&win[0]);
		window_turn(&win[1]);
		pump();
	}
	CHECK(win[0].completed >= STALL_MIN && win[1].completed >= STALL_MIN,
	      "progress while a worker is stuck: %u and %u calls", win[0].completed,
	      win[1].completed);
	CHECK(win[0].bad == 0 && win[1].bad == 0, "stall: %u and %u bad replies", win[0].bad,
	      win[1].bad);
	CHECK(!slow.done && __atomic_load_n(&slow_running, __ATOMIC_ACQUIRE),
	      "the SLOW call still runs");
	CHECK(rpcrdma_rt_stats(rt, 2 + sw, &sa) == 0 && sa.items == sb.items,
	      "the stuck worker ran nothing more: %lu -> %lu", (unsigned long)sb.items,
	      (unsigned long)sa.items);

	/* released: the SLOW call and every call behind it complete */
	__atomic_store_n(&slow_block, 0, __ATOMIC_RELEASE);
	win[0].refill = win[1].refill = false;
	end = test_now_ms() + WAIT_MS;
	while ((!slow.done || !window_idle(&win[0]) || !window_idle(&win[1])) &&
	       test_now_ms() < end)
		pump();
	window_turn(&win[0]);
	window_turn(&win[1]);
	CHECK(slow.done && svc_tcall_outcome(&slow) == RPCRDMA_RPC_SUCCESS && slow.data_ok,
	      "the SLOW call answered: %d", svc_tcall_outcome(&slow));
	CHECK(window_idle(&win[0]) && window_idle(&win[1]) && win[0].bad == 0 && win[1].bad == 0,
	      "every call answered after the release");
	CHECK(rpcrdma_rt_stop(rt) == 0, "stall: stop");
	srv_on_main = true;
	for (i = 0; i < 2; i++) {
		const struct rpcrdma_xprt_svc_stats *st = &glue[i].st;
		uint64_t want = win[i].completed + (i == 0);

		CHECK(rpcrdma_xprt_svc_set_rt(&glue[i], NULL) == 0, "stall: set_rt NULL");
		CHECK(st->calls - before[i].calls == want &&
			      st->replies - before[i].replies == want &&
			      st->rt_queued - before[i].rt_queued == want &&
			      st->rt_returned - before[i].rt_returned == want &&
			      st->rt_refused == before[i].rt_refused,
		      "stall: connection %u: %lu calls, %lu replies, %lu queued, %lu back", i,
		      (unsigned long)(st->calls - before[i].calls),
		      (unsigned long)(st->replies - before[i].replies),
		      (unsigned long)(st->rt_queued - before[i].rt_queued),
		      (unsigned long)(st->rt_returned - before[i].rt_returned));
	}
	rpcrdma_rt_free(rt);
}

/* ------------------------------------------------------------ steps */

/* Drive the server and the clients on this thread, not the runtime. */
static void pump_n(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		pump();
}

static bool queued_n(void *arg)
{
	return glue[0].st.calls >= *(uint64_t *)arg;
}

/* Pending calls completed before their items are back from the worker. */
static void steps_early(struct rpcrdma_rt *rt, struct rpcrdma_rt_poller *p)
{
	struct rpcrdma_xprt_svc_stats before = glue[0].st;
	uint64_t want = before.calls + 2;
	struct svc_tcall a[2];

	for (int i = 0; i < 2; i++) {
		memset(&a[i], 0, sizeof(a[i]));
		a[i].prog = PROG;
		a[i].vers = 1;
		a[i].proc = P_ASYNC;
		a[i].seed = 40 + (uint32_t)i; /* 40: success; 41: SYSTEM_ERR */
		tcall_submit(&a[i], 0);
	}
	CHECK(pump_until(queued_n, &want), "early: the calls reached the glue");
	CHECK_EQ(glue[0].st.rt_queued - before.rt_queued, 2);
	CHECK(rpcrdma_xprt_svc_set_rt(&glue[0], NULL) == -EBUSY, "set_rt while calls are out");
	CHECK_EQ(rpcrdma_rt_flush(p), 2);
	CHECK(rpcrdma_rt_worker_iterate(rt, 0) == 2, "the worker ran both");
	/* the handlers left them pending; the poller completes them now, items still out */
	CHECK_EQ(backend_poll(), 2);
	CHECK_EQ(glue[0].st.rt_early - before.rt_early, 2);
	pump_n(200);
	CHECK(!a[0].done && !a[1].done && glue[0].st.replies == before.replies,
	      "early: no reply before the items are back");
	/* the items come back: their done sends the kept replies */
	CHECK(rpcrdma_rt_poller_iterate(p) == 2, "the poller took both back");
	CHECK(pump_until(svc_tcall_done, &a[0]) && pump_until(svc_tcall_done, &a[1]),
	      "early: answered");
	CHECK(svc_tcall_outcome(&a[0]) == RPCRDMA_RPC_SUCCESS && a[0].data_ok, "early: success");
	CHECK(svc_tcall_outcome(&a[1]) == RPCRDMA_RPC_SYSTEM_ERR && a[1].data_ok,
	      "early: SYSTEM_ERR");
	CHECK(glue[0].st.pending - before.pending == 2 && glue[0].st.replies - before.replies == 2,
	      "early: pending %lu replies %lu",
	      (unsigned long)(glue[0].st.pending - before.pending),
	      (unsigned long)(glue[0].st.replies - before.replies));
}

/*
 * 40 calls before the runtime moves: 32 staged, 1 in the ring (its usable
 * size is 1), then every ring full: the other 7 are refused and answered
 * on the poller at once.
 */
/* steps_refused(): the calls the runtime refused (all but 33) are answered */
static bool refused_answered(void *arg)
{
	const struct svc_tcall *c = arg;
	unsigned int i, done = 0;

	for (i = 0; i < MANY_CALLS; i++)
		done += c[i].done;
	return done >= MANY_CALLS - 33;
}

static void steps_refused(struct rpcrdma_rt *rt, struct rpcrdma_rt_poller *p)
{
	struct rpcrdma_xprt_svc_stats before = glue[0].st;
	uint64_t want = before.calls + MANY_CALLS;
	struct rpcrdma_rt_lcore_stats ls;
	struct svc_tcall *c = mode_calls; /* reused */
	unsigned int i, done = 0, bad = 0;
	uint64_t end;

	for (i = 0; i < MANY_CALLS; i++) {
		memset(&c[i], 0, sizeof(c[i]));
		c[i].prog = PROG;
		c[i].vers = 2;
		c[i].proc = P_ECHO;
		c[i].len = 16 + i;
		c[i].seed = 500 + i;
		tcall_submit(&c[i], 0);
	}
	CHECK(pump_until(queued_n, &want), "refused: every call reached the glue");
	/* the refused ones are answered at once: wait for them, bounded by time */
	pump_until(refused_answered, c);
	for (i = 0; i < MANY_CALLS; i++)
		done += c[i].done;
	CHECK_EQ(glue[0].st.rt_queued - before.rt_queued, 33);
	CHECK_EQ(glue[0].st.rt_refused - before.rt_refused, MANY_CALLS - 33);
	CHECK_EQ(done, MANY_CALLS - 33);
	CHECK(rpcrdma_rt_stats(rt, 0, &ls) == 0 && ls.ring_full > 0,
	      "the poller saw the ring full");
	end = test_now_ms() + WAIT_MS;
	while (!svc_tcalls_done(c, MANY_CALLS) && test_now_ms() < end) {
		rpcrdma_rt_poller_iterate(p);
		rpcrdma_rt_worker_iterate(rt, 0);
		pump();
	}
	for (i = 0; i < MANY_CALLS; i++)
		bad += svc_tcall_outcome(&c[i]) != RPCRDMA_RPC_SUCCESS || !c[i].data_ok;
	CHECK(svc_tcalls_done(c, MANY_CALLS) && bad == 0, "refused: %u bad replies", bad);
	CHECK(glue[0].st.rt_returned - before.rt_returned == 33 &&
		      glue[0].st.replies - before.replies == MANY_CALLS,
	      "refused: %lu back, %lu replies",
	      (unsigned long)(glue[0].st.rt_returned - before.rt_returned),
	      (unsigned long)(glue[0].st.replies - before.replies));
}

/* A call in the runtime when its connection goes: the late reply is refused, nothing leaks. */
static void steps_loss(struct rpcrdma_rt *rt, struct rpcrdma_rt_poller *p)
{
	struct rpcrdma_xprt_svc_stats before = glue[0].st;
	uint64_t want = before.calls + 1;
	struct svc_tcall t;
	int conn = 0;

	memset(&t, 0, sizeof(t));
	t.prog = PROG;
	t.vers = 1;
	t.proc = P_DDP;
	t.len = 4096;
	t.chunk = true;
	t.seed = 77;
	tcall_submit(&t, 0);
	CHECK(pump_until(queued_n, &want), "loss: the call reached the glue");
	CHECK(rpcrdma_xprt_disconnect(cli[0].xprt) == 0, "loss: disconnect");
	/* bounded by time: over verbs the loss takes the device's time to show */
	CHECK(pump_until(svc_tcall_done, &t) && t.status == -ECONNRESET,
	      "loss: the call failed: %d", t.status);
	CHECK(rpcrdma_xprt_state(srv[0].xprt) == RPCRDMA_XPRT_DRAINING,
	      "loss: the server waits for the call in the runtime");
	CHECK(rpcrdma_xprt_destroy(srv[0].xprt) == -EBUSY, "loss: not destroyed meanwhile");
	rpcrdma_rt_flush(p);
	rpcrdma_rt_worker_iterate(rt, 0);
	rpcrdma_rt_poller_iterate(p);
	CHECK(pump_until(closed, &conn), "loss: both closed");
	CHECK(glue[0].st.reply_fails - before.reply_fails == 1 &&
		      glue[0].st.rt_returned - before.rt_returned == 1,
	      "loss: the late reply refused");
	CHECK(__atomic_load_n(&ddp_out, __ATOMIC_RELAXED) == 0, "loss: the DDP buffer back");
}

/* A runtime that is not started, one poller and one worker, driven on this thread. */
static struct rpcrdma_rt *steps_rt(const char *name, uint32_t ring_size)
{
	struct rpcrdma_rt_params prm;
	struct rpcrdma_rt *rt;
	int ret;

	rpcrdma_rt_params_init(&prm);
	prm.name = name;
	prm.roles = "pollers=(1),workers=(2)";
	prm.ring_size = ring_size;
	ret = rpcrdma_rt_create(&prm, &rt);
	CHECK(ret == 0, "%s: create %d", name, ret);
	if (ret)
		return NULL;
	ret = rpcrdma_xprt_svc_set_rt(&glue[0], rpcrdma_rt_poller(rt, 0));
	CHECK(ret == 0, "%s: set_rt %d", name, ret);
	if (ret) {
		rpcrdma_rt_free(rt);
		return NULL;
	}
	return rt;
}

static void steps_rt_free(struct rpcrdma_rt *rt)
{
	CHECK(rpcrdma_xprt_svc_set_rt(&glue[0], NULL) == 0, "steps: set_rt NULL");
	rpcrdma_rt_free(rt);
}

static void test_steps(void)
{
	struct rpcrdma_svc_registry *small;
	struct rpcrdma_xprt_svc g;
	struct rpcrdma_svc_params sp;
	struct rpcrdma_rt *rt;

	rt = steps_rt("early", 1024);
	if (rt != NULL) {
		/* a registry without a slot per lcore cannot count on the workers */
		rpcrdma_svc_params_init(&sp);
		CHECK(rpcrdma_svc_registry_create(&sp, &small) == 0, "small registry");
		rpcrdma_xprt_svc_init(&g, small, 0);
		CHECK(rpcrdma_xprt_svc_set_rt(&g, rpcrdma_rt_poller(rt, 0)) == -EINVAL &&
			      g.poller == NULL && g.slot == 0,
		      "set_rt: too few counter slots");
		rpcrdma_svc_registry_free(small);
		steps_early(rt, rpcrdma_rt_poller(rt, 0));
		steps_rt_free(rt);
	}
	/* rings of 2 entries: one item each */
	rt = steps_rt("full", 2);
	if (rt != NULL) {
		steps_refused(rt, rpcrdma_rt_poller(rt, 0));
		steps_rt_free(rt);
	}
	rt = steps_rt("loss", 1024);
	if (rt != NULL) {
		steps_loss(rt, rpcrdma_rt_poller(rt, 0));
		steps_rt_free(rt);
	}
}

int main(int argc, char **argv)
{
	struct rpcrdma_svc_params sp;
	struct rpcrdma_svc_program prog = {
		.name = "svcrt", .prog = PROG, .nvers = 2, .vers = vers
	};
	int ret;

	ret = rt_eal_init(argv[0], NB_LCORES, NULL);
	if (ret)
		return ret;
	/* slot 13: test_xprt's parts take 0..11, test_xprt_svc 12 */
	ret = test_side_env(13);
	if (ret != 0)
		return ret;
	rpcrdma_svc_params_init(&sp);
	sp.nb_slots = RTE_MAX_LCORE;
	CHECK(rpcrdma_svc_registry_create(&sp, &reg) == 0 && rpcrdma_svc_register(reg, &prog) == 0,
	      "registry");
	async_ring = rte_ring_create("svcrt_async", 256, rte_socket_id(), RING_F_SC_DEQ);
	ref_calls = test_malloc(sizeof(*ref_calls) * NCALLS);
	mode_calls = test_malloc(sizeof(*mode_calls) * NCALLS);
	if (async_ring == NULL || conn_open(0) || conn_open(1)) {
		fprintf(stderr, "set-up failed\n");
		return 1;
	}
	srv_pools = srv[0].pools;
	svc_args_max_len = 8192;
	/* what the call driver checks a success for */
	svc_proc_res[P_ECHO] = SVC_RES_INLINE;
	svc_proc_res[P_DDP] = SVC_RES_DDP;
	svc_proc_res[P_ASYNC] = SVC_RES_SEED;
	/* a first reply: the clients have their full grants from then on */
	for (int i = 0; i < 2; i++) {
		struct svc_tcall *t = &ref_calls[0];

		memset(t, 0, sizeof(*t));
		t->prog = PROG;
		t->vers = 1;
		t->no_args = true;
		tcall_submit(t, i);
		CHECK(pump_until(svc_tcall_done, t) && svc_tcall_outcome(t) == RPCRDMA_RPC_SUCCESS,
		      "connection %d: NULL", i);
	}

	test_modes();
	test_stall();
	test_steps();

	conn_close(0);
	conn_close(1);
	CHECK(rte_ring_count(async_ring) == 0, "no pending call left");
	rte_ring_free(async_ring);
	free(ref_calls);
	free(mode_calls);
	rpcrdma_svc_registry_free(reg);
	rte_eal_cleanup();
	return test_side_summary("xprt_svc_rt", test_checks, test_failures);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder's glue (rpcrdma_xprt_svc.h) end to end over a PMD (shm, or
 * verbs from the environment: test_side.h):
 * a client connection sends calls to a server connection whose recv_call
 * is rpcrdma_xprt_svc_recv_call() over a registry, both polled by this
 * thread. The client checks every reply: results inline, results through
 * its write chunk (DDP, zero copy), a handler completed later
 * (RPCRDMA_SVC_PENDING, rpcrdma_svc_complete()), and each RPC-level error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_svc.h>
#include <rpcrdma/rpcrdma_xprt.h>
#include <rpcrdma/rpcrdma_xprt_svc.h>

#include "svc_test_prog.h"
#include "test_check.h"
#include "test_side.h"

#define PROG	  0x20000100u /* versions 1 and 2 */
#define PROG_SYS  0x20000101u /* requires AUTH_SYS */
#define PROG_NONE 0x20000199u /* not registered */
#define P_INLINE  1	      /* seed, len -> len pattern bytes, inline opaque */
#define P_DDP	  2	      /* seed, len -> len pattern bytes, DDP-eligible */
#define P_ASYNC	  3	      /* seed -> ~seed, completed later */
#define P_FAIL	  4	      /* the handler fails: SYSTEM_ERR */
#define P_HOLE	  5	      /* a zeroed entry: PROC_UNAVAIL */
#define WAIT_MS	  wait_ms

/* A bounded wait: 5 s on shm, a minute on verbs (an emulated guest is slow). */
static uint64_t wait_ms = 5000;

/* ------------------------------------------------------------ the program */

static struct rpcrdma_mempool_set *srv_pools;
static struct rpcrdma_svc_req *pending[8];
static unsigned int npending, ddp_out, ddp_done_ok;

static int h_copy(struct rpcrdma_svc_req *req, void *a, void *r)
{
	const struct svc_args *x = a;
	struct svc_res *y = r;

	y->seed = x->seed;
	y->len = x->len;
	return RPCRDMA_SVC_OK;
}

static int h_ddp(struct rpcrdma_svc_req *req, void *a, void *r)
{
	if (svc_res_ddp_fill(r, srv_pools, a) != 0)
		return -ENOMEM;
	ddp_out++;
	return RPCRDMA_SVC_OK;
}

static int h_async(struct rpcrdma_svc_req *req, void *a, void *r)
{
	if (npending == 8)
		return -EBUSY;
	((struct svc_res *)r)->seed = ~((const struct svc_args *)a)->seed;
	pending[npending++] = req;
	return RPCRDMA_SVC_PENDING;
}

static int h_fail(struct rpcrdma_svc_req *req, void *a, void *r)
{
	return -EIO;
}

static const struct rpcrdma_svc_proc procs[] = {
	[P_INLINE] = SVC_PROC("INLINE", svc_dec_args, h_copy, svc_enc_inline),
	[P_DDP] = SVC_PROC("DDP", svc_dec_args, h_ddp, svc_enc_ddp),
	[P_ASYNC] = SVC_PROC("ASYNC", svc_dec_seed, h_async, svc_enc_seed),
	[P_FAIL] = { "FAIL", NULL, h_fail, NULL, 0, 0, false },
	[6] = SVC_PROC("COPY", svc_dec_args, h_copy, svc_enc_inline),
};

static const struct rpcrdma_svc_version vers[] = {
	{ 1, 7, procs },
	{ 2, 7, procs },
};

static void ddp_reply_done(void *arg, struct rpcrdma_svc_req *req, int status)
{
	if (req->proc != &procs[P_DDP] || !svc_res_ddp_put(rpcrdma_svc_req_res(req)))
		return;
	ddp_out--;
	ddp_done_ok += status == 0;
}

/* ------------------------------------------------------------ both ends */

static struct test_side cli, srv;
static struct rpcrdma_xprt_svc glue;
static struct rpcrdma_svc_registry *reg;

static void pump(void)
{
	test_side_pump_pair(&cli, &srv, svc_side_accept);
}

static bool pump_until(bool (*cond)(void *), void *arg)
{
	return test_side_until(pump, cond, arg, WAIT_MS);
}

static bool ddp_back(void *arg)
{
	return ddp_out == 0;
}

static bool established(void *arg)
{
	return test_side_in(&cli, RPCRDMA_XPRT_ESTABLISHED) &&
	       test_side_in(&srv, RPCRDMA_XPRT_ESTABLISHED);
}

static bool closed(void *arg)
{
	return test_side_in(&cli, RPCRDMA_XPRT_CLOSED) && test_side_in(&srv, RPCRDMA_XPRT_CLOSED);
}

/* The server has seen the loss and waits for its pending call. */
static bool srv_draining(void *arg)
{
	return rpcrdma_xprt_state(srv.xprt) == RPCRDMA_XPRT_DRAINING;
}

/* ------------------------------------------------------------ calls */

/* Send on the client connection, each call with a seed of its own. */
static void tcall_submit(struct svc_tcall *t)
{
	static uint32_t seed = 7;

	t->seed = seed++;
	svc_tcall_submit(t, cli.xprt, cli.pools);
}

/* One call, run to its reply; its accept_stat (or 100 + the reject_stat) or -1. */
static int run(struct svc_tcall *t)
{
	tcall_submit(t);
	CHECK(pump_until(svc_tcall_done, t), "call prog %#x vers %u proc %u answered", t->prog,
	      t->vers, t->proc);
	if (svc_tcall_outcome(t) < 0)
		return -1;
	CHECK(t->data_ok, "prog %#x proc %u reply data", t->prog, t->proc);
	return svc_tcall_outcome(t);
}

static void test_glue(void)
{
	struct rpcrdma_svc_stats ss;
	struct rpcrdma_svc_prog_stats ps;
	struct rpcrdma_xprt_stats xs;
	struct svc_tcall t, a[3];
	int r;

	/* NULL, and results inline, small and near the inline threshold */
	t = (struct svc_tcall){ .prog = PROG, .vers = 1, .proc = 0, .no_args = true };
	CHECK(run(&t) == RPCRDMA_RPC_SUCCESS, "NULL");
	t = (struct svc_tcall){ .prog = PROG, .vers = 2, .proc = P_INLINE, .len = 100 };
	CHECK(run(&t) == RPCRDMA_RPC_SUCCESS, "inline 100");
	t = (struct svc_tcall){ .prog = PROG, .vers = 1, .proc = P_INLINE, .len = 3001 };
	CHECK(run(&t) == RPCRDMA_RPC_SUCCESS, "inline 3001");

	/* results through write chunks (DDP) of 4 KiB and 200 KiB, and inline without one */
	t = (struct svc_tcall){
		.prog = PROG, .vers = 1, .proc = P_DDP, .len = 4096, .chunk = true
	};
	CHECK(run(&t) == RPCRDMA_RPC_SUCCESS, "ddp 4096");
	t = (struct svc_tcall){
		.prog = PROG, .vers = 1, .proc = P_DDP, .len = 200000, .chunk = true
	};
	CHECK(run(&t) == RPCRDMA_RPC_SUCCESS, "ddp 200000");
	t = (struct svc_tcall){ .prog = PROG, .vers = 1, .proc = P_DDP, .len = 500 };
	CHECK(run(&t) == RPCRDMA_RPC_SUCCESS, "ddp 500 inline");
	/* back when each reply's Send retires, which the server may see after the client's reply */
	CHECK(pump_until(ddp_back, NULL) && ddp_done_ok == 3,
	      "result buffers back after the replies: %u, %u", ddp_out, ddp_done_ok);
	rpcrdma_xprt_stats(srv.xprt, &xs);
	CHECK(xs.write_bytes >= 204096, "RDMA Writes carried the results: %lu",
	      (unsigned long)xs.write_bytes);

	/* asynchronous: three calls pending, completed out of order, later */
	for (int i = 0; i < 3; i++) {
		a[i] = (struct svc_tcall){ .prog = PROG, .vers = 1, .proc = P_ASYNC };
		tcall_submit(&a[i]);
	}
	for (int i = 0; i < 200; i++)
		pump();
	CHECK(npending == 3 && !a[0].done && !a[1].done && !a[2].done,
	      "three calls pending (%u), none answered", npending);
	rpcrdma_svc_complete(pending[2], RPCRDMA_SVC_OK);
	rpcrdma_svc_complete(pending[0], RPCRDMA_SVC_OK);
	CHECK(pump_until(svc_tcall_done, &a[2]) && pump_until(svc_tcall_done, &a[0]), "completed");
	CHECK(!a[1].done, "the third still pending");
	rpcrdma_svc_complete(pending[1], -EIO);
	CHECK(pump_until(svc_tcall_done, &a[1]), "completed with an error");
	for (int i = 0; i < 3; i++)
		CHECK(a[i].status == 0 && a[i].data_ok, "async %d", i);
	CHECK(a[0].rep.reply.accept_stat == RPCRDMA_RPC_SUCCESS &&
		      a[2].rep.reply.accept_stat == RPCRDMA_RPC_SUCCESS,
	      "async success");
	CHECK(a[1].rep.reply.accept_stat == RPCRDMA_RPC_SYSTEM_ERR, "async failure: SYSTEM_ERR");
	CHECK(glue.st.pending == 3, "glue pending %lu", (unsigned long)glue.st.pending);

	/* every RPC-level error, as the caller sees it */
	t = (struct svc_tcall){ .prog = PROG_NONE, .vers = 1, .proc = 1 };
	CHECK(run(&t) == RPCRDMA_RPC_PROG_UNAVAIL, "PROG_UNAVAIL");
	t = (struct svc_tcall){ .prog = PROG, .vers = 7, .proc = 1 };
	r = run(&t);
	CHECK(r == RPCRDMA_RPC_PROG_MISMATCH && t.rep.reply.low == 1 && t.rep.reply.high == 2,
	      "PROG_MISMATCH 1..2: %d %u..%u", r, t.rep.reply.low, t.rep.reply.high);
	t = (struct svc_tcall){ .prog = PROG, .vers = 1, .proc = P_HOLE };
	CHECK(run(&t) == RPCRDMA_RPC_PROC_UNAVAIL, "PROC_UNAVAIL (hole)");
	t = (struct svc_tcall){ .prog = PROG, .vers = 1, .proc = 200 };
	CHECK(run(&t) == RPCRDMA_RPC_PROC_UNAVAIL, "PROC_UNAVAIL (past the table)");
	t = (struct svc_tcall){ .prog = PROG, .vers = 1, .proc = P_INLINE, .no_args = true };
	CHECK(run(&t) == RPCRDMA_RPC_GARBAGE_ARGS, "GARBAGE_ARGS");
	t = (struct svc_tcall){ .prog = PROG, .vers = 1, .proc = P_FAIL };
	CHECK(run(&t) == RPCRDMA_RPC_SYSTEM_ERR, "SYSTEM_ERR");
	t = (struct svc_tcall){ .prog = PROG_SYS, .vers = 1, .proc = 6, .len = 8 };
	r = run(&t);
	CHECK(r == 100 + RPCRDMA_RPC_AUTH_ERROR &&
		      t.rep.reply.auth_stat == RPCRDMA_RPC_AUTH_TOOWEAK,
	      "AUTH_ERROR AUTH_TOOWEAK: %d %u", r, t.rep.reply.auth_stat);
	t = (struct svc_tcall){ .prog = PROG, .vers = 1, .proc = P_INLINE, .len = 8, .flavor = 99 };
	r = run(&t);
	CHECK(r == 100 + RPCRDMA_RPC_AUTH_ERROR &&
		      t.rep.reply.auth_stat == RPCRDMA_RPC_AUTH_BADCRED,
	      "AUTH_ERROR AUTH_BADCRED: %d %u", r, t.rep.reply.auth_stat);
	t = (struct svc_tcall){ .rpcvers = 3, .prog = PROG, .vers = 1, .proc = 1 };
	r = run(&t);
	CHECK(r == 100 + RPCRDMA_RPC_RPC_MISMATCH && t.rep.reply.low == 2 && t.rep.reply.high == 2,
	      "RPC_MISMATCH 2..2: %d", r);

	/* the dispatcher's and the glue's counters agree with what was sent */
	rpcrdma_svc_stats(reg, &ss);
	CHECK(ss.calls == 18 && ss.prog_unavail == 1 && ss.auth_badcred == 1 &&
		      ss.rpc_mismatch == 1 && ss.dropped == 0,
	      "registry: calls %lu", (unsigned long)ss.calls);
	CHECK(rpcrdma_svc_prog_stats(reg, PROG, &ps) == 0 && ps.prog_mismatch == 1 &&
		      ps.proc_unavail == 2,
	      "program counters");
	CHECK(glue.st.calls == 18 && glue.st.replies == 18 && glue.st.unanswered == 0 &&
		      glue.st.no_buffer == 0 && glue.st.reply_fails == 0,
	      "glue: calls %lu replies %lu", (unsigned long)glue.st.calls,
	      (unsigned long)glue.st.replies);
}

/* A call pending when the connection goes: completing it later gives its buffers back. */
static void test_pending_loss(void)
{
	struct svc_tcall t = { .prog = PROG, .vers = 1, .proc = P_ASYNC };

	npending = 0;
	tcall_submit(&t);
	for (int i = 0; i < 200 && npending == 0; i++)
		pump();
	CHECK(npending == 1, "pending");
	CHECK(rpcrdma_xprt_disconnect(cli.xprt) == 0, "disconnect");
	/* bounded by time: over verbs the loss takes the device's time to show */
	CHECK(pump_until(svc_tcall_done, &t) && t.status == -ECONNRESET, "the call failed: %d",
	      t.status);
	/* the client learns of its own disconnect first; over verbs the server's event follows */
	CHECK(pump_until(srv_draining, NULL), "the server waits for its pending call");
	rpcrdma_svc_complete(pending[0], RPCRDMA_SVC_OK);
	CHECK(pump_until(closed, NULL), "both closed");
	CHECK(glue.st.reply_fails == 1, "the late reply was refused");
}

int main(int argc, char **argv)
{
	struct rpcrdma_svc_params sp;
	struct rpcrdma_svc_program prog = {
		.name = "glue", .prog = PROG, .nvers = 2, .vers = vers
	};
	struct rpcrdma_svc_program prog_sys = { .name = "sys",
						.prog = PROG_SYS,
						.flags = RPCRDMA_SVC_F_AUTH_SYS,
						.nvers = 1,
						.vers = vers };
	char addr[64];
	int ret;

	ret = rpcrdma_mempool_eal_init(argv[0], NULL);
	if (ret < 0) {
		fprintf(stderr, "EAL: %s\n", strerror(-ret));
		return 1;
	}
	/* slot 12: test_xprt's parts take 0..11 */
	ret = test_side_env(12);
	if (ret != 0)
		return ret;
	if (!test_side_shm())
		wait_ms = 60000;
	rpcrdma_svc_params_init(&sp);
	CHECK(rpcrdma_svc_registry_create(&sp, &reg) == 0, "registry");
	CHECK(rpcrdma_svc_register(reg, &prog) == 0 && rpcrdma_svc_register(reg, &prog_sys) == 0,
	      "register");
	rpcrdma_xprt_svc_init(&glue, reg, 0);
	glue.reply_done = ddp_reply_done;
	/* what the call driver checks a success for; 6 is COPY */
	svc_proc_res[P_INLINE] = svc_proc_res[6] = SVC_RES_INLINE;
	svc_proc_res[P_DDP] = SVC_RES_DDP;
	svc_proc_res[P_ASYNC] = SVC_RES_SEED;
	if (svc_side_open(&cli, "gc") || svc_side_open(&srv, "gs")) {
		fprintf(stderr, "devices and pools\n");
		return 1;
	}
	srv_pools = srv.pools;
	test_side_addr(addr, sizeof(addr), "xsvc");
	CHECK(rpcrdma_pmd_listen(srv.dev, addr, &srv.listener) == 0, "listen");
	test_side_params(&cli, RPCRDMA_XPRT_CLIENT);
	test_side_params(&srv, RPCRDMA_XPRT_SERVER);
	rpcrdma_xprt_svc_bind(&glue, &srv.params);
	CHECK(rpcrdma_xprt_create(&cli.params, &cli.xprt) == 0, "create");
	CHECK(rpcrdma_xprt_connect(cli.xprt, addr) == 0, "connect");
	if (!pump_until(established, NULL)) {
		CHECK(0, "established");
		return 1;
	}
	test_glue();
	test_pending_loss();
	CHECK(rpcrdma_xprt_destroy(cli.xprt) == 0 && rpcrdma_xprt_destroy(srv.xprt) == 0,
	      "destroy");
	CHECK(test_side_destroy(&cli) == 0 && test_side_destroy(&srv) == 0,
	      "every buffer back, closed");
	rpcrdma_svc_registry_free(reg);
	return test_side_summary("test_xprt_svc", test_checks, test_failures);
}

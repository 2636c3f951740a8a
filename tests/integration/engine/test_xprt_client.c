/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_xprt client: the requester's API. Call timeouts (rfc5666bis 4.3: a
 * call timed out after its Send keeps its credit until its late reply, and
 * the client disconnects when such calls hold the whole grant); calls
 * submitted without a callback and polled; rpcrdma_xprt_reply_rpc() and
 * every RPC outcome.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rpcrdma_errno.h>

#include "test_xprt.h"

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
void test_timeout(void)
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

void test_polling(void)
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
void test_reply_rpc(void)
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

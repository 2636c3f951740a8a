/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_xprt backward: backward-direction calls (RFC 8167) in versions 1
 * (inline only, RFC 8167 2.5) and 2 (with chunks): forward and backward
 * calls in flight together within both windows, calls refused locally to a
 * client not ready, calls lost with their connection sent again after the
 * reconnect with their XIDs.
 */
#include <errno.h>
#include <string.h>

#include <rpcrdma/rpcrdma_hdr.h>

#include "test_xprt.h"

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
	struct tcall t[32];
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

static void bk_load_run_n(struct env *e, const char *what, uint32_t bk, uint32_t fwd_n)
{
	static struct bk_load l;
	struct rpcrdma_xprt_stats ss;

	memset(&l, 0, sizeof(l));
	l.fwd.n = fwd_n;
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

static void bk_load_run(struct env *e, const char *what, uint32_t bk)
{
	bk_load_run_n(e, what, bk, 16);
}

void test_backward_v1(void)
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

void test_backward_v2(void)
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
void test_backward_loss(void)
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

/*
 * A server in a poll group with backward calls: its grant is its share of
 * the group's receives less the receives kept for its backward replies,
 * and with the forward window full (as many calls in flight as granted)
 * and the backward window full, every message finds a receive reserved
 * for it (none over the grant, none refused a reservation). Then the same
 * with the client's backward service in a group.
 */
void test_backward_group(void)
{
	struct rpcrdma_xprt_group_stats gs;
	struct rpcrdma_xprt_info si, ci;
	struct tcall t;
	struct env e;

	set_vers(RPCRDMA_VERS_1, RPCRDMA_VERS_1, RPCRDMA_VERS_1);
	if (!env_open(&e, NULL, NULL)) {
		env_close(&e);
		return;
	}
	CHECK(env_group(&e, &e.srv, 32, 0), "the server's poll group");
	e.srv.params.group = e.grp;
	cli_backward(&e, 4);
	e.srv.params.bk_credits = 8;
	if (e.grp == NULL || !env_connect(&e)) {
		env_close(&e);
		return;
	}
	memset(&t, 0, sizeof(t));
	CHECK(run_call(&e, &t) && t.status == 0, "a forward call");
	rpcrdma_xprt_info(e.srv.xprt, &si);
	rpcrdma_xprt_info(e.cli.xprt, &ci);
	rpcrdma_xprt_group_stats(e.grp, &gs);
	CHECK(rpcrdma_xprt_group_of(e.srv.xprt) == e.grp && gs.share == 32 - 8 &&
		      ci.grant == gs.share,
	      "grant: the group's 32 receives less the server's 8 backward: share %u, client "
	      "sees %u",
	      gs.share, ci.grant);
	CHECK(rpcrdma_xprt_bc_set_ready(e.srv.xprt, true) == 0, "set ready");
	memset(&t, 0, sizeof(t));
	CHECK(run_bcall(&e, &t) && t.status == 0 && t.ok, "a backward call: %d", t.status);
	bk_load_run_n(&e, "in a poll group", 4, ci.grant);
	rpcrdma_xprt_group_stats(e.grp, &gs);
	CHECK(sctx.max_active == ci.grant, "the forward window was full: %u of %u", sctx.max_active,
	      ci.grant);
	CHECK(gs.unreserved == 0 && gs.reserve_short == 0,
	      "every message found its receive reserved: %lu unreserved, %lu refused",
	      (unsigned long)gs.unreserved, (unsigned long)gs.reserve_short);
	/* four backward calls out, their replies not yet come: a receive reserved for each */
	{
		static struct tcall b[4];
		bool sent = true;

		for (uint32_t i = 0; i < 4; i++) {
			memset(&b[i], 0, sizeof(b[i]));
			sent &= tcall_submit_on(&e.srv, &b[i]) == 0;
		}
		rpcrdma_xprt_poll(
			e.srv.xprt); /* the server alone: the client answers nothing yet */
		rpcrdma_xprt_info(e.srv.xprt, &si);
		CHECK(sent && si.recvs_posted >= ci.grant + 4,
		      "the grant's receives and one for each backward reply: %u reserved, want %u",
		      si.recvs_posted, ci.grant + 4);
		for (uint32_t i = 0; i < 4; i++)
			CHECK(pump_until(&e, tcall_done, &b[i]) && b[i].status == 0,
			      "backward call %u answered: %d", i, b[i].status);
	}
	env_close(&e);

	/*
	 * A client's backward service in a poll group: it reserves a receive
	 * for each backward call it grants, as well as for its calls out, and
	 * its bk_credits are kept out of the group's grants; with both
	 * windows full every message finds its receive reserved.
	 */
	if (env_open(&e, NULL, NULL)) {
		/* the client's group, with receives for its calls out and backward credits */
		CHECK(env_group(&e, &e.cli, 64, 0), "a client group");
		cli_backward(&e, 4);
		e.cli.params.group = e.grp;
		e.srv.params.bk_credits = 8;
	}
	if (e.grp != NULL && env_connect(&e)) {
		CHECK(rpcrdma_xprt_group_of(e.cli.xprt) == e.grp, "the client is in the group");
		memset(&t, 0, sizeof(t));
		CHECK(run_call(&e, &t) && t.status == 0, "a forward call from the group");
		CHECK(rpcrdma_xprt_bc_set_ready(e.srv.xprt, true) == 0, "set ready");
		memset(&t, 0, sizeof(t));
		CHECK(run_bcall(&e, &t) && t.status == 0 && t.ok,
		      "a backward call to the group's client: %d", t.status);
		rpcrdma_xprt_info(e.cli.xprt, &ci);
		CHECK(ci.recvs_posted >= 1 + 4,
		      "idle, the client keeps one receive for a message unasked and one for each "
		      "backward call it grants: %u reserved, want 5",
		      ci.recvs_posted);
		rpcrdma_xprt_group_stats(e.grp, &gs);
		CHECK(gs.share == 64 - 4,
		      "the client's 4 backward credits are out of the grants: %u", gs.share);
		bk_load_run_n(&e, "client in a poll group", 4, ci.grant);
		rpcrdma_xprt_group_stats(e.grp, &gs);
		CHECK(bctx.max_active == 4, "the backward window was full: %u of 4",
		      bctx.max_active);
		CHECK(gs.unreserved == 0 && gs.reserve_short == 0,
		      "every message found its receive reserved: %lu unreserved, %lu refused",
		      (unsigned long)gs.unreserved, (unsigned long)gs.reserve_short);
	}
	env_close(&e);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_xprt loss: connection loss in each phase of a call (shm's fault
 * injection devargs, and losses every PMD produces): no call left hanging,
 * every registration invalidated, pools back to full, a RETRANSMIT call
 * sent again with the same XID, a call the server already ran completing
 * once; the client reconnecting by itself and giving up after its attempts.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "test_xprt.h"

#define SHM_FAULTS "shm devargs inject the fault (fail_wr, drop_after_sends)"

struct loss_case {
	const char *name;
	const char *cli_devargs;
	const char *srv_devargs;
	struct tcall t;
	bool may_succeed; /* the reply may have arrived before the loss */
};

void test_loss(void)
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
void test_loss_peer(void)
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
void test_reconnect(void)
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

void test_faults(void)
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

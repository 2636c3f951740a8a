/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_xprt credits (and v2forms, both ends in version 2): 10,000
 * pipelined calls against a grant changed mid-run (rfc5666bis 4.3: never
 * more calls out than granted); the requester's window seen from a bare
 * server granting 0, 1 and 3 (test_grants, in credits only); a client in
 * a poll group with fewer receives than calls (test_group_reserve); and
 * Sends unsignaled but one in 16, retired by the drain.
 */
#include <stdio.h>
#include <string.h>

#include <rpcrdma/rpcrdma_hdr.h>

#include "test_xprt.h"

#define PIPE_CALLS 10000
#define PIPE_DEPTH 16

void test_credits(void)
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

#define RESERVE_CALLS 16
#define RESERVE_RECVS 2

static bool reserve_calls_done(struct env *e, void *arg)
{
	const struct tcall *ts = arg;

	(void)e;
	for (uint32_t i = 0; i < RESERVE_CALLS; i++)
		if (!ts[i].done)
			return false;
	return true;
}

/*
 * A client in a poll group whose receives are fewer than the calls it is
 * granted: a call goes out only with a receive of the SRQ reserved for
 * its reply, so at most the floor and the group's receives are out at
 * once, the others wait (reserve_stalls), no reply comes unreserved, and
 * every call completes.
 */
void test_group_reserve(void)
{
	static struct tcall ts[RESERVE_CALLS];
	struct rpcrdma_xprt_group_stats gs;
	struct rpcrdma_xprt_info ci;
	struct rpcrdma_xprt_stats cs;
	uint32_t i, ok = 0, max_out = 0;
	bool sent = true;
	uint64_t end;
	struct env e;

	if (!env_open(&e, NULL, NULL))
		return;
	srv_params(&e, 32, 32);
	CHECK(env_group(&e, &e.cli, RESERVE_RECVS, 0), "a client group of %u receives",
	      RESERVE_RECVS);
	e.cli.params.group = e.grp;
	if (e.grp == NULL || !env_connect(&e)) {
		env_close(&e);
		return;
	}
	/* the first reply brings the grant of 32 */
	memset(&ts[0], 0, sizeof(ts[0]));
	ts[0].proc = PROC_NULL;
	CHECK(run_call(&e, &ts[0]) && ts[0].status == 0, "a first call");
	rpcrdma_xprt_info(e.cli.xprt, &ci);
	CHECK(ci.grant >= RESERVE_CALLS, "granted %u, more than the group's receives", ci.grant);
	for (i = 0; i < RESERVE_CALLS; i++) {
		memset(&ts[i], 0, sizeof(ts[i]));
		ts[i].proc = PROC_NULL;
		sent &= tcall_submit(&e, &ts[i]) == 0;
	}
	CHECK(sent, "%u calls submitted at once", RESERVE_CALLS);
	end = test_now_ms() + WAIT_MS;
	while (!reserve_calls_done(&e, ts) && test_now_ms() < end) {
		pump_once(&e);
		rpcrdma_xprt_info(e.cli.xprt, &ci);
		if (ci.outstanding > max_out)
			max_out = ci.outstanding;
	}
	for (i = 0; i < RESERVE_CALLS; i++)
		ok += ts[i].done && ts[i].status == 0 && ts[i].ok;
	CHECK(ok == RESERVE_CALLS, "every call answered: %u of %u", ok, RESERVE_CALLS);
	CHECK(max_out >= 2 && max_out <= 1 + RESERVE_RECVS,
	      "out at once: the floor and the group's %u receives at most: %u", RESERVE_RECVS,
	      max_out);
	stats(&e.cli, &cs);
	rpcrdma_xprt_group_stats(e.grp, &gs);
	CHECK(cs.reserve_stalls > 0, "calls waited for a receive: %lu",
	      (unsigned long)cs.reserve_stalls);
	CHECK(gs.unreserved == 0, "every reply found its receive reserved: %lu unreserved",
	      (unsigned long)gs.unreserved);
	printf("group reserve: %u calls, at most %u out on %u receives, %lu reserve stalls\n", ok,
	       max_out, RESERVE_RECVS, (unsigned long)cs.reserve_stalls);
	env_close(&e);
}

/*
 * Send-queue WRs are unsignaled but one in 16: each end's CQ sees one Send
 * completion per 16 calls next to one receive completion per call; replies
 * go before their call's receive is reposted and still grant the full
 * target; a disconnect with unsignaled Sends not retired drains (the
 * marker) and gives every buffer back.
 */
void test_unsignaled(void)
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
void test_grants(void)
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

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poll groups (rpcrdma_xprt.h "Poll groups") end to end over a PMD (shm, or
 * verbs from the environment: test_side.h): a server group accepting every
 * client into one CQ and one SRQ, client connections in a group of their
 * own, both polled by this thread, the calls answered through the dispatch
 * glue (svc_test_prog.h) and checked.
 *
 *   params:  the checks of rpcrdma_xprt_group_create(), a group with
 *            connections refuses to go, a connection that cannot join;
 *   many:    NCONN connections at once: every one established, its grant
 *            the group's share (rfc5666bis 4.3: never 0, never more than
 *            the SRQ holds), a call on each in turn sharing one message
 *            buffer, calls inline and through write chunks on all of
 *            them, a burst on one connection never past its grant;
 *   idle:    an idle group's poll visits no connection, whatever their
 *            number;
 *   churn:   half the clients leave, the share grows and the grant the
 *            clients see follows; new clients join while the group runs;
 *            a connection over max_conns is refused;
 *   memory:  what a connection holds in a group and alone.
 *
 * With the argument "v2" the connections speak version 2: every one
 * settles it and exchanges its transport characteristics (each side's
 * ROPT_INITXCH first) through the group's shared control slots, which
 * leave a connection's memory as in version 1. With "shared" the clients'
 * group shares SHARED_CALLS call slots (group params calls): every case
 * runs on them, and slots checks that a call takes the slot freed last
 * whatever its connection, that a connection takes at most its
 * max_calls, and that the group refuses a call when all are in use.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_svc.h>
#include <rpcrdma/rpcrdma_xprt.h>
#include <rpcrdma/rpcrdma_xprt_svc.h>

#include "svc_test_prog.h"
#include "test_check.h"
#include "test_side.h"

#define PROG	     0x20000102u
#define P_INLINE     1
#define P_DDP	     2
#define NCONN	     40 /* clients at once */
#define MAXCONN	     (NCONN + 8)
#define RECVS	     256 /* the server group's SRQ: a share of 6 for 40 */
#define NCALLS	     (2 * NCONN)
#define SHARED_CALLS 128 /* "shared": the clients' call slots, two connections' max_calls */

static uint64_t wait_ms = 10000;
static bool v2;	    /* argv[1] "v2": every connection in version 2 */
static bool shared; /* argv[1] "shared": the clients share SHARED_CALLS call slots */

static struct test_side cli, srv;
static struct rpcrdma_xprt_group *cg, *sg;
static struct rpcrdma_xprt *cx[MAXCONN + 1], *sx[MAXCONN + 1];
static unsigned int nsx, refused;
static struct rpcrdma_xprt_svc glue;
static struct rpcrdma_svc_registry *reg;
static struct svc_tcall calls[NCALLS];
static char addr[64];
static struct rpcrdma_xprt_info alone; /* a client connection outside any group */

/* ------------------------------------------------------------ the program */

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
	return svc_res_ddp_fill(r, srv.pools, a) != 0 ? -ENOMEM : RPCRDMA_SVC_OK;
}

static const struct rpcrdma_svc_proc procs[] = {
	[P_INLINE] = SVC_PROC("INLINE", svc_dec_args, h_copy, svc_enc_inline),
	[P_DDP] = SVC_PROC("DDP", svc_dec_args, h_ddp, svc_enc_ddp),
};

static const struct rpcrdma_svc_version vers[] = { { 1, 3, procs } };

static void ddp_reply_done(void *arg, struct rpcrdma_svc_req *req, int status)
{
	if (req->proc == &procs[P_DDP])
		svc_res_ddp_put(rpcrdma_svc_req_res(req));
}

/* ------------------------------------------------------------ both ends */

/* The server's events: every connect request into the server group. */
static void srv_events(void)
{
	struct rpcrdma_pmd_event ev[8];
	int n = rpcrdma_pmd_event_poll(srv.dev, ev, 8);

	for (int i = 0; i < n; i++) {
		if (ev[i].type != RPCRDMA_PMD_EVENT_CONNECT_REQUEST) {
			rpcrdma_xprt_event(&ev[i]);
			continue;
		}
		if (nsx < MAXCONN + 1 && rpcrdma_xprt_accept(&srv.params, &ev[i], &sx[nsx]) == 0)
			nsx++;
		else
			refused++; /* rejected by rpcrdma_xprt_accept() */
	}
}

static void pump(void)
{
	struct rpcrdma_pmd_event ev[8];
	int n = rpcrdma_pmd_event_poll(cli.dev, ev, 8);

	for (int i = 0; i < n; i++)
		rpcrdma_xprt_event(&ev[i]);
	srv_events();
	rpcrdma_xprt_group_poll(cg);
	rpcrdma_xprt_group_poll(sg);
}

static bool pump_until(bool (*cond)(void *), void *arg)
{
	return test_side_until(pump, cond, arg, wait_ms);
}

/* Connections [from, to) of the clients in @p arg's state. */
struct range {
	unsigned int from, to;
	enum rpcrdma_xprt_state st;
};

static bool clients_in(void *arg)
{
	const struct range *r = arg;

	for (unsigned int i = r->from; i < r->to; i++)
		if (cx[i] == NULL || rpcrdma_xprt_state(cx[i]) != r->st)
			return false;
	return true;
}

static bool servers_settled(void *arg)
{
	unsigned int want = *(const unsigned int *)arg, est = 0;

	for (unsigned int i = 0; i < nsx; i++)
		est += rpcrdma_xprt_state(sx[i]) == RPCRDMA_XPRT_ESTABLISHED;
	return est == want;
}

static bool calls_done(void *arg)
{
	return svc_tcalls_done(calls, *(const unsigned int *)arg);
}

/*
 * With reap_kick, a connection about to be destroyed is first given work
 * for its group's next poll (rpcrdma_xprt_set_credits() pends it): the
 * group must forget it when it leaves (under ASan, a use after free if not).
 */
static bool reap_kick;
static unsigned int reap_kicked;

/* Destroy the server connections that are closed; keep the others in order. */
static unsigned int reap_servers(void)
{
	unsigned int k = 0, gone = 0;

	for (unsigned int i = 0; i < nsx; i++) {
		enum rpcrdma_xprt_state st = rpcrdma_xprt_state(sx[i]);
		bool closed = st == RPCRDMA_XPRT_CLOSED || st == RPCRDMA_XPRT_ERROR;

		if (closed && reap_kick) {
			rpcrdma_xprt_set_credits(sx[i], 1);
			reap_kicked++;
		}
		if (closed && rpcrdma_xprt_destroy(sx[i]) == 0) {
			gone++;
			continue;
		}
		sx[k++] = sx[i];
	}
	nsx = k;
	return gone;
}

static bool connect_clients(unsigned int from, unsigned int to)
{
	struct range r = { from, to, RPCRDMA_XPRT_ESTABLISHED };
	unsigned int want;

	for (unsigned int i = from; i < to; i++) {
		CHECK(rpcrdma_xprt_create(&cli.params, &cx[i]) == 0, "client %u created", i);
		CHECK(rpcrdma_xprt_connect(cx[i], addr) == 0, "client %u connects", i);
	}
	want = nsx + (to - from);
	return pump_until(clients_in, &r) && pump_until(servers_settled, &want);
}

/* Send a call on each connection in [from, to), @p rounds times, and check every reply. */
static void call_all(unsigned int from, unsigned int to, unsigned int rounds)
{
	unsigned int n = 0;

	for (unsigned int k = 0; k < rounds; k++)
		for (unsigned int i = from; i < to && n < NCALLS; i++) {
			bool ddp = (i + k) % 4 == 0;

			calls[n] = (struct svc_tcall){ .prog = PROG,
						       .vers = 1,
						       .proc = ddp ? P_DDP : P_INLINE,
						       .len = ddp ? 8192 : 100 + i,
						       .chunk = ddp };
			calls[n].seed = 1000 * k + i;
			svc_tcall_submit(&calls[n++], cx[i], cli.pools);
		}
	CHECK(pump_until(calls_done, &n), "%u calls on connections %u..%u answered", n, from,
	      to - 1);
	for (unsigned int i = 0; i < n; i++)
		CHECK(calls[i].status == 0 && svc_tcall_outcome(&calls[i]) == RPCRDMA_RPC_SUCCESS &&
			      calls[i].data_ok,
		      "call %u: status %d, outcome %d, data %d", i, calls[i].status,
		      svc_tcall_outcome(&calls[i]), calls[i].data_ok);
}

/*
 * One call at a time, each on the next connection, on connections that
 * have made none: the group's calls share their message buffers (the one
 * released last goes next), so the round takes one or two of the
 * clients' inline buffers, where a buffer kept by each connection's slot
 * would take one per connection.
 */
static void seq_calls(void)
{
	uint32_t before = cli.pools->inline_pool->in_use, after, slot = 0;
	unsigned int ok = 0, same = 0;

	for (unsigned int i = 0; i < NCONN; i++) {
		unsigned int one = 1;

		calls[0] =
			(struct svc_tcall){ .prog = PROG, .vers = 1, .proc = P_INLINE, .len = 48 };
		calls[0].seed = 500 + i;
		svc_tcall_submit(&calls[0], cx[i], cli.pools);
		ok += pump_until(calls_done, &one) && calls[0].status == 0 &&
		      svc_tcall_outcome(&calls[0]) == RPCRDMA_RPC_SUCCESS && calls[0].data_ok;
		/* a call's XID ends in its slot's index: one slot for all, when shared */
		if (i == 0)
			slot = calls[0].xid & (SHARED_CALLS - 1);
		same += (calls[0].xid & (SHARED_CALLS - 1)) == slot;
	}
	if (shared)
		CHECK(same == NCONN, "one slot of the group's served every connection: %u of %u",
		      same, NCONN);
	after = cli.pools->inline_pool->in_use;
	printf("buffers: %u calls one at a time over %u connections took %u of the inline "
	       "buffers\n",
	       NCONN, NCONN, after - before);
	CHECK(ok == NCONN, "%u calls one at a time, one per connection: %u answered", NCONN, ok);
	CHECK(after - before <= 2,
	      "they took %u of the clients' inline buffers (at most 2, not one per connection)",
	      after - before);
}

/*
 * "shared": a connection takes at most its max_calls of the group's slots,
 * and when all are in use the group refuses (-EBUSY, slots_short); every
 * slot comes back.
 */
static void test_slots(void)
{
	static struct rpcrdma_xprt_call *held[SHARED_CALLS + 1];
	uint32_t max = cli.params.max_calls, n = 0, k;
	struct rpcrdma_xprt_group_stats gs;
	struct rpcrdma_xprt_call *c = NULL;

	rpcrdma_xprt_group_stats(cg, &gs);
	CHECK(gs.slots == SHARED_CALLS && gs.slots_busy == 0 && gs.slots_short == 0,
	      "the clients share %u slots, none in use: %u, %u busy, %u short", SHARED_CALLS,
	      gs.slots, gs.slots_busy, (unsigned int)gs.slots_short);
	for (k = 0; k < 2; k++) {
		uint32_t got = 0;

		while (n < SHARED_CALLS && rpcrdma_xprt_call_alloc(cx[k], &held[n]) == 0) {
			n++;
			got++;
		}
		CHECK(got == max, "connection %u took its max_calls %u: %u", k, max, got);
	}
	rpcrdma_xprt_group_stats(cg, &gs);
	CHECK(n == SHARED_CALLS && gs.slots_busy == SHARED_CALLS && gs.slots_short == 0,
	      "two connections hold every slot: %u, %u busy", n, gs.slots_busy);
	CHECK(rpcrdma_xprt_call_alloc(cx[2], &c) == -EBUSY && c == NULL,
	      "a third connection finds none: -EBUSY");
	rpcrdma_xprt_group_stats(cg, &gs);
	CHECK(gs.slots_short == 1, "counted in slots_short: %u", (unsigned int)gs.slots_short);
	for (k = 0; k < n; k++)
		CHECK(rpcrdma_xprt_call_release(held[k]) == 0, "slot %u back", k);
	rpcrdma_xprt_group_stats(cg, &gs);
	CHECK(gs.slots_busy == 0, "every slot back: %u busy", gs.slots_busy);
	CHECK(rpcrdma_xprt_call_alloc(cx[2], &c) == 0 && rpcrdma_xprt_call_release(c) == 0,
	      "and the third connection has one");
	printf("slots: %u shared, %u a connection at most, the %uth refused\n", SHARED_CALLS, max,
	       SHARED_CALLS + 1);
}

/* ------------------------------------------------------------ cases */

static void test_params(void)
{
	struct rpcrdma_xprt_group_params gp;
	struct rpcrdma_xprt_group_stats gs;
	struct rpcrdma_xprt_group *g = NULL;
	struct rpcrdma_xprt_params p;
	struct rpcrdma_xprt *x = NULL;

	rpcrdma_xprt_group_params_init(&gp);
	CHECK(gp.max_conns == 1024 && gp.recvs == 1024 && gp.sq_depth == 96 && gp.calls == 0,
	      "defaults");
	CHECK(rpcrdma_xprt_group_create(&gp, &g) == -EINVAL, "no device: -EINVAL");
	gp.dev = cli.dev;
	gp.pd = cli.pd;
	gp.pools = cli.pools;
	gp.max_conns = 0;
	CHECK(rpcrdma_xprt_group_create(&gp, &g) == -EINVAL, "no connection");
	gp.max_conns = 8;
	gp.recvs = 64;
	gp.sq_depth = 65;
	CHECK(rpcrdma_xprt_group_create(&gp, &g) == -EINVAL,
	      "a send queue without room for a reply");
	gp.sq_depth = 96;
	gp.calls = 65537;
	CHECK(rpcrdma_xprt_group_create(&gp, &g) == -EINVAL && g == NULL,
	      "more than 65536 shared call slots: -EINVAL");
	gp.calls = 0;
	gp.max_conns = 1u << 20;
	gp.recvs = 1u << 20;
	CHECK(rpcrdma_xprt_group_create(&gp, &g) == -E2BIG, "a CQ past the device's max_cqe");
	gp.max_conns = 1;
	gp.recvs = 8;
	CHECK(rpcrdma_xprt_group_create(&gp, &g) == 0 && g != NULL, "a group of one");
	if (g == NULL)
		return;
	p = cli.params;
	p.group = g;
	rpcrdma_xprt_group_stats(g, &gs);
	CHECK(gs.srq_posted == 0, "nothing posted before a connection joins: %u", gs.srq_posted);
	CHECK(rpcrdma_xprt_create(&p, &x) == 0, "a client joins");
	CHECK(rpcrdma_xprt_group_of(x) == g, "its group");
	/*
	 * The SRQ is full once a connection joins, before the group's first
	 * poll: the peer's first message finds a receive even where a Send
	 * without one ends the connection (iWARP: no RNR retry). Filled only
	 * by the poll, a server's first connection could lose its first call.
	 */
	rpcrdma_xprt_group_stats(g, &gs);
	CHECK(gs.srq_posted > gs.reserved && gs.srq_posted >= 8,
	      "the SRQ filled at the join, before any poll: %u posted, %u reserved", gs.srq_posted,
	      gs.reserved);
	{
		struct rpcrdma_xprt *y = NULL;

		CHECK(rpcrdma_xprt_create(&p, &y) == -ENOSPC && y == NULL, "max_conns 1: full");
	}
	CHECK(rpcrdma_xprt_group_destroy(g) == -EBUSY, "a group with a connection stays");
	CHECK(rpcrdma_xprt_destroy(x) == 0, "the client leaves");
	CHECK(rpcrdma_xprt_group_destroy(g) == 0, "an empty group goes");
}

static void test_many(void)
{
	struct rpcrdma_xprt_group_stats gs;
	struct rpcrdma_xprt_info xi;
	struct rpcrdma_xprt_stats st;
	unsigned int n, share = RECVS / NCONN;

	CHECK(connect_clients(0, NCONN), "%u clients established", NCONN);
	CHECK(nsx == NCONN && refused == 0, "%u accepted into the group", nsx);
	rpcrdma_xprt_group_stats(sg, &gs);
	CHECK(gs.conns == NCONN && gs.share == share, "share %u for %u connections: %u", share,
	      gs.conns, gs.share);
	for (unsigned int i = 0; i < nsx; i++) {
		rpcrdma_xprt_info(sx[i], &xi);
		CHECK(xi.grant == share && xi.recvs_posted >= 1 && xi.recvs_posted <= share,
		      "server %u: grant %u, %u receives reserved", i, xi.grant, xi.recvs_posted);
	}
	CHECK(gs.reserved <= RECVS && gs.srq_posted > gs.reserved,
	      "the SRQ holds every reservation: %u posted, %u reserved", gs.srq_posted,
	      gs.reserved);
	/* prefetching a connection (the three steps) changes nothing of it; NULL is ignored */
	rpcrdma_xprt_prefetch(NULL);
	rpcrdma_xprt_prefetch_call(NULL);
	rpcrdma_xprt_prefetch_send(NULL);
	for (unsigned int i = 0; i < NCONN; i++) {
		struct rpcrdma_xprt_info before, after;

		memset(&before, 0, sizeof(before));
		memset(&after, 0, sizeof(after));
		rpcrdma_xprt_info(cx[i], &before);
		rpcrdma_xprt_prefetch(cx[i]);
		rpcrdma_xprt_prefetch_call(cx[i]);
		rpcrdma_xprt_prefetch_send(cx[i]);
		rpcrdma_xprt_info(cx[i], &after);
		CHECK(memcmp(&before, &after, sizeof(before)) == 0,
		      "client %u: the same after its prefetch", i);
	}
	seq_calls();
	if (shared)
		test_slots();
	call_all(0, NCONN, 2);
	/* each client now has the share as its grant, from its replies */
	for (unsigned int i = 0; i < NCONN; i++) {
		rpcrdma_xprt_info(cx[i], &xi);
		CHECK(xi.grant == share, "client %u sees grant %u: %u", i, share, xi.grant);
	}
	/* a burst on one connection: never more out than the grant */
	n = 0;
	for (unsigned int k = 0; k < 3 * share && n < NCALLS; k++) {
		calls[n] =
			(struct svc_tcall){ .prog = PROG, .vers = 1, .proc = P_INLINE, .len = 64 };
		calls[n].seed = 7 + k;
		svc_tcall_submit(&calls[n++], cx[0], cli.pools);
	}
	CHECK(pump_until(calls_done, &n), "a burst of %u on one connection answered", n);
	rpcrdma_xprt_stats(cx[0], &st);
	CHECK(st.max_outstanding == share && st.credit_stalls > 0,
	      "at most the grant out: %lu (share %u), %lu stalls",
	      (unsigned long)st.max_outstanding, share, (unsigned long)st.credit_stalls);
	rpcrdma_xprt_stats(sx[0], &st);
	CHECK(st.excess_calls == 0, "no call over the grant: %lu", (unsigned long)st.excess_calls);
	rpcrdma_xprt_group_stats(sg, &gs);
	CHECK(gs.recv_short == 0 && gs.reserve_short == 0,
	      "the SRQ never ran short: %lu short top-ups, %lu refused reservations",
	      (unsigned long)gs.recv_short, (unsigned long)gs.reserve_short);
	/*
	 * Fast replies' Sends retire in the group poll without a visit when
	 * nothing else is going on (xprt_retire_fast_reply()): some did, and
	 * every Send of every server connection has retired.
	 */
	CHECK(gs.quick_retires > 0 && gs.quick_retires <= gs.wcs,
	      "fast reply Sends retired without a visit: %lu of %lu completions",
	      (unsigned long)gs.quick_retires, (unsigned long)gs.wcs);
	for (unsigned int i = 0; i < nsx; i++) {
		struct rpcrdma_xprt_info si;

		rpcrdma_xprt_info(sx[i], &si);
		CHECK(si.sends_out == 0, "server connection %u: no Send outstanding: %u", i,
		      si.sends_out);
	}
	for (unsigned int i = 0; v2 && i < NCONN; i++) {
		struct rpcrdma_xprt_stats cs, ss;
		struct rpcrdma_xprt_info ci, si;

		rpcrdma_xprt_info(cx[i], &ci);
		rpcrdma_xprt_info(sx[i], &si);
		rpcrdma_xprt_stats(cx[i], &cs);
		rpcrdma_xprt_stats(sx[i], &ss);
		CHECK(ci.vers_settled && ci.vers == RPCRDMA_VERS_2 && si.vers == RPCRDMA_VERS_2 &&
			      cs.xchar_sent >= 1 && cs.xchar_recv >= 1 && ss.xchar_sent >= 1 &&
			      ss.xchar_recv >= 1 && cs.ctrl_drops == 0 && ss.ctrl_drops == 0,
		      "connection %u: version %u/%u, characteristics sent %lu/%lu, applied "
		      "%lu/%lu, control drops %lu/%lu",
		      i, ci.vers, si.vers, (unsigned long)cs.xchar_sent,
		      (unsigned long)ss.xchar_sent, (unsigned long)cs.xchar_recv,
		      (unsigned long)ss.xchar_recv, (unsigned long)cs.ctrl_drops,
		      (unsigned long)ss.ctrl_drops);
	}
}

static void test_idle(void)
{
	struct rpcrdma_xprt_group_stats a, b;
	int work = 0;

	/* let the last Sends retire and the repost batches go */
	for (int i = 0; i < 1000; i++)
		pump();
	rpcrdma_xprt_group_stats(sg, &a);
	for (int i = 0; i < 1000; i++)
		work += rpcrdma_xprt_group_poll(sg);
	rpcrdma_xprt_group_stats(sg, &b);
	CHECK(work == 0 && b.conn_visits == a.conn_visits && b.idle_polls - a.idle_polls == 1000,
	      "1000 idle polls of %u connections: work %d, %lu visits", b.conns, work,
	      (unsigned long)(b.conn_visits - a.conn_visits));
	rpcrdma_xprt_group_stats(cg, &a);
	for (int i = 0; i < 1000; i++)
		work += rpcrdma_xprt_group_poll(cg);
	rpcrdma_xprt_group_stats(cg, &b);
	CHECK(work == 0 && b.conn_visits == a.conn_visits,
	      "the clients' group too: work %d, %lu visits", work,
	      (unsigned long)(b.conn_visits - a.conn_visits));
}

/* rpcrdma_xprt_dump() of @x, in a buffer the caller frees. */
static char *dump(const struct rpcrdma_xprt *x)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return NULL;
	rpcrdma_xprt_dump(f, x);
	fclose(f);
	return buf;
}

/*
 * rpcrdma_xprt_dump(): a client's with a call out and after its reply, and
 * an idle server's, each against what the engine says otherwise.
 */
static void test_dump(void)
{
	struct rpcrdma_xprt_group_stats gs;
	struct rpcrdma_xprt_stats st;
	char want[160], *d;
	unsigned int n = 1;

	calls[0] = (struct svc_tcall){ .prog = PROG, .vers = 1, .proc = P_INLINE, .len = 64 };
	svc_tcall_submit(&calls[0], cx[0], cli.pools);
	rpcrdma_xprt_group_poll(cg); /* sent; the server has not polled */
	d = dump(cx[0]);
	CHECK(d != NULL && strstr(d, "(client): ESTABLISHED, version ") != NULL &&
		      strstr(d, "  requester: grant ") != NULL &&
		      strstr(d, ", outstanding 1, slots busy 1 of ") != NULL &&
		      strstr(d, "  responder:") == NULL,
	      "a client's dump with one call out: %s", d);
	free(d);
	CHECK(pump_until(calls_done, &n) && calls[0].status == 0, "the call answered");
	rpcrdma_xprt_stats(cx[0], &st);
	snprintf(want, sizeof(want),
		 "  counters: calls %" PRIu64 ", replies %" PRIu64
		 ", calls received 0; send WRs %" PRIu64 ", doorbells %" PRIu64 ", ",
		 st.calls, st.replies, st.wrs, st.doorbells);
	d = dump(cx[0]);
	CHECK(d != NULL && strstr(d, ", outstanding 0, slots busy 0 of ") != NULL &&
		      st.calls != 0 && st.replies == st.calls && strstr(d, want) != NULL,
	      "a client's dump after the reply: %s", d);
	free(d);

	for (int i = 0; i < 100; i++)
		pump();
	rpcrdma_xprt_group_stats(sg, &gs);
	snprintf(want, sizeof(want), "  group: %u connections, SRQ %u posted of ", gs.conns,
		 gs.srq_posted);
	d = dump(sx[0]);
	CHECK(d != NULL && strstr(d, "(server): ESTABLISHED") != NULL && strstr(d, want) != NULL &&
		      strstr(d, ", active 0, ") != NULL &&
		      strstr(d, "  responder slots: received 0 read 0 dispatched 0 reply_ready 0 "
				"writes 0 send 0 done 0\n") != NULL &&
		      strstr(d, "  requester:") == NULL,
	      "an idle server's dump: %s", d);
	free(d);
}

static bool servers_gone(void *arg)
{
	reap_servers();
	return nsx == *(const unsigned int *)arg;
}

static void test_churn(void)
{
	struct range r = { 0, NCONN / 2, RPCRDMA_XPRT_CLOSED };
	struct rpcrdma_xprt_group_stats gs;
	struct rpcrdma_xprt_info xi;
	unsigned int left = NCONN - NCONN / 2, share;

	for (unsigned int i = 0; i < NCONN / 2; i++)
		CHECK(rpcrdma_xprt_disconnect(cx[i]) == 0, "client %u leaves", i);
	CHECK(pump_until(clients_in, &r), "the clients closed");
	reap_kick = true;
	CHECK(pump_until(servers_gone, &left), "their server connections closed and destroyed: %u",
	      nsx);
	reap_kick = false;
	CHECK(reap_kicked >= NCONN / 2, "each destroyed with work pending in its group: %u",
	      reap_kicked);
	for (unsigned int i = 0; i < NCONN / 2; i++) {
		CHECK(rpcrdma_xprt_destroy(cx[i]) == 0, "client %u destroyed", i);
		cx[i] = NULL;
	}
	share = RECVS / left < 32 ? RECVS / left : 32;
	rpcrdma_xprt_group_stats(sg, &gs);
	CHECK(gs.conns == left && gs.share == RECVS / left, "share %u for %u: %u", RECVS / left,
	      gs.conns, gs.share);
	/* the next replies grant the larger share (capped at max_credits, 32) */
	call_all(NCONN / 2, NCONN, 2);
	for (unsigned int i = NCONN / 2; i < NCONN; i++) {
		rpcrdma_xprt_info(cx[i], &xi);
		CHECK(xi.grant == share, "client %u sees the new grant %u: %u", i, share, xi.grant);
	}
	/* new clients join the running groups, up to max_conns */
	CHECK(connect_clients(0, NCONN / 2), "%u clients join again", NCONN / 2);
	call_all(0, NCONN, 1);
	CHECK(connect_clients(NCONN, MAXCONN), "up to max_conns (%u)", MAXCONN);
	{
		struct range e = { MAXCONN, MAXCONN + 1, RPCRDMA_XPRT_ERROR };

		CHECK(rpcrdma_xprt_create(&cli.params, &cx[MAXCONN]) == -ENOSPC,
		      "the clients' group is full too");
		cli.params.group = NULL;
		CHECK(rpcrdma_xprt_create(&cli.params, &cx[MAXCONN]) == 0 &&
			      rpcrdma_xprt_connect(cx[MAXCONN], addr) == 0,
		      "one more client, on its own");
		cli.params.group = cg;
		CHECK(pump_until(clients_in, &e) && refused == 1,
		      "one over the server's max_conns: refused (%u)", refused);
		rpcrdma_xprt_info(cx[MAXCONN], &alone);
		rpcrdma_xprt_destroy(cx[MAXCONN]);
		cx[MAXCONN] = NULL;
	}
}

/*
 * What a connection holds (rpcrdma_xprt_info() mem_bytes): in a group, no
 * receive of its own; the group's counter sums its connections'.
 */
static void test_memory(void)
{
	struct rpcrdma_xprt_group_stats gs;
	struct rpcrdma_xprt_info a, b;
	uint64_t sum = 0;

	rpcrdma_xprt_info(sx[0], &a);
	rpcrdma_xprt_info(cx[0], &b);
	printf("memory: a server connection in a group %lu bytes; a client connection in a "
	       "group %lu, alone %lu\n",
	       (unsigned long)a.mem_bytes, (unsigned long)b.mem_bytes,
	       (unsigned long)alone.mem_bytes);
	CHECK(b.mem_bytes > 0 && b.mem_bytes < alone.mem_bytes,
	      "a client connection holds less in a group: %lu < %lu", (unsigned long)b.mem_bytes,
	      (unsigned long)alone.mem_bytes);
	if (shared)
		CHECK(b.mem_bytes <= a.mem_bytes,
		      "with the call slots shared, a client connection holds no more than a server "
		      "one: %lu <= %lu",
		      (unsigned long)b.mem_bytes, (unsigned long)a.mem_bytes);
	/* issue 20's bound; version 2's control slots are the group's */
	CHECK(a.mem_bytes <= 16384, "a server connection in a group holds at most 16 KiB: %lu",
	      (unsigned long)a.mem_bytes);
	rpcrdma_xprt_group_stats(sg, &gs);
	for (unsigned int i = 0; i < nsx; i++) {
		rpcrdma_xprt_info(sx[i], &a);
		sum += a.mem_bytes;
	}
	CHECK(gs.conn_bytes == sum, "the group's conn_bytes is its connections' sum: %lu, %lu",
	      (unsigned long)gs.conn_bytes, (unsigned long)sum);
}

static bool all_closed(void *arg)
{
	for (unsigned int i = 0; i < MAXCONN; i++)
		if (cx[i] != NULL && rpcrdma_xprt_state(cx[i]) != RPCRDMA_XPRT_CLOSED)
			return false;
	reap_servers();
	return nsx == 0;
}

int main(int argc, char **argv)
{
	const struct test_side_pools pools = { NULL, 6144, 32, 2, 0, false };
	struct rpcrdma_xprt_group_params gp;
	struct rpcrdma_svc_params sp;
	struct rpcrdma_svc_program prog = {
		.name = "group", .prog = PROG, .nvers = 1, .vers = vers
	};
	struct test_side_pools cp = pools, spl = pools;
	int ret;

	ret = rpcrdma_mempool_eal_init(argv[0], NULL);
	if (ret < 0) {
		fprintf(stderr, "EAL: %s\n", strerror(-ret));
		return 1;
	}
	/* slot 14: test_xprt's parts take 0..11, test_xprt_svc 12, test_xprt_svc_rt 13 */
	ret = test_side_env(14);
	if (ret != 0)
		return ret;
	if (!test_side_shm())
		wait_ms = 120000;
	if (!test_side_case_runs(test_side_dev_info()->max_srq != 0, "test_xprt_group",
				 "the device has no SRQ"))
		return test_side_summary("test_xprt_group", test_checks, test_failures);
	rpcrdma_svc_params_init(&sp);
	CHECK(rpcrdma_svc_registry_create(&sp, &reg) == 0, "registry");
	CHECK(rpcrdma_svc_register(reg, &prog) == 0, "register");
	rpcrdma_xprt_svc_init(&glue, reg, 0);
	glue.reply_done = ddp_reply_done;
	svc_proc_res[P_INLINE] = SVC_RES_INLINE;
	svc_proc_res[P_DDP] = SVC_RES_DDP;
	cp.name = "grpc";
	spl.name = "grps";
	if (test_side_create(&cli, NULL, &cp) || test_side_create(&srv, NULL, &spl)) {
		fprintf(stderr, "devices and pools\n");
		return 1;
	}
	test_side_addr(addr, sizeof(addr), "xgrp");
	CHECK(rpcrdma_pmd_listen(srv.dev, addr, &srv.listener) == 0, "listen");
	test_side_params(&cli, RPCRDMA_XPRT_CLIENT);
	test_side_params(&srv, RPCRDMA_XPRT_SERVER);
	v2 = argc > 1 && strcmp(argv[1], "v2") == 0;
	shared = argc > 1 && strcmp(argv[1], "shared") == 0;
	if (v2) {
		cli.params.vers = RPCRDMA_VERS_2;
		srv.params.vers = RPCRDMA_VERS_2;
	}
	rpcrdma_xprt_svc_bind(&glue, &srv.params);
	test_params();

	rpcrdma_xprt_group_params_init(&gp);
	gp.dev = srv.dev;
	gp.pd = srv.pd;
	gp.pools = srv.pools;
	gp.max_conns = MAXCONN;
	gp.recvs = RECVS;
	CHECK(rpcrdma_xprt_group_create(&gp, &sg) == 0, "the server group");
	gp.dev = cli.dev;
	gp.pd = cli.pd;
	gp.pools = cli.pools;
	gp.calls = shared ? SHARED_CALLS : 0;
	CHECK(rpcrdma_xprt_group_create(&gp, &cg) == 0, "the clients' group");
	if (sg == NULL || cg == NULL)
		return test_side_summary("test_xprt_group", test_checks, test_failures);
	srv.params.group = sg;
	cli.params.group = cg;
	test_many();
	test_idle();
	test_dump();
	test_churn();
	test_memory();

	for (unsigned int i = 0; i < MAXCONN; i++)
		if (cx[i] != NULL)
			rpcrdma_xprt_disconnect(cx[i]);
	CHECK(pump_until(all_closed, NULL), "every connection closed");
	for (unsigned int i = 0; i < MAXCONN; i++)
		if (cx[i] != NULL)
			CHECK(rpcrdma_xprt_destroy(cx[i]) == 0, "client %u destroyed", i);
	CHECK(rpcrdma_xprt_group_destroy(cg) == 0 && rpcrdma_xprt_group_destroy(sg) == 0,
	      "both groups destroyed");
	CHECK(rpcrdma_mempool_set_check_all_back(cli.pools) == 0, "the clients' buffers back");
	CHECK(rpcrdma_mempool_set_check_all_back(srv.pools) == 0, "the server's buffers back");
	CHECK(test_side_destroy(&cli) == 0 && test_side_destroy(&srv) == 0,
	      "every buffer back, closed");
	rpcrdma_svc_registry_free(reg);
	return test_side_summary("test_xprt_group", test_checks, test_failures);
}

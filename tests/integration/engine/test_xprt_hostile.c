/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_xprt hostile: mutated messages of both versions from a bare peer,
 * at a server (calls, transport characteristics, errors, forged chunks
 * that take the connection down, reconnects) and at a version 2 client
 * with a backward channel (replies to its XIDs and not, ERR_VERS, backward
 * calls): no crash, every call completes, every pool full at the end
 * (HOSTILE_ROUNDS=N HOSTILE_SEED=S: longer, other). And a version 2 probe
 * never answered.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rpcrdma_errno.h>
#include <rpcrdma/rpcrdma_hdr.h>

#include "test_xprt.h"

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
 * rounds without, an eighth over a real device (the emulated guest): the
 * engine meets the same mutations over shm, and the PMD's error and
 * reconnect paths are still taken hundreds of times.
 */
static unsigned int hostile_rounds(unsigned int dflt)
{
	const char *v = getenv("HOSTILE_ROUNDS");

	if (v != NULL)
		return (unsigned int)strtoul(v, NULL, 0);
	return test_side_shm() ? dflt : dflt / 8;
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
void test_hostile_server(void)
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
void test_hostile_client(void)
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
void test_v2_probe_lost(void)
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

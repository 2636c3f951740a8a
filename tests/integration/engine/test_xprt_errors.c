/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_xprt errors: every error path from crafted headers sent by a bare
 * client: the responder's rules of rfc5666bis 5.5 and 5.6 (the exact
 * RDMA_ERROR each offending message gets, word by word, counted, the upper
 * layer never called, the connection still answering); and the requester
 * against a bare server that answers its calls with bytes the test writes.
 */
#include <errno.h>
#include <string.h>

#include <rpcrdma/rpcrdma_errno.h>
#include <rpcrdma/rpcrdma_hdr.h>

#include "test_xprt.h"

void test_errors(void)
{
	uint8_t msg[512];
	struct rpcrdma_xprt_stats s0, s1;
	struct rpcrdma_hdr_storage hs;
	struct rpcrdma_hdr *h = &hs.hdr;
	struct env e;
	uint32_t len;
	int n;

	/* ---- responder: crafted calls from a bare PMD client ---- */
	if (!env_open(&e, NULL, NULL))
		return;
	bare_client_up(&e);
	n = bare_ask_call(&e, v1call, 7, 0x100, &hs, WAIT_MS);
	CHECK(n > 0 && h->proc == RPCRDMA_MSG && h->xid == 0x100 && h->credit >= 1,
	      "a good crafted call is answered: %d", n);
	{
		/* versions 2 and 7: ERR_VERS 1..1 */
		const uint32_t v2[] = { 0, 2, 8, RPCRDMA_MSG, 0, 0, 0, 0 };
		const uint32_t v7[] = { 0, 7, 8, RPCRDMA_MSG, 0, 0, 0 };

		n = bare_ask_call(&e, v2, 8, 0x101, &hs, WAIT_MS);
		CHECK(n > 0 && h->proc == RPCRDMA_ERROR && h->error.code == RPCRDMA_ERR_VERS &&
			      h->error.low == 1 && h->error.high == 1 && h->xid == 0x101,
		      "version 2: ERR_VERS (1, 1)");
		n = bare_ask_call(&e, v7, 7, 0x102, &hs, WAIT_MS);
		CHECK(n > 0 && h->proc == RPCRDMA_ERROR && h->error.code == RPCRDMA_ERR_VERS &&
			      h->error.low == 1 && h->error.high == 1,
		      "version 7: ERR_VERS (1, 1)");
	}
	{
		/* ERR_CHUNK: a read position not a multiple of 4; a bad bool; RDMA_MSGP;
		 * RDMA_NOMSG without a chunk; a truncated list */
		const uint32_t badpos[] = { 0, 1, 8, RPCRDMA_MSG, 1, 6, 1, 64, 0, 0, 0, 0, 0 };
		const uint32_t badbool[] = { 0, 1, 8, RPCRDMA_MSG, 2, 0, 0 };
		const uint32_t msgp[] = { 0, 1, 8, RPCRDMA_MSGP, 4, 1024, 0, 0, 0 };
		const uint32_t nomsg[] = { 0, 1, 8, RPCRDMA_NOMSG, 0, 0, 0 };
		const uint32_t trunc[] = { 0, 1, 8, RPCRDMA_MSG, 1 };
		struct {
			const uint32_t *w;
			unsigned int n;
			const char *what;
		} bad[] = {
			{ badpos, 13, "read position 6" },
			{ badbool, 7, "a list discriminator of 2" },
			{ msgp, 9, "RDMA_MSGP" },
			{ nomsg, 7, "RDMA_NOMSG with no chunk" },
			{ trunc, 5, "a truncated read list" },
		};

		for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			stats(&e.srv, &s0);
			if (bad[i].w == trunc)
				len = put_words(msg, 0x200 + i, trunc, 5);
			else
				len = craft(msg, 0x200 + i, bad[i].w, bad[i].n);
			if (bad[i].w == nomsg)
				len = 28; /* nothing inline either */
			n = bare_ask(&e, msg, len, &hs, WAIT_MS);
			CHECK(n > 0 && h->proc == RPCRDMA_ERROR &&
				      h->error.code == RPCRDMA_ERR_CHUNK && h->xid == 0x200 + i,
			      "%s: ERR_CHUNK (%d)", bad[i].what, n);
			stats(&e.srv, &s1);
			CHECK(s1.errors_sent == s0.errors_sent + 1, "%s: counted", bad[i].what);
		}
	}
	{
		/* a reply that does not fit the offered reply chunk: ERR_CHUNK. The
		 * call offers a 64-byte reply chunk and asks for a 6000-byte reply. */
		const uint32_t args[] = { 1, 0, 0, 0, 900, 0 };
		uint32_t w[40], nw = 0;

		w[nw++] = 0x400;
		w[nw++] = 1;
		w[nw++] = 8;
		w[nw++] = RPCRDMA_MSG;
		w[nw++] = 0; /* no read list */
		w[nw++] = 0; /* no write list */
		w[nw++] = 1; /* a reply chunk of one segment */
		w[nw++] = 1;
		w[nw++] = 0x1234; /* handle */
		w[nw++] = 64;	  /* length */
		w[nw++] = 0;
		w[nw++] = 0x1000; /* offset */
		len = craft(msg, 0x400, w, nw);
		put32(msg, nw + 5, PROC_TEST);
		/* args: seed 1, 0 words, 0 items, 0 results, 900 reply words, mode 0 */
		for (unsigned int k = 0; k < 6; k++)
			put32(msg, nw + 10 + k, args[k]);
		len += 24;
		n = bare_ask(&e, msg, len, &hs, WAIT_MS);
		CHECK(n > 0 && h->proc == RPCRDMA_ERROR && h->error.code == RPCRDMA_ERR_CHUNK &&
			      h->xid == 0x400,
		      "a reply too big for its reply chunk: ERR_CHUNK (%d: xid %#x proc %u code "
		      "%u)",
		      n, h->xid, h->proc, h->error.code);
	}
	stats(&e.srv, &s1);
	/* malformed headers: position 6, bool 2, truncated; bad chunks: MSGP, NOMSG, too big */
	CHECK(s1.err_vers == 2 && s1.err_hdr == 3 && s1.err_chunk == 3,
	      "server error counters: vers %lu hdr %lu chunk %lu", (unsigned long)s1.err_vers,
	      (unsigned long)s1.err_hdr, (unsigned long)s1.err_chunk);
	rpcrdma_pmd_disconnect(e.cli.qp);
	{
		/* the receive left posted flushes: its buffer goes back */
		uint64_t end = test_now_ms() + WAIT_MS;

		while (test_now_ms() < end &&
		       rpcrdma_xprt_state(e.srv.xprt) != RPCRDMA_XPRT_CLOSED) {
			bare_reap(&e);
			test_side_poll(&e.srv, srv_accept);
		}
		for (int k = 0; k < 1000; k++)
			bare_reap(&e);
	}
	env_close(&e);

	/* ---- requester: crafted replies from a bare PMD server ---- */
	/* (see test_errors_requester) */
}

/*
 * Responder rules of rfc5666bis 5.5 and 5.6, from a bare client: the
 * exact RDMA_ERROR each offending message gets (every XDR word: rdma_xid,
 * rdma_vers, rdma_credit, rdma_proc, rdma_err and its body), counted, the
 * upper layer never called, and the connection still answering.
 */
void test_error_rules(void)
{
	/* the server's grant (srv_params(): a target of 32) in every answer */
	const uint32_t grant = 32;
	struct rpcrdma_xprt_stats s0, s1;
	uint8_t msg[512];
	struct env e;
	uint32_t len, calls0;

	if (!env_open(&e, NULL, NULL))
		return;
	bare_client_up(&e);
	{
		/*
		 * rfc5666bis 5.5.1: this server is of version 1 only, and an
		 * RDMA2_OPTIONAL (of no type it could know) is version 2: ERR_VERS
		 * in version 1 with the range 1..1, before anything has settled
		 * the connection's version
		 */
		const uint32_t opt[] = { 0x502, 2, 8, RPCRDMA_OPTIONAL, RPCRDMA_CALL, 0x7777, 0 };
		const uint32_t want[] = { 0x502, 1, grant, RPCRDMA_ERROR, RPCRDMA_ERR_VERS, 1, 1 };

		stats(&e.srv, &s0);
		len = put_words(msg, 0x502, opt, 7);
		bare_expect(&e, msg, len, want, 7, "RDMA2_OPTIONAL first, version 1 server");
		stats(&e.srv, &s1);
		CHECK(s1.err_vers == s0.err_vers + 1 && s1.options_recv == s0.options_recv &&
			      s1.err_option == s0.err_option,
		      "RDMA2_OPTIONAL first: ERR_VERS counted, not taken as an option");
	}
	{
		/*
		 * a good call: answered RDMA_MSG with the grant the errors
		 * carry, the RPC reply (xid REPLY MSG_ACCEPTED AUTH_NONE 0 SUCCESS)
		 */
		const uint32_t want[] = { 0x500, 1, grant, RPCRDMA_MSG, 0, 0, 0,
					  0x500, 1, 0,	   0,		0, 0 };

		len = craft(msg, 0x500, v1call, 7);
		bare_expect(&e, msg, len, want, 13, "a good call");
	}
	{
		/*
		 * rfc5666bis 5.5.2: an rdma_xid that is not the XID of the RPC
		 * message: ERR_CHUNK with the rdma_xid. In a Short call (the
		 * fast path) and in a call offering a reply chunk (decoded, mapped).
		 */
		const uint32_t want[] = { 0x501, 1, grant, RPCRDMA_ERROR, RPCRDMA_ERR_CHUNK };
		const uint32_t rchunk[] = {
			0, 1, 8, RPCRDMA_MSG, 0, 0, 1, 1, 0x1234, 64, 0, 0x1000
		};

		stats(&e.srv, &s0);
		calls0 = sctx.calls;
		len = craft(msg, 0x501, v1call, 7);
		put32(msg, 7, 0x5501); /* the RPC XID */
		bare_expect(&e, msg, len, want, 5, "rdma_xid not the RPC XID, Short");
		len = craft(msg, 0x501, rchunk, 12);
		put32(msg, 12, 0x501 ^ 0x80000000u);
		bare_expect(&e, msg, len, want, 5, "rdma_xid not the RPC XID, with a reply chunk");
		stats(&e.srv, &s1);
		CHECK(s1.err_xid == s0.err_xid + 2 && s1.errors_sent == s0.errors_sent + 2 &&
			      s1.dropped == s0.dropped && sctx.calls == calls0,
		      "XID mismatches: counted %lu, answered %lu, not dispatched (%u calls)",
		      (unsigned long)(s1.err_xid - s0.err_xid),
		      (unsigned long)(s1.errors_sent - s0.errors_sent), sctx.calls - calls0);
	}
	{
		/*
		 * rfc5666bis 5.5.1 once version 1 is settled: RDMA2_OPTIONAL,
		 * without and with an RPC call after it, gets ERR_VERS (1, 1)
		 */
		const uint32_t opt[] = { 0x503, 2, 8, RPCRDMA_OPTIONAL, RPCRDMA_CALL, 0x7777, 0 };
		const uint32_t want[] = { 0x503, 1, grant, RPCRDMA_ERROR, RPCRDMA_ERR_VERS, 1, 1 };

		stats(&e.srv, &s0);
		calls0 = sctx.calls;
		len = put_words(msg, 0x503, opt, 7);
		bare_expect(&e, msg, len, want, 7, "RDMA2_OPTIONAL, version 1 settled");
		len = craft(msg, 0x503, opt, 7);
		bare_expect(&e, msg, len, want, 7, "RDMA2_OPTIONAL with a call, version 1 settled");
		stats(&e.srv, &s1);
		CHECK(s1.err_vers == s0.err_vers + 2 && s1.errors_sent == s0.errors_sent + 2 &&
			      s1.options_recv == s0.options_recv && sctx.calls == calls0,
		      "RDMA2_OPTIONAL after version 1: ERR_VERS counted %lu, sent %lu",
		      (unsigned long)(s1.err_vers - s0.err_vers),
		      (unsigned long)(s1.errors_sent - s0.errors_sent));
	}
	{
		/*
		 * rfc5666bis 5.6.2: RDMA_DONE is no longer sent, and a receiver
		 * SHOULD answer it ERR_CHUNK (with the rdma_xid): the bare header,
		 * and one with bytes after it
		 */
		const uint32_t done[] = { 0x504, 1, 8, RPCRDMA_DONE };
		const uint32_t want[] = { 0x504, 1, grant, RPCRDMA_ERROR, RPCRDMA_ERR_CHUNK };

		stats(&e.srv, &s0);
		calls0 = sctx.calls;
		len = put_words(msg, 0x504, done, 4);
		bare_expect(&e, msg, len, want, 5, "RDMA_DONE");
		len = craft(msg, 0x504, done, 4);
		bare_expect(&e, msg, len, want, 5, "RDMA_DONE with a call after it");
		stats(&e.srv, &s1);
		CHECK(s1.done_recv == s0.done_recv + 2 && s1.errors_sent == s0.errors_sent + 2 &&
			      sctx.calls == calls0,
		      "RDMA_DONE: counted %lu, answered %lu, not dispatched (%u calls)",
		      (unsigned long)(s1.done_recv - s0.done_recv),
		      (unsigned long)(s1.errors_sent - s0.errors_sent), sctx.calls - calls0);
	}
	{
		/* the connection goes on: a good call, answered as the first */
		const uint32_t want[] = { 0x5ff, 1, grant, RPCRDMA_MSG, 0, 0, 0,
					  0x5ff, 1, 0,	   0,		0, 0 };

		len = craft(msg, 0x5ff, v1call, 7);
		bare_expect(&e, msg, len, want, 13, "a good call after the errors");
	}
	bare_client_down(&e);
	env_close(&e);
}

static bool cli_call_done(struct env *e, void *arg)
{
	rpcrdma_xprt_poll(e->cli.xprt);
	test_side_events(&e->cli, NULL);
	return ((struct tcall *)arg)->done;
}

/*
 * A call from the client, answered at the bare server with the header
 * words hw[] (the call's XID patched in) and, with_rpc, an accepted RPC
 * reply; then the call is waited for.
 */
static void bare_answer(struct env *e, struct tcall *t, const uint32_t *hw, unsigned int nhw,
			bool with_rpc)
{
	/* xid REPLY MSG_ACCEPTED AUTH_NONE 0 SUCCESS */
	static const uint32_t accepted[] = { 0, 1, 0, 0, 0, 0 };
	struct rpcrdma_mempool *ip = e->srv.pools->inline_pool;
	void *rb = rpcrdma_mempool_get(ip);
	uint8_t *sb = rpcrdma_mempool_get(ip);
	struct rpcrdma_pmd_sge rs = { (uintptr_t)rb, 4096, ip->lkey };
	struct rpcrdma_pmd_recv_wr rw = { 1, &rs, 1 };
	struct rpcrdma_pmd_wc wc[4];
	uint64_t end = test_now_ms() + WAIT_MS;
	bool got = false, sent = false;
	uint32_t xid, len;

	memset(t, 0, sizeof(*t));
	CHECK(rpcrdma_pmd_post_recv_burst(e->srv.qp, &rw, 1) == 1, "post");
	CHECK(tcall_submit(e, t) == 0, "submit");
	while (test_now_ms() < end && !sent) {
		int n = rpcrdma_pmd_poll_cq_burst(e->srv.cq, wc, 4);

		for (int k = 0; k < n; k++) {
			if (wc[k].wr_id == 1 && wc[k].status == 0) {
				xid = rpcrdma_wire_get32(rb, 0);
				got = true;
				len = put_words(sb, xid, hw, nhw);
				if (with_rpc)
					len += put_words(sb + len, xid, accepted, 6);
				bare_send(e->srv.qp, ip, sb, len);
			}
			if (wc[k].wr_id == 2)
				sent = true;
		}
		test_side_poll(&e->cli, NULL);
	}
	rpcrdma_mempool_put(ip, rb);
	rpcrdma_mempool_put(ip, sb);
	CHECK(got && sent, "exchange");
	end = test_now_ms() + WAIT_MS;
	while (!t->done && test_now_ms() < end)
		cli_call_done(e, t);
}

/*
 * The requester against a bare server: the server answers each call with
 * bytes the test writes.
 */
void test_errors_requester(void)
{
	struct rpcrdma_xprt_stats s0, s1;
	struct tcall t;
	struct env e;
	uint64_t end;

	if (!env_open(&e, NULL, NULL))
		return;
	CHECK(bare_server_accept(&e, 0), "bare server");
	{
		const uint32_t ok[] = { 0, 1, 4, RPCRDMA_MSG, 0, 0, 0 };

		bare_answer(&e, &t, ok, 7, true);
		CHECK(t.done && t.status == 0 && t.ok, "a good crafted reply: %d", t.status);
	}
	{
		const uint32_t ev[] = { 0, 1, 4, RPCRDMA_ERROR, RPCRDMA_ERR_VERS, 1, 1 };
		const uint32_t ec[] = { 0, 1, 4, RPCRDMA_ERROR, RPCRDMA_ERR_CHUNK };
		const uint32_t msgp[] = { 0, 1, 4, RPCRDMA_MSGP, 4, 1024, 0, 0, 0 };
		const uint32_t v2[] = { 0, 2, 4, RPCRDMA_MSG, RPCRDMA_REPLY, 0, 0, 0 };
		const uint32_t wl[] = { 0, 1, 4, RPCRDMA_MSG, 0, 1, 1, 1, 2, 3, 4, 0, 0, 0 };
		struct {
			const uint32_t *w;
			unsigned int n;
			bool rpc;
			int want;
			const char *what;
		} cases[] = {
			{ ev, 7, false, -EPROTONOSUPPORT, "ERR_VERS" },
			{ ec, 5, false, -EREMOTEIO, "ERR_CHUNK" },
			{ msgp, 9, true, -EBADMSG, "RDMA_MSGP reply" },
			{ v2, 8, true, -EBADMSG, "a version 2 reply" },
			{ wl, 14, true, -EBADMSG, "a write list not offered" },
		};

		for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			bare_answer(&e, &t, cases[i].w, cases[i].n, cases[i].rpc);
			CHECK(t.done && t.status == cases[i].want, "%s: status %d, want %d",
			      cases[i].what, t.status, cases[i].want);
		}
	}
	{
		/* an unmatched reply and RDMA_DONE: dropped and counted, never fatal */
		struct rpcrdma_mempool *ip = e.srv.pools->inline_pool;
		uint8_t *sb = rpcrdma_mempool_get(ip);
		const uint32_t w[] = { 0, 1, 4, RPCRDMA_MSG, 0, 0, 0 };

		stats(&e.cli, &s0);
		put_words(sb, 0xdead0001, w, 7);
		/* an RPC reply header after it: xid, REPLY (a CALL would be a backward call) */
		put32(sb, 7, 0xdead0001);
		put32(sb, 8, 1);
		bare_srv_send_wait(&e, sb, 52);
		put32(sb, 3, RPCRDMA_DONE);
		bare_srv_send_wait(&e, sb, 16);
		/*
		 * version 2 messages that answer no call: a backward-direction
		 * call (rdma_direction CALL) and an RDMA2_OPTIONAL
		 */
		put32(sb, 1, RPCRDMA_VERS_2);
		put32(sb, 3, RPCRDMA_MSG);
		put32(sb, 4, RPCRDMA_CALL);
		put32(sb, 5, 0);
		put32(sb, 6, 0);
		put32(sb, 7, 0);
		bare_srv_send_wait(&e, sb, 32);
		put32(sb, 3, RPCRDMA_OPTIONAL);
		put32(sb, 4, RPCRDMA_CALL);
		put32(sb, 5, 0x7777);
		put32(sb, 6, 0);
		bare_srv_send_wait(&e, sb, 28);
		for (int k = 0; k < 100; k++)
			rpcrdma_xprt_poll(e.cli.xprt);
		stats(&e.cli, &s1);
		CHECK(s1.unmatched == s0.unmatched + 2, "unmatched replies counted: %lu",
		      (unsigned long)(s1.unmatched - s0.unmatched));
		CHECK(s1.bad_direction == s0.bad_direction + 1 && s1.err_vers == s0.err_vers + 1,
		      "a v2 backward call (no backward service) and an RDMA2_OPTIONAL on a "
		      "version 1 connection dropped and counted: %lu %lu",
		      (unsigned long)(s1.bad_direction - s0.bad_direction),
		      (unsigned long)(s1.err_vers - s0.err_vers));
		CHECK(rpcrdma_xprt_state(e.cli.xprt) == RPCRDMA_XPRT_ESTABLISHED,
		      "still established");
		rpcrdma_mempool_put(ip, sb);
	}
	stats(&e.cli, &s1);
	CHECK(s1.errors_recv == 2 && s1.failed == 5, "client error counters: %lu recv, %lu failed",
	      (unsigned long)s1.errors_recv, (unsigned long)s1.failed);
	rpcrdma_xprt_disconnect(e.cli.xprt);
	end = test_now_ms() + WAIT_MS;
	while (test_now_ms() < end && rpcrdma_xprt_state(e.cli.xprt) != RPCRDMA_XPRT_CLOSED) {
		struct rpcrdma_pmd_wc wc[8];

		rpcrdma_pmd_poll_cq_burst(e.srv.cq, wc, 8);
		test_side_poll(&e.cli, NULL);
	}
	rpcrdma_pmd_qp_destroy(e.srv.qp);
	e.srv.qp = NULL;
	env_close(&e);
}

/* Poll the client group and the bare server's CQ until a receive completes there: its buffer. */
static void *bare_srv_recv(struct env *e)
{
	uint64_t end = test_now_ms() + WAIT_MS;
	struct rpcrdma_pmd_wc wc;

	while (test_now_ms() < end) {
		if (rpcrdma_pmd_poll_cq_burst(e->srv.cq, &wc, 1) == 1 &&
		    wc.opcode == RPCRDMA_PMD_WC_RECV && wc.status == RPCRDMA_PMD_WC_SUCCESS)
			return (void *)(uintptr_t)wc.wr_id; /* bare_post()'s wr_id: the buffer */
		rpcrdma_xprt_poll(e->cli.xprt);
	}
	return NULL;
}

/*
 * Two clients of one poll group sharing its call slots (group params
 * calls), each connected to a bare server QP of its own. Client B's call
 * is out; the server answers it on A's connection, with B's XID: A drops
 * it and counts it (unmatched), B's call is untouched, and B's own reply
 * then completes it. A slot of the group names its connection; a reply
 * matches only the calls of the connection it came on.
 */
void test_errors_shared_slots(void)
{
	static const uint32_t ok[] = { 0, 1, 4, RPCRDMA_MSG, 0, 0, 0 };
	/* xid REPLY MSG_ACCEPTED AUTH_NONE 0 SUCCESS */
	static const uint32_t accepted[] = { 0, 1, 0, 0, 0, 0 };
	struct rpcrdma_xprt_stats sa0, sa1, sb1;
	struct rpcrdma_pmd_qp *qpa, *qpb;
	struct rpcrdma_pmd_cq *cqa, *cqb;
	struct rpcrdma_mempool *ip;
	struct rpcrdma_xprt *a, *b = NULL;
	struct tcall t;
	uint32_t xid = 0, len;
	uint8_t *sb;
	void *rb;
	struct env e;

	if (!env_open(&e, NULL, NULL))
		return;
	CHECK(env_group(&e, &e.cli, 8, 4), "a client group sharing 4 call slots");
	e.cli.params.group = e.grp;
	if (e.grp == NULL || !bare_server_accept(&e, 0)) {
		CHECK(0, "client A connected to the bare server");
		env_close(&e);
		return;
	}
	ip = e.srv.pools->inline_pool;
	a = e.cli.xprt;
	qpa = e.srv.qp;
	cqa = e.srv.cq;
	/* client B, on a bare QP of its own */
	bare_qp(&e.srv);
	bare_post(&e.srv, 1);
	qpb = e.srv.qp;
	cqb = e.srv.cq;
	CHECK(rpcrdma_xprt_create(&e.cli.params, &b) == 0, "client B joins the group");
	CHECK(b != NULL && rpcrdma_xprt_connect(b, e.addr) == 0, "client B connects");
	e.cli.xprt = b;
	CHECK(b != NULL && bare_server_wait(&e, test_now_ms() + WAIT_MS), "client B connected");
	memset(&t, 0, sizeof(t));
	t.proc = PROC_NULL;
	CHECK(tcall_submit(&e, &t) == 0 && t.call != NULL, "client B's call");
	if (t.call != NULL)
		xid = rpcrdma_xprt_call_xid(t.call);
	rb = bare_srv_recv(&e);
	CHECK(rb != NULL && rpcrdma_wire_get32(rb, 0) == xid, "B's call reached its server: %#x",
	      xid);
	if (rb != NULL)
		rpcrdma_mempool_put(ip, rb);

	/* B's XID answered on A's connection */
	rpcrdma_xprt_stats(a, &sa0);
	sb = rpcrdma_mempool_get(ip);
	len = put_words(sb, xid, ok, 7);
	len += put_words(sb + len, xid, accepted, 6);
	e.srv.qp = qpa;
	e.srv.cq = cqa;
	bare_srv_send_wait(&e, sb, len);
	for (int k = 0; k < 100; k++)
		rpcrdma_xprt_poll(a);
	rpcrdma_xprt_stats(a, &sa1);
	rpcrdma_xprt_stats(b, &sb1);
	CHECK(sa1.unmatched == sa0.unmatched + 1 && sa1.replies == sa0.replies,
	      "A drops the reply to B's call: %lu unmatched, %lu replies",
	      (unsigned long)(sa1.unmatched - sa0.unmatched),
	      (unsigned long)(sa1.replies - sa0.replies));
	CHECK(!t.done && sb1.replies == 0, "B's call is still out");
	CHECK(rpcrdma_xprt_state(a) == RPCRDMA_XPRT_ESTABLISHED, "A still established");

	/* and B's own reply, on B's connection */
	e.srv.qp = qpb;
	e.srv.cq = cqb;
	bare_srv_send_wait(&e, sb, len);
	for (uint64_t end = test_now_ms() + WAIT_MS; !t.done && test_now_ms() < end;)
		rpcrdma_xprt_poll(b);
	CHECK(t.done && t.status == 0 && t.ok, "B's call completed by its own reply: %d", t.status);
	rpcrdma_mempool_put(ip, sb);

	rpcrdma_xprt_disconnect(a);
	rpcrdma_xprt_disconnect(b);
	for (uint64_t end = test_now_ms() + WAIT_MS;
	     test_now_ms() < end && (rpcrdma_xprt_state(a) != RPCRDMA_XPRT_CLOSED ||
				     rpcrdma_xprt_state(b) != RPCRDMA_XPRT_CLOSED);) {
		struct rpcrdma_pmd_wc wc[8];

		rpcrdma_pmd_poll_cq_burst(cqa, wc, 8);
		rpcrdma_pmd_poll_cq_burst(cqb, wc, 8);
		rpcrdma_xprt_poll(a);
	}
	CHECK(rpcrdma_xprt_destroy(b) == 0, "client B destroyed");
	e.cli.xprt = a;
	rpcrdma_pmd_qp_destroy(qpa);
	rpcrdma_pmd_cq_destroy(cqa);
	env_close(&e);
}

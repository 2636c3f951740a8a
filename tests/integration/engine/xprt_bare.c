/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bare PMD endpoints (test_xprt.h): a QP in place of the client's or the
 * server's xprt, to send crafted messages to the engine and check the
 * bytes of what comes back (rfc5666bis 5.5 and 5.6 errors, version 2
 * headers, RFC 8797 private data), or to answer a client's calls with bytes
 * the test writes.
 */
#include <errno.h>
#include <string.h>

#include <rpcrdma/rpcrdma_hdr.h>

#include "test_xprt.h"

/*
 * A bare PMD endpoint on @s in place of an xprt, to send crafted messages:
 * one CQ for both queues; RNR retried without end, so that a Send waits for
 * a receive the engine posts late.
 */
void bare_qp(struct test_side *s)
{
	struct rpcrdma_pmd_qp_attr a;

	CHECK(rpcrdma_pmd_cq_create(s->dev, 256, &s->cq) == 0, "cq");
	rpcrdma_pmd_qp_attr_init(&a);
	a.send_cq = a.recv_cq = s->cq;
	a.rnr_retry = 7;
	CHECK(rpcrdma_pmd_qp_create(s->pd, &a, &s->qp) == 0, "qp");
}

/* Transport headers for craft(): a call in version 1 and in version 2, RDMA_MSG, no chunks. */
const uint32_t v1call[] = { 0, 1, 8, RPCRDMA_MSG, 0, 0, 0 };
const uint32_t v2call[] = { 0, 2, 8, RPCRDMA_MSG, RPCRDMA_CALL, 0, 0, 0 };

/* A client's ROPT_INITXCH, a whole message (no RPC follows): a Receive Buffer Size of 2048. */
const uint32_t initxch[] = { 0,
			     2,
			     8,
			     RPCRDMA_OPTIONAL,
			     RPCRDMA_CALL,
			     RPCRDMA_ROPT_INITXCH,
			     20,
			     1,
			     RPCRDMA_XCHAR_RBSIZ,
			     4,
			     2048,
			     0 };

/* A bare client endpoint: connect to the xprt server with RFC 8797 data. */
bool bare_client(struct env *e)
{
	/* 1 KiB receives: a reply over 1 KiB needs the reply chunk */
	struct rpcrdma_xprt_pdata pd = { 1, false, 4096, 1024 };
	uint8_t buf[8];
	uint64_t end;

	unsigned int refused = srv_refused;

	rpcrdma_xprt_pdata_encode(&pd, buf, sizeof(buf));
	bare_qp(&e->cli);
	CHECK(rpcrdma_pmd_connect(e->cli.qp, e->addr, buf, sizeof(buf)) == 0, "connect");
	for (end = test_now_ms() + WAIT_MS; test_now_ms() < end;) {
		struct rpcrdma_pmd_event ev;

		test_side_poll(&e->srv, srv_accept);
		srv_parked_poll();
		if (rpcrdma_pmd_event_poll(e->cli.dev, &ev, 1) != 1)
			continue;
		if (ev.type == RPCRDMA_PMD_EVENT_ESTABLISHED)
			return true;
		if (ev.type != RPCRDMA_PMD_EVENT_REJECTED || srv_refused == refused)
			continue;
		/* refused while replaced connections drained: once they have, again on a new QP */
		refused = srv_refused;
		while (srv_nparked > 0 && test_now_ms() < end)
			srv_parked_poll();
		rpcrdma_pmd_qp_destroy(e->cli.qp);
		rpcrdma_pmd_cq_destroy(e->cli.cq);
		bare_qp(&e->cli);
		CHECK(rpcrdma_pmd_connect(e->cli.qp, e->addr, buf, sizeof(buf)) == 0,
		      "connect again");
	}
	return false;
}

/* The tests of crafted calls start alike: a bare client, the server established with it. */
void bare_client_up(struct env *e)
{
	CHECK(bare_client(e), "bare client connected");
	CHECK(pump_until(e, srv_established, NULL), "server established");
}

/*
 * Queue a signaled Send (wr_id 2) of len bytes of buf, registered in
 * pool, on a bare endpoint's QP and ring its doorbell (the PMD copies the
 * gather entry when it queues the work request).
 */
int bare_send(struct rpcrdma_pmd_qp *qp, struct rpcrdma_mempool *pool, const void *buf,
	      uint32_t len)
{
	struct rpcrdma_pmd_sge ss = { (uintptr_t)buf, len, pool->lkey };
	struct rpcrdma_pmd_send_wr sw;

	memset(&sw, 0, sizeof(sw));
	sw.wr_id = 2;
	sw.sg_list = &ss;
	sw.num_sge = 1;
	sw.opcode = RPCRDMA_PMD_WR_SEND;
	sw.flags = RPCRDMA_PMD_SEND_SIGNALED;
	if (rpcrdma_pmd_queue_send_burst(qp, &sw, 1) != 1)
		return -ENOBUFS;
	rpcrdma_pmd_flush(qp);
	return 0;
}

/* Post n receives on a bare endpoint (wr_id: the buffer). */
void bare_post(struct test_side *s, unsigned int n)
{
	struct rpcrdma_mempool *ip = s->pools->inline_pool;

	for (unsigned int i = 0; i < n; i++) {
		void *rb = rpcrdma_mempool_get(ip);
		struct rpcrdma_pmd_sge rs = { (uintptr_t)rb, 4096, ip->lkey };
		struct rpcrdma_pmd_recv_wr rw = { (uintptr_t)rb, &rs, 1 };

		CHECK(rpcrdma_pmd_post_recv_burst(s->qp, &rw, 1) == 1, "post");
	}
}

/*
 * Send a copy of len bytes of msg from the bare client. The Send reads
 * the copy when it executes: its buffer goes back only after that.
 */
void *bare_cli_send(struct env *e, const void *msg, uint32_t len)
{
	struct rpcrdma_mempool *ip = e->cli.pools->inline_pool;
	void *sb = rpcrdma_mempool_get(ip);

	memcpy(sb, msg, len);
	CHECK(bare_send(e->cli.qp, ip, sb, len) == 0, "queue send");
	return sb;
}

/*
 * Send raw bytes from the bare client and post one receive (wr_id: its
 * buffer); wait for a reply or none. A receive left posted takes a later
 * reply, so the reply is read from the buffer its completion names.
 */
static int bare_exchange(struct env *e, const void *msg, uint32_t len, uint8_t *reply, uint32_t ms)
{
	struct rpcrdma_mempool *ip = e->cli.pools->inline_pool;
	struct rpcrdma_pmd_wc wc[4];
	uint64_t end = test_now_ms() + ms;
	int got = -ETIMEDOUT;
	bool sent = false, recvd = false;
	void *sb;

	bare_post(&e->cli, 1);
	sb = bare_cli_send(e, msg, len);
	while (test_now_ms() < end && !(sent && recvd)) {
		int n = rpcrdma_pmd_poll_cq_burst(e->cli.cq, wc, 4);

		for (int i = 0; i < n; i++) {
			if (wc[i].wr_id == 2) {
				sent = true;
				continue;
			}
			recvd = true;
			if (wc[i].status == RPCRDMA_PMD_WC_SUCCESS) {
				got = (int)wc[i].byte_len;
				memcpy(reply, (void *)(uintptr_t)wc[i].wr_id, wc[i].byte_len);
			}
			rpcrdma_mempool_put(ip, (void *)(uintptr_t)wc[i].wr_id);
		}
		test_side_poll(&e->srv, srv_accept);
	}
	rpcrdma_mempool_put(ip, sb);
	return got;
}

/*
 * Poll the bare client's CQ once and give back the buffers of the
 * receives that completed (or flushed): how many.
 */
unsigned int bare_reap(struct env *e)
{
	struct rpcrdma_pmd_wc wc[8];
	int n = rpcrdma_pmd_poll_cq_burst(e->cli.cq, wc, 8);
	unsigned int back = 0;

	for (int i = 0; i < n; i++) {
		if (wc[i].wr_id == 2)
			continue;
		rpcrdma_mempool_put(e->cli.pools->inline_pool, (void *)(uintptr_t)wc[i].wr_id);
		back++;
	}
	return back;
}

void put32(uint8_t *b, unsigned int i, uint32_t v)
{
	rpcrdma_wire_put32(b, i, v);
}

/*
 * Words w[] into b, the first replaced by xid: a transport header or an
 * RPC message, both of which start with the XID. Returns their length.
 */
uint32_t put_words(uint8_t *b, uint32_t xid, const uint32_t *w, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		put32(b, i, w[i]);
	put32(b, 0, xid);
	return n * 4;
}

/* Send from the bare server and poll the client until the Send completes. */
void bare_srv_send_wait(struct env *e, const void *buf, uint32_t len)
{
	uint64_t end = test_now_ms() + WAIT_MS;
	struct rpcrdma_pmd_wc wc[4];
	bool sent = false;

	CHECK(bare_send(e->srv.qp, e->srv.pools->inline_pool, buf, len) == 0, "queue send");
	while (!sent && test_now_ms() < end) {
		int n = rpcrdma_pmd_poll_cq_burst(e->srv.cq, wc, 4);

		for (int i = 0; i < n; i++)
			sent = sent || wc[i].wr_id == 2;
		rpcrdma_xprt_poll(e->cli.xprt);
	}
	CHECK(sent, "the Send completed");
}

/* A transport header + a null RPC call; words[] overrides the header. */
uint32_t craft(uint8_t *b, uint32_t xid, const uint32_t *hw, unsigned int nhw)
{
	/* RPC: xid CALL 2 prog 1 0 AUTH_NONE 0 AUTH_NONE 0 */
	static const uint32_t call[] = { 0, 0, 2, PROG, 1, PROC_NULL, 0, 0, 0, 0 };
	uint32_t len = put_words(b, xid, hw, nhw);

	return len + put_words(b + len, xid, call, 10);
}

/*
 * Send len bytes of msg from the bare client and decode the answer into
 * hs: the decoder's result, or bare_exchange()'s error when none came.
 */
int bare_ask(struct env *e, const void *msg, uint32_t len, struct rpcrdma_hdr_storage *hs,
	     uint32_t ms)
{
	struct rpcrdma_hdr *h = rpcrdma_hdr_storage_init(hs);
	uint8_t rep[4096];
	int n = bare_exchange(e, msg, len, rep, ms);

	if (n < 0)
		return n;
	return rpcrdma_hdr_decode(h, rep, (uint32_t)n);
}

/* bare_ask() a crafted call: the header words hw[] with xid, then a null call. */
int bare_ask_call(struct env *e, const uint32_t *hw, unsigned int nhw, uint32_t xid,
		  struct rpcrdma_hdr_storage *hs, uint32_t ms)
{
	uint8_t msg[512];

	return bare_ask(e, msg, craft(msg, xid, hw, nhw), hs, ms);
}

/*
 * Send len bytes of msg from the bare client and check the answer word by
 * word: exactly n XDR words, each want[i].
 */
void bare_expect(struct env *e, const void *msg, uint32_t len, const uint32_t *want, unsigned int n,
		 const char *what)
{
	uint8_t rep[4096];
	int got = bare_exchange(e, msg, len, rep, WAIT_MS);

	CHECK(got == (int)(n * 4), "%s: an answer of %u bytes: %d", what, n * 4, got);
	if (got != (int)(n * 4))
		return;
	for (unsigned int i = 0; i < n; i++)
		CHECK(rpcrdma_wire_get32(rep, i) == want[i], "%s: word %u is %#x, not %#x", what, i,
		      rpcrdma_wire_get32(rep, i), want[i]);
}

/* The bare client disconnects; the receives it left posted flush, their buffers back. */
void bare_client_down(struct env *e)
{
	uint64_t end = test_now_ms() + WAIT_MS;

	rpcrdma_pmd_disconnect(e->cli.qp);
	while (test_now_ms() < end && rpcrdma_xprt_state(e->srv.xprt) != RPCRDMA_XPRT_CLOSED) {
		bare_reap(e);
		test_side_poll(&e->srv, srv_accept);
	}
	for (int k = 0; k < 1000; k++)
		bare_reap(e);
}

/*
 * Accept the client's connection at the bare server (RFC 8797 data: 4 KiB
 * both ways), polling the client, until it is established or the time
 * runs out at end.
 */
bool bare_server_wait(struct env *e, uint64_t end)
{
	struct rpcrdma_xprt_pdata pd = { 1, false, 4096, 4096 };
	uint8_t buf[8];

	rpcrdma_xprt_pdata_encode(&pd, buf, sizeof(buf));
	while (test_now_ms() < end) {
		struct rpcrdma_pmd_event ev;

		test_side_poll(&e->cli, NULL);
		if (rpcrdma_pmd_event_poll(e->srv.dev, &ev, 1) == 1 &&
		    ev.type == RPCRDMA_PMD_EVENT_CONNECT_REQUEST)
			CHECK(rpcrdma_pmd_accept(ev.req, e->srv.qp, buf, sizeof(buf)) == 0,
			      "accept");
		if (rpcrdma_xprt_state(e->cli.xprt) == RPCRDMA_XPRT_ESTABLISHED)
			return true;
	}
	return false;
}

/*
 * A bare server endpoint: the client's first connection to it, with
 * @nrecv receives posted before the accept (iWARP has no RNR retry: a
 * Send that finds no receive ends the connection).
 */
bool bare_server_accept(struct env *e, unsigned int nrecv)
{
	uint64_t end = test_now_ms() + WAIT_MS;

	bare_qp(&e->srv);
	bare_post(&e->srv, nrecv);
	CHECK(rpcrdma_xprt_create(&e->cli.params, &e->cli.xprt) == 0, "create");
	CHECK(rpcrdma_xprt_connect(e->cli.xprt, e->addr) == 0, "connect");
	return bare_server_wait(e, end);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PMD conformance suite: a connect request handed over to another device
 * (rpcrdma_pmd_conn_req_handoff() and _adopt()), as a server with a device
 * per poller lcore places its connections. The request comes to the
 * listener's device; the server hands it to a second device of its own,
 * takes it there and accepts it on a QP of that device. The connection is
 * then the second device's: its events, its CQ, and the client's memory
 * (an RDMA Write into it from the second device). A second request is
 * handed over and rejected there, with private data.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "conformance.h"

#define WAIT 5000 /* ms */

/* Nothing comes on @ep's device for a while (the connection is another device's). */
static void no_event(struct ep *ep)
{
	struct rpcrdma_pmd_event ev;
	uint64_t end = test_now_ms() + 50;

	while (test_now_ms() < end)
		CHECK(ep, rpcrdma_pmd_event_poll(ep->dev, &ev, 1) == 0);
}

/* The request of @ev is handed to @b's device, with each misuse refused on the way. */
static void hand_over(struct ep *ep, struct ep *b, const struct rpcrdma_pmd_event *ev,
		      struct rpcrdma_pmd_qp *qa)
{
	struct rpcrdma_pmd_conn_req *req = ev->req;

	CHECK(ep, rpcrdma_pmd_conn_req_handoff(req, ep->dev) == -EINVAL); /* its own device */
	CHECK(ep, rpcrdma_pmd_conn_req_handoff(NULL, b->dev) == -EINVAL);
	CHECK(ep, rpcrdma_pmd_conn_req_adopt(b->dev, req) == -EINVAL); /* not handed over */
	CHECK(ep, rpcrdma_pmd_conn_req_handoff(req, b->dev) == 0);
	CHECK(ep, rpcrdma_pmd_conn_req_handoff(req, b->dev) == -EINVAL); /* twice */
	/* in no device now: not to be answered, nor taken by another */
	CHECK(ep, rpcrdma_pmd_reject(req, NULL, 0) == -EINVAL);
	CHECK(ep, qa == NULL || rpcrdma_pmd_accept(req, qa, NULL, 0) == -EINVAL);
	CHECK(ep, rpcrdma_pmd_conn_req_adopt(ep->dev, req) == -EINVAL);
	no_event(ep);
	CHECK(ep, rpcrdma_pmd_conn_req_adopt(b->dev, req) == 0);
	CHECK(ep, rpcrdma_pmd_conn_req_adopt(b->dev, req) == -EINVAL); /* twice */
	/* a QP of the listener's device cannot take it now */
	CHECK(ep, qa == NULL || rpcrdma_pmd_accept(req, qa, NULL, 0) == -EINVAL);
}

void handoff_server(struct ep *ep)
{
	static const uint8_t one = 0x31, two = 0x32, b_pd = 0x42, no[2] = { 'n', 'o' };
	struct rpcrdma_pmd_qp *qa = ep_qp_create(ep, NULL), *qb = NULL;
	struct rpcrdma_pmd_event ev;
	struct rpcrdma_pmd_wc wc;
	struct rpcrdma_pmd_send_wr wr;
	struct rpcrdma_pmd_sge sge;
	struct rbuf rb;
	uint8_t *chunk = NULL;
	struct ep b;
	bool up = false;

	if (ep_open_more(ep, &b) != 0) {
		ep->failures++;
		goto out_sync;
	}
	/* the first request: handed over, accepted on the second device */
	CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_CONNECT_REQUEST, NULL, &ev));
	CHECK(ep, pdata_is(ep, &ev, &one, 1));
	if (ev.req != NULL) {
		hand_over(ep, &b, &ev, qa);
		qb = ep_qp_create(&b, NULL);
		if (qb != NULL && post_inline_recv(&b, qb, 4096) &&
		    rpcrdma_pmd_accept(ev.req, qb, &b_pd, 1) == 0)
			up = wait_event(&b, RPCRDMA_PMD_EVENT_ESTABLISHED, qb, NULL);
		else if (qb == NULL || qb->state == RPCRDMA_PMD_QPS_INIT)
			rpcrdma_pmd_reject(ev.req, NULL, 0);
		CHECK(ep, up);
	}
	oob_sync(ep, "up");

	/* the client's SEND completes on the second device's CQ, named by its QP */
	if (up) {
		CHECK(ep, poll_n(&b, &wc, 1, WAIT) == 1);
		CHECK(ep, wc.status == RPCRDMA_PMD_WC_SUCCESS && wc.opcode == RPCRDMA_PMD_WC_RECV &&
				  wc.qp == qb && wc.byte_len == 1000);
		CHECK(ep, wc.status == RPCRDMA_PMD_WC_SUCCESS &&
				  same((void *)(uintptr_t)wc.wr_id, 1000, 5, 0));
		put_recv_bufs(&b, &wc, 1);
	}

	/* an RDMA Write from the second device into the client's memory */
	oob_get(ep, &rb, sizeof(rb));
	chunk = rpcrdma_mempool_get(b.set->chunk[0]);
	CHECK(ep, chunk != NULL);
	if (up && chunk != NULL) {
		fill(chunk, 5000, 6);
		sge = sge_of(b.set->chunk[0], chunk, 5000);
		rdma_wr(&wr, 9, RPCRDMA_PMD_WR_RDMA_WRITE, RPCRDMA_PMD_SEND_SIGNALED, &rb, &sge, 1);
		CHECK(ep, post_send1(qb, &wr));
		CHECK(ep, poll_n(&b, &wc, 1, WAIT) == 1);
		CHECK(ep, wc.wr_id == 9 && wc.status == RPCRDMA_PMD_WC_SUCCESS && wc.qp == qb);
	}
	oob_sync(ep, "written");
	if (chunk != NULL)
		rpcrdma_mempool_put(b.set->chunk[0], chunk);

	/* the client's disconnect is reported by the second device, not the first */
	oob_sync(ep, "disconnect");
	if (up)
		CHECK(ep, wait_event(&b, RPCRDMA_PMD_EVENT_DISCONNECTED, qb, NULL));
	no_event(ep);
	if (qb != NULL)
		ep_qp_destroy(&b, qb);
	oob_sync(ep, "down");

	/* the second request: handed over and rejected there, with private data */
	CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_CONNECT_REQUEST, NULL, &ev));
	CHECK(ep, pdata_is(ep, &ev, &two, 1));
	if (ev.req != NULL) {
		hand_over(ep, &b, &ev, NULL);
		CHECK(ep, rpcrdma_pmd_reject(ev.req, no, 2) == 0);
	}
	oob_sync(ep, "rejected");
	ep_close_more(ep, &b);
	return;

out_sync:
	oob_sync(ep, "up");
	oob_get(ep, &rb, sizeof(rb));
	oob_sync(ep, "written");
	oob_sync(ep, "disconnect");
	oob_sync(ep, "down");
	oob_sync(ep, "rejected");
}

void handoff_client(struct ep *ep)
{
	static const uint8_t one = 0x31, two = 0x32, b_pd = 0x42, no[2] = { 'n', 'o' };
	struct rpcrdma_pmd_qp *qp = ep_qp_create(ep, NULL);
	struct rpcrdma_mempool *pool = ep->set->chunk[0];
	struct rpcrdma_pmd_event ev;
	struct rpcrdma_pmd_send_wr wr;
	struct rpcrdma_pmd_sge sge;
	struct rpcrdma_pmd_wc wc;
	struct rbuf rb = { 0 };
	uint8_t *chunk = rpcrdma_mempool_get(pool), *buf = inl_get(ep);
	bool up = false;

	if (qp != NULL && rpcrdma_pmd_connect(qp, ep->addr, &one, 1) == 0 &&
	    wait_event(ep, RPCRDMA_PMD_EVENT_ESTABLISHED, qp, &ev)) {
		up = true;
		CHECK(ep, pdata_is(ep, &ev, &b_pd, 1)); /* the second device's accept */
	}
	CHECK(ep, up);
	oob_sync(ep, "up");
	if (up && buf != NULL) {
		fill(buf, 1000, 5);
		sge = sge_of(ep->set->inline_pool, buf, 1000);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 1;
		wr.opcode = RPCRDMA_PMD_WR_SEND;
		wr.flags = RPCRDMA_PMD_SEND_SIGNALED;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		CHECK(ep, post_send1(qp, &wr));
		CHECK(ep, poll_n(ep, &wc, 1, WAIT) == 1);
		CHECK(ep, wc.wr_id == 1 && wc.status == RPCRDMA_PMD_WC_SUCCESS);
	}

	CHECK(ep, chunk != NULL);
	if (chunk != NULL) {
		memset(chunk, 0, 5000);
		rb.addr = (uintptr_t)chunk;
		rb.rkey = pool->rkey;
	}
	oob_put(ep, &rb, sizeof(rb));
	oob_sync(ep, "written");
	CHECK(ep, !up || chunk == NULL || same(chunk, 5000, 6, 0));

	oob_sync(ep, "disconnect");
	if (up) {
		CHECK(ep, rpcrdma_pmd_disconnect(qp) == 0);
		CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_DISCONNECTED, qp, NULL));
	}
	if (qp != NULL)
		ep_qp_destroy(ep, qp);
	oob_sync(ep, "down");

	/* a new QP (iWARP binds a QP to its stream for good) */
	qp = ep_qp_create(ep, NULL);
	if (qp != NULL && rpcrdma_pmd_connect(qp, ep->addr, &two, 1) == 0) {
		CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_REJECTED, qp, &ev));
		CHECK(ep, pdata_is(ep, &ev, no, 2));
	} else {
		ep->failures++;
	}
	oob_sync(ep, "rejected");
	if (qp != NULL)
		ep_qp_destroy(ep, qp);
	if (chunk != NULL)
		rpcrdma_mempool_put(pool, chunk);
	if (buf != NULL)
		inl_put(ep, buf);
}

/*
 * ---- conn_req_handoff_gone (shm): the client goes away while its request
 * is in no device; the device it is handed to takes it, and accept says
 * -ENOTCONN (nothing leaks: the sanitizer run checks) ----
 */

void handoff_gone_server(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qb;
	struct rpcrdma_pmd_event ev;
	struct ep b;
	bool req = false;

	if (ep_open_more(ep, &b) != 0) {
		ep->failures++;
		oob_sync(ep, "handed");
		oob_sync(ep, "gone");
		return;
	}
	CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_CONNECT_REQUEST, NULL, &ev));
	if (ev.req != NULL) {
		CHECK(ep, rpcrdma_pmd_conn_req_handoff(ev.req, b.dev) == 0);
		req = true;
	}
	oob_sync(ep, "handed");
	oob_sync(ep, "gone");
	if (req) {
		CHECK(ep, rpcrdma_pmd_conn_req_adopt(b.dev, ev.req) == 0);
		no_event(&b); /* the hang-up is read: no event for a request */
		qb = ep_qp_create(&b, NULL);
		CHECK(ep, qb != NULL && rpcrdma_pmd_accept(ev.req, qb, NULL, 0) == -ENOTCONN);
		CHECK(ep, qb == NULL || qb->state == RPCRDMA_PMD_QPS_INIT);
	}
	ep_close_more(ep, &b);
}

void handoff_gone_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = ep_qp_create(ep, NULL);

	CHECK(ep, qp != NULL && rpcrdma_pmd_connect(qp, ep->addr, NULL, 0) == 0);
	oob_sync(ep, "handed");
	if (qp != NULL)
		ep_qp_destroy(ep, qp); /* its socket closes */
	oob_sync(ep, "gone");
}

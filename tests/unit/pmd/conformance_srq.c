/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PMD conformance suite: shared receive queues and completion queues shared
 * by many QPs. The server's QPs take their receives from one SRQ; the
 * client (in another process in the cross-process run) sends to them.
 * What each case checks is said above it.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "conformance.h"

#define WAIT 5000 /* ms */

/* An SRQ's receives: the inline buffers posted, by wr_id, until they complete. */
struct srq_bufs {
	void *buf[256];
	unsigned int n;
};

static struct rpcrdma_pmd_srq *srq_make(struct ep *ep, uint32_t max_wr, uint32_t limit)
{
	struct rpcrdma_pmd_srq_attr sa;
	struct rpcrdma_pmd_srq *srq = NULL;
	int ret;

	rpcrdma_pmd_srq_attr_init(&sa);
	sa.max_wr = max_wr;
	sa.max_sge = 2;
	sa.srq_limit = limit;
	sa.context = ep;
	ret = rpcrdma_pmd_srq_create(ep->pd, &sa, &srq);
	CHECK(ep, ret == 0);
	if (ret != 0)
		return NULL;
	CHECK(ep, srq->context == ep && srq->pd == ep->pd && srq->max_wr == max_wr);
	CHECK(ep, srq->nb_qps == 0 && srq->recv_wrs == 0);
	return srq;
}

/* Post @n receives of 4096 bytes on @srq; remember their buffers. */
static void srq_post(struct ep *ep, struct rpcrdma_pmd_srq *srq, struct srq_bufs *b, unsigned int n)
{
	for (unsigned int i = 0; i < n && b->n < 256; i++) {
		void *buf = inl_get(ep);
		struct rpcrdma_pmd_sge s = sge_of(ep->set->inline_pool, buf, 4096);
		struct rpcrdma_pmd_recv_wr wr = { .wr_id = (uintptr_t)buf,
						  .sg_list = &s,
						  .num_sge = 1 };

		if (buf == NULL)
			return;
		if (rpcrdma_pmd_srq_post_recv_burst(srq, &wr, 1) != 1) {
			CHECK(ep, !"srq_post_recv_burst");
			inl_put(ep, buf);
			return;
		}
		b->buf[b->n++] = buf;
	}
}

/* A receive completion gives its buffer back: true if it was one we posted. */
static bool srq_take(struct srq_bufs *b, uint64_t wr_id)
{
	for (unsigned int i = 0; i < b->n; i++)
		if ((uintptr_t)b->buf[i] == wr_id) {
			b->buf[i] = b->buf[--b->n];
			return true;
		}
	return false;
}

/* Destroying the SRQ discards what is still posted: those buffers come back here. */
static void srq_bufs_put(struct ep *ep, struct srq_bufs *b)
{
	while (b->n > 0)
		inl_put(ep, b->buf[--b->n]);
}

static void qp_attr_srq(struct ep *ep, struct rpcrdma_pmd_qp_attr *attr,
			struct rpcrdma_pmd_srq *srq)
{
	ep_qp_attr(ep, attr);
	attr->srq = srq;
	attr->max_recv_wr = 0; /* ignored with an SRQ */
	attr->max_recv_sge = 0;
}

/* send_msg(), the SGE's lkey spoilt by @lkey_xor (0: a good one). */
static bool send_msg_lkey(struct ep *ep, struct rpcrdma_pmd_qp *qp, uint64_t wr_id, uint32_t v,
			  uint32_t len, uint32_t lkey_xor)
{
	void *b = inl_get(ep);
	struct rpcrdma_pmd_sge s;
	struct rpcrdma_pmd_send_wr wr;
	bool ok;

	if (b == NULL)
		return false;
	memset(b, 0, 64);
	memcpy(b, &v, sizeof(v));
	s = sge_of(ep->set->inline_pool, b, len);
	s.lkey ^= lkey_xor;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = RPCRDMA_PMD_WR_SEND;
	wr.flags = RPCRDMA_PMD_SEND_SIGNALED;
	wr.sg_list = &s;
	wr.num_sge = 1;
	ok = ep->nb_scratch < EP_SCRATCH_MAX && post_send1(qp, &wr);
	/* the data is read when the SEND executes: the buffer stays until the case ends */
	if (!ok)
		inl_put(ep, b);
	else
		ep->scratch[ep->nb_scratch++] = b;
	return ok;
}

/* A signaled SEND of @len bytes starting with @v, from a scratch buffer. */
static bool send_msg(struct ep *ep, struct rpcrdma_pmd_qp *qp, uint64_t wr_id, uint32_t v,
		     uint32_t len)
{
	return send_msg_lkey(ep, qp, wr_id, v, len, 0);
}

/*
 * send_msg_lkey(), then its completion: the only one, that WR's, with
 * @status.
 */
static bool send_msg_done(struct ep *ep, struct rpcrdma_pmd_qp *qp, uint64_t wr_id, uint32_t v,
			  uint32_t len, uint32_t lkey_xor, uint8_t status)
{
	struct rpcrdma_pmd_wc wc;

	return send_msg_lkey(ep, qp, wr_id, v, len, lkey_xor) && poll_n(ep, &wc, 1, WAIT) == 1 &&
	       wc.status == status && wc.wr_id == wr_id;
}

static void scratch_put(struct ep *ep)
{
	while (ep->nb_scratch > 0)
		inl_put(ep, ep->scratch[--ep->nb_scratch]);
}

/* A receive posted on a QP of an SRQ: refused. @return true if it was taken. */
static bool qp_recv_taken(struct ep *ep, struct rpcrdma_pmd_qp *qp)
{
	void *b = inl_get(ep);
	struct rpcrdma_pmd_sge s = sge_of(ep->set->inline_pool, b, 4096);
	struct rpcrdma_pmd_recv_wr wr = { .wr_id = (uintptr_t)b, .sg_list = &s, .num_sge = 1 };
	uint16_t n = rpcrdma_pmd_post_recv_burst(qp, &wr, 1);

	inl_put(ep, b);
	return n != 0;
}

static unsigned int poll_cq_n(struct rpcrdma_pmd_cq *cq, struct rpcrdma_pmd_wc *wc, unsigned int n,
			      unsigned int ms)
{
	uint64_t end = test_now_ms() + ms;
	unsigned int got = 0;

	while (got < n) {
		uint16_t k = rpcrdma_pmd_poll_cq_burst(cq, wc + got, (uint16_t)(n - got));

		got += k;
		if (k == 0 && test_now_ms() >= end)
			break;
	}
	return got;
}

/* Every event until none comes for @ms; how many were SRQ_LIMIT for @srq. */
static unsigned int srq_limit_events(struct ep *ep, struct rpcrdma_pmd_srq *srq, unsigned int ms)
{
	uint64_t end = test_now_ms() + ms;
	unsigned int n = 0;

	while (test_now_ms() < end) {
		struct rpcrdma_pmd_event ev;

		if (rpcrdma_pmd_event_poll(ep->dev, &ev, 1) != 1)
			continue;
		if (ev.type == RPCRDMA_PMD_EVENT_SRQ_LIMIT) {
			CHECK(ep, ev.srq == srq && ev.qp == NULL);
			n++;
		}
	}
	return n;
}

/*
 * ---- srq_send_recv: four QPs on one SRQ. Each SEND lands in the SRQ's
 * next receive and its completion names the QP it came in on; posting on
 * an attached QP is refused; a QP of the SRQ that goes to error (its peer
 * disconnects) flushes nothing of the SRQ, whose receives go on serving
 * the other QPs; destroy order gives -EBUSY ----
 */

#define SRQ_NQP 4

void srq_send_recv_server(struct ep *ep)
{
	struct rpcrdma_pmd_srq *srq = srq_make(ep, 64, 0);
	struct rpcrdma_pmd_qp_attr attr;
	struct rpcrdma_pmd_qp *qps[SRQ_NQP];
	struct rpcrdma_pmd_wc wc[16];
	struct srq_bufs b = { .n = 0 };
	unsigned int i, n, got[SRQ_NQP];
	uint32_t nb_wrs_before = ep->cq->nb_wrs;

	if (srq == NULL)
		return;
	qp_attr_srq(ep, &attr, srq);
	for (i = 0; i < SRQ_NQP; i++) {
		qps[i] = ep_qp_create(ep, &attr);
		if (qps[i] == NULL)
			return;
		CHECK(ep, qps[i]->srq == srq && qps[i]->max_recv_wr == 0);
	}
	CHECK(ep, srq->nb_qps == SRQ_NQP);
	/* the SRQ's max_wr counts once against the CQ, whatever the number of QPs */
	CHECK(ep, ep->cq->nb_wrs == nb_wrs_before + SRQ_NQP * attr.max_send_wr + srq->max_wr);
	CHECK(ep, !qp_recv_taken(ep, qps[0])); /* no receive queue of its own */
	CHECK(ep, qps[0]->stats.recv_wrs == 0);
	srq_post(ep, srq, &b, 12);
	CHECK(ep, srq->recv_wrs == 12 && b.n == 12);
	for (i = 0; i < SRQ_NQP; i++)
		CHECK(ep, srv_accept(ep, qps[i]));
	oob_sync(ep, "posted");

	/* two messages on each QP: the first word says which QP the client sent on */
	memset(got, 0, sizeof(got));
	n = poll_n(ep, wc, 2 * SRQ_NQP, WAIT);
	CHECK(ep, n == 2 * SRQ_NQP);
	for (i = 0; i < n; i++) {
		uint32_t v = *(const uint32_t *)(uintptr_t)wc[i].wr_id;

		CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_SUCCESS);
		CHECK(ep, wc[i].opcode == RPCRDMA_PMD_WC_RECV && wc[i].byte_len == 64);
		CHECK(ep, v < SRQ_NQP && wc[i].qp == qps[v] && wc[i].qp_num == qps[v]->qp_num);
		CHECK(ep, srq_take(&b, wc[i].wr_id));
		if (v < SRQ_NQP)
			got[v]++;
		inl_put(ep, (void *)(uintptr_t)wc[i].wr_id);
	}
	for (i = 0; i < SRQ_NQP; i++)
		CHECK(ep, got[i] == 2);
	CHECK(ep, b.n == 12 - 2 * SRQ_NQP);
	oob_sync(ep, "received");

	/* the client disconnects QP 0: it goes to error, the SRQ keeps its receives */
	CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_DISCONNECTED, qps[0], NULL));
	CHECK(ep, qps[0]->state == RPCRDMA_PMD_QPS_ERROR);
	CHECK(ep, poll_n(ep, wc, 1, 100) == 0);
	oob_sync(ep, "disconnected");
	/* ... and serve QP 1 */
	n = poll_n(ep, wc, 1, WAIT);
	CHECK(ep, n == 1);
	if (n == 1) {
		CHECK(ep, wc[0].status == RPCRDMA_PMD_WC_SUCCESS && wc[0].qp == qps[1]);
		CHECK(ep, *(const uint32_t *)(uintptr_t)wc[0].wr_id == 1);
		CHECK(ep, srq_take(&b, wc[0].wr_id));
		inl_put(ep, (void *)(uintptr_t)wc[0].wr_id);
	}
	CHECK(ep, b.n == 12 - 2 * SRQ_NQP - 1);
	oob_sync(ep, "served");

	/* destroy order: not while a QP is attached, nor the PD while the SRQ lives */
	CHECK(ep, rpcrdma_pmd_srq_destroy(srq) == -EBUSY);
	CHECK(ep, rpcrdma_pmd_pd_free(ep->pd) == -EBUSY);
	for (i = 0; i < SRQ_NQP; i++)
		ep_qp_destroy(ep, qps[i]);
	CHECK(ep, srq->nb_qps == 0);
	CHECK(ep, ep->cq->nb_wrs == nb_wrs_before);
	CHECK(ep, rpcrdma_pmd_srq_destroy(srq) == 0);
	/* the SRQ's receives were discarded without completions */
	CHECK(ep, poll_n(ep, wc, 1, 10) == 0);
	srq_bufs_put(ep, &b);
}

void srq_send_recv_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qps[SRQ_NQP];
	struct rpcrdma_pmd_wc wc[16];
	unsigned int i, n;

	for (i = 0; i < SRQ_NQP; i++) {
		qps[i] = ep_qp_create(ep, NULL);
		if (qps[i] == NULL || !cli_connect(ep, qps[i]))
			qps[i] = NULL;
	}
	oob_sync(ep, "posted");
	for (i = 0; i < 2 * SRQ_NQP; i++)
		if (qps[i % SRQ_NQP] != NULL)
			CHECK(ep, send_msg(ep, qps[i % SRQ_NQP], i, i % SRQ_NQP, 64));
	n = poll_n(ep, wc, 2 * SRQ_NQP, WAIT);
	CHECK(ep, n == 2 * SRQ_NQP);
	for (i = 0; i < n; i++)
		CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_SUCCESS &&
				  wc[i].qp == qps[wc[i].wr_id % SRQ_NQP]);
	scratch_put(ep);
	oob_sync(ep, "received");
	if (qps[0] != NULL) {
		CHECK(ep, rpcrdma_pmd_disconnect(qps[0]) == 0);
		CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_DISCONNECTED, qps[0], NULL));
	}
	oob_sync(ep, "disconnected");
	if (qps[1] != NULL)
		CHECK(ep, send_msg_done(ep, qps[1], 100, 1, 64, 0, RPCRDMA_PMD_WC_SUCCESS));
	scratch_put(ep);
	oob_sync(ep, "served");
}

/*
 * ---- srq_rnr: a SEND that finds the SRQ empty is retried as for an empty
 * receive queue: with rnr_retry 2 it fails with RNR_RETRY_EXC_ERR; with 7
 * it waits, and lands once the server posts to the SRQ ----
 */

static void srq_rnr_attr(struct ep *ep, struct rpcrdma_pmd_qp_attr *attr, uint8_t retry)
{
	ep_qp_attr(ep, attr);
	attr->rnr_retry = retry;
	attr->rnr_timer_us = 2000;
}

void srq_rnr_server(struct ep *ep)
{
	struct rpcrdma_pmd_srq *srq = srq_make(ep, 16, 0);
	struct rpcrdma_pmd_qp_attr attr;
	struct rpcrdma_pmd_qp *qa, *qb;
	struct srq_bufs b = { .n = 0 };
	struct rpcrdma_pmd_wc wc[2];
	unsigned int n;

	if (srq == NULL)
		return;
	srq_rnr_attr(ep, &attr, 7);
	attr.srq = srq;
	qa = ep_qp_create(ep, &attr);
	qb = ep_qp_create(ep, &attr);
	if (qa == NULL || qb == NULL)
		return;
	CHECK(ep, srv_accept(ep, qa));
	CHECK(ep, srv_accept(ep, qb));
	oob_sync(ep, "rnr exceeded");
	/* the requester's RNR error leaves the responder's QP as it was */
	CHECK(ep, qa->state == RPCRDMA_PMD_QPS_RTS);
	CHECK(ep, poll_n(ep, wc, 1, 10) == 0);
	oob_sync(ep, "sent");
	usleep(20000);
	srq_post(ep, srq, &b, 1);
	n = poll_n(ep, wc, 1, WAIT);
	CHECK(ep, n == 1);
	if (n == 1) {
		CHECK(ep, wc[0].status == RPCRDMA_PMD_WC_SUCCESS && wc[0].byte_len == 32);
		CHECK(ep, wc[0].qp == qb && wc[0].qp_num == qb->qp_num);
		CHECK(ep, srq_take(&b, wc[0].wr_id));
		inl_put(ep, (void *)(uintptr_t)wc[0].wr_id);
	}
	oob_sync(ep, "landed");
	ep_qp_destroy(ep, qa);
	ep_qp_destroy(ep, qb);
	CHECK(ep, rpcrdma_pmd_srq_destroy(srq) == 0);
	srq_bufs_put(ep, &b);
}

void srq_rnr_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp_attr attr;
	struct rpcrdma_pmd_qp *qa, *qb;
	struct rpcrdma_pmd_wc wc[2];
	unsigned int n;

	srq_rnr_attr(ep, &attr, 2);
	qa = ep_qp_create(ep, &attr);
	srq_rnr_attr(ep, &attr, 7);
	qb = ep_qp_create(ep, &attr);
	if (qa == NULL || qb == NULL || !cli_connect(ep, qa) || !cli_connect(ep, qb)) {
		oob_sync(ep, "rnr exceeded");
		oob_sync(ep, "sent");
		oob_sync(ep, "landed");
		return;
	}
	CHECK(ep, send_msg(ep, qa, 1, 0, 32));
	n = poll_n(ep, wc, 1, WAIT);
	CHECK(ep, n == 1 && wc[0].wr_id == 1 && wc[0].qp == qa &&
			  wc[0].status == RPCRDMA_PMD_WC_RNR_RETRY_EXC_ERR);
	CHECK(ep, qa->state == RPCRDMA_PMD_QPS_ERROR);
	CHECK(ep, qa->stats.rnr_retries == (ep_is_shm(ep) ? 2 : 0));
	oob_sync(ep, "rnr exceeded");
	CHECK(ep, send_msg(ep, qb, 2, 1, 32));
	oob_sync(ep, "sent");
	n = poll_n(ep, wc, 1, WAIT);
	CHECK(ep, n == 1 && wc[0].wr_id == 2 && wc[0].status == RPCRDMA_PMD_WC_SUCCESS);
	CHECK(ep, ep_is_shm(ep) ? qb->stats.rnr_retries > 0 : qb->stats.rnr_retries == 0);
	oob_sync(ep, "landed");
	scratch_put(ep);
}

/*
 * ---- srq_limit: the limit event comes once when a SEND takes a receive
 * and leaves fewer posted than the armed limit (armed at creation here),
 * not before; not again until re-armed; not when armed below what is posted
 * until a receive is taken (verbs); never once disarmed; a limit above
 * max_wr is refused ----
 */

void srq_limit_server(struct ep *ep)
{
	struct rpcrdma_pmd_srq *srq = srq_make(ep, 16, 4); /* armed at creation */
	struct rpcrdma_pmd_qp_attr attr;
	struct rpcrdma_pmd_qp *qp;
	struct srq_bufs b = { .n = 0 };
	struct rpcrdma_pmd_wc wc[10];
	unsigned int n, i;

	if (srq == NULL)
		return;
	qp_attr_srq(ep, &attr, srq);
	qp = ep_qp_create(ep, &attr);
	if (qp == NULL)
		return;
	CHECK(ep, rpcrdma_pmd_srq_arm(srq, 17) == -EINVAL);
	srq_post(ep, srq, &b, 8);
	CHECK(ep, srv_accept(ep, qp));
	/* 8 posted, limit 4: nothing */
	CHECK(ep, srq_limit_events(ep, srq, 50) == 0);
	oob_sync(ep, "posted");
	oob_sync(ep, "sent 5"); /* 3 left, below 4: one event */
	n = poll_n(ep, wc, 5, WAIT);
	CHECK(ep, n == 5);
	CHECK(ep, srq_limit_events(ep, srq, 500) == 1);
	/* one-shot */
	CHECK(ep, srq_limit_events(ep, srq, 50) == 0);
	/* re-armed at 2 with 3 posted: nothing yet */
	CHECK(ep, rpcrdma_pmd_srq_arm(srq, 2) == 0);
	CHECK(ep, srq_limit_events(ep, srq, 50) == 0);
	oob_sync(ep, "armed 2");
	oob_sync(ep, "sent 2"); /* 1 left: one event */
	n += poll_n(ep, wc + n, 2, WAIT);
	CHECK(ep, n == 7);
	CHECK(ep, srq_limit_events(ep, srq, 500) == 1);
	/* armed at 5 with 1 posted: nothing until a receive is taken */
	CHECK(ep, rpcrdma_pmd_srq_arm(srq, 5) == 0);
	CHECK(ep, srq_limit_events(ep, srq, 50) == 0);
	oob_sync(ep, "armed 5");
	oob_sync(ep, "sent 1"); /* 0 left: one event */
	n += poll_n(ep, wc + n, 1, WAIT);
	CHECK(ep, n == 8);
	CHECK(ep, srq_limit_events(ep, srq, 500) == 1);
	/* disarmed: a receive taken below the old limit gives nothing */
	srq_post(ep, srq, &b, 2);
	CHECK(ep, rpcrdma_pmd_srq_arm(srq, 2) == 0);
	CHECK(ep, rpcrdma_pmd_srq_arm(srq, 0) == 0);
	oob_sync(ep, "disarmed");
	oob_sync(ep, "sent last");
	n += poll_n(ep, wc + n, 1, WAIT);
	CHECK(ep, n == 9);
	CHECK(ep, srq_limit_events(ep, srq, 200) == 0);
	for (i = 0; i < n; i++) {
		CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_SUCCESS && wc[i].qp == qp);
		CHECK(ep, srq_take(&b, wc[i].wr_id));
		inl_put(ep, (void *)(uintptr_t)wc[i].wr_id);
	}
	CHECK(ep, b.n == 1);
	oob_sync(ep, "done");
	ep_qp_destroy(ep, qp);
	CHECK(ep, rpcrdma_pmd_srq_destroy(srq) == 0);
	srq_bufs_put(ep, &b);
}

/* Send @k messages and wait for their completions. */
static void limit_send(struct ep *ep, struct rpcrdma_pmd_qp *qp, unsigned int k, bool ok)
{
	struct rpcrdma_pmd_wc wc[8];

	for (unsigned int i = 0; ok && i < k; i++)
		CHECK(ep, send_msg(ep, qp, i, 0, 16));
	if (ok) {
		CHECK(ep, poll_n(ep, wc, k, WAIT) == k);
		for (unsigned int i = 0; i < k; i++)
			CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_SUCCESS);
	}
}

void srq_limit_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = ep_qp_create(ep, NULL);
	bool ok = qp != NULL && cli_connect(ep, qp);

	oob_sync(ep, "posted");
	limit_send(ep, qp, 5, ok);
	oob_sync(ep, "sent 5");
	oob_sync(ep, "armed 2");
	limit_send(ep, qp, 2, ok);
	oob_sync(ep, "sent 2");
	oob_sync(ep, "armed 5");
	limit_send(ep, qp, 1, ok);
	oob_sync(ep, "sent 1");
	oob_sync(ep, "disarmed");
	limit_send(ep, qp, 1, ok);
	oob_sync(ep, "sent last");
	oob_sync(ep, "done");
	scratch_put(ep);
}

/*
 * ---- srq_two_cqs: two QPs of one SRQ on two receive CQs: each receive
 * completes on the CQ of the QP it arrived on, whichever CQ is polled
 * first; the SRQ counts once against each ----
 */

void srq_two_cqs_server(struct ep *ep)
{
	struct rpcrdma_pmd_srq *srq = srq_make(ep, 8, 0);
	struct rpcrdma_pmd_cq *rcq[2] = { NULL, NULL };
	struct rpcrdma_pmd_qp_attr attr;
	struct rpcrdma_pmd_qp *qps[2];
	struct rpcrdma_pmd_wc wc[8];
	struct srq_bufs b = { .n = 0 };
	unsigned int i, k, n;

	if (srq == NULL)
		return;
	for (i = 0; i < 2; i++) {
		CHECK(ep, rpcrdma_pmd_cq_create(ep->dev, 64, &rcq[i]) == 0);
		if (rcq[i] == NULL)
			return;
	}
	for (i = 0; i < 2; i++) {
		qp_attr_srq(ep, &attr, srq);
		attr.recv_cq = rcq[i];
		qps[i] = ep_qp_create(ep, &attr);
		if (qps[i] == NULL)
			return;
		CHECK(ep, rcq[i]->nb_qps == 1 && rcq[i]->nb_wrs == srq->max_wr);
	}
	srq_post(ep, srq, &b, 4);
	for (i = 0; i < 2; i++)
		CHECK(ep, srv_accept(ep, qps[i]));
	oob_sync(ep, "posted");
	oob_sync(ep, "sent");
	/* the second CQ first: the first QP's receives wait on the first CQ */
	for (k = 2; k-- > 0;) {
		n = poll_cq_n(rcq[k], wc, 2, WAIT);
		/* and no third: a short wait, once the two have come */
		n += poll_cq_n(rcq[k], wc + n, 1, n == 2 ? 50 : 0);
		CHECK(ep, n == 2);
		for (i = 0; i < n; i++) {
			CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_SUCCESS &&
					  wc[i].opcode == RPCRDMA_PMD_WC_RECV);
			CHECK(ep, wc[i].qp == qps[k] && wc[i].qp_num == qps[k]->qp_num);
			CHECK(ep, *(const uint32_t *)(uintptr_t)wc[i].wr_id == k);
			CHECK(ep, srq_take(&b, wc[i].wr_id));
			inl_put(ep, (void *)(uintptr_t)wc[i].wr_id);
		}
	}
	CHECK(ep, poll_n(ep, wc, 1, 10) == 0); /* nothing on the send CQ's side either */
	oob_sync(ep, "received");
	for (i = 0; i < 2; i++)
		ep_qp_destroy(ep, qps[i]);
	for (i = 0; i < 2; i++) {
		CHECK(ep, rcq[i]->nb_qps == 0 && rcq[i]->nb_wrs == 0);
		CHECK(ep, rpcrdma_pmd_cq_destroy(rcq[i]) == 0);
	}
	CHECK(ep, rpcrdma_pmd_srq_destroy(srq) == 0);
	srq_bufs_put(ep, &b);
}

void srq_two_cqs_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qps[2];
	struct rpcrdma_pmd_wc wc[4];
	unsigned int i;
	bool ok = true;

	for (i = 0; i < 2; i++) {
		qps[i] = ep_qp_create(ep, NULL);
		ok = ok && qps[i] != NULL && cli_connect(ep, qps[i]);
	}
	oob_sync(ep, "posted");
	/* interleaved: A, B, A, B */
	for (i = 0; ok && i < 4; i++)
		CHECK(ep, send_msg(ep, qps[i % 2], i, i % 2, 32));
	if (ok)
		CHECK(ep, poll_n(ep, wc, 4, WAIT) == 4);
	oob_sync(ep, "sent");
	oob_sync(ep, "received");
	scratch_put(ep);
}

/*
 * ---- cq_shared: many QPs (64; 30 on siw, which makes 63 per device
 * context) on one send CQ and one receive CQ at each end, the server's on
 * an SRQ: every completion names its QP, each QP's exactly once ----
 */

#define CQS_NQP 64

static unsigned int cqs_nqp(const struct ep *ep)
{
	return ep->info.vendor_id == SIW_VENDOR_ID ? 30 : CQS_NQP;
}

struct cqs {
	struct rpcrdma_pmd_cq *scq, *rcq;
	struct rpcrdma_pmd_qp *qps[CQS_NQP];
};

static bool cqs_open(struct ep *ep, struct cqs *c, unsigned int nqp)
{
	CHECK(ep, rpcrdma_pmd_cq_create(ep->dev, nqp * 4, &c->scq) == 0);
	CHECK(ep, rpcrdma_pmd_cq_create(ep->dev, nqp * 4, &c->rcq) == 0);
	return c->scq != NULL && c->rcq != NULL;
}

static void cqs_close(struct ep *ep, struct cqs *c, unsigned int nqp)
{
	for (unsigned int i = 0; i < nqp; i++)
		if (c->qps[i] != NULL)
			ep_qp_destroy(ep, c->qps[i]);
	CHECK(ep, c->scq->nb_qps == 0 && c->scq->nb_wrs == 0);
	CHECK(ep, c->rcq->nb_qps == 0 && c->rcq->nb_wrs == 0);
	CHECK(ep, rpcrdma_pmd_cq_destroy(c->scq) == 0);
	CHECK(ep, rpcrdma_pmd_cq_destroy(c->rcq) == 0);
}

/* Accept or connect every QP; the private data says which. */
static bool cqs_connect(struct ep *ep, struct cqs *c, unsigned int nqp)
{
	unsigned int i, est = 0, acc = 0;
	uint64_t end = test_now_ms() + 4 * WAIT;

	for (i = 0; !ep->server && i < nqp; i++) {
		uint8_t pd[2] = { (uint8_t)i, (uint8_t)(i >> 8) };

		CHECK(ep, rpcrdma_pmd_connect(c->qps[i], ep->addr, pd, 2) == 0);
	}
	while (est < nqp && test_now_ms() < end) {
		struct rpcrdma_pmd_event ev;

		if (rpcrdma_pmd_event_poll(ep->dev, &ev, 1) != 1)
			continue;
		if (ev.type == RPCRDMA_PMD_EVENT_CONNECT_REQUEST) {
			unsigned int idx = ev.private_data[0] | ev.private_data[1] << 8;

			CHECK(ep, idx < nqp);
			if (idx < nqp)
				CHECK(ep, rpcrdma_pmd_accept(ev.req, c->qps[idx], NULL, 0) == 0);
			acc++;
		} else if (ev.type == RPCRDMA_PMD_EVENT_ESTABLISHED) {
			est++;
		}
	}
	CHECK(ep, est == nqp && (!ep->server || acc == nqp));
	return est == nqp;
}

/* Which QP of @c a completion names; nqp if none. */
static unsigned int cqs_which(const struct cqs *c, unsigned int nqp,
			      const struct rpcrdma_pmd_wc *wc)
{
	for (unsigned int i = 0; i < nqp; i++)
		if (wc->qp == c->qps[i])
			return wc->qp_num == c->qps[i]->qp_num ? i : nqp;
	return nqp;
}

/*
 * One more message in on each QP. The server takes one completion, then
 * destroys every other QP with the rest of theirs still to poll: what it
 * polls after names only a QP still there, each once.
 */
static void cqs_destroy_some(struct ep *ep, struct rpcrdma_pmd_srq *srq, struct srq_bufs *b,
			     struct cqs *c, unsigned int nqp)
{
	struct rpcrdma_pmd_wc wc[CQS_NQP];
	unsigned int i, n, first, want = 0, got[CQS_NQP];

	srq_post(ep, srq, b, nqp);
	oob_sync(ep, "reposted");
	oob_sync(ep, "sent again");
	n = poll_cq_n(c->rcq, wc, 1, 2 * WAIT);
	CHECK(ep, n == 1);
	first = n == 1 ? cqs_which(c, nqp, &wc[0]) : nqp;
	CHECK(ep, first < nqp);
	if (n == 1 && srq_take(b, wc[0].wr_id))
		inl_put(ep, (void *)(uintptr_t)wc[0].wr_id);
	for (i = 0; i < nqp; i++) {
		if (i % 2 == 0 && i != first) {
			ep_qp_destroy(ep, c->qps[i]);
			c->qps[i] = NULL;
		} else if (i != first) {
			want++;
		}
	}
	/* the destroyed QPs' buffers stay in b: they come back with the SRQ's */
	memset(got, 0, sizeof(got));
	n = poll_cq_n(c->rcq, wc, want, 2 * WAIT);
	CHECK(ep, n == want);
	for (i = 0; i < n; i++) {
		unsigned int q = cqs_which(c, nqp, &wc[i]);

		CHECK(ep, q < nqp && c->qps[q] != NULL && q != first);
		CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_SUCCESS &&
				  wc[i].opcode == RPCRDMA_PMD_WC_RECV);
		if (q < nqp)
			got[q]++;
		if (srq_take(b, wc[i].wr_id))
			inl_put(ep, (void *)(uintptr_t)wc[i].wr_id);
	}
	for (i = 0; i < nqp; i++)
		CHECK(ep, got[i] == (c->qps[i] != NULL && i != first));
	CHECK(ep, poll_cq_n(c->rcq, wc, 1, 10) == 0);
	oob_sync(ep, "checked");
}

void cq_shared_server(struct ep *ep)
{
	unsigned int nqp = cqs_nqp(ep), i, n, got[CQS_NQP];
	struct rpcrdma_pmd_srq *srq = srq_make(ep, 2 * CQS_NQP, 0);
	struct rpcrdma_pmd_wc wc[2 * CQS_NQP];
	struct rpcrdma_pmd_qp_attr attr;
	struct srq_bufs b = { .n = 0 };
	struct cqs c;
	bool ok;

	memset(&c, 0, sizeof(c));
	if (srq == NULL || !cqs_open(ep, &c, nqp))
		return;
	qp_attr_srq(ep, &attr, srq);
	attr.send_cq = c.scq;
	attr.recv_cq = c.rcq;
	attr.max_send_wr = 4;
	for (i = 0; i < nqp; i++)
		c.qps[i] = ep_qp_create(ep, &attr);
	CHECK(ep, c.scq->nb_qps == nqp && c.scq->nb_wrs == 4 * nqp);
	CHECK(ep, c.rcq->nb_qps == nqp && c.rcq->nb_wrs == srq->max_wr);
	srq_post(ep, srq, &b, nqp);
	oob_sync(ep, "created");
	ok = cqs_connect(ep, &c, nqp);
	oob_sync(ep, "connected");
	/* one message in on each QP ... */
	memset(got, 0, sizeof(got));
	n = ok ? poll_cq_n(c.rcq, wc, nqp, 2 * WAIT) : 0;
	CHECK(ep, n == nqp);
	for (i = 0; i < n; i++) {
		unsigned int q = cqs_which(&c, nqp, &wc[i]);

		CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_SUCCESS &&
				  wc[i].opcode == RPCRDMA_PMD_WC_RECV);
		CHECK(ep, q < nqp && *(const uint32_t *)(uintptr_t)wc[i].wr_id == q);
		if (q < nqp)
			got[q]++;
		CHECK(ep, srq_take(&b, wc[i].wr_id));
		inl_put(ep, (void *)(uintptr_t)wc[i].wr_id);
	}
	/* ... and one out on each, its send completion on the shared send CQ */
	for (i = 0; ok && i < nqp; i++)
		CHECK(ep, send_msg(ep, c.qps[i], 1000 + i, i, 8));
	n = ok ? poll_cq_n(c.scq, wc, nqp, 2 * WAIT) : 0;
	CHECK(ep, n == nqp);
	for (i = 0; i < n; i++) {
		unsigned int q = cqs_which(&c, nqp, &wc[i]);

		CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_SUCCESS &&
				  wc[i].opcode == RPCRDMA_PMD_WC_SEND);
		CHECK(ep, q < nqp && wc[i].wr_id == 1000 + q);
		if (q < nqp)
			got[q]++;
	}
	for (i = 0; i < nqp; i++)
		CHECK(ep, got[i] == 2);
	CHECK(ep, poll_cq_n(c.rcq, wc, 1, 10) == 0 && poll_cq_n(c.scq, wc, 1, 10) == 0);
	oob_sync(ep, "exchanged");
	if (ok)
		cqs_destroy_some(ep, srq, &b, &c, nqp);
	cqs_close(ep, &c, nqp);
	CHECK(ep, rpcrdma_pmd_srq_destroy(srq) == 0);
	srq_bufs_put(ep, &b);
	scratch_put(ep);
}

void cq_shared_client(struct ep *ep)
{
	unsigned int nqp = cqs_nqp(ep), i, n, got[CQS_NQP];
	struct rpcrdma_pmd_wc wc[2 * CQS_NQP];
	struct rpcrdma_pmd_qp_attr attr;
	struct cqs c;
	bool ok;

	memset(&c, 0, sizeof(c));
	if (!cqs_open(ep, &c, nqp))
		return;
	ep_qp_attr(ep, &attr);
	attr.send_cq = c.scq;
	attr.recv_cq = c.rcq;
	attr.max_send_wr = 4;
	attr.max_recv_wr = 4;
	for (i = 0; i < nqp; i++) {
		c.qps[i] = ep_qp_create(ep, &attr);
		if (c.qps[i] != NULL)
			CHECK(ep, post_inline_recv(ep, c.qps[i], 4096));
	}
	CHECK(ep, c.rcq->nb_qps == nqp && c.rcq->nb_wrs == 4 * nqp);
	oob_sync(ep, "created");
	ok = cqs_connect(ep, &c, nqp);
	oob_sync(ep, "connected");
	memset(got, 0, sizeof(got));
	for (i = 0; ok && i < nqp; i++)
		CHECK(ep, send_msg(ep, c.qps[i], i, i, 4));
	n = ok ? poll_cq_n(c.scq, wc, nqp, 2 * WAIT) : 0;
	CHECK(ep, n == nqp);
	for (i = 0; i < n; i++) {
		unsigned int q = cqs_which(&c, nqp, &wc[i]);

		CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_SUCCESS && q < nqp && wc[i].wr_id == q);
		if (q < nqp)
			got[q]++;
	}
	n = ok ? poll_cq_n(c.rcq, wc, nqp, 2 * WAIT) : 0;
	CHECK(ep, n == nqp);
	for (i = 0; i < n; i++) {
		unsigned int q = cqs_which(&c, nqp, &wc[i]);

		CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_SUCCESS &&
				  wc[i].opcode == RPCRDMA_PMD_WC_RECV && wc[i].byte_len == 8);
		CHECK(ep, q < nqp && *(const uint32_t *)(uintptr_t)wc[i].wr_id == q);
		if (q < nqp)
			got[q]++;
	}
	put_recv_bufs(ep, wc, n);
	for (i = 0; i < nqp; i++)
		CHECK(ep, got[i] == 2);
	oob_sync(ep, "exchanged");
	if (ok) {
		/* one more message on each QP (cqs_destroy_some()) */
		oob_sync(ep, "reposted");
		for (i = 0; i < nqp; i++)
			CHECK(ep, send_msg(ep, c.qps[i], 2000 + i, i, 4));
		n = poll_cq_n(c.scq, wc, nqp, 2 * WAIT);
		CHECK(ep, n == nqp);
		for (i = 0; i < n; i++)
			CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_SUCCESS);
		oob_sync(ep, "sent again");
		oob_sync(ep, "checked");
	}
	cqs_close(ep, &c, nqp);
	scratch_put(ep);
}

/*
 * ---- srq_bad_args: every control-path mistake refused, with nothing
 * created: NULL arguments, sizes of 0 or above the device's, a limit above
 * max_wr, an SRQ of another PD, destroy order (-EBUSY); and the CQ
 * accounting of SRQ QPs. No connection: both halves do the same ----
 */

void srq_bad_args_half(struct ep *ep)
{
	struct rpcrdma_pmd_srq_attr sa;
	struct rpcrdma_pmd_srq *srq = NULL, *s2 = (void *)1;
	struct rpcrdma_pmd_qp_attr attr;
	struct rpcrdma_pmd_qp *q1, *q2, *q3 = (void *)1;
	struct rpcrdma_pmd_pd *pd2 = NULL;
	struct rpcrdma_pmd_sge sge[3];
	struct rpcrdma_pmd_recv_wr wr;
	uint32_t before = ep->cq->nb_wrs;
	void *buf;

	CHECK(ep, ep->info.max_srq > 0 && ep->info.max_srq_wr > 0 && ep->info.max_srq_sge > 0);
	rpcrdma_pmd_srq_attr_init(&sa);
	CHECK(ep, sa.max_wr > 0 && sa.max_sge > 0 && sa.srq_limit == 0 && sa.context == NULL);
	CHECK(ep, rpcrdma_pmd_srq_create(NULL, &sa, &s2) == -EINVAL);
	CHECK(ep, rpcrdma_pmd_srq_create(ep->pd, NULL, &s2) == -EINVAL);
	CHECK(ep, rpcrdma_pmd_srq_create(ep->pd, &sa, NULL) == -EINVAL);
	sa.max_wr = 0;
	CHECK(ep, rpcrdma_pmd_srq_create(ep->pd, &sa, &s2) == -EINVAL);
	sa.max_wr = ep->info.max_srq_wr + 1;
	if (sa.max_wr != 0)
		CHECK(ep, rpcrdma_pmd_srq_create(ep->pd, &sa, &s2) == -EINVAL);
	sa.max_wr = 16;
	sa.max_sge = 0;
	CHECK(ep, rpcrdma_pmd_srq_create(ep->pd, &sa, &s2) == -EINVAL);
	sa.max_sge = (uint16_t)(ep->info.max_srq_sge + 1);
	if (sa.max_sge != 0)
		CHECK(ep, rpcrdma_pmd_srq_create(ep->pd, &sa, &s2) == -EINVAL);
	sa.max_sge = 2;
	sa.srq_limit = 17;
	CHECK(ep, rpcrdma_pmd_srq_create(ep->pd, &sa, &s2) == -EINVAL);
	CHECK(ep, s2 == (void *)1); /* untouched on error */
	CHECK(ep, rpcrdma_pmd_srq_destroy(NULL) == -EINVAL);
	CHECK(ep, rpcrdma_pmd_srq_arm(NULL, 1) == -EINVAL);
	sa.srq_limit = 0;
	CHECK(ep, rpcrdma_pmd_srq_create(ep->pd, &sa, &srq) == 0);
	if (srq == NULL)
		return;
	CHECK(ep, rpcrdma_pmd_srq_arm(srq, 17) == -EINVAL);
	CHECK(ep, rpcrdma_pmd_srq_arm(srq, 16) == 0);
	CHECK(ep, rpcrdma_pmd_srq_arm(srq, 0) == 0);

	/* a receive with more SGEs than max_sge is not taken */
	buf = inl_get(ep);
	sge[0] = sge_of(ep->set->inline_pool, buf, 16);
	sge[1] = sge_of(ep->set->inline_pool, (char *)buf + 16, 16);
	sge[2] = sge_of(ep->set->inline_pool, (char *)buf + 32, 16);
	wr.wr_id = 1;
	wr.sg_list = sge;
	wr.num_sge = 3;
	CHECK(ep, rpcrdma_pmd_srq_post_recv_burst(srq, &wr, 1) == 0);
	CHECK(ep, srq->recv_wrs == 0);
	wr.num_sge = 2;
	CHECK(ep, rpcrdma_pmd_srq_post_recv_burst(srq, &wr, 1) == 1);
	CHECK(ep, srq->recv_wrs == 1);

	/* QPs of the SRQ: the SRQ's 16 WRs count once against the CQ */
	qp_attr_srq(ep, &attr, srq);
	CHECK(ep, rpcrdma_pmd_qp_create(ep->pd, &attr, &q1) == 0);
	CHECK(ep, ep->cq->nb_wrs == before + attr.max_send_wr + 16);
	CHECK(ep, rpcrdma_pmd_qp_create(ep->pd, &attr, &q2) == 0);
	CHECK(ep, ep->cq->nb_wrs == before + 2 * attr.max_send_wr + 16);
	CHECK(ep, srq->nb_qps == 2);
	/* an SRQ of another PD */
	CHECK(ep, rpcrdma_pmd_pd_alloc(ep->dev, &pd2) == 0);
	if (pd2 != NULL) {
		CHECK(ep, rpcrdma_pmd_qp_create(pd2, &attr, &q3) == -EINVAL);
		CHECK(ep, q3 == (void *)1);
		CHECK(ep, rpcrdma_pmd_pd_free(pd2) == 0);
	}
	/* destroy order */
	CHECK(ep, rpcrdma_pmd_srq_destroy(srq) == -EBUSY);
	CHECK(ep, rpcrdma_pmd_pd_free(ep->pd) == -EBUSY);
	CHECK(ep, rpcrdma_pmd_qp_destroy(q1) == 0);
	CHECK(ep, rpcrdma_pmd_srq_destroy(srq) == -EBUSY);
	CHECK(ep, ep->cq->nb_wrs == before + attr.max_send_wr + 16);
	CHECK(ep, rpcrdma_pmd_qp_destroy(q2) == 0);
	CHECK(ep, ep->cq->nb_wrs == before && srq->nb_qps == 0);
	CHECK(ep, rpcrdma_pmd_srq_destroy(srq) == 0);
	/* the receive still posted was discarded: no completion */
	{
		struct rpcrdma_pmd_wc wc;

		CHECK(ep, poll_n(ep, &wc, 1, 10) == 0);
	}
	inl_put(ep, buf);
	/* an SRQ too large for the CQ: its QP is refused */
	sa.max_wr = ep->cq->cqe;
	if (sa.max_wr <= ep->info.max_srq_wr && rpcrdma_pmd_srq_create(ep->pd, &sa, &srq) == 0) {
		q3 = (void *)1;
		qp_attr_srq(ep, &attr, srq);
		CHECK(ep, rpcrdma_pmd_qp_create(ep->pd, &attr, &q3) == -EINVAL);
		CHECK(ep, q3 == (void *)1 && srq->nb_qps == 0 && ep->cq->nb_wrs == before);
		CHECK(ep, rpcrdma_pmd_srq_destroy(srq) == 0);
	}
}

/*
 * ---- srq_access_error: an RDMA Write with a bad rkey to a QP on an SRQ:
 * the requester gets REM_ACCESS_ERR, and the responder's QP goes to error
 * too (IB class C), which its owner learns from the SRQ (it does not look
 * at each attached QP on each poll); the SRQ goes on serving its other QP ----
 */

void srq_access_server(struct ep *ep)
{
	struct rpcrdma_pmd_srq *srq = srq_make(ep, 16, 0);
	struct rpcrdma_pmd_qp_attr attr;
	struct rpcrdma_pmd_qp *qps[2] = { NULL, NULL };
	struct rpcrdma_mempool *pool = ep->set->chunk[0];
	uint8_t *chunk = rpcrdma_mempool_get(pool);
	struct rpcrdma_pmd_mr *mr = NULL;
	struct srq_bufs b = { .n = 0 };
	struct rpcrdma_pmd_wc wc[2];
	struct rbuf rb = { 0 };
	unsigned int i, n = 0;

	if (srq == NULL || chunk == NULL)
		goto out;
	qp_attr_srq(ep, &attr, srq);
	for (i = 0; i < 2; i++) {
		qps[i] = ep_qp_create(ep, &attr);
		if (qps[i] == NULL)
			goto out;
	}
	srq_post(ep, srq, &b, 4);
	CHECK(ep,
	      rpcrdma_pmd_mr_reg(ep->pd, chunk, 4096,
				 RPCRDMA_PMD_ACCESS_LOCAL_WRITE | RPCRDMA_PMD_ACCESS_REMOTE_WRITE,
				 -1, 0, &mr) == 0);
	if (mr != NULL) {
		rb.addr = (uintptr_t)chunk;
		rb.len = 64;
		rb.rkey = mr->rkey + 0x100; /* the next table index: no MR */
	}
	for (i = 0; i < 2; i++)
		CHECK(ep, srv_accept(ep, qps[i]));
	oob_put(ep, &rb, sizeof(rb));
	oob_sync(ep, "access go");
	/* QP 0 goes to error: seen by polling the CQ, without a completion of its own */
	for (i = 0; i < WAIT / 10 && qps[0]->state != RPCRDMA_PMD_QPS_ERROR; i++)
		n += poll_n(ep, wc, 1, 10);
	CHECK(ep, qps[0]->state == RPCRDMA_PMD_QPS_ERROR);
	CHECK(ep, n == 0);
	CHECK(ep, qps[1]->state == RPCRDMA_PMD_QPS_RTS);
	oob_sync(ep, "access checked");
	/* the SRQ's receives serve QP 1 */
	n = poll_n(ep, wc, 1, WAIT);
	CHECK(ep, n == 1);
	if (n == 1) {
		CHECK(ep, wc[0].status == RPCRDMA_PMD_WC_SUCCESS && wc[0].qp == qps[1] &&
				  wc[0].byte_len == 64);
		CHECK(ep, *(const uint32_t *)(uintptr_t)wc[0].wr_id == 1);
		CHECK(ep, srq_take(&b, wc[0].wr_id));
		inl_put(ep, (void *)(uintptr_t)wc[0].wr_id);
	}
	CHECK(ep, b.n == 3);
	oob_sync(ep, "served");
out:
	for (i = 0; i < 2; i++)
		if (qps[i] != NULL)
			ep_qp_destroy(ep, qps[i]);
	if (srq != NULL)
		CHECK(ep, rpcrdma_pmd_srq_destroy(srq) == 0);
	srq_bufs_put(ep, &b);
	if (mr != NULL)
		CHECK(ep, rpcrdma_pmd_mr_dereg(mr) == 0);
	if (chunk != NULL)
		rpcrdma_mempool_put(pool, chunk);
}

void srq_access_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qps[2];
	struct rpcrdma_pmd_send_wr wr;
	struct rpcrdma_pmd_sge sge;
	struct rpcrdma_pmd_wc wc[1];
	uint8_t *buf = inl_get(ep);
	struct rbuf rb;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		qps[i] = ep_qp_create(ep, NULL);
		if (qps[i] == NULL || !cli_connect(ep, qps[i]))
			qps[i] = NULL;
	}
	oob_get(ep, &rb, sizeof(rb));
	oob_sync(ep, "access go");
	if (qps[0] != NULL && buf != NULL) {
		sge = sge_of(ep->set->inline_pool, buf, (uint32_t)rb.len);
		rdma_wr(&wr, 1, RPCRDMA_PMD_WR_RDMA_WRITE, RPCRDMA_PMD_SEND_SIGNALED, &rb, &sge, 1);
		CHECK(ep, post_send1(qps[0], &wr));
		CHECK(ep, poll_n(ep, wc, 1, WAIT) == 1 && wc[0].wr_id == 1 &&
				  wc[0].status == RPCRDMA_PMD_WC_REM_ACCESS_ERR);
		CHECK(ep, qps[0]->state == RPCRDMA_PMD_QPS_ERROR);
	}
	oob_sync(ep, "access checked");
	if (qps[1] != NULL)
		CHECK(ep, send_msg_done(ep, qps[1], 100, 1, 64, 0, RPCRDMA_PMD_WC_SUCCESS));
	scratch_put(ep);
	oob_sync(ep, "served");
	if (buf != NULL)
		inl_put(ep, buf);
	for (i = 0; i < 2; i++)
		if (qps[i] != NULL)
			ep_qp_destroy(ep, qps[i]);
}

/*
 * ---- srq_peer_error: a Send to a QP on an SRQ after that QP went to
 * error fails (RETRY_EXC_ERR), though the Send before it had found the QP
 * well and the SRQ still has a receive posted (a QP's error flushes
 * nothing of its SRQ, so only the QP's state stops the Send; the shm peer
 * reads it again only when the device's qp_errors moved) ----
 */

void srq_peer_error_server(struct ep *ep)
{
	struct rpcrdma_pmd_srq *srq = srq_make(ep, 16, 0);
	struct rpcrdma_pmd_qp_attr attr;
	struct rpcrdma_pmd_qp *qp = NULL;
	struct rpcrdma_pmd_wc wc;
	struct srq_bufs b = { .n = 0 };
	unsigned int n;

	if (srq == NULL)
		goto out;
	qp_attr_srq(ep, &attr, srq);
	qp = ep_qp_create(ep, &attr);
	if (qp == NULL)
		goto out;
	srq_post(ep, srq, &b, 2);
	CHECK(ep, srv_accept(ep, qp));
	oob_sync(ep, "posted");
	n = poll_n(ep, &wc, 1, WAIT);
	CHECK(ep, n == 1);
	if (n == 1) {
		CHECK(ep, wc.status == RPCRDMA_PMD_WC_SUCCESS && wc.qp == qp && wc.byte_len == 64);
		CHECK(ep, srq_take(&b, wc.wr_id));
		inl_put(ep, (void *)(uintptr_t)wc.wr_id);
	}
	/* a local error (a bad lkey: another generation of its entry) puts this QP in error, not the client's */
	CHECK(ep, send_msg_done(ep, qp, 7, 0, 64, 0x80, RPCRDMA_PMD_WC_LOC_PROT_ERR));
	CHECK(ep, qp->state == RPCRDMA_PMD_QPS_ERROR);
	oob_sync(ep, "broken");
	oob_sync(ep, "sent");
	/* the client's second Send took no receive: the SRQ still holds one */
	CHECK(ep, poll_n(ep, &wc, 1, 20) == 0);
	CHECK(ep, b.n == 1);
out:
	if (qp != NULL)
		ep_qp_destroy(ep, qp);
	if (srq != NULL)
		CHECK(ep, rpcrdma_pmd_srq_destroy(srq) == 0);
	srq_bufs_put(ep, &b);
	scratch_put(ep);
}

void srq_peer_error_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);

	oob_sync(ep, "posted");
	if (qp != NULL)
		CHECK(ep, send_msg_done(ep, qp, 1, 1, 64, 0, RPCRDMA_PMD_WC_SUCCESS));
	oob_sync(ep, "broken");
	if (qp != NULL) {
		CHECK(ep, qp->state == RPCRDMA_PMD_QPS_RTS);
		CHECK(ep, send_msg_done(ep, qp, 2, 2, 64, 0, RPCRDMA_PMD_WC_RETRY_EXC_ERR));
		CHECK(ep, qp->state == RPCRDMA_PMD_QPS_ERROR);
	}
	oob_sync(ep, "sent");
	if (qp != NULL)
		ep_qp_destroy(ep, qp);
	scratch_put(ep);
}

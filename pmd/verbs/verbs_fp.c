/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * verbs PMD fast path.
 *
 * Sends: queue_send_burst translates each PMD work request and writes it
 * into the send queue at once (ibv_wr_start on the first of a batch, then
 * ibv_wr_send / _send_inv / _rdma_write / _rdma_read with the SGL or inline
 * data); flush calls ibv_wr_complete, which rings one doorbell for the whole
 * batch. Without the ibv_wr API the work requests are staged as a chain of
 * ibv_send_wr and flush posts the chain with one ibv_post_send.
 *
 * In the error state nothing goes to the device: work requests posted then
 * complete with WR_FLUSH_ERR by the PMD itself, after what the device holds
 * (the PMD's flushes, below), because a provider whose queues live in user
 * memory (rxe, siw) does not tell its kernel of work posted on a QP in
 * error, and would never flush it.
 *
 * Completions are in order on a send queue, except that iWARP lets a work
 * request after an RDMA READ complete before the READ's response is in (RFC
 * 5040: a READ waits for its response, a SEND only to be sent): while a
 * signaled READ is outstanding, a completion retires the slots before it
 * but not the READ's (sq_retire_ooo()).
 *
 * Every work request we post carries our own wr_id (verbs_xlate.h): the
 * completion names the QP and the ring slot that holds the user's wr_id and
 * opcode, and retires every send slot up to it (completions are in order on
 * a queue, and an unsignaled work request's slot is retired by the next
 * completion after it). The PMD counts the send and receive queue depths
 * itself, so the provider is never asked for more than it has room for.
 *
 * No system call, lock or allocation here, other than what the provider
 * does: the mlx5 provider takes the send queue's spinlock between
 * ibv_wr_start and ibv_wr_complete unless MLX5_SINGLE_THREADED=1 (each QP
 * has one owner here, so the lock is never contended).
 */
#include <string.h>
#include <time.h>

#include "verbs_pmd.h"

/* ---------------- receives ---------------- */

/* Receives posted in the error state: the PMD flushes them (flush_poll()). */
static uint16_t rq_post_flushed(struct verbs_qp *qp, const struct rpcrdma_pmd_recv_wr *wrs,
				uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++)
		qp->rq[(qp->rq_head + i) & qp->rq_mask] = wrs[i].wr_id;
	qp->rq_head += n;
	if (n != 0 && !qp->rq_flush_queued) {
		TAILQ_INSERT_TAIL(&qp->rcq->rq_flush, qp, rq_flush_next);
		qp->rq_flush_queued = true;
	}
	qp->common.stats.recv_wrs += n;
	return n;
}

static uint16_t verbs_post_recv_burst(struct rpcrdma_pmd_qp *q,
				      const struct rpcrdma_pmd_recv_wr *wrs, uint16_t n)
{
	struct verbs_qp *qp = to_verbs_qp(q);
	struct ibv_recv_wr rw[VERBS_POLL_CHUNK];
	uint32_t space = qp->max_recv_wr - (qp->rq_head - qp->rq_tail);
	uint16_t done = 0;
	bool stop = false;

	if (n > space)
		n = (uint16_t)space;
	if (verbs_unlikely(q->state == RPCRDMA_PMD_QPS_ERROR))
		return rq_post_flushed(qp, wrs, n);
	while (done < n && !stop) {
		struct ibv_recv_wr *bad = NULL;
		unsigned int k = 0;
		int ret;

		while (k < VERBS_POLL_CHUNK && done + k < n) {
			const struct rpcrdma_pmd_recv_wr *wr = &wrs[done + k];
			uint32_t slot = (qp->rq_head + k) & qp->rq_mask;

			if (verbs_unlikely(wr->num_sge > qp->max_recv_sge)) {
				stop = true;
				break;
			}
			rw[k].wr_id = verbs_wrid(qp->tag, true, slot);
			/* same layout (verbs_xlate.h); the provider only reads it */
			rw[k].sg_list = (struct ibv_sge *)(uintptr_t)wr->sg_list;
			rw[k].num_sge = wr->num_sge;
			rw[k].next = &rw[k + 1];
			qp->rq[slot] = wr->wr_id;
			k++;
		}
		if (k == 0)
			break;
		rw[k - 1].next = NULL;
		ret = ibv_post_recv(qp->qp, rw, &bad);
		if (verbs_unlikely(ret != 0)) {
			/* the ones before bad were posted */
			k = bad != NULL && bad >= rw && bad < rw + k ? (unsigned int)(bad - rw) : 0;
			stop = true;
		}
		qp->rq_head += k;
		qp->rq_dev = qp->rq_head;
		done = (uint16_t)(done + k);
	}
	q->stats.recv_wrs += done;
	return done;
}

/*
 * Receives on a shared receive queue: each takes a free slot of the SRQ
 * (they complete in any order, on whichever QP takes them) and goes to the
 * device in chunks, one ibv_post_srq_recv each.
 */
static uint16_t verbs_srq_post_recv_burst(struct rpcrdma_pmd_srq *s,
					  const struct rpcrdma_pmd_recv_wr *wrs, uint16_t n)
{
	struct verbs_srq *srq = to_verbs_srq(s);
	struct ibv_recv_wr rw[VERBS_POLL_CHUNK];
	uint16_t done = 0;
	bool stop = false;

	if (n > srq->nb_free)
		n = (uint16_t)srq->nb_free;
	while (done < n && !stop) {
		struct ibv_recv_wr *bad = NULL;
		unsigned int k = 0, posted;
		int ret;

		while (k < VERBS_POLL_CHUNK && done + k < n) {
			const struct rpcrdma_pmd_recv_wr *wr = &wrs[done + k];
			uint32_t slot = srq->free[srq->nb_free - 1 - k];

			if (verbs_unlikely(wr->num_sge > s->max_sge)) {
				stop = true;
				break;
			}
			rw[k].wr_id = verbs_wrid(srq->tag, true, VERBS_WRID_SRQ | slot);
			rw[k].sg_list = (struct ibv_sge *)(uintptr_t)wr->sg_list;
			rw[k].num_sge = wr->num_sge;
			rw[k].next = &rw[k + 1];
			srq->wr_ids[slot] = wr->wr_id;
			k++;
		}
		if (k == 0)
			break;
		rw[k - 1].next = NULL;
		ret = ibv_post_srq_recv(srq->srq, rw, &bad);
		posted = k;
		if (verbs_unlikely(ret != 0)) {
			/* the ones before bad were posted */
			posted = bad != NULL && bad >= rw && bad < rw + k ? (unsigned int)(bad - rw)
									  : 0;
			stop = true;
		}
		for (unsigned int i = 0; i < posted; i++)
			srq->busy[srq->free[srq->nb_free - 1 - i]] = 1;
		srq->nb_free -= posted;
		done = (uint16_t)(done + posted);
	}
	s->recv_wrs += done;
	return done;
}

/* ---------------- sends ---------------- */

/* A signaled READ the device will complete: counted until it does. */
static inline uint8_t sqe_flags(struct verbs_qp *qp, const struct rpcrdma_pmd_send_wr *wr)
{
	if (wr->opcode != RPCRDMA_PMD_WR_RDMA_READ || !(wr->flags & RPCRDMA_PMD_SEND_SIGNALED))
		return 0;
	qp->reads_out++;
	return VERBS_SQE_READ_WAIT;
}

/* A slot leaves the ring without its own completion: a READ_WAIT no longer counts. */
static inline void sqe_release(struct verbs_qp *qp, struct verbs_sqe *e)
{
	if (e->flags & VERBS_SQE_READ_WAIT)
		qp->reads_out--;
	e->flags = 0;
}

static inline bool send_ready(const struct rpcrdma_pmd_qp *q)
{
	return q->state == RPCRDMA_PMD_QPS_RTS || q->state == RPCRDMA_PMD_QPS_ERROR;
}

static uint16_t verbs_queue_send_wr(struct rpcrdma_pmd_qp *q, const struct rpcrdma_pmd_send_wr *wrs,
				    uint16_t n)
{
	struct verbs_qp *qp = to_verbs_qp(q);
	struct ibv_qp_ex *qpx = qp->qpx;
	uint32_t space = qp->max_send_wr - (qp->sq_head - qp->sq_tail);
	uint16_t i;

	if (verbs_unlikely(!send_ready(q)))
		return 0;
	if (n > space)
		n = (uint16_t)space;
	for (i = 0; i < n; i++) {
		const struct rpcrdma_pmd_send_wr *wr = &wrs[i];
		uint32_t slot = qp->sq_head & qp->sq_mask;
		struct verbs_swr x;

		if (verbs_unlikely(verbs_send_wr_xlate(wr, qp->max_send_sge, qp->max_read_sge,
						       qp->max_inline, &x) != 0))
			break;
		if (verbs_unlikely(q->state == RPCRDMA_PMD_QPS_ERROR)) {
			/* the flush gives it to the PMD's flushes */
			qp->sq[slot].wr_id = wr->wr_id;
			qp->sq[slot].opcode = wr->opcode;
			qp->sq[slot].flags = 0;
			qp->sq_head++;
			continue;
		}
		if (!qp->batch) {
			ibv_wr_start(qpx);
			qp->batch = true;
		}
		qpx->wr_id = verbs_wrid(qp->tag, false, slot);
		/* the ibv_wr API chooses inline by the data call, not by a flag */
		qpx->wr_flags = x.send_flags & ~(unsigned int)IBV_SEND_INLINE;
		switch (x.opcode) {
		case IBV_WR_SEND:
			ibv_wr_send(qpx);
			break;
		case IBV_WR_SEND_WITH_INV:
			ibv_wr_send_inv(qpx, x.invalidate_rkey);
			break;
		case IBV_WR_RDMA_WRITE:
			ibv_wr_rdma_write(qpx, x.rkey, x.remote_addr);
			break;
		default:
			ibv_wr_rdma_read(qpx, x.rkey, x.remote_addr);
			break;
		}
		if (x.send_flags & IBV_SEND_INLINE) {
			if (wr->num_sge == 1) {
				ibv_wr_set_inline_data(qpx, (void *)(uintptr_t)wr->sg_list[0].addr,
						       wr->sg_list[0].length);
			} else {
				struct ibv_data_buf b[VERBS_SGE_MAX];
				uint16_t j;

				for (j = 0; j < wr->num_sge; j++) {
					b[j].addr = (void *)(uintptr_t)wr->sg_list[j].addr;
					b[j].length = wr->sg_list[j].length;
				}
				ibv_wr_set_inline_data_list(qpx, wr->num_sge, b);
			}
		} else {
			ibv_wr_set_sge_list(qpx, wr->num_sge, (const struct ibv_sge *)wr->sg_list);
		}
		qp->sq[slot].wr_id = wr->wr_id;
		qp->sq[slot].opcode = wr->opcode;
		qp->sq[slot].flags = sqe_flags(qp, wr);
		qp->sq_head++;
	}
	q->stats.send_wrs += i;
	return i;
}

static uint16_t verbs_queue_send_post(struct rpcrdma_pmd_qp *q,
				      const struct rpcrdma_pmd_send_wr *wrs, uint16_t n)
{
	struct verbs_qp *qp = to_verbs_qp(q);
	uint32_t space = qp->max_send_wr - (qp->sq_head - qp->sq_tail);
	uint16_t i;

	if (verbs_unlikely(!send_ready(q)))
		return 0;
	if (n > space)
		n = (uint16_t)space;
	for (i = 0; i < n; i++) {
		const struct rpcrdma_pmd_send_wr *wr = &wrs[i];
		uint32_t slot = qp->sq_head & qp->sq_mask;
		struct verbs_swr x;

		if (verbs_unlikely(verbs_send_wr_xlate(wr, qp->max_send_sge, qp->max_read_sge,
						       qp->max_inline, &x) != 0))
			break;
		verbs_swr_to_ibv(&x, wr, verbs_wrid(qp->tag, false, slot), &qp->pwr[slot],
				 &qp->psge[(size_t)slot * qp->max_send_sge]);
		qp->sq[slot].wr_id = wr->wr_id;
		qp->sq[slot].opcode = wr->opcode;
		qp->sq[slot].flags = sqe_flags(qp, wr);
		qp->sq_head++;
	}
	q->stats.send_wrs += i;
	return i;
}

/*
 * What is staged and not yet flushed ([sq_db, sq_head)) goes to the PMD's
 * flushes instead of the device: the QP is in error, or the provider refused
 * it. @return how many.
 */
static unsigned int sq_to_pmd(struct verbs_qp *qp)
{
	unsigned int n = qp->sq_head - qp->sq_db;
	uint32_t i;

	for (i = qp->sq_db; i != qp->sq_head; i++)
		sqe_release(qp, &qp->sq[i & qp->sq_mask]);
#ifdef RPCRDMA_VERBS_HAVE_WR_API
	if (qp->batch) {
		ibv_wr_abort(qp->qpx); /* also releases the provider's send queue lock */
		qp->batch = false;
	}
#endif
	qp->sq_db = qp->sq_head;
	if (n != 0 && !qp->sq_flush_queued) {
		TAILQ_INSERT_TAIL(&qp->scq->sq_flush, qp, sq_flush_next);
		qp->sq_flush_queued = true;
	}
	return n;
}

/*
 * The provider refused a flush (a provider failure, not a normal event): the
 * QP sends no more. It is in error for the fast path at once; the control
 * path moves it to error on the device, which flushes what it holds, and
 * reports the connection down at the device's next event poll
 * (verbs_ctrl.c), so that the fast path never calls into the control path.
 */
static void qp_fatal(struct verbs_qp *qp, int err)
{
	qp->common.state = RPCRDMA_PMD_QPS_ERROR;
	if (qp->fatal_queued)
		return;
	qp->fatal_err = err;
	qp->fatal_queued = true;
	TAILQ_INSERT_TAIL(&qp->dev->fatal_qps, qp, fatal_next);
}

static unsigned int verbs_flush_wr(struct rpcrdma_pmd_qp *q)
{
	struct verbs_qp *qp = to_verbs_qp(q);
	unsigned int n = qp->sq_head - qp->sq_db;
	int ret;

	if (n == 0)
		return 0;
	if (verbs_unlikely(q->state == RPCRDMA_PMD_QPS_ERROR))
		return sq_to_pmd(qp);
	ret = ibv_wr_complete(qp->qpx);
	qp->batch = false;
	if (verbs_unlikely(ret != 0)) {
		/* nothing of the batch was posted (ibv_wr_complete(3)) */
		sq_to_pmd(qp);
		qp_fatal(qp, verbs_err(ret));
		return 0;
	}
	qp->sq_db = qp->sq_dev = qp->sq_head;
	q->stats.doorbells++;
	return n;
}

static unsigned int verbs_flush_post(struct rpcrdma_pmd_qp *q)
{
	struct verbs_qp *qp = to_verbs_qp(q);
	unsigned int n = qp->sq_head - qp->sq_db, posted, i;
	struct ibv_send_wr *first, *bad = NULL;
	uint32_t s;
	int ret;

	if (n == 0)
		return 0;
	if (verbs_unlikely(q->state == RPCRDMA_PMD_QPS_ERROR))
		return sq_to_pmd(qp);
	/* chain the staged work requests in ring order */
	for (s = qp->sq_db, i = 1; i < n; s++, i++)
		qp->pwr[s & qp->sq_mask].next = &qp->pwr[(s + 1) & qp->sq_mask];
	qp->pwr[s & qp->sq_mask].next = NULL;
	first = &qp->pwr[qp->sq_db & qp->sq_mask];
	ret = ibv_post_send(qp->qp, first, &bad);
	if (verbs_unlikely(ret != 0)) {
		/* bad and everything after it were not posted */
		posted = 0;
		if (bad != NULL && bad >= qp->pwr && bad <= qp->pwr + qp->sq_mask)
			posted = ((uint32_t)(bad - qp->pwr) - qp->sq_db) & qp->sq_mask;
		if (posted > n)
			posted = 0;
		if (posted != 0)
			q->stats.doorbells++;
		qp->sq_db = qp->sq_dev = qp->sq_db + posted;
		sq_to_pmd(qp);
		qp_fatal(qp, verbs_err(ret));
		return posted;
	}
	qp->sq_db = qp->sq_dev = qp->sq_head;
	q->stats.doorbells++;
	return n;
}

/* ---------------- completions ---------------- */

/*
 * A send completion of @slot, one the device holds, while signaled READs
 * are outstanding: the slots before it are done, but for those READs, which
 * complete on their own; sq_tail moves over what is done.
 */
static void sq_retire_ooo(struct verbs_qp *qp, uint32_t slot)
{
	struct verbs_sqe *e = &qp->sq[slot];
	uint32_t i;

	if (e->flags & VERBS_SQE_READ_WAIT)
		qp->reads_out--;
	e->flags = VERBS_SQE_DONE;
	for (i = qp->sq_tail; (i & qp->sq_mask) != slot; i++) {
		struct verbs_sqe *b = &qp->sq[i & qp->sq_mask];

		if (!(b->flags & VERBS_SQE_READ_WAIT))
			b->flags = VERBS_SQE_DONE;
	}
	while (qp->sq_tail != qp->sq_dev &&
	       (qp->sq[qp->sq_tail & qp->sq_mask].flags & VERBS_SQE_DONE))
		qp->sq[qp->sq_tail++ & qp->sq_mask].flags = 0;
}

/*
 * The completion of an SRQ's receive: the wr_id names the SRQ and the slot,
 * the QP it arrived on is the completion's QP number. @return 1, or 0 for
 * one of a destroyed SRQ or QP (dropped; the slot is free again).
 */
static __attribute__((noinline)) unsigned int wc_srq(struct verbs_cq *cq, struct ibv_cq_ex *cqx,
						     const struct ibv_wc *w, uint64_t id,
						     enum ibv_wc_status status,
						     struct rpcrdma_pmd_wc *wc)
{
	struct verbs_dev *dev = cq->dev;
	uint32_t tag = verbs_wrid_tag(id), slot = verbs_wrid_slot(id) & ~VERBS_WRID_SRQ;
	uint16_t idx = verbs_tag_index(tag);
	struct verbs_srq *srq = idx < dev->srq_cap ? dev->srqs[idx] : NULL;
	uint32_t len = 0, inv = 0, qpn;
	unsigned int flags = 0;
	struct verbs_qp *qp;
	uint64_t wr_id;

	if (srq == NULL || srq->tag != tag || slot >= srq->common.max_wr || !srq->busy[slot]) {
		cq->stale++;
		return 0;
	}
	srq->busy[slot] = 0;
	srq->free[srq->nb_free++] = slot;
	wr_id = srq->wr_ids[slot];
	qpn = cqx != NULL ? ibv_wc_read_qp_num(cqx) : w->qp_num;
	qp = verbs_qpn_find(dev, qpn);
	if (qp == NULL) {
		cq->stale++; /* its QP was destroyed: its completions are lost */
		return 0;
	}
	if (status != IBV_WC_SUCCESS)
		qp->common.state = RPCRDMA_PMD_QPS_ERROR;
	else if (cqx != NULL) {
		len = ibv_wc_read_byte_len(cqx);
		flags = ibv_wc_read_wc_flags(cqx);
		if (flags & IBV_WC_WITH_INV)
			inv = ibv_wc_read_invalidated_rkey(cqx);
	} else {
		len = w->byte_len;
		flags = w->wc_flags;
		inv = w->invalidated_rkey;
	}
	verbs_wc_fill(wc, wr_id, &qp->common, status, RPCRDMA_PMD_WC_RECV, len, flags, inv);
	return 1;
}

/*
 * One completion: find its QP and slot from our wr_id and fill @wc.
 * @return 1, or 0 for a completion of a QP destroyed since (dropped).
 * Exactly one of @cqx and @w is used (constant at each call site).
 */
static inline __attribute__((always_inline)) unsigned int
wc_one(struct verbs_cq *cq, struct ibv_cq_ex *cqx, const struct ibv_wc *w, uint64_t id,
       enum ibv_wc_status status, struct rpcrdma_pmd_wc *wc)
{
	struct verbs_dev *dev = cq->dev;
	uint32_t tag = verbs_wrid_tag(id), slot = verbs_wrid_slot(id);
	uint16_t idx = verbs_tag_index(tag);
	struct verbs_qp *qp;

	if (verbs_unlikely(verbs_wrid_is_srq(id)))
		return wc_srq(cq, cqx, w, id, status, wc);
	qp = idx < dev->qp_cap ? dev->qps[idx] : NULL;
	if (verbs_unlikely(qp == NULL || qp->tag != tag)) {
		cq->stale++;
		return 0;
	}
	/* an RC QP that completes a work request in error is in the error state */
	if (verbs_unlikely(status != IBV_WC_SUCCESS))
		qp->common.state = RPCRDMA_PMD_QPS_ERROR;
	if (verbs_wrid_is_recv(id)) {
		uint32_t len = 0, inv = 0;
		unsigned int flags = 0;

		slot &= qp->rq_mask;
		if (verbs_unlikely(((slot - qp->rq_tail) & qp->rq_mask) >=
				   qp->rq_dev - qp->rq_tail)) {
			cq->stale++; /* the PMD flushed it already (flush_poll) */
			return 0;
		}
		qp->rq_tail++;
		if (status == IBV_WC_SUCCESS) {
			if (cqx != NULL) {
				len = ibv_wc_read_byte_len(cqx);
				flags = ibv_wc_read_wc_flags(cqx);
				if (flags & IBV_WC_WITH_INV)
					inv = ibv_wc_read_invalidated_rkey(cqx);
			} else {
				len = w->byte_len;
				flags = w->wc_flags;
				inv = w->invalidated_rkey;
			}
		}
		verbs_wc_fill(wc, qp->rq[slot], &qp->common, status, RPCRDMA_PMD_WC_RECV, len,
			      flags, inv);
	} else {
		const struct verbs_sqe *e;
		uint32_t len = 0, adv;
		bool mark;

		slot &= qp->sq_mask;
		e = &qp->sq[slot];
		adv = ((slot - qp->sq_tail) & qp->sq_mask) + 1;
		/* this slot and every unsignaled one before it are done */
		if (verbs_unlikely(adv > qp->sq_dev - qp->sq_tail)) {
			cq->stale++; /* the PMD flushed it already (flush_poll) */
			return 0;
		}
		mark = e->flags & VERBS_SQE_MARK;
		if (verbs_unlikely(qp->reads_out != 0))
			sq_retire_ooo(qp, slot);
		else
			qp->sq_tail += adv;
		if (verbs_unlikely(mark))
			return 0; /* the drain marker: the queue before it is done */
		if (status == IBV_WC_SUCCESS && e->opcode == RPCRDMA_PMD_WR_RDMA_READ)
			len = cqx != NULL ? ibv_wc_read_byte_len(cqx) : w->byte_len;
		verbs_wc_fill(wc, e->wr_id, &qp->common, status,
			      rpcrdma_pmd_wc_opcode_of_wr(e->opcode), len, 0, 0);
	}
	return 1;
}

/*
 * The PMD's flushes: work requests posted on a QP in error, or refused by
 * the provider, complete with WR_FLUSH_ERR after those the device holds.
 * Receives once the device has completed every receive before them (each
 * does). Sends once the device has completed those before them, or has
 * nothing more to report (@drained): a successful unsignaled send never
 * completes on its own.
 */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void verbs_qp_flush_watch(struct verbs_qp *qp)
{
	qp->err_ns = now_ns();
	if (qp->sq_tail != qp->sq_dev && !qp->sq_flush_queued) {
		TAILQ_INSERT_TAIL(&qp->scq->sq_flush, qp, sq_flush_next);
		qp->sq_flush_queued = true;
	}
	if (qp->rq_tail != qp->rq_dev && !qp->rq_flush_queued) {
		TAILQ_INSERT_TAIL(&qp->rcq->rq_flush, qp, rq_flush_next);
		qp->rq_flush_queued = true;
	}
}

/*
 * The drain marker, as the kernel's ib_drain_sq() posts one: a signaled
 * work request posted once the QP is in error. The device flushes it after
 * everything before it, so its completion retires the sends that succeeded
 * unsignaled, which never complete on their own; without it every close
 * with one of those waited out the grace time. It needs a free slot and no
 * work the PMD flushes itself after the device's (the grace time covers
 * those cases), and a device that reads the queue after the error: not one
 * that flushes within the modify (flush_in_modify), where a drained CQ says
 * the same at once.
 */
void verbs_qp_drain_mark(struct verbs_qp *qp)
{
	struct ibv_send_wr wr, *bad = NULL;
	uint32_t slot = qp->sq_head & qp->sq_mask;

	if (qp->sq_tail == qp->sq_dev || qp->sq_dev != qp->sq_head || qp->dev->flush_in_modify ||
	    qp->sq_head - qp->sq_tail >= qp->max_send_wr)
		return;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = verbs_wrid(qp->tag, false, slot);
	wr.opcode = IBV_WR_RDMA_WRITE; /* zero length: never on the wire in error */
	wr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(qp->qp, &wr, &bad) != 0)
		return;
	qp->sq[slot].wr_id = 0;
	qp->sq[slot].opcode = RPCRDMA_PMD_WR_RDMA_WRITE;
	qp->sq[slot].flags = VERBS_SQE_MARK;
	qp->sq_db = qp->sq_dev = ++qp->sq_head;
}

/* The PMD moved the QP to error, and the device has not flushed in time. */
static inline bool dev_silent(const struct verbs_qp *qp, bool drained)
{
	return drained && qp->err_ns != 0 &&
	       (qp->dev->flush_in_modify || now_ns() - qp->err_ns > VERBS_FLUSH_GRACE_NS);
}

/* Once per QP: the device kept work requests past the grace time. */
static void flush_note(struct verbs_qp *qp, const char *what)
{
	if (qp->flush_noted || qp->dev->flush_in_modify)
		return;
	qp->flush_noted = true;
	verbs_info("qp %u: the device did not flush its %s %llu ms after the error: the PMD does",
		   qp->common.qp_num, what, (unsigned long long)(VERBS_FLUSH_GRACE_NS / 1000000));
}

static uint16_t flush_poll(struct verbs_cq *cq, struct rpcrdma_pmd_wc *wc, uint16_t n, bool drained)
{
	struct verbs_qp *qp, *next;
	uint16_t k = 0;

	for (qp = TAILQ_FIRST(&cq->sq_flush); qp != NULL && k < n; qp = next) {
		next = TAILQ_NEXT(qp, sq_flush_next);
		if (qp->sq_tail != qp->sq_dev && (!drained || qp->err_ns != 0)) {
			if (!dev_silent(qp, drained))
				continue;
			/* what the device keeps and does not flush: the PMD does */
			flush_note(qp, "sends");
			while (k < n && qp->sq_tail != qp->sq_dev) {
				struct verbs_sqe *b = &qp->sq[qp->sq_tail++ & qp->sq_mask];
				bool mark = b->flags & VERBS_SQE_MARK;

				sqe_release(qp, b);
				if (!mark)
					verbs_wc_fill(&wc[k++], b->wr_id, &qp->common,
						      IBV_WC_WR_FLUSH_ERR,
						      rpcrdma_pmd_wc_opcode_of_wr(b->opcode), 0, 0,
						      0);
			}
			if (qp->sq_tail != qp->sq_dev)
				continue;
		}
		/*
		 * An error completion made the device flush what it holds: what
		 * did not complete is unsignaled and done
		 */
		for (; qp->sq_tail != qp->sq_dev; qp->sq_tail++)
			sqe_release(qp, &qp->sq[qp->sq_tail & qp->sq_mask]);
		while (k < n && qp->sq_dev != qp->sq_db) {
			const struct verbs_sqe *e = &qp->sq[qp->sq_dev & qp->sq_mask];

			verbs_wc_fill(&wc[k++], e->wr_id, &qp->common, IBV_WC_WR_FLUSH_ERR,
				      rpcrdma_pmd_wc_opcode_of_wr(e->opcode), 0, 0, 0);
			qp->sq_tail = ++qp->sq_dev;
		}
		if (qp->sq_dev == qp->sq_db) {
			TAILQ_REMOVE(&cq->sq_flush, qp, sq_flush_next);
			qp->sq_flush_queued = false;
		}
	}
	for (qp = TAILQ_FIRST(&cq->rq_flush); qp != NULL && k < n; qp = next) {
		next = TAILQ_NEXT(qp, rq_flush_next);
		if (qp->rq_tail != qp->rq_dev && !dev_silent(qp, drained))
			continue;
		/* receives the device keeps and does not flush: the PMD does */
		if (qp->rq_tail != qp->rq_dev)
			flush_note(qp, "receives");
		while (k < n && qp->rq_tail != qp->rq_dev)
			verbs_wc_fill(&wc[k++], qp->rq[qp->rq_tail++ & qp->rq_mask], &qp->common,
				      IBV_WC_WR_FLUSH_ERR, RPCRDMA_PMD_WC_RECV, 0, 0, 0);
		if (qp->rq_tail != qp->rq_dev)
			continue;
		while (k < n && qp->rq_dev != qp->rq_head) {
			verbs_wc_fill(&wc[k++], qp->rq[qp->rq_dev & qp->rq_mask], &qp->common,
				      IBV_WC_WR_FLUSH_ERR, RPCRDMA_PMD_WC_RECV, 0, 0, 0);
			qp->rq_tail = ++qp->rq_dev;
		}
		if (qp->rq_dev == qp->rq_head) {
			TAILQ_REMOVE(&cq->rq_flush, qp, rq_flush_next);
			qp->rq_flush_queued = false;
		}
	}
	return k;
}

static inline uint16_t poll_done(struct verbs_cq *cq, uint16_t k)
{
	cq->common.stats.polls++;
	cq->common.stats.wcs += k;
	if (k == 0)
		cq->common.stats.empty_polls++;
	return k;
}

static uint16_t verbs_poll_cq_ex(struct rpcrdma_pmd_cq *c, struct rpcrdma_pmd_wc *wc, uint16_t n)
{
	struct verbs_cq *cq = to_verbs_cq(c);
	struct ibv_cq_ex *cqx = cq->cqx;
	struct ibv_poll_cq_attr attr = { .comp_mask = 0 };
	bool drained = true;
	uint16_t k = 0;

	/* ENOENT: empty; any other error: nothing polled either */
	if (n != 0 && ibv_start_poll(cqx, &attr) == 0) {
		for (;;) {
			k = (uint16_t)(k + wc_one(cq, cqx, NULL, cqx->wr_id, cqx->status, &wc[k]));
			if (k == n) {
				drained = false;
				break;
			}
			if (ibv_next_poll(cqx) != 0)
				break;
		}
		ibv_end_poll(cqx);
	}
	if (verbs_unlikely(!TAILQ_EMPTY(&cq->sq_flush) || !TAILQ_EMPTY(&cq->rq_flush)))
		k = (uint16_t)(k + flush_poll(cq, wc + k, (uint16_t)(n - k), drained));
	return poll_done(cq, k);
}

static uint16_t verbs_poll_cq(struct rpcrdma_pmd_cq *c, struct rpcrdma_pmd_wc *wc, uint16_t n)
{
	struct verbs_cq *cq = to_verbs_cq(c);
	struct ibv_wc w[VERBS_POLL_CHUNK];
	bool drained = false;
	uint16_t k = 0;

	while (k < n) {
		int want = n - k < VERBS_POLL_CHUNK ? n - k : VERBS_POLL_CHUNK;
		int got = ibv_poll_cq(cq->cq, want, w), i;

		if (got <= 0) {
			drained = true;
			break;
		}
		for (i = 0; i < got; i++)
			k = (uint16_t)(k +
				       wc_one(cq, NULL, &w[i], w[i].wr_id, w[i].status, &wc[k]));
		if (got < want) {
			drained = true;
			break;
		}
	}
	if (verbs_unlikely(!TAILQ_EMPTY(&cq->sq_flush) || !TAILQ_EMPTY(&cq->rq_flush)))
		k = (uint16_t)(k + flush_poll(cq, wc + k, (uint16_t)(n - k), drained));
	return poll_done(cq, k);
}

void verbs_qp_set_fast_path(struct verbs_qp *qp)
{
	qp->common.post_recv_burst = verbs_post_recv_burst;
	if (qp->qpx != NULL) {
		qp->common.queue_send_burst = verbs_queue_send_wr;
		qp->common.flush = verbs_flush_wr;
	} else {
		qp->common.queue_send_burst = verbs_queue_send_post;
		qp->common.flush = verbs_flush_post;
	}
}

void verbs_srq_set_fast_path(struct verbs_srq *srq)
{
	srq->common.post_recv_burst = verbs_srq_post_recv_burst;
}

void verbs_cq_set_fast_path(struct verbs_cq *cq)
{
	cq->common.poll_burst = cq->cqx != NULL ? verbs_poll_cq_ex : verbs_poll_cq;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shm PMD fast path.
 *
 * The requester executes its own work requests when it rings the doorbell
 * (rpcrdma_pmd_flush) or, for work that had to wait, when it polls its send
 * CQ: a SEND claims the peer's next posted receive and copies the SGL into
 * it, an RDMA WRITE or READ checks the rkey in the peer's MR table and
 * copies; one memcpy per transfer, as one DMA on a NIC. The responder's lcore
 * does nothing for one-sided operations, and for a SEND it only reaps the
 * completion the requester wrote into its receive slot.
 *
 * No system call, lock or allocation here: shared state moves through the
 * slot ownership words and the MR valid words (rpcrdma_shm.h), each access
 * ordered by the acquire/release pairs commented below.
 */
#include <string.h>

#include <rte_cycles.h>
#include <rte_prefetch.h>

#include <rpcrdma/rpcrdma_stamp.h>

#include "shm.h"

#define EXEC_RNR 0xffu /* no receive posted at the peer: retry later */

static inline uint32_t cq_space(const struct shm_cq *cq)
{
	return cq->mask + 1 - (cq->head - cq->tail);
}

static inline void cq_push_qpn(struct shm_cq *cq, struct shm_qp *qp, uint32_t qp_num,
			       uint64_t wr_id, uint8_t status, uint8_t opcode, uint32_t byte_len,
			       uint16_t flags, uint32_t inv_rkey)
{
	struct shm_cqe *e = &cq->ring[cq->head & cq->mask];

	e->wc.wr_id = wr_id;
	e->wc.qp = &qp->common;
	e->wc.status = status;
	e->wc.opcode = opcode;
	e->wc.flags = flags;
	e->wc.byte_len = byte_len;
	e->wc.invalidated_rkey = inv_rkey;
	e->wc.qp_num = qp_num;
	e->ready_at = cq->polls + cq->delay;
	cq->head++;
}

static inline void cq_push(struct shm_cq *cq, struct shm_qp *qp, uint64_t wr_id, uint8_t status,
			   uint8_t opcode, uint32_t byte_len, uint16_t flags, uint32_t inv_rkey)
{
	cq_push_qpn(cq, qp, qp->common.qp_num, wr_id, status, opcode, byte_len, flags, inv_rkey);
}

static inline struct shm_swqe *sq_slot(const struct shm_qp *qp, uint32_t i)
{
	return (struct shm_swqe *)(void *)(qp->sq + (size_t)(i & qp->sq_mask) * qp->sq_stride);
}

/*
 * Check a local key in our own MR table. The table is ours, but a peer may
 * clear @valid at any time (SEND_WITH_INV): a key invalidated during the
 * check passes or fails, as it would racing a NIC.
 */
static inline const struct rpcrdma_shm_mr *local_mr(const struct shm_dev *dev, uint32_t key,
						    uint32_t pd, uint64_t addr, uint32_t len,
						    uint32_t need)
{
	uint32_t idx = RPCRDMA_SHM_KEY_INDEX(key);
	const struct rpcrdma_shm_mr *e;

	if (idx >= dev->mr_max)
		return NULL;
	e = &dev->mrs[idx];
	if (!__atomic_load_n(&e->valid, __ATOMIC_RELAXED) || e->key != key || e->pd != pd ||
	    (e->access & need) != need)
		return NULL;
	if (addr < e->addr || addr - e->addr > e->length || len > e->length - (addr - e->addr))
		return NULL;
	return e;
}

/* Our address of [off, off + len) in a region of the peer, or NULL. */
static inline uint8_t *peer_region_ptr(const struct shm_rdev *rd, uint32_t region, uint64_t off,
				       uint64_t len)
{
	if (region == RPCRDMA_SHM_REGION_NONE)
		return rd->same_process ? (uint8_t *)(uintptr_t)off : NULL;
	if (region >= RPCRDMA_SHM_REGION_MAX || rd->regions[region].base == NULL)
		return NULL;
	if (off > rd->regions[region].len || len > rd->regions[region].len - off)
		return NULL;
	return rd->regions[region].base + off;
}

/*
 * Check an rkey in the peer's MR table and translate [raddr, raddr + len).
 * The entry is read under its sequence word, as a seqlock reader: an entry
 * the owner rewrites meanwhile fails the check.
 */
static inline uint8_t *remote_mr_ptr(const struct shm_qp *qp, uint32_t rkey, uint64_t raddr,
				     uint64_t len, uint32_t need)
{
	const struct shm_rdev *rd = qp->rdev;
	uint32_t idx = RPCRDMA_SHM_KEY_INDEX(rkey);
	const struct rpcrdma_shm_mr *e;
	uint64_t addr, length, roff;
	uint32_t seq, region;

	if (idx >= rd->mr_max)
		return NULL;
	e = &rd->mrs[idx];
	/* acquire: the fields below are read after the owner finished writing them */
	seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
	if (seq & 1)
		return NULL;
	if (!__atomic_load_n(&e->valid, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&e->key, __ATOMIC_RELAXED) != rkey ||
	    __atomic_load_n(&e->pd, __ATOMIC_RELAXED) != qp->peer_pd ||
	    (__atomic_load_n(&e->access, __ATOMIC_RELAXED) & need) != need)
		return NULL;
	addr = __atomic_load_n(&e->addr, __ATOMIC_RELAXED);
	length = __atomic_load_n(&e->length, __ATOMIC_RELAXED);
	roff = __atomic_load_n(&e->region_off, __ATOMIC_RELAXED);
	region = __atomic_load_n(&e->region, __ATOMIC_RELAXED);
	/* the loads above complete before the sequence is read again */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&e->seq, __ATOMIC_RELAXED) != seq)
		return NULL;
	if (raddr < addr || raddr - addr > length || len > length - (raddr - addr))
		return NULL;
	if (region == RPCRDMA_SHM_REGION_NONE)
		return peer_region_ptr(rd, region, raddr, len);
	return peer_region_ptr(rd, region, roff + (raddr - addr), len);
}

/* SEND_WITH_INV at the responder: clear the valid word of the peer's rkey. */
static inline bool remote_invalidate(const struct shm_qp *qp, uint32_t rkey)
{
	const struct shm_rdev *rd = qp->rdev;
	uint32_t idx = RPCRDMA_SHM_KEY_INDEX(rkey);
	struct rpcrdma_shm_mr *e;
	uint32_t one = 1;

	if (idx >= rd->mr_max)
		return false;
	e = &rd->mrs[idx];
	if (__atomic_load_n(&e->key, __ATOMIC_RELAXED) != rkey ||
	    __atomic_load_n(&e->pd, __ATOMIC_RELAXED) != qp->peer_pd)
		return false;
	/* acq_rel: ordered before the receive completion that reports it (DONE release) */
	return __atomic_compare_exchange_n(&e->valid, &one, 0, false, __ATOMIC_ACQ_REL,
					   __ATOMIC_RELAXED);
}

/* An error the responder detects moves its QP to error too (IB class C). */
static inline void peer_fault(struct shm_qp *qp, uint8_t status)
{
	__atomic_store_n(&qp->peer->fault, status, __ATOMIC_RELEASE);
	/* a QP on an SRQ is not polled by itself: its owner looks when the SRQ's count moves */
	if (qp->peer_srq != NULL)
		__atomic_fetch_add(&qp->peer_srq->faults, 1, __ATOMIC_RELEASE);
}

/* Check the local SGL of @w; its total length in *total. */
static inline uint8_t local_sgl(const struct shm_qp *qp, const struct shm_swqe *w, uint32_t need,
				uint64_t *total)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < w->num_sge; i++) {
		const struct rpcrdma_pmd_sge *s = &w->sge[i];

		if (local_mr(qp->dev, s->lkey, qp->pd_id, s->addr, s->length, need) == NULL)
			return RPCRDMA_PMD_WC_LOC_PROT_ERR;
		sum += s->length;
	}
	if (sum > UINT32_MAX)
		return RPCRDMA_PMD_WC_LOC_LEN_ERR;
	*total = sum;
	return RPCRDMA_PMD_WC_SUCCESS;
}

/*
 * Is the peer QP well? Its state is on a line of its own QP area, one per
 * connection; the peer device's qp_errors, on a line every QP to that
 * device shares, moves after any of its QPs went to error: the state is
 * read again only then (or always, from a peer without qp_errors).
 */
static inline bool peer_alive(struct shm_qp *qp)
{
	const uint32_t *errs;
	uint32_t e = 0;

	if (qp->peer_gone)
		return false;
	errs = qp->rdev->qp_errors; /* a QP with a peer has its device */
	if (errs != NULL) {
		/* acquire: a QP's ERROR is stored before the count moves (release) */
		e = __atomic_load_n(errs, __ATOMIC_ACQUIRE);
		if (e == qp->peer_errors_ok)
			return true;
	}
	if (__atomic_load_n(&qp->peer->state, __ATOMIC_ACQUIRE) != RPCRDMA_SHM_QP_OK)
		return false;
	if (errs != NULL)
		qp->peer_errors_ok = e;
	return true;
}

/* Complete a claimed peer receive slot. release: the data and fields before DONE. */
static inline void slot_done(struct rpcrdma_shm_rq_slot *slot, uint8_t status, uint32_t len,
			     uint32_t flags, uint32_t inv_rkey)
{
	slot->wc_status = status;
	slot->byte_len = len;
	slot->wc_flags = flags;
	slot->inv_rkey = inv_rkey;
	__atomic_store_n(&slot->state, RPCRDMA_SHM_SLOT_DONE, __ATOMIC_RELEASE);
}

/* The slot of the peer's SRQ at claim position @pos. */
static inline struct rpcrdma_shm_rq_slot *peer_srq_slot(const struct shm_qp *qp, uint64_t pos)
{
	return shm_slot(qp->peer_srq_rq, qp->peer_srq_slot_size, (uint32_t)pos & qp->peer_srq_mask);
}

/*
 * After the claim of position @t: start on the receives a few claims on.
 * An SRQ is a FIFO as deep as the credits its owner granted, one or more
 * per connection: with many connections a receive waits long enough to
 * leave the caches, and the copy into it would stall on every line it
 * writes. The slot SRQ_AHEAD_SLOT on is loaded now, and the buffer of the
 * one SRQ_AHEAD_BUF on (its slot loaded that many claims ago) is loaded
 * for writing, its first SRQ_AHEAD_LINES lines (a small message's). Hints
 * only: the fields are read without a claim and checked for nothing but
 * a slot posted for its position and an address inside the region.
 */
#define SRQ_AHEAD_BUF	4
#define SRQ_AHEAD_SLOT	8
#define SRQ_AHEAD_LINES 2

static inline void srq_prefetch_ahead(const struct shm_qp *qp, uint64_t t, uint64_t h)
{
	const struct rpcrdma_shm_rq_slot *s;
	uint64_t pos = t + SRQ_AHEAD_BUF;
	uint32_t i;
	uint8_t *p;

	if (h - t <= SRQ_AHEAD_BUF)
		return;
	if (h - t > SRQ_AHEAD_SLOT)
		__builtin_prefetch(peer_srq_slot(qp, t + SRQ_AHEAD_SLOT), 0);
	s = peer_srq_slot(qp, pos);
	if (__atomic_load_n(&s->state, __ATOMIC_RELAXED) !=
		    rpcrdma_shm_srq_posted(pos, qp->peer_srq_mask + 1) ||
	    __atomic_load_n(&s->num_sge, __ATOMIC_RELAXED) == 0)
		return;
	p = peer_region_ptr(qp->rdev, __atomic_load_n(&s->sge[0].region, __ATOMIC_RELAXED),
			    __atomic_load_n(&s->sge[0].offset, __ATOMIC_RELAXED),
			    SRQ_AHEAD_LINES * RTE_CACHE_LINE_SIZE);
	for (i = 0; p != NULL && i < SRQ_AHEAD_LINES; i++)
		__builtin_prefetch(p + i * RTE_CACHE_LINE_SIZE, 1);
}

/*
 * Claim the next receive of the peer's SRQ, shared with the peers of its
 * other QPs (rpcrdma_shm.h, "SRQ area"): the slot at the claim index, if
 * posted, is ours by one CAS that also writes which QP took it. A slot at
 * the claim index that is taken already (below rq_head) was claimed by a
 * peer that has not moved the index on yet: move it on for it. Bounded: a
 * peer (or an owner) that breaks the protocol gives RNR, never a hang.
 * @return the slot, or NULL with *st EXEC_RNR or RETRY_EXC_ERR.
 */
static struct rpcrdma_shm_rq_slot *srq_claim(struct shm_qp *qp, uint8_t *st)
{
	struct rpcrdma_shm_srq_area *a = qp->peer_srq;
	uint32_t mine = RPCRDMA_SHM_SLOT_WORD(RPCRDMA_SHM_SLOT_CLAIMED, qp->peer_srq_index);
	uint32_t tries;

	for (tries = 0; tries <= qp->peer_srq_mask + 1; tries++) {
		/* acquire: the slots posted before rq_head are visible (owner's release) */
		uint64_t t = __atomic_load_n(&a->rq_tail, __ATOMIC_ACQUIRE);
		uint64_t h = __atomic_load_n(&a->rq_head, __ATOMIC_ACQUIRE);
		struct rpcrdma_shm_rq_slot *slot;
		uint32_t word;

		if (t == h || h - t > (uint64_t)qp->peer_srq_mask + 1)
			break;
		slot = peer_srq_slot(qp, t);
		/* acquire: the SGEs of a POSTED slot are read after the owner wrote them */
		word = __atomic_load_n(&slot->state, __ATOMIC_ACQUIRE);
		/*
		 * Posted for position t, not for a later round: since t was
		 * read, the slot may have been claimed, reaped and posted
		 * again. Taken then, it would complete out of order, behind
		 * every slot posted before it, which the owner reaps first.
		 */
		if (word == rpcrdma_shm_srq_posted(t, qp->peer_srq_mask + 1)) {
			if (__atomic_compare_exchange_n(&slot->state, &word, mine, false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				uint32_t limit = __atomic_load_n(&a->limit, __ATOMIC_RELAXED);

				/* fails if another peer moved it on for us: fine */
				__atomic_compare_exchange_n(&a->rq_tail, &t, t + 1, false,
							    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
				/* the SRQ limit: this claim leaves fewer posted than armed */
				if (__builtin_expect(limit != 0, 0) && h - (t + 1) < limit)
					__atomic_store_n(&a->limit_hit, 1, __ATOMIC_RELAXED);
				/* the next claim's slot, to be written: it is ours next, mostly */
				__builtin_prefetch(peer_srq_slot(qp, t + 1), 1);
				srq_prefetch_ahead(qp, t, h);
				return slot;
			}
			continue;
		}
		if (RPCRDMA_SHM_SLOT_STATE(word) == RPCRDMA_SHM_SLOT_FLUSHED) {
			*st = RPCRDMA_PMD_WC_RETRY_EXC_ERR; /* the SRQ is going away */
			return NULL;
		}
		/*
		 * Taken by another peer that has not moved the index yet, or
		 * posted again since t was read (position t is taken): move it
		 * on; the CAS fails if someone did.
		 */
		__atomic_compare_exchange_n(&a->rq_tail, &t, t + 1, false, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED);
	}
	*st = EXEC_RNR;
	return NULL;
}

/* Complete a claimed SRQ slot; a CAS, since the owner may have discarded it (QP destroyed). */
static inline void srq_slot_done(struct rpcrdma_shm_rq_slot *slot, uint32_t mine, uint8_t status,
				 uint32_t len, uint32_t flags, uint32_t inv_rkey)
{
	uint32_t done = RPCRDMA_SHM_SLOT_WORD(RPCRDMA_SHM_SLOT_DONE, RPCRDMA_SHM_SLOT_QP(mine));

	slot->wc_status = status;
	slot->byte_len = len;
	slot->wc_flags = flags;
	slot->inv_rkey = inv_rkey;
	/*
	 * release: the data and the fields above before DONE. A CAS, not a
	 * store: an owner that destroyed the QP the slot names reaps the slot
	 * without waiting for us (shm_poll_cq_burst()), and may have posted it
	 * again by the time a claimer that was descheduled here gets on.
	 */
	__atomic_compare_exchange_n(&slot->state, &mine, done, false, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
}

static inline void send_slot_done(const struct shm_qp *qp, struct rpcrdma_shm_rq_slot *slot,
				  uint8_t status, uint32_t len, uint32_t flags, uint32_t inv_rkey)
{
	if (qp->peer_srq != NULL)
		srq_slot_done(slot,
			      RPCRDMA_SHM_SLOT_WORD(RPCRDMA_SHM_SLOT_CLAIMED, qp->peer_srq_index),
			      status, len, flags, inv_rkey);
	else
		slot_done(slot, status, len, flags, inv_rkey);
}

static uint8_t exec_send(struct shm_qp *qp, const struct shm_swqe *w)
{
	uint8_t *dst[SHM_SGE_MAX];
	uint32_t dlen[SHM_SGE_MAX];
	struct rpcrdma_shm_rq_slot *slot;
	uint32_t expected = RPCRDMA_SHM_SLOT_POSTED, flags = 0, nsge, i, di, doff, max_sge;
	uint64_t total, cap = 0;
	uint8_t st;

	/* the local SGL first: a bad one never reaches the peer */
	st = local_sgl(qp, w, 0, &total);
	if (st != RPCRDMA_PMD_WC_SUCCESS)
		return st;
	if (!peer_alive(qp))
		return RPCRDMA_PMD_WC_RETRY_EXC_ERR;

	if (qp->peer_srq != NULL) {
		slot = srq_claim(qp, &st);
		if (slot == NULL)
			return st;
		max_sge = qp->peer_srq_max_sge;
	} else {
		slot = shm_slot(qp->peer_rq, qp->peer_slot_size, qp->peer_cons & qp->peer_rq_mask);
		/* acquire: the SGEs of a POSTED slot are read after the owner wrote them */
		st = __atomic_load_n(&slot->state, __ATOMIC_ACQUIRE);
		if (st != RPCRDMA_SHM_SLOT_POSTED)
			return st == RPCRDMA_SHM_SLOT_FLUSHED ? RPCRDMA_PMD_WC_RETRY_EXC_ERR
							      : EXEC_RNR;
		/* claim it: the owner flushing its QP races us with the same CAS */
		if (!__atomic_compare_exchange_n(&slot->state, &expected, RPCRDMA_SHM_SLOT_CLAIMED,
						 false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return RPCRDMA_PMD_WC_RETRY_EXC_ERR;
		qp->peer_cons++;
		__atomic_store_n(&qp->peer->rq_tail, qp->peer_cons, __ATOMIC_RELAXED);
		max_sge = qp->peer_max_sge;
	}

	/* the slot is the peer's: check every field before use */
	nsge = slot->num_sge;
	if (nsge > max_sge || slot->post_err != RPCRDMA_SHM_POST_OK)
		goto bad_recv;
	for (i = 0; i < nsge; i++) {
		const struct rpcrdma_shm_sge *s = &slot->sge[i];

		dlen[i] = s->length;
		dst[i] = peer_region_ptr(qp->rdev, s->region, s->offset, s->length);
		if (dst[i] == NULL)
			goto bad_recv;
		cap += s->length;
	}
	if (cap < total) {
		send_slot_done(qp, slot, RPCRDMA_PMD_WC_LOC_LEN_ERR, 0, 0, 0);
		return RPCRDMA_PMD_WC_REM_INV_REQ_ERR;
	}
	if (w->opcode == RPCRDMA_PMD_WR_SEND_WITH_INV) {
		if (!remote_invalidate(qp, w->inv_rkey)) {
			send_slot_done(qp, slot, RPCRDMA_PMD_WC_REM_INV_REQ_ERR, 0, 0, 0);
			return RPCRDMA_PMD_WC_REM_INV_REQ_ERR;
		}
		flags = RPCRDMA_PMD_WC_WITH_INV;
	}

	/* gather the local SGL into the scattered receive: each byte copied once */
	di = 0;
	doff = 0;
	for (i = 0; i < w->num_sge; i++) {
		const uint8_t *src = (const uint8_t *)(uintptr_t)w->sge[i].addr;
		uint32_t left = w->sge[i].length;

		while (left != 0) {
			uint32_t n = dlen[di] - doff;

			if (n == 0) {
				di++;
				doff = 0;
				continue;
			}
			if (n > left)
				n = left;
			memcpy(dst[di] + doff, src, n);
			src += n;
			left -= n;
			doff += n;
		}
	}
	send_slot_done(qp, slot, RPCRDMA_PMD_WC_SUCCESS, (uint32_t)total, flags,
		       flags ? w->inv_rkey : 0);
	return RPCRDMA_PMD_WC_SUCCESS;

bad_recv:
	send_slot_done(qp, slot, RPCRDMA_PMD_WC_LOC_PROT_ERR, 0, 0, 0);
	return RPCRDMA_PMD_WC_REM_OP_ERR;
}

static uint8_t exec_rdma(struct shm_qp *qp, const struct shm_swqe *w, uint32_t *byte_len)
{
	bool write = w->opcode == RPCRDMA_PMD_WR_RDMA_WRITE;
	uint64_t total;
	uint8_t *rptr;
	unsigned int i;
	uint8_t st;

	st = local_sgl(qp, w, write ? 0 : RPCRDMA_PMD_ACCESS_LOCAL_WRITE, &total);
	if (st != RPCRDMA_PMD_WC_SUCCESS)
		return st;
	if (!peer_alive(qp))
		return RPCRDMA_PMD_WC_RETRY_EXC_ERR;
	*byte_len = (uint32_t)total;
	if (total == 0)
		return RPCRDMA_PMD_WC_SUCCESS;
	rptr = remote_mr_ptr(qp, w->rkey, w->remote_addr, total,
			     write ? RPCRDMA_PMD_ACCESS_REMOTE_WRITE
				   : RPCRDMA_PMD_ACCESS_REMOTE_READ);
	if (rptr == NULL) {
		peer_fault(qp, RPCRDMA_PMD_WC_REM_ACCESS_ERR);
		return RPCRDMA_PMD_WC_REM_ACCESS_ERR;
	}
	for (i = 0; i < w->num_sge; i++) {
		uint8_t *l = (uint8_t *)(uintptr_t)w->sge[i].addr;
		uint32_t n = w->sge[i].length;

		if (write)
			memcpy(rptr, l, n);
		else
			memcpy(l, rptr, n);
		rptr += n;
	}
	return RPCRDMA_PMD_WC_SUCCESS;
}

static inline void stall(struct shm_qp *qp)
{
	if (!qp->stalled) {
		TAILQ_INSERT_TAIL(&qp->scq->stalled, qp, stall_next);
		qp->stalled = 1;
	}
}

static inline void unstall(struct shm_qp *qp)
{
	if (qp->stalled) {
		TAILQ_REMOVE(&qp->scq->stalled, qp, stall_next);
		qp->stalled = 0;
	}
}

void shm_qp_to_error(struct shm_qp *qp)
{
	uint32_t i;

	if (qp->common.state == RPCRDMA_PMD_QPS_ERROR)
		return;
	qp->common.state = RPCRDMA_PMD_QPS_ERROR;
	/* release: the peer that sees ERROR stops using our receive queue */
	__atomic_store_n(&qp->area->state, RPCRDMA_SHM_QP_ERROR, __ATOMIC_RELEASE);
	shm_dev_qp_error(qp->dev);
	/* flush posted receives; a slot the peer claimed first completes normally */
	for (i = qp->rq_reap; i != qp->rq_post; i++) {
		struct rpcrdma_shm_rq_slot *slot =
			shm_slot(qp->rq, qp->rq_slot_size, i & qp->rq_mask);
		uint32_t expected = RPCRDMA_SHM_SLOT_POSTED;

		__atomic_compare_exchange_n(&slot->state, &expected, RPCRDMA_SHM_SLOT_FLUSHED,
					    false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
	}
	/* staged work requests are outstanding too: they flush at the next progress */
	qp->sq_db = qp->sq_head;
	qp->rnr_next = 0;
	qp->rnr_tries = 0;
	if (qp->sq_exec != qp->sq_db)
		stall(qp);
}

void shm_sq_progress(struct shm_qp *qp)
{
	struct shm_cq *cq = qp->scq;
	struct shm_faults *f = &qp->dev->faults;

	while (qp->sq_exec != qp->sq_db) {
		struct shm_swqe *w = sq_slot(qp, qp->sq_exec);
		uint32_t byte_len = 0;
		uint8_t st;

		/* every WR may complete (errors always do): wait for room */
		if (cq_space(cq) == 0)
			goto wait;
		if (qp->common.state == RPCRDMA_PMD_QPS_ERROR) {
			cq_push(cq, qp, w->wr_id, RPCRDMA_PMD_WC_WR_FLUSH_ERR,
				rpcrdma_pmd_wc_opcode_of_wr(w->opcode), 0, 0, 0);
			qp->sq_exec++;
			continue;
		}
		if (qp->rnr_next != 0) {
			if (rte_rdtsc() < qp->rnr_next)
				goto wait;
			qp->common.stats.rnr_retries++;
		}

		if (f->fail_wr != 0 && ++f->wr_count == f->fail_wr) {
			st = RPCRDMA_PMD_WC_RETRY_EXC_ERR;
		} else if (w->opcode <= RPCRDMA_PMD_WR_SEND_WITH_INV) {
			st = exec_send(qp, w);
			byte_len = 0;
		} else {
			st = exec_rdma(qp, w, &byte_len);
		}

		if (st == EXEC_RNR) {
			if (qp->rnr_retry != 7 && qp->rnr_tries >= qp->rnr_retry) {
				st = RPCRDMA_PMD_WC_RNR_RETRY_EXC_ERR;
			} else {
				qp->rnr_tries++;
				qp->rnr_next = rte_rdtsc() + qp->rnr_timer;
				goto wait;
			}
		}
		qp->rnr_tries = 0;
		qp->rnr_next = 0;
		qp->sq_exec++;
		if (st != RPCRDMA_PMD_WC_SUCCESS) {
			cq_push(cq, qp, w->wr_id, st, rpcrdma_pmd_wc_opcode_of_wr(w->opcode), 0, 0,
				0);
			shm_qp_to_error(qp);
			continue;
		}
		if (w->flags & RPCRDMA_PMD_SEND_SIGNALED)
			cq_push(cq, qp, w->wr_id, st, rpcrdma_pmd_wc_opcode_of_wr(w->opcode),
				byte_len, 0, 0);
		if (w->opcode <= RPCRDMA_PMD_WR_SEND_WITH_INV && f->drop_after_sends != 0 &&
		    ++qp->sends == f->drop_after_sends) {
			/* the connection drops now; the event poll closes it and reports it */
			qp->drop_pending = true;
			qp->dev->drops_pending++;
			shm_qp_to_error(qp);
		}
	}
	/*
	 * An empty send queue starts again at its first slot: a QP that sends
	 * now and then keeps one or two lines of its ring warm, not the whole
	 * ring in turn (with many QPs per lcore, each Send would miss).
	 */
	if (qp->sq_head == qp->sq_exec)
		qp->sq_head = qp->sq_db = qp->sq_exec = 0;
	unstall(qp);
	return;
wait:
	stall(qp);
}

static uint16_t shm_post_recv_burst(struct rpcrdma_pmd_qp *q, const struct rpcrdma_pmd_recv_wr *wrs,
				    uint16_t n)
{
	struct shm_qp *qp = to_shm_qp(q);
	uint32_t space = qp->rq_mask + 1 - (qp->rq_post - qp->rq_reap);
	uint32_t state = q->state == RPCRDMA_PMD_QPS_ERROR ? RPCRDMA_SHM_SLOT_FLUSHED
							   : RPCRDMA_SHM_SLOT_POSTED;
	uint16_t i;

	for (i = 0; i < n && i < space; i++) {
		const struct rpcrdma_pmd_recv_wr *wr = &wrs[i];
		uint32_t idx = qp->rq_post & qp->rq_mask;
		struct rpcrdma_shm_rq_slot *slot = shm_slot(qp->rq, qp->rq_slot_size, idx);
		uint8_t err = RPCRDMA_SHM_POST_OK;
		uint16_t j;

		if (wr->num_sge > qp->max_recv_sge)
			break;
		for (j = 0; j < wr->num_sge; j++) {
			const struct rpcrdma_pmd_sge *s = &wr->sg_list[j];
			const struct rpcrdma_shm_mr *e;

			e = local_mr(qp->dev, s->lkey, qp->pd_id, s->addr, s->length,
				     RPCRDMA_PMD_ACCESS_LOCAL_WRITE);
			if (e == NULL) {
				err = RPCRDMA_SHM_POST_BAD_LKEY;
				break;
			}
			slot->sge[j].region = e->region;
			slot->sge[j].length = s->length;
			slot->sge[j].offset = e->region == RPCRDMA_SHM_REGION_NONE
						      ? s->addr
						      : e->region_off + (s->addr - e->addr);
		}
		slot->num_sge = wr->num_sge;
		slot->post_err = err;
		qp->rq_ent[idx].wr_id = wr->wr_id;
		qp->rq_ent[idx].addr =
			wr->num_sge != 0 ? (const uint8_t *)(uintptr_t)wr->sg_list[0].addr : NULL;
		/* release: the SGEs are visible to the peer that sees POSTED */
		__atomic_store_n(&slot->state, state, __ATOMIC_RELEASE);
		qp->rq_post++;
	}
	if (i != 0) {
		__atomic_store_n(&qp->area->rq_head, qp->rq_post, __ATOMIC_RELAXED);
		q->stats.recv_wrs += i;
	}
	return i;
}

static uint16_t shm_srq_post_recv_burst(struct rpcrdma_pmd_srq *s,
					const struct rpcrdma_pmd_recv_wr *wrs, uint16_t n)
{
	struct shm_srq *srq = to_shm_srq(s);
	uint32_t out = (uint32_t)(srq->rq_post - srq->rq_reap);
	uint32_t space = srq->rq_mask + 1 - out;
	uint16_t i;

	if (space > s->max_wr - out)
		space = s->max_wr - out;
	for (i = 0; i < n && i < space; i++) {
		const struct rpcrdma_pmd_recv_wr *wr = &wrs[i];
		uint32_t idx = (uint32_t)srq->rq_post & srq->rq_mask;
		struct rpcrdma_shm_rq_slot *slot = shm_slot(srq->rq, srq->rq_slot_size, idx);
		uint8_t err = RPCRDMA_SHM_POST_OK;
		uint16_t j;

		if (wr->num_sge > s->max_sge)
			break;
		for (j = 0; j < wr->num_sge; j++) {
			const struct rpcrdma_pmd_sge *sg = &wr->sg_list[j];
			const struct rpcrdma_shm_mr *e;

			e = local_mr(srq->dev, sg->lkey, srq->pd_id, sg->addr, sg->length,
				     RPCRDMA_PMD_ACCESS_LOCAL_WRITE);
			if (e == NULL) {
				err = RPCRDMA_SHM_POST_BAD_LKEY;
				break;
			}
			slot->sge[j].region = e->region;
			slot->sge[j].length = sg->length;
			slot->sge[j].offset = e->region == RPCRDMA_SHM_REGION_NONE
						      ? sg->addr
						      : e->region_off + (sg->addr - e->addr);
		}
		slot->num_sge = wr->num_sge;
		slot->post_err = err;
		srq->rq_ent[idx].wr_id = wr->wr_id;
		srq->rq_ent[idx].addr =
			wr->num_sge != 0 ? (const uint8_t *)(uintptr_t)wr->sg_list[0].addr : NULL;
		/* release: the SGEs are visible to the peer that sees POSTED */
		__atomic_store_n(&slot->state,
				 rpcrdma_shm_srq_posted(srq->rq_post, srq->rq_mask + 1),
				 __ATOMIC_RELEASE);
		srq->rq_post++;
	}
	if (i != 0) {
		/* release: a peer that reads rq_head sees the slots below it POSTED */
		__atomic_store_n(&srq->area->rq_head, srq->rq_post, __ATOMIC_RELEASE);
		s->recv_wrs += i;
	}
	return i;
}

static uint16_t shm_queue_send_burst(struct rpcrdma_pmd_qp *q,
				     const struct rpcrdma_pmd_send_wr *wrs, uint16_t n)
{
	struct shm_qp *qp = to_shm_qp(q);
	uint32_t space = qp->sq_mask + 1 - (qp->sq_head - qp->sq_exec);
	uint16_t i;

	if (q->state != RPCRDMA_PMD_QPS_RTS && q->state != RPCRDMA_PMD_QPS_ERROR)
		return 0;
	for (i = 0; i < n && i < space; i++) {
		const struct rpcrdma_pmd_send_wr *wr = &wrs[i];
		struct shm_swqe *w = sq_slot(qp, qp->sq_head);

		if (wr->num_sge > qp->max_send_sge || wr->opcode > RPCRDMA_PMD_WR_RDMA_READ)
			break;
		w->wr_id = wr->wr_id;
		w->remote_addr = wr->remote_addr;
		w->rkey = wr->rkey;
		w->inv_rkey = wr->invalidate_rkey;
		w->opcode = wr->opcode;
		w->flags = wr->flags;
		w->num_sge = wr->num_sge;
		if (wr->num_sge == 1)
			w->sge[0] = wr->sg_list[0];
		else if (wr->num_sge > 1)
			memcpy(w->sge, wr->sg_list, sizeof(w->sge[0]) * wr->num_sge);
		qp->sq_head++;
	}
	q->stats.send_wrs += i;
	return i;
}

/*
 * What the next Send's execution touches beyond the QP's lines: the send
 * queue entry queue_send_burst writes next, and, from a peer without
 * qp_errors, the peer QP's state line that peer_alive() reads (the peer's
 * SRQ lines and device line are shared by every QP that sends to it:
 * left alone).
 */
static void shm_prefetch_doorbell(const struct rpcrdma_pmd_qp *q)
{
	const struct shm_qp *qp = container_of(q, const struct shm_qp, common);

	__builtin_prefetch(sq_slot(qp, qp->sq_head), 1);
	if (qp->peer != NULL && !qp->peer_gone && qp->rdev != NULL && qp->rdev->qp_errors == NULL)
		__builtin_prefetch(&qp->peer->state, 0);
}

static unsigned int shm_flush(struct rpcrdma_pmd_qp *q)
{
	struct shm_qp *qp = to_shm_qp(q);
	unsigned int n = qp->sq_head - qp->sq_db;

	if (n == 0)
		return 0;
	qp->sq_db = qp->sq_head;
	q->stats.doorbells++;
	shm_sq_progress(qp);
	RPCRDMA_STAMP(RPCRDMA_STAMP_DOORBELL);
	return n;
}

/* Move the receive completions the peer wrote into our slots to the CQ. */
static inline void rq_harvest(struct shm_cq *cq, struct shm_qp *qp)
{
	if (__atomic_load_n(&qp->area->fault, __ATOMIC_RELAXED) != 0)
		shm_qp_to_error(qp);
	while (qp->rq_reap != qp->rq_post && cq_space(cq) != 0) {
		uint32_t idx = qp->rq_reap & qp->rq_mask;
		struct rpcrdma_shm_rq_slot *slot = shm_slot(qp->rq, qp->rq_slot_size, idx);
		/* acquire: the data and completion fields the peer wrote before DONE */
		uint32_t st = __atomic_load_n(&slot->state, __ATOMIC_ACQUIRE);
		uint32_t len = 0, flags = 0, inv = 0;
		uint8_t status;

		if (st == RPCRDMA_SHM_SLOT_DONE) {
			RPCRDMA_STAMP(RPCRDMA_STAMP_RECV);
			status = slot->wc_status;
			len = slot->byte_len;
			/*
			 * The message was written by the peer's lcore: start
			 * moving its first two lines here now, so that the misses
			 * overlap each other and the completion's way up to the
			 * user, who reads them next (a NIC's DMA would have left
			 * them in the LLC). Only when the user says it reads them.
			 */
			if (qp->rq_prefetch && status == RPCRDMA_PMD_WC_SUCCESS &&
			    qp->rq_ent[idx].addr != NULL) {
				rte_prefetch0(qp->rq_ent[idx].addr);
				if (len > 64 - ((uintptr_t)qp->rq_ent[idx].addr & 63))
					rte_prefetch0(qp->rq_ent[idx].addr + 64);
			}
			flags = slot->wc_flags & RPCRDMA_PMD_WC_WITH_INV;
			inv = flags ? slot->inv_rkey : 0;
		} else if (st == RPCRDMA_SHM_SLOT_FLUSHED ||
			   (st == RPCRDMA_SHM_SLOT_CLAIMED && qp->peer_gone)) {
			status = RPCRDMA_PMD_WC_WR_FLUSH_ERR;
		} else {
			break;
		}
		cq_push(cq, qp, qp->rq_ent[idx].wr_id, status, RPCRDMA_PMD_WC_RECV, len,
			(uint16_t)flags, inv);
		/*
		 * The slot keeps DONE/FLUSHED until it is reposted: the peer acts on
		 * POSTED only, and not writing here saves a cache-line upgrade on
		 * the receive path.
		 */
		qp->rq_reap++;
		if (status != RPCRDMA_PMD_WC_SUCCESS && status != RPCRDMA_PMD_WC_WR_FLUSH_ERR)
			shm_qp_to_error(qp);
	}
}

/*
 * Move the receive completions the peers wrote into an SRQ's slots to the
 * receive CQs of the QPs they name, in slot order. The slot word is a
 * peer's: the QP it names must be one attached here, or the completion is
 * dropped (a QP destroyed since: its completions are lost, as verbs). A
 * completion reads what it needs of its QP from the SRQ's table
 * (struct shm_srq_qp), not from the QP: with many QPs, one miss less each.
 */
static void srq_harvest(struct shm_srq *srq)
{
	uint32_t faults = __atomic_load_n(&srq->area->faults, __ATOMIC_ACQUIRE);

	if (unlikely(faults != srq->faults_seen)) {
		/* a peer moved an attached QP to error (peer_fault()): which one */
		srq->faults_seen = faults;
		for (uint32_t i = 0; i < srq->qps_cap; i++)
			if (srq->qps[i].qp != NULL &&
			    __atomic_load_n(&srq->qps[i].qp->area->fault, __ATOMIC_RELAXED) != 0)
				shm_qp_to_error(srq->qps[i].qp);
	}
	while (srq->rq_reap != srq->rq_post) {
		uint32_t idx = (uint32_t)srq->rq_reap & srq->rq_mask;
		struct rpcrdma_shm_rq_slot *slot = shm_slot(srq->rq, srq->rq_slot_size, idx);
		/* acquire: the data and completion fields the peer wrote before DONE */
		uint32_t word = __atomic_load_n(&slot->state, __ATOMIC_ACQUIRE);
		uint32_t st = RPCRDMA_SHM_SLOT_STATE(word), qi = RPCRDMA_SHM_SLOT_QP(word);
		const struct shm_srq_qp *q = qi < srq->qps_cap ? &srq->qps[qi] : NULL;
		uint32_t len = 0, flags = 0, inv = 0;
		uint8_t status;

		if (st == RPCRDMA_SHM_SLOT_POSTED)
			break;
		if (q == NULL || q->qp == NULL) {
			/*
			 * Its QP is gone (its completion with it), or a peer
			 * wrote nonsense. A claim for a QP destroyed lately may
			 * still be copying into the receive: not posted again
			 * under it until DONE, or the index's retirement ends.
			 */
			if (unlikely(st == RPCRDMA_SHM_SLOT_CLAIMED && q != NULL &&
				     shm_srq_qp_retired(q, rte_rdtsc())))
				break;
			srq->rq_reap++;
			continue;
		}
		if (st == RPCRDMA_SHM_SLOT_DONE) {
			status = slot->wc_status;
			len = slot->byte_len;
			flags = slot->wc_flags & RPCRDMA_PMD_WC_WITH_INV;
			inv = flags ? slot->inv_rkey : 0;
			if (q->rq_prefetch && status == RPCRDMA_PMD_WC_SUCCESS &&
			    srq->rq_ent[idx].addr != NULL)
				rte_prefetch0(srq->rq_ent[idx].addr);
		} else if (st == RPCRDMA_SHM_SLOT_CLAIMED) {
			if (!q->qp->peer_gone)
				break; /* the peer is filling it */
			status = RPCRDMA_PMD_WC_WR_FLUSH_ERR;
		} else {
			srq->rq_reap++;
			continue;
		}
		if (cq_space(q->rcq) == 0)
			break;
		cq_push_qpn(q->rcq, q->qp, q->qp_num, srq->rq_ent[idx].wr_id, status,
			    RPCRDMA_PMD_WC_RECV, len, (uint16_t)flags, inv);
		srq->rq_reap++;
		if (status != RPCRDMA_PMD_WC_SUCCESS && status != RPCRDMA_PMD_WC_WR_FLUSH_ERR)
			shm_qp_to_error(q->qp);
	}
}

static uint16_t shm_poll_cq_burst(struct rpcrdma_pmd_cq *c, struct rpcrdma_pmd_wc *wc, uint16_t n)
{
	struct shm_cq *cq = to_shm_cq(c);
	struct shm_qp *qp, *next;
	uint16_t k = 0;

	/* send queues that wait: RNR retries, CQ full, flushes */
	for (qp = TAILQ_FIRST(&cq->stalled); qp != NULL; qp = next) {
		next = TAILQ_NEXT(qp, stall_next);
		shm_sq_progress(qp);
	}
	TAILQ_FOREACH(qp, &cq->rqs, rq_next)
	{
		if (cq_space(cq) == 0)
			break;
		rq_harvest(cq, qp);
	}
	for (uint32_t i = 0; i < cq->nb_srqs; i++)
		srq_harvest(cq->srqs[i]);
	while (k < n && cq->tail != cq->head) {
		const struct shm_cqe *e = &cq->ring[cq->tail & cq->mask];

		if (e->ready_at > cq->polls)
			break;
		wc[k++] = e->wc;
		cq->tail++;
	}
	cq->polls++;
	c->stats.polls++;
	c->stats.wcs += k;
	if (k == 0)
		c->stats.empty_polls++;
	return k;
}

void shm_qp_set_fast_path(struct shm_qp *qp)
{
	qp->common.post_recv_burst = shm_post_recv_burst;
	qp->common.queue_send_burst = shm_queue_send_burst;
	qp->common.flush = shm_flush;
	qp->common.prefetch_doorbell = shm_prefetch_doorbell;
}

void shm_srq_set_fast_path(struct shm_srq *srq)
{
	srq->common.post_recv_burst = shm_srq_post_recv_burst;
}

void shm_cq_set_fast_path(struct shm_cq *cq)
{
	cq->common.poll_burst = shm_poll_cq_burst;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shm PMD shared receive queues, control path: an SRQ is an SRQ area (a
 * memfd: header and receive slots, rpcrdma_shm.h) that the peer of every QP
 * attached to it maps, and a table of those QPs by the index a peer writes
 * in the slot it claims. The fast path (posting, claiming, reaping) is in
 * shm_fp.c.
 *
 * Semantics, as verbs: a QP attached that goes to error leaves the SRQ's
 * receives posted; a receive a peer had claimed completes on that QP (in
 * error if the peer went away before it finished). Destroying the SRQ
 * discards what is still posted, without completions (ibv_destroy_srq). A
 * QP destroyed while a peer fills a receive it claimed loses that
 * completion, as a destroyed QP's completions not yet polled are lost;
 * the receive it fills is not reaped (nor posted again) until the peer is
 * done with it, for up to SHM_SRQ_RETIRE_MS (struct shm_srq_qp).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "shm.h"

int shm_srq_create(struct rpcrdma_pmd_pd *pd, const struct rpcrdma_pmd_srq_attr *attr,
		   struct rpcrdma_pmd_srq **srqp)
{
	struct shm_dev *dev = to_shm_dev(pd->dev);
	struct rpcrdma_shm_srq_area *a;
	uint32_t rq_size, slot_size;
	struct shm_srq *srq;

	rq_size = rte_align32pow2(attr->max_wr);
	slot_size = shm_align_up(sizeof(struct rpcrdma_shm_rq_slot) +
					 attr->max_sge * sizeof(struct rpcrdma_shm_sge),
				 RPCRDMA_SHM_CACHE_LINE);
	srq = aligned_alloc(64, shm_align_up(sizeof(*srq), 64));
	if (srq == NULL)
		return -ENOMEM;
	memset(srq, 0, sizeof(*srq));
	srq->dev = dev;
	srq->pd_id = pd->pd_id;
	srq->area_size = shm_align_up(sizeof(*a) + (size_t)rq_size * slot_size, 4096);
	a = shm_memfd_area("rpcrdma_shm_srq", srq->area_size, &srq->area_fd);
	if (a == NULL)
		goto err_srq;
	a->magic = RPCRDMA_SHM_MAGIC;
	a->version_major = RPCRDMA_SHM_VERSION_MAJOR;
	a->version_minor = RPCRDMA_SHM_VERSION_MINOR;
	a->hdr_size = sizeof(*a);
	a->srq_num = dev->next_srq_num++;
	a->pd = pd->pd_id;
	a->rq_size = rq_size;
	a->rq_slot_size = slot_size;
	a->rq_max_sge = attr->max_sge;
	a->rq_off = sizeof(*a);
	a->area_size = srq->area_size;
	srq->area = a;
	srq->rq = (uint8_t *)a + a->rq_off;
	srq->rq_mask = rq_size - 1;
	srq->rq_slot_size = slot_size;
	srq->rq_ent = calloc(rq_size, sizeof(*srq->rq_ent));
	if (srq->rq_ent == NULL)
		goto err_area;
	shm_srq_arm(&srq->common, attr->srq_limit);
	srq->common.srq_num = a->srq_num;
	srq->common.max_wr = attr->max_wr;
	srq->common.max_sge = attr->max_sge;
	TAILQ_INSERT_TAIL(&dev->srqs, srq, dev_next);
	shm_srq_set_fast_path(srq);
	*srqp = &srq->common;
	return 0;

err_area:
	munmap(srq->area, srq->area_size);
	close(srq->area_fd);
err_srq:
	free(srq);
	return -ENOMEM;
}

/*
 * A peer that claimed a slot for a QP detached lately may still be copying
 * into its receive (struct shm_srq_qp): the buffer is the application's
 * again once the SRQ is gone. Wait for each such slot to turn DONE, or for
 * its index's retirement to end (a peer that died in the copy). Bounded by
 * SHM_SRQ_RETIRE_MS from the last detach; no wait when there is no such
 * slot.
 */
static void srq_wait_late_claims(const struct shm_srq *srq)
{
	for (uint64_t i = srq->rq_reap; i != srq->rq_post; i++) {
		const struct rpcrdma_shm_rq_slot *slot =
			shm_slot(srq->rq, srq->rq_slot_size, (uint32_t)i & srq->rq_mask);

		for (;;) {
			uint32_t word = __atomic_load_n(&slot->state, __ATOMIC_ACQUIRE);
			uint32_t qi = RPCRDMA_SHM_SLOT_QP(word);

			if (RPCRDMA_SHM_SLOT_STATE(word) != RPCRDMA_SHM_SLOT_CLAIMED ||
			    qi >= srq->qps_cap || !shm_srq_qp_retired(&srq->qps[qi], rte_rdtsc()))
				break;
			sched_yield();
		}
	}
}

void shm_srq_destroy(struct rpcrdma_pmd_srq *s)
{
	struct shm_srq *srq = to_shm_srq(s);
	uint64_t i;

	srq_wait_late_claims(srq);
	/*
	 * No QP is attached, so no peer may claim any more (their QP areas say
	 * ERROR, shm_srq_detach()); a peer that still maps the area and looks
	 * finds FLUSHED.
	 */
	for (i = srq->rq_reap; i != srq->rq_post; i++) {
		struct rpcrdma_shm_rq_slot *slot =
			shm_slot(srq->rq, srq->rq_slot_size, (uint32_t)i & srq->rq_mask);
		uint32_t expected = rpcrdma_shm_srq_posted(i, srq->rq_mask + 1);

		__atomic_compare_exchange_n(&slot->state, &expected, RPCRDMA_SHM_SLOT_FLUSHED,
					    false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
	}
	shm_ev_forget_srq(srq->dev, srq);
	TAILQ_REMOVE(&srq->dev->srqs, srq, dev_next);
	free(srq->qps);
	free(srq->rq_ent);
	munmap(srq->area, srq->area_size);
	close(srq->area_fd);
	free(srq);
}

/*
 * As verbs, the limit event comes when a receive is taken and leaves fewer
 * posted than the limit: the peer that takes it sees that (it knows the
 * indexes) and sets limit_hit; the next event poll reports it. Arming below
 * what is posted already reports nothing until a receive is taken.
 */
int shm_srq_arm(struct rpcrdma_pmd_srq *s, uint32_t limit)
{
	struct shm_srq *srq = to_shm_srq(s);

	srq->limit = limit;
	__atomic_store_n(&srq->area->limit_hit, 0, __ATOMIC_RELAXED);
	/* release: limit_hit cleared before a peer can see the new limit */
	__atomic_store_n(&srq->area->limit, limit, __ATOMIC_RELEASE);
	return 0;
}

void shm_srq_limit_poll(struct shm_dev *dev)
{
	struct shm_srq *srq;

	TAILQ_FOREACH(srq, &dev->srqs, dev_next)
	{
		if (srq->limit == 0 || !__atomic_load_n(&srq->area->limit_hit, __ATOMIC_ACQUIRE))
			continue;
		if (shm_ev_push_srq(dev, srq) == 0)
			shm_srq_arm(&srq->common, 0); /* one-shot, as verbs */
	}
}

/* The CQ @cq reaps @srq as long as a QP of it receives there. */
static int cq_srq_add(struct shm_cq *cq, struct shm_srq *srq)
{
	struct shm_srq **s;
	uint32_t *r, i;

	for (i = 0; i < cq->nb_srqs; i++)
		if (cq->srqs[i] == srq) {
			cq->srq_refs[i]++;
			return 0;
		}
	s = realloc(cq->srqs, (cq->nb_srqs + 1) * sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	cq->srqs = s;
	r = realloc(cq->srq_refs, (cq->nb_srqs + 1) * sizeof(*r));
	if (r == NULL)
		return -ENOMEM;
	cq->srq_refs = r;
	cq->srqs[cq->nb_srqs] = srq;
	cq->srq_refs[cq->nb_srqs] = 1;
	cq->nb_srqs++;
	return 0;
}

static void cq_srq_del(struct shm_cq *cq, struct shm_srq *srq)
{
	uint32_t i;

	for (i = 0; i < cq->nb_srqs; i++)
		if (cq->srqs[i] == srq) {
			if (--cq->srq_refs[i] == 0) {
				cq->nb_srqs--;
				cq->srqs[i] = cq->srqs[cq->nb_srqs];
				cq->srq_refs[i] = cq->srq_refs[cq->nb_srqs];
			}
			return;
		}
}

int shm_srq_attach(struct shm_qp *qp, struct shm_srq *srq)
{
	uint32_t i, idx;
	int ret;

	/*
	 * A free index, searched from after the last one given, and not one
	 * retired in the last SHM_SRQ_RETIRE_MS: a late peer names no new QP.
	 */
	uint64_t now = rte_rdtsc();

	for (i = 0; i < srq->qps_cap; i++) {
		idx = (srq->qps_next + i) % srq->qps_cap;
		if (srq->qps[idx].qp == NULL && !shm_srq_qp_retired(&srq->qps[idx], now))
			break;
	}
	if (i == srq->qps_cap) {
		uint32_t cap = srq->qps_cap ? srq->qps_cap * 2 : 16;
		struct shm_srq_qp *t;

		if (cap > RPCRDMA_SHM_SRQ_NONE)
			return -ENOSPC;
		t = realloc(srq->qps, cap * sizeof(*t));
		if (t == NULL)
			return -ENOMEM;
		memset(t + srq->qps_cap, 0, (cap - srq->qps_cap) * sizeof(*t));
		idx = srq->qps_cap;
		srq->qps = t;
		srq->qps_cap = cap;
	}
	ret = cq_srq_add(qp->rcq, srq);
	if (ret < 0)
		return ret;
	srq->qps[idx] = (struct shm_srq_qp){ .qp = qp,
					     .rcq = qp->rcq,
					     .qp_num = qp->common.qp_num,
					     .rq_prefetch = qp->rq_prefetch };
	srq->qps_next = idx + 1;
	qp->srq = srq;
	qp->srq_index = idx;
	return 0;
}

void shm_srq_detach(struct shm_qp *qp)
{
	struct shm_srq *srq = qp->srq;

	/*
	 * release: a peer that sees ERROR claims no more receives for this
	 * QP; one that looked before may still claim one, or be filling one
	 * it claimed: its index is retired for a while (struct shm_srq_qp).
	 */
	__atomic_store_n(&qp->area->state, RPCRDMA_SHM_QP_ERROR, __ATOMIC_RELEASE);
	shm_dev_qp_error(qp->dev);
	srq->qps[qp->srq_index] = (struct shm_srq_qp){
		.until = rte_rdtsc() + shm_tsc_hz() / 1000 * SHM_SRQ_RETIRE_MS,
	};
	cq_srq_del(qp->rcq, srq);
	qp->srq = NULL;
}

/* Map and check the SRQ area of the peer's QP. Consumes @fd. */
/* Is @a, mapped @size bytes, an SRQ area this PMD can use? */
static bool peer_srq_ok(const struct rpcrdma_shm_srq_area *a, uint64_t size)
{
	uint64_t min_slot = sizeof(struct rpcrdma_shm_rq_slot) +
			    (uint64_t)a->rq_max_sge * sizeof(struct rpcrdma_shm_sge);

	return a->magic == RPCRDMA_SHM_MAGIC && a->version_major == RPCRDMA_SHM_VERSION_MAJOR &&
	       a->hdr_size == sizeof(*a) && a->rq_size != 0 &&
	       (a->rq_size & (a->rq_size - 1)) == 0 && a->rq_size <= 2 * SHM_WR_MAX &&
	       a->rq_max_sge <= SHM_SGE_MAX && a->rq_slot_size >= min_slot &&
	       a->rq_slot_size % RPCRDMA_SHM_CACHE_LINE == 0 && a->rq_off >= sizeof(*a) &&
	       a->rq_off % RPCRDMA_SHM_CACHE_LINE == 0 &&
	       a->rq_off + (uint64_t)a->rq_size * a->rq_slot_size <= size;
}

int shm_peer_srq_map(struct shm_qp *qp, int fd)
{
	struct shm_peer_srq *m;
	struct rpcrdma_shm_srq_area *a;
	struct stat st;

	if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(*a) ||
	    (uint64_t)st.st_size > SHM_AREA_MAX) {
		close(fd);
		return -EPROTO;
	}
	LIST_FOREACH(m, &qp->dev->peer_srqs, next)
	{
		if (m->st_dev == st.st_dev && m->st_ino == st.st_ino &&
		    m->size == (size_t)st.st_size)
			break;
	}
	if (m == NULL) {
		m = calloc(1, sizeof(*m));
		a = m != NULL ? shm_map_peer_fd(fd, 0, (uint64_t)st.st_size) : NULL;
		if (a == NULL || !peer_srq_ok(a, (uint64_t)st.st_size)) {
			if (a != NULL)
				munmap(a, (size_t)st.st_size);
			free(m);
			close(fd);
			return -EPROTO;
		}
		m->st_dev = st.st_dev;
		m->st_ino = st.st_ino;
		m->area = a;
		m->size = (size_t)st.st_size;
		LIST_INSERT_HEAD(&qp->dev->peer_srqs, m, next);
	}
	close(fd);
	a = m->area;
	if (a->pd != qp->peer_pd) {
		if (m->refs == 0) {
			LIST_REMOVE(m, next);
			munmap(m->area, m->size);
			free(m);
		}
		return -EPROTO;
	}
	m->refs++;
	qp->peer_srq_map = m;
	qp->peer_srq = a;
	qp->peer_srq_rq = (uint8_t *)a + a->rq_off;
	qp->peer_srq_mask = a->rq_size - 1;
	qp->peer_srq_slot_size = a->rq_slot_size;
	qp->peer_srq_max_sge = a->rq_max_sge;
	return 0;
}

void shm_peer_srq_unmap(struct shm_qp *qp)
{
	struct shm_peer_srq *m = qp->peer_srq_map;

	if (m != NULL && --m->refs == 0) {
		LIST_REMOVE(m, next);
		munmap(m->area, m->size);
		free(m);
	}
	qp->peer_srq_map = NULL;
	qp->peer_srq = NULL;
}

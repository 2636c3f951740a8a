/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * verbs PMD shared receive queues: ibv_create_srq, its limit
 * (ibv_modify_srq IBV_SRQ_LIMIT; the IBV_EVENT_SRQ_LIMIT_REACHED it gives
 * becomes RPCRDMA_PMD_EVENT_SRQ_LIMIT in verbs_ctrl.c), and the table of
 * the QPs on SRQs by QP number, which the completion of an SRQ receive
 * names (ibv_wc.qp_num): its wr_id names the SRQ and its slot only.
 *
 * The SRQ's receives are never the PMD's to flush: a QP attached that goes
 * to error leaves them on the SRQ (the device reports only the receive it
 * was filling), and ibv_destroy_srq discards what is left.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_pmd.h"

/* A free index of the device's SRQ table, growing it if needed. */
static int srq_tag_alloc(struct verbs_dev *dev, uint32_t *tag)
{
	uint32_t i, cap;
	struct verbs_srq **t;
	uint16_t *g;

	for (i = 0; i < dev->srq_cap; i++)
		if (dev->srqs[i] == NULL) {
			*tag = (uint32_t)dev->srq_gen[i] << 16 | i;
			return 0;
		}
	if (dev->srq_cap == VERBS_SRQ_INDEX_MAX)
		return -ENOSPC;
	cap = dev->srq_cap ? dev->srq_cap * 2 : 16;
	t = realloc(dev->srqs, cap * sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	dev->srqs = t;
	g = realloc(dev->srq_gen, cap * sizeof(*g));
	if (g == NULL)
		return -ENOMEM;
	dev->srq_gen = g;
	for (i = dev->srq_cap; i < cap; i++) {
		dev->srqs[i] = NULL;
		dev->srq_gen[i] = 0;
	}
	*tag = dev->srq_cap;
	dev->srq_cap = cap;
	return 0;
}

int verbs_srq_create(struct rpcrdma_pmd_pd *p, const struct rpcrdma_pmd_srq_attr *attr,
		     struct rpcrdma_pmd_srq **srqp)
{
	struct verbs_dev *dev = to_verbs_dev(p->dev);
	struct ibv_srq_init_attr ia;
	struct verbs_srq *srq;
	uint32_t i;
	int ret;

	if (dev->fatal)
		return -EIO;
	srq = aligned_alloc(64, sizeof(*srq));
	if (srq == NULL)
		return -ENOMEM;
	memset(srq, 0, sizeof(*srq));
	srq->dev = dev;
	ret = srq_tag_alloc(dev, &srq->tag);
	if (ret < 0)
		goto err_srq;
	srq->wr_ids = calloc(attr->max_wr, sizeof(*srq->wr_ids));
	srq->busy = calloc(attr->max_wr, sizeof(*srq->busy));
	srq->free = calloc(attr->max_wr, sizeof(*srq->free));
	if (srq->wr_ids == NULL || srq->busy == NULL || srq->free == NULL) {
		ret = -ENOMEM;
		goto err_rings;
	}
	for (i = 0; i < attr->max_wr; i++)
		srq->free[i] = attr->max_wr - 1 - i; /* slot 0 first */
	srq->nb_free = attr->max_wr;

	memset(&ia, 0, sizeof(ia));
	ia.srq_context = srq;
	ia.attr.max_wr = attr->max_wr;
	ia.attr.max_sge = attr->max_sge;
	srq->srq = ibv_create_srq(to_verbs_pd(p)->pd, &ia);
	if (srq->srq == NULL) {
		ret = verbs_err_null();
		verbs_log("%s: ibv_create_srq (%u x %u sge): %s", dev->name, attr->max_wr,
			  attr->max_sge, strerror(-ret));
		goto err_rings;
	}
	srq->common.max_wr = attr->max_wr;
	srq->common.max_sge = attr->max_sge;
	srq->common.srq_num = verbs_tag_index(srq->tag);
	/* ibv_create_srq ignores srq_limit: it is armed by a modify */
	if (attr->srq_limit != 0) {
		ret = verbs_srq_arm(&srq->common, attr->srq_limit);
		if (ret < 0)
			goto err_ibv;
	}
	dev->srqs[verbs_tag_index(srq->tag)] = srq;
	verbs_srq_set_fast_path(srq);
	*srqp = &srq->common;
	return 0;

err_ibv:
	ibv_destroy_srq(srq->srq);
err_rings:
	free(srq->wr_ids);
	free(srq->busy);
	free(srq->free);
err_srq:
	free(srq);
	return ret;
}

void verbs_srq_destroy(struct rpcrdma_pmd_srq *s)
{
	struct verbs_srq *srq = to_verbs_srq(s);
	struct verbs_dev *dev = srq->dev;
	uint16_t idx = verbs_tag_index(srq->tag);
	unsigned int i;

	ibv_destroy_srq(srq->srq);
	/* a late completion of it no longer matches; its limit event is void */
	dev->srqs[idx] = NULL;
	dev->srq_gen[idx]++;
	for (i = 0; i < dev->evq_len; i++) {
		struct rpcrdma_pmd_event *ev = &dev->evq[(dev->evq_head + i) % dev->evq_cap];

		if (ev->srq == s)
			ev->type = 0; /* skipped by ev_pop */
	}
	free(srq->wr_ids);
	free(srq->busy);
	free(srq->free);
	free(srq);
}

int verbs_srq_arm(struct rpcrdma_pmd_srq *s, uint32_t limit)
{
	struct verbs_srq *srq = to_verbs_srq(s);
	struct ibv_srq_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.srq_limit = limit;
	ret = verbs_err(ibv_modify_srq(srq->srq, &a, IBV_SRQ_LIMIT));
	if (ret < 0)
		verbs_log("%s: ibv_modify_srq(IBV_SRQ_LIMIT %u): %s", srq->dev->name, limit,
			  strerror(-ret));
	return ret;
}

static void qpn_put(struct verbs_qp **tab, uint32_t mask, struct verbs_qp *qp)
{
	uint32_t i = qp->common.qp_num * 2654435761u & mask;

	while (tab[i] != NULL)
		i = (i + 1) & mask;
	tab[i] = qp;
}

/* Enter a QP on an SRQ in the QP-number table, at most half full. */
int verbs_qpn_add(struct verbs_dev *dev, struct verbs_qp *qp)
{
	uint32_t slots = dev->qpn_mask + 1;

	if (dev->qpn_mask == 0 || 2 * (dev->qpn_used + 1) > slots) {
		uint32_t n = dev->qpn_mask == 0 ? 64 : 2 * slots, i;
		struct verbs_qp **t = calloc(n, sizeof(*t));

		if (t == NULL)
			return -ENOMEM;
		for (i = 0; dev->qpn_mask != 0 && i <= dev->qpn_mask; i++)
			if (dev->qpn_tab[i] != NULL)
				qpn_put(t, n - 1, dev->qpn_tab[i]);
		free(dev->qpn_tab);
		dev->qpn_tab = t;
		dev->qpn_mask = n - 1;
	}
	qpn_put(dev->qpn_tab, dev->qpn_mask, qp);
	dev->qpn_used++;
	return 0;
}

/* Remove it; the entries after it in its run move back (no tombstones). */
void verbs_qpn_del(struct verbs_dev *dev, struct verbs_qp *qp)
{
	uint32_t mask = dev->qpn_mask, i, j;

	if (mask == 0)
		return;
	for (i = qp->common.qp_num * 2654435761u & mask; dev->qpn_tab[i] != qp; i = (i + 1) & mask)
		if (dev->qpn_tab[i] == NULL)
			return;
	dev->qpn_tab[i] = NULL;
	dev->qpn_used--;
	for (j = (i + 1) & mask; dev->qpn_tab[j] != NULL; j = (j + 1) & mask) {
		struct verbs_qp *q = dev->qpn_tab[j];

		dev->qpn_tab[j] = NULL;
		qpn_put(dev->qpn_tab, mask, q);
	}
}

void verbs_srq_dev_free(struct verbs_dev *dev)
{
	free(dev->srqs);
	free(dev->srq_gen);
	free(dev->qpn_tab);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poll groups (rpcrdma_xprt.h "Poll groups"): many connections on one
 * lcore, one CQ and one SRQ for all of them, as SPDK's NVMe-oF RDMA target
 * serves the queue pairs of a poll group.
 *
 * The poll reaps one burst of the group's completions and hands each to
 * the connection its QP names (the QP's context), then ends the poll of
 * every connection it touched and of every connection pending, the ones
 * with work a completion would not bring (xprt_needs_poll(): calls waiting
 * for a credit or for room, sends staged outside a poll, timeouts, a
 * connection that is not established); a connection stays pending while
 * it needs to. The public calls that give a connection such work outside
 * a poll put it on the pending list (xprt_kick()). An idle group's poll
 * is one empty CQ poll, whatever its number of connections.
 *
 * Credits (rfc5666bis 4.3): the SRQ is kept at srq_depth receives, of
 * which p.recvs can be reserved. A server connection reserves what its
 * grant needs before it grants it (xprt_post_recvs()), so a call its
 * grant allows always finds a receive; the grant, an equal share of
 * p.recvs (at least 1, at most the connection's max_credits), is set again
 * as connections come and go (share_update()). A client connection
 * reserves one receive per call out, and its bk_credits for the backward
 * calls it takes. Every connection's bk_credits (a server's: receives for
 * the replies of its backward calls; a client's: for the calls) are kept
 * out of the grants. A message that arrives on a
 * connection without a reservation (a requester over its grant) still
 * lands in the SRQ, in the spare: it is counted as its connection's.
 */
#include "xprt_int.h"

void rpcrdma_xprt_group_params_init(struct rpcrdma_xprt_group_params *p)
{
	memset(p, 0, sizeof(*p));
	p->max_conns = 1024;
	p->recvs = 1024;
	p->sq_depth = 96;
}

static int calls_init(struct rpcrdma_xprt_group *g);

static void group_free(struct rpcrdma_xprt_group *g)
{
	uint32_t i;
	void *b;

	/* a slot's buffer is the group's once the slot is free (xprt_call_free_slot()) */
	for (i = 0; g->calls != NULL && i < g->ncalls; i++)
		if (g->calls[i].msg_buf != NULL)
			rpcrdma_mempool_put(g->ipool, g->calls[i].msg_buf);
	if (g->ncall_hdr_bufs)
		rpcrdma_mempool_put_bulk(g->ipool, g->call_hdr_bufs, g->ncall_hdr_bufs);
	free(g->call_hdr_bufs);
	free(g->calls);

	for (i = 0; g->svcs != NULL && i < g->nsvcs; i++)
		if (g->svcs[i].reply_buf != NULL)
			rpcrdma_mempool_put(g->ipool, g->svcs[i].reply_buf);
	while ((b = xprt_buf_pop(&g->buf_free)) != NULL)
		rpcrdma_mempool_put(g->ipool, b);
	if (g->nhdr_bufs)
		rpcrdma_mempool_put_bulk(g->ipool, g->hdr_bufs, g->nhdr_bufs);
	if (g->npad_bufs)
		rpcrdma_mempool_put_bulk(g->ipool, g->pad_bufs, g->npad_bufs);
	if (g->nctrl_bufs)
		rpcrdma_mempool_put_bulk(g->ipool, g->ctrl_bufs, g->nctrl_bufs);
	free(g->ctrl_bufs);
	free(g->ctrls);
	free(g->hdr_bufs);
	free(g->pad_bufs);
	free(g->svcs);
	free(g->svc_upper);
	if (g->srq != NULL)
		rpcrdma_pmd_srq_destroy(g->srq);
	for (i = 0; g->rxs != NULL && i < g->nrx; i++)
		if (g->rxs[i].buf != NULL)
			rpcrdma_mempool_put(g->ipool, g->rxs[i].buf);
	if (g->cq != NULL)
		rpcrdma_pmd_cq_destroy(g->cq);
	free(g->rxs);
	free(g->pend);
	free(g->todo);
	g->magic = 0;
	free(g);
}

int rpcrdma_xprt_group_create(const struct rpcrdma_xprt_group_params *p,
			      struct rpcrdma_xprt_group **gp)
{
	struct rpcrdma_pmd_srq_attr sa;
	struct rpcrdma_pmd_dev_info di;
	struct rpcrdma_xprt_group *g;
	uint64_t cqe, depth;
	uint32_t i;
	int ret;

	if (p == NULL || gp == NULL || p->dev == NULL || p->pd == NULL || p->pools == NULL ||
	    p->pools->inline_pool == NULL || p->max_conns == 0 || p->max_conns > (1u << 20) ||
	    p->recvs > (1u << 20) || p->sq_depth < XPRT_REPLY_WRS + 1 || p->sq_depth > 4096 ||
	    p->calls > GROUP_MAX_CALLS)
		return -EINVAL;
	ret = rpcrdma_pmd_dev_info_get(p->dev, &di);
	if (ret)
		return ret;
	if (di.max_srq == 0)
		return -ENOTSUP;
	/* a floor for each connection, the receives they share, and the spare */
	depth = (uint64_t)p->max_conns + p->recvs + GROUP_SRQ_SPARE;
	/* every connection's send queue (its drain marker included), and the SRQ's receives */
	cqe = (uint64_t)p->max_conns * p->sq_depth + depth + XPRT_BURST;
	if (cqe > di.max_cqe || depth > di.max_srq_wr)
		return -E2BIG;
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return -ENOMEM;
	g->magic = GROUP_MAGIC;
	g->p = *p;
	g->ipool = p->pools->inline_pool;
	g->recv_len = g->ipool->buf_size;
	g->srq_depth = (uint32_t)depth;
	TAILQ_INIT(&g->conns);
	g->pend = calloc(p->max_conns, sizeof(*g->pend));
	g->todo = calloc(p->max_conns, sizeof(*g->todo));
	if (g->pend == NULL || g->todo == NULL) {
		ret = -ENOMEM;
		goto err;
	}
	/* the SRQ's receives, and as many again held by calls in progress */
	g->nrx = 2 * g->srq_depth;
	g->rxs = calloc(g->nrx, sizeof(*g->rxs));
	if (g->rxs == NULL) {
		ret = -ENOMEM;
		goto err;
	}
	for (i = g->nrx; i-- > 0;) {
		g->rxs[i].tag.type = WR_RECV;
		g->rxs[i].tag.owner = &g->rxs[i];
		g->rxs[i].next = g->rx_free;
		g->rx_free = &g->rxs[i];
	}
	ret = xprt_hdr_areas(g->ipool, 0, NULL, &g->pad_bufs, &g->npad_bufs, &g->pad);
	if (ret == 0 && p->calls != 0)
		ret = calls_init(g);
	if (ret)
		goto err;
	ret = rpcrdma_pmd_cq_create(p->dev, (uint32_t)cqe, &g->cq);
	if (ret) {
		g->cq = NULL;
		goto err;
	}
	rpcrdma_pmd_srq_attr_init(&sa);
	sa.max_wr = g->srq_depth;
	sa.max_sge = 1;
	sa.context = g;
	ret = rpcrdma_pmd_srq_create(p->pd, &sa, &g->srq);
	if (ret) {
		g->srq = NULL;
		goto err;
	}
	*gp = g;
	return 0;

err:
	group_free(g);
	return ret;
}

int rpcrdma_xprt_group_destroy(struct rpcrdma_xprt_group *g)
{
	if (g == NULL)
		return 0;
	if (!TAILQ_EMPTY(&g->conns))
		return -EBUSY;
	group_free(g);
	return 0;
}

struct rpcrdma_xprt_group *rpcrdma_xprt_group_of(const struct rpcrdma_xprt *x)
{
	return x->grp;
}

/* ------------------------------------------------------------ credits */

/*
 * Every server connection's grant: an equal share of the reservable
 * receives, at least 1, at most its own max_credits. A grant that shrinks
 * takes effect with the connection's next reply (rpcrdma_credit.h); its
 * reservations beyond the new share go back as its calls consume them.
 */
static void share_update(struct rpcrdma_xprt_group *g)
{
	struct rpcrdma_xprt *x;
	/* the receives backward calls and replies may need are not granted */
	uint32_t avail = g->p.recvs > g->bk_total ? g->p.recvs - g->bk_total : 0;
	uint32_t share = g->nservers ? avail / g->nservers : avail;

	if (share == 0)
		share = 1;
	if (share == g->share)
		return;
	g->share = share;
	g->st.share_changes++;
	TAILQ_FOREACH(x, &g->conns, grp_link)
	{
		if (x->client)
			continue;
		rpcrdma_credit_resp_set_target(&x->cresp, RTE_MIN(share, x->cresp.max));
		xprt_group_trim(x);
		x->recv_short = true; /* a grown grant reserves at the next poll */
		xprt_kick(x);
	}
}

/*
 * A connection's reservations are its floor, the first one, which it can
 * always have (the SRQ holds one per connection it may take), and the
 * ones beyond, which come from the p.recvs shared by the group.
 */
static uint32_t beyond_floor(uint32_t r)
{
	return r ? r - 1 : 0;
}

static void set_reserved(struct rpcrdma_xprt *x, uint32_t r)
{
	struct rpcrdma_xprt_group *g = x->grp;

	g->shared -= beyond_floor(x->rx_posted);
	g->shared += beyond_floor(r);
	g->reserved -= x->rx_posted;
	g->reserved += r;
	x->rx_posted = r;
}

/* Reserve up to @want receives of the SRQ for @x: its floor, then what the group can share. */
uint32_t xprt_group_reserve(struct rpcrdma_xprt *x, uint32_t want)
{
	struct rpcrdma_xprt_group *g = x->grp;
	uint32_t n = 0, room;

	if (x->rx_posted == 0 && want > 0)
		n = 1;
	room = g->p.recvs > g->shared ? g->p.recvs - g->shared : 0;
	if (want - n > room) {
		g->st.reserve_short++;
		want = n + room;
	}
	set_reserved(x, x->rx_posted + want);
	return want;
}

/*
 * A server connection's reservations beyond what its requester may still
 * send (the calls earlier grants allow, or the grant now if more: the
 * receives rpcrdma_credit_resp_to_post() keeps) go back to the group: a
 * share that shrank, or a connection that reserved before the requester
 * had its first reply (one call allowed).
 */
void xprt_group_trim(struct rpcrdma_xprt *x)
{
	const struct rpcrdma_credit_resp *c = &x->cresp;
	uint64_t need = c->limit > c->received ? c->limit - c->received : 0;
	uint32_t extra;

	if (need < c->target)
		need = c->target;
	need += xprt_group_bk_need(x);
	if (c->posted <= need || x->rx_posted == 0)
		return;
	extra = (uint32_t)RTE_MIN((uint64_t)c->posted - need, (uint64_t)x->rx_posted);
	x->cresp.posted -= extra;
	set_reserved(x, x->rx_posted - extra);
}

/* The connection is lost: what it reserved is the group's again. */
void xprt_group_unreserve(struct rpcrdma_xprt *x)
{
	set_reserved(x, 0);
}

/*
 * A receive of the SRQ completed for @x: one of its reservations consumed.
 * @return false: @x had none (the message came over its grant).
 */
bool xprt_group_recv(struct rpcrdma_xprt *x)
{
	x->grp->srq_posted--;
	if (x->rx_posted == 0)
		return false;
	set_reserved(x, x->rx_posted - 1);
	return true;
}

/* ------------------------------------------------------------ members */

/*
 * The responder slots of the group's server connections, made when the
 * first one joins (its svc_upper_size sizes every slot's upper area): one
 * for each receive of the SRQ, and those whose replies' Sends have not
 * retired yet.
 */
static int svcs_init(struct rpcrdma_xprt_group *g, uint32_t upper)
{
	size_t usz = RTE_ALIGN_CEIL(upper, RTE_CACHE_LINE_SIZE);
	struct rpcrdma_xdr_region *areas, pad;
	uint32_t i;
	int ret;

	g->nsvcs = g->srq_depth + XPRT_SVC_EXTRA + XPRT_SIGNAL_EVERY;
	g->svcs = calloc(g->nsvcs, sizeof(*g->svcs));
	areas = calloc(g->nsvcs, sizeof(*areas));
	if (usz)
		g->svc_upper = aligned_alloc(RTE_CACHE_LINE_SIZE, usz * g->nsvcs);
	ret = -ENOMEM;
	if (g->svcs == NULL || areas == NULL || (usz && g->svc_upper == NULL))
		goto err;
	if (usz)
		memset(g->svc_upper, 0, usz * g->nsvcs);
	ret = xprt_hdr_areas(g->ipool, g->nsvcs, areas, &g->hdr_bufs, &g->nhdr_bufs, &pad);
	if (ret)
		goto err;
	for (i = g->nsvcs; i-- > 0;) {
		struct rpcrdma_xprt_svc_call *s = &g->svcs[i];

		s->hdr = areas[i];
		s->upper = usz ? (uint8_t *)g->svc_upper + usz * i : NULL;
		s->next_free = g->svc_free;
		g->svc_free = s;
	}
	g->upper_size = upper;
	free(areas);
	return 0;
err:
	free(areas);
	free(g->svcs);
	free(g->svc_upper);
	g->svcs = NULL;
	g->svc_upper = NULL;
	g->nsvcs = 0;
	return ret;
}

/* The version 2 control slots (struct xprt_group: ctrls), at the first join that needs them. */
static int ctrls_init(struct rpcrdma_xprt_group *g)
{
	struct rpcrdma_xdr_region *areas, pad;
	uint32_t i, n = g->p.max_conns + GROUP_CTRL_SPARE;
	int ret = -ENOMEM;

	g->ctrls = calloc(n, sizeof(*g->ctrls));
	areas = calloc(n, sizeof(*areas));
	if (g->ctrls != NULL && areas != NULL)
		ret = xprt_hdr_areas(g->ipool, n, areas, &g->ctrl_bufs, &g->nctrl_bufs, &pad);
	if (ret) {
		free(areas);
		free(g->ctrls);
		g->ctrls = NULL;
		return ret;
	}
	for (i = n; i-- > 0;) {
		g->ctrls[i].area = areas[i];
		g->ctrls[i].next = g->ctrl_free;
		g->ctrl_free = &g->ctrls[i];
	}
	g->ctrl_nfree = n;
	free(areas);
	return 0;
}

/*
 * The control slot a control message of @x would take now, or NULL: its
 * own (a connection alone), or the group's: its first always, another
 * only while every other connection the group may have (max_conns, those
 * that join later included) could still take its first.
 */
struct xprt_ctrl *xprt_ctrl_peek(const struct rpcrdma_xprt *x)
{
	const struct rpcrdma_xprt_group *g = x->grp;

	if (g == NULL)
		return x->ctrl_free;
	if (g->ctrl_nfree == 0)
		return NULL;
	if (x->ctrl_out != 0 && g->ctrl_nfree - 1 < g->p.max_conns - g->ctrl_users)
		return NULL;
	return g->ctrl_free;
}

/* Take @k, what xprt_ctrl_peek() gave. */
void xprt_ctrl_take(struct rpcrdma_xprt *x, struct xprt_ctrl *k)
{
	struct rpcrdma_xprt_group *g = x->grp;

	if (g == NULL) {
		x->ctrl_free = k->next;
		return;
	}
	g->ctrl_free = k->next;
	g->ctrl_nfree--;
	if (x->ctrl_out++ == 0)
		g->ctrl_users++;
}

/* A control message's Send retired: its slot is free again. */
void xprt_ctrl_put(struct rpcrdma_xprt *x, struct xprt_ctrl *k)
{
	struct rpcrdma_xprt_group *g = x->grp;

	if (g == NULL) {
		k->next = x->ctrl_free;
		x->ctrl_free = k;
		return;
	}
	k->next = g->ctrl_free;
	g->ctrl_free = k;
	g->ctrl_nfree++;
	if (--x->ctrl_out == 0)
		g->ctrl_users--;
}

/* The call slots the group's clients share (params calls), with their header areas. */
static int calls_init(struct rpcrdma_xprt_group *g)
{
	struct rpcrdma_xdr_region *areas, pad;
	uint32_t i;
	int ret;

	/* p.calls is 1 to GROUP_MAX_CALLS here: a call's XID ends in its slot's index */
	g->ncalls = rte_align32pow2(g->p.calls);
	g->call_shift = rte_log2_u32(g->ncalls);
	g->calls = calloc(g->ncalls, sizeof(*g->calls));
	areas = calloc(g->ncalls, sizeof(*areas));
	ret = -ENOMEM;
	if (g->calls != NULL && areas != NULL)
		ret = xprt_hdr_areas(g->ipool, g->ncalls, areas, &g->call_hdr_bufs,
				     &g->ncall_hdr_bufs, &pad);
	for (i = g->ncalls; ret == 0 && i-- > 0;) {
		struct rpcrdma_xprt_call *c = &g->calls[i];

		c->hdr = areas[i];
		c->next_free = g->call_free;
		g->call_free = c;
	}
	free(areas);
	return ret; /* on error, group_free() takes what was made */
}

static uint32_t srq_refill(struct rpcrdma_xprt_group *g);

int xprt_group_join(struct rpcrdma_xprt *x)
{
	struct rpcrdma_xprt_group *g = x->p.group;

	if (g->magic != GROUP_MAGIC || x->p.pd != g->p.pd || x->p.dev != g->p.dev ||
	    x->p.pools->inline_pool != g->ipool)
		return -EINVAL;
	if (g->st.conns >= g->p.max_conns)
		return -ENOSPC;
	if (!x->client) {
		int ret = g->svcs == NULL ? svcs_init(g, x->p.svc_upper_size) : 0;

		if (ret)
			return ret;
		if (x->p.svc_upper_size > g->upper_size)
			return -EINVAL; /* the slots' upper areas are the first server's size */
	}
	if (x->p.vers == RPCRDMA_VERS_2 && g->ctrls == NULL) {
		int ret = ctrls_init(g);

		if (ret)
			return ret;
	}
	x->grp = g;
	TAILQ_INSERT_TAIL(&g->conns, x, grp_link);
	g->st.conns++;
	/* every connection's backward credits are kept out of the grants */
	g->bk_total += x->p.bk_credits;
	if (!x->client) {
		g->nservers++;
		share_update(g);
		rpcrdma_credit_resp_set_target(&x->cresp, RTE_MIN(g->share, x->cresp.max));
	} else if (x->p.bk_credits != 0) {
		share_update(g);
	}
	/*
	 * Receives before the connection is made, not at the group's next
	 * poll: a server's first connection is accepted (and a client's first
	 * call answered) before that poll, and a Send that finds no receive
	 * ends the connection where there is no RNR retry (iWARP).
	 */
	srq_refill(g);
	return 0;
}

void xprt_group_leave(struct rpcrdma_xprt *x)
{
	struct rpcrdma_xprt_group *g = x->grp;

	if (g == NULL)
		return;
	xprt_group_unreserve(x);
	if (x->calls_shared) {
		/*
		 * Its slots are all free (rpcrdma_xprt_destroy() waits for
		 * that); what they remember of it goes: a late reply's XID and
		 * credit are the owner's, and another connection may come to
		 * have its address.
		 */
		for (uint32_t i = 0; i < g->ncalls; i++)
			if (g->calls[i].xprt == x) {
				g->calls[i].xprt = NULL;
				g->calls[i].tmo_late = g->calls[i].tmo_credit = false;
			}
	}
	if (x->pend_listed) {
		uint32_t i;

		/*
		 * In pend (its place goes to the last: pend stays dense, so
		 * never more than the group's connections), or in todo if it
		 * leaves in a callback of the drain (wiped: the drain walks it).
		 */
		for (i = 0; i < g->npend; i++)
			if (g->pend[i] == x) {
				g->pend[i] = g->pend[--g->npend];
				break;
			}
		for (i = 0; i < g->ntodo; i++)
			if (g->todo[i] == x)
				g->todo[i] = NULL;
		x->pend_listed = false;
	}
	x->pending = false;
	TAILQ_REMOVE(&g->conns, x, grp_link);
	g->st.conn_bytes -= x->mem_bytes;
	g->st.conns--;
	x->grp = NULL;
	g->bk_total -= x->p.bk_credits;
	if (!x->client)
		g->nservers--;
	if (!x->client || x->p.bk_credits != 0)
		share_update(g);
}

void xprt_group_pend(struct rpcrdma_xprt *x)
{
	struct rpcrdma_xprt_group *g = x->grp;

	x->pending = true;
	if (!x->pend_listed) {
		x->pend_listed = true;
		g->pend[g->npend++] = x;
	}
}

/* ------------------------------------------------------------ the poll */

/* Keep the SRQ at its depth, in bursts. */
static uint32_t srq_refill(struct rpcrdma_xprt_group *g)
{
	struct rx_burst b;
	uint32_t total = 0;

	while (g->srq_posted < g->srq_depth) {
		uint32_t want = RTE_MIN(g->srq_depth - g->srq_posted, (uint32_t)XPRT_BURST), n;
		uint16_t got;

		n = rx_burst_fill(&b, &g->rx_free, g->ipool, g->recv_len, want);
		got = n ? rpcrdma_pmd_srq_post_recv_burst(g->srq, b.wrs, (uint16_t)n) : 0;
		rx_burst_done(&b, got, &g->rx_free, g->recv_len);
		g->srq_posted += got;
		total += got;
		g->st.recvs_posted += got;
		if (got < want) {
			g->st.recv_short++;
			break;
		}
	}
	return total;
}

/*
 * The only work a pending connection has is its staged sends (calls
 * submitted, replies sent outside a poll): the poll rings its doorbell
 * without a whole turn.
 */
static bool sends_only(const struct rpcrdma_xprt *x)
{
	return x->state == RPCRDMA_XPRT_ESTABLISHED && x->nstage != 0 &&
	       !xprt_work_besides_sends(x);
}

/* End a connection's turn; it stays pending while it has work no completion brings. */
static void conn_end(struct rpcrdma_xprt_group *g, struct rpcrdma_xprt *x, int *work)
{
	xprt_poll_end(x, x->grp_wcs);
	x->grp_wcs = 0;
	*work += x->work;
	g->st.conn_visits++;
	if (x->grp == NULL)
		return; /* left the group in a callback */
	if (xprt_needs_poll(x)) {
		if (!x->pending)
			xprt_group_pend(x);
	} else {
		x->pending = false; /* if listed, the drain skips it */
	}
}

/*
 * How many completions ahead of the one handled its lines start loading:
 * its QP's, then its connection's (read from the QP's first line).
 */
#define GRP_AHEAD_QP   8
#define GRP_AHEAD_CONN 4

/*
 * The QP completion @i names: a server answers a call on it, so its send
 * lines too. Once for completions of one kind on one QP in a row.
 */
static inline void wc_prefetch_qp(const struct rpcrdma_xprt_group *g,
				  const struct rpcrdma_pmd_wc *wc, uint16_t i)
{
	if (i != 0 && wc[i - 1].qp == wc[i].qp && wc[i - 1].opcode == wc[i].opcode)
		return;
	if (g->nservers != 0 && wc[i].opcode == RPCRDMA_PMD_WC_RECV)
		rpcrdma_pmd_qp_prefetch(wc[i].qp);
	else
		rte_prefetch0(&wc[i].qp->context);
}

/*
 * The connection of completion @i, read from its QP's first line (asked
 * for GRP_AHEAD_QP - GRP_AHEAD_CONN completions ago). A connection's
 * completions mostly come together: its lines once.
 */
static inline void wc_prefetch_conn(const struct rpcrdma_xprt_group *g,
				    const struct rpcrdma_pmd_wc *wc, uint16_t i)
{
	const struct rpcrdma_xprt *x = wc[i].qp->context;

	if (i == 0 || wc[i - 1].qp->context != x)
		/* a server's lines, or a client's (its backward calls are few: a reply's) */
		xprt_prefetch(x, g->nservers != 0);
}

/* The message a receive completion brought. */
static inline void wc_prefetch_msg(const struct rpcrdma_pmd_wc *wc)
{
	const struct xprt_wr *t = (const struct xprt_wr *)(uintptr_t)wc->wr_id;

	if (t->type == WR_RECV) {
		const uint8_t *buf = ((const struct xprt_rx *)t->owner)->buf;

		/* a call's RPC header ends past the first line (28 + 40 bytes) */
		rte_prefetch0(buf);
		if (wc->byte_len > RTE_CACHE_LINE_SIZE)
			rte_prefetch0(buf + RTE_CACHE_LINE_SIZE);
	}
}

int rpcrdma_xprt_group_poll(struct rpcrdma_xprt_group *g)
{
	struct rpcrdma_pmd_wc wc[XPRT_BURST];
	struct rpcrdma_xprt *touched[XPRT_BURST];
	struct rpcrdma_xprt *x, **todo;
	uint16_t n, i, nt = 0;
	uint32_t k;
	int work = 0;

	g->st.polls++;
	n = rpcrdma_pmd_poll_cq_burst(g->cq, wc, XPRT_BURST);
	/*
	 * With many connections, each completion likely names one whose
	 * state is out of the cache. Its loads start a few completions ahead
	 * of the one handled, in two steps (the QP, then from it the
	 * connection): the whole burst's at once would ask for more lines
	 * than the core has misses in flight, and the first completion would
	 * wait behind the last one's. The messages received, a line or two
	 * each that the peer wrote, all start first: they are few, and come
	 * from the other end's cache, so they overlap best.
	 */
	for (i = 0; i < n; i++)
		wc_prefetch_msg(&wc[i]);
	for (i = 0; i < n && i < GRP_AHEAD_QP; i++)
		wc_prefetch_qp(g, wc, i);
	for (i = 0; i < n && i < GRP_AHEAD_CONN; i++)
		wc_prefetch_conn(g, wc, i);
	for (i = 0; i < n; i++) {
		if (i + GRP_AHEAD_QP < n)
			wc_prefetch_qp(g, wc, i + GRP_AHEAD_QP);
		if (i + GRP_AHEAD_CONN < n)
			wc_prefetch_conn(g, wc, i + GRP_AHEAD_CONN);
		x = wc[i].qp->context;
		if (x->grp_wcs == 0 && xprt_retire_fast_reply(x, &wc[i])) {
			g->st.quick_retires++;
			continue;
		}
		if (x->grp_wcs == 0) {
			touched[nt++] = x;
			xprt_poll_begin(x);
		}
		/*
		 * A server's call: its reply's doorbell comes after the upcall;
		 * what that touches beyond the QP's lines (asked for
		 * GRP_AHEAD_QP completions ago) starts now.
		 */
		if (g->nservers != 0 && wc[i].opcode == RPCRDMA_PMD_WC_RECV)
			rpcrdma_pmd_qp_prefetch_doorbell(wc[i].qp);
		x->grp_wcs++;
		xprt_handle_wc(x, &wc[i]);
	}
	g->st.wcs += n;
	for (i = 0; i < nt; i++)
		conn_end(g, touched[i], &work);
	/* the connections pending before this turn; those that still need it go again */
	if (g->npend != 0) {
		todo = g->pend;
		g->pend = g->todo;
		g->todo = todo;
		g->ntodo = g->npend;
		g->npend = 0;
		for (k = 0; k < g->ntodo; k++) {
			x = todo[k];
			if (x == NULL)
				continue; /* left the group */
			x->pend_listed = false;
			if (!x->pending)
				continue; /* its turn came with a completion since */
			x->pending = false;
			if (sends_only(x)) {
				/* a call submitted outside the poll: its doorbell, nothing else */
				xprt_flush_sends(x);
				work++;
				if (x->nstage != 0)
					xprt_group_pend(x); /* the PMD took fewer: again */
				continue;
			}
			xprt_poll_begin(x);
			conn_end(g, x, &work);
		}
		g->ntodo = 0;
	}
	if (g->srq_posted < g->srq_depth)
		work += (int)srq_refill(g);
	if (work == 0)
		g->st.idle_polls++;
	return work;
}

void rpcrdma_xprt_group_stats(const struct rpcrdma_xprt_group *g,
			      struct rpcrdma_xprt_group_stats *st)
{
	*st = g->st;
	st->slots = g->ncalls;
	st->slots_busy = g->calls_busy;
	st->share = g->share;
	st->srq_posted = g->srq_posted;
	st->reserved = g->reserved;
}

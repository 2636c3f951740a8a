/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connection engine: one connection's life (rpcrdma_xprt.h).
 *
 * Parameters and their checks, creation (the requester and responder slots,
 * receives, header areas, the send ring), the client's connect and the
 * server's accept with RFC 8797 private data (sections 4, 4.1: inline
 * thresholds, Send With Invalidate), the version probe and its settling
 * (v2 draft 5, 5.1-5.3; a peer remembered as version 1 in vers_peers), the
 * inline thresholds of each direction (rfc5666bis 4.3.1, RFC 8167 2.5),
 * the automatic reconnect's backoff, disconnect and destroy, and what the
 * connection reports: info, stats, and the telemetry provider "xprt" that
 * lists every connection for /rpcrdma/conns.
 */
#include <rpcrdma/rpcrdma_telemetry.h>

#include "xprt_int.h"

static const char *const state_names[] = {
	[RPCRDMA_XPRT_IDLE] = "IDLE",
	[RPCRDMA_XPRT_CONNECTING] = "CONNECTING",
	[RPCRDMA_XPRT_NEGOTIATING] = "NEGOTIATING",
	[RPCRDMA_XPRT_ESTABLISHED] = "ESTABLISHED",
	[RPCRDMA_XPRT_DRAINING] = "DRAINING",
	[RPCRDMA_XPRT_CLOSED] = "CLOSED",
	[RPCRDMA_XPRT_ERROR] = "ERROR",
};

const char *rpcrdma_xprt_state_name(enum rpcrdma_xprt_state st)
{
	if ((unsigned int)st >= sizeof(state_names) / sizeof(state_names[0]))
		return "UNKNOWN";
	return state_names[st];
}

/* Microseconds in TSC cycles, without overflow. */

/* ------------------------------------------------------------ telemetry */

/*
 * Every connection is listed for the telemetry provider ("xprt"), whose
 * callbacks run on EAL's telemetry thread under the telemetry module's lock
 * and then take xprt_list_lock: a connection is unlisted (under that lock)
 * before it is freed. The counters are read while the owning lcore writes
 * them: relaxed, possibly a poll behind, never torn on 64-bit targets.
 */
static pthread_mutex_t xprt_list_lock = PTHREAD_MUTEX_INITIALIZER;
static LIST_HEAD(, rpcrdma_xprt) xprt_list = LIST_HEAD_INITIALIZER(xprt_list);
static uint64_t xprt_next_id = 1;
static pthread_once_t xprt_tel_once = PTHREAD_ONCE_INIT;

static unsigned int tel_list(void *arg, uint64_t *ids, unsigned int max)
{
	struct rpcrdma_xprt *x;
	unsigned int n = 0;

	pthread_mutex_lock(&xprt_list_lock);
	LIST_FOREACH(x, &xprt_list, listed)
	{
		if (n == max)
			break;
		ids[n++] = x->id;
	}
	pthread_mutex_unlock(&xprt_list_lock);
	return n;
}

static void tel_fill(const struct rpcrdma_xprt *x, struct rpcrdma_telemetry_kv *kv)
{
	const struct rpcrdma_xprt_stats *st = &x->st;
	bool cli = x->p.role == RPCRDMA_XPRT_CLIENT;

	rpcrdma_telemetry_kv_u64(kv, "id", x->id);
	rpcrdma_telemetry_kv_str(kv, "role", cli ? "client" : "server");
	rpcrdma_telemetry_kv_str(kv, "state", rpcrdma_xprt_state_name(RD(x->state)));
	rpcrdma_telemetry_kv_u64(kv, "vers", RD(x->vers));
	rpcrdma_telemetry_kv_u64(kv, "vers_settled", RD(x->vers_settled));
	rpcrdma_telemetry_kv_str(kv, "vers_state",
				 cli ? rpcrdma_vers_req_state_name(RD(x->vreq.state))
				     : rpcrdma_vers_resp_state_name(RD(x->vresp.state)));
	/* version 2 transport characteristics: ours and the peer's */
	rpcrdma_telemetry_kv_str(kv, "xchar_state", rpcrdma_xchar_st_name(RD(x->xs.st)));
	rpcrdma_telemetry_kv_u64(kv, "xchar_local_rbsiz", RD(x->xs.local.rbsiz));
	rpcrdma_telemetry_kv_u64(kv, "xchar_peer_rbsiz", RD(x->xs.peer.rbsiz));
	rpcrdma_telemetry_kv_u64(kv, "xchar_peer_reqreminv", RD(x->xs.peer.reqreminv));
	rpcrdma_telemetry_kv_u64(kv, "xchar_peer_brs", RD(x->xs.peer.brs));
	rpcrdma_telemetry_kv_u64(kv, "send_inline", RD(x->mconn.send_inline));
	rpcrdma_telemetry_kv_u64(kv, "recv_inline", RD(x->mconn.recv_inline));
	rpcrdma_telemetry_kv_u64(kv, "peer_remote_inv", RD(x->peer.remote_inv));
	rpcrdma_telemetry_kv_u64(kv, "recvs_posted", RD(x->rx_posted));
	rpcrdma_telemetry_kv_u64(kv, "sq_outstanding", RD(x->sq_out));
	rpcrdma_telemetry_kv_u64(kv, "mem_bytes", x->mem_bytes);
	if (x->grp != NULL) {
		/*
		 * Its poll group's state (rpcrdma_xprt_group_stats()). The group
		 * lasts while the connection is listed: xprt_free() takes it off
		 * the list before it leaves the group.
		 */
		const struct rpcrdma_xprt_group *g = x->grp;

		rpcrdma_telemetry_kv_u64(kv, "group_conns", RD(g->st.conns));
		rpcrdma_telemetry_kv_u64(kv, "group_share", RD(g->share));
		rpcrdma_telemetry_kv_u64(kv, "group_srq_posted", RD(g->srq_posted));
		rpcrdma_telemetry_kv_u64(kv, "group_reserved", RD(g->reserved));
		rpcrdma_telemetry_kv_u64(kv, "group_unreserved", RD(g->st.unreserved));
		rpcrdma_telemetry_kv_u64(kv, "group_reserve_short", RD(g->st.reserve_short));
		rpcrdma_telemetry_kv_u64(kv, "group_slots", g->ncalls);
		rpcrdma_telemetry_kv_u64(kv, "group_slots_busy", RD(g->calls_busy));
		rpcrdma_telemetry_kv_u64(kv, "group_slots_short", RD(g->st.slots_short));
		rpcrdma_telemetry_kv_u64(kv, "group_conn_visits", RD(g->st.conn_visits));
		rpcrdma_telemetry_kv_u64(kv, "group_quick_retires", RD(g->st.quick_retires));
	}
	if (cli) {
		/* the requester's credit state (rpcrdma_credit.h) */
		rpcrdma_telemetry_kv_u64(kv, "credit_max", x->creq.max);
		rpcrdma_telemetry_kv_u64(kv, "credit_grant", RD(x->creq.grant));
		rpcrdma_telemetry_kv_u64(kv, "credit_outstanding", RD(x->creq.outstanding));
		rpcrdma_telemetry_kv_u64(kv, "calls_busy", RD(x->calls_busy));
	} else {
		rpcrdma_telemetry_kv_u64(kv, "credit_max", RD(x->cresp.max));
		rpcrdma_telemetry_kv_u64(kv, "credit_target", RD(x->cresp.target));
		rpcrdma_telemetry_kv_u64(kv, "credit_last_grant", RD(x->cresp.last));
		rpcrdma_telemetry_kv_u64(kv, "credit_posted", RD(x->cresp.posted));
		rpcrdma_telemetry_kv_u64(kv, "credit_active", RD(x->cresp.active));
		rpcrdma_telemetry_kv_u64(kv, "excess_calls", RD(x->cresp.excess));
	}
#define ST(f) rpcrdma_telemetry_kv_u64(kv, #f, RD(st->f))
	ST(calls);
	ST(replies);
	ST(calls_recv);
	ST(short_msgs);
	ST(chunked_msgs);
	ST(long_msgs);
	ST(long_replies);
	ST(errors_sent);
	ST(errors_recv);
	ST(read_bytes);
	ST(write_bytes);
	ST(send_inv);
	ST(err_vers);
	ST(err_hdr);
	ST(err_chunk);
	ST(done_recv);
	ST(unmatched);
	ST(bad_replies);
	ST(dropped);
	ST(wc_errors);
	ST(flushed);
	ST(failed);
	ST(retransmits);
	ST(credit_stalls);
	ST(mr_regs);
	ST(mr_invalidates);
	ST(wrs);
	ST(recvs);
	ST(doorbells);
	ST(polls);
	ST(idle_polls);
	ST(max_outstanding);
	ST(reconnects);
	ST(timeouts);
	ST(late_replies);
	ST(vers_probes);
	ST(vers_fallbacks);
	ST(bad_direction);
	ST(options_recv);
	ST(err_option);
	ST(xchar_sent);
	ST(xchar_recv);
	ST(xchar_errors);
	ST(ctrl_drops);
	ST(bc_refused);
	ST(inline_pullups);
	ST(err_xid);
	ST(reply_buf_short);
	ST(reserve_stalls);
	ST(reconnect_attempts);
	ST(reconnect_give_ups);
	ST(tmo_disconnects);
#undef ST
}

static int tel_info(void *arg, uint64_t id, struct rpcrdma_telemetry_kv *kv)
{
	struct rpcrdma_xprt *x;
	int ret = -ENOENT;

	pthread_mutex_lock(&xprt_list_lock);
	LIST_FOREACH(x, &xprt_list, listed)
	{
		if (x->id == id) {
			tel_fill(x, kv);
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&xprt_list_lock);
	return ret;
}

static const struct rpcrdma_telemetry_conn_provider xprt_provider = {
	.name = "xprt",
	.list = tel_list,
	.info = tel_info,
};

static void tel_register(void)
{
	/* at most -ENOSPC (other providers): the engine works without telemetry */
	rpcrdma_telemetry_conn_provider_add(&xprt_provider);
}

static void xprt_list_add(struct rpcrdma_xprt *x)
{
	pthread_once(&xprt_tel_once, tel_register);
	pthread_mutex_lock(&xprt_list_lock);
	x->id = xprt_next_id++;
	LIST_INSERT_HEAD(&xprt_list, x, listed);
	pthread_mutex_unlock(&xprt_list_lock);
}

static void xprt_list_del(struct rpcrdma_xprt *x)
{
	if (x->id == 0)
		return;
	pthread_mutex_lock(&xprt_list_lock);
	LIST_REMOVE(x, listed);
	pthread_mutex_unlock(&xprt_list_lock);
	x->id = 0;
}

/* ------------------------------------------------------------ setup */

void rpcrdma_xprt_params_init(struct rpcrdma_xprt_params *p, enum rpcrdma_xprt_role role)
{
	memset(p, 0, sizeof(*p));
	p->role = role;
	p->vers = RPCRDMA_VERS_1;
	p->vers_min = RPCRDMA_VERS_1;
	p->max_credits = 32;
	p->credits = 0;
	p->max_calls = 64;
	p->max_call = (1u << 20) + (64u << 10);
	p->max_seg_len = 1u << 20;
	p->read_depth = 16;
	p->flags = RPCRDMA_XPRT_F_PER_CALL_MR | RPCRDMA_XPRT_F_REMOTE_INV |
		   RPCRDMA_XPRT_F_REPLY_CHUNK_ALWAYS;
	p->reconnect_delay_us = 1000;
	p->reconnect_delay_max_us = 1000000;
}

static bool is_pow2(uint32_t v)
{
	return v && (v & (v - 1)) == 0;
}

static int check_params(const struct rpcrdma_xprt_params *p)
{
	uint32_t bsz;

	if (p->dev == NULL || p->pd == NULL || p->pools == NULL || p->pools->inline_pool == NULL)
		return -EINVAL;
	if (p->bk_credits > 1024)
		return -EINVAL;
	if (p->vers != RPCRDMA_VERS_1 && p->vers != RPCRDMA_VERS_2)
		return -EINVAL;
	if (p->role == RPCRDMA_XPRT_SERVER &&
	    (p->vers_min < RPCRDMA_VERS_1 || p->vers_min > p->vers))
		return -EINVAL;
	if (p->max_credits == 0 || p->max_credits > 4096 || p->credits > p->max_credits)
		return -EINVAL;
	bsz = p->pools->inline_pool->buf_size;
	if (p->send_inline > bsz || p->recv_inline > bsz || bsz < RPCRDMA_V1_INLINE_DEFAULT)
		return -EINVAL;
	if (p->max_seg_len == 0 || p->read_depth == 0)
		return -EINVAL;
	if (p->svc_upper_size > RPCRDMA_XPRT_UPPER_MAX)
		return -EINVAL;
	if (p->xchar_nochg & ~RPCRDMA_XCHAR_KNOWN)
		return -EINVAL;
	if (p->role == RPCRDMA_XPRT_CLIENT) {
		if (!is_pow2(p->max_calls) || p->max_calls > XPRT_CALLS_MAX)
			return -EINVAL;
		if (p->bk_credits != 0 && p->recv_call == NULL)
			return -EINVAL; /* backward calls need a handler */
	} else if (p->role == RPCRDMA_XPRT_SERVER) {
		if (p->recv_call == NULL)
			return -EINVAL;
	} else {
		return -EINVAL;
	}
	return 0;
}

struct rpcrdma_xdr_region xprt_pool_region(struct rpcrdma_mempool *pool, void *buf, uint32_t len)
{
	return rpcrdma_xdr_region_va(buf, len, pool->lkey, pool->rkey);
}

/*
 * Carve @n header areas and the pad from inline buffers of @pool, taken
 * into *@bufs (*@nbufs of them, to give back when done).
 */
int xprt_hdr_areas(struct rpcrdma_mempool *pool, uint32_t n, struct rpcrdma_xdr_region *out,
		   void ***bufs, uint32_t *nbufs, struct rpcrdma_xdr_region *pad)
{
	uint32_t bsz = pool->buf_size, per = bsz / XPRT_HDR_AREA, i;

	/* one more area for the pad */
	*nbufs = (n + 1 + per - 1) / per;
	*bufs = calloc(*nbufs, sizeof(void *));
	if (*bufs == NULL) {
		*nbufs = 0;
		return -ENOMEM;
	}
	if (rpcrdma_mempool_get_bulk(pool, *bufs, *nbufs) != 0) {
		free(*bufs);
		*bufs = NULL;
		*nbufs = 0;
		return -ENOBUFS;
	}
	for (i = 0; i <= n; i++) {
		uint8_t *b = (uint8_t *)(*bufs)[i / per] + (i % per) * XPRT_HDR_AREA;

		if (i == n) {
			memset(b, 0, 4);
			*pad = xprt_pool_region(pool, b, 4);
		} else {
			out[i] = xprt_pool_region(pool, b, XPRT_HDR_AREA);
		}
	}
	return 0;
}

void xprt_free(struct rpcrdma_xprt *x)
{
	uint32_t i;
	void *b;

	xprt_list_del(x);
	xprt_group_leave(x);
	/* receive, message and reply buffers stay with their slots for the connection's life */
	for (i = 0; x->rxs != NULL && i < x->nrx; i++)
		if (x->rxs[i].buf != NULL)
			rpcrdma_mempool_put(x->ipool, x->rxs[i].buf);
	for (i = 0; x->calls != NULL && !x->calls_shared && i < x->ncalls; i++)
		if (x->calls[i].msg_buf != NULL)
			rpcrdma_mempool_put(x->ipool, x->calls[i].msg_buf);
	for (i = 0; x->svcs != NULL && i < x->nsvcs; i++)
		if (x->svcs[i].reply_buf != NULL)
			rpcrdma_mempool_put(x->ipool, x->svcs[i].reply_buf);
	while ((b = xprt_buf_pop(&x->rbuf_free)) != NULL)
		rpcrdma_mempool_put(x->ipool, b);
	if (x->nhdr_bufs)
		rpcrdma_mempool_put_bulk(x->ipool, x->hdr_bufs, x->nhdr_bufs);
	free(x->hdr_bufs);
	if (x->cq != NULL && x->p.group == NULL)
		rpcrdma_pmd_cq_destroy(x->cq);
	free(x->rxs);
	free(x->stage);
	free(x->sq_ring);
	free(x->sq_sge);
	if (!x->calls_shared)
		free(x->calls);
	free(x->svcs);
	free(x->svc_upper);
	x->magic = 0;
	free(x);
}

/*
 * What the device can do decides, for every user of the library, whatever
 * the params ask:
 *   - per-call registrations only where a registration is cheap (elsewhere
 *     each is a system call that pins pages), remote invalidation only
 *     where a peer's Send With Invalidate can invalidate our MRs
 *     (elsewhere a whole-range registration would be invalidated under
 *     every other call using it);
 *   - the gather entries of a Send or Write: at most the device's
 *     max_send_sge (siw: 6), at least the 2 a message needs (its header
 *     and its XDR stream).
 * -EOPNOTSUPP: a device that cannot gather 2 entries.
 */
static int dev_caps(struct rpcrdma_xprt *x)
{
	struct rpcrdma_pmd_dev_info di;
	int ret;

	ret = rpcrdma_pmd_dev_info_get(x->p.dev, &di);
	if (ret)
		return ret;
	if (!(di.flags & RPCRDMA_PMD_DEV_CHEAP_MR_REG))
		x->p.flags &= ~RPCRDMA_XPRT_F_PER_CALL_MR;
	if (!(di.flags & RPCRDMA_PMD_DEV_REMOTE_INV))
		x->p.flags &= ~RPCRDMA_XPRT_F_REMOTE_INV;
	if (di.max_send_sge < 2)
		return -EOPNOTSUPP;
	x->max_send_sge = (uint16_t)RTE_MIN(di.max_send_sge, (uint32_t)RPCRDMA_MARSHAL_MAX_SGE);
	return 0;
}

static int xprt_alloc(const struct rpcrdma_xprt_params *p, struct rpcrdma_xprt **xp)
{
	struct rpcrdma_xdr_region *areas = NULL;
	struct rpcrdma_xprt *x;
	uint32_t i, nslots, nctrl;
	int ret;

	ret = check_params(p);
	if (ret)
		return ret;
	/* cache-line aligned: its fast-path lines are laid out as lines (xprt_int.h) */
	x = aligned_alloc(RTE_CACHE_LINE_SIZE, RTE_ALIGN_CEIL(sizeof(*x), RTE_CACHE_LINE_SIZE));
	if (x == NULL)
		return -ENOMEM;
	memset(x, 0, sizeof(*x));
	x->magic = XPRT_MAGIC;
	x->p = *p;
	x->state = RPCRDMA_XPRT_IDLE;
	x->vers = p->role == RPCRDMA_XPRT_CLIENT ? RPCRDMA_VERS_1 : p->vers_min;
	x->backward = p->bk_credits != 0;
	x->client = p->role == RPCRDMA_XPRT_CLIENT;
	x->max_call = p->max_call;
	/*
	 * A client that reconnects by itself sends every call again that had
	 * no reply, as Linux xprtrdma does; the responder's duplicate request
	 * cache answers the ones it already ran.
	 */
	if (p->reconnect_max != 0 && p->role == RPCRDMA_XPRT_CLIENT)
		x->call_flags = RPCRDMA_XPRT_CALL_F_RETRANSMIT;
	x->ipool = p->pools->inline_pool;
	if (x->p.send_inline == 0)
		x->p.send_inline = x->ipool->buf_size;
	if (x->p.recv_inline == 0)
		x->p.recv_inline = x->ipool->buf_size;
	if (x->p.credits == 0)
		x->p.credits = p->max_credits;
	ret = dev_caps(x);
	if (ret)
		goto err_free;
	if (!(x->p.flags & RPCRDMA_XPRT_F_PER_CALL_MR))
		x->p.flags &= ~RPCRDMA_XPRT_F_REMOTE_INV;
	TAILQ_INIT(&x->call_wait);
	TAILQ_INIT(&x->tmo_list);
	x->tmo_next = UINT64_MAX;
	x->call_timeout = us_to_tsc(p->call_timeout_us);
	TAILQ_INIT(&x->svc_wait);
	x->recv_len = x->p.recv_inline;

	/*
	 * Requester slots (calls): a client's forward calls, a server's
	 * backward calls. Responder slots (svcs): a server's forward calls, a
	 * client's backward calls. Both use the same code; the credits of a
	 * direction are creq on its requester side and cresp on its responder
	 * side (a client's backward grant is fixed: bk_credits).
	 */
	if (p->role == RPCRDMA_XPRT_CLIENT) {
		x->ncalls = p->max_calls;
		x->sq_depth = x->ncalls;
		x->rq_depth = p->max_credits + XPRT_CLI_UNSOL;
		x->nrx = p->max_credits + x->ncalls + 4;
		if (p->bk_credits) {
			/* backward calls: receives posted for them, and their replies' WRs */
			x->nsvcs = p->bk_credits + XPRT_SVC_EXTRA + XPRT_SIGNAL_EVERY;
			x->rq_depth += p->bk_credits;
			x->nrx += p->bk_credits + x->nsvcs;
			x->sq_depth += x->nsvcs + XPRT_REPLY_WRS;
			ret = rpcrdma_credit_resp_init(&x->cresp, p->bk_credits, p->bk_credits);
			if (ret)
				goto err_free;
		}
		nslots = x->ncalls + x->nsvcs;
		rpcrdma_vers_peers_init(&x->peers);
		ret = rpcrdma_vers_req_init(&x->vreq,
					    p->vers == RPCRDMA_VERS_2
						    ? RPCRDMA_VERS_REQ_V2_PREFERRED
						    : RPCRDMA_VERS_REQ_V1_ONLY,
					    p->vers_peers != NULL ? p->vers_peers : &x->peers);
		if (ret == 0)
			ret = rpcrdma_credit_req_init(&x->creq, p->max_credits);
	} else {
		/* slots also wait for their reply's Send to retire (unsignaled) */
		x->nsvcs = p->max_credits + XPRT_SVC_EXTRA + XPRT_SIGNAL_EVERY;
		x->sq_depth = XPRT_SVC_SQ;
		x->rq_depth = p->max_credits + XPRT_RECV_SPARE;
		x->nrx = x->rq_depth + x->nsvcs;
		if (p->bk_credits) {
			/* backward calls: a receive for each one's reply */
			x->ncalls = RTE_MAX(rte_align32pow2(p->bk_credits), 2u);
			x->rq_depth += p->bk_credits;
			x->nrx += p->bk_credits + x->ncalls;
			x->sq_depth += x->ncalls;
			ret = rpcrdma_credit_req_init(&x->creq, p->bk_credits);
			if (ret)
				goto err_free;
		}
		nslots = x->ncalls + x->nsvcs;
		ret = rpcrdma_vers_resp_init(
			&x->vresp, p->vers == RPCRDMA_VERS_1	   ? RPCRDMA_VERS_RESP_V1_ONLY
				   : p->vers_min == RPCRDMA_VERS_2 ? RPCRDMA_VERS_RESP_V2_ONLY
								   : RPCRDMA_VERS_RESP_BOTH);
		if (ret == 0)
			ret = rpcrdma_credit_resp_init(&x->cresp, x->p.credits, p->max_credits);
	}
	if (ret)
		goto err_free;
	x->responder = x->nsvcs != 0;
	x->svc_freep = &x->svc_free;
	x->rbuf_freep = &x->rbuf_free;
	nctrl = XPRT_CTRL_SLOTS;
	if (p->group != NULL) {
		/*
		 * The group's SRQ holds the receives, its CQ the completions; a
		 * server takes the group's responder slots (xprt_group_join())
		 * and signals every Send (below), as Linux svcrdma does: an
		 * unsignaled reply keeps its buffer until a later signaled WR of
		 * its connection retires it, and across many mostly idle
		 * connections those buffers would drain the pool. Control
		 * messages are version 2's only.
		 */
		x->sq_depth = p->group->p.sq_depth - 1;
		x->nrx = 0;
		x->recv_len = p->group->recv_len;
		if (p->role == RPCRDMA_XPRT_SERVER) {
			/* the group's responder slots; requester slots (backward calls) its own */
			x->nsvcs = 0;
			nslots = x->ncalls;
			x->responder = true;
		} else if (p->group->magic == GROUP_MAGIC && p->group->ncalls != 0) {
			/* a client: the group's call slots (group params calls) */
			x->calls_shared = true;
			nslots = x->nsvcs;
		}
		nctrl = 0; /* version 2's control slots are the group's */
	}
	x->calls_max = x->ncalls;
	if (x->calls_shared) {
		x->calls = p->group->calls;
		x->ncalls = p->group->ncalls;
	}
	/* a call's XID is its slot index below call_shift bits */
	x->call_shift = rte_log2_u32(x->ncalls);
	ret = -ENOMEM;
	/* the ring holds sq_depth WRs and the drain marker */
	x->sq_mask = rte_align32pow2(x->sq_depth + 1);
	x->sq_ring = calloc(x->sq_mask, sizeof(*x->sq_ring));
	x->sq_sge = calloc(x->sq_mask, sizeof(*x->sq_sge));
	x->sq_mask--;
	/* with at most half the queue unsignaled, a full queue always has a signaled WR */
	x->sig_every = RTE_MIN((uint32_t)XPRT_SIGNAL_EVERY, x->sq_depth / 2);
	if (x->sig_every == 0 || (p->group != NULL && p->role == RPCRDMA_XPRT_SERVER))
		x->sig_every = 1;
	x->stage_max = RTE_MIN((uint32_t)XPRT_STAGE_MAX, x->sq_depth);
	/* a lone WR (one call or reply of a connection among many) on one line */
	x->stage = aligned_alloc(
		RTE_CACHE_LINE_SIZE,
		RTE_ALIGN_CEIL((x->stage_max + 1) * sizeof(*x->stage), RTE_CACHE_LINE_SIZE));
	x->rxs = calloc(x->nrx, sizeof(*x->rxs));
	areas = calloc(nslots + nctrl + 1, sizeof(*areas));
	if ((x->nrx && x->rxs == NULL) || areas == NULL || x->sq_ring == NULL ||
	    x->sq_sge == NULL || x->stage == NULL)
		goto err_free;
	for (i = 0; i < x->nrx; i++) {
		x->rxs[i].tag.type = WR_RECV;
		x->rxs[i].tag.owner = &x->rxs[i];
		x->rxs[i].next = x->rx_free;
		x->rx_free = &x->rxs[i];
	}
	if (x->ncalls && !x->calls_shared) {
		x->calls = calloc(x->ncalls, sizeof(*x->calls));
		if (x->calls == NULL)
			goto err_free;
	}
	if (x->nsvcs) {
		x->svcs = calloc(x->nsvcs, sizeof(*x->svcs));
		if (x->svcs == NULL)
			goto err_free;
	}
	if (x->nsvcs && p->svc_upper_size) {
		size_t sz = RTE_ALIGN_CEIL(p->svc_upper_size, RTE_CACHE_LINE_SIZE);

		x->svc_upper = aligned_alloc(RTE_CACHE_LINE_SIZE, sz * x->nsvcs);
		if (x->svc_upper == NULL)
			goto err_free;
		memset(x->svc_upper, 0, sz * x->nsvcs);
		for (i = 0; i < x->nsvcs; i++)
			x->svcs[i].upper = (uint8_t *)x->svc_upper + sz * i;
	}
	if (nslots + nctrl != 0 || p->group == NULL) {
		ret = xprt_hdr_areas(x->ipool, nslots + nctrl, areas, &x->hdr_bufs, &x->nhdr_bufs,
				     &x->pad);
		if (ret)
			goto err_free;
	}
	for (i = nctrl; i-- > 0;) {
		x->ctrl[i].area = areas[nslots + i];
		x->ctrl[i].next = x->ctrl_free;
		x->ctrl_free = &x->ctrl[i];
	}
	ret = xprt_xchar_init(x);
	if (ret)
		goto err_free;
	x->xid_seq = (uint32_t)rte_rdtsc();
	for (i = x->calls_shared ? 0 : x->ncalls; i-- > 0;) {
		struct rpcrdma_xprt_call *c = &x->calls[i];

		c->xprt = x;
		c->hdr = areas[i];
		c->next_free = x->call_free;
		x->call_free = c;
	}
	for (i = x->nsvcs; i-- > 0;) {
		struct rpcrdma_xprt_svc_call *s = &x->svcs[i];

		s->xprt = x;
		s->hdr = areas[x->ncalls + i];
		s->next_free = x->svc_free;
		x->svc_free = s;
	}
	free(areas);
	areas = NULL;
	if (p->group != NULL) {
		ret = xprt_group_join(x);
		if (ret)
			goto err_free;
		x->cq = x->grp->cq;
		if (x->nhdr_bufs == 0)
			x->pad = x->grp->pad;
		if (p->role == RPCRDMA_XPRT_SERVER) {
			x->svc_freep = &x->grp->svc_free;
			x->rbuf_freep = &x->grp->buf_free;
		}
	} else {
		ret = rpcrdma_pmd_cq_create(p->dev, x->sq_depth + 1 + x->rq_depth + XPRT_BURST,
					    &x->cq);
		if (ret) {
			x->cq = NULL;
			goto err_free;
		}
	}
	x->mem_bytes = sizeof(*x) + (x->stage_max + 1) * sizeof(*x->stage) +
		       (x->sq_mask + 1) * (sizeof(*x->sq_ring) + sizeof(*x->sq_sge)) +
		       x->nrx * (sizeof(*x->rxs) + x->ipool->buf_size) +
		       /* a group's calls take their buffers from the group's (buf_free) */
		       (x->calls_shared ? 0 : x->ncalls) *
			       (sizeof(*x->calls) + (x->grp != NULL ? 0 : x->ipool->buf_size)) +
		       x->nsvcs * (sizeof(*x->svcs) + x->ipool->buf_size +
				   RTE_ALIGN_CEIL(p->svc_upper_size, RTE_CACHE_LINE_SIZE)) +
		       x->nhdr_bufs * (sizeof(void *) + x->ipool->buf_size);
	if (x->grp != NULL)
		x->grp->st.conn_bytes += x->mem_bytes;
	xprt_list_add(x);
	*xp = x;
	return 0;

err_free:
	free(areas);
	xprt_free(x);
	return ret;
}

int rpcrdma_xprt_create(const struct rpcrdma_xprt_params *p, struct rpcrdma_xprt **xprt)
{
	if (p->role != RPCRDMA_XPRT_CLIENT)
		return -EINVAL;
	return xprt_alloc(p, xprt);
}

static int qp_create(struct rpcrdma_xprt *x)
{
	struct rpcrdma_pmd_qp_attr attr;
	int ret;

	rpcrdma_pmd_qp_attr_init(&attr);
	attr.send_cq = x->cq;
	attr.recv_cq = x->cq;
	attr.srq = x->grp != NULL ? x->grp->srq : NULL;
	attr.context = x;
	attr.max_send_wr = x->sq_depth + 1; /* + the drain marker */
	attr.max_recv_wr = x->rq_depth;
	attr.max_send_sge = x->max_send_sge;
	attr.max_recv_sge = 1;
	attr.rnr_retry = 7;
	attr.rnr_timer_us = 5;
	attr.flags = RPCRDMA_PMD_QP_F_RECV_PREFETCH; /* every message is decoded at once */
	ret = rpcrdma_pmd_qp_create(x->p.pd, &attr, &x->qp);
	if (ret == 0 && x->p.qp_created != NULL)
		x->p.qp_created(x->p.qp_ctx, x->qp); /* before any receive is posted */
	return ret;
}

static void our_pdata(const struct rpcrdma_xprt *x, uint8_t *buf)
{
	struct rpcrdma_xprt_pdata pd = {
		.version = RPCRDMA_XPRT_PDATA_VERSION,
		/* only a requester exposes memory a Send With Invalidate could name */
		.remote_inv = x->p.role == RPCRDMA_XPRT_CLIENT &&
			      (x->p.flags & RPCRDMA_XPRT_F_REMOTE_INV) != 0,
		.send_inline = x->p.send_inline,
		.recv_inline = x->p.recv_inline,
	};

	rpcrdma_xprt_pdata_encode(&pd, buf, RPCRDMA_XPRT_PDATA_LEN);
}

/*
 * The inline thresholds of the version sent now: we send at most what the
 * peer receives, and receive at most what it sends, as its RFC 8797
 * private data says or, without any, the version's default (1024 in
 * version 1, rfc5666bis 4.3.1; 4096 once version 2 is settled, v2 draft
 * 5.1); never more than our own. A version 2 probe fits the version 1
 * default (v2 draft 5), and so does what we expect back until version 2
 * is settled. Thresholds change with the version on a live connection
 * (v2 draft 5.3): they are read per message.
 */
void xprt_set_thresholds(struct rpcrdma_xprt *x)
{
	struct rpcrdma_marshal_conn *m = &x->mconn;
	uint32_t dflt = x->vers == RPCRDMA_VERS_2 && x->vers_settled ? RPCRDMA_V2_INLINE_DEFAULT
								     : RPCRDMA_V1_INLINE_DEFAULT;

	m->vers = x->vers;
	m->send_inline = RTE_MIN(x->p.send_inline, x->peer_pdata ? x->peer.recv_inline : dflt);
	m->recv_inline = RTE_MIN(x->p.recv_inline, x->peer_pdata ? x->peer.send_inline : dflt);
	if (x->xchar_on && x->xs.peer_init) {
		/*
		 * Version 2 with the peer's characteristics (xcharext 3.1):
		 * we send at most its Receive Buffer Size (less while our
		 * request to lower it stands), and it sends at most ours.
		 */
		m->send_inline = RTE_MIN(x->p.send_inline, rpcrdma_xchar_state_max_send(&x->xs));
		m->recv_inline = RTE_MIN(x->p.recv_inline, x->xs.local.rbsiz);
	}
	/* whatever the peer said, the probe fits the version 1 default */
	if (!x->vers_settled && x->p.role == RPCRDMA_XPRT_CLIENT)
		m->send_inline = RTE_MIN(m->send_inline, (uint32_t)RPCRDMA_VERS_PROBE_MAX);
	if (x->p.role == RPCRDMA_XPRT_SERVER) {
		/* Send With Invalidate: the RFC 8797 flag, or in version 2 the peer's REQREMINV */
		bool inv =
			x->xchar_on ? rpcrdma_xchar_state_send_inv_ok(&x->xs) : x->peer.remote_inv;

		if (inv)
			m->flags |= RPCRDMA_MARSHAL_F_REMOTE_INV;
		else
			m->flags &= ~RPCRDMA_MARSHAL_F_REMOTE_INV;
	}
	/*
	 * The backward direction (RFC 8167 2.5, 2.6; xcharext 3.3): the same
	 * thresholds, no chunks in version 1 nor when the client's Backward
	 * Request Support is not BKREQSUP_GENL.
	 */
	x->bmconn = *m;
	x->bmconn.backward = true;
	x->bmconn.flags = 0;
	if (x->p.role == RPCRDMA_XPRT_SERVER
		    ? !(x->xchar_on && x->xs.peer_init && x->xs.peer.brs == RPCRDMA_BKREQSUP_GENL)
		    : !(x->xchar_on && x->xs.local.brs == RPCRDMA_BKREQSUP_GENL))
		x->bmconn.flags |= RPCRDMA_MARSHAL_F_INLINE_ONLY;
}

/* The marshaling of the calls of our requester slots, and of our replies. */
const struct rpcrdma_marshal_conn *xprt_call_mconn(const struct rpcrdma_xprt *x)
{
	return x->client ? &x->mconn : &x->bmconn;
}

const struct rpcrdma_marshal_conn *xprt_reply_mconn(const struct rpcrdma_xprt *x)
{
	return x->client ? &x->bmconn : &x->mconn;
}

/* The version is settled for this connection (v2 draft 5.1, 5.2; server: its first call). */
void xprt_vers_settle(struct rpcrdma_xprt *x, uint32_t vers)
{
	x->vers = vers;
	x->vers_settled = true;
	xprt_set_thresholds(x);
}

/*
 * Client, connection established: version 1 (configured, or remembered for
 * this peer), or version 2 to probe with the first call (v2 draft 5).
 */
static void vers_connected(struct rpcrdma_xprt *x)
{
	if (rpcrdma_vers_req_connect(&x->vreq, x->addr) == RPCRDMA_VERS_REQ_V1) {
		xprt_vers_settle(x, RPCRDMA_VERS_1);
		return;
	}
	x->vers = RPCRDMA_VERS_2;
	x->vers_settled = false;
	/* a server's ROPT_INITXCH comes before the probe's reply: take it */
	xprt_xchar_connect(x);
	xprt_set_thresholds(x);
}

/*
 * NEGOTIATING: apply the peer's private data (RFC 8797) to the thresholds
 * (xprt_set_thresholds()).
 */
static void negotiate(struct rpcrdma_xprt *x, const void *pdata, size_t len)
{
	struct rpcrdma_marshal_conn *m = &x->mconn;

	x->peer_pdata = rpcrdma_xprt_pdata_decode(&x->peer, pdata, len) == 0;
	rpcrdma_marshal_conn_init(m);
	m->backward = false; /* forward messages; bmconn is the backward direction's */
	m->max_seg_len = x->p.max_seg_len;
	m->max_send_sge = x->max_send_sge;
	m->pad = x->pad;
	m->flags = 0;
	if (x->p.role == RPCRDMA_XPRT_SERVER && (x->p.flags & RPCRDMA_XPRT_F_REPLY_CHUNK_ALWAYS))
		m->flags |= RPCRDMA_MARSHAL_F_REPLY_CHUNK_ALWAYS;
	xprt_set_thresholds(x);
}

RTE_LOG_REGISTER(rpcrdma_xprt_logtype, rpcrdma.xprt, NOTICE);

uint64_t xprt_rc_cycles(uint32_t us)
{
	return rte_get_tsc_hz() / 1000000 * (uint64_t)(us ? us : 1);
}

/* Reconnect attempts counted afresh: the next one reconnect_delay_us after a loss. */
void xprt_rc_restart(struct rpcrdma_xprt *x)
{
	x->rc_tries = 0;
	x->rc_delay = xprt_rc_cycles(x->p.reconnect_delay_us);
}

int rpcrdma_xprt_connect(struct rpcrdma_xprt *x, const char *addr)
{
	uint8_t pd[RPCRDMA_XPRT_PDATA_LEN];
	int ret;

	if (x->p.role != RPCRDMA_XPRT_CLIENT)
		return -EINVAL;
	if (x->state != RPCRDMA_XPRT_IDLE && x->state != RPCRDMA_XPRT_CLOSED &&
	    x->state != RPCRDMA_XPRT_ERROR)
		return -EISCONN;
	ret = qp_create(x);
	if (ret) {
		x->qp = NULL;
		x->state = RPCRDMA_XPRT_ERROR;
		return ret;
	}
	our_pdata(x, pd);
	/* the key of the peer memory (v2 draft 5.2); not remembered when too long */
	if (addr != NULL && strlen(addr) < sizeof(x->addr))
		memcpy(x->addr, addr, strlen(addr) + 1);
	else
		x->addr[0] = '\0';
	ret = rpcrdma_pmd_connect(x->qp, addr, pd, sizeof(pd));
	if (ret) {
		rpcrdma_pmd_qp_destroy(x->qp);
		x->qp = NULL;
		x->state = RPCRDMA_XPRT_ERROR;
		return ret;
	}
	if (x->state != RPCRDMA_XPRT_IDLE)
		x->st.reconnects++;
	if (x->p.reconnect_max > 0 && !x->rc_on) {
		x->rc_on = true;
		xprt_rc_restart(x);
	}
	x->rc_next = 0;
	xprt_kick(x);
	rpcrdma_credit_req_reset(&x->creq);
	/* the old connection's calls are gone with it, and their credits */
	x->tmo_credits = 0;
	for (uint32_t i = 0; i < x->ncalls; i++)
		if (x->calls[i].xprt == x) /* a group's slots: its own */
			x->calls[i].tmo_late = x->calls[i].tmo_credit = false;
	x->state = RPCRDMA_XPRT_CONNECTING;
	return 0;
}

int rpcrdma_xprt_accept(const struct rpcrdma_xprt_params *p, const struct rpcrdma_pmd_event *ev,
			struct rpcrdma_xprt **xp)
{
	uint8_t pd[RPCRDMA_XPRT_PDATA_LEN];
	struct rpcrdma_xprt *x;
	uint64_t key;
	int ret;

	if (p->role != RPCRDMA_XPRT_SERVER || ev->type != RPCRDMA_PMD_EVENT_CONNECT_REQUEST)
		return -EINVAL;
	ret = xprt_alloc(p, &x);
	if (ret)
		goto err_reject;
	ret = qp_create(x);
	if (ret)
		goto err_free;
	x->peer_addr = *rpcrdma_pmd_conn_req_peer(ev->req);
	key = rpcrdma_pmd_peer_key(&x->peer_addr);
	x->peer_key = (uint32_t)(key ^ key >> 32);
	x->state = RPCRDMA_XPRT_NEGOTIATING;
	negotiate(x, ev->private_data, ev->private_data_len);
	/* receives for the first grant are posted before the client can send */
	xprt_post_recvs(x);
	our_pdata(x, pd);
	ret = rpcrdma_pmd_accept(ev->req, x->qp, pd, sizeof(pd));
	if (ret)
		goto err_qp;
	x->state = RPCRDMA_XPRT_CONNECTING;
	xprt_kick(x);
	*xp = x;
	return 0;

err_qp:
	/* the posted receives flush with the QP; their buffers come back here */
	rpcrdma_pmd_qp_destroy(x->qp);
	xprt_free(x);
	return ret;
err_free:
	xprt_free(x);
err_reject:
	rpcrdma_pmd_reject(ev->req, NULL, 0);
	return ret;
}

const struct rpcrdma_pmd_peer *rpcrdma_xprt_peer(const struct rpcrdma_xprt *x)
{
	return x->client ? NULL : &x->peer_addr;
}

uint64_t rpcrdma_xprt_peer_key(const struct rpcrdma_xprt *x)
{
	return x->peer_key;
}

int rpcrdma_xprt_event(const struct rpcrdma_pmd_event *ev)
{
	struct rpcrdma_xprt *x;

	if (ev->qp == NULL || ev->qp->context == NULL)
		return 0;
	x = ev->qp->context;
	if (x->magic != XPRT_MAGIC || x->qp != ev->qp)
		return 0;
	switch (ev->type) {
	case RPCRDMA_PMD_EVENT_ESTABLISHED:
		if (x->state != RPCRDMA_XPRT_CONNECTING)
			break;
		if (x->p.role == RPCRDMA_XPRT_CLIENT) {
			x->state = RPCRDMA_XPRT_NEGOTIATING;
			negotiate(x, ev->private_data, ev->private_data_len);
			vers_connected(x);
		} else {
			x->state = RPCRDMA_XPRT_ESTABLISHED;
		}
		break;
	case RPCRDMA_PMD_EVENT_REJECTED:
	case RPCRDMA_PMD_EVENT_CONNECT_ERROR:
		if (x->state == RPCRDMA_XPRT_CONNECTING) {
			rpcrdma_pmd_qp_destroy(x->qp);
			x->qp = NULL;
			x->state = RPCRDMA_XPRT_ERROR;
		}
		break;
	case RPCRDMA_PMD_EVENT_DISCONNECTED:
		xprt_conn_lost(x);
		break;
	default:
		return 0;
	}
	rpcrdma_xprt_process(x);
	xprt_kick(x);
	return 1;
}

int rpcrdma_xprt_disconnect(struct rpcrdma_xprt *x)
{
	x->rc_on = false; /* the application's own: no reconnect */
	if (x->state != RPCRDMA_XPRT_ESTABLISHED && x->state != RPCRDMA_XPRT_CONNECTING &&
	    x->state != RPCRDMA_XPRT_NEGOTIATING)
		return -ENOTCONN;
	xprt_conn_lost(x);
	xprt_kick(x);
	return 0;
}

int rpcrdma_xprt_destroy(struct rpcrdma_xprt *x)
{
	if (x->state != RPCRDMA_XPRT_IDLE && x->state != RPCRDMA_XPRT_CLOSED &&
	    x->state != RPCRDMA_XPRT_ERROR)
		return -EBUSY;
	if (x->calls_busy || x->svc_active)
		return -EBUSY;
	xprt_free(x);
	return 0;
}

enum rpcrdma_xprt_state rpcrdma_xprt_state(const struct rpcrdma_xprt *x)
{
	return x->state;
}

int rpcrdma_xprt_set_credits(struct rpcrdma_xprt *x, uint32_t credits)
{
	if (x->p.role != RPCRDMA_XPRT_SERVER)
		return -EINVAL;
	x->recv_short = true; /* the next poll posts for the new grant */
	xprt_kick(x);
	return rpcrdma_credit_resp_set_target(&x->cresp, credits);
}

void rpcrdma_xprt_info(const struct rpcrdma_xprt *x, struct rpcrdma_xprt_info *info)
{
	memset(info, 0, sizeof(*info));
	info->vers = x->vers;
	info->vers_settled = x->vers_settled;
	if (x->p.role == RPCRDMA_XPRT_SERVER && x->ncalls) {
		info->bk_grant = x->creq.grant;
		info->bk_outstanding = x->creq.outstanding;
		info->bk_ready = rpcrdma_xprt_bc_may_call(x) == 0;
	} else if (x->p.role == RPCRDMA_XPRT_CLIENT && x->nsvcs) {
		info->bk_grant = x->p.bk_credits;
		info->bk_outstanding = x->cresp.active;
	}
	info->backward = x->backward;
	info->send_inline = x->mconn.send_inline;
	info->recv_inline = x->mconn.recv_inline;
	info->peer_remote_inv = x->peer.remote_inv;
	info->peer_pdata = x->peer_pdata;
	if (x->p.role == RPCRDMA_XPRT_CLIENT) {
		info->grant = x->creq.grant;
		info->outstanding = x->creq.outstanding;
	} else {
		info->grant = x->cresp.target;
		info->outstanding = x->cresp.active;
	}
	info->qp = x->qp;
	info->id = x->id;
	info->flags = x->p.flags;
	info->sends_out = x->sq_out;
	info->recvs_posted = x->rx_posted;
	info->svc_unreleased = x->svc_active;
	info->mem_bytes = x->mem_bytes;
}

void rpcrdma_xprt_stats(const struct rpcrdma_xprt *x, struct rpcrdma_xprt_stats *st)
{
	*st = x->st;
	if (x->p.role == RPCRDMA_XPRT_SERVER)
		st->excess_calls = x->cresp.excess;
}

/* Entries of a list, at most max (a list a racing thread changes may not end). */
#define LIST_COUNT(head, field, max)                                               \
	({                                                                         \
		uint32_t n_ = 0;                                                   \
		for (const __typeof__(*(head)->tqh_first) *e_ = (head)->tqh_first; \
		     e_ && n_ < (max); e_ = e_->field.tqe_next)                    \
			n_++;                                                      \
		n_;                                                                \
	})

/* The responder half of rpcrdma_xprt_dump(): credits granted, calls held, slots by state. */
static void dump_responder(FILE *f, const struct rpcrdma_xprt *x)
{
	static const char *const svc_names[] = {
		"free", "received", "read", "dispatched", "reply_ready", "writes", "send", "done",
	};
	const struct rpcrdma_xprt_group *g = x->grp;
	const struct rpcrdma_xprt_svc_call *svcs = g != NULL && !x->client ? g->svcs : x->svcs;
	uint32_t nsvcs = g != NULL && !x->client ? g->nsvcs : x->nsvcs;
	uint32_t by_state[RTE_DIM(svc_names)] = { 0 }, i, nbacklog = 0;
	const struct xprt_rx *rx;

	for (rx = x->backlog; rx != NULL && nbacklog < x->nrx; rx = rx->next)
		nbacklog++;
	fprintf(f,
		"  responder: target %u, posted %u, active %u, last grant %u, received %" PRIu64
		", replies %" PRIu64 ", backlog %u, waiting %u, reads out %u, done %s\n",
		x->cresp.target, x->cresp.posted, x->cresp.active, x->cresp.last, x->cresp.received,
		x->cresp.replies, nbacklog, LIST_COUNT(&x->svc_wait, link, nsvcs), x->reads_out,
		x->svc_done != NULL ? "pending release" : "none");
	/* a group's slots are shared: this connection's are those that name it */
	for (i = 0; i < nsvcs; i++)
		if (svcs[i].xprt == x && svcs[i].state < RTE_DIM(svc_names))
			by_state[svcs[i].state]++;
	fprintf(f, "  responder slots:");
	for (i = 1; i < RTE_DIM(svc_names); i++)
		fprintf(f, " %s %u", svc_names[i], by_state[i]);
	fprintf(f, "\n");
}

void rpcrdma_xprt_dump(FILE *f, const struct rpcrdma_xprt *x)
{
	const struct rpcrdma_xprt_group *g = x->grp;

	fprintf(f, "connection %" PRIu64 " (%s): %s, version %u%s%s\n", x->id,
		x->client ? "client" : "server", rpcrdma_xprt_state_name(x->state), x->vers,
		x->vers_settled ? "" : " (not settled)", x->backward ? ", backward" : "");
	fprintf(f,
		"  counters: calls %" PRIu64 ", replies %" PRIu64 ", calls received %" PRIu64
		"; send WRs %" PRIu64 ", doorbells %" PRIu64 ", receives %" PRIu64 "\n",
		x->st.calls, x->st.replies, x->st.calls_recv, x->st.wrs, x->st.doorbells,
		x->st.recvs);
	if (x->qp != NULL)
		fprintf(f,
			"  QP %u: send WRs %" PRIu64 ", doorbells %" PRIu64 ", receives %" PRIu64
			", RNR retries %" PRIu64 "\n",
			x->qp->qp_num, x->qp->stats.send_wrs, x->qp->stats.doorbells,
			x->qp->stats.recv_wrs, x->qp->stats.rnr_retries);
	fprintf(f, "  flags: in_poll %d, pending %d, pend_listed %d, recv_due %d, recv_short %d\n",
		x->in_poll, x->pending, x->pend_listed, x->recv_due, x->recv_short);
	fprintf(f,
		"  send queue: depth %u, head %u, tail %u, out %u, staged %u, unsignaled %u of "
		"every %u\n",
		x->sq_depth, x->sq_head, x->sq_tail, x->sq_out, x->nstage, x->sq_unsig,
		x->sig_every);
	fprintf(f, "  receives: posted %u of %u, %u bytes each\n", x->rx_posted, x->rq_depth,
		x->recv_len);
	if (x->ncalls != 0)
		fprintf(f,
			"  requester: grant %u, outstanding %u, slots busy %u of %u, waiting %u, "
			"timed %s\n",
			x->creq.grant, x->creq.outstanding, x->calls_busy, x->calls_max,
			LIST_COUNT(&x->call_wait, link, x->ncalls),
			x->tmo_next == UINT64_MAX ? "none" : "yes");
	if (x->responder)
		dump_responder(f, x);
	if (g != NULL)
		fprintf(f,
			"  group: %u connections, SRQ %u posted of %u (%u reserved), share %u, "
			"pending %u, draining %u\n",
			g->st.conns, g->srq_posted, g->srq_depth, g->reserved, g->share, g->npend,
			g->ntodo);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connection engine's poll: receives posted, classified and dispatched,
 * send-queue completions retired, the state machine advanced.
 *
 * Receives: the client keeps max_credits posted, the server what its grant
 * needs plus spares (rfc5666bis 4.3). Each received message is classified
 * by its header alone (a call, a reply to one of our calls, a control
 * message: rfc5666bis 5.5.1, RFC 8167 1.3 for the backward direction, v2
 * draft 3.2 and 5.2) and handed to the requester (xprt_req.c), the
 * responder (xprt_rsp.c) or the control path (xprt_xchar.c). Completions:
 * every work request id is a struct xprt_wr; send-queue entries retire in
 * order (xprt_int.h), RDMA Reads possibly out of it (RFC 5040 ordering).
 * A lost connection (xprt_conn_lost()) fails or keeps each call as its
 * flags say, and rpcrdma_xprt_poll() runs timeouts and the reconnect.
 */

#include "xprt_int.h"

/* ------------------------------------------------------------ fast path helpers */

/* Ring one doorbell for everything staged. */
void xprt_flush_sends(struct rpcrdma_xprt *x)
{
	uint16_t n;

	if (x->nstage == 0 || x->qp == NULL)
		return;
	n = rpcrdma_pmd_queue_send_burst(x->qp, x->stage, (uint16_t)x->nstage);
	if (n == 0 && x->qp->state != RPCRDMA_PMD_QPS_RTS && x->qp->state != RPCRDMA_PMD_QPS_ERROR)
		return; /* not yet connected: they go at a later poll */
	if (n < x->nstage)
		memmove(x->stage, x->stage + n, (x->nstage - n) * sizeof(x->stage[0]));
	x->nstage -= n;
	x->st.wrs += n;
	if (rpcrdma_pmd_flush(x->qp) != 0)
		x->st.doorbells++;
}

uint32_t rpcrdma_xprt_flush(struct rpcrdma_xprt *x)
{
	uint32_t before = x->nstage;

	xprt_flush_sends(x);
	return before - x->nstage;
}

static bool can_post(const struct rpcrdma_xprt *x)
{
	return x->qp != NULL &&
	       (x->state == RPCRDMA_XPRT_ESTABLISHED || x->state == RPCRDMA_XPRT_NEGOTIATING ||
		(x->state == RPCRDMA_XPRT_CONNECTING && !x->client));
}

/* Post receives: the client keeps max_credits posted, the server what its grant needs. */
uint32_t xprt_post_recvs(struct rpcrdma_xprt *x)
{
	struct rx_burst b;
	uint32_t want, n, spare;
	uint16_t got;

	x->recv_short = false;
	if (!can_post(x))
		return 0;
	if (x->grp != NULL) {
		/*
		 * A group's connection reserves receives of the SRQ: a server
		 * what its grant needs, a client one for each call out, one
		 * for a message unasked and one for each backward call it may
		 * be sent (xprt_group.c).
		 */
		if (x->client) {
			uint32_t need = x->creq.outstanding + 1 + x->p.bk_credits;

			want = need > x->rx_posted ? need - x->rx_posted : 0;
		} else {
			/* and one for the reply of each backward call out */
			uint32_t need = x->cresp.target + xprt_group_bk_need(x);

			want = rpcrdma_credit_resp_to_post(&x->cresp);
			if (need > x->cresp.posted && need - x->cresp.posted > want)
				want = need - x->cresp.posted;
			if (want == 0)
				xprt_group_trim(x);
		}
		if (want == 0)
			return 0;
		got = (uint16_t)xprt_group_reserve(x, want);
		if (got < want)
			x->recv_short = true;
		if (!x->client)
			rpcrdma_credit_resp_posted(&x->cresp, got);
		return got;
	}
	if (x->client) {
		want = x->rq_depth > x->rx_posted ? x->rq_depth - x->rx_posted : 0;
	} else {
		want = rpcrdma_credit_resp_to_post(&x->cresp);
		/* the spare, and a receive for the reply of each backward call out */
		spare = x->cresp.target + XPRT_RECV_SPARE + (x->calls ? x->creq.outstanding : 0);
		if (spare > x->cresp.posted && spare - x->cresp.posted > want)
			want = spare - x->cresp.posted;
	}
	if (want > XPRT_BURST)
		want = XPRT_BURST;
	if (want > x->rq_depth - x->rx_posted)
		want = x->rq_depth - x->rx_posted;
	n = rx_burst_fill(&b, &x->rx_free, x->ipool, x->recv_len, want);
	if (n < want)
		x->recv_short = true;
	if (n == 0)
		return 0;
	got = rpcrdma_pmd_post_recv_burst(x->qp, b.wrs, (uint16_t)n);
	if (got < n)
		x->recv_short = true;
	rx_burst_done(&b, got, &x->rx_free, x->recv_len);
	x->rx_posted += got;
	x->st.recvs += got;
	if (!x->client)
		rpcrdma_credit_resp_posted(&x->cresp, got);
	/* more than a burst wanted (set-up, a grown grant): go on */
	if (got == XPRT_BURST && !x->recv_short)
		got += xprt_post_recvs(x);
	return got;
}

/* ------------------------------------------------------------ receive dispatch */

/* Is xid one of our requester slots' calls out now? */
static bool xid_is_ours(const struct rpcrdma_xprt *x, uint32_t xid)
{
	const struct rpcrdma_xprt_call *c;

	if (x->ncalls == 0)
		return false;
	c = &x->calls[xid & (x->ncalls - 1)];
	return c->xprt == x && c->xid == xid && c->state == CALL_SENT;
}

/*
 * A server that takes version 2 messages on this connection now: version 2
 * is in its range (params.vers) and version 1 is not settled. Any other
 * server answers a version 2 message ERR_VERS (rfc5666bis 5.5.1), whatever
 * its rdma_proc.
 */
static bool srv_takes_v2(const struct rpcrdma_xprt *x)
{
	if (x->vers_settled)
		return x->vers == RPCRDMA_VERS_2;
	return x->vresp.cfg != RPCRDMA_VERS_RESP_V1_ONLY;
}

/*
 * A message's direction (RFC 8167 1.3; v2 draft 3.2): version 2 says it in
 * rdma_direction; in version 1 it is the RPC msg_type, which a backward
 * message, always Short (2.5, 2.6), has right after its 28-byte header.
 * An RDMA_ERROR answers a call of ours when its XID is one. Anything else
 * goes the way of the role: a client's replies, a server's calls (their
 * paths count and answer what is malformed).
 */
enum rx_kind xprt_rx_classify(const struct rpcrdma_xprt *x, struct xprt_rx *rx)
{
	bool cli = x->client;
	enum rx_kind other = cli ? RX_CALL : RX_REPLY;
	const void *b = rx->buf;
	uint32_t vers, proc;

	rx->hlen = 0;
	if (rx->len < RPCRDMA_HDR_FIXED_LEN)
		return cli ? RX_REPLY : RX_CALL;
	vers = rpcrdma_wire_get32(b, 1);
	proc = rpcrdma_wire_get32(b, 3);
	if (vers == RPCRDMA_VERS_2 && proc == RPCRDMA_OPTIONAL) {
		/* at a server of version 1 only, or settled on version 1: a call for ERR_VERS */
		return cli || srv_takes_v2(x) ? RX_CTRL : RX_CALL;
	}
	if (vers == RPCRDMA_VERS_2 && (proc == RPCRDMA_MSG || proc == RPCRDMA_NOMSG) &&
	    rx->len >= 20 && rpcrdma_wire_get32(b, 4) == (cli ? RPCRDMA_CALL : RPCRDMA_REPLY))
		return other;
	if (vers == RPCRDMA_VERS_1)
		rx->hlen = (uint8_t)short_hdr_len(b, rx->len, RPCRDMA_VERS_1, 0);
	if (rx->hlen != 0 && rx->len >= XPRT_SHORT_HDR + 8 &&
	    rpcrdma_wire_get32(b, 8) == (cli ? RPCRDMA_CALL : RPCRDMA_REPLY))
		return other;
	if (!cli && proc == RPCRDMA_ERROR && xid_is_ours(x, rpcrdma_wire_get32(b, 0)))
		return RX_REPLY;
	return cli ? RX_REPLY : RX_CALL;
}

/* Server: a receive consumed by a message that is not a forward call. */
static void srv_consumed(struct rpcrdma_xprt *x)
{
	if (!x->client) {
		rpcrdma_credit_resp_received(&x->cresp);
		rpcrdma_credit_resp_drop(&x->cresp);
	}
}

/* An RDMA2_OPTIONAL, either role: applied, or answered RDMA2_ERROR. */
void xprt_ctrl_recv(struct rpcrdma_xprt *x, struct xprt_rx *rx)
{
	struct rpcrdma_hdr_storage hs;
	struct rpcrdma_hdr *h = rpcrdma_hdr_storage_init(&hs);
	uint32_t code;

	if (x->vers_settled && x->vers != RPCRDMA_VERS_2) {
		/*
		 * A client's version 1 connection (a server's goes to ERR_VERS,
		 * xprt_rx_classify()): the other version, counted and dropped, as a
		 * requester does with any message of it.
		 */
		x->st.err_vers++;
		return;
	}
	if (rpcrdma_hdr_decode(h, rx->buf, rx->len) < 0) {
		x->st.options_recv++;
		x->st.err_hdr++;
		code = RPCRDMA2_ERR_BAD_HEADER;
	} else {
		code = xprt_optional(x, h);
	}
	if (code)
		xprt_ctrl_send_error(x, rpcrdma_wire_get32(rx->buf, 0), code);
}

static void recv_dispatch(struct rpcrdma_xprt *x, struct xprt_rx *rx)
{
	switch (xprt_rx_classify(x, rx)) {
	case RX_REPLY:
		srv_consumed(x);
		if (x->calls == NULL) {
			/* a server without backward calls: a reply to nothing */
			x->st.bad_direction++;
			rx_put(x, rx);
			return;
		}
		xprt_client_recv(x, rx);
		return;
	case RX_CALL:
		if (!x->responder) {
			/* a client without backward service: a call it cannot take */
			x->st.bad_direction++;
			rx_put(x, rx);
			return;
		}
		xprt_server_recv(x, rx);
		return;
	case RX_CTRL:
		srv_consumed(x);
		xprt_ctrl_recv(x, rx);
		rx_put(x, rx);
		return;
	}
}

/* ------------------------------------------------------------ completions */

/* Retire one send-ring entry (sequence number @seq): tell its owner. */
void xprt_sq_complete(struct rpcrdma_xprt *x, uint8_t type, void *owner, uint32_t seq, bool ok)
{
	struct rpcrdma_xprt_svc_call *s = owner;
	struct rpcrdma_xprt_call *c = owner;

	switch (type) {
	case WR_CALL_SEND:
		/* a call that completed on its reply may be sending again: not this Send */
		if (c->send_seq != seq)
			break;
		if (c->state == CALL_RETIRING) {
			/* released after a timeout: the slot is free now */
			c->send_done = true;
			xprt_call_free_slot(c);
			break;
		}
		if (c->state == CALL_DONE && c->status == -ETIMEDOUT) {
			c->send_done = true; /* timed out, not yet released */
			break;
		}
		if (c->state != CALL_SENT)
			break;
		c->send_done = true;
		if (!ok)
			c->lost = true;
		xprt_call_process(c);
		break;
	case WR_SVC_READ:
		x->reads_out--;
		s->ops_done++;
		if (!ok)
			s->lost = true;
		xprt_svc_process(s);
		break;
	case WR_SVC_WRITE:
		s->writes_done++;
		if (!ok)
			s->lost = true;
		xprt_svc_process(s);
		break;
	case WR_SVC_SEND:
		s->send_done = true;
		if (!ok)
			s->lost = true;
		xprt_svc_process(s);
		break;
	case WR_SVC_SEND_BUF:
		/* a fast reply's buffer (a failed Send has taken the connection down) */
		xprt_buf_push(x->rbuf_freep, owner);
		break;
	case WR_CTRL_SEND:
		xprt_ctrl_put(x, owner);
		break;
	default: /* WR_MARKER */
		break;
	}
}

/*
 * sq_retire() while RDMA Reads are outstanding. iWARP lets a work request
 * after a Read complete before the Read's response is in (RFC 5040): the
 * entries before @e are done but for the Reads, which complete on their own
 * (all are signaled); the oldest are retired, in order, as far as they are
 * done.
 */
static void sq_retire_ooo(struct rpcrdma_xprt *x, struct xprt_wr *e, uint32_t k, bool ok)
{
	uint32_t i;

	e->done = 1;
	e->ok = ok;
	for (i = 0; i < k; i++) {
		struct xprt_wr *r = &x->sq_ring[sq_idx(x, x->sq_tail + i)];

		if (r->type != WR_SVC_READ && !r->done) {
			r->done = 1;
			r->ok = true;
		}
	}
	while (x->sq_out > 0) {
		struct xprt_wr *r = &x->sq_ring[sq_idx(x, x->sq_tail)];
		uint32_t seq;

		if (!r->done)
			break;
		r->done = 0;
		seq = x->sq_tail++;
		x->sq_out--;
		sq_rebase(x);
		xprt_sq_complete(x, r->type, r->owner, seq, r->ok);
	}
}

/*
 * A send-queue completion for ring entry @e: retire every entry from the
 * oldest up to it. The earlier ones had no completion of their own, so
 * they succeeded; @e has the completion's status.
 */
static void sq_retire(struct rpcrdma_xprt *x, struct xprt_wr *e, bool ok)
{
	uint32_t k = ((uint32_t)(e - x->sq_ring) - sq_idx(x, x->sq_tail)) & x->sq_mask;

	if (k >= x->sq_out) {
		x->st.wc_errors++; /* not outstanding: a PMD bug */
		return;
	}
	if (x->reads_out != 0) {
		sq_retire_ooo(x, e, k, ok);
		return;
	}
	do {
		const struct xprt_wr *r = &x->sq_ring[sq_idx(x, x->sq_tail)];
		uint8_t type = r->type;
		void *owner = r->owner;
		uint32_t seq = x->sq_tail++;

		/* the owner may stage new WRs into the entries just freed */
		x->sq_out--;
		sq_rebase(x);
		xprt_sq_complete(x, type, owner, seq, k == 0 ? ok : true);
	} while (k-- > 0);
}

bool xprt_retire_fast_reply(struct rpcrdma_xprt *x, const struct rpcrdma_pmd_wc *wc)
{
	struct xprt_wr *t = (struct xprt_wr *)(uintptr_t)wc->wr_id;

	/* the oldest WR, so it retires alone; nothing a poll would do after it */
	if (t->type != WR_SVC_SEND_BUF || wc->status != RPCRDMA_PMD_WC_SUCCESS ||
	    x->state != RPCRDMA_XPRT_ESTABLISHED || x->pending || x->reads_out != 0 ||
	    x->sq_out == 0 || t != &x->sq_ring[sq_idx(x, x->sq_tail)])
		return false;
	sq_retire(x, t, true);
	return true;
}

void xprt_handle_wc(struct rpcrdma_xprt *x, const struct rpcrdma_pmd_wc *wc)
{
	struct xprt_wr *t = (struct xprt_wr *)(uintptr_t)wc->wr_id;
	bool ok = wc->status == RPCRDMA_PMD_WC_SUCCESS;

	if (!ok) {
		if (wc->status == RPCRDMA_PMD_WC_WR_FLUSH_ERR)
			x->st.flushed++;
		else
			x->st.wc_errors++;
		xprt_conn_lost(x);
	}
	if (t->type == WR_RECV) {
		struct xprt_rx *rx = t->owner;

		if (x->grp == NULL)
			x->rx_posted--;
		else if (!xprt_group_recv(x)) {
			x->grp->st.unreserved += ok;
			if (!x->client)
				rpcrdma_credit_resp_posted(&x->cresp, 1); /* came unreserved */
		}
		rx->posted = false;
		if (!ok && !x->client)
			x->cresp.posted -= x->cresp.posted ? 1 : 0;
		/* ok: accounted in xprt_server_recv */
		if (!ok) {
			rx_put(x, rx);
			return;
		}
		rx->len = wc->byte_len;
		rx->inv = (wc->flags & RPCRDMA_PMD_WC_WITH_INV) != 0;
		rx->inv_rkey = wc->invalidated_rkey;
		recv_dispatch(x, rx);
		return;
	}
	sq_retire(x, t, ok);
}

/*
 * The connection is lost (or closed): the QP goes to error, every work
 * request outstanding flushes, and each call or svc call finishes when its
 * own work requests have.
 */
void xprt_conn_lost(struct rpcrdma_xprt *x)
{
	uint32_t i;

	if (x->state == RPCRDMA_XPRT_DRAINING || x->state == RPCRDMA_XPRT_CLOSED ||
	    x->state == RPCRDMA_XPRT_ERROR || x->state == RPCRDMA_XPRT_IDLE)
		return;
	x->state = RPCRDMA_XPRT_DRAINING;
	if (x->client) {
		/* a probe still out counts as answered ERR_VERS (v2 draft 5.2) */
		rpcrdma_vers_req_disconnect(&x->vreq);
		x->vers_settled = false;
	}
	xprt_xchar_stop(x);
	if (x->grp != NULL) {
		/* the SRQ's receives stay with the group: nothing of ours will flush */
		xprt_group_unreserve(x);
		if (!x->client)
			x->cresp.posted = 0;
	}
	if (x->qp != NULL) {
		rpcrdma_pmd_disconnect(x->qp); /* -ENOTCONN when the peer left first */
		/*
		 * Unsignaled WRs that already succeeded have no completion to
		 * come: the marker's completion retires them. Nothing is staged
		 * after it (every owner sees DRAINING).
		 */
		if (x->sq_out != 0) {
			xprt_stage_marker(x);
			xprt_flush_sends(x);
		}
	}
	for (i = 0; i < x->ncalls; i++) {
		struct rpcrdma_xprt_call *c = &x->calls[i];

		if (c->state == CALL_SENT && c->xprt == x) { /* a group's slots: its own */
			c->lost = true;
			xprt_call_process(c);
		}
	}
	for (i = 0; i < x->nsvcs; i++) {
		struct rpcrdma_xprt_svc_call *s = &x->svcs[i];

		if (s->state != SVC_FREE)
			s->lost = true;
	}
	if (x->grp != NULL && x->responder) {
		/* the group's slots that are this connection's now */
		for (i = 0; i < x->grp->nsvcs; i++) {
			struct rpcrdma_xprt_svc_call *s = &x->grp->svcs[i];

			if (s->state != SVC_FREE && s->xprt == x)
				s->lost = true;
		}
	}
	/* calls that waited for a slot: no reply will go */
	while (x->backlog != NULL) {
		struct xprt_rx *rx = x->backlog;

		x->backlog = rx->next;
		rpcrdma_credit_resp_drop(&x->cresp);
		x->st.dropped++;
		rx_put(x, rx);
	}
	/* calls waiting for a credit fail (or stay parked) at the next run */
	xprt_call_run_waiters(x);
	xprt_svc_run_waiters(x);
}

/* ------------------------------------------------------------ state machine */

int rpcrdma_xprt_process(struct rpcrdma_xprt *x)
{
	enum rpcrdma_xprt_state prev;
	int n = 0;

	do {
		prev = x->state;
		switch (x->state) {
		case RPCRDMA_XPRT_IDLE:
		case RPCRDMA_XPRT_CONNECTING:
		case RPCRDMA_XPRT_CLOSED:
		case RPCRDMA_XPRT_ERROR:
			/* events move these on */
			break;
		case RPCRDMA_XPRT_NEGOTIATING:
			/* client: the accept's private data is applied (rpcrdma_xprt_event) */
			xprt_post_recvs(x);
			x->state = RPCRDMA_XPRT_ESTABLISHED;
			if (x->rc_tries)
				XPRT_LOG(NOTICE, x, "connected to %s again, attempt %u", x->addr,
					 x->rc_tries);
			xprt_rc_restart(x);
			break;
		case RPCRDMA_XPRT_ESTABLISHED:
			break;
		case RPCRDMA_XPRT_DRAINING:
			if (x->sq_out || x->rx_posted || x->svc_active)
				break;
			/* staged WRs were pushed into the QP and counted in sq_out */
			rpcrdma_pmd_qp_destroy(x->qp);
			x->qp = NULL;
			x->nstage = 0;
			x->reads_out = 0;
			if (x->responder)
				rpcrdma_credit_resp_init(&x->cresp, x->cresp.target, x->cresp.max);
			x->state = RPCRDMA_XPRT_CLOSED;
			break;
		}
		if (x->state != prev)
			n++;
	} while (x->state != prev);
	if (n && x->calls != NULL)
		xprt_call_run_waiters(x);
	return n;
}

/*
 * A client's reconnect (params.reconnect_max), from its poll while it is
 * CLOSED or ERROR: the first turn schedules the attempt rc_delay ahead,
 * the attempt doubles the delay for the next one. When the attempts are
 * spent, every call waiting for a connection fails -ECONNABORTED.
 */
static void reconnect_tick(struct rpcrdma_xprt *x)
{
	uint64_t now = rte_rdtsc(), max = xprt_rc_cycles(x->p.reconnect_delay_max_us);
	uint32_t i, n;

	if (x->rc_next == 0) {
		if (x->rc_tries == 0)
			XPRT_LOG(NOTICE, x,
				 "the connection to %s is lost: connecting again (at most %u "
				 "attempts)",
				 x->addr, x->p.reconnect_max);
		x->rc_next = now + x->rc_delay;
		return;
	}
	if (now < x->rc_next)
		return;
	if (x->rc_tries < x->p.reconnect_max && x->addr[0] != '\0') {
		x->rc_tries++;
		x->st.reconnect_attempts++;
		XPRT_LOG(INFO, x, "connecting to %s, attempt %u of %u", x->addr, x->rc_tries,
			 x->p.reconnect_max);
		x->rc_delay = x->rc_delay * 2 < max ? x->rc_delay * 2 : max;
		if (rpcrdma_xprt_connect(x, x->addr) != 0)
			x->rc_next = 0; /* ERROR: the next turn schedules the next attempt */
		x->work++;
		return;
	}
	x->rc_on = false;
	x->st.reconnect_give_ups++;
	for (i = 0, n = 0; i < x->ncalls; i++)
		n += x->calls[i].xprt == x && xprt_call_waits_reconnect(&x->calls[i]);
	XPRT_LOG(ERR, x, "no connection to %s after %u attempts: %u waiting call(s) fail", x->addr,
		 x->rc_tries, n);
	for (i = 0; i < x->ncalls; i++) {
		struct rpcrdma_xprt_call *c = &x->calls[i];

		if (c->xprt != x || !xprt_call_waits_reconnect(c))
			continue;
		xprt_call_unwait(c);
		xprt_call_fail(c, -ECONNABORTED);
		c->state = CALL_COMPLETE;
		xprt_call_process(c);
	}
	x->work++;
}

/* A poll's start: the state machine, the reconnect, a batch of receives due. */
void xprt_poll_begin(struct rpcrdma_xprt *x)
{
	x->work = 0;
	x->st.polls++;
	/* a server's visit mostly ends with a reply staged: start its lines now */
	if (!x->client)
		xprt_prefetch_send(x, true);
	if (x->state != RPCRDMA_XPRT_ESTABLISHED) {
		x->work += rpcrdma_xprt_process(x);
		if (unlikely(x->rc_on) &&
		    (x->state == RPCRDMA_XPRT_CLOSED || x->state == RPCRDMA_XPRT_ERROR))
			reconnect_tick(x);
	}
	x->in_poll = true;
	if (x->recv_due) {
		/* after the doorbell of whatever was submitted since: off its round trip */
		x->recv_due = false;
		x->work += (int)xprt_post_recvs(x);
	}
}

/*
 * A poll's end, after its @n completions: waiters, the doorbell, the
 * releases and the receives, the drain.
 */
void xprt_poll_end(struct rpcrdma_xprt *x, uint16_t n)
{
	x->work += n;
	/* requester slots (a server's: backward calls), responder slots (a client's) */
	if (x->tmo_next != UINT64_MAX)
		xprt_call_timeouts(x);
	if (!TAILQ_EMPTY(&x->call_wait))
		xprt_call_run_waiters(x);
	if (x->backlog != NULL)
		xprt_server_run_backlog(x);
	if (!TAILQ_EMPTY(&x->svc_wait))
		xprt_svc_run_waiters(x);
	if (x->xchar_on && unlikely(x->xs.rbsiz_target != 0))
		xprt_xchar_raise_check(x);
	/* the replies and calls go first: releasing and reposting are off the round trip */
	xprt_flush_sends(x);
	x->in_poll = false;
	while (x->svc_done != NULL) {
		struct rpcrdma_xprt_svc_call *s = x->svc_done;

		x->svc_done = s->next_free;
		s->release_pending = false;
		xprt_svc_release(s);
	}
	/*
	 * What a post depends on changes with a completion (a receive consumed,
	 * a call answered), a grant change or a state change; otherwise only
	 * a post that fell short (no buffer, a full queue) is tried again.
	 */
	if (x->client) {
		/*
		 * The requester reposts in batches of XPRT_RECV_SPARE, at the
		 * start of the next poll: after the doorbell of the calls its
		 * callbacks and its caller submit meanwhile, so off the round
		 * trip of a lone call. A call about to be sent tops up first
		 * when its reply would find no receive (xprt_call_process). With
		 * backward calls, at once: theirs are reserved.
		 */
		if ((n && x->responder) || x->recv_short || x->state != RPCRDMA_XPRT_ESTABLISHED)
			x->work += (int)xprt_post_recvs(x);
		else if (n && x->rx_posted + XPRT_RECV_SPARE <= x->rq_depth)
			x->recv_due = true;
	} else if (n || x->recv_short || x->state != RPCRDMA_XPRT_ESTABLISHED) {
		x->work += (int)xprt_post_recvs(x);
	}
	if (x->state == RPCRDMA_XPRT_DRAINING)
		x->work += rpcrdma_xprt_process(x);
	if (x->work == 0)
		x->st.idle_polls++;
}

/*
 * A connection of a group that its group's next poll must advance even
 * without a completion: something waits, is staged or due, or the
 * connection is on its way somewhere.
 */
bool xprt_needs_poll(const struct rpcrdma_xprt *x)
{
	switch (x->state) {
	case RPCRDMA_XPRT_ESTABLISHED:
		break;
	case RPCRDMA_XPRT_IDLE:
		return false;
	case RPCRDMA_XPRT_CLOSED:
	case RPCRDMA_XPRT_ERROR:
		if (!x->rc_on)
			return false;
		return true;
	default:
		return true;
	}
	return x->nstage != 0 || xprt_work_besides_sends(x);
}

/* An established connection's work besides its staged sends (xprt_needs_poll()). */
bool xprt_work_besides_sends(const struct rpcrdma_xprt *x)
{
	return x->recv_due || x->recv_short || x->tmo_next != UINT64_MAX ||
	       !TAILQ_EMPTY(&x->call_wait) || x->backlog != NULL || !TAILQ_EMPTY(&x->svc_wait) ||
	       x->svc_done != NULL || (x->xchar_on && x->xs.rbsiz_target != 0);
}

int rpcrdma_xprt_poll(struct rpcrdma_xprt *x)
{
	struct rpcrdma_pmd_wc wc[XPRT_BURST];
	uint16_t n = 0, i;

	if (x->grp != NULL)
		return rpcrdma_xprt_group_poll(x->grp);
	xprt_poll_begin(x);
	if (x->qp != NULL) {
		n = rpcrdma_pmd_poll_cq_burst(x->cq, wc, XPRT_BURST);
		/* the first line of each message received: decoded next */
		for (i = 0; i < n; i++) {
			const struct xprt_wr *t = (const struct xprt_wr *)(uintptr_t)wc[i].wr_id;

			if (t->type == WR_RECV)
				rte_prefetch0(((const struct xprt_rx *)t->owner)->buf);
		}
		for (i = 0; i < n; i++)
			xprt_handle_wc(x, &wc[i]);
	}
	xprt_poll_end(x, n);
	return x->work;
}

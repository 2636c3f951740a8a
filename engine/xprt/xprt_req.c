/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The requester: calls sent and their replies matched (rpcrdma_xprt.h,
 * "calls").
 *
 * A call takes a slot and a credit (rfc5666bis 4.3: never more calls out
 * than granted; a call that times out after its Send keeps its credit
 * until its late reply), exposes its chunks (rfc5666bis 4.4; registered per
 * call or from the pools' regions), goes as a Short, Chunked or Long
 * message (rfc5666bis 5.3), waits for the reply or an RDMA_ERROR
 * (rfc5666bis 5.5) or its timeout, and completes once. In version 2 the
 * same with RDMA2_MSG and rdma_direction (v2 draft 5, 5.1, 5.2). Calls that
 * wait for a reconnect are sent again with their XIDs. The backward
 * direction's calls (RFC 8167: a server calling its client) use the same
 * slots: bc_may_call, bc_set_ready, and adopting a lost connection's
 * backward calls on a new one.
 */

#include "xprt_int.h"

/* ------------------------------------------------------------ requester */

/* An accepted reply with an empty verifier: xid REPLY MSG_ACCEPTED flavor 0 accept_stat. */
void xprt_put_accepted_words(uint8_t *p, uint32_t xid, uint32_t flavor, uint32_t accept_stat)
{
	rpcrdma_wire_put32(p, 0, xid);
	rpcrdma_wire_put32(p, 1, RPCRDMA_RPC_REPLY);
	rpcrdma_wire_put32(p, 2, RPCRDMA_RPC_MSG_ACCEPTED);
	rpcrdma_wire_put32(p, 3, flavor);
	rpcrdma_wire_put32(p, 4, 0);
	rpcrdma_wire_put32(p, 5, accept_stat);
}

int rpcrdma_xprt_put_rpc(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_rpc_msg *msg)
{
	uint32_t room = xdr->mem.len - xdr->len;
	uint8_t *p = (uint8_t *)xdr->mem.addr + xdr->len;
	int n;

	/*
	 * The reply of nearly every call: xid REPLY MSG_ACCEPTED flavor 0
	 * SUCCESS, six words (rpcrdma_rpc_encode() has the call's fast path;
	 * this is the same bytes as its full encoder writes).
	 */
	if (msg->type == RPCRDMA_RPC_REPLY && msg->reply.stat == RPCRDMA_RPC_MSG_ACCEPTED &&
	    msg->reply.verf.len == 0 && msg->reply.accept_stat == RPCRDMA_RPC_SUCCESS &&
	    room >= 24) {
		xprt_put_accepted_words(p, msg->xid, msg->reply.verf.flavor, RPCRDMA_RPC_SUCCESS);
		n = 24;
		goto written;
	}
	n = rpcrdma_rpc_encode(msg, p, room);
	if (n < 0)
		return n;
written:
	if ((uint32_t)n > RPCRDMA_XDR_POS_MAX - xdr->pos)
		return -ENOSPC;
	xdr->len += (uint32_t)n;
	xdr->pos += (uint32_t)n;
	return 0;
}

int rpcrdma_xprt_call_put_header(struct rpcrdma_xprt_call *call, uint32_t prog, uint32_t vers,
				 uint32_t proc)
{
	uint8_t *p;

	if (call->state != CALL_BUILDING)
		return -EINVAL;
	p = rpcrdma_xdr_reserve(&call->enc, 40);
	if (p == NULL)
		return -ENOSPC;
	/* xid CALL 2 prog vers proc AUTH_NONE 0 AUTH_NONE 0 */
	rpcrdma_wire_put32(p, 0, call->xid);
	rpcrdma_wire_put32(p, 1, RPCRDMA_RPC_CALL);
	rpcrdma_wire_put32(p, 2, RPCRDMA_RPC_VERS);
	rpcrdma_wire_put32(p, 3, prog);
	rpcrdma_wire_put32(p, 4, vers);
	rpcrdma_wire_put32(p, 5, proc);
	memset(p + 24, 0, 16);
	return 0;
}

int rpcrdma_xprt_get_rpc(struct rpcrdma_xdr_dec *dec, struct rpcrdma_rpc_msg *msg)
{
	const struct rpcrdma_xdr_piece *pc;
	const void *p;
	int ret;

	if (dec->cur >= dec->npieces)
		return -RPCRDMA_E_TRUNC;
	pc = &dec->pieces[dec->cur];
	if (dec->off > pc->len)
		return -RPCRDMA_E_TRUNC;
	ret = rpcrdma_rpc_decode(msg, pc->p + dec->off, pc->len - dec->off);
	if (ret < 0)
		return ret;
	if (!pc->chunk && (uint32_t)ret <= pc->len - dec->off) {
		/* within an inline piece (its span is its length): the cursor just moves */
		dec->off += (uint32_t)ret;
		return 0;
	}
	if (rpcrdma_xdr_get_opaque_fixed(dec, (uint32_t)ret, &p) != 0)
		return -RPCRDMA_E_CHUNK_POS;
	return 0;
}

int rpcrdma_xprt_reply_rpc(struct rpcrdma_xdr_dec *reply, uint32_t xid, struct rpcrdma_rpc_msg *msg)
{
	int ret;

	ret = rpcrdma_xprt_get_rpc(reply, msg);
	if (ret)
		return ret;
	if (msg->type != RPCRDMA_RPC_REPLY || msg->xid != xid)
		return -EBADMSG;
	if (msg->reply.stat == RPCRDMA_RPC_MSG_ACCEPTED) {
		if (msg->reply.accept_stat == RPCRDMA_RPC_SUCCESS)
			return 0;
		if (msg->reply.accept_stat <= RPCRDMA_RPC_SYSTEM_ERR)
			return -(RPCRDMA_XPRT_E_RPC_BASE + (int)msg->reply.accept_stat);
		return -RPCRDMA_XPRT_E_ACCEPT_OTHER;
	}
	/* the decoder accepts only MSG_ACCEPTED and MSG_DENIED's two kinds */
	return msg->reply.reject_stat == RPCRDMA_RPC_RPC_MISMATCH ? -RPCRDMA_XPRT_E_RPC_MISMATCH
								  : -RPCRDMA_XPRT_E_AUTH_ERROR;
}

void rpcrdma_xprt_prefetch(const struct rpcrdma_xprt *x)
{
	if (x != NULL)
		xprt_prefetch(x, false); /* for its next call */
}

void rpcrdma_xprt_prefetch_call(const struct rpcrdma_xprt *x)
{
	const struct rpcrdma_xprt_call *c = x != NULL ? xprt_call_next(x) : NULL;

	if (c == NULL)
		return;
	/*
	 * The lines of the next slot that rpcrdma_xprt_call_alloc() writes;
	 * a group's slot is the one its last call freed, warm.
	 */
	if (!x->calls_shared) {
		for (unsigned int i = 0; i < 4; i++)
			rte_prefetch0((const uint8_t *)c + i * RTE_CACHE_LINE_SIZE);
		rte_prefetch0((const uint8_t *)&c->enc + sizeof(c->enc) - 1);
		rte_prefetch0(&c->spec); /* long_buf is on its first line */
	}
	xprt_prefetch_send(x, false); /* what the submit stages */
	if (x->qp != NULL)
		rpcrdma_pmd_qp_prefetch(x->qp); /* and what its doorbell reads of the QP */
}

void rpcrdma_xprt_prefetch_send(const struct rpcrdma_xprt *x)
{
	const struct rpcrdma_xprt_call *c = x != NULL ? xprt_call_next(x) : NULL;

	/* read from the lines the step before loaded: none is waited for */
	if (c == NULL)
		return;
	/* the message the call writes (a group's buffer is warm, and not the slot's) */
	if (c->msg_buf != NULL)
		__builtin_prefetch(c->msg_buf, 1);
	if (x->qp != NULL)
		rpcrdma_pmd_qp_prefetch_doorbell(x->qp); /* what its doorbell touches */
}

int rpcrdma_xprt_call_alloc(struct rpcrdma_xprt *x, struct rpcrdma_xprt_call **callp)
{
	struct rpcrdma_xprt_call *c = *xprt_call_freep(x);
	void *buf;

	if (x->ncalls == 0)
		return -EOPNOTSUPP; /* a server without backward calls (bk_credits 0) */
	if (x->calls_busy >= x->calls_max)
		return -EBUSY;
	if (c == NULL) {
		if (x->calls_shared)
			x->grp->st.slots_short++;
		return -EBUSY;
	}
	buf = c->msg_buf;
	/* in a group, the buffer its last call released (xprt_call_free_slot()) */
	if (buf == NULL && x->grp != NULL)
		buf = xprt_buf_pop(&x->grp->buf_free);
	if (buf == NULL)
		buf = rpcrdma_mempool_get(x->ipool);
	if (buf == NULL)
		return -ENOBUFS;
	*xprt_call_freep(x) = c->next_free;
	x->calls_busy++;
	if (x->calls_shared) {
		x->grp->calls_busy++;
		if (c->xprt != x) {
			/* another connection's before: what it remembers of its late reply goes */
			c->xprt = x;
			c->tmo_late = c->tmo_credit = false;
		}
	}
	c->state = CALL_BUILDING;
	c->msg_buf = buf;
	c->xid = (x->xid_seq++ << x->call_shift) | (uint32_t)(c - x->calls);
	c->flags = 0;
	c->status = 0;
	c->queued = c->send_done = c->lost = c->stalled = c->has_credit = c->replied = false;
	c->fast = c->resend = false;
	c->timeout = x->call_timeout;
	c->rx = NULL;
	c->nmrs = 0;
	inline_stream(&c->enc, x->ipool, buf);
	/* what marshaling reads of the spec (not ddp[] beyond nddp: no memset per call) */
	c->spec.max_len = 0;
	c->spec.nddp = 0;
	c->spec.long_buf = (struct rpcrdma_xdr_region){ 0 };
	*callp = c;
	return 0;
}

uint32_t rpcrdma_xprt_call_xid(const struct rpcrdma_xprt_call *call)
{
	return call->xid;
}

struct rpcrdma_xdr_enc *rpcrdma_xprt_call_enc(struct rpcrdma_xprt_call *call)
{
	return &call->enc;
}

struct rpcrdma_xdr_reply_spec *rpcrdma_xprt_call_reply_spec(struct rpcrdma_xprt_call *call)
{
	return &call->spec;
}

static void call_wait(struct rpcrdma_xprt_call *c)
{
	if (!c->queued) {
		TAILQ_INSERT_TAIL(&c->xprt->call_wait, c, link);
		c->queued = true;
		c->waited = true;
	}
}

/* Out of the wait FIFO, if it is there. */
void xprt_call_unwait(struct rpcrdma_xprt_call *c)
{
	if (c->queued) {
		TAILQ_REMOVE(&c->xprt->call_wait, c, link);
		c->queued = false;
	}
}

int rpcrdma_xprt_call_set_timeout(struct rpcrdma_xprt_call *c, uint64_t timeout_us)
{
	if (c->state != CALL_BUILDING)
		return -EINVAL;
	c->timeout = us_to_tsc(timeout_us);
	return 0;
}

/*
 * The timeout list is kept in deadline order. Calls mostly share one
 * timeout, so a new deadline is the latest: the insertion walks back from
 * the tail and stops at once. The poll reads the TSC only while the list
 * is not empty, and compares it with the first deadline.
 */
static void tmo_add(struct rpcrdma_xprt *x, struct rpcrdma_xprt_call *c, uint64_t deadline)
{
	struct rpcrdma_xprt_call *p;

	c->deadline = deadline;
	c->timed = true;
	TAILQ_FOREACH_REVERSE(p, &x->tmo_list, call_fifo, tmo_link)
	{
		if (p->deadline <= deadline) {
			TAILQ_INSERT_AFTER(&x->tmo_list, p, c, tmo_link);
			goto first;
		}
	}
	TAILQ_INSERT_HEAD(&x->tmo_list, c, tmo_link);
first:
	x->tmo_next = TAILQ_FIRST(&x->tmo_list)->deadline;
}

static void tmo_del(struct rpcrdma_xprt *x, struct rpcrdma_xprt_call *c)
{
	struct rpcrdma_xprt_call *f;

	if (!c->timed)
		return;
	TAILQ_REMOVE(&x->tmo_list, c, tmo_link);
	c->timed = false;
	f = TAILQ_FIRST(&x->tmo_list);
	x->tmo_next = f != NULL ? f->deadline : UINT64_MAX;
}

int rpcrdma_xprt_call_submit(struct rpcrdma_xprt_call *c, uint32_t flags, rpcrdma_xprt_call_cb_t cb,
			     void *arg)
{
	struct rpcrdma_xprt *x = c->xprt;

	if (c->state != CALL_BUILDING)
		return -EINVAL;
	c->flags = flags | x->call_flags; /* a reconnecting client's: RETRANSMIT */
	c->cb = cb;
	c->arg = arg;
	c->state = CALL_NEED_CREDIT;
	c->waited = false;
	if (c->timeout)
		tmo_add(x, c, rte_rdtsc() + c->timeout);
	if (TAILQ_EMPTY(&x->call_wait))
		xprt_call_process(c);
	else
		call_wait(c);
	xprt_kick(x); /* its Send is staged, or it waits: the group's next poll goes on */
	return 0;
}

void xprt_call_free_slot(struct rpcrdma_xprt_call *c)
{
	struct rpcrdma_xprt *x = c->xprt;

	/*
	 * The slot keeps its message buffer for its next call (xprt_free()
	 * returns it); in a group, the group's next call takes it, of any
	 * connection: warm, where this slot's next call may come a round of
	 * the group's connections later.
	 */
	if (x->grp != NULL && c->msg_buf != NULL) {
		xprt_buf_push(&x->grp->buf_free, c->msg_buf);
		c->msg_buf = NULL;
	}
	c->state = CALL_FREE;
	c->next_free = *xprt_call_freep(x);
	*xprt_call_freep(x) = c;
	x->calls_busy--;
	if (x->calls_shared)
		x->grp->calls_busy--;
}

int rpcrdma_xprt_call_test(struct rpcrdma_xprt_call *c, struct rpcrdma_xdr_dec **reply)
{
	if (c->state == CALL_BUILDING || c->state == CALL_FREE || c->state == CALL_RETIRING)
		return -EINVAL;
	if (c->state != CALL_DONE)
		return -EINPROGRESS;
	if (reply != NULL)
		*reply = c->status ? NULL : &c->dec;
	return c->status;
}

int rpcrdma_xprt_call_wait(struct rpcrdma_xprt_call *c, struct rpcrdma_xdr_dec **reply)
{
	int ret;

	while ((ret = rpcrdma_xprt_call_test(c, reply)) == -EINPROGRESS)
		rpcrdma_xprt_poll(c->xprt);
	return ret;
}

int rpcrdma_xprt_call_release(struct rpcrdma_xprt_call *c)
{
	struct rpcrdma_xprt *x = c->xprt;

	if (c->state != CALL_DONE && c->state != CALL_BUILDING)
		return -EBUSY;
	if (c->rx != NULL) {
		rx_put(x, c->rx);
		c->rx = NULL;
	}
	if (c->tmo_late && c->tmo_xid == c->xid && !c->send_done) {
		/*
		 * Timed out before its Send retired: the PMD may still read the
		 * message buffer, so the slot waits for the retirement
		 * (xprt_sq_complete()) before anyone writes into it again.
		 */
		c->state = CALL_RETIRING;
		return 0;
	}
	xprt_call_free_slot(c);
	return 0;
}

/* Register one region of a call as its own MR, and name it by the new rkey. */
int xprt_expose(struct rpcrdma_xprt_call *c, struct rpcrdma_xdr_region *r, uint32_t access)
{
	struct rpcrdma_pmd_mr *mr;
	int ret;

	if (r->len == 0 || c->nmrs == RPCRDMA_MARSHAL_MAX_EXPOSE)
		return r->len == 0 ? 0 : -E2BIG;
	ret = rpcrdma_pmd_mr_reg(c->xprt->p.pd, r->addr, r->len, access, -1, 0, &mr);
	if (ret)
		return ret == -ENOSPC ? -ENOMEM : ret;
	c->mrs[c->nmrs++] = mr;
	c->xprt->st.mr_regs++;
	r->rkey = mr->rkey;
	return 0;
}

/* Invalidate every registration of a call, but the one the responder invalidated. */
static void unexpose(struct rpcrdma_xprt_call *c)
{
	struct rpcrdma_xprt *x = c->xprt;
	uint16_t i;

	for (i = 0; i < c->nmrs; i++) {
		struct rpcrdma_pmd_mr *mr = c->mrs[i];

		if (!(c->rx != NULL && c->rx->inv && c->rx->inv_rkey == mr->rkey)) {
			rpcrdma_pmd_mr_invalidate(x->p.pd, mr->rkey);
			x->st.mr_invalidates++;
		}
		rpcrdma_pmd_mr_dereg(mr);
	}
	c->nmrs = 0;
}

/*
 * Marshal a call. With per-call exposure, a first pass with the pools' keys
 * says which buffers the form exposes; they are registered, and the call is
 * marshaled again naming them by their own rkeys.
 */
static int call_marshal(struct rpcrdma_xprt_call *c)
{
	struct rpcrdma_xprt *x = c->xprt;
	const uint32_t rd = RPCRDMA_PMD_ACCESS_REMOTE_READ;
	const uint32_t wr = RPCRDMA_PMD_ACCESS_REMOTE_WRITE | RPCRDMA_PMD_ACCESS_LOCAL_WRITE;
	struct rpcrdma_marshal_call_args a;
	struct rpcrdma_xdr_reply_spec spec;
	struct rpcrdma_xdr_enc enc;
	uint16_t i;
	int ret;

	a.xid = c->xid;
	a.credit = rpcrdma_credit_req_request(&x->creq);
	a.xdr = &c->enc;
	a.reply = &c->spec;
	a.hdr_buf = c->hdr;
	ret = rpcrdma_marshal_call(xprt_call_mconn(x), &a, &c->plan);
	if (ret || c->plan.nexpose == 0 || !(x->p.flags & RPCRDMA_XPRT_F_PER_CALL_MR))
		return ret;
	enc = c->enc;
	spec = c->spec;
	if (c->plan.form != RPCRDMA_MARSHAL_SHORT)
		for (i = 0; i < enc.nddp && ret == 0; i++)
			ret = xprt_expose(c, &enc.ddp[i].data, rd);
	if (c->plan.form == RPCRDMA_MARSHAL_LONG && ret == 0) {
		struct rpcrdma_xdr_region m = enc.mem;

		m.len = enc.len;
		ret = xprt_expose(c, &m, rd);
		enc.mem.rkey = m.rkey;
	}
	for (i = 0; i < spec.nddp && ret == 0; i++)
		ret = xprt_expose(c, &spec.ddp[i], wr);
	if (c->plan.long_reply && ret == 0)
		ret = xprt_expose(c, &spec.long_buf, wr);
	if (ret)
		return ret;
	a.xdr = &enc;
	a.reply = &spec;
	return rpcrdma_marshal_call(xprt_call_mconn(x), &a, &c->plan);
}

/*
 * A Short call without chunks: no DDP-eligible argument or result, and the
 * largest reply fits inline behind a Short header (so no reply chunk). The
 * header is written into the slot's area and the plan holds only the
 * gather list; false for every other call (rpcrdma_marshal_call()).
 */
static bool call_short(struct rpcrdma_xprt_call *c)
{
	struct rpcrdma_xprt *x = c->xprt;
	uint32_t hl = short_hdr_size(x->vers);

	if (c->enc.nddp || c->spec.nddp ||
	    hl + (uint64_t)c->spec.max_len > xprt_call_mconn(x)->recv_inline ||
	    hl + (uint64_t)c->enc.len > xprt_call_mconn(x)->send_inline ||
	    !inline_stream_is(&c->enc, c->msg_buf))
		return false;
	short_sgl(c->fsge, &c->enc, x->vers, RPCRDMA_CALL, c->xid,
		  rpcrdma_credit_req_request(&x->creq));
	return true;
}

/*
 * CALL_NEED_CREDIT while the version is not settled: may this call go?
 * @return 1: it is the version 2 probe (v2 draft 5); 0: wait, the probe is
 *   out; a negative status to fail it with (the peer supports no version
 *   we speak).
 */
static int call_vers_check(struct rpcrdma_xprt *x)
{
	int v = rpcrdma_vers_req_send_vers(&x->vreq);

	if (v == -EAGAIN)
		return 0;
	if (v < 0)
		return v == -ENOTCONN ? -ENOTCONN : -EPROTONOSUPPORT;
	return 1;
}

void xprt_call_fail(struct rpcrdma_xprt_call *c, int status)
{
	if (c->status == 0)
		c->status = status;
}

/*
 * A call's way to the wire: the connection up, the peer ready for it (a
 * backward call) or the version settled (a client's), send-queue room, a
 * receive reserved for its reply (a client in a group) and a credit.
 * @return true: it holds its credit (CALL_READY next); false: it waits in
 * the FIFO, or completed with an error (CALL_COMPLETE).
 */
static bool call_take_credit(struct rpcrdma_xprt_call *c)
{
	struct rpcrdma_xprt *x = c->xprt;
	int ret;

	if (x->state != RPCRDMA_XPRT_ESTABLISHED) {
		if ((x->state == RPCRDMA_XPRT_CONNECTING || x->state == RPCRDMA_XPRT_NEGOTIATING) ||
		    (c->flags & RPCRDMA_XPRT_CALL_F_RETRANSMIT)) {
			call_wait(c);
			return false;
		}
		/* submitted while connected: the connection was lost under it */
		xprt_call_fail(c, c->waited ? -ECONNRESET : -ENOTCONN);
		c->state = CALL_COMPLETE;
		return false;
	}
	if (unlikely(!x->client)) {
		/* a backward call: only to a client that said it is ready */
		ret = rpcrdma_xprt_bc_may_call(x);
		if (ret == -ECONNREFUSED && c->resend) {
			/* adopted from a lost connection: wait until ready */
			call_wait(c);
			return false;
		}
		if (ret) {
			x->st.bc_refused++;
			xprt_call_fail(c, ret);
			c->state = CALL_COMPLETE;
			return false;
		}
	} else if (unlikely(!x->vers_settled)) {
		ret = call_vers_check(x);
		if (ret < 0) {
			xprt_call_fail(c, ret);
			c->state = CALL_COMPLETE;
			return false;
		}
		if (ret == 0) {
			call_wait(c);
			return false;
		}
	}
	if (!sq_room(x, 1)) {
		call_wait(c);
		return false;
	}
	if (rpcrdma_credit_req_acquire(&x->creq) != 0) {
		if (!c->stalled)
			x->st.credit_stalls++;
		c->stalled = true;
		call_wait(c);
		return false;
	}
	/*
	 * A receive for every outstanding call's reply (the poll reposts
	 * lazily); a server in a group reserves one of the SRQ beyond its
	 * grant's.
	 */
	if (x->rx_posted < x->creq.outstanding || (x->grp != NULL && !x->client)) {
		xprt_post_recvs(x);
		/*
		 * A client in a group goes only with a receive of the SRQ
		 * reserved for its reply: the group's recvs may be fewer than
		 * its clients' calls (rpcrdma_xprt.h, "Poll groups"), and a
		 * reply without one would take the SRQ's spare, or find none
		 * (RNR). Its floor is always there: one call can always go.
		 */
		if (unlikely(x->grp != NULL && x->client && x->rx_posted < x->creq.outstanding)) {
			rpcrdma_credit_req_release(&x->creq);
			if (!c->stalled)
				x->st.reserve_stalls++;
			c->stalled = true;
			call_wait(c);
			return false;
		}
	}
	c->has_credit = true;
	if (x->creq.outstanding > x->st.max_outstanding)
		x->st.max_outstanding = x->creq.outstanding;
	c->state = CALL_READY;
	return true;
}

void xprt_call_process(struct rpcrdma_xprt_call *c)
{
	struct rpcrdma_xprt *x = c->xprt;
	struct rpcrdma_pmd_send_wr *wr;
	enum call_state prev;
	int ret;

	do {
		prev = c->state;
		switch (c->state) {
		case CALL_NEED_CREDIT:
			if (!call_take_credit(c))
				break;
			/* fall through */
		case CALL_READY:
			c->fast = call_short(c);
			ret = c->fast ? 0 : call_marshal(c);
			/* a probe only while unsettled: a settled call never reads vreq's line */
			if (unlikely(!x->vers_settled && x->vreq.state == RPCRDMA_VERS_REQ_PROBE) &&
			    ret == 0) {
				/* the probe: nothing else goes until it is answered */
				ret = rpcrdma_vers_req_sent(&x->vreq, c->xid,
							    c->fast ? c->fsge[0].length
								    : c->plan.send_len);
				x->st.vers_probes += ret == 0;
			}
			if (ret) {
				xprt_call_fail(c, ret);
				c->state = CALL_COMPLETE;
				break;
			}
			c->send_seq = x->sq_head;
			wr = stage(x, WR_CALL_SEND, c, false);
			wr->opcode = RPCRDMA_PMD_WR_SEND;
			c->send_done = false;
			c->replied = false;
			c->lost = false;
			x->st.calls++;
			c->state = CALL_SENT;
			if (c->fast) {
				/* the plan is not touched: its lines stay cold */
				wr->sg_list = (const struct rpcrdma_pmd_sge *)c->fsge;
				wr->num_sge = 1;
				x->st.short_msgs++;
				break;
			}
			wr->sg_list = (const struct rpcrdma_pmd_sge *)c->plan.sge;
			wr->num_sge = c->plan.nsge;
			if (c->plan.form == RPCRDMA_MARSHAL_SHORT)
				x->st.short_msgs++;
			else if (c->plan.form == RPCRDMA_MARSHAL_CHUNKED)
				x->st.chunked_msgs++;
			else
				x->st.long_msgs++;
			x->st.long_replies += c->plan.long_reply;
			break;
		case CALL_SENT:
			/*
			 * A reply proves the responder received the Send: the
			 * call completes without waiting for the Send to retire
			 * (unsignaled), and the slot may send again; its message
			 * buffer is registered for the connection's life, so a
			 * Send still retransmitting from it is harmless (Linux
			 * xprtrdma waits only for Sends of DMA-mapped pages).
			 * Without a reply, the Send's retirement (flushed, or
			 * behind the drain marker) ends the call.
			 */
			if (!c->replied && !(c->send_done && (c->status || c->lost)))
				break;
			c->state = CALL_COMPLETE;
			/* fall through */
		case CALL_COMPLETE:
			unexpose(c);
			if (c->has_credit) {
				rpcrdma_credit_req_release(&x->creq);
				c->has_credit = false;
			}
			if (c->lost && !c->replied && c->status == 0) {
				if (c->flags & RPCRDMA_XPRT_CALL_F_RETRANSMIT) {
					/* its deadline still runs while it waits */
					c->state = CALL_PARKED;
					c->resend = true;
					call_wait(c);
					break;
				}
				c->status = -ECONNRESET;
			}
			tmo_del(x, c);
			if (c->status) {
				x->st.failed++;
				if (c->rx != NULL) {
					rx_put(x, c->rx);
					c->rx = NULL;
				}
			}
			c->state = CALL_DONE;
			x->work++;
			/* the callback may release the call: touch nothing after it */
			if (c->cb != NULL)
				c->cb(c->arg, c, c->status, c->status ? NULL : &c->dec);
			return;
		case CALL_PARKED:
			if (x->state != RPCRDMA_XPRT_ESTABLISHED) {
				call_wait(c);
				break;
			}
			x->st.retransmits++;
			c->stalled = false;
			c->state = CALL_NEED_CREDIT;
			break;
		default:
			return;
		}
	} while (c->state != prev);
}

/* Run the calls waiting for the connection, a credit or SQ room, in order. */
void xprt_call_run_waiters(struct rpcrdma_xprt *x)
{
	struct rpcrdma_xprt_call *c;
	uint32_t n = x->ncalls;

	while (n-- > 0 && (c = TAILQ_FIRST(&x->call_wait)) != NULL) {
		TAILQ_REMOVE(&x->call_wait, c, link);
		c->queued = false;
		xprt_call_process(c);
		if (c->queued) {
			/* still waiting: keep it first, FIFO */
			TAILQ_REMOVE(&x->call_wait, c, link);
			TAILQ_INSERT_HEAD(&x->call_wait, c, link);
			break;
		}
		x->work++;
	}
}

/*
 * Time out every call whose deadline has passed: it completes with
 * -ETIMEDOUT from any state it waits in. A call waiting for a credit or
 * a reconnect leaves the wait FIFO (it holds nothing). A call already sent
 * is still outstanding at the responder, which may answer it yet: it keeps
 * its credit (rfc5666bis 4.3: never more calls outstanding than granted)
 * until its late reply comes, which is counted (late_replies), gives the
 * credit back and is dropped. Its registrations are invalidated (a late
 * RDMA Write into them fails on the responder). When timed-out calls hold
 * the whole grant, nothing can be sent again on the connection: a client
 * disconnects (tmo_disconnects), as Linux xprtrdma does on a timeout,
 * and the next connection starts with the window empty.
 */
void xprt_call_timeouts(struct rpcrdma_xprt *x)
{
	uint64_t now = rte_rdtsc();
	struct rpcrdma_xprt_call *c;
	bool probe_lost = false;

	while (now >= x->tmo_next) {
		c = TAILQ_FIRST(&x->tmo_list);
		tmo_del(x, c);
		xprt_call_unwait(c);
		x->st.timeouts++;
		xprt_call_fail(c, -ETIMEDOUT);
		if (c->state == CALL_SENT) {
			if (c->has_credit) {
				/*
				 * the credit stays taken until the late reply; an older
				 * timed-out call of this slot whose reply never came keeps
				 * its own in tmo_credits (its XID is forgotten)
				 */
				c->has_credit = false;
				c->tmo_credit = true;
				x->tmo_credits++;
			}
			c->tmo_xid = c->xid;
			c->tmo_late = true;
			probe_lost = probe_lost || (x->vreq.state == RPCRDMA_VERS_REQ_PROBE_SENT &&
						    c->xid == x->vreq.probe_xid);
		}
		c->state = CALL_COMPLETE;
		x->work++;
		xprt_call_process(c);
	}
	/*
	 * The version 2 probe went unanswered: nothing else could ever be
	 * sent on this connection. It is dropped, and the peer is taken not
	 * to speak version 2 (v2 draft 5.2: "if the initial negotiation
	 * message is lost or dropped"): the next connection starts in
	 * version 1, and calls marked RETRANSMIT go again there.
	 */
	if (unlikely(probe_lost)) {
		xprt_conn_lost(x);
	} else if (x->tmo_credits != 0 && x->tmo_credits >= x->creq.grant && x->client) {
		x->st.tmo_disconnects++;
		xprt_conn_lost(x);
	}
}

/* A reply's status from an RDMA_ERROR. */
static int error_status(const struct rpcrdma_hdr *h)
{
	return h->error.code == RPCRDMA_ERR_VERS ? -EPROTONOSUPPORT : -EREMOTEIO;
}

/*
 * The answer to the version 2 probe (v2 draft 5.1, 5.2), decoded without
 * error: settle the version.
 * @return 0: go on with the reply; 1: the call is sent again in version 1
 *   (the answer was ERR_VERS) and rx is consumed; a negative status to
 *   complete the call with.
 */
static int client_probe_answer(struct rpcrdma_xprt *x, struct rpcrdma_xprt_call *c,
			       struct xprt_rx *rx, const struct rpcrdma_hdr *h)
{
	switch (rpcrdma_vers_req_recv(&x->vreq, h)) {
	case RPCRDMA_VERS_REQ_EV_V2:
		xprt_vers_settle(x, RPCRDMA_VERS_2);
		xprt_xchar_start(x); /* our ROPT_INITXCH before any other call */
		return 0;
	case RPCRDMA_VERS_REQ_EV_RESEND_V1:
		/*
		 * Version 1 on this connection, the same call again with its
		 * XID and its credit: the grant stays 1 until a reply that is
		 * not an error (v2 draft 5). The responder has the probe, so
		 * its buffer may be written again (as in CALL_SENT).
		 */
		x->st.errors_recv++;
		x->st.vers_fallbacks++;
		xprt_xchar_stop(x);
		xprt_vers_settle(x, RPCRDMA_VERS_1);
		rx_put(x, rx);
		unexpose(c);
		c->state = CALL_READY;
		xprt_call_process(c);
		return 1;
	case -EPROTONOSUPPORT:
		/* ERR_VERS without version 1 in its range: nothing can be sent */
		x->st.errors_recv++;
		x->st.err_vers++;
		xprt_xchar_stop(x);
		return -EPROTONOSUPPORT;
	default:
		/*
		 * -EPROTO: a version 1 message, or an answer to nothing we
		 * sent. The probe stays unanswered, so nothing else could be
		 * sent: the caller drops the connection, and the next one
		 * starts in version 1 (v2 draft 5.2, a lost probe).
		 */
		x->st.err_vers++;
		x->st.bad_replies++;
		return -EBADMSG;
	}
}

void xprt_client_recv(struct rpcrdma_xprt *x, struct xprt_rx *rx)
{
	struct rpcrdma_xprt_call *c;
	struct rpcrdma_hdr *h;
	uint32_t xid, hl;
	bool lose = false;
	int ret;

	if (rx->len < RPCRDMA_HDR_FIXED_LEN) {
		x->st.err_hdr++;
		goto drop;
	}
	if (unlikely(rpcrdma_wire_get32(rx->buf, 3) == RPCRDMA_ERROR) &&
	    xprt_xchar_error(x, rx->buf, rx->len))
		goto drop; /* it answered one of our transport characteristics messages */
	xid = rpcrdma_wire_get32(rx->buf, 0);
	c = &x->calls[xid & (x->ncalls - 1)];
	if (c->xprt != x) {
		/* a group's slot another connection has (or none has): not our call's */
		x->st.unmatched++;
		goto drop;
	}
	if (c->tmo_late && c->tmo_xid == xid) {
		/* the reply of a call that timed out: counted and dropped, once; its credit back */
		c->tmo_late = false;
		x->st.late_replies++;
		if (c->tmo_credit) {
			c->tmo_credit = false;
			x->tmo_credits--;
			rpcrdma_credit_req_release(&x->creq);
			x->work++; /* the calls waiting for a credit run in this poll */
		}
		goto drop;
	}
	if (c->xid != xid || c->state != CALL_SENT || c->replied || c->rx != NULL) {
		/* a late, duplicate or forged reply: never fatal */
		x->st.unmatched++;
		goto drop;
	}
	if (c->fast && x->vers_settled &&
	    (hl = x->vers == RPCRDMA_VERS_1
			  ? rx->hlen
			  : short_hdr_len(rx->buf, rx->len, x->vers, RPCRDMA_REPLY)) != 0) {
		/* the reply to a Short call without chunks: inline, nothing to check */
		rpcrdma_xdr_dec_init(&c->dec, (uint8_t *)rx->buf + hl, rx->len - hl);
		rpcrdma_credit_req_update(&x->creq, rpcrdma_wire_get32(rx->buf, 2));
		goto matched;
	}
	h = rpcrdma_hdr_storage_init(&c->rhdr);
	ret = rpcrdma_hdr_decode(h, rx->buf, rx->len);
	if (ret < 0) {
		if (ret == -RPCRDMA_E_VERS)
			x->st.err_vers++;
		else
			x->st.err_hdr++;
		x->st.bad_replies++;
		xprt_call_fail(c, -EBADMSG);
		goto complete;
	}
	if (unlikely(!x->vers_settled && x->vreq.state == RPCRDMA_VERS_REQ_PROBE_SENT)) {
		ret = client_probe_answer(x, c, rx, h);
		if (ret == 1)
			return;
		if (ret < 0) {
			xprt_call_fail(c, ret);
			lose = ret == -EBADMSG;
			goto complete;
		}
	} else if (h->vers != x->vers &&
		   !(h->proc == RPCRDMA_ERROR && h->error.code == RPCRDMA_ERR_VERS)) {
		/*
		 * Replies come in the version of the call (rfc5666bis 5.3);
		 * ERR_VERS may come in version 1 (rpcrdma_vers_resp_recv()).
		 */
		x->st.err_vers++;
		x->st.bad_replies++;
		xprt_call_fail(c, -EBADMSG);
		goto complete;
	}
	switch (h->proc) {
	case RPCRDMA_DONE:
		/*
		 * A requester answers no message (rfc5666bis 5.6.2's ERR_CHUNK
		 * is a responder's, an RDMA_ERROR goes responder to requester):
		 * counted and dropped, the call still waits for its reply.
		 */
		x->st.done_recv++;
		goto drop;
	case RPCRDMA_ERROR:
		x->st.errors_recv++;
		/* an error reports no credit limit while the version is not settled (v2 draft 5) */
		if (x->vers_settled)
			rpcrdma_credit_req_update(&x->creq, h->credit);
		xprt_call_fail(c, error_status(h));
		goto complete;
	case RPCRDMA_MSG:
	case RPCRDMA_NOMSG:
		break;
	default: /* RDMA_MSGP */
		x->st.err_chunk++;
		x->st.bad_replies++;
		xprt_call_fail(c, -EBADMSG);
		goto complete;
	}
	if (c->fast) {
		/*
		 * A call without chunks has no plan to check against: any
		 * chunk, or NOMSG, is bad. A Short reply comes here only when
		 * it settles the version (the probe's).
		 */
		ret = h->proc == RPCRDMA_MSG && h->chunks.nreads == 0 && h->chunks.nwrites == 0 &&
				      !h->chunks.has_reply
			      ? 0
			      : -RPCRDMA_E_CHUNK_OFFER;
		if (ret == 0)
			rpcrdma_xdr_dec_init(&c->dec, (uint8_t *)rx->buf + h->hdr_len,
					     rx->len - h->hdr_len);
	} else {
		ret = rpcrdma_marshal_call_reply(&c->plan, h, (uint8_t *)rx->buf + h->hdr_len,
						 rx->len - h->hdr_len, &c->dec);
	}
	if (ret) {
		x->st.bad_replies++;
		x->st.err_chunk++;
		xprt_call_fail(c, -EBADMSG);
		goto complete;
	}
	rpcrdma_credit_req_update(&x->creq, h->credit);
matched:
	x->st.replies++;
	if (rx->inv)
		x->st.send_inv++; /* on the counters' second line: not written by every reply */
complete:
	c->rx = rx;
	c->replied = true;
	xprt_call_process(c);
	if (unlikely(lose))
		xprt_conn_lost(x);
	return;
drop:
	rx_put(x, rx);
}

/* ------------------------------------------------------------ backward direction */

int rpcrdma_xprt_bc_may_call(const struct rpcrdma_xprt *x)
{
	if (x->client || x->ncalls == 0)
		return -EOPNOTSUPP;
	if (x->state != RPCRDMA_XPRT_ESTABLISHED)
		return -ENOTCONN;
	/* no forward call yet: the client has said nothing, not even its version */
	if (!x->vers_settled)
		return -ECONNREFUSED;
	/* version 2: its Backward Request Support (xcharext 3.3) */
	if (x->vers == RPCRDMA_VERS_2 && x->xchar_on && x->xs.peer_init)
		return x->xs.peer.brs == RPCRDMA_BKREQSUP_NONE ? -ECONNREFUSED : 0;
	/* version 1 (and version 2 without the extension): the upper layer knows (2.2.3) */
	return x->bc_ready ? 0 : -ECONNREFUSED;
}

int rpcrdma_xprt_bc_set_ready(struct rpcrdma_xprt *x, bool ready)
{
	if (x->client || x->ncalls == 0)
		return -EOPNOTSUPP;
	x->bc_ready = ready;
	return 0;
}

/* Take a given slot out of the free list. */
static void call_take_slot(struct rpcrdma_xprt *x, struct rpcrdma_xprt_call *c)
{
	struct rpcrdma_xprt_call **pp = xprt_call_freep(x);

	while (*pp != c)
		pp = &(*pp)->next_free;
	*pp = c->next_free;
	x->calls_busy++;
}

/* A call waits for a reconnect: parked, or not sent yet with RETRANSMIT. */
bool xprt_call_waits_reconnect(const struct rpcrdma_xprt_call *c)
{
	return c->state == CALL_PARKED ||
	       (c->state == CALL_NEED_CREDIT && (c->flags & RPCRDMA_XPRT_CALL_F_RETRANSMIT));
}

int rpcrdma_xprt_bc_adopt(struct rpcrdma_xprt *to, struct rpcrdma_xprt *from)
{
	uint32_t i;
	int n = 0;

	if (to == from || to->p.role != RPCRDMA_XPRT_SERVER ||
	    from->p.role != RPCRDMA_XPRT_SERVER || to->ncalls == 0 || to->ncalls != from->ncalls)
		return -EINVAL;
	if (from->state != RPCRDMA_XPRT_CLOSED && from->state != RPCRDMA_XPRT_ERROR)
		return -EBUSY;
	for (i = 0; i < from->ncalls; i++)
		if (xprt_call_waits_reconnect(&from->calls[i]) && to->calls[i].state != CALL_FREE)
			return -EBUSY; /* its XID's slot is taken on the new connection */
	for (i = 0; i < from->ncalls; i++) {
		struct rpcrdma_xprt_call *o = &from->calls[i], *c = &to->calls[i];
		void *buf;

		if (!xprt_call_waits_reconnect(o))
			continue;
		xprt_call_unwait(o);
		call_take_slot(to, c);
		/* the slot index is the XID's low bits: the same XID goes again (2.3) */
		buf = c->msg_buf;
		c->msg_buf = o->msg_buf;
		o->msg_buf = buf;
		c->xid = o->xid;
		c->flags = o->flags;
		c->status = 0;
		c->cb = o->cb;
		c->arg = o->arg;
		c->timeout = o->timeout;
		c->enc = o->enc; /* over the buffer that moved with it */
		c->spec = o->spec;
		c->rx = NULL;
		c->nmrs = 0;
		c->queued = c->send_done = c->lost = c->stalled = c->has_credit = false;
		c->replied = c->fast = c->tmo_late = false;
		c->resend = true;
		c->state = CALL_PARKED;
		if (o->timed) {
			tmo_del(from, o);
			tmo_add(to, c, o->deadline);
		}
		xprt_call_free_slot(o);
		call_wait(c);
		n++;
	}
	return n;
}

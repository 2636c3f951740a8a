/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder: calls received and replies sent (rpcrdma_xprt.h, "svc
 * calls").
 *
 * A received call takes a responder slot (or waits in a FIFO), pulls its
 * read chunks with RDMA Read (rfc5666bis 4.5.3, at most read_depth in
 * flight), is handed to the upper layer (params.recv_call), and its reply
 * goes Short, through write chunks by RDMA Write, or Long through the
 * reply chunk (rfc5666bis 4.5.3), with Send With Invalidate when the peer
 * offered it (RFC 8797). Errors owed to the peer: ERR_VERS and ERR_CHUNK
 * (rfc5666bis 5.5.1, 5.5.2), RDMA_DONE answered ERR_CHUNK (rfc5666bis
 * 5.6.2); version 2's RDMA2_ERROR (v2 draft 4.2.3). A client's responder
 * serves backward calls (RFC 8167 2.2.1). The credit grant each reply
 * carries is the server's side of rfc5666bis 4.3.
 */

#include "xprt_int.h"

/* ------------------------------------------------------------ responder */

const struct rpcrdma_rpc_msg *rpcrdma_xprt_svc_call_msg(const struct rpcrdma_xprt_svc_call *s)
{
	return &s->msg;
}

struct rpcrdma_xdr_dec *rpcrdma_xprt_svc_call_args(struct rpcrdma_xprt_svc_call *s)
{
	return &s->args;
}

struct rpcrdma_xprt *rpcrdma_xprt_svc_call_xprt(const struct rpcrdma_xprt_svc_call *s)
{
	return s->xprt;
}

int rpcrdma_xprt_svc_call_rpc_status(const struct rpcrdma_xprt_svc_call *s)
{
	return s->rpc_ret < 0 ? s->rpc_ret : 0;
}

void *rpcrdma_xprt_svc_call_upper(const struct rpcrdma_xprt_svc_call *s)
{
	return s->upper;
}

void rpcrdma_xprt_svc_call_set_priv(struct rpcrdma_xprt_svc_call *s, void *priv)
{
	s->priv = priv;
}

void *rpcrdma_xprt_svc_call_priv(const struct rpcrdma_xprt_svc_call *s)
{
	return s->priv;
}

/*
 * A call offering a reply chunk longer than the inline buffer holds gets
 * its reply stream in a chunk buffer of the reply chunk's length (at most
 * the largest class), so the reply can be as long as the requester allows
 * (a Long Reply, rfc5666bis 4.5.3). false: no such chunk, or no buffer
 * now; the inline buffer serves, and a longer reply gets -ENOSPC from the
 * stream as before. The slot gives the buffer back at release.
 */
static bool reply_chunk_stream(struct rpcrdma_xprt_svc_call *s)
{
	const struct rpcrdma_chunk_lists *cl = &s->chdr.hdr.chunks;
	struct rpcrdma_mempool_set *set;
	struct rpcrdma_xdr_region reg;
	struct rpcrdma_mempool *pool;
	uint64_t len = 0;
	uint32_t i;
	void *b;

	if (s->fast)
		return false; /* before the params' line is read: every NULL call comes here */
	set = s->xprt->p.pools;
	if (!cl->has_reply || set == NULL || set->nb_classes == 0)
		return false;
	for (i = 0; i < cl->reply.nsegs; i++)
		len += cl->reply.segs[i].length;
	if (len <= s->xprt->ipool->buf_size - XPRT_HDR_ROOM)
		return false;
	pool = rpcrdma_mempool_set_chunk_pool(set, (uint32_t)RTE_MIN(len, (uint64_t)UINT32_MAX));
	if (pool == NULL)
		pool = set->chunk[set->nb_classes - 1];
	b = rpcrdma_mempool_get(pool);
	if (b == NULL) {
		s->xprt->st.reply_buf_short++;
		return false;
	}
	s->long_buf = b;
	s->long_pool = pool;
	reg = xprt_pool_region(pool, b, (uint32_t)RTE_MIN(len, (uint64_t)pool->buf_size));
	rpcrdma_xdr_enc_init(&s->reply, &reg);
	return true;
}

struct rpcrdma_xdr_enc *rpcrdma_xprt_svc_call_reply_enc(struct rpcrdma_xprt_svc_call *s)
{
	struct rpcrdma_mempool *pool = s->xprt->ipool;

	if (!s->has_reply && reply_chunk_stream(s)) {
		s->has_reply = true;
		return &s->reply;
	}
	if (!s->has_reply) {
		if (s->reply_buf == NULL)
			s->reply_buf = xprt_buf_pop(s->xprt->rbuf_freep);
		if (s->reply_buf == NULL)
			s->reply_buf = rpcrdma_mempool_get(pool);
		if (s->reply_buf == NULL)
			return NULL;
		s->has_reply = true;
		inline_stream(&s->reply, pool, s->reply_buf);
	}
	return &s->reply;
}

int rpcrdma_xprt_svc_call_put_reply_header(struct rpcrdma_xprt_svc_call *s, uint32_t accept_stat)
{
	struct rpcrdma_xdr_enc *xdr = rpcrdma_xprt_svc_call_reply_enc(s);
	uint8_t *p;

	if (xdr == NULL)
		return -ENOBUFS;
	p = rpcrdma_xdr_reserve(xdr, 24);
	if (p == NULL)
		return -ENOSPC;
	xprt_put_accepted_words(p, s->msg.xid, RPCRDMA_RPC_AUTH_NONE, accept_stat);
	return 0;
}

static void svc_wait(struct rpcrdma_xprt_svc_call *s)
{
	if (!s->queued) {
		TAILQ_INSERT_TAIL(&s->xprt->svc_wait, s, link);
		s->queued = true;
	}
}

int rpcrdma_xprt_svc_call_reply(struct rpcrdma_xprt_svc_call *s)
{
	if (s->state != SVC_DISPATCHED || !s->has_reply)
		return -EINVAL;
	if (s->lost) {
		s->state = SVC_DONE;
		if (!s->in_cb)
			xprt_svc_process(s);
		return -ENOTCONN;
	}
	s->err_code = 0;
	s->state = SVC_REPLY_READY;
	if (!s->in_cb)
		xprt_svc_process(s);
	xprt_kick(s->xprt);
	return 0;
}

void rpcrdma_xprt_svc_call_drop(struct rpcrdma_xprt_svc_call *s)
{
	if (s->state != SVC_DISPATCHED)
		return;
	s->xprt->st.dropped++;
	s->state = SVC_DONE;
	if (!s->in_cb)
		xprt_svc_process(s);
	xprt_kick(s->xprt);
}

static void svc_error(struct rpcrdma_xprt_svc_call *s, uint32_t code)
{
	s->err_code = code;
	s->state = SVC_REPLY_READY;
}

/* Chunk buffers for every read chunk; false when a pool is empty (wait). */
static int svc_chunk_bufs(struct rpcrdma_xprt_svc_call *s)
{
	struct rpcrdma_xprt *x = s->xprt;
	uint16_t i;

	for (i = s->nbufs; i < s->map.nchunks; i++) {
		struct rpcrdma_marshal_rchunk *ch = &s->map.chunks[i];
		struct rpcrdma_mempool *pool = rpcrdma_mempool_set_chunk_pool(x->p.pools, ch->len);
		void *b;

		if (pool == NULL)
			return -EMSGSIZE;
		b = rpcrdma_mempool_get(pool);
		if (b == NULL)
			return -EAGAIN;
		s->bufs[i] = b;
		s->bpools[i] = pool;
		s->nbufs = i + 1;
		ch->dst = xprt_pool_region(pool, b, ch->len);
	}
	return 0;
}

/* RPC header errors a call can be answered for (RPC_MISMATCH, AUTH_BADCRED: rpcrdma_svc.h). */
static bool rpc_answerable(int err)
{
	return err == -RPCRDMA_E_RPCVERS || err == -RPCRDMA_E_OPAQUE_BOUND ||
	       err == -RPCRDMA_E_GIDS || err == -RPCRDMA_E_AUTH_LEN;
}

/*
 * The first word of a call's stream at the cursor, where the RPC header
 * (and its XID) is decoded from: in one piece, as rpcrdma_xprt_get_rpc()
 * reads it. @return false: less than a word there.
 */
static bool stream_word(const struct rpcrdma_xdr_dec *d, uint32_t *w)
{
	const struct rpcrdma_xdr_piece *pc;

	if (d->cur >= d->npieces)
		return false;
	pc = &d->pieces[d->cur];
	if (d->off > pc->len || pc->len - d->off < 4)
		return false;
	*w = rpcrdma_wire_get32(pc->p + d->off, 0);
	return true;
}

/* The reads are done (or there were none): the call's stream, its RPC header, dispatch. */
static void svc_dispatch(struct rpcrdma_xprt_svc_call *s)
{
	struct rpcrdma_xprt *x = s->xprt;
	uint32_t rpc_xid = 0;
	bool has_xid = false;

	/* a failed decode leaves these: not taken for a call */
	s->msg.xid = ~s->xid;
	s->msg.type = RPCRDMA_RPC_REPLY;
	if (s->fast) {
		/* one inline piece: the header is decoded in place, the cursor set after it */
		const uint8_t *p = (const uint8_t *)s->rx->buf + s->hlen;
		uint32_t n = s->rx->len - s->hlen;
		int ret;

		rpcrdma_xdr_dec_init(&s->args, p, n);
		has_xid = stream_word(&s->args, &rpc_xid);
		ret = rpcrdma_rpc_decode(&s->msg, p, n);
		if (ret >= 0 && (uint32_t)ret <= n) {
			s->args.off = (uint32_t)ret;
			ret = 0;
		} else if (ret >= 0) {
			ret = -RPCRDMA_E_TRUNC; /* never from the codec: a header past the piece */
		}
		s->rpc_ret = ret;
	} else if (rpcrdma_marshal_call_dec(&s->map, &s->args) != 0) {
		goto drop;
	} else {
		has_xid = stream_word(&s->args, &rpc_xid);
		s->rpc_ret = rpcrdma_xprt_get_rpc(&s->args, &s->msg);
	}
	if (has_xid && rpc_xid != s->xid) {
		/*
		 * rfc5666bis 5.5.2: an rdma_xid that does not match the XID of
		 * the RPC message it carries is an XDR error, answered ERR_CHUNK
		 * (RDMA2_ERR_BAD_HEADER in version 2, v2 draft 4.2.3) with the
		 * rdma_xid; the upper layer never sees the call.
		 */
		x->st.err_xid++;
		svc_error(s, RPCRDMA_ERR_CHUNK);
		return;
	}
	if (s->msg.type != RPCRDMA_RPC_CALL || s->msg.xid != s->xid)
		goto drop;
	if (s->rpc_ret == 0)
		s->rpc_ret = (int)s->msg.hdr_len;
	else if (!(x->p.flags & RPCRDMA_XPRT_F_RPC_ERRORS) || !rpc_answerable(s->rpc_ret))
		goto drop;
	s->state = SVC_DISPATCHED;
	x->work++;
	/* xprt_svc_process() goes on with whatever state the callback leaves */
	s->in_cb = true;
	x->p.recv_call(x->p.ctx, s);
	s->in_cb = false;
	return;

drop:
	/* no RPC call to answer: the upper layer never sees it */
	x->st.dropped++;
	s->state = SVC_DONE;
}

static void svc_stage_reads(struct rpcrdma_xprt_svc_call *s)
{
	struct rpcrdma_xprt *x = s->xprt;

	while (s->ops_posted < s->nops && x->reads_out < x->p.read_depth && sq_room(x, 1)) {
		const struct rpcrdma_marshal_rdma *op = &s->ops[s->ops_posted];
		struct rpcrdma_pmd_sge *sge = &s->rsge[s->ops_posted];
		/* the call waits for every Read: signaled */
		struct rpcrdma_pmd_send_wr *wr = stage(x, WR_SVC_READ, s, true);

		sge->addr = op->laddr;
		sge->length = op->len;
		sge->lkey = op->lkey;
		wr->opcode = RPCRDMA_PMD_WR_RDMA_READ;
		wr->sg_list = sge;
		wr->num_sge = 1;
		wr->remote_addr = op->raddr;
		wr->rkey = op->rkey;
		x->st.read_bytes += op->len;
		s->ops_posted++;
		x->reads_out++;
	}
}

/* Encode an RDMA_ERROR into the slot's header area and stage its Send. */
static void svc_stage_error(struct rpcrdma_xprt_svc_call *s, uint32_t code, int grant)
{
	struct rpcrdma_xprt *x = s->xprt;
	struct rpcrdma_pmd_send_wr *wr;
	struct rpcrdma_hdr h;
	int n;

	/*
	 * ERR_CHUNK and RDMA2_ERR_BAD_HEADER are both 2; ERR_VERS carries
	 * the versions we accept, in version 1 (rpcrdma_vers_resp_recv()).
	 */
	memset(&h, 0, sizeof(h));
	h.xid = s->xid;
	h.vers = s->err_vers;
	h.credit = (uint32_t)grant;
	h.proc = RPCRDMA_ERROR;
	h.error.code = code;
	h.error.low = s->err_low;
	h.error.high = s->err_high;
	n = rpcrdma_hdr_encode(&h, s->hdr.addr, s->hdr.len);
	s->esge.addr = (uintptr_t)s->hdr.addr;
	s->esge.length = n > 0 ? (uint32_t)n : 0;
	s->esge.lkey = s->hdr.lkey;
	wr = stage(x, WR_SVC_SEND, s, false);
	wr->opcode = RPCRDMA_PMD_WR_SEND;
	wr->sg_list = &s->esge;
	wr->num_sge = 1;
	x->st.errors_sent++;
	s->nwrites = 0;
}

/* Marshal and stage the reply: its Writes, then its Send. */

/*
 * Copy a stream's DDP-eligible items inline, each with its XDR pad, into
 * the stream's own buffer: the whole stream in one gather entry, for a
 * reply whose items would need more entries than the device takes. From
 * the end backwards, so that every byte moves before it is overwritten
 * (inline bytes only move up). -EMSGSIZE: the whole stream does not fit
 * the buffer; the stream is untouched then.
 */
static int stream_pull_up(struct rpcrdma_xdr_enc *xdr)
{
	uint8_t *b = xdr->mem.addr;
	uint32_t end = xdr->pos, tail = xdr->len;
	uint16_t k;

	if (xdr->nddp == 0 || xdr->pos > xdr->mem.len)
		return -EMSGSIZE;
	for (k = xdr->nddp; k-- > 0;) {
		const struct rpcrdma_xdr_ddp *d = &xdr->ddp[k];
		uint32_t n = tail - d->off, padded = (d->data.len + 3u) & ~3u;

		end -= n;
		memmove(b + end, b + d->off, n);
		end -= padded;
		memcpy(b + end, d->data.addr, d->data.len);
		memset(b + end + d->data.len, 0, padded - d->data.len);
		tail = d->off;
	}
	xdr->len = xdr->pos;
	xdr->nddp = 0;
	return 0;
}
static void svc_stage_reply(struct rpcrdma_xprt_svc_call *s, int grant)
{
	struct rpcrdma_xprt *x = s->xprt;
	struct rpcrdma_marshal_reply_plan *rp = &s->rplan;
	struct rpcrdma_marshal_reply_args a;
	struct rpcrdma_pmd_send_wr *wr;
	uint16_t i;
	int ret;

	if (s->fast) {
		if (s->reply.nddp == 0 &&
		    s->hlen + (uint64_t)s->reply.len <= xprt_reply_mconn(x)->send_inline &&
		    inline_stream_is(&s->reply, s->reply_buf)) {
			/*
			 * Short, to a call without chunks: no plan, nothing to
			 * signal. The Send owns the buffer until it retires (the
			 * gather entry is copied into the WR by the PMD's queue):
			 * nothing else of the slot's is in use, so the slot is
			 * done now (reply_done: no DDP result to give back).
			 */
			struct rpcrdma_pmd_sge *sge;

			wr = stage(x, WR_SVC_SEND_BUF, s->reply_buf, false);
			/* the slot may serve another call before the doorbell: the entry's own */
			sge = &x->sq_sge[sq_idx(x, x->sq_head - 1)];
			wr->opcode = RPCRDMA_PMD_WR_SEND;
			wr->sg_list = sge;
			wr->num_sge = short_sgl((struct rpcrdma_marshal_sge *)sge, &s->reply,
						s->vers, RPCRDMA_REPLY, s->xid, (uint32_t)grant);
			s->reply_buf = NULL;
			s->send_done = true;
			s->nwrites = 0;
			x->st.short_msgs++;
			x->st.replies++;
			s->replied = true;
			return;
		}
		/* the marshaler reads the call's (empty) chunk lists */
		rpcrdma_hdr_decode(rpcrdma_hdr_storage_init(&s->chdr), s->rx->buf, s->rx->len);
	}
	a.call = &s->chdr.hdr;
	a.credit = (uint32_t)grant;
	a.xdr = &s->reply;
	a.hdr_buf = s->hdr;
	ret = rpcrdma_marshal_reply(xprt_reply_mconn(x), &a, rp);
	if (ret == -E2BIG && a.call->chunks.nwrites == 0 && stream_pull_up(&s->reply) == 0) {
		/* more gather entries than the device takes (siw: 6): one entry, once */
		x->st.inline_pullups++;
		ret = rpcrdma_marshal_reply(xprt_reply_mconn(x), &a, rp);
	}
	if (ret && ret != -EMSGSIZE) {
		/* no usable plan: the reply cannot be sent as the requester asked */
		x->st.err_chunk++;
		svc_stage_error(s, RPCRDMA_ERR_CHUNK, grant);
		return;
	}
	if (rp->form == RPCRDMA_MARSHAL_ERR_CHUNK) {
		x->st.err_chunk++;
		x->st.errors_sent++;
	}
	for (i = 0; i < rp->nrdma; i++) {
		const struct rpcrdma_marshal_rdma *op = &rp->rdma[i];

		s->wsge[i].addr = op->laddr;
		s->wsge[i].length = op->len;
		s->wsge[i].lkey = op->lkey;
		/* retired by the reply's Send, which completes after it */
		wr = stage(x, WR_SVC_WRITE, s, false);
		wr->opcode = RPCRDMA_PMD_WR_RDMA_WRITE;
		wr->sg_list = &s->wsge[i];
		wr->num_sge = 1;
		wr->remote_addr = op->raddr;
		wr->rkey = op->rkey;
	}
	s->nwrites = rp->nrdma;
	x->st.write_bytes += rp->rdma_bytes;
	/*
	 * Signaled when the reply holds chunk buffers or the upper layer's DDP
	 * results (reply_done gives them back, even when they went inline).
	 */
	wr = stage(x, WR_SVC_SEND, s,
		   s->nbufs != 0 || s->reply.nddp != 0 || rp->nrdma != 0 || s->long_buf != NULL);
	wr->opcode = rp->send_inv ? RPCRDMA_PMD_WR_SEND_WITH_INV : RPCRDMA_PMD_WR_SEND;
	wr->invalidate_rkey = rp->send_inv ? rp->inv_rkey : 0;
	wr->sg_list = (const struct rpcrdma_pmd_sge *)rp->sge;
	wr->num_sge = rp->nsge;
	if (rp->send_inv)
		x->st.send_inv++; /* on the counters' second line: not written by every reply */
	if (rp->form == RPCRDMA_MARSHAL_SHORT)
		x->st.short_msgs++;
	else if (rp->form == RPCRDMA_MARSHAL_CHUNKED)
		x->st.chunked_msgs++;
	else if (rp->form == RPCRDMA_MARSHAL_LONG)
		x->st.long_msgs++;
	if (rp->form != RPCRDMA_MARSHAL_ERR_CHUNK) {
		x->st.replies++;
		s->replied = true;
	}
}

void xprt_svc_release(struct rpcrdma_xprt_svc_call *s)
{
	struct rpcrdma_xprt *x = s->xprt;
	uint16_t i;

	if (!s->credited)
		rpcrdma_credit_resp_drop(&x->cresp);
	if (x->p.reply_done != NULL && s->has_reply)
		x->p.reply_done(x->p.ctx, s, s->replied && !s->lost ? 0 : -ECONNRESET);
	for (i = 0; i < s->nbufs; i++)
		rpcrdma_mempool_put(s->bpools[i], s->bufs[i]);
	s->nbufs = 0;
	if (s->long_buf != NULL)
		rpcrdma_mempool_put(s->long_pool, s->long_buf);
	s->long_buf = NULL;
	/* the slot keeps its reply buffer for the next call (xprt_free() returns it) */
	s->has_reply = false;
	if (s->rx != NULL)
		rx_put(x, s->rx);
	s->rx = NULL;
	if (s->queued) {
		TAILQ_REMOVE(&x->svc_wait, s, link);
		s->queued = false;
	}
	/* what a call starts with, set here: off the next call's round trip */
	s->lost = s->credited = s->replied = s->in_cb = false;
	s->err_code = 0;
	s->nops = s->ops_posted = s->ops_done = 0;
	s->nwrites = s->writes_done = 0;
	s->priv = NULL;
	s->fast = false;
	s->hlen = 0;
	s->state = SVC_FREE;
	s->next_free = *x->svc_freep;
	*x->svc_freep = s;
	x->svc_active--;
	x->recv_short = true; /* the grant may want a receive now (a drop outside a poll) */
}

void xprt_svc_process(struct rpcrdma_xprt_svc_call *s)
{
	struct rpcrdma_xprt *x = s->xprt;
	enum svc_state prev;
	int ret;

	do {
		prev = s->state;
		switch (s->state) {
		case SVC_RECEIVED:
			if (s->lost) {
				s->state = SVC_DONE;
				break;
			}
			if (s->fast || s->map.nchunks == 0) {
				svc_dispatch(s);
				break;
			}
			ret = svc_chunk_bufs(s);
			if (ret == -EAGAIN) {
				svc_wait(s);
				break;
			}
			if (ret == 0) {
				ret = rpcrdma_marshal_call_reads(&s->map, s->ops,
								 RPCRDMA_MARSHAL_MAX_READS);
			}
			if (ret < 0) {
				x->st.err_chunk++;
				svc_error(s, RPCRDMA_ERR_CHUNK);
				break;
			}
			s->nops = (uint16_t)ret;
			s->ops_posted = s->ops_done = 0;
			s->state = SVC_READ_PENDING;
			break;
		case SVC_READ_PENDING:
			if (s->lost) {
				if (s->ops_done == s->ops_posted)
					s->state = SVC_DONE;
				break;
			}
			svc_stage_reads(s);
			if (s->ops_posted < s->nops)
				svc_wait(s);
			else if (s->ops_done == s->nops)
				svc_dispatch(s);
			break;
		case SVC_DISPATCHED:
			break;
		case SVC_REPLY_READY:
			if (s->lost) {
				s->state = SVC_DONE;
				break;
			}
			if (!sq_room(x, XPRT_REPLY_WRS)) {
				svc_wait(s);
				break;
			}
			/*
			 * The reply goes before its call's receive is reposted
			 * (the poll reposts after the doorbell): the spare
			 * receives keep the grant, min(target, posted + active -
			 * 1), at the target. Only a batch larger than the spare
			 * reposts first, so that no reply grants less.
			 */
			if (x->client)
				x->cresp.posted = x->cresp.max; /* resp_received() */
			else if ((uint64_t)x->cresp.posted + x->cresp.active - 1 < x->cresp.target)
				xprt_post_recvs(x);
			ret = rpcrdma_credit_resp_reply(&x->cresp);
			if (ret == -EAGAIN) {
				xprt_post_recvs(x);
				ret = rpcrdma_credit_resp_reply(&x->cresp);
			}
			if (ret < 0) {
				svc_wait(s);
				break;
			}
			s->credited = true;
			s->send_done = false;
			s->writes_done = 0;
			if (s->err_code)
				svc_stage_error(s, s->err_code, ret);
			else
				svc_stage_reply(s, ret);
			s->state = SVC_REPLY_WRITE_PENDING;
			/* fall through */
		case SVC_REPLY_WRITE_PENDING:
			if (s->writes_done != s->nwrites)
				break;
			s->state = SVC_SEND_PENDING;
			/* fall through */
		case SVC_SEND_PENDING:
			if (!s->send_done)
				break;
			s->state = SVC_DONE;
			/* fall through */
		case SVC_DONE:
			if (s->release_pending)
				return;
			x->work++;
			if (x->in_poll) {
				s->release_pending = true;
				s->next_free = x->svc_done;
				x->svc_done = s;
				return;
			}
			xprt_svc_release(s);
			return;
		default:
			return;
		}
	} while (s->state != prev);
}

void xprt_svc_run_waiters(struct rpcrdma_xprt *x)
{
	struct svc_fifo todo;
	struct rpcrdma_xprt_svc_call *s;

	if (TAILQ_EMPTY(&x->svc_wait))
		return;
	TAILQ_INIT(&todo);
	TAILQ_CONCAT(&todo, &x->svc_wait, link);
	while ((s = TAILQ_FIRST(&todo)) != NULL) {
		TAILQ_REMOVE(&todo, s, link);
		s->queued = false;
		xprt_svc_process(s);
	}
}

/* Stage the drain marker: a signaled zero-length RDMA Write, a no-op on any QP state. */
void xprt_stage_marker(struct rpcrdma_xprt *x)
{
	struct rpcrdma_pmd_send_wr *wr = stage(x, WR_MARKER, NULL, true);

	wr->opcode = RPCRDMA_PMD_WR_RDMA_WRITE;
	wr->num_sge = 0;
}

static void server_recv_slot(struct rpcrdma_xprt *x, struct xprt_rx *rx);

/*
 * A responder slot's message consumed a receive: the credit accounting of
 * its direction. A client's backward grant is fixed, bk_credits: its
 * receives for backward calls are reserved beyond the forward ones
 * (RFC 8167 2.2.1), so they count as posted.
 */
static void resp_received(struct rpcrdma_xprt *x)
{
	if (x->client)
		x->cresp.posted = x->cresp.max;
	rpcrdma_credit_resp_received(&x->cresp);
}

void xprt_server_recv(struct rpcrdma_xprt *x, struct xprt_rx *rx)
{
	resp_received(x);
	if (rx->len < RPCRDMA_HDR_FIXED_LEN) {
		/* not even an XID */
		x->st.err_hdr++;
		rpcrdma_credit_resp_drop(&x->cresp);
		rx_put(x, rx);
		return;
	}
	if (*x->svc_freep == NULL || x->backlog != NULL) {
		/*
		 * Every slot is busy (a requester over its grant, or replies
		 * whose unsignaled Sends have not retired yet): the call waits,
		 * its receive not reposted, so a requester over its grant
		 * meets RNR, not a lost call. A marker retires the Sends.
		 */
		rx->next = NULL;
		if (x->backlog == NULL)
			x->backlog = rx;
		else
			x->backlog_last->next = rx;
		x->backlog_last = rx;
		if (x->sq_unsig != 0 && sq_room(x, 1))
			xprt_stage_marker(x);
		return;
	}
	server_recv_slot(x, rx);
}

/* Received calls that waited for a slot, in order. */
void xprt_server_run_backlog(struct rpcrdma_xprt *x)
{
	while (x->backlog != NULL && *x->svc_freep != NULL) {
		struct xprt_rx *rx = x->backlog;

		x->backlog = rx->next;
		server_recv_slot(x, rx);
		x->work++;
	}
}

/*
 * A call of another version than the settled one, or the first call: the
 * responder's negotiation (rpcrdma_vers.h) accepts it, settling the
 * version with the first call, or it is answered ERR_VERS.
 * @return true: accepted.
 */
static bool server_vers(struct rpcrdma_xprt *x, struct rpcrdma_xprt_svc_call *s, uint32_t vers)
{
	struct rpcrdma_vers_answer ans;

	rpcrdma_vers_resp_recv(&x->vresp, vers, &ans);
	if (!ans.accept) {
		/* rfc5666bis 5.5.1: ERR_VERS with the versions we support */
		x->st.err_vers++;
		s->err_vers = (uint8_t)ans.reply_vers;
		s->err_low = (uint8_t)ans.low;
		s->err_high = (uint8_t)ans.high;
		svc_error(s, RPCRDMA_ERR_VERS);
		return false;
	}
	if (!x->vers_settled) {
		xprt_vers_settle(x, vers);
		if (vers == RPCRDMA_VERS_2)
			xprt_xchar_start(x); /* our ROPT_INITXCH before the first reply */
	}
	return true;
}

static void server_recv_slot(struct rpcrdma_xprt *x, struct xprt_rx *rx)
{
	struct rpcrdma_xprt_svc_call *s;
	struct rpcrdma_hdr *h;
	uint32_t vers;
	int ret;

	s = *x->svc_freep;
	*x->svc_freep = s->next_free;
	s->xprt = x; /* a group's slot is the connection's until its release */
	x->svc_active++;
	x->st.calls_recv++;
	/* the other per-call fields were reset when it was released (xprt_svc_release()) */
	s->rx = rx;
	s->xid = rpcrdma_wire_get32(rx->buf, 0);
	vers = rpcrdma_wire_get32(rx->buf, 1);
	s->vers = (uint8_t)vers;
	s->err_vers = (uint8_t)vers; /* errors go in the version of the call */
	if (unlikely(!x->vers_settled || vers != x->vers)) {
		if (x->client) {
			/* a backward call in another version than the connection's */
			x->st.err_vers++;
			s->state = SVC_DONE;
			goto process;
		}
		if (!server_vers(x, s, vers))
			goto process;
	}
	/* version 1: xprt_rx_classify() has looked already */
	s->hlen = vers == RPCRDMA_VERS_1
			  ? rx->hlen
			  : (uint8_t)short_hdr_len(rx->buf, rx->len, vers, RPCRDMA_CALL);
	s->fast = s->hlen != 0 && (x->max_call == 0 || rx->len - s->hlen <= x->max_call);
	if (s->fast) {
		/* no chunks to map: the header is decoded when a reply needs it */
		s->state = SVC_RECEIVED;
		goto process;
	}
	h = rpcrdma_hdr_storage_init(&s->chdr);
	ret = rpcrdma_hdr_decode(h, rx->buf, rx->len);
	if (ret < 0) {
		/* ERR_CHUNK (v1), RDMA2_ERR_BAD_HEADER (v2): both 2 */
		x->st.err_hdr++;
		svc_error(s, RPCRDMA_ERR_CHUNK);
		goto process;
	}
	switch (h->proc) {
	case RPCRDMA_MSG:
	case RPCRDMA_NOMSG:
		/* version 2: rdma_direction CALL (xprt_rx_classify() sent the rest elsewhere) */
		break;
	case RPCRDMA_OPTIONAL: /* never here: xprt_ctrl_recv(), or ERR_VERS (server_vers()) */
		s->state = SVC_DONE;
		goto process;
	case RPCRDMA_DONE:
		/* no longer sent: receivers SHOULD answer ERR_CHUNK (rfc5666bis 5.6.2) */
		x->st.done_recv++;
		svc_error(s, RPCRDMA_ERR_CHUNK);
		goto process;
	case RPCRDMA_MSGP:
		x->st.err_chunk++;
		svc_error(s, RPCRDMA_ERR_CHUNK);
		goto process;
	default: /* RDMA_ERROR (RDMA2_ERROR) from a requester: nothing to answer */
		if (xprt_xchar_error(x, rx->buf, rx->len)) {
			s->state = SVC_DONE;
			goto process;
		}
		x->st.err_hdr++;
		s->state = SVC_DONE;
		goto process;
	}
	ret = rpcrdma_marshal_call_map(h, (uint8_t *)rx->buf + h->hdr_len, rx->len - h->hdr_len,
				       x->p.max_call, &s->map);
	if (ret < 0) {
		x->st.err_chunk++;
		svc_error(s, RPCRDMA_ERR_CHUNK);
		goto process;
	}
	s->state = SVC_RECEIVED;
process:
	xprt_svc_process(s);
}

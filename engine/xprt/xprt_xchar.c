/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transport characteristics and control messages (version 2).
 *
 * The transport characteristics extension (draft-dnoveck-nfsv4-rpcrdma-
 * xcharext-02: ROPT_INITXCH,
 * ROPT_REQXCH, ROPT_RESPXCH, ROPT_UPDXCH) on RDMA2_OPTIONAL messages, with
 * the state kept by rpcrdma_xchar_state.h; unknown optional messages
 * answered RDMA2_ERROR ERR_INVAL_OPTION or dropped as their flags say (v2
 * draft 4.2.2); the control slots that carry these messages; and the
 * characteristics' public API (rpcrdma_xprt_xchar_info(), _request(),
 * _set()).
 */

#include "xprt_int.h"

/* ------------------------------------------------------------ transport characteristics */

/*
 * Version 2 transport characteristics (xcharext draft): the rules live in
 * rpcrdma_xchar_state.h; the engine feeds it what arrives, sends what it
 * fills, and applies the values (xprt_set_thresholds()). Its messages go in
 * control slots (struct xprt_ctrl), not in call or reply slots: they are
 * rare, one-way or answered by the peer's engine, never by an upper layer.
 */

/* Our starting values: what we post, offer and serve. */
int xprt_xchar_init(struct rpcrdma_xprt *x)
{
	bool cli = x->p.role == RPCRDMA_XPRT_CLIENT;
	struct rpcrdma_xchar_cfg cfg;

	rpcrdma_xchar_cfg_init(&cfg);
	cfg.rbsiz_max = x->ipool->buf_size;
	cfg.local.rbsiz = x->recv_len;
	cfg.local.reqreminv = cli && (x->p.flags & RPCRDMA_XPRT_F_REMOTE_INV) != 0;
	/* a client with backward credits takes backward calls with chunks as forward ones */
	cfg.local.brs = cli && x->p.bk_credits ? RPCRDMA_BKREQSUP_GENL : RPCRDMA_BKREQSUP_NONE;
	/* REQREMINV means something only where calls xprt_expose per-call registrations */
	cfg.changeable = RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_RBSIZ);
	if (cli && (x->p.flags & RPCRDMA_XPRT_F_PER_CALL_MR))
		cfg.changeable |= RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_REQREMINV);
	/* what the upper layer promises to keep: neither asked of us nor set */
	cfg.nochg = x->p.xchar_nochg;
	cfg.changeable &= ~cfg.nochg;
	return rpcrdma_xchar_state_init(&x->xs, &cfg);
}

/* A fresh XID for a control message, from the calls' space on a client. */
static uint32_t ctrl_xid(struct rpcrdma_xprt *x)
{
	if (x->p.role == RPCRDMA_XPRT_CLIENT)
		return x->xid_seq++ << x->call_shift; /* never a live call's */
	return 0x80000000u | x->ctrl_seq++;
}

/* The rdma_credit of a control message: what we ask for, or what we grant. */
static uint32_t ctrl_credit(const struct rpcrdma_xprt *x)
{
	if (x->p.role == RPCRDMA_XPRT_CLIENT)
		return rpcrdma_credit_req_request(&x->creq);
	return x->cresp.target;
}

/* Encode a version 2 header (and body) into a control slot and stage its Send. */
static int ctrl_send(struct rpcrdma_xprt *x, struct rpcrdma_hdr *h)
{
	struct xprt_ctrl *k = xprt_ctrl_peek(x);
	struct rpcrdma_pmd_send_wr *wr;
	int n;

	if (k == NULL || x->qp == NULL || !sq_room(x, 1)) {
		x->st.ctrl_drops++;
		return -ENOBUFS;
	}
	h->vers = RPCRDMA_VERS_2;
	h->credit = ctrl_credit(x);
	n = rpcrdma_hdr_encode(h, k->area.addr, k->area.len / 2);
	if (n < 0)
		return n == -ENOSPC ? -EMSGSIZE : n;
	xprt_ctrl_take(x, k);
	k->sge.addr = (uintptr_t)k->area.addr;
	k->sge.length = (uint32_t)n;
	k->sge.lkey = k->area.lkey;
	/* signaled: the slot is free as soon as its Send is done */
	wr = stage(x, WR_CTRL_SEND, k, true);
	wr->opcode = RPCRDMA_PMD_WR_SEND;
	wr->sg_list = &k->sge;
	wr->num_sge = 1;
	return 0;
}

/*
 * Send a transport characteristics operation (RDMA2_OPTIONAL). It carries
 * no RPC message, so its rdma_optdir says who sends it (v2 draft 4.2.2,
 * message direction): a requester (the client) CALL, a responder (the
 * server) REPLY.
 */
static int ctrl_send_xchar(struct rpcrdma_xprt *x, uint32_t xid, const struct rpcrdma_xchar_msg *m)
{
	uint32_t optdir = x->p.role == RPCRDMA_XPRT_CLIENT ? RPCRDMA_CALL : RPCRDMA_REPLY;
	struct xprt_ctrl *k = xprt_ctrl_peek(x); /* the slot ctrl_send() takes */
	struct rpcrdma_hdr h;
	uint8_t *body;
	int n, ret;

	if (k == NULL) {
		x->st.ctrl_drops++;
		return -ENOBUFS;
	}
	/* the body in the slot's second half, the header (which copies it) in its first */
	body = (uint8_t *)k->area.addr + k->area.len / 2;
	n = rpcrdma_xchar_encode(m, body, k->area.len / 2);
	if (n < 0)
		return n == -ENOSPC ? -EMSGSIZE : n;
	memset(&h, 0, sizeof(h));
	h.xid = xid;
	h.proc = RPCRDMA_OPTIONAL;
	h.optional.optdir = optdir;
	h.optional.opttype = m->opttype;
	h.optional.optinfo = body;
	h.optional.optinfo_len = (uint32_t)n;
	ret = ctrl_send(x, &h);
	if (ret == 0)
		x->st.xchar_sent++;
	return ret;
}

/* Answer a version 2 message with RDMA2_ERROR (same XID). */
void xprt_ctrl_send_error(struct rpcrdma_xprt *x, uint32_t xid, uint32_t code)
{
	struct rpcrdma_hdr h;

	memset(&h, 0, sizeof(h));
	h.xid = xid;
	h.proc = RPCRDMA_ERROR;
	h.error.code = code;
	if (ctrl_send(x, &h) == 0) {
		x->st.errors_sent++;
		x->st.err_option += code == RPCRDMA2_ERR_INVAL_OPTION;
	}
}

/*
 * The exchange runs on this connection from now on, unless the extension
 * is turned off. @return whether it runs.
 */
bool xprt_xchar_connect(struct rpcrdma_xprt *x)
{
	if (x->p.flags & RPCRDMA_XPRT_F_NO_XCHAR)
		return false;
	if (!x->xchar_on) {
		rpcrdma_xchar_state_connect(&x->xs);
		x->xchar_on = true;
		x->xchar_peer_unsupported = false;
	}
	return true;
}

/*
 * Version 2 is settled: the exchange starts and our ROPT_INITXCH goes
 * before anything else we send (xcharext 4.1). A client connected it
 * already while probing, so that a server's ROPT_INITXCH, which comes
 * before the probe's reply, is taken.
 */
void xprt_xchar_start(struct rpcrdma_xprt *x)
{
	struct rpcrdma_xchar_msg m;

	if (!xprt_xchar_connect(x))
		return;
	if (rpcrdma_xchar_state_initxch(&x->xs, &m) == 0) {
		x->xchar_init_xid = ctrl_xid(x);
		ctrl_send_xchar(x, x->xchar_init_xid, &m);
	}
}

void xprt_xchar_stop(struct rpcrdma_xprt *x)
{
	if (!x->xchar_on)
		return;
	rpcrdma_xchar_state_disconnect(&x->xs);
	x->xchar_on = false;
	xprt_set_thresholds(x);
}

/*
 * An RDMA2_OPTIONAL message (decoded header h): a transport
 * characteristics operation is applied, and a ROPT_REQXCH answered.
 * @return 0, or the RDMA2_ERROR code to answer it with: INVAL_OPTION for
 *   a type we do not support, BAD_HEADER for a malformed body or one that
 *   breaks the draft's rules (nothing applied).
 */
uint32_t xprt_optional(struct rpcrdma_xprt *x, const struct rpcrdma_hdr *h)
{
	struct rpcrdma_xchar_msg m, out;
	int ret;

	x->st.options_recv++;
	if (!x->xchar_on)
		return RPCRDMA2_ERR_INVAL_OPTION;
	ret = rpcrdma_xchar_decode(&m, h->optional.opttype, h->optional.optinfo,
				   h->optional.optinfo_len);
	if (ret == -RPCRDMA_E_OPTTYPE)
		return RPCRDMA2_ERR_INVAL_OPTION;
	if (ret == 0)
		ret = rpcrdma_xchar_state_recv(&x->xs, h->xid, &m, &out);
	if (ret < 0) {
		x->st.xchar_errors++;
		return RPCRDMA2_ERR_BAD_HEADER;
	}
	x->st.xchar_recv++;
	if (ret == 1) /* our ROPT_RESPXCH, with the request's XID */
		ctrl_send_xchar(x, h->xid, &out);
	/* a raise the peer asked for: receives at the new size from now on */
	x->recv_len = rpcrdma_xchar_state_post_size(&x->xs);
	xprt_set_thresholds(x);
	return 0;
}

/*
 * Our ROPT_REQXCH of n elements went unanswered as a whole (refused by an
 * RDMA2_ERROR, or never sent): as a ROPT_RESPXCH rejecting every element,
 * so that the state does not wait for an answer.
 */
static void xchar_refused(struct rpcrdma_xprt *x, uint32_t xid, uint32_t n)
{
	struct rpcrdma_xchar_msg m, unused;

	memset(&m, 0, sizeof(m));
	m.opttype = RPCRDMA_ROPT_RESPXCH;
	m.respxch.rej.bits = n >= 32 ? ~0u : (1u << n) - 1;
	rpcrdma_xchar_state_recv(&x->xs, xid, &m, &unused);
	xprt_set_thresholds(x);
}

/*
 * A version 2 RDMA2_ERROR that may answer one of our control messages.
 * @return true: it did (consumed).
 */
bool xprt_xchar_error(struct rpcrdma_xprt *x, const void *buf, uint32_t len)
{
	uint32_t xid, code;

	if (!x->xchar_on || len < 20 || rpcrdma_wire_get32(buf, 1) != RPCRDMA_VERS_2 ||
	    rpcrdma_wire_get32(buf, 3) != RPCRDMA_ERROR)
		return false;
	xid = rpcrdma_wire_get32(buf, 0);
	code = rpcrdma_wire_get32(buf, 4);
	if (xid == x->xchar_init_xid) {
		/* a peer without the extension (xcharext 4): its defaults stand */
		x->st.errors_recv++;
		x->xchar_peer_unsupported =
			x->xchar_peer_unsupported || code == RPCRDMA2_ERR_INVAL_OPTION;
		return true;
	}
	if (x->xs.st == RPCRDMA_XCHAR_ST_REQ_SENT && xid == x->xs.req_xid) {
		x->st.errors_recv++;
		xchar_refused(x, xid, x->xs.req_want.n);
		return true;
	}
	return false;
}

/*
 * A raise of our Receive Buffer Size is announced once no smaller receive
 * is posted (xcharext 3.1); receives are posted at the new size from the
 * time it is asked for.
 */
void xprt_xchar_raise_check(struct rpcrdma_xprt *x)
{
	struct rpcrdma_xchar_rcv rcv = { .size = 0, .count = 0 };
	struct rpcrdma_xchar_msg upd;
	uint32_t i;

	for (i = 0; i < x->nrx; i++)
		if (x->rxs[i].posted && x->rxs[i].plen < x->xs.rbsiz_target) {
			rcv.size = x->rxs[i].plen;
			rcv.count++;
		}
	if (rpcrdma_xchar_state_receives(&x->xs, &rcv, 1, &upd) == 1) {
		ctrl_send_xchar(x, ctrl_xid(x), &upd);
		xprt_set_thresholds(x);
	}
}

int rpcrdma_xprt_xchar_info(const struct rpcrdma_xprt *x, struct rpcrdma_xprt_xchar *xi)
{
	memset(xi, 0, sizeof(*xi));
	xi->active = x->xchar_on;
	xi->st = x->xs.st;
	xi->local = x->xs.local;
	xi->peer = x->xs.peer;
	xi->peer_init = x->xs.peer_init;
	xi->peer_unsupported = x->xchar_peer_unsupported;
	xi->req_outstanding = x->xs.st == RPCRDMA_XCHAR_ST_REQ_SENT;
	xi->req_pend = x->xs.req_pend;
	xi->peer_pend = x->xs.peer_pend;
	xi->nochg = x->xs.cfg.nochg;
	xi->peer_nochg = x->xs.peer_nochg;
	xi->max_send = x->mconn.send_inline;
	return x->xchar_on ? 0 : -ENOTCONN;
}

int rpcrdma_xprt_xchar_request(struct rpcrdma_xprt *x, const struct rpcrdma_xcharspec *want)
{
	struct rpcrdma_xchar_msg m;
	uint32_t xid, i;
	int ret;

	if (!x->xchar_on)
		return -ENOTCONN;
	for (i = 0; i < want->n && i < RPCRDMA_XCHAR_MAX; i++)
		if (want->vals[i].len != 0 && want->vals[i].data == NULL &&
		    want->vals[i].which != RPCRDMA_XCHAR_RBSIZ &&
		    want->vals[i].which != RPCRDMA_XCHAR_REQREMINV &&
		    want->vals[i].which != RPCRDMA_XCHAR_BRS)
			return -EINVAL; /* an unknown id is sent from its data */
	if (xprt_ctrl_peek(x) == NULL || !sq_room(x, 1))
		return -ENOBUFS;
	xid = ctrl_xid(x);
	ret = rpcrdma_xchar_state_request(&x->xs, xid, want, &m);
	if (ret)
		return ret;
	ret = ctrl_send_xchar(x, xid, &m);
	if (ret)
		xchar_refused(x, xid, want->n); /* not sent */
	else
		xprt_set_thresholds(x);
	xprt_kick(x);
	return ret;
}

int rpcrdma_xprt_xchar_set(struct rpcrdma_xprt *x, uint32_t id, uint32_t value)
{
	struct rpcrdma_xchar_msg upd;
	int ret;

	if (!x->xchar_on)
		return -ENOTCONN;
	ret = rpcrdma_xchar_state_local_set(&x->xs, id, value, &upd);
	if (ret < 0)
		return ret;
	xprt_kick(x);
	if (id == RPCRDMA_XCHAR_RBSIZ) {
		/* post at the new size from now on; announced by xprt_xchar_raise_check() */
		x->recv_len = rpcrdma_xchar_state_post_size(&x->xs);
		xprt_xchar_raise_check(x);
		return 0;
	}
	xprt_set_thresholds(x);
	return ret == 1 ? ctrl_send_xchar(x, ctrl_xid(x), &upd) : 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Backward-direction channel accounting (bidirection draft / RFC 8167;
 * xcharext 3.3 for version 2). See rpcrdma_bkchan.h.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rpcrdma/rpcrdma_bkchan.h>
#include <rpcrdma/rpcrdma_wire.h>
#include <rpcrdma/rpcrdma_xchar.h>

/* ------------------------------------------------------------ XIDs */

void rpcrdma_bkchan_xids_init(struct rpcrdma_bkchan_xids *x, uint32_t fwd, uint32_t bwd)
{
	x->next[RPCRDMA_BKCHAN_FORWARD] = fwd;
	x->next[RPCRDMA_BKCHAN_BACKWARD] = bwd;
}

uint32_t rpcrdma_bkchan_xid_alloc(struct rpcrdma_bkchan_xids *x, enum rpcrdma_bkchan_dir dir)
{
	return x->next[dir == RPCRDMA_BKCHAN_BACKWARD]++;
}

/* ------------------------------------------------------------ classifier */

static enum rpcrdma_bkchan_dir dir_of(enum rpcrdma_bkchan_role role, uint32_t msg_type)
{
	/* a call to the client, or a reply to the server, runs backward (1.3.2) */
	if (role == RPCRDMA_BKCHAN_CLIENT)
		return msg_type == RPCRDMA_CALL ? RPCRDMA_BKCHAN_BACKWARD : RPCRDMA_BKCHAN_FORWARD;
	return msg_type == RPCRDMA_CALL ? RPCRDMA_BKCHAN_FORWARD : RPCRDMA_BKCHAN_BACKWARD;
}

/* The RPC message's xid and msg_type (RFC 5531: xid, then msg_type). */
static int rpc_words(const struct rpcrdma_hdr *h, const void *rpc, uint32_t rpc_len,
		     uint32_t *msg_type)
{
	if (rpc == NULL || rpc_len < 8)
		return -RPCRDMA_E_TRUNC;
	if (rpcrdma_wire_get32(rpc, 0) != h->xid)
		return -EPROTO; /* 2.5, 2.6: "starting with the same XID value" */
	*msg_type = rpcrdma_wire_get32(rpc, 1);
	return 0;
}

int rpcrdma_bkchan_classify(enum rpcrdma_bkchan_role role, const struct rpcrdma_hdr *h,
			    const void *rpc, uint32_t rpc_len, struct rpcrdma_bkchan_class *out)
{
	uint32_t type;
	int ret;

	if (h->vers != RPCRDMA_VERS_1 && h->vers != RPCRDMA_VERS_2)
		return -EPROTO;
	switch (h->proc) {
	case RPCRDMA_ERROR:
		type = RPCRDMA_REPLY; /* responder to requester */
		break;
	case RPCRDMA_MSG:
		ret = rpc_words(h, rpc, rpc_len, &type);
		if (ret < 0)
			return ret;
		if (h->vers == RPCRDMA_VERS_2) {
			/* v2 draft 3.2: rdma_direction is the msg_type of the payload */
			if (type != h->chunks.direction)
				return -EPROTO;
		} else if (type > RPCRDMA_REPLY) {
			return -RPCRDMA_E_ENUM;
		}
		break;
	case RPCRDMA_NOMSG:
		if (h->vers == RPCRDMA_VERS_2)
			type = h->chunks.direction;
		else /* never backward in version 1 (2.5, 2.6) */
			type = role == RPCRDMA_BKCHAN_CLIENT ? RPCRDMA_REPLY : RPCRDMA_CALL;
		break;
	case RPCRDMA_MSGP:
		if (h->vers != RPCRDMA_VERS_1)
			return -EPROTO;
		ret = rpc_words(h, rpc, rpc_len, &type);
		if (ret < 0)
			return ret;
		if (type > RPCRDMA_REPLY)
			return -RPCRDMA_E_ENUM;
		break;
	case RPCRDMA_OPTIONAL:
		if (h->vers != RPCRDMA_VERS_2)
			return -EPROTO;
		type = h->optional.optdir;
		break;
	default: /* RDMA_DONE carries no RPC message */
		return -EPROTO;
	}
	if (type > RPCRDMA_REPLY)
		return -RPCRDMA_E_ENUM;
	out->msg_type = type;
	out->dir = dir_of(role, type);
	return 0;
}

/* ------------------------------------------------------------ form */

static bool has_chunks(const struct rpcrdma_hdr *h)
{
	return h->chunks.nreads != 0 || h->chunks.nwrites != 0 || h->chunks.has_reply;
}

int rpcrdma_bkchan_check_send(uint32_t vers, uint32_t brs, const struct rpcrdma_hdr *h,
			      uint32_t send_len, uint32_t inline_max)
{
	bool general;

	if (vers == RPCRDMA_VERS_1) {
		general = false;
	} else if (vers == RPCRDMA_VERS_2) {
		if (brs > RPCRDMA_BKREQSUP_GENL)
			return -EINVAL;
		if (brs == RPCRDMA_BKREQSUP_NONE)
			return -ECONNREFUSED;
		general = brs == RPCRDMA_BKREQSUP_GENL;
	} else {
		return -EINVAL;
	}
	if (general) {
		if (h->proc != RPCRDMA_MSG && h->proc != RPCRDMA_NOMSG)
			return -EPERM;
	} else if (h->proc != RPCRDMA_MSG || has_chunks(h)) {
		/* 2.5, 2.6: "RDMA_MSG. All three chunk lists MUST be empty." */
		return -EPERM;
	}
	/* 2.4: no larger than the receiver's buffers */
	if (send_len > inline_max)
		return -EMSGSIZE;
	return 0;
}

uint32_t rpcrdma_bkchan_infer_brs(const struct rpcrdma_hdr *call)
{
	if ((call->proc == RPCRDMA_MSG || call->proc == RPCRDMA_NOMSG) && has_chunks(call))
		return RPCRDMA_BKREQSUP_GENL;
	return call->proc == RPCRDMA_NOMSG ? RPCRDMA_BKREQSUP_GENL : RPCRDMA_BKREQSUP_INLINE;
}

/* ------------------------------------------------------------ client */

int rpcrdma_bkchan_cli_init(struct rpcrdma_bkchan_cli *c, uint32_t credits)
{
	if (credits == 0 || credits > INT32_MAX)
		return -EINVAL;
	c->credits = credits;
	c->zero_credit = 0;
	return rpcrdma_credit_resp_init(&c->credit, credits, credits);
}

void rpcrdma_bkchan_cli_connect(struct rpcrdma_bkchan_cli *c)
{
	/* 2.2.1: "a full set of receive buffers to handle backward direction Calls" */
	(void)rpcrdma_credit_resp_init(&c->credit, c->credits, c->credits);
}

uint32_t rpcrdma_bkchan_cli_to_post(const struct rpcrdma_bkchan_cli *c)
{
	return rpcrdma_credit_resp_to_post(&c->credit);
}

void rpcrdma_bkchan_cli_posted(struct rpcrdma_bkchan_cli *c, uint32_t n)
{
	rpcrdma_credit_resp_posted(&c->credit, n);
}

int rpcrdma_bkchan_cli_call(struct rpcrdma_bkchan_cli *c, uint32_t credit)
{
	int ret = rpcrdma_credit_resp_received(&c->credit);

	if (ret == -EINVAL)
		return ret;
	if (credit == 0) {
		/* 2.1.2: "MUST NOT contain the value zero" */
		c->zero_credit++;
		(void)rpcrdma_credit_resp_drop(&c->credit);
		return -EPROTO;
	}
	return ret;
}

int rpcrdma_bkchan_cli_reply(struct rpcrdma_bkchan_cli *c)
{
	return rpcrdma_credit_resp_reply(&c->credit);
}

/* ------------------------------------------------------------ server */

int rpcrdma_bkchan_srv_init(struct rpcrdma_bkchan_srv *s, uint32_t max_credits,
			    struct rpcrdma_bkchan_call *calls, uint32_t ncalls)
{
	if (max_credits == 0 || ncalls == 0 || calls == NULL)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	memset(calls, 0, sizeof(*calls) * ncalls);
	s->calls = calls;
	s->ncalls = ncalls;
	s->peer_brs = RPCRDMA_BKREQSUP_INLINE;
	return rpcrdma_credit_req_init(&s->credit, max_credits);
}

void rpcrdma_bkchan_srv_connect(struct rpcrdma_bkchan_srv *s, uint32_t vers)
{
	s->vers = vers;
	s->v1_ready = false;
	s->peer_brs = RPCRDMA_BKREQSUP_INLINE; /* xcharext table 1 default */
	rpcrdma_credit_req_reset(&s->credit);
}

void rpcrdma_bkchan_srv_disconnect(struct rpcrdma_bkchan_srv *s)
{
	uint32_t i;

	/* 2.3: wait for the client to reconnect, then send again */
	for (i = 0; i < s->ncalls; i++)
		if (s->calls[i].state == RPCRDMA_BKCHAN_CALL_SENT)
			s->calls[i].state = RPCRDMA_BKCHAN_CALL_RESEND;
	s->vers = 0;
	s->v1_ready = false;
	rpcrdma_credit_req_reset(&s->credit);
}

void rpcrdma_bkchan_srv_set_ready(struct rpcrdma_bkchan_srv *s, bool ready)
{
	s->v1_ready = ready;
}

void rpcrdma_bkchan_srv_set_peer_brs(struct rpcrdma_bkchan_srv *s, uint32_t brs)
{
	s->peer_brs = brs;
}

int rpcrdma_bkchan_srv_may_call(const struct rpcrdma_bkchan_srv *s)
{
	if (s->vers == 0)
		return -ENOTCONN;
	/* 2.2.3: "MUST NOT perform backward direction ... unless the peer ... is prepared" */
	if (s->vers == RPCRDMA_VERS_1)
		return s->v1_ready ? 0 : -ECONNREFUSED;
	return s->peer_brs == RPCRDMA_BKREQSUP_NONE ? -ECONNREFUSED : 0;
}

static struct rpcrdma_bkchan_call *srv_find(struct rpcrdma_bkchan_srv *s, uint32_t xid)
{
	uint32_t i;

	for (i = 0; i < s->ncalls; i++)
		if (s->calls[i].state != RPCRDMA_BKCHAN_CALL_FREE && s->calls[i].xid == xid)
			return &s->calls[i];
	return NULL;
}

int rpcrdma_bkchan_srv_call(struct rpcrdma_bkchan_srv *s, uint32_t xid, void *ctx)
{
	struct rpcrdma_bkchan_call *slot = NULL;
	uint32_t i;
	int ret;

	ret = rpcrdma_bkchan_srv_may_call(s);
	if (ret < 0)
		return ret;
	if (srv_find(s, xid) != NULL)
		return -EEXIST;
	for (i = 0; i < s->ncalls && slot == NULL; i++)
		if (s->calls[i].state == RPCRDMA_BKCHAN_CALL_FREE)
			slot = &s->calls[i];
	if (slot == NULL)
		return -ENOBUFS;
	ret = rpcrdma_credit_req_acquire(&s->credit);
	if (ret < 0)
		return ret;
	slot->xid = xid;
	slot->ctx = ctx;
	slot->seq = ++s->seq;
	slot->state = RPCRDMA_BKCHAN_CALL_SENT;
	return 0;
}

int rpcrdma_bkchan_srv_reply(struct rpcrdma_bkchan_srv *s, uint32_t xid, uint32_t credit,
			     void **ctx)
{
	struct rpcrdma_bkchan_call *c = srv_find(s, xid);
	int ret = 0;

	if (c == NULL || c->state != RPCRDMA_BKCHAN_CALL_SENT)
		return -ENOENT;
	if (credit == 0) {
		s->zero_credit++;
		ret = -EPROTO; /* 2.1.2 */
	} else {
		rpcrdma_credit_req_update(&s->credit, credit);
	}
	(void)rpcrdma_credit_req_release(&s->credit);
	*ctx = c->ctx;
	memset(c, 0, sizeof(*c));
	return ret;
}

int rpcrdma_bkchan_srv_next_resend(struct rpcrdma_bkchan_srv *s, uint32_t *xid, void **ctx)
{
	struct rpcrdma_bkchan_call *oldest = NULL;
	uint32_t i;
	int ret;

	for (i = 0; i < s->ncalls; i++)
		if (s->calls[i].state == RPCRDMA_BKCHAN_CALL_RESEND &&
		    (oldest == NULL || s->calls[i].seq < oldest->seq))
			oldest = &s->calls[i];
	if (oldest == NULL)
		return 0;
	ret = rpcrdma_bkchan_srv_may_call(s);
	if (ret < 0)
		return ret;
	ret = rpcrdma_credit_req_acquire(&s->credit);
	if (ret < 0)
		return ret;
	oldest->state = RPCRDMA_BKCHAN_CALL_SENT;
	*xid = oldest->xid;
	*ctx = oldest->ctx;
	return 1;
}

int rpcrdma_bkchan_srv_cancel(struct rpcrdma_bkchan_srv *s, uint32_t xid, void **ctx)
{
	struct rpcrdma_bkchan_call *c = srv_find(s, xid);

	if (c == NULL)
		return -ENOENT;
	if (c->state == RPCRDMA_BKCHAN_CALL_SENT)
		(void)rpcrdma_credit_req_release(&s->credit);
	*ctx = c->ctx;
	memset(c, 0, sizeof(*c));
	return 0;
}

uint32_t rpcrdma_bkchan_srv_count(const struct rpcrdma_bkchan_srv *s,
				  enum rpcrdma_bkchan_call_state state)
{
	uint32_t i, n = 0;

	for (i = 0; i < s->ncalls; i++)
		n += s->calls[i].state == state;
	return n;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder's glue: the engine's recv_call runs the RPC dispatcher
 * (rpcrdma_xprt_svc.h). The request lives in the engine's call slot; the
 * dispatcher appends the reply to the call's reply stream, which the
 * engine sends inline or through the requester's write and reply chunks.
 */
#include <errno.h>
#include <string.h>

#include <rpcrdma/rpcrdma_xprt_svc.h>

void rpcrdma_xprt_svc_init(struct rpcrdma_xprt_svc *svc, struct rpcrdma_svc_registry *reg,
			   uint32_t slot)
{
	memset(svc, 0, sizeof(*svc));
	svc->reg = reg;
	svc->slot = slot;
}

void rpcrdma_xprt_svc_bind(struct rpcrdma_xprt_svc *svc, struct rpcrdma_xprt_params *p)
{
	p->recv_call = rpcrdma_xprt_svc_recv_call;
	p->reply_done = rpcrdma_xprt_svc_reply_done;
	p->ctx = svc;
	p->flags |= RPCRDMA_XPRT_F_RPC_ERRORS;
}

static void send_reply(struct rpcrdma_xprt_svc *svc, struct rpcrdma_xprt_svc_call *call)
{
	if (rpcrdma_xprt_svc_call_reply(call) == 0)
		svc->st.replies++;
	else
		svc->st.reply_fails++;
}

/* rpcrdma_svc_complete() of a pending call: ret 0, or -ENOSPC (no reply written). */
static void pending_done(struct rpcrdma_svc_req *req, int ret)
{
	struct rpcrdma_xprt_svc_call *call = req->done_arg;
	struct rpcrdma_xprt_svc *svc = rpcrdma_xprt_svc_call_priv(call);

	if (ret < 0) {
		svc->st.unanswered++;
		rpcrdma_xprt_svc_call_drop(call);
		return;
	}
	send_reply(svc, call);
}

void rpcrdma_xprt_svc_recv_call(void *ctx, struct rpcrdma_xprt_svc_call *call)
{
	struct rpcrdma_xprt_svc *svc = ctx;
	struct rpcrdma_svc_req *req = rpcrdma_xprt_svc_call_req(call);
	const struct rpcrdma_rpc_msg *msg = rpcrdma_xprt_svc_call_msg(call);
	struct rpcrdma_xdr_enc *reply;
	int rpc_ret, ret;

	reply = rpcrdma_xprt_svc_call_reply_enc(call);
	if (reply == NULL) {
		/* the inline pool is empty: the requester retransmits */
		svc->st.no_buffer++;
		rpcrdma_xprt_svc_call_drop(call);
		return;
	}
	rpc_ret = rpcrdma_xprt_svc_call_rpc_status(call);
	if (rpc_ret == 0)
		rpc_ret = (int)msg->hdr_len;
	rpcrdma_xprt_svc_call_set_priv(call, svc);
	req->slot = svc->slot;
	req->done = pending_done;
	req->done_arg = call;
	/* set by dispatch when the call reaches a procedure (reply_done looks) */
	req->proc = NULL;
	svc->st.calls++;
	ret = rpcrdma_svc_dispatch(svc->reg, req, msg, rpc_ret, rpcrdma_xprt_svc_call_args(call),
				   reply);
	if (ret == RPCRDMA_SVC_PENDING) {
		svc->st.pending++;
		return;
	}
	if (ret != RPCRDMA_SVC_OK) {
		svc->st.unanswered++;
		rpcrdma_xprt_svc_call_drop(call);
		return;
	}
	send_reply(svc, call);
}

void rpcrdma_xprt_svc_reply_done(void *ctx, struct rpcrdma_xprt_svc_call *call, int status)
{
	struct rpcrdma_xprt_svc *svc = ctx;
	struct rpcrdma_svc_req *req = rpcrdma_xprt_svc_call_req(call);

	if (svc->reply_done != NULL && req->proc != NULL)
		svc->reply_done(svc->reply_done_arg, req, status);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder's glue: the engine's recv_call runs the RPC dispatcher
 * (rpcrdma_xprt_svc.h), in the callback or, with a runtime, on a worker
 * lcore. The request lives in the engine's call slot; the dispatcher
 * appends the reply to the call's reply stream, which the engine sends
 * inline or through the requester's write and reply chunks.
 *
 * With a runtime, a call goes through these steps (P: the poller, W: a
 * worker), all without allocation:
 *
 *   P  recv_call: the reply stream, the request's inputs (call header,
 *      argument and reply streams, the header's decode result in run_ret),
 *      xflags = CALL_IN_RT, rpcrdma_rt_queue(req->item)
 *   W  run: req->slot = this lcore's index, run_ret = rpcrdma_svc_dispatch()
 *   P  done: xflags cleared; OK: reply; PENDING: wait for the completion
 *      (or send the one that came early); an error: drop
 *
 * xflags is read and written on the poller only. The worker reads what the
 * poller wrote before rpcrdma_rt_queue() and writes slot, run_ret and what
 * dispatch writes; the rings' release and acquire order both ways.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_lcore.h>

#include <rpcrdma/rpcrdma_xprt_svc.h>

/* req->xflags, on the poller */
#define CALL_IN_RT     (1u << 0) /* queued to the runtime; its done has not run */
#define CALL_COMPLETED (1u << 1) /* pending, completed while in the runtime */
#define CALL_NOSPC     (1u << 2) /* ... without a reply written: drop it */

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
	p->svc_upper_size = sizeof(struct rpcrdma_svc_req);
}

static_assert(sizeof(struct rpcrdma_svc_req) <= RPCRDMA_XPRT_UPPER_MAX, "the request fits a slot");

/* Each call's request lives in its slot's upper area (rpcrdma_xprt_svc_bind()). */
struct rpcrdma_svc_req *rpcrdma_xprt_svc_call_req(struct rpcrdma_xprt_svc_call *call)
{
	return rpcrdma_xprt_svc_call_upper(call);
}

static void send_reply(struct rpcrdma_xprt_svc *svc, struct rpcrdma_xprt_svc_call *call)
{
	if (rpcrdma_xprt_svc_call_reply(call) == 0)
		svc->st.replies++;
	else
		svc->st.reply_fails++;
}

/* A pending call completed: ret 0 (the reply is written), or -ENOSPC (none). */
static void send_completed(struct rpcrdma_xprt_svc *svc, struct rpcrdma_xprt_svc_call *call,
			   int ret)
{
	if (ret < 0) {
		svc->st.unanswered++;
		rpcrdma_xprt_svc_call_drop(call);
		return;
	}
	send_reply(svc, call);
}

/* rpcrdma_svc_complete() of a pending call, on the poller: ret 0 or -ENOSPC. */
static void pending_done(struct rpcrdma_svc_req *req, int ret)
{
	struct rpcrdma_xprt_svc_call *call = req->done_arg;
	struct rpcrdma_xprt_svc *svc = rpcrdma_xprt_svc_call_priv(call);

	if (req->xflags & CALL_IN_RT) {
		/* the item is still on its way back: its done sends this */
		req->xflags |= CALL_COMPLETED | (ret < 0 ? CALL_NOSPC : 0);
		svc->st.rt_early++;
		return;
	}
	send_completed(svc, call, ret);
}

/* What dispatch returned, on the poller: reply, drop, or wait for the completion. */
static void answer(struct rpcrdma_xprt_svc *svc, struct rpcrdma_xprt_svc_call *call, int ret,
		   uint32_t xflags)
{
	if (ret == RPCRDMA_SVC_PENDING) {
		svc->st.pending++;
		if (xflags & CALL_COMPLETED)
			send_completed(svc, call, xflags & CALL_NOSPC ? -ENOSPC : 0);
		return;
	}
	if (ret != RPCRDMA_SVC_OK) {
		svc->st.unanswered++;
		rpcrdma_xprt_svc_call_drop(call);
		return;
	}
	send_reply(svc, call);
}

/* ------------------------------------------------------------ the runtime */

static struct rpcrdma_svc_req *item_req(struct rpcrdma_rt_item *item)
{
	return container_of(item, struct rpcrdma_svc_req, item);
}

/* On the worker (or the poller with no workers): dispatch, counted in @p slot. */
static void run_req(struct rpcrdma_svc_req *req, int slot)
{
	const struct rpcrdma_xprt_svc *svc = rpcrdma_xprt_svc_call_priv(req->done_arg);

	req->slot = slot >= 0 ? (uint32_t)slot : svc->slot;
	req->run_ret =
		rpcrdma_svc_dispatch(svc->reg, req, req->call, req->run_ret, req->args, req->reply);
}

/* Back on the poller. */
static void done_req(struct rpcrdma_svc_req *req)
{
	struct rpcrdma_xprt_svc_call *call = req->done_arg;
	struct rpcrdma_xprt_svc *svc = rpcrdma_xprt_svc_call_priv(call);
	uint32_t xflags = req->xflags;

	req->xflags = 0;
	svc->st.rt_returned++;
	answer(svc, call, req->run_ret, xflags);
}

static void item_run(struct rpcrdma_rt_item *item)
{
	run_req(item_req(item), rte_lcore_index(-1));
}

static void item_done(struct rpcrdma_rt_item *item)
{
	done_req(item_req(item));
}

static void burst_run(struct rpcrdma_rt_item **items, unsigned int n, void *arg)
{
	int slot = rte_lcore_index(-1);
	unsigned int i;

	RTE_SET_USED(arg);
	for (i = 0; i < n; i++)
		run_req(item_req(items[i]), slot);
}

static void burst_done(struct rpcrdma_rt_item **items, unsigned int n, void *arg)
{
	unsigned int i;

	RTE_SET_USED(arg);
	for (i = 0; i < n; i++)
		done_req(item_req(items[i]));
}

void rpcrdma_xprt_svc_rt_bind(struct rpcrdma_rt_params *p)
{
	p->run_burst = burst_run;
	p->done_burst = burst_done;
	p->burst_arg = NULL;
}

int rpcrdma_xprt_svc_set_rt(struct rpcrdma_xprt_svc *svc, struct rpcrdma_rt_poller *poller)
{
	int idx;

	if (svc->st.rt_queued != svc->st.rt_returned)
		return -EBUSY;
	if (poller == NULL) {
		svc->poller = NULL;
		return 0;
	}
	idx = rte_lcore_index((int)rpcrdma_rt_poller_lcore(poller));
	if (idx < 0 || rpcrdma_svc_nb_slots(svc->reg) < rte_lcore_count())
		return -EINVAL;
	svc->poller = poller;
	svc->slot = (uint32_t)idx;
	return 0;
}

void rpcrdma_xprt_svc_complete(struct rpcrdma_svc_req *req, int status)
{
	const struct rpcrdma_xprt_svc *svc = rpcrdma_xprt_svc_call_priv(req->done_arg);

	req->slot = svc->slot;
	rpcrdma_svc_complete(req, status);
}

/* ------------------------------------------------------------ callbacks */

void rpcrdma_xprt_svc_recv_call(void *ctx, struct rpcrdma_xprt_svc_call *call)
{
	struct rpcrdma_xprt_svc *svc = ctx;
	struct rpcrdma_svc_req *req = rpcrdma_xprt_svc_call_req(call);
	const struct rpcrdma_rpc_msg *msg = rpcrdma_xprt_svc_call_msg(call);
	struct rpcrdma_xdr_dec *args = rpcrdma_xprt_svc_call_args(call);
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
	/* the DRC's client key, here on the poller: the hook may read the poller's state */
	req->client_key = svc->client_key != NULL
				  ? svc->client_key(svc->client_key_arg,
						    rpcrdma_xprt_svc_call_xprt(call), msg)
				  : rpcrdma_xprt_peer_key(rpcrdma_xprt_svc_call_xprt(call));
	/* set by dispatch when the call reaches a procedure (reply_done looks) */
	req->proc = NULL;
	req->xflags = 0;
	svc->st.calls++;
	if (svc->poller != NULL) {
		/* what the worker dispatches with (dispatch sets the same again) */
		req->call = msg;
		req->args = args;
		req->reply = reply;
		req->run_ret = rpc_ret;
		req->item.run = item_run;
		req->item.done = item_done;
		req->xflags = CALL_IN_RT;
		svc->st.rt_queued++;
		/* with no workers, run and done are over when this returns */
		if (rpcrdma_rt_queue(svc->poller, &req->item) == 0)
			return;
		/* -ENOBUFS, -ESHUTDOWN: answer here rather than leave the call unanswered */
		svc->st.rt_queued--;
		svc->st.rt_refused++;
		req->xflags = 0;
	}
	ret = rpcrdma_svc_dispatch(svc->reg, req, msg, rpc_ret, args, reply);
	answer(svc, call, ret, 0);
}

void rpcrdma_xprt_svc_reply_done(void *ctx, struct rpcrdma_xprt_svc_call *call, int status)
{
	struct rpcrdma_xprt_svc *svc = ctx;
	struct rpcrdma_svc_req *req = rpcrdma_xprt_svc_call_req(call);

	if (svc->reply_done != NULL && req->proc != NULL)
		svc->reply_done(svc->reply_done_arg, req, status);
}

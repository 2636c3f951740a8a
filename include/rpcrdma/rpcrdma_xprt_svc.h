/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The responder's glue between the connection engine (rpcrdma_xprt.h) and
 * RPC program dispatch (rpcrdma_svc.h): a ready-made recv_call callback
 * that runs rpcrdma_svc_dispatch() on every call a connection receives and
 * sends the reply, at once or, for a handler that returned
 * RPCRDMA_SVC_PENDING, when the service calls rpcrdma_svc_complete().
 *
 *   struct rpcrdma_xprt_svc glue;
 *
 *   rpcrdma_xprt_svc_init(&glue, registry, rte_lcore_index(-1));
 *   rpcrdma_xprt_params_init(&p, RPCRDMA_XPRT_SERVER);
 *   ...
 *   rpcrdma_xprt_svc_bind(&glue, &p);
 *   rpcrdma_xprt_accept(&p, ev, &xprt);
 *
 * Each call's struct rpcrdma_svc_req lives in the engine's call slot (no
 * allocation per call); req->done_arg is the struct rpcrdma_xprt_svc_call,
 * so an asynchronous handler keeps req and completes it later, on the
 * lcore that polls the connection. Results that a procedure encodes with
 * rpcrdma_xdr_put_ddp() must stay valid until the reply is sent: the
 * optional reply_done hook (called for the calls that reached a procedure)
 * says when (status 0) or that it never will be
 * (negative), and gives the request back with its result struct.
 *
 * One struct rpcrdma_xprt_svc serves any number of connections polled by
 * one lcore (its counters and the registry's slot are that lcore's).
 */
#ifndef RPCRDMA_XPRT_SVC_H
#define RPCRDMA_XPRT_SVC_H

#include <stdint.h>

#include <rpcrdma/rpcrdma_svc.h>
#include <rpcrdma/rpcrdma_xprt.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A reply was sent (0) or will not be (negative errno): DDP results may be reused. */
typedef void (*rpcrdma_xprt_svc_reply_done_t)(void *arg, struct rpcrdma_svc_req *req, int status);

/** Counters of the glue (one lcore's). */
struct rpcrdma_xprt_svc_stats {
	uint64_t calls;	      /**< calls given to the dispatcher */
	uint64_t replies;     /**< replies handed to the engine */
	uint64_t pending;     /**< calls a handler completed later */
	uint64_t no_buffer;   /**< dropped: no inline buffer for the reply */
	uint64_t unanswered;  /**< dropped: the dispatcher wrote no reply (-EPROTO, -ENOSPC) */
	uint64_t reply_fails; /**< the engine refused the reply (connection gone) */
};

/** The glue: initialise with rpcrdma_xprt_svc_init(); transparent for the counters. */
struct rpcrdma_xprt_svc {
	struct rpcrdma_svc_registry *reg;
	uint32_t slot;				  /**< the registry's counter slot */
	rpcrdma_xprt_svc_reply_done_t reply_done; /**< optional */
	void *reply_done_arg;
	struct rpcrdma_xprt_svc_stats st;
};

/**
 * Initialise the glue for a registry and a counter slot (the lcore index,
 * below the registry's nb_slots); no reply_done hook, counters zero.
 */
void rpcrdma_xprt_svc_init(struct rpcrdma_xprt_svc *svc, struct rpcrdma_svc_registry *reg,
			   uint32_t slot);

/**
 * Make a responder's parameters use the glue: recv_call, reply_done and
 * ctx, and RPCRDMA_XPRT_F_RPC_ERRORS (calls of another rpcvers or with a
 * malformed credential are answered RPC_MISMATCH and AUTH_BADCRED).
 */
void rpcrdma_xprt_svc_bind(struct rpcrdma_xprt_svc *svc, struct rpcrdma_xprt_params *p);

/**
 * The recv_call callback (ctx: the struct rpcrdma_xprt_svc): dispatch the
 * call and reply, or leave it pending for rpcrdma_svc_complete(). A call
 * without an answer (no reply buffer, no answerable RPC header, no room
 * even for an error reply) is dropped and counted.
 */
void rpcrdma_xprt_svc_recv_call(void *ctx, struct rpcrdma_xprt_svc_call *call);

/** The reply_done callback (ctx: the struct rpcrdma_xprt_svc): calls the hook. */
void rpcrdma_xprt_svc_reply_done(void *ctx, struct rpcrdma_xprt_svc_call *call, int status);

/**
 * The dispatcher's request embedded in an engine call (what the glue
 * passes to rpcrdma_svc_dispatch()); valid while the call is the upper
 * layer's.
 */
struct rpcrdma_svc_req *rpcrdma_xprt_svc_call_req(struct rpcrdma_xprt_svc_call *call);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_XPRT_SVC_H */

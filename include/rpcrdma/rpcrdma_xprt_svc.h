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
 *
 * Dispatch on worker lcores (rpcrdma_rt.h): after
 * rpcrdma_xprt_svc_set_rt(&glue, poller), where poller is the runtime's
 * poller whose poll functions poll the connections, recv_call only takes
 * the reply stream (on the poller: the engine is not thread-safe), fills
 * the request and queues the request's runtime item. A worker runs
 * rpcrdma_svc_dispatch() (handler, encoder; counters in the worker's
 * slot), and the item's done, back on the poller, hands the reply to the
 * engine or drops the call. A runtime without workers runs both at once
 * on the poller (run to completion). When the runtime refuses the item
 * (-ENOBUFS: every ring to the workers full; -ESHUTDOWN: stopping), the
 * call is dispatched on the poller at once and counted (rt_refused).
 *
 *   What runs where, with a runtime:
 *     poller   recv_call, the reply stream, done (reply or drop),
 *              reply_done, rpcrdma_xprt_svc_complete() of pending calls
 *     worker   rpcrdma_svc_dispatch(): decoder, handler, encoder
 *
 * Handlers of one glue then run on several workers at once: state they
 * share needs atomics or per-lcore copies. On a worker the glue touches
 * only the request, the call's argument and reply streams (the upper
 * layer's while the call is dispatched) and the glue's registry; of the
 * engine's functions it calls only the getter of the call's priv pointer,
 * which the poller set before the handoff.
 *
 * Pending calls: a handler that returns RPCRDMA_SVC_PENDING (on a worker)
 * keeps the request, and its service completes it later ON THE POLLER that
 * owns the connection, with rpcrdma_xprt_svc_complete() (which moves the
 * request's counters to the poller's slot, so that no two lcores write
 * one slot) -- never on a worker or another thread: the reply is handed to
 * the engine there and then. It may do so before the request's item is
 * back from the worker; the glue then keeps the reply until the item's
 * done runs. Without a runtime, rpcrdma_svc_complete() on the polling
 * lcore is the same.
 */
#ifndef RPCRDMA_XPRT_SVC_H
#define RPCRDMA_XPRT_SVC_H

#include <stdint.h>

#include <rpcrdma/rpcrdma_rt.h>
#include <rpcrdma/rpcrdma_svc.h>
#include <rpcrdma/rpcrdma_xprt.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A reply was sent (0) or will not be (negative errno): DDP results may be reused. */
typedef void (*rpcrdma_xprt_svc_reply_done_t)(void *arg, struct rpcrdma_svc_req *req, int status);

/**
 * Which client sent the call @p msg on @p xprt: the request's client_key,
 * part of the registry's duplicate request cache key (rpcrdma_svc.h).
 * Called in recv_call, on the lcore that polls the connection, before the
 * call is dispatched (@p msg is the decoded header; with
 * RPCRDMA_XPRT_F_RPC_ERRORS it may be one dispatch refuses). It must give
 * one key for one client on each of its connections (a client that
 * reconnects retransmits on a new one) and, as far as the upper layer can
 * tell, different keys for different clients. A procedure whose effect
 * belongs to the connection (a subscription that ends with it) may instead
 * have a key of the connection, so that its copy on a new connection runs
 * again. Without the hook the key is the connection's peer
 * (rpcrdma_xprt_peer_key(), from rpcrdma_xprt_peer()): the client's IP address
 * on verbs, whatever its port, so that a reconnected client's copy is
 * found, as Linux nfsd keys its cache by the client's address; its process
 * on shm. Two clients behind one address then share a key, and their
 * calls are told apart by the XID and the arguments' length and checksum;
 * an upper layer that knows more (a session the client announced) gives
 * the hook. On a client's connection (backward calls) the default key is 0.
 */
typedef uint64_t (*rpcrdma_xprt_svc_client_key_t)(void *arg, const struct rpcrdma_xprt *xprt,
						  const struct rpcrdma_rpc_msg *msg);

/** Counters of the glue (one lcore's: the poller's with a runtime). */
struct rpcrdma_xprt_svc_stats {
	uint64_t calls;	      /**< calls given to the dispatcher */
	uint64_t replies;     /**< replies handed to the engine */
	uint64_t pending;     /**< calls a handler completed later */
	uint64_t no_buffer;   /**< dropped: no inline buffer for the reply */
	uint64_t unanswered;  /**< dropped: no reply written (-EPROTO, -ENOSPC, -EALREADY) */
	uint64_t reply_fails; /**< the engine refused the reply (connection gone) */
	/* with a runtime (rpcrdma_xprt_svc_set_rt()) */
	uint64_t rt_queued;   /**< calls handed to the runtime (rpcrdma_rt_queue() took them) */
	uint64_t rt_returned; /**< of those, back on the poller (their done ran) */
	uint64_t rt_refused;  /**< refused by the runtime: dispatched on the poller instead */
	uint64_t rt_early;    /**< pending calls completed before their item was back */
};

/** The glue: initialise with rpcrdma_xprt_svc_init(); transparent for the counters. */
struct rpcrdma_xprt_svc {
	struct rpcrdma_svc_registry *reg;
	uint32_t slot;				  /**< the registry's counter slot */
	rpcrdma_xprt_svc_reply_done_t reply_done; /**< optional */
	void *reply_done_arg;
	struct rpcrdma_xprt_svc_stats st;
	struct rpcrdma_rt_poller *poller;	  /**< NULL: dispatch in recv_call (set_rt) */
	rpcrdma_xprt_svc_client_key_t client_key; /**< optional: NULL keys by the peer */
	void *client_key_arg;
};

/**
 * Initialise the glue for a registry and a counter slot (the lcore index,
 * below the registry's nb_slots); no reply_done or client_key hook,
 * counters zero.
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
 * Dispatch the glue's calls on the workers of @p poller's runtime, or
 * again in recv_call (@p poller NULL). Control path, from the thread that
 * polls the glue's connections while none of its calls is in the runtime
 * (before the runtime starts or after it stopped); set NULL before the
 * runtime is freed. The glue's slot becomes the poller's lcore index (with
 * NULL it is left as it is: set svc->slot when the polling lcore changes).
 * The runtime may have the glue's burst handlers
 * (rpcrdma_xprt_svc_rt_bind()) or none.
 *
 * @return 0; -EINVAL: the registry has fewer counter slots than the EAL
 *   has lcores (workers count in their own slots: create it with nb_slots
 *   RTE_MAX_LCORE), or the poller's lcore is not an EAL lcore; -EBUSY: calls
 *   of the glue are in the runtime. Nothing changed on error.
 */
int rpcrdma_xprt_svc_set_rt(struct rpcrdma_xprt_svc *svc, struct rpcrdma_rt_poller *poller);

/**
 * Make a runtime's parameters use the glue's burst handlers (run_burst,
 * done_burst): one call per ring burst, and no item field written by the
 * runtime. Only for a runtime whose items are all glue calls; without
 * them each call's item has its own run and done, which work on any
 * runtime.
 */
void rpcrdma_xprt_svc_rt_bind(struct rpcrdma_rt_params *p);

/**
 * Complete a call of the glue whose handler returned RPCRDMA_SVC_PENDING:
 * rpcrdma_svc_complete() with the counters in the glue's slot. Call it on
 * the lcore that polls the call's connection (the runtime's poller), never
 * on a worker or another thread; the call may still be on its way back
 * from the worker (its reply then goes when it is back).
 */
void rpcrdma_xprt_svc_complete(struct rpcrdma_svc_req *req, int status);

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

/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The RPC-over-RDMA transport engine: one connection, both roles, over any
 * PMD (rpcrdma_pmd.h): version 1 (RFC 8166 as shaped by rfc5666bis) and
 * version 2 (draft) with transport characteristics (xcharext draft), and
 * backward-direction calls (RFC 8167) in both.
 *
 * A struct rpcrdma_xprt is one connection, owned by one lcore, which calls
 * rpcrdma_xprt_poll() in its loop. The poll reaps completions in bursts,
 * advances every call and reply that was waiting, posts receives, and rings
 * one doorbell for all the work requests it staged. No syscalls, locks or
 * heap allocation on that path (except the per-call registrations of
 * RPCRDMA_XPRT_F_PER_CALL_MR, a control-path operation of the PMD).
 *
 * Requester (RPCRDMA_XPRT_CLIENT): rpcrdma_xprt_call_alloc() gives a call
 * with an XID and an XDR encoding stream over a registered inline buffer;
 * the caller writes the RPC call header (rpcrdma_xprt_call_put_header(),
 * or rpcrdma_xprt_put_rpc() for any credential) and the arguments, marks
 * DDP-eligible arguments with rpcrdma_xdr_put_ddp(), describes the reply
 * in the call's struct rpcrdma_xdr_reply_spec, and submits. The engine
 * picks the message form (Short, Chunked, Long Call, Long Reply), waits
 * for a credit, sends, and completes the call with the
 * reply's decoding stream (zero copy: it points at the receive buffer and
 * at the caller's write-chunk buffers). rpcrdma_xprt_call_release() gives
 * the call back.
 *
 * Responder (RPCRDMA_XPRT_SERVER): every call received is decoded, its read
 * chunks pulled with RDMA Read (into chunk-pool buffers, at most read_depth
 * Reads in flight), and handed to the recv_call callback as a struct
 * rpcrdma_xprt_svc_call. The upper layer decodes the arguments from the call's
 * stream, encodes the reply into the call's reply stream and calls
 * rpcrdma_xprt_svc_call_reply(), then or later; or rpcrdma_xprt_svc_call_drop().
 *
 * Telemetry: every connection is listed, from creation to destruction, by
 * the engine's connection provider ("xprt", rpcrdma_telemetry.h):
 * /rpcrdma/conns gives the ids (rpcrdma_xprt_info() id), /rpcrdma/conn,<id>
 * the role, state, negotiated thresholds, credit state and every counter of
 * struct rpcrdma_xprt_stats under its field name.
 *
 * Connection states (enum rpcrdma_xprt_state) and credits (rpcrdma_credit.h)
 * are per connection, as are the version, the direction and the inline
 * thresholds.
 *
 * Versions (version two draft section 5, rpcrdma_vers.h): a client with
 * params.vers = RPCRDMA_VERS_2 opens every connection with one version 2
 * call of at most 1024 bytes and sends nothing else until it is answered;
 * a version 2 answer settles version 2, ERR_VERS settles version 1 on the
 * same connection (the call is sent again in version 1, same XID), and the
 * peer is remembered so that later connections to it start in version 1.
 * A server accepts the versions params.vers_min..params.vers and answers
 * every call in the version it came in; any other version gets ERR_VERS
 * with that range. Once settled, each side uses the version's default
 * inline threshold (1024 or 4096) unless the peer's RFC 8797 private data
 * said otherwise, and never more than its own configured thresholds.
 * Version 2 headers carry rdma_direction (forward calls CALL, replies
 * REPLY; checked on receipt); a malformed version 2 call is answered
 * RDMA2_ERR_BAD_HEADER and an RDMA2_OPTIONAL message of a type the
 * receiver does not support RDMA2_ERR_INVAL_OPTION, with the same XID.
 *
 * Transport characteristics (xcharext draft, rpcrdma_xchar_state.h): once
 * version 2 is settled each side sends its ROPT_INITXCH before anything
 * else (Receive Buffer Size: its receives; Requester Remote Invalidation:
 * a client offering Send With Invalidate; Backward Request Support), and
 * answers ROPT_REQXCH with ROPT_RESPXCH, announcing later changes with
 * ROPT_UPDXCH. The peer's values rule the connection: its Receive Buffer
 * Size what is sent inline, its Requester Remote Invalidation whether a
 * server replies with Send With Invalidate. rpcrdma_xprt_xchar_request()
 * asks the peer for changes, rpcrdma_xprt_xchar_set() changes ours, and
 * rpcrdma_xprt_xchar_info() shows both sides' values. These messages use
 * a few control slots of the connection, apart from calls and replies.
 */
#ifndef RPCRDMA_XPRT_H
#define RPCRDMA_XPRT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rpcrdma/rpcrdma_pdata.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_rpc.h>
#include <rpcrdma/rpcrdma_vers.h>
#include <rpcrdma/rpcrdma_xchar_state.h>
#include <rpcrdma/rpcrdma_xdr.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------ connections */

struct rpcrdma_mempool_set;
struct rpcrdma_xprt;
struct rpcrdma_xprt_call;
struct rpcrdma_xprt_svc_call;

/** The role of a connection. */
enum rpcrdma_xprt_role {
	RPCRDMA_XPRT_CLIENT, /**< requester: sends calls */
	RPCRDMA_XPRT_SERVER, /**< responder: answers calls */
};

/**
 * Connection states. rpcrdma_xprt_process() (called by every poll) moves a
 * connection along; events (rpcrdma_xprt_event()) and completion errors
 * feed it.
 */
enum rpcrdma_xprt_state {
	/**
	 * Created, no connection yet (client before rpcrdma_xprt_connect()).
	 */
	RPCRDMA_XPRT_IDLE,
	/**
	 * The connection manager exchange is under way. Client: connect sent
	 * with our private data, waiting for ESTABLISHED (to NEGOTIATING) or
	 * REJECTED / CONNECT_ERROR (to ERROR). Server: accept sent, waiting
	 * for the client's confirmation (to ESTABLISHED); the QP may already
	 * receive calls and send replies.
	 */
	RPCRDMA_XPRT_CONNECTING,
	/**
	 * The peer's RFC 8797 private data has arrived (client: in the
	 * accept; server: in the connect request) and is applied by the next
	 * process step: inline thresholds, Send With Invalidate, receives
	 * posted for the grant. Client then ESTABLISHED; server then accepts
	 * and goes to CONNECTING.
	 */
	RPCRDMA_XPRT_NEGOTIATING,
	/** Calls flow. */
	RPCRDMA_XPRT_ESTABLISHED,
	/**
	 * The connection is gone or going (local close, the peer's
	 * disconnect, a failed work request): the QP is in error and every
	 * outstanding work request is flushing. Calls complete with an error
	 * or wait to be retransmitted; server calls still held by the upper
	 * layer wait for their reply or drop. To CLOSED when nothing is
	 * outstanding.
	 */
	RPCRDMA_XPRT_DRAINING,
	/**
	 * Drained: no work request outstanding, every buffer back in its
	 * pool, the QP destroyed. A client may connect again (calls marked
	 * RPCRDMA_XPRT_CALL_F_RETRANSMIT are then sent again, same XID).
	 */
	RPCRDMA_XPRT_CLOSED,
	/**
	 * The connection could not be made (rejected, the peer went away
	 * while connecting) or could not be set up (no QP, no buffers). A
	 * client may connect again.
	 */
	RPCRDMA_XPRT_ERROR,
};

/** Name of a state ("ESTABLISHED"). */
const char *rpcrdma_xprt_state_name(enum rpcrdma_xprt_state st);

/** Connection flags (rpcrdma_xprt_params.flags). */
/**
 * Expose chunk memory per call: each buffer a call exposes to the peer is
 * registered as its own MR (a sub-range of its pool, fd = -1) for the life
 * of the call and invalidated after, unless the responder already did with
 * Send With Invalidate. Without it the pools' own rkeys are advertised and
 * stay valid (the PMD's whole-pool registration; see the README's security
 * trade-off) and Send With Invalidate is not offered. Default on, and in
 * force only where the device's dev_info has RPCRDMA_PMD_DEV_CHEAP_MR_REG
 * (the shm PMD; not verbs): rpcrdma_xprt_create() and rpcrdma_xprt_accept()
 * clear it elsewhere (rpcrdma_xprt_info() flags shows what is in force).
 */
#define RPCRDMA_XPRT_F_PER_CALL_MR (1u << 0)
/**
 * Offer Send With Invalidate to the peer (RFC 8797 flag) and, as
 * responder, use it when the requester offered it and one rkey covers the
 * call's chunks. Ignored without RPCRDMA_XPRT_F_PER_CALL_MR, and cleared
 * where the device's dev_info lacks RPCRDMA_PMD_DEV_REMOTE_INV.
 */
#define RPCRDMA_XPRT_F_REMOTE_INV (1u << 1)
/**
 * Responder: use an offered reply chunk whenever one is offered
 * (rfc5666bis 5.3.3, Linux svcrdma); default on. Without it the reply
 * chunk is used only when the reply does not fit inline (RFC 8166).
 */
#define RPCRDMA_XPRT_F_REPLY_CHUNK_ALWAYS (1u << 2)
/**
 * Responder: hand recv_call also the calls whose RPC header has another
 * rpcvers (-RPCRDMA_E_RPCVERS) or a malformed credential
 * (-RPCRDMA_E_OPAQUE_BOUND, -RPCRDMA_E_GIDS, -RPCRDMA_E_AUTH_LEN), so that
 * they are answered RPC_MISMATCH or AUTH_BADCRED (rpcrdma_svc_dispatch()
 * does); rpcrdma_xprt_svc_call_rpc_status() tells, and only xid, type and
 * (for RPCVERS) rpcvers of the header are then set. Default off: those
 * calls are dropped. rpcrdma_xprt_svc_bind() sets it.
 */
#define RPCRDMA_XPRT_F_RPC_ERRORS (1u << 3)
/**
 * Version 2 without the transport characteristics extension: no
 * ROPT_INITXCH is sent, and every RDMA2_OPTIONAL message is answered
 * RDMA2_ERR_INVAL_OPTION (a peer that does not support it). Default off.
 */
#define RPCRDMA_XPRT_F_NO_XCHAR (1u << 4)

/**
 * A requester call's status, given to its callback and returned by
 * rpcrdma_xprt_call_test(): 0 and the reply's decoding stream, positioned
 * at the start of the RPC reply (the XID), pointing into the receive
 * buffer and the call's write-chunk buffers (valid until
 * rpcrdma_xprt_call_release()); or a negative status and reply NULL:
 *   -ETIMEDOUT: no reply within the call's timeout
 *   (rpcrdma_xprt_call_set_timeout()); a reply that comes later is
 *   dropped and counted (late_replies);
 *   -ECONNRESET: the connection was lost before the reply (a transport
 *   error: a failed work request, the peer's disconnect, a local close),
 *   the call sent or still waiting for a credit;
 *   -ENOTCONN: submitted while not connected, without RETRANSMIT;
 *   -EPROTONOSUPPORT: the responder answered RDMA_ERROR ERR_VERS (but
 *   to a version 2 probe, whose call is sent again in version 1), or it
 *   supports no version this client speaks;
 *   -EREMOTEIO: the responder answered RDMA_ERROR ERR_CHUNK (version 2:
 *   RDMA2_ERR_BAD_HEADER or RDMA2_ERR_INVAL_OPTION);
 *   -EBADMSG: the reply's transport header or chunks were malformed;
 *   -EMSGSIZE, -EINVAL, -E2BIG, -ENOBUFS: the call could not be
 *   marshaled (rpcrdma_marshal_call());
 *   -ENOMEM: registering its chunk memory failed.
 * The RPC outcome inside a reply (accept and reject status) is the upper
 * layer's to decode: rpcrdma_xprt_reply_rpc() maps it to
 * -RPCRDMA_XPRT_E_* codes.
 * Called from rpcrdma_xprt_poll() (or rpcrdma_xprt_call_submit() for a
 * call that fails at once). It may release the call and submit others.
 */
typedef void (*rpcrdma_xprt_call_cb_t)(void *arg, struct rpcrdma_xprt_call *call, int status,
				       struct rpcrdma_xdr_dec *reply);

/**
 * Responder: a call arrived. The svc call is the upper layer's until it
 * calls rpcrdma_xprt_svc_call_reply() or rpcrdma_xprt_svc_call_drop() (now, from the
 * callback, or later from the same lcore). The arguments stream and the
 * RPC header stay valid until then.
 */
/** A connection's queue pair was created (rpcrdma_xprt_params.qp_created). */
typedef void (*rpcrdma_xprt_qp_created_cb_t)(void *ctx, struct rpcrdma_pmd_qp *qp);

typedef void (*rpcrdma_xprt_recv_call_cb_t)(void *ctx, struct rpcrdma_xprt_svc_call *call);

/**
 * Responder: a reply was sent (status 0) or could not be (negative); the
 * DDP-eligible result buffers it named may be reused. Optional. A Short
 * reply without DDP-eligible results, to a call without chunks, holds
 * nothing of the upper layer's: its Send takes the reply buffer, and the
 * call is done (status 0) as soon as the reply is queued.
 */
typedef void (*rpcrdma_xprt_reply_done_cb_t)(void *ctx, struct rpcrdma_xprt_svc_call *call,
					     int status);

/** Connection parameters; initialise with rpcrdma_xprt_params_init(). */
struct rpcrdma_xprt_params {
	enum rpcrdma_xprt_role role;
	/**
	 * Client: RPCRDMA_VERS_1 (version 1 only), or RPCRDMA_VERS_2
	 * (version 2 preferred, version 1 when the server answers ERR_VERS).
	 * Server: the highest version accepted. Default RPCRDMA_VERS_1.
	 */
	uint32_t vers;
	/** Server: the lowest version accepted, 1..vers (default RPCRDMA_VERS_1). */
	uint32_t vers_min;
	/**
	 * Client: the versions settled with recent servers, shared by the
	 * connections of one lcore (not thread-safe); NULL: the connection's
	 * own, kept across its reconnects.
	 */
	struct rpcrdma_vers_peers *vers_peers;
	/**
	 * Backward-direction RPC (RFC 8167; rpcrdma_xprt.h "Backward
	 * direction"). Client: the backward credits it grants, the backward
	 * calls it takes at once (receives posted for them beyond the forward
	 * ones); needs recv_call. Server: the most backward calls outstanding
	 * (its call slots, the rdma_credit it asks for). 0 (default): none.
	 */
	uint32_t bk_credits;
	struct rpcrdma_pmd_dev *dev;	   /**< the device */
	struct rpcrdma_pmd_pd *pd;	   /**< the PD the pools are registered with */
	struct rpcrdma_mempool_set *pools; /**< inline pool and chunk pools */
	/**
	 * Client: the largest grant accepted (calls outstanding at most),
	 * and the rdma_credit requested. Server: the largest grant (receive
	 * queue depth for calls). Default 32.
	 */
	uint32_t max_credits;
	/** Server: the grant at start, 1..max_credits (default max_credits). */
	uint32_t credits;
	/** Client: call slots, a power of two up to 1024 (default 64). */
	uint32_t max_calls;
	/**
	 * Our inline thresholds before negotiation: the most we send inline,
	 * and our receive buffers, sent as RFC 8797 private data. Default: the
	 * inline pool's buffer size. A connection sends at most the smaller of
	 * send_inline and the peer's receive size (its private data's, or the
	 * settled version's default: 1024 for version 1, 4096 for version 2).
	 */
	uint32_t send_inline;
	uint32_t recv_inline;
	/** Server: largest reassembled call accepted (default 1 MiB + 64 KiB). */
	uint32_t max_call;
	/** Most bytes one chunk segment covers (default 1 MiB). */
	uint32_t max_seg_len;
	/** RDMA Reads in flight on the QP (default 16). */
	uint32_t read_depth;
	/**
	 * RPCRDMA_XPRT_F_* (default PER_CALL_MR | REMOTE_INV |
	 * REPLY_CHUNK_ALWAYS; the device may clear the first two).
	 */
	uint32_t flags;
	rpcrdma_xprt_recv_call_cb_t recv_call; /**< server: required */
	rpcrdma_xprt_reply_done_cb_t reply_done;
	void *ctx; /**< for the server callbacks */
	/**
	 * Bytes the engine keeps with each responder slot for the layer above
	 * (rpcrdma_xprt_svc_call_upper()), zeroed at creation, 64-byte
	 * aligned: that layer's per-call state without an allocation per
	 * call. At most RPCRDMA_XPRT_UPPER_MAX; default 0 (none).
	 * rpcrdma_xprt_svc_bind() sets it for its struct rpcrdma_svc_req.
	 */
	uint32_t svc_upper_size;
	/**
	 * Optional: called with the connection's queue pair as soon as it is
	 * created, before any receive is posted on it, with qp_ctx. The place
	 * to start a capture (rpcrdma_capture_qp()) that sees every message.
	 */
	rpcrdma_xprt_qp_created_cb_t qp_created;
	void *qp_ctx;
	/**
	 * Client: the timeout of every call, in microseconds from its submit
	 * (rpcrdma_xprt_call_set_timeout() overrides it per call); default 0:
	 * none.
	 */
	uint64_t call_timeout_us;
	/**
	 * Client: reconnect by itself when the connection is lost or a
	 * connect fails, as Linux xprtrdma does: up to reconnect_max
	 * attempts in a row (default 0: never; the application calls
	 * rpcrdma_xprt_connect() again), the first reconnect_delay_us after
	 * the loss (default 1 ms), each next one twice the last, at most
	 * reconnect_delay_max_us (default 1 s). Private data, the version and
	 * the characteristics are negotiated anew; every call without a reply
	 * goes again with its XID, as Linux xprtrdma sends them (with
	 * reconnect_max, each call is submitted as if it carried
	 * RPCRDMA_XPRT_CALL_F_RETRANSMIT; a server with a duplicate request
	 * cache answers the ones it already ran: rpcrdma_svc.h). When the
	 * attempts are spent, the calls waiting for a connection fail
	 * -ECONNABORTED (counter reconnect_give_ups). Logged on the log type
	 * "rpcrdma.xprt": the loss and the reconnection (NOTICE), each
	 * attempt (INFO), giving up (ERR).
	 * rpcrdma_xprt_disconnect() stops it. The application goes on passing
	 * the PMD's events to rpcrdma_xprt_event() and polling.
	 */
	uint32_t reconnect_max;
	uint32_t reconnect_delay_us;
	uint32_t reconnect_delay_max_us;
	/**
	 * Version 2: the transport characteristics this side promises never
	 * to change (RPCRDMA_XCHAR_BIT() of known ids), sent as its
	 * ROPT_INITXCH optixch_nochg. rpcrdma_xprt_xchar_set() then refuses
	 * them (-EPERM) and a peer's ROPT_REQXCH for them is rejected.
	 * Default 0: none.
	 */
	uint32_t xchar_nochg;
	/**
	 * The poll group the connection joins (rpcrdma_xprt_group_create()),
	 * or NULL (default): a connection with its own CQ and receive queue.
	 * In a group the connection's QP completes on the group's CQ and
	 * receives from the group's SRQ; its grant follows the group's credit
	 * policy (a server's credits and max_credits bound it); pools must be
	 * the group's. A server may have backward calls (bk_credits), and a
	 * client a backward service (bk_credits and recv_call).
	 */
	struct rpcrdma_xprt_group *group;
};

/** Defaults for a role (see each field). */
void rpcrdma_xprt_params_init(struct rpcrdma_xprt_params *p, enum rpcrdma_xprt_role role);

/**
 * Create a client connection (state IDLE): its CQ, call slots and buffers.
 * What the device reports (rpcrdma_pmd_dev_info_get()) bounds what the
 * connection does: the flags it keeps (RPCRDMA_XPRT_F_PER_CALL_MR,
 * RPCRDMA_XPRT_F_REMOTE_INV) and the gather entries of its Sends and
 * Writes (max_send_sge). rpcrdma_xprt_accept() does the same.
 *
 * @return
 *   0 and *xprt; -EINVAL: bad parameters (role, version, credits, slots,
 *   thresholds above the inline buffer size, an unknown id in
 *   xchar_nochg); -EOPNOTSUPP: a device that gathers fewer than 2 entries
 *   per Send; -ENOMEM; the PMD's or the pool's error. Nothing is left on
 *   error.
 */
int rpcrdma_xprt_create(const struct rpcrdma_xprt_params *p, struct rpcrdma_xprt **xprt);

/**
 * Server: who the client is, as the connect request told it (the PMD's
 * rpcrdma_pmd_conn_req_peer(): its IP address and port on verbs, its
 * process on shm), for a log line (rpcrdma_pmd_peer_str()); its key for
 * a duplicate request cache is rpcrdma_xprt_peer_key(). NULL for a
 * client's connection.
 */
const struct rpcrdma_pmd_peer *rpcrdma_xprt_peer(const struct rpcrdma_xprt *xprt);

/**
 * Server: the client key of the connection for a duplicate request cache:
 * rpcrdma_pmd_peer_key() of rpcrdma_xprt_peer() folded to 32 bits (its
 * two halves xored), kept on a line of the connection every call reads, so
 * that keying each call costs no cache miss. Equal for one client's
 * connections; two clients meet only by the fold. 0 for a client's
 * connection or an unknown peer.
 */
uint64_t rpcrdma_xprt_peer_key(const struct rpcrdma_xprt *xprt);

/**
 * Client: connect to @p addr with our private data (to CONNECTING). From
 * IDLE, CLOSED or ERROR (a reconnect: calls waiting for retransmission are
 * sent again once ESTABLISHED).
 *
 * @return
 *   0; -EISCONN: in another state; the PMD's error (state ERROR).
 */
int rpcrdma_xprt_connect(struct rpcrdma_xprt *xprt, const char *addr);

/**
 * Server: create a connection for a CONNECT_REQUEST event, apply the
 * client's private data, post the receives and accept with our private
 * data (to CONNECTING).
 *
 * @return
 *   0 and *xprt; the errors of rpcrdma_xprt_create(); the PMD's error of
 *   accept. The request is rejected on every error but -EINVAL.
 */
int rpcrdma_xprt_accept(const struct rpcrdma_xprt_params *p, const struct rpcrdma_pmd_event *ev,
			struct rpcrdma_xprt **xprt);

/**
 * Feed a connection event of the device to the connection its QP belongs
 * to (ESTABLISHED, REJECTED, DISCONNECTED, CONNECT_ERROR).
 *
 * @return
 *   1: consumed; 0: not a connection event of an xprt (CONNECT_REQUEST, or
 *   another QP).
 */
int rpcrdma_xprt_event(const struct rpcrdma_pmd_event *ev);

/**
 * Close: disconnect (to DRAINING; CLOSED once drained). Outstanding calls
 * complete with -ECONNRESET unless they asked for retransmission.
 *
 * @return
 *   0; -ENOTCONN: not connected (nothing done).
 */
int rpcrdma_xprt_disconnect(struct rpcrdma_xprt *xprt);

/**
 * Destroy a connection in IDLE, CLOSED or ERROR: every call slot must be
 * free (released), every buffer goes back to its pool.
 *
 * @return
 *   0; -EBUSY: in another state, or calls not released (nothing done).
 */
int rpcrdma_xprt_destroy(struct rpcrdma_xprt *xprt);

/** The state. */
enum rpcrdma_xprt_state rpcrdma_xprt_state(const struct rpcrdma_xprt *xprt);

/**
 * Advance the connection state machine until it stops changing; called by
 * rpcrdma_xprt_poll(). Tests call it to walk the transitions.
 *
 * @return
 *   The number of transitions made.
 */
int rpcrdma_xprt_process(struct rpcrdma_xprt *xprt);

/**
 * Poll: reap up to a burst of completions, advance calls and replies, post
 * receives, stage sends, ring one doorbell.
 *
 * @return
 *   The work done (completions, calls advanced, state changes); 0 when
 *   idle.
 */
int rpcrdma_xprt_poll(struct rpcrdma_xprt *xprt);

/**
 * Ring the doorbell now for the work requests staged since the last poll
 * (calls submitted, replies sent outside a callback), on the lcore that
 * polls the connection. rpcrdma_xprt_poll() rings it anyway at its end;
 * a latency-sensitive caller that submits a call and wants it on the wire
 * before its next poll calls this after submitting (several submits and
 * one flush are still one doorbell).
 *
 * @return
 *   The work requests handed to the PMD.
 */
uint32_t rpcrdma_xprt_flush(struct rpcrdma_xprt *xprt);

/**
 * @name Poll groups
 * Many connections polled by one lcore (SPDK's poll group): one CQ that
 * all their work requests complete on and one shared receive queue that
 * all their messages land in, whatever the number of connections. A poll
 * reaps one burst of the group's completions, advances the connections
 * they name and those with work pending (calls waiting for a credit,
 * staged sends, timeouts, connections not established), and tops the SRQ
 * up: its cost follows the connections that have work, not how many are
 * open. Connections join at rpcrdma_xprt_create() or
 * rpcrdma_xprt_accept() (rpcrdma_xprt_params.group) and leave at
 * rpcrdma_xprt_destroy(); the group runs meanwhile. One lcore owns a
 * group and all its connections (not thread-safe).
 *
 * Credits (rfc5666bis 4.3): the SRQ holds @c recvs receives for the whole
 * group, and every receive a server connection may grant is reserved for
 * it there, so a call the grant allows always finds one. Each server
 * connection's grant is an equal share of @c recvs, at least 1 (a grant
 * of 0 would deadlock the requester) and at most its max_credits, set
 * again as connections come and go; a grant that shrinks takes effect
 * with the next reply. A client connection reserves a receive for each
 * call it has out and one for each backward call it may be sent (its
 * bk_credits), and a server one for each backward call it has out (its
 * bk_credits): every connection's bk_credits are kept out of the receives
 * shared as grants, so that the backward reservations always succeed. A
 * client's call goes out only with a receive reserved for its reply: when
 * the group's recvs are all reserved, it waits (reserve_stalls) until a
 * reply gives one back. Its first is always there (each connection's
 * floor), so a client can always have a call out.
 * @{
 */

/** A poll group (opaque). */
struct rpcrdma_xprt_group;

/** Poll group parameters; initialise with rpcrdma_xprt_group_params_init(). */
struct rpcrdma_xprt_group_params {
	struct rpcrdma_pmd_dev *dev;	   /**< the device */
	struct rpcrdma_pmd_pd *pd;	   /**< the PD of the SRQ and of the connections */
	struct rpcrdma_mempool_set *pools; /**< the connections' pools (receives: inline pool) */
	/** Connections at once, at most (default 1024): sizes the CQ. */
	uint32_t max_conns;
	/**
	 * Receives the group's SRQ holds for calls and replies: the credits
	 * granted across the group, its clients' calls out, and the backward
	 * calls and replies (every connection's bk_credits are kept out of
	 * the grants) (default 1024).
	 * At least max_conns (a grant of 1 each).
	 */
	uint32_t recvs;
	/**
	 * Send-queue work requests of each connection's QP, its drain marker
	 * included (default 96): at least 66 (a reply with the most RDMA
	 * Writes, and the marker).
	 */
	uint32_t sq_depth;
	/**
	 * Call slots the group's client connections share (default 0: each
	 * client keeps max_calls slots of its own). With calls, a client's
	 * call takes the slot the group freed last, whatever its connection,
	 * at most max_calls of a connection's at once: with calls spread
	 * over many connections, the slots of the calls in flight stay in
	 * the cache, where a connection's own would be as cold as the
	 * connection. rpcrdma_xprt_call_alloc() is -EBUSY when all are in use
	 * (group counter slots_short). Rounded up to a power of 2; at most
	 * 65536. Servers' backward calls keep their own slots.
	 */
	uint32_t calls;
};

/** Counters of a poll group. */
struct rpcrdma_xprt_group_stats {
	uint64_t polls;	      /**< rpcrdma_xprt_group_poll() calls */
	uint64_t idle_polls;  /**< ... that found nothing to do */
	uint64_t wcs;	      /**< completions reaped */
	uint64_t conn_visits; /**< connections advanced (named by a completion, or pending) */
	/**
	 * Completions of a server's fast reply Sends retired without a visit:
	 * the oldest WR of a connection with nothing else going on.
	 */
	uint64_t quick_retires;
	uint64_t recvs_posted; /**< receives posted on the SRQ */
	uint64_t recv_short;   /**< SRQ top-ups that fell short (no buffer) */
	/**
	 * Reservations refused: the SRQ was all reserved. Counted at each try:
	 * a connection short of one (a client's call waiting, reserve_stalls)
	 * tries again at every poll.
	 */
	uint64_t reserve_short;
	uint64_t share_changes; /**< server grants set again (connections came or went) */
	/**
	 * Messages that found nothing reserved for their connection: more
	 * than its grant allows (a peer that broke the credit rules), taken
	 * from the SRQ's spare.
	 */
	uint64_t unreserved;
	/** Calls refused (-EBUSY) because every call slot the group shares was in use. */
	uint64_t slots_short;
	uint32_t conns;	     /**< connections in the group now */
	uint32_t share;	     /**< each server connection's grant now */
	uint32_t srq_posted; /**< receives on the SRQ now */
	uint32_t reserved;   /**< ... of them reserved by connections */
	uint32_t slots;	     /**< call slots the group's clients share (params calls, rounded) */
	uint32_t slots_busy; /**< ... of them in use now */
	/** Bytes the group's connections hold (rpcrdma_xprt_info() mem_bytes, summed). */
	uint64_t conn_bytes;
};

/** Defaults (see each field); dev, pd and pools must be set. */
void rpcrdma_xprt_group_params_init(struct rpcrdma_xprt_group_params *p);

/**
 * Create a poll group: its CQ (max_conns * (sq_depth + 1) + recvs + a
 * burst entries, within the device's max_cqe) and SRQ (recvs receives of
 * the inline pool's buffer size), and the receives' descriptors.
 *
 * @return
 *   0 and *group; -EINVAL: bad parameters (recvs below max_conns,
 *   sq_depth below 66); -ENOTSUP: the device has no SRQ; -E2BIG: the CQ
 *   would exceed the device's max_cqe or the SRQ its max_srq_wr (lower
 *   max_conns, sq_depth or recvs); -ENOMEM; the PMD's error.
 */
int rpcrdma_xprt_group_create(const struct rpcrdma_xprt_group_params *p,
			      struct rpcrdma_xprt_group **group);

/**
 * Destroy an empty group; the receives still posted go back to the pool.
 *
 * @return
 *   0; -EBUSY: connections are still in it (nothing done).
 */
int rpcrdma_xprt_group_destroy(struct rpcrdma_xprt_group *group);

/**
 * Poll the group: one burst of completions, the connections they name and
 * those with work pending, one doorbell per connection with sends staged,
 * then the SRQ topped up. rpcrdma_xprt_poll() on a connection of a group
 * polls its group.
 *
 * @return
 *   The work done; 0 when idle.
 */
int rpcrdma_xprt_group_poll(struct rpcrdma_xprt_group *group);

/** The group's counters. */
void rpcrdma_xprt_group_stats(const struct rpcrdma_xprt_group *group,
			      struct rpcrdma_xprt_group_stats *st);

/** The group a connection is in, or NULL. */
struct rpcrdma_xprt_group *rpcrdma_xprt_group_of(const struct rpcrdma_xprt *xprt);

/** @} */

/**
 * Responder: change the grant (shrink under memory pressure, grow back),
 * 1..max_credits. Takes effect with the next reply; never strands a call.
 *
 * @return
 *   0, or -EINVAL (nothing changed).
 */
int rpcrdma_xprt_set_credits(struct rpcrdma_xprt *xprt, uint32_t credits);

/** What was negotiated. */
struct rpcrdma_xprt_info {
	/**
	 * The version of the messages sent now: client, 2 while its version 2
	 * probe is out; server, vers_min until the first call settles it.
	 */
	uint32_t vers;
	bool vers_settled; /**< the version is settled for this connection */
	/** Backward direction: bk_credits is not 0. */
	bool backward;
	/** Server: the client's backward grant in force; client: the grant it gives. */
	uint32_t bk_grant;
	/** Server: backward calls outstanding; client: backward calls being answered. */
	uint32_t bk_outstanding;
	/** Server: a backward call may be sent now (rpcrdma_xprt_bc_may_call() is 0). */
	bool bk_ready;
	uint32_t send_inline; /**< most bytes we Send */
	uint32_t recv_inline; /**< most bytes we receive */
	bool peer_remote_inv; /**< the peer accepts Send With Invalidate */
	bool peer_pdata;      /**< the peer sent RFC 8797 private data */
	uint32_t grant;	      /**< client: the grant in force; server: the target */
	uint32_t outstanding; /**< client: calls outstanding; server: calls active */
	struct rpcrdma_pmd_qp *qp;
	/** The connection's id in telemetry: /rpcrdma/conn,<id> (provider "xprt"). */
	uint64_t id;
	/**
	 * RPCRDMA_XPRT_F_* in force: params.flags less what the device cannot
	 * do (RPCRDMA_XPRT_F_PER_CALL_MR, RPCRDMA_XPRT_F_REMOTE_INV).
	 */
	uint32_t flags;
	/**
	 * What a DRAINING connection waits for before it is CLOSED: send work
	 * requests not yet completed, receives still posted, and server calls
	 * not yet released (replied to or dropped, and their Sends done).
	 */
	uint32_t sends_out;
	uint32_t recvs_posted;	 /**< receives posted and not yet completed */
	uint32_t svc_unreleased; /**< server calls not yet released */
	/**
	 * Bytes the connection holds: its heap (the connection, its slots,
	 * rings and receive descriptors) and the pool buffers it keeps for its
	 * life (header areas; its receives' buffers when it has its own
	 * receive queue, at most nrx of them). Not the PMD's QP.
	 */
	uint64_t mem_bytes;
};

/** Fill @p info. */
void rpcrdma_xprt_info(const struct rpcrdma_xprt *xprt, struct rpcrdma_xprt_info *info);

/**
 * Per-connection counters. The ones every call moves come first, on two
 * cache lines (the engine aligns them).
 */
struct rpcrdma_xprt_stats {
	/* the first line: what every call, reply and poll visit counts or reads */
	uint64_t calls;		  /**< client: calls sent (retransmissions included) */
	uint64_t replies;	  /**< client: replies matched; server: replies sent */
	uint64_t calls_recv;	  /**< server: calls received */
	uint64_t short_msgs;	  /**< messages sent in the Short form */
	uint64_t wrs;		  /**< send-queue work requests queued */
	uint64_t doorbells;	  /**< flushes that rang a doorbell */
	uint64_t polls;		  /**< turns of the connection (its own poll, or a group's visit) */
	uint64_t max_outstanding; /**< client: most calls outstanding at once */
	uint64_t send_inv;	  /**< Sends With Invalidate (server) or received (client) */
	uint64_t recvs;		  /**< receives posted */
	uint64_t idle_polls;
	uint64_t chunked_msgs;
	uint64_t long_msgs;	/**< RDMA_NOMSG sent */
	uint64_t long_replies;	/**< client: calls offering a reply chunk */
	uint64_t errors_sent;	/**< server: RDMA_ERROR sent */
	uint64_t errors_recv;	/**< client: RDMA_ERROR received */
	uint64_t read_bytes;	/**< RDMA Read bytes (server) */
	uint64_t write_bytes;	/**< RDMA Write bytes (server) */
	uint64_t err_vers;	/**< messages of an unsupported version */
	uint64_t err_hdr;	/**< malformed transport headers */
	uint64_t err_chunk;	/**< bad chunks, RDMA_MSGP, replies too big */
	uint64_t done_recv;	/**< RDMA_DONE received (server: answered ERR_CHUNK) */
	uint64_t unmatched;	/**< replies without an outstanding call */
	uint64_t bad_replies;	/**< client: replies that do not match their call */
	uint64_t dropped;	/**< server: calls dropped */
	uint64_t wc_errors;	/**< completions with an error other than a flush */
	uint64_t flushed;	/**< flushed completions */
	uint64_t failed;	/**< client: calls completed with an error */
	uint64_t retransmits;	/**< client: calls sent again after a reconnect */
	uint64_t credit_stalls; /**< client: submits that waited for a credit */
	uint64_t excess_calls;	/**< server: calls beyond the grant */
	uint64_t mr_regs;	/**< per-call registrations */
	uint64_t mr_invalidates;
	uint64_t reconnects;
	uint64_t reconnect_attempts; /**< client: connects the engine made by itself */
	uint64_t reconnect_give_ups; /**< client: reconnect_max attempts spent */
	uint64_t timeouts;	     /**< client: calls completed with -ETIMEDOUT */
	uint64_t late_replies;	     /**< client: replies to calls that had timed out (dropped) */
	/**
	 * Client: connections closed because calls that timed out after their
	 * Send held every credit granted (each keeps its credit until its
	 * late reply: rfc5666bis 4.3).
	 */
	uint64_t tmo_disconnects;
	uint64_t vers_probes;	 /**< client: version 2 probes sent */
	uint64_t vers_fallbacks; /**< client: probes answered ERR_VERS (sent again in version 1) */
	uint64_t bad_direction;	 /**< version 2 messages whose rdma_direction is not ours to take */
	uint64_t options_recv;	 /**< RDMA2_OPTIONAL messages received */
	uint64_t err_option;	 /**< RDMA2_ERR_INVAL_OPTION sent */
	uint64_t xchar_sent;	 /**< transport characteristics messages sent */
	uint64_t xchar_recv;	 /**< ... received and applied */
	uint64_t xchar_errors; /**< ... malformed or breaking a rule (RDMA2_ERR_BAD_HEADER sent) */
	uint64_t ctrl_drops;   /**< control messages not sent: no control slot or queue room */
	uint64_t bc_refused;   /**< server: backward calls failed locally, the client not ready */
	/**
	 * Replies whose DDP-eligible results were copied inline, because
	 * gathering them would take more entries than the device's
	 * max_send_sge (and the call offered no write chunk to put them in).
	 */
	uint64_t inline_pullups;
	/**
	 * Calls whose rdma_xid is not the XID of the RPC message they carry,
	 * answered ERR_CHUNK (rfc5666bis 5.5.2; RDMA2_ERR_BAD_HEADER in
	 * version 2).
	 */
	uint64_t err_xid;
	/**
	 * Calls offering a reply chunk longer than an inline buffer whose
	 * reply stream found no chunk buffer free: built in the inline
	 * buffer, so a longer reply did not fit.
	 */
	uint64_t reply_buf_short;
	/**
	 * Client in a poll group: calls that waited for a receive of the
	 * group's SRQ to be reserved for their reply (a call counted already
	 * as a credit stall is not counted again).
	 */
	uint64_t reserve_stalls;
};

/** Copy the counters. */
void rpcrdma_xprt_stats(const struct rpcrdma_xprt *xprt, struct rpcrdma_xprt_stats *st);

/**
 * Write the connection's state to @f, for a person: the counters a stall
 * is read from (calls, replies, the engine's and its QP's work requests,
 * doorbells and receives), its send queue, receives, credits both ways,
 * the calls waiting and where each of its responder slots is, and its
 * group's. For a stall ("no reply"): call it
 * from the connection's thread, or once that thread stops polling; from
 * another thread the figures may be torn (as rte_ring_dump()).
 */
void rpcrdma_xprt_dump(FILE *f, const struct rpcrdma_xprt *xprt);

/* ------------------------------------------------ transport characteristics */

/** A version 2 connection's transport characteristics (xcharext draft). */
struct rpcrdma_xprt_xchar {
	/** The exchange runs: version 2 settled, the extension not turned off. */
	bool active;
	bool peer_init;	       /**< the peer's ROPT_INITXCH arrived */
	bool peer_unsupported; /**< the peer answered ours RDMA2_ERR_INVAL_OPTION */
	bool req_outstanding;  /**< our ROPT_REQXCH awaits its ROPT_RESPXCH */
	enum rpcrdma_xchar_st st;
	struct rpcrdma_xchar_vals local; /**< ours, as the peer knows them */
	struct rpcrdma_xchar_vals peer;	 /**< the peer's (defaults until its ROPT_INITXCH) */
	uint32_t req_pend;   /**< ids of ours the peer holds pending (RPCRDMA_XCHAR_BIT) */
	uint32_t peer_pend;  /**< ids the peer asked of us that we hold pending */
	uint32_t nochg;	     /**< ids we promised never to change (params.xchar_nochg) */
	uint32_t peer_nochg; /**< ids the peer promised never to change (its optixch_nochg) */
	uint32_t max_send;   /**< the most we send to the peer inline */
};

/** The characteristics of a connection: -ENOTCONN when the exchange does not run. */
int rpcrdma_xprt_xchar_info(const struct rpcrdma_xprt *xprt, struct rpcrdma_xprt_xchar *xi);

/**
 * Ask the peer to change characteristics (ROPT_REQXCH); its ROPT_RESPXCH
 * and later ROPT_UPDXCH update what rpcrdma_xprt_xchar_info() shows.
 *
 * @return
 *   0; -ENOTCONN: the exchange does not run; -EBUSY: a request is
 *   outstanding, or an id is still pending; -EINVAL: as
 *   rpcrdma_xchar_state_request(); -ENOBUFS: no control slot now.
 */
int rpcrdma_xprt_xchar_request(struct rpcrdma_xprt *xprt, const struct rpcrdma_xcharspec *want);

/**
 * Change one of our characteristics, announced by ROPT_UPDXCH (completing
 * the peer's pending request for it). A raised Receive Buffer Size is
 * announced once no smaller receive is posted; it cannot pass the inline
 * pool's buffer size.
 *
 * @return
 *   0; -ENOTCONN; the errors of rpcrdma_xchar_state_local_set()
 *   (-EINVAL, -EPERM); -ENOBUFS: no control slot now (the value changed,
 *   its announcement did not go).
 */
int rpcrdma_xprt_xchar_set(struct rpcrdma_xprt *xprt, uint32_t id, uint32_t value);

/* ------------------------------------------------ backward direction */

/*
 * Backward direction (RFC 8167; v2 draft 3.2; xcharext 3.3). A server
 * created with params.bk_credits makes backward calls with the requester
 * API below (rpcrdma_xprt_call_alloc() ... on the server's connection):
 * XIDs of their own space, backward credits apart from forward ones (one
 * until the client's first backward reply, never zero), and only to a
 * client that said it is ready: in version 1 the server's upper layer
 * says so (rpcrdma_xprt_bc_set_ready(), as NFSv4.1's CREATE_SESSION
 * does), in version 2 the client's Backward Request Support; otherwise
 * the call fails at once with -ECONNREFUSED and is never sent. Version 1
 * backward calls and replies are Short only (empty chunk lists), as in
 * version 2 to a client whose support is BKREQSUP_INLINE; with
 * BKREQSUP_GENL they use chunks as forward ones.
 *
 * A client created with params.bk_credits posts that many receives
 * beyond the forward ones (again after every reconnect), grants that
 * many backward credits, says BKREQSUP_GENL in version 2, and hands
 * backward calls to params.recv_call with the responder API below (the
 * RPC dispatch glue of rpcrdma_xprt_svc.h serves registered programs).
 *
 * Backward calls submitted with RPCRDMA_XPRT_CALL_F_RETRANSMIT that were
 * out when the connection was lost wait; when the client connects again,
 * rpcrdma_xprt_bc_adopt() moves them to the new connection, where they
 * are sent again, with their XIDs, once the client is ready.
 */

/**
 * Server: may a backward call be sent now?
 *
 * @return
 *   0; -EOPNOTSUPP: not a server with bk_credits; -ENOTCONN: not
 *   established; -ECONNREFUSED: the client has not said it is ready
 *   (no forward call yet; version 1: rpcrdma_xprt_bc_set_ready() not
 *   called; version 2: its Backward Request Support is BKREQSUP_NONE).
 */
int rpcrdma_xprt_bc_may_call(const struct rpcrdma_xprt *xprt);

/**
 * Server: the upper layer learnt that the client is ready for backward
 * calls (or no longer is). Version 1, and version 2 without the
 * transport characteristics extension.
 *
 * @return
 *   0, or -EOPNOTSUPP: not a server with bk_credits.
 */
int rpcrdma_xprt_bc_set_ready(struct rpcrdma_xprt *xprt, bool ready);

/**
 * Server: move the backward calls waiting for a reconnect (sent with
 * RPCRDMA_XPRT_CALL_F_RETRANSMIT when the connection was lost, or not yet
 * sent) from a closed connection to the client's new one. They keep their
 * XIDs, callbacks and timeouts, and go once the client is ready.
 *
 * @return
 *   The number of calls moved; -EINVAL: not two servers with the same
 *   bk_credits; -EBUSY: from is not CLOSED or ERROR, or a call's slot is
 *   taken on to (nothing moved).
 */
int rpcrdma_xprt_bc_adopt(struct rpcrdma_xprt *to, struct rpcrdma_xprt *from);

/* ------------------------------------------------ requester */

/** Call flags. */
/** After a connection loss, send the call again (same XID) on reconnect instead of failing. */
#define RPCRDMA_XPRT_CALL_F_RETRANSMIT (1u << 0)

/**
 * Take a free call slot (a client's, or a server's for a backward call)
 * with a fresh XID and an inline send buffer, its
 * encoding stream empty and its reply spec empty (max_len, nddp and
 * long_buf zero; ddp[] entries beyond nddp are not cleared). The slot
 * freed last is taken first, so that its lines are still in cache. The
 * stream starts 32 bytes into the buffer (the Short transport header of
 * either version goes there, so that a Short Send is one contiguous gather
 * entry): it holds the buffer size less 32 bytes. A slot takes its buffer
 * from the inline pool the first time and keeps it until the connection is
 * destroyed (as receives keep theirs, and responder slots their reply
 * buffers): no pool operation per call. In a poll group a released call's
 * buffer goes to the group instead, and the group's next call, on any of
 * its connections, takes the one released last: with calls spread over
 * many connections it is still in the cache, where a slot's own buffer
 * would be as cold as its connection, and the group holds only as many
 * buffers as it has calls out at once.
 *
 * A client of a group with shared call slots (group params calls) takes
 * the slot the group freed last, whatever its connection, and may hold at
 * most max_calls of them at once.
 *
 * @return
 *   0 and *call; -EBUSY: every slot is in use (the connection's
 *   max_calls, or the group's shared slots: group counter slots_short);
 *   -ENOBUFS: the inline pool is empty (nothing taken).
 */
int rpcrdma_xprt_call_alloc(struct rpcrdma_xprt *xprt, struct rpcrdma_xprt_call **call);

/**
 * Start loading the lines of @xprt that its next call touches, and return
 * at once. With many connections on one lcore a connection's state is out
 * of the cache by the time its turn comes again, and a call would take its
 * misses one after the other; a caller that knows which connection a call
 * a few calls from now goes to (calls spread over connections in turn)
 * prefetches it now, and the misses overlap with the calls in between.
 * Changes nothing; NULL is ignored.
 */
void rpcrdma_xprt_prefetch(const struct rpcrdma_xprt *xprt);

/**
 * The second step of rpcrdma_xprt_prefetch(): start loading the call slot
 * the next rpcrdma_xprt_call_alloc() on @xprt takes, and what submitting
 * it writes on the connection's send queue and reads and writes of its QP
 * (rpcrdma_pmd_qp_prefetch()). It reads the
 * connection's free list, so it is worth calling only once
 * rpcrdma_xprt_prefetch() of the connection had time to take effect (a few
 * calls after it; half way to the connection's turn). Changes nothing;
 * NULL is ignored.
 */
void rpcrdma_xprt_prefetch_call(const struct rpcrdma_xprt *xprt);

/**
 * The third step: start loading the message buffer of the call slot the
 * next rpcrdma_xprt_call_alloc() on @xprt takes (outside a group: a
 * group's is one it released last, in the cache), and what the doorbell of
 * its Send touches beyond the QP (rpcrdma_pmd_qp_prefetch_doorbell()). It
 * reads the slot's and the QP's lines, so it is worth calling once
 * rpcrdma_xprt_prefetch_call() had time to take effect (half way from it
 * to the connection's turn). Changes nothing; NULL is ignored.
 */
void rpcrdma_xprt_prefetch_send(const struct rpcrdma_xprt *xprt);

/** The call's XID (the RPC message's xid; rdma_xid). */
uint32_t rpcrdma_xprt_call_xid(const struct rpcrdma_xprt_call *call);

/** The call's encoding stream: write the RPC call into it. */
struct rpcrdma_xdr_enc *rpcrdma_xprt_call_enc(struct rpcrdma_xprt_call *call);

/** The call's reply spec: the largest reply and the DDP-eligible result buffers. */
struct rpcrdma_xdr_reply_spec *rpcrdma_xprt_call_reply_spec(struct rpcrdma_xprt_call *call);

/**
 * Set a call's timeout before submitting it: microseconds from the submit
 * to its completion with -ETIMEDOUT, whatever it waits for then (a
 * credit, a reconnect, the reply); 0: none. The default is the
 * connection's call_timeout_us. The poll reads the TSC once when calls
 * with a timeout are outstanding and looks at the earliest deadline only,
 * so a call times out at the first poll after its deadline.
 *
 * A call timed out after its Send holds nothing of the connection's: its
 * credit is returned (as Linux xprtrdma returns its congestion window with
 * the request), its registrations are invalidated, and its late reply is
 * dropped and counted. Its slot becomes free once its Send has retired.
 *
 * @return
 *   0; -EINVAL: the call is not one just allocated (nothing done).
 */
int rpcrdma_xprt_call_set_timeout(struct rpcrdma_xprt_call *call, uint64_t timeout_us);

/**
 * Submit a call: it waits for a credit if needed, and goes out with the
 * doorbell of the next poll (several submits, one doorbell).
 *
 * @param flags
 *   RPCRDMA_XPRT_CALL_F_*.
 * @param cb
 *   Called once when the call completes; NULL for the polling variant:
 *   the caller then asks rpcrdma_xprt_call_test() (or
 *   rpcrdma_xprt_call_wait()) for the status.
 * @return
 *   0; -EINVAL: the call is not one just allocated (nothing done).
 */
int rpcrdma_xprt_call_submit(struct rpcrdma_xprt_call *call, uint32_t flags,
			     rpcrdma_xprt_call_cb_t cb, void *arg);

/**
 * The polling variant: has a call submitted without a callback completed?
 * It does not poll (the lcore's loop calls rpcrdma_xprt_poll()).
 *
 * @param reply
 *   Set to the reply's decoding stream when the status is 0, else NULL
 *   (may be NULL).
 * @return
 *   -EINPROGRESS: not yet; otherwise the call's status (0 or a negative
 *   status of rpcrdma_xprt_call_cb_t) and the call waits for
 *   rpcrdma_xprt_call_release(); -EINVAL: not a submitted call.
 */
int rpcrdma_xprt_call_test(struct rpcrdma_xprt_call *call, struct rpcrdma_xdr_dec **reply);

/**
 * Poll the call's connection until rpcrdma_xprt_call_test() says the call
 * is done, and return what it says. For simple clients and tests: it busy
 * polls, and returns only when the call completes (give the call a
 * timeout); never from inside a callback.
 */
int rpcrdma_xprt_call_wait(struct rpcrdma_xprt_call *call, struct rpcrdma_xdr_dec **reply);

/**
 * Write the call's RPC header into its stream, first: its XID, CALL, RPC
 * version 2, @p prog, @p vers, @p proc, and an AUTH_NONE credential and
 * verifier (RFC 5531 9). The same 40 bytes rpcrdma_xprt_put_rpc() writes
 * for such a message, without building one.
 *
 * @return
 *   0; -ENOSPC: no room (the stream unchanged); -EINVAL: the call is not
 *   being built (submitted already, or released).
 */
int rpcrdma_xprt_call_put_header(struct rpcrdma_xprt_call *call, uint32_t prog, uint32_t vers,
				 uint32_t proc);

/**
 * Release a call: after its callback, or instead of submitting it. Its
 * receive buffer is reposted, its send buffer and credit returned.
 *
 * @return
 *   0; -EBUSY: submitted and not yet completed (nothing done).
 */
int rpcrdma_xprt_call_release(struct rpcrdma_xprt_call *call);

/**
 * Encode an RPC message header (rpcrdma_rpc_encode()) into a stream.
 *
 * @return
 *   0; -ENOSPC; -EINVAL (as rpcrdma_rpc_encode()); the stream unchanged.
 */
int rpcrdma_xprt_put_rpc(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_rpc_msg *msg);

/**
 * Decode an RPC message header (rpcrdma_rpc_decode()) at a decoding
 * stream's cursor and move past it. The header must lie in one piece of
 * the stream (not cut by a read chunk).
 *
 * @return
 *   0; the errors of rpcrdma_rpc_decode(); -RPCRDMA_E_CHUNK_POS: a chunk
 *   starts inside the header; the stream unchanged on error.
 */
int rpcrdma_xprt_get_rpc(struct rpcrdma_xdr_dec *dec, struct rpcrdma_rpc_msg *msg);

/**
 * RPC outcomes of a reply (RFC 5531 accept_stat and reject_stat), returned
 * negated by rpcrdma_xprt_reply_rpc(). They lie above the codec's error
 * numbers (rpcrdma_errno.h) and every errno value.
 */
enum rpcrdma_xprt_rpc_err {
	RPCRDMA_XPRT_E_RPC_BASE = 3000,
	/** MSG_ACCEPTED PROG_UNAVAIL (RPCRDMA_XPRT_E_RPC_BASE + accept_stat, and so on) */
	RPCRDMA_XPRT_E_PROG_UNAVAIL = RPCRDMA_XPRT_E_RPC_BASE + 1,
	RPCRDMA_XPRT_E_PROG_MISMATCH, /**< msg->reply.low and high say which versions */
	RPCRDMA_XPRT_E_PROC_UNAVAIL,
	RPCRDMA_XPRT_E_GARBAGE_ARGS,
	RPCRDMA_XPRT_E_SYSTEM_ERR,
	/** MSG_DENIED RPC_MISMATCH (msg->reply.low and high) */
	RPCRDMA_XPRT_E_RPC_MISMATCH = RPCRDMA_XPRT_E_RPC_BASE + 16,
	/** MSG_DENIED AUTH_ERROR (msg->reply.auth_stat says why) */
	RPCRDMA_XPRT_E_AUTH_ERROR,
	/** MSG_ACCEPTED with an accept_stat RFC 5531 does not define */
	RPCRDMA_XPRT_E_ACCEPT_OTHER,
};

/**
 * Decode a reply's RPC header (rpcrdma_xprt_get_rpc()) and say how the
 * call went at the RPC level.
 *
 * @param reply
 *   The reply's decoding stream (status 0); left after the header.
 * @param xid
 *   The call's XID (rpcrdma_xprt_call_xid()).
 * @param msg
 *   Filled with the reply header.
 * @return
 *   0: MSG_ACCEPTED SUCCESS, the results follow; -RPCRDMA_XPRT_E_*: the
 *   accept or reject status; -EBADMSG: not a reply, or another XID; the
 *   errors of rpcrdma_xprt_get_rpc() (a malformed header).
 */
int rpcrdma_xprt_reply_rpc(struct rpcrdma_xdr_dec *reply, uint32_t xid,
			   struct rpcrdma_rpc_msg *msg);

/* ------------------------------------------------ responder */

/** The decoded RPC call header. */
const struct rpcrdma_rpc_msg *rpcrdma_xprt_svc_call_msg(const struct rpcrdma_xprt_svc_call *call);

/**
 * The arguments: a decoding stream positioned after the RPC call header,
 * DDP-eligible data in place in the read chunks' buffers.
 */
struct rpcrdma_xdr_dec *rpcrdma_xprt_svc_call_args(struct rpcrdma_xprt_svc_call *call);

/**
 * The reply's encoding stream over an inline buffer: write the RPC reply
 * header (rpcrdma_xprt_svc_call_put_reply_header(), or
 * rpcrdma_xprt_put_rpc() for any reply) and the results;
 * rpcrdma_xdr_put_ddp() for DDP-eligible results in registered memory (they go into the call's
 * write chunks). As a call's, the stream starts 32 bytes into its buffer.
 * When the call offers a reply chunk longer than that, the stream is a
 * chunk buffer of the reply chunk's length (at most the largest chunk
 * class; the inline buffer when that pool is empty, counted in
 * reply_buf_short): a reply up to the requester's limit goes out Long.
 *
 * @return
 *   The stream, or NULL when the inline pool is empty (try again later).
 */
struct rpcrdma_xdr_enc *rpcrdma_xprt_svc_call_reply_enc(struct rpcrdma_xprt_svc_call *call);

/**
 * Write an accepted reply's RPC header into the reply's stream
 * (rpcrdma_xprt_svc_call_reply_enc()), first: the call's XID, REPLY,
 * MSG_ACCEPTED, an AUTH_NONE verifier and @p accept_stat (RFC 5531 9).
 * The results, or PROG_MISMATCH's lowest and highest versions, follow.
 *
 * @return
 *   0; -ENOBUFS: the inline pool is empty (try again later); -ENOSPC.
 */
int rpcrdma_xprt_svc_call_put_reply_header(struct rpcrdma_xprt_svc_call *call,
					   uint32_t accept_stat);

/**
 * How the call's RPC header decoded: 0, or (with RPCRDMA_XPRT_F_RPC_ERRORS
 * only) the rpcrdma_rpc_decode() error it is to be answered for.
 */
int rpcrdma_xprt_svc_call_rpc_status(const struct rpcrdma_xprt_svc_call *call);

/** The connection a call came on. */
struct rpcrdma_xprt *rpcrdma_xprt_svc_call_xprt(const struct rpcrdma_xprt_svc_call *call);

/** A pointer the upper layer keeps with the call. */
void rpcrdma_xprt_svc_call_set_priv(struct rpcrdma_xprt_svc_call *call, void *priv);
void *rpcrdma_xprt_svc_call_priv(const struct rpcrdma_xprt_svc_call *call);

/** Largest rpcrdma_xprt_params.svc_upper_size. */
#define RPCRDMA_XPRT_UPPER_MAX 4096

/**
 * The slot's svc_upper_size bytes for the upper layer (the same memory for
 * every call the slot serves), or NULL when svc_upper_size is 0.
 */
void *rpcrdma_xprt_svc_call_upper(const struct rpcrdma_xprt_svc_call *call);

/**
 * Send the reply encoded in the reply stream: inline, with RDMA Writes into
 * the write chunks and the reply chunk, or RDMA_ERROR ERR_CHUNK when it
 * fits nowhere the requester offered. It goes out with the next doorbell.
 *
 * @return
 *   0 (the call is the engine's again); -ENOTCONN: the connection is gone,
 *   the call is dropped; -EINVAL: no reply stream, or not a dispatched call.
 */
int rpcrdma_xprt_svc_call_reply(struct rpcrdma_xprt_svc_call *call);

/** Drop a call without a reply; its buffers go back. */
void rpcrdma_xprt_svc_call_drop(struct rpcrdma_xprt_svc_call *call);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_XPRT_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Backward-direction channel accounting (bidirection draft, RFC 8167; for
 * version 2 the xcharext draft's Backward Request Support), pure: no I/O.
 *
 * - Direction: a received message is a forward or a backward one, told by
 *   the RPC msg_type in version 1 (1.3, 1.5.4) and by rdma_direction /
 *   rdma_optdir in version 2 (v2 draft 3.2), with the receiver's role.
 * - XID spaces: one allocator per direction (1.3.4.1).
 * - Form: what a backward message may look like (2.5, 2.6: version 1
 *   inline only, RDMA_MSG with empty chunk lists; version 2 by the peer's
 *   BRS).
 * - Credits: backward credits apart from forward ones, never zero
 *   (2.1.2), on struct rpcrdma_credit_req / rpcrdma_credit_resp. The client
 *   posts receives for its backward credits and reposts them after a
 *   reconnect (2.2.1).
 * - Readiness: the server sends no backward call before the client said it
 *   is ready (2.2.3: version 1, by the upper layer) or while its BRS is
 *   BKREQSUP_NONE (version 2).
 * - Retransmission: backward calls outstanding when the connection is lost
 *   wait for the client to reconnect and are sent again (2.3).
 */
#ifndef RPCRDMA_BKCHAN_H
#define RPCRDMA_BKCHAN_H

#include <stdbool.h>
#include <stdint.h>

#include <rpcrdma/rpcrdma_credit.h>
#include <rpcrdma/rpcrdma_hdr.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Direction of an RPC transaction (1.3). */
enum rpcrdma_bkchan_dir {
	RPCRDMA_BKCHAN_FORWARD = 0,  /**< client calls, server replies */
	RPCRDMA_BKCHAN_BACKWARD = 1, /**< server calls, client replies */
};

/** The role of an endpoint on the connection. */
enum rpcrdma_bkchan_role {
	RPCRDMA_BKCHAN_CLIENT, /**< opened the connection */
	RPCRDMA_BKCHAN_SERVER, /**< accepted it */
};

/* ------------------------------------------------------------ XIDs */

/** One XID allocator per direction: the two spaces are independent (1.3.4.1). */
struct rpcrdma_bkchan_xids {
	uint32_t next[2]; /**< indexed by enum rpcrdma_bkchan_dir */
};

/** Start both spaces at the given values. */
void rpcrdma_bkchan_xids_init(struct rpcrdma_bkchan_xids *x, uint32_t fwd, uint32_t bwd);

/** A fresh XID for a call in a direction (wraps modulo 2^32). */
uint32_t rpcrdma_bkchan_xid_alloc(struct rpcrdma_bkchan_xids *x, enum rpcrdma_bkchan_dir dir);

/* ------------------------------------------------------------ classifier */

/** What a received message is. */
struct rpcrdma_bkchan_class {
	uint32_t msg_type;	     /**< RPCRDMA_CALL or RPCRDMA_REPLY */
	enum rpcrdma_bkchan_dir dir; /**< the transaction's direction */
};

/**
 * Tell the direction of a received message.
 *
 * A CALL received by the client and a REPLY received by the server are
 * backward. RDMA_ERROR / RDMA2_ERROR go from responder to requester, so
 * are REPLY. Version 1 RDMA_NOMSG carries no inline RPC message and is
 * never backward (2.5, 2.6): forward.
 *
 * @param h
 *   The decoded transport header.
 * @param rpc, rpc_len
 *   The bytes after the transport header (the first two RPC words, xid and
 *   msg_type, are read when present).
 * @return
 *   0 with *out set, or:
 *   - -RPCRDMA_E_TRUNC: an RDMA_MSG / RDMA2_MSG with fewer than 8 bytes of
 *     RPC message.
 *   - -RPCRDMA_E_ENUM: a version 1 msg_type neither CALL nor REPLY.
 *   - -EPROTO: the RPC xid differs from rdma_xid, a version 2
 *     rdma_direction disagrees with the RPC msg_type, or RDMA_DONE / a
 *     version other than 1 and 2.
 */
int rpcrdma_bkchan_classify(enum rpcrdma_bkchan_role role, const struct rpcrdma_hdr *h,
			    const void *rpc, uint32_t rpc_len, struct rpcrdma_bkchan_class *out);

/* ------------------------------------------------------------ form */

/**
 * Whether a backward message (a call from the server or a reply from the
 * client) may be sent in this form.
 *
 * Version 1: RDMA_MSG with three empty chunk lists (2.5, 2.6). Version 2:
 * by the receiver's Backward Request Support: NONE nothing, INLINE as in
 * version 1, GENL RDMA2_MSG or RDMA2_NOMSG with chunks as forward
 * messages. The Send never exceeds the inline limit.
 *
 * @param brs
 *   Version 2: the receiver's BRS (rpcrdma_xchar_state_peer_brs(); for a
 *   client's reply, rpcrdma_bkchan_infer_brs() of the server's call).
 *   Ignored for version 1.
 * @param send_len
 *   Bytes of the Send (transport header and inline RPC message).
 * @param inline_max
 *   The receiver's inline threshold.
 * @return
 *   0; -ECONNREFUSED: version 2 BRS is BKREQSUP_NONE; -EPERM: chunks, or a
 *   proc other than MSG (NOMSG with GENL); -EMSGSIZE: send_len above
 *   inline_max; -EINVAL: vers not 1 or 2, or brs not a bkreqsup.
 */
int rpcrdma_bkchan_check_send(uint32_t vers, uint32_t brs, const struct rpcrdma_hdr *h,
			      uint32_t send_len, uint32_t inline_max);

/**
 * The support level a server's backward call shows for its replies
 * (xcharext 3.3): GENL when the call has any chunk, INLINE otherwise.
 */
uint32_t rpcrdma_bkchan_infer_brs(const struct rpcrdma_hdr *call);

/* ------------------------------------------------------------ client */

/** The client's backward side: it answers backward calls. */
struct rpcrdma_bkchan_cli {
	uint32_t credits;		   /**< backward credits advertised, at least 1 */
	struct rpcrdma_credit_resp credit; /**< receives and grants of the backward channel */
	uint64_t zero_credit;		   /**< backward calls with rdma_credit 0 (dropped) */
};

/**
 * @return
 *   0, or -EINVAL: credits 0 or above INT32_MAX.
 */
int rpcrdma_bkchan_cli_init(struct rpcrdma_bkchan_cli *c, uint32_t credits);

/** A new connection: no receive posted, a full set to post (2.2.1). */
void rpcrdma_bkchan_cli_connect(struct rpcrdma_bkchan_cli *c);

/** Receives to post for backward calls now, beyond those for forward replies. */
uint32_t rpcrdma_bkchan_cli_to_post(const struct rpcrdma_bkchan_cli *c);

/** Account n receives posted for backward calls. */
void rpcrdma_bkchan_cli_posted(struct rpcrdma_bkchan_cli *c, uint32_t n);

/**
 * A backward call consumed a receive.
 *
 * @param credit
 *   Its rdma_credit.
 * @return
 *   0; -EDQUOT: beyond the grant (accounted, may be answered); -EPROTO:
 *   rdma_credit 0 (2.1.2 MUST NOT): the receive is accounted as consumed
 *   and the call dropped, do not answer it; -EINVAL: no receive was
 *   posted, nothing changed.
 */
int rpcrdma_bkchan_cli_call(struct rpcrdma_bkchan_cli *c, uint32_t credit);

/**
 * The rdma_credit for a backward reply: at least 1.
 *
 * @return
 *   The grant; -EAGAIN: post receives first; -EINVAL: no call active.
 */
int rpcrdma_bkchan_cli_reply(struct rpcrdma_bkchan_cli *c);

/* ------------------------------------------------------------ server */

/** State of one backward call the server keeps. */
enum rpcrdma_bkchan_call_state {
	RPCRDMA_BKCHAN_CALL_FREE,   /**< slot unused */
	RPCRDMA_BKCHAN_CALL_SENT,   /**< sent on the current connection, awaiting its reply */
	RPCRDMA_BKCHAN_CALL_RESEND, /**< the connection was lost: send again after reconnect */
};

/** One backward call slot. */
struct rpcrdma_bkchan_call {
	uint32_t xid;
	enum rpcrdma_bkchan_call_state state;
	uint64_t seq; /**< order of first sending: resends go oldest first */
	void *ctx;    /**< the engine's request */
};

/** The server's backward side: it makes backward calls. */
struct rpcrdma_bkchan_srv {
	uint32_t vers;			   /**< version of the connection; 0: not connected */
	bool v1_ready;			   /**< version 1: the client said it is ready */
	uint32_t peer_brs;		   /**< version 2: the client's BRS */
	struct rpcrdma_credit_req credit;  /**< backward calls outstanding vs the client's grant */
	struct rpcrdma_bkchan_call *calls; /**< caller's storage */
	uint32_t ncalls;		   /**< its capacity */
	uint64_t seq;
	uint64_t zero_credit; /**< backward replies with rdma_credit 0 */
};

/**
 * @param max_credits
 *   rdma_credit the server asks for in backward calls (the window's cap).
 * @param calls, ncalls
 *   Storage for the calls kept (outstanding or waiting for resend).
 * @return
 *   0, or -EINVAL: max_credits or ncalls 0.
 */
int rpcrdma_bkchan_srv_init(struct rpcrdma_bkchan_srv *s, uint32_t max_credits,
			    struct rpcrdma_bkchan_call *calls, uint32_t ncalls);

/**
 * A (re)connection in version vers: one backward credit until the first
 * reply, readiness unknown (version 1) or the default BRS INLINE
 * (version 2, until the client's INITXCH). Calls kept stay RESEND.
 */
void rpcrdma_bkchan_srv_connect(struct rpcrdma_bkchan_srv *s, uint32_t vers);

/** The connection is lost: every SENT call becomes RESEND (2.3). */
void rpcrdma_bkchan_srv_disconnect(struct rpcrdma_bkchan_srv *s);

/** Version 1: the upper layer learnt the client is ready (or no longer is). */
void rpcrdma_bkchan_srv_set_ready(struct rpcrdma_bkchan_srv *s, bool ready);

/** Version 2: the client's Backward Request Support changed. */
void rpcrdma_bkchan_srv_set_peer_brs(struct rpcrdma_bkchan_srv *s, uint32_t brs);

/**
 * Whether a backward call may be sent now.
 *
 * @return
 *   0; -ENOTCONN: not connected; -ECONNREFUSED: the client has not said it
 *   is ready (version 1) or its BRS is BKREQSUP_NONE (version 2).
 */
int rpcrdma_bkchan_srv_may_call(const struct rpcrdma_bkchan_srv *s);

/**
 * Account a new backward call about to be sent.
 *
 * @return
 *   0; -ENOTCONN, -ECONNREFUSED: as may_call(); -EAGAIN: no backward
 *   credit; -ENOBUFS: no free slot; -EEXIST: xid already kept. Nothing
 *   changed on error.
 */
int rpcrdma_bkchan_srv_call(struct rpcrdma_bkchan_srv *s, uint32_t xid, void *ctx);

/**
 * A backward reply arrived.
 *
 * @param credit
 *   Its rdma_credit: the client's grant.
 * @param ctx
 *   Set to the call's context.
 * @return
 *   0; -ENOENT: no SENT call has this xid (nothing changed); -EPROTO:
 *   rdma_credit 0 (2.1.2): the call completes but the grant is not
 *   updated.
 */
int rpcrdma_bkchan_srv_reply(struct rpcrdma_bkchan_srv *s, uint32_t xid, uint32_t credit,
			     void **ctx);

/**
 * The next call to send again after a reconnect, oldest first; it becomes
 * SENT and takes a credit.
 *
 * @return
 *   1 with *xid and *ctx set; 0: none waiting; -ENOTCONN, -ECONNREFUSED:
 *   as may_call(); -EAGAIN: no backward credit yet.
 */
int rpcrdma_bkchan_srv_next_resend(struct rpcrdma_bkchan_srv *s, uint32_t *xid, void **ctx);

/**
 * Give up a call (the upper layer's timeout).
 *
 * @return
 *   0 with *ctx set; -ENOENT: not kept.
 */
int rpcrdma_bkchan_srv_cancel(struct rpcrdma_bkchan_srv *s, uint32_t xid, void **ctx);

/** Calls kept in a state. */
uint32_t rpcrdma_bkchan_srv_count(const struct rpcrdma_bkchan_srv *s,
				  enum rpcrdma_bkchan_call_state state);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_BKCHAN_H */

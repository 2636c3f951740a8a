/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Transport characteristics state of a version 2 connection
 * (draft-dnoveck-nfsv4-rpcrdma-xcharext-02), pure: the engine passes the
 * decoded ROPT_* bodies it receives (rpcrdma_xchar_decode()) and sends the
 * bodies this module fills (rpcrdma_xchar_encode()) in RDMA2_OPTIONAL
 * messages. No I/O, no allocation.
 *
 * It keeps our values (what the peer was told) and the peer's values
 * (defaults until its ROPT_INITXCH: Receive Buffer Size 4096, Requester
 * Remote Invalidation false, Backward Request Support BKREQSUP_INLINE), and
 * applies the draft's rules:
 *
 * - ROPT_INITXCH goes first on every version 2 connection, from both sides
 *   (4.1); a second one from the peer is a protocol error.
 * - Our Receive Buffer Size is raised only once no smaller receive is
 *   posted, then announced by ROPT_UPDXCH (3.1); it is lowered only in
 *   answer to the peer's request (3.1), which we then report done.
 * - While our request to lower the peer's Receive Buffer Size is not
 *   rejected or cleared, we send no more than the requested size (3.1).
 * - A ROPT_RESPXCH answers our one outstanding ROPT_REQXCH by XID; its
 *   done, rej and pend subsets must not overlap and must cover exactly the
 *   request (4.3): anything else is a protocol error and changes nothing.
 * - A characteristic stays pending until a ROPT_UPDXCH with pendclr
 *   (4.4); an update without pendclr changes the value only. pendclr for
 *   a characteristic not pending, an unsolicited lowering of the peer's
 *   Receive Buffer Size, and a change of one the peer listed in
 *   optixch_nochg are protocol errors.
 * - Unknown characteristic ids, experimental ones (6.2) included, are
 *   ignored in ROPT_INITXCH and ROPT_UPDXCH and rejected in a ROPT_REQXCH
 *   (2.1, 4.3).
 *
 * Errors from the wire are -EPROTO with nothing changed: the engine counts
 * them and acts (RDMA2_ERR_BAD_HEADER, or dropping the connection).
 */
#ifndef RPCRDMA_XCHAR_STATE_H
#define RPCRDMA_XCHAR_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include <rpcrdma/rpcrdma_xchar.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The smallest Receive Buffer Size accepted: the version 1 inline threshold. */
#define RPCRDMA_XCHAR_RBSIZ_MIN 1024u

/** The bit of a known characteristic id in an id mask. */
#define RPCRDMA_XCHAR_BIT(id) (1u << (id))
/** Every known characteristic. */
#define RPCRDMA_XCHAR_KNOWN                                                                    \
	(RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_RBSIZ) | RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_REQREMINV) | \
	 RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_BRS))

/** Values of the three known characteristics. */
struct rpcrdma_xchar_vals {
	uint32_t rbsiz; /**< Receive Buffer Size, bytes */
	bool reqreminv; /**< Requester Remote Invalidation */
	uint32_t brs;	/**< Backward Request Support (enum rpcrdma_bkreqsup) */
};

/** Configuration; rpcrdma_xchar_cfg_init() sets defaults, grows only at the end. */
struct rpcrdma_xchar_cfg {
	struct rpcrdma_xchar_vals local; /**< our starting values */
	uint32_t nochg;			 /**< id mask we promise never to change (optixch_nochg) */
	uint32_t changeable;		 /**< id mask the peer may ask us to change */
	uint32_t rbsiz_max;		 /**< the largest receive we will post */
};

/** Where the exchange stands. Pending changes are masks beside it. */
enum rpcrdma_xchar_st {
	/** No version 2 connection. Initial state, and after disconnect(). */
	RPCRDMA_XCHAR_ST_IDLE,
	/** Connected: our ROPT_INITXCH must be sent before anything else. */
	RPCRDMA_XCHAR_ST_NEED_INIT,
	/** ROPT_INITXCH sent; no request of ours awaits its response. */
	RPCRDMA_XCHAR_ST_READY,
	/** Our ROPT_REQXCH awaits its ROPT_RESPXCH (one at a time). */
	RPCRDMA_XCHAR_ST_REQ_SENT,
};

/** Receives of one size the engine has posted. */
struct rpcrdma_xchar_rcv {
	uint32_t size;
	uint32_t count;
};

/** The transport characteristics state of one connection. */
struct rpcrdma_xchar_state {
	struct rpcrdma_xchar_cfg cfg;
	enum rpcrdma_xchar_st st;
	struct rpcrdma_xchar_vals local; /**< ours, as the peer knows them */
	struct rpcrdma_xchar_vals peer;	 /**< the peer's current values */
	uint32_t peer_nochg;		 /**< id mask from the peer's optixch_nochg */
	bool peer_init;			 /**< the peer's ROPT_INITXCH arrived */
	/* our request to the peer */
	uint32_t req_xid;		   /**< rdma_xid of our ROPT_REQXCH */
	struct rpcrdma_xcharspec req_want; /**< what it asked (data pointers not kept valid) */
	uint32_t req_pend;		   /**< id mask the peer holds pending */
	uint32_t rbsiz_limit;		   /**< our send limit while lowering its RBSIZ; 0 none */
	/* the peer's requests to us */
	uint32_t peer_pend;    /**< id mask we hold pending (answer with pendclr) */
	uint32_t rbsiz_target; /**< a raise of our RBSIZ waiting for smaller receives; 0 none */
	uint64_t proto_errors; /**< -EPROTO returns */
};

/** Defaults: the draft's values, nothing fixed, RBSIZ and REQREMINV changeable, max 4096. */
void rpcrdma_xchar_cfg_init(struct rpcrdma_xchar_cfg *cfg);

/**
 * Start, IDLE.
 *
 * @return
 *   0, or -EINVAL: local.rbsiz below RPCRDMA_XCHAR_RBSIZ_MIN or above
 *   rbsiz_max, brs not a bkreqsup, or a mask with unknown ids.
 */
int rpcrdma_xchar_state_init(struct rpcrdma_xchar_state *s, const struct rpcrdma_xchar_cfg *cfg);

/**
 * A version 2 connection is up: NEED_INIT; the peer's values are the
 * defaults again, nothing is pending, a raise not yet announced stays
 * wanted (post_size() says the size to post).
 */
void rpcrdma_xchar_state_connect(struct rpcrdma_xchar_state *s);

/** The connection is lost: IDLE. */
void rpcrdma_xchar_state_disconnect(struct rpcrdma_xchar_state *s);

/**
 * Fill our ROPT_INITXCH (RBSIZ, REQREMINV, BRS at positions 0, 1, 2; nochg
 * from cfg) and account it sent: READY.
 *
 * @return
 *   0; -ENOTCONN: IDLE; -EALREADY: already sent on this connection.
 */
int rpcrdma_xchar_state_initxch(struct rpcrdma_xchar_state *s, struct rpcrdma_xchar_msg *m);

/** Whether other messages may be sent: our ROPT_INITXCH is out (READY, REQ_SENT). */
bool rpcrdma_xchar_state_may_send(const struct rpcrdma_xchar_state *s);

/**
 * Ask the peer to change characteristics: fill the ROPT_REQXCH, REQ_SENT.
 * Known ids must be valid values and distinct; unknown ids are sent from
 * their data and not tracked afterwards.
 *
 * @return
 *   0; -ENOTCONN: IDLE; -EAGAIN: our ROPT_INITXCH is not sent yet;
 *   -EBUSY: a request awaits its response, or a known id of want is still
 *   pending; -EINVAL: want empty or over RPCRDMA_XCHAR_MAX, a known value
 *   invalid, or a known id twice. Nothing changed on error.
 */
int rpcrdma_xchar_state_request(struct rpcrdma_xchar_state *s, uint32_t xid,
				const struct rpcrdma_xcharspec *want, struct rpcrdma_xchar_msg *m);

/**
 * A transport characteristics body received from the peer.
 *
 * ROPT_INITXCH sets the peer's values; ROPT_REQXCH is decided (unknown,
 * nochg or unchangeable ids and ids already pending: rej; RBSIZ lower
 * and at least the minimum, or equal: done; RBSIZ higher: pend to
 * min(wanted, rbsiz_max), rej when that is no raise; REQREMINV: done;
 * BRS equal: done, different: pend until local_set()) and its
 * ROPT_RESPXCH filled; ROPT_RESPXCH and ROPT_UPDXCH update the peer's
 * values and our pending set.
 *
 * @param xid
 *   rdma_xid of the RDMA2_OPTIONAL (ROPT_RESPXCH matches it to our
 *   request; the ROPT_RESPXCH we fill must carry it).
 * @param out
 *   For ROPT_REQXCH: the ROPT_RESPXCH to send.
 * @return
 *   1: out holds a message to send; 0: nothing to send; -ENOTCONN: IDLE;
 *   -EINVAL: m->opttype is not an ROPT_*; -EPROTO: the message breaks a
 *   rule above (counted); nothing changed.
 */
int rpcrdma_xchar_state_recv(struct rpcrdma_xchar_state *s, uint32_t xid,
			     const struct rpcrdma_xchar_msg *m, struct rpcrdma_xchar_msg *out);

/**
 * Change one of our values (unsolicited, or completing a change the peer
 * asked for and we hold pending).
 *
 * RBSIZ raised: kept as the target until receives() finds no smaller
 * receive posted. REQREMINV, BRS: in force at once and announced.
 * Before our ROPT_INITXCH is sent nothing is announced: the INITXCH
 * carries the value.
 *
 * @param upd
 *   The ROPT_UPDXCH to send (pendclr set when the peer asked for it).
 * @return
 *   1: upd to send; 0: nothing to send (raise deferred, same value, or not
 *   announced yet); -EINVAL: unknown id or invalid value (RBSIZ outside
 *   RPCRDMA_XCHAR_RBSIZ_MIN..rbsiz_max); -EPERM: a change of an id in
 *   cfg.nochg, or RBSIZ lowered (only in answer to a request, 3.1).
 *   Nothing changed on error.
 */
int rpcrdma_xchar_state_local_set(struct rpcrdma_xchar_state *s, uint32_t id, uint32_t value,
				  struct rpcrdma_xchar_msg *upd);

/**
 * The receives posted now, by size. A pending raise of our RBSIZ takes
 * effect when none is smaller than the target (3.1).
 *
 * @return
 *   1: the raise took effect and upd holds its ROPT_UPDXCH; 0: nothing.
 */
int rpcrdma_xchar_state_receives(struct rpcrdma_xchar_state *s, const struct rpcrdma_xchar_rcv *rcv,
				 unsigned int n, struct rpcrdma_xchar_msg *upd);

/** Size of receives to post from now on: the raise target if any, else our RBSIZ. */
uint32_t rpcrdma_xchar_state_post_size(const struct rpcrdma_xchar_state *s);

/**
 * Largest Send to the peer: its RBSIZ, or less while our request to
 * lower it stands.
 */
uint32_t rpcrdma_xchar_state_max_send(const struct rpcrdma_xchar_state *s);

/** Whether replies to the peer may use Send With Invalidate: its REQREMINV. */
bool rpcrdma_xchar_state_send_inv_ok(const struct rpcrdma_xchar_state *s);

/**
 * Which backward traffic may be sent to the peer: its BRS
 * (enum rpcrdma_bkreqsup; see rpcrdma_bkchan_check_send()).
 */
uint32_t rpcrdma_xchar_state_peer_brs(const struct rpcrdma_xchar_state *s);

/** The name of a state ("NEED_INIT"). */
const char *rpcrdma_xchar_st_name(enum rpcrdma_xchar_st st);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_XCHAR_STATE_H */

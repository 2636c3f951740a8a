/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * RPC-over-RDMA version negotiation (version two draft section 5) as pure
 * state machines: no I/O. The engine feeds them the headers it sends and
 * receives and asks what version to send next, which inline thresholds
 * apply and what to answer.
 *
 * Requester (the client): configured version 1 only, or version 2
 * preferred. Preferring version 2, its first message on a connection is a
 * version 2 message of at most 1024 bytes (a version 1 responder must be
 * able to receive it) and nothing else is sent until the peer answers
 * (section 5: one credit until a non-error reply; the engine's
 * rpcrdma_credit_req window does the credit part). A version 2 answer
 * settles version 2 (inline 4096, section 5.1); ERR_VERS settles version 1
 * (inline 1024, section 5.2) on the same connection, and the peer memory
 * remembers it so later connections to that peer start in version 1 (no
 * negotiation loop). A connection lost while the probe is outstanding is
 * taken as the same answer (section 5.2, last paragraph).
 *
 * Responder (the server): version 1 only, version 2 only, or both. It
 * answers every message in the version its requester used (section 5.3,
 * rfc5666bis), and a version it does not support with ERR_VERS.
 *
 * No locks: one lcore owns a connection. The peer memory is per process
 * or per lcore, as the engine chooses; it is not thread-safe.
 */
#ifndef RPCRDMA_VERS_H
#define RPCRDMA_VERS_H

#include <stdbool.h>
#include <stdint.h>

#include <rpcrdma/rpcrdma_hdr.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest first message of a version 2 requester: the v1 default inline threshold (5). */
#define RPCRDMA_VERS_PROBE_MAX RPCRDMA_V1_INLINE_DEFAULT

/* ------------------------------------------------------------ peer memory */

/** Bytes of a peer address string, with its NUL ("[ipv6%scope]:port" fits). */
#define RPCRDMA_VERS_ADDR_MAX 64
/** Peers remembered; the least recently used is forgotten first. */
#define RPCRDMA_VERS_PEERS_MAX 32

/** One remembered peer. */
struct rpcrdma_vers_peer {
	char addr[RPCRDMA_VERS_ADDR_MAX]; /**< the engine's address string; "" when unused */
	uint32_t vers;			  /**< the version settled with it last */
	uint64_t used;			  /**< LRU clock of the last lookup or update */
};

/** The versions settled with recent peers (section 5.2: avoid a negotiation loop). */
struct rpcrdma_vers_peers {
	uint64_t clock;
	struct rpcrdma_vers_peer ent[RPCRDMA_VERS_PEERS_MAX];
};

/** Forget every peer. */
void rpcrdma_vers_peers_init(struct rpcrdma_vers_peers *m);

/**
 * The version remembered for a peer.
 *
 * @return
 *   RPCRDMA_VERS_1 or RPCRDMA_VERS_2, or 0 when the peer is not remembered
 *   (or addr is NULL, empty or too long).
 */
uint32_t rpcrdma_vers_peers_lookup(struct rpcrdma_vers_peers *m, const char *addr);

/**
 * Remember the version settled with a peer, replacing the least recently
 * used entry when full.
 *
 * @return
 *   0; -EINVAL: addr NULL, empty or not shorter than RPCRDMA_VERS_ADDR_MAX,
 *   or vers neither 1 nor 2; nothing changed.
 */
int rpcrdma_vers_peers_remember(struct rpcrdma_vers_peers *m, const char *addr, uint32_t vers);

/**
 * Forget a peer (an administrator knows it was upgraded).
 *
 * @return
 *   0, or -ENOENT: not remembered.
 */
int rpcrdma_vers_peers_forget(struct rpcrdma_vers_peers *m, const char *addr);

/* ------------------------------------------------------------ requester */

/** What a requester is configured to speak. */
enum rpcrdma_vers_req_cfg {
	RPCRDMA_VERS_REQ_V1_ONLY,      /**< version 1 only, never negotiates */
	RPCRDMA_VERS_REQ_V2_PREFERRED, /**< tries version 2, falls back to version 1 */
};

/** Where a requester's negotiation stands on the current connection. */
enum rpcrdma_vers_req_state {
	/** No connection: nothing may be sent. Initial state, and after disconnect(). */
	RPCRDMA_VERS_REQ_IDLE,
	/**
	 * Connected, version 2 preferred and the peer not remembered as
	 * version 1: one version 2 message of at most 1024 bytes may be sent.
	 */
	RPCRDMA_VERS_REQ_PROBE,
	/** The probe is sent: nothing else is sent until the peer answers (NEED_ANSWER). */
	RPCRDMA_VERS_REQ_PROBE_SENT,
	/** Version 2 settled: inline thresholds 4096 (section 5.1). */
	RPCRDMA_VERS_REQ_V2,
	/** Version 1: configured, remembered, or after ERR_VERS (section 5.2). Inline 1024. */
	RPCRDMA_VERS_REQ_V1,
	/**
	 * The peer supports neither version we may speak (its ERR_VERS range
	 * holds none): nothing may be sent; the engine fails the connection.
	 */
	RPCRDMA_VERS_REQ_FAILED,
};

/** A requester's negotiation. */
struct rpcrdma_vers_req {
	enum rpcrdma_vers_req_cfg cfg;
	enum rpcrdma_vers_req_state state;
	struct rpcrdma_vers_peers *peers; /**< NULL: nothing remembered */
	char addr[RPCRDMA_VERS_ADDR_MAX]; /**< the current peer; "" when none */
	uint32_t probe_xid;		  /**< rdma_xid of the probe (PROBE_SENT) */
	uint32_t peer_low, peer_high;	  /**< the range of the latest ERR_VERS */
};

/** What the requester makes of a received header. */
enum rpcrdma_vers_req_event {
	/** Nothing changed: process the message as usual. */
	RPCRDMA_VERS_REQ_EV_NONE,
	/** Version 2 settled by this message: apply the new thresholds, then process it. */
	RPCRDMA_VERS_REQ_EV_V2,
	/**
	 * ERR_VERS answered the probe: version 1 settled on this connection;
	 * send the probed call again in version 1 (with its XID, probe_xid).
	 */
	RPCRDMA_VERS_REQ_EV_RESEND_V1,
};

/**
 * Configure a requester; it starts IDLE.
 *
 * @param peers
 *   Peer memory shared by the requester's connections, or NULL.
 * @return
 *   0, or -EINVAL: cfg is not an enum rpcrdma_vers_req_cfg.
 */
int rpcrdma_vers_req_init(struct rpcrdma_vers_req *v, enum rpcrdma_vers_req_cfg cfg,
			  struct rpcrdma_vers_peers *peers);

/**
 * A connection to a peer is established: V1 (configured, or remembered as
 * version 1) or PROBE.
 *
 * @param addr
 *   The peer's address string, the key of the peer memory; NULL or too
 *   long: not remembered.
 * @return
 *   The new state.
 */
enum rpcrdma_vers_req_state rpcrdma_vers_req_connect(struct rpcrdma_vers_req *v, const char *addr);

/**
 * The connection is lost. If the probe was outstanding the peer is
 * remembered as version 1 (section 5.2: "if the initial negotiation
 * message is lost or dropped"). The state goes to IDLE.
 */
void rpcrdma_vers_req_disconnect(struct rpcrdma_vers_req *v);

/**
 * The rdma_vers of the next message.
 *
 * @return
 *   RPCRDMA_VERS_1 or RPCRDMA_VERS_2; -EAGAIN: the probe is outstanding
 *   (PROBE_SENT), wait for its answer; -ENOTCONN: IDLE; -EPROTONOSUPPORT:
 *   FAILED.
 */
int rpcrdma_vers_req_send_vers(const struct rpcrdma_vers_req *v);

/**
 * Account a message about to be sent.
 *
 * @param xid
 *   Its rdma_xid.
 * @param len
 *   Bytes of the Send (transport header and inline payload).
 * @return
 *   0; -EMSGSIZE: the probe is longer than RPCRDMA_VERS_PROBE_MAX (use a
 *   chunk or send something smaller first); -EAGAIN, -ENOTCONN,
 *   -EPROTONOSUPPORT: as rpcrdma_vers_req_send_vers(). Nothing changed on
 *   error.
 */
int rpcrdma_vers_req_sent(struct rpcrdma_vers_req *v, uint32_t xid, uint32_t len);

/**
 * A header received from the responder (decoded without error).
 *
 * @return
 *   An enum rpcrdma_vers_req_event, or:
 *   - -EPROTO: a message in a version other than the settled one, or an
 *     ERR_VERS when the version is settled, or an answer to the probe
 *     with a different XID; nothing changed. The engine treats it as a
 *     malformed message (drop, count).
 *   - -EPROTONOSUPPORT: ERR_VERS whose range holds no version we may
 *     speak; the state is FAILED.
 *   - -ENOTCONN: IDLE.
 */
int rpcrdma_vers_req_recv(struct rpcrdma_vers_req *v, const struct rpcrdma_hdr *h);

/** Largest Send to the responder now: 1024 (PROBE, PROBE_SENT, V1), 4096 (V2), 0 otherwise. */
uint32_t rpcrdma_vers_req_inline_send(const struct rpcrdma_vers_req *v);

/**
 * Size of the receives to post for replies: 4096 while version 2 may be
 * settled (PROBE, PROBE_SENT, V2), 1024 in V1, 0 otherwise.
 */
uint32_t rpcrdma_vers_req_inline_recv(const struct rpcrdma_vers_req *v);

/** The name of a requester state ("PROBE_SENT"). */
const char *rpcrdma_vers_req_state_name(enum rpcrdma_vers_req_state s);

/* ------------------------------------------------------------ responder */

/** What a responder accepts. */
enum rpcrdma_vers_resp_cfg {
	RPCRDMA_VERS_RESP_V1_ONLY, /**< version 1 only: ERR_VERS (1, 1) to anything else */
	RPCRDMA_VERS_RESP_V2_ONLY, /**< version 2 only: ERR_VERS (2, 2) to anything else */
	RPCRDMA_VERS_RESP_BOTH,	   /**< versions 1 and 2 */
};

/** Where a responder's connection stands. */
enum rpcrdma_vers_resp_state {
	/** No message accepted yet: the first accepted message settles the version. */
	RPCRDMA_VERS_RESP_WAIT,
	/** Version 1 settled by the first accepted message. */
	RPCRDMA_VERS_RESP_V1,
	/** Version 2 settled by the first accepted message: inline 4096. */
	RPCRDMA_VERS_RESP_V2,
};

/** A responder's negotiation. */
struct rpcrdma_vers_resp {
	enum rpcrdma_vers_resp_cfg cfg;
	enum rpcrdma_vers_resp_state state;
	uint64_t err_vers; /**< ERR_VERS answers given */
};

/** What to answer to a received message. */
struct rpcrdma_vers_answer {
	/** true: process the message and reply in rdma_vers reply_vers; false: send ERR_VERS */
	bool accept;
	uint32_t reply_vers; /**< rdma_vers of the reply or of the ERR_VERS */
	uint32_t low, high;  /**< ERR_VERS: rdma_vers_low, rdma_vers_high */
};

/**
 * Configure a responder for a new connection; it starts WAIT.
 *
 * @return
 *   0, or -EINVAL: cfg is not an enum rpcrdma_vers_resp_cfg.
 */
int rpcrdma_vers_resp_init(struct rpcrdma_vers_resp *r, enum rpcrdma_vers_resp_cfg cfg);

/**
 * Decide the answer to a received message from its rdma_vers (also when
 * the codec returned -RPCRDMA_E_VERS: hdr->vers is set).
 *
 * A supported version is accepted and answered in the same version; the
 * first accepted message settles the connection's version. Any other
 * version, or the other version once one is settled, is answered with
 * ERR_VERS in version 1 with the range supported (the settled version
 * once there is one): rfc5666bis 5.5 says the version of an error "MUST
 * be any value otherwise valid at the receiver", a requester that sent a
 * version we do not know may know only version 1, and rfc5666bis 9.1
 * keeps rdma_xid, rdma_vers, rdma_credit, rdma_proc and the ERR_VERS body
 * at the same offsets in every version, so a version 2 requester reads a
 * version 1 ERR_VERS as its RDMA2_ERR_VERS (proc 4, code 1 in both).
 *
 * @return
 *   0 with *ans filled.
 */
int rpcrdma_vers_resp_recv(struct rpcrdma_vers_resp *r, uint32_t vers,
			   struct rpcrdma_vers_answer *ans);

/**
 * Fill a header for the ERR_VERS of a rejecting answer.
 *
 * @param xid
 *   The rdma_xid of the rejected message.
 * @param credit
 *   The rdma_credit to carry (the responder's current grant, at least 1).
 * @return
 *   0, or -EINVAL: ans accepts; h untouched.
 */
int rpcrdma_vers_resp_err_hdr(const struct rpcrdma_vers_answer *ans, uint32_t xid, uint32_t credit,
			      struct rpcrdma_hdr *h);

/** Largest reply Send: 1024 (WAIT, V1), 4096 (V2). */
uint32_t rpcrdma_vers_resp_inline_send(const struct rpcrdma_vers_resp *r);

/** Size of the receives to post: 1024 for a version 1 only responder, 4096 otherwise. */
uint32_t rpcrdma_vers_resp_inline_recv(const struct rpcrdma_vers_resp *r);

/** The name of a responder state ("V2"). */
const char *rpcrdma_vers_resp_state_name(enum rpcrdma_vers_resp_state s);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_VERS_H */

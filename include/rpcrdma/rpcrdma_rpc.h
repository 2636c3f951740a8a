/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ONC RPC version 2 message header codec (RFC 5531 section 9).
 *
 * Decodes and encodes the call header (xid, CALL, rpcvers, prog, vers,
 * proc, cred, verf) and the reply header (MSG_ACCEPTED with its
 * accept_stat, MSG_DENIED with RPC_MISMATCH or AUTH_ERROR). AUTH_NONE and
 * AUTH_SYS (RFC 5531 appendix A) credentials are decoded; other flavors are
 * kept as opaque bodies of at most 400 bytes, in place. The procedure
 * arguments or results follow the header at hdr_len.
 */
#ifndef RPCRDMA_RPC_H
#define RPCRDMA_RPC_H

#include <assert.h>
#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rpcrdma/rpcrdma_errno.h>
#include <rpcrdma/rpcrdma_wire.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The only RPC version (RFC 5531 section 8). */
#define RPCRDMA_RPC_VERS 2

/** Bounds from the XDR of RFC 5531. */
#define RPCRDMA_RPC_AUTH_MAX	  400 /**< opaque body<400> */
#define RPCRDMA_RPC_MACHNAME_MAX  255 /**< string machinename<255> */
#define RPCRDMA_RPC_AUTHSYS_NGIDS 16  /**< unsigned int gids<16> */

/** enum msg_type. */
enum rpcrdma_rpc_msg_type {
	RPCRDMA_RPC_CALL = 0,
	RPCRDMA_RPC_REPLY = 1,
};

/** enum reply_stat. */
enum rpcrdma_rpc_reply_stat {
	RPCRDMA_RPC_MSG_ACCEPTED = 0,
	RPCRDMA_RPC_MSG_DENIED = 1,
};

/** enum accept_stat. */
enum rpcrdma_rpc_accept_stat {
	RPCRDMA_RPC_SUCCESS = 0,       /**< results follow */
	RPCRDMA_RPC_PROG_UNAVAIL = 1,  /**< program not exported */
	RPCRDMA_RPC_PROG_MISMATCH = 2, /**< low, high follow */
	RPCRDMA_RPC_PROC_UNAVAIL = 3,  /**< procedure not supported */
	RPCRDMA_RPC_GARBAGE_ARGS = 4,  /**< arguments cannot be decoded */
	RPCRDMA_RPC_SYSTEM_ERR = 5,    /**< e.g. memory allocation failure */
};

/** enum reject_stat. */
enum rpcrdma_rpc_reject_stat {
	RPCRDMA_RPC_RPC_MISMATCH = 0, /**< low, high follow */
	RPCRDMA_RPC_AUTH_ERROR = 1,   /**< auth_stat follows */
};

/** enum auth_stat (values this stack produces; others are kept as numbers). */
enum rpcrdma_rpc_auth_stat {
	RPCRDMA_RPC_AUTH_OK = 0,
	RPCRDMA_RPC_AUTH_BADCRED = 1,
	RPCRDMA_RPC_AUTH_REJECTEDCRED = 2,
	RPCRDMA_RPC_AUTH_BADVERF = 3,
	RPCRDMA_RPC_AUTH_REJECTEDVERF = 4,
	RPCRDMA_RPC_AUTH_TOOWEAK = 5,
};

/** auth_flavor values. */
enum rpcrdma_rpc_auth_flavor {
	RPCRDMA_RPC_AUTH_NONE = 0,
	RPCRDMA_RPC_AUTH_SYS = 1,
	RPCRDMA_RPC_AUTH_SHORT = 2,
	RPCRDMA_RPC_AUTH_DH = 3,
	RPCRDMA_RPC_RPCSEC_GSS = 6,
};

/** opaque_auth: a flavor and its body, in place. */
struct rpcrdma_rpc_auth {
	uint32_t flavor;
	uint32_t len;	     /**< body length, at most RPCRDMA_RPC_AUTH_MAX */
	const uint8_t *body; /**< len bytes; may be NULL when len is 0 */
};

/** authsys_parms (RFC 5531 appendix A). */
struct rpcrdma_rpc_authsys {
	uint32_t stamp;
	uint32_t machinename_len; /**< at most RPCRDMA_RPC_MACHNAME_MAX */
	const char *machinename;  /**< not NUL-terminated; in place */
	uint32_t uid;
	uint32_t gid;
	uint32_t ngids; /**< at most RPCRDMA_RPC_AUTHSYS_NGIDS */
	uint32_t gids[RPCRDMA_RPC_AUTHSYS_NGIDS];
};

/** call_body. */
struct rpcrdma_rpc_call {
	uint32_t rpcvers; /**< 2 */
	uint32_t prog;
	uint32_t vers;
	uint32_t proc;
	struct rpcrdma_rpc_auth cred;
	struct rpcrdma_rpc_auth verf;
	/** Set by decode when cred.flavor is AUTH_SYS; ignored by encode. */
	struct rpcrdma_rpc_authsys sys;
};

/** reply_body. */
struct rpcrdma_rpc_reply {
	uint32_t stat;		      /**< enum rpcrdma_rpc_reply_stat */
	struct rpcrdma_rpc_auth verf; /**< MSG_ACCEPTED */
	uint32_t accept_stat;	      /**< MSG_ACCEPTED: enum rpcrdma_rpc_accept_stat */
	uint32_t reject_stat;	      /**< MSG_DENIED: enum rpcrdma_rpc_reject_stat */
	uint32_t low;		      /**< PROG_MISMATCH or RPC_MISMATCH */
	uint32_t high;
	uint32_t auth_stat; /**< AUTH_ERROR */
};

/**
 * rpc_msg: one RPC message header. xid, type and the first fields of a call
 * (rpcvers, prog, vers, proc, cred.flavor, cred.len) lie in wire order, so
 * the decoder's fast path moves them with one byte-swapping vector copy.
 */
struct rpcrdma_rpc_msg {
	uint32_t xid;
	uint32_t type; /**< enum rpcrdma_rpc_msg_type */
	union {
		struct rpcrdma_rpc_call call;
		struct rpcrdma_rpc_reply reply;
	};
	uint32_t hdr_len; /**< set by decode: arguments or results start here */
};

static_assert(offsetof(struct rpcrdma_rpc_msg, call.rpcvers) == 8 &&
		      offsetof(struct rpcrdma_rpc_msg, call.vers) == 16 &&
		      offsetof(struct rpcrdma_rpc_msg, call.cred.len) == 28,
	      "a call's first eight words lie in wire order (rpcrdma_wire_swap4)");

/**
 * Decode an RPC message header.
 *
 * @param msg
 *   Output; auth bodies and the machine name refer into buf.
 * @param buf, len
 *   The RPC message.
 * @return
 *   The header length (where arguments or results start), or:
 *   - -RPCRDMA_E_TRUNC: buf ends inside the header.
 *   - -RPCRDMA_E_ENUM: msg_type, reply_stat, accept_stat or reject_stat out
 *     of range.
 *   - -RPCRDMA_E_RPCVERS: a call with rpcvers != 2 (xid, type and rpcvers
 *     are set, for the RPC_MISMATCH reply).
 *   - -RPCRDMA_E_OPAQUE_BOUND: an auth body over 400 bytes or a machine
 *     name over 255.
 *   - -RPCRDMA_E_OPAQUE: an auth body runs past the end of buf.
 *   - -RPCRDMA_E_GIDS: AUTH_SYS with more than 16 gids.
 *   - -RPCRDMA_E_AUTH_LEN: an AUTH_SYS body whose length is not that of its
 *     contents.
 *   On error, xid and type hold what was read (len >= 8).
 *
 * rpcrdma_rpc_decode() is inline: it decodes the two most frequent
 * headers itself (a call whose credential and verifier have empty bodies,
 * and a successful reply with an empty verifier) and calls
 * rpcrdma_rpc_decode_full() for everything else. Both give identical
 * results.
 */
int rpcrdma_rpc_decode_full(struct rpcrdma_rpc_msg *msg, const void *buf, uint32_t len);

static inline int rpcrdma_rpc_decode(struct rpcrdma_rpc_msg *msg, const void *buf, uint32_t len)
{
	/*
	 * Fast paths (RFC 5531 9), one letter per word:
	 *   xid CALL 2 prog vers proc flavor 0 flavor 0   (not AUTH_SYS: its
	 *                                                   body is never empty)
	 *   xid REPLY MSG_ACCEPTED flavor 0 SUCCESS
	 */
	if (len >= 40 && rpcrdma_wire_get32(buf, 1) == RPCRDMA_RPC_CALL &&
	    rpcrdma_wire_get32(buf, 2) == RPCRDMA_RPC_VERS &&
	    rpcrdma_wire_get32(buf, 6) != RPCRDMA_RPC_AUTH_SYS &&
	    (rpcrdma_wire_get32(buf, 7) | rpcrdma_wire_get32(buf, 9)) == 0) {
		/* xid type rpcvers prog, vers proc flavor len: in wire order */
		rpcrdma_wire_swap4(msg, buf);
		rpcrdma_wire_swap4((uint8_t *)msg + 16, (const uint8_t *)buf + 16);
		msg->call.cred.body = (const uint8_t *)buf + 32;
		msg->call.verf.flavor = rpcrdma_wire_get32(buf, 8);
		msg->call.verf.len = 0;
		msg->call.verf.body = (const uint8_t *)buf + 40;
		msg->hdr_len = 40;
		return 40;
	}
	if (len >= 24 && rpcrdma_wire_get32(buf, 1) == RPCRDMA_RPC_REPLY &&
	    (rpcrdma_wire_get32(buf, 2) | rpcrdma_wire_get32(buf, 4) |
	     rpcrdma_wire_get32(buf, 5)) == 0) {
		msg->xid = rpcrdma_wire_get32(buf, 0);
		msg->type = RPCRDMA_RPC_REPLY;
		msg->reply.stat = RPCRDMA_RPC_MSG_ACCEPTED;
		msg->reply.verf.flavor = rpcrdma_wire_get32(buf, 3);
		msg->reply.verf.len = 0;
		msg->reply.verf.body = (const uint8_t *)buf + 20;
		msg->reply.accept_stat = RPCRDMA_RPC_SUCCESS;
		msg->reply.low = 0;
		msg->reply.high = 0;
		msg->hdr_len = 24;
		return 24;
	}
	return rpcrdma_rpc_decode_full(msg, buf, len);
}

/**
 * Encode an RPC message header.
 *
 * @return
 *   Bytes written, or -ENOSPC (buf too small; nothing claimed as written)
 *   or -EINVAL (a type, status or auth length the XDR cannot carry).
 *
 * rpcrdma_rpc_encode() is inline: it writes a call with empty credential
 * and verifier bodies itself and calls rpcrdma_rpc_encode_full() for
 * everything else.
 */
int rpcrdma_rpc_encode_full(const struct rpcrdma_rpc_msg *msg, void *buf, uint32_t buflen);

static inline int rpcrdma_rpc_encode(const struct rpcrdma_rpc_msg *msg, void *buf, uint32_t buflen)
{
	/* xid CALL rpcvers prog vers proc flavor 0 flavor 0 */
	if (msg->type == RPCRDMA_RPC_CALL && buflen >= 40 &&
	    (msg->call.cred.len | msg->call.verf.len) == 0) {
		/* xid type rpcvers prog, vers proc flavor len: in wire order */
		rpcrdma_wire_swap4(buf, msg);
		rpcrdma_wire_swap4((uint8_t *)buf + 16, (const uint8_t *)msg + 16);
		rpcrdma_wire_put32(buf, 8, msg->call.verf.flavor);
		rpcrdma_wire_put32(buf, 9, 0);
		return 40;
	}
	return rpcrdma_rpc_encode_full(msg, buf, buflen);
}

/**
 * Decode the body of an AUTH_SYS credential.
 *
 * @return
 *   0, or -RPCRDMA_E_TRUNC, -RPCRDMA_E_OPAQUE, -RPCRDMA_E_OPAQUE_BOUND,
 *   -RPCRDMA_E_GIDS, -RPCRDMA_E_AUTH_LEN (bytes left over).
 */
int rpcrdma_rpc_authsys_decode(struct rpcrdma_rpc_authsys *sys, const void *body, uint32_t len);

/**
 * Encode an AUTH_SYS credential body (to use as cred.body).
 *
 * @return
 *   Bytes written, or -ENOSPC, or -EINVAL (name over 255, over 16 gids).
 */
int rpcrdma_rpc_authsys_encode(const struct rpcrdma_rpc_authsys *sys, void *buf, uint32_t buflen);

/** Spec names: "CALL", "MSG_ACCEPTED", "PROG_MISMATCH", "AUTH_ERROR", ... */
const char *rpcrdma_rpc_msg_type_name(uint32_t v);
const char *rpcrdma_rpc_reply_stat_name(uint32_t v);
const char *rpcrdma_rpc_accept_stat_name(uint32_t v);
const char *rpcrdma_rpc_reject_stat_name(uint32_t v);
const char *rpcrdma_rpc_auth_flavor_name(uint32_t v);

/**
 * Format a decoded RPC header as one line for logs (no newline).
 *
 * @return
 *   As snprintf.
 */
int rpcrdma_rpc_format(const struct rpcrdma_rpc_msg *msg, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_RPC_H */

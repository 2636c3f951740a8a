/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ONC RPC version 2 message header codec (RFC 5531 section 9, appendix A).
 *
 * One function per XDR rule; each letter of a grammar comment is one XDR
 * word, "N - body" a counted opaque padded to 4 bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rpcrdma/rpcrdma_rpc.h>

#include "xdr.h"

/* ---------------------------------------------------------------- decode */

/*
 * authsys_parms (RFC 5531 appendix A):
 *   stamp  N - machinename<255>  uid gid  N - gid ... (N <= 16)
 * The body must be exactly this long.
 */
int rpcrdma_rpc_authsys_decode(struct rpcrdma_rpc_authsys *sys, const void *body, uint32_t len)
{
	struct xdr_dec d = { .p = body, .end = (const uint8_t *)body + len };
	const uint8_t *name;
	uint32_t i;
	int ret;

	if (unlikely(!xdr_avail(&d, 4)))
		return -RPCRDMA_E_TRUNC;
	sys->stamp = xdr_get32(&d);
	ret = xdr_get_opaque(&d, RPCRDMA_RPC_MACHNAME_MAX, &name, &sys->machinename_len,
			     -RPCRDMA_E_OPAQUE_BOUND, -RPCRDMA_E_OPAQUE);
	if (unlikely(ret))
		return ret;
	sys->machinename = (const char *)name;
	if (unlikely(!xdr_avail(&d, 12)))
		return -RPCRDMA_E_TRUNC;
	sys->uid = xdr_get32(&d);
	sys->gid = xdr_get32(&d);
	sys->ngids = xdr_get32(&d);
	if (unlikely(sys->ngids > RPCRDMA_RPC_AUTHSYS_NGIDS))
		return -RPCRDMA_E_GIDS;
	if (unlikely(!xdr_avail(&d, (size_t)sys->ngids * 4)))
		return -RPCRDMA_E_TRUNC;
	for (i = 0; i < sys->ngids; i++)
		sys->gids[i] = xdr_get32(&d);
	if (unlikely(d.p != d.end))
		return -RPCRDMA_E_AUTH_LEN;
	return 0;
}

/*
 * opaque_auth (RFC 5531 8.2):
 *   flavor  N - body<400>
 */
static inline int decode_auth(struct xdr_dec *d, struct rpcrdma_rpc_auth *auth)
{
	if (unlikely(!xdr_avail(d, 4)))
		return -RPCRDMA_E_TRUNC;
	auth->flavor = xdr_get32(d);
	return xdr_get_opaque(d, RPCRDMA_RPC_AUTH_MAX, &auth->body, &auth->len,
			      -RPCRDMA_E_OPAQUE_BOUND, -RPCRDMA_E_OPAQUE);
}

/*
 * call_body (RFC 5531 9):
 *   rpcvers prog vers proc  cred  verf
 */
static int decode_call(struct xdr_dec *d, struct rpcrdma_rpc_call *call)
{
	int ret;

	if (unlikely(!xdr_avail(d, 16)))
		return -RPCRDMA_E_TRUNC;
	call->rpcvers = xdr_get32(d);
	call->prog = xdr_get32(d);
	call->vers = xdr_get32(d);
	call->proc = xdr_get32(d);
	if (unlikely(call->rpcvers != RPCRDMA_RPC_VERS))
		return -RPCRDMA_E_RPCVERS;
	ret = decode_auth(d, &call->cred);
	if (unlikely(ret))
		return ret;
	if (call->cred.flavor == RPCRDMA_RPC_AUTH_SYS) {
		ret = rpcrdma_rpc_authsys_decode(&call->sys, call->cred.body, call->cred.len);
		if (unlikely(ret))
			return ret;
	}
	return decode_auth(d, &call->verf);
}

/*
 * reply_body (RFC 5531 9):
 *   MSG_ACCEPTED verf SUCCESS                    (results follow)
 *   MSG_ACCEPTED verf PROG_MISMATCH low high
 *   MSG_ACCEPTED verf PROG_UNAVAIL | PROC_UNAVAIL | GARBAGE_ARGS | SYSTEM_ERR
 *   MSG_DENIED RPC_MISMATCH low high
 *   MSG_DENIED AUTH_ERROR auth_stat
 */
static int decode_reply(struct xdr_dec *d, struct rpcrdma_rpc_reply *rep)
{
	int ret;

	if (unlikely(!xdr_avail(d, 4)))
		return -RPCRDMA_E_TRUNC;
	rep->stat = xdr_get32(d);
	rep->low = 0;
	rep->high = 0;
	if (rep->stat == RPCRDMA_RPC_MSG_ACCEPTED) {
		ret = decode_auth(d, &rep->verf);
		if (unlikely(ret))
			return ret;
		if (unlikely(!xdr_avail(d, 4)))
			return -RPCRDMA_E_TRUNC;
		rep->accept_stat = xdr_get32(d);
		if (unlikely(rep->accept_stat > RPCRDMA_RPC_SYSTEM_ERR))
			return -RPCRDMA_E_ENUM;
		if (rep->accept_stat == RPCRDMA_RPC_PROG_MISMATCH) {
			if (unlikely(!xdr_avail(d, 8)))
				return -RPCRDMA_E_TRUNC;
			rep->low = xdr_get32(d);
			rep->high = xdr_get32(d);
		}
		return 0;
	}
	if (unlikely(rep->stat != RPCRDMA_RPC_MSG_DENIED))
		return -RPCRDMA_E_ENUM;
	if (unlikely(!xdr_avail(d, 4)))
		return -RPCRDMA_E_TRUNC;
	rep->reject_stat = xdr_get32(d);
	if (rep->reject_stat == RPCRDMA_RPC_RPC_MISMATCH) {
		if (unlikely(!xdr_avail(d, 8)))
			return -RPCRDMA_E_TRUNC;
		rep->low = xdr_get32(d);
		rep->high = xdr_get32(d);
		return 0;
	}
	if (unlikely(rep->reject_stat != RPCRDMA_RPC_AUTH_ERROR))
		return -RPCRDMA_E_ENUM;
	if (unlikely(!xdr_avail(d, 4)))
		return -RPCRDMA_E_TRUNC;
	rep->auth_stat = xdr_get32(d);
	return 0;
}

/*
 * rpc_msg (RFC 5531 9):
 *   xid  CALL call_body   |   xid  REPLY reply_body
 */
int rpcrdma_rpc_decode_full(struct rpcrdma_rpc_msg *msg, const void *buf, uint32_t len)
{
	struct xdr_dec d = { .p = buf, .end = (const uint8_t *)buf + len };
	int ret;

	if (unlikely(len < 8)) {
		msg->xid = len >= 4 ? xdr_load32(d.p) : 0;
		return -RPCRDMA_E_TRUNC;
	}
	msg->xid = xdr_get32(&d);
	msg->type = xdr_get32(&d);
	if (likely(msg->type == RPCRDMA_RPC_CALL))
		ret = decode_call(&d, &msg->call);
	else if (msg->type == RPCRDMA_RPC_REPLY)
		ret = decode_reply(&d, &msg->reply);
	else
		ret = -RPCRDMA_E_ENUM;
	if (unlikely(ret))
		return ret;
	msg->hdr_len = (uint32_t)(d.p - (const uint8_t *)buf);
	return (int)msg->hdr_len;
}

/* ---------------------------------------------------------------- encode */

static inline uint32_t auth_len(const struct rpcrdma_rpc_auth *a)
{
	return 8 + xdr_pad4(a->len);
}

static int encoded_len(const struct rpcrdma_rpc_msg *msg)
{
	const struct rpcrdma_rpc_reply *rep = &msg->reply;
	uint32_t len = 8;

	if (msg->type == RPCRDMA_RPC_CALL) {
		if (unlikely(msg->call.cred.len > RPCRDMA_RPC_AUTH_MAX ||
			     msg->call.verf.len > RPCRDMA_RPC_AUTH_MAX))
			return -EINVAL;
		return (int)(len + 16 + auth_len(&msg->call.cred) + auth_len(&msg->call.verf));
	}
	if (unlikely(msg->type != RPCRDMA_RPC_REPLY))
		return -EINVAL;
	len += 4;
	if (rep->stat == RPCRDMA_RPC_MSG_ACCEPTED) {
		if (unlikely(rep->verf.len > RPCRDMA_RPC_AUTH_MAX ||
			     rep->accept_stat > RPCRDMA_RPC_SYSTEM_ERR))
			return -EINVAL;
		len += auth_len(&rep->verf) + 4;
		if (rep->accept_stat == RPCRDMA_RPC_PROG_MISMATCH)
			len += 8;
		return (int)len;
	}
	if (unlikely(rep->stat != RPCRDMA_RPC_MSG_DENIED ||
		     rep->reject_stat > RPCRDMA_RPC_AUTH_ERROR))
		return -EINVAL;
	return (int)(len + 4 + (rep->reject_stat == RPCRDMA_RPC_RPC_MISMATCH ? 8 : 4));
}

/* flavor N - body */
static inline void encode_auth(struct xdr_enc *e, const struct rpcrdma_rpc_auth *a)
{
	xdr_put32(e, a->flavor);
	xdr_put_opaque(e, a->body, a->len);
}

int rpcrdma_rpc_encode_full(const struct rpcrdma_rpc_msg *msg, void *buf, uint32_t buflen)
{
	const struct rpcrdma_rpc_reply *rep = &msg->reply;
	struct xdr_enc e = { .p = buf };
	int len;

	len = encoded_len(msg);
	if (unlikely(len < 0))
		return len;
	if (unlikely((uint32_t)len > buflen))
		return -ENOSPC;

	xdr_put32(&e, msg->xid);
	xdr_put32(&e, msg->type);
	if (msg->type == RPCRDMA_RPC_CALL) {
		xdr_put32(&e, msg->call.rpcvers);
		xdr_put32(&e, msg->call.prog);
		xdr_put32(&e, msg->call.vers);
		xdr_put32(&e, msg->call.proc);
		encode_auth(&e, &msg->call.cred);
		encode_auth(&e, &msg->call.verf);
		return len;
	}
	xdr_put32(&e, rep->stat);
	if (rep->stat == RPCRDMA_RPC_MSG_ACCEPTED) {
		encode_auth(&e, &rep->verf);
		xdr_put32(&e, rep->accept_stat);
		if (rep->accept_stat == RPCRDMA_RPC_PROG_MISMATCH) {
			xdr_put32(&e, rep->low);
			xdr_put32(&e, rep->high);
		}
		return len;
	}
	xdr_put32(&e, rep->reject_stat);
	if (rep->reject_stat == RPCRDMA_RPC_RPC_MISMATCH) {
		xdr_put32(&e, rep->low);
		xdr_put32(&e, rep->high);
	} else {
		xdr_put32(&e, rep->auth_stat);
	}
	return len;
}

int rpcrdma_rpc_authsys_encode(const struct rpcrdma_rpc_authsys *sys, void *buf, uint32_t buflen)
{
	struct xdr_enc e = { .p = buf };
	uint32_t len, i;

	if (unlikely(sys->machinename_len > RPCRDMA_RPC_MACHNAME_MAX ||
		     sys->ngids > RPCRDMA_RPC_AUTHSYS_NGIDS))
		return -EINVAL;
	len = 4 + 4 + xdr_pad4(sys->machinename_len) + 12 + 4 * sys->ngids;
	if (unlikely(len > buflen))
		return -ENOSPC;
	xdr_put32(&e, sys->stamp);
	xdr_put_opaque(&e, sys->machinename, sys->machinename_len);
	xdr_put32(&e, sys->uid);
	xdr_put32(&e, sys->gid);
	xdr_put32(&e, sys->ngids);
	for (i = 0; i < sys->ngids; i++)
		xdr_put32(&e, sys->gids[i]);
	return (int)len;
}

/* ---------------------------------------------------------------- names */

#define NAME_OR_UNKNOWN(tab, v) \
	((v) < sizeof(tab) / sizeof((tab)[0]) && (tab)[v] ? (tab)[v] : "UNKNOWN")

const char *rpcrdma_rpc_msg_type_name(uint32_t v)
{
	static const char *const tab[] = { "CALL", "REPLY" };

	return NAME_OR_UNKNOWN(tab, v);
}

const char *rpcrdma_rpc_reply_stat_name(uint32_t v)
{
	static const char *const tab[] = { "MSG_ACCEPTED", "MSG_DENIED" };

	return NAME_OR_UNKNOWN(tab, v);
}

const char *rpcrdma_rpc_accept_stat_name(uint32_t v)
{
	static const char *const tab[] = { "SUCCESS",	   "PROG_UNAVAIL", "PROG_MISMATCH",
					   "PROC_UNAVAIL", "GARBAGE_ARGS", "SYSTEM_ERR" };

	return NAME_OR_UNKNOWN(tab, v);
}

const char *rpcrdma_rpc_reject_stat_name(uint32_t v)
{
	static const char *const tab[] = { "RPC_MISMATCH", "AUTH_ERROR" };

	return NAME_OR_UNKNOWN(tab, v);
}

const char *rpcrdma_rpc_auth_flavor_name(uint32_t v)
{
	static const char *const tab[] = { "AUTH_NONE", "AUTH_SYS", "AUTH_SHORT", "AUTH_DH",
					   NULL,	NULL,	    "RPCSEC_GSS" };

	return NAME_OR_UNKNOWN(tab, v);
}

/* ---------------------------------------------------------------- format */

int rpcrdma_rpc_format(const struct rpcrdma_rpc_msg *msg, char *buf, size_t size)
{
	struct fmt_buf f = { .buf = buf, .size = size, .len = 0 };
	const struct rpcrdma_rpc_reply *rep = &msg->reply;

	if (size)
		buf[0] = '\0';
	fmt_add(&f, "RPC xid=0x%08x %s", msg->xid, rpcrdma_rpc_msg_type_name(msg->type));
	if (msg->type == RPCRDMA_RPC_CALL) {
		fmt_add(&f, " prog=%u vers=%u proc=%u cred=%s", msg->call.prog, msg->call.vers,
			msg->call.proc, rpcrdma_rpc_auth_flavor_name(msg->call.cred.flavor));
		if (msg->call.cred.flavor == RPCRDMA_RPC_AUTH_SYS)
			fmt_add(&f, "(uid=%u gid=%u ngids=%u machine=%.*s)", msg->call.sys.uid,
				msg->call.sys.gid, msg->call.sys.ngids,
				(int)msg->call.sys.machinename_len, msg->call.sys.machinename);
		return (int)f.len;
	}
	if (msg->type != RPCRDMA_RPC_REPLY)
		return (int)f.len;
	fmt_add(&f, " %s", rpcrdma_rpc_reply_stat_name(rep->stat));
	if (rep->stat == RPCRDMA_RPC_MSG_ACCEPTED) {
		fmt_add(&f, " %s", rpcrdma_rpc_accept_stat_name(rep->accept_stat));
		if (rep->accept_stat == RPCRDMA_RPC_PROG_MISMATCH)
			fmt_add(&f, " low=%u high=%u", rep->low, rep->high);
	} else {
		fmt_add(&f, " %s", rpcrdma_rpc_reject_stat_name(rep->reject_stat));
		if (rep->reject_stat == RPCRDMA_RPC_RPC_MISMATCH)
			fmt_add(&f, " low=%u high=%u", rep->low, rep->high);
		else
			fmt_add(&f, " auth_stat=%u", rep->auth_stat);
	}
	return (int)f.len;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Field-by-field comparison of decoded codec structures.
 */
#include <stdio.h>
#include <string.h>

#include "codec_cmp.h"

/* Compare one integer field; on a difference, describe it and return 1. */
#define CMP_FIELD(what, x, y)                                                        \
	do {                                                                         \
		unsigned long long x_ = (x), y_ = (y);                               \
		if (x_ != y_) {                                                      \
			snprintf(why, whylen, "%s: 0x%llx != 0x%llx", what, x_, y_); \
			return 1;                                                    \
		}                                                                    \
	} while (0)

/* Compare len bytes at two places, either of which may be NULL when len is 0. */
#define CMP_BYTES(what, x, y, len)                                       \
	do {                                                             \
		if ((len) && memcmp((x), (y), (len)) != 0) {             \
			snprintf(why, whylen, "%s: bytes differ", what); \
			return 1;                                        \
		}                                                        \
	} while (0)

static int seg_cmp(const struct rpcrdma_segment *a, const struct rpcrdma_segment *b, char *why,
		   size_t whylen)
{
	CMP_FIELD("segment handle", a->handle, b->handle);
	CMP_FIELD("segment length", a->length, b->length);
	CMP_FIELD("segment offset", a->offset, b->offset);
	return 0;
}

static int chunk_cmp(const struct rpcrdma_write_chunk *a, const struct rpcrdma_write_chunk *b,
		     char *why, size_t whylen)
{
	uint32_t i;

	CMP_FIELD("chunk nsegs", a->nsegs, b->nsegs);
	for (i = 0; i < a->nsegs; i++)
		if (seg_cmp(&a->segs[i], &b->segs[i], why, whylen))
			return 1;
	return 0;
}

static int chunk_lists_cmp(uint32_t vers, uint32_t proc, const struct rpcrdma_chunk_lists *a,
			   const struct rpcrdma_chunk_lists *b, char *why, size_t whylen)
{
	uint32_t i;

	if (vers == RPCRDMA_VERS_2)
		CMP_FIELD("direction", a->direction, b->direction);
	if (vers == RPCRDMA_VERS_1 && proc == RPCRDMA_MSGP) {
		CMP_FIELD("align", a->align, b->align);
		CMP_FIELD("thresh", a->thresh, b->thresh);
	}
	CMP_FIELD("nreads", a->nreads, b->nreads);
	for (i = 0; i < a->nreads; i++) {
		CMP_FIELD("read position", a->reads[i].position, b->reads[i].position);
		if (seg_cmp(&a->reads[i].target, &b->reads[i].target, why, whylen))
			return 1;
	}
	CMP_FIELD("nwrites", a->nwrites, b->nwrites);
	for (i = 0; i < a->nwrites; i++)
		if (chunk_cmp(&a->writes[i], &b->writes[i], why, whylen))
			return 1;
	CMP_FIELD("has_reply", a->has_reply, b->has_reply);
	if (a->has_reply && chunk_cmp(&a->reply, &b->reply, why, whylen))
		return 1;
	return 0;
}

int codec_hdr_cmp(const struct rpcrdma_hdr *a, const struct rpcrdma_hdr *b, char *why,
		  size_t whylen)
{
	if (whylen)
		why[0] = '\0';
	CMP_FIELD("xid", a->xid, b->xid);
	CMP_FIELD("vers", a->vers, b->vers);
	CMP_FIELD("credit", a->credit, b->credit);
	CMP_FIELD("proc", a->proc, b->proc);
	switch (a->proc) {
	case RPCRDMA_MSG:
	case RPCRDMA_NOMSG:
	case RPCRDMA_MSGP:
		return chunk_lists_cmp(a->vers, a->proc, &a->chunks, &b->chunks, why, whylen);
	case RPCRDMA_ERROR:
		CMP_FIELD("error code", a->error.code, b->error.code);
		if (a->error.code == RPCRDMA_ERR_VERS) {
			CMP_FIELD("error low", a->error.low, b->error.low);
			CMP_FIELD("error high", a->error.high, b->error.high);
		}
		return 0;
	case RPCRDMA_OPTIONAL:
		CMP_FIELD("optdir", a->optional.optdir, b->optional.optdir);
		CMP_FIELD("opttype", a->optional.opttype, b->optional.opttype);
		CMP_FIELD("optinfo_len", a->optional.optinfo_len, b->optional.optinfo_len);
		CMP_BYTES("optinfo", a->optional.optinfo, b->optional.optinfo,
			  a->optional.optinfo_len);
		return 0;
	default: /* RDMA_DONE: void */
		return 0;
	}
}

static int auth_cmp(const char *what, const struct rpcrdma_rpc_auth *a,
		    const struct rpcrdma_rpc_auth *b, char *why, size_t whylen)
{
	CMP_FIELD(what, a->flavor, b->flavor);
	CMP_FIELD(what, a->len, b->len);
	CMP_BYTES(what, a->body, b->body, a->len);
	return 0;
}

static int authsys_cmp(const struct rpcrdma_rpc_authsys *a, const struct rpcrdma_rpc_authsys *b,
		       char *why, size_t whylen)
{
	uint32_t i;

	CMP_FIELD("authsys stamp", a->stamp, b->stamp);
	CMP_FIELD("authsys machinename_len", a->machinename_len, b->machinename_len);
	CMP_BYTES("authsys machinename", a->machinename, b->machinename, a->machinename_len);
	CMP_FIELD("authsys uid", a->uid, b->uid);
	CMP_FIELD("authsys gid", a->gid, b->gid);
	CMP_FIELD("authsys ngids", a->ngids, b->ngids);
	for (i = 0; i < a->ngids && i < RPCRDMA_RPC_AUTHSYS_NGIDS; i++)
		CMP_FIELD("authsys gid[]", a->gids[i], b->gids[i]);
	return 0;
}

int codec_rpc_cmp(const struct rpcrdma_rpc_msg *a, const struct rpcrdma_rpc_msg *b, char *why,
		  size_t whylen)
{
	const struct rpcrdma_rpc_reply *ra = &a->reply, *rb = &b->reply;

	if (whylen)
		why[0] = '\0';
	CMP_FIELD("xid", a->xid, b->xid);
	CMP_FIELD("msg_type", a->type, b->type);
	if (a->type == RPCRDMA_RPC_CALL) {
		CMP_FIELD("rpcvers", a->call.rpcvers, b->call.rpcvers);
		CMP_FIELD("prog", a->call.prog, b->call.prog);
		CMP_FIELD("vers", a->call.vers, b->call.vers);
		CMP_FIELD("proc", a->call.proc, b->call.proc);
		if (auth_cmp("cred", &a->call.cred, &b->call.cred, why, whylen))
			return 1;
		if (auth_cmp("verf", &a->call.verf, &b->call.verf, why, whylen))
			return 1;
		if (a->call.cred.flavor == RPCRDMA_RPC_AUTH_SYS)
			return authsys_cmp(&a->call.sys, &b->call.sys, why, whylen);
		return 0;
	}
	CMP_FIELD("reply_stat", ra->stat, rb->stat);
	if (ra->stat == RPCRDMA_RPC_MSG_ACCEPTED) {
		if (auth_cmp("reply verf", &ra->verf, &rb->verf, why, whylen))
			return 1;
		CMP_FIELD("accept_stat", ra->accept_stat, rb->accept_stat);
		if (ra->accept_stat == RPCRDMA_RPC_PROG_MISMATCH) {
			CMP_FIELD("low", ra->low, rb->low);
			CMP_FIELD("high", ra->high, rb->high);
		}
		return 0;
	}
	CMP_FIELD("reject_stat", ra->reject_stat, rb->reject_stat);
	if (ra->reject_stat == RPCRDMA_RPC_RPC_MISMATCH) {
		CMP_FIELD("low", ra->low, rb->low);
		CMP_FIELD("high", ra->high, rb->high);
	} else {
		CMP_FIELD("auth_stat", ra->auth_stat, rb->auth_stat);
	}
	return 0;
}

/* A known characteristic is its value; an unknown one its opaque data. */
static int xcharval_cmp(const struct rpcrdma_xcharval *a, const struct rpcrdma_xcharval *b,
			char *why, size_t whylen)
{
	CMP_FIELD("xchv_which", a->which, b->which);
	CMP_FIELD("known", a->known, b->known);
	if (a->known) {
		CMP_FIELD("value", a->value, b->value);
		return 0;
	}
	CMP_FIELD("xchv_data length", a->len, b->len);
	CMP_BYTES("xchv_data", a->data, b->data, a->len);
	return 0;
}

static int xcharspec_cmp(const struct rpcrdma_xcharspec *a, const struct rpcrdma_xcharspec *b,
			 char *why, size_t whylen)
{
	uint32_t i;

	CMP_FIELD("xcharspec n", a->n, b->n);
	for (i = 0; i < a->n && i < RPCRDMA_XCHAR_MAX; i++)
		if (xcharval_cmp(&a->vals[i], &b->vals[i], why, whylen))
			return 1;
	return 0;
}

int codec_xchar_cmp(const struct rpcrdma_xchar_msg *a, const struct rpcrdma_xchar_msg *b, char *why,
		    size_t whylen)
{
	if (whylen)
		why[0] = '\0';
	CMP_FIELD("opttype", a->opttype, b->opttype);
	switch (a->opttype) {
	case RPCRDMA_ROPT_INITXCH:
		if (xcharspec_cmp(&a->initxch.start, &b->initxch.start, why, whylen))
			return 1;
		CMP_FIELD("nochg", a->initxch.nochg.bits, b->initxch.nochg.bits);
		return 0;
	case RPCRDMA_ROPT_REQXCH:
		return xcharspec_cmp(&a->reqxch.want, &b->reqxch.want, why, whylen);
	case RPCRDMA_ROPT_RESPXCH:
		CMP_FIELD("done", a->respxch.done.bits, b->respxch.done.bits);
		CMP_FIELD("rej", a->respxch.rej.bits, b->respxch.rej.bits);
		CMP_FIELD("pend", a->respxch.pend.bits, b->respxch.pend.bits);
		return 0;
	case RPCRDMA_ROPT_UPDXCH:
		if (xcharval_cmp(&a->updxch.now, &b->updxch.now, why, whylen))
			return 1;
		CMP_FIELD("pendclr", a->updxch.pendclr, b->updxch.pendclr);
		return 0;
	default:
		return 0;
	}
}

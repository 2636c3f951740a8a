/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the programs of rpcrdma-perf share (perf_prog.h): the RPC reply
 * header of a call, and one call waited for, for what a program sets up
 * before the run and takes down after it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include <rpcrdma/rpcrdma_rpc.h>
#include <rpcrdma/rpcrdma_xprt.h>

#include "perf_prog.h"

int perf_prog_rpc_reply(struct rpcrdma_xprt_call *call, struct rpcrdma_xdr_dec *d, char *err,
			size_t len)
{
	struct rpcrdma_rpc_msg m;

	if (rpcrdma_xprt_get_rpc(d, &m) != 0 || m.xid != rpcrdma_xprt_call_xid(call) ||
	    m.type != RPCRDMA_RPC_REPLY) {
		snprintf(err, len, "the reply's RPC header does not decode");
		return -EBADMSG;
	}
	if (m.reply.stat != RPCRDMA_RPC_MSG_ACCEPTED) {
		snprintf(err, len, "RPC MSG_DENIED %s",
			 rpcrdma_rpc_reject_stat_name(m.reply.reject_stat));
		return -EREMOTEIO;
	}
	if (m.reply.accept_stat != RPCRDMA_RPC_SUCCESS) {
		snprintf(err, len, "RPC %s", rpcrdma_rpc_accept_stat_name(m.reply.accept_stat));
		return -EREMOTEIO;
	}
	return 0;
}

const char *perf_prog_status_name(int status)
{
	switch (status) {
	case -EREMOTEIO:
		return "RDMA_ERROR ERR_CHUNK (the server refused the call's chunks: over its "
		       "largest READ or WRITE?)";
	case -EPROTONOSUPPORT:
		return "RDMA_ERROR ERR_VERS";
	case -ETIMEDOUT:
		return "no reply in time";
	default:
		return strerror(-status);
	}
}

/*
 * The call being waited for: one at a time. It lives here, not on the
 * waiter's stack, and its completion is matched by generation, so that a
 * completion that comes after the waiter gave up writes nothing it reads.
 */
static struct {
	uintptr_t gen;
	bool done;
	int status;
	int (*dec)(struct rpcrdma_xdr_dec *d, void *res);
	void *res;
	char err[PERF_ERR_LEN];
} sync_call;

static void sync_done(void *arg, struct rpcrdma_xprt_call *call, int status,
		      struct rpcrdma_xdr_dec *reply)
{
	if ((uintptr_t)arg != sync_call.gen) { /* given up on: only released */
		rpcrdma_xprt_call_release(call);
		return;
	}
	if (status != 0)
		snprintf(sync_call.err, sizeof(sync_call.err), "%s", perf_prog_status_name(status));
	if (status == 0)
		status = perf_prog_rpc_reply(call, reply, sync_call.err, sizeof(sync_call.err));
	if (status == 0 && sync_call.dec) {
		status = sync_call.dec(reply, sync_call.res);
		if (status == 0 && rpcrdma_xdr_dec_left(reply) != 0)
			status = -EBADMSG;
		if (status)
			snprintf(sync_call.err, sizeof(sync_call.err),
				 "the results do not decode (%d)", status);
	}
	rpcrdma_xprt_call_release(call);
	sync_call.status = status;
	sync_call.done = true;
}

int perf_prog_put_header(const struct perf_prog_env *env, struct rpcrdma_xprt_call *call,
			 uint32_t prog, uint32_t vers, uint32_t proc)
{
	struct rpcrdma_rpc_msg m;

	if (env->cred_len == 0)
		return rpcrdma_xprt_call_put_header(call, prog, vers, proc);
	memset(&m, 0, sizeof(m));
	m.xid = rpcrdma_xprt_call_xid(call);
	m.type = RPCRDMA_RPC_CALL;
	m.call.rpcvers = RPCRDMA_RPC_VERS;
	m.call.prog = prog;
	m.call.vers = vers;
	m.call.proc = proc;
	m.call.cred.flavor = RPCRDMA_RPC_AUTH_SYS;
	m.call.cred.len = env->cred_len;
	m.call.cred.body = env->cred;
	m.call.verf.flavor = RPCRDMA_RPC_AUTH_NONE;
	return rpcrdma_xprt_put_rpc(rpcrdma_xprt_call_enc(call), &m);
}

int perf_prog_call(struct perf_prog_env *env, uint32_t prog, uint32_t vers, uint32_t proc,
		   int (*enc)(struct rpcrdma_xdr_enc *x, const void *args), const void *args,
		   int (*dec)(struct rpcrdma_xdr_dec *d, void *res), void *res,
		   const struct rpcrdma_xdr_reply_spec *spec, char *err, size_t len)
{
	uint64_t end = rte_rdtsc() + (uint64_t)(env->timeout + 1) * rte_get_tsc_hz();
	struct rpcrdma_xdr_reply_spec *rs;
	struct rpcrdma_xprt_call *call;
	int ret;

	sync_call.gen++;
	sync_call.done = false;
	sync_call.dec = dec;
	sync_call.res = res;
	sync_call.err[0] = '\0';
	ret = rpcrdma_xprt_call_alloc(env->xprt, &call);
	if (ret) {
		snprintf(err, len, "no call slot: %s", strerror(-ret));
		return ret;
	}
	ret = perf_prog_put_header(env, call, prog, vers, proc);
	if (ret == 0 && enc)
		ret = enc(rpcrdma_xprt_call_enc(call), args);
	rs = rpcrdma_xprt_call_reply_spec(call);
	if (spec)
		*rs = *spec;
	if (rs->max_len == 0)
		rs->max_len = 512;
	if (ret == 0)
		ret = rpcrdma_xprt_call_set_timeout(call, (uint64_t)env->timeout * 1000000);
	if (ret == 0)
		ret = rpcrdma_xprt_call_submit(call, 0, sync_done, (void *)sync_call.gen);
	if (ret) {
		rpcrdma_xprt_call_release(call);
		snprintf(err, len, "cannot send: %s", strerror(-ret));
		return ret;
	}
	/* the call's own timeout completes it first; the end only guards a lost connection */
	while (!sync_call.done && rte_rdtsc() < end)
		env->poll(env->poll_arg);
	if (!sync_call.done) {
		sync_call.gen++;
		snprintf(err, len, "no reply in %u seconds", env->timeout);
		return -ETIMEDOUT;
	}
	snprintf(err, len, "%s", sync_call.err);
	return sync_call.status;
}

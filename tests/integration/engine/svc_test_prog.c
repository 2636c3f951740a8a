/* SPDX-License-Identifier: BSD-3-Clause */
/* The dispatch-glue tests' program codecs, ends and call driver (svc_test_prog.h). */
#include <errno.h>
#include <string.h>

#include <rpcrdma/rpcrdma_xdr.h>
#include <rpcrdma/rpcrdma_xprt.h>

#include "svc_test_prog.h"
#include "test_check.h"

uint32_t svc_args_max_len = 1u << 20;

int svc_dec_args(struct rpcrdma_xdr_dec *d, void *a)
{
	struct svc_args *x = a;

	if (rpcrdma_xdr_get_u32(d, &x->seed) || rpcrdma_xdr_get_u32(d, &x->len) ||
	    x->len > svc_args_max_len)
		return -1;
	return rpcrdma_xdr_dec_left(d) == 0 ? 0 : -1;
}

int svc_dec_seed(struct rpcrdma_xdr_dec *d, void *a)
{
	return rpcrdma_xdr_get_u32(d, &((struct svc_args *)a)->seed);
}

int svc_enc_inline(struct rpcrdma_xdr_enc *e, const void *r)
{
	const struct svc_res *y = r;
	uint8_t *p;

	if (rpcrdma_xdr_put_u32(e, y->len))
		return -ENOSPC;
	p = rpcrdma_xdr_reserve(e, rpcrdma_xdr_pad4(y->len));
	if (p == NULL)
		return -ENOSPC;
	for (uint32_t i = 0; i < rpcrdma_xdr_pad4(y->len); i++)
		p[i] = i < y->len ? test_pattern(y->seed, i) : 0;
	return 0;
}

int svc_enc_ddp(struct rpcrdma_xdr_enc *e, const void *r)
{
	const struct svc_res *y = r;
	struct rpcrdma_xdr_region reg;

	reg = rpcrdma_xdr_region_va(y->buf, y->len, y->pool->lkey, y->pool->rkey);
	return rpcrdma_xdr_put_ddp(e, &reg) ? -ENOSPC : 0;
}

int svc_enc_seed(struct rpcrdma_xdr_enc *e, const void *r)
{
	return rpcrdma_xdr_put_u32(e, ((const struct svc_res *)r)->seed);
}

int svc_res_ddp_fill(struct svc_res *y, struct rpcrdma_mempool_set *pools, const struct svc_args *x)
{
	y->pool = rpcrdma_mempool_set_chunk_pool(pools, x->len);
	y->buf = y->pool ? rpcrdma_mempool_get(y->pool) : NULL;
	if (y->buf == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < x->len; i++)
		((uint8_t *)y->buf)[i] = test_pattern(x->seed, i);
	y->seed = x->seed;
	y->len = x->len;
	return 0;
}

bool svc_res_ddp_put(struct svc_res *y)
{
	if (y->buf == NULL)
		return false;
	rpcrdma_mempool_put(y->pool, y->buf);
	y->buf = NULL;
	return true;
}

/* ------------------------------------------------------------ the ends */

int svc_side_open(struct test_side *s, const char *name)
{
	const struct test_side_pools p = { name, 256, 8, 2, 0, false };

	return test_side_create(s, NULL, &p);
}

int svc_side_accept(struct test_side *s, const struct rpcrdma_pmd_event *ev)
{
	int ret = test_side_accept(s, ev);

	CHECK(ret == 0, "accept");
	return ret;
}

/* ------------------------------------------------------------ the call driver */

enum svc_res_kind svc_proc_res[SVC_NPROC];

static enum svc_res_kind proc_res(uint32_t proc)
{
	return proc < SVC_NPROC ? svc_proc_res[proc] : SVC_RES_VOID;
}

/* Keep the reply as the decoder reads it, after the XID (which differs per run). */
static void take_bytes(struct svc_tcall *t, const struct rpcrdma_xdr_dec *d)
{
	struct rpcrdma_xdr_dec raw = *d;
	uint32_t w;

	t->nbytes = 0;
	if (rpcrdma_xdr_get_u32(&raw, &w))
		return;
	while (rpcrdma_xdr_dec_left(&raw) >= 4 && t->nbytes + 4 <= SVC_TCALL_BYTES &&
	       rpcrdma_xdr_get_u32(&raw, &w) == 0) {
		t->bytes[t->nbytes++] = (uint8_t)(w >> 24);
		t->bytes[t->nbytes++] = (uint8_t)(w >> 16);
		t->bytes[t->nbytes++] = (uint8_t)(w >> 8);
		t->bytes[t->nbytes++] = (uint8_t)w;
	}
}

/* The reply: an error carries nothing more; a success, its procedure's result for this call. */
static void tcall_cb(void *arg, struct rpcrdma_xprt_call *call, int status,
		     struct rpcrdma_xdr_dec *d)
{
	struct svc_tcall *t = arg;
	const void *p = NULL;
	uint32_t n = 0, v;

	t->done = true;
	t->status = status;
	t->data_ok = false;
	t->nbytes = 0;
	if (status == 0)
		take_bytes(t, d);
	if (status == 0 && rpcrdma_xprt_get_rpc(d, &t->rep) == 0 &&
	    t->rep.xid == rpcrdma_xprt_call_xid(call) && t->rep.type == RPCRDMA_RPC_REPLY) {
		if (t->rep.reply.stat != RPCRDMA_RPC_MSG_ACCEPTED ||
		    t->rep.reply.accept_stat != RPCRDMA_RPC_SUCCESS) {
			t->data_ok = rpcrdma_xdr_dec_left(d) == 0;
		} else if (proc_res(t->proc) == SVC_RES_INLINE) {
			t->data_ok = rpcrdma_xdr_get_opaque(d, svc_args_max_len, &p, &n) == 0 &&
				     n == t->len && test_pattern_same(p, n, t->seed);
		} else if (proc_res(t->proc) == SVC_RES_DDP) {
			t->data_ok = rpcrdma_xdr_get_ddp(d, svc_args_max_len, &p, &n) == 0 &&
				     n == t->len && test_pattern_same(p, n, t->seed) &&
				     (!t->chunk || p == t->buf);
			if (t->data_ok && t->nbytes + n <= SVC_TCALL_BYTES) {
				memcpy(t->bytes + t->nbytes, p, n);
				t->nbytes += n;
			}
		} else if (proc_res(t->proc) == SVC_RES_SEED) {
			t->data_ok = rpcrdma_xdr_get_u32(d, &v) == 0 && v == ~t->seed;
		} else {
			t->data_ok = true;
		}
		t->data_ok = t->data_ok && rpcrdma_xdr_dec_left(d) == 0;
	}
	if (t->buf)
		rpcrdma_mempool_put(t->pool, t->buf);
	t->buf = NULL;
	CHECK(rpcrdma_xprt_call_release(call) == 0, "release");
}

void svc_tcall_submit(struct svc_tcall *t, struct rpcrdma_xprt *xprt,
		      struct rpcrdma_mempool_set *pools)
{
	struct rpcrdma_xprt_call *call;
	struct rpcrdma_xdr_reply_spec *spec;
	struct rpcrdma_xdr_enc *x;
	struct rpcrdma_rpc_msg m;
	int ret;

	t->done = false;
	ret = rpcrdma_xprt_call_alloc(xprt, &call);
	CHECK(ret == 0, "call_alloc %d", ret);
	if (ret) {
		t->done = true;
		t->status = ret;
		return;
	}
	x = rpcrdma_xprt_call_enc(call);
	memset(&m, 0, sizeof(m));
	t->xid = m.xid = rpcrdma_xprt_call_xid(call);
	m.type = RPCRDMA_RPC_CALL;
	m.call.rpcvers = t->rpcvers ? t->rpcvers : RPCRDMA_RPC_VERS;
	m.call.prog = t->prog;
	m.call.vers = t->vers;
	m.call.proc = t->proc;
	m.call.cred.flavor = t->flavor;
	CHECK(rpcrdma_xprt_put_rpc(x, &m) == 0, "put rpc");
	if (!t->no_args) {
		rpcrdma_xdr_put_u32(x, t->seed);
		if (proc_res(t->proc) != SVC_RES_SEED)
			rpcrdma_xdr_put_u32(x, t->len);
	}
	spec = rpcrdma_xprt_call_reply_spec(call);
	spec->max_len = 64 + rpcrdma_xdr_pad4(t->len);
	if (t->chunk) {
		t->pool = rpcrdma_mempool_set_chunk_pool(pools, t->len);
		t->buf = t->pool ? rpcrdma_mempool_get(t->pool) : NULL;
		CHECK(t->buf != NULL, "client chunk buffer");
		if (t->buf) {
			memset(t->buf, 0, t->len);
			spec->ddp[0] =
				rpcrdma_xdr_region_va(t->buf, t->len, t->pool->lkey, t->pool->rkey);
			spec->nddp = 1;
		}
	}
	CHECK(rpcrdma_xprt_call_submit(call, 0, tcall_cb, t) == 0, "submit");
}

bool svc_tcall_done(void *arg)
{
	return ((struct svc_tcall *)arg)->done;
}

bool svc_tcalls_done(const struct svc_tcall *c, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (!c[i].done)
			return false;
	return true;
}

int svc_tcall_outcome(const struct svc_tcall *t)
{
	if (!t->done || t->status != 0)
		return -1;
	if (t->rep.reply.stat == RPCRDMA_RPC_MSG_DENIED)
		return 100 + (int)t->rep.reply.reject_stat;
	return (int)t->rep.reply.accept_stat;
}

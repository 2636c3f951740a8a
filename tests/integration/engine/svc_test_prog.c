/* SPDX-License-Identifier: BSD-3-Clause */
/* The dispatch-glue tests' program codecs (svc_test_prog.h). */
#include <errno.h>

#include <rpcrdma/rpcrdma_xdr.h>

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

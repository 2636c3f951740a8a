/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The argument and result codecs of the RPC program the dispatch-glue
 * tests serve (test_xprt_svc.c on the poller, test_xprt_svc_rt.c on
 * worker lcores): each test has its own handlers, which fill these.
 *
 *   args: seed, len                  (dec_args: nothing may follow)
 *   res inline: len, len bytes of test_pattern(seed), padded
 *   res DDP:    the same bytes, DDP-eligible from a server chunk buffer
 *   res seed:   one word
 */
#ifndef SVC_TEST_PROG_H
#define SVC_TEST_PROG_H

#include <stdint.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_svc.h>

struct svc_args {
	uint32_t seed, len;
};

struct svc_res {
	uint32_t seed, len;
	int status; /* a pending call's completion status, where a test needs one */
	void *buf;  /* DDP: a chunk buffer, back in its pool at reply_done */
	struct rpcrdma_mempool *pool;
};

/* The largest len dec_args takes; the test sets it before serving. */
extern uint32_t svc_args_max_len;

int svc_dec_args(struct rpcrdma_xdr_dec *d, void *a);
int svc_dec_seed(struct rpcrdma_xdr_dec *d, void *a);
int svc_enc_inline(struct rpcrdma_xdr_enc *e, const void *r);
int svc_enc_ddp(struct rpcrdma_xdr_enc *e, const void *r);
int svc_enc_seed(struct rpcrdma_xdr_enc *e, const void *r);

/*
 * A DDP result: a chunk buffer of @p pools holding x->len pattern bytes,
 * seed and len copied. 0, or -ENOMEM: no buffer (nothing taken).
 */
int svc_res_ddp_fill(struct svc_res *y, struct rpcrdma_mempool_set *pools,
		     const struct svc_args *x);

#endif /* SVC_TEST_PROG_H */

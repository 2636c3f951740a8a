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
 *
 * And the client's side of it, the call driver both tests send their calls
 * with: svc_tcall_submit() encodes a call, its callback checks the reply
 * against what the call's procedure returns (svc_proc_res).
 *
 * Both tests' ends are test_side's (test_side.h), with the pools and the
 * checked accept below.
 */
#ifndef SVC_TEST_PROG_H
#define SVC_TEST_PROG_H

#include <stdbool.h>
#include <stdint.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_svc.h>
#include <rpcrdma/rpcrdma_xprt.h>

#include "test_side.h"

struct svc_args {
	uint32_t seed, len;
};

struct svc_res {
	uint32_t seed, len;
	int status; /* a pending call's completion status, where a test needs one */
	void *buf;  /* DDP: a chunk buffer, back in its pool at reply_done */
	struct rpcrdma_mempool *pool;
};

/*
 * The largest len dec_args takes, and the largest result the call driver
 * accepts; the test sets it before serving.
 */
extern uint32_t svc_args_max_len;

int svc_dec_args(struct rpcrdma_xdr_dec *d, void *a);
int svc_dec_seed(struct rpcrdma_xdr_dec *d, void *a);
int svc_enc_inline(struct rpcrdma_xdr_enc *e, const void *r);
int svc_enc_ddp(struct rpcrdma_xdr_enc *e, const void *r);
int svc_enc_seed(struct rpcrdma_xdr_enc *e, const void *r);

/*
 * A procedure table entry of the test program: its decoder @p dec, the
 * test's own handler @p h and its encoder @p enc, with the argument and
 * result sizes above (the two tests' tables differ in their handlers).
 */
#define SVC_PROC(name, dec, h, enc)                                                       \
	{                                                                                 \
		name, dec, h, enc, sizeof(struct svc_args), sizeof(struct svc_res), false \
	}

/*
 * A DDP result: a chunk buffer of @p pools holding x->len pattern bytes,
 * seed and len copied. 0, or -ENOMEM: no buffer (nothing taken).
 */
int svc_res_ddp_fill(struct svc_res *y, struct rpcrdma_mempool_set *pools,
		     const struct svc_args *x);

/* A DDP result's chunk buffer back in its pool (reply_done); false: it had none. */
bool svc_res_ddp_put(struct svc_res *y);

/* ------------------------------------------------------------ the ends */

/*
 * Open @p s with the pools of a dispatch-glue test's end (256 inline
 * buffers, 8 + 2 chunk buffers; no cache: the counters are exact).
 * 0, or a negative errno (test_side_create()).
 */
int svc_side_open(struct test_side *s, const char *name);

/* A server's test_side_accept_fn that checks the accept succeeds. */
int svc_side_accept(struct test_side *s, const struct rpcrdma_pmd_event *ev);

/* ------------------------------------------------------------ the call driver */

/* What a procedure's successful reply carries after the RPC header. */
enum svc_res_kind {
	SVC_RES_VOID,	/* nothing */
	SVC_RES_INLINE, /* res inline (svc_enc_inline) */
	SVC_RES_DDP,	/* res DDP (svc_enc_ddp) */
	SVC_RES_SEED,	/* res seed (svc_enc_seed): ~seed; its call sends the seed only */
};

#define SVC_NPROC 8 /* procedures svc_proc_res describes; the others are SVC_RES_VOID */

/* The results of the test's procedures, by number; the test fills it before its first call. */
extern enum svc_res_kind svc_proc_res[SVC_NPROC];

#define SVC_TCALL_BYTES 16384 /* the reply bytes a call keeps at most */

/* One test call: what to send, then what came back. */
struct svc_tcall {
	uint32_t rpcvers, prog, vers, proc, flavor; /* rpcvers 0: RPCRDMA_RPC_VERS */
	bool no_args;
	bool chunk; /* offer a write chunk for the result */
	uint32_t seed, len;
	/* outcome */
	bool done;
	int status;
	uint32_t xid; /* 0 until submitted */
	struct rpcrdma_rpc_msg rep;
	bool data_ok;	 /* the reply holds what the call asked for, and nothing more */
	uint32_t nbytes; /* the reply after its XID, then any DDP result */
	uint8_t bytes[SVC_TCALL_BYTES];
	void *buf; /* the write chunk's buffer */
	struct rpcrdma_mempool *pool;
};

/*
 * Send @p t on @p xprt, a write chunk from @p pools if t->chunk; the reply
 * fills t's outcome and sets t->done. A call that cannot be allocated is
 * done at once with its error as status (and a failed check).
 */
void svc_tcall_submit(struct svc_tcall *t, struct rpcrdma_xprt *xprt,
		      struct rpcrdma_mempool_set *pools);

/* pump_until() condition: the call @p arg (a struct svc_tcall) is answered. */
bool svc_tcall_done(void *arg);

/* Every one of the @p n calls at @p c is answered. */
bool svc_tcalls_done(const struct svc_tcall *c, unsigned int n);

/* The outcome: accept_stat, 100 + reject_stat, or -1 (no reply). */
int svc_tcall_outcome(const struct svc_tcall *t);

#endif /* SVC_TEST_PROG_H */

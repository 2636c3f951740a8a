/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The harness of test_xprt, the connection engine's integration test
 * (rpcrdma_xprt.h), shared by its group files (test_xprt_<group>.c) and by
 * tests/integration/capture_engine/test_capture_xprt.c:
 *
 *   xprt_harness.c   both ends of a connection over the PMD under test,
 *                    polled in this thread; the test program's server
 *                    (sctx) and a client's backward service (bctx); the
 *                    client's test calls (struct tcall)
 *   xprt_bare.c      bare PMD endpoints in place of either end, to send
 *                    crafted messages and check the bytes of the answers
 *
 * A test program (prog 0x20000099) carries in its arguments the words, the
 * DDP-eligible items and the shape of the reply it wants, so the server
 * checks every argument byte and the client every result byte.
 */
#ifndef RPCRDMA_TEST_XPRT_H
#define RPCRDMA_TEST_XPRT_H

#include <stdbool.h>
#include <stdint.h>

#include <rpcrdma/rpcrdma_hdr.h>
#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_xprt.h>

#include "test_check.h"
#include "test_side.h"

#define PROG	   0x20000099u
#define PROC_NULL  0
#define PROC_TEST  1
#define MAXI	   4
#define WAIT_MS	   wait_ms
#define MODE_ASYNC 1u /* the server replies at a later poll */

#define DEF_FLAGS \
	(RPCRDMA_XPRT_F_PER_CALL_MR | RPCRDMA_XPRT_F_REMOTE_INV | RPCRDMA_XPRT_F_REPLY_CHUNK_ALWAYS)

/*
 * Both ends of a connection (test_side.h). An end given a bare QP
 * (bare_qp()) sends crafted messages in place of an xprt.
 */
struct env {
	char addr[64];
	struct test_side cli, srv;
	bool srv_bare, cli_bare;
	struct rpcrdma_xprt_group
		*grp; /* either end's poll group (env_close() destroys it), or NULL */
};

/* The test program's service: the server's (sctx), a client's backward one (bctx). */
struct srv_ctx {
	struct rpcrdma_mempool_set *pools; /* of DDP results; NULL: srv_pools */
	uint32_t calls, bad, async_n;
	struct rpcrdma_xprt_svc_call *async[64];
	uint32_t last_xid;
	uint32_t xid_log[64]; /* the XID of call n at [n % 64] */
	uint32_t max_active;
	uint32_t active;
	bool no_reply; /* drop every call */
};

/* A test call (forward from the client, or backward from the server): its shape, then its outcome. */
struct tcall {
	/* the call's shape */
	uint32_t proc;
	uint32_t words;
	uint32_t nitems;
	uint32_t item_len[MAXI];
	uint32_t nres;
	uint32_t res_len[MAXI];
	bool res_chunks; /* the client offers write chunks for the results */
	uint32_t rwords;
	uint32_t mode;
	uint32_t flags;
	uint64_t tmo_us; /* rpcrdma_xprt_call_set_timeout() when not 0 */
	uint32_t order;	 /* completions before this one's (tcall_cb) */
	uint32_t ncb;	 /* times its callback ran: 1 */
	/* its buffers and outcome */
	struct rpcrdma_xprt_call *call;
	uint32_t seed;
	void *bufs[2 * MAXI + 1];
	struct rpcrdma_mempool *bpools[2 * MAXI + 1];
	uint32_t nbufs;
	void *res_buf[MAXI];
	bool done;
	int status;
	bool ok; /* the reply checked out */
};

/*
 * Calls whose results go through 1 and through 3 write chunks: forms that
 * the forms tests run and test_capture_xprt.c captures.
 */
#define TCALL_WRITE1                                                                               \
	{                                                                                          \
		.proc = PROC_TEST, .words = 5, .nres = 1, .res_len = { 8191 }, .res_chunks = true, \
		.rwords = 4                                                                        \
	}
#define TCALL_WRITE3                                                                     \
	{                                                                                \
		.proc = PROC_TEST, .words = 2, .nres = 3, .res_len = { 3000, 2, 60000 }, \
		.res_chunks = true, .rwords = 2                                          \
	}

/* ---------------- xprt_harness.c: the two ends ---------------- */

extern uint64_t wait_ms;   /* a bounded wait (WAIT_MS): 5 s on shm, a minute on verbs */
extern uint64_t tmo_scale; /* call timeouts the tests set are scaled by this (verbs: 50) */

int side_open(struct test_side *s, const char *name, const char *pmd, const char *devargs);
void side_close(struct test_side *s);

/* The server's program and its state; bctx: the client's backward service. */
extern struct srv_ctx sctx, bctx;
extern struct rpcrdma_mempool_set *srv_pools;
void srv_flush_async(struct srv_ctx *c);
bool srv_holds(struct env *e, void *arg);
void srv_held(bool answer);

/* Server connections replaced while draining, and the connect requests refused meanwhile. */
extern unsigned int srv_nparked;
extern unsigned int srv_refused;
extern bool srv_refuse; /* reject every connect request (test_reconnect()) */
void srv_parked_poll(void);
int srv_accept(struct test_side *s, const struct rpcrdma_pmd_event *ev);

/* Both ends, in this thread: once, or until cond(arg) or the time runs out. */
int pump_once(struct env *e);
bool pump_until(struct env *e, bool (*cond)(struct env *, void *), void *arg);
bool both_established(struct env *e, void *arg);
bool srv_established(struct env *e, void *arg);
bool both_closed(struct env *e, void *arg);

/* The versions the next connections are configured with (v2forms: 2, 2..2). */
extern uint32_t cli_vers, srv_vers, srv_vers_min;
void set_vers(uint32_t cli, uint32_t srv_min, uint32_t srv);
void cli_params(struct env *e, uint32_t flags);
void srv_params(struct env *e, uint32_t credits, uint32_t max);
void cli_backward(struct env *e, uint32_t bk);
uint32_t flags_kept(const struct rpcrdma_pmd_dev_info *di, uint32_t flags);

bool env_open_on(struct env *e, const char *cli_pmd, const char *cli_devargs, const char *srv_pmd,
		 const char *srv_devargs);
bool env_open(struct env *e, const char *cli_devargs, const char *srv_devargs);
bool env_connect(struct env *e);
void env_close(struct env *e);
bool env_group(struct env *e, const struct test_side *sd, uint32_t recvs, uint32_t calls);
bool env_up(struct env *e, const char *cli_devargs, const char *srv_devargs);

/* ---------------- xprt_harness.c: the client's calls ---------------- */

void tcall_cb(void *arg, struct rpcrdma_xprt_call *call, int status, struct rpcrdma_xdr_dec *d);
void call_msg(struct rpcrdma_rpc_msg *m, uint32_t xid, uint32_t proc);
int tcall_submit_on(struct test_side *sd, struct tcall *t);
int tcall_submit(struct env *e, struct tcall *t);
bool tcall_done(struct env *e, void *arg);
bool run_call(struct env *e, struct tcall *t);
void stats(struct test_side *s, struct rpcrdma_xprt_stats *st);

/* ---------------- xprt_bare.c: bare endpoints ---------------- */

void bare_qp(struct test_side *s);

/* Transport headers for craft(): calls in versions 1 and 2; a client's ROPT_INITXCH. */
extern const uint32_t v1call[7], v2call[8], initxch[12];

bool bare_client(struct env *e);
void bare_client_up(struct env *e);
void bare_client_down(struct env *e);
int bare_send(struct rpcrdma_pmd_qp *qp, struct rpcrdma_mempool *pool, const void *buf,
	      uint32_t len);
void bare_post(struct test_side *s, unsigned int n);
void *bare_cli_send(struct env *e, const void *msg, uint32_t len);
unsigned int bare_reap(struct env *e);
void put32(uint8_t *b, unsigned int i, uint32_t v);
uint32_t put_words(uint8_t *b, uint32_t xid, const uint32_t *w, unsigned int n);
void bare_srv_send_wait(struct env *e, const void *buf, uint32_t len);
uint32_t craft(uint8_t *b, uint32_t xid, const uint32_t *hw, unsigned int nhw);
int bare_ask(struct env *e, const void *msg, uint32_t len, struct rpcrdma_hdr_storage *hs,
	     uint32_t ms);
int bare_ask_call(struct env *e, const uint32_t *hw, unsigned int nhw, uint32_t xid,
		  struct rpcrdma_hdr_storage *hs, uint32_t ms);
void bare_expect(struct env *e, const void *msg, uint32_t len, const uint32_t *want, unsigned int n,
		 const char *what);
bool bare_server_wait(struct env *e, uint64_t end);
bool bare_server_accept(struct env *e, unsigned int nrecv);

/* ---------------- the groups' cases, in the order main() runs them ---------------- */

/* test_xprt_setup.c */
void test_setup(void);
void test_dev_flags(void);
/* test_xprt_forms.c (forms, v2forms) */
void test_forms(void);
/* test_xprt_credits.c (credits, v2forms) */
void test_credits(void);
void test_grants(void);
void test_group_reserve(void);
void test_unsignaled(void);
/* test_xprt_errors.c */
void test_errors(void);
void test_error_rules(void);
void test_errors_requester(void);
void test_errors_shared_slots(void);
/* test_xprt_loss.c */
void test_loss(void);
void test_loss_peer(void);
void test_reconnect(void);
void test_faults(void);
/* test_xprt_client.c */
void test_timeout(void);
void test_polling(void);
void test_reply_rpc(void);
/* test_xprt_v2.c (v2, xchar) */
void test_v2_negotiation(void);
void test_v2_errors(void);
void test_v2_optional_v1(void);
void test_xchar(void);
void test_xchar_errors(void);
/* test_xprt_backward.c */
void test_backward_v1(void);
void test_backward_v2(void);
void test_backward_loss(void);
void test_backward_group(void);
/* test_xprt_hostile.c */
void test_hostile_server(void);
void test_hostile_client(void);
void test_v2_probe_lost(void);
/* test_xprt_xproc.c: the client forks and execs the server (main(): --xproc-server ADDR) */
int xproc_server(const char *addr);
int xproc_client(const char *prog);

#endif /* RPCRDMA_TEST_XPRT_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The duplicate request cache (rpcrdma_svc.h, engine/svc/svc_drc.c) through
 * dispatch: a copy of a completed non-idempotent call replays the same
 * reply bytes without running the handler; a copy of one in progress is
 * dropped; another client key, other arguments, another XID or procedure
 * is a miss; LRU eviction when full; replies too long or with DDP items
 * are not cached; every entry in progress runs calls uncached; idempotent
 * procedures never reach the cache; an upper layer's own hook sees the
 * calls and the reply bytes; two threads sending the same calls run each
 * once; the API's refusals of bad arguments.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rpcrdma_svc.h>

#include "test_check.h"

#define PROG 0x20000011u
#define VERS 1u

/* ------------------------------------------------------------ the program */

struct two_args {
	uint32_t a, b;
};

/* Handler runs, per procedure: a procedure run twice shows here. */
static uint32_t runs[8];

static int dec_two(struct rpcrdma_xdr_dec *dec, void *p)
{
	struct two_args *a = p;

	if (rpcrdma_xdr_get_u32(dec, &a->a) || rpcrdma_xdr_get_u32(dec, &a->b))
		return -1;
	return 0;
}

static int enc_u32(struct rpcrdma_xdr_enc *enc, const void *p)
{
	return rpcrdma_xdr_put_u32(enc, *(const uint32_t *)p);
}

/* a + b + 1000 * (the runs before): a second run answers differently */
static int h_bump(struct rpcrdma_svc_req *req, void *args, void *res)
{
	const struct two_args *a = args;
	uint32_t n = __atomic_fetch_add(&runs[req->call->call.proc], 1, __ATOMIC_RELAXED);

	*(uint32_t *)res = a->a + a->b + 1000 * n;
	return RPCRDMA_SVC_OK;
}

static struct rpcrdma_svc_req *pending;

static int h_async(struct rpcrdma_svc_req *req, void *args, void *res)
{
	runs[req->call->call.proc]++;
	pending = req;
	return RPCRDMA_SVC_PENDING;
}

/* BIG: a words of results (a reply longer than a small cache's entries) */
static int enc_big(struct rpcrdma_xdr_enc *enc, const void *p)
{
	uint32_t n = *(const uint32_t *)p;

	for (uint32_t i = 0; i < n; i++)
		if (rpcrdma_xdr_put_u32(enc, 0x0b000000u + i))
			return -ENOSPC;
	return 0;
}

static int h_big(struct rpcrdma_svc_req *req, void *args, void *res)
{
	runs[req->call->call.proc]++;
	*(uint32_t *)res = ((const struct two_args *)args)->a;
	return RPCRDMA_SVC_OK;
}

/* DDP: 64 bytes as a DDP-eligible item (its bytes are not in the reply stream) */
static uint8_t ddp_data[64];

static int enc_ddp(struct rpcrdma_xdr_enc *enc, const void *p)
{
	struct rpcrdma_xdr_region r = rpcrdma_xdr_region_va(ddp_data, sizeof(ddp_data), 1, 2);

	(void)p;
	return rpcrdma_xdr_put_ddp(enc, &r);
}

enum {
	P_NULL,
	P_BUMP,
	P_BUMP2,
	P_ASYNC,
	P_BIG,
	P_DDP,
	P_IDEM,
	P_COUNT
};

#define NONIDEM RPCRDMA_SVC_PROC_F_NONIDEMPOTENT

static const struct rpcrdma_svc_proc procs[P_COUNT] = {
	[P_BUMP] = { .name = "BUMP",
		     .decode = dec_two,
		     .handler = h_bump,
		     .encode = enc_u32,
		     .args_size = sizeof(struct two_args),
		     .res_size = 4,
		     .flags = NONIDEM },
	[P_BUMP2] = { .name = "BUMP2",
		      .decode = dec_two,
		      .handler = h_bump,
		      .encode = enc_u32,
		      .args_size = sizeof(struct two_args),
		      .res_size = 4,
		      .flags = NONIDEM },
	[P_ASYNC] = { .name = "ASYNC",
		      .decode = dec_two,
		      .handler = h_async,
		      .encode = enc_u32,
		      .args_size = sizeof(struct two_args),
		      .res_size = 4,
		      .flags = NONIDEM },
	[P_BIG] = { .name = "BIG",
		    .decode = dec_two,
		    .handler = h_big,
		    .encode = enc_big,
		    .args_size = sizeof(struct two_args),
		    .res_size = 4,
		    .flags = NONIDEM },
	[P_DDP] = { .name = "DDP",
		    .decode = dec_two,
		    .handler = h_big,
		    .encode = enc_ddp,
		    .args_size = sizeof(struct two_args),
		    .res_size = 4,
		    .flags = NONIDEM },
	/* the same as BUMP, without the flag */
	[P_IDEM] = { .name = "IDEM",
		     .decode = dec_two,
		     .handler = h_bump,
		     .encode = enc_u32,
		     .args_size = sizeof(struct two_args),
		     .res_size = 4 },
};

static const struct rpcrdma_svc_version vers[] = {
	{ .vers = VERS, .nprocs = P_COUNT, .procs = procs },
};

static const struct rpcrdma_svc_program program = {
	.name = "DRCTEST", .prog = PROG, .nvers = 1, .vers = vers
};

/* ------------------------------------------------------------ harness */

/* One call and its reply: each its own buffers, so a pending call keeps its own. */
struct xcall {
	uint8_t buf[128];
	uint32_t len;
	struct rpcrdma_rpc_msg msg;
	struct rpcrdma_xdr_dec dec;
	struct rpcrdma_xdr_enc enc;
	uint8_t reply[512];
	struct rpcrdma_svc_req req;
	int ret;
};

static void on_done(struct rpcrdma_svc_req *r, int ret)
{
	(void)r;
	(void)ret;
}

/* Build the call (xid, proc, a, b) with client key ck and dispatch it, reply capacity cap. */
static int call_cap(struct rpcrdma_svc_registry *reg, struct xcall *x, uint32_t xid, uint32_t proc,
		    uint32_t a, uint32_t b, uint64_t ck, uint32_t cap, uint32_t slot)
{
	struct rpcrdma_rpc_msg m;
	struct rpcrdma_xdr_region mem;
	struct rpcrdma_xdr_enc e;
	int hdr;

	memset(x, 0, sizeof(*x));
	memset(&m, 0, sizeof(m));
	m.xid = xid;
	m.type = RPCRDMA_RPC_CALL;
	m.call.rpcvers = 2;
	m.call.prog = PROG;
	m.call.vers = VERS;
	m.call.proc = proc;
	m.call.cred.flavor = RPCRDMA_RPC_AUTH_NONE;
	m.call.verf.flavor = RPCRDMA_RPC_AUTH_NONE;
	mem = rpcrdma_xdr_region_va(x->buf, sizeof(x->buf), 0, 0);
	rpcrdma_xdr_enc_init(&e, &mem);
	hdr = rpcrdma_rpc_encode(&m, x->buf, sizeof(x->buf));
	if (hdr < 0)
		abort();
	e.len = e.pos = (uint32_t)hdr;
	if (rpcrdma_xdr_put_u32(&e, a) || rpcrdma_xdr_put_u32(&e, b))
		abort();
	x->len = e.len;
	hdr = rpcrdma_rpc_decode(&x->msg, x->buf, x->len);
	rpcrdma_xdr_dec_init(&x->dec, x->buf + hdr, x->len - (uint32_t)hdr);
	mem = rpcrdma_xdr_region_va(x->reply, cap, 1, 2);
	rpcrdma_xdr_enc_init(&x->enc, &mem);
	x->req.slot = slot;
	x->req.done = on_done;
	x->req.client_key = ck;
	x->ret = rpcrdma_svc_dispatch(reg, &x->req, &x->msg, hdr, &x->dec, &x->enc);
	return x->ret;
}

static int call(struct rpcrdma_svc_registry *reg, struct xcall *x, uint32_t xid, uint32_t proc,
		uint32_t a, uint32_t b, uint64_t ck)
{
	return call_cap(reg, x, xid, proc, a, b, ck, sizeof(x->reply), 0);
}

/* The single u32 result after the 24-byte accepted-reply header. */
static uint32_t result(const struct xcall *x)
{
	const uint8_t *p = x->reply + 24;

	if (x->enc.len != 28)
		return 0xffffffffu;
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool same_reply(const struct xcall *a, const struct xcall *b)
{
	return a->enc.len > 0 && a->enc.len == b->enc.len &&
	       memcmp(a->reply, b->reply, a->enc.len) == 0;
}

static struct rpcrdma_svc_drc_stats dstats(struct rpcrdma_svc_registry *reg)
{
	struct rpcrdma_svc_drc_stats st;

	CHECK(rpcrdma_svc_registry_drc_stats(reg, &st) == 0, "DRC stats");
	return st;
}

static uint64_t proc_calls(struct rpcrdma_svc_registry *reg, uint32_t proc)
{
	struct rpcrdma_svc_proc_stats ps;

	if (rpcrdma_svc_proc_stats(reg, PROG, VERS, proc, &ps) != 0)
		return UINT64_MAX;
	return ps.calls;
}

/* A registry with the program and a library DRC of n entries of reply_max bytes. */
static struct rpcrdma_svc_registry *reg_with_drc(uint32_t n, uint32_t reply_max,
						 struct rpcrdma_svc_drc **drc, uint32_t slots)
{
	struct rpcrdma_svc_drc_params dp;
	struct rpcrdma_svc_params sp;
	struct rpcrdma_svc_registry *reg;

	rpcrdma_svc_params_init(&sp);
	sp.nb_slots = slots;
	if (rpcrdma_svc_registry_create(&sp, &reg) != 0 || rpcrdma_svc_register(reg, &program) != 0)
		abort();
	rpcrdma_svc_drc_params_init(&dp);
	dp.entries = n;
	dp.reply_max = reply_max;
	CHECK(rpcrdma_svc_drc_create(&dp, drc) == 0, "create a DRC of %u", n);
	CHECK(rpcrdma_svc_drc_attach(reg, *drc) == 0, "attach");
	memset(runs, 0, sizeof(runs));
	return reg;
}

static void reg_free(struct rpcrdma_svc_registry *reg, struct rpcrdma_svc_drc *drc)
{
	rpcrdma_svc_registry_free(reg);
	rpcrdma_svc_drc_free(drc);
}

/* ------------------------------------------------------------ tests */

static struct xcall x1, x2, x3;

static void test_replay(void)
{
	struct rpcrdma_svc_drc *drc;
	struct rpcrdma_svc_registry *reg = reg_with_drc(16, 512, &drc, 1);
	struct rpcrdma_svc_drc_stats st;

	CHECK(call(reg, &x1, 0x100, P_BUMP, 2, 3, 7) == RPCRDMA_SVC_OK, "first copy");
	CHECK(result(&x1) == 5 && runs[P_BUMP] == 1, "it ran: %u", result(&x1));
	CHECK(x1.req.proc != NULL, "the first copy reached the procedure");
	CHECK(call(reg, &x2, 0x100, P_BUMP, 2, 3, 7) == RPCRDMA_SVC_OK, "second copy");
	CHECK(runs[P_BUMP] == 1, "the handler did not run again: %u runs", runs[P_BUMP]);
	CHECK(same_reply(&x1, &x2), "the same reply bytes (%u, %u)", x1.enc.len, x2.enc.len);
	CHECK(x2.req.proc == NULL, "a replayed call reaches no procedure (no reply_done)");
	CHECK(proc_calls(reg, P_BUMP) == 1, "the procedure's counter: one call");
	st = dstats(reg);
	CHECK(st.hits == 1 && st.misses == 1 && st.stores == 1 && st.inprog_drops == 0 &&
		      st.entries == 16,
	      "hits %lu misses %lu stores %lu", (unsigned long)st.hits, (unsigned long)st.misses,
	      (unsigned long)st.stores);
	call(reg, &x3, 0x100, P_BUMP, 2, 3, 7);
	CHECK(same_reply(&x1, &x3) && runs[P_BUMP] == 1 && dstats(reg).hits == 2, "third copy");
	/* a reply stream too small for the cached reply: -ENOSPC, nothing written */
	CHECK(call_cap(reg, &x3, 0x100, P_BUMP, 2, 3, 7, 16, 0) == -ENOSPC && x3.enc.len == 0,
	      "cached reply over the stream: %d", x3.ret);
	CHECK(runs[P_BUMP] == 1, "still not run");
	reg_free(reg, drc);
}

static void test_inprog(void)
{
	struct rpcrdma_svc_drc *drc;
	struct rpcrdma_svc_registry *reg = reg_with_drc(16, 512, &drc, 1);

	pending = NULL;
	CHECK(call(reg, &x1, 0x200, P_ASYNC, 4, 5, 1) == RPCRDMA_SVC_PENDING, "first: pending");
	CHECK(pending == &x1.req && runs[P_ASYNC] == 1, "handler ran once");
	CHECK(call(reg, &x2, 0x200, P_ASYNC, 4, 5, 1) == -EALREADY, "copy in progress: %d", x2.ret);
	CHECK(x2.enc.len == 0 && runs[P_ASYNC] == 1 && x2.req.proc == NULL,
	      "dropped: no reply, no run");
	CHECK(dstats(reg).inprog_drops == 1, "counted as an in-progress drop");
	/* the first completes: its reply is cached, a later copy replays it */
	*(uint32_t *)rpcrdma_svc_req_res(pending) = 99;
	rpcrdma_svc_complete(pending, RPCRDMA_SVC_OK);
	CHECK(result(&x1) == 99, "first answered 99");
	CHECK(call(reg, &x3, 0x200, P_ASYNC, 4, 5, 1) == RPCRDMA_SVC_OK, "copy after completion");
	CHECK(same_reply(&x1, &x3) && runs[P_ASYNC] == 1, "replayed the completed reply");
	CHECK(dstats(reg).hits == 1 && dstats(reg).stores == 1, "hit, one store");
	reg_free(reg, drc);
}

static void test_misses(void)
{
	struct rpcrdma_svc_drc *drc;
	struct rpcrdma_svc_registry *reg = reg_with_drc(16, 512, &drc, 1);

	call(reg, &x1, 0x300, P_BUMP, 1, 1, 10);
	CHECK(runs[P_BUMP] == 1, "first");
	/* another client key, same XID and arguments */
	call(reg, &x2, 0x300, P_BUMP, 1, 1, 11);
	CHECK(runs[P_BUMP] == 2 && result(&x2) == 1002, "another client: runs %u", runs[P_BUMP]);
	/* other arguments (the checksum), same XID and client */
	call(reg, &x2, 0x300, P_BUMP, 1, 2, 10);
	CHECK(runs[P_BUMP] == 3 && result(&x2) == 2003, "other arguments: runs %u", runs[P_BUMP]);
	/* another XID */
	call(reg, &x2, 0x301, P_BUMP, 1, 1, 10);
	CHECK(runs[P_BUMP] == 4, "another XID");
	/* another procedure, same XID and arguments */
	call(reg, &x2, 0x300, P_BUMP2, 1, 1, 10);
	CHECK(runs[P_BUMP2] == 1, "another procedure");
	CHECK(dstats(reg).misses == 5 && dstats(reg).hits == 0, "five misses, no hit");
	/* and each of them is now cached under its own key */
	call(reg, &x3, 0x300, P_BUMP, 1, 1, 11);
	CHECK(runs[P_BUMP] == 4 && result(&x3) == 1002, "the other client's own reply replayed");
	call(reg, &x3, 0x300, P_BUMP, 1, 1, 10);
	CHECK(same_reply(&x1, &x3), "the first client's own reply replayed");
	reg_free(reg, drc);

	/* one entry, so one hash bucket: the key's comparison alone tells them apart */
	reg = reg_with_drc(1, 512, &drc, 1);
	call(reg, &x1, 0x310, P_BUMP, 1, 1, 10);
	call(reg, &x2, 0x310, P_BUMP, 1, 1, 11);
	CHECK(runs[P_BUMP] == 2, "one bucket: another client");
	call(reg, &x2, 0x310, P_BUMP, 1, 2, 11);
	CHECK(runs[P_BUMP] == 3, "one bucket: other arguments");
	call(reg, &x2, 0x311, P_BUMP, 1, 2, 11);
	CHECK(runs[P_BUMP] == 4, "one bucket: another XID");
	call(reg, &x2, 0x311, P_BUMP2, 1, 2, 11);
	CHECK(runs[P_BUMP2] == 1, "one bucket: another procedure");
	call(reg, &x3, 0x311, P_BUMP2, 1, 2, 11);
	CHECK(runs[P_BUMP2] == 1 && same_reply(&x2, &x3), "one bucket: the same call hits");
	reg_free(reg, drc);
}

static void test_evict(void)
{
	struct rpcrdma_svc_drc *drc;
	struct rpcrdma_svc_registry *reg = reg_with_drc(4, 512, &drc, 1);
	uint32_t r;

	for (uint32_t i = 0; i < 4; i++)
		call(reg, &x1, 0x400 + i, P_BUMP, i, 0, 1);
	CHECK(runs[P_BUMP] == 4 && dstats(reg).evictions == 0, "four cached, none evicted");
	/* 0x400 used again: 0x401 is now the least recently used */
	call(reg, &x1, 0x400, P_BUMP, 0, 0, 1);
	CHECK(runs[P_BUMP] == 4 && dstats(reg).hits == 1, "hit on 0x400");
	call(reg, &x1, 0x404, P_BUMP, 4, 0, 1);
	CHECK(runs[P_BUMP] == 5 && dstats(reg).evictions == 1, "a fifth evicts one");
	r = runs[P_BUMP];
	call(reg, &x1, 0x400, P_BUMP, 0, 0, 1);
	CHECK(runs[P_BUMP] == r, "0x400 (recently used) is still cached");
	call(reg, &x1, 0x401, P_BUMP, 1, 0, 1);
	CHECK(runs[P_BUMP] == r + 1, "0x401 (least recently used) was evicted: runs again");
	CHECK(dstats(reg).evictions == 2, "its return evicted another: %lu",
	      (unsigned long)dstats(reg).evictions);
	reg_free(reg, drc);
}

static void test_not_cached(void)
{
	struct rpcrdma_svc_drc *drc;
	struct rpcrdma_svc_registry *reg = reg_with_drc(4, 64, &drc, 1);
	struct rpcrdma_svc_drc_stats st;

	/* 24 + 4 * 10 = 64 bytes: fits; 24 + 4 * 11 = 68: too big */
	call(reg, &x1, 0x500, P_BIG, 10, 0, 1);
	call(reg, &x2, 0x500, P_BIG, 10, 0, 1);
	CHECK(runs[P_BIG] == 1 && same_reply(&x1, &x2) && x1.enc.len == 64, "64 bytes cached");
	call(reg, &x1, 0x501, P_BIG, 11, 0, 1);
	CHECK(x1.ret == RPCRDMA_SVC_OK && x1.enc.len == 68, "68 bytes answered");
	call(reg, &x2, 0x501, P_BIG, 11, 0, 1);
	CHECK(runs[P_BIG] == 3 && same_reply(&x1, &x2), "68 bytes not cached: ran again");
	/* a DDP-eligible result: not cached */
	call(reg, &x1, 0x502, P_DDP, 0, 0, 1);
	CHECK(x1.ret == RPCRDMA_SVC_OK && x1.enc.nddp == 1, "DDP reply");
	call(reg, &x2, 0x502, P_DDP, 0, 0, 1);
	CHECK(runs[P_DDP] == 2, "a DDP reply is not cached: ran again");
	st = dstats(reg);
	CHECK(st.too_big == 2 && st.uncacheable == 2 && st.stores == 1 && st.hits == 1,
	      "too_big %lu uncacheable %lu stores %lu", (unsigned long)st.too_big,
	      (unsigned long)st.uncacheable, (unsigned long)st.stores);
	reg_free(reg, drc);
}

static void test_bypass_idempotent(void)
{
	struct rpcrdma_svc_drc *drc;
	struct rpcrdma_svc_registry *reg = reg_with_drc(1, 512, &drc, 1);

	/* the one entry held by a pending call: another call runs uncached */
	CHECK(call(reg, &x1, 0x600, P_ASYNC, 0, 0, 1) == RPCRDMA_SVC_PENDING, "pending");
	call(reg, &x2, 0x601, P_BUMP, 0, 0, 1);
	call(reg, &x3, 0x601, P_BUMP, 0, 0, 1);
	CHECK(runs[P_BUMP] == 2 && dstats(reg).bypass == 2, "no entry free: ran uncached twice");
	rpcrdma_svc_complete(pending, RPCRDMA_SVC_OK);
	call(reg, &x2, 0x601, P_BUMP, 0, 0, 1);
	call(reg, &x3, 0x601, P_BUMP, 0, 0, 1);
	CHECK(runs[P_BUMP] == 3 && dstats(reg).evictions == 1,
	      "the entry back: cached again (evicting the completed one)");
	/* an idempotent procedure never reaches the cache */
	memset(runs, 0, sizeof(runs));
	{
		struct rpcrdma_svc_drc_stats before = dstats(reg), after;

		call(reg, &x1, 0x700, P_IDEM, 1, 1, 1);
		call(reg, &x2, 0x700, P_IDEM, 1, 1, 1);
		after = dstats(reg);
		CHECK(runs[P_IDEM] == 2 && result(&x2) == 1002, "idempotent: ran twice");
		CHECK(after.misses == before.misses && after.hits == before.hits,
		      "the cache was not asked");
	}
	reg_free(reg, drc);
}

/* ---------------- an upper layer's own hook ---------------- */

struct my_drc {
	unsigned int lookups, stores;
	struct rpcrdma_svc_drc_key last;
	uint8_t bytes[512];
	uint32_t len;
	uint64_t cookie;
};

static int my_lookup(void *arg, const struct rpcrdma_svc_drc_key *key,
		     struct rpcrdma_xdr_enc *reply, uint64_t *cookie)
{
	struct my_drc *d = arg;

	(void)reply;
	d->lookups++;
	d->last = *key;
	*cookie = 0xc00c1e;
	return RPCRDMA_SVC_DRC_MISS;
}

static void my_store(void *arg, uint64_t cookie, const struct rpcrdma_svc_drc_key *key,
		     const void *reply, uint32_t len)
{
	struct my_drc *d = arg;

	(void)key;
	d->stores++;
	d->cookie = cookie;
	d->len = len;
	if (reply != NULL && len <= sizeof(d->bytes))
		memcpy(d->bytes, reply, len);
}

static void test_hook(void)
{
	const struct rpcrdma_svc_drc_ops ops = { .lookup = my_lookup, .store = my_store };
	const struct rpcrdma_svc_drc_ops no_store = { .lookup = my_lookup };
	struct rpcrdma_svc_drc_stats st;
	struct rpcrdma_svc_params sp;
	struct rpcrdma_svc_registry *reg;
	struct my_drc d = { 0 };

	rpcrdma_svc_params_init(&sp);
	if (rpcrdma_svc_registry_create(&sp, &reg) != 0 || rpcrdma_svc_register(reg, &program) != 0)
		abort();
	CHECK(rpcrdma_svc_registry_drc_stats(reg, &st) == -ENOENT, "no DRC: no stats");
	CHECK(rpcrdma_svc_set_drc(reg, &no_store, &d) == -EINVAL, "ops without store refused");
	CHECK(rpcrdma_svc_set_drc(reg, &ops, &d) == 0, "own hook set");
	CHECK(rpcrdma_svc_registry_drc_stats(reg, &st) == -ENOENT, "a hook without stats");
	memset(runs, 0, sizeof(runs));
	call(reg, &x1, 0x800, P_IDEM, 1, 2, 5);
	CHECK(d.lookups == 0 && d.stores == 0, "idempotent: not looked up");
	call(reg, &x1, 0x801, P_BUMP, 1, 2, 5);
	CHECK(d.lookups == 1 && d.stores == 1 && d.cookie == 0xc00c1e, "looked up, stored once");
	CHECK(d.last.xid == 0x801 && d.last.prog == PROG && d.last.vers == VERS &&
		      d.last.proc == P_BUMP && d.last.client == 5 && d.last.args_len == 8,
	      "the key: xid %#x proc %u client %lu len %u", d.last.xid, d.last.proc,
	      (unsigned long)d.last.client, d.last.args_len);
	CHECK(d.len == x1.enc.len && memcmp(d.bytes, x1.reply, d.len) == 0,
	      "store got the reply's bytes (%u)", d.len);
	{
		uint32_t csum = d.last.csum;

		call(reg, &x1, 0x801, P_BUMP, 1, 3, 5);
		CHECK(d.last.csum != csum, "other arguments, another checksum");
		call(reg, &x1, 0x801, P_BUMP, 1, 2, 5);
		CHECK(d.last.csum == csum, "the same arguments, the same checksum");
	}
	CHECK(rpcrdma_svc_set_drc(reg, NULL, NULL) == 0, "DRC off");
	call(reg, &x1, 0x801, P_BUMP, 1, 2, 5);
	CHECK(d.lookups == 3, "off: not looked up");
	rpcrdma_svc_registry_free(reg);
}

/* ---------------- bad arguments ---------------- */

static void test_api(void)
{
	struct rpcrdma_svc_drc_params p;
	struct rpcrdma_svc_drc *drc = NULL;
	struct rpcrdma_svc_drc_key k = { 0 };
	struct rpcrdma_svc_drc_stats st;
	struct rpcrdma_svc_params sp;
	struct rpcrdma_svc_registry *reg;

	rpcrdma_svc_drc_params_init(&p);
	CHECK(p.entries == 1024 && p.reply_max == 512, "defaults");
	p.entries = 0;
	CHECK(rpcrdma_svc_drc_create(&p, &drc) == -EINVAL && drc == NULL, "0 entries");
	p.entries = RPCRDMA_SVC_DRC_ENTRIES_MAX + 1;
	CHECK(rpcrdma_svc_drc_create(&p, &drc) == -EINVAL, "too many entries");
	p.entries = 8;
	p.reply_max = RPCRDMA_SVC_DRC_REPLY_MIN - 1;
	CHECK(rpcrdma_svc_drc_create(&p, &drc) == -EINVAL, "reply_max below the minimum");
	p.reply_max = RPCRDMA_SVC_DRC_REPLY_MAX_MAX + 1;
	CHECK(rpcrdma_svc_drc_create(&p, &drc) == -EINVAL, "reply_max above the maximum");
	CHECK(rpcrdma_svc_drc_create(NULL, &drc) == -EINVAL, "no params");
	p.reply_max = RPCRDMA_SVC_DRC_REPLY_MIN;
	CHECK(rpcrdma_svc_drc_create(&p, &drc) == 0 && drc != NULL, "smallest entries");
	rpcrdma_svc_params_init(&sp);
	if (rpcrdma_svc_registry_create(&sp, &reg) != 0)
		abort();
	CHECK(rpcrdma_svc_drc_attach(reg, NULL) == -EINVAL, "attach NULL");
	/* a store with a cookie the cache never gave is ignored */
	rpcrdma_svc_drc_ops()->store(drc, 12345, &k, "x", 1);
	rpcrdma_svc_drc_ops()->store(drc, 3, &k, "x", 1); /* a free entry */
	rpcrdma_svc_drc_stats(drc, &st);
	CHECK(st.stores == 0 && st.too_big == 0 && st.uncacheable == 0 && st.entries == 8,
	      "bogus stores ignored");
	rpcrdma_svc_registry_free(reg);
	rpcrdma_svc_drc_free(drc);
	rpcrdma_svc_drc_free(NULL);
}

/* ---------------- two threads, the same calls ---------------- */

#define MT_CALLS 20000

static struct rpcrdma_svc_registry *mt_reg;
static uint32_t mt_runs[MT_CALLS];
static uint32_t mt_bad;
static pthread_barrier_t mt_start;

static int h_mt(struct rpcrdma_svc_req *req, void *args, void *res)
{
	uint32_t i = ((const struct two_args *)args)->a;

	(void)req;
	if (i < MT_CALLS)
		__atomic_fetch_add(&mt_runs[i], 1, __ATOMIC_RELAXED);
	/* a little work: the other thread meets this call in progress, the two go in step */
	for (volatile int spin = 0; spin < 200; spin++)
		;
	*(uint32_t *)res = i;
	return RPCRDMA_SVC_OK;
}

static const struct rpcrdma_svc_proc mt_procs[] = {
	[1] = { .name = "MT",
		.decode = dec_two,
		.handler = h_mt,
		.encode = enc_u32,
		.args_size = sizeof(struct two_args),
		.res_size = 4,
		.flags = NONIDEM },
};
static const struct rpcrdma_svc_version mt_vers[] = {
	{ .vers = VERS, .nprocs = 2, .procs = mt_procs }
};
static const struct rpcrdma_svc_program mt_prog = {
	.name = "MT", .prog = PROG, .nvers = 1, .vers = mt_vers
};

static void *mt_thread(void *arg)
{
	uint32_t slot = (uint32_t)(uintptr_t)arg;
	struct xcall *x = test_malloc(sizeof(*x));

	pthread_barrier_wait(&mt_start); /* both at once: the calls meet in the cache */
	for (uint32_t i = 0; i < MT_CALLS; i++) {
		int ret = call_cap(mt_reg, x, 0x10000 + i, 1, i, 0, 1, sizeof(x->reply), slot);

		/* answered (run or replayed: the result is the call's), or dropped while in progress */
		if (!(ret == -EALREADY || (ret == RPCRDMA_SVC_OK && result(x) == i)))
			__atomic_fetch_add(&mt_bad, 1, __ATOMIC_RELAXED);
	}
	free(x);
	return NULL;
}

static void test_threads(void)
{
	struct rpcrdma_svc_drc_params dp;
	struct rpcrdma_svc_drc_stats st;
	struct rpcrdma_svc_params sp;
	struct rpcrdma_svc_drc *drc;
	pthread_t t[2];
	uint32_t once = 0;

	rpcrdma_svc_params_init(&sp);
	sp.nb_slots = 2;
	if (rpcrdma_svc_registry_create(&sp, &mt_reg) != 0 ||
	    rpcrdma_svc_register(mt_reg, &mt_prog) != 0)
		abort();
	rpcrdma_svc_drc_params_init(&dp);
	dp.entries = MT_CALLS;
	CHECK(rpcrdma_svc_drc_create(&dp, &drc) == 0 && rpcrdma_svc_drc_attach(mt_reg, drc) == 0,
	      "DRC");
	pthread_barrier_init(&mt_start, NULL, 2);
	for (uintptr_t i = 0; i < 2; i++)
		CHECK(pthread_create(&t[i], NULL, mt_thread, (void *)i) == 0, "thread");
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&mt_start);
	for (uint32_t i = 0; i < MT_CALLS; i++)
		once += mt_runs[i] == 1;
	rpcrdma_svc_drc_stats(drc, &st);
	CHECK(once == MT_CALLS, "every call ran exactly once: %u of %u", once, MT_CALLS);
	CHECK(mt_bad == 0, "every answer was the call's own: %u wrong", mt_bad);
	CHECK(st.misses == MT_CALLS && st.hits + st.inprog_drops == MT_CALLS,
	      "misses %lu, hits %lu + drops %lu", (unsigned long)st.misses, (unsigned long)st.hits,
	      (unsigned long)st.inprog_drops);
	rpcrdma_svc_registry_free(mt_reg);
	rpcrdma_svc_drc_free(drc);
}

int main(void)
{
	test_replay();
	test_inprog();
	test_misses();
	test_evict();
	test_not_cached();
	test_bypass_idempotent();
	test_hook();
	test_api();
	test_threads();
	return test_summary("svc_drc");
}

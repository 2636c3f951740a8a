/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RPC program dispatch: every reply the stack gives itself, checked on the
 * encoded bytes (decoded back with rpcrdma_rpc_decode()) and on the
 * counters; AUTH_NONE and AUTH_SYS reaching the handler; a program that
 * requires AUTH_SYS; raw procedures; asynchronous completion.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rpcrdma_svc.h>

#include "test_check.h"

#define PROG_TEST 0x20000001u
#define PROG_SYS  0x20000002u

/* ------------------------------------------------------------ the test program */

struct add_args {
	uint32_t a, b;
};
struct u32_res {
	uint32_t v;
};
struct who_res {
	uint32_t flavor, uid, gid, ngids;
};

/* add_args: unsigned int a; unsigned int b; */
static int dec_add(struct rpcrdma_xdr_dec *dec, void *p)
{
	struct add_args *a = p;

	if (rpcrdma_xdr_get_u32(dec, &a->a) || rpcrdma_xdr_get_u32(dec, &a->b))
		return -1;
	return 0;
}

/* u32_res: unsigned int v; */
static int enc_u32(struct rpcrdma_xdr_enc *enc, const void *p)
{
	return rpcrdma_xdr_put_u32(enc, ((const struct u32_res *)p)->v);
}

/* who_res: unsigned int flavor; unsigned int uid; unsigned int gid; unsigned int ngids; */
static int enc_who(struct rpcrdma_xdr_enc *enc, const void *p)
{
	const struct who_res *w = p;

	if (rpcrdma_xdr_put_u32(enc, w->flavor) || rpcrdma_xdr_put_u32(enc, w->uid) ||
	    rpcrdma_xdr_put_u32(enc, w->gid) || rpcrdma_xdr_put_u32(enc, w->ngids))
		return -ENOSPC;
	return 0;
}

static int enc_fail(struct rpcrdma_xdr_enc *enc, const void *p)
{
	(void)rpcrdma_xdr_put_u32(enc, 0xdead); /* partial results must be rewound */
	return -ENOSPC;
}

static int h_add(struct rpcrdma_svc_req *req, void *args, void *res)
{
	const struct add_args *a = args;

	((struct u32_res *)res)->v = a->a + a->b;
	return RPCRDMA_SVC_OK;
}

static int h_fail(struct rpcrdma_svc_req *req, void *args, void *res)
{
	return -EIO;
}

static int prog_ctx_seen;

static int h_who(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct who_res *w = res;
	const struct rpcrdma_rpc_call *c = &req->call->call;

	prog_ctx_seen = req->prog_ctx == &prog_ctx_seen;
	w->flavor = c->cred.flavor;
	w->uid = c->cred.flavor == RPCRDMA_RPC_AUTH_SYS ? c->sys.uid : 0xffffffffu;
	w->gid = c->cred.flavor == RPCRDMA_RPC_AUTH_SYS ? c->sys.gid : 0xffffffffu;
	w->ngids = c->cred.flavor == RPCRDMA_RPC_AUTH_SYS ? c->sys.ngids : 0;
	return RPCRDMA_SVC_OK;
}

static struct rpcrdma_svc_req *pending_req;

static int h_async(struct rpcrdma_svc_req *req, void *args, void *res)
{
	pending_req = req;
	return RPCRDMA_SVC_PENDING;
}

/* raw echo: opaque data<64> in, the same bytes back with their length doubled as a u32 */
static int h_echo(struct rpcrdma_svc_req *req, void *args, void *res)
{
	const void *data;
	uint32_t len;

	if (rpcrdma_xdr_get_opaque(req->args, 64, &data, &len))
		return RPCRDMA_SVC_GARBAGE;
	if (rpcrdma_xdr_put_u32(req->reply, len * 2) ||
	    rpcrdma_xdr_put_opaque(req->reply, data, len))
		return -ENOSPC;
	return RPCRDMA_SVC_OK;
}

enum {
	P_NULL,
	P_ADD,
	P_FAIL,
	P_WHO,
	P_ASYNC,
	P_ECHO,
	P_NONE,
	P_ENCFAIL,
	P_COUNT
};

static const struct rpcrdma_svc_proc test_procs[P_COUNT] = {
	[P_ADD] = { .name = "ADD",
		    .decode = dec_add,
		    .handler = h_add,
		    .encode = enc_u32,
		    .args_size = sizeof(struct add_args),
		    .res_size = sizeof(struct u32_res) },
	[P_FAIL] = { .name = "FAIL", .handler = h_fail },
	[P_WHO] = { .name = "WHO",
		    .handler = h_who,
		    .encode = enc_who,
		    .res_size = sizeof(struct who_res) },
	[P_ASYNC] = { .name = "ASYNC",
		      .decode = dec_add,
		      .handler = h_async,
		      .encode = enc_u32,
		      .args_size = sizeof(struct add_args),
		      .res_size = sizeof(struct u32_res) },
	[P_ECHO] = { .name = "ECHO", .handler = h_echo, .raw = true },
	[P_ENCFAIL] = { .name = "ENCFAIL",
			.handler = h_add,
			.encode = enc_fail,
			.decode = dec_add,
			.args_size = sizeof(struct add_args) },
};

static const struct rpcrdma_svc_version test_vers[] = {
	{ .vers = 4, .nprocs = P_COUNT, .procs = test_procs },
	{ .vers = 2, .nprocs = P_COUNT, .procs = test_procs },
};

static const struct rpcrdma_svc_proc sys_procs[] = {
	[1] = { .name = "WHO",
		.handler = h_who,
		.encode = enc_who,
		.res_size = sizeof(struct who_res) },
};

static const struct rpcrdma_svc_version sys_vers[] = {
	{ .vers = 1, .nprocs = 2, .procs = sys_procs },
};

/* ------------------------------------------------------------ harness */

enum cred_kind {
	CRED_NONE,
	CRED_SYS,
	CRED_GSS,
	CRED_BADSYS
};

struct call_spec {
	uint32_t xid, rpcvers, prog, vers, proc;
	enum cred_kind cred;
	uint32_t nargs;
	uint32_t args[4];
};

struct outcome {
	int ret; /* of dispatch */
	int dec; /* rpcrdma_rpc_decode of the reply */
	struct rpcrdma_rpc_msg msg;
	uint8_t buf[512];
	uint32_t len;	    /* reply bytes */
	const uint8_t *res; /* results after the header */
	uint32_t res_len;
};

static uint8_t call_buf[1024];
static struct rpcrdma_rpc_msg call_msg;
static struct rpcrdma_xdr_dec call_dec;
static struct rpcrdma_xdr_enc reply_enc;
static struct rpcrdma_svc_req req;
static struct rpcrdma_svc_registry *reg_g;

static int done_calls, done_ret;

static void on_done(struct rpcrdma_svc_req *r, int ret)
{
	done_calls++;
	done_ret = ret;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* Build a call in call_buf; returns its length. */
static uint32_t build_call(const struct call_spec *cs)
{
	struct rpcrdma_rpc_authsys sys = { .stamp = 7, .uid = 1000, .gid = 100, .ngids = 2 };
	static uint8_t cred[RPCRDMA_RPC_AUTH_MAX];
	struct rpcrdma_rpc_msg m;
	int n, i;

	memset(&m, 0, sizeof(m));
	m.xid = cs->xid;
	m.type = RPCRDMA_RPC_CALL;
	m.call.rpcvers = cs->rpcvers ? cs->rpcvers : 2;
	m.call.prog = cs->prog;
	m.call.vers = cs->vers;
	m.call.proc = cs->proc;
	m.call.cred.flavor = RPCRDMA_RPC_AUTH_NONE;
	if (cs->cred == CRED_SYS || cs->cred == CRED_BADSYS) {
		sys.machinename = "client";
		sys.machinename_len = 6;
		sys.gids[0] = 10;
		sys.gids[1] = 20;
		n = rpcrdma_rpc_authsys_encode(&sys, cred, sizeof(cred));
		if (n < 0)
			abort();
		if (cs->cred == CRED_BADSYS)
			put_be32(cred + n - 12, 17); /* ngids 17 > 16: the body no longer adds up */
		m.call.cred.flavor = RPCRDMA_RPC_AUTH_SYS;
		m.call.cred.len = (uint32_t)n;
		m.call.cred.body = cred;
	} else if (cs->cred == CRED_GSS) {
		memset(cred, 0x5a, 16);
		m.call.cred.flavor = RPCRDMA_RPC_RPCSEC_GSS;
		m.call.cred.len = 16;
		m.call.cred.body = cred;
	}
	m.call.verf.flavor = RPCRDMA_RPC_AUTH_NONE;
	n = rpcrdma_rpc_encode(&m, call_buf, sizeof(call_buf));
	if (n < 0)
		abort();
	if (cs->rpcvers && cs->rpcvers != 2)
		put_be32(call_buf + 8, cs->rpcvers);
	for (i = 0; i < (int)cs->nargs; i++)
		put_be32(call_buf + n + 4 * i, cs->args[i]);
	return (uint32_t)n + 4 * cs->nargs;
}

/* Dispatch the call in call_buf[0..len) into a reply buffer of cap bytes. */
static void run_len(uint32_t len, uint32_t cap, struct outcome *o)
{
	struct rpcrdma_xdr_region mem;
	int hdr;

	memset(o, 0, sizeof(*o));
	memset(&call_msg, 0, sizeof(call_msg));
	hdr = rpcrdma_rpc_decode(&call_msg, call_buf, len);
	rpcrdma_xdr_dec_init(&call_dec, call_buf + (hdr > 0 ? hdr : 0),
			     len - (hdr > 0 ? (uint32_t)hdr : 0));
	mem = rpcrdma_xdr_region_va(o->buf, cap, 1, 2);
	rpcrdma_xdr_enc_init(&reply_enc, &mem);
	memset(&req, 0, sizeof(req));
	req.slot = 1;
	req.done = on_done;
	o->ret = rpcrdma_svc_dispatch(reg_g, &req, &call_msg, hdr, &call_dec, &reply_enc);
	o->len = reply_enc.len;
	o->dec = o->len ? rpcrdma_rpc_decode(&o->msg, o->buf, o->len) : -1;
	if (o->dec > 0) {
		o->res = o->buf + o->dec;
		o->res_len = o->len - (uint32_t)o->dec;
	}
}

static void run(const struct call_spec *cs, struct outcome *o)
{
	run_len(build_call(cs), sizeof(o->buf), o);
}

/* Check an accepted reply with accept_stat stat and the xid. */
static void check_accepted(const struct outcome *o, uint32_t xid, uint32_t stat, const char *what)
{
	CHECK(o->ret == RPCRDMA_SVC_OK, "%s: dispatch %d", what, o->ret);
	CHECK(o->dec > 0, "%s: reply decode %d", what, o->dec);
	CHECK(o->msg.xid == xid && o->msg.type == RPCRDMA_RPC_REPLY, "%s: xid %#x type %u", what,
	      o->msg.xid, o->msg.type);
	CHECK(o->msg.reply.stat == RPCRDMA_RPC_MSG_ACCEPTED, "%s: reply_stat %u", what,
	      o->msg.reply.stat);
	CHECK(o->msg.reply.verf.flavor == RPCRDMA_RPC_AUTH_NONE && o->msg.reply.verf.len == 0,
	      "%s: verifier", what);
	CHECK(o->msg.reply.accept_stat == stat, "%s: accept_stat %u, want %u", what,
	      o->msg.reply.accept_stat, stat);
}

static void check_denied(const struct outcome *o, uint32_t xid, uint32_t reject, uint32_t auth,
			 const char *what)
{
	CHECK(o->ret == RPCRDMA_SVC_OK, "%s: dispatch %d", what, o->ret);
	CHECK(o->dec > 0, "%s: reply decode %d", what, o->dec);
	CHECK(o->msg.xid == xid && o->msg.type == RPCRDMA_RPC_REPLY, "%s: xid %#x", what,
	      o->msg.xid);
	CHECK(o->msg.reply.stat == RPCRDMA_RPC_MSG_DENIED, "%s: reply_stat %u", what,
	      o->msg.reply.stat);
	CHECK(o->msg.reply.reject_stat == reject, "%s: reject_stat %u", what,
	      o->msg.reply.reject_stat);
	if (reject == RPCRDMA_RPC_AUTH_ERROR)
		CHECK(o->msg.reply.auth_stat == auth, "%s: auth_stat %u, want %u", what,
		      o->msg.reply.auth_stat, auth);
	else
		CHECK(o->msg.reply.low == 2 && o->msg.reply.high == 2, "%s: range %u..%u", what,
		      o->msg.reply.low, o->msg.reply.high);
	CHECK(o->res_len == 0, "%s: %u bytes after the header", what, o->res_len);
}

static struct rpcrdma_svc_proc_stats pstats(uint32_t prog, uint32_t vers, uint32_t proc)
{
	struct rpcrdma_svc_proc_stats st;
	int ret = rpcrdma_svc_proc_stats(reg_g, prog, vers, proc, &st);

	CHECK(ret == 0, "proc_stats %#x v%u p%u: %d", prog, vers, proc, ret);
	return st;
}

static struct rpcrdma_svc_prog_stats gstats(uint32_t prog)
{
	struct rpcrdma_svc_prog_stats st;

	CHECK(rpcrdma_svc_prog_stats(reg_g, prog, &st) == 0, "prog_stats %#x", prog);
	return st;
}

static struct rpcrdma_svc_stats rstats(void)
{
	struct rpcrdma_svc_stats st;

	rpcrdma_svc_stats(reg_g, &st);
	return st;
}

static void test_success(void)
{
	struct call_spec cs = { .xid = 0x1001,
				.prog = PROG_TEST,
				.vers = 4,
				.proc = P_ADD,
				.nargs = 2,
				.args = { 40, 2 } };
	struct outcome o;

	run(&cs, &o);
	check_accepted(&o, 0x1001, RPCRDMA_RPC_SUCCESS, "ADD");
	CHECK(o.res_len == 4 && be32(o.res) == 42, "ADD result len %u", o.res_len);
	CHECK(o.dec == 24, "accepted header is 24 bytes: %d", o.dec);

	/* the other version of the same table */
	cs.vers = 2;
	cs.args[1] = 5;
	run(&cs, &o);
	check_accepted(&o, 0x1001, RPCRDMA_RPC_SUCCESS, "ADD v2");
	CHECK(o.res_len == 4 && be32(o.res) == 45, "ADD v2 result");
	CHECK(pstats(PROG_TEST, 4, P_ADD).calls == 1 && pstats(PROG_TEST, 4, P_ADD).success == 1,
	      "ADD v4 counters");
	CHECK(pstats(PROG_TEST, 2, P_ADD).success == 1, "ADD v2 counters");
}

static void test_null(void)
{
	struct call_spec cs = { .xid = 0x1002, .prog = PROG_TEST, .vers = 4, .proc = 0 };
	struct outcome o;

	run(&cs, &o);
	check_accepted(&o, 0x1002, RPCRDMA_RPC_SUCCESS, "NULL");
	CHECK(o.res_len == 0, "NULL has no results: %u", o.res_len);
	CHECK(pstats(PROG_TEST, 4, 0).calls == 1 && pstats(PROG_TEST, 4, 0).success == 1,
	      "NULL counters");
}

static void test_prog_unavail(void)
{
	struct call_spec cs = { .xid = 0x1003, .prog = 99, .vers = 1, .proc = 1 };
	struct rpcrdma_svc_stats before = rstats();
	struct outcome o;

	run(&cs, &o);
	check_accepted(&o, 0x1003, RPCRDMA_RPC_PROG_UNAVAIL, "PROG_UNAVAIL");
	CHECK(o.res_len == 0 && o.len == 24, "PROG_UNAVAIL length %u", o.len);
	CHECK(rstats().prog_unavail == before.prog_unavail + 1, "prog_unavail counter");
	CHECK(rstats().calls == before.calls + 1, "calls counter");
}

static void test_prog_mismatch(void)
{
	uint32_t vers[] = { 1, 3, 5, 0xffffffffu };
	struct outcome o;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		struct call_spec cs = {
			.xid = 0x1004 + i, .prog = PROG_TEST, .vers = vers[i], .proc = 0
		};

		run(&cs, &o);
		check_accepted(&o, 0x1004 + i, RPCRDMA_RPC_PROG_MISMATCH, "PROG_MISMATCH");
		CHECK(o.msg.reply.low == 2 && o.msg.reply.high == 4,
		      "PROG_MISMATCH range %u..%u, want 2..4", o.msg.reply.low, o.msg.reply.high);
		CHECK(o.len == 32, "PROG_MISMATCH length %u", o.len);
	}
	CHECK(gstats(PROG_TEST).prog_mismatch == 4, "prog_mismatch counter %lu",
	      (unsigned long)gstats(PROG_TEST).prog_mismatch);
}

static void test_proc_unavail(void)
{
	uint32_t procs[] = { P_NONE, P_COUNT, 1000 };
	struct outcome o;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct call_spec cs = {
			.xid = 0x1010 + i, .prog = PROG_TEST, .vers = 2, .proc = procs[i]
		};

		run(&cs, &o);
		check_accepted(&o, 0x1010 + i, RPCRDMA_RPC_PROC_UNAVAIL, "PROC_UNAVAIL");
		CHECK(o.res_len == 0, "PROC_UNAVAIL results %u", o.res_len);
	}
	CHECK(gstats(PROG_TEST).proc_unavail == 3, "proc_unavail counter");
}

static void test_garbage_args(void)
{
	/* one argument word where ADD needs two */
	struct call_spec cs = { .xid = 0x1020,
				.prog = PROG_TEST,
				.vers = 4,
				.proc = P_ADD,
				.nargs = 1,
				.args = { 1 } };
	struct outcome o;

	run(&cs, &o);
	check_accepted(&o, 0x1020, RPCRDMA_RPC_GARBAGE_ARGS, "GARBAGE_ARGS");
	CHECK(o.res_len == 0 && o.len == 24, "GARBAGE_ARGS length %u", o.len);
	CHECK(pstats(PROG_TEST, 4, P_ADD).garbage_args == 1, "garbage_args counter");

	/* a raw procedure reporting GARBAGE: opaque length 1000 > 64 */
	cs.proc = P_ECHO;
	cs.args[0] = 1000;
	run(&cs, &o);
	check_accepted(&o, 0x1020, RPCRDMA_RPC_GARBAGE_ARGS, "raw GARBAGE_ARGS");
	CHECK(pstats(PROG_TEST, 4, P_ECHO).garbage_args == 1, "raw garbage_args counter");
}

static void test_system_err(void)
{
	struct call_spec cs = { .xid = 0x1030, .prog = PROG_TEST, .vers = 4, .proc = P_FAIL };
	struct outcome o;

	run(&cs, &o);
	check_accepted(&o, 0x1030, RPCRDMA_RPC_SYSTEM_ERR, "SYSTEM_ERR handler");
	CHECK(o.res_len == 0, "SYSTEM_ERR results %u", o.res_len);

	/* the encoder fails after writing a word: rewound, SYSTEM_ERR, nothing after */
	cs.proc = P_ENCFAIL;
	cs.nargs = 2;
	run(&cs, &o);
	check_accepted(&o, 0x1030, RPCRDMA_RPC_SYSTEM_ERR, "SYSTEM_ERR encoder");
	CHECK(o.res_len == 0 && o.len == 24, "SYSTEM_ERR encoder length %u", o.len);
	CHECK(pstats(PROG_TEST, 4, P_FAIL).system_err == 1, "system_err counter (handler)");
	CHECK(pstats(PROG_TEST, 4, P_ENCFAIL).system_err == 1, "system_err counter (encoder)");
}

static void test_rpc_mismatch(void)
{
	struct call_spec cs = {
		.xid = 0x1040, .rpcvers = 3, .prog = PROG_TEST, .vers = 4, .proc = 0
	};
	uint64_t before = rstats().rpc_mismatch;
	struct outcome o;

	run(&cs, &o);
	CHECK(call_msg.call.rpcvers == 3, "the call decoded as rpcvers 3");
	check_denied(&o, 0x1040, RPCRDMA_RPC_RPC_MISMATCH, 0, "RPC_MISMATCH");
	CHECK(o.len == 24, "RPC_MISMATCH length %u", o.len);
	CHECK(rstats().rpc_mismatch == before + 1, "rpc_mismatch counter");
}

static void test_auth(void)
{
	struct call_spec cs = { .xid = 0x1050, .prog = PROG_TEST, .vers = 4, .proc = P_WHO };
	struct rpcrdma_svc_stats before = rstats();
	struct outcome o;

	/* AUTH_NONE reaches the handler */
	prog_ctx_seen = 0;
	run(&cs, &o);
	check_accepted(&o, 0x1050, RPCRDMA_RPC_SUCCESS, "WHO none");
	CHECK(o.res_len == 16 && be32(o.res) == RPCRDMA_RPC_AUTH_NONE &&
		      be32(o.res + 4) == 0xffffffffu,
	      "WHO none results");
	CHECK(prog_ctx_seen, "the handler got the program's ctx");

	/* AUTH_SYS reaches the handler decoded */
	cs.cred = CRED_SYS;
	run(&cs, &o);
	check_accepted(&o, 0x1050, RPCRDMA_RPC_SUCCESS, "WHO sys");
	CHECK(o.res_len == 16 && be32(o.res) == RPCRDMA_RPC_AUTH_SYS && be32(o.res + 4) == 1000 &&
		      be32(o.res + 8) == 100 && be32(o.res + 12) == 2,
	      "WHO sys results");

	/* an unsupported flavor: AUTH_BADCRED */
	cs.cred = CRED_GSS;
	run(&cs, &o);
	check_denied(&o, 0x1050, RPCRDMA_RPC_AUTH_ERROR, RPCRDMA_RPC_AUTH_BADCRED, "GSS");
	CHECK(o.len == 20, "AUTH_ERROR length %u", o.len);

	/* a malformed AUTH_SYS body: AUTH_BADCRED */
	cs.cred = CRED_BADSYS;
	run(&cs, &o);
	CHECK(o.ret == RPCRDMA_SVC_OK, "bad AUTH_SYS dispatch %d", o.ret);
	check_denied(&o, 0x1050, RPCRDMA_RPC_AUTH_ERROR, RPCRDMA_RPC_AUTH_BADCRED, "bad sys");
	CHECK(rstats().auth_badcred == before.auth_badcred + 2, "auth_badcred counter");

	/* a program requiring AUTH_SYS: AUTH_NONE gets AUTH_TOOWEAK ... */
	cs.prog = PROG_SYS;
	cs.vers = 1;
	cs.proc = 1;
	cs.cred = CRED_NONE;
	run(&cs, &o);
	check_denied(&o, 0x1050, RPCRDMA_RPC_AUTH_ERROR, RPCRDMA_RPC_AUTH_TOOWEAK, "TOOWEAK");
	CHECK(gstats(PROG_SYS).auth_tooweak == 1, "auth_tooweak counter");
	/* ... except for procedure 0 */
	cs.proc = 0;
	run(&cs, &o);
	check_accepted(&o, 0x1050, RPCRDMA_RPC_SUCCESS,
		       "NULL with AUTH_NONE to an AUTH_SYS program");
	/* and AUTH_SYS is served */
	cs.proc = 1;
	cs.cred = CRED_SYS;
	run(&cs, &o);
	check_accepted(&o, 0x1050, RPCRDMA_RPC_SUCCESS, "WHO sys on the AUTH_SYS program");
	CHECK(o.res_len == 16 && be32(o.res + 4) == 1000, "uid 1000");
	CHECK(gstats(PROG_SYS).auth_tooweak == 1 && pstats(PROG_SYS, 1, 1).success == 1,
	      "AUTH_SYS program counters");
}

static void test_raw(void)
{
	struct call_spec cs = { .xid = 0x1060,
				.prog = PROG_TEST,
				.vers = 2,
				.proc = P_ECHO,
				.nargs = 2,
				.args = { 3, 0x61626300 } };
	struct outcome o;

	run(&cs, &o);
	check_accepted(&o, 0x1060, RPCRDMA_RPC_SUCCESS, "ECHO");
	CHECK(o.res_len == 12 && be32(o.res) == 6 && be32(o.res + 4) == 3 &&
		      memcmp(o.res + 8, "abc", 3) == 0 && o.res[11] == 0,
	      "ECHO results (%u bytes)", o.res_len);
}

static void test_async(void)
{
	struct call_spec cs = { .xid = 0x1070,
				.prog = PROG_TEST,
				.vers = 4,
				.proc = P_ASYNC,
				.nargs = 2,
				.args = { 20, 22 } };
	const struct add_args *a;
	struct outcome o;

	pending_req = NULL;
	done_calls = 0;
	run(&cs, &o);
	CHECK(o.ret == RPCRDMA_SVC_PENDING, "ASYNC dispatch %d", o.ret);
	CHECK(pending_req == &req && done_calls == 0, "pending, not done yet");
	CHECK(pstats(PROG_TEST, 4, P_ASYNC).async == 1 &&
		      pstats(PROG_TEST, 4, P_ASYNC).success == 0,
	      "async counted, not yet successful");
	/* later: the service fills the results from the decoded arguments and completes */
	a = (const struct add_args *)pending_req->args_buf;
	((struct u32_res *)rpcrdma_svc_req_res(pending_req))->v = a->a + a->b;
	rpcrdma_svc_complete(pending_req, RPCRDMA_SVC_OK);
	CHECK(done_calls == 1 && done_ret == 0, "done called once with 0: %d %d", done_calls,
	      done_ret);
	o.len = reply_enc.len;
	o.dec = rpcrdma_rpc_decode(&o.msg, o.buf, o.len);
	o.res = o.buf + (o.dec > 0 ? o.dec : 0);
	o.res_len = o.len - (o.dec > 0 ? (uint32_t)o.dec : 0);
	o.ret = 0;
	check_accepted(&o, 0x1070, RPCRDMA_RPC_SUCCESS, "ASYNC completed");
	CHECK(o.res_len == 4 && be32(o.res) == 42, "ASYNC result");

	/* completing with an error: SYSTEM_ERR, no results */
	run(&cs, &o);
	CHECK(o.ret == RPCRDMA_SVC_PENDING, "ASYNC dispatch 2: %d", o.ret);
	rpcrdma_svc_complete(pending_req, -ETIMEDOUT);
	o.len = reply_enc.len;
	o.dec = rpcrdma_rpc_decode(&o.msg, o.buf, o.len);
	o.res_len = o.len - (o.dec > 0 ? (uint32_t)o.dec : 0);
	o.ret = 0;
	check_accepted(&o, 0x1070, RPCRDMA_RPC_SYSTEM_ERR, "ASYNC failed");
	CHECK(o.res_len == 0 && done_calls == 2, "ASYNC failed: no results, done called");
	CHECK(pstats(PROG_TEST, 4, P_ASYNC).success == 1 &&
		      pstats(PROG_TEST, 4, P_ASYNC).system_err == 1 &&
		      pstats(PROG_TEST, 4, P_ASYNC).async == 2,
	      "async counters");
}

static void test_unanswerable(void)
{
	struct call_spec cs = { .xid = 0x1080, .prog = PROG_TEST, .vers = 4, .proc = 0 };
	uint64_t dropped = rstats().dropped, nospc = rstats().reply_nospc;
	struct outcome o;
	uint32_t len;

	/* truncated header */
	len = build_call(&cs);
	run_len(12, sizeof(o.buf), &o);
	CHECK(o.ret == -EPROTO && o.len == 0, "truncated: %d, %u bytes", o.ret, o.len);
	/* a REPLY given as a call */
	put_be32(call_buf + 4, RPCRDMA_RPC_REPLY);
	put_be32(call_buf + 8, 0);
	run_len(len, sizeof(o.buf), &o);
	CHECK(o.ret == -EPROTO && o.len == 0, "reply as call: %d", o.ret);
	CHECK(rstats().dropped == dropped + 2, "dropped counter");

	/* reply buffer too small for any reply */
	build_call(&cs);
	run_len(len, 16, &o);
	CHECK(o.ret == -ENOSPC && o.len == 0, "nospc: %d, %u bytes", o.ret, o.len);
	CHECK(rstats().reply_nospc == nospc + 1, "reply_nospc counter");
	/*
	 * the same with a procedure: no handler ran, so req->proc stays NULL
	 * (a transport's reply_done hook must not see stale results)
	 */
	cs.proc = P_ADD;
	cs.nargs = 2;
	len = build_call(&cs);
	run_len(len, 16, &o);
	CHECK(o.ret == -ENOSPC && req.proc == NULL, "nospc with a procedure: %d, proc %p", o.ret,
	      (const void *)req.proc);

	/* too small for the results: rewound to SYSTEM_ERR */
	cs.proc = P_ADD;
	cs.nargs = 2;
	len = build_call(&cs);
	run_len(len, 24, &o);
	check_accepted(&o, 0x1080, RPCRDMA_RPC_SYSTEM_ERR, "results do not fit");
}

static void test_register(void)
{
	struct rpcrdma_svc_proc big[1] = {
		{ .name = "BIG", .handler = h_fail, .args_size = RPCRDMA_SVC_ARGS_MAX + 1 }
	};
	struct rpcrdma_svc_version v_big = { .vers = 1, .nprocs = 1, .procs = big };
	struct rpcrdma_svc_version v_dup[2] = { { .vers = 1 }, { .vers = 1 } };
	struct rpcrdma_svc_program p = { .name = "x", .prog = 77, .nvers = 1, .vers = &v_big };
	struct rpcrdma_svc_program dup = {
		.name = "TEST", .prog = PROG_TEST, .nvers = 1, .vers = sys_vers
	};
	uint32_t low, high;

	CHECK(rpcrdma_svc_register(reg_g, &p) == -E2BIG, "args_size too big");
	p.vers = v_dup;
	p.nvers = 2;
	CHECK(rpcrdma_svc_register(reg_g, &p) == -EINVAL, "duplicate version");
	p.nvers = 0;
	CHECK(rpcrdma_svc_register(reg_g, &p) == -EINVAL, "no versions");
	CHECK(rpcrdma_svc_register(reg_g, &dup) == -EEXIST, "program registered twice");
	CHECK(rpcrdma_svc_prog_versions(reg_g, PROG_TEST, &low, &high) == 0 && low == 2 &&
		      high == 4,
	      "versions 2..4");
	CHECK(rpcrdma_svc_prog_stats(reg_g, 77, &(struct rpcrdma_svc_prog_stats){ 0 }) == -ENOENT,
	      "no stats for an unregistered program");
	CHECK(rpcrdma_svc_program_at(reg_g, 0)->prog == PROG_TEST &&
		      rpcrdma_svc_program_at(reg_g, 2) == NULL,
	      "program_at");
}

/*
 * Service times: a registry with a clock that advances 600 ticks at each
 * read, 2 ticks per nanosecond. A call answered at once reads it twice:
 * 300 ns. A pending call also waits the ticks added before its completion.
 * Every answer counts (GARBAGE_ARGS too); the untimed registry has none.
 */
static uint64_t fake_ticks, fake_reads;

static uint64_t fake_clock(void)
{
	fake_reads++;
	fake_ticks += 600;
	return fake_ticks;
}

static void test_times(const struct rpcrdma_svc_program *prog)
{
	struct call_spec add = { .xid = 0x10a0,
				 .prog = PROG_TEST,
				 .vers = 4,
				 .proc = P_ADD,
				 .nargs = 2,
				 .args = { 1, 2 } };
	struct call_spec async = add;
	struct call_spec garbage = add;
	struct rpcrdma_svc_registry *untimed = reg_g, *timed;
	struct rpcrdma_svc_proc_stats st;
	struct rpcrdma_svc_params p;
	struct outcome o;
	int i;

	CHECK(pstats(PROG_TEST, 4, P_ADD).time_ns == 0 && pstats(PROG_TEST, 4, P_ADD).max_ns == 0,
	      "no clock: no service times");
	rpcrdma_svc_params_init(&p);
	p.nb_slots = 4;
	p.clock = fake_clock;
	CHECK(rpcrdma_svc_registry_create(&p, &timed) == -EINVAL, "a clock without clock_hz");
	p.clock_hz = 2000000000u;
	if (rpcrdma_svc_registry_create(&p, &timed) != 0) {
		CHECK(0, "timed registry");
		return;
	}
	CHECK(rpcrdma_svc_register(timed, prog) == 0, "register TEST with a clock");
	reg_g = timed;

	for (i = 0; i < 3; i++) {
		run(&add, &o);
		check_accepted(&o, 0x10a0, RPCRDMA_RPC_SUCCESS, "timed ADD");
	}
	st = pstats(PROG_TEST, 4, P_ADD);
	CHECK(st.success == 3 && st.time_ns == 900 && st.max_ns == 300, "3 ADDs: %lu ns, max %lu",
	      (unsigned long)st.time_ns, (unsigned long)st.max_ns);
	CHECK(fake_reads == 6, "the clock read twice per call: %lu", (unsigned long)fake_reads);

	garbage.nargs = 1;
	run(&garbage, &o);
	check_accepted(&o, 0x10a0, RPCRDMA_RPC_GARBAGE_ARGS, "timed ADD, garbage");
	st = pstats(PROG_TEST, 4, P_ADD);
	CHECK(st.garbage_args == 1 && st.time_ns == 1200, "GARBAGE_ARGS timed: %lu ns",
	      (unsigned long)st.time_ns);

	/* a pending call: 10,000 ticks pass before its completion */
	async.proc = P_ASYNC;
	async.args[1] = 40;
	pending_req = NULL;
	run(&async, &o);
	CHECK(o.ret == RPCRDMA_SVC_PENDING && pending_req != NULL, "timed ASYNC pending");
	if (pending_req != NULL) {
		fake_ticks += 10000;
		((struct u32_res *)rpcrdma_svc_req_res(pending_req))->v = 41;
		rpcrdma_svc_complete(pending_req, RPCRDMA_SVC_OK);
	}
	st = pstats(PROG_TEST, 4, P_ASYNC);
	CHECK(st.success == 1 && st.time_ns == 5300 && st.max_ns == 5300,
	      "ASYNC waited: %lu ns, max %lu", (unsigned long)st.time_ns, (unsigned long)st.max_ns);
	CHECK(pstats(PROG_TEST, 4, P_ADD).max_ns == 300, "ADD's max is its own");

	/* calls the dispatcher answers itself reach no procedure: not timed */
	fake_reads = 0;
	add.vers = 9;
	run(&add, &o);
	check_accepted(&o, 0x10a0, RPCRDMA_RPC_PROG_MISMATCH, "timed, no such version");
	CHECK(fake_reads == 0, "PROG_MISMATCH reads no clock: %lu", (unsigned long)fake_reads);

	reg_g = untimed;
	rpcrdma_svc_registry_free(timed);
}

int main(void)
{
	struct rpcrdma_svc_program test_prog = { .name = "TEST",
						 .prog = PROG_TEST,
						 .ctx = &prog_ctx_seen,
						 .nvers = 2,
						 .vers = test_vers };
	struct rpcrdma_svc_program sys_prog = { .name = "SYS",
						.prog = PROG_SYS,
						.flags = RPCRDMA_SVC_F_AUTH_SYS,
						.nvers = 1,
						.vers = sys_vers };
	struct rpcrdma_svc_params params;
	struct rpcrdma_svc_stats st;
	struct outcome o;
	int ret;

	rpcrdma_svc_params_init(&params);
	params.nb_slots = 4;
	ret = rpcrdma_svc_registry_create(&params, &reg_g);
	CHECK(ret == 0, "create %d", ret);
	if (ret)
		return 1;
	CHECK(rpcrdma_svc_register(reg_g, &test_prog) == 0, "register TEST");
	CHECK(rpcrdma_svc_register(reg_g, &sys_prog) == 0, "register SYS");

	test_success();
	test_null();
	test_prog_unavail();
	test_prog_mismatch();
	test_proc_unavail();
	test_garbage_args();
	test_system_err();
	test_rpc_mismatch();
	test_auth();
	test_raw();
	test_async();
	test_unanswerable();
	test_register();
	test_times(&test_prog);

	/* a slot out of range is refused */
	memset(&req, 0, sizeof(req));
	req.slot = 4;
	CHECK(rpcrdma_svc_dispatch(reg_g, &req, &call_msg, 40, &call_dec, &reply_enc) == -EINVAL,
	      "slot out of range");
	(void)o;

	/* every call went to slot 1: slot 0 is untouched, the sum is slot 1 */
	rpcrdma_svc_stats(reg_g, &st);
	CHECK(st.calls > 20, "calls %lu", (unsigned long)st.calls);

	rpcrdma_svc_registry_free(reg_g);
	return test_summary("svc");
}

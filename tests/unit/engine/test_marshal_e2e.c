/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requester and responder marshaling end to end over the simulated fabric:
 * the requester marshals a call, the fabric gathers its Send into the
 * responder's receive buffer, the responder decodes the header with the
 * codec, pulls the read chunks with RDMA Reads, decodes the call with the
 * data left where the Reads put it, marshals a reply whose RDMA Writes and
 * Send the fabric performs, and the requester decodes the reply with its
 * DDP-eligible results in its own buffers. Every form: Short, Chunked with
 * read chunks, 1 and 3 write chunks, Long Call, Long Reply, both, with and
 * without Send With Invalidate, version 1 and 2; payloads byte for byte.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rpcrdma/rpcrdma_marshal.h>

#include "engine_test.h"

#define MAXI 4

struct scenario {
	const char *name;
	uint32_t vers;
	uint32_t to_resp; /* the responder's receive buffer: requester's send_inline */
	uint32_t to_req;  /* the requester's receive buffer */
	uint32_t nwords;  /* words before each item, and at the end */
	uint32_t nargs;	  /* DDP-eligible call arguments */
	uint32_t arg_len[MAXI];
	uint32_t nres; /* DDP-eligible reply results */
	uint32_t res_len[MAXI];
	uint32_t res_cap; /* each reply buffer's size */
	uint32_t slack;	  /* more max_len than the reply needs */
	uint32_t rwords;  /* reply words before each result and at the end */
	uint32_t max_seg; /* 0: default */
	bool swi;	  /* the requester allows Send With Invalidate */
	bool one_mr;	  /* the requester's chunks share one registration */
	int call_form;
	int reply_form;
	bool long_reply;
};

static const struct scenario scenarios[] = {
	{ "short",
	  1,
	  1024,
	  1024,
	  4,
	  1,
	  { 100 },
	  0,
	  { 0 },
	  0,
	  0,
	  5,
	  0,
	  false,
	  false,
	  RPCRDMA_MARSHAL_SHORT,
	  RPCRDMA_MARSHAL_SHORT,
	  false },
	{ "chunked read chunks",
	  1,
	  1024,
	  1024,
	  3,
	  3,
	  { 4096, 1, 7000 },
	  0,
	  { 0 },
	  0,
	  0,
	  3,
	  0,
	  false,
	  false,
	  RPCRDMA_MARSHAL_CHUNKED,
	  RPCRDMA_MARSHAL_SHORT,
	  false },
	{ "1 write chunk",
	  1,
	  1024,
	  1024,
	  5,
	  0,
	  { 0 },
	  1,
	  { 8191 },
	  8192,
	  0,
	  4,
	  0,
	  false,
	  false,
	  RPCRDMA_MARSHAL_SHORT,
	  RPCRDMA_MARSHAL_CHUNKED,
	  false },
	{ "3 write chunks, split",
	  1,
	  1024,
	  1024,
	  2,
	  0,
	  { 0 },
	  3,
	  { 3000, 2, 4097 },
	  5000,
	  0,
	  2,
	  1024,
	  false,
	  false,
	  RPCRDMA_MARSHAL_SHORT,
	  RPCRDMA_MARSHAL_CHUNKED,
	  false },
	{ "read and write chunks, SWI",
	  1,
	  1024,
	  1024,
	  3,
	  2,
	  { 2000, 3001 },
	  2,
	  { 1000, 999 },
	  1000,
	  0,
	  2,
	  0,
	  true,
	  true,
	  RPCRDMA_MARSHAL_CHUNKED,
	  RPCRDMA_MARSHAL_CHUNKED,
	  false },
	{ "long call",
	  1,
	  1024,
	  1024,
	  300,
	  0,
	  { 0 },
	  0,
	  { 0 },
	  0,
	  0,
	  2,
	  0,
	  false,
	  false,
	  RPCRDMA_MARSHAL_LONG,
	  RPCRDMA_MARSHAL_SHORT,
	  false },
	{ "long call with items",
	  1,
	  1024,
	  1024,
	  150,
	  2,
	  { 5, 6000 },
	  0,
	  { 0 },
	  0,
	  0,
	  2,
	  0,
	  false,
	  false,
	  RPCRDMA_MARSHAL_LONG,
	  RPCRDMA_MARSHAL_SHORT,
	  false },
	{ "long reply",
	  1,
	  1024,
	  1024,
	  2,
	  0,
	  { 0 },
	  0,
	  { 0 },
	  0,
	  0,
	  400,
	  0,
	  false,
	  false,
	  RPCRDMA_MARSHAL_SHORT,
	  RPCRDMA_MARSHAL_LONG,
	  true },
	{ "long reply offered, reply inline",
	  1,
	  1024,
	  1024,
	  2,
	  0,
	  { 0 },
	  0,
	  { 0 },
	  0,
	  2000,
	  20,
	  0,
	  false,
	  false,
	  RPCRDMA_MARSHAL_SHORT,
	  RPCRDMA_MARSHAL_SHORT,
	  true },
	{ "long call + long reply, SWI",
	  1,
	  1024,
	  1024,
	  300,
	  1,
	  { 3 },
	  1,
	  { 77 },
	  100,
	  0,
	  300,
	  512,
	  true,
	  true,
	  RPCRDMA_MARSHAL_LONG,
	  RPCRDMA_MARSHAL_LONG,
	  true },
	{ "long both, two MRs: no SWI",
	  1,
	  1024,
	  1024,
	  300,
	  1,
	  { 3 },
	  1,
	  { 77 },
	  100,
	  0,
	  300,
	  0,
	  true,
	  false,
	  RPCRDMA_MARSHAL_LONG,
	  RPCRDMA_MARSHAL_LONG,
	  true },
	{ "v2 4096 chunked + write",
	  2,
	  4096,
	  4096,
	  10,
	  2,
	  { 2048, 4093 },
	  1,
	  { 3 },
	  4096,
	  0,
	  10,
	  0,
	  false,
	  false,
	  RPCRDMA_MARSHAL_CHUNKED,
	  RPCRDMA_MARSHAL_CHUNKED,
	  false },
	{ "v2 long both",
	  2,
	  4096,
	  4096,
	  1100,
	  0,
	  { 0 },
	  0,
	  { 0 },
	  0,
	  0,
	  1100,
	  0,
	  false,
	  false,
	  RPCRDMA_MARSHAL_LONG,
	  RPCRDMA_MARSHAL_LONG,
	  true },
};

/* A requester registration that all its chunks share, for SWI. */
static struct rpcrdma_xdr_region sub(const struct rpcrdma_xdr_region *mr, uint32_t off,
				     uint32_t len)
{
	struct rpcrdma_xdr_region r = *mr;

	r.addr = (uint8_t *)mr->addr + off;
	r.iova = mr->iova + off;
	r.len = len;
	return r;
}

static void run(const struct scenario *sc)
{
	struct rpcrdma_marshal_conn rq, rs;
	struct rpcrdma_xdr_region send, hdr, big, args[MAXI], res[MAXI], rbuf[MAXI], long_buf;
	struct rpcrdma_xdr_region rsend, rhdr, dst[RPCRDMA_XDR_MAX_CHUNKS];
	static struct rpcrdma_marshal_call_plan plan;
	static struct rpcrdma_marshal_reply_plan rplan;
	static struct rpcrdma_marshal_call_map map;
	static struct rpcrdma_hdr_storage st_call, st_reply;
	static struct rpcrdma_xdr_dec dec;
	static uint8_t recv_resp[8192], recv_req[8192];
	static struct rpcrdma_marshal_rdma ops[64];
	struct rpcrdma_xdr_enc xdr, rxdr;
	struct rpcrdma_xdr_reply_spec spec;
	struct rpcrdma_marshal_call_args ca;
	struct rpcrdma_marshal_reply_args ra;
	struct rpcrdma_hdr *ch, *rh;
	const char *nm = sc->name;
	uint32_t i, j, k, v, n, off = 0;
	const void *p;
	int ret, len;

	fab_reset();
	rpcrdma_marshal_conn_init(&rq);
	rq.vers = sc->vers;
	rq.send_inline = sc->to_resp;
	rq.recv_inline = sc->to_req;
	if (sc->max_seg)
		rq.max_seg_len = sc->max_seg;
	rq.pad = fab_alloc(4);
	rs = rq;
	rs.send_inline = sc->to_req;
	rs.recv_inline = sc->to_resp;
	rs.pad = fab_alloc(4);
	if (sc->swi)
		rs.flags |= RPCRDMA_MARSHAL_F_REMOTE_INV;

	/* Requester: the call. */
	hdr = fab_alloc(1024);
	big = fab_alloc(65536);
	send = sc->one_mr ? sub(&big, 0, 8192) : fab_alloc(8192);
	off = 8192;
	rpcrdma_xdr_enc_init(&xdr, &send);
	memset(&spec, 0, sizeof(spec));
	for (k = 0; k <= sc->nargs; k++) {
		for (i = 0; i < sc->nwords; i++)
			rpcrdma_xdr_put_u32(&xdr, k * 1000 + i);
		if (k == sc->nargs)
			break;
		args[k] = sc->one_mr ? sub(&big, off, sc->arg_len[k]) : fab_alloc(sc->arg_len[k]);
		off += (sc->arg_len[k] + 7) & ~7u;
		test_fill(args[k].addr, sc->arg_len[k], 10 + k);
		CHECK(rpcrdma_xdr_put_ddp(&xdr, &args[k]) == 0, "%s: put_ddp", nm);
	}
	for (k = 0; k < sc->nres; k++) {
		rbuf[k] = sc->one_mr ? sub(&big, off, sc->res_cap) : fab_alloc(sc->res_cap);
		off += sc->res_cap;
		spec.ddp[k] = rbuf[k];
		spec.max_len += (sc->res_cap + 3) & ~3u;
	}
	spec.nddp = (uint16_t)sc->nres;
	spec.max_len += 8 * (sc->nres + 1) * (sc->rwords + 1) + sc->slack;
	long_buf = sc->one_mr ? sub(&big, off, 16384) : fab_alloc(16384);
	spec.long_buf = long_buf;
	ca.xid = 0x5a5a0000 + (uint32_t)(sc - scenarios);
	ca.credit = 32;
	ca.xdr = &xdr;
	ca.reply = &spec;
	ca.hdr_buf = hdr;
	ret = rpcrdma_marshal_call(&rq, &ca, &plan);
	CHECK(ret == 0, "%s: marshal_call %d", nm, ret);
	if (ret)
		return;
	CHECK((int)plan.form == sc->call_form && plan.long_reply == sc->long_reply,
	      "%s: call form %d (want %d), long reply %d", nm, plan.form, sc->call_form,
	      plan.long_reply);

	/* The Send: the responder's receive buffer is to_resp bytes. */
	len = fab_send(plan.sge, plan.nsge, recv_resp, sc->to_resp);
	CHECK(len == (int)plan.send_len, "%s: Send %d bytes into %u", nm, len, sc->to_resp);
	if (len < 0)
		return;

	/* Responder: header, read chunks, the call. */
	ch = rpcrdma_hdr_storage_init(&st_call);
	ret = rpcrdma_hdr_decode(ch, recv_resp, (uint32_t)len);
	CHECK(ret == (int)plan.hdr_len && test_hdr_same(nm, ch, &plan.hdr), "%s: call header", nm);
	ret = rpcrdma_marshal_call_map(ch, recv_resp + ch->hdr_len, (uint32_t)len - ch->hdr_len, 0,
				       &map);
	CHECK(ret >= 0, "%s: map %d", nm, ret);
	if (ret < 0)
		return;
	for (i = 0; i < map.nchunks; i++) {
		dst[i] = fab_alloc(map.chunks[i].len);
		map.chunks[i].dst = dst[i];
	}
	ret = rpcrdma_marshal_call_reads(&map, ops, 64);
	CHECK(ret >= 0 && fab_rdma(ops, (unsigned int)ret, true) == 0, "%s: Reads", nm);
	CHECK(rpcrdma_marshal_call_dec(&map, &dec) == 0, "%s: call stream", nm);
	for (k = 0; k <= sc->nargs; k++) {
		for (i = 0; i < sc->nwords; i++)
			CHECK(rpcrdma_xdr_get_u32(&dec, &v) == 0 && v == k * 1000 + i,
			      "%s: call word %u.%u = %u", nm, k, i, v);
		if (k == sc->nargs)
			break;
		ret = rpcrdma_xdr_get_ddp(&dec, 1 << 20, &p, &n);
		CHECK(ret == 0 && n == sc->arg_len[k] && memcmp(p, args[k].addr, n) == 0,
		      "%s: argument %u (%d, %u bytes)", nm, k, ret, n);
		if (ret)
			continue;
		/* Zero copy: the data is in a Read's destination or the receive buffer. */
		if (plan.form == RPCRDMA_MARSHAL_SHORT)
			CHECK((const uint8_t *)p > recv_resp &&
				      (const uint8_t *)p < recv_resp + sizeof(recv_resp),
			      "%s: argument %u in the receive buffer", nm, k);
		else
			CHECK(p == dst[map.nomsg ? k + 1 : k].addr,
			      "%s: argument %u in its chunk's buffer", nm, k);
	}
	CHECK(rpcrdma_xdr_dec_left(&dec) == 0, "%s: call fully decoded", nm);

	/* Responder: the reply. */
	rsend = fab_alloc(16384);
	rhdr = fab_alloc(1024);
	rpcrdma_xdr_enc_init(&rxdr, &rsend);
	for (k = 0; k <= sc->nres; k++) {
		for (i = 0; i < sc->rwords; i++)
			rpcrdma_xdr_put_u32(&rxdr, 0xbeef0000 + k * 1000 + i);
		if (k == sc->nres)
			break;
		res[k] = fab_alloc(sc->res_len[k]);
		test_fill(res[k].addr, sc->res_len[k], 50 + k);
		CHECK(rpcrdma_xdr_put_ddp(&rxdr, &res[k]) == 0, "%s: reply put_ddp", nm);
	}
	ra.call = ch;
	ra.credit = 24;
	ra.xdr = &rxdr;
	ra.hdr_buf = rhdr;
	ret = rpcrdma_marshal_reply(&rs, &ra, &rplan);
	CHECK(ret == 0 && (int)rplan.form == sc->reply_form, "%s: reply %d, form %d (want %d)", nm,
	      ret, rplan.form, sc->reply_form);
	if (ret)
		return;
	CHECK(rplan.send_inv == (sc->swi && sc->one_mr), "%s: SWI %d", nm, rplan.send_inv);
	CHECK(fab_rdma(rplan.rdma, rplan.nrdma, false) == 0, "%s: Writes", nm);
	len = fab_send(rplan.sge, rplan.nsge, recv_req, sc->to_req);
	CHECK(len == (int)rplan.send_len, "%s: reply Send %d into %u", nm, len, sc->to_req);
	if (len < 0)
		return;
	if (rplan.send_inv) {
		for (i = 0, j = 0; i < plan.nexpose; i++)
			j += plan.expose[i] == rplan.inv_rkey;
		CHECK(j == 1 && plan.nexpose == 1, "%s: SWI invalidates the one exposed rkey", nm);
		fab_invalidate(rplan.inv_rkey);
	}

	/* Requester: the reply, with results where the responder wrote them. */
	rh = rpcrdma_hdr_storage_init(&st_reply);
	ret = rpcrdma_hdr_decode(rh, recv_req, (uint32_t)len);
	CHECK(ret == (int)rplan.hdr_len && test_hdr_same(nm, rh, &rplan.hdr), "%s: reply header",
	      nm);
	ret = rpcrdma_marshal_call_reply(&plan, rh, recv_req + rh->hdr_len,
					 (uint32_t)len - rh->hdr_len, &dec);
	CHECK(ret == 0, "%s: call_reply %d", nm, ret);
	if (ret)
		return;
	for (k = 0; k <= sc->nres; k++) {
		for (i = 0; i < sc->rwords; i++)
			CHECK(rpcrdma_xdr_get_u32(&dec, &v) == 0 && v == 0xbeef0000 + k * 1000 + i,
			      "%s: reply word %u.%u = %#x", nm, k, i, v);
		if (k == sc->nres)
			break;
		ret = rpcrdma_xdr_get_ddp(&dec, sc->res_cap, &p, &n);
		CHECK(ret == 0 && n == sc->res_len[k] && p == rbuf[k].addr &&
			      memcmp(p, res[k].addr, n) == 0,
		      "%s: result %u in the requester's buffer (%d)", nm, k, ret);
	}
	CHECK(rpcrdma_xdr_dec_left(&dec) == 0, "%s: reply fully decoded, %u left", nm,
	      rpcrdma_xdr_dec_left(&dec));

	/* Every rkey the call's header names is in the plan's exposed set. */
	for (i = 0; i < plan.hdr.chunks.nreads; i++) {
		for (j = 0; j < plan.nexpose; j++)
			if (plan.expose[j] == plan.hdr.chunks.reads[i].target.handle)
				break;
		CHECK(j < plan.nexpose, "%s: read %u's rkey exposed", nm, i);
	}
	printf("%-34s call %-7s reply %-7s send %5u rdma %6u bytes in %2u ops%s\n", nm,
	       plan.form == RPCRDMA_MARSHAL_SHORT     ? "Short"
	       : plan.form == RPCRDMA_MARSHAL_CHUNKED ? "Chunked"
						      : "Long",
	       rplan.form == RPCRDMA_MARSHAL_SHORT     ? "Short"
	       : rplan.form == RPCRDMA_MARSHAL_CHUNKED ? "Chunked"
						       : "Long",
	       plan.send_len, rplan.rdma_bytes, rplan.nrdma, rplan.send_inv ? ", SWI" : "");
}

int main(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		run(&scenarios[i]);
	fab_reset();
	return test_summary("test_marshal_e2e");
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requester call marshaling: each form at its exact boundary (threshold - 1,
 * ==, + 1, transport header included), read chunk positions and round-up
 * with odd lengths, several DDP-eligible items, 1 and 3 write chunks, Long
 * Call and Long Reply, segment splitting, header capacity, refusals, and
 * the checks on a reply's chunk lists. Every plan's header is decoded back
 * with the codec; every Short Send is gathered and compared byte for byte
 * with the same message encoded flat.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rpcrdma/rpcrdma_marshal.h>

#include "engine_test.h"

#define SENDBUF 8192

struct env {
	struct rpcrdma_marshal_conn conn;
	struct rpcrdma_xdr_region send, hdr, pad, flatmem, long_buf;
	struct rpcrdma_xdr_region item[RPCRDMA_XDR_MAX_DDP];
	struct rpcrdma_xdr_region rbuf[RPCRDMA_XDR_MAX_DDP];
	struct rpcrdma_xdr_enc xdr;
	struct rpcrdma_xdr_enc flat; /* the same message with every item inline */
	struct rpcrdma_xdr_reply_spec reply;
	struct rpcrdma_marshal_call_args args;
	struct rpcrdma_marshal_call_plan plan;
	struct rpcrdma_hdr_storage st;
	uint8_t wire[SENDBUF * 2];
};

static struct env E;

static void env_init(void)
{
	unsigned int i;

	fab_reset();
	rpcrdma_marshal_conn_init(&E.conn);
	E.send = fab_alloc(SENDBUF);
	E.hdr = fab_alloc(2048);
	E.pad = fab_alloc(4);
	E.flatmem = fab_alloc(SENDBUF * 2);
	E.long_buf = fab_alloc(SENDBUF * 2);
	E.conn.pad = E.pad;
	for (i = 0; i < RPCRDMA_XDR_MAX_DDP; i++) {
		E.item[i] = fab_alloc(SENDBUF);
		test_fill(E.item[i].addr, SENDBUF, 100 + i);
		E.rbuf[i] = fab_alloc(SENDBUF);
	}
	rpcrdma_xdr_enc_init(&E.xdr, &E.send);
	rpcrdma_xdr_enc_init(&E.flat, &E.flatmem);
	memset(&E.reply, 0, sizeof(E.reply));
	E.reply.max_len = 256;
	E.args.xid = 0x11223344;
	E.args.credit = 32;
	E.args.xdr = &E.xdr;
	E.args.reply = &E.reply;
	E.args.hdr_buf = E.hdr;
}

static void env_fini(void)
{
	unsigned int i;

	fab_free(&E.send);
	fab_free(&E.hdr);
	fab_free(&E.pad);
	fab_free(&E.flatmem);
	fab_free(&E.long_buf);
	for (i = 0; i < RPCRDMA_XDR_MAX_DDP; i++) {
		fab_free(&E.item[i]);
		fab_free(&E.rbuf[i]);
	}
}

/* Words into both streams. */
static void put_words(unsigned int n, uint32_t seed)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		rpcrdma_xdr_put_u32(&E.xdr, seed + i);
		rpcrdma_xdr_put_u32(&E.flat, seed + i);
	}
}

/* A DDP-eligible item of len bytes from item buffer k. */
static void put_item(unsigned int k, uint32_t len)
{
	struct rpcrdma_xdr_region d = E.item[k];

	d.len = len;
	CHECK(rpcrdma_xdr_put_ddp(&E.xdr, &d) == 0, "put_ddp %u", k);
	CHECK(rpcrdma_xdr_put_opaque(&E.flat, d.addr, len) == 0, "flat %u", k);
}

static int marshal(void)
{
	return rpcrdma_marshal_call(&E.conn, &E.args, &E.plan);
}

/* The header in hdr_buf decodes to the plan's header; sge[0] covers it. */
static void check_wire_hdr(const char *what)
{
	CHECK(test_hdr_wire(what, &E.plan.hdr, E.hdr.addr, E.plan.hdr_len, &E.st), "%s", what);
	CHECK(E.plan.sge[0].addr == (uint64_t)(uintptr_t)E.hdr.addr &&
		      E.plan.sge[0].length == E.plan.hdr_len && E.plan.sge[0].lkey == E.hdr.lkey,
	      "%s: sge[0] is the header", what);
	CHECK(E.plan.hdr.xid == 0x11223344 && E.plan.hdr.credit == 32, "%s: xid, credit", what);
}

/* The Send, gathered by the fabric: the header, then exactly the flat message. */
static void check_short_send(const char *what)
{
	int n = fab_send(E.plan.sge, E.plan.nsge, E.wire, sizeof(E.wire));

	CHECK(n == (int)E.plan.send_len && E.plan.send_len == E.plan.hdr_len + E.flat.len,
	      "%s: Send of %d bytes, plan %u, want %u + %u", what, n, E.plan.send_len,
	      E.plan.hdr_len, E.flat.len);
	CHECK(n > 0 && memcmp(E.wire + E.plan.hdr_len, E.flat.mem.addr, E.flat.len) == 0,
	      "%s: the gathered stream is the flat encoding", what);
}

static bool exposed(uint32_t rkey)
{
	unsigned int i;

	for (i = 0; i < E.plan.nexpose; i++)
		if (E.plan.expose[i] == rkey)
			return true;
	return false;
}

/* No DDP items: Short up to the threshold, Long Call one byte below. */
static void check_short_boundary(void)
{
	static const struct {
		int32_t delta;
		int form;
	} cases[] = {
		{ -1, RPCRDMA_MARSHAL_LONG },
		{ 0, RPCRDMA_MARSHAL_SHORT },
		{ 1, RPCRDMA_MARSHAL_SHORT },
	};
	unsigned int i;

	env_init();
	put_words(10, 1); /* 40 bytes; Short header 28: threshold 68 */
	for (i = 0; i < 3; i++) {
		E.conn.send_inline = (uint32_t)(68 + cases[i].delta);
		CHECK(marshal() == 0, "send_inline %u", E.conn.send_inline);
		CHECK((int)E.plan.form == cases[i].form, "send_inline %u: form %d, want %d",
		      E.conn.send_inline, E.plan.form, cases[i].form);
		check_wire_hdr("short boundary");
		if (E.plan.form == RPCRDMA_MARSHAL_SHORT) {
			CHECK(E.plan.hdr_len == 28 && E.plan.nsge == 2 && E.plan.nexpose == 0,
			      "Short: 28-byte header, 2 gather entries, nothing exposed");
			check_short_send("short");
		} else {
			const struct rpcrdma_read_segment *r = &E.plan.hdr.chunks.reads[0];

			/* RDMA_NOMSG, one position-zero read chunk over the send buffer. */
			CHECK(E.plan.hdr.proc == RPCRDMA_NOMSG && E.plan.hdr.chunks.nreads == 1 &&
				      r->position == 0 && r->target.handle == E.send.rkey &&
				      r->target.offset == E.send.iova && r->target.length == 40,
			      "Long Call: position-zero chunk of 40 bytes at the send buffer's "
			      "iova");
			CHECK(E.plan.hdr_len == 52 && E.plan.nsge == 1 && E.plan.send_len == 52,
			      "Long Call: the Send is the 52-byte header alone");
			CHECK(E.plan.nexpose == 1 && exposed(E.send.rkey), "send buffer exposed");
		}
	}
	E.conn.send_inline = 51;
	CHECK(marshal() == -EMSGSIZE, "even the Long Call header (52) does not fit 51");
	E.conn.send_inline = 67;
	E.conn.flags = RPCRDMA_MARSHAL_F_NO_LONG_CALL;
	CHECK(marshal() == -EMSGSIZE, "Long Call needed and not allowed");
	E.conn.flags = 0;
	E.args.hdr_buf.len = 51;
	CHECK(marshal() == -ENOSPC, "header buffer of 51 bytes");
	E.args.hdr_buf.len = 52;
	CHECK(marshal() == 0 && E.plan.hdr_len == 52, "header buffer of exactly 52 bytes");
	env_fini();
}

/*
 * One item of 4093 bytes (3 bytes of pad) between 6 and 2 words:
 * xdr.len 32, pos 4128. Short needs 28 + 4128, Chunked 52 + 32, Long 76.
 */
static void check_ddp_boundaries(void)
{
	const struct rpcrdma_read_segment *r;
	unsigned int i;

	env_init();
	put_words(5, 10);
	put_item(0, 4093);
	put_words(2, 20);
	CHECK(E.xdr.len == 32 && E.xdr.pos == 4128, "len %u pos %u", E.xdr.len, E.xdr.pos);

	for (i = 0; i < 3; i++) {
		E.conn.send_inline = 4156 - 1 + i;
		CHECK(marshal() == 0, "marshal");
		check_wire_hdr("ddp short boundary");
		if (i == 0) {
			CHECK(E.plan.form == RPCRDMA_MARSHAL_CHUNKED, "4155: Chunked");
			continue;
		}
		CHECK(E.plan.form == RPCRDMA_MARSHAL_SHORT, "%u: Short", E.conn.send_inline);
		/* hdr, inline [0,24), item, pad of 3, inline [24,32) */
		CHECK(E.plan.nsge == 5 &&
			      E.plan.sge[2].addr == (uint64_t)(uintptr_t)E.item[0].addr &&
			      E.plan.sge[2].lkey == E.item[0].lkey && E.plan.sge[3].length == 3 &&
			      E.plan.sge[3].lkey == E.pad.lkey,
		      "Short gathers the item in place, then 3 bytes from the pad buffer");
		check_short_send("short with an item");
	}

	E.conn.send_inline = 4156;
	E.conn.max_send_sge = 4;
	CHECK(marshal() == 0 && E.plan.form == RPCRDMA_MARSHAL_CHUNKED,
	      "Short needs 5 gather entries, 4 allowed: Chunked");
	E.conn.max_send_sge = RPCRDMA_MARSHAL_MAX_SGE;
	E.conn.pad.addr = NULL;
	CHECK(marshal() == 0 && E.plan.form == RPCRDMA_MARSHAL_CHUNKED,
	      "no pad buffer for the odd item: Chunked");
	E.conn.pad = E.pad;
	E.conn.pad.len = 2;
	CHECK(marshal() == 0 && E.plan.form == RPCRDMA_MARSHAL_CHUNKED,
	      "a pad buffer of 2 bytes for a pad of 3: Chunked");
	E.conn.pad.len = 3;
	CHECK(marshal() == 0 && E.plan.form == RPCRDMA_MARSHAL_SHORT, "3 bytes suffice: Short");
	E.conn.pad = E.pad;

	for (i = 0; i < 3; i++) {
		E.conn.send_inline = 84 - 1 + i;
		CHECK(marshal() == 0, "marshal");
		check_wire_hdr("chunked boundary");
		if (i == 0) {
			CHECK(E.plan.form == RPCRDMA_MARSHAL_LONG && E.plan.hdr_len == 76,
			      "83: Long Call, header %u", E.plan.hdr_len);
			r = E.plan.hdr.chunks.reads;
			CHECK(E.plan.hdr.chunks.nreads == 2 && r[0].position == 0 &&
				      r[0].target.length == 32 && r[1].position == 24 &&
				      r[1].target.length == 4093 &&
				      r[1].target.handle == E.item[0].rkey,
			      "Long Call: the reduced message at 0, the item at 24 in its own "
			      "chunk");
			CHECK(exposed(E.send.rkey) && exposed(E.item[0].rkey) &&
				      E.plan.nexpose == 2,
			      "both exposed");
			continue;
		}
		CHECK(E.plan.form == RPCRDMA_MARSHAL_CHUNKED, "%u: Chunked", E.conn.send_inline);
		r = E.plan.hdr.chunks.reads;
		CHECK(E.plan.hdr_len == 52 && E.plan.hdr.proc == RPCRDMA_MSG &&
			      E.plan.hdr.chunks.nreads == 1 && r->position == 24 &&
			      r->target.length == 4093 && r->target.offset == E.item[0].iova &&
			      r->target.handle == E.item[0].rkey,
		      "Chunked: one read chunk at position 24, 4093 bytes, no pad");
		CHECK(E.plan.nsge == 2 && E.plan.sge[1].length == 32 &&
			      E.plan.sge[1].addr == (uint64_t)(uintptr_t)E.send.addr,
		      "Chunked: the Send is the header and the 32 inline bytes");
		CHECK(E.plan.send_len == 84, "send_len %u", E.plan.send_len);
		CHECK(E.plan.nexpose == 1 && exposed(E.item[0].rkey), "the item is exposed");
	}
	env_fini();
}

/* Items of 1, 2, 3 and 4 bytes: positions 8, 20, 32, 44; pads 3, 2, 1, 0. */
static void check_roundup(void)
{
	static const uint32_t want_pos[4] = { 8, 20, 32, 44 };
	const struct rpcrdma_read_segment *r;
	unsigned int k, npad = 0;

	env_init();
	for (k = 0; k < 4; k++) {
		put_words(1, k);
		put_item(k, k + 1);
	}
	put_words(1, 9);
	CHECK(E.xdr.pos == 52 && E.xdr.len == 36, "pos %u len %u", E.xdr.pos, E.xdr.len);
	for (k = 0; k < 4; k++)
		CHECK(E.xdr.ddp[k].pos == want_pos[k], "item %u at %u", k, E.xdr.ddp[k].pos);

	E.conn.send_inline = 80; /* 28 + 52 */
	CHECK(marshal() == 0 && E.plan.form == RPCRDMA_MARSHAL_SHORT, "Short at 80");
	for (k = 1; k < E.plan.nsge; k++)
		npad += E.plan.sge[k].lkey == E.pad.lkey;
	CHECK(npad == 3, "three pads gathered (3, 2, 1 bytes), got %u", npad);
	check_short_send("round-up short");

	/* Short needs 13 gather entries: header, 5 inline pieces, 4 items, 3 pads. */
	CHECK(E.plan.nsge == 13, "Short: %u gather entries", E.plan.nsge);
	E.conn.send_inline = 160;
	E.conn.max_send_sge = 13;
	CHECK(marshal() == 0 && E.plan.form == RPCRDMA_MARSHAL_SHORT, "Short with 13 entries");
	E.conn.max_send_sge = 12;
	CHECK(marshal() == 0 && E.plan.form == RPCRDMA_MARSHAL_CHUNKED, "Chunked with 12");
	check_wire_hdr("round-up chunked");
	/* Chunked: header 16 + 4 * 24 + 12 = 124, inline 36. */
	E.conn.send_inline = 159;
	CHECK(marshal() == 0 && E.plan.form == RPCRDMA_MARSHAL_LONG, "Long at 159");
	check_wire_hdr("round-up long");
	E.conn.send_inline = 160;
	CHECK(marshal() == 0 && E.plan.form == RPCRDMA_MARSHAL_CHUNKED, "Chunked at 160");
	check_wire_hdr("round-up chunked");
	r = E.plan.hdr.chunks.reads;
	CHECK(E.plan.hdr.chunks.nreads == 4, "4 read chunks");
	for (k = 0; k < 4 && k < E.plan.hdr.chunks.nreads; k++)
		CHECK(r[k].position == want_pos[k] && r[k].target.length == k + 1,
		      "chunk %u: position %u length %u (pad removed)", k, r[k].position,
		      r[k].target.length);
	CHECK(E.plan.send_len == E.plan.hdr_len + 36, "the reduced stream: 36 bytes");
	env_fini();
}

/* Segments cover at most max_seg_len bytes; header capacity. */
static void check_segments(void)
{
	const struct rpcrdma_read_segment *r;
	unsigned int i;

	env_init();
	E.conn.max_seg_len = 1000;
	E.conn.send_inline = 300; /* Chunked: 16 + 8 * 24 + 12 + 16 = 236 */
	put_words(1, 0);
	put_item(0, 3000);
	put_item(1, 3001);
	put_item(2, 1000);
	CHECK(marshal() == 0 && E.plan.form == RPCRDMA_MARSHAL_CHUNKED, "Chunked");
	check_wire_hdr("segments");
	r = E.plan.hdr.chunks.reads;
	CHECK(E.plan.hdr.chunks.nreads == 3 + 4 + 1, "3 + 4 + 1 read segments, got %u",
	      E.plan.hdr.chunks.nreads);
	for (i = 0; i < 3; i++)
		CHECK(r[i].position == 8 && r[i].target.length == 1000 &&
			      r[i].target.offset == E.item[0].iova + 1000 * i,
		      "item 0 segment %u", i);
	CHECK(r[6].position == r[3].position && r[6].target.length == 1 &&
		      r[6].target.offset == E.item[1].iova + 3000,
	      "item 1: last segment of 1 byte at the same position");
	CHECK(r[7].target.length == 1000 && r[7].position == 8 + 3000 + 4 + 3004 + 4,
	      "item 2 at position %u", r[7].position);

	/* 16 segments fit the read list; 17 do not. */
	env_fini();
	env_init();
	E.conn.max_seg_len = 16;
	E.conn.max_send_sge = 2; /* no Short: it needs 3 entries */
	put_words(1, 0);
	put_item(0, 16 * 16);
	CHECK(marshal() == 0 && E.plan.form == RPCRDMA_MARSHAL_CHUNKED &&
		      E.plan.hdr.chunks.nreads == 16,
	      "16 read segments");
	check_wire_hdr("16 read segments");
	env_fini();
	env_init();
	E.conn.max_seg_len = 16;
	E.conn.max_send_sge = 2;
	put_words(1, 0);
	put_item(0, 16 * 16 + 1);
	CHECK(marshal() == -E2BIG, "17 read segments: -E2BIG");

	/* A write chunk of 17 segments; a ninth DDP reply buffer. */
	E.xdr.nddp = 0;
	E.xdr.len = E.xdr.pos = 4;
	E.reply.nddp = 1;
	E.reply.ddp[0] = E.rbuf[0];
	E.reply.ddp[0].len = 16 * 16;
	E.reply.max_len = 16 * 16 + 100;
	CHECK(marshal() == 0 && E.plan.hdr.chunks.writes[0].nsegs == 16, "16 write segments");
	E.reply.ddp[0].len = 16 * 16 + 1;
	CHECK(marshal() == -E2BIG, "17 write segments: -E2BIG");
	E.reply.ddp[0].len = 100;
	E.reply.nddp = RPCRDMA_XDR_MAX_DDP + 1;
	CHECK(marshal() == -EINVAL, "more reply buffers than RPCRDMA_XDR_MAX_DDP");
	E.reply.nddp = 1;
	E.reply.max_len = 99;
	CHECK(marshal() == -EINVAL, "max_len below the reply buffer");
	E.conn.max_seg_len = 0;
	CHECK(marshal() == -EINVAL, "max_seg_len 0");
	E.conn.max_seg_len = 16;
	E.conn.max_send_sge = 1;
	CHECK(marshal() == -EINVAL, "max_send_sge 1");
	E.conn.max_send_sge = RPCRDMA_MARSHAL_MAX_SGE + 1;
	CHECK(marshal() == -EINVAL, "max_send_sge above the plan");
	env_fini();
}

/* Write chunks for DDP-eligible results: 1 and 3; the reply inline threshold. */
static void check_write_chunks(void)
{
	static const uint32_t lens[3] = { 4096, 5, 1500 };
	const struct rpcrdma_chunk_lists *cl = &E.plan.hdr.chunks;
	unsigned int n, i, j;

	for (n = 1; n <= 3; n += 2) {
		env_init();
		E.conn.max_seg_len = 1024;
		put_words(8, 0);
		E.reply.nddp = (uint16_t)n;
		E.reply.max_len = 200;
		for (i = 0; i < n; i++) {
			E.reply.ddp[i] = E.rbuf[i];
			E.reply.ddp[i].len = lens[i];
			E.reply.max_len += (uint32_t)((lens[i] + 3) & ~3u);
		}
		CHECK(marshal() == 0 && E.plan.form == RPCRDMA_MARSHAL_SHORT && !E.plan.long_reply,
		      "%u write chunks, Short call, reply fits inline", n);
		check_wire_hdr("write chunks");
		check_short_send("write chunks");
		CHECK(cl->nwrites == n, "%u write chunks", cl->nwrites);
		for (i = 0; i < n && i < cl->nwrites; i++) {
			uint64_t sum = 0;

			for (j = 0; j < cl->writes[i].nsegs; j++) {
				CHECK(cl->writes[i].segs[j].handle == E.rbuf[i].rkey &&
					      cl->writes[i].segs[j].offset ==
						      E.rbuf[i].iova + 1024 * j &&
					      cl->writes[i].segs[j].length <= 1024,
				      "chunk %u segment %u", i, j);
				sum += cl->writes[i].segs[j].length;
			}
			CHECK(sum == lens[i] && cl->writes[i].nsegs == (lens[i] + 1023) / 1024,
			      "chunk %u: %u segments for %u bytes", i, cl->writes[i].nsegs,
			      lens[i]);
			CHECK(exposed(E.rbuf[i].rkey) && E.plan.wbuf[i].p == E.rbuf[i].addr,
			      "reply buffer %u exposed and remembered", i);
		}
		CHECK(E.plan.nexpose == n, "%u exposed", E.plan.nexpose);
		env_fini();
	}
}

/*
 * Long Reply at the boundary: reply header 28 + max_len without write
 * chunks; 52 + max_len - 4096 with one write chunk of 4096 (one segment).
 */
static void check_long_reply(void)
{
	const struct rpcrdma_chunk_lists *cl = &E.plan.hdr.chunks;
	unsigned int i;

	env_init();
	put_words(4, 0);
	E.reply.max_len = 2000;
	E.reply.long_buf = E.long_buf;
	for (i = 0; i < 3; i++) {
		E.conn.recv_inline = 2028 - 1 + i;
		CHECK(marshal() == 0, "marshal");
		check_wire_hdr("long reply");
		CHECK(E.plan.long_reply == (i == 0) && cl->has_reply == (i == 0),
		      "recv_inline %u: reply chunk %d", E.conn.recv_inline, cl->has_reply);
	}
	E.conn.recv_inline = 2027;
	marshal();
	CHECK(cl->reply.nsegs == 1 && cl->reply.segs[0].length == 2000 &&
		      cl->reply.segs[0].handle == E.long_buf.rkey &&
		      cl->reply.segs[0].offset == E.long_buf.iova &&
		      E.plan.reply_chunk_len == 2000 && E.plan.reply_buf == E.long_buf.addr &&
		      exposed(E.long_buf.rkey),
	      "reply chunk: 2000 bytes of long_buf");
	CHECK(E.plan.hdr_len == 28 + 4 + 16, "call header with a reply chunk: %u", E.plan.hdr_len);

	E.reply.nddp = 1;
	E.reply.ddp[0] = E.rbuf[0];
	E.reply.ddp[0].len = 4096;
	E.reply.max_len = 2000 + 4096;
	for (i = 0; i < 3; i++) {
		E.conn.recv_inline = 52 + 2000 - 1 + i;
		CHECK(marshal() == 0 && E.plan.long_reply == (i == 0),
		      "with a write chunk, recv_inline %u: reply chunk %d", E.conn.recv_inline,
		      E.plan.long_reply);
		check_wire_hdr("long reply + write chunk");
	}
	E.conn.recv_inline = 52 + 1999;
	marshal();
	CHECK(E.plan.reply_chunk_len == 2000, "the reply chunk covers the reduced reply: %u",
	      E.plan.reply_chunk_len);
	/* An odd reply buffer leaves the reply with its pad: 4093 takes 4096. */
	E.reply.ddp[0].len = 4093;
	for (i = 0; i < 2; i++) {
		E.conn.recv_inline = 52 + 2000 - 1 + i;
		CHECK(marshal() == 0 && E.plan.long_reply == (i == 0),
		      "odd write chunk, recv_inline %u: reply chunk %d", E.conn.recv_inline,
		      E.plan.long_reply);
	}
	E.reply.ddp[0].len = 4096;
	E.conn.recv_inline = 52 + 1999;

	E.reply.long_buf.len = 1999;
	CHECK(marshal() == -ENOBUFS, "long_buf of 1999 bytes");
	E.reply.long_buf.addr = NULL;
	E.reply.long_buf.len = 0;
	CHECK(marshal() == -ENOBUFS, "no long_buf");
	E.reply.long_buf = E.long_buf;
	E.conn.flags = RPCRDMA_MARSHAL_F_NO_LONG_REPLY;
	CHECK(marshal() == -EMSGSIZE, "Long Reply not allowed");
	env_fini();
}

/* Long Call and Long Reply together, version 2. */
static void check_long_both_v2(void)
{
	const struct rpcrdma_chunk_lists *cl = &E.plan.hdr.chunks;

	env_init();
	E.conn.vers = RPCRDMA_VERS_2;
	E.conn.send_inline = 200;
	E.conn.recv_inline = 200;
	put_words(60, 0); /* 240 bytes: no form but Long fits */
	E.reply.max_len = 1000;
	E.reply.long_buf = E.long_buf;
	CHECK(marshal() == 0 && E.plan.form == RPCRDMA_MARSHAL_LONG && E.plan.long_reply,
	      "Long Call + Long Reply");
	check_wire_hdr("long both v2");
	CHECK(E.plan.hdr.vers == 2 && cl->direction == RPCRDMA_CALL &&
		      E.plan.hdr.proc == RPCRDMA_NOMSG,
	      "RDMA2_NOMSG, direction CALL");
	/* 16 + direction 4 + read (24 + 4) + write list 4 + reply (4 + 4 + 16) */
	CHECK(E.plan.hdr_len == 76, "v2 header %u", E.plan.hdr_len);
	CHECK(E.st.hdr.chunks.direction == RPCRDMA_CALL, "decoded direction CALL");
	CHECK(E.plan.nexpose == 2 && exposed(E.send.rkey) && exposed(E.long_buf.rkey), "exposed");
	env_fini();
}

/* Version 1 backward direction (RFC 8167): inline only, no chunks. */
static void check_backward(void)
{
	env_init();
	E.conn.backward = true;
	put_words(10, 0);
	put_item(0, 100);
	E.reply.nddp = 1;
	E.reply.ddp[0] = E.rbuf[0];
	E.reply.ddp[0].len = 100;
	E.reply.max_len = 300;
	CHECK(marshal() == 0 && E.plan.form == RPCRDMA_MARSHAL_SHORT &&
		      E.plan.hdr.chunks.nwrites == 0 && E.plan.nexpose == 0,
	      "backward: Short, no write chunk even with a reply buffer");
	check_short_send("backward");
	E.conn.send_inline = 28 + E.xdr.pos - 1;
	CHECK(marshal() == -EMSGSIZE, "backward call one byte too long");
	E.conn.send_inline = 1024;
	E.reply.max_len = 1024 - 28 + 1;
	CHECK(marshal() == -EMSGSIZE, "backward reply may not fit");
	E.reply.max_len = 1024 - 28;
	CHECK(marshal() == 0 && !E.plan.long_reply, "backward reply that fits exactly");
	E.reply.max_len = 2000;
	E.conn.vers = RPCRDMA_VERS_2;
	E.reply.long_buf = E.long_buf;
	CHECK(marshal() == 0 && E.plan.long_reply && E.plan.hdr.chunks.nwrites == 1,
	      "version 2 backward calls may use chunks");
	env_fini();
}

/* A reply header echoing the plan's offer with full lengths, as a responder would. */
static void echo_offer(struct rpcrdma_hdr *r, struct rpcrdma_read_segment *reads,
		       struct rpcrdma_write_chunk *writes, struct rpcrdma_segment (*segs)[4],
		       struct rpcrdma_segment *rsegs)
{
	const struct rpcrdma_chunk_lists *ocl = &E.plan.hdr.chunks;
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->xid = E.plan.hdr.xid;
	r->vers = 1;
	r->proc = RPCRDMA_MSG;
	r->chunks.reads = reads;
	r->chunks.writes = writes;
	r->chunks.nwrites = ocl->nwrites;
	for (i = 0; i < ocl->nwrites; i++) {
		writes[i].nsegs = ocl->writes[i].nsegs;
		writes[i].segs = segs[i];
		memcpy(segs[i], ocl->writes[i].segs, ocl->writes[i].nsegs * sizeof(segs[i][0]));
	}
	r->chunks.reply.nsegs = ocl->has_reply ? ocl->reply.nsegs : 0;
	r->chunks.reply.segs = rsegs;
	if (ocl->has_reply)
		memcpy(rsegs, ocl->reply.segs, ocl->reply.nsegs * sizeof(rsegs[0]));
}

/* The reply's chunk lists against the offer. */
static void check_reply_offer(void)
{
	struct rpcrdma_read_segment reads[1];
	struct rpcrdma_write_chunk writes[3];
	struct rpcrdma_segment segs[3][4], rsegs[4];
	struct rpcrdma_hdr r;
	struct rpcrdma_xdr_dec dec;
	const struct rpcrdma_chunk_lists *ocl = &E.plan.hdr.chunks;
	uint8_t payload[8] = { 0 };
	unsigned int i;

	env_init();
	E.conn.max_seg_len = 1024;
	E.conn.recv_inline = 300;
	put_words(4, 0);
	E.reply.nddp = 2;
	E.reply.ddp[0] = E.rbuf[0];
	E.reply.ddp[0].len = 2048;
	E.reply.ddp[1] = E.rbuf[1];
	E.reply.ddp[1].len = 100;
	E.reply.max_len = 2048 + 100 + 400;
	E.reply.long_buf = E.long_buf;
	CHECK(marshal() == 0 && E.plan.long_reply && ocl->nwrites == 2 && ocl->writes[0].nsegs == 2,
	      "offer: two write chunks, a reply chunk");

	echo_offer(&r, reads, writes, segs, rsegs);
	CHECK(rpcrdma_marshal_call_reply(&E.plan, &r, payload, 8, &dec) == 0 && dec.nwrites == 2 &&
		      dec.writes[0].len == 2048 && dec.writes[0].p == E.rbuf[0].addr &&
		      dec.writes[1].len == 100,
	      "full write chunks accepted");
	echo_offer(&r, reads, writes, segs, rsegs);
	segs[0][0].length = 1000;
	segs[0][1].length = 0;
	CHECK(rpcrdma_marshal_call_reply(&E.plan, &r, payload, 8, &dec) == 0 &&
		      dec.writes[0].len == 1000,
	      "partly filled, in order");
	echo_offer(&r, reads, writes, segs, rsegs);
	segs[0][0].length = 1000;
	CHECK(rpcrdma_marshal_call_reply(&E.plan, &r, payload, 8, &dec) == -RPCRDMA_E_CHUNK_OFFER,
	      "a gap: segment 0 partial, segment 1 written");
	echo_offer(&r, reads, writes, segs, rsegs);
	segs[1][0].length = 101;
	CHECK(rpcrdma_marshal_call_reply(&E.plan, &r, payload, 8, &dec) == -RPCRDMA_E_CHUNK_OFFER,
	      "more than offered");
	echo_offer(&r, reads, writes, segs, rsegs);
	segs[1][0].handle ^= 1;
	CHECK(rpcrdma_marshal_call_reply(&E.plan, &r, payload, 8, &dec) == -RPCRDMA_E_CHUNK_OFFER,
	      "handle changed");
	echo_offer(&r, reads, writes, segs, rsegs);
	segs[1][0].offset += 4;
	CHECK(rpcrdma_marshal_call_reply(&E.plan, &r, payload, 8, &dec) == -RPCRDMA_E_CHUNK_OFFER,
	      "offset changed");
	echo_offer(&r, reads, writes, segs, rsegs);
	writes[0].nsegs = 1;
	CHECK(rpcrdma_marshal_call_reply(&E.plan, &r, payload, 8, &dec) == -RPCRDMA_E_CHUNK_OFFER,
	      "segment count changed");
	echo_offer(&r, reads, writes, segs, rsegs);
	r.chunks.nwrites = 3;
	writes[2] = writes[1];
	CHECK(rpcrdma_marshal_call_reply(&E.plan, &r, payload, 8, &dec) == -RPCRDMA_E_CHUNK_OFFER,
	      "a write chunk never offered");
	echo_offer(&r, reads, writes, segs, rsegs);
	r.chunks.nreads = 1;
	CHECK(rpcrdma_marshal_call_reply(&E.plan, &r, payload, 8, &dec) == -RPCRDMA_E_CHUNK_OFFER,
	      "a read list in a reply");
	echo_offer(&r, reads, writes, segs, rsegs);
	r.chunks.nwrites = 1;
	CHECK(rpcrdma_marshal_call_reply(&E.plan, &r, payload, 8, &dec) == 0 && dec.nwrites == 1,
	      "fewer write chunks: the rest unused");

	/* Long Reply: RDMA_NOMSG and the reply chunk. */
	echo_offer(&r, reads, writes, segs, rsegs);
	r.proc = RPCRDMA_NOMSG;
	CHECK(rpcrdma_marshal_call_reply(&E.plan, &r, NULL, 0, &dec) == -RPCRDMA_E_NOMSG,
	      "RDMA_NOMSG without a reply chunk");
	r.chunks.has_reply = true;
	CHECK(rpcrdma_marshal_call_reply(&E.plan, &r, payload, 8, &dec) == -RPCRDMA_E_NOMSG,
	      "RDMA_NOMSG with a payload");
	rsegs[0].length = 40;
	for (i = 1; i < r.chunks.reply.nsegs; i++)
		rsegs[i].length = 0;
	CHECK(rpcrdma_marshal_call_reply(&E.plan, &r, NULL, 0, &dec) == 0 &&
		      dec.pieces[0].p == E.long_buf.addr && rpcrdma_xdr_dec_left(&dec) == 40,
	      "the reply is the 40 bytes written to the reply chunk, in place");
	r.proc = RPCRDMA_ERROR;
	CHECK(rpcrdma_marshal_call_reply(&E.plan, &r, NULL, 0, &dec) == -EINVAL, "RDMA_ERROR");

	/* A reply chunk where none was offered. */
	E.conn.recv_inline = 100000;
	CHECK(marshal() == 0 && !E.plan.long_reply, "offer without a reply chunk");
	echo_offer(&r, reads, writes, segs, rsegs);
	r.chunks.has_reply = true;
	CHECK(rpcrdma_marshal_call_reply(&E.plan, &r, payload, 8, &dec) == -RPCRDMA_E_CHUNK_OFFER,
	      "a reply chunk never offered");
	env_fini();
}

int main(void)
{
	check_short_boundary();
	check_ddp_boundaries();
	check_roundup();
	check_segments();
	check_write_chunks();
	check_long_reply();
	check_long_both_v2();
	check_backward();
	check_reply_offer();
	return test_summary("test_marshal_call");
}

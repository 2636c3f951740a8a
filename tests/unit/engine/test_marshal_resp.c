/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Responder marshaling: validating a call's read list (hostile positions,
 * RDMA_NOMSG rules, lengths, limits), the RDMA Reads that pull it, the
 * reassembly with the data left where the Reads put it, and the reply:
 * write chunks filled in order with unused chunks reported as zero, inline
 * vs reply chunk vs ERR_CHUNK at the boundary, and Send With Invalidate.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rpcrdma/rpcrdma_marshal.h>

#include "engine_test.h"

/* A call header built by hand: room for hostile read lists. */
struct call {
	struct rpcrdma_hdr hdr;
	struct rpcrdma_read_segment reads[24];
	struct rpcrdma_write_chunk writes[RPCRDMA_MARSHAL_MAX_WRITES + 1];
	struct rpcrdma_segment segs[RPCRDMA_MARSHAL_MAX_WRITES + 2][20];
};

static struct call C;

static void call_init(uint32_t proc)
{
	memset(&C, 0, sizeof(C));
	C.hdr.xid = 0xabcd0001;
	C.hdr.vers = RPCRDMA_VERS_1;
	C.hdr.credit = 16;
	C.hdr.proc = proc;
	C.hdr.chunks.reads = C.reads;
	C.hdr.chunks.writes = C.writes;
	C.hdr.chunks.reply.segs = C.segs[RPCRDMA_MARSHAL_MAX_WRITES + 1];
}

static void add_read(uint32_t pos, uint32_t rkey, uint64_t off, uint32_t len)
{
	struct rpcrdma_read_segment *r = &C.reads[C.hdr.chunks.nreads++];

	r->position = pos;
	r->target.handle = rkey;
	r->target.offset = off;
	r->target.length = len;
}

static void add_seg(struct rpcrdma_write_chunk *wc, struct rpcrdma_segment *segs, uint32_t rkey,
		    uint64_t off, uint32_t len)
{
	wc->segs = segs;
	segs[wc->nsegs].handle = rkey;
	segs[wc->nsegs].offset = off;
	segs[wc->nsegs].length = len;
	wc->nsegs++;
}

static int map(uint32_t inline_len, uint32_t max_call, struct rpcrdma_marshal_call_map *m)
{
	static uint8_t payload[4096];

	return rpcrdma_marshal_call_map(&C.hdr, inline_len ? payload : NULL, inline_len, max_call,
					m);
}

/* Hostile read lists: every check happens before anything is read. */
static void check_map_hostile(void)
{
	struct rpcrdma_marshal_call_map m;
	unsigned int i;

	call_init(RPCRDMA_MSG);
	add_read(8, 1, 0, 5);
	add_read(24, 1, 100, 8);
	CHECK(map(40, 0, &m) == 2 && m.total_len == 56 && m.read_bytes == 13,
	      "valid: 2 chunks, 56 bytes, 13 to read (%u, %u)", m.total_len, m.read_bytes);
	CHECK(map(40, 55, &m) == -RPCRDMA_E_CHUNK_LEN, "over max_call 55");
	CHECK(map(40, 56, &m) == 2, "max_call 56");
	/* chunk 1 ends at 16; chunk 2 at 24 is 8 inline bytes later; 24 inline left */
	CHECK(map(16, 0, &m) == 2 && m.total_len == 32, "chunk 2 right at the inline end");
	CHECK(map(15, 0, &m) == -RPCRDMA_E_CHUNK_POS, "chunk 2 one past the inline end");

	call_init(RPCRDMA_MSG);
	add_read(44, 1, 0, 5);
	CHECK(map(40, 0, &m) == -RPCRDMA_E_CHUNK_POS, "position past the inline part");
	C.reads[0].position = 40;
	CHECK(map(40, 0, &m) == 1 && m.total_len == 48, "position at the end");
	C.reads[0].position = 6;
	CHECK(map(40, 0, &m) == -RPCRDMA_E_CHUNK_POS, "unaligned position");
	C.reads[0].position = 0;
	CHECK(map(40, 0, &m) == -RPCRDMA_E_NOMSG, "position zero in RDMA_MSG");

	call_init(RPCRDMA_MSG);
	add_read(24, 1, 0, 5);
	add_read(8, 1, 0, 5);
	CHECK(map(40, 0, &m) == -RPCRDMA_E_CHUNK_POS, "decreasing positions");
	call_init(RPCRDMA_MSG);
	add_read(8, 1, 0, 5);
	add_read(16, 1, 0, 5);
	add_read(8, 1, 0, 5);
	CHECK(map(40, 0, &m) == -RPCRDMA_E_CHUNK_POS, "a position repeated later");
	call_init(RPCRDMA_MSG);
	add_read(8, 1, 0, 16);
	add_read(20, 1, 0, 4);
	CHECK(map(40, 0, &m) == -RPCRDMA_E_CHUNK_POS, "chunk 2 inside chunk 1 [8, 24)");
	C.reads[1].position = 24;
	CHECK(map(40, 0, &m) == 2, "chunk 2 right after chunk 1");
	/* chunk 1 of 100 at 8: stream [0,8) + 100 + 32 inline = 140 */
	call_init(RPCRDMA_MSG);
	add_read(8, 1, 0, 100);
	add_read(144, 1, 0, 4);
	CHECK(map(40, 0, &m) == -RPCRDMA_E_CHUNK_POS, "past inline + preceding chunks");
	C.reads[1].position = 140;
	CHECK(map(40, 0, &m) == 2 && m.total_len == 144, "at inline + preceding chunks");

	call_init(RPCRDMA_MSG);
	add_read(8, 1, 0, 0);
	CHECK(map(40, 0, &m) == -RPCRDMA_E_CHUNK_LEN, "a chunk of length 0");
	call_init(RPCRDMA_MSG);
	add_read(8, 1, 0, 0xffffffffu);
	add_read(8, 1, 0, 0xffffffffu);
	CHECK(map(40, 0, &m) == -RPCRDMA_E_CHUNK_LEN, "a chunk over 2^32 bytes");
	call_init(RPCRDMA_MSG);
	add_read(8, 1, 0, 0xfffffff0u);
	CHECK(map(40, 0, &m) == -RPCRDMA_E_CHUNK_LEN, "a call over 2^32 bytes");

	call_init(RPCRDMA_MSG);
	for (i = 0; i <= RPCRDMA_XDR_MAX_CHUNKS; i++)
		add_read(4 + 8 * i, 1, 0, 4);
	CHECK(map(200, 0, &m) == -E2BIG, "17 chunks");
	C.hdr.chunks.nreads--;
	CHECK(map(200, 0, &m) == RPCRDMA_XDR_MAX_CHUNKS, "16 chunks");

	/* RDMA_NOMSG (rfc5666bis 4.5.3, 5.5.2). */
	call_init(RPCRDMA_NOMSG);
	CHECK(map(0, 0, &m) == -RPCRDMA_E_NOMSG, "RDMA_NOMSG without chunks");
	add_read(8, 1, 0, 64);
	CHECK(map(0, 0, &m) == -RPCRDMA_E_NOMSG, "RDMA_NOMSG without a position-zero chunk");
	call_init(RPCRDMA_NOMSG);
	add_read(0, 1, 0, 64);
	CHECK(map(4, 0, &m) == -RPCRDMA_E_NOMSG, "position-zero chunk with inline data");
	CHECK(map(0, 0, &m) == 1 && m.nomsg && m.total_len == 64 && m.read_bytes == 64,
	      "position-zero chunk alone");
	add_read(16, 2, 0, 1000);
	CHECK(map(0, 0, &m) == 2 && m.total_len == 1064 && m.read_bytes == 1064,
	      "position zero + a chunk at 16: %u", m.total_len);
	add_read(1064, 2, 0, 4); /* 16 + 1000 + 48 */
	CHECK(map(0, 0, &m) == 3, "a chunk at the end of the position-zero chunk");
	C.reads[2].position = 1068;
	CHECK(map(0, 0, &m) == -RPCRDMA_E_CHUNK_POS, "past it");

	C.hdr.proc = RPCRDMA_ERROR;
	CHECK(map(0, 0, &m) == -EINVAL, "RDMA_ERROR is not a call");
}

/* The Reads, then the reassembled call with its data left in place. */
static void check_reads_and_reassembly(void)
{
	struct rpcrdma_xdr_region src1, src2, dst1, dst2;
	struct rpcrdma_marshal_call_map m;
	struct rpcrdma_marshal_rdma ops[8];
	struct rpcrdma_xdr_dec dec;
	uint8_t in[40];
	const void *p;
	uint32_t v, n;
	unsigned int i;

	fab_reset();
	src1 = fab_alloc(64);
	src2 = fab_alloc(64);
	test_fill(src1.addr, 64, 1);
	test_fill(src2.addr, 64, 2);
	dst1 = fab_alloc(5);
	dst2 = fab_alloc(8);
	/* inline: w0 len=5 | w1 len=8 | w2 w3 w4 w5 w6 (chunks at 8 and 24) */
	memset(in, 0, sizeof(in));
	for (i = 0; i < 10; i++)
		in[4 * i + 3] = (uint8_t)i;
	in[7] = 5;
	in[15] = 8;

	call_init(RPCRDMA_MSG);
	add_read(8, src1.rkey, src1.iova + 10, 3); /* chunk 1: 3 + 0 + 2 bytes */
	add_read(8, src1.rkey, src1.iova + 20, 0);
	add_read(8, src1.rkey, src1.iova + 30, 2);
	add_read(24, src2.rkey, src2.iova, 8);
	CHECK(rpcrdma_marshal_call_map(&C.hdr, in, 40, 0, &m) == 2, "map");
	CHECK(m.chunks[0].nsegs == 3 && m.chunks[0].len == 5 && m.chunks[1].seg == 3,
	      "chunk 1: 3 segments, 5 bytes");
	CHECK(rpcrdma_marshal_call_reads(&m, ops, 8) == -EINVAL, "no destinations yet");
	m.chunks[0].dst = dst1;
	m.chunks[1].dst = dst2;
	m.chunks[1].dst.len = 7;
	CHECK(rpcrdma_marshal_call_reads(&m, ops, 8) == -EINVAL, "destination too small");
	m.chunks[1].dst.len = 8;
	CHECK(rpcrdma_marshal_call_reads(&m, ops, 2) == -ENOSPC, "3 Reads into 2");
	CHECK(rpcrdma_marshal_call_reads(&m, ops, 3) == 3, "3 Reads: the empty segment skipped");
	CHECK(ops[0].laddr == (uint64_t)(uintptr_t)dst1.addr && ops[0].len == 3 &&
		      ops[0].raddr == src1.iova + 10 && ops[0].rkey == src1.rkey &&
		      ops[0].lkey == dst1.lkey && ops[0].chunk == 0,
	      "Read 1");
	CHECK(ops[1].laddr == (uint64_t)(uintptr_t)dst1.addr + 3 && ops[1].len == 2 &&
		      ops[1].raddr == src1.iova + 30,
	      "Read 2 lands after Read 1");
	CHECK(ops[2].chunk == 1 && ops[2].len == 8 && ops[2].lkey == dst2.lkey, "Read 3");
	CHECK(fab_rdma(ops, 3, true) == 0, "the fabric performs the Reads");

	CHECK(rpcrdma_marshal_call_dec(&m, &dec) == 0, "reassemble");
	CHECK(rpcrdma_xdr_get_u32(&dec, &v) == 0 && v == 0, "w0");
	CHECK(rpcrdma_xdr_get_ddp(&dec, 100, &p, &n) == 0 && p == dst1.addr && n == 5,
	      "item 1 where the Reads put it (zero copy)");
	CHECK(memcmp(p, (uint8_t *)src1.addr + 10, 3) == 0 &&
		      memcmp((const uint8_t *)p + 3, (uint8_t *)src1.addr + 30, 2) == 0,
	      "item 1: the segments concatenated");
	CHECK(rpcrdma_xdr_get_u32(&dec, &v) == 0 && v == 2, "w1 after the pad");
	CHECK(rpcrdma_xdr_get_ddp(&dec, 100, &p, &n) == 0 && p == dst2.addr && n == 8 &&
		      memcmp(p, src2.addr, 8) == 0,
	      "item 2 in place");
	for (i = 4; i < 9; i++)
		CHECK(rpcrdma_xdr_get_u32(&dec, &v) == 0 && v == i, "w%u", i);
	CHECK(rpcrdma_xdr_dec_left(&dec) == 4 && rpcrdma_xdr_dec_pos(&dec) == 52, "left 4 at 52");

	/* RDMA_NOMSG: the position-zero chunk is the message. */
	call_init(RPCRDMA_NOMSG);
	add_read(0, src1.rkey, src1.iova, 16);
	add_read(8, src2.rkey, src2.iova, 3);
	memcpy(src1.addr, "\0\0\0\x09\0\0\0\x03\0\0\0\x07\0\0\0\x08", 16);
	CHECK(rpcrdma_marshal_call_map(&C.hdr, NULL, 0, 0, &m) == 2, "map NOMSG");
	m.chunks[0].dst = fab_alloc(16);
	m.chunks[1].dst = dst1;
	CHECK(rpcrdma_marshal_call_reads(&m, ops, 8) == 2 && fab_rdma(ops, 2, true) == 0, "Reads");
	CHECK(rpcrdma_marshal_call_dec(&m, &dec) == 0, "reassemble NOMSG");
	CHECK(rpcrdma_xdr_get_u32(&dec, &v) == 0 && v == 9, "first word of the chunk");
	CHECK(rpcrdma_xdr_get_ddp(&dec, 3, &p, &n) == 0 && p == dst1.addr && n == 3 &&
		      memcmp(p, src2.addr, 3) == 0,
	      "item in its own chunk");
	CHECK(rpcrdma_xdr_get_u32(&dec, &v) == 0 && v == 7 && rpcrdma_xdr_get_u32(&dec, &v) == 0 &&
		      v == 8 && rpcrdma_xdr_dec_left(&dec) == 0,
	      "the rest of the position-zero chunk");
	fab_free(&m.chunks[0].dst);
	fab_free(&src1);
	fab_free(&src2);
	fab_free(&dst1);
	fab_free(&dst2);
}

/* The reply side. */
struct reply_env {
	struct rpcrdma_marshal_conn conn;
	struct rpcrdma_xdr_region send, hdr, pad, req, item[3];
	struct rpcrdma_xdr_enc xdr;
	struct rpcrdma_marshal_reply_args args;
	struct rpcrdma_marshal_reply_plan plan;
	struct rpcrdma_hdr_storage st;
	uint8_t wire[16384];
};

static struct reply_env R;

/*
 * A call offering 3 write chunks (2 x 1024, 100, 50) and a reply chunk
 * (2 x 512), all in one requester registration unless rkeys differ.
 */
static void reply_init(bool one_rkey)
{
	uint32_t k2;
	unsigned int i;

	fab_reset();
	rpcrdma_marshal_conn_init(&R.conn);
	R.send = fab_alloc(8192);
	R.hdr = fab_alloc(1024);
	R.pad = fab_alloc(4);
	R.req = fab_alloc(8192);
	R.conn.pad = R.pad;
	for (i = 0; i < 3; i++) {
		R.item[i] = fab_alloc(4096);
		test_fill(R.item[i].addr, 4096, 40 + i);
	}
	k2 = one_rkey ? R.req.rkey : 0x999999;
	call_init(RPCRDMA_MSG);
	C.hdr.chunks.nwrites = 3;
	add_seg(&C.writes[0], C.segs[0], R.req.rkey, R.req.iova, 1024);
	add_seg(&C.writes[0], C.segs[0], R.req.rkey, R.req.iova + 1024, 1024);
	add_seg(&C.writes[1], C.segs[1], R.req.rkey, R.req.iova + 2048, 100);
	add_seg(&C.writes[2], C.segs[2], k2, R.req.iova + 2148, 50);
	C.hdr.chunks.has_reply = true;
	add_seg(&C.hdr.chunks.reply, C.hdr.chunks.reply.segs, R.req.rkey, R.req.iova + 4096, 512);
	add_seg(&C.hdr.chunks.reply, C.hdr.chunks.reply.segs, R.req.rkey, R.req.iova + 4608, 512);
	rpcrdma_xdr_enc_init(&R.xdr, &R.send);
	R.args.call = &C.hdr;
	R.args.credit = 7;
	R.args.xdr = &R.xdr;
	R.args.hdr_buf = R.hdr;
}

static void reply_fini(void)
{
	unsigned int i;

	fab_free(&R.send);
	fab_free(&R.hdr);
	fab_free(&R.pad);
	fab_free(&R.req);
	for (i = 0; i < 3; i++)
		fab_free(&R.item[i]);
}

static uint32_t wseq;

static void words(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		rpcrdma_xdr_put_u32(&R.xdr, 0x1000 + wseq++);
}

static void item(unsigned int k, uint32_t len)
{
	struct rpcrdma_xdr_region d = R.item[k];

	d.len = len;
	rpcrdma_xdr_put_ddp(&R.xdr, &d);
}

static int reply(void)
{
	return rpcrdma_marshal_reply(&R.conn, &R.args, &R.plan);
}

static void check_reply_wire(const char *what)
{
	CHECK(test_hdr_wire(what, &R.plan.hdr, R.hdr.addr, R.plan.hdr_len, &R.st), "%s", what);
	CHECK(R.plan.hdr.xid == 0xabcd0001 && R.plan.hdr.credit == 7, "%s: xid, credit", what);
}

/* Reply header with 3 write chunks echoed (4 segments): 16 + 4 + 3*8 + 4*16 + 4 + 4. */
#define HDR3 116u

static void check_reply_write_chunks(void)
{
	const struct rpcrdma_chunk_lists *cl = &R.plan.hdr.chunks;
	uint8_t *req;
	int n;

	reply_init(true);
	words(3);
	item(0, 1500); /* chunk 0: 1024 + 476 */
	words(2);
	item(1, 7); /* chunk 1: 7 of 100 */
	words(1);
	/* chunk 2 unused; reduced reply: 6 words + 2 length words = 32 bytes */
	CHECK(reply() == 0 && R.plan.form == RPCRDMA_MARSHAL_CHUNKED, "Chunked reply");
	check_reply_wire("write chunks");
	CHECK(R.plan.hdr_len == HDR3 && R.plan.send_len == HDR3 + 32 && R.plan.nsge == 2,
	      "header %u, Send %u", R.plan.hdr_len, R.plan.send_len);
	CHECK(cl->nwrites == 3 && !cl->has_reply && R.plan.hdr.proc == RPCRDMA_MSG, "RDMA_MSG");
	CHECK(cl->writes[0].nsegs == 2 && cl->writes[0].segs[0].length == 1024 &&
		      cl->writes[0].segs[1].length == 476 && cl->writes[1].segs[0].length == 7 &&
		      cl->writes[2].nsegs == 1 && cl->writes[2].segs[0].length == 0,
	      "lengths written: [1024, 476], [7], unused [0]");
	CHECK(cl->writes[0].segs[1].offset == R.req.iova + 1024 &&
		      cl->writes[0].segs[1].handle == R.req.rkey,
	      "segments echoed");
	CHECK(R.plan.nrdma == 3 && R.plan.rdma_bytes == 1507, "3 RDMA Writes, 1507 bytes");
	CHECK(R.plan.rdma[1].laddr == (uint64_t)(uintptr_t)R.item[0].addr + 1024 &&
		      R.plan.rdma[1].raddr == R.req.iova + 1024 && R.plan.rdma[1].len == 476 &&
		      R.plan.rdma[1].chunk == 0 && R.plan.rdma[2].chunk == 1,
	      "Write 2: the rest of item 0 into segment 2");
	CHECK(fab_rdma(R.plan.rdma, R.plan.nrdma, false) == 0, "the fabric performs the Writes");
	req = R.req.addr;
	CHECK(memcmp(req, R.item[0].addr, 1500) == 0 && memcmp(req + 2048, R.item[1].addr, 7) == 0,
	      "the requester's buffers hold the items");
	CHECK(req[2048 + 7] == 0, "no pad written (4.4.6.2)");
	n = fab_send(R.plan.sge, R.plan.nsge, R.wire, sizeof(R.wire));
	CHECK(n == (int)R.plan.send_len && memcmp(R.wire + HDR3, R.send.addr, 32) == 0,
	      "Send: header and the reduced reply");

	/* An item longer than its write chunk: ERR_CHUNK. */
	rpcrdma_xdr_enc_init(&R.xdr, &R.send);
	words(1);
	item(0, 2049);
	CHECK(reply() == -EMSGSIZE && R.plan.form == RPCRDMA_MARSHAL_ERR_CHUNK && R.plan.nrdma == 0,
	      "2049 bytes into a 2048-byte write chunk");
	check_reply_wire("err_chunk");
	CHECK(R.plan.hdr.proc == RPCRDMA_ERROR && R.plan.hdr.error.code == RPCRDMA_ERR_CHUNK &&
		      R.plan.hdr_len == 20 && R.plan.nsge == 1 && R.plan.send_len == 20 &&
		      !R.plan.send_inv,
	      "RDMA_ERROR ERR_CHUNK, 20 bytes");
	rpcrdma_xdr_enc_init(&R.xdr, &R.send);
	words(1);
	item(0, 2048);
	CHECK(reply() == 0 && R.plan.hdr.chunks.writes[0].segs[1].length == 1024,
	      "2048 bytes fill the chunk exactly");

	/* More items than write chunks: the fourth stays inline, with its pad. */
	rpcrdma_xdr_enc_init(&R.xdr, &R.send);
	item(0, 10);
	item(1, 10);
	item(2, 10);
	item(0, 5);
	CHECK(reply() == 0 && R.plan.nrdma == 3, "3 items into 3 chunks");
	n = fab_send(R.plan.sge, R.plan.nsge, R.wire, sizeof(R.wire));
	CHECK(n == (int)(HDR3 + 16 + 8) && memcmp(R.wire + HDR3 + 16, R.item[0].addr, 5) == 0 &&
		      memcmp(R.wire + HDR3 + 21, "\0\0\0", 3) == 0,
	      "item 4 gathered inline with 3 pad bytes");
	R.conn.pad.addr = NULL;
	CHECK(reply() == -EINVAL, "no pad buffer for it");
	R.conn.pad = R.pad;
	R.args.hdr_buf.len = HDR3 - 1;
	CHECK(reply() == -ENOSPC, "header buffer too small");
	reply_fini();
}

/* Inline, reply chunk, ERR_CHUNK at their boundaries. */
static void check_reply_forms(void)
{
	const struct rpcrdma_chunk_lists *cl = &R.plan.hdr.chunks;
	unsigned int i;
	uint8_t *req;

	reply_init(true);
	words(100); /* 400 bytes; no DDP items: every write chunk unused */
	for (i = 0; i < 3; i++) {
		R.conn.send_inline = HDR3 + 400 - 1 + i;
		CHECK(reply() == 0, "reply");
		check_reply_wire("reply forms");
		if (i == 0) {
			CHECK(R.plan.form == RPCRDMA_MARSHAL_LONG &&
				      R.plan.hdr.proc == RPCRDMA_NOMSG && cl->has_reply,
			      "one byte short: Long Reply");
			continue;
		}
		CHECK(R.plan.form == RPCRDMA_MARSHAL_SHORT && R.plan.nrdma == 0 && !cl->has_reply,
		      "%u: Short", R.conn.send_inline);
	}
	R.conn.send_inline = HDR3 + 399;
	reply();
	/* The reply chunk present: 1 - 2 - HLOO HLOO instead of 0. */
	CHECK(R.plan.hdr_len == HDR3 + 36 && R.plan.send_len == R.plan.hdr_len && R.plan.nsge == 1,
	      "Long: the Send is the header (%u)", R.plan.hdr_len);
	CHECK(cl->reply.nsegs == 2 && cl->reply.segs[0].length == 400 &&
		      cl->reply.segs[1].length == 0 && cl->writes[0].segs[0].length == 0,
	      "reply chunk reports 400 bytes written");
	CHECK(fab_rdma(R.plan.rdma, R.plan.nrdma, false) == 0, "Writes");
	req = R.req.addr;
	CHECK(memcmp(req + 4096, R.send.addr, 400) == 0, "the reply in the reply chunk");

	/* An odd item moved to a write chunk leaves with its pad: 40 + 4 + 40 inline. */
	rpcrdma_xdr_enc_init(&R.xdr, &R.send);
	words(10);
	item(0, 1001);
	words(10);
	for (i = 0; i < 2; i++) {
		R.conn.send_inline = HDR3 + 84 - 1 + i;
		CHECK(reply() == 0 &&
			      R.plan.form == (i ? RPCRDMA_MARSHAL_CHUNKED : RPCRDMA_MARSHAL_LONG),
		      "odd item moved, send_inline %u: form %d", R.conn.send_inline, R.plan.form);
	}
	R.conn.send_inline = HDR3 + 399;

	/* The reply chunk holds 1024 bytes. */
	rpcrdma_xdr_enc_init(&R.xdr, &R.send);
	words(256);
	CHECK(reply() == 0 && R.plan.form == RPCRDMA_MARSHAL_LONG && R.plan.nrdma == 2,
	      "1024 bytes: two Writes, one per segment");
	CHECK(cl->reply.segs[0].length == 512 && cl->reply.segs[1].length == 512, "both full");
	words(1);
	CHECK(reply() == -EMSGSIZE && R.plan.form == RPCRDMA_MARSHAL_ERR_CHUNK,
	      "1028 bytes: ERR_CHUNK");
	C.hdr.chunks.has_reply = false;
	rpcrdma_xdr_enc_init(&R.xdr, &R.send);
	words(100);
	CHECK(reply() == -EMSGSIZE && R.plan.form == RPCRDMA_MARSHAL_ERR_CHUNK,
	      "too long for inline and no reply chunk: ERR_CHUNK");
	R.conn.send_inline = 1024;
	C.hdr.chunks.has_reply = true;
	R.conn.flags = RPCRDMA_MARSHAL_F_REPLY_CHUNK_ALWAYS;
	CHECK(reply() == 0 && R.plan.form == RPCRDMA_MARSHAL_LONG,
	      "REPLY_CHUNK_ALWAYS: the reply chunk though it fits inline");
	R.conn.flags = 0;

	/* The reply stream gathered from many items needs more than max_send_sge entries. */
	C.hdr.chunks.nwrites = 0;
	rpcrdma_xdr_enc_init(&R.xdr, &R.send);
	wseq = 0;
	for (i = 0; i < 8; i++) {
		words(1);
		item(i % 3, 5);
	}
	R.conn.max_send_sge = 8;
	CHECK(reply() == 0 && R.plan.form == RPCRDMA_MARSHAL_LONG,
	      "too many gather entries: the reply chunk");
	CHECK(R.plan.nrdma == 24 && cl->reply.segs[0].length == 128,
	      "24 Writes (8 words, 8 items, 8 pads) into 128 bytes of segment 1");
	memset(R.req.addr, 0xee, 8192);
	CHECK(fab_rdma(R.plan.rdma, R.plan.nrdma, false) == 0, "Writes");
	req = (uint8_t *)R.req.addr + 4096;
	for (i = 0; i < 8; i++)
		CHECK(req[16 * i + 3] == (uint8_t)(0x1000 + i) && req[16 * i + 7] == 5 &&
			      memcmp(req + 16 * i + 8, R.item[i % 3].addr, 5) == 0 &&
			      memcmp(req + 16 * i + 13, "\0\0\0", 3) == 0,
		      "reply chunk: word, length, item %u and its pad, in order", i);
	C.hdr.chunks.has_reply = false;
	CHECK(reply() == -E2BIG, "and without a reply chunk: -E2BIG");
	reply_fini();

	/* Version 2: the reply in the call's version, direction REPLY. */
	reply_init(true);
	C.hdr.vers = RPCRDMA_VERS_2;
	words(4);
	CHECK(reply() == 0 && R.plan.hdr.vers == 2 && cl->direction == RPCRDMA_REPLY,
	      "RDMA2_MSG, REPLY");
	check_reply_wire("v2 reply");
	CHECK(R.st.hdr.chunks.direction == RPCRDMA_REPLY, "decoded direction");
	C.hdr.chunks.has_reply = false;
	C.hdr.chunks.nwrites = 0;
	rpcrdma_xdr_enc_init(&R.xdr, &R.send);
	words(2000);
	CHECK(reply() == -EMSGSIZE && R.plan.hdr.error.code == RPCRDMA2_ERR_BAD_HEADER,
	      "v2: RDMA2_ERR_BAD_HEADER");
	C.hdr.proc = RPCRDMA_ERROR;
	CHECK(reply() == -EINVAL, "replying to an RDMA_ERROR");
	reply_fini();
}

/* Send With Invalidate: allowed by the requester, one rkey for every chunk. */
static void check_swi(void)
{
	reply_init(true);
	words(4);
	CHECK(reply() == 0 && !R.plan.send_inv && R.plan.inv_rkey == 0, "not allowed: no SWI");
	R.conn.flags = RPCRDMA_MARSHAL_F_REMOTE_INV;
	CHECK(reply() == 0 && R.plan.send_inv && R.plan.inv_rkey == R.req.rkey,
	      "one rkey: SWI of it");
	add_read(8, R.req.rkey, R.req.iova, 4);
	CHECK(reply() == 0 && R.plan.send_inv, "read chunks of the same rkey");
	C.reads[0].target.handle ^= 1;
	CHECK(reply() == 0 && !R.plan.send_inv && R.plan.inv_rkey == 0, "a read of another rkey");
	reply_fini();

	reply_init(false);
	R.conn.flags = RPCRDMA_MARSHAL_F_REMOTE_INV;
	words(4);
	CHECK(reply() == 0 && !R.plan.send_inv, "write chunk 3 of another rkey: no SWI");
	C.hdr.chunks.nwrites = 2;
	CHECK(reply() == 0 && R.plan.send_inv, "without it: SWI");
	C.hdr.chunks.nwrites = 0;
	C.hdr.chunks.has_reply = false;
	CHECK(reply() == 0 && !R.plan.send_inv, "no chunks: nothing to invalidate");
	reply_fini();
}

int main(void)
{
	check_map_hostile();
	check_reads_and_reassembly();
	check_reply_write_chunks();
	check_reply_forms();
	check_swi();
	return test_summary("test_marshal_resp");
}

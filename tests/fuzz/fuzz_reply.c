/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: a requester's check of a reply against the chunks its
 * call offered (rpcrdma_marshal_call_reply()), what a client does with
 * every reply before its caller decodes it. The first input byte picks
 * the call's offers (below); the rest is the received reply: the
 * transport header (rpcrdma_hdr_decode()) and its inline payload.
 *
 * The verdict is computed here as well, from rfc5666bis 4.4.6 and 4.5.3
 * as rpcrdma_marshal.h words them: RDMA_MSG or RDMA_NOMSG, no read list,
 * no more write chunks than offered and no reply chunk not offered, each
 * returned chunk with the offered segments (handles, offsets), lengths at
 * most the offered ones and filled in order; RDMA_NOMSG with a reply chunk
 * and no payload. The two verdicts must agree. An accepted reply's stream
 * holds the payload (or the reply chunk's written bytes) and the write
 * chunks at our buffers with their written lengths; every byte of it is
 * read, in buffers sized exactly as offered (ASan sees a byte past them).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rpcrdma_errno.h>
#include <rpcrdma/rpcrdma_hdr.h>
#include <rpcrdma/rpcrdma_marshal.h>
#include <rpcrdma/rpcrdma_xdr.h>

#include "fuzz_common.h"

#define TARGET "fuzz_reply"
#define SEG    4096u /* the connection's max_seg_len: a 5000-byte offer takes two segments */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The offers of the call, by the input's first byte (modulo their number). */
static const struct offer {
	uint32_t ddp[2]; /* write chunk buffers, 0: none */
	uint32_t max_len;
	uint32_t long_len; /* the reply chunk's buffer, 0: none */
} offers[] = {
	{ { 0, 0 }, 200, 0 },	     /* Short reply, no chunk */
	{ { 5000, 0 }, 5200, 0 },    /* a write chunk of two segments */
	{ { 100, 4096 }, 4500, 0 },  /* two write chunks */
	{ { 0, 0 }, 3000, 3000 },    /* a reply chunk */
	{ { 1000, 0 }, 9000, 8000 }, /* a write chunk and a reply chunk */
};

struct call {
	struct rpcrdma_marshal_conn conn;
	struct rpcrdma_marshal_call_args args;
	struct rpcrdma_xdr_reply_spec spec;
	struct rpcrdma_xdr_enc xdr;
	struct rpcrdma_marshal_call_plan plan;
	uint8_t send[1024], hdr[512];
	uint8_t *bufs[3]; /* the write chunks' and the reply chunk's, exactly as offered */
};

/*
 * A registered buffer of @len bytes at a fixed IOVA: the segments the call
 * offers are the same in every run, so that a reply can echo them.
 */
static struct rpcrdma_xdr_region region(uint8_t *p, uint32_t len, uint32_t key)
{
	struct rpcrdma_xdr_region r = rpcrdma_xdr_region_va(p, len, key, key);

	r.iova = (uint64_t)key << 32;
	return r;
}

static uint8_t *buf_alloc(uint32_t len)
{
	uint8_t *p = fuzz_alloc(TARGET, len);

	memset(p, 0x5a, len);
	return p;
}

/* A NULL call with the offers of @o, marshaled. */
static void call_make(struct call *c, const struct offer *o)
{
	struct rpcrdma_xdr_region send = rpcrdma_xdr_region_va(c->send, sizeof(c->send), 0x11, 0);
	uint32_t i;

	memset(c, 0, sizeof(*c));
	rpcrdma_marshal_conn_init(&c->conn);
	c->conn.max_seg_len = SEG;
	rpcrdma_xdr_enc_init(&c->xdr, &send);
	for (i = 0; i < 10; i++)
		if (rpcrdma_xdr_put_u32(&c->xdr, i) != 0)
			fuzz_fail(TARGET, "encoding the call", NULL);
	c->spec.max_len = o->max_len;
	for (i = 0; i < 2 && o->ddp[i]; i++) {
		c->bufs[i] = buf_alloc(o->ddp[i]);
		c->spec.ddp[i] = region(c->bufs[i], o->ddp[i], 0x100 + i);
		c->spec.nddp++;
	}
	if (o->long_len) {
		c->bufs[2] = buf_alloc(o->long_len);
		c->spec.long_buf = region(c->bufs[2], o->long_len, 0x200);
	}
	c->args.xid = 0x11223344;
	c->args.credit = 32;
	c->args.xdr = &c->xdr;
	c->args.reply = &c->spec;
	c->args.hdr_buf = rpcrdma_xdr_region_va(c->hdr, sizeof(c->hdr), 0x12, 0);
	if (rpcrdma_marshal_call(&c->conn, &c->args, &c->plan) != 0)
		fuzz_fail(TARGET, "marshaling the call", NULL);
	if (c->plan.hdr.chunks.nwrites != c->spec.nddp ||
	    c->plan.hdr.chunks.has_reply != (o->long_len != 0))
		fuzz_fail(TARGET, "the call does not offer the chunks asked for", NULL);
}

static void call_free(struct call *c)
{
	for (unsigned int i = 0; i < 3; i++)
		free(c->bufs[i]);
}

/* A returned chunk against the offer: the bytes written, or -1 if it breaks the rules. */
static int64_t written(const struct rpcrdma_write_chunk *got, const struct rpcrdma_write_chunk *off)
{
	uint64_t n = 0;
	bool short_seg = false;

	if (got->nsegs != off->nsegs)
		return -1;
	for (uint32_t j = 0; j < got->nsegs; j++) {
		const struct rpcrdma_segment *g = &got->segs[j], *o = &off->segs[j];

		if (g->handle != o->handle || g->offset != o->offset || g->length > o->length ||
		    (short_seg && g->length != 0))
			return -1;
		short_seg = g->length < o->length;
		n += g->length;
	}
	return (int64_t)n;
}

/* The verdict, computed here: the stream's inline length, or -1 to refuse. */
static int64_t verdict(const struct rpcrdma_hdr *r, const struct rpcrdma_hdr *call, uint32_t len,
		       int64_t *wlen)
{
	const struct rpcrdma_chunk_lists *rc = &r->chunks, *oc = &call->chunks;
	int64_t inline_len = len;

	if (r->proc != RPCRDMA_MSG && r->proc != RPCRDMA_NOMSG)
		return -1;
	if (rc->nreads != 0 || rc->nwrites > oc->nwrites || (rc->has_reply && !oc->has_reply))
		return -1;
	if (r->proc == RPCRDMA_NOMSG) {
		if (!rc->has_reply || len != 0)
			return -1;
		inline_len = written(&rc->reply, &oc->reply);
		if (inline_len < 0)
			return -1;
	}
	for (uint32_t i = 0; i < rc->nwrites; i++) {
		wlen[i] = written(&rc->writes[i], &oc->writes[i]);
		if (wlen[i] < 0)
			return -1;
	}
	return inline_len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpcrdma_hdr_storage st;
	struct rpcrdma_hdr *h = rpcrdma_hdr_storage_init(&st);
	int64_t want, wlen[RPCRDMA_MARSHAL_MAX_WRITES];
	struct rpcrdma_xdr_dec dec;
	struct call c;
	uint32_t len;
	uint8_t *all;
	int ret;

	if (size < 1 || size > UINT32_MAX)
		return 0;
	ret = rpcrdma_hdr_decode(h, data + 1, (uint32_t)(size - 1));
	if (ret < 0)
		return 0;
	call_make(&c, &offers[data[0] % (sizeof(offers) / sizeof(offers[0]))]);
	len = (uint32_t)(size - 1) - h->hdr_len;
	ret = rpcrdma_marshal_call_reply(&c.plan, h, data + 1 + h->hdr_len, len, &dec);
	want = verdict(h, &c.plan.hdr, len, wlen);
	if (ret != 0 && ret != -EINVAL)
		fuzz_check_ret(TARGET, ret);
	if ((ret == 0) != (want >= 0))
		fuzz_fail(TARGET,
			  ret == 0 ? "a reply against the offers accepted"
				   : "a reply within the offers refused",
			  NULL);
	if (ret != 0) {
		call_free(&c);
		return 0;
	}
	if (rpcrdma_xdr_dec_left(&dec) != (uint64_t)want || dec.nwrites != h->chunks.nwrites)
		fuzz_fail(TARGET, "the stream's length or write chunks", NULL);
	/* every byte of the stream and of the written chunks, read */
	all = fuzz_alloc(TARGET, (size_t)want);
	if (want && rpcrdma_xdr_get_slow(&dec, all, (uint32_t)want) != 0)
		fuzz_fail(TARGET, "the stream cannot be read to its end", NULL);
	if (h->proc == RPCRDMA_MSG && want && memcmp(all, data + 1 + h->hdr_len, (size_t)want) != 0)
		fuzz_fail(TARGET, "the stream is not the payload", NULL);
	free(all);
	for (uint32_t i = 0; i < dec.nwrites; i++) {
		uint32_t sum = 0;

		if (dec.writes[i].p != c.bufs[i] || dec.writes[i].len != (uint64_t)wlen[i])
			fuzz_fail(TARGET, "a write chunk not at our buffer, or its length", NULL);
		for (uint32_t j = 0; j < dec.writes[i].len; j++)
			sum += dec.writes[i].p[j];
		if (sum != 0x5au * dec.writes[i].len)
			fuzz_fail(TARGET, "a write chunk's bytes", NULL);
	}
	call_free(&c);
	return 0;
}

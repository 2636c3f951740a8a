/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Our codecs against independent XDR implementations, on seeded random
 * messages:
 *
 *   - RPC-over-RDMA version 1 headers (every proc: RDMA_MSG, RDMA_NOMSG,
 *     RDMA_MSGP, RDMA_DONE, RDMA_ERROR with ERR_VERS and ERR_CHUNK; random
 *     read lists, write lists and reply chunks within the default decode
 *     capacity) against the code rpcgen generates from
 *     tests/xdr/rpcrdma_v1.x (RFC 5666 section 4.3);
 *   - ONC RPC call headers (AUTH_NONE, AUTH_SYS, opaque flavors) and reply
 *     headers (every accept_stat and reject_stat) against libtirpc's
 *     xdr_callmsg, xdr_replymsg and xdr_authunix_parms.
 *
 * For each message, in both directions: what one side encodes, the other
 * decodes field for field and consumes exactly the same number of bytes,
 * with arbitrary RPC payload after the header; both encodings are the same
 * bytes; and both sides reject the same message cut short.
 *
 * Usage: test_rpcgen [iterations [seed]]. The seed is printed on failure.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpc/rpc.h>
#include <rpc/rpc_msg.h>
#include <rpc/auth_unix.h>

#include <rpcrdma/rpcrdma_hdr.h>
#include <rpcrdma/rpcrdma_rpc.h>

#include "rpcrdma_v1.h"

#define DEFAULT_ITERATIONS 20000
#define MAX_FAILURES	   10

/* Room for the largest header of default capacity and a payload after it. */
#define BUF_LEN	     8192
#define MAX_TRAILING 64

#define MAX_SEGS ((RPCRDMA_HDR_DEFAULT_WRITES + 1) * RPCRDMA_HDR_DEFAULT_CHUNK_SEGS)

static uint64_t seed;
static unsigned long iteration;
static unsigned int failures;

/* How often each kind of message was drawn; each must be at least once. */
enum {
	COV_PROC = 0,		     /* v1 rdma_proc: 5 */
	COV_ERR = COV_PROC + 5,	     /* ERR_VERS, ERR_CHUNK */
	COV_FULL = COV_ERR + 2,	     /* a full read list, write list, chunk */
	COV_CRED = COV_FULL + 3,     /* AUTH_NONE, AUTH_SYS, an opaque flavor */
	COV_ACCEPT = COV_CRED + 3,   /* accept_stat: 6 */
	COV_REJECT = COV_ACCEPT + 6, /* RPC_MISMATCH, AUTH_ERROR */
	COV_N = COV_REJECT + 2,
};
static const char *const cov_name[COV_N] = {
	"RDMA_MSG",	 "RDMA_NOMSG",	 "RDMA_MSGP",	 "RDMA_DONE",  "RDMA_ERROR",
	"ERR_VERS",	 "ERR_CHUNK",	 "16 reads",	 "8 writes",   "16-segment chunk",
	"AUTH_NONE",	 "AUTH_SYS",	 "opaque cred",	 "SUCCESS",    "PROG_UNAVAIL",
	"PROG_MISMATCH", "PROC_UNAVAIL", "GARBAGE_ARGS", "SYSTEM_ERR", "RPC_MISMATCH",
	"AUTH_ERROR",
};
static unsigned long cov[COV_N];

#define CHECK(cond, ...)                                   \
	do {                                               \
		if (!(cond)) {                             \
			fail(__LINE__, #cond);             \
			fprintf(stderr, "  " __VA_ARGS__); \
			fprintf(stderr, "\n");             \
			return -1;                         \
		}                                          \
	} while (0)

static void fail(int line, const char *cond)
{
	failures++;
	fprintf(stderr, "FAIL line %d: %s (seed %" PRIu64 ", iteration %lu)\n", line, cond, seed,
		iteration);
}

/* ---------------------------------------------------------------- random */

static uint64_t rng;

/* splitmix64: small, seedable, good enough for test cases. */
static uint64_t rnd64(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rnd32(void)
{
	return (uint32_t)(rnd64() >> 32);
}

/* Uniform in [0, n). */
static uint32_t rnd_below(uint32_t n)
{
	return (uint32_t)(((uint64_t)rnd32() * n) >> 32);
}

/* A count in [0, max], mostly small, sometimes up to the bound. */
static uint32_t rnd_count(uint32_t max)
{
	if (rnd_below(4) == 0)
		return rnd_below(max + 1);
	return rnd_below(max < 2 ? max + 1 : 3);
}

static void rnd_bytes(uint8_t *p, size_t n)
{
	while (n--)
		*p++ = (uint8_t)rnd32();
}

/* ---------------------------------------------------------------- v1 model */

/* A header to encode, with the storage its lists point into. */
struct v1_model {
	struct rpcrdma_hdr hdr;
	struct rpcrdma_read_segment reads[RPCRDMA_HDR_DEFAULT_READS];
	struct rpcrdma_write_chunk writes[RPCRDMA_HDR_DEFAULT_WRITES];
	struct rpcrdma_segment segs[MAX_SEGS];
};

static void gen_segment(struct rpcrdma_segment *s)
{
	s->handle = rnd32();
	s->length = rnd32();
	s->offset = rnd64();
}

static void gen_chunk_lists(struct v1_model *m)
{
	struct rpcrdma_chunk_lists *cl = &m->hdr.chunks;
	uint32_t i, j, used = 0;

	cl->nreads = (uint16_t)rnd_count(RPCRDMA_HDR_DEFAULT_READS);
	cl->reads = m->reads;
	cov[COV_FULL] += cl->nreads == RPCRDMA_HDR_DEFAULT_READS;
	for (i = 0; i < cl->nreads; i++) {
		m->reads[i].position = rnd32() & ~3u;
		gen_segment(&m->reads[i].target);
	}
	cl->nwrites = (uint16_t)rnd_count(RPCRDMA_HDR_DEFAULT_WRITES);
	cl->writes = m->writes;
	cov[COV_FULL + 1] += cl->nwrites == RPCRDMA_HDR_DEFAULT_WRITES;
	for (i = 0; i < cl->nwrites; i++) {
		m->writes[i].nsegs = rnd_count(RPCRDMA_HDR_DEFAULT_CHUNK_SEGS);
		m->writes[i].segs = &m->segs[used];
		cov[COV_FULL + 2] += m->writes[i].nsegs == RPCRDMA_HDR_DEFAULT_CHUNK_SEGS;
		for (j = 0; j < m->writes[i].nsegs; j++)
			gen_segment(&m->segs[used++]);
	}
	cl->has_reply = rnd_below(2);
	if (cl->has_reply) {
		cl->reply.nsegs = rnd_count(RPCRDMA_HDR_DEFAULT_CHUNK_SEGS);
		cl->reply.segs = &m->segs[used];
		for (j = 0; j < cl->reply.nsegs; j++)
			gen_segment(&m->segs[used++]);
	}
}

static void gen_v1(struct v1_model *m)
{
	struct rpcrdma_hdr *h = &m->hdr;

	memset(h, 0, sizeof(*h));
	h->xid = rnd32();
	h->vers = RPCRDMA_VERS_1;
	h->credit = rnd_below(2) ? rnd_below(256) : rnd32();
	h->proc = rnd_below(RPCRDMA_ERROR + 1);
	cov[COV_PROC + h->proc]++;
	switch (h->proc) {
	case RPCRDMA_MSGP:
		h->chunks.align = rnd32();
		h->chunks.thresh = rnd32();
		/* fall through */
	case RPCRDMA_MSG:
	case RPCRDMA_NOMSG:
		gen_chunk_lists(m);
		break;
	case RPCRDMA_DONE:
		break;
	case RPCRDMA_ERROR:
		h->error.code = rnd_below(2) ? RPCRDMA_ERR_VERS : RPCRDMA_ERR_CHUNK;
		cov[COV_ERR + h->error.code - 1]++;
		if (h->error.code == RPCRDMA_ERR_VERS) {
			h->error.low = rnd32();
			h->error.high = rnd32();
		}
		break;
	}
}

/* ---------------------------------------------------------------- v1: model vs rpcgen */

static int check_segment(const xdr_rdma_segment *g, const struct rpcrdma_segment *w)
{
	CHECK(g->handle == w->handle, "handle 0x%x, want 0x%x", g->handle, w->handle);
	CHECK(g->length == w->length, "length %u, want %u", g->length, w->length);
	CHECK(g->offset == w->offset, "offset 0x%llx, want 0x%llx", (unsigned long long)g->offset,
	      (unsigned long long)w->offset);
	return 0;
}

static int check_write_chunk(const xdr_write_chunk *g, const struct rpcrdma_write_chunk *w)
{
	uint32_t i;

	CHECK(g->target.target_len == w->nsegs, "chunk of %u segments, want %u",
	      g->target.target_len, w->nsegs);
	for (i = 0; i < w->nsegs; i++)
		if (check_segment(&g->target.target_val[i], &w->segs[i]))
			return -1;
	return 0;
}

/* The three lists as rpcgen decoded them against the model's chunk lists. */
static int check_rpcgen_lists(const xdr_read_list *rl, const xdr_write_list *wl,
			      const xdr_write_chunk *reply, const struct rpcrdma_chunk_lists *cl)
{
	uint32_t n;

	for (n = 0; rl; rl = rl->next, n++) {
		CHECK(n < cl->nreads, "more than %u read list entries", cl->nreads);
		CHECK(rl->entry.position == cl->reads[n].position, "read %u position %u, want %u",
		      n, rl->entry.position, cl->reads[n].position);
		if (check_segment(&rl->entry.target, &cl->reads[n].target))
			return -1;
	}
	CHECK(n == cl->nreads, "%u read list entries, want %u", n, cl->nreads);
	for (n = 0; wl; wl = wl->next, n++) {
		CHECK(n < cl->nwrites, "more than %u write chunks", cl->nwrites);
		if (check_write_chunk(&wl->entry, &cl->writes[n]))
			return -1;
	}
	CHECK(n == cl->nwrites, "%u write chunks, want %u", n, cl->nwrites);
	CHECK(!!reply == cl->has_reply, "reply chunk %s, want %s", reply ? "present" : "absent",
	      cl->has_reply ? "present" : "absent");
	if (reply && check_write_chunk(reply, &cl->reply))
		return -1;
	return 0;
}

static int check_rpcgen_v1(const rdma_msg *g, const struct rpcrdma_hdr *w)
{
	const rdma_body *b = &g->rdma_body;

	CHECK(g->rdma_xid == w->xid, "xid 0x%x, want 0x%x", g->rdma_xid, w->xid);
	CHECK(g->rdma_vers == w->vers, "vers %u, want %u", g->rdma_vers, w->vers);
	CHECK(g->rdma_credit == w->credit, "credit %u, want %u", g->rdma_credit, w->credit);
	CHECK((uint32_t)b->proc == w->proc, "proc %d, want %u", (int)b->proc, w->proc);
	switch (b->proc) {
	case RDMA_MSG:
		return check_rpcgen_lists(b->rdma_body_u.rdma_msg.rdma_reads,
					  b->rdma_body_u.rdma_msg.rdma_writes,
					  b->rdma_body_u.rdma_msg.rdma_reply, &w->chunks);
	case RDMA_NOMSG:
		return check_rpcgen_lists(b->rdma_body_u.rdma_nomsg.rdma_reads,
					  b->rdma_body_u.rdma_nomsg.rdma_writes,
					  b->rdma_body_u.rdma_nomsg.rdma_reply, &w->chunks);
	case RDMA_MSGP:
		CHECK(b->rdma_body_u.rdma_msgp.rdma_align == w->chunks.align, "align %u, want %u",
		      b->rdma_body_u.rdma_msgp.rdma_align, w->chunks.align);
		CHECK(b->rdma_body_u.rdma_msgp.rdma_thresh == w->chunks.thresh,
		      "thresh %u, want %u", b->rdma_body_u.rdma_msgp.rdma_thresh, w->chunks.thresh);
		return check_rpcgen_lists(b->rdma_body_u.rdma_msgp.rdma_reads,
					  b->rdma_body_u.rdma_msgp.rdma_writes,
					  b->rdma_body_u.rdma_msgp.rdma_reply, &w->chunks);
	case RDMA_DONE:
		return 0;
	case RDMA_ERROR: {
		const rpc_rdma_error *e = &b->rdma_body_u.rdma_error;

		CHECK((uint32_t)e->err == w->error.code, "rdma_err %d, want %u", (int)e->err,
		      w->error.code);
		if (e->err == ERR_VERS) {
			CHECK(e->rpc_rdma_error_u.rdma_vers.rdma_vers_low == w->error.low,
			      "low %u, want %u", e->rpc_rdma_error_u.rdma_vers.rdma_vers_low,
			      w->error.low);
			CHECK(e->rpc_rdma_error_u.rdma_vers.rdma_vers_high == w->error.high,
			      "high %u, want %u", e->rpc_rdma_error_u.rdma_vers.rdma_vers_high,
			      w->error.high);
		}
		return 0;
	}
	}
	CHECK(0, "proc %d", (int)b->proc);
}

/* The model as rpcgen's structures, in caller storage (no allocation). */
struct v1_rpcgen {
	rdma_msg msg;
	xdr_read_list reads[RPCRDMA_HDR_DEFAULT_READS];
	xdr_write_list writes[RPCRDMA_HDR_DEFAULT_WRITES];
	xdr_write_chunk reply;
	xdr_rdma_segment segs[MAX_SEGS];
};

static void to_rpcgen_chunk(xdr_write_chunk *g, const struct rpcrdma_write_chunk *w,
			    xdr_rdma_segment *segs)
{
	uint32_t i;

	for (i = 0; i < w->nsegs; i++) {
		segs[i].handle = w->segs[i].handle;
		segs[i].length = w->segs[i].length;
		segs[i].offset = w->segs[i].offset;
	}
	g->target.target_len = w->nsegs;
	g->target.target_val = segs;
}

static void to_rpcgen_lists(struct v1_rpcgen *s, const struct rpcrdma_chunk_lists *cl,
			    xdr_read_list **rl, xdr_write_list **wl, xdr_write_chunk **reply)
{
	uint32_t i, used = 0;

	*rl = NULL;
	for (i = cl->nreads; i-- > 0;) {
		s->reads[i].entry.position = cl->reads[i].position;
		s->reads[i].entry.target.handle = cl->reads[i].target.handle;
		s->reads[i].entry.target.length = cl->reads[i].target.length;
		s->reads[i].entry.target.offset = cl->reads[i].target.offset;
		s->reads[i].next = *rl;
		*rl = &s->reads[i];
	}
	for (i = 0; i < cl->nwrites; i++) {
		to_rpcgen_chunk(&s->writes[i].entry, &cl->writes[i], &s->segs[used]);
		used += cl->writes[i].nsegs;
		s->writes[i].next = i + 1 < cl->nwrites ? &s->writes[i + 1] : NULL;
	}
	*wl = cl->nwrites ? &s->writes[0] : NULL;
	*reply = NULL;
	if (cl->has_reply) {
		to_rpcgen_chunk(&s->reply, &cl->reply, &s->segs[used]);
		*reply = &s->reply;
	}
}

static void to_rpcgen_v1(struct v1_rpcgen *s, const struct rpcrdma_hdr *h)
{
	rdma_body *b = &s->msg.rdma_body;

	memset(&s->msg, 0, sizeof(s->msg));
	s->msg.rdma_xid = h->xid;
	s->msg.rdma_vers = h->vers;
	s->msg.rdma_credit = h->credit;
	b->proc = (rdma_proc)h->proc;
	switch (h->proc) {
	case RPCRDMA_MSG:
		to_rpcgen_lists(s, &h->chunks, &b->rdma_body_u.rdma_msg.rdma_reads,
				&b->rdma_body_u.rdma_msg.rdma_writes,
				&b->rdma_body_u.rdma_msg.rdma_reply);
		break;
	case RPCRDMA_NOMSG:
		to_rpcgen_lists(s, &h->chunks, &b->rdma_body_u.rdma_nomsg.rdma_reads,
				&b->rdma_body_u.rdma_nomsg.rdma_writes,
				&b->rdma_body_u.rdma_nomsg.rdma_reply);
		break;
	case RPCRDMA_MSGP:
		b->rdma_body_u.rdma_msgp.rdma_align = h->chunks.align;
		b->rdma_body_u.rdma_msgp.rdma_thresh = h->chunks.thresh;
		to_rpcgen_lists(s, &h->chunks, &b->rdma_body_u.rdma_msgp.rdma_reads,
				&b->rdma_body_u.rdma_msgp.rdma_writes,
				&b->rdma_body_u.rdma_msgp.rdma_reply);
		break;
	case RPCRDMA_ERROR:
		b->rdma_body_u.rdma_error.err = (rpc_rdma_errcode)h->error.code;
		b->rdma_body_u.rdma_error.rpc_rdma_error_u.rdma_vers.rdma_vers_low = h->error.low;
		b->rdma_body_u.rdma_error.rpc_rdma_error_u.rdma_vers.rdma_vers_high = h->error.high;
		break;
	default:
		break;
	}
}

/* ---------------------------------------------------------------- v1: ours vs model */

static int check_our_segment(const struct rpcrdma_segment *g, const struct rpcrdma_segment *w)
{
	CHECK(g->handle == w->handle && g->length == w->length && g->offset == w->offset,
	      "segment 0x%x:%u@0x%llx, want 0x%x:%u@0x%llx", g->handle, g->length,
	      (unsigned long long)g->offset, w->handle, w->length, (unsigned long long)w->offset);
	return 0;
}

static int check_our_chunk(const struct rpcrdma_write_chunk *g, const struct rpcrdma_write_chunk *w)
{
	uint32_t i;

	CHECK(g->nsegs == w->nsegs, "chunk of %u segments, want %u", g->nsegs, w->nsegs);
	for (i = 0; i < w->nsegs; i++)
		if (check_our_segment(&g->segs[i], &w->segs[i]))
			return -1;
	return 0;
}

static int check_our_v1(const struct rpcrdma_hdr *g, const struct rpcrdma_hdr *w)
{
	const struct rpcrdma_chunk_lists *gc = &g->chunks, *wc = &w->chunks;
	uint32_t i;

	CHECK(g->xid == w->xid, "xid 0x%x, want 0x%x", g->xid, w->xid);
	CHECK(g->vers == w->vers, "vers %u, want %u", g->vers, w->vers);
	CHECK(g->credit == w->credit, "credit %u, want %u", g->credit, w->credit);
	CHECK(g->proc == w->proc, "proc %u, want %u", g->proc, w->proc);
	switch (w->proc) {
	case RPCRDMA_MSG:
	case RPCRDMA_NOMSG:
	case RPCRDMA_MSGP:
		CHECK(gc->align == wc->align && gc->thresh == wc->thresh,
		      "align %u thresh %u, want %u %u", gc->align, gc->thresh, wc->align,
		      wc->thresh);
		CHECK(gc->nreads == wc->nreads, "%u reads, want %u", gc->nreads, wc->nreads);
		for (i = 0; i < wc->nreads; i++) {
			CHECK(gc->reads[i].position == wc->reads[i].position,
			      "read %u position %u, want %u", i, gc->reads[i].position,
			      wc->reads[i].position);
			if (check_our_segment(&gc->reads[i].target, &wc->reads[i].target))
				return -1;
		}
		CHECK(gc->nwrites == wc->nwrites, "%u writes, want %u", gc->nwrites, wc->nwrites);
		for (i = 0; i < wc->nwrites; i++)
			if (check_our_chunk(&gc->writes[i], &wc->writes[i]))
				return -1;
		CHECK(gc->has_reply == wc->has_reply, "has_reply %d, want %d", gc->has_reply,
		      wc->has_reply);
		if (wc->has_reply && check_our_chunk(&gc->reply, &wc->reply))
			return -1;
		break;
	case RPCRDMA_ERROR:
		CHECK(g->error.code == w->error.code, "rdma_err %u, want %u", g->error.code,
		      w->error.code);
		CHECK(g->error.low == w->error.low && g->error.high == w->error.high,
		      "low %u high %u, want %u %u", g->error.low, g->error.high, w->error.low,
		      w->error.high);
		break;
	default:
		break;
	}
	return 0;
}

/* ---------------------------------------------------------------- v1: one case */

static void dump(const char *what, const uint8_t *p, uint32_t n)
{
	uint32_t i;

	fprintf(stderr, "  %s (%u bytes):", what, n);
	for (i = 0; i < n && i < 256; i++)
		fprintf(stderr, "%s%02x", i % 4 ? "" : " ", p[i]);
	fprintf(stderr, "%s\n", n > 256 ? " ..." : "");
}

static int v1_case(void)
{
	static struct v1_model m;
	static struct v1_rpcgen s;
	static struct rpcrdma_hdr_storage st;
	static uint8_t ours[BUF_LEN], theirs[BUF_LEN];
	struct rpcrdma_hdr *h;
	rdma_msg g;
	char line[512];
	uint32_t trailing, cut;
	int n, ret;
	u_int pos;
	XDR x;
	bool_t ok;

	gen_v1(&m);
	rpcrdma_hdr_format(&m.hdr, line, sizeof(line));

	/* Ours encodes; rpcgen decodes, with an RPC payload after the header. */
	n = rpcrdma_hdr_encode(&m.hdr, ours, BUF_LEN);
	CHECK(n > 0 && n == rpcrdma_hdr_encoded_len(&m.hdr), "encode: %d; %s", n, line);
	trailing = rnd_below(MAX_TRAILING / 4 + 1) * 4;
	rnd_bytes(ours + n, trailing);
	memset(&g, 0, sizeof(g));
	xdrmem_create(&x, (char *)ours, (u_int)n + trailing, XDR_DECODE);
	ok = xdr_rdma_msg(&x, &g);
	pos = xdr_getpos(&x);
	xdr_destroy(&x);
	ret = ok && pos == (u_int)n ? check_rpcgen_v1(&g, &m.hdr) : -1;
	xdr_free((xdrproc_t)xdr_rdma_msg, (char *)&g);
	CHECK(!ret, "rpcgen decode of ours: ok %d, %u bytes, want %d; %s", ok, pos, n, line);

	/* rpcgen encodes the same header: the same bytes; ours decodes them. */
	to_rpcgen_v1(&s, &m.hdr);
	xdrmem_create(&x, (char *)theirs, BUF_LEN, XDR_ENCODE);
	ok = xdr_rdma_msg(&x, &s.msg);
	CHECK(ok && xdr_getpos(&x) == (u_int)n, "rpcgen encode: ok %d, %u bytes, want %d; %s", ok,
	      xdr_getpos(&x), n, line);
	xdr_destroy(&x);
	if (memcmp(ours, theirs, (size_t)n)) {
		dump("ours", ours, (uint32_t)n);
		dump("rpcgen", theirs, (uint32_t)n);
		CHECK(0, "encodings differ; %s", line);
	}
	memcpy(theirs + n, ours + n, trailing);
	h = rpcrdma_hdr_storage_init(&st);
	ret = rpcrdma_hdr_decode(h, theirs, (uint32_t)n + trailing);
	CHECK(ret == n && h->hdr_len == (uint32_t)n, "decode of rpcgen's: %d, want %d; %s", ret, n,
	      line);
	if (check_our_v1(h, &m.hdr)) {
		fprintf(stderr, "  %s\n", line);
		return -1;
	}

	/* Cut short: both reject it. */
	cut = rnd_below((uint32_t)n);
	h = rpcrdma_hdr_storage_init(&st);
	ret = rpcrdma_hdr_decode(h, theirs, cut);
	CHECK(ret == -RPCRDMA_E_TRUNC, "decode of %u of %d bytes: %d; %s", cut, n, ret, line);
	memset(&g, 0, sizeof(g));
	xdrmem_create(&x, (char *)theirs, cut, XDR_DECODE);
	ok = xdr_rdma_msg(&x, &g);
	xdr_destroy(&x);
	xdr_free((xdrproc_t)xdr_rdma_msg, (char *)&g);
	CHECK(!ok, "rpcgen accepted %u of %d bytes; %s", cut, n, line);
	return 0;
}

/* ---------------------------------------------------------------- ONC RPC model */

/* A message to encode, with the storage its pointers refer to. */
struct rpc_model {
	struct rpcrdma_rpc_msg msg;
	uint8_t cred[RPCRDMA_RPC_AUTH_MAX];
	uint8_t verf[RPCRDMA_RPC_AUTH_MAX];
	char name[RPCRDMA_RPC_MACHNAME_MAX + 1];
	/* AUTH_SYS: the credential as libtirpc encodes it. */
	uint8_t tirpc_cred[RPCRDMA_RPC_AUTH_MAX];
	uint32_t tirpc_cred_len;
};

/* An auth of a random flavor other than AUTH_SYS, with a random body. */
static void gen_opaque_auth(struct rpcrdma_rpc_auth *a, uint8_t *body)
{
	static const uint32_t flavors[] = { RPCRDMA_RPC_AUTH_NONE, RPCRDMA_RPC_AUTH_SHORT,
					    RPCRDMA_RPC_AUTH_DH, RPCRDMA_RPC_RPCSEC_GSS, 390003 };

	a->flavor = flavors[rnd_below(5)];
	a->len = a->flavor == RPCRDMA_RPC_AUTH_NONE && rnd_below(2)
			 ? 0
			 : rnd_count(RPCRDMA_RPC_AUTH_MAX);
	rnd_bytes(body, a->len);
	a->body = body;
}

/* AUTH_SYS: encoded by ours into m->cred and by libtirpc into m->tirpc_cred. */
static int gen_authsys(struct rpc_model *m)
{
	struct rpcrdma_rpc_authsys *sys = &m->msg.call.sys;
	struct authunix_parms p;
	gid_t gids[RPCRDMA_RPC_AUTHSYS_NGIDS];
	uint32_t i;
	int n;
	XDR x;

	sys->stamp = rnd32();
	sys->machinename_len = rnd_count(RPCRDMA_RPC_MACHNAME_MAX);
	/* xdr_string stops at a NUL: printable names only. */
	for (i = 0; i < sys->machinename_len; i++)
		m->name[i] = (char)(' ' + rnd_below(95));
	m->name[i] = '\0';
	sys->machinename = m->name;
	sys->uid = rnd32();
	sys->gid = rnd32();
	sys->ngids = rnd_count(RPCRDMA_RPC_AUTHSYS_NGIDS);
	for (i = 0; i < sys->ngids; i++)
		sys->gids[i] = gids[i] = rnd32();

	n = rpcrdma_rpc_authsys_encode(sys, m->cred, sizeof(m->cred));
	CHECK(n > 0, "authsys encode: %d", n);
	m->msg.call.cred.flavor = RPCRDMA_RPC_AUTH_SYS;
	m->msg.call.cred.len = (uint32_t)n;
	m->msg.call.cred.body = m->cred;

	p.aup_time = sys->stamp;
	p.aup_machname = m->name;
	p.aup_uid = sys->uid;
	p.aup_gid = sys->gid;
	p.aup_len = sys->ngids;
	p.aup_gids = gids;
	xdrmem_create(&x, (char *)m->tirpc_cred, sizeof(m->tirpc_cred), XDR_ENCODE);
	CHECK(xdr_authunix_parms(&x, &p), "xdr_authunix_parms encode");
	m->tirpc_cred_len = xdr_getpos(&x);
	xdr_destroy(&x);
	CHECK(m->tirpc_cred_len == (uint32_t)n && !memcmp(m->tirpc_cred, m->cred, (size_t)n),
	      "AUTH_SYS bodies differ: libtirpc %u bytes, ours %d", m->tirpc_cred_len, n);
	return 0;
}

static int gen_rpc(struct rpc_model *m)
{
	struct rpcrdma_rpc_msg *msg = &m->msg;
	uint32_t i;

	memset(msg, 0, sizeof(*msg));
	msg->xid = rnd32();
	msg->type = rnd_below(2);
	if (msg->type == RPCRDMA_RPC_CALL) {
		msg->call.rpcvers = RPCRDMA_RPC_VERS;
		msg->call.prog = rnd_below(2) ? 100003 : rnd32();
		msg->call.vers = rnd_below(8);
		msg->call.proc = rnd_below(2) ? 0 : rnd32();
		i = rnd_below(3);
		cov[COV_CRED + i]++;
		switch (i) {
		case 0:
			msg->call.cred.flavor = RPCRDMA_RPC_AUTH_NONE;
			break;
		case 1:
			if (gen_authsys(m))
				return -1;
			break;
		default:
			gen_opaque_auth(&msg->call.cred, m->cred);
			if (msg->call.cred.flavor == RPCRDMA_RPC_AUTH_SYS)
				msg->call.cred.flavor = RPCRDMA_RPC_AUTH_NONE;
			break;
		}
		gen_opaque_auth(&msg->call.verf, m->verf);
		return 0;
	}
	msg->reply.stat = rnd_below(2);
	if (msg->reply.stat == RPCRDMA_RPC_MSG_ACCEPTED) {
		gen_opaque_auth(&msg->reply.verf, m->verf);
		msg->reply.accept_stat = rnd_below(RPCRDMA_RPC_SYSTEM_ERR + 1);
		cov[COV_ACCEPT + msg->reply.accept_stat]++;
		if (msg->reply.accept_stat == RPCRDMA_RPC_PROG_MISMATCH) {
			msg->reply.low = rnd32();
			msg->reply.high = rnd32();
		}
		return 0;
	}
	msg->reply.reject_stat = rnd_below(2);
	cov[COV_REJECT + msg->reply.reject_stat]++;
	if (msg->reply.reject_stat == RPCRDMA_RPC_RPC_MISMATCH) {
		msg->reply.low = rnd32();
		msg->reply.high = rnd32();
	} else {
		msg->reply.auth_stat = rnd_below(16);
	}
	return 0;
}

/* ---------------------------------------------------------------- ONC RPC: libtirpc vs model */

/* Caller storage for the auth bodies libtirpc decodes, so it allocates nothing. */
struct tirpc_msg {
	struct rpc_msg msg;
	char cred[MAX_AUTH_BYTES];
	char verf[MAX_AUTH_BYTES];
};

/* The results of a SUCCESS reply: none; the header is all there is. */
static bool_t no_results(XDR *xdrs, ...)
{
	return TRUE;
}

static void tirpc_decode_init(struct tirpc_msg *t)
{
	memset(&t->msg, 0, sizeof(t->msg));
	t->msg.rm_call.cb_cred.oa_base = t->cred;
	t->msg.rm_call.cb_verf.oa_base = t->verf;
}

static void tirpc_reply_init(struct tirpc_msg *t)
{
	memset(&t->msg, 0, sizeof(t->msg));
	t->msg.acpted_rply.ar_verf.oa_base = t->verf;
	t->msg.acpted_rply.ar_results.where = NULL;
	t->msg.acpted_rply.ar_results.proc = no_results;
}

static int check_tirpc_auth(const struct opaque_auth *g, const struct rpcrdma_rpc_auth *w,
			    const char *what)
{
	CHECK((uint32_t)g->oa_flavor == w->flavor, "%s flavor %d, want %u", what, g->oa_flavor,
	      w->flavor);
	CHECK(g->oa_length == w->len, "%s length %u, want %u", what, g->oa_length, w->len);
	CHECK(!w->len || !memcmp(g->oa_base, w->body, w->len), "%s body differs", what);
	return 0;
}

/* libtirpc's decoding of the AUTH_SYS body against the model. */
static int check_tirpc_authsys(const struct opaque_auth *cred, const struct rpcrdma_rpc_authsys *w)
{
	struct authunix_parms p;
	uint32_t i;
	int ret = -1;
	XDR x;

	memset(&p, 0, sizeof(p));
	xdrmem_create(&x, cred->oa_base, cred->oa_length, XDR_DECODE);
	if (!xdr_authunix_parms(&x, &p)) {
		fail(__LINE__, "xdr_authunix_parms(&x, &p)");
		goto out;
	}
	if (xdr_getpos(&x) != cred->oa_length || p.aup_time != w->stamp ||
	    strlen(p.aup_machname) != w->machinename_len ||
	    memcmp(p.aup_machname, w->machinename, w->machinename_len) || p.aup_uid != w->uid ||
	    p.aup_gid != w->gid || p.aup_len != w->ngids) {
		fail(__LINE__, "AUTH_SYS fields");
		goto out;
	}
	for (i = 0; i < w->ngids; i++) {
		if (p.aup_gids[i] != w->gids[i]) {
			fail(__LINE__, "p.aup_gids[i] == w->gids[i]");
			goto out;
		}
	}
	ret = 0;
out:
	xdr_destroy(&x);
	xdr_free((xdrproc_t)xdr_authunix_parms, (char *)&p);
	return ret;
}

static int check_tirpc_msg(const struct rpc_msg *g, const struct rpcrdma_rpc_msg *w)
{
	CHECK(g->rm_xid == w->xid, "xid 0x%x, want 0x%x", g->rm_xid, w->xid);
	CHECK((uint32_t)g->rm_direction == w->type, "direction %d, want %u", g->rm_direction,
	      w->type);
	if (w->type == RPCRDMA_RPC_CALL) {
		const struct call_body *c = &g->rm_call;

		CHECK(c->cb_rpcvers == w->call.rpcvers && c->cb_prog == w->call.prog &&
			      c->cb_vers == w->call.vers && c->cb_proc == w->call.proc,
		      "call %u %u %u %u, want %u %u %u %u", c->cb_rpcvers, c->cb_prog, c->cb_vers,
		      c->cb_proc, w->call.rpcvers, w->call.prog, w->call.vers, w->call.proc);
		if (check_tirpc_auth(&c->cb_cred, &w->call.cred, "cred") ||
		    check_tirpc_auth(&c->cb_verf, &w->call.verf, "verf"))
			return -1;
		if (w->call.cred.flavor == RPCRDMA_RPC_AUTH_SYS)
			return check_tirpc_authsys(&c->cb_cred, &w->call.sys);
		return 0;
	}
	CHECK((uint32_t)g->rm_reply.rp_stat == w->reply.stat, "reply_stat %d, want %u",
	      g->rm_reply.rp_stat, w->reply.stat);
	if (w->reply.stat == RPCRDMA_RPC_MSG_ACCEPTED) {
		const struct accepted_reply *a = &g->acpted_rply;

		if (check_tirpc_auth(&a->ar_verf, &w->reply.verf, "verf"))
			return -1;
		CHECK((uint32_t)a->ar_stat == w->reply.accept_stat, "accept_stat %d, want %u",
		      a->ar_stat, w->reply.accept_stat);
		if (w->reply.accept_stat == RPCRDMA_RPC_PROG_MISMATCH)
			CHECK(a->ar_vers.low == w->reply.low && a->ar_vers.high == w->reply.high,
			      "low %u high %u, want %u %u", a->ar_vers.low, a->ar_vers.high,
			      w->reply.low, w->reply.high);
		return 0;
	}
	CHECK((uint32_t)g->rjcted_rply.rj_stat == w->reply.reject_stat, "reject_stat %d, want %u",
	      g->rjcted_rply.rj_stat, w->reply.reject_stat);
	if (w->reply.reject_stat == RPCRDMA_RPC_RPC_MISMATCH)
		CHECK(g->rjcted_rply.rj_vers.low == w->reply.low &&
			      g->rjcted_rply.rj_vers.high == w->reply.high,
		      "low %u high %u, want %u %u", g->rjcted_rply.rj_vers.low,
		      g->rjcted_rply.rj_vers.high, w->reply.low, w->reply.high);
	else
		CHECK((uint32_t)g->rjcted_rply.rj_why == w->reply.auth_stat,
		      "auth_stat %d, want %u", g->rjcted_rply.rj_why, w->reply.auth_stat);
	return 0;
}

/* The model as libtirpc's struct rpc_msg; AUTH_SYS uses libtirpc's own body. */
static void to_tirpc(struct rpc_msg *t, const struct rpc_model *m)
{
	const struct rpcrdma_rpc_msg *w = &m->msg;

	memset(t, 0, sizeof(*t));
	t->rm_xid = w->xid;
	t->rm_direction = (enum msg_type)w->type;
	if (w->type == RPCRDMA_RPC_CALL) {
		t->rm_call.cb_rpcvers = w->call.rpcvers;
		t->rm_call.cb_prog = w->call.prog;
		t->rm_call.cb_vers = w->call.vers;
		t->rm_call.cb_proc = w->call.proc;
		t->rm_call.cb_cred.oa_flavor = (enum_t)w->call.cred.flavor;
		t->rm_call.cb_cred.oa_length = w->call.cred.len;
		t->rm_call.cb_cred.oa_base = (caddr_t)w->call.cred.body;
		if (w->call.cred.flavor == RPCRDMA_RPC_AUTH_SYS) {
			t->rm_call.cb_cred.oa_length = m->tirpc_cred_len;
			t->rm_call.cb_cred.oa_base = (caddr_t)m->tirpc_cred;
		}
		t->rm_call.cb_verf.oa_flavor = (enum_t)w->call.verf.flavor;
		t->rm_call.cb_verf.oa_length = w->call.verf.len;
		t->rm_call.cb_verf.oa_base = (caddr_t)w->call.verf.body;
		return;
	}
	t->rm_reply.rp_stat = (enum reply_stat)w->reply.stat;
	if (w->reply.stat == RPCRDMA_RPC_MSG_ACCEPTED) {
		t->acpted_rply.ar_verf.oa_flavor = (enum_t)w->reply.verf.flavor;
		t->acpted_rply.ar_verf.oa_length = w->reply.verf.len;
		t->acpted_rply.ar_verf.oa_base = (caddr_t)w->reply.verf.body;
		t->acpted_rply.ar_stat = (enum accept_stat)w->reply.accept_stat;
		if (w->reply.accept_stat == RPCRDMA_RPC_PROG_MISMATCH) {
			t->acpted_rply.ar_vers.low = w->reply.low;
			t->acpted_rply.ar_vers.high = w->reply.high;
		} else {
			t->acpted_rply.ar_results.where = NULL;
			t->acpted_rply.ar_results.proc = no_results;
		}
		return;
	}
	t->rjcted_rply.rj_stat = (enum reject_stat)w->reply.reject_stat;
	if (w->reply.reject_stat == RPCRDMA_RPC_RPC_MISMATCH) {
		t->rjcted_rply.rj_vers.low = w->reply.low;
		t->rjcted_rply.rj_vers.high = w->reply.high;
	} else {
		t->rjcted_rply.rj_why = (enum auth_stat)w->reply.auth_stat;
	}
}

/* ---------------------------------------------------------------- ONC RPC: ours vs model */

static int check_our_auth(const struct rpcrdma_rpc_auth *g, const struct rpcrdma_rpc_auth *w,
			  const char *what)
{
	CHECK(g->flavor == w->flavor && g->len == w->len, "%s %u/%u, want %u/%u", what, g->flavor,
	      g->len, w->flavor, w->len);
	CHECK(!w->len || !memcmp(g->body, w->body, w->len), "%s body differs", what);
	return 0;
}

static int check_our_rpc(const struct rpcrdma_rpc_msg *g, const struct rpcrdma_rpc_msg *w)
{
	CHECK(g->xid == w->xid && g->type == w->type, "xid 0x%x type %u, want 0x%x %u", g->xid,
	      g->type, w->xid, w->type);
	if (w->type == RPCRDMA_RPC_CALL) {
		const struct rpcrdma_rpc_authsys *gs = &g->call.sys, *ws = &w->call.sys;

		CHECK(g->call.rpcvers == w->call.rpcvers && g->call.prog == w->call.prog &&
			      g->call.vers == w->call.vers && g->call.proc == w->call.proc,
		      "call %u %u %u %u, want %u %u %u %u", g->call.rpcvers, g->call.prog,
		      g->call.vers, g->call.proc, w->call.rpcvers, w->call.prog, w->call.vers,
		      w->call.proc);
		if (check_our_auth(&g->call.cred, &w->call.cred, "cred") ||
		    check_our_auth(&g->call.verf, &w->call.verf, "verf"))
			return -1;
		if (w->call.cred.flavor != RPCRDMA_RPC_AUTH_SYS)
			return 0;
		CHECK(gs->stamp == ws->stamp && gs->uid == ws->uid && gs->gid == ws->gid &&
			      gs->ngids == ws->ngids && gs->machinename_len == ws->machinename_len,
		      "AUTH_SYS stamp %u uid %u gid %u ngids %u name %u bytes", gs->stamp, gs->uid,
		      gs->gid, gs->ngids, gs->machinename_len);
		CHECK(!memcmp(gs->machinename, ws->machinename, ws->machinename_len),
		      "machine name differs");
		CHECK(!memcmp(gs->gids, ws->gids, ws->ngids * sizeof(ws->gids[0])), "gids differ");
		return 0;
	}
	CHECK(g->reply.stat == w->reply.stat, "reply_stat %u, want %u", g->reply.stat,
	      w->reply.stat);
	if (w->reply.stat == RPCRDMA_RPC_MSG_ACCEPTED) {
		if (check_our_auth(&g->reply.verf, &w->reply.verf, "verf"))
			return -1;
		CHECK(g->reply.accept_stat == w->reply.accept_stat, "accept_stat %u, want %u",
		      g->reply.accept_stat, w->reply.accept_stat);
	} else {
		CHECK(g->reply.reject_stat == w->reply.reject_stat, "reject_stat %u, want %u",
		      g->reply.reject_stat, w->reply.reject_stat);
		if (w->reply.reject_stat == RPCRDMA_RPC_AUTH_ERROR)
			CHECK(g->reply.auth_stat == w->reply.auth_stat, "auth_stat %u, want %u",
			      g->reply.auth_stat, w->reply.auth_stat);
	}
	CHECK(g->reply.low == w->reply.low && g->reply.high == w->reply.high,
	      "low %u high %u, want %u %u", g->reply.low, g->reply.high, w->reply.low,
	      w->reply.high);
	return 0;
}

/* ---------------------------------------------------------------- ONC RPC: one case */

static bool_t tirpc_xdr(XDR *x, struct rpc_msg *msg, uint32_t type)
{
	return type == RPCRDMA_RPC_CALL ? xdr_callmsg(x, msg) : xdr_replymsg(x, msg);
}

static int rpc_case(void)
{
	static struct rpc_model m;
	static struct tirpc_msg t;
	static uint8_t ours[BUF_LEN], theirs[BUF_LEN];
	struct rpcrdma_rpc_msg got;
	struct rpc_msg enc;
	char line[512];
	uint32_t trailing, cut;
	int n, ret;
	bool_t ok;
	XDR x;

	if (gen_rpc(&m))
		return -1;
	rpcrdma_rpc_format(&m.msg, line, sizeof(line));

	/*
	 * Ours encodes, into a dirty buffer: the XDR pad bytes after an auth
	 * body must be written as zeros (RFC 4506 4.10). libtirpc decodes.
	 */
	memset(ours, 0xa5, sizeof(ours));
	n = rpcrdma_rpc_encode(&m.msg, ours, BUF_LEN);
	CHECK(n > 0, "encode: %d; %s", n, line);
	trailing = rnd_below(MAX_TRAILING / 4 + 1) * 4;
	rnd_bytes(ours + n, trailing);
	if (m.msg.type == RPCRDMA_RPC_CALL)
		tirpc_decode_init(&t);
	else
		tirpc_reply_init(&t);
	xdrmem_create(&x, (char *)ours, (u_int)n + trailing, XDR_DECODE);
	ok = tirpc_xdr(&x, &t.msg, m.msg.type);
	CHECK(ok && xdr_getpos(&x) == (u_int)n,
	      "libtirpc decode of ours: ok %d pos %u, want %d; %s", ok, xdr_getpos(&x), n, line);
	xdr_destroy(&x);
	if (check_tirpc_msg(&t.msg, &m.msg)) {
		fprintf(stderr, "  %s\n", line);
		return -1;
	}

	/*
	 * libtirpc encodes: the same bytes; ours decodes them. xdr_callmsg
	 * copies auth bodies with XDR_INLINE and leaves the pad bytes as they
	 * were in the buffer (not zeros, as RFC 4506 4.10 wants): give it a
	 * clean one.
	 */
	memset(theirs, 0, sizeof(theirs));
	to_tirpc(&enc, &m);
	xdrmem_create(&x, (char *)theirs, BUF_LEN, XDR_ENCODE);
	ok = tirpc_xdr(&x, &enc, m.msg.type);
	CHECK(ok && xdr_getpos(&x) == (u_int)n, "libtirpc encode: ok %d, %u bytes, want %d; %s", ok,
	      xdr_getpos(&x), n, line);
	xdr_destroy(&x);
	if (memcmp(ours, theirs, (size_t)n)) {
		dump("ours", ours, (uint32_t)n);
		dump("libtirpc", theirs, (uint32_t)n);
		CHECK(0, "encodings differ; %s", line);
	}
	memcpy(theirs + n, ours + n, trailing);
	memset(&got, 0, sizeof(got));
	ret = rpcrdma_rpc_decode(&got, theirs, (uint32_t)n + trailing);
	CHECK(ret == n && got.hdr_len == (uint32_t)n, "decode of libtirpc's: %d, want %d; %s", ret,
	      n, line);
	if (check_our_rpc(&got, &m.msg)) {
		fprintf(stderr, "  %s\n", line);
		return -1;
	}

	/* Cut short: both reject it (ours says where: a word or an opaque body). */
	cut = rnd_below((uint32_t)n);
	ret = rpcrdma_rpc_decode(&got, theirs, cut);
	CHECK(ret == -RPCRDMA_E_TRUNC || ret == -RPCRDMA_E_OPAQUE,
	      "decode of %u of %d bytes: %d; %s", cut, n, ret, line);
	if (m.msg.type == RPCRDMA_RPC_CALL)
		tirpc_decode_init(&t);
	else
		tirpc_reply_init(&t);
	xdrmem_create(&x, (char *)theirs, cut, XDR_DECODE);
	ok = tirpc_xdr(&x, &t.msg, m.msg.type);
	xdr_destroy(&x);
	CHECK(!ok, "libtirpc accepted %u of %d bytes; %s", cut, n, line);
	return 0;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
	unsigned long iterations = DEFAULT_ITERATIONS;
	unsigned int i;

	seed = 0x5266c0de;
	if (argc > 1)
		iterations = strtoul(argv[1], NULL, 0);
	if (argc > 2)
		seed = strtoull(argv[2], NULL, 0);
	rng = seed;

	for (iteration = 0; iteration < iterations && failures < MAX_FAILURES; iteration++) {
		v1_case();
		rpc_case();
	}
	if (failures) {
		fprintf(stderr, "%u failures (seed %" PRIu64 ")\n", failures, seed);
		return 1;
	}

	/* Every case was drawn: a run that skipped one proves nothing about it. */
	for (i = 0; i < COV_N; i++) {
		if (!cov[i]) {
			fprintf(stderr, "FAIL: no %s drawn in %lu iterations (seed %" PRIu64 ")\n",
				cov_name[i], iterations, seed);
			return 1;
		}
	}
	printf("%lu v1 headers and %lu RPC headers agree with rpcgen and libtirpc (seed %" PRIu64
	       ")\n",
	       iterations, iterations, seed);
	return 0;
}

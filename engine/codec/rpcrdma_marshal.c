/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RPC-over-RDMA marshaling: message forms, chunks, gather lists and RDMA
 * operations (rfc5666bis 4.4, 4.5, 5.3).
 *
 * Notation for the XDR stream of a message with DDP-eligible items D1, D2:
 *
 *   inline:  [ A | len1 ][ B | len2 ][ C ]       (the encoding buffer)
 *   stream:  A len1 D1 pad1 B len2 D2 pad2 C     (what the peer decodes)
 *
 * Short sends the stream as gathered pieces; Chunked sends the inline
 * buffer and moves D1, D2 to read chunks at their positions without pad;
 * Long Call sends only the header and lets the responder read the inline
 * buffer as a position-zero chunk and D1, D2 as read chunks.
 */
#include <errno.h>
#include <string.h>

#include <rpcrdma/rpcrdma_marshal.h>

#include "xdr.h"

_Static_assert(sizeof(struct rpcrdma_marshal_sge) == 16, "the layout of struct ibv_sge");
_Static_assert(RPCRDMA_XDR_MAX_DDP <= 32, "the moved-item mask is 32 bits");
_Static_assert(RPCRDMA_MARSHAL_MAX_WRITES <= RPCRDMA_XDR_MAX_DDP,
	       "every write chunk can reach a decoding stream");

/* Gather entries of a reply stream: inline pieces, items and their pads. */
#define MAX_SRC (3 * RPCRDMA_XDR_MAX_DDP + 1)

static inline uint64_t pad4_64(uint32_t n)
{
	return ((uint64_t)n + 3) & ~(uint64_t)3;
}

void rpcrdma_marshal_conn_init(struct rpcrdma_marshal_conn *conn)
{
	memset(conn, 0, sizeof(*conn));
	conn->vers = RPCRDMA_VERS_1;
	conn->backward = false;
	conn->send_inline = RPCRDMA_V1_INLINE_DEFAULT;
	conn->recv_inline = RPCRDMA_V1_INLINE_DEFAULT;
	conn->max_seg_len = 1u << 20;
	conn->max_send_sge = RPCRDMA_MARSHAL_MAX_SGE;
}

static bool conn_valid(const struct rpcrdma_marshal_conn *conn)
{
	return (conn->vers == RPCRDMA_VERS_1 || conn->vers == RPCRDMA_VERS_2) &&
	       conn->max_seg_len > 0 && conn->max_send_sge >= 2 &&
	       conn->max_send_sge <= RPCRDMA_MARSHAL_MAX_SGE;
}

/*
 * RFC 8167 2.5, 2.6: version 1 backward-direction messages carry no
 * chunks; nor do version 2 ones to a peer whose Backward Request Support
 * is BKREQSUP_INLINE (RPCRDMA_MARSHAL_F_INLINE_ONLY).
 */
static bool inline_only(const struct rpcrdma_marshal_conn *conn)
{
	return conn->backward &&
	       (conn->vers == RPCRDMA_VERS_1 || (conn->flags & RPCRDMA_MARSHAL_F_INLINE_ONLY));
}

/* ------------------------------------------------------------ gather lists */

struct sgl {
	struct rpcrdma_marshal_sge *sge;
	unsigned int n;
	unsigned int cap;
	uint64_t bytes;
};

/* Append an entry, merged into the previous one when they are contiguous. */
static int sgl_add(struct sgl *s, uint64_t addr, uint32_t len, uint32_t lkey)
{
	struct rpcrdma_marshal_sge *last = s->n ? &s->sge[s->n - 1] : NULL;

	if (len == 0)
		return 0;
	if (last && last->lkey == lkey && last->addr + last->length == addr &&
	    (uint64_t)last->length + len <= UINT32_MAX) {
		last->length += len;
	} else {
		if (s->n == s->cap)
			return -E2BIG;
		s->sge[s->n].addr = addr;
		s->sge[s->n].length = len;
		s->sge[s->n].lkey = lkey;
		s->n++;
	}
	s->bytes += len;
	return 0;
}

/*
 * The XDR stream as gather entries (rfc5666bis 5.3: a Send may gather the
 * Transport and Payload streams): the inline buffer cut at each item, and
 * the items not in the moved mask with their XDR pad (3.1.4.2) from the
 * connection's zero buffer.
 */
static int sgl_add_stream(struct sgl *s, const struct rpcrdma_xdr_enc *xdr, uint32_t moved,
			  const struct rpcrdma_xdr_region *pad)
{
	uint64_t base = (uint64_t)(uintptr_t)xdr->mem.addr;
	uint32_t off = 0;
	unsigned int k;
	int ret;

	for (k = 0; k < xdr->nddp; k++) {
		const struct rpcrdma_xdr_ddp *d = &xdr->ddp[k];
		uint32_t npad = (uint32_t)pad4_64(d->data.len) - d->data.len;

		ret = sgl_add(s, base + off, d->off - off, xdr->mem.lkey);
		if (ret)
			return ret;
		off = d->off;
		if (moved & (1u << k))
			continue;
		ret = sgl_add(s, (uint64_t)(uintptr_t)d->data.addr, d->data.len, d->data.lkey);
		if (ret)
			return ret;
		if (npad) {
			if (!pad->addr || pad->len < npad)
				return -EINVAL;
			ret = sgl_add(s, (uint64_t)(uintptr_t)pad->addr, npad, pad->lkey);
			if (ret)
				return ret;
		}
	}
	return sgl_add(s, base + off, xdr->len - off, xdr->mem.lkey);
}

/* ------------------------------------------------------------ segments */

/* Split [iova, iova + len) into segments of at most max bytes (rfc5666bis 4.4.3). */
static int chunk_segments(struct rpcrdma_write_chunk *wc, unsigned int cap, uint32_t rkey,
			  uint64_t iova, uint32_t len, uint32_t max)
{
	wc->nsegs = 0;
	do {
		uint32_t n = len < max ? len : max;

		if (wc->nsegs == cap)
			return -E2BIG;
		wc->segs[wc->nsegs].handle = rkey;
		wc->segs[wc->nsegs].length = n;
		wc->segs[wc->nsegs].offset = iova;
		wc->nsegs++;
		iova += n;
		len -= n;
	} while (len);
	return 0;
}

/* Read list entries of one chunk: every segment has the chunk's position (4.4.5). */
static int read_segments(struct rpcrdma_hdr *hdr, unsigned int cap, uint32_t pos, uint32_t rkey,
			 uint64_t iova, uint32_t len, uint32_t max)
{
	struct rpcrdma_chunk_lists *cl = &hdr->chunks;

	while (len) {
		uint32_t n = len < max ? len : max;

		if (cl->nreads == cap)
			return -E2BIG;
		cl->reads[cl->nreads].position = pos;
		cl->reads[cl->nreads].target.handle = rkey;
		cl->reads[cl->nreads].target.length = n;
		cl->reads[cl->nreads].target.offset = iova;
		cl->nreads++;
		iova += n;
		len -= n;
	}
	return 0;
}

static uint64_t chunk_len(const struct rpcrdma_write_chunk *wc)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < wc->nsegs; i++)
		n += wc->segs[i].length;
	return n;
}

/*
 * RDMA Writes of the gathered source into a chunk's segments, filling each
 * segment before the next; each segment's length becomes what was written
 * into it (rfc5666bis 4.4.6). The caller checked that the source fits.
 */
static int scatter(const struct rpcrdma_marshal_sge *src, unsigned int nsrc,
		   struct rpcrdma_write_chunk *wc, uint16_t chunk,
		   struct rpcrdma_marshal_reply_plan *plan)
{
	unsigned int si = 0, j;
	uint32_t soff = 0;

	for (j = 0; j < wc->nsegs; j++) {
		struct rpcrdma_segment *seg = &wc->segs[j];
		uint32_t room = seg->length, done = 0;

		while (room && si < nsrc) {
			uint32_t take = src[si].length - soff;
			struct rpcrdma_marshal_rdma *op;

			if (take > room)
				take = room;
			if (plan->nrdma == RPCRDMA_MARSHAL_MAX_RDMA)
				return -E2BIG;
			op = &plan->rdma[plan->nrdma++];
			op->laddr = src[si].addr + soff;
			op->raddr = seg->offset + done;
			op->len = take;
			op->lkey = src[si].lkey;
			op->rkey = seg->handle;
			op->chunk = chunk;
			op->unused = 0;
			plan->rdma_bytes += take;
			done += take;
			room -= take;
			soff += take;
			if (soff == src[si].length) {
				si++;
				soff = 0;
			}
		}
		seg->length = done;
	}
	return 0;
}

/* Add an rkey to the exposed set, once. */
static void expose(struct rpcrdma_marshal_call_plan *plan, uint32_t rkey)
{
	unsigned int i;

	for (i = 0; i < plan->nexpose; i++)
		if (plan->expose[i] == rkey)
			return;
	plan->expose[plan->nexpose++] = rkey;
}

/* Encode the header into the caller's buffer; sge[0] covers it. */
static int encode_hdr(const struct rpcrdma_hdr *hdr, const struct rpcrdma_xdr_region *buf,
		      struct rpcrdma_marshal_sge *sge, uint32_t *hdr_len)
{
	int len = rpcrdma_hdr_encode(hdr, buf->addr, buf->len);

	if (len < 0)
		return len;
	sge->addr = (uint64_t)(uintptr_t)buf->addr;
	sge->length = (uint32_t)len;
	sge->lkey = buf->lkey;
	*hdr_len = (uint32_t)len;
	return 0;
}

/* ------------------------------------------------------------ requester */

/*
 * The reply side of a call (rfc5666bis 4.4.6, 5.3.2, 5.3.3): one write
 * chunk per DDP-eligible reply buffer, and a reply chunk when the reply
 * header plus the largest reduced reply exceeds our receive buffer.
 */
static int call_reply_chunks(const struct rpcrdma_marshal_conn *conn,
			     const struct rpcrdma_xdr_reply_spec *spec,
			     struct rpcrdma_marshal_call_plan *plan)
{
	struct rpcrdma_chunk_lists *cl = &plan->hdr.chunks;
	uint64_t reduced = spec->max_len;
	unsigned int i;
	int ret, hlen;

	if (spec->nddp > RPCRDMA_XDR_MAX_DDP)
		return -EINVAL;
	if (!inline_only(conn)) {
		if (spec->nddp > RPCRDMA_MARSHAL_MAX_WRITES)
			return -E2BIG;
		for (i = 0; i < spec->nddp; i++) {
			const struct rpcrdma_xdr_region *b = &spec->ddp[i];
			struct rpcrdma_write_chunk *wc = &plan->writes[i];

			/* A DDP result leaves the reply stream with its pad (4.4.6.2). */
			if (pad4_64(b->len) > reduced || !b->addr || !b->len)
				return -EINVAL;
			reduced -= pad4_64(b->len);
			wc->segs = &plan->segs[i * RPCRDMA_MARSHAL_MAX_CHUNK_SEGS];
			ret = chunk_segments(wc, RPCRDMA_MARSHAL_MAX_CHUNK_SEGS, b->rkey, b->iova,
					     b->len, conn->max_seg_len);
			if (ret)
				return ret;
			plan->wbuf[i].p = b->addr;
			plan->wbuf[i].len = b->len;
		}
		cl->nwrites = spec->nddp;
	}

	/* The reply's header: our write list echoed, no read list or reply chunk. */
	hlen = rpcrdma_hdr_encoded_len(&plan->hdr);
	if (hlen < 0)
		return hlen;
	if ((uint64_t)hlen + reduced <= conn->recv_inline)
		return 0;

	/* Long Reply (4.5.3): a reply chunk sized to the largest reduced reply. */
	if (inline_only(conn) || (conn->flags & RPCRDMA_MARSHAL_F_NO_LONG_REPLY))
		return -EMSGSIZE;
	if (!spec->long_buf.addr || spec->long_buf.len < reduced)
		return -ENOBUFS;
	cl->reply.segs = &plan->segs[RPCRDMA_MARSHAL_MAX_WRITES * RPCRDMA_MARSHAL_MAX_CHUNK_SEGS];
	ret = chunk_segments(&cl->reply, RPCRDMA_MARSHAL_MAX_CHUNK_SEGS, spec->long_buf.rkey,
			     spec->long_buf.iova, (uint32_t)reduced, conn->max_seg_len);
	if (ret)
		return ret;
	cl->has_reply = true;
	plan->long_reply = true;
	plan->reply_chunk_len = (uint32_t)reduced;
	plan->reply_buf = spec->long_buf.addr;
	return 0;
}

/* Read chunks for every non-empty DDP-eligible item, at its XDR position (4.4.5). */
static int call_read_chunks(const struct rpcrdma_marshal_conn *conn,
			    const struct rpcrdma_xdr_enc *xdr,
			    struct rpcrdma_marshal_call_plan *plan, uint32_t *moved)
{
	unsigned int k;
	int ret;

	*moved = 0;
	for (k = 0; k < xdr->nddp; k++) {
		const struct rpcrdma_xdr_ddp *d = &xdr->ddp[k];

		if (!d->data.len)
			continue;
		/* Without its pad: the chunk holds data.len bytes (4.4.5.1). */
		ret = read_segments(&plan->hdr, RPCRDMA_MARSHAL_MAX_READS, d->pos, d->data.rkey,
				    d->data.iova, d->data.len, conn->max_seg_len);
		if (ret)
			return ret;
		*moved |= 1u << k;
	}
	return 0;
}

int rpcrdma_marshal_call(const struct rpcrdma_marshal_conn *conn,
			 const struct rpcrdma_marshal_call_args *args,
			 struct rpcrdma_marshal_call_plan *plan)
{
	const struct rpcrdma_xdr_enc *xdr = args->xdr;
	struct rpcrdma_chunk_lists *cl = &plan->hdr.chunks;
	struct sgl s = { .sge = plan->sge, .cap = conn->max_send_sge };
	uint32_t moved = 0;
	unsigned int k, i;
	int hlen, ret;

	if (!conn_valid(conn) || !xdr || !args->reply)
		return -EINVAL;

	rpcrdma_hdr_init(&plan->hdr, plan->reads, RPCRDMA_MARSHAL_MAX_READS, plan->writes,
			 RPCRDMA_MARSHAL_MAX_WRITES, plan->segs, RPCRDMA_MARSHAL_MAX_CHUNK_SEGS);
	plan->hdr.xid = args->xid;
	plan->hdr.vers = conn->vers;
	plan->hdr.credit = args->credit;
	plan->hdr.proc = RPCRDMA_MSG;
	cl->direction = RPCRDMA_CALL;
	cl->reads = plan->reads;
	cl->writes = plan->writes;
	plan->long_reply = false;
	plan->reply_chunk_len = 0;
	plan->reply_buf = NULL;
	plan->nexpose = 0;
	plan->nsge = 0;

	ret = call_reply_chunks(conn, args->reply, plan);
	if (ret)
		return ret;

	/* Short (rfc5666bis 4.5.1): the whole stream in the Send, items gathered. */
	hlen = rpcrdma_hdr_encoded_len(&plan->hdr);
	if (hlen < 0)
		return hlen;
	if ((uint64_t)hlen + xdr->pos <= conn->send_inline) {
		s.n = 1; /* sge[0]: the header */
		s.bytes = (uint32_t)hlen;
		if (sgl_add_stream(&s, xdr, 0, &conn->pad) == 0) {
			plan->form = RPCRDMA_MARSHAL_SHORT;
			goto encode;
		}
		/* Too many gather entries, or no pad buffer: move the items. */
	}
	if (inline_only(conn))
		return -EMSGSIZE;

	/* Chunked (4.5.2): the items in read chunks, the reduced stream inline. */
	ret = call_read_chunks(conn, xdr, plan, &moved);
	if (ret)
		return ret;
	if (moved) {
		hlen = rpcrdma_hdr_encoded_len(&plan->hdr);
		if (hlen < 0)
			return hlen;
		if ((uint64_t)hlen + xdr->len <= conn->send_inline) {
			s.n = 1;
			s.bytes = (uint32_t)hlen;
			/* The reduced stream is contiguous: one entry (two with sge[0]). */
			ret = sgl_add_stream(&s, xdr, moved, &conn->pad);
			if (ret)
				return ret;
			plan->form = RPCRDMA_MARSHAL_CHUNKED;
			goto encode;
		}
	}

	/*
	 * Long Call (4.5.3): RDMA_NOMSG. The reduced stream is the
	 * position-zero read chunk; the items stay in their own read chunks,
	 * which 4.5.3 permits ("DDP-eligible data items MAY be removed from
	 * these special chunks and conveyed via normal chunks").
	 */
	if (conn->flags & RPCRDMA_MARSHAL_F_NO_LONG_CALL)
		return -EMSGSIZE;
	if (xdr->len == 0)
		return -EINVAL;
	cl->nreads = 0;
	ret = read_segments(&plan->hdr, RPCRDMA_MARSHAL_MAX_READS, 0, xdr->mem.rkey, xdr->mem.iova,
			    xdr->len, conn->max_seg_len);
	if (ret)
		return ret;
	ret = call_read_chunks(conn, xdr, plan, &moved);
	if (ret)
		return ret;
	plan->hdr.proc = RPCRDMA_NOMSG;
	hlen = rpcrdma_hdr_encoded_len(&plan->hdr);
	if (hlen < 0)
		return hlen;
	if ((uint32_t)hlen > conn->send_inline)
		return -EMSGSIZE;
	s.n = 1;
	s.bytes = (uint32_t)hlen;
	plan->form = RPCRDMA_MARSHAL_LONG;
	expose(plan, xdr->mem.rkey);

encode:
	ret = encode_hdr(&plan->hdr, &args->hdr_buf, &plan->sge[0], &plan->hdr_len);
	if (ret)
		return ret;
	plan->nsge = (uint16_t)s.n;
	plan->send_len = (uint32_t)s.bytes;
	/* What the responder may touch until the reply (rfc5666bis 5.4.1). */
	for (k = 0; k < xdr->nddp; k++)
		if (moved & (1u << k))
			expose(plan, xdr->ddp[k].data.rkey);
	for (i = 0; i < cl->nwrites; i++)
		expose(plan, cl->writes[i].segs[0].handle);
	if (cl->has_reply)
		expose(plan, cl->reply.segs[0].handle);
	return 0;
}

/*
 * A chunk as the responder returned it, against our offer (rfc5666bis
 * 4.4.6): the same segments, each length at most the offered one, filled
 * in order so that the data is contiguous in our buffer.
 */
static int chunk_written(const struct rpcrdma_write_chunk *got,
			 const struct rpcrdma_write_chunk *offered, uint32_t *written)
{
	uint64_t n = 0;
	bool partial = false;
	uint32_t j;

	if (got->nsegs != offered->nsegs)
		return -RPCRDMA_E_CHUNK_OFFER;
	for (j = 0; j < got->nsegs; j++) {
		const struct rpcrdma_segment *g = &got->segs[j], *o = &offered->segs[j];

		if (g->handle != o->handle || g->offset != o->offset || g->length > o->length)
			return -RPCRDMA_E_CHUNK_OFFER;
		if (partial && g->length)
			return -RPCRDMA_E_CHUNK_OFFER;
		partial = g->length < o->length;
		n += g->length;
	}
	*written = (uint32_t)n; /* at most the offer, a uint32_t */
	return 0;
}

int rpcrdma_marshal_call_reply(const struct rpcrdma_marshal_call_plan *plan,
			       const struct rpcrdma_hdr *rhdr, const void *payload, uint32_t len,
			       struct rpcrdma_xdr_dec *dec)
{
	const struct rpcrdma_chunk_lists *rcl = &rhdr->chunks, *ocl = &plan->hdr.chunks;
	uint32_t n;
	unsigned int i;
	int ret;

	if (rhdr->proc != RPCRDMA_MSG && rhdr->proc != RPCRDMA_NOMSG)
		return -EINVAL;
	if (rcl->nreads || rcl->nwrites > ocl->nwrites || (rcl->has_reply && !ocl->has_reply))
		return -RPCRDMA_E_CHUNK_OFFER;

	if (rhdr->proc == RPCRDMA_NOMSG) {
		/* Long Reply (rfc5666bis 4.5.3): the reply is in our reply chunk. */
		if (!rcl->has_reply || len)
			return -RPCRDMA_E_NOMSG;
		ret = chunk_written(&rcl->reply, &ocl->reply, &n);
		if (ret)
			return ret;
		rpcrdma_xdr_dec_init(dec, plan->reply_buf, n);
	} else {
		rpcrdma_xdr_dec_init(dec, payload, len);
	}
	/* Each write chunk holds the next DDP-eligible result (5.3.2). */
	for (i = 0; i < rcl->nwrites; i++) {
		ret = chunk_written(&rcl->writes[i], &ocl->writes[i], &n);
		if (ret)
			return ret;
		ret = rpcrdma_xdr_dec_add_write(dec, plan->wbuf[i].p, n);
		if (ret)
			return ret;
	}
	return 0;
}

/* ------------------------------------------------------------ responder */

/*
 * Group the read list into chunks: consecutive segments with one position
 * form a chunk (rfc5666bis 4.4.5), and chunk positions increase.
 */
static int group_reads(const struct rpcrdma_chunk_lists *cl, struct rpcrdma_marshal_call_map *map)
{
	struct rpcrdma_marshal_rchunk *ch = NULL;
	uint64_t len = 0;
	unsigned int i;

	for (i = 0; i < cl->nreads; i++) {
		const struct rpcrdma_read_segment *r = &cl->reads[i];

		if (r->position & 3)
			return -RPCRDMA_E_CHUNK_POS;
		if (ch && r->position == ch->pos) {
			ch->nsegs++;
		} else {
			if (ch && r->position < ch->pos)
				return -RPCRDMA_E_CHUNK_POS;
			if (map->nchunks == RPCRDMA_XDR_MAX_CHUNKS)
				return -E2BIG;
			ch = &map->chunks[map->nchunks++];
			ch->pos = r->position;
			ch->seg = (uint16_t)i;
			ch->nsegs = 1;
			ch->dst = (struct rpcrdma_xdr_region){ 0 };
			len = 0;
		}
		len += r->target.length;
		if (len > RPCRDMA_XDR_POS_MAX)
			return -RPCRDMA_E_CHUNK_LEN;
		ch->len = (uint32_t)len;
	}
	return 0;
}

int rpcrdma_marshal_call_map(const struct rpcrdma_hdr *hdr, const void *payload, uint32_t len,
			     uint32_t max_call, struct rpcrdma_marshal_call_map *map)
{
	const struct rpcrdma_chunk_lists *cl = &hdr->chunks;
	uint64_t s, rest, reads = 0;
	unsigned int k, first;
	int ret;

	if (hdr->proc != RPCRDMA_MSG && hdr->proc != RPCRDMA_NOMSG)
		return -EINVAL;
	map->hdr = hdr;
	map->payload = payload;
	map->payload_len = len;
	map->nchunks = 0;
	map->nomsg = hdr->proc == RPCRDMA_NOMSG;
	ret = group_reads(cl, map);
	if (ret)
		return ret;

	if (map->nomsg) {
		/*
		 * A call in RDMA_NOMSG is in a position-zero read chunk and
		 * nothing follows the header (4.5.3); without one there is no
		 * call (5.5.2: "an RDMA_NOMSG message that has no chunk lists").
		 */
		if (!map->nchunks || map->chunks[0].pos != 0 || len)
			return -RPCRDMA_E_NOMSG;
		rest = map->chunks[0].len;
		reads = rest;
		first = 1;
	} else {
		/* Position zero is the XID, never a DDP-eligible item. */
		if (map->nchunks && map->chunks[0].pos == 0)
			return -RPCRDMA_E_NOMSG;
		rest = len;
		first = 0;
	}

	/*
	 * Walk the chunks as the decoding stream will insert them: each
	 * starts in the inline rest (not inside the previous chunk, not past
	 * the inline part and the preceding chunks) and occupies its length
	 * rounded up (4.4.5.1).
	 */
	s = 0;
	for (k = 0; k < map->nchunks; k++) {
		const struct rpcrdma_marshal_rchunk *ch = &map->chunks[k];

		if (ch->len == 0)
			return -RPCRDMA_E_CHUNK_LEN;
		if (k < first)
			continue;
		if (ch->pos < s || ch->pos - s > rest)
			return -RPCRDMA_E_CHUNK_POS;
		rest -= ch->pos - s;
		s = ch->pos + pad4_64(ch->len);
		reads += ch->len;
	}
	s += rest;
	if (s > RPCRDMA_XDR_POS_MAX || (max_call && s > max_call))
		return -RPCRDMA_E_CHUNK_LEN;
	map->total_len = (uint32_t)s;
	map->read_bytes = (uint32_t)reads;
	return map->nchunks;
}

int rpcrdma_marshal_call_reads(const struct rpcrdma_marshal_call_map *map,
			       struct rpcrdma_marshal_rdma *ops, unsigned int max_ops)
{
	const struct rpcrdma_read_segment *reads = map->hdr->chunks.reads;
	unsigned int k, j, n = 0;

	for (k = 0; k < map->nchunks; k++) {
		const struct rpcrdma_marshal_rchunk *ch = &map->chunks[k];

		if (!ch->dst.addr || ch->dst.len < ch->len)
			return -EINVAL;
		for (j = 0; j < ch->nsegs; j++)
			n += reads[ch->seg + j].target.length != 0;
	}
	if (n > max_ops)
		return -ENOSPC;

	n = 0;
	for (k = 0; k < map->nchunks; k++) {
		const struct rpcrdma_marshal_rchunk *ch = &map->chunks[k];
		uint64_t off = 0;

		/* Segments in list order, concatenated (4.4.5). */
		for (j = 0; j < ch->nsegs; j++) {
			const struct rpcrdma_segment *t = &reads[ch->seg + j].target;

			if (!t->length)
				continue;
			ops[n].laddr = (uint64_t)(uintptr_t)ch->dst.addr + off;
			ops[n].raddr = t->offset;
			ops[n].len = t->length;
			ops[n].lkey = ch->dst.lkey;
			ops[n].rkey = t->handle;
			ops[n].chunk = (uint16_t)k;
			ops[n].unused = 0;
			off += t->length;
			n++;
		}
	}
	return (int)n;
}

int rpcrdma_marshal_call_dec(const struct rpcrdma_marshal_call_map *map,
			     struct rpcrdma_xdr_dec *dec)
{
	unsigned int k = 0;
	int ret;

	if (map->nomsg) {
		rpcrdma_xdr_dec_init(dec, map->chunks[0].dst.addr, map->chunks[0].len);
		k = 1;
	} else {
		rpcrdma_xdr_dec_init(dec, map->payload, map->payload_len);
	}
	for (; k < map->nchunks; k++) {
		ret = rpcrdma_xdr_dec_add_chunk(dec, map->chunks[k].pos, map->chunks[k].dst.addr,
						map->chunks[k].len);
		if (ret)
			return ret;
	}
	return 0;
}

static bool same_rkey(uint32_t handle, uint32_t *rkey, bool *seen)
{
	if (*seen && handle != *rkey)
		return false;
	*rkey = handle;
	*seen = true;
	return true;
}

/*
 * Send With Invalidate (RFC 8797; Linux svc_rdma_get_inv_rkey): possible
 * when every segment of the call's chunk lists has the same rkey.
 */
static bool one_rkey(const struct rpcrdma_chunk_lists *cl, uint32_t *rkey)
{
	bool seen = false;
	uint32_t i, j;

	for (i = 0; i < cl->nreads; i++)
		if (!same_rkey(cl->reads[i].target.handle, rkey, &seen))
			return false;
	for (i = 0; i < cl->nwrites; i++)
		for (j = 0; j < cl->writes[i].nsegs; j++)
			if (!same_rkey(cl->writes[i].segs[j].handle, rkey, &seen))
				return false;
	if (cl->has_reply)
		for (j = 0; j < cl->reply.nsegs; j++)
			if (!same_rkey(cl->reply.segs[j].handle, rkey, &seen))
				return false;
	return seen;
}

/* Copy an offered chunk into the plan's storage, to be echoed in the reply. */
static int copy_chunk(struct rpcrdma_write_chunk *dst, struct rpcrdma_segment *segs,
		      const struct rpcrdma_write_chunk *src)
{
	if (src->nsegs > RPCRDMA_MARSHAL_MAX_CHUNK_SEGS)
		return -E2BIG;
	dst->nsegs = src->nsegs;
	dst->segs = segs;
	if (src->nsegs)
		memcpy(segs, src->segs, src->nsegs * sizeof(*segs));
	return 0;
}

/* RDMA_ERROR ERR_CHUNK: no RPC reply is possible (rfc5666bis 5.5.3). */
static int reply_err_chunk(const struct rpcrdma_marshal_reply_args *args,
			   struct rpcrdma_marshal_reply_plan *plan)
{
	int ret;

	plan->form = RPCRDMA_MARSHAL_ERR_CHUNK;
	plan->hdr.proc = RPCRDMA_ERROR;
	/* Version 2 has no ERR_CHUNK; RDMA2_ERR_BAD_HEADER is its nearest (also 2). */
	plan->hdr.error.code =
		plan->hdr.vers == RPCRDMA_VERS_1 ? RPCRDMA_ERR_CHUNK : RPCRDMA2_ERR_BAD_HEADER;
	plan->hdr.error.low = 0;
	plan->hdr.error.high = 0;
	plan->nrdma = 0;
	plan->rdma_bytes = 0;
	plan->send_inv = false;
	plan->inv_rkey = 0;
	ret = encode_hdr(&plan->hdr, &args->hdr_buf, &plan->sge[0], &plan->hdr_len);
	if (ret)
		return ret;
	plan->nsge = 1;
	plan->send_len = plan->hdr_len;
	return -EMSGSIZE;
}

int rpcrdma_marshal_reply(const struct rpcrdma_marshal_conn *conn,
			  const struct rpcrdma_marshal_reply_args *args,
			  struct rpcrdma_marshal_reply_plan *plan)
{
	const struct rpcrdma_hdr *call = args->call;
	const struct rpcrdma_chunk_lists *ccl = &call->chunks;
	const struct rpcrdma_xdr_enc *xdr = args->xdr;
	struct rpcrdma_chunk_lists *cl = &plan->hdr.chunks;
	struct sgl s = { .sge = plan->sge, .cap = conn->max_send_sge };
	uint64_t reduced = xdr->pos;
	uint32_t moved = 0;
	unsigned int i;
	int hlen, ret;

	if (!conn_valid(conn) || (call->proc != RPCRDMA_MSG && call->proc != RPCRDMA_NOMSG))
		return -EINVAL;
	if (ccl->nwrites > RPCRDMA_MARSHAL_MAX_WRITES)
		return -E2BIG;

	rpcrdma_hdr_init(&plan->hdr, NULL, 0, plan->writes, RPCRDMA_MARSHAL_MAX_WRITES, plan->segs,
			 RPCRDMA_MARSHAL_MAX_CHUNK_SEGS);
	/* A responder replies in the version of the call (v2 draft 5). */
	plan->hdr.xid = call->xid;
	plan->hdr.vers = call->vers;
	plan->hdr.credit = args->credit;
	plan->hdr.proc = RPCRDMA_MSG;
	cl->direction = RPCRDMA_REPLY;
	cl->writes = plan->writes;
	plan->nrdma = 0;
	plan->rdma_bytes = 0;
	plan->send_inv = false;
	plan->inv_rkey = 0;

	/*
	 * Write list (4.4.6, 5.3.2): the i-th DDP-eligible item fills the
	 * i-th write chunk, without pad (4.4.6.2); the reply reports the
	 * lengths written, and unused chunks report 0 (4.4.6.1). Items past
	 * the last write chunk stay in the reply stream.
	 */
	for (i = 0; i < ccl->nwrites; i++) {
		struct rpcrdma_write_chunk *wc = &plan->writes[i];

		ret = copy_chunk(wc, &plan->segs[i * RPCRDMA_MARSHAL_MAX_CHUNK_SEGS],
				 &ccl->writes[i]);
		if (ret)
			return ret;
		if (i < xdr->nddp) {
			const struct rpcrdma_xdr_ddp *d = &xdr->ddp[i];
			struct rpcrdma_marshal_sge src = {
				.addr = (uint64_t)(uintptr_t)d->data.addr,
				.length = d->data.len,
				.lkey = d->data.lkey,
			};

			if (d->data.len > chunk_len(wc))
				return reply_err_chunk(args, plan);
			ret = scatter(&src, 1, wc, (uint16_t)i, plan);
			if (ret)
				return ret;
			moved |= 1u << i;
			reduced -= pad4_64(d->data.len);
		} else {
			uint32_t j;

			for (j = 0; j < wc->nsegs; j++)
				wc->segs[j].length = 0;
		}
	}
	cl->nwrites = ccl->nwrites;

	/* Inline: Short, or Chunked when a write chunk carries data (4.5.1, 4.5.2). */
	hlen = rpcrdma_hdr_encoded_len(&plan->hdr);
	if (hlen < 0)
		return hlen;
	if (!((conn->flags & RPCRDMA_MARSHAL_F_REPLY_CHUNK_ALWAYS) && ccl->has_reply) &&
	    (uint64_t)hlen + reduced <= conn->send_inline) {
		s.n = 1;
		s.bytes = (uint32_t)hlen;
		ret = sgl_add_stream(&s, xdr, moved, &conn->pad);
		if (ret == 0) {
			plan->form = moved ? RPCRDMA_MARSHAL_CHUNKED : RPCRDMA_MARSHAL_SHORT;
			goto encode;
		}
		if (ret != -E2BIG || !ccl->has_reply)
			return ret;
	}
	if (!ccl->has_reply)
		return reply_err_chunk(args, plan);

	/*
	 * Long Reply (4.5.3, 5.3.3): the reduced reply in the reply chunk,
	 * RDMA_NOMSG, the reply chunk's lengths set to what was written.
	 */
	{
		struct rpcrdma_marshal_sge src[MAX_SRC];
		struct sgl rs = { .sge = src, .cap = MAX_SRC };

		ret = copy_chunk(
			&cl->reply,
			&plan->segs[RPCRDMA_MARSHAL_MAX_WRITES * RPCRDMA_MARSHAL_MAX_CHUNK_SEGS],
			&ccl->reply);
		if (ret)
			return ret;
		if (reduced > chunk_len(&cl->reply))
			return reply_err_chunk(args, plan);
		ret = sgl_add_stream(&rs, xdr, moved, &conn->pad);
		if (ret)
			return ret;
		ret = scatter(src, rs.n, &cl->reply, RPCRDMA_MARSHAL_REPLY_CHUNK, plan);
		if (ret)
			return ret;
		cl->has_reply = true;
		plan->hdr.proc = RPCRDMA_NOMSG;
		hlen = rpcrdma_hdr_encoded_len(&plan->hdr);
		if (hlen < 0)
			return hlen;
		if ((uint32_t)hlen > conn->send_inline)
			return reply_err_chunk(args, plan);
		s.n = 1;
		s.bytes = (uint32_t)hlen;
		plan->form = RPCRDMA_MARSHAL_LONG;
	}

encode:
	ret = encode_hdr(&plan->hdr, &args->hdr_buf, &plan->sge[0], &plan->hdr_len);
	if (ret)
		return ret;
	plan->nsge = (uint16_t)s.n;
	plan->send_len = (uint32_t)s.bytes;
	if ((conn->flags & RPCRDMA_MARSHAL_F_REMOTE_INV) && one_rkey(ccl, &plan->inv_rkey))
		plan->send_inv = true;
	else
		plan->inv_rkey = 0;
	return 0;
}

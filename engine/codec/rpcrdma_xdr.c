/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * XDR streams for RPC messages over RPC-over-RDMA: an encoding stream that
 * records DDP-eligible items instead of copying them, and a decoding stream
 * over an inline part with chunk data inserted (rfc5666bis 4.4).
 *
 * The decoding stream is a list of pieces in XDR order. Decoding an RDMA_MSG
 * call whose read chunks sit at positions P1 < P2 gives
 *
 *   [inline 0..P1) [chunk 1] [inline ..P2') [chunk 2] [inline rest]
 *
 * where each chunk occupies its length rounded up to 4 (rfc5666bis 4.4.5.1:
 * the requester may omit the pad; the pad bytes then read as zero) and the
 * inline part continues where it was cut. The last piece is always the
 * rest of the inline part (perhaps empty), which the next chunk cuts.
 */
#include <errno.h>
#include <string.h>

#include <rpcrdma/rpcrdma_xdr.h>

#include "xdr.h"

#define MAX_PIECES (2 * RPCRDMA_XDR_MAX_CHUNKS + 1)

/* Round up in 64 bits: the pad of a hostile 0xffffffff must not wrap to 0. */
static inline uint64_t pad4_64(uint32_t n)
{
	return ((uint64_t)n + 3) & ~(uint64_t)3;
}

/* ---------------------------------------------------------- encoding */

void rpcrdma_xdr_enc_init(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_xdr_region *mem)
{
	xdr->mem = *mem;
	xdr->len = 0;
	xdr->pos = 0;
	xdr->nddp = 0;
}

/*
 * opaque<> reduced (rfc5666bis 4.4.4.1): the byte count stays in the
 * Payload stream, the bytes are recorded for a Send gather list or a read
 * chunk. The position advances over the bytes and their pad (3.1.4.2).
 */
int rpcrdma_xdr_put_ddp(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_xdr_region *data)
{
	struct rpcrdma_xdr_ddp *d;

	if (unlikely(xdr->nddp >= RPCRDMA_XDR_MAX_DDP))
		return -E2BIG;
	if (unlikely(!data->addr && data->len))
		return -EINVAL;
	if (unlikely(!rpcrdma_xdr_enc_room(xdr, 4)))
		return -ENOSPC;
	if (unlikely((uint64_t)xdr->pos + 4 + pad4_64(data->len) > RPCRDMA_XDR_POS_MAX))
		return -EMSGSIZE;
	rpcrdma_xdr_put_u32(xdr, data->len);
	d = &xdr->ddp[xdr->nddp++];
	d->pos = xdr->pos;
	d->off = xdr->len;
	d->data = *data;
	xdr->pos += (uint32_t)pad4_64(data->len);
	return 0;
}

/* ---------------------------------------------------------- decoding */

/*
 * Cut the inline rest (the last piece) at pos and insert the chunk there.
 * pos must not lie before the rest starts (inside the previous chunk) nor
 * past its end (beyond the inline part and the preceding chunks).
 */
int rpcrdma_xdr_dec_add_chunk(struct rpcrdma_xdr_dec *dec, uint32_t pos, const void *data,
			      uint32_t len)
{
	struct rpcrdma_xdr_piece *rest = &dec->pieces[dec->npieces - 1];
	uint32_t cut, left;

	if (unlikely(dec->cur || dec->off || dec->wnext))
		return -EBUSY;
	if (unlikely(pos & 3))
		return -RPCRDMA_E_CHUNK_POS;
	if (unlikely(pos < rest->pos || pos - rest->pos > rest->len))
		return -RPCRDMA_E_CHUNK_POS;
	if (unlikely(len == 0 || !data))
		return -RPCRDMA_E_CHUNK_LEN;
	cut = pos - rest->pos;
	left = rest->len - cut;
	if (unlikely((uint64_t)pos + pad4_64(len) + left > RPCRDMA_XDR_POS_MAX))
		return -RPCRDMA_E_CHUNK_LEN;
	if (unlikely(dec->npieces + 2 > MAX_PIECES))
		return -E2BIG;

	dec->pieces[dec->npieces] = (struct rpcrdma_xdr_piece){
		.p = data, .len = len, .span = (uint32_t)pad4_64(len), .pos = pos, .chunk = true
	};
	dec->pieces[dec->npieces + 1] = (struct rpcrdma_xdr_piece){
		.p = rest->p + cut,
		.len = left,
		.span = left,
		.pos = pos + (uint32_t)pad4_64(len),
		.chunk = false,
	};
	rest->len = cut;
	rest->span = cut;
	dec->npieces += 2;
	return 0;
}

int rpcrdma_xdr_dec_add_write(struct rpcrdma_xdr_dec *dec, const void *data, uint32_t len)
{
	if (unlikely(dec->nwrites >= RPCRDMA_XDR_MAX_DDP))
		return -E2BIG;
	dec->writes[dec->nwrites].p = data;
	dec->writes[dec->nwrites].len = len;
	dec->nwrites++;
	return 0;
}

/* A cursor that moves only when a whole item decodes. */
struct cursor {
	uint16_t cur;
	uint32_t off;
};

/* Step over pieces the cursor has used up (and empty ones). */
static inline void skip_used(const struct rpcrdma_xdr_dec *dec, struct cursor *c)
{
	while (c->cur < dec->npieces && c->off >= dec->pieces[c->cur].span) {
		c->cur++;
		c->off = 0;
	}
}

static uint32_t stream_end(const struct rpcrdma_xdr_dec *dec)
{
	const struct rpcrdma_xdr_piece *last = &dec->pieces[dec->npieces - 1];

	return last->pos + last->span;
}

static uint32_t cursor_pos(const struct rpcrdma_xdr_dec *dec, const struct cursor *c)
{
	if (c->cur >= dec->npieces)
		return stream_end(dec);
	return dec->pieces[c->cur].pos + c->off;
}

int rpcrdma_xdr_get_slow(struct rpcrdma_xdr_dec *dec, void *dst, uint32_t n)
{
	struct cursor c = { dec->cur, dec->off };
	uint8_t *out = dst;

	while (n) {
		const struct rpcrdma_xdr_piece *pc;
		uint32_t take, have;

		if (c.cur >= dec->npieces)
			return -RPCRDMA_E_XDR_END;
		pc = &dec->pieces[c.cur];
		if (c.off >= pc->span) {
			c.cur++;
			c.off = 0;
			continue;
		}
		take = pc->span - c.off < n ? pc->span - c.off : n;
		/* Bytes past len and within span are a chunk's missing pad: zeros. */
		have = c.off < pc->len ? pc->len - c.off : 0;
		if (have > take)
			have = take;
		if (have)
			memcpy(out, pc->p + c.off, have);
		memset(out + have, 0, take - have);
		out += take;
		c.off += take;
		n -= take;
	}
	dec->cur = c.cur;
	dec->off = c.off;
	return 0;
}

int rpcrdma_xdr_get_bool(struct rpcrdma_xdr_dec *dec, bool *v)
{
	struct cursor c = { dec->cur, dec->off };
	uint32_t w;
	int ret;

	ret = rpcrdma_xdr_get_u32(dec, &w);
	if (ret)
		return ret;
	if (unlikely(w > 1)) {
		dec->cur = c.cur;
		dec->off = c.off;
		return -RPCRDMA_E_BOOL;
	}
	*v = w;
	return 0;
}

/*
 * The n bytes of an opaque item at the cursor, and its pad. When a read
 * chunk starts here, the item is the chunk (rfc5666bis 4.4.5): its length
 * is n, or n rounded up when the requester sent the pad (4.4.5.1). Else the
 * item must lie in the current piece: an item that runs into the next piece
 * has a chunk inserted inside it.
 */
static int opaque_at(const struct rpcrdma_xdr_dec *dec, struct cursor *c, uint32_t n,
		     const void **data)
{
	const struct rpcrdma_xdr_piece *pc;

	skip_used(dec, c);
	if (n == 0) {
		*data = NULL;
		return 0;
	}
	if (unlikely(c->cur >= dec->npieces))
		return -RPCRDMA_E_OPAQUE;
	pc = &dec->pieces[c->cur];
	if (pc->chunk && c->off == 0) {
		if (unlikely(pc->len != n && pc->len != pad4_64(n)))
			return -RPCRDMA_E_CHUNK_LEN;
		*data = pc->p;
		c->cur++;
		c->off = 0;
		return 0;
	}
	if (unlikely(c->off > pc->len || n > pc->len - c->off || pad4_64(n) > pc->span - c->off)) {
		if (pad4_64(n) > (uint64_t)stream_end(dec) - cursor_pos(dec, c))
			return -RPCRDMA_E_OPAQUE;
		return -RPCRDMA_E_CHUNK_POS;
	}
	*data = pc->p + c->off;
	c->off += (uint32_t)pad4_64(n);
	return 0;
}

int rpcrdma_xdr_get_opaque_fixed(struct rpcrdma_xdr_dec *dec, uint32_t n, const void **data)
{
	struct cursor c = { dec->cur, dec->off };
	int ret;

	ret = opaque_at(dec, &c, n, data);
	if (ret)
		return ret;
	dec->cur = c.cur;
	dec->off = c.off;
	return 0;
}

/* opaque<max>: length word, then the bytes where they landed. */
static int get_opaque(struct rpcrdma_xdr_dec *dec, uint32_t max, const void **data, uint32_t *len,
		      bool ddp)
{
	struct cursor save = { dec->cur, dec->off }, c;
	uint32_t n;
	int ret;

	ret = rpcrdma_xdr_get_u32(dec, &n);
	if (ret)
		return ret;
	c.cur = dec->cur;
	c.off = dec->off;
	dec->cur = save.cur;
	dec->off = save.off;
	if (unlikely(n > max))
		return -RPCRDMA_E_OPAQUE_BOUND;

	if (ddp && dec->wnext < dec->nwrites) {
		/*
		 * A DDP-eligible result with a write chunk left: the chunk
		 * holds the data (rfc5666bis 5.3.2), its length the one the
		 * responder reported. A chunk of length 0 was not used
		 * (4.4.6.1): the data, if any, is inline.
		 */
		const struct rpcrdma_xdr_wchunk *w = &dec->writes[dec->wnext];

		if (w->len == n || w->len == pad4_64(n)) {
			*data = n ? w->p : NULL;
			*len = n;
			dec->wnext++;
			dec->cur = c.cur;
			dec->off = c.off;
			return 0;
		}
		if (unlikely(w->len != 0))
			return -RPCRDMA_E_CHUNK_LEN;
		ret = opaque_at(dec, &c, n, data);
		if (ret)
			return ret;
		dec->wnext++;
	} else {
		ret = opaque_at(dec, &c, n, data);
		if (ret)
			return ret;
	}
	*len = n;
	dec->cur = c.cur;
	dec->off = c.off;
	return 0;
}

int rpcrdma_xdr_get_opaque(struct rpcrdma_xdr_dec *dec, uint32_t max, const void **data,
			   uint32_t *len)
{
	return get_opaque(dec, max, data, len, false);
}

int rpcrdma_xdr_get_ddp(struct rpcrdma_xdr_dec *dec, uint32_t max, const void **data, uint32_t *len)
{
	return get_opaque(dec, max, data, len, true);
}

uint32_t rpcrdma_xdr_dec_pos(const struct rpcrdma_xdr_dec *dec)
{
	struct cursor c = { dec->cur, dec->off };

	return cursor_pos(dec, &c);
}

uint32_t rpcrdma_xdr_dec_left(const struct rpcrdma_xdr_dec *dec)
{
	return stream_end(dec) - rpcrdma_xdr_dec_pos(dec);
}

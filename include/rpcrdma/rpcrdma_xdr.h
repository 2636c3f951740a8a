/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * XDR streams for the RPC messages that RPC-over-RDMA carries (RFC 4506;
 * rfc5666bis 3.1.4 and 4.4).
 *
 * An upper layer builds an RPC message with an encoding stream over its
 * registered send buffer and marks each DDP-eligible data item (rfc5666bis
 * 4.4.2) with rpcrdma_xdr_put_ddp(): the item's length word goes inline,
 * its bytes stay where they are, and the stream records where they belong.
 * The marshaling module (rpcrdma_marshal.h) then decides whether those bytes
 * travel inline (gathered by the Send, no copy) or in a read chunk. For the
 * reply, the caller describes in a struct rpcrdma_xdr_reply_spec the largest
 * reply it can receive and the buffers that DDP-eligible results fill.
 *
 * A decoding stream reads a received message that may have been reassembled
 * from an inline part and chunk data (rfc5666bis 4.4.5, 4.4.6): read chunks
 * inserted at their XDR positions (responder), or write chunks consumed in
 * order by DDP-eligible results (requester). Opaque data is returned as a
 * pointer to where it landed: in the inline part or in the chunk's
 * registered buffer; nothing is copied. A read chunk sent without its XDR
 * padding (4.4.5.1) is padded virtually. Every length is checked against
 * what was received; hostile input yields a negative error and leaves the
 * stream where it was.
 *
 * No locks, no allocation: one lcore owns a stream.
 */
#ifndef RPCRDMA_XDR_H
#define RPCRDMA_XDR_H

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rpcrdma/rpcrdma_errno.h>

#ifdef __cplusplus
extern "C" {
#endif

/** DDP-eligible data items per message (encoding) and write chunks per reply. */
#define RPCRDMA_XDR_MAX_DDP 8

/** Read chunks a decoding stream can insert (the codec's default read capacity). */
#define RPCRDMA_XDR_MAX_CHUNKS 16

/** Largest XDR position a stream reaches: positions are 32-bit and 4-aligned. */
#define RPCRDMA_XDR_POS_MAX 0xfffffffcu

/** Round a length up to the XDR unit of 4 bytes (rfc5666bis 3.1.4.2). */
static inline uint32_t rpcrdma_xdr_pad4(uint32_t n)
{
	return (n + 3u) & ~3u;
}

/**
 * Registered memory: a buffer that an RDMA device may read, write or send.
 * The same description serves the inline send buffer, DDP-eligible data and
 * the buffers a reply fills.
 */
struct rpcrdma_xdr_region {
	void *addr;    /**< local address of the first byte */
	uint64_t iova; /**< the address the peer names it by (rdma_offset of the first byte) */
	uint32_t len;  /**< bytes */
	uint32_t lkey; /**< local key: for Send gather lists and as an RDMA target */
	uint32_t rkey; /**< remote key: for the peer's RDMA Read or Write */
};

/**
 * Describe memory registered at its virtual address (iova == addr), as
 * ibv_reg_mr() registers it.
 */
static inline struct rpcrdma_xdr_region rpcrdma_xdr_region_va(void *addr, uint32_t len,
							      uint32_t lkey, uint32_t rkey)
{
	struct rpcrdma_xdr_region r;

	/* Member by member: the header is also included from C++17. */
	r.addr = addr;
	r.iova = (uint64_t)(uintptr_t)addr;
	r.len = len;
	r.lkey = lkey;
	r.rkey = rkey;
	return r;
}

/* ------------------------------------------------------------ encoding */

/** A DDP-eligible data item recorded by rpcrdma_xdr_put_ddp(). */
struct rpcrdma_xdr_ddp {
	uint32_t pos; /**< XDR position of the data: just past its length word */
	uint32_t off; /**< offset in the inline buffer where the data would start */
	struct rpcrdma_xdr_region data; /**< the item; data.len is its XDR length */
};

/**
 * An encoding stream. The inline part is contiguous in mem; DDP-eligible
 * items are recorded in ddp[] in XDR order. pos counts the whole XDR stream
 * (inline bytes plus each DDP item rounded up), len the inline bytes only.
 */
struct rpcrdma_xdr_enc {
	struct rpcrdma_xdr_region mem; /**< the inline buffer; mem.len is its capacity */
	uint32_t len;		       /**< inline bytes written */
	uint32_t pos;		       /**< XDR position: the length of the full stream so far */
	uint16_t nddp;		       /**< entries of ddp[] */
	struct rpcrdma_xdr_ddp ddp[RPCRDMA_XDR_MAX_DDP];
};

/**
 * Start an encoding stream over a registered buffer.
 *
 * @param xdr
 *   The stream; overwritten.
 * @param mem
 *   The inline send buffer (copied). Its rkey is used only by a Long Call,
 *   which lets the responder read the buffer (rfc5666bis 4.5.3).
 */
void rpcrdma_xdr_enc_init(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_xdr_region *mem);

/* n more inline bytes fit both the buffer and the 32-bit XDR position. */
static inline bool rpcrdma_xdr_enc_room(const struct rpcrdma_xdr_enc *xdr, uint32_t n)
{
	return n <= xdr->mem.len - xdr->len && n <= RPCRDMA_XDR_POS_MAX - xdr->pos;
}

/**
 * Reserve n bytes rounded up to a multiple of 4 (as Linux xdr_reserve_space)
 * and zero the pad bytes past n.
 *
 * @return
 *   Where the caller writes the n bytes, or NULL when they do not fit; the
 *   stream is then unchanged.
 */
static inline void *rpcrdma_xdr_reserve(struct rpcrdma_xdr_enc *xdr, uint32_t n)
{
	uint32_t padded = rpcrdma_xdr_pad4(n);
	uint8_t *p;

	if (n > RPCRDMA_XDR_POS_MAX || !rpcrdma_xdr_enc_room(xdr, padded))
		return NULL;
	p = (uint8_t *)xdr->mem.addr + xdr->len;
	memset(p + n, 0, padded - n);
	xdr->len += padded;
	xdr->pos += padded;
	return p;
}

/**
 * Encode an unsigned int (RFC 4506 4.2).
 *
 * @return
 *   0, or -ENOSPC: no room; the stream is unchanged. The same holds for
 *   every rpcrdma_xdr_put_*() function.
 */
static inline int rpcrdma_xdr_put_u32(struct rpcrdma_xdr_enc *xdr, uint32_t v)
{
	if (!rpcrdma_xdr_enc_room(xdr, 4))
		return -ENOSPC;
	v = htobe32(v);
	memcpy((uint8_t *)xdr->mem.addr + xdr->len, &v, 4);
	xdr->len += 4;
	xdr->pos += 4;
	return 0;
}

/** Encode an unsigned hyper (RFC 4506 4.5). */
static inline int rpcrdma_xdr_put_u64(struct rpcrdma_xdr_enc *xdr, uint64_t v)
{
	if (!rpcrdma_xdr_enc_room(xdr, 8))
		return -ENOSPC;
	v = htobe64(v);
	memcpy((uint8_t *)xdr->mem.addr + xdr->len, &v, 8);
	xdr->len += 8;
	xdr->pos += 8;
	return 0;
}

/** Encode a bool (RFC 4506 4.4): 1 or 0. */
static inline int rpcrdma_xdr_put_bool(struct rpcrdma_xdr_enc *xdr, bool v)
{
	return rpcrdma_xdr_put_u32(xdr, v ? 1 : 0);
}

/** Encode fixed-length opaque data, opaque[n] (RFC 4506 4.9): n bytes and the pad. */
static inline int rpcrdma_xdr_put_opaque_fixed(struct rpcrdma_xdr_enc *xdr, const void *data,
					       uint32_t n)
{
	void *p = rpcrdma_xdr_reserve(xdr, n);

	if (!p)
		return -ENOSPC;
	if (n)
		memcpy(p, data, n);
	return 0;
}

/** Encode variable-length opaque data, opaque<> (RFC 4506 4.10): length, bytes, pad. */
static inline int rpcrdma_xdr_put_opaque(struct rpcrdma_xdr_enc *xdr, const void *data, uint32_t n)
{
	uint32_t w = htobe32(n);
	uint8_t *p;

	if (n > RPCRDMA_XDR_POS_MAX - 4)
		return -ENOSPC;
	p = (uint8_t *)rpcrdma_xdr_reserve(xdr, 4 + n);
	if (!p)
		return -ENOSPC;
	memcpy(p, &w, 4);
	if (n)
		memcpy(p + 4, data, n);
	return 0;
}

/** Encode a string<> (RFC 4506 4.11): as opaque<>, n bytes without a NUL. */
static inline int rpcrdma_xdr_put_string(struct rpcrdma_xdr_enc *xdr, const char *s, uint32_t n)
{
	return rpcrdma_xdr_put_opaque(xdr, s, n);
}

/**
 * Add a DDP-eligible opaque<> data item (rfc5666bis 4.4.2) without copying
 * it: the length word data->len is written inline, the item is recorded
 * with its XDR position, and the position advances past the padded data as
 * if it were there.
 *
 * @param data
 *   The item's registered memory (copied into the stream); data->len bytes.
 * @return
 *   0, or (the stream unchanged):
 *   - -ENOSPC: no room for the length word;
 *   - -E2BIG: the message already has RPCRDMA_XDR_MAX_DDP items;
 *   - -EMSGSIZE: the XDR stream would pass RPCRDMA_XDR_POS_MAX bytes;
 *   - -EINVAL: data->addr is NULL and data->len is not 0.
 */
int rpcrdma_xdr_put_ddp(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_xdr_region *data);

/** The XDR position: bytes of the whole stream, DDP-eligible items included. */
static inline uint32_t rpcrdma_xdr_enc_pos(const struct rpcrdma_xdr_enc *xdr)
{
	return xdr->pos;
}

/**
 * What a requester tells the transport about the reply it expects to a call
 * (rfc5666bis 4.4.6, 4.5.3): the largest reply, and where DDP-eligible
 * results go.
 */
struct rpcrdma_xdr_reply_spec {
	/** Largest reply Payload stream, in bytes, DDP-eligible results included. */
	uint32_t max_len;
	/** Entries of ddp[]; each becomes one write chunk. */
	uint16_t nddp;
	/**
	 * A buffer for a Long Reply (the reply chunk), used only when the
	 * largest reply does not fit inline: at least max_len minus the
	 * rounded-up ddp[] lengths. len 0 when the caller has none. (Before
	 * ddp[]: what every call sets is on the struct's first line.)
	 */
	struct rpcrdma_xdr_region long_buf;
	/** Buffers for DDP-eligible results, in XDR order (e.g. the buffer a READ fills). */
	struct rpcrdma_xdr_region ddp[RPCRDMA_XDR_MAX_DDP];
};

/* ------------------------------------------------------------ decoding */

/** A contiguous piece of a reassembled stream. */
struct rpcrdma_xdr_piece {
	const uint8_t *p; /**< its bytes */
	uint32_t len;	  /**< bytes at p */
	uint32_t span;	  /**< bytes it occupies in the stream: len, rounded up for a chunk */
	uint32_t pos;	  /**< XDR position of its first byte */
	bool chunk;	  /**< read chunk data inserted at pos */
};

/** A write chunk of a reply: what the responder wrote, in order. */
struct rpcrdma_xdr_wchunk {
	const uint8_t *p;
	uint32_t len; /**< bytes written (rdma_length summed over the chunk's segments) */
};

/**
 * A decoding stream: the inline part cut at each inserted read chunk, the
 * chunks between the cuts, and the write chunks DDP-eligible results
 * consume. The cursor is (cur, off): off bytes into pieces[cur].
 */
struct rpcrdma_xdr_dec {
	uint16_t npieces; /**< entries of pieces[] */
	uint16_t cur;	  /**< current piece; npieces at the end */
	uint32_t off;	  /**< offset in the current piece */
	uint16_t nwrites; /**< entries of writes[] */
	uint16_t wnext;	  /**< next write chunk to consume */
	struct rpcrdma_xdr_piece pieces[2 * RPCRDMA_XDR_MAX_CHUNKS + 1];
	struct rpcrdma_xdr_wchunk writes[RPCRDMA_XDR_MAX_DDP];
};

/**
 * Start a decoding stream over a message's inline part: the received bytes
 * after the transport header, or the reply chunk or position-zero read
 * chunk of an RDMA_NOMSG message.
 */
static inline void rpcrdma_xdr_dec_init(struct rpcrdma_xdr_dec *dec, const void *base, uint32_t len)
{
	dec->npieces = 1;
	dec->cur = 0;
	dec->off = 0;
	dec->nwrites = 0;
	dec->wnext = 0;
	dec->pieces[0] = (struct rpcrdma_xdr_piece){
		.p = base, .len = len, .span = len, .pos = 0, .chunk = false
	};
}

/**
 * Insert a read chunk's data at its XDR position (rfc5666bis 4.4.5):
 * call once per chunk, in increasing position order, before decoding.
 * The chunk occupies len rounded up to 4 in the stream (4.4.5.1).
 *
 * @return
 *   0, or (the stream unchanged):
 *   - -RPCRDMA_E_CHUNK_POS: pos is not a multiple of 4, lies inside the
 *     previous chunk, or past the inline part and the preceding chunks;
 *   - -RPCRDMA_E_CHUNK_LEN: len is 0, or the stream would pass
 *     RPCRDMA_XDR_POS_MAX;
 *   - -E2BIG: more than RPCRDMA_XDR_MAX_CHUNKS chunks;
 *   - -EBUSY: decoding has started.
 */
int rpcrdma_xdr_dec_add_chunk(struct rpcrdma_xdr_dec *dec, uint32_t pos, const void *data,
			      uint32_t len);

/**
 * Add the next write chunk of a reply (rfc5666bis 4.4.6): the data the
 * responder wrote. Each call to rpcrdma_xdr_get_ddp() consumes one.
 *
 * @return
 *   0, or -E2BIG: more than RPCRDMA_XDR_MAX_DDP write chunks.
 */
int rpcrdma_xdr_dec_add_write(struct rpcrdma_xdr_dec *dec, const void *data, uint32_t len);

/*
 * Out-of-line path of the fixed-size getters: copies n bytes that cross
 * pieces (and a chunk's virtual pad), or fails with the stream unchanged.
 */
int rpcrdma_xdr_get_slow(struct rpcrdma_xdr_dec *dec, void *dst, uint32_t n);

/**
 * Decode an unsigned int.
 *
 * @return
 *   0, or -RPCRDMA_E_XDR_END: the stream ends first; the stream is then
 *   unchanged (so for every getter).
 */
static inline int rpcrdma_xdr_get_u32(struct rpcrdma_xdr_dec *dec, uint32_t *v)
{
	const struct rpcrdma_xdr_piece *pc = &dec->pieces[dec->cur];
	uint32_t w;

	/* Fast path: four bytes present in the current piece. */
	if (__builtin_expect(
		    dec->cur < dec->npieces && dec->off <= pc->len && pc->len - dec->off >= 4, 1)) {
		memcpy(&w, pc->p + dec->off, 4);
		dec->off += 4;
	} else if (rpcrdma_xdr_get_slow(dec, &w, 4)) {
		return -RPCRDMA_E_XDR_END;
	}
	*v = be32toh(w);
	return 0;
}

/** Decode an unsigned hyper. */
static inline int rpcrdma_xdr_get_u64(struct rpcrdma_xdr_dec *dec, uint64_t *v)
{
	const struct rpcrdma_xdr_piece *pc = &dec->pieces[dec->cur];
	uint64_t w;

	if (__builtin_expect(
		    dec->cur < dec->npieces && dec->off <= pc->len && pc->len - dec->off >= 8, 1)) {
		memcpy(&w, pc->p + dec->off, 8);
		dec->off += 8;
	} else if (rpcrdma_xdr_get_slow(dec, &w, 8)) {
		return -RPCRDMA_E_XDR_END;
	}
	*v = be64toh(w);
	return 0;
}

/**
 * Decode a bool.
 *
 * @return
 *   0, -RPCRDMA_E_XDR_END, or -RPCRDMA_E_BOOL: not 0 or 1.
 */
int rpcrdma_xdr_get_bool(struct rpcrdma_xdr_dec *dec, bool *v);

/**
 * Decode fixed-length opaque data, opaque[n]: n bytes and their pad, which
 * must lie in one piece of the stream.
 *
 * @param data
 *   Set to the bytes, in place.
 * @return
 *   0, -RPCRDMA_E_OPAQUE: the stream ends inside the item, or
 *   -RPCRDMA_E_CHUNK_POS: a read chunk was inserted inside it.
 */
int rpcrdma_xdr_get_opaque_fixed(struct rpcrdma_xdr_dec *dec, uint32_t n, const void **data);

/**
 * Decode variable-length opaque data, opaque<max> (or a string<max>).
 * When a read chunk starts where the data does, the data is the chunk's
 * (zero copy), whose length must be the XDR length word or that rounded up
 * (a chunk sent with its pad); otherwise it is in the current piece.
 *
 * @param data, len
 *   Set to the bytes, in place, and their count. data is NULL when len is 0.
 * @return
 *   0, or (the stream unchanged):
 *   - -RPCRDMA_E_XDR_END: the stream ends before the length word;
 *   - -RPCRDMA_E_OPAQUE_BOUND: the length is above max;
 *   - -RPCRDMA_E_OPAQUE: the stream ends inside the data;
 *   - -RPCRDMA_E_CHUNK_LEN: a chunk starts here whose length disagrees;
 *   - -RPCRDMA_E_CHUNK_POS: a chunk starts inside the data.
 */
int rpcrdma_xdr_get_opaque(struct rpcrdma_xdr_dec *dec, uint32_t max, const void **data,
			   uint32_t *len);

/**
 * Decode a DDP-eligible opaque<max>. With write chunks left (a reply),
 * it consumes the next one (rfc5666bis 5.3.2): the data is what the
 * responder wrote there, whose length must equal the XDR length word (or
 * that rounded up); a chunk of length 0 is an unused chunk (4.4.6.1) and
 * the data is then inline. Without write chunks it is
 * rpcrdma_xdr_get_opaque().
 *
 * @return
 *   As rpcrdma_xdr_get_opaque(); -RPCRDMA_E_CHUNK_LEN also when the write
 *   chunk's length disagrees with the length word.
 */
int rpcrdma_xdr_get_ddp(struct rpcrdma_xdr_dec *dec, uint32_t max, const void **data,
			uint32_t *len);

/** The XDR position of the cursor in the reassembled stream. */
uint32_t rpcrdma_xdr_dec_pos(const struct rpcrdma_xdr_dec *dec);

/** Bytes from the cursor to the end of the reassembled stream. */
uint32_t rpcrdma_xdr_dec_left(const struct rpcrdma_xdr_dec *dec);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_XDR_H */

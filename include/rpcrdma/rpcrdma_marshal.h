/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * RPC-over-RDMA message marshaling: the choice of message form and the
 * chunks, gather lists and RDMA operations that carry an RPC message
 * (rfc5666bis 4.4 and 4.5). Pure functions over caller memory: no transport,
 * no allocation, no locks; the engine posts what they plan.
 *
 * Requester (rpcrdma_marshal_call): from an encoding stream (rpcrdma_xdr.h)
 * and the connection's inline thresholds, choose
 *   - Short: RDMA_MSG, everything in the Send; DDP-eligible items are
 *     gathered from their own buffers with their XDR pad (4.5.1);
 *   - Chunked: RDMA_MSG, DDP-eligible items in read chunks at their XDR
 *     positions without their pad (4.4.5, 4.4.5.1, 4.5.2);
 *   - Long Call: RDMA_NOMSG, the (reduced) message in a position-zero read
 *     chunk, DDP-eligible items in their own read chunks (4.5.3);
 * and offer one write chunk per DDP-eligible reply buffer (4.4.6) and a
 * reply chunk when the largest reply does not fit inline (Long Reply).
 * rpcrdma_marshal_call_reply() checks the reply against what was offered
 * and sets up its decoding stream.
 *
 * Responder: rpcrdma_marshal_call_map() validates a call's read list and
 * groups it into chunks; rpcrdma_marshal_call_reads() lists the RDMA Reads
 * that pull them; rpcrdma_marshal_call_dec() reassembles the call with the
 * chunk data left where the Reads put it. rpcrdma_marshal_reply() places
 * the reply: DDP-eligible results into the offered write chunks, the rest
 * inline or into the reply chunk, or an ERR_CHUNK when neither fits.
 *
 * Version, direction and every threshold are per connection
 * (struct rpcrdma_marshal_conn): version 2 and backward-direction calls use
 * the same functions.
 */
#ifndef RPCRDMA_MARSHAL_H
#define RPCRDMA_MARSHAL_H

#include <stdbool.h>
#include <stdint.h>

#include <rpcrdma/rpcrdma_hdr.h>
#include <rpcrdma/rpcrdma_xdr.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Entries of a Send gather list a plan holds; conn.max_send_sge may be lower. */
#define RPCRDMA_MARSHAL_MAX_SGE 16
/** Read segments per call (the codec's default decode capacity). */
#define RPCRDMA_MARSHAL_MAX_READS RPCRDMA_HDR_DEFAULT_READS
/** Write chunks per call. */
#define RPCRDMA_MARSHAL_MAX_WRITES RPCRDMA_HDR_DEFAULT_WRITES
/** Segments per write chunk or reply chunk. */
#define RPCRDMA_MARSHAL_MAX_CHUNK_SEGS RPCRDMA_HDR_DEFAULT_CHUNK_SEGS
/** RDMA Writes a reply plan holds. */
#define RPCRDMA_MARSHAL_MAX_RDMA 64
/** Registrations a call exposes to the responder. */
#define RPCRDMA_MARSHAL_MAX_EXPOSE (2 * RPCRDMA_XDR_MAX_DDP + 2)
/** rpcrdma_marshal_rdma.chunk of a Write into the reply chunk. */
#define RPCRDMA_MARSHAL_REPLY_CHUNK 0xffff

/** One gather entry of a Send; the layout of struct ibv_sge. */
struct rpcrdma_marshal_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

/** One RDMA Read or Write of a single local buffer to or from a peer segment. */
struct rpcrdma_marshal_rdma {
	uint64_t laddr;	 /**< local address */
	uint64_t raddr;	 /**< remote address (within the segment's rdma_offset range) */
	uint32_t len;	 /**< bytes */
	uint32_t lkey;	 /**< local key */
	uint32_t rkey;	 /**< the segment's rdma_handle */
	uint16_t chunk;	 /**< read chunk / write chunk index; RPCRDMA_MARSHAL_REPLY_CHUNK */
	uint16_t unused; /**< zero */
};

/** The form of a message (rfc5666bis 4.5). */
enum rpcrdma_marshal_form {
	/** RDMA_MSG, the whole message in the Send (4.5.1). */
	RPCRDMA_MARSHAL_SHORT,
	/** RDMA_MSG, DDP-eligible items in read or write chunks, the rest inline (4.5.2). */
	RPCRDMA_MARSHAL_CHUNKED,
	/** RDMA_NOMSG: the message in a position-zero read chunk or the reply chunk (4.5.3). */
	RPCRDMA_MARSHAL_LONG,
	/** Reply only: RDMA_ERROR ERR_CHUNK, no RPC reply is possible (5.5.3). */
	RPCRDMA_MARSHAL_ERR_CHUNK,
};

/** Requester: never send a Long Call; such calls fail with -EMSGSIZE. */
#define RPCRDMA_MARSHAL_F_NO_LONG_CALL (1u << 0)
/** Requester: never offer a reply chunk; calls whose reply may not fit fail. */
#define RPCRDMA_MARSHAL_F_NO_LONG_REPLY (1u << 1)
/** Responder: the requester accepts Send With Invalidate (RFC 8797 flag). */
#define RPCRDMA_MARSHAL_F_REMOTE_INV (1u << 2)
/**
 * Responder: use an offered reply chunk even when the reply fits inline, as
 * rfc5666bis-01 5.3.3 and Linux svcrdma do. Without it, an offered reply
 * chunk is used only when the reply does not fit inline (RFC 8166 3.5.3).
 */
#define RPCRDMA_MARSHAL_F_REPLY_CHUNK_ALWAYS (1u << 3)
/**
 * Backward direction in version 2 to a peer whose Backward Request
 * Support is BKREQSUP_INLINE (xcharext 3.3): no chunks, as version 1
 * backward messages always. Without backward it means nothing.
 */
#define RPCRDMA_MARSHAL_F_INLINE_ONLY (1u << 4)

/**
 * What marshaling needs from a connection. Initialise with
 * rpcrdma_marshal_conn_init(); new fields are added at the end.
 */
struct rpcrdma_marshal_conn {
	uint32_t vers; /**< RPCRDMA_VERS_1 or RPCRDMA_VERS_2 */
	bool backward; /**< backward direction (RFC 8167): version 1 sends no chunks */
	uint32_t
		send_inline; /**< the peer's receive buffer: most bytes of a Send, header included */
	uint32_t recv_inline;  /**< our receive buffer: most bytes of a Send we receive */
	uint32_t max_seg_len;  /**< most bytes a segment covers; longer buffers take several */
	uint16_t max_send_sge; /**< gather entries a Send may have, 2..RPCRDMA_MARSHAL_MAX_SGE */
	uint32_t flags;	       /**< RPCRDMA_MARSHAL_F_* */
	/**
	 * At least 3 registered zero bytes (lkey), gathered as the XDR pad of
	 * an odd-length DDP-eligible item sent inline. Without it such an
	 * item always goes in a chunk.
	 */
	struct rpcrdma_xdr_region pad;
};

/**
 * Defaults: version 1, forward direction, 1024-byte inline thresholds both
 * ways (rfc5666bis 4.3.1), 1 MiB segments, RPCRDMA_MARSHAL_MAX_SGE gather
 * entries, no flags, no pad buffer.
 */
void rpcrdma_marshal_conn_init(struct rpcrdma_marshal_conn *conn);

/* ------------------------------------------------------------ requester */

/** A call to marshal. */
struct rpcrdma_marshal_call_args {
	uint32_t xid;				    /**< rdma_xid: the RPC message's XID */
	uint32_t credit;			    /**< rdma_credit: the credits requested */
	const struct rpcrdma_xdr_enc *xdr;	    /**< the call */
	const struct rpcrdma_xdr_reply_spec *reply; /**< what the reply needs */
	struct rpcrdma_xdr_region hdr_buf;	    /**< where the transport header is encoded */
};

/**
 * A marshaled call. hdr points at the plan's own arrays; the transport
 * header is already encoded in args.hdr_buf, and sge[0] covers it. Keep the
 * plan until the reply: rpcrdma_marshal_call_reply() reads it.
 */
struct rpcrdma_marshal_call_plan {
	enum rpcrdma_marshal_form form; /**< SHORT, CHUNKED or LONG */
	bool long_reply;		/**< a reply chunk is offered */
	uint16_t nsge;			/**< entries of sge[] */
	uint16_t nexpose;		/**< entries of expose[] */
	uint32_t hdr_len;		/**< bytes of transport header */
	uint32_t send_len;		/**< bytes of the Send */
	uint32_t reply_chunk_len;	/**< bytes the reply chunk offers; 0 without one */
	/** The Send's gather list: the transport header, then the inline message. */
	struct rpcrdma_marshal_sge sge[RPCRDMA_MARSHAL_MAX_SGE];
	/**
	 * rkeys of the memory the responder may read or write until the reply
	 * (rfc5666bis 5.4.1); invalidate them then, unless the reply came with
	 * Send With Invalidate of that rkey. Each rkey once.
	 */
	uint32_t expose[RPCRDMA_MARSHAL_MAX_EXPOSE];
	/** Where the reply lands: the reply chunk's buffer and each write chunk's. */
	const uint8_t *reply_buf;
	struct rpcrdma_xdr_wchunk wbuf[RPCRDMA_MARSHAL_MAX_WRITES];
	/** The transport header and its storage. */
	struct rpcrdma_hdr hdr;
	struct rpcrdma_read_segment reads[RPCRDMA_MARSHAL_MAX_READS];
	struct rpcrdma_write_chunk writes[RPCRDMA_MARSHAL_MAX_WRITES];
	struct rpcrdma_segment
		segs[(RPCRDMA_MARSHAL_MAX_WRITES + 1) * RPCRDMA_MARSHAL_MAX_CHUNK_SEGS];
};

/**
 * Marshal a call: choose its form and chunks, encode its transport header
 * and build the Send's gather list.
 *
 * The reply side is decided first: one write chunk per args->reply->ddp[]
 * buffer, and a reply chunk over args->reply->long_buf when the reply
 * header plus the largest reply (less the DDP-eligible results) exceeds
 * conn->recv_inline. Then the first form that fits conn->send_inline
 * (header included) and conn->max_send_sge: Short, Chunked, Long Call.
 * A backward-direction call in version 1 can only be Short, without chunks.
 *
 * @return
 *   0 (plan->form says which form), or, the plan being unusable:
 *   - -EINVAL: a bad conn or args (version, max_seg_len 0, max_send_sge
 *     out of range, reply->nddp too large, a reply buffer empty or without
 *     memory, reply->max_len below its rounded-up DDP-eligible buffers, an
 *     empty message for a Long Call);
 *   - -E2BIG: more read segments, write chunks or segments per chunk than
 *     the header holds (RPCRDMA_MARSHAL_MAX_*);
 *   - -ENOBUFS: a reply chunk is needed and reply->long_buf is too small;
 *   - -EMSGSIZE: no permitted form fits (a Long Call or Long Reply is
 *     needed and not allowed, or even the header is too long);
 *   - -ENOSPC: args->hdr_buf is too small for the header.
 */
int rpcrdma_marshal_call(const struct rpcrdma_marshal_conn *conn,
			 const struct rpcrdma_marshal_call_args *args,
			 struct rpcrdma_marshal_call_plan *plan);

/**
 * Check a reply (RDMA_MSG or RDMA_NOMSG) against the chunks its call
 * offered and start its decoding stream: the inline payload or the reply
 * chunk, and the write chunks with the lengths the responder reported.
 *
 * @param plan
 *   The call's plan.
 * @param rhdr
 *   The decoded reply header.
 * @param payload, len
 *   The bytes after the reply's transport header.
 * @param dec
 *   The decoding stream; overwritten. It points into the payload and the
 *   call's reply buffers.
 * @return
 *   0, or:
 *   - -EINVAL: rhdr is not RDMA_MSG or RDMA_NOMSG;
 *   - -RPCRDMA_E_CHUNK_OFFER: a read list; more write chunks than offered;
 *     a chunk whose segment count, handles or offsets changed, whose
 *     lengths exceed the offer, or which is not filled in order; a reply
 *     chunk not offered;
 *   - -RPCRDMA_E_NOMSG: RDMA_NOMSG without a reply chunk, or with a payload.
 */
int rpcrdma_marshal_call_reply(const struct rpcrdma_marshal_call_plan *plan,
			       const struct rpcrdma_hdr *rhdr, const void *payload, uint32_t len,
			       struct rpcrdma_xdr_dec *dec);

/* ------------------------------------------------------------ responder */

/** A read chunk of a received call: consecutive read segments at one position. */
struct rpcrdma_marshal_rchunk {
	uint32_t pos;	/**< XDR position (0: the position-zero chunk) */
	uint32_t len;	/**< bytes: the sum of its segments' lengths */
	uint16_t seg;	/**< its first segment in the header's read list */
	uint16_t nsegs; /**< its segments */
	/** Set by the caller: registered memory of at least len bytes for the data. */
	struct rpcrdma_xdr_region dst;
};

/** A received call's chunks, validated; from rpcrdma_marshal_call_map(). */
struct rpcrdma_marshal_call_map {
	const struct rpcrdma_hdr *hdr; /**< the call's header (its read list) */
	const uint8_t *payload;	       /**< inline bytes after the header */
	uint32_t payload_len;
	uint32_t total_len;  /**< bytes of the reassembled call */
	uint32_t read_bytes; /**< bytes to pull by RDMA Read */
	uint16_t nchunks;
	bool nomsg; /**< RDMA_NOMSG: chunks[0] is the position-zero chunk, the message */
	struct rpcrdma_marshal_rchunk chunks[RPCRDMA_XDR_MAX_CHUNKS];
};

/**
 * Validate a call's read list and group it into chunks (rfc5666bis 4.4.5).
 * Nothing is read from the peer yet: every check is on the header and the
 * inline length. The caller then sets each chunk's dst.
 *
 * @param hdr
 *   The decoded call header; must outlive the map.
 * @param payload, len
 *   The inline bytes after the header.
 * @param max_call
 *   Most bytes of a reassembled call this responder accepts; 0: no limit
 *   but the 32-bit XDR position.
 * @return
 *   The number of chunks, or (each worth ERR_CHUNK, rfc5666bis 5.5.2):
 *   - -RPCRDMA_E_CHUNK_POS: a position not a multiple of 4, not above the
 *     previous chunk's, inside the previous chunk, or past the inline part
 *     and the preceding chunks;
 *   - -RPCRDMA_E_CHUNK_LEN: a chunk of length 0, or a call over max_call;
 *   - -RPCRDMA_E_NOMSG: RDMA_NOMSG without a position-zero read chunk or
 *     with inline bytes; a position-zero chunk in RDMA_MSG;
 *   - -E2BIG: more than RPCRDMA_XDR_MAX_CHUNKS chunks;
 *   - -EINVAL: hdr is not RDMA_MSG or RDMA_NOMSG.
 */
int rpcrdma_marshal_call_map(const struct rpcrdma_hdr *hdr, const void *payload, uint32_t len,
			     uint32_t max_call, struct rpcrdma_marshal_call_map *map);

/**
 * The RDMA Reads that pull a call's chunks: one per segment of non-zero
 * length, each into its chunk's dst after the previous segments' data.
 *
 * @return
 *   The number of Reads written to ops (all or nothing), or:
 *   - -ENOSPC: more than max_ops;
 *   - -EINVAL: a chunk without dst, or with dst.len below its length.
 */
int rpcrdma_marshal_call_reads(const struct rpcrdma_marshal_call_map *map,
			       struct rpcrdma_marshal_rdma *ops, unsigned int max_ops);

/**
 * Start the decoding stream of a call whose chunks have been read: the
 * inline part (or the position-zero chunk) with every other chunk
 * inserted at its position, in place.
 *
 * @return
 *   0, or an error of rpcrdma_xdr_dec_add_chunk() (not for a map that
 *   rpcrdma_marshal_call_map() accepted).
 */
int rpcrdma_marshal_call_dec(const struct rpcrdma_marshal_call_map *map,
			     struct rpcrdma_xdr_dec *dec);

/** A reply to marshal. */
struct rpcrdma_marshal_reply_args {
	const struct rpcrdma_hdr *call;	   /**< the decoded call header: its offered chunks */
	uint32_t credit;		   /**< rdma_credit: the credits granted */
	const struct rpcrdma_xdr_enc *xdr; /**< the reply */
	struct rpcrdma_xdr_region hdr_buf; /**< where the transport header is encoded */
};

/**
 * A marshaled reply: post rdma[] (RDMA Writes) and then the Send, on the
 * same queue pair, so the data is placed before the reply arrives
 * (rfc5666bis 4.5).
 */
struct rpcrdma_marshal_reply_plan {
	enum rpcrdma_marshal_form form; /**< SHORT, CHUNKED, LONG or ERR_CHUNK */
	bool send_inv;			/**< Send With Invalidate of inv_rkey */
	uint32_t inv_rkey;		/**< the one rkey of all the call's chunks */
	uint16_t nsge;			/**< entries of sge[] */
	uint16_t nrdma;			/**< entries of rdma[] */
	uint32_t hdr_len;		/**< bytes of transport header */
	uint32_t send_len;		/**< bytes of the Send */
	uint32_t rdma_bytes;		/**< bytes of the RDMA Writes */
	struct rpcrdma_marshal_sge sge[RPCRDMA_MARSHAL_MAX_SGE];
	struct rpcrdma_marshal_rdma rdma[RPCRDMA_MARSHAL_MAX_RDMA];
	struct rpcrdma_hdr hdr;
	struct rpcrdma_write_chunk writes[RPCRDMA_MARSHAL_MAX_WRITES];
	struct rpcrdma_segment
		segs[(RPCRDMA_MARSHAL_MAX_WRITES + 1) * RPCRDMA_MARSHAL_MAX_CHUNK_SEGS];
};

/**
 * Marshal a reply. DDP-eligible items of args->xdr fill the call's write
 * chunks in order, segment by segment, without pad (rfc5666bis 4.4.6.2);
 * the reply's write list reports the lengths written, 0 for unused chunks
 * (4.4.6.1). Items beyond the write chunks stay in the reply stream. The
 * rest goes inline (Short, or Chunked when a write chunk was used) if it
 * fits conn->send_inline and conn->max_send_sge, else into the reply chunk
 * with RDMA_NOMSG (Long). Send With Invalidate is planned when conn allows
 * it and every segment of the call's chunk lists has the same rkey.
 *
 * @return
 *   0, or:
 *   - -EMSGSIZE: the reply fits neither inline nor an offered reply chunk,
 *     or a DDP-eligible item is longer than its write chunk; the plan then
 *     holds an RDMA_ERROR ERR_CHUNK (RDMA2_ERR_BAD_HEADER in version 2)
 *     with no RDMA Writes, encoded and ready to send (rfc5666bis 5.5.3);
 *   - -E2BIG: more than RPCRDMA_MARSHAL_MAX_RDMA Writes, or write chunks
 *     or segments than the plan holds, or an inline reply over
 *     max_send_sge entries without a reply chunk to fall back on (the
 *     caller may copy the items inline and retry); plan unusable;
 *   - -EINVAL: bad conn, call not RDMA_MSG or RDMA_NOMSG, or an odd-length
 *     item to send without conn->pad; plan unusable;
 *   - -ENOSPC: args->hdr_buf too small; plan unusable.
 */
int rpcrdma_marshal_reply(const struct rpcrdma_marshal_conn *conn,
			  const struct rpcrdma_marshal_reply_args *args,
			  struct rpcrdma_marshal_reply_plan *plan);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_MARSHAL_H */

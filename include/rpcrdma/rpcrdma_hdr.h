/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * RPC-over-RDMA transport header codec, versions 1 and 2.
 *
 * Decodes and encodes the transport header that precedes every RPC message
 * in a Send: version 1 (RFC 5666 section 4.3 as corrected by rfc5666bis:
 * RDMA_MSG, RDMA_NOMSG, RDMA_MSGP, RDMA_DONE, RDMA_ERROR) and version 2
 * (draft-cel-nfsv4-rpcrdma-version-two section 4.2: RDMA2_MSG, RDMA2_NOMSG,
 * RDMA2_ERROR, RDMA2_OPTIONAL).
 *
 * Decoding is zero-copy into a caller-provided struct rpcrdma_hdr of fixed
 * capacity: segment values are converted to host order into the arrays the
 * caller attached with rpcrdma_hdr_init(); opaque data (rdma_optinfo) is
 * referenced in place. The decoder never reads outside [buf, buf + len) and
 * reports where the RPC payload starts (hdr_len). Every way a header can be
 * malformed has its own error number (rpcrdma_errno.h).
 *
 * Encoding writes into a caller buffer after a capacity check.
 *
 * All functions are thread-safe: they touch only their arguments.
 */
#ifndef RPCRDMA_HDR_H
#define RPCRDMA_HDR_H

#include <assert.h>
#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rpcrdma/rpcrdma_errno.h>
#include <rpcrdma/rpcrdma_wire.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Versions this codec knows. */
#define RPCRDMA_VERS_1 1
#define RPCRDMA_VERS_2 2

/** Default inline thresholds (RFC 5666 section 3.3.2; version two draft 2.3). */
#define RPCRDMA_V1_INLINE_DEFAULT 1024
#define RPCRDMA_V2_INLINE_DEFAULT 4096

/** Bytes of the fixed part: rdma_xid, rdma_vers, rdma_credit, rdma_proc. */
#define RPCRDMA_HDR_FIXED_LEN 16

/**
 * rdma_proc values. Version 1 defines 0..4 (RFC 5666 4.3); version 2
 * defines 0, 1, 4 and 5 (version two draft 4.2).
 */
enum rpcrdma_proc {
	RPCRDMA_MSG = 0,      /**< RDMA_MSG / RDMA2_MSG: chunk lists, then an RPC message */
	RPCRDMA_NOMSG = 1,    /**< RDMA_NOMSG / RDMA2_NOMSG: chunk lists, no inline RPC message */
	RPCRDMA_MSGP = 2,     /**< v1 only, no longer sent (rfc5666bis 5.6.1) */
	RPCRDMA_DONE = 3,     /**< v1 only, no longer sent (rfc5666bis 5.6.2) */
	RPCRDMA_ERROR = 4,    /**< RDMA_ERROR / RDMA2_ERROR */
	RPCRDMA_OPTIONAL = 5, /**< v2 only: RDMA2_OPTIONAL */
};

/** Version 1 rdma_err values (RFC 5666 4.3). */
enum rpcrdma_v1_errcode {
	RPCRDMA_ERR_VERS = 1,  /**< rdma_vers_low, rdma_vers_high follow */
	RPCRDMA_ERR_CHUNK = 2, /**< void */
};

/** Version 2 rdma_err values (version two draft 4.2). */
enum rpcrdma_v2_errcode {
	RPCRDMA2_ERR_VERS = 1,	       /**< rdma_vers_low, rdma_vers_high follow */
	RPCRDMA2_ERR_BAD_HEADER = 2,   /**< void */
	RPCRDMA2_ERR_INVAL_OPTION = 3, /**< void */
};

/** msg_type (RFC 5531): the v2 rdma_direction and rdma_optdir fields. */
enum rpcrdma_msg_type {
	RPCRDMA_CALL = 0,
	RPCRDMA_REPLY = 1,
};

/** One RDMA segment (xdr_rdma_segment / rpcrdma2_segment). 16 bytes. */
struct rpcrdma_segment {
	uint32_t handle; /**< rdma_handle: steering tag (rkey) of registered memory */
	uint32_t length; /**< rdma_length in bytes */
	uint64_t offset; /**< rdma_offset: the remote address */
};

/** One entry of a read list (xdr_read_chunk / rpcrdma2_read_segment). */
struct rpcrdma_read_segment {
	uint32_t position; /**< XDR position in the RPC message; a multiple of 4 */
	struct rpcrdma_segment target;
};

/** A write chunk or the reply chunk: a counted array of segments. */
struct rpcrdma_write_chunk {
	uint32_t nsegs;
	/** nsegs segments; decode points this into the header's segment storage. */
	struct rpcrdma_segment *segs;
};

/**
 * The chunk lists of RDMA_MSG, RDMA_NOMSG and RDMA_MSGP (v1) and of
 * RDMA2_MSG and RDMA2_NOMSG (v2).
 */
struct rpcrdma_chunk_lists {
	uint32_t direction; /**< v2 rdma_direction (enum rpcrdma_msg_type); 0 in v1 */
	uint32_t align;	    /**< v1 RDMA_MSGP rdma_align; 0 otherwise */
	uint32_t thresh;    /**< v1 RDMA_MSGP rdma_thresh; 0 otherwise */
	uint16_t nreads;    /**< entries of the read list (segments, not chunks) */
	uint16_t nwrites;   /**< write chunks in the write list */
	bool has_reply;	    /**< a reply chunk is present */
	struct rpcrdma_read_segment *reads;
	struct rpcrdma_write_chunk *writes;
	struct rpcrdma_write_chunk reply; /**< valid when has_reply */
};

/** RDMA_ERROR / RDMA2_ERROR body. */
struct rpcrdma_hdr_error {
	uint32_t code; /**< enum rpcrdma_v1_errcode or enum rpcrdma_v2_errcode */
	uint32_t low;  /**< ERR_VERS: lowest version supported */
	uint32_t high; /**< ERR_VERS: highest version supported */
};

/** RDMA2_OPTIONAL body. */
struct rpcrdma_hdr_optional {
	uint32_t optdir;	/**< rdma_optdir (enum rpcrdma_msg_type) */
	uint32_t opttype;	/**< rdma_opttype (transport characteristics: ROPT_*) */
	uint32_t optinfo_len;	/**< bytes of rdma_optinfo */
	const uint8_t *optinfo; /**< rdma_optinfo, in place in the decoded buffer */
};

/** Decode capacity and the storage behind it, attached by rpcrdma_hdr_init(). */
struct rpcrdma_hdr_cap {
	uint16_t max_reads;		    /**< read list entries */
	uint16_t max_writes;		    /**< write chunks */
	uint16_t max_chunk_segs;	    /**< segments per write chunk or reply chunk */
	struct rpcrdma_read_segment *reads; /**< [max_reads] */
	struct rpcrdma_write_chunk *writes; /**< [max_writes] */
	struct rpcrdma_segment *segs;	    /**< [(max_writes + 1) * max_chunk_segs] */
};

/** A transport header, decoded or to be encoded. */
struct rpcrdma_hdr {
	uint32_t xid;	  /**< rdma_xid */
	uint32_t vers;	  /**< rdma_vers: RPCRDMA_VERS_1 or RPCRDMA_VERS_2 */
	uint32_t credit;  /**< rdma_credit */
	uint32_t proc;	  /**< rdma_proc (enum rpcrdma_proc) */
	uint32_t hdr_len; /**< set by decode: bytes of transport header */
	union {
		struct rpcrdma_chunk_lists chunks;    /**< MSG, NOMSG, MSGP */
		struct rpcrdma_hdr_error error;	      /**< ERROR */
		struct rpcrdma_hdr_optional optional; /**< OPTIONAL */
	};
	struct rpcrdma_hdr_cap cap; /**< decode capacity; unused by encode */
};

static_assert(offsetof(struct rpcrdma_hdr, vers) == 4 &&
		      offsetof(struct rpcrdma_hdr, credit) == 8 &&
		      offsetof(struct rpcrdma_hdr, proc) == 12,
	      "xid, vers, credit, proc lie in wire order (rpcrdma_wire_swap4)");

/** Default decode capacity: at least what the specs' common uses need. */
#define RPCRDMA_HDR_DEFAULT_READS      16
#define RPCRDMA_HDR_DEFAULT_WRITES     8
#define RPCRDMA_HDR_DEFAULT_CHUNK_SEGS 16

/** A header with default capacity and its own storage. */
struct rpcrdma_hdr_storage {
	struct rpcrdma_hdr hdr;
	struct rpcrdma_read_segment reads[RPCRDMA_HDR_DEFAULT_READS];
	struct rpcrdma_write_chunk writes[RPCRDMA_HDR_DEFAULT_WRITES];
	struct rpcrdma_segment
		segs[(RPCRDMA_HDR_DEFAULT_WRITES + 1) * RPCRDMA_HDR_DEFAULT_CHUNK_SEGS];
};

/**
 * Attach decode storage to a header.
 *
 * @param hdr
 *   The header; all of it is cleared.
 * @param reads, max_reads
 *   Storage for the read list.
 * @param writes, max_writes
 *   Storage for the write list.
 * @param segs, max_chunk_segs
 *   Storage for the segments of the write chunks and the reply chunk:
 *   (max_writes + 1) * max_chunk_segs entries.
 */
void rpcrdma_hdr_init(struct rpcrdma_hdr *hdr, struct rpcrdma_read_segment *reads,
		      uint16_t max_reads, struct rpcrdma_write_chunk *writes, uint16_t max_writes,
		      struct rpcrdma_segment *segs, uint16_t max_chunk_segs);

/**
 * Initialise a header with default capacity.
 *
 * @return
 *   &st->hdr, ready for rpcrdma_hdr_decode().
 */
struct rpcrdma_hdr *rpcrdma_hdr_storage_init(struct rpcrdma_hdr_storage *st);

/**
 * Decode a transport header.
 *
 * @param hdr
 *   Header initialised by rpcrdma_hdr_init(); overwritten. Chunk and
 *   optional-data pointers refer to the capacity storage and to buf, so buf
 *   must outlive the use of hdr.
 * @param buf
 *   The received message.
 * @param len
 *   Bytes in buf.
 * @return
 *   The header length in bytes (where the RPC payload starts; equal to len
 *   when nothing follows), or a negative error:
 *   - -RPCRDMA_E_TRUNC: buf ends inside the header.
 *   - -RPCRDMA_E_VERS: rdma_vers is not 1 or 2 (xid, vers, credit are set,
 *     for the ERR_VERS reply).
 *   - -RPCRDMA_E_PROC: rdma_proc unknown for the version.
 *   - -RPCRDMA_E_TOO_MANY_READS, -RPCRDMA_E_TOO_MANY_WRITES,
 *     -RPCRDMA_E_TOO_MANY_SEGS: more than the capacity.
 *   - -RPCRDMA_E_POSITION: a read position not a multiple of 4.
 *   - -RPCRDMA_E_BOOL: a list discriminator not 0 or 1.
 *   - -RPCRDMA_E_ENUM: rdma_err, rdma_direction or rdma_optdir out of range.
 *   - -RPCRDMA_E_OPAQUE: rdma_optinfo runs past the end of buf.
 *   On error, xid, vers, credit and proc hold what was read (len >= 16).
 *
 * rpcrdma_hdr_decode() is inline: it decodes the Short message form
 * itself and calls rpcrdma_hdr_decode_full() for every other form.
 * Both give identical results.
 */
int rpcrdma_hdr_decode_full(struct rpcrdma_hdr *hdr, const void *buf, uint32_t len);

/* The fast path's result: a Short message's header, already checked. */
static inline int rpcrdma_hdr_decode_short(struct rpcrdma_hdr *hdr, const void *buf, uint32_t dir,
					   uint32_t hdr_len)
{
	rpcrdma_wire_swap4(hdr, buf); /* xid vers credit proc */
	hdr->hdr_len = hdr_len;
	hdr->chunks.direction = dir;
	hdr->chunks.align = 0;
	hdr->chunks.thresh = 0;
	hdr->chunks.nreads = 0;
	hdr->chunks.nwrites = 0;
	hdr->chunks.has_reply = false;
	hdr->chunks.reads = hdr->cap.reads;
	hdr->chunks.writes = hdr->cap.writes;
	return (int)hdr_len;
}

static inline int rpcrdma_hdr_decode(struct rpcrdma_hdr *hdr, const void *buf, uint32_t len)
{
	/*
	 * Fast path: RDMA_MSG (v1) or RDMA2_MSG (v2) with three empty chunk
	 * lists, the form of every Short message (rfc5666bis 4.5.1):
	 *   xid 1 credit 0 - 0 0 0            (7 words)
	 *   xid 2 credit 0 - dir - 0 0 0      (8 words)
	 * Anything else, including every malformed header, takes the full
	 * decoder, which gives the same result for these two forms.
	 */
	if (len >= 28 && rpcrdma_wire_get32(buf, 3) == RPCRDMA_MSG) {
		uint32_t vers = rpcrdma_wire_get32(buf, 1);

		if (vers == RPCRDMA_VERS_1 &&
		    (rpcrdma_wire_get32(buf, 4) | rpcrdma_wire_get32(buf, 5) |
		     rpcrdma_wire_get32(buf, 6)) == 0)
			return rpcrdma_hdr_decode_short(hdr, buf, 0, 28);
		if (vers == RPCRDMA_VERS_2 && len >= 32 &&
		    rpcrdma_wire_get32(buf, 4) <= RPCRDMA_REPLY &&
		    (rpcrdma_wire_get32(buf, 5) | rpcrdma_wire_get32(buf, 6) |
		     rpcrdma_wire_get32(buf, 7)) == 0)
			return rpcrdma_hdr_decode_short(hdr, buf, rpcrdma_wire_get32(buf, 4), 32);
	}
	return rpcrdma_hdr_decode_full(hdr, buf, len);
}

/**
 * Number of bytes rpcrdma_hdr_encode() writes for a header.
 *
 * @return
 *   The length, or -EINVAL when vers, proc or the error code is not one the
 *   encoder can write, or when the header would be longer than INT32_MAX
 *   bytes (chunks of that many segments).
 */
int rpcrdma_hdr_encoded_len(const struct rpcrdma_hdr *hdr);

/**
 * Encode a transport header.
 *
 * @param hdr
 *   The header. hdr_len and cap are ignored.
 * @param buf
 *   Destination.
 * @param buflen
 *   Capacity of buf.
 * @return
 *   Bytes written, or:
 *   - -ENOSPC: buf too small; nothing is claimed as written.
 *   - -EINVAL: vers is not 1 or 2, proc is not defined for vers, an
 *     error code is not defined, or the header would be longer than
 *     INT32_MAX bytes; nothing written.
 *
 * rpcrdma_hdr_encode() is inline: it writes the v1 Short message form
 * itself and calls rpcrdma_hdr_encode_full() for every other form.
 */
int rpcrdma_hdr_encode_full(const struct rpcrdma_hdr *hdr, void *buf, uint32_t buflen);

static inline int rpcrdma_hdr_encode(const struct rpcrdma_hdr *hdr, void *buf, uint32_t buflen)
{
	/* Fast path: v1 RDMA_MSG with empty chunk lists (xid 1 credit 0 - 0 0 0). */
	if (hdr->vers == RPCRDMA_VERS_1 && hdr->proc == RPCRDMA_MSG && buflen >= 28 &&
	    (hdr->chunks.nreads | hdr->chunks.nwrites | hdr->chunks.has_reply) == 0) {
		rpcrdma_wire_swap4(buf, hdr); /* xid vers credit proc */
		rpcrdma_wire_put32(buf, 4, 0);
		rpcrdma_wire_put32(buf, 5, 0);
		rpcrdma_wire_put32(buf, 6, 0);
		return 28;
	}
	return rpcrdma_hdr_encode_full(hdr, buf, buflen);
}

/**
 * The spec name of a proc in a version ("RDMA_MSG", "RDMA2_OPTIONAL").
 *
 * @return
 *   A static string; "UNKNOWN" for a value the version does not define.
 */
const char *rpcrdma_proc_name(uint32_t vers, uint32_t proc);

/**
 * The spec name of an rdma_err value in a version ("ERR_VERS",
 * "RDMA2_ERR_INVAL_OPTION").
 *
 * @return
 *   A static string; "UNKNOWN" for an undefined value.
 */
const char *rpcrdma_errcode_name(uint32_t vers, uint32_t code);

/**
 * Format a decoded header as one line for logs, without a newline:
 * "xid=0x00000001 vers=1 credit=32 RDMA_MSG reads=[...] writes=[...] reply=..."
 *
 * @return
 *   As snprintf: the length the full line has; the line is truncated to
 *   size - 1 bytes and NUL-terminated when size > 0.
 */
int rpcrdma_hdr_format(const struct rpcrdma_hdr *hdr, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_HDR_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The block store protocol: an ONC RPC program (RFC 5531) that reads and
 * writes byte ranges of one memory-backed device, shared by
 * blockstore-server.c and blockstore-client.c. Its XDR (RFC 4506):
 *
 *   const BS_MAX_IO = 1048576;          largest READ or WRITE payload
 *
 *   enum bs_stat {
 *       BS_OK        = 0,
 *       BS_ERR_RANGE = 1,   offset + count beyond the end of the device
 *       BS_ERR_TOOBIG = 2,  count above BS_MAX_IO
 *       BS_ERR_BUSY  = 3    the server has no buffer now: try again
 *   };
 *
 *   struct bs_attr {                    GETATTR's result
 *       unsigned hyper size;            device bytes
 *       unsigned int block_size;        preferred I/O unit (offsets need not be aligned)
 *       unsigned int max_io;            BS_MAX_IO
 *       unsigned hyper reads;           READ calls served with BS_OK
 *       unsigned hyper writes;          WRITE calls served with BS_OK
 *       unsigned hyper bytes_read;
 *       unsigned hyper bytes_written;
 *       unsigned hyper errors;          READ and WRITE calls answered with an error
 *   };
 *
 *   struct bs_read_args  { unsigned hyper offset; unsigned int count; };
 *   union bs_read_res switch (bs_stat status) {
 *       case BS_OK: opaque data<BS_MAX_IO>;    DDP-eligible: a write chunk
 *       default:    void;
 *   };
 *   struct bs_write_args { unsigned hyper offset; opaque data<BS_MAX_IO>; };
 *                                              data DDP-eligible: a read chunk
 *   struct bs_write_res  { bs_stat status; unsigned int count; };
 *
 *   program BLOCKSTORE_PROG {
 *       version BLOCKSTORE_V1 {
 *           void        BS_NULL(void)              = 0;
 *           bs_attr     BS_GETATTR(void)           = 1;
 *           bs_read_res BS_READ(bs_read_args)      = 2;
 *           bs_write_res BS_WRITE(bs_write_args)   = 3;
 *           bs_stat     BS_SUBSCRIBE(void)         = 4;
 *       } = 1;
 *   } = 0x2000b10c;
 *
 * The callback program, served by the client and called by the server in
 * the backward direction of the same connection (RFC 8167), NOTIFY once a
 * WRITE by another client has succeeded:
 *
 *   struct bs_notify {
 *       unsigned hyper offset;          where the write began
 *       unsigned int count;             its length, at most BS_MAX_IO
 *       unsigned hyper seq;             the server's WRITE counter after it (GETATTR writes)
 *   };
 *
 *   program BLOCKSTORE_CB_PROG {
 *       version BLOCKSTORE_CB_V1 {
 *           void        CB_NULL(void)              = 0;
 *           void        CB_NOTIFY(bs_notify)       = 1;
 *       } = 1;
 *   } = 0x2000b10d;
 *
 * SUBSCRIBE says that the client serves BLOCKSTORE_CB_PROG on this
 * connection: the server sends it a CB_NOTIFY for every WRITE of another
 * client from then on, until the connection closes, and answers BS_OK.
 * Version 1 of RPC-over-RDMA carries backward calls and replies inline
 * only (RFC 8167 sections 2.5, 2.6), which bs_notify's 20 bytes allow. A
 * notification is a hint, not a journal: a server with every backward slot
 * of a connection busy skips it (the client then sees a gap in seq), and
 * WRITEs running on several lcores at once may be notified out of seq order.
 *
 * The program numbers lie in the range RFC 5531 section 8.3 leaves "defined
 * by user" (0x20000000-0x3fffffff); a product registers its own with IANA
 * (rpc@iana.org) or picks others in that range.
 *
 * Each XDR rule has one encoder and one decoder below, used by both sides.
 * DDP-eligible data (rfc5666bis 4.4.2) is encoded with rpcrdma_xdr_put_ddp()
 * from registered memory and decoded with rpcrdma_xdr_get_ddp() where it
 * landed: the engine moves it by RDMA Read or Write, never through a copy.
 */
#ifndef BLOCKSTORE_PROTO_H
#define BLOCKSTORE_PROTO_H

#include <errno.h>
#include <stdint.h>

#include <rpcrdma/rpcrdma_xdr.h>

#define BLOCKSTORE_PROG 0x2000b10cu
#define BLOCKSTORE_V1	1u

#define BS_PROC_NULL	  0u
#define BS_PROC_GETATTR	  1u
#define BS_PROC_READ	  2u
#define BS_PROC_WRITE	  3u
#define BS_PROC_SUBSCRIBE 4u
#define BS_NPROCS	  5u

#define BLOCKSTORE_CB_PROG 0x2000b10du
#define BLOCKSTORE_CB_V1   1u

#define BS_CB_NULL   0u
#define BS_CB_NOTIFY 1u
#define BS_CB_NPROCS 2u

#define BS_MAX_IO (1u << 20)

enum bs_stat {
	BS_OK = 0,
	BS_ERR_RANGE = 1,
	BS_ERR_TOOBIG = 2,
	BS_ERR_BUSY = 3,
};
#define BS_STAT_MAX BS_ERR_BUSY

static inline const char *bs_stat_name(uint32_t st)
{
	static const char *const names[] = { "BS_OK", "BS_ERR_RANGE", "BS_ERR_TOOBIG",
					     "BS_ERR_BUSY" };

	return st <= BS_STAT_MAX ? names[st] : "BS_ERR_?";
}

static inline const char *bs_stat_text(uint32_t st)
{
	static const char *const text[] = { "success", "beyond the end of the device",
					    "count above the largest I/O (1 MiB)",
					    "server busy, try again" };

	return st <= BS_STAT_MAX ? text[st] : "unknown status";
}

struct bs_attr {
	uint64_t size;
	uint32_t block_size;
	uint32_t max_io;
	uint64_t reads, writes;
	uint64_t bytes_read, bytes_written;
	uint64_t errors;
};

struct bs_read_args {
	uint64_t offset;
	uint32_t count;
};

/* For WRITE: data points where the bytes landed (the read chunk's buffer, or inline). */
struct bs_write_args {
	uint64_t offset;
	const void *data;
	uint32_t count;
};

struct bs_write_res {
	uint32_t status;
	uint32_t count;
};

struct bs_notify {
	uint64_t offset;
	uint32_t count;
	uint64_t seq;
};

/*
 * What a dispatcher decoder (rpcrdma_svc_decode_t) returns once the rule's
 * decoder has given @p ret: arguments that fail their rule or leave bytes
 * over are garbage (-EBADMSG: the dispatcher answers GARBAGE_ARGS).
 */
static inline int bs_dec_end(const struct rpcrdma_xdr_dec *d, int ret)
{
	if (ret)
		return -EBADMSG;
	return rpcrdma_xdr_dec_left(d) == 0 ? 0 : -EBADMSG;
}

/*
 * bs_stat: an enum (RFC 4506 4.3); a value past BS_STAT_MAX is kept (a
 * newer server's status) and reported as unknown by the caller.
 */
static inline int bs_put_stat(struct rpcrdma_xdr_enc *e, uint32_t st)
{
	return rpcrdma_xdr_put_u32(e, st);
}

static inline int bs_get_stat(struct rpcrdma_xdr_dec *d, uint32_t *st)
{
	return rpcrdma_xdr_get_u32(d, st) ? -EBADMSG : 0;
}

/* bs_attr: size(64) block_size(32) max_io(32) reads(64) writes(64) bytes_read(64)
 * bytes_written(64) errors(64): 56 bytes. */
static inline int bs_put_attr(struct rpcrdma_xdr_enc *e, const struct bs_attr *a)
{
	if (rpcrdma_xdr_put_u64(e, a->size) || rpcrdma_xdr_put_u32(e, a->block_size) ||
	    rpcrdma_xdr_put_u32(e, a->max_io) || rpcrdma_xdr_put_u64(e, a->reads) ||
	    rpcrdma_xdr_put_u64(e, a->writes) || rpcrdma_xdr_put_u64(e, a->bytes_read) ||
	    rpcrdma_xdr_put_u64(e, a->bytes_written) || rpcrdma_xdr_put_u64(e, a->errors))
		return -ENOSPC;
	return 0;
}

static inline int bs_get_attr(struct rpcrdma_xdr_dec *d, struct bs_attr *a)
{
	if (rpcrdma_xdr_get_u64(d, &a->size) || rpcrdma_xdr_get_u32(d, &a->block_size) ||
	    rpcrdma_xdr_get_u32(d, &a->max_io) || rpcrdma_xdr_get_u64(d, &a->reads) ||
	    rpcrdma_xdr_get_u64(d, &a->writes) || rpcrdma_xdr_get_u64(d, &a->bytes_read) ||
	    rpcrdma_xdr_get_u64(d, &a->bytes_written) || rpcrdma_xdr_get_u64(d, &a->errors))
		return -EBADMSG;
	return 0;
}

/* bs_read_args: offset(64) count(32). */
static inline int bs_put_read_args(struct rpcrdma_xdr_enc *e, const struct bs_read_args *a)
{
	if (rpcrdma_xdr_put_u64(e, a->offset) || rpcrdma_xdr_put_u32(e, a->count))
		return -ENOSPC;
	return 0;
}

static inline int bs_get_read_args(struct rpcrdma_xdr_dec *d, struct bs_read_args *a)
{
	if (rpcrdma_xdr_get_u64(d, &a->offset) || rpcrdma_xdr_get_u32(d, &a->count))
		return -EBADMSG;
	return 0;
}

/*
 * bs_read_res: status(32) [data<BS_MAX_IO> when BS_OK]. The data is
 * DDP-eligible: @p data is registered memory that the engine RDMA-Writes
 * into the requester's write chunk (or sends inline when none was offered).
 */
static inline int bs_put_read_res(struct rpcrdma_xdr_enc *e, uint32_t status,
				  const struct rpcrdma_xdr_region *data)
{
	if (bs_put_stat(e, status))
		return -ENOSPC;
	if (status != BS_OK)
		return 0;
	return rpcrdma_xdr_put_ddp(e, data) ? -ENOSPC : 0;
}

/* Decode bs_read_res: *data points at the bytes where they landed (the write chunk). */
static inline int bs_get_read_res(struct rpcrdma_xdr_dec *d, uint32_t *status, const void **data,
				  uint32_t *count)
{
	*data = NULL;
	*count = 0;
	if (bs_get_stat(d, status))
		return -EBADMSG;
	if (*status != BS_OK)
		return 0;
	return rpcrdma_xdr_get_ddp(d, BS_MAX_IO, data, count) ? -EBADMSG : 0;
}

/*
 * bs_write_args: offset(64) data<BS_MAX_IO>. The data is DDP-eligible: the
 * engine sends it inline when the call fits the inline threshold, else it
 * exposes @p data as a read chunk that the server pulls with RDMA Read.
 */
static inline int bs_put_write_args(struct rpcrdma_xdr_enc *e, uint64_t offset,
				    const struct rpcrdma_xdr_region *data)
{
	if (rpcrdma_xdr_put_u64(e, offset) || rpcrdma_xdr_put_ddp(e, data))
		return -ENOSPC;
	return 0;
}

/* Decode bs_write_args: a->data points where the bytes landed (no copy). */
static inline int bs_get_write_args(struct rpcrdma_xdr_dec *d, struct bs_write_args *a)
{
	if (rpcrdma_xdr_get_u64(d, &a->offset) ||
	    rpcrdma_xdr_get_ddp(d, BS_MAX_IO, &a->data, &a->count))
		return -EBADMSG;
	return 0;
}

/* bs_write_res: status(32) count(32). */
static inline int bs_put_write_res(struct rpcrdma_xdr_enc *e, const struct bs_write_res *r)
{
	if (bs_put_stat(e, r->status) || rpcrdma_xdr_put_u32(e, r->count))
		return -ENOSPC;
	return 0;
}

static inline int bs_get_write_res(struct rpcrdma_xdr_dec *d, struct bs_write_res *r)
{
	if (bs_get_stat(d, &r->status) || rpcrdma_xdr_get_u32(d, &r->count))
		return -EBADMSG;
	return 0;
}

/*
 * bs_notify: offset(64) count(32) seq(64): 20 bytes. The decoder refuses a
 * count above BS_MAX_IO (no WRITE is longer); the receiver checks the range
 * against the device it knows.
 */
static inline int bs_put_notify(struct rpcrdma_xdr_enc *e, const struct bs_notify *n)
{
	if (rpcrdma_xdr_put_u64(e, n->offset) || rpcrdma_xdr_put_u32(e, n->count) ||
	    rpcrdma_xdr_put_u64(e, n->seq))
		return -ENOSPC;
	return 0;
}

static inline int bs_get_notify(struct rpcrdma_xdr_dec *d, struct bs_notify *n)
{
	if (rpcrdma_xdr_get_u64(d, &n->offset) || rpcrdma_xdr_get_u32(d, &n->count) ||
	    rpcrdma_xdr_get_u64(d, &n->seq) || n->count > BS_MAX_IO)
		return -EBADMSG;
	return 0;
}

#endif /* BLOCKSTORE_PROTO_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * RFC 8797 connection private data: what each end of an RPC-over-RDMA
 * connection says about its inline thresholds and Send With Invalidate in
 * the CM's connect request and reply. A wire format like the others of the
 * codec (libc only); the connection engine (rpcrdma_xprt.h, which includes
 * this header) sends and reads it.
 */
#ifndef RPCRDMA_PDATA_H
#define RPCRDMA_PDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** cp_magic of RFC 8797 section 4. */
#define RPCRDMA_XPRT_PDATA_MAGIC 0xf6ab0e18u
/** Bytes of the private data message. */
#define RPCRDMA_XPRT_PDATA_LEN 8
/** cp_version this engine sends. */
#define RPCRDMA_XPRT_PDATA_VERSION 1
/** cp_flags bit: the sender accepts Send With Invalidate (RFC 8797 4.1). */
#define RPCRDMA_XPRT_PDATA_F_REMOTE_INV 0x01u
/** Largest inline size the 8-bit field carries: (255 + 1) * 1024. */
#define RPCRDMA_XPRT_PDATA_SIZE_MAX (256u * 1024u)

/** The RFC 8797 private data, decoded. */
struct rpcrdma_xprt_pdata {
	uint8_t version;      /**< cp_version */
	bool remote_inv;      /**< cp_flags RPCRDMA_XPRT_PDATA_F_REMOTE_INV */
	uint32_t send_inline; /**< cp_send_size in bytes: the most the sender sends inline */
	uint32_t recv_inline; /**< cp_recv_size in bytes: the sender's receive buffers */
};

/**
 * Encode RFC 8797 private data:
 *   cp_magic(32) cp_version(8) cp_flags(8) cp_send_size(8) cp_recv_size(8)
 * where a size is encoded as (bytes / 1024) - 1: sizes are rounded down to
 * a multiple of 1024 and clamped to 1024..RPCRDMA_XPRT_PDATA_SIZE_MAX.
 *
 * @return
 *   RPCRDMA_XPRT_PDATA_LEN, or -ENOSPC: len too small (nothing written).
 */
int rpcrdma_xprt_pdata_encode(const struct rpcrdma_xprt_pdata *pd, void *buf, size_t len);

/**
 * Decode RFC 8797 private data. A connection whose peer sent none, or
 * something else, uses 1024-byte thresholds and no Send With Invalidate:
 * on every error *pd is set to exactly that.
 *
 * @return
 *   0, or (*pd holding the defaults):
 *   - -ENODATA: fewer than 8 bytes, or another magic (not RFC 8797 data);
 *   - -EPROTONOSUPPORT: a cp_version other than 1.
 */
int rpcrdma_xprt_pdata_decode(struct rpcrdma_xprt_pdata *pd, const void *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_PDATA_H */

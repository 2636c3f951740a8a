/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Field-by-field comparison of decoded codec structures, as the wire
 * carries them: fields a message does not carry (align in RDMA_MSG, low
 * and high in ERR_CHUNK, ...) and pointers are not compared; the bytes
 * pointers refer to are. Shared by the unit tests and the fuzz targets.
 */
#ifndef RPCRDMA_TEST_CODEC_CMP_H
#define RPCRDMA_TEST_CODEC_CMP_H

#include <stddef.h>

#include <rpcrdma/rpcrdma_hdr.h>
#include <rpcrdma/rpcrdma_rpc.h>
#include <rpcrdma/rpcrdma_xchar.h>

/**
 * Compare two transport headers.
 *
 * @return
 *   0 when equal; 1 otherwise, with the first difference described in
 *   why (NUL-terminated, truncated to whylen).
 */
int codec_hdr_cmp(const struct rpcrdma_hdr *a, const struct rpcrdma_hdr *b, char *why,
		  size_t whylen);

/** Compare two RPC message headers; as codec_hdr_cmp(). */
int codec_rpc_cmp(const struct rpcrdma_rpc_msg *a, const struct rpcrdma_rpc_msg *b, char *why,
		  size_t whylen);

/** Compare two transport characteristics operations; as codec_hdr_cmp(). */
int codec_xchar_cmp(const struct rpcrdma_xchar_msg *a, const struct rpcrdma_xchar_msg *b, char *why,
		    size_t whylen);

#endif /* RPCRDMA_TEST_CODEC_CMP_H */

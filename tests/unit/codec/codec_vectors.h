/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Byte-exact wire vectors for the codecs, written by hand from the XDR of
 * RFC 5666 4.3, the version two draft 4.2, xcharext-02 4 and RFC 5531 9
 * (never produced by our encoder), with the values each one decodes to.
 * Shared by the unit tests and the fuzz corpus generator.
 */
#ifndef RPCRDMA_TEST_CODEC_VECTORS_H
#define RPCRDMA_TEST_CODEC_VECTORS_H

#include <stdint.h>

#include <rpcrdma/rpcrdma_hdr.h>
#include <rpcrdma/rpcrdma_rpc.h>
#include <rpcrdma/rpcrdma_xchar.h>

/** Which decoder a vector is for. */
enum codec_kind {
	CODEC_HDR, /**< rpcrdma_hdr_decode() */
	CODEC_OPT, /**< rpcrdma_hdr_decode() of RDMA2_OPTIONAL, then rpcrdma_xchar_decode() */
	CODEC_RPC, /**< rpcrdma_rpc_decode() */
};

struct codec_vector {
	const char *name;
	enum codec_kind kind;
	const uint8_t *bytes;
	uint32_t len;	  /**< bytes in the vector */
	uint32_t hdr_len; /**< what decode returns: the header length (<= len) */
	/**
	 * CODEC_HDR, CODEC_OPT: the decoded header. For CODEC_OPT with an
	 * xchar message, optional.optinfo is NULL: the test makes it with
	 * rpcrdma_xchar_encode(xchar), so the encode check is not circular.
	 */
	const struct rpcrdma_hdr *hdr;
	/**
	 * CODEC_RPC: the decoded message. For AUTH_SYS, cred.body is NULL: the
	 * test makes it with rpcrdma_rpc_authsys_encode(&call.sys).
	 */
	const struct rpcrdma_rpc_msg *rpc;
	/** CODEC_OPT: rdma_optinfo decoded, or NULL when xchar_ret < 0. */
	const struct rpcrdma_xchar_msg *xchar;
	int xchar_ret; /**< CODEC_OPT: what rpcrdma_xchar_decode() returns */
	/** NULL-terminated tokens the hdr or rpc formatter's line contains. */
	const char *const *tokens;
	/** CODEC_OPT: NULL-terminated tokens rpcrdma_xchar_format()'s line contains. */
	const char *const *xtokens;
};

extern const struct codec_vector codec_vectors[];
extern const unsigned int codec_nvectors;

#endif /* RPCRDMA_TEST_CODEC_VECTORS_H */

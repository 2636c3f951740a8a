/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Small helpers for the codec tests: checks that count and report
 * failures, exact-size heap copies (so AddressSanitizer catches a read one
 * byte past the end), hex dumps.
 */
#ifndef RPCRDMA_TEST_CODEC_TEST_H
#define RPCRDMA_TEST_CODEC_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "codec_vectors.h"
#include "test_check.h"

/** The first of the NULL-terminated tokens that line lacks, or NULL. */
const char *test_missing_token(const char *line, const char *const *tokens);

/**
 * The structure a CODEC_HDR or CODEC_OPT vector decodes to, ready to
 * encode: rdma_optinfo of an xchar operation is made by
 * rpcrdma_xchar_encode() into optinfo[size].
 *
 * @return
 *   What rpcrdma_xchar_encode() returned, or 0 when it was not needed.
 */
int test_vector_hdr(const struct codec_vector *v, struct rpcrdma_hdr *hdr, uint8_t *optinfo,
		    size_t size);

/**
 * The structure a CODEC_RPC vector decodes to, ready to encode: an
 * AUTH_SYS credential body is made by rpcrdma_rpc_authsys_encode() into
 * body[size].
 *
 * @return
 *   What rpcrdma_rpc_authsys_encode() returned, or 0 when it was not needed.
 */
int test_vector_rpc(const struct codec_vector *v, struct rpcrdma_rpc_msg *msg, uint8_t *body,
		    size_t size);

#endif /* RPCRDMA_TEST_CODEC_TEST_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the ONC RPC message header decoder.
 *
 * An accepted header re-encodes to the same length and, decoded again,
 * the same fields (auth bodies compared byte for byte, AUTH_SYS fields one
 * by one); its encoding is canonical (the padding of auth bodies is the
 * only freedom the input has).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rpcrdma_rpc.h>

#include "codec_cmp.h"
#include "fuzz_common.h"

#define TARGET "fuzz_rpc"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpcrdma_rpc_msg a, b;
	char why[160], line[4096];
	uint8_t *enc, *enc2;
	int ret, n, m;

	if (size > UINT32_MAX)
		return 0;
	ret = rpcrdma_rpc_decode(&a, data, (uint32_t)size);
	fuzz_check_ret(TARGET, ret);
	if (ret < 0)
		return 0;
	if ((size_t)ret > size || a.hdr_len != (uint32_t)ret)
		fuzz_fail(TARGET, "header length past the input", NULL);

	n = rpcrdma_rpc_format(&a, line, sizeof(line));
	if (n <= 0 || ((size_t)n < sizeof(line) && (size_t)n != strlen(line)))
		fuzz_fail(TARGET, "formatter length", line);

	/* The header is re-encoded into exactly its decoded length. */
	enc = malloc((size_t)ret);
	enc2 = malloc((size_t)ret);
	if (!enc || !enc2)
		abort();
	n = rpcrdma_rpc_encode(&a, enc, (uint32_t)ret);
	if (n != ret) {
		snprintf(why, sizeof(why), "%d (%s), decoded %d bytes", n, rpcrdma_errname(n), ret);
		fuzz_fail(TARGET, "re-encode", why);
	}
	m = rpcrdma_rpc_decode(&b, enc, (uint32_t)n);
	if (m != n)
		fuzz_fail(TARGET, "decode of the re-encoding", rpcrdma_errname(m));
	if (codec_rpc_cmp(&a, &b, why, sizeof(why)))
		fuzz_fail(TARGET, "round trip", why);
	m = rpcrdma_rpc_encode(&b, enc2, (uint32_t)n);
	if (m != n || memcmp(enc, enc2, (size_t)n) != 0)
		fuzz_fail(TARGET, "encoding not canonical", NULL);
	free(enc2);
	free(enc);
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the RPC-over-RDMA transport header decoder (v1, v2).
 *
 * An accepted header re-encodes to exactly the bytes it was decoded from
 * (the XDR has one encoding per value) except the padding of rdma_optinfo,
 * which the encoder writes as zeros; decoding the re-encoding gives the
 * same fields. rdma_optinfo of RDMA2_OPTIONAL goes through the transport
 * characteristics checks as well.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rpcrdma_hdr.h>

#include "codec_cmp.h"
#include "fuzz_common.h"

#define TARGET "fuzz_hdr"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpcrdma_hdr_storage st1, st2;
	struct rpcrdma_hdr *a = rpcrdma_hdr_storage_init(&st1);
	struct rpcrdma_hdr *b = rpcrdma_hdr_storage_init(&st2);
	char why[160], line[8192];
	uint32_t same;
	uint8_t *enc, *enc2;
	int ret, n, m;

	if (size > UINT32_MAX)
		return 0;
	ret = rpcrdma_hdr_decode(a, data, (uint32_t)size);
	fuzz_check_ret(TARGET, ret);
	if (ret < 0)
		return 0;
	if ((size_t)ret > size || a->hdr_len != (uint32_t)ret)
		fuzz_fail(TARGET, "header length past the input", NULL);

	n = rpcrdma_hdr_format(a, line, sizeof(line));
	if (n <= 0 || ((size_t)n < sizeof(line) && (size_t)n != strlen(line)))
		fuzz_fail(TARGET, "formatter length", line);

	n = rpcrdma_hdr_encoded_len(a);
	if (n != ret) {
		snprintf(why, sizeof(why), "encoded_len %d, decoded %d bytes", n, ret);
		fuzz_fail(TARGET, "length", why);
	}
	enc = malloc((size_t)n);
	enc2 = malloc((size_t)n);
	if (!enc || !enc2)
		abort();
	m = rpcrdma_hdr_encode(a, enc, (uint32_t)n);
	if (m != n)
		fuzz_fail(TARGET, "re-encode", rpcrdma_errname(m));
	/* Byte for byte, up to the padding of rdma_optinfo. */
	same = (uint32_t)n;
	if (a->proc == RPCRDMA_OPTIONAL)
		same = 28 + a->optional.optinfo_len;
	if (memcmp(enc, data, same) != 0)
		fuzz_fail(TARGET, "re-encoding differs from the input", NULL);

	m = rpcrdma_hdr_decode(b, enc, (uint32_t)n);
	if (m != n)
		fuzz_fail(TARGET, "decode of the re-encoding", rpcrdma_errname(m));
	if (codec_hdr_cmp(a, b, why, sizeof(why)))
		fuzz_fail(TARGET, "round trip", why);
	m = rpcrdma_hdr_encode(b, enc2, (uint32_t)n);
	if (m != n || memcmp(enc, enc2, (size_t)n) != 0)
		fuzz_fail(TARGET, "encoding not canonical", NULL);
	free(enc2);
	free(enc);

	if (a->proc == RPCRDMA_OPTIONAL)
		fuzz_check_xchar(TARGET, a->optional.opttype, a->optional.optinfo,
				 a->optional.optinfo_len);
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the transport characteristics decoder (rdma_optinfo
 * of RDMA2_OPTIONAL). The first 4 input bytes are rdma_opttype (big
 * endian, as on the wire); the rest is rdma_optinfo.
 *
 * An accepted operation re-encodes to at most its input length (subset
 * words past the first, all zero, are dropped), decodes again to the same
 * fields, and its encoding is canonical.
 */
#include <rpcrdma/rpcrdma_xchar.h>

#include "fuzz_common.h"

#define TARGET "fuzz_xchar"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t opttype;

	if (size < 4 || size - 4 > UINT32_MAX)
		return 0;
	opttype = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 |
		  data[3];
	fuzz_check_xchar(TARGET, opttype, data + 4, (uint32_t)(size - 4));
	return 0;
}

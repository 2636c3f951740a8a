/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RFC 8797 private data: encode and decode against hand-written bytes, the
 * size rounding and clamping, and every way a peer's data falls back to the
 * 1024-byte defaults.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rpcrdma/rpcrdma_pdata.h>

#include "test_check.h"

static void check_defaults(const struct rpcrdma_xprt_pdata *pd)
{
	CHECK(pd->send_inline == 1024 && pd->recv_inline == 1024 && !pd->remote_inv);
}

int main(void)
{
	static const uint8_t linux_4k[8] = { 0xf6, 0xab, 0x0e, 0x18, 1, 1, 3, 3 };
	struct rpcrdma_xprt_pdata pd = { 1, true, 4096, 4096 }, out;
	uint8_t buf[16];

	/* the bytes Linux xprtrdma sends for 4 KiB thresholds with SWI */
	memset(buf, 0xee, sizeof(buf));
	CHECK(rpcrdma_xprt_pdata_encode(&pd, buf, sizeof(buf)) == RPCRDMA_XPRT_PDATA_LEN);
	CHECK(memcmp(buf, linux_4k, 8) == 0 && buf[8] == 0xee);
	CHECK(rpcrdma_xprt_pdata_decode(&out, buf, 8) == 0);
	CHECK(out.version == 1 && out.remote_inv && out.send_inline == 4096 &&
	      out.recv_inline == 4096);

	/* sizes: rounded down to 1 KiB, clamped to 1 KiB .. 256 KiB */
	pd.remote_inv = false;
	pd.send_inline = 1500;
	pd.recv_inline = 1u << 30;
	CHECK(rpcrdma_xprt_pdata_encode(&pd, buf, 8) == 8);
	CHECK(buf[5] == 0 && buf[6] == 0 && buf[7] == 255);
	CHECK(rpcrdma_xprt_pdata_decode(&out, buf, 8) == 0);
	CHECK(!out.remote_inv && out.send_inline == 1024 && out.recv_inline == 256 * 1024);
	pd.send_inline = 0;
	CHECK(rpcrdma_xprt_pdata_encode(&pd, buf, 8) == 8 && buf[6] == 0);

	/* no room */
	CHECK(rpcrdma_xprt_pdata_encode(&pd, buf, 7) == -ENOSPC);

	/* unknown flag bits are ignored */
	memcpy(buf, linux_4k, 8);
	buf[5] = 0xfe;
	CHECK(rpcrdma_xprt_pdata_decode(&out, buf, 8) == 0 && !out.remote_inv);

	/* the peer sent none, too little, another magic, another version */
	CHECK(rpcrdma_xprt_pdata_decode(&out, NULL, 0) == -ENODATA);
	check_defaults(&out);
	CHECK(rpcrdma_xprt_pdata_decode(&out, linux_4k, 7) == -ENODATA);
	check_defaults(&out);
	memcpy(buf, linux_4k, 8);
	buf[3] = 0x19;
	CHECK(rpcrdma_xprt_pdata_decode(&out, buf, 8) == -ENODATA);
	check_defaults(&out);
	memcpy(buf, linux_4k, 8);
	buf[4] = 2;
	CHECK(rpcrdma_xprt_pdata_decode(&out, buf, 8) == -EPROTONOSUPPORT);
	check_defaults(&out);

	/* longer private data (RDMA CM pads to 56 bytes): the first 8 count */
	memset(buf, 0, sizeof(buf));
	memcpy(buf, linux_4k, 8);
	CHECK(rpcrdma_xprt_pdata_decode(&out, buf, sizeof(buf)) == 0 && out.send_inline == 4096);

	printf("test_xprt_pdata: %s\n", test_failures ? "FAIL" : "ok");
	return test_failures ? 1 : 0;
}

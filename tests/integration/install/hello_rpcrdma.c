/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A program built out of tree against an installed rpcrdma (README: "Build
 * on the library"): encodes an RPC-over-RDMA version 1 RDMA_MSG header with
 * a read chunk, decodes it back, then opens a device of the shm PMD, which
 * the library registers when it is loaded. Exits 0 when every step gives
 * what it should, 1 saying which did not.
 */
#include <stdio.h>
#include <string.h>

#include <rpcrdma/rpcrdma_hdr.h>
#include <rpcrdma/rpcrdma_pmd.h>

static int fail(const char *what, int ret)
{
	fprintf(stderr, "hello_rpcrdma: %s: %d (%s)\n", what, ret, strerror(ret < 0 ? -ret : ret));
	return 1;
}

static int codec(void)
{
	struct rpcrdma_read_segment rs = {
		.position = 0,
		.target = { .handle = 0x1234, .length = 8192, .offset = 0xabcd0000 },
	};
	struct rpcrdma_hdr_storage st;
	struct rpcrdma_hdr h, *d;
	uint8_t buf[256];
	int len, ret;

	memset(&h, 0, sizeof(h));
	h.xid = 0x11223344;
	h.vers = RPCRDMA_VERS_1;
	h.credit = 32;
	h.proc = RPCRDMA_MSG;
	h.chunks.reads = &rs;
	h.chunks.nreads = 1;
	len = rpcrdma_hdr_encode_full(&h, buf, sizeof(buf));
	if (len < 0)
		return fail("rpcrdma_hdr_encode_full", len);
	d = rpcrdma_hdr_storage_init(&st);
	ret = rpcrdma_hdr_decode_full(d, buf, (uint32_t)len);
	if (ret < 0)
		return fail("rpcrdma_hdr_decode_full", ret);
	if (d->xid != h.xid || d->credit != 32 || d->proc != RPCRDMA_MSG || d->chunks.nreads != 1 ||
	    d->chunks.reads[0].target.handle != 0x1234 ||
	    d->chunks.reads[0].target.length != 8192 ||
	    d->chunks.reads[0].target.offset != 0xabcd0000 || d->hdr_len != (uint32_t)len) {
		fprintf(stderr, "hello_rpcrdma: the decoded header differs from the encoded one\n");
		return 1;
	}
	printf("header: %d bytes, xid 0x%08x, %u read segment\n", len, d->xid, d->chunks.nreads);
	return 0;
}

static int pmd(void)
{
	struct rpcrdma_pmd_dev_info info;
	struct rpcrdma_pmd_dev *dev;
	int ret;

	ret = rpcrdma_pmd_dev_open("shm", NULL, &dev);
	if (ret < 0)
		return fail("rpcrdma_pmd_dev_open(shm)", ret);
	ret = rpcrdma_pmd_dev_info_get(dev, &info);
	if (ret < 0) {
		rpcrdma_pmd_dev_close(dev);
		return fail("rpcrdma_pmd_dev_info_get", ret);
	}
	printf("device: driver %s, max_qp_wr %u\n", rpcrdma_pmd_dev_driver(dev), info.max_qp_wr);
	ret = rpcrdma_pmd_dev_close(dev);
	if (ret < 0)
		return fail("rpcrdma_pmd_dev_close", ret);
	return 0;
}

int main(void)
{
	if (codec() || pmd())
		return 1;
	return 0;
}

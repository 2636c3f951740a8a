/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RFC 8797 connection private data (section 4):
 *
 *   struct rpcrdma_connect_private {
 *           uint32 cp_magic;        0xf6ab0e18
 *           uint8  cp_version;      1
 *           uint8  cp_flags;        bit 0: Send With Invalidate accepted
 *           uint8  cp_send_size;    (bytes >> 10) - 1
 *           uint8  cp_recv_size;    (bytes >> 10) - 1
 *   };
 *
 * A peer that sends no private data, or other data, is assumed to use the
 * 1024-byte default thresholds of RFC 8166 3.3.2 and to refuse Send With
 * Invalidate (RFC 8797 4.2).
 */
#include <errno.h>
#include <string.h>

#include <rpcrdma/rpcrdma_hdr.h>
#include <rpcrdma/rpcrdma_pdata.h>
#include <rpcrdma/rpcrdma_wire.h>

/* An inline size in 1 KiB units minus one, rounded down and clamped. */
static uint8_t size_encode(uint32_t bytes)
{
	if (bytes < 1024)
		bytes = 1024;
	if (bytes > RPCRDMA_XPRT_PDATA_SIZE_MAX)
		bytes = RPCRDMA_XPRT_PDATA_SIZE_MAX;
	return (uint8_t)((bytes >> 10) - 1);
}

static uint32_t size_decode(uint8_t v)
{
	return ((uint32_t)v + 1) << 10;
}

int rpcrdma_xprt_pdata_encode(const struct rpcrdma_xprt_pdata *pd, void *buf, size_t len)
{
	uint8_t *p = buf;

	if (len < RPCRDMA_XPRT_PDATA_LEN)
		return -ENOSPC;
	rpcrdma_wire_put32(p, 0, RPCRDMA_XPRT_PDATA_MAGIC);
	p[4] = pd->version;
	p[5] = pd->remote_inv ? RPCRDMA_XPRT_PDATA_F_REMOTE_INV : 0;
	p[6] = size_encode(pd->send_inline);
	p[7] = size_encode(pd->recv_inline);
	return RPCRDMA_XPRT_PDATA_LEN;
}

int rpcrdma_xprt_pdata_decode(struct rpcrdma_xprt_pdata *pd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	pd->version = 0;
	pd->remote_inv = false;
	pd->send_inline = RPCRDMA_V1_INLINE_DEFAULT;
	pd->recv_inline = RPCRDMA_V1_INLINE_DEFAULT;
	if (buf == NULL || len < RPCRDMA_XPRT_PDATA_LEN ||
	    rpcrdma_wire_get32(p, 0) != RPCRDMA_XPRT_PDATA_MAGIC)
		return -ENODATA;
	if (p[4] != RPCRDMA_XPRT_PDATA_VERSION)
		return -EPROTONOSUPPORT;
	pd->version = p[4];
	/* unknown flag bits are ignored (RFC 8797 4.1: reserved) */
	pd->remote_inv = (p[5] & RPCRDMA_XPRT_PDATA_F_REMOTE_INV) != 0;
	pd->send_inline = size_decode(p[6]);
	pd->recv_inline = size_decode(p[7]);
	return 0;
}

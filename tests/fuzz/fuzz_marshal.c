/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: a responder's handling of a received call's chunks
 * (rpcrdma_marshal.h, "Responder"), what a server does with every call
 * before its upper layer sees it. The input is the received message: the
 * transport header (rpcrdma_hdr_decode()) and its inline payload. The
 * input's length picks the responder's max_call: odd, none; even, 1 MiB.
 *
 * A call rpcrdma_marshal_call_map() accepts:
 *   - has chunks of non-zero length in increasing positions, and
 *     total_len and read_bytes that agree with them and with the payload;
 *   - gets RDMA Reads from rpcrdma_marshal_call_reads() that cover each
 *     chunk's destination exactly, in segment order, with the segments'
 *     handles, offsets and lengths;
 *   - reassembles (rpcrdma_marshal_call_dec(), which must accept it) into
 *     a stream of total_len bytes equal to the one built here: the inline
 *     part (or the position-zero chunk) with every other chunk's data and
 *     its zero pad inserted at its position.
 * Calls past 1 MiB (max_call none) are checked up to the Reads only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rpcrdma_errno.h>
#include <rpcrdma/rpcrdma_hdr.h>
#include <rpcrdma/rpcrdma_marshal.h>
#include <rpcrdma/rpcrdma_xdr.h>

#include "fuzz_common.h"

#define TARGET	 "fuzz_marshal"
#define CALL_MAX (1u << 20) /* the reassembly checked, and max_call when one is set */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Chunk k's byte i, as the Reads would have left it. */
static uint8_t chunk_byte(unsigned int k, uint32_t i)
{
	return (uint8_t)(k * 37u + i * 11u + 1u);
}

static void check_map(const struct rpcrdma_marshal_call_map *m, const struct rpcrdma_hdr *h,
		      uint32_t payload_len, uint32_t max_call, int nchunks)
{
	uint64_t reads = 0, total = 0, segs = 0;
	unsigned int k;

	if (nchunks != m->nchunks || m->nchunks > RPCRDMA_XDR_MAX_CHUNKS)
		fuzz_fail(TARGET, "chunk count", NULL);
	for (k = 0; k < m->nchunks; k++) {
		const struct rpcrdma_marshal_rchunk *c = &m->chunks[k];
		uint64_t len = 0;

		if (c->len == 0 || c->nsegs == 0 || (uint32_t)c->seg + c->nsegs > h->chunks.nreads)
			fuzz_fail(TARGET, "a chunk empty or past the read list", NULL);
		if (c->pos % 4 != 0 || (k > 0 && c->pos <= m->chunks[k - 1].pos))
			fuzz_fail(TARGET, "chunk positions not aligned and increasing", NULL);
		for (uint32_t j = 0; j < c->nsegs; j++) {
			if (h->chunks.reads[c->seg + j].position != c->pos)
				fuzz_fail(TARGET, "a chunk's segments at another position", NULL);
			len += h->chunks.reads[c->seg + j].target.length;
		}
		if (len != c->len)
			fuzz_fail(TARGET, "a chunk's length is not its segments'", NULL);
		segs += c->nsegs;
		reads += c->len;
		if (!(m->nomsg && k == 0))
			total += (c->len + 3) & ~3ull;
	}
	if (segs != h->chunks.nreads)
		fuzz_fail(TARGET, "read segments left out of the chunks", NULL);
	if (m->nomsg ? (m->nchunks == 0 || m->chunks[0].pos != 0 || payload_len != 0)
		     : (m->nchunks != 0 && m->chunks[0].pos == 0))
		fuzz_fail(TARGET,
			  "RDMA_NOMSG without its position-zero chunk, or RDMA_MSG with one", NULL);
	total += m->nomsg ? m->chunks[0].len : payload_len;
	if (reads != m->read_bytes || total != m->total_len)
		fuzz_fail(TARGET, "read_bytes or total_len", NULL);
	if (max_call != 0 && m->total_len > max_call)
		fuzz_fail(TARGET, "a call over max_call accepted", NULL);
}

/* The Reads: each chunk's destination filled in segment order, nothing else. */
static void check_reads(const struct rpcrdma_marshal_call_map *m, const struct rpcrdma_hdr *h,
			const struct rpcrdma_marshal_rdma *ops, int n)
{
	unsigned int k, i = 0;

	for (k = 0; k < m->nchunks; k++) {
		const struct rpcrdma_marshal_rchunk *c = &m->chunks[k];
		uint64_t off = 0;

		for (uint32_t j = 0; j < c->nsegs; j++) {
			const struct rpcrdma_segment *t = &h->chunks.reads[c->seg + j].target;

			if (t->length == 0)
				continue;
			if ((int)i >= n || ops[i].chunk != k || ops[i].len != t->length ||
			    ops[i].rkey != t->handle || ops[i].raddr != t->offset ||
			    ops[i].laddr != (uint64_t)(uintptr_t)c->dst.addr + off ||
			    ops[i].lkey != c->dst.lkey || ops[i].unused != 0)
				fuzz_fail(TARGET, "a Read not the segment's", NULL);
			off += t->length;
			i++;
		}
		if (off != c->len)
			fuzz_fail(TARGET, "the Reads do not fill the chunk", NULL);
	}
	if ((int)i != n)
		fuzz_fail(TARGET, "Reads beyond the segments", NULL);
}

/* The reassembled call, built here: the base with the chunks and their pad inserted. */
static uint8_t *expected_call(const struct rpcrdma_marshal_call_map *m, uint32_t *len)
{
	const uint8_t *base = m->nomsg ? m->chunks[0].dst.addr : m->payload;
	uint32_t blen = m->nomsg ? m->chunks[0].len : m->payload_len, bi = 0, o = 0;
	uint8_t *out = fuzz_alloc(TARGET, m->total_len);

	for (unsigned int k = m->nomsg ? 1 : 0; k < m->nchunks; k++) {
		const struct rpcrdma_marshal_rchunk *c = &m->chunks[k];
		uint32_t take = c->pos - o, padded = (c->len + 3) & ~3u;

		if (c->pos < o || take > blen - bi || padded > m->total_len - c->pos)
			fuzz_fail(TARGET, "a chunk outside the call the map accepted", NULL);
		memcpy(out + o, base + bi, take);
		bi += take;
		o += take;
		memcpy(out + o, c->dst.addr, c->len);
		memset(out + o + c->len, 0, padded - c->len);
		o += padded;
	}
	if (blen - bi != m->total_len - o)
		fuzz_fail(TARGET, "the call's length is not its parts'", NULL);
	memcpy(out + o, base + bi, blen - bi);
	*len = m->total_len;
	return out;
}

static void check_reassembly(struct rpcrdma_marshal_call_map *m, const struct rpcrdma_hdr *h)
{
	struct rpcrdma_marshal_rdma ops[RPCRDMA_MARSHAL_MAX_READS];
	uint8_t *bufs[RPCRDMA_XDR_MAX_CHUNKS] = { 0 };
	struct rpcrdma_xdr_dec dec;
	uint8_t *want, *got;
	uint32_t len, at = 0;
	unsigned int k;
	int n, ret;

	/* the Reads need a destination for every chunk first */
	n = rpcrdma_marshal_call_reads(m, ops, RPCRDMA_MARSHAL_MAX_READS);
	if (m->nchunks != 0 && n != -EINVAL)
		fuzz_fail(TARGET, "Reads without a destination", NULL);
	for (k = 0; k < m->nchunks; k++) {
		bufs[k] = fuzz_alloc(TARGET, m->chunks[k].len);
		for (uint32_t i = 0; i < m->chunks[k].len; i++)
			bufs[k][i] = chunk_byte(k, i);
		m->chunks[k].dst = rpcrdma_xdr_region_va(bufs[k], m->chunks[k].len, 0x1000u + k, 0);
	}
	n = rpcrdma_marshal_call_reads(m, ops, RPCRDMA_MARSHAL_MAX_READS);
	if (n == -ENOSPC) {
		uint32_t nonzero = 0;

		for (uint32_t i = 0; i < h->chunks.nreads; i++)
			nonzero += h->chunks.reads[i].target.length != 0;
		if (nonzero <= RPCRDMA_MARSHAL_MAX_READS)
			fuzz_fail(TARGET, "-ENOSPC with room for the Reads", NULL);
	} else if (n < 0) {
		fuzz_fail(TARGET, "Reads refused with every destination set", NULL);
	} else {
		check_reads(m, h, ops, n);
	}

	ret = rpcrdma_marshal_call_dec(m, &dec);
	if (ret != 0)
		fuzz_fail(TARGET, "the decoding stream refused a call the map accepted", NULL);
	if (rpcrdma_xdr_dec_left(&dec) != m->total_len)
		fuzz_fail(TARGET, "the stream's length is not total_len", NULL);
	want = expected_call(m, &len);
	got = fuzz_alloc(TARGET, len);
	/* in words, as XDR items are read, then the tail */
	while (len - at >= 4) {
		uint32_t w;

		if (rpcrdma_xdr_get_u32(&dec, &w) != 0)
			fuzz_fail(TARGET, "the stream ended early", NULL);
		got[at++] = (uint8_t)(w >> 24);
		got[at++] = (uint8_t)(w >> 16);
		got[at++] = (uint8_t)(w >> 8);
		got[at++] = (uint8_t)w;
	}
	if (at < len && rpcrdma_xdr_get_slow(&dec, got + at, len - at) != 0)
		fuzz_fail(TARGET, "the stream's tail", NULL);
	if (rpcrdma_xdr_dec_left(&dec) != 0 || memcmp(got, want, len) != 0)
		fuzz_fail(TARGET, "the reassembled call differs", NULL);
	free(got);
	free(want);
	for (k = 0; k < m->nchunks; k++)
		free(bufs[k]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpcrdma_hdr_storage st;
	struct rpcrdma_hdr *h = rpcrdma_hdr_storage_init(&st);
	struct rpcrdma_marshal_call_map map;
	uint32_t max_call = size % 2 ? 0 : CALL_MAX;
	int ret;

	if (size > UINT32_MAX)
		return 0;
	ret = rpcrdma_hdr_decode(h, data, (uint32_t)size);
	if (ret < 0)
		return 0;
	if ((uint32_t)ret != h->hdr_len || h->hdr_len > size)
		fuzz_fail(TARGET, "the header's length", NULL);
	ret = rpcrdma_marshal_call_map(h, data + h->hdr_len, (uint32_t)size - h->hdr_len, max_call,
				       &map);
	if (ret == -EINVAL) {
		if (h->proc == RPCRDMA_MSG || h->proc == RPCRDMA_NOMSG)
			fuzz_fail(TARGET, "-EINVAL for RDMA_MSG or RDMA_NOMSG", NULL);
		return 0;
	}
	if (ret == -E2BIG) {
		if (h->chunks.nreads <= RPCRDMA_XDR_MAX_CHUNKS)
			fuzz_fail(TARGET, "-E2BIG for a read list of few segments", NULL);
		return 0;
	}
	fuzz_check_ret(TARGET, ret);
	if (ret < 0)
		return 0;
	check_map(&map, h, (uint32_t)size - h->hdr_len, max_call, ret);
	if (map.total_len <= CALL_MAX)
		check_reassembly(&map, h);
	return 0;
}

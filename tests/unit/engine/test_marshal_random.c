/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hostile input at random, under AddressSanitizer: seeded random read lists
 * and inline lengths go through rpcrdma_marshal_call_map(); accepted ones
 * are reassembled over exact-size heap buffers and decoded with random
 * getters (a limit of 64 KiB per call keeps the buffers small). Every pointer a getter returns must lie inside the inline part
 * or a chunk buffer, position + left must stay the reassembled length, and
 * nothing may read outside a buffer. Also the new error numbers' names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rpcrdma_marshal.h>

#include "engine_test.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? (uint32_t)(rng % n) : 0;
}

static bool inside(const void *p, uint32_t n, const void *buf, uint32_t len)
{
	const uint8_t *q = p, *b = buf;

	return q >= b && q <= b + len && n <= (uint32_t)(b + len - q);
}

struct stats {
	unsigned long maps, accepted, getters, ok_gets, chunk_hits;
	unsigned long err[8];
};

static void one(struct stats *st)
{
	struct rpcrdma_read_segment reads[24];
	struct rpcrdma_hdr hdr;
	struct rpcrdma_marshal_call_map map;
	struct rpcrdma_marshal_rdma ops[24];
	struct rpcrdma_xdr_dec dec;
	uint8_t *inl, *dst[RPCRDMA_XDR_MAX_CHUNKS] = { NULL };
	uint32_t inl_len = rnd(4) ? 4 * rnd(40) + rnd(2) * rnd(4) : 0, pos = 0, i;
	int ret;

	memset(&hdr, 0, sizeof(hdr));
	hdr.vers = 1;
	hdr.proc = rnd(3) ? RPCRDMA_MSG : RPCRDMA_NOMSG;
	hdr.chunks.reads = reads;
	hdr.chunks.nreads = (uint16_t)rnd(rnd(4) ? 6 : 24);
	for (i = 0; i < hdr.chunks.nreads; i++) {
		/* Mostly plausible: increasing, aligned, inside; sometimes not. */
		if (rnd(3))
			pos += 4 * rnd(8);
		else
			pos = rnd(8) ? 4 * rnd(60) : rnd(300);
		reads[i].position = pos;
		reads[i].target.handle = rnd(3);
		reads[i].target.offset = rnd(1000);
		reads[i].target.length = rnd(10)  ? 1 + rnd(rnd(2) ? 8 : 70)
					 : rnd(2) ? 0xffffffffu - rnd(8)
						  : 0;
	}
	inl = test_malloc(inl_len);
	test_fill(inl, inl_len, (uint32_t)rng);
	/* Words that look like small lengths, so opaques sometimes decode. */
	for (i = 0; i + 4 <= inl_len; i += 4)
		if (rnd(2))
			memcpy(inl + i, (uint8_t[4]){ 0, 0, 0, (uint8_t)rnd(rnd(2) ? 9 : 80) }, 4);

	st->maps++;
	ret = rpcrdma_marshal_call_map(&hdr, inl, hdr.proc == RPCRDMA_NOMSG && rnd(4) ? 0 : inl_len,
				       rnd(4) ? 1u << 16 : rnd(400), &map);
	if (ret < 0) {
		st->err[(-ret) % 8]++;
		free(inl);
		return;
	}
	st->accepted++;
	CHECK(ret == map.nchunks && map.nchunks >= (map.nomsg ? 1 : 0), "map count");
	for (i = 0; i < map.nchunks; i++) {
		dst[i] = test_malloc(map.chunks[i].len);
		test_fill(dst[i], map.chunks[i].len, i);
		map.chunks[i].dst.addr = dst[i];
		map.chunks[i].dst.len = map.chunks[i].len;
	}
	ret = rpcrdma_marshal_call_reads(&map, ops, 24);
	CHECK(ret >= 0 && ret <= hdr.chunks.nreads, "reads %d", ret);
	ret = rpcrdma_marshal_call_dec(&map, &dec);
	CHECK(ret == 0, "an accepted map reassembles (%d)", ret);
	if (ret == 0) {
		CHECK(rpcrdma_xdr_dec_left(&dec) == map.total_len, "left %u, total %u",
		      rpcrdma_xdr_dec_left(&dec), map.total_len);
		for (i = 0; i < 64; i++) {
			const void *p = NULL;
			uint32_t n = 0, v, k;
			uint64_t h;
			bool ok = false;

			st->getters++;
			switch (rnd(5)) {
			case 0:
				ret = rpcrdma_xdr_get_u32(&dec, &v);
				break;
			case 1:
				ret = rpcrdma_xdr_get_u64(&dec, &h);
				break;
			case 2:
				ret = rpcrdma_xdr_get_opaque(&dec, rnd(100), &p, &n);
				break;
			case 3:
				ret = rpcrdma_xdr_get_ddp(&dec, UINT32_MAX, &p, &n);
				break;
			default:
				n = rnd(12);
				ret = rpcrdma_xdr_get_opaque_fixed(&dec, n, &p);
				break;
			}
			CHECK(rpcrdma_xdr_dec_pos(&dec) + rpcrdma_xdr_dec_left(&dec) ==
				      map.total_len,
			      "pos + left");
			if (ret)
				continue;
			st->ok_gets++;
			if (!p)
				continue;
			if (inside(p, n, inl, inl_len))
				ok = true;
			for (k = 0; k < map.nchunks; k++)
				if (inside(p, n, dst[k], map.chunks[k].len)) {
					ok = true;
					st->chunk_hits += p == dst[k];
				}
			CHECK(ok, "a returned item lies in a received buffer");
		}
	}
	for (i = 0; i < map.nchunks; i++)
		free(dst[i]);
	free(inl);
}

static void check_errnames(void)
{
	static const struct {
		int err;
		const char *name;
	} names[] = {
		{ RPCRDMA_E_CHUNK_POS, "CHUNK_POS" }, { RPCRDMA_E_CHUNK_LEN, "CHUNK_LEN" },
		{ RPCRDMA_E_NOMSG, "NOMSG" },	      { RPCRDMA_E_CHUNK_OFFER, "CHUNK_OFFER" },
		{ RPCRDMA_E_XDR_END, "XDR_END" },
	};
	unsigned int i, j;

	for (i = 0; i < 5; i++) {
		CHECK(strcmp(rpcrdma_errname(-names[i].err), names[i].name) == 0, "errname %s",
		      names[i].name);
		for (j = 0; j < i; j++)
			CHECK(strcmp(rpcrdma_strerror(-names[i].err),
				     rpcrdma_strerror(-names[j].err)) != 0,
			      "distinct descriptions");
	}
	/* The NFSv3 and MOUNT codecs' (engine/codec/nfs3/) come after the streams'. */
	CHECK(RPCRDMA_E_ARRAY + 1 == RPCRDMA_E_MAX, "the last error number");
}

int main(void)
{
	struct stats st = { 0 };
	unsigned int i;

	for (i = 0; i < 20000; i++)
		one(&st);
	printf("random: %lu read lists, %lu accepted, %lu getters, %lu decoded, %lu from chunks\n",
	       st.maps, st.accepted, st.getters, st.ok_gets, st.chunk_hits);
	CHECK(st.accepted > 1000 && st.accepted < st.maps - 1000 && st.chunk_hits > 50,
	      "both outcomes exercised");
	check_errnames();
	return test_summary("test_marshal_random");
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * XDR streams: encoding with capacity checks and DDP-eligible items,
 * decoding over pieces with chunks inserted (read chunk round-up) and
 * write chunks consumed, hostile lengths and positions.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rpcrdma/rpcrdma_xdr.h>

#include "engine_test.h"

static const uint8_t zeros[8];

static struct rpcrdma_xdr_region mem_of(void *p, uint32_t len)
{
	return rpcrdma_xdr_region_va(p, len, 1, 2);
}

/* Every put either fits or leaves the stream byte for byte as it was. */
static void check_enc_capacity(void)
{
	uint8_t buf[64], snap[64], data[16];
	struct rpcrdma_xdr_region mem = mem_of(buf, 12);
	struct rpcrdma_xdr_enc xdr;
	uint8_t *p;

	test_fill(data, sizeof(data), 1);
	memset(buf, 0xee, sizeof(buf));
	rpcrdma_xdr_enc_init(&xdr, &mem);
	CHECK(rpcrdma_xdr_put_u32(&xdr, 0x01020304) == 0, "u32");
	CHECK(rpcrdma_xdr_put_u64(&xdr, 0x0506070809101112ull) == 0, "u64");
	CHECK(xdr.len == 12 && xdr.pos == 12, "len %u pos %u", xdr.len, xdr.pos);
	CHECK(memcmp(buf, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x10\x11\x12", 12) == 0,
	      "big-endian bytes");
	memcpy(snap, buf, sizeof(buf));
	CHECK(rpcrdma_xdr_put_u32(&xdr, 1) == -ENOSPC, "u32 past the end");
	CHECK(rpcrdma_xdr_put_bool(&xdr, true) == -ENOSPC, "bool past the end");
	CHECK(rpcrdma_xdr_put_opaque(&xdr, data, 0) == -ENOSPC, "opaque past the end");
	CHECK(rpcrdma_xdr_reserve(&xdr, 1) == NULL, "reserve past the end");
	CHECK(xdr.len == 12 && xdr.pos == 12 && memcmp(buf, snap, sizeof(buf)) == 0,
	      "unchanged after -ENOSPC");

	/* opaque<>: 4 + 5 + 3 pad = 12 fits; 4 + 13 + 3 does not fit 16. */
	mem = mem_of(buf, 16);
	rpcrdma_xdr_enc_init(&xdr, &mem);
	CHECK(rpcrdma_xdr_put_opaque(&xdr, data, 13) == -ENOSPC, "opaque 13 into 16");
	CHECK(xdr.len == 0 && xdr.pos == 0, "unchanged");
	CHECK(rpcrdma_xdr_put_opaque(&xdr, data, 5) == 0, "opaque 5");
	CHECK(xdr.len == 12 && memcmp(buf, "\0\0\0\5", 4) == 0 && memcmp(buf + 4, data, 5) == 0 &&
		      memcmp(buf + 9, zeros, 3) == 0,
	      "opaque length, bytes, zero pad");
	CHECK(rpcrdma_xdr_put_opaque_fixed(&xdr, data, 5) == -ENOSPC, "fixed 5 into 4");
	CHECK(rpcrdma_xdr_put_string(&xdr, "", 0) == 0 && xdr.len == 16, "empty string");

	/* reserve rounds up and zeroes the pad. */
	memset(buf, 0xee, sizeof(buf));
	mem = mem_of(buf, 64);
	rpcrdma_xdr_enc_init(&xdr, &mem);
	p = rpcrdma_xdr_reserve(&xdr, 6);
	CHECK(p == buf && xdr.len == 8 && xdr.pos == 8, "reserve 6 takes 8");
	CHECK(buf[6] == 0 && buf[7] == 0 && buf[8] == 0xee, "pad zeroed, nothing more");
	CHECK(rpcrdma_xdr_put_opaque_fixed(&xdr, data, 3) == 0 && xdr.len == 12 && buf[11] == 0,
	      "fixed 3 + 1 pad");
	CHECK(rpcrdma_xdr_put_bool(&xdr, true) == 0 && memcmp(buf + 12, "\0\0\0\1", 4) == 0,
	      "bool true is 1");
	CHECK(rpcrdma_xdr_enc_pos(&xdr) == 16, "pos");
}

static void check_put_ddp(void)
{
	uint8_t buf[256], data[64];
	struct rpcrdma_xdr_region mem = mem_of(buf, sizeof(buf)), d;
	struct rpcrdma_xdr_enc xdr;
	unsigned int i;

	rpcrdma_xdr_enc_init(&xdr, &mem);
	rpcrdma_xdr_put_u32(&xdr, 7);
	d = rpcrdma_xdr_region_va(data, 5, 3, 4);
	CHECK(rpcrdma_xdr_put_ddp(&xdr, &d) == 0, "ddp 5");
	/* Length word inline, data recorded: position past the padded data. */
	CHECK(xdr.len == 8 && xdr.pos == 16, "len %u pos %u", xdr.len, xdr.pos);
	CHECK(memcmp(buf + 4, "\0\0\0\5", 4) == 0, "length word inline");
	CHECK(xdr.nddp == 1 && xdr.ddp[0].pos == 8 && xdr.ddp[0].off == 8 &&
		      xdr.ddp[0].data.addr == data && xdr.ddp[0].data.len == 5,
	      "item recorded at pos 8, off 8");
	rpcrdma_xdr_put_u32(&xdr, 9);
	d.len = 2;
	CHECK(rpcrdma_xdr_put_ddp(&xdr, &d) == 0, "ddp 2");
	CHECK(xdr.ddp[1].pos == 24 && xdr.ddp[1].off == 16 && xdr.pos == 28 && xdr.len == 16,
	      "second item pos %u off %u; stream pos %u len %u", xdr.ddp[1].pos, xdr.ddp[1].off,
	      xdr.pos, xdr.len);
	d.len = 0;
	for (i = 2; i < RPCRDMA_XDR_MAX_DDP; i++)
		CHECK(rpcrdma_xdr_put_ddp(&xdr, &d) == 0, "ddp %u", i);
	CHECK(rpcrdma_xdr_put_ddp(&xdr, &d) == -E2BIG, "one past RPCRDMA_XDR_MAX_DDP");
	CHECK(xdr.nddp == RPCRDMA_XDR_MAX_DDP && xdr.len == 16 + 4 * (RPCRDMA_XDR_MAX_DDP - 2),
	      "unchanged after -E2BIG");

	/* No room for the length word; NULL data; a position past 2^32. */
	mem = mem_of(buf, 4);
	rpcrdma_xdr_enc_init(&xdr, &mem);
	rpcrdma_xdr_put_u32(&xdr, 1);
	d = rpcrdma_xdr_region_va(data, 1, 3, 4);
	CHECK(rpcrdma_xdr_put_ddp(&xdr, &d) == -ENOSPC && xdr.nddp == 0, "no room: -ENOSPC");
	mem = mem_of(buf, sizeof(buf));
	rpcrdma_xdr_enc_init(&xdr, &mem);
	d.addr = NULL;
	CHECK(rpcrdma_xdr_put_ddp(&xdr, &d) == -EINVAL && xdr.len == 0, "NULL data: -EINVAL");
	d = rpcrdma_xdr_region_va(data, 0xfffffff0u, 3, 4);
	CHECK(rpcrdma_xdr_put_ddp(&xdr, &d) == 0, "item of 0xfffffff0 bytes");
	CHECK(xdr.pos == 0xfffffff4u, "pos %#x", xdr.pos);
	d.len = 5; /* 0xfffffff4 + 4 + 8 */
	CHECK(rpcrdma_xdr_put_ddp(&xdr, &d) == -EMSGSIZE && xdr.nddp == 1,
	      "position past RPCRDMA_XDR_POS_MAX: -EMSGSIZE");
	CHECK(rpcrdma_xdr_put_u32(&xdr, 1) == 0 && rpcrdma_xdr_put_u32(&xdr, 1) == 0 &&
		      xdr.pos == RPCRDMA_XDR_POS_MAX,
	      "two words reach POS_MAX");
	CHECK(rpcrdma_xdr_put_u32(&xdr, 1) == -ENOSPC, "no word past POS_MAX");
}

/* Decode a plain inline stream, and every error at its end. */
static void check_dec_inline(void)
{
	uint8_t buf[64];
	struct rpcrdma_xdr_region mem = mem_of(buf, sizeof(buf));
	struct rpcrdma_xdr_enc xdr;
	struct rpcrdma_xdr_dec dec;
	const void *p;
	uint32_t v, n;
	uint64_t h;
	bool b;

	rpcrdma_xdr_enc_init(&xdr, &mem);
	rpcrdma_xdr_put_u32(&xdr, 0xdeadbeef);
	rpcrdma_xdr_put_u64(&xdr, 0x0102030405060708ull);
	rpcrdma_xdr_put_bool(&xdr, true);
	rpcrdma_xdr_put_string(&xdr, "hello", 5);
	rpcrdma_xdr_put_u32(&xdr, 2);	/* a bad bool */
	rpcrdma_xdr_put_u32(&xdr, 100); /* an opaque length past the end */

	rpcrdma_xdr_dec_init(&dec, buf, xdr.len);
	CHECK(rpcrdma_xdr_dec_left(&dec) == xdr.len, "left %u", rpcrdma_xdr_dec_left(&dec));
	CHECK(rpcrdma_xdr_get_u32(&dec, &v) == 0 && v == 0xdeadbeef, "u32 %#x", v);
	CHECK(rpcrdma_xdr_get_u64(&dec, &h) == 0 && h == 0x0102030405060708ull, "u64");
	CHECK(rpcrdma_xdr_get_bool(&dec, &b) == 0 && b, "bool");
	CHECK(rpcrdma_xdr_get_opaque(&dec, 4, &p, &n) == -RPCRDMA_E_OPAQUE_BOUND,
	      "string over its bound");
	CHECK(rpcrdma_xdr_dec_pos(&dec) == 16, "unchanged: pos %u", rpcrdma_xdr_dec_pos(&dec));
	CHECK(rpcrdma_xdr_get_opaque(&dec, 5, &p, &n) == 0 && n == 5 && p == buf + 20 &&
		      memcmp(p, "hello", 5) == 0,
	      "string in place");
	CHECK(rpcrdma_xdr_get_bool(&dec, &b) == -RPCRDMA_E_BOOL && rpcrdma_xdr_dec_pos(&dec) == 28,
	      "bool 2");
	CHECK(rpcrdma_xdr_get_u32(&dec, &v) == 0 && v == 2, "the same word as u32");
	CHECK(rpcrdma_xdr_get_opaque(&dec, 1000, &p, &n) == -RPCRDMA_E_OPAQUE &&
		      rpcrdma_xdr_dec_pos(&dec) == 32,
	      "opaque past the end");
	CHECK(rpcrdma_xdr_get_u64(&dec, &h) == -RPCRDMA_E_XDR_END, "u64 over the last word");
	CHECK(rpcrdma_xdr_get_u32(&dec, &v) == 0 && v == 100, "last word");
	CHECK(rpcrdma_xdr_get_u32(&dec, &v) == -RPCRDMA_E_XDR_END, "u32 at the end");
	CHECK(rpcrdma_xdr_get_opaque_fixed(&dec, 0, &p) == 0 && p == NULL, "empty fixed at end");
	CHECK(rpcrdma_xdr_get_opaque_fixed(&dec, 4, &p) == -RPCRDMA_E_OPAQUE, "fixed past end");
	CHECK(rpcrdma_xdr_dec_left(&dec) == 0, "nothing left");

	/* A huge length must not wrap its pad to 0. */
	rpcrdma_xdr_enc_init(&xdr, &mem);
	rpcrdma_xdr_put_u32(&xdr, 0xfffffffdu);
	rpcrdma_xdr_put_u32(&xdr, 0);
	rpcrdma_xdr_dec_init(&dec, buf, xdr.len);
	CHECK(rpcrdma_xdr_get_opaque(&dec, UINT32_MAX, &p, &n) == -RPCRDMA_E_OPAQUE,
	      "length 0xfffffffd");
	/* A stream whose length is not a multiple of 4: the tail is short. */
	rpcrdma_xdr_dec_init(&dec, buf, 6);
	CHECK(rpcrdma_xdr_get_u32(&dec, &v) == 0 &&
		      rpcrdma_xdr_get_u32(&dec, &v) == -RPCRDMA_E_XDR_END,
	      "2 bytes are not a word");
}

/*
 * Responder reassembly: inline [A len1][B len2][C] with chunk 1 (5 bytes,
 * sent without pad) at position 8 and chunk 2 (8 bytes) at position 20.
 */
static void check_dec_chunks(void)
{
	uint8_t in[20], c1[5], c2[8], c3[3];
	struct rpcrdma_xdr_dec dec;
	const void *p;
	uint32_t v, n, i;
	uint64_t h;

	/* inline: A=0xa, len1=5 | B=0xb, len2=8 | C=0xc, D=0xd */
	memcpy(in, "\0\0\0\x0a\0\0\0\x05\0\0\0\x0b\0\0\0\x08\0\0\0\x0c", 20);
	test_fill(c1, sizeof(c1), 11);
	test_fill(c2, sizeof(c2), 12);
	test_fill(c3, sizeof(c3), 13);

	rpcrdma_xdr_dec_init(&dec, in, 20);
	CHECK(rpcrdma_xdr_dec_add_chunk(&dec, 6, c1, 5) == -RPCRDMA_E_CHUNK_POS, "unaligned");
	CHECK(rpcrdma_xdr_dec_add_chunk(&dec, 24, c1, 5) == -RPCRDMA_E_CHUNK_POS,
	      "past the inline part");
	CHECK(rpcrdma_xdr_dec_add_chunk(&dec, 8, c1, 0) == -RPCRDMA_E_CHUNK_LEN, "length 0");
	CHECK(rpcrdma_xdr_dec_add_chunk(&dec, 8, c1, 0xfffffff0u) == -RPCRDMA_E_CHUNK_LEN,
	      "past 2^32");
	CHECK(dec.npieces == 1, "unchanged after errors");
	CHECK(rpcrdma_xdr_dec_add_chunk(&dec, 8, c1, 5) == 0, "chunk 1 at 8");
	/* The stream now is 8 inline, 8 chunk (5 + 3 virtual pad), 12 inline. */
	CHECK(rpcrdma_xdr_dec_add_chunk(&dec, 12, c2, 8) == -RPCRDMA_E_CHUNK_POS, "inside chunk 1");
	CHECK(rpcrdma_xdr_dec_add_chunk(&dec, 36, c2, 8) == -RPCRDMA_E_CHUNK_POS,
	      "past inline + chunk 1 (28 bytes)");
	CHECK(rpcrdma_xdr_dec_add_chunk(&dec, 24, c2, 8) == 0, "chunk 2 at 24");
	CHECK(rpcrdma_xdr_dec_left(&dec) == 36, "36 bytes: 20 inline + 8 + 8, left %u",
	      rpcrdma_xdr_dec_left(&dec));

	CHECK(rpcrdma_xdr_get_u32(&dec, &v) == 0 && v == 0xa, "A");
	CHECK(rpcrdma_xdr_dec_add_chunk(&dec, 32, c3, 3) == -EBUSY, "no chunk once decoding");
	CHECK(rpcrdma_xdr_get_ddp(&dec, 100, &p, &n) == 0 && p == c1 && n == 5,
	      "item 1 in chunk 1, zero copy (%p vs %p)", p, (const void *)c1);
	CHECK(rpcrdma_xdr_dec_pos(&dec) == 16, "past the chunk and its pad: %u",
	      rpcrdma_xdr_dec_pos(&dec));
	CHECK(rpcrdma_xdr_get_u32(&dec, &v) == 0 && v == 0xb, "B");
	CHECK(rpcrdma_xdr_get_opaque(&dec, 7, &p, &n) == -RPCRDMA_E_OPAQUE_BOUND, "bound");
	CHECK(rpcrdma_xdr_get_opaque(&dec, 8, &p, &n) == 0 && p == c2 && n == 8, "item 2");
	CHECK(rpcrdma_xdr_get_u32(&dec, &v) == 0 && v == 0xc, "C");
	CHECK(rpcrdma_xdr_dec_left(&dec) == 0, "end");

	/* Fixed-size reads across pieces: a u64 over [len1 | chunk 1], and the virtual pad. */
	rpcrdma_xdr_dec_init(&dec, in, 20);
	rpcrdma_xdr_dec_add_chunk(&dec, 8, c1, 5);
	rpcrdma_xdr_get_u32(&dec, &v);
	CHECK(rpcrdma_xdr_get_u64(&dec, &h) == 0 &&
		      h == ((uint64_t)5 << 32 | (uint64_t)c1[0] << 24 | (uint64_t)c1[1] << 16 |
			    (uint64_t)c1[2] << 8 | c1[3]),
	      "u64 across an inline piece and a chunk");
	CHECK(rpcrdma_xdr_get_u32(&dec, &v) == 0 && v == (uint32_t)c1[4] << 24,
	      "the chunk's last byte and 3 bytes of virtual pad: %#x", v);
	CHECK(rpcrdma_xdr_dec_pos(&dec) == 16, "pos 16");

	/* The chunk length must match the XDR length word, or that rounded up. */
	for (i = 0; i < 3; i++) {
		static const uint32_t lens[3] = { 4, 8, 6 };
		static const int want[3] = { -RPCRDMA_E_CHUNK_LEN, 0, -RPCRDMA_E_CHUNK_LEN };
		uint8_t pad8[8];

		memcpy(pad8, c2, 8);
		rpcrdma_xdr_dec_init(&dec, in, 20);
		rpcrdma_xdr_dec_add_chunk(&dec, 8, pad8, lens[i]);
		rpcrdma_xdr_get_u32(&dec, &v);
		CHECK(rpcrdma_xdr_get_ddp(&dec, 100, &p, &n) == want[i],
		      "length word 5, chunk of %u bytes", lens[i]);
		if (want[i] == 0)
			CHECK(p == pad8 && n == 5 && rpcrdma_xdr_dec_pos(&dec) == 16,
			      "a chunk with its pad: 5 bytes, position 16");
		else
			CHECK(rpcrdma_xdr_dec_pos(&dec) == 4, "unchanged on error");
	}

	/* Inline data that runs into a chunk: the chunk was inserted inside an item. */
	rpcrdma_xdr_dec_init(&dec, in, 20);
	rpcrdma_xdr_dec_add_chunk(&dec, 12, c2, 8);
	rpcrdma_xdr_get_u32(&dec, &v);
	CHECK(rpcrdma_xdr_get_opaque(&dec, 100, &p, &n) == -RPCRDMA_E_CHUNK_POS,
	      "opaque of 5 at 4 crosses the chunk at 12");
	CHECK(rpcrdma_xdr_get_opaque_fixed(&dec, 12, &p) == -RPCRDMA_E_CHUNK_POS,
	      "fixed opaque across a chunk");
	CHECK(rpcrdma_xdr_get_opaque_fixed(&dec, 8, &p) == 0 && p == in + 4, "fixed up to it");
	CHECK(rpcrdma_xdr_get_opaque_fixed(&dec, 4, &p) == -RPCRDMA_E_CHUNK_LEN,
	      "fixed opaque[4] at a chunk of 8");
	CHECK(rpcrdma_xdr_get_opaque_fixed(&dec, 6, &p) == 0 && p == c2 &&
		      rpcrdma_xdr_dec_pos(&dec) == 20,
	      "fixed opaque[6] at a chunk of 8: the chunk with its pad");
}

/* A chunk at the very end, a chunk at position 0, and the chunk limit. */
static void check_dec_edges(void)
{
	uint8_t in[8] = { 0, 0, 0, 1, 0, 0, 0, 3 }, c[3] = { 7, 8, 9 }, big[4 * 40];
	struct rpcrdma_xdr_dec dec;
	const void *p;
	uint32_t n, i, v;

	rpcrdma_xdr_dec_init(&dec, in, 8);
	CHECK(rpcrdma_xdr_dec_add_chunk(&dec, 8, c, 3) == 0, "a chunk at the end");
	rpcrdma_xdr_get_u32(&dec, &v);
	CHECK(rpcrdma_xdr_get_ddp(&dec, 3, &p, &n) == 0 && p == c && n == 3, "last item");
	CHECK(rpcrdma_xdr_dec_left(&dec) == 0 && rpcrdma_xdr_dec_pos(&dec) == 12, "pos 12");
	CHECK(rpcrdma_xdr_get_u32(&dec, &v) == -RPCRDMA_E_XDR_END, "end");

	/* The base of an RDMA_NOMSG is a chunk itself; chunks may start at 0. */
	rpcrdma_xdr_dec_init(&dec, in, 8);
	CHECK(rpcrdma_xdr_dec_add_chunk(&dec, 0, c, 3) == 0, "chunk at 0");
	CHECK(rpcrdma_xdr_get_opaque_fixed(&dec, 3, &p) == 0 && p == c, "fixed opaque chunk");
	CHECK(rpcrdma_xdr_get_u32(&dec, &v) == 0 && v == 1, "inline after it");

	memset(big, 0, sizeof(big));
	rpcrdma_xdr_dec_init(&dec, big, sizeof(big));
	for (i = 0; i < RPCRDMA_XDR_MAX_CHUNKS; i++)
		CHECK(rpcrdma_xdr_dec_add_chunk(&dec, 8 * i + 4, c, 3) == 0, "chunk %u", i);
	CHECK(rpcrdma_xdr_dec_add_chunk(&dec, 8 * i + 4, c, 3) == -E2BIG, "one chunk too many");
}

/* Requester: write chunks consumed in order by DDP-eligible results. */
static void check_dec_writes(void)
{
	/* len 5 | len 3 | len 2 'xy' pad | len 4 | u32 9 */
	uint8_t in[28] = { 0, 0, 0, 5, 0, 0, 0, 3, 0, 0, 0, 2, 'x', 'y',
			   0, 0, 0, 0, 0, 4, 0, 0, 0, 9, 0, 0, 0,   0 };
	uint8_t w1[5], w2[8], w3[4];
	struct rpcrdma_xdr_dec dec;
	const void *p;
	uint32_t n, v;
	unsigned int i;

	test_fill(w1, 5, 21);
	test_fill(w2, 8, 22);
	rpcrdma_xdr_dec_init(&dec, in, 20);
	CHECK(rpcrdma_xdr_dec_add_write(&dec, w1, 5) == 0, "write 1");
	CHECK(rpcrdma_xdr_dec_add_write(&dec, w2, 4) == 0, "write 2 (padded length 4 for 3)");
	CHECK(rpcrdma_xdr_dec_add_write(&dec, w3, 0) == 0, "write 3 unused");
	CHECK(rpcrdma_xdr_dec_add_write(&dec, w3, 3) == 0, "write 4 disagrees");
	CHECK(rpcrdma_xdr_get_ddp(&dec, 100, &p, &n) == 0 && p == w1 && n == 5,
	      "result 1 in write chunk 1, zero copy");
	CHECK(rpcrdma_xdr_dec_pos(&dec) == 4, "reduced: only the length word inline");
	CHECK(rpcrdma_xdr_get_ddp(&dec, 100, &p, &n) == 0 && p == w2 && n == 3,
	      "result 2: a chunk holding the pad too");
	CHECK(rpcrdma_xdr_get_ddp(&dec, 100, &p, &n) == 0 && p == in + 12 && n == 2 &&
		      dec.wnext == 3,
	      "unused chunk: result 3 inline");
	CHECK(rpcrdma_xdr_get_ddp(&dec, 100, &p, &n) == -RPCRDMA_E_CHUNK_LEN && dec.wnext == 3 &&
		      rpcrdma_xdr_dec_pos(&dec) == 16,
	      "length 4, chunk wrote 3: error, unchanged");
	CHECK(rpcrdma_xdr_get_opaque(&dec, 100, &p, &n) == -RPCRDMA_E_OPAQUE,
	      "a plain opaque does not consume write chunks");
	CHECK(rpcrdma_xdr_get_u32(&dec, &v) == 0 && v == 4, "the length word as u32");

	rpcrdma_xdr_dec_init(&dec, in, 24);
	for (i = 0; i < RPCRDMA_XDR_MAX_DDP; i++)
		CHECK(rpcrdma_xdr_dec_add_write(&dec, w1, 5) == 0, "write %u", i);
	CHECK(rpcrdma_xdr_dec_add_write(&dec, w1, 5) == -E2BIG, "one write chunk too many");
}

int main(void)
{
	check_enc_capacity();
	check_put_ddp();
	check_dec_inline();
	check_dec_chunks();
	check_dec_edges();
	check_dec_writes();
	return test_summary("test_xdr");
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NFSv3 and MOUNT v3 codecs (engine/codec/nfs3/) against rpcgen's code for
 * tests/xdr/nfs3.x, on seeded random values of every procedure's arguments
 * and results (nfs3_kinds.h), in both directions:
 *
 *   1. ours encodes; the XDR stream (DDP-eligible data put back at their
 *      positions) is decoded by rpcgen's xdr_<type>() from an xdrmem
 *      stream, which consumes all of it, and compared field by field;
 *   2. rpcgen encodes the same value: the same bytes;
 *   3. ours decodes rpcgen's bytes (an exact-size heap copy, so ASan sees
 *      a read past the end), consumes all of them, and compares field by
 *      field; and again with the DDP-eligible data in chunks, as the
 *      transport delivers them (read chunks inserted in a call, write
 *      chunks in a reply): the decoded data is then the chunk, not a copy;
 *   4. cut short at every byte offset (for the first iterations of each
 *      kind; in a long READDIRPLUS reply every offset of its first and
 *      last 512 bytes and every 17th between), both decoders refuse it,
 *      ours with an error the codec defines and the stream where it was.
 *
 * The random values reach the edges the codec must get right, and the
 * test requires each to have been drawn: empty and 64-byte handles, empty
 * and 255-byte names, attributes absent and present (post_op_attr,
 * pre_op_attr), a handle absent (post_op_fh3), failure arms, zero-length
 * READ data and the EOF flag, each createmode3 and time_how, READDIRPLUS
 * replies of 0, 1 and many entries, MOUNT results with 0 and 16 flavors,
 * a SETATTR guard, a 4096-byte symbolic link, a READDIR reply of many
 * entries.
 *
 * Usage: test_nfs3_rpcgen [iterations [seed [corpus-dir]]]. The seed is
 * printed on failure. With a directory, the messages of the first
 * CORPUS_ITERATIONS iterations are written there as the seed corpus of
 * tests/fuzz/fuzz_nfs3.c: a byte naming the kind, then the XDR
 * (tests/fuzz/corpus/nfs3/ was made so, with the default seed).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpc/rpc.h>

#include <rpcrdma/rpcrdma_mount3.h>
#include <rpcrdma/rpcrdma_nfs3.h>

#include "nfs3.h"
#include "nfs3_kinds.h"
#include "nfs3_rpcgen.h"
#include "test_check.h"

#define DEFAULT_ITERATIONS 300
#define TRUNC_ITERATIONS   10
#define CORPUS_ITERATIONS  2
/* Past this many bytes, cut at every offset near both ends and every 17th between. */
#define TRUNC_ALL 1024
#define BUF_LEN	  (64 * 1024)

static uint64_t seed;
static unsigned long iteration;
static const char *corpus_dir;

/* ---------------------------------------------------------------- driver */

static uint8_t enc_buf[BUF_LEN], flat[BUF_LEN + 4096], rpcgen_buf[BUF_LEN + 4096];
static uint64_t ours_m[NFS3_KIND_MAX_SIZE / 8 + 1], ours_d[NFS3_KIND_MAX_SIZE / 8 + 1];
static uint64_t theirs_m[512], theirs_d[512];

/* The whole XDR stream: the inline part with each DDP item put back. */
static uint32_t flatten(const struct rpcrdma_xdr_enc *xdr, uint8_t *out)
{
	uint32_t i, from = 0, n = 0;

	for (i = 0; i < xdr->nddp; i++) {
		const struct rpcrdma_xdr_ddp *d = &xdr->ddp[i];
		uint32_t pad = rpcrdma_xdr_pad4(d->data.len) - d->data.len;

		memcpy(out + n, enc_buf + from, d->off - from);
		n += d->off - from;
		if (d->data.len)
			memcpy(out + n, d->data.addr, d->data.len);
		n += d->data.len;
		memset(out + n, 0, pad);
		n += pad;
		from = d->off;
	}
	memcpy(out + n, enc_buf + from, xdr->len - from);
	return n + xdr->len - from;
}

static bool is_codec_error(int ret)
{
	return ret < 0 && -ret >= RPCRDMA_ERRNO_BASE && -ret < RPCRDMA_E_MAX;
}

static void fail_cmp(const struct nfs3_kind *k, const char *step)
{
	CHECK(0, "%s: %s: line %d: %s (seed %" PRIu64 ", iteration %lu)", k->name, step, why_line,
	      why, seed, iteration);
}

/* The decoded DDP item is the chunk the transport delivered, not a copy. */
static const void *ddp_of(unsigned int i, const void *v)
{
	if (strcmp(nfs3_kinds[i].name, "READ3res") == 0)
		return ((const struct rpcrdma_nfs3_read_res *)v)->data.addr;
	return ((const struct rpcrdma_nfs3_write_args *)v)->data.addr;
}

static void one(unsigned int i)
{
	const struct nfs3_kind *k = &nfs3_kinds[i];
	struct rpcrdma_xdr_region mem = rpcrdma_xdr_region_va(enc_buf, BUF_LEN, 1, 2);
	struct rpcrdma_xdr_enc xdr;
	struct rpcrdma_xdr_dec dec;
	uint32_t len, cut, j;
	uint8_t *copy;
	XDR x;
	int ret;

	arena_used = 0;
	memset(ours_m, 0, sizeof(ours_m));
	memset(theirs_m, 0, sizeof(theirs_m));
	rk[i].gen(ours_m);
	rk[i].to(ours_m, theirs_m);

	/* 1. ours encodes, rpcgen decodes. */
	rpcrdma_xdr_enc_init(&xdr, &mem);
	ret = k->enc(&xdr, ours_m);
	CHECK(ret == 0, "%s: encode: %s", k->name, rpcrdma_strerror(ret));
	if (ret)
		return;
	len = flatten(&xdr, flat);
	CHECK(xdr.pos == len, "%s: position %u, stream %u bytes", k->name, xdr.pos, len);
	memset(theirs_d, 0, sizeof(theirs_d));
	xdrmem_create(&x, (char *)flat, len, XDR_DECODE);
	CHECK(rk[i].xdr(&x, theirs_d, 0), "%s: rpcgen decodes ours", k->name);
	CHECK(xdr_getpos(&x) == len, "%s: rpcgen consumed %u of %u", k->name, xdr_getpos(&x), len);
	if (!rk[i].cmp(ours_m, theirs_d))
		fail_cmp(k, "ours -> rpcgen");
	xdr_destroy(&x);
	xdr_free(rk[i].xdr, (char *)theirs_d);

	if (corpus_dir && iteration < CORPUS_ITERATIONS && len < 4096) {
		char path[4096];
		uint8_t kb = (uint8_t)i;
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s-%lu", corpus_dir, k->name, iteration);
		f = fopen(path, "wb");
		CHECK(f && fwrite(&kb, 1, 1, f) == 1 && fwrite(flat, 1, len, f) == len &&
			      fclose(f) == 0,
		      "writing %s", path);
	}

	/* 2. rpcgen encodes the same bytes. */
	xdrmem_create(&x, (char *)rpcgen_buf, sizeof(rpcgen_buf), XDR_ENCODE);
	CHECK(rk[i].xdr(&x, theirs_m, 0), "%s: rpcgen encodes", k->name);
	CHECK(xdr_getpos(&x) == len && memcmp(rpcgen_buf, flat, len) == 0,
	      "%s: rpcgen's %u bytes differ from ours (%u)", k->name, xdr_getpos(&x), len);
	xdr_destroy(&x);

	/* 3. ours decodes rpcgen's bytes, all inline. */
	copy = test_heap_copy(rpcgen_buf, len);
	rpcrdma_xdr_dec_init(&dec, copy, len);
	memset(ours_d, 0, sizeof(ours_d));
	ret = k->dec(&dec, ours_d);
	CHECK(ret == 0, "%s: decode: %s (seed %" PRIu64 ", iteration %lu)", k->name,
	      rpcrdma_errname(ret), seed, iteration);
	CHECK(rpcrdma_xdr_dec_left(&dec) == 0, "%s: %u bytes left", k->name,
	      rpcrdma_xdr_dec_left(&dec));
	if (ret == 0 && !rk[i].cmp(ours_d, theirs_m))
		fail_cmp(k, "rpcgen -> ours");

	/* ... and with the DDP-eligible data in chunks: zero copy. */
	if (xdr.nddp) {
		rpcrdma_xdr_dec_init(&dec, enc_buf, xdr.len);
		for (j = 0; j < xdr.nddp; j++) {
			const struct rpcrdma_xdr_ddp *d = &xdr.ddp[j];

			if (k->res)
				ret = rpcrdma_xdr_dec_add_write(&dec, d->data.addr, d->data.len);
			else if (d->data.len)
				ret = rpcrdma_xdr_dec_add_chunk(&dec, d->pos, d->data.addr,
								d->data.len);
			CHECK(ret == 0, "%s: chunk %u: %s", k->name, j, rpcrdma_errname(ret));
		}
		memset(ours_d, 0, sizeof(ours_d));
		ret = k->dec(&dec, ours_d);
		CHECK(ret == 0, "%s: decode with chunks: %s", k->name, rpcrdma_errname(ret));
		CHECK(rpcrdma_xdr_dec_left(&dec) == 0, "%s: chunks: %u bytes left", k->name,
		      rpcrdma_xdr_dec_left(&dec));
		if (ret == 0 && !rk[i].cmp(ours_d, theirs_m))
			fail_cmp(k, "rpcgen -> ours, chunks");
		if (ret == 0 && (k->res || xdr.ddp[0].data.len))
			CHECK(ddp_of(i, ours_d) == xdr.ddp[0].data.addr || xdr.ddp[0].data.len == 0,
			      "%s: the data is the chunk", k->name);
	}

	/* 4. Cut short anywhere: both refuse it; ours leaves the stream as it was. */
	if (iteration < TRUNC_ITERATIONS) {
		for (cut = 0; cut < len; cut++) {
			uint8_t *part;

			if (len > TRUNC_ALL && cut > TRUNC_ALL / 2 && len - cut > TRUNC_ALL / 2 &&
			    cut % 17)
				continue;
			part = test_heap_copy(rpcgen_buf, cut);

			rpcrdma_xdr_dec_init(&dec, part, cut);
			ret = k->dec(&dec, ours_d);
			CHECK(is_codec_error(ret) && rpcrdma_xdr_dec_pos(&dec) == 0,
			      "%s cut at %u of %u: %d", k->name, cut, len, ret);
			memset(theirs_d, 0, sizeof(theirs_d));
			xdrmem_create(&x, (char *)part, cut, XDR_DECODE);
			CHECK(!rk[i].xdr(&x, theirs_d, 0), "%s cut at %u: rpcgen accepts it",
			      k->name, cut);
			xdr_destroy(&x);
			xdr_free(rk[i].xdr, (char *)theirs_d);
			free(part);
		}
	}
	free(copy);
}

int main(int argc, char **argv)
{
	unsigned long iterations = DEFAULT_ITERATIONS;
	unsigned int i, c;

	if (argc > 1)
		iterations = strtoul(argv[1], NULL, 0);
	seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x6e667333ull;
	corpus_dir = argc > 3 ? argv[3] : NULL;
	rng = seed;

	CHECK(rk_n == nfs3_nkinds, "a row per kind");
	for (i = 0; i < nfs3_nkinds && i < rk_n; i++) {
		CHECK(strcmp(rk[i].name, nfs3_kinds[i].name) == 0, "row %u: %s, kind %s", i,
		      rk[i].name, nfs3_kinds[i].name);
		CHECK(rk[i].tsize <= sizeof(theirs_m), "%s: rpcgen's struct fits", rk[i].name);
		CHECK(nfs3_kinds[i].size <= sizeof(ours_m), "%s: our struct fits", rk[i].name);
	}
	if (test_failures)
		return test_summary("test_nfs3_rpcgen");

	for (iteration = 0; iteration < iterations; iteration++)
		for (i = 0; i < nfs3_nkinds; i++)
			one(i);
	for (c = 0; c < COV_N; c++)
		CHECK(cov[c] > 0 || iterations < DEFAULT_ITERATIONS, "never drew: %s", cov_name[c]);
	return test_summary("test_nfs3_rpcgen");
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the NFSv3 and MOUNT v3 decoders (engine/codec/nfs3/), every
 * procedure's arguments and results.
 *
 * The first byte of the input picks the XDR type (its index in
 * tests/unit/nfs3/nfs3_kinds.c, modulo their number); the rest is the XDR.
 * A decoder returns 0 or one of the codec's errors; an accepted value
 * re-encodes (DDP-eligible data put back inline), decodes again to a value
 * that encodes to the same bytes (the encoding is canonical: padding bytes
 * are the only freedom the input has), and a failed decode leaves the
 * stream where it was.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/rpcrdma_xdr.h>

#include "fuzz_common.h"
#include "nfs3_kinds.h"

#define TARGET "fuzz_nfs3"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Encode v as k; the whole stream, DDP items inline, into out; its length or < 0. */
static int encode_flat(const struct nfs3_kind *k, const void *v, uint8_t *inl, uint8_t *out,
		       uint32_t cap)
{
	struct rpcrdma_xdr_region mem = rpcrdma_xdr_region_va(inl, cap, 0, 0);
	struct rpcrdma_xdr_enc xdr;
	uint32_t i, from = 0, n = 0;
	int ret;

	rpcrdma_xdr_enc_init(&xdr, &mem);
	ret = k->enc(&xdr, v);
	if (ret)
		return ret;
	for (i = 0; i < xdr.nddp; i++) {
		const struct rpcrdma_xdr_ddp *d = &xdr.ddp[i];
		uint32_t padded = rpcrdma_xdr_pad4(d->data.len);

		if ((uint64_t)n + d->off - from + padded > cap)
			return -1;
		memcpy(out + n, inl + from, d->off - from);
		n += d->off - from;
		if (d->data.len)
			memcpy(out + n, d->data.addr, d->data.len);
		memset(out + n + d->data.len, 0, padded - d->data.len);
		n += padded;
		from = d->off;
	}
	if ((uint64_t)n + xdr.len - from > cap)
		return -1;
	memcpy(out + n, inl + from, xdr.len - from);
	return (int)(n + xdr.len - from);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t a[NFS3_KIND_MAX_SIZE / 8 + 1], b[NFS3_KIND_MAX_SIZE / 8 + 1];
	const struct nfs3_kind *k;
	struct rpcrdma_xdr_dec dec;
	uint8_t *inl, *enc, *enc2;
	uint32_t len, cap;
	char why[128];
	int ret, n, m;

	if (size < 1 || size > 1u << 20)
		return 0;
	k = &nfs3_kinds[data[0] % nfs3_nkinds];
	len = (uint32_t)size - 1;
	rpcrdma_xdr_dec_init(&dec, data + 1, len);
	ret = k->dec(&dec, a);
	fuzz_check_ret(TARGET, ret);
	if (ret < 0) {
		if (rpcrdma_xdr_dec_pos(&dec) != 0)
			fuzz_fail(TARGET, "a failed decode moved the stream", k->name);
		return 0;
	}

	/* Never longer than what was consumed: the same items, canonical padding. */
	cap = rpcrdma_xdr_dec_pos(&dec);
	inl = malloc(cap + 1);
	enc = malloc(cap + 1);
	enc2 = malloc(cap + 1);
	if (!inl || !enc || !enc2)
		abort();
	n = encode_flat(k, a, inl, enc, cap);
	if (n != (int)cap) {
		snprintf(why, sizeof(why), "%s: %d, decoded %u bytes", k->name, n, cap);
		fuzz_fail(TARGET, "re-encode", why);
	}
	rpcrdma_xdr_dec_init(&dec, enc, (uint32_t)n);
	m = k->dec(&dec, b);
	if (m != 0 || rpcrdma_xdr_dec_left(&dec) != 0)
		fuzz_fail(TARGET, "decode of the re-encoding", k->name);
	m = encode_flat(k, b, inl, enc2, cap);
	if (m != n || memcmp(enc, enc2, (size_t)n) != 0)
		fuzz_fail(TARGET, "encoding not canonical", k->name);
	free(enc2);
	free(enc);
	free(inl);
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * READDIRPLUS3res (RFC 1813 section 3.3.17) and READDIR3res (3.3.16),
 * entry by entry:
 *
 *   st post_op_attr(dir) [cookieverf(8 bytes) entries b(eof)]
 *   entries: (1 entryplus3)* 0
 *   entryplus3: HH(fileid) N - name HH(cookie) post_op_attr post_op_fh3
 *
 *
 *   READDIR3res: the same, with entry3: HH(fileid) N - name HH(cookie)
 *   and the one budget count in place of maxcount (no dircount).
 *
 * The list is XDR's optional-data chain (entryplus3 *nextentry): a TRUE
 * word before each entry, FALSE after the last. The encoder writes one
 * entry per call within the client's budgets; the decoder reads one entry
 * per call, the stream's cursor and the result struct being the cursor, so
 * neither allocates whatever the number of entries.
 */
#include <errno.h>
#include <string.h>

#include "nfs3_xdr.h"

/* The end of the list: value_follows FALSE, then eof. */
#define LIST_END_LEN 8

/* Directory information of an entry, as READDIR's entry3: b HH N - name HH */
static inline uint32_t dir_info_len(uint32_t name_len)
{
	return 4 + 8 + 4 + rpcrdma_xdr_pad4(name_len) + 8;
}

/* ---------------------------------------------------------------- encode */

int rpcrdma_nfs3_readdirplus_begin(struct rpcrdma_nfs3_readdirplus_enc *e,
				   struct rpcrdma_xdr_enc *xdr,
				   const struct rpcrdma_nfs3_readdirplus_res *res,
				   uint32_t dircount, uint32_t maxcount)
{
	struct nfs3_enc_mark m = nfs3_enc_mark(xdr);
	int ret;

	ret = rpcrdma_xdr_put_u32(xdr, res->status);
	if (unlikely(ret))
		return ret;
	e->xdr = xdr;
	e->start = xdr->len;
	e->maxcount = maxcount;
	e->dircount = dircount;
	e->dirbytes = 0;
	e->nentries = 0;
	ret = nfs3_put_post_attr(xdr, &res->dir_attr);
	if (unlikely(ret) || res->status != RPCRDMA_NFS3_OK)
		return unlikely(ret) ? nfs3_enc_undo(xdr, &m, ret) : 0;
	ret = rpcrdma_xdr_put_opaque_fixed(xdr, res->cookieverf, RPCRDMA_NFS3_COOKIEVERFSIZE);
	if (unlikely(ret))
		return nfs3_enc_undo(xdr, &m, ret);
	/* The empty list must fit: the budget and the buffer. */
	if (unlikely(xdr->len - e->start + LIST_END_LEN > maxcount ||
		     !rpcrdma_xdr_enc_room(xdr, LIST_END_LEN)))
		return nfs3_enc_undo(xdr, &m, -ENOSPC);
	return 0;
}

int rpcrdma_nfs3_readdirplus_put(struct rpcrdma_nfs3_readdirplus_enc *e,
				 const struct rpcrdma_nfs3_entryplus *ent)
{
	struct rpcrdma_xdr_enc *xdr = e->xdr;
	struct nfs3_enc_mark m = nfs3_enc_mark(xdr);
	uint32_t info, len;
	int ret;

	if (unlikely(ent->name_len > RPCRDMA_NFS3_NAME_MAX ||
		     (ent->name_attr.present && (ent->name_attr.attr.type < RPCRDMA_NFS3_REG ||
						 ent->name_attr.attr.type > RPCRDMA_NFS3_FIFO)) ||
		     (ent->name_handle.present && ent->name_handle.fh.len > RPCRDMA_NFS3_FHSIZE)))
		return -EINVAL;
	/* Both budgets, checked before a byte is written. */
	info = dir_info_len(ent->name_len);
	if (unlikely(info > e->dircount - e->dirbytes))
		return -ENOSPC;
	len = info + nfs3_post_attr_len(&ent->name_attr) + nfs3_post_fh_len(&ent->name_handle);
	if (unlikely((uint64_t)xdr->len - e->start + len + LIST_END_LEN > e->maxcount ||
		     !rpcrdma_xdr_enc_room(xdr, len + LIST_END_LEN)))
		return -ENOSPC;

	ret = rpcrdma_xdr_put_bool(xdr, true);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_u64(xdr, ent->fileid);
	if (likely(!ret))
		ret = nfs3_put_name(xdr, ent->name, ent->name_len);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_u64(xdr, ent->cookie);
	if (likely(!ret))
		ret = nfs3_put_post_attr(xdr, &ent->name_attr);
	if (likely(!ret))
		ret = nfs3_put_post_fh(xdr, &ent->name_handle);
	if (unlikely(ret))
		return nfs3_enc_undo(xdr, &m, ret);
	e->dirbytes += info;
	e->nentries++;
	return 0;
}

int rpcrdma_nfs3_readdirplus_end(struct rpcrdma_nfs3_readdirplus_enc *e, bool eof)
{
	struct rpcrdma_xdr_enc *xdr = e->xdr;
	struct nfs3_enc_mark m = nfs3_enc_mark(xdr);
	int ret;

	ret = rpcrdma_xdr_put_bool(xdr, false);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_bool(xdr, eof);
	return unlikely(ret) ? nfs3_enc_undo(xdr, &m, ret) : 0;
}

/* ---------------------------------------------------------------- decode */

int rpcrdma_nfs3_dec_readdirplus_res(struct rpcrdma_xdr_dec *dec,
				     struct rpcrdma_nfs3_readdirplus_res *res)
{
	struct nfs3_dec_mark m = nfs3_dec_mark(dec);
	const void *verf;
	int ret;

	ret = rpcrdma_xdr_get_u32(dec, &res->status);
	if (likely(!ret))
		ret = nfs3_get_post_attr(dec, &res->dir_attr);
	if (unlikely(ret))
		return nfs3_dec_undo(dec, &m, ret);
	res->eof = false;
	res->done = res->status != RPCRDMA_NFS3_OK;
	if (res->done)
		return 0;
	ret = rpcrdma_xdr_get_opaque_fixed(dec, RPCRDMA_NFS3_COOKIEVERFSIZE, &verf);
	if (unlikely(ret))
		return nfs3_dec_undo(dec, &m, ret);
	memcpy(res->cookieverf, verf, RPCRDMA_NFS3_COOKIEVERFSIZE);
	return 0;
}

static int get_entry(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_entryplus *ent)
{
	int ret;

	ret = rpcrdma_xdr_get_u64(dec, &ent->fileid);
	if (likely(!ret))
		ret = nfs3_get_name(dec, &ent->name, &ent->name_len);
	if (likely(!ret))
		ret = rpcrdma_xdr_get_u64(dec, &ent->cookie);
	if (likely(!ret))
		ret = nfs3_get_post_attr(dec, &ent->name_attr);
	if (likely(!ret))
		ret = nfs3_get_post_fh(dec, &ent->name_handle);
	return ret;
}

int rpcrdma_nfs3_dec_readdirplus_entry(struct rpcrdma_xdr_dec *dec,
				       struct rpcrdma_nfs3_readdirplus_res *res,
				       struct rpcrdma_nfs3_entryplus *ent)
{
	struct nfs3_dec_mark m;
	bool follows, eof;
	int ret;

	if (res->done)
		return 0;
	m = nfs3_dec_mark(dec);
	ret = rpcrdma_xdr_get_bool(dec, &follows);
	if (unlikely(ret))
		return ret;
	if (follows) {
		ret = get_entry(dec, ent);
		return unlikely(ret) ? nfs3_dec_undo(dec, &m, ret) : 1;
	}
	ret = rpcrdma_xdr_get_bool(dec, &eof);
	if (unlikely(ret))
		return nfs3_dec_undo(dec, &m, ret);
	res->eof = eof;
	res->done = true;
	return 0;
}

/* -------------------------------------------------------------- READDIR */

int rpcrdma_nfs3_readdir_begin(struct rpcrdma_nfs3_readdirplus_enc *e, struct rpcrdma_xdr_enc *xdr,
			       const struct rpcrdma_nfs3_readdirplus_res *res, uint32_t count)
{
	/* every entry3 is directory information: dircount never binds */
	return rpcrdma_nfs3_readdirplus_begin(e, xdr, res, UINT32_MAX, count);
}

int rpcrdma_nfs3_readdir_put(struct rpcrdma_nfs3_readdirplus_enc *e,
			     const struct rpcrdma_nfs3_entry *ent)
{
	struct rpcrdma_xdr_enc *xdr = e->xdr;
	struct nfs3_enc_mark m = nfs3_enc_mark(xdr);
	uint32_t len;
	int ret;

	if (unlikely(ent->name_len > RPCRDMA_NFS3_NAME_MAX))
		return -EINVAL;
	len = dir_info_len(ent->name_len);
	if (unlikely((uint64_t)xdr->len - e->start + len + LIST_END_LEN > e->maxcount ||
		     !rpcrdma_xdr_enc_room(xdr, len + LIST_END_LEN)))
		return -ENOSPC;
	ret = rpcrdma_xdr_put_bool(xdr, true);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_u64(xdr, ent->fileid);
	if (likely(!ret))
		ret = nfs3_put_name(xdr, ent->name, ent->name_len);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_u64(xdr, ent->cookie);
	if (unlikely(ret))
		return nfs3_enc_undo(xdr, &m, ret);
	e->dirbytes += len;
	e->nentries++;
	return 0;
}

int rpcrdma_nfs3_dec_readdir_entry(struct rpcrdma_xdr_dec *dec,
				   struct rpcrdma_nfs3_readdirplus_res *res,
				   struct rpcrdma_nfs3_entry *ent)
{
	struct nfs3_dec_mark m;
	bool follows, eof;
	int ret;

	if (res->done)
		return 0;
	m = nfs3_dec_mark(dec);
	ret = rpcrdma_xdr_get_bool(dec, &follows);
	if (unlikely(ret))
		return ret;
	if (follows) {
		ret = rpcrdma_xdr_get_u64(dec, &ent->fileid);
		if (likely(!ret))
			ret = nfs3_get_name(dec, &ent->name, &ent->name_len);
		if (likely(!ret))
			ret = rpcrdma_xdr_get_u64(dec, &ent->cookie);
		return unlikely(ret) ? nfs3_dec_undo(dec, &m, ret) : 1;
	}
	ret = rpcrdma_xdr_get_bool(dec, &eof);
	if (unlikely(ret))
		return nfs3_dec_undo(dec, &m, ret);
	res->eof = eof;
	res->done = true;
	return 0;
}

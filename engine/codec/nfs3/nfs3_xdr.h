/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The XDR rules that the NFSv3 procedures (nfs3_xdr.c), READDIRPLUS
 * (nfs3_readdirplus.c) and MOUNT (mount3_xdr.c) share: the basic data
 * types of RFC 1813 section 2.5, and marks that rewind a stream when a
 * composite item fails part way. Internal to engine/codec/nfs3/.
 *
 * The nfs3_get_*() rules move the cursor on success and may leave it part
 * way on error; the public functions take a mark first and rewind to it
 * (NFS3_DEC_FN, NFS3_ENC_FN), so the caller sees all or nothing.
 */
#ifndef RPCRDMA_ENGINE_NFS3_XDR_H
#define RPCRDMA_ENGINE_NFS3_XDR_H

#include <errno.h>
#include <stdint.h>

#include <rpcrdma/rpcrdma_nfs3.h>
#include <rpcrdma/rpcrdma_xdr.h>

#include "../xdr.h"

/** Bytes of the fixed-size types on the wire. */
#define NFS3_FATTR_LEN	  84 /* fattr3: 5 words, 2 hypers, specdata3, 2 hypers, 3 nfstime3 */
#define NFS3_WCC_ATTR_LEN 24 /* wcc_attr: size3, 2 nfstime3 */

/* Where a decoding stream was: rewinds it after a failure. */
struct nfs3_dec_mark {
	uint16_t cur;
	uint16_t wnext;
	uint32_t off;
};

static inline struct nfs3_dec_mark nfs3_dec_mark(const struct rpcrdma_xdr_dec *dec)
{
	struct nfs3_dec_mark m = { .cur = dec->cur, .wnext = dec->wnext, .off = dec->off };

	return m;
}

static inline int nfs3_dec_undo(struct rpcrdma_xdr_dec *dec, const struct nfs3_dec_mark *m, int err)
{
	dec->cur = m->cur;
	dec->wnext = m->wnext;
	dec->off = m->off;
	return err;
}

/* Where an encoding stream was. Bytes written past it stay, unused. */
struct nfs3_enc_mark {
	uint32_t len;
	uint32_t pos;
	uint16_t nddp;
};

static inline struct nfs3_enc_mark nfs3_enc_mark(const struct rpcrdma_xdr_enc *xdr)
{
	struct nfs3_enc_mark m = { .len = xdr->len, .pos = xdr->pos, .nddp = xdr->nddp };

	return m;
}

static inline int nfs3_enc_undo(struct rpcrdma_xdr_enc *xdr, const struct nfs3_enc_mark *m, int err)
{
	xdr->len = m->len;
	xdr->pos = m->pos;
	xdr->nddp = m->nddp;
	return err;
}

/*
 * A public decoder or encoder around the rule get_<name>() or put_<name>():
 * all or nothing.
 */
#define NFS3_DEC_FN(prefix, name, type)                                      \
	int prefix##_dec_##name(struct rpcrdma_xdr_dec *dec, struct type *v) \
	{                                                                    \
		struct nfs3_dec_mark m = nfs3_dec_mark(dec);                 \
		int ret = get_##name(dec, v);                                \
                                                                             \
		return unlikely(ret) ? nfs3_dec_undo(dec, &m, ret) : 0;      \
	}
#define NFS3_ENC_FN(prefix, name, type)                                            \
	int prefix##_enc_##name(struct rpcrdma_xdr_enc *xdr, const struct type *v) \
	{                                                                          \
		struct nfs3_enc_mark m = nfs3_enc_mark(xdr);                       \
		int ret = put_##name(xdr, v);                                      \
                                                                                   \
		return unlikely(ret) ? nfs3_enc_undo(xdr, &m, ret) : 0;            \
	}

/* The basic data types (nfs3_types.c). */
int nfs3_get_fh(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_fh *fh);
int nfs3_put_fh(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_fh *fh);
int nfs3_get_name(struct rpcrdma_xdr_dec *dec, const char **name, uint32_t *len);
int nfs3_put_name(struct rpcrdma_xdr_enc *xdr, const char *name, uint32_t len);
int nfs3_get_path(struct rpcrdma_xdr_dec *dec, const char **path, uint32_t *len);
int nfs3_put_path(struct rpcrdma_xdr_enc *xdr, const char *path, uint32_t len);
int nfs3_get_fattr(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_fattr *f);
int nfs3_put_fattr(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_fattr *f);
int nfs3_get_post_attr(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_post_attr *a);
int nfs3_put_post_attr(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_post_attr *a);
int nfs3_get_post_fh(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_post_fh *h);
int nfs3_put_post_fh(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_post_fh *h);
int nfs3_get_wcc(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_wcc *w);
int nfs3_put_wcc(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_wcc *w);
int nfs3_get_sattr(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_sattr *s);
int nfs3_put_sattr(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_sattr *s);
int nfs3_get_diropargs(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_diropargs *d);
int nfs3_put_diropargs(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_diropargs *d);

/* Bytes of a post_op_attr and a post_op_fh3 on the wire. */
static inline uint32_t nfs3_post_attr_len(const struct rpcrdma_nfs3_post_attr *a)
{
	return 4 + (a->present ? NFS3_FATTR_LEN : 0);
}

static inline uint32_t nfs3_post_fh_len(const struct rpcrdma_nfs3_post_fh *h)
{
	return 4 + (h->present ? 4 + rpcrdma_xdr_pad4(h->fh.len) : 0);
}

#endif /* RPCRDMA_ENGINE_NFS3_XDR_H */

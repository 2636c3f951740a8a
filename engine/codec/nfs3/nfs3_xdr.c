/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NFSv3 procedure arguments and results (RFC 1813 section 3.3): one
 * get_/put_ pair per XDR rule, made all-or-nothing public functions by
 * NFS3_DEC_FN and NFS3_ENC_FN (nfs3_xdr.h). In the grammar comments each
 * letter is an XDR word, "HH" a hyper, "st" the nfsstat3 of a result
 * union, "[...]" what follows only when st is NFS3_OK, and "|" separates
 * the OK arm from the failure arm where they differ.
 *
 * READ's and WRITE's data are DDP-eligible (RFC 8267 section 4.1): the
 * encoders mark them with rpcrdma_xdr_put_ddp() and the decoders take
 * them with rpcrdma_xdr_get_ddp(), so they go and come in chunks when the
 * marshaling layer chooses, never copied here.
 */
#include <errno.h>
#include <string.h>

#include "nfs3_xdr.h"

#define ENC(name, type) NFS3_ENC_FN(rpcrdma_nfs3, name, type)
#define DEC(name, type) NFS3_DEC_FN(rpcrdma_nfs3, name, type)

static int get_status(struct rpcrdma_xdr_dec *dec, uint32_t *status)
{
	return rpcrdma_xdr_get_u32(dec, status);
}

/* ------------------------------------------------------- GETATTR (3.3.1) */

/* GETATTR3args: nfs_fh3 */
static int get_getattr_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_getattr_args *a)
{
	return nfs3_get_fh(dec, &a->object);
}

static int put_getattr_args(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_getattr_args *a)
{
	return nfs3_put_fh(xdr, &a->object);
}

/* GETATTR3res: st [fattr3] */
static int get_getattr_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_getattr_res *r)
{
	int ret = get_status(dec, &r->status);

	if (unlikely(ret) || r->status != RPCRDMA_NFS3_OK)
		return ret;
	return nfs3_get_fattr(dec, &r->attr);
}

static int put_getattr_res(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_getattr_res *r)
{
	int ret = rpcrdma_xdr_put_u32(xdr, r->status);

	if (unlikely(ret) || r->status != RPCRDMA_NFS3_OK)
		return ret;
	return nfs3_put_fattr(xdr, &r->attr);
}

/* -------------------------------------------------------- LOOKUP (3.3.3) */

/* LOOKUP3args: diropargs3 */
static int get_lookup_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_lookup_args *a)
{
	return nfs3_get_diropargs(dec, &a->what);
}

static int put_lookup_args(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_lookup_args *a)
{
	return nfs3_put_diropargs(xdr, &a->what);
}

/* LOOKUP3res: st [nfs_fh3 post_op_attr(obj)] post_op_attr(dir) */
static int get_lookup_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_lookup_res *r)
{
	int ret = get_status(dec, &r->status);

	if (unlikely(ret))
		return ret;
	if (r->status == RPCRDMA_NFS3_OK) {
		ret = nfs3_get_fh(dec, &r->object);
		if (likely(!ret))
			ret = nfs3_get_post_attr(dec, &r->obj_attr);
		if (unlikely(ret))
			return ret;
	}
	return nfs3_get_post_attr(dec, &r->dir_attr);
}

static int put_lookup_res(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_lookup_res *r)
{
	int ret = rpcrdma_xdr_put_u32(xdr, r->status);

	if (unlikely(ret))
		return ret;
	if (r->status == RPCRDMA_NFS3_OK) {
		ret = nfs3_put_fh(xdr, &r->object);
		if (likely(!ret))
			ret = nfs3_put_post_attr(xdr, &r->obj_attr);
		if (unlikely(ret))
			return ret;
	}
	return nfs3_put_post_attr(xdr, &r->dir_attr);
}

/* -------------------------------------------------------- ACCESS (3.3.4) */

/* ACCESS3args: nfs_fh3 access */
static int get_access_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_access_args *a)
{
	int ret = nfs3_get_fh(dec, &a->object);

	return unlikely(ret) ? ret : rpcrdma_xdr_get_u32(dec, &a->access);
}

static int put_access_args(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_access_args *a)
{
	int ret = nfs3_put_fh(xdr, &a->object);

	return unlikely(ret) ? ret : rpcrdma_xdr_put_u32(xdr, a->access);
}

/* ACCESS3res: st post_op_attr [access] */
static int get_access_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_access_res *r)
{
	int ret = get_status(dec, &r->status);

	if (likely(!ret))
		ret = nfs3_get_post_attr(dec, &r->obj_attr);
	if (unlikely(ret) || r->status != RPCRDMA_NFS3_OK)
		return ret;
	return rpcrdma_xdr_get_u32(dec, &r->access);
}

static int put_access_res(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_access_res *r)
{
	int ret = rpcrdma_xdr_put_u32(xdr, r->status);

	if (likely(!ret))
		ret = nfs3_put_post_attr(xdr, &r->obj_attr);
	if (unlikely(ret) || r->status != RPCRDMA_NFS3_OK)
		return ret;
	return rpcrdma_xdr_put_u32(xdr, r->access);
}

/* ---------------------------------------------------------- READ (3.3.6) */

/* READ3args: nfs_fh3 HH(offset) count */
static int get_read_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_read_args *a)
{
	int ret = nfs3_get_fh(dec, &a->file);

	if (likely(!ret))
		ret = rpcrdma_xdr_get_u64(dec, &a->offset);
	return unlikely(ret) ? ret : rpcrdma_xdr_get_u32(dec, &a->count);
}

static int put_read_args(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_read_args *a)
{
	int ret = nfs3_put_fh(xdr, &a->file);

	if (likely(!ret))
		ret = rpcrdma_xdr_put_u64(xdr, a->offset);
	return unlikely(ret) ? ret : rpcrdma_xdr_put_u32(xdr, a->count);
}

/* DDP-eligible opaque<>: where the bytes landed, as a region without keys. */
static int get_data(struct rpcrdma_xdr_dec *dec, struct rpcrdma_xdr_region *data)
{
	const void *p;
	uint32_t len;
	int ret;

	ret = rpcrdma_xdr_get_ddp(dec, UINT32_MAX, &p, &len);
	if (unlikely(ret))
		return ret;
	memset(data, 0, sizeof(*data));
	/* The region type is the encoder's; the decoder's bytes are read-only. */
	data->addr = (void *)(uintptr_t)p;
	data->iova = (uint64_t)(uintptr_t)p;
	data->len = len;
	return 0;
}

/* READ3res: st post_op_attr [count b(eof) N - data<> (DDP-eligible)] */
static int get_read_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_read_res *r)
{
	int ret = get_status(dec, &r->status);

	if (likely(!ret))
		ret = nfs3_get_post_attr(dec, &r->file_attr);
	if (unlikely(ret) || r->status != RPCRDMA_NFS3_OK)
		return ret;
	ret = rpcrdma_xdr_get_u32(dec, &r->count);
	if (likely(!ret))
		ret = rpcrdma_xdr_get_bool(dec, &r->eof);
	return unlikely(ret) ? ret : get_data(dec, &r->data);
}

static int put_read_res(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_read_res *r)
{
	int ret = rpcrdma_xdr_put_u32(xdr, r->status);

	if (likely(!ret))
		ret = nfs3_put_post_attr(xdr, &r->file_attr);
	if (unlikely(ret) || r->status != RPCRDMA_NFS3_OK)
		return ret;
	ret = rpcrdma_xdr_put_u32(xdr, r->count);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_bool(xdr, r->eof);
	return unlikely(ret) ? ret : rpcrdma_xdr_put_ddp(xdr, &r->data);
}

/* --------------------------------------------------------- WRITE (3.3.7) */

/* WRITE3args: nfs_fh3 HH(offset) count stable N - data<> (DDP-eligible) */
static int get_write_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_write_args *a)
{
	int ret = nfs3_get_fh(dec, &a->file);

	if (likely(!ret))
		ret = rpcrdma_xdr_get_u64(dec, &a->offset);
	if (likely(!ret))
		ret = rpcrdma_xdr_get_u32(dec, &a->count);
	if (likely(!ret))
		ret = rpcrdma_xdr_get_u32(dec, &a->stable);
	if (unlikely(ret))
		return ret;
	if (unlikely(a->stable > RPCRDMA_NFS3_FILE_SYNC))
		return -RPCRDMA_E_ENUM;
	return get_data(dec, &a->data);
}

static int put_write_args(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_write_args *a)
{
	int ret;

	if (unlikely(a->stable > RPCRDMA_NFS3_FILE_SYNC))
		return -EINVAL;
	ret = nfs3_put_fh(xdr, &a->file);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_u64(xdr, a->offset);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_u32(xdr, a->count);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_u32(xdr, a->stable);
	return unlikely(ret) ? ret : rpcrdma_xdr_put_ddp(xdr, &a->data);
}

/* WRITE3res: st wcc_data [count committed verf(8 bytes)] */
static int get_write_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_write_res *r)
{
	const void *verf;
	int ret = get_status(dec, &r->status);

	if (likely(!ret))
		ret = nfs3_get_wcc(dec, &r->file_wcc);
	if (unlikely(ret) || r->status != RPCRDMA_NFS3_OK)
		return ret;
	ret = rpcrdma_xdr_get_u32(dec, &r->count);
	if (likely(!ret))
		ret = rpcrdma_xdr_get_u32(dec, &r->committed);
	if (unlikely(ret))
		return ret;
	if (unlikely(r->committed > RPCRDMA_NFS3_FILE_SYNC))
		return -RPCRDMA_E_ENUM;
	ret = rpcrdma_xdr_get_opaque_fixed(dec, RPCRDMA_NFS3_WRITEVERFSIZE, &verf);
	if (unlikely(ret))
		return ret;
	memcpy(r->verf, verf, RPCRDMA_NFS3_WRITEVERFSIZE);
	return 0;
}

static int put_write_res(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_write_res *r)
{
	int ret = rpcrdma_xdr_put_u32(xdr, r->status);

	if (likely(!ret))
		ret = nfs3_put_wcc(xdr, &r->file_wcc);
	if (unlikely(ret) || r->status != RPCRDMA_NFS3_OK)
		return ret;
	if (unlikely(r->committed > RPCRDMA_NFS3_FILE_SYNC))
		return -EINVAL;
	ret = rpcrdma_xdr_put_u32(xdr, r->count);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_u32(xdr, r->committed);
	if (unlikely(ret))
		return ret;
	return rpcrdma_xdr_put_opaque_fixed(xdr, r->verf, RPCRDMA_NFS3_WRITEVERFSIZE);
}

/* -------------------------------------------------------- CREATE (3.3.8) */

/* CREATE3args: diropargs3 mode (UNCHECKED|GUARDED: sattr3; EXCLUSIVE: verf(8 bytes)) */
static int get_create_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_create_args *a)
{
	const void *verf;
	int ret = nfs3_get_diropargs(dec, &a->where);

	if (likely(!ret))
		ret = rpcrdma_xdr_get_u32(dec, &a->mode);
	if (unlikely(ret))
		return ret;
	switch (a->mode) {
	case RPCRDMA_NFS3_UNCHECKED:
	case RPCRDMA_NFS3_GUARDED:
		return nfs3_get_sattr(dec, &a->attr);
	case RPCRDMA_NFS3_EXCLUSIVE:
		ret = rpcrdma_xdr_get_opaque_fixed(dec, RPCRDMA_NFS3_CREATEVERFSIZE, &verf);
		if (unlikely(ret))
			return ret;
		memcpy(a->verf, verf, RPCRDMA_NFS3_CREATEVERFSIZE);
		return 0;
	default:
		return -RPCRDMA_E_ENUM;
	}
}

static int put_create_args(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_create_args *a)
{
	int ret;

	if (unlikely(a->mode > RPCRDMA_NFS3_EXCLUSIVE))
		return -EINVAL;
	ret = nfs3_put_diropargs(xdr, &a->where);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_u32(xdr, a->mode);
	if (unlikely(ret))
		return ret;
	if (a->mode == RPCRDMA_NFS3_EXCLUSIVE)
		return rpcrdma_xdr_put_opaque_fixed(xdr, a->verf, RPCRDMA_NFS3_CREATEVERFSIZE);
	return nfs3_put_sattr(xdr, &a->attr);
}

/* CREATE3res: st [post_op_fh3 post_op_attr] wcc_data */
static int get_create_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_create_res *r)
{
	int ret = get_status(dec, &r->status);

	if (unlikely(ret))
		return ret;
	if (r->status == RPCRDMA_NFS3_OK) {
		ret = nfs3_get_post_fh(dec, &r->obj);
		if (likely(!ret))
			ret = nfs3_get_post_attr(dec, &r->obj_attr);
		if (unlikely(ret))
			return ret;
	}
	return nfs3_get_wcc(dec, &r->dir_wcc);
}

static int put_create_res(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_create_res *r)
{
	int ret = rpcrdma_xdr_put_u32(xdr, r->status);

	if (unlikely(ret))
		return ret;
	if (r->status == RPCRDMA_NFS3_OK) {
		ret = nfs3_put_post_fh(xdr, &r->obj);
		if (likely(!ret))
			ret = nfs3_put_post_attr(xdr, &r->obj_attr);
		if (unlikely(ret))
			return ret;
	}
	return nfs3_put_wcc(xdr, &r->dir_wcc);
}

/* ------------------------------------------------------- REMOVE (3.3.12) */

/* REMOVE3args: diropargs3 */
static int get_remove_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_remove_args *a)
{
	return nfs3_get_diropargs(dec, &a->object);
}

static int put_remove_args(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_remove_args *a)
{
	return nfs3_put_diropargs(xdr, &a->object);
}

/* REMOVE3res: st wcc_data (either arm) */
static int get_remove_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_remove_res *r)
{
	int ret = get_status(dec, &r->status);

	return unlikely(ret) ? ret : nfs3_get_wcc(dec, &r->dir_wcc);
}

static int put_remove_res(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_remove_res *r)
{
	int ret = rpcrdma_xdr_put_u32(xdr, r->status);

	return unlikely(ret) ? ret : nfs3_put_wcc(xdr, &r->dir_wcc);
}

/* -------------------------------------------------- READDIRPLUS (3.3.17) */

/* READDIRPLUS3args: nfs_fh3 HH(cookie) cookieverf(8 bytes) dircount maxcount */
static int get_readdirplus_args(struct rpcrdma_xdr_dec *dec,
				struct rpcrdma_nfs3_readdirplus_args *a)
{
	const void *verf;
	int ret = nfs3_get_fh(dec, &a->dir);

	if (likely(!ret))
		ret = rpcrdma_xdr_get_u64(dec, &a->cookie);
	if (likely(!ret))
		ret = rpcrdma_xdr_get_opaque_fixed(dec, RPCRDMA_NFS3_COOKIEVERFSIZE, &verf);
	if (unlikely(ret))
		return ret;
	memcpy(a->cookieverf, verf, RPCRDMA_NFS3_COOKIEVERFSIZE);
	ret = rpcrdma_xdr_get_u32(dec, &a->dircount);
	return unlikely(ret) ? ret : rpcrdma_xdr_get_u32(dec, &a->maxcount);
}

static int put_readdirplus_args(struct rpcrdma_xdr_enc *xdr,
				const struct rpcrdma_nfs3_readdirplus_args *a)
{
	int ret = nfs3_put_fh(xdr, &a->dir);

	if (likely(!ret))
		ret = rpcrdma_xdr_put_u64(xdr, a->cookie);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_opaque_fixed(xdr, a->cookieverf, RPCRDMA_NFS3_COOKIEVERFSIZE);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_u32(xdr, a->dircount);
	return unlikely(ret) ? ret : rpcrdma_xdr_put_u32(xdr, a->maxcount);
}

/* ------------------------------------ FSSTAT, FSINFO, PATHCONF (3.3.18-20) */

/* FSSTAT3args, FSINFO3args, PATHCONF3args: nfs_fh3 */
static int get_fh_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_fh_args *a)
{
	return nfs3_get_fh(dec, &a->object);
}

static int put_fh_args(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_fh_args *a)
{
	return nfs3_put_fh(xdr, &a->object);
}

#define FSSTAT_OK_LEN 52 /* 6 size3, invarsec */

/* FSSTAT3res: st post_op_attr [HH(tbytes) HH(fbytes) HH(abytes) HH(tfiles) HH(ffiles) HH(afiles) invarsec] */
static int get_fsstat_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_fsstat_res *r)
{
	struct xdr_dec d;
	const void *p;
	int ret = get_status(dec, &r->status);

	if (likely(!ret))
		ret = nfs3_get_post_attr(dec, &r->obj_attr);
	if (unlikely(ret) || r->status != RPCRDMA_NFS3_OK)
		return ret;
	ret = rpcrdma_xdr_get_opaque_fixed(dec, FSSTAT_OK_LEN, &p);
	if (unlikely(ret))
		return ret;
	d.p = p;
	d.end = d.p + FSSTAT_OK_LEN;
	r->tbytes = xdr_get64(&d);
	r->fbytes = xdr_get64(&d);
	r->abytes = xdr_get64(&d);
	r->tfiles = xdr_get64(&d);
	r->ffiles = xdr_get64(&d);
	r->afiles = xdr_get64(&d);
	r->invarsec = xdr_get32(&d);
	return 0;
}

static int put_fsstat_res(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_fsstat_res *r)
{
	struct xdr_enc e;
	int ret = rpcrdma_xdr_put_u32(xdr, r->status);

	if (likely(!ret))
		ret = nfs3_put_post_attr(xdr, &r->obj_attr);
	if (unlikely(ret) || r->status != RPCRDMA_NFS3_OK)
		return ret;
	e.p = rpcrdma_xdr_reserve(xdr, FSSTAT_OK_LEN);
	if (unlikely(!e.p))
		return -ENOSPC;
	xdr_put64(&e, r->tbytes);
	xdr_put64(&e, r->fbytes);
	xdr_put64(&e, r->abytes);
	xdr_put64(&e, r->tfiles);
	xdr_put64(&e, r->ffiles);
	xdr_put64(&e, r->afiles);
	xdr_put32(&e, r->invarsec);
	return 0;
}

#define FSINFO_OK_LEN 48 /* 7 words, size3, nfstime3, properties */

/*
 * FSINFO3res: st post_op_attr [rtmax rtpref rtmult wtmax wtpref wtmult dtpref
 *             HH(maxfilesize) time_delta(s ns) properties]
 */
static int get_fsinfo_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_fsinfo_res *r)
{
	struct xdr_dec d;
	const void *p;
	int ret = get_status(dec, &r->status);

	if (likely(!ret))
		ret = nfs3_get_post_attr(dec, &r->obj_attr);
	if (unlikely(ret) || r->status != RPCRDMA_NFS3_OK)
		return ret;
	ret = rpcrdma_xdr_get_opaque_fixed(dec, FSINFO_OK_LEN, &p);
	if (unlikely(ret))
		return ret;
	d.p = p;
	d.end = d.p + FSINFO_OK_LEN;
	r->rtmax = xdr_get32(&d);
	r->rtpref = xdr_get32(&d);
	r->rtmult = xdr_get32(&d);
	r->wtmax = xdr_get32(&d);
	r->wtpref = xdr_get32(&d);
	r->wtmult = xdr_get32(&d);
	r->dtpref = xdr_get32(&d);
	r->maxfilesize = xdr_get64(&d);
	r->time_delta.seconds = xdr_get32(&d);
	r->time_delta.nseconds = xdr_get32(&d);
	r->properties = xdr_get32(&d);
	return 0;
}

static int put_fsinfo_res(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_fsinfo_res *r)
{
	struct xdr_enc e;
	int ret = rpcrdma_xdr_put_u32(xdr, r->status);

	if (likely(!ret))
		ret = nfs3_put_post_attr(xdr, &r->obj_attr);
	if (unlikely(ret) || r->status != RPCRDMA_NFS3_OK)
		return ret;
	e.p = rpcrdma_xdr_reserve(xdr, FSINFO_OK_LEN);
	if (unlikely(!e.p))
		return -ENOSPC;
	xdr_put32(&e, r->rtmax);
	xdr_put32(&e, r->rtpref);
	xdr_put32(&e, r->rtmult);
	xdr_put32(&e, r->wtmax);
	xdr_put32(&e, r->wtpref);
	xdr_put32(&e, r->wtmult);
	xdr_put32(&e, r->dtpref);
	xdr_put64(&e, r->maxfilesize);
	xdr_put32(&e, r->time_delta.seconds);
	xdr_put32(&e, r->time_delta.nseconds);
	xdr_put32(&e, r->properties);
	return 0;
}

/*
 * PATHCONF3res: st post_op_attr [linkmax name_max b(no_trunc) b(chown_restricted)
 *               b(case_insensitive) b(case_preserving)]
 */
static int get_pathconf_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_pathconf_res *r)
{
	int ret = get_status(dec, &r->status);

	if (likely(!ret))
		ret = nfs3_get_post_attr(dec, &r->obj_attr);
	if (unlikely(ret) || r->status != RPCRDMA_NFS3_OK)
		return ret;
	ret = rpcrdma_xdr_get_u32(dec, &r->linkmax);
	if (likely(!ret))
		ret = rpcrdma_xdr_get_u32(dec, &r->name_max);
	if (likely(!ret))
		ret = rpcrdma_xdr_get_bool(dec, &r->no_trunc);
	if (likely(!ret))
		ret = rpcrdma_xdr_get_bool(dec, &r->chown_restricted);
	if (likely(!ret))
		ret = rpcrdma_xdr_get_bool(dec, &r->case_insensitive);
	if (likely(!ret))
		ret = rpcrdma_xdr_get_bool(dec, &r->case_preserving);
	return ret;
}

static int put_pathconf_res(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_pathconf_res *r)
{
	int ret = rpcrdma_xdr_put_u32(xdr, r->status);

	if (likely(!ret))
		ret = nfs3_put_post_attr(xdr, &r->obj_attr);
	if (unlikely(ret) || r->status != RPCRDMA_NFS3_OK)
		return ret;
	ret = rpcrdma_xdr_put_u32(xdr, r->linkmax);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_u32(xdr, r->name_max);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_bool(xdr, r->no_trunc);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_bool(xdr, r->chown_restricted);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_bool(xdr, r->case_insensitive);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_bool(xdr, r->case_preserving);
	return ret;
}

/* ------------------------------------------------------- COMMIT (3.3.21) */

/* COMMIT3args: nfs_fh3 HH(offset) count */
static int get_commit_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_commit_args *a)
{
	int ret = nfs3_get_fh(dec, &a->file);

	if (likely(!ret))
		ret = rpcrdma_xdr_get_u64(dec, &a->offset);
	return unlikely(ret) ? ret : rpcrdma_xdr_get_u32(dec, &a->count);
}

static int put_commit_args(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_commit_args *a)
{
	int ret = nfs3_put_fh(xdr, &a->file);

	if (likely(!ret))
		ret = rpcrdma_xdr_put_u64(xdr, a->offset);
	return unlikely(ret) ? ret : rpcrdma_xdr_put_u32(xdr, a->count);
}

/* COMMIT3res: st wcc_data [verf(8 bytes)] */
static int get_commit_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_commit_res *r)
{
	const void *verf;
	int ret = get_status(dec, &r->status);

	if (likely(!ret))
		ret = nfs3_get_wcc(dec, &r->file_wcc);
	if (unlikely(ret) || r->status != RPCRDMA_NFS3_OK)
		return ret;
	ret = rpcrdma_xdr_get_opaque_fixed(dec, RPCRDMA_NFS3_WRITEVERFSIZE, &verf);
	if (unlikely(ret))
		return ret;
	memcpy(r->verf, verf, RPCRDMA_NFS3_WRITEVERFSIZE);
	return 0;
}

static int put_commit_res(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_commit_res *r)
{
	int ret = rpcrdma_xdr_put_u32(xdr, r->status);

	if (likely(!ret))
		ret = nfs3_put_wcc(xdr, &r->file_wcc);
	if (unlikely(ret) || r->status != RPCRDMA_NFS3_OK)
		return ret;
	return rpcrdma_xdr_put_opaque_fixed(xdr, r->verf, RPCRDMA_NFS3_WRITEVERFSIZE);
}

/* ------------------------------------------------------- SETATTR (3.3.2) */

/* sattrguard3: b [obj_ctime(s ns)] */
static int get_guard(struct rpcrdma_xdr_dec *dec, bool *check, struct rpcrdma_nfs3_time *t)
{
	int ret = rpcrdma_xdr_get_bool(dec, check);

	if (unlikely(ret) || !*check)
		return ret;
	ret = rpcrdma_xdr_get_u32(dec, &t->seconds);
	return unlikely(ret) ? ret : rpcrdma_xdr_get_u32(dec, &t->nseconds);
}

static int put_guard(struct rpcrdma_xdr_enc *xdr, bool check, const struct rpcrdma_nfs3_time *t)
{
	int ret = rpcrdma_xdr_put_bool(xdr, check);

	if (unlikely(ret) || !check)
		return ret;
	ret = rpcrdma_xdr_put_u32(xdr, t->seconds);
	return unlikely(ret) ? ret : rpcrdma_xdr_put_u32(xdr, t->nseconds);
}

/* SETATTR3args: nfs_fh3 sattr3 sattrguard3 */
static int get_setattr_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_setattr_args *a)
{
	int ret = nfs3_get_fh(dec, &a->object);

	if (likely(!ret))
		ret = nfs3_get_sattr(dec, &a->new_attr);
	return unlikely(ret) ? ret : get_guard(dec, &a->guard_check, &a->guard_ctime);
}

static int put_setattr_args(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_setattr_args *a)
{
	int ret = nfs3_put_fh(xdr, &a->object);

	if (likely(!ret))
		ret = nfs3_put_sattr(xdr, &a->new_attr);
	return unlikely(ret) ? ret : put_guard(xdr, a->guard_check, &a->guard_ctime);
}

/* SETATTR3res (and any st wcc_data result): st wcc_data (either arm) */
static int get_wcc_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_wcc_res *r)
{
	int ret = get_status(dec, &r->status);

	return unlikely(ret) ? ret : nfs3_get_wcc(dec, &r->wcc);
}

static int put_wcc_res(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_wcc_res *r)
{
	int ret = rpcrdma_xdr_put_u32(xdr, r->status);

	return unlikely(ret) ? ret : nfs3_put_wcc(xdr, &r->wcc);
}

/* ------------------------------------------------------ READLINK (3.3.5) */

/* READLINK3res: st post_op_attr [N - nfspath3] */
static int get_readlink_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_readlink_res *r)
{
	int ret = get_status(dec, &r->status);

	if (likely(!ret))
		ret = nfs3_get_post_attr(dec, &r->symlink_attr);
	if (unlikely(ret) || r->status != RPCRDMA_NFS3_OK)
		return ret;
	return nfs3_get_path(dec, &r->data, &r->data_len);
}

static int put_readlink_res(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_readlink_res *r)
{
	int ret = rpcrdma_xdr_put_u32(xdr, r->status);

	if (likely(!ret))
		ret = nfs3_put_post_attr(xdr, &r->symlink_attr);
	if (unlikely(ret) || r->status != RPCRDMA_NFS3_OK)
		return ret;
	return nfs3_put_path(xdr, r->data, r->data_len);
}

/* --------------------------------------------------------- MKDIR (3.3.9) */

/* MKDIR3args: diropargs3 sattr3 */
static int get_mkdir_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_mkdir_args *a)
{
	int ret = nfs3_get_diropargs(dec, &a->where);

	return unlikely(ret) ? ret : nfs3_get_sattr(dec, &a->attr);
}

static int put_mkdir_args(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_mkdir_args *a)
{
	int ret = nfs3_put_diropargs(xdr, &a->where);

	return unlikely(ret) ? ret : nfs3_put_sattr(xdr, &a->attr);
}

/* ------------------------------------------------------ SYMLINK (3.3.10) */

/* SYMLINK3args: diropargs3 symlinkdata3(sattr3 N - nfspath3) */
static int get_symlink_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_symlink_args *a)
{
	int ret = nfs3_get_diropargs(dec, &a->where);

	if (likely(!ret))
		ret = nfs3_get_sattr(dec, &a->attr);
	return unlikely(ret) ? ret : nfs3_get_path(dec, &a->data, &a->data_len);
}

static int put_symlink_args(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_symlink_args *a)
{
	int ret = nfs3_put_diropargs(xdr, &a->where);

	if (likely(!ret))
		ret = nfs3_put_sattr(xdr, &a->attr);
	return unlikely(ret) ? ret : nfs3_put_path(xdr, a->data, a->data_len);
}

/* ------------------------------------------------------- RENAME (3.3.14) */

/* RENAME3args: diropargs3(from) diropargs3(to) */
static int get_rename_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_rename_args *a)
{
	int ret = nfs3_get_diropargs(dec, &a->from);

	return unlikely(ret) ? ret : nfs3_get_diropargs(dec, &a->to);
}

static int put_rename_args(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_rename_args *a)
{
	int ret = nfs3_put_diropargs(xdr, &a->from);

	return unlikely(ret) ? ret : nfs3_put_diropargs(xdr, &a->to);
}

/* RENAME3res: st wcc_data(fromdir) wcc_data(todir) (either arm) */
static int get_rename_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_rename_res *r)
{
	int ret = get_status(dec, &r->status);

	if (likely(!ret))
		ret = nfs3_get_wcc(dec, &r->fromdir_wcc);
	return unlikely(ret) ? ret : nfs3_get_wcc(dec, &r->todir_wcc);
}

static int put_rename_res(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_rename_res *r)
{
	int ret = rpcrdma_xdr_put_u32(xdr, r->status);

	if (likely(!ret))
		ret = nfs3_put_wcc(xdr, &r->fromdir_wcc);
	return unlikely(ret) ? ret : nfs3_put_wcc(xdr, &r->todir_wcc);
}

/* ------------------------------------------------------ READDIR (3.3.16) */

/* READDIR3args: nfs_fh3 HH(cookie) cookieverf(8 bytes) count */
static int get_readdir_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_readdir_args *a)
{
	const void *verf;
	int ret = nfs3_get_fh(dec, &a->dir);

	if (likely(!ret))
		ret = rpcrdma_xdr_get_u64(dec, &a->cookie);
	if (likely(!ret))
		ret = rpcrdma_xdr_get_opaque_fixed(dec, RPCRDMA_NFS3_COOKIEVERFSIZE, &verf);
	if (unlikely(ret))
		return ret;
	memcpy(a->cookieverf, verf, RPCRDMA_NFS3_COOKIEVERFSIZE);
	return rpcrdma_xdr_get_u32(dec, &a->count);
}

static int put_readdir_args(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_readdir_args *a)
{
	int ret = nfs3_put_fh(xdr, &a->dir);

	if (likely(!ret))
		ret = rpcrdma_xdr_put_u64(xdr, a->cookie);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_opaque_fixed(xdr, a->cookieverf, RPCRDMA_NFS3_COOKIEVERFSIZE);
	return unlikely(ret) ? ret : rpcrdma_xdr_put_u32(xdr, a->count);
}

/* ------------------------------------------------------ public functions */

ENC(getattr_args, rpcrdma_nfs3_getattr_args)
DEC(getattr_args, rpcrdma_nfs3_getattr_args)
ENC(getattr_res, rpcrdma_nfs3_getattr_res)
DEC(getattr_res, rpcrdma_nfs3_getattr_res)
ENC(lookup_args, rpcrdma_nfs3_lookup_args)
DEC(lookup_args, rpcrdma_nfs3_lookup_args)
ENC(lookup_res, rpcrdma_nfs3_lookup_res)
DEC(lookup_res, rpcrdma_nfs3_lookup_res)
ENC(access_args, rpcrdma_nfs3_access_args)
DEC(access_args, rpcrdma_nfs3_access_args)
ENC(access_res, rpcrdma_nfs3_access_res)
DEC(access_res, rpcrdma_nfs3_access_res)
ENC(read_args, rpcrdma_nfs3_read_args)
DEC(read_args, rpcrdma_nfs3_read_args)
ENC(read_res, rpcrdma_nfs3_read_res)
DEC(read_res, rpcrdma_nfs3_read_res)
ENC(write_args, rpcrdma_nfs3_write_args)
DEC(write_args, rpcrdma_nfs3_write_args)
ENC(write_res, rpcrdma_nfs3_write_res)
DEC(write_res, rpcrdma_nfs3_write_res)
ENC(create_args, rpcrdma_nfs3_create_args)
DEC(create_args, rpcrdma_nfs3_create_args)
ENC(create_res, rpcrdma_nfs3_create_res)
DEC(create_res, rpcrdma_nfs3_create_res)
ENC(remove_args, rpcrdma_nfs3_remove_args)
DEC(remove_args, rpcrdma_nfs3_remove_args)
ENC(remove_res, rpcrdma_nfs3_remove_res)
DEC(remove_res, rpcrdma_nfs3_remove_res)
ENC(readdirplus_args, rpcrdma_nfs3_readdirplus_args)
DEC(readdirplus_args, rpcrdma_nfs3_readdirplus_args)
ENC(fh_args, rpcrdma_nfs3_fh_args)
DEC(fh_args, rpcrdma_nfs3_fh_args)
ENC(fsstat_res, rpcrdma_nfs3_fsstat_res)
DEC(fsstat_res, rpcrdma_nfs3_fsstat_res)
ENC(fsinfo_res, rpcrdma_nfs3_fsinfo_res)
DEC(fsinfo_res, rpcrdma_nfs3_fsinfo_res)
ENC(pathconf_res, rpcrdma_nfs3_pathconf_res)
DEC(pathconf_res, rpcrdma_nfs3_pathconf_res)
ENC(commit_args, rpcrdma_nfs3_commit_args)
DEC(commit_args, rpcrdma_nfs3_commit_args)
ENC(commit_res, rpcrdma_nfs3_commit_res)
DEC(commit_res, rpcrdma_nfs3_commit_res)
ENC(setattr_args, rpcrdma_nfs3_setattr_args)
DEC(setattr_args, rpcrdma_nfs3_setattr_args)
ENC(wcc_res, rpcrdma_nfs3_wcc_res)
DEC(wcc_res, rpcrdma_nfs3_wcc_res)
ENC(readlink_res, rpcrdma_nfs3_readlink_res)
DEC(readlink_res, rpcrdma_nfs3_readlink_res)
ENC(mkdir_args, rpcrdma_nfs3_mkdir_args)
DEC(mkdir_args, rpcrdma_nfs3_mkdir_args)
ENC(symlink_args, rpcrdma_nfs3_symlink_args)
DEC(symlink_args, rpcrdma_nfs3_symlink_args)
ENC(rename_args, rpcrdma_nfs3_rename_args)
DEC(rename_args, rpcrdma_nfs3_rename_args)
ENC(rename_res, rpcrdma_nfs3_rename_res)
DEC(rename_res, rpcrdma_nfs3_rename_res)
ENC(readdir_args, rpcrdma_nfs3_readdir_args)
DEC(readdir_args, rpcrdma_nfs3_readdir_args)

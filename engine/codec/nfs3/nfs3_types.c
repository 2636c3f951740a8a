/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NFSv3 basic data types (RFC 1813 section 2.5): one function per XDR
 * rule, each letter of a grammar comment one XDR word ("HH" a hyper,
 * "N - bytes" a counted opaque padded to 4 bytes, "b" a bool).
 *
 * The fixed-size types (fattr3, wcc_attr) are moved as one block: one
 * bounds check, then unaligned big-endian loads and stores (engine/codec/xdr.h).
 */
#include <errno.h>
#include <string.h>

#include "nfs3_xdr.h"

/* nfs_fh3: N - data<NFS3_FHSIZE> */
int nfs3_get_fh(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_fh *fh)
{
	const void *p;
	int ret;

	ret = rpcrdma_xdr_get_opaque(dec, RPCRDMA_NFS3_FHSIZE, &p, &fh->len);
	if (unlikely(ret))
		return ret;
	fh->data = p;
	return 0;
}

int nfs3_put_fh(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_fh *fh)
{
	if (unlikely(fh->len > RPCRDMA_NFS3_FHSIZE || (fh->len && !fh->data)))
		return -EINVAL;
	return rpcrdma_xdr_put_opaque(xdr, fh->data, fh->len);
}

/* filename3: N - string<>, bounded here by RPCRDMA_NFS3_NAME_MAX */
int nfs3_get_name(struct rpcrdma_xdr_dec *dec, const char **name, uint32_t *len)
{
	const void *p;
	int ret;

	ret = rpcrdma_xdr_get_opaque(dec, RPCRDMA_NFS3_NAME_MAX, &p, len);
	if (unlikely(ret))
		return ret == -RPCRDMA_E_OPAQUE_BOUND ? -RPCRDMA_E_NAME_LEN : ret;
	*name = p;
	return 0;
}

int nfs3_put_name(struct rpcrdma_xdr_enc *xdr, const char *name, uint32_t len)
{
	if (unlikely(len > RPCRDMA_NFS3_NAME_MAX || (len && !name)))
		return -EINVAL;
	return rpcrdma_xdr_put_string(xdr, name, len);
}

/* nfspath3: N - string<>, bounded here by RPCRDMA_NFS3_PATH_MAX */
int nfs3_get_path(struct rpcrdma_xdr_dec *dec, const char **path, uint32_t *len)
{
	const void *p;
	int ret;

	ret = rpcrdma_xdr_get_opaque(dec, RPCRDMA_NFS3_PATH_MAX, &p, len);
	if (unlikely(ret))
		return ret == -RPCRDMA_E_OPAQUE_BOUND ? -RPCRDMA_E_NAME_LEN : ret;
	*path = p;
	return 0;
}

int nfs3_put_path(struct rpcrdma_xdr_enc *xdr, const char *path, uint32_t len)
{
	if (unlikely(len > RPCRDMA_NFS3_PATH_MAX || (len && !path)))
		return -EINVAL;
	return rpcrdma_xdr_put_string(xdr, path, len);
}

static inline bool ftype_ok(uint32_t type)
{
	return type >= RPCRDMA_NFS3_REG && type <= RPCRDMA_NFS3_FIFO;
}

static inline void load_time(struct xdr_dec *d, struct rpcrdma_nfs3_time *t)
{
	t->seconds = xdr_get32(d);
	t->nseconds = xdr_get32(d);
}

static inline void store_time(struct xdr_enc *e, const struct rpcrdma_nfs3_time *t)
{
	xdr_put32(e, t->seconds);
	xdr_put32(e, t->nseconds);
}

/*
 * fattr3:
 *   type mode nlink uid gid  HH(size) HH(used)  major minor  HH(fsid) HH(fileid)
 *   atime(s ns) mtime(s ns) ctime(s ns)
 */
int nfs3_get_fattr(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_fattr *f)
{
	struct nfs3_dec_mark m = nfs3_dec_mark(dec);
	struct xdr_dec d;
	const void *p;
	int ret;

	ret = rpcrdma_xdr_get_opaque_fixed(dec, NFS3_FATTR_LEN, &p);
	if (unlikely(ret))
		return ret;
	d.p = p;
	d.end = d.p + NFS3_FATTR_LEN;
	f->type = xdr_get32(&d);
	if (unlikely(!ftype_ok(f->type)))
		return nfs3_dec_undo(dec, &m, -RPCRDMA_E_ENUM);
	f->mode = xdr_get32(&d);
	f->nlink = xdr_get32(&d);
	f->uid = xdr_get32(&d);
	f->gid = xdr_get32(&d);
	f->size = xdr_get64(&d);
	f->used = xdr_get64(&d);
	f->rdev_major = xdr_get32(&d);
	f->rdev_minor = xdr_get32(&d);
	f->fsid = xdr_get64(&d);
	f->fileid = xdr_get64(&d);
	load_time(&d, &f->atime);
	load_time(&d, &f->mtime);
	load_time(&d, &f->ctime);
	return 0;
}

int nfs3_put_fattr(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_fattr *f)
{
	struct xdr_enc e;

	if (unlikely(!ftype_ok(f->type)))
		return -EINVAL;
	e.p = rpcrdma_xdr_reserve(xdr, NFS3_FATTR_LEN);
	if (unlikely(!e.p))
		return -ENOSPC;
	xdr_put32(&e, f->type);
	xdr_put32(&e, f->mode);
	xdr_put32(&e, f->nlink);
	xdr_put32(&e, f->uid);
	xdr_put32(&e, f->gid);
	xdr_put64(&e, f->size);
	xdr_put64(&e, f->used);
	xdr_put32(&e, f->rdev_major);
	xdr_put32(&e, f->rdev_minor);
	xdr_put64(&e, f->fsid);
	xdr_put64(&e, f->fileid);
	store_time(&e, &f->atime);
	store_time(&e, &f->mtime);
	store_time(&e, &f->ctime);
	return 0;
}

/* post_op_attr: b [fattr3] */
int nfs3_get_post_attr(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_post_attr *a)
{
	int ret;

	ret = rpcrdma_xdr_get_bool(dec, &a->present);
	if (unlikely(ret))
		return ret;
	return a->present ? nfs3_get_fattr(dec, &a->attr) : 0;
}

int nfs3_put_post_attr(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_post_attr *a)
{
	int ret;

	ret = rpcrdma_xdr_put_bool(xdr, a->present);
	if (unlikely(ret) || !a->present)
		return ret;
	return nfs3_put_fattr(xdr, &a->attr);
}

/* post_op_fh3: b [nfs_fh3] */
int nfs3_get_post_fh(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_post_fh *h)
{
	int ret;

	ret = rpcrdma_xdr_get_bool(dec, &h->present);
	if (unlikely(ret))
		return ret;
	return h->present ? nfs3_get_fh(dec, &h->fh) : 0;
}

int nfs3_put_post_fh(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_post_fh *h)
{
	int ret;

	ret = rpcrdma_xdr_put_bool(xdr, h->present);
	if (unlikely(ret) || !h->present)
		return ret;
	return nfs3_put_fh(xdr, &h->fh);
}

/*
 * wcc_data: pre_op_attr post_op_attr
 *   b [HH(size) mtime(s ns) ctime(s ns)]  b [fattr3]
 */
int nfs3_get_wcc(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_wcc *w)
{
	struct xdr_dec d;
	const void *p;
	int ret;

	ret = rpcrdma_xdr_get_bool(dec, &w->before_present);
	if (unlikely(ret))
		return ret;
	if (w->before_present) {
		ret = rpcrdma_xdr_get_opaque_fixed(dec, NFS3_WCC_ATTR_LEN, &p);
		if (unlikely(ret))
			return ret;
		d.p = p;
		d.end = d.p + NFS3_WCC_ATTR_LEN;
		w->before.size = xdr_get64(&d);
		load_time(&d, &w->before.mtime);
		load_time(&d, &w->before.ctime);
	}
	return nfs3_get_post_attr(dec, &w->after);
}

int nfs3_put_wcc(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_wcc *w)
{
	struct xdr_enc e;
	int ret;

	ret = rpcrdma_xdr_put_bool(xdr, w->before_present);
	if (unlikely(ret))
		return ret;
	if (w->before_present) {
		e.p = rpcrdma_xdr_reserve(xdr, NFS3_WCC_ATTR_LEN);
		if (unlikely(!e.p))
			return -ENOSPC;
		xdr_put64(&e, w->before.size);
		store_time(&e, &w->before.mtime);
		store_time(&e, &w->before.ctime);
	}
	return nfs3_put_post_attr(xdr, &w->after);
}

/* set_mode3, set_uid3, set_gid3: b [word]; set_size3: b [HH] */
static int get_set32(struct rpcrdma_xdr_dec *dec, bool *set, uint32_t *v)
{
	int ret;

	ret = rpcrdma_xdr_get_bool(dec, set);
	if (unlikely(ret))
		return ret;
	return *set ? rpcrdma_xdr_get_u32(dec, v) : 0;
}

static int put_set32(struct rpcrdma_xdr_enc *xdr, bool set, uint32_t v)
{
	int ret;

	ret = rpcrdma_xdr_put_bool(xdr, set);
	if (unlikely(ret) || !set)
		return ret;
	return rpcrdma_xdr_put_u32(xdr, v);
}

/* set_atime, set_mtime: time_how [nfstime3 when SET_TO_CLIENT_TIME] */
static int get_set_time(struct rpcrdma_xdr_dec *dec, uint32_t *how, struct rpcrdma_nfs3_time *t)
{
	int ret;

	ret = rpcrdma_xdr_get_u32(dec, how);
	if (unlikely(ret))
		return ret;
	if (unlikely(*how > RPCRDMA_NFS3_SET_TO_CLIENT_TIME))
		return -RPCRDMA_E_ENUM;
	if (*how != RPCRDMA_NFS3_SET_TO_CLIENT_TIME)
		return 0;
	ret = rpcrdma_xdr_get_u32(dec, &t->seconds);
	if (unlikely(ret))
		return ret;
	return rpcrdma_xdr_get_u32(dec, &t->nseconds);
}

static int put_set_time(struct rpcrdma_xdr_enc *xdr, uint32_t how,
			const struct rpcrdma_nfs3_time *t)
{
	int ret;

	if (unlikely(how > RPCRDMA_NFS3_SET_TO_CLIENT_TIME))
		return -EINVAL;
	ret = rpcrdma_xdr_put_u32(xdr, how);
	if (unlikely(ret) || how != RPCRDMA_NFS3_SET_TO_CLIENT_TIME)
		return ret;
	ret = rpcrdma_xdr_put_u32(xdr, t->seconds);
	if (unlikely(ret))
		return ret;
	return rpcrdma_xdr_put_u32(xdr, t->nseconds);
}

/*
 * sattr3:
 *   b [mode]  b [uid]  b [gid]  b [HH(size)]  how [atime(s ns)]  how [mtime(s ns)]
 */
int nfs3_get_sattr(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_sattr *s)
{
	int ret;

	ret = get_set32(dec, &s->set_mode, &s->mode);
	if (likely(!ret))
		ret = get_set32(dec, &s->set_uid, &s->uid);
	if (likely(!ret))
		ret = get_set32(dec, &s->set_gid, &s->gid);
	if (likely(!ret))
		ret = rpcrdma_xdr_get_bool(dec, &s->set_size);
	if (likely(!ret) && s->set_size)
		ret = rpcrdma_xdr_get_u64(dec, &s->size);
	if (likely(!ret))
		ret = get_set_time(dec, &s->set_atime, &s->atime);
	if (likely(!ret))
		ret = get_set_time(dec, &s->set_mtime, &s->mtime);
	return ret;
}

int nfs3_put_sattr(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_sattr *s)
{
	int ret;

	ret = put_set32(xdr, s->set_mode, s->mode);
	if (likely(!ret))
		ret = put_set32(xdr, s->set_uid, s->uid);
	if (likely(!ret))
		ret = put_set32(xdr, s->set_gid, s->gid);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_bool(xdr, s->set_size);
	if (likely(!ret) && s->set_size)
		ret = rpcrdma_xdr_put_u64(xdr, s->size);
	if (likely(!ret))
		ret = put_set_time(xdr, s->set_atime, &s->atime);
	if (likely(!ret))
		ret = put_set_time(xdr, s->set_mtime, &s->mtime);
	return ret;
}

/* diropargs3: nfs_fh3 filename3 */
int nfs3_get_diropargs(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_diropargs *d)
{
	int ret;

	ret = nfs3_get_fh(dec, &d->dir);
	if (unlikely(ret))
		return ret;
	return nfs3_get_name(dec, &d->name, &d->name_len);
}

int nfs3_put_diropargs(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_diropargs *d)
{
	int ret;

	ret = nfs3_put_fh(xdr, &d->dir);
	if (unlikely(ret))
		return ret;
	return nfs3_put_name(xdr, d->name, d->name_len);
}

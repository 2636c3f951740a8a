/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kinds of test_nfs3_rpcgen: for the arguments and results of each NFSv3
 * and MOUNT v3 procedure, a generator of a random value (our form), rpcgen's
 * form of it and a field-by-field comparison, and the table rk[] of them in
 * the order of nfs3_kinds[].
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

/* -------------------------------------------------- per kind: gen, to, cmp */

/*
 * For each kind: K_gen() draws a value of ours, K_to() gives rpcgen's form
 * of it, K_cmp() compares a value of ours with one of rpcgen's.
 */

static void getattr_args_gen(void *v)
{
	struct rpcrdma_nfs3_getattr_args *a = v;

	gen_fh(&a->object);
}

static void getattr_args_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_getattr_args *a = v;
	GETATTR3args *t = w;

	to_fh(&a->object, &t->object);
}

static bool getattr_args_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_getattr_args *a = v;
	const GETATTR3args *t = w;

	return cmp_fh(&a->object, &t->object);
}

static void getattr_res_gen(void *v)
{
	struct rpcrdma_nfs3_getattr_res *r = v;

	r->status = gen_status();
	if (r->status == RPCRDMA_NFS3_OK)
		gen_fattr(&r->attr);
}

static void getattr_res_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_getattr_res *r = v;
	GETATTR3res *t = w;

	t->status = (nfsstat3)r->status;
	if (r->status == RPCRDMA_NFS3_OK)
		to_fattr(&r->attr, &t->GETATTR3res_u.resok.obj_attributes);
}

static bool getattr_res_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_getattr_res *r = v;
	const GETATTR3res *t = w;

	EQ(r->status, t->status);
	return r->status != RPCRDMA_NFS3_OK ||
	       cmp_fattr(&r->attr, &t->GETATTR3res_u.resok.obj_attributes);
}

static void lookup_args_gen(void *v)
{
	struct rpcrdma_nfs3_lookup_args *a = v;

	gen_diropargs(&a->what);
}

static void lookup_args_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_lookup_args *a = v;
	LOOKUP3args *t = w;

	to_diropargs(&a->what, &t->what);
}

static bool lookup_args_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_lookup_args *a = v;
	const LOOKUP3args *t = w;

	return cmp_diropargs(&a->what, &t->what);
}

static void lookup_res_gen(void *v)
{
	struct rpcrdma_nfs3_lookup_res *r = v;

	r->status = gen_status();
	if (r->status == RPCRDMA_NFS3_OK) {
		gen_fh(&r->object);
		gen_post_attr(&r->obj_attr);
	}
	gen_post_attr(&r->dir_attr);
}

static void lookup_res_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_lookup_res *r = v;
	LOOKUP3res *t = w;

	t->status = (nfsstat3)r->status;
	if (r->status == RPCRDMA_NFS3_OK) {
		to_fh(&r->object, &t->LOOKUP3res_u.resok.object);
		to_post_attr(&r->obj_attr, &t->LOOKUP3res_u.resok.obj_attributes);
		to_post_attr(&r->dir_attr, &t->LOOKUP3res_u.resok.dir_attributes);
	} else {
		to_post_attr(&r->dir_attr, &t->LOOKUP3res_u.resfail.dir_attributes);
	}
}

static bool lookup_res_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_lookup_res *r = v;
	const LOOKUP3res *t = w;

	EQ(r->status, t->status);
	if (r->status != RPCRDMA_NFS3_OK)
		return cmp_post_attr(&r->dir_attr, &t->LOOKUP3res_u.resfail.dir_attributes);
	SUB(cmp_fh(&r->object, &t->LOOKUP3res_u.resok.object));
	SUB(cmp_post_attr(&r->obj_attr, &t->LOOKUP3res_u.resok.obj_attributes));
	return cmp_post_attr(&r->dir_attr, &t->LOOKUP3res_u.resok.dir_attributes);
}

static void access_args_gen(void *v)
{
	struct rpcrdma_nfs3_access_args *a = v;

	gen_fh(&a->object);
	a->access = rnd32();
}

static void access_args_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_access_args *a = v;
	ACCESS3args *t = w;

	to_fh(&a->object, &t->object);
	t->access = a->access;
}

static bool access_args_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_access_args *a = v;
	const ACCESS3args *t = w;

	EQ(a->access, t->access);
	return cmp_fh(&a->object, &t->object);
}

static void access_res_gen(void *v)
{
	struct rpcrdma_nfs3_access_res *r = v;

	r->status = gen_status();
	gen_post_attr(&r->obj_attr);
	r->access = rnd32();
}

static void access_res_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_access_res *r = v;
	ACCESS3res *t = w;

	t->status = (nfsstat3)r->status;
	if (r->status == RPCRDMA_NFS3_OK) {
		to_post_attr(&r->obj_attr, &t->ACCESS3res_u.resok.obj_attributes);
		t->ACCESS3res_u.resok.access = r->access;
	} else {
		to_post_attr(&r->obj_attr, &t->ACCESS3res_u.resfail.obj_attributes);
	}
}

static bool access_res_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_access_res *r = v;
	const ACCESS3res *t = w;

	EQ(r->status, t->status);
	if (r->status != RPCRDMA_NFS3_OK)
		return cmp_post_attr(&r->obj_attr, &t->ACCESS3res_u.resfail.obj_attributes);
	EQ(r->access, t->ACCESS3res_u.resok.access);
	return cmp_post_attr(&r->obj_attr, &t->ACCESS3res_u.resok.obj_attributes);
}

static void read_args_gen(void *v)
{
	struct rpcrdma_nfs3_read_args *a = v;

	gen_fh(&a->file);
	a->offset = rnd64();
	a->count = rnd32();
}

static void read_args_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_read_args *a = v;
	READ3args *t = w;

	to_fh(&a->file, &t->file);
	t->offset = a->offset;
	t->count = a->count;
}

static bool read_args_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_read_args *a = v;
	const READ3args *t = w;

	EQ(a->offset, t->offset);
	EQ(a->count, t->count);
	return cmp_fh(&a->file, &t->file);
}

static void read_res_gen(void *v)
{
	struct rpcrdma_nfs3_read_res *r = v;

	r->status = gen_status();
	gen_post_attr(&r->file_attr);
	if (r->status != RPCRDMA_NFS3_OK)
		return;
	gen_data(&r->data);
	r->count = rnd_below(8) ? r->data.len : rnd32();
	r->eof = rnd_bool();
	cov[COV_READ0] += r->data.len == 0;
	cov[COV_EOF] += r->eof;
}

static void read_res_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_read_res *r = v;
	READ3res *t = w;

	t->status = (nfsstat3)r->status;
	if (r->status == RPCRDMA_NFS3_OK) {
		to_post_attr(&r->file_attr, &t->READ3res_u.resok.file_attributes);
		t->READ3res_u.resok.count = r->count;
		t->READ3res_u.resok.eof = r->eof;
		t->READ3res_u.resok.data.data_len = r->data.len;
		t->READ3res_u.resok.data.data_val = r->data.addr;
	} else {
		to_post_attr(&r->file_attr, &t->READ3res_u.resfail.file_attributes);
	}
}

static bool read_res_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_read_res *r = v;
	const READ3res *t = w;
	const READ3resok *ok = &t->READ3res_u.resok;

	EQ(r->status, t->status);
	if (r->status != RPCRDMA_NFS3_OK)
		return cmp_post_attr(&r->file_attr, &t->READ3res_u.resfail.file_attributes);
	EQ(r->count, ok->count);
	EQ(r->eof, ok->eof);
	SUB(cmp_post_attr(&r->file_attr, &ok->file_attributes));
	return cmp_data(&r->data, ok->data.data_len, ok->data.data_val);
}

static void write_args_gen(void *v)
{
	struct rpcrdma_nfs3_write_args *a = v;

	gen_fh(&a->file);
	a->offset = rnd64();
	gen_data(&a->data);
	a->count = rnd_below(8) ? a->data.len : rnd32();
	a->stable = rnd_below(3);
}

static void write_args_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_write_args *a = v;
	WRITE3args *t = w;

	to_fh(&a->file, &t->file);
	t->offset = a->offset;
	t->count = a->count;
	t->stable = (stable_how)a->stable;
	t->data.data_len = a->data.len;
	t->data.data_val = a->data.addr;
}

static bool write_args_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_write_args *a = v;
	const WRITE3args *t = w;

	EQ(a->offset, t->offset);
	EQ(a->count, t->count);
	EQ(a->stable, t->stable);
	SUB(cmp_fh(&a->file, &t->file));
	return cmp_data(&a->data, t->data.data_len, t->data.data_val);
}

static void write_res_gen(void *v)
{
	struct rpcrdma_nfs3_write_res *r = v;

	r->status = gen_status();
	gen_wcc(&r->file_wcc);
	r->count = rnd32();
	r->committed = rnd_below(3);
	gen_verf(r->verf);
}

static void write_res_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_write_res *r = v;
	WRITE3res *t = w;

	t->status = (nfsstat3)r->status;
	if (r->status == RPCRDMA_NFS3_OK) {
		to_wcc(&r->file_wcc, &t->WRITE3res_u.resok.file_wcc);
		t->WRITE3res_u.resok.count = r->count;
		t->WRITE3res_u.resok.committed = (stable_how)r->committed;
		memcpy(t->WRITE3res_u.resok.verf, r->verf, 8);
	} else {
		to_wcc(&r->file_wcc, &t->WRITE3res_u.resfail.file_wcc);
	}
}

static bool write_res_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_write_res *r = v;
	const WRITE3res *t = w;
	const WRITE3resok *ok = &t->WRITE3res_u.resok;

	EQ(r->status, t->status);
	if (r->status != RPCRDMA_NFS3_OK)
		return cmp_wcc(&r->file_wcc, &t->WRITE3res_u.resfail.file_wcc);
	EQ(r->count, ok->count);
	EQ(r->committed, ok->committed);
	MEMEQ(r->verf, ok->verf, 8);
	return cmp_wcc(&r->file_wcc, &ok->file_wcc);
}

static void create_args_gen(void *v)
{
	struct rpcrdma_nfs3_create_args *a = v;

	gen_diropargs(&a->where);
	a->mode = rnd_below(3);
	cov[COV_CREATE_UNCHECKED + a->mode]++;
	if (a->mode == RPCRDMA_NFS3_EXCLUSIVE)
		gen_verf(a->verf);
	else
		gen_sattr(&a->attr);
}

static void create_args_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_create_args *a = v;
	CREATE3args *t = w;

	to_diropargs(&a->where, &t->where);
	t->how.mode = (createmode3)a->mode;
	if (a->mode == RPCRDMA_NFS3_EXCLUSIVE)
		memcpy(t->how.createhow3_u.verf, a->verf, 8);
	else
		to_sattr(&a->attr, &t->how.createhow3_u.obj_attributes);
}

static bool create_args_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_create_args *a = v;
	const CREATE3args *t = w;

	SUB(cmp_diropargs(&a->where, &t->where));
	EQ(a->mode, t->how.mode);
	if (a->mode == RPCRDMA_NFS3_EXCLUSIVE) {
		MEMEQ(a->verf, t->how.createhow3_u.verf, 8);
		return true;
	}
	return cmp_sattr(&a->attr, &t->how.createhow3_u.obj_attributes);
}

static void create_res_gen(void *v)
{
	struct rpcrdma_nfs3_create_res *r = v;

	r->status = gen_status();
	if (r->status == RPCRDMA_NFS3_OK) {
		gen_post_fh(&r->obj);
		gen_post_attr(&r->obj_attr);
	}
	gen_wcc(&r->dir_wcc);
}

static void create_res_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_create_res *r = v;
	CREATE3res *t = w;

	t->status = (nfsstat3)r->status;
	if (r->status == RPCRDMA_NFS3_OK) {
		to_post_fh(&r->obj, &t->CREATE3res_u.resok.obj);
		to_post_attr(&r->obj_attr, &t->CREATE3res_u.resok.obj_attributes);
		to_wcc(&r->dir_wcc, &t->CREATE3res_u.resok.dir_wcc);
	} else {
		to_wcc(&r->dir_wcc, &t->CREATE3res_u.resfail.dir_wcc);
	}
}

static bool create_res_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_create_res *r = v;
	const CREATE3res *t = w;

	EQ(r->status, t->status);
	if (r->status != RPCRDMA_NFS3_OK)
		return cmp_wcc(&r->dir_wcc, &t->CREATE3res_u.resfail.dir_wcc);
	SUB(cmp_post_fh(&r->obj, &t->CREATE3res_u.resok.obj));
	SUB(cmp_post_attr(&r->obj_attr, &t->CREATE3res_u.resok.obj_attributes));
	return cmp_wcc(&r->dir_wcc, &t->CREATE3res_u.resok.dir_wcc);
}

static void remove_args_gen(void *v)
{
	struct rpcrdma_nfs3_remove_args *a = v;

	gen_diropargs(&a->object);
}

static void remove_args_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_remove_args *a = v;
	REMOVE3args *t = w;

	to_diropargs(&a->object, &t->object);
}

static bool remove_args_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_remove_args *a = v;
	const REMOVE3args *t = w;

	return cmp_diropargs(&a->object, &t->object);
}

static void remove_res_gen(void *v)
{
	struct rpcrdma_nfs3_remove_res *r = v;

	r->status = gen_status();
	gen_wcc(&r->dir_wcc);
}

static void remove_res_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_remove_res *r = v;
	REMOVE3res *t = w;

	t->status = (nfsstat3)r->status;
	if (r->status == RPCRDMA_NFS3_OK)
		to_wcc(&r->dir_wcc, &t->REMOVE3res_u.resok.dir_wcc);
	else
		to_wcc(&r->dir_wcc, &t->REMOVE3res_u.resfail.dir_wcc);
}

static bool remove_res_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_remove_res *r = v;
	const REMOVE3res *t = w;

	EQ(r->status, t->status);
	return cmp_wcc(&r->dir_wcc, r->status == RPCRDMA_NFS3_OK
					    ? &t->REMOVE3res_u.resok.dir_wcc
					    : &t->REMOVE3res_u.resfail.dir_wcc);
}

static void rdp_args_gen(void *v)
{
	struct rpcrdma_nfs3_readdirplus_args *a = v;

	gen_fh(&a->dir);
	a->cookie = rnd64();
	gen_verf(a->cookieverf);
	a->dircount = rnd32();
	a->maxcount = rnd32();
}

static void rdp_args_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_readdirplus_args *a = v;
	READDIRPLUS3args *t = w;

	to_fh(&a->dir, &t->dir);
	t->cookie = a->cookie;
	memcpy(t->cookieverf, a->cookieverf, 8);
	t->dircount = a->dircount;
	t->maxcount = a->maxcount;
}

static bool rdp_args_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_readdirplus_args *a = v;
	const READDIRPLUS3args *t = w;

	EQ(a->cookie, t->cookie);
	MEMEQ(a->cookieverf, t->cookieverf, 8);
	EQ(a->dircount, t->dircount);
	EQ(a->maxcount, t->maxcount);
	return cmp_fh(&a->dir, &t->dir);
}

/* rpcgen's entries of a READDIRPLUS3res: a list, kept beside the value. */
static entryplus3 rdp_list[NFS3_RDP_MAX];

static void rdp_res_gen(void *v)
{
	struct nfs3_rdp *r = v;
	uint32_t i;

	r->res.status = gen_status();
	gen_post_attr(&r->res.dir_attr);
	r->n = 0;
	if (r->res.status != RPCRDMA_NFS3_OK)
		return;
	gen_verf(r->res.cookieverf);
	r->res.eof = rnd_bool();
	switch (rnd_below(4)) {
	case 0:
		r->n = 0;
		break;
	case 1:
		r->n = 1;
		break;
	case 2:
		r->n = 50 + rnd_below(NFS3_RDP_MAX - 50 + 1);
		break;
	default:
		r->n = rnd_below(10);
	}
	cov[COV_RDP0] += r->n == 0;
	cov[COV_RDP1] += r->n == 1;
	cov[COV_RDP_MANY] += r->n >= 50;
	for (i = 0; i < r->n; i++) {
		struct rpcrdma_nfs3_entryplus *e = &r->ent[i];

		e->fileid = rnd64();
		gen_name(&e->name, &e->name_len);
		e->cookie = rnd64();
		gen_post_attr(&e->name_attr);
		gen_post_fh(&e->name_handle);
	}
}

static void rdp_res_to(const void *v, void *w)
{
	const struct nfs3_rdp *r = v;
	READDIRPLUS3res *t = w;
	READDIRPLUS3resok *ok = &t->READDIRPLUS3res_u.resok;
	uint32_t i;

	t->status = (nfsstat3)r->res.status;
	if (r->res.status != RPCRDMA_NFS3_OK) {
		to_post_attr(&r->res.dir_attr, &t->READDIRPLUS3res_u.resfail.dir_attributes);
		return;
	}
	to_post_attr(&r->res.dir_attr, &ok->dir_attributes);
	memcpy(ok->cookieverf, r->res.cookieverf, 8);
	ok->reply.eof = r->res.eof;
	ok->reply.entries = r->n ? &rdp_list[0] : NULL;
	for (i = 0; i < r->n; i++) {
		entryplus3 *e = &rdp_list[i];

		e->fileid = r->ent[i].fileid;
		e->name = (char *)(uintptr_t)r->ent[i].name;
		e->cookie = r->ent[i].cookie;
		to_post_attr(&r->ent[i].name_attr, &e->name_attributes);
		to_post_fh(&r->ent[i].name_handle, &e->name_handle);
		e->nextentry = i + 1 < r->n ? &rdp_list[i + 1] : NULL;
	}
}

static bool rdp_res_cmp(const void *v, const void *w)
{
	const struct nfs3_rdp *r = v;
	const READDIRPLUS3res *t = w;
	const READDIRPLUS3resok *ok = &t->READDIRPLUS3res_u.resok;
	const entryplus3 *e;
	uint32_t i;

	EQ(r->res.status, t->status);
	if (r->res.status != RPCRDMA_NFS3_OK)
		return cmp_post_attr(&r->res.dir_attr,
				     &t->READDIRPLUS3res_u.resfail.dir_attributes);
	SUB(cmp_post_attr(&r->res.dir_attr, &ok->dir_attributes));
	MEMEQ(r->res.cookieverf, ok->cookieverf, 8);
	EQ(r->res.eof, ok->reply.eof);
	for (i = 0, e = ok->reply.entries; i < r->n; i++, e = e->nextentry) {
		const struct rpcrdma_nfs3_entryplus *o = &r->ent[i];

		EQ(e != NULL, 1);
		EQ(o->fileid, e->fileid);
		EQ(o->cookie, e->cookie);
		SUB(cmp_name(o->name, o->name_len, e->name));
		SUB(cmp_post_attr(&o->name_attr, &e->name_attributes));
		SUB(cmp_post_fh(&o->name_handle, &e->name_handle));
	}
	EQ(e == NULL, 1);
	return true;
}

static void fh_args_gen(void *v)
{
	struct rpcrdma_nfs3_fh_args *a = v;

	gen_fh(&a->object);
}

/* FSSTAT3args, FSINFO3args and PATHCONF3args are each one nfs_fh3. */
static void fh_args_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_fh_args *a = v;

	to_fh(&a->object, w);
}

static bool fh_args_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_fh_args *a = v;

	return cmp_fh(&a->object, w);
}

static void fsstat_res_gen(void *v)
{
	struct rpcrdma_nfs3_fsstat_res *r = v;

	r->status = gen_status();
	gen_post_attr(&r->obj_attr);
	r->tbytes = rnd64();
	r->fbytes = rnd64();
	r->abytes = rnd64();
	r->tfiles = rnd64();
	r->ffiles = rnd64();
	r->afiles = rnd64();
	r->invarsec = rnd32();
}

static void fsstat_res_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_fsstat_res *r = v;
	FSSTAT3res *t = w;
	FSSTAT3resok *ok = &t->FSSTAT3res_u.resok;

	t->status = (nfsstat3)r->status;
	if (r->status != RPCRDMA_NFS3_OK) {
		to_post_attr(&r->obj_attr, &t->FSSTAT3res_u.resfail.obj_attributes);
		return;
	}
	to_post_attr(&r->obj_attr, &ok->obj_attributes);
	ok->tbytes = r->tbytes;
	ok->fbytes = r->fbytes;
	ok->abytes = r->abytes;
	ok->tfiles = r->tfiles;
	ok->ffiles = r->ffiles;
	ok->afiles = r->afiles;
	ok->invarsec = r->invarsec;
}

static bool fsstat_res_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_fsstat_res *r = v;
	const FSSTAT3res *t = w;
	const FSSTAT3resok *ok = &t->FSSTAT3res_u.resok;

	EQ(r->status, t->status);
	if (r->status != RPCRDMA_NFS3_OK)
		return cmp_post_attr(&r->obj_attr, &t->FSSTAT3res_u.resfail.obj_attributes);
	EQ(r->tbytes, ok->tbytes);
	EQ(r->fbytes, ok->fbytes);
	EQ(r->abytes, ok->abytes);
	EQ(r->tfiles, ok->tfiles);
	EQ(r->ffiles, ok->ffiles);
	EQ(r->afiles, ok->afiles);
	EQ(r->invarsec, ok->invarsec);
	return cmp_post_attr(&r->obj_attr, &ok->obj_attributes);
}

static void fsinfo_res_gen(void *v)
{
	struct rpcrdma_nfs3_fsinfo_res *r = v;

	r->status = gen_status();
	gen_post_attr(&r->obj_attr);
	r->rtmax = rnd32();
	r->rtpref = rnd32();
	r->rtmult = rnd32();
	r->wtmax = rnd32();
	r->wtpref = rnd32();
	r->wtmult = rnd32();
	r->dtpref = rnd32();
	r->maxfilesize = rnd64();
	gen_time(&r->time_delta);
	r->properties = rnd32();
}

static void fsinfo_res_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_fsinfo_res *r = v;
	FSINFO3res *t = w;
	FSINFO3resok *ok = &t->FSINFO3res_u.resok;

	t->status = (nfsstat3)r->status;
	if (r->status != RPCRDMA_NFS3_OK) {
		to_post_attr(&r->obj_attr, &t->FSINFO3res_u.resfail.obj_attributes);
		return;
	}
	to_post_attr(&r->obj_attr, &ok->obj_attributes);
	ok->rtmax = r->rtmax;
	ok->rtpref = r->rtpref;
	ok->rtmult = r->rtmult;
	ok->wtmax = r->wtmax;
	ok->wtpref = r->wtpref;
	ok->wtmult = r->wtmult;
	ok->dtpref = r->dtpref;
	ok->maxfilesize = r->maxfilesize;
	to_time(&r->time_delta, &ok->time_delta);
	ok->properties = r->properties;
}

static bool fsinfo_res_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_fsinfo_res *r = v;
	const FSINFO3res *t = w;
	const FSINFO3resok *ok = &t->FSINFO3res_u.resok;

	EQ(r->status, t->status);
	if (r->status != RPCRDMA_NFS3_OK)
		return cmp_post_attr(&r->obj_attr, &t->FSINFO3res_u.resfail.obj_attributes);
	EQ(r->rtmax, ok->rtmax);
	EQ(r->rtpref, ok->rtpref);
	EQ(r->rtmult, ok->rtmult);
	EQ(r->wtmax, ok->wtmax);
	EQ(r->wtpref, ok->wtpref);
	EQ(r->wtmult, ok->wtmult);
	EQ(r->dtpref, ok->dtpref);
	EQ(r->maxfilesize, ok->maxfilesize);
	EQ(r->properties, ok->properties);
	SUB(cmp_time(&r->time_delta, &ok->time_delta));
	return cmp_post_attr(&r->obj_attr, &ok->obj_attributes);
}

static void pathconf_res_gen(void *v)
{
	struct rpcrdma_nfs3_pathconf_res *r = v;

	r->status = gen_status();
	gen_post_attr(&r->obj_attr);
	r->linkmax = rnd32();
	r->name_max = rnd32();
	r->no_trunc = rnd_bool();
	r->chown_restricted = rnd_bool();
	r->case_insensitive = rnd_bool();
	r->case_preserving = rnd_bool();
}

static void pathconf_res_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_pathconf_res *r = v;
	PATHCONF3res *t = w;
	PATHCONF3resok *ok = &t->PATHCONF3res_u.resok;

	t->status = (nfsstat3)r->status;
	if (r->status != RPCRDMA_NFS3_OK) {
		to_post_attr(&r->obj_attr, &t->PATHCONF3res_u.resfail.obj_attributes);
		return;
	}
	to_post_attr(&r->obj_attr, &ok->obj_attributes);
	ok->linkmax = r->linkmax;
	ok->name_max = r->name_max;
	ok->no_trunc = r->no_trunc;
	ok->chown_restricted = r->chown_restricted;
	ok->case_insensitive = r->case_insensitive;
	ok->case_preserving = r->case_preserving;
}

static bool pathconf_res_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_pathconf_res *r = v;
	const PATHCONF3res *t = w;
	const PATHCONF3resok *ok = &t->PATHCONF3res_u.resok;

	EQ(r->status, t->status);
	if (r->status != RPCRDMA_NFS3_OK)
		return cmp_post_attr(&r->obj_attr, &t->PATHCONF3res_u.resfail.obj_attributes);
	EQ(r->linkmax, ok->linkmax);
	EQ(r->name_max, ok->name_max);
	EQ(r->no_trunc, ok->no_trunc);
	EQ(r->chown_restricted, ok->chown_restricted);
	EQ(r->case_insensitive, ok->case_insensitive);
	EQ(r->case_preserving, ok->case_preserving);
	return cmp_post_attr(&r->obj_attr, &ok->obj_attributes);
}

static void commit_args_gen(void *v)
{
	struct rpcrdma_nfs3_commit_args *a = v;

	gen_fh(&a->file);
	a->offset = rnd64();
	a->count = rnd32();
}

static void commit_args_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_commit_args *a = v;
	COMMIT3args *t = w;

	to_fh(&a->file, &t->file);
	t->offset = a->offset;
	t->count = a->count;
}

static bool commit_args_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_commit_args *a = v;
	const COMMIT3args *t = w;

	EQ(a->offset, t->offset);
	EQ(a->count, t->count);
	return cmp_fh(&a->file, &t->file);
}

static void commit_res_gen(void *v)
{
	struct rpcrdma_nfs3_commit_res *r = v;

	r->status = gen_status();
	gen_wcc(&r->file_wcc);
	gen_verf(r->verf);
}

static void commit_res_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_commit_res *r = v;
	COMMIT3res *t = w;

	t->status = (nfsstat3)r->status;
	if (r->status == RPCRDMA_NFS3_OK) {
		to_wcc(&r->file_wcc, &t->COMMIT3res_u.resok.file_wcc);
		memcpy(t->COMMIT3res_u.resok.verf, r->verf, 8);
	} else {
		to_wcc(&r->file_wcc, &t->COMMIT3res_u.resfail.file_wcc);
	}
}

static bool commit_res_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_commit_res *r = v;
	const COMMIT3res *t = w;

	EQ(r->status, t->status);
	if (r->status != RPCRDMA_NFS3_OK)
		return cmp_wcc(&r->file_wcc, &t->COMMIT3res_u.resfail.file_wcc);
	MEMEQ(r->verf, t->COMMIT3res_u.resok.verf, 8);
	return cmp_wcc(&r->file_wcc, &t->COMMIT3res_u.resok.file_wcc);
}

static void dirpath_gen(void *v)
{
	struct rpcrdma_mount3_dirpath *d = v;

	d->len = rnd_below(4) ? rnd_below(64) : RPCRDMA_MOUNT3_PATHLEN;
	d->path = gen_string(d->len);
}

static void dirpath_to(const void *v, void *w)
{
	const struct rpcrdma_mount3_dirpath *d = v;

	*(char **)w = (char *)(uintptr_t)d->path;
}

static bool dirpath_cmp(const void *v, const void *w)
{
	const struct rpcrdma_mount3_dirpath *d = v;

	return cmp_name(d->path, d->len, *(char *const *)w);
}

static void mnt_res_gen(void *v)
{
	struct rpcrdma_mount3_mnt_res *r = v;
	uint32_t i;

	r->status = rnd_below(3) ? RPCRDMA_MNT3_OK : RPCRDMA_MNT3ERR_ACCES;
	if (r->status != RPCRDMA_MNT3_OK)
		return;
	gen_fh(&r->fh);
	r->nflavors = rnd_below(3) ? rnd_below(4) : RPCRDMA_MOUNT3_FLAVORS_MAX;
	cov[COV_FLAVORS0] += r->nflavors == 0;
	cov[COV_FLAVORS16] += r->nflavors == RPCRDMA_MOUNT3_FLAVORS_MAX;
	for (i = 0; i < r->nflavors; i++)
		r->flavors[i] = rnd_below(2) ? 1 : rnd32();
}

static void mnt_res_to(const void *v, void *w)
{
	const struct rpcrdma_mount3_mnt_res *r = v;
	mountres3 *t = w;
	mountres3_ok *ok = &t->mountres3_u.mountinfo;

	t->fhs_status = (mountstat3)r->status;
	if (r->status != RPCRDMA_MNT3_OK)
		return;
	ok->fhandle.fhandle3_len = r->fh.len;
	ok->fhandle.fhandle3_val = (char *)(uintptr_t)r->fh.data;
	ok->auth_flavors.auth_flavors_len = r->nflavors;
	ok->auth_flavors.auth_flavors_val = (int *)(uintptr_t)r->flavors;
}

static bool mnt_res_cmp(const void *v, const void *w)
{
	const struct rpcrdma_mount3_mnt_res *r = v;
	const mountres3 *t = w;
	const mountres3_ok *ok = &t->mountres3_u.mountinfo;
	uint32_t i;

	EQ(r->status, t->fhs_status);
	if (r->status != RPCRDMA_MNT3_OK)
		return true;
	EQ(r->fh.len, ok->fhandle.fhandle3_len);
	MEMEQ(r->fh.data, ok->fhandle.fhandle3_val, r->fh.len);
	EQ(r->nflavors, ok->auth_flavors.auth_flavors_len);
	for (i = 0; i < r->nflavors; i++)
		EQ(r->flavors[i], (uint32_t)ok->auth_flavors.auth_flavors_val[i]);
	return true;
}

/* ------------------------------- SETATTR, READLINK, MKDIR, ..., READDIR */

static void gen_path(const char **path, uint32_t *len)
{
	*len = rnd_below(5) ? rnd_below(80) : RPCRDMA_NFS3_PATH_MAX;
	cov[COV_PATH_MAX] += *len == RPCRDMA_NFS3_PATH_MAX;
	*path = gen_string(*len);
}

static void setattr_args_gen(void *v)
{
	struct rpcrdma_nfs3_setattr_args *a = v;

	gen_fh(&a->object);
	gen_sattr(&a->new_attr);
	a->guard_check = rnd_bool();
	cov[COV_GUARD] += a->guard_check;
	if (a->guard_check)
		gen_time(&a->guard_ctime);
}

static void setattr_args_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_setattr_args *a = v;
	SETATTR3args *t = w;

	to_fh(&a->object, &t->object);
	to_sattr(&a->new_attr, &t->new_attributes);
	t->guard.check = a->guard_check;
	if (a->guard_check)
		to_time(&a->guard_ctime, &t->guard.sattrguard3_u.obj_ctime);
}

static bool setattr_args_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_setattr_args *a = v;
	const SETATTR3args *t = w;

	EQ(a->guard_check, t->guard.check);
	if (a->guard_check)
		SUB(cmp_time(&a->guard_ctime, &t->guard.sattrguard3_u.obj_ctime));
	SUB(cmp_sattr(&a->new_attr, &t->new_attributes));
	return cmp_fh(&a->object, &t->object);
}

static void wcc_res_gen(void *v)
{
	struct rpcrdma_nfs3_wcc_res *r = v;

	r->status = gen_status();
	gen_wcc(&r->wcc);
}

static void wcc_res_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_wcc_res *r = v;
	SETATTR3res *t = w;

	t->status = (nfsstat3)r->status;
	if (r->status == RPCRDMA_NFS3_OK)
		to_wcc(&r->wcc, &t->SETATTR3res_u.resok.obj_wcc);
	else
		to_wcc(&r->wcc, &t->SETATTR3res_u.resfail.obj_wcc);
}

static bool wcc_res_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_wcc_res *r = v;
	const SETATTR3res *t = w;

	EQ(r->status, t->status);
	return cmp_wcc(&r->wcc, r->status == RPCRDMA_NFS3_OK ? &t->SETATTR3res_u.resok.obj_wcc
							     : &t->SETATTR3res_u.resfail.obj_wcc);
}

static void readlink_res_gen(void *v)
{
	struct rpcrdma_nfs3_readlink_res *r = v;

	r->status = gen_status();
	gen_post_attr(&r->symlink_attr);
	if (r->status == RPCRDMA_NFS3_OK)
		gen_path(&r->data, &r->data_len);
}

static void readlink_res_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_readlink_res *r = v;
	READLINK3res *t = w;

	t->status = (nfsstat3)r->status;
	if (r->status != RPCRDMA_NFS3_OK) {
		to_post_attr(&r->symlink_attr, &t->READLINK3res_u.resfail.symlink_attributes);
		return;
	}
	to_post_attr(&r->symlink_attr, &t->READLINK3res_u.resok.symlink_attributes);
	t->READLINK3res_u.resok.data = (char *)(uintptr_t)r->data;
}

static bool readlink_res_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_readlink_res *r = v;
	const READLINK3res *t = w;

	EQ(r->status, t->status);
	if (r->status != RPCRDMA_NFS3_OK)
		return cmp_post_attr(&r->symlink_attr,
				     &t->READLINK3res_u.resfail.symlink_attributes);
	SUB(cmp_post_attr(&r->symlink_attr, &t->READLINK3res_u.resok.symlink_attributes));
	return cmp_name(r->data, r->data_len, t->READLINK3res_u.resok.data);
}

static void mkdir_args_gen(void *v)
{
	struct rpcrdma_nfs3_mkdir_args *a = v;

	gen_diropargs(&a->where);
	gen_sattr(&a->attr);
}

static void mkdir_args_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_mkdir_args *a = v;
	MKDIR3args *t = w;

	to_diropargs(&a->where, &t->where);
	to_sattr(&a->attr, &t->attributes);
}

static bool mkdir_args_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_mkdir_args *a = v;
	const MKDIR3args *t = w;

	SUB(cmp_diropargs(&a->where, &t->where));
	return cmp_sattr(&a->attr, &t->attributes);
}

static void symlink_args_gen(void *v)
{
	struct rpcrdma_nfs3_symlink_args *a = v;

	gen_diropargs(&a->where);
	gen_sattr(&a->attr);
	gen_path(&a->data, &a->data_len);
}

static void symlink_args_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_symlink_args *a = v;
	SYMLINK3args *t = w;

	to_diropargs(&a->where, &t->where);
	to_sattr(&a->attr, &t->symlink.symlink_attributes);
	t->symlink.symlink_data = (char *)(uintptr_t)a->data;
}

static bool symlink_args_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_symlink_args *a = v;
	const SYMLINK3args *t = w;

	SUB(cmp_diropargs(&a->where, &t->where));
	SUB(cmp_sattr(&a->attr, &t->symlink.symlink_attributes));
	return cmp_name(a->data, a->data_len, t->symlink.symlink_data);
}

static void rename_args_gen(void *v)
{
	struct rpcrdma_nfs3_rename_args *a = v;

	gen_diropargs(&a->from);
	gen_diropargs(&a->to);
}

static void rename_args_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_rename_args *a = v;
	RENAME3args *t = w;

	to_diropargs(&a->from, &t->from);
	to_diropargs(&a->to, &t->to);
}

static bool rename_args_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_rename_args *a = v;
	const RENAME3args *t = w;

	SUB(cmp_diropargs(&a->from, &t->from));
	return cmp_diropargs(&a->to, &t->to);
}

static void rename_res_gen(void *v)
{
	struct rpcrdma_nfs3_rename_res *r = v;

	r->status = gen_status();
	gen_wcc(&r->fromdir_wcc);
	gen_wcc(&r->todir_wcc);
}

static void rename_res_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_rename_res *r = v;
	RENAME3res *t = w;

	t->status = (nfsstat3)r->status;
	if (r->status == RPCRDMA_NFS3_OK) {
		to_wcc(&r->fromdir_wcc, &t->RENAME3res_u.resok.fromdir_wcc);
		to_wcc(&r->todir_wcc, &t->RENAME3res_u.resok.todir_wcc);
	} else {
		to_wcc(&r->fromdir_wcc, &t->RENAME3res_u.resfail.fromdir_wcc);
		to_wcc(&r->todir_wcc, &t->RENAME3res_u.resfail.todir_wcc);
	}
}

static bool rename_res_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_rename_res *r = v;
	const RENAME3res *t = w;
	bool ok = r->status == RPCRDMA_NFS3_OK;

	EQ(r->status, t->status);
	SUB(cmp_wcc(&r->fromdir_wcc, ok ? &t->RENAME3res_u.resok.fromdir_wcc
					: &t->RENAME3res_u.resfail.fromdir_wcc));
	return cmp_wcc(&r->todir_wcc,
		       ok ? &t->RENAME3res_u.resok.todir_wcc : &t->RENAME3res_u.resfail.todir_wcc);
}

static void rd_args_gen(void *v)
{
	struct rpcrdma_nfs3_readdir_args *a = v;

	gen_fh(&a->dir);
	a->cookie = rnd64();
	gen_verf(a->cookieverf);
	a->count = rnd32();
}

static void rd_args_to(const void *v, void *w)
{
	const struct rpcrdma_nfs3_readdir_args *a = v;
	READDIR3args *t = w;

	to_fh(&a->dir, &t->dir);
	t->cookie = a->cookie;
	memcpy(t->cookieverf, a->cookieverf, 8);
	t->count = a->count;
}

static bool rd_args_cmp(const void *v, const void *w)
{
	const struct rpcrdma_nfs3_readdir_args *a = v;
	const READDIR3args *t = w;

	EQ(a->cookie, t->cookie);
	MEMEQ(a->cookieverf, t->cookieverf, 8);
	EQ(a->count, t->count);
	return cmp_fh(&a->dir, &t->dir);
}

/* rpcgen's entries of a READDIR3res. */
static entry3 rd_list[NFS3_RDP_MAX];

static void rd_res_gen(void *v)
{
	struct nfs3_rd *r = v;
	uint32_t i;

	r->res.status = gen_status();
	gen_post_attr(&r->res.dir_attr);
	r->n = 0;
	if (r->res.status != RPCRDMA_NFS3_OK)
		return;
	gen_verf(r->res.cookieverf);
	r->res.eof = rnd_bool();
	r->n = rnd_below(3) ? rnd_below(10) : 50 + rnd_below(NFS3_RDP_MAX - 50 + 1);
	cov[COV_RD_MANY] += r->n >= 50;
	for (i = 0; i < r->n; i++) {
		r->ent[i].fileid = rnd64();
		gen_name(&r->ent[i].name, &r->ent[i].name_len);
		r->ent[i].cookie = rnd64();
	}
}

static void rd_res_to(const void *v, void *w)
{
	const struct nfs3_rd *r = v;
	READDIR3res *t = w;
	READDIR3resok *ok = &t->READDIR3res_u.resok;
	uint32_t i;

	t->status = (nfsstat3)r->res.status;
	if (r->res.status != RPCRDMA_NFS3_OK) {
		to_post_attr(&r->res.dir_attr, &t->READDIR3res_u.resfail.dir_attributes);
		return;
	}
	to_post_attr(&r->res.dir_attr, &ok->dir_attributes);
	memcpy(ok->cookieverf, r->res.cookieverf, 8);
	ok->reply.eof = r->res.eof;
	ok->reply.entries = r->n ? &rd_list[0] : NULL;
	for (i = 0; i < r->n; i++) {
		rd_list[i].fileid = r->ent[i].fileid;
		rd_list[i].name = (char *)(uintptr_t)r->ent[i].name;
		rd_list[i].cookie = r->ent[i].cookie;
		rd_list[i].nextentry = i + 1 < r->n ? &rd_list[i + 1] : NULL;
	}
}

static bool rd_res_cmp(const void *v, const void *w)
{
	const struct nfs3_rd *r = v;
	const READDIR3res *t = w;
	const READDIR3resok *ok = &t->READDIR3res_u.resok;
	const entry3 *e;
	uint32_t i;

	EQ(r->res.status, t->status);
	if (r->res.status != RPCRDMA_NFS3_OK)
		return cmp_post_attr(&r->res.dir_attr, &t->READDIR3res_u.resfail.dir_attributes);
	SUB(cmp_post_attr(&r->res.dir_attr, &ok->dir_attributes));
	MEMEQ(r->res.cookieverf, ok->cookieverf, 8);
	EQ(r->res.eof, ok->reply.eof);
	for (i = 0, e = ok->reply.entries; i < r->n; i++, e = e->nextentry) {
		EQ(e != NULL, 1);
		EQ(r->ent[i].fileid, e->fileid);
		EQ(r->ent[i].cookie, e->cookie);
		SUB(cmp_name(r->ent[i].name, r->ent[i].name_len, e->name));
	}
	EQ(e == NULL, 1);
	return true;
}

/*
 * In the order of nfs3_kinds[]. MKDIR3res and SYMLINK3res are CREATE3res on
 * the wire and RMDIR3res REMOVE3res: rpcgen's structs of each pair have one
 * layout, so the CREATE and REMOVE functions serve them.
 */
const struct nfs3_rpcgen_kind rk[] = {
#define R(n, t, p)                                                         \
	{                                                                  \
		n, (xdrproc_t)xdr_##t, sizeof(t), p##_gen, p##_to, p##_cmp \
	}
	R("GETATTR3args", GETATTR3args, getattr_args),
	R("GETATTR3res", GETATTR3res, getattr_res),
	R("LOOKUP3args", LOOKUP3args, lookup_args),
	R("LOOKUP3res", LOOKUP3res, lookup_res),
	R("ACCESS3args", ACCESS3args, access_args),
	R("ACCESS3res", ACCESS3res, access_res),
	R("READ3args", READ3args, read_args),
	R("READ3res", READ3res, read_res),
	R("WRITE3args", WRITE3args, write_args),
	R("WRITE3res", WRITE3res, write_res),
	R("CREATE3args", CREATE3args, create_args),
	R("CREATE3res", CREATE3res, create_res),
	R("REMOVE3args", REMOVE3args, remove_args),
	R("REMOVE3res", REMOVE3res, remove_res),
	R("READDIRPLUS3args", READDIRPLUS3args, rdp_args),
	R("READDIRPLUS3res", READDIRPLUS3res, rdp_res),
	R("FSSTAT3args", FSSTAT3args, fh_args),
	R("FSSTAT3res", FSSTAT3res, fsstat_res),
	R("FSINFO3args", FSINFO3args, fh_args),
	R("FSINFO3res", FSINFO3res, fsinfo_res),
	R("PATHCONF3args", PATHCONF3args, fh_args),
	R("PATHCONF3res", PATHCONF3res, pathconf_res),
	R("COMMIT3args", COMMIT3args, commit_args),
	R("COMMIT3res", COMMIT3res, commit_res),
	R("MNT3args", dirpath, dirpath),
	R("mountres3", mountres3, mnt_res),
	R("UMNT3args", dirpath, dirpath),
	R("SETATTR3args", SETATTR3args, setattr_args),
	R("SETATTR3res", SETATTR3res, wcc_res),
	R("READLINK3args", READLINK3args, fh_args),
	R("READLINK3res", READLINK3res, readlink_res),
	R("MKDIR3args", MKDIR3args, mkdir_args),
	R("MKDIR3res", MKDIR3res, create_res),
	R("SYMLINK3args", SYMLINK3args, symlink_args),
	R("SYMLINK3res", SYMLINK3res, create_res),
	R("RMDIR3args", RMDIR3args, remove_args),
	R("RMDIR3res", RMDIR3res, remove_res),
	R("RENAME3args", RENAME3args, rename_args),
	R("RENAME3res", RENAME3res, rename_res),
	R("READDIR3args", READDIR3args, rd_args),
	R("READDIR3res", READDIR3res, rd_res),
#undef R
};
const size_t rk_n = sizeof(rk) / sizeof(rk[0]);

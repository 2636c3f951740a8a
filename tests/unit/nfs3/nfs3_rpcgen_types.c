/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The basic NFSv3 types for test_nfs3_rpcgen: seeded random numbers, the
 * coverage of the edges drawn, the arena of one iteration's value, and for
 * each type (handles, names, times, attributes, wcc data, sattr3, diropargs3)
 * a generator of our form, rpcgen's form of it and a comparison of the two.
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

/* ---------------------------------------------------------------- random */

uint64_t rng;

uint64_t rnd64(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint32_t rnd32(void)
{
	return (uint32_t)(rnd64() >> 32);
}

uint32_t rnd_below(uint32_t n)
{
	return (uint32_t)(((uint64_t)rnd32() * n) >> 32);
}

bool rnd_bool(void)
{
	return rnd_below(2);
}

/* ------------------------------------------------------------- coverage */

const char *const cov_name[COV_N] = {
	"empty handle",	      "64-byte handle",
	"empty name",	      "255-byte name",
	"attributes absent",  "attributes present",
	"pre_op absent",      "pre_op present",
	"handle absent",      "failure arm",
	"zero-length READ",   "READ eof",
	"UNCHECKED",	      "GUARDED",
	"EXCLUSIVE",	      "SET_TO_SERVER_TIME",
	"SET_TO_CLIENT_TIME", "READDIRPLUS 0",
	"READDIRPLUS 1",      "READDIRPLUS many",
	"0 flavors",	      "16 flavors",
	"SETATTR guard",      "4096-byte path",
	"READDIR many",
};
unsigned long cov[COV_N];

/* ---------------------------------------------------------------- arena */

/* Storage of the names, handles and data of one iteration's value. */
uint8_t arena[256 * 1024];
size_t arena_used;

uint8_t *arena_alloc(size_t n)
{
	uint8_t *p = arena + arena_used;

	arena_used += (n + 7) & ~(size_t)7;
	if (arena_used > sizeof(arena))
		abort();
	return p;
}

/* ------------------------------------------------- generators (our form) */

void gen_fh(struct rpcrdma_nfs3_fh *fh)
{
	uint8_t *p;
	uint32_t i;

	switch (rnd_below(4)) {
	case 0:
		fh->len = 0;
		break;
	case 1:
		fh->len = RPCRDMA_NFS3_FHSIZE;
		break;
	default:
		fh->len = 1 + rnd_below(RPCRDMA_NFS3_FHSIZE);
	}
	cov[COV_FH0] += fh->len == 0;
	cov[COV_FH64] += fh->len == RPCRDMA_NFS3_FHSIZE;
	p = arena_alloc(fh->len + 1);
	for (i = 0; i < fh->len; i++)
		p[i] = (uint8_t)rnd32();
	fh->data = fh->len ? p : NULL;
}

/* A name without NUL bytes, NUL-terminated after len for rpcgen's string. */
const char *gen_string(uint32_t len)
{
	char *p = (char *)arena_alloc(len + 1);
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (char)(1 + rnd_below(255));
	p[len] = 0;
	return p;
}

void gen_name(const char **name, uint32_t *len)
{
	switch (rnd_below(5)) {
	case 0:
		*len = 0;
		break;
	case 1:
		*len = RPCRDMA_NFS3_NAME_MAX;
		break;
	default:
		*len = 1 + rnd_below(24);
	}
	cov[COV_NAME0] += *len == 0;
	cov[COV_NAME255] += *len == RPCRDMA_NFS3_NAME_MAX;
	*name = gen_string(*len);
}

void gen_time(struct rpcrdma_nfs3_time *t)
{
	t->seconds = rnd32();
	t->nseconds = rnd32();
}

void gen_fattr(struct rpcrdma_nfs3_fattr *f)
{
	f->type = 1 + rnd_below(7);
	f->mode = rnd32();
	f->nlink = rnd32();
	f->uid = rnd32();
	f->gid = rnd32();
	f->size = rnd64();
	f->used = rnd64();
	f->rdev_major = rnd32();
	f->rdev_minor = rnd32();
	f->fsid = rnd64();
	f->fileid = rnd64();
	gen_time(&f->atime);
	gen_time(&f->mtime);
	gen_time(&f->ctime);
}

void gen_post_attr(struct rpcrdma_nfs3_post_attr *a)
{
	a->present = rnd_bool();
	cov[a->present ? COV_ATTR_PRESENT : COV_ATTR_ABSENT]++;
	if (a->present)
		gen_fattr(&a->attr);
}

void gen_wcc(struct rpcrdma_nfs3_wcc *w)
{
	w->before_present = rnd_bool();
	cov[w->before_present ? COV_PRE_PRESENT : COV_PRE_ABSENT]++;
	if (w->before_present) {
		w->before.size = rnd64();
		gen_time(&w->before.mtime);
		gen_time(&w->before.ctime);
	}
	gen_post_attr(&w->after);
}

void gen_post_fh(struct rpcrdma_nfs3_post_fh *h)
{
	h->present = rnd_bool();
	cov[COV_HANDLE_ABSENT] += !h->present;
	if (h->present)
		gen_fh(&h->fh);
}

void gen_set_time(uint32_t *how, struct rpcrdma_nfs3_time *t)
{
	*how = rnd_below(3);
	cov[COV_TIME_SERVER] += *how == RPCRDMA_NFS3_SET_TO_SERVER_TIME;
	cov[COV_TIME_CLIENT] += *how == RPCRDMA_NFS3_SET_TO_CLIENT_TIME;
	if (*how == RPCRDMA_NFS3_SET_TO_CLIENT_TIME)
		gen_time(t);
}

void gen_sattr(struct rpcrdma_nfs3_sattr *s)
{
	s->set_mode = rnd_bool();
	s->mode = s->set_mode ? rnd32() : 0;
	s->set_uid = rnd_bool();
	s->uid = s->set_uid ? rnd32() : 0;
	s->set_gid = rnd_bool();
	s->gid = s->set_gid ? rnd32() : 0;
	s->set_size = rnd_bool();
	s->size = s->set_size ? rnd64() : 0;
	gen_set_time(&s->set_atime, &s->atime);
	gen_set_time(&s->set_mtime, &s->mtime);
}

void gen_diropargs(struct rpcrdma_nfs3_diropargs *d)
{
	gen_fh(&d->dir);
	gen_name(&d->name, &d->name_len);
}

uint32_t gen_status(void)
{
	static const uint32_t fails[] = { RPCRDMA_NFS3ERR_NOENT, RPCRDMA_NFS3ERR_ACCES,
					  RPCRDMA_NFS3ERR_STALE, RPCRDMA_NFS3ERR_JUKEBOX };

	if (rnd_below(3))
		return RPCRDMA_NFS3_OK;
	cov[COV_FAIL]++;
	return fails[rnd_below(4)];
}

void gen_verf(uint8_t *v)
{
	uint32_t i;

	for (i = 0; i < 8; i++)
		v[i] = (uint8_t)rnd32();
}

void gen_data(struct rpcrdma_xdr_region *r)
{
	uint32_t len = rnd_below(4) ? rnd_below(600) : 0;
	uint8_t *p = arena_alloc(len);
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)rnd32();
	*r = rpcrdma_xdr_region_va(p, len, 0x11, 0x22);
}

/* --------------------------------------------- rpcgen's form of a value */

void to_fh(const struct rpcrdma_nfs3_fh *o, nfs_fh3 *t)
{
	t->data.data_len = o->len;
	t->data.data_val = (char *)(uintptr_t)o->data;
}

void to_time(const struct rpcrdma_nfs3_time *o, nfstime3 *t)
{
	t->seconds = o->seconds;
	t->nseconds = o->nseconds;
}

void to_fattr(const struct rpcrdma_nfs3_fattr *o, fattr3 *t)
{
	t->type = (ftype3)o->type;
	t->mode = o->mode;
	t->nlink = o->nlink;
	t->uid = o->uid;
	t->gid = o->gid;
	t->size = o->size;
	t->used = o->used;
	t->rdev.specdata1 = o->rdev_major;
	t->rdev.specdata2 = o->rdev_minor;
	t->fsid = o->fsid;
	t->fileid = o->fileid;
	to_time(&o->atime, &t->atime);
	to_time(&o->mtime, &t->mtime);
	to_time(&o->ctime, &t->ctime);
}

void to_post_attr(const struct rpcrdma_nfs3_post_attr *o, post_op_attr *t)
{
	t->attributes_follow = o->present;
	if (o->present)
		to_fattr(&o->attr, &t->post_op_attr_u.attributes);
}

void to_wcc(const struct rpcrdma_nfs3_wcc *o, wcc_data *t)
{
	t->before.attributes_follow = o->before_present;
	if (o->before_present) {
		t->before.pre_op_attr_u.attributes.size = o->before.size;
		to_time(&o->before.mtime, &t->before.pre_op_attr_u.attributes.mtime);
		to_time(&o->before.ctime, &t->before.pre_op_attr_u.attributes.ctime);
	}
	to_post_attr(&o->after, &t->after);
}

void to_post_fh(const struct rpcrdma_nfs3_post_fh *o, post_op_fh3 *t)
{
	t->handle_follows = o->present;
	if (o->present)
		to_fh(&o->fh, &t->post_op_fh3_u.handle);
}

void to_sattr(const struct rpcrdma_nfs3_sattr *o, sattr3 *t)
{
	t->mode.set_it = o->set_mode;
	t->mode.set_mode3_u.mode = o->mode;
	t->uid.set_it = o->set_uid;
	t->uid.set_uid3_u.uid = o->uid;
	t->gid.set_it = o->set_gid;
	t->gid.set_gid3_u.gid = o->gid;
	t->size.set_it = o->set_size;
	t->size.set_size3_u.size = o->size;
	t->atime.set_it = (time_how)o->set_atime;
	to_time(&o->atime, &t->atime.set_atime_u.atime);
	t->mtime.set_it = (time_how)o->set_mtime;
	to_time(&o->mtime, &t->mtime.set_mtime_u.mtime);
}

void to_diropargs(const struct rpcrdma_nfs3_diropargs *o, diropargs3 *t)
{
	to_fh(&o->dir, &t->dir);
	t->name = (char *)(uintptr_t)o->name;
}

/* ----------------------------------------------------------- comparisons */

const char *why;
int why_line;

bool cmp_fh(const struct rpcrdma_nfs3_fh *o, const nfs_fh3 *t)
{
	EQ(o->len, t->data.data_len);
	MEMEQ(o->data, t->data.data_val, o->len);
	return true;
}

bool cmp_name(const char *o, uint32_t len, const char *t)
{
	EQ(len, strlen(t));
	MEMEQ(o, t, len);
	return true;
}

bool cmp_time(const struct rpcrdma_nfs3_time *o, const nfstime3 *t)
{
	EQ(o->seconds, t->seconds);
	EQ(o->nseconds, t->nseconds);
	return true;
}

bool cmp_fattr(const struct rpcrdma_nfs3_fattr *o, const fattr3 *t)
{
	EQ(o->type, t->type);
	EQ(o->mode, t->mode);
	EQ(o->nlink, t->nlink);
	EQ(o->uid, t->uid);
	EQ(o->gid, t->gid);
	EQ(o->size, t->size);
	EQ(o->used, t->used);
	EQ(o->rdev_major, t->rdev.specdata1);
	EQ(o->rdev_minor, t->rdev.specdata2);
	EQ(o->fsid, t->fsid);
	EQ(o->fileid, t->fileid);
	SUB(cmp_time(&o->atime, &t->atime));
	SUB(cmp_time(&o->mtime, &t->mtime));
	return cmp_time(&o->ctime, &t->ctime);
}

bool cmp_post_attr(const struct rpcrdma_nfs3_post_attr *o, const post_op_attr *t)
{
	EQ(o->present, t->attributes_follow);
	return !o->present || cmp_fattr(&o->attr, &t->post_op_attr_u.attributes);
}

bool cmp_wcc(const struct rpcrdma_nfs3_wcc *o, const wcc_data *t)
{
	const wcc_attr *b = &t->before.pre_op_attr_u.attributes;

	EQ(o->before_present, t->before.attributes_follow);
	if (o->before_present) {
		EQ(o->before.size, b->size);
		SUB(cmp_time(&o->before.mtime, &b->mtime));
		SUB(cmp_time(&o->before.ctime, &b->ctime));
	}
	return cmp_post_attr(&o->after, &t->after);
}

bool cmp_post_fh(const struct rpcrdma_nfs3_post_fh *o, const post_op_fh3 *t)
{
	EQ(o->present, t->handle_follows);
	return !o->present || cmp_fh(&o->fh, &t->post_op_fh3_u.handle);
}

bool cmp_sattr(const struct rpcrdma_nfs3_sattr *o, const sattr3 *t)
{
	EQ(o->set_mode, t->mode.set_it);
	if (o->set_mode)
		EQ(o->mode, t->mode.set_mode3_u.mode);
	EQ(o->set_uid, t->uid.set_it);
	if (o->set_uid)
		EQ(o->uid, t->uid.set_uid3_u.uid);
	EQ(o->set_gid, t->gid.set_it);
	if (o->set_gid)
		EQ(o->gid, t->gid.set_gid3_u.gid);
	EQ(o->set_size, t->size.set_it);
	if (o->set_size)
		EQ(o->size, t->size.set_size3_u.size);
	EQ(o->set_atime, t->atime.set_it);
	if (o->set_atime == RPCRDMA_NFS3_SET_TO_CLIENT_TIME)
		SUB(cmp_time(&o->atime, &t->atime.set_atime_u.atime));
	EQ(o->set_mtime, t->mtime.set_it);
	if (o->set_mtime == RPCRDMA_NFS3_SET_TO_CLIENT_TIME)
		SUB(cmp_time(&o->mtime, &t->mtime.set_mtime_u.mtime));
	return true;
}

bool cmp_diropargs(const struct rpcrdma_nfs3_diropargs *o, const diropargs3 *t)
{
	SUB(cmp_fh(&o->dir, &t->dir));
	return cmp_name(o->name, o->name_len, t->name);
}

bool cmp_data(const struct rpcrdma_xdr_region *o, u_int tlen, const char *tval)
{
	EQ(o->len, tlen);
	MEMEQ(o->addr, tval, o->len);
	return true;
}

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

/* ---------------------------------------------------------------- random */

static uint64_t rng;

static uint64_t rnd64(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rnd32(void)
{
	return (uint32_t)(rnd64() >> 32);
}

static uint32_t rnd_below(uint32_t n)
{
	return (uint32_t)(((uint64_t)rnd32() * n) >> 32);
}

static bool rnd_bool(void)
{
	return rnd_below(2);
}

/* ------------------------------------------------------------- coverage */

enum {
	COV_FH0,
	COV_FH64,
	COV_NAME0,
	COV_NAME255,
	COV_ATTR_ABSENT,
	COV_ATTR_PRESENT,
	COV_PRE_ABSENT,
	COV_PRE_PRESENT,
	COV_HANDLE_ABSENT,
	COV_FAIL,
	COV_READ0,
	COV_EOF,
	COV_CREATE_UNCHECKED,
	COV_CREATE_GUARDED,
	COV_CREATE_EXCLUSIVE,
	COV_TIME_SERVER,
	COV_TIME_CLIENT,
	COV_RDP0,
	COV_RDP1,
	COV_RDP_MANY,
	COV_FLAVORS0,
	COV_FLAVORS16,
	COV_GUARD,
	COV_PATH_MAX,
	COV_RD_MANY,
	COV_N,
};
static const char *const cov_name[COV_N] = {
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
static unsigned long cov[COV_N];

/* ---------------------------------------------------------------- arena */

/* Storage of the names, handles and data of one iteration's value. */
static uint8_t arena[256 * 1024];
static size_t arena_used;

static uint8_t *arena_alloc(size_t n)
{
	uint8_t *p = arena + arena_used;

	arena_used += (n + 7) & ~(size_t)7;
	if (arena_used > sizeof(arena))
		abort();
	return p;
}

/* ------------------------------------------------- generators (our form) */

static void gen_fh(struct rpcrdma_nfs3_fh *fh)
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
static const char *gen_string(uint32_t len)
{
	char *p = (char *)arena_alloc(len + 1);
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (char)(1 + rnd_below(255));
	p[len] = 0;
	return p;
}

static void gen_name(const char **name, uint32_t *len)
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

static void gen_time(struct rpcrdma_nfs3_time *t)
{
	t->seconds = rnd32();
	t->nseconds = rnd32();
}

static void gen_fattr(struct rpcrdma_nfs3_fattr *f)
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

static void gen_post_attr(struct rpcrdma_nfs3_post_attr *a)
{
	a->present = rnd_bool();
	cov[a->present ? COV_ATTR_PRESENT : COV_ATTR_ABSENT]++;
	if (a->present)
		gen_fattr(&a->attr);
}

static void gen_wcc(struct rpcrdma_nfs3_wcc *w)
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

static void gen_post_fh(struct rpcrdma_nfs3_post_fh *h)
{
	h->present = rnd_bool();
	cov[COV_HANDLE_ABSENT] += !h->present;
	if (h->present)
		gen_fh(&h->fh);
}

static void gen_set_time(uint32_t *how, struct rpcrdma_nfs3_time *t)
{
	*how = rnd_below(3);
	cov[COV_TIME_SERVER] += *how == RPCRDMA_NFS3_SET_TO_SERVER_TIME;
	cov[COV_TIME_CLIENT] += *how == RPCRDMA_NFS3_SET_TO_CLIENT_TIME;
	if (*how == RPCRDMA_NFS3_SET_TO_CLIENT_TIME)
		gen_time(t);
}

static void gen_sattr(struct rpcrdma_nfs3_sattr *s)
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

static void gen_diropargs(struct rpcrdma_nfs3_diropargs *d)
{
	gen_fh(&d->dir);
	gen_name(&d->name, &d->name_len);
}

static uint32_t gen_status(void)
{
	static const uint32_t fails[] = { RPCRDMA_NFS3ERR_NOENT, RPCRDMA_NFS3ERR_ACCES,
					  RPCRDMA_NFS3ERR_STALE, RPCRDMA_NFS3ERR_JUKEBOX };

	if (rnd_below(3))
		return RPCRDMA_NFS3_OK;
	cov[COV_FAIL]++;
	return fails[rnd_below(4)];
}

static void gen_verf(uint8_t *v)
{
	uint32_t i;

	for (i = 0; i < 8; i++)
		v[i] = (uint8_t)rnd32();
}

static void gen_data(struct rpcrdma_xdr_region *r)
{
	uint32_t len = rnd_below(4) ? rnd_below(600) : 0;
	uint8_t *p = arena_alloc(len);
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)rnd32();
	*r = rpcrdma_xdr_region_va(p, len, 0x11, 0x22);
}

/* --------------------------------------------- rpcgen's form of a value */

static void to_fh(const struct rpcrdma_nfs3_fh *o, nfs_fh3 *t)
{
	t->data.data_len = o->len;
	t->data.data_val = (char *)(uintptr_t)o->data;
}

static void to_time(const struct rpcrdma_nfs3_time *o, nfstime3 *t)
{
	t->seconds = o->seconds;
	t->nseconds = o->nseconds;
}

static void to_fattr(const struct rpcrdma_nfs3_fattr *o, fattr3 *t)
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

static void to_post_attr(const struct rpcrdma_nfs3_post_attr *o, post_op_attr *t)
{
	t->attributes_follow = o->present;
	if (o->present)
		to_fattr(&o->attr, &t->post_op_attr_u.attributes);
}

static void to_wcc(const struct rpcrdma_nfs3_wcc *o, wcc_data *t)
{
	t->before.attributes_follow = o->before_present;
	if (o->before_present) {
		t->before.pre_op_attr_u.attributes.size = o->before.size;
		to_time(&o->before.mtime, &t->before.pre_op_attr_u.attributes.mtime);
		to_time(&o->before.ctime, &t->before.pre_op_attr_u.attributes.ctime);
	}
	to_post_attr(&o->after, &t->after);
}

static void to_post_fh(const struct rpcrdma_nfs3_post_fh *o, post_op_fh3 *t)
{
	t->handle_follows = o->present;
	if (o->present)
		to_fh(&o->fh, &t->post_op_fh3_u.handle);
}

static void to_sattr(const struct rpcrdma_nfs3_sattr *o, sattr3 *t)
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

static void to_diropargs(const struct rpcrdma_nfs3_diropargs *o, diropargs3 *t)
{
	to_fh(&o->dir, &t->dir);
	t->name = (char *)(uintptr_t)o->name;
}

/* ----------------------------------------------------------- comparisons */

static const char *why;
static int why_line;

#define EQ(a, b)                                      \
	do {                                          \
		if ((uint64_t)(a) != (uint64_t)(b)) { \
			why = #a " != " #b;           \
			why_line = __LINE__;          \
			return false;                 \
		}                                     \
	} while (0)
#define MEMEQ(a, b, n)                                           \
	do {                                                     \
		if ((n) && memcmp((a), (b), (n)) != 0) {         \
			why = "bytes of " #a " != bytes of " #b; \
			why_line = __LINE__;                     \
			return false;                            \
		}                                                \
	} while (0)
#define SUB(call)                     \
	do {                          \
		if (!(call))          \
			return false; \
	} while (0)

static bool cmp_fh(const struct rpcrdma_nfs3_fh *o, const nfs_fh3 *t)
{
	EQ(o->len, t->data.data_len);
	MEMEQ(o->data, t->data.data_val, o->len);
	return true;
}

static bool cmp_name(const char *o, uint32_t len, const char *t)
{
	EQ(len, strlen(t));
	MEMEQ(o, t, len);
	return true;
}

static bool cmp_time(const struct rpcrdma_nfs3_time *o, const nfstime3 *t)
{
	EQ(o->seconds, t->seconds);
	EQ(o->nseconds, t->nseconds);
	return true;
}

static bool cmp_fattr(const struct rpcrdma_nfs3_fattr *o, const fattr3 *t)
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

static bool cmp_post_attr(const struct rpcrdma_nfs3_post_attr *o, const post_op_attr *t)
{
	EQ(o->present, t->attributes_follow);
	return !o->present || cmp_fattr(&o->attr, &t->post_op_attr_u.attributes);
}

static bool cmp_wcc(const struct rpcrdma_nfs3_wcc *o, const wcc_data *t)
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

static bool cmp_post_fh(const struct rpcrdma_nfs3_post_fh *o, const post_op_fh3 *t)
{
	EQ(o->present, t->handle_follows);
	return !o->present || cmp_fh(&o->fh, &t->post_op_fh3_u.handle);
}

static bool cmp_sattr(const struct rpcrdma_nfs3_sattr *o, const sattr3 *t)
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

static bool cmp_diropargs(const struct rpcrdma_nfs3_diropargs *o, const diropargs3 *t)
{
	SUB(cmp_fh(&o->dir, &t->dir));
	return cmp_name(o->name, o->name_len, t->name);
}

static bool cmp_data(const struct rpcrdma_xdr_region *o, u_int tlen, const char *tval)
{
	EQ(o->len, tlen);
	MEMEQ(o->addr, tval, o->len);
	return true;
}

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
static const struct {
	const char *name;
	xdrproc_t xdr;
	size_t tsize;
	void (*gen)(void *v);
	void (*to)(const void *v, void *w);
	bool (*cmp)(const void *v, const void *w);
} rk[] = {
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

	CHECK(sizeof(rk) / sizeof(rk[0]) == nfs3_nkinds, "a row per kind");
	for (i = 0; i < nfs3_nkinds && i < sizeof(rk) / sizeof(rk[0]); i++) {
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

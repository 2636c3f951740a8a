/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The in-memory file system of nfs3-server (fs.h): inodes in one table,
 * file data in blocks of a buddy allocator over the caller's area,
 * directories as arrays of entry slots, handles with a keyed checksum.
 *
 * Reading guide: the block allocator, then inodes and handles,
 * attributes, directories, file data (extents, pins, copy on write).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fs.h"

#define FH_VERSION   1
#define NONE	     UINT32_MAX /* no block: a hole */
#define ORDER_FREE   0x80	/* order[] of a free block's first page */
#define ORDER_MASK   0x7f
#define MODE_BITS    07777
#define DIR_SLOTS0   8		/* a new directory's entry slots */
#define FILE_MAX_EXT (1u << 20) /* extents of a file at most (1 TiB) */

/* A directory entry slot; ino 0: free. */
struct dent {
	uint64_t ino;
	uint32_t hash;
	uint32_t len;
	char *name;
};

struct inode {
	uint32_t type; /* 0: free slot */
	uint32_t mode;
	uint32_t nlink;
	uint32_t uid, gid;
	uint32_t gen;
	uint64_t size;
	struct rpcrdma_nfs3_time atime, mtime, ctime;
	uint64_t parent; /* directories */
	/* REG: block of each extent (first page) or NONE */
	uint32_t *ext;
	uint32_t next; /* extents in ext[] */
	/* DIR: entry slots; nslots used (the high-water mark), cap allocated */
	struct dent *slots;
	uint32_t nslots, cap, live, subdirs;
	/* LNK */
	char *target;
	uint32_t target_len;
	bool has_verf;
	uint8_t verf[RPCRDMA_NFS3_CREATEVERFSIZE];
};

struct nfs3_fs {
	struct nfs3_fs_params p;
	uint8_t *data;
	/* blocks: per page of the area */
	uint32_t npages;
	uint8_t *order;	 /* first page of a block: its order, | ORDER_FREE when free */
	uint32_t *fnext; /* free lists, through the first pages */
	uint32_t *fprev;
	uint32_t head[NFS3_FS_ORDERS];
	uint16_t *pins;	 /* READs in flight on the block */
	uint8_t *orphan; /* dropped by its file while pinned: freed at the last unpin */
	uint64_t free_bytes;
	/* inodes: ino is the index; 0 unused */
	struct inode *ino;
	uint32_t *ifree; /* stack of free inode numbers */
	uint32_t nifree;
	struct nfs3_fs_stats st;
};

static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void now(struct rpcrdma_nfs3_time *t)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	t->seconds = (uint32_t)ts.tv_sec;
	t->nseconds = (uint32_t)ts.tv_nsec;
}

/* ------------------------------------------------------ block allocator */

static void list_push(struct nfs3_fs *fs, uint32_t pg, unsigned int order)
{
	fs->order[pg] = (uint8_t)(order | ORDER_FREE);
	fs->fprev[pg] = NONE;
	fs->fnext[pg] = fs->head[order];
	if (fs->head[order] != NONE)
		fs->fprev[fs->head[order]] = pg;
	fs->head[order] = pg;
}

static void list_del(struct nfs3_fs *fs, uint32_t pg, unsigned int order)
{
	if (fs->fprev[pg] != NONE)
		fs->fnext[fs->fprev[pg]] = fs->fnext[pg];
	else
		fs->head[order] = fs->fnext[pg];
	if (fs->fnext[pg] != NONE)
		fs->fprev[fs->fnext[pg]] = fs->fprev[pg];
	fs->order[pg] = (uint8_t)order;
}

/* A block of 4 KiB << order, zeroed; its first page, or NONE. */
static uint32_t blk_alloc(struct nfs3_fs *fs, unsigned int order)
{
	unsigned int k = order;
	uint32_t pg;

	while (k < NFS3_FS_ORDERS && fs->head[k] == NONE)
		k++;
	if (k == NFS3_FS_ORDERS)
		return NONE;
	pg = fs->head[k];
	list_del(fs, pg, k);
	while (k > order) { /* split: the upper halves go back */
		k--;
		list_push(fs, pg + (1u << k), k);
	}
	fs->order[pg] = (uint8_t)order;
	fs->free_bytes -= (uint64_t)NFS3_FS_PAGE << order;
	memset(fs->data + ((uint64_t)pg << NFS3_FS_PAGE_SHIFT), 0, (size_t)NFS3_FS_PAGE << order);
	return pg;
}

static void blk_free_now(struct nfs3_fs *fs, uint32_t pg)
{
	unsigned int order = fs->order[pg] & ORDER_MASK;

	fs->free_bytes += (uint64_t)NFS3_FS_PAGE << order;
	while (order + 1 < NFS3_FS_ORDERS) { /* merge with the buddy while it is free */
		uint32_t buddy = pg ^ (1u << order);

		if (fs->order[buddy] != (ORDER_FREE | order))
			break;
		list_del(fs, buddy, order);
		pg &= ~(1u << order);
		order++;
	}
	list_push(fs, pg, order);
}

/* A file lets go of a block: freed now, or at its last unpin. */
static void blk_drop(struct nfs3_fs *fs, uint32_t pg)
{
	if (fs->pins[pg]) {
		fs->orphan[pg] = 1;
		fs->st.orphans++;
		return;
	}
	blk_free_now(fs, pg);
}

static inline uint8_t *blk_addr(const struct nfs3_fs *fs, uint32_t pg)
{
	return fs->data + ((uint64_t)pg << NFS3_FS_PAGE_SHIFT);
}

static inline uint32_t blk_bytes(const struct nfs3_fs *fs, uint32_t pg)
{
	return NFS3_FS_PAGE << (fs->order[pg] & ORDER_MASK);
}

/* The order of the smallest block that holds n bytes (1..NFS3_FS_EXT). */
static unsigned int order_for(uint32_t n)
{
	unsigned int o = 0;

	while ((NFS3_FS_PAGE << o) < n)
		o++;
	return o;
}

/* ------------------------------------------------------ inodes, handles */

static inline bool ino_live(const struct nfs3_fs *fs, uint64_t ino)
{
	return ino > 0 && ino < fs->p.max_inodes && fs->ino[ino].type != 0;
}

static uint64_t fh_mac(const struct nfs3_fs *fs, const uint8_t *fh)
{
	uint64_t w[3], h = fs->p.secret;

	memcpy(w, fh, sizeof(w)); /* version, type, gen, fileid, instance */
	for (int i = 0; i < 3; i++)
		h = mix64(h ^ w[i]);
	return h;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* version(1) type(1) 0(2) gen(4) fileid(8) instance(8) mac(8), host order: opaque to clients */
uint32_t nfs3_fs_fh(const struct nfs3_fs *fs, uint64_t ino, uint8_t *fh)
{
	memset(fh, 0, NFS3_FS_FH_LEN);
	fh[0] = FH_VERSION;
	fh[1] = (uint8_t)fs->ino[ino].type;
	put32(fh + 4, fs->ino[ino].gen);
	put64(fh + 8, ino);
	put64(fh + 16, fs->p.instance);
	put64(fh + 24, fh_mac(fs, fh));
	return NFS3_FS_FH_LEN;
}

uint32_t nfs3_fs_fh_ino(const struct nfs3_fs *fs, const struct rpcrdma_nfs3_fh *fh, uint64_t *ino)
{
	uint64_t id;
	uint32_t gen;

	if (fh->len != NFS3_FS_FH_LEN || fh->data[0] != FH_VERSION || fh->data[2] || fh->data[3])
		return RPCRDMA_NFS3ERR_BADHANDLE;
	/* another instance's: its files are gone, and its checksum is under another secret */
	if (get64(fh->data + 16) != fs->p.instance)
		return RPCRDMA_NFS3ERR_STALE;
	if (get64(fh->data + 24) != fh_mac(fs, fh->data))
		return RPCRDMA_NFS3ERR_BADHANDLE;
	id = get64(fh->data + 8);
	memcpy(&gen, fh->data + 4, 4);
	if (!ino_live(fs, id) || fs->ino[id].gen != gen || fs->ino[id].type != fh->data[1])
		return RPCRDMA_NFS3ERR_STALE;
	*ino = id;
	return RPCRDMA_NFS3_OK;
}

static uint64_t ino_get(struct nfs3_fs *fs, uint32_t type, uint32_t mode,
			const struct nfs3_fs_cred *cred)
{
	struct inode *in;
	uint64_t ino;
	uint32_t gen;

	if (fs->nifree == 0)
		return 0;
	ino = fs->ifree[--fs->nifree];
	in = &fs->ino[ino];
	gen = in->gen + 1;
	memset(in, 0, sizeof(*in));
	in->gen = gen;
	in->type = type;
	in->mode = mode & MODE_BITS;
	in->nlink = type == RPCRDMA_NFS3_DIR ? 2 : 1;
	in->uid = cred->uid;
	in->gid = cred->gid;
	now(&in->atime);
	in->mtime = in->ctime = in->atime;
	return ino;
}

static void trunc_blocks(struct nfs3_fs *fs, struct inode *in, uint32_t keep);

static void ino_put(struct nfs3_fs *fs, uint64_t ino)
{
	struct inode *in = &fs->ino[ino];

	trunc_blocks(fs, in, 0);
	free(in->ext);
	for (uint32_t i = 0; i < in->nslots; i++)
		free(in->slots[i].name);
	free(in->slots);
	free(in->target);
	in->ext = NULL;
	in->slots = NULL;
	in->nslots = in->cap = 0; /* nfs3_fs_free() walks them: none left */
	in->target = NULL;
	in->type = 0; /* gen stays: the next user of the slot increments it */
	fs->ifree[fs->nifree++] = (uint32_t)ino;
}

int nfs3_fs_create(const struct nfs3_fs_params *p, struct nfs3_fs **out)
{
	static const struct nfs3_fs_cred root = { 0, 0 };
	struct nfs3_fs *fs;
	uint64_t ino;

	*out = NULL;
	if (p->data == NULL || p->size < NFS3_FS_EXT || p->size % NFS3_FS_EXT ||
	    p->size >> NFS3_FS_PAGE_SHIFT >= NONE || p->max_inodes < 2)
		return -EINVAL;
	fs = calloc(1, sizeof(*fs));
	if (fs == NULL)
		return -ENOMEM;
	fs->p = *p;
	fs->data = p->data;
	fs->npages = (uint32_t)(p->size >> NFS3_FS_PAGE_SHIFT);
	fs->order = calloc(fs->npages, 1);
	fs->orphan = calloc(fs->npages, 1);
	fs->pins = calloc(fs->npages, sizeof(*fs->pins));
	fs->fnext = calloc(fs->npages, sizeof(*fs->fnext));
	fs->fprev = calloc(fs->npages, sizeof(*fs->fprev));
	fs->ino = calloc(p->max_inodes, sizeof(*fs->ino));
	fs->ifree = calloc(p->max_inodes, sizeof(*fs->ifree));
	if (!fs->order || !fs->orphan || !fs->pins || !fs->fnext || !fs->fprev || !fs->ino ||
	    !fs->ifree) {
		nfs3_fs_free(fs);
		return -ENOMEM;
	}
	for (unsigned int k = 0; k < NFS3_FS_ORDERS; k++)
		fs->head[k] = NONE;
	for (uint32_t pg = fs->npages; pg > 0; pg -= 1u << (NFS3_FS_ORDERS - 1))
		list_push(fs, pg - (1u << (NFS3_FS_ORDERS - 1)), NFS3_FS_ORDERS - 1);
	fs->free_bytes = p->size;
	/* lowest numbers first; inode 0 is never used */
	for (uint32_t i = p->max_inodes - 1; i > 0; i--)
		fs->ifree[fs->nifree++] = i;
	ino = ino_get(fs, RPCRDMA_NFS3_DIR, 0777, &root);
	fs->ino[ino].parent = ino;
	*out = fs;
	return 0;
}

void nfs3_fs_free(struct nfs3_fs *fs)
{
	if (fs == NULL)
		return;
	for (uint32_t i = 1; fs->ino && i < fs->p.max_inodes; i++) {
		struct inode *in = &fs->ino[i];

		free(in->ext);
		for (uint32_t k = 0; k < in->nslots; k++)
			free(in->slots[k].name);
		free(in->slots);
		free(in->target);
	}
	free(fs->ino);
	free(fs->ifree);
	free(fs->order);
	free(fs->orphan);
	free(fs->pins);
	free(fs->fnext);
	free(fs->fprev);
	free(fs);
}

/* ------------------------------------------------------------ attributes */

static uint64_t used_bytes(const struct nfs3_fs *fs, const struct inode *in)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < in->next; i++)
		if (in->ext[i] != NONE)
			n += blk_bytes(fs, in->ext[i]);
	return n;
}

void nfs3_fs_getattr(const struct nfs3_fs *fs, uint64_t ino, struct rpcrdma_nfs3_fattr *a)
{
	const struct inode *in = &fs->ino[ino];

	memset(a, 0, sizeof(*a));
	a->type = in->type;
	a->mode = in->mode;
	a->nlink = in->nlink;
	a->uid = in->uid;
	a->gid = in->gid;
	switch (in->type) {
	case RPCRDMA_NFS3_REG:
		a->size = in->size;
		a->used = used_bytes(fs, in);
		break;
	case RPCRDMA_NFS3_DIR:
		a->size = a->used = (uint64_t)NFS3_FS_PAGE * (1 + in->nslots / 64);
		break;
	default:
		a->size = a->used = in->target_len;
		break;
	}
	a->fsid = fs->p.fsid;
	a->fileid = ino;
	a->atime = in->atime;
	a->mtime = in->mtime;
	a->ctime = in->ctime;
}

void nfs3_fs_wcc_attr(const struct nfs3_fs *fs, uint64_t ino, struct rpcrdma_nfs3_wcc_attr *w)
{
	struct rpcrdma_nfs3_fattr a;

	nfs3_fs_getattr(fs, ino, &a);
	w->size = a.size;
	w->mtime = a.mtime;
	w->ctime = a.ctime;
}

uint32_t nfs3_fs_type(const struct nfs3_fs *fs, uint64_t ino)
{
	return fs->ino[ino].type;
}

static uint32_t set_size(struct nfs3_fs *fs, struct inode *in, uint64_t size);

uint32_t nfs3_fs_setattr(struct nfs3_fs *fs, uint64_t ino, const struct rpcrdma_nfs3_sattr *s)
{
	struct inode *in = &fs->ino[ino];
	struct rpcrdma_nfs3_time t;
	uint32_t st;

	now(&t);
	if (s->set_size) {
		if (in->type != RPCRDMA_NFS3_REG)
			return in->type == RPCRDMA_NFS3_DIR ? RPCRDMA_NFS3ERR_ISDIR
							    : RPCRDMA_NFS3ERR_INVAL;
		st = set_size(fs, in, s->size);
		if (st != RPCRDMA_NFS3_OK)
			return st;
		in->mtime = t;
	}
	if (s->set_mode)
		in->mode = s->mode & MODE_BITS;
	if (s->set_uid)
		in->uid = s->uid;
	if (s->set_gid)
		in->gid = s->gid;
	if (s->set_atime == RPCRDMA_NFS3_SET_TO_SERVER_TIME)
		in->atime = t;
	else if (s->set_atime == RPCRDMA_NFS3_SET_TO_CLIENT_TIME)
		in->atime = s->atime;
	if (s->set_mtime == RPCRDMA_NFS3_SET_TO_SERVER_TIME)
		in->mtime = t;
	else if (s->set_mtime == RPCRDMA_NFS3_SET_TO_CLIENT_TIME)
		in->mtime = s->mtime;
	in->ctime = t;
	return RPCRDMA_NFS3_OK;
}

/* ----------------------------------------------------------- directories */

static uint32_t name_hash(const char *name, uint32_t len)
{
	uint32_t h = 2166136261u;

	for (uint32_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 16777619u;
	return h;
}

uint32_t nfs3_fs_name_ok(const char *name, uint32_t len)
{
	if (len > RPCRDMA_NFS3_NAME_MAX)
		return RPCRDMA_NFS3ERR_NAMETOOLONG;
	if (len == 0 || memchr(name, '/', len) || memchr(name, 0, len))
		return RPCRDMA_NFS3ERR_ACCES;
	return RPCRDMA_NFS3_OK;
}

bool nfs3_fs_is_dot(const char *name, uint32_t len)
{
	return (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.');
}

/* The slot of name in directory in, or -1. */
static int64_t slot_of(const struct inode *in, const char *name, uint32_t len)
{
	uint32_t h = name_hash(name, len);

	for (uint32_t i = 0; i < in->nslots; i++) {
		const struct dent *d = &in->slots[i];

		if (d->ino && d->hash == h && d->len == len && memcmp(d->name, name, len) == 0)
			return i;
	}
	return -1;
}

uint32_t nfs3_fs_lookup(const struct nfs3_fs *fs, uint64_t dir, const char *name, uint32_t len,
			uint64_t *ino)
{
	const struct inode *in = &fs->ino[dir];
	uint32_t st;
	int64_t i;

	if (in->type != RPCRDMA_NFS3_DIR)
		return RPCRDMA_NFS3ERR_NOTDIR;
	st = nfs3_fs_name_ok(name, len);
	if (st != RPCRDMA_NFS3_OK)
		return st;
	if (nfs3_fs_is_dot(name, len)) {
		*ino = len == 1 ? dir : in->parent;
		return RPCRDMA_NFS3_OK;
	}
	i = slot_of(in, name, len);
	if (i < 0)
		return RPCRDMA_NFS3ERR_NOENT;
	*ino = in->slots[i].ino;
	return RPCRDMA_NFS3_OK;
}

/* Add name -> ino to a directory that has no such name. NFS3ERR_SERVERFAULT: no memory. */
static uint32_t dent_add(struct nfs3_fs *fs, uint64_t dir, const char *name, uint32_t len,
			 uint64_t ino)
{
	struct inode *in = &fs->ino[dir];
	struct dent *d = NULL;
	char *copy;

	for (uint32_t i = 0; i < in->nslots && !d; i++) /* the first free slot */
		if (in->slots[i].ino == 0)
			d = &in->slots[i];
	if (d == NULL && in->nslots == in->cap) {
		uint32_t cap = in->cap ? in->cap * 2 : DIR_SLOTS0;
		struct dent *s = realloc(in->slots, cap * sizeof(*s));

		if (s == NULL)
			return RPCRDMA_NFS3ERR_SERVERFAULT;
		in->slots = s;
		in->cap = cap;
	}
	copy = malloc(len);
	if (copy == NULL)
		return RPCRDMA_NFS3ERR_SERVERFAULT;
	memcpy(copy, name, len);
	if (d == NULL)
		d = &in->slots[in->nslots++];
	d->ino = ino;
	d->hash = name_hash(name, len);
	d->len = len;
	d->name = copy;
	in->live++;
	if (fs->ino[ino].type == RPCRDMA_NFS3_DIR) {
		in->subdirs++;
		in->nlink++;
		fs->ino[ino].parent = dir;
	}
	now(&in->mtime);
	in->ctime = in->mtime;
	return RPCRDMA_NFS3_OK;
}

static void dent_del(struct nfs3_fs *fs, uint64_t dir, uint32_t slot)
{
	struct inode *in = &fs->ino[dir];
	struct dent *d = &in->slots[slot];

	if (fs->ino[d->ino].type == RPCRDMA_NFS3_DIR) {
		in->subdirs--;
		in->nlink--;
	}
	free(d->name);
	memset(d, 0, sizeof(*d));
	in->live--;
	now(&in->mtime);
	in->ctime = in->mtime;
}

uint32_t nfs3_fs_make(struct nfs3_fs *fs, uint64_t dir, const char *name, uint32_t len,
		      uint32_t type, uint32_t mode, const struct nfs3_fs_cred *cred,
		      const char *target, uint32_t target_len, uint64_t *ino)
{
	uint64_t n;
	uint32_t st;

	st = nfs3_fs_lookup(fs, dir, name, len, ino);
	if (st == RPCRDMA_NFS3_OK)
		return RPCRDMA_NFS3ERR_EXIST;
	if (st != RPCRDMA_NFS3ERR_NOENT)
		return st;
	n = ino_get(fs, type, mode, cred);
	if (n == 0)
		return RPCRDMA_NFS3ERR_NOSPC;
	if (type == RPCRDMA_NFS3_LNK) {
		fs->ino[n].target = malloc(target_len ? target_len : 1);
		if (fs->ino[n].target == NULL) {
			ino_put(fs, n);
			return RPCRDMA_NFS3ERR_SERVERFAULT;
		}
		memcpy(fs->ino[n].target, target, target_len);
		fs->ino[n].target_len = target_len;
	}
	st = dent_add(fs, dir, name, len, n);
	if (st != RPCRDMA_NFS3_OK) {
		ino_put(fs, n);
		return st;
	}
	*ino = n;
	return RPCRDMA_NFS3_OK;
}

void nfs3_fs_set_verf(struct nfs3_fs *fs, uint64_t ino, const uint8_t *verf)
{
	memcpy(fs->ino[ino].verf, verf, RPCRDMA_NFS3_CREATEVERFSIZE);
	fs->ino[ino].has_verf = true;
}

bool nfs3_fs_verf_is(const struct nfs3_fs *fs, uint64_t ino, const uint8_t *verf)
{
	return fs->ino[ino].has_verf &&
	       memcmp(fs->ino[ino].verf, verf, RPCRDMA_NFS3_CREATEVERFSIZE) == 0;
}

/* A name's file loses it: the file goes with its last name. */
static void unlink_ino(struct nfs3_fs *fs, uint64_t ino)
{
	struct inode *in = &fs->ino[ino];

	if (in->type == RPCRDMA_NFS3_DIR || --in->nlink == 0) {
		ino_put(fs, ino);
		return;
	}
	now(&in->ctime);
}

uint32_t nfs3_fs_remove(struct nfs3_fs *fs, uint64_t dir, const char *name, uint32_t len,
			bool want_dir)
{
	struct inode *in = &fs->ino[dir];
	uint32_t st;
	uint64_t ino;
	int64_t i;

	if (in->type != RPCRDMA_NFS3_DIR)
		return RPCRDMA_NFS3ERR_NOTDIR;
	st = nfs3_fs_name_ok(name, len);
	if (st != RPCRDMA_NFS3_OK)
		return st;
	if (nfs3_fs_is_dot(name, len)) {
		if (len == 1)
			return RPCRDMA_NFS3ERR_INVAL;
		return want_dir ? RPCRDMA_NFS3ERR_NOTEMPTY : RPCRDMA_NFS3ERR_ISDIR;
	}
	i = slot_of(in, name, len);
	if (i < 0)
		return RPCRDMA_NFS3ERR_NOENT;
	ino = in->slots[i].ino;
	if (!want_dir && fs->ino[ino].type == RPCRDMA_NFS3_DIR)
		return RPCRDMA_NFS3ERR_ISDIR;
	if (want_dir && fs->ino[ino].type != RPCRDMA_NFS3_DIR)
		return RPCRDMA_NFS3ERR_NOTDIR;
	if (want_dir && fs->ino[ino].live > 0)
		return RPCRDMA_NFS3ERR_NOTEMPTY;
	dent_del(fs, dir, (uint32_t)i);
	unlink_ino(fs, ino);
	return RPCRDMA_NFS3_OK;
}

/* Is @p dir @p anc or below it? */
static bool under(const struct nfs3_fs *fs, uint64_t dir, uint64_t anc)
{
	for (;;) {
		if (dir == anc)
			return true;
		if (dir == NFS3_FS_ROOT)
			return false;
		dir = fs->ino[dir].parent;
	}
}

uint32_t nfs3_fs_rename(struct nfs3_fs *fs, uint64_t fdir, const char *fname, uint32_t flen,
			uint64_t tdir, const char *tname, uint32_t tlen)
{
	uint64_t src, dst = 0;
	int64_t fi, ti;
	uint32_t st;

	if (fs->ino[fdir].type != RPCRDMA_NFS3_DIR || fs->ino[tdir].type != RPCRDMA_NFS3_DIR)
		return RPCRDMA_NFS3ERR_NOTDIR;
	st = nfs3_fs_name_ok(fname, flen);
	if (st == RPCRDMA_NFS3_OK)
		st = nfs3_fs_name_ok(tname, tlen);
	if (st != RPCRDMA_NFS3_OK)
		return st;
	if (nfs3_fs_is_dot(fname, flen) || nfs3_fs_is_dot(tname, tlen))
		return RPCRDMA_NFS3ERR_INVAL;
	fi = slot_of(&fs->ino[fdir], fname, flen);
	if (fi < 0)
		return RPCRDMA_NFS3ERR_NOENT;
	src = fs->ino[fdir].slots[fi].ino;
	if (fs->ino[src].type == RPCRDMA_NFS3_DIR && under(fs, tdir, src))
		return RPCRDMA_NFS3ERR_INVAL; /* into itself */
	ti = slot_of(&fs->ino[tdir], tname, tlen);
	if (ti >= 0) {
		dst = fs->ino[tdir].slots[ti].ino;
		if (dst == src)
			return RPCRDMA_NFS3_OK;
		if (fs->ino[src].type == RPCRDMA_NFS3_DIR && fs->ino[dst].type != RPCRDMA_NFS3_DIR)
			return RPCRDMA_NFS3ERR_NOTDIR;
		if (fs->ino[src].type != RPCRDMA_NFS3_DIR && fs->ino[dst].type == RPCRDMA_NFS3_DIR)
			return RPCRDMA_NFS3ERR_ISDIR;
		if (fs->ino[dst].type == RPCRDMA_NFS3_DIR && fs->ino[dst].live > 0)
			return RPCRDMA_NFS3ERR_EXIST; /* RFC 1813 3.3.14: EEXIST or ENOTEMPTY */
		dent_del(fs, tdir, (uint32_t)ti);
		unlink_ino(fs, dst);
	}
	/* the new name first: with no memory for it, nothing has changed */
	if (fdir == tdir) {
		struct dent *d = &fs->ino[fdir].slots[fi];
		char *copy = malloc(tlen);

		if (copy == NULL)
			return RPCRDMA_NFS3ERR_SERVERFAULT;
		memcpy(copy, tname, tlen);
		free(d->name);
		d->name = copy;
		d->len = tlen;
		d->hash = name_hash(tname, tlen);
		now(&fs->ino[fdir].mtime);
		fs->ino[fdir].ctime = fs->ino[fdir].mtime;
	} else {
		st = dent_add(fs, tdir, tname, tlen, src);
		if (st != RPCRDMA_NFS3_OK)
			return st;
		/* dent_add() counted a subdirectory; dent_del() uncounts it in fdir */
		dent_del(fs, fdir, (uint32_t)fi);
	}
	now(&fs->ino[src].ctime);
	return RPCRDMA_NFS3_OK;
}

void nfs3_fs_cookieverf(const struct nfs3_fs *fs, uint64_t dir, uint8_t *verf)
{
	uint64_t v = mix64(fs->p.secret ^
			   mix64(dir ^ ((uint64_t)fs->ino[dir].gen << 40) ^ fs->p.instance));

	put64(verf, v | 1); /* never zero */
}

uint32_t nfs3_fs_readdir_check(const struct nfs3_fs *fs, uint64_t dir, uint64_t cookie,
			       const uint8_t *verf)
{
	static const uint8_t zero[RPCRDMA_NFS3_COOKIEVERFSIZE];
	uint8_t mine[RPCRDMA_NFS3_COOKIEVERFSIZE];

	if (fs->ino[dir].type != RPCRDMA_NFS3_DIR)
		return RPCRDMA_NFS3ERR_NOTDIR;
	if (cookie == 0)
		return RPCRDMA_NFS3_OK;
	nfs3_fs_cookieverf(fs, dir, mine);
	if (memcmp(verf, mine, sizeof(mine)) != 0 && memcmp(verf, zero, sizeof(zero)) != 0)
		return RPCRDMA_NFS3ERR_BAD_COOKIE;
	/* a cookie this directory gave: '.', '..', or a slot it has */
	if (cookie > (uint64_t)NFS3_FS_COOKIE0 - 1 + fs->ino[dir].nslots)
		return RPCRDMA_NFS3ERR_BAD_COOKIE;
	return RPCRDMA_NFS3_OK;
}

bool nfs3_fs_readdir_next(const struct nfs3_fs *fs, uint64_t dir, uint64_t cookie,
			  struct nfs3_fs_dirent *e)
{
	const struct inode *in = &fs->ino[dir];

	if (cookie == 0 || cookie == 1) {
		e->ino = cookie == 0 ? dir : in->parent;
		e->name = cookie == 0 ? "." : "..";
		e->name_len = (uint32_t)cookie + 1;
		e->cookie = cookie + 1;
		return true;
	}
	for (uint64_t i = cookie - 2; i < in->nslots; i++) {
		if (in->slots[i].ino == 0)
			continue;
		e->ino = in->slots[i].ino;
		e->name = in->slots[i].name;
		e->name_len = in->slots[i].len;
		e->cookie = i + NFS3_FS_COOKIE0;
		return true;
	}
	return false;
}

uint32_t nfs3_fs_readlink(const struct nfs3_fs *fs, uint64_t ino, const char **text, uint32_t *len)
{
	if (fs->ino[ino].type != RPCRDMA_NFS3_LNK)
		return RPCRDMA_NFS3ERR_INVAL;
	*text = fs->ino[ino].target;
	*len = fs->ino[ino].target_len;
	return RPCRDMA_NFS3_OK;
}

/* ------------------------------------------------------------------ data */

static uint32_t not_reg(const struct inode *in)
{
	return in->type == RPCRDMA_NFS3_DIR ? RPCRDMA_NFS3ERR_ISDIR : RPCRDMA_NFS3ERR_INVAL;
}

/* Room for extents [0, n) in ext[] (new ones holes). */
static bool ext_reserve(struct inode *in, uint32_t n)
{
	uint32_t *e;

	if (n <= in->next)
		return true;
	e = realloc(in->ext, n * sizeof(*e));
	if (e == NULL)
		return false;
	for (uint32_t i = in->next; i < n; i++)
		e[i] = NONE;
	in->ext = e;
	in->next = n;
	return true;
}

/*
 * Make extent i of a file hold @p need bytes in a block of its own that no
 * READ has pinned: allocate, grow (move to a larger block) or copy on write.
 * @return false: no block.
 */
static bool ext_prepare(struct nfs3_fs *fs, struct inode *in, uint32_t i, uint32_t need)
{
	uint32_t old = in->ext[i], pg, keep;

	if (old != NONE && blk_bytes(fs, old) >= need && fs->pins[old] == 0)
		return true;
	if (old != NONE && blk_bytes(fs, old) > need)
		need = blk_bytes(fs, old);
	pg = blk_alloc(fs, order_for(need));
	if (pg == NONE)
		return false;
	if (old != NONE) {
		keep = blk_bytes(fs, old);
		memcpy(blk_addr(fs, pg), blk_addr(fs, old), keep);
		if (fs->pins[old])
			fs->st.cow++;
		blk_drop(fs, old);
	}
	in->ext[i] = pg;
	return true;
}

/* Drop the blocks of extents [keep, next). */
static void trunc_blocks(struct nfs3_fs *fs, struct inode *in, uint32_t keep)
{
	for (uint32_t i = keep; i < in->next; i++) {
		if (in->ext[i] != NONE)
			blk_drop(fs, in->ext[i]);
		in->ext[i] = NONE;
	}
	if (keep < in->next)
		in->next = keep;
}

static uint32_t set_size(struct nfs3_fs *fs, struct inode *in, uint64_t size)
{
	uint32_t last, off;

	if (size > fs->p.size)
		return RPCRDMA_NFS3ERR_FBIG;
	if (size < in->size) {
		last = (uint32_t)(size >> NFS3_FS_EXT_SHIFT);
		off = (uint32_t)(size & (NFS3_FS_EXT - 1));
		trunc_blocks(fs, in, last + (off != 0));
		/* the tail of the last extent reads as zeros if the file grows again */
		if (off && last < in->next && in->ext[last] != NONE &&
		    blk_bytes(fs, in->ext[last]) > off) {
			if (!ext_prepare(fs, in, last, off))
				return RPCRDMA_NFS3ERR_NOSPC;
			memset(blk_addr(fs, in->ext[last]) + off, 0,
			       blk_bytes(fs, in->ext[last]) - off);
		}
	}
	in->size = size; /* growing leaves a hole */
	return RPCRDMA_NFS3_OK;
}

int nfs3_fs_read_map(struct nfs3_fs *fs, uint64_t ino, uint64_t off, uint32_t *count, bool *eof,
		     const uint8_t **p, uint32_t *pin)
{
	struct inode *in = &fs->ino[ino];
	uint32_t i, pg, eoff;

	if (in->type != RPCRDMA_NFS3_REG)
		return (int)(not_reg(in) | 0x80000000u);
	if (off >= in->size)
		*count = 0;
	else if (*count > in->size - off)
		*count = (uint32_t)(in->size - off);
	*eof = off + *count >= in->size;
	now(&in->atime);
	if (*count == 0)
		return 0;
	i = (uint32_t)(off >> NFS3_FS_EXT_SHIFT);
	eoff = (uint32_t)(off & (NFS3_FS_EXT - 1));
	if (i >= in->next || in->ext[i] == NONE || (uint64_t)eoff + *count > NFS3_FS_EXT ||
	    eoff + *count > blk_bytes(fs, in->ext[i])) {
		fs->st.read_copies++;
		return 0;
	}
	pg = in->ext[i];
	fs->pins[pg]++;
	fs->st.pinned += fs->pins[pg] == 1;
	fs->st.read_maps++;
	*p = blk_addr(fs, pg) + eoff;
	*pin = pg;
	return 1;
}

void nfs3_fs_read_copy(const struct nfs3_fs *fs, uint64_t ino, uint64_t off, uint32_t count,
		       uint8_t *dst)
{
	const struct inode *in = &fs->ino[ino];

	while (count > 0) {
		uint32_t i = (uint32_t)(off >> NFS3_FS_EXT_SHIFT);
		uint32_t eoff = (uint32_t)(off & (NFS3_FS_EXT - 1));
		uint32_t n = NFS3_FS_EXT - eoff, have = 0;

		if (n > count)
			n = count;
		if (i < in->next && in->ext[i] != NONE)
			have = blk_bytes(fs, in->ext[i]) > eoff ? blk_bytes(fs, in->ext[i]) - eoff
								: 0;
		if (have > n)
			have = n;
		if (have)
			memcpy(dst, blk_addr(fs, in->ext[i]) + eoff, have);
		memset(dst + have, 0, n - have);
		dst += n;
		off += n;
		count -= n;
	}
}

void nfs3_fs_unpin(struct nfs3_fs *fs, uint32_t pin)
{
	if (--fs->pins[pin] > 0)
		return;
	fs->st.pinned--;
	if (fs->orphan[pin]) {
		fs->orphan[pin] = 0;
		fs->st.orphans--;
		blk_free_now(fs, pin);
	}
}

/* Bytes extent i must hold for a write that ends at end. */
static uint32_t ext_need(uint32_t i, uint64_t end)
{
	uint64_t e_start = (uint64_t)i << NFS3_FS_EXT_SHIFT;
	uint64_t e_end = e_start + NFS3_FS_EXT;

	return (uint32_t)((end < e_end ? end : e_end) - e_start);
}

/* Bytes of new blocks that extents [first, last] need for a write that ends at end. */
static uint64_t blocks_needed(const struct nfs3_fs *fs, const struct inode *in, uint32_t first,
			      uint32_t last, uint64_t end)
{
	uint64_t n = 0;

	for (uint32_t i = first; i <= last; i++) {
		uint32_t need = ext_need(i, end), old = in->ext[i];

		if (old == NONE || blk_bytes(fs, old) < need || fs->pins[old])
			n += (uint64_t)NFS3_FS_PAGE << order_for(
				     old != NONE && blk_bytes(fs, old) > need ? blk_bytes(fs, old)
									      : need);
	}
	return n;
}

uint32_t nfs3_fs_write(struct nfs3_fs *fs, uint64_t ino, uint64_t off, const void *data,
		       uint32_t count)
{
	struct inode *in = &fs->ino[ino];
	const uint8_t *src = data;
	uint64_t end = off + count;
	uint32_t first, last;

	if (in->type != RPCRDMA_NFS3_REG)
		return not_reg(in);
	if (off > fs->p.size || count > fs->p.size - off)
		return RPCRDMA_NFS3ERR_FBIG;
	now(&in->mtime);
	in->ctime = in->mtime;
	if (count == 0)
		return RPCRDMA_NFS3_OK;
	first = (uint32_t)(off >> NFS3_FS_EXT_SHIFT);
	last = (uint32_t)((end - 1) >> NFS3_FS_EXT_SHIFT);
	if (last >= FILE_MAX_EXT || !ext_reserve(in, last + 1))
		return RPCRDMA_NFS3ERR_SERVERFAULT;
	/* every block first: NOSPC writes nothing (and, but for fragmentation, takes nothing) */
	if (blocks_needed(fs, in, first, last, end) > fs->free_bytes)
		return RPCRDMA_NFS3ERR_NOSPC;
	for (uint32_t i = first; i <= last; i++)
		if (!ext_prepare(fs, in, i, ext_need(i, end)))
			return RPCRDMA_NFS3ERR_NOSPC;
	while (count > 0) {
		uint32_t i = (uint32_t)(off >> NFS3_FS_EXT_SHIFT);
		uint32_t eoff = (uint32_t)(off & (NFS3_FS_EXT - 1));
		uint32_t n = NFS3_FS_EXT - eoff;

		if (n > count)
			n = count;
		memcpy(blk_addr(fs, in->ext[i]) + eoff, src, n);
		src += n;
		off += n;
		count -= n;
	}
	if (end > in->size)
		in->size = end;
	return RPCRDMA_NFS3_OK;
}

void nfs3_fs_stats(const struct nfs3_fs *fs, struct nfs3_fs_stats *st)
{
	*st = fs->st;
	st->bytes = fs->p.size;
	st->free_bytes = fs->free_bytes;
	st->inodes = fs->p.max_inodes - 1;
	st->free_inodes = fs->nifree;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3-server's NFSv3 procedures (RFC 1813 section 3.3) on the in-memory
 * file system (fs.h), registered with the RPC dispatcher (rpcrdma_svc.h).
 *
 * Every procedure is "raw": its handler decodes the arguments with the
 * codec (rpcrdma_nfs3.h), works on the file system under its lock, and
 * encodes the results into the reply stream while it still holds it, so
 * the attributes in a reply are those the operation left. A decode error
 * is GARBAGE_ARGS, except a name over 255 bytes (or a link over 4096),
 * which is NFS3ERR_NAMETOOLONG; a reply that does not fit is SYSTEM_ERR.
 * The dispatcher counts and times each procedure (telemetry) and answers
 * PROC_UNAVAIL for procedure numbers past COMMIT.
 *
 * READ sends the file's bytes from where they are (fs.h: pinned, copy on
 * write): the reply names them as a DDP-eligible item, which the engine
 * RDMA-Writes into the client's write chunk, or gathers into the Send
 * when the client offered none; a READ across two extents is copied into a
 * chunk buffer first. nfs3d_read_done() unpins or gives the buffer back
 * once the reply is gone. WRITE copies the data once, from where the engine
 * put it (the receive buffer, or the chunk buffer of its RDMA Read), into
 * the file. Memory is the only tier: every WRITE is FILE_SYNC, and the
 * write verifier changes only with the server instance.
 *
 * Permissions: ACCESS reports what the mode bits give the caller's AUTH_SYS
 * uid and gid (uid 0 everything); the other procedures trust the client to
 * have asked, as a template on a trusted network may.
 */
#include <errno.h>
#include <string.h>

#include <rpcrdma/rpcrdma_nfs3.h>
#include <rpcrdma/rpcrdma_rpc.h>

#include "nfs3d.h"

/* What a READ leaves for nfs3d_read_done(), in the request's result buffer. */
struct read_state {
	bool pinned;
	uint32_t pin;
	void *buf; /* a chunk buffer of pool */
	struct rpcrdma_mempool *pool;
};

static inline void lock(struct nfs3d *s)
{
	if (s->locked)
		rte_spinlock_lock(&s->lock);
}

static inline void unlock(struct nfs3d *s)
{
	if (s->locked)
		rte_spinlock_unlock(&s->lock);
}

/* The call's arguments, all of them: 0, or GARBAGE_ARGS. */
static int args_end(struct rpcrdma_svc_req *req, int ret)
{
	if (ret == 0 && rpcrdma_xdr_dec_left(req->args) != 0)
		ret = -RPCRDMA_E_XDR_END;
	return ret;
}

/* A handler's end: the reply encoded (OK), or SYSTEM_ERR. */
static int done(int enc)
{
	return enc == 0 ? RPCRDMA_SVC_OK : -ENOSPC;
}

static void cred_of(const struct rpcrdma_svc_req *req, struct nfs3_fs_cred *c)
{
	const struct rpcrdma_rpc_call *call = &req->call->call;

	c->uid = call->cred.flavor == RPCRDMA_RPC_AUTH_SYS ? call->sys.uid : NFS3D_ANON;
	c->gid = call->cred.flavor == RPCRDMA_RPC_AUTH_SYS ? call->sys.gid : NFS3D_ANON;
}

static void post_attr(struct nfs3d *s, uint64_t ino, struct rpcrdma_nfs3_post_attr *a)
{
	a->present = ino != 0;
	if (a->present)
		nfs3_fs_getattr(s->fs, ino, &a->attr);
}

/* wcc_data: the pre-operation attributes now, the post-operation ones in wcc_after(). */
static void wcc_before(struct nfs3d *s, uint64_t ino, struct rpcrdma_nfs3_wcc *w)
{
	w->before_present = ino != 0;
	if (ino)
		nfs3_fs_wcc_attr(s->fs, ino, &w->before);
}

static void wcc_after(struct nfs3d *s, uint64_t ino, struct rpcrdma_nfs3_wcc *w)
{
	post_attr(s, ino, &w->after);
}

static uint32_t fh_ino(struct nfs3d *s, const struct rpcrdma_nfs3_fh *fh, uint64_t *ino)
{
	*ino = 0;
	return nfs3_fs_fh_ino(s->fs, fh, ino);
}

/* ----------------------------------------------------------- attributes */

static int h_getattr(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct nfs3d *s = req->prog_ctx;
	struct rpcrdma_nfs3_getattr_args a;
	struct rpcrdma_nfs3_getattr_res r = { 0 };
	uint64_t ino;
	int ret;

	if (args_end(req, rpcrdma_nfs3_dec_getattr_args(req->args, &a)))
		return RPCRDMA_SVC_GARBAGE;
	lock(s);
	r.status = fh_ino(s, &a.object, &ino);
	if (r.status == RPCRDMA_NFS3_OK)
		nfs3_fs_getattr(s->fs, ino, &r.attr);
	ret = rpcrdma_nfs3_enc_getattr_res(req->reply, &r);
	unlock(s);
	return done(ret);
}

/* SETATTR: sattrguard3 compares ctime (NFS3ERR_NOT_SYNC when it moved). */
static int h_setattr(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct nfs3d *s = req->prog_ctx;
	struct rpcrdma_nfs3_setattr_args a;
	struct rpcrdma_nfs3_wcc_res r = { 0 };
	struct rpcrdma_nfs3_fattr f;
	uint64_t ino;
	int ret;

	if (args_end(req, rpcrdma_nfs3_dec_setattr_args(req->args, &a)))
		return RPCRDMA_SVC_GARBAGE;
	lock(s);
	r.status = fh_ino(s, &a.object, &ino);
	if (r.status == RPCRDMA_NFS3_OK) {
		wcc_before(s, ino, &r.wcc);
		nfs3_fs_getattr(s->fs, ino, &f);
		if (a.guard_check && (f.ctime.seconds != a.guard_ctime.seconds ||
				      f.ctime.nseconds != a.guard_ctime.nseconds))
			r.status = RPCRDMA_NFS3ERR_NOT_SYNC;
		else
			r.status = nfs3_fs_setattr(s->fs, ino, &a.new_attr);
		wcc_after(s, ino, &r.wcc);
	}
	ret = rpcrdma_nfs3_enc_wcc_res(req->reply, &r);
	unlock(s);
	return done(ret);
}

/* What the mode bits give uid and gid (uid 0: everything, execute where any x bit is). */
static uint32_t access_of(const struct rpcrdma_nfs3_fattr *f, const struct nfs3_fs_cred *c,
			  uint32_t want)
{
	uint32_t bits, got = 0;
	bool dir = f->type == RPCRDMA_NFS3_DIR;

	if (c->uid == 0)
		bits = 06 | ((f->mode & 0111) ? 1 : 0);
	else if (c->uid == f->uid)
		bits = (f->mode >> 6) & 7;
	else if (c->gid == f->gid)
		bits = (f->mode >> 3) & 7;
	else
		bits = f->mode & 7;
	if (bits & 4)
		got |= RPCRDMA_NFS3_ACCESS_READ;
	if (bits & 2)
		got |= RPCRDMA_NFS3_ACCESS_MODIFY | RPCRDMA_NFS3_ACCESS_EXTEND |
		       (dir ? RPCRDMA_NFS3_ACCESS_DELETE : 0);
	if (bits & 1)
		got |= dir ? RPCRDMA_NFS3_ACCESS_LOOKUP : RPCRDMA_NFS3_ACCESS_EXECUTE;
	if (c->uid == 0 && dir)
		got |= RPCRDMA_NFS3_ACCESS_LOOKUP;
	return got & want;
}

static int h_access(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct nfs3d *s = req->prog_ctx;
	struct rpcrdma_nfs3_access_args a;
	struct rpcrdma_nfs3_access_res r = { 0 };
	struct nfs3_fs_cred c;
	uint64_t ino;
	int ret;

	if (args_end(req, rpcrdma_nfs3_dec_access_args(req->args, &a)))
		return RPCRDMA_SVC_GARBAGE;
	cred_of(req, &c);
	lock(s);
	r.status = fh_ino(s, &a.object, &ino);
	post_attr(s, ino, &r.obj_attr);
	if (r.status == RPCRDMA_NFS3_OK)
		r.access = access_of(&r.obj_attr.attr, &c, a.access);
	ret = rpcrdma_nfs3_enc_access_res(req->reply, &r);
	unlock(s);
	return done(ret);
}

/* ------------------------------------------------------------- lookups */

static int h_lookup(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct nfs3d *s = req->prog_ctx;
	struct rpcrdma_nfs3_lookup_args a;
	struct rpcrdma_nfs3_lookup_res r = { 0 };
	uint8_t fh[NFS3_FS_FH_LEN];
	uint64_t dir = 0, ino;
	int ret;

	ret = args_end(req, rpcrdma_nfs3_dec_lookup_args(req->args, &a));
	if (ret == -RPCRDMA_E_NAME_LEN) {
		r.status = RPCRDMA_NFS3ERR_NAMETOOLONG;
		return done(rpcrdma_nfs3_enc_lookup_res(req->reply, &r));
	}
	if (ret)
		return RPCRDMA_SVC_GARBAGE;
	lock(s);
	r.status = fh_ino(s, &a.what.dir, &dir);
	if (r.status == RPCRDMA_NFS3_OK)
		r.status = nfs3_fs_lookup(s->fs, dir, a.what.name, a.what.name_len, &ino);
	if (r.status == RPCRDMA_NFS3_OK) {
		r.object.len = nfs3_fs_fh(s->fs, ino, fh);
		r.object.data = fh;
		post_attr(s, ino, &r.obj_attr);
	}
	post_attr(s, dir, &r.dir_attr);
	ret = rpcrdma_nfs3_enc_lookup_res(req->reply, &r);
	unlock(s);
	return done(ret);
}

static int h_readlink(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct nfs3d *s = req->prog_ctx;
	struct rpcrdma_nfs3_fh_args a;
	struct rpcrdma_nfs3_readlink_res r = { 0 };
	uint64_t ino;
	int ret;

	if (args_end(req, rpcrdma_nfs3_dec_fh_args(req->args, &a)))
		return RPCRDMA_SVC_GARBAGE;
	lock(s);
	r.status = fh_ino(s, &a.object, &ino);
	if (r.status == RPCRDMA_NFS3_OK)
		r.status = nfs3_fs_readlink(s->fs, ino, &r.data, &r.data_len);
	post_attr(s, ino, &r.symlink_attr);
	ret = rpcrdma_nfs3_enc_readlink_res(req->reply, &r);
	unlock(s);
	return done(ret);
}

/* ---------------------------------------------------------- READ, WRITE */

/*
 * READ: count is cut to rtmax and the end of the file. The bytes go from
 * the file in place when they lie in one extent, else from a copy in a
 * chunk buffer (none free: NFS3ERR_JUKEBOX, the client tries again).
 */
static int h_read(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct nfs3d *s = req->prog_ctx;
	struct read_state *rs = rpcrdma_svc_req_res(req);
	struct rpcrdma_nfs3_read_args a;
	struct rpcrdma_nfs3_read_res r = { 0 };
	const uint8_t *p = NULL;
	uint64_t ino;
	int ret, m;

	memset(rs, 0, sizeof(*rs)); /* read_done reads it whatever happens */
	if (args_end(req, rpcrdma_nfs3_dec_read_args(req->args, &a)))
		return RPCRDMA_SVC_GARBAGE;
	r.count = a.count < s->io_max ? a.count : s->io_max;
	lock(s);
	r.status = fh_ino(s, &a.file, &ino);
	if (r.status == RPCRDMA_NFS3_OK) {
		m = nfs3_fs_read_map(s->fs, ino, a.offset, &r.count, &r.eof, &p, &rs->pin);
		if (m < 0)
			r.status = (uint32_t)m & 0x7fffffffu;
		else if (m == 1)
			rs->pinned = true;
	}
	if (r.status == RPCRDMA_NFS3_OK && rs->pinned) {
		r.data = rpcrdma_xdr_region_va((void *)(uintptr_t)p, r.count, s->data->lkey,
					       s->data->rkey);
	} else if (r.status == RPCRDMA_NFS3_OK && r.count > 0) {
		rs->pool = rpcrdma_mempool_set_chunk_pool(s->pools, r.count);
		rs->buf = rpcrdma_mempool_get(rs->pool);
		if (rs->buf == NULL) {
			r.status = RPCRDMA_NFS3ERR_JUKEBOX;
			__atomic_fetch_add(&s->jukebox, 1, __ATOMIC_RELAXED);
		} else {
			nfs3_fs_read_copy(s->fs, ino, a.offset, r.count, rs->buf);
			r.data = rpcrdma_xdr_region_va(rs->buf, r.count, rs->pool->lkey,
						       rs->pool->rkey);
		}
	}
	if (rs->pinned || rs->buf)
		__atomic_fetch_add(&s->reads_out, 1, __ATOMIC_RELAXED);
	post_attr(s, ino, &r.file_attr);
	ret = rpcrdma_nfs3_enc_read_res(req->reply, &r);
	unlock(s);
	return done(ret);
}

void nfs3d_read_done(struct nfs3d *s, struct rpcrdma_svc_req *req)
{
	struct read_state *rs = rpcrdma_svc_req_res(req);

	if (!rs->pinned && rs->buf == NULL)
		return;
	lock(s);
	if (rs->pinned)
		nfs3_fs_unpin(s->fs, rs->pin);
	unlock(s);
	if (rs->buf)
		rpcrdma_mempool_put(rs->pool, rs->buf);
	rs->pinned = false;
	rs->buf = NULL;
	__atomic_fetch_sub(&s->reads_out, 1, __ATOMIC_RELAXED);
}

/*
 * WRITE: count must be the data's length (NFS3ERR_INVAL); over wtmax, the
 * first wtmax bytes are written and count says so (RFC 1813 3.3.7: the
 * client sends the rest again). Every WRITE is FILE_SYNC.
 */
static int h_write(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct nfs3d *s = req->prog_ctx;
	struct rpcrdma_nfs3_write_args a;
	struct rpcrdma_nfs3_write_res r = { 0 };
	uint64_t ino;
	int ret;

	if (args_end(req, rpcrdma_nfs3_dec_write_args(req->args, &a)))
		return RPCRDMA_SVC_GARBAGE;
	lock(s);
	r.status = fh_ino(s, &a.file, &ino);
	wcc_before(s, ino, &r.file_wcc);
	if (r.status == RPCRDMA_NFS3_OK && a.count != a.data.len)
		r.status = RPCRDMA_NFS3ERR_INVAL;
	if (a.count > s->io_max)
		a.count = s->io_max;
	if (r.status == RPCRDMA_NFS3_OK)
		r.status = nfs3_fs_write(s->fs, ino, a.offset, a.data.addr, a.count);
	wcc_after(s, ino, &r.file_wcc);
	r.count = a.count;
	r.committed = RPCRDMA_NFS3_FILE_SYNC;
	memcpy(r.verf, s->verf, sizeof(r.verf));
	ret = rpcrdma_nfs3_enc_write_res(req->reply, &r);
	unlock(s);
	return done(ret);
}

static int h_commit(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct nfs3d *s = req->prog_ctx;
	struct rpcrdma_nfs3_commit_args a;
	struct rpcrdma_nfs3_commit_res r = { 0 };
	uint64_t ino;
	int ret;

	if (args_end(req, rpcrdma_nfs3_dec_commit_args(req->args, &a)))
		return RPCRDMA_SVC_GARBAGE;
	lock(s);
	r.status = fh_ino(s, &a.file, &ino);
	if (r.status == RPCRDMA_NFS3_OK && nfs3_fs_type(s->fs, ino) != RPCRDMA_NFS3_REG)
		r.status = nfs3_fs_type(s->fs, ino) == RPCRDMA_NFS3_DIR ? RPCRDMA_NFS3ERR_ISDIR
									: RPCRDMA_NFS3ERR_INVAL;
	wcc_before(s, ino, &r.file_wcc);
	wcc_after(s, ino, &r.file_wcc);
	memcpy(r.verf, s->verf, sizeof(r.verf));
	ret = rpcrdma_nfs3_enc_commit_res(req->reply, &r);
	unlock(s);
	return done(ret);
}

/* ------------------------------------------------------ making and naming */

/*
 * The opening of CREATE, MKDIR and SYMLINK, after their arguments were
 * decoded with result @p dec: a name over 255 bytes is answered
 * NAMETOOLONG and other bad arguments GARBAGE_ARGS (true: *out is what the
 * handler returns); otherwise the caller's credential, the lock, the
 * directory's inode (or the status of its handle) and its attributes
 * before (false: go on, locked).
 */
static bool make_open(struct rpcrdma_svc_req *req, int dec, const struct rpcrdma_nfs3_fh *dirfh,
		      struct rpcrdma_nfs3_create_res *r, struct nfs3_fs_cred *c, uint64_t *dir,
		      int *out)
{
	struct nfs3d *s = req->prog_ctx;

	if (dec == -RPCRDMA_E_NAME_LEN) {
		r->status = RPCRDMA_NFS3ERR_NAMETOOLONG;
		*out = done(rpcrdma_nfs3_enc_create_res(req->reply, r));
		return true;
	}
	if (dec) {
		*out = RPCRDMA_SVC_GARBAGE;
		return true;
	}
	cred_of(req, c);
	lock(s);
	r->status = fh_ino(s, dirfh, dir);
	wcc_before(s, *dir, &r->dir_wcc);
	return false;
}

/* The end of CREATE, MKDIR and SYMLINK: the new file's handle and attributes. */
static int made(struct nfs3d *s, struct rpcrdma_svc_req *req, struct rpcrdma_nfs3_create_res *r,
		uint64_t dir, uint64_t ino)
{
	uint8_t fh[NFS3_FS_FH_LEN];
	int ret;

	if (r->status == RPCRDMA_NFS3_OK) {
		r->obj.present = true;
		r->obj.fh.len = nfs3_fs_fh(s->fs, ino, fh);
		r->obj.fh.data = fh;
		post_attr(s, ino, &r->obj_attr);
	}
	wcc_after(s, dir, &r->dir_wcc);
	ret = rpcrdma_nfs3_enc_create_res(req->reply, r);
	unlock(s);
	return done(ret);
}

/*
 * CREATE: UNCHECKED takes an existing regular file as it is (its sattr3
 * applied), GUARDED refuses it (NFS3ERR_EXIST), EXCLUSIVE takes it only
 * when it was made with the same verifier (a retransmission).
 */
static int h_create(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct nfs3d *s = req->prog_ctx;
	struct rpcrdma_nfs3_create_args a;
	struct rpcrdma_nfs3_create_res r = { 0 };
	struct nfs3_fs_cred c;
	uint64_t dir = 0, ino = 0;
	uint32_t mode;
	int ret;

	ret = args_end(req, rpcrdma_nfs3_dec_create_args(req->args, &a));
	if (make_open(req, ret, &a.where.dir, &r, &c, &dir, &ret))
		return ret;
	mode = a.mode != RPCRDMA_NFS3_EXCLUSIVE && a.attr.set_mode ? a.attr.mode : 0644;
	if (r.status == RPCRDMA_NFS3_OK)
		r.status = nfs3_fs_make(s->fs, dir, a.where.name, a.where.name_len,
					RPCRDMA_NFS3_REG, mode, &c, NULL, 0, &ino);
	if (r.status == RPCRDMA_NFS3ERR_EXIST && ino != 0 &&
	    !nfs3_fs_is_dot(a.where.name, a.where.name_len)) {
		if (a.mode == RPCRDMA_NFS3_UNCHECKED &&
		    nfs3_fs_type(s->fs, ino) == RPCRDMA_NFS3_REG)
			r.status = nfs3_fs_setattr(s->fs, ino, &a.attr);
		else if (a.mode == RPCRDMA_NFS3_EXCLUSIVE && nfs3_fs_verf_is(s->fs, ino, a.verf))
			r.status = RPCRDMA_NFS3_OK;
	} else if (r.status == RPCRDMA_NFS3_OK && a.mode == RPCRDMA_NFS3_EXCLUSIVE) {
		nfs3_fs_set_verf(s->fs, ino, a.verf);
	} else if (r.status == RPCRDMA_NFS3_OK) {
		a.attr.set_mode = false; /* the rest of sattr3: owner, size, times */
		r.status = nfs3_fs_setattr(s->fs, ino, &a.attr);
	}
	return made(s, req, &r, dir, ino);
}

static int h_mkdir(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct nfs3d *s = req->prog_ctx;
	struct rpcrdma_nfs3_mkdir_args a;
	struct rpcrdma_nfs3_create_res r = { 0 };
	struct nfs3_fs_cred c;
	uint64_t dir = 0, ino = 0;
	int ret;

	ret = args_end(req, rpcrdma_nfs3_dec_mkdir_args(req->args, &a));
	if (make_open(req, ret, &a.where.dir, &r, &c, &dir, &ret))
		return ret;
	if (r.status == RPCRDMA_NFS3_OK)
		r.status =
			nfs3_fs_make(s->fs, dir, a.where.name, a.where.name_len, RPCRDMA_NFS3_DIR,
				     a.attr.set_mode ? a.attr.mode : 0755, &c, NULL, 0, &ino);
	if (r.status == RPCRDMA_NFS3_OK) {
		a.attr.set_mode = false;
		a.attr.set_size = false;
		r.status = nfs3_fs_setattr(s->fs, ino, &a.attr);
	}
	return made(s, req, &r, dir, ino);
}

static int h_symlink(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct nfs3d *s = req->prog_ctx;
	struct rpcrdma_nfs3_symlink_args a;
	struct rpcrdma_nfs3_create_res r = { 0 };
	struct nfs3_fs_cred c;
	uint64_t dir = 0, ino = 0;
	int ret;

	ret = args_end(req, rpcrdma_nfs3_dec_symlink_args(req->args, &a));
	if (make_open(req, ret, &a.where.dir, &r, &c, &dir, &ret))
		return ret;
	if (r.status == RPCRDMA_NFS3_OK && (a.data_len == 0 || memchr(a.data, 0, a.data_len)))
		r.status = RPCRDMA_NFS3ERR_INVAL; /* a link to nothing, or with a NUL */
	if (r.status == RPCRDMA_NFS3_OK)
		r.status = nfs3_fs_make(s->fs, dir, a.where.name, a.where.name_len,
					RPCRDMA_NFS3_LNK, 0777, &c, a.data, a.data_len, &ino);
	return made(s, req, &r, dir, ino);
}

/* REMOVE and RMDIR: one diropargs3, one wcc_data. */
static int remove_common(struct rpcrdma_svc_req *req, bool dir_wanted)
{
	struct nfs3d *s = req->prog_ctx;
	struct rpcrdma_nfs3_remove_args a;
	struct rpcrdma_nfs3_remove_res r = { 0 };
	uint64_t dir = 0;
	int ret;

	ret = args_end(req, rpcrdma_nfs3_dec_remove_args(req->args, &a));
	if (ret == -RPCRDMA_E_NAME_LEN) {
		r.status = RPCRDMA_NFS3ERR_NAMETOOLONG;
		return done(rpcrdma_nfs3_enc_remove_res(req->reply, &r));
	}
	if (ret)
		return RPCRDMA_SVC_GARBAGE;
	lock(s);
	r.status = fh_ino(s, &a.object.dir, &dir);
	wcc_before(s, dir, &r.dir_wcc);
	if (r.status == RPCRDMA_NFS3_OK)
		r.status = nfs3_fs_remove(s->fs, dir, a.object.name, a.object.name_len, dir_wanted);
	wcc_after(s, dir, &r.dir_wcc);
	ret = rpcrdma_nfs3_enc_remove_res(req->reply, &r);
	unlock(s);
	return done(ret);
}

static int h_remove(struct rpcrdma_svc_req *req, void *args, void *res)
{
	return remove_common(req, false);
}

static int h_rmdir(struct rpcrdma_svc_req *req, void *args, void *res)
{
	return remove_common(req, true);
}

static int h_rename(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct nfs3d *s = req->prog_ctx;
	struct rpcrdma_nfs3_rename_args a;
	struct rpcrdma_nfs3_rename_res r = { 0 };
	uint64_t fdir = 0, tdir = 0;
	int ret;

	ret = args_end(req, rpcrdma_nfs3_dec_rename_args(req->args, &a));
	if (ret == -RPCRDMA_E_NAME_LEN) {
		r.status = RPCRDMA_NFS3ERR_NAMETOOLONG;
		return done(rpcrdma_nfs3_enc_rename_res(req->reply, &r));
	}
	if (ret)
		return RPCRDMA_SVC_GARBAGE;
	lock(s);
	r.status = fh_ino(s, &a.from.dir, &fdir);
	if (r.status == RPCRDMA_NFS3_OK)
		r.status = fh_ino(s, &a.to.dir, &tdir);
	if (r.status != RPCRDMA_NFS3_OK)
		fdir = tdir = 0;
	wcc_before(s, fdir, &r.fromdir_wcc);
	wcc_before(s, tdir, &r.todir_wcc);
	if (r.status == RPCRDMA_NFS3_OK)
		r.status = nfs3_fs_rename(s->fs, fdir, a.from.name, a.from.name_len, tdir,
					  a.to.name, a.to.name_len);
	wcc_after(s, fdir, &r.fromdir_wcc);
	wcc_after(s, tdir, &r.todir_wcc);
	ret = rpcrdma_nfs3_enc_rename_res(req->reply, &r);
	unlock(s);
	return done(ret);
}

/* MKNOD (11) and LINK (15): NFS3ERR_NOTSUPP, with the failure arm's empty attributes. */
static int h_notsupp(struct rpcrdma_svc_req *req, void *args, void *res)
{
	int ret = rpcrdma_xdr_put_u32(req->reply, RPCRDMA_NFS3ERR_NOTSUPP);

	if (ret == 0 && req->call->call.proc == RPCRDMA_NFS3_LINK)
		ret = rpcrdma_xdr_put_bool(req->reply, false); /* file_attributes */
	if (ret == 0)
		ret = rpcrdma_xdr_put_bool(req->reply, false); /* wcc_data: before */
	if (ret == 0)
		ret = rpcrdma_xdr_put_bool(req->reply, false); /* after */
	return done(ret);
}

/* ------------------------------------------------------------- listings */

/*
 * READDIR and READDIRPLUS: from the cookie (checked, with its verifier)
 * as many entries as the client's budget and the reply stream hold; none
 * at all is NFS3ERR_TOOSMALL.
 */
static int readdir_common(struct rpcrdma_svc_req *req, bool plus)
{
	struct nfs3d *s = req->prog_ctx;
	struct rpcrdma_xdr_enc *xdr = req->reply;
	struct rpcrdma_nfs3_readdirplus_args a;
	struct rpcrdma_nfs3_readdir_args ra;
	struct rpcrdma_nfs3_readdirplus_res r = { 0 };
	struct rpcrdma_nfs3_readdirplus_enc e;
	struct nfs3_fs_dirent d;
	uint32_t len = xdr->len, pos = xdr->pos;
	uint16_t nddp = xdr->nddp;
	uint8_t fh[NFS3_FS_FH_LEN];
	uint64_t dir = 0, cookie;
	bool more = true;
	int ret;

	if (plus) {
		if (args_end(req, rpcrdma_nfs3_dec_readdirplus_args(req->args, &a)))
			return RPCRDMA_SVC_GARBAGE;
	} else {
		if (args_end(req, rpcrdma_nfs3_dec_readdir_args(req->args, &ra)))
			return RPCRDMA_SVC_GARBAGE;
		a.dir = ra.dir;
		a.cookie = ra.cookie;
		memcpy(a.cookieverf, ra.cookieverf, sizeof(a.cookieverf));
		a.dircount = UINT32_MAX;
		a.maxcount = ra.count;
	}
	lock(s);
	r.status = fh_ino(s, &a.dir, &dir);
	if (r.status == RPCRDMA_NFS3_OK)
		r.status = nfs3_fs_readdir_check(s->fs, dir, a.cookie, a.cookieverf);
	post_attr(s, dir, &r.dir_attr);
	if (r.status == RPCRDMA_NFS3_OK)
		nfs3_fs_cookieverf(s->fs, dir, r.cookieverf);
	ret = rpcrdma_nfs3_readdirplus_begin(&e, xdr, &r, a.dircount, a.maxcount);
	if (ret == -ENOSPC && r.status == RPCRDMA_NFS3_OK) {
		r.status = RPCRDMA_NFS3ERR_TOOSMALL; /* not even the empty list */
		ret = rpcrdma_nfs3_readdirplus_begin(&e, xdr, &r, 0, 0);
	}
	if (ret || r.status != RPCRDMA_NFS3_OK)
		goto out;
	for (cookie = a.cookie; (more = nfs3_fs_readdir_next(s->fs, dir, cookie, &d));
	     cookie = d.cookie) {
		if (plus) {
			struct rpcrdma_nfs3_entryplus ep = {
				.fileid = d.ino,
				.name = d.name,
				.name_len = d.name_len,
				.cookie = d.cookie,
			};

			post_attr(s, d.ino, &ep.name_attr);
			ep.name_handle.present = true;
			ep.name_handle.fh.len = nfs3_fs_fh(s->fs, d.ino, fh);
			ep.name_handle.fh.data = fh;
			ret = rpcrdma_nfs3_readdirplus_put(&e, &ep);
		} else {
			struct rpcrdma_nfs3_entry en = {
				.fileid = d.ino,
				.name = d.name,
				.name_len = d.name_len,
				.cookie = d.cookie,
			};

			ret = rpcrdma_nfs3_readdir_put(&e, &en);
		}
		if (ret)
			break;
	}
	if (ret == -ENOSPC && e.nentries == 0) {
		/* one entry does not fit: TOOSMALL instead */
		xdr->len = len;
		xdr->pos = pos;
		xdr->nddp = nddp;
		r.status = RPCRDMA_NFS3ERR_TOOSMALL;
		ret = rpcrdma_nfs3_readdirplus_begin(&e, xdr, &r, 0, 0);
		goto out;
	}
	ret = ret == -ENOSPC || ret == 0 ? rpcrdma_nfs3_readdirplus_end(&e, !more) : ret;
out:
	unlock(s);
	return done(ret);
}

static int h_readdir(struct rpcrdma_svc_req *req, void *args, void *res)
{
	return readdir_common(req, false);
}

static int h_readdirplus(struct rpcrdma_svc_req *req, void *args, void *res)
{
	return readdir_common(req, true);
}

/* ------------------------------------------------------------ the file system */

static int h_fsstat(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct nfs3d *s = req->prog_ctx;
	struct rpcrdma_nfs3_fh_args a;
	struct rpcrdma_nfs3_fsstat_res r = { 0 };
	struct nfs3_fs_stats st;
	uint64_t ino;
	int ret;

	if (args_end(req, rpcrdma_nfs3_dec_fh_args(req->args, &a)))
		return RPCRDMA_SVC_GARBAGE;
	lock(s);
	r.status = fh_ino(s, &a.object, &ino);
	post_attr(s, ino, &r.obj_attr);
	nfs3_fs_stats(s->fs, &st);
	r.tbytes = st.bytes;
	r.fbytes = r.abytes = st.free_bytes;
	r.tfiles = st.inodes;
	r.ffiles = r.afiles = st.free_inodes;
	r.invarsec = 0;
	ret = rpcrdma_nfs3_enc_fsstat_res(req->reply, &r);
	unlock(s);
	return done(ret);
}

static int h_fsinfo(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct nfs3d *s = req->prog_ctx;
	struct rpcrdma_nfs3_fh_args a;
	struct rpcrdma_nfs3_fsinfo_res r = { 0 };
	struct nfs3_fs_stats st;
	uint64_t ino;
	int ret;

	if (args_end(req, rpcrdma_nfs3_dec_fh_args(req->args, &a)))
		return RPCRDMA_SVC_GARBAGE;
	lock(s);
	r.status = fh_ino(s, &a.object, &ino);
	post_attr(s, ino, &r.obj_attr);
	nfs3_fs_stats(s->fs, &st);
	r.rtmax = r.rtpref = r.wtmax = r.wtpref = s->io_max;
	r.rtmult = r.wtmult = NFS3_FS_PAGE;
	r.dtpref = NFS3D_DIR_PREF;
	r.maxfilesize = st.bytes;
	r.time_delta.nseconds = 1;
	r.properties = RPCRDMA_NFS3_FSF_SYMLINK | RPCRDMA_NFS3_FSF_HOMOGENEOUS |
		       RPCRDMA_NFS3_FSF_CANSETTIME;
	ret = rpcrdma_nfs3_enc_fsinfo_res(req->reply, &r);
	unlock(s);
	return done(ret);
}

static int h_pathconf(struct rpcrdma_svc_req *req, void *args, void *res)
{
	struct nfs3d *s = req->prog_ctx;
	struct rpcrdma_nfs3_fh_args a;
	struct rpcrdma_nfs3_pathconf_res r = { 0 };
	uint64_t ino;
	int ret;

	if (args_end(req, rpcrdma_nfs3_dec_fh_args(req->args, &a)))
		return RPCRDMA_SVC_GARBAGE;
	lock(s);
	r.status = fh_ino(s, &a.object, &ino);
	post_attr(s, ino, &r.obj_attr);
	r.linkmax = 1; /* no LINK */
	r.name_max = RPCRDMA_NFS3_NAME_MAX;
	r.no_trunc = true;
	r.chown_restricted = true;
	r.case_preserving = true;
	ret = rpcrdma_nfs3_enc_pathconf_res(req->reply, &r);
	unlock(s);
	return done(ret);
}

/* ------------------------------------------------------------ the table */

#define RAW(n, h)                                    \
	{                                            \
		.name = n, .handler = h, .raw = true \
	}
/*
 * Non-idempotent: a copy sent again after a lost connection must not run
 * twice (a REMOVE would answer NOENT, a guarded CREATE EXIST): answered
 * from the duplicate request cache when the server has one (--drc-entries),
 * as Linux nfsd caches the same procedures.
 */
#define RAW_ONCE(n, h)                                                                          \
	{                                                                                       \
		.name = n, .handler = h, .raw = true, .flags = RPCRDMA_SVC_PROC_F_NONIDEMPOTENT \
	}

static const struct rpcrdma_svc_proc nfs3d_procs[NFS3D_NPROCS] = {
	[RPCRDMA_NFS3_NULL] = { .name = "NULL" },
	[RPCRDMA_NFS3_GETATTR] = RAW("GETATTR", h_getattr),
	[RPCRDMA_NFS3_SETATTR] = RAW_ONCE("SETATTR", h_setattr),
	[RPCRDMA_NFS3_LOOKUP] = RAW("LOOKUP", h_lookup),
	[RPCRDMA_NFS3_ACCESS] = RAW("ACCESS", h_access),
	[RPCRDMA_NFS3_READLINK] = RAW("READLINK", h_readlink),
	[RPCRDMA_NFS3_READ] = RAW("READ", h_read),
	[RPCRDMA_NFS3_WRITE] = RAW_ONCE("WRITE", h_write),
	[RPCRDMA_NFS3_CREATE] = RAW_ONCE("CREATE", h_create),
	[RPCRDMA_NFS3_MKDIR] = RAW_ONCE("MKDIR", h_mkdir),
	[RPCRDMA_NFS3_SYMLINK] = RAW_ONCE("SYMLINK", h_symlink),
	[RPCRDMA_NFS3_MKNOD] = RAW("MKNOD", h_notsupp),
	[RPCRDMA_NFS3_REMOVE] = RAW_ONCE("REMOVE", h_remove),
	[RPCRDMA_NFS3_RMDIR] = RAW_ONCE("RMDIR", h_rmdir),
	[RPCRDMA_NFS3_RENAME] = RAW_ONCE("RENAME", h_rename),
	[RPCRDMA_NFS3_LINK] = RAW("LINK", h_notsupp),
	[RPCRDMA_NFS3_READDIR] = RAW("READDIR", h_readdir),
	[RPCRDMA_NFS3_READDIRPLUS] = RAW("READDIRPLUS", h_readdirplus),
	[RPCRDMA_NFS3_FSSTAT] = RAW("FSSTAT", h_fsstat),
	[RPCRDMA_NFS3_FSINFO] = RAW("FSINFO", h_fsinfo),
	[RPCRDMA_NFS3_PATHCONF] = RAW("PATHCONF", h_pathconf),
	[RPCRDMA_NFS3_COMMIT] = RAW("COMMIT", h_commit),
};

const struct rpcrdma_svc_version nfs3d_versions[] = {
	{ .vers = RPCRDMA_NFS3_VERSION, .nprocs = NFS3D_NPROCS, .procs = nfs3d_procs },
};

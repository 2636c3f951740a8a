/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The in-memory file system that nfs3-server serves: regular files,
 * directories and symbolic links, their attributes, opaque file handles,
 * and READDIR cookies. Libc only (the unit test runs it without the EAL);
 * every result is an nfsstat3, so the procedures hand it straight back.
 * Internal to apps/nfs3/ (not installed).
 *
 * File data lives in one area of memory the caller gives (the server's is
 * registered with the device), --size bytes, a multiple of 1 MiB, carved by
 * a buddy allocator in blocks of 4 KiB to 1 MiB. A file is an array of
 * extents of 1 MiB of file offsets each; extent i holds bytes [i MiB,
 * (i + 1) MiB) in one block, as small as the bytes written there need
 * (a power of two), and grows by moving to a larger block. A hole reads
 * as zeros and takes no space. Space is what the blocks take: a WRITE
 * that cannot get one answers NFS3ERR_NOSPC.
 *
 * READ without a copy: nfs3_fs_read_map() gives the bytes of a READ that
 * lies in one extent in place, and pins their block; the server sends
 * them by RDMA Write straight from there and unpins it when the Write is
 * done (nfs3_fs_unpin()). While a block is pinned it is never written,
 * moved or freed: a WRITE, a truncation or a removal that would change it
 * copies the extent to a new block first (copy on write) and leaves the
 * pinned one to be freed by the last unpin. A READ reply is thus a
 * snapshot of the file when the READ ran, never torn by a later WRITE,
 * and a block freed by REMOVE can never reach another file while a client
 * is still being sent its old contents. A READ across two extents or a
 * hole is copied (nfs3_fs_read_copy()).
 *
 * File handles (32 bytes): a version, the file's type, its generation
 * (incremented each time its inode slot is reused), its fileid, the
 * server instance's verifier and a keyed checksum of those under a secret
 * drawn at start. A handle of the wrong length or version, or whose
 * checksum does not hold, is NFS3ERR_BADHANDLE (malformed or forged); one
 * of another instance (a restarted server: its files are gone), of a
 * removed file or of a reused slot is NFS3ERR_STALE.
 *
 * Directory entries sit in slots that never move; a removed entry leaves
 * its slot free for the next one. A READDIR cookie is 1 ('.'), 2 ('..')
 * or 3 + a slot index, so a cookie stays valid across changes to the
 * directory; the cookie verifier is per directory (its fileid, generation
 * and the instance). A cookie past the directory's slots, or a nonzero
 * cookie with a verifier that is neither the directory's nor zero, is
 * NFS3ERR_BAD_COOKIE.
 *
 * Not thread-safe: the server serialises the calls that reach it.
 */
#ifndef NFS3_FS_H
#define NFS3_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/rpcrdma_nfs3.h>

#define NFS3_FS_EXT_SHIFT  20 /* an extent: 1 MiB of file offsets, one block at most */
#define NFS3_FS_EXT	   (1u << NFS3_FS_EXT_SHIFT)
#define NFS3_FS_PAGE_SHIFT 12 /* the smallest block: 4 KiB */
#define NFS3_FS_PAGE	   (1u << NFS3_FS_PAGE_SHIFT)
#define NFS3_FS_ORDERS	   (NFS3_FS_EXT_SHIFT - NFS3_FS_PAGE_SHIFT + 1)
#define NFS3_FS_FH_LEN	   32
#define NFS3_FS_ROOT	   1 /* the root directory's fileid */
#define NFS3_FS_COOKIE0	   3 /* the first entry's cookie; 1 is '.', 2 is '..' */

struct nfs3_fs;

/* Parameters of nfs3_fs_create(). */
struct nfs3_fs_params {
	void *data;	     /* the data area: size bytes (page-aligned) */
	uint64_t size;	     /* a multiple of NFS3_FS_EXT, at least one */
	uint32_t max_inodes; /* files, directories and links, the root included */
	uint64_t secret;     /* keys the handles' checksum; from a random source */
	uint64_t instance;   /* the server instance's verifier (its start time) */
	uint64_t fsid;
};

/* Who makes a file (AUTH_SYS uid and gid, or the anonymous 65534). */
struct nfs3_fs_cred {
	uint32_t uid;
	uint32_t gid;
};

/*
 * Make a file system with an empty root directory (mode 0777, owner 0).
 * @return 0; -EINVAL: bad parameters; -ENOMEM. *fs NULL on error.
 */
int nfs3_fs_create(const struct nfs3_fs_params *p, struct nfs3_fs **fs);

/* Free it (NULL is ignored): blocks still pinned are the caller's bug. */
void nfs3_fs_free(struct nfs3_fs *fs);

/* ---------------------------------------------------------------- handles */

/* The handle of fileid @p ino into fh (NFS3_FS_FH_LEN bytes), and its length. */
uint32_t nfs3_fs_fh(const struct nfs3_fs *fs, uint64_t ino, uint8_t *fh);

/*
 * The file a handle names.
 * @return NFS3_OK and *ino; NFS3ERR_BADHANDLE (malformed, forged) or
 *   NFS3ERR_STALE (another instance, removed, reused).
 */
uint32_t nfs3_fs_fh_ino(const struct nfs3_fs *fs, const struct rpcrdma_nfs3_fh *fh, uint64_t *ino);

/* ------------------------------------------------------------- attributes */

/* The attributes of a live file. */
void nfs3_fs_getattr(const struct nfs3_fs *fs, uint64_t ino, struct rpcrdma_nfs3_fattr *a);

/* Its wcc_attr (size, mtime, ctime): what a wcc_data's pre_op_attr holds. */
void nfs3_fs_wcc_attr(const struct nfs3_fs *fs, uint64_t ino, struct rpcrdma_nfs3_wcc_attr *w);

/* Its type (enum rpcrdma_nfs3_ftype). */
uint32_t nfs3_fs_type(const struct nfs3_fs *fs, uint64_t ino);

/*
 * Set attributes (SETATTR, and CREATE's and MKDIR's): mode (the 07777
 * bits), uid, gid, size (regular files only: NFS3ERR_INVAL otherwise;
 * NFS3ERR_FBIG past the area, NFS3ERR_NOSPC when a copy on write finds
 * no block), times. ctime is set when anything is.
 */
uint32_t nfs3_fs_setattr(struct nfs3_fs *fs, uint64_t ino, const struct rpcrdma_nfs3_sattr *s);

/* ------------------------------------------------------------ directories */

/*
 * A name that a directory may hold: 1..255 bytes, no '/' and no NUL.
 * @return NFS3_OK, NFS3ERR_NAMETOOLONG (over 255) or NFS3ERR_ACCES (empty,
 *   '/' or NUL: a name the server never makes).
 */
uint32_t nfs3_fs_name_ok(const char *name, uint32_t len);

/* '.' or '..' */
bool nfs3_fs_is_dot(const char *name, uint32_t len);

/*
 * Look a name up in directory @p dir ('.' and '..' too; the root's '..' is
 * itself). @return NFS3_OK and *ino; NFS3ERR_NOTDIR, NFS3ERR_NOENT, and
 * the errors of nfs3_fs_name_ok().
 */
uint32_t nfs3_fs_lookup(const struct nfs3_fs *fs, uint64_t dir, const char *name, uint32_t len,
			uint64_t *ino);

/*
 * Make a file of @p type (REG, DIR, LNK with @p target) in @p dir, mode
 * @p mode & 07777, owned by @p cred.
 * @return NFS3_OK and *ino; NFS3ERR_EXIST (the name is taken: *ino is the
 *   file that has it; '.' and '..'), NFS3ERR_NOTDIR, NFS3ERR_NOSPC (no
 *   inode left), NFS3ERR_NAMETOOLONG, NFS3ERR_ACCES, NFS3ERR_SERVERFAULT
 *   (no memory).
 */
uint32_t nfs3_fs_make(struct nfs3_fs *fs, uint64_t dir, const char *name, uint32_t len,
		      uint32_t type, uint32_t mode, const struct nfs3_fs_cred *cred,
		      const char *target, uint32_t target_len, uint64_t *ino);

/* EXCLUSIVE CREATE's verifier, kept with the file (8 bytes); 1 when it matches. */
void nfs3_fs_set_verf(struct nfs3_fs *fs, uint64_t ino, const uint8_t *verf);
bool nfs3_fs_verf_is(const struct nfs3_fs *fs, uint64_t ino, const uint8_t *verf);

/*
 * Remove a name: REMOVE (@p want_dir false: anything but a directory,
 * NFS3ERR_ISDIR) or RMDIR (true: an empty directory, NFS3ERR_NOTDIR,
 * NFS3ERR_NOTEMPTY). '.' is NFS3ERR_INVAL, '..' NFS3ERR_NOTEMPTY (RMDIR)
 * or NFS3ERR_ISDIR (REMOVE). The file goes when its last name does; its
 * handles are stale from then on.
 */
uint32_t nfs3_fs_remove(struct nfs3_fs *fs, uint64_t dir, const char *name, uint32_t len,
			bool want_dir);

/*
 * RENAME: from (fdir, fname) to (tdir, tname), replacing what tname names
 * when the types allow (a directory only an empty directory:
 * NFS3ERR_EXIST otherwise, NFS3ERR_NOTDIR or NFS3ERR_ISDIR for a type
 * mismatch). '.' and '..' on either side, or a directory moved under
 * itself, are NFS3ERR_INVAL; a name for the file it already is, a no-op.
 */
uint32_t nfs3_fs_rename(struct nfs3_fs *fs, uint64_t fdir, const char *fname, uint32_t flen,
			uint64_t tdir, const char *tname, uint32_t tlen);

/* A directory's cookie verifier (8 bytes). */
void nfs3_fs_cookieverf(const struct nfs3_fs *fs, uint64_t dir, uint8_t *verf);

/* One entry of a listing. */
struct nfs3_fs_dirent {
	uint64_t ino;
	const char *name;
	uint32_t name_len;
	uint64_t cookie; /* the cookie that resumes after it */
};

/*
 * Check where a READDIR resumes: cookie 0 (the start), or one this
 * directory gave, with its verifier (or zero).
 * @return NFS3_OK; NFS3ERR_NOTDIR; NFS3ERR_BAD_COOKIE.
 */
uint32_t nfs3_fs_readdir_check(const struct nfs3_fs *fs, uint64_t dir, uint64_t cookie,
			       const uint8_t *verf);

/*
 * The entry after @p cookie ('.', '..', then the live slots in order).
 * @return true and *e; false at the end of the directory.
 */
bool nfs3_fs_readdir_next(const struct nfs3_fs *fs, uint64_t dir, uint64_t cookie,
			  struct nfs3_fs_dirent *e);

/* ----------------------------------------------------------------- links */

/* A link's text (in place, len bytes). @return NFS3_OK; NFS3ERR_INVAL: not a link. */
uint32_t nfs3_fs_readlink(const struct nfs3_fs *fs, uint64_t ino, const char **text, uint32_t *len);

/* ------------------------------------------------------------------- data */

/*
 * READ's bytes in place, when [off, off + *count) (cut at the end of file,
 * *count updated, *eof set) lies in one extent that holds them: *p points
 * at them in the data area and their block is pinned under *pin.
 * @return 1 mapped (unpin *pin when the bytes are sent); 0 copy them
 *   instead (nfs3_fs_read_copy(), *count and *eof still set); or an
 *   nfsstat3 | 0x80000000: NFS3ERR_ISDIR, NFS3ERR_INVAL (not a regular file).
 */
int nfs3_fs_read_map(struct nfs3_fs *fs, uint64_t ino, uint64_t off, uint32_t *count, bool *eof,
		     const uint8_t **p, uint32_t *pin);

/* Copy [off, off + count) of the file to dst (zeros for holes); count from read_map. */
void nfs3_fs_read_copy(const struct nfs3_fs *fs, uint64_t ino, uint64_t off, uint32_t count,
		       uint8_t *dst);

/* The Write of a mapped READ is done: the block may change or go again. */
void nfs3_fs_unpin(struct nfs3_fs *fs, uint32_t pin);

/*
 * WRITE count bytes of data at off; the file grows to off + count.
 * @return NFS3_OK; NFS3ERR_ISDIR, NFS3ERR_INVAL (not a regular file),
 *   NFS3ERR_FBIG (past the area), NFS3ERR_NOSPC (nothing written).
 */
uint32_t nfs3_fs_write(struct nfs3_fs *fs, uint64_t ino, uint64_t off, const void *data,
		       uint32_t count);

/* ----------------------------------------------------------------- totals */

struct nfs3_fs_stats {
	uint64_t bytes;	      /* the data area */
	uint64_t free_bytes;  /* in free blocks */
	uint32_t inodes;      /* max_inodes */
	uint32_t free_inodes; /* inodes not in use */
	uint32_t pinned;      /* blocks pinned by READs in flight */
	uint32_t orphans;     /* blocks waiting for their last unpin to be freed */
	uint64_t cow;	      /* extents copied because a READ had them pinned */
	uint64_t read_maps;   /* READs sent in place */
	uint64_t read_copies; /* READs copied */
};

void nfs3_fs_stats(const struct nfs3_fs *fs, struct nfs3_fs_stats *st);

#endif /* NFS3_FS_H */

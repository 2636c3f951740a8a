/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * NFS version 3 (RFC 1813, program 100003 version 3) on the wire: the XDR
 * of the arguments and results of NULL, GETATTR, SETATTR, LOOKUP, ACCESS,
 * READLINK, READ, WRITE, CREATE, MKDIR, SYMLINK, REMOVE, RMDIR, RENAME,
 * READDIR, READDIRPLUS, FSSTAT, FSINFO, PATHCONF and COMMIT (all but MKNOD
 * and LINK), both sides (a client encodes arguments and decodes results, a server the
 * reverse). MOUNT version 3 is in rpcrdma_mount3.h.
 *
 * The codec works on the XDR streams of rpcrdma_xdr.h, after the RPC
 * header: decoders read a struct rpcrdma_xdr_dec (the inline part with read
 * chunks inserted, or the write chunks of a reply), encoders write a struct
 * rpcrdma_xdr_enc. The data of READ results and of WRITE arguments are
 * DDP-eligible items (RFC 8267 section 4.1): the encoder marks them with
 * rpcrdma_xdr_put_ddp() and never copies them, so the marshaling layer
 * sends them inline or moves them in a chunk; the decoder returns where
 * the bytes landed (the inline part, a read chunk or a write chunk). File
 * handles and names are also returned in place: a decoded struct refers
 * into the received message, which must outlive it. NULL takes and returns
 * nothing (void), so it has no codec function.
 *
 * READDIR and READDIRPLUS replies are encoded one entry at a time within
 * the client's byte budgets (count; maxcount, dircount) and decoded one
 * entry at a time with a cursor: neither side allocates, whatever the
 * number of entries.
 *
 * Every decoder checks each length against the bytes received and returns
 * 0 or a negative error number, leaving the stream where it was on error:
 *   - -RPCRDMA_E_XDR_END: the stream ends before a word;
 *   - -RPCRDMA_E_OPAQUE: it ends inside a file handle, name, verifier,
 *     attributes or data;
 *   - -RPCRDMA_E_OPAQUE_BOUND: a file handle longer than
 *     RPCRDMA_NFS3_FHSIZE (64) bytes;
 *   - -RPCRDMA_E_NAME_LEN: a filename3 longer than RPCRDMA_NFS3_NAME_MAX
 *     (255) bytes, or an nfspath3 longer than RPCRDMA_NFS3_PATH_MAX (4096):
 *     a server answers NFS3ERR_NAMETOOLONG;
 *   - -RPCRDMA_E_BOOL: a bool or optional-data discriminant (post_op_attr,
 *     pre_op_attr, post_op_fh3, set_mode3, ..., sattrguard3, eof) that is
 *     not 0 or 1;
 *   - -RPCRDMA_E_ENUM: an ftype3, time_how, createmode3 or stable_how out
 *     of its range;
 *   - -RPCRDMA_E_CHUNK_LEN, -RPCRDMA_E_CHUNK_POS: the DDP-eligible data
 *     disagrees with its chunk, or a chunk lies inside another item
 *     (rpcrdma_xdr_get_ddp()).
 * An nfsstat3 is not checked: any status other than NFS3_OK selects the
 * failure arm, as the unions' default arms say. Every encoder returns 0,
 * -ENOSPC (no room in the buffer), -EINVAL (a field the decoder would
 * refuse: a handle over 64 bytes, a name over 255, an enum out of range),
 * or the errors of rpcrdma_xdr_put_ddp(); the stream is then unchanged.
 *
 * No locks, no allocation, libc only: one lcore owns a stream.
 */
#ifndef RPCRDMA_NFS3_H
#define RPCRDMA_NFS3_H

#include <stdbool.h>
#include <stdint.h>

#include <rpcrdma/rpcrdma_errno.h>
#include <rpcrdma/rpcrdma_xdr.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Program and version (RFC 1813 section 3). */
#define RPCRDMA_NFS3_PROGRAM 100003
#define RPCRDMA_NFS3_VERSION 3

/** Sizes from RFC 1813 section 2.4. */
#define RPCRDMA_NFS3_FHSIZE	    64 /**< nfs_fh3: opaque data<NFS3_FHSIZE> */
#define RPCRDMA_NFS3_COOKIEVERFSIZE 8
#define RPCRDMA_NFS3_CREATEVERFSIZE 8
#define RPCRDMA_NFS3_WRITEVERFSIZE  8
/**
 * Longest filename3 the codec accepts. RFC 1813 leaves string filename3<>
 * unbounded; 255 is NAME_MAX, Linux's NFS3_MAXNAMLEN, and what servers
 * report as PATHCONF name_max.
 */
#define RPCRDMA_NFS3_NAME_MAX 255
/**
 * Longest nfspath3 (a symbolic link's text) the codec accepts: RFC 1813
 * leaves string nfspath3<> unbounded; 4096 is PATH_MAX, Linux's
 * NFS3_MAXPATHLEN.
 */
#define RPCRDMA_NFS3_PATH_MAX 4096

/**
 * Procedure numbers (RFC 1813 section 3.3): all 22; the codec has no
 * functions for MKNOD and LINK (a server that answers them NFS3ERR_NOTSUPP
 * writes the failure arm, a status and empty wcc_data, by hand).
 */
enum rpcrdma_nfs3_proc {
	RPCRDMA_NFS3_NULL = 0,
	RPCRDMA_NFS3_GETATTR = 1,
	RPCRDMA_NFS3_SETATTR = 2,
	RPCRDMA_NFS3_LOOKUP = 3,
	RPCRDMA_NFS3_ACCESS = 4,
	RPCRDMA_NFS3_READLINK = 5,
	RPCRDMA_NFS3_READ = 6,
	RPCRDMA_NFS3_WRITE = 7,
	RPCRDMA_NFS3_CREATE = 8,
	RPCRDMA_NFS3_MKDIR = 9,
	RPCRDMA_NFS3_SYMLINK = 10,
	RPCRDMA_NFS3_MKNOD = 11,
	RPCRDMA_NFS3_REMOVE = 12,
	RPCRDMA_NFS3_RMDIR = 13,
	RPCRDMA_NFS3_RENAME = 14,
	RPCRDMA_NFS3_LINK = 15,
	RPCRDMA_NFS3_READDIR = 16,
	RPCRDMA_NFS3_READDIRPLUS = 17,
	RPCRDMA_NFS3_FSSTAT = 18,
	RPCRDMA_NFS3_FSINFO = 19,
	RPCRDMA_NFS3_PATHCONF = 20,
	RPCRDMA_NFS3_COMMIT = 21,
};

/** enum nfsstat3 (RFC 1813 section 2.6). */
enum rpcrdma_nfs3_stat {
	RPCRDMA_NFS3_OK = 0,
	RPCRDMA_NFS3ERR_PERM = 1,
	RPCRDMA_NFS3ERR_NOENT = 2,
	RPCRDMA_NFS3ERR_IO = 5,
	RPCRDMA_NFS3ERR_NXIO = 6,
	RPCRDMA_NFS3ERR_ACCES = 13,
	RPCRDMA_NFS3ERR_EXIST = 17,
	RPCRDMA_NFS3ERR_XDEV = 18,
	RPCRDMA_NFS3ERR_NODEV = 19,
	RPCRDMA_NFS3ERR_NOTDIR = 20,
	RPCRDMA_NFS3ERR_ISDIR = 21,
	RPCRDMA_NFS3ERR_INVAL = 22,
	RPCRDMA_NFS3ERR_FBIG = 27,
	RPCRDMA_NFS3ERR_NOSPC = 28,
	RPCRDMA_NFS3ERR_ROFS = 30,
	RPCRDMA_NFS3ERR_MLINK = 31,
	RPCRDMA_NFS3ERR_NAMETOOLONG = 63,
	RPCRDMA_NFS3ERR_NOTEMPTY = 66,
	RPCRDMA_NFS3ERR_DQUOT = 69,
	RPCRDMA_NFS3ERR_STALE = 70,
	RPCRDMA_NFS3ERR_REMOTE = 71,
	RPCRDMA_NFS3ERR_BADHANDLE = 10001,
	RPCRDMA_NFS3ERR_NOT_SYNC = 10002,
	RPCRDMA_NFS3ERR_BAD_COOKIE = 10003,
	RPCRDMA_NFS3ERR_NOTSUPP = 10004,
	RPCRDMA_NFS3ERR_TOOSMALL = 10005,
	RPCRDMA_NFS3ERR_SERVERFAULT = 10006,
	RPCRDMA_NFS3ERR_BADTYPE = 10007,
	RPCRDMA_NFS3ERR_JUKEBOX = 10008,
};

/** enum ftype3. */
enum rpcrdma_nfs3_ftype {
	RPCRDMA_NFS3_REG = 1,
	RPCRDMA_NFS3_DIR = 2,
	RPCRDMA_NFS3_BLK = 3,
	RPCRDMA_NFS3_CHR = 4,
	RPCRDMA_NFS3_LNK = 5,
	RPCRDMA_NFS3_SOCK = 6,
	RPCRDMA_NFS3_FIFO = 7,
};

/** enum time_how (sattr3's set_atime and set_mtime). */
enum rpcrdma_nfs3_time_how {
	RPCRDMA_NFS3_DONT_CHANGE = 0,
	RPCRDMA_NFS3_SET_TO_SERVER_TIME = 1,
	RPCRDMA_NFS3_SET_TO_CLIENT_TIME = 2,
};

/** enum stable_how (WRITE). */
enum rpcrdma_nfs3_stable_how {
	RPCRDMA_NFS3_UNSTABLE = 0,
	RPCRDMA_NFS3_DATA_SYNC = 1,
	RPCRDMA_NFS3_FILE_SYNC = 2,
};

/** enum createmode3 (CREATE). */
enum rpcrdma_nfs3_createmode {
	RPCRDMA_NFS3_UNCHECKED = 0,
	RPCRDMA_NFS3_GUARDED = 1,
	RPCRDMA_NFS3_EXCLUSIVE = 2,
};

/** ACCESS bits (RFC 1813 section 3.3.4). */
#define RPCRDMA_NFS3_ACCESS_READ    0x0001
#define RPCRDMA_NFS3_ACCESS_LOOKUP  0x0002
#define RPCRDMA_NFS3_ACCESS_MODIFY  0x0004
#define RPCRDMA_NFS3_ACCESS_EXTEND  0x0008
#define RPCRDMA_NFS3_ACCESS_DELETE  0x0010
#define RPCRDMA_NFS3_ACCESS_EXECUTE 0x0020

/** FSINFO properties (RFC 1813 section 3.3.19). */
#define RPCRDMA_NFS3_FSF_LINK	     0x0001
#define RPCRDMA_NFS3_FSF_SYMLINK     0x0002
#define RPCRDMA_NFS3_FSF_HOMOGENEOUS 0x0008
#define RPCRDMA_NFS3_FSF_CANSETTIME  0x0010

/* ------------------------------------------------------------ basic types */

/** nfs_fh3: opaque data<NFS3_FHSIZE>, in place (decode) or the caller's (encode). */
struct rpcrdma_nfs3_fh {
	const uint8_t *data; /**< len bytes; may be NULL when len is 0 */
	uint32_t len;	     /**< at most RPCRDMA_NFS3_FHSIZE */
};

/** nfstime3. */
struct rpcrdma_nfs3_time {
	uint32_t seconds;
	uint32_t nseconds;
};

/** fattr3: 84 bytes on the wire. */
struct rpcrdma_nfs3_fattr {
	uint32_t type; /**< enum rpcrdma_nfs3_ftype */
	uint32_t mode;
	uint32_t nlink;
	uint32_t uid;
	uint32_t gid;
	uint64_t size;
	uint64_t used;
	uint32_t rdev_major; /**< specdata3 specdata1 */
	uint32_t rdev_minor; /**< specdata3 specdata2 */
	uint64_t fsid;
	uint64_t fileid;
	struct rpcrdma_nfs3_time atime;
	struct rpcrdma_nfs3_time mtime;
	struct rpcrdma_nfs3_time ctime;
};

/** post_op_attr: attributes_follow and, when true, the attributes. */
struct rpcrdma_nfs3_post_attr {
	bool present;
	struct rpcrdma_nfs3_fattr attr;
};

/** wcc_attr: 24 bytes on the wire. */
struct rpcrdma_nfs3_wcc_attr {
	uint64_t size;
	struct rpcrdma_nfs3_time mtime;
	struct rpcrdma_nfs3_time ctime;
};

/** wcc_data: pre_op_attr before, post_op_attr after. */
struct rpcrdma_nfs3_wcc {
	bool before_present;
	struct rpcrdma_nfs3_wcc_attr before;
	struct rpcrdma_nfs3_post_attr after;
};

/** post_op_fh3: handle_follows and, when true, the handle. */
struct rpcrdma_nfs3_post_fh {
	bool present;
	struct rpcrdma_nfs3_fh fh;
};

/** sattr3: each attribute set or left alone. */
struct rpcrdma_nfs3_sattr {
	bool set_mode, set_uid, set_gid, set_size;
	uint32_t mode;
	uint32_t uid;
	uint32_t gid;
	uint64_t size;
	uint32_t set_atime; /**< enum rpcrdma_nfs3_time_how; atime for SET_TO_CLIENT_TIME */
	uint32_t set_mtime; /**< likewise for mtime */
	struct rpcrdma_nfs3_time atime;
	struct rpcrdma_nfs3_time mtime;
};

/** diropargs3: a directory and a name in it (not NUL-terminated; in place). */
struct rpcrdma_nfs3_diropargs {
	struct rpcrdma_nfs3_fh dir;
	const char *name;  /**< name_len bytes; may be NULL when name_len is 0 */
	uint32_t name_len; /**< at most RPCRDMA_NFS3_NAME_MAX */
};

/* ------------------------------------------------- arguments and results */

/*
 * Each result struct holds the union's discriminant (status) and both arms
 * side by side: the fields marked "OK" are encoded and decoded only when
 * status is RPCRDMA_NFS3_OK, the others in both arms unless marked "fail".
 */

/** GETATTR3args. */
struct rpcrdma_nfs3_getattr_args {
	struct rpcrdma_nfs3_fh object;
};

/** GETATTR3res: nothing follows a failure. */
struct rpcrdma_nfs3_getattr_res {
	uint32_t status;
	struct rpcrdma_nfs3_fattr attr; /**< OK: obj_attributes */
};

/** LOOKUP3args. */
struct rpcrdma_nfs3_lookup_args {
	struct rpcrdma_nfs3_diropargs what;
};

/** LOOKUP3res. */
struct rpcrdma_nfs3_lookup_res {
	uint32_t status;
	struct rpcrdma_nfs3_fh object;		/**< OK */
	struct rpcrdma_nfs3_post_attr obj_attr; /**< OK */
	struct rpcrdma_nfs3_post_attr dir_attr; /**< both arms */
};

/** ACCESS3args. */
struct rpcrdma_nfs3_access_args {
	struct rpcrdma_nfs3_fh object;
	uint32_t access; /**< RPCRDMA_NFS3_ACCESS_* bits */
};

/** ACCESS3res. */
struct rpcrdma_nfs3_access_res {
	uint32_t status;
	struct rpcrdma_nfs3_post_attr obj_attr;
	uint32_t access; /**< OK */
};

/** READ3args. */
struct rpcrdma_nfs3_read_args {
	struct rpcrdma_nfs3_fh file;
	uint64_t offset;
	uint32_t count;
};

/**
 * READ3res. data is DDP-eligible. Encode: the registered memory that holds
 * the bytes (data.len of them), recorded with rpcrdma_xdr_put_ddp(), not
 * copied. Decode: data.addr is where the bytes landed (inline, or the write
 * chunk the requester provided), data.len their count, keys 0; not to be
 * written through. count is the server's count3, which RFC 1813 makes
 * equal to data.len; the codec carries both as they are.
 */
struct rpcrdma_nfs3_read_res {
	uint32_t status;
	struct rpcrdma_nfs3_post_attr file_attr;
	uint32_t count;			/**< OK */
	bool eof;			/**< OK */
	struct rpcrdma_xdr_region data; /**< OK: opaque data<> */
};

/** WRITE3args. data is DDP-eligible, as READ3res's (encode and decode alike). */
struct rpcrdma_nfs3_write_args {
	struct rpcrdma_nfs3_fh file;
	uint64_t offset;
	uint32_t count;
	uint32_t stable; /**< enum rpcrdma_nfs3_stable_how */
	struct rpcrdma_xdr_region data;
};

/** WRITE3res. */
struct rpcrdma_nfs3_write_res {
	uint32_t status;
	struct rpcrdma_nfs3_wcc file_wcc;
	uint32_t count;				  /**< OK */
	uint32_t committed;			  /**< OK: enum rpcrdma_nfs3_stable_how */
	uint8_t verf[RPCRDMA_NFS3_WRITEVERFSIZE]; /**< OK */
};

/** CREATE3args: where, then createhow3. */
struct rpcrdma_nfs3_create_args {
	struct rpcrdma_nfs3_diropargs where;
	uint32_t mode;				   /**< enum rpcrdma_nfs3_createmode */
	struct rpcrdma_nfs3_sattr attr;		   /**< UNCHECKED, GUARDED: obj_attributes */
	uint8_t verf[RPCRDMA_NFS3_CREATEVERFSIZE]; /**< EXCLUSIVE */
};

/** CREATE3res. */
struct rpcrdma_nfs3_create_res {
	uint32_t status;
	struct rpcrdma_nfs3_post_fh obj;	/**< OK */
	struct rpcrdma_nfs3_post_attr obj_attr; /**< OK */
	struct rpcrdma_nfs3_wcc dir_wcc;	/**< both arms */
};

/** REMOVE3args. */
struct rpcrdma_nfs3_remove_args {
	struct rpcrdma_nfs3_diropargs object;
};

/** REMOVE3res: the same dir_wcc in both arms. */
struct rpcrdma_nfs3_remove_res {
	uint32_t status;
	struct rpcrdma_nfs3_wcc dir_wcc;
};

/** COMMIT3args. */
struct rpcrdma_nfs3_commit_args {
	struct rpcrdma_nfs3_fh file;
	uint64_t offset;
	uint32_t count;
};

/** COMMIT3res. */
struct rpcrdma_nfs3_commit_res {
	uint32_t status;
	struct rpcrdma_nfs3_wcc file_wcc;
	uint8_t verf[RPCRDMA_NFS3_WRITEVERFSIZE]; /**< OK */
};

/** SETATTR3args: the object, the attributes to set, and sattrguard3. */
struct rpcrdma_nfs3_setattr_args {
	struct rpcrdma_nfs3_fh object;
	struct rpcrdma_nfs3_sattr new_attr;
	bool guard_check;		      /**< sattrguard3's check */
	struct rpcrdma_nfs3_time guard_ctime; /**< when guard_check: obj_ctime */
};

/** SETATTR3res and RMDIR3res' twin: a status and one wcc_data in both arms. */
struct rpcrdma_nfs3_wcc_res {
	uint32_t status;
	struct rpcrdma_nfs3_wcc wcc; /**< SETATTR: obj_wcc */
};

/** READLINK3args: one handle, in struct rpcrdma_nfs3_fh_args. READLINK3res: */
struct rpcrdma_nfs3_readlink_res {
	uint32_t status;
	struct rpcrdma_nfs3_post_attr symlink_attr;
	const char *data;  /**< OK: nfspath3, data_len bytes, not NUL-terminated; in place */
	uint32_t data_len; /**< OK: at most RPCRDMA_NFS3_PATH_MAX */
};

/** MKDIR3args. MKDIR3res is CREATE3res on the wire: struct rpcrdma_nfs3_create_res. */
struct rpcrdma_nfs3_mkdir_args {
	struct rpcrdma_nfs3_diropargs where;
	struct rpcrdma_nfs3_sattr attr;
};

/** SYMLINK3args: where, then symlinkdata3. SYMLINK3res is CREATE3res on the wire. */
struct rpcrdma_nfs3_symlink_args {
	struct rpcrdma_nfs3_diropargs where;
	struct rpcrdma_nfs3_sattr attr;
	const char *data;  /**< nfspath3: the link's text, data_len bytes; in place */
	uint32_t data_len; /**< at most RPCRDMA_NFS3_PATH_MAX */
};

/** RENAME3args. */
struct rpcrdma_nfs3_rename_args {
	struct rpcrdma_nfs3_diropargs from;
	struct rpcrdma_nfs3_diropargs to;
};

/** RENAME3res: two wcc_data in both arms. */
struct rpcrdma_nfs3_rename_res {
	uint32_t status;
	struct rpcrdma_nfs3_wcc fromdir_wcc;
	struct rpcrdma_nfs3_wcc todir_wcc;
};

/** READDIR3args. */
struct rpcrdma_nfs3_readdir_args {
	struct rpcrdma_nfs3_fh dir;
	uint64_t cookie;
	uint8_t cookieverf[RPCRDMA_NFS3_COOKIEVERFSIZE];
	uint32_t count; /**< bytes of READDIR3resok, XDR overhead included */
};

/** FSSTAT3args, FSINFO3args and PATHCONF3args: one handle. */
struct rpcrdma_nfs3_fh_args {
	struct rpcrdma_nfs3_fh object; /**< fsroot (FSSTAT, FSINFO) or object (PATHCONF) */
};

/** FSSTAT3res. */
struct rpcrdma_nfs3_fsstat_res {
	uint32_t status;
	struct rpcrdma_nfs3_post_attr obj_attr;
	/* OK: */
	uint64_t tbytes, fbytes, abytes;
	uint64_t tfiles, ffiles, afiles;
	uint32_t invarsec;
};

/** FSINFO3res. */
struct rpcrdma_nfs3_fsinfo_res {
	uint32_t status;
	struct rpcrdma_nfs3_post_attr obj_attr;
	/* OK: */
	uint32_t rtmax, rtpref, rtmult;
	uint32_t wtmax, wtpref, wtmult;
	uint32_t dtpref;
	uint64_t maxfilesize;
	struct rpcrdma_nfs3_time time_delta;
	uint32_t properties; /**< RPCRDMA_NFS3_FSF_* bits */
};

/** PATHCONF3res. */
struct rpcrdma_nfs3_pathconf_res {
	uint32_t status;
	struct rpcrdma_nfs3_post_attr obj_attr;
	/* OK: */
	uint32_t linkmax;
	uint32_t name_max;
	bool no_trunc, chown_restricted, case_insensitive, case_preserving;
};

/** READDIRPLUS3args. */
struct rpcrdma_nfs3_readdirplus_args {
	struct rpcrdma_nfs3_fh dir;
	uint64_t cookie;
	uint8_t cookieverf[RPCRDMA_NFS3_COOKIEVERFSIZE];
	uint32_t dircount; /**< bytes of directory information (fileid, name, cookie) */
	uint32_t maxcount; /**< bytes of READDIRPLUS3resok, XDR overhead included */
};

/**
 * READDIRPLUS3res up to its entries: the status, dir_attributes (both
 * arms) and, when OK, the cookie verifier. The entries and eof follow,
 * written with rpcrdma_nfs3_readdirplus_put() and _end(), read with
 * rpcrdma_nfs3_dec_readdirplus_entry().
 */
struct rpcrdma_nfs3_readdirplus_res {
	uint32_t status;
	struct rpcrdma_nfs3_post_attr dir_attr;
	uint8_t cookieverf[RPCRDMA_NFS3_COOKIEVERFSIZE]; /**< OK */
	/** Decode: the end of the list has been read (OK) or there is none (fail). */
	bool done;
	/** OK: eof, set by decode when done; encode takes it from _end(). */
	bool eof;
};

/** entryplus3, without its nextentry link. */
struct rpcrdma_nfs3_entryplus {
	uint64_t fileid;
	const char *name;  /**< name_len bytes, not NUL-terminated; in place */
	uint32_t name_len; /**< at most RPCRDMA_NFS3_NAME_MAX */
	uint64_t cookie;
	struct rpcrdma_nfs3_post_attr name_attr;
	struct rpcrdma_nfs3_post_fh name_handle;
};

/* ------------------------------------------------------------ the codec */

/*
 * One pair of functions per XDR type: rpcrdma_nfs3_enc_<type>() appends
 * it to an encoding stream, rpcrdma_nfs3_dec_<type>() reads it at the
 * cursor of a decoding stream, with the errors listed at the top of this
 * file. A decoder sets only the fields of the arm it decoded.
 */

/** GETATTR (procedure 1): GETATTR3args, GETATTR3res. */
int rpcrdma_nfs3_enc_getattr_args(struct rpcrdma_xdr_enc *xdr,
				  const struct rpcrdma_nfs3_getattr_args *v);
int rpcrdma_nfs3_dec_getattr_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_getattr_args *v);
int rpcrdma_nfs3_enc_getattr_res(struct rpcrdma_xdr_enc *xdr,
				 const struct rpcrdma_nfs3_getattr_res *v);
int rpcrdma_nfs3_dec_getattr_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_getattr_res *v);
/** LOOKUP (3). */
int rpcrdma_nfs3_enc_lookup_args(struct rpcrdma_xdr_enc *xdr,
				 const struct rpcrdma_nfs3_lookup_args *v);
int rpcrdma_nfs3_dec_lookup_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_lookup_args *v);
int rpcrdma_nfs3_enc_lookup_res(struct rpcrdma_xdr_enc *xdr,
				const struct rpcrdma_nfs3_lookup_res *v);
int rpcrdma_nfs3_dec_lookup_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_lookup_res *v);
/** ACCESS (4). */
int rpcrdma_nfs3_enc_access_args(struct rpcrdma_xdr_enc *xdr,
				 const struct rpcrdma_nfs3_access_args *v);
int rpcrdma_nfs3_dec_access_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_access_args *v);
int rpcrdma_nfs3_enc_access_res(struct rpcrdma_xdr_enc *xdr,
				const struct rpcrdma_nfs3_access_res *v);
int rpcrdma_nfs3_dec_access_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_access_res *v);
/** READ (6): the result's data is DDP-eligible. */
int rpcrdma_nfs3_enc_read_args(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_read_args *v);
int rpcrdma_nfs3_dec_read_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_read_args *v);
int rpcrdma_nfs3_enc_read_res(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_read_res *v);
int rpcrdma_nfs3_dec_read_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_read_res *v);
/** WRITE (7): the argument's data is DDP-eligible. */
int rpcrdma_nfs3_enc_write_args(struct rpcrdma_xdr_enc *xdr,
				const struct rpcrdma_nfs3_write_args *v);
int rpcrdma_nfs3_dec_write_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_write_args *v);
int rpcrdma_nfs3_enc_write_res(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_write_res *v);
int rpcrdma_nfs3_dec_write_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_write_res *v);
/** CREATE (8). */
int rpcrdma_nfs3_enc_create_args(struct rpcrdma_xdr_enc *xdr,
				 const struct rpcrdma_nfs3_create_args *v);
int rpcrdma_nfs3_dec_create_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_create_args *v);
int rpcrdma_nfs3_enc_create_res(struct rpcrdma_xdr_enc *xdr,
				const struct rpcrdma_nfs3_create_res *v);
int rpcrdma_nfs3_dec_create_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_create_res *v);
/** REMOVE (12). */
int rpcrdma_nfs3_enc_remove_args(struct rpcrdma_xdr_enc *xdr,
				 const struct rpcrdma_nfs3_remove_args *v);
int rpcrdma_nfs3_dec_remove_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_remove_args *v);
int rpcrdma_nfs3_enc_remove_res(struct rpcrdma_xdr_enc *xdr,
				const struct rpcrdma_nfs3_remove_res *v);
int rpcrdma_nfs3_dec_remove_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_remove_res *v);
/** READDIRPLUS (17): the arguments; the results below. */
int rpcrdma_nfs3_enc_readdirplus_args(struct rpcrdma_xdr_enc *xdr,
				      const struct rpcrdma_nfs3_readdirplus_args *v);
int rpcrdma_nfs3_dec_readdirplus_args(struct rpcrdma_xdr_dec *dec,
				      struct rpcrdma_nfs3_readdirplus_args *v);
/** FSSTAT (18), FSINFO (19), PATHCONF (20): the arguments. */
int rpcrdma_nfs3_enc_fh_args(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_fh_args *v);
int rpcrdma_nfs3_dec_fh_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_fh_args *v);
int rpcrdma_nfs3_enc_fsstat_res(struct rpcrdma_xdr_enc *xdr,
				const struct rpcrdma_nfs3_fsstat_res *v);
int rpcrdma_nfs3_dec_fsstat_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_fsstat_res *v);
int rpcrdma_nfs3_enc_fsinfo_res(struct rpcrdma_xdr_enc *xdr,
				const struct rpcrdma_nfs3_fsinfo_res *v);
int rpcrdma_nfs3_dec_fsinfo_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_fsinfo_res *v);
int rpcrdma_nfs3_enc_pathconf_res(struct rpcrdma_xdr_enc *xdr,
				  const struct rpcrdma_nfs3_pathconf_res *v);
int rpcrdma_nfs3_dec_pathconf_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_pathconf_res *v);
/** SETATTR (2). */
int rpcrdma_nfs3_enc_setattr_args(struct rpcrdma_xdr_enc *xdr,
				  const struct rpcrdma_nfs3_setattr_args *v);
int rpcrdma_nfs3_dec_setattr_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_setattr_args *v);
/** SETATTR3res, RMDIR3res (as REMOVE3res): st wcc_data. */
int rpcrdma_nfs3_enc_wcc_res(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_nfs3_wcc_res *v);
int rpcrdma_nfs3_dec_wcc_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_wcc_res *v);
/** READLINK (5): the arguments with rpcrdma_nfs3_enc_fh_args(); the results. */
int rpcrdma_nfs3_enc_readlink_res(struct rpcrdma_xdr_enc *xdr,
				  const struct rpcrdma_nfs3_readlink_res *v);
int rpcrdma_nfs3_dec_readlink_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_readlink_res *v);
/** MKDIR (9): the results with rpcrdma_nfs3_enc_create_res(). */
int rpcrdma_nfs3_enc_mkdir_args(struct rpcrdma_xdr_enc *xdr,
				const struct rpcrdma_nfs3_mkdir_args *v);
int rpcrdma_nfs3_dec_mkdir_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_mkdir_args *v);
/** SYMLINK (10): the results with rpcrdma_nfs3_enc_create_res(). */
int rpcrdma_nfs3_enc_symlink_args(struct rpcrdma_xdr_enc *xdr,
				  const struct rpcrdma_nfs3_symlink_args *v);
int rpcrdma_nfs3_dec_symlink_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_symlink_args *v);
/** RMDIR (13): RMDIR3args is REMOVE3args and RMDIR3res REMOVE3res: the REMOVE functions. */
/** RENAME (14). */
int rpcrdma_nfs3_enc_rename_args(struct rpcrdma_xdr_enc *xdr,
				 const struct rpcrdma_nfs3_rename_args *v);
int rpcrdma_nfs3_dec_rename_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_rename_args *v);
int rpcrdma_nfs3_enc_rename_res(struct rpcrdma_xdr_enc *xdr,
				const struct rpcrdma_nfs3_rename_res *v);
int rpcrdma_nfs3_dec_rename_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_rename_res *v);
/** READDIR (16): the arguments; the results below, with READDIRPLUS'. */
int rpcrdma_nfs3_enc_readdir_args(struct rpcrdma_xdr_enc *xdr,
				  const struct rpcrdma_nfs3_readdir_args *v);
int rpcrdma_nfs3_dec_readdir_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_readdir_args *v);
/** COMMIT (21). */
int rpcrdma_nfs3_enc_commit_args(struct rpcrdma_xdr_enc *xdr,
				 const struct rpcrdma_nfs3_commit_args *v);
int rpcrdma_nfs3_dec_commit_args(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_commit_args *v);
int rpcrdma_nfs3_enc_commit_res(struct rpcrdma_xdr_enc *xdr,
				const struct rpcrdma_nfs3_commit_res *v);
int rpcrdma_nfs3_dec_commit_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_nfs3_commit_res *v);

/* --------------------------------------------- READDIRPLUS3res, encoding */

/**
 * An entry-by-entry encoder of a READDIRPLUS3res, the server's side. It
 * keeps the reply within the client's budgets (RFC 1813 section 3.3.17):
 * maxcount bytes of READDIRPLUS3resok (dir_attributes to eof, XDR included)
 * and dircount bytes of directory information, counted as READDIR's entry3
 * of each entry (value_follows, fileid, name and cookie: 24 bytes and the
 * padded name); room for the end of the list is always kept.
 */
struct rpcrdma_nfs3_readdirplus_enc {
	struct rpcrdma_xdr_enc *xdr;
	uint32_t start;	   /**< xdr->len where READDIRPLUS3resok starts */
	uint32_t maxcount; /**< budget of the resok, from the arguments */
	uint32_t dircount; /**< budget of directory information */
	uint32_t dirbytes; /**< directory information so far */
	uint32_t nentries; /**< entries encoded */
};

/**
 * Encode the status, dir_attributes and (OK) the cookie verifier. For a
 * failure that is the whole result; for OK, add entries with
 * rpcrdma_nfs3_readdirplus_put() and finish with rpcrdma_nfs3_readdirplus_end().
 *
 * @return
 *   0; -ENOSPC: no room in the buffer, or (OK) maxcount cannot hold even
 *   the empty list; -EINVAL: bad attributes. The stream is then unchanged.
 */
int rpcrdma_nfs3_readdirplus_begin(struct rpcrdma_nfs3_readdirplus_enc *e,
				   struct rpcrdma_xdr_enc *xdr,
				   const struct rpcrdma_nfs3_readdirplus_res *res,
				   uint32_t dircount, uint32_t maxcount);

/**
 * Add one entry, if it fits both budgets and the buffer with the end of
 * the list after it.
 *
 * @return
 *   0; -ENOSPC: it does not fit (stop here and end the list without eof;
 *   a reply that holds no entry is NFS3ERR_TOOSMALL for the server to
 *   send instead); -EINVAL: a name over RPCRDMA_NFS3_NAME_MAX, a handle
 *   over RPCRDMA_NFS3_FHSIZE, or a bad ftype3. The stream is then unchanged.
 */
int rpcrdma_nfs3_readdirplus_put(struct rpcrdma_nfs3_readdirplus_enc *e,
				 const struct rpcrdma_nfs3_entryplus *ent);

/**
 * End the list: no next entry, then eof.
 *
 * @return
 *   0; cannot fail once _begin() succeeded for OK (the room was kept).
 */
int rpcrdma_nfs3_readdirplus_end(struct rpcrdma_nfs3_readdirplus_enc *e, bool eof);

/* --------------------------------------------- READDIRPLUS3res, decoding */

/**
 * Decode the status, dir_attributes and (OK) the cookie verifier, and
 * leave the stream at the first entry. res->done is set for a failure
 * (there are no entries), cleared for OK.
 */
int rpcrdma_nfs3_dec_readdirplus_res(struct rpcrdma_xdr_dec *dec,
				     struct rpcrdma_nfs3_readdirplus_res *res);

/**
 * Decode the next entry: res and the stream are the cursor.
 *
 * @return
 *   1: *ent holds the next entry (its name and handle in place);
 *   0: the list has ended, res->done and res->eof are set (again 0 on
 *   each further call); or a negative error (as the decoders' above); the
 *   stream and res are then unchanged.
 */
int rpcrdma_nfs3_dec_readdirplus_entry(struct rpcrdma_xdr_dec *dec,
				       struct rpcrdma_nfs3_readdirplus_res *res,
				       struct rpcrdma_nfs3_entryplus *ent);

/* -------------------------------------------------------- READDIR3res */

/*
 * READDIR3res is READDIRPLUS3res without the attributes and handles of
 * the entries, and with one budget: count bytes of READDIR3resok
 * (dir_attributes to eof). Its head (status, dir_attributes, cookieverf)
 * is READDIRPLUS3res' head: the same struct rpcrdma_nfs3_readdirplus_res,
 * decoded with rpcrdma_nfs3_dec_readdirplus_res(); the list is ended with
 * rpcrdma_nfs3_readdirplus_end().
 */

/** entry3, without its nextentry link. */
struct rpcrdma_nfs3_entry {
	uint64_t fileid;
	const char *name;  /**< name_len bytes, not NUL-terminated; in place */
	uint32_t name_len; /**< at most RPCRDMA_NFS3_NAME_MAX */
	uint64_t cookie;
};

/**
 * Encode READDIR3res' head, as rpcrdma_nfs3_readdirplus_begin() with the
 * one budget @p count.
 */
int rpcrdma_nfs3_readdir_begin(struct rpcrdma_nfs3_readdirplus_enc *e, struct rpcrdma_xdr_enc *xdr,
			       const struct rpcrdma_nfs3_readdirplus_res *res, uint32_t count);

/**
 * Add one entry3, if it fits count and the buffer with the end of the
 * list after it.
 *
 * @return
 *   0; -ENOSPC: it does not fit (as rpcrdma_nfs3_readdirplus_put());
 *   -EINVAL: a name over RPCRDMA_NFS3_NAME_MAX. The stream is then unchanged.
 */
int rpcrdma_nfs3_readdir_put(struct rpcrdma_nfs3_readdirplus_enc *e,
			     const struct rpcrdma_nfs3_entry *ent);

/**
 * Decode the next entry3 of a READDIR3res whose head
 * rpcrdma_nfs3_dec_readdirplus_res() decoded.
 *
 * @return
 *   As rpcrdma_nfs3_dec_readdirplus_entry().
 */
int rpcrdma_nfs3_dec_readdir_entry(struct rpcrdma_xdr_dec *dec,
				   struct rpcrdma_nfs3_readdirplus_res *res,
				   struct rpcrdma_nfs3_entry *ent);

/* ------------------------------------------------------------- names */

/**
 * The name of an nfsstat3 as RFC 1813 spells it ("NFS3_OK",
 * "NFS3ERR_NOENT", ...).
 *
 * @return
 *   A static string; "NFS3ERR_UNKNOWN" for a value RFC 1813 does not define.
 */
const char *rpcrdma_nfs3_stat_name(uint32_t stat);

/**
 * The name of an NFSv3 procedure ("NULL", "GETATTR", ..., "COMMIT"; all 22
 * of RFC 1813, also those this codec does not implement).
 *
 * @return
 *   A static string; "UNKNOWN" past COMMIT (21).
 */
const char *rpcrdma_nfs3_proc_name(uint32_t proc);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_NFS3_H */

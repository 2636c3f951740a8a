/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * MOUNT version 3 (RFC 1813 appendix I, program 100005 version 3) on the
 * wire: the arguments and results of MNT and UMNT, both sides, on the XDR
 * streams of rpcrdma_xdr.h, as the NFSv3 codec (rpcrdma_nfs3.h) is. NULL
 * takes and returns nothing; UMNT returns nothing.
 *
 * A client gets an export's root file handle with MNT (usually over TCP
 * from the server's host) and uses it in NFSv3 calls: fhandle3 is the
 * same opaque<64> as nfs_fh3, so the handle is a struct rpcrdma_nfs3_fh.
 *
 * Decoders return 0 or, with the stream unchanged: -RPCRDMA_E_XDR_END (the
 * stream ends before a word), -RPCRDMA_E_OPAQUE (inside the path or the
 * handle), -RPCRDMA_E_OPAQUE_BOUND (a dirpath over MNTPATHLEN bytes, a
 * handle over FHSIZE3), -RPCRDMA_E_ARRAY (more auth flavors than
 * RPCRDMA_MOUNT3_FLAVORS_MAX). A mountstat3 other than MNT3_OK selects the
 * union's void arm whatever its value. Encoders return 0, -ENOSPC or
 * -EINVAL (a field the decoder would refuse), the stream then unchanged.
 */
#ifndef RPCRDMA_MOUNT3_H
#define RPCRDMA_MOUNT3_H

#include <stdint.h>

#include <rpcrdma/rpcrdma_nfs3.h>
#include <rpcrdma/rpcrdma_xdr.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Program and version. */
#define RPCRDMA_MOUNT3_PROGRAM 100005
#define RPCRDMA_MOUNT3_VERSION 3

/** Bounds of RFC 1813 appendix I. */
#define RPCRDMA_MOUNT3_PATHLEN 1024 /**< string dirpath<MNTPATHLEN> */
#define RPCRDMA_MOUNT3_FHSIZE  64   /**< opaque fhandle3<FHSIZE3> */
/**
 * Auth flavors a decoded MNT result holds. int auth_flavors<> is
 * unbounded; servers list a few (Linux: at most 12, NFS_MAX_SECFLAVORS).
 */
#define RPCRDMA_MOUNT3_FLAVORS_MAX 16

/** Procedure numbers. */
enum rpcrdma_mount3_proc {
	RPCRDMA_MOUNT3_NULL = 0,
	RPCRDMA_MOUNT3_MNT = 1,
	RPCRDMA_MOUNT3_UMNT = 3,
};

/** enum mountstat3. */
enum rpcrdma_mount3_stat {
	RPCRDMA_MNT3_OK = 0,
	RPCRDMA_MNT3ERR_PERM = 1,
	RPCRDMA_MNT3ERR_NOENT = 2,
	RPCRDMA_MNT3ERR_IO = 5,
	RPCRDMA_MNT3ERR_ACCES = 13,
	RPCRDMA_MNT3ERR_NOTDIR = 20,
	RPCRDMA_MNT3ERR_INVAL = 22,
	RPCRDMA_MNT3ERR_NAMETOOLONG = 63,
	RPCRDMA_MNT3ERR_NOTSUPP = 10004,
	RPCRDMA_MNT3ERR_SERVERFAULT = 10006,
};

/** dirpath: the argument of MNT and UMNT (not NUL-terminated; in place). */
struct rpcrdma_mount3_dirpath {
	const char *path; /**< len bytes; may be NULL when len is 0 */
	uint32_t len;	  /**< at most RPCRDMA_MOUNT3_PATHLEN */
};

/** mountres3: the result of MNT. */
struct rpcrdma_mount3_mnt_res {
	uint32_t status;	   /**< enum rpcrdma_mount3_stat */
	struct rpcrdma_nfs3_fh fh; /**< MNT3_OK: fhandle, in place */
	uint32_t nflavors;	   /**< MNT3_OK: at most RPCRDMA_MOUNT3_FLAVORS_MAX */
	uint32_t flavors
		[RPCRDMA_MOUNT3_FLAVORS_MAX]; /**< MNT3_OK: auth_flavors (AUTH_SYS = 1, ...) */
};

/** Encode a dirpath: the argument of MNT and UMNT. */
int rpcrdma_mount3_enc_dirpath(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_mount3_dirpath *v);
/** Decode a dirpath. */
int rpcrdma_mount3_dec_dirpath(struct rpcrdma_xdr_dec *dec, struct rpcrdma_mount3_dirpath *v);
/** Encode mountres3. */
int rpcrdma_mount3_enc_mnt_res(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_mount3_mnt_res *v);
/** Decode mountres3. */
int rpcrdma_mount3_dec_mnt_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_mount3_mnt_res *v);

/**
 * The name of a mountstat3 as RFC 1813 spells it ("MNT3_OK",
 * "MNT3ERR_ACCES", ...).
 *
 * @return
 *   A static string; "MNT3ERR_UNKNOWN" for a value RFC 1813 does not define.
 */
const char *rpcrdma_mount3_stat_name(uint32_t stat);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_MOUNT3_H */

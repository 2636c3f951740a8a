/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MOUNT version 3 (RFC 1813 appendix I, sections 5.1 and 5.2): the
 * argument of MNT and UMNT and the result of MNT, one function per XDR
 * rule, each letter of a grammar comment one XDR word.
 */
#include <errno.h>
#include <stddef.h>

#include <rpcrdma/rpcrdma_mount3.h>

#include "nfs3_xdr.h"

/* dirpath: N - string<MNTPATHLEN> */
static int get_dirpath(struct rpcrdma_xdr_dec *dec, struct rpcrdma_mount3_dirpath *v)
{
	const void *p;
	int ret;

	ret = rpcrdma_xdr_get_opaque(dec, RPCRDMA_MOUNT3_PATHLEN, &p, &v->len);
	if (unlikely(ret))
		return ret;
	v->path = p;
	return 0;
}

static int put_dirpath(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_mount3_dirpath *v)
{
	if (unlikely(v->len > RPCRDMA_MOUNT3_PATHLEN || (v->len && !v->path)))
		return -EINVAL;
	return rpcrdma_xdr_put_string(xdr, v->path, v->len);
}

/*
 * mountres3: st [N - fhandle3<FHSIZE3>  N - flavor ...]
 * (fhandle3 is nfs_fh3's opaque<64>; auth_flavors an int<>.)
 */
static int get_mnt_res(struct rpcrdma_xdr_dec *dec, struct rpcrdma_mount3_mnt_res *v)
{
	uint32_t i;
	int ret;

	ret = rpcrdma_xdr_get_u32(dec, &v->status);
	if (unlikely(ret) || v->status != RPCRDMA_MNT3_OK)
		return ret;
	ret = nfs3_get_fh(dec, &v->fh);
	if (likely(!ret))
		ret = rpcrdma_xdr_get_u32(dec, &v->nflavors);
	if (unlikely(ret))
		return ret;
	if (unlikely(v->nflavors > RPCRDMA_MOUNT3_FLAVORS_MAX))
		return -RPCRDMA_E_ARRAY;
	for (i = 0; i < v->nflavors; i++) {
		ret = rpcrdma_xdr_get_u32(dec, &v->flavors[i]);
		if (unlikely(ret))
			return ret;
	}
	return 0;
}

static int put_mnt_res(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_mount3_mnt_res *v)
{
	uint32_t i;
	int ret;

	ret = rpcrdma_xdr_put_u32(xdr, v->status);
	if (unlikely(ret) || v->status != RPCRDMA_MNT3_OK)
		return ret;
	if (unlikely(v->nflavors > RPCRDMA_MOUNT3_FLAVORS_MAX))
		return -EINVAL;
	ret = nfs3_put_fh(xdr, &v->fh);
	if (likely(!ret))
		ret = rpcrdma_xdr_put_u32(xdr, v->nflavors);
	for (i = 0; !ret && i < v->nflavors; i++)
		ret = rpcrdma_xdr_put_u32(xdr, v->flavors[i]);
	return ret;
}

NFS3_DEC_FN(rpcrdma_mount3, dirpath, rpcrdma_mount3_dirpath)
NFS3_ENC_FN(rpcrdma_mount3, dirpath, rpcrdma_mount3_dirpath)
NFS3_DEC_FN(rpcrdma_mount3, mnt_res, rpcrdma_mount3_mnt_res)
NFS3_ENC_FN(rpcrdma_mount3, mnt_res, rpcrdma_mount3_mnt_res)

const char *rpcrdma_mount3_stat_name(uint32_t stat)
{
	switch (stat) {
	case RPCRDMA_MNT3_OK:
		return "MNT3_OK";
	case RPCRDMA_MNT3ERR_PERM:
		return "MNT3ERR_PERM";
	case RPCRDMA_MNT3ERR_NOENT:
		return "MNT3ERR_NOENT";
	case RPCRDMA_MNT3ERR_IO:
		return "MNT3ERR_IO";
	case RPCRDMA_MNT3ERR_ACCES:
		return "MNT3ERR_ACCES";
	case RPCRDMA_MNT3ERR_NOTDIR:
		return "MNT3ERR_NOTDIR";
	case RPCRDMA_MNT3ERR_INVAL:
		return "MNT3ERR_INVAL";
	case RPCRDMA_MNT3ERR_NAMETOOLONG:
		return "MNT3ERR_NAMETOOLONG";
	case RPCRDMA_MNT3ERR_NOTSUPP:
		return "MNT3ERR_NOTSUPP";
	case RPCRDMA_MNT3ERR_SERVERFAULT:
		return "MNT3ERR_SERVERFAULT";
	default:
		return "MNT3ERR_UNKNOWN";
	}
}

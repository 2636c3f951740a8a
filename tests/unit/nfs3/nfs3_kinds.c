/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The table of nfs3_kinds.h: each codec function behind a void * wrapper.
 */
#include <string.h>

#include "nfs3_kinds.h"

/* READDIRPLUS3res whole: begin, every entry, end, with no budget. */
static int rdp_enc(struct rpcrdma_xdr_enc *xdr, const struct nfs3_rdp *v)
{
	struct rpcrdma_nfs3_readdirplus_enc e;
	uint32_t len = xdr->len, pos = xdr->pos;
	uint32_t i;
	int ret;

	ret = rpcrdma_nfs3_readdirplus_begin(&e, xdr, &v->res, UINT32_MAX, UINT32_MAX);
	if (ret || v->res.status != RPCRDMA_NFS3_OK)
		return ret;
	for (i = 0; i < v->n && !ret; i++)
		ret = rpcrdma_nfs3_readdirplus_put(&e, &v->ent[i]);
	if (!ret)
		ret = rpcrdma_nfs3_readdirplus_end(&e, v->res.eof);
	if (ret) {
		xdr->len = len;
		xdr->pos = pos;
	}
	return ret;
}

/* READDIRPLUS3res whole: the head, then entries until the end; all or nothing. */
static int rdp_dec(struct rpcrdma_xdr_dec *dec, struct nfs3_rdp *v)
{
	uint16_t cur = dec->cur, wnext = dec->wnext;
	uint32_t off = dec->off;
	int ret;

	v->n = 0;
	ret = rpcrdma_nfs3_dec_readdirplus_res(dec, &v->res);
	while (ret == 0 && !v->res.done) {
		if (v->n == NFS3_RDP_MAX) {
			struct rpcrdma_nfs3_entryplus spare;

			/* full: the end of the list may still follow */
			ret = rpcrdma_nfs3_dec_readdirplus_entry(dec, &v->res, &spare);
			if (ret == 1)
				ret = -RPCRDMA_E_ARRAY; /* this wrapper's capacity */
			break;
		}
		ret = rpcrdma_nfs3_dec_readdirplus_entry(dec, &v->res, &v->ent[v->n]);
		if (ret == 1) {
			v->n++;
			ret = 0;
		}
	}
	if (ret < 0) {
		dec->cur = cur;
		dec->wnext = wnext;
		dec->off = off;
	}
	return ret;
}

/* READDIR3res whole, as rdp_enc() and rdp_dec(). */
static int rd_enc(struct rpcrdma_xdr_enc *xdr, const struct nfs3_rd *v)
{
	struct rpcrdma_nfs3_readdirplus_enc e;
	uint32_t len = xdr->len, pos = xdr->pos;
	uint32_t i;
	int ret;

	ret = rpcrdma_nfs3_readdir_begin(&e, xdr, &v->res, UINT32_MAX);
	if (ret || v->res.status != RPCRDMA_NFS3_OK)
		return ret;
	for (i = 0; i < v->n && !ret; i++)
		ret = rpcrdma_nfs3_readdir_put(&e, &v->ent[i]);
	if (!ret)
		ret = rpcrdma_nfs3_readdirplus_end(&e, v->res.eof);
	if (ret) {
		xdr->len = len;
		xdr->pos = pos;
	}
	return ret;
}

static int rd_dec(struct rpcrdma_xdr_dec *dec, struct nfs3_rd *v)
{
	uint16_t cur = dec->cur, wnext = dec->wnext;
	uint32_t off = dec->off;
	int ret;

	v->n = 0;
	ret = rpcrdma_nfs3_dec_readdirplus_res(dec, &v->res);
	while (ret == 0 && !v->res.done) {
		if (v->n == NFS3_RDP_MAX) {
			struct rpcrdma_nfs3_entry spare;

			/* full: the end of the list may still follow */
			ret = rpcrdma_nfs3_dec_readdir_entry(dec, &v->res, &spare);
			if (ret == 1)
				ret = -RPCRDMA_E_ARRAY; /* this wrapper's capacity */
			break;
		}
		ret = rpcrdma_nfs3_dec_readdir_entry(dec, &v->res, &v->ent[v->n]);
		if (ret == 1) {
			v->n++;
			ret = 0;
		}
	}
	if (ret < 0) {
		dec->cur = cur;
		dec->wnext = wnext;
		dec->off = off;
	}
	return ret;
}

/* A void * wrapper of each codec function. */
#define WRAP(name, type)                                                                 \
	static int w_rpcrdma_nfs3_enc_##name(struct rpcrdma_xdr_enc *xdr, const void *v) \
	{                                                                                \
		return rpcrdma_nfs3_enc_##name(xdr, (const struct type *)v);             \
	}                                                                                \
	static int w_rpcrdma_nfs3_dec_##name(struct rpcrdma_xdr_dec *dec, void *v)       \
	{                                                                                \
		return rpcrdma_nfs3_dec_##name(dec, (struct type *)v);                   \
	}
WRAP(setattr_args, rpcrdma_nfs3_setattr_args)
WRAP(wcc_res, rpcrdma_nfs3_wcc_res)
WRAP(readlink_res, rpcrdma_nfs3_readlink_res)
WRAP(mkdir_args, rpcrdma_nfs3_mkdir_args)
WRAP(symlink_args, rpcrdma_nfs3_symlink_args)
WRAP(rename_args, rpcrdma_nfs3_rename_args)
WRAP(rename_res, rpcrdma_nfs3_rename_res)
WRAP(readdir_args, rpcrdma_nfs3_readdir_args)
#undef WRAP

static int w_rd_enc(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rd_enc(xdr, v);
}

static int w_rd_dec(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rd_dec(dec, v);
}

static int w_rpcrdma_nfs3_enc_getattr_args(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_getattr_args(xdr, v);
}

static int w_rpcrdma_nfs3_dec_getattr_args(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_getattr_args(dec, v);
}

static int w_rpcrdma_nfs3_enc_getattr_res(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_getattr_res(xdr, v);
}

static int w_rpcrdma_nfs3_dec_getattr_res(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_getattr_res(dec, v);
}

static int w_rpcrdma_nfs3_enc_lookup_args(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_lookup_args(xdr, v);
}

static int w_rpcrdma_nfs3_dec_lookup_args(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_lookup_args(dec, v);
}

static int w_rpcrdma_nfs3_enc_lookup_res(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_lookup_res(xdr, v);
}

static int w_rpcrdma_nfs3_dec_lookup_res(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_lookup_res(dec, v);
}

static int w_rpcrdma_nfs3_enc_access_args(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_access_args(xdr, v);
}

static int w_rpcrdma_nfs3_dec_access_args(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_access_args(dec, v);
}

static int w_rpcrdma_nfs3_enc_access_res(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_access_res(xdr, v);
}

static int w_rpcrdma_nfs3_dec_access_res(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_access_res(dec, v);
}

static int w_rpcrdma_nfs3_enc_read_args(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_read_args(xdr, v);
}

static int w_rpcrdma_nfs3_dec_read_args(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_read_args(dec, v);
}

static int w_rpcrdma_nfs3_enc_read_res(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_read_res(xdr, v);
}

static int w_rpcrdma_nfs3_dec_read_res(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_read_res(dec, v);
}

static int w_rpcrdma_nfs3_enc_write_args(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_write_args(xdr, v);
}

static int w_rpcrdma_nfs3_dec_write_args(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_write_args(dec, v);
}

static int w_rpcrdma_nfs3_enc_write_res(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_write_res(xdr, v);
}

static int w_rpcrdma_nfs3_dec_write_res(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_write_res(dec, v);
}

static int w_rpcrdma_nfs3_enc_create_args(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_create_args(xdr, v);
}

static int w_rpcrdma_nfs3_dec_create_args(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_create_args(dec, v);
}

static int w_rpcrdma_nfs3_enc_create_res(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_create_res(xdr, v);
}

static int w_rpcrdma_nfs3_dec_create_res(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_create_res(dec, v);
}

static int w_rpcrdma_nfs3_enc_remove_args(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_remove_args(xdr, v);
}

static int w_rpcrdma_nfs3_dec_remove_args(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_remove_args(dec, v);
}

static int w_rpcrdma_nfs3_enc_remove_res(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_remove_res(xdr, v);
}

static int w_rpcrdma_nfs3_dec_remove_res(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_remove_res(dec, v);
}

static int w_rpcrdma_nfs3_enc_readdirplus_args(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_readdirplus_args(xdr, v);
}

static int w_rpcrdma_nfs3_dec_readdirplus_args(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_readdirplus_args(dec, v);
}

static int w_rdp_enc(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rdp_enc(xdr, v);
}

static int w_rdp_dec(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rdp_dec(dec, v);
}

static int w_rpcrdma_nfs3_enc_fh_args(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_fh_args(xdr, v);
}

static int w_rpcrdma_nfs3_dec_fh_args(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_fh_args(dec, v);
}

static int w_rpcrdma_nfs3_enc_fsstat_res(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_fsstat_res(xdr, v);
}

static int w_rpcrdma_nfs3_dec_fsstat_res(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_fsstat_res(dec, v);
}

static int w_rpcrdma_nfs3_enc_fsinfo_res(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_fsinfo_res(xdr, v);
}

static int w_rpcrdma_nfs3_dec_fsinfo_res(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_fsinfo_res(dec, v);
}

static int w_rpcrdma_nfs3_enc_pathconf_res(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_pathconf_res(xdr, v);
}

static int w_rpcrdma_nfs3_dec_pathconf_res(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_pathconf_res(dec, v);
}

static int w_rpcrdma_nfs3_enc_commit_args(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_commit_args(xdr, v);
}

static int w_rpcrdma_nfs3_dec_commit_args(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_commit_args(dec, v);
}

static int w_rpcrdma_nfs3_enc_commit_res(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_nfs3_enc_commit_res(xdr, v);
}

static int w_rpcrdma_nfs3_dec_commit_res(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_nfs3_dec_commit_res(dec, v);
}

static int w_rpcrdma_mount3_enc_dirpath(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_mount3_enc_dirpath(xdr, v);
}

static int w_rpcrdma_mount3_dec_dirpath(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_mount3_dec_dirpath(dec, v);
}

static int w_rpcrdma_mount3_enc_mnt_res(struct rpcrdma_xdr_enc *xdr, const void *v)
{
	return rpcrdma_mount3_enc_mnt_res(xdr, v);
}

static int w_rpcrdma_mount3_dec_mnt_res(struct rpcrdma_xdr_dec *dec, void *v)
{
	return rpcrdma_mount3_dec_mnt_res(dec, v);
}

#define KIND(n, p, pr, r, type, e, d)                                           \
	{                                                                       \
		.name = n, .prog = RPCRDMA_##p##_PROGRAM, .proc = pr, .res = r, \
		.size = sizeof(struct type), .enc = w_##e, .dec = w_##d         \
	}

const struct nfs3_kind nfs3_kinds[] = {
	KIND("GETATTR3args", NFS3, 1, false, rpcrdma_nfs3_getattr_args,
	     rpcrdma_nfs3_enc_getattr_args, rpcrdma_nfs3_dec_getattr_args),
	KIND("GETATTR3res", NFS3, 1, true, rpcrdma_nfs3_getattr_res, rpcrdma_nfs3_enc_getattr_res,
	     rpcrdma_nfs3_dec_getattr_res),
	KIND("LOOKUP3args", NFS3, 3, false, rpcrdma_nfs3_lookup_args, rpcrdma_nfs3_enc_lookup_args,
	     rpcrdma_nfs3_dec_lookup_args),
	KIND("LOOKUP3res", NFS3, 3, true, rpcrdma_nfs3_lookup_res, rpcrdma_nfs3_enc_lookup_res,
	     rpcrdma_nfs3_dec_lookup_res),
	KIND("ACCESS3args", NFS3, 4, false, rpcrdma_nfs3_access_args, rpcrdma_nfs3_enc_access_args,
	     rpcrdma_nfs3_dec_access_args),
	KIND("ACCESS3res", NFS3, 4, true, rpcrdma_nfs3_access_res, rpcrdma_nfs3_enc_access_res,
	     rpcrdma_nfs3_dec_access_res),
	KIND("READ3args", NFS3, 6, false, rpcrdma_nfs3_read_args, rpcrdma_nfs3_enc_read_args,
	     rpcrdma_nfs3_dec_read_args),
	KIND("READ3res", NFS3, 6, true, rpcrdma_nfs3_read_res, rpcrdma_nfs3_enc_read_res,
	     rpcrdma_nfs3_dec_read_res),
	KIND("WRITE3args", NFS3, 7, false, rpcrdma_nfs3_write_args, rpcrdma_nfs3_enc_write_args,
	     rpcrdma_nfs3_dec_write_args),
	KIND("WRITE3res", NFS3, 7, true, rpcrdma_nfs3_write_res, rpcrdma_nfs3_enc_write_res,
	     rpcrdma_nfs3_dec_write_res),
	KIND("CREATE3args", NFS3, 8, false, rpcrdma_nfs3_create_args, rpcrdma_nfs3_enc_create_args,
	     rpcrdma_nfs3_dec_create_args),
	KIND("CREATE3res", NFS3, 8, true, rpcrdma_nfs3_create_res, rpcrdma_nfs3_enc_create_res,
	     rpcrdma_nfs3_dec_create_res),
	KIND("REMOVE3args", NFS3, 12, false, rpcrdma_nfs3_remove_args, rpcrdma_nfs3_enc_remove_args,
	     rpcrdma_nfs3_dec_remove_args),
	KIND("REMOVE3res", NFS3, 12, true, rpcrdma_nfs3_remove_res, rpcrdma_nfs3_enc_remove_res,
	     rpcrdma_nfs3_dec_remove_res),
	KIND("READDIRPLUS3args", NFS3, 17, false, rpcrdma_nfs3_readdirplus_args,
	     rpcrdma_nfs3_enc_readdirplus_args, rpcrdma_nfs3_dec_readdirplus_args),
	KIND("READDIRPLUS3res", NFS3, 17, true, nfs3_rdp, rdp_enc, rdp_dec),
	KIND("FSSTAT3args", NFS3, 18, false, rpcrdma_nfs3_fh_args, rpcrdma_nfs3_enc_fh_args,
	     rpcrdma_nfs3_dec_fh_args),
	KIND("FSSTAT3res", NFS3, 18, true, rpcrdma_nfs3_fsstat_res, rpcrdma_nfs3_enc_fsstat_res,
	     rpcrdma_nfs3_dec_fsstat_res),
	KIND("FSINFO3args", NFS3, 19, false, rpcrdma_nfs3_fh_args, rpcrdma_nfs3_enc_fh_args,
	     rpcrdma_nfs3_dec_fh_args),
	KIND("FSINFO3res", NFS3, 19, true, rpcrdma_nfs3_fsinfo_res, rpcrdma_nfs3_enc_fsinfo_res,
	     rpcrdma_nfs3_dec_fsinfo_res),
	KIND("PATHCONF3args", NFS3, 20, false, rpcrdma_nfs3_fh_args, rpcrdma_nfs3_enc_fh_args,
	     rpcrdma_nfs3_dec_fh_args),
	KIND("PATHCONF3res", NFS3, 20, true, rpcrdma_nfs3_pathconf_res,
	     rpcrdma_nfs3_enc_pathconf_res, rpcrdma_nfs3_dec_pathconf_res),
	KIND("COMMIT3args", NFS3, 21, false, rpcrdma_nfs3_commit_args, rpcrdma_nfs3_enc_commit_args,
	     rpcrdma_nfs3_dec_commit_args),
	KIND("COMMIT3res", NFS3, 21, true, rpcrdma_nfs3_commit_res, rpcrdma_nfs3_enc_commit_res,
	     rpcrdma_nfs3_dec_commit_res),
	KIND("MNT3args", MOUNT3, 1, false, rpcrdma_mount3_dirpath, rpcrdma_mount3_enc_dirpath,
	     rpcrdma_mount3_dec_dirpath),
	KIND("mountres3", MOUNT3, 1, true, rpcrdma_mount3_mnt_res, rpcrdma_mount3_enc_mnt_res,
	     rpcrdma_mount3_dec_mnt_res),
	KIND("UMNT3args", MOUNT3, 3, false, rpcrdma_mount3_dirpath, rpcrdma_mount3_enc_dirpath,
	     rpcrdma_mount3_dec_dirpath),
	KIND("SETATTR3args", NFS3, 2, false, rpcrdma_nfs3_setattr_args,
	     rpcrdma_nfs3_enc_setattr_args, rpcrdma_nfs3_dec_setattr_args),
	KIND("SETATTR3res", NFS3, 2, true, rpcrdma_nfs3_wcc_res, rpcrdma_nfs3_enc_wcc_res,
	     rpcrdma_nfs3_dec_wcc_res),
	KIND("READLINK3args", NFS3, 5, false, rpcrdma_nfs3_fh_args, rpcrdma_nfs3_enc_fh_args,
	     rpcrdma_nfs3_dec_fh_args),
	KIND("READLINK3res", NFS3, 5, true, rpcrdma_nfs3_readlink_res,
	     rpcrdma_nfs3_enc_readlink_res, rpcrdma_nfs3_dec_readlink_res),
	KIND("MKDIR3args", NFS3, 9, false, rpcrdma_nfs3_mkdir_args, rpcrdma_nfs3_enc_mkdir_args,
	     rpcrdma_nfs3_dec_mkdir_args),
	KIND("MKDIR3res", NFS3, 9, true, rpcrdma_nfs3_create_res, rpcrdma_nfs3_enc_create_res,
	     rpcrdma_nfs3_dec_create_res),
	KIND("SYMLINK3args", NFS3, 10, false, rpcrdma_nfs3_symlink_args,
	     rpcrdma_nfs3_enc_symlink_args, rpcrdma_nfs3_dec_symlink_args),
	KIND("SYMLINK3res", NFS3, 10, true, rpcrdma_nfs3_create_res, rpcrdma_nfs3_enc_create_res,
	     rpcrdma_nfs3_dec_create_res),
	KIND("RMDIR3args", NFS3, 13, false, rpcrdma_nfs3_remove_args, rpcrdma_nfs3_enc_remove_args,
	     rpcrdma_nfs3_dec_remove_args),
	KIND("RMDIR3res", NFS3, 13, true, rpcrdma_nfs3_remove_res, rpcrdma_nfs3_enc_remove_res,
	     rpcrdma_nfs3_dec_remove_res),
	KIND("RENAME3args", NFS3, 14, false, rpcrdma_nfs3_rename_args, rpcrdma_nfs3_enc_rename_args,
	     rpcrdma_nfs3_dec_rename_args),
	KIND("RENAME3res", NFS3, 14, true, rpcrdma_nfs3_rename_res, rpcrdma_nfs3_enc_rename_res,
	     rpcrdma_nfs3_dec_rename_res),
	KIND("READDIR3args", NFS3, 16, false, rpcrdma_nfs3_readdir_args,
	     rpcrdma_nfs3_enc_readdir_args, rpcrdma_nfs3_dec_readdir_args),
	KIND("READDIR3res", NFS3, 16, true, nfs3_rd, rd_enc, rd_dec),
};

const unsigned int nfs3_nkinds = sizeof(nfs3_kinds) / sizeof(nfs3_kinds[0]);

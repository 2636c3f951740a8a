/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Names of NFSv3 status codes (RFC 1813 section 2.6) and procedures
 * (section 3), as the RFC spells them, for logs and error reports.
 */
#include <stddef.h>

#include <rpcrdma/rpcrdma_nfs3.h>

const char *rpcrdma_nfs3_stat_name(uint32_t stat)
{
	static const struct {
		uint32_t stat;
		const char *name;
	} tab[] = {
		{ RPCRDMA_NFS3_OK, "NFS3_OK" },
		{ RPCRDMA_NFS3ERR_PERM, "NFS3ERR_PERM" },
		{ RPCRDMA_NFS3ERR_NOENT, "NFS3ERR_NOENT" },
		{ RPCRDMA_NFS3ERR_IO, "NFS3ERR_IO" },
		{ RPCRDMA_NFS3ERR_NXIO, "NFS3ERR_NXIO" },
		{ RPCRDMA_NFS3ERR_ACCES, "NFS3ERR_ACCES" },
		{ RPCRDMA_NFS3ERR_EXIST, "NFS3ERR_EXIST" },
		{ RPCRDMA_NFS3ERR_XDEV, "NFS3ERR_XDEV" },
		{ RPCRDMA_NFS3ERR_NODEV, "NFS3ERR_NODEV" },
		{ RPCRDMA_NFS3ERR_NOTDIR, "NFS3ERR_NOTDIR" },
		{ RPCRDMA_NFS3ERR_ISDIR, "NFS3ERR_ISDIR" },
		{ RPCRDMA_NFS3ERR_INVAL, "NFS3ERR_INVAL" },
		{ RPCRDMA_NFS3ERR_FBIG, "NFS3ERR_FBIG" },
		{ RPCRDMA_NFS3ERR_NOSPC, "NFS3ERR_NOSPC" },
		{ RPCRDMA_NFS3ERR_ROFS, "NFS3ERR_ROFS" },
		{ RPCRDMA_NFS3ERR_MLINK, "NFS3ERR_MLINK" },
		{ RPCRDMA_NFS3ERR_NAMETOOLONG, "NFS3ERR_NAMETOOLONG" },
		{ RPCRDMA_NFS3ERR_NOTEMPTY, "NFS3ERR_NOTEMPTY" },
		{ RPCRDMA_NFS3ERR_DQUOT, "NFS3ERR_DQUOT" },
		{ RPCRDMA_NFS3ERR_STALE, "NFS3ERR_STALE" },
		{ RPCRDMA_NFS3ERR_REMOTE, "NFS3ERR_REMOTE" },
		{ RPCRDMA_NFS3ERR_BADHANDLE, "NFS3ERR_BADHANDLE" },
		{ RPCRDMA_NFS3ERR_NOT_SYNC, "NFS3ERR_NOT_SYNC" },
		{ RPCRDMA_NFS3ERR_BAD_COOKIE, "NFS3ERR_BAD_COOKIE" },
		{ RPCRDMA_NFS3ERR_NOTSUPP, "NFS3ERR_NOTSUPP" },
		{ RPCRDMA_NFS3ERR_TOOSMALL, "NFS3ERR_TOOSMALL" },
		{ RPCRDMA_NFS3ERR_SERVERFAULT, "NFS3ERR_SERVERFAULT" },
		{ RPCRDMA_NFS3ERR_BADTYPE, "NFS3ERR_BADTYPE" },
		{ RPCRDMA_NFS3ERR_JUKEBOX, "NFS3ERR_JUKEBOX" },
	};
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (tab[i].stat == stat)
			return tab[i].name;
	return "NFS3ERR_UNKNOWN";
}

const char *rpcrdma_nfs3_proc_name(uint32_t proc)
{
	static const char *const names[] = {
		"NULL",	  "GETATTR", "SETATTR",	 "LOOKUP", "ACCESS",  "READLINK",
		"READ",	  "WRITE",   "CREATE",	 "MKDIR",  "SYMLINK", "MKNOD",
		"REMOVE", "RMDIR",   "RENAME",	 "LINK",   "READDIR", "READDIRPLUS",
		"FSSTAT", "FSINFO",  "PATHCONF", "COMMIT",
	};

	return proc < sizeof(names) / sizeof(names[0]) ? names[proc] : "UNKNOWN";
}

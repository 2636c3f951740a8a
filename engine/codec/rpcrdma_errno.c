/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Error numbers: descriptions and stable names.
 */
#include <string.h>

#include <rpcrdma/rpcrdma_errno.h>

static const struct {
	const char *name;
	const char *desc;
} errtab[RPCRDMA_E_MAX - RPCRDMA_ERRNO_BASE] = {
	[RPCRDMA_E_TRUNC - RPCRDMA_ERRNO_BASE] = { "TRUNC", "message ends inside the header" },
	[RPCRDMA_E_VERS - RPCRDMA_ERRNO_BASE] = { "VERS", "unsupported RPC-over-RDMA version" },
	[RPCRDMA_E_PROC - RPCRDMA_ERRNO_BASE] = { "PROC", "rdma_proc not defined for the version" },
	[RPCRDMA_E_TOO_MANY_READS -
		RPCRDMA_ERRNO_BASE] = { "TOO_MANY_READS", "more read segments than capacity" },
	[RPCRDMA_E_TOO_MANY_WRITES -
		RPCRDMA_ERRNO_BASE] = { "TOO_MANY_WRITES", "more write chunks than capacity" },
	[RPCRDMA_E_TOO_MANY_SEGS -
		RPCRDMA_ERRNO_BASE] = { "TOO_MANY_SEGS", "more segments in a chunk than capacity" },
	[RPCRDMA_E_POSITION -
		RPCRDMA_ERRNO_BASE] = { "POSITION", "read position not a multiple of 4" },
	[RPCRDMA_E_BOOL - RPCRDMA_ERRNO_BASE] = { "BOOL", "XDR bool or discriminator not 0 or 1" },
	[RPCRDMA_E_ENUM - RPCRDMA_ERRNO_BASE] = { "ENUM", "enum value out of range" },
	[RPCRDMA_E_OPAQUE -
		RPCRDMA_ERRNO_BASE] = { "OPAQUE",
					"opaque length runs past the end of the message" },
	[RPCRDMA_E_OPAQUE_BOUND -
		RPCRDMA_ERRNO_BASE] = { "OPAQUE_BOUND", "opaque longer than its XDR bound" },
	[RPCRDMA_E_GIDS - RPCRDMA_ERRNO_BASE] = { "GIDS", "AUTH_SYS with more than 16 gids" },
	[RPCRDMA_E_AUTH_LEN -
		RPCRDMA_ERRNO_BASE] = { "AUTH_LEN",
					"auth body length disagrees with its contents" },
	[RPCRDMA_E_RPCVERS - RPCRDMA_ERRNO_BASE] = { "RPCVERS", "RPC version is not 2" },
	[RPCRDMA_E_XCHAR_LEN -
		RPCRDMA_ERRNO_BASE] = { "XCHAR_LEN", "transport characteristic data length wrong" },
	[RPCRDMA_E_TOO_MANY_XCHARS -
		RPCRDMA_ERRNO_BASE] = { "TOO_MANY_XCHARS",
					"more transport characteristics than capacity" },
	[RPCRDMA_E_SUBSET -
		RPCRDMA_ERRNO_BASE] = { "SUBSET", "xcharsubset names an element past capacity" },
	[RPCRDMA_E_TRAILING -
		RPCRDMA_ERRNO_BASE] = { "TRAILING", "bytes left over after the XDR body" },
	[RPCRDMA_E_OPTTYPE -
		RPCRDMA_ERRNO_BASE] = { "OPTTYPE", "unknown transport characteristics operation" },
	[RPCRDMA_E_ROCE_TRUNC -
		RPCRDMA_ERRNO_BASE] = { "ROCE_TRUNC",
					"frame ends inside a header or before its IPv4 length" },
	[RPCRDMA_E_ROCE_NOT -
		RPCRDMA_ERRNO_BASE] = { "ROCE_NOT",
					"not a RoCEv2 frame (Ethernet, IPv4, UDP port 4791)" },
	[RPCRDMA_E_ROCE_IP -
		RPCRDMA_ERRNO_BASE] = { "ROCE_IP",
					"IPv4 options, fragment or inconsistent lengths" },
	[RPCRDMA_E_ROCE_CSUM -
		RPCRDMA_ERRNO_BASE] = { "ROCE_CSUM", "IPv4 header checksum mismatch" },
	[RPCRDMA_E_ROCE_UDP -
		RPCRDMA_ERRNO_BASE] = { "ROCE_UDP", "UDP length disagrees with the IPv4 length" },
	[RPCRDMA_E_ROCE_BTH -
		RPCRDMA_ERRNO_BASE] = { "ROCE_BTH",
					"unsupported BTH opcode, version or pad count" },
	[RPCRDMA_E_ROCE_ICRC - RPCRDMA_ERRNO_BASE] = { "ROCE_ICRC", "RoCEv2 ICRC mismatch" },
	[RPCRDMA_E_CHUNK_POS -
		RPCRDMA_ERRNO_BASE] = { "CHUNK_POS",
					"read chunk position out of order or outside the message" },
	[RPCRDMA_E_CHUNK_LEN -
		RPCRDMA_ERRNO_BASE] = { "CHUNK_LEN",
					"chunk length zero, too long, or not its XDR length" },
	[RPCRDMA_E_NOMSG -
		RPCRDMA_ERRNO_BASE] = { "NOMSG",
					"RDMA_NOMSG without its chunk or with inline data" },
	[RPCRDMA_E_CHUNK_OFFER -
		RPCRDMA_ERRNO_BASE] = { "CHUNK_OFFER",
					"reply chunk lists disagree with the call's offer" },
	[RPCRDMA_E_XDR_END - RPCRDMA_ERRNO_BASE] = { "XDR_END", "XDR stream ends before the item" },
	[RPCRDMA_E_NAME_LEN -
		RPCRDMA_ERRNO_BASE] = { "NAME_LEN", "file name longer than its bound" },
	[RPCRDMA_E_ARRAY - RPCRDMA_ERRNO_BASE] = { "ARRAY", "counted array longer than capacity" },
};

const char *rpcrdma_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= RPCRDMA_ERRNO_BASE && err < RPCRDMA_E_MAX)
		return errtab[err - RPCRDMA_ERRNO_BASE].desc;
	return strerror(err);
}

const char *rpcrdma_errname(int err)
{
	if (err < 0)
		err = -err;
	if (err >= RPCRDMA_ERRNO_BASE && err < RPCRDMA_E_MAX)
		return errtab[err - RPCRDMA_ERRNO_BASE].name;
	return "ERRNO";
}

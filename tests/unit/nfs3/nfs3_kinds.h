/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Every XDR type of the NFSv3 and MOUNT v3 codecs (engine/codec/nfs3/) behind
 * one signature, for the tests, the fuzz target and the benchmark: a
 * "kind" is one procedure's arguments or results, encoded from and decoded
 * into a struct of its own. READDIRPLUS3res, which the codec handles entry
 * by entry, is a kind too, through struct nfs3_rdp: its head and up to
 * NFS3_RDP_MAX entries; READDIR3res likewise through struct nfs3_rd.
 * The kinds added with the codec's second set of procedures (SETATTR to
 * READDIR) come after the first ones, so that the fuzz corpus' first
 * bytes keep naming the same kinds.
 */
#ifndef RPCRDMA_TEST_NFS3_KINDS_H
#define RPCRDMA_TEST_NFS3_KINDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/rpcrdma_mount3.h>
#include <rpcrdma/rpcrdma_nfs3.h>

/** Entries a struct nfs3_rdp holds. */
#define NFS3_RDP_MAX 128

/** READDIRPLUS3res as a whole. */
struct nfs3_rdp {
	struct rpcrdma_nfs3_readdirplus_res res;
	uint32_t n;
	struct rpcrdma_nfs3_entryplus ent[NFS3_RDP_MAX];
};

/** READDIR3res as a whole. */
struct nfs3_rd {
	struct rpcrdma_nfs3_readdirplus_res res;
	uint32_t n;
	struct rpcrdma_nfs3_entry ent[NFS3_RDP_MAX];
};

/** One XDR type. */
struct nfs3_kind {
	const char *name; /**< "READ3res" */
	uint32_t prog;	  /**< RPCRDMA_NFS3_PROGRAM or RPCRDMA_MOUNT3_PROGRAM */
	uint32_t proc;	  /**< procedure number */
	bool res;	  /**< results (a reply: DDP items in write chunks) */
	size_t size;	  /**< bytes of the struct */
	int (*enc)(struct rpcrdma_xdr_enc *xdr, const void *v);
	/**
	 * Decode; all or nothing (the READDIRPLUS wrapper rewinds too, and
	 * refuses more than NFS3_RDP_MAX entries with -RPCRDMA_E_ARRAY).
	 */
	int (*dec)(struct rpcrdma_xdr_dec *dec, void *v);
};

extern const struct nfs3_kind nfs3_kinds[];
extern const unsigned int nfs3_nkinds;

/** Largest struct of a kind. */
#define NFS3_KIND_MAX_SIZE sizeof(struct nfs3_rdp)

#endif /* RPCRDMA_TEST_NFS3_KINDS_H */

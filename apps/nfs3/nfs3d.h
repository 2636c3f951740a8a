/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3-server's parts and what they share: the NFSv3 program (proc.c),
 * the MOUNT v3 service on TCP (mount.c) and the server around them
 * (server.c: options, the engine, the poll loop, shut-down). Internal to
 * apps/nfs3/.
 */
#ifndef NFS3D_H
#define NFS3D_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_spinlock.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_svc.h>

#include "fs.h"

#define NFS3D_IO_MAX (1u << 20) /* rtmax and wtmax: the largest chunk buffer */
/*
 * dtpref: READDIR and READDIRPLUS replies of this size go through the
 * requester's reply chunk, built in a 64 KiB chunk buffer.
 */
#define NFS3D_DIR_PREF (32u << 10)
#define NFS3D_PORT     20049 /* NFS over RDMA (RFC 5666 section 10) */
#define NFS3D_ANON     65534 /* the owner of what AUTH_NONE makes */
#define NFS3D_NPROCS   22    /* NULL .. COMMIT */

/* What the NFS program needs of the server. */
struct nfs3d {
	struct nfs3_fs *fs;
	/* the file system is one: with --workers, calls on several lcores take this */
	rte_spinlock_t lock;
	bool locked;				  /* take it (--workers) */
	struct rpcrdma_mempool *data;		  /* the registered area behind the file system */
	struct rpcrdma_mempool_set *pools;	  /* chunk buffers for READs that are copied */
	uint8_t verf[RPCRDMA_NFS3_WRITEVERFSIZE]; /* WRITE and COMMIT: constant per instance */
	uint32_t io_max;			  /* rtmax and wtmax: --io-max */
	uint64_t jukebox;			  /* READs answered JUKEBOX: no chunk buffer */
	uint32_t reads_out;			  /* READ replies not yet sent (pins, buffers) */
};

/* The NFS program's registration (proc.c): procedures 0..21 of version 3. */
extern const struct rpcrdma_svc_version nfs3d_versions[];

/* A READ's reply is gone: unpin its bytes or give its buffer back (reply_done). */
void nfs3d_read_done(struct nfs3d *s, struct rpcrdma_svc_req *req);

/* The MOUNT service (mount.c): MNT "/" gives the root handle. */
struct nfs3d_mount;

/*
 * Serve MOUNT v3 on TCP @p port (0: any) on a thread of its own, with the
 * root's handle @p fh (len bytes); registered with rpcbind when it runs.
 * @return 0 and *m; a negative errno after a message.
 */
int nfs3d_mount_start(uint16_t port, const uint8_t *fh, uint32_t len, bool quiet,
		      struct nfs3d_mount **m);

/* The port it listens on. */
uint16_t nfs3d_mount_port(const struct nfs3d_mount *m);

/* Stop the thread, unregister, close (NULL is ignored). */
void nfs3d_mount_stop(struct nfs3d_mount *m);

#endif /* NFS3D_H */

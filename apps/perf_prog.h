/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The RPC program rpcrdma-perf's client measures, behind one ops table:
 * how a call's arguments are written and its results checked, and what is
 * set up on the server before the run (handles, a file) and taken down
 * after it. The test program (rpcrdma-perf.c, whose server is in the same
 * process or a --server) and NFSv3 (perf_nfs3.c, against any NFS/RDMA
 * server) implement it; the perf loop (submit, time, resubmit) is the same.
 */
#ifndef PERF_PROG_H
#define PERF_PROG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_xprt.h>

#include "perf_report.h"

#define PERF_ERR_LEN 192 /**< one line: the call and what went wrong */

/** The options only a program reads (NFSv3: --export, --dir, --mount-port, --files). */
struct perf_prog_opts {
	const char *export_path; /**< MOUNT's dirpath */
	const char *dir;	 /**< readdir: the directory listed, under the export */
	int mount_port;		 /**< MOUNT's TCP port; -1: ask rpcbind */
	uint32_t files;		 /**< readdir: make a directory of this many files, 0: none */
};

/** What a program is given of the client. */
struct perf_prog_env {
	struct rpcrdma_xprt *xprt;    /**< connected, version settled */
	struct rpcrdma_mempool *pool; /**< registered buffers of buf_size bytes */
	uint32_t buf_size;
	enum perf_op op;
	uint32_t size;	  /**< payload of read and write */
	uint32_t depth;	  /**< calls in flight: slots 0..depth-1 */
	uint32_t timeout; /**< seconds a call of setup or teardown may take */
	bool verify;	  /**< check every byte read */
	bool quiet;
	const char *addr; /**< the server's address (--address, --client) */
	const char *pmd;
	void **bufs; /**< each slot's registered buffer (read, write, readdir) */
	/** Drive the connection while a call of setup or teardown waits. */
	void (*poll)(void *arg);
	void *poll_arg;
	const struct perf_prog_opts *opts;
	void *ctx; /**< the program's own state, from setup */
	/** The calls' credential: an AUTH_SYS body (cred_len bytes); AUTH_NONE when 0. */
	const uint8_t *cred;
	uint32_t cred_len;
};

/** One program: every function but put_args and check may be NULL. */
struct perf_prog {
	const char *name; /**< --program NAME, and the JSON's "program" */
	uint32_t prog, vers;
	/**
	 * Before the run, once the version is settled: the handles, the file.
	 * @return 0, or a negative errno after a one-line message, with what
	 *   it made on the server taken down.
	 */
	int (*setup)(struct perf_prog_env *env);
	/**
	 * Slot @p slot's next call: its RPC header, its arguments and its
	 * reply spec. @return 0 or a negative errno (the call is released).
	 */
	int (*put_args)(struct perf_prog_env *env, uint32_t slot, struct rpcrdma_xprt_call *call);
	/**
	 * The results of slot @p slot's call (the RPC header read, SUCCESS).
	 * @return 0; or a negative errno, with the call and what went wrong in @p err.
	 */
	int (*check)(struct perf_prog_env *env, uint32_t slot, struct rpcrdma_xdr_dec *d, char *err,
		     size_t len);
	/**
	 * After the run, also after a failed or interrupted one (@p ok false):
	 * verify what was written, remove what setup made.
	 * @return 0, or a negative errno after a one-line message.
	 */
	int (*teardown)(struct perf_prog_env *env, bool ok);
};

/** NFSv3 against any NFS/RDMA server (perf_nfs3.c). */
extern const struct perf_prog perf_prog_nfs3;

/**
 * Write a call's RPC header: env->cred's AUTH_SYS credential, or AUTH_NONE.
 * @return 0, or the errors of rpcrdma_xprt_put_rpc().
 */
int perf_prog_put_header(const struct perf_prog_env *env, struct rpcrdma_xprt_call *call,
			 uint32_t prog, uint32_t vers, uint32_t proc);

/**
 * One call of setup or teardown on @p env's connection, waited for (at
 * most env->timeout seconds): @p enc writes the arguments, @p dec reads the
 * results (either may be NULL). @p spec, when not NULL, is copied into the
 * call's reply spec (max_len 0: a small reply).
 *
 * @return 0; -EREMOTEIO: the RPC was not accepted, named in @p err; a
 *   negative errno of the engine, or of @p dec, also in @p err.
 */
int perf_prog_call(struct perf_prog_env *env, uint32_t prog, uint32_t vers, uint32_t proc,
		   int (*enc)(struct rpcrdma_xdr_enc *x, const void *args), const void *args,
		   int (*dec)(struct rpcrdma_xdr_dec *d, void *res), void *res,
		   const struct rpcrdma_xdr_reply_spec *spec, char *err, size_t len);

/**
 * What the engine's completion status of a call means, by the protocol's
 * names where it has one (rpcrdma_xprt.h): -EREMOTEIO is the server's
 * RDMA_ERROR ERR_CHUNK, -EPROTONOSUPPORT its ERR_VERS.
 */
const char *perf_prog_status_name(int status);

/** The RPC reply header of a call: 0, or -EREMOTEIO/-EBADMSG with why in @p err. */
int perf_prog_rpc_reply(struct rpcrdma_xprt_call *call, struct rpcrdma_xdr_dec *d, char *err,
			size_t len);

#endif /* PERF_PROG_H */

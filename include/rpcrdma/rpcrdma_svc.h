/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * RPC program dispatch: the server side of ONC RPC (RFC 5531) above any
 * transport.
 *
 * A service registers its programs in a registry: a program number, the
 * versions it serves, and per version a procedure table indexed by
 * procedure number. Each procedure has an argument decoder, a handler and a
 * result encoder; the decoder reads the call's XDR stream into a small
 * argument struct (opaque data stays where it landed: a decoder keeps
 * pointers into the receive buffer or the read chunk, no copy), the handler
 * fills a result struct, and the encoder writes it to the reply stream
 * (DDP-eligible results with rpcrdma_xdr_put_ddp(), no copy). A procedure
 * without decoder and encoder is "raw": its handler reads req->args and
 * writes req->reply itself.
 *
 * rpcrdma_svc_dispatch() takes a decoded call header and answers with a
 * complete RPC reply (header and results) in the reply stream. The stack
 * itself answers, in the order of RFC 5531 and Linux svc_process_common():
 *
 *   rpcvers != 2                      MSG_DENIED RPC_MISMATCH 2..2
 *   credential neither AUTH_NONE nor
 *   AUTH_SYS, or a bad AUTH_SYS body  MSG_DENIED AUTH_ERROR AUTH_BADCRED
 *   program not registered            PROG_UNAVAIL
 *   version not registered            PROG_MISMATCH low..high (lowest and
 *                                     highest registered versions)
 *   program requires AUTH_SYS and the
 *   call has AUTH_NONE                MSG_DENIED AUTH_ERROR AUTH_TOOWEAK
 *                                     (procedure 0 excepted, as RFC 2623
 *                                     2.3.1 asks of NFS)
 *   procedure not in the table        PROC_UNAVAIL
 *   the decoder fails                 GARBAGE_ARGS
 *   the handler or encoder fails      SYSTEM_ERR
 *
 * Procedure 0 (NULL) answers SUCCESS with no results unless the table has
 * a handler for it. Replies carry an AUTH_NONE verifier.
 *
 * Asynchronous handlers: a handler that cannot finish at once returns
 * RPCRDMA_SVC_PENDING. Dispatch then returns RPCRDMA_SVC_PENDING too; the
 * call's buffers (args, reply, the request) must stay valid until the
 * service calls rpcrdma_svc_complete(req, status), which writes the results
 * or the error reply and calls req->done so the transport sends the reply.
 *
 * Counters: per procedure (calls, success, garbage_args, system_err, async),
 * per program (calls, prog_mismatch, proc_unavail, auth_tooweak) and per
 * registry (calls, rpc_mismatch, auth_badcred, prog_unavail, dropped,
 * reply_nospc). They live in per-lcore slots (req->slot picks one), so the
 * data path writes only its own cache lines and takes no lock; readers sum
 * the slots.
 *
 * Duplicate request cache (DRC): a procedure flagged
 * RPCRDMA_SVC_PROC_F_NONIDEMPOTENT must not run twice for one call that
 * its client sent twice (the same XID again after a lost reply or a
 * reconnection). With a DRC set on the registry (rpcrdma_svc_set_drc(), or
 * the library's own cache with rpcrdma_svc_drc_attach()), dispatch looks
 * such a call up before its decoder and handler run, by XID, program,
 * version, procedure, the argument bytes' length and checksum, and the
 * transport's client key (req->client_key), as Linux nfsd does:
 *
 *   found, completed         the cached reply's bytes are the reply; no
 *                            decoder, handler or encoder runs (hit)
 *   found, still in progress the first copy is being served: this one is
 *                            dropped without a reply, dispatch returns
 *                            -EALREADY
 *   not found                the procedure runs; its reply, once complete
 *                            (also a pending call's, in
 *                            rpcrdma_svc_complete()), is stored
 *
 * A reply is cached only when it fits the cache's per-entry size
 * (rpcrdma_svc_drc_params.reply_max) and carries no DDP-eligible item
 * (rpcrdma_xdr_put_ddp(): those bytes are not in the reply stream); other
 * replies release their entry, and a later copy of the call runs again.
 * Idempotent procedures never touch the cache. Replayed and dropped calls
 * do not reach the procedure's counters (the DRC counts them) nor the
 * glue's reply_done hook (req->proc is NULL).
 *
 * Threading: registration is control path and must not run concurrently
 * with dispatch (register every program before the lcores start). A slot is
 * written by one thread at a time: a transport that dispatches on worker
 * lcores (rpcrdma_rt.h) sets req->slot to the index of the lcore that runs
 * the dispatch, so a registry for it has a slot per EAL lcore, and a
 * completion on another lcore sets req->slot to that lcore's first (the
 * glue of rpcrdma_xprt_svc.h does both). Handlers of one registry may then
 * run on several lcores at once.
 */
#ifndef RPCRDMA_SVC_H
#define RPCRDMA_SVC_H

#include <stdint.h>

#include <rpcrdma/rpcrdma_rpc.h>
#include <rpcrdma/rpcrdma_rt.h>
#include <rpcrdma/rpcrdma_xdr.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Programs in a registry. */
#define RPCRDMA_SVC_PROGS_MAX 16
/** Versions per program. */
#define RPCRDMA_SVC_VERS_MAX 8
/** Procedures per version. */
#define RPCRDMA_SVC_PROCS_MAX 256
/** Bytes of a procedure's argument struct, and of its result struct. */
#define RPCRDMA_SVC_ARGS_MAX 256
#define RPCRDMA_SVC_RES_MAX  256

/** Handler and dispatch results (negative errno values mean SYSTEM_ERR). */
enum rpcrdma_svc_status {
	RPCRDMA_SVC_OK = 0,	 /**< results ready (handler); reply complete (dispatch) */
	RPCRDMA_SVC_PENDING = 1, /**< completes later with rpcrdma_svc_complete() */
	RPCRDMA_SVC_GARBAGE = 2, /**< raw handler: the arguments do not decode */
};

/** Program flags. */
#define RPCRDMA_SVC_F_AUTH_SYS (1u << 0) /**< refuse AUTH_NONE with AUTH_TOOWEAK */

/**
 * Procedure flags (rpcrdma_svc_proc.flags).
 * NONIDEMPOTENT: running the call twice is not running it once (a WRITE
 * that counts, a create, a remove): with a DRC on the registry, a copy of a
 * call already run is answered from the cache, never run again.
 */
#define RPCRDMA_SVC_PROC_F_NONIDEMPOTENT (1u << 0)

struct rpcrdma_svc_req;
struct rpcrdma_svc_registry;

/** Argument bytes the DRC key's checksum covers: the first ones, as Linux nfsd's RC_CSUMLEN. */
#define RPCRDMA_SVC_DRC_CSUM_LEN 256

/**
 * What identifies a call in the duplicate request cache. Two calls with
 * equal keys are taken for copies of one: a client that reuses an XID for
 * another call with the same procedure, the same argument length and the
 * same first RPCRDMA_SVC_DRC_CSUM_LEN argument bytes within the cache's
 * memory gets the other call's reply (the trade-off of every DRC keyed so).
 */
struct rpcrdma_svc_drc_key {
	uint64_t client; /**< the transport's client key (rpcrdma_svc_req.client_key) */
	uint32_t xid, prog, vers, proc;
	uint32_t args_len; /**< bytes of the arguments: inline and read chunks, from the call */
	uint32_t csum;	   /**< zlib crc32 of the first RPCRDMA_SVC_DRC_CSUM_LEN of them */
};

/**
 * Decode a procedure's arguments into @p args (args_size bytes, zeroed).
 * @return 0, or any negative value: GARBAGE_ARGS.
 */
typedef int (*rpcrdma_svc_decode_t)(struct rpcrdma_xdr_dec *dec, void *args);

/**
 * Serve a call. @p args holds the decoded arguments (NULL for a raw
 * procedure), @p res the result struct to fill (res_size bytes, zeroed;
 * NULL for a raw procedure). The credential is in req->call->call.cred and,
 * for AUTH_SYS, req->call->call.sys.
 * @return RPCRDMA_SVC_OK, RPCRDMA_SVC_PENDING, RPCRDMA_SVC_GARBAGE (raw
 *   procedures), or a negative errno (SYSTEM_ERR).
 */
typedef int (*rpcrdma_svc_handler_t)(struct rpcrdma_svc_req *req, void *args, void *res);

/**
 * Encode the results in @p res to the reply stream.
 * @return 0, or a negative errno (SYSTEM_ERR; the stream is rewound).
 */
typedef int (*rpcrdma_svc_encode_t)(struct rpcrdma_xdr_enc *enc, const void *res);

/** Called by rpcrdma_svc_complete() when the reply of a pending call is ready. */
typedef void (*rpcrdma_svc_done_t)(struct rpcrdma_svc_req *req, int ret);

/** One procedure. A zeroed entry is an unavailable procedure (PROC_UNAVAIL). */
struct rpcrdma_svc_proc {
	const char *name;	       /**< for counters and telemetry ("GETATTR") */
	rpcrdma_svc_decode_t decode;   /**< NULL: no arguments, or raw */
	rpcrdma_svc_handler_t handler; /**< NULL: unavailable (procedure 0: the default NULL) */
	rpcrdma_svc_encode_t encode;   /**< NULL: no results, or raw */
	uint32_t args_size;	       /**< at most RPCRDMA_SVC_ARGS_MAX */
	uint32_t res_size;	       /**< at most RPCRDMA_SVC_RES_MAX */
	/** Raw: the handler reads req->args and writes req->reply itself. */
	bool raw;
	uint32_t flags; /**< RPCRDMA_SVC_PROC_F_* */
};

/** One version of a program: a procedure table indexed by procedure number. */
struct rpcrdma_svc_version {
	uint32_t vers;
	uint32_t nprocs; /**< entries of procs, at most RPCRDMA_SVC_PROCS_MAX */
	const struct rpcrdma_svc_proc *procs;
};

/** A program, as registered (the tables are referenced, not copied). */
struct rpcrdma_svc_program {
	const char *name; /**< for telemetry; at most 31 characters kept */
	uint32_t prog;
	uint32_t flags; /**< RPCRDMA_SVC_F_* */
	void *ctx;	/**< the program's context, in req->prog_ctx */
	uint32_t nvers; /**< 1..RPCRDMA_SVC_VERS_MAX, distinct version numbers */
	const struct rpcrdma_svc_version *vers;
};

/**
 * One call being served. The transport owns it (e.g. in the receive
 * context): it sets slot, done and done_arg, and keeps the request, the
 * argument stream and the reply stream alive until the reply is complete.
 * The rest is set by dispatch.
 */
struct rpcrdma_svc_req {
	/* set by the transport */
	uint32_t slot;		 /**< counter slot: the lcore index, < the registry's nb_slots */
	rpcrdma_svc_done_t done; /**< for pending calls */
	void *done_arg;		 /**< the transport's */
	/*
	 * The transport's, to dispatch on a worker lcore without an
	 * allocation per call: the runtime item it queues (rpcrdma_rt_queue())
	 * and what it keeps with the call while the item is away (the glue of
	 * rpcrdma_xprt_svc.h: the RPC header's decode result before the
	 * handoff, what dispatch returned after it; where the call is).
	 * Dispatch never touches them.
	 */
	struct rpcrdma_rt_item item;
	int32_t run_ret;
	uint32_t xflags;
	/**
	 * Which client sent the call, as the transport knows it (0: it does
	 * not): part of the DRC's key, so that two clients' equal XIDs do not
	 * meet. It must be the same for a client's retransmission on a new
	 * connection, or the cache misses it (rpcrdma_xprt_svc.h: client_key).
	 */
	uint64_t client_key;
	/* set by dispatch, read by handlers */
	const struct rpcrdma_rpc_msg *call; /**< the call header (credential, AUTH_SYS) */
	struct rpcrdma_xdr_dec *args;	    /**< at the arguments (raw procedures read it) */
	struct rpcrdma_xdr_enc *reply;	    /**< after the reply header (raw procedures write it) */
	void *prog_ctx;			    /**< the program's ctx */
	/* private to svc.c */
	struct rpcrdma_svc_registry *reg;
	const struct rpcrdma_svc_proc *proc;
	const void *pent; /**< the program's entry */
	uint32_t vidx;	  /**< the version's index in it */
	uint32_t mark_len, mark_pos;
	uint16_t mark_nddp;
	uint64_t t0;	     /**< the registry's clock when the procedure was reached */
	bool drc_held;	     /**< a DRC entry waits for this call's reply */
	uint64_t drc_cookie; /**< the DRC's handle of that entry */
	struct rpcrdma_svc_drc_key drc_key;
	uint64_t args_buf[RPCRDMA_SVC_ARGS_MAX / 8];
	uint64_t res_buf[RPCRDMA_SVC_RES_MAX / 8];
};

/**
 * A clock for service times: a count of ticks that only goes forward and
 * is the same on every thread that dispatches or completes calls (the TSC
 * through rte_rdtsc(), CLOCK_MONOTONIC in nanoseconds).
 */
typedef uint64_t (*rpcrdma_svc_clock_t)(void);

/** Registry parameters; initialise with rpcrdma_svc_params_init(). */
struct rpcrdma_svc_params {
	uint32_t nb_slots; /**< counter slots (default 1; RTE_MAX_LCORE for every lcore) */
	/**
	 * Service times of the procedures (rpcrdma_svc_proc_stats time_ns,
	 * max_ns): read twice per call that reaches a procedure. NULL (the
	 * default): not measured, nothing read.
	 */
	rpcrdma_svc_clock_t clock;
	uint64_t clock_hz; /**< ticks of clock per second; > 0 with a clock */
};

void rpcrdma_svc_params_init(struct rpcrdma_svc_params *p);

/**
 * Create an empty registry.
 * @return 0 and *reg; -EINVAL: nb_slots is 0 or above 1024, or a clock with
 *   clock_hz 0; -ENOMEM.
 */
int rpcrdma_svc_registry_create(const struct rpcrdma_svc_params *p,
				struct rpcrdma_svc_registry **reg);

/** Free a registry (NULL is ignored). No call may be in progress. */
void rpcrdma_svc_registry_free(struct rpcrdma_svc_registry *reg);

/** The registry's counter slots (rpcrdma_svc_params.nb_slots). */
uint32_t rpcrdma_svc_nb_slots(const struct rpcrdma_svc_registry *reg);

/**
 * Register a program. Control path: not while calls are dispatched.
 * @return 0, or (nothing registered):
 *   - -EINVAL: no versions, too many, a duplicate version, a procedure table
 *     over RPCRDMA_SVC_PROCS_MAX or NULL with nprocs > 0;
 *   - -E2BIG: a procedure's args_size or res_size above the maximum;
 *   - -EEXIST: the program number is registered;
 *   - -ENOSPC: RPCRDMA_SVC_PROGS_MAX programs are registered;
 *   - -ENOMEM.
 */
int rpcrdma_svc_register(struct rpcrdma_svc_registry *reg, const struct rpcrdma_svc_program *prog);

/**
 * Answer a call.
 *
 * @param req
 *   The request: slot, done and done_arg set by the caller.
 * @param call, decode_ret
 *   The call header and what rpcrdma_rpc_decode() returned for it: the
 *   header length, or a negative error. -RPCRDMA_E_RPCVERS gets
 *   RPC_MISMATCH; a malformed credential (-RPCRDMA_E_OPAQUE_BOUND,
 *   -RPCRDMA_E_GIDS, -RPCRDMA_E_AUTH_LEN) gets AUTH_BADCRED; any other
 *   error cannot be answered.
 * @param args
 *   The call's XDR stream positioned at the arguments (after hdr_len).
 * @param reply
 *   The reply stream; the reply is appended at its current end.
 * @return
 *   - RPCRDMA_SVC_OK: the reply is complete in @p reply;
 *   - RPCRDMA_SVC_PENDING: the handler completes later; req->done will run;
 *   - -EPROTO: not an answerable call (truncated header, not a CALL); no
 *     reply, counted as dropped;
 *   - -ENOSPC: the reply stream cannot hold even an error reply (or a
 *     cached reply); it is left as it was, counted as reply_nospc;
 *   - -EALREADY: a copy of a non-idempotent call whose first copy is still
 *     being served (the DRC): no reply, drop it;
 *   - -EINVAL: req->slot is not below the registry's nb_slots; nothing done.
 */
int rpcrdma_svc_dispatch(struct rpcrdma_svc_registry *reg, struct rpcrdma_svc_req *req,
			 const struct rpcrdma_rpc_msg *call, int decode_ret,
			 struct rpcrdma_xdr_dec *args, struct rpcrdma_xdr_enc *reply);

/**
 * Complete a call whose handler returned RPCRDMA_SVC_PENDING: with status
 * RPCRDMA_SVC_OK, encode the results (req's result struct, or what a raw
 * handler wrote); otherwise write the error reply (RPCRDMA_SVC_GARBAGE:
 * GARBAGE_ARGS, negative: SYSTEM_ERR). Then call req->done(req, ret), ret
 * 0 or -ENOSPC (no reply could be written). Counters go to req->slot: call
 * it on the thread that owns that slot, or set req->slot first.
 */
void rpcrdma_svc_complete(struct rpcrdma_svc_req *req, int status);

/** The result struct of a request (for an asynchronous handler). */
static inline void *rpcrdma_svc_req_res(struct rpcrdma_svc_req *req)
{
	return req->res_buf;
}

/* ------------------------------------------------------------ counters */

struct rpcrdma_svc_proc_stats {
	uint64_t calls;
	uint64_t success;
	uint64_t garbage_args;
	uint64_t system_err;
	uint64_t async; /**< handlers that returned PENDING */
	/**
	 * With the registry's clock: the service times of the calls answered
	 * (success + garbage_args + system_err), from the procedure reached to
	 * its reply encoded (a pending call's wait included), summed and the
	 * longest, in nanoseconds; 0 without a clock.
	 */
	uint64_t time_ns;
	uint64_t max_ns;
};

struct rpcrdma_svc_prog_stats {
	uint64_t calls; /**< calls that reached the program */
	uint64_t prog_mismatch;
	uint64_t proc_unavail;
	uint64_t auth_tooweak;
};

struct rpcrdma_svc_stats {
	uint64_t calls;	       /**< calls given to dispatch */
	uint64_t rpc_mismatch; /**< rpcvers != 2 */
	uint64_t auth_badcred;
	uint64_t prog_unavail;
	uint64_t dropped;     /**< not answerable */
	uint64_t reply_nospc; /**< reply stream too small */
};

/** Registry counters, summed over the slots. */
void rpcrdma_svc_stats(const struct rpcrdma_svc_registry *reg, struct rpcrdma_svc_stats *st);

/** Program counters. @return 0, or -ENOENT: not registered. */
int rpcrdma_svc_prog_stats(const struct rpcrdma_svc_registry *reg, uint32_t prog,
			   struct rpcrdma_svc_prog_stats *st);

/** Procedure counters. @return 0, or -ENOENT: no such program, version or procedure. */
int rpcrdma_svc_proc_stats(const struct rpcrdma_svc_registry *reg, uint32_t prog, uint32_t vers,
			   uint32_t proc, struct rpcrdma_svc_proc_stats *st);

/** Registered programs, for telemetry: the definition of the i-th, or NULL past the end. */
const struct rpcrdma_svc_program *rpcrdma_svc_program_at(const struct rpcrdma_svc_registry *reg,
							 unsigned int i);

/** The lowest and highest registered versions of a program. @return 0 or -ENOENT. */
int rpcrdma_svc_prog_versions(const struct rpcrdma_svc_registry *reg, uint32_t prog, uint32_t *low,
			      uint32_t *high);

/* ------------------------------------------------------------ duplicate request cache */

/** What a DRC's lookup found (rpcrdma_svc_drc_ops.lookup). */
enum rpcrdma_svc_drc_verdict {
	/** Not cached: run the procedure; the cache holds an in-progress entry (the cookie). */
	RPCRDMA_SVC_DRC_MISS = 0,
	/** Completed before: the cached reply was appended to the reply stream. */
	RPCRDMA_SVC_DRC_REPLAY = 1,
	/** In progress (its first copy is being served): drop this copy, no reply. */
	RPCRDMA_SVC_DRC_DROP = 2,
	/** Not cached and no entry to hold it (all in progress): run the procedure uncached. */
	RPCRDMA_SVC_DRC_BYPASS = 3,
};

/** DRC counters. */
struct rpcrdma_svc_drc_stats {
	uint64_t hits;	       /**< completed entries found: replies replayed */
	uint64_t misses;       /**< calls not found: the procedure ran */
	uint64_t inprog_drops; /**< copies dropped: the first was still in progress */
	uint64_t evictions;    /**< completed entries reused for another call (LRU) */
	uint64_t stores;       /**< replies cached */
	uint64_t too_big;      /**< replies not cached: longer than reply_max */
	uint64_t uncacheable;  /**< replies not cached: DDP-eligible items, or none written */
	uint64_t bypass;       /**< misses run without an entry: every entry in progress */
	uint64_t entries;      /**< entries of the cache (its size) */
};

/**
 * A duplicate request cache, as the registry uses it: an upper layer may
 * bring its own. Both functions may be called on several lcores at once
 * (every lcore that dispatches or completes calls): they do their own
 * locking.
 */
struct rpcrdma_svc_drc_ops {
	/**
	 * Look a non-idempotent call up, before its decoder runs. On a
	 * completed entry, append its reply's bytes to @p reply (with
	 * rpcrdma_xdr_put_opaque_fixed()) and return REPLAY, or -ENOSPC when
	 * they do not fit (stream unchanged). On a miss, keep an in-progress
	 * entry for @p key, set *cookie to find it again and return MISS; the
	 * registry then calls store() exactly once with that cookie.
	 * @return an rpcrdma_svc_drc_verdict, or -ENOSPC.
	 */
	int (*lookup)(void *drc, const struct rpcrdma_svc_drc_key *key,
		      struct rpcrdma_xdr_enc *reply, uint64_t *cookie);
	/**
	 * The reply of the call a MISS was for is complete: @p len bytes at
	 * @p reply (the whole RPC reply: header and results) to cache for
	 * later copies; @p reply NULL when it is not to be cached (DDP-eligible
	 * items, or no reply written): release the entry.
	 */
	void (*store)(void *drc, uint64_t cookie, const struct rpcrdma_svc_drc_key *key,
		      const void *reply, uint32_t len);
	/** Optional: the cache's counters (rpcrdma_svc_registry_drc_stats()). */
	void (*stats)(void *drc, struct rpcrdma_svc_drc_stats *st);
};

/**
 * Use a DRC for the registry's non-idempotent procedures (@p ops NULL:
 * none, the default). Control path: not while calls are dispatched. The
 * ops and @p drc must outlive the registry's use of them.
 * @return 0; -EINVAL: ops without lookup or store. Nothing changed on error.
 */
int rpcrdma_svc_set_drc(struct rpcrdma_svc_registry *reg, const struct rpcrdma_svc_drc_ops *ops,
			void *drc);

/**
 * The counters of the registry's DRC.
 * @return 0; -ENOENT: no DRC, or one without a stats function (*st zeroed).
 */
int rpcrdma_svc_registry_drc_stats(const struct rpcrdma_svc_registry *reg,
				   struct rpcrdma_svc_drc_stats *st);

/*
 * The library's DRC: a fixed table of entries chosen at creation, each
 * with room for a reply of reply_max bytes (no allocation per call), found
 * through a hash of the key, the least recently used completed entry
 * reused when a new call needs one. In-progress entries are never reused,
 * so a call must complete (every pending call must be given to
 * rpcrdma_svc_complete()); while every entry is in progress, new calls run
 * uncached (bypass). One spinlock (pthread) guards the table: only
 * non-idempotent calls take it, for a lookup and a store, each a hash
 * probe and at most one copy of reply_max bytes.
 */
struct rpcrdma_svc_drc;

/** Largest rpcrdma_svc_drc_params.entries, and reply_max's bounds. */
#define RPCRDMA_SVC_DRC_ENTRIES_MAX   (1u << 20)
#define RPCRDMA_SVC_DRC_REPLY_MIN     24
#define RPCRDMA_SVC_DRC_REPLY_MAX_MAX 65536

/** The library DRC's parameters; initialise with rpcrdma_svc_drc_params_init(). */
struct rpcrdma_svc_drc_params {
	uint32_t entries;   /**< calls remembered (default 1024) */
	uint32_t reply_max; /**< bytes of a cached reply, at most (default 512) */
};

void rpcrdma_svc_drc_params_init(struct rpcrdma_svc_drc_params *p);

/**
 * Create a DRC.
 * @return 0 and *drc; -EINVAL: entries 0 or above RPCRDMA_SVC_DRC_ENTRIES_MAX,
 *   reply_max outside RPCRDMA_SVC_DRC_REPLY_MIN..RPCRDMA_SVC_DRC_REPLY_MAX_MAX;
 *   -ENOMEM. Nothing is left on error.
 */
int rpcrdma_svc_drc_create(const struct rpcrdma_svc_drc_params *p, struct rpcrdma_svc_drc **drc);

/** Free a DRC (NULL is ignored); no registry may use it any more. */
void rpcrdma_svc_drc_free(struct rpcrdma_svc_drc *drc);

/** The library DRC's functions, for rpcrdma_svc_set_drc() (or to wrap them). */
const struct rpcrdma_svc_drc_ops *rpcrdma_svc_drc_ops(void);

/**
 * rpcrdma_svc_set_drc(reg, rpcrdma_svc_drc_ops(), drc).
 * @return 0; -EINVAL: @p drc NULL.
 */
int rpcrdma_svc_drc_attach(struct rpcrdma_svc_registry *reg, struct rpcrdma_svc_drc *drc);

/** The library DRC's counters (consistent: read under its lock). */
void rpcrdma_svc_drc_stats(struct rpcrdma_svc_drc *drc, struct rpcrdma_svc_drc_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_SVC_H */

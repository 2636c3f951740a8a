/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma-perf's server (perf_srv.c): the test program (NULL, READ, WRITE)
 * served to any number of clients, their connections in one poll group;
 * and the ends both sides open (a device, its PD and pools, a listener, a
 * poll group).
 */
#ifndef PERF_SRV_H
#define PERF_SRV_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_spinlock.h>

#include <rpcrdma/rpcrdma_capture.h>
#include <rpcrdma/rpcrdma_svc.h>
#include <rpcrdma/rpcrdma_xprt.h>
#include <rpcrdma/rpcrdma_xprt_svc.h>

#include "app_common.h"
#include "perf_opts.h"

#define PERF_RPC_PROG	     0x20000150u /* in the range "defined by user" of RFC 5531 */
#define PERF_RPC_VERS	     1u
#define PERF_PROC_NULL	     0u
#define PERF_PROC_READ	     1u
#define PERF_PROC_WRITE	     2u
#define PERF_SRV_CREDITS     PERF_DEPTH_MAX /* a connection's credits, at most */
#define PERF_SRV_CREDITS_MIN 16u /* ... and the share of each, the server full (srv_recvs()) */
#define RPC_REPLY_HDR	     24	 /* xid, REPLY, MSG_ACCEPTED, verifier AUTH_NONE 0, SUCCESS */

/* One side: a device, its PD and pools, a listener (server), a connection. */
struct perf_ep {
	struct app_ep base; /* device, PD, pools */
	struct rpcrdma_pmd_listener *listener;
	struct rpcrdma_xprt *xprt;
	/* the poll group of the connections (the server's; a client's with --connections) */
	struct rpcrdma_xprt_group *grp;
};

struct perf_srv {
	struct perf_ep ep; /* ep.xprt unused: the connections are conns[] */
	struct rpcrdma_xprt_params params;
	struct rpcrdma_xprt **conns; /* max_conns slots; NULL: free */
	uint64_t *conn_no;	     /* conns[i]'s number among the accepted, from 1 */
	uint32_t max_conns, nconns;
	uint32_t clients; /* done once this many have left and none is open; 0: never */
	uint64_t accepted, left;
	bool verbose;			  /* --server without --quiet: say who arrives and leaves */
	struct rpcrdma_svc_registry *reg; /* the test program, in telemetry */
	struct rpcrdma_xprt_svc glue;	  /* dispatches every call the connection receives */
	struct rpcrdma_mempool *src_pool;
	void *src;	  /* what READ replies carry: one buffer shared by every reply */
	uint64_t next_ev; /* TSC of the next event poll */
	int done;	  /* --clients came and went (atomic: read by the main lcore) */
	/*
	 * --pollers N: the server is N shards, shard k polled by poller k of
	 * rt, each with its own device, pools, poll group and connections.
	 * The lead (shard 0) listens, places each connect request on a
	 * shard (rpcrdma_rt_place()) and hands it over to that shard's
	 * device; the shard accepts it there. With one poller: rt NULL and
	 * lead the server itself.
	 */
	struct rpcrdma_rt *rt;
	struct perf_srv *lead;
	struct perf_srv *shards; /* the lead's: shards[0..nshards) */
	uint32_t nshards, poller;
	uint32_t max_total;	 /* the lead's: --max-connections over every shard */
	uint64_t numbered;	 /* the lead's: connect requests placed, to number them */
	uint32_t total;		 /* the lead's, atomic: connections open in every shard */
	uint64_t total_left;	 /* the lead's, atomic: ... that left */
	int closing;		 /* the lead's, atomic: every shard closes its connections */
	bool closed;		 /* this shard has */
	bool mem_ready;		 /* this shard has had a connection (its group's slots made) */
	struct app_conn_mem mem; /* the lead's: what the connections hold (every shard's) */
	uint32_t mem_groups;	 /* the lead's: shards with mem_ready */
	rte_spinlock_t mem_lock; /* the lead's: the shards' arrivals update mem one at a time */
};

void perf_ep_close(struct perf_ep *ep);
bool perf_xprt_gone(const struct rpcrdma_xprt *x);

/* The bytes READ and WRITE carry: a pattern both ends know. */
void perf_pattern_fill(void *buf, uint32_t len);
bool perf_pattern_ok(const void *buf, uint32_t len);

/*
 * Open the server: its end, a poll group of @max_conns connections (none
 * with @capture, which captures each connection's QP), the test program,
 * a listener on @addr. 0, or a negative errno (said on stderr);
 * perf_srv_close() frees what was made either way.
 */
int perf_srv_open(struct perf_srv *s, const struct perf_opts *o, const char *addr,
		  uint32_t max_conns, struct rpcrdma_capture *capture);
void perf_srv_close(struct perf_srv *s);

/*
 * --server --pollers N (N >= 2): open N shards (@shards[0] listens on
 * @addr) and poll each on a poller lcore of a new runtime (*rt). 0, or a
 * negative errno (said on stderr); perf_srv_pollers_close() frees what was
 * made either way.
 */
int perf_srv_pollers_open(struct perf_srv *shards, uint32_t n, const struct perf_opts *o,
			  const char *addr, struct rpcrdma_rt **rt);
/*
 * Close every shard's connections, wait for them to drain (at most
 * @timeout_s), stop the runtime. @return the connections that did not close.
 */
uint32_t perf_srv_pollers_stop(struct perf_srv *shards, uint32_t timeout_s);
void perf_srv_pollers_close(struct perf_srv *shards, uint32_t n);

/* Disconnect every connection still open (each then drains and leaves). */
void perf_srv_disconnect(struct perf_srv *s);

/* One turn of the server (an rte poller function: @arg is the struct perf_srv). */
int perf_srv_poll(void *arg);

/* Calls the server was given, and those not answered SUCCESS. */
void perf_srv_counts(const struct perf_srv *s, uint64_t *calls, uint64_t *bad);

#endif /* PERF_SRV_H */

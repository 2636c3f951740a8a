/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine/xprt/: what the files of the connection engine share. Not a public
 * header: the engine's API is rpcrdma_xprt.h.
 *
 * The RPC-over-RDMA engine: one connection (struct rpcrdma_xprt), its state
 * machine, the requester's calls and the responder's svc calls, in version 1
 * or version 2 as negotiated (rpcrdma_vers.h).
 *
 * Every work request id points at a struct xprt_wr (a type and its owner),
 * so a completion is dispatched with one switch. A receive's is in its
 * struct xprt_rx. A send-queue work request's is its entry in the send ring
 * (x->sq_ring), which holds every WR staged and not yet retired, in posting
 * order. Send-queue WRs are signaled only every XPRT_SIGNAL_EVERY (at most
 * half the send queue), or when their owner needs the completion (RDMA
 * Reads); send queues complete in order, so the completion of entry k
 * retires every entry up to k, the earlier ones successfully (an unsignaled
 * WR that fails or is flushed has its own completion, which comes first), as
 * Linux xprtrdma retires its sendctx ring. A connection that goes down posts
 * a signaled zero-length RDMA Write after everything (the marker of Linux
 * ib_drain_sq): its completion, flushed or not, retires what remains.
 *
 * A call and a svc call each have one state enum and one _process()
 * function that advances until the state stops changing (SPDK
 * nvmf_rdma_request_process). Objects waiting for a resource (a credit,
 * send-queue room, read depth, a chunk buffer, a receive posted before a
 * grant) sit in a FIFO that each poll runs again.
 */
#ifndef XPRT_INT_H
#define XPRT_INT_H

#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_log.h>
#include <rte_prefetch.h>

#include <rpcrdma/rpcrdma_credit.h>
#include <rpcrdma/rpcrdma_hdr.h>
#include <rpcrdma/rpcrdma_marshal.h>
#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_vers.h>
#include <rpcrdma/rpcrdma_xprt.h>

#define XPRT_MAGIC     0x78707274u /* "xprt" */
#define XPRT_BURST     32	   /* completions per poll */
#define XPRT_STAGE_MAX 256	   /* send-queue WRs staged per doorbell */
#define XPRT_HDR_AREA  2048	   /* transport header bytes per slot */
#define XPRT_SVC_SQ    512	   /* server send queue */
#define XPRT_SVC_EXTRA 8	   /* svc slots beyond the grant (calls over it) */
#define XPRT_REPLY_WRS (RPCRDMA_MARSHAL_MAX_RDMA + 1)
/* a v1 RDMA_MSG with three empty chunk lists: xid 1 credit 0 - 0 0 0 (rfc5666bis 4.5.1) */
#define XPRT_SHORT_HDR 28
/* a v2 RDMA2_MSG with three empty chunk lists: xid 2 credit 0 - dir - 0 0 0 (v2 draft 4.2) */
#define XPRT_SHORT_HDR2 32
/* where every inline stream starts in its buffer: room for either Short header before it */
#define XPRT_HDR_ROOM  32
#define XPRT_CALLS_MAX 1024
/* one send-queue WR in this many is signaled (at most half the send queue) */
#define XPRT_SIGNAL_EVERY 16
/*
 * Server: receives posted beyond the grant's, so that a reply sent before
 * its call's receive is reposted still grants the target (Linux svcrdma
 * posts sc_max_requests + sc_recv_batch the same way).
 */
#define XPRT_RECV_SPARE 8
/*
 * Client: receives posted beyond max_credits, for the messages a server
 * sends unasked (transport characteristics, RDMA2_ERROR to them).
 */
#define XPRT_CLI_UNSOL 4
/* Control messages (RDMA2_OPTIONAL, RDMA2_ERROR to one) in flight at once. */
#define XPRT_CTRL_SLOTS 8

/* What a work request id points at. */
enum xprt_wr_type {
	WR_RECV,	 /* a receive: owner is a struct xprt_rx */
	WR_CALL_SEND,	 /* a call's Send: owner is a struct rpcrdma_xprt_call */
	WR_SVC_READ,	 /* an RDMA Read pulling a read chunk: struct rpcrdma_xprt_svc_call */
	WR_SVC_WRITE,	 /* an RDMA Write of a reply */
	WR_SVC_SEND,	 /* a reply's Send (or RDMA_ERROR) */
	WR_MARKER,	 /* the zero-length RDMA Write that drains the send ring */
	WR_SVC_SEND_BUF, /* a fast reply's Send: owner is its inline buffer (x->rbuf_free) */
	WR_CTRL_SEND,	 /* a control message's Send: owner is its struct xprt_ctrl */
};

struct xprt_wr {
	uint8_t type; /* enum xprt_wr_type */
	uint8_t done; /* sq_retire_ooo(): done, with ok, while a Read before it is not */
	bool ok;
	void *owner;
};

/* A receive: its context and, while posted or held, its inline buffer. */
struct xprt_rx {
	struct xprt_wr tag;
	struct xprt_rx *next; /* free list */
	void *buf;
	uint32_t len;  /* bytes received */
	bool inv;      /* arrived with Send With Invalidate of inv_rkey */
	bool posted;   /* on the receive queue */
	uint32_t plen; /* bytes it was posted with */
	uint32_t inv_rkey;
	uint8_t hlen; /* xprt_rx_classify(): a version 1 Short header's length; else 0 */
};

/*
 * A control message slot: a transport characteristics operation, or the
 * RDMA2_ERROR that answers one, encoded into the slot's own header area
 * (registered inline memory) and sent signaled; free again when the Send
 * retires.
 */
struct xprt_ctrl {
	struct xprt_ctrl *next; /* free list */
	struct rpcrdma_xdr_region area;
	struct rpcrdma_pmd_sge sge;
};

/* Requester call states. */
enum call_state {
	CALL_FREE,	  /* in the free list */
	CALL_BUILDING,	  /* allocated: the caller writes the message */
	CALL_NEED_CREDIT, /* submitted: waits for the connection, a credit and SQ room */
	CALL_READY,	  /* holds a credit: marshal, xprt_expose its chunks, stage the Send */
	CALL_SENT,	  /* Send staged: waits for its completion and for the reply */
	CALL_COMPLETE,	  /* both seen (or failed): invalidate, return the credit, call back */
	CALL_PARKED,	  /* connection lost, RETRANSMIT: waits for ESTABLISHED (same XID) */
	CALL_DONE,	  /* callback made (or status ready to test): waits for release */
	CALL_RETIRING,	  /* released after a timeout: waits for its Send to retire */
};

/*
 * A requester call slot. What every call touches comes first, in the first
 * cache lines; the marshal plan and the reply header storage, used only
 * by calls that are not Short without chunks, come last (a fast call's
 * gather entry is fsge[]).
 */
struct rpcrdma_xprt_call {
	enum call_state state;
	struct rpcrdma_xprt *xprt;
	TAILQ_ENTRY(rpcrdma_xprt_call) link; /* the wait FIFO */
	struct rpcrdma_xprt_call *next_free;
	uint32_t xid;
	uint32_t flags;
	int status;
	bool queued;	 /* in the wait FIFO */
	bool waited;	 /* queued since its submit: its failure there is a lost connection */
	bool send_done;	 /* the Send completed (any status) */
	bool lost;	 /* the connection went while the call was out */
	bool stalled;	 /* counted once as a stall: for a credit, or a receive reserved */
	bool has_credit; /* holds a requester credit */
	bool replied;	 /* a reply matched */
	bool fast;	 /* sent Short without chunks: no plan beyond its gather list */
	bool resend;	 /* parked after a connection loss, to be sent again */
	uint16_t nmrs;
	uint32_t send_seq; /* the Send's send-ring sequence number */
	bool timed;	   /* in the timeout list */
	bool tmo_late;	   /* tmo_xid timed out after it was sent: its reply may come */
	bool tmo_credit;   /* ... and holds its credit until that reply (xprt_call_timeouts()) */
	uint32_t tmo_xid;  /* the last XID of this slot that timed out after its Send */
	uint64_t timeout;  /* TSC cycles from submit to -ETIMEDOUT; 0: none */
	uint64_t deadline; /* TSC of the timeout, while timed */
	TAILQ_ENTRY(rpcrdma_xprt_call) tmo_link; /* the timeout list, by deadline */
	rpcrdma_xprt_call_cb_t cb;
	void *arg;
	void *msg_buf;	    /* inline pool buffer of the message: the slot keeps it */
	struct xprt_rx *rx; /* the reply's receive */
	struct rpcrdma_marshal_sge fsge[1]; /* a fast call's gather list */
	struct rpcrdma_xdr_region hdr;
	struct rpcrdma_xdr_enc enc;
	struct rpcrdma_xdr_dec dec;
	struct rpcrdma_xdr_reply_spec spec;
	struct rpcrdma_pmd_mr *mrs[RPCRDMA_MARSHAL_MAX_EXPOSE];
	struct rpcrdma_marshal_call_plan plan;
	struct rpcrdma_hdr_storage rhdr;
};
/* a server's upcall and its argument: one line of the params (xprt_prefetch()) */
static_assert(offsetof(struct rpcrdma_xprt_params, recv_call) / RTE_CACHE_LINE_SIZE ==
		      offsetof(struct rpcrdma_xprt_params, ctx) / RTE_CACHE_LINE_SIZE,
	      "recv_call and ctx on one line");
/* what rpcrdma_xprt_call_alloc() sets of the reply spec, on one line */
static_assert((offsetof(struct rpcrdma_xprt_call, spec) / RTE_CACHE_LINE_SIZE) ==
		      (offsetof(struct rpcrdma_xprt_call, spec) +
		       offsetof(struct rpcrdma_xdr_reply_spec, long_buf) +
		       sizeof(struct rpcrdma_xdr_region) - 1) /
			      RTE_CACHE_LINE_SIZE,
	      "a call's spec.max_len to spec.long_buf on one line");

/* Responder call states. */
enum svc_state {
	SVC_FREE,	  /* in the free list */
	SVC_RECEIVED,	  /* header valid, chunks mapped: get chunk buffers */
	SVC_READ_PENDING, /* RDMA Reads in flight, or waiting for read depth / SQ room */
	SVC_DISPATCHED,	  /* the upper layer has it */
	SVC_REPLY_READY,  /* reply (or RDMA_ERROR) requested: waits for SQ room and a grant */
	SVC_REPLY_WRITE_PENDING, /* the reply's RDMA Writes in flight */
	SVC_SEND_PENDING,	 /* the reply's Send in flight */
	SVC_DONE,		 /* return every buffer and the slot */
};

/*
 * A responder call slot. The fields a Short call without chunks touches
 * come first (state, its receive, the RPC header, the argument and reply
 * streams, the dispatcher's request); the read and write plans and the
 * transport header storage, used by calls with chunks, come last.
 */
struct rpcrdma_xprt_svc_call {
	enum svc_state state;
	struct rpcrdma_xprt *xprt;
	TAILQ_ENTRY(rpcrdma_xprt_svc_call) link;
	struct rpcrdma_xprt_svc_call *next_free;
	bool queued;
	bool lost;	      /* the connection went */
	bool credited;	      /* the reply was accounted as a reply (credit_resp_reply) */
	bool replied;	      /* a reply was sent (for reply_done) */
	bool in_cb;	      /* inside recv_call: reply and drop only set the state */
	bool release_pending; /* done in a poll: released after its doorbell (x->svc_done) */
	bool fast;	      /* a Short call without chunks: chdr and map are not filled */
	bool send_done;
	bool has_reply;		   /* the upper layer took the reply stream */
	uint8_t vers;		   /* rdma_vers of the call: the reply's */
	uint8_t hlen;		   /* fast: bytes of its Short header */
	uint8_t err_vers;	   /* rdma_vers of an RDMA_ERROR to send */
	uint8_t err_low, err_high; /* ERR_VERS: the versions supported */
	uint32_t err_code;	   /* SVC_REPLY_READY: an RDMA_ERROR to send; 0: the reply */
	uint32_t xid;
	int rpc_ret; /* what decoding the RPC header returned (its length or an error) */
	uint16_t nbufs;
	uint16_t nops, ops_posted, ops_done;
	uint16_t nwrites, writes_done;
	void *priv;
	struct xprt_rx *rx; /* the call's receive */
	void *reply_buf;    /* inline pool buffer of the reply: the slot keeps it */
	void *long_buf;	    /* a chunk buffer holding the reply stream (reply_chunk_stream()) */
	struct rpcrdma_mempool *long_pool;
	struct rpcrdma_xdr_region hdr;
	struct rpcrdma_rpc_msg msg;
	struct rpcrdma_xdr_enc reply;
	/* params.svc_upper_size bytes of the layer above (x->svc_upper), or NULL */
	void *upper;
	struct rpcrdma_xdr_dec args;
	/* calls with chunks */
	void *bufs[RPCRDMA_XDR_MAX_CHUNKS];
	struct rpcrdma_mempool *bpools[RPCRDMA_XDR_MAX_CHUNKS];
	struct rpcrdma_pmd_sge esge;
	struct rpcrdma_pmd_sge rsge[RPCRDMA_MARSHAL_MAX_READS];
	struct rpcrdma_marshal_rdma ops[RPCRDMA_MARSHAL_MAX_READS];
	struct rpcrdma_pmd_sge wsge[RPCRDMA_MARSHAL_MAX_RDMA];
	struct rpcrdma_marshal_call_map map;
	struct rpcrdma_hdr_storage chdr;
	struct rpcrdma_marshal_reply_plan rplan;
};

TAILQ_HEAD(call_fifo, rpcrdma_xprt_call);
TAILQ_HEAD(svc_fifo, rpcrdma_xprt_svc_call);
TAILQ_HEAD(xprt_list, rpcrdma_xprt);

#define GROUP_MAGIC 0x67727570u /* "grup" */
/* receives of the SRQ beyond the reservable ones: messages unasked, a grant that shrinks */
#define GROUP_SRQ_SPARE 64
/* call slots a group's clients may share, at most (group params calls) */
#define GROUP_MAX_CALLS 65536
/* a group's control slots beyond one for each connection it may have */
#define GROUP_CTRL_SPARE 32

/*
 * A poll group (rpcrdma_xprt.h "Poll groups", xprt_group.c): the CQ and
 * the SRQ of its connections, and the receives of the SRQ. A receive of
 * the group is reserved by one connection before that connection grants
 * (or, a client, sends) what it needs it for: the connection's rx_posted
 * counts its reservations, the group's reserved their sum; each
 * connection's first is its floor, the others come from p.recvs (shared),
 * and the SRQ holds a floor for every connection it may have plus p.recvs,
 * so every grant finds a receive as on a QP of its own.
 */
struct rpcrdma_xprt_group {
	uint32_t magic;
	struct rpcrdma_xprt_group_params p;
	struct rpcrdma_pmd_cq *cq;
	struct rpcrdma_pmd_srq *srq;
	struct rpcrdma_mempool *ipool;
	uint32_t recv_len;
	struct xprt_rx *rxs; /* the receives' descriptors, nrx of them */
	uint32_t nrx;
	struct xprt_rx *rx_free;
	uint32_t srq_depth;  /* receives kept posted: p.max_conns + p.recvs + GROUP_SRQ_SPARE */
	uint32_t srq_posted; /* posted and not completed */
	uint32_t reserved;   /* reserved by connections (sum of their rx_posted) */
	uint32_t shared;     /* ... beyond each one's first: at most p.recvs */
	uint32_t share;	     /* each server connection's grant */
	uint32_t nservers;   /* server connections (the share's divisor) */
	uint32_t bk_total;   /* every connection's bk_credits: receives kept out of the grants */
	/*
	 * The responder slots of its server connections, shared (a slot is
	 * a connection's from the call it takes until its release), with
	 * their header areas and the upper layer's areas; and its free
	 * inline buffers (buf_free): the buffers of fast replies whose Sends
	 * have retired, and of its clients' calls released.
	 */
	struct rpcrdma_xprt_svc_call *svcs;
	uint32_t nsvcs;
	struct rpcrdma_xprt_svc_call *svc_free;
	void *svc_upper;
	void **hdr_bufs;
	uint32_t nhdr_bufs;
	uint32_t upper_size; /* each slot's upper area: the first server's svc_upper_size */
	/*
	 * Linked through their first word, LIFO: the next reply or call of
	 * any connection takes the buffer freed last, still in the cache,
	 * where a slot's own buffer would be as cold as its connection.
	 */
	void *buf_free;
	/*
	 * The call slots its clients share (p.calls rounded up to a power of
	 * 2; none without): a client connection's calls, call_shift and
	 * free list (xprt_call_freep()) are the group's (xprt_conn.c), and a
	 * slot is the connection's (c->xprt) from its call_alloc to its free.
	 */
	struct rpcrdma_xprt_call *calls;
	uint32_t ncalls, call_shift, calls_busy;
	struct rpcrdma_xprt_call *call_free;
	void **call_hdr_bufs;
	uint32_t ncall_hdr_bufs;
	struct rpcrdma_xdr_region pad; /* the XDR pad of every connection without header areas */
	void **pad_bufs;
	uint32_t npad_bufs;
	/*
	 * Version 2 control slots, shared (made at the first join that may
	 * speak version 2): p.max_conns + GROUP_CTRL_SPARE of them. Each
	 * connection can always take one (its ROPT_INITXCH goes first,
	 * xcharext 4.1): one beyond its first only while every connection
	 * the group may have without one, those that join later included,
	 * can still have one (xprt_ctrl_peek()).
	 */
	struct xprt_ctrl *ctrls;
	struct xprt_ctrl *ctrl_free;
	uint32_t ctrl_nfree;
	uint32_t ctrl_users; /* connections with a slot out */
	void **ctrl_bufs;
	uint32_t nctrl_bufs;
	struct xprt_list conns; /* every connection of the group */
	/*
	 * The connections to advance at the next poll: an array of the
	 * group's, not a list through them, so that pending one writes no
	 * line of the connection beyond its first (with many connections,
	 * out of the cache). pend fills while todo is drained (the poll
	 * swaps them); each holds a connection once (x->pend_listed), so
	 * p.max_conns entries are enough. A connection that needs no turn
	 * any more (x->pending clear) stays listed and is skipped; one that
	 * leaves the group is wiped from both (NULL).
	 */
	struct rpcrdma_xprt **pend;
	struct rpcrdma_xprt **todo;
	uint32_t npend;
	uint32_t ntodo;
	struct rpcrdma_xprt_group_stats st;
};

/*
 * A connection. With many connections on one lcore each call likely finds
 * its connection out of the cache, and each line it touches is a miss:
 * what every call, reply and poll visit reads or writes comes first
 * (lines 0 to 5, then the counters' first line, mconn and the line of p
 * with a server's upcall); set-up, version 2, reconnection and the rare
 * paths after.
 */
struct rpcrdma_xprt {
	/* ---------------- the fast path, both roles ---------------- */
	uint32_t magic;
	enum rpcrdma_xprt_state state;
	uint32_t vers; /* of the messages sent now (a client's probe: 2, before it is settled) */
	bool vers_settled; /* the client's vreq or the server's vresp says (rpcrdma_vers.h); telemetry reads it */
	/* one byte of flags, the connection's thread's alone */
	bool recv_short : 1; /* the last xprt_post_recvs() posted fewer than wanted: try each poll */
	bool recv_due : 1;   /* client: a batch to repost at the start of the next poll */
	bool in_poll : 1;
	bool responder : 1; /* takes calls: svc slots of its own, or its group's (a server in a group) */
	bool xchar_on : 1; /* version 2 transport characteristics: see xs */
	bool pending : 1;  /* needs a turn of its group's next poll */
	bool backward : 1;
	bool client : 1;  /* p.role is RPCRDMA_XPRT_CLIENT (p is lines away) */
	uint16_t grp_wcs; /* completions of the group's poll now (0: not yet visited) */
	/* gather entries of a Send or RDMA Write: RPCRDMA_MARSHAL_MAX_SGE or the device's fewer */
	uint16_t max_send_sge;
	bool pend_listed;  /* in grp->pend (or grp->todo, not yet drained) */
	bool calls_shared; /* a client whose call slots are its group's (group params calls) */
	int work;
	uint32_t peer_key; /* server: rpcrdma_xprt_peer_key(), on a line every call reads */
	uint32_t max_call; /* server: p.max_call, read by every call */
	struct rpcrdma_mempool *ipool;
	struct rpcrdma_pmd_cq *cq;
	struct rpcrdma_pmd_qp *qp;
	/* the poll group (rpcrdma_xprt_group), or NULL */
	struct rpcrdma_xprt_group *grp;
	uint32_t sq_depth, rq_depth;
	/* the send ring: WRs staged or posted and not yet retired (sq_out of them) */
	struct xprt_wr *sq_ring;
	/* a gather entry per ring entry, for WRs whose owner does not outlive them */
	struct rpcrdma_pmd_sge *sq_sge;
	uint32_t sq_mask;
	uint32_t sq_head; /* sequence number of the next WR */
	uint32_t sq_tail; /* the oldest not retired */
	uint32_t sq_out;
	uint32_t sq_base;   /* the sequence number of ring entry 0 (sq_idx()) */
	uint32_t sq_unsig;  /* unsignaled WRs since the last signaled one */
	uint32_t sig_every; /* signal one WR in this many */
	uint32_t nstage;    /* staged for the next doorbell */
	/* stage_max WRs and the drain marker: at most XPRT_STAGE_MAX, the send queue's depth */
	uint32_t stage_max;
	/* requester slots in use at once, at most: ncalls, or p.max_calls when shared */
	uint32_t calls_max;
	struct rpcrdma_pmd_send_wr *stage;
	/* receives */
	struct xprt_rx *rxs;
	struct xprt_rx *rx_free;
	uint32_t nrx;
	uint32_t rx_posted;
	uint32_t recv_len; /* bytes of each posted receive */
	/* requester */
	uint32_t ncalls, call_shift;
	uint32_t xid_seq;
	uint32_t calls_busy;
	uint32_t call_flags; /* given to every call: RETRANSMIT for a client that reconnects */
	struct rpcrdma_credit_req creq;
	/* the requester slots, its own or its group's (calls_shared); the free ones, LIFO: xprt_call_freep() */
	struct rpcrdma_xprt_call *calls;
	struct rpcrdma_xprt_call *call_free;
	uint64_t call_timeout; /* p.call_timeout_us in TSC cycles */
	/* responder: where this connection's free responder slots and fast reply buffers are, its own or its group's */
	struct rpcrdma_xprt_svc_call **svc_freep;
	void **rbuf_freep;
	/*
	 * Server: inline buffers of fast replies whose Sends have retired,
	 * linked through their first word, LIFO. A fast reply's Send takes
	 * its buffer from the slot, so the slot is free at once and the next
	 * call finds it warm; the slot takes another buffer from here.
	 */
	void *rbuf_free;
	struct rpcrdma_credit_resp cresp __attribute__((aligned(64)));
	struct rpcrdma_xprt_svc_call *svc_free;
	/*
	 * What every poll end and xprt_work_besides_sends() look at, both
	 * roles, on one line: whatever waits or is due. Responder slots done
	 * during a poll, linked through next_free: released (reply_done,
	 * buffers back) after the poll's doorbell, off the round trip of
	 * their replies.
	 */
	struct rpcrdma_xprt_svc_call *svc_done __attribute__((aligned(64)));
	struct svc_fifo svc_wait;
	/* server: received calls waiting for a free svc slot, FIFO */
	struct xprt_rx *backlog;
	struct call_fifo call_wait;
	uint64_t tmo_next; /* the first deadline; UINT64_MAX when none */
	uint32_t svc_active;
	uint32_t reads_out;
	/* the counters, the ones every call moves on their first line */
	struct rpcrdma_xprt_stats st __attribute__((aligned(64)));
	struct rpcrdma_marshal_conn mconn __attribute__((aligned(64)));
	struct rpcrdma_xprt_params p;

	/* ---------------- set-up, version 2, the rare paths ---------------- */
	struct xprt_rx *backlog_last;	    /* the backlog's last */
	uint64_t id;			    /* telemetry: /rpcrdma/conn,<id> */
	struct rpcrdma_pmd_peer peer_addr;  /* server: the connect request's; client: unknown */
	LIST_ENTRY(rpcrdma_xprt) listed;    /* in xprt_list (under xprt_list_lock) */
	TAILQ_ENTRY(rpcrdma_xprt) grp_link; /* in grp->conns */
	uint64_t mem_bytes;		    /* rpcrdma_xprt_info() */
	bool peer_pdata;
	bool disc_pending; /* server: accepted before the client's confirmation */
	bool bc_ready;	   /* server: the upper layer said the client is ready (version 1) */
	struct rpcrdma_xprt_pdata peer;
	/*
	 * The backward direction's marshaling (a server's calls, a client's
	 * replies): mconn with backward set, inline only unless the client's
	 * Backward Request Support is BKREQSUP_GENL (version 2).
	 */
	struct rpcrdma_marshal_conn bmconn;
	struct call_fifo tmo_list; /* submitted calls with a timeout, earliest deadline first */
	uint32_t tmo_credits; /* credits of creq held by timed-out calls (xprt_call_timeouts()) */
	/* client: reconnecting by itself (params.reconnect_max, reconnect_tick()) */
	bool rc_on;
	uint32_t rc_tries; /* attempts since the connection was last established */
	uint64_t rc_delay; /* TSC cycles before the next attempt */
	uint64_t rc_next;  /* TSC of the next attempt; 0: not scheduled yet */
	struct rpcrdma_xprt_svc_call *svcs;
	void *svc_upper; /* the slots' upper areas, one block */
	uint32_t nsvcs;
	/* transport header areas and the pad, carved from inline buffers */
	uint32_t nhdr_bufs;
	void **hdr_bufs;
	struct rpcrdma_xdr_region pad;
	struct rpcrdma_vers_req vreq;
	struct rpcrdma_vers_resp vresp;
	/*
	 * Version 2 transport characteristics (xcharext draft), both roles:
	 * xchar_on while version 2 is settled and the extension not turned
	 * off.
	 */
	bool xchar_peer_unsupported; /* our ROPT_INITXCH was answered RDMA2_ERR_INVAL_OPTION */
	uint32_t xchar_init_xid;     /* rdma_xid of our ROPT_INITXCH */
	uint32_t ctrl_seq;	     /* server: XIDs of its control messages */
	uint32_t ctrl_out;	     /* in a group: the group's slots it has out */
	struct xprt_ctrl *ctrl_free; /* its own free slots (NULL in a group: xprt_ctrl_peek()) */
	struct rpcrdma_xchar_state xs;
	struct xprt_ctrl ctrl[XPRT_CTRL_SLOTS];
	char addr[RPCRDMA_VERS_ADDR_MAX]; /* connected to; "" when too long to remember */
	struct rpcrdma_vers_peers peers;  /* when p.vers_peers is NULL */
};

/* Where a received message goes. */
enum rx_kind {
	RX_CALL,  /* a call: a responder slot (server: forward; client: backward) */
	RX_REPLY, /* a reply (or RDMA_ERROR) to one of our calls: a requester slot */
	RX_CTRL,  /* RDMA2_OPTIONAL: transport characteristics */
};

/*
 * The engine's messages (control path only): "rpcrdma xprt <id>: ..." through
 * rte_log, log type "rpcrdma.xprt" (default level NOTICE; --log-level
 * rpcrdma.xprt:info shows each reconnect attempt).
 */
extern int rpcrdma_xprt_logtype;
#define XPRT_LOG(level, x, fmt, ...)                                                  \
	rte_log(RTE_LOG_##level, rpcrdma_xprt_logtype, "rpcrdma xprt %lu: " fmt "\n", \
		(unsigned long)(x)->id, ##__VA_ARGS__)

/* A counter another thread reads (telemetry, rpcrdma_xprt_stats()). */
#define RD(v) __atomic_load_n(&(v), __ATOMIC_RELAXED)

/* ------------------------------------------------------------ fast path helpers */

static inline uint64_t us_to_tsc(uint64_t us)
{
	uint64_t hz = rte_get_tsc_hz();

	/* past a quarter of the TSC range: never (a deadline must not wrap) */
	if (us / 1000000 >= UINT64_MAX / 4 / hz)
		return UINT64_MAX / 4;
	return us / 1000000 * hz + us % 1000000 * hz / 1000000;
}
/*
 * The ring entry of send sequence number @seq. The ring starts again at
 * entry 0 each time it empties (sq_rebase()), so a connection that sends
 * now and then keeps its first entries warm instead of each entry in turn.
 */
static inline uint32_t sq_idx(const struct rpcrdma_xprt *x, uint32_t seq)
{
	return (seq - x->sq_base) & x->sq_mask;
}
/* Where the free requester slots of @x are: its own list, or its group's (calls_shared). */
static inline struct rpcrdma_xprt_call **xprt_call_freep(struct rpcrdma_xprt *x)
{
	return x->calls_shared ? &x->grp->call_free : &x->call_free;
}
/* The slot the next rpcrdma_xprt_call_alloc() on @x takes, or NULL. */
static inline const struct rpcrdma_xprt_call *xprt_call_next(const struct rpcrdma_xprt *x)
{
	return x->calls_shared ? x->grp->call_free : x->call_free;
}
/*
 * A list of free inline buffers linked through their first word (the
 * fast-reply and call buffers of a connection or its group), LIFO: the
 * next taker finds the buffer freed last, still in the cache.
 */
static inline void xprt_buf_push(void **head, void *b)
{
	*(void **)b = *head;
	*head = b;
}
/* The buffer freed last, or NULL. */
static inline void *xprt_buf_pop(void **head)
{
	void *b = *head;

	if (b != NULL)
		*head = *(void **)b;
	return b;
}
/* After a retirement: an empty ring's next WR takes entry 0. */
static inline void sq_rebase(struct rpcrdma_xprt *x)
{
	if (x->sq_out == 0)
		x->sq_base = x->sq_head;
}
/*
 * Start loading the lines of @x that a call or a completion touches
 * (struct rpcrdma_xprt's fast path: lines 0 to 5, the counters' first,
 * mconn and the upcall's line of p), so that their misses overlap instead
 * of coming one by one. For a call to send or a reply to take (not
 * @responder), line 4 (cresp, the responder's credits) and the upcall's
 * line stay out: with many connections the lines a call asks for fill the
 * core's fill buffers, and each one more waits for a free one
 * (docs/benchmarks.md, "Where the time goes, sampled"). The caller says
 * which: reading x->responder here would wait for line 0.
 */
static inline void xprt_prefetch(const struct rpcrdma_xprt *x, bool responder)
{
	const uint8_t *b = (const uint8_t *)x;
	size_t off;

	/* the fast-path lines end where the counters start (a line of their own) */
	for (off = 0; off < offsetof(struct rpcrdma_xprt, st); off += RTE_CACHE_LINE_SIZE)
		if (responder || off / RTE_CACHE_LINE_SIZE !=
					 offsetof(struct rpcrdma_xprt, cresp) / RTE_CACHE_LINE_SIZE)
			rte_prefetch0(b + off);
	rte_prefetch0(&x->st); /* the line every call, reply and visit counts on */
	rte_prefetch0(&x->mconn);
	if (responder)
		rte_prefetch0(&x->p.recv_call); /* the one line of p a call reads: the upcall */
}
/*
 * Start loading, to be written, what staging the next WR of @x writes: its
 * send-ring entry, its staging slot and, for a fast reply (@reply), its
 * gather entry, lines of their own. Reads x's line 1 (the ring) and 2 (the
 * stage): for a connection whose first lines are loaded, or on their way.
 */
static inline void xprt_prefetch_send(const struct rpcrdma_xprt *x, bool reply)
{
	uint32_t i = sq_idx(x, x->sq_head);

	__builtin_prefetch(&x->sq_ring[i], 1);
	if (reply)
		__builtin_prefetch(&x->sq_sge[i], 1);
	__builtin_prefetch(&x->stage[x->nstage], 1);
}
/* Send-queue room for n more WRs this poll. */
static inline bool sq_room(const struct rpcrdma_xprt *x, uint32_t n)
{
	return x->nstage + n <= x->stage_max && x->sq_out + n <= x->sq_depth;
}
/*
 * Stage a send-queue WR of @owner into the send ring. It is signaled when
 * @signal asks (the owner needs this completion), or when it is the
 * sig_every-th since the last signaled one.
 */
static inline struct rpcrdma_pmd_send_wr *stage(struct rpcrdma_xprt *x, uint8_t type, void *owner,
						bool signal)
{
	struct rpcrdma_pmd_send_wr *wr = &x->stage[x->nstage++];
	struct xprt_wr *e = &x->sq_ring[sq_idx(x, x->sq_head)];

	e->type = type;
	e->owner = owner;
	x->sq_head++;
	x->sq_out++;
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = (uintptr_t)e;
	if (signal || ++x->sq_unsig >= x->sig_every) {
		wr->flags = RPCRDMA_PMD_SEND_SIGNALED;
		x->sq_unsig = 0;
	}
	return wr;
}
/*
 * A receive is free again. Its buffer stays with it, to be posted again
 * without a trip through the pool (Linux xprtrdma keeps its rpcrdma_rep
 * buffers the same way); xprt_free() gives them back. The free list is
 * LIFO, so a connection holds as many buffers as it ever had in use at once.
 */
static inline void rx_put(struct rpcrdma_xprt *x, struct xprt_rx *rx)
{
	if (x->grp != NULL) {
		/* the group's: its buffer goes back on the SRQ at the group's next top-up */
		rx->next = x->grp->rx_free;
		x->grp->rx_free = rx;
		return;
	}
	rx->next = x->rx_free;
	x->rx_free = rx;
}

/* A burst of receives to post (a connection's, or a group's SRQ's). */
struct rx_burst {
	struct rpcrdma_pmd_recv_wr wrs[XPRT_BURST];
	struct rpcrdma_pmd_sge sges[XPRT_BURST];
	struct xprt_rx *rxs[XPRT_BURST];
	uint32_t n;
};

/*
 * Take up to @want (at most XPRT_BURST) receives off the free list *@free
 * into @b, each with its buffer (or a new one of @pool), posted for @len
 * bytes. @return how many: fewer when the list or the pool ran dry.
 */
static inline uint32_t rx_burst_fill(struct rx_burst *b, struct xprt_rx **free,
				     struct rpcrdma_mempool *pool, uint32_t len, uint32_t want)
{
	b->n = 0;
	while (b->n < want && *free != NULL) {
		struct xprt_rx *rx = *free;
		void *buf = rx->buf != NULL ? rx->buf : rpcrdma_mempool_get(pool);
		uint32_t n = b->n;

		if (buf == NULL)
			break;
		*free = rx->next;
		rx->buf = buf;
		b->rxs[n] = rx;
		b->sges[n].addr = (uintptr_t)buf;
		b->sges[n].length = len;
		b->sges[n].lkey = pool->lkey;
		b->wrs[n].wr_id = (uintptr_t)&rx->tag;
		b->wrs[n].sg_list = &b->sges[n];
		b->wrs[n].num_sge = 1;
		b->n++;
	}
	return b->n;
}

/* The PMD took the first @got of @b: those are posted, the others go back on *@free. */
static inline void rx_burst_done(struct rx_burst *b, uint32_t got, struct xprt_rx **free,
				 uint32_t len)
{
	uint32_t i;

	for (i = 0; i < got; i++) {
		b->rxs[i]->posted = true;
		b->rxs[i]->plen = len;
	}
	for (i = got; i < b->n; i++) {
		b->rxs[i]->next = *free;
		*free = b->rxs[i];
	}
}

void xprt_group_pend(struct rpcrdma_xprt *x);

/*
 * A connection of a group has work its group's next poll must see (a call
 * submitted, a reply staged, a state change, outside the group's poll).
 */
static inline void xprt_kick(struct rpcrdma_xprt *x)
{
	if (x->grp != NULL && !x->pending)
		xprt_group_pend(x);
}
/* ------------------------------------------------------------ Short messages */

/*
 * The Short form without chunks is what most calls and replies take, and
 * its transport header is seven words in version 1 and eight in version 2
 * (with rdma_direction): both ends write and recognise it here, inline,
 * with no marshal plan or header storage; anything else goes through
 * rpcrdma_marshal_*(), which would produce the same bytes.
 */

/*
 * Write the header of a version's Short message; it ends at @end:
 *   v1: xid 1 credit RDMA_MSG 0 0 0
 *   v2: xid 2 credit RDMA2_MSG dir 0 0 0
 * @return its first byte.
 */
static inline uint8_t *short_hdr_put(uint8_t *end, uint32_t vers, uint32_t dir, uint32_t xid,
				     uint32_t credit)
{
	uint8_t *h;

	if (vers == RPCRDMA_VERS_1) {
		h = end - XPRT_SHORT_HDR;
	} else {
		h = end - XPRT_SHORT_HDR2;
		rpcrdma_wire_put32(end - 16, 0, dir);
	}
	rpcrdma_wire_put32(h, 0, xid);
	rpcrdma_wire_put32(h, 1, vers);
	rpcrdma_wire_put32(h, 2, credit);
	rpcrdma_wire_put32(h, 3, RPCRDMA_MSG);
	rpcrdma_wire_put32(end - 12, 0, 0);
	rpcrdma_wire_put32(end - 12, 1, 0);
	rpcrdma_wire_put32(end - 12, 2, 0);
	return h;
}

/*
 * Is a received message a Short message of version @vers, in direction
 * @dir (version 2's rdma_direction)?
 * @return the header's length, or 0: another form.
 */
static inline uint32_t short_hdr_len(const void *buf, uint32_t len, uint32_t vers, uint32_t dir)
{
	if (vers == RPCRDMA_VERS_1)
		return len >= XPRT_SHORT_HDR && rpcrdma_wire_get32(buf, 1) == RPCRDMA_VERS_1 &&
				       rpcrdma_wire_get32(buf, 3) == RPCRDMA_MSG &&
				       (rpcrdma_wire_get32(buf, 4) | rpcrdma_wire_get32(buf, 5) |
					rpcrdma_wire_get32(buf, 6)) == 0
			       ? XPRT_SHORT_HDR
			       : 0;
	return len >= XPRT_SHORT_HDR2 && rpcrdma_wire_get32(buf, 1) == RPCRDMA_VERS_2 &&
			       rpcrdma_wire_get32(buf, 3) == RPCRDMA_MSG &&
			       rpcrdma_wire_get32(buf, 4) == dir &&
			       (rpcrdma_wire_get32(buf, 5) | rpcrdma_wire_get32(buf, 6) |
				rpcrdma_wire_get32(buf, 7)) == 0
		       ? XPRT_SHORT_HDR2
		       : 0;
}

/* Bytes of a version's Short header. */
static inline uint32_t short_hdr_size(uint32_t vers)
{
	return vers == RPCRDMA_VERS_1 ? XPRT_SHORT_HDR : XPRT_SHORT_HDR2;
}

/*
 * Every inline stream of the engine starts XPRT_HDR_ROOM bytes into its
 * inline buffer (rpcrdma_xprt_call_alloc(), rpcrdma_xprt_svc_call_reply_enc()):
 * a Short header of either version goes right before the message, and the
 * Send is one contiguous gather entry, as a plain SEND of the same bytes
 * would be.
 */
static inline void inline_stream(struct rpcrdma_xdr_enc *xdr, struct rpcrdma_mempool *pool,
				 void *buf)
{
	/*
	 * What rpcrdma_xdr_enc_init() does, field by field: a region built
	 * on the stack and copied whole costs a store-forwarding stall when
	 * the fields are read back one by one (the gather entry).
	 */
	xdr->mem.addr = (uint8_t *)buf + XPRT_HDR_ROOM;
	xdr->mem.iova = (uint64_t)(uintptr_t)xdr->mem.addr;
	xdr->mem.len = pool->buf_size - XPRT_HDR_ROOM;
	xdr->mem.lkey = pool->lkey;
	xdr->mem.rkey = pool->rkey;
	xdr->len = 0;
	xdr->pos = 0;
	xdr->nddp = 0;
}

/* The stream is still the one inline_stream() gave over buf (the caller may not have moved it). */
static inline bool inline_stream_is(const struct rpcrdma_xdr_enc *xdr, const void *buf)
{
	return xdr->mem.addr == (const uint8_t *)buf + XPRT_HDR_ROOM;
}

/* Write the header before the message; the Send's one gather entry covers both. */
static inline uint16_t short_sgl(struct rpcrdma_marshal_sge *sge, const struct rpcrdma_xdr_enc *xdr,
				 uint32_t vers, uint32_t dir, uint32_t xid, uint32_t credit)
{
	uint8_t *end = (uint8_t *)xdr->mem.addr;
	uint8_t *h = short_hdr_put(end, vers, dir, xid, credit);

	sge[0].addr = (uintptr_t)h;
	sge[0].length = (uint32_t)(end - h) + xdr->len;
	sge[0].lkey = xdr->mem.lkey;
	return 1;
}

/* ------------------------------------------------------------ between the files */

/* xprt_conn.c: set-up, negotiation, teardown */
struct rpcrdma_xdr_region xprt_pool_region(struct rpcrdma_mempool *pool, void *buf, uint32_t len);
int xprt_hdr_areas(struct rpcrdma_mempool *pool, uint32_t n, struct rpcrdma_xdr_region *out,
		   void ***bufs, uint32_t *nbufs, struct rpcrdma_xdr_region *pad);
void xprt_free(struct rpcrdma_xprt *x);
void xprt_set_thresholds(struct rpcrdma_xprt *x);
const struct rpcrdma_marshal_conn *xprt_call_mconn(const struct rpcrdma_xprt *x);
const struct rpcrdma_marshal_conn *xprt_reply_mconn(const struct rpcrdma_xprt *x);
void xprt_vers_settle(struct rpcrdma_xprt *x, uint32_t vers);
uint64_t xprt_rc_cycles(uint32_t us);
void xprt_rc_restart(struct rpcrdma_xprt *x);

/* xprt_poll.c: receives, completions, the poll */
uint32_t xprt_post_recvs(struct rpcrdma_xprt *x);
enum rx_kind xprt_rx_classify(const struct rpcrdma_xprt *x, struct xprt_rx *rx);
void xprt_ctrl_recv(struct rpcrdma_xprt *x, struct xprt_rx *rx);
void xprt_sq_complete(struct rpcrdma_xprt *x, uint8_t type, void *owner, uint32_t seq, bool ok);
void xprt_conn_lost(struct rpcrdma_xprt *x);

/* xprt_req.c: the requester */
void xprt_put_accepted_words(uint8_t *p, uint32_t xid, uint32_t flavor, uint32_t accept_stat);
void xprt_call_unwait(struct rpcrdma_xprt_call *c);
void xprt_call_free_slot(struct rpcrdma_xprt_call *c);
int xprt_expose(struct rpcrdma_xprt_call *c, struct rpcrdma_xdr_region *r, uint32_t access);
void xprt_call_fail(struct rpcrdma_xprt_call *c, int status);
void xprt_call_process(struct rpcrdma_xprt_call *c);
void xprt_call_run_waiters(struct rpcrdma_xprt *x);
void xprt_call_timeouts(struct rpcrdma_xprt *x);
void xprt_client_recv(struct rpcrdma_xprt *x, struct xprt_rx *rx);
bool xprt_call_waits_reconnect(const struct rpcrdma_xprt_call *c);

/* xprt_rsp.c: the responder */
void xprt_svc_release(struct rpcrdma_xprt_svc_call *s);
void xprt_svc_process(struct rpcrdma_xprt_svc_call *s);
void xprt_svc_run_waiters(struct rpcrdma_xprt *x);
void xprt_stage_marker(struct rpcrdma_xprt *x);
void xprt_server_recv(struct rpcrdma_xprt *x, struct xprt_rx *rx);
void xprt_server_run_backlog(struct rpcrdma_xprt *x);

/* xprt_group.c: poll groups */
int xprt_group_join(struct rpcrdma_xprt *x);
void xprt_group_leave(struct rpcrdma_xprt *x);
uint32_t xprt_group_reserve(struct rpcrdma_xprt *x, uint32_t want);
void xprt_group_unreserve(struct rpcrdma_xprt *x);
void xprt_group_trim(struct rpcrdma_xprt *x);
struct xprt_ctrl *xprt_ctrl_peek(const struct rpcrdma_xprt *x);
void xprt_ctrl_take(struct rpcrdma_xprt *x, struct xprt_ctrl *k);
void xprt_ctrl_put(struct rpcrdma_xprt *x, struct xprt_ctrl *k);
/* A server's reservations beyond its grant's: one for the reply of each backward call out. */
static inline uint32_t xprt_group_bk_need(const struct rpcrdma_xprt *x)
{
	return !x->client && x->calls != NULL ? x->creq.outstanding : 0;
}
bool xprt_group_recv(struct rpcrdma_xprt *x);

/* xprt_poll.c, for the group's poll */
void xprt_flush_sends(struct rpcrdma_xprt *x);
void xprt_poll_begin(struct rpcrdma_xprt *x);
void xprt_handle_wc(struct rpcrdma_xprt *x, const struct rpcrdma_pmd_wc *wc);
/*
 * The group poll's short way with the completion of a fast reply's Send
 * (WR_SVC_SEND_BUF, signaled: every Send of a server in a group is): when
 * it is the connection's oldest WR and the connection has nothing else
 * going on (established, not pending, no RDMA Read out), it retires it and
 * takes its buffer back, and the connection is not visited (no poll begin
 * or end: nothing there depends on a Send retired). false: not such a
 * completion, nothing done.
 */
bool xprt_retire_fast_reply(struct rpcrdma_xprt *x, const struct rpcrdma_pmd_wc *wc);
void xprt_poll_end(struct rpcrdma_xprt *x, uint16_t n);
bool xprt_needs_poll(const struct rpcrdma_xprt *x);
bool xprt_work_besides_sends(const struct rpcrdma_xprt *x);

/* xprt_xchar.c: transport characteristics and control messages */
int xprt_xchar_init(struct rpcrdma_xprt *x);
void xprt_ctrl_send_error(struct rpcrdma_xprt *x, uint32_t xid, uint32_t code);
bool xprt_xchar_connect(struct rpcrdma_xprt *x);
void xprt_xchar_start(struct rpcrdma_xprt *x);
void xprt_xchar_stop(struct rpcrdma_xprt *x);
uint32_t xprt_optional(struct rpcrdma_xprt *x, const struct rpcrdma_hdr *h);
bool xprt_xchar_error(struct rpcrdma_xprt *x, const void *buf, uint32_t len);
void xprt_xchar_raise_check(struct rpcrdma_xprt *x);

#endif /* XPRT_INT_H */

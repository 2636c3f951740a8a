/* SPDX-License-Identifier: BSD-3-Clause */
/*
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
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_prefetch.h>

#include <rpcrdma/rpcrdma_credit.h>
#include <rpcrdma/rpcrdma_hdr.h>
#include <rpcrdma/rpcrdma_marshal.h>
#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_svc.h>
#include <rpcrdma/rpcrdma_telemetry.h>
#include <rpcrdma/rpcrdma_vers.h>
#include <rpcrdma/rpcrdma_xprt.h>
#include <rpcrdma/rpcrdma_xprt_svc.h>

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
	uint8_t hlen; /* rx_classify(): a version 1 Short header's length; else 0 */
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
	CALL_READY,	  /* holds a credit: marshal, expose its chunks, stage the Send */
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
	bool stalled;	 /* counted once as a credit stall */
	bool has_credit; /* holds a requester credit */
	bool replied;	 /* a reply matched */
	bool fast;	 /* sent Short without chunks: no plan beyond its gather list */
	bool resend;	 /* parked after a connection loss, to be sent again */
	uint16_t nmrs;
	uint32_t send_seq; /* the Send's send-ring sequence number */
	bool timed;	   /* in the timeout list */
	bool tmo_late;	   /* tmo_xid timed out after it was sent: its reply may come */
	bool tmo_credit;   /* ... and holds its credit until that reply (call_timeouts()) */
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
	/* the dispatcher's request (rpcrdma_xprt_svc.h): no allocation per call */
	struct rpcrdma_svc_req req;
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

struct rpcrdma_xprt {
	uint32_t magic;
	enum rpcrdma_xprt_state state;
	uint64_t id;			 /* telemetry: /rpcrdma/conn,<id> */
	LIST_ENTRY(rpcrdma_xprt) listed; /* in xprt_list (under xprt_list_lock) */
	struct rpcrdma_xprt_params p;
	/*
	 * The version of the messages sent now (a client's probe: 2, before
	 * it is settled), and whether it is settled for this connection
	 * (rpcrdma_vers.h): the client's vreq or the server's vresp says.
	 */
	uint32_t vers;
	bool vers_settled;
	bool backward;
	bool peer_pdata;
	bool disc_pending; /* server: accepted before the client's confirmation */
	struct rpcrdma_xprt_pdata peer;
	struct rpcrdma_marshal_conn mconn;
	/*
	 * The backward direction's marshaling (a server's calls, a client's
	 * replies): mconn with backward set, inline only unless the client's
	 * Backward Request Support is BKREQSUP_GENL (version 2).
	 */
	struct rpcrdma_marshal_conn bmconn;
	/* gather entries of a Send or RDMA Write: RPCRDMA_MARSHAL_MAX_SGE or the device's fewer */
	uint16_t max_send_sge;
	bool bc_ready; /* server: the upper layer said the client is ready (version 1) */
	struct rpcrdma_mempool *ipool;
	struct rpcrdma_pmd_cq *cq;
	struct rpcrdma_pmd_qp *qp;
	uint32_t sq_depth, rq_depth;
	uint32_t recv_len; /* bytes of each posted receive */
	/* receives */
	struct xprt_rx *rxs;
	uint32_t nrx;
	struct xprt_rx *rx_free;
	uint32_t rx_posted;
	bool recv_short; /* the last post_recvs() posted fewer than wanted: try each poll */
	bool recv_due;	 /* client: a batch to repost at the start of the next poll */
	/* server: received calls waiting for a free svc slot, FIFO */
	struct xprt_rx *backlog, *backlog_last;
	/*
	 * Server: inline buffers of fast replies whose Sends have retired,
	 * linked through their first word, LIFO. A fast reply's Send takes
	 * its buffer from the slot, so the slot is free at once and the next
	 * call finds it warm; the slot takes another buffer from here.
	 */
	void *rbuf_free;
	/* the send ring: WRs staged or posted and not yet retired (sq_out of them) */
	struct xprt_wr *sq_ring;
	/* a gather entry per ring entry, for WRs whose owner does not outlive them */
	struct rpcrdma_pmd_sge *sq_sge;
	uint32_t sq_mask;
	uint32_t sq_head; /* sequence number of the next WR */
	uint32_t sq_tail; /* the oldest not retired */
	uint32_t sq_out;
	uint32_t sq_unsig;  /* unsignaled WRs since the last signaled one */
	uint32_t sig_every; /* signal one WR in this many */
	uint32_t nstage;    /* staged for the next doorbell */
	struct rpcrdma_pmd_send_wr stage[XPRT_STAGE_MAX + 1]; /* + the drain marker */
	/* requester */
	struct rpcrdma_vers_req vreq;
	struct rpcrdma_vers_peers peers;  /* when p.vers_peers is NULL */
	char addr[RPCRDMA_VERS_ADDR_MAX]; /* connected to; "" when too long to remember */
	struct rpcrdma_credit_req creq;
	uint32_t tmo_credits; /* credits of creq held by timed-out calls (call_timeouts()) */
	/* client: reconnecting by itself (params.reconnect_max, reconnect_tick()) */
	bool rc_on;
	uint32_t rc_tries; /* attempts since the connection was last established */
	uint64_t rc_delay; /* TSC cycles before the next attempt */
	uint64_t rc_next;  /* TSC of the next attempt; 0: not scheduled yet */
	struct rpcrdma_xprt_call *calls;
	uint32_t ncalls, call_shift;
	uint32_t xid_seq;
	struct rpcrdma_xprt_call *call_free;
	struct call_fifo call_wait;
	uint32_t calls_busy;
	struct call_fifo tmo_list; /* submitted calls with a timeout, earliest deadline first */
	uint64_t tmo_next;	   /* the first deadline; UINT64_MAX when none */
	uint64_t call_timeout;	   /* p.call_timeout_us in TSC cycles */
	/*
	 * Version 2 transport characteristics (xcharext draft), both roles:
	 * on while version 2 is settled and the extension not turned off.
	 */
	struct rpcrdma_xchar_state xs;
	bool xchar_on;
	bool xchar_peer_unsupported; /* our ROPT_INITXCH was answered RDMA2_ERR_INVAL_OPTION */
	uint32_t xchar_init_xid;     /* rdma_xid of our ROPT_INITXCH */
	uint32_t ctrl_seq;	     /* server: XIDs of its control messages */
	struct xprt_ctrl ctrl[XPRT_CTRL_SLOTS];
	struct xprt_ctrl *ctrl_free;
	/* responder */
	struct rpcrdma_vers_resp vresp;
	struct rpcrdma_credit_resp cresp;
	struct rpcrdma_xprt_svc_call *svcs;
	uint32_t nsvcs;
	struct rpcrdma_xprt_svc_call *svc_free;
	struct svc_fifo svc_wait;
	uint32_t svc_active;
	/*
	 * Responder slots done during a poll, linked through next_free:
	 * released (reply_done, buffers back) after the poll's doorbell, off
	 * the round trip of their replies.
	 */
	struct rpcrdma_xprt_svc_call *svc_done;
	bool in_poll;
	uint32_t reads_out;
	/* transport header areas and the pad, carved from inline buffers */
	uint32_t nhdr_bufs;
	void **hdr_bufs;
	struct rpcrdma_xdr_region pad;
	int work;
	struct rpcrdma_xprt_stats st;
};

static const char *const state_names[] = {
	[RPCRDMA_XPRT_IDLE] = "IDLE",
	[RPCRDMA_XPRT_CONNECTING] = "CONNECTING",
	[RPCRDMA_XPRT_NEGOTIATING] = "NEGOTIATING",
	[RPCRDMA_XPRT_ESTABLISHED] = "ESTABLISHED",
	[RPCRDMA_XPRT_DRAINING] = "DRAINING",
	[RPCRDMA_XPRT_CLOSED] = "CLOSED",
	[RPCRDMA_XPRT_ERROR] = "ERROR",
};

const char *rpcrdma_xprt_state_name(enum rpcrdma_xprt_state st)
{
	if ((unsigned int)st >= sizeof(state_names) / sizeof(state_names[0]))
		return "UNKNOWN";
	return state_names[st];
}

static void call_process(struct rpcrdma_xprt_call *call);
static void svc_process(struct rpcrdma_xprt_svc_call *svc);
static void conn_lost(struct rpcrdma_xprt *x);
static int xchar_init(struct rpcrdma_xprt *x);
static bool xchar_connect(struct rpcrdma_xprt *x);
static void xchar_start(struct rpcrdma_xprt *x);
static void xchar_stop(struct rpcrdma_xprt *x);

/* ------------------------------------------------------------ telemetry */

/*
 * Every connection is listed for the telemetry provider ("xprt"), whose
 * callbacks run on EAL's telemetry thread under the telemetry module's lock
 * and then take xprt_list_lock: a connection is unlisted (under that lock)
 * before it is freed. The counters are read while the owning lcore writes
 * them: relaxed, possibly a poll behind, never torn on 64-bit targets.
 */
static pthread_mutex_t xprt_list_lock = PTHREAD_MUTEX_INITIALIZER;
static LIST_HEAD(, rpcrdma_xprt) xprt_list = LIST_HEAD_INITIALIZER(xprt_list);
static uint64_t xprt_next_id = 1;
static pthread_once_t xprt_tel_once = PTHREAD_ONCE_INIT;

static unsigned int tel_list(void *arg, uint64_t *ids, unsigned int max)
{
	struct rpcrdma_xprt *x;
	unsigned int n = 0;

	pthread_mutex_lock(&xprt_list_lock);
	LIST_FOREACH(x, &xprt_list, listed)
	{
		if (n == max)
			break;
		ids[n++] = x->id;
	}
	pthread_mutex_unlock(&xprt_list_lock);
	return n;
}

#define RD(v) __atomic_load_n(&(v), __ATOMIC_RELAXED)

static void tel_fill(const struct rpcrdma_xprt *x, struct rpcrdma_telemetry_kv *kv)
{
	const struct rpcrdma_xprt_stats *st = &x->st;
	bool cli = x->p.role == RPCRDMA_XPRT_CLIENT;

	rpcrdma_telemetry_kv_u64(kv, "id", x->id);
	rpcrdma_telemetry_kv_str(kv, "role", cli ? "client" : "server");
	rpcrdma_telemetry_kv_str(kv, "state", rpcrdma_xprt_state_name(RD(x->state)));
	rpcrdma_telemetry_kv_u64(kv, "vers", RD(x->vers));
	rpcrdma_telemetry_kv_u64(kv, "vers_settled", RD(x->vers_settled));
	rpcrdma_telemetry_kv_str(kv, "vers_state",
				 cli ? rpcrdma_vers_req_state_name(RD(x->vreq.state))
				     : rpcrdma_vers_resp_state_name(RD(x->vresp.state)));
	/* version 2 transport characteristics: ours and the peer's */
	rpcrdma_telemetry_kv_str(kv, "xchar_state", rpcrdma_xchar_st_name(RD(x->xs.st)));
	rpcrdma_telemetry_kv_u64(kv, "xchar_local_rbsiz", RD(x->xs.local.rbsiz));
	rpcrdma_telemetry_kv_u64(kv, "xchar_peer_rbsiz", RD(x->xs.peer.rbsiz));
	rpcrdma_telemetry_kv_u64(kv, "xchar_peer_reqreminv", RD(x->xs.peer.reqreminv));
	rpcrdma_telemetry_kv_u64(kv, "xchar_peer_brs", RD(x->xs.peer.brs));
	rpcrdma_telemetry_kv_u64(kv, "send_inline", RD(x->mconn.send_inline));
	rpcrdma_telemetry_kv_u64(kv, "recv_inline", RD(x->mconn.recv_inline));
	rpcrdma_telemetry_kv_u64(kv, "peer_remote_inv", RD(x->peer.remote_inv));
	rpcrdma_telemetry_kv_u64(kv, "recvs_posted", RD(x->rx_posted));
	rpcrdma_telemetry_kv_u64(kv, "sq_outstanding", RD(x->sq_out));
	if (cli) {
		/* the requester's credit state (rpcrdma_credit.h) */
		rpcrdma_telemetry_kv_u64(kv, "credit_max", x->creq.max);
		rpcrdma_telemetry_kv_u64(kv, "credit_grant", RD(x->creq.grant));
		rpcrdma_telemetry_kv_u64(kv, "credit_outstanding", RD(x->creq.outstanding));
		rpcrdma_telemetry_kv_u64(kv, "calls_busy", RD(x->calls_busy));
	} else {
		rpcrdma_telemetry_kv_u64(kv, "credit_max", RD(x->cresp.max));
		rpcrdma_telemetry_kv_u64(kv, "credit_target", RD(x->cresp.target));
		rpcrdma_telemetry_kv_u64(kv, "credit_last_grant", RD(x->cresp.last));
		rpcrdma_telemetry_kv_u64(kv, "credit_posted", RD(x->cresp.posted));
		rpcrdma_telemetry_kv_u64(kv, "credit_active", RD(x->cresp.active));
		rpcrdma_telemetry_kv_u64(kv, "excess_calls", RD(x->cresp.excess));
	}
#define ST(f) rpcrdma_telemetry_kv_u64(kv, #f, RD(st->f))
	ST(calls);
	ST(replies);
	ST(calls_recv);
	ST(short_msgs);
	ST(chunked_msgs);
	ST(long_msgs);
	ST(long_replies);
	ST(errors_sent);
	ST(errors_recv);
	ST(read_bytes);
	ST(write_bytes);
	ST(send_inv);
	ST(err_vers);
	ST(err_hdr);
	ST(err_chunk);
	ST(done_recv);
	ST(unmatched);
	ST(bad_replies);
	ST(dropped);
	ST(wc_errors);
	ST(flushed);
	ST(failed);
	ST(retransmits);
	ST(credit_stalls);
	ST(mr_regs);
	ST(mr_invalidates);
	ST(wrs);
	ST(recvs);
	ST(doorbells);
	ST(polls);
	ST(idle_polls);
	ST(max_outstanding);
	ST(reconnects);
	ST(timeouts);
	ST(late_replies);
	ST(vers_probes);
	ST(vers_fallbacks);
	ST(bad_direction);
	ST(options_recv);
	ST(err_option);
	ST(xchar_sent);
	ST(xchar_recv);
	ST(xchar_errors);
	ST(ctrl_drops);
	ST(bc_refused);
	ST(inline_pullups);
	ST(err_xid);
	ST(reply_buf_short);
	ST(reconnect_attempts);
	ST(reconnect_give_ups);
	ST(tmo_disconnects);
#undef ST
}

static int tel_info(void *arg, uint64_t id, struct rpcrdma_telemetry_kv *kv)
{
	struct rpcrdma_xprt *x;
	int ret = -ENOENT;

	pthread_mutex_lock(&xprt_list_lock);
	LIST_FOREACH(x, &xprt_list, listed)
	{
		if (x->id == id) {
			tel_fill(x, kv);
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&xprt_list_lock);
	return ret;
}

static const struct rpcrdma_telemetry_conn_provider xprt_provider = {
	.name = "xprt",
	.list = tel_list,
	.info = tel_info,
};

static void tel_register(void)
{
	/* at most -ENOSPC (other providers): the engine works without telemetry */
	rpcrdma_telemetry_conn_provider_add(&xprt_provider);
}

static void xprt_list_add(struct rpcrdma_xprt *x)
{
	pthread_once(&xprt_tel_once, tel_register);
	pthread_mutex_lock(&xprt_list_lock);
	x->id = xprt_next_id++;
	LIST_INSERT_HEAD(&xprt_list, x, listed);
	pthread_mutex_unlock(&xprt_list_lock);
}

static void xprt_list_del(struct rpcrdma_xprt *x)
{
	if (x->id == 0)
		return;
	pthread_mutex_lock(&xprt_list_lock);
	LIST_REMOVE(x, listed);
	pthread_mutex_unlock(&xprt_list_lock);
	x->id = 0;
}

/* ------------------------------------------------------------ setup */

void rpcrdma_xprt_params_init(struct rpcrdma_xprt_params *p, enum rpcrdma_xprt_role role)
{
	memset(p, 0, sizeof(*p));
	p->role = role;
	p->vers = RPCRDMA_VERS_1;
	p->vers_min = RPCRDMA_VERS_1;
	p->max_credits = 32;
	p->credits = 0;
	p->max_calls = 64;
	p->max_call = (1u << 20) + (64u << 10);
	p->max_seg_len = 1u << 20;
	p->read_depth = 16;
	p->flags = RPCRDMA_XPRT_F_PER_CALL_MR | RPCRDMA_XPRT_F_REMOTE_INV |
		   RPCRDMA_XPRT_F_REPLY_CHUNK_ALWAYS;
	p->reconnect_delay_us = 1000;
	p->reconnect_delay_max_us = 1000000;
}

static bool is_pow2(uint32_t v)
{
	return v && (v & (v - 1)) == 0;
}

static int check_params(const struct rpcrdma_xprt_params *p)
{
	uint32_t bsz;

	if (p->dev == NULL || p->pd == NULL || p->pools == NULL || p->pools->inline_pool == NULL)
		return -EINVAL;
	if (p->bk_credits > 1024)
		return -EINVAL;
	if (p->vers != RPCRDMA_VERS_1 && p->vers != RPCRDMA_VERS_2)
		return -EINVAL;
	if (p->role == RPCRDMA_XPRT_SERVER &&
	    (p->vers_min < RPCRDMA_VERS_1 || p->vers_min > p->vers))
		return -EINVAL;
	if (p->max_credits == 0 || p->max_credits > 4096 || p->credits > p->max_credits)
		return -EINVAL;
	bsz = p->pools->inline_pool->buf_size;
	if (p->send_inline > bsz || p->recv_inline > bsz || bsz < RPCRDMA_V1_INLINE_DEFAULT)
		return -EINVAL;
	if (p->max_seg_len == 0 || p->read_depth == 0)
		return -EINVAL;
	if (p->xchar_nochg & ~RPCRDMA_XCHAR_KNOWN)
		return -EINVAL;
	if (p->role == RPCRDMA_XPRT_CLIENT) {
		if (!is_pow2(p->max_calls) || p->max_calls > XPRT_CALLS_MAX)
			return -EINVAL;
		if (p->bk_credits != 0 && p->recv_call == NULL)
			return -EINVAL; /* backward calls need a handler */
	} else if (p->role == RPCRDMA_XPRT_SERVER) {
		if (p->recv_call == NULL)
			return -EINVAL;
	} else {
		return -EINVAL;
	}
	return 0;
}

static struct rpcrdma_xdr_region pool_region(struct rpcrdma_mempool *pool, void *buf, uint32_t len)
{
	return rpcrdma_xdr_region_va(buf, len, pool->lkey, pool->rkey);
}

/* Carve n header areas and the pad from inline buffers. */
static int hdr_areas(struct rpcrdma_xprt *x, uint32_t n, struct rpcrdma_xdr_region *out)
{
	uint32_t bsz = x->ipool->buf_size, per = bsz / XPRT_HDR_AREA, i;

	/* one more area for the pad */
	x->nhdr_bufs = (n + 1 + per - 1) / per;
	x->hdr_bufs = calloc(x->nhdr_bufs, sizeof(void *));
	if (x->hdr_bufs == NULL)
		return -ENOMEM;
	if (rpcrdma_mempool_get_bulk(x->ipool, x->hdr_bufs, x->nhdr_bufs) != 0) {
		free(x->hdr_bufs);
		x->hdr_bufs = NULL;
		x->nhdr_bufs = 0;
		return -ENOBUFS;
	}
	for (i = 0; i <= n; i++) {
		uint8_t *b = (uint8_t *)x->hdr_bufs[i / per] + (i % per) * XPRT_HDR_AREA;

		if (i == n) {
			memset(b, 0, 4);
			x->pad = pool_region(x->ipool, b, 4);
		} else {
			out[i] = pool_region(x->ipool, b, XPRT_HDR_AREA);
		}
	}
	return 0;
}

static void xprt_free(struct rpcrdma_xprt *x)
{
	uint32_t i;

	xprt_list_del(x);
	/* receive, message and reply buffers stay with their slots for the connection's life */
	for (i = 0; x->rxs != NULL && i < x->nrx; i++)
		if (x->rxs[i].buf != NULL)
			rpcrdma_mempool_put(x->ipool, x->rxs[i].buf);
	for (i = 0; x->calls != NULL && i < x->ncalls; i++)
		if (x->calls[i].msg_buf != NULL)
			rpcrdma_mempool_put(x->ipool, x->calls[i].msg_buf);
	for (i = 0; x->svcs != NULL && i < x->nsvcs; i++)
		if (x->svcs[i].reply_buf != NULL)
			rpcrdma_mempool_put(x->ipool, x->svcs[i].reply_buf);
	while (x->rbuf_free != NULL) {
		void *b = x->rbuf_free;

		x->rbuf_free = *(void **)b;
		rpcrdma_mempool_put(x->ipool, b);
	}
	if (x->nhdr_bufs)
		rpcrdma_mempool_put_bulk(x->ipool, x->hdr_bufs, x->nhdr_bufs);
	free(x->hdr_bufs);
	if (x->cq != NULL)
		rpcrdma_pmd_cq_destroy(x->cq);
	free(x->rxs);
	free(x->sq_ring);
	free(x->sq_sge);
	free(x->calls);
	free(x->svcs);
	x->magic = 0;
	free(x);
}

/* Microseconds in TSC cycles, without overflow. */
static uint64_t us_to_tsc(uint64_t us)
{
	uint64_t hz = rte_get_tsc_hz();

	/* past a quarter of the TSC range: never (a deadline must not wrap) */
	if (us / 1000000 >= UINT64_MAX / 4 / hz)
		return UINT64_MAX / 4;
	return us / 1000000 * hz + us % 1000000 * hz / 1000000;
}

/*
 * What the device can do decides, for every user of the library, whatever
 * the params ask:
 *   - per-call registrations only where a registration is cheap (elsewhere
 *     each is a system call that pins pages), remote invalidation only
 *     where a peer's Send With Invalidate can invalidate our MRs
 *     (elsewhere a whole-range registration would be invalidated under
 *     every other call using it);
 *   - the gather entries of a Send or Write: at most the device's
 *     max_send_sge (siw: 6), at least the 2 a message needs (its header
 *     and its XDR stream).
 * -EOPNOTSUPP: a device that cannot gather 2 entries.
 */
static int dev_caps(struct rpcrdma_xprt *x)
{
	struct rpcrdma_pmd_dev_info di;
	int ret;

	ret = rpcrdma_pmd_dev_info_get(x->p.dev, &di);
	if (ret)
		return ret;
	if (!(di.flags & RPCRDMA_PMD_DEV_CHEAP_MR_REG))
		x->p.flags &= ~RPCRDMA_XPRT_F_PER_CALL_MR;
	if (!(di.flags & RPCRDMA_PMD_DEV_REMOTE_INV))
		x->p.flags &= ~RPCRDMA_XPRT_F_REMOTE_INV;
	if (di.max_send_sge < 2)
		return -EOPNOTSUPP;
	x->max_send_sge = (uint16_t)RTE_MIN(di.max_send_sge, (uint32_t)RPCRDMA_MARSHAL_MAX_SGE);
	return 0;
}

static int xprt_alloc(const struct rpcrdma_xprt_params *p, struct rpcrdma_xprt **xp)
{
	struct rpcrdma_xdr_region *areas = NULL;
	struct rpcrdma_xprt *x;
	uint32_t i, nslots;
	int ret;

	ret = check_params(p);
	if (ret)
		return ret;
	x = calloc(1, sizeof(*x));
	if (x == NULL)
		return -ENOMEM;
	x->magic = XPRT_MAGIC;
	x->p = *p;
	x->state = RPCRDMA_XPRT_IDLE;
	x->vers = p->role == RPCRDMA_XPRT_CLIENT ? RPCRDMA_VERS_1 : p->vers_min;
	x->backward = p->bk_credits != 0;
	x->ipool = p->pools->inline_pool;
	if (x->p.send_inline == 0)
		x->p.send_inline = x->ipool->buf_size;
	if (x->p.recv_inline == 0)
		x->p.recv_inline = x->ipool->buf_size;
	if (x->p.credits == 0)
		x->p.credits = p->max_credits;
	ret = dev_caps(x);
	if (ret)
		goto err_free;
	if (!(x->p.flags & RPCRDMA_XPRT_F_PER_CALL_MR))
		x->p.flags &= ~RPCRDMA_XPRT_F_REMOTE_INV;
	TAILQ_INIT(&x->call_wait);
	TAILQ_INIT(&x->tmo_list);
	x->tmo_next = UINT64_MAX;
	x->call_timeout = us_to_tsc(p->call_timeout_us);
	TAILQ_INIT(&x->svc_wait);
	x->recv_len = x->p.recv_inline;

	/*
	 * Requester slots (calls): a client's forward calls, a server's
	 * backward calls. Responder slots (svcs): a server's forward calls, a
	 * client's backward calls. Both use the same code; the credits of a
	 * direction are creq on its requester side and cresp on its responder
	 * side (a client's backward grant is fixed: bk_credits).
	 */
	if (p->role == RPCRDMA_XPRT_CLIENT) {
		x->ncalls = p->max_calls;
		x->sq_depth = x->ncalls;
		x->rq_depth = p->max_credits + XPRT_CLI_UNSOL;
		x->nrx = p->max_credits + x->ncalls + 4;
		if (p->bk_credits) {
			/* backward calls: receives posted for them, and their replies' WRs */
			x->nsvcs = p->bk_credits + XPRT_SVC_EXTRA + XPRT_SIGNAL_EVERY;
			x->rq_depth += p->bk_credits;
			x->nrx += p->bk_credits + x->nsvcs;
			x->sq_depth += x->nsvcs + XPRT_REPLY_WRS;
			ret = rpcrdma_credit_resp_init(&x->cresp, p->bk_credits, p->bk_credits);
			if (ret)
				goto err_free;
		}
		nslots = x->ncalls + x->nsvcs;
		rpcrdma_vers_peers_init(&x->peers);
		ret = rpcrdma_vers_req_init(&x->vreq,
					    p->vers == RPCRDMA_VERS_2
						    ? RPCRDMA_VERS_REQ_V2_PREFERRED
						    : RPCRDMA_VERS_REQ_V1_ONLY,
					    p->vers_peers != NULL ? p->vers_peers : &x->peers);
		if (ret == 0)
			ret = rpcrdma_credit_req_init(&x->creq, p->max_credits);
	} else {
		/* slots also wait for their reply's Send to retire (unsignaled) */
		x->nsvcs = p->max_credits + XPRT_SVC_EXTRA + XPRT_SIGNAL_EVERY;
		x->sq_depth = XPRT_SVC_SQ;
		x->rq_depth = p->max_credits + XPRT_RECV_SPARE;
		x->nrx = x->rq_depth + x->nsvcs;
		if (p->bk_credits) {
			/* backward calls: a receive for each one's reply */
			x->ncalls = 2;
			while (x->ncalls < p->bk_credits)
				x->ncalls <<= 1;
			x->rq_depth += p->bk_credits;
			x->nrx += p->bk_credits + x->ncalls;
			x->sq_depth += x->ncalls;
			ret = rpcrdma_credit_req_init(&x->creq, p->bk_credits);
			if (ret)
				goto err_free;
		}
		nslots = x->ncalls + x->nsvcs;
		ret = rpcrdma_vers_resp_init(
			&x->vresp, p->vers == RPCRDMA_VERS_1	   ? RPCRDMA_VERS_RESP_V1_ONLY
				   : p->vers_min == RPCRDMA_VERS_2 ? RPCRDMA_VERS_RESP_V2_ONLY
								   : RPCRDMA_VERS_RESP_BOTH);
		if (ret == 0)
			ret = rpcrdma_credit_resp_init(&x->cresp, x->p.credits, p->max_credits);
	}
	if (ret)
		goto err_free;
	/* a call's XID is its slot index below call_shift bits */
	while ((1u << x->call_shift) < x->ncalls)
		x->call_shift++;
	ret = -ENOMEM;
	/* the ring holds sq_depth WRs and the drain marker */
	x->sq_mask = 1;
	while (x->sq_mask < x->sq_depth + 1)
		x->sq_mask <<= 1;
	x->sq_ring = calloc(x->sq_mask, sizeof(*x->sq_ring));
	x->sq_sge = calloc(x->sq_mask, sizeof(*x->sq_sge));
	x->sq_mask--;
	/* with at most half the queue unsignaled, a full queue always has a signaled WR */
	x->sig_every = RTE_MIN((uint32_t)XPRT_SIGNAL_EVERY, x->sq_depth / 2);
	if (x->sig_every == 0)
		x->sig_every = 1;
	x->rxs = calloc(x->nrx, sizeof(*x->rxs));
	areas = calloc(nslots + XPRT_CTRL_SLOTS, sizeof(*areas));
	if (x->rxs == NULL || areas == NULL || x->sq_ring == NULL || x->sq_sge == NULL)
		goto err_free;
	for (i = 0; i < x->nrx; i++) {
		x->rxs[i].tag.type = WR_RECV;
		x->rxs[i].tag.owner = &x->rxs[i];
		x->rxs[i].next = x->rx_free;
		x->rx_free = &x->rxs[i];
	}
	if (x->ncalls) {
		x->calls = calloc(x->ncalls, sizeof(*x->calls));
		if (x->calls == NULL)
			goto err_free;
	}
	if (x->nsvcs) {
		x->svcs = calloc(x->nsvcs, sizeof(*x->svcs));
		if (x->svcs == NULL)
			goto err_free;
	}
	ret = hdr_areas(x, nslots + XPRT_CTRL_SLOTS, areas);
	if (ret)
		goto err_free;
	for (i = XPRT_CTRL_SLOTS; i-- > 0;) {
		x->ctrl[i].area = areas[nslots + i];
		x->ctrl[i].next = x->ctrl_free;
		x->ctrl_free = &x->ctrl[i];
	}
	ret = xchar_init(x);
	if (ret)
		goto err_free;
	x->xid_seq = (uint32_t)rte_rdtsc();
	for (i = x->ncalls; i-- > 0;) {
		struct rpcrdma_xprt_call *c = &x->calls[i];

		c->xprt = x;
		c->hdr = areas[i];
		c->next_free = x->call_free;
		x->call_free = c;
	}
	for (i = x->nsvcs; i-- > 0;) {
		struct rpcrdma_xprt_svc_call *s = &x->svcs[i];

		s->xprt = x;
		s->hdr = areas[x->ncalls + i];
		s->next_free = x->svc_free;
		x->svc_free = s;
	}
	free(areas);
	areas = NULL;
	ret = rpcrdma_pmd_cq_create(p->dev, x->sq_depth + 1 + x->rq_depth + XPRT_BURST, &x->cq);
	if (ret) {
		x->cq = NULL;
		goto err_free;
	}
	xprt_list_add(x);
	*xp = x;
	return 0;

err_free:
	free(areas);
	xprt_free(x);
	return ret;
}

int rpcrdma_xprt_create(const struct rpcrdma_xprt_params *p, struct rpcrdma_xprt **xprt)
{
	if (p->role != RPCRDMA_XPRT_CLIENT)
		return -EINVAL;
	return xprt_alloc(p, xprt);
}

static int qp_create(struct rpcrdma_xprt *x)
{
	struct rpcrdma_pmd_qp_attr attr;
	int ret;

	rpcrdma_pmd_qp_attr_init(&attr);
	attr.send_cq = x->cq;
	attr.recv_cq = x->cq;
	attr.context = x;
	attr.max_send_wr = x->sq_depth + 1; /* + the drain marker */
	attr.max_recv_wr = x->rq_depth;
	attr.max_send_sge = x->max_send_sge;
	attr.max_recv_sge = 1;
	attr.rnr_retry = 7;
	attr.rnr_timer_us = 5;
	attr.flags = RPCRDMA_PMD_QP_F_RECV_PREFETCH; /* every message is decoded at once */
	ret = rpcrdma_pmd_qp_create(x->p.pd, &attr, &x->qp);
	if (ret == 0 && x->p.qp_created != NULL)
		x->p.qp_created(x->p.qp_ctx, x->qp); /* before any receive is posted */
	return ret;
}

static void our_pdata(const struct rpcrdma_xprt *x, uint8_t *buf)
{
	struct rpcrdma_xprt_pdata pd = {
		.version = RPCRDMA_XPRT_PDATA_VERSION,
		/* only a requester exposes memory a Send With Invalidate could name */
		.remote_inv = x->p.role == RPCRDMA_XPRT_CLIENT &&
			      (x->p.flags & RPCRDMA_XPRT_F_REMOTE_INV) != 0,
		.send_inline = x->p.send_inline,
		.recv_inline = x->p.recv_inline,
	};

	rpcrdma_xprt_pdata_encode(&pd, buf, RPCRDMA_XPRT_PDATA_LEN);
}

/*
 * The inline thresholds of the version sent now: we send at most what the
 * peer receives, and receive at most what it sends, as its RFC 8797
 * private data says or, without any, the version's default (1024 in
 * version 1, rfc5666bis 4.3.1; 4096 once version 2 is settled, v2 draft
 * 5.1); never more than our own. A version 2 probe fits the version 1
 * default (v2 draft 5), and so does what we expect back until version 2
 * is settled. Thresholds change with the version on a live connection
 * (v2 draft 5.3): they are read per message.
 */
static void set_thresholds(struct rpcrdma_xprt *x)
{
	struct rpcrdma_marshal_conn *m = &x->mconn;
	uint32_t dflt = x->vers == RPCRDMA_VERS_2 && x->vers_settled ? RPCRDMA_V2_INLINE_DEFAULT
								     : RPCRDMA_V1_INLINE_DEFAULT;

	m->vers = x->vers;
	m->send_inline = RTE_MIN(x->p.send_inline, x->peer_pdata ? x->peer.recv_inline : dflt);
	m->recv_inline = RTE_MIN(x->p.recv_inline, x->peer_pdata ? x->peer.send_inline : dflt);
	if (x->xchar_on && x->xs.peer_init) {
		/*
		 * Version 2 with the peer's characteristics (xcharext 3.1):
		 * we send at most its Receive Buffer Size (less while our
		 * request to lower it stands), and it sends at most ours.
		 */
		m->send_inline = RTE_MIN(x->p.send_inline, rpcrdma_xchar_state_max_send(&x->xs));
		m->recv_inline = RTE_MIN(x->p.recv_inline, x->xs.local.rbsiz);
	}
	/* whatever the peer said, the probe fits the version 1 default */
	if (!x->vers_settled && x->p.role == RPCRDMA_XPRT_CLIENT)
		m->send_inline = RTE_MIN(m->send_inline, (uint32_t)RPCRDMA_VERS_PROBE_MAX);
	if (x->p.role == RPCRDMA_XPRT_SERVER) {
		/* Send With Invalidate: the RFC 8797 flag, or in version 2 the peer's REQREMINV */
		bool inv =
			x->xchar_on ? rpcrdma_xchar_state_send_inv_ok(&x->xs) : x->peer.remote_inv;

		if (inv)
			m->flags |= RPCRDMA_MARSHAL_F_REMOTE_INV;
		else
			m->flags &= ~RPCRDMA_MARSHAL_F_REMOTE_INV;
	}
	/*
	 * The backward direction (RFC 8167 2.5, 2.6; xcharext 3.3): the same
	 * thresholds, no chunks in version 1 nor when the client's Backward
	 * Request Support is not BKREQSUP_GENL.
	 */
	x->bmconn = *m;
	x->bmconn.backward = true;
	x->bmconn.flags = 0;
	if (x->p.role == RPCRDMA_XPRT_SERVER
		    ? !(x->xchar_on && x->xs.peer_init && x->xs.peer.brs == RPCRDMA_BKREQSUP_GENL)
		    : !(x->xchar_on && x->xs.local.brs == RPCRDMA_BKREQSUP_GENL))
		x->bmconn.flags |= RPCRDMA_MARSHAL_F_INLINE_ONLY;
}

/* The marshaling of the calls of our requester slots, and of our replies. */
static const struct rpcrdma_marshal_conn *call_mconn(const struct rpcrdma_xprt *x)
{
	return x->p.role == RPCRDMA_XPRT_CLIENT ? &x->mconn : &x->bmconn;
}

static const struct rpcrdma_marshal_conn *reply_mconn(const struct rpcrdma_xprt *x)
{
	return x->p.role == RPCRDMA_XPRT_SERVER ? &x->mconn : &x->bmconn;
}

/* The version is settled for this connection (v2 draft 5.1, 5.2; server: its first call). */
static void vers_settle(struct rpcrdma_xprt *x, uint32_t vers)
{
	x->vers = vers;
	x->vers_settled = true;
	set_thresholds(x);
}

/*
 * Client, connection established: version 1 (configured, or remembered for
 * this peer), or version 2 to probe with the first call (v2 draft 5).
 */
static void vers_connected(struct rpcrdma_xprt *x)
{
	if (rpcrdma_vers_req_connect(&x->vreq, x->addr) == RPCRDMA_VERS_REQ_V1) {
		vers_settle(x, RPCRDMA_VERS_1);
		return;
	}
	x->vers = RPCRDMA_VERS_2;
	x->vers_settled = false;
	/* a server's ROPT_INITXCH comes before the probe's reply: take it */
	xchar_connect(x);
	set_thresholds(x);
}

/*
 * NEGOTIATING: apply the peer's private data (RFC 8797) to the thresholds
 * (set_thresholds()).
 */
static void negotiate(struct rpcrdma_xprt *x, const void *pdata, size_t len)
{
	struct rpcrdma_marshal_conn *m = &x->mconn;

	x->peer_pdata = rpcrdma_xprt_pdata_decode(&x->peer, pdata, len) == 0;
	rpcrdma_marshal_conn_init(m);
	m->backward = false; /* forward messages; bmconn is the backward direction's */
	m->max_seg_len = x->p.max_seg_len;
	m->max_send_sge = x->max_send_sge;
	m->pad = x->pad;
	m->flags = 0;
	if (x->p.role == RPCRDMA_XPRT_SERVER && (x->p.flags & RPCRDMA_XPRT_F_REPLY_CHUNK_ALWAYS))
		m->flags |= RPCRDMA_MARSHAL_F_REPLY_CHUNK_ALWAYS;
	set_thresholds(x);
}

static uint64_t rc_cycles(uint32_t us)
{
	return rte_get_tsc_hz() / 1000000 * (uint64_t)(us ? us : 1);
}

/* Reconnect attempts counted afresh: the next one reconnect_delay_us after a loss. */
static void rc_restart(struct rpcrdma_xprt *x)
{
	x->rc_tries = 0;
	x->rc_delay = rc_cycles(x->p.reconnect_delay_us);
}

int rpcrdma_xprt_connect(struct rpcrdma_xprt *x, const char *addr)
{
	uint8_t pd[RPCRDMA_XPRT_PDATA_LEN];
	int ret;

	if (x->p.role != RPCRDMA_XPRT_CLIENT)
		return -EINVAL;
	if (x->state != RPCRDMA_XPRT_IDLE && x->state != RPCRDMA_XPRT_CLOSED &&
	    x->state != RPCRDMA_XPRT_ERROR)
		return -EISCONN;
	ret = qp_create(x);
	if (ret) {
		x->qp = NULL;
		x->state = RPCRDMA_XPRT_ERROR;
		return ret;
	}
	our_pdata(x, pd);
	/* the key of the peer memory (v2 draft 5.2); not remembered when too long */
	if (addr != NULL && strlen(addr) < sizeof(x->addr))
		memcpy(x->addr, addr, strlen(addr) + 1);
	else
		x->addr[0] = '\0';
	ret = rpcrdma_pmd_connect(x->qp, addr, pd, sizeof(pd));
	if (ret) {
		rpcrdma_pmd_qp_destroy(x->qp);
		x->qp = NULL;
		x->state = RPCRDMA_XPRT_ERROR;
		return ret;
	}
	if (x->state != RPCRDMA_XPRT_IDLE)
		x->st.reconnects++;
	if (x->p.reconnect_max > 0 && !x->rc_on) {
		x->rc_on = true;
		rc_restart(x);
	}
	x->rc_next = 0;
	rpcrdma_credit_req_reset(&x->creq);
	/* the old connection's calls are gone with it, and their credits */
	x->tmo_credits = 0;
	for (uint32_t i = 0; i < x->ncalls; i++)
		x->calls[i].tmo_late = x->calls[i].tmo_credit = false;
	x->state = RPCRDMA_XPRT_CONNECTING;
	return 0;
}

static uint32_t post_recvs(struct rpcrdma_xprt *x);

int rpcrdma_xprt_accept(const struct rpcrdma_xprt_params *p, const struct rpcrdma_pmd_event *ev,
			struct rpcrdma_xprt **xp)
{
	uint8_t pd[RPCRDMA_XPRT_PDATA_LEN];
	struct rpcrdma_xprt *x;
	int ret;

	if (p->role != RPCRDMA_XPRT_SERVER || ev->type != RPCRDMA_PMD_EVENT_CONNECT_REQUEST)
		return -EINVAL;
	ret = xprt_alloc(p, &x);
	if (ret)
		goto err_reject;
	ret = qp_create(x);
	if (ret)
		goto err_free;
	x->state = RPCRDMA_XPRT_NEGOTIATING;
	negotiate(x, ev->private_data, ev->private_data_len);
	/* receives for the first grant are posted before the client can send */
	post_recvs(x);
	our_pdata(x, pd);
	ret = rpcrdma_pmd_accept(ev->req, x->qp, pd, sizeof(pd));
	if (ret)
		goto err_qp;
	x->state = RPCRDMA_XPRT_CONNECTING;
	*xp = x;
	return 0;

err_qp:
	/* the posted receives flush with the QP; their buffers come back here */
	rpcrdma_pmd_qp_destroy(x->qp);
	xprt_free(x);
	return ret;
err_free:
	xprt_free(x);
err_reject:
	rpcrdma_pmd_reject(ev->req, NULL, 0);
	return ret;
}

int rpcrdma_xprt_event(const struct rpcrdma_pmd_event *ev)
{
	struct rpcrdma_xprt *x;

	if (ev->qp == NULL || ev->qp->context == NULL)
		return 0;
	x = ev->qp->context;
	if (x->magic != XPRT_MAGIC || x->qp != ev->qp)
		return 0;
	switch (ev->type) {
	case RPCRDMA_PMD_EVENT_ESTABLISHED:
		if (x->state != RPCRDMA_XPRT_CONNECTING)
			break;
		if (x->p.role == RPCRDMA_XPRT_CLIENT) {
			x->state = RPCRDMA_XPRT_NEGOTIATING;
			negotiate(x, ev->private_data, ev->private_data_len);
			vers_connected(x);
		} else {
			x->state = RPCRDMA_XPRT_ESTABLISHED;
		}
		break;
	case RPCRDMA_PMD_EVENT_REJECTED:
	case RPCRDMA_PMD_EVENT_CONNECT_ERROR:
		if (x->state == RPCRDMA_XPRT_CONNECTING) {
			rpcrdma_pmd_qp_destroy(x->qp);
			x->qp = NULL;
			x->state = RPCRDMA_XPRT_ERROR;
		}
		break;
	case RPCRDMA_PMD_EVENT_DISCONNECTED:
		conn_lost(x);
		break;
	default:
		return 0;
	}
	rpcrdma_xprt_process(x);
	return 1;
}

int rpcrdma_xprt_disconnect(struct rpcrdma_xprt *x)
{
	x->rc_on = false; /* the application's own: no reconnect */
	if (x->state != RPCRDMA_XPRT_ESTABLISHED && x->state != RPCRDMA_XPRT_CONNECTING &&
	    x->state != RPCRDMA_XPRT_NEGOTIATING)
		return -ENOTCONN;
	conn_lost(x);
	return 0;
}

int rpcrdma_xprt_destroy(struct rpcrdma_xprt *x)
{
	if (x->state != RPCRDMA_XPRT_IDLE && x->state != RPCRDMA_XPRT_CLOSED &&
	    x->state != RPCRDMA_XPRT_ERROR)
		return -EBUSY;
	if (x->calls_busy || x->svc_active)
		return -EBUSY;
	xprt_free(x);
	return 0;
}

enum rpcrdma_xprt_state rpcrdma_xprt_state(const struct rpcrdma_xprt *x)
{
	return x->state;
}

int rpcrdma_xprt_set_credits(struct rpcrdma_xprt *x, uint32_t credits)
{
	if (x->p.role != RPCRDMA_XPRT_SERVER)
		return -EINVAL;
	x->recv_short = true; /* the next poll posts for the new grant */
	return rpcrdma_credit_resp_set_target(&x->cresp, credits);
}

void rpcrdma_xprt_info(const struct rpcrdma_xprt *x, struct rpcrdma_xprt_info *info)
{
	memset(info, 0, sizeof(*info));
	info->vers = x->vers;
	info->vers_settled = x->vers_settled;
	if (x->p.role == RPCRDMA_XPRT_SERVER && x->ncalls) {
		info->bk_grant = x->creq.grant;
		info->bk_outstanding = x->creq.outstanding;
		info->bk_ready = rpcrdma_xprt_bc_may_call(x) == 0;
	} else if (x->p.role == RPCRDMA_XPRT_CLIENT && x->nsvcs) {
		info->bk_grant = x->p.bk_credits;
		info->bk_outstanding = x->cresp.active;
	}
	info->backward = x->backward;
	info->send_inline = x->mconn.send_inline;
	info->recv_inline = x->mconn.recv_inline;
	info->peer_remote_inv = x->peer.remote_inv;
	info->peer_pdata = x->peer_pdata;
	if (x->p.role == RPCRDMA_XPRT_CLIENT) {
		info->grant = x->creq.grant;
		info->outstanding = x->creq.outstanding;
	} else {
		info->grant = x->cresp.target;
		info->outstanding = x->cresp.active;
	}
	info->qp = x->qp;
	info->id = x->id;
	info->flags = x->p.flags;
	info->sends_out = x->sq_out;
	info->recvs_posted = x->rx_posted;
	info->svc_unreleased = x->svc_active;
}

void rpcrdma_xprt_stats(const struct rpcrdma_xprt *x, struct rpcrdma_xprt_stats *st)
{
	*st = x->st;
	if (x->p.role == RPCRDMA_XPRT_SERVER)
		st->excess_calls = x->cresp.excess;
}

/* ------------------------------------------------------------ fast path helpers */

/* Send-queue room for n more WRs this poll. */
static bool sq_room(const struct rpcrdma_xprt *x, uint32_t n)
{
	return x->nstage + n <= XPRT_STAGE_MAX && x->sq_out + n <= x->sq_depth;
}

/*
 * Stage a send-queue WR of @owner into the send ring. It is signaled when
 * @signal asks (the owner needs this completion), or when it is the
 * sig_every-th since the last signaled one.
 */
static struct rpcrdma_pmd_send_wr *stage(struct rpcrdma_xprt *x, uint8_t type, void *owner,
					 bool signal)
{
	struct rpcrdma_pmd_send_wr *wr = &x->stage[x->nstage++];
	struct xprt_wr *e = &x->sq_ring[x->sq_head & x->sq_mask];

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

/* Ring one doorbell for everything staged. */
static void flush_sends(struct rpcrdma_xprt *x)
{
	uint16_t n;

	if (x->nstage == 0 || x->qp == NULL)
		return;
	n = rpcrdma_pmd_queue_send_burst(x->qp, x->stage, (uint16_t)x->nstage);
	if (n == 0 && x->qp->state != RPCRDMA_PMD_QPS_RTS && x->qp->state != RPCRDMA_PMD_QPS_ERROR)
		return; /* not yet connected: they go at a later poll */
	if (n < x->nstage)
		memmove(x->stage, x->stage + n, (x->nstage - n) * sizeof(x->stage[0]));
	x->nstage -= n;
	x->st.wrs += n;
	if (rpcrdma_pmd_flush(x->qp) != 0)
		x->st.doorbells++;
}

uint32_t rpcrdma_xprt_flush(struct rpcrdma_xprt *x)
{
	uint32_t before = x->nstage;

	flush_sends(x);
	return before - x->nstage;
}

/*
 * A receive is free again. Its buffer stays with it, to be posted again
 * without a trip through the pool (Linux xprtrdma keeps its rpcrdma_rep
 * buffers the same way); xprt_free() gives them back. The free list is
 * LIFO, so a connection holds as many buffers as it ever had in use at once.
 */
static void rx_put(struct rpcrdma_xprt *x, struct xprt_rx *rx)
{
	rx->next = x->rx_free;
	x->rx_free = rx;
}

static bool can_post(const struct rpcrdma_xprt *x)
{
	return x->qp != NULL &&
	       (x->state == RPCRDMA_XPRT_ESTABLISHED || x->state == RPCRDMA_XPRT_NEGOTIATING ||
		(x->state == RPCRDMA_XPRT_CONNECTING && x->p.role == RPCRDMA_XPRT_SERVER));
}

/* Post receives: the client keeps max_credits posted, the server what its grant needs. */
static uint32_t post_recvs(struct rpcrdma_xprt *x)
{
	struct rpcrdma_pmd_recv_wr wrs[XPRT_BURST];
	struct rpcrdma_pmd_sge sges[XPRT_BURST];
	struct xprt_rx *rxs[XPRT_BURST];
	uint32_t want, n = 0, i, spare;
	uint16_t got;

	x->recv_short = false;
	if (!can_post(x))
		return 0;
	if (x->p.role == RPCRDMA_XPRT_CLIENT) {
		want = x->rq_depth > x->rx_posted ? x->rq_depth - x->rx_posted : 0;
	} else {
		want = rpcrdma_credit_resp_to_post(&x->cresp);
		/* the spare, and a receive for the reply of each backward call out */
		spare = x->cresp.target + XPRT_RECV_SPARE + (x->calls ? x->creq.outstanding : 0);
		if (spare > x->cresp.posted && spare - x->cresp.posted > want)
			want = spare - x->cresp.posted;
	}
	if (want > XPRT_BURST)
		want = XPRT_BURST;
	if (want > x->rq_depth - x->rx_posted)
		want = x->rq_depth - x->rx_posted;
	while (n < want && x->rx_free != NULL) {
		struct xprt_rx *rx = x->rx_free;
		void *buf = rx->buf != NULL ? rx->buf : rpcrdma_mempool_get(x->ipool);

		if (buf == NULL)
			break;
		x->rx_free = rx->next;
		rx->buf = buf;
		rxs[n] = rx;
		sges[n].addr = (uintptr_t)buf;
		sges[n].length = x->recv_len;
		sges[n].lkey = x->ipool->lkey;
		wrs[n].wr_id = (uintptr_t)&rx->tag;
		wrs[n].sg_list = &sges[n];
		wrs[n].num_sge = 1;
		n++;
	}
	if (n < want)
		x->recv_short = true;
	if (n == 0)
		return 0;
	got = rpcrdma_pmd_post_recv_burst(x->qp, wrs, (uint16_t)n);
	if (got < n)
		x->recv_short = true;
	for (i = 0; i < got; i++) {
		rxs[i]->posted = true;
		rxs[i]->plen = x->recv_len;
	}
	for (i = got; i < n; i++)
		rx_put(x, rxs[i]);
	x->rx_posted += got;
	x->st.recvs += got;
	if (x->p.role == RPCRDMA_XPRT_SERVER)
		rpcrdma_credit_resp_posted(&x->cresp, got);
	/* more than a burst wanted (set-up, a grown grant): go on */
	if (got == XPRT_BURST && !x->recv_short)
		got += post_recvs(x);
	return got;
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
static uint8_t *short_hdr_put(uint8_t *end, uint32_t vers, uint32_t dir, uint32_t xid,
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
static uint32_t short_hdr_len(const void *buf, uint32_t len, uint32_t vers, uint32_t dir)
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
static uint32_t short_hdr_size(uint32_t vers)
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
static void inline_stream(struct rpcrdma_xdr_enc *xdr, struct rpcrdma_mempool *pool, void *buf)
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
static bool inline_stream_is(const struct rpcrdma_xdr_enc *xdr, const void *buf)
{
	return xdr->mem.addr == (const uint8_t *)buf + XPRT_HDR_ROOM;
}

/* Write the header before the message; the Send's one gather entry covers both. */
static uint16_t short_sgl(struct rpcrdma_marshal_sge *sge, const struct rpcrdma_xdr_enc *xdr,
			  uint32_t vers, uint32_t dir, uint32_t xid, uint32_t credit)
{
	uint8_t *end = (uint8_t *)xdr->mem.addr;
	uint8_t *h = short_hdr_put(end, vers, dir, xid, credit);

	sge[0].addr = (uintptr_t)h;
	sge[0].length = (uint32_t)(end - h) + xdr->len;
	sge[0].lkey = xdr->mem.lkey;
	return 1;
}

/* ------------------------------------------------------------ transport characteristics */

/*
 * Version 2 transport characteristics (xcharext draft): the rules live in
 * rpcrdma_xchar_state.h; the engine feeds it what arrives, sends what it
 * fills, and applies the values (set_thresholds()). Its messages go in
 * control slots (struct xprt_ctrl), not in call or reply slots: they are
 * rare, one-way or answered by the peer's engine, never by an upper layer.
 */

/* Our starting values: what we post, offer and serve. */
static int xchar_init(struct rpcrdma_xprt *x)
{
	bool cli = x->p.role == RPCRDMA_XPRT_CLIENT;
	struct rpcrdma_xchar_cfg cfg;

	rpcrdma_xchar_cfg_init(&cfg);
	cfg.rbsiz_max = x->ipool->buf_size;
	cfg.local.rbsiz = x->recv_len;
	cfg.local.reqreminv = cli && (x->p.flags & RPCRDMA_XPRT_F_REMOTE_INV) != 0;
	/* a client with backward credits takes backward calls with chunks as forward ones */
	cfg.local.brs = cli && x->p.bk_credits ? RPCRDMA_BKREQSUP_GENL : RPCRDMA_BKREQSUP_NONE;
	/* REQREMINV means something only where calls expose per-call registrations */
	cfg.changeable = RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_RBSIZ);
	if (cli && (x->p.flags & RPCRDMA_XPRT_F_PER_CALL_MR))
		cfg.changeable |= RPCRDMA_XCHAR_BIT(RPCRDMA_XCHAR_REQREMINV);
	/* what the upper layer promises to keep: neither asked of us nor set */
	cfg.nochg = x->p.xchar_nochg;
	cfg.changeable &= ~cfg.nochg;
	return rpcrdma_xchar_state_init(&x->xs, &cfg);
}

/* A fresh XID for a control message, from the calls' space on a client. */
static uint32_t ctrl_xid(struct rpcrdma_xprt *x)
{
	if (x->p.role == RPCRDMA_XPRT_CLIENT)
		return x->xid_seq++ << x->call_shift; /* never a live call's */
	return 0x80000000u | x->ctrl_seq++;
}

/* The rdma_credit of a control message: what we ask for, or what we grant. */
static uint32_t ctrl_credit(const struct rpcrdma_xprt *x)
{
	if (x->p.role == RPCRDMA_XPRT_CLIENT)
		return rpcrdma_credit_req_request(&x->creq);
	return x->cresp.target;
}

/* Encode a version 2 header (and body) into a control slot and stage its Send. */
static int ctrl_send(struct rpcrdma_xprt *x, struct rpcrdma_hdr *h)
{
	struct xprt_ctrl *k = x->ctrl_free;
	struct rpcrdma_pmd_send_wr *wr;
	int n;

	if (k == NULL || x->qp == NULL || !sq_room(x, 1)) {
		x->st.ctrl_drops++;
		return -ENOBUFS;
	}
	h->vers = RPCRDMA_VERS_2;
	h->credit = ctrl_credit(x);
	n = rpcrdma_hdr_encode(h, k->area.addr, k->area.len / 2);
	if (n < 0)
		return n == -ENOSPC ? -EMSGSIZE : n;
	x->ctrl_free = k->next;
	k->sge.addr = (uintptr_t)k->area.addr;
	k->sge.length = (uint32_t)n;
	k->sge.lkey = k->area.lkey;
	/* signaled: the slot is free as soon as its Send is done */
	wr = stage(x, WR_CTRL_SEND, k, true);
	wr->opcode = RPCRDMA_PMD_WR_SEND;
	wr->sg_list = &k->sge;
	wr->num_sge = 1;
	return 0;
}

/*
 * Send a transport characteristics operation (RDMA2_OPTIONAL). It carries
 * no RPC message, so its rdma_optdir says who sends it (v2 draft 4.2.2,
 * message direction): a requester (the client) CALL, a responder (the
 * server) REPLY.
 */
static int ctrl_send_xchar(struct rpcrdma_xprt *x, uint32_t xid, const struct rpcrdma_xchar_msg *m)
{
	uint32_t optdir = x->p.role == RPCRDMA_XPRT_CLIENT ? RPCRDMA_CALL : RPCRDMA_REPLY;
	struct xprt_ctrl *k = x->ctrl_free;
	struct rpcrdma_hdr h;
	uint8_t *body;
	int n, ret;

	if (k == NULL) {
		x->st.ctrl_drops++;
		return -ENOBUFS;
	}
	/* the body in the slot's second half, the header (which copies it) in its first */
	body = (uint8_t *)k->area.addr + k->area.len / 2;
	n = rpcrdma_xchar_encode(m, body, k->area.len / 2);
	if (n < 0)
		return n == -ENOSPC ? -EMSGSIZE : n;
	memset(&h, 0, sizeof(h));
	h.xid = xid;
	h.proc = RPCRDMA_OPTIONAL;
	h.optional.optdir = optdir;
	h.optional.opttype = m->opttype;
	h.optional.optinfo = body;
	h.optional.optinfo_len = (uint32_t)n;
	ret = ctrl_send(x, &h);
	if (ret == 0)
		x->st.xchar_sent++;
	return ret;
}

/* Answer a version 2 message with RDMA2_ERROR (same XID). */
static void ctrl_send_error(struct rpcrdma_xprt *x, uint32_t xid, uint32_t code)
{
	struct rpcrdma_hdr h;

	memset(&h, 0, sizeof(h));
	h.xid = xid;
	h.proc = RPCRDMA_ERROR;
	h.error.code = code;
	if (ctrl_send(x, &h) == 0) {
		x->st.errors_sent++;
		x->st.err_option += code == RPCRDMA2_ERR_INVAL_OPTION;
	}
}

/*
 * The exchange runs on this connection from now on, unless the extension
 * is turned off. @return whether it runs.
 */
static bool xchar_connect(struct rpcrdma_xprt *x)
{
	if (x->p.flags & RPCRDMA_XPRT_F_NO_XCHAR)
		return false;
	if (!x->xchar_on) {
		rpcrdma_xchar_state_connect(&x->xs);
		x->xchar_on = true;
		x->xchar_peer_unsupported = false;
	}
	return true;
}

/*
 * Version 2 is settled: the exchange starts and our ROPT_INITXCH goes
 * before anything else we send (xcharext 4.1). A client connected it
 * already while probing, so that a server's ROPT_INITXCH, which comes
 * before the probe's reply, is taken.
 */
static void xchar_start(struct rpcrdma_xprt *x)
{
	struct rpcrdma_xchar_msg m;

	if (!xchar_connect(x))
		return;
	if (rpcrdma_xchar_state_initxch(&x->xs, &m) == 0) {
		x->xchar_init_xid = ctrl_xid(x);
		ctrl_send_xchar(x, x->xchar_init_xid, &m);
	}
}

static void xchar_stop(struct rpcrdma_xprt *x)
{
	if (!x->xchar_on)
		return;
	rpcrdma_xchar_state_disconnect(&x->xs);
	x->xchar_on = false;
	set_thresholds(x);
}

/*
 * An RDMA2_OPTIONAL message (decoded header h): a transport
 * characteristics operation is applied, and a ROPT_REQXCH answered.
 * @return 0, or the RDMA2_ERROR code to answer it with: INVAL_OPTION for
 *   a type we do not support, BAD_HEADER for a malformed body or one that
 *   breaks the draft's rules (nothing applied).
 */
static uint32_t xprt_optional(struct rpcrdma_xprt *x, const struct rpcrdma_hdr *h)
{
	struct rpcrdma_xchar_msg m, out;
	int ret;

	x->st.options_recv++;
	if (!x->xchar_on)
		return RPCRDMA2_ERR_INVAL_OPTION;
	ret = rpcrdma_xchar_decode(&m, h->optional.opttype, h->optional.optinfo,
				   h->optional.optinfo_len);
	if (ret == -RPCRDMA_E_OPTTYPE)
		return RPCRDMA2_ERR_INVAL_OPTION;
	if (ret == 0)
		ret = rpcrdma_xchar_state_recv(&x->xs, h->xid, &m, &out);
	if (ret < 0) {
		x->st.xchar_errors++;
		return RPCRDMA2_ERR_BAD_HEADER;
	}
	x->st.xchar_recv++;
	if (ret == 1) /* our ROPT_RESPXCH, with the request's XID */
		ctrl_send_xchar(x, h->xid, &out);
	/* a raise the peer asked for: receives at the new size from now on */
	x->recv_len = rpcrdma_xchar_state_post_size(&x->xs);
	set_thresholds(x);
	return 0;
}

/*
 * Our ROPT_REQXCH of n elements went unanswered as a whole (refused by an
 * RDMA2_ERROR, or never sent): as a ROPT_RESPXCH rejecting every element,
 * so that the state does not wait for an answer.
 */
static void xchar_refused(struct rpcrdma_xprt *x, uint32_t xid, uint32_t n)
{
	struct rpcrdma_xchar_msg m, unused;

	memset(&m, 0, sizeof(m));
	m.opttype = RPCRDMA_ROPT_RESPXCH;
	m.respxch.rej.bits = n >= 32 ? ~0u : (1u << n) - 1;
	rpcrdma_xchar_state_recv(&x->xs, xid, &m, &unused);
	set_thresholds(x);
}

/*
 * A version 2 RDMA2_ERROR that may answer one of our control messages.
 * @return true: it did (consumed).
 */
static bool xchar_error(struct rpcrdma_xprt *x, const void *buf, uint32_t len)
{
	uint32_t xid, code;

	if (!x->xchar_on || len < 20 || rpcrdma_wire_get32(buf, 1) != RPCRDMA_VERS_2 ||
	    rpcrdma_wire_get32(buf, 3) != RPCRDMA_ERROR)
		return false;
	xid = rpcrdma_wire_get32(buf, 0);
	code = rpcrdma_wire_get32(buf, 4);
	if (xid == x->xchar_init_xid) {
		/* a peer without the extension (xcharext 4): its defaults stand */
		x->st.errors_recv++;
		x->xchar_peer_unsupported =
			x->xchar_peer_unsupported || code == RPCRDMA2_ERR_INVAL_OPTION;
		return true;
	}
	if (x->xs.st == RPCRDMA_XCHAR_ST_REQ_SENT && xid == x->xs.req_xid) {
		x->st.errors_recv++;
		xchar_refused(x, xid, x->xs.req_want.n);
		return true;
	}
	return false;
}

/*
 * A raise of our Receive Buffer Size is announced once no smaller receive
 * is posted (xcharext 3.1); receives are posted at the new size from the
 * time it is asked for.
 */
static void xchar_raise_check(struct rpcrdma_xprt *x)
{
	struct rpcrdma_xchar_rcv rcv = { .size = 0, .count = 0 };
	struct rpcrdma_xchar_msg upd;
	uint32_t i;

	for (i = 0; i < x->nrx; i++)
		if (x->rxs[i].posted && x->rxs[i].plen < x->xs.rbsiz_target) {
			rcv.size = x->rxs[i].plen;
			rcv.count++;
		}
	if (rpcrdma_xchar_state_receives(&x->xs, &rcv, 1, &upd) == 1) {
		ctrl_send_xchar(x, ctrl_xid(x), &upd);
		set_thresholds(x);
	}
}

int rpcrdma_xprt_xchar_info(const struct rpcrdma_xprt *x, struct rpcrdma_xprt_xchar *xi)
{
	memset(xi, 0, sizeof(*xi));
	xi->active = x->xchar_on;
	xi->st = x->xs.st;
	xi->local = x->xs.local;
	xi->peer = x->xs.peer;
	xi->peer_init = x->xs.peer_init;
	xi->peer_unsupported = x->xchar_peer_unsupported;
	xi->req_outstanding = x->xs.st == RPCRDMA_XCHAR_ST_REQ_SENT;
	xi->req_pend = x->xs.req_pend;
	xi->peer_pend = x->xs.peer_pend;
	xi->nochg = x->xs.cfg.nochg;
	xi->peer_nochg = x->xs.peer_nochg;
	xi->max_send = x->mconn.send_inline;
	return x->xchar_on ? 0 : -ENOTCONN;
}

int rpcrdma_xprt_xchar_request(struct rpcrdma_xprt *x, const struct rpcrdma_xcharspec *want)
{
	struct rpcrdma_xchar_msg m;
	uint32_t xid, i;
	int ret;

	if (!x->xchar_on)
		return -ENOTCONN;
	for (i = 0; i < want->n && i < RPCRDMA_XCHAR_MAX; i++)
		if (want->vals[i].len != 0 && want->vals[i].data == NULL &&
		    want->vals[i].which != RPCRDMA_XCHAR_RBSIZ &&
		    want->vals[i].which != RPCRDMA_XCHAR_REQREMINV &&
		    want->vals[i].which != RPCRDMA_XCHAR_BRS)
			return -EINVAL; /* an unknown id is sent from its data */
	if (x->ctrl_free == NULL || !sq_room(x, 1))
		return -ENOBUFS;
	xid = ctrl_xid(x);
	ret = rpcrdma_xchar_state_request(&x->xs, xid, want, &m);
	if (ret)
		return ret;
	ret = ctrl_send_xchar(x, xid, &m);
	if (ret)
		xchar_refused(x, xid, want->n); /* not sent */
	else
		set_thresholds(x);
	return ret;
}

int rpcrdma_xprt_xchar_set(struct rpcrdma_xprt *x, uint32_t id, uint32_t value)
{
	struct rpcrdma_xchar_msg upd;
	int ret;

	if (!x->xchar_on)
		return -ENOTCONN;
	ret = rpcrdma_xchar_state_local_set(&x->xs, id, value, &upd);
	if (ret < 0)
		return ret;
	if (id == RPCRDMA_XCHAR_RBSIZ) {
		/* post at the new size from now on; announced by xchar_raise_check() */
		x->recv_len = rpcrdma_xchar_state_post_size(&x->xs);
		xchar_raise_check(x);
		return 0;
	}
	set_thresholds(x);
	return ret == 1 ? ctrl_send_xchar(x, ctrl_xid(x), &upd) : 0;
}

/* ------------------------------------------------------------ requester */

/* An accepted reply with an empty verifier: xid REPLY MSG_ACCEPTED flavor 0 accept_stat. */
static void put_accepted_words(uint8_t *p, uint32_t xid, uint32_t flavor, uint32_t accept_stat)
{
	rpcrdma_wire_put32(p, 0, xid);
	rpcrdma_wire_put32(p, 1, RPCRDMA_RPC_REPLY);
	rpcrdma_wire_put32(p, 2, RPCRDMA_RPC_MSG_ACCEPTED);
	rpcrdma_wire_put32(p, 3, flavor);
	rpcrdma_wire_put32(p, 4, 0);
	rpcrdma_wire_put32(p, 5, accept_stat);
}

int rpcrdma_xprt_put_rpc(struct rpcrdma_xdr_enc *xdr, const struct rpcrdma_rpc_msg *msg)
{
	uint32_t room = xdr->mem.len - xdr->len;
	uint8_t *p = (uint8_t *)xdr->mem.addr + xdr->len;
	int n;

	/*
	 * The reply of nearly every call: xid REPLY MSG_ACCEPTED flavor 0
	 * SUCCESS, six words (rpcrdma_rpc_encode() has the call's fast path;
	 * this is the same bytes as its full encoder writes).
	 */
	if (msg->type == RPCRDMA_RPC_REPLY && msg->reply.stat == RPCRDMA_RPC_MSG_ACCEPTED &&
	    msg->reply.verf.len == 0 && msg->reply.accept_stat == RPCRDMA_RPC_SUCCESS &&
	    room >= 24) {
		put_accepted_words(p, msg->xid, msg->reply.verf.flavor, RPCRDMA_RPC_SUCCESS);
		n = 24;
		goto written;
	}
	n = rpcrdma_rpc_encode(msg, p, room);
	if (n < 0)
		return n;
written:
	if ((uint32_t)n > RPCRDMA_XDR_POS_MAX - xdr->pos)
		return -ENOSPC;
	xdr->len += (uint32_t)n;
	xdr->pos += (uint32_t)n;
	return 0;
}

int rpcrdma_xprt_call_put_header(struct rpcrdma_xprt_call *call, uint32_t prog, uint32_t vers,
				 uint32_t proc)
{
	uint8_t *p;

	if (call->state != CALL_BUILDING)
		return -EINVAL;
	p = rpcrdma_xdr_reserve(&call->enc, 40);
	if (p == NULL)
		return -ENOSPC;
	/* xid CALL 2 prog vers proc AUTH_NONE 0 AUTH_NONE 0 */
	rpcrdma_wire_put32(p, 0, call->xid);
	rpcrdma_wire_put32(p, 1, RPCRDMA_RPC_CALL);
	rpcrdma_wire_put32(p, 2, RPCRDMA_RPC_VERS);
	rpcrdma_wire_put32(p, 3, prog);
	rpcrdma_wire_put32(p, 4, vers);
	rpcrdma_wire_put32(p, 5, proc);
	memset(p + 24, 0, 16);
	return 0;
}

int rpcrdma_xprt_get_rpc(struct rpcrdma_xdr_dec *dec, struct rpcrdma_rpc_msg *msg)
{
	const struct rpcrdma_xdr_piece *pc;
	const void *p;
	int ret;

	if (dec->cur >= dec->npieces)
		return -RPCRDMA_E_TRUNC;
	pc = &dec->pieces[dec->cur];
	if (dec->off > pc->len)
		return -RPCRDMA_E_TRUNC;
	ret = rpcrdma_rpc_decode(msg, pc->p + dec->off, pc->len - dec->off);
	if (ret < 0)
		return ret;
	if (!pc->chunk && (uint32_t)ret <= pc->len - dec->off) {
		/* within an inline piece (its span is its length): the cursor just moves */
		dec->off += (uint32_t)ret;
		return 0;
	}
	if (rpcrdma_xdr_get_opaque_fixed(dec, (uint32_t)ret, &p) != 0)
		return -RPCRDMA_E_CHUNK_POS;
	return 0;
}

int rpcrdma_xprt_reply_rpc(struct rpcrdma_xdr_dec *reply, uint32_t xid, struct rpcrdma_rpc_msg *msg)
{
	int ret;

	ret = rpcrdma_xprt_get_rpc(reply, msg);
	if (ret)
		return ret;
	if (msg->type != RPCRDMA_RPC_REPLY || msg->xid != xid)
		return -EBADMSG;
	if (msg->reply.stat == RPCRDMA_RPC_MSG_ACCEPTED) {
		if (msg->reply.accept_stat == RPCRDMA_RPC_SUCCESS)
			return 0;
		if (msg->reply.accept_stat <= RPCRDMA_RPC_SYSTEM_ERR)
			return -(RPCRDMA_XPRT_E_RPC_BASE + (int)msg->reply.accept_stat);
		return -RPCRDMA_XPRT_E_ACCEPT_OTHER;
	}
	/* the decoder accepts only MSG_ACCEPTED and MSG_DENIED's two kinds */
	return msg->reply.reject_stat == RPCRDMA_RPC_RPC_MISMATCH ? -RPCRDMA_XPRT_E_RPC_MISMATCH
								  : -RPCRDMA_XPRT_E_AUTH_ERROR;
}

int rpcrdma_xprt_call_alloc(struct rpcrdma_xprt *x, struct rpcrdma_xprt_call **callp)
{
	struct rpcrdma_xprt_call *c = x->call_free;
	void *buf;

	if (x->ncalls == 0)
		return -EOPNOTSUPP; /* a server without backward calls (bk_credits 0) */
	if (c == NULL)
		return -EBUSY;
	buf = c->msg_buf != NULL ? c->msg_buf : rpcrdma_mempool_get(x->ipool);
	if (buf == NULL)
		return -ENOBUFS;
	x->call_free = c->next_free;
	x->calls_busy++;
	c->state = CALL_BUILDING;
	c->msg_buf = buf;
	c->xid = (x->xid_seq++ << x->call_shift) | (uint32_t)(c - x->calls);
	c->flags = 0;
	c->status = 0;
	c->queued = c->send_done = c->lost = c->stalled = c->has_credit = c->replied = false;
	c->fast = c->resend = false;
	c->timeout = x->call_timeout;
	c->rx = NULL;
	c->nmrs = 0;
	inline_stream(&c->enc, x->ipool, buf);
	/* what marshaling reads of the spec (not ddp[] beyond nddp: no memset per call) */
	c->spec.max_len = 0;
	c->spec.nddp = 0;
	c->spec.long_buf = (struct rpcrdma_xdr_region){ 0 };
	*callp = c;
	return 0;
}

uint32_t rpcrdma_xprt_call_xid(const struct rpcrdma_xprt_call *call)
{
	return call->xid;
}

struct rpcrdma_xdr_enc *rpcrdma_xprt_call_enc(struct rpcrdma_xprt_call *call)
{
	return &call->enc;
}

struct rpcrdma_xdr_reply_spec *rpcrdma_xprt_call_reply_spec(struct rpcrdma_xprt_call *call)
{
	return &call->spec;
}

static void call_wait(struct rpcrdma_xprt_call *c)
{
	if (!c->queued) {
		TAILQ_INSERT_TAIL(&c->xprt->call_wait, c, link);
		c->queued = true;
		c->waited = true;
	}
}

/* Out of the wait FIFO, if it is there. */
static void call_unwait(struct rpcrdma_xprt_call *c)
{
	if (c->queued) {
		TAILQ_REMOVE(&c->xprt->call_wait, c, link);
		c->queued = false;
	}
}

int rpcrdma_xprt_call_set_timeout(struct rpcrdma_xprt_call *c, uint64_t timeout_us)
{
	if (c->state != CALL_BUILDING)
		return -EINVAL;
	c->timeout = us_to_tsc(timeout_us);
	return 0;
}

/*
 * The timeout list is kept in deadline order. Calls mostly share one
 * timeout, so a new deadline is the latest: the insertion walks back from
 * the tail and stops at once. The poll reads the TSC only while the list
 * is not empty, and compares it with the first deadline.
 */
static void tmo_add(struct rpcrdma_xprt *x, struct rpcrdma_xprt_call *c, uint64_t deadline)
{
	struct rpcrdma_xprt_call *p;

	c->deadline = deadline;
	c->timed = true;
	TAILQ_FOREACH_REVERSE(p, &x->tmo_list, call_fifo, tmo_link)
	{
		if (p->deadline <= deadline) {
			TAILQ_INSERT_AFTER(&x->tmo_list, p, c, tmo_link);
			goto first;
		}
	}
	TAILQ_INSERT_HEAD(&x->tmo_list, c, tmo_link);
first:
	x->tmo_next = TAILQ_FIRST(&x->tmo_list)->deadline;
}

static void tmo_del(struct rpcrdma_xprt *x, struct rpcrdma_xprt_call *c)
{
	struct rpcrdma_xprt_call *f;

	if (!c->timed)
		return;
	TAILQ_REMOVE(&x->tmo_list, c, tmo_link);
	c->timed = false;
	f = TAILQ_FIRST(&x->tmo_list);
	x->tmo_next = f != NULL ? f->deadline : UINT64_MAX;
}

int rpcrdma_xprt_call_submit(struct rpcrdma_xprt_call *c, uint32_t flags, rpcrdma_xprt_call_cb_t cb,
			     void *arg)
{
	struct rpcrdma_xprt *x = c->xprt;

	if (c->state != CALL_BUILDING)
		return -EINVAL;
	c->flags = flags;
	c->cb = cb;
	c->arg = arg;
	c->state = CALL_NEED_CREDIT;
	c->waited = false;
	if (c->timeout)
		tmo_add(x, c, rte_rdtsc() + c->timeout);
	if (TAILQ_EMPTY(&x->call_wait))
		call_process(c);
	else
		call_wait(c);
	return 0;
}

static void call_free_slot(struct rpcrdma_xprt_call *c)
{
	struct rpcrdma_xprt *x = c->xprt;

	/* the slot keeps its message buffer for the next call (xprt_free() returns it) */
	c->state = CALL_FREE;
	c->next_free = x->call_free;
	x->call_free = c;
	x->calls_busy--;
}

int rpcrdma_xprt_call_test(struct rpcrdma_xprt_call *c, struct rpcrdma_xdr_dec **reply)
{
	if (c->state == CALL_BUILDING || c->state == CALL_FREE || c->state == CALL_RETIRING)
		return -EINVAL;
	if (c->state != CALL_DONE)
		return -EINPROGRESS;
	if (reply != NULL)
		*reply = c->status ? NULL : &c->dec;
	return c->status;
}

int rpcrdma_xprt_call_wait(struct rpcrdma_xprt_call *c, struct rpcrdma_xdr_dec **reply)
{
	int ret;

	while ((ret = rpcrdma_xprt_call_test(c, reply)) == -EINPROGRESS)
		rpcrdma_xprt_poll(c->xprt);
	return ret;
}

int rpcrdma_xprt_call_release(struct rpcrdma_xprt_call *c)
{
	struct rpcrdma_xprt *x = c->xprt;

	if (c->state != CALL_DONE && c->state != CALL_BUILDING)
		return -EBUSY;
	if (c->rx != NULL) {
		rx_put(x, c->rx);
		c->rx = NULL;
	}
	if (c->tmo_late && c->tmo_xid == c->xid && !c->send_done) {
		/*
		 * Timed out before its Send retired: the PMD may still read the
		 * message buffer, so the slot waits for the retirement
		 * (sq_complete()) before anyone writes into it again.
		 */
		c->state = CALL_RETIRING;
		return 0;
	}
	call_free_slot(c);
	return 0;
}

/* Register one region of a call as its own MR, and name it by the new rkey. */
static int expose(struct rpcrdma_xprt_call *c, struct rpcrdma_xdr_region *r, uint32_t access)
{
	struct rpcrdma_pmd_mr *mr;
	int ret;

	if (r->len == 0 || c->nmrs == RPCRDMA_MARSHAL_MAX_EXPOSE)
		return r->len == 0 ? 0 : -E2BIG;
	ret = rpcrdma_pmd_mr_reg(c->xprt->p.pd, r->addr, r->len, access, -1, 0, &mr);
	if (ret)
		return ret == -ENOSPC ? -ENOMEM : ret;
	c->mrs[c->nmrs++] = mr;
	c->xprt->st.mr_regs++;
	r->rkey = mr->rkey;
	return 0;
}

/* Invalidate every registration of a call, but the one the responder invalidated. */
static void unexpose(struct rpcrdma_xprt_call *c)
{
	struct rpcrdma_xprt *x = c->xprt;
	uint16_t i;

	for (i = 0; i < c->nmrs; i++) {
		struct rpcrdma_pmd_mr *mr = c->mrs[i];

		if (!(c->rx != NULL && c->rx->inv && c->rx->inv_rkey == mr->rkey)) {
			rpcrdma_pmd_mr_invalidate(x->p.pd, mr->rkey);
			x->st.mr_invalidates++;
		}
		rpcrdma_pmd_mr_dereg(mr);
	}
	c->nmrs = 0;
}

/*
 * Marshal a call. With per-call exposure, a first pass with the pools' keys
 * says which buffers the form exposes; they are registered, and the call is
 * marshaled again naming them by their own rkeys.
 */
static int call_marshal(struct rpcrdma_xprt_call *c)
{
	struct rpcrdma_xprt *x = c->xprt;
	const uint32_t rd = RPCRDMA_PMD_ACCESS_REMOTE_READ;
	const uint32_t wr = RPCRDMA_PMD_ACCESS_REMOTE_WRITE | RPCRDMA_PMD_ACCESS_LOCAL_WRITE;
	struct rpcrdma_marshal_call_args a;
	struct rpcrdma_xdr_reply_spec spec;
	struct rpcrdma_xdr_enc enc;
	uint16_t i;
	int ret;

	a.xid = c->xid;
	a.credit = rpcrdma_credit_req_request(&x->creq);
	a.xdr = &c->enc;
	a.reply = &c->spec;
	a.hdr_buf = c->hdr;
	ret = rpcrdma_marshal_call(call_mconn(x), &a, &c->plan);
	if (ret || c->plan.nexpose == 0 || !(x->p.flags & RPCRDMA_XPRT_F_PER_CALL_MR))
		return ret;
	enc = c->enc;
	spec = c->spec;
	if (c->plan.form != RPCRDMA_MARSHAL_SHORT)
		for (i = 0; i < enc.nddp && ret == 0; i++)
			ret = expose(c, &enc.ddp[i].data, rd);
	if (c->plan.form == RPCRDMA_MARSHAL_LONG && ret == 0) {
		struct rpcrdma_xdr_region m = enc.mem;

		m.len = enc.len;
		ret = expose(c, &m, rd);
		enc.mem.rkey = m.rkey;
	}
	for (i = 0; i < spec.nddp && ret == 0; i++)
		ret = expose(c, &spec.ddp[i], wr);
	if (c->plan.long_reply && ret == 0)
		ret = expose(c, &spec.long_buf, wr);
	if (ret)
		return ret;
	a.xdr = &enc;
	a.reply = &spec;
	return rpcrdma_marshal_call(call_mconn(x), &a, &c->plan);
}

/*
 * A Short call without chunks: no DDP-eligible argument or result, and the
 * largest reply fits inline behind a Short header (so no reply chunk). The
 * header is written into the slot's area and the plan holds only the
 * gather list; false for every other call (rpcrdma_marshal_call()).
 */
static bool call_short(struct rpcrdma_xprt_call *c)
{
	struct rpcrdma_xprt *x = c->xprt;
	uint32_t hl = short_hdr_size(x->vers);

	if (c->enc.nddp || c->spec.nddp ||
	    hl + (uint64_t)c->spec.max_len > call_mconn(x)->recv_inline ||
	    hl + (uint64_t)c->enc.len > call_mconn(x)->send_inline ||
	    !inline_stream_is(&c->enc, c->msg_buf))
		return false;
	short_sgl(c->fsge, &c->enc, x->vers, RPCRDMA_CALL, c->xid,
		  rpcrdma_credit_req_request(&x->creq));
	return true;
}

/*
 * CALL_NEED_CREDIT while the version is not settled: may this call go?
 * @return 1: it is the version 2 probe (v2 draft 5); 0: wait, the probe is
 *   out; a negative status to fail it with (the peer supports no version
 *   we speak).
 */
static int call_vers_check(struct rpcrdma_xprt *x)
{
	int v = rpcrdma_vers_req_send_vers(&x->vreq);

	if (v == -EAGAIN)
		return 0;
	if (v < 0)
		return v == -ENOTCONN ? -ENOTCONN : -EPROTONOSUPPORT;
	return 1;
}

static void call_fail(struct rpcrdma_xprt_call *c, int status)
{
	if (c->status == 0)
		c->status = status;
}

static void call_process(struct rpcrdma_xprt_call *c)
{
	struct rpcrdma_xprt *x = c->xprt;
	struct rpcrdma_pmd_send_wr *wr;
	enum call_state prev;
	int ret;

	do {
		prev = c->state;
		switch (c->state) {
		case CALL_NEED_CREDIT:
			if (x->state != RPCRDMA_XPRT_ESTABLISHED) {
				if ((x->state == RPCRDMA_XPRT_CONNECTING ||
				     x->state == RPCRDMA_XPRT_NEGOTIATING) ||
				    (c->flags & RPCRDMA_XPRT_CALL_F_RETRANSMIT)) {
					call_wait(c);
					break;
				}
				/* submitted while connected: the connection was lost under it */
				call_fail(c, c->waited ? -ECONNRESET : -ENOTCONN);
				c->state = CALL_COMPLETE;
				break;
			}
			if (unlikely(x->p.role == RPCRDMA_XPRT_SERVER)) {
				/* a backward call: only to a client that said it is ready */
				ret = rpcrdma_xprt_bc_may_call(x);
				if (ret == -ECONNREFUSED && c->resend) {
					/* adopted from a lost connection: wait until ready */
					call_wait(c);
					break;
				}
				if (ret) {
					x->st.bc_refused++;
					call_fail(c, ret);
					c->state = CALL_COMPLETE;
					break;
				}
			} else if (unlikely(!x->vers_settled)) {
				ret = call_vers_check(x);
				if (ret < 0) {
					call_fail(c, ret);
					c->state = CALL_COMPLETE;
					break;
				}
				if (ret == 0) {
					call_wait(c);
					break;
				}
			}
			if (!sq_room(x, 1)) {
				call_wait(c);
				break;
			}
			if (rpcrdma_credit_req_acquire(&x->creq) != 0) {
				if (!c->stalled)
					x->st.credit_stalls++;
				c->stalled = true;
				call_wait(c);
				break;
			}
			c->has_credit = true;
			/* a receive for every outstanding call's reply (the poll reposts lazily) */
			if (x->rx_posted < x->creq.outstanding)
				post_recvs(x);
			if (x->creq.outstanding > x->st.max_outstanding)
				x->st.max_outstanding = x->creq.outstanding;
			c->state = CALL_READY;
			/* fall through */
		case CALL_READY:
			c->fast = call_short(c);
			ret = c->fast ? 0 : call_marshal(c);
			if (unlikely(x->vreq.state == RPCRDMA_VERS_REQ_PROBE) && ret == 0) {
				/* the probe: nothing else goes until it is answered */
				ret = rpcrdma_vers_req_sent(&x->vreq, c->xid,
							    c->fast ? c->fsge[0].length
								    : c->plan.send_len);
				x->st.vers_probes += ret == 0;
			}
			if (ret) {
				call_fail(c, ret);
				c->state = CALL_COMPLETE;
				break;
			}
			c->send_seq = x->sq_head;
			wr = stage(x, WR_CALL_SEND, c, false);
			wr->opcode = RPCRDMA_PMD_WR_SEND;
			c->send_done = false;
			c->replied = false;
			c->lost = false;
			x->st.calls++;
			c->state = CALL_SENT;
			if (c->fast) {
				/* the plan is not touched: its lines stay cold */
				wr->sg_list = (const struct rpcrdma_pmd_sge *)c->fsge;
				wr->num_sge = 1;
				x->st.short_msgs++;
				break;
			}
			wr->sg_list = (const struct rpcrdma_pmd_sge *)c->plan.sge;
			wr->num_sge = c->plan.nsge;
			if (c->plan.form == RPCRDMA_MARSHAL_SHORT)
				x->st.short_msgs++;
			else if (c->plan.form == RPCRDMA_MARSHAL_CHUNKED)
				x->st.chunked_msgs++;
			else
				x->st.long_msgs++;
			x->st.long_replies += c->plan.long_reply;
			break;
		case CALL_SENT:
			/*
			 * A reply proves the responder received the Send: the
			 * call completes without waiting for the Send to retire
			 * (unsignaled), and the slot may send again; its message
			 * buffer is registered for the connection's life, so a
			 * Send still retransmitting from it is harmless (Linux
			 * xprtrdma waits only for Sends of DMA-mapped pages).
			 * Without a reply, the Send's retirement (flushed, or
			 * behind the drain marker) ends the call.
			 */
			if (!c->replied && !(c->send_done && (c->status || c->lost)))
				break;
			c->state = CALL_COMPLETE;
			/* fall through */
		case CALL_COMPLETE:
			unexpose(c);
			if (c->has_credit) {
				rpcrdma_credit_req_release(&x->creq);
				c->has_credit = false;
			}
			if (c->lost && !c->replied && c->status == 0) {
				if (c->flags & RPCRDMA_XPRT_CALL_F_RETRANSMIT) {
					/* its deadline still runs while it waits */
					c->state = CALL_PARKED;
					c->resend = true;
					call_wait(c);
					break;
				}
				c->status = -ECONNRESET;
			}
			tmo_del(x, c);
			if (c->status) {
				x->st.failed++;
				if (c->rx != NULL) {
					rx_put(x, c->rx);
					c->rx = NULL;
				}
			}
			c->state = CALL_DONE;
			x->work++;
			/* the callback may release the call: touch nothing after it */
			if (c->cb != NULL)
				c->cb(c->arg, c, c->status, c->status ? NULL : &c->dec);
			return;
		case CALL_PARKED:
			if (x->state != RPCRDMA_XPRT_ESTABLISHED) {
				call_wait(c);
				break;
			}
			x->st.retransmits++;
			c->stalled = false;
			c->state = CALL_NEED_CREDIT;
			break;
		default:
			return;
		}
	} while (c->state != prev);
}

/* Run the calls waiting for the connection, a credit or SQ room, in order. */
static void call_run_waiters(struct rpcrdma_xprt *x)
{
	struct rpcrdma_xprt_call *c;
	uint32_t n = x->ncalls;

	while (n-- > 0 && (c = TAILQ_FIRST(&x->call_wait)) != NULL) {
		TAILQ_REMOVE(&x->call_wait, c, link);
		c->queued = false;
		call_process(c);
		if (c->queued) {
			/* still waiting: keep it first, FIFO */
			TAILQ_REMOVE(&x->call_wait, c, link);
			TAILQ_INSERT_HEAD(&x->call_wait, c, link);
			break;
		}
		x->work++;
	}
}

/*
 * Time out every call whose deadline has passed: it completes with
 * -ETIMEDOUT from any state it waits in. A call waiting for a credit or
 * a reconnect leaves the wait FIFO (it holds nothing). A call already sent
 * is still outstanding at the responder, which may answer it yet: it keeps
 * its credit (rfc5666bis 4.3: never more calls outstanding than granted)
 * until its late reply comes, which is counted (late_replies), gives the
 * credit back and is dropped. Its registrations are invalidated (a late
 * RDMA Write into them fails on the responder). When timed-out calls hold
 * the whole grant, nothing can be sent again on the connection: a client
 * disconnects (tmo_disconnects), as Linux xprtrdma does on a timeout,
 * and the next connection starts with the window empty.
 */
static void call_timeouts(struct rpcrdma_xprt *x)
{
	uint64_t now = rte_rdtsc();
	struct rpcrdma_xprt_call *c;
	bool probe_lost = false;

	while (now >= x->tmo_next) {
		c = TAILQ_FIRST(&x->tmo_list);
		tmo_del(x, c);
		call_unwait(c);
		x->st.timeouts++;
		call_fail(c, -ETIMEDOUT);
		if (c->state == CALL_SENT) {
			if (c->has_credit) {
				/*
				 * the credit stays taken until the late reply; an older
				 * timed-out call of this slot whose reply never came keeps
				 * its own in tmo_credits (its XID is forgotten)
				 */
				c->has_credit = false;
				c->tmo_credit = true;
				x->tmo_credits++;
			}
			c->tmo_xid = c->xid;
			c->tmo_late = true;
			probe_lost = probe_lost || (x->vreq.state == RPCRDMA_VERS_REQ_PROBE_SENT &&
						    c->xid == x->vreq.probe_xid);
		}
		c->state = CALL_COMPLETE;
		x->work++;
		call_process(c);
	}
	/*
	 * The version 2 probe went unanswered: nothing else could ever be
	 * sent on this connection. It is dropped, and the peer is taken not
	 * to speak version 2 (v2 draft 5.2: "if the initial negotiation
	 * message is lost or dropped"): the next connection starts in
	 * version 1, and calls marked RETRANSMIT go again there.
	 */
	if (unlikely(probe_lost)) {
		conn_lost(x);
	} else if (x->tmo_credits != 0 && x->tmo_credits >= x->creq.grant &&
		   x->p.role == RPCRDMA_XPRT_CLIENT) {
		x->st.tmo_disconnects++;
		conn_lost(x);
	}
}

/* A reply's status from an RDMA_ERROR. */
static int error_status(const struct rpcrdma_hdr *h)
{
	return h->error.code == RPCRDMA_ERR_VERS ? -EPROTONOSUPPORT : -EREMOTEIO;
}

/*
 * The answer to the version 2 probe (v2 draft 5.1, 5.2), decoded without
 * error: settle the version.
 * @return 0: go on with the reply; 1: the call is sent again in version 1
 *   (the answer was ERR_VERS) and rx is consumed; a negative status to
 *   complete the call with.
 */
static int client_probe_answer(struct rpcrdma_xprt *x, struct rpcrdma_xprt_call *c,
			       struct xprt_rx *rx, const struct rpcrdma_hdr *h)
{
	switch (rpcrdma_vers_req_recv(&x->vreq, h)) {
	case RPCRDMA_VERS_REQ_EV_V2:
		vers_settle(x, RPCRDMA_VERS_2);
		xchar_start(x); /* our ROPT_INITXCH before any other call */
		return 0;
	case RPCRDMA_VERS_REQ_EV_RESEND_V1:
		/*
		 * Version 1 on this connection, the same call again with its
		 * XID and its credit: the grant stays 1 until a reply that is
		 * not an error (v2 draft 5). The responder has the probe, so
		 * its buffer may be written again (as in CALL_SENT).
		 */
		x->st.errors_recv++;
		x->st.vers_fallbacks++;
		xchar_stop(x);
		vers_settle(x, RPCRDMA_VERS_1);
		rx_put(x, rx);
		unexpose(c);
		c->state = CALL_READY;
		call_process(c);
		return 1;
	case -EPROTONOSUPPORT:
		/* ERR_VERS without version 1 in its range: nothing can be sent */
		x->st.errors_recv++;
		x->st.err_vers++;
		xchar_stop(x);
		return -EPROTONOSUPPORT;
	default:
		/*
		 * -EPROTO: a version 1 message, or an answer to nothing we
		 * sent. The probe stays unanswered, so nothing else could be
		 * sent: the caller drops the connection, and the next one
		 * starts in version 1 (v2 draft 5.2, a lost probe).
		 */
		x->st.err_vers++;
		x->st.bad_replies++;
		return -EBADMSG;
	}
}

static void client_recv(struct rpcrdma_xprt *x, struct xprt_rx *rx)
{
	struct rpcrdma_xprt_call *c;
	struct rpcrdma_hdr *h;
	uint32_t xid, hl;
	bool lose = false;
	int ret;

	if (rx->len < RPCRDMA_HDR_FIXED_LEN) {
		x->st.err_hdr++;
		goto drop;
	}
	if (unlikely(rpcrdma_wire_get32(rx->buf, 3) == RPCRDMA_ERROR) &&
	    xchar_error(x, rx->buf, rx->len))
		goto drop; /* it answered one of our transport characteristics messages */
	xid = rpcrdma_wire_get32(rx->buf, 0);
	c = &x->calls[xid & (x->ncalls - 1)];
	if (c->tmo_late && c->tmo_xid == xid) {
		/* the reply of a call that timed out: counted and dropped, once; its credit back */
		c->tmo_late = false;
		x->st.late_replies++;
		if (c->tmo_credit) {
			c->tmo_credit = false;
			x->tmo_credits--;
			rpcrdma_credit_req_release(&x->creq);
			x->work++; /* the calls waiting for a credit run in this poll */
		}
		goto drop;
	}
	if (c->xid != xid || c->state != CALL_SENT || c->replied || c->rx != NULL) {
		/* a late, duplicate or forged reply: never fatal */
		x->st.unmatched++;
		goto drop;
	}
	if (c->fast && x->vers_settled &&
	    (hl = x->vers == RPCRDMA_VERS_1
			  ? rx->hlen
			  : short_hdr_len(rx->buf, rx->len, x->vers, RPCRDMA_REPLY)) != 0) {
		/* the reply to a Short call without chunks: inline, nothing to check */
		rpcrdma_xdr_dec_init(&c->dec, (uint8_t *)rx->buf + hl, rx->len - hl);
		rpcrdma_credit_req_update(&x->creq, rpcrdma_wire_get32(rx->buf, 2));
		goto matched;
	}
	h = rpcrdma_hdr_storage_init(&c->rhdr);
	ret = rpcrdma_hdr_decode(h, rx->buf, rx->len);
	if (ret < 0) {
		if (ret == -RPCRDMA_E_VERS)
			x->st.err_vers++;
		else
			x->st.err_hdr++;
		x->st.bad_replies++;
		call_fail(c, -EBADMSG);
		goto complete;
	}
	if (unlikely(x->vreq.state == RPCRDMA_VERS_REQ_PROBE_SENT)) {
		ret = client_probe_answer(x, c, rx, h);
		if (ret == 1)
			return;
		if (ret < 0) {
			call_fail(c, ret);
			lose = ret == -EBADMSG;
			goto complete;
		}
	} else if (h->vers != x->vers &&
		   !(h->proc == RPCRDMA_ERROR && h->error.code == RPCRDMA_ERR_VERS)) {
		/*
		 * Replies come in the version of the call (rfc5666bis 5.3);
		 * ERR_VERS may come in version 1 (rpcrdma_vers_resp_recv()).
		 */
		x->st.err_vers++;
		x->st.bad_replies++;
		call_fail(c, -EBADMSG);
		goto complete;
	}
	switch (h->proc) {
	case RPCRDMA_DONE:
		/*
		 * A requester answers no message (rfc5666bis 5.6.2's ERR_CHUNK
		 * is a responder's, an RDMA_ERROR goes responder to requester):
		 * counted and dropped, the call still waits for its reply.
		 */
		x->st.done_recv++;
		goto drop;
	case RPCRDMA_ERROR:
		x->st.errors_recv++;
		/* an error reports no credit limit while the version is not settled (v2 draft 5) */
		if (x->vers_settled)
			rpcrdma_credit_req_update(&x->creq, h->credit);
		call_fail(c, error_status(h));
		goto complete;
	case RPCRDMA_MSG:
	case RPCRDMA_NOMSG:
		break;
	default: /* RDMA_MSGP */
		x->st.err_chunk++;
		x->st.bad_replies++;
		call_fail(c, -EBADMSG);
		goto complete;
	}
	if (c->fast) {
		/*
		 * A call without chunks has no plan to check against: any
		 * chunk, or NOMSG, is bad. A Short reply comes here only when
		 * it settles the version (the probe's).
		 */
		ret = h->proc == RPCRDMA_MSG && h->chunks.nreads == 0 && h->chunks.nwrites == 0 &&
				      !h->chunks.has_reply
			      ? 0
			      : -RPCRDMA_E_CHUNK_OFFER;
		if (ret == 0)
			rpcrdma_xdr_dec_init(&c->dec, (uint8_t *)rx->buf + h->hdr_len,
					     rx->len - h->hdr_len);
	} else {
		ret = rpcrdma_marshal_call_reply(&c->plan, h, (uint8_t *)rx->buf + h->hdr_len,
						 rx->len - h->hdr_len, &c->dec);
	}
	if (ret) {
		x->st.bad_replies++;
		x->st.err_chunk++;
		call_fail(c, -EBADMSG);
		goto complete;
	}
	rpcrdma_credit_req_update(&x->creq, h->credit);
matched:
	x->st.replies++;
	x->st.send_inv += rx->inv;
complete:
	c->rx = rx;
	c->replied = true;
	call_process(c);
	if (unlikely(lose))
		conn_lost(x);
	return;
drop:
	rx_put(x, rx);
}

/* ------------------------------------------------------------ backward direction */

int rpcrdma_xprt_bc_may_call(const struct rpcrdma_xprt *x)
{
	if (x->p.role != RPCRDMA_XPRT_SERVER || x->ncalls == 0)
		return -EOPNOTSUPP;
	if (x->state != RPCRDMA_XPRT_ESTABLISHED)
		return -ENOTCONN;
	/* no forward call yet: the client has said nothing, not even its version */
	if (!x->vers_settled)
		return -ECONNREFUSED;
	/* version 2: its Backward Request Support (xcharext 3.3) */
	if (x->vers == RPCRDMA_VERS_2 && x->xchar_on && x->xs.peer_init)
		return x->xs.peer.brs == RPCRDMA_BKREQSUP_NONE ? -ECONNREFUSED : 0;
	/* version 1 (and version 2 without the extension): the upper layer knows (2.2.3) */
	return x->bc_ready ? 0 : -ECONNREFUSED;
}

int rpcrdma_xprt_bc_set_ready(struct rpcrdma_xprt *x, bool ready)
{
	if (x->p.role != RPCRDMA_XPRT_SERVER || x->ncalls == 0)
		return -EOPNOTSUPP;
	x->bc_ready = ready;
	return 0;
}

/* Take a given slot out of the free list. */
static void call_take_slot(struct rpcrdma_xprt *x, struct rpcrdma_xprt_call *c)
{
	struct rpcrdma_xprt_call **pp = &x->call_free;

	while (*pp != c)
		pp = &(*pp)->next_free;
	*pp = c->next_free;
	x->calls_busy++;
}

/* A call waits for a reconnect: parked, or not sent yet with RETRANSMIT. */
static bool call_waits_reconnect(const struct rpcrdma_xprt_call *c)
{
	return c->state == CALL_PARKED ||
	       (c->state == CALL_NEED_CREDIT && (c->flags & RPCRDMA_XPRT_CALL_F_RETRANSMIT));
}

int rpcrdma_xprt_bc_adopt(struct rpcrdma_xprt *to, struct rpcrdma_xprt *from)
{
	uint32_t i;
	int n = 0;

	if (to == from || to->p.role != RPCRDMA_XPRT_SERVER ||
	    from->p.role != RPCRDMA_XPRT_SERVER || to->ncalls == 0 || to->ncalls != from->ncalls)
		return -EINVAL;
	if (from->state != RPCRDMA_XPRT_CLOSED && from->state != RPCRDMA_XPRT_ERROR)
		return -EBUSY;
	for (i = 0; i < from->ncalls; i++)
		if (call_waits_reconnect(&from->calls[i]) && to->calls[i].state != CALL_FREE)
			return -EBUSY; /* its XID's slot is taken on the new connection */
	for (i = 0; i < from->ncalls; i++) {
		struct rpcrdma_xprt_call *o = &from->calls[i], *c = &to->calls[i];
		void *buf;

		if (!call_waits_reconnect(o))
			continue;
		call_unwait(o);
		call_take_slot(to, c);
		/* the slot index is the XID's low bits: the same XID goes again (2.3) */
		buf = c->msg_buf;
		c->msg_buf = o->msg_buf;
		o->msg_buf = buf;
		c->xid = o->xid;
		c->flags = o->flags;
		c->status = 0;
		c->cb = o->cb;
		c->arg = o->arg;
		c->timeout = o->timeout;
		c->enc = o->enc; /* over the buffer that moved with it */
		c->spec = o->spec;
		c->rx = NULL;
		c->nmrs = 0;
		c->queued = c->send_done = c->lost = c->stalled = c->has_credit = false;
		c->replied = c->fast = c->tmo_late = false;
		c->resend = true;
		c->state = CALL_PARKED;
		if (o->timed) {
			tmo_del(from, o);
			tmo_add(to, c, o->deadline);
		}
		call_free_slot(o);
		call_wait(c);
		n++;
	}
	return n;
}

/* ------------------------------------------------------------ responder */

const struct rpcrdma_rpc_msg *rpcrdma_xprt_svc_call_msg(const struct rpcrdma_xprt_svc_call *s)
{
	return &s->msg;
}

struct rpcrdma_xdr_dec *rpcrdma_xprt_svc_call_args(struct rpcrdma_xprt_svc_call *s)
{
	return &s->args;
}

struct rpcrdma_xprt *rpcrdma_xprt_svc_call_xprt(const struct rpcrdma_xprt_svc_call *s)
{
	return s->xprt;
}

int rpcrdma_xprt_svc_call_rpc_status(const struct rpcrdma_xprt_svc_call *s)
{
	return s->rpc_ret < 0 ? s->rpc_ret : 0;
}

struct rpcrdma_svc_req *rpcrdma_xprt_svc_call_req(struct rpcrdma_xprt_svc_call *s)
{
	return &s->req;
}

void rpcrdma_xprt_svc_call_set_priv(struct rpcrdma_xprt_svc_call *s, void *priv)
{
	s->priv = priv;
}

void *rpcrdma_xprt_svc_call_priv(const struct rpcrdma_xprt_svc_call *s)
{
	return s->priv;
}

/*
 * A call offering a reply chunk longer than the inline buffer holds gets
 * its reply stream in a chunk buffer of the reply chunk's length (at most
 * the largest class), so the reply can be as long as the requester allows
 * (a Long Reply, rfc5666bis 4.5.3). false: no such chunk, or no buffer
 * now; the inline buffer serves, and a longer reply gets -ENOSPC from the
 * stream as before. The slot gives the buffer back at release.
 */
static bool reply_chunk_stream(struct rpcrdma_xprt_svc_call *s)
{
	const struct rpcrdma_chunk_lists *cl = &s->chdr.hdr.chunks;
	struct rpcrdma_mempool_set *set = s->xprt->p.pools;
	struct rpcrdma_xdr_region reg;
	struct rpcrdma_mempool *pool;
	uint64_t len = 0;
	uint32_t i;
	void *b;

	if (s->fast || !cl->has_reply || set == NULL || set->nb_classes == 0)
		return false;
	for (i = 0; i < cl->reply.nsegs; i++)
		len += cl->reply.segs[i].length;
	if (len <= s->xprt->ipool->buf_size - XPRT_HDR_ROOM)
		return false;
	pool = rpcrdma_mempool_set_chunk_pool(set, (uint32_t)RTE_MIN(len, (uint64_t)UINT32_MAX));
	if (pool == NULL)
		pool = set->chunk[set->nb_classes - 1];
	b = rpcrdma_mempool_get(pool);
	if (b == NULL) {
		s->xprt->st.reply_buf_short++;
		return false;
	}
	s->long_buf = b;
	s->long_pool = pool;
	reg = pool_region(pool, b, (uint32_t)RTE_MIN(len, (uint64_t)pool->buf_size));
	rpcrdma_xdr_enc_init(&s->reply, &reg);
	return true;
}

struct rpcrdma_xdr_enc *rpcrdma_xprt_svc_call_reply_enc(struct rpcrdma_xprt_svc_call *s)
{
	struct rpcrdma_mempool *pool = s->xprt->ipool;

	if (!s->has_reply && reply_chunk_stream(s)) {
		s->has_reply = true;
		return &s->reply;
	}
	if (!s->has_reply) {
		if (s->reply_buf == NULL && s->xprt->rbuf_free != NULL) {
			s->reply_buf = s->xprt->rbuf_free;
			s->xprt->rbuf_free = *(void **)s->reply_buf;
		}
		if (s->reply_buf == NULL)
			s->reply_buf = rpcrdma_mempool_get(pool);
		if (s->reply_buf == NULL)
			return NULL;
		s->has_reply = true;
		inline_stream(&s->reply, pool, s->reply_buf);
	}
	return &s->reply;
}

int rpcrdma_xprt_svc_call_put_reply_header(struct rpcrdma_xprt_svc_call *s, uint32_t accept_stat)
{
	struct rpcrdma_xdr_enc *xdr = rpcrdma_xprt_svc_call_reply_enc(s);
	uint8_t *p;

	if (xdr == NULL)
		return -ENOBUFS;
	p = rpcrdma_xdr_reserve(xdr, 24);
	if (p == NULL)
		return -ENOSPC;
	put_accepted_words(p, s->msg.xid, RPCRDMA_RPC_AUTH_NONE, accept_stat);
	return 0;
}

static void svc_wait(struct rpcrdma_xprt_svc_call *s)
{
	if (!s->queued) {
		TAILQ_INSERT_TAIL(&s->xprt->svc_wait, s, link);
		s->queued = true;
	}
}

int rpcrdma_xprt_svc_call_reply(struct rpcrdma_xprt_svc_call *s)
{
	if (s->state != SVC_DISPATCHED || !s->has_reply)
		return -EINVAL;
	if (s->lost) {
		s->state = SVC_DONE;
		if (!s->in_cb)
			svc_process(s);
		return -ENOTCONN;
	}
	s->err_code = 0;
	s->state = SVC_REPLY_READY;
	if (!s->in_cb)
		svc_process(s);
	return 0;
}

void rpcrdma_xprt_svc_call_drop(struct rpcrdma_xprt_svc_call *s)
{
	if (s->state != SVC_DISPATCHED)
		return;
	s->xprt->st.dropped++;
	s->state = SVC_DONE;
	if (!s->in_cb)
		svc_process(s);
}

static void svc_error(struct rpcrdma_xprt_svc_call *s, uint32_t code)
{
	s->err_code = code;
	s->state = SVC_REPLY_READY;
}

/* Chunk buffers for every read chunk; false when a pool is empty (wait). */
static int svc_chunk_bufs(struct rpcrdma_xprt_svc_call *s)
{
	struct rpcrdma_xprt *x = s->xprt;
	uint16_t i;

	for (i = s->nbufs; i < s->map.nchunks; i++) {
		struct rpcrdma_marshal_rchunk *ch = &s->map.chunks[i];
		struct rpcrdma_mempool *pool = rpcrdma_mempool_set_chunk_pool(x->p.pools, ch->len);
		void *b;

		if (pool == NULL)
			return -EMSGSIZE;
		b = rpcrdma_mempool_get(pool);
		if (b == NULL)
			return -EAGAIN;
		s->bufs[i] = b;
		s->bpools[i] = pool;
		s->nbufs = i + 1;
		ch->dst = pool_region(pool, b, ch->len);
	}
	return 0;
}

/* RPC header errors a call can be answered for (RPC_MISMATCH, AUTH_BADCRED: rpcrdma_svc.h). */
static bool rpc_answerable(int err)
{
	return err == -RPCRDMA_E_RPCVERS || err == -RPCRDMA_E_OPAQUE_BOUND ||
	       err == -RPCRDMA_E_GIDS || err == -RPCRDMA_E_AUTH_LEN;
}

/*
 * The first word of a call's stream at the cursor, where the RPC header
 * (and its XID) is decoded from: in one piece, as rpcrdma_xprt_get_rpc()
 * reads it. @return false: less than a word there.
 */
static bool stream_word(const struct rpcrdma_xdr_dec *d, uint32_t *w)
{
	const struct rpcrdma_xdr_piece *pc;

	if (d->cur >= d->npieces)
		return false;
	pc = &d->pieces[d->cur];
	if (d->off > pc->len || pc->len - d->off < 4)
		return false;
	*w = rpcrdma_wire_get32(pc->p + d->off, 0);
	return true;
}

/* The reads are done (or there were none): the call's stream, its RPC header, dispatch. */
static void svc_dispatch(struct rpcrdma_xprt_svc_call *s)
{
	struct rpcrdma_xprt *x = s->xprt;
	uint32_t rpc_xid = 0;
	bool has_xid = false;

	/* a failed decode leaves these: not taken for a call */
	s->msg.xid = ~s->xid;
	s->msg.type = RPCRDMA_RPC_REPLY;
	if (s->fast) {
		/* one inline piece: the header is decoded in place, the cursor set after it */
		const uint8_t *p = (const uint8_t *)s->rx->buf + s->hlen;
		uint32_t n = s->rx->len - s->hlen;
		int ret;

		rpcrdma_xdr_dec_init(&s->args, p, n);
		has_xid = stream_word(&s->args, &rpc_xid);
		ret = rpcrdma_rpc_decode(&s->msg, p, n);
		if (ret >= 0 && (uint32_t)ret <= n) {
			s->args.off = (uint32_t)ret;
			ret = 0;
		} else if (ret >= 0) {
			ret = -RPCRDMA_E_TRUNC; /* never from the codec: a header past the piece */
		}
		s->rpc_ret = ret;
	} else if (rpcrdma_marshal_call_dec(&s->map, &s->args) != 0) {
		goto drop;
	} else {
		has_xid = stream_word(&s->args, &rpc_xid);
		s->rpc_ret = rpcrdma_xprt_get_rpc(&s->args, &s->msg);
	}
	if (has_xid && rpc_xid != s->xid) {
		/*
		 * rfc5666bis 5.5.2: an rdma_xid that does not match the XID of
		 * the RPC message it carries is an XDR error, answered ERR_CHUNK
		 * (RDMA2_ERR_BAD_HEADER in version 2, v2 draft 4.2.3) with the
		 * rdma_xid; the upper layer never sees the call.
		 */
		x->st.err_xid++;
		svc_error(s, RPCRDMA_ERR_CHUNK);
		return;
	}
	if (s->msg.type != RPCRDMA_RPC_CALL || s->msg.xid != s->xid)
		goto drop;
	if (s->rpc_ret == 0)
		s->rpc_ret = (int)s->msg.hdr_len;
	else if (!(x->p.flags & RPCRDMA_XPRT_F_RPC_ERRORS) || !rpc_answerable(s->rpc_ret))
		goto drop;
	s->state = SVC_DISPATCHED;
	x->work++;
	/* svc_process() goes on with whatever state the callback leaves */
	s->in_cb = true;
	x->p.recv_call(x->p.ctx, s);
	s->in_cb = false;
	return;

drop:
	/* no RPC call to answer: the upper layer never sees it */
	x->st.dropped++;
	s->state = SVC_DONE;
}

static void svc_stage_reads(struct rpcrdma_xprt_svc_call *s)
{
	struct rpcrdma_xprt *x = s->xprt;

	while (s->ops_posted < s->nops && x->reads_out < x->p.read_depth && sq_room(x, 1)) {
		const struct rpcrdma_marshal_rdma *op = &s->ops[s->ops_posted];
		struct rpcrdma_pmd_sge *sge = &s->rsge[s->ops_posted];
		/* the call waits for every Read: signaled */
		struct rpcrdma_pmd_send_wr *wr = stage(x, WR_SVC_READ, s, true);

		sge->addr = op->laddr;
		sge->length = op->len;
		sge->lkey = op->lkey;
		wr->opcode = RPCRDMA_PMD_WR_RDMA_READ;
		wr->sg_list = sge;
		wr->num_sge = 1;
		wr->remote_addr = op->raddr;
		wr->rkey = op->rkey;
		x->st.read_bytes += op->len;
		s->ops_posted++;
		x->reads_out++;
	}
}

/* Encode an RDMA_ERROR into the slot's header area and stage its Send. */
static void svc_stage_error(struct rpcrdma_xprt_svc_call *s, uint32_t code, int grant)
{
	struct rpcrdma_xprt *x = s->xprt;
	struct rpcrdma_pmd_send_wr *wr;
	struct rpcrdma_hdr h;
	int n;

	/*
	 * ERR_CHUNK and RDMA2_ERR_BAD_HEADER are both 2; ERR_VERS carries
	 * the versions we accept, in version 1 (rpcrdma_vers_resp_recv()).
	 */
	memset(&h, 0, sizeof(h));
	h.xid = s->xid;
	h.vers = s->err_vers;
	h.credit = (uint32_t)grant;
	h.proc = RPCRDMA_ERROR;
	h.error.code = code;
	h.error.low = s->err_low;
	h.error.high = s->err_high;
	n = rpcrdma_hdr_encode(&h, s->hdr.addr, s->hdr.len);
	s->esge.addr = (uintptr_t)s->hdr.addr;
	s->esge.length = n > 0 ? (uint32_t)n : 0;
	s->esge.lkey = s->hdr.lkey;
	wr = stage(x, WR_SVC_SEND, s, false);
	wr->opcode = RPCRDMA_PMD_WR_SEND;
	wr->sg_list = &s->esge;
	wr->num_sge = 1;
	x->st.errors_sent++;
	s->nwrites = 0;
}

/* Marshal and stage the reply: its Writes, then its Send. */

/*
 * Copy a stream's DDP-eligible items inline, each with its XDR pad, into
 * the stream's own buffer: the whole stream in one gather entry, for a
 * reply whose items would need more entries than the device takes. From
 * the end backwards, so that every byte moves before it is overwritten
 * (inline bytes only move up). -EMSGSIZE: the whole stream does not fit
 * the buffer; the stream is untouched then.
 */
static int stream_pull_up(struct rpcrdma_xdr_enc *xdr)
{
	uint8_t *b = xdr->mem.addr;
	uint32_t end = xdr->pos, tail = xdr->len;
	uint16_t k;

	if (xdr->nddp == 0 || xdr->pos > xdr->mem.len)
		return -EMSGSIZE;
	for (k = xdr->nddp; k-- > 0;) {
		const struct rpcrdma_xdr_ddp *d = &xdr->ddp[k];
		uint32_t n = tail - d->off, padded = (d->data.len + 3u) & ~3u;

		end -= n;
		memmove(b + end, b + d->off, n);
		end -= padded;
		memcpy(b + end, d->data.addr, d->data.len);
		memset(b + end + d->data.len, 0, padded - d->data.len);
		tail = d->off;
	}
	xdr->len = xdr->pos;
	xdr->nddp = 0;
	return 0;
}
static void svc_stage_reply(struct rpcrdma_xprt_svc_call *s, int grant)
{
	struct rpcrdma_xprt *x = s->xprt;
	struct rpcrdma_marshal_reply_plan *rp = &s->rplan;
	struct rpcrdma_marshal_reply_args a;
	struct rpcrdma_pmd_send_wr *wr;
	uint16_t i;
	int ret;

	if (s->fast) {
		if (s->reply.nddp == 0 &&
		    s->hlen + (uint64_t)s->reply.len <= reply_mconn(x)->send_inline &&
		    inline_stream_is(&s->reply, s->reply_buf)) {
			/*
			 * Short, to a call without chunks: no plan, nothing to
			 * signal. The Send owns the buffer until it retires (the
			 * gather entry is copied into the WR by the PMD's queue):
			 * nothing else of the slot's is in use, so the slot is
			 * done now (reply_done: no DDP result to give back).
			 */
			struct rpcrdma_pmd_sge *sge;

			wr = stage(x, WR_SVC_SEND_BUF, s->reply_buf, false);
			/* the slot may serve another call before the doorbell: the entry's own */
			sge = &x->sq_sge[(x->sq_head - 1) & x->sq_mask];
			wr->opcode = RPCRDMA_PMD_WR_SEND;
			wr->sg_list = sge;
			wr->num_sge = short_sgl((struct rpcrdma_marshal_sge *)sge, &s->reply,
						s->vers, RPCRDMA_REPLY, s->xid, (uint32_t)grant);
			s->reply_buf = NULL;
			s->send_done = true;
			s->nwrites = 0;
			x->st.short_msgs++;
			x->st.replies++;
			s->replied = true;
			return;
		}
		/* the marshaler reads the call's (empty) chunk lists */
		rpcrdma_hdr_decode(rpcrdma_hdr_storage_init(&s->chdr), s->rx->buf, s->rx->len);
	}
	a.call = &s->chdr.hdr;
	a.credit = (uint32_t)grant;
	a.xdr = &s->reply;
	a.hdr_buf = s->hdr;
	ret = rpcrdma_marshal_reply(reply_mconn(x), &a, rp);
	if (ret == -E2BIG && a.call->chunks.nwrites == 0 && stream_pull_up(&s->reply) == 0) {
		/* more gather entries than the device takes (siw: 6): one entry, once */
		x->st.inline_pullups++;
		ret = rpcrdma_marshal_reply(reply_mconn(x), &a, rp);
	}
	if (ret && ret != -EMSGSIZE) {
		/* no usable plan: the reply cannot be sent as the requester asked */
		x->st.err_chunk++;
		svc_stage_error(s, RPCRDMA_ERR_CHUNK, grant);
		return;
	}
	if (rp->form == RPCRDMA_MARSHAL_ERR_CHUNK) {
		x->st.err_chunk++;
		x->st.errors_sent++;
	}
	for (i = 0; i < rp->nrdma; i++) {
		const struct rpcrdma_marshal_rdma *op = &rp->rdma[i];

		s->wsge[i].addr = op->laddr;
		s->wsge[i].length = op->len;
		s->wsge[i].lkey = op->lkey;
		/* retired by the reply's Send, which completes after it */
		wr = stage(x, WR_SVC_WRITE, s, false);
		wr->opcode = RPCRDMA_PMD_WR_RDMA_WRITE;
		wr->sg_list = &s->wsge[i];
		wr->num_sge = 1;
		wr->remote_addr = op->raddr;
		wr->rkey = op->rkey;
	}
	s->nwrites = rp->nrdma;
	x->st.write_bytes += rp->rdma_bytes;
	/*
	 * Signaled when the reply holds chunk buffers or the upper layer's DDP
	 * results (reply_done gives them back, even when they went inline).
	 */
	wr = stage(x, WR_SVC_SEND, s,
		   s->nbufs != 0 || s->reply.nddp != 0 || rp->nrdma != 0 || s->long_buf != NULL);
	wr->opcode = rp->send_inv ? RPCRDMA_PMD_WR_SEND_WITH_INV : RPCRDMA_PMD_WR_SEND;
	wr->invalidate_rkey = rp->send_inv ? rp->inv_rkey : 0;
	wr->sg_list = (const struct rpcrdma_pmd_sge *)rp->sge;
	wr->num_sge = rp->nsge;
	x->st.send_inv += rp->send_inv;
	if (rp->form == RPCRDMA_MARSHAL_SHORT)
		x->st.short_msgs++;
	else if (rp->form == RPCRDMA_MARSHAL_CHUNKED)
		x->st.chunked_msgs++;
	else if (rp->form == RPCRDMA_MARSHAL_LONG)
		x->st.long_msgs++;
	if (rp->form != RPCRDMA_MARSHAL_ERR_CHUNK) {
		x->st.replies++;
		s->replied = true;
	}
}

static void svc_release(struct rpcrdma_xprt_svc_call *s)
{
	struct rpcrdma_xprt *x = s->xprt;
	uint16_t i;

	if (!s->credited)
		rpcrdma_credit_resp_drop(&x->cresp);
	if (x->p.reply_done != NULL && s->has_reply)
		x->p.reply_done(x->p.ctx, s, s->replied && !s->lost ? 0 : -ECONNRESET);
	for (i = 0; i < s->nbufs; i++)
		rpcrdma_mempool_put(s->bpools[i], s->bufs[i]);
	s->nbufs = 0;
	if (s->long_buf != NULL)
		rpcrdma_mempool_put(s->long_pool, s->long_buf);
	s->long_buf = NULL;
	/* the slot keeps its reply buffer for the next call (xprt_free() returns it) */
	s->has_reply = false;
	if (s->rx != NULL)
		rx_put(x, s->rx);
	s->rx = NULL;
	if (s->queued) {
		TAILQ_REMOVE(&x->svc_wait, s, link);
		s->queued = false;
	}
	/* what a call starts with, set here: off the next call's round trip */
	s->lost = s->credited = s->replied = s->in_cb = false;
	s->err_code = 0;
	s->nops = s->ops_posted = s->ops_done = 0;
	s->nwrites = s->writes_done = 0;
	s->priv = NULL;
	s->fast = false;
	s->hlen = 0;
	s->state = SVC_FREE;
	s->next_free = x->svc_free;
	x->svc_free = s;
	x->svc_active--;
	x->recv_short = true; /* the grant may want a receive now (a drop outside a poll) */
}

static void svc_process(struct rpcrdma_xprt_svc_call *s)
{
	struct rpcrdma_xprt *x = s->xprt;
	enum svc_state prev;
	int ret;

	do {
		prev = s->state;
		switch (s->state) {
		case SVC_RECEIVED:
			if (s->lost) {
				s->state = SVC_DONE;
				break;
			}
			if (s->fast || s->map.nchunks == 0) {
				svc_dispatch(s);
				break;
			}
			ret = svc_chunk_bufs(s);
			if (ret == -EAGAIN) {
				svc_wait(s);
				break;
			}
			if (ret == 0) {
				ret = rpcrdma_marshal_call_reads(&s->map, s->ops,
								 RPCRDMA_MARSHAL_MAX_READS);
			}
			if (ret < 0) {
				x->st.err_chunk++;
				svc_error(s, RPCRDMA_ERR_CHUNK);
				break;
			}
			s->nops = (uint16_t)ret;
			s->ops_posted = s->ops_done = 0;
			s->state = SVC_READ_PENDING;
			break;
		case SVC_READ_PENDING:
			if (s->lost) {
				if (s->ops_done == s->ops_posted)
					s->state = SVC_DONE;
				break;
			}
			svc_stage_reads(s);
			if (s->ops_posted < s->nops)
				svc_wait(s);
			else if (s->ops_done == s->nops)
				svc_dispatch(s);
			break;
		case SVC_DISPATCHED:
			break;
		case SVC_REPLY_READY:
			if (s->lost) {
				s->state = SVC_DONE;
				break;
			}
			if (!sq_room(x, XPRT_REPLY_WRS)) {
				svc_wait(s);
				break;
			}
			/*
			 * The reply goes before its call's receive is reposted
			 * (the poll reposts after the doorbell): the spare
			 * receives keep the grant, min(target, posted + active -
			 * 1), at the target. Only a batch larger than the spare
			 * reposts first, so that no reply grants less.
			 */
			if (x->p.role == RPCRDMA_XPRT_CLIENT)
				x->cresp.posted = x->cresp.max; /* resp_received() */
			else if ((uint64_t)x->cresp.posted + x->cresp.active - 1 < x->cresp.target)
				post_recvs(x);
			ret = rpcrdma_credit_resp_reply(&x->cresp);
			if (ret == -EAGAIN) {
				post_recvs(x);
				ret = rpcrdma_credit_resp_reply(&x->cresp);
			}
			if (ret < 0) {
				svc_wait(s);
				break;
			}
			s->credited = true;
			s->send_done = false;
			s->writes_done = 0;
			if (s->err_code)
				svc_stage_error(s, s->err_code, ret);
			else
				svc_stage_reply(s, ret);
			s->state = SVC_REPLY_WRITE_PENDING;
			/* fall through */
		case SVC_REPLY_WRITE_PENDING:
			if (s->writes_done != s->nwrites)
				break;
			s->state = SVC_SEND_PENDING;
			/* fall through */
		case SVC_SEND_PENDING:
			if (!s->send_done)
				break;
			s->state = SVC_DONE;
			/* fall through */
		case SVC_DONE:
			if (s->release_pending)
				return;
			x->work++;
			if (x->in_poll) {
				s->release_pending = true;
				s->next_free = x->svc_done;
				x->svc_done = s;
				return;
			}
			svc_release(s);
			return;
		default:
			return;
		}
	} while (s->state != prev);
}

static void svc_run_waiters(struct rpcrdma_xprt *x)
{
	struct svc_fifo todo;
	struct rpcrdma_xprt_svc_call *s;

	if (TAILQ_EMPTY(&x->svc_wait))
		return;
	TAILQ_INIT(&todo);
	TAILQ_CONCAT(&todo, &x->svc_wait, link);
	while ((s = TAILQ_FIRST(&todo)) != NULL) {
		TAILQ_REMOVE(&todo, s, link);
		s->queued = false;
		svc_process(s);
	}
}

/* Stage the drain marker: a signaled zero-length RDMA Write, a no-op on any QP state. */
static void stage_marker(struct rpcrdma_xprt *x)
{
	struct rpcrdma_pmd_send_wr *wr = stage(x, WR_MARKER, NULL, true);

	wr->opcode = RPCRDMA_PMD_WR_RDMA_WRITE;
	wr->num_sge = 0;
}

static void server_recv_slot(struct rpcrdma_xprt *x, struct xprt_rx *rx);

/*
 * A responder slot's message consumed a receive: the credit accounting of
 * its direction. A client's backward grant is fixed, bk_credits: its
 * receives for backward calls are reserved beyond the forward ones
 * (RFC 8167 2.2.1), so they count as posted.
 */
static void resp_received(struct rpcrdma_xprt *x)
{
	if (x->p.role == RPCRDMA_XPRT_CLIENT)
		x->cresp.posted = x->cresp.max;
	rpcrdma_credit_resp_received(&x->cresp);
}

static void server_recv(struct rpcrdma_xprt *x, struct xprt_rx *rx)
{
	resp_received(x);
	if (rx->len < RPCRDMA_HDR_FIXED_LEN) {
		/* not even an XID */
		x->st.err_hdr++;
		rpcrdma_credit_resp_drop(&x->cresp);
		rx_put(x, rx);
		return;
	}
	if (x->svc_free == NULL || x->backlog != NULL) {
		/*
		 * Every slot is busy (a requester over its grant, or replies
		 * whose unsignaled Sends have not retired yet): the call waits,
		 * its receive not reposted, so a requester over its grant
		 * meets RNR, not a lost call. A marker retires the Sends.
		 */
		rx->next = NULL;
		if (x->backlog == NULL)
			x->backlog = rx;
		else
			x->backlog_last->next = rx;
		x->backlog_last = rx;
		if (x->sq_unsig != 0 && sq_room(x, 1))
			stage_marker(x);
		return;
	}
	server_recv_slot(x, rx);
}

/* Received calls that waited for a slot, in order. */
static void server_run_backlog(struct rpcrdma_xprt *x)
{
	while (x->backlog != NULL && x->svc_free != NULL) {
		struct xprt_rx *rx = x->backlog;

		x->backlog = rx->next;
		server_recv_slot(x, rx);
		x->work++;
	}
}

/*
 * A call of another version than the settled one, or the first call: the
 * responder's negotiation (rpcrdma_vers.h) accepts it, settling the
 * version with the first call, or it is answered ERR_VERS.
 * @return true: accepted.
 */
static bool server_vers(struct rpcrdma_xprt *x, struct rpcrdma_xprt_svc_call *s, uint32_t vers)
{
	struct rpcrdma_vers_answer ans;

	rpcrdma_vers_resp_recv(&x->vresp, vers, &ans);
	if (!ans.accept) {
		/* rfc5666bis 5.5.1: ERR_VERS with the versions we support */
		x->st.err_vers++;
		s->err_vers = (uint8_t)ans.reply_vers;
		s->err_low = (uint8_t)ans.low;
		s->err_high = (uint8_t)ans.high;
		svc_error(s, RPCRDMA_ERR_VERS);
		return false;
	}
	if (!x->vers_settled) {
		vers_settle(x, vers);
		if (vers == RPCRDMA_VERS_2)
			xchar_start(x); /* our ROPT_INITXCH before the first reply */
	}
	return true;
}

static void server_recv_slot(struct rpcrdma_xprt *x, struct xprt_rx *rx)
{
	struct rpcrdma_xprt_svc_call *s;
	struct rpcrdma_hdr *h;
	uint32_t vers;
	int ret;

	s = x->svc_free;
	x->svc_free = s->next_free;
	x->svc_active++;
	x->st.calls_recv++;
	/* the other per-call fields were reset when it was released (svc_release()) */
	s->rx = rx;
	s->xid = rpcrdma_wire_get32(rx->buf, 0);
	vers = rpcrdma_wire_get32(rx->buf, 1);
	s->vers = (uint8_t)vers;
	s->err_vers = (uint8_t)vers; /* errors go in the version of the call */
	if (unlikely(!x->vers_settled || vers != x->vers)) {
		if (x->p.role == RPCRDMA_XPRT_CLIENT) {
			/* a backward call in another version than the connection's */
			x->st.err_vers++;
			s->state = SVC_DONE;
			goto process;
		}
		if (!server_vers(x, s, vers))
			goto process;
	}
	/* version 1: rx_classify() has looked already */
	s->hlen = vers == RPCRDMA_VERS_1
			  ? rx->hlen
			  : (uint8_t)short_hdr_len(rx->buf, rx->len, vers, RPCRDMA_CALL);
	s->fast = s->hlen != 0 && (x->p.max_call == 0 || rx->len - s->hlen <= x->p.max_call);
	if (s->fast) {
		/* no chunks to map: the header is decoded when a reply needs it */
		s->state = SVC_RECEIVED;
		goto process;
	}
	h = rpcrdma_hdr_storage_init(&s->chdr);
	ret = rpcrdma_hdr_decode(h, rx->buf, rx->len);
	if (ret < 0) {
		/* ERR_CHUNK (v1), RDMA2_ERR_BAD_HEADER (v2): both 2 */
		x->st.err_hdr++;
		svc_error(s, RPCRDMA_ERR_CHUNK);
		goto process;
	}
	switch (h->proc) {
	case RPCRDMA_MSG:
	case RPCRDMA_NOMSG:
		/* version 2: rdma_direction CALL (rx_classify() sent the rest elsewhere) */
		break;
	case RPCRDMA_OPTIONAL: /* never here: ctrl_recv(), or ERR_VERS (server_vers()) */
		s->state = SVC_DONE;
		goto process;
	case RPCRDMA_DONE:
		/* no longer sent: receivers SHOULD answer ERR_CHUNK (rfc5666bis 5.6.2) */
		x->st.done_recv++;
		svc_error(s, RPCRDMA_ERR_CHUNK);
		goto process;
	case RPCRDMA_MSGP:
		x->st.err_chunk++;
		svc_error(s, RPCRDMA_ERR_CHUNK);
		goto process;
	default: /* RDMA_ERROR (RDMA2_ERROR) from a requester: nothing to answer */
		if (xchar_error(x, rx->buf, rx->len)) {
			s->state = SVC_DONE;
			goto process;
		}
		x->st.err_hdr++;
		s->state = SVC_DONE;
		goto process;
	}
	ret = rpcrdma_marshal_call_map(h, (uint8_t *)rx->buf + h->hdr_len, rx->len - h->hdr_len,
				       x->p.max_call, &s->map);
	if (ret < 0) {
		x->st.err_chunk++;
		svc_error(s, RPCRDMA_ERR_CHUNK);
		goto process;
	}
	s->state = SVC_RECEIVED;
process:
	svc_process(s);
}

/* ------------------------------------------------------------ receive dispatch */

/* Where a received message goes. */
enum rx_kind {
	RX_CALL,  /* a call: a responder slot (server: forward; client: backward) */
	RX_REPLY, /* a reply (or RDMA_ERROR) to one of our calls: a requester slot */
	RX_CTRL,  /* RDMA2_OPTIONAL: transport characteristics */
};

/* Is xid one of our requester slots' calls out now? */
static bool xid_is_ours(const struct rpcrdma_xprt *x, uint32_t xid)
{
	const struct rpcrdma_xprt_call *c;

	if (x->ncalls == 0)
		return false;
	c = &x->calls[xid & (x->ncalls - 1)];
	return c->xid == xid && c->state == CALL_SENT;
}

/*
 * A server that takes version 2 messages on this connection now: version 2
 * is in its range (params.vers) and version 1 is not settled. Any other
 * server answers a version 2 message ERR_VERS (rfc5666bis 5.5.1), whatever
 * its rdma_proc.
 */
static bool srv_takes_v2(const struct rpcrdma_xprt *x)
{
	if (x->vers_settled)
		return x->vers == RPCRDMA_VERS_2;
	return x->vresp.cfg != RPCRDMA_VERS_RESP_V1_ONLY;
}

/*
 * A message's direction (RFC 8167 1.3; v2 draft 3.2): version 2 says it in
 * rdma_direction; in version 1 it is the RPC msg_type, which a backward
 * message, always Short (2.5, 2.6), has right after its 28-byte header.
 * An RDMA_ERROR answers a call of ours when its XID is one. Anything else
 * goes the way of the role: a client's replies, a server's calls (their
 * paths count and answer what is malformed).
 */
static enum rx_kind rx_classify(const struct rpcrdma_xprt *x, struct xprt_rx *rx)
{
	bool cli = x->p.role == RPCRDMA_XPRT_CLIENT;
	enum rx_kind other = cli ? RX_CALL : RX_REPLY;
	const void *b = rx->buf;
	uint32_t vers, proc;

	rx->hlen = 0;
	if (rx->len < RPCRDMA_HDR_FIXED_LEN)
		return cli ? RX_REPLY : RX_CALL;
	vers = rpcrdma_wire_get32(b, 1);
	proc = rpcrdma_wire_get32(b, 3);
	if (vers == RPCRDMA_VERS_2 && proc == RPCRDMA_OPTIONAL) {
		/* at a server of version 1 only, or settled on version 1: a call for ERR_VERS */
		return cli || srv_takes_v2(x) ? RX_CTRL : RX_CALL;
	}
	if (vers == RPCRDMA_VERS_2 && (proc == RPCRDMA_MSG || proc == RPCRDMA_NOMSG) &&
	    rx->len >= 20 && rpcrdma_wire_get32(b, 4) == (cli ? RPCRDMA_CALL : RPCRDMA_REPLY))
		return other;
	if (vers == RPCRDMA_VERS_1)
		rx->hlen = (uint8_t)short_hdr_len(b, rx->len, RPCRDMA_VERS_1, 0);
	if (rx->hlen != 0 && rx->len >= XPRT_SHORT_HDR + 8 &&
	    rpcrdma_wire_get32(b, 8) == (cli ? RPCRDMA_CALL : RPCRDMA_REPLY))
		return other;
	if (!cli && proc == RPCRDMA_ERROR && xid_is_ours(x, rpcrdma_wire_get32(b, 0)))
		return RX_REPLY;
	return cli ? RX_REPLY : RX_CALL;
}

/* Server: a receive consumed by a message that is not a forward call. */
static void srv_consumed(struct rpcrdma_xprt *x)
{
	if (x->p.role == RPCRDMA_XPRT_SERVER) {
		rpcrdma_credit_resp_received(&x->cresp);
		rpcrdma_credit_resp_drop(&x->cresp);
	}
}

/* An RDMA2_OPTIONAL, either role: applied, or answered RDMA2_ERROR. */
static void ctrl_recv(struct rpcrdma_xprt *x, struct xprt_rx *rx)
{
	struct rpcrdma_hdr_storage hs;
	struct rpcrdma_hdr *h = rpcrdma_hdr_storage_init(&hs);
	uint32_t code;

	if (x->vers_settled && x->vers != RPCRDMA_VERS_2) {
		/*
		 * A client's version 1 connection (a server's goes to ERR_VERS,
		 * rx_classify()): the other version, counted and dropped, as a
		 * requester does with any message of it.
		 */
		x->st.err_vers++;
		return;
	}
	if (rpcrdma_hdr_decode(h, rx->buf, rx->len) < 0) {
		x->st.options_recv++;
		x->st.err_hdr++;
		code = RPCRDMA2_ERR_BAD_HEADER;
	} else {
		code = xprt_optional(x, h);
	}
	if (code)
		ctrl_send_error(x, rpcrdma_wire_get32(rx->buf, 0), code);
}

static void recv_dispatch(struct rpcrdma_xprt *x, struct xprt_rx *rx)
{
	switch (rx_classify(x, rx)) {
	case RX_REPLY:
		srv_consumed(x);
		if (x->calls == NULL) {
			/* a server without backward calls: a reply to nothing */
			x->st.bad_direction++;
			rx_put(x, rx);
			return;
		}
		client_recv(x, rx);
		return;
	case RX_CALL:
		if (x->svcs == NULL) {
			/* a client without backward service: a call it cannot take */
			x->st.bad_direction++;
			rx_put(x, rx);
			return;
		}
		server_recv(x, rx);
		return;
	case RX_CTRL:
		srv_consumed(x);
		ctrl_recv(x, rx);
		rx_put(x, rx);
		return;
	}
}

/* ------------------------------------------------------------ completions */

/* Retire one send-ring entry (sequence number @seq): tell its owner. */
static void sq_complete(struct rpcrdma_xprt *x, uint8_t type, void *owner, uint32_t seq, bool ok)
{
	struct rpcrdma_xprt_svc_call *s = owner;
	struct rpcrdma_xprt_call *c = owner;

	switch (type) {
	case WR_CALL_SEND:
		/* a call that completed on its reply may be sending again: not this Send */
		if (c->send_seq != seq)
			break;
		if (c->state == CALL_RETIRING) {
			/* released after a timeout: the slot is free now */
			c->send_done = true;
			call_free_slot(c);
			break;
		}
		if (c->state == CALL_DONE && c->status == -ETIMEDOUT) {
			c->send_done = true; /* timed out, not yet released */
			break;
		}
		if (c->state != CALL_SENT)
			break;
		c->send_done = true;
		if (!ok)
			c->lost = true;
		call_process(c);
		break;
	case WR_SVC_READ:
		x->reads_out--;
		s->ops_done++;
		if (!ok)
			s->lost = true;
		svc_process(s);
		break;
	case WR_SVC_WRITE:
		s->writes_done++;
		if (!ok)
			s->lost = true;
		svc_process(s);
		break;
	case WR_SVC_SEND:
		s->send_done = true;
		if (!ok)
			s->lost = true;
		svc_process(s);
		break;
	case WR_SVC_SEND_BUF:
		/* a fast reply's buffer (a failed Send has taken the connection down) */
		*(void **)owner = x->rbuf_free;
		x->rbuf_free = owner;
		break;
	case WR_CTRL_SEND: {
		struct xprt_ctrl *k = owner;

		k->next = x->ctrl_free;
		x->ctrl_free = k;
		break;
	}
	default: /* WR_MARKER */
		break;
	}
}

/*
 * sq_retire() while RDMA Reads are outstanding. iWARP lets a work request
 * after a Read complete before the Read's response is in (RFC 5040): the
 * entries before @e are done but for the Reads, which complete on their own
 * (all are signaled); the oldest are retired, in order, as far as they are
 * done.
 */
static void sq_retire_ooo(struct rpcrdma_xprt *x, struct xprt_wr *e, uint32_t k, bool ok)
{
	uint32_t i;

	e->done = 1;
	e->ok = ok;
	for (i = 0; i < k; i++) {
		struct xprt_wr *r = &x->sq_ring[(x->sq_tail + i) & x->sq_mask];

		if (r->type != WR_SVC_READ && !r->done) {
			r->done = 1;
			r->ok = true;
		}
	}
	while (x->sq_out > 0) {
		struct xprt_wr *r = &x->sq_ring[x->sq_tail & x->sq_mask];
		uint32_t seq;

		if (!r->done)
			break;
		r->done = 0;
		seq = x->sq_tail++;
		x->sq_out--;
		sq_complete(x, r->type, r->owner, seq, r->ok);
	}
}

/*
 * A send-queue completion for ring entry @e: retire every entry from the
 * oldest up to it. The earlier ones had no completion of their own, so
 * they succeeded; @e has the completion's status.
 */
static void sq_retire(struct rpcrdma_xprt *x, struct xprt_wr *e, bool ok)
{
	uint32_t k = ((uint32_t)(e - x->sq_ring) - x->sq_tail) & x->sq_mask;

	if (k >= x->sq_out) {
		x->st.wc_errors++; /* not outstanding: a PMD bug */
		return;
	}
	if (x->reads_out != 0) {
		sq_retire_ooo(x, e, k, ok);
		return;
	}
	do {
		const struct xprt_wr *r = &x->sq_ring[x->sq_tail & x->sq_mask];
		uint8_t type = r->type;
		void *owner = r->owner;
		uint32_t seq = x->sq_tail++;

		/* the owner may stage new WRs into the entries just freed */
		x->sq_out--;
		sq_complete(x, type, owner, seq, k == 0 ? ok : true);
	} while (k-- > 0);
}

static void handle_wc(struct rpcrdma_xprt *x, const struct rpcrdma_pmd_wc *wc)
{
	struct xprt_wr *t = (struct xprt_wr *)(uintptr_t)wc->wr_id;
	bool ok = wc->status == RPCRDMA_PMD_WC_SUCCESS;

	if (!ok) {
		if (wc->status == RPCRDMA_PMD_WC_WR_FLUSH_ERR)
			x->st.flushed++;
		else
			x->st.wc_errors++;
		conn_lost(x);
	}
	if (t->type == WR_RECV) {
		struct xprt_rx *rx = t->owner;

		x->rx_posted--;
		rx->posted = false;
		if (x->p.role == RPCRDMA_XPRT_SERVER && !ok)
			x->cresp.posted -= x->cresp.posted ? 1 : 0;
		/* ok: accounted in server_recv */
		if (!ok) {
			rx_put(x, rx);
			return;
		}
		rx->len = wc->byte_len;
		rx->inv = (wc->flags & RPCRDMA_PMD_WC_WITH_INV) != 0;
		rx->inv_rkey = wc->invalidated_rkey;
		recv_dispatch(x, rx);
		return;
	}
	sq_retire(x, t, ok);
}

/*
 * The connection is lost (or closed): the QP goes to error, every work
 * request outstanding flushes, and each call or svc call finishes when its
 * own work requests have.
 */
static void conn_lost(struct rpcrdma_xprt *x)
{
	uint32_t i;

	if (x->state == RPCRDMA_XPRT_DRAINING || x->state == RPCRDMA_XPRT_CLOSED ||
	    x->state == RPCRDMA_XPRT_ERROR || x->state == RPCRDMA_XPRT_IDLE)
		return;
	x->state = RPCRDMA_XPRT_DRAINING;
	if (x->p.role == RPCRDMA_XPRT_CLIENT) {
		/* a probe still out counts as answered ERR_VERS (v2 draft 5.2) */
		rpcrdma_vers_req_disconnect(&x->vreq);
		x->vers_settled = false;
	}
	xchar_stop(x);
	if (x->qp != NULL) {
		rpcrdma_pmd_disconnect(x->qp); /* -ENOTCONN when the peer left first */
		/*
		 * Unsignaled WRs that already succeeded have no completion to
		 * come: the marker's completion retires them. Nothing is staged
		 * after it (every owner sees DRAINING).
		 */
		if (x->sq_out != 0) {
			stage_marker(x);
			flush_sends(x);
		}
	}
	for (i = 0; i < x->ncalls; i++) {
		struct rpcrdma_xprt_call *c = &x->calls[i];

		if (c->state == CALL_SENT) {
			c->lost = true;
			call_process(c);
		}
	}
	for (i = 0; i < x->nsvcs; i++) {
		struct rpcrdma_xprt_svc_call *s = &x->svcs[i];

		if (s->state != SVC_FREE)
			s->lost = true;
	}
	/* calls that waited for a slot: no reply will go */
	while (x->backlog != NULL) {
		struct xprt_rx *rx = x->backlog;

		x->backlog = rx->next;
		rpcrdma_credit_resp_drop(&x->cresp);
		x->st.dropped++;
		rx_put(x, rx);
	}
	/* calls waiting for a credit fail (or stay parked) at the next run */
	call_run_waiters(x);
	svc_run_waiters(x);
}

/* ------------------------------------------------------------ state machine */

int rpcrdma_xprt_process(struct rpcrdma_xprt *x)
{
	enum rpcrdma_xprt_state prev;
	int n = 0;

	do {
		prev = x->state;
		switch (x->state) {
		case RPCRDMA_XPRT_IDLE:
		case RPCRDMA_XPRT_CONNECTING:
		case RPCRDMA_XPRT_CLOSED:
		case RPCRDMA_XPRT_ERROR:
			/* events move these on */
			break;
		case RPCRDMA_XPRT_NEGOTIATING:
			/* client: the accept's private data is applied (rpcrdma_xprt_event) */
			post_recvs(x);
			x->state = RPCRDMA_XPRT_ESTABLISHED;
			rc_restart(x);
			break;
		case RPCRDMA_XPRT_ESTABLISHED:
			break;
		case RPCRDMA_XPRT_DRAINING:
			if (x->sq_out || x->rx_posted || x->svc_active)
				break;
			/* staged WRs were pushed into the QP and counted in sq_out */
			rpcrdma_pmd_qp_destroy(x->qp);
			x->qp = NULL;
			x->nstage = 0;
			x->reads_out = 0;
			if (x->svcs != NULL)
				rpcrdma_credit_resp_init(&x->cresp, x->cresp.target, x->cresp.max);
			x->state = RPCRDMA_XPRT_CLOSED;
			break;
		}
		if (x->state != prev)
			n++;
	} while (x->state != prev);
	if (n && x->calls != NULL)
		call_run_waiters(x);
	return n;
}

/*
 * A client's reconnect (params.reconnect_max), from its poll while it is
 * CLOSED or ERROR: the first turn schedules the attempt rc_delay ahead,
 * the attempt doubles the delay for the next one. When the attempts are
 * spent, every call waiting for a connection fails -ECONNABORTED.
 */
static void reconnect_tick(struct rpcrdma_xprt *x)
{
	uint64_t now = rte_rdtsc(), max = rc_cycles(x->p.reconnect_delay_max_us);
	uint32_t i;

	if (x->rc_next == 0) {
		x->rc_next = now + x->rc_delay;
		return;
	}
	if (now < x->rc_next)
		return;
	if (x->rc_tries < x->p.reconnect_max && x->addr[0] != '\0') {
		x->rc_tries++;
		x->st.reconnect_attempts++;
		x->rc_delay = x->rc_delay * 2 < max ? x->rc_delay * 2 : max;
		if (rpcrdma_xprt_connect(x, x->addr) != 0)
			x->rc_next = 0; /* ERROR: the next turn schedules the next attempt */
		x->work++;
		return;
	}
	x->rc_on = false;
	x->st.reconnect_give_ups++;
	for (i = 0; i < x->ncalls; i++) {
		struct rpcrdma_xprt_call *c = &x->calls[i];

		if (!call_waits_reconnect(c))
			continue;
		call_unwait(c);
		call_fail(c, -ECONNABORTED);
		c->state = CALL_COMPLETE;
		call_process(c);
	}
	x->work++;
}

int rpcrdma_xprt_poll(struct rpcrdma_xprt *x)
{
	struct rpcrdma_pmd_wc wc[XPRT_BURST];
	uint16_t n = 0, i;

	x->work = 0;
	x->st.polls++;
	if (x->state != RPCRDMA_XPRT_ESTABLISHED) {
		x->work += rpcrdma_xprt_process(x);
		if (unlikely(x->rc_on) &&
		    (x->state == RPCRDMA_XPRT_CLOSED || x->state == RPCRDMA_XPRT_ERROR))
			reconnect_tick(x);
	}
	x->in_poll = true;
	if (x->recv_due) {
		/* after the doorbell of whatever was submitted since: off its round trip */
		x->recv_due = false;
		x->work += (int)post_recvs(x);
	}
	if (x->qp != NULL) {
		n = rpcrdma_pmd_poll_cq_burst(x->cq, wc, XPRT_BURST);
		/* the first line of each message received: decoded next */
		for (i = 0; i < n; i++) {
			const struct xprt_wr *t = (const struct xprt_wr *)(uintptr_t)wc[i].wr_id;

			if (t->type == WR_RECV)
				rte_prefetch0(((const struct xprt_rx *)t->owner)->buf);
		}
		for (i = 0; i < n; i++)
			handle_wc(x, &wc[i]);
		x->work += n;
	}
	/* requester slots (a server's: backward calls), responder slots (a client's) */
	if (x->tmo_next != UINT64_MAX)
		call_timeouts(x);
	if (!TAILQ_EMPTY(&x->call_wait))
		call_run_waiters(x);
	if (x->backlog != NULL)
		server_run_backlog(x);
	if (!TAILQ_EMPTY(&x->svc_wait))
		svc_run_waiters(x);
	if (unlikely(x->xs.rbsiz_target != 0) && x->xchar_on)
		xchar_raise_check(x);
	/* the replies and calls go first: releasing and reposting are off the round trip */
	flush_sends(x);
	x->in_poll = false;
	while (x->svc_done != NULL) {
		struct rpcrdma_xprt_svc_call *s = x->svc_done;

		x->svc_done = s->next_free;
		s->release_pending = false;
		svc_release(s);
	}
	/*
	 * What a post depends on changes with a completion (a receive consumed,
	 * a call answered), a grant change or a state change; otherwise only
	 * a post that fell short (no buffer, a full queue) is tried again.
	 */
	if (x->p.role == RPCRDMA_XPRT_CLIENT) {
		/*
		 * The requester reposts in batches of XPRT_RECV_SPARE, at the
		 * start of the next poll: after the doorbell of the calls its
		 * callbacks and its caller submit meanwhile, so off the round
		 * trip of a lone call. A call about to be sent tops up first
		 * when its reply would find no receive (call_process). With
		 * backward calls, at once: theirs are reserved.
		 */
		if ((n && x->svcs != NULL) || x->recv_short || x->state != RPCRDMA_XPRT_ESTABLISHED)
			x->work += (int)post_recvs(x);
		else if (n && x->rx_posted + XPRT_RECV_SPARE <= x->rq_depth)
			x->recv_due = true;
	} else if (n || x->recv_short || x->state != RPCRDMA_XPRT_ESTABLISHED) {
		x->work += (int)post_recvs(x);
	}
	if (x->state == RPCRDMA_XPRT_DRAINING)
		x->work += rpcrdma_xprt_process(x);
	if (x->work == 0)
		x->st.idle_polls++;
	return x->work;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Poll-mode driver (PMD) layer: one interface for every RDMA transport.
 *
 * A PMD provides reliable-connected queue pairs with verbs semantics. The
 * shm PMD (pmd/shm/) implements them over shared memory between lcores or
 * processes; a verbs PMD can implement them over rdma-core. The engine is
 * written against this header only.
 *
 * Control path (may block briefly, may allocate, returns 0 or a negative
 * errno): open a device by driver name and device arguments, allocate a
 * protection domain, register memory, create completion queues and queue
 * pairs, listen / connect / accept / reject / disconnect with up to
 * RPCRDMA_PMD_PRIVATE_DATA_MAX bytes of private data, and poll connection
 * events. There are no interrupts: the owner of a device polls its events.
 *
 * Fast path (static inline wrappers over the driver's function pointers, as
 * rte_eth_rx_burst is): post a burst of receives, queue a burst of send-queue
 * work requests, flush them with one doorbell, poll a completion queue in
 * bursts. The fast path never blocks, locks, allocates or makes a system
 * call. Its argument checks compile in only with RPCRDMA_DEBUG (meson option
 * debug_checks).
 *
 * Threading: a device, its completion queues and queue pairs are used by one
 * thread at a time (one lcore owns a connection). The two ends of a
 * connection may be on different lcores or in different processes.
 *
 * Semantics follow an InfiniBand RC queue pair: completions are in order per
 * queue; a SEND consumes the next posted receive of the peer; errors move the
 * queue pair to the error state and every outstanding work request then
 * completes with RPCRDMA_PMD_WC_WR_FLUSH_ERR; a work request that fails
 * always produces a completion, signaled or not.
 */
#ifndef RPCRDMA_PMD_H
#define RPCRDMA_PMD_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of private data carried by connect, accept and reject (as RDMA CM over IB). */
#define RPCRDMA_PMD_PRIVATE_DATA_MAX 56

/** Memory access flags (values of enum ibv_access_flags). */
#define RPCRDMA_PMD_ACCESS_LOCAL_WRITE	0x1u
#define RPCRDMA_PMD_ACCESS_REMOTE_WRITE 0x2u
#define RPCRDMA_PMD_ACCESS_REMOTE_READ	0x4u

/** Send-queue work request opcodes. */
enum rpcrdma_pmd_wr_opcode {
	RPCRDMA_PMD_WR_SEND = 0,	  /**< consumes one receive at the peer */
	RPCRDMA_PMD_WR_SEND_WITH_INV = 1, /**< SEND, and the peer invalidates invalidate_rkey */
	RPCRDMA_PMD_WR_RDMA_WRITE = 2,	  /**< local SGL -> [remote_addr, rkey] */
	RPCRDMA_PMD_WR_RDMA_READ = 3,	  /**< [remote_addr, rkey] -> local SGL */
};

/** Send work request flags. */
#define RPCRDMA_PMD_SEND_SIGNALED 0x1u /**< produce a completion on success */

/** Completion opcodes (values of enum ibv_wc_opcode). */
enum rpcrdma_pmd_wc_opcode {
	RPCRDMA_PMD_WC_SEND = 0, /**< SEND and SEND_WITH_INV */
	RPCRDMA_PMD_WC_RDMA_WRITE = 1,
	RPCRDMA_PMD_WC_RDMA_READ = 2,
	RPCRDMA_PMD_WC_RECV = 128,
};

/**
 * Completion status (values of enum ibv_wc_status). Where each comes from:
 *
 * | status            | requester (send queue)          | responder (receive queue)      |
 * |-------------------|---------------------------------|--------------------------------|
 * | LOC_LEN_ERR       | SGL longer than the QP allows   | receive buffer too small       |
 * | LOC_PROT_ERR      | bad lkey / bounds / access      | bad lkey in the receive        |
 * | WR_FLUSH_ERR      | QP in error, WR not executed    | QP in error, receive unused    |
 * | REM_INV_REQ_ERR   | peer's receive too small, or    | SEND_WITH_INV named an rkey    |
 * |                   | SEND_WITH_INV of an unknown rkey| that is not valid              |
 * | REM_ACCESS_ERR    | READ/WRITE: rkey, bounds, access|                                |
 * | REM_OP_ERR        | peer's receive had a bad lkey   |                                |
 * | RETRY_EXC_ERR     | peer QP gone or in error        |                                |
 * | RNR_RETRY_EXC_ERR | no receive posted, retries out  |                                |
 *
 * Every error moves the QP that reports it to the error state; an error that
 * the responder detects moves both QPs to error (IB class C errors).
 *
 * Soft-RoCE (rxe) reports a bad lkey, on either side, and a receive too
 * small as a malformed work request: LOC_QP_OP_ERR where it is found, and
 * REM_OP_ERR at the requester of the SEND that met it; siw a receive's bad
 * lkey as GENERAL_ERR.
 *
 * iWARP (RPCRDMA_PMD_TRANSPORT_IWARP, RFC 5040) differs at the requester: a
 * SEND or RDMA Write completes once sent, not once placed, so an error that
 * the responder finds does not fail it; the responder ends the connection
 * (TERMINATE) and the requester sees DISCONNECTED, its QP in error. A local
 * error ends the connection too, moving the peer's QP to error.
 */
enum rpcrdma_pmd_wc_status {
	RPCRDMA_PMD_WC_SUCCESS = 0,
	RPCRDMA_PMD_WC_LOC_LEN_ERR = 1,
	RPCRDMA_PMD_WC_LOC_QP_OP_ERR = 2,
	RPCRDMA_PMD_WC_LOC_PROT_ERR = 4,
	RPCRDMA_PMD_WC_WR_FLUSH_ERR = 5,
	RPCRDMA_PMD_WC_REM_INV_REQ_ERR = 9,
	RPCRDMA_PMD_WC_REM_ACCESS_ERR = 10,
	RPCRDMA_PMD_WC_REM_OP_ERR = 11,
	RPCRDMA_PMD_WC_RETRY_EXC_ERR = 12,
	RPCRDMA_PMD_WC_RNR_RETRY_EXC_ERR = 13,
	RPCRDMA_PMD_WC_GENERAL_ERR = 21,
};

/** Completion flags (values of enum ibv_wc_flags). */
#define RPCRDMA_PMD_WC_WITH_INV 0x8u /**< invalidated_rkey is valid (receive of SEND_WITH_INV) */

/** One scatter/gather element (layout of struct ibv_sge). */
struct rpcrdma_pmd_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};
static_assert(sizeof(struct rpcrdma_pmd_sge) == 16, "sge layout");

/** A send-queue work request. Arrays of these are posted in bursts. */
struct rpcrdma_pmd_send_wr {
	uint64_t wr_id;			       /**< returned in the completion */
	const struct rpcrdma_pmd_sge *sg_list; /**< local buffers */
	uint16_t num_sge;		       /**< <= max_send_sge of the QP */
	uint8_t opcode;			       /**< enum rpcrdma_pmd_wr_opcode */
	uint8_t flags;			       /**< RPCRDMA_PMD_SEND_* */
	uint32_t invalidate_rkey;	       /**< SEND_WITH_INV: rkey the peer invalidates */
	uint64_t remote_addr;		       /**< RDMA_WRITE / RDMA_READ */
	uint32_t rkey;			       /**< RDMA_WRITE / RDMA_READ */
	uint32_t reserved;
};
static_assert(sizeof(struct rpcrdma_pmd_send_wr) == 40, "send_wr layout");

/** A receive work request. */
struct rpcrdma_pmd_recv_wr {
	uint64_t wr_id;
	const struct rpcrdma_pmd_sge *sg_list;
	uint16_t num_sge; /**< <= max_recv_sge of the QP */
};

struct rpcrdma_pmd_qp;

/** A work completion: 32 bytes, two per 64-byte cache line. */
struct rpcrdma_pmd_wc {
	uint64_t wr_id;
	struct rpcrdma_pmd_qp *qp; /**< the QP the work request was posted on */
	uint8_t status;		   /**< enum rpcrdma_pmd_wc_status */
	uint8_t opcode;		   /**< enum rpcrdma_pmd_wc_opcode */
	uint16_t flags;		   /**< RPCRDMA_PMD_WC_* */
	uint32_t byte_len;	   /**< RECV and RDMA_READ: bytes placed */
	uint32_t invalidated_rkey; /**< with RPCRDMA_PMD_WC_WITH_INV */
	uint32_t qp_num;
};
static_assert(sizeof(struct rpcrdma_pmd_wc) == 32, "wc layout");

/** Queue pair states. */
enum rpcrdma_pmd_qp_state {
	RPCRDMA_PMD_QPS_INIT = 0,	/**< created; receives may be posted */
	RPCRDMA_PMD_QPS_CONNECTING = 1, /**< connect() or accept() in progress */
	RPCRDMA_PMD_QPS_RTS = 2,	/**< connected: sends execute */
	RPCRDMA_PMD_QPS_ERROR = 3,	/**< every WR completes with WR_FLUSH_ERR */
};

/** Per-QP counters, written by the driver on the fast path. */
struct rpcrdma_pmd_qp_stats {
	uint64_t send_wrs;  /**< send-queue work requests queued */
	uint64_t recv_wrs;  /**< receives posted */
	uint64_t doorbells; /**< flushes that made at least one WR visible */
	/**
	 * SEND retries because the peer had no receive posted, counted where
	 * the PMD retries in software (shm). On verbs the NIC retries on its
	 * own and this stays 0: only RNR_RETRY_EXC_ERR shows that it ran out.
	 */
	uint64_t rnr_retries;
};

/** A work request burst function of a driver. */
typedef uint16_t (*rpcrdma_pmd_post_recv_burst_t)(struct rpcrdma_pmd_qp *qp,
						  const struct rpcrdma_pmd_recv_wr *wrs,
						  uint16_t n);
typedef uint16_t (*rpcrdma_pmd_queue_send_burst_t)(struct rpcrdma_pmd_qp *qp,
						   const struct rpcrdma_pmd_send_wr *wrs,
						   uint16_t n);
typedef unsigned int (*rpcrdma_pmd_flush_t)(struct rpcrdma_pmd_qp *qp);
typedef void (*rpcrdma_pmd_qp_prefetch_t)(const struct rpcrdma_pmd_qp *qp);

struct rpcrdma_pmd_dev;
struct rpcrdma_pmd_pd;
struct rpcrdma_pmd_cq;
struct rpcrdma_pmd_listener;
struct rpcrdma_pmd_conn_req;
struct rpcrdma_pmd_srq;

typedef uint16_t (*rpcrdma_pmd_poll_cq_burst_t)(struct rpcrdma_pmd_cq *cq,
						struct rpcrdma_pmd_wc *wc, uint16_t n);

/**
 * A queue pair. Transparent because the fast-path wrappers read it; every
 * field is written by the driver only. The first cache line holds what a
 * Send reads and writes (the burst functions, the counters); posting
 * receives to a QP's own receive queue reads the second (a QP on an SRQ
 * posts none). A driver embeds it as the first member of its own QP.
 */
struct rpcrdma_pmd_qp {
	rpcrdma_pmd_queue_send_burst_t queue_send_burst;
	rpcrdma_pmd_flush_t flush;
	void *context;	 /**< the user's, from rpcrdma_pmd_qp_attr.context */
	uint32_t qp_num; /**< unique per device */
	uint32_t state;	 /**< enum rpcrdma_pmd_qp_state */
	/* the counters a send moves: on the same line, one miss for a cold QP */
	struct rpcrdma_pmd_qp_stats stats;
	/* second cache line: receives (an SRQ's QP posts none) and set-up */
	rpcrdma_pmd_post_recv_burst_t post_recv_burst __attribute__((aligned(64)));
	struct rpcrdma_pmd_dev *dev;
	struct rpcrdma_pmd_pd *pd;
	struct rpcrdma_pmd_cq *send_cq;
	struct rpcrdma_pmd_cq *recv_cq;
	uint32_t max_send_wr; /**< as created: what counts against send_cq->nb_wrs */
	uint32_t max_recv_wr; /**< ... and against recv_cq->nb_wrs (0 with an SRQ) */
	/** The SRQ its receives come from (rpcrdma_pmd_qp_attr.srq), or NULL. */
	struct rpcrdma_pmd_srq *srq;
	/** rpcrdma_pmd_qp_prefetch_doorbell()'s, or NULL: the driver has none. */
	rpcrdma_pmd_qp_prefetch_t prefetch_doorbell;
} __attribute__((aligned(64)));
static_assert(offsetof(struct rpcrdma_pmd_qp, stats) + sizeof(struct rpcrdma_pmd_qp_stats) <= 64,
	      "qp fast path fits one line");
static_assert(sizeof(struct rpcrdma_pmd_qp) == 128, "qp layout");

/** Per-CQ counters. */
struct rpcrdma_pmd_cq_stats {
	uint64_t polls;	      /**< poll_cq_burst calls */
	uint64_t empty_polls; /**< ... that returned nothing (idle time) */
	uint64_t wcs;	      /**< completions returned */
};

/** A completion queue; transparent for the same reason as the QP. */
struct rpcrdma_pmd_cq {
	rpcrdma_pmd_poll_cq_burst_t poll_burst;
	struct rpcrdma_pmd_dev *dev;
	void *context;	 /**< the user's */
	uint32_t cqe;	 /**< capacity */
	uint32_t nb_qps; /**< QPs using this CQ (kept by the common layer) */
	struct rpcrdma_pmd_cq_stats stats;
	/**
	 * Work requests the QPs on this CQ may have outstanding against it
	 * (max_send_wr of those that send here plus max_recv_wr of those that
	 * receive here), kept by the common layer: never above cqe.
	 */
	uint32_t nb_wrs;
} __attribute__((aligned(64)));
static_assert(sizeof(struct rpcrdma_pmd_cq) == 64, "cq layout");

typedef uint16_t (*rpcrdma_pmd_srq_post_recv_burst_t)(struct rpcrdma_pmd_srq *srq,
						      const struct rpcrdma_pmd_recv_wr *wrs,
						      uint16_t n);

/**
 * A shared receive queue (as struct ibv_srq): receives posted once, consumed
 * by the SENDs arriving on any QP attached to it. Transparent for the
 * fast-path wrapper; every field is written by the driver or the common
 * layer only. One cache line.
 */
struct rpcrdma_pmd_srq {
	rpcrdma_pmd_srq_post_recv_burst_t post_recv_burst;
	void *context; /**< the user's, from rpcrdma_pmd_srq_attr.context */
	struct rpcrdma_pmd_dev *dev;
	struct rpcrdma_pmd_pd *pd;
	uint32_t max_wr;  /**< receives it holds at most */
	uint16_t max_sge; /**< per receive */
	uint16_t reserved;
	uint32_t nb_qps;   /**< QPs attached (kept by the common layer) */
	uint32_t srq_num;  /**< unique per device */
	uint64_t recv_wrs; /**< receives posted (counter) */
	/** The common layer's: the CQs its receives complete on, with their QP counts. */
	void *cq_refs;
} __attribute__((aligned(64)));
static_assert(sizeof(struct rpcrdma_pmd_srq) == 64, "srq layout");

/** SRQ creation attributes; initialise with rpcrdma_pmd_srq_attr_init(). */
struct rpcrdma_pmd_srq_attr {
	uint32_t max_wr;    /**< receives posted at once, default 1024 */
	uint16_t max_sge;   /**< per receive, default 2 */
	uint32_t srq_limit; /**< armed at creation when not 0 (rpcrdma_pmd_srq_arm()) */
	void *context;
};

/** A registered memory region (as struct ibv_mr, read-only for the user). */
struct rpcrdma_pmd_mr {
	struct rpcrdma_pmd_pd *pd;
	void *addr;
	size_t length;
	uint32_t lkey;
	uint32_t rkey;
	uint32_t access; /**< RPCRDMA_PMD_ACCESS_* */
	uint32_t reserved;
};

/** Queue pair creation attributes; initialise with rpcrdma_pmd_qp_attr_init(). */
struct rpcrdma_pmd_qp_attr {
	struct rpcrdma_pmd_cq *send_cq;
	struct rpcrdma_pmd_cq *recv_cq;
	void *context;
	uint32_t max_send_wr;  /**< default 128 */
	uint32_t max_recv_wr;  /**< default 128 */
	uint16_t max_send_sge; /**< default 4 */
	uint16_t max_recv_sge; /**< default 2 */
	uint8_t rnr_retry; /**< 0..7 retries when the peer has no receive; 7 = forever (verbs) */
	uint32_t rnr_timer_us; /**< wait between RNR retries, default 10 */
	uint32_t flags;	       /**< RPCRDMA_PMD_QP_F_* (default 0) */
	/**
	 * A shared receive queue of the same PD, or NULL (default). With one,
	 * the QP has no receive queue of its own: max_recv_wr and max_recv_sge
	 * are ignored, its SENDs land in the SRQ's next posted receive, and
	 * rpcrdma_pmd_post_recv_burst() on it takes nothing.
	 */
	struct rpcrdma_pmd_srq *srq;
};

/**
 * A hint: the receiver reads each message as soon as its receive completes.
 * A PMD that can bring the message's first lines closer to the polling
 * lcore starts doing so when it reaps the completion (shm: it prefetches
 * the first two cache lines, which the sending lcore wrote). Left off by
 * receivers that do not read what they receive.
 */
#define RPCRDMA_PMD_QP_F_RECV_PREFETCH 0x1u

/** Connection manager event types. */
enum rpcrdma_pmd_event_type {
	RPCRDMA_PMD_EVENT_CONNECT_REQUEST = 1, /**< req, listener, private data */
	RPCRDMA_PMD_EVENT_ESTABLISHED = 2,     /**< qp; private data of the accept (client) */
	RPCRDMA_PMD_EVENT_REJECTED = 3,	       /**< qp; private data of the reject */
	RPCRDMA_PMD_EVENT_DISCONNECTED = 4,    /**< qp, now in error and flushing */
	RPCRDMA_PMD_EVENT_CONNECT_ERROR = 5,   /**< qp; the peer went away while connecting */
	/**
	 * srq; fewer receives than its armed limit are posted on it (as
	 * IBV_EVENT_SRQ_LIMIT_REACHED). One-shot: the limit is disarmed, and
	 * rpcrdma_pmd_srq_arm() arms it again.
	 */
	RPCRDMA_PMD_EVENT_SRQ_LIMIT = 6,
};

/** A connection manager event. */
struct rpcrdma_pmd_event {
	enum rpcrdma_pmd_event_type type;
	struct rpcrdma_pmd_qp *qp;
	struct rpcrdma_pmd_conn_req *req;
	struct rpcrdma_pmd_listener *listener;
	/**
	 * Bytes of private_data. shm: exactly what the peer sent. verbs: the
	 * size of the transport's private data field (rdma_cm reports the field,
	 * not what the peer wrote: 56 for an IB/RoCE connect request, more for a
	 * reply or a reject), capped at RPCRDMA_PMD_PRIVATE_DATA_MAX, and the
	 * bytes past what the peer wrote are zero. A protocol that needs the
	 * length carries it in its own private data (as RFC 8797's does).
	 */
	uint8_t private_data_len;
	uint8_t private_data[RPCRDMA_PMD_PRIVATE_DATA_MAX];
	struct rpcrdma_pmd_srq *srq; /**< RPCRDMA_PMD_EVENT_SRQ_LIMIT */
};

/* ---------------- control path ---------------- */

/**
 * Open a device of the driver @p driver ("shm", "verbs", ...).
 *
 * @param devargs "key=value,key=value" driver arguments, or NULL.
 * @return 0 and *dev set, or -ENOENT: no such driver; -ENODEV: the driver
 *   has no device here; -EINVAL: bad devargs (the message is logged);
 *   -ENOMEM. Nothing is left open on error.
 */
int rpcrdma_pmd_dev_open(const char *driver, const char *devargs, struct rpcrdma_pmd_dev **dev);

/** Close a device. Every object created on it must be destroyed first: -EBUSY otherwise. */
int rpcrdma_pmd_dev_close(struct rpcrdma_pmd_dev *dev);

/** Name of the driver of @p dev. */
const char *rpcrdma_pmd_dev_driver(const struct rpcrdma_pmd_dev *dev);

/** What carries a device's traffic. */
enum rpcrdma_pmd_transport {
	RPCRDMA_PMD_TRANSPORT_OTHER = 0, /**< unknown to this build */
	RPCRDMA_PMD_TRANSPORT_SHM = 1,	 /**< shared memory: the requester's lcore copies */
	RPCRDMA_PMD_TRANSPORT_IB = 2,	 /**< InfiniBand */
	RPCRDMA_PMD_TRANSPORT_ROCE = 3,	 /**< RoCE: the IB transport over Ethernet */
	RPCRDMA_PMD_TRANSPORT_IWARP = 4, /**< iWARP */
};

/** A peer's SEND_WITH_INV can invalidate an MR of rpcrdma_pmd_mr_reg() here. */
#define RPCRDMA_PMD_DEV_REMOTE_INV 0x1u
/**
 * rpcrdma_pmd_mr_reg() of a sub-range of registered memory (fd -1) and its
 * dereg are cheap enough to do per call on the data path: no system call,
 * no page pinning, no heap allocation.
 */
#define RPCRDMA_PMD_DEV_CHEAP_MR_REG 0x2u
/**
 * A SEND that finds no receive posted at the peer is retried, rnr_retry
 * times rnr_timer_us apart, before it fails with RNR_RETRY_EXC_ERR (IB and
 * RoCE: receiver-not-ready NAKs). Without it (iWARP) the peer ends the
 * connection: a requester must never send beyond the receives it knows are
 * posted, which RPC-over-RDMA's credits ensure.
 */
#define RPCRDMA_PMD_DEV_RNR_RETRY 0x4u
/**
 * The local buffers of an RDMA Read must be registered with
 * RPCRDMA_PMD_ACCESS_REMOTE_WRITE as well as LOCAL_WRITE: iWARP places a
 * Read's response as a tagged write into the sink (RFC 5040). siw does not
 * enforce it; iWARP NICs do.
 */
#define RPCRDMA_PMD_DEV_READ_SINK_REMOTE_WRITE 0x8u
/**
 * A QP whose connection attempt failed (REJECTED, CONNECT_ERROR) is back in
 * INIT, its receives still posted, and may connect again. Without it
 * (iWARP, where the attempt binds the QP to its TCP stream) such a QP is in
 * error, its receives flush, and only a new QP can connect.
 */
#define RPCRDMA_PMD_DEV_QP_RECONNECT 0x10u

/**
 * What a device can do; rpcrdma_pmd_dev_info_get() fills it. The limits are
 * the device's, for one object (one QP, one CQ); a QP's attributes must
 * stay within them.
 */
struct rpcrdma_pmd_dev_info {
	const char *driver;	  /**< "shm", "verbs" (static storage) */
	char dev_name[64];	  /**< the device ("mlx5_0"); the driver name if none */
	uint32_t transport;	  /**< enum rpcrdma_pmd_transport */
	uint32_t node_type;	  /**< value of enum ibv_node_type (1 CA, 4 RNIC); 0 shm */
	uint32_t flags;		  /**< RPCRDMA_PMD_DEV_* */
	uint32_t max_inline_data; /**< largest SEND/RDMA WRITE copied at queue time; 0 none */
	uint32_t max_send_sge;	  /**< per send work request */
	uint32_t max_recv_sge;	  /**< per receive */
	uint32_t max_qp_wr;	  /**< max_send_wr and max_recv_wr, each */
	uint32_t max_cqe;	  /**< entries of one CQ */
	uint32_t max_mr;	  /**< MRs on the device at once */
	uint32_t max_qp;	  /**< QPs on the device at once */
	/**
	 * RDMA Reads one QP may have in flight as requester (its initiator
	 * depth, IB max_rd_atomic): the engine keeps at most this many
	 * outstanding per connection. On verbs the PMD asks for this much at
	 * connect and accept; a peer with fewer responder resources lowers it
	 * for that connection (rdma_cm negotiates the minimum).
	 */
	uint32_t max_rdma_read_depth;
	/**
	 * Elements of an RDMA Read's local SGL, at most (<= max_send_sge):
	 * iWARP places a Read's data as one RDMA Write into one sink, so 1 there.
	 */
	uint32_t max_read_sge;
	uint64_t max_mr_size; /**< bytes of one MR */
	/** The device's IEEE OUI and part (ibv_devinfo's vendor_id, vendor_part_id); 0 shm */
	uint32_t vendor_id;
	uint32_t vendor_part_id;
	/** Shared receive queues (rpcrdma_pmd_srq_create()): how many, and their limits; 0: none */
	uint32_t max_srq;
	uint32_t max_srq_wr;
	uint32_t max_srq_sge;
};

/**
 * Fill @p info with what @p dev can do. Drivers that do not say fill in
 * conservative defaults (those of rpcrdma_pmd_qp_attr_init(), one RDMA Read
 * in flight into one SGE, no inline data, no remote invalidation, no cheap
 * registration).
 * @return 0; -EINVAL: a NULL argument.
 */
int rpcrdma_pmd_dev_info_get(struct rpcrdma_pmd_dev *dev, struct rpcrdma_pmd_dev_info *info);

/** Number of registered drivers, and the name of the i-th (NULL past the end). */
unsigned int rpcrdma_pmd_driver_count(void);
const char *rpcrdma_pmd_driver_name(unsigned int i);

/** Allocate / free a protection domain. -EBUSY from free while MRs or QPs use it. */
int rpcrdma_pmd_pd_alloc(struct rpcrdma_pmd_dev *dev, struct rpcrdma_pmd_pd **pd);
int rpcrdma_pmd_pd_free(struct rpcrdma_pmd_pd *pd);

/**
 * Register [addr, addr + len) with @p access (RPCRDMA_PMD_ACCESS_*).
 *
 * @param fd a file descriptor backing the memory (memfd or hugetlbfs file)
 *   and @p fd_offset the offset of @p addr in it, so that a peer in another
 *   process can map it; or fd = -1 when the memory lies inside memory already
 *   registered with a descriptor, or when peers are in this process only.
 *   The driver duplicates the descriptor; the caller keeps its own.
 * @return 0 and *mr set; -EINVAL: empty range, unknown access bits, or a bad
 *   fd/offset; -ENOSPC: the device's MR or memory table is full; -ENOMEM.
 */
int rpcrdma_pmd_mr_reg(struct rpcrdma_pmd_pd *pd, void *addr, size_t len, uint32_t access, int fd,
		       uint64_t fd_offset, struct rpcrdma_pmd_mr **mr);

/** Deregister; the keys become invalid at once. */
int rpcrdma_pmd_mr_dereg(struct rpcrdma_pmd_mr *mr);

/**
 * Invalidate @p rkey locally (as a LOCAL_INV work request would): from now
 * on every access with that key fails. -ENOENT: no valid MR has that key.
 */
int rpcrdma_pmd_mr_invalidate(struct rpcrdma_pmd_pd *pd, uint32_t rkey);

/**
 * Make an MR valid again under a new key (as a fast-registration work
 * request with ib_inc_rkey does): mr->lkey and mr->rkey change, the old key
 * stays invalid.
 */
int rpcrdma_pmd_mr_rekey(struct rpcrdma_pmd_mr *mr);

/** Create a completion queue that holds at least @p cqe completions. */
int rpcrdma_pmd_cq_create(struct rpcrdma_pmd_dev *dev, uint32_t cqe, struct rpcrdma_pmd_cq **cq);

/** Destroy a completion queue; -EBUSY while a QP uses it. */
int rpcrdma_pmd_cq_destroy(struct rpcrdma_pmd_cq *cq);

/** Default QP attributes (the CQs stay NULL and must be set). */
void rpcrdma_pmd_qp_attr_init(struct rpcrdma_pmd_qp_attr *attr);

/** Default SRQ attributes. */
void rpcrdma_pmd_srq_attr_init(struct rpcrdma_pmd_srq_attr *attr);

/**
 * Create a shared receive queue on @p pd (as ibv_create_srq). QPs of the
 * same PD attach to it at creation (rpcrdma_pmd_qp_attr.srq); a receive
 * posted on it is consumed by the next SEND that arrives on any of them,
 * and its completion goes to the receive CQ of that QP, naming it (wc.qp,
 * wc.qp_num).
 *
 * A QP attached that goes to error does not flush the SRQ's receives: they
 * belong to the SRQ and stay for the other QPs (verbs). Only the receive a
 * SEND had started to fill when the error came completes in error, on that
 * QP. rpcrdma_pmd_srq_destroy() discards what is still posted without a
 * completion (as ibv_destroy_srq): the caller knows what it posted.
 *
 * @return 0 and *srq set; -EINVAL: a NULL argument, max_wr or max_sge 0 or
 *   above the device's limits, or srq_limit above max_wr; -ENOTSUP: the
 *   device has no SRQs; -ENOMEM. Nothing is created on error.
 */
int rpcrdma_pmd_srq_create(struct rpcrdma_pmd_pd *pd, const struct rpcrdma_pmd_srq_attr *attr,
			   struct rpcrdma_pmd_srq **srq);

/**
 * Destroy an SRQ; its posted receives are discarded (no completion). Once
 * it returns, no peer writes into their buffers: on shm it waits for a
 * receive a peer is still filling for a QP destroyed lately (at most a
 * second after that QP's destroy; docs/pmd.md).
 * @return 0; -EINVAL: NULL; -EBUSY: a QP is still attached (nothing done).
 */
int rpcrdma_pmd_srq_destroy(struct rpcrdma_pmd_srq *srq);

/**
 * Arm the SRQ's limit (as ibv_modify_srq with IBV_SRQ_LIMIT): when a SEND
 * takes a receive and leaves fewer than @p limit posted, one
 * RPCRDMA_PMD_EVENT_SRQ_LIMIT event comes from rpcrdma_pmd_event_poll() of
 * its device and the limit is disarmed. As verbs, arming it while fewer are
 * posted already gives no event until a receive is taken. @p limit 0
 * disarms it.
 * @return 0; -EINVAL: NULL, or @p limit above max_wr (nothing changed).
 */
int rpcrdma_pmd_srq_arm(struct rpcrdma_pmd_srq *srq, uint32_t limit);

/**
 * Create an RC queue pair in state INIT.
 *
 * A CQ must be able to hold every completion its QPs may have outstanding
 * (a QP in error flushes all of them at once): the QP's max_send_wr counts
 * against its send CQ and max_recv_wr against its receive CQ (both against
 * one CQ shared by both), on top of what the QPs already on them count
 * (rpcrdma_pmd_cq.nb_wrs). Size a CQ shared by n QPs at
 * n * (max_send_wr + max_recv_wr) at least. A QP attached to an SRQ counts
 * no max_recv_wr: the SRQ's max_wr counts once against each receive CQ of
 * the QPs attached to it (all its receives may complete on one of them).
 *
 * @return 0; -EINVAL: missing CQ, CQ of another device, a size of zero or
 *   above the driver's limit, an SRQ of another PD, or a CQ that would overrun (logged, with the
 *   numbers); -ENOMEM. Nothing is created on error.
 */
int rpcrdma_pmd_qp_create(struct rpcrdma_pmd_pd *pd, const struct rpcrdma_pmd_qp_attr *attr,
			  struct rpcrdma_pmd_qp **qp);

/** Destroy a QP (disconnecting it first if needed). Its completions not yet polled are lost. */
int rpcrdma_pmd_qp_destroy(struct rpcrdma_pmd_qp *qp);

/**
 * Listen on @p addr (driver-specific; for shm a UNIX socket path, or "@name"
 * for the abstract namespace). -EADDRINUSE: someone listens there already.
 */
int rpcrdma_pmd_listen(struct rpcrdma_pmd_dev *dev, const char *addr,
		       struct rpcrdma_pmd_listener **listener);

/** Stop listening; pending requests not yet accepted are rejected. */
int rpcrdma_pmd_listener_close(struct rpcrdma_pmd_listener *listener);

/**
 * Connect @p qp (state INIT) to a listener. Completes with an ESTABLISHED,
 * REJECTED or CONNECT_ERROR event; after REJECTED or CONNECT_ERROR the QP
 * is back in INIT and may connect again.
 *
 * Nobody listening at @p addr is reported one of two ways, and a caller
 * must handle both: shm knows at once and returns -ECONNREFUSED (QP still
 * in INIT, no event follows); verbs only learns it from the network (the
 * peer's CM rejects the request, or it times out) and returns 0, then a
 * CONNECT_ERROR event comes (QP back in INIT).
 *
 * @return 0: request sent, QP in CONNECTING; -EINVAL: QP not in INIT,
 *   private data too long, or a malformed address; -ECONNREFUSED: nobody
 *   listens at @p addr (shm).
 */
int rpcrdma_pmd_connect(struct rpcrdma_pmd_qp *qp, const char *addr, const void *pdata,
			uint8_t pdata_len);

/**
 * Accept a CONNECT_REQUEST on @p qp (state INIT). The QP can send at once;
 * ESTABLISHED follows when the client confirms. @p req is consumed.
 * @return 0; -EINVAL: QP not in INIT or pdata too long (req still pending);
 *   -ENOTCONN: the client went away (req consumed).
 */
int rpcrdma_pmd_accept(struct rpcrdma_pmd_conn_req *req, struct rpcrdma_pmd_qp *qp,
		       const void *pdata, uint8_t pdata_len);

/** Reject a CONNECT_REQUEST; the client gets REJECTED with @p pdata. @p req is consumed. */
int rpcrdma_pmd_reject(struct rpcrdma_pmd_conn_req *req, const void *pdata, uint8_t pdata_len);

/**
 * Hand a pending connection request over to another device, so that the
 * thread that polls that device accepts it there. A server with a device
 * per poller lcore listens on one of them and places each new connection on
 * a poller (rpcrdma_rt_place()), as SPDK's target places a new queue pair
 * on a poll group: each device keeps one thread, and no lock is taken.
 *
 * Called on the thread of the request's device, after CONNECT_REQUEST and
 * before accept or reject. From then on that device neither reports nor
 * touches the request (its listener's close no longer rejects it); the
 * request is in no device until rpcrdma_pmd_conn_req_adopt() on the thread
 * of @p to (hand the pointer over with rpcrdma_rt_poller_send()). verbs
 * moves the request's rdma_cm id to @p to's event channel; shm moves its
 * socket to @p to's epoll and maps the client's memory there at accept.
 *
 * @return 0; -EINVAL: NULL, a request handed over already, or @p to is the
 *   request's own device; -EXDEV: @p to is of another driver, or (verbs)
 *   on another RDMA device; another negative errno: nothing done, the
 *   request is still its device's.
 */
int rpcrdma_pmd_conn_req_handoff(struct rpcrdma_pmd_conn_req *req, struct rpcrdma_pmd_dev *to);

/**
 * Take a request handed over to @p to (rpcrdma_pmd_conn_req_handoff()), on
 * the thread of @p to. It is then as if it had come to @p to: accept it with
 * a QP of @p to (the event the listener's device returned still describes
 * it: private data and all), or reject it. A client that went away in the
 * meantime makes accept say -ENOTCONN, as on one device. A device closed
 * with an adopted request not answered rejects it, as for its own.
 *
 * @return 0; -EINVAL: NULL, or @p req was not handed over to @p to.
 */
int rpcrdma_pmd_conn_req_adopt(struct rpcrdma_pmd_dev *to, struct rpcrdma_pmd_conn_req *req);

/**
 * Who sent a connect request, as the transport tells it (a server's logs,
 * and the duplicate request cache's client key: rpcrdma_xprt_peer()).
 */
struct rpcrdma_pmd_peer {
	/**
	 * verbs: the client's IP address and port (AF_INET or AF_INET6, as
	 * rdma_get_peer_addr() gives them); shm: AF_UNIX, no address (the
	 * client's socket is unnamed); AF_UNSPEC: not known.
	 */
	struct sockaddr_storage addr;
	/** shm: the client's process and user (SO_PEERCRED); -1 on verbs */
	int32_t pid;
	int32_t uid;
};

/** The peer of a connect request; NULL for NULL. Valid until it is accepted or rejected. */
const struct rpcrdma_pmd_peer *rpcrdma_pmd_conn_req_peer(const struct rpcrdma_pmd_conn_req *req);

/**
 * A key for the host or process behind @p peer: equal for all its
 * connections, whatever their ports (a client that reconnects comes from a
 * new port), and different for different hosts (verbs: the IP address) or
 * processes (shm: the process and user). 0 for NULL or an unknown peer.
 */
uint64_t rpcrdma_pmd_peer_key(const struct rpcrdma_pmd_peer *peer);

/**
 * @p peer for a log line: "192.0.2.1:20049", "[2001:db8::1]:20049",
 * "pid 1234", or "unknown". @return the length snprintf() gives.
 */
int rpcrdma_pmd_peer_str(const struct rpcrdma_pmd_peer *peer, char *buf, size_t size);

/**
 * Disconnect: the QP moves to error and flushes; both sides get a
 * DISCONNECTED event. -ENOTCONN: not connected (nothing done).
 */
int rpcrdma_pmd_disconnect(struct rpcrdma_pmd_qp *qp);

/**
 * Poll connection events of @p dev (at most @p n). Also notices peers that
 * went away: their QPs move to error and a DISCONNECTED event is returned.
 * @return the number of events stored (0..n), or a negative errno.
 */
int rpcrdma_pmd_event_poll(struct rpcrdma_pmd_dev *dev, struct rpcrdma_pmd_event *ev,
			   unsigned int n);

/**
 * A file descriptor that becomes readable when rpcrdma_pmd_event_poll() may
 * have something, for callers that sleep in epoll; -ENOTSUP if none.
 *
 * Level-triggered, and only a hint: it may be readable while event_poll()
 * returns nothing (a message the PMD consumed without producing an event),
 * and events the PMD already queued do not make it readable. Never read
 * from it. After it polls readable, call rpcrdma_pmd_event_poll() with n
 * until it returns fewer than n, then sleep on the descriptor again.
 */
int rpcrdma_pmd_event_fd(struct rpcrdma_pmd_dev *dev);

/** Name of a status, for logs ("WR_FLUSH_ERR"). */
const char *rpcrdma_pmd_wc_status_str(unsigned int status);

/* ---------------- fast path ---------------- */

#ifdef RPCRDMA_DEBUG
#define RPCRDMA_PMD_FP_CHECK(cond) \
	do {                       \
		if (!(cond))       \
			return 0;  \
	} while (0)
#else
#define RPCRDMA_PMD_FP_CHECK(cond) \
	do {                       \
	} while (0)
#endif

/**
 * Post up to @p n receives, in order. In the error state they are accepted
 * and complete with WR_FLUSH_ERR.
 * @return how many were taken (0..n); fewer when the receive queue is full or
 *   wrs[ret] has more than max_recv_sge elements; 0 on a QP attached to an
 *   SRQ (post on the SRQ).
 */
static inline uint16_t rpcrdma_pmd_post_recv_burst(struct rpcrdma_pmd_qp *qp,
						   const struct rpcrdma_pmd_recv_wr *wrs,
						   uint16_t n)
{
	RPCRDMA_PMD_FP_CHECK(qp != NULL && (wrs != NULL || n == 0));
	return qp->post_recv_burst(qp, wrs, n);
}

/**
 * Post up to @p n receives on a shared receive queue, in order.
 * @return how many were taken (0..n); fewer when the SRQ is full or
 *   wrs[ret] has more than max_sge elements.
 */
static inline uint16_t rpcrdma_pmd_srq_post_recv_burst(struct rpcrdma_pmd_srq *srq,
						       const struct rpcrdma_pmd_recv_wr *wrs,
						       uint16_t n)
{
	RPCRDMA_PMD_FP_CHECK(srq != NULL && (wrs != NULL || n == 0));
	return srq->post_recv_burst(srq, wrs, n);
}

/**
 * Stage up to @p n send-queue work requests, in order; nothing executes until
 * rpcrdma_pmd_flush(). The SGLs are read during this call and need not stay.
 * In the error state they are accepted and complete with WR_FLUSH_ERR.
 * @return how many were taken (0..n); fewer when the send queue is full, the
 *   QP is not yet connected, or wrs[ret] is malformed (num_sge above
 *   max_send_sge, unknown opcode).
 */
static inline uint16_t rpcrdma_pmd_queue_send_burst(struct rpcrdma_pmd_qp *qp,
						    const struct rpcrdma_pmd_send_wr *wrs,
						    uint16_t n)
{
	RPCRDMA_PMD_FP_CHECK(qp != NULL && (wrs != NULL || n == 0));
	return qp->queue_send_burst(qp, wrs, n);
}

/**
 * Lines of a QP, from its start, that hold what a Send reads and writes of
 * the QP itself: the common part's first line and the driver's send state
 * (each driver asserts that its own fits).
 */
#define RPCRDMA_PMD_QP_SEND_LINES 4

/**
 * Start loading the lines of @p qp that its next Send reads and writes
 * (RPCRDMA_PMD_QP_SEND_LINES), some work ahead of that Send: with many QPs
 * on one lcore, the QP of the next Send is likely out of the cache. A hint
 * only: it reads nothing of the QP and changes nothing, in any state.
 */
static inline void rpcrdma_pmd_qp_prefetch(const struct rpcrdma_pmd_qp *qp)
{
	const char *p = (const char *)qp;

	for (unsigned int i = 0; i < RPCRDMA_PMD_QP_SEND_LINES; i++)
		__builtin_prefetch(p + i * 64, 1);
}

/**
 * Start loading what the next doorbell of @p qp (rpcrdma_pmd_flush() of
 * work requests queued, or about to be) touches beyond the QP's own lines:
 * the driver's next send queue entry and, on shm, the line of the peer's
 * QP that a Send reads. It reads the QP's lines, so it pays only once
 * rpcrdma_pmd_qp_prefetch() of the QP has taken effect; an lcore with
 * several doorbells to ring calls it for all of them first, and their
 * misses overlap. A hint: changes nothing, in any state; a driver without
 * it does nothing.
 */
static inline void rpcrdma_pmd_qp_prefetch_doorbell(const struct rpcrdma_pmd_qp *qp)
{
	if (qp->prefetch_doorbell != NULL)
		qp->prefetch_doorbell(qp);
}

/**
 * Ring one doorbell for everything staged since the last flush.
 * @return the number of work requests made visible (0: no doorbell rung).
 */
static inline unsigned int rpcrdma_pmd_flush(struct rpcrdma_pmd_qp *qp)
{
	RPCRDMA_PMD_FP_CHECK(qp != NULL);
	return qp->flush(qp);
}

/**
 * Poll up to @p n completions.
 * @return how many were stored in wc[0..ret).
 */
static inline uint16_t rpcrdma_pmd_poll_cq_burst(struct rpcrdma_pmd_cq *cq,
						 struct rpcrdma_pmd_wc *wc, uint16_t n)
{
	RPCRDMA_PMD_FP_CHECK(cq != NULL && (wc != NULL || n == 0));
	return cq->poll_burst(cq, wc, n);
}

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_PMD_H */

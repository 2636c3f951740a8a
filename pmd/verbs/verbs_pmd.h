/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * verbs PMD, private objects.
 *
 * verbs_xlate.[ch]: pure translations (tested without a device).
 * verbs_ctrl.c:     devices, PDs, MRs, CQs, QPs, rdma_cm connection
 *                   management and asynchronous events.
 * verbs_srq.c:      shared receive queues, and the QP-number table that maps
 *                   an SRQ receive's completion to its QP.
 * verbs_fp.c:       the fast path: post receives, stage sends between
 *                   ibv_wr_start and ibv_wr_complete (or as an ibv_send_wr
 *                   chain), one doorbell per flush, poll CQs in bursts.
 *
 * QPs are created by the PMD (ibv_create_qp_ex or mlx5dv_create_qp), not by
 * rdma_cm, and moved to INIT at once so that receives can be posted before
 * connecting; rdma_cm only exchanges the connection messages and gives the
 * RTR/RTS attributes (rdma_init_qp_attr), as SPDK's mlx5_dv provider does.
 */
#ifndef RPCRDMA_PMD_VERBS_H
#define RPCRDMA_PMD_VERBS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_pmd_driver.h>
#include <rpcrdma/rpcrdma_verbs.h>

#include "verbs_config.h"
#include "verbs_xlate.h"

#define VERBS_DRIVER	 RPCRDMA_VERBS_DRIVER
#define verbs_log(...)	 rpcrdma_pmd_log(VERBS_DRIVER, __VA_ARGS__)
#define verbs_info(...)	 rpcrdma_pmd_info(VERBS_DRIVER, __VA_ARGS__)
#define VERBS_POLL_CHUNK 32 /* ibv_wc / ibv_recv_wr on the stack per call */

#if defined(__GNUC__)
#define verbs_likely(x)	  __builtin_expect(!!(x), 1)
#define verbs_unlikely(x) __builtin_expect(!!(x), 0)
#else
#define verbs_likely(x)	  (x)
#define verbs_unlikely(x) (x)
#endif

/* How a QP posts its send queue. */
enum verbs_send_path {
	VERBS_SEND_MLX5DV,  /* mlx5dv_create_qp; ibv_wr_* through the mlx5 provider */
	VERBS_SEND_WR_API,  /* ibv_create_qp_ex; ibv_wr_start ... ibv_wr_complete */
	VERBS_SEND_POST_WR, /* ibv_create_qp; a chain of ibv_send_wr per ibv_post_send */
};

/* What an rdma_cm_id's context points at. */
enum verbs_ep_kind {
	VERBS_EP_LISTENER,
	VERBS_EP_REQ,
	VERBS_EP_QP,
};
struct verbs_ep {
	enum verbs_ep_kind kind;
	void *obj;
};

struct verbs_qp;
struct verbs_req;
struct verbs_srq;

struct verbs_dev {
	struct rpcrdma_pmd_dev common;
	/* read by the fast path: the QP of a wr_id tag */
	struct verbs_qp **qps; /* by tag index; NULL: free */
	uint32_t qp_cap;
	/* ... the SRQ of an SRQ receive's tag, and the QP of its completion's QP number */
	struct verbs_srq **srqs; /* by tag index; NULL: free */
	uint32_t srq_cap;
	struct verbs_qp **qpn_tab; /* QPs on an SRQ by QP number: open addressing */
	uint32_t qpn_mask;	   /* slots - 1 (a power of two), or 0 with no table */
	uint32_t qpn_used;
	uint16_t *srq_gen; /* by tag index: generation of the next SRQ there */

	struct verbs_devargs args;
	struct ibv_context *ctx;
	char name[64];
	uint8_t port;
	uint8_t link_layer; /* IBV_LINK_LAYER_* */
	struct ibv_device_attr attr;
	struct rpcrdma_pmd_dev_info info; /* filled at open (verbs_dev_info_fill) */
	enum verbs_send_path send_path;	  /* what QP creation tries first */
	bool cq_ex;			  /* CQs are extended CQs */
	bool fatal;			  /* device fatal or removed: nothing works any more */
	/*
	 * The device flushes within ibv_modify_qp to error, or never (siw: it
	 * does not read a user-mapped queue after the error): once that call
	 * has returned and the CQ is drained, what it still holds stays.
	 */
	bool flush_in_modify;
	bool path_logged;
	struct rdma_event_channel *cm; /* non-blocking */
	int epfd;		       /* event_fd(): the CM channel and the async fd */
	uint16_t *qp_gen;	       /* by tag index: generation of the next QP there */
	uint32_t qp_hint;
	uint32_t next_pd_id;
	TAILQ_HEAD(, verbs_qp) qp_list;
	/* QPs whose provider refused a flush (verbs_fp.c), for the next event poll */
	TAILQ_HEAD(, verbs_qp) fatal_qps;
	TAILQ_HEAD(, verbs_req) reqs;
	struct rpcrdma_pmd_event *evq; /* FIFO of events not yet returned */
	unsigned int evq_head, evq_len, evq_cap;
};

/*
 * A shared receive queue. Its receives complete out of order (each on the
 * QP that took it), so its slots come from a stack of free ones, not a ring.
 * What it still holds when destroyed is discarded, as ibv_destroy_srq does.
 */
struct verbs_srq {
	struct rpcrdma_pmd_srq common;
	/* fast path */
	struct ibv_srq *srq;
	uint64_t *wr_ids; /* by slot: the user's */
	uint8_t *busy;	  /* by slot: posted, not completed */
	uint32_t *free;	  /* stack of free slots */
	uint32_t nb_free;
	uint32_t tag;
	struct verbs_dev *dev;
};

struct verbs_pd {
	struct rpcrdma_pmd_pd common;
	struct ibv_pd *pd;
	TAILQ_HEAD(, verbs_mr) mrs;
};

struct verbs_mr {
	struct rpcrdma_pmd_mr common;
	struct ibv_mr *mr; /* NULL while invalidated */
	int ibv_access;
	TAILQ_ENTRY(verbs_mr) next;
};

struct verbs_cq {
	struct rpcrdma_pmd_cq common;
	struct verbs_dev *dev;
	struct ibv_cq *cq;
	struct ibv_cq_ex *cqx; /* NULL: polled with ibv_poll_cq */
	uint64_t stale;	       /* completions of destroyed QPs, dropped */
	/*
	 * QPs with work requests that the PMD completes itself with
	 * WR_FLUSH_ERR (verbs_fp.c, "the PMD's flushes"): sends of this send
	 * CQ, receives of this receive CQ.
	 */
	TAILQ_HEAD(, verbs_qp) sq_flush;
	TAILQ_HEAD(, verbs_qp) rq_flush;
};

/* What the PMD remembers of a staged send-queue work request. */
struct verbs_sqe {
	uint64_t wr_id; /* the user's */
	uint8_t opcode; /* enum rpcrdma_pmd_wr_opcode */
	uint8_t flags;	/* VERBS_SQE_* */
};
/* a signaled RDMA READ on the device, not completed: it may complete after later ones */
#define VERBS_SQE_READ_WAIT 0x1u
/* known done while a READ before it is not (retired with it) */
#define VERBS_SQE_DONE 0x2u
/* the PMD's drain marker (verbs_qp_drain_mark()): no user work request, no completion */
#define VERBS_SQE_MARK 0x4u

enum verbs_conn_state {
	VERBS_CONN_IDLE,       /* no connection; QP in INIT */
	VERBS_CONN_RESOLVING,  /* client: address and route resolution */
	VERBS_CONN_CONNECTING, /* client: connect request sent, waiting for the reply */
	VERBS_CONN_ACCEPTED,   /* server: accepted (QP in RTS), waiting for the RTU */
	VERBS_CONN_UP,	       /* established */
	VERBS_CONN_DOWN,       /* disconnected or failed; QP in error */
};

struct verbs_qp {
	struct rpcrdma_pmd_qp common;
	/* fast path */
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;	 /* the ibv_wr_* paths; NULL on VERBS_SEND_POST_WR */
	struct verbs_sqe *sq;	 /* by send slot */
	uint64_t *rq;		 /* by receive slot: the user's wr_id */
	struct ibv_send_wr *pwr; /* VERBS_SEND_POST_WR: staged WRs by send slot */
	struct ibv_sge *psge;	 /* ... and their SGEs, max_send_sge per slot */
	uint32_t tag;		 /* upper half of our wr_ids */
	uint32_t sq_mask;
	uint32_t sq_head;   /* next slot to stage */
	uint32_t sq_db;	    /* staged before this was flushed */
	uint32_t sq_dev;    /* flushed before this went to the device; [sq_dev, sq_db): the PMD's */
	uint32_t sq_tail;   /* completed before this */
	uint32_t reads_out; /* VERBS_SQE_READ_WAIT slots */
	uint32_t rq_mask;
	uint32_t rq_head; /* posted */
	uint32_t rq_dev;  /* posted to the device; [rq_dev, rq_head): the PMD flushes */
	uint32_t rq_tail; /* completed */
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_inline;
	uint16_t max_send_sge;
	uint16_t max_read_sge; /* an RDMA READ's local SGL (iWARP: 1) */
	uint16_t max_recv_sge;
	bool batch;  /* ibv_wr_start called, ibv_wr_complete not yet */
	bool on_srq; /* receives from an SRQ: in dev->qpn_tab */

	/* control path */
	struct verbs_dev *dev;
	struct verbs_cq *scq;
	struct verbs_cq *rcq;
	enum verbs_send_path path;
	enum verbs_conn_state conn;
	struct rdma_cm_id *cm_id;
	struct verbs_ep ep;
	uint8_t rnr_retry;
	uint8_t rnr_timer; /* IB code */
	bool disc_reported;
	uint8_t pdata_len; /* connect(): private data for rdma_connect */
	uint8_t pdata[RPCRDMA_PMD_PRIVATE_DATA_MAX];
	/*
	 * CLOCK_MONOTONIC ns when the PMD moved the QP to error; 0 otherwise.
	 * What the device holds and has not flushed VERBS_FLUSH_GRACE_NS later
	 * the PMD flushes itself (siw may never flush after a fatal error).
	 */
	uint64_t err_ns;
	bool flush_noted;     /* flush_poll() said once that the device kept WRs */
	bool sq_flush_queued; /* on scq->sq_flush */
	bool rq_flush_queued; /* on rcq->rq_flush */
	bool fatal_queued;    /* on dev->fatal_qps */
	int fatal_err;	      /* what the provider said then */
	TAILQ_ENTRY(verbs_qp) next;
	TAILQ_ENTRY(verbs_qp) fatal_next;
	TAILQ_ENTRY(verbs_qp) sq_flush_next;
	TAILQ_ENTRY(verbs_qp) rq_flush_next;
};
static_assert(offsetof(struct verbs_qp, on_srq) < RPCRDMA_PMD_QP_SEND_LINES * 64,
	      "a Send's lines are the ones rpcrdma_pmd_qp_prefetch() loads");

enum verbs_req_state {
	VERBS_REQ_REQUESTED, /* CONNECT_REQUEST returned; waiting for accept or reject */
	VERBS_REQ_DEAD,	     /* the client went away, or the listener closed */
};

struct verbs_req {
	struct rpcrdma_pmd_conn_req common;
	enum verbs_req_state state;
	struct rdma_cm_id *id; /* NULL once dead */
	struct verbs_ep ep;
	uint8_t initiator_depth;     /* the client's, from its request */
	uint8_t responder_resources; /* ... */
	TAILQ_ENTRY(verbs_req) next;
};

#define VERBS_FLUSH_GRACE_NS 2000000000ull
/* struct ibv_device_attr vendor_id of siw (Linux drivers/infiniband/sw/siw: "bmt") */
#define VERBS_VENDOR_SIW 0x626d74u

/* verbs_srq.c */
int verbs_srq_create(struct rpcrdma_pmd_pd *pd, const struct rpcrdma_pmd_srq_attr *attr,
		     struct rpcrdma_pmd_srq **srqp);
void verbs_srq_destroy(struct rpcrdma_pmd_srq *s);
int verbs_srq_arm(struct rpcrdma_pmd_srq *s, uint32_t limit);
int verbs_qpn_add(struct verbs_dev *dev, struct verbs_qp *qp);
void verbs_qpn_del(struct verbs_dev *dev, struct verbs_qp *qp);
void verbs_srq_dev_free(struct verbs_dev *dev);

/* The QP on an SRQ of QP number @qpn, or NULL (destroyed since). */
static inline struct verbs_qp *verbs_qpn_find(const struct verbs_dev *dev, uint32_t qpn)
{
	uint32_t i, n;

	if (dev->qpn_mask == 0)
		return NULL;
	for (i = qpn * 2654435761u & dev->qpn_mask, n = 0; n <= dev->qpn_mask;
	     i = (i + 1) & dev->qpn_mask, n++) {
		struct verbs_qp *qp = dev->qpn_tab[i];

		if (qp == NULL)
			return NULL;
		if (qp->common.qp_num == qpn)
			return qp;
	}
	return NULL;
}

/* verbs_ctrl.c: the objects, and the event FIFO */
bool verbs_same_device(const struct verbs_dev *dev, const struct ibv_context *ctx);
void verbs_ev_push(struct verbs_dev *dev, enum rpcrdma_pmd_event_type type, struct verbs_qp *qp,
		   struct verbs_req *req, const void *pdata, size_t pdata_len);
unsigned int verbs_ev_pop(struct verbs_dev *dev, struct rpcrdma_pmd_event *ev, unsigned int n);
/* Take the events of @qp or @req out of the FIFO (they name an object leaving this device). */
void verbs_ev_forget(struct verbs_dev *dev, struct verbs_qp *qp, struct verbs_req *req);
void verbs_req_free(struct verbs_dev *dev, struct verbs_req *req);
int verbs_qp_modify(struct verbs_qp *qp, struct ibv_qp_attr *attr, int mask);
void verbs_qp_to_err(struct verbs_qp *qp);
int verbs_dev_open(const char *devargs, struct rpcrdma_pmd_dev **devp);
void verbs_dev_close(struct rpcrdma_pmd_dev *d);
int verbs_pd_alloc(struct rpcrdma_pmd_dev *d, struct rpcrdma_pmd_pd **pdp);
void verbs_pd_free(struct rpcrdma_pmd_pd *p);
int verbs_mr_reg(struct rpcrdma_pmd_pd *p, void *addr, size_t len, uint32_t access, int fd,
		 uint64_t fd_offset, struct rpcrdma_pmd_mr **mrp);
void verbs_mr_dereg(struct rpcrdma_pmd_mr *m);
int verbs_mr_invalidate(struct rpcrdma_pmd_pd *p, uint32_t rkey);
int verbs_mr_rekey(struct rpcrdma_pmd_mr *m);
int verbs_cq_create(struct rpcrdma_pmd_dev *d, uint32_t cqe, struct rpcrdma_pmd_cq **cqp);
void verbs_cq_destroy(struct rpcrdma_pmd_cq *c);
int verbs_qp_create(struct rpcrdma_pmd_pd *p, const struct rpcrdma_pmd_qp_attr *attr,
		    struct rpcrdma_pmd_qp **qpp);
void verbs_qp_destroy(struct rpcrdma_pmd_qp *q);

/* verbs_cm.c: connections and events */
int verbs_listen(struct rpcrdma_pmd_dev *d, const char *addr, struct rpcrdma_pmd_listener **lp);
void verbs_listener_close(struct rpcrdma_pmd_listener *lp);
int verbs_connect(struct rpcrdma_pmd_qp *q, const char *addr, const void *pdata, uint8_t pdata_len);
int verbs_accept(struct rpcrdma_pmd_conn_req *r, struct rpcrdma_pmd_qp *q, const void *pdata,
		 uint8_t pdata_len);
int verbs_reject(struct rpcrdma_pmd_conn_req *r, const void *pdata, uint8_t pdata_len);
int verbs_conn_req_handoff(struct rpcrdma_pmd_conn_req *r, struct rpcrdma_pmd_dev *to);
void verbs_conn_req_adopt(struct rpcrdma_pmd_dev *to, struct rpcrdma_pmd_conn_req *r);
int verbs_disconnect(struct rpcrdma_pmd_qp *q);
int verbs_event_poll(struct rpcrdma_pmd_dev *d, struct rpcrdma_pmd_event *ev, unsigned int n);

/* verbs_fp.c */
void verbs_qp_set_fast_path(struct verbs_qp *qp);
void verbs_srq_set_fast_path(struct verbs_srq *srq);
/* The QP was moved to error: flush what the device keeps, if it does not. */
void verbs_qp_flush_watch(struct verbs_qp *qp);
/* ... and mark the end of its send queue, so that the device tells when it is done. */
void verbs_qp_drain_mark(struct verbs_qp *qp);
void verbs_cq_set_fast_path(struct verbs_cq *cq);

static inline struct verbs_dev *to_verbs_dev(struct rpcrdma_pmd_dev *d)
{
	return container_of(d, struct verbs_dev, common);
}

static inline struct verbs_pd *to_verbs_pd(struct rpcrdma_pmd_pd *p)
{
	return container_of(p, struct verbs_pd, common);
}

static inline struct verbs_mr *to_verbs_mr(struct rpcrdma_pmd_mr *m)
{
	return container_of(m, struct verbs_mr, common);
}

static inline struct verbs_cq *to_verbs_cq(struct rpcrdma_pmd_cq *c)
{
	return container_of(c, struct verbs_cq, common);
}

static inline struct verbs_srq *to_verbs_srq(struct rpcrdma_pmd_srq *s)
{
	return container_of(s, struct verbs_srq, common);
}

static inline struct verbs_qp *to_verbs_qp(struct rpcrdma_pmd_qp *q)
{
	return container_of(q, struct verbs_qp, common);
}

#endif /* RPCRDMA_PMD_VERBS_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shm PMD, private objects. The shared layout is in rpcrdma_shm.h.
 *
 * shm_ctrl.c: devices, PDs, MRs, CQ/QP creation, connection management over
 *             UNIX sockets, device arguments.
 * shm_fp.c:   the fast path: post receives, queue/flush sends (the requester
 *             executes its own work requests: one memcpy into or out of the
 *             peer's mapped memory), poll completion queues.
 * shm_srq.c:  shared receive queues: creation, QPs attached, the peer's
 *             mapping of an SRQ area, the limit event.
 */
#ifndef RPCRDMA_PMD_SHM_H
#define RPCRDMA_PMD_SHM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_pmd_driver.h>
#include <rpcrdma/rpcrdma_shm.h>

#define SHM_DRIVER	"shm"
#define SHM_SGE_MAX	32    /* per work request */
#define SHM_WR_MAX	32768 /* per queue */
#define SHM_CQE_MAX	(1u << 20)
#define SHM_MR_DEF	4096 /* MR table entries (devarg mr_max) */
#define SHM_MR_LIMIT	(1u << 20)
#define SHM_MR_SIZE_MAX (UINT32_MAX * 4096ull) /* bytes of one MR */
#define SHM_RD_DEPTH	255		       /* dev_info max_rdma_read_depth */
#define SHM_SRQ_MAX	65536		       /* SRQs per device */
#define SHM_AREA_MAX	(1u << 30)	       /* bytes of a peer's QP or SRQ area */

/* A region of this device: memory registered with a file descriptor. */
struct shm_region {
	uint8_t *base;	   /* local address of the window */
	size_t len;	   /* window length */
	uint64_t fd_off;   /* window offset in the fd */
	int fd;		   /* our dup; -1 once no MR uses the region */
	unsigned int refs; /* MRs in the region */
};

/* A peer device mapped in this process (shared by every QP connected to it). */
struct shm_rdev {
	TAILQ_ENTRY(shm_rdev) next;
	uint64_t dev_id;
	unsigned int refs;
	bool same_process;
	struct rpcrdma_shm_dev_area *area; /* NULL until HELLO/ACCEPT */
	size_t area_size;
	struct rpcrdma_shm_mr *mrs;
	uint32_t mr_max;
	const uint32_t *qp_errors; /* the area's qp_errors; NULL: a peer of minor 0 or 1 */
	struct {
		uint8_t *base;
		size_t len;
	} regions[RPCRDMA_SHM_REGION_MAX];
};

/* Per-device fault injection (devargs). 0: off. */
struct shm_faults {
	uint64_t fail_wr;	   /* the Nth send-queue WR executed fails (RETRY_EXC_ERR) */
	uint64_t drop_after_sends; /* drop a connection after N SENDs on it */
	uint32_t cq_delay;	   /* completions become visible N polls later */
	uint64_t wr_count;	   /* WRs executed so far, for fail_wr */
};

struct shm_event {
	struct rpcrdma_pmd_event ev;
};

/* What an epoll entry points at. */
enum shm_ep_kind {
	SHM_EP_LISTENER,
	SHM_EP_REQ,
	SHM_EP_QP
};
struct shm_ep {
	enum shm_ep_kind kind;
	void *obj;
};

struct shm_qp;
struct shm_req;
struct shm_listener;
struct shm_srq;

/*
 * A peer's SRQ area, mapped once for all our QPs connected to QPs attached
 * to it (by the memfd's identity): many QPs claim its receives through one
 * mapping, so through the same TLB entries.
 */
struct shm_peer_srq {
	LIST_ENTRY(shm_peer_srq) next;
	dev_t st_dev;
	ino_t st_ino;
	struct rpcrdma_shm_srq_area *area;
	size_t size;
	unsigned int refs;
};

struct shm_dev {
	struct rpcrdma_pmd_dev common;
	uint64_t dev_id;
	LIST_HEAD(, shm_peer_srq) peer_srqs; /* mapped peer SRQ areas (shm_peer_srq_map()) */
	uint32_t drops_pending;		     /* QPs with drop_pending set */
	int area_fd;
	struct rpcrdma_shm_dev_area *area;
	size_t area_size;
	struct rpcrdma_shm_mr *mrs; /* in the area */
	uint32_t mr_max;
	/*
	 * MR objects, preallocated: index -> object (rpcrdma_pmd_mr_reg hands
	 * out &mr_objs[i]; no allocation per registration). Free indexes wait
	 * in a FIFO so that an index, and so a key, comes back as late as
	 * possible: a stale rkey matches again only after 255 * mr_max
	 * registrations.
	 */
	struct shm_mr *mr_objs;
	uint32_t *mr_free; /* FIFO of free indexes, mr_max slots */
	uint32_t mr_free_head;
	uint32_t mr_free_len;
	uint8_t *mr_gen; /* index -> last generation used */
	struct shm_region regions[RPCRDMA_SHM_REGION_MAX];
	uint32_t nb_regions;
	uint32_t next_pd_id;
	uint32_t next_qp_num;
	int epfd;
	TAILQ_HEAD(, shm_qp) qps;
	TAILQ_HEAD(, shm_req) reqs;
	TAILQ_HEAD(, shm_rdev) rdevs;
	TAILQ_HEAD(, shm_srq) srqs;
	uint32_t next_srq_num;
	struct shm_event *evq; /* FIFO of events not yet returned */
	unsigned int evq_head, evq_len, evq_cap;
	struct shm_faults faults;
};

struct shm_mr {
	struct rpcrdma_pmd_mr common;
	uint32_t index;
	uint32_t region;
	bool in_use; /* handed out by mr_reg, not yet deregistered */
};

struct shm_cqe {
	struct rpcrdma_pmd_wc wc;
	uint64_t ready_at; /* poll count when visible (cq_delay) */
	uint64_t pad;
};

struct shm_cq {
	struct rpcrdma_pmd_cq common;
	struct shm_cqe *ring;
	uint32_t mask;
	uint32_t head; /* produced */
	uint32_t tail; /* consumed */
	uint32_t delay;
	uint64_t polls;
	TAILQ_HEAD(, shm_qp) stalled; /* QPs whose send queue waits (RNR, CQ full, flush) */
	TAILQ_HEAD(, shm_qp) rqs;     /* QPs whose receive completions land here */
	/* SRQs of QPs whose receive completions land here (each reaped from here too) */
	struct shm_srq **srqs;
	uint32_t *srq_refs; /* QPs of srqs[i] on this CQ */
	uint32_t nb_srqs;
};

/* A staged send-queue WR: private to the requester. */
struct shm_swqe {
	uint64_t wr_id;
	uint64_t remote_addr;
	uint32_t rkey;
	uint32_t inv_rkey;
	uint8_t opcode;
	uint8_t flags;
	uint16_t num_sge;
	uint32_t pad;
	struct rpcrdma_pmd_sge sge[];
};

/* A posted receive, private to its owner. */
struct shm_rq_ent {
	uint64_t wr_id;
	const uint8_t *addr; /* the first byte the message lands on (prefetched on arrival) */
};

/*
 * An attached QP as its SRQ's harvest sees it, by the index its peer writes
 * in the slots it claims: what a receive completion needs, kept here so
 * that with many QPs a completion touches no line of its QP. Once the QP
 * is detached (qp NULL), the index is retired until the TSC @p until: a
 * peer that claimed a slot for it before it saw the QP go may still be
 * writing the slot's receive, and the owner waits for that slot to turn
 * DONE (then drops it) until then, rather than post the receive again
 * under the peer's copy (shm_srq_detach()); nor is the index given to a
 * new QP, whose completion the late claim would become.
 */
struct shm_srq_qp {
	struct shm_qp *qp;
	union {
		struct shm_cq *rcq; /* attached */
		uint64_t until;	    /* retired (qp NULL): TSC; 0: never used */
	};
	uint32_t qp_num;
	bool rq_prefetch;
};

/* How long a detached QP's SRQ index stays retired: a descheduled claimer's grace, in ms. */
#define SHM_SRQ_RETIRE_MS 1000

/* @p q's index is retired at TSC @p now: until is read only then (a union with rcq). */
static inline bool shm_srq_qp_retired(const struct shm_srq_qp *q, uint64_t now)
{
	return q->qp == NULL && now < q->until;
}

/*
 * A shared receive queue: its slots in an SRQ area (rpcrdma_shm.h) that the
 * peers of its QPs map; the owner posts and reaps, as for a QP's own queue.
 */
struct shm_srq {
	struct rpcrdma_pmd_srq common;
	struct shm_dev *dev;
	uint32_t pd_id;
	int area_fd;
	struct rpcrdma_shm_srq_area *area;
	size_t area_size;
	uint8_t *rq;
	uint32_t rq_mask;
	uint32_t rq_slot_size;
	uint64_t rq_post; /* posted (area->rq_head) */
	uint64_t rq_reap; /* reaped (completed, or discarded) */
	struct shm_rq_ent *rq_ent;
	uint32_t limit;	      /* armed limit; 0: disarmed */
	uint32_t faults_seen; /* area->faults when the attached QPs' fault words were last read */
	/* the QPs attached, by their SRQ index (what a peer writes in a slot word) */
	struct shm_srq_qp *qps;
	uint32_t qps_cap;
	uint32_t qps_next; /* where the search for a free index starts: reuse comes late */
	TAILQ_ENTRY(shm_srq) dev_next;
};

enum shm_conn_state {
	SHM_CONN_NONE,	     /* no socket */
	SHM_CONN_CONNECTING, /* client: HELLO sent */
	SHM_CONN_ACCEPTED,   /* server: ACCEPT sent, waiting for RTU */
	SHM_CONN_UP,	     /* established */
	SHM_CONN_DOWN,	     /* disconnected; socket closed */
};

/*
 * The fields a Send touches at the requester are on three lines: the
 * common first (its burst functions and counters), staging and executing
 * it (line 2) and reaching the peer (line 3). With many QPs on one lcore
 * each Send likely finds its QP out of the cache, and each line is a miss.
 */
struct shm_qp {
	struct rpcrdma_pmd_qp common;

	/* line 2: the send queue (private): staging and executing */
	uint8_t *sq __attribute__((aligned(64)));
	struct shm_dev *dev;
	struct shm_cq *scq;
	uint32_t sq_mask;
	uint32_t sq_stride;
	uint32_t sq_head; /* next slot to stage */
	uint32_t sq_db;	  /* staged up to here rang the doorbell */
	uint32_t sq_exec; /* next to execute */
	uint32_t pd_id;
	uint16_t max_send_sge;
	uint8_t rnr_retry;
	uint8_t stalled; /* on scq->stalled */
	uint32_t rnr_tries;
	uint64_t rnr_next; /* tsc of the next RNR retry; 0: none pending */

	/* line 3: the peer a Send reaches, its SRQ when its QP is attached to one */
	struct rpcrdma_shm_qp_area *peer __attribute__((aligned(64)));
	struct shm_rdev *rdev;
	struct rpcrdma_shm_srq_area *peer_srq;
	uint8_t *peer_srq_rq;
	uint32_t peer_srq_mask;
	uint32_t peer_srq_slot_size;
	uint32_t peer_srq_max_sge;
	uint32_t peer_srq_index; /* the peer QP's index in it: written in the slots we claim */
	uint32_t peer_pd;
	bool peer_gone;		 /* socket hung up: CLAIMED slots will never complete */
	uint32_t peer_errors_ok; /* the peer device's qp_errors when the peer QP was last well */

	/* the peer's own receive queue, when its QP has one */
	uint8_t *peer_rq;
	uint32_t peer_rq_mask;
	uint32_t peer_slot_size;
	uint32_t peer_max_sge;
	uint32_t peer_cons; /* next slot of the peer's RQ we consume */
	size_t peer_size;
	struct shm_peer_srq *peer_srq_map; /* the mapping peer_srq is in */
	uint64_t rnr_timer;
	uint64_t sends;	   /* SENDs executed, for drop_after_sends */
	bool drop_pending; /* drop_after_sends fired: close at the next event poll */

	/* our receive queue (shared with the peer) */
	struct shm_cq *rcq;
	int area_fd;
	struct rpcrdma_shm_qp_area *area;
	size_t area_size;
	uint8_t *rq;
	uint32_t rq_mask;
	uint32_t rq_slot_size;
	uint16_t max_recv_sge;
	bool rq_prefetch;	   /* RPCRDMA_PMD_QP_F_RECV_PREFETCH */
	uint32_t rq_post;	   /* posted */
	uint32_t rq_reap;	   /* completions returned */
	struct shm_rq_ent *rq_ent; /* per receive slot: what the completion needs */
	struct shm_srq *srq;	   /* receives come from it (no receive queue of our own) */
	uint32_t srq_index;	   /* ... and this is our index in it */

	/* connection */
	enum shm_conn_state conn;
	int sock;
	struct shm_ep ep;
	bool disc_reported;

	TAILQ_ENTRY(shm_qp) dev_next;
	TAILQ_ENTRY(shm_qp) stall_next;
	TAILQ_ENTRY(shm_qp) rq_next;
};
static_assert(offsetof(struct shm_qp, sq) == 128, "send line");
static_assert(offsetof(struct shm_qp, rnr_next) + 8 <= 192, "send line holds the send queue");
static_assert(offsetof(struct shm_qp, peer) == 192, "peer line");
static_assert(offsetof(struct shm_qp, peer_errors_ok) + 4 <= 256, "peer line holds the peer");
static_assert(offsetof(struct shm_qp, peer_gone) < RPCRDMA_PMD_QP_SEND_LINES * 64,
	      "a Send's lines are the ones rpcrdma_pmd_qp_prefetch() loads");

/* v rounded up to a multiple of a */
static inline size_t shm_align_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

/* shm_dev.c: the TSC's rate, shared-memory areas and the device's event FIFO */
uint64_t shm_tsc_hz(void); /* measured if the EAL has not (the PMD runs without it too) */
void *shm_memfd_area(const char *name, size_t size, int *fdp);
void *shm_map_peer_fd(int fd, uint64_t off, uint64_t len);
int shm_ev_push(struct shm_dev *dev, enum rpcrdma_pmd_event_type type, struct shm_qp *qp,
		struct rpcrdma_pmd_conn_req *req, const uint8_t *pdata, uint8_t pdata_len);
/* Drop the events that refer to @qp or @req (being destroyed). */
void shm_ev_forget(struct shm_dev *dev, struct shm_qp *qp, struct rpcrdma_pmd_conn_req *req);
unsigned int shm_ev_pop(struct shm_dev *dev, struct rpcrdma_pmd_event *ev, unsigned int n);
int shm_ev_push_srq(struct shm_dev *dev, struct shm_srq *srq);
void shm_ev_forget_srq(struct shm_dev *dev, struct shm_srq *srq);

/* shm_srq.c */
int shm_srq_create(struct rpcrdma_pmd_pd *pd, const struct rpcrdma_pmd_srq_attr *attr,
		   struct rpcrdma_pmd_srq **srqp);
void shm_srq_destroy(struct rpcrdma_pmd_srq *s);
int shm_srq_arm(struct rpcrdma_pmd_srq *s, uint32_t limit);
int shm_srq_attach(struct shm_qp *qp, struct shm_srq *srq);
void shm_srq_detach(struct shm_qp *qp);
int shm_peer_srq_map(struct shm_qp *qp, int fd);
void shm_peer_srq_unmap(struct shm_qp *qp);
void shm_srq_limit_poll(struct shm_dev *dev);

/* shm_fp.c */
void shm_qp_set_fast_path(struct shm_qp *qp);
void shm_srq_set_fast_path(struct shm_srq *srq);
void shm_cq_set_fast_path(struct shm_cq *cq);
void shm_qp_to_error(struct shm_qp *qp);
void shm_sq_progress(struct shm_qp *qp);

static inline struct shm_dev *to_shm_dev(struct rpcrdma_pmd_dev *d)
{
	return container_of(d, struct shm_dev, common);
}

static inline struct shm_qp *to_shm_qp(struct rpcrdma_pmd_qp *q)
{
	return container_of(q, struct shm_qp, common);
}

static inline struct shm_cq *to_shm_cq(struct rpcrdma_pmd_cq *c)
{
	return container_of(c, struct shm_cq, common);
}

static inline struct shm_srq *to_shm_srq(struct rpcrdma_pmd_srq *s)
{
	return container_of(s, struct shm_srq, common);
}

static inline struct shm_mr *to_shm_mr(struct rpcrdma_pmd_mr *m)
{
	return container_of(m, struct shm_mr, common);
}

/* One of @dev's QPs went to error, its area's state stored: tell its peers (release). */
static inline void shm_dev_qp_error(struct shm_dev *dev)
{
	__atomic_fetch_add(&dev->area->qp_errors, 1, __ATOMIC_RELEASE);
}

static inline struct rpcrdma_shm_rq_slot *shm_slot(uint8_t *rq, uint32_t slot_size, uint32_t i)
{
	return (struct rpcrdma_shm_rq_slot *)(void *)(rq + (size_t)i * slot_size);
}

#endif /* RPCRDMA_PMD_SHM_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture tap on the PMD layer (include/rpcrdma/rpcrdma_capture.h).
 *
 * A captured QP's fast-path pointers and its CQs' poll_burst point here;
 * each wrapper finds its tap in a small process-wide table (the common QP
 * and CQ have no spare field, and a lookup costs only while capturing),
 * records, and calls the driver's function it replaced.
 *
 * ICRC: the frame codec (rpcrdma_roce.h) is libc only and its CRC-32 goes
 * a byte at a time; frames here are built with zlib's crc32_z, which works
 * a word at a time (bench-pmd capture/shm_write_1MiB_icrc_*: 1 MiB writes
 * captured 8.6 times faster), or with the CRC-32 the parameters name.
 *
 * Frames: a work request is built into a frame at queue time (the SGL is
 * only valid during the call; its memory must stay unchanged until the
 * completion anyway), copied into pcapng mbufs with rte_pcapng_copy(), and
 * held on its QP until the flush that rings its doorbell, which stamps it
 * and moves it to the capture's batch. Read requests and, for a QP captured
 * alone, posted receives are remembered in FIFOs so that their completions
 * (in order per queue) can be recorded with their data.
 */
#define ALLOW_EXPERIMENTAL_API /* rte_pcapng is experimental in DPDK 22.11 */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pcapng.h>
#include <zlib.h>

#include <rpcrdma/rpcrdma_capture.h>
#include <rpcrdma/rpcrdma_pmd_driver.h>
#include <rpcrdma/rpcrdma_roce.h>

#define CAP_LOG	      "capture"
#define CAP_BATCH     32   /* frames per rte_pcapng_write_packets() */
#define CAP_STAGE_MAX 256  /* frames queued on a QP and not yet flushed */
#define CAP_READ_MAX  256  /* RDMA Reads in flight on a QP */
#define CAP_RECV_MAX  1024 /* receives posted on a QP captured alone */
#define CAP_SGE_MAX   16   /* SGEs remembered per Read or receive */
#define CAP_TAP_MAX   256  /* QPs tapped in the process */
#define CAP_SMALL     2048 /* longest frame of a small pcapng mbuf */
#define CAP_MBUFS_DEF 2048 /* small mbufs */
#define CAP_LARGE_DEF 64   /* large mbufs: one frame of up to CAP_FRAME_MAX each */
#define CAP_MBUFS_MIN 64
#define CAP_PEER_QPN  0x800000u /* made-up peer QP number: ours with bit 23 set */
#define CAP_QPN_LOW   0x100000u /* QP numbers 0 and 1 are the management QPs on the wire */

/* Headers before the payload of the longest one (RETH) and after it. */
#define CAP_HDRS                                                               \
	(RPCRDMA_ROCE_ETH_LEN + RPCRDMA_ROCE_IPV4_LEN + RPCRDMA_ROCE_UDP_LEN + \
	 RPCRDMA_ROCE_BTH_LEN + RPCRDMA_ROCE_RETH_LEN + RPCRDMA_ROCE_ICRC_LEN)

/*
 * Every frame is one mbuf segment: rte_pcapng_copy() appends its trailer
 * to the last segment of a chain, which fails when that one is full. The
 * largest mbuf data room is UINT16_MAX; a frame leaves room for the
 * Enhanced Packet Block's header, padding and options (checked at open).
 */
#define CAP_ROOM_MAX  UINT16_MAX
#define CAP_FRAME_MAX (CAP_ROOM_MAX - RTE_PKTMBUF_HEADROOM - 256)

/* A work request remembered until its completion. */
struct cap_wr {
	uint64_t wr_id;
	uint32_t psn;	  /* Read: PSN of the first request frame */
	uint32_t len;	  /* Read: bytes requested */
	uint16_t num_sge; /* at most CAP_SGE_MAX kept */
	bool cut;	  /* the SGL had more SGEs than kept */
	struct rpcrdma_pmd_sge sge[CAP_SGE_MAX];
};

/* A FIFO of remembered work requests. */
struct cap_fifo {
	struct cap_wr *e;
	uint32_t cap, head, len;
};

struct cap_conn;

/* A tapped CQ: the driver's poll function and how many taps use it. */
struct cap_cq {
	struct rpcrdma_pmd_cq *cq; /* NULL: free */
	rpcrdma_pmd_poll_cq_burst_t poll;
	unsigned int refs;
};

/* A tapped QP. */
struct cap_qp {
	struct rpcrdma_pmd_qp *qp;
	struct cap_conn *conn;
	unsigned int side; /* 0 or 1: which end of conn */
	rpcrdma_pmd_post_recv_burst_t post_recv;
	rpcrdma_pmd_queue_send_burst_t queue_send;
	rpcrdma_pmd_flush_t flush;
	struct cap_cq *scq, *rcq;
	struct rte_mbuf *staged[CAP_STAGE_MAX];
	uint32_t nstaged;
	struct cap_fifo reads;
	struct cap_fifo recvs; /* only when captured alone */
};

/* A connection: two ends, each a tapped QP or made up. */
struct cap_conn {
	struct rpcrdma_capture *cap;
	unsigned int id;
	bool used;
	struct rpcrdma_roce_addr addr[2]; /* addr[s]: frames sent by end s */
	uint32_t qpn[2];
	uint32_t psn[2]; /* next PSN sent by end s */
	uint32_t msn[2]; /* AETH MSN of the Read responses sent by end s */
	struct cap_qp *tq[2];
};

struct rpcrdma_capture {
	rte_pcapng_t *pc;
	int fd;
	uint16_t port;
	char port_name[32];
	struct rte_mempool *mp;	 /* pcapng copies of frames up to CAP_SMALL bytes */
	struct rte_mempool *lmp; /* ... and of longer ones */
	struct rte_mempool *smp; /* the source frame */
	struct rte_mbuf *src;
	uint8_t *payload; /* gather buffer */
	uint32_t payload_max;
	struct rte_mbuf *batch[CAP_BATCH];
	uint32_t batch_bytes[CAP_BATCH];
	uint32_t nbatch;
	struct cap_conn conns[RPCRDMA_CAPTURE_CONN_MAX];
	rpcrdma_roce_crc32_t crc32; /* of the ICRC */
	uint64_t start_ns;
	struct rpcrdma_capture_stats st;
};

/*
 * The taps of the process. Slots are written on the control path by the
 * thread that polls the QP; a wrapper only ever looks up its own QP or CQ,
 * which is in the table for as long as its pointers lead here.
 */
static struct cap_qp *taps[CAP_TAP_MAX];
static struct rpcrdma_pmd_qp *tap_keys[CAP_TAP_MAX];
static struct cap_cq tap_cqs[CAP_TAP_MAX];
static unsigned int tap_hi; /* slots [0, tap_hi) may be in use */
static unsigned int capture_seq;

static struct cap_qp *tap_find(const struct rpcrdma_pmd_qp *qp)
{
	for (unsigned int i = 0; i < tap_hi; i++)
		if (tap_keys[i] == qp)
			return taps[i];
	return NULL;
}

static struct cap_cq *cq_find(const struct rpcrdma_pmd_cq *cq)
{
	for (unsigned int i = 0; i < CAP_TAP_MAX; i++)
		if (tap_cqs[i].cq == cq)
			return &tap_cqs[i];
	return NULL;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------ writing */

static void batch_write(struct rpcrdma_capture *cap)
{
	uint64_t bytes = 0;

	if (cap->nbatch == 0)
		return;
	for (uint32_t i = 0; i < cap->nbatch; i++)
		bytes += cap->batch_bytes[i];
	if (rte_pcapng_write_packets(cap->pc, cap->batch, (uint16_t)cap->nbatch) < 0) {
		cap->st.drops += cap->nbatch;
		if (cap->st.error == 0)
			cap->st.error = -EIO;
	} else {
		cap->st.frames += cap->nbatch;
		cap->st.bytes += bytes;
	}
	/*
	 * rte_pcapng_write_packets() says the mbufs are always freed, but the
	 * 22.11 code only writes them (dpdk-dumpcap frees them itself): without
	 * this the pools run dry and every later frame of that size is dropped.
	 */
	rte_pktmbuf_free_bulk(cap->batch, cap->nbatch);
	cap->nbatch = 0;
}

/*
 * Stamp a pcapng copy with the time now. It starts with its Enhanced Packet
 * Block (pcapng 4.3): type, length, interface, timestamp high and low words
 * in the units of the interface's if_tsresol, which rte_pcapng sets to
 * nanoseconds.
 */
static void stamp(struct rte_mbuf *m, uint64_t ns)
{
	uint32_t *w = rte_pktmbuf_mtod(m, uint32_t *);

	w[3] = (uint32_t)(ns >> 32);
	w[4] = (uint32_t)ns;
}

static void batch_add(struct rpcrdma_capture *cap, struct rte_mbuf *m, uint64_t ns)
{
	stamp(m, ns);
	/* the frame's length, before the EPB's header, padding and options */
	cap->batch_bytes[cap->nbatch] = rte_pktmbuf_mtod(m, uint32_t *)[6];
	cap->batch[cap->nbatch++] = m;
	if (cap->nbatch == CAP_BATCH)
		batch_write(cap);
}

/* zlib's CRC-32 as the frame codec calls it. */
static uint32_t zlib_crc32(uint32_t crc, const void *buf, size_t len)
{
	return (uint32_t)crc32_z(crc, buf, len);
}

/* Build a frame sent by end @p from of @p c and copy it into pcapng mbufs. */
static struct rte_mbuf *frame_copy(struct cap_conn *c, unsigned int from,
				   const struct rpcrdma_roce_pkt *pkt)
{
	struct rpcrdma_capture *cap = c->cap;
	struct rte_mbuf *src = cap->src;
	struct rte_mbuf *m;
	int len;

	len = rpcrdma_roce_build_crc(&c->addr[from], pkt, rte_pktmbuf_mtod(src, void *),
				     CAP_FRAME_MAX, cap->crc32);
	c->addr[from].ip_id++;
	if (len < 0) {
		cap->st.drops++;
		return NULL;
	}
	src->data_len = (uint16_t)len;
	src->pkt_len = (uint32_t)len;
	m = rte_pcapng_copy(cap->port, 0, src, len <= CAP_SMALL ? cap->mp : cap->lmp, UINT32_MAX, 0,
			    from == 0 ? RTE_PCAPNG_DIRECTION_OUT : RTE_PCAPNG_DIRECTION_IN);
	if (m == NULL)
		cap->st.drops++;
	return m;
}

/* A frame that goes to the file now (completions). */
static void frame_now(struct cap_conn *c, unsigned int from, const struct rpcrdma_roce_pkt *pkt)
{
	struct rte_mbuf *m = frame_copy(c, from, pkt);

	if (m != NULL)
		batch_add(c->cap, m, now_ns());
}

/* A frame that waits for its QP's next flush. */
static void frame_stage(struct cap_qp *tq, const struct rpcrdma_roce_pkt *pkt)
{
	struct rte_mbuf *m;

	if (tq->nstaged == CAP_STAGE_MAX) {
		tq->conn->cap->st.drops++;
		return;
	}
	m = frame_copy(tq->conn, tq->side, pkt);
	if (m != NULL)
		tq->staged[tq->nstaged++] = m;
}

/* ------------------------------------------------------------ payloads */

/*
 * Bytes [off, off + len) of the memory an SGL describes, in the capture's
 * gather buffer (or in place when one SGE holds them). Returns the bytes
 * available, less than len when the SGL is shorter.
 */
static uint32_t gather(struct rpcrdma_capture *cap, const struct rpcrdma_pmd_sge *sge,
		       uint16_t nsge, uint64_t off, uint32_t len, const uint8_t **out)
{
	uint32_t got = 0;

	*out = cap->payload;
	for (uint16_t i = 0; i < nsge && got < len; i++) {
		uint32_t n;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = sge[i].length - (uint32_t)off;
		if (n > len - got)
			n = len - got;
		if (got == 0 && n == len) {
			*out = (const uint8_t *)(uintptr_t)(sge[i].addr + off);
			return len;
		}
		memcpy(cap->payload + got, (const void *)(uintptr_t)(sge[i].addr + off), n);
		got += n;
		off = 0;
	}
	return got;
}

static uint64_t sgl_len(const struct rpcrdma_pmd_sge *sge, uint16_t nsge)
{
	uint64_t n = 0;

	for (uint16_t i = 0; i < nsge; i++)
		n += sge[i].length;
	return n;
}

static void fifo_push(struct cap_fifo *f, uint64_t wr_id, const struct rpcrdma_pmd_sge *sge,
		      uint16_t nsge, uint32_t psn, uint32_t len)
{
	struct cap_wr *w;

	if (f->len == f->cap)
		return; /* its completion is then counted as untracked */
	w = &f->e[(f->head + f->len++) % f->cap];
	w->wr_id = wr_id;
	w->psn = psn;
	w->len = len;
	w->cut = nsge > CAP_SGE_MAX;
	w->num_sge = w->cut ? CAP_SGE_MAX : nsge;
	memcpy(w->sge, sge, w->num_sge * sizeof(*sge));
}

/* The entry of @p wr_id at the head of @p f, popped; NULL when it is not there. */
static struct cap_wr *fifo_pop(struct cap_fifo *f, uint64_t wr_id)
{
	struct cap_wr *w;

	if (f->len == 0 || f->e[f->head].wr_id != wr_id)
		return NULL;
	w = &f->e[f->head];
	f->head = (f->head + 1) % f->cap;
	f->len--;
	return w;
}

/* ------------------------------------------------------------ recording */

/* Frames of a send-queue work request, staged until the flush. */
static void record_send_wr(struct cap_qp *tq, const struct rpcrdma_pmd_send_wr *wr)
{
	struct cap_conn *c = tq->conn;
	struct rpcrdma_capture *cap = c->cap;
	unsigned int s = tq->side;
	uint64_t total = sgl_len(wr->sg_list, wr->num_sge), off = 0;
	uint32_t first_psn = c->psn[s];
	struct rpcrdma_roce_pkt p;

	memset(&p, 0, sizeof(p));
	p.dest_qp = c->qpn[s ^ 1];
	switch (wr->opcode) {
	case RPCRDMA_PMD_WR_SEND:
	case RPCRDMA_PMD_WR_SEND_WITH_INV:
		p.opcode = wr->opcode == RPCRDMA_PMD_WR_SEND ? RPCRDMA_ROCE_SEND_ONLY
							     : RPCRDMA_ROCE_SEND_ONLY_INV;
		p.inv_rkey = wr->invalidate_rkey;
		p.solicited = true;
		p.ack_req = true;
		p.psn = c->psn[s]++;
		if (total > cap->payload_max) {
			cap->st.truncated++;
			total = cap->payload_max;
		}
		p.payload_len =
			gather(cap, wr->sg_list, wr->num_sge, 0, (uint32_t)total, &p.payload);
		frame_stage(tq, &p);
		return;
	case RPCRDMA_PMD_WR_RDMA_WRITE:
	case RPCRDMA_PMD_WR_RDMA_READ:
		/* one operation per frame-sized piece of the range */
		do {
			uint32_t n = total - off > cap->payload_max ? cap->payload_max
								    : (uint32_t)(total - off);

			p.va = wr->remote_addr + off;
			p.rkey = wr->rkey;
			p.dma_len = n;
			p.psn = c->psn[s]++;
			p.ack_req = true;
			if (wr->opcode == RPCRDMA_PMD_WR_RDMA_WRITE) {
				p.opcode = RPCRDMA_ROCE_RDMA_WRITE_ONLY;
				p.payload_len =
					gather(cap, wr->sg_list, wr->num_sge, off, n, &p.payload);
			} else {
				p.opcode = RPCRDMA_ROCE_RDMA_READ_REQUEST;
			}
			frame_stage(tq, &p);
			off += n;
		} while (off < total);
		if (wr->opcode == RPCRDMA_PMD_WR_RDMA_READ)
			fifo_push(&tq->reads, wr->wr_id, wr->sg_list, wr->num_sge, first_psn,
				  (uint32_t)total);
		return;
	default:
		return;
	}
}

/* The Read responses of a Read that completed: sent by the other end. */
static void record_read_data(struct cap_qp *tq, const struct cap_wr *w, uint32_t byte_len)
{
	struct cap_conn *c = tq->conn;
	struct rpcrdma_capture *cap = c->cap;
	unsigned int from = tq->side ^ 1;
	uint32_t off = 0, psn = w->psn;
	struct rpcrdma_roce_pkt p;

	(void)byte_len; /* a Read places all it asked for */
	if (w->cut)
		cap->st.truncated++;
	do {
		uint32_t n = w->len - off > cap->payload_max ? cap->payload_max : w->len - off;

		memset(&p, 0, sizeof(p));
		p.opcode = RPCRDMA_ROCE_RDMA_READ_RESPONSE_ONLY;
		p.dest_qp = c->qpn[tq->side];
		p.psn = psn++;
		p.msn = ++c->msn[from];
		p.payload_len = gather(cap, w->sge, w->num_sge, off, n, &p.payload);
		frame_now(c, from, &p);
		off += n;
	} while (off < w->len);
}

/* A message received by a QP captured alone: sent by its made-up peer. */
static void record_recv(struct cap_qp *tq, const struct cap_wr *w, const struct rpcrdma_pmd_wc *wc)
{
	struct cap_conn *c = tq->conn;
	struct rpcrdma_capture *cap = c->cap;
	unsigned int from = tq->side ^ 1;
	uint32_t len = wc->byte_len;
	struct rpcrdma_roce_pkt p;

	memset(&p, 0, sizeof(p));
	p.opcode = (wc->flags & RPCRDMA_PMD_WC_WITH_INV) ? RPCRDMA_ROCE_SEND_ONLY_INV
							 : RPCRDMA_ROCE_SEND_ONLY;
	p.inv_rkey = wc->invalidated_rkey;
	p.solicited = true;
	p.ack_req = true;
	p.dest_qp = c->qpn[tq->side];
	p.psn = c->psn[from]++;
	if (len > cap->payload_max || w->cut) {
		cap->st.truncated++;
		if (len > cap->payload_max)
			len = cap->payload_max;
	}
	p.payload_len = gather(cap, w->sge, w->num_sge, 0, len, &p.payload);
	frame_now(c, from, &p);
}

static void record_wc(struct cap_qp *tq, const struct rpcrdma_pmd_wc *wc)
{
	struct rpcrdma_capture *cap = tq->conn->cap;
	struct cap_wr *w;

	if (wc->status != RPCRDMA_PMD_WC_SUCCESS) {
		/* an error's opcode is not reliable (verbs): match by wr_id */
		if (fifo_pop(&tq->recvs, wc->wr_id) == NULL)
			fifo_pop(&tq->reads, wc->wr_id);
		return;
	}
	if (wc->opcode == RPCRDMA_PMD_WC_RECV) {
		if (tq->recvs.cap == 0)
			return; /* captured with its peer: the peer's Send is this packet */
		w = fifo_pop(&tq->recvs, wc->wr_id);
		if (w != NULL)
			record_recv(tq, w, wc);
		else
			cap->st.untracked++;
	} else if (wc->opcode == RPCRDMA_PMD_WC_RDMA_READ) {
		w = fifo_pop(&tq->reads, wc->wr_id);
		if (w != NULL)
			record_read_data(tq, w, wc->byte_len);
		else
			cap->st.untracked++;
	}
}

/* ------------------------------------------------------------ the wrappers */

static uint16_t tap_post_recv_burst(struct rpcrdma_pmd_qp *qp,
				    const struct rpcrdma_pmd_recv_wr *wrs, uint16_t n)
{
	struct cap_qp *tq = tap_find(qp);
	uint16_t k = tq->post_recv(qp, wrs, n);

	for (uint16_t i = 0; i < k; i++)
		fifo_push(&tq->recvs, wrs[i].wr_id, wrs[i].sg_list, wrs[i].num_sge, 0, 0);
	return k;
}

static uint16_t tap_queue_send_burst(struct rpcrdma_pmd_qp *qp,
				     const struct rpcrdma_pmd_send_wr *wrs, uint16_t n)
{
	struct cap_qp *tq = tap_find(qp);
	uint16_t k = tq->queue_send(qp, wrs, n);

	for (uint16_t i = 0; i < k; i++)
		record_send_wr(tq, &wrs[i]);
	return k;
}

static unsigned int tap_flush(struct rpcrdma_pmd_qp *qp)
{
	struct cap_qp *tq = tap_find(qp);
	uint64_t ns;

	/* recorded before the doorbell: the peer cannot see the work sooner */
	if (tq->nstaged != 0) {
		ns = now_ns();
		for (uint32_t i = 0; i < tq->nstaged; i++)
			batch_add(tq->conn->cap, tq->staged[i], ns);
		tq->nstaged = 0;
	}
	return tq->flush(qp);
}

static uint16_t tap_poll_cq_burst(struct rpcrdma_pmd_cq *cq, struct rpcrdma_pmd_wc *wc, uint16_t n)
{
	struct cap_cq *tc = cq_find(cq);
	uint16_t k = tc->poll(cq, wc, n);

	for (uint16_t i = 0; i < k; i++) {
		struct cap_qp *tq = tap_find(wc[i].qp);

		if (tq != NULL)
			record_wc(tq, &wc[i]);
	}
	return k;
}

/* ------------------------------------------------------------ control path */

void rpcrdma_capture_params_init(struct rpcrdma_capture_params *p)
{
	memset(p, 0, sizeof(*p));
	p->nb_mbufs = CAP_MBUFS_DEF;
	p->nb_large = CAP_LARGE_DEF;
}

static int fifo_init(struct cap_fifo *f, uint32_t n)
{
	f->e = calloc(n, sizeof(*f->e));
	if (f->e == NULL)
		return -ENOMEM;
	f->cap = n;
	f->head = f->len = 0;
	return 0;
}

static struct cap_cq *cq_tap(struct rpcrdma_pmd_cq *cq)
{
	struct cap_cq *tc = cq_find(cq);

	if (tc == NULL) {
		tc = cq_find(NULL);
		if (tc == NULL)
			return NULL;
		tc->cq = cq;
		tc->poll = cq->poll_burst;
		tc->refs = 0;
		cq->poll_burst = tap_poll_cq_burst;
	}
	tc->refs++;
	return tc;
}

static void cq_untap(struct cap_cq *tc)
{
	if (--tc->refs != 0)
		return;
	tc->cq->poll_burst = tc->poll;
	tc->cq = NULL;
}

static void tap_free(struct cap_qp *tq)
{
	for (uint32_t i = 0; i < tq->nstaged; i++)
		rte_pktmbuf_free(tq->staged[i]);
	free(tq->reads.e);
	free(tq->recvs.e);
	free(tq);
}

/* Tap @p qp as end @p side of @p c; -ENOSPC / -ENOMEM with nothing changed. */
static int tap_add(struct cap_conn *c, unsigned int side, struct rpcrdma_pmd_qp *qp, bool alone)
{
	unsigned int slot;
	struct cap_qp *tq;

	for (slot = 0; slot < CAP_TAP_MAX && tap_keys[slot] != NULL; slot++)
		;
	if (slot == CAP_TAP_MAX)
		return -ENOSPC;
	tq = calloc(1, sizeof(*tq));
	if (tq == NULL)
		return -ENOMEM;
	if (fifo_init(&tq->reads, CAP_READ_MAX) || (alone && fifo_init(&tq->recvs, CAP_RECV_MAX))) {
		tap_free(tq);
		return -ENOMEM;
	}
	tq->scq = cq_tap(qp->send_cq);
	tq->rcq = tq->scq ? cq_tap(qp->recv_cq) : NULL;
	if (tq->rcq == NULL) {
		if (tq->scq)
			cq_untap(tq->scq);
		tap_free(tq);
		return -ENOSPC;
	}
	tq->qp = qp;
	tq->conn = c;
	tq->side = side;
	tq->post_recv = qp->post_recv_burst;
	tq->queue_send = qp->queue_send_burst;
	tq->flush = qp->flush;
	c->tq[side] = tq;
	taps[slot] = tq;
	tap_keys[slot] = qp;
	if (slot + 1 > tap_hi)
		tap_hi = slot + 1;
	/* the tap is findable before any wrapper can run */
	if (alone)
		qp->post_recv_burst = tap_post_recv_burst;
	qp->queue_send_burst = tap_queue_send_burst;
	qp->flush = tap_flush;
	return 0;
}

/* Put the driver's functions back and forget the tap. */
static void tap_remove(struct cap_qp *tq)
{
	struct rpcrdma_pmd_qp *qp = tq->qp;
	struct cap_conn *c = tq->conn;

	qp->post_recv_burst = tq->post_recv;
	qp->queue_send_burst = tq->queue_send;
	qp->flush = tq->flush;
	cq_untap(tq->rcq);
	cq_untap(tq->scq);
	for (unsigned int i = 0; i < tap_hi; i++)
		if (tap_keys[i] == qp) {
			tap_keys[i] = NULL;
			taps[i] = NULL;
		}
	while (tap_hi > 0 && tap_keys[tap_hi - 1] == NULL)
		tap_hi--;
	c->cap->st.drops += tq->nstaged;
	c->tq[tq->side] = NULL;
	if (c->tq[0] == NULL && c->tq[1] == NULL)
		c->used = false;
	tap_free(tq);
}

static void conn_addr(struct cap_conn *c)
{
	for (unsigned int s = 0; s < 2; s++) {
		struct rpcrdma_roce_addr *a = &c->addr[s];

		memset(a, 0, sizeof(*a));
		/* 10.77.C.(s+1) -> 10.77.C.(2-s), MAC 02:00:4d:00:C:0(s+1) */
		a->src_ip = 0x0a4d0000u | (c->id << 8) | (s + 1);
		a->dst_ip = 0x0a4d0000u | (c->id << 8) | (2 - s);
		a->src_mac[0] = a->dst_mac[0] = 0x02;
		a->src_mac[2] = a->dst_mac[2] = 0x4d;
		a->src_mac[4] = a->dst_mac[4] = (uint8_t)c->id;
		a->src_mac[5] = (uint8_t)(s + 1);
		a->dst_mac[5] = (uint8_t)(2 - s);
		/* the UDP source port (flow entropy): one per connection */
		a->src_port = (uint16_t)(0xc000 | c->id);
		a->ttl = 64;
	}
}

/* The wire number of a QP: its own, 24 bits, never 0 or 1 (SMI, GSI: Wireshark decodes MADs). */
static uint32_t wire_qpn(uint32_t qp_num)
{
	qp_num &= 0xffffff;
	return qp_num < 2 ? qp_num | CAP_QPN_LOW : qp_num;
}

/* The PMD layer's QP destroy hook: stop capturing a QP that goes. */
static void capture_qp_gone(struct rpcrdma_pmd_qp *qp)
{
	struct cap_qp *tq = tap_find(qp);

	if (tq != NULL)
		tap_remove(tq);
}

int rpcrdma_capture_qp(struct rpcrdma_capture *cap, struct rpcrdma_pmd_qp *qp,
		       struct rpcrdma_pmd_qp *peer)
{
	struct cap_conn *c = NULL;
	int ret;

	if (cap == NULL || qp == NULL || peer == qp)
		return -EINVAL;
	if (tap_find(qp) != NULL || (peer != NULL && tap_find(peer) != NULL))
		return -EBUSY;
	for (unsigned int i = 0; i < RPCRDMA_CAPTURE_CONN_MAX && c == NULL; i++)
		if (!cap->conns[i].used)
			c = &cap->conns[i];
	if (c == NULL)
		return -ENOSPC;
	memset(c, 0, sizeof(*c));
	c->cap = cap;
	c->id = (unsigned int)(c - cap->conns) + 1;
	c->qpn[0] = wire_qpn(qp->qp_num);
	c->qpn[1] = peer != NULL ? wire_qpn(peer->qp_num) : c->qpn[0] | CAP_PEER_QPN;
	conn_addr(c);
	rpcrdma_pmd_set_qp_destroy_hook(capture_qp_gone);
	ret = tap_add(c, 0, qp, peer == NULL);
	if (ret)
		return ret;
	if (peer != NULL) {
		ret = tap_add(c, 1, peer, false);
		if (ret) {
			tap_remove(c->tq[0]);
			return ret;
		}
	}
	c->used = true;
	return 0;
}

int rpcrdma_capture_qp_stop(struct rpcrdma_capture *cap, struct rpcrdma_pmd_qp *qp)
{
	struct cap_qp *tq;

	if (cap == NULL || qp == NULL)
		return -EINVAL;
	tq = tap_find(qp);
	if (tq == NULL || tq->conn->cap != cap)
		return -ENOENT;
	tap_remove(tq);
	return 0;
}

/* Make the capture's interface: a net_null port no one sends on. */
static int port_make(struct rpcrdma_capture *cap)
{
	int ret;

	snprintf(cap->port_name, sizeof(cap->port_name), "net_null_rpcrdma%u_%u",
		 (unsigned int)getpid() % 100000, capture_seq++);
	ret = rte_eal_hotplug_add("vdev", cap->port_name, "");
	if (ret < 0) {
		rpcrdma_pmd_log(CAP_LOG, "cannot make the interface %s: %s", cap->port_name,
				strerror(-ret));
		return -ENODEV;
	}
	if (rte_eth_dev_get_port_by_name(cap->port_name, &cap->port) != 0) {
		rte_eal_hotplug_remove("vdev", cap->port_name);
		rpcrdma_pmd_log(CAP_LOG, "%s is not an ethdev port", cap->port_name);
		return -ENODEV;
	}
	return 0;
}

static void cap_free(struct rpcrdma_capture *cap)
{
	if (cap->src)
		rte_pktmbuf_free(cap->src);
	rte_mempool_free(cap->smp);
	rte_mempool_free(cap->lmp);
	rte_mempool_free(cap->mp);
	if (cap->port_name[0])
		rte_eal_hotplug_remove("vdev", cap->port_name);
	free(cap->payload);
	free(cap);
}

int rpcrdma_capture_open(const char *path, const struct rpcrdma_capture_params *p,
			 struct rpcrdma_capture **capp)
{
	struct rpcrdma_capture_params def;
	struct rpcrdma_capture *cap;
	char name[RTE_MEMPOOL_NAMESIZE];
	int ret;

	if (p == NULL) {
		rpcrdma_capture_params_init(&def);
		p = &def;
	}
	if (path == NULL || capp == NULL || p->nb_mbufs < CAP_MBUFS_MIN || p->nb_large == 0)
		return -EINVAL;
	if (rte_pcapng_mbuf_size(CAP_FRAME_MAX) > CAP_ROOM_MAX)
		return -ENOTSUP; /* an rte_pcapng with longer trailers than this was written for */
	if (rte_lcore_count() == 0 || rte_eal_process_type() == RTE_PROC_INVALID) {
		rpcrdma_pmd_log(CAP_LOG, "the EAL is not running");
		return -ENODEV;
	}
	cap = calloc(1, sizeof(*cap));
	if (cap == NULL)
		return -ENOMEM;
	cap->fd = -1;
	cap->crc32 = p->crc32 != NULL ? p->crc32 : zlib_crc32;
	cap->payload_max = (CAP_FRAME_MAX - CAP_HDRS) & ~3u;
	if (cap->payload_max > RPCRDMA_ROCE_PAYLOAD_MAX)
		cap->payload_max = RPCRDMA_ROCE_PAYLOAD_MAX;
	cap->st.frame_payload_max = cap->payload_max;
	cap->payload = malloc(cap->payload_max);
	ret = -ENOMEM;
	if (cap->payload == NULL)
		goto err_free;
	ret = port_make(cap);
	if (ret)
		goto err_free;
	snprintf(name, sizeof(name), "rpcrdma_cap%u", capture_seq);
	cap->mp = rte_pktmbuf_pool_create(name, p->nb_mbufs, 0, 0,
					  (uint16_t)rte_pcapng_mbuf_size(CAP_SMALL), SOCKET_ID_ANY);
	snprintf(name, sizeof(name), "rpcrdma_capl%u", capture_seq);
	cap->lmp = rte_pktmbuf_pool_create(name, p->nb_large, 0, 0, CAP_ROOM_MAX, SOCKET_ID_ANY);
	snprintf(name, sizeof(name), "rpcrdma_caps%u", capture_seq);
	cap->smp = rte_pktmbuf_pool_create(name, 1, 0, 0, CAP_ROOM_MAX, SOCKET_ID_ANY);
	cap->src = cap->smp ? rte_pktmbuf_alloc(cap->smp) : NULL;
	if (cap->mp == NULL || cap->lmp == NULL || cap->src == NULL) {
		rpcrdma_pmd_log(CAP_LOG, "no memory for the capture's mbufs: %s",
				rte_strerror(rte_errno));
		ret = -ENOMEM;
		goto err_free;
	}
	cap->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (cap->fd < 0) {
		ret = -errno;
		rpcrdma_pmd_log(CAP_LOG, "%s: %s", path, strerror(errno));
		goto err_free;
	}
	cap->pc = rte_pcapng_fdopen(cap->fd, NULL, NULL, "rpcrdma capture", p->comment);
	if (cap->pc == NULL) {
		/* rte_pcapng closes nothing on failure */
		rpcrdma_pmd_log(CAP_LOG, "%s: cannot write the pcapng header: %s", path,
				rte_strerror(rte_errno));
		ret = -EIO;
		goto err_close;
	}
	cap->start_ns = now_ns();
	*capp = cap;
	return 0;

err_close:
	close(cap->fd);
	unlink(path);
err_free:
	cap_free(cap);
	return ret;
}

int rpcrdma_capture_flush(struct rpcrdma_capture *cap)
{
	batch_write(cap);
	return cap->st.error != 0 ? -EIO : 0;
}

void rpcrdma_capture_stats(const struct rpcrdma_capture *cap, struct rpcrdma_capture_stats *st)
{
	*st = cap->st;
}

int rpcrdma_capture_close(struct rpcrdma_capture *cap)
{
	int ret;

	if (cap == NULL)
		return 0;
	for (unsigned int i = 0; i < RPCRDMA_CAPTURE_CONN_MAX; i++)
		for (unsigned int s = 0; s < 2; s++)
			if (cap->conns[i].tq[s] != NULL)
				tap_remove(cap->conns[i].tq[s]);
	batch_write(cap);
	if (rte_pcapng_write_stats(cap->pc, cap->port, NULL, cap->start_ns, now_ns(),
				   cap->st.frames, cap->st.drops) < 0 &&
	    cap->st.error == 0)
		cap->st.error = -EIO;
	ret = cap->st.error != 0 ? -EIO : 0;
	rte_pcapng_close(cap->pc); /* closes the fd */
	cap_free(cap);
	return ret;
}

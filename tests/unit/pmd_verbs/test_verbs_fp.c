/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * verbs PMD fast path (pmd/verbs/verbs_fp.c) against a fake provider.
 *
 * libibverbs' fast-path calls are inline wrappers over function pointers in
 * the provider's objects (ibv_wr_send -> qp_ex->wr_send, ibv_post_recv ->
 * context->ops.post_recv, ibv_start_poll -> cq_ex->start_poll, ...). The
 * fake here fills those pointers with recorders and a scripted completion
 * queue, so the driver's real fast-path code runs without a device: what it
 * hands the provider (opcodes, keys, SGLs, inline data, wr_ids, one
 * doorbell per flush) and how it turns completions back into PMD ones
 * (user wr_id, opcode, status, queue accounting, stale and refused work).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_pmd.h"

#include <stdio.h>

#include "test_check.h"

#define FAKE_MAX 512

/* What the fake send queue saw of one work request. */
struct fake_wr {
	uint64_t wr_id;
	unsigned int flags;
	int op; /* enum ibv_wr_opcode */
	uint32_t rkey;
	uint64_t raddr;
	uint32_t inv;
	int nsge;
	struct ibv_sge sge[4];
	const struct ibv_sge *sg_list; /* the pointer handed over */
	bool inl;
	uint8_t data[256];
	size_t dlen;
};

struct fake_cqe {
	uint64_t wr_id;
	enum ibv_wc_status status;
	uint32_t len;
	unsigned int flags;
	uint32_t inv;
	uint32_t qp_num;
};

static struct {
	struct ibv_context ctx;
	struct ibv_qp_ex qpx;
	struct ibv_cq_ex cqx;
	struct ibv_cq cq; /* for ibv_poll_cq */
	bool started;
	int starts, completes, aborts;
	struct fake_wr pend[FAKE_MAX];
	int npend;
	struct fake_wr posted[FAKE_MAX]; /* made visible by a doorbell */
	int nposted;
	int doorbells;
	int fail_complete; /* errno the next wr_complete returns */
	int fail_post_at;  /* post_send / post_recv: index in the chain that fails; -1 */
	int post_send_calls;
	struct ibv_recv_wr recv[FAKE_MAX];
	int nrecv;
	int post_recv_calls;
	int post_srq_calls;
	struct fake_cqe cqe[FAKE_MAX];
	int cq_head, cq_tail, cur;
	int polls_ex, polls;
} F;

static int info_calls;
static char info_last[256];

/* The PMD's error log (pmd.c; verbs_srq.c calls it): here, counted. */
static int log_calls;

void rpcrdma_pmd_log(const char *driver, const char *fmt, ...)
{
	(void)driver;
	(void)fmt;
	log_calls++;
}

/* The PMD's info log (pmd.c): here, a recorder of the last line. */
void rpcrdma_pmd_info(const char *driver, const char *fmt, ...)
{
	va_list ap;

	(void)driver;
	va_start(ap, fmt);
	vsnprintf(info_last, sizeof(info_last), fmt, ap);
	va_end(ap);
	info_calls++;
}

/* ---- fake ibv_qp_ex ---- */

static struct fake_wr *new_wr(struct ibv_qp_ex *q, int op)
{
	struct fake_wr *w;

	CHECK(F.started);
	if (F.npend == FAKE_MAX)
		abort();
	w = &F.pend[F.npend++];
	memset(w, 0, sizeof(*w));
	w->wr_id = q->wr_id;
	w->flags = q->wr_flags;
	w->op = op;
	return w;
}

static void f_start(struct ibv_qp_ex *q)
{
	(void)q;
	CHECK(!F.started); /* no nesting */
	F.started = true;
	F.starts++;
}

static int f_complete(struct ibv_qp_ex *q)
{
	int ret = F.fail_complete;

	(void)q;
	CHECK(F.started);
	F.started = false;
	F.completes++;
	F.fail_complete = 0;
	if (ret == 0) {
		memcpy(&F.posted[F.nposted], F.pend, sizeof(F.pend[0]) * (size_t)F.npend);
		F.nposted += F.npend;
		F.doorbells++;
	}
	F.npend = 0;
	return ret;
}

static void f_abort(struct ibv_qp_ex *q)
{
	(void)q;
	F.started = false;
	F.aborts++;
	F.npend = 0;
}

static void f_send(struct ibv_qp_ex *q)
{
	new_wr(q, IBV_WR_SEND);
}

static void f_send_inv(struct ibv_qp_ex *q, uint32_t inv)
{
	new_wr(q, IBV_WR_SEND_WITH_INV)->inv = inv;
}

static void f_write(struct ibv_qp_ex *q, uint32_t rkey, uint64_t raddr)
{
	struct fake_wr *w = new_wr(q, IBV_WR_RDMA_WRITE);

	w->rkey = rkey;
	w->raddr = raddr;
}

static void f_read(struct ibv_qp_ex *q, uint32_t rkey, uint64_t raddr)
{
	struct fake_wr *w = new_wr(q, IBV_WR_RDMA_READ);

	w->rkey = rkey;
	w->raddr = raddr;
}

static void f_sge_list(struct ibv_qp_ex *q, size_t n, const struct ibv_sge *s)
{
	struct fake_wr *w = &F.pend[F.npend - 1];

	(void)q;
	w->nsge = (int)n;
	w->sg_list = s;
	memcpy(w->sge, s, sizeof(*s) * (n < 4 ? n : 4));
}

static void f_inline(struct ibv_qp_ex *q, void *addr, size_t len)
{
	struct fake_wr *w = &F.pend[F.npend - 1];

	(void)q;
	w->inl = true;
	memcpy(w->data, addr, len); /* a provider copies the data now */
	w->dlen = len;
}

static void f_inline_list(struct ibv_qp_ex *q, size_t n, const struct ibv_data_buf *b)
{
	struct fake_wr *w = &F.pend[F.npend - 1];
	size_t i;

	(void)q;
	w->inl = true;
	for (i = 0; i < n; i++) {
		memcpy(w->data + w->dlen, b[i].addr, b[i].length);
		w->dlen += b[i].length;
	}
}

/* ---- fake context ops ---- */

static int f_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	int i = 0;

	(void)qp;
	F.post_send_calls++;
	for (; wr != NULL; wr = wr->next, i++) {
		struct fake_wr *w = &F.posted[F.nposted];

		if (i == F.fail_post_at) {
			*bad = wr;
			F.fail_post_at = -1;
			if (i != 0)
				F.doorbells++;
			return ENOMEM; /* libibverbs: a positive errno */
		}
		memset(w, 0, sizeof(*w));
		w->wr_id = wr->wr_id;
		w->flags = wr->send_flags;
		w->op = wr->opcode;
		w->rkey = wr->wr.rdma.rkey;
		w->raddr = wr->wr.rdma.remote_addr;
		w->inv = wr->invalidate_rkey;
		w->nsge = wr->num_sge;
		w->sg_list = wr->sg_list;
		if (wr->num_sge > 0) /* a drain marker has no SGL */
			memcpy(w->sge, wr->sg_list, sizeof(struct ibv_sge) * (size_t)wr->num_sge);
		w->inl = (wr->send_flags & IBV_SEND_INLINE) != 0;
		F.nposted++;
	}
	F.doorbells++;
	return 0;
}

static int f_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	int i = 0;

	(void)qp;
	F.post_recv_calls++;
	for (; wr != NULL; wr = wr->next, i++) {
		if (i == F.fail_post_at) {
			*bad = wr;
			F.fail_post_at = -1;
			return ENOMEM;
		}
		F.recv[F.nrecv++] = *wr;
	}
	return 0;
}

static int f_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	int i = 0;

	(void)srq;
	F.post_srq_calls++;
	for (; wr != NULL; wr = wr->next, i++) {
		if (i == F.fail_post_at) {
			*bad = wr;
			F.fail_post_at = -1;
			return ENOMEM;
		}
		F.recv[F.nrecv++] = *wr;
	}
	return 0;
}

static void push_cqe(uint64_t wr_id, enum ibv_wc_status st, uint32_t len, unsigned int flags,
		     uint32_t inv)
{
	struct fake_cqe *c = &F.cqe[F.cq_head++ % FAKE_MAX];

	c->qp_num = 0x99;
	c->wr_id = wr_id;
	c->status = st;
	c->len = len;
	c->flags = flags;
	c->inv = inv;
}

static int f_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int k = 0;

	(void)cq;
	F.polls++;
	while (k < n && F.cq_tail != F.cq_head) {
		const struct fake_cqe *c = &F.cqe[F.cq_tail++ % FAKE_MAX];

		memset(&wc[k], 0xee, sizeof(wc[k])); /* fields verbs leaves undefined */
		wc[k].wr_id = c->wr_id;
		wc[k].status = c->status;
		wc[k].byte_len = c->len;
		wc[k].wc_flags = c->flags;
		wc[k].invalidated_rkey = c->inv;
		wc[k].qp_num = c->qp_num;
		k++;
	}
	return k;
}

/* ---- fake ibv_cq_ex ---- */

static int cq_load(struct ibv_cq_ex *cq)
{
	const struct fake_cqe *c;

	if (F.cq_tail == F.cq_head)
		return ENOENT;
	F.cur = F.cq_tail++ % FAKE_MAX;
	c = &F.cqe[F.cur];
	cq->wr_id = c->wr_id;
	cq->status = c->status;
	return 0;
}

static int f_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)
{
	(void)attr;
	F.polls_ex++;
	return cq_load(cq);
}

static int f_next_poll(struct ibv_cq_ex *cq)
{
	return cq_load(cq);
}

static void f_end_poll(struct ibv_cq_ex *cq)
{
	(void)cq;
}

static uint32_t f_byte_len(struct ibv_cq_ex *cq)
{
	(void)cq;
	return F.cqe[F.cur].len;
}

static unsigned int f_wc_flags(struct ibv_cq_ex *cq)
{
	(void)cq;
	return F.cqe[F.cur].flags;
}

static uint32_t f_qp_num(struct ibv_cq_ex *cq)
{
	(void)cq;
	return F.cqe[F.cur].qp_num;
}

static __be32 f_imm(struct ibv_cq_ex *cq)
{
	(void)cq;
	return (__be32)F.cqe[F.cur].inv;
}

/* ---- the driver's objects around the fake ---- */

static struct verbs_dev dev;
static struct verbs_cq cq;
static struct verbs_qp *qp;
static struct verbs_qp *dev_qps[4];

#define QP_TAG (1u << 16 | 2u) /* generation 1, index 2 */

/* QPs the fast path left for the control path: the provider refused a flush. */
static int fatal_queued(void)
{
	struct verbs_qp *q;
	int n = 0;

	TAILQ_FOREACH(q, &dev.fatal_qps, fatal_next)
	n++;
	return n;
}

static void setup(bool wr_api, bool cq_ex, uint32_t max_send_wr, uint32_t max_recv_wr)
{
	uint32_t sq = 1, rq = 1;

	if (qp != NULL) {
		free(qp->sq);
		free(qp->rq);
		free(qp->pwr);
		free(qp->psge);
		free(qp);
	}
	memset(&F, 0, sizeof(F));
	F.fail_post_at = -1;
	F.ctx.ops.post_send = f_post_send;
	F.ctx.ops.post_recv = f_post_recv;
	F.ctx.ops.poll_cq = f_poll_cq;
	F.qpx.qp_base.context = &F.ctx;
	F.qpx.qp_base.qp_num = 0x99;
	F.qpx.wr_start = f_start;
	F.qpx.wr_complete = f_complete;
	F.qpx.wr_abort = f_abort;
	F.qpx.wr_send = f_send;
	F.qpx.wr_send_inv = f_send_inv;
	F.qpx.wr_rdma_write = f_write;
	F.qpx.wr_rdma_read = f_read;
	F.qpx.wr_set_sge_list = f_sge_list;
	F.qpx.wr_set_inline_data = f_inline;
	F.qpx.wr_set_inline_data_list = f_inline_list;
	F.cqx.context = &F.ctx;
	F.cqx.start_poll = f_start_poll;
	F.cqx.next_poll = f_next_poll;
	F.cqx.end_poll = f_end_poll;
	F.cqx.read_byte_len = f_byte_len;
	F.cqx.read_wc_flags = f_wc_flags;
	F.cqx.read_imm_data = f_imm;
	F.cqx.read_qp_num = f_qp_num;
	F.ctx.ops.post_srq_recv = f_post_srq_recv;
	F.cq.context = &F.ctx;

	memset(&dev, 0, sizeof(dev));
	memset(dev_qps, 0, sizeof(dev_qps));
	dev.qps = dev_qps;
	TAILQ_INIT(&dev.fatal_qps);
	dev.qp_cap = 4;

	memset(&cq, 0, sizeof(cq));
	cq.dev = &dev;
	TAILQ_INIT(&cq.sq_flush);
	TAILQ_INIT(&cq.rq_flush);
	cq.cqx = cq_ex ? &F.cqx : NULL;
	cq.cq = cq_ex ? ibv_cq_ex_to_cq(&F.cqx) : &F.cq;
	verbs_cq_set_fast_path(&cq);

	while (sq < max_send_wr)
		sq <<= 1;
	while (rq < max_recv_wr)
		rq <<= 1;
	qp = aligned_alloc(64, sizeof(*qp));
	memset(qp, 0, sizeof(*qp));
	qp->dev = &dev;
	qp->scq = qp->rcq = &cq;
	qp->tag = QP_TAG;
	qp->qp = &F.qpx.qp_base;
	qp->qpx = wr_api ? &F.qpx : NULL;
	qp->sq = calloc(sq, sizeof(*qp->sq));
	qp->rq = calloc(rq, sizeof(*qp->rq));
	if (!wr_api) {
		qp->pwr = calloc(sq, sizeof(*qp->pwr));
		qp->psge = calloc((size_t)sq * 4, sizeof(*qp->psge));
	}
	qp->sq_mask = sq - 1;
	qp->rq_mask = rq - 1;
	qp->max_send_wr = max_send_wr;
	qp->max_recv_wr = max_recv_wr;
	qp->max_send_sge = 4;
	qp->max_read_sge = 4;
	qp->max_recv_sge = 2;
	qp->max_inline = 64;
	qp->common.qp_num = 0x99;
	qp->common.state = RPCRDMA_PMD_QPS_RTS;
	dev_qps[verbs_tag_index(QP_TAG)] = qp;
	verbs_qp_set_fast_path(qp);
}

static struct rpcrdma_pmd_send_wr swr(uint64_t id, uint8_t op, uint8_t flags,
				      const struct rpcrdma_pmd_sge *s, uint16_t n)
{
	struct rpcrdma_pmd_send_wr w;

	memset(&w, 0, sizeof(w));
	w.wr_id = id;
	w.opcode = op;
	w.flags = flags;
	w.sg_list = s;
	w.num_sge = n;
	w.invalidate_rkey = 0x1111;
	w.remote_addr = 0xabc000;
	w.rkey = 0x2222;
	return w;
}

static uint8_t small[48], big[4096];

/* Four kinds of work request, one doorbell, and what the provider saw. */
static void test_wr_batch(bool cq_ex)
{
	struct rpcrdma_pmd_sge s_small = { (uintptr_t)small, sizeof(small), 7 };
	struct rpcrdma_pmd_sge s_big[2] = { { (uintptr_t)big, 1000, 8 },
					    { (uintptr_t)big + 2000, 500, 9 } };
	struct rpcrdma_pmd_sge s_rd = { (uintptr_t)big, 256, 8 };
	struct rpcrdma_pmd_send_wr w[4];
	struct rpcrdma_pmd_wc wc[8];
	int i;

	setup(true, cq_ex, 16, 16);
	memset(small, 0x5a, sizeof(small));
	w[0] = swr(100, RPCRDMA_PMD_WR_SEND, 0, &s_small, 1);
	w[1] = swr(101, RPCRDMA_PMD_WR_SEND_WITH_INV, RPCRDMA_PMD_SEND_SIGNALED, s_big, 2);
	w[2] = swr(102, RPCRDMA_PMD_WR_RDMA_WRITE, 0, s_big, 1);
	w[3] = swr(103, RPCRDMA_PMD_WR_RDMA_READ, RPCRDMA_PMD_SEND_SIGNALED, &s_rd, 1);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w, 2), 2);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w + 2, 2), 2);
	/* the inline SEND's data was copied when queued: change it now */
	memset(small, 0, sizeof(small));
	CHECK_EQ(F.starts, 1);
	CHECK_EQ(F.completes, 0); /* nothing rang yet */
	CHECK_EQ(F.nposted, 0);
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 4);
	CHECK_EQ(F.completes, 1);
	CHECK_EQ(F.doorbells, 1);
	CHECK_EQ(F.nposted, 4);
	CHECK_EQ(qp->common.stats.send_wrs, 4);
	CHECK_EQ(qp->common.stats.doorbells, 1);
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 0); /* nothing staged: no doorbell */
	CHECK_EQ(F.completes, 1);
	CHECK_EQ(qp->common.stats.doorbells, 1);

	CHECK_EQ(F.posted[0].op, IBV_WR_SEND);
	CHECK(F.posted[0].inl);
	CHECK_EQ(F.posted[0].dlen, sizeof(small));
	CHECK_EQ(F.posted[0].data[0], 0x5a);
	CHECK_EQ(F.posted[0].data[47], 0x5a);
	CHECK_EQ(F.posted[0].flags, 0);
	CHECK_EQ(F.posted[1].op, IBV_WR_SEND_WITH_INV);
	CHECK_EQ(F.posted[1].inv, 0x1111);
	CHECK(!F.posted[1].inl);
	CHECK_EQ(F.posted[1].flags, IBV_SEND_SIGNALED);
	CHECK_EQ(F.posted[1].nsge, 2);
	CHECK(F.posted[1].sg_list == (const struct ibv_sge *)s_big); /* no copy of the SGL */
	CHECK_EQ(F.posted[1].sge[1].length, 500);
	CHECK_EQ(F.posted[1].sge[1].lkey, 9);
	CHECK_EQ(F.posted[2].op, IBV_WR_RDMA_WRITE);
	CHECK_EQ(F.posted[2].rkey, 0x2222);
	CHECK_EQ(F.posted[2].raddr, 0xabc000);
	CHECK(!F.posted[2].inl); /* 1000 bytes > inline 64 */
	CHECK_EQ(F.posted[3].op, IBV_WR_RDMA_READ);
	CHECK(!F.posted[3].inl);
	for (i = 0; i < 4; i++) {
		CHECK_EQ(verbs_wrid_tag(F.posted[i].wr_id), QP_TAG);
		CHECK(!verbs_wrid_is_recv(F.posted[i].wr_id));
		CHECK_EQ(verbs_wrid_slot(F.posted[i].wr_id), i);
	}

	/* the signaled SEND_WITH_INV and READ complete; the unsignaled ones are retired */
	push_cqe(F.posted[1].wr_id, IBV_WC_SUCCESS, 0, 0, 0);
	push_cqe(F.posted[3].wr_id, IBV_WC_SUCCESS, 256, 0, 0);
	CHECK_EQ(qp->sq_head - qp->sq_tail, 4);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 2);
	CHECK_EQ(wc[0].wr_id, 101);
	CHECK(wc[0].qp == &qp->common);
	CHECK_EQ(wc[0].qp_num, 0x99);
	CHECK_EQ(wc[0].opcode, RPCRDMA_PMD_WC_SEND);
	CHECK_EQ(wc[0].status, RPCRDMA_PMD_WC_SUCCESS);
	CHECK_EQ(wc[1].wr_id, 103);
	CHECK_EQ(wc[1].opcode, RPCRDMA_PMD_WC_RDMA_READ);
	CHECK_EQ(wc[1].byte_len, 256);
	CHECK_EQ(qp->sq_head - qp->sq_tail, 0);
	CHECK_EQ(cq.common.stats.polls, 1);
	CHECK_EQ(cq.common.stats.wcs, 2);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 0);
	CHECK_EQ(cq.common.stats.empty_polls, 1);
}

/* The send queue holds max_send_wr; completions make room; bad requests stop a burst. */
static void test_sq_space(bool wr_api)
{
	struct rpcrdma_pmd_sge s = { (uintptr_t)big, 100, 1 };
	struct rpcrdma_pmd_send_wr w[10];
	struct rpcrdma_pmd_wc wc[4];
	int i;

	setup(wr_api, true, 6, 4); /* ring of 8, 6 usable */
	for (i = 0; i < 10; i++)
		w[i] = swr(200 + i, RPCRDMA_PMD_WR_SEND, i == 3 ? RPCRDMA_PMD_SEND_SIGNALED : 0, &s,
			   1);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w, 10), 6);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w + 6, 4), 0);
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 6);
	CHECK_EQ(F.doorbells, 1);
	/* the signaled 4th completes: slots 0..3 are free again */
	push_cqe(F.posted[3].wr_id, IBV_WC_SUCCESS, 0, 0, 0);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 4), 1);
	CHECK_EQ(wc[0].wr_id, 203);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w + 6, 4), 4);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w, 1), 0);
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 4);
	CHECK_EQ(F.doorbells, 2);
	/* the slots wrapped around the ring of 8 */
	CHECK_EQ(verbs_wrid_slot(F.posted[9].wr_id), 1);
	CHECK_EQ(qp->common.stats.send_wrs, 10);
	CHECK_EQ(qp->common.stats.doorbells, 2);

	/* an unsignaled RDMA WRITE fails: the error carries its wr_id and opcode */
	setup(wr_api, false, 6, 4);
	w[0] = swr(300, RPCRDMA_PMD_WR_RDMA_WRITE, 0, &s, 1);
	w[1] = swr(301, RPCRDMA_PMD_WR_SEND, 0, &s, 5); /* more SGEs than max_send_sge */
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w, 2), 1);
	w[1] = swr(301, 9, 0, &s, 1); /* unknown opcode */
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w + 1, 1), 0);
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 1);
	push_cqe(F.posted[0].wr_id, IBV_WC_REM_ACCESS_ERR, 12345, IBV_WC_WITH_INV, 1);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 4), 1);
	CHECK_EQ(wc[0].wr_id, 300);
	CHECK_EQ(wc[0].status, RPCRDMA_PMD_WC_REM_ACCESS_ERR);
	CHECK_EQ(wc[0].opcode, RPCRDMA_PMD_WC_RDMA_WRITE);
	CHECK_EQ(wc[0].byte_len, 0);
	CHECK_EQ(wc[0].flags, 0);
	CHECK_EQ(qp->sq_head - qp->sq_tail, 0);

	/* not connected: nothing is taken */
	qp->common.state = RPCRDMA_PMD_QPS_INIT;
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w, 1), 0);
	qp->common.state = RPCRDMA_PMD_QPS_CONNECTING;
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w, 1), 0);
	/* in error: taken, the device flushes them */
	qp->common.state = RPCRDMA_PMD_QPS_ERROR;
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w, 1), 1);
}

/* ibv_wr_complete refuses the batch: nothing was posted, the PMD completes it itself. */
static void test_refused_flush(void)
{
	struct rpcrdma_pmd_sge s = { (uintptr_t)big, 100, 1 };
	struct rpcrdma_pmd_send_wr w[3];
	struct rpcrdma_pmd_wc wc[8];

	setup(true, true, 8, 4);
	w[0] = swr(400, RPCRDMA_PMD_WR_SEND, RPCRDMA_PMD_SEND_SIGNALED, &s, 1);
	w[1] = swr(401, RPCRDMA_PMD_WR_RDMA_READ, 0, &s, 1);
	w[2] = swr(402, RPCRDMA_PMD_WR_SEND, 0, &s, 1);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w, 1), 1);
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 1);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w + 1, 2), 2);
	F.fail_complete = EINVAL;
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 0);
	CHECK_EQ(fatal_queued(), 1);
	CHECK_EQ(qp->fatal_err, -EINVAL);
	CHECK_EQ(qp->common.state, RPCRDMA_PMD_QPS_ERROR);
	CHECK_EQ(qp->common.stats.doorbells, 1);
	CHECK(!qp->batch);
	/* the first SEND completes on the device; the refused two flush after it */
	push_cqe(F.posted[0].wr_id, IBV_WC_SUCCESS, 0, 0, 0);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 3);
	CHECK_EQ(wc[0].wr_id, 400);
	CHECK_EQ(wc[0].status, RPCRDMA_PMD_WC_SUCCESS);
	CHECK_EQ(wc[1].wr_id, 401);
	CHECK_EQ(wc[1].status, RPCRDMA_PMD_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[1].opcode, RPCRDMA_PMD_WC_RDMA_READ);
	CHECK_EQ(wc[2].wr_id, 402);
	CHECK_EQ(wc[2].status, RPCRDMA_PMD_WC_WR_FLUSH_ERR);
	CHECK(wc[2].qp == &qp->common);
	/* a work request queued in error never reaches the device: the PMD flushes it */
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w, 1), 1);
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 1);
	CHECK_EQ(F.nposted, 1);
	CHECK_EQ(F.starts, 2);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 400);
	CHECK_EQ(wc[0].status, RPCRDMA_PMD_WC_WR_FLUSH_ERR);
	CHECK_EQ(qp->sq_head - qp->sq_tail, 0);
}

/*
 * iWARP: a SEND after a signaled READ may complete first. Its completion
 * retires the slots before it but not the READ's, whose own completion
 * later names the READ (not whatever reused its slot); the ring space
 * comes back when it does.
 */
static void test_read_out_of_order(void)
{
	struct rpcrdma_pmd_sge s = { (uintptr_t)big, 100, 1 };
	struct rpcrdma_pmd_send_wr w[4];
	struct rpcrdma_pmd_wc wc[8];

	setup(false, true, 4, 4);
	w[0] = swr(900, RPCRDMA_PMD_WR_SEND, 0, &s, 1);
	w[1] = swr(901, RPCRDMA_PMD_WR_RDMA_READ, RPCRDMA_PMD_SEND_SIGNALED, &s, 1);
	w[2] = swr(902, RPCRDMA_PMD_WR_SEND, 0, &s, 1);
	w[3] = swr(903, RPCRDMA_PMD_WR_SEND, RPCRDMA_PMD_SEND_SIGNALED, &s, 1);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w, 4), 4);
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 4);
	CHECK_EQ(qp->reads_out, 1);
	/* 903 first: 900 and 902 are done with it, 901 is not */
	push_cqe(F.posted[3].wr_id, IBV_WC_SUCCESS, 0, 0, 0);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 903);
	CHECK_EQ(qp->sq_tail, 1); /* 900 retired; the READ holds its slot */
	/* no room: the READ's slot and those after it are not free yet */
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w, 2), 1);
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 1);
	push_cqe(F.posted[1].wr_id, IBV_WC_SUCCESS, 100, 0, 0);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 901);
	CHECK_EQ(wc[0].opcode, RPCRDMA_PMD_WC_RDMA_READ);
	CHECK_EQ(wc[0].byte_len, 100);
	CHECK_EQ(qp->reads_out, 0);
	CHECK_EQ(qp->sq_tail, 4); /* 901, 902, 903 retired together */
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w + 1, 3), 3);
}

/*
 * The error state: receives and sends posted then never reach the device
 * (rxe and siw would never flush them) and complete with WR_FLUSH_ERR after
 * what the device holds, in order.
 */
static void test_error_state(bool wr_api)
{
	struct rpcrdma_pmd_sge s = { (uintptr_t)big, 100, 1 };
	struct rpcrdma_pmd_recv_wr r[4];
	struct rpcrdma_pmd_send_wr w[3];
	struct rpcrdma_pmd_wc wc[8];
	int i;

	setup(wr_api, true, 8, 8);
	for (i = 0; i < 4; i++) {
		r[i].wr_id = 700 + (uint64_t)i;
		r[i].sg_list = &s;
		r[i].num_sge = 1;
	}
	w[0] = swr(800, RPCRDMA_PMD_WR_SEND, 0, &s, 1); /* unsignaled, succeeds silently */
	w[1] = swr(801, RPCRDMA_PMD_WR_SEND, RPCRDMA_PMD_SEND_SIGNALED, &s, 1);
	w[2] = swr(802, RPCRDMA_PMD_WR_RDMA_READ, 0, &s, 1);
	CHECK_EQ(rpcrdma_pmd_post_recv_burst(&qp->common, r, 2), 2);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w, 2), 2);
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 2);
	CHECK_EQ(F.nrecv, 2);
	CHECK_EQ(F.nposted, 2);

	/* the QP breaks: the device fails one receive, then flushes the other */
	push_cqe(F.recv[0].wr_id, IBV_WC_LOC_LEN_ERR, 0, 0, 0);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 1);
	CHECK_EQ(qp->common.state, RPCRDMA_PMD_QPS_ERROR);

	/* posted in the error state: accepted, nothing handed to the device */
	CHECK_EQ(rpcrdma_pmd_post_recv_burst(&qp->common, r + 2, 2), 2);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w + 2, 1), 1);
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 1);
	CHECK_EQ(F.nrecv, 2);
	CHECK_EQ(F.nposted, 2);
	CHECK_EQ(qp->common.stats.recv_wrs, 4);
	CHECK_EQ(qp->common.stats.send_wrs, 3);

	/* the receives wait for the device's; the send waits for 801 */
	push_cqe(F.posted[1].wr_id, IBV_WC_WR_FLUSH_ERR, 0, 0, 0);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 2);
	CHECK_EQ(wc[0].wr_id, 801);
	CHECK_EQ(wc[0].status, RPCRDMA_PMD_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[1].wr_id, 802);
	CHECK_EQ(wc[1].status, RPCRDMA_PMD_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[1].opcode, RPCRDMA_PMD_WC_RDMA_READ);
	push_cqe(F.recv[1].wr_id, IBV_WC_WR_FLUSH_ERR, 0, 0, 0);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 2), 2); /* at most n */
	CHECK_EQ(wc[0].wr_id, 701);
	CHECK_EQ(wc[1].wr_id, 702);
	CHECK_EQ(wc[1].status, RPCRDMA_PMD_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[1].opcode, RPCRDMA_PMD_WC_RECV);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 703);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 0);
	CHECK_EQ(qp->sq_head - qp->sq_tail, 0);
	CHECK_EQ(qp->rq_head - qp->rq_tail, 0);
	CHECK(TAILQ_EMPTY(&cq.sq_flush) && TAILQ_EMPTY(&cq.rq_flush));

	/*
	 * An unsignaled send that succeeded never completes: sends queued in
	 * error wait only until the device has nothing more to report.
	 */
	setup(wr_api, false, 8, 8);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w, 1), 1);
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 1);
	qp->common.state = RPCRDMA_PMD_QPS_ERROR;
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w + 1, 1), 1);
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 1);
	CHECK_EQ(F.nposted, 1);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 801);
	CHECK_EQ(wc[0].status, RPCRDMA_PMD_WC_WR_FLUSH_ERR);
}

/*
 * A device that never flushes what it holds after the PMD moved the QP to
 * error (siw with receives posted after its own flush): the PMD flushes
 * them itself once the grace time has passed, and says so once.
 */
static void test_silent_device(void)
{
	struct rpcrdma_pmd_sge s = { (uintptr_t)big, 100, 1 };
	struct rpcrdma_pmd_recv_wr r[3];
	struct rpcrdma_pmd_send_wr w =
		swr(810, RPCRDMA_PMD_WR_SEND, RPCRDMA_PMD_SEND_SIGNALED, &s, 1);
	struct rpcrdma_pmd_wc wc[8];
	struct timespec ts;
	int i;

	setup(true, true, 8, 8);
	for (i = 0; i < 3; i++) {
		r[i].wr_id = 710 + (uint64_t)i;
		r[i].sg_list = &s;
		r[i].num_sge = 1;
	}
	CHECK_EQ(rpcrdma_pmd_post_recv_burst(&qp->common, r, 3), 3);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, &w, 1), 1);
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 1);
	/* what qp_to_err() does (verbs_ctrl.c) */
	qp->common.state = RPCRDMA_PMD_QPS_ERROR;
	verbs_qp_flush_watch(qp);
	info_calls = 0;
	/* within the grace time the PMD waits for the device */
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 0);
	CHECK_EQ(info_calls, 0);
	/* the grace time is over: the PMD flushes, sends then receives */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	qp->err_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec -
		     VERBS_FLUSH_GRACE_NS - 1000000ull;
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 2), 2);
	CHECK_EQ(wc[0].wr_id, 810);
	CHECK_EQ(wc[0].status, RPCRDMA_PMD_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[1].wr_id, 710);
	CHECK_EQ(wc[1].opcode, RPCRDMA_PMD_WC_RECV);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 2);
	CHECK_EQ(wc[0].wr_id, 711);
	CHECK_EQ(wc[1].wr_id, 712);
	CHECK_EQ(wc[1].status, RPCRDMA_PMD_WC_WR_FLUSH_ERR);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 0);
	CHECK(TAILQ_EMPTY(&cq.sq_flush) && TAILQ_EMPTY(&cq.rq_flush));
	CHECK_EQ(info_calls, 1);
	CHECK(strstr(info_last, "did not flush its sends") != NULL);
	/* the device's own late completion of one of them is dropped as stale */
	push_cqe(F.recv[0].wr_id, IBV_WC_WR_FLUSH_ERR, 0, 0, 0);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 0);
}

/* What qp_to_err() does (verbs_ctrl.c) once the QP is in error. */
static void to_error(void)
{
	qp->common.state = RPCRDMA_PMD_QPS_ERROR;
	verbs_qp_flush_watch(qp);
	verbs_qp_drain_mark(qp);
}

/*
 * The drain marker: once the QP is in error, a signaled zero-length work
 * request closes the send queue; its flush completion retires the sends
 * that succeeded unsignaled (no completion of theirs ever comes) at once,
 * without the grace time, and is not the user's.
 */
static void test_drain_mark(bool wr_api)
{
	struct rpcrdma_pmd_sge s = { (uintptr_t)big, 100, 1 };
	struct rpcrdma_pmd_send_wr w[2];
	struct rpcrdma_pmd_wc wc[8];

	w[0] = swr(820, RPCRDMA_PMD_WR_SEND, RPCRDMA_PMD_SEND_SIGNALED, &s, 1);
	w[1] = swr(821, RPCRDMA_PMD_WR_SEND, 0, &s, 1);

	/* an unsignaled send that succeeded, then the error */
	setup(wr_api, true, 4, 4);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, &w[1], 1), 1);
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 1);
	to_error();
	CHECK_EQ(F.nposted, 2);
	CHECK_EQ(F.posted[1].op, IBV_WR_RDMA_WRITE);
	CHECK_EQ(F.posted[1].nsge, 0);
	CHECK(F.posted[1].flags & IBV_SEND_SIGNALED);
	CHECK_EQ(qp->common.stats.send_wrs, 1); /* not the user's */
	info_calls = 0;
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 0); /* waits for it */
	CHECK_EQ(qp->sq_head - qp->sq_tail, 2);
	push_cqe(F.posted[1].wr_id, IBV_WC_WR_FLUSH_ERR, 0, 0, 0);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 0);
	CHECK_EQ(qp->sq_head - qp->sq_tail, 0);
	CHECK(TAILQ_EMPTY(&cq.sq_flush));
	CHECK_EQ(info_calls, 0);

	/* a signaled send the device flushes before the marker: that one is the user's */
	setup(wr_api, false, 4, 4);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w, 2), 2);
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 2);
	to_error();
	CHECK_EQ(F.nposted, 3);
	push_cqe(F.posted[0].wr_id, IBV_WC_WR_FLUSH_ERR, 0, 0, 0);
	push_cqe(F.posted[1].wr_id, IBV_WC_WR_FLUSH_ERR, 0, 0, 0);
	push_cqe(F.posted[2].wr_id, IBV_WC_WR_FLUSH_ERR, 0, 0, 0);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 2);
	CHECK_EQ(wc[0].wr_id, 820);
	CHECK_EQ(wc[1].wr_id, 821);
	CHECK_EQ(wc[1].status, RPCRDMA_PMD_WC_WR_FLUSH_ERR);
	CHECK_EQ(qp->sq_head - qp->sq_tail, 0);
	CHECK(TAILQ_EMPTY(&cq.sq_flush));

	/* no marker: nothing on the device, or no room for one */
	setup(wr_api, true, 4, 4);
	to_error();
	CHECK_EQ(F.nposted, 0);
	setup(wr_api, true, 2, 4);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, &w[1], 1), 1);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, &w[1], 1), 1);
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 2);
	to_error();
	CHECK_EQ(F.nposted, 2);
	/* ... the grace time then; or the marker lost at its own grace: not the user's */
	setup(wr_api, true, 4, 4);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, &w[1], 1), 1);
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 1);
	to_error();
	CHECK_EQ(F.nposted, 2);
	qp->err_ns -= VERBS_FLUSH_GRACE_NS + 1000000ull;
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 821);
	CHECK_EQ(qp->sq_head - qp->sq_tail, 0);
	CHECK(TAILQ_EMPTY(&cq.sq_flush));
}

/*
 * A device that flushes within the modify to error (siw): no marker; the
 * first drained poll after it flushes what is left, without waiting and
 * without a note (nothing was kept).
 */
static void test_flush_in_modify(void)
{
	struct rpcrdma_pmd_sge s = { (uintptr_t)big, 100, 1 };
	struct rpcrdma_pmd_send_wr w = swr(830, RPCRDMA_PMD_WR_SEND, 0, &s, 1);
	struct rpcrdma_pmd_recv_wr r = { 730, &s, 1 };
	struct rpcrdma_pmd_wc wc[8];

	setup(true, true, 4, 4);
	dev.flush_in_modify = true;
	CHECK_EQ(rpcrdma_pmd_post_recv_burst(&qp->common, &r, 1), 1);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, &w, 1), 1);
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 1);
	to_error();
	CHECK_EQ(F.nposted, 1);
	info_calls = 0;
	/* the receive's flush, in the CQ when the modify returned */
	push_cqe(F.recv[0].wr_id, IBV_WC_WR_FLUSH_ERR, 0, 0, 0);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 2);
	CHECK_EQ(wc[0].wr_id, 730);
	CHECK_EQ(wc[1].wr_id, 830);
	CHECK_EQ(wc[1].status, RPCRDMA_PMD_WC_WR_FLUSH_ERR);
	CHECK_EQ(qp->sq_head - qp->sq_tail, 0);
	CHECK(TAILQ_EMPTY(&cq.sq_flush) && TAILQ_EMPTY(&cq.rq_flush));
	CHECK_EQ(info_calls, 0);
}

/* The ibv_post_send path: staged as a chain, posted by the flush in ring order. */
static void test_post_path(void)
{
	struct rpcrdma_pmd_sge s_small = { (uintptr_t)small, 16, 3 };
	struct rpcrdma_pmd_sge s_big[2] = { { (uintptr_t)big, 1000, 8 },
					    { (uintptr_t)big + 2000, 500, 9 } };
	struct rpcrdma_pmd_send_wr w[6];
	struct rpcrdma_pmd_wc wc[8];
	int i;

	setup(false, true, 4, 4);
	for (i = 0; i < 3; i++)
		w[i] = swr(500 + i, RPCRDMA_PMD_WR_SEND, RPCRDMA_PMD_SEND_SIGNALED, &s_small, 1);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w, 3), 3);
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 3);
	for (i = 0; i < 3; i++)
		push_cqe(F.posted[i].wr_id, IBV_WC_SUCCESS, 0, 0, 0);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 3);
	/* the next batch wraps the ring: slots 3, 0, 1 */
	w[0] = swr(510, RPCRDMA_PMD_WR_SEND_WITH_INV, 0, &s_small, 1);
	w[1] = swr(511, RPCRDMA_PMD_WR_RDMA_WRITE, RPCRDMA_PMD_SEND_SIGNALED, s_big, 2);
	w[2] = swr(512, RPCRDMA_PMD_WR_RDMA_READ, RPCRDMA_PMD_SEND_SIGNALED, s_big, 1);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w, 3), 3);
	CHECK_EQ(F.post_send_calls, 1);	 /* staged only */
	memset(s_big, 0, sizeof(s_big)); /* the SGL was copied when queued */
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 3);
	CHECK_EQ(F.post_send_calls, 2);
	CHECK_EQ(F.doorbells, 2);
	CHECK_EQ(qp->common.stats.doorbells, 2);
	CHECK_EQ(F.nposted, 6);
	CHECK_EQ(verbs_wrid_slot(F.posted[3].wr_id), 3);
	CHECK_EQ(verbs_wrid_slot(F.posted[4].wr_id), 0);
	CHECK_EQ(verbs_wrid_slot(F.posted[5].wr_id), 1);
	CHECK_EQ(F.posted[3].op, IBV_WR_SEND_WITH_INV);
	CHECK_EQ(F.posted[3].inv, 0x1111);
	CHECK(F.posted[3].inl);
	CHECK_EQ(F.posted[3].flags, IBV_SEND_INLINE);
	CHECK_EQ(F.posted[4].op, IBV_WR_RDMA_WRITE);
	CHECK_EQ(F.posted[4].flags, IBV_SEND_SIGNALED);
	CHECK_EQ(F.posted[4].rkey, 0x2222);
	CHECK_EQ(F.posted[4].nsge, 2);
	CHECK_EQ(F.posted[4].sge[1].length, 500);
	CHECK_EQ(F.posted[4].sge[1].lkey, 9);
	CHECK_EQ(F.posted[5].op, IBV_WR_RDMA_READ);

	/* the provider refuses the second of a chain of three */
	for (i = 0; i < 3; i++)
		push_cqe(F.posted[3 + i].wr_id, IBV_WC_SUCCESS, 0, 0, 0);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 3);
	w[0] = swr(520, RPCRDMA_PMD_WR_SEND, 0, &s_small, 1);
	w[1] = swr(521, RPCRDMA_PMD_WR_SEND, 0, &s_small, 1);
	w[2] = swr(522, RPCRDMA_PMD_WR_RDMA_WRITE, 0, &s_small, 1);
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(&qp->common, w, 3), 3);
	F.fail_post_at = 1;
	CHECK_EQ(rpcrdma_pmd_flush(&qp->common), 1);
	CHECK_EQ(fatal_queued(), 1);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 2);
	CHECK_EQ(wc[0].wr_id, 521);
	CHECK_EQ(wc[0].status, RPCRDMA_PMD_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[1].wr_id, 522);
	CHECK_EQ(wc[1].opcode, RPCRDMA_PMD_WC_RDMA_WRITE);
}

/* Receives: a chained post per 32, the user's SGL handed over, completions back. */
static void test_recv(bool cq_ex)
{
	struct rpcrdma_pmd_sge s[2] = { { (uintptr_t)big, 512, 4 },
					{ (uintptr_t)big + 512, 512, 4 } };
	struct rpcrdma_pmd_recv_wr r[40];
	struct rpcrdma_pmd_wc wc[40];
	int i;

	setup(true, cq_ex, 4, 40);
	for (i = 0; i < 40; i++) {
		r[i].wr_id = 1000 + (uint64_t)i;
		r[i].sg_list = s;
		r[i].num_sge = i == 1 ? 2 : 1;
	}
	CHECK_EQ(rpcrdma_pmd_post_recv_burst(&qp->common, r, 40), 40);
	CHECK_EQ(F.post_recv_calls, 2); /* 32 + 8 */
	CHECK_EQ(F.nrecv, 40);
	CHECK_EQ(qp->common.stats.recv_wrs, 40);
	CHECK(verbs_wrid_is_recv(F.recv[0].wr_id));
	CHECK_EQ(verbs_wrid_tag(F.recv[0].wr_id), QP_TAG);
	CHECK_EQ(verbs_wrid_slot(F.recv[39].wr_id), 39);
	CHECK_EQ(F.recv[1].num_sge, 2);
	CHECK(F.recv[1].sg_list == (struct ibv_sge *)s);
	/* the queue is full */
	CHECK_EQ(rpcrdma_pmd_post_recv_burst(&qp->common, r, 1), 0);

	/* a SEND_WITH_INV arrives, then one plain SEND, then an error */
	push_cqe(F.recv[0].wr_id, IBV_WC_SUCCESS, 300, IBV_WC_WITH_INV | IBV_WC_WITH_IMM, 0xfeed);
	push_cqe(F.recv[1].wr_id, IBV_WC_SUCCESS, 700, 0, 0xdead);
	push_cqe(F.recv[2].wr_id, IBV_WC_LOC_LEN_ERR, 5, 0, 0);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 2), 2); /* at most n */
	CHECK_EQ(wc[0].wr_id, 1000);
	CHECK_EQ(wc[0].opcode, RPCRDMA_PMD_WC_RECV);
	CHECK_EQ(wc[0].byte_len, 300);
	CHECK_EQ(wc[0].flags, RPCRDMA_PMD_WC_WITH_INV);
	CHECK_EQ(wc[0].invalidated_rkey, 0xfeed);
	CHECK_EQ(wc[1].wr_id, 1001);
	CHECK_EQ(wc[1].byte_len, 700);
	CHECK_EQ(wc[1].flags, 0);
	CHECK_EQ(wc[1].invalidated_rkey, 0);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 40), 1);
	CHECK_EQ(wc[0].wr_id, 1002);
	CHECK_EQ(wc[0].status, RPCRDMA_PMD_WC_LOC_LEN_ERR);
	CHECK_EQ(wc[0].opcode, RPCRDMA_PMD_WC_RECV);
	CHECK_EQ(wc[0].byte_len, 0);
	/* three slots free */
	CHECK_EQ(rpcrdma_pmd_post_recv_burst(&qp->common, r, 5), 3);

	/* too many SGEs stop the burst; a provider failure mid-chain counts what was posted */
	setup(true, cq_ex, 4, 8);
	r[1].num_sge = 3;
	CHECK_EQ(rpcrdma_pmd_post_recv_burst(&qp->common, r, 4), 1);
	r[1].num_sge = 1;
	F.fail_post_at = 2;
	CHECK_EQ(rpcrdma_pmd_post_recv_burst(&qp->common, r, 5), 2);
	CHECK_EQ(qp->rq_head, 3);
	CHECK_EQ(qp->common.stats.recv_wrs, 3);
}

/* A completion of a destroyed QP (another generation at its index) is dropped. */
static void test_stale(bool cq_ex)
{
	struct rpcrdma_pmd_wc wc[4];

	setup(true, cq_ex, 4, 4);
	push_cqe(verbs_wrid(QP_TAG + (1u << 16), false, 0), IBV_WC_WR_FLUSH_ERR, 0, 0, 0);
	push_cqe(verbs_wrid(3, true, 0), IBV_WC_WR_FLUSH_ERR, 0, 0, 0);	     /* empty index */
	push_cqe(verbs_wrid(0xffff, true, 0), IBV_WC_WR_FLUSH_ERR, 0, 0, 0); /* past the table */
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 4), 0);
	CHECK_EQ(cq.stale, 3);
	CHECK_EQ(cq.common.stats.empty_polls, 1);
	CHECK_EQ(qp->sq_tail, 0);
	CHECK_EQ(qp->rq_tail, 0);
}

/* ibv_poll_cq path: more than one chunk of 32 in one burst. */
static void test_poll_chunks(void)
{
	struct rpcrdma_pmd_sge s = { (uintptr_t)big, 8, 1 };
	struct rpcrdma_pmd_recv_wr r[64];
	struct rpcrdma_pmd_wc wc[64];
	int i;

	setup(true, false, 4, 64);
	for (i = 0; i < 64; i++) {
		r[i].wr_id = (uint64_t)i;
		r[i].sg_list = &s;
		r[i].num_sge = 1;
	}
	CHECK_EQ(rpcrdma_pmd_post_recv_burst(&qp->common, r, 64), 64);
	for (i = 0; i < 50; i++)
		push_cqe(F.recv[i].wr_id, IBV_WC_SUCCESS, (uint32_t)i, 0, 0);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 64), 50);
	CHECK_EQ(F.polls, 2); /* 32, then 18 < 32: stop */
	for (i = 0; i < 50; i++)
		CHECK_EQ(wc[i].wr_id, (uint64_t)i);
	CHECK_EQ(wc[49].byte_len, 49);
	CHECK_EQ(qp->rq_tail, 50);
}

/*
 * An SRQ beside a QP's own queue: its receives carry the SRQ's tag and a
 * free slot; they complete in any order, each naming the QP of the
 * completion's QP number (the QP-number table, grown and shrunk); one of a
 * QP destroyed since, a slot completed twice, or an SRQ of another
 * generation is dropped; the QP's own receives are untouched.
 */
#define SRQ_TAG	   (2u << 16 | 1u) /* generation 2, index 1 */
#define SRQ_NDUMMY 40

static void test_srq(bool cq_ex)
{
	struct rpcrdma_pmd_sge s[3] = { { (uintptr_t)big, 64, 4 },
					{ (uintptr_t)big + 64, 64, 4 },
					{ (uintptr_t)big + 128, 64, 4 } };
	static struct verbs_qp dummy[SRQ_NDUMMY];
	struct verbs_srq *srqs[2] = { NULL, NULL };
	struct rpcrdma_pmd_recv_wr r[10];
	struct rpcrdma_pmd_wc wc[8];
	struct ibv_srq fake_srq;
	struct verbs_srq *srq;
	struct verbs_qp *qp2;
	int i;

	setup(true, cq_ex, 4, 4);
	memset(&fake_srq, 0, sizeof(fake_srq));
	fake_srq.context = &F.ctx;
	srq = aligned_alloc(64, sizeof(*srq));
	memset(srq, 0, sizeof(*srq));
	srq->dev = &dev;
	srq->srq = &fake_srq;
	srq->tag = SRQ_TAG;
	srq->common.max_wr = 8;
	srq->common.max_sge = 2;
	srq->wr_ids = calloc(8, sizeof(*srq->wr_ids));
	srq->busy = calloc(8, sizeof(*srq->busy));
	srq->free = calloc(8, sizeof(*srq->free));
	for (i = 0; i < 8; i++)
		srq->free[i] = (uint32_t)(7 - i);
	srq->nb_free = 8;
	verbs_srq_set_fast_path(srq);
	srqs[1] = srq;
	dev.srqs = srqs;
	dev.srq_cap = 2;

	/* two QPs on it, and enough others to grow the QP-number table twice */
	qp->common.qp_num = 0x99;
	qp2 = aligned_alloc(64, sizeof(*qp2));
	memset(qp2, 0, sizeof(*qp2));
	qp2->common.qp_num = 0x42;
	CHECK_EQ(verbs_qpn_add(&dev, qp), 0);
	CHECK_EQ(verbs_qpn_add(&dev, qp2), 0);
	for (i = 0; i < SRQ_NDUMMY; i++) {
		dummy[i].common.qp_num = 0x1000 + (uint32_t)i * 64;
		CHECK_EQ(verbs_qpn_add(&dev, &dummy[i]), 0);
	}
	CHECK_EQ(dev.qpn_used, SRQ_NDUMMY + 2);
	CHECK(dev.qpn_mask + 1 >= 2 * dev.qpn_used);
	for (i = 0; i < SRQ_NDUMMY; i += 2)
		verbs_qpn_del(&dev, &dummy[i]);
	CHECK_EQ(dev.qpn_used, SRQ_NDUMMY / 2 + 2);
	CHECK(verbs_qpn_find(&dev, 0x99) == qp && verbs_qpn_find(&dev, 0x42) == qp2);
	CHECK(verbs_qpn_find(&dev, 0x1000) == NULL);
	for (i = 1; i < SRQ_NDUMMY; i += 2)
		CHECK(verbs_qpn_find(&dev, 0x1000 + (uint32_t)i * 64) == &dummy[i]);

	for (i = 0; i < 10; i++) {
		r[i].wr_id = 500 + (uint64_t)i;
		r[i].sg_list = s;
		r[i].num_sge = 1;
	}
	/* more SGEs than max_sge stop the burst */
	r[2].num_sge = 3;
	CHECK_EQ(rpcrdma_pmd_srq_post_recv_burst(&srq->common, r, 10), 2);
	r[2].num_sge = 2;
	CHECK_EQ(rpcrdma_pmd_srq_post_recv_burst(&srq->common, r + 2, 8), 6); /* full at 8 */
	CHECK_EQ(rpcrdma_pmd_srq_post_recv_burst(&srq->common, r, 1), 0);
	CHECK_EQ(srq->common.recv_wrs, 8);
	CHECK_EQ(F.post_srq_calls, 2);
	CHECK_EQ(F.post_recv_calls, 0);
	CHECK_EQ(F.nrecv, 8);
	for (i = 0; i < 8; i++) {
		CHECK(verbs_wrid_is_srq(F.recv[i].wr_id));
		CHECK_EQ(verbs_wrid_tag(F.recv[i].wr_id), SRQ_TAG);
	}
	CHECK_EQ(F.recv[2].num_sge, 2);

	/* out of order, on two QPs; one of a QP gone; one in error */
	push_cqe(F.recv[3].wr_id, IBV_WC_SUCCESS, 30, 0, 0);
	F.cqe[(F.cq_head - 1) % FAKE_MAX].qp_num = 0x42;
	push_cqe(F.recv[0].wr_id, IBV_WC_SUCCESS, 10, IBV_WC_WITH_INV, 0xab);
	push_cqe(F.recv[5].wr_id, IBV_WC_SUCCESS, 50, 0, 0);
	F.cqe[(F.cq_head - 1) % FAKE_MAX].qp_num = 0x1000; /* deleted above */
	push_cqe(F.recv[1].wr_id, IBV_WC_LOC_LEN_ERR, 0, 0, 0);
	F.cqe[(F.cq_head - 1) % FAKE_MAX].qp_num = 0x42;
	push_cqe(F.recv[3].wr_id, IBV_WC_SUCCESS, 30, 0, 0); /* twice: dropped */
	push_cqe(verbs_wrid(SRQ_TAG + (1u << 16), true, VERBS_WRID_SRQ | 4), IBV_WC_SUCCESS, 0, 0,
		 0); /* an SRQ of another generation */
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 3);
	CHECK_EQ(wc[0].wr_id, 503);
	CHECK(wc[0].qp == &qp2->common && wc[0].qp_num == 0x42);
	CHECK_EQ(wc[0].opcode, RPCRDMA_PMD_WC_RECV);
	CHECK_EQ(wc[0].byte_len, 30);
	CHECK_EQ(wc[1].wr_id, 500);
	CHECK(wc[1].qp == &qp->common && wc[1].qp_num == 0x99);
	CHECK_EQ(wc[1].flags, RPCRDMA_PMD_WC_WITH_INV);
	CHECK_EQ(wc[1].invalidated_rkey, 0xab);
	CHECK_EQ(wc[2].wr_id, 501);
	CHECK(wc[2].qp == &qp2->common);
	CHECK_EQ(wc[2].status, RPCRDMA_PMD_WC_LOC_LEN_ERR);
	CHECK_EQ(qp2->common.state, RPCRDMA_PMD_QPS_ERROR);
	CHECK(qp->common.state != RPCRDMA_PMD_QPS_ERROR);
	CHECK_EQ(cq.stale, 3);
	/* four slots back (one of them the lost QP's), the others still posted */
	CHECK_EQ(srq->nb_free, 4);
	CHECK_EQ(rpcrdma_pmd_srq_post_recv_burst(&srq->common, r, 6), 4);
	/* the QP's own receive queue works beside it */
	CHECK_EQ(rpcrdma_pmd_post_recv_burst(&qp->common, r + 9, 1), 1);
	CHECK_EQ(F.post_recv_calls, 1);
	push_cqe(F.recv[F.nrecv - 1].wr_id, IBV_WC_SUCCESS, 9, 0, 0);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(&cq.common, wc, 8), 1);
	CHECK(wc[0].wr_id == 509 && wc[0].qp == &qp->common && wc[0].byte_len == 9);

	verbs_qpn_del(&dev, qp2);
	CHECK(verbs_qpn_find(&dev, 0x42) == NULL && verbs_qpn_find(&dev, 0x99) == qp);
	free(dev.qpn_tab);
	dev.qpn_tab = NULL;
	dev.qpn_mask = 0;
	dev.qpn_used = 0;
	dev.srqs = NULL;
	dev.srq_cap = 0;
	free(srq->wr_ids);
	free(srq->busy);
	free(srq->free);
	free(srq);
	free(qp2);
}

int main(void)
{
	test_wr_batch(true);
	test_wr_batch(false);
	test_sq_space(true);
	test_sq_space(false);
	test_refused_flush();
	test_read_out_of_order();
	test_error_state(true);
	test_error_state(false);
	test_silent_device();
	test_drain_mark(true);
	test_drain_mark(false);
	test_flush_in_modify();
	test_post_path();
	test_recv(true);
	test_recv(false);
	test_stale(true);
	test_stale(false);
	test_poll_chunks();
	test_srq(true);
	test_srq(false);
	return test_summary("verbs_fp");
}

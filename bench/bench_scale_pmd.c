/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_scale_pmd: the scale benchmark's shape with the PMD alone
 * (bench_scale_shim.h, "The PMD alone"). Each end has one CQ and one SRQ
 * for its N QPs, as a poll group has; the client keeps @inflight SENDs of
 * 64 bytes out, each on the next QP in turn, and sends the next when the
 * echo of one comes back; the server lcore answers each message with a
 * SEND of 64 bytes on the QP it came in on. What the rate loses from 1 QP
 * to N is what the shm PMD loses, without the engine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include <rpcrdma/rpcrdma_pmd.h>

#include "bench_pmd_shim.h"
#include "bench_responder.h"
#include "bench_scale_shim.h"

#define MSG	 64u  /* each message's bytes, both ways */
#define RECV_LEN 256u /* each receive's buffer */
#define BURST	 32u

struct pmd_end {
	struct rpcrdma_pmd_dev *dev;
	struct rpcrdma_pmd_pd *pd;
	struct rpcrdma_pmd_cq *cq; /* sends and receives of every QP */
	struct rpcrdma_pmd_srq *srq;
	struct rpcrdma_pmd_mr *mr;
	uint8_t *mem; /* the receives' buffers, then the message sent */
	uint32_t nrecv;
	struct rpcrdma_pmd_qp **qp;
	uint32_t n;
	uint32_t bad;
};

struct bench_scale_pmd {
	uint32_t qps, inflight;
	unsigned int lcore;
	bool launched;
	struct rpcrdma_pmd_listener *listener;
	volatile int stop __attribute__((aligned(64)));
	struct pmd_end srv __attribute__((aligned(64)));
	struct pmd_end cli __attribute__((aligned(64)));
	uint32_t next, out, done, want, sent;
};

/* Post the receives of @p n completions again (their wr_id: the buffer's index). */
static void repost(struct pmd_end *e, const uint64_t *ids, unsigned int n)
{
	struct rpcrdma_pmd_recv_wr rw[BURST];
	struct rpcrdma_pmd_sge sge[BURST];

	for (unsigned int i = 0; i < n; i++) {
		sge[i].addr = (uintptr_t)e->mem + ids[i] * RECV_LEN;
		sge[i].length = RECV_LEN;
		sge[i].lkey = e->mr->lkey;
		rw[i].wr_id = ids[i];
		rw[i].sg_list = &sge[i];
		rw[i].num_sge = 1;
	}
	if (n != 0 && rpcrdma_pmd_srq_post_recv_burst(e->srq, rw, (uint16_t)n) != n)
		e->bad++;
}

/* A SEND of MSG bytes on @p qp, its doorbell rung. */
static int send_one(struct pmd_end *e, struct rpcrdma_pmd_qp *qp)
{
	struct rpcrdma_pmd_sge sge = {
		.addr = (uintptr_t)e->mem + (uint64_t)e->nrecv * RECV_LEN,
		.length = MSG,
		.lkey = e->mr->lkey,
	};
	struct rpcrdma_pmd_send_wr wr = {
		.wr_id = UINT64_MAX,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = RPCRDMA_PMD_WR_SEND,
		.flags = RPCRDMA_PMD_SEND_SIGNALED,
	};

	if (rpcrdma_pmd_queue_send_burst(qp, &wr, 1) != 1)
		return -1;
	rpcrdma_pmd_flush(qp);
	return 0;
}

/*
 * One poll of an end: reposts the receives that completed; on the server
 * answers each, on the client counts it and sends the next call.
 */
static int end_poll(struct bench_scale_pmd *b, struct pmd_end *e, bool server)
{
	struct rpcrdma_pmd_wc wc[BURST];
	uint64_t ids[BURST];
	unsigned int nr = 0;
	uint16_t n = rpcrdma_pmd_poll_cq_burst(e->cq, wc, BURST);

	for (uint16_t i = 0; i < n; i++) {
		if (wc[i].status != RPCRDMA_PMD_WC_SUCCESS) {
			e->bad++;
			continue;
		}
		if (wc[i].opcode != RPCRDMA_PMD_WC_RECV)
			continue; /* a SEND done: its buffer is constant */
		ids[nr++] = wc[i].wr_id;
		if (server) {
			if (send_one(e, wc[i].qp) != 0)
				e->bad++;
			continue;
		}
		b->out--;
		b->done++;
		if (b->sent < b->want) {
			struct rpcrdma_pmd_qp *qp = e->qp[b->next];

			b->next = b->next + 1 == e->n ? 0 : b->next + 1;
			if (send_one(e, qp) != 0) {
				e->bad++;
				continue;
			}
			b->out++;
			b->sent++;
		}
	}
	repost(e, ids, nr);
	return n;
}

static int echo(void *arg)
{
	struct bench_scale_pmd *b = arg;

	while (!b->stop)
		end_poll(b, &b->srv, true);
	return 0;
}

/* ---------------- set-up ---------------- */

static int end_open(struct pmd_end *e, uint32_t qps, uint32_t send_wr, uint32_t inflight)
{
	struct rpcrdma_pmd_srq_attr sa;
	size_t len;
	int ret;

	e->nrecv = inflight + 64;
	len = (size_t)(e->nrecv + 1) * RECV_LEN;
	e->qp = calloc(qps, sizeof(*e->qp));
	e->mem = rte_zmalloc("bench_scale_pmd", len, 4096);
	if (e->qp == NULL || e->mem == NULL)
		return -ENOMEM;
	ret = rpcrdma_pmd_dev_open("shm", NULL, &e->dev);
	if (ret == 0)
		ret = rpcrdma_pmd_pd_alloc(e->dev, &e->pd);
	if (ret == 0)
		ret = rpcrdma_pmd_cq_create(e->dev, qps * send_wr + e->nrecv + 64, &e->cq);
	if (ret == 0)
		ret = rpcrdma_pmd_mr_reg(e->pd, e->mem, len, RPCRDMA_PMD_ACCESS_LOCAL_WRITE, -1, 0,
					 &e->mr);
	if (ret)
		return ret;
	rpcrdma_pmd_srq_attr_init(&sa);
	sa.max_wr = e->nrecv;
	sa.max_sge = 1;
	ret = rpcrdma_pmd_srq_create(e->pd, &sa, &e->srq);
	for (uint64_t i = 0; ret == 0 && i < e->nrecv; i++)
		repost(e, &i, 1);
	memset(e->mem + (size_t)e->nrecv * RECV_LEN, 0x5a, MSG);
	return ret != 0 ? ret : e->bad != 0 ? -EIO : 0;
}

static int qp_new(struct pmd_end *e, uint32_t send_wr, struct rpcrdma_pmd_qp **qp)
{
	struct rpcrdma_pmd_qp_attr qa;

	rpcrdma_pmd_qp_attr_init(&qa);
	qa.send_cq = qa.recv_cq = e->cq;
	qa.srq = e->srq;
	qa.max_send_wr = send_wr;
	qa.max_send_sge = 1;
	qa.rnr_retry = 7;
	return rpcrdma_pmd_qp_create(e->pd, &qa, qp);
}

static void end_close(struct pmd_end *e, uint32_t *bad)
{
	for (uint32_t i = 0; e->qp != NULL && i < e->n; i++)
		*bad += rpcrdma_pmd_qp_destroy(e->qp[i]) != 0;
	if (e->srq != NULL)
		*bad += rpcrdma_pmd_srq_destroy(e->srq) != 0;
	if (e->mr != NULL)
		*bad += rpcrdma_pmd_mr_dereg(e->mr) != 0;
	if (e->cq != NULL)
		*bad += rpcrdma_pmd_cq_destroy(e->cq) != 0;
	if (e->pd != NULL)
		*bad += rpcrdma_pmd_pd_free(e->pd) != 0;
	if (e->dev != NULL)
		*bad += rpcrdma_pmd_dev_close(e->dev) != 0;
	*bad += e->bad;
	free(e->qp);
	rte_free(e->mem);
	memset(e, 0, sizeof(*e));
}

/* Both devices' events: the server accepts each request on a QP of its own. */
static void pump(struct bench_scale_pmd *b, uint32_t send_wr, uint32_t *up)
{
	struct rpcrdma_pmd_event ev[16];
	int n, i;

	n = rpcrdma_pmd_event_poll(b->srv.dev, ev, 16);
	for (i = 0; i < n; i++) {
		if (ev[i].type == RPCRDMA_PMD_EVENT_CONNECT_REQUEST) {
			if (b->srv.n == b->qps ||
			    qp_new(&b->srv, send_wr, &b->srv.qp[b->srv.n]) != 0 ||
			    rpcrdma_pmd_accept(ev[i].req, b->srv.qp[b->srv.n], NULL, 0) != 0)
				b->srv.bad++;
			else
				b->srv.n++;
		} else if (ev[i].type == RPCRDMA_PMD_EVENT_ESTABLISHED) {
			up[0]++;
		}
	}
	n = rpcrdma_pmd_event_poll(b->cli.dev, ev, 16);
	for (i = 0; i < n; i++)
		if (ev[i].type == RPCRDMA_PMD_EVENT_ESTABLISHED)
			up[1]++;
}

struct bench_scale_pmd *bench_scale_pmd_start(uint32_t qps, uint32_t inflight)
{
	static unsigned int instances;
	struct bench_scale_pmd *b = rte_zmalloc("bench_scale_pmd", sizeof(*b), 64);
	/* room for every call on one QP, and for a few per QP with many */
	uint32_t send_wr = 2 * ((inflight + qps - 1) / qps) + 4;
	uint32_t up[2] = { 0, 0 };
	uint64_t end;
	char addr[64];
	int ret;

	if (b == NULL)
		return NULL;
	b->qps = qps;
	b->inflight = inflight;
	b->lcore = bench_responder_lcore();
	if (b->lcore >= RTE_MAX_LCORE) {
		fprintf(stderr, "bench_scale_pmd: needs two lcores\n");
		goto err;
	}
	ret = end_open(&b->srv, qps, send_wr, inflight);
	if (ret == 0)
		ret = end_open(&b->cli, qps, send_wr, inflight);
	snprintf(addr, sizeof(addr), "@rpcrdma-bench-scale-pmd-%d-%u", getpid(), instances++);
	if (ret == 0)
		ret = rpcrdma_pmd_listen(b->srv.dev, addr, &b->listener);
	for (uint32_t i = 0; ret == 0 && i < qps; i++) {
		ret = qp_new(&b->cli, send_wr, &b->cli.qp[i]);
		if (ret == 0) {
			b->cli.n++;
			ret = rpcrdma_pmd_connect(b->cli.qp[i], addr, NULL, 0);
		}
		if ((i + 1) % 64 == 0)
			for (int k = 0; k < 200; k++)
				pump(b, send_wr, up);
	}
	end = rte_get_tsc_cycles() + 30 * rte_get_tsc_hz();
	while (ret == 0 && (up[0] < qps || up[1] < qps) && rte_get_tsc_cycles() < end)
		pump(b, send_wr, up);
	if (ret == 0 && (up[0] < qps || up[1] < qps || b->srv.bad != 0))
		ret = -ETIMEDOUT;
	if (ret) {
		fprintf(stderr, "bench_scale_pmd: set-up: %s\n", strerror(ret < 0 ? -ret : ret));
		goto err;
	}
	return b;
err:
	bench_scale_pmd_stop(b);
	return NULL;
}

int bench_scale_pmd_resume(struct bench_scale_pmd *b)
{
	return bench_responder_launch(echo, b, b->lcore, &b->launched);
}

void bench_scale_pmd_pause(struct bench_scale_pmd *b)
{
	bench_responder_park(b->lcore, &b->launched, &b->stop);
}

int bench_scale_pmd_run(struct bench_scale_pmd *b, uint32_t n)
{
	uint64_t hang = BENCH_HANG_S * rte_get_tsc_hz(), guard = rte_rdtsc() + hang;

	b->done = 0;
	b->want = b->sent + n;
	for (uint32_t i = 0; i < b->inflight && b->sent < b->want; i++) {
		struct rpcrdma_pmd_qp *qp = b->cli.qp[b->next];

		b->next = b->next + 1 == b->cli.n ? 0 : b->next + 1;
		if (send_one(&b->cli, qp) != 0)
			return -1;
		b->out++;
		b->sent++;
	}
	while (b->done < n || b->out) {
		if (end_poll(b, &b->cli, false) != 0)
			guard = rte_rdtsc() + hang;
		else if (rte_rdtsc() > guard)
			return -1;
	}
	return b->cli.bad || b->srv.bad ? -1 : 0;
}

int bench_scale_pmd_stop(struct bench_scale_pmd *b)
{
	uint32_t bad = 0;

	if (b == NULL)
		return -1;
	bench_responder_park(b->lcore, &b->launched, &b->stop);
	/* the listener first: a device with one open refuses to close */
	if (b->listener != NULL)
		rpcrdma_pmd_listener_close(b->listener);
	end_close(&b->cli, &bad);
	end_close(&b->srv, &bad);
	if (bad)
		fprintf(stderr, "bench_scale_pmd: %u errors\n", bad);
	rte_free(b);
	return bad ? -1 : 0;
}

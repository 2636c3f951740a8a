/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_pmd shim: the C side of the PMD benchmarks (bench_pmd_shim.h).
 *
 * The client endpoint runs on the calling (main) lcore and is what is timed;
 * the server endpoint's responder loop runs on the next lcore until stopped.
 * Both endpoints are shm devices of this process connected through an
 * abstract UNIX socket, with their own registered pools.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include <rpcrdma/rpcrdma_capture.h>
#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_stamp.h>

#include "bench_pmd_shim.h"
#include "bench_responder.h"
#include "test_side.h"

#define MSG_LEN	     64
#define RQ_DEPTH     256
#define BATCH	     32
#define BATCHES_IN   4
#define MIB	     (1u << 20)
#define SIGNAL_EVERY 16

struct bench_ep {
	struct rpcrdma_pmd_dev *dev;
	struct rpcrdma_pmd_pd *pd;
	struct rpcrdma_pmd_cq *cq;
	struct rpcrdma_pmd_qp *qp;
	struct rpcrdma_mempool_set *set;
	void *recv_bufs[RQ_DEPTH];
	void *msg;	/* inline buffer sent */
	uint8_t *chunk; /* 1 MiB chunk: WRITE target / source */
	uint64_t sends; /* for SIGNAL_EVERY */
};

struct raw_line {
	volatile uint64_t v;
} __attribute__((aligned(64)));

/*
 * What each side writes sits on its own cache lines: the responder polls
 * @stop on every loop, and a client write next to it would add a transfer
 * to every round trip.
 */
struct bench_pmd {
	/* set-up, then read-only */
	enum bench_pmd_mode mode;
	unsigned int id; /* names of its pools and address */
	struct rpcrdma_pmd_listener *listener;
	unsigned int lcore;
	bool launched;
	struct raw_line *line;
	/* written once, at the end */
	volatile int stop __attribute__((aligned(64)));
	/* written by the responder */
	int resp_err __attribute__((aligned(64)));
	struct bench_ep srv __attribute__((aligned(64)));
	/* written by the client */
	struct bench_ep cli __attribute__((aligned(64)));
	uint64_t seq;
	unsigned int batches_out;
	struct rpcrdma_pmd_wc pending[BATCH]; /* SEND ping-pong: receives to repost */
	unsigned int nb_pending;
	struct rpcrdma_capture *cap; /* COPY under capture */
	char cap_path[256];
};

static void bench_log(const char *msg, int err)
{
	fprintf(stderr, "bench_pmd: %s: %s\n", msg, strerror(err < 0 ? -err : err));
}

int bench_pmd_eal_init(const char *prog)
{
	return rpcrdma_mempool_eal_init(prog, NULL);
}

struct bench_rtt_tsc bench_last_rtt;

const char *const bench_phase_names[BENCH_PH_MAX] = {
	[BENCH_PH_CLIENT_SEND] = "client_send", [BENCH_PH_TO_SERVER] = "to_server",
	[BENCH_PH_SERVER] = "server",		[BENCH_PH_TO_CLIENT] = "to_client",
	[BENCH_PH_CLIENT_RECV] = "client_recv",
};

int bench_stamps_enabled(void)
{
	return rpcrdma_stamps_enabled();
}

int bench_rtt_phases(double ph[BENCH_PH_MAX])
{
	unsigned int cl = rte_lcore_id(), sl = bench_responder_lcore();
	uint64_t t[BENCH_PH_MAX + 1];
	int i;

	if (!rpcrdma_stamps_enabled())
		return 0;
	t[0] = bench_last_rtt.t0;
	t[1] = rpcrdma_stamp_get(cl, RPCRDMA_STAMP_DOORBELL);
	t[2] = rpcrdma_stamp_get(sl, RPCRDMA_STAMP_RECV);
	t[3] = rpcrdma_stamp_get(sl, RPCRDMA_STAMP_DOORBELL);
	t[4] = rpcrdma_stamp_get(cl, RPCRDMA_STAMP_RECV);
	t[5] = bench_last_rtt.t1;
	/* in order, or a stamp is from another round trip (a repost, a send completion) */
	for (i = 0; i < BENCH_PH_MAX; i++)
		if (t[i + 1] < t[i])
			return 0;
	for (i = 0; i < BENCH_PH_MAX; i++)
		ph[i] += (double)(t[i + 1] - t[i]);
	return 1;
}

int bench_pmd_capture_start(struct bench_pmd *b, int bytewise)
{
	struct rpcrdma_capture_params p;
	const char *dir = getenv("TMPDIR");
	int ret;

	if (b->cap != NULL && bench_pmd_capture_stop(b, NULL, NULL) != 0)
		return -1;
	snprintf(b->cap_path, sizeof(b->cap_path), "%s/bench_pmd_capture.%d.pcapng",
		 dir != NULL && *dir ? dir : "/tmp", (int)getpid());
	rpcrdma_capture_params_init(&p);
	if (bytewise)
		p.crc32 = rpcrdma_roce_crc32;
	ret = rpcrdma_capture_open(b->cap_path, &p, &b->cap);
	if (ret < 0) {
		bench_log("rpcrdma_capture_open", ret);
		b->cap = NULL;
		return -1;
	}
	ret = rpcrdma_capture_qp(b->cap, b->cli.qp, b->srv.qp);
	if (ret < 0) {
		bench_log("rpcrdma_capture_qp", ret);
		bench_pmd_capture_stop(b, NULL, NULL);
		return -1;
	}
	return 0;
}

int bench_pmd_capture_stop(struct bench_pmd *b, uint64_t *frames, uint64_t *drops)
{
	struct rpcrdma_capture_stats st;
	int ret;

	if (b->cap == NULL)
		return -1;
	rpcrdma_capture_flush(b->cap);
	rpcrdma_capture_stats(b->cap, &st);
	ret = rpcrdma_capture_close(b->cap);
	b->cap = NULL;
	unlink(b->cap_path);
	if (ret < 0)
		bench_log("rpcrdma_capture_close", ret);
	if (frames != NULL)
		*frames = st.frames;
	if (drops != NULL)
		*drops = st.drops;
	return ret < 0 ? -1 : 0;
}

double bench_pmd_ns_per_cycle(void)
{
	return 1e9 / (double)rte_get_tsc_hz();
}

static int ep_open(struct bench_ep *ep, const char *name, uint32_t qp_flags)
{
	const struct test_side_pools p = { name, 1024, 4, 2, 32, false };
	struct rpcrdma_pmd_qp_attr attr;
	int ret;

	ret = test_side_open(NULL, &p, &ep->dev, &ep->pd, &ep->set);
	if (ret < 0)
		return ret;
	ret = rpcrdma_pmd_cq_create(ep->dev, 4096, &ep->cq);
	if (ret < 0)
		return ret;
	rpcrdma_pmd_qp_attr_init(&attr);
	attr.send_cq = ep->cq;
	attr.recv_cq = ep->cq;
	attr.max_send_wr = BATCH * BATCHES_IN * 2;
	attr.max_recv_wr = RQ_DEPTH;
	attr.max_send_sge = 1;
	attr.max_recv_sge = 1;
	attr.rnr_retry = 7;
	attr.rnr_timer_us = 0;
	attr.flags = qp_flags;
	ret = rpcrdma_pmd_qp_create(ep->pd, &attr, &ep->qp);
	if (ret < 0)
		return ret;
	ep->msg = rpcrdma_mempool_get(ep->set->inline_pool);
	ep->chunk = rpcrdma_mempool_get(ep->set->chunk[1]);
	if (ep->msg == NULL || ep->chunk == NULL)
		return -ENOMEM;
	memset(ep->msg, 0x11, MSG_LEN);
	memset(ep->chunk, 0, MIB);
	return 0;
}

static void ep_close(struct bench_ep *ep, int *bad)
{
	unsigned int i;

	if (ep->qp != NULL)
		rpcrdma_pmd_qp_destroy(ep->qp);
	for (i = 0; i < RQ_DEPTH; i++)
		if (ep->recv_bufs[i] != NULL)
			rpcrdma_mempool_put(ep->set->inline_pool, ep->recv_bufs[i]);
	if (ep->msg != NULL)
		rpcrdma_mempool_put(ep->set->inline_pool, ep->msg);
	if (ep->chunk != NULL)
		rpcrdma_mempool_put(ep->set->chunk[1], ep->chunk);
	if (ep->cq != NULL)
		rpcrdma_pmd_cq_destroy(ep->cq);
	if (test_side_close(&ep->dev, &ep->pd, &ep->set) != 0)
		*bad = 1;
}

/* Post every receive buffer; their wr_id is the slot in recv_bufs. */
static int ep_post_all(struct bench_ep *ep)
{
	struct rpcrdma_pmd_recv_wr wr;
	struct rpcrdma_pmd_sge sge;
	unsigned int i;

	for (i = 0; i < RQ_DEPTH; i++) {
		ep->recv_bufs[i] = rpcrdma_mempool_get(ep->set->inline_pool);
		if (ep->recv_bufs[i] == NULL)
			return -ENOMEM;
		sge.addr = (uintptr_t)ep->recv_bufs[i];
		sge.length = MSG_LEN;
		sge.lkey = ep->set->inline_pool->lkey;
		wr.wr_id = i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		if (rpcrdma_pmd_post_recv_burst(ep->qp, &wr, 1) != 1)
			return -ENOSPC;
	}
	return 0;
}

static inline void repost(struct bench_ep *ep, const struct rpcrdma_pmd_wc *wc, unsigned int n)
{
	struct rpcrdma_pmd_recv_wr wr[BATCH];
	struct rpcrdma_pmd_sge sge[BATCH];
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		if (wc[i].opcode != RPCRDMA_PMD_WC_RECV)
			continue;
		sge[k].addr = (uintptr_t)ep->recv_bufs[wc[i].wr_id];
		sge[k].length = MSG_LEN;
		sge[k].lkey = ep->set->inline_pool->lkey;
		wr[k].wr_id = wc[i].wr_id;
		wr[k].sg_list = &sge[k];
		wr[k].num_sge = 1;
		k++;
	}
	if (k != 0)
		rpcrdma_pmd_post_recv_burst(ep->qp, wr, (uint16_t)k);
}

static inline void queue_send(struct bench_ep *ep)
{
	struct rpcrdma_pmd_sge sge = { (uintptr_t)ep->msg, MSG_LEN, ep->set->inline_pool->lkey };
	struct rpcrdma_pmd_send_wr wr = {
		.wr_id = ep->sends, .sg_list = &sge, .num_sge = 1, .opcode = RPCRDMA_PMD_WR_SEND
	};

	if (++ep->sends % SIGNAL_EVERY == 0)
		wr.flags = RPCRDMA_PMD_SEND_SIGNALED;
	rpcrdma_pmd_queue_send_burst(ep->qp, &wr, 1);
}

static inline void queue_write(struct bench_ep *ep, uint64_t raddr, uint32_t rkey, void *src,
			       uint32_t len, uint32_t lkey, bool signaled)
{
	struct rpcrdma_pmd_sge sge = { (uintptr_t)src, len, lkey };
	struct rpcrdma_pmd_send_wr wr = { .wr_id = ep->sends,
					  .sg_list = &sge,
					  .num_sge = 1,
					  .opcode = RPCRDMA_PMD_WR_RDMA_WRITE,
					  .remote_addr = raddr,
					  .rkey = rkey };

	if (signaled || ++ep->sends % SIGNAL_EVERY == 0)
		wr.flags = RPCRDMA_PMD_SEND_SIGNALED;
	rpcrdma_pmd_queue_send_burst(ep->qp, &wr, 1);
}

/* ---------------- responder loops (server lcore) ---------------- */

static int respond(void *arg)
{
	struct bench_pmd *b = arg;
	struct bench_ep *ep = &b->srv;
	struct rpcrdma_pmd_wc wc[BATCH];
	volatile uint64_t *flag = (volatile uint64_t *)(ep->chunk + MSG_LEN - 8);
	uint64_t last = 0;
	uint16_t n, i;

	while (!b->stop) {
		switch (b->mode) {
		case BENCH_PMD_RAW:
			if ((b->line->v & 1) != 0)
				b->line->v = b->line->v + 1;
			break;
		case BENCH_PMD_SEND:
		case BENCH_PMD_ECHO:
			n = rpcrdma_pmd_poll_cq_burst(ep->cq, wc, BATCH);
			if (n == 0)
				break;
			for (i = 0; i < n; i++) {
				if (wc[i].status != RPCRDMA_PMD_WC_SUCCESS)
					b->resp_err = 1;
				if (wc[i].opcode != RPCRDMA_PMD_WC_RECV)
					continue;
				/* the Send copies at the doorbell below: the buffer is free again after it */
				if (b->mode == BENCH_PMD_ECHO)
					*(uint64_t *)ep->msg =
						*(const uint64_t *)ep->recv_bufs[wc[i].wr_id];
				queue_send(ep);
			}
			rpcrdma_pmd_flush(ep->qp);
			/* reply first, repost after: the repost is off the round trip */
			repost(ep, wc, n);
			break;
		case BENCH_PMD_WRITE:
			if (*flag != last) {
				last = *flag;
				/* the message back, from the same bytes */
				queue_write(ep, (uintptr_t)b->cli.chunk, b->cli.set->chunk[1]->rkey,
					    ep->chunk, MSG_LEN, ep->set->chunk[1]->lkey, false);
				rpcrdma_pmd_flush(ep->qp);
			}
			n = rpcrdma_pmd_poll_cq_burst(ep->cq, wc, BATCH);
			for (i = 0; i < n; i++)
				if (wc[i].status != RPCRDMA_PMD_WC_SUCCESS)
					b->resp_err = 1;
			break;
		case BENCH_PMD_RATE:
			n = rpcrdma_pmd_poll_cq_burst(ep->cq, wc, BATCH);
			for (i = 0; i < n; i++)
				if (wc[i].status != RPCRDMA_PMD_WC_SUCCESS)
					b->resp_err = 1;
			repost(ep, wc, n);
			break;
		case BENCH_PMD_COPY:
			return 0;
		}
	}
	return 0;
}

/* ---------------- set-up ---------------- */

static bool poll_until(struct bench_ep *ep, int type)
{
	uint64_t end = rte_get_tsc_cycles() + 5 * rte_get_tsc_hz();
	struct rpcrdma_pmd_event ev;

	while (rte_get_tsc_cycles() < end)
		if (rpcrdma_pmd_event_poll(ep->dev, &ev, 1) == 1)
			return (int)ev.type == type;
	return false;
}

static int connect_pair(struct bench_pmd *b)
{
	struct rpcrdma_pmd_event ev;
	char addr[64];
	uint64_t end;
	int ret;

	snprintf(addr, sizeof(addr), "@rpcrdma-bench-%d-%u", getpid(), b->id);
	ret = rpcrdma_pmd_listen(b->srv.dev, addr, &b->listener);
	if (ret < 0)
		return ret;
	ret = rpcrdma_pmd_connect(b->cli.qp, addr, NULL, 0);
	if (ret < 0)
		return ret;
	end = rte_get_tsc_cycles() + 5 * rte_get_tsc_hz();
	for (;;) {
		if (rte_get_tsc_cycles() > end)
			return -ETIMEDOUT;
		if (rpcrdma_pmd_event_poll(b->srv.dev, &ev, 1) == 1) {
			if (ev.type != RPCRDMA_PMD_EVENT_CONNECT_REQUEST)
				return -EPROTO;
			ret = rpcrdma_pmd_accept(ev.req, b->srv.qp, NULL, 0);
			if (ret < 0)
				return ret;
			break;
		}
	}
	if (!poll_until(&b->cli, RPCRDMA_PMD_EVENT_ESTABLISHED) ||
	    !poll_until(&b->srv, RPCRDMA_PMD_EVENT_ESTABLISHED))
		return -ETIMEDOUT;
	return 0;
}

struct bench_pmd *bench_pmd_start(enum bench_pmd_mode mode)
{
	struct bench_pmd *b;
	static unsigned int next_id;
	uint32_t qp_flags;
	char name[32];
	int ret, bad = 0;

	b = rte_zmalloc("bench_pmd", sizeof(*b), 64);
	if (b == NULL)
		return NULL;
	b->mode = mode;
	b->lcore = bench_responder_lcore();
	if (b->lcore >= RTE_MAX_LCORE) {
		fprintf(stderr, "bench_pmd: needs two lcores\n");
		goto err;
	}
	b->line = rte_zmalloc("bench_pmd_line", sizeof(*b->line), 64);
	if (b->line == NULL)
		goto err;
	/* ECHO: both ends read each message at once (as the engine's QPs say) */
	qp_flags = mode == BENCH_PMD_ECHO ? RPCRDMA_PMD_QP_F_RECV_PREFETCH : 0;
	/* benches may be set up side by side (pause/resume): names of their own */
	b->id = next_id++;
	snprintf(name, sizeof(name), "bsrv%u", b->id);
	ret = ep_open(&b->srv, name, qp_flags);
	snprintf(name, sizeof(name), "bcli%u", b->id);
	if (ret == 0)
		ret = ep_open(&b->cli, name, qp_flags);
	if (ret == 0)
		ret = ep_post_all(&b->srv);
	if (ret == 0)
		ret = ep_post_all(&b->cli);
	if (ret == 0)
		ret = connect_pair(b);
	if (ret < 0) {
		bench_log("set-up", ret);
		goto err;
	}
	if (bench_pmd_resume(b) != 0)
		goto err;
	return b;
err:
	bench_pmd_stop(b);
	(void)bad;
	return NULL;
}

int bench_pmd_stop(struct bench_pmd *b)
{
	int bad = 0;

	if (b == NULL)
		return -1;
	bench_responder_park(b->lcore, &b->launched, &b->stop);
	if (b->cap != NULL)
		bad |= bench_pmd_capture_stop(b, NULL, NULL) != 0;
	/* the listener first: a device with one open refuses to close (-EBUSY) */
	if (b->listener != NULL)
		rpcrdma_pmd_listener_close(b->listener);
	ep_close(&b->cli, &bad);
	ep_close(&b->srv, &bad);
	rte_free(b->line);
	if (b->resp_err)
		fprintf(stderr, "bench_pmd: the responder saw an error completion\n");
	if (bad)
		fprintf(stderr, "bench_pmd: a pool did not get every buffer back\n");
	bad |= b->resp_err;
	rte_free(b);
	return bad ? -1 : 0;
}

int bench_pmd_pause(struct bench_pmd *b)
{
	bench_responder_park(b->lcore, &b->launched, &b->stop);
	return 0;
}

int bench_pmd_resume(struct bench_pmd *b)
{
	if (b->mode == BENCH_PMD_COPY)
		return 0; /* no responder */
	return bench_responder_launch(respond, b, b->lcore, &b->launched);
}

/* ---------------- measured operations (client lcore) ---------------- */

uint64_t bench_pmd_pingpong(struct bench_pmd *b)
{
	struct bench_ep *ep = &b->cli;
	struct rpcrdma_pmd_wc wc[BATCH];
	uint64_t t0 = rte_rdtsc_precise(), guard = t0 + BENCH_HANG_S * rte_get_tsc_hz();
	volatile uint64_t *flag;
	uint16_t n, i;
	bool got = false;

	switch (b->mode) {
	case BENCH_PMD_RAW:
		b->seq += 2;
		b->line->v = b->seq - 1; /* odd: the responder answers with seq */
		while (b->line->v != b->seq)
			if (rte_rdtsc() > guard)
				return 0;
		break;
	case BENCH_PMD_SEND:
	case BENCH_PMD_ECHO:
		if (b->mode == BENCH_PMD_ECHO)
			*(uint64_t *)ep->msg = ++b->seq;
		queue_send(ep);
		rpcrdma_pmd_flush(ep->qp);
		/* repost the previous round trip's receive while this one flies */
		repost(ep, b->pending, b->nb_pending);
		b->nb_pending = 0;
		while (!got) {
			n = rpcrdma_pmd_poll_cq_burst(ep->cq, wc, BATCH);
			for (i = 0; i < n; i++) {
				if (wc[i].status != RPCRDMA_PMD_WC_SUCCESS)
					return 0;
				if (wc[i].opcode == RPCRDMA_PMD_WC_RECV) {
					if (b->mode == BENCH_PMD_ECHO &&
					    *(const uint64_t *)ep->recv_bufs[wc[i].wr_id] != b->seq)
						return 0;
					got = true;
					b->pending[b->nb_pending++] = wc[i];
				}
			}
			if (n == 0 && rte_rdtsc() > guard)
				return 0;
		}
		break;
	case BENCH_PMD_WRITE:
		/* the message goes out of chunk + 4096; the reply lands at chunk */
		flag = (volatile uint64_t *)(ep->chunk + MSG_LEN - 8);
		*(uint64_t *)(ep->chunk + 4096 + MSG_LEN - 8) = ++b->seq;
		queue_write(ep, (uintptr_t)b->srv.chunk, b->srv.set->chunk[1]->rkey,
			    ep->chunk + 4096, MSG_LEN, ep->set->chunk[1]->lkey, false);
		rpcrdma_pmd_flush(ep->qp);
		while (*flag != b->seq)
			if (rte_rdtsc() > guard)
				return 0;
		n = rpcrdma_pmd_poll_cq_burst(ep->cq, wc, BATCH);
		for (i = 0; i < n; i++)
			if (wc[i].status != RPCRDMA_PMD_WC_SUCCESS)
				return 0;
		break;
	default:
		return 0;
	}
	bench_last_rtt.t0 = t0;
	bench_last_rtt.t1 = rte_rdtsc_precise();
	return bench_last_rtt.t1 - t0;
}

int bench_pmd_send_batch(struct bench_pmd *b)
{
	struct bench_ep *ep = &b->cli;
	struct rpcrdma_pmd_sge sge = { (uintptr_t)ep->msg, MSG_LEN, ep->set->inline_pool->lkey };
	struct rpcrdma_pmd_send_wr wr[BATCH];
	struct rpcrdma_pmd_wc wc[BATCHES_IN];
	uint64_t guard = rte_rdtsc() + BENCH_HANG_S * rte_get_tsc_hz();
	unsigned int i;

	while (b->batches_out >= BATCHES_IN) {
		uint16_t n = rpcrdma_pmd_poll_cq_burst(ep->cq, wc, BATCHES_IN);

		for (i = 0; i < n; i++)
			if (wc[i].status != RPCRDMA_PMD_WC_SUCCESS)
				return -1;
		b->batches_out -= n;
		if (n == 0 && rte_rdtsc() > guard)
			return -1;
	}
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < BATCH; i++) {
		wr[i].wr_id = i;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].opcode = RPCRDMA_PMD_WR_SEND;
	}
	wr[BATCH - 1].flags = RPCRDMA_PMD_SEND_SIGNALED;
	if (rpcrdma_pmd_queue_send_burst(ep->qp, wr, BATCH) != BATCH)
		return -1;
	rpcrdma_pmd_flush(ep->qp);
	b->batches_out++;
	return 0;
}

int bench_pmd_send_drain(struct bench_pmd *b)
{
	struct rpcrdma_pmd_wc wc[BATCHES_IN];
	uint64_t guard = rte_rdtsc() + BENCH_HANG_S * rte_get_tsc_hz();

	while (b->batches_out > 0) {
		uint16_t n = rpcrdma_pmd_poll_cq_burst(b->cli.cq, wc, BATCHES_IN);

		b->batches_out -= n;
		if (n == 0 && rte_rdtsc() > guard)
			return -1;
	}
	return 0;
}

void bench_pmd_memcpy_1mib(struct bench_pmd *b)
{
	memcpy(b->srv.chunk, b->cli.chunk, MIB);
}

int bench_pmd_write_1mib(struct bench_pmd *b)
{
	struct bench_ep *ep = &b->cli;
	struct rpcrdma_pmd_wc wc;
	uint64_t guard = rte_rdtsc() + BENCH_HANG_S * rte_get_tsc_hz();

	queue_write(ep, (uintptr_t)b->srv.chunk, b->srv.set->chunk[1]->rkey, ep->chunk, MIB,
		    ep->set->chunk[1]->lkey, true);
	rpcrdma_pmd_flush(ep->qp);
	while (rpcrdma_pmd_poll_cq_burst(ep->cq, &wc, 1) == 0)
		if (rte_rdtsc() > guard)
			return -1;
	return wc.status == RPCRDMA_PMD_WC_SUCCESS ? 0 : -1;
}

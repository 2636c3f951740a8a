/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The capture tap (include/rpcrdma/rpcrdma_capture.h) on a bare QP pair of
 * the shm PMD, both ends in this thread. Every kind of operation is done
 * once with the client QP captured alone (its receives recorded), then a
 * few with both ends captured as one connection; the pcapng file is read
 * back with the project's reader and every frame parsed (ICRC checked) and
 * compared with what was done: opcode, addresses, DestQP, PSN, RETH, IETH,
 * AETH and payload bytes. Also: the driver's functions are back when
 * capture stops or the QP is destroyed, the counters, the timestamps, and
 * the errors of the API.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include <rpcrdma/rpcrdma_capture.h>
#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_roce.h>

#include "test_check.h"

#define BUF_LEN	 (512u * 1024u)
#define RECV_LEN 4096u
#define NRECV	 8
#define WAIT_MS	 3000
#define MAX_EXP	 64

struct end {
	struct rpcrdma_pmd_dev *dev;
	struct rpcrdma_pmd_pd *pd;
	struct rpcrdma_pmd_cq *cq;
	struct rpcrdma_pmd_qp *qp;
	struct rpcrdma_pmd_mr *mr, *inv_mr;
	uint8_t *buf, *inv_buf;
	uint32_t recv_next; /* next receive buffer slot */
};

static struct end cli, srv;

static uint64_t now_ns(int clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void fill(uint8_t *b, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		b[i] = (uint8_t)(seed * 131u + i * 7u + (i >> 8) + 1u);
}

static int end_open(struct end *e)
{
	struct rpcrdma_pmd_qp_attr a;

	e->buf = aligned_alloc(4096, BUF_LEN);
	e->inv_buf = aligned_alloc(4096, 4096);
	if (!e->buf || !e->inv_buf || rpcrdma_pmd_dev_open("shm", NULL, &e->dev) ||
	    rpcrdma_pmd_pd_alloc(e->dev, &e->pd) ||
	    rpcrdma_pmd_mr_reg(e->pd, e->buf, BUF_LEN, 7, -1, 0, &e->mr) ||
	    rpcrdma_pmd_mr_reg(e->pd, e->inv_buf, 4096, 7, -1, 0, &e->inv_mr) ||
	    rpcrdma_pmd_cq_create(e->dev, 256, &e->cq))
		return -1;
	rpcrdma_pmd_qp_attr_init(&a);
	a.send_cq = a.recv_cq = e->cq;
	return rpcrdma_pmd_qp_create(e->pd, &a, &e->qp);
}

static bool wait_event(struct end *e, enum rpcrdma_pmd_event_type type,
		       struct rpcrdma_pmd_event *out)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + WAIT_MS * 1000000ull;

	while (now_ns(CLOCK_MONOTONIC) < end)
		if (rpcrdma_pmd_event_poll(e->dev, out, 1) == 1)
			return out->type == type;
	return false;
}

static bool connect_pair(void)
{
	struct rpcrdma_pmd_listener *l;
	struct rpcrdma_pmd_event ev;
	char addr[64];

	snprintf(addr, sizeof(addr), "@rpcrdma-capture-%d", getpid());
	if (rpcrdma_pmd_listen(srv.dev, addr, &l) || rpcrdma_pmd_connect(cli.qp, addr, NULL, 0))
		return false;
	if (!wait_event(&srv, RPCRDMA_PMD_EVENT_CONNECT_REQUEST, &ev) ||
	    rpcrdma_pmd_accept(ev.req, srv.qp, NULL, 0))
		return false;
	if (!wait_event(&cli, RPCRDMA_PMD_EVENT_ESTABLISHED, &ev) ||
	    !wait_event(&srv, RPCRDMA_PMD_EVENT_ESTABLISHED, &ev))
		return false;
	rpcrdma_pmd_listener_close(l);
	return true;
}

static void post_recvs(struct end *e, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		uint32_t slot = e->recv_next++ % 16;
		struct rpcrdma_pmd_sge sge = { (uintptr_t)e->buf + slot * RECV_LEN, RECV_LEN,
					       e->mr->lkey };
		struct rpcrdma_pmd_recv_wr wr = { 1000 + slot, &sge, 1 };

		CHECK_EQ(rpcrdma_pmd_post_recv_burst(e->qp, &wr, 1), 1);
	}
}

/* Poll @p e's CQ until one completion; returns it (status 255 on timeout). */
static struct rpcrdma_pmd_wc poll1(struct end *e)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + WAIT_MS * 1000000ull;
	struct rpcrdma_pmd_wc wc = { .status = 255 };

	while (now_ns(CLOCK_MONOTONIC) < end)
		if (rpcrdma_pmd_poll_cq_burst(e->cq, &wc, 1) == 1)
			break;
	return wc;
}

/* A signaled send-queue WR of one or two SGEs, flushed; its completion checked. */
static void do_wr(struct end *e, uint8_t opcode, const uint8_t *local, uint32_t len, uint32_t split,
		  uint64_t raddr, uint32_t rkey, uint32_t inv)
{
	struct rpcrdma_pmd_sge sge[2] = {
		{ (uintptr_t)local, split ? split : len, e->mr->lkey },
		{ (uintptr_t)local + split, len - split, e->mr->lkey },
	};
	struct rpcrdma_pmd_send_wr wr = {
		.wr_id = 77,
		.sg_list = sge,
		.num_sge = split ? 2 : 1,
		.opcode = opcode,
		.flags = RPCRDMA_PMD_SEND_SIGNALED,
		.invalidate_rkey = inv,
		.remote_addr = raddr,
		.rkey = rkey,
	};
	struct rpcrdma_pmd_wc wc;

	CHECK_EQ(rpcrdma_pmd_queue_send_burst(e->qp, &wr, 1), 1);
	CHECK_EQ(rpcrdma_pmd_flush(e->qp), 1);
	wc = poll1(e);
	CHECK_EQ(wc.status, RPCRDMA_PMD_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 77);
}

/* ------------------------------------------------------------ expectations */

struct exp {
	uint8_t opcode;
	unsigned int from; /* 1: client (10.77.1.1), 2: server or made-up peer */
	uint32_t dest_qp;
	uint32_t psn;
	uint64_t va;
	uint32_t rkey, dma_len, inv_rkey;
	const uint8_t *payload;
	uint32_t len;
};

static struct exp exps[MAX_EXP];
static unsigned int nexp;

static void expect(uint8_t opcode, unsigned int from, uint32_t dest_qp, uint32_t psn,
		   const uint8_t *payload, uint32_t len)
{
	struct exp *x = &exps[nexp++];

	memset(x, 0, sizeof(*x));
	x->opcode = opcode;
	x->from = from;
	x->dest_qp = dest_qp;
	x->psn = psn;
	x->payload = payload;
	x->len = len;
}

static void expect_reth(uint64_t va, uint32_t rkey, uint32_t dma_len)
{
	exps[nexp - 1].va = va;
	exps[nexp - 1].rkey = rkey;
	exps[nexp - 1].dma_len = dma_len;
}

/* Read the file back and compare it with exps[], frame by frame. */
static void check_file(const char *path, uint64_t t0, uint64_t t1, uint64_t bytes)
{
	char err[PCAP_ERRBUF_SIZE];
	struct rpcrdma_roce_addr addr;
	struct rpcrdma_roce_pkt p;
	struct pcap_pkthdr *hdr;
	const u_char *data;
	uint64_t sum = 0;
	unsigned int i;
	uint8_t magic[4] = { 0 };
	pcap_t *pc;
	FILE *f;
	int ret;

	/* pcapng: a Section Header Block first */
	f = fopen(path, "rb");
	CHECK(f != NULL && fread(magic, 1, 4, f) == 4);
	if (f != NULL)
		fclose(f);
	CHECK(magic[0] == 0x0a && magic[1] == 0x0d && magic[2] == 0x0d && magic[3] == 0x0a);
	pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	CHECK(pc != NULL);
	if (pc == NULL) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK_EQ(pcap_datalink(pc), DLT_EN10MB);
	for (i = 0; i < nexp; i++) {
		const struct exp *x = &exps[i];
		uint64_t ts_ns;

		ret = pcap_next_ex(pc, &hdr, &data);
		CHECK_EQ(ret, 1);
		if (ret != 1) {
			fprintf(stderr, "frame %u: %s\n", i + 1, pcap_geterr(pc));
			break;
		}
		sum += hdr->caplen;
		CHECK_EQ(hdr->caplen, hdr->len);
		/* our own timestamps, not DPDK 22.11's centuries-ahead ones */
		ts_ns = (uint64_t)hdr->ts.tv_sec * 1000000000ull + (uint64_t)hdr->ts.tv_usec;
		CHECK(ts_ns >= t0 && ts_ns <= t1);
		ret = rpcrdma_roce_parse(&p, &addr, data, hdr->caplen, 0);
		CHECK_EQ(ret, 0);
		if (ret)
			continue;
		if (p.opcode != x->opcode)
			fprintf(stderr, "frame %u: %s, want %s\n", i + 1,
				rpcrdma_roce_opcode_name(p.opcode),
				rpcrdma_roce_opcode_name(x->opcode));
		CHECK_EQ(p.opcode, x->opcode);
		CHECK_EQ(addr.src_ip & 0xff, x->from);
		CHECK_EQ(addr.dst_ip & 0xff, 3 - x->from);
		CHECK_EQ(addr.src_ip >> 8, 0x0a4d01);
		CHECK_EQ(addr.src_mac[5], x->from);
		CHECK_EQ(p.dest_qp, x->dest_qp);
		CHECK_EQ(p.psn, x->psn);
		CHECK_EQ(p.va, x->va);
		CHECK_EQ(p.rkey, x->rkey);
		CHECK_EQ(p.dma_len, x->dma_len);
		CHECK_EQ(p.inv_rkey, x->inv_rkey);
		CHECK_EQ(p.payload_len, x->len);
		if (p.payload_len == x->len && x->len)
			CHECK(memcmp(p.payload, x->payload, x->len) == 0);
	}
	CHECK_EQ(pcap_next_ex(pc, &hdr, &data), PCAP_ERROR_BREAK); /* the end */
	CHECK_EQ(sum, bytes);
	pcap_close(pc);
}

/* ------------------------------------------------------------ the test */

int main(int argc, char **argv)
{
	char path[] = "/tmp/rpcrdma-capture-XXXXXX";
	struct rpcrdma_capture_stats st;
	struct rpcrdma_capture_params cp;
	struct rpcrdma_capture *cap, *cap2;
	rpcrdma_pmd_queue_send_burst_t drv_queue;
	rpcrdma_pmd_post_recv_burst_t drv_recv;
	rpcrdma_pmd_poll_cq_burst_t drv_poll;
	rpcrdma_pmd_flush_t drv_flush;
	uint32_t qa, qb, psn_a = 0, psn_b = 0, peer;
	struct rpcrdma_pmd_wc wc;
	uint64_t t0, t1;
	uint8_t *m;
	int fd, ret, i;

	fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	/* before the EAL: a clear error, nothing created */
	CHECK_EQ(rpcrdma_capture_open(path, NULL, &cap), -ENODEV);
	ret = rpcrdma_mempool_eal_init(argv[0], NULL);
	if (ret < 0) {
		printf("EAL cannot start here (%s): skipping\n", strerror(-ret));
		unlink(path);
		return 77;
	}
	if (end_open(&cli) || end_open(&srv) || !connect_pair()) {
		fprintf(stderr, "cannot set up the QP pair\n");
		return 1;
	}
	/* the wire numbers: the QPs' own, but never the management QPs 0 and 1 */
	qa = cli.qp->qp_num < 2 ? cli.qp->qp_num | 0x100000u : cli.qp->qp_num;
	qb = srv.qp->qp_num < 2 ? srv.qp->qp_num | 0x100000u : srv.qp->qp_num;
	peer = qa | 0x800000u;

	/* API errors */
	rpcrdma_capture_params_init(&cp);
	CHECK_EQ(rpcrdma_capture_open(NULL, NULL, &cap), -EINVAL);
	cp.nb_mbufs = 10;
	CHECK_EQ(rpcrdma_capture_open(path, &cp, &cap), -EINVAL);
	CHECK_EQ(rpcrdma_capture_open("/nonexistent/dir/x.pcapng", NULL, &cap), -ENOENT);
	CHECK_EQ(rpcrdma_capture_close(NULL), 0);

	drv_recv = cli.qp->post_recv_burst;
	drv_queue = cli.qp->queue_send_burst;
	drv_flush = cli.qp->flush;
	drv_poll = cli.cq->poll_burst;

	t0 = now_ns(CLOCK_REALTIME);
	rpcrdma_capture_params_init(&cp);
	cp.comment = "test_capture_pmd";
	ret = rpcrdma_capture_open(path, &cp, &cap);
	CHECK_EQ(ret, 0);
	if (ret)
		return 1;
	CHECK_EQ(rpcrdma_capture_qp(cap, NULL, NULL), -EINVAL);
	CHECK_EQ(rpcrdma_capture_qp(cap, cli.qp, cli.qp), -EINVAL);
	CHECK_EQ(rpcrdma_capture_qp_stop(cap, cli.qp), -ENOENT);

	/* ---- phase 1: the client's QP alone: sends, receives, Reads, Writes ---- */
	CHECK_EQ(rpcrdma_capture_qp(cap, cli.qp, NULL), 0);
	CHECK_EQ(rpcrdma_capture_qp(cap, cli.qp, NULL), -EBUSY);
	CHECK(cli.qp->flush != drv_flush && cli.qp->queue_send_burst != drv_queue &&
	      cli.qp->post_recv_burst != drv_recv && cli.cq->poll_burst != drv_poll);
	/* a second capture cannot take a captured QP */
	CHECK_EQ(rpcrdma_capture_open("/dev/null", NULL, &cap2), 0);
	CHECK_EQ(rpcrdma_capture_qp(cap2, cli.qp, NULL), -EBUSY);
	CHECK_EQ(rpcrdma_capture_qp(cap2, srv.qp, cli.qp), -EBUSY);
	CHECK_EQ(rpcrdma_capture_close(cap2), 0);
	CHECK(cli.qp->flush != drv_flush);

	post_recvs(&cli, NRECV);
	post_recvs(&srv, NRECV);

	/* 1. SEND, client to server (two SGEs) */
	m = cli.buf + 100000;
	fill(m, 300, 1);
	do_wr(&cli, RPCRDMA_PMD_WR_SEND, m, 300, 120, 0, 0, 0);
	expect(RPCRDMA_ROCE_SEND_ONLY, 1, peer, psn_a++, m, 300);
	wc = poll1(&srv);
	CHECK(wc.status == 0 && wc.opcode == RPCRDMA_PMD_WC_RECV && wc.byte_len == 300);

	/* 2. SEND, server to client: recorded at the client's receive completion */
	m = srv.buf + 100000;
	fill(m, 1000, 2);
	do_wr(&srv, RPCRDMA_PMD_WR_SEND, m, 1000, 0, 0, 0, 0);
	wc = poll1(&cli);
	CHECK(wc.status == 0 && wc.opcode == RPCRDMA_PMD_WC_RECV && wc.byte_len == 1000);
	expect(RPCRDMA_ROCE_SEND_ONLY, 2, qa, psn_b++, m, 1000);

	/* 3. SEND_WITH_INV, server to client, of the client's rkey */
	m = srv.buf + 110000;
	fill(m, 64, 3);
	do_wr(&srv, RPCRDMA_PMD_WR_SEND_WITH_INV, m, 64, 0, 0, 0, cli.inv_mr->rkey);
	wc = poll1(&cli);
	CHECK(wc.status == 0 && (wc.flags & RPCRDMA_PMD_WC_WITH_INV) &&
	      wc.invalidated_rkey == cli.inv_mr->rkey);
	expect(RPCRDMA_ROCE_SEND_ONLY_INV, 2, qa, psn_b++, m, 64);
	exps[nexp - 1].inv_rkey = cli.inv_mr->rkey;

	/* 4. SEND_WITH_INV, client to server */
	m = cli.buf + 110000;
	fill(m, 40, 4);
	do_wr(&cli, RPCRDMA_PMD_WR_SEND_WITH_INV, m, 40, 0, 0, 0, srv.inv_mr->rkey);
	expect(RPCRDMA_ROCE_SEND_ONLY_INV, 1, peer, psn_a++, m, 40);
	exps[nexp - 1].inv_rkey = srv.inv_mr->rkey;
	wc = poll1(&srv);
	CHECK(wc.status == 0 && (wc.flags & RPCRDMA_PMD_WC_WITH_INV));

	/* 5. RDMA WRITE of 3000 bytes from two SGEs */
	m = cli.buf + 120000;
	fill(m, 3000, 5);
	do_wr(&cli, RPCRDMA_PMD_WR_RDMA_WRITE, m, 3000, 1000, (uintptr_t)srv.buf + 200000,
	      srv.mr->rkey, 0);
	CHECK(memcmp(srv.buf + 200000, m, 3000) == 0);
	expect(RPCRDMA_ROCE_RDMA_WRITE_ONLY, 1, peer, psn_a++, m, 3000);
	expect_reth((uintptr_t)srv.buf + 200000, srv.mr->rkey, 3000);

	/* 6. RDMA READ of 5001 bytes: the request, then the response with its PSN */
	fill(srv.buf + 400000, 5001, 6);
	do_wr(&cli, RPCRDMA_PMD_WR_RDMA_READ, cli.buf + 130000, 5001, 0,
	      (uintptr_t)srv.buf + 400000, srv.mr->rkey, 0);
	CHECK(memcmp(cli.buf + 130000, srv.buf + 400000, 5001) == 0);
	expect(RPCRDMA_ROCE_RDMA_READ_REQUEST, 1, peer, psn_a, NULL, 0);
	expect_reth((uintptr_t)srv.buf + 400000, srv.mr->rkey, 5001);
	expect(RPCRDMA_ROCE_RDMA_READ_RESPONSE_ONLY, 2, qa, psn_a++, srv.buf + 400000, 5001);

	/* 7. an RDMA WRITE longer than a frame: two operations on consecutive ranges */
	m = cli.buf + 140000;
	fill(m, 100000, 7);
	rpcrdma_capture_stats(cap, &st);
	CHECK(st.frame_payload_max > 60000 && st.frame_payload_max < 100000);
	do_wr(&cli, RPCRDMA_PMD_WR_RDMA_WRITE, m, 100000, 0, (uintptr_t)srv.buf + 250000,
	      srv.mr->rkey, 0);
	expect(RPCRDMA_ROCE_RDMA_WRITE_ONLY, 1, peer, psn_a++, m, st.frame_payload_max);
	expect_reth((uintptr_t)srv.buf + 250000, srv.mr->rkey, st.frame_payload_max);
	expect(RPCRDMA_ROCE_RDMA_WRITE_ONLY, 1, peer, psn_a++, m + st.frame_payload_max,
	       100000 - st.frame_payload_max);
	expect_reth((uintptr_t)srv.buf + 250000 + st.frame_payload_max, srv.mr->rkey,
		    100000 - st.frame_payload_max);

	/* stop: the driver's functions are back */
	CHECK_EQ(rpcrdma_capture_qp_stop(cap, cli.qp), 0);
	CHECK(cli.qp->flush == drv_flush && cli.qp->queue_send_burst == drv_queue &&
	      cli.qp->post_recv_burst == drv_recv && cli.cq->poll_burst == drv_poll);
	/* not recorded */
	do_wr(&cli, RPCRDMA_PMD_WR_SEND, cli.buf, 10, 0, 0, 0, 0);
	wc = poll1(&srv);

	/* ---- phase 2: both ends as one connection (connection 1 again) ---- */
	CHECK_EQ(rpcrdma_capture_qp(cap, cli.qp, srv.qp), 0);
	CHECK(cli.qp->post_recv_burst == drv_recv); /* receives need no tap here */
	psn_a = psn_b = 0;
	m = cli.buf + 250000;
	fill(m, 500, 8);
	do_wr(&cli, RPCRDMA_PMD_WR_SEND, m, 500, 0, 0, 0, 0);
	expect(RPCRDMA_ROCE_SEND_ONLY, 1, qb, psn_a++, m, 500);
	wc = poll1(&srv); /* the server's receive: not a second frame */
	CHECK(wc.status == 0 && wc.byte_len == 500);
	m = srv.buf + 120000;
	fill(m, 700, 9);
	do_wr(&srv, RPCRDMA_PMD_WR_SEND, m, 700, 0, 0, 0, 0);
	expect(RPCRDMA_ROCE_SEND_ONLY, 2, qa, psn_b++, m, 700);
	wc = poll1(&cli);
	CHECK(wc.status == 0 && wc.byte_len == 700);
	/* the server reads from the client */
	fill(cli.buf + 300000, 4096, 10);
	do_wr(&srv, RPCRDMA_PMD_WR_RDMA_READ, srv.buf + 450000, 4096, 0,
	      (uintptr_t)cli.buf + 300000, cli.mr->rkey, 0);
	expect(RPCRDMA_ROCE_RDMA_READ_REQUEST, 2, qa, psn_b, NULL, 0);
	expect_reth((uintptr_t)cli.buf + 300000, cli.mr->rkey, 4096);
	expect(RPCRDMA_ROCE_RDMA_READ_RESPONSE_ONLY, 1, qb, psn_b++, cli.buf + 300000, 4096);

	/*
	 * Many more frames than the capture has mbufs (64 small, 2 large): each
	 * one must go back to its pool once written, or frames start to drop.
	 */
	CHECK_EQ(rpcrdma_capture_qp_stop(cap, cli.qp), 0);
	rpcrdma_capture_qp_stop(cap, srv.qp); /* the peer, if it is tracked apart */
	rpcrdma_capture_params_init(&cp);
	cp.nb_mbufs = 64;
	cp.nb_large = 2;
	CHECK_EQ(rpcrdma_capture_open("/dev/null", &cp, &cap2), 0);
	CHECK_EQ(rpcrdma_capture_qp(cap2, cli.qp, srv.qp), 0);
	for (i = 0; i < 300; i++) {
		do_wr(&cli, RPCRDMA_PMD_WR_SEND, cli.buf, 100, 0, 0, 0, 0);
		wc = poll1(&srv);
		post_recvs(&srv, 1);
		if (i % 20 == 0)
			do_wr(&cli, RPCRDMA_PMD_WR_RDMA_WRITE, cli.buf, 8192, 0,
			      (uintptr_t)srv.buf + 200000, srv.mr->rkey, 0);
	}
	CHECK_EQ(rpcrdma_capture_flush(cap2), 0);
	rpcrdma_capture_stats(cap2, &st);
	CHECK_EQ(st.drops, 0);
	CHECK_EQ(st.frames, 300 + 15);
	CHECK_EQ(rpcrdma_capture_close(cap2), 0);

	/* destroying captured QPs puts the CQ's function back */
	rpcrdma_pmd_disconnect(cli.qp);
	CHECK_EQ(rpcrdma_pmd_qp_destroy(cli.qp), 0);
	CHECK_EQ(rpcrdma_pmd_qp_destroy(srv.qp), 0);
	CHECK(cli.cq->poll_burst == drv_poll && srv.cq->poll_burst == drv_poll);

	rpcrdma_capture_stats(cap, &st);
	CHECK_EQ(st.drops, 0);
	CHECK_EQ(st.truncated, 0);
	CHECK_EQ(st.untracked, 0);
	CHECK_EQ(st.error, 0);
	CHECK_EQ(rpcrdma_capture_flush(cap), 0);
	rpcrdma_capture_stats(cap, &st);
	CHECK_EQ(st.frames, nexp);
	CHECK_EQ(rpcrdma_capture_close(cap), 0);
	t1 = now_ns(CLOCK_REALTIME);
	check_file(path, t0, t1, st.bytes);
	printf("%u frames, %llu bytes\n", nexp, (unsigned long long)st.bytes);

	rpcrdma_pmd_cq_destroy(cli.cq);
	rpcrdma_pmd_cq_destroy(srv.cq);
	if (getenv("KEEP_CAPTURE") == NULL)
		unlink(path);
	else
		printf("kept %s\n", path);
	(void)argc;
	return test_summary("capture_pmd");
}

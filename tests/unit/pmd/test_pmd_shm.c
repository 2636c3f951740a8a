/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The common PMD layer and the shm PMD in one thread, without EAL or a
 * connection: device capabilities (rpcrdma_pmd_dev_info_get) of shm and the
 * defaults the common layer gives a driver that does not say; the refusal
 * of a QP that would overrun its CQ, and its log line; per-call sub-range
 * MR registration without heap allocation (and its cost, printed); an SRQ
 * whose shared slots a hostile peer writes nonsense into, and a driver
 * without SRQs.
 */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>

#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_pmd_driver.h>

#include "../../../pmd/shm/shm.h" /* the SRQ area, as a hostile peer writes it */
#include "test_check.h"

/* ---- stderr captured, for the PMD's log lines ---- */

static char logbuf[4096];
static FILE *log_tmp;
static int log_saved = -1;

static void log_begin(void)
{
	log_tmp = tmpfile();
	if (log_tmp == NULL)
		abort();
	fflush(stderr);
	log_saved = dup(2);
	dup2(fileno(log_tmp), 2);
}

static void log_end(void)
{
	size_t n;

	fflush(stderr);
	dup2(log_saved, 2);
	close(log_saved);
	rewind(log_tmp);
	n = fread(logbuf, 1, sizeof(logbuf) - 1, log_tmp);
	logbuf[n] = '\0';
	fclose(log_tmp);
}

/* ---- a driver without dev_info_get: the common layer's defaults ---- */

static struct rpcrdma_pmd_dev bare_dev;

static int bare_open(const char *devargs, struct rpcrdma_pmd_dev **dev)
{
	(void)devargs;
	*dev = &bare_dev;
	return 0;
}

static void bare_close(struct rpcrdma_pmd_dev *dev)
{
	(void)dev;
}

static struct rpcrdma_pmd_pd bare_pd;

static int bare_pd_alloc(struct rpcrdma_pmd_dev *dev, struct rpcrdma_pmd_pd **pd)
{
	(void)dev;
	*pd = &bare_pd;
	return 0;
}

static void bare_pd_free(struct rpcrdma_pmd_pd *pd)
{
	(void)pd;
}

static struct rpcrdma_pmd_ops bare_ops = {
	.name = "test_bare",
	.dev_open = bare_open,
	.dev_close = bare_close,
	.pd_alloc = bare_pd_alloc,
	.pd_free = bare_pd_free,
};

static void test_dev_info_defaults(void)
{
	struct rpcrdma_pmd_dev_info info;
	struct rpcrdma_pmd_qp_attr def;
	struct rpcrdma_pmd_dev *dev;

	rpcrdma_pmd_register(&bare_ops);
	CHECK_EQ(rpcrdma_pmd_dev_open("test_bare", NULL, &dev), 0);
	memset(&info, 0xa5, sizeof(info));
	CHECK_EQ(rpcrdma_pmd_dev_info_get(dev, &info), 0);
	rpcrdma_pmd_qp_attr_init(&def);
	CHECK(strcmp(info.driver, "test_bare") == 0 && strcmp(info.dev_name, "test_bare") == 0);
	CHECK_EQ(info.transport, RPCRDMA_PMD_TRANSPORT_OTHER);
	CHECK_EQ(info.flags, 0);
	CHECK_EQ(info.max_inline_data, 0);
	CHECK_EQ(info.max_send_sge, def.max_send_sge);
	CHECK_EQ(info.max_recv_sge, def.max_recv_sge);
	CHECK_EQ(info.max_qp_wr, def.max_send_wr);
	CHECK_EQ(info.max_cqe, def.max_send_wr + def.max_recv_wr);
	CHECK_EQ(info.max_rdma_read_depth, 1);
	CHECK_EQ(info.max_read_sge, 1);
	CHECK_EQ(info.max_srq, 0);
	CHECK_EQ(info.max_srq_wr, 0);
	CHECK_EQ(info.max_srq_sge, 0);
	CHECK_EQ(rpcrdma_pmd_dev_info_get(NULL, &info), -EINVAL);
	CHECK_EQ(rpcrdma_pmd_dev_info_get(dev, NULL), -EINVAL);
	{
		/* a driver without SRQs says so, and keeps no count */
		struct rpcrdma_pmd_srq_attr sa;
		struct rpcrdma_pmd_srq *srq = NULL;
		struct rpcrdma_pmd_pd *pd;

		CHECK_EQ(rpcrdma_pmd_pd_alloc(dev, &pd), 0);
		rpcrdma_pmd_srq_attr_init(&sa);
		CHECK_EQ(rpcrdma_pmd_srq_create(pd, &sa, &srq), -ENOTSUP);
		CHECK(srq == NULL && pd->nb_srqs == 0);
		CHECK_EQ(rpcrdma_pmd_pd_free(pd), 0);
	}
	CHECK_EQ(rpcrdma_pmd_dev_close(dev), 0);
}

static void test_dev_info_shm(void)
{
	struct rpcrdma_pmd_dev_info info;
	struct rpcrdma_pmd_dev *dev;

	CHECK_EQ(rpcrdma_pmd_dev_open("shm", "mr_max=77", &dev), 0);
	memset(&info, 0xa5, sizeof(info));
	CHECK_EQ(rpcrdma_pmd_dev_info_get(dev, &info), 0);
	CHECK(strcmp(info.driver, "shm") == 0 && strcmp(info.dev_name, "shm") == 0);
	CHECK_EQ(info.transport, RPCRDMA_PMD_TRANSPORT_SHM);
	CHECK_EQ(info.node_type, 0);
	CHECK_EQ(info.flags, RPCRDMA_PMD_DEV_REMOTE_INV | RPCRDMA_PMD_DEV_CHEAP_MR_REG |
				     RPCRDMA_PMD_DEV_RNR_RETRY | RPCRDMA_PMD_DEV_QP_RECONNECT);
	CHECK_EQ(info.max_inline_data, 0);
	CHECK_EQ(info.max_send_sge, 32);
	CHECK_EQ(info.max_read_sge, 32);
	CHECK_EQ(info.max_recv_sge, 32);
	CHECK_EQ(info.max_qp_wr, 32768);
	CHECK_EQ(info.max_cqe, 1u << 20);
	CHECK_EQ(info.max_mr, 77); /* the mr_max device argument */
	CHECK_EQ(info.max_rdma_read_depth, 255);
	CHECK(info.max_mr_size == UINT32_MAX * 4096ull);
	CHECK_EQ(info.max_srq, 65536);
	CHECK_EQ(info.max_srq_wr, 32768);
	CHECK_EQ(info.max_srq_sge, 32);
	CHECK_EQ(rpcrdma_pmd_dev_close(dev), 0);

	/* device arguments as a vdev's (rte_kvargs), each mistake refused */
	CHECK_EQ(rpcrdma_pmd_dev_open("shm", "mr_max=9,cq_delay=0", &dev), 0);
	CHECK_EQ(rpcrdma_pmd_dev_info_get(dev, &info), 0);
	CHECK_EQ(info.max_mr, 9);
	CHECK_EQ(rpcrdma_pmd_dev_close(dev), 0);
	{
		static const char *const bad[] = { "bogus=1",		"mr_max",
						   "mr_max=",		"mr_max=0",
						   "mr_max=5,mr_max=6", "mr_max=5,",
						   ",mr_max=5",		"mr_max=5,,cq_delay=1",
						   "cq_delay=x",	"mr_max=-1" };

		for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			dev = NULL;
			CHECK(rpcrdma_pmd_dev_open("shm", bad[i], &dev) == -EINVAL && dev == NULL,
			      "devargs \"%s\" refused", bad[i]);
		}
	}

	CHECK_EQ(rpcrdma_pmd_dev_open("shm", NULL, &dev), 0);
	CHECK_EQ(rpcrdma_pmd_dev_info_get(dev, &info), 0);
	CHECK_EQ(info.max_mr, 4096); /* the default */
	CHECK_EQ(rpcrdma_pmd_dev_close(dev), 0);
}

/* The limits dev_info reports are the ones qp_create and cq_create enforce. */
static void test_dev_info_limits(void)
{
	struct rpcrdma_pmd_dev_info info;
	struct rpcrdma_pmd_qp_attr attr;
	struct rpcrdma_pmd_dev *dev;
	struct rpcrdma_pmd_pd *pd;
	struct rpcrdma_pmd_cq *cq, *big;
	struct rpcrdma_pmd_qp *qp;

	CHECK_EQ(rpcrdma_pmd_dev_open("shm", NULL, &dev), 0);
	CHECK_EQ(rpcrdma_pmd_dev_info_get(dev, &info), 0);
	CHECK_EQ(rpcrdma_pmd_pd_alloc(dev, &pd), 0);
	CHECK_EQ(rpcrdma_pmd_cq_create(dev, info.max_cqe + 1, &big), -EINVAL);
	CHECK_EQ(rpcrdma_pmd_cq_create(dev, 2 * info.max_qp_wr + 2, &cq), 0);
	rpcrdma_pmd_qp_attr_init(&attr);
	attr.send_cq = attr.recv_cq = cq;
	attr.max_send_sge = (uint16_t)(info.max_send_sge + 1);
	CHECK_EQ(rpcrdma_pmd_qp_create(pd, &attr, &qp), -EINVAL);
	attr.max_send_sge = (uint16_t)info.max_send_sge;
	attr.max_recv_sge = (uint16_t)(info.max_recv_sge + 1);
	CHECK_EQ(rpcrdma_pmd_qp_create(pd, &attr, &qp), -EINVAL);
	attr.max_recv_sge = (uint16_t)info.max_recv_sge;
	attr.max_send_wr = info.max_qp_wr + 1;
	CHECK_EQ(rpcrdma_pmd_qp_create(pd, &attr, &qp), -EINVAL);
	attr.max_send_wr = info.max_qp_wr;
	attr.max_recv_wr = info.max_qp_wr;
	attr.max_send_sge = 1; /* small slots: the receive queue is shared memory */
	attr.max_recv_sge = 1;
	CHECK_EQ(rpcrdma_pmd_qp_create(pd, &attr, &qp), 0);
	CHECK_EQ(rpcrdma_pmd_qp_destroy(qp), 0);
	CHECK_EQ(rpcrdma_pmd_cq_destroy(cq), 0);
	CHECK_EQ(rpcrdma_pmd_pd_free(pd), 0);
	CHECK_EQ(rpcrdma_pmd_dev_close(dev), 0);
}

/* A QP that would overrun its CQ: -EINVAL, one log line with the numbers, nothing created. */
static void test_cq_overrun_log(void)
{
	struct rpcrdma_pmd_qp_attr attr;
	struct rpcrdma_pmd_dev *dev;
	struct rpcrdma_pmd_pd *pd;
	struct rpcrdma_pmd_cq *cq, *rcq;
	struct rpcrdma_pmd_qp *qp, *qp2;
	int ret;

	CHECK_EQ(rpcrdma_pmd_dev_open("shm", NULL, &dev), 0);
	CHECK_EQ(rpcrdma_pmd_pd_alloc(dev, &pd), 0);
	CHECK_EQ(rpcrdma_pmd_cq_create(dev, 256, &cq), 0);
	CHECK_EQ(rpcrdma_pmd_cq_create(dev, 256, &rcq), 0);
	CHECK_EQ(cq->cqe, 256);
	rpcrdma_pmd_qp_attr_init(&attr); /* 128 + 128 */
	attr.send_cq = attr.recv_cq = cq;
	CHECK_EQ(rpcrdma_pmd_qp_create(pd, &attr, &qp), 0);
	CHECK_EQ(cq->nb_wrs, 256);
	CHECK_EQ(qp->max_send_wr, 128);
	CHECK_EQ(qp->max_recv_wr, 128);
	attr.max_send_wr = 1;
	attr.max_recv_wr = 1;
	log_begin();
	ret = rpcrdma_pmd_qp_create(pd, &attr, &qp2);
	log_end();
	CHECK_EQ(ret, -EINVAL);
	CHECK(strstr(logbuf, "rpcrdma pmd shm: qp_create: 1 send + 1 recv WRs overrun the CQ "
			     "(256 entries, 256 taken by the QPs on it)\n") != NULL);
	CHECK_EQ(cq->nb_wrs, 256);
	CHECK_EQ(pd->nb_qps, 1);

	/* a separate receive CQ: only the sends count against the full one */
	attr.recv_cq = rcq;
	attr.max_send_wr = 1;
	attr.max_recv_wr = 256;
	log_begin();
	ret = rpcrdma_pmd_qp_create(pd, &attr, &qp2);
	log_end();
	CHECK_EQ(ret, -EINVAL);
	CHECK(strstr(logbuf, "1 send WRs on a CQ of 256 entries (256 taken), 256 recv WRs on a "
			     "CQ of 256 entries (0 taken): one overruns") != NULL);
	CHECK_EQ(rcq->nb_wrs, 0);
	attr.send_cq = rcq;
	attr.max_send_wr = 128;
	attr.max_recv_wr = 128;
	CHECK_EQ(rpcrdma_pmd_qp_create(pd, &attr, &qp2), 0);
	CHECK_EQ(rcq->nb_wrs, 256);
	CHECK_EQ(rpcrdma_pmd_qp_destroy(qp2), 0);
	CHECK_EQ(rcq->nb_wrs, 0);
	CHECK_EQ(rpcrdma_pmd_qp_destroy(qp), 0);
	CHECK_EQ(cq->nb_wrs, 0);
	CHECK_EQ(rpcrdma_pmd_cq_destroy(rcq), 0);
	CHECK_EQ(rpcrdma_pmd_cq_destroy(cq), 0);
	CHECK_EQ(rpcrdma_pmd_pd_free(pd), 0);
	CHECK_EQ(rpcrdma_pmd_dev_close(dev), 0);
}

/* Bytes the heap has handed out (main arena and mmapped chunks). */
static size_t heap_used(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define MR_ROUNDS 100000
#define MR_AREA	  (1u << 20)
#define MR_HELD	  64

/*
 * The engine may register a sub-range of a registered pool per call (fd -1)
 * on its data path: no heap allocation per registration, at any number of
 * MRs held, and the keys keep changing. The heap is measured while MRs are
 * held (a calloc per registration shows there, even if freed later).
 */
static void test_mr_subrange_no_alloc(void)
{
	const uint32_t acc = RPCRDMA_PMD_ACCESS_LOCAL_WRITE | RPCRDMA_PMD_ACCESS_REMOTE_WRITE;
	struct rpcrdma_pmd_mr *pool_mr, *held[MR_HELD], *all[127], *mr, *first;
	struct rpcrdma_pmd_dev *dev;
	struct rpcrdma_pmd_pd *pd;
	size_t before, worst = 0, after;
	uint32_t i, k, key0, bad = 0;
	uint64_t t0, t1;
	uint8_t *area;
	int fd;

	fd = memfd_create("test_pmd_shm", MFD_CLOEXEC);
	CHECK(fd >= 0 && ftruncate(fd, MR_AREA) == 0);
	area = mmap(NULL, MR_AREA, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(area != MAP_FAILED);
	CHECK_EQ(rpcrdma_pmd_dev_open("shm", "mr_max=128", &dev), 0);
	CHECK_EQ(rpcrdma_pmd_pd_alloc(dev, &pd), 0);
	CHECK_EQ(rpcrdma_pmd_mr_reg(pd, area, MR_AREA, acc, fd, 0, &pool_mr), 0);

	/* warm up: one of each, so lazily allocated state exists before measuring */
	CHECK_EQ(rpcrdma_pmd_mr_reg(pd, area + 4096, 4096, acc, -1, 0, &first), 0);
	key0 = first->rkey;
	CHECK_EQ(rpcrdma_pmd_mr_dereg(first), 0);
	/* deregistered: its key is dead (the FIFO hands out another entry next) */
	CHECK_EQ(rpcrdma_pmd_mr_invalidate(pd, key0), -ENOENT);

	before = heap_used();
	for (i = 0; i < (MR_ROUNDS + MR_HELD - 1) / MR_HELD; i++) {
		for (k = 0; k < MR_HELD; k++) {
			uint32_t off = ((i * MR_HELD + k) * 4096u) % (MR_AREA - 8192);

			if (rpcrdma_pmd_mr_reg(pd, area + off, 8192, acc, -1, 0, &held[k]) != 0) {
				bad++;
				held[k] = NULL;
				continue;
			}
			if (held[k]->addr != area + off || held[k]->length != 8192 ||
			    held[k]->lkey != held[k]->rkey)
				bad++;
		}
		after = heap_used();
		if (after > worst)
			worst = after;
		for (k = 0; k < MR_HELD; k++)
			if (held[k] != NULL && rpcrdma_pmd_mr_dereg(held[k]) != 0)
				bad++;
	}
	after = heap_used();
	CHECK_EQ(bad, 0);
	CHECK_EQ(pd->nb_mrs, 1);
	CHECK_EQ(worst > before ? worst - before : 0, 0); /* nothing allocated while held */
	CHECK_EQ(after, before);

	/* the preallocated table still fills up (-ENOSPC, no allocation) and empties */
	for (k = 0; k < 127; k++)
		CHECK_EQ(rpcrdma_pmd_mr_reg(pd, area, 64, acc, -1, 0, &all[k]), 0);
	CHECK_EQ(rpcrdma_pmd_mr_reg(pd, area, 64, acc, -1, 0, &mr), -ENOSPC);
	CHECK_EQ(pd->nb_mrs, 128);
	CHECK_EQ(heap_used(), before);
	for (k = 0; k < 127; k++)
		CHECK_EQ(rpcrdma_pmd_mr_dereg(all[k]), 0);
	CHECK_EQ(pd->nb_mrs, 1);

	/* the cost of one sub-range registration and its deregistration, for the log */
	t0 = now_ns();
	for (i = 0; i < MR_ROUNDS; i++) {
		if (rpcrdma_pmd_mr_reg(pd, area + (i % 255) * 4096u, 4096, acc, -1, 0, &mr) != 0) {
			bad++;
			break;
		}
		rpcrdma_pmd_mr_dereg(mr);
	}
	t1 = now_ns();
	CHECK_EQ(bad, 0);
	printf("shm mr_reg + mr_dereg of a 4 KiB sub-range: %.1f ns per pair (%u rounds)\n",
	       (double)(t1 - t0) / MR_ROUNDS, MR_ROUNDS);
	CHECK_EQ(rpcrdma_pmd_mr_dereg(pool_mr), 0);
	CHECK_EQ(rpcrdma_pmd_pd_free(pd), 0);
	CHECK_EQ(rpcrdma_pmd_dev_close(dev), 0);
	munmap(area, MR_AREA);
	close(fd);
}

/* ---- an SRQ and a hostile peer, both ends in this thread ---- */

struct end {
	struct rpcrdma_pmd_dev *dev;
	struct rpcrdma_pmd_pd *pd;
	struct rpcrdma_pmd_cq *cq;
	struct rpcrdma_pmd_mr *mr;
	struct rpcrdma_pmd_qp *qp;
};

static void end_open(struct end *e, uint8_t *mem, size_t len)
{
	CHECK_EQ(rpcrdma_pmd_dev_open("shm", NULL, &e->dev), 0);
	CHECK_EQ(rpcrdma_pmd_pd_alloc(e->dev, &e->pd), 0);
	CHECK_EQ(rpcrdma_pmd_cq_create(e->dev, 256, &e->cq), 0);
	CHECK_EQ(rpcrdma_pmd_mr_reg(e->pd, mem, len, RPCRDMA_PMD_ACCESS_LOCAL_WRITE, -1, 0, &e->mr),
		 0);
}

static void end_close(struct end *e)
{
	CHECK_EQ(rpcrdma_pmd_mr_dereg(e->mr), 0);
	CHECK_EQ(rpcrdma_pmd_cq_destroy(e->cq), 0);
	CHECK_EQ(rpcrdma_pmd_pd_free(e->pd), 0);
	CHECK_EQ(rpcrdma_pmd_dev_close(e->dev), 0);
}

/* Poll both devices' events until both QPs are established (bounded). */
static bool connect_ends(struct end *srv, struct end *cli, const char *addr)
{
	struct rpcrdma_pmd_listener *l;
	bool s_up = false, c_up = false;
	int i;

	CHECK_EQ(rpcrdma_pmd_listen(srv->dev, addr, &l), 0);
	CHECK_EQ(rpcrdma_pmd_connect(cli->qp, addr, NULL, 0), 0);
	for (i = 0; i < 100000 && !(s_up && c_up); i++) {
		struct rpcrdma_pmd_event ev;

		if (rpcrdma_pmd_event_poll(srv->dev, &ev, 1) == 1) {
			if (ev.type == RPCRDMA_PMD_EVENT_CONNECT_REQUEST)
				CHECK_EQ(rpcrdma_pmd_accept(ev.req, srv->qp, NULL, 0), 0);
			else if (ev.type == RPCRDMA_PMD_EVENT_ESTABLISHED)
				s_up = true;
		}
		if (rpcrdma_pmd_event_poll(cli->dev, &ev, 1) == 1 &&
		    ev.type == RPCRDMA_PMD_EVENT_ESTABLISHED)
			c_up = true;
	}
	CHECK_EQ(rpcrdma_pmd_listener_close(l), 0);
	CHECK(s_up && c_up);
	return s_up && c_up;
}

/* Four receives of 2 KiB each in @mem, wr_id from @wr_id. */
static void srq_recvs_init(struct rpcrdma_pmd_recv_wr *rw, struct rpcrdma_pmd_sge *sge,
			   uint8_t *mem, uint32_t lkey, uint64_t wr_id)
{
	for (int i = 0; i < 4; i++) {
		sge[i].addr = (uintptr_t)mem + (uint64_t)i * 2048;
		sge[i].length = 2048;
		sge[i].lkey = lkey;
		rw[i].wr_id = wr_id + (uint64_t)i;
		rw[i].sg_list = &sge[i];
		rw[i].num_sge = 1;
	}
}

/*
 * A server end whose QP takes its receives from an SRQ of 4, connected to a
 * client end with its own receive queue and no RNR retry (@name in the
 * address); the SRQ in *srq.
 */
static bool srq_ends_open(struct end *srv, struct end *cli, uint8_t *smem, size_t slen,
			  uint8_t *cmem, size_t clen, const char *name,
			  struct rpcrdma_pmd_srq **srq)
{
	struct rpcrdma_pmd_srq_attr sa;
	struct rpcrdma_pmd_qp_attr qa;
	char addr[64];

	end_open(srv, smem, slen);
	end_open(cli, cmem, clen);
	rpcrdma_pmd_srq_attr_init(&sa);
	sa.max_wr = 4;
	CHECK_EQ(rpcrdma_pmd_srq_create(srv->pd, &sa, srq), 0);
	rpcrdma_pmd_qp_attr_init(&qa);
	qa.send_cq = qa.recv_cq = srv->cq;
	qa.srq = *srq;
	CHECK_EQ(rpcrdma_pmd_qp_create(srv->pd, &qa, &srv->qp), 0);
	qa.send_cq = qa.recv_cq = cli->cq;
	qa.srq = NULL;
	qa.rnr_retry = 0;
	CHECK_EQ(rpcrdma_pmd_qp_create(cli->pd, &qa, &cli->qp), 0);
	snprintf(addr, sizeof(addr), "@rpcrdma-test-%s-%d", name, (int)getpid());
	return connect_ends(srv, cli, addr);
}

/* Undo srq_ends_open(): the client's QP, then the server's, the SRQ and both ends. */
static void srq_ends_close(struct end *srv, struct end *cli, struct rpcrdma_pmd_srq *srq)
{
	CHECK_EQ(rpcrdma_pmd_qp_destroy(cli->qp), 0);
	CHECK_EQ(rpcrdma_pmd_qp_destroy(srv->qp), 0);
	CHECK_EQ(rpcrdma_pmd_srq_destroy(srq), 0);
	end_close(cli);
	end_close(srv);
}

/*
 * The client's end writes into the server's SRQ slots what a hostile peer
 * may: a QP index that is not one of the server's, a state that is none,
 * and a claim index far ahead. The server drops those completions and keeps
 * reaping; the client's own SENDs then find no receive (RNR), never a slot
 * past the queue.
 */
static void test_srq_hostile_peer(void)
{
	static uint8_t smem[8192] __attribute__((aligned(4096)));
	static uint8_t cmem[4096] __attribute__((aligned(4096)));
	struct rpcrdma_pmd_srq *srq;
	struct rpcrdma_pmd_sge sge[4];
	struct rpcrdma_pmd_recv_wr rw[4];
	struct rpcrdma_pmd_send_wr sw;
	struct rpcrdma_pmd_wc wc[8];
	struct rpcrdma_shm_srq_area *a;
	struct end srv, cli;
	struct shm_qp *peer;
	int n;

	if (!srq_ends_open(&srv, &cli, smem, sizeof(smem), cmem, sizeof(cmem), "srq", &srq))
		return;
	peer = to_shm_qp(cli.qp);
	a = peer->peer_srq;
	CHECK(a != NULL && peer->peer_srq_index == to_shm_qp(srv.qp)->srq_index);
	if (a == NULL)
		return;

	srq_recvs_init(rw, sge, smem, srv.mr->lkey, 70);
	CHECK_EQ(rpcrdma_pmd_srq_post_recv_burst(srq, rw, 3), 3);
	/* slot 0: a QP index the server never gave; 1: its QP's, done; 2: no state at all */
	shm_slot(peer->peer_srq_rq, peer->peer_srq_slot_size, 0)->state =
		RPCRDMA_SHM_SLOT_WORD(RPCRDMA_SHM_SLOT_DONE, 999);
	shm_slot(peer->peer_srq_rq, peer->peer_srq_slot_size, 1)->byte_len = 7;
	shm_slot(peer->peer_srq_rq, peer->peer_srq_slot_size, 1)->wc_status = 0;
	shm_slot(peer->peer_srq_rq, peer->peer_srq_slot_size, 1)->state =
		RPCRDMA_SHM_SLOT_WORD(RPCRDMA_SHM_SLOT_DONE, peer->peer_srq_index);
	shm_slot(peer->peer_srq_rq, peer->peer_srq_slot_size, 2)->state = 0x77;
	n = rpcrdma_pmd_poll_cq_burst(srv.cq, wc, 8);
	CHECK_EQ(n, 1);
	CHECK(wc[0].wr_id == 71 && wc[0].qp == srv.qp && wc[0].byte_len == 7 &&
	      wc[0].status == RPCRDMA_PMD_WC_SUCCESS);
	/* all three slots reaped: four can be posted again */
	CHECK_EQ(rpcrdma_pmd_srq_post_recv_burst(srq, rw, 4), 4);

	/* a claim index far ahead of what is posted: the client's SEND sees RNR */
	__atomic_store_n(&a->rq_tail, 1ull << 40, __ATOMIC_RELAXED);
	memset(&sw, 0, sizeof(sw));
	sge[0].addr = (uintptr_t)cmem;
	sge[0].length = 16;
	sge[0].lkey = cli.mr->lkey;
	sw.wr_id = 5;
	sw.sg_list = sge;
	sw.num_sge = 1;
	sw.opcode = RPCRDMA_PMD_WR_SEND;
	sw.flags = RPCRDMA_PMD_SEND_SIGNALED;
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(cli.qp, &sw, 1), 1);
	CHECK_EQ(rpcrdma_pmd_flush(cli.qp), 1);
	n = rpcrdma_pmd_poll_cq_burst(cli.cq, wc, 8);
	CHECK(n == 1 && wc[0].wr_id == 5 && wc[0].status == RPCRDMA_PMD_WC_RNR_RETRY_EXC_ERR);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(srv.cq, wc, 8), 0);

	CHECK_EQ(rpcrdma_pmd_qp_destroy(cli.qp), 0);
	CHECK_EQ(rpcrdma_pmd_srq_destroy(srq), -EBUSY);
	CHECK_EQ(rpcrdma_pmd_qp_destroy(srv.qp), 0);
	CHECK_EQ(rpcrdma_pmd_srq_destroy(srq), 0);
	end_close(&cli);
	end_close(&srv);
}

/*
 * A peer that read rq_tail and rq_head, then was descheduled while the SRQ
 * went round, acts on that view: the slot at its claim index has been
 * taken, reaped and posted again for the next round. It must not take it:
 * the owner reaps in order, and a message there would wait behind every
 * slot posted before it (a reply lost for as long as nothing else comes).
 * The view is written into the area; the Send must land in the receive
 * the owner reaps next.
 */
static void test_srq_stale_claim(void)
{
	static uint8_t smem[8192] __attribute__((aligned(4096)));
	static uint8_t cmem[4096] __attribute__((aligned(4096)));
	struct rpcrdma_pmd_srq *srq;
	struct rpcrdma_pmd_sge sge[4], ssge;
	struct rpcrdma_pmd_recv_wr rw[4];
	struct rpcrdma_pmd_send_wr sw;
	struct rpcrdma_pmd_wc wc[8];
	struct rpcrdma_shm_srq_area *a;
	struct end srv, cli;
	uint64_t head;
	int n;

	if (!srq_ends_open(&srv, &cli, smem, sizeof(smem), cmem, sizeof(cmem), "srq-stale", &srq))
		return;
	a = to_shm_qp(cli.qp)->peer_srq;
	CHECK(a != NULL && a->rq_size == 4);
	if (a == NULL || a->rq_size != 4)
		return;

	srq_recvs_init(rw, sge, smem, srv.mr->lkey, 80);
	memset(&sw, 0, sizeof(sw));
	ssge.addr = (uintptr_t)cmem;
	ssge.length = 24;
	ssge.lkey = cli.mr->lkey;
	sw.sg_list = &ssge;
	sw.num_sge = 1;
	sw.opcode = RPCRDMA_PMD_WR_SEND;
	sw.flags = RPCRDMA_PMD_SEND_SIGNALED;

	/* positions 0..3 posted; a Send takes 0; it is reaped and posted again (position 4) */
	CHECK_EQ(rpcrdma_pmd_srq_post_recv_burst(srq, rw, 4), 4);
	sw.wr_id = 1;
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(cli.qp, &sw, 1), 1);
	CHECK_EQ(rpcrdma_pmd_flush(cli.qp), 1);
	n = rpcrdma_pmd_poll_cq_burst(cli.cq, wc, 8);
	CHECK(n == 1 && wc[0].wr_id == 1 && wc[0].status == RPCRDMA_PMD_WC_SUCCESS);
	n = rpcrdma_pmd_poll_cq_burst(srv.cq, wc, 8);
	CHECK(n == 1 && wc[0].wr_id == 80 && wc[0].byte_len == 24);
	CHECK_EQ(rpcrdma_pmd_srq_post_recv_burst(srq, rw, 1), 1);

	/* the stale view: claim index 0, four posted (position 4 not yet) */
	head = __atomic_load_n(&a->rq_head, __ATOMIC_ACQUIRE);
	CHECK_EQ(head, 5);
	__atomic_store_n(&a->rq_tail, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&a->rq_head, 4, __ATOMIC_RELEASE);
	sw.wr_id = 2;
	ssge.length = 40;
	CHECK_EQ(rpcrdma_pmd_queue_send_burst(cli.qp, &sw, 1), 1);
	CHECK_EQ(rpcrdma_pmd_flush(cli.qp), 1);
	__atomic_store_n(&a->rq_head, head, __ATOMIC_RELEASE);
	n = rpcrdma_pmd_poll_cq_burst(cli.cq, wc, 8);
	CHECK(n == 1 && wc[0].wr_id == 2 && wc[0].status == RPCRDMA_PMD_WC_SUCCESS);
	/* position 1's receive, the next reaped; not position 4's */
	n = rpcrdma_pmd_poll_cq_burst(srv.cq, wc, 8);
	CHECK(n == 1 && wc[0].wr_id == 81 && wc[0].byte_len == 40 &&
	      wc[0].status == RPCRDMA_PMD_WC_SUCCESS);
	CHECK_EQ(__atomic_load_n(&a->rq_tail, __ATOMIC_ACQUIRE), 2);

	srq_ends_close(&srv, &cli, srq);
}

/*
 * A peer claimed a receive for a QP that is then destroyed, and is still
 * copying into it (descheduled): the owner must not reap the slot, and so
 * post its receive again, until the peer says DONE, or until the QP's SRQ
 * index has been retired for SHM_SRQ_RETIRE_MS (a peer that died in the
 * copy). Nor is the index given to the next QP attached. The claims are
 * written into the area as the peer's srq_claim() writes them.
 */
static void test_srq_claim_of_destroyed_qp(void)
{
	static uint8_t smem[8192] __attribute__((aligned(4096)));
	static uint8_t cmem[4096] __attribute__((aligned(4096)));
	struct rpcrdma_pmd_srq *srq;
	struct rpcrdma_pmd_sge sge[4];
	struct rpcrdma_pmd_recv_wr rw[4];
	struct rpcrdma_pmd_qp_attr qa;
	struct rpcrdma_pmd_wc wc[8];
	struct rpcrdma_shm_rq_slot *s0, *s1;
	struct rpcrdma_pmd_qp *next;
	struct shm_srq *ssrq;
	struct end srv, cli;
	struct shm_qp *peer;
	uint32_t idx;

	if (!srq_ends_open(&srv, &cli, smem, sizeof(smem), cmem, sizeof(cmem), "srq-gone", &srq))
		return;
	peer = to_shm_qp(cli.qp);
	ssrq = to_shm_srq(srq);
	idx = to_shm_qp(srv.qp)->srq_index;
	CHECK(peer->peer_srq != NULL && peer->peer_srq_index == idx);
	if (peer->peer_srq == NULL)
		return;
	srq_recvs_init(rw, sge, smem, srv.mr->lkey, 90);
	CHECK_EQ(rpcrdma_pmd_srq_post_recv_burst(srq, rw, 4), 4);
	/* positions 0 and 1 claimed for the server's QP, the peer still copying */
	s0 = shm_slot(peer->peer_srq_rq, peer->peer_srq_slot_size, 0);
	s1 = shm_slot(peer->peer_srq_rq, peer->peer_srq_slot_size, 1);
	__atomic_store_n(&s0->state, RPCRDMA_SHM_SLOT_WORD(RPCRDMA_SHM_SLOT_CLAIMED, idx),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&s1->state, RPCRDMA_SHM_SLOT_WORD(RPCRDMA_SHM_SLOT_CLAIMED, idx),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&peer->peer_srq->rq_tail, 2, __ATOMIC_RELEASE);

	/* the server's QP goes; a QP attached next takes the SRQ's completions */
	CHECK_EQ(rpcrdma_pmd_qp_destroy(srv.qp), 0);
	rpcrdma_pmd_qp_attr_init(&qa);
	qa.send_cq = qa.recv_cq = srv.cq;
	qa.srq = srq;
	CHECK_EQ(rpcrdma_pmd_qp_create(srv.pd, &qa, &next), 0);
	CHECK(to_shm_qp(next)->srq_index != idx);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(srv.cq, wc, 8), 0);
	CHECK_EQ(ssrq->rq_reap, 0);
	/* nothing reaped: no room to post (the SRQ holds 4) */
	CHECK_EQ(rpcrdma_pmd_srq_post_recv_burst(srq, rw, 1), 0);

	/* the peer finishes position 0: reaped, and dropped with its QP */
	s0->wc_status = RPCRDMA_PMD_WC_SUCCESS;
	s0->byte_len = 12;
	__atomic_store_n(&s0->state, RPCRDMA_SHM_SLOT_WORD(RPCRDMA_SHM_SLOT_DONE, idx),
			 __ATOMIC_RELEASE);
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(srv.cq, wc, 8), 0);
	CHECK_EQ(ssrq->rq_reap, 1);
	/* position 1's peer never finishes: reaped once the retirement ends */
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(srv.cq, wc, 8), 0);
	CHECK_EQ(ssrq->rq_reap, 1);
	CHECK(ssrq->qps[idx].qp == NULL && ssrq->qps[idx].until > rte_rdtsc());
	ssrq->qps[idx].until = rte_rdtsc(); /* as if SHM_SRQ_RETIRE_MS went by */
	CHECK_EQ(rpcrdma_pmd_poll_cq_burst(srv.cq, wc, 8), 0);
	CHECK_EQ(ssrq->rq_reap, 2);
	CHECK_EQ(rpcrdma_pmd_srq_post_recv_burst(srq, rw, 2), 2);

	srv.qp = next; /* the server's QP now */
	srq_ends_close(&srv, &cli, srq);
}

/* The peer of test_srq_destroy_waits(): finishes its claim of @p slot late. */
struct late_peer {
	struct rpcrdma_shm_rq_slot *slot;
	uint32_t idx;
	uint64_t done_at; /* TSC when it wrote DONE; 0 before */
};

static void *late_peer_run(void *arg)
{
	struct late_peer *lp = arg;
	const struct timespec ts = { 0, 100 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	lp->slot->wc_status = RPCRDMA_PMD_WC_SUCCESS;
	lp->slot->byte_len = 12;
	__atomic_store_n(&lp->done_at, rte_rdtsc(), __ATOMIC_RELAXED);
	__atomic_store_n(&lp->slot->state, RPCRDMA_SHM_SLOT_WORD(RPCRDMA_SHM_SLOT_DONE, lp->idx),
			 __ATOMIC_RELEASE);
	return NULL;
}

/*
 * The SRQ destroyed while a peer still copies into a receive it claimed for
 * a QP destroyed just before: the destroy returns only once that slot is
 * DONE (the receive buffer is the application's again after it), or, for a
 * peer that never finishes, once the QP's index has been retired for its
 * time. The claim is written as the peer's srq_claim() writes it.
 */
static void test_srq_destroy_waits(bool peer_finishes)
{
	static uint8_t smem[8192] __attribute__((aligned(4096)));
	static uint8_t cmem[4096] __attribute__((aligned(4096)));
	struct rpcrdma_pmd_srq *srq;
	struct rpcrdma_pmd_sge sge[4];
	struct rpcrdma_pmd_recv_wr rw[4];
	struct late_peer lp = { 0 };
	struct shm_srq *ssrq;
	struct end srv, cli;
	struct shm_qp *peer;
	uint64_t until = 0, back;
	pthread_t th;

	if (!srq_ends_open(&srv, &cli, smem, sizeof(smem), cmem, sizeof(cmem),
			   peer_finishes ? "srq-late" : "srq-dead", &srq))
		return;
	peer = to_shm_qp(cli.qp);
	ssrq = to_shm_srq(srq);
	lp.idx = to_shm_qp(srv.qp)->srq_index;
	CHECK(peer->peer_srq != NULL && peer->peer_srq_index == lp.idx);
	if (peer->peer_srq == NULL)
		return;
	srq_recvs_init(rw, sge, smem, srv.mr->lkey, 110);
	CHECK_EQ(rpcrdma_pmd_srq_post_recv_burst(srq, rw, 4), 4);
	lp.slot = shm_slot(peer->peer_srq_rq, peer->peer_srq_slot_size, 0);
	__atomic_store_n(&lp.slot->state, RPCRDMA_SHM_SLOT_WORD(RPCRDMA_SHM_SLOT_CLAIMED, lp.idx),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&peer->peer_srq->rq_tail, 1, __ATOMIC_RELEASE);
	CHECK_EQ(rpcrdma_pmd_qp_destroy(srv.qp), 0);
	CHECK(ssrq->qps[lp.idx].qp == NULL && ssrq->qps[lp.idx].until > rte_rdtsc());

	if (peer_finishes) {
		CHECK_EQ(pthread_create(&th, NULL, late_peer_run, &lp), 0);
	} else {
		/* a grace of 50 ms rather than SHM_SRQ_RETIRE_MS */
		until = rte_rdtsc() + shm_tsc_hz() / 20;
		ssrq->qps[lp.idx].until = until;
	}
	CHECK_EQ(rpcrdma_pmd_srq_destroy(srq), 0);
	back = rte_rdtsc();
	if (peer_finishes) {
		/* the copy was over before the destroy returned */
		CHECK(__atomic_load_n(&lp.done_at, __ATOMIC_RELAXED) != 0);
		CHECK(pthread_join(th, NULL) == 0);
		CHECK(lp.done_at <= back);
	} else {
		/* still CLAIMED: the destroy waited out the grace, and no longer hangs */
		CHECK(back >= until);
		CHECK_EQ(RPCRDMA_SHM_SLOT_STATE(__atomic_load_n(&lp.slot->state, __ATOMIC_ACQUIRE)),
			 RPCRDMA_SHM_SLOT_CLAIMED);
	}
	CHECK_EQ(rpcrdma_pmd_qp_destroy(cli.qp), 0);
	end_close(&cli);
	end_close(&srv);
}

int main(void)
{
	test_dev_info_defaults();
	test_dev_info_shm();
	test_dev_info_limits();
	test_cq_overrun_log();
	test_mr_subrange_no_alloc();
	test_srq_hostile_peer();
	test_srq_stale_claim();
	test_srq_claim_of_destroyed_qp();
	test_srq_destroy_waits(true);
	test_srq_destroy_waits(false);
	return test_summary("pmd_shm");
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The common PMD layer and the shm PMD in one thread, without EAL or a
 * connection: device capabilities (rpcrdma_pmd_dev_info_get) of shm and the
 * defaults the common layer gives a driver that does not say; the refusal
 * of a QP that would overrun its CQ, and its log line; per-call sub-range
 * MR registration without heap allocation (and its cost, printed).
 */
#include <errno.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_pmd_driver.h>

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

static struct rpcrdma_pmd_ops bare_ops = {
	.name = "test_bare",
	.dev_open = bare_open,
	.dev_close = bare_close,
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
	CHECK_EQ(rpcrdma_pmd_dev_info_get(NULL, &info), -EINVAL);
	CHECK_EQ(rpcrdma_pmd_dev_info_get(dev, NULL), -EINVAL);
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

int main(void)
{
	test_dev_info_defaults();
	test_dev_info_shm();
	test_dev_info_limits();
	test_cq_overrun_log();
	test_mr_subrange_no_alloc();
	return test_summary("pmd_shm");
}

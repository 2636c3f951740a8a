/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shm PMD: what the control path (shm_ctrl.c) and the shared receive queues
 * (shm_srq.c) both use, so that neither calls the other's file back: the
 * TSC's rate, the shared-memory areas (a memfd of our own, a peer's fd
 * mapped) and the device's FIFO of events that rpcrdma_pmd_event_poll()
 * returns.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "shm.h"

uint64_t shm_tsc_hz(void)
{
	static uint64_t hz;
	struct timespec t0, t1;
	uint64_t c0, c1, ns;

	if (hz != 0)
		return hz;
	hz = rte_get_tsc_hz();
	if (hz != 0)
		return hz;
	/* no EAL: measure for 10 ms */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	c0 = rte_rdtsc();
	do {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull + (uint64_t)t1.tv_nsec -
		     (uint64_t)t0.tv_nsec;
	} while (ns < 10000000);
	c1 = rte_rdtsc();
	hz = (c1 - c0) * 1000000000ull / ns;
	return hz;
}

void *shm_memfd_area(const char *name, size_t size, int *fdp)
{
	void *p;
	int fd;

	fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (ftruncate(fd, (off_t)size) != 0) {
		close(fd);
		return NULL;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	*fdp = fd;
	return p;
}

/* Map [off, off + len) of a peer's fd after checking the file is that large. */
void *shm_map_peer_fd(int fd, uint64_t off, uint64_t len)
{
	struct stat st;
	void *p;

	if (len == 0 || fstat(fd, &st) != 0 || off + len < off || off + len > (uint64_t)st.st_size)
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
	return p == MAP_FAILED ? NULL : p;
}

/* ---------------- events ---------------- */

int shm_ev_push(struct shm_dev *dev, enum rpcrdma_pmd_event_type type, struct shm_qp *qp,
		struct rpcrdma_pmd_conn_req *req, const uint8_t *pdata, uint8_t pdata_len)
{
	struct rpcrdma_pmd_event *ev;

	if (dev->evq_len == dev->evq_cap) {
		unsigned int cap = dev->evq_cap ? dev->evq_cap * 2 : 16, i;
		struct shm_event *q = calloc(cap, sizeof(*q));

		if (q == NULL)
			return -ENOMEM;
		for (i = 0; i < dev->evq_len; i++)
			q[i] = dev->evq[(dev->evq_head + i) % dev->evq_cap];
		free(dev->evq);
		dev->evq = q;
		dev->evq_cap = cap;
		dev->evq_head = 0;
	}
	ev = &dev->evq[(dev->evq_head + dev->evq_len) % dev->evq_cap].ev;
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->qp = qp != NULL ? &qp->common : NULL;
	ev->req = req;
	ev->listener = req != NULL ? req->listener : NULL;
	if (pdata_len > RPCRDMA_PMD_PRIVATE_DATA_MAX)
		pdata_len = RPCRDMA_PMD_PRIVATE_DATA_MAX;
	ev->private_data_len = pdata_len;
	if (pdata_len)
		memcpy(ev->private_data, pdata, pdata_len);
	dev->evq_len++;
	return 0;
}

/* Drop events that refer to @qp or @req (being destroyed). */
void shm_ev_forget(struct shm_dev *dev, struct shm_qp *qp, struct rpcrdma_pmd_conn_req *req)
{
	unsigned int i;

	for (i = 0; i < dev->evq_len; i++) {
		struct rpcrdma_pmd_event *ev = &dev->evq[(dev->evq_head + i) % dev->evq_cap].ev;

		if ((qp != NULL && ev->qp == &qp->common) || (req != NULL && ev->req == req))
			ev->type = 0; /* skipped by shm_ev_pop */
	}
}

/* An SRQ's limit was reached (shm_srq.c). */
int shm_ev_push_srq(struct shm_dev *dev, struct shm_srq *srq)
{
	int ret = shm_ev_push(dev, RPCRDMA_PMD_EVENT_SRQ_LIMIT, NULL, NULL, NULL, 0);

	if (ret == 0)
		dev->evq[(dev->evq_head + dev->evq_len - 1) % dev->evq_cap].ev.srq = &srq->common;
	return ret;
}

/* Drop the events of an SRQ being destroyed. */
void shm_ev_forget_srq(struct shm_dev *dev, struct shm_srq *srq)
{
	unsigned int i;

	for (i = 0; i < dev->evq_len; i++) {
		struct rpcrdma_pmd_event *ev = &dev->evq[(dev->evq_head + i) % dev->evq_cap].ev;

		if (ev->srq == &srq->common)
			ev->type = 0; /* skipped by shm_ev_pop */
	}
}

unsigned int shm_ev_pop(struct shm_dev *dev, struct rpcrdma_pmd_event *ev, unsigned int n)
{
	unsigned int k = 0;

	while (k < n && dev->evq_len != 0) {
		struct rpcrdma_pmd_event *e = &dev->evq[dev->evq_head].ev;

		dev->evq_head = (dev->evq_head + 1) % dev->evq_cap;
		dev->evq_len--;
		if (e->type != 0)
			ev[k++] = *e;
	}
	return k;
}

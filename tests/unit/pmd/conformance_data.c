/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PMD conformance suite: the data path. SEND lands in the next receive, in
 * order, gathered and scattered; unsignaled work requests; SEND_WITH_INV;
 * RDMA Write and Read land exactly where addressed; access errors; RNR
 * retries exceeded and a late receive. Each case is a server half and a
 * client half (conformance_cases.c has the table).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "conformance.h"

#define WAIT 5000 /* ms */

/*
 * ---- send_recv: SEND lands in the next receive, in order, gathered and
 * scattered; the QP's prefetch hints change nothing of it ----
 */

static const uint32_t sr_len[4] = { 1, 64, 4096, 0 };

void send_recv_server(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_recv_wr wr[5];
	struct rpcrdma_pmd_sge sge[6];
	struct rpcrdma_pmd_wc wc[5];
	void *buf[6];
	unsigned int i, n;

	if (qp == NULL) {
		oob_sync(ep, "posted");
		return;
	}
	for (i = 0; i < 6; i++)
		buf[i] = inl_get(ep);
	for (i = 0; i < 4; i++) {
		sge[i] = sge_of(ep->set->inline_pool, buf[i], 4096);
		wr[i].wr_id = 100 + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
	}
	/* the fifth scatters over two buffers: 100 bytes, then up to 4096 */
	sge[4] = sge_of(ep->set->inline_pool, buf[4], 100);
	sge[5] = sge_of(ep->set->inline_pool, buf[5], 4096);
	wr[4].wr_id = 104;
	wr[4].sg_list = &sge[4];
	wr[4].num_sge = 2;
	CHECK(ep, rpcrdma_pmd_post_recv_burst(qp, wr, 5) == 5);
	CHECK(ep, qp->stats.recv_wrs == 5);
	oob_sync(ep, "posted");

	n = poll_n(ep, wc, 5, WAIT);
	CHECK(ep, n == 5);
	for (i = 0; i < n; i++) {
		CHECK(ep, wc[i].wr_id == 100 + i);
		CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_SUCCESS);
		CHECK(ep, wc[i].opcode == RPCRDMA_PMD_WC_RECV);
		CHECK(ep, wc[i].qp == qp && wc[i].qp_num == qp->qp_num);
		CHECK(ep, wc[i].flags == 0);
		if (i < 4) {
			CHECK(ep, wc[i].byte_len == sr_len[i]);
			CHECK(ep, same(buf[i], sr_len[i], i, 0));
		}
	}
	if (n == 5) {
		CHECK(ep, wc[4].byte_len == 300);
		CHECK(ep, same(buf[4], 100, 4, 0));
		CHECK(ep, same(buf[5], 200, 4, 100));
	}
	for (i = 0; i < 6; i++)
		inl_put(ep, buf[i]);
	CHECK(ep, poll_n(ep, wc, 1, 10) == 0);
}

void send_recv_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_send_wr wr[5];
	struct rpcrdma_pmd_sge sge[7];
	struct rpcrdma_pmd_wc wc[5];
	struct rpcrdma_pmd_qp before;
	void *buf[5];
	unsigned int i, n;

	oob_sync(ep, "posted");
	if (qp == NULL)
		return;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 5; i++) {
		buf[i] = inl_get(ep);
		fill(buf[i], 4096, i);
	}
	for (i = 0; i < 4; i++) {
		sge[i] = sge_of(ep->set->inline_pool, buf[i], sr_len[i]);
		wr[i].wr_id = i;
		wr[i].opcode = RPCRDMA_PMD_WR_SEND;
		wr[i].flags = RPCRDMA_PMD_SEND_SIGNALED;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = sr_len[i] ? 1 : 0;
	}
	/* the fifth gathers three pieces of one buffer: 300 bytes */
	sge[4] = sge_of(ep->set->inline_pool, buf[4], 100);
	sge[5] = sge_of(ep->set->inline_pool, (char *)buf[4] + 100, 150);
	sge[6] = sge_of(ep->set->inline_pool, (char *)buf[4] + 250, 50);
	wr[4].wr_id = 4;
	wr[4].opcode = RPCRDMA_PMD_WR_SEND;
	wr[4].flags = RPCRDMA_PMD_SEND_SIGNALED;
	wr[4].sg_list = &sge[4];
	wr[4].num_sge = 3;

	/* the prefetch hints, before and after queueing: they change nothing */
	before = *qp;
	rpcrdma_pmd_qp_prefetch(qp);
	rpcrdma_pmd_qp_prefetch_doorbell(qp);
	CHECK(ep, memcmp(&before, qp, sizeof(before)) == 0);
	CHECK(ep, rpcrdma_pmd_queue_send_burst(qp, wr, 5) == 5);
	CHECK(ep, qp->stats.send_wrs == 5 && qp->stats.doorbells == 0);
	before = *qp;
	rpcrdma_pmd_qp_prefetch(qp);
	rpcrdma_pmd_qp_prefetch_doorbell(qp);
	CHECK(ep, memcmp(&before, qp, sizeof(before)) == 0);
	/* nothing executes before the doorbell, a prefetched one included */
	CHECK(ep, poll_n(ep, wc, 1, 1) == 0);
	CHECK(ep, rpcrdma_pmd_flush(qp) == 5);
	CHECK(ep, rpcrdma_pmd_flush(qp) == 0); /* nothing staged: no doorbell */
	CHECK(ep, qp->stats.doorbells == 1);
	n = poll_n(ep, wc, 5, WAIT);
	CHECK(ep, n == 5);
	for (i = 0; i < n; i++) {
		CHECK(ep, wc[i].wr_id == i);
		CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_SUCCESS);
		CHECK(ep, wc[i].opcode == RPCRDMA_PMD_WC_SEND);
	}
	for (i = 0; i < 5; i++)
		inl_put(ep, buf[i]);
}

/* ---- unsignaled: only signaled WRs complete on success ---- */

void unsignaled_server(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_wc wc[3];
	unsigned int i, n;

	for (i = 0; qp != NULL && i < 3; i++)
		CHECK(ep, post_inline_recv(ep, qp, 4096));
	oob_sync(ep, "posted");
	n = poll_n(ep, wc, 3, WAIT);
	CHECK(ep, n == 3);
	for (i = 0; i < n; i++)
		CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_SUCCESS && wc[i].byte_len == 8);
	put_recv_bufs(ep, wc, n);
}

void unsignaled_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_send_wr wr[3];
	struct rpcrdma_pmd_sge sge;
	struct rpcrdma_pmd_wc wc[3];
	void *b = inl_get(ep);
	unsigned int i;

	oob_sync(ep, "posted");
	if (qp == NULL || b == NULL)
		goto out;
	sge = sge_of(ep->set->inline_pool, b, 8);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 3; i++) {
		wr[i].wr_id = 10 + i;
		wr[i].opcode = RPCRDMA_PMD_WR_SEND;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
	}
	wr[2].flags = RPCRDMA_PMD_SEND_SIGNALED;
	CHECK(ep, rpcrdma_pmd_queue_send_burst(qp, wr, 3) == 3);
	CHECK(ep, rpcrdma_pmd_flush(qp) == 3);
	CHECK(ep, poll_n(ep, wc, 3, 200) == 1);
	CHECK(ep, wc[0].wr_id == 12 && wc[0].status == RPCRDMA_PMD_WC_SUCCESS);
out:
	if (b != NULL)
		inl_put(ep, b);
}

/* ---- send_inv: SEND_WITH_INV invalidates the named rkey at the receiver ---- */

void send_inv_server(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_mempool *pool = ep->set->chunk[0];
	struct rpcrdma_pmd_mr *mr = NULL;
	struct rpcrdma_pmd_wc wc[2];
	struct rbuf rb = { 0 };
	void *chunk = rpcrdma_mempool_get(pool);
	uint32_t old;
	unsigned int n;

	CHECK(ep, chunk != NULL);
	/* an MR of one buffer inside the pool's registered memory (no fd needed) */
	CHECK(ep,
	      rpcrdma_pmd_mr_reg(ep->pd, chunk, 4096,
				 RPCRDMA_PMD_ACCESS_LOCAL_WRITE | RPCRDMA_PMD_ACCESS_REMOTE_WRITE,
				 -1, 0, &mr) == 0);
	if (mr != NULL) {
		CHECK(ep, mr->rkey != pool->rkey);
		rb.addr = (uintptr_t)chunk;
		rb.len = 4096;
		rb.rkey = mr->rkey;
	}
	if (qp != NULL) {
		CHECK(ep, post_inline_recv(ep, qp, 4096));
		CHECK(ep, post_inline_recv(ep, qp, 4096));
	}
	oob_put(ep, &rb, sizeof(rb));
	oob_sync(ep, "sent");
	n = poll_n(ep, wc, 1, WAIT);
	CHECK(ep, n == 1);
	if (n == 1 && mr != NULL) {
		CHECK(ep, wc[0].status == RPCRDMA_PMD_WC_SUCCESS);
		CHECK(ep, wc[0].flags & RPCRDMA_PMD_WC_WITH_INV);
		CHECK(ep, wc[0].invalidated_rkey == mr->rkey);
		CHECK(ep, wc[0].byte_len == 16);
		/* already invalid: a local invalidate finds nothing */
		CHECK(ep, rpcrdma_pmd_mr_invalidate(ep->pd, mr->rkey) == -ENOENT);
	}
	put_recv_bufs(ep, wc, n);
	oob_sync(ep, "checked");
	/* the client's RDMA WRITE to the dead rkey fails, and our QP goes to error */
	n = poll_n(ep, wc, 1, WAIT);
	CHECK(ep, n == 1 && wc[0].status == RPCRDMA_PMD_WC_WR_FLUSH_ERR);
	put_recv_bufs(ep, wc, n);
	if (qp != NULL)
		CHECK(ep, qp->state == RPCRDMA_PMD_QPS_ERROR);
	if (mr != NULL) {
		old = mr->rkey;
		CHECK(ep, rpcrdma_pmd_mr_rekey(mr) == 0);
		CHECK(ep, mr->rkey != old && mr->lkey == mr->rkey);
		CHECK(ep, rpcrdma_pmd_mr_invalidate(ep->pd, old) == -ENOENT);
		CHECK(ep, rpcrdma_pmd_mr_invalidate(ep->pd, mr->rkey) == 0);
		CHECK(ep, rpcrdma_pmd_mr_invalidate(ep->pd, mr->rkey) == -ENOENT);
		CHECK(ep, rpcrdma_pmd_mr_dereg(mr) == 0);
	}
	if (chunk != NULL)
		rpcrdma_mempool_put(pool, chunk);
}

void send_inv_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_send_wr wr;
	struct rpcrdma_pmd_sge sge;
	struct rpcrdma_pmd_wc wc;
	struct rbuf rb;
	void *b = inl_get(ep);

	oob_get(ep, &rb, sizeof(rb));
	sge = sge_of(ep->set->inline_pool, b, 16);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = RPCRDMA_PMD_WR_SEND_WITH_INV;
	wr.flags = RPCRDMA_PMD_SEND_SIGNALED;
	wr.invalidate_rkey = rb.rkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (qp != NULL) {
		CHECK(ep, post_send1(qp, &wr));
		CHECK(ep, poll_n(ep, &wc, 1, WAIT) == 1 && wc.status == RPCRDMA_PMD_WC_SUCCESS &&
				  wc.opcode == RPCRDMA_PMD_WC_SEND);
	}
	oob_sync(ep, "sent");
	oob_sync(ep, "checked");
	wr.wr_id = 2;
	wr.opcode = RPCRDMA_PMD_WR_RDMA_WRITE;
	wr.remote_addr = rb.addr;
	wr.rkey = rb.rkey;
	if (qp != NULL) {
		CHECK(ep, post_send1(qp, &wr));
		CHECK(ep, poll_n(ep, &wc, 1, WAIT) == 1 &&
				  wc.status == RPCRDMA_PMD_WC_REM_ACCESS_ERR && wc.wr_id == 2);
		CHECK(ep, qp->state == RPCRDMA_PMD_QPS_ERROR);
	}
	inl_put(ep, b);
}

/* ---- rdma_write: bytes land exactly in [remote_addr, remote_addr + len) ---- */

void rdma_write_server(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_mempool *pool = ep->set->chunk[0];
	uint8_t *chunk = rpcrdma_mempool_get(pool);
	struct rbuf rb = { 0 };
	uint32_t i;
	bool zero = true;

	(void)qp;
	CHECK(ep, chunk != NULL);
	if (chunk != NULL) {
		memset(chunk, 0, 65536);
		rb.addr = (uintptr_t)chunk + 50;
		rb.rkey = pool->rkey;
	}
	oob_put(ep, &rb, sizeof(rb));
	oob_sync(ep, "written");
	if (chunk == NULL)
		return;
	CHECK(ep, same(chunk + 50, 65436, 3, 0));
	for (i = 0; i < 50; i++)
		zero = zero && chunk[i] == 0;
	for (i = 65486; i < 65536; i++)
		zero = zero && chunk[i] == 0;
	CHECK(ep, zero);
	rpcrdma_mempool_put(pool, chunk);
}

void rdma_write_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_mempool *pool = ep->set->chunk[0];
	uint8_t *chunk = rpcrdma_mempool_get(pool);
	struct rpcrdma_pmd_send_wr wr;
	struct rpcrdma_pmd_sge sge[2];
	struct rpcrdma_pmd_wc wc;
	struct rbuf rb;

	oob_get(ep, &rb, sizeof(rb));
	CHECK(ep, chunk != NULL);
	if (qp != NULL && chunk != NULL) {
		fill(chunk, 65436, 3);
		sge[0] = sge_of(pool, chunk, 1000);
		sge[1] = sge_of(pool, chunk + 1000, 65436 - 1000);
		rdma_wr(&wr, 7, RPCRDMA_PMD_WR_RDMA_WRITE, RPCRDMA_PMD_SEND_SIGNALED, &rb, sge, 2);
		CHECK(ep, post_send1(qp, &wr));
		CHECK(ep, poll_n(ep, &wc, 1, WAIT) == 1);
		CHECK(ep, wc.wr_id == 7 && wc.status == RPCRDMA_PMD_WC_SUCCESS &&
				  wc.opcode == RPCRDMA_PMD_WC_RDMA_WRITE);
	}
	oob_sync(ep, "written");
	if (chunk != NULL)
		rpcrdma_mempool_put(pool, chunk);
}

/*
 * ---- rdma_read: remote bytes into a local SGL (registered as the device
 * asks of Read sinks), byte_len reported ----
 */

void rdma_read_server(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_mempool *pool = ep->set->chunk[0];
	uint8_t *chunk = rpcrdma_mempool_get(pool);
	struct rbuf rb = { 0 };

	(void)qp;
	if (chunk != NULL) {
		fill(chunk, 65536, 9);
		rb.addr = (uintptr_t)chunk;
		rb.rkey = pool->rkey;
	}
	oob_put(ep, &rb, sizeof(rb));
	oob_sync(ep, "read");
	if (chunk != NULL) {
		CHECK(ep, same(chunk, 65536, 9, 0)); /* a READ leaves the source alone */
		rpcrdma_mempool_put(pool, chunk);
	}
}

void rdma_read_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_mempool *pool = ep->set->chunk[0];
	uint8_t *chunk = rpcrdma_mempool_get(pool);
	uint8_t *inl = inl_get(ep);
	struct rpcrdma_pmd_mr *sink[2] = { NULL, NULL };
	struct rpcrdma_pmd_send_wr wr;
	struct rpcrdma_pmd_sge sge[2];
	struct rpcrdma_pmd_wc wc;
	struct rbuf rb;

	oob_get(ep, &rb, sizeof(rb));
	if (qp != NULL && chunk != NULL && inl != NULL) {
		/* scattered over two buffers where the device allows it (iWARP: one sink) */
		bool two = ep->info.max_read_sge >= 2;
		/* the sinks registered as the device asks (iWARP: remote write too) */
		uint32_t access = RPCRDMA_PMD_ACCESS_LOCAL_WRITE;

		if (ep->info.flags & RPCRDMA_PMD_DEV_READ_SINK_REMOTE_WRITE)
			access |= RPCRDMA_PMD_ACCESS_REMOTE_WRITE;
		CHECK(ep, rpcrdma_pmd_mr_reg(ep->pd, inl, 4096, access, -1, 0, &sink[0]) == 0);
		CHECK(ep, rpcrdma_pmd_mr_reg(ep->pd, chunk, 65536, access, -1, 0, &sink[1]) == 0);
		sge[0] = sge_of(ep->set->inline_pool, inl, 4096);
		sge[1] = sge_of(pool, chunk, 65536 - 4096);
		if (sink[0] != NULL && sink[1] != NULL) {
			sge[0].lkey = sink[0]->lkey;
			sge[1].lkey = sink[1]->lkey;
		}
		rdma_wr(&wr, 8, RPCRDMA_PMD_WR_RDMA_READ, RPCRDMA_PMD_SEND_SIGNALED, &rb, sge, 2);
		if (!two) {
			/* a second SGE is refused, staging nothing */
			CHECK(ep, rpcrdma_pmd_queue_send_burst(qp, &wr, 1) == 0);
			sge[0] = sge_of(pool, chunk, 65536);
			if (sink[1] != NULL)
				sge[0].lkey = sink[1]->lkey;
			wr.num_sge = 1;
		}
		CHECK(ep, post_send1(qp, &wr));
		CHECK(ep, poll_n(ep, &wc, 1, WAIT) == 1);
		CHECK(ep, wc.wr_id == 8 && wc.status == RPCRDMA_PMD_WC_SUCCESS &&
				  wc.opcode == RPCRDMA_PMD_WC_RDMA_READ && wc.byte_len == 65536);
		if (two) {
			CHECK(ep, same(inl, 4096, 9, 0));
			CHECK(ep, same(chunk, 65536 - 4096, 9, 4096));
		} else {
			CHECK(ep, same(chunk, 65536, 9, 0));
		}
		for (unsigned int i = 0; i < 2; i++)
			if (sink[i] != NULL)
				CHECK(ep, rpcrdma_pmd_mr_dereg(sink[i]) == 0);
	}
	oob_sync(ep, "read");
	if (chunk != NULL)
		rpcrdma_mempool_put(pool, chunk);
	if (inl != NULL)
		inl_put(ep, inl);
}

/*
 * ---- rdma_access_errors: rkey, bounds and access flags are checked; the
 * requester gets REM_ACCESS_ERR, later WRs flush, and the responder's QP
 * goes to error too (its posted receive flushes) ----
 */

enum {
	ACC_BAD_RKEY,
	ACC_OUT_OF_BOUNDS,
	ACC_NO_WRITE,
	ACC_NO_READ,
	ACC_VARIANTS
};

/* Why variant @v does not run on the device; NULL: it runs. Both halves skip it. */
static const char *access_skip(const struct ep *ep, unsigned int v)
{
	if (v == ACC_NO_READ && ep->info.vendor_id == SIW_VENDOR_ID)
		return "siw answers an RDMA Read of memory registered without remote read "
		       "(its read response checks no access)";
	return NULL;
}

void access_server(struct ep *ep)
{
	unsigned int v;

	for (v = 0; v < ACC_VARIANTS; v++) {
		if (access_skip(ep, v) != NULL) {
			printf("skip rdma_access_errors variant %u (%s)\n", v, access_skip(ep, v));
			continue;
		}
		struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
		struct rpcrdma_mempool *pool = ep->set->chunk[0];
		uint8_t *chunk = rpcrdma_mempool_get(pool);
		uint32_t access = RPCRDMA_PMD_ACCESS_LOCAL_WRITE;
		struct rpcrdma_pmd_mr *mr = NULL;
		struct rpcrdma_pmd_wc wc;
		struct rbuf rb = { 0 };

		if (v == ACC_NO_WRITE)
			access |= RPCRDMA_PMD_ACCESS_REMOTE_READ;
		else if (v == ACC_NO_READ)
			access |= RPCRDMA_PMD_ACCESS_REMOTE_WRITE;
		else
			access |= RPCRDMA_PMD_ACCESS_REMOTE_READ | RPCRDMA_PMD_ACCESS_REMOTE_WRITE;
		CHECK(ep, rpcrdma_pmd_mr_reg(ep->pd, chunk, 4096, access, -1, 0, &mr) == 0);
		if (mr != NULL) {
			rb.addr = (uintptr_t)chunk;
			rb.len = 64;
			rb.rkey = mr->rkey;
			/*
			 * shm: the next table index. verbs: the next mlx5 mkey
			 * index may be a valid pool MR of this PD: change the
			 * key byte of this one instead.
			 */
			if (v == ACC_BAD_RKEY)
				rb.rkey = ep_is_shm(ep) ? mr->rkey + 0x100 : mr->rkey ^ 0xff;
			if (v == ACC_OUT_OF_BOUNDS)
				rb.addr += 4096 - 32; /* 32 bytes past the end */
		}
		if (qp != NULL)
			CHECK(ep, post_inline_recv(ep, qp, 4096));
		oob_put(ep, &rb, sizeof(rb));
		oob_sync(ep, "access go");
		/* iWARP: the responder ends the connection (TERMINATE), then flushes */
		if (qp != NULL && ep->info.transport == RPCRDMA_PMD_TRANSPORT_IWARP)
			CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_DISCONNECTED, qp, NULL));
		if (qp != NULL) {
			CHECK(ep, poll_n(ep, &wc, 1, WAIT) == 1);
			CHECK(ep, wc.status == RPCRDMA_PMD_WC_WR_FLUSH_ERR);
			put_recv_bufs(ep, &wc, 1);
			CHECK(ep, qp->state == RPCRDMA_PMD_QPS_ERROR);
		}
		oob_sync(ep, "access checked");
		if (mr != NULL)
			CHECK(ep, rpcrdma_pmd_mr_dereg(mr) == 0);
		if (chunk != NULL)
			rpcrdma_mempool_put(pool, chunk);
		if (qp != NULL)
			ep_qp_destroy(ep, qp);
	}
}

void access_client(struct ep *ep)
{
	unsigned int v;

	for (v = 0; v < ACC_VARIANTS; v++) {
		if (access_skip(ep, v) != NULL)
			continue;
		struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
		uint8_t *b = inl_get(ep);
		struct rpcrdma_pmd_send_wr wr[2];
		struct rpcrdma_pmd_sge sge;
		struct rpcrdma_pmd_wc wc[2];
		struct rbuf rb;

		oob_get(ep, &rb, sizeof(rb));
		oob_sync(ep, "access go");
		sge = sge_of(ep->set->inline_pool, b, (uint32_t)rb.len);
		memset(wr, 0, sizeof(wr));
		rdma_wr(&wr[0], 1,
			v == ACC_NO_READ ? RPCRDMA_PMD_WR_RDMA_READ : RPCRDMA_PMD_WR_RDMA_WRITE, 0,
			&rb, &sge, 1);
		wr[1].wr_id = 2;
		wr[1].opcode = RPCRDMA_PMD_WR_SEND;
		wr[1].flags = RPCRDMA_PMD_SEND_SIGNALED;
		/* the first is unsignaled: its error completes anyway */
		if (qp != NULL && ep->info.transport != RPCRDMA_PMD_TRANSPORT_IWARP) {
			CHECK(ep, rpcrdma_pmd_queue_send_burst(qp, wr, 2) == 2);
			CHECK(ep, rpcrdma_pmd_flush(qp) == 2);
			CHECK(ep, poll_n(ep, wc, 2, WAIT) == 2);
			CHECK(ep,
			      wc[0].wr_id == 1 && wc[0].status == RPCRDMA_PMD_WC_REM_ACCESS_ERR);
			CHECK(ep, wc[1].wr_id == 2 && wc[1].status == RPCRDMA_PMD_WC_WR_FLUSH_ERR);
			CHECK(ep, qp->state == RPCRDMA_PMD_QPS_ERROR);
		} else if (qp != NULL) {
			/*
			 * iWARP (RFC 5040): an RDMA Write completes once sent, and
			 * the responder answers a bad access with a TERMINATE that
			 * ends the connection. A READ fails in its own completion;
			 * a WRITE's unsignaled success is silent and the SEND after
			 * it completes, in error or not, as the TERMINATE overtakes
			 * it or not. Then the connection is down, the QP in error
			 * and what is posted after flushes.
			 */
			CHECK(ep, rpcrdma_pmd_queue_send_burst(qp, wr, 2) == 2);
			CHECK(ep, rpcrdma_pmd_flush(qp) == 2);
			if (v == ACC_NO_READ) {
				CHECK(ep, poll_n(ep, wc, 2, WAIT) == 2);
				CHECK(ep, wc[0].wr_id == 1 &&
						  wc[0].status != RPCRDMA_PMD_WC_SUCCESS &&
						  wc[0].status != RPCRDMA_PMD_WC_WR_FLUSH_ERR);
				CHECK(ep, wc[1].wr_id == 2 &&
						  wc[1].status == RPCRDMA_PMD_WC_WR_FLUSH_ERR);
			} else {
				CHECK(ep, poll_n(ep, wc, 1, WAIT) == 1 && wc[0].wr_id == 2);
			}
			CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_DISCONNECTED, qp, NULL));
			CHECK(ep, qp->state == RPCRDMA_PMD_QPS_ERROR);
			CHECK(ep, post_send1(qp, &wr[1]));
			CHECK(ep, poll_n(ep, wc, 1, WAIT) == 1 && wc[0].wr_id == 2 &&
					  wc[0].status == RPCRDMA_PMD_WC_WR_FLUSH_ERR);
		}
		oob_sync(ep, "access checked");
		inl_put(ep, b);
		if (qp != NULL)
			ep_qp_destroy(ep, qp);
	}
}

/* ---- rnr_exceeded: no receive posted; bounded retries, then RNR_RETRY_EXC_ERR ---- */

/* Two RNR retries 2 ms apart. On verbs the responder's QP sets the delay (min_rnr_timer). */
static void rnr_attr(struct ep *ep, struct rpcrdma_pmd_qp_attr *attr)
{
	ep_qp_attr(ep, attr);
	attr->rnr_retry = 2;
	attr->rnr_timer_us = 2000;
}

void rnr_exceeded_server(struct ep *ep)
{
	struct rpcrdma_pmd_qp_attr attr;
	struct rpcrdma_pmd_qp *qp;

	rnr_attr(ep, &attr);
	qp = connect_one(ep, &attr);

	oob_sync(ep, "rnr");
	/* the requester's error does not move the responder's QP */
	if (qp != NULL)
		CHECK(ep, qp->state == RPCRDMA_PMD_QPS_RTS);
}

void rnr_exceeded_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp_attr attr;
	struct rpcrdma_pmd_qp *qp;
	struct rpcrdma_pmd_send_wr wr[2];
	struct rpcrdma_pmd_wc wc[4];
	uint64_t t0;
	unsigned int n, i;

	rnr_attr(ep, &attr);
	qp = connect_one(ep, &attr);
	if (qp != NULL) {
		CHECK(ep, post_inline_recv(ep, qp, 4096));
		CHECK(ep, post_inline_recv(ep, qp, 4096));
		memset(wr, 0, sizeof(wr));
		wr[0].wr_id = 1;
		wr[0].opcode = RPCRDMA_PMD_WR_SEND;
		wr[0].flags = RPCRDMA_PMD_SEND_SIGNALED;
		wr[1] = wr[0];
		wr[1].wr_id = 2;
		t0 = test_now_ms();
		CHECK(ep, rpcrdma_pmd_queue_send_burst(qp, wr, 2) == 2);
		CHECK(ep, rpcrdma_pmd_flush(qp) == 2);
		n = poll_n(ep, wc, 4, WAIT);
		CHECK(ep, n == 4);
		/* two retries 2 ms apart: at least 4 ms */
		CHECK(ep, test_now_ms() - t0 >= 4);
		/* counted where the PMD retries in software; the NIC does not say */
		CHECK(ep, qp->stats.rnr_retries == (ep_is_shm(ep) ? 2 : 0));
		for (i = 0; i < n; i++) {
			if (wc[i].opcode == RPCRDMA_PMD_WC_RECV) {
				CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_WR_FLUSH_ERR);
			} else if (wc[i].wr_id == 1) {
				CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_RNR_RETRY_EXC_ERR);
			} else {
				CHECK(ep, wc[i].wr_id == 2 &&
						  wc[i].status == RPCRDMA_PMD_WC_WR_FLUSH_ERR);
			}
		}
		put_recv_bufs(ep, wc, n);
		CHECK(ep, qp->state == RPCRDMA_PMD_QPS_ERROR);
	}
	oob_sync(ep, "rnr");
}

/* ---- rnr_retry: with rnr_retry 7 a SEND waits for a late receive ---- */

void rnr_retry_server(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_wc wc;

	oob_sync(ep, "sent");
	usleep(20000);
	if (qp != NULL)
		CHECK(ep, post_inline_recv(ep, qp, 4096));
	CHECK(ep, poll_n(ep, &wc, 1, WAIT) == 1 && wc.status == RPCRDMA_PMD_WC_SUCCESS &&
			  wc.byte_len == 32);
	put_recv_bufs(ep, &wc, 1);
}

void rnr_retry_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_send_wr wr;
	struct rpcrdma_pmd_sge sge;
	struct rpcrdma_pmd_wc wc;
	void *b = inl_get(ep);

	memset(&wr, 0, sizeof(wr));
	sge = sge_of(ep->set->inline_pool, b, 32);
	wr.wr_id = 5;
	wr.opcode = RPCRDMA_PMD_WR_SEND;
	wr.flags = RPCRDMA_PMD_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (qp != NULL)
		CHECK(ep, post_send1(qp, &wr));
	oob_sync(ep, "sent");
	if (qp != NULL) {
		CHECK(ep, poll_n(ep, &wc, 1, WAIT) == 1 && wc.status == RPCRDMA_PMD_WC_SUCCESS);
		CHECK(ep, ep_is_shm(ep) ? qp->stats.rnr_retries > 0 : qp->stats.rnr_retries == 0);
	}
	inl_put(ep, b);
}

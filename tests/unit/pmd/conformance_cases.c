/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PMD conformance suite: the cases. Each is a server half and a client half
 * that meet at the same out-of-band barriers in the same order. What each
 * checks is said above it; the expected statuses are those of an InfiniBand
 * RC queue pair (rpcrdma_pmd.h has the table).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "conformance.h"

#define WAIT 5000 /* ms */

extern pid_t conformance_child_pid;

static void fill(void *buf, uint32_t len, unsigned int seed)
{
	uint8_t *p = buf;
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 7 + i * 13 + (i >> 8));
}

static bool same(const void *buf, uint32_t len, unsigned int seed, uint32_t from)
{
	const uint8_t *p = buf;
	uint32_t i;

	for (i = 0; i < len; i++) {
		uint32_t k = from + i;

		if (p[i] != (uint8_t)(seed * 7 + k * 13 + (k >> 8)))
			return false;
	}
	return true;
}

/* A remote buffer, as a real protocol would advertise it. */
struct rbuf {
	uint64_t addr;
	uint64_t len;
	uint32_t rkey;
	uint32_t pad;
};

/* One QP pair, connected, for the cases that use one. */
static struct rpcrdma_pmd_qp *connect_one(struct ep *ep, const struct rpcrdma_pmd_qp_attr *attr)
{
	struct rpcrdma_pmd_qp *qp = ep_qp_create(ep, attr);
	bool ok;

	if (qp == NULL)
		return NULL;
	ok = ep->server ? srv_accept(ep, qp) : cli_connect(ep, qp);
	CHECK(ep, ok);
	return ok ? qp : NULL;
}

/*
 * Tear one connection down from both sides and give back what the flush
 * returns (every receive that was still posted).
 */
static void drain_and_destroy(struct ep *ep, struct rpcrdma_pmd_qp *qp, unsigned int posted)
{
	struct rpcrdma_pmd_wc wc[64];
	unsigned int n;

	if (qp->state != RPCRDMA_PMD_QPS_ERROR)
		rpcrdma_pmd_disconnect(qp);
	n = posted > 0 ? poll_n(ep, wc, posted, WAIT) : 0;
	CHECK(ep, n == posted);
	for (unsigned int i = 0; i < n; i++)
		CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_WR_FLUSH_ERR);
	put_recv_bufs(ep, wc, n);
	ep_qp_destroy(ep, qp);
}

/* ---- send_recv: SEND lands in the next receive, in order, gathered and scattered ---- */

static const uint32_t sr_len[4] = { 1, 64, 4096, 0 };

static void send_recv_server(struct ep *ep)
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

static void send_recv_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_send_wr wr[5];
	struct rpcrdma_pmd_sge sge[7];
	struct rpcrdma_pmd_wc wc[5];
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

	CHECK(ep, rpcrdma_pmd_queue_send_burst(qp, wr, 5) == 5);
	CHECK(ep, qp->stats.send_wrs == 5 && qp->stats.doorbells == 0);
	/* nothing executes before the doorbell */
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

static void unsignaled_server(struct ep *ep)
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

static void unsignaled_client(struct ep *ep)
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

static void send_inv_server(struct ep *ep)
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

static void send_inv_client(struct ep *ep)
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

static void rdma_write_server(struct ep *ep)
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

static void rdma_write_client(struct ep *ep)
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
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 7;
		wr.opcode = RPCRDMA_PMD_WR_RDMA_WRITE;
		wr.flags = RPCRDMA_PMD_SEND_SIGNALED;
		wr.remote_addr = rb.addr;
		wr.rkey = rb.rkey;
		wr.sg_list = sge;
		wr.num_sge = 2;
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

static void rdma_read_server(struct ep *ep)
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

static void rdma_read_client(struct ep *ep)
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
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 8;
		wr.opcode = RPCRDMA_PMD_WR_RDMA_READ;
		wr.flags = RPCRDMA_PMD_SEND_SIGNALED;
		wr.remote_addr = rb.addr;
		wr.rkey = rb.rkey;
		wr.sg_list = sge;
		wr.num_sge = 2;
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

static void access_server(struct ep *ep)
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

static void access_client(struct ep *ep)
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
		wr[0].wr_id = 1;
		wr[0].opcode =
			v == ACC_NO_READ ? RPCRDMA_PMD_WR_RDMA_READ : RPCRDMA_PMD_WR_RDMA_WRITE;
		wr[0].remote_addr = rb.addr;
		wr[0].rkey = rb.rkey;
		wr[0].sg_list = &sge;
		wr[0].num_sge = 1;
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

static void rnr_exceeded_server(struct ep *ep)
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

static void rnr_exceeded_client(struct ep *ep)
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

static void rnr_retry_server(struct ep *ep)
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

static void rnr_retry_client(struct ep *ep)
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

/*
 * The status of a receive too small, or of a work request with a bad lkey,
 * is LOC_LEN_ERR or LOC_PROT_ERR where it is found and REM_INV_REQ_ERR or
 * REM_OP_ERR at the requester of the SEND that met it (IB); rxe reports all
 * of them as a malformed work request: LOC_QP_OP_ERR, and REM_OP_ERR at the
 * requester; siw a receive's bad lkey as GENERAL_ERR (rpcrdma_pmd.h, enum
 * rpcrdma_pmd_wc_status).
 */
static bool is_local_err(uint8_t status, uint8_t ib)
{
	return status == ib || status == RPCRDMA_PMD_WC_LOC_QP_OP_ERR ||
	       status == RPCRDMA_PMD_WC_GENERAL_ERR;
}

static bool is_remote_err(uint8_t status, uint8_t ib)
{
	return status == ib || status == RPCRDMA_PMD_WC_REM_OP_ERR;
}

/*
 * iWARP (RFC 5040): a SEND completes once sent, not once placed. The
 * responder answers an error with a TERMINATE that ends the connection: the
 * requester sees its SEND succeed or fail as the TERMINATE overtakes it,
 * then the connection go down with its QP in error.
 */
static void iwarp_peer_failed(struct ep *ep, struct rpcrdma_pmd_qp *qp)
{
	struct rpcrdma_pmd_wc wc[2];

	CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_DISCONNECTED, qp, NULL));
	CHECK(ep, qp->state == RPCRDMA_PMD_QPS_ERROR);
	CHECK(ep, poll_n(ep, wc, 2, 100) <= 1);
}

/*
 * ---- recv_too_small: LOC_LEN_ERR at the receiver, REM_INV_REQ_ERR at the
 * sender (or rxe's pair, above), both QPs in error ----
 */

static void small_recv_server(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_wc wc[2];
	unsigned int n;

	if (qp != NULL) {
		CHECK(ep, post_inline_recv(ep, qp, 64));
		CHECK(ep, post_inline_recv(ep, qp, 4096));
	}
	oob_sync(ep, "posted");
	n = poll_n(ep, wc, 2, WAIT);
	CHECK(ep, n == 2);
	if (n == 2) {
		CHECK(ep, is_local_err(wc[0].status, RPCRDMA_PMD_WC_LOC_LEN_ERR));
		CHECK(ep, wc[1].status == RPCRDMA_PMD_WC_WR_FLUSH_ERR);
	}
	put_recv_bufs(ep, wc, n);
	if (qp != NULL)
		CHECK(ep, qp->state == RPCRDMA_PMD_QPS_ERROR);
}

static void small_recv_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_send_wr wr;
	struct rpcrdma_pmd_sge sge;
	struct rpcrdma_pmd_wc wc;
	void *b = inl_get(ep);

	oob_sync(ep, "posted");
	memset(&wr, 0, sizeof(wr));
	sge = sge_of(ep->set->inline_pool, b, 100);
	wr.opcode = RPCRDMA_PMD_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (qp != NULL) {
		CHECK(ep, post_send1(qp, &wr));
		if (ep->info.transport == RPCRDMA_PMD_TRANSPORT_IWARP) {
			iwarp_peer_failed(ep, qp);
		} else {
			CHECK(ep, poll_n(ep, &wc, 1, WAIT) == 1 &&
					  is_remote_err(wc.status, RPCRDMA_PMD_WC_REM_INV_REQ_ERR));
			CHECK(ep, qp->state == RPCRDMA_PMD_QPS_ERROR);
		}
	}
	inl_put(ep, b);
}

/*
 * ---- bad_recv_lkey: a receive with a bad lkey: LOC_PROT_ERR there (or rxe's
 * LOC_QP_OP_ERR), REM_OP_ERR here. The SEND carries bytes: a device need not
 * look at the SGL of a receive that a zero-length SEND consumes. ----
 */

static void bad_recv_server(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	void *b = inl_get(ep);
	struct rpcrdma_pmd_sge sge = sge_of(ep->set->inline_pool, b, 4096);
	struct rpcrdma_pmd_recv_wr wr = { .wr_id = 77, .sg_list = &sge, .num_sge = 1 };
	struct rpcrdma_pmd_wc wc;

	sge.lkey += 0x100;
	if (qp != NULL)
		CHECK(ep, rpcrdma_pmd_post_recv_burst(qp, &wr, 1) == 1);
	oob_sync(ep, "posted");
	CHECK(ep, poll_n(ep, &wc, 1, WAIT) == 1);
	CHECK(ep, wc.wr_id == 77 && is_local_err(wc.status, RPCRDMA_PMD_WC_LOC_PROT_ERR));
	inl_put(ep, b);
}

static void bad_recv_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	void *b = inl_get(ep);
	struct rpcrdma_pmd_sge sge = sge_of(ep->set->inline_pool, b, 16);
	struct rpcrdma_pmd_send_wr wr;
	struct rpcrdma_pmd_wc wc;

	oob_sync(ep, "posted");
	memset(&wr, 0, sizeof(wr));
	wr.opcode = RPCRDMA_PMD_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (qp != NULL) {
		CHECK(ep, post_send1(qp, &wr));
		if (ep->info.transport == RPCRDMA_PMD_TRANSPORT_IWARP)
			iwarp_peer_failed(ep, qp);
		else
			CHECK(ep, poll_n(ep, &wc, 1, WAIT) == 1 &&
					  wc.status == RPCRDMA_PMD_WC_REM_OP_ERR);
	}
	inl_put(ep, b);
}

/*
 * ---- local_errors: the requester checks its own SGL first: a bad lkey, an
 * SGE past the MR, a READ into memory without LOCAL_WRITE: LOC_PROT_ERR, and
 * nothing reaches the peer ----
 */

enum {
	LOC_BAD_LKEY,
	LOC_BOUNDS,
	LOC_READ_NO_WRITE,
	LOC_VARIANTS
};

static void local_errors_server(struct ep *ep)
{
	struct rpcrdma_mempool *pool = ep->set->chunk[0];
	uint8_t *chunk = rpcrdma_mempool_get(pool);
	struct rbuf rb = { .addr = (uintptr_t)chunk, .len = 64, .rkey = pool->rkey };
	unsigned int v;

	for (v = 0; v < LOC_VARIANTS; v++) {
		struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
		struct rpcrdma_pmd_wc wc;

		if (qp != NULL)
			CHECK(ep, post_inline_recv(ep, qp, 4096));
		oob_put(ep, &rb, sizeof(rb));
		oob_sync(ep, "local go");
		if (qp != NULL && ep->info.transport == RPCRDMA_PMD_TRANSPORT_IWARP) {
			/* a local error ends an iWARP connection (TERMINATE): ours flushes */
			CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_DISCONNECTED, qp, NULL));
			CHECK(ep, qp->state == RPCRDMA_PMD_QPS_ERROR);
			drain_and_destroy(ep, qp, 1);
		} else if (qp != NULL) {
			/* nothing arrived: the receive is still posted, the QP fine */
			CHECK(ep, poll_n(ep, &wc, 1, 20) == 0);
			CHECK(ep, qp->state == RPCRDMA_PMD_QPS_RTS);
			drain_and_destroy(ep, qp, 1);
		}
		oob_sync(ep, "local checked");
	}
	if (chunk != NULL)
		rpcrdma_mempool_put(pool, chunk);
}

static void local_errors_client(struct ep *ep)
{
	unsigned int v;

	for (v = 0; v < LOC_VARIANTS; v++) {
		struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
		uint8_t *b = inl_get(ep);
		struct rpcrdma_pmd_mr *ro = NULL;
		struct rpcrdma_pmd_send_wr wr;
		struct rpcrdma_pmd_sge sge;
		struct rpcrdma_pmd_wc wc;
		struct rbuf rb;

		/*
		 * An inline SEND is copied by the CPU at queue time and its lkey
		 * never checked (verbs): send more than max_inline_data.
		 */
		uint32_t len = ep->info.max_inline_data >= 64 ? ep->info.max_inline_data + 1 : 64;

		oob_get(ep, &rb, sizeof(rb));
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 9;
		wr.opcode = RPCRDMA_PMD_WR_SEND;
		sge = sge_of(ep->set->inline_pool, b, len);
		if (v == LOC_BAD_LKEY) {
			sge.lkey ^= 0x80; /* another generation of the same entry */
		} else if (v == LOC_BOUNDS) {
			struct rpcrdma_pmd_mr *pmr = ep->set->inline_pool->mr;

			sge.addr = (uintptr_t)pmr->addr + pmr->length - len / 2;
		} else {
			CHECK(ep, rpcrdma_pmd_mr_reg(ep->pd, b, 4096, 0, -1, 0, &ro) == 0);
			if (ro != NULL)
				sge.lkey = ro->lkey;
			wr.opcode = RPCRDMA_PMD_WR_RDMA_READ;
			wr.remote_addr = rb.addr;
			wr.rkey = rb.rkey;
		}
		wr.sg_list = &sge;
		wr.num_sge = 1;
		oob_sync(ep, "local go");
		if (qp != NULL) {
			CHECK(ep, post_send1(qp, &wr));
			CHECK(ep, poll_n(ep, &wc, 1, WAIT) == 1 && wc.wr_id == 9 &&
					  is_local_err(wc.status, RPCRDMA_PMD_WC_LOC_PROT_ERR));
			CHECK(ep, qp->state == RPCRDMA_PMD_QPS_ERROR);
			ep_qp_destroy(ep, qp);
		}
		if (ro != NULL)
			CHECK(ep, rpcrdma_pmd_mr_dereg(ro) == 0);
		inl_put(ep, b);
		oob_sync(ep, "local checked");
	}
}

/*
 * ---- disconnect_flush: disconnect moves both QPs to error; every posted
 * receive and staged send completes with WR_FLUSH_ERR, in order; work posted
 * afterwards is flushed too ----
 */

static void disc_server(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_wc wc[9];
	unsigned int i, n;
	void *bufs[8];

	for (i = 0; qp != NULL && i < 8; i++) {
		bufs[i] = inl_get(ep);
		struct rpcrdma_pmd_sge s = sge_of(ep->set->inline_pool, bufs[i], 4096);
		struct rpcrdma_pmd_recv_wr wr = { .wr_id = (uintptr_t)bufs[i],
						  .sg_list = &s,
						  .num_sge = 1 };

		CHECK(ep, rpcrdma_pmd_post_recv_burst(qp, &wr, 1) == 1);
	}
	oob_sync(ep, "posted");
	if (qp == NULL)
		return;
	CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_DISCONNECTED, qp, NULL));
	CHECK(ep, qp->state == RPCRDMA_PMD_QPS_ERROR);
	CHECK(ep, post_inline_recv(ep, qp, 4096)); /* accepted, and flushed */
	n = poll_n(ep, wc, 9, WAIT);
	CHECK(ep, n == 9);
	for (i = 0; i < n; i++) {
		CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_WR_FLUSH_ERR);
		CHECK(ep, wc[i].opcode == RPCRDMA_PMD_WC_RECV);
		if (i < 8)
			CHECK(ep, wc[i].wr_id == (uintptr_t)bufs[i]);
	}
	put_recv_bufs(ep, wc, n);
	CHECK(ep, rpcrdma_pmd_disconnect(qp) == -ENOTCONN);
}

static void disc_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_send_wr wr[3];
	struct rpcrdma_pmd_wc wc[8];
	unsigned int i, n, recvs = 0, sends = 0;

	oob_sync(ep, "posted");
	if (qp == NULL)
		return;
	for (i = 0; i < 4; i++)
		CHECK(ep, post_inline_recv(ep, qp, 4096));
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 3; i++) {
		wr[i].wr_id = 20 + i;
		wr[i].opcode = RPCRDMA_PMD_WR_SEND;
	}
	CHECK(ep, rpcrdma_pmd_queue_send_burst(qp, wr, 3) == 3); /* staged, never flushed */
	CHECK(ep, rpcrdma_pmd_disconnect(qp) == 0);
	CHECK(ep, qp->state == RPCRDMA_PMD_QPS_ERROR);
	CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_DISCONNECTED, qp, NULL));
	/* posted after the error: flushed as well */
	wr[0].wr_id = 23;
	CHECK(ep, rpcrdma_pmd_queue_send_burst(qp, wr, 1) == 1);
	CHECK(ep, rpcrdma_pmd_flush(qp) == 1);
	n = poll_n(ep, wc, 8, WAIT);
	CHECK(ep, n == 8);
	for (i = 0; i < n; i++) {
		CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_WR_FLUSH_ERR);
		if (wc[i].opcode == RPCRDMA_PMD_WC_RECV) {
			recvs++;
		} else {
			CHECK(ep, wc[i].wr_id == 20 + sends); /* in order */
			sends++;
		}
	}
	CHECK(ep, recvs == 4 && sends == 4);
	put_recv_bufs(ep, wc, n);
}

/*
 * ---- connect_pdata: 56 bytes of private data each way; reject then accept
 * on the same QP; 57 bytes refused ----
 */

static void pdata_server(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = ep_qp_create(ep, NULL);
	struct rpcrdma_pmd_event ev;
	uint8_t pd[56], want[56];
	unsigned int i;

	for (i = 0; i < 56; i++)
		pd[i] = (uint8_t)(0xa0 + i);
	for (i = 0; i < 56; i++)
		want[i] = (uint8_t)i;
	CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_CONNECT_REQUEST, NULL, &ev));
	CHECK(ep, pdata_is(ep, &ev, want, 56));
	CHECK(ep, rpcrdma_pmd_accept(ev.req, qp, pd, 57) == -EINVAL); /* req still pending */
	CHECK(ep, rpcrdma_pmd_reject(ev.req, pd, 20) == 0);

	CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_CONNECT_REQUEST, NULL, &ev));
	want[0] = 0x55;
	CHECK(ep, pdata_is(ep, &ev, want, 1));
	CHECK(ep, rpcrdma_pmd_accept(ev.req, qp, pd, 56) == 0);
	CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_ESTABLISHED, qp, NULL));
	oob_sync(ep, "established");
}

static void pdata_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = ep_qp_create(ep, NULL);
	struct rpcrdma_pmd_event ev;
	uint8_t pd[57], want[56], one = 0x55;
	unsigned int i;

	for (i = 0; i < 57; i++)
		pd[i] = (uint8_t)i;
	if (qp == NULL) {
		oob_sync(ep, "established");
		return;
	}
	CHECK(ep, rpcrdma_pmd_connect(qp, ep->addr, pd, 57) == -EINVAL);
	CHECK(ep, rpcrdma_pmd_connect(qp, ep->addr, pd, 56) == 0);
	CHECK(ep, rpcrdma_pmd_connect(qp, ep->addr, pd, 56) == -EINVAL); /* not in INIT */
	for (i = 0; i < 56; i++)
		want[i] = (uint8_t)(0xa0 + i);
	CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_REJECTED, qp, &ev));
	CHECK(ep, pdata_is(ep, &ev, want, 20));
	if (ep->info.flags & RPCRDMA_PMD_DEV_QP_RECONNECT) {
		CHECK(ep, qp->state == RPCRDMA_PMD_QPS_INIT);
	} else {
		/* iWARP: a new QP connects again */
		CHECK(ep, qp->state == RPCRDMA_PMD_QPS_ERROR);
		CHECK(ep, rpcrdma_pmd_connect(qp, ep->addr, &one, 1) == -EINVAL);
		ep_qp_destroy(ep, qp);
		qp = ep_qp_create(ep, NULL);
		if (qp == NULL) {
			ep->failures++;
			oob_sync(ep, "established");
			return;
		}
	}

	CHECK(ep, rpcrdma_pmd_connect(qp, ep->addr, &one, 1) == 0);
	CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_ESTABLISHED, qp, &ev));
	CHECK(ep, pdata_is(ep, &ev, want, 56));
	CHECK(ep, qp->state == RPCRDMA_PMD_QPS_RTS);
	oob_sync(ep, "established");
}

/*
 * ---- connect_refused: nobody listens. shm knows at once (-ECONNREFUSED);
 * verbs learns it from the network: 0, then CONNECT_ERROR (or at once, as
 * siw's TCP connect does). The QP is in INIT afterwards, or in error where
 * an attempt under way binds it (RPCRDMA_PMD_DEV_QP_RECONNECT unset) ----
 */

static void refused_server(struct ep *ep)
{
	(void)ep;
}

static void refused_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = ep_qp_create(ep, NULL);
	int ret;

	if (qp == NULL)
		return;
	ret = rpcrdma_pmd_connect(qp, ep->noaddr, NULL, 0);
	if (ep_is_shm(ep)) {
		CHECK(ep, ret == -ECONNREFUSED);
	} else {
		CHECK(ep, ret == 0 || ret == -ECONNREFUSED);
		if (ret == 0)
			CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_CONNECT_ERROR, qp, NULL));
	}
	/* iWARP: an attempt that reached the peer bound the QP; it cannot connect again */
	CHECK(ep, qp->state == RPCRDMA_PMD_QPS_INIT ||
			  (!(ep->info.flags & RPCRDMA_PMD_DEV_QP_RECONNECT) &&
			   qp->state == RPCRDMA_PMD_QPS_ERROR));
}

/*
 * ---- qp100: a hundred connected QPs at once on one CQ; each message on its
 * own QP. Small QPs (8 + 8 WRs): the CQ holds what all of them may complete ----
 */

#define NQP 100

static struct rpcrdma_pmd_qp *qp100_create(struct ep *ep)
{
	struct rpcrdma_pmd_qp_attr attr;

	ep_qp_attr(ep, &attr);
	attr.max_send_wr = 8;
	attr.max_recv_wr = 8;
	return ep_qp_create(ep, &attr);
}

static void qp100_server(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qps[NQP];
	struct rpcrdma_pmd_wc wc[2 * NQP];
	unsigned int i, n, accepted = 0, established = 0, got[NQP];
	uint64_t end;

	memset(got, 0, sizeof(got));
	for (i = 0; i < NQP; i++) {
		qps[i] = qp100_create(ep);
		if (qps[i] == NULL)
			return;
		CHECK(ep, post_inline_recv(ep, qps[i], 4096));
	}
	end = test_now_ms() + 2 * WAIT;
	while ((accepted < NQP || established < NQP) && test_now_ms() < end) {
		struct rpcrdma_pmd_event ev;

		if (rpcrdma_pmd_event_poll(ep->dev, &ev, 1) != 1)
			continue;
		if (ev.type == RPCRDMA_PMD_EVENT_CONNECT_REQUEST) {
			unsigned int idx = ev.private_data[0] | ev.private_data[1] << 8;
			uint8_t want[2] = { (uint8_t)idx, (uint8_t)(idx >> 8) };

			CHECK(ep, pdata_is(ep, &ev, want, 2) && idx < NQP);
			if (idx < NQP)
				CHECK(ep, rpcrdma_pmd_accept(ev.req, qps[idx], NULL, 0) == 0);
			accepted++;
		} else if (ev.type == RPCRDMA_PMD_EVENT_ESTABLISHED) {
			established++;
		}
	}
	CHECK(ep, accepted == NQP && established == NQP);
	oob_sync(ep, "connected");
	n = poll_n(ep, wc, NQP, 2 * WAIT);
	CHECK(ep, n == NQP);
	for (i = 0; i < n; i++) {
		uint32_t v = *(uint32_t *)(uintptr_t)wc[i].wr_id;

		CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_SUCCESS && wc[i].byte_len == 4);
		CHECK(ep, v < NQP && wc[i].qp == qps[v]);
		if (v < NQP)
			got[v]++;
	}
	for (i = 0; i < NQP; i++)
		CHECK(ep, got[i] == 1);
	put_recv_bufs(ep, wc, n);
	oob_sync(ep, "received");
}

static void qp100_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qps[NQP];
	struct rpcrdma_pmd_wc wc[NQP];
	unsigned int i, n, established = 0;
	uint32_t *msg[NQP];
	uint64_t end;

	for (i = 0; i < NQP; i++) {
		uint8_t pd[2] = { (uint8_t)i, (uint8_t)(i >> 8) };

		qps[i] = qp100_create(ep);
		msg[i] = inl_get(ep);
		if (qps[i] == NULL || msg[i] == NULL)
			return;
		*msg[i] = i;
		CHECK(ep, rpcrdma_pmd_connect(qps[i], ep->addr, pd, 2) == 0);
	}
	end = test_now_ms() + 2 * WAIT;
	while (established < NQP && test_now_ms() < end) {
		struct rpcrdma_pmd_event ev;

		if (rpcrdma_pmd_event_poll(ep->dev, &ev, 1) != 1)
			continue;
		CHECK(ep, ev.type == RPCRDMA_PMD_EVENT_ESTABLISHED);
		established++;
	}
	CHECK(ep, established == NQP);
	oob_sync(ep, "connected");
	for (i = 0; i < NQP; i++) {
		struct rpcrdma_pmd_sge s = sge_of(ep->set->inline_pool, msg[i], 4);
		struct rpcrdma_pmd_send_wr wr = { .wr_id = i,
						  .sg_list = &s,
						  .num_sge = 1,
						  .opcode = RPCRDMA_PMD_WR_SEND,
						  .flags = RPCRDMA_PMD_SEND_SIGNALED };

		CHECK(ep, post_send1(qps[i], &wr));
	}
	n = poll_n(ep, wc, NQP, 2 * WAIT);
	CHECK(ep, n == NQP);
	for (i = 0; i < n; i++)
		CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_SUCCESS && wc[i].qp == qps[wc[i].wr_id]);
	oob_sync(ep, "received");
	for (i = 0; i < NQP; i++)
		inl_put(ep, msg[i]);
}

/*
 * ---- stream: 20000 SENDs in batches of up to 32 per doorbell, receives
 * reposted as they complete; order and count kept across two lcores. The
 * sender keeps within the receives it knows are posted, as RPC-over-RDMA's
 * credits do: the receiver grants 32 more with a SEND of its own each time
 * it has reposted 32 (a device without receiver-not-ready retry, iWARP,
 * ends the connection on a SEND that finds no receive) ----
 */

#define STREAM_N      20000
#define STREAM_WINDOW 64 /* receives the server keeps posted */
#define STREAM_GRANT  32 /* receives reposted per grant */

static void stream_server(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_wc wc[32];
	uint32_t next = 0, bad = 0, granted = 0, grants_done = 0, i;
	uint64_t end = test_now_ms() + 4 * WAIT;
	void *grant = inl_get(ep);
	struct rpcrdma_pmd_sge gs = sge_of(ep->set->inline_pool, grant, 4);
	struct rpcrdma_pmd_send_wr gw = { .opcode = RPCRDMA_PMD_WR_SEND,
					  .flags = RPCRDMA_PMD_SEND_SIGNALED,
					  .sg_list = &gs,
					  .num_sge = 1 };

	for (i = 0; qp != NULL && i < STREAM_WINDOW; i++)
		CHECK(ep, post_inline_recv(ep, qp, 64));
	oob_sync(ep, "posted");
	while (qp != NULL && (next < STREAM_N || grants_done < granted) && test_now_ms() < end) {
		uint16_t k = rpcrdma_pmd_poll_cq_burst(ep->cq, wc, 32);

		for (i = 0; i < k; i++) {
			const uint32_t *p = (const uint32_t *)(uintptr_t)wc[i].wr_id;

			if (wc[i].opcode != RPCRDMA_PMD_WC_RECV) {
				if (wc[i].status != RPCRDMA_PMD_WC_SUCCESS)
					bad++;
				grants_done++;
				continue;
			}
			if (wc[i].status != RPCRDMA_PMD_WC_SUCCESS || wc[i].byte_len != 64 ||
			    *p != next)
				bad++;
			next++;
			/* repost the same buffer */
			struct rpcrdma_pmd_sge s = sge_of(ep->set->inline_pool, (void *)p, 64);
			struct rpcrdma_pmd_recv_wr wr = { .wr_id = wc[i].wr_id,
							  .sg_list = &s,
							  .num_sge = 1 };

			CHECK(ep, rpcrdma_pmd_post_recv_burst(qp, &wr, 1) == 1);
			if (next % STREAM_GRANT == 0) {
				*(uint32_t *)grant = ++granted;
				CHECK(ep, post_send1(qp, &gw));
			}
		}
	}
	CHECK(ep, next == STREAM_N && bad == 0);
	CHECK(ep, granted == STREAM_N / STREAM_GRANT && grants_done == granted);
	oob_sync(ep, "streamed");
	if (qp != NULL)
		drain_and_destroy(ep, qp, STREAM_WINDOW);
	inl_put(ep, grant);
}

static void stream_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp_attr attr;
	struct rpcrdma_pmd_qp *qp;
	struct rpcrdma_pmd_send_wr wr[32];
	struct rpcrdma_pmd_sge sge[32];
	struct rpcrdma_pmd_wc wc[32];
	uint32_t *bufs[32];
	uint32_t sent = 0, done = 0, credits = STREAM_WINDOW, grants = 0, i;
	uint64_t end = test_now_ms() + 4 * WAIT;

	ep_qp_attr(ep, &attr);
	attr.rnr_timer_us = 1;
	qp = connect_one(ep, &attr);
	for (i = 0; i < 32; i++) {
		bufs[i] = inl_get(ep);
		sge[i] = sge_of(ep->set->inline_pool, bufs[i], 64);
	}
	for (i = 0; qp != NULL && i < 8; i++)
		CHECK(ep, post_inline_recv(ep, qp, 64)); /* for the grants */
	oob_sync(ep, "posted");
	while (qp != NULL && (done < STREAM_N || grants < STREAM_N / STREAM_GRANT) &&
	       test_now_ms() < end) {
		uint32_t batch = STREAM_N - sent < 32 ? STREAM_N - sent : 32;

		if (sent == done && batch > 0 && credits >= batch) {
			memset(wr, 0, sizeof(wr[0]) * batch);
			for (i = 0; i < batch; i++) {
				*bufs[i] = sent + i;
				wr[i].wr_id = sent + i;
				wr[i].opcode = RPCRDMA_PMD_WR_SEND;
				wr[i].sg_list = &sge[i];
				wr[i].num_sge = 1;
			}
			wr[batch - 1].flags = RPCRDMA_PMD_SEND_SIGNALED;
			CHECK(ep, rpcrdma_pmd_queue_send_burst(qp, wr, (uint16_t)batch) == batch);
			rpcrdma_pmd_flush(qp);
			sent += batch;
			credits -= batch;
		}
		if (rpcrdma_pmd_poll_cq_burst(ep->cq, wc, 1) != 1)
			continue;
		if (wc[0].opcode == RPCRDMA_PMD_WC_RECV) {
			void *g = (void *)(uintptr_t)wc[0].wr_id;
			struct rpcrdma_pmd_sge s = sge_of(ep->set->inline_pool, g, 64);
			struct rpcrdma_pmd_recv_wr rw = { .wr_id = wc[0].wr_id,
							  .sg_list = &s,
							  .num_sge = 1 };

			CHECK(ep, wc[0].status == RPCRDMA_PMD_WC_SUCCESS &&
					  *(uint32_t *)g == grants + 1);
			grants++;
			credits += STREAM_GRANT;
			CHECK(ep, rpcrdma_pmd_post_recv_burst(qp, &rw, 1) == 1);
		} else {
			CHECK(ep,
			      wc[0].status == RPCRDMA_PMD_WC_SUCCESS && wc[0].wr_id == sent - 1);
			done = sent;
		}
	}
	CHECK(ep, done == STREAM_N && grants == STREAM_N / STREAM_GRANT);
	if (qp != NULL)
		CHECK(ep, qp->stats.doorbells == (STREAM_N + 31) / 32);
	oob_sync(ep, "streamed");
	if (qp != NULL)
		drain_and_destroy(ep, qp, 8);
	for (i = 0; i < 32; i++)
		inl_put(ep, bufs[i]);
}

/* ---- mr_table: keys, rekey, invalidate, and a full table (devargs mr_max=5) ---- */

static void mr_table_half(struct ep *ep)
{
	struct rpcrdma_pmd_mr *a = NULL, *b = NULL, *c = NULL;
	void *buf = inl_get(ep);
	uint32_t ka;

	/* three pool MRs use 3 of 5 entries */
	CHECK(ep, rpcrdma_pmd_mr_reg(ep->pd, buf, 64, 0, -1, 0, &a) == 0);
	CHECK(ep, rpcrdma_pmd_mr_reg(ep->pd, buf, 64, 0, -1, 0, &b) == 0);
	CHECK(ep, rpcrdma_pmd_mr_reg(ep->pd, buf, 64, 0, -1, 0, &c) == -ENOSPC);
	if (a == NULL || b == NULL)
		goto out;
	CHECK(ep, a->lkey != b->lkey && a->lkey == a->rkey);
	ka = a->rkey;
	CHECK(ep, rpcrdma_pmd_mr_dereg(a) == 0);
	CHECK(ep, rpcrdma_pmd_mr_reg(ep->pd, buf, 64, 0, -1, 0, &a) == 0);
	/* the same table entry comes back under a new key */
	CHECK(ep, a != NULL && a->rkey != ka);
	CHECK(ep, rpcrdma_pmd_mr_invalidate(ep->pd, ka) == -ENOENT);
	CHECK(ep, rpcrdma_pmd_mr_invalidate(ep->pd, b->rkey) == 0);
	CHECK(ep, rpcrdma_pmd_mr_rekey(b) == 0);
	CHECK(ep, rpcrdma_pmd_mr_invalidate(ep->pd, b->rkey) == 0);
out:
	if (a != NULL)
		CHECK(ep, rpcrdma_pmd_mr_dereg(a) == 0);
	if (b != NULL)
		CHECK(ep, rpcrdma_pmd_mr_dereg(b) == 0);
	inl_put(ep, buf);
}

/*
 * ---- cq_overrun: a QP whose work requests would overrun its CQ(s), given
 * the QPs already on them, is refused with -EINVAL; destroying a QP gives
 * its share back ----
 */

static void cq_overrun_half(struct ep *ep)
{
	struct rpcrdma_pmd_cq *cq = NULL, *scq = NULL;
	struct rpcrdma_pmd_qp *a = NULL, *b = NULL;
	struct rpcrdma_pmd_qp_attr attr;
	uint32_t c;

	CHECK(ep, rpcrdma_pmd_cq_create(ep->dev, 64, &cq) == 0);
	CHECK(ep, rpcrdma_pmd_cq_create(ep->dev, 16, &scq) == 0);
	if (cq == NULL || scq == NULL)
		goto out;
	c = cq->cqe; /* at least 64: the driver may round up */
	CHECK(ep, c >= 64 && cq->nb_wrs == 0);
	rpcrdma_pmd_qp_attr_init(&attr);
	attr.send_cq = attr.recv_cq = cq;
	attr.max_send_wr = c / 2;
	attr.max_recv_wr = c - c / 2;
	CHECK(ep, rpcrdma_pmd_qp_create(ep->pd, &attr, &a) == 0); /* exactly full */
	CHECK(ep, cq->nb_wrs == c && cq->nb_qps == 2);		  /* send and recv CQ */
	attr.max_send_wr = 1;
	attr.max_recv_wr = 1;
	CHECK(ep, rpcrdma_pmd_qp_create(ep->pd, &attr, &b) == -EINVAL);
	CHECK(ep, cq->nb_wrs == c && cq->nb_qps == 2); /* send and recv CQ */
	if (a != NULL)
		CHECK(ep, rpcrdma_pmd_qp_destroy(a) == 0);
	a = NULL;
	CHECK(ep, cq->nb_wrs == 0 && cq->nb_qps == 0);
	CHECK(ep, rpcrdma_pmd_qp_create(ep->pd, &attr, &b) == 0);
	CHECK(ep, cq->nb_wrs == 2);
	if (b != NULL)
		CHECK(ep, rpcrdma_pmd_qp_destroy(b) == 0);
	b = NULL;

	/* separate CQs: sends count against the send CQ only */
	attr.send_cq = scq;
	attr.max_send_wr = scq->cqe + 1;
	attr.max_recv_wr = 8;
	CHECK(ep, rpcrdma_pmd_qp_create(ep->pd, &attr, &a) == -EINVAL);
	CHECK(ep, scq->nb_wrs == 0 && cq->nb_wrs == 0);
	attr.max_send_wr = scq->cqe;
	attr.max_recv_wr = c;
	CHECK(ep, rpcrdma_pmd_qp_create(ep->pd, &attr, &a) == 0);
	CHECK(ep, scq->nb_wrs == scq->cqe && cq->nb_wrs == c);
	if (a != NULL)
		CHECK(ep, rpcrdma_pmd_qp_destroy(a) == 0);
out:
	if (cq != NULL)
		CHECK(ep, rpcrdma_pmd_cq_destroy(cq) == 0);
	if (scq != NULL)
		CHECK(ep, rpcrdma_pmd_cq_destroy(scq) == 0);
}

/* ---- devargs: unknown keys and bad values are refused ---- */

static void devargs_half(struct ep *ep)
{
	struct rpcrdma_pmd_dev *dev;

	CHECK(ep, rpcrdma_pmd_dev_open(ep->pmd, "bogus=1", &dev) == -EINVAL);
	CHECK(ep, rpcrdma_pmd_dev_open(ep->pmd, "fail_wr=abc", &dev) == -EINVAL);
	CHECK(ep, rpcrdma_pmd_dev_open(ep->pmd, "fail_wr=-1", &dev) == -EINVAL);
	CHECK(ep, rpcrdma_pmd_dev_open(ep->pmd, "mr_max=0", &dev) == -EINVAL);
	CHECK(ep, rpcrdma_pmd_dev_open(ep->pmd, "cq_delay", &dev) == -EINVAL);
}

/* ---- fault injection: fail_wr=2 on the client ---- */

static void fail_wr_server(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_wc wc;

	if (qp != NULL) {
		CHECK(ep, post_inline_recv(ep, qp, 4096));
		CHECK(ep, post_inline_recv(ep, qp, 4096));
	}
	oob_sync(ep, "posted");
	CHECK(ep, poll_n(ep, &wc, 1, WAIT) == 1 && wc.status == RPCRDMA_PMD_WC_SUCCESS);
	put_recv_bufs(ep, &wc, 1);
	oob_sync(ep, "sent");
	/* only the first arrived */
	CHECK(ep, poll_n(ep, &wc, 1, 20) == 0);
	if (qp != NULL)
		drain_and_destroy(ep, qp, 1);
}

static void fail_wr_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_send_wr wr[3];
	struct rpcrdma_pmd_wc wc[3];
	unsigned int i;

	oob_sync(ep, "posted");
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 3; i++) {
		wr[i].wr_id = i;
		wr[i].opcode = RPCRDMA_PMD_WR_SEND;
		wr[i].flags = RPCRDMA_PMD_SEND_SIGNALED;
	}
	if (qp != NULL) {
		CHECK(ep, rpcrdma_pmd_queue_send_burst(qp, wr, 3) == 3);
		CHECK(ep, rpcrdma_pmd_flush(qp) == 3);
		CHECK(ep, poll_n(ep, wc, 3, WAIT) == 3);
		CHECK(ep, wc[0].status == RPCRDMA_PMD_WC_SUCCESS);
		CHECK(ep, wc[1].status == RPCRDMA_PMD_WC_RETRY_EXC_ERR);
		CHECK(ep, wc[2].status == RPCRDMA_PMD_WC_WR_FLUSH_ERR);
	}
	oob_sync(ep, "sent");
}

/* ---- fault injection: drop_after_sends=2 on the client ---- */

static void drop_server(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_wc wc[4];
	unsigned int i, n;

	for (i = 0; qp != NULL && i < 4; i++)
		CHECK(ep, post_inline_recv(ep, qp, 4096));
	oob_sync(ep, "posted");
	if (qp == NULL)
		return;
	CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_DISCONNECTED, qp, NULL));
	n = poll_n(ep, wc, 4, WAIT);
	CHECK(ep, n == 4);
	for (i = 0; i < n; i++)
		CHECK(ep, wc[i].status ==
				  (i < 2 ? RPCRDMA_PMD_WC_SUCCESS : RPCRDMA_PMD_WC_WR_FLUSH_ERR));
	put_recv_bufs(ep, wc, n);
}

static void drop_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_send_wr wr[3];
	struct rpcrdma_pmd_wc wc[3];
	unsigned int i;

	oob_sync(ep, "posted");
	if (qp == NULL)
		return;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 3; i++) {
		wr[i].wr_id = i;
		wr[i].opcode = RPCRDMA_PMD_WR_SEND;
		wr[i].flags = RPCRDMA_PMD_SEND_SIGNALED;
	}
	CHECK(ep, rpcrdma_pmd_queue_send_burst(qp, wr, 3) == 3);
	CHECK(ep, rpcrdma_pmd_flush(qp) == 3);
	CHECK(ep, poll_n(ep, wc, 3, WAIT) == 3);
	CHECK(ep, wc[0].status == RPCRDMA_PMD_WC_SUCCESS && wc[1].status == RPCRDMA_PMD_WC_SUCCESS);
	CHECK(ep, wc[2].status == RPCRDMA_PMD_WC_WR_FLUSH_ERR);
	CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_DISCONNECTED, qp, NULL));
}

/* ---- fault injection: cq_delay=3 on the client ---- */

static void delay_server(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_wc wc;

	if (qp != NULL)
		CHECK(ep, post_inline_recv(ep, qp, 4096));
	oob_sync(ep, "posted");
	CHECK(ep, poll_n(ep, &wc, 1, WAIT) == 1 && wc.status == RPCRDMA_PMD_WC_SUCCESS);
	put_recv_bufs(ep, &wc, 1);
}

static void delay_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_send_wr wr = { .opcode = RPCRDMA_PMD_WR_SEND,
					  .flags = RPCRDMA_PMD_SEND_SIGNALED };
	struct rpcrdma_pmd_wc wc;
	unsigned int i;

	oob_sync(ep, "posted");
	if (qp == NULL)
		return;
	CHECK(ep, post_send1(qp, &wr));
	for (i = 0; i < 3; i++)
		CHECK(ep, rpcrdma_pmd_poll_cq_burst(ep->cq, &wc, 1) == 0);
	CHECK(ep, rpcrdma_pmd_poll_cq_burst(ep->cq, &wc, 1) == 1);
	CHECK(ep, ep->cq->stats.empty_polls == 3 && ep->cq->stats.wcs == 1);
}

/*
 * ---- peer_killed: the client process is killed with SIGKILL; the server
 * gets DISCONNECTED and every posted receive flushes, never a hang. Last
 * cross-process case: the client process ends here. ----
 */

static void killed_server(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_send_wr wr = { .opcode = RPCRDMA_PMD_WR_SEND,
					  .flags = RPCRDMA_PMD_SEND_SIGNALED,
					  .wr_id = 99 };
	struct rpcrdma_pmd_wc wc[5];
	unsigned int i, n;

	for (i = 0; qp != NULL && i < 4; i++)
		CHECK(ep, post_inline_recv(ep, qp, 4096));
	oob_sync(ep, "ready");
	CHECK(ep, kill(conformance_child_pid, SIGKILL) == 0);
	if (qp == NULL)
		goto out;
	CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_DISCONNECTED, qp, NULL));
	CHECK(ep, qp->state == RPCRDMA_PMD_QPS_ERROR);
	CHECK(ep, post_send1(qp, &wr));
	n = poll_n(ep, wc, 5, WAIT);
	CHECK(ep, n == 5);
	for (i = 0; i < n; i++)
		CHECK(ep, wc[i].status == RPCRDMA_PMD_WC_WR_FLUSH_ERR);
	put_recv_bufs(ep, wc, n);
out:
	return;
}

static void killed_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	unsigned int i;

	for (i = 0; qp != NULL && i < 4; i++)
		CHECK(ep, post_inline_recv(ep, qp, 4096));
	oob_sync(ep, "ready");
	for (;;)
		pause();
}

const struct tcase tcases[] = {
	{ "send_recv", send_recv_server, send_recv_client },
	{ "unsignaled", unsignaled_server, unsignaled_client },
	{ "send_with_inv", send_inv_server, send_inv_client, .needs = RPCRDMA_PMD_DEV_REMOTE_INV },
	{ "rdma_write", rdma_write_server, rdma_write_client },
	{ "rdma_read", rdma_read_server, rdma_read_client },
	{ "rdma_access_errors", access_server, access_client },
	{ "rnr_retry_exceeded", rnr_exceeded_server, rnr_exceeded_client,
	  .needs = RPCRDMA_PMD_DEV_RNR_RETRY },
	{ "rnr_retry_late_recv", rnr_retry_server, rnr_retry_client,
	  .needs = RPCRDMA_PMD_DEV_RNR_RETRY },
	{ "recv_too_small", small_recv_server, small_recv_client },
	{ "recv_bad_lkey", bad_recv_server, bad_recv_client },
	{ "local_errors", local_errors_server, local_errors_client },
	{ "disconnect_flush", disc_server, disc_client },
	{ "connect_private_data", pdata_server, pdata_client },
	{ "connect_refused", refused_server, refused_client },
	{ "qp100", qp100_server, qp100_client, .broken_vendor = SIW_VENDOR_ID,
	  .broken_why = "siw (Linux 6.1) creates at most 63 QPs in one device context, then "
			"ENOSPC, though it reports max_qp 102400" },
	{ "stream_2_lcores", stream_server, stream_client },
	{ "cq_overrun", cq_overrun_half, cq_overrun_half },
	{ "mr_table", mr_table_half, mr_table_half, "mr_max=5", "mr_max=5",
	  .shm_only = "shm devargs mr_max and shm key layout" },
	{ "devargs", devargs_half, devargs_half, .shm_only = "shm device arguments" },
	{ "fault_fail_wr", fail_wr_server, fail_wr_client, NULL, "fail_wr=2",
	  .shm_only = "shm fault injection" },
	{ "fault_drop_after_sends", drop_server, drop_client, NULL, "drop_after_sends=2",
	  .shm_only = "shm fault injection" },
	{ "fault_cq_delay", delay_server, delay_client, NULL, "cq_delay=3",
	  .shm_only = "shm fault injection" },
	{ "srq_send_recv", srq_send_recv_server, srq_send_recv_client },
	{ "srq_rnr", srq_rnr_server, srq_rnr_client, .needs = RPCRDMA_PMD_DEV_RNR_RETRY },
	{ "srq_limit", srq_limit_server, srq_limit_client },
	{ "srq_two_cqs", srq_two_cqs_server, srq_two_cqs_client },
	{ "cq_shared", cq_shared_server, cq_shared_client },
	{ "srq_bad_args", srq_bad_args_half, srq_bad_args_half },
	/* last: the client process dies in it */
	{ "peer_killed", killed_server, killed_client, NULL, NULL, .xproc_only = true,
	  .kills_peer = true },
};
const unsigned int nb_tcases = sizeof(tcases) / sizeof(tcases[0]);

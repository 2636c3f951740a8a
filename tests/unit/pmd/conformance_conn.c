/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PMD conformance suite: errors and connections. A receive too small or with
 * a bad lkey, local errors, the flush of a disconnect, private data at
 * connect, a refused connection, 100 QPs, a stream between two lcores, a
 * full CQ, the MR table and device arguments, fault injection, and a peer
 * killed. Each case is a server half and a client half (conformance_cases.c
 * has the table).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "conformance.h"

#define WAIT 5000 /* ms */

extern pid_t conformance_child_pid;

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

void small_recv_server(struct ep *ep)
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

void small_recv_client(struct ep *ep)
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

void bad_recv_server(struct ep *ep)
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

void bad_recv_client(struct ep *ep)
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

void local_errors_server(struct ep *ep)
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

void local_errors_client(struct ep *ep)
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

void disc_server(struct ep *ep)
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

void disc_client(struct ep *ep)
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

void pdata_server(struct ep *ep)
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

void pdata_client(struct ep *ep)
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

void refused_server(struct ep *ep)
{
	(void)ep;
}

void refused_client(struct ep *ep)
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

void qp100_server(struct ep *ep)
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

void qp100_client(struct ep *ep)
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

void stream_server(struct ep *ep)
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

void stream_client(struct ep *ep)
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

void mr_table_half(struct ep *ep)
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

void cq_overrun_half(struct ep *ep)
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

void devargs_half(struct ep *ep)
{
	struct rpcrdma_pmd_dev *dev;

	CHECK(ep, rpcrdma_pmd_dev_open(ep->pmd, "bogus=1", &dev) == -EINVAL);
	CHECK(ep, rpcrdma_pmd_dev_open(ep->pmd, "fail_wr=abc", &dev) == -EINVAL);
	CHECK(ep, rpcrdma_pmd_dev_open(ep->pmd, "fail_wr=-1", &dev) == -EINVAL);
	CHECK(ep, rpcrdma_pmd_dev_open(ep->pmd, "mr_max=0", &dev) == -EINVAL);
	CHECK(ep, rpcrdma_pmd_dev_open(ep->pmd, "cq_delay", &dev) == -EINVAL);
}

/* ---- fault injection: fail_wr=2 on the client ---- */

void fail_wr_server(struct ep *ep)
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

void fail_wr_client(struct ep *ep)
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

void drop_server(struct ep *ep)
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

void drop_client(struct ep *ep)
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

void delay_server(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	struct rpcrdma_pmd_wc wc;

	if (qp != NULL)
		CHECK(ep, post_inline_recv(ep, qp, 4096));
	oob_sync(ep, "posted");
	CHECK(ep, poll_n(ep, &wc, 1, WAIT) == 1 && wc.status == RPCRDMA_PMD_WC_SUCCESS);
	put_recv_bufs(ep, &wc, 1);
}

void delay_client(struct ep *ep)
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

void killed_server(struct ep *ep)
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

void killed_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = connect_one(ep, NULL);
	unsigned int i;

	for (i = 0; qp != NULL && i < 4; i++)
		CHECK(ep, post_inline_recv(ep, qp, 4096));
	oob_sync(ep, "ready");
	for (;;)
		pause();
}

/*
 * ---- conn_req_peer: a connect request names its client. The client sends
 * its process and user out of band and connects twice (two QPs: iWARP ends
 * a rejected QP); the server rejects the first request and accepts the
 * second. shm: AF_UNIX, the client's pid and uid, "pid N"; verbs: an IP
 * address (the listener's own, client and server being one host) with a
 * port. Both requests have one key, whatever their ports. Then the key's
 * rules on made-up peers: a host's key ignores the port, a v4-mapped v6
 * address is its v4 host, two hosts and two processes differ.
 */
static void peer_key_rules(struct ep *ep)
{
	struct rpcrdma_pmd_peer a, b;
	struct sockaddr_in *a4 = (struct sockaddr_in *)&a.addr, *b4 = (struct sockaddr_in *)&b.addr;
	struct sockaddr_in6 *b6 = (struct sockaddr_in6 *)&b.addr;
	char s[64];

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a4->sin_family = AF_INET;
	a4->sin_port = htons(20049);
	CHECK(ep, inet_pton(AF_INET, "192.0.2.7", &a4->sin_addr) == 1);
	b = a;
	b4->sin_port = htons(41000);
	CHECK(ep, rpcrdma_pmd_peer_key(&a) != 0);
	CHECK(ep, rpcrdma_pmd_peer_key(&a) == rpcrdma_pmd_peer_key(&b));
	CHECK(ep, inet_pton(AF_INET, "192.0.2.8", &b4->sin_addr) == 1);
	CHECK(ep, rpcrdma_pmd_peer_key(&a) != rpcrdma_pmd_peer_key(&b));
	rpcrdma_pmd_peer_str(&a, s, sizeof(s));
	CHECK(ep, strcmp(s, "192.0.2.7:20049") == 0);

	memset(&b, 0, sizeof(b));
	b6->sin6_family = AF_INET6;
	b6->sin6_port = htons(7);
	CHECK(ep, inet_pton(AF_INET6, "::ffff:192.0.2.7", &b6->sin6_addr) == 1);
	CHECK(ep, rpcrdma_pmd_peer_key(&a) == rpcrdma_pmd_peer_key(&b));
	CHECK(ep, inet_pton(AF_INET6, "2001:db8::1", &b6->sin6_addr) == 1);
	a = b;
	CHECK(ep, inet_pton(AF_INET6, "2001:db8::2", &b6->sin6_addr) == 1);
	CHECK(ep, rpcrdma_pmd_peer_key(&a) != 0 && rpcrdma_pmd_peer_key(&b) != 0);
	CHECK(ep, rpcrdma_pmd_peer_key(&a) != rpcrdma_pmd_peer_key(&b));
	rpcrdma_pmd_peer_str(&a, s, sizeof(s));
	CHECK(ep, strcmp(s, "[2001:db8::1]:7") == 0);

	memset(&a, 0, sizeof(a));
	a.addr.ss_family = AF_UNIX;
	a.pid = 100;
	a.uid = 0;
	b = a;
	b.pid = 101;
	CHECK(ep, rpcrdma_pmd_peer_key(&a) != 0);
	CHECK(ep, rpcrdma_pmd_peer_key(&a) != rpcrdma_pmd_peer_key(&b));
	b.pid = 100;
	b.uid = 1;
	CHECK(ep, rpcrdma_pmd_peer_key(&a) != rpcrdma_pmd_peer_key(&b));
	rpcrdma_pmd_peer_str(&a, s, sizeof(s));
	CHECK(ep, strcmp(s, "pid 100") == 0);

	a.addr.ss_family = AF_UNSPEC;
	CHECK(ep, rpcrdma_pmd_peer_key(&a) == 0 && rpcrdma_pmd_peer_key(NULL) == 0);
	rpcrdma_pmd_peer_str(NULL, s, sizeof(s));
	CHECK(ep, strcmp(s, "unknown") == 0);
	CHECK(ep, rpcrdma_pmd_conn_req_peer(NULL) == NULL);
}

/* The request's peer is the client's (@who: its pid and uid, from the client). */
static uint64_t check_peer(struct ep *ep, const struct rpcrdma_pmd_conn_req *req,
			   const int32_t who[2])
{
	const struct rpcrdma_pmd_peer *p = rpcrdma_pmd_conn_req_peer(req);
	char s[64], want[64];
	const char *colon;

	CHECK(ep, p != NULL);
	if (p == NULL)
		return 0;
	rpcrdma_pmd_peer_str(p, s, sizeof(s));
	if (strcmp(ep->pmd, "shm") == 0) {
		CHECK(ep, p->addr.ss_family == AF_UNIX);
		CHECK(ep, p->pid == who[0] && p->uid == who[1]);
		snprintf(want, sizeof(want), "pid %d", (int)who[0]);
		CHECK(ep, strcmp(s, want) == 0);
	} else {
		/* "IP:PORT" with the listener's IP */
		CHECK(ep, p->addr.ss_family == AF_INET || p->addr.ss_family == AF_INET6);
		CHECK(ep, p->pid == -1 && p->uid == -1);
		colon = strrchr(ep->addr, ':');
		snprintf(want, sizeof(want), "%.*s:", colon ? (int)(colon - ep->addr) : 0,
			 ep->addr);
		CHECK(ep, strncmp(s, want, strlen(want)) == 0 && strlen(s) > strlen(want) &&
				  strcmp(s + strlen(want), "0") != 0);
		if (strncmp(s, want, strlen(want)) != 0)
			fprintf(stderr, "[server] conn_req_peer: peer %s, listening on %s\n", s,
				ep->addr);
	}
	return rpcrdma_pmd_peer_key(p);
}

void peer_server(struct ep *ep)
{
	struct rpcrdma_pmd_qp *qp = ep_qp_create(ep, NULL);
	struct rpcrdma_pmd_event ev;
	int32_t who[2];
	uint64_t k1 = 0, k2 = 0;

	peer_key_rules(ep);
	oob_get(ep, who, sizeof(who));
	CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_CONNECT_REQUEST, NULL, &ev));
	if (ev.req != NULL) {
		k1 = check_peer(ep, ev.req, who);
		CHECK(ep, rpcrdma_pmd_reject(ev.req, NULL, 0) == 0);
	}
	CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_CONNECT_REQUEST, NULL, &ev));
	if (ev.req != NULL && qp != NULL) {
		k2 = check_peer(ep, ev.req, who);
		CHECK(ep, rpcrdma_pmd_accept(ev.req, qp, NULL, 0) == 0);
		CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_ESTABLISHED, qp, NULL));
	}
	CHECK(ep, k1 != 0 && k1 == k2);
	oob_sync(ep, "established");
}

void peer_client(struct ep *ep)
{
	struct rpcrdma_pmd_qp *q1 = ep_qp_create(ep, NULL), *q2 = ep_qp_create(ep, NULL);
	int32_t who[2] = { (int32_t)getpid(), (int32_t)getuid() };

	oob_put(ep, who, sizeof(who));
	if (q1 != NULL && q2 != NULL) {
		CHECK(ep, rpcrdma_pmd_connect(q1, ep->addr, NULL, 0) == 0);
		CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_REJECTED, q1, NULL));
		CHECK(ep, rpcrdma_pmd_connect(q2, ep->addr, NULL, 0) == 0);
		CHECK(ep, wait_event(ep, RPCRDMA_PMD_EVENT_ESTABLISHED, q2, NULL));
	}
	oob_sync(ep, "established");
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PMD conformance suite: the table of cases, and the helpers they share.
 * Each case is a server half and a client half that meet at the same
 * out-of-band barriers in the same order (conformance_data.c,
 * conformance_conn.c, conformance_srq.c, conformance_handoff.c). What each
 * checks is said above it; the expected statuses are those of an InfiniBand
 * RC queue pair (rpcrdma_pmd.h has the table).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "conformance.h"

#define WAIT 5000 /* ms */

void fill(void *buf, uint32_t len, unsigned int seed)
{
	uint8_t *p = buf;
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 7 + i * 13 + (i >> 8));
}

bool same(const void *buf, uint32_t len, unsigned int seed, uint32_t from)
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

void rdma_wr(struct rpcrdma_pmd_send_wr *wr, uint64_t wr_id, uint8_t opcode, uint8_t flags,
	     const struct rbuf *rb, const struct rpcrdma_pmd_sge *sg, uint16_t n)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wr_id;
	wr->opcode = opcode;
	wr->flags = flags;
	wr->remote_addr = rb->addr;
	wr->rkey = rb->rkey;
	wr->sg_list = sg;
	wr->num_sge = n;
}

/* One QP pair, connected, for the cases that use one. */
struct rpcrdma_pmd_qp *connect_one(struct ep *ep, const struct rpcrdma_pmd_qp_attr *attr)
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
void drain_and_destroy(struct ep *ep, struct rpcrdma_pmd_qp *qp, unsigned int posted)
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
	{ "conn_req_peer", peer_server, peer_client },
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
	{ "srq_access_error", srq_access_server, srq_access_client,
	  .shm_only = "the responder's error reaches the owner of an SRQ's QP through the "
		      "shm SRQ area (verbs: the device's own)" },
	{ "srq_peer_error", srq_peer_error_server, srq_peer_error_client,
	  .shm_only = "a Send to a QP in error fails at once on shm; on verbs after the "
		      "transport's retries (rxe), or the connection ends (iWARP)" },
	{ "conn_req_handoff", handoff_server, handoff_client },
	{ "conn_req_handoff_gone", handoff_gone_server, handoff_gone_client,
	  .shm_only = "a client gone while connecting: shm knows at once, rdma_cm on a timeout" },
	/* last: the client process dies in it */
	{ "peer_killed", killed_server, killed_client, NULL, NULL, .xproc_only = true,
	  .kills_peer = true },
};
const unsigned int nb_tcases = sizeof(tcases) / sizeof(tcases[0]);

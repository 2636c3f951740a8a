/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PMD conformance suite: the framework.
 *
 * Each case has a server half and a client half, written against the public
 * PMD API only. The halves run on two lcores of one process (in-process) or
 * in two processes (cross-process: this binary re-executes itself as the
 * client). They keep in step through an out-of-band socket (barriers, and
 * values such as an rkey that a real protocol would carry in a message).
 * Every wait is bounded; each half counts its own failed checks.
 */
#ifndef TEST_PMD_CONFORMANCE_H
#define TEST_PMD_CONFORMANCE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>

#include "test_clock.h"

#define EP_QPS_MAX     128
#define EP_SCRATCH_MAX 256

struct ep {
	bool server;
	bool xproc; /* the halves are in different processes */
	const char *pmd;
	const char *devargs;		  /* the device's */
	char addr[64];			  /* where this case's server listens */
	char noaddr[64];		  /* where nobody listens */
	struct rpcrdma_pmd_dev_info info; /* of the device under test */
	int oob;
	struct rpcrdma_pmd_dev *dev;
	struct rpcrdma_pmd_pd *pd;
	struct rpcrdma_pmd_cq *cq;
	struct rpcrdma_pmd_listener *listener;
	struct rpcrdma_mempool_set *set;
	struct rpcrdma_pmd_qp *qps[EP_QPS_MAX];
	unsigned int nb_qps;
	/* send buffers a case gives back once their completions are in (conformance_srq.c) */
	void *scratch[EP_SCRATCH_MAX];
	unsigned int nb_scratch;
	int failures;
};

struct tcase {
	const char *name;
	void (*server)(struct ep *ep);
	void (*client)(struct ep *ep);
	const char *server_devargs;
	const char *client_devargs;
	bool xproc_only;
	bool inproc_only;
	bool kills_peer;      /* the client process dies in the case: no closing barrier */
	const char *shm_only; /* why the case only makes sense on shm (skipped elsewhere) */
	uint32_t needs;	      /* RPCRDMA_PMD_DEV_* the case needs: skipped without */
	/* a device (by dev_info.vendor_id) that breaks a rule the case needs, and how */
	uint32_t broken_vendor;
	const char *broken_why;
};

extern const struct tcase tcases[];
extern const unsigned int nb_tcases;

/* siw's IEEE OUI ("bmt") in dev_info.vendor_id */
#define SIW_VENDOR_ID 0x626d74

#define CHECK(ep, cond)                                                                         \
	do {                                                                                    \
		if (!(cond)) {                                                                  \
			fprintf(stderr, "[%s] %s:%d: CHECK failed: %s\n",                       \
				(ep)->server ? "server" : "client", __FILE__, __LINE__, #cond); \
			(ep)->failures++;                                                       \
		}                                                                               \
	} while (0)

/* Out-of-band: barrier on a tag, and fixed-size values. Fatal on timeout. */
void oob_sync(struct ep *ep, const char *tag);
void oob_put(struct ep *ep, const void *v, size_t len);
void oob_get(struct ep *ep, void *v, size_t len);

/*
 * A second device like the endpoint's (driver and arguments), with its own
 * PD, pools and CQ, listening nowhere; closed with ep_close_more(), which
 * adds its failed checks to @p ep's. @return 0, or -1 (counted as a failure).
 */
int ep_open_more(const struct ep *ep, struct ep *b);
void ep_close_more(struct ep *ep, struct ep *b);

/* Default QP attributes on the endpoint's CQ. */
void ep_qp_attr(struct ep *ep, struct rpcrdma_pmd_qp_attr *attr);
struct rpcrdma_pmd_qp *ep_qp_create(struct ep *ep, const struct rpcrdma_pmd_qp_attr *attr);
void ep_qp_destroy(struct ep *ep, struct rpcrdma_pmd_qp *qp);

/* Server: wait for a request and accept it on @qp; client: connect @qp. Both wait for ESTABLISHED. */
bool srv_accept(struct ep *ep, struct rpcrdma_pmd_qp *qp);
bool cli_connect(struct ep *ep, struct rpcrdma_pmd_qp *qp);

/* Wait for an event of @type (for @qp if not NULL); false on timeout. */
bool wait_event(struct ep *ep, int type, struct rpcrdma_pmd_qp *qp, struct rpcrdma_pmd_event *out);

/* Poll until @n completions or the timeout; returns how many. */
unsigned int poll_n(struct ep *ep, struct rpcrdma_pmd_wc *wc, unsigned int n, unsigned int ms);

/* Buffers of the endpoint's pools; the SGE of a buffer. */
void *inl_get(struct ep *ep);
void inl_put(struct ep *ep, void *buf);
struct rpcrdma_pmd_sge sge_of(struct rpcrdma_mempool *pool, void *buf, uint32_t len);

/* Post one receive of an inline buffer (wr_id = the buffer). */
bool post_inline_recv(struct ep *ep, struct rpcrdma_pmd_qp *qp, uint32_t len);

/* Return the buffer of each receive completion (wr_id) to the inline pool. */
void put_recv_bufs(struct ep *ep, const struct rpcrdma_pmd_wc *wc, unsigned int n);

/* Post one send-queue WR and flush. */
bool post_send1(struct rpcrdma_pmd_qp *qp, const struct rpcrdma_pmd_send_wr *wr);

/* The device under test is the shm PMD (exact private data, software RNR retries, ...). */
static inline bool ep_is_shm(const struct ep *ep)
{
	return ep->info.transport == RPCRDMA_PMD_TRANSPORT_SHM;
}

/*
 * The private data of @ev is @len bytes of @want: exactly on shm; on verbs
 * rdma_cm reports the transport's field size, so at least @len bytes with
 * zeros after them (rpcrdma_pmd_event.private_data_len).
 */
bool pdata_is(const struct ep *ep, const struct rpcrdma_pmd_event *ev, const uint8_t *want,
	      unsigned int len);

/* conformance_cases.c: what the cases share */
/* A remote buffer, as a real protocol would advertise it. */
struct rbuf {
	uint64_t addr;
	uint64_t len;
	uint32_t rkey;
	uint32_t pad;
};
void fill(void *buf, uint32_t len, unsigned int seed);
bool same(const void *buf, uint32_t len, unsigned int seed, uint32_t from);
/* @wr, zeroed: an RDMA Write or Read (@opcode) of @sg[0..@n) at @rb, with @flags. */
void rdma_wr(struct rpcrdma_pmd_send_wr *wr, uint64_t wr_id, uint8_t opcode, uint8_t flags,
	     const struct rbuf *rb, const struct rpcrdma_pmd_sge *sg, uint16_t n);
/* One QP pair, connected, for the cases that use one. */
struct rpcrdma_pmd_qp *connect_one(struct ep *ep, const struct rpcrdma_pmd_qp_attr *attr);
/* Tear one connection down from both sides, giving back what the flush returns. */
void drain_and_destroy(struct ep *ep, struct rpcrdma_pmd_qp *qp, unsigned int posted);

/* conformance_data.c: SEND and receive, RDMA Write and Read, access errors, RNR */
void send_recv_server(struct ep *ep);
void send_recv_client(struct ep *ep);
void unsignaled_server(struct ep *ep);
void unsignaled_client(struct ep *ep);
void send_inv_server(struct ep *ep);
void send_inv_client(struct ep *ep);
void rdma_write_server(struct ep *ep);
void rdma_write_client(struct ep *ep);
void rdma_read_server(struct ep *ep);
void rdma_read_client(struct ep *ep);
void access_server(struct ep *ep);
void access_client(struct ep *ep);
void rnr_exceeded_server(struct ep *ep);
void rnr_exceeded_client(struct ep *ep);
void rnr_retry_server(struct ep *ep);
void rnr_retry_client(struct ep *ep);

/* conformance_conn.c: completion errors, connections, many QPs, a stream, tables, faults */
void small_recv_server(struct ep *ep);
void small_recv_client(struct ep *ep);
void bad_recv_server(struct ep *ep);
void bad_recv_client(struct ep *ep);
void local_errors_server(struct ep *ep);
void local_errors_client(struct ep *ep);
void disc_server(struct ep *ep);
void disc_client(struct ep *ep);
void pdata_server(struct ep *ep);
void pdata_client(struct ep *ep);
void peer_server(struct ep *ep);
void peer_client(struct ep *ep);
void refused_server(struct ep *ep);
void refused_client(struct ep *ep);
void qp100_server(struct ep *ep);
void qp100_client(struct ep *ep);
void stream_server(struct ep *ep);
void stream_client(struct ep *ep);
void mr_table_half(struct ep *ep);
void cq_overrun_half(struct ep *ep);
void devargs_half(struct ep *ep);
void fail_wr_server(struct ep *ep);
void fail_wr_client(struct ep *ep);
void drop_server(struct ep *ep);
void drop_client(struct ep *ep);
void delay_server(struct ep *ep);
void delay_client(struct ep *ep);
void killed_server(struct ep *ep);
void killed_client(struct ep *ep);

/* conformance_srq.c: shared receive queues, completion queues shared by many QPs */
void srq_send_recv_server(struct ep *ep);
void srq_send_recv_client(struct ep *ep);
void srq_rnr_server(struct ep *ep);
void srq_rnr_client(struct ep *ep);
void srq_limit_server(struct ep *ep);
void srq_limit_client(struct ep *ep);
void srq_two_cqs_server(struct ep *ep);
void srq_two_cqs_client(struct ep *ep);
void cq_shared_server(struct ep *ep);
void cq_shared_client(struct ep *ep);
void srq_bad_args_half(struct ep *ep);
void srq_access_server(struct ep *ep);
void srq_access_client(struct ep *ep);
void srq_peer_error_server(struct ep *ep);
void srq_peer_error_client(struct ep *ep);

/* conformance_handoff.c: a connect request handed over to another device */
void handoff_server(struct ep *ep);
void handoff_client(struct ep *ep);
void handoff_gone_server(struct ep *ep);
void handoff_gone_client(struct ep *ep);

#endif

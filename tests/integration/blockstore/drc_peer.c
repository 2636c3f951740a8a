/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A bare block store client for test_blockstore.py's drc part: a PMD queue
 * pair that sends crafted RPC-over-RDMA v1 messages (no engine, so that it
 * chooses its XIDs) to a running blockstore-server, as a client that lost
 * its connection and sends its calls again:
 *
 *   connection A   WRITE xid X (offset 8192, 100 bytes)       -> reply R1
 *                  WRITE xid X again                          -> R2
 *                  GETATTR                                    -> writes W1
 *   connection B   WRITE xid X again                          -> R3
 *                  GETATTR                                    -> writes W2
 *                  WRITE xid X, other data (another checksum) -> R4
 *                  GETATTR                                    -> writes W3
 *                  SUBSCRIBE xid S, then again                -> S1, S2
 *   connection C   SUBSCRIBE xid S again                      -> S3
 *
 *   drc_peer ADDRESS on|off
 *
 * on (the server's duplicate request cache on): R1 == R2 == R3 byte for
 * byte (the RPC reply: header and results), W1 = 1, W2 = 1, W3 = 2 (each
 * WRITE ran once), S1 == S2 == S3 = BS_OK. off (--drc-entries 0): the
 * WRITE ran every time, W1 = 2, W2 = 3, W3 = 4 (the test's own control:
 * the counts it checks do change without the cache). Prints "writes W1 W2
 * W3" and exits 0 when every check held, 1 otherwise. The server's
 * summary (its DRC counters) is test_blockstore.py's to check.
 *
 *   drc_peer ADDRESS other
 *
 * Another client (another process: the server keys its cache by the
 * client, rpcrdma_xprt_peer()) sends WRITE xid X with the same bytes as
 * connection A's: the server must run it, not answer it from the first
 * client's entry. Prints "writes W" (GETATTR's count after it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>
#include <rpcrdma/rpcrdma_wire.h>

#include "../../../apps/blockstore_proto.h"
#include "test_check.h"
#include "test_side.h"

#define WAIT_MS	 10000
#define NRECV	 8
#define RECV_LEN 4096
#define HDR_LEN	 28 /* RDMA_MSG, empty chunk lists: xid vers credit proc 0 0 0 */
#define WR_SEND	 2  /* the Sends' wr_id; a receive's is its buffer */

static struct rpcrdma_pmd_dev *dev;
static struct rpcrdma_pmd_pd *pd;
static struct rpcrdma_mempool_set *pools;
static struct rpcrdma_pmd_cq *cq;
static struct rpcrdma_pmd_qp *qp;
static const char *addr;

/* A reply: the RPC message after the transport header. */
struct reply {
	uint8_t b[RECV_LEN];
	int len; /* bytes of the RPC message; negative: none came */
};

static uint32_t get32(const uint8_t *b, unsigned int word)
{
	return rpcrdma_wire_get32(b, word);
}

static uint64_t get64(const uint8_t *b, unsigned int word)
{
	return (uint64_t)get32(b, word) << 32 | get32(b, word + 1);
}

/* Wait for a connection event of @p type on our device: true when it came. */
static bool wait_event(enum rpcrdma_pmd_event_type type)
{
	uint64_t end = test_now_ms() + WAIT_MS;
	struct rpcrdma_pmd_event ev;

	while (test_now_ms() < end) {
		if (rpcrdma_pmd_event_poll(dev, &ev, 1) != 1) {
			usleep(100);
			continue;
		}
		if (ev.type == type)
			return true;
		if (ev.type == RPCRDMA_PMD_EVENT_REJECTED ||
		    ev.type == RPCRDMA_PMD_EVENT_CONNECT_ERROR)
			return false;
	}
	return false;
}

/* Give back the buffers of completed (or flushed) receives; how many Sends completed. */
static unsigned int reap(struct reply *r)
{
	struct rpcrdma_pmd_wc wc[8];
	unsigned int sends = 0;
	int n = rpcrdma_pmd_poll_cq_burst(cq, wc, 8);

	for (int i = 0; i < n; i++) {
		void *buf = (void *)(uintptr_t)wc[i].wr_id;

		if (wc[i].wr_id == WR_SEND) {
			sends++;
			continue;
		}
		if (r != NULL && wc[i].status == RPCRDMA_PMD_WC_SUCCESS && r->len < 0) {
			const uint8_t *m = buf;

			/* RDMA_MSG with no chunks: the RPC reply follows the 28 bytes */
			if (wc[i].byte_len >= HDR_LEN && get32(m, 1) == 1 && get32(m, 3) == 0 &&
			    get32(m, 4) == 0 && get32(m, 5) == 0 && get32(m, 6) == 0) {
				r->len = (int)(wc[i].byte_len - HDR_LEN);
				memcpy(r->b, m + HDR_LEN, (size_t)r->len);
			} else {
				r->len = 0; /* an answer, but not a plain reply: fails the checks */
			}
		}
		rpcrdma_mempool_put(pools->inline_pool, buf);
	}
	return sends;
}

static void post_recvs(unsigned int n)
{
	struct rpcrdma_mempool *ip = pools->inline_pool;

	for (unsigned int i = 0; i < n; i++) {
		void *rb = rpcrdma_mempool_get(ip);
		struct rpcrdma_pmd_sge rs = { (uintptr_t)rb, RECV_LEN, ip->lkey };
		struct rpcrdma_pmd_recv_wr rw = { (uintptr_t)rb, &rs, 1 };

		CHECK(rb != NULL && rpcrdma_pmd_post_recv_burst(qp, &rw, 1) == 1, "post a receive");
	}
}

/* A new queue pair connected to the server, receives posted: true when ESTABLISHED. */
static bool conn_open(void)
{
	struct rpcrdma_pmd_qp_attr a;

	/* room for every work request the QP may have (128 + 128 by default) */
	if (rpcrdma_pmd_cq_create(dev, 256, &cq) != 0)
		return false;
	rpcrdma_pmd_qp_attr_init(&a);
	a.send_cq = a.recv_cq = cq;
	a.rnr_retry = 7; /* a Send waits for a receive the server posts late */
	if (rpcrdma_pmd_qp_create(pd, &a, &qp) != 0) {
		rpcrdma_pmd_cq_destroy(cq);
		return false;
	}
	post_recvs(NRECV);
	/* no RFC 8797 private data: the server sends and receives 1 KiB inline */
	if (rpcrdma_pmd_connect(qp, addr, NULL, 0) != 0)
		return false;
	return wait_event(RPCRDMA_PMD_EVENT_ESTABLISHED);
}

/* Disconnect, and destroy the queue pair once every buffer is back. */
static void conn_close(void)
{
	uint64_t end = test_now_ms() + WAIT_MS;

	CHECK(rpcrdma_pmd_disconnect(qp) == 0, "disconnect");
	CHECK(wait_event(RPCRDMA_PMD_EVENT_DISCONNECTED), "disconnected");
	while (__atomic_load_n(&pools->inline_pool->in_use, __ATOMIC_RELAXED) > 0 &&
	       test_now_ms() < end)
		reap(NULL); /* the receives flush */
	rpcrdma_pmd_qp_destroy(qp);
	rpcrdma_pmd_cq_destroy(cq);
	qp = NULL;
	cq = NULL;
}

/*
 * Send one call: the transport header, the RPC call header (AUTH_NONE) for
 * @p proc with @p xid, then @p nargs bytes of arguments; wait for the reply.
 */
static void ask(uint32_t xid, uint32_t proc, const void *args, uint32_t nargs, struct reply *r)
{
	const uint32_t hdr[] = { xid,		1,    8, 0, 0, 0, 0, xid, 0, 2, BLOCKSTORE_PROG,
				 BLOCKSTORE_V1, proc, 0, 0, 0, 0 };
	struct rpcrdma_mempool *ip = pools->inline_pool;
	uint8_t *sb = rpcrdma_mempool_get(ip);
	uint64_t end = test_now_ms() + WAIT_MS;
	struct rpcrdma_pmd_sge ss;
	struct rpcrdma_pmd_send_wr sw;
	bool sent = false;
	unsigned int i;

	r->len = -1;
	if (sb == NULL) {
		CHECK(false, "a send buffer");
		return;
	}
	for (i = 0; i < sizeof(hdr) / 4; i++)
		rpcrdma_wire_put32(sb, i, hdr[i]);
	if (nargs != 0) /* SUBSCRIBE has no arguments: args may be NULL */
		memcpy(sb + sizeof(hdr), args, nargs);
	ss = (struct rpcrdma_pmd_sge){ (uintptr_t)sb, (uint32_t)sizeof(hdr) + nargs, ip->lkey };
	memset(&sw, 0, sizeof(sw));
	sw.wr_id = WR_SEND;
	sw.sg_list = &ss;
	sw.num_sge = 1;
	sw.opcode = RPCRDMA_PMD_WR_SEND;
	sw.flags = RPCRDMA_PMD_SEND_SIGNALED;
	CHECK(rpcrdma_pmd_queue_send_burst(qp, &sw, 1) == 1, "queue the Send");
	rpcrdma_pmd_flush(qp);
	while (test_now_ms() < end && !(sent && r->len >= 0))
		sent = reap(r) > 0 || sent;
	rpcrdma_mempool_put(ip, sb);
	CHECK(r->len >= 0, "xid %#x proc %u: a reply", xid, proc);
	if (r->len >= 0)
		post_recvs(1); /* the one the reply took */
}

/* An accepted SUCCESS reply to xid: its results, or NULL. */
static const uint8_t *results(const struct reply *r, uint32_t xid, uint32_t len)
{
	if (r->len != 24 + (int)len || get32(r->b, 0) != xid || get32(r->b, 1) != 1 ||
	    get32(r->b, 2) != 0 || get32(r->b, 5) != 0)
		return NULL;
	return r->b + 24;
}

static void write_at(uint32_t xid, uint64_t offset, uint8_t seed, struct reply *r)
{
	uint8_t args[12 + 100];
	const uint8_t *res;

	rpcrdma_wire_put32(args, 0, (uint32_t)(offset >> 32));
	rpcrdma_wire_put32(args, 1, (uint32_t)offset);
	rpcrdma_wire_put32(args, 2, 100);
	for (unsigned int i = 0; i < 100; i++)
		args[12 + i] = test_pattern(seed, i);
	ask(xid, BS_PROC_WRITE, args, sizeof(args), r);
	res = results(r, xid, 8);
	CHECK(res != NULL && get32(res, 0) == BS_OK && get32(res, 1) == 100,
	      "WRITE xid %#x answered BS_OK, 100 bytes (reply of %d bytes)", xid, r->len);
}

/* GETATTR's writes counter, or UINT64_MAX. */
static uint64_t writes(uint32_t xid)
{
	struct reply r;
	const uint8_t *a;

	ask(xid, BS_PROC_GETATTR, NULL, 0, &r);
	a = results(&r, xid, 56);
	CHECK(a != NULL, "GETATTR answered");
	/* size(2 words) block_size max_io reads(2) writes(2) */
	return a != NULL ? get64(a, 6) : UINT64_MAX;
}

static void subscribe(uint32_t xid, struct reply *r)
{
	const uint8_t *res;

	ask(xid, BS_PROC_SUBSCRIBE, NULL, 0, r);
	res = results(r, xid, 4);
	CHECK(res != NULL && get32(res, 0) == BS_OK, "SUBSCRIBE xid %#x answered BS_OK", xid);
}

static bool same(const struct reply *a, const struct reply *b)
{
	return a->len > 0 && a->len == b->len && memcmp(a->b, b->b, (size_t)a->len) == 0;
}

int main(int argc, char **argv)
{
	/* inline buffers only are used; the pool set wants chunk classes too */
	const struct test_side_pools sp = { "drc-peer", 64, 2, 1, 0, false };
	struct reply r1, r2, r3, r4, s1, s2, s3;
	const uint32_t X = 0x5eed0001, S = 0x5eed0002;
	uint64_t w1, w2, w3;
	bool on;
	int ret;

	if (argc != 3 || (strcmp(argv[2], "on") != 0 && strcmp(argv[2], "off") != 0 &&
			  strcmp(argv[2], "other") != 0)) {
		fprintf(stderr, "usage: drc_peer ADDRESS on|off|other\n");
		return 2;
	}
	addr = argv[1];
	on = strcmp(argv[2], "on") == 0;
	if (rpcrdma_mempool_eal_init(argv[0], NULL) < 0)
		return 1;
	ret = test_side_open(NULL, &sp, &dev, &pd, &pools);
	if (ret != 0) {
		fprintf(stderr, "drc_peer: cannot open the PMD: %s\n", strerror(-ret));
		return 1;
	}

	if (strcmp(argv[2], "other") == 0) {
		/* another client, after the first: its WRITE X, the same bytes, is its own */
		if (!conn_open()) {
			CHECK(false, "the other client's connection");
			return test_summary("drc_peer");
		}
		write_at(X, 8192, 1, &r1);
		printf("writes %lu\n", (unsigned long)writes(0x5eed0104));
		conn_close();
		CHECK(test_side_close(&dev, &pd, &pools) == 0, "every buffer back, closed");
		return test_summary("drc_peer");
	}
	if (!conn_open()) {
		CHECK(false, "connection A");
		return test_summary("drc_peer");
	}
	write_at(X, 8192, 1, &r1);
	write_at(X, 8192, 1, &r2);
	CHECK(same(&r1, &r2), "the copy on the same connection: the same reply bytes");
	w1 = writes(0x5eed0101);
	conn_close();

	if (!conn_open()) {
		CHECK(false, "connection B (the client reconnected)");
		return test_summary("drc_peer");
	}
	write_at(X, 8192, 1, &r3);
	CHECK(same(&r1, &r3), "the copy on a new connection: the same reply bytes");
	w2 = writes(0x5eed0102);
	/* the same XID with other data is another call */
	write_at(X, 8192, 2, &r4);
	w3 = writes(0x5eed0103);
	subscribe(S, &s1);
	subscribe(S, &s2);
	CHECK(same(&s1, &s2), "SUBSCRIBE's copy: the same reply bytes");
	conn_close();

	/* SUBSCRIBE's effect ends with its connection: on a new one it runs (the server counts) */
	if (!conn_open()) {
		CHECK(false, "connection C");
		return test_summary("drc_peer");
	}
	subscribe(S, &s3);
	CHECK(same(&s1, &s3), "SUBSCRIBE on connection C answered alike");
	conn_close();

	printf("writes %lu %lu %lu\n", (unsigned long)w1, (unsigned long)w2, (unsigned long)w3);
	if (on)
		CHECK(w1 == 1 && w2 == 1 && w3 == 2, "with the cache each WRITE ran once");
	else
		CHECK(w1 == 2 && w2 == 3 && w3 == 4, "without the cache every copy ran");
	CHECK(test_side_close(&dev, &pd, &pools) == 0, "every buffer back, closed");
	return test_summary("drc_peer");
}

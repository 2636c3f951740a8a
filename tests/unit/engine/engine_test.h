/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Helpers for the engine tests: counted checks, and a simulated RDMA fabric
 * in one address space. The fabric registers buffers with distinct lkeys,
 * rkeys and an iova unlike the buffer's address (so code that confuses the
 * two fails), and performs Sends (gather), RDMA Reads and RDMA Writes with
 * memcpy after checking every key and bound, as a device would.
 */
#ifndef RPCRDMA_TEST_ENGINE_TEST_H
#define RPCRDMA_TEST_ENGINE_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/rpcrdma_marshal.h>
#include <rpcrdma/rpcrdma_xdr.h>

#include "test_check.h"

/** Fill a buffer with a pattern derived from seed (never all zero). */
void test_fill(void *buf, size_t len, uint32_t seed);

/** Registrations the fabric holds. */
#define FAB_MAX_MR 64

/**
 * Register len bytes at addr: distinct lkey and rkey, and an iova far from
 * addr. Deregister with fab_dereg().
 */
struct rpcrdma_xdr_region fab_reg(void *addr, uint32_t len);

/** A fresh zeroed heap buffer of len bytes, registered; fab_free() or fab_reset() frees it. */
struct rpcrdma_xdr_region fab_alloc(uint32_t len);

/** Deregister, and free what fab_alloc() allocated. */
void fab_free(struct rpcrdma_xdr_region *r);

/** Forget every registration, freeing what fab_alloc() allocated. */
void fab_reset(void);

/** Invalidate an rkey: later remote accesses with it fail. */
void fab_invalidate(uint32_t rkey);

/** Local memory named by (lkey, addr, len), or NULL when outside its registration. */
uint8_t *fab_local(uint32_t lkey, uint64_t addr, uint32_t len);

/** Remote memory named by (rkey, iova, len), or NULL when invalid or out of bounds. */
uint8_t *fab_remote(uint32_t rkey, uint64_t iova, uint32_t len);

/**
 * Gather a Send into out (the peer's receive buffer of cap bytes).
 *
 * @return
 *   Bytes received, or -1: a bad lkey or bound, or more than cap bytes
 *   (the receiver's Local Length Error).
 */
int fab_send(const struct rpcrdma_marshal_sge *sge, unsigned int n, uint8_t *out, uint32_t cap);

/** Perform RDMA Reads (read = true) or Writes; 0, or -1 on an access error. */
int fab_rdma(const struct rpcrdma_marshal_rdma *ops, unsigned int n, bool read);

/**
 * Do two headers say the same (xid, vers, credit, proc, and for RDMA_MSG
 * and RDMA_NOMSG the direction in v2 and every chunk list)? Prints the
 * first difference under the given name.
 */
bool test_hdr_same(const char *what, const struct rpcrdma_hdr *a, const struct rpcrdma_hdr *b);

/**
 * Decode an encoded header with the codec into st and compare it with the
 * header it was encoded from: a plan's header must survive the wire.
 *
 * @return
 *   true when decoding gives hdr back and consumes exactly len bytes.
 */
bool test_hdr_wire(const char *what, const struct rpcrdma_hdr *hdr, const void *buf, uint32_t len,
		   struct rpcrdma_hdr_storage *st);

#endif /* RPCRDMA_TEST_ENGINE_TEST_H */

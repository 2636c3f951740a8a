/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Internal to the C side of the benchmarks: the message shapes, the values
 * their messages carry, and what each implementation file
 * (bench_rpcrdma.c, bench_rpcgen.c) gives bench_shim.c.
 */
#ifndef BENCH_IMPL_H
#define BENCH_IMPL_H

#include <stdint.h>

#include "bench_shim.h"

/** The message shapes; bench_shim.h describes each. */
enum bench_shape {
	BENCH_V1_MSG_NULLCALL,
	BENCH_V1_MSG_READ1,
	BENCH_V1_MSG_WRITE4_REPLY4,
	BENCH_V1_ERROR_VERS,
	BENCH_V2_OPTIONAL_INITXCH,
	BENCH_SHAPE_N,
};

/* The values in the messages; bench_shim.c writes the same ones out by hand. */
#define BENCH_XID	     0x5a1e0001u
#define BENCH_CREDIT	     32u
#define BENCH_NFS_PROG	     100003u
#define BENCH_NFS_VERS	     3u
#define BENCH_READ_POS	     148u /* after an NFSv3 WRITE's arguments */
#define BENCH_VERS_LOW	     1u
#define BENCH_VERS_HIGH	     2u
#define BENCH_CHUNK_SEGS     4u
#define BENCH_SEG_HANDLE(i)  (0x00010000u + (uint32_t)(i))
#define BENCH_SEG_LENGTH(i)  (4096u * ((uint32_t)(i) + 1))
#define BENCH_SEG_OFFSET(i)  (0x00007f3a12340000ull + (uint64_t)(i)*0x10000)
#define BENCH_XCHAR_RBSIZ    8192u
#define BENCH_XCHAR_REMINV   1u
#define BENCH_XCHAR_BKREQSUP 2u /* BKREQSUP_GENL */

/** Room for any shape's message. */
#define BENCH_BUF_LEN 512

/** The wire image of a shape, written by hand: what every encoder must produce. */
struct bench_wire {
	const uint8_t *buf;
	uint32_t len;
};

/** A case as an implementation file builds it. */
struct bench_impl_case {
	struct bench_case c;
	enum bench_shape shape;
	/** Where encode and roundtrip write. */
	const uint8_t *out;
	/**
	 * Decode the wire image as op[BENCH_DECODE] does and encode what was
	 * decoded into buf, with the same implementation. Not timed.
	 * Returns the bytes written, or < 0.
	 */
	int (*reencode)(void *arg, uint8_t *buf, uint32_t len);
};

/**
 * Build an implementation's cases for the shapes it handles.
 *
 * @param cases
 *   Room for BENCH_SHAPE_N * 2 cases.
 * @param wire
 *   The wire images, indexed by enum bench_shape: the decode inputs.
 * @return
 *   The number of cases written. Aborts when out of memory.
 */
unsigned int bench_rpcrdma_cases(struct bench_impl_case *cases, const struct bench_wire *wire);
unsigned int bench_rpcgen_cases(struct bench_impl_case *cases, const struct bench_wire *wire);

/** Allocate zeroed, cache-line aligned state; aborts when out of memory. */
void *bench_state_alloc(size_t size);

#endif /* BENCH_IMPL_H */

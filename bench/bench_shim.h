/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The C side of the codec benchmarks, as bench/bench_codec.cc sees it.
 *
 * A case is one message shape handled by one implementation. Each case
 * has up to three operations on one message, each a plain C function that
 * does the whole operation once and returns the bytes it encoded or
 * decoded (negative on failure):
 *
 *   encode     the message from its in-memory form to the wire
 *   decode     the wire image (prepared once) to the in-memory form
 *   roundtrip  encode, then decode what was encoded
 *
 * All state lives in the case (arg), allocated and filled once by
 * bench_shim_init(), which also runs every operation once and aborts the
 * program if an encoding differs from the wire image written out by hand
 * in bench_shim.c or a decoding does not give back the message, so the
 * timed loops measure real work on the right bytes.
 *
 * bench-nfs3 implements the same interface in bench_nfs3.c for the NFSv3
 * codec (its shapes are listed there); what follows is bench-codec's.
 *
 * Benchmark names are "<shape>/<op>/<impl>", stable across commits so
 * runs can be compared:
 *   shape  v1_msg_nullcall        v1 RDMA_MSG, no chunks, then an ONC RPC NULL
 *                                 call header with AUTH_NONE (68 bytes)
 *          v1_msg_read1           v1 RDMA_MSG, a read list of one segment (52)
 *          v1_msg_write4_reply4   v1 RDMA_MSG, a write list of one chunk of 4
 *                                 segments and a reply chunk of 4 (168)
 *          v1_error_vers          v1 RDMA_ERROR ERR_VERS (28)
 *          v2_optional_initxch    v2 RDMA2_OPTIONAL with ROPT_INITXCH of three
 *                                 characteristics (72; rpcrdma only)
 *   op     encode, decode, roundtrip
 *   impl   rpcrdma       this project's codec
 *          rpcgen        rpcgen's code for tests/xdr/rpcrdma_v1.x plus libtirpc's
 *                        xdr_callmsg; one xdrmem_create per operation, and
 *                        decode into storage set up beforehand, so nothing is
 *                        allocated per message
 *          rpcgen_alloc  decode only, for the shapes with chunks: rpcgen as
 *                        usually called, decoding into a zeroed struct, so it
 *                        mallocs each list entry and array, then xdr_free
 */
#ifndef BENCH_SHIM_H
#define BENCH_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum bench_op {
	BENCH_ENCODE,
	BENCH_DECODE,
	BENCH_ROUNDTRIP,
	BENCH_OP_N,
};

/** One operation on one message; returns bytes encoded or decoded, or < 0. */
typedef int (*bench_op_fn)(void *arg);

struct bench_case {
	const char *shape;	    /**< "v1_msg_nullcall" */
	const char *impl;	    /**< "rpcrdma", "rpcgen", "rpcgen_alloc" */
	uint32_t msg_len;	    /**< bytes of the message on the wire */
	bench_op_fn op[BENCH_OP_N]; /**< NULL when the case lacks the operation */
	void *arg;		    /**< state passed to op[] */
};

/** "encode", "decode", "roundtrip". */
const char *bench_op_name(enum bench_op op);

/**
 * Build every case and check each operation once; prints what differs and
 * aborts on a mismatch.
 *
 * @return
 *   The cases, *n of them, valid until the program ends.
 */
const struct bench_case *bench_shim_init(unsigned int *n);

#ifdef __cplusplus
}
#endif

#endif /* BENCH_SHIM_H */

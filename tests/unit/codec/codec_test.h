/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Small helpers for the codec tests: checks that count and report
 * failures, exact-size heap copies (so AddressSanitizer catches a read one
 * byte past the end), hex dumps.
 */
#ifndef RPCRDMA_TEST_CODEC_TEST_H
#define RPCRDMA_TEST_CODEC_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "codec_vectors.h"

extern unsigned long test_checks;
extern unsigned long test_failures;

void test_fail(const char *file, int line, const char *cond, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/** Check a condition; on failure print it with a printf-style message. */
#define CHECK(cond, fmt, ...)                                                     \
	do {                                                                      \
		test_checks++;                                                    \
		if (!(cond))                                                      \
			test_fail(__FILE__, __LINE__, #cond, fmt, ##__VA_ARGS__); \
	} while (0)

/** A malloc'd copy of exactly len bytes (len may be 0); free() it. */
uint8_t *test_heap_copy(const void *p, size_t len);

/** malloc() that aborts on failure; exactly len bytes. */
void *test_malloc(size_t len);

/** Print a titled hex dump to stderr, 16 bytes a line. */
void test_hexdump(const char *title, const void *buf, size_t len);

/** The first of the NULL-terminated tokens that line lacks, or NULL. */
const char *test_missing_token(const char *line, const char *const *tokens);

/**
 * The structure a CODEC_HDR or CODEC_OPT vector decodes to, ready to
 * encode: rdma_optinfo of an xchar operation is made by
 * rpcrdma_xchar_encode() into optinfo[size].
 *
 * @return
 *   What rpcrdma_xchar_encode() returned, or 0 when it was not needed.
 */
int test_vector_hdr(const struct codec_vector *v, struct rpcrdma_hdr *hdr, uint8_t *optinfo,
		    size_t size);

/**
 * The structure a CODEC_RPC vector decodes to, ready to encode: an
 * AUTH_SYS credential body is made by rpcrdma_rpc_authsys_encode() into
 * body[size].
 *
 * @return
 *   What rpcrdma_rpc_authsys_encode() returned, or 0 when it was not needed.
 */
int test_vector_rpc(const struct codec_vector *v, struct rpcrdma_rpc_msg *msg, uint8_t *body,
		    size_t size);

/** Print the summary line; the exit status: 0 when every check passed, else 1. */
int test_summary(const char *name);

#endif /* RPCRDMA_TEST_CODEC_TEST_H */

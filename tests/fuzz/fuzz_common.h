/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Shared checks of the codec fuzz targets. A target decodes its input;
 * when the input is accepted, it re-encodes the result, decodes that again
 * and requires the same fields and canonical bytes, and formats it. Any
 * disagreement aborts, so libFuzzer keeps the input as a crash.
 */
#ifndef RPCRDMA_FUZZ_COMMON_H
#define RPCRDMA_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

/** Report a property violation for the input and abort. */
void fuzz_fail(const char *target, const char *what, const char *detail) __attribute__((noreturn));

/** malloc() of @p len bytes (at least one), or report running out for the input and abort. */
void *fuzz_alloc(const char *target, size_t len);

/** Abort unless ret is 0, a length, or one of the codec's error numbers. */
void fuzz_check_ret(const char *target, int ret);

/**
 * Decode rdma_optinfo as a transport characteristics operation and, when
 * accepted, check its round trip and formatter.
 *
 * @return
 *   What rpcrdma_xchar_decode() returned.
 */
int fuzz_check_xchar(const char *target, uint32_t opttype, const uint8_t *optinfo, uint32_t len);

#endif /* RPCRDMA_FUZZ_COMMON_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Inline helpers for the codecs' fast paths: big-endian XDR words read from
 * and written to buffers of any alignment, and copies of four words at a
 * time with the byte order swapped, which is how the fast paths move a run
 * of fields that lie in wire order in their structs (one vector load,
 * shuffle and store where a word-by-word copy costs four of each).
 */
#ifndef RPCRDMA_WIRE_H
#define RPCRDMA_WIRE_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/** XDR word i of a wire buffer, in host order. */
static inline uint32_t rpcrdma_wire_get32(const void *buf, unsigned int i)
{
	uint32_t v;

	memcpy(&v, (const uint8_t *)buf + 4 * i, sizeof(v));
	return be32toh(v);
}

/** Store v as XDR word i of a wire buffer. */
static inline void rpcrdma_wire_put32(void *buf, unsigned int i, uint32_t v)
{
	v = htobe32(v);
	memcpy((uint8_t *)buf + 4 * i, &v, sizeof(v));
}

/**
 * Copy four 32-bit words from src to dst, swapping each between wire and
 * host order (the same operation both ways). Neither needs alignment.
 */
static inline void rpcrdma_wire_swap4(void *dst, const void *src)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && (defined(__GNUC__) || defined(__clang__))
	typedef uint8_t v16u8 __attribute__((vector_size(16)));
	v16u8 v;

	memcpy(&v, src, sizeof(v));
#if defined(__clang__)
	v = __builtin_shufflevector(v, v, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
#else
	v = __builtin_shuffle(v, (v16u8){ 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12 });
#endif
	memcpy(dst, &v, sizeof(v));
#else
	uint32_t w[4];
	unsigned int i;

	memcpy(w, src, sizeof(w));
	for (i = 0; i < 4; i++)
		w[i] = be32toh(w[i]);
	memcpy(dst, w, sizeof(w));
#endif
}

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_WIRE_H */

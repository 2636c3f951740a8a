/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * XDR primitives for the codecs in engine/ (RFC 4506): big-endian 32- and
 * 64-bit words through a bounded cursor. Internal to the engine; every
 * decoder checks xdr_avail() before it reads.
 */
#ifndef RPCRDMA_ENGINE_XDR_H
#define RPCRDMA_ENGINE_XDR_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/** A decoding cursor over [p, end). */
struct xdr_dec {
	const uint8_t *p;
	const uint8_t *end;
};

/** An encoding cursor; the encoders check capacity once, up front. */
struct xdr_enc {
	uint8_t *p;
};

/** Round an opaque length up to the XDR 4-byte unit (RFC 4506 4.10). */
static inline uint32_t xdr_pad4(uint32_t n)
{
	return (n + 3u) & ~3u;
}

static inline bool xdr_avail(const struct xdr_dec *d, size_t n)
{
	return (size_t)(d->end - d->p) >= n;
}

static inline size_t xdr_left(const struct xdr_dec *d)
{
	return (size_t)(d->end - d->p);
}

/* Unaligned big-endian loads: a receive buffer offset need not be aligned. */
static inline uint32_t xdr_load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

static inline uint64_t xdr_load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

static inline void xdr_store32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void xdr_store64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, sizeof(v));
}

/* Reads that the caller has already bounds-checked with xdr_avail(). */
static inline uint32_t xdr_get32(struct xdr_dec *d)
{
	uint32_t v = xdr_load32(d->p);

	d->p += 4;
	return v;
}

static inline uint64_t xdr_get64(struct xdr_dec *d)
{
	uint64_t v = xdr_load64(d->p);

	d->p += 8;
	return v;
}

static inline void xdr_put32(struct xdr_enc *e, uint32_t v)
{
	xdr_store32(e->p, v);
	e->p += 4;
}

static inline void xdr_put64(struct xdr_enc *e, uint64_t v)
{
	xdr_store64(e->p, v);
	e->p += 8;
}

/* opaque<>: length, bytes, zero padding to a multiple of 4. */
static inline void xdr_put_opaque(struct xdr_enc *e, const void *data, uint32_t len)
{
	uint32_t pad = xdr_pad4(len) - len;

	xdr_put32(e, len);
	if (len)
		memcpy(e->p, data, len);
	e->p += len;
	while (pad--)
		*e->p++ = 0;
}

/*
 * Decode opaque<max>: returns 0 and sets data and len, or a negative error.
 * The length word is bounds-checked against max before the body is.
 */
static inline int xdr_get_opaque(struct xdr_dec *d, uint32_t max, const uint8_t **data,
				 uint32_t *len, int err_bound, int err_trunc)
{
	uint32_t n;

	if (unlikely(!xdr_avail(d, 4)))
		return err_trunc;
	n = xdr_get32(d);
	if (unlikely(n > max))
		return err_bound;
	/* In 64 bits: the padded length of a huge n must not wrap to 0. */
	if (unlikely((((uint64_t)n + 3) & ~(uint64_t)3) > xdr_left(d)))
		return err_trunc;
	*data = d->p;
	*len = n;
	d->p += (((uint64_t)n + 3) & ~(uint64_t)3);
	return 0;
}

/* snprintf accumulation for the formatters: keeps the full length, clamps writes. */
struct fmt_buf {
	char *buf;
	size_t size;
	size_t len;
};

void fmt_add(struct fmt_buf *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* RPCRDMA_ENGINE_XDR_H */

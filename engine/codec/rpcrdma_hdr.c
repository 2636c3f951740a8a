/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RPC-over-RDMA transport header codec, versions 1 and 2.
 *
 * One function per XDR rule. The grammar comments use the notation of Linux
 * rpc_rdma.c: each letter is one XDR word, "1"/"0" the optional-data
 * discriminator of a list entry, P position, H handle, L length, OO the
 * 64-bit offset, N a counted array's length. So a read list of two entries
 * is "1 - PHLOO - 1 - PHLOO - 0".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rpcrdma/rpcrdma_hdr.h>

#include "xdr.h"

/*
 * The decoders below are forced inline into rpcrdma_hdr_decode_full() so
 * that its cursor lives in registers: out of line, the cursor is in memory
 * and every word costs a load and a store of it.
 */
#define __codec_always_inline inline __attribute__((always_inline))

/* Wire sizes. */
#define SEG_WORDS_LEN  16u /* HLOO */
#define READ_ENTRY_LEN 24u /* 1 - PHLOO */

void rpcrdma_hdr_init(struct rpcrdma_hdr *hdr, struct rpcrdma_read_segment *reads,
		      uint16_t max_reads, struct rpcrdma_write_chunk *writes, uint16_t max_writes,
		      struct rpcrdma_segment *segs, uint16_t max_chunk_segs)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->cap.max_reads = max_reads;
	hdr->cap.max_writes = max_writes;
	hdr->cap.max_chunk_segs = max_chunk_segs;
	hdr->cap.reads = reads;
	hdr->cap.writes = writes;
	hdr->cap.segs = segs;
}

struct rpcrdma_hdr *rpcrdma_hdr_storage_init(struct rpcrdma_hdr_storage *st)
{
	rpcrdma_hdr_init(&st->hdr, st->reads, RPCRDMA_HDR_DEFAULT_READS, st->writes,
			 RPCRDMA_HDR_DEFAULT_WRITES, st->segs, RPCRDMA_HDR_DEFAULT_CHUNK_SEGS);
	return &st->hdr;
}

/*
 * Is proc defined for vers? v1: RDMA_MSG..RDMA_ERROR (RFC 5666 4.3).
 * v2: RDMA2_MSG, RDMA2_NOMSG, RDMA2_ERROR, RDMA2_OPTIONAL (v2 draft 4.2).
 */
static inline bool proc_valid(uint32_t vers, uint32_t proc)
{
	if (vers == RPCRDMA_VERS_1)
		return proc <= RPCRDMA_ERROR;
	return proc == RPCRDMA_MSG || proc == RPCRDMA_NOMSG || proc == RPCRDMA_ERROR ||
	       proc == RPCRDMA_OPTIONAL;
}

static inline bool errcode_valid(uint32_t vers, uint32_t code)
{
	if (vers == RPCRDMA_VERS_1)
		return code == RPCRDMA_ERR_VERS || code == RPCRDMA_ERR_CHUNK;
	return code >= RPCRDMA2_ERR_VERS && code <= RPCRDMA2_ERR_INVAL_OPTION;
}

/* ---------------------------------------------------------------- decode */

/*
 * xdr_rdma_segment (RFC 5666 4.3) / rpcrdma2_segment (v2 draft 4.2):
 *   H L OO
 * The caller has checked that 16 bytes are there.
 */
static inline void decode_segment(struct xdr_dec *d, struct rpcrdma_segment *seg)
{
	seg->handle = xdr_get32(d);
	seg->length = xdr_get32(d);
	seg->offset = xdr_get64(d);
}

/*
 * xdr_read_list (RFC 5666 4.3, rfc5666bis 4.4.5):
 *   1 - PHLOO - 1 - PHLOO - ... - 0
 * Positions are XDR positions in the RPC message: multiples of 4
 * (rfc5666bis 4.4.5.1 rounds chunks up to XDR alignment).
 */
static __codec_always_inline int decode_read_list(struct xdr_dec *d, struct rpcrdma_chunk_lists *cl,
						  const struct rpcrdma_hdr_cap *cap)
{
	struct rpcrdma_read_segment *rs = cap->reads;
	uint32_t n = 0;

	for (;;) {
		uint32_t present;

		if (unlikely(!xdr_avail(d, 4)))
			return -RPCRDMA_E_TRUNC;
		present = xdr_get32(d);
		if (likely(present == 0))
			break;
		if (unlikely(present != 1))
			return -RPCRDMA_E_BOOL;
		if (unlikely(!xdr_avail(d, READ_ENTRY_LEN - 4)))
			return -RPCRDMA_E_TRUNC;
		if (unlikely(n == cap->max_reads))
			return -RPCRDMA_E_TOO_MANY_READS;
		rs[n].position = xdr_get32(d);
		if (unlikely(rs[n].position & 3))
			return -RPCRDMA_E_POSITION;
		decode_segment(d, &rs[n].target);
		n++;
	}
	cl->reads = rs;
	cl->nreads = (uint16_t)n;
	return 0;
}

/*
 * xdr_write_chunk (RFC 5666 4.3) / rpcrdma2_write_chunk:
 *   N - HLOO - HLOO - ...        (N segments)
 * Segments go to the header's storage at *segs_used. The loop keeps its
 * cursor in a local: through d, GCC cannot tell the byte loads from the
 * segment stores and versions the loop with alias checks, which costs
 * more than it saves on a handful of segments.
 */
static __codec_always_inline int decode_write_chunk(struct xdr_dec *d,
						    struct rpcrdma_write_chunk *wc,
						    const struct rpcrdma_hdr_cap *cap,
						    uint32_t *segs_used)
{
	struct rpcrdma_segment *seg;
	const uint8_t *p;
	uint32_t nsegs, i;

	if (unlikely(!xdr_avail(d, 4)))
		return -RPCRDMA_E_TRUNC;
	nsegs = xdr_get32(d);
	if (unlikely(nsegs > cap->max_chunk_segs))
		return -RPCRDMA_E_TOO_MANY_SEGS;
	/* nsegs <= 65535, so the product cannot overflow. */
	if (unlikely(!xdr_avail(d, (size_t)nsegs * SEG_WORDS_LEN)))
		return -RPCRDMA_E_TRUNC;
	seg = cap->segs + *segs_used;
	p = d->p;
	for (i = 0; i < nsegs; i++, p += SEG_WORDS_LEN) {
		seg[i].handle = xdr_load32(p);
		seg[i].length = xdr_load32(p + 4);
		seg[i].offset = xdr_load64(p + 8);
	}
	d->p = p;
	wc->nsegs = nsegs;
	wc->segs = seg;
	*segs_used += nsegs;
	return 0;
}

/*
 * xdr_write_list (RFC 5666 4.3):
 *   1 - N - HLOO - ... - 1 - N - HLOO - ... - 0
 */
static __codec_always_inline int decode_write_list(struct xdr_dec *d,
						   struct rpcrdma_chunk_lists *cl,
						   const struct rpcrdma_hdr_cap *cap,
						   uint32_t *segs_used)
{
	uint32_t n = 0;
	int ret;

	for (;;) {
		uint32_t present;

		if (unlikely(!xdr_avail(d, 4)))
			return -RPCRDMA_E_TRUNC;
		present = xdr_get32(d);
		if (likely(present == 0))
			break;
		if (unlikely(present != 1))
			return -RPCRDMA_E_BOOL;
		if (unlikely(n == cap->max_writes))
			return -RPCRDMA_E_TOO_MANY_WRITES;
		ret = decode_write_chunk(d, &cap->writes[n], cap, segs_used);
		if (unlikely(ret))
			return ret;
		n++;
	}
	cl->writes = cap->writes;
	cl->nwrites = (uint16_t)n;
	return 0;
}

/*
 * The reply chunk, an optional xdr_write_chunk (RFC 5666 4.3):
 *   0   or   1 - N - HLOO - ...
 */
static __codec_always_inline int decode_reply_chunk(struct xdr_dec *d,
						    struct rpcrdma_chunk_lists *cl,
						    const struct rpcrdma_hdr_cap *cap,
						    uint32_t *segs_used)
{
	uint32_t present;

	if (unlikely(!xdr_avail(d, 4)))
		return -RPCRDMA_E_TRUNC;
	present = xdr_get32(d);
	if (likely(present == 0)) {
		cl->has_reply = false;
		return 0;
	}
	if (unlikely(present != 1))
		return -RPCRDMA_E_BOOL;
	cl->has_reply = true;
	return decode_write_chunk(d, &cl->reply, cap, segs_used);
}

/*
 * rpc_rdma_header (RFC 5666 4.3) and the chunk part of
 * rpcrdma2_chunk_lists (v2 draft 4.2):
 *   read_list write_list reply_chunk
 */
static __codec_always_inline int decode_chunk_lists(struct xdr_dec *d,
						    struct rpcrdma_chunk_lists *cl,
						    const struct rpcrdma_hdr_cap *cap)
{
	uint32_t segs_used = 0;
	int ret;

	ret = decode_read_list(d, cl, cap);
	if (unlikely(ret))
		return ret;
	ret = decode_write_list(d, cl, cap, &segs_used);
	if (unlikely(ret))
		return ret;
	return decode_reply_chunk(d, cl, cap, &segs_used);
}

/*
 * rpc_rdma_error (RFC 5666 4.3) / rpcrdma2_error (v2 draft 4.2):
 *   ERR_VERS low high   |   ERR_CHUNK   (v1)
 *   RDMA2_ERR_VERS low high | RDMA2_ERR_BAD_HEADER | RDMA2_ERR_INVAL_OPTION (v2)
 */
static __codec_always_inline int decode_error(struct xdr_dec *d, uint32_t vers,
					      struct rpcrdma_hdr_error *err)
{
	if (unlikely(!xdr_avail(d, 4)))
		return -RPCRDMA_E_TRUNC;
	err->code = xdr_get32(d);
	err->low = 0;
	err->high = 0;
	if (unlikely(!errcode_valid(vers, err->code)))
		return -RPCRDMA_E_ENUM;
	/* ERR_VERS has the value 1 in both versions. */
	if (err->code == RPCRDMA_ERR_VERS) {
		if (unlikely(!xdr_avail(d, 8)))
			return -RPCRDMA_E_TRUNC;
		err->low = xdr_get32(d);
		err->high = xdr_get32(d);
	}
	return 0;
}

/*
 * rpcrdma2_optional (v2 draft 4.2):
 *   optdir opttype N - optinfo bytes (padded to 4)
 */
static __codec_always_inline int decode_optional(struct xdr_dec *d,
						 struct rpcrdma_hdr_optional *opt)
{
	if (unlikely(!xdr_avail(d, 8)))
		return -RPCRDMA_E_TRUNC;
	opt->optdir = xdr_get32(d);
	opt->opttype = xdr_get32(d);
	if (unlikely(opt->optdir > RPCRDMA_REPLY))
		return -RPCRDMA_E_ENUM;
	return xdr_get_opaque(d, UINT32_MAX, &opt->optinfo, &opt->optinfo_len, -RPCRDMA_E_OPAQUE,
			      -RPCRDMA_E_OPAQUE);
}

/*
 * rdma_msg (RFC 5666 4.3) / rpcrdma2_xprt_hdr (v2 draft 4.2):
 *   xid vers credit proc body
 * body, by version and proc:
 *   v1 RDMA_MSG, RDMA_NOMSG: read_list write_list reply_chunk
 *   v1 RDMA_MSGP:            align thresh read_list write_list reply_chunk
 *   v1 RDMA_DONE:            (void)
 *   v1/v2 ERROR:             see decode_error()
 *   v2 RDMA2_MSG, NOMSG:     direction read_list write_list reply_chunk
 *   v2 RDMA2_OPTIONAL:       see decode_optional()
 */
int rpcrdma_hdr_decode_full(struct rpcrdma_hdr *hdr, const void *buf, uint32_t len)
{
	struct xdr_dec d = { .p = buf, .end = (const uint8_t *)buf + len };
	int ret;

	if (unlikely(len < RPCRDMA_HDR_FIXED_LEN)) {
		hdr->xid = len >= 4 ? xdr_load32(d.p) : 0;
		return -RPCRDMA_E_TRUNC;
	}
	rpcrdma_wire_swap4(hdr, d.p); /* xid vers credit proc, in wire order */
	d.p += RPCRDMA_HDR_FIXED_LEN;

	if (unlikely(hdr->vers != RPCRDMA_VERS_1 && hdr->vers != RPCRDMA_VERS_2))
		return -RPCRDMA_E_VERS;
	if (unlikely(!proc_valid(hdr->vers, hdr->proc)))
		return -RPCRDMA_E_PROC;

	switch (hdr->proc) {
	case RPCRDMA_MSG:
	case RPCRDMA_NOMSG:
	case RPCRDMA_MSGP:
		hdr->chunks.direction = 0;
		hdr->chunks.align = 0;
		hdr->chunks.thresh = 0;
		if (hdr->vers == RPCRDMA_VERS_2) {
			if (unlikely(!xdr_avail(&d, 4)))
				return -RPCRDMA_E_TRUNC;
			hdr->chunks.direction = xdr_get32(&d);
			if (unlikely(hdr->chunks.direction > RPCRDMA_REPLY))
				return -RPCRDMA_E_ENUM;
		} else if (hdr->proc == RPCRDMA_MSGP) {
			/* rpc_rdma_header_padded: align thresh, then the lists */
			if (unlikely(!xdr_avail(&d, 8)))
				return -RPCRDMA_E_TRUNC;
			hdr->chunks.align = xdr_get32(&d);
			hdr->chunks.thresh = xdr_get32(&d);
		}
		ret = decode_chunk_lists(&d, &hdr->chunks, &hdr->cap);
		break;
	case RPCRDMA_DONE:
		ret = 0;
		break;
	case RPCRDMA_ERROR:
		ret = decode_error(&d, hdr->vers, &hdr->error);
		break;
	default: /* RPCRDMA_OPTIONAL; proc_valid() admitted nothing else */
		ret = decode_optional(&d, &hdr->optional);
		break;
	}
	if (unlikely(ret))
		return ret;
	hdr->hdr_len = (uint32_t)(d.p - (const uint8_t *)buf);
	return (int)hdr->hdr_len;
}

/* ---------------------------------------------------------------- encode */

/*
 * Lengths are summed in 64 bits: nsegs is a caller's uint32, and a count
 * whose length wraps in 32 bits would pass the capacity check and then be
 * written in full. 65535 chunks of 2^32 segments stay below 2^53.
 */
static uint64_t write_chunk_len(const struct rpcrdma_write_chunk *wc)
{
	return 4 + (uint64_t)wc->nsegs * SEG_WORDS_LEN;
}

static uint64_t chunk_lists_len(uint32_t vers, uint32_t proc, const struct rpcrdma_chunk_lists *cl)
{
	uint64_t len = 0;
	uint32_t i;

	if (vers == RPCRDMA_VERS_2)
		len += 4; /* direction */
	else if (proc == RPCRDMA_MSGP)
		len += 8; /* align, thresh */
	len += cl->nreads * READ_ENTRY_LEN + 4;
	for (i = 0; i < cl->nwrites; i++)
		len += 4 + write_chunk_len(&cl->writes[i]);
	len += 4;
	len += 4;
	if (cl->has_reply)
		len += write_chunk_len(&cl->reply);
	return len;
}

static inline int hdr_encoded_len(const struct rpcrdma_hdr *hdr)
{
	uint64_t len = RPCRDMA_HDR_FIXED_LEN;

	if (unlikely(hdr->vers != RPCRDMA_VERS_1 && hdr->vers != RPCRDMA_VERS_2))
		return -EINVAL;
	if (unlikely(!proc_valid(hdr->vers, hdr->proc)))
		return -EINVAL;

	switch (hdr->proc) {
	case RPCRDMA_MSG:
	case RPCRDMA_NOMSG:
	case RPCRDMA_MSGP:
		len += chunk_lists_len(hdr->vers, hdr->proc, &hdr->chunks);
		break;
	case RPCRDMA_DONE:
		break;
	case RPCRDMA_ERROR:
		if (unlikely(!errcode_valid(hdr->vers, hdr->error.code)))
			return -EINVAL;
		len += hdr->error.code == RPCRDMA_ERR_VERS ? 12 : 4;
		break;
	default: /* RPCRDMA_OPTIONAL */
		if (unlikely(hdr->optional.optinfo_len > INT32_MAX - 64))
			return -EINVAL;
		len += 12 + xdr_pad4(hdr->optional.optinfo_len);
		break;
	}
	/* The length is returned as an int. */
	if (unlikely(len > INT32_MAX))
		return -EINVAL;
	return (int)len;
}

int rpcrdma_hdr_encoded_len(const struct rpcrdma_hdr *hdr)
{
	return hdr_encoded_len(hdr);
}

/* H L OO */
static inline void encode_segment(struct xdr_enc *e, const struct rpcrdma_segment *seg)
{
	xdr_put32(e, seg->handle);
	xdr_put32(e, seg->length);
	xdr_put64(e, seg->offset);
}

/* N - HLOO - ... */
static void encode_write_chunk(struct xdr_enc *e, const struct rpcrdma_write_chunk *wc)
{
	uint32_t i;

	xdr_put32(e, wc->nsegs);
	for (i = 0; i < wc->nsegs; i++)
		encode_segment(e, &wc->segs[i]);
}

/*
 * [direction | align thresh] 1 - PHLOO ... 0  1 - N - HLOO ... 0  (0 | 1 - N - HLOO ...)
 */
static void encode_chunk_lists(struct xdr_enc *e, uint32_t vers, uint32_t proc,
			       const struct rpcrdma_chunk_lists *cl)
{
	uint32_t i;

	if (vers == RPCRDMA_VERS_2) {
		xdr_put32(e, cl->direction);
	} else if (proc == RPCRDMA_MSGP) {
		xdr_put32(e, cl->align);
		xdr_put32(e, cl->thresh);
	}
	for (i = 0; i < cl->nreads; i++) {
		xdr_put32(e, 1);
		xdr_put32(e, cl->reads[i].position);
		encode_segment(e, &cl->reads[i].target);
	}
	xdr_put32(e, 0);
	for (i = 0; i < cl->nwrites; i++) {
		xdr_put32(e, 1);
		encode_write_chunk(e, &cl->writes[i]);
	}
	xdr_put32(e, 0);
	if (cl->has_reply) {
		xdr_put32(e, 1);
		encode_write_chunk(e, &cl->reply);
	} else {
		xdr_put32(e, 0);
	}
}

/*
 * RDMA_ERROR / RDMA2_ERROR, a fixed-size form written in one pass:
 *   xid vers credit 4 - ERR_VERS low high     (7 words)
 *   xid vers credit 4 - code                  (5 words)
 */
static int encode_error(const struct rpcrdma_hdr *hdr, void *buf, uint32_t buflen)
{
	struct xdr_enc e = { .p = buf };
	uint32_t len;

	if (unlikely((hdr->vers != RPCRDMA_VERS_1 && hdr->vers != RPCRDMA_VERS_2) ||
		     !errcode_valid(hdr->vers, hdr->error.code)))
		return -EINVAL;
	len = hdr->error.code == RPCRDMA_ERR_VERS ? 28 : 20;
	if (unlikely(len > buflen))
		return -ENOSPC;
	rpcrdma_wire_swap4(e.p, hdr); /* xid vers credit proc, in wire order */
	e.p += RPCRDMA_HDR_FIXED_LEN;
	xdr_put32(&e, hdr->error.code);
	if (hdr->error.code == RPCRDMA_ERR_VERS) {
		xdr_put32(&e, hdr->error.low);
		xdr_put32(&e, hdr->error.high);
	}
	return (int)len;
}

int rpcrdma_hdr_encode_full(const struct rpcrdma_hdr *hdr, void *buf, uint32_t buflen)
{
	struct xdr_enc e = { .p = buf };
	int len;

	if (hdr->proc == RPCRDMA_ERROR)
		return encode_error(hdr, buf, buflen);

	len = hdr_encoded_len(hdr);
	if (unlikely(len < 0))
		return len;
	if (unlikely((uint32_t)len > buflen))
		return -ENOSPC;

	rpcrdma_wire_swap4(e.p, hdr); /* xid vers credit proc, in wire order */
	e.p += RPCRDMA_HDR_FIXED_LEN;
	switch (hdr->proc) {
	case RPCRDMA_MSG:
	case RPCRDMA_NOMSG:
	case RPCRDMA_MSGP:
		encode_chunk_lists(&e, hdr->vers, hdr->proc, &hdr->chunks);
		break;
	case RPCRDMA_DONE:
		break;
	default: /* RPCRDMA_OPTIONAL; RPCRDMA_ERROR went to encode_error() */
		xdr_put32(&e, hdr->optional.optdir);
		xdr_put32(&e, hdr->optional.opttype);
		xdr_put_opaque(&e, hdr->optional.optinfo, hdr->optional.optinfo_len);
		break;
	}
	return len;
}

/* ---------------------------------------------------------------- names */

const char *rpcrdma_proc_name(uint32_t vers, uint32_t proc)
{
	static const char *const v1[] = { "RDMA_MSG", "RDMA_NOMSG", "RDMA_MSGP", "RDMA_DONE",
					  "RDMA_ERROR" };
	static const char *const v2[] = { "RDMA2_MSG", "RDMA2_NOMSG", NULL,
					  NULL,	       "RDMA2_ERROR", "RDMA2_OPTIONAL" };

	if (vers == RPCRDMA_VERS_1 && proc < 5)
		return v1[proc];
	if (vers == RPCRDMA_VERS_2 && proc < 6 && v2[proc])
		return v2[proc];
	return "UNKNOWN";
}

const char *rpcrdma_errcode_name(uint32_t vers, uint32_t code)
{
	if (vers == RPCRDMA_VERS_1) {
		switch (code) {
		case RPCRDMA_ERR_VERS:
			return "ERR_VERS";
		case RPCRDMA_ERR_CHUNK:
			return "ERR_CHUNK";
		}
	} else if (vers == RPCRDMA_VERS_2) {
		switch (code) {
		case RPCRDMA2_ERR_VERS:
			return "RDMA2_ERR_VERS";
		case RPCRDMA2_ERR_BAD_HEADER:
			return "RDMA2_ERR_BAD_HEADER";
		case RPCRDMA2_ERR_INVAL_OPTION:
			return "RDMA2_ERR_INVAL_OPTION";
		}
	}
	return "UNKNOWN";
}

/* ---------------------------------------------------------------- format */

static void format_segment(struct fmt_buf *f, const struct rpcrdma_segment *s)
{
	fmt_add(f, "0x%x:%u@0x%llx", s->handle, s->length, (unsigned long long)s->offset);
}

static void format_write_chunk(struct fmt_buf *f, const struct rpcrdma_write_chunk *wc)
{
	uint32_t i;

	fmt_add(f, "[");
	for (i = 0; i < wc->nsegs; i++) {
		fmt_add(f, i ? " " : "");
		format_segment(f, &wc->segs[i]);
	}
	fmt_add(f, "]");
}

int rpcrdma_hdr_format(const struct rpcrdma_hdr *hdr, char *buf, size_t size)
{
	struct fmt_buf f = { .buf = buf, .size = size, .len = 0 };
	const struct rpcrdma_chunk_lists *cl = &hdr->chunks;
	uint32_t i;

	if (size)
		buf[0] = '\0';
	fmt_add(&f, "%s xid=0x%08x vers=%u credit=%u", rpcrdma_proc_name(hdr->vers, hdr->proc),
		hdr->xid, hdr->vers, hdr->credit);
	switch (hdr->proc) {
	case RPCRDMA_MSG:
	case RPCRDMA_NOMSG:
	case RPCRDMA_MSGP:
		if (hdr->vers == RPCRDMA_VERS_2)
			fmt_add(&f, " dir=%s", cl->direction == RPCRDMA_CALL ? "CALL" : "REPLY");
		else if (hdr->proc == RPCRDMA_MSGP)
			fmt_add(&f, " align=%u thresh=%u", cl->align, cl->thresh);
		fmt_add(&f, " reads=[");
		for (i = 0; i < cl->nreads; i++) {
			fmt_add(&f, "%spos=%u,", i ? " " : "", cl->reads[i].position);
			format_segment(&f, &cl->reads[i].target);
		}
		fmt_add(&f, "] writes=[");
		for (i = 0; i < cl->nwrites; i++)
			format_write_chunk(&f, &cl->writes[i]);
		fmt_add(&f, "] reply=");
		if (cl->has_reply)
			format_write_chunk(&f, &cl->reply);
		else
			fmt_add(&f, "none");
		break;
	case RPCRDMA_ERROR:
		fmt_add(&f, " %s", rpcrdma_errcode_name(hdr->vers, hdr->error.code));
		if (hdr->error.code == RPCRDMA_ERR_VERS)
			fmt_add(&f, " low=%u high=%u", hdr->error.low, hdr->error.high);
		break;
	case RPCRDMA_OPTIONAL:
		fmt_add(&f, " optdir=%s opttype=%u optinfo_len=%u",
			hdr->optional.optdir == RPCRDMA_CALL ? "CALL" : "REPLY",
			hdr->optional.opttype, hdr->optional.optinfo_len);
		break;
	default:
		break;
	}
	return (int)f.len;
}

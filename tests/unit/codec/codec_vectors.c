/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Byte-exact wire vectors, written by hand from the XDR: one comment per
 * XDR word. A 64-bit rdma_offset is two words, high word first (RFC 4506
 * 4.5). Nothing here comes from our encoder.
 *
 * Sources:
 *   v1:    RFC 5666 section 4.3 (rdma_msg, xdr_read_list, xdr_write_list,
 *          xdr_write_chunk, rpc_rdma_header_padded, rpc_rdma_error)
 *   v2:    version two draft section 4.2 (spec/README.md reconstructs it)
 *   xchar: xcharext-02 sections 2.1 and 4.1 to 4.4
 *   RPC:   RFC 5531 section 9 and appendix A
 */
#include <stddef.h>

#include "codec_vectors.h"

#define TOKENS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* ==================================================== version 1 headers */

/* RDMA_MSG without chunks, followed by the first two words of the RPC call. */
static const uint8_t v1_msg_plain[] = {
	0x0a, 0x0b, 0x0c, 0x0d, /* rdma_xid */
	0x00, 0x00, 0x00, 0x01, /* rdma_vers = 1 */
	0x00, 0x00, 0x00, 0x20, /* rdma_credit = 32 */
	0x00, 0x00, 0x00, 0x00, /* rdma_proc = RDMA_MSG */
	0x00, 0x00, 0x00, 0x00, /* read list: end */
	0x00, 0x00, 0x00, 0x00, /* write list: end */
	0x00, 0x00, 0x00, 0x00, /* reply chunk: absent */
	/* RPC message, not transport header: */
	0x0a, 0x0b, 0x0c, 0x0d, /* RPC xid */
	0x00, 0x00, 0x00, 0x00, /* msg_type = CALL */
};

static const struct rpcrdma_hdr v1_msg_plain_hdr = {
	.xid = 0x0a0b0c0d,
	.vers = 1,
	.credit = 32,
	.proc = RPCRDMA_MSG,
};

/* RDMA_MSG with a read list: two segments at position 132, one at 260. */
static const uint8_t v1_msg_reads[] = {
	0x10, 0x00, 0x00, 0x02, /* rdma_xid */
	0x00, 0x00, 0x00, 0x01, /* rdma_vers = 1 */
	0x00, 0x00, 0x00, 0x10, /* rdma_credit = 16 */
	0x00, 0x00, 0x00, 0x00, /* rdma_proc = RDMA_MSG */
	0x00, 0x00, 0x00, 0x01, /* read list: entry follows */
	0x00, 0x00, 0x00, 0x84, /*   rdma_position = 132 */
	0x00, 0x00, 0x10, 0x01, /*   rdma_handle */
	0x00, 0x00, 0x10, 0x00, /*   rdma_length = 4096 */
	0x00, 0x00, 0x7f, 0x00, /*   rdma_offset (high) */
	0x00, 0x00, 0x10, 0x00, /*   rdma_offset (low) */
	0x00, 0x00, 0x00, 0x01, /* read list: entry follows */
	0x00, 0x00, 0x00, 0x84, /*   rdma_position = 132 */
	0x00, 0x00, 0x10, 0x02, /*   rdma_handle */
	0x00, 0x00, 0x08, 0x00, /*   rdma_length = 2048 */
	0x00, 0x00, 0x7f, 0x00, /*   rdma_offset (high) */
	0x00, 0x00, 0x20, 0x00, /*   rdma_offset (low) */
	0x00, 0x00, 0x00, 0x01, /* read list: entry follows */
	0x00, 0x00, 0x01, 0x04, /*   rdma_position = 260 */
	0x00, 0x00, 0x10, 0x03, /*   rdma_handle */
	0x00, 0x00, 0x02, 0x00, /*   rdma_length = 512 */
	0x80, 0x00, 0x00, 0x00, /*   rdma_offset (high) */
	0x00, 0x00, 0x00, 0x10, /*   rdma_offset (low) */
	0x00, 0x00, 0x00, 0x00, /* read list: end */
	0x00, 0x00, 0x00, 0x00, /* write list: end */
	0x00, 0x00, 0x00, 0x00, /* reply chunk: absent */
};

static struct rpcrdma_read_segment v1_msg_reads_r[] = {
	{ 132, { 0x1001, 4096, 0x00007f0000001000ull } },
	{ 132, { 0x1002, 2048, 0x00007f0000002000ull } },
	{ 260, { 0x1003, 512, 0x8000000000000010ull } },
};

static const struct rpcrdma_hdr v1_msg_reads_hdr = {
	.xid = 0x10000002,
	.vers = 1,
	.credit = 16,
	.proc = RPCRDMA_MSG,
	.chunks = { .nreads = 3, .reads = v1_msg_reads_r },
};

/* RDMA_MSG with one write chunk of one segment. */
static const uint8_t v1_msg_write1[] = {
	0x10, 0x00, 0x00, 0x03, /* rdma_xid */
	0x00, 0x00, 0x00, 0x01, /* rdma_vers = 1 */
	0x00, 0x00, 0x00, 0x20, /* rdma_credit = 32 */
	0x00, 0x00, 0x00, 0x00, /* rdma_proc = RDMA_MSG */
	0x00, 0x00, 0x00, 0x00, /* read list: end */
	0x00, 0x00, 0x00, 0x01, /* write list: chunk follows */
	0x00, 0x00, 0x00, 0x01, /*   segment count = 1 */
	0x00, 0x00, 0x20, 0x01, /*   rdma_handle */
	0x00, 0x00, 0x20, 0x00, /*   rdma_length = 8192 */
	0x00, 0x00, 0x7f, 0x00, /*   rdma_offset (high) */
	0x00, 0x10, 0x00, 0x00, /*   rdma_offset (low) */
	0x00, 0x00, 0x00, 0x00, /* write list: end */
	0x00, 0x00, 0x00, 0x00, /* reply chunk: absent */
};

static struct rpcrdma_segment v1_msg_write1_s[] = {
	{ 0x2001, 8192, 0x00007f0000100000ull },
};

static struct rpcrdma_write_chunk v1_msg_write1_w[] = {
	{ 1, v1_msg_write1_s },
};

static const struct rpcrdma_hdr v1_msg_write1_hdr = {
	.xid = 0x10000003,
	.vers = 1,
	.credit = 32,
	.proc = RPCRDMA_MSG,
	.chunks = { .nwrites = 1, .writes = v1_msg_write1_w },
};

/* RDMA_MSG with three write chunks of 1, 2 and 1 segments. */
static const uint8_t v1_msg_write3[] = {
	0x10, 0x00, 0x00, 0x04, /* rdma_xid */
	0x00, 0x00, 0x00, 0x01, /* rdma_vers = 1 */
	0x00, 0x00, 0x00, 0x20, /* rdma_credit = 32 */
	0x00, 0x00, 0x00, 0x00, /* rdma_proc = RDMA_MSG */
	0x00, 0x00, 0x00, 0x00, /* read list: end */
	0x00, 0x00, 0x00, 0x01, /* write list: chunk follows */
	0x00, 0x00, 0x00, 0x01, /*   segment count = 1 */
	0x00, 0x00, 0x30, 0x01, /*   rdma_handle */
	0x00, 0x00, 0x04, 0x00, /*   rdma_length = 1024 */
	0x00, 0x00, 0x00, 0x00, /*   rdma_offset (high) */
	0x00, 0x00, 0x10, 0x00, /*   rdma_offset (low) */
	0x00, 0x00, 0x00, 0x01, /* write list: chunk follows */
	0x00, 0x00, 0x00, 0x02, /*   segment count = 2 */
	0x00, 0x00, 0x30, 0x02, /*   rdma_handle */
	0x00, 0x00, 0x10, 0x00, /*   rdma_length = 4096 */
	0x00, 0x00, 0x00, 0x00, /*   rdma_offset (high) */
	0x00, 0x00, 0x20, 0x00, /*   rdma_offset (low) */
	0x00, 0x00, 0x30, 0x03, /*   rdma_handle */
	0x00, 0x00, 0x10, 0x00, /*   rdma_length = 4096 */
	0x00, 0x00, 0x00, 0x00, /*   rdma_offset (high) */
	0x00, 0x00, 0x30, 0x00, /*   rdma_offset (low) */
	0x00, 0x00, 0x00, 0x01, /* write list: chunk follows */
	0x00, 0x00, 0x00, 0x01, /*   segment count = 1 */
	0x00, 0x00, 0x30, 0x04, /*   rdma_handle */
	0x00, 0x00, 0x00, 0x64, /*   rdma_length = 100 */
	0xff, 0xff, 0xff, 0xff, /*   rdma_offset (high) */
	0xff, 0xff, 0xff, 0x00, /*   rdma_offset (low) */
	0x00, 0x00, 0x00, 0x00, /* write list: end */
	0x00, 0x00, 0x00, 0x00, /* reply chunk: absent */
};

static struct rpcrdma_segment v1_msg_write3_s[] = {
	{ 0x3001, 1024, 0x1000 },
	{ 0x3002, 4096, 0x2000 },
	{ 0x3003, 4096, 0x3000 },
	{ 0x3004, 100, 0xffffffffffffff00ull },
};

static struct rpcrdma_write_chunk v1_msg_write3_w[] = {
	{ 1, &v1_msg_write3_s[0] },
	{ 2, &v1_msg_write3_s[1] },
	{ 1, &v1_msg_write3_s[3] },
};

static const struct rpcrdma_hdr v1_msg_write3_hdr = {
	.xid = 0x10000004,
	.vers = 1,
	.credit = 32,
	.proc = RPCRDMA_MSG,
	.chunks = { .nwrites = 3, .writes = v1_msg_write3_w },
};

/* RDMA_MSG with a reply chunk of two segments. */
static const uint8_t v1_msg_reply[] = {
	0x10, 0x00, 0x00, 0x05, /* rdma_xid */
	0x00, 0x00, 0x00, 0x01, /* rdma_vers = 1 */
	0x00, 0x00, 0x00, 0x20, /* rdma_credit = 32 */
	0x00, 0x00, 0x00, 0x00, /* rdma_proc = RDMA_MSG */
	0x00, 0x00, 0x00, 0x00, /* read list: end */
	0x00, 0x00, 0x00, 0x00, /* write list: end */
	0x00, 0x00, 0x00, 0x01, /* reply chunk: present */
	0x00, 0x00, 0x00, 0x02, /*   segment count = 2 */
	0x00, 0x00, 0x40, 0x01, /*   rdma_handle */
	0x00, 0x00, 0x10, 0x00, /*   rdma_length = 4096 */
	0x00, 0x00, 0x00, 0x00, /*   rdma_offset (high) */
	0x00, 0x01, 0x00, 0x00, /*   rdma_offset (low) */
	0x00, 0x00, 0x40, 0x02, /*   rdma_handle */
	0x00, 0x00, 0x08, 0x00, /*   rdma_length = 2048 */
	0x00, 0x00, 0x00, 0x00, /*   rdma_offset (high) */
	0x00, 0x01, 0x10, 0x00, /*   rdma_offset (low) */
};

static struct rpcrdma_segment v1_msg_reply_s[] = {
	{ 0x4001, 4096, 0x10000 },
	{ 0x4002, 2048, 0x11000 },
};

static const struct rpcrdma_hdr v1_msg_reply_hdr = {
	.xid = 0x10000005,
	.vers = 1,
	.credit = 32,
	.proc = RPCRDMA_MSG,
	.chunks = { .has_reply = true, .reply = { 2, v1_msg_reply_s } },
};

/* RDMA_MSG with all three lists: one read, one write chunk, a reply chunk. */
static const uint8_t v1_msg_all[] = {
	0x10, 0x00, 0x00, 0x06, /* rdma_xid */
	0x00, 0x00, 0x00, 0x01, /* rdma_vers = 1 */
	0x00, 0x00, 0x00, 0x40, /* rdma_credit = 64 */
	0x00, 0x00, 0x00, 0x00, /* rdma_proc = RDMA_MSG */
	0x00, 0x00, 0x00, 0x01, /* read list: entry follows */
	0x00, 0x00, 0x00, 0x10, /*   rdma_position = 16 */
	0x00, 0x00, 0x50, 0x01, /*   rdma_handle */
	0x00, 0x00, 0x01, 0x00, /*   rdma_length = 256 */
	0x00, 0x00, 0x00, 0x00, /*   rdma_offset (high) */
	0x00, 0x00, 0x50, 0x00, /*   rdma_offset (low) */
	0x00, 0x00, 0x00, 0x00, /* read list: end */
	0x00, 0x00, 0x00, 0x01, /* write list: chunk follows */
	0x00, 0x00, 0x00, 0x01, /*   segment count = 1 */
	0x00, 0x00, 0x50, 0x02, /*   rdma_handle */
	0x00, 0x01, 0x00, 0x00, /*   rdma_length = 65536 */
	0x00, 0x00, 0x00, 0x00, /*   rdma_offset (high) */
	0x00, 0x06, 0x00, 0x00, /*   rdma_offset (low) */
	0x00, 0x00, 0x00, 0x00, /* write list: end */
	0x00, 0x00, 0x00, 0x01, /* reply chunk: present */
	0x00, 0x00, 0x00, 0x01, /*   segment count = 1 */
	0x00, 0x00, 0x50, 0x03, /*   rdma_handle */
	0x00, 0x00, 0x04, 0x00, /*   rdma_length = 1024 */
	0x00, 0x00, 0x00, 0x00, /*   rdma_offset (high) */
	0x00, 0x07, 0x00, 0x00, /*   rdma_offset (low) */
};

static struct rpcrdma_read_segment v1_msg_all_r[] = {
	{ 16, { 0x5001, 256, 0x5000 } },
};

static struct rpcrdma_segment v1_msg_all_s[] = {
	{ 0x5002, 65536, 0x60000 },
	{ 0x5003, 1024, 0x70000 },
};

static struct rpcrdma_write_chunk v1_msg_all_w[] = {
	{ 1, &v1_msg_all_s[0] },
};

static const struct rpcrdma_hdr v1_msg_all_hdr = {
	.xid = 0x10000006,
	.vers = 1,
	.credit = 64,
	.proc = RPCRDMA_MSG,
	.chunks = { .nreads = 1,
		    .nwrites = 1,
		    .has_reply = true,
		    .reads = v1_msg_all_r,
		    .writes = v1_msg_all_w,
		    .reply = { 1, &v1_msg_all_s[1] } },
};

/* RDMA_NOMSG: the call in a position-zero read chunk, a reply chunk. */
static const uint8_t v1_nomsg_pos0[] = {
	0x10, 0x00, 0x00, 0x07, /* rdma_xid */
	0x00, 0x00, 0x00, 0x01, /* rdma_vers = 1 */
	0x00, 0x00, 0x00, 0x20, /* rdma_credit = 32 */
	0x00, 0x00, 0x00, 0x01, /* rdma_proc = RDMA_NOMSG */
	0x00, 0x00, 0x00, 0x01, /* read list: entry follows */
	0x00, 0x00, 0x00, 0x00, /*   rdma_position = 0 */
	0x00, 0x00, 0x60, 0x01, /*   rdma_handle */
	0x00, 0x00, 0x07, 0x08, /*   rdma_length = 1800 */
	0x00, 0x00, 0x00, 0x00, /*   rdma_offset (high) */
	0x00, 0x08, 0x00, 0x00, /*   rdma_offset (low) */
	0x00, 0x00, 0x00, 0x00, /* read list: end */
	0x00, 0x00, 0x00, 0x00, /* write list: end */
	0x00, 0x00, 0x00, 0x01, /* reply chunk: present */
	0x00, 0x00, 0x00, 0x01, /*   segment count = 1 */
	0x00, 0x00, 0x60, 0x02, /*   rdma_handle */
	0x00, 0x00, 0x10, 0x00, /*   rdma_length = 4096 */
	0x00, 0x00, 0x00, 0x00, /*   rdma_offset (high) */
	0x00, 0x09, 0x00, 0x00, /*   rdma_offset (low) */
};

static struct rpcrdma_read_segment v1_nomsg_pos0_r[] = {
	{ 0, { 0x6001, 1800, 0x80000 } },
};

static struct rpcrdma_segment v1_nomsg_pos0_s[] = {
	{ 0x6002, 4096, 0x90000 },
};

static const struct rpcrdma_hdr v1_nomsg_pos0_hdr = {
	.xid = 0x10000007,
	.vers = 1,
	.credit = 32,
	.proc = RPCRDMA_NOMSG,
	.chunks = { .nreads = 1,
		    .has_reply = true,
		    .reads = v1_nomsg_pos0_r,
		    .reply = { 1, v1_nomsg_pos0_s } },
};

/* RDMA_MSGP (rpc_rdma_header_padded): align 64, thresh 1024, empty lists. */
static const uint8_t v1_msgp[] = {
	0x10, 0x00, 0x00, 0x08, /* rdma_xid */
	0x00, 0x00, 0x00, 0x01, /* rdma_vers = 1 */
	0x00, 0x00, 0x00, 0x20, /* rdma_credit = 32 */
	0x00, 0x00, 0x00, 0x02, /* rdma_proc = RDMA_MSGP */
	0x00, 0x00, 0x00, 0x40, /* rdma_align = 64 */
	0x00, 0x00, 0x04, 0x00, /* rdma_thresh = 1024 */
	0x00, 0x00, 0x00, 0x00, /* read list: end */
	0x00, 0x00, 0x00, 0x00, /* write list: end */
	0x00, 0x00, 0x00, 0x00, /* reply chunk: absent */
};

static const struct rpcrdma_hdr v1_msgp_hdr = {
	.xid = 0x10000008,
	.vers = 1,
	.credit = 32,
	.proc = RPCRDMA_MSGP,
	.chunks = { .align = 64, .thresh = 1024 },
};

/* RDMA_DONE: void body. */
static const uint8_t v1_done[] = {
	0x10, 0x00, 0x00, 0x09, /* rdma_xid */
	0x00, 0x00, 0x00, 0x01, /* rdma_vers = 1 */
	0x00, 0x00, 0x00, 0x00, /* rdma_credit = 0 */
	0x00, 0x00, 0x00, 0x03, /* rdma_proc = RDMA_DONE */
};

static const struct rpcrdma_hdr v1_done_hdr = {
	.xid = 0x10000009,
	.vers = 1,
	.credit = 0,
	.proc = RPCRDMA_DONE,
};

/* RDMA_ERROR ERR_VERS, versions 1..1. */
static const uint8_t v1_err_vers[] = {
	0x10, 0x00, 0x00, 0x0a, /* rdma_xid */
	0x00, 0x00, 0x00, 0x01, /* rdma_vers = 1 */
	0x00, 0x00, 0x00, 0x00, /* rdma_credit = 0 */
	0x00, 0x00, 0x00, 0x04, /* rdma_proc = RDMA_ERROR */
	0x00, 0x00, 0x00, 0x01, /* rdma_err = ERR_VERS */
	0x00, 0x00, 0x00, 0x01, /* rdma_vers_low = 1 */
	0x00, 0x00, 0x00, 0x01, /* rdma_vers_high = 1 */
};

static const struct rpcrdma_hdr v1_err_vers_hdr = {
	.xid = 0x1000000a,
	.vers = 1,
	.proc = RPCRDMA_ERROR,
	.error = { RPCRDMA_ERR_VERS, 1, 1 },
};

/* RDMA_ERROR ERR_CHUNK: void. */
static const uint8_t v1_err_chunk[] = {
	0x10, 0x00, 0x00, 0x0b, /* rdma_xid */
	0x00, 0x00, 0x00, 0x01, /* rdma_vers = 1 */
	0x00, 0x00, 0x00, 0x05, /* rdma_credit = 5 */
	0x00, 0x00, 0x00, 0x04, /* rdma_proc = RDMA_ERROR */
	0x00, 0x00, 0x00, 0x02, /* rdma_err = ERR_CHUNK */
};

static const struct rpcrdma_hdr v1_err_chunk_hdr = {
	.xid = 0x1000000b,
	.vers = 1,
	.credit = 5,
	.proc = RPCRDMA_ERROR,
	.error = { RPCRDMA_ERR_CHUNK, 0, 0 },
};

/* ==================================================== version 2 headers */

/* RDMA2_MSG, direction CALL: one read segment, one write chunk of 2. */
static const uint8_t v2_msg_call[] = {
	0x20, 0x00, 0x00, 0x01, /* rdma_xid */
	0x00, 0x00, 0x00, 0x02, /* rdma_vers = 2 */
	0x00, 0x00, 0x00, 0x01, /* rdma_credit = 1 */
	0x00, 0x00, 0x00, 0x00, /* rdma_proc = RDMA2_MSG */
	0x00, 0x00, 0x00, 0x00, /* rdma_direction = CALL */
	0x00, 0x00, 0x00, 0x01, /* read list: entry follows */
	0x00, 0x00, 0x00, 0x18, /*   rdma_position = 24 */
	0x00, 0x00, 0x70, 0x01, /*   rdma_handle */
	0x00, 0x00, 0x20, 0x00, /*   rdma_length = 8192 */
	0x00, 0x00, 0x7f, 0xff, /*   rdma_offset (high) */
	0x00, 0x00, 0x00, 0x00, /*   rdma_offset (low) */
	0x00, 0x00, 0x00, 0x00, /* read list: end */
	0x00, 0x00, 0x00, 0x01, /* write list: chunk follows */
	0x00, 0x00, 0x00, 0x02, /*   segment count = 2 */
	0x00, 0x00, 0x70, 0x02, /*   rdma_handle */
	0x00, 0x00, 0x10, 0x00, /*   rdma_length = 4096 */
	0x00, 0x00, 0x00, 0x01, /*   rdma_offset (high) */
	0x00, 0x00, 0x00, 0x00, /*   rdma_offset (low) */
	0x00, 0x00, 0x70, 0x03, /*   rdma_handle */
	0x00, 0x00, 0x10, 0x00, /*   rdma_length = 4096 */
	0x00, 0x00, 0x00, 0x01, /*   rdma_offset (high) */
	0x00, 0x00, 0x10, 0x00, /*   rdma_offset (low) */
	0x00, 0x00, 0x00, 0x00, /* write list: end */
	0x00, 0x00, 0x00, 0x00, /* reply chunk: absent */
};

static struct rpcrdma_read_segment v2_msg_call_r[] = {
	{ 24, { 0x7001, 8192, 0x00007fff00000000ull } },
};

static struct rpcrdma_segment v2_msg_call_s[] = {
	{ 0x7002, 4096, 0x100000000ull },
	{ 0x7003, 4096, 0x100001000ull },
};

static struct rpcrdma_write_chunk v2_msg_call_w[] = {
	{ 2, v2_msg_call_s },
};

static const struct rpcrdma_hdr v2_msg_call_hdr = {
	.xid = 0x20000001,
	.vers = 2,
	.credit = 1,
	.proc = RPCRDMA_MSG,
	.chunks = { .direction = RPCRDMA_CALL,
		    .nreads = 1,
		    .nwrites = 1,
		    .reads = v2_msg_call_r,
		    .writes = v2_msg_call_w },
};

/* RDMA2_NOMSG, direction REPLY: one write chunk, a reply chunk of 2. */
static const uint8_t v2_nomsg_reply[] = {
	0x20, 0x00, 0x00, 0x02, /* rdma_xid */
	0x00, 0x00, 0x00, 0x02, /* rdma_vers = 2 */
	0x00, 0x00, 0x00, 0x80, /* rdma_credit = 128 */
	0x00, 0x00, 0x00, 0x01, /* rdma_proc = RDMA2_NOMSG */
	0x00, 0x00, 0x00, 0x01, /* rdma_direction = REPLY */
	0x00, 0x00, 0x00, 0x00, /* read list: end */
	0x00, 0x00, 0x00, 0x01, /* write list: chunk follows */
	0x00, 0x00, 0x00, 0x01, /*   segment count = 1 */
	0x00, 0x00, 0x80, 0x01, /*   rdma_handle */
	0x00, 0x00, 0x01, 0x2c, /*   rdma_length = 300 */
	0x00, 0x00, 0x00, 0x00, /*   rdma_offset (high) */
	0x00, 0x00, 0x10, 0x00, /*   rdma_offset (low) */
	0x00, 0x00, 0x00, 0x00, /* write list: end */
	0x00, 0x00, 0x00, 0x01, /* reply chunk: present */
	0x00, 0x00, 0x00, 0x02, /*   segment count = 2 */
	0x00, 0x00, 0x80, 0x02, /*   rdma_handle */
	0x00, 0x00, 0x10, 0x00, /*   rdma_length = 4096 */
	0x00, 0x00, 0x00, 0x00, /*   rdma_offset (high) */
	0x00, 0x00, 0x20, 0x00, /*   rdma_offset (low) */
	0x00, 0x00, 0x80, 0x03, /*   rdma_handle */
	0x00, 0x00, 0x02, 0x00, /*   rdma_length = 512 */
	0x00, 0x00, 0x00, 0x00, /*   rdma_offset (high) */
	0x00, 0x00, 0x30, 0x00, /*   rdma_offset (low) */
};

static struct rpcrdma_segment v2_nomsg_reply_s[] = {
	{ 0x8001, 300, 0x1000 },
	{ 0x8002, 4096, 0x2000 },
	{ 0x8003, 512, 0x3000 },
};

static struct rpcrdma_write_chunk v2_nomsg_reply_w[] = {
	{ 1, &v2_nomsg_reply_s[0] },
};

static const struct rpcrdma_hdr v2_nomsg_reply_hdr = {
	.xid = 0x20000002,
	.vers = 2,
	.credit = 128,
	.proc = RPCRDMA_NOMSG,
	.chunks = { .direction = RPCRDMA_REPLY,
		    .nwrites = 1,
		    .has_reply = true,
		    .writes = v2_nomsg_reply_w,
		    .reply = { 2, &v2_nomsg_reply_s[1] } },
};

/* RDMA2_ERROR RDMA2_ERR_VERS, versions 1..2. */
static const uint8_t v2_err_vers[] = {
	0x20, 0x00, 0x00, 0x03, /* rdma_xid */
	0x00, 0x00, 0x00, 0x02, /* rdma_vers = 2 */
	0x00, 0x00, 0x00, 0x00, /* rdma_credit = 0 */
	0x00, 0x00, 0x00, 0x04, /* rdma_proc = RDMA2_ERROR */
	0x00, 0x00, 0x00, 0x01, /* rdma_err = RDMA2_ERR_VERS */
	0x00, 0x00, 0x00, 0x01, /* rdma_vers_low = 1 */
	0x00, 0x00, 0x00, 0x02, /* rdma_vers_high = 2 */
};

static const struct rpcrdma_hdr v2_err_vers_hdr = {
	.xid = 0x20000003,
	.vers = 2,
	.proc = RPCRDMA_ERROR,
	.error = { RPCRDMA2_ERR_VERS, 1, 2 },
};

/* RDMA2_ERROR RDMA2_ERR_BAD_HEADER: void. */
static const uint8_t v2_err_bad_header[] = {
	0x20, 0x00, 0x00, 0x04, /* rdma_xid */
	0x00, 0x00, 0x00, 0x02, /* rdma_vers = 2 */
	0x00, 0x00, 0x00, 0x03, /* rdma_credit = 3 */
	0x00, 0x00, 0x00, 0x04, /* rdma_proc = RDMA2_ERROR */
	0x00, 0x00, 0x00, 0x02, /* rdma_err = RDMA2_ERR_BAD_HEADER */
};

static const struct rpcrdma_hdr v2_err_bad_header_hdr = {
	.xid = 0x20000004,
	.vers = 2,
	.credit = 3,
	.proc = RPCRDMA_ERROR,
	.error = { RPCRDMA2_ERR_BAD_HEADER, 0, 0 },
};

/* RDMA2_ERROR RDMA2_ERR_INVAL_OPTION: void. */
static const uint8_t v2_err_inval_option[] = {
	0x20, 0x00, 0x00, 0x05, /* rdma_xid */
	0x00, 0x00, 0x00, 0x02, /* rdma_vers = 2 */
	0x00, 0x00, 0x00, 0x03, /* rdma_credit = 3 */
	0x00, 0x00, 0x00, 0x04, /* rdma_proc = RDMA2_ERROR */
	0x00, 0x00, 0x00, 0x03, /* rdma_err = RDMA2_ERR_INVAL_OPTION */
};

static const struct rpcrdma_hdr v2_err_inval_option_hdr = {
	.xid = 0x20000005,
	.vers = 2,
	.credit = 3,
	.proc = RPCRDMA_ERROR,
	.error = { RPCRDMA2_ERR_INVAL_OPTION, 0, 0 },
};

/* ============================== RDMA2_OPTIONAL with transport characteristics */

/*
 * ROPT_INITXCH: the three characteristics, an unknown id with 3 bytes
 * (padded) and an experimental id with 8 bytes; nochg = elements 0 and 2.
 */
static const uint8_t opt_initxch[] = {
	0x30, 0x00, 0x00, 0x01, /* rdma_xid */
	0x00, 0x00, 0x00, 0x02, /* rdma_vers = 2 */
	0x00, 0x00, 0x00, 0x08, /* rdma_credit = 8 */
	0x00, 0x00, 0x00, 0x05, /* rdma_proc = RDMA2_OPTIONAL */
	0x00, 0x00, 0x00, 0x00, /* rdma_optdir = CALL */
	0x00, 0x00, 0x00, 0x01, /* rdma_opttype = ROPT_INITXCH */
	0x00, 0x00, 0x00, 0x4c, /* rdma_optinfo length = 76 */
	0x00, 0x00, 0x00, 0x05, /*   optixch_start: 5 xcharvals */
	0x00, 0x00, 0x00, 0x01, /*     xchv_which = Receive Buffer Size */
	0x00, 0x00, 0x00, 0x04, /*     xchv_data length = 4 */
	0x00, 0x00, 0x20, 0x00, /*     uint32 8192 */
	0x00, 0x00, 0x00, 0x02, /*     xchv_which = Requester Remote Invalidation */
	0x00, 0x00, 0x00, 0x04, /*     xchv_data length = 4 */
	0x00, 0x00, 0x00, 0x01, /*     bool true */
	0x00, 0x00, 0x00, 0x03, /*     xchv_which = Backward Request Support */
	0x00, 0x00, 0x00, 0x04, /*     xchv_data length = 4 */
	0x00, 0x00, 0x00, 0x02, /*     BKREQSUP_GENL */
	0x00, 0x00, 0x00, 0x4d, /*     xchv_which = 77 (unknown) */
	0x00, 0x00, 0x00, 0x03, /*     xchv_data length = 3 */
	0x61, 0x62, 0x63, 0x00, /*     "abc", 1 byte of padding */
	0xff, 0xff, 0xff, 0x00, /*     xchv_which = 4294967040 (experimental) */
	0x00, 0x00, 0x00, 0x08, /*     xchv_data length = 8 */
	0x01, 0x02, 0x03, 0x04, /*     data */
	0x05, 0x06, 0x07, 0x08, /*     data */
	0x00, 0x00, 0x00, 0x01, /*   optixch_nochg: 1 word */
	0x00, 0x00, 0x00, 0x05, /*     elements 0 and 2 */
};

static const uint8_t opt_initxch_unk[] = { 'a', 'b', 'c' };
static const uint8_t opt_initxch_exp[] = { 1, 2, 3, 4, 5, 6, 7, 8 };

static const struct rpcrdma_hdr opt_initxch_hdr = {
	.xid = 0x30000001,
	.vers = 2,
	.credit = 8,
	.proc = RPCRDMA_OPTIONAL,
	.optional = { RPCRDMA_CALL, RPCRDMA_ROPT_INITXCH, 76, NULL },
};

static const struct rpcrdma_xchar_msg opt_initxch_x = {
	.opttype = RPCRDMA_ROPT_INITXCH,
	.initxch = {
		.start = { 5,
			   { { RPCRDMA_XCHAR_RBSIZ, true, 8192, 4, NULL },
			     { RPCRDMA_XCHAR_REQREMINV, true, 1, 4, NULL },
			     { RPCRDMA_XCHAR_BRS, true, RPCRDMA_BKREQSUP_GENL, 4, NULL },
			     { 77, false, 0, 3, opt_initxch_unk },
			     { 4294967040u, false, 0, 8, opt_initxch_exp } } },
		.nochg = { 0x5 },
	},
};

/* ROPT_REQXCH: want a 16384-byte receive buffer and no remote invalidation. */
static const uint8_t opt_reqxch[] = {
	0x30, 0x00, 0x00, 0x02, /* rdma_xid */
	0x00, 0x00, 0x00, 0x02, /* rdma_vers = 2 */
	0x00, 0x00, 0x00, 0x08, /* rdma_credit = 8 */
	0x00, 0x00, 0x00, 0x05, /* rdma_proc = RDMA2_OPTIONAL */
	0x00, 0x00, 0x00, 0x01, /* rdma_optdir = REPLY */
	0x00, 0x00, 0x00, 0x02, /* rdma_opttype = ROPT_REQXCH */
	0x00, 0x00, 0x00, 0x1c, /* rdma_optinfo length = 28 */
	0x00, 0x00, 0x00, 0x02, /*   optreqxch_want: 2 xcharvals */
	0x00, 0x00, 0x00, 0x01, /*     xchv_which = Receive Buffer Size */
	0x00, 0x00, 0x00, 0x04, /*     xchv_data length = 4 */
	0x00, 0x00, 0x40, 0x00, /*     uint32 16384 */
	0x00, 0x00, 0x00, 0x02, /*     xchv_which = Requester Remote Invalidation */
	0x00, 0x00, 0x00, 0x04, /*     xchv_data length = 4 */
	0x00, 0x00, 0x00, 0x00, /*     bool false */
};

static const struct rpcrdma_hdr opt_reqxch_hdr = {
	.xid = 0x30000002,
	.vers = 2,
	.credit = 8,
	.proc = RPCRDMA_OPTIONAL,
	.optional = { RPCRDMA_REPLY, RPCRDMA_ROPT_REQXCH, 28, NULL },
};

static const struct rpcrdma_xchar_msg opt_reqxch_x = {
	.opttype = RPCRDMA_ROPT_REQXCH,
	.reqxch = { .want = { 2,
			      { { RPCRDMA_XCHAR_RBSIZ, true, 16384, 4, NULL },
				{ RPCRDMA_XCHAR_REQREMINV, true, 0, 4, NULL } } } },
};

/* ROPT_RESPXCH: done = element 0, rej = empty, pend = element 1. */
static const uint8_t opt_respxch[] = {
	0x30, 0x00, 0x00, 0x03, /* rdma_xid */
	0x00, 0x00, 0x00, 0x02, /* rdma_vers = 2 */
	0x00, 0x00, 0x00, 0x08, /* rdma_credit = 8 */
	0x00, 0x00, 0x00, 0x05, /* rdma_proc = RDMA2_OPTIONAL */
	0x00, 0x00, 0x00, 0x00, /* rdma_optdir = CALL */
	0x00, 0x00, 0x00, 0x03, /* rdma_opttype = ROPT_RESPXCH */
	0x00, 0x00, 0x00, 0x14, /* rdma_optinfo length = 20 */
	0x00, 0x00, 0x00, 0x01, /*   optrespxch_done: 1 word */
	0x00, 0x00, 0x00, 0x01, /*     element 0 */
	0x00, 0x00, 0x00, 0x00, /*   optrespxch_rej: 0 words */
	0x00, 0x00, 0x00, 0x01, /*   optrespxch_pend: 1 word */
	0x00, 0x00, 0x00, 0x02, /*     element 1 */
};

static const struct rpcrdma_hdr opt_respxch_hdr = {
	.xid = 0x30000003,
	.vers = 2,
	.credit = 8,
	.proc = RPCRDMA_OPTIONAL,
	.optional = { RPCRDMA_CALL, RPCRDMA_ROPT_RESPXCH, 20, NULL },
};

static const struct rpcrdma_xchar_msg opt_respxch_x = {
	.opttype = RPCRDMA_ROPT_RESPXCH,
	.respxch = { .done = { 0x1 }, .rej = { 0 }, .pend = { 0x2 } },
};

/* ROPT_UPDXCH: now = 65536-byte receive buffer, pendclr true. */
static const uint8_t opt_updxch_clr[] = {
	0x30, 0x00, 0x00, 0x04, /* rdma_xid */
	0x00, 0x00, 0x00, 0x02, /* rdma_vers = 2 */
	0x00, 0x00, 0x00, 0x08, /* rdma_credit = 8 */
	0x00, 0x00, 0x00, 0x05, /* rdma_proc = RDMA2_OPTIONAL */
	0x00, 0x00, 0x00, 0x01, /* rdma_optdir = REPLY */
	0x00, 0x00, 0x00, 0x04, /* rdma_opttype = ROPT_UPDXCH */
	0x00, 0x00, 0x00, 0x10, /* rdma_optinfo length = 16 */
	0x00, 0x00, 0x00, 0x01, /*   optupdxch_now.xchv_which = Receive Buffer Size */
	0x00, 0x00, 0x00, 0x04, /*   xchv_data length = 4 */
	0x00, 0x01, 0x00, 0x00, /*   uint32 65536 */
	0x00, 0x00, 0x00, 0x01, /*   optupdxch_pendclr = true */
};

static const struct rpcrdma_hdr opt_updxch_clr_hdr = {
	.xid = 0x30000004,
	.vers = 2,
	.credit = 8,
	.proc = RPCRDMA_OPTIONAL,
	.optional = { RPCRDMA_REPLY, RPCRDMA_ROPT_UPDXCH, 16, NULL },
};

static const struct rpcrdma_xchar_msg opt_updxch_clr_x = {
	.opttype = RPCRDMA_ROPT_UPDXCH,
	.updxch = { .now = { RPCRDMA_XCHAR_RBSIZ, true, 65536, 4, NULL }, .pendclr = true },
};

/* ROPT_UPDXCH: now = Backward Request Support inline, pendclr false. */
static const uint8_t opt_updxch_noclr[] = {
	0x30, 0x00, 0x00, 0x05, /* rdma_xid */
	0x00, 0x00, 0x00, 0x02, /* rdma_vers = 2 */
	0x00, 0x00, 0x00, 0x08, /* rdma_credit = 8 */
	0x00, 0x00, 0x00, 0x05, /* rdma_proc = RDMA2_OPTIONAL */
	0x00, 0x00, 0x00, 0x00, /* rdma_optdir = CALL */
	0x00, 0x00, 0x00, 0x04, /* rdma_opttype = ROPT_UPDXCH */
	0x00, 0x00, 0x00, 0x10, /* rdma_optinfo length = 16 */
	0x00, 0x00, 0x00, 0x03, /*   optupdxch_now.xchv_which = Backward Request Support */
	0x00, 0x00, 0x00, 0x04, /*   xchv_data length = 4 */
	0x00, 0x00, 0x00, 0x01, /*   BKREQSUP_INLINE */
	0x00, 0x00, 0x00, 0x00, /*   optupdxch_pendclr = false */
};

static const struct rpcrdma_hdr opt_updxch_noclr_hdr = {
	.xid = 0x30000005,
	.vers = 2,
	.credit = 8,
	.proc = RPCRDMA_OPTIONAL,
	.optional = { RPCRDMA_CALL, RPCRDMA_ROPT_UPDXCH, 16, NULL },
};

static const struct rpcrdma_xchar_msg opt_updxch_noclr_x = {
	.opttype = RPCRDMA_ROPT_UPDXCH,
	.updxch = { .now = { RPCRDMA_XCHAR_BRS, true, RPCRDMA_BKREQSUP_INLINE, 4, NULL },
		    .pendclr = false },
};

/* An unknown rdma_opttype (9) with 5 bytes of rdma_optinfo. */
static const uint8_t opt_unknown[] = {
	0x30, 0x00, 0x00, 0x06, /* rdma_xid */
	0x00, 0x00, 0x00, 0x02, /* rdma_vers = 2 */
	0x00, 0x00, 0x00, 0x08, /* rdma_credit = 8 */
	0x00, 0x00, 0x00, 0x05, /* rdma_proc = RDMA2_OPTIONAL */
	0x00, 0x00, 0x00, 0x00, /* rdma_optdir = CALL */
	0x00, 0x00, 0x00, 0x09, /* rdma_opttype = 9 */
	0x00, 0x00, 0x00, 0x05, /* rdma_optinfo length = 5 */
	0xde, 0xad, 0xbe, 0xef, /*   optinfo bytes 0..3 */
	0x42, 0x00, 0x00, 0x00, /*   optinfo byte 4, 3 bytes of padding */
};

static const uint8_t opt_unknown_info[] = { 0xde, 0xad, 0xbe, 0xef, 0x42 };

static const struct rpcrdma_hdr opt_unknown_hdr = {
	.xid = 0x30000006,
	.vers = 2,
	.credit = 8,
	.proc = RPCRDMA_OPTIONAL,
	.optional = { RPCRDMA_CALL, 9, 5, opt_unknown_info },
};

/* ===================================================== ONC RPC headers */

/* Call, AUTH_NONE: NFSv3 NULL. */
static const uint8_t rpc_call_none[] = {
	0x01, 0x02, 0x03, 0x04, /* xid */
	0x00, 0x00, 0x00, 0x00, /* msg_type = CALL */
	0x00, 0x00, 0x00, 0x02, /* rpcvers = 2 */
	0x00, 0x01, 0x86, 0xa3, /* prog = 100003 */
	0x00, 0x00, 0x00, 0x03, /* vers = 3 */
	0x00, 0x00, 0x00, 0x00, /* proc = 0 */
	0x00, 0x00, 0x00, 0x00, /* cred.flavor = AUTH_NONE */
	0x00, 0x00, 0x00, 0x00, /* cred.body length = 0 */
	0x00, 0x00, 0x00, 0x00, /* verf.flavor = AUTH_NONE */
	0x00, 0x00, 0x00, 0x00, /* verf.body length = 0 */
};

static const struct rpcrdma_rpc_msg rpc_call_none_msg = {
	.xid = 0x01020304,
	.type = RPCRDMA_RPC_CALL,
	.call = { .rpcvers = 2, .prog = 100003, .vers = 3, .proc = 0 },
};

/*
 * Call, AUTH_SYS: machinename "nfs-c" (5 bytes, so 3 of padding), uid
 * 1000, gid 100, gids 100 10 24. Followed by 4 bytes of arguments.
 */
static const uint8_t rpc_call_sys[] = {
	0x00, 0x00, 0x00, 0x2a, /* xid */
	0x00, 0x00, 0x00, 0x00, /* msg_type = CALL */
	0x00, 0x00, 0x00, 0x02, /* rpcvers = 2 */
	0x00, 0x01, 0x86, 0xa3, /* prog = 100003 */
	0x00, 0x00, 0x00, 0x04, /* vers = 4 */
	0x00, 0x00, 0x00, 0x01, /* proc = 1 */
	0x00, 0x00, 0x00, 0x01, /* cred.flavor = AUTH_SYS */
	0x00, 0x00, 0x00, 0x28, /* cred.body length = 40 */
	0x5f, 0x00, 0x00, 0x01, /*   stamp */
	0x00, 0x00, 0x00, 0x05, /*   machinename length = 5 */
	0x6e, 0x66, 0x73, 0x2d, /*   "nfs-" */
	0x63, 0x00, 0x00, 0x00, /*   "c", 3 bytes of padding */
	0x00, 0x00, 0x03, 0xe8, /*   uid = 1000 */
	0x00, 0x00, 0x00, 0x64, /*   gid = 100 */
	0x00, 0x00, 0x00, 0x03, /*   gids: 3 entries */
	0x00, 0x00, 0x00, 0x64, /*     100 */
	0x00, 0x00, 0x00, 0x0a, /*     10 */
	0x00, 0x00, 0x00, 0x18, /*     24 */
	0x00, 0x00, 0x00, 0x00, /* verf.flavor = AUTH_NONE */
	0x00, 0x00, 0x00, 0x00, /* verf.body length = 0 */
	/* procedure arguments, not RPC header: */
	0x00, 0x00, 0x00, 0x07, /* an argument word */
};

static const struct rpcrdma_rpc_msg rpc_call_sys_msg = {
	.xid = 0x2a,
	.type = RPCRDMA_RPC_CALL,
	.call = { .rpcvers = 2,
		  .prog = 100003,
		  .vers = 4,
		  .proc = 1,
		  .cred = { RPCRDMA_RPC_AUTH_SYS, 40, NULL },
		  .sys = { .stamp = 0x5f000001,
			   .machinename_len = 5,
			   .machinename = "nfs-c",
			   .uid = 1000,
			   .gid = 100,
			   .ngids = 3,
			   .gids = { 100, 10, 24 } } },
};

/* Call, unknown flavor 300 with a 6-byte body kept as opaque; verifier 300 too. */
static const uint8_t rpc_call_unknown[] = {
	0x00, 0x00, 0x00, 0x2b, /* xid */
	0x00, 0x00, 0x00, 0x00, /* msg_type = CALL */
	0x00, 0x00, 0x00, 0x02, /* rpcvers = 2 */
	0x20, 0x00, 0x00, 0x00, /* prog = 0x20000000 */
	0x00, 0x00, 0x00, 0x01, /* vers = 1 */
	0x00, 0x00, 0x00, 0x07, /* proc = 7 */
	0x00, 0x00, 0x01, 0x2c, /* cred.flavor = 300 */
	0x00, 0x00, 0x00, 0x06, /* cred.body length = 6 */
	0x11, 0x22, 0x33, 0x44, /*   body bytes 0..3 */
	0x55, 0x66, 0x00, 0x00, /*   body bytes 4..5, 2 bytes of padding */
	0x00, 0x00, 0x01, 0x2c, /* verf.flavor = 300 */
	0x00, 0x00, 0x00, 0x04, /* verf.body length = 4 */
	0xca, 0xfe, 0xf0, 0x0d, /*   body */
};

static const uint8_t rpc_call_unknown_cred[] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66 };
static const uint8_t rpc_call_unknown_verf[] = { 0xca, 0xfe, 0xf0, 0x0d };

static const struct rpcrdma_rpc_msg rpc_call_unknown_msg = {
	.xid = 0x2b,
	.type = RPCRDMA_RPC_CALL,
	.call = { .rpcvers = 2,
		  .prog = 0x20000000,
		  .vers = 1,
		  .proc = 7,
		  .cred = { 300, 6, rpc_call_unknown_cred },
		  .verf = { 300, 4, rpc_call_unknown_verf } },
};

/* Reply, MSG_ACCEPTED SUCCESS, followed by a 4-byte result. */
static const uint8_t rpc_rep_success[] = {
	0x01, 0x02, 0x03, 0x04, /* xid */
	0x00, 0x00, 0x00, 0x01, /* msg_type = REPLY */
	0x00, 0x00, 0x00, 0x00, /* reply_stat = MSG_ACCEPTED */
	0x00, 0x00, 0x00, 0x00, /* verf.flavor = AUTH_NONE */
	0x00, 0x00, 0x00, 0x00, /* verf.body length = 0 */
	0x00, 0x00, 0x00, 0x00, /* accept_stat = SUCCESS */
	/* procedure results, not RPC header: */
	0x00, 0x00, 0x00, 0x00, /* NFS3_OK */
};

static const struct rpcrdma_rpc_msg rpc_rep_success_msg = {
	.xid = 0x01020304,
	.type = RPCRDMA_RPC_REPLY,
	.reply = { .stat = RPCRDMA_RPC_MSG_ACCEPTED, .accept_stat = RPCRDMA_RPC_SUCCESS },
};

/* Reply, MSG_ACCEPTED PROG_UNAVAIL. */
static const uint8_t rpc_rep_prog_unavail[] = {
	0x00, 0x00, 0x00, 0x31, /* xid */
	0x00, 0x00, 0x00, 0x01, /* msg_type = REPLY */
	0x00, 0x00, 0x00, 0x00, /* reply_stat = MSG_ACCEPTED */
	0x00, 0x00, 0x00, 0x00, /* verf.flavor = AUTH_NONE */
	0x00, 0x00, 0x00, 0x00, /* verf.body length = 0 */
	0x00, 0x00, 0x00, 0x01, /* accept_stat = PROG_UNAVAIL */
};

static const struct rpcrdma_rpc_msg rpc_rep_prog_unavail_msg = {
	.xid = 0x31,
	.type = RPCRDMA_RPC_REPLY,
	.reply = { .stat = RPCRDMA_RPC_MSG_ACCEPTED, .accept_stat = RPCRDMA_RPC_PROG_UNAVAIL },
};

/* Reply, MSG_ACCEPTED PROG_MISMATCH, versions 2..4; verifier AUTH_SYS-shaped 8 bytes. */
static const uint8_t rpc_rep_prog_mismatch[] = {
	0x00, 0x00, 0x00, 0x32, /* xid */
	0x00, 0x00, 0x00, 0x01, /* msg_type = REPLY */
	0x00, 0x00, 0x00, 0x00, /* reply_stat = MSG_ACCEPTED */
	0x00, 0x00, 0x00, 0x02, /* verf.flavor = AUTH_SHORT */
	0x00, 0x00, 0x00, 0x08, /* verf.body length = 8 */
	0x0b, 0xad, 0xc0, 0xde, /*   body bytes 0..3 */
	0x00, 0x00, 0x00, 0x01, /*   body bytes 4..7 */
	0x00, 0x00, 0x00, 0x02, /* accept_stat = PROG_MISMATCH */
	0x00, 0x00, 0x00, 0x02, /* mismatch_info.low = 2 */
	0x00, 0x00, 0x00, 0x04, /* mismatch_info.high = 4 */
};

static const uint8_t rpc_rep_prog_mismatch_verf[] = { 0x0b, 0xad, 0xc0, 0xde, 0, 0, 0, 1 };

static const struct rpcrdma_rpc_msg rpc_rep_prog_mismatch_msg = {
	.xid = 0x32,
	.type = RPCRDMA_RPC_REPLY,
	.reply = { .stat = RPCRDMA_RPC_MSG_ACCEPTED,
		   .verf = { RPCRDMA_RPC_AUTH_SHORT, 8, rpc_rep_prog_mismatch_verf },
		   .accept_stat = RPCRDMA_RPC_PROG_MISMATCH,
		   .low = 2,
		   .high = 4 },
};

/* Reply, MSG_ACCEPTED PROC_UNAVAIL. */
static const uint8_t rpc_rep_proc_unavail[] = {
	0x00, 0x00, 0x00, 0x33, /* xid */
	0x00, 0x00, 0x00, 0x01, /* msg_type = REPLY */
	0x00, 0x00, 0x00, 0x00, /* reply_stat = MSG_ACCEPTED */
	0x00, 0x00, 0x00, 0x00, /* verf.flavor = AUTH_NONE */
	0x00, 0x00, 0x00, 0x00, /* verf.body length = 0 */
	0x00, 0x00, 0x00, 0x03, /* accept_stat = PROC_UNAVAIL */
};

static const struct rpcrdma_rpc_msg rpc_rep_proc_unavail_msg = {
	.xid = 0x33,
	.type = RPCRDMA_RPC_REPLY,
	.reply = { .stat = RPCRDMA_RPC_MSG_ACCEPTED, .accept_stat = RPCRDMA_RPC_PROC_UNAVAIL },
};

/* Reply, MSG_ACCEPTED GARBAGE_ARGS. */
static const uint8_t rpc_rep_garbage_args[] = {
	0x00, 0x00, 0x00, 0x34, /* xid */
	0x00, 0x00, 0x00, 0x01, /* msg_type = REPLY */
	0x00, 0x00, 0x00, 0x00, /* reply_stat = MSG_ACCEPTED */
	0x00, 0x00, 0x00, 0x00, /* verf.flavor = AUTH_NONE */
	0x00, 0x00, 0x00, 0x00, /* verf.body length = 0 */
	0x00, 0x00, 0x00, 0x04, /* accept_stat = GARBAGE_ARGS */
};

static const struct rpcrdma_rpc_msg rpc_rep_garbage_args_msg = {
	.xid = 0x34,
	.type = RPCRDMA_RPC_REPLY,
	.reply = { .stat = RPCRDMA_RPC_MSG_ACCEPTED, .accept_stat = RPCRDMA_RPC_GARBAGE_ARGS },
};

/* Reply, MSG_ACCEPTED SYSTEM_ERR. */
static const uint8_t rpc_rep_system_err[] = {
	0x00, 0x00, 0x00, 0x35, /* xid */
	0x00, 0x00, 0x00, 0x01, /* msg_type = REPLY */
	0x00, 0x00, 0x00, 0x00, /* reply_stat = MSG_ACCEPTED */
	0x00, 0x00, 0x00, 0x00, /* verf.flavor = AUTH_NONE */
	0x00, 0x00, 0x00, 0x00, /* verf.body length = 0 */
	0x00, 0x00, 0x00, 0x05, /* accept_stat = SYSTEM_ERR */
};

static const struct rpcrdma_rpc_msg rpc_rep_system_err_msg = {
	.xid = 0x35,
	.type = RPCRDMA_RPC_REPLY,
	.reply = { .stat = RPCRDMA_RPC_MSG_ACCEPTED, .accept_stat = RPCRDMA_RPC_SYSTEM_ERR },
};

/* Reply, MSG_DENIED RPC_MISMATCH, versions 2..2. */
static const uint8_t rpc_rep_rpc_mismatch[] = {
	0x00, 0x00, 0x00, 0x36, /* xid */
	0x00, 0x00, 0x00, 0x01, /* msg_type = REPLY */
	0x00, 0x00, 0x00, 0x01, /* reply_stat = MSG_DENIED */
	0x00, 0x00, 0x00, 0x00, /* reject_stat = RPC_MISMATCH */
	0x00, 0x00, 0x00, 0x02, /* mismatch_info.low = 2 */
	0x00, 0x00, 0x00, 0x02, /* mismatch_info.high = 2 */
};

static const struct rpcrdma_rpc_msg rpc_rep_rpc_mismatch_msg = {
	.xid = 0x36,
	.type = RPCRDMA_RPC_REPLY,
	.reply = { .stat = RPCRDMA_RPC_MSG_DENIED,
		   .reject_stat = RPCRDMA_RPC_RPC_MISMATCH,
		   .low = 2,
		   .high = 2 },
};

/* Reply, MSG_DENIED AUTH_ERROR AUTH_BADCRED. */
static const uint8_t rpc_rep_auth_error[] = {
	0x00, 0x00, 0x00, 0x37, /* xid */
	0x00, 0x00, 0x00, 0x01, /* msg_type = REPLY */
	0x00, 0x00, 0x00, 0x01, /* reply_stat = MSG_DENIED */
	0x00, 0x00, 0x00, 0x01, /* reject_stat = AUTH_ERROR */
	0x00, 0x00, 0x00, 0x01, /* auth_stat = AUTH_BADCRED */
};

static const struct rpcrdma_rpc_msg rpc_rep_auth_error_msg = {
	.xid = 0x37,
	.type = RPCRDMA_RPC_REPLY,
	.reply = { .stat = RPCRDMA_RPC_MSG_DENIED,
		   .reject_stat = RPCRDMA_RPC_AUTH_ERROR,
		   .auth_stat = RPCRDMA_RPC_AUTH_BADCRED },
};

/* ============================================================= the table */

#define HDR(n, hl, ...)                                                                     \
	{                                                                                   \
		.name = #n, .kind = CODEC_HDR, .bytes = n, .len = sizeof(n), .hdr_len = hl, \
		.hdr = &n##_hdr, .tokens = TOKENS(__VA_ARGS__)                              \
	}
#define OPT(n, x, xret, xtok, ...)                                                                 \
	{                                                                                          \
		.name = #n, .kind = CODEC_OPT, .bytes = n, .len = sizeof(n), .hdr_len = sizeof(n), \
		.hdr = &n##_hdr, .xchar = x, .xchar_ret = xret, .tokens = TOKENS(__VA_ARGS__),     \
		.xtokens = xtok                                                                    \
	}
#define RPC(n, hl, ...)                                                                     \
	{                                                                                   \
		.name = #n, .kind = CODEC_RPC, .bytes = n, .len = sizeof(n), .hdr_len = hl, \
		.rpc = &n##_msg, .tokens = TOKENS(__VA_ARGS__)                              \
	}

const struct codec_vector codec_vectors[] = {
	HDR(v1_msg_plain, 28, "RDMA_MSG", "xid=0x0a0b0c0d", "vers=1", "credit=32", "reads=[]",
	    "writes=[]", "reply=none"),
	HDR(v1_msg_reads, 100, "RDMA_MSG", "xid=0x10000002", "credit=16",
	    "reads=[pos=132,0x1001:4096@0x7f0000001000 pos=132,0x1002:2048@0x7f0000002000 "
	    "pos=260,0x1003:512@0x8000000000000010]",
	    "writes=[]", "reply=none"),
	HDR(v1_msg_write1, 52, "RDMA_MSG", "xid=0x10000003", "reads=[]",
	    "writes=[[0x2001:8192@0x7f0000100000]]", "reply=none"),
	HDR(v1_msg_write3, 116, "RDMA_MSG", "xid=0x10000004",
	    "writes=[[0x3001:1024@0x1000][0x3002:4096@0x2000 0x3003:4096@0x3000]"
	    "[0x3004:100@0xffffffffffffff00]]",
	    "reply=none"),
	HDR(v1_msg_reply, 64, "RDMA_MSG", "xid=0x10000005", "reads=[]", "writes=[]",
	    "reply=[0x4001:4096@0x10000 0x4002:2048@0x11000]"),
	HDR(v1_msg_all, 96, "RDMA_MSG", "xid=0x10000006", "credit=64",
	    "reads=[pos=16,0x5001:256@0x5000]", "writes=[[0x5002:65536@0x60000]]",
	    "reply=[0x5003:1024@0x70000]"),
	HDR(v1_nomsg_pos0, 72, "RDMA_NOMSG", "xid=0x10000007", "reads=[pos=0,0x6001:1800@0x80000]",
	    "writes=[]", "reply=[0x6002:4096@0x90000]"),
	HDR(v1_msgp, 36, "RDMA_MSGP", "xid=0x10000008", "align=64", "thresh=1024", "reads=[]",
	    "reply=none"),
	HDR(v1_done, 16, "RDMA_DONE", "xid=0x10000009", "vers=1", "credit=0"),
	HDR(v1_err_vers, 28, "RDMA_ERROR", "xid=0x1000000a", "ERR_VERS", "low=1", "high=1"),
	HDR(v1_err_chunk, 20, "RDMA_ERROR", "xid=0x1000000b", "credit=5", "ERR_CHUNK"),
	HDR(v2_msg_call, 96, "RDMA2_MSG", "xid=0x20000001", "vers=2", "credit=1", "dir=CALL",
	    "reads=[pos=24,0x7001:8192@0x7fff00000000]",
	    "writes=[[0x7002:4096@0x100000000 0x7003:4096@0x100001000]]", "reply=none"),
	HDR(v2_nomsg_reply, 92, "RDMA2_NOMSG", "xid=0x20000002", "vers=2", "credit=128",
	    "dir=REPLY", "reads=[]", "writes=[[0x8001:300@0x1000]]",
	    "reply=[0x8002:4096@0x2000 0x8003:512@0x3000]"),
	HDR(v2_err_vers, 28, "RDMA2_ERROR", "xid=0x20000003", "RDMA2_ERR_VERS", "low=1", "high=2"),
	HDR(v2_err_bad_header, 20, "RDMA2_ERROR", "xid=0x20000004", "RDMA2_ERR_BAD_HEADER"),
	HDR(v2_err_inval_option, 20, "RDMA2_ERROR", "xid=0x20000005", "RDMA2_ERR_INVAL_OPTION"),
	OPT(opt_initxch, &opt_initxch_x, 0,
	    TOKENS("ROPT_INITXCH",
		   "start={RBSIZ=8192 REQREMINV=true BRS=BKREQSUP_GENL 77(3 bytes) "
		   "4294967040(8 bytes)}",
		   "nochg=0x5"),
	    "RDMA2_OPTIONAL", "xid=0x30000001", "optdir=CALL", "opttype=1", "optinfo_len=76"),
	OPT(opt_reqxch, &opt_reqxch_x, 0,
	    TOKENS("ROPT_REQXCH", "want={RBSIZ=16384 REQREMINV=false}"), "RDMA2_OPTIONAL",
	    "optdir=REPLY", "opttype=2", "optinfo_len=28"),
	OPT(opt_respxch, &opt_respxch_x, 0, TOKENS("ROPT_RESPXCH", "done=0x1 rej=0x0 pend=0x2"),
	    "RDMA2_OPTIONAL", "optdir=CALL", "opttype=3", "optinfo_len=20"),
	OPT(opt_updxch_clr, &opt_updxch_clr_x, 0,
	    TOKENS("ROPT_UPDXCH", "now=RBSIZ=65536", "pendclr=true"), "RDMA2_OPTIONAL",
	    "optdir=REPLY", "opttype=4", "optinfo_len=16"),
	OPT(opt_updxch_noclr, &opt_updxch_noclr_x, 0,
	    TOKENS("ROPT_UPDXCH", "now=BRS=BKREQSUP_INLINE", "pendclr=false"), "RDMA2_OPTIONAL",
	    "optdir=CALL", "opttype=4", "optinfo_len=16"),
	OPT(opt_unknown, NULL, -RPCRDMA_E_OPTTYPE, NULL, "RDMA2_OPTIONAL", "xid=0x30000006",
	    "opttype=9", "optinfo_len=5"),
	RPC(rpc_call_none, 40, "RPC", "xid=0x01020304", "CALL", "prog=100003", "vers=3", "proc=0",
	    "cred=AUTH_NONE"),
	RPC(rpc_call_sys, 80, "RPC", "xid=0x0000002a", "CALL", "prog=100003", "vers=4", "proc=1",
	    "cred=AUTH_SYS(uid=1000 gid=100 ngids=3 machine=nfs-c)"),
	RPC(rpc_call_unknown, 52, "xid=0x0000002b", "CALL", "prog=536870912", "proc=7",
	    "cred=UNKNOWN"),
	RPC(rpc_rep_success, 24, "xid=0x01020304", "REPLY", "MSG_ACCEPTED", "SUCCESS"),
	RPC(rpc_rep_prog_unavail, 24, "REPLY", "MSG_ACCEPTED", "PROG_UNAVAIL"),
	RPC(rpc_rep_prog_mismatch, 40, "REPLY", "MSG_ACCEPTED", "PROG_MISMATCH", "low=2", "high=4"),
	RPC(rpc_rep_proc_unavail, 24, "REPLY", "MSG_ACCEPTED", "PROC_UNAVAIL"),
	RPC(rpc_rep_garbage_args, 24, "REPLY", "MSG_ACCEPTED", "GARBAGE_ARGS"),
	RPC(rpc_rep_system_err, 24, "REPLY", "MSG_ACCEPTED", "SYSTEM_ERR"),
	RPC(rpc_rep_rpc_mismatch, 24, "REPLY", "MSG_DENIED", "RPC_MISMATCH", "low=2", "high=2"),
	RPC(rpc_rep_auth_error, 20, "REPLY", "MSG_DENIED", "AUTH_ERROR", "auth_stat=1"),
};

const unsigned int codec_nvectors = sizeof(codec_vectors) / sizeof(codec_vectors[0]);

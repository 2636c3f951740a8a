/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Malformed input: one or more hand-written vectors for every error number
 * the decoders can return (rpcrdma_errno.h), each asserting the exact
 * error; every truncation of every good vector; decode capacities from
 * exactly-sized heap storage; the error names.
 *
 * Every decode reads from a heap buffer of exactly the message's length,
 * and the test is built with AddressSanitizer, so a read past the end
 * fails it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_cmp.h"
#include "codec_test.h"
#include "codec_vectors.h"

/* One XDR word, big-endian. */
#define W(x)                                                            \
	(uint8_t)((uint32_t)(x) >> 24), (uint8_t)((uint32_t)(x) >> 16), \
		(uint8_t)((uint32_t)(x) >> 8), (uint8_t)(x)

/* The fixed part of a transport header: xid vers credit proc. */
#define FIXED(vers, proc) W(0x77), W(vers), W(9), W(proc)

/* A segment: handle length offset(high) offset(low). */
#define SEG W(0x1234), W(4096), W(0), W(0x10000)

/* ------------------------------------------------------ transport header */

static const uint8_t hdr_trunc_15[] = { W(0x77), W(1), W(9), 0, 0, 0 };
static const uint8_t hdr_trunc_lists[] = { FIXED(1, 0) };
static const uint8_t hdr_trunc_v2_dir[] = { FIXED(2, 1) };
static const uint8_t hdr_trunc_read[] = { FIXED(1, 0), W(1), W(0), W(0x1234), W(4096), W(0) };
static const uint8_t hdr_trunc_msgp[] = { FIXED(1, 2), W(64) };
static const uint8_t hdr_trunc_err[] = { FIXED(1, 4) };
static const uint8_t hdr_trunc_err_vers[] = { FIXED(2, 4), W(1), W(1) };
static const uint8_t hdr_trunc_opt[] = { FIXED(2, 5), W(0) };
static const uint8_t hdr_vers0[] = { FIXED(0, 0), W(0), W(0), W(0) };
static const uint8_t hdr_vers3[] = { FIXED(3, 0), W(0), W(0), W(0) };
static const uint8_t hdr_vers_big[] = { FIXED(0x01000000, 0) };
static const uint8_t hdr_v1_proc5[] = { FIXED(1, 5), W(0), W(0), W(0) };
static const uint8_t hdr_v1_proc_max[] = { FIXED(1, 0xffffffff) };
static const uint8_t hdr_v2_proc2[] = { FIXED(2, 2), W(0), W(0), W(0) };
static const uint8_t hdr_v2_proc3[] = { FIXED(2, 3) };
static const uint8_t hdr_v2_proc6[] = { FIXED(2, 6) };

/* Two read segments; decoded with max_reads 1. */
static const uint8_t hdr_reads_2[] = {
	FIXED(1, 0), W(1), W(0), SEG, W(1), W(8), SEG, W(0), W(0), W(0),
};

/* Two write chunks of no segment; decoded with max_writes 1. */
static const uint8_t hdr_writes_2[] = { FIXED(1, 0), W(0), W(1), W(0), W(1), W(0), W(0), W(0) };

/* Nine write chunks of no segment: one more than the default capacity. */
static const uint8_t hdr_writes_9[] = {
	FIXED(1, 0), W(0), /* no read */
	W(1),	     W(0), /* chunk 1: no segment */
	W(1),	     W(0), /* chunk 2 */
	W(1),	     W(0), /* chunk 3 */
	W(1),	     W(0), /* chunk 4 */
	W(1),	     W(0), /* chunk 5 */
	W(1),	     W(0), /* chunk 6 */
	W(1),	     W(0), /* chunk 7 */
	W(1),	     W(0), /* chunk 8 */
	W(1),	     W(0), /* chunk 9 */
	W(0),	     W(0), /* end of write list, no reply chunk */
};

/* A write chunk claiming 2^32 - 1 segments. */
static const uint8_t hdr_segs_huge[] = { FIXED(1, 0), W(0), W(1), W(0xffffffff), SEG };

/* A reply chunk claiming 17 segments: one more than the default capacity. */
static const uint8_t hdr_segs_reply_17[] = { FIXED(2, 1), W(1), W(0), W(0), W(1), W(17), SEG };

/* A write chunk of two segments; decoded with max_chunk_segs 1. */
static const uint8_t hdr_segs_2[] = { FIXED(1, 0), W(0), W(1), W(2), SEG, SEG, W(0), W(0) };

/* A reply chunk of two segments; decoded with max_chunk_segs 1. */
static const uint8_t hdr_segs_reply_2[] = { FIXED(1, 1), W(0), W(0), W(1), W(2), SEG, SEG };

static const uint8_t hdr_position_2[] = { FIXED(1, 0), W(1), W(2), SEG, W(0), W(0), W(0) };
static const uint8_t hdr_position_odd[] = {
	FIXED(2, 0), W(0), W(1), W(8), SEG, W(1), W(0x80000001), SEG, W(0), W(0), W(0),
};

static const uint8_t hdr_bool_read[] = { FIXED(1, 0), W(2), W(0), SEG, W(0), W(0), W(0) };
static const uint8_t hdr_bool_read_next[] = { FIXED(1, 0), W(1), W(0), SEG, W(3) };
static const uint8_t hdr_bool_write[] = { FIXED(1, 0), W(0), W(2), W(0), W(0), W(0) };
static const uint8_t hdr_bool_reply[] = { FIXED(1, 1), W(0), W(0), W(0xffffffff), W(0) };

static const uint8_t hdr_v2_dir2[] = { FIXED(2, 0), W(2), W(0), W(0), W(0) };
static const uint8_t hdr_v1_err0[] = { FIXED(1, 4), W(0) };
static const uint8_t hdr_v1_err3[] = { FIXED(1, 4), W(3) };
static const uint8_t hdr_v2_err0[] = { FIXED(2, 4), W(0) };
static const uint8_t hdr_v2_err4[] = { FIXED(2, 4), W(4) };
static const uint8_t hdr_optdir2[] = { FIXED(2, 5), W(2), W(1), W(0) };

static const uint8_t hdr_optinfo_short[] = { FIXED(2, 5), W(0), W(1), W(8), W(0) };
static const uint8_t hdr_optinfo_pad[] = { FIXED(2, 5), W(0), W(1), W(5), W(0) };
static const uint8_t hdr_optinfo_huge[] = { FIXED(2, 5), W(1), W(1), W(0xffffffff) };
static const uint8_t hdr_optinfo_wrap[] = { FIXED(2, 5), W(1), W(1), W(0xfffffffd), W(0) };

/* ------------------------------------------------------ ONC RPC header */

/* xid CALL rpcvers prog vers proc */
#define CALL(rpcvers) W(0x55), W(0), W(rpcvers), W(100003), W(3), W(1)
/* xid REPLY */
#define REPLY W(0x56), W(1)

static const uint8_t rpc_trunc_7[] = { W(0x55), 0, 0, 0 };
static const uint8_t rpc_trunc_call[] = { CALL(2), W(0), W(0) };
static const uint8_t rpc_trunc_reply[] = { REPLY, W(0), W(0), W(0) };
static const uint8_t rpc_trunc_mismatch[] = { REPLY, W(1), W(0), W(2) };
static const uint8_t rpc_type2[] = { W(0x55), W(2), W(0), W(0) };
static const uint8_t rpc_reply_stat2[] = { REPLY, W(2), W(0) };
static const uint8_t rpc_accept6[] = { REPLY, W(0), W(0), W(0), W(6) };
static const uint8_t rpc_reject2[] = { REPLY, W(1), W(2), W(0) };
static const uint8_t rpc_rpcvers3[] = { CALL(3), W(0), W(0), W(0), W(0) };
static const uint8_t rpc_rpcvers0[] = { CALL(0) };
static const uint8_t rpc_cred_401[] = { CALL(2), W(6), W(401), W(0) };
static const uint8_t rpc_cred_huge[] = { CALL(2), W(6), W(0xfffffffd), W(0) };
static const uint8_t rpc_verf_401[] = { CALL(2), W(0), W(0), W(6), W(401), W(0) };
static const uint8_t rpc_reply_verf_401[] = { REPLY, W(0), W(6), W(401), W(0) };
static const uint8_t rpc_cred_past_end[] = { CALL(2), W(6), W(16), W(0), W(0) };
static const uint8_t rpc_verf_past_end[] = { CALL(2), W(0), W(0), W(6), W(5), W(0) };

/* AUTH_SYS: machinename of 256 bytes. */
static const uint8_t rpc_machname_256[] = {
	CALL(2), W(1), W(20), W(0), W(256), W(0), W(0), W(0), W(0), W(0),
};

/* AUTH_SYS: machinename runs past the credential body (not the message). */
static const uint8_t rpc_machname_past_body[] = {
	CALL(2), W(1), W(12), W(0), W(8), W(0x41414141), W(0), W(0), W(0), W(0),
};

/* AUTH_SYS: 17 gids. */
static const uint8_t rpc_gids_17[] = {
	CALL(2), W(1),	W(88),		     /* cred AUTH_SYS, 88 bytes */
	W(0),	 W(0),	W(0),  W(0),	     /* stamp, empty machinename, uid, gid */
	W(17),				     /* gids: 17 entries */
	W(1),	 W(2),	W(3),  W(4),  W(5),  /* gids 1-5 */
	W(6),	 W(7),	W(8),  W(9),  W(10), /* gids 6-10 */
	W(11),	 W(12), W(13), W(14), W(15), /* gids 11-15 */
	W(16),	 W(17),			     /* gids 16-17 */
	W(0),	 W(0),			     /* verf AUTH_NONE */
};

/* AUTH_SYS: body 4 bytes longer than stamp, name, uid, gid, gids. */
static const uint8_t rpc_auth_len[] = {
	CALL(2), W(1), W(24), W(0), W(0), W(0), W(0), W(0), W(0), W(0), W(0),
};

/* AUTH_SYS: the body ends before uid. */
static const uint8_t rpc_authsys_trunc[] = { CALL(2), W(1), W(8), W(0), W(0), W(0), W(0) };

/* AUTH_SYS: 3 gids announced, 1 present in the body. */
static const uint8_t rpc_authsys_gids_trunc[] = {
	CALL(2), W(1), W(24), W(0), W(0), W(0), W(0), W(3), W(1), W(0), W(0),
};

/* --------------------------------- transport characteristics (rdma_optinfo) */

static const uint8_t x_trunc_byte[] = { 0 };
static const uint8_t x_trunc_subset[] = { W(0), W(1) };
static const uint8_t x_trunc_subset_huge[] = { W(0x40000000), W(0) };
static const uint8_t x_trunc_pendclr[] = { W(1), W(4), W(4096) };
static const uint8_t x_rbsiz_len8[] = { W(1), W(1), W(8), W(0), W(4096) };
static const uint8_t x_brs_len0[] = { W(3), W(0), W(0) };
static const uint8_t x_reqreminv_2[] = { W(1), W(2), W(4), W(2) };
static const uint8_t x_brs_3[] = { W(1), W(3), W(4), W(3) };
static const uint8_t x_pendclr_2[] = { W(1), W(4), W(4096), W(2) };
static const uint8_t x_data_huge[] = { W(1), W(99), W(0xffffffff), W(0) };
static const uint8_t x_data_past_end[] = { W(1), W(99), W(8), W(0) };
static const uint8_t x_too_many[] = { W(33), W(1), W(4), W(4096) };
static const uint8_t x_subset_word2[] = { W(2), W(1), W(1), W(0), W(0) };
static const uint8_t x_trailing_resp[] = { W(0), W(0), W(0), W(0) };
static const uint8_t x_trailing_init[] = { W(0), W(0), 0xff };
static const uint8_t x_opttype[] = { W(0), W(0), W(0) };

/* ------------------------------------------------------------- the table */

enum bad_kind {
	BAD_HDR,
	BAD_RPC,
	BAD_XCHAR,
};

struct bad_vector {
	const char *name;
	enum bad_kind kind;
	const uint8_t *bytes;
	uint32_t len;
	int err;	  /**< the exact (negative) error expected */
	uint32_t opttype; /**< BAD_XCHAR */
	bool small_cap;	  /**< BAD_HDR: decode with the capacity below, not the default */
	uint16_t max_reads, max_writes, max_chunk_segs;
};

#define BAD(kind_, n, e)                                                                       \
	{                                                                                      \
		.name = #n, .kind = kind_, .bytes = n, .len = sizeof(n), .err = -RPCRDMA_E_##e \
	}
#define BAD_CAP(n, e, r, w, s)                                                                    \
	{                                                                                         \
		.name = #n, .kind = BAD_HDR, .bytes = n, .len = sizeof(n), .err = -RPCRDMA_E_##e, \
		.small_cap = true, .max_reads = r, .max_writes = w, .max_chunk_segs = s           \
	}
#define BAD_X(n, ot, e)                                                      \
	{                                                                    \
		.name = #n, .kind = BAD_XCHAR, .bytes = n, .len = sizeof(n), \
		.err = -RPCRDMA_E_##e, .opttype = ot                         \
	}

static const struct bad_vector bad_vectors[] = {
	BAD(BAD_HDR, hdr_trunc_15, TRUNC),
	BAD(BAD_HDR, hdr_trunc_lists, TRUNC),
	BAD(BAD_HDR, hdr_trunc_v2_dir, TRUNC),
	BAD(BAD_HDR, hdr_trunc_read, TRUNC),
	BAD(BAD_HDR, hdr_trunc_msgp, TRUNC),
	BAD(BAD_HDR, hdr_trunc_err, TRUNC),
	BAD(BAD_HDR, hdr_trunc_err_vers, TRUNC),
	BAD(BAD_HDR, hdr_trunc_opt, TRUNC),
	BAD(BAD_HDR, hdr_vers0, VERS),
	BAD(BAD_HDR, hdr_vers3, VERS),
	BAD(BAD_HDR, hdr_vers_big, VERS),
	BAD(BAD_HDR, hdr_v1_proc5, PROC),
	BAD(BAD_HDR, hdr_v1_proc_max, PROC),
	BAD(BAD_HDR, hdr_v2_proc2, PROC),
	BAD(BAD_HDR, hdr_v2_proc3, PROC),
	BAD(BAD_HDR, hdr_v2_proc6, PROC),
	BAD_CAP(hdr_reads_2, TOO_MANY_READS, 1, 1, 1),
	BAD_CAP(hdr_reads_2, TOO_MANY_READS, 0, 0, 0),
	BAD_CAP(hdr_writes_2, TOO_MANY_WRITES, 0, 1, 0),
	BAD(BAD_HDR, hdr_writes_9, TOO_MANY_WRITES),
	BAD(BAD_HDR, hdr_segs_huge, TOO_MANY_SEGS),
	BAD(BAD_HDR, hdr_segs_reply_17, TOO_MANY_SEGS),
	BAD_CAP(hdr_segs_2, TOO_MANY_SEGS, 0, 1, 1),
	BAD_CAP(hdr_segs_reply_2, TOO_MANY_SEGS, 0, 0, 1),
	BAD(BAD_HDR, hdr_position_2, POSITION),
	BAD(BAD_HDR, hdr_position_odd, POSITION),
	BAD(BAD_HDR, hdr_bool_read, BOOL),
	BAD(BAD_HDR, hdr_bool_read_next, BOOL),
	BAD(BAD_HDR, hdr_bool_write, BOOL),
	BAD(BAD_HDR, hdr_bool_reply, BOOL),
	BAD(BAD_HDR, hdr_v2_dir2, ENUM),
	BAD(BAD_HDR, hdr_v1_err0, ENUM),
	BAD(BAD_HDR, hdr_v1_err3, ENUM),
	BAD(BAD_HDR, hdr_v2_err0, ENUM),
	BAD(BAD_HDR, hdr_v2_err4, ENUM),
	BAD(BAD_HDR, hdr_optdir2, ENUM),
	BAD(BAD_HDR, hdr_optinfo_short, OPAQUE),
	BAD(BAD_HDR, hdr_optinfo_pad, OPAQUE),
	BAD(BAD_HDR, hdr_optinfo_huge, OPAQUE),
	BAD(BAD_HDR, hdr_optinfo_wrap, OPAQUE),
	BAD(BAD_RPC, rpc_trunc_7, TRUNC),
	BAD(BAD_RPC, rpc_trunc_call, TRUNC),
	BAD(BAD_RPC, rpc_trunc_reply, TRUNC),
	BAD(BAD_RPC, rpc_trunc_mismatch, TRUNC),
	BAD(BAD_RPC, rpc_type2, ENUM),
	BAD(BAD_RPC, rpc_reply_stat2, ENUM),
	BAD(BAD_RPC, rpc_accept6, ENUM),
	BAD(BAD_RPC, rpc_reject2, ENUM),
	BAD(BAD_RPC, rpc_rpcvers3, RPCVERS),
	BAD(BAD_RPC, rpc_rpcvers0, RPCVERS),
	BAD(BAD_RPC, rpc_cred_401, OPAQUE_BOUND),
	BAD(BAD_RPC, rpc_cred_huge, OPAQUE_BOUND),
	BAD(BAD_RPC, rpc_verf_401, OPAQUE_BOUND),
	BAD(BAD_RPC, rpc_reply_verf_401, OPAQUE_BOUND),
	BAD(BAD_RPC, rpc_cred_past_end, OPAQUE),
	BAD(BAD_RPC, rpc_verf_past_end, OPAQUE),
	BAD(BAD_RPC, rpc_machname_256, OPAQUE_BOUND),
	BAD(BAD_RPC, rpc_machname_past_body, OPAQUE),
	BAD(BAD_RPC, rpc_gids_17, GIDS),
	BAD(BAD_RPC, rpc_auth_len, AUTH_LEN),
	BAD(BAD_RPC, rpc_authsys_trunc, TRUNC),
	BAD(BAD_RPC, rpc_authsys_gids_trunc, TRUNC),
	BAD_X(x_trunc_byte, RPCRDMA_ROPT_RESPXCH, TRUNC),
	BAD_X(x_trunc_subset, RPCRDMA_ROPT_INITXCH, TRUNC),
	BAD_X(x_trunc_subset_huge, RPCRDMA_ROPT_RESPXCH, TRUNC),
	BAD_X(x_trunc_pendclr, RPCRDMA_ROPT_UPDXCH, TRUNC),
	BAD_X(x_rbsiz_len8, RPCRDMA_ROPT_REQXCH, XCHAR_LEN),
	BAD_X(x_brs_len0, RPCRDMA_ROPT_UPDXCH, XCHAR_LEN),
	BAD_X(x_reqreminv_2, RPCRDMA_ROPT_REQXCH, BOOL),
	BAD_X(x_brs_3, RPCRDMA_ROPT_REQXCH, ENUM),
	BAD_X(x_pendclr_2, RPCRDMA_ROPT_UPDXCH, BOOL),
	BAD_X(x_data_huge, RPCRDMA_ROPT_REQXCH, OPAQUE),
	BAD_X(x_data_past_end, RPCRDMA_ROPT_INITXCH, OPAQUE),
	BAD_X(x_too_many, RPCRDMA_ROPT_INITXCH, TOO_MANY_XCHARS),
	BAD_X(x_subset_word2, RPCRDMA_ROPT_RESPXCH, SUBSET),
	BAD_X(x_trailing_resp, RPCRDMA_ROPT_RESPXCH, TRAILING),
	BAD_X(x_trailing_init, RPCRDMA_ROPT_INITXCH, TRAILING),
	BAD_X(x_opttype, 0, OPTTYPE),
	BAD_X(x_opttype, 5, OPTTYPE),
	BAD_X(x_opttype, 0xffffffff, OPTTYPE),
};

/* Decode a bad vector from an exactly-sized heap copy; return the result. */
static int decode_bad(const struct bad_vector *b, struct rpcrdma_hdr_storage *st,
		      struct rpcrdma_rpc_msg *msg)
{
	uint8_t *buf = test_heap_copy(b->bytes, b->len);
	struct rpcrdma_read_segment *reads = NULL;
	struct rpcrdma_write_chunk *writes = NULL;
	struct rpcrdma_segment *segs = NULL;
	struct rpcrdma_xchar_msg x;
	struct rpcrdma_hdr *hdr;
	int ret;

	switch (b->kind) {
	case BAD_HDR:
		if (b->small_cap) {
			/* Storage of exactly the capacity, so an overrun is caught. */
			reads = test_malloc(sizeof(*reads) * b->max_reads);
			writes = test_malloc(sizeof(*writes) * b->max_writes);
			segs = test_malloc(sizeof(*segs) * (b->max_writes + 1u) *
					   b->max_chunk_segs);
			hdr = &st->hdr;
			rpcrdma_hdr_init(hdr, reads, b->max_reads, writes, b->max_writes, segs,
					 b->max_chunk_segs);
		} else {
			hdr = rpcrdma_hdr_storage_init(st);
		}
		ret = rpcrdma_hdr_decode(hdr, buf, b->len);
		break;
	case BAD_RPC:
		ret = rpcrdma_rpc_decode(msg, buf, b->len);
		break;
	default:
		ret = rpcrdma_xchar_decode(&x, b->opttype, buf, b->len);
		break;
	}
	free(segs);
	free(writes);
	free(reads);
	free(buf);
	return ret;
}

/* Run the table; note which error numbers it reached. */
static void check_bad_vectors(bool *seen)
{
	struct rpcrdma_hdr_storage st;
	struct rpcrdma_rpc_msg msg;
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(bad_vectors) / sizeof(bad_vectors[0]); i++) {
		const struct bad_vector *b = &bad_vectors[i];

		ret = decode_bad(b, &st, &msg);
		CHECK(ret == b->err, "%s: returned %d (%s), want %s", b->name, ret,
		      rpcrdma_errname(ret), rpcrdma_errname(b->err));
		if (ret == b->err)
			seen[-ret - RPCRDMA_ERRNO_BASE] = true;
	}
}

/* Errors that promise what was read before the failure. */
static void check_error_state(void)
{
	const struct bad_vector vers = BAD(BAD_HDR, hdr_vers3, VERS);
	const struct bad_vector proc = BAD(BAD_HDR, hdr_v2_proc2, PROC);
	const struct bad_vector rpcvers = BAD(BAD_RPC, rpc_rpcvers3, RPCVERS);
	const struct bad_vector type = BAD(BAD_RPC, rpc_type2, ENUM);
	struct rpcrdma_hdr_storage st;
	struct rpcrdma_rpc_msg msg;

	/* ERR_VERS needs xid, vers and credit of the refused header. */
	memset(&st, 0xa5, sizeof(st));
	CHECK(decode_bad(&vers, &st, &msg) == -RPCRDMA_E_VERS, "hdr_vers3");
	CHECK(st.hdr.xid == 0x77 && st.hdr.vers == 3 && st.hdr.credit == 9,
	      "VERS: xid 0x%x vers %u credit %u", st.hdr.xid, st.hdr.vers, st.hdr.credit);
	memset(&st, 0xa5, sizeof(st));
	CHECK(decode_bad(&proc, &st, &msg) == -RPCRDMA_E_PROC, "hdr_v2_proc2");
	CHECK(st.hdr.xid == 0x77 && st.hdr.vers == 2 && st.hdr.credit == 9 && st.hdr.proc == 2,
	      "PROC: xid 0x%x vers %u credit %u proc %u", st.hdr.xid, st.hdr.vers, st.hdr.credit,
	      st.hdr.proc);

	/* RPC_MISMATCH needs the xid of the refused call. */
	memset(&msg, 0xa5, sizeof(msg));
	CHECK(decode_bad(&rpcvers, &st, &msg) == -RPCRDMA_E_RPCVERS, "rpc_rpcvers3");
	CHECK(msg.xid == 0x55 && msg.type == RPCRDMA_RPC_CALL && msg.call.rpcvers == 3,
	      "RPCVERS: xid 0x%x type %u rpcvers %u", msg.xid, msg.type, msg.call.rpcvers);
	memset(&msg, 0xa5, sizeof(msg));
	CHECK(decode_bad(&type, &st, &msg) == -RPCRDMA_E_ENUM, "rpc_type2");
	CHECK(msg.xid == 0x55 && msg.type == 2, "ENUM: xid 0x%x type %u", msg.xid, msg.type);
}

/* Write n words of a read list or write list at default capacity + 1. */
static uint32_t put_word(uint8_t *p, uint32_t off, uint32_t v)
{
	p[off] = (uint8_t)(v >> 24);
	p[off + 1] = (uint8_t)(v >> 16);
	p[off + 2] = (uint8_t)(v >> 8);
	p[off + 3] = (uint8_t)v;
	return off + 4;
}

/* Default capacity: the last entry that fits decodes, one more is refused. */
static void check_default_capacity(void)
{
	struct rpcrdma_hdr_storage st;
	struct rpcrdma_hdr *hdr;
	uint8_t msg[1024], *buf;
	uint32_t n, off, i;
	int ret;

	for (n = RPCRDMA_HDR_DEFAULT_READS; n <= RPCRDMA_HDR_DEFAULT_READS + 1u; n++) {
		off = put_word(msg, 0, 1);
		off = put_word(msg, off, 1);
		off = put_word(msg, off, 32);
		off = put_word(msg, off, RPCRDMA_MSG);
		for (i = 0; i < n; i++) {
			off = put_word(msg, off, 1);	 /* entry follows */
			off = put_word(msg, off, 4 * i); /* position */
			off = put_word(msg, off, 0x100); /* handle */
			off = put_word(msg, off, 8);	 /* length */
			off = put_word(msg, off, 0);	 /* offset (high) */
			off = put_word(msg, off, 8 * i); /* offset (low) */
		}
		off = put_word(msg, off, 0);
		off = put_word(msg, off, 0);
		off = put_word(msg, off, 0);
		buf = test_heap_copy(msg, off);
		hdr = rpcrdma_hdr_storage_init(&st);
		ret = rpcrdma_hdr_decode(hdr, buf, off);
		if (n == RPCRDMA_HDR_DEFAULT_READS)
			CHECK(ret == (int)off && hdr->chunks.nreads == n &&
				      hdr->chunks.reads[n - 1].position == 4 * (n - 1),
			      "%u reads: returned %d (%s)", n, ret, rpcrdma_errname(ret));
		else
			CHECK(ret == -RPCRDMA_E_TOO_MANY_READS, "%u reads: returned %d (%s)", n,
			      ret, rpcrdma_errname(ret));
		free(buf);
	}

	for (n = RPCRDMA_HDR_DEFAULT_CHUNK_SEGS; n <= RPCRDMA_HDR_DEFAULT_CHUNK_SEGS + 1u; n++) {
		off = put_word(msg, 0, 2);
		off = put_word(msg, off, 2);
		off = put_word(msg, off, 32);
		off = put_word(msg, off, RPCRDMA_NOMSG);
		off = put_word(msg, off, RPCRDMA_REPLY);
		off = put_word(msg, off, 0); /* no read */
		off = put_word(msg, off, 1); /* a write chunk */
		off = put_word(msg, off, n); /* of n segments */
		for (i = 0; i < n; i++) {
			off = put_word(msg, off, 0x200 + i);
			off = put_word(msg, off, 4096);
			off = put_word(msg, off, 0);
			off = put_word(msg, off, 4096 * i);
		}
		off = put_word(msg, off, 0);
		off = put_word(msg, off, 0);
		buf = test_heap_copy(msg, off);
		hdr = rpcrdma_hdr_storage_init(&st);
		ret = rpcrdma_hdr_decode(hdr, buf, off);
		if (n == RPCRDMA_HDR_DEFAULT_CHUNK_SEGS)
			CHECK(ret == (int)off && hdr->chunks.nwrites == 1 &&
				      hdr->chunks.writes[0].nsegs == n &&
				      hdr->chunks.writes[0].segs[n - 1].handle == 0x200 + n - 1,
			      "%u segments: returned %d (%s)", n, ret, rpcrdma_errname(ret));
		else
			CHECK(ret == -RPCRDMA_E_TOO_MANY_SEGS, "%u segments: returned %d (%s)", n,
			      ret, rpcrdma_errname(ret));
		free(buf);
	}
}

/*
 * Each good vector with chunks, decoded with exactly the capacity it needs
 * (from storage of exactly that size), then with one less of each.
 */
static int decode_with_cap(const struct codec_vector *v, struct rpcrdma_hdr *hdr, uint16_t r,
			   uint16_t w, uint16_t s)
{
	struct rpcrdma_read_segment *reads = test_malloc(sizeof(*reads) * r);
	struct rpcrdma_write_chunk *writes = test_malloc(sizeof(*writes) * w);
	struct rpcrdma_segment *segs = test_malloc(sizeof(*segs) * (w + 1u) * s);
	struct rpcrdma_hdr want = *v->hdr;
	uint8_t *buf = test_heap_copy(v->bytes, v->len);
	char why[160];
	int ret;

	rpcrdma_hdr_init(hdr, reads, r, writes, w, segs, s);
	ret = rpcrdma_hdr_decode(hdr, buf, v->len);
	if (ret >= 0)
		CHECK(codec_hdr_cmp(hdr, &want, why, sizeof(why)) == 0, "%s: decoded %s", v->name,
		      why);
	free(buf);
	free(segs);
	free(writes);
	free(reads);
	return ret;
}

static void check_exact_capacity(void)
{
	struct rpcrdma_hdr hdr;
	unsigned int i, k;
	int ret;

	for (i = 0; i < codec_nvectors; i++) {
		const struct codec_vector *v = &codec_vectors[i];
		const struct rpcrdma_chunk_lists *cl;
		uint16_t r, w, s = 0;

		if (v->kind != CODEC_HDR || v->hdr->proc > RPCRDMA_MSGP)
			continue;
		cl = &v->hdr->chunks;
		r = cl->nreads;
		w = cl->nwrites;
		for (k = 0; k < w; k++)
			s = cl->writes[k].nsegs > s ? (uint16_t)cl->writes[k].nsegs : s;
		if (cl->has_reply && cl->reply.nsegs > s)
			s = (uint16_t)cl->reply.nsegs;

		ret = decode_with_cap(v, &hdr, r, w, s);
		CHECK(ret == (int)v->hdr_len, "%s: capacity %u/%u/%u: returned %d (%s)", v->name, r,
		      w, s, ret, rpcrdma_errname(ret));
		if (r) {
			ret = decode_with_cap(v, &hdr, r - 1, w, s);
			CHECK(ret == -RPCRDMA_E_TOO_MANY_READS, "%s: %u reads: returned %d (%s)",
			      v->name, r - 1, ret, rpcrdma_errname(ret));
		}
		if (w) {
			ret = decode_with_cap(v, &hdr, r, w - 1, s);
			CHECK(ret == -RPCRDMA_E_TOO_MANY_WRITES, "%s: %u writes: returned %d (%s)",
			      v->name, w - 1, ret, rpcrdma_errname(ret));
		}
		if (s) {
			ret = decode_with_cap(v, &hdr, r, w, s - 1);
			CHECK(ret == -RPCRDMA_E_TOO_MANY_SEGS, "%s: %u segs: returned %d (%s)",
			      v->name, s - 1, ret, rpcrdma_errname(ret));
		}
	}
}

/* Headers without chunks need no decode storage at all. */
static void check_no_storage(void)
{
	struct rpcrdma_hdr hdr;
	unsigned int i;
	uint8_t *buf;
	int ret;

	for (i = 0; i < codec_nvectors; i++) {
		const struct codec_vector *v = &codec_vectors[i];
		const struct rpcrdma_chunk_lists *cl;

		if (v->kind == CODEC_RPC)
			continue;
		cl = &v->hdr->chunks;
		if (v->hdr->proc <= RPCRDMA_MSGP && (cl->nreads || cl->nwrites || cl->has_reply))
			continue;
		rpcrdma_hdr_init(&hdr, NULL, 0, NULL, 0, NULL, 0);
		buf = test_heap_copy(v->bytes, v->len);
		ret = rpcrdma_hdr_decode(&hdr, buf, v->len);
		CHECK(ret == (int)v->hdr_len, "%s: no storage: returned %d (%s)", v->name, ret,
		      rpcrdma_errname(ret));
		free(buf);
	}
}

/* A truncated message fails as truncated, never succeeds. */
static bool is_trunc(int ret)
{
	return ret == -RPCRDMA_E_TRUNC || ret == -RPCRDMA_E_OPAQUE;
}

static void check_truncations(void)
{
	struct rpcrdma_hdr_storage st;
	struct rpcrdma_xchar_msg x;
	struct rpcrdma_rpc_msg msg;
	unsigned int i, n, count = 0;
	uint8_t *buf;
	int ret;

	for (i = 0; i < codec_nvectors; i++) {
		const struct codec_vector *v = &codec_vectors[i];

		/* Below the header length: an error. From it on: the same header. */
		for (n = 0; n <= v->len; n++) {
			buf = test_heap_copy(v->bytes, n);
			if (v->kind == CODEC_RPC)
				ret = rpcrdma_rpc_decode(&msg, buf, n);
			else
				ret = rpcrdma_hdr_decode(rpcrdma_hdr_storage_init(&st), buf, n);
			if (n < v->hdr_len)
				CHECK(is_trunc(ret), "%s: %u of %u bytes: returned %d (%s)",
				      v->name, n, v->len, ret, rpcrdma_errname(ret));
			else
				CHECK(ret == (int)v->hdr_len,
				      "%s: %u of %u bytes: returned %d (%s)", v->name, n, v->len,
				      ret, rpcrdma_errname(ret));
			free(buf);
			count++;
		}

		/* Every truncation of a good rdma_optinfo, decoded on its own. */
		if (v->kind != CODEC_OPT || v->xchar_ret)
			continue;
		for (n = 0; n < v->hdr->optional.optinfo_len; n++) {
			buf = test_heap_copy(v->bytes + 28, n);
			ret = rpcrdma_xchar_decode(&x, v->hdr->optional.opttype, buf, n);
			CHECK(is_trunc(ret), "%s: optinfo %u of %u bytes: returned %d (%s)",
			      v->name, n, v->hdr->optional.optinfo_len, ret, rpcrdma_errname(ret));
			free(buf);
			count++;
		}
	}
	printf("%u truncations\n", count);
}

/* Stable names and descriptions of the error numbers. */
static void check_errnames(void)
{
	static const struct {
		int err;
		const char *name;
	} names[] = {
		{ RPCRDMA_E_TRUNC, "TRUNC" },
		{ RPCRDMA_E_VERS, "VERS" },
		{ RPCRDMA_E_PROC, "PROC" },
		{ RPCRDMA_E_TOO_MANY_READS, "TOO_MANY_READS" },
		{ RPCRDMA_E_TOO_MANY_WRITES, "TOO_MANY_WRITES" },
		{ RPCRDMA_E_TOO_MANY_SEGS, "TOO_MANY_SEGS" },
		{ RPCRDMA_E_POSITION, "POSITION" },
		{ RPCRDMA_E_BOOL, "BOOL" },
		{ RPCRDMA_E_ENUM, "ENUM" },
		{ RPCRDMA_E_OPAQUE, "OPAQUE" },
		{ RPCRDMA_E_OPAQUE_BOUND, "OPAQUE_BOUND" },
		{ RPCRDMA_E_GIDS, "GIDS" },
		{ RPCRDMA_E_AUTH_LEN, "AUTH_LEN" },
		{ RPCRDMA_E_RPCVERS, "RPCVERS" },
		{ RPCRDMA_E_XCHAR_LEN, "XCHAR_LEN" },
		{ RPCRDMA_E_TOO_MANY_XCHARS, "TOO_MANY_XCHARS" },
		{ RPCRDMA_E_SUBSET, "SUBSET" },
		{ RPCRDMA_E_TRAILING, "TRAILING" },
		{ RPCRDMA_E_OPTTYPE, "OPTTYPE" },
	};
	unsigned int i, j;

	CHECK(sizeof(names) / sizeof(names[0]) == RPCRDMA_E_CODEC_MAX - RPCRDMA_ERRNO_BASE,
	      "an error number has no expected name");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int e = names[i].err;

		CHECK(strcmp(rpcrdma_errname(-e), names[i].name) == 0 &&
			      strcmp(rpcrdma_errname(e), names[i].name) == 0,
		      "errname(%d) = %s, want %s", -e, rpcrdma_errname(-e), names[i].name);
		CHECK(rpcrdma_strerror(-e)[0] != '\0' &&
			      rpcrdma_strerror(-e) == rpcrdma_strerror(e),
		      "strerror(%d)", -e);
		for (j = 0; j < i; j++)
			CHECK(strcmp(rpcrdma_strerror(-e), rpcrdma_strerror(-names[j].err)) != 0,
			      "strerror(%d) = strerror(%d)", -e, -names[j].err);
	}
	CHECK(strcmp(rpcrdma_errname(-ENOSPC), "ERRNO") == 0, "errname(-ENOSPC) = %s",
	      rpcrdma_errname(-ENOSPC));
	CHECK(strcmp(rpcrdma_errname(-RPCRDMA_E_MAX), "ERRNO") == 0, "errname(-E_MAX)");
	CHECK(strcmp(rpcrdma_strerror(-ENOSPC), strerror(ENOSPC)) == 0, "strerror(-ENOSPC) = %s",
	      rpcrdma_strerror(-ENOSPC));
}

int main(void)
{
	bool seen[RPCRDMA_E_MAX - RPCRDMA_ERRNO_BASE] = { false };
	unsigned int e;

	check_bad_vectors(seen);
	/* Every error number the codec decoders define has a vector that returns it. */
	for (e = RPCRDMA_ERRNO_BASE; e < RPCRDMA_E_CODEC_MAX; e++)
		CHECK(seen[e - RPCRDMA_ERRNO_BASE], "no bad vector returns -%s",
		      rpcrdma_errname((int)e));
	check_error_state();
	check_default_capacity();
	check_exact_capacity();
	check_no_storage();
	check_truncations();
	check_errnames();
	return test_summary("test_codec_bad");
}

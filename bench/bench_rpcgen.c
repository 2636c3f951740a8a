/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Benchmark cases for the baseline (impls "rpcgen" and "rpcgen_alloc"):
 * the code rpcgen generates from tests/xdr/rpcrdma_v1.x for the transport
 * header, libtirpc's xdr_callmsg for the RPC call header.
 *
 * Each operation does what an rpcgen user does per message, and no more:
 * xdrmem_create over a buffer allocated once, the xdr_* routine, and
 * xdr_getpos. The XDR handle lives on the stack; xdrmem_create allocates
 * nothing.
 *
 * Decoding with rpcgen allocates a list entry per optional-data pointer and
 * an array per counted array (xdr_reference, xdr_array) unless the pointer
 * is already set, in which case it decodes into that storage without
 * checking its size. "rpcgen" decodes into storage set up beforehand, so no
 * operation touches the heap: the fastest rpcgen can be, and safe here only
 * because the input is known. "rpcgen_alloc" decodes into NULL pointers, as
 * rpcgen code usually is called, and pays for malloc and for xdr_free.
 * The call header's auth bodies always go to caller buffers (as svc code
 * does), so xdr_callmsg never allocates.
 */
#include <string.h>

#include <rpc/rpc.h>

#include "rpcrdma_v1.h"

#include "bench_impl.h"

/* Segments of each chunk storage set up for decoding: the default capacity. */
#define RX_MAX_SEGS 16

struct rg_state {
	uint8_t out[BENCH_BUF_LEN] __attribute__((aligned(64)));
	const uint8_t *in; /* the wire image */
	uint32_t in_len;

	/* The message to encode and the storage it points to. */
	rdma_msg tx;
	struct rpc_msg tx_call;
	xdr_read_list tx_read;
	xdr_write_list tx_write;
	xdr_write_chunk tx_reply;
	xdr_rdma_segment tx_segs[2 * BENCH_CHUNK_SEGS];

	/* Decode results. */
	rdma_msg rx;
	struct rpc_msg rx_call;
	char rx_cred[MAX_AUTH_BYTES];
	char rx_verf[MAX_AUTH_BYTES];

	/* What the list pointers are set to before each decode: NULL or below. */
	xdr_read_list *rx_reads;
	xdr_write_list *rx_writes;
	xdr_write_chunk *rx_reply;
	xdr_read_list rx_read;
	xdr_write_list rx_write;
	xdr_write_chunk rx_reply_chunk;
	xdr_rdma_segment rx_segs[2][RX_MAX_SEGS];
};

/* ---------------------------------------------------------------- encode */

static inline int msg_encode_into(struct rg_state *s, uint8_t *buf, uint32_t len, bool_t call)
{
	XDR x;
	int n;

	xdrmem_create(&x, (char *)buf, len, XDR_ENCODE);
	if (xdr_rdma_msg(&x, &s->tx) && (!call || xdr_callmsg(&x, &s->tx_call)))
		n = (int)xdr_getpos(&x);
	else
		n = -1;
	xdr_destroy(&x);
	return n;
}

static int msg_encode(void *arg)
{
	struct rg_state *s = arg;

	return msg_encode_into(s, s->out, sizeof(s->out), FALSE);
}

static int call_encode(void *arg)
{
	struct rg_state *s = arg;

	return msg_encode_into(s, s->out, sizeof(s->out), TRUE);
}

/* ---------------------------------------------------------------- decode */

static inline int msg_decode_from(struct rg_state *s, const uint8_t *buf, uint32_t len, bool_t call)
{
	rpc_rdma_header *h = &s->rx.rdma_body.rdma_body_u.rdma_msg;
	XDR x;
	int n;

	h->rdma_reads = s->rx_reads;
	h->rdma_writes = s->rx_writes;
	h->rdma_reply = s->rx_reply;
	xdrmem_create(&x, (char *)buf, len, XDR_DECODE);
	if (xdr_rdma_msg(&x, &s->rx) && (!call || xdr_callmsg(&x, &s->rx_call)))
		n = (int)xdr_getpos(&x);
	else
		n = -1;
	xdr_destroy(&x);
	return n;
}

static int msg_decode(void *arg)
{
	struct rg_state *s = arg;

	return msg_decode_from(s, s->in, s->in_len, FALSE);
}

static int call_decode(void *arg)
{
	struct rg_state *s = arg;

	return msg_decode_from(s, s->in, s->in_len, TRUE);
}

/* rpcgen_alloc: the lists are malloc'ed by the decode and freed after it. */
static int msg_decode_alloc(void *arg)
{
	struct rg_state *s = arg;
	int n;

	n = msg_decode_from(s, s->in, s->in_len, FALSE);
	xdr_free((xdrproc_t)xdr_rdma_msg, (char *)&s->rx);
	return n;
}

/* ---------------------------------------------------------------- round trip */

static int msg_roundtrip(void *arg)
{
	struct rg_state *s = arg;
	int n;

	n = msg_encode_into(s, s->out, sizeof(s->out), FALSE);
	if (n < 0)
		return n;
	return msg_decode_from(s, s->out, (uint32_t)n, FALSE);
}

static int call_roundtrip(void *arg)
{
	struct rg_state *s = arg;
	int n;

	n = msg_encode_into(s, s->out, sizeof(s->out), TRUE);
	if (n < 0)
		return n;
	return msg_decode_from(s, s->out, (uint32_t)n, TRUE);
}

/* ---------------------------------------------------------------- start-up check */

static int reencode(struct rg_state *s, uint8_t *buf, uint32_t len, bool_t call)
{
	XDR x;
	int n;

	n = msg_decode_from(s, s->in, s->in_len, call);
	if (n < 0)
		return n;
	xdrmem_create(&x, (char *)buf, len, XDR_ENCODE);
	if (xdr_rdma_msg(&x, &s->rx) && (!call || xdr_callmsg(&x, &s->rx_call)))
		n = (int)xdr_getpos(&x);
	else
		n = -1;
	xdr_destroy(&x);
	return n;
}

static int msg_reencode(void *arg, uint8_t *buf, uint32_t len)
{
	return reencode(arg, buf, len, FALSE);
}

static int call_reencode(void *arg, uint8_t *buf, uint32_t len)
{
	return reencode(arg, buf, len, TRUE);
}

static int msg_reencode_alloc(void *arg, uint8_t *buf, uint32_t len)
{
	struct rg_state *s = arg;
	int n;

	n = reencode(arg, buf, len, FALSE);
	xdr_free((xdrproc_t)xdr_rdma_msg, (char *)&s->rx);
	return n;
}

/* ---------------------------------------------------------------- the messages */

static void set_segment(xdr_rdma_segment *seg, uint32_t i)
{
	seg->handle = BENCH_SEG_HANDLE(i);
	seg->length = BENCH_SEG_LENGTH(i);
	seg->offset = BENCH_SEG_OFFSET(i);
}

static struct rg_state *state_new(const struct bench_wire *wire, bool_t prealloc)
{
	struct rg_state *s = bench_state_alloc(sizeof(*s));

	s->in = wire->buf;
	s->in_len = wire->len;
	s->tx.rdma_xid = BENCH_XID;
	s->tx.rdma_vers = 1;
	s->tx.rdma_credit = BENCH_CREDIT;
	s->tx.rdma_body.proc = RDMA_MSG;
	s->rx_call.rm_call.cb_cred.oa_base = s->rx_cred;
	s->rx_call.rm_call.cb_verf.oa_base = s->rx_verf;
	if (prealloc) {
		s->rx_write.entry.target.target_val = s->rx_segs[0];
		s->rx_reply_chunk.target.target_val = s->rx_segs[1];
		s->rx_reads = &s->rx_read;
		s->rx_writes = &s->rx_write;
		s->rx_reply = &s->rx_reply_chunk;
	}
	return s;
}

/* RDMA_MSG, one read segment. */
static void set_read1(struct rg_state *s)
{
	s->tx_read.entry.position = BENCH_READ_POS;
	set_segment(&s->tx_read.entry.target, 0);
	s->tx.rdma_body.rdma_body_u.rdma_msg.rdma_reads = &s->tx_read;
}

/* RDMA_MSG, a write chunk of 4 segments and a reply chunk of 4. */
static void set_write4_reply4(struct rg_state *s)
{
	rpc_rdma_header *h = &s->tx.rdma_body.rdma_body_u.rdma_msg;
	uint32_t i;

	for (i = 0; i < 2 * BENCH_CHUNK_SEGS; i++)
		set_segment(&s->tx_segs[i], i);
	s->tx_write.entry.target.target_len = BENCH_CHUNK_SEGS;
	s->tx_write.entry.target.target_val = &s->tx_segs[0];
	s->tx_reply.target.target_len = BENCH_CHUNK_SEGS;
	s->tx_reply.target.target_val = &s->tx_segs[BENCH_CHUNK_SEGS];
	h->rdma_writes = &s->tx_write;
	h->rdma_reply = &s->tx_reply;
}

static void add_case(struct bench_impl_case *ic, enum bench_shape shape, const char *name,
		     const char *impl, const struct bench_wire *wire, struct rg_state *s,
		     bench_op_fn enc, bench_op_fn dec, bench_op_fn rt,
		     int (*reenc)(void *, uint8_t *, uint32_t))
{
	ic->shape = shape;
	ic->out = s->out;
	ic->reencode = reenc;
	ic->c.shape = name;
	ic->c.impl = impl;
	ic->c.msg_len = wire[shape].len;
	ic->c.op[BENCH_ENCODE] = enc;
	ic->c.op[BENCH_DECODE] = dec;
	ic->c.op[BENCH_ROUNDTRIP] = rt;
	ic->c.arg = s;
}

unsigned int bench_rpcgen_cases(struct bench_impl_case *cases, const struct bench_wire *wire)
{
	struct rg_state *s;
	unsigned int n = 0;

	/* RDMA_MSG, no chunks, NULL call with AUTH_NONE. */
	s = state_new(&wire[BENCH_V1_MSG_NULLCALL], TRUE);
	s->tx_call.rm_xid = BENCH_XID;
	s->tx_call.rm_direction = CALL;
	s->tx_call.rm_call.cb_rpcvers = RPC_MSG_VERSION;
	s->tx_call.rm_call.cb_prog = BENCH_NFS_PROG;
	s->tx_call.rm_call.cb_vers = BENCH_NFS_VERS;
	s->tx_call.rm_call.cb_proc = NULLPROC;
	s->tx_call.rm_call.cb_cred = _null_auth;
	s->tx_call.rm_call.cb_verf = _null_auth;
	add_case(&cases[n++], BENCH_V1_MSG_NULLCALL, "v1_msg_nullcall", "rpcgen", wire, s,
		 call_encode, call_decode, call_roundtrip, call_reencode);

	s = state_new(&wire[BENCH_V1_MSG_READ1], TRUE);
	set_read1(s);
	add_case(&cases[n++], BENCH_V1_MSG_READ1, "v1_msg_read1", "rpcgen", wire, s, msg_encode,
		 msg_decode, msg_roundtrip, msg_reencode);
	s = state_new(&wire[BENCH_V1_MSG_READ1], FALSE);
	add_case(&cases[n++], BENCH_V1_MSG_READ1, "v1_msg_read1", "rpcgen_alloc", wire, s, NULL,
		 msg_decode_alloc, NULL, msg_reencode_alloc);

	s = state_new(&wire[BENCH_V1_MSG_WRITE4_REPLY4], TRUE);
	set_write4_reply4(s);
	add_case(&cases[n++], BENCH_V1_MSG_WRITE4_REPLY4, "v1_msg_write4_reply4", "rpcgen", wire, s,
		 msg_encode, msg_decode, msg_roundtrip, msg_reencode);
	s = state_new(&wire[BENCH_V1_MSG_WRITE4_REPLY4], FALSE);
	add_case(&cases[n++], BENCH_V1_MSG_WRITE4_REPLY4, "v1_msg_write4_reply4", "rpcgen_alloc",
		 wire, s, NULL, msg_decode_alloc, NULL, msg_reencode_alloc);

	/* RDMA_ERROR ERR_VERS. */
	s = state_new(&wire[BENCH_V1_ERROR_VERS], TRUE);
	s->tx.rdma_body.proc = RDMA_ERROR;
	s->tx.rdma_body.rdma_body_u.rdma_error.err = ERR_VERS;
	s->tx.rdma_body.rdma_body_u.rdma_error.rpc_rdma_error_u.rdma_vers.rdma_vers_low =
		BENCH_VERS_LOW;
	s->tx.rdma_body.rdma_body_u.rdma_error.rpc_rdma_error_u.rdma_vers.rdma_vers_high =
		BENCH_VERS_HIGH;
	add_case(&cases[n++], BENCH_V1_ERROR_VERS, "v1_error_vers", "rpcgen", wire, s, msg_encode,
		 msg_decode, msg_roundtrip, msg_reencode);
	return n;
}

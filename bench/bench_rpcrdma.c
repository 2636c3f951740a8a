/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Benchmark cases for this project's codec (impl "rpcrdma"): the transport
 * header (rpcrdma_hdr.h), the ONC RPC header (rpcrdma_rpc.h) and the
 * transport characteristics (rpcrdma_xchar.h), called as the engine calls
 * them, into and out of buffers allocated once.
 */
#include <rpcrdma/rpcrdma_hdr.h>
#include <rpcrdma/rpcrdma_rpc.h>
#include <rpcrdma/rpcrdma_xchar.h>

#include "bench_impl.h"

struct rr_state {
	uint8_t out[BENCH_BUF_LEN] __attribute__((aligned(64)));
	uint8_t optinfo[BENCH_BUF_LEN];
	const uint8_t *in; /* the wire image */
	uint32_t in_len;

	/* The message to encode and the storage it points to. */
	struct rpcrdma_hdr tx;
	struct rpcrdma_rpc_msg tx_call;
	struct rpcrdma_xchar_msg tx_xchar;
	struct rpcrdma_read_segment reads[1];
	struct rpcrdma_write_chunk writes[1];
	struct rpcrdma_segment segs[2 * BENCH_CHUNK_SEGS];

	/* Decode results, with the default capacity. */
	struct rpcrdma_hdr_storage rx;
	struct rpcrdma_rpc_msg rx_call;
	struct rpcrdma_xchar_msg rx_xchar;
};

/* ---------------------------------------------------------------- transport header alone */

static int hdr_encode(void *arg)
{
	struct rr_state *s = arg;

	return rpcrdma_hdr_encode(&s->tx, s->out, sizeof(s->out));
}

static int hdr_decode(void *arg)
{
	struct rr_state *s = arg;

	return rpcrdma_hdr_decode(&s->rx.hdr, s->in, s->in_len);
}

static int hdr_roundtrip(void *arg)
{
	struct rr_state *s = arg;
	int n;

	n = rpcrdma_hdr_encode(&s->tx, s->out, sizeof(s->out));
	if (n < 0)
		return n;
	return rpcrdma_hdr_decode(&s->rx.hdr, s->out, (uint32_t)n);
}

static int hdr_reencode(void *arg, uint8_t *buf, uint32_t len)
{
	struct rr_state *s = arg;
	int n;

	n = hdr_decode(arg);
	if (n < 0)
		return n;
	return rpcrdma_hdr_encode(&s->rx.hdr, buf, len);
}

/* ---------------------------------------------------------------- transport header and RPC call */

static inline int call_encode_into(struct rr_state *s, uint8_t *buf, uint32_t len)
{
	int n, m;

	n = rpcrdma_hdr_encode(&s->tx, buf, len);
	if (n < 0)
		return n;
	m = rpcrdma_rpc_encode(&s->tx_call, buf + n, len - (uint32_t)n);
	if (m < 0)
		return m;
	return n + m;
}

static inline int call_decode_from(struct rr_state *s, const uint8_t *buf, uint32_t len)
{
	int n, m;

	n = rpcrdma_hdr_decode(&s->rx.hdr, buf, len);
	if (n < 0)
		return n;
	m = rpcrdma_rpc_decode(&s->rx_call, buf + n, len - (uint32_t)n);
	if (m < 0)
		return m;
	return n + m;
}

static int call_encode(void *arg)
{
	struct rr_state *s = arg;

	return call_encode_into(s, s->out, sizeof(s->out));
}

static int call_decode(void *arg)
{
	struct rr_state *s = arg;

	return call_decode_from(s, s->in, s->in_len);
}

static int call_roundtrip(void *arg)
{
	struct rr_state *s = arg;
	int n;

	n = call_encode_into(s, s->out, sizeof(s->out));
	if (n < 0)
		return n;
	return call_decode_from(s, s->out, (uint32_t)n);
}

static int call_reencode(void *arg, uint8_t *buf, uint32_t len)
{
	struct rr_state *s = arg;
	int n, m;

	n = call_decode(arg);
	if (n < 0)
		return n;
	n = rpcrdma_hdr_encode(&s->rx.hdr, buf, len);
	if (n < 0)
		return n;
	m = rpcrdma_rpc_encode(&s->rx_call, buf + n, len - (uint32_t)n);
	return m < 0 ? m : n + m;
}

/* ---------------------------------------------------------------- RDMA2_OPTIONAL with xchar */

/* The characteristics into optinfo, then the header around them. */
static inline int opt_encode_into(struct rr_state *s, uint8_t *buf, uint32_t len)
{
	int n;

	n = rpcrdma_xchar_encode(&s->tx_xchar, s->optinfo, sizeof(s->optinfo));
	if (n < 0)
		return n;
	s->tx.optional.optinfo = s->optinfo;
	s->tx.optional.optinfo_len = (uint32_t)n;
	return rpcrdma_hdr_encode(&s->tx, buf, len);
}

static inline int opt_decode_from(struct rr_state *s, const uint8_t *buf, uint32_t len)
{
	const struct rpcrdma_hdr_optional *opt = &s->rx.hdr.optional;
	int n, ret;

	n = rpcrdma_hdr_decode(&s->rx.hdr, buf, len);
	if (n < 0)
		return n;
	ret = rpcrdma_xchar_decode(&s->rx_xchar, opt->opttype, opt->optinfo, opt->optinfo_len);
	return ret < 0 ? ret : n;
}

static int opt_encode(void *arg)
{
	struct rr_state *s = arg;

	return opt_encode_into(s, s->out, sizeof(s->out));
}

static int opt_decode(void *arg)
{
	struct rr_state *s = arg;

	return opt_decode_from(s, s->in, s->in_len);
}

static int opt_roundtrip(void *arg)
{
	struct rr_state *s = arg;
	int n;

	n = opt_encode_into(s, s->out, sizeof(s->out));
	if (n < 0)
		return n;
	return opt_decode_from(s, s->out, (uint32_t)n);
}

/* The decoded characteristics encoded again, not the optinfo bytes copied. */
static int opt_reencode(void *arg, uint8_t *buf, uint32_t len)
{
	struct rr_state *s = arg;
	struct rpcrdma_hdr h;
	uint8_t optinfo[BENCH_BUF_LEN];
	int n;

	n = opt_decode(arg);
	if (n < 0)
		return n;
	n = rpcrdma_xchar_encode(&s->rx_xchar, optinfo, sizeof(optinfo));
	if (n < 0)
		return n;
	h = s->rx.hdr;
	h.optional.optinfo = optinfo;
	h.optional.optinfo_len = (uint32_t)n;
	return rpcrdma_hdr_encode(&h, buf, len);
}

/* ---------------------------------------------------------------- the messages */

static void set_segment(struct rpcrdma_segment *seg, uint32_t i)
{
	seg->handle = BENCH_SEG_HANDLE(i);
	seg->length = BENCH_SEG_LENGTH(i);
	seg->offset = BENCH_SEG_OFFSET(i);
}

static struct rr_state *state_new(const struct bench_wire *wire, uint32_t vers, uint32_t proc)
{
	struct rr_state *s = bench_state_alloc(sizeof(*s));

	s->in = wire->buf;
	s->in_len = wire->len;
	rpcrdma_hdr_storage_init(&s->rx);
	s->tx.xid = BENCH_XID;
	s->tx.vers = vers;
	s->tx.credit = BENCH_CREDIT;
	s->tx.proc = proc;
	s->tx.chunks.reads = s->reads;
	s->tx.chunks.writes = s->writes;
	return s;
}

static void add_case(struct bench_impl_case *ic, enum bench_shape shape, const char *name,
		     const struct bench_wire *wire, struct rr_state *s, bench_op_fn enc,
		     bench_op_fn dec, bench_op_fn rt, int (*reencode)(void *, uint8_t *, uint32_t))
{
	ic->shape = shape;
	ic->out = s->out;
	ic->reencode = reencode;
	ic->c.shape = name;
	ic->c.impl = "rpcrdma";
	ic->c.msg_len = wire[shape].len;
	ic->c.op[BENCH_ENCODE] = enc;
	ic->c.op[BENCH_DECODE] = dec;
	ic->c.op[BENCH_ROUNDTRIP] = rt;
	ic->c.arg = s;
}

unsigned int bench_rpcrdma_cases(struct bench_impl_case *cases, const struct bench_wire *wire)
{
	struct rr_state *s;
	unsigned int n = 0;
	uint32_t i;

	/* RDMA_MSG, no chunks, NULL call with AUTH_NONE. */
	s = state_new(&wire[BENCH_V1_MSG_NULLCALL], RPCRDMA_VERS_1, RPCRDMA_MSG);
	s->tx_call.xid = BENCH_XID;
	s->tx_call.type = RPCRDMA_RPC_CALL;
	s->tx_call.call.rpcvers = RPCRDMA_RPC_VERS;
	s->tx_call.call.prog = BENCH_NFS_PROG;
	s->tx_call.call.vers = BENCH_NFS_VERS;
	s->tx_call.call.proc = 0;
	s->tx_call.call.cred.flavor = RPCRDMA_RPC_AUTH_NONE;
	s->tx_call.call.verf.flavor = RPCRDMA_RPC_AUTH_NONE;
	add_case(&cases[n++], BENCH_V1_MSG_NULLCALL, "v1_msg_nullcall", wire, s, call_encode,
		 call_decode, call_roundtrip, call_reencode);

	/* RDMA_MSG, one read segment. */
	s = state_new(&wire[BENCH_V1_MSG_READ1], RPCRDMA_VERS_1, RPCRDMA_MSG);
	s->tx.chunks.nreads = 1;
	s->reads[0].position = BENCH_READ_POS;
	set_segment(&s->reads[0].target, 0);
	add_case(&cases[n++], BENCH_V1_MSG_READ1, "v1_msg_read1", wire, s, hdr_encode, hdr_decode,
		 hdr_roundtrip, hdr_reencode);

	/* RDMA_MSG, a write chunk of 4 segments and a reply chunk of 4. */
	s = state_new(&wire[BENCH_V1_MSG_WRITE4_REPLY4], RPCRDMA_VERS_1, RPCRDMA_MSG);
	for (i = 0; i < 2 * BENCH_CHUNK_SEGS; i++)
		set_segment(&s->segs[i], i);
	s->tx.chunks.nwrites = 1;
	s->writes[0].nsegs = BENCH_CHUNK_SEGS;
	s->writes[0].segs = &s->segs[0];
	s->tx.chunks.has_reply = true;
	s->tx.chunks.reply.nsegs = BENCH_CHUNK_SEGS;
	s->tx.chunks.reply.segs = &s->segs[BENCH_CHUNK_SEGS];
	add_case(&cases[n++], BENCH_V1_MSG_WRITE4_REPLY4, "v1_msg_write4_reply4", wire, s,
		 hdr_encode, hdr_decode, hdr_roundtrip, hdr_reencode);

	/* RDMA_ERROR ERR_VERS. */
	s = state_new(&wire[BENCH_V1_ERROR_VERS], RPCRDMA_VERS_1, RPCRDMA_ERROR);
	s->tx.error.code = RPCRDMA_ERR_VERS;
	s->tx.error.low = BENCH_VERS_LOW;
	s->tx.error.high = BENCH_VERS_HIGH;
	add_case(&cases[n++], BENCH_V1_ERROR_VERS, "v1_error_vers", wire, s, hdr_encode, hdr_decode,
		 hdr_roundtrip, hdr_reencode);

	/* RDMA2_OPTIONAL, ROPT_INITXCH of the three characteristics. */
	s = state_new(&wire[BENCH_V2_OPTIONAL_INITXCH], RPCRDMA_VERS_2, RPCRDMA_OPTIONAL);
	s->tx.optional.optdir = RPCRDMA_CALL;
	s->tx.optional.opttype = RPCRDMA_ROPT_INITXCH;
	s->tx_xchar.opttype = RPCRDMA_ROPT_INITXCH;
	s->tx_xchar.initxch.start.n = 3;
	s->tx_xchar.initxch.start.vals[0].which = RPCRDMA_XCHAR_RBSIZ;
	s->tx_xchar.initxch.start.vals[0].value = BENCH_XCHAR_RBSIZ;
	s->tx_xchar.initxch.start.vals[1].which = RPCRDMA_XCHAR_REQREMINV;
	s->tx_xchar.initxch.start.vals[1].value = BENCH_XCHAR_REMINV;
	s->tx_xchar.initxch.start.vals[2].which = RPCRDMA_XCHAR_BRS;
	s->tx_xchar.initxch.start.vals[2].value = BENCH_XCHAR_BKREQSUP;
	for (i = 0; i < 3; i++)
		s->tx_xchar.initxch.start.vals[i].known = true;
	add_case(&cases[n++], BENCH_V2_OPTIONAL_INITXCH, "v2_optional_initxch", wire, s, opt_encode,
		 opt_decode, opt_roundtrip, opt_reencode);
	return n;
}

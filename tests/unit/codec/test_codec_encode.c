/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The encoders' bounds and refusals:
 *   every buffer size below the encoding's length returns -ENOSPC, and a
 *   canary shows nothing was written past the size given (the buffer is
 *   also heap-allocated at exactly that size, so AddressSanitizer catches a
 *   write past it);
 *   at the exact size, the vector's bytes;
 *   fields a message does not carry are ignored;
 *   -EINVAL for what the XDR cannot carry, with nothing written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_test.h"
#include "codec_vectors.h"

#define CANARY	    0xa5
#define CANARY_TAIL 32u

/* An encoder under test. */
typedef int (*encode_fn)(const void *obj, void *buf, uint32_t buflen);

static int enc_hdr(const void *obj, void *buf, uint32_t buflen)
{
	return rpcrdma_hdr_encode(obj, buf, buflen);
}

static int enc_rpc(const void *obj, void *buf, uint32_t buflen)
{
	return rpcrdma_rpc_encode(obj, buf, buflen);
}

static int enc_xchar(const void *obj, void *buf, uint32_t buflen)
{
	return rpcrdma_xchar_encode(obj, buf, buflen);
}

static int enc_authsys(const void *obj, void *buf, uint32_t buflen)
{
	return rpcrdma_rpc_authsys_encode(obj, buf, buflen);
}

/* The first byte of buf[from, to) that is not the canary, or to. */
static size_t canary_broken(const uint8_t *buf, size_t from, size_t to)
{
	for (; from < to; from++)
		if (buf[from] != CANARY)
			return from;
	return to;
}

/*
 * Encode obj into every size 0..n-1 (-ENOSPC, nothing past the size
 * touched), then into n (the n bytes of want, nothing past them touched).
 */
static void check_sizes(const char *name, encode_fn fn, const void *obj, const uint8_t *want,
			uint32_t n)
{
	size_t total = n + CANARY_TAIL, bad;
	uint8_t *c = test_malloc(total), *exact;
	uint32_t k;
	int ret;

	for (k = 0; k < n; k++) {
		exact = test_malloc(k);
		ret = fn(obj, exact, k);
		CHECK(ret == -ENOSPC, "%s: into %u of %u bytes: returned %d", name, k, n, ret);
		free(exact);

		memset(c, CANARY, total);
		ret = fn(obj, c, k);
		bad = canary_broken(c, k, total);
		CHECK(ret == -ENOSPC && bad == total,
		      "%s: into %u of %u bytes: returned %d, byte %zu written", name, k, n, ret,
		      bad);
	}

	exact = test_malloc(n);
	ret = fn(obj, exact, n);
	CHECK(ret == (int)n && memcmp(exact, want, n) == 0, "%s: into %u bytes: returned %d", name,
	      n, ret);
	if (ret != (int)n || memcmp(exact, want, n) != 0) {
		test_hexdump("want", want, n);
		test_hexdump("got", exact, n);
	}
	free(exact);

	memset(c, CANARY, total);
	ret = fn(obj, c, (uint32_t)total);
	bad = canary_broken(c, n, total);
	CHECK(ret == (int)n && bad == total, "%s: into %zu bytes: returned %d, byte %zu written",
	      name, total, ret, bad);
	free(c);
}

/* Refused with -EINVAL, and not one byte written. */
static void check_einval(const char *name, encode_fn fn, const void *obj)
{
	uint8_t buf[512];
	size_t bad;
	int ret;

	memset(buf, CANARY, sizeof(buf));
	ret = fn(obj, buf, sizeof(buf));
	bad = canary_broken(buf, 0, sizeof(buf));
	CHECK(ret == -EINVAL && bad == sizeof(buf), "%s: returned %d, byte %zu written", name, ret,
	      bad);
}

/* Fill the fields of a header that its version and proc do not carry. */
static void scribble_hdr(struct rpcrdma_hdr *h)
{
	memset(&h->cap, CANARY, sizeof(h->cap));
	h->hdr_len = 0xdeadbeef;
	switch (h->proc) {
	case RPCRDMA_MSG:
	case RPCRDMA_NOMSG:
	case RPCRDMA_MSGP:
		if (h->vers == RPCRDMA_VERS_1)
			h->chunks.direction = 7;
		if (h->vers == RPCRDMA_VERS_2 || h->proc != RPCRDMA_MSGP) {
			h->chunks.align = 0x1234;
			h->chunks.thresh = 0x5678;
		}
		break;
	case RPCRDMA_DONE:
		memset(&h->chunks, CANARY, sizeof(h->chunks));
		break;
	case RPCRDMA_ERROR:
		if (h->error.code != RPCRDMA_ERR_VERS) {
			h->error.low = 0x1111;
			h->error.high = 0x2222;
		}
		break;
	default:
		break;
	}
}

/* Fill the fields of an RPC header that its type and status do not carry. */
static void scribble_rpc(struct rpcrdma_rpc_msg *m)
{
	struct rpcrdma_rpc_reply *r = &m->reply;

	m->hdr_len = 0xdeadbeef;
	if (m->type == RPCRDMA_RPC_CALL) {
		if (m->call.cred.flavor != RPCRDMA_RPC_AUTH_SYS)
			memset(&m->call.sys, CANARY, sizeof(m->call.sys));
		return;
	}
	if (r->stat == RPCRDMA_RPC_MSG_ACCEPTED) {
		r->reject_stat = 0x3333;
		r->auth_stat = 0x4444;
		if (r->accept_stat != RPCRDMA_RPC_PROG_MISMATCH) {
			r->low = 0x5555;
			r->high = 0x6666;
		}
		return;
	}
	r->verf.flavor = 0x7777;
	r->verf.len = 0x8888;
	r->verf.body = NULL;
	r->accept_stat = 0x9999;
	if (r->reject_stat == RPCRDMA_RPC_RPC_MISMATCH)
		r->auth_stat = 0xaaaa;
	else
		r->low = r->high = 0xbbbb;
}

/* Known characteristics are written from value: len and data are ignored. */
static void scribble_xchar(struct rpcrdma_xchar_msg *x)
{
	struct rpcrdma_xcharspec *spec = NULL;
	uint32_t i;

	if (x->opttype == RPCRDMA_ROPT_INITXCH)
		spec = &x->initxch.start;
	else if (x->opttype == RPCRDMA_ROPT_REQXCH)
		spec = &x->reqxch.want;
	for (i = 0; spec && i < spec->n; i++) {
		if (spec->vals[i].known) {
			spec->vals[i].len = 0;
			spec->vals[i].data = NULL;
		}
	}
	if (x->opttype == RPCRDMA_ROPT_UPDXCH)
		x->updxch.now.len = 77;
}

static void check_vectors(void)
{
	uint8_t optinfo[256], body[RPCRDMA_RPC_AUTH_MAX];
	struct rpcrdma_xchar_msg x;
	struct rpcrdma_rpc_msg msg;
	struct rpcrdma_hdr hdr;
	char name[96];
	unsigned int i;

	for (i = 0; i < codec_nvectors; i++) {
		const struct codec_vector *v = &codec_vectors[i];

		if (v->kind == CODEC_RPC) {
			test_vector_rpc(v, &msg, body, sizeof(body));
			scribble_rpc(&msg);
			check_sizes(v->name, enc_rpc, &msg, v->bytes, v->hdr_len);
			if (msg.type == RPCRDMA_RPC_CALL &&
			    msg.call.cred.flavor == RPCRDMA_RPC_AUTH_SYS) {
				snprintf(name, sizeof(name), "%s authsys", v->name);
				/* The body sits after 8 words: xid .. proc, flavor, length. */
				check_sizes(name, enc_authsys, &msg.call.sys, v->bytes + 32,
					    msg.call.cred.len);
			}
			continue;
		}
		test_vector_hdr(v, &hdr, optinfo, sizeof(optinfo));
		scribble_hdr(&hdr);
		CHECK(rpcrdma_hdr_encoded_len(&hdr) == (int)v->hdr_len, "%s: encoded_len %d",
		      v->name, rpcrdma_hdr_encoded_len(&hdr));
		check_sizes(v->name, enc_hdr, &hdr, v->bytes, v->hdr_len);
		if (v->kind == CODEC_OPT && v->xchar) {
			snprintf(name, sizeof(name), "%s optinfo", v->name);
			x = *v->xchar;
			scribble_xchar(&x);
			/* rdma_optinfo sits after 7 words. */
			check_sizes(name, enc_xchar, &x, v->bytes + 28, hdr.optional.optinfo_len);
		}
	}
}

static void check_hdr_einval(void)
{
	static const struct {
		uint32_t vers, proc, code;
	} bad[] = {
		{ 0, RPCRDMA_MSG, 0 },
		{ 3, RPCRDMA_MSG, 0 },
		{ 1, 5, 0 },
		{ 1, 0xffffffff, 0 },
		{ 2, RPCRDMA_MSGP, 0 },
		{ 2, RPCRDMA_DONE, 0 },
		{ 2, 6, 0 },
		{ 1, RPCRDMA_ERROR, 0 },
		{ 1, RPCRDMA_ERROR, 3 },
		{ 2, RPCRDMA_ERROR, 0 },
		{ 2, RPCRDMA_ERROR, 4 },
	};
	struct rpcrdma_hdr hdr;
	uint8_t buf[64];
	char name[64];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&hdr, 0, sizeof(hdr));
		hdr.vers = bad[i].vers;
		hdr.proc = bad[i].proc;
		hdr.error.code = bad[i].code;
		snprintf(name, sizeof(name), "hdr vers %u proc %u code %u", bad[i].vers,
			 bad[i].proc, bad[i].code);
		check_einval(name, enc_hdr, &hdr);
		CHECK(rpcrdma_hdr_encoded_len(&hdr) == -EINVAL, "%s: encoded_len", name);
	}

	/* rdma_optinfo: up to INT32_MAX - 64 bytes is a length; beyond, -EINVAL. */
	memset(&hdr, 0, sizeof(hdr));
	hdr.vers = RPCRDMA_VERS_2;
	hdr.proc = RPCRDMA_OPTIONAL;
	hdr.optional.optinfo_len = INT32_MAX - 63;
	check_einval("optinfo_len INT32_MAX - 63", enc_hdr, &hdr);
	hdr.optional.optinfo_len = UINT32_MAX;
	check_einval("optinfo_len UINT32_MAX", enc_hdr, &hdr);
	hdr.optional.optinfo_len = INT32_MAX - 64;
	/* 16 fixed + optdir, opttype, length + the body padded to INT32_MAX - 63. */
	CHECK(rpcrdma_hdr_encoded_len(&hdr) == 28 + (INT32_MAX - 63),
	      "optinfo_len INT32_MAX - 64: encoded_len %d", rpcrdma_hdr_encoded_len(&hdr));
	memset(buf, CANARY, sizeof(buf));
	CHECK(rpcrdma_hdr_encode(&hdr, buf, sizeof(buf)) == -ENOSPC &&
		      canary_broken(buf, 0, sizeof(buf)) == sizeof(buf),
	      "optinfo_len INT32_MAX - 64: not -ENOSPC, or written");
}

static void check_rpc_einval(void)
{
	static const uint8_t big[RPCRDMA_RPC_AUTH_MAX + 1];
	struct rpcrdma_rpc_msg msg;
	uint8_t buf[512];
	int ret;

	memset(&msg, 0, sizeof(msg));
	msg.type = 2;
	check_einval("rpc msg_type 2", enc_rpc, &msg);

	memset(&msg, 0, sizeof(msg));
	msg.type = RPCRDMA_RPC_REPLY;
	msg.reply.stat = 2;
	check_einval("rpc reply_stat 2", enc_rpc, &msg);
	msg.reply.stat = RPCRDMA_RPC_MSG_ACCEPTED;
	msg.reply.accept_stat = RPCRDMA_RPC_SYSTEM_ERR + 1;
	check_einval("rpc accept_stat 6", enc_rpc, &msg);
	msg.reply.accept_stat = RPCRDMA_RPC_SUCCESS;
	msg.reply.verf.body = big;
	msg.reply.verf.len = RPCRDMA_RPC_AUTH_MAX + 1;
	check_einval("rpc reply verf 401 bytes", enc_rpc, &msg);
	msg.reply.stat = RPCRDMA_RPC_MSG_DENIED;
	msg.reply.reject_stat = RPCRDMA_RPC_AUTH_ERROR + 1;
	check_einval("rpc reject_stat 2", enc_rpc, &msg);

	memset(&msg, 0, sizeof(msg));
	msg.type = RPCRDMA_RPC_CALL;
	msg.call.rpcvers = RPCRDMA_RPC_VERS;
	msg.call.cred.body = big;
	msg.call.cred.len = RPCRDMA_RPC_AUTH_MAX + 1;
	check_einval("rpc cred 401 bytes", enc_rpc, &msg);
	msg.call.cred.len = UINT32_MAX;
	check_einval("rpc cred 2^32 - 1 bytes", enc_rpc, &msg);
	msg.call.cred.len = 0;
	msg.call.verf.body = big;
	msg.call.verf.len = RPCRDMA_RPC_AUTH_MAX + 1;
	check_einval("rpc verf 401 bytes", enc_rpc, &msg);

	/* The bound itself is a length: 24 + 8 + 400 + 8 bytes. */
	msg.call.verf.len = 0;
	msg.call.cred.len = RPCRDMA_RPC_AUTH_MAX;
	ret = rpcrdma_rpc_encode(&msg, buf, sizeof(buf));
	CHECK(ret == 440, "rpc cred 400 bytes: returned %d", ret);
}

static void check_authsys_einval(void)
{
	static const char name[RPCRDMA_RPC_MACHNAME_MAX + 1];
	struct rpcrdma_rpc_authsys sys;
	uint8_t buf[512];
	int ret;

	memset(&sys, 0, sizeof(sys));
	sys.machinename = name;
	sys.machinename_len = RPCRDMA_RPC_MACHNAME_MAX + 1;
	check_einval("authsys machinename 256", enc_authsys, &sys);
	sys.machinename_len = RPCRDMA_RPC_MACHNAME_MAX;
	sys.ngids = RPCRDMA_RPC_AUTHSYS_NGIDS + 1;
	check_einval("authsys 17 gids", enc_authsys, &sys);

	/* The bounds themselves: 4 + 4 + 256 + 12 + 64 bytes. */
	sys.ngids = RPCRDMA_RPC_AUTHSYS_NGIDS;
	ret = rpcrdma_rpc_authsys_encode(&sys, buf, sizeof(buf));
	CHECK(ret == 340, "authsys 255-byte name, 16 gids: returned %d", ret);
}

static void check_xchar_einval(void)
{
	struct rpcrdma_xchar_msg x;
	uint8_t buf[512];
	uint32_t i;
	int ret;

	memset(&x, 0, sizeof(x));
	x.opttype = 0;
	check_einval("xchar opttype 0", enc_xchar, &x);
	x.opttype = RPCRDMA_ROPT_UPDXCH + 1;
	check_einval("xchar opttype 5", enc_xchar, &x);
	x.opttype = UINT32_MAX;
	check_einval("xchar opttype 2^32 - 1", enc_xchar, &x);

	x.opttype = RPCRDMA_ROPT_INITXCH;
	x.initxch.start.n = RPCRDMA_XCHAR_MAX + 1;
	check_einval("xchar initxch 33 values", enc_xchar, &x);
	x.opttype = RPCRDMA_ROPT_REQXCH;
	x.reqxch.want.n = UINT32_MAX;
	check_einval("xchar reqxch 2^32 - 1 values", enc_xchar, &x);

	/* The bound itself: 32 Receive Buffer Size values, 4 + 32 * 12 bytes. */
	x.reqxch.want.n = RPCRDMA_XCHAR_MAX;
	for (i = 0; i < RPCRDMA_XCHAR_MAX; i++) {
		x.reqxch.want.vals[i].which = RPCRDMA_XCHAR_RBSIZ;
		x.reqxch.want.vals[i].value = 4096 * i;
	}
	ret = rpcrdma_xchar_encode(&x, buf, sizeof(buf));
	CHECK(ret == 388, "xchar reqxch 32 values: returned %d", ret);
}

/*
 * Counts and lengths whose encoding does not fit in 31 bits: the length
 * arithmetic must not wrap to a small size, or the encoder writes the
 * whole count into a buffer sized for the wrapped length.
 */
static void check_length_overflow(void)
{
	struct rpcrdma_segment seg = { 0x1234, 4096, 0x10000 };
	struct rpcrdma_write_chunk wc = { 0x10000000, &seg };
	static const uint8_t data[4];
	struct rpcrdma_xchar_msg x;
	struct rpcrdma_hdr hdr;

	/* 4 + 2^28 * 16 wraps to 4 in 32 bits. */
	memset(&hdr, 0, sizeof(hdr));
	hdr.vers = RPCRDMA_VERS_1;
	hdr.proc = RPCRDMA_MSG;
	hdr.chunks.nwrites = 1;
	hdr.chunks.writes = &wc;
	check_einval("write chunk of 2^28 segments", enc_hdr, &hdr);
	CHECK(rpcrdma_hdr_encoded_len(&hdr) == -EINVAL, "2^28 segments: encoded_len %d",
	      rpcrdma_hdr_encoded_len(&hdr));

	/* 4 + 2^27 * 16 does not wrap, but is over INT32_MAX. */
	wc.nsegs = 0x08000000;
	check_einval("write chunk of 2^27 segments", enc_hdr, &hdr);
	CHECK(rpcrdma_hdr_encoded_len(&hdr) == -EINVAL, "2^27 segments: encoded_len %d",
	      rpcrdma_hdr_encoded_len(&hdr));

	/* A reply chunk of 2^28 - 1 segments: the total wraps to 12 bytes. */
	hdr.vers = RPCRDMA_VERS_2;
	hdr.proc = RPCRDMA_NOMSG;
	hdr.chunks.nwrites = 0;
	hdr.chunks.has_reply = true;
	hdr.chunks.reply.nsegs = 0x0fffffff;
	hdr.chunks.reply.segs = &seg;
	check_einval("reply chunk of 2^28 - 1 segments", enc_hdr, &hdr);

	/* An unknown characteristic of 2^32 - 3 bytes: padded, 0 in 32 bits. */
	memset(&x, 0, sizeof(x));
	x.opttype = RPCRDMA_ROPT_UPDXCH;
	x.updxch.now.which = 99;
	x.updxch.now.len = 0xfffffffd;
	x.updxch.now.data = data;
	check_einval("xcharval of 2^32 - 3 bytes", enc_xchar, &x);

	/* Two of 2^31 - 16 bytes: no wrap in 64 bits, but over INT32_MAX. */
	x.opttype = RPCRDMA_ROPT_REQXCH;
	x.reqxch.want.n = 2;
	x.reqxch.want.vals[0].which = 99;
	x.reqxch.want.vals[0].len = 0x7ffffff0;
	x.reqxch.want.vals[0].data = data;
	x.reqxch.want.vals[1] = x.reqxch.want.vals[0];
	check_einval("two xcharvals of 2^31 - 16 bytes", enc_xchar, &x);
}

int main(void)
{
	check_vectors();
	check_hdr_einval();
	check_rpc_einval();
	check_authsys_einval();
	check_xchar_einval();
	check_length_overflow();
	return test_summary("test_codec_encode");
}

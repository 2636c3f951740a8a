/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hand-written wire vectors (codec_vectors.c), each one:
 *   decode (from a heap buffer of exactly its length) -> every field equals
 *   the expected value, and the returned length is the header length;
 *   encode the expected structure -> the same bytes;
 *   format -> the line holds the expected tokens, and truncates as snprintf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_cmp.h"
#include "codec_test.h"
#include "codec_vectors.h"

/* Format checks common to the three formatters: return value and truncation. */
typedef int (*format_fn)(const void *obj, char *buf, size_t size);

static int fmt_hdr(const void *obj, char *buf, size_t size)
{
	return rpcrdma_hdr_format(obj, buf, size);
}

static int fmt_rpc(const void *obj, char *buf, size_t size)
{
	return rpcrdma_rpc_format(obj, buf, size);
}

static int fmt_xchar(const void *obj, char *buf, size_t size)
{
	return rpcrdma_xchar_format(obj, buf, size);
}

static void check_format(const char *name, format_fn fn, const void *obj, const char *const *tokens)
{
	char line[1024], small[8];
	const char *missing;
	int n, m;

	memset(line, 0x5a, sizeof(line));
	n = fn(obj, line, sizeof(line));
	CHECK(n > 0 && (size_t)n == strlen(line), "%s: format returned %d for \"%s\"", name, n,
	      line);
	missing = test_missing_token(line, tokens);
	CHECK(!missing, "%s: format line \"%s\" lacks \"%s\"", name, line, missing);

	/* Truncated: the full length is returned, the prefix is NUL-terminated. */
	memset(small, 0x5a, sizeof(small));
	m = fn(obj, small, 5);
	CHECK(m == n && strlen(small) == 4 && memcmp(small, line, 4) == 0 &&
		      (uint8_t)small[5] == 0x5a,
	      "%s: format into 5 bytes returned %d, \"%.8s\"", name, m, small);
	m = fn(obj, NULL, 0);
	CHECK(m == n, "%s: format into 0 bytes returned %d, want %d", name, m, n);
}

/* Compare an encoding with the vector; dump both on a difference. */
static void check_bytes(const char *name, const char *what, const uint8_t *got, int got_len,
			const uint8_t *want, uint32_t want_len)
{
	bool same = got_len == (int)want_len && memcmp(got, want, want_len) == 0;

	CHECK(same, "%s: %s: %d bytes, want %u identical bytes", name, what, got_len, want_len);
	if (!same) {
		test_hexdump("want", want, want_len);
		if (got_len > 0)
			test_hexdump("got", got, (size_t)got_len);
	}
}

static void check_hdr_vector(const struct codec_vector *v)
{
	struct rpcrdma_hdr_storage st;
	struct rpcrdma_hdr *hdr = rpcrdma_hdr_storage_init(&st);
	struct rpcrdma_xchar_msg x;
	struct rpcrdma_hdr want;
	uint8_t optinfo[256];
	uint8_t *buf, *enc;
	char why[160];
	int ret;

	/* The expected rdma_optinfo of an xchar operation comes from its own encoder. */
	ret = test_vector_hdr(v, &want, optinfo, sizeof(optinfo));
	if (v->kind == CODEC_OPT && v->xchar)
		CHECK(ret == (int)want.optional.optinfo_len,
		      "%s: xchar encode returned %d, want %u", v->name, ret,
		      want.optional.optinfo_len);

	buf = test_heap_copy(v->bytes, v->len);
	ret = rpcrdma_hdr_decode(hdr, buf, v->len);
	CHECK(ret == (int)v->hdr_len && hdr->hdr_len == v->hdr_len,
	      "%s: decode returned %d (%s), hdr_len %u, want %u", v->name, ret,
	      rpcrdma_errname(ret), hdr->hdr_len, v->hdr_len);
	if (ret >= 0) {
		CHECK(codec_hdr_cmp(hdr, &want, why, sizeof(why)) == 0, "%s: decoded %s", v->name,
		      why);
		check_format(v->name, fmt_hdr, hdr, v->tokens);
	}
	if (ret >= 0 && v->kind == CODEC_OPT) {
		/* Zero-copy: rdma_optinfo is referenced in place, after 7 words. */
		CHECK(hdr->optional.optinfo == buf + 28, "%s: optinfo not in place", v->name);
		ret = rpcrdma_xchar_decode(&x, hdr->optional.opttype, hdr->optional.optinfo,
					   hdr->optional.optinfo_len);
		CHECK(ret == v->xchar_ret, "%s: xchar decode returned %d (%s), want %d", v->name,
		      ret, rpcrdma_errname(ret), v->xchar_ret);
		if (ret == 0 && v->xchar) {
			CHECK(codec_xchar_cmp(&x, v->xchar, why, sizeof(why)) == 0,
			      "%s: xchar decoded %s", v->name, why);
			check_format(v->name, fmt_xchar, &x, v->xtokens);
		}
	}

	/* Encode the expected header into exactly hdr_len bytes. */
	ret = rpcrdma_hdr_encoded_len(&want);
	CHECK(ret == (int)v->hdr_len, "%s: encoded_len %d, want %u", v->name, ret, v->hdr_len);
	enc = test_malloc(v->hdr_len);
	ret = rpcrdma_hdr_encode(&want, enc, v->hdr_len);
	check_bytes(v->name, "hdr encode", enc, ret, v->bytes, v->hdr_len);
	free(enc);
	free(buf);
}

static void check_rpc_vector(const struct codec_vector *v)
{
	uint8_t body[RPCRDMA_RPC_AUTH_MAX];
	struct rpcrdma_rpc_msg msg, want;
	uint8_t *buf, *enc;
	char why[160];
	int ret;

	/* An AUTH_SYS credential body comes from its own encoder. */
	ret = test_vector_rpc(v, &want, body, sizeof(body));
	if (want.type == RPCRDMA_RPC_CALL && want.call.cred.flavor == RPCRDMA_RPC_AUTH_SYS)
		CHECK(ret == (int)want.call.cred.len, "%s: authsys encode returned %d, want %u",
		      v->name, ret, want.call.cred.len);

	memset(&msg, 0xa5, sizeof(msg));
	buf = test_heap_copy(v->bytes, v->len);
	ret = rpcrdma_rpc_decode(&msg, buf, v->len);
	CHECK(ret == (int)v->hdr_len && msg.hdr_len == v->hdr_len,
	      "%s: decode returned %d (%s), hdr_len %u, want %u", v->name, ret,
	      rpcrdma_errname(ret), msg.hdr_len, v->hdr_len);
	if (ret >= 0) {
		CHECK(codec_rpc_cmp(&msg, &want, why, sizeof(why)) == 0, "%s: decoded %s", v->name,
		      why);
		check_format(v->name, fmt_rpc, &msg, v->tokens);
	}
	/* Auth bodies and the machine name are referenced in place. */
	if (ret >= 0 && msg.type == RPCRDMA_RPC_CALL) {
		CHECK(msg.call.cred.len == 0 || msg.call.cred.body == buf + 32,
		      "%s: cred body not in place", v->name);
		if (msg.call.cred.flavor == RPCRDMA_RPC_AUTH_SYS)
			CHECK((const uint8_t *)msg.call.sys.machinename == buf + 40,
			      "%s: machinename not in place", v->name);
	}

	enc = test_malloc(v->hdr_len);
	ret = rpcrdma_rpc_encode(&want, enc, v->hdr_len);
	check_bytes(v->name, "rpc encode", enc, ret, v->bytes, v->hdr_len);
	free(enc);
	free(buf);
}

/* Each proc of both versions, each error code and each reply status has a vector. */
static void check_coverage(void)
{
	unsigned int procs[3] = { 0 }, v1err = 0, v2err = 0, opts = 0, accepts = 0, rejects = 0;
	unsigned int flavors = 0, i;

	for (i = 0; i < codec_nvectors; i++) {
		const struct codec_vector *v = &codec_vectors[i];

		if (v->hdr) {
			procs[v->hdr->vers] |= 1u << v->hdr->proc;
			if (v->hdr->proc == RPCRDMA_ERROR && v->hdr->vers == 1)
				v1err |= 1u << v->hdr->error.code;
			if (v->hdr->proc == RPCRDMA_ERROR && v->hdr->vers == 2)
				v2err |= 1u << v->hdr->error.code;
			if (v->hdr->proc == RPCRDMA_OPTIONAL)
				opts |= 1u << (v->hdr->optional.opttype & 31);
		}
		if (v->rpc && v->rpc->type == RPCRDMA_RPC_CALL)
			flavors |= 1u
				   << (v->rpc->call.cred.flavor > 2 ? 2 : v->rpc->call.cred.flavor);
		if (v->rpc && v->rpc->type == RPCRDMA_RPC_REPLY) {
			if (v->rpc->reply.stat == RPCRDMA_RPC_MSG_ACCEPTED)
				accepts |= 1u << v->rpc->reply.accept_stat;
			else
				rejects |= 1u << v->rpc->reply.reject_stat;
		}
	}
	CHECK(procs[1] == 0x1f, "v1 procs covered: 0x%x", procs[1]);
	CHECK(procs[2] == 0x33, "v2 procs covered: 0x%x", procs[2]);
	CHECK(v1err == 0x6, "v1 error codes covered: 0x%x", v1err);
	CHECK(v2err == 0xe, "v2 error codes covered: 0x%x", v2err);
	CHECK((opts & 0x1e) == 0x1e && (opts & ~0x1eu), "opttypes covered: 0x%x", opts);
	CHECK(accepts == 0x3f, "accept_stats covered: 0x%x", accepts);
	CHECK(rejects == 0x3, "reject_stats covered: 0x%x", rejects);
	CHECK(flavors == 0x7, "cred flavors covered: 0x%x", flavors);
}

int main(void)
{
	unsigned int i;

	for (i = 0; i < codec_nvectors; i++) {
		const struct codec_vector *v = &codec_vectors[i];

		if (v->kind == CODEC_RPC)
			check_rpc_vector(v);
		else
			check_hdr_vector(v);
	}
	check_coverage();
	printf("%u vectors\n", codec_nvectors);
	return test_summary("test_codec_vectors");
}
